/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: a pair of IEEE halves and its 32-bit pattern, for kernels that mix packed
// half arithmetic with bit operations (sign bits, byte permutes) on the same register;
// and the shift-and-add that gathers such sign bits on the FMA pipe.
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

//! acc + (x >> shift) as one IMAD.HI (the FMA pipe, not the ALU pipe's SHF and LOP3);
//! where x's bits do not overlap acc's, the add is an OR. shift: 0..31, a constant after
//! unrolling.
__device__ __forceinline__ uint32_t add_shifted_right(uint32_t x, int shift, uint32_t acc)
{
    if (shift == 0)
        return acc + x;
    uint32_t r;
    asm("mad.hi.u32 %0, %1, %2, %3;"
        : "=r"(r)
        : "r"(x), "r"(1u << (32 - shift)), "r"(acc));
    return r;
}

} // namespace cuda
} // namespace gpufec

#endif
