#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Shared helpers of the gr-gpufec QA tests (not installed)."""

import time

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
