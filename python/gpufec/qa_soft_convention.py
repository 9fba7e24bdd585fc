#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Soft values that fit GNU Radio (issue 8): gr-digital's soft decisions feed every
decoder with no glue.

Chain: random bits -> gpufec.encoder -> digital.chunks_to_symbols_bc (BPSK
constellation: bit 0 -> -1, bit 1 -> +1) -> + complex Gaussian noise ->
digital.constellation_soft_decoder_cf (positive soft value = bit 1) -> each stream
decoder at its defaults. Checked per decoder:
  * the BER is small (the soft decisions are read with the right sign);
  * the same soft values negated into soft_convention="llr" decode to the same bits
    (the blocks' negation is exact, also through the int8 quantization);
  * soft_convention="llr" on GNU Radio's values fails (most frames wrong; not a BER
    near 1/2 for every code: the all-ones word is a polar codeword, so negated
    values decode to the payload with a few bits flipped), so the test does see the
    convention;
  * with soft_output, the soft values out follow the convention too (positive = 1).
The AWGN source follows the same convention: its LLR sign is the coded bit (1 ->
positive) at high Eb/N0, and soft_convention="llr" negates its output exactly.
"""

import numpy as np
from gnuradio import analog, blocks, digital, gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import random_bits

#: Transmitted frames per decoder: 40 to 100 thousand information bits each.
FRAMES = 200


def codes_and_decoders():
    """(name, code, Eb/N0 dB, decoder maker) for every stream decoder."""
    conv = gpufec.conv_code(512, 7, [0o171, 0o133], "terminated")
    turbo = gpufec.lte_turbo_code(256, True)
    ldpc = gpufec.nr_ldpc_code(2, 16, 0, 0)
    polar = gpufec.nr_polar_code(40, 100, "crc11")
    uci = gpufec.nr_uci_small_code(11, 32)
    return [
        ("viterbi", conv, 5.0,
         lambda **kw: gpufec.viterbi_decoder(conv, "float", "", "cpu", **kw)),
        ("turbo", turbo, 3.0, lambda **kw: gpufec.turbo_decoder(turbo, backend="cpu", **kw)),
        ("ldpc", ldpc, 4.0, lambda **kw: gpufec.ldpc_decoder(ldpc, backend="cpu", **kw)),
        ("polar", polar, 5.0, lambda **kw: gpufec.polar_decoder(polar, backend="cpu", **kw)),
        ("uci", uci, 6.0, lambda **kw: gpufec.uci_small_decoder(uci, backend="cpu", **kw)),
    ]


def gr_digital_soft_values(code, bits, ebn0_db, seed):
    """bits -> encoder -> gr-digital BPSK -> noise -> gr-digital soft decoder: floats."""
    const = digital.constellation_bpsk()
    # Es = 1 per coded bit; complex noise of total variance 2 sigma^2 = 1/(R Eb/N0).
    sigma2 = 1.0 / (2.0 * code.rate() * 10 ** (ebn0_db / 10.0))
    src = blocks.vector_source_b(bits.tolist())
    mod = digital.chunks_to_symbols_bc(const.points(), 1)
    noise = analog.noise_source_c(analog.GR_GAUSSIAN, float(np.sqrt(2 * sigma2)), seed)
    coded_symbols = len(bits) // code.frame_bits() * code.coded_bits()
    add = blocks.add_cc()
    head = blocks.head(gr.sizeof_gr_complex, coded_symbols)
    soft = digital.constellation_soft_decoder_cf(const)
    snk = blocks.vector_sink_f()
    tb = gr.top_block()
    tb.connect(src, gpufec.encoder(code), mod, (add, 0))
    tb.connect(noise, (add, 1))
    tb.connect(add, head, soft, snk)
    tb.run()
    values = np.array(snk.data(), dtype=np.float32)
    assert values.size == coded_symbols, (values.size, coded_symbols)
    return values


def decode(decoder, values, out_item="b"):
    """Runs `values` (floats) through `decoder`; returns its output (numpy)."""
    snk = blocks.vector_sink_b() if out_item == "b" else blocks.vector_sink_f()
    tb = gr.top_block()
    tb.connect(blocks.vector_source_f(values.tolist()), decoder, snk)
    tb.run()
    return np.array(snk.data())


class qa_soft_convention(gr_unittest.TestCase):

    def test_001_gr_digital_soft_decoder_into_every_decoder(self):
        for seed, (name, code, ebn0, make) in enumerate(codes_and_decoders(), 1):
            bits = random_bits(FRAMES * code.frame_bits(), seed)
            values = gr_digital_soft_values(code, bits, ebn0, seed)

            out = decode(make(), values)
            self.assertEqual(len(out), len(bits), name)
            ber = np.count_nonzero(out != bits) / len(bits)
            print(f"{name}: {len(bits)} bits at {ebn0} dB through gr-digital's soft "
                  f"decoder: BER {ber:.2e}")
            self.assertLess(ber, 2e-3, name)

            negated = decode(make(soft_convention="llr"), -values)
            np.testing.assert_array_equal(negated, out, err_msg=name)

            wrong = decode(make(soft_convention="llr"), values)
            wrong_frames = np.any((wrong != bits).reshape(FRAMES, -1), axis=1)
            self.assertGreater(np.mean(wrong_frames), 0.9,
                               f"{name}: the convention has no effect")

    def test_002_soft_output_follows_the_convention(self):
        for name, code, ebn0, make in codes_and_decoders():
            if name == "viterbi":
                continue  # hard output only
            bits = random_bits(20 * code.frame_bits(), 7)
            values = gr_digital_soft_values(code, bits, ebn0 + 3.0, 7)
            soft = decode(make(soft_output=True), values, out_item="f")
            np.testing.assert_array_equal((soft > 0).astype(np.uint8), bits, err_msg=name)
            soft_llr = decode(make(soft_output=True, soft_convention="llr"), -values,
                              out_item="f")
            np.testing.assert_array_equal(soft_llr, -soft, err_msg=name)

    def test_003_source_llrs_are_positive_for_bit_1(self):
        code = gpufec.conv_code(256, 7, [0o171, 0o133], "terminated")
        frames = 20
        outputs = {}
        for convention in ("gnuradio", "llr"):
            src = gpufec.awgn_bpsk_source(code, 30.0, 5, "cpu", soft_convention=convention)
            llrs = blocks.head(gr.sizeof_float, frames * code.coded_bits())
            info = blocks.head(gr.sizeof_char, frames * code.frame_bits())
            llr_snk, info_snk = blocks.vector_sink_f(), blocks.vector_sink_b()
            tb = gr.top_block()
            tb.connect((src, 0), llrs, llr_snk)
            tb.connect((src, 1), info, info_snk)
            tb.run()
            outputs[convention] = (np.array(llr_snk.data()), np.array(info_snk.data()))
        llrs, info = outputs["gnuradio"]
        coded = np.concatenate([code.encode(info[i:i + 256].tolist())
                                for i in range(0, len(info), 256)]).astype(np.uint8)
        np.testing.assert_array_equal((llrs > 0).astype(np.uint8), coded)
        np.testing.assert_array_equal(outputs["llr"][1], info)
        np.testing.assert_array_equal(outputs["llr"][0], -llrs)

    def test_004_bad_convention_is_refused_by_name(self):
        code = gpufec.conv_code(64, 7, [0o171, 0o133], "terminated")
        for make in (lambda: gpufec.viterbi_decoder(code, soft_convention="positive"),
                     lambda: gpufec.viterbi_decoder_pdu(code, soft_convention="positive"),
                     lambda: gpufec.awgn_bpsk_source(code, soft_convention="positive")):
            with self.assertRaises(Exception) as ctx:
                make()
            self.assertIn('"gnuradio"', str(ctx.exception))
            self.assertIn('"llr"', str(ctx.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_soft_convention)
