/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The one decoder contract (DESIGN.md §2): every algorithm and backend implements it,
// so the engine and the GNU Radio blocks are written once.
#ifndef INCLUDED_GPUFEC_BATCH_DECODER_H
#define INCLUDED_GPUFEC_BATCH_DECODER_H

#include <gpufec/common.h>
#include <cstddef>
#include <functional>
#include <memory>

namespace gpufec {

/*!
 * A batch: int8 LLRs of all frames back to back, packed output bits (MSB first) at
 * each frame's out_offset. `in`/`out` are device pointers for CUDA backends, host
 * pointers for the CPU backend. `frames` and `status` are always host memory
 * (status is written by the time the batch completes).
 */
struct frame_batch {
    const llr8_t* in = nullptr;
    uint8_t* out = nullptr;
    const frame_extent* frames = nullptr;
    size_t num_frames = 0;
    frame_status* status = nullptr;
    /*!
     * Soft output, set only for decoders whose has_soft_output() is true and only when
     * the user asked for it (else null): the a-posteriori LLR of every decoded bit, in
     * the units of the int8 input (L > 0 means bit 0), frame f's bit i at
     * soft_out[8 * frames[f].out_offset + i]. Device memory for CUDA backends.
     */
    float* soft_out = nullptr;
};

/*!
 * Where a batch runs. CUDA: the slot's stream and per-slot workspaces (device and
 * pinned host memory, sized by workspace_bytes(), allocated once by the engine).
 * CPU: `parallel_for` spreads independent work items over the engine's threads.
 */
struct exec_ctx {
    void* stream = nullptr; //!< cudaStream_t (CUDA backends)
    int device = -1;
    void* device_workspace = nullptr;
    void* host_workspace = nullptr; //!< pinned (CUDA) or plain (CPU) host memory
    //! Runs body(i) for i in [0, n) on the engine's worker threads and returns when done.
    std::function<void(size_t n, const std::function<void(size_t)>& body)> parallel_for;
};

//! Sizes a backend needs per slot, for a batch of at most these many frames/items.
struct batch_limits {
    size_t max_frames;
    size_t max_input_items; //!< total LLRs in a batch
    size_t max_output_bytes;
    bool soft_output = false; //!< slots also carry 8 * max_output_bytes soft floats
};

class batch_decoder
{
public:
    virtual ~batch_decoder() = default;

    virtual backend_kind backend() const = 0;
    //! Largest accepted frame, in input LLRs.
    virtual size_t max_input_items_per_frame() const = 0;
    //! Decoded information bits for a frame of `input_items` LLRs; throws gpufec::error
    //! naming the allowed lengths when no frame has exactly that many.
    virtual size_t output_bits_for_input(size_t input_items) const = 0;
    //! Input LLRs of a full-length (default) frame and its decoded bits.
    virtual size_t default_input_items() const = 0;
    virtual size_t default_output_bits() const = 0;
    //! True when decode() can write frame_batch::soft_out.
    virtual bool has_soft_output() const { return false; }
    //! CUDA device the decoder runs on (-1: CPU decoders, or the current device).
    virtual int device() const { return -1; }
    //! Per-slot scratch sizes (bytes), for batches within `limits`.
    virtual size_t device_workspace_bytes(const batch_limits& /*limits*/) const
    {
        return 0;
    }
    virtual size_t host_workspace_bytes(const batch_limits& /*limits*/) const
    {
        return 0;
    }
    //! CPU: decodes now (using ctx.parallel_for). CUDA: enqueues on ctx.stream, returns.
    virtual void decode(const frame_batch& batch, exec_ctx& ctx) = 0;
    //! Short description for logs, e.g. "viterbi K=7 (171,133) r=1/2 on cuda:0".
    virtual std::string name() const = 0;
};

} // namespace gpufec

#endif
