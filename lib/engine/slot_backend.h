/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: what the engine needs from a backend: per-slot host staging memory and an
// asynchronous "decode this slot" with completion queries. CPU: worker threads;
// CUDA: pinned memory, one stream per slot, H2D -> decode -> D2H, an event per slot.
#ifndef INCLUDED_GPUFEC_SLOT_BACKEND_H
#define INCLUDED_GPUFEC_SLOT_BACKEND_H

#include <gpufec/batch_decoder.h>
#include <memory>

namespace gpufec {

class slot_backend
{
public:
    virtual ~slot_backend() = default;
    //! Host staging of slot i (pinned for CUDA), sized for the engine's batch_limits.
    virtual llr8_t* host_input(int slot) = 0;
    virtual uint8_t* host_output(int slot) = 0;
    virtual frame_extent* host_frames(int slot) = 0;
    virtual frame_status* host_status(int slot) = 0;
    //! Soft output of slot i (8 floats per output byte), null unless limits.soft_output.
    virtual float* host_soft(int slot) = 0;
    //! Starts decoding slot i asynchronously (frames, input staged by the caller).
    virtual void
    launch(int slot, size_t num_frames, size_t input_items, size_t output_bytes) = 0;
    //! Non-blocking completion test; rethrows a decode error of that slot.
    virtual bool done(int slot) = 0;
    //! Blocks until slot i is complete; rethrows a decode error of that slot.
    virtual void wait(int slot) = 0;
};

std::unique_ptr<slot_backend>
make_cpu_slot_backend(std::shared_ptr<batch_decoder> decoder,
                      const batch_limits& limits,
                      int num_slots,
                      int threads);

//! Throws gpufec::error when built without CUDA.
std::unique_ptr<slot_backend>
make_cuda_slot_backend(std::shared_ptr<batch_decoder> decoder,
                       const batch_limits& limits,
                       int num_slots,
                       int device);

} // namespace gpufec

#endif
