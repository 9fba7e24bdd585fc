/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "convert.h"
#include "cuda_utils.h"

namespace gpufec {
namespace cuda {

namespace {

constexpr int threads = 256;

// The host rule of quantize_llrs(): scale, NaN -> 0, clamp to +/-127, round half away
// from zero by truncation plus a fractional correction (compiled without FMA).
__device__ __forceinline__ int quantize_one(float llr, float scale)
{
    float x = llr * scale;
    x = (x == x) ? x : 0.0f;
    x = fminf(fmaxf(x, -127.0f), 127.0f);
    const int t = static_cast<int>(x);
    const float frac = x - static_cast<float>(t);
    return t + (frac >= 0.5f) - (frac <= -0.5f);
}

__device__ __forceinline__ unsigned nibble(int v)
{
    v = min(max(v, -7), 7);
    return static_cast<unsigned>(v) & 0xfu;
}

__global__ void quantize_kernel(const float* in, int8_t* out, size_t n, float scale)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        out[i] = static_cast<int8_t>(quantize_one(in[i], scale));
}

// Frame f's `llrs` values from in + f * llrs to out + f * out_stride (the engine pads
// int8 frames to 4 bytes): a grid row per frame, so no division per item.
__global__ void quantize_frames_kernel(const float* in,
                                       size_t frames,
                                       uint32_t llrs,
                                       int8_t* out,
                                       size_t out_stride,
                                       float scale)
{
    for (size_t f = blockIdx.y; f < frames; f += gridDim.y) {
        const float* src = in + f * llrs;
        int8_t* dst = out + f * out_stride;
        for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < llrs;
             i += gridDim.x * blockDim.x)
            dst[i] = static_cast<int8_t>(quantize_one(src[i], scale));
    }
}

__global__ void quantize_int4_kernel(const float* in, uint8_t* out, size_t n, float scale)
{
    const size_t bytes = (n + 1) / 2;
    for (size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x; j < bytes;
         j += size_t(gridDim.x) * blockDim.x) {
        const unsigned lo = nibble(quantize_one(in[2 * j], scale));
        const unsigned hi =
            2 * j + 1 < n ? nibble(quantize_one(in[2 * j + 1], scale)) : 0;
        out[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
}

__global__ void pack_int4_kernel(const int8_t* in, uint8_t* out, size_t n, int sign)
{
    const size_t bytes = (n + 1) / 2;
    for (size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x; j < bytes;
         j += size_t(gridDim.x) * blockDim.x) {
        const unsigned lo = nibble(sign * in[2 * j]);
        const unsigned hi = 2 * j + 1 < n ? nibble(sign * in[2 * j + 1]) : 0;
        out[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
}

// -x saturated (-(-128) = 127), as the host's negate_llrs().
__global__ void negate_kernel(const int8_t* in, int8_t* out, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        out[i] = static_cast<int8_t>(min(-static_cast<int>(in[i]), 127));
}

unsigned blocks_for(size_t n)
{
    const size_t b = (n + threads - 1) / threads;
    return static_cast<unsigned>(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

} // namespace

void quantize_llrs_async(
    const float* d_in, int8_t* d_out, size_t n, float scale, cudaStream_t stream)
{
    if (n == 0)
        return;
    quantize_kernel<<<blocks_for(n), threads, 0, stream>>>(d_in, d_out, n, scale);
    GPUFEC_CUDA_CHECK_LAUNCH();
}

void quantize_llr_frames_async(const float* d_in,
                               size_t frames,
                               size_t llrs,
                               int8_t* d_out,
                               size_t out_stride,
                               float scale,
                               cudaStream_t stream)
{
    if (frames == 0 || llrs == 0)
        return;
    if (out_stride == llrs) {
        quantize_llrs_async(d_in, d_out, frames * llrs, scale, stream);
        return;
    }
    if (out_stride < llrs || llrs >= (size_t(1) << 31)) // the kernel's 32-bit index
        throw error(
            "quantize_llr_frames_async: out_stride = " + std::to_string(out_stride) +
            " for frames of " + std::to_string(llrs) +
            " LLRs; allowed: out_stride >= llrs, llrs < 2^31");
    const unsigned columns = blocks_for(llrs) < 64 ? blocks_for(llrs) : 64;
    const unsigned rows = static_cast<unsigned>(frames < 65535 ? frames : 65535);
    quantize_frames_kernel<<<dim3(columns, rows), threads, 0, stream>>>(
        d_in, frames, static_cast<uint32_t>(llrs), d_out, out_stride, scale);
    GPUFEC_CUDA_CHECK_LAUNCH();
}

void quantize_llrs_int4_async(
    const float* d_in, uint8_t* d_out, size_t n, float scale, cudaStream_t stream)
{
    if (n == 0)
        return;
    quantize_int4_kernel<<<blocks_for((n + 1) / 2), threads, 0, stream>>>(
        d_in, d_out, n, scale);
    GPUFEC_CUDA_CHECK_LAUNCH();
}

void pack_llrs_int4_async(
    const int8_t* d_in, uint8_t* d_out, size_t n, bool negate, cudaStream_t stream)
{
    if (n == 0)
        return;
    pack_int4_kernel<<<blocks_for((n + 1) / 2), threads, 0, stream>>>(
        d_in, d_out, n, negate ? -1 : 1);
    GPUFEC_CUDA_CHECK_LAUNCH();
}

void negate_llrs_async(const int8_t* d_in, int8_t* d_out, size_t n, cudaStream_t stream)
{
    if (n == 0)
        return;
    negate_kernel<<<blocks_for(n), threads, 0, stream>>>(d_in, d_out, n);
    GPUFEC_CUDA_CHECK_LAUNCH();
}

} // namespace cuda
} // namespace gpufec
