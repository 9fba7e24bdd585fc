#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Degenerate length tags and PDUs (issue 8): every case has a defined result
(docs/gnuradio-blocks.md, "Degenerate tags and PDUs") and none hangs or crashes.

Each flowgraph runs in a forked child with a deadline: a hang or a crash is a test
failure, not a hung test run."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import (bpsk_llrs, in_child, length_tag, marker_tag, random_bits,
                               run_pdus)

#: Seconds a flowgraph may take; these take well under one.
DEADLINE_S = 30.0


def tag(offset, value, key="packet_len"):
    """A tag with any PMT value."""
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), value, pmt.intern("qa")))


def run_stream(make_block, data, tags, item="f", chunk=None):
    """vector_source(data, tags) -> make_block() -> vector_sink_b in a child, the block
    fed at most `chunk` items per call. Returns dict: out (items), tags
    [(offset, key, value)], decoded, dropped (None where the block has no counter)."""

    def body():
        block = make_block()
        make_src = {"f": blocks.vector_source_f, "b": blocks.vector_source_b}[item]
        src = make_src(np.asarray(data).tolist(), False, 1, list(tags))
        snk = blocks.vector_sink_b()
        tb = gr.top_block()
        if chunk:
            # vector_source writes all or nothing: a copy block limits the call size.
            limit = blocks.copy(gr.sizeof_float if item == "f" else gr.sizeof_char)
            limit.set_max_noutput_items(chunk)
            tb.connect(src, limit, block, snk)
        else:
            tb.connect(src, block, snk)
        tb.run()
        decoded = block.decoded_frames() if hasattr(block, "decoded_frames") else None
        return {
            "out": list(snk.data()),
            "tags": [(t.offset, pmt.symbol_to_string(t.key), pmt.to_python(t.value))
                     for t in snk.tags()],
            "decoded": decoded,
            "dropped": block.dropped_frames(),
        }

    return in_child(body, DEADLINE_S)


def by_key(result, key):
    return sorted((o, v) for o, k, v in result["tags"] if k == key)


class Frames:
    """Builds a tagged stream piece by piece: each piece is (tags at its start, items)."""

    def __init__(self):
        self.items = []
        self.tags = []

    @property
    def pos(self):
        return len(self.items)

    def add(self, items, *values, marker=None):
        """Length tags with `values` (ints become longs, else PMTs as given) at the
        current position, in order, then the items; a marker tag `marker` items in."""
        for v in values:
            self.tags.append(tag(self.pos, pmt.from_long(v) if isinstance(v, int) else v))
        if marker is not None:
            self.tags.append(marker_tag(self.pos + marker, 7))
        self.items.extend(np.asarray(items).tolist())
        return self


#: Tag values that are no length: negative, string, float, out of range uint64s.
BAD_VALUES = [pmt.from_long(-3), pmt.intern("ten"), pmt.from_double(3.5),
              pmt.from_uint64(2**64 - 1), pmt.from_uint64(2**63 + 5)]


class qa_degenerate_tags(gr_unittest.TestCase):

    def setUp(self):
        self.conv = gpufec.conv_code(64, 7, [0o171, 0o133], "terminated")

    def coded(self, bits):
        return np.array(self.conv.encode(bits.tolist()), dtype=np.uint8)

    # ---- encoder ----------------------------------------------------------------

    def test_001_encoder_empty_frames(self):
        """A length tag of 0 is an empty frame: no output items (no tail bits), its
        length tag of 0 at the current output position; frames around it encode, the
        marker of the next frame lands where it should. Old code: hang."""
        a, b, c = random_bits(20, 1), random_bits(30, 2), random_bits(14, 3)
        s = Frames().add([], 0).add(a, 20).add([], 0).add(b, 30, marker=5)
        s.add([], 0, 0).add(c, 14)
        ca, cb, cc = len(self.coded(a)), len(self.coded(b)), len(self.coded(c))
        for chunk in (None, 1, 7):
            r = run_stream(lambda: gpufec.encoder(self.conv, "packet_len"), s.items,
                           s.tags, "b", chunk)
            np.testing.assert_array_equal(
                r["out"], np.concatenate([self.coded(a), self.coded(b), self.coded(c)]),
                f"chunk {chunk}")
            self.assertEqual(by_key(r, "packet_len"),
                             sorted([(0, 0), (0, ca), (ca, 0), (ca, cb), (ca + cb, 0),
                                     (ca + cb, 0), (ca + cb, cc)]), f"chunk {chunk}")
            self.assertEqual(by_key(r, "marker"), [(ca + 5 * cb // 30, 7)])
            self.assertEqual(r["dropped"], 0)

    def test_002_encoder_bad_values(self):
        """Negative, string, float and out-of-range uint64 tag values drop their frame
        (one count each), also when a good length tag shares their offset; the good
        frames come out in order. Old code: lost the good frame sharing the offset."""
        a, b, c = random_bits(20, 4), random_bits(20, 5), random_bits(14, 6)
        for bad in BAD_VALUES:
            s = Frames().add(a, 20).add(np.ones(10, np.uint8), bad).add(b, 20)
            s.add(c, bad, 14)
            r = run_stream(lambda: gpufec.encoder(self.conv, "packet_len"), s.items,
                           s.tags, "b")
            msg = pmt.write_string(bad)
            np.testing.assert_array_equal(
                r["out"], np.concatenate([self.coded(x) for x in (a, b, c)]), msg)
            self.assertEqual(r["dropped"], 2, msg)

    def test_003_encoder_cut_frames(self):
        """A length tag before the previous frame is complete cuts it: the cut frame
        is dropped, the new tag starts the next frame. Two length tags at one offset
        are two frames; the first (not empty) is cut at once. Old code: encoded the
        cut frame with the next frame's items, lost the next frame."""
        bits = random_bits(104, 7)
        s = Frames().add(bits[:20], 40).add(bits[20:84], 64).add(bits[84:], 30, 20)
        r = run_stream(lambda: gpufec.encoder(self.conv, "packet_len"), s.items, s.tags,
                       "b")
        np.testing.assert_array_equal(
            r["out"], np.concatenate([self.coded(bits[20:84]), self.coded(bits[84:])]))
        self.assertEqual(by_key(r, "packet_len"), [(0, 140), (140, 52)])
        self.assertEqual(r["dropped"], 2)

    def test_004_encoder_work_boundaries(self):
        """Frames of 0..64 bits with the source writing 1, 3 or 64 items per call (tags
        at the last item of a call, frames ending exactly at a call's end): the same
        output every time."""
        rng = np.random.default_rng(8)
        s, expected, lengths = Frames(), [], []
        for i in range(40):
            n = 0 if i % 5 == 2 else int(rng.integers(1, 65))
            bits = random_bits(n, 100 + i)
            s.add(bits, n)
            expected.append(self.coded(bits) if n else np.zeros(0, np.uint8))
            lengths.append(len(expected[-1]))
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).tolist()
        for chunk in (1, 3, 64):
            r = run_stream(lambda: gpufec.encoder(self.conv, "packet_len"), s.items,
                           s.tags, "b", chunk)
            np.testing.assert_array_equal(r["out"], np.concatenate(expected), f"chunk {chunk}")
            self.assertEqual(by_key(r, "packet_len"), sorted(zip(starts, lengths)),
                             f"chunk {chunk}")
            self.assertEqual(r["dropped"], 0)

    def test_005_encoder_stream_ends_inside_frame(self):
        """The stream ends 30 items into a 64-item frame: the flowgraph finishes, the
        frames before it are encoded, the partial frame is counted as dropped."""
        a = random_bits(20, 9)
        s = Frames().add(a, 20).add(np.ones(30, np.uint8), 64)
        r = run_stream(lambda: gpufec.encoder(self.conv, "packet_len"), s.items, s.tags,
                       "b")
        np.testing.assert_array_equal(r["out"], self.coded(a))
        self.assertEqual(r["dropped"], 1)

    # ---- viterbi_decoder ----------------------------------------------------------

    def viterbi(self):
        return gpufec.viterbi_decoder(self.conv, "float", "packet_len", "cpu",
                                      max_batch_frames=2)

    def test_006_viterbi_empty_frames(self):
        """Empty frames pass through the decoder in order between decoded frames (first
        item of the stream included): their tags at the current output position,
        decoded_frames() counts them. Old code: hang."""
        a, b, c = random_bits(20, 10), random_bits(30, 11), random_bits(14, 12)
        s = Frames().add([], 0).add(bpsk_llrs(self.coded(a)), 52).add([], 0)
        s.add(bpsk_llrs(self.coded(b)), 72, marker=36).add([], 0, 0)
        s.add(bpsk_llrs(self.coded(c)), 40)
        for chunk in (None, 1, 5):
            r = run_stream(self.viterbi, s.items, s.tags, "f", chunk)
            np.testing.assert_array_equal(r["out"], np.concatenate([a, b, c]), f"chunk {chunk}")
            self.assertEqual(by_key(r, "packet_len"),
                             [(0, 0), (0, 20), (20, 0), (20, 30), (50, 0), (50, 0),
                              (50, 14)], f"chunk {chunk}")
            self.assertEqual(by_key(r, "marker"), [(20 + 15, 7)])
            self.assertEqual((r["decoded"], r["dropped"]), (7, 0))

    def test_007_viterbi_degenerate_mix(self):
        """Bad values, a cut frame, two tags at one offset, an odd length and an empty
        frame between good frames, at several work sizes: the good frames come out in
        order, decoded + dropped = length tags. Old code: hang."""
        g = [random_bits(20 + 2 * i, 20 + i) for i in range(5)]
        llrs = [bpsk_llrs(self.coded(x)) for x in g]
        s = Frames().add(llrs[0], len(llrs[0]))
        s.add(np.ones(9), pmt.intern("x"))  # string: dropped up to the next tag
        s.add(llrs[1][:10], 1000).add(llrs[1], pmt.from_double(3.5), len(llrs[1]))
        s.add(np.ones(30), 52)  # cut after 30 items by the next tag
        s.add(llrs[2], len(llrs[2]), marker=0).add(np.ones(33), 33)  # odd: dropped
        s.add([], 0).add(llrs[3], 40, len(llrs[3]))  # 40 cut at once
        s.add(llrs[4], pmt.from_uint64(len(llrs[4])))
        lens = [len(x) for x in g]
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).tolist()
        tags_in = sum(1 for t in s.tags if pmt.symbol_to_string(t.key) == "packet_len")
        for chunk in (None, 1, 4, 16):
            r = run_stream(self.viterbi, s.items, s.tags, "f", chunk)
            msg = f"chunk {chunk}"
            np.testing.assert_array_equal(r["out"], np.concatenate(g), msg)
            self.assertEqual(by_key(r, "packet_len"),
                             sorted(list(zip(starts, lens)) + [(starts[3], 0)]), msg)
            self.assertEqual(by_key(r, "marker"), [(starts[2], 7)], msg)
            self.assertEqual(r["dropped"], 6, msg)
            self.assertEqual(r["decoded"] + r["dropped"], tags_in, msg)

    def test_008_viterbi_stream_ends_inside_frame(self):
        """The stream ends inside a frame: the flowgraph finishes, the earlier frames
        decode, dropped_frames() counts the partial frame."""
        a = random_bits(20, 30)
        s = Frames().add(bpsk_llrs(self.coded(a)), 52).add(np.ones(50), 140)
        r = run_stream(self.viterbi, s.items, s.tags)
        np.testing.assert_array_equal(r["out"], a)
        self.assertEqual((r["decoded"], r["dropped"]), (1, 1))

    # ---- a block-code decoder -----------------------------------------------------

    def test_009_ldpc_decoder(self):
        """LDPC stream decoder (cpu): empty frames pass through without status tags, a
        cut frame and a partial last frame are dropped, good frames decode with their
        iterations / crc_ok tags. Old code: hang."""
        code = gpufec.nr_ldpc_code(2, 16, 0, 0)
        k, n = code.frame_bits(), code.coded_bits()
        bits = [random_bits(k, 40 + i) for i in range(2)]
        llrs = [bpsk_llrs(code.encode(b.tolist())) for b in bits]
        s = Frames().add([], 0).add(llrs[0], n).add([], 0).add(np.ones(5), n)
        s.add(llrs[1], n).add(np.ones(n // 2), n)

        def make():
            return gpufec.ldpc_decoder(code, len_tag_key="packet_len", backend="cpu",
                                       max_batch_frames=2)

        r = run_stream(make, s.items, s.tags)
        np.testing.assert_array_equal(r["out"], np.concatenate(bits))
        self.assertEqual(by_key(r, "packet_len"), [(0, 0), (0, k), (k, 0), (k, k)])
        self.assertEqual(by_key(r, "crc_ok"), [(0, True), (k, True)])
        self.assertEqual(len(by_key(r, "iterations")), 2)
        self.assertEqual((r["decoded"], r["dropped"]), (4, 2))

    # ---- PDU decoders -------------------------------------------------------------

    def test_010_pdu_degenerate(self):
        """PDU decoders (Viterbi, LDPC with status metadata): empty vectors give empty
        PDUs in order with their metadata and no status entries; wrong vector types,
        metadata that is neither dict nor nil, a cdr that is no vector and non-pairs
        are dropped with an error; good PDUs around them decode in order. Old code:
        dropped the empty PDUs, passed (Viterbi) or crashed on (LDPC) bad metadata."""
        ldpc = gpufec.nr_ldpc_code(2, 16, 0, 0)
        cases = [("viterbi", self.conv, lambda: gpufec.viterbi_decoder_pdu(self.conv, "cpu")),
                 ("ldpc", ldpc, lambda: gpufec.ldpc_decoder_pdu(ldpc, backend="cpu"))]
        for name, code, make in cases:
            good = [random_bits(code.frame_bits(), 50 + i) for i in range(2)]
            llrs = [bpsk_llrs(code.encode(b.tolist())).tolist() for b in good]

            def meta(i):
                return pmt.dict_add(pmt.make_dict(), pmt.intern("seq"), pmt.from_long(i))

            pdus = [
                pmt.cons(meta(0), pmt.init_f32vector(len(llrs[0]), llrs[0])),
                pmt.cons(meta(1), pmt.make_f32vector(0, 0.0)),  # empty: passes
                pmt.cons(pmt.PMT_NIL, pmt.make_s8vector(0, 0)),  # empty: passes
                pmt.cons(pmt.PMT_NIL, pmt.init_u8vector(4, [1, 2, 3, 4])),
                pmt.cons(pmt.PMT_NIL, pmt.make_c32vector(4, 1j)),
                pmt.cons(pmt.from_long(5), pmt.init_f32vector(len(llrs[0]), llrs[0])),
                pmt.cons(pmt.cons(pmt.from_long(1), pmt.from_long(2)),
                         pmt.init_f32vector(len(llrs[0]), llrs[0])),
                pmt.cons(pmt.intern("meta"), pmt.init_f32vector(len(llrs[0]), llrs[0])),
                pmt.cons(pmt.PMT_NIL, pmt.intern("no vector")),
                pmt.cons(pmt.PMT_NIL, pmt.list2(pmt.from_long(1), pmt.from_long(2))),
                pmt.from_long(3),
                pmt.cons(meta(11), pmt.init_f32vector(len(llrs[1]), llrs[1])),
            ]
            out, decoded, dropped = run_pdus(make, pdus, 4)
            self.assertEqual(len(out), 4, name)
            self.assertEqual([o[1] for o in out], ["u8"] * 4, name)
            self.assertEqual(out[0][2], good[0].tolist(), name)
            self.assertEqual(out[1][2], [], name)
            self.assertEqual(out[2][2], [], name)
            self.assertEqual(out[3][2], good[1].tolist(), name)
            self.assertIn("seq", out[0][0], name)
            self.assertEqual(out[1][0], pmt.write_string(meta(1)), name)  # no status
            self.assertEqual(out[2][0], "()", name)
            self.assertEqual((decoded, dropped), (4, 8), name)


if __name__ == "__main__":
    gr_unittest.run(qa_degenerate_tags)
