/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda_utils.h"
#include <cuda.h> // driver types only: the calls come through cudaGetDriverEntryPoint
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>

namespace gpufec {
namespace cuda {

void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line)
{
    // The failed call also set the thread's last error; cleared so that a later check
    // on this thread (GPUFEC_CUDA_CHECK_LAUNCH) does not report it again. A sticky
    // error (the context is lost) stays in every later call's result anyway.
    cudaGetLastError();
    std::ostringstream msg;
    msg << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err)
        << ") in " << what << " at " << file << ":" << line;
    throw gpufec::error(msg.str());
}

namespace {

std::string mib(size_t bytes)
{
    std::ostringstream s;
    s.precision(1);
    s << std::fixed << double(bytes) / double(1 << 20) << " MiB";
    return s.str();
}

__global__ void empty_kernel_for_test() {}

} // namespace

void device_memory_info(size_t& free_bytes, size_t& total_bytes)
{
    GPUFEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
}

void* allocate_device_bytes(size_t bytes)
{
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaSuccess)
        return p;
    cudaGetLastError(); // an allocation failure is not sticky: clear it
    int device = -1;
    cudaGetDevice(&device);
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    std::ostringstream msg;
    msg << "cannot allocate " << mib(bytes) << " of device memory on cuda:" << device
        << " (" << mib(free_bytes) << " free of " << mib(total_bytes)
        << "): " << cudaGetErrorName(err) << "; use smaller batches (max_batch_frames)";
    throw gpufec::error(msg.str());
}

void* allocate_pinned_bytes(size_t bytes)
{
    void* p = nullptr;
    const cudaError_t err = cudaMallocHost(&p, bytes);
    if (err == cudaSuccess)
        return p;
    cudaGetLastError();
    std::ostringstream msg;
    msg << "cannot allocate " << mib(bytes)
        << " of pinned host memory: " << cudaGetErrorName(err)
        << "; use smaller batches (max_batch_frames)";
    throw gpufec::error(msg.str());
}

namespace {
__global__ void gpu_hold_kernel(unsigned long long nanoseconds)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(500);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < nanoseconds);
}
} // namespace

void enqueue_gpu_hold(cudaStream_t s, unsigned microseconds)
{
    gpu_hold_kernel<<<1, 1, 0, s>>>(1000ull * microseconds);
    GPUFEC_CUDA_CHECK_LAUNCH();
}

void launch_failing_kernel_for_test(cudaStream_t stream)
{
    empty_kernel_for_test<<<1, 4096, 0, stream>>>(); // > 1024 threads: refused
    GPUFEC_CUDA_CHECK(cudaGetLastError());
    throw gpufec::error("launch_failing_kernel_for_test: the launch was not refused");
}

namespace {

//! The driver function `name` (its CUDA 12.0 form on newer runtimes), null when the
//! driver lacks it. Through the runtime, so that the library needs no libcuda to load
//! on a machine without a GPU.
void* driver_function(const char* name)
{
    void* fn = nullptr;
#if CUDART_VERSION >= 12050
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found);
    const bool found_it = found == cudaDriverEntryPointSuccess;
#elif CUDART_VERSION >= 12000
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &found);
    const bool found_it = found == cudaDriverEntryPointSuccess;
#else
    const cudaError_t err = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault);
    const bool found_it = true;
#endif
    if (err != cudaSuccess)
        cudaGetLastError(); // not sticky: clear it
    return err == cudaSuccess && found_it ? fn : nullptr;
}

// The few driver calls the guard needs (cuda.h's types; the functions come from the
// entry points above, not from linking libcuda).
struct driver_calls {
    CUresult (*ctx_get_current)(CUcontext* ctx) = nullptr;
    CUresult (*ctx_set_current)(CUcontext ctx) = nullptr;
    CUresult (*device_get)(CUdevice* dev, int ordinal) = nullptr;
    CUresult (*primary_ctx_get_state)(CUdevice dev,
                                      unsigned* flags,
                                      int* active) = nullptr;
    bool contexts() const { return ctx_get_current && ctx_set_current; }
};

const driver_calls& driver()
{
    static const driver_calls calls = [] {
        driver_calls c;
        c.ctx_get_current = reinterpret_cast<decltype(c.ctx_get_current)>(
            driver_function("cuCtxGetCurrent"));
        c.ctx_set_current = reinterpret_cast<decltype(c.ctx_set_current)>(
            driver_function("cuCtxSetCurrent"));
        c.device_get =
            reinterpret_cast<decltype(c.device_get)>(driver_function("cuDeviceGet"));
        c.primary_ctx_get_state = reinterpret_cast<decltype(c.primary_ctx_get_state)>(
            driver_function("cuDevicePrimaryCtxGetState"));
        return c;
    }();
    return calls;
}

//! The thread's current context (null: none, or the driver would not say).
CUcontext current_context()
{
    CUcontext ctx = nullptr;
    if (driver().ctx_get_current(&ctx) != CUDA_SUCCESS)
        ctx = nullptr;
    return ctx;
}

} // namespace

bool thread_has_context()
{
    if (!driver().contexts())
        return true; // unknown: the guard then behaves as before (device restore)
    return current_context() != nullptr;
}

bool primary_context_active(int device)
{
    const driver_calls& d = driver();
    if (!d.device_get || !d.primary_ctx_get_state)
        throw gpufec::error("primary_context_active: the CUDA driver's "
                            "cuDevicePrimaryCtxGetState is not available");
    CUdevice dev = 0;
    unsigned flags = 0;
    int active = 0;
    if (d.device_get(&dev, device) != CUDA_SUCCESS ||
        d.primary_ctx_get_state(dev, &flags, &active) != CUDA_SUCCESS)
        throw gpufec::error("primary_context_active: no CUDA device " +
                            std::to_string(device));
    return active != 0;
}

int current_device()
{
    int device = 0;
    GPUFEC_CUDA_CHECK(cudaGetDevice(&device));
    return device;
}

// Returns the CUDA error that stopped it (cudaSuccess when the device is current).
cudaError_t device_guard::enter(int device)
{
    if (driver().contexts()) {
        // The thread's own context (primary or not, or none) is what comes back.
        const CUcontext before = current_context();
        if (before) {
            int now = -1;
            const cudaError_t err = cudaGetDevice(&now);
            if (err != cudaSuccess)
                return err;
            if (now == device)
                return cudaSuccess;
        }
        const cudaError_t err = cudaSetDevice(device);
        if (err != cudaSuccess)
            return err;
        d_saved = before;
        d_undo = undo::context;
        return cudaSuccess;
    }
    // No driver entry points: the runtime's device, as before (a thread without a
    // context then gets device 0's).
    const cudaError_t err = cudaGetDevice(&d_prev);
    if (err != cudaSuccess || d_prev == device)
        return err;
    const cudaError_t set = cudaSetDevice(device);
    if (set == cudaSuccess)
        d_undo = undo::device;
    return set;
}

device_guard::device_guard(int device)
{
    GPUFEC_CUDA_CHECK(enter(device));
    d_ok = true;
}

device_guard::device_guard(int device, std::nothrow_t) noexcept
{
    d_ok = enter(device) == cudaSuccess;
    if (!d_ok)
        cudaGetLastError();
}

device_guard::~device_guard()
{
    if (d_undo == undo::context)
        driver().ctx_set_current(static_cast<CUcontext>(d_saved));
    else if (d_undo == undo::device)
        cudaSetDevice(d_prev);
}

size_t max_block_smem(int device)
{
    int optin = 0;
    GPUFEC_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    size_t limit = static_cast<size_t>(optin);
    if (const char* cap = std::getenv("GPUFEC_TEST_MAX_SMEM")) {
        char* end = nullptr;
        const unsigned long long v = std::strtoull(cap, &end, 10);
        if (end == cap || *end != '\0' || v < 48 * 1024)
            throw error(std::string("GPUFEC_TEST_MAX_SMEM = \"") + cap +
                        "\"; allowed: a byte count of at least 49152");
        limit = std::min<size_t>(limit, v);
    }
    return limit;
}

void raise_dynamic_smem_limit(const void* kernel, size_t bytes)
{
    static std::mutex lock;
    const std::lock_guard<std::mutex> hold(lock);
    cudaFuncAttributes now{};
    GPUFEC_CUDA_CHECK(cudaFuncGetAttributes(&now, kernel));
    int device = 0;
    GPUFEC_CUDA_CHECK(cudaGetDevice(&device));
    const size_t limit = max_block_smem(device);
    if (bytes + now.sharedSizeBytes > limit)
        throw error("a kernel needs " + std::to_string(bytes + now.sharedSizeBytes) +
                    " bytes of shared memory per block; CUDA device " +
                    std::to_string(device) + " allows " + std::to_string(limit));
    if (static_cast<size_t>(now.maxDynamicSharedSizeBytes) >= bytes)
        return;
    GPUFEC_CUDA_CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

bool event::query() const
{
    cudaError_t err = cudaEventQuery(d_e);
    if (err == cudaSuccess)
        return true;
    if (err == cudaErrorNotReady)
        return false;
    throw_cuda_error(err, "cudaEventQuery", __FILE__, __LINE__);
}

float event::elapsed_ms_since(const event& start) const
{
    float ms = 0.f;
    GPUFEC_CUDA_CHECK(cudaEventElapsedTime(&ms, start.d_e, d_e));
    return ms;
}

std::string device_name(int device)
{
    require_device(device);
    cudaDeviceProp prop;
    GPUFEC_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return prop.name;
}

void require_device(int device)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess)
        count = 0;
    if (device < 0 || device >= count) {
        std::ostringstream msg;
        msg << "CUDA device " << device << " is not available: ";
        if (count == 0)
            msg << "no CUDA device found (" << cudaGetErrorString(err)
                << "); use backend \"cpu\" or \"auto\"";
        else
            msg << "allowed devices are 0.." << count - 1;
        throw gpufec::error(msg.str());
    }
}

int device_count()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); // clear the sticky "no device" status
        return 0;
    }
    return count;
}

namespace {
__global__ void spin_kernel(long long cycles, long long* sink)
{
    const long long start = clock64();
    long long now = start;
    while (now - start < cycles)
        now = clock64();
    if (threadIdx.x == 0 && sink)
        *sink = now - start;
}
} // namespace

double measure_sm_clock_mhz(const stream& s, long long cycles)
{
    spin_kernel<<<1, 32, 0, s.get()>>>(cycles / 100, nullptr); // warm-up
    GPUFEC_CUDA_CHECK_LAUNCH();
    event start(true), stop(true);
    start.record(s.get());
    spin_kernel<<<1, 32, 0, s.get()>>>(cycles, nullptr);
    GPUFEC_CUDA_CHECK_LAUNCH();
    stop.record(s.get());
    stop.synchronize();
    return double(cycles) / (double(stop.elapsed_ms_since(start)) * 1e3);
}

} // namespace cuda

} // namespace gpufec
