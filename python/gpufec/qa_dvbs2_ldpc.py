#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpufec.dvbs2_ldpc_code (EN 302 307-1, every normal and short code): parameters,
bit-exact agreement with GNU Radio's own DVB-S2 LDPC encoder (gr-dtv's
dvb_ldpc_bb) for plain code.encode() and for the gpufec.encoder block, and the
code in the existing blocks: encoder -> BPSK -> noise -> ldpc_decoder (CPU), the
AWGN source, the PDU decoder, and the alist export."""

import os
import shutil
import tempfile

import numpy as np
import pmt
from gnuradio import analog, blocks, dtv, gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import collect_pdus, random_bits, tags_by_key

#: (frame, rate) -> (k_ldpc of Tables 5a/5b, q of Tables 7a/7b), EN 302 307-1 V1.4.1.
STANDARD = {
    ("normal", "1/4"): (16200, 135), ("normal", "1/3"): (21600, 120),
    ("normal", "2/5"): (25920, 108), ("normal", "1/2"): (32400, 90),
    ("normal", "3/5"): (38880, 72), ("normal", "2/3"): (43200, 60),
    ("normal", "3/4"): (48600, 45), ("normal", "4/5"): (51840, 36),
    ("normal", "5/6"): (54000, 30), ("normal", "8/9"): (57600, 20),
    ("normal", "9/10"): (58320, 18),
    ("short", "1/4"): (3240, 36), ("short", "1/3"): (5400, 30),
    ("short", "2/5"): (6480, 27), ("short", "1/2"): (7200, 25),
    ("short", "3/5"): (9720, 18), ("short", "2/3"): (10800, 15),
    ("short", "3/4"): (11880, 12), ("short", "4/5"): (12600, 10),
    ("short", "5/6"): (13320, 8), ("short", "8/9"): (14400, 5),
}

DTV_FRAME = {"normal": dtv.FECFRAME_NORMAL, "short": dtv.FECFRAME_SHORT}
DTV_RATE = {"1/4": dtv.C1_4, "1/3": dtv.C1_3, "2/5": dtv.C2_5, "1/2": dtv.C1_2,
            "3/5": dtv.C3_5, "2/3": dtv.C2_3, "3/4": dtv.C3_4, "4/5": dtv.C4_5,
            "5/6": dtv.C5_6, "8/9": dtv.C8_9, "9/10": dtv.C9_10}

#: The LDPC decoder settings that reach the QEF+0.3 dB BER target in the GTest
#: (lib/tests/test_dvbs2_ldpc.cc): offset min-sum, beta = 0.375 (LLR units), 50
#: iterations with early termination.
DECODER = dict(iterations=50, algorithm="offset", beta=0.375)


def dtv_encoder(frame, rate):
    """GNU Radio's DVB-S2 LDPC encoder: k_ldpc unpacked bits in, n_ldpc out."""
    return dtv.dvb_ldpc_bb(dtv.STANDARD_DVBS2, DTV_FRAME[frame], DTV_RATE[rate],
                           dtv.MOD_OTHER)


def run_chain(bits, *chain):
    """vector_source_b(bits) -> chain... -> vector_sink; returns (data, tags)."""
    src = blocks.vector_source_b(np.asarray(bits, dtype=np.uint8).tolist())
    snk = blocks.vector_sink_b() if chain[-1].output_signature().sizeof_stream_item(
        0) == 1 else blocks.vector_sink_f()
    tb = gr.top_block()
    tb.connect(src, *chain)
    tb.connect(chain[-1], snk)
    tb.run()
    return np.array(snk.data()), snk.tags()


def esn0_to_ebn0(esn0_db, code):
    """QPSK Es/N0 (Gray: each bit sees BPSK at Es/N0 - 3.01 dB) as Eb/N0 of the code's
    information bits, rate k/n."""
    return esn0_db - 10 * np.log10(2.0) - 10 * np.log10(code.rate())


class qa_dvbs2_ldpc(gr_unittest.TestCase):

    def test_001_parameters(self):
        """Every code of the standard: k, n, q (Tables 5a/5b, 7a/7b), family "ldpc",
        one frame of k bits encodes to n bits; the default is normal 1/2."""
        for (frame, rate), (k, q) in STANDARD.items():
            code = gpufec.dvbs2_ldpc_code(frame, rate)
            n = 64800 if frame == "normal" else 16200
            self.assertEqual((code.frame(), code.nominal_rate()), (frame, rate))
            self.assertEqual((code.n(), code.k(), code.q()), (n, k, q), (frame, rate))
            self.assertEqual(code.family(), "ldpc")
            self.assertEqual(code.frame_bits(), k)
            self.assertEqual(code.coded_bits(), n)
            self.assertAlmostEqual(code.rate(), k / n)
            self.assertEqual(code.describe(),
                             "DVB-S2 LDPC %s r=%s n=%d k=%d" % (frame, rate, n, k))
        default = gpufec.dvbs2_ldpc_code()
        self.assertEqual((default.frame(), default.nominal_rate()), ("normal", "1/2"))
        self.assertEqual(gpufec.dvbs2_ldpc_code(rate="3/4", frame="short").k(), 11880)

    def test_002_bad_parameters(self):
        """A bad frame or rate raises ValueError naming the allowed values."""
        for args, words in [
                (("medium", "1/2"), ["medium", "normal (n = 64800)", "short (n = 16200)"]),
                (("short", "9/10"),
                 ["9/10", "1/4, 1/3, 2/5, 1/2, 3/5, 2/3, 3/4, 4/5, 5/6, 8/9"]),
                (("normal", "7/8"), ["7/8", "8/9, 9/10"])]:
            with self.assertRaises(ValueError) as ctx:
                gpufec.dvbs2_ldpc_code(*args)
            for w in words:
                self.assertIn(w, str(ctx.exception), args)

    def test_003_encoder_equals_gr_dtv(self):
        """For every code, random frames encoded by code.encode() equal gr-dtv's
        dvb_ldpc_bb(STANDARD_DVBS2, ..., MOD_OTHER) output bit for bit (information
        bits first, then the n - k parity bits, no interleaving)."""
        for (frame, rate) in STANDARD:
            code = gpufec.dvbs2_ldpc_code(frame, rate)
            k = code.k()
            frames = 3
            bits = random_bits(frames * k, hash((frame, rate)) % 1000)
            ours = np.concatenate([np.array(code.encode(bits[f * k:(f + 1) * k].tolist()),
                                            dtype=np.uint8) for f in range(frames)])
            theirs, _ = run_chain(bits, dtv_encoder(frame, rate))
            self.assertEqual(len(theirs), frames * code.n(), (frame, rate))
            np.testing.assert_array_equal(ours, theirs, err_msg="%s %s" % (frame, rate))

    def test_004_encoder_block_equals_gr_dtv(self):
        """The gpufec.encoder block with a DVB-S2 code, side by side with gr-dtv's
        encoder on the same stream of frames: identical output."""
        for frame, rate in [("normal", "2/3"), ("short", "1/4"), ("short", "8/9")]:
            code = gpufec.dvbs2_ldpc_code(frame, rate)
            bits = random_bits(4 * code.k(), 7)
            src = blocks.vector_source_b(bits.tolist())
            ours, theirs = blocks.vector_sink_b(), blocks.vector_sink_b()
            tb = gr.top_block()
            tb.connect(src, gpufec.encoder(code), ours)
            tb.connect(src, dtv_encoder(frame, rate), theirs)
            tb.run()
            self.assertEqual(len(ours.data()), 4 * code.n())
            np.testing.assert_array_equal(np.array(ours.data()), np.array(theirs.data()),
                                          err_msg="%s %s" % (frame, rate))

    def test_005_encoder_bpsk_noise_decoder(self):
        """gpufec.encoder -> BPSK (bit 0 -> +1) -> Gaussian noise -> soft values in GNU
        Radio's convention (-2y/sigma^2: positive for bit 1) -> gpufec.ldpc_decoder
        (backend "cpu") returns the bits: normal 1/2 at QPSK Es/N0 1.5 dB (Table 13's
        QEF threshold 1.00 dB + 0.5 dB), 8 frames; every frame reports crc_ok."""
        code = gpufec.dvbs2_ldpc_code("normal", "1/2")
        k, frames = code.k(), 8
        esn0_db = 1.5
        sigma = np.sqrt(1.0 / (2 * code.rate() * 10 ** (esn0_to_ebn0(esn0_db, code) / 10)))
        bits = random_bits(frames * k, 12)
        src = blocks.vector_source_b(bits.tolist())
        to_float = blocks.char_to_float(1, 1.0)
        bpsk = blocks.multiply_const_ff(-2.0)
        one = blocks.add_const_ff(1.0)
        noise = analog.noise_source_f(analog.GR_GAUSSIAN, sigma, 2026)
        add = blocks.add_ff()
        soft = blocks.multiply_const_ff(-2.0 / sigma ** 2)
        dec = gpufec.ldpc_decoder(code, backend="cpu", max_batch_frames=4, **DECODER)
        snk = blocks.vector_sink_b()
        tb = gr.top_block()
        tb.connect(src, gpufec.encoder(code), to_float, bpsk, one, (add, 0))
        tb.connect(noise, (add, 1))
        tb.connect(add, soft, dec, snk)
        tb.run()
        out = np.array(snk.data())
        self.assertEqual(len(out), frames * k)
        self.assertEqual(int(np.count_nonzero(out != bits)), 0)
        self.assertEqual(tags_by_key(snk.tags(), "crc_ok"),
                         [(f * k, True) for f in range(frames)])
        iterations = [it for _, it in tags_by_key(snk.tags(), "iterations")]
        self.assertTrue(all(1 < it < 50 for it in iterations), iterations)
        self.assertEqual(dec.backend_name(), "cpu")

    def test_006_awgn_source_and_ber_counter(self):
        """gpufec.awgn_bpsk_source takes the code too: source -> ldpc_decoder ->
        ber_counter, short 1/2 (k = 7200) at Eb/N0 3 dB: no bit errors in 20 frames."""
        code = gpufec.dvbs2_ldpc_code("short", "1/2")
        frames = 20
        source = gpufec.awgn_bpsk_source(code, 3.0, 5, "cpu")
        dec = gpufec.ldpc_decoder(code, backend="cpu", **DECODER)
        counter = gpufec.ber_counter(code.frame_bits())
        bits = frames * code.k()
        tb = gr.top_block()
        tb.connect((source, 0), dec, blocks.head(gr.sizeof_char, bits), (counter, 0))
        tb.connect((source, 1), blocks.head(gr.sizeof_char, bits), (counter, 1))
        tb.run()
        self.assertEqual(counter.bits(), bits)
        self.assertEqual(counter.bit_errors(), 0)

    def test_007_pdu_decoder(self):
        """ldpc_decoder_pdu decodes PDUs of a short code's noiseless soft values."""
        code = gpufec.dvbs2_ldpc_code("short", "3/5")
        bits = random_bits(code.k(), 3)
        coded = np.array(code.encode(bits.tolist()), dtype=np.float32)
        soft = 4.0 * (2.0 * coded - 1.0)  # GNU Radio's convention: bit 1 -> +4
        dec = gpufec.ldpc_decoder_pdu(code, backend="cpu")
        pdus = collect_pdus(dec, [pmt.cons(pmt.make_dict(), pmt.init_f32vector(
            len(soft), soft.tolist()))], 1)
        self.assertEqual(len(pdus), 1)
        np.testing.assert_array_equal(np.array(pmt.u8vector_elements(pmt.cdr(pdus[0]))),
                                      bits)

    def test_008_alist_export(self):
        """to_alist_text() is H: the alist code read from it encodes every frame as
        the DVB-S2 code does (information bits first, the same parity)."""
        tmp = tempfile.mkdtemp(prefix="qa_dvbs2_ldpc")
        try:
            for frame, rate in [("short", "1/4"), ("short", "5/6")]:
                code = gpufec.dvbs2_ldpc_code(frame, rate)
                path = os.path.join(tmp, "dvbs2.alist")
                with open(path, "w") as f:
                    f.write(code.to_alist_text())
                alist = gpufec.ldpc_code_from_alist(path)
                self.assertEqual((alist.n(), alist.k(), alist.m()),
                                 (code.n(), code.k(), code.n() - code.k()))
                self.assertEqual(list(alist.info_positions()), list(range(code.k())))
                bits = random_bits(code.k(), 21).tolist()
                self.assertEqual(list(alist.encode(bits)), list(code.encode(bits)))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    gr_unittest.run(qa_dvbs2_ldpc)
