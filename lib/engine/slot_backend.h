/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: what the engine needs from a backend: per-slot staging memory and an
// asynchronous "run this slot" with completion queries. CPU: worker threads; CUDA
// (cuda_slot_backend.cc): pinned staging, device buffers, one stream per slot, frame
// table and status mirrored to the device, an event per slot.
#ifndef INCLUDED_GPUFEC_SLOT_BACKEND_H
#define INCLUDED_GPUFEC_SLOT_BACKEND_H

#include <gpufec/batch_decoder.h>
#include <gpufec/engine.h>
#include <memory>

namespace gpufec {

//! What one launch moves and runs.
struct slot_launch {
    size_t num_frames = 0;
    size_t input_bytes = 0;  //!< staged host input to upload (0: input is on the device)
    size_t aux_items = 0;    //!< staged host channel entries to upload
    size_t output_bytes = 0; //!< output produced
    bool output_to_host = true;    //!< false: output stays in device memory
    const uint64_t* ids = nullptr; //!< the frames' caller ids (frame_batch::ids)
    size_t side_bytes = 0;         //!< side output produced
};

class slot_backend
{
public:
    virtual ~slot_backend() = default;
    //! Host staging of slot i (pinned for CUDA), sized for the engine's batch_limits:
    //! input bytes in the stage's input_format, channel entries, output bytes.
    virtual uint8_t* host_input(int slot) = 0;
    virtual cfloat* host_aux(int slot) = 0; //!< null unless the input is complex_float
    virtual uint8_t* host_output(int slot) = 0;
    virtual frame_extent* host_frames(int slot) = 0;
    virtual frame_status* host_status(int slot) = 0;
    //! Soft output of slot i (8 floats per output byte), null unless limits.soft_output.
    virtual float* host_soft(int slot) = 0;
    //! Side output of slot i (limits.max_side_bytes), null when the stage has none.
    virtual uint8_t* host_side(int slot) = 0;

    //! Device buffers of slot i (CUDA; null on the CPU backend).
    virtual uint8_t* device_input(int /*slot*/) { return nullptr; }
    virtual cfloat* device_aux(int /*slot*/) { return nullptr; }
    virtual uint8_t* device_output(int /*slot*/) { return nullptr; }
    virtual float* device_soft(int /*slot*/) { return nullptr; }
    virtual uint8_t* device_side(int /*slot*/) { return nullptr; }
    /*!
     * Enqueues, on slot i's stream, a copy of `items` items of device-resident input to
     * item offset `at` of the slot's device input: int8/int4/complex bytes as they are
     * (int8 LLRs negated with saturation when `negate`), or float LLRs quantized on the
     * device to the stage's input format with `scale` (negative: negated).
     * Throws gpufec::error on the CPU backend.
     */
    virtual void stage_device_input(int slot,
                                    size_t at,
                                    const void* src,
                                    size_t items,
                                    bool src_is_float,
                                    float scale,
                                    bool negate) = 0;
    virtual void
    stage_device_aux(int slot, size_t at, const cfloat* src, size_t items) = 0;

    //! Starts running slot i asynchronously (frames and input staged by the caller).
    virtual void launch(int slot, const slot_launch& what) = 0;
    //! Non-blocking completion test; rethrows a decode error of that slot.
    virtual bool done(int slot) = 0;
    //! Blocks until slot i is complete; rethrows a decode error of that slot.
    virtual void wait(int slot) = 0;
};

//! Points the batch's typed input/output members at a slot's buffers (host or device).
inline void set_batch_io(frame_batch& batch,
                         const batch_decoder& stage,
                         const uint8_t* input,
                         const cfloat* aux,
                         uint8_t* output)
{
    switch (stage.input()) {
    case input_format::llr_int8:
        batch.in = reinterpret_cast<const llr8_t*>(input);
        break;
    case input_format::llr_int4:
        batch.in_int4 = input;
        break;
    case input_format::complex_float:
        batch.samples = reinterpret_cast<const cfloat*>(input);
        batch.channels = aux;
        break;
    case input_format::none:
        break;
    }
    if (stage.output() == output_format::packed_bits)
        batch.out = output;
    else if (stage.output() == output_format::llr_int8)
        batch.llrs8_out = reinterpret_cast<llr8_t*>(output);
    else
        batch.llrs_out = reinterpret_cast<float*>(output);
}

std::unique_ptr<slot_backend>
make_cpu_slot_backend(std::shared_ptr<batch_decoder> decoder,
                      const batch_limits& limits,
                      int num_slots,
                      int threads);

#if GPUFEC_HAVE_CUDA
std::unique_ptr<slot_backend>
make_cuda_slot_backend(std::shared_ptr<batch_decoder> decoder,
                       const batch_limits& limits,
                       int num_slots,
                       int device);
#endif

} // namespace gpufec

#endif
