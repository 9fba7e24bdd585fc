/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the per-value steps of the CPU's layered min-sum arithmetic
// (lib/cpu/min_sum_kernels.h) on the device, shared by the generic and the
// 360-periodic kernels.
#ifndef INCLUDED_GPUFEC_LDPC_MIN_SUM_DEVICE_CUH
#define INCLUDED_GPUFEC_LDPC_MIN_SUM_DEVICE_CUH

#include "cpu/min_sum_kernels.h"

#include <cuda_fp16.h>

namespace gpufec {
namespace cuda {
namespace min_sum_device {

constexpr int app_max = min_sum::app_max; // 32000
constexpr int llr_cap = min_sum::llr_max; // 127

__device__ __forceinline__ int sat_app(int x) { return max(-app_max, min(app_max, x)); }

//! The check message magnitude from a minimum: capped at 127, then scaled.
__device__ __forceinline__ int
scale_minimum(bool normalized, int alpha16, int beta, int m)
{
    m = min(m, llr_cap);
    return normalized ? (m * alpha16) >> 4 : max(m - beta, 0);
}

//! Half arithmetic (ldpc_arithmetic::half): L holds the bits of IEEE halves (integers);
//! L - R and Q + R rounded to nearest even, as the CPU's round_half.
__device__ __forceinline__ int half_add(int16_t bits, int r)
{
    return static_cast<int>(
        __half2float(__hadd(__short_as_half(bits), __int2half_rn(r))));
}
__device__ __forceinline__ int16_t half_bits(int x)
{
    return __half_as_short(__int2half_rn(x)); // x is a half already: exact
}

} // namespace min_sum_device
} // namespace cuda
} // namespace gpufec

#endif
