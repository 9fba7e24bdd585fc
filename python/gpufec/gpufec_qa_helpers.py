#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Shared helpers of the gr-gpufec QA tests (not installed)."""

import multiprocessing
import os
import time
import traceback

import numpy as np
import pmt
from gnuradio import blocks, fec, gr

#: gr-fec cc_encoder modes for our termination names.
GR_FEC_MODES = {
    "terminated": fec.CC_TERMINATED,
    "truncated": fec.CC_TRUNCATED,
    "tail_biting": fec.CC_TAILBITING,
}


def random_bits(n, seed=0):
    """n random bits, one per byte (numpy uint8)."""
    return np.random.default_rng(seed).integers(0, 2, n).astype(np.uint8)


def bpsk_llrs(coded_bits, amplitude=4.0):
    """Noiseless soft values of coded bits in GNU Radio's convention (the blocks'
    default soft_convention): bit 1 -> +amplitude, bit 0 -> -amplitude."""
    return (amplitude * (2.0 * np.asarray(coded_bits, dtype=np.float32) - 1.0)).astype(
        np.float32)


def gr_fec_encode(code, bits):
    """Encodes whole frames of `bits` with gr-fec's cc_encoder for the same code."""
    enc = fec.cc_encoder_make(code.frame_bits(), code.k(), len(code.polys()),
                              code.gr_fec_polys(), 0, GR_FEC_MODES[code.termination()],
                              False)
    src = blocks.vector_source_b(np.asarray(bits, dtype=np.uint8).tolist())
    snk = blocks.vector_sink_b()
    tb = gr.top_block()
    tb.connect(src, fec.encoder(enc, gr.sizeof_char, gr.sizeof_char), snk)
    tb.run()
    return np.array(snk.data(), dtype=np.uint8)


def run_stream(block, data, item="f", tags=(), sink_item="b"):
    """Runs vector_source(data, tags) -> block -> vector_sink; returns (data, tags)."""
    source_make = {"f": blocks.vector_source_f, "b": blocks.vector_source_b}[item]
    sink_make = {"f": blocks.vector_sink_f, "b": blocks.vector_sink_b}[sink_item]
    src = source_make(np.asarray(data).tolist(), False, 1, list(tags))
    snk = sink_make()
    tb = gr.top_block()
    tb.connect(src, block, snk)
    tb.run()
    return np.array(snk.data()), snk.tags()


def length_tag(offset, length, key="packet_len"):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), pmt.from_long(length),
                                       pmt.intern("qa")))


def marker_tag(offset, value, key="marker"):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), pmt.from_long(value),
                                       pmt.intern("qa")))


def tags_by_key(tags, key):
    """[(offset, value)] of the tags with `key`, sorted by offset."""
    return sorted((t.offset, pmt.to_python(t.value)) for t in tags
                  if pmt.symbol_to_string(t.key) == key)


def wait_for(predicate, timeout_s=60.0):
    """Polls predicate() until true; returns its last value (never a timing assertion)."""
    deadline = time.monotonic() + timeout_s
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)
    return predicate()


def in_child(body, deadline_s=30.0):
    """Runs body() in a forked process; returns its (picklable) result. Raises
    AssertionError when it runs past the deadline (killed), crashes or raises."""
    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)

    def child():
        try:
            sender.send(("ok", body()))
        except BaseException:  # noqa: B902 - everything goes back to the parent
            sender.send(("error", traceback.format_exc()))
        finally:
            sender.close()
            os._exit(0)  # no interpreter teardown with GNU Radio threads around

    proc = ctx.Process(target=child)
    proc.start()
    sender.close()
    try:
        if not receiver.poll(deadline_s):
            proc.kill()
            raise AssertionError(f"the flowgraph hung (no result within {deadline_s} s)")
        try:
            kind, value = receiver.recv()
        except EOFError:
            proc.join()
            raise AssertionError(f"the flowgraph crashed (exit code {proc.exitcode})")
    finally:
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
    if kind != "ok":
        raise AssertionError("the flowgraph raised:\n" + value)
    return value


def collect_pdus(dec, pdus, expected_out, settle_s=0.0, timeout_s=60.0):
    """Queues the PDUs on dec's "in" port, runs a flowgraph until expected_out PDUs came
    out of "out" (timeout_s at most), then settle_s longer to see extra ones; returns
    the messages."""
    sink = blocks.message_debug()
    tb = gr.top_block()
    tb.msg_connect((dec, "out"), (sink, "store"))
    for pdu in pdus:
        dec.to_basic_block()._post(pmt.intern("in"), pdu)
    tb.start()
    wait_for(lambda: sink.num_messages() >= expected_out, timeout_s)
    time.sleep(settle_s)
    tb.stop()
    tb.wait()
    return [sink.get_message(i) for i in range(sink.num_messages())]


def run_pdus(make, pdus, expected_out, deadline_s=30.0):
    """collect_pdus() on make()'s block in a forked child (a hang or crash fails).
    Returns (PDUs as (metadata, vector type, items)), decoded, dropped)."""

    def body():
        dec = make()
        out = []
        for msg in collect_pdus(dec, pdus, expected_out, settle_s=0.2, timeout_s=10.0):
            vec = pmt.cdr(msg)
            kind = "u8" if pmt.is_u8vector(vec) else "f32" if pmt.is_f32vector(vec) else "?"
            out.append((pmt.write_string(pmt.car(msg)), kind,
                        list(pmt.to_python(vec)) if kind != "?" else None))
        return out, dec.decoded_frames(), dec.dropped_frames()

    return in_child(body, deadline_s)
