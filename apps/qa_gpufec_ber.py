#!/usr/bin/python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of gpufec-ber (apps/gpufec_ber.py): its theory curve, its parsing, and a tiny
Eb/N0 sweep through the real GNU Radio blocks that writes the CSV and the PNG."""

import os
import sys
import tempfile

from gnuradio import gr_unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpufec_ber  # noqa: E402


def write_gallager_alist(path, n=96, wc=3, wr=6, seed=1):
    """A regular (wc, wr) Gallager LDPC matrix (n columns, n wc / wr checks) written in
    MacKay's alist format: band j of n / wr checks is a fixed column permutation of
    the first band."""
    import numpy as np
    rng = np.random.default_rng(seed)
    rows_per_band = n // wr
    rows = []
    for band in range(wc):
        perm = np.arange(n) if band == 0 else rng.permutation(n)
        for r in range(rows_per_band):
            rows.append(sorted(int(c) for c in perm[r * wr:(r + 1) * wr]))
    cols = [[] for _ in range(n)]
    for r, row in enumerate(rows):
        for c in row:
            cols[c].append(r)
    lines = [f"{n} {len(rows)}", f"{max(map(len, cols))} {wr}",
             " ".join(str(len(c)) for c in cols), " ".join(str(len(r)) for r in rows)]
    lines += [" ".join(str(r + 1) for r in c) for c in cols]
    lines += [" ".join(str(c + 1) for c in r) for r in rows]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


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

    def options(self, argv):
        return gpufec_ber.decoder_options_from_args(gpufec_ber.build_parser().parse_args(argv))

    def test_005_block_code_options(self):
        """--code picks the family; decoder options map to that decoder's keywords
        (polar's --iterations is its BP limit); unset options stay at decoder defaults;
        options of another decoder are refused naming the flag."""
        self.assertEqual(self.options([]), {})
        self.assertEqual(self.options(["--code", "turbo", "--iterations", "4", "--algorithm",
                                       "max-log-map", "--arithmetic", "int8",
                                       "--sub-blocks", "2", "--no-early-termination",
                                       "--schedule", "synchronised"]),
                         {"iterations": 4, "algorithm": "max-log-map", "arithmetic": "int8",
                          "sub_blocks": 2, "early_termination": False,
                          "schedule": "synchronised"})
        self.assertEqual(self.options(["--code", "ldpc", "--algorithm", "offset", "--beta",
                                       "0.25"]),
                         {"algorithm": "offset", "beta": 0.25})
        self.assertEqual(self.options(["--code", "ldpc-alist", "--alpha", "0.8"]),
                         {"alpha": 0.8})
        self.assertEqual(self.options(["--code", "polar", "--algorithm", "bp",
                                       "--iterations", "20"]),
                         {"algorithm": "bp", "bp_iterations": 20})
        self.assertEqual(self.options(["--code", "polar", "--list-size", "4"]),
                         {"list_size": 4})
        for argv, flag in ((["--code", "turbo", "--list-size", "4"], "--list-size"),
                           (["--code", "conv", "--iterations", "3"], "--iterations"),
                           (["--code", "polar", "--alpha", "0.5"], "--alpha"),
                           (["--code", "ldpc", "--extrinsic-scale", "0.5"],
                            "--extrinsic-scale")):
            with self.assertRaises(ValueError) as ctx:
                self.options(argv)
            self.assertIn(flag, str(ctx.exception))
        with self.assertRaises(SystemExit):  # argparse: not a --code choice
            gpufec_ber.build_parser().parse_args(["--code", "reed-solomon"])

    def test_006_block_codes_from_the_command_line(self):
        """Each --code builds its code with the given parameters; bad parameters and
        bad decoder options make main() return 2 before any point runs."""
        def code(argv):
            return gpufec_ber.code_from_args(gpufec_ber.build_parser().parse_args(argv))

        turbo = code(["--code", "turbo", "--turbo-k", "512", "--crc24b"])
        self.assertEqual((turbo.family(), turbo.k(), turbo.frame_bits(), turbo.coded_bits()),
                         ("turbo", 512, 488, 3 * 512 + 12))
        ldpc = code(["--code", "ldpc", "--ldpc-bg", "2", "--ldpc-z", "52"])
        self.assertEqual((ldpc.family(), ldpc.frame_bits(), ldpc.coded_bits()),
                         ("ldpc", 520, 50 * 52))
        polar = code(["--code", "polar", "--polar-k", "100", "--polar-e", "300",
                      "--polar-crc", "crc24c", "--no-channel-interleave"])
        self.assertEqual((polar.family(), polar.frame_bits(), polar.coded_bits(),
                          polar.crc()), ("polar", 100, 300, "crc24c"))
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "g96.alist")
            write_gallager_alist(path)
            alist = code(["--code", "ldpc-alist", "--alist", path])
            self.assertEqual((alist.family(), alist.n(), alist.coded_bits()), ("ldpc", 96, 96))
        with self.assertRaises(ValueError) as ctx:
            code(["--code", "ldpc-alist"])
        self.assertIn("--alist", str(ctx.exception))
        for argv in (["--code", "turbo", "--turbo-k", "41"],
                     ["--code", "ldpc", "--ldpc-z", "17"],
                     ["--code", "polar", "--polar-k", "600", "--polar-e", "500"],
                     ["--code", "ldpc-alist", "--alist", "/nonexistent/x.alist"],
                     ["--code", "turbo", "--algorithm", "log-map"],
                     ["--code", "polar", "--list-size", "64"],
                     ["--code", "ldpc", "--arithmetic", "int16"]):
            with tempfile.TemporaryDirectory() as out:
                rc = gpufec_ber.main(argv + ["--ebn0", "5", "--quiet", "--no-plot",
                                             "--out-dir", out])
                self.assertEqual(rc, 2, argv)
                self.assertEqual(os.listdir(out), [], argv)

    def tiny_run(self, argv, max_bits=1, ebn0=6.0):
        """main() at one high Eb/N0 point on the CPU, max_bits decoded bits (whole
        frames; 1 = one frame); returns the CSV's point, checked error free."""
        with tempfile.TemporaryDirectory() as out:
            rc = gpufec_ber.main(argv + ["--ebn0", str(ebn0), "--backend", "cpu",
                                         "--max-bits", str(max_bits), "--max-errors", "0",
                                         "--quiet", "--no-plot", "--out-dir", out,
                                         "--name", "p"])
            self.assertEqual(rc, 0)
            (p,) = gpufec_ber.read_csv(os.path.join(out, "p.csv"))
        self.assertEqual(p.backend, "cpu")
        self.assertEqual(p.bit_errors, 0, argv)
        self.assertEqual(p.frame_errors, 0, argv)
        return p

    def test_007_turbo_run(self):
        """LTE turbo K=512 with CRC24B at 6 dB: error free (turbo codes of this size are
        far below 1e-5 FER above ~2 dB); 40 frames of 488 bits counted."""
        code = gpufec_ber.make_block_code("turbo", turbo_k=512, crc24b=True)
        p = gpufec_ber.run_point(code, 6.0, backend="cpu", max_errors=0, max_bits=40 * 488,
                                 decoder_options={"iterations": 4})
        self.assertEqual((p.bits, p.frames, p.bit_errors), (40 * 488, 40, 0))
        self.tiny_run(["--code", "turbo", "--turbo-k", "256", "--iterations", "4"])
        # Rate matched (E = 600 of 780 stream bits, rv 2) through the same command line.
        code = gpufec_ber.make_block_code("turbo", turbo_k=256, turbo_e=600, turbo_rv=2)
        self.assertEqual(code.coded_bits(), 600)
        self.tiny_run(["--code", "turbo", "--turbo-k", "256", "--turbo-e", "600",
                       "--turbo-rv", "2", "--iterations", "4"])

    def test_008_ldpc_run(self):
        """NR LDPC BG2 Z=52 (rate ~1/5) and BG1 Z=32 with rate matching at 6 dB:
        error free; int8 input (--input byte) too."""
        p = self.tiny_run(["--code", "ldpc", "--ldpc-bg", "2", "--ldpc-z", "52"], 20000)
        self.assertEqual(p.bits, 39 * 520)
        self.tiny_run(["--code", "ldpc", "--ldpc-bg", "1", "--ldpc-z", "32", "--ldpc-e",
                       "1400", "--input", "byte", "--algorithm", "offset"])

    def test_009_ldpc_alist_run(self):
        """A regular (3,6) Gallager code of n = 96 from an alist file at 9 dB (Es/N0
        ~6 dB: a channel error in about one frame of five): error free over 100 frames."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "g96.alist")
            write_gallager_alist(path)
            code = gpufec_ber.make_block_code("ldpc-alist", alist=path)
            p = gpufec_ber.run_point(code, 9.0, backend="cpu", max_errors=0,
                                     max_bits=100 * code.frame_bits(),
                                     decoder_options={"iterations": 30})
            self.assertEqual((p.frames, p.bit_errors), (100, 0))
            self.tiny_run(["--code", "ldpc-alist", "--alist", path, "--iterations", "30"],
                          ebn0=9.0)

    def test_009b_dvbs2_run(self):
        """DVB-S2 short 3/4 (k = 11880) at 5 dB with the decoder settings of
        docs/dvbs2.md: error free."""
        p = self.tiny_run(["--code", "dvbs2", "--dvbs2-frame", "short", "--dvbs2-rate",
                           "3/4", "--algorithm", "offset", "--beta", "0.375",
                           "--iterations", "50"], 2 * 11880, ebn0=5.0)
        self.assertEqual(p.frames, 2)

    def test_010_polar_run(self):
        """NR polar k=64 e=128 CRC11 at 6 dB with SC, CA-SCL and BP: error free."""
        for algorithm in ("sc", "scl", "bp"):
            p = self.tiny_run(["--code", "polar", "--polar-k", "64", "--polar-e", "128",
                               "--algorithm", algorithm], 6400)
            self.assertEqual(p.frames, 100)

    def test_011_mimo_runs(self):
        """--mimo: uncoded 4x4 16-QAM MTT at Eb/N0 = 8 dB makes errors at the rate the
        detector's curve has there (docs/mimo.md: ~5.7e-3, so 2e-3..1.5e-2 over 32000
        bits), LMMSE more of them; 2x2 QPSK coded with NR LDPC at 8 dB is error free;
        bad --mimo values return 2."""
        mtt = gpufec_ber.run_mimo_point(8.0, detector="mtt", backend="cpu", max_errors=0,
                                        max_bits=32000, seed=3)
        self.assertEqual((mtt.bits, mtt.frames), (32000, 2000))
        self.assertGreater(mtt.ber, 2e-3)
        self.assertLess(mtt.ber, 1.5e-2)
        lmmse = gpufec_ber.run_mimo_point(8.0, detector="lmmse", backend="cpu",
                                          max_errors=0, max_bits=32000, seed=3)
        self.assertGreater(lmmse.bit_errors, mtt.bit_errors)
        p = self.tiny_run(["--mimo", "2x2", "--modulation", "qpsk", "--code", "ldpc",
                           "--ldpc-bg", "2", "--ldpc-z", "16", "--ldpc-e", "320"], 1600,
                          ebn0=8.0)
        self.assertEqual(p.frames, 10)
        for argv in (["--mimo", "4by4"], ["--mimo", "4x2"], ["--mimo", "2x2", "--code", "ldpc",
                                                             "--ldpc-z", "16", "--ldpc-e", "330"]):
            with tempfile.TemporaryDirectory() as out:
                rc = gpufec_ber.main(argv + ["--ebn0", "5", "--quiet", "--no-plot",
                                             "--out-dir", out])
                self.assertEqual(rc, 2, argv)


if __name__ == "__main__":
    gr_unittest.run(qa_gpufec_ber)
