#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Randomized property test of the PDU path (issue 8): streams of random messages,
posted in random bursts while the flowgraph runs, into the PDU decoders.

Each message is, at random: a good PDU (f32vector or s8vector of a frame's soft
values, random amplitude, metadata nil or a dict), an empty f32/s8 vector, a vector
too long for any frame, a vector of another type (u8, c32, s16, f64), metadata that is
neither a dict nor nil (an integer, a symbol, a list of non-pairs), or no PDU at all
(an integer, a symbol, a pair whose cdr is not a vector, nil). Properties, for fixed
seeds: every good and every empty PDU comes out exactly once, in order, with its own
metadata (its "seq" entry) and, for good ones, the sent bits; every other message is
counted in dropped_frames() and nothing else comes out; decoded_frames() counts the
PDUs out. Each flowgraph runs in a forked child with a deadline (a hang or a crash
fails the test). scripts/sanitize.sh runs this under ASan + UBSan too."""

import random
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpufec
from gpufec_qa_helpers import bpsk_llrs, in_child

#: Messages per seed, seeds per decoder.
MESSAGES = 80
SEEDS = 4


def random_message(rng, code, seq):
    """(message, expected output bits or None for an empty PDU, dropped?)."""
    n = code.coded_bits()
    seq_meta = pmt.dict_add(pmt.make_dict(), pmt.intern("seq"), pmt.from_long(seq))
    if rng.random() < 0.3:
        seq_meta = pmt.dict_add(seq_meta, pmt.intern("extra"), pmt.intern("x" * rng.randint(0, 9)))
    kind = rng.choice(["good"] * 5 + ["empty", "long", "type", "meta", "nopdu"])
    if kind == "good":
        bits = np.array([rng.randint(0, 1) for _ in range(code.frame_bits())], np.uint8)
        soft = bpsk_llrs(code.encode(bits.tolist()), rng.uniform(0.5, 8.0))
        if rng.random() < 0.5:
            vec = pmt.init_f32vector(n, soft.tolist())
        else:
            vec = pmt.init_s8vector(n, np.clip(np.round(soft * 8), -127, 127)
                                    .astype(np.int8).tolist())
        return pmt.cons(seq_meta, vec), bits.tolist(), False
    if kind == "empty":
        vec = pmt.make_f32vector(0, 0.0) if rng.random() < 0.5 else pmt.make_s8vector(0, 0)
        return pmt.cons(seq_meta, vec), [], False
    if kind == "long":
        return pmt.cons(seq_meta, pmt.make_f32vector(4 * n + rng.randint(1, 5), 1.0)), None, True
    if kind == "type":
        vec = rng.choice([lambda: pmt.make_u8vector(n, 1), lambda: pmt.make_c32vector(n, 1j),
                          lambda: pmt.make_s16vector(n, 3), lambda: pmt.make_f64vector(n, 1.0)])()
        return pmt.cons(seq_meta, vec), None, True
    vec = pmt.make_f32vector(n, 1.0)
    if kind == "meta":
        meta = rng.choice([pmt.from_long(seq), pmt.intern("meta"),
                           pmt.list2(pmt.from_long(1), pmt.from_long(2))])
        return pmt.cons(meta, vec), None, True
    msg = rng.choice([pmt.from_long(seq), pmt.intern("pdu"), pmt.PMT_NIL,
                      pmt.cons(seq_meta, pmt.intern("no vector"))])
    return msg, None, True


def run_random_pdus(make, messages, seed):
    """Posts `messages` in random bursts (some before start, the rest while running),
    waits for the decoder to account for all of them; returns (outputs as (seq, bits),
    decoded, dropped)."""

    def body():
        rng = random.Random(seed)
        dec = make()
        sink = blocks.message_debug()
        tb = gr.top_block()
        tb.msg_connect((dec, "out"), (sink, "store"))
        port = pmt.intern("in")
        first = rng.randint(0, len(messages))
        for msg in messages[:first]:
            dec.to_basic_block()._post(port, msg)
        tb.start()
        i = first
        while i < len(messages):
            burst = rng.randint(1, 12)
            for msg in messages[i:i + burst]:
                dec.to_basic_block()._post(port, msg)
            i += burst
            time.sleep(rng.choice([0.0, 0.0005, 0.003]))
        deadline = time.monotonic() + 20.0
        while (dec.decoded_frames() + dec.dropped_frames() < len(messages)
               and time.monotonic() < deadline):
            time.sleep(0.01)
        time.sleep(0.1)  # extra output would show up here
        tb.stop()
        tb.wait()
        out = []
        for k in range(sink.num_messages()):
            msg = sink.get_message(k)
            meta, vec = pmt.car(msg), pmt.cdr(msg)
            seq = pmt.to_long(pmt.dict_ref(meta, pmt.intern("seq"), pmt.from_long(-1)))
            out.append((seq, list(pmt.u8vector_elements(vec))
                        if pmt.is_u8vector(vec) else None))
        return out, dec.decoded_frames(), dec.dropped_frames()

    return in_child(body, 60.0)


class qa_pdu_random(gr_unittest.TestCase):

    def check(self, name, code, make):
        for seed in range(1, SEEDS + 1):
            rng = random.Random(1000 * seed + len(name))
            sent = [random_message(rng, code, seq) for seq in range(MESSAGES)]
            out, decoded, dropped = run_random_pdus(make, [m for m, _, _ in sent], seed)
            want = [(seq, bits) for seq, (_, bits, bad) in enumerate(sent) if not bad]
            label = f"{name} seed {seed}"
            self.assertEqual([o[0] for o in out], [w[0] for w in want], label)
            for (seq, got), (_, bits) in zip(out, want):
                self.assertEqual(got, bits, f"{label}: PDU seq {seq}")
            self.assertEqual(decoded, len(want), label)
            self.assertEqual(dropped, MESSAGES - len(want), label)

    def test_001_viterbi_pdu(self):
        code = gpufec.conv_code(96, 7, [0o171, 0o133], "terminated")
        self.check("viterbi", code,
                   lambda: gpufec.viterbi_decoder_pdu(code, "cpu", max_batch_frames=7))

    def test_002_ldpc_pdu(self):
        code = gpufec.nr_ldpc_code(2, 16, 0, 0)
        self.check("ldpc", code,
                   lambda: gpufec.ldpc_decoder_pdu(code, backend="cpu", max_batch_frames=5))


if __name__ == "__main__":
    gr_unittest.run(qa_pdu_random)
