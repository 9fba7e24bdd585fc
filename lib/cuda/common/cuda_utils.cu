/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda_utils.h"
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
    const bool ok = err == cudaSuccess && found == cudaDriverEntryPointSuccess;
#elif CUDART_VERSION >= 12000
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &found);
    const bool ok = err == cudaSuccess && found == cudaDriverEntryPointSuccess;
#else
    const bool ok = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault) == cudaSuccess;
#endif
    if (!ok) {
        cudaGetLastError(); // not sticky: clear it
        return nullptr;
    }
    return fn;
}

// The few driver calls the guard needs (types as in cuda.h: CUresult is an int enum,
// CUcontext a pointer, CUdevice an int).
struct driver_calls {
    int (*ctx_get_current)(void** ctx) = nullptr;
    int (*ctx_set_current)(void* ctx) = nullptr;
    int (*device_get)(int* dev, int ordinal) = nullptr;
    int (*primary_ctx_get_state)(int dev, unsigned* flags, int* active) = nullptr;
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

} // namespace

bool thread_has_context()
{
    const auto get = driver().ctx_get_current;
    if (!get)
        return true; // unknown: behave as before (restore the runtime's device)
    void* ctx = nullptr;
    return get(&ctx) == 0 && ctx != nullptr;
}

bool primary_context_active(int device)
{
    const driver_calls& d = driver();
    if (!d.device_get || !d.primary_ctx_get_state)
        throw gpufec::error("primary_context_active: the CUDA driver's "
                            "cuDevicePrimaryCtxGetState is not available");
    int dev = 0;
    unsigned flags = 0;
    int active = 0;
    if (d.device_get(&dev, device) != 0 ||
        d.primary_ctx_get_state(dev, &flags, &active) != 0)
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

device_guard::device_guard(int device) : d_device(device)
{
    const bool had_context = thread_has_context();
    if (had_context)
        GPUFEC_CUDA_CHECK(cudaGetDevice(&d_prev));
    if (had_context && d_prev == device)
        return;
    GPUFEC_CUDA_CHECK(cudaSetDevice(device));
    d_restore = true;
}

device_guard::device_guard(int device, std::nothrow_t) noexcept : d_device(device)
{
    const bool had_context = thread_has_context();
    if (had_context && cudaGetDevice(&d_prev) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    if (had_context && d_prev == device)
        return;
    if (cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    d_restore = true;
}

device_guard::~device_guard()
{
    if (!d_restore)
        return;
    if (d_prev >= 0)
        cudaSetDevice(d_prev);
    else if (const auto set = driver().ctx_set_current)
        set(nullptr); // the thread had no context: it gets none back
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
