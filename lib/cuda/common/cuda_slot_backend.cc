/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA slot backend: per slot pinned host staging, device buffers and decoder
// workspaces allocated once, one non-blocking stream and one event per slot. A launch
// enqueues H2D copy -> decoder -> D2H copy -> event record and returns at once.
#include "cuda_utils.h"
#include "engine/slot_backend.h"
#include <exception>
#include <mutex>
#include <vector>

namespace gpufec {

namespace {

class cuda_slot_backend : public slot_backend
{
public:
    cuda_slot_backend(std::shared_ptr<batch_decoder> decoder,
                      const batch_limits& limits,
                      int num_slots,
                      int device)
        : d_decoder(std::move(decoder)), d_device(device)
    {
        cuda::device_guard guard(d_device);
        const size_t device_workspace = d_decoder->device_workspace_bytes(limits);
        const size_t host_workspace = d_decoder->host_workspace_bytes(limits);
        d_slots.reserve(size_t(num_slots));
        for (int i = 0; i < num_slots; ++i) {
            d_slots.push_back(std::make_unique<slot>());
            slot& s = *d_slots.back();
            s.host_input.reset(limits.max_input_items);
            s.host_output.reset(limits.max_output_bytes);
            s.host_frames.reset(limits.max_frames);
            s.host_status.reset(limits.max_frames);
            s.device_input.reset(limits.max_input_items);
            s.device_output.reset(limits.max_output_bytes);
            if (limits.soft_output) {
                s.host_soft.reset(8 * limits.max_output_bytes);
                s.device_soft.reset(8 * limits.max_output_bytes);
            }
            s.device_workspace.reset(device_workspace);
            s.host_workspace.reset(host_workspace);
            s.ctx.stream = s.stream.get();
            s.ctx.device = d_device;
            s.ctx.device_workspace = s.device_workspace.get();
            s.ctx.host_workspace = s.host_workspace.get();
            // CUDA decoders enqueue work; any host-side loop they run stays on this
            // thread.
            s.ctx.parallel_for = [](size_t n, const std::function<void(size_t)>& body) {
                for (size_t k = 0; k < n; ++k)
                    body(k);
            };
        }
    }

    ~cuda_slot_backend() override
    {
        // Work still queued reads and writes our buffers: let it finish before they go.
        // Destructor: errors cannot be reported, so the calls are not checked.
        int previous = -1;
        cudaGetDevice(&previous);
        cudaSetDevice(d_device);
        for (auto& s : d_slots)
            cudaStreamSynchronize(s->stream.get());
        if (previous >= 0)
            cudaSetDevice(previous);
    }

    llr8_t* host_input(int index) override { return get(index).host_input.get(); }
    uint8_t* host_output(int index) override { return get(index).host_output.get(); }
    frame_extent* host_frames(int index) override { return get(index).host_frames.get(); }
    frame_status* host_status(int index) override { return get(index).host_status.get(); }
    float* host_soft(int index) override { return get(index).host_soft.get(); }

    void
    launch(int index, size_t num_frames, size_t input_items, size_t output_bytes) override
    {
        slot& s = get(index);
        cuda::device_guard guard(d_device);
        s.launch_error = nullptr;
        try {
            const cudaStream_t stream = s.stream.get();
            if (input_items > 0)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.device_input.get(),
                                                  s.host_input.get(),
                                                  input_items * sizeof(llr8_t),
                                                  cudaMemcpyHostToDevice,
                                                  stream));
            frame_batch batch;
            batch.in = s.device_input.get();
            batch.out = s.device_output.get();
            batch.frames = s.host_frames.get();
            batch.num_frames = num_frames;
            batch.status = s.host_status.get();
            batch.soft_out = s.device_soft.get();
            d_decoder->decode(batch, s.ctx);
            if (output_bytes > 0 && s.device_soft.get())
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.host_soft.get(),
                                                  s.device_soft.get(),
                                                  8 * output_bytes * sizeof(float),
                                                  cudaMemcpyDeviceToHost,
                                                  stream));
            if (output_bytes > 0)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.host_output.get(),
                                                  s.device_output.get(),
                                                  output_bytes,
                                                  cudaMemcpyDeviceToHost,
                                                  stream));
        } catch (...) {
            // Reported by done()/wait() like an asynchronous failure, so the engine has
            // one error path; the event below still marks the end of what was enqueued.
            s.launch_error = std::current_exception();
        }
        s.done_event.record(s.stream.get());
    }

    bool done(int index) override
    {
        slot& s = get(index);
        cuda::device_guard guard(d_device);
        if (!s.done_event.query())
            return false;
        if (s.launch_error)
            std::rethrow_exception(s.launch_error);
        return true;
    }

    void wait(int index) override
    {
        slot& s = get(index);
        cuda::device_guard guard(d_device);
        s.done_event.synchronize();
        if (s.launch_error)
            std::rethrow_exception(s.launch_error);
    }

private:
    struct slot {
        cuda::pinned_buffer<llr8_t> host_input;
        cuda::pinned_buffer<uint8_t> host_output;
        cuda::pinned_buffer<frame_extent> host_frames;
        cuda::pinned_buffer<frame_status> host_status;
        cuda::device_buffer<llr8_t> device_input;
        cuda::device_buffer<uint8_t> device_output;
        cuda::pinned_buffer<float> host_soft; //!< empty unless soft output is on
        cuda::device_buffer<float> device_soft;
        cuda::device_buffer<uint8_t> device_workspace;
        cuda::pinned_buffer<uint8_t> host_workspace;
        cuda::stream stream;
        cuda::event done_event;
        exec_ctx ctx;
        std::exception_ptr launch_error;
    };

    slot& get(int index)
    {
        if (index < 0 || size_t(index) >= d_slots.size())
            throw error("cuda slot backend: slot " + std::to_string(index) +
                        " out of range 0.." + std::to_string(d_slots.size() - 1));
        return *d_slots[size_t(index)];
    }

    std::shared_ptr<batch_decoder> d_decoder;
    int d_device;
    // unique_ptr: streams and events are not movable, and their addresses stay fixed.
    std::vector<std::unique_ptr<slot>> d_slots;
};

} // namespace

std::unique_ptr<slot_backend>
make_cuda_slot_backend(std::shared_ptr<batch_decoder> decoder,
                       const batch_limits& limits,
                       int num_slots,
                       int device)
{
    if (!decoder)
        throw error("cuda slot backend needs a decoder (got a null pointer)");
    if (num_slots < 1)
        throw error("cuda slot backend: num_slots must be >= 1, got " +
                    std::to_string(num_slots));
    if (device < 0)
        GPUFEC_CUDA_CHECK(cudaGetDevice(&device)); // decoder did not say: the current one
    cuda::require_device(device);
    return std::make_unique<cuda_slot_backend>(
        std::move(decoder), limits, num_slots, device);
}

} // namespace gpufec
