/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Small RAII helpers for CUDA memory, streams and events; every call is checked.
#ifndef INCLUDED_GPUFEC_CUDA_UTILS_H
#define INCLUDED_GPUFEC_CUDA_UTILS_H

#include <cuda_runtime.h>
#include <gpufec/common.h>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace gpufec {
namespace cuda {

[[noreturn]] void
throw_cuda_error(cudaError_t err, const char* what, const char* file, int line);

#define GPUFEC_CUDA_CHECK(call)                                                       \
    do {                                                                              \
        cudaError_t gpufec_err_ = (call);                                             \
        if (gpufec_err_ != cudaSuccess)                                               \
            ::gpufec::cuda::throw_cuda_error(gpufec_err_, #call, __FILE__, __LINE__); \
    } while (0)

//! Checks the last launch error (no synchronisation) and clears it: a thread's last
//! error outlives the call that set it, and peeking would report it at every later
//! launch on the thread, by any decoder.
#define GPUFEC_CUDA_CHECK_LAUNCH() GPUFEC_CUDA_CHECK(cudaGetLastError())

//! Whether the calling thread has a current CUDA context (the driver's state, read
//! through the runtime's entry points: the library does not link libcuda). A thread
//! that never chose a device has none, and cudaGetDevice() then says 0 all the same.
bool thread_has_context();

//! Whether `device`'s primary context is active in this process (tests: work on one GPU
//! must open no context on another).
bool primary_context_active(int device);

/*!
 * Makes `device` current for the lifetime of the guard, then gives the thread back the
 * context it had: its own (primary or not), or none when it had none. (Restoring
 * "device 0" on a thread that never chose one would open a context on GPU 0, a few
 * hundred MiB and a failure where GPU 0 is exclusive to another process, for work
 * meant for another GPU.) The runtime's own record of the thread's device may stay at
 * `device` (no call resets it without opening a context): a later CUDA call on the
 * thread outside any guard can go there. The nothrow form is for destructors: it
 * ignores CUDA errors, and ok() says whether `device` is current (when not, the caller
 * skips its call rather than run it elsewhere).
 */
class device_guard
{
public:
    explicit device_guard(int device);
    device_guard(int device, std::nothrow_t) noexcept;
    ~device_guard();
    device_guard(const device_guard&) = delete;
    device_guard& operator=(const device_guard&) = delete;
    bool ok() const { return d_ok; }

private:
    cudaError_t enter(int device);
    enum class undo { nothing, context, device };
    undo d_undo = undo::nothing;
    void* d_saved = nullptr; //!< the thread's context before (CUcontext), undo::context
    int d_prev = -1;         //!< the runtime's device before, undo::device
    bool d_ok = false;
};

//! The calling thread's current device (cudaGetDevice, checked).
int current_device();

//! The most shared memory one block may take on `device`, in bytes (the opt-in limit:
//! 227 KiB on Hopper, 163 KiB on A100, 99 KiB on sm_86 and sm_89 GPUs). The decoders
//! size their layouts by it. GPUFEC_TEST_MAX_SMEM=BYTES lowers it, so that a test on a
//! large GPU takes the paths that a smaller one takes.
size_t max_block_smem(int device);

//! Raises the dynamic shared memory that `kernel` may take on the current device to at
//! least `bytes`, never lowering it (thread-safe). The limit belongs to the function,
//! not to a decoder: a decoder built later with smaller frames must not cut the room of
//! one built earlier that launches the same kernel instance. More than max_block_smem()
//! (with the kernel's static shared memory) throws gpufec::error saying both.
void raise_dynamic_smem_limit(const void* kernel, size_t bytes);
template <class... Args>
void raise_dynamic_smem_limit(void (*kernel)(Args...), size_t bytes)
{
    raise_dynamic_smem_limit(reinterpret_cast<const void*>(kernel), bytes);
}

//! cudaMalloc / cudaMallocHost; failures throw gpufec::error saying how much was asked
//! for and (device) how much is free.
void* allocate_device_bytes(size_t bytes);
void* allocate_pinned_bytes(size_t bytes);

//! How device and pinned host memory are obtained and returned. Release runs in
//! destructors (nothing to do on failure), on whatever thread drops the owner: it
//! makes the allocation's device current, so that a thread without a context opens
//! none on GPU 0 to free memory of another GPU.
struct device_memory {
    static void* allocate(size_t bytes) { return allocate_device_bytes(bytes); }
    static void release(void* p, int device) noexcept
    {
        device_guard on(device, std::nothrow);
        if (on.ok()) // else it leaks rather than open a context elsewhere
            cudaFree(p);
    }
};
struct pinned_memory {
    static void* allocate(size_t bytes) { return allocate_pinned_bytes(bytes); }
    static void release(void* p, int device) noexcept
    {
        device_guard on(device, std::nothrow);
        if (on.ok())
            cudaFreeHost(p);
    }
};

//! Free and total memory of the current device, in bytes.
void device_memory_info(size_t& free_bytes, size_t& total_bytes);

/*!
 * Test-only fault injection: enqueues, on `stream`, a kernel launch that CUDA refuses
 * (an invalid block size: cudaErrorInvalidConfiguration, which does not poison the
 * context), and throws the error as a failing kernel would.
 */
void launch_failing_kernel_for_test(cudaStream_t stream);

//! An owning array of T in device or pinned host memory, allocated once by reset().
template <typename T, typename Memory>
class cuda_buffer
{
public:
    cuda_buffer() = default;
    explicit cuda_buffer(size_t n) { reset(n); }
    ~cuda_buffer() { release(); }
    cuda_buffer(cuda_buffer&& o) noexcept
        : d_ptr(std::exchange(o.d_ptr, nullptr)),
          d_size(std::exchange(o.d_size, 0)),
          d_device(o.d_device)
    {
    }
    cuda_buffer& operator=(cuda_buffer&& o) noexcept
    {
        if (this != &o) {
            release();
            d_ptr = std::exchange(o.d_ptr, nullptr);
            d_size = std::exchange(o.d_size, 0);
            d_device = o.d_device;
        }
        return *this;
    }
    //! n elements on the current device (or pinned in its context).
    void reset(size_t n)
    {
        release();
        if (n) {
            d_device = current_device();
            d_ptr = static_cast<T*>(Memory::allocate(n * sizeof(T)));
        }
        d_size = n;
    }
    T* get() const { return d_ptr; }
    size_t size() const { return d_size; }
    size_t bytes() const { return d_size * sizeof(T); }

private:
    void release()
    {
        if (d_ptr)
            Memory::release(d_ptr, d_device);
        d_ptr = nullptr;
        d_size = 0;
    }
    T* d_ptr = nullptr;
    size_t d_size = 0;
    int d_device = 0; //!< where d_ptr was allocated
};

template <typename T>
using device_buffer = cuda_buffer<T, device_memory>;
template <typename T>
using pinned_buffer = cuda_buffer<T, pinned_memory>;

//! A non-blocking stream (never the legacy default stream).
class stream
{
public:
    //! On the current device.
    stream() : d_device(current_device())
    {
        GPUFEC_CUDA_CHECK(cudaStreamCreateWithFlags(&d_s, cudaStreamNonBlocking));
    }
    ~stream()
    {
        if (d_s) {
            device_guard on(d_device, std::nothrow);
            if (on.ok())
                cudaStreamDestroy(d_s);
        }
    }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    cudaStream_t get() const { return d_s; }
    void synchronize() const { GPUFEC_CUDA_CHECK(cudaStreamSynchronize(d_s)); }

private:
    int d_device;
    cudaStream_t d_s = nullptr;
};

class event
{
public:
    //! On the current device.
    explicit event(bool timing = false) : d_device(current_device())
    {
        GPUFEC_CUDA_CHECK(cudaEventCreateWithFlags(
            &d_e, timing ? cudaEventDefault : cudaEventDisableTiming));
    }
    ~event()
    {
        if (d_e) {
            device_guard on(d_device, std::nothrow);
            if (on.ok())
                cudaEventDestroy(d_e);
        }
    }
    event(const event&) = delete;
    event& operator=(const event&) = delete;
    cudaEvent_t get() const { return d_e; }
    void record(cudaStream_t s) { GPUFEC_CUDA_CHECK(cudaEventRecord(d_e, s)); }
    //! True when complete; throws on a CUDA error.
    bool query() const;
    void synchronize() const { GPUFEC_CUDA_CHECK(cudaEventSynchronize(d_e)); }
    //! Milliseconds from `start` to this event (both timing events, both complete).
    float elapsed_ms_since(const event& start) const;

private:
    int d_device;
    cudaEvent_t d_e = nullptr;
};

//! A device buffer holding a copy of `host` (at least one element), copied once and
//! complete on return: cudaMemcpy from pageable memory may return before its DMA ends,
//! and the engine's streams (non-blocking) are not ordered after the default stream.
template <typename T>
void upload(device_buffer<T>& buf, const std::vector<T>& host)
{
    buf.reset(std::max<size_t>(host.size(), 1));
    if (host.empty())
        return;
    GPUFEC_CUDA_CHECK(cudaMemcpy(
        buf.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    GPUFEC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

/*!
 * Kernel-only timing (docs METHOD): run(i) enqueues launch i on `s`; three warm-up
 * launches, then `reps` launches each between two events. Returns the sorted times
 * in milliseconds (median at size() / 2).
 */
template <typename Run>
std::vector<double> time_launches(const stream& s, int reps, Run&& run)
{
    for (int i = 0; i < 3; i++)
        run(i);
    s.synchronize();
    event start(true), stop(true);
    std::vector<double> times;
    for (int r = 0; r < reps; r++) {
        start.record(s.get());
        run(r);
        stop.record(s.get());
        stop.synchronize();
        times.push_back(stop.elapsed_ms_since(start));
    }
    std::sort(times.begin(), times.end());
    return times;
}

/*!
 * Enqueues on `s` a one-thread kernel that spins for `microseconds` of the GPU's global
 * timer. Work enqueued behind it meanwhile starts the moment it ends, so events around
 * that work time the GPU alone: not the host's launch calls, which an idle GPU would
 * otherwise wait for between the start event and the first kernel.
 */
void enqueue_gpu_hold(cudaStream_t s, unsigned microseconds);

/*!
 * Latency timing on the GPU side: like time_launches, but each launch is enqueued
 * behind a hold (enqueue_gpu_hold) that outlasts the host's enqueueing of it (checked:
 * a hold that the host outlasted is doubled and that launch timed again). The times are
 * then the GPU's from the start event to the stop event: the kernels, their gaps and
 * their memsets, without the host's launch overhead, which time_launches includes for
 * an idle GPU. Sorted milliseconds, median at size() / 2.
 */
template <typename Run>
std::vector<double> time_launches_gpu_side(const stream& s, int reps, Run&& run)
{
    for (int i = 0; i < 3; i++)
        run(i);
    s.synchronize();
    event start(true), stop(true);
    std::vector<double> times;
    unsigned hold_us = 200;
    for (int r = 0; r < reps;) {
        enqueue_gpu_hold(s.get(), hold_us);
        const auto t0 = std::chrono::steady_clock::now();
        start.record(s.get());
        run(r);
        stop.record(s.get());
        const auto host_us = std::chrono::duration<double, std::micro>(
                                 std::chrono::steady_clock::now() - t0)
                                 .count();
        stop.synchronize();
        if (host_us > 0.5 * hold_us) { // the GPU may have waited for the host
            if (hold_us >= 100000)
                throw gpufec::error(
                    "time_launches_gpu_side: enqueueing one launch took " +
                    std::to_string(host_us) + " us");
            hold_us *= 2;
            continue;
        }
        times.push_back(stop.elapsed_ms_since(start));
        r++;
    }
    std::sort(times.begin(), times.end());
    return times;
}

/*!
 * Back-to-back timing: `n` launches enqueued one after the other on `s` (each waits for
 * the one before in the stream, none for the host), after a warm-up; returns the mean
 * milliseconds per launch. For single-frame launches this is the latency of a stream
 * of code blocks decoded one at a time, with the GPU kept busy (its clocks up).
 */
template <typename Run>
double time_back_to_back(const stream& s, int n, Run&& run)
{
    for (int i = 0; i < 3; i++)
        run(i);
    event start(true), stop(true);
    start.record(s.get());
    for (int i = 0; i < n; i++)
        run(i);
    stop.record(s.get());
    stop.synchronize();
    return double(stop.elapsed_ms_since(start)) / double(std::max(n, 1));
}

/*!
 * The device side of a kernel-only timing of a block decoder: `num_frames` frames of
 * `in_items` int8 LLRs, frame f being frame f mod (llrs.size() / in_items) of `llrs`,
 * uploaded once, with their frame table and room for `out_bits` decoded bits and a
 * status per frame.
 */
struct timing_batch {
    timing_batch(const std::vector<int8_t>& llrs,
                 size_t in_items,
                 size_t out_bits,
                 size_t num_frames)
        : num_frames(num_frames)
    {
        const size_t distinct = std::max<size_t>(llrs.size() / in_items, 1);
        const size_t out_bytes = aligned_packed_bytes(out_bits);
        std::vector<frame_extent> table(num_frames);
        for (size_t f = 0; f < num_frames; f++)
            table[f] = frame_extent{ (f % distinct) * in_items,
                                     static_cast<uint32_t>(in_items),
                                     f * out_bytes,
                                     static_cast<uint32_t>(out_bits) };
        upload(in, llrs);
        upload(frames, table);
        out.reset(std::max<size_t>(num_frames * out_bytes, 1));
        status.reset(std::max<size_t>(num_frames, 1));
    }
    const llr8_t* llrs() const { return reinterpret_cast<const llr8_t*>(in.get()); }
    //! The mean of the frames' iteration counts after the launches (synchronous).
    double mean_iterations() const
    {
        std::vector<frame_status> st(num_frames);
        if (num_frames)
            GPUFEC_CUDA_CHECK(cudaMemcpy(st.data(),
                                         status.get(),
                                         num_frames * sizeof(frame_status),
                                         cudaMemcpyDeviceToHost));
        double sum = 0;
        for (const frame_status& x : st)
            sum += x.iterations;
        return sum / double(std::max<size_t>(num_frames, 1));
    }

    size_t num_frames;
    device_buffer<int8_t> in;
    device_buffer<frame_extent> frames;
    device_buffer<uint8_t> out;
    device_buffer<frame_status> status;
};

/*!
 * The SM clock (MHz) a single thread block runs at on `s` now: one thread spins for
 * `cycles` clock64() cycles, timed with events. Lightly loaded GPUs may run below
 * their boost clock; single-block latencies are quoted with this figure.
 */
double measure_sm_clock_mhz(const stream& s, long long cycles = 20000000);

//! "NVIDIA H100 80GB HBM3" etc.; throws when the device does not exist.
std::string device_name(int device);
//! Usable CUDA devices (0 without a driver or GPU; never throws).
int device_count();
//! Throws a gpufec::error naming the available devices when `device` is not one.
void require_device(int device);

} // namespace cuda
} // namespace gpufec

#endif
