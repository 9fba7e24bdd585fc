/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// LLR conversions on the device, bit-identical to quantize_llrs() /
// quantize_llrs_int4() / pack_llrs_int4() of <gpufec/common.h>, for input that is
// already in device memory. Each enqueues one kernel on `stream` and returns.
#ifndef INCLUDED_GPUFEC_CUDA_CONVERT_H
#define INCLUDED_GPUFEC_CUDA_CONVERT_H

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

namespace gpufec {
namespace cuda {

void quantize_llrs_async(
    const float* d_in, int8_t* d_out, size_t n, float scale, cudaStream_t stream);
//! `frames` frames of `llrs` floats back to back, frame f quantized to
//! d_out + f * out_stride (out_stride >= llrs).
void quantize_llr_frames_async(const float* d_in,
                               size_t frames,
                               size_t llrs,
                               int8_t* d_out,
                               size_t out_stride,
                               float scale,
                               cudaStream_t stream);
//! d_out receives (n + 1) / 2 bytes; item 2j in the low nibble of byte j.
void quantize_llrs_int4_async(
    const float* d_in, uint8_t* d_out, size_t n, float scale, cudaStream_t stream);
//! int8 -> packed int4 (saturated to +/-7), of -d_in when `negate`.
void pack_llrs_int4_async(
    const int8_t* d_in, uint8_t* d_out, size_t n, bool negate, cudaStream_t stream);
//! d_out = -d_in saturated (-(-128) = 127), as the host's negate_llrs().
void negate_llrs_async(const int8_t* d_in, int8_t* d_out, size_t n, cudaStream_t stream);

} // namespace cuda
} // namespace gpufec

#endif
