#!/usr/bin/python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of gpufec-ber (apps/gpufec_ber.py): its theory curve, its parsing, and a tiny
Eb/N0 sweep through the real GNU Radio blocks that writes the CSV and the PNG."""

import csv
import os
import sys
import tempfile

from gnuradio import gr_unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpufec_ber  # noqa: E402


class qa_gpufec_ber(gr_unittest.TestCase):

    def test_001_uncoded_bpsk_matches_tables(self):
        """Q(sqrt(2 Eb/N0)) against textbook BPSK values (0, 4, 9.6 dB)."""
        self.assertAlmostEqual(gpufec_ber.uncoded_bpsk_ber(0.0), 7.865e-2, delta=1e-5)
        self.assertAlmostEqual(gpufec_ber.uncoded_bpsk_ber(4.0), 1.2501e-2, delta=1e-6)
        self.assertAlmostEqual(gpufec_ber.uncoded_bpsk_ber(9.6) / 1e-5, 1.0, delta=0.05)

    def test_002_parsing(self):
        """Eb/N0 ranges include their stop value; polynomials are octal; bad input raises."""
        self.assertEqual(gpufec_ber.parse_ebn0("0:2:0.5"), [0.0, 0.5, 1.0, 1.5, 2.0])
        self.assertEqual(gpufec_ber.parse_ebn0("3, 4.5"), [3.0, 4.5])
        self.assertEqual(gpufec_ber.parse_polys("171,133"), [0o171, 0o133])
        with self.assertRaises(ValueError):
            gpufec_ber.parse_ebn0("1:2")
        with self.assertRaises(ValueError):
            gpufec_ber.parse_polys("178,133")

    def test_003_sweep_writes_table_csv_and_plot(self):
        """A two-point sweep on the CPU: BER at 2 dB is well below uncoded BPSK yet
        nonzero; 6 dB is error free over 2e5 bits; CSV rows and PNG are written."""
        with tempfile.TemporaryDirectory() as out:
            rc = gpufec_ber.main(["--ebn0", "2,6", "--frame-bits", "512", "--backend", "cpu",
                                  "--max-bits", "2e5", "--max-errors", "400", "--quiet",
                                  "--out-dir", out, "--name", "sweep"])
            self.assertEqual(rc, 0)
            points = gpufec_ber.read_csv(os.path.join(out, "sweep.csv"))
            self.assertEqual([p.ebn0_db for p in points], [2.0, 6.0])
            low, high = points
            self.assertGreater(low.bit_errors, 0)
            self.assertLess(low.ber, gpufec_ber.uncoded_bpsk_ber(2.0) / 3)
            self.assertGreater(low.frame_errors, 0)
            self.assertEqual(low.bits, low.frames * 512)
            self.assertEqual(high.bit_errors, 0)
            self.assertGreaterEqual(high.bits, 2e5)
            with open(os.path.join(out, "sweep.png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_004_point_is_reproducible(self):
        """A point that stops on its bit budget is a pure function of the seed."""
        code = gpufec_ber.make_code(frame_bits=256)
        a = gpufec_ber.run_point(code, 2.5, backend="cpu", max_errors=0, max_bits=5e4, seed=7)
        b = gpufec_ber.run_point(code, 2.5, backend="cpu", max_errors=0, max_bits=5e4, seed=7)
        self.assertEqual(a.bits, 50176)  # rounded up to whole 256-bit frames
        self.assertEqual((a.bits, a.bit_errors, a.frame_errors),
                         (b.bits, b.bit_errors, b.frame_errors))


if __name__ == "__main__":
    gr_unittest.run(qa_gpufec_ber)
