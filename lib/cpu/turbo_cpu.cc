/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU max-log-MAP decoder of the LTE turbo code (the reference of a GPU kernel).
//
// Normative description (the integer paths are bit-exact with it):
//
// Trellis: the 8-state RSC of turbo.h, state s = (r1 r2 r3). Branch metric of a step
// with input u and parity z: gamma = (u == 0) * (Ls + La) + (z == 0) * Lp, all in input
// LLR units (this differs from the symmetric +/-L/2 form by a per-step constant only).
// Decoder 1 reads the systematic LLRs in order, decoder 2 through the QPP interleaver;
// each runs K steps plus its 3 tail steps (d0/d1/d2 positions K..K+3 of turbo.h), starts
// in state 0 and ends in state 0. Impossible states start at neg_inf.
//
// Sub-blocks: the K steps are split into P windows [w K / P, (w+1) K / P). Each window
// runs its forward recursion from the alpha "stake" at its start and its backward
// recursion from the beta stake at its end, both taken from the previous iteration of
// the same constituent decoder (what the neighbouring window computed at that
// boundary); in the first iteration interior stakes are uniform (all 0). The outer ends
// are exact: alpha = state 0, beta = the backward recursion through the tail. With P = 1
// this is the plain max-log-MAP. Within a window the forward and backward recursions
// run together (the two threads of a GPU sub-decoder) and each step's extrinsic is
// computed once, by whichever side reaches it second; the value does not depend on
// which.
//
// Recursions: alpha_{k+1}(n) = max over the two branches into n of alpha_k(s) + gamma,
// beta_k(s) = max over the two branches out of s of beta_{k+1}(n) + gamma, each followed
// by subtracting the metric of state 0 (normalisation every step). Extrinsic of step k:
// Le = max_{u=0}(alpha_k(s) + (z==0) Lp + beta_{k+1}(n)) - max_{u=1}(same). Decoder
// output: scaled max-log-MAP passes (Le * q + 64) >> 7 with q = round(128 * scale)
// (float: Le * scale), plain max-log-MAP passes Le; the integer paths then saturate it to
// the extrinsic range. A half-iteration reads the other decoder's extrinsic of the
// previous half-iteration (decoder 2 through the interleaver, its output de-interleaved).
//
// A-posteriori LLR after each full iteration: APP(c_Pi(i)) = Ls + La + Le of decoder 2
// step i (Le before scaling and saturation); hard bit = APP < 0. Early termination
// checks the CRC24B of the K hard bits after each full iteration.
//
// Arithmetic: "int16": LLR sums, state metrics and extrinsic in int16, extrinsic
// saturated to +/-2047; "int8": the same kernels with the extrinsic saturated to +/-127
// and stored as int8 (the channel LLRs are int8 anyway); "float": float throughout, no
// saturation. int16 never overflows and impossible paths never win: with R = 127 + 2047 +
// 127 the largest branch-metric spread of a step, normalised metrics of reachable states
// stay within +/-3R (every state is reachable from every other in 3 steps); states not
// yet reachable (first 2 steps) stay below neg_inf + 2R, and neg_inf = -16384 lies below
// -(5R + 127) (they lose every max, extrinsic included) and above -32768 + 5R + 127 (no
// overflow in alpha + gamma + beta). |Le| <= 3R + 127 (beta spread plus parity).
//
// Kernels: the 8 state metrics of a step in one vector (int16 x 8 or float x 8), one
// window at a time. With AVX2 (picked at run time; GPUFEC_CPU_SIMD=portable forces the
// baseline build) the int16 forward and backward metrics share one 256-bit register.
// Every variant performs the same additions and maxima, so all give the same results.
#include "cpu/cpu_features.h"
#include "cpu/fixed_length_decoder.h"
#include <gpufec/turbo_decoding.h>

#include <initializer_list>
#include <type_traits>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace gpufec {

turbo_algorithm parse_turbo_algorithm(const std::string& s)
{
    if (s == "max-log-map")
        return turbo_algorithm::max_log_map;
    if (s == "scaled-max-log-map")
        return turbo_algorithm::scaled_max_log_map;
    throw error("turbo decoder: algorithm \"" + s +
                "\" unknown; allowed: max-log-map, scaled-max-log-map");
}

turbo_arithmetic parse_turbo_arithmetic(const std::string& s)
{
    if (s == "int8")
        return turbo_arithmetic::int8;
    if (s == "int16")
        return turbo_arithmetic::int16;
    if (s == "float")
        return turbo_arithmetic::float32;
    throw error("turbo decoder: arithmetic \"" + s +
                "\" unknown; allowed: int8, int16, float");
}

turbo_schedule parse_turbo_schedule(const std::string& s)
{
    if (s == "synchronised")
        return turbo_schedule::synchronised;
    if (s == "loose")
        return turbo_schedule::loose;
    throw error("turbo decoder: schedule \"" + s +
                "\" unknown; allowed: synchronised, loose");
}

namespace {

// 32-byte vectors pass between internal inline functions only: no ABI to keep.
#pragma GCC diagnostic ignored "-Wpsabi"

#if defined(__x86_64__) || defined(__i386__)
#define GPUFEC_X86_KERNELS 1
#else
#define GPUFEC_X86_KERNELS 0
#endif

typedef int16_t v8s __attribute__((vector_size(16)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));

struct int16_traits {
    typedef int16_t metric; // LLR sums and state metrics
    typedef v8s vec;        // the 8 state metrics
    typedef v8s mask;
    typedef int16_t ext; // stored extrinsic
    typedef int16_t raw; // extrinsic as computed
    typedef int32_t acc; // scaled extrinsic before saturation, APP
    static constexpr int ext_max = 2047;
    static constexpr metric neg_inf = -16384;
};

struct int8_traits : int16_traits {
    typedef int8_t ext;
    static constexpr int ext_max = 127;
};

struct float_traits {
    typedef float metric;
    typedef v8f vec;
    typedef v8i mask;
    typedef float ext;
    typedef float raw;
    typedef float acc;
    static constexpr metric neg_inf = -1e30f;
};

// Branch classes as lane masks (-1 = true), from the state convention of turbo.h.
// Forward, lane n = (a r1 r2): the branch from s = (r1 r2 0) has u = a^r2, z = a^r1;
// the one from (r1 r2 1) the complements.
// Backward, lane s = (r1 r2 r3): the branch to n = (0 r1 r2) has u = r2^r3, z = r1^r3;
// the one to (1 r1 r2) the complements.
template <class M>
struct lanes {
    static constexpr M fwd_u0 = { -1, 0, -1, 0, 0, -1, 0, -1 };
    static constexpr M fwd_z0 = { -1, -1, 0, 0, 0, 0, -1, -1 };
    static constexpr M bwd_u0 = { -1, 0, 0, -1, -1, 0, 0, -1 };
    static constexpr M bwd_z0 = { -1, 0, -1, 0, 0, -1, 0, -1 };
};

template <class V, class T>
__attribute__((always_inline)) inline V bcast(T x)
{
    return V{ x, x, x, x, x, x, x, x };
}
template <class V>
__attribute__((always_inline)) inline V vmax(V a, V b)
{
    return a > b ? a : b;
}
template <class V>
__attribute__((always_inline)) inline V normalise(V x)
{
    return x - __builtin_shufflevector(x, x, 0, 0, 0, 0, 0, 0, 0, 0);
}

template <class Tr>
struct kernels {
    typedef typename Tr::vec V;
    typedef typename Tr::mask M;
    typedef typename Tr::metric T;
    typedef lanes<M> L;

    // alpha_{k+1} from alpha_k.
    static __attribute__((always_inline)) inline V fwd(V a, T lsa, T lp)
    {
        const V bs = bcast<V>(lsa), bp = bcast<V>(lp);
        const V g0 = (L::fwd_u0 ? bs : V{}) + (L::fwd_z0 ? bp : V{});
        const V g1 = (L::fwd_u0 ? V{} : bs) + (L::fwd_z0 ? V{} : bp);
        // Even and odd lanes, twice; written as two-operand extractions, a pattern
        // that GCC lowers to unpacks on plain SSE2 too.
        const V a0 = __builtin_shufflevector(a, a, 0, 2, 4, 6, 8, 10, 12, 14);
        const V a1 = __builtin_shufflevector(a, a, 1, 3, 5, 7, 9, 11, 13, 15);
        return normalise(vmax(a0 + g0, a1 + g1));
    }

    // Successor metrics plus parity part of gamma, for the a = 0 and a = 1 branches.
    static __attribute__((always_inline)) inline void succ(V bn, T lp, V& p0, V& p1)
    {
        const V bp = bcast<V>(lp);
        const V z0 = L::bwd_z0 ? bp : V{};
        p0 = __builtin_shufflevector(bn, bn, 0, 0, 1, 1, 2, 2, 3, 3) + z0;
        p1 = __builtin_shufflevector(bn, bn, 4, 4, 5, 5, 6, 6, 7, 7) + (bp - z0);
    }

    // beta_k from the successor terms.
    static __attribute__((always_inline)) inline V bwd(V p0, V p1, T lsa)
    {
        const V bs = bcast<V>(lsa);
        const V u0 = L::bwd_u0 ? bs : V{};
        return normalise(vmax(p0 + u0, p1 + (bs - u0)));
    }

    // Le = max over u = 0 branches - max over u = 1 branches, into *le.
    static __attribute__((always_inline)) inline void
    ext(V a, V p0, V p1, typename Tr::raw* le)
    {
        // u = 0: branch a = 0 where bwd_u0, else a = 1.
        const V t0 = a + (L::bwd_u0 ? p0 : p1);
        const V t1 = a + (L::bwd_u0 ? p1 : p0);
        V x = vmax(__builtin_shufflevector(t0, t1, 0, 1, 2, 3, 8, 9, 10, 11),
                   __builtin_shufflevector(t0, t1, 4, 5, 6, 7, 12, 13, 14, 15));
        x = vmax(x, __builtin_shufflevector(x, x, 2, 3, 0, 1, 6, 7, 4, 5));
        x = vmax(x, __builtin_shufflevector(x, x, 1, 0, 3, 2, 5, 4, 7, 6));
        x = x - __builtin_shufflevector(x, x, 4, 5, 6, 7, 0, 1, 2, 3);
        *le = x[0];
    }

    // One window [b, e): forward and backward recursions side by side; le[k] once per
    // step. A and B hold alpha_k and beta_k by absolute step.
    static __attribute__((always_inline)) inline void
    window(const T* __restrict__ lsa,
           const T* __restrict__ par,
           int b,
           int e,
           V alpha_init,
           V beta_init,
           V* __restrict__ A,
           V* __restrict__ B,
           V& alpha_end,
           V& beta_begin,
           typename Tr::raw* __restrict__ le)
    {
        const int len = e - b;
        V a = alpha_init, bt = beta_init; // alpha_f and beta_{g+1}
        int j = 0;
        for (; j < len / 2; j++) { // the two sides have not met yet
            const int f = b + j, g = e - 1 - j;
            A[f] = a;
            B[g + 1] = bt;
            V p0, p1;
            succ(bt, par[g], p0, p1);
            a = fwd(a, lsa[f], par[f]);
            bt = bwd(p0, p1, lsa[g]);
        }
        if (len & 1) { // middle step: one extrinsic
            const int f = b + j;
            A[f] = a;
            B[f + 1] = bt;
            V p0, p1;
            succ(bt, par[f], p0, p1);
            ext(a, p0, p1, le + f);
            a = fwd(a, lsa[f], par[f]);
            bt = bwd(p0, p1, lsa[f]);
            j++;
        }
        for (; j < len; j++) { // each side completes the other's stored metrics
            const int f = b + j, g = e - 1 - j;
            V q0, q1;
            succ(B[f + 1], par[f], q0, q1);
            ext(a, q0, q1, le + f);
            V p0, p1;
            succ(bt, par[g], p0, p1);
            ext(A[g], p0, p1, le + g);
            a = fwd(a, lsa[f], par[f]);
            bt = bwd(p0, p1, lsa[g]);
        }
        alpha_end = a;
        beta_begin = bt;
    }
};

#if GPUFEC_X86_KERNELS
#pragma GCC push_options
#pragma GCC target("avx2")
// The int16 window of kernels<int16_traits>::window with AVX2: the forward metrics in
// the low 128-bit lane and the backward metrics in the high lane of one register, so
// one instruction advances both recursions (and one computes both sides' extrinsic).
// Same additions of the same values, so the same results.
void window_avx2_i16(const int16_t* __restrict__ lsa,
                     const int16_t* __restrict__ par,
                     int b,
                     int e,
                     v8s alpha_init,
                     v8s beta_init,
                     v8s* __restrict__ A,
                     v8s* __restrict__ B,
                     v8s& alpha_end,
                     v8s& beta_begin,
                     int16_t* __restrict__ le)
{
    typedef lanes<v8s> L;
    // pshufb controls: word i of each 128-bit lane takes word lo[i] (low lane) or hi[i]
    // (high lane) of the same lane.
    auto words = [](std::initializer_list<int> lo, std::initializer_list<int> hi) {
        alignas(32) int8_t c[32];
        int i = 0;
        for (int w : lo) {
            c[i++] = static_cast<int8_t>(2 * w);
            c[i++] = static_cast<int8_t>(2 * w + 1);
        }
        for (int w : hi) {
            c[i++] = static_cast<int8_t>(2 * w);
            c[i++] = static_cast<int8_t>(2 * w + 1);
        }
        return _mm256_load_si256(reinterpret_cast<const __m256i*>(c));
    };
    // Recursion: low lane the forward predecessors (even / odd states), high lane the
    // backward successors (states 0..3 / 4..7, each twice).
    const __m256i pred0 = words({ 0, 2, 4, 6, 0, 2, 4, 6 }, { 0, 0, 1, 1, 2, 2, 3, 3 });
    const __m256i pred1 = words({ 1, 3, 5, 7, 1, 3, 5, 7 }, { 4, 4, 5, 5, 6, 6, 7, 7 });
    // Extrinsic: successors in both lanes.
    const __m256i succ0 = words({ 0, 0, 1, 1, 2, 2, 3, 3 }, { 0, 0, 1, 1, 2, 2, 3, 3 });
    const __m256i succ1 = words({ 4, 4, 5, 5, 6, 6, 7, 7 }, { 4, 4, 5, 5, 6, 6, 7, 7 });
    const __m256i word0 = words({ 0, 0, 0, 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0, 0, 0 });
    const __m256i swap_words =
        words({ 1, 0, 3, 2, 5, 4, 7, 6 }, { 1, 0, 3, 2, 5, 4, 7, 6 });
    auto join = [](v8s lo, v8s hi) {
        return _mm256_inserti128_si256(
            _mm256_castsi128_si256(reinterpret_cast<__m128i>(lo)),
            reinterpret_cast<__m128i>(hi),
            1);
    };
    const __m256i u0 = join(L::fwd_u0, L::bwd_u0);
    const __m256i z0 = join(L::fwd_z0, L::bwd_z0);
    const __m256i bz0 = join(L::bwd_z0, L::bwd_z0);
    auto pair = [](int16_t lo, int16_t hi) {
        return _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_set1_epi16(lo)), _mm_set1_epi16(hi), 1);
    };
    // Advances alpha_f (low) and beta_{g+1} (high).
    auto step = [&](__m256i v, __m256i xs, __m256i xp) {
        const __m256i g0 =
            _mm256_add_epi16(_mm256_and_si256(xs, u0), _mm256_and_si256(xp, z0));
        const __m256i g1 =
            _mm256_add_epi16(_mm256_andnot_si256(u0, xs), _mm256_andnot_si256(z0, xp));
        const __m256i m =
            _mm256_max_epi16(_mm256_add_epi16(_mm256_shuffle_epi8(v, pred0), g0),
                             _mm256_add_epi16(_mm256_shuffle_epi8(v, pred1), g1));
        return _mm256_sub_epi16(m, _mm256_shuffle_epi8(m, word0));
    };
    // Extrinsic of step f from alpha (low of ea) and beta_{f+1} (low of eb), of step g
    // from the high lanes; xp holds both steps' parity LLRs.
    auto ext = [&](__m256i ea, __m256i eb, __m256i xp) {
        const __m256i zp0 = _mm256_and_si256(xp, bz0), zp1 = _mm256_andnot_si256(bz0, xp);
        const __m256i m0 =
            _mm256_add_epi16(ea, _mm256_add_epi16(_mm256_shuffle_epi8(eb, succ0), zp0));
        const __m256i m1 =
            _mm256_add_epi16(ea, _mm256_add_epi16(_mm256_shuffle_epi8(eb, succ1), zp1));
        // u = 0 branches: a = 0 on lanes 0, 3, 4, 7 (bwd_u0), a = 1 on the others.
        const __m256i t0 = _mm256_blend_epi16(m0, m1, 0x66);
        const __m256i t1 = _mm256_blend_epi16(m1, m0, 0x66);
        __m256i x = _mm256_max_epi16(_mm256_unpacklo_epi64(t0, t1),
                                     _mm256_unpackhi_epi64(t0, t1));
        x = _mm256_max_epi16(x, _mm256_shuffle_epi32(x, 0xB1));
        x = _mm256_max_epi16(x, _mm256_shuffle_epi8(x, swap_words));
        return _mm256_sub_epi16(x, _mm256_shuffle_epi32(x, 0x4E));
    };
    auto lo = [](__m256i v) { return reinterpret_cast<v8s>(_mm256_castsi256_si128(v)); };
    auto hi = [](__m256i v) {
        return reinterpret_cast<v8s>(_mm256_extracti128_si256(v, 1));
    };

    const int len = e - b;
    __m256i v = join(alpha_init, beta_init);
    int j = 0;
    for (; j < len / 2; j++) {
        const int f = b + j, g = e - 1 - j;
        A[f] = lo(v);
        B[g + 1] = hi(v);
        v = step(v, pair(lsa[f], lsa[g]), pair(par[f], par[g]));
    }
    if (len & 1) {
        const int f = b + j;
        A[f] = lo(v);
        B[f + 1] = hi(v);
        const __m256i xp = pair(par[f], par[f]);
        const __m256i ea = _mm256_permute2x128_si256(v, v, 0x00); // alpha_f twice
        const __m256i eb = _mm256_permute2x128_si256(v, v, 0x11); // beta_{f+1} twice
        le[f] = static_cast<int16_t>(_mm256_extract_epi16(ext(ea, eb, xp), 0));
        v = step(v, pair(lsa[f], lsa[f]), xp);
        j++;
    }
    for (; j < len; j++) {
        const int f = b + j, g = e - 1 - j;
        const __m256i xp = pair(par[f], par[g]);
        const __m256i ea =
            _mm256_inserti128_si256(v, reinterpret_cast<const __m128i&>(A[g]), 1);
        const __m256i eb =
            _mm256_inserti128_si256(v, reinterpret_cast<const __m128i&>(B[f + 1]), 0);
        const __m256i d = ext(ea, eb, xp);
        le[f] = static_cast<int16_t>(_mm256_extract_epi16(d, 0));
        le[g] = static_cast<int16_t>(_mm256_extract_epi16(d, 8));
        v = step(v, pair(lsa[f], lsa[g]), xp);
    }
    alpha_end = lo(v);
    beta_begin = hi(v);
}
#pragma GCC pop_options
#endif

// Metric arrays 64-byte aligned: without -mavx GCC gives 32-byte vectors only 16-byte
// alignment, which the AVX2 kernels' aligned loads would fault on.
template <class V>
struct vec_array {
    explicit vec_array(size_t n) : raw(n * sizeof(V) + 64) {}
    std::vector<unsigned char> raw;
    V* data()
    {
        const uintptr_t a = reinterpret_cast<uintptr_t>(raw.data());
        return reinterpret_cast<V*>((a + 63) & ~uintptr_t(63));
    }
};

// One worker's scratch for the decoder's arithmetic Tr (made by make_scratch(), owned by
// the engine), sized at construction for K = k and P = p sub-blocks.
template <class Tr>
struct workspace : scratch {
    typedef typename Tr::vec V;
    typedef typename Tr::metric T;
    workspace(int k, int p)
        : sys1(k),
          par1(k),
          sys2(k),
          par2(k),
          lsa(k),
          e12(k),
          e21(k),
          e2(k),
          le(k),
          app(k),
          A(k + 1),
          B(k + 1),
          stakes(4 * 2 * static_cast<size_t>(p + 1)),
          hard(k)
    {
    }
    std::vector<T> sys1, par1, sys2, par2, lsa;
    std::vector<typename Tr::ext> e12, e21; // decoder 1 -> 2 and 2 -> 1, natural order
    std::vector<typename Tr::ext> e2;       // decoder 2's, interleaved order
    std::vector<typename Tr::raw> le;
    std::vector<typename Tr::acc> app;
    vec_array<V> A, B;
    vec_array<V> stakes; // [decoder][buffer][alpha, beta][boundary 0..P]
    std::vector<uint8_t> hard;
    // Rate-matched codes: the three streams' LLRs, summed (derate_sum) then saturated.
    std::vector<int32_t> derate_sum;
    std::vector<llr8_t> streams;
};

class turbo_decoder_cpu : public fixed_length_cpu_decoder
{
public:
    turbo_decoder_cpu(const lte_turbo_code& code, const turbo_decoder_options& opt)
        : fixed_length_cpu_decoder("turbo", code.coded_bits(), code.info_bits()),
          d_code(code),
          d_opt(opt)
    {
        if (opt.iterations < 1 || opt.iterations > 32)
            throw error("turbo decoder: iterations = " + std::to_string(opt.iterations) +
                        "; allowed: 1..32");
        if (opt.algorithm != turbo_algorithm::max_log_map &&
            opt.algorithm != turbo_algorithm::scaled_max_log_map)
            throw error("turbo decoder: algorithm unknown; allowed: max-log-map, "
                        "scaled-max-log-map");
        if (opt.arithmetic != turbo_arithmetic::int8 &&
            opt.arithmetic != turbo_arithmetic::int16 &&
            opt.arithmetic != turbo_arithmetic::float32)
            throw error("turbo decoder: arithmetic unknown; allowed: int8, int16, float");
        if (opt.schedule != turbo_schedule::synchronised)
            throw error("turbo decoder: the loose schedule runs on the GPU only "
                        "(backend \"cuda\"); allowed on the CPU: synchronised");
        if (opt.algorithm == turbo_algorithm::scaled_max_log_map &&
            !(opt.extrinsic_scale > 0.0f && opt.extrinsic_scale <= 1.0f))
            throw error("turbo decoder: extrinsic_scale = " +
                        std::to_string(opt.extrinsic_scale) +
                        "; allowed: 0 < extrinsic_scale <= 1");
        const int k = code.k();
        if (opt.sub_blocks < 1 || opt.sub_blocks > max_turbo_sub_blocks ||
            k / opt.sub_blocks < 8)
            throw error("turbo decoder: sub_blocks = " + std::to_string(opt.sub_blocks) +
                        "; allowed: 1.." + std::to_string(max_turbo_sub_blocks) +
                        " with K / sub_blocks >= 8 (K = " + std::to_string(k) +
                        ": at most " +
                        std::to_string(std::min(max_turbo_sub_blocks, k / 8)) + ")");
        d_scaled = opt.algorithm == turbo_algorithm::scaled_max_log_map;
        d_scale = d_scaled ? opt.extrinsic_scale : 1.0f;
        d_scale_q =
            d_scaled ? std::max(1, static_cast<int>(std::lround(d_scale * 128.0f))) : 128;
        const int p = opt.sub_blocks;
        for (int w = 0; w <= p; w++)
            d_bounds.push_back(static_cast<int>(static_cast<int64_t>(w) * k / p));
        // GPUFEC_CPU_SIMD=portable caps the kernels at the baseline ISA (tests compare
        // both); avx2 and avx512 allow the AVX2 kernels.
        const bool avx2 = cpu::simd_level_in_use() >= cpu::simd_level::avx2;
        d_avx2 = GPUFEC_X86_KERNELS && avx2;
    }

    bool has_soft_output() const override { return true; }

    //! The workspace of the chosen arithmetic only.
    std::unique_ptr<scratch> make_scratch() const override
    {
        const int k = d_code.k(), p = d_opt.sub_blocks;
        switch (d_opt.arithmetic) {
        case turbo_arithmetic::int8:
            return std::make_unique<workspace<int8_traits>>(k, p);
        case turbo_arithmetic::int16:
            return std::make_unique<workspace<int16_traits>>(k, p);
        default:
            return std::make_unique<workspace<float_traits>>(k, p);
        }
    }

    frame_status decode_one(const llr8_t* llrs,
                            uint8_t* packed,
                            float* soft,
                            const exec_ctx& ctx,
                            size_t worker) override
    {
        switch (d_opt.arithmetic) {
        case turbo_arithmetic::int8:
            return decode_with<int8_traits>(llrs, packed, soft, ctx, worker);
        case turbo_arithmetic::int16:
            return decode_with<int16_traits>(llrs, packed, soft, ctx, worker);
        default:
            return decode_with<float_traits>(llrs, packed, soft, ctx, worker);
        }
    }

    std::string name() const override
    {
        std::string s = "turbo LTE K=" + std::to_string(d_code.k());
        if (d_code.crc24b())
            s += " +CRC24B";
        if (d_scaled) {
            char buf[32];
            std::snprintf(buf, sizeof(buf), "%g", d_scale);
            s += std::string(" scaled max-log-MAP (") + buf + ")";
        } else {
            s += " max-log-MAP";
        }
        s += d_opt.arithmetic == turbo_arithmetic::int8    ? " int8"
             : d_opt.arithmetic == turbo_arithmetic::int16 ? " int16"
                                                           : " float";
        s += " x" + std::to_string(d_opt.iterations);
        if (d_opt.sub_blocks > 1)
            s += " P=" + std::to_string(d_opt.sub_blocks);
        return s + " on cpu";
    }

private:
    template <class Tr>
    frame_status decode_with(const llr8_t* in,
                             uint8_t* out,
                             float* soft,
                             const exec_ctx& ctx,
                             size_t worker) const
    {
        workspace<Tr>& ws = ctx.worker_scratch<workspace<Tr>>(worker);
        const int filler = d_code.filler_bits();
        if (const lte_turbo_rate_matching* rm = d_code.rate_matching()) {
            // De-rate-matching: repeated bits' LLRs added, unsent bits 0, saturated to
            // the int8 range the decoder reads.
            ws.derate_sum.assign(d_code.stream_total(), 0);
            ws.streams.resize(d_code.stream_total());
            const auto& map = rm->output_to_stream();
            for (size_t j = 0; j < map.size(); j++)
                ws.derate_sum[map[j]] += in[j];
            for (size_t i = 0; i < ws.streams.size(); i++)
                ws.streams[i] =
                    static_cast<llr8_t>(std::clamp<int32_t>(ws.derate_sum[i], -127, 127));
            in = ws.streams.data();
        } else if (filler > 0) {
            ws.streams.assign(in, in + d_code.stream_total());
            in = ws.streams.data();
        }
        if (filler > 0) {
            // Filler bits are known zeros, and so is the first encoder's parity while
            // its input is zeros from state 0 (d0 and d1; d2 sees them interleaved).
            llr8_t* s = ws.streams.data();
            for (int i = 0; i < filler; i++)
                s[i] = s[d_code.stream_bits() + i] = 127;
        }
#if GPUFEC_X86_KERNELS
        if (d_avx2)
            return decode_avx2<Tr>(in, out, soft, ws);
#endif
        return decode_portable<Tr>(in, out, soft, ws);
    }

    template <class Tr>
    frame_status
    decode_portable(const llr8_t* in, uint8_t* out, float* soft, workspace<Tr>& ws) const
    {
        return decode_frame<Tr, false>(in, out, soft, ws);
    }
#if GPUFEC_X86_KERNELS
    // Same operations, so the same results; AVX2 has the byte shuffles (pshufb) and
    // 8-float registers that the 8-state permutations need.
    template <class Tr>
    __attribute__((target("avx2"))) frame_status
    decode_avx2(const llr8_t* in, uint8_t* out, float* soft, workspace<Tr>& ws) const
    {
        return decode_frame<Tr, true>(in, out, soft, ws);
    }
#endif

    // Extrinsic passed to the other decoder (see the normative description), for the
    // steps in order; one loop per case so that each vectorises.
    template <class Tr>
    __attribute__((always_inline)) inline void
    pass(const typename Tr::raw* __restrict__ le,
         typename Tr::ext* __restrict__ out,
         int n) const
    {
        if constexpr (std::is_same<typename Tr::raw, float>::value) {
            const float scale = d_scale;
            if (d_scaled)
                for (int i = 0; i < n; i++)
                    out[i] = le[i] * scale;
            else
                std::memcpy(out, le, n * sizeof(float));
        } else {
            const int q = d_scale_q, m = Tr::ext_max;
            if (d_scaled)
                for (int i = 0; i < n; i++) {
                    const int v = (le[i] * q + 64) >> 7;
                    out[i] = static_cast<typename Tr::ext>(v > m ? m : (v < -m ? -m : v));
                }
            else
                for (int i = 0; i < n; i++) {
                    const int v = le[i];
                    out[i] = static_cast<typename Tr::ext>(v > m ? m : (v < -m ? -m : v));
                }
        }
    }

    // Runs every window of one constituent decoder, raw extrinsic into le. Stakes:
    // in[0..P] alpha, in[P+1..] beta of the previous iteration; out receives this
    // iteration's.
    template <class Tr, bool Avx2>
    __attribute__((always_inline)) inline void
    half_iteration(const typename Tr::metric* lsa,
                   const typename Tr::metric* par,
                   typename Tr::vec* A,
                   typename Tr::vec* B,
                   const typename Tr::vec* in,
                   typename Tr::vec* out,
                   typename Tr::raw* le) const
    {
        const int p = d_opt.sub_blocks;
        out[0] = in[0];
        out[p + 1 + p] = in[p + 1 + p];
        for (int w = 0; w < p; w++) {
#if GPUFEC_X86_KERNELS
            if constexpr (Avx2 && std::is_same<typename Tr::metric, int16_t>::value) {
                window_avx2_i16(lsa,
                                par,
                                d_bounds[w],
                                d_bounds[w + 1],
                                in[w],
                                in[p + 1 + w + 1],
                                A,
                                B,
                                out[w + 1],
                                out[p + 1 + w],
                                le);
                continue;
            }
#endif
            kernels<Tr>::window(lsa,
                                par,
                                d_bounds[w],
                                d_bounds[w + 1],
                                in[w],
                                in[p + 1 + w + 1],
                                A,
                                B,
                                out[w + 1],
                                out[p + 1 + w],
                                le);
        }
    }

    // The whole frame decoder, inlined into one entry point per instruction set.
    template <class Tr, bool Avx2>
    __attribute__((always_inline)) inline frame_status
    decode_frame(const llr8_t* in, uint8_t* out, float* soft, workspace<Tr>& ws) const
    {
        typedef typename Tr::vec V;
        typedef typename Tr::metric T;
        const int k = d_code.k(), s = d_code.stream_bits(), p = d_opt.sub_blocks;
        const llr8_t* d0 = in;
        const llr8_t* d1 = in + s;
        const llr8_t* d2 = in + 2 * s;
        const uint32_t* pi = d_code.interleaver().data();

        std::fill(ws.e21.begin(), ws.e21.end(), typename Tr::ext(0));
        V* A = ws.A.data();
        V* B = ws.B.data();
        const size_t per_buffer = 2 * static_cast<size_t>(p + 1);
        V* stakes = ws.stakes.data();
        std::fill(stakes, stakes + 4 * per_buffer, V{});
        for (int i = 0; i < k; i++) {
            ws.sys1[i] = d0[i];
            ws.par1[i] = d1[i];
            ws.par2[i] = d2[i];
            ws.sys2[i] = d0[pi[i]];
        }

        // Exact outer stakes: state 0 at the start, the tail recursion at the end.
        V start = bcast<V>(Tr::neg_inf);
        start[0] = 0;
        // Tail positions of TS 36.212 5.1.3.2.2 (see turbo.h), x and z of steps K..K+2.
        const llr8_t tail_x[2][3] = { { d0[k], d2[k], d1[k + 1] },
                                      { d0[k + 2], d2[k + 2], d1[k + 3] } };
        const llr8_t tail_z[2][3] = { { d1[k], d0[k + 1], d2[k + 1] },
                                      { d1[k + 2], d0[k + 3], d2[k + 3] } };
        for (int dec = 0; dec < 2; dec++) {
            V bt = start;
            for (int t = 2; t >= 0; t--) {
                V p0, p1;
                kernels<Tr>::succ(bt, static_cast<T>(tail_z[dec][t]), p0, p1);
                bt = kernels<Tr>::bwd(p0, p1, static_cast<T>(tail_x[dec][t]));
            }
            for (int buf = 0; buf < 2; buf++) {
                V* st = stakes + (2 * dec + buf) * per_buffer;
                st[0] = start;
                st[p + 1 + p] = bt;
            }
        }

        const bool crc = d_code.crc24b();
        frame_status status{ 0, !crc };
        bool decided = false;
        int cur = 0; // stake buffer holding the previous iteration's
        T* lsa = ws.lsa.data();
        typename Tr::raw* le = ws.le.data();
        auto* e12 = ws.e12.data();
        auto* e21 = ws.e21.data();
        for (int it = 0; it < d_opt.iterations; it++) {
            V* st1 = stakes;
            V* st2 = stakes + 2 * per_buffer;

            for (int i = 0; i < k; i++)
                lsa[i] = static_cast<T>(ws.sys1[i] + e21[i]);
            half_iteration<Tr, Avx2>(lsa,
                                     ws.par1.data(),
                                     A,
                                     B,
                                     st1 + cur * per_buffer,
                                     st1 + (1 - cur) * per_buffer,
                                     le);
            pass<Tr>(le, e12, k);

            for (int i = 0; i < k; i++)
                lsa[i] = static_cast<T>(ws.sys2[i] + e12[pi[i]]);
            half_iteration<Tr, Avx2>(lsa,
                                     ws.par2.data(),
                                     A,
                                     B,
                                     st2 + cur * per_buffer,
                                     st2 + (1 - cur) * per_buffer,
                                     le);
            pass<Tr>(le, ws.e2.data(), k);
            for (int i = 0; i < k; i++) // de-interleave
                e21[pi[i]] = ws.e2[i];
            cur = 1 - cur;
            status.iterations = it + 1;
            decided = false;
            if (crc && (d_opt.early_termination || it + 1 == d_opt.iterations)) {
                decide(ws);
                decided = true;
                status.ok = crc24b(ws.hard.data(), k) == 0;
                if (status.ok && d_opt.early_termination)
                    break;
            }
        }
        if (!decided)
            decide(ws);

        const int n = d_code.info_bits(), first = d_code.filler_bits();
        std::memset(out, 0, packed_bytes(n));
        for (int i = 0; i < n; i++)
            out[i >> 3] |= static_cast<uint8_t>(ws.hard[first + i] << (7 - (i & 7)));
        if (soft)
            for (int i = 0; i < n; i++)
                soft[i] = static_cast<float>(ws.app[first + i]);
        return status;
    }

    template <class Tr>
    // APP and hard decisions from decoder 2's last half-iteration (lsa and le).
    __attribute__((always_inline)) inline void decide(workspace<Tr>& ws) const
    {
        typedef typename Tr::acc Acc;
        const int k = d_code.k();
        const uint32_t* pi = d_code.interleaver().data();
        for (int i = 0; i < k; i++) {
            const Acc app = static_cast<Acc>(ws.lsa[i]) + static_cast<Acc>(ws.le[i]);
            ws.app[pi[i]] = app;
            ws.hard[pi[i]] = app < 0;
        }
    }

    lte_turbo_code d_code;
    turbo_decoder_options d_opt;
    bool d_scaled = true;
    float d_scale = 0.7f;
    int d_scale_q = 90;
    std::vector<int> d_bounds;
    bool d_avx2 = false;
};

} // namespace

std::unique_ptr<batch_decoder>
make_turbo_decoder_cpu(const lte_turbo_code& code, const turbo_decoder_options& options)
{
    return std::make_unique<turbo_decoder_cpu>(code, options);
}

} // namespace gpufec
