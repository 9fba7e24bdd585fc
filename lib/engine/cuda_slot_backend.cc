/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA slot backend: per slot pinned host staging, device buffers, a device mirror of
// the frame table and statuses, and decoder workspaces, all allocated once; one
// non-blocking stream and one event per slot. A launch enqueues
//   [H2D input] -> H2D frame table + statuses -> stage -> D2H statuses -> [D2H output]
// -> event record, and returns at once. Input already on the device is copied (or
// quantized) on the same stream by stage_device_input() before the launch.
#include "cuda/common/convert.h"
#include "cuda/common/cuda_utils.h"
#include "engine/fault_injection.h"
#include "engine/slot_backend.h"
#include <unistd.h>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace gpufec {

namespace testing {
namespace {

std::atomic<int> armed_kind{ int(cuda_fault::none) };
std::atomic<uint64_t> launches_left{ 0 };
std::once_flag environment_read;

void read_environment()
{
    const char* value = std::getenv("GPUFEC_TEST_CUDA_FAULT");
    if (!value || !*value)
        return;
    const std::string text(value);
    const size_t colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    const uint64_t launch = colon == std::string::npos
                                ? 1
                                : std::strtoull(text.c_str() + colon + 1, nullptr, 10);
    if (kind == "copy")
        arm_cuda_fault(cuda_fault::copy, launch);
    else if (kind == "kernel")
        arm_cuda_fault(cuda_fault::kernel, launch);
    else
        throw error("GPUFEC_TEST_CUDA_FAULT=\"" + text +
                    "\": allowed: copy:N or kernel:N (N = launch number, from 1)");
}

//! The fault this launch must raise (none for all but the armed one).
cuda_fault take_fault()
{
    std::call_once(environment_read, read_environment);
    if (armed_kind.load() == int(cuda_fault::none))
        return cuda_fault::none;
    if (launches_left.fetch_sub(1) != 1)
        return cuda_fault::none;
    return cuda_fault(armed_kind.exchange(int(cuda_fault::none)));
}

} // namespace

void arm_cuda_fault(cuda_fault kind, uint64_t launch)
{
    launches_left.store(kind == cuda_fault::none ? 0 : std::max<uint64_t>(1, launch));
    armed_kind.store(int(kind));
}

} // namespace testing

namespace {

//! Sets `bytes` of device memory at `ptr` (null when nothing was allocated) to zero.
void zero_device(void* ptr, size_t bytes)
{
    if (ptr && bytes > 0)
        GPUFEC_CUDA_CHECK(cudaMemset(ptr, 0, bytes));
}

std::string mib(size_t bytes)
{
    std::ostringstream s;
    s.precision(1);
    s << std::fixed << double(bytes) / double(1 << 20) << " MiB";
    return s.str();
}

/*!
 * Refuses, before allocating anything, an engine whose slots would not fit: device
 * memory against what is free now, pinned host memory against half the RAM (pinned
 * pages cannot be swapped; asking for more stalls the host rather than failing).
 */
void check_slot_memory(const batch_decoder& decoder,
                       const batch_limits& limits,
                       int num_slots,
                       int device,
                       size_t device_per_slot,
                       size_t pinned_per_slot)
{
    const size_t slots = size_t(num_slots);
    size_t free_bytes = 0, total_bytes = 0;
    cuda::device_memory_info(free_bytes, total_bytes);
    std::ostringstream advice;
    advice << " for " << slots << " slots of up to " << limits.max_frames << " frames / "
           << limits.max_input_items << " input items (" << decoder.name()
           << "); lower engine_config.max_batch_frames or max_batch_items (a block's "
              "max_batch_frames)";
    if (device_per_slot > (free_bytes - std::min(free_bytes, size_t(64) << 20)) / slots) {
        throw error("batch_engine needs " + mib(device_per_slot * slots) +
                    " of device memory on cuda:" + std::to_string(device) + ", " +
                    mib(free_bytes) + " of " + mib(total_bytes) + " are free" +
                    advice.str());
    }
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) {
        const size_t ram = size_t(pages) * size_t(page);
        if (pinned_per_slot > ram / 2 / slots)
            throw error("batch_engine needs " + mib(pinned_per_slot * slots) +
                        " of pinned host memory, more than half of the " + mib(ram) +
                        " of RAM" + advice.str());
    }
}

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
        const size_t in_bytes = input_bytes(d_decoder->input(), limits.max_input_items);
        const size_t soft_bytes =
            limits.soft_output ? 8 * limits.max_output_bytes * sizeof(float) : 0;
        const size_t common =
            in_bytes + limits.max_aux_items * sizeof(cfloat) + limits.max_output_bytes +
            limits.max_side_bytes +
            limits.max_frames * (sizeof(frame_extent) + sizeof(frame_status)) +
            soft_bytes;
        check_slot_memory(*d_decoder,
                          limits,
                          num_slots,
                          d_device,
                          common + device_workspace,
                          common + host_workspace);
        d_slots.reserve(size_t(num_slots));
        for (int i = 0; i < num_slots; ++i) {
            d_slots.push_back(std::make_unique<slot>());
            slot& s = *d_slots.back();
            s.host_input.reset(in_bytes);
            s.host_aux.reset(limits.max_aux_items);
            s.host_output.reset(limits.max_output_bytes);
            s.host_frames.reset(limits.max_frames);
            s.host_status.reset(limits.max_frames);
            s.device_input.reset(in_bytes);
            s.device_aux.reset(limits.max_aux_items);
            s.device_output.reset(limits.max_output_bytes);
            s.device_frames.reset(limits.max_frames);
            s.device_status.reset(limits.max_frames);
            if (limits.soft_output) {
                s.host_soft.reset(8 * limits.max_output_bytes);
                s.device_soft.reset(8 * limits.max_output_bytes);
            }
            s.host_side.reset(limits.max_side_bytes);
            s.device_side.reset(limits.max_side_bytes);
            // Decoders leave the alignment gaps between frames' outputs unwritten, and
            // the copy back spans them: zeroed once, so no byte read back is undefined
            // (compute-sanitizer initcheck).
            zero_device(s.device_output.get(), limits.max_output_bytes);
            zero_device(s.device_soft.get(), 8 * limits.max_output_bytes * sizeof(float));
            zero_device(s.device_side.get(), limits.max_side_bytes);
            s.device_workspace.reset(device_workspace);
            s.host_workspace.reset(host_workspace);
            s.ctx.stream = s.stream.get();
            s.ctx.device = d_device;
            s.ctx.device_workspace = s.device_workspace.get();
            s.ctx.host_workspace = s.host_workspace.get();
            // CUDA stages enqueue work; a host-side loop they run stays on this thread.
            s.ctx.parallel_for = [](size_t n,
                                    const std::function<void(size_t, size_t)>& body) {
                for (size_t k = 0; k < n; ++k)
                    body(k, 0);
            };
            s.ctx.workers = 1;
        }
        // The zeroing above runs on the default stream, which the slots' non-blocking
        // streams are not ordered after: done before the first batch.
        GPUFEC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }

    ~cuda_slot_backend() override
    {
        // Work still queued reads and writes our buffers: let it finish before they go.
        // Destructor: errors cannot be reported, so the calls are not checked.
        cuda::device_guard on(d_device, std::nothrow);
        for (auto& s : d_slots)
            if (on.ok())
                cudaStreamSynchronize(s->stream.get());
    }

    uint8_t* host_input(int index) override { return get(index).host_input.get(); }
    cfloat* host_aux(int index) override { return get(index).host_aux.get(); }
    uint8_t* host_output(int index) override { return get(index).host_output.get(); }
    frame_extent* host_frames(int index) override { return get(index).host_frames.get(); }
    frame_status* host_status(int index) override { return get(index).host_status.get(); }
    float* host_soft(int index) override { return get(index).host_soft.get(); }
    uint8_t* host_side(int index) override { return get(index).host_side.get(); }
    uint8_t* device_input(int index) override { return get(index).device_input.get(); }
    cfloat* device_aux(int index) override { return get(index).device_aux.get(); }
    uint8_t* device_output(int index) override { return get(index).device_output.get(); }
    float* device_soft(int index) override { return get(index).device_soft.get(); }
    uint8_t* device_side(int index) override { return get(index).device_side.get(); }

    void stage_device_input(int index,
                            size_t at,
                            const void* src,
                            size_t items,
                            bool src_is_float,
                            float scale,
                            bool negate) override
    {
        slot& s = get(index);
        cuda::device_guard guard(d_device);
        const cudaStream_t stream = s.stream.get();
        uint8_t* base = s.device_input.get();
        switch (d_decoder->input()) {
        case input_format::llr_int8:
            if (src_is_float)
                cuda::quantize_llrs_async(static_cast<const float*>(src),
                                          reinterpret_cast<int8_t*>(base) + at,
                                          items,
                                          scale,
                                          stream);
            else if (negate)
                cuda::negate_llrs_async(static_cast<const int8_t*>(src),
                                        reinterpret_cast<int8_t*>(base) + at,
                                        items,
                                        stream);
            else
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(
                    base + at, src, items, cudaMemcpyDeviceToDevice, stream));
            break;
        case input_format::llr_int4:
            if (src_is_float)
                cuda::quantize_llrs_int4_async(
                    static_cast<const float*>(src), base + at / 2, items, scale, stream);
            else
                cuda::pack_llrs_int4_async(static_cast<const int8_t*>(src),
                                           base + at / 2,
                                           items,
                                           negate,
                                           stream);
            break;
        case input_format::complex_float:
            GPUFEC_CUDA_CHECK(cudaMemcpyAsync(base + at * sizeof(cfloat),
                                              src,
                                              items * sizeof(cfloat),
                                              cudaMemcpyDeviceToDevice,
                                              stream));
            break;
        case input_format::none:
            throw error("cuda slot backend: " + d_decoder->name() +
                        " is a producer and takes no input");
        }
    }

    void stage_device_aux(int index, size_t at, const cfloat* src, size_t items) override
    {
        slot& s = get(index);
        cuda::device_guard guard(d_device);
        GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.device_aux.get() + at,
                                          src,
                                          items * sizeof(cfloat),
                                          cudaMemcpyDeviceToDevice,
                                          s.stream.get()));
    }

    void launch(int index, const slot_launch& what) override
    {
        slot& s = get(index);
        cuda::device_guard guard(d_device);
        s.launch_error = nullptr;
        try {
            const cudaStream_t stream = s.stream.get();
            if (what.input_bytes > 0)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.device_input.get(),
                                                  s.host_input.get(),
                                                  what.input_bytes,
                                                  cudaMemcpyHostToDevice,
                                                  stream));
            if (what.aux_items > 0)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.device_aux.get(),
                                                  s.host_aux.get(),
                                                  what.aux_items * sizeof(cfloat),
                                                  cudaMemcpyHostToDevice,
                                                  stream));
            if (what.num_frames > 0) {
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.device_frames.get(),
                                                  s.host_frames.get(),
                                                  what.num_frames * sizeof(frame_extent),
                                                  cudaMemcpyHostToDevice,
                                                  stream));
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.device_status.get(),
                                                  s.host_status.get(),
                                                  what.num_frames * sizeof(frame_status),
                                                  cudaMemcpyHostToDevice,
                                                  stream));
            }
            switch (testing::take_fault()) {
            case testing::cuda_fault::none:
                break;
            case testing::cuda_fault::copy:
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.device_output.get(),
                                                  s.host_output.get(),
                                                  1,
                                                  static_cast<cudaMemcpyKind>(0x7f),
                                                  stream));
                break;
            case testing::cuda_fault::kernel:
                cuda::launch_failing_kernel_for_test(stream);
                break;
            }
            frame_batch batch;
            set_batch_io(batch,
                         *d_decoder,
                         s.device_input.get(),
                         s.device_aux.get(),
                         s.device_output.get());
            batch.frames = s.host_frames.get();
            batch.num_frames = what.num_frames;
            batch.status = s.host_status.get();
            batch.device_frames = s.device_frames.get();
            batch.device_status = s.device_status.get();
            batch.soft_out = s.device_soft.get();
            batch.side_out = s.device_side.get();
            batch.ids = what.ids;
            d_decoder->decode(batch, s.ctx);
            if (what.num_frames > 0)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.host_status.get(),
                                                  s.device_status.get(),
                                                  what.num_frames * sizeof(frame_status),
                                                  cudaMemcpyDeviceToHost,
                                                  stream));
            if (what.output_to_host && what.output_bytes > 0) {
                if (s.device_soft.get())
                    GPUFEC_CUDA_CHECK(
                        cudaMemcpyAsync(s.host_soft.get(),
                                        s.device_soft.get(),
                                        8 * what.output_bytes * sizeof(float),
                                        cudaMemcpyDeviceToHost,
                                        stream));
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.host_output.get(),
                                                  s.device_output.get(),
                                                  what.output_bytes,
                                                  cudaMemcpyDeviceToHost,
                                                  stream));
            }
            if (what.output_to_host && what.side_bytes > 0)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.host_side.get(),
                                                  s.device_side.get(),
                                                  what.side_bytes,
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
        cuda::pinned_buffer<uint8_t> host_input;
        cuda::pinned_buffer<cfloat> host_aux;
        cuda::pinned_buffer<uint8_t> host_output;
        cuda::pinned_buffer<frame_extent> host_frames;
        cuda::pinned_buffer<frame_status> host_status;
        cuda::device_buffer<uint8_t> device_input;
        cuda::device_buffer<cfloat> device_aux;
        cuda::device_buffer<uint8_t> device_output;
        cuda::device_buffer<frame_extent> device_frames;
        cuda::device_buffer<frame_status> device_status;
        cuda::pinned_buffer<float> host_soft; //!< empty unless soft output is on
        cuda::device_buffer<float> device_soft;
        cuda::pinned_buffer<uint8_t> host_side; //!< empty unless the stage has one
        cuda::device_buffer<uint8_t> device_side;
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
