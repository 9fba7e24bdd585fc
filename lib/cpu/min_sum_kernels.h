/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the layered min-sum arithmetic of the CPU LDPC decoder (ldpc_cpu.cc), which
// lays out one layer's check rows side by side (n rows, edge j of every row contiguous)
// so that the kernels below run across rows in SIMD lanes; only how Q is loaded and L
// written back differs between lifted graphs (circulant runs) and Z = 1 graphs
// (gathers).
//
// Per row and edge j: Q_j = sat(L - R_j); min1 <= min2 the two smallest |Q_j| (pos the
// edge of the first strict minimum), sign the sign product (Q >= 0 counts as positive);
// m = min(min, 127), mag = (m * round(16 alpha)) >> 4 (normalised) or max(m -
// round(beta), 0) (offset); R_j = +/-mag (min2 for the minimum's edge), L = sat(Q_j +
// R_j). "int8" arithmetic: int8 check messages, int16 APP and Q saturating at +/-32000;
// "half": as int8, with L and Q rounded to half precision instead of saturated.
// "float": the same in float with alpha and beta unrounded.
#ifndef INCLUDED_GPUFEC_MIN_SUM_KERNELS_H
#define INCLUDED_GPUFEC_MIN_SUM_KERNELS_H

#include <gpufec/ldpc_decoding.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace gpufec {
namespace min_sum {

constexpr int llr_max = 127;
constexpr int app_max = 32000;

struct int8_traits {
    typedef int16_t store; // APP
    typedef int8_t msg;    // check messages
    typedef int16_t work;  // Q and minima
    typedef int16_t index; // position of the minimum, sign product (lane-sized)
    static constexpr work filler = app_max; // a known zero bit
    static inline work sat(int x)
    {
        return static_cast<work>(x > app_max ? app_max : (x < -app_max ? -app_max : x));
    }
    static inline store from_sum(int x) { return sat(x); }
    static constexpr work big = 32767;
    static constexpr bool pin_known_zeros = true; // after each layer
};

//! The integer x rounded to the nearest IEEE half-precision value, ties to even: x
//! itself for |x| <= 2048, even numbers up to 4096, multiples of 4 up to 8192, ...
//! (|x| < 65520, where halves are finite).
inline int32_t round_half(int32_t x)
{
    const uint32_t a = static_cast<uint32_t>(x < 0 ? -x : x);
    if (a <= 2048)
        return x;
    int top = 11; // a >= 2^11: the half keeps the 11 leading bits
    while ((a >> (top + 1)) != 0)
        top++;
    const int drop = top - 10;
    const uint32_t ulp = 1u << drop, rest = a & (ulp - 1);
    uint32_t r = a - rest;
    if (rest > ulp / 2 || (rest == ulp / 2 && (r & ulp)))
        r += ulp;
    return x < 0 ? -static_cast<int32_t>(r) : static_cast<int32_t>(r);
}

//! "half": int8 messages, APP and Q integers rounded to half precision (no
//! saturation: |L| <= 32000 + 64 * 127 stays finite). int32 lanes hold them. Known
//! zeros start at 32000 and are updated as any other position (not pinned): their Q
//! stays far above the 127 cap, so only their own APP value differs from pinning, and
//! the GPU kernel saves a test per edge.
struct half_traits {
    typedef int32_t store;
    typedef int8_t msg;
    typedef int32_t work;
    typedef int32_t index;
    static constexpr work filler = app_max; // 32000 is a half
    static inline work sat(int x) { return round_half(x); }
    static inline store from_sum(int x)
    {
        return round_half(x > app_max ? app_max : (x < -app_max ? -app_max : x));
    }
    static constexpr work big = 1 << 30;
    static constexpr bool pin_known_zeros = false;
};

struct float_traits {
    typedef float store;
    typedef float msg;
    typedef float work;
    typedef int32_t index;
    static constexpr float filler = 1e6f;
    static inline float sat(float x) { return x; }
    static inline store from_sum(int x) { return static_cast<float>(x); }
    static constexpr float big = 3e38f;
    static constexpr bool pin_known_zeros = true;
};

// The kernels run over n rows (one edge of each); restrict lets them vectorise.

//! Q = sat(L - R).
template <typename Tr>
inline void load_q(const typename Tr::store* __restrict__ L,
                   const typename Tr::msg* __restrict__ R,
                   typename Tr::work* __restrict__ Q,
                   int n)
{
    for (int r = 0; r < n; r++)
        Q[r] = Tr::sat(L[r] - R[r]);
}

//! Starts the minima of n rows: none seen, sign product positive.
template <typename Tr>
inline void reset_minima(typename Tr::work* min1,
                         typename Tr::work* min2,
                         typename Tr::index* pos,
                         typename Tr::index* sign,
                         int n)
{
    std::fill(min1, min1 + n, Tr::big);
    std::fill(min2, min2 + n, Tr::big);
    std::fill(pos, pos + n, typename Tr::index(0));
    std::fill(sign, sign + n, typename Tr::index(0));
}

//! Folds edge j's Q into the two minima, the minimum's position and the sign product.
template <typename Tr>
inline void track_minima(const typename Tr::work* __restrict__ Q,
                         typename Tr::work* __restrict__ min1,
                         typename Tr::work* __restrict__ min2,
                         typename Tr::index* __restrict__ pos,
                         typename Tr::index* __restrict__ sign,
                         typename Tr::index j,
                         int n)
{
    typedef typename Tr::work W;
    typedef typename Tr::index I;
    for (int r = 0; r < n; r++) {
        const W q = Q[r];
        const W a = q < 0 ? W(-q) : q;
        const W m1 = min1[r];
        const W m2 = min2[r];
        const I p = pos[r];
        sign[r] = sign[r] ^ static_cast<I>(q < 0);
        // Plain selects (no std::min/max references) so GCC vectorises the int16 case.
        const W lo = a < m1 ? a : m1;
        const W hi = a < m1 ? m1 : a;
        pos[r] = a < m1 ? j : p;
        min2[r] = hi < m2 ? hi : m2;
        min1[r] = lo;
    }
}

//! Edge j's new messages R from the scaled minima mag1/mag2, and the updated APP
//! values sat(Q + R) into L.
template <typename Tr>
inline void store_update(const typename Tr::work* __restrict__ Q,
                         const typename Tr::work* __restrict__ mag1,
                         const typename Tr::work* __restrict__ mag2,
                         const typename Tr::index* __restrict__ pos,
                         const typename Tr::index* __restrict__ sign,
                         typename Tr::index j,
                         typename Tr::msg* __restrict__ R,
                         typename Tr::store* __restrict__ L,
                         int n)
{
    typedef typename Tr::work W;
    typedef typename Tr::index I;
    for (int r = 0; r < n; r++) {
        const W q = Q[r];
        const W m1 = mag1[r], m2 = mag2[r]; // both loaded: no branch, so it vectorises
        const W mag = pos[r] == j ? m2 : m1;
        const I neg = sign[r] ^ static_cast<I>(q < 0);
        const W rn = mag * W(1 - 2 * neg);
        R[r] = static_cast<typename Tr::msg>(rn);
        L[r] = static_cast<typename Tr::store>(Tr::sat(q + rn));
    }
}

//! Hard decisions (bit = L < 0) of the k info bits L[at(i)], packed MSB first, and
//! their APP values into `soft` when it is not null.
template <typename S, typename At>
inline void write_info_bits(const S* L, int k, At at, uint8_t* out, float* soft)
{
    std::memset(out, 0, packed_bytes(k));
    for (int i = 0; i < k; i++)
        if (L[at(i)] < 0)
            out[i >> 3] |= static_cast<uint8_t>(0x80u >> (i & 7));
    if (soft)
        for (int i = 0; i < k; i++)
            soft[i] = static_cast<float>(L[at(i)]);
}

//! The validated decoder options and the check-message magnitudes they define.
class config
{
public:
    //! Throws gpufec::error naming the allowed values. Float minima are capped at
    //! `float_cap` before scaling (a row of degree 1 has no second minimum).
    explicit config(const ldpc_decoder_options& opt,
                    float float_cap = std::numeric_limits<float>::infinity())
        : d_opt(opt), d_float_cap(float_cap)
    {
        if (opt.iterations < 1 || opt.iterations > 100)
            throw error("ldpc decoder: iterations = " + std::to_string(opt.iterations) +
                        "; allowed: 1..100");
        if (opt.algorithm != ldpc_algorithm::normalized &&
            opt.algorithm != ldpc_algorithm::offset)
            throw error("ldpc decoder: algorithm unknown; allowed: normalized, offset");
        if (opt.arithmetic != ldpc_arithmetic::int8 &&
            opt.arithmetic != ldpc_arithmetic::float32 &&
            opt.arithmetic != ldpc_arithmetic::half)
            throw error("ldpc decoder: arithmetic unknown; allowed: int8, float, half");
        if (opt.algorithm == ldpc_algorithm::normalized &&
            !(opt.alpha > 0.0f && opt.alpha <= 1.0f))
            throw error("ldpc decoder: alpha = " + std::to_string(opt.alpha) +
                        "; allowed: 0 < alpha <= 1");
        if (opt.algorithm == ldpc_algorithm::offset &&
            !(opt.beta >= 0.0f && opt.beta <= 127.0f))
            throw error("ldpc decoder: beta = " + std::to_string(opt.beta) +
                        "; allowed: 0 <= beta <= 127 (input LLR units)");
        d_alpha16 = std::max(1, static_cast<int>(std::lround(opt.alpha * 16.0f)));
        d_beta_int = static_cast<int>(std::lround(opt.beta));
    }

    const ldpc_decoder_options& options() const { return d_opt; }
    //! The int8 arithmetic's constants: round(16 alpha) (at least 1) and round(beta).
    int alpha16() const { return d_alpha16; }
    int beta_int() const { return d_beta_int; }

    //! "normalized min-sum int8 x10 on cpu": the options part of a decoder's name.
    std::string describe() const
    {
        return std::string(d_opt.algorithm == ldpc_algorithm::normalized ? "normalized"
                                                                         : "offset") +
               " min-sum " + arithmetic_name(d_opt.arithmetic) + " x" +
               std::to_string(d_opt.iterations) + " on cpu";
    }

    static const char* arithmetic_name(ldpc_arithmetic a)
    {
        return a == ldpc_arithmetic::int8
                   ? "int8"
                   : (a == ldpc_arithmetic::half ? "half" : "float");
    }

    //! Check-message magnitudes from the minima, in place.
    void scale_minima(int16_t* __restrict__ m, int n) const { scale_int(m, n); }
    void scale_minima(int32_t* __restrict__ m, int n) const { scale_int(m, n); }
    void scale_minima(float* __restrict__ m, int n) const
    {
        // The cap inside the scaling loop (a pass of its own costs Z = 1 graphs ~7%),
        // and no cap at all where there is none (~1% for lifted graphs).
        if (d_float_cap < std::numeric_limits<float>::infinity())
            scale_float(m, n, [cap = d_float_cap](float x) { return std::min(x, cap); });
        else
            scale_float(m, n, [](float x) { return x; });
    }

private:
    template <typename T>
    void scale_int(T* __restrict__ m, int n) const
    {
        // A minimum above 127 only arises with no second minimum or a saturated APP;
        // messages stay int8.
        if (d_opt.algorithm == ldpc_algorithm::normalized) {
            const int a = d_alpha16;
            for (int r = 0; r < n; r++)
                m[r] = static_cast<T>((std::min<int>(m[r], llr_max) * a) >> 4);
        } else {
            const int b = d_beta_int;
            for (int r = 0; r < n; r++)
                m[r] = static_cast<T>(std::max(std::min<int>(m[r], llr_max) - b, 0));
        }
    }
    template <typename Cap>
    void scale_float(float* __restrict__ m, int n, Cap cap) const
    {
        if (d_opt.algorithm == ldpc_algorithm::normalized) {
            const float a = d_opt.alpha;
            for (int r = 0; r < n; r++)
                m[r] = cap(m[r]) * a;
        } else {
            const float b = d_opt.beta;
            for (int r = 0; r < n; r++)
                m[r] = std::max(cap(m[r]) - b, 0.0f);
        }
    }

    ldpc_decoder_options d_opt;
    float d_float_cap;
    int d_alpha16 = 12;
    int d_beta_int = 4;
};

} // namespace min_sum
} // namespace gpufec

#endif
