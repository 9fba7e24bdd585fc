#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpufec.conv_code: parameters, validation and the gr-fec polynomial mapping."""

from gnuradio import gr_unittest

from gnuradio import gpufec


class qa_conv_code(gr_unittest.TestCase):

    def test_001_defaults(self):
        """The default code is K=7 (171,133) r=1/2 terminated, 2048-bit frames."""
        code = gpufec.conv_code()
        self.assertEqual(code.family(), "conv")
        self.assertEqual(code.frame_bits(), 2048)
        self.assertEqual(code.k(), 7)
        self.assertEqual(code.polys(), [0o171, 0o133])
        self.assertEqual(code.termination(), "terminated")
        self.assertEqual(code.coded_bits(), 2 * (2048 + 6))
        self.assertAlmostEqual(code.rate(), 2048 / 4108)
        self.assertEqual(code.info_bits_for_coded(4108), 2048)

    def test_002_gr_fec_polys(self):
        """gr-fec's convention is the bit-reversed polynomial in the same order."""
        self.assertEqual(gpufec.conv_code(polys=[0o171, 0o133]).gr_fec_polys(), [79, 109])
        self.assertEqual(gpufec.conv_code(polys=[0o133, 0o171]).gr_fec_polys(), [109, 79])
        self.assertEqual(gpufec.conv_code(k=3, polys=[0o7, 0o5]).gr_fec_polys(), [7, 5])

    def test_003_punctured_lengths(self):
        """Rate 3/4 puncturing sends 4 of every 6 mother bits."""
        code = gpufec.conv_code(frame_bits=1200, termination="truncated", puncture="3/4")
        self.assertEqual(code.coded_bits(), 1600)
        self.assertAlmostEqual(code.rate(), 0.75)

    def assertRaisesMentioning(self, words, make):
        with self.assertRaises(ValueError) as ctx:
            make()
        for word in words:
            self.assertIn(word, str(ctx.exception))

    def test_004_bad_k(self):
        """K outside 3..9 is refused, naming the range."""
        self.assertRaisesMentioning(["3", "9"], lambda: gpufec.conv_code(k=2, polys=[3, 1]))
        self.assertRaisesMentioning(["3", "9"],
                                    lambda: gpufec.conv_code(k=10, polys=[0o1171, 0o1133]))

    def test_005_poly_wider_than_k(self):
        """A polynomial with more than K bits is refused."""
        self.assertRaisesMentioning(["171"], lambda: gpufec.conv_code(k=5, polys=[0o171, 0o133]))

    def test_006_zero_frame(self):
        """frame_bits = 0 is refused."""
        self.assertRaisesMentioning(["frame_bits"], lambda: gpufec.conv_code(frame_bits=0))

    def test_007_bad_puncture(self):
        """Unknown rates, characters other than 0/1 and wrong lengths are refused."""
        self.assertRaisesMentioning(["3/4"], lambda: gpufec.conv_code(puncture="4/5"))
        self.assertRaises(ValueError, lambda: gpufec.conv_code(puncture="11x1"))
        self.assertRaises(ValueError, lambda: gpufec.conv_code(puncture="110"))
        self.assertRaises(ValueError, lambda: gpufec.conv_code(puncture="0000"))

    def test_008_bad_termination(self):
        """Unknown terminations are refused, naming the allowed ones."""
        self.assertRaisesMentioning(["tail_biting", "truncated"],
                                    lambda: gpufec.conv_code(termination="zero"))

    def test_009_encode_length(self):
        """code.encode() accepts 1..frame_bits bits and returns coded_bits_for(n) bits."""
        code = gpufec.conv_code(frame_bits=64)
        self.assertEqual(len(code.encode([1] * 10)), code.coded_bits_for(10))
        self.assertRaises(ValueError, lambda: code.encode([1] * 65))
        self.assertRaises(ValueError, lambda: code.encode([]))


if __name__ == "__main__":
    gr_unittest.run(qa_conv_code)
