/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: a pair of IEEE halves and its 32-bit pattern, for kernels that mix packed
// half arithmetic with bit operations (sign bits, byte permutes) on the same register.
#ifndef INCLUDED_GPUFEC_CUDA_HALF2_BITS_CUH
#define INCLUDED_GPUFEC_CUDA_HALF2_BITS_CUH

#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

namespace gpufec {
namespace cuda {

__device__ __forceinline__ __half2 as_half2(uint32_t x)
{
    __half2 h;
    memcpy(&h, &x, sizeof h);
    return h;
}
__device__ __forceinline__ uint32_t as_bits(__half2 h)
{
    uint32_t x;
    memcpy(&x, &h, sizeof x);
    return x;
}

} // namespace cuda
} // namespace gpufec

#endif
