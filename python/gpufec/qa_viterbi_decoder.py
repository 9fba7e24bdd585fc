#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpufec.viterbi_decoder (stream form) on the CPU backend."""

import numpy as np
from gnuradio import gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import (bpsk_llrs, gr_fec_encode, length_tag, marker_tag,
                               random_bits, run_stream, tags_by_key)


class qa_viterbi_decoder(gr_unittest.TestCase):

    def setUp(self):
        self.code = gpufec.conv_code(512, 7, [0o171, 0o133], "terminated")

    def test_001_decodes_gr_fec_frames(self):
        """Frames encoded by gr-fec's cc_encoder (noisy) decode back to the input bits."""
        for term in ("terminated", "truncated", "tail_biting"):
            code = gpufec.conv_code(512, 7, [0o171, 0o133], term)
            bits = random_bits(9 * 512, 1)
            coded = gr_fec_encode(code, bits)
            rng = np.random.default_rng(2)
            llrs = bpsk_llrs(coded, 2.0) + rng.normal(0, 0.8, len(coded)).astype(np.float32)
            dec = gpufec.viterbi_decoder(code, backend="cpu", max_batch_frames=4)
            out, _ = run_stream(dec, llrs)
            np.testing.assert_array_equal(out, bits, err_msg=term)
            self.assertEqual(dec.decoded_frames(), 9)

    def test_002_byte_input(self):
        """int8 ("byte") LLRs decode like float LLRs."""
        bits = random_bits(5 * 512, 3)
        coded = np.concatenate([self.code.encode(bits[i:i + 512].tolist())
                                for i in range(0, len(bits), 512)])
        llrs8 = (40 * (2 * coded.astype(np.int16) - 1)).astype(np.int8)
        llrs8[::7] = -llrs8[::7] // 4  # some weak wrong-sign symbols
        dec = gpufec.viterbi_decoder(self.code, input_type="byte", backend="cpu")
        out, _ = run_stream(dec, llrs8.view(np.uint8), item="b")
        np.testing.assert_array_equal(out, bits)

    def test_003_punctured(self):
        """A rate-3/4 punctured code decodes its own encoder's noiseless output."""
        code = gpufec.conv_code(600, 7, [0o171, 0o133], "terminated", "3/4")
        bits = random_bits(3 * 600, 4)
        coded = np.concatenate([code.encode(bits[i:i + 600].tolist())
                                for i in range(0, len(bits), 600)])
        out, _ = run_stream(gpufec.viterbi_decoder(code, backend="cpu"), bpsk_llrs(coded))
        np.testing.assert_array_equal(out, bits)

    def tagged_stream(self, frames, seed):
        """Random-length frames, each with a length tag and a marker tag."""
        rng = np.random.default_rng(seed)
        info = [int(n) for n in rng.integers(1, 513, frames)]
        bits = [random_bits(n, seed + i) for i, n in enumerate(info)]
        coded = [self.code.encode(b.tolist()) for b in bits]
        llrs = np.concatenate([bpsk_llrs(c) for c in coded])
        starts = np.concatenate([[0], np.cumsum([len(c) for c in coded])[:-1]])
        rel = [int(rng.integers(0, len(c))) for c in coded]
        tags = [length_tag(int(s), len(c)) for s, c in zip(starts, coded)]
        tags += [marker_tag(int(s + r), i) for i, (s, r) in enumerate(zip(starts, rel))]
        return info, bits, coded, rel, llrs, tags

    def test_004_tagged_frames_in_order(self):
        """N random-length tagged frames through batches of 3: N frames out, in order,
        each with its length tag and its marker at the scaled offset; the stream ends
        mid-batch and every frame still comes out."""
        frames = 40
        info, bits, coded, rel, llrs, tags = self.tagged_stream(frames, 10)
        dec = gpufec.viterbi_decoder(self.code, "float", "packet_len", "cpu",
                                     max_batch_frames=3, max_latency_ms=0.0)
        out, out_tags = run_stream(dec, llrs, tags=tags)

        out_starts = np.concatenate([[0], np.cumsum(info)[:-1]])
        self.assertEqual(len(out), sum(info))
        self.assertEqual(tags_by_key(out_tags, "packet_len"),
                         [(int(s), n) for s, n in zip(out_starts, info)])
        self.assertEqual(tags_by_key(out_tags, "marker"),
                         [(int(s + r * n // len(c)), i)
                          for i, (s, r, n, c) in enumerate(zip(out_starts, rel, info, coded))])
        for s, n, b in zip(out_starts, info, bits):
            np.testing.assert_array_equal(out[s:s + n], b)
        self.assertEqual(dec.decoded_frames(), frames)
        self.assertEqual(dec.dropped_frames(), 0)

    def test_005_fixed_frames_end_mid_batch(self):
        """7 fixed-size frames with batches of 4: all 7 decoded, tags at scaled offsets."""
        bits = random_bits(7 * 512, 11)
        coded = np.concatenate([self.code.encode(bits[i:i + 512].tolist())
                                for i in range(0, len(bits), 512)])
        n_in = self.code.coded_bits()
        tags = [marker_tag(f * n_in + 100, f) for f in range(7)]
        dec = gpufec.viterbi_decoder(self.code, backend="cpu", max_batch_frames=4)
        out, out_tags = run_stream(dec, bpsk_llrs(coded), tags=tags)
        np.testing.assert_array_equal(out, bits)
        self.assertEqual(tags_by_key(out_tags, "marker"),
                         [(f * 512 + 100 * 512 // n_in, f) for f in range(7)])

    def test_005b_runs_of_fixed_frames_keep_tags(self):
        """60 fixed-size int8 frames arriving together (taken in bulk runs) through
        batches of 4: bits in order, each frame's tags (first item, middle, last item,
        two on one item) at the scaled offsets of that frame."""
        frames = 60
        bits = random_bits(frames * 512, 12)
        coded = np.concatenate([self.code.encode(bits[i:i + 512].tolist())
                                for i in range(0, len(bits), 512)])
        n_in = self.code.coded_bits()
        rel = [0, 333, 333, n_in - 1]
        tags = [marker_tag(f * n_in + r, 10 * f + k)
                for f in range(frames) for k, r in enumerate(rel)]
        llrs = np.clip(np.round(bpsk_llrs(coded) * 8), -127, 127).astype(np.int8)
        dec = gpufec.viterbi_decoder(self.code, "byte", "", "cpu", max_batch_frames=4)
        out, out_tags = run_stream(dec, llrs.view(np.uint8), item="b", tags=tags)
        np.testing.assert_array_equal(out, bits)
        self.assertEqual(tags_by_key(out_tags, "marker"),
                         [(f * 512 + r * 512 // n_in, 10 * f + k)
                          for f in range(frames) for k, r in enumerate(rel)])
        self.assertEqual(dec.decoded_frames(), frames)

    def test_006_bad_length_tags_are_dropped(self):
        """A length tag larger than the largest frame and one no frame can have (odd,
        for rate 1/2) are dropped with an error; the flowgraph runs on and the good
        frames around them come out in order."""
        good = [self.code.encode(random_bits(512, 20 + i).tolist()) for i in range(3)]
        too_long = np.zeros(5000, dtype=np.uint8)
        odd = np.zeros(101, dtype=np.uint8)
        pieces = [good[0], too_long, good[1], odd, good[2]]
        starts = np.concatenate([[0], np.cumsum([len(p) for p in pieces])[:-1]])
        tags = [length_tag(int(s), len(p)) for s, p in zip(starts, pieces)]
        dec = gpufec.viterbi_decoder(self.code, "float", "packet_len", "cpu",
                                     max_batch_frames=2)
        out, out_tags = run_stream(dec, np.concatenate([bpsk_llrs(p) for p in pieces]),
                                   tags=tags)
        self.assertEqual(dec.dropped_frames(), 2)
        self.assertEqual(dec.decoded_frames(), 3)
        self.assertEqual(tags_by_key(out_tags, "packet_len"), [(0, 512), (512, 512), (1024, 512)])
        expected = [random_bits(512, 20 + i) for i in range(3)]
        np.testing.assert_array_equal(out, np.concatenate(expected))

    def test_007_items_before_first_tag_dropped(self):
        """Items before the first length tag are dropped; the tagged frame decodes."""
        bits = random_bits(300, 30)
        coded = self.code.encode(bits.tolist())
        llrs = np.concatenate([np.ones(50, np.float32), bpsk_llrs(coded)])
        dec = gpufec.viterbi_decoder(self.code, "float", "packet_len", "cpu")
        out, _ = run_stream(dec, llrs, tags=[length_tag(50, len(coded))])
        np.testing.assert_array_equal(out, bits)

    def test_008_nan_llrs(self):
        """NaN and infinite LLRs decode without crashing (NaN counts as erasure)."""
        bits = random_bits(2 * 512, 31)
        coded = np.concatenate([self.code.encode(bits[i:i + 512].tolist())
                                for i in range(0, len(bits), 512)])
        llrs = bpsk_llrs(coded)
        llrs[::5] = np.nan
        llrs[1::97] = np.inf * np.sign(llrs[1::97])
        out, _ = run_stream(gpufec.viterbi_decoder(self.code, backend="cpu"), llrs)
        self.assertEqual(len(out), len(bits))
        np.testing.assert_array_equal(out, bits)
        all_nan = np.full(self.code.coded_bits(), np.nan, dtype=np.float32)
        out, _ = run_stream(gpufec.viterbi_decoder(self.code, backend="cpu"), all_nan)
        self.assertEqual(len(out), 512)

    def test_009_bad_parameters(self):
        """Bad backend, input type and batch size are refused naming allowed values."""
        with self.assertRaises(ValueError) as ctx:
            gpufec.viterbi_decoder(self.code, backend="gpu")
        for word in ("auto", "cpu", "cuda"):
            self.assertIn(word, str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            gpufec.viterbi_decoder(self.code, input_type="complex")
        self.assertIn("float", str(ctx.exception))
        self.assertIn("byte", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            gpufec.viterbi_decoder(self.code, max_batch_frames=-1)
        self.assertIn("0 (auto", str(ctx.exception))
        with self.assertRaises(ValueError):
            gpufec.viterbi_decoder(self.code, llr_scale=0.0)

    def test_010_cuda_without_gpu(self):
        """backend="cuda" with no usable GPU is refused, naming the allowed values."""
        try:
            dec = gpufec.viterbi_decoder(self.code, backend="cuda")
        except ValueError as e:
            self.assertIn("cpu", str(e))
            return
        self.assertTrue(dec.backend_name().startswith("cuda"))  # a GPU is present

    def test_011_auto_backend(self):
        """backend="auto" picks a backend and reports it."""
        dec = gpufec.viterbi_decoder(self.code)
        self.assertTrue(dec.backend_name() == "cpu" or dec.backend_name().startswith("cuda"))

    def test_012_frames_larger_than_upstream_buffer(self):
        """Tagged frames of 40,012 LLRs (more than a default 8,192-item float buffer)
        are assembled across calls and decode."""
        code = gpufec.conv_code(20000, 7, [0o171, 0o133], "terminated")
        bits = [random_bits(20000, 40 + i) for i in range(2)]
        llrs = np.concatenate([bpsk_llrs(code.encode(b.tolist())) for b in bits])
        tags = [length_tag(0, code.coded_bits()), length_tag(code.coded_bits(), code.coded_bits())]
        dec = gpufec.viterbi_decoder(code, "float", "packet_len", "cpu", max_batch_frames=2)
        out, out_tags = run_stream(dec, llrs, tags=tags)
        np.testing.assert_array_equal(out, np.concatenate(bits))
        self.assertEqual(tags_by_key(out_tags, "packet_len"), [(0, 20000), (20000, 20000)])


if __name__ == "__main__":
    gr_unittest.run(qa_viterbi_decoder)
