#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The MIMO blocks (issue 10): gpufec.mimo_channel_source -> gpufec.mimo_detector
(stream and PDU forms) -> the LDPC decoder, on the CPU backend; the three ways of
giving the noise variance; bad parameters."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import collect_pdus

BITS = {"bpsk": 1, "qpsk": 2, "16qam": 4, "64qam": 6, "256qam": 8}


def run_source(src, frames, coherence=1, detector=None):
    """Runs src (-> detector) for `frames` coherence blocks; returns [y, h, bits] (+ the
    detector's float LLRs)."""
    tb = gr.top_block()
    nr = src.output_signature().sizeof_stream_item(0) // gr.sizeof_gr_complex
    entries = src.output_signature().sizeof_stream_item(1) // gr.sizeof_gr_complex
    y_snk = blocks.vector_sink_c(nr)
    h_snk = blocks.vector_sink_c(entries)
    b_snk = blocks.vector_sink_b()
    vectors = blocks.head(gr.sizeof_gr_complex * nr, frames * coherence)
    chans = blocks.head(gr.sizeof_gr_complex * entries, frames)
    tb.connect((src, 0), vectors, y_snk)
    tb.connect((src, 1), chans, h_snk)
    tb.connect((src, 2), b_snk)
    llr_snk = None
    if detector is not None:
        llr_snk = blocks.vector_sink_f(detector.output_signature().sizeof_stream_item(0) // 4)
        tb.connect(vectors, (detector, 0))
        tb.connect(chans, (detector, 1))
        tb.connect(detector, llr_snk)
    tb.run()
    out = [np.array(y_snk.data(), dtype=np.complex64), np.array(h_snk.data(), dtype=np.complex64),
           np.array(b_snk.data(), dtype=np.uint8)]
    if llr_snk is not None:
        out.append(np.array(llr_snk.data(), dtype=np.float32))
    return out


def detect_stream(det, y, h, nr, nt, noise=None, tags=()):
    """vector sources of y (vectors of nr) and h (matrices) -> det -> sink."""
    tb = gr.top_block()
    ys = blocks.vector_source_c(y.tolist(), False, nr, list(tags))
    hs = blocks.vector_source_c(h.tolist(), False, nr * nt)
    per_vector = det.output_signature().sizeof_stream_item(0) // 4
    snk = blocks.vector_sink_f(per_vector)
    tb.connect(ys, (det, 0))
    tb.connect(hs, (det, 1))
    if noise is not None:
        tb.connect(blocks.vector_source_f(list(noise), False), (det, 2))
    tb.connect(det, snk)
    tb.run()
    return np.array(snk.data(), dtype=np.float32), snk.tags()


class qa_mimo(gr_unittest.TestCase):

    def test_high_snr_detection_gives_the_sent_bits(self):
        """4x4 16-QAM at Es/N0 = 40 dB: every detector's hard decisions (GNU Radio's
        convention: positive = bit 1) are the source's bits."""
        for algorithm in ("mtt", "lmmse", "kbest", "ml"):
            src = gpufec.mimo_channel_source(nt=4, nr=4, modulation="16qam", snr_db=40.0, seed=3,
                              backend="cpu")
            det = gpufec.mimo_detector(nt=4, nr=4, modulation="16qam", algorithm=algorithm,
                                       backend="cpu", noise_var=src.noise_var())
            self.assertEqual(det.backend_name(), "cpu")
            frames = 20 if algorithm == "ml" else 300
            y, h, bits, llrs = run_source(src, frames, detector=det)
            self.assertEqual(len(y), frames * 4)
            self.assertEqual(len(h), frames * 16)
            self.assertEqual(len(llrs), frames * 16)
            np.testing.assert_array_equal((llrs > 0).astype(np.uint8), bits[:len(llrs)],
                                          err_msg=algorithm)
            self.assertEqual(det.detected_vectors(), frames)

    def test_source_is_a_function_of_the_seed(self):
        a = run_source(gpufec.mimo_channel_source(nt=2, nr=3, modulation="64qam", seed=9, coherence=3,
                                   backend="cpu"), 40, coherence=3)
        b = run_source(gpufec.mimo_channel_source(nt=2, nr=3, modulation="64qam", seed=9, coherence=3,
                                   backend="auto"), 40, coherence=3)
        c = run_source(gpufec.mimo_channel_source(nt=2, nr=3, modulation="64qam", seed=10, coherence=3,
                                   backend="cpu"), 40, coherence=3)
        for x, w in zip(a, b):
            np.testing.assert_array_equal(x, w)
        self.assertFalse(np.array_equal(a[1], c[1]))
        # Coherence 3: one matrix per three vectors, 2 * 6 bits per vector.
        self.assertEqual(len(a[0]), 120 * 3)
        self.assertEqual(len(a[1]), 40 * 6)
        self.assertGreaterEqual(len(a[2]), 120 * 12)

    def test_noise_variance_from_parameter_tag_and_stream_agree(self):
        src = gpufec.mimo_channel_source(nt=2, nr=2, modulation="qpsk", snr_db=3.0, seed=1, backend="cpu")
        y, h, _ = run_source(src, 50)
        ref, _ = detect_stream(gpufec.mimo_detector(nt=2, nr=2, modulation="qpsk",
                                                    noise_var=0.5, backend="cpu"), y, h, 2, 2)
        stream, _ = detect_stream(gpufec.mimo_detector(nt=2, nr=2, modulation="qpsk",
                                                       noise_var=9.0, noise_var_input=True,
                                                       backend="cpu"), y, h, 2, 2, noise=[0.5] * 50)
        tag = gr.tag_t()
        tag.offset = 0
        tag.key = pmt.intern("noise_var")
        tag.value = pmt.from_double(0.5)
        tagged, out_tags = detect_stream(gpufec.mimo_detector(nt=2, nr=2, modulation="qpsk",
                                                              noise_var=9.0, backend="cpu"),
                                         y, h, 2, 2, tags=[tag])
        np.testing.assert_array_equal(stream, ref)
        np.testing.assert_array_equal(tagged, ref)
        # The tag comes out on the same vector; other noise gives other LLRs.
        self.assertEqual([(t.offset, pmt.symbol_to_string(t.key)) for t in out_tags],
                         [(0, "noise_var")])
        other, _ = detect_stream(gpufec.mimo_detector(nt=2, nr=2, modulation="qpsk",
                                                      noise_var=9.0, backend="cpu"), y, h, 2, 2)
        np.testing.assert_allclose(other * 9.0, ref * 0.5, rtol=1e-4, atol=1e-4)
        # A bad stream value gives all-zero LLRs for its block only.
        noise = [0.5] * 50
        noise[7] = -1.0
        bad, _ = detect_stream(gpufec.mimo_detector(nt=2, nr=2, modulation="qpsk",
                                                    noise_var_input=True, backend="cpu"),
                               y, h, 2, 2, noise=noise)
        self.assertTrue(np.all(bad[7 * 4:8 * 4] == 0))
        np.testing.assert_array_equal(np.delete(bad, range(28, 32)), np.delete(ref, range(28, 32)))

    def test_small_batches_and_a_mid_stream_noise_tag(self):
        """Batches of 4 blocks (every slot busy most of the time) give the LLRs of the
        default batching; a noise_var tag at vector 151 (coherence 2: inside block 75)
        applies from that block on, as two detectors with fixed variances say."""
        src = gpufec.mimo_channel_source(nt=2, nr=2, modulation="16qam", snr_db=12.0,
                                         seed=8, coherence=2, backend="cpu")
        y, h, _ = run_source(src, 150, coherence=2)
        tag = gr.tag_t()
        tag.offset = 151
        tag.key = pmt.intern("noise_var")
        tag.value = pmt.from_double(0.4)

        def run(batch, tags=(), nv=0.1):
            return detect_stream(gpufec.mimo_detector(nt=2, nr=2, modulation="16qam",
                                                      coherence=2, noise_var=nv,
                                                      backend="cpu", max_batch_frames=batch),
                                 y, h, 2, 2, tags=tags)

        small, small_tags = run(4, [tag])
        big, _ = run(1024, [tag])
        np.testing.assert_array_equal(small, big)
        self.assertEqual([t.offset for t in small_tags], [151])
        before, _ = run(1024, nv=0.1)
        after, _ = run(1024, nv=0.4)
        per_block = 2 * 8
        np.testing.assert_array_equal(small[:75 * per_block], before[:75 * per_block])
        np.testing.assert_array_equal(small[75 * per_block:], after[75 * per_block:])

    def test_caps_on_the_detector_shrink_its_multiple(self):
        """A Max Output Buffer or max_noutput_items on the detector below its output
        multiple (half a batch of coherence blocks: 512 here) shrinks the multiple
        instead of failing the start or starving the block: the LLRs are the uncapped
        ones."""
        src = gpufec.mimo_channel_source(nt=2, nr=2, modulation="qpsk", snr_db=10.0,
                                         seed=3, coherence=2, backend="cpu")
        y, h, _ = run_source(src, 150, coherence=2)

        def detector():
            return gpufec.mimo_detector(nt=2, nr=2, modulation="qpsk", coherence=2,
                                        noise_var=0.1, backend="cpu")

        ref, _ = detect_stream(detector(), y, h, 2, 2)
        self.assertEqual(len(ref), 150 * 2 * 4)
        buffered = detector()
        buffered.set_max_output_buffer(40)  # 40 vectors: 10 blocks per call (20 vectors)
        limited = detector()
        limited.set_max_noutput_items(30)  # 30 vectors: 15 blocks per call
        for det, multiple in ((buffered, 20), (limited, 30)):
            out, _ = detect_stream(det, y, h, 2, 2)
            np.testing.assert_array_equal(out, ref)
            self.assertEqual(det.output_multiple(), multiple)

    def test_byte_output_is_the_quantized_float_output(self):
        src = gpufec.mimo_channel_source(nt=2, nr=2, modulation="16qam", snr_db=12.0, seed=4, backend="cpu")
        y, h, _ = run_source(src, 64)
        f, _ = detect_stream(gpufec.mimo_detector(nt=2, nr=2, backend="cpu", noise_var=0.2),
                             y, h, 2, 2)
        tb = gr.top_block()
        det = gpufec.mimo_detector(nt=2, nr=2, backend="cpu", noise_var=0.2,
                                   output_type="byte", llr_scale=4.0)
        snk = blocks.vector_sink_b(8)
        tb.connect(blocks.vector_source_c(y.tolist(), False, 2), (det, 0))
        tb.connect(blocks.vector_source_c(h.tolist(), False, 4), (det, 1))
        tb.connect(det, snk)
        tb.run()
        got = np.array(snk.data(), dtype=np.uint8).view(np.int8)
        want = np.clip(np.trunc(f * 4.0 + np.copysign(0.5, f)), -127, 127).astype(np.int8)
        np.testing.assert_array_equal(got, want)

    def test_llr_convention(self):
        src = gpufec.mimo_channel_source(nt=2, nr=2, modulation="qpsk", snr_db=10.0, seed=5, backend="cpu")
        y, h, _ = run_source(src, 20)
        gnuradio_llrs, _ = detect_stream(gpufec.mimo_detector(nt=2, nr=2, modulation="qpsk",
                                                              backend="cpu"), y, h, 2, 2)
        true_llrs, _ = detect_stream(gpufec.mimo_detector(nt=2, nr=2, modulation="qpsk",
                                                          backend="cpu", soft_convention="llr"),
                                     y, h, 2, 2)
        np.testing.assert_array_equal(true_llrs, -gnuradio_llrs)

    def test_pdu_form_equals_stream_form(self):
        src = gpufec.mimo_channel_source(nt=4, nr=4, modulation="qpsk", snr_db=8.0, seed=6, coherence=4,
                          backend="cpu")
        y, h, _ = run_source(src, 12, coherence=4)
        tb = gr.top_block()
        det = gpufec.mimo_detector(nt=4, nr=4, modulation="qpsk", coherence=4,
                                   noise_var=0.3, backend="cpu")
        snk = blocks.vector_sink_f(8)
        tb.connect(blocks.vector_source_c(y.tolist(), False, 4), (det, 0))
        tb.connect(blocks.vector_source_c(h.tolist(), False, 16), (det, 1))
        tb.connect(det, snk)
        tb.run()
        want = np.array(snk.data(), dtype=np.float32)
        pdu_det = gpufec.mimo_detector_pdu(nt=4, nr=4, modulation="qpsk", coherence=4,
                                           noise_var=0.3, backend="cpu")
        # 10 vectors: blocks of 4, 4 and 2 (a short last block).
        meta = pmt.dict_add(pmt.make_dict(), pmt.intern("channel"),
                            pmt.init_c32vector(48, h[:48].tolist()))
        meta = pmt.dict_add(meta, pmt.intern("frame"), pmt.from_long(1))
        first = pmt.cons(meta, pmt.init_c32vector(40, y[:40].tolist()))
        bad = pmt.cons(pmt.make_dict(), pmt.init_c32vector(8, [0j] * 8))
        msgs = collect_pdus(pdu_det, [first, bad], 1, settle_s=0.2)
        self.assertEqual(len(msgs), 1)
        got = np.array(pmt.f32vector_elements(pmt.cdr(msgs[0])), dtype=np.float32)
        np.testing.assert_array_equal(got, want[:80])
        self.assertEqual(pmt.to_long(pmt.dict_ref(pmt.car(msgs[0]), pmt.intern("frame"),
                                                  pmt.PMT_NIL)), 1)
        self.assertFalse(pmt.dict_has_key(pmt.car(msgs[0]), pmt.intern("channel")))
        self.assertEqual(pdu_det.dropped_pdus(), 1)

    def test_pdu_noise_variance_in_metadata(self):
        """A PDU's "noise_var" (a double, a long or a uint64) is used as given; values
        that are not finite and positive as a float are dropped and counted, not
        detected into zero LLRs."""
        src = gpufec.mimo_channel_source(nt=2, nr=2, modulation="qpsk", snr_db=8.0, seed=5,
                                         coherence=2, backend="cpu")
        y, h, _ = run_source(src, 3, coherence=2)

        def pdu(value):
            meta = pmt.dict_add(pmt.make_dict(), pmt.intern("channel"),
                                pmt.init_c32vector(12, h[:12].tolist()))
            meta = pmt.dict_add(meta, pmt.intern("noise_var"), value)
            return pmt.cons(meta, pmt.init_c32vector(12, y[:12].tolist()))

        good = [pmt.from_double(2.0), pmt.from_long(2), pmt.from_uint64(2)]
        bad = [pmt.from_double(0.0), pmt.from_double(-1.0), pmt.from_double(float("nan")),
               pmt.from_double(float("inf")), pmt.from_double(1e-50),
               pmt.from_double(1e40), pmt.intern("two")]
        det = gpufec.mimo_detector_pdu(nt=2, nr=2, modulation="qpsk", coherence=2,
                                       noise_var=0.5, backend="cpu")
        msgs = collect_pdus(det, [pdu(v) for v in good + bad], len(good), settle_s=0.2)
        self.assertEqual(len(msgs), len(good))
        llrs = [np.array(pmt.f32vector_elements(pmt.cdr(m)), dtype=np.float32) for m in msgs]
        self.assertTrue(np.any(llrs[0] != 0))
        for other in llrs[1:]:
            np.testing.assert_array_equal(other, llrs[0])
        self.assertEqual(det.dropped_pdus(), len(bad))

    def test_coded_chain_with_ldpc(self):
        """Source with an NR LDPC code (BG1 r~1/2, E = 2 * 4 * 4 * 33 bits) -> MTT ->
        LDPC decoder: at 10 dB Eb/N0 every information bit comes back."""
        code = gpufec.nr_ldpc_code(bg=1, z=16, k=0, e=1056)
        self.assertEqual(code.coded_bits() % 16, 0)
        src = gpufec.mimo_channel_source(nt=4, nr=4, modulation="16qam", snr_db=10.0, snr_unit="ebn0",
                          seed=2, backend="cpu", code=code)
        frames_per_cw = code.coded_bits() // 16
        det = gpufec.mimo_detector(nt=4, nr=4, modulation="16qam", backend="cpu",
                                   noise_var=src.noise_var())
        dec = gpufec.ldpc_decoder(code, backend="cpu")
        tb = gr.top_block()
        cws = 6
        vectors = blocks.head(gr.sizeof_gr_complex * 4, cws * frames_per_cw)
        chans = blocks.head(gr.sizeof_gr_complex * 16, cws * frames_per_cw)
        info = blocks.head(1, cws * code.frame_bits())
        info_snk = blocks.vector_sink_b()
        dec_snk = blocks.vector_sink_b()
        tb.connect((src, 0), vectors, (det, 0))
        tb.connect((src, 1), chans, (det, 1))
        tb.connect((src, 2), info, info_snk)
        tb.connect(det, blocks.vector_to_stream(4, 16), dec, dec_snk)
        tb.run()
        self.assertEqual(len(dec_snk.data()), cws * code.frame_bits())
        np.testing.assert_array_equal(np.array(dec_snk.data()), np.array(info_snk.data()))

    def test_bad_parameters_name_the_allowed_values(self):
        cases = [
            (lambda: gpufec.mimo_detector(modulation="8psk"), "256qam"),
            (lambda: gpufec.mimo_detector(algorithm="zf"), "mtt"),
            (lambda: gpufec.mimo_detector(nt=4, nr=2), "nr"),
            (lambda: gpufec.mimo_detector(noise_var=0.0), "finite value > 0"),
            (lambda: gpufec.mimo_detector(output_type="short"), "byte"),
            (lambda: gpufec.mimo_detector(soft_convention="x"), "gnuradio"),
            (lambda: gpufec.mimo_detector(backend="tpu"), "cuda"),
            (lambda: gpufec.mimo_detector_pdu(coherence=0), "1..65536"),
            (lambda: gpufec.mimo_channel_source(snr_unit="db"), "ebn0"),
            (lambda: gpufec.mimo_channel_source(nt=9, nr=9), "nr <= 8"),
            (lambda: gpufec.mimo_channel_source(
                code=gpufec.nr_ldpc_code(bg=1, z=16, k=0, e=1000)), "multiple"),
        ]
        for make, allowed in cases:
            with self.assertRaises(Exception) as ctx:
                make()
            self.assertIn(allowed, str(ctx.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_mimo)
