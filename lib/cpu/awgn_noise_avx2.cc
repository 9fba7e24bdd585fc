/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The CPU AWGN source's noise, eight Philox blocks (32 samples) at a time in AVX2
// lanes: the operations of philox.h (noise4, box_muller, bpsk_llr) one for one, each
// an IEEE operation rounded to nearest or exact integer work, so the LLRs are bit for
// bit those of the scalar loop and of the CUDA source. The scalar loop spent ~12 ns a
// sample on one core (Philox's 32x32 -> 64-bit products, the polynomial log and
// sin/cos), ~75 % of a BG1 frame's time in the source.
#include "cpu/awgn_noise_avx2.h"

#include <gpufec/philox.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

namespace gpufec {
namespace cpu {
namespace {

#define GPUFEC_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

//! hi and lo words of the 64-bit products m * x per 32-bit lane (mul_wide).
GPUFEC_AVX2 void mul_hi_lo(__m256i x, __m256i m, __m256i& hi, __m256i& lo)
{
    const __m256i even = _mm256_mul_epu32(x, m);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
    lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

//! philox4x32_10 on eight counters at once.
GPUFEC_AVX2 void
philox8(__m256i& c0, __m256i& c1, __m256i& c2, __m256i& c3, uint32_t key0, uint32_t key1)
{
    const __m256i m0 = _mm256_set1_epi32(static_cast<int>(philox::mul0));
    const __m256i m1 = _mm256_set1_epi32(static_cast<int>(philox::mul1));
    for (int round = 0; round < 10; ++round) {
        __m256i hi0, lo0, hi1, lo1;
        mul_hi_lo(c0, m0, hi0, lo0);
        mul_hi_lo(c2, m1, hi1, lo1);
        const __m256i k0 = _mm256_set1_epi32(static_cast<int>(key0));
        const __m256i k1 = _mm256_set1_epi32(static_cast<int>(key1));
        c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0);
        c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1);
        c1 = lo1;
        c3 = lo0;
        key0 += philox::weyl0;
        key1 += philox::weyl1;
    }
}

GPUFEC_AVX2 __m256 i32_to_float(__m256i x) { return _mm256_cvtepi32_ps(x); }

//! float(x) for unsigned x, rounded once: hi * 2^16 + lo is exact before the fma's
//! rounding (both halves convert exactly).
GPUFEC_AVX2 __m256 u32_to_float(__m256i x)
{
    const __m256 hi = i32_to_float(_mm256_srli_epi32(x, 16));
    const __m256 lo = i32_to_float(_mm256_and_si256(x, _mm256_set1_epi32(0xFFFF)));
    return _mm256_fmadd_ps(hi, _mm256_set1_ps(65536.0f), lo);
}

GPUFEC_AVX2 __m256 fma(__m256 a, float b, float c)
{
    return _mm256_fmadd_ps(a, _mm256_set1_ps(b), _mm256_set1_ps(c));
}

//! philox::portable_log.
GPUFEC_AVX2 __m256 portable_log(__m256 u)
{
    const __m256i b = _mm256_castps_si256(u);
    __m256i biased_e = _mm256_srli_epi32(b, 23);
    __m256i mb = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x007FFFFF)),
                                 _mm256_set1_epi32(0x3F800000));
    // m > sqrt(2): halve it (both sides positive, so the signed compare is right).
    const __m256i big = _mm256_cmpgt_epi32(mb, _mm256_set1_epi32(0x3FB504F3));
    mb = _mm256_sub_epi32(mb, _mm256_and_si256(big, _mm256_set1_epi32(0x00800000)));
    biased_e = _mm256_sub_epi32(biased_e, big); // big is -1 where true
    const __m256 f = _mm256_sub_ps(_mm256_castsi256_ps(mb), _mm256_set1_ps(1.0f));
    __m256 q = _mm256_set1_ps(-0x1.38339ap-4f);
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(0x1.0849bep-3f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(-0x1.0f3756p-3f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(0x1.22715ep-3f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(-0x1.542766p-3f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(0x1.99a3f6p-3f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(-0x1.000426p-2f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(0x1.555550p-2f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(-0x1.fffff8p-2f));
    const __m256 log_m = _mm256_fmadd_ps(f, _mm256_mul_ps(f, q), f);
    const __m256 ef = _mm256_sub_ps(_mm256_castsi256_ps(_mm256_add_epi32(
                                        _mm256_set1_epi32(0x4B400000 - 127), biased_e)),
                                    _mm256_set1_ps(0x1.8p23f));
    return _mm256_fmadd_ps(ef,
                           _mm256_set1_ps(0x1.62e430p-1f),
                           _mm256_fmadd_ps(ef, _mm256_set1_ps(-0x1.05c610p-29f), log_m));
}

//! philox::portable_cos_sin_2pi.
GPUFEC_AVX2 void cos_sin_2pi(__m256i x, __m256& cos_out, __m256& sin_out)
{
    const __m256i w = _mm256_add_epi32(x, _mm256_set1_epi32(0x20000000));
    const __m256i q = _mm256_srli_epi32(w, 30);
    const __m256i f = _mm256_sub_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x3FFFFFFF)),
                                       _mm256_set1_epi32(0x20000000));
    const __m256 r = _mm256_mul_ps(i32_to_float(f), _mm256_set1_ps(0x1.000000p-30f));
    const __m256 r2 = _mm256_mul_ps(r, r);
    __m256 sp = _mm256_set1_ps(0x1.507834p-13f);
    sp = _mm256_fmadd_ps(sp, r2, _mm256_set1_ps(-0x1.32d2ccp-8f));
    sp = _mm256_fmadd_ps(sp, r2, _mm256_set1_ps(0x1.466bc6p-4f));
    sp = _mm256_fmadd_ps(sp, r2, _mm256_set1_ps(-0x1.4abbcep-1f));
    sp = _mm256_fmadd_ps(sp, r2, _mm256_set1_ps(0x1.921fb6p0f));
    const __m256 s = _mm256_mul_ps(sp, r);
    __m256 cp = _mm256_set1_ps(-0x1.a6d1f2p-16f);
    cp = _mm256_fmadd_ps(cp, r2, _mm256_set1_ps(0x1.e1f506p-11f));
    cp = _mm256_fmadd_ps(cp, r2, _mm256_set1_ps(-0x1.55d3c8p-6f));
    cp = _mm256_fmadd_ps(cp, r2, _mm256_set1_ps(0x1.03c1f0p-2f));
    cp = _mm256_fmadd_ps(cp, r2, _mm256_set1_ps(-0x1.3bd3ccp0f));
    const __m256 c = _mm256_fmadd_ps(cp, r2, _mm256_set1_ps(1.0f));
    const __m256i one = _mm256_set1_epi32(1), two = _mm256_set1_epi32(2);
    const __m256 odd = _mm256_castsi256_ps(
        _mm256_cmpeq_epi32(_mm256_and_si256(q, one), one)); // all ones where q is odd
    const __m256i cos_flip =
        _mm256_slli_epi32(_mm256_and_si256(_mm256_add_epi32(q, one), two), 30);
    const __m256i sin_flip = _mm256_slli_epi32(_mm256_and_si256(q, two), 30);
    cos_out = _mm256_castsi256_ps(
        _mm256_xor_si256(_mm256_castps_si256(_mm256_blendv_ps(c, s, odd)), cos_flip));
    sin_out = _mm256_castsi256_ps(
        _mm256_xor_si256(_mm256_castps_si256(_mm256_blendv_ps(s, c, odd)), sin_flip));
}

//! philox::box_muller on eight word pairs.
GPUFEC_AVX2 void box_muller(__m256i a, __m256i b, __m256& g0, __m256& g1)
{
    const __m256 u = fma(u32_to_float(a), 0x1.000000p-32f, 0x1.000000p-33f);
    const __m256 radius =
        _mm256_sqrt_ps(_mm256_mul_ps(portable_log(u), _mm256_set1_ps(-2.0f)));
    __m256 c, s;
    cos_sin_2pi(b, c, s);
    g0 = _mm256_mul_ps(radius, c);
    g1 = _mm256_mul_ps(radius, s);
}

//! philox::bpsk_llr on eight samples whose coded bits are coded[0..8).
GPUFEC_AVX2 __m256 bpsk_llr(const uint8_t* coded, __m256 g, __m256 sigma, __m256 scale)
{
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(coded));
    const __m256i bits = _mm256_cvtepu8_epi32(bytes);
    const __m256 is_one =
        _mm256_castsi256_ps(_mm256_cmpgt_epi32(bits, _mm256_setzero_si256()));
    const __m256 symbol =
        _mm256_blendv_ps(_mm256_set1_ps(1.0f), _mm256_set1_ps(-1.0f), is_one);
    return _mm256_mul_ps(_mm256_fmadd_ps(sigma, g, symbol), scale);
}

} // namespace

__attribute__((target("avx2,fma"))) size_t noisy_llrs_avx2(uint64_t seed,
                                                           uint64_t frame,
                                                           const uint8_t* coded,
                                                           size_t coded_bits,
                                                           float sigma,
                                                           float llr_scale,
                                                           float* llrs)
{
    const uint32_t key0 = static_cast<uint32_t>(seed),
                   key1 = static_cast<uint32_t>(seed >> 32);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i frame_lo = _mm256_set1_epi32(static_cast<int>(frame));
    const __m256i frame_hi = _mm256_set1_epi32(static_cast<int>(frame >> 32));
    const __m256i stream = _mm256_set1_epi32(static_cast<int>(philox::stream_noise));
    const __m256 sigma8 = _mm256_set1_ps(sigma), scale8 = _mm256_set1_ps(llr_scale);
    size_t j = 0;
    for (; j + 32 <= coded_bits; j += 32) {
        // Blocks q .. q + 7 (frame_block's counter), one a lane.
        __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(j / 4)), lane);
        __m256i c1 = frame_lo, c2 = frame_hi, c3 = stream;
        philox8(c0, c1, c2, c3, key0, key1);
        __m256 g0, g1, g2, g3;
        box_muller(c0, c1, g0, g1);
        box_muller(c2, c3, g2, g3);
        // Lane i of g_m is sample 4 (q + i) + m: a 4 x 8 transpose to frame order.
        const __m256 t0 = _mm256_unpacklo_ps(g0, g1), t1 = _mm256_unpackhi_ps(g0, g1);
        const __m256 t2 = _mm256_unpacklo_ps(g2, g3), t3 = _mm256_unpackhi_ps(g2, g3);
        const __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
        const __m256 u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
        const __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
        const __m256 u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
        const __m256 s01 = _mm256_permute2f128_ps(u0, u1, 0x20);
        const __m256 s23 = _mm256_permute2f128_ps(u2, u3, 0x20);
        const __m256 s45 = _mm256_permute2f128_ps(u0, u1, 0x31);
        const __m256 s67 = _mm256_permute2f128_ps(u2, u3, 0x31);
        _mm256_storeu_ps(llrs + j, bpsk_llr(coded + j, s01, sigma8, scale8));
        _mm256_storeu_ps(llrs + j + 8, bpsk_llr(coded + j + 8, s23, sigma8, scale8));
        _mm256_storeu_ps(llrs + j + 16, bpsk_llr(coded + j + 16, s45, sigma8, scale8));
        _mm256_storeu_ps(llrs + j + 24, bpsk_llr(coded + j + 24, s67, sigma8, scale8));
    }
    return j;
}

} // namespace cpu
} // namespace gpufec

#else

namespace gpufec {
namespace cpu {
size_t noisy_llrs_avx2(uint64_t, uint64_t, const uint8_t*, size_t, float, float, float*)
{
    return 0;
}
} // namespace cpu
} // namespace gpufec

#endif
