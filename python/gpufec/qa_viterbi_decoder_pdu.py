#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpufec.viterbi_decoder_pdu: PDUs in, decoded PDUs out, in order, metadata kept."""

import numpy as np
import pmt
from gnuradio import gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import bpsk_llrs, collect_pdus, random_bits


class qa_viterbi_decoder_pdu(gr_unittest.TestCase):

    def setUp(self):
        self.code = gpufec.conv_code(400, 7, [0o171, 0o133], "terminated")

    def test_001_pdus_in_order(self):
        """N random-length PDUs (float and int8 mixed), batches of 4: N PDUs out, in
        order, each with its own metadata and its decoded bits."""
        rng = np.random.default_rng(1)
        frames = 30
        pdus, expected = [], []
        for i in range(frames):
            n = int(rng.integers(1, 401))
            bits = random_bits(n, 100 + i)
            llrs = bpsk_llrs(self.code.encode(bits.tolist()))
            if i % 3 == 0:
                vec = pmt.init_s8vector(len(llrs), (llrs * 10).astype(np.int8).tolist())
            else:
                vec = pmt.init_f32vector(len(llrs), llrs.tolist())
            meta = pmt.dict_add(pmt.make_dict(), pmt.intern("seq"), pmt.from_long(i))
            pdus.append(pmt.cons(meta, vec))
            expected.append(bits)
        dec = gpufec.viterbi_decoder_pdu(self.code, "cpu", max_batch_frames=4)
        out = collect_pdus(dec, pdus, frames)
        self.assertEqual(len(out), frames)
        for i, (msg, bits) in enumerate(zip(out, expected)):
            self.assertEqual(pmt.to_long(pmt.dict_ref(pmt.car(msg), pmt.intern("seq"),
                                                      pmt.PMT_NIL)), i)
            np.testing.assert_array_equal(np.array(pmt.u8vector_elements(pmt.cdr(msg))), bits)
        self.assertEqual(dec.decoded_frames(), frames)

    def test_002_bad_pdus_dropped(self):
        """Undecodable lengths, wrong vector types and non-PDUs are dropped with an
        error; the good PDUs around them still come out in order."""
        good = [bpsk_llrs(self.code.encode(random_bits(400, i).tolist())) for i in range(2)]
        pdus = [
            pmt.cons(pmt.PMT_NIL, pmt.init_f32vector(len(good[0]), good[0].tolist())),
            pmt.cons(pmt.PMT_NIL, pmt.init_f32vector(5000, [1.0] * 5000)),  # too long
            pmt.cons(pmt.PMT_NIL, pmt.init_f32vector(33, [1.0] * 33)),  # odd length
            pmt.cons(pmt.PMT_NIL, pmt.init_u8vector(4, [1, 2, 3, 4])),  # wrong type
            pmt.intern("not a pdu"),
            pmt.cons(pmt.PMT_NIL, pmt.init_f32vector(len(good[1]), good[1].tolist())),
        ]
        dec = gpufec.viterbi_decoder_pdu(self.code, "cpu")
        out = collect_pdus(dec, pdus, 2)
        self.assertEqual(len(out), 2)
        self.assertEqual(dec.dropped_frames(), 4)
        for i, msg in enumerate(out):
            np.testing.assert_array_equal(np.array(pmt.u8vector_elements(pmt.cdr(msg))),
                                          random_bits(400, i))


if __name__ == "__main__":
    gr_unittest.run(qa_viterbi_decoder_pdu)
