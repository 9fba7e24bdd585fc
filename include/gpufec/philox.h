/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Philox4x32-10 counter-based RNG and portable float maths for Box-Muller, usable in
// host and CUDA device code with IDENTICAL results on both.
//
// Reproducibility rules: every float operation below is one IEEE-754 operation rounded
// to nearest (device: __fadd_rn/__fmul_rn/__fmaf_rn/__fsqrt_rn, which nvcc never fuses
// or splits; host: plain operators and std::fma, which requires the translation unit to
// be compiled without FMA contraction, e.g. -ffp-contract=off as gpufec-core is). A fused
// multiply-add is one correctly rounded operation on both sides, so it halves the
// polynomial work without giving up bit-exactness. Exponent and mantissa handling uses
// integer bit operations, which are exact everywhere. There is no division: the GPU's
// correctly rounded divide is a multi-instruction sequence with a slow path.
#ifndef INCLUDED_GPUFEC_PHILOX_H
#define INCLUDED_GPUFEC_PHILOX_H

#include <cstdint>
#ifndef __CUDA_ARCH__
#include <cmath>
#include <cstring>
#endif

// GPUFEC_HD functions are always inlined, so a caller built for a wider instruction set
// (the CPU source's FMA clone) compiles ffma to one instruction instead of a libm call.
#include <gpufec/host_device.h>

namespace gpufec {
namespace philox {

struct u32x4 {
    uint32_t v[4];
};

constexpr uint32_t mul0 = 0xD2511F53u;
constexpr uint32_t mul1 = 0xCD9E8D57u;
constexpr uint32_t weyl0 = 0x9E3779B9u;
constexpr uint32_t weyl1 = 0xBB67AE85u;

//! Full 64-bit product of two words (one IMAD.WIDE.U32 on the GPU).
GPUFEC_HD uint64_t mul_wide(uint32_t a, uint32_t b)
{
    return static_cast<uint64_t>(a) * b;
}

//! Philox4x32 with 10 rounds (Salmon et al., SC'11; Random123's philox4x32_R(10, ...)).
GPUFEC_HD u32x4 philox4x32_10(u32x4 ctr, uint32_t key0, uint32_t key1)
{
    uint32_t c0 = ctr.v[0], c1 = ctr.v[1], c2 = ctr.v[2], c3 = ctr.v[3];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int round = 0; round < 10; ++round) {
        const uint64_t p0 = mul_wide(mul0, c0), p1 = mul_wide(mul1, c2);
        const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32);
        const uint32_t lo0 = static_cast<uint32_t>(p0);
        const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32);
        const uint32_t lo1 = static_cast<uint32_t>(p1);
        c0 = hi1 ^ c1 ^ key0;
        c2 = hi0 ^ c3 ^ key1;
        c1 = lo1;
        c3 = lo0;
        key0 += weyl0;
        key1 += weyl1;
    }
    return u32x4{ { c0, c1, c2, c3 } };
}

// ---------------------------------------------------------------------------------
// Correctly rounded single operations (never contracted).

GPUFEC_HD float fadd(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
GPUFEC_HD float fsub(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
GPUFEC_HD float fmul(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
//! a * b + c rounded once.
GPUFEC_HD float ffma(float a, float b, float c)
{
#ifdef __CUDA_ARCH__
    return __fmaf_rn(a, b, c);
#elif defined(__GNUC__)
    return __builtin_fmaf(a, b, c); // an instruction where the target has FMA, else fmaf
#else
    return std::fma(a, b, c);
#endif
}
GPUFEC_HD float fsqrt(float a)
{
#ifdef __CUDA_ARCH__
    return __fsqrt_rn(a);
#else
    return std::sqrt(a);
#endif
}
GPUFEC_HD float u32_to_float(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return __uint2float_rn(x);
#else
    return static_cast<float>(x);
#endif
}
GPUFEC_HD float i32_to_float(int32_t x)
{
#ifdef __CUDA_ARCH__
    return __int2float_rn(x);
#else
    return static_cast<float>(x);
#endif
}
GPUFEC_HD uint32_t float_bits(float x)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
#endif
}
GPUFEC_HD float bits_float(uint32_t b)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(b);
#else
    float x;
    std::memcpy(&x, &b, sizeof x);
    return x;
#endif
}

// ---------------------------------------------------------------------------------
// Portable elementary functions (|relative error| ~ 1e-7). Constants are hexadecimal
// float literals, exact on every compiler (no decimal-to-float double rounding).

/*!
 * Natural log of a positive normal float. u = 2^e * m with m in (sqrt(1/2), sqrt(2)];
 * f = m - 1 is exact (Sterbenz) and log(m) = f + f^2 Q(f), Q a degree-8 minimax fit of
 * (log1p(f) - f) / f^2 on that interval (relative error of log(m) below 6e-9 before
 * float rounding). Writing it as f + f (f Q) keeps the relative accuracy as m -> 1.
 * e is converted exactly through the 1.5 * 2^23 magic number (no conversion unit),
 * and e * ln2 is added as ln2_hi + ln2_lo through two fused multiply-adds.
 */
GPUFEC_HD float portable_log(float u)
{
    const uint32_t b = float_bits(u);
    uint32_t biased_e = b >> 23;
    uint32_t mb = (b & 0x007FFFFFu) | 0x3F800000u;
    if (mb > 0x3FB504F3u) { // m > sqrt(2): halve it
        mb -= 0x00800000u;
        biased_e += 1;
    }
    const float f = fsub(bits_float(mb), 1.0f);
    float q = -0x1.38339ap-4f;
    q = ffma(q, f, 0x1.0849bep-3f);
    q = ffma(q, f, -0x1.0f3756p-3f);
    q = ffma(q, f, 0x1.22715ep-3f);
    q = ffma(q, f, -0x1.542766p-3f);
    q = ffma(q, f, 0x1.99a3f6p-3f);
    q = ffma(q, f, -0x1.000426p-2f);
    q = ffma(q, f, 0x1.555550p-2f);
    q = ffma(q, f, -0x1.fffff8p-2f);
    const float log_m = ffma(f, fmul(f, q), f);
    // 0x4B400000 is 1.5 * 2^23, whose ulp is 1: adding e to its bits adds e to its value.
    const float ef = fsub(bits_float(0x4B400000u + biased_e - 127u), 0x1.8p23f);
    const float ln2_hi = 0x1.62e430p-1f;   // float(ln 2)
    const float ln2_lo = -0x1.05c610p-29f; // ln 2 - ln2_hi
    return ffma(ef, ln2_hi, ffma(ef, ln2_lo, log_m));
}

/*!
 * cos and sin of theta = 2*pi * x / 2^32. The angle is reduced exactly in integers to a
 * quadrant q and r in [-1/2, 1/2) with theta = (q + r) * pi/2; Taylor polynomials in r
 * (coefficients (pi/2)^k / k!) then need no argument reduction error term.
 */
GPUFEC_HD void portable_cos_sin_2pi(uint32_t x, float& cos_out, float& sin_out)
{
    const uint32_t w = x + 0x20000000u; // round to the nearest quadrant
    const uint32_t q = w >> 30;
    const int32_t f = static_cast<int32_t>(w & 0x3FFFFFFFu) - 0x20000000;
    const float r = fmul(i32_to_float(f), 0x1.000000p-30f); // 2^-30, exact
    const float r2 = fmul(r, r);
    float sp = 0x1.507834p-13f;         // (pi/2)^9 / 9!
    sp = ffma(sp, r2, -0x1.32d2ccp-8f); // -(pi/2)^7 / 7!
    sp = ffma(sp, r2, 0x1.466bc6p-4f);  // (pi/2)^5 / 5!
    sp = ffma(sp, r2, -0x1.4abbcep-1f); // -(pi/2)^3 / 3!
    sp = ffma(sp, r2, 0x1.921fb6p0f);   // pi/2
    const float s = fmul(sp, r);
    float cp = -0x1.a6d1f2p-16f;        // -(pi/2)^10 / 10!
    cp = ffma(cp, r2, 0x1.e1f506p-11f); // (pi/2)^8 / 8!
    cp = ffma(cp, r2, -0x1.55d3c8p-6f); // -(pi/2)^6 / 6!
    cp = ffma(cp, r2, 0x1.03c1f0p-2f);  // (pi/2)^4 / 4!
    cp = ffma(cp, r2, -0x1.3bd3ccp0f);  // -(pi/2)^2 / 2!
    const float c = ffma(cp, r2, 1.0f);
    // Quadrant q maps (c, s) to (c, s), (-s, c), (-c, -s), (s, -c): selects and sign-bit
    // flips, no branches (lanes of a warp hold random quadrants).
    const bool odd = (q & 1u) != 0;
    cos_out = bits_float(float_bits(odd ? s : c) ^ (((q + 1u) & 2u) << 30));
    sin_out = bits_float(float_bits(odd ? c : s) ^ ((q & 2u) << 30));
}

//! Maps a 32-bit word into (0, 1]: float(x) 2^-32 + 2^-33 (the product is exact); tiny
//! x keep full resolution, so the Box-Muller radius reaches ~6.7 sigma.
GPUFEC_HD float uniform_open(uint32_t x)
{
    return ffma(u32_to_float(x), 0x1.000000p-32f, 0x1.000000p-33f);
}

/*!
 * Box-Muller: two standard normal samples from two words. Radius from `a`
 * (sqrt(-2 ln u), u = uniform_open(a)), angle 2*pi*b/2^32 from `b`;
 * g0 = radius * cos, g1 = radius * sin.
 */
GPUFEC_HD void box_muller(uint32_t a, uint32_t b, float& g0, float& g1)
{
    const float radius = fsqrt(fmul(portable_log(uniform_open(a)), -2.0f));
    float c, s;
    portable_cos_sin_2pi(b, c, s);
    g0 = fmul(radius, c);
    g1 = fmul(radius, s);
}

// ---------------------------------------------------------------------------------
// The AWGN source's frame definition (see awgn_source.h), shared by CPU and CUDA.

constexpr uint32_t stream_info = 0;
constexpr uint32_t stream_noise = 1;

//! Philox block `block` of `stream` for frame `frame` under key = seed.
GPUFEC_HD u32x4 frame_block(uint64_t seed,
                            uint64_t frame,
                            uint32_t block,
                            uint32_t stream)
{
    return philox4x32_10(u32x4{ { block,
                                  static_cast<uint32_t>(frame),
                                  static_cast<uint32_t>(frame >> 32),
                                  stream } },
                         static_cast<uint32_t>(seed),
                         static_cast<uint32_t>(seed >> 32));
}

//! Word w of the info-bit stream: info bit i = bit (i % 32) of word i / 32, and word w
//! is output word w % 4 of Philox block w / 4 of stream 0.
GPUFEC_HD uint32_t info_word(uint64_t seed, uint64_t frame, uint32_t w)
{
    const u32x4 r = frame_block(seed, frame, w >> 2, stream_info);
    switch (w & 3u) {
    case 0:
        return r.v[0];
    case 1:
        return r.v[1];
    case 2:
        return r.v[2];
    default:
        return r.v[3];
    }
}

/*!
 * Standard normals for transmitted coded bits 4q .. 4q+3 of a frame: Philox block q of
 * stream 1 gives words x0..x3; (x0, x1) -> g[0], g[1] and (x2, x3) -> g[2], g[3]
 * through box_muller.
 */
GPUFEC_HD void noise4(uint64_t seed, uint64_t frame, uint32_t q, float g[4])
{
    const u32x4 r = frame_block(seed, frame, q, stream_noise);
    box_muller(r.v[0], r.v[1], g[0], g[1]);
    box_muller(r.v[2], r.v[3], g[2], g[3]);
}

//! LLR of one transmitted bit: y = (1 - 2c) + sigma * g (one fused multiply-add);
//! LLR = y * (2 / sigma^2), the scale rounded to float once by the caller.
GPUFEC_HD float bpsk_llr(uint32_t coded_bit, float g, float sigma, float llr_scale)
{
    return fmul(ffma(sigma, g, coded_bit ? -1.0f : 1.0f), llr_scale);
}

} // namespace philox
} // namespace gpufec

#endif
