#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpufec.ber_counter counts injected bit and frame errors."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import random_bits


class qa_ber_counter(gr_unittest.TestCase):

    def run_counter(self, decoded, reference, frame_bits, report_every=0):
        ber = gpufec.ber_counter(frame_bits, report_every)
        sink = blocks.message_debug()
        tb = gr.top_block()
        tb.connect(blocks.vector_source_b(decoded.tolist()), (ber, 0))
        tb.connect(blocks.vector_source_b(reference.tolist()), (ber, 1))
        tb.msg_connect((ber, "stats"), (sink, "store"))
        tb.run()
        return ber, [sink.get_message(i) for i in range(sink.num_messages())]

    def test_001_known_errors(self):
        """Errors flipped at known places: bit and frame counts match exactly."""
        reference = random_bits(10 * 100, 1)
        decoded = reference.copy()
        flips = [5, 7, 250, 251, 252, 999]  # frames 0, 0, 2, 2, 2, 9
        decoded[flips] ^= 1
        decoded[500] |= 2  # only the LSB is a bit
        ber, _ = self.run_counter(decoded, reference, 100)
        self.assertEqual(ber.bits(), 1000)
        self.assertEqual(ber.bit_errors(), 6)
        self.assertEqual(ber.frames(), 10)
        self.assertEqual(ber.frame_errors(), 3)
        self.assertAlmostEqual(ber.ber(), 6 / 1000)
        ber.reset()
        self.assertEqual((ber.bits(), ber.bit_errors(), ber.frames(), ber.frame_errors()),
                         (0, 0, 0, 0))

    def test_002_stats_messages(self):
        """Stats dicts are posted every N frames (and at stop) with the counts so far."""
        reference = random_bits(6 * 50, 2)
        decoded = reference.copy()
        decoded[[10, 120]] ^= 1
        ber, msgs = self.run_counter(decoded, reference, 50, report_every=2)
        self.assertGreaterEqual(len(msgs), 3)
        periodic = [pmt.to_python(m) for m in msgs[:3]]
        self.assertEqual([d["frames"] for d in periodic], [2, 4, 6])
        self.assertEqual([d["bit_errors"] for d in periodic], [1, 2, 2])
        self.assertEqual(periodic[2]["frame_errors"], 2)
        self.assertAlmostEqual(periodic[2]["ber"], 2 / 300)

    def test_003_no_frames(self):
        """frame_bits = 0 counts bits only."""
        ber, _ = self.run_counter(np.ones(64, np.uint8), np.zeros(64, np.uint8), 0)
        self.assertEqual((ber.bits(), ber.bit_errors(), ber.frames()), (64, 64, 0))


if __name__ == "__main__":
    gr_unittest.run(qa_ber_counter)
