/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// polar_bp_int8's arithmetic on eight messages at a time in 16-bit lanes, for the CPU
// BP decoder's stages (host code only: GNU vector extensions).
#ifndef GPUFEC_CPU_POLAR_BP_INT8_LANES_H
#define GPUFEC_CPU_POLAR_BP_INT8_LANES_H

#include "cpu/polar_common.h"

#include <cstdint>
#include <cstring>

namespace gpufec::polar_bp_lanes {

// Eight int8 messages at a time in 16-bit lanes (GNU vector extensions: SSE2's
// pminsw / pcmpgtw / pmullw class of instructions, NEON's on ARM): polar_bp_int8's
// arithmetic lane by lane, so the decisions do not change (test_polar_cpu checks every
// message triple). The scalar form, whose int8 -> int widening and saturations the
// compiler does not vectorize, ran the int8 decoder 5x slower than the float one.
using i8x8 = int8_t __attribute__((vector_size(8)));
using i16x8 = int16_t __attribute__((vector_size(16)));
inline i16x8 load8(const int8_t* p)
{
    i8x8 v;
    std::memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, i16x8);
}
inline void store8(int8_t* p, i16x8 v)
{
    const i8x8 n = __builtin_convertvector(v, i8x8);
    std::memcpy(p, &n, sizeof n);
}
inline i16x8 splat8(int16_t v) { return i16x8{} + v; }
//! polar_bp_int8::scaled_sum per lane (b may be an unsaturated sum: |a| <= 127 bounds
//! the minimum, and the sign is the sum's either way).
inline i16x8 scaled_sum8(i16x8 a, i16x8 b, i16x8 c)
{
    const i16x8 zero = splat8(0);
    const i16x8 ma = a < zero ? -a : a, mb = b < zero ? -b : b;
    const i16x8 m = ma < mb ? ma : mb;
    return polar_bp_int8::rne_sixteenths(((a ^ b) < zero ? -m : m) * 15 + c * 16);
}
inline i16x8 saturate8(i16x8 v)
{
    const i16x8 hi = splat8(127), lo = splat8(-127);
    v = v > hi ? hi : v;
    return v < lo ? lo : v;
}

//! The stages of span H = 1, 2, 4 sixteen nodes at a time: their 16 / (2 H) butterfly
//! blocks' top and bottom nodes split into eight lanes each (one shuffle), and the
//! results merged back. Top nodes are those with bit H of the position clear.
using i8x16 = int8_t __attribute__((vector_size(16)));
template <int H>
inline void split16(const int8_t* p, i16x8& top, i16x8& bottom)
{
    static_assert(H == 1 || H == 2 || H == 4, "split16: spans 1, 2, 4");
    i8x16 v;
    std::memcpy(&v, p, sizeof v);
    i8x8 t, b;
    if constexpr (H == 1) {
        t = __builtin_shufflevector(v, v, 0, 2, 4, 6, 8, 10, 12, 14);
        b = __builtin_shufflevector(v, v, 1, 3, 5, 7, 9, 11, 13, 15);
    } else if constexpr (H == 2) {
        t = __builtin_shufflevector(v, v, 0, 1, 4, 5, 8, 9, 12, 13);
        b = __builtin_shufflevector(v, v, 2, 3, 6, 7, 10, 11, 14, 15);
    } else {
        t = __builtin_shufflevector(v, v, 0, 1, 2, 3, 8, 9, 10, 11);
        b = __builtin_shufflevector(v, v, 4, 5, 6, 7, 12, 13, 14, 15);
    }
    top = __builtin_convertvector(t, i16x8);
    bottom = __builtin_convertvector(b, i16x8);
}
template <int H>
inline void merge16(int8_t* p, i16x8 top, i16x8 bottom)
{
    static_assert(H == 1 || H == 2 || H == 4, "merge16: spans 1, 2, 4");
    const i8x8 t = __builtin_convertvector(top, i8x8),
               b = __builtin_convertvector(bottom, i8x8);
    i8x16 v;
    if constexpr (H == 1)
        v = __builtin_shufflevector(
            t, b, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    else if constexpr (H == 2)
        v = __builtin_shufflevector(
            t, b, 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    else
        v = __builtin_shufflevector(
            t, b, 0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15);
    std::memcpy(p, &v, sizeof v);
}
} // namespace gpufec::polar_bp_lanes

#endif
