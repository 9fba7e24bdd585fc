#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The NR small-block UCI code (gpufec.nr_uci_small_code, TS 38.212 5.3.3 / 5.4.3) and
its exhaustive ML decoder blocks (uci_small_decoder, uci_small_decoder_pdu) on the CPU
backend."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import bpsk_llrs, collect_pdus, random_bits, run_stream, tags_by_key

#: Column M_{i,10} of Table 5.3.3.3-1, i = 0..31 (the codeword of c = (0, ..., 0, 1)).
COLUMN_10 = "11111111111111110000111101000010"

#: (k, e, qm) of the loopback cases: repetition, simplex with placeholders, RM with
#: puncturing (E < 32) and repetition (E > 32).
CASES = [(1, 5, 2), (1, 3, 8), (2, 14, 4), (2, 3, 1), (5, 20, 1), (7, 32, 1),
         (11, 48, 1), (11, 24, 1)]


def encode_frames(code, bits):
    """code.encode() of each k-bit frame of `bits`, concatenated."""
    k = code.frame_bits()
    return np.concatenate([np.array(code.encode(bits[i:i + k].tolist()), dtype=np.uint8)
                           for i in range(0, len(bits), k)])


def all_messages(k):
    """The 2^k messages, one after another, c_0 first (one bit per byte)."""
    return np.array([(u >> (k - 1 - n)) & 1 for u in range(1 << k) for n in range(k)],
                    dtype=np.uint8)


class qa_uci_small(gr_unittest.TestCase):

    def test_001_code(self):
        """Sizes of K = 1, 2 with placeholders and of the (32, K) RM code; the encoder
        writes the spec's sequences (x -> 1, y -> c0) repeated cyclically to e."""
        code = gpufec.nr_uci_small_code()
        self.assertEqual(code.family(), "uci_small")
        self.assertEqual((code.k(), code.e(), code.qm(), code.mother_length()),
                         (11, 32, 1, 32))
        self.assertEqual((code.frame_bits(), code.coded_bits()), (11, 32))
        self.assertAlmostEqual(code.rate(), 11 / 32)
        self.assertEqual(code.coded_bits_for(11), 32)
        self.assertEqual(code.coded_bits_for(10), 0)
        self.assertEqual(code.info_bits_for_coded(32), 11)
        self.assertIn("K=11", code.describe())
        self.assertEqual(gpufec.nr_uci_small_code(1, 9, 6).mother_length(), 6)
        self.assertEqual(gpufec.nr_uci_small_code(2, 9, 6).mother_length(), 18)

        rm = gpufec.nr_uci_small_code(11, 36)
        word = "".join(str(b) for b in rm.encode([0] * 10 + [1]))
        self.assertEqual(word, COLUMN_10 + COLUMN_10[:4])
        simplex = gpufec.nr_uci_small_code(2, 14, 4)  # [c0 c1 x x c2 c0 x x c1 c2 x x]
        self.assertEqual(list(simplex.encode([1, 0])),
                         [1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0])
        rep = gpufec.nr_uci_small_code(1, 10, 4)  # [c0 y x x]
        self.assertEqual(list(rep.encode([0])), [0, 0, 1, 1, 0, 0, 1, 1, 0, 0])

    def test_002_code_bad_parameters(self):
        """Bad k, e and qm are refused naming the allowed values; the encoder takes
        exactly k bits."""
        for k in (0, 12):
            with self.assertRaises(ValueError) as ctx:
                gpufec.nr_uci_small_code(k, 32)
            self.assertIn("1..11", str(ctx.exception))
        for e in (0, 65537):
            with self.assertRaises(ValueError) as ctx:
                gpufec.nr_uci_small_code(5, e)
            self.assertIn("1..65536", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            gpufec.nr_uci_small_code(2, 12, 3)
        self.assertIn("1, 2, 4, 6, 8", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            gpufec.nr_uci_small_code(4, 32).encode([0, 1, 1])
        self.assertIn("4", str(ctx.exception))

    def loopback(self, code, decoder, bits, amplitude=4.0):
        """bits -> gpufec.encoder -> soft values (1 -> +amplitude) -> decoder -> sink."""
        src = blocks.vector_source_b(bits.tolist())
        to_float = blocks.char_to_float(1, 1.0)
        scale = blocks.multiply_const_ff(2.0 * amplitude)
        offset = blocks.add_const_ff(-amplitude)
        snk = blocks.vector_sink_b()
        tb = gr.top_block()
        tb.connect(src, gpufec.encoder(code), to_float, scale, offset, decoder, snk)
        tb.run()
        return np.array(snk.data()), snk.tags()

    def test_003_encoder_to_decoder_every_message(self):
        """gpufec.encoder -> BPSK -> uci_small_decoder recovers every one of the 2^K
        messages; each output frame starts with "iterations" = 1 and "crc_ok" = True."""
        for k, e, qm in CASES:
            code = gpufec.nr_uci_small_code(k, e, qm)
            bits = all_messages(k)
            frames = 1 << k
            dec = gpufec.uci_small_decoder(code, backend="cpu", max_batch_frames=64)
            out, tags = self.loopback(code, dec, bits)
            np.testing.assert_array_equal(out, bits, err_msg=code.describe())
            self.assertEqual(tags_by_key(tags, "iterations"),
                             [(f * k, 1) for f in range(frames)], code.describe())
            self.assertEqual(tags_by_key(tags, "crc_ok"),
                             [(f * k, True) for f in range(frames)], code.describe())
            self.assertEqual(dec.decoded_frames(), frames)
            self.assertEqual(dec.dropped_frames(), 0)
            self.assertEqual(dec.backend_name(), "cpu")

    def test_004_noisy_frames_ml(self):
        """BPSK over AWGN at Eb/N0 = 3 dB: the (32, 11) ML decoder's frame error rate
        lies below the union bound sum_w A_w Q(sqrt(2 w R Eb/N0)) (weights from the
        encoder, 20 % margin for the int8 quantisation) and above zero (a noisy channel)."""
        from math import erfc, sqrt
        code = gpufec.nr_uci_small_code(11, 32)
        rate, ebn0 = 11 / 32, 10 ** (3.0 / 10)
        weights = np.sum(encode_frames(code, all_messages(11)).reshape(2048, 32), axis=1)
        union = sum(0.5 * erfc(sqrt(2 * w * rate * ebn0) / sqrt(2)) for w in weights[1:])
        frames = 2000
        bits = random_bits(11 * frames, 3)
        coded = encode_frames(code, bits)
        sigma2 = 1 / (2 * rate * ebn0)
        y = (2.0 * coded - 1.0) + np.random.default_rng(4).normal(0, sqrt(sigma2),
                                                                   len(coded))
        out, _ = run_stream(gpufec.uci_small_decoder(code, backend="cpu"),
                            (2 * y / sigma2).astype(np.float32))
        errors = np.sum(np.any(out.reshape(frames, 11) != bits.reshape(frames, 11), axis=1))
        self.assertLess(errors / frames, 1.2 * union)
        self.assertGreater(errors, 0)

    def test_005_soft_output_and_byte_input(self):
        """soft_output gives one float per UCI bit with the decoded bit's sign, in the
        input's units; int8 input (x8) gives the same values."""
        for k, e, qm in CASES:
            code = gpufec.nr_uci_small_code(k, e, qm)
            bits = random_bits(4 * k, 5)
            coded = encode_frames(code, bits)
            soft, _ = run_stream(gpufec.uci_small_decoder(code, True, backend="cpu"),
                                 bpsk_llrs(coded, 2.0), sink_item="f")
            self.assertEqual(len(soft), len(bits))
            np.testing.assert_array_equal((soft > 0).astype(np.uint8), bits,
                                          err_msg=code.describe())
            self.assertTrue(np.all(np.abs(soft) >= 2.0), code.describe())
            llrs8 = np.clip(np.round(bpsk_llrs(coded, 2.0) * 8), -127, 127).astype(np.int8)
            dec8 = gpufec.uci_small_decoder(code, True, input_type="byte", backend="cpu")
            soft8, _ = run_stream(dec8, llrs8.view(np.uint8), item="b", sink_item="f")
            np.testing.assert_allclose(soft8, soft, rtol=0, atol=1e-6)
            hard8, _ = run_stream(gpufec.uci_small_decoder(code, input_type="byte"),
                                  llrs8.view(np.uint8), item="b")
            np.testing.assert_array_equal(hard8, bits)

    def test_006_pdus(self):
        """Float and int8 PDUs (mixed), one of the wrong length: each good PDU comes out
        in order with its metadata, "iterations" and "crc_ok", and the decoded bits;
        with soft_output the PDUs carry k LLRs whose signs are the bits."""
        code = gpufec.nr_uci_small_code(6, 40)
        frames = 5
        pdus, expected = [], []
        for i in range(frames):
            bits = random_bits(6, 30 + i)
            llrs = bpsk_llrs(code.encode(bits.tolist()))
            if i % 2:
                vec = pmt.init_s8vector(len(llrs), (llrs * 8).astype(np.int8).tolist())
            else:
                vec = pmt.init_f32vector(len(llrs), llrs.tolist())
            meta = pmt.dict_add(pmt.make_dict(), pmt.intern("seq"), pmt.from_long(i))
            pdus.append(pmt.cons(meta, vec))
            expected.append(bits)
        pdus.insert(2, pmt.cons(pmt.PMT_NIL, pmt.init_f32vector(7, [1.0] * 7)))
        dec = gpufec.uci_small_decoder_pdu(code, backend="cpu", max_batch_frames=2)
        out = collect_pdus(dec, pdus, frames)
        self.assertEqual(len(out), frames)
        for i, (msg, bits) in enumerate(zip(out, expected)):
            meta = pmt.car(msg)
            self.assertEqual(pmt.to_long(pmt.dict_ref(meta, pmt.intern("seq"),
                                                      pmt.PMT_NIL)), i)
            self.assertTrue(pmt.to_bool(pmt.dict_ref(meta, pmt.intern("crc_ok"), pmt.PMT_F)))
            self.assertEqual(pmt.to_long(pmt.dict_ref(meta, pmt.intern("iterations"),
                                                      pmt.from_long(-1))), 1)
            np.testing.assert_array_equal(np.array(pmt.u8vector_elements(pmt.cdr(msg))),
                                          bits)
        self.assertEqual(dec.decoded_frames(), frames)
        self.assertEqual(dec.dropped_frames(), 1)

        soft_out = collect_pdus(gpufec.uci_small_decoder_pdu(code, True, backend="cpu"),
                                 [pdus[0], pdus[1]], 2)
        self.assertEqual(len(soft_out), 2)
        for msg, bits in zip(soft_out, expected[:2]):
            self.assertTrue(pmt.is_f32vector(pmt.cdr(msg)))
            soft = np.array(pmt.f32vector_elements(pmt.cdr(msg)))
            np.testing.assert_array_equal((soft > 0).astype(np.uint8), bits)

    def test_007_bad_decoder_parameters(self):
        """Another code family, a bad backend, a bad input type and bad batching are
        refused naming the allowed values; "cpu" and "auto" construct."""
        polar = gpufec.nr_polar_code(40, 100)
        for make in (gpufec.uci_small_decoder, gpufec.uci_small_decoder_pdu):
            with self.assertRaises(ValueError) as ctx:
                make(polar)
            self.assertIn("needs gpufec.nr_uci_small_code", str(ctx.exception))
            code = gpufec.nr_uci_small_code(3, 16)
            with self.assertRaises(ValueError) as ctx:
                make(code, backend="gpu")
            for word in ("auto", "cpu", "cuda"):
                self.assertIn(word, str(ctx.exception))
            with self.assertRaises(ValueError) as ctx:
                make(code, max_batch_frames=-1)
            self.assertIn("0 (auto", str(ctx.exception))
            self.assertTrue(make(code, max_batch_frames=0).backend_name())
            self.assertEqual(make(code, backend="cpu").backend_name(), "cpu")
            self.assertTrue(make(code).backend_name())  # auto: cpu or cuda:0
        with self.assertRaises(ValueError) as ctx:
            gpufec.uci_small_decoder(gpufec.nr_uci_small_code(3, 16), input_type="complex")
        self.assertIn("float", str(ctx.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_uci_small)
