#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""awgn_bpsk_source -> viterbi_decoder -> ber_counter, end to end on the CPU."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import tags_by_key


def loopback(code, ebn0_db, frames, seed=0, tagged=False, max_batch_frames=32):
    """Runs `frames` frames through source -> decoder -> ber_counter; returns blocks."""
    key = "packet_len" if tagged else ""
    src = gpufec.awgn_bpsk_source(code, ebn0_db, seed, "cpu", 16, key)
    head = blocks.head(gr.sizeof_float, frames * code.coded_bits())
    head_bits = blocks.head(gr.sizeof_char, frames * code.frame_bits())
    dec = gpufec.viterbi_decoder(code, "float", key, "cpu", max_batch_frames)
    ber = gpufec.ber_counter(code.frame_bits())
    tb = gr.top_block()
    tb.connect((src, 0), head, dec, (ber, 0))
    tb.connect((src, 1), head_bits, (ber, 1))
    tb.run()
    return src, dec, ber


class qa_loopback(gr_unittest.TestCase):

    def test_001_error_free_at_6db(self):
        """K=7 r=1/2 at Eb/N0 = 6 dB: zero bit errors over more than 10^6 bits
        (theory: BER ~ 1e-7 there, so an error would point at a real fault)."""
        code = gpufec.conv_code(4096, 7, [0o171, 0o133], "terminated")
        frames = 250  # 1,024,000 bits
        _, dec, ber = loopback(code, 6.0, frames, seed=1)
        self.assertEqual(ber.bits(), frames * 4096)
        self.assertEqual(ber.frames(), frames)
        self.assertEqual(ber.bit_errors(), 0)
        self.assertEqual(dec.decoded_frames(), frames)

    def test_002_errors_at_low_snr(self):
        """At 2 dB the same chain makes errors (the comparison is live), but several
        times fewer than uncoded BPSK (3.75e-2 at 2 dB; K=7 soft Viterbi ~1e-2..1e-3)."""
        code = gpufec.conv_code(1024, 7, [0o171, 0o133], "terminated")
        _, _, ber = loopback(code, 2.0, 60, seed=2)
        self.assertGreater(ber.bit_errors(), 0)
        self.assertLess(ber.ber(), 0.0375 / 3)

    def test_003_tagged_chain(self):
        """The source's length tags drive a length-tagged decoder: same result."""
        code = gpufec.conv_code(1000, 7, [0o171, 0o133], "terminated")
        _, dec, ber = loopback(code, 6.0, 30, seed=3, tagged=True, max_batch_frames=4)
        self.assertEqual(ber.bits(), 30 * 1000)
        self.assertEqual(ber.bit_errors(), 0)
        self.assertEqual(dec.dropped_frames(), 0)

    def test_004_source_deterministic_and_tagged(self):
        """Same seed, same frames; the LLR and bit outputs carry per-frame length tags;
        the bits are consistent with the LLR signs at high Eb/N0."""
        code = gpufec.conv_code(256, 7, [0o171, 0o133], "terminated")

        def grab(seed, ebn0):
            src = gpufec.awgn_bpsk_source(code, ebn0, seed, "cpu", 4, "packet_len")
            llr_sink, bit_sink = blocks.vector_sink_f(), blocks.vector_sink_b()
            tb = gr.top_block()
            tb.connect((src, 0), blocks.head(gr.sizeof_float, 5 * code.coded_bits()), llr_sink)
            tb.connect((src, 1), blocks.head(gr.sizeof_char, 5 * 256), bit_sink)
            tb.run()
            return np.array(llr_sink.data()), np.array(bit_sink.data()), llr_sink.tags()

        llrs_a, bits_a, tags_a = grab(7, 30.0)
        llrs_b, bits_b, _ = grab(7, 30.0)
        llrs_c, _, _ = grab(8, 30.0)
        np.testing.assert_array_equal(llrs_a, llrs_b)
        np.testing.assert_array_equal(bits_a, bits_b)
        self.assertFalse(np.array_equal(llrs_a, llrs_c))
        self.assertEqual(tags_by_key(tags_a, "packet_len"),
                         [(f * code.coded_bits(), code.coded_bits()) for f in range(5)])
        for f in range(5):
            coded = code.encode(bits_a[f * 256:(f + 1) * 256].tolist())
            # GNU Radio's convention (the default): positive = bit 1.
            hard = (llrs_a[f * code.coded_bits():(f + 1) * code.coded_bits()] > 0)
            np.testing.assert_array_equal(hard.astype(np.uint8), coded)

    def test_005_set_ebn0(self):
        """set_ebn0_db() changes the noise: LLR magnitudes follow 2/sigma^2."""
        code = gpufec.conv_code(512, 7, [0o171, 0o133], "terminated")
        src = gpufec.awgn_bpsk_source(code, 3.0, 0, "cpu")
        self.assertAlmostEqual(src.ebn0_db(), 3.0)
        src.set_ebn0_db(10.0)
        self.assertAlmostEqual(src.ebn0_db(), 10.0)
        sink = blocks.vector_sink_f()
        tb = gr.top_block()
        tb.connect((src, 0), blocks.head(gr.sizeof_float, 20 * code.coded_bits()), sink)
        tb.connect((src, 1), blocks.null_sink(gr.sizeof_char))
        tb.run()
        # E|LLR| = 2/sigma^2 = 4 R Eb/N0 (BPSK amplitude 1, mean of |y| ~ 1 at 10 dB)
        expected = 4 * code.rate() * 10 ** (10.0 / 10)
        self.assertAlmostEqual(np.mean(np.abs(sink.data())) / expected, 1.0, delta=0.05)

    def test_006_source_needs_conv_code(self):
        """Bad source parameters are refused."""
        code = gpufec.conv_code(512)
        self.assertRaises(ValueError, lambda: gpufec.awgn_bpsk_source(code, backend="tpu"))
        self.assertRaises(ValueError, lambda: gpufec.awgn_bpsk_source(code, frames_per_call=0))

    def test_007_byte_output_is_quantized_float_output(self):
        """output_type "byte" gives the float LLRs quantized as the decoders do
        (round half away from zero of L*scale, saturated at +/-127), the same bits, and
        decodes to the same bits as the float stream."""
        code = gpufec.conv_code(256, 7, [0o171, 0o133], "terminated")
        frames = 12

        def grab(output_type, scale, ebn0=2.0):
            src = gpufec.awgn_bpsk_source(code, ebn0, 5, "cpu", 4, "", output_type, scale)
            size = gr.sizeof_float if output_type == "float" else gr.sizeof_char
            llr_sink = blocks.vector_sink_f() if output_type == "float" else blocks.vector_sink_b()
            bit_sink = blocks.vector_sink_b()
            tb = gr.top_block()
            tb.connect((src, 0), blocks.head(size, frames * code.coded_bits()), llr_sink)
            tb.connect((src, 1), blocks.head(gr.sizeof_char, frames * 256), bit_sink)
            tb.run()
            return np.array(llr_sink.data()), np.array(bit_sink.data())

        llrs, bits = grab("float", 8.0)
        for scale in (8.0, 3.5, 40.0):
            x = np.clip(llrs.astype(np.float32) * np.float32(scale), -127, 127)
            t = np.trunc(x)
            expected = (t + (x - t >= 0.5) - (x - t <= -0.5)).astype(np.int8)
            quantized, bits_b = grab("byte", scale)
            np.testing.assert_array_equal(quantized.astype(np.uint8).view(np.int8), expected)
            np.testing.assert_array_equal(bits_b, bits)
        self.assertTrue(np.any(np.abs(expected) == 127))  # scale 40 saturates

        def decode(input_type):
            src = gpufec.awgn_bpsk_source(code, 2.0, 5, "cpu", 4, "", input_type)
            size = gr.sizeof_float if input_type == "float" else gr.sizeof_char
            dec = gpufec.viterbi_decoder(code, input_type, "", "cpu", 8)
            sink = blocks.vector_sink_b()
            tb = gr.top_block()
            tb.connect((src, 0), blocks.head(size, frames * code.coded_bits()), dec, sink)
            tb.connect((src, 1), blocks.null_sink(gr.sizeof_char))
            tb.run()
            return np.array(sink.data())

        decoded = decode("float")
        self.assertEqual(len(decoded), frames * 256)
        np.testing.assert_array_equal(decode("byte"), decoded)

    def test_009_frames_per_call_changes_nothing_but_latency(self):
        """The source is an engine producer: frames made 1, 5 or 16 at a time, several
        batches ahead, come out identical and in order, for a convolutional code and a
        block code (CPU encoder), and across a stop and restart of the flowgraph."""
        codes = [gpufec.conv_code(300, 7, [0o171, 0o133], "tail_biting"),
                 gpufec.nr_ldpc_code(2, 16, 150, 300)]
        frames = 23

        def grab(code, per_call, runs=1):
            src = gpufec.awgn_bpsk_source(code, 1.5, 9, "cpu", per_call)
            llrs, bits = [], []
            per_run = frames // runs
            for _ in range(runs):
                llr_sink, bit_sink = blocks.vector_sink_f(), blocks.vector_sink_b()
                tb = gr.top_block()
                tb.connect((src, 0), blocks.head(gr.sizeof_float, per_run * code.coded_bits()),
                           llr_sink)
                tb.connect((src, 1), blocks.head(gr.sizeof_char, per_run * code.frame_bits()),
                           bit_sink)
                tb.run()
                llrs += llr_sink.data()
                bits += bit_sink.data()
            return np.array(llrs), np.array(bits)

        for code in codes:
            llrs, bits = grab(code, 1)
            self.assertEqual(len(bits), frames * code.frame_bits())
            for per_call in (5, 16):
                llrs_b, bits_b = grab(code, per_call)
                np.testing.assert_array_equal(llrs_b, llrs)
                np.testing.assert_array_equal(bits_b, bits)

        # A restarted flowgraph continues with the frame after the last one handed out:
        # frames the engine made ahead are neither lost nor repeated.
        code = codes[0]
        src = gpufec.awgn_bpsk_source(code, 1.5, 9, "cpu", 4)
        runs = []
        for count in (7, 9):
            first = src.frames()
            sink = blocks.vector_sink_b()
            tb = gr.top_block()
            tb.connect((src, 0), blocks.null_sink(gr.sizeof_float))
            tb.connect((src, 1), blocks.head(gr.sizeof_char, count * code.frame_bits()), sink)
            tb.run()
            runs.append((first, np.array(sink.data())))
        self.assertGreaterEqual(runs[1][0], 7)
        last = runs[1][0] + 9
        ref_src = gpufec.awgn_bpsk_source(code, 1.5, 9, "cpu", 16)
        ref_sink = blocks.vector_sink_b()
        tb = gr.top_block()
        tb.connect((ref_src, 0), blocks.null_sink(gr.sizeof_float))
        tb.connect((ref_src, 1), blocks.head(gr.sizeof_char, last * code.frame_bits()), ref_sink)
        tb.run()
        ref = np.array(ref_sink.data())
        n = code.frame_bits()
        for first, got in runs:
            np.testing.assert_array_equal(got, ref[first * n:first * n + len(got)])

    def test_008_bad_output_type(self):
        code = gpufec.conv_code(512)
        self.assertRaises(ValueError,
                          lambda: gpufec.awgn_bpsk_source(code, output_type="complex"))
        self.assertRaises(ValueError,
                          lambda: gpufec.awgn_bpsk_source(code, output_type="byte",
                                                          llr_scale=0.0))


if __name__ == "__main__":
    gr_unittest.run(qa_loopback)
