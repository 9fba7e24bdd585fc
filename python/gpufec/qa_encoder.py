#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpufec.encoder: bit-exact against gr-fec's cc_encoder, fixed and length-tagged."""

import numpy as np
from gnuradio import gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import (gr_fec_encode, length_tag, marker_tag, random_bits,
                               run_stream, tags_by_key)


class qa_encoder(gr_unittest.TestCase):

    def check_against_gr_fec(self, code, frames=5, seed=0):
        bits = random_bits(frames * code.frame_bits(), seed)
        ours, _ = run_stream(gpufec.encoder(code), bits, item="b")
        reference = gr_fec_encode(code, bits)
        self.assertEqual(len(ours), frames * code.coded_bits())
        np.testing.assert_array_equal(ours, reference)

    def test_001_terminated_k7(self):
        """K=7 (171,133) terminated == gr-fec cc_encoder [79, 109] CC_TERMINATED."""
        self.check_against_gr_fec(gpufec.conv_code(512, 7, [0o171, 0o133], "terminated"))

    def test_002_terminated_swapped_order(self):
        """(133,171) == gr-fec's default [109, 79]: output order follows the list."""
        self.check_against_gr_fec(gpufec.conv_code(300, 7, [0o133, 0o171], "terminated"))

    def test_003_truncated_and_tail_biting(self):
        """Truncated and tail-biting modes match CC_TRUNCATED and CC_TAILBITING."""
        for term in ("truncated", "tail_biting"):
            self.check_against_gr_fec(gpufec.conv_code(256, 7, [0o171, 0o133], term), seed=3)

    def test_004_other_k_and_rates(self):
        """K=3 r=1/2, K=9 r=1/3 and K=5 r=1/4 match gr-fec too."""
        self.check_against_gr_fec(gpufec.conv_code(100, 3, [0o7, 0o5]))
        self.check_against_gr_fec(gpufec.conv_code(100, 9, [0o557, 0o663, 0o711]))
        self.check_against_gr_fec(gpufec.conv_code(100, 5, [0o25, 0o33, 0o27, 0o37]))

    def test_005_tagged_frames(self):
        """Length-tagged frames of random lengths: coded lengths, tags and bits."""
        code = gpufec.conv_code(200, 7, [0o171, 0o133], "terminated")
        rng = np.random.default_rng(5)
        lengths = rng.integers(1, 201, 12)
        bits = random_bits(int(lengths.sum()), 6)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        tags = [length_tag(int(s), int(n)) for s, n in zip(starts, lengths)]
        tags += [marker_tag(int(s + n // 2), i) for i, (s, n) in enumerate(zip(starts, lengths))]
        out, out_tags = run_stream(gpufec.encoder(code, "packet_len"), bits, "b", tags)

        coded = [code.coded_bits_for(int(n)) for n in lengths]
        out_starts = np.concatenate([[0], np.cumsum(coded)[:-1]])
        self.assertEqual(len(out), sum(coded))
        self.assertEqual(tags_by_key(out_tags, "packet_len"),
                         [(int(s), c) for s, c in zip(out_starts, coded)])
        expected_markers = [(int(os + (n // 2) * c // n), i)
                            for i, (os, n, c) in enumerate(zip(out_starts, lengths, coded))]
        self.assertEqual(tags_by_key(out_tags, "marker"), expected_markers)
        for s, n, os, c in zip(starts, lengths, out_starts, coded):
            np.testing.assert_array_equal(out[os:os + c], code.encode(bits[s:s + n].tolist()))

    def test_006_oversized_tag_is_dropped(self):
        """A tagged frame longer than frame_bits is dropped; the stream goes on."""
        code = gpufec.conv_code(64)
        bits = random_bits(64 + 500 + 64, 7)
        tags = [length_tag(0, 64), length_tag(64, 500), length_tag(564, 64)]
        enc = gpufec.encoder(code, "packet_len")
        out, out_tags = run_stream(enc, bits, "b", tags)
        self.assertEqual(enc.dropped_frames(), 1)
        self.assertEqual(len(out), 2 * code.coded_bits())
        np.testing.assert_array_equal(out[code.coded_bits():], code.encode(bits[564:].tolist()))


if __name__ == "__main__":
    gr_unittest.run(qa_encoder)
