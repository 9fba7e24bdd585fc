/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda_utils.h"
#include <sstream>

namespace gpufec {
namespace cuda {

void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line)
{
    std::ostringstream msg;
    msg << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err)
        << ") in " << what << " at " << file << ":" << line;
    throw gpufec::error(msg.str());
}

device_guard::device_guard(int device)
{
    GPUFEC_CUDA_CHECK(cudaGetDevice(&d_prev));
    if (device != d_prev)
        GPUFEC_CUDA_CHECK(cudaSetDevice(device));
}

device_guard::~device_guard()
{
    if (d_prev >= 0)
        cudaSetDevice(d_prev);
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

} // namespace cuda

} // namespace gpufec
