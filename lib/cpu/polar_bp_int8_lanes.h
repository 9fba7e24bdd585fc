/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// polar_bp_int8's arithmetic on eight messages at a time in 16-bit lanes, for the CPU
// BP decoder's stages of span 8 and more (host code only: GNU vector extensions).
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
} // namespace gpufec::polar_bp_lanes

#endif
