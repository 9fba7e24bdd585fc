#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The block codes' Python API: gpufec.lte_turbo_code, nr_ldpc_code,
ldpc_code_from_alist and nr_polar_code, and their decoders (turbo_decoder,
ldpc_decoder, polar_decoder, each in stream and PDU form) on the CPU backend."""

import functools
import os
import shutil
import tempfile

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import (bpsk_llrs, collect_pdus, length_tag, marker_tag, random_bits, run_stream,
                               tags_by_key)

#: The (7,4) Hamming code: every column of H is a distinct nonzero 3-bit pattern.
HAMMING_H = [[1, 1, 0, 1, 1, 0, 0],
             [1, 0, 1, 1, 0, 1, 0],
             [0, 1, 1, 1, 0, 0, 1]]


def alist_text(h):
    """H (a list of 0/1 rows) in MacKay's alist format, lists zero-padded."""
    h = np.asarray(h)
    m, n = h.shape
    cols = [list(np.flatnonzero(h[:, c]) + 1) for c in range(n)]
    rows = [list(np.flatnonzero(h[r]) + 1) for r in range(m)]
    wc, wr = max(map(len, cols)), max(map(len, rows))
    lines = [f"{n} {m}", f"{wc} {wr}", " ".join(str(len(c)) for c in cols),
             " ".join(str(len(r)) for r in rows)]
    lines += [" ".join(str(v) for v in c + [0] * (wc - len(c))) for c in cols]
    lines += [" ".join(str(v) for v in r + [0] * (wr - len(r))) for r in rows]
    return "\n".join(lines) + "\n"


def gallager_h(n=96, wc=3, wr=6, seed=1):
    """A regular (wc, wr) Gallager parity-check matrix: band j is a fixed column
    permutation of the first band (n / wr checks of wr consecutive columns)."""
    rng = np.random.default_rng(seed)
    h = np.zeros((wc * n // wr, n), dtype=np.uint8)
    for band in range(wc):
        perm = np.arange(n) if band == 0 else rng.permutation(n)
        for r in range(n // wr):
            h[band * n // wr + r, perm[r * wr:(r + 1) * wr]] = 1
    return h


def encode_frames(code, bits):
    """code.encode() of each frame of `bits` (whole frames), concatenated."""
    k = code.frame_bits()
    return np.concatenate([np.array(code.encode(bits[i:i + k].tolist()), dtype=np.uint8)
                           for i in range(0, len(bits), k)])


def status_tags(tags):
    """(iterations tags, crc_ok tags) as [(offset, value)]."""
    return tags_by_key(tags, "iterations"), tags_by_key(tags, "crc_ok")


class qa_block_codes(gr_unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="qa_block_codes")
        cls.hamming_path = os.path.join(cls.tmp, "hamming_7_4.alist")
        with open(cls.hamming_path, "w") as f:
            f.write(alist_text(HAMMING_H))
        cls.gallager = gallager_h()
        cls.gallager_path = os.path.join(cls.tmp, "gallager_96.alist")
        with open(cls.gallager_path, "w") as f:
            f.write(alist_text(cls.gallager))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def decoders(self):
        """(name, code, stream decoder maker, PDU decoder maker) of every family."""
        turbo = gpufec.lte_turbo_code(256, True)
        ldpc = gpufec.nr_ldpc_code(2, 16, 0, 0)
        ldpc_rm = gpufec.nr_ldpc_code(1, 8, 160, 300)
        alist = gpufec.ldpc_code_from_alist(self.gallager_path)
        polar = gpufec.nr_polar_code(40, 100, "crc11")
        return [
            ("turbo", turbo, lambda **kw: gpufec.turbo_decoder(turbo, **kw),
             lambda **kw: gpufec.turbo_decoder_pdu(turbo, **kw)),
            ("ldpc", ldpc, lambda **kw: gpufec.ldpc_decoder(ldpc, **kw),
             lambda **kw: gpufec.ldpc_decoder_pdu(ldpc, **kw)),
            ("ldpc-rm", ldpc_rm, lambda **kw: gpufec.ldpc_decoder(ldpc_rm, **kw),
             lambda **kw: gpufec.ldpc_decoder_pdu(ldpc_rm, **kw)),
            ("alist", alist, lambda **kw: gpufec.ldpc_decoder(alist, **kw),
             lambda **kw: gpufec.ldpc_decoder_pdu(alist, **kw)),
            ("polar-scl", polar, lambda **kw: gpufec.polar_decoder(polar, **kw),
             lambda **kw: gpufec.polar_decoder_pdu(polar, **kw)),
            ("polar-sc", polar, lambda **kw: gpufec.polar_decoder(polar, "sc", **kw),
             lambda **kw: gpufec.polar_decoder_pdu(polar, "sc", **kw)),
            ("polar-bp", polar, lambda **kw: gpufec.polar_decoder(polar, "bp", **kw),
             lambda **kw: gpufec.polar_decoder_pdu(polar, "bp", **kw)),
        ]

    # ---- code objects -------------------------------------------------------------

    def test_001_lte_turbo_code(self):
        """Sizes and rate of K = 1024 with and without CRC24B; the encoder is
        systematic (d0 starts with the K input bits) and writes 3K + 12 bits."""
        code = gpufec.lte_turbo_code(1024)
        self.assertEqual(code.family(), "turbo")
        self.assertEqual((code.k(), code.crc24b(), code.frame_bits(), code.coded_bits()),
                         (1024, False, 1024, 3084))
        self.assertAlmostEqual(code.rate(), 1024 / 3084)
        self.assertEqual(code.coded_bits_for(1024), 3084)
        self.assertEqual(code.coded_bits_for(1000), 0)
        self.assertEqual(code.info_bits_for_coded(3084), 1024)
        bits = random_bits(1024, 1)
        coded = np.array(code.encode(bits.tolist()))
        self.assertEqual(len(coded), 3084)
        self.assertTrue(set(np.unique(coded)) <= {0, 1})
        np.testing.assert_array_equal(coded[:1024], bits)
        self.assertIn("1024", code.describe())

        crc = gpufec.lte_turbo_code(1024, crc24b=True)
        self.assertEqual((crc.k(), crc.crc24b(), crc.frame_bits(), crc.coded_bits()),
                         (1024, True, 1000, 3084))
        coded = np.array(crc.encode(bits[:1000].tolist()))
        np.testing.assert_array_equal(coded[:1000], bits[:1000])
        self.assertEqual(gpufec.lte_turbo_code().k(), 6144)
        for k in (40, 512, 528, 1056, 2112, 6144):  # one size of each QPP step
            self.assertEqual(gpufec.lte_turbo_code(k).coded_bits(), 3 * k + 12)

    def test_001b_lte_turbo_rate_matching(self):
        """e > 0 rate matches the block (TS 36.212 5.1.4.1): e coded bits, the
        turbo decoder de-rate-matches them; noiseless frames decode for every rv, at a
        punctured and a repeated e; bad rv and e are refused naming the allowed
        values."""
        for e, rv in ((700, 0), (1300, 1), (2500, 2), (2500, 3)):
            code = gpufec.lte_turbo_code(512, True, e, rv)
            self.assertEqual((code.e(), code.rv(), code.coded_bits(), code.frame_bits()),
                             (e, rv, e, 488))
            self.assertIn("E=%d" % e, code.describe())
            bits = random_bits(488 * 3, 20 + rv)
            dec = gpufec.turbo_decoder(code, 8, backend="cpu")
            out, tags = self.encoder_chain(code, dec, bits)
            np.testing.assert_array_equal(out, bits, err_msg="e %d rv %d" % (e, rv))
        self.assertEqual(gpufec.lte_turbo_code(512).e(), 0)
        # The first block of a segmented transport block: 31 filler bits in front.
        first = gpufec.lte_turbo_code(1056, True, 3300, 0, 0, 31)
        self.assertEqual(first.frame_bits(), 1056 - 24 - 31)
        bits = random_bits(first.frame_bits() * 2, 30)
        out, _ = self.encoder_chain(first, gpufec.turbo_decoder(first, 8, backend="cpu"),
                                    bits)
        np.testing.assert_array_equal(out, bits, err_msg="filler")
        with self.assertRaises(ValueError) as ctx:
            gpufec.lte_turbo_code(512, False, 700, 4)
        self.assertIn("0..3", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            gpufec.lte_turbo_code(512, False, -1)
        self.assertIn("e >= 1", str(ctx.exception))

    def test_002_lte_turbo_code_bad_parameters(self):
        """Sizes that are not QPP sizes are refused naming the allowed ones; the
        encoder takes exactly frame_bits() bits."""
        for k in (0, 39, 41, 520, 6145, 7000):
            with self.assertRaises(ValueError, msg=str(k)) as ctx:
                gpufec.lte_turbo_code(k)
            self.assertIn("6144", str(ctx.exception))
        code = gpufec.lte_turbo_code(40)
        with self.assertRaises(ValueError) as ctx:
            code.encode([0] * 39)
        self.assertIn("40", str(ctx.exception))

    def test_003_nr_ldpc_code(self):
        """Default BG1 Z=384: k = 22 Z = 8448, e = 66 Z (rate 1/3 after puncturing 2 Z);
        BG2 Z=52: 520 -> 2600; fillers shorten e; rate matching sets e. The encoder is
        systematic after the 2 Z punctured bits."""
        code = gpufec.nr_ldpc_code()
        self.assertEqual(code.family(), "ldpc")
        self.assertEqual((code.bg(), code.z(), code.k(), code.e()), (1, 384, 8448, 25344))
        self.assertEqual((code.frame_bits(), code.coded_bits()), (8448, 25344))
        self.assertAlmostEqual(code.rate(), 1 / 3)

        bg2 = gpufec.nr_ldpc_code(2, 52)
        self.assertEqual((bg2.k(), bg2.e(), bg2.coded_bits()), (520, 2600, 2600))
        self.assertAlmostEqual(bg2.rate(), 0.2)
        bits = random_bits(520, 2)
        coded = np.array(bg2.encode(bits.tolist()))
        self.assertEqual(len(coded), 2600)
        np.testing.assert_array_equal(coded[:520 - 104], bits[104:])

        fill = gpufec.nr_ldpc_code(2, 52, 500)
        self.assertEqual((fill.k(), fill.e()), (500, 2580))
        rm = gpufec.nr_ldpc_code(1, 32, 0, 1000)
        self.assertEqual((rm.k(), rm.e(), rm.coded_bits()), (704, 1000, 1000))
        self.assertEqual(len(rm.encode(random_bits(704, 3).tolist())), 1000)
        longer = gpufec.nr_ldpc_code(2, 16, 0, 1000)  # more than the 800-bit buffer
        coded = np.array(longer.encode(random_bits(160, 4).tolist()))
        self.assertEqual(len(coded), 1000)
        np.testing.assert_array_equal(coded[800:], coded[:200])  # read around again

    def test_004_nr_ldpc_code_bad_parameters(self):
        """Bad base graph, lifting size and k are refused naming the allowed values."""
        with self.assertRaises(ValueError) as ctx:
            gpufec.nr_ldpc_code(3, 384)
        self.assertIn("2", str(ctx.exception))
        for z in (0, 17, 385, 1000):
            with self.assertRaises(ValueError, msg=str(z)) as ctx:
                gpufec.nr_ldpc_code(1, z)
            self.assertIn("384", str(ctx.exception))
        with self.assertRaises(ValueError):
            gpufec.nr_ldpc_code(2, 52, 521)  # more than K_b Z
        with self.assertRaises(ValueError):
            gpufec.nr_ldpc_code(1, 384, -1)
        with self.assertRaises(ValueError):
            gpufec.nr_ldpc_code(1, 384, 0, -5)

    def test_005_ldpc_code_from_alist(self):
        """The (7,4) Hamming code from an alist file: n 7, m 3, k 4; every codeword
        satisfies H c = 0 and carries the information bits at info_positions(); the
        16 codewords are distinct. ldpc_code_from_alist is ldpc_alist_code."""
        code = gpufec.ldpc_code_from_alist(self.hamming_path)
        self.assertEqual(code.family(), "ldpc")
        self.assertEqual((code.n(), code.m(), code.k()), (7, 3, 4))
        self.assertEqual((code.frame_bits(), code.coded_bits()), (4, 7))
        self.assertAlmostEqual(code.rate(), 4 / 7)
        pos = list(code.info_positions())
        self.assertEqual(len(pos), 4)
        self.assertEqual(pos, sorted(pos))
        words = set()
        for v in range(16):
            info = [(v >> i) & 1 for i in range(4)]
            c = np.array(code.encode(info))
            self.assertEqual(len(c), 7)
            np.testing.assert_array_equal(np.asarray(HAMMING_H).dot(c) % 2, 0)
            np.testing.assert_array_equal(c[pos], info)
            words.add(tuple(c))
        self.assertEqual(len(words), 16)
        same = gpufec.ldpc_alist_code(self.hamming_path)
        self.assertEqual((same.n(), same.k(), list(same.info_positions())), (7, 4, pos))

        # A Gallager matrix is rank deficient (each band's rows sum to all ones).
        g = gpufec.ldpc_code_from_alist(self.gallager_path)
        rank = 96 - g.k()
        self.assertEqual((g.n(), g.m()), (96, 48))
        self.assertLessEqual(rank, 46)
        c = np.array(g.encode(random_bits(g.k(), 5).tolist()))
        np.testing.assert_array_equal(self.gallager.dot(c) % 2, 0)

    def test_006_alist_bad_files(self):
        """A missing file and a malformed one are refused naming the file."""
        with self.assertRaises(ValueError) as ctx:
            gpufec.ldpc_code_from_alist(os.path.join(self.tmp, "missing.alist"))
        self.assertIn("missing.alist", str(ctx.exception))
        bad = os.path.join(self.tmp, "bad.alist")
        with open(bad, "w") as f:
            f.write("7 3\n3 4\n1 1 2\n")  # ends inside the column weights
        with self.assertRaises(ValueError) as ctx:
            gpufec.ldpc_code_from_alist(bad)
        self.assertIn("bad.alist", str(ctx.exception))

    def test_007_nr_polar_code(self):
        """Mother length and rate-matching mode follow TS 38.212 5.3.1 / 5.4.1.1: E = N
        (512 of 1024); 111 / 300 <= 7/16 punctures N = 512; 211 / 300 shortens;
        31 bits need only N = 256 < E = 400 (n limited by K / R_min): repetition."""
        code = gpufec.nr_polar_code()
        self.assertEqual(code.family(), "polar")
        self.assertEqual((code.k(), code.e(), code.mother_length(), code.crc()),
                         (512, 1024, 1024, "crc11"))
        self.assertEqual((code.frame_bits(), code.coded_bits()), (512, 1024))
        self.assertAlmostEqual(code.rate(), 0.5)
        for k, e, crc, n, mode in ((100, 300, "crc11", 512, "puncturing"),
                                   (200, 300, "crc11", 512, "shortening"),
                                   (20, 400, "crc11", 256, "repetition"),
                                   (100, 600, "crc24c", 1024, "puncturing")):
            c = gpufec.nr_polar_code(k, e, crc)
            self.assertEqual((c.mother_length(), c.rate_matching(), c.crc()),
                             (n, mode, crc), (k, e))
            self.assertEqual(len(c.encode(random_bits(k, k).tolist())), e)
        for crc in ("crc6", "none"):
            self.assertEqual(gpufec.nr_polar_code(30, 80, crc, False).crc(), crc)
        # The channel interleaver only permutes: same bits, other order.
        bits = random_bits(100, 6).tolist()
        a = np.array(gpufec.nr_polar_code(100, 300, "crc11", True).encode(bits))
        b = np.array(gpufec.nr_polar_code(100, 300, "crc11", False).encode(bits))
        self.assertEqual(a.sum(), b.sum())
        self.assertFalse(np.array_equal(a, b))

    def test_008_nr_polar_code_bad_parameters(self):
        """Unknown CRC names the allowed ones; k + CRC > e, k + CRC11 > 1023 and k = 0
        are refused."""
        with self.assertRaises(ValueError) as ctx:
            gpufec.nr_polar_code(100, 300, "crc16")
        for name in ("crc11", "crc24c", "crc6", "none"):
            self.assertIn(name, str(ctx.exception))
        with self.assertRaises(ValueError):
            gpufec.nr_polar_code(100, 105, "crc11")
        with self.assertRaises(ValueError) as ctx:
            gpufec.nr_polar_code(1707, 4096, "crc11")  # beyond 5.2.1's A <= 1706
        self.assertIn("1706", str(ctx.exception))
        with self.assertRaises(ValueError):
            gpufec.nr_polar_code(0, 100)

    def test_009_nr_polar_downlink_chains(self):
        """chain="dci" (TS 38.212 7.3) and "bch" (7.1): n_max = 9 (the MIB chain's
        k = 32, e = 864 has N = 512), CRC24C; a DCI encoded with one RNTI decodes to its
        payload under any RNTI but reports crc_ok only under its own; every decoder
        algorithm; a bad chain name lists the allowed ones."""
        bch = gpufec.nr_polar_code(32, 864, chain="bch")
        self.assertEqual((bch.chain(), bch.rnti(), bch.mother_length(), bch.crc()),
                         ("bch", -1, 512, "crc24c"))
        dci = gpufec.nr_polar_code(40, 216, chain="dci", rnti=0x4A2F)
        other = gpufec.nr_polar_code(40, 216, chain="dci", rnti=0x4A2E)
        self.assertEqual((dci.chain(), dci.rnti()), ("dci", 0x4A2F))
        self.assertLessEqual(dci.mother_length(), 512)
        bits = random_bits(40 * 4, 9)
        for algorithm in ("sc", "fast-ssc", "scl", "fast-scl", "sc-first-scl",
                          "sc-first-fast-scl", "bp"):
            for code, ok in ((dci, True), (other, False)):
                dec = gpufec.polar_decoder(code, algorithm, backend="cpu")
                out, tags = self.encoder_chain(dci, dec, bits)
                if ok or "scl" not in algorithm:  # a list may pick another path
                    np.testing.assert_array_equal(out, bits, err_msg=algorithm)
                self.assertEqual([v for _, v in status_tags(tags)[1]], [ok] * 4,
                                 (algorithm, code.rnti()))
            out, tags = self.encoder_chain(bch, gpufec.polar_decoder(bch, algorithm,
                                                                     backend="cpu"),
                                           random_bits(64, 10))
            np.testing.assert_array_equal(out, random_bits(64, 10), err_msg=algorithm)
        # SC first keeps fast-SSC's hard decisions: no soft output; a name it does not
        # take lists the ones it does.
        with self.assertRaises(ValueError) as ctx:
            gpufec.polar_decoder(dci, "sc-first-scl", soft_output=True, backend="cpu")
        self.assertIn("soft_output=False", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            gpufec.polar_decoder(dci, "sc-first-bp", backend="cpu")
        self.assertIn("sc-first-fast-scl", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            gpufec.nr_polar_code(40, 216, chain="pdcch")
        for name in ("uci", "dci", "bch"):
            self.assertIn(name, str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            gpufec.nr_polar_code(40, 216, chain="dci", rnti=70000)
        self.assertIn("0..65535", str(ctx.exception))
        for chain in ("uci", "bch"):  # only DCI scrambles its CRC with an RNTI
            with self.assertRaises(ValueError) as ctx:
                gpufec.nr_polar_code(32, 864, chain=chain, rnti=0x4601)
            self.assertIn('rnti only with chain="dci"', str(ctx.exception))

    def test_010_nr_polar_short_uci_parity_check_bits(self):
        """UCI with 12..19 payload bits (TS 38.212 6.3.1.3.1): crc6 adds the 3
        parity-check bits; every decoder algorithm returns the payload with crc_ok, on
        the CPU ("auto" keeps these codes there); crc11 refuses these sizes, naming
        crc6."""
        code = gpufec.nr_polar_code(15, 100, "crc6")
        bits = random_bits(15 * 4, 12)
        for algorithm in ("sc", "fast-ssc", "scl", "fast-scl", "sc-first-scl", "bp"):
            dec = gpufec.polar_decoder(code, algorithm, backend="auto")
            self.assertEqual(dec.backend_name(), "cpu")
            out, tags = self.encoder_chain(code, dec, bits)
            np.testing.assert_array_equal(out, bits, err_msg=algorithm)
            self.assertEqual([v for _, v in status_tags(tags)[1]], [True] * 4, algorithm)
        with self.assertRaises(ValueError) as ctx:
            gpufec.nr_polar_code(15, 100, "crc11")
        self.assertIn("crc6", str(ctx.exception))

    # ---- decoders, stream form ------------------------------------------------------

    def encoder_chain(self, code, decoder, bits, amplitude=4.0):
        """bits -> gpufec.encoder -> soft values (1 -> +amplitude) -> decoder -> sink."""
        src = blocks.vector_source_b(bits.tolist())
        enc = gpufec.encoder(code)
        to_float = blocks.char_to_float(1, 1.0)
        scale = blocks.multiply_const_ff(2.0 * amplitude)
        offset = blocks.add_const_ff(-amplitude)
        snk = blocks.vector_sink_b()
        tb = gr.top_block()
        tb.connect(src, enc, to_float, scale, offset, decoder, snk)
        tb.run()
        return np.array(snk.data()), snk.tags()

    def test_010_encoder_to_decoder_noiseless(self):
        """gpufec.encoder -> BPSK -> each decoder recovers every frame; each output
        frame starts with "iterations" (within the limit) and "crc_ok" = True."""
        limits = {"turbo": 6, "ldpc": 10, "ldpc-rm": 10, "alist": 10, "polar-scl": 1,
                  "polar-sc": 1, "polar-bp": 50}
        for name, code, make, _ in self.decoders():
            k = code.frame_bits()
            frames = 5
            bits = random_bits(frames * k, 10)
            dec = make(backend="cpu", max_batch_frames=2)
            out, tags = self.encoder_chain(code, dec, bits)
            np.testing.assert_array_equal(out, bits, err_msg=name)
            iters, crc_ok = status_tags(tags)
            self.assertEqual([o for o, _ in iters], [f * k for f in range(frames)], name)
            self.assertEqual(crc_ok, [(f * k, True) for f in range(frames)], name)
            for _, it in iters:
                self.assertTrue(1 <= it <= limits[name], (name, it))
            self.assertEqual(dec.decoded_frames(), frames, name)
            self.assertEqual(dec.dropped_frames(), 0, name)
            self.assertEqual(dec.backend_name(), "cpu", name)

    def test_017_encoders_read_the_lsb(self):
        """Each block code's encoder reads one bit per byte by its LSB: bytes 2/3
        encode as 0/1, and the input list is left as it was."""
        for name, code, _, _ in self.decoders():
            bits = random_bits(code.frame_bits(), 4)
            dirty = [int(b) | 2 for b in bits]
            kept = list(dirty)
            np.testing.assert_array_equal(code.encode(dirty), code.encode(list(bits)),
                                          err_msg=name)
            self.assertEqual(dirty, kept, name)

    def test_011_options_decode(self):
        """Every algorithm / arithmetic choice decodes noiseless frames; byte input
        too. Early termination stops a noiseless frame before the iteration limit."""
        turbo = gpufec.lte_turbo_code(512, True)
        ldpc = gpufec.nr_ldpc_code(1, 16, 0, 0)
        polar = gpufec.nr_polar_code(60, 150, "crc11")
        cases = []
        for alg in ("max-log-map", "scaled-max-log-map"):
            for ar in ("int8", "int16", "float"):
                cases.append((turbo, gpufec.turbo_decoder(turbo, 8, alg, 0.75, ar, 2,
                                                          backend="cpu")))
        for alg in ("normalized", "offset"):
            for ar in ("int8", "half", "float"):
                cases.append((ldpc, gpufec.ldpc_decoder(ldpc, 20, alg, 0.8, 0.25, ar,
                                                        backend="cpu")))
        for list_size in (1, 2, 32):
            cases.append((polar, gpufec.polar_decoder(polar, "scl", list_size,
                                                      backend="cpu")))
        cases.append((polar, gpufec.polar_decoder(polar, "bp", 8, 100, backend="cpu")))
        cases.append((polar, gpufec.polar_decoder(polar, "bp", 8, 100, backend="cpu",
                                                  bp_arithmetic="int8")))
        for code, dec in cases:
            bits = random_bits(3 * code.frame_bits(), 11)
            out, tags = run_stream(dec, bpsk_llrs(encode_frames(code, bits)))
            np.testing.assert_array_equal(out, bits, err_msg=code.describe())
            iters, _ = status_tags(tags)
            self.assertTrue(all(it < 8 for _, it in iters), code.describe())

        with self.assertRaises(ValueError) as ctx:
            gpufec.polar_decoder(polar, "bp", backend="cpu", bp_arithmetic="int4")
        self.assertIn('"int8"', str(ctx.exception))

        # int8 input, quantized as the engine does (round(L * 8)).
        for name, code, make, _ in self.decoders():
            bits = random_bits(3 * code.frame_bits(), 12)
            llrs = np.clip(np.round(bpsk_llrs(encode_frames(code, bits)) * 8), -127, 127)
            out, _ = run_stream(make(input_type="byte", backend="cpu"),
                                llrs.astype(np.int8).view(np.uint8), item="b")
            np.testing.assert_array_equal(out, bits, err_msg=name)

    def test_011b_four_bit_llrs(self):
        """llr_bits=4 (4-bit LLRs to the decoder): noisy BPSK at Es/N0 ~4 dB (BG1
        r=1/3 is error free there) decodes without errors; its soft output keeps the
        float input's units (llr_scale / 8 per 4-bit step); 3 bits, or byte input with
        4 bits, is refused naming the allowed values."""
        code = gpufec.nr_ldpc_code(1, 32, 0, 0)
        rng = np.random.default_rng(21)
        bits = random_bits(6 * code.frame_bits(), 22)
        coded = encode_frames(code, bits)
        sigma = 0.63  # Es/N0 = 1 / (2 sigma^2) = 4.0 dB
        y = (2.0 * coded.astype(np.float32) - 1.0) + rng.normal(0, sigma, len(coded))
        llrs = (2.0 * y / sigma**2).astype(np.float32)  # GNU Radio convention: + = bit 1
        for llr_scale in (8.0, 16.0):
            dec = gpufec.ldpc_decoder(code, backend="cpu", llr_scale=llr_scale, llr_bits=4,
                                      soft_output=False)
            out, tags = run_stream(dec, llrs)
            np.testing.assert_array_equal(out, bits, err_msg=str(llr_scale))
            _, crc_ok = status_tags(tags)
            self.assertTrue(all(ok for _, ok in crc_ok))
        soft, _ = run_stream(gpufec.ldpc_decoder(code, backend="cpu", llr_bits=4,
                                                 soft_output=True), llrs, sink_item="f")
        np.testing.assert_array_equal((soft > 0).astype(np.uint8), bits)
        self.assertGreater(np.median(np.abs(soft)), 5.0)  # LLR units, not 4-bit steps
        with self.assertRaises(ValueError) as ctx:
            gpufec.ldpc_decoder(code, backend="cpu", llr_bits=3)
        self.assertIn("allowed: 8, 4", str(ctx.exception))
        # The PDU form: f32vector PDUs decode, an s8vector one is dropped.
        n = code.coded_bits()
        pdus = [pmt.cons(pmt.PMT_NIL, pmt.init_f32vector(n, llrs[f * n:(f + 1) * n].tolist()))
                for f in range(3)]
        pdus.insert(1, pmt.cons(pmt.PMT_NIL, pmt.init_s8vector(n, [1] * n)))
        dec = gpufec.ldpc_decoder_pdu(code, backend="cpu", llr_bits=4)
        out = collect_pdus(dec, pdus, 3)
        self.assertEqual(len(out), 3)
        k = code.frame_bits()
        for f, msg in enumerate(out):
            np.testing.assert_array_equal(np.array(pmt.u8vector_elements(pmt.cdr(msg))),
                                          bits[f * k:(f + 1) * k])
        self.assertEqual((dec.decoded_frames(), dec.dropped_frames()), (3, 1))
        with self.assertRaises(ValueError) as ctx:
            gpufec.ldpc_decoder(code, backend="cpu", llr_bits=4, input_type="byte")
        self.assertIn("float", str(ctx.exception))

    def test_012_failed_frames_report_crc_false(self):
        """Frames of pure noise: the decoders still emit k bits per frame, but crc_ok is
        False, and with early termination the iterative decoders ran every iteration."""
        rng = np.random.default_rng(13)
        turbo = gpufec.lte_turbo_code(256, True)
        ldpc = gpufec.nr_ldpc_code(2, 16, 0, 0)
        polar = gpufec.nr_polar_code(40, 100, "crc11")
        for code, dec, limit in (
                (turbo, gpufec.turbo_decoder(turbo, 5, backend="cpu"), 5),
                (ldpc, gpufec.ldpc_decoder(ldpc, 7, backend="cpu"), 7),
                (polar, gpufec.polar_decoder(polar, "bp", 8, 30, backend="cpu"), 30),
                (polar, gpufec.polar_decoder(polar, "scl", 4, backend="cpu"), 1)):
            frames = 4
            llrs = rng.normal(0, 1, frames * code.coded_bits()).astype(np.float32)
            out, tags = run_stream(dec, llrs)
            self.assertEqual(len(out), frames * code.frame_bits())
            iters, crc_ok = status_tags(tags)
            self.assertEqual(crc_ok, [(f * code.frame_bits(), False) for f in range(frames)],
                             code.describe())
            self.assertEqual([it for _, it in iters], [limit] * frames, code.describe())

    def test_013_soft_output(self):
        """soft_output gives one float per information bit, its sign the decoded bit
        (positive: bit 1, the default soft_convention), in the input's units (scaled with the input amplitude); the
        status tags come with the soft frames too."""
        for name, code, make, _ in self.decoders():
            k = code.frame_bits()
            bits = random_bits(4 * k, 14)
            coded = encode_frames(code, bits)
            dec = make(soft_output=True, backend="cpu")
            soft, tags = run_stream(dec, bpsk_llrs(coded, 2.0), sink_item="f")
            self.assertEqual(len(soft), len(bits), name)
            self.assertTrue(np.all(np.isfinite(soft)), name)
            np.testing.assert_array_equal((soft > 0).astype(np.uint8), bits, err_msg=name)
            self.assertTrue(np.all(np.abs(soft) > 0.5), name)
            _, crc_ok = status_tags(tags)
            self.assertEqual(crc_ok, [(f * k, True) for f in range(4)], name)
            # The same frames as int8 (x8) give LLRs in float units, not in int8 steps.
            llrs8 = np.clip(np.round(bpsk_llrs(coded, 2.0) * 8), -127, 127).astype(np.int8)
            soft8, _ = run_stream(make(soft_output=True, input_type="byte", backend="cpu"),
                                  llrs8.view(np.uint8), item="b", sink_item="f")
            np.testing.assert_allclose(soft8, soft, rtol=0, atol=1e-6, err_msg=name)

    def test_014_length_tagged_frames(self):
        """With len_tag_key, tagged frames decode; the output frames carry the key with
        k and the other tags at scaled offsets; a frame of another length is dropped."""
        for name, code, make, _ in self.decoders():
            k, n = code.frame_bits(), code.coded_bits()
            bits = [random_bits(k, 20 + i) for i in range(3)]
            pieces = [bpsk_llrs(code.encode(bits[0].tolist())),
                      np.ones(n + 1, np.float32),  # wrong length: dropped
                      bpsk_llrs(code.encode(bits[1].tolist())),
                      bpsk_llrs(code.encode(bits[2].tolist()))]
            starts = np.concatenate([[0], np.cumsum([len(p) for p in pieces])[:-1]])
            tags = [length_tag(int(s), len(p)) for s, p in zip(starts, pieces)]
            tags.append(marker_tag(int(starts[2]) + n // 2, 7))
            dec = make(len_tag_key="packet_len", backend="cpu", max_batch_frames=2)
            out, out_tags = run_stream(dec, np.concatenate(pieces), tags=tags)
            np.testing.assert_array_equal(out, np.concatenate(bits), err_msg=name)
            self.assertEqual(tags_by_key(out_tags, "packet_len"),
                             [(0, k), (k, k), (2 * k, k)], name)
            self.assertEqual(tags_by_key(out_tags, "marker"), [(k + (n // 2) * k // n, 7)],
                             name)
            self.assertEqual(status_tags(out_tags)[1], [(0, True), (k, True), (2 * k, True)])
            self.assertEqual(dec.dropped_frames(), 1, name)
            self.assertEqual(dec.decoded_frames(), 3, name)

    def test_014b_status_tags_off(self):
        """status_tags=False: the same bits, the length tags and the input's own tags,
        but no "iterations" or "crc_ok" tags (every stream decoder, UCI small too)."""
        uci = gpufec.nr_uci_small_code(7, 40, 2)
        cases = [(name, code, make) for name, code, make, _ in self.decoders()]
        cases.append(("uci-small", uci, lambda **kw: gpufec.uci_small_decoder(uci, **kw)))
        for name, code, make in cases:
            k, n = code.frame_bits(), code.coded_bits()
            bits = [random_bits(k, 30 + i) for i in range(3)]
            llrs = np.concatenate([bpsk_llrs(code.encode(b.tolist())) for b in bits])
            tags = [length_tag(f * n, n) for f in range(3)] + [marker_tag(n + 1, 5)]
            outputs = {}
            for on in (True, False):
                dec = make(len_tag_key="packet_len", backend="cpu", max_batch_frames=2,
                           status_tags=on)
                out, out_tags = run_stream(dec, llrs, tags=tags)
                np.testing.assert_array_equal(out, np.concatenate(bits), err_msg=name)
                self.assertEqual(tags_by_key(out_tags, "packet_len"),
                                 [(0, k), (k, k), (2 * k, k)], name)
                self.assertEqual(len(tags_by_key(out_tags, "marker")), 1, name)
                iters, crc_ok = status_tags(out_tags)
                self.assertEqual(len(iters), 3 if on else 0, (name, on))
                self.assertEqual(len(crc_ok), 3 if on else 0, (name, on))
                outputs[on] = out
            np.testing.assert_array_equal(outputs[True], outputs[False], err_msg=name)

    def test_015_backends(self):
        """backend="cuda" is refused here (no GPU on the test machine: "no CUDA device"
        for the turbo, LDPC and polar decoders, which have a CUDA kernel when the build
        has CUDA; "not yet available" in a build without CUDA), naming cpu; "auto" runs
        on the CPU; a bad backend names the allowed values."""
        for name, _, make, make_pdu in self.decoders():
            for m in (make, make_pdu):
                for backend in ("cuda", "cuda:0"):
                    with self.assertRaises(ValueError, msg=name) as ctx:
                        m(backend=backend)
                    message = str(ctx.exception)
                    self.assertTrue("no CUDA device" in message or
                                    "not yet available" in message, message)
                    self.assertIn("cpu", message)
                self.assertEqual(m().backend_name(), "cpu", name)
                with self.assertRaises(ValueError) as ctx:
                    m(backend="gpu")
                for word in ("auto", "cpu", "cuda"):
                    self.assertIn(word, str(ctx.exception))

    def test_016_bad_decoder_parameters(self):
        """Wrong code family and bad options are refused naming the allowed values."""
        turbo = gpufec.lte_turbo_code(256)
        ldpc = gpufec.nr_ldpc_code(2, 16)
        polar = gpufec.nr_polar_code(40, 100)
        conv = gpufec.conv_code(100)
        for make, wrong in ((gpufec.turbo_decoder, ldpc), (gpufec.turbo_decoder, conv),
                            (gpufec.ldpc_decoder, turbo), (gpufec.ldpc_decoder, polar),
                            (gpufec.polar_decoder, ldpc), (gpufec.polar_decoder_pdu, conv),
                            (gpufec.turbo_decoder_pdu, polar),
                            (gpufec.ldpc_decoder_pdu, conv)):
            with self.assertRaises(ValueError) as ctx:
                make(wrong)
            self.assertIn("needs gpufec.", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            gpufec.viterbi_decoder(turbo)

        def refused(make, words, **kw):
            with self.assertRaises(ValueError, msg=str(kw)) as ctx:
                make(**kw)
            for w in words:
                self.assertIn(w, str(ctx.exception), str(kw))

        t = functools.partial(gpufec.turbo_decoder, turbo)
        refused(t, ["max-log-map", "scaled-max-log-map"], algorithm="log-map")
        refused(t, ["int8", "int16", "float"], arithmetic="double")
        refused(t, ["32"], iterations=0)
        refused(t, ["32"], iterations=33)
        refused(t, [], extrinsic_scale=0.0)
        refused(t, [], extrinsic_scale=1.5)
        refused(t, ["512"], sub_blocks=0)
        refused(t, ["synchronised", "loose"], schedule="strict")
        refused(t, ["synchronised", "GPU"], schedule="loose", backend="cpu")
        refused(functools.partial(gpufec.turbo_decoder_pdu, turbo), ["synchronised"],
                schedule="loose", backend="cpu")
        refused(t, ["float", "byte"], input_type="complex")
        refused(t, ["0 (auto", "1 or more"], max_batch_frames=-1)
        refused(t, [], llr_scale=0.0)
        ld = functools.partial(gpufec.ldpc_decoder, ldpc)
        refused(ld, ["normalized", "offset"], algorithm="sum-product")
        refused(ld, ["int8", "float", "half"], arithmetic="int16")
        refused(ld, ["100"], iterations=0)
        refused(ld, [], alpha=0.0)
        refused(ld, [">= 0"], beta=-1.0)
        p = functools.partial(gpufec.polar_decoder, polar)
        refused(p, ["sc", "scl", "bp"], algorithm="scan")
        refused(p, ["32"], list_size=0)
        refused(p, ["32"], list_size=33)
        refused(p, ["200"], algorithm="bp", bp_iterations=0)

    # ---- decoders, PDU form ---------------------------------------------------------

    def test_020_pdus(self):
        """Float and int8 PDUs (mixed), one of the wrong length: each good PDU comes out
        in order with its metadata, "iterations" and "crc_ok", and the decoded bits."""
        for name, code, _, make_pdu in self.decoders():
            frames = 5
            pdus, expected = [], []
            for i in range(frames):
                bits = random_bits(code.frame_bits(), 30 + i)
                llrs = bpsk_llrs(code.encode(bits.tolist()))
                if i % 2:
                    vec = pmt.init_s8vector(len(llrs), (llrs * 8).astype(np.int8).tolist())
                else:
                    vec = pmt.init_f32vector(len(llrs), llrs.tolist())
                meta = pmt.dict_add(pmt.make_dict(), pmt.intern("seq"), pmt.from_long(i))
                pdus.append(pmt.cons(meta, vec))
                expected.append(bits)
            pdus.insert(2, pmt.cons(pmt.PMT_NIL, pmt.init_f32vector(7, [1.0] * 7)))
            dec = make_pdu(backend="cpu", max_batch_frames=2)
            out = collect_pdus(dec, pdus, frames)
            self.assertEqual(len(out), frames, name)
            for i, (msg, bits) in enumerate(zip(out, expected)):
                meta = pmt.car(msg)
                self.assertEqual(pmt.to_long(pmt.dict_ref(meta, pmt.intern("seq"),
                                                          pmt.PMT_NIL)), i, name)
                self.assertTrue(pmt.to_bool(pmt.dict_ref(meta, pmt.intern("crc_ok"),
                                                         pmt.PMT_F)), name)
                self.assertGreaterEqual(pmt.to_long(pmt.dict_ref(
                    meta, pmt.intern("iterations"), pmt.from_long(-1))), 1, name)
                np.testing.assert_array_equal(
                    np.array(pmt.u8vector_elements(pmt.cdr(msg))), bits, err_msg=name)
            self.assertEqual(dec.decoded_frames(), frames, name)
            self.assertEqual(dec.dropped_frames(), 1, name)

    def test_021_pdu_soft_output(self):
        """With soft_output the PDUs carry f32vectors of k LLRs whose signs are the bits."""
        for name, code, _, make_pdu in self.decoders():
            bits = [random_bits(code.frame_bits(), 40 + i) for i in range(3)]
            pdus = []
            for b in bits:
                llrs = bpsk_llrs(code.encode(b.tolist()))
                pdus.append(pmt.cons(pmt.make_dict(),
                                     pmt.init_f32vector(len(llrs), llrs.tolist())))
            out = collect_pdus(make_pdu(soft_output=True, backend="cpu"), pdus, 3)
            self.assertEqual(len(out), 3, name)
            for msg, b in zip(out, bits):
                self.assertTrue(pmt.is_f32vector(pmt.cdr(msg)), name)
                soft = np.array(pmt.f32vector_elements(pmt.cdr(msg)))
                self.assertEqual(len(soft), len(b), name)
                np.testing.assert_array_equal((soft > 0).astype(np.uint8), b, err_msg=name)

    def test_022_dci_blind_search_pdus(self):
        """dci_search_decoder_pdu: candidates of aggregation levels 1, 4 and 16 (e = 108,
        432, 1728) sent under two monitored RNTIs and one other, mixed in one queue: each
        comes out in order with its payload, "crc_ok" exactly for a monitored one and
        "rnti" the sender's then (else -1); a PDU of another length is dropped; bad
        parameters name the allowed values."""
        monitored = [0x4601, 0xc0de]
        senders = [0x4601, 0x0bad, 0xc0de, 0x4601, 0x0bad, 0xc0de]
        levels = [1, 4, 16]
        pdus, expected = [], []
        for i, (rnti, level) in enumerate(zip(senders, levels * 2)):
            code = gpufec.nr_polar_code(40, 108 * level, chain="dci", rnti=rnti)
            bits = random_bits(40, 50 + i)
            llrs = bpsk_llrs(code.encode(bits.tolist()))
            meta = pmt.dict_add(pmt.make_dict(), pmt.intern("seq"), pmt.from_long(i))
            pdus.append(pmt.cons(meta, pmt.init_f32vector(len(llrs), llrs.tolist())))
            expected.append((bits, rnti, rnti in monitored))
        pdus.insert(3, pmt.cons(pmt.PMT_NIL, pmt.init_f32vector(200, [1.0] * 200)))
        dec = gpufec.dci_search_decoder_pdu(40, monitored, aggregation_levels=levels,
                                            backend="cpu", max_batch_frames=4)
        out = collect_pdus(dec, pdus, len(expected))
        self.assertEqual(len(out), len(expected))
        for i, (msg, (bits, rnti, ok)) in enumerate(zip(out, expected)):
            meta = pmt.car(msg)
            self.assertEqual(pmt.to_long(pmt.dict_ref(meta, pmt.intern("seq"),
                                                      pmt.PMT_NIL)), i)
            self.assertEqual(pmt.to_bool(pmt.dict_ref(meta, pmt.intern("crc_ok"),
                                                      pmt.PMT_NIL)), ok, i)
            # An RNTI that is not monitored fails the CRC: "rnti" is -1, never a value
            # a consumer could route on.
            self.assertEqual(pmt.to_long(pmt.dict_ref(meta, pmt.intern("rnti"),
                                                      pmt.PMT_NIL)), rnti if ok else -1, i)
            np.testing.assert_array_equal(np.array(pmt.u8vector_elements(pmt.cdr(msg))),
                                          bits, err_msg=str(i))
        self.assertEqual(dec.decoded_frames(), len(expected))
        self.assertEqual(dec.dropped_frames(), 1)
        for kwargs, needle in (({"aggregation_levels": [3]}, "1, 2, 4, 8, 16"),
                               ({"list_size": 33}, "1..32"),
                               ({"rntis": []}, "0..65535")):
            args = {"k": 40, "rntis": monitored, "backend": "cpu"}
            args.update(kwargs)
            with self.assertRaises(ValueError) as ctx:
                gpufec.dci_search_decoder_pdu(**args)
            self.assertIn(needle, str(ctx.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_block_codes)
