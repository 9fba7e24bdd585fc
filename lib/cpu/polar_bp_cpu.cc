/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU belief-propagation polar decoder (options are checked by make_polar_decoder_cpu).
//
// Factor graph of x = u G_N (no bit reversal): node layers 0 (u) .. n (x); stage s
// links layer s to layer s+1 with butterflies of span h = 2^s, exactly the encoder's
// x_j = u_j ^ u_{j+h}, x_{j+h} = u_{j+h} (nr_polar_code::transform). Each layer keeps
// left-going messages L (from the channel side) and right-going messages R (from the
// u side). One processing element, inputs (La, Lb) = L[s+1][j, j+h] and
// (Ra, Rb) = R[s][j, j+h]:
//   L[s][j]     = f(La, Lb + Rb)      R[s+1][j]     = f(Ra, Lb + Rb)
//   L[s][j+h]   = f(Ra, La) + Lb      R[s+1][j+h]   = f(Ra, La) + Rb
// with f the scaled min-sum box-plus. An iteration is a sweep s = n-1..0 computing L
// (using R of the previous iteration), then a sweep s = 0..n-1 computing R; L[n] is
// the channel and R[0] the prior (known zero on frozen bits, 0 elsewhere).
//
// Scaled min-sum, f = 15/16 sign(a) sign(b) min(|a|, |b|) (the factor of Yuan and
// Parhi's BP polar decoders, ICASSP 2013 / IEEE TSP 2014). Plain min-sum overestimates
// the box-plus magnitude, and on the loopy polar graph the overconfident messages
// reinforce themselves: on the 2000 frames of BpBlerAt2dB (k = 512, e = 1024, 2 dB,
// 50 iterations, ET) scale 1 gives 911 frame errors, 31/32 268, 15/16 144, 7/8 239,
// 13/16 670 (SC: 262). 15/16 is also a shift and a subtraction in fixed point.
#include "cpu/fixed_length_decoder.h"
#include "cpu/polar_bp_int8_lanes.h"
#include "cpu/polar_common.h"
#include <gpufec/polar_decoding.h>

#include <type_traits>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace gpufec {

namespace {

constexpr float minsum_scale = 15.0f / 16.0f;

//! Float messages (the reference arithmetic).
struct float_messages {
    using type = float;
    static constexpr float known_zero = polar_known_zero_llr;
    static float boxplus(float a, float b)
    {
        const float m = minsum_scale * std::min(std::fabs(a), std::fabs(b));
        return ((a < 0) != (b < 0)) ? -m : m;
    }
    static float add(float a, float b) { return a + b; }
    static float boxplus_add(float a, float b, float c) { return boxplus(a, b) + c; }
};
//! The paper's 8-bit messages (polar_bp_int8, shared with the kernel).
struct int8_messages : polar_bp_int8 {
    using type = int8_t;
};

using namespace polar_bp_lanes;

//! Eight processing elements in 16-bit lanes: the top and bottom outputs of a left
//! (L) or right (R) sweep from the butterflies' top and bottom L and R messages.
template <bool Left>
inline void pe8(i16x8 la, i16x8 lb, i16x8 ra, i16x8 rb, i16x8& top, i16x8& bottom)
{
    top = scaled_sum8(Left ? la : ra, lb + rb, splat8(0));
    bottom = saturate8(scaled_sum8(ra, la, Left ? lb : rb));
}

//! Elements [0, h) of one butterfly block, from 0 in steps of 8 while 8 remain (int8
//! only); returns where the scalar loop goes on.
template <class M, bool Left, class T>
inline int
block_wide(const T* La, const T* Lb, const T* Ra, const T* Rb, T* Oa, T* Ob, int h)
{
    int j = 0;
    if constexpr (std::is_same_v<M, int8_messages>)
        for (; j + 8 <= h; j += 8) {
            const i16x8 la = load8(La + j), lb = load8(Lb + j);
            const i16x8 ra = load8(Ra + j), rb = load8(Rb + j);
            i16x8 top, bottom;
            pe8<Left>(la, lb, ra, rb, top, bottom);
            store8(Oa + j, top);
            store8(Ob + j, bottom);
        }
    return j;
}

//! Stages of span H < 8 (int8 only): nodes [0, N) sixteen at a time, from 0 while 16
//! remain; returns where the block loop goes on.
template <int H, class M, bool Left, class T>
inline int stage_narrow(const T* __restrict__ Lr,
                        const T* __restrict__ Rl,
                        T* __restrict__ out,
                        int N)
{
    int b = 0;
    if constexpr (std::is_same_v<M, int8_messages> && H > 0 && H < 8)
        for (; b + 16 <= N; b += 16) {
            i16x8 la, lb, ra, rb, top, bottom;
            split16<H>(Lr + b, la, lb);
            split16<H>(Rl + b, ra, rb);
            pe8<Left>(la, lb, ra, rb, top, bottom);
            merge16<H>(out + b, top, bottom);
        }
    return b;
}

// Left-going messages of stage span h over the N nodes of a layer.
template <int H, class M, class T = typename M::type>
inline void stage_left(const T* __restrict__ Lr,
                       const T* __restrict__ Rl,
                       T* __restrict__ Ll,
                       int N,
                       int h_runtime)
{
    const int h = H > 0 ? H : h_runtime;
    for (int b = stage_narrow<H, M, true>(Lr, Rl, Ll, N); b < N; b += 2 * h) {
        const T* La = Lr + b;
        const T* Lb = La + h;
        const T* Ra = Rl + b;
        const T* Rb = Ra + h;
        T* Oa = Ll + b;
        T* Ob = Oa + h;
        for (int j = block_wide<M, true>(La, Lb, Ra, Rb, Oa, Ob, h); j < h; j++) {
            Oa[j] = M::boxplus(La[j], M::add(Lb[j], Rb[j]));
            Ob[j] = M::boxplus_add(Ra[j], La[j], Lb[j]);
        }
    }
}

// Right-going messages of stage span h.
template <int H, class M, class T = typename M::type>
inline void stage_right(const T* __restrict__ Lr,
                        const T* __restrict__ Rl,
                        T* __restrict__ Rr,
                        int N,
                        int h_runtime)
{
    const int h = H > 0 ? H : h_runtime;
    for (int b = stage_narrow<H, M, false>(Lr, Rl, Rr, N); b < N; b += 2 * h) {
        const T* La = Lr + b;
        const T* Lb = La + h;
        const T* Ra = Rl + b;
        const T* Rb = Ra + h;
        T* Oa = Rr + b;
        T* Ob = Oa + h;
        for (int j = block_wide<M, false>(La, Lb, Ra, Rb, Oa, Ob, h); j < h; j++) {
            Oa[j] = M::boxplus(Ra[j], M::add(Lb[j], Rb[j]));
            Ob[j] = M::boxplus_add(Ra[j], La[j], Rb[j]);
        }
    }
}

// The small spans get compile-time trip counts so that the inner loops unroll.
template <class M, class T = typename M::type>
inline void sweep_stage(bool left, const T* Lr, const T* Rl, T* out, int N, int h)
{
    switch (h) {
    case 1:
        return left ? stage_left<1, M>(Lr, Rl, out, N, 1)
                    : stage_right<1, M>(Lr, Rl, out, N, 1);
    case 2:
        return left ? stage_left<2, M>(Lr, Rl, out, N, 2)
                    : stage_right<2, M>(Lr, Rl, out, N, 2);
    case 4:
        return left ? stage_left<4, M>(Lr, Rl, out, N, 4)
                    : stage_right<4, M>(Lr, Rl, out, N, 4);
    default:
        return left ? stage_left<0, M>(Lr, Rl, out, N, h)
                    : stage_right<0, M>(Lr, Rl, out, N, h);
    }
}

// One worker's scratch (made by make_scratch(), owned by the engine), sized for the code.
template <class T>
struct bp_workspace : scratch {
    bp_workspace(int N, int n, int K)
        : L(size_t(n + 1) * N),
          R(size_t(n + 1) * N),
          u(N),
          c(K),
          uw(std::max(1, N / 64)),
          xw(std::max(1, N / 64)),
          sum(N)
    {
    }
    std::vector<T> L, R;          // (n + 1) layers of N
    std::vector<uint8_t> u, c;    // decisions, info bits
    std::vector<uint64_t> uw, xw; // u_hat G_N and x_hat, 64 bits a word
    std::vector<int32_t> sum;     // int8 messages: the channel's received sums
};

// Signs of a + b (1 = negative) over n values, bit j of word j / 64 (n < 64: one word).
template <class T>
inline void pack_signs(const T* a, const T* b, int n, uint64_t* words)
{
    for (int w = 0; w * 64 < n; w++) {
        const int len = std::min(64, n - 64 * w);
        uint64_t bits = 0;
        for (int j = 0; j < len; j++)
            bits |= static_cast<uint64_t>((a[64 * w + j] + b[64 * w + j]) < 0) << j;
        words[w] = bits;
    }
}

// x = u G_N on bit-packed words (nr_polar_code::transform, 64 bits at a time).
inline void transform_packed(uint64_t* w, int N)
{
    static const uint64_t keep[6] = { 0x5555555555555555ull, 0x3333333333333333ull,
                                      0x0F0F0F0F0F0F0F0Full, 0x00FF00FF00FF00FFull,
                                      0x0000FFFF0000FFFFull, 0x00000000FFFFFFFFull };
    const int words = std::max(1, N / 64);
    // Spans inside a word: bit j (j & h == 0) ^= bit j + h.
    for (int s = 0, h = 1; s < 6 && h < N; s++, h <<= 1)
        for (int i = 0; i < words; i++)
            w[i] ^= (w[i] >> h) & keep[s];
    for (int h = 1; h < words; h <<= 1)
        for (int b = 0; b < words; b += 2 * h)
            for (int i = b; i < b + h; i++)
                w[i] ^= w[i + h];
}

template <class M>
class polar_bp_decoder_cpu : public fixed_length_cpu_decoder
{
    using T = typename M::type;
    using workspace = bp_workspace<T>;

public:
    polar_bp_decoder_cpu(const nr_polar_code& code, const polar_decoder_options& opt)
        : fixed_length_cpu_decoder(
              "polar", code.e(), polar_crc_rule(code, opt.rntis).output_bits()),
          d_code(code),
          d_rule(code, opt.rntis),
          d_iterations(opt.bp_iterations),
          d_early(opt.bp_early_termination)
    {
        const int N = code.N();
        d_fill = polar_channel_fill(code);
        d_prior.assign(N, T(0));
        for (int j = 0; j < N; j++)
            if (code.frozen()[j])
                d_prior[j] = static_cast<T>(M::known_zero);
    }

    bool has_soft_output() const override { return !d_rule.detects_rnti(); }

    std::unique_ptr<scratch> make_scratch() const override
    {
        return std::make_unique<workspace>(d_code.N(), d_code.n(), d_code.K());
    }

    frame_status decode_one(const llr8_t* llrs,
                            uint8_t* packed,
                            float* soft,
                            const exec_ctx& ctx,
                            size_t worker) override
    {
        return decode_frame(llrs, packed, soft, ctx.worker_scratch<workspace>(worker));
    }

    std::string name() const override
    {
        return std::string("polar bp") + (std::is_same<T, float>::value ? "" : " int8") +
               " x" + std::to_string(d_iterations) + (d_early ? " et" : "") +
               " (k=" + std::to_string(d_code.k()) + ", e=" + std::to_string(d_code.e()) +
               ", N=" + std::to_string(d_code.N()) + ", " + to_string(d_code.crc()) +
               ") on cpu";
    }

private:
    frame_status
    decode_frame(const llr8_t* in, uint8_t* out, float* soft, workspace& ws) const
    {
        const int N = d_code.N(), n = d_code.n();
        std::fill(ws.R.begin(), ws.R.end(), T(0));
        T* L = ws.L.data();
        T* R = ws.R.data();
        T* ch = L + size_t(n) * N;
        const auto& map = d_code.output_to_codeword();
        if constexpr (std::is_same<T, float>::value) {
            std::copy(d_fill.begin(), d_fill.end(), ch);
            for (size_t j = 0; j < map.size(); j++)
                ch[map[j]] += static_cast<float>(in[j]);
        } else {
            // int8: the received sum saturated, known zeros at the largest value.
            std::vector<int32_t>& sum = ws.sum;
            std::fill(sum.begin(), sum.end(), 0);
            for (size_t j = 0; j < map.size(); j++)
                sum[map[j]] += in[j];
            for (int d = 0; d < N; d++)
                ch[d] = d_fill[d] != 0.0f ? static_cast<T>(M::known_zero)
                                          : M::saturate(sum[d]);
        }
        std::copy(d_prior.begin(), d_prior.end(), R);

        uint32_t rnti = 0;
        int it = 1;
        for (;; it++) {
            for (int s = n - 1; s >= 0; s--)
                sweep_stage<M>(true,
                               L + size_t(s + 1) * N,
                               R + size_t(s) * N,
                               L + size_t(s) * N,
                               N,
                               1 << s);
            // The right sweep only feeds the next iteration and the stopping test.
            if (it == d_iterations)
                break;
            for (int s = 0; s < n; s++)
                sweep_stage<M>(false,
                               L + size_t(s + 1) * N,
                               R + size_t(s) * N,
                               R + size_t(s + 1) * N,
                               N,
                               1 << s);
            if (d_early && g_matrix_holds(L, R, ws) && crc_holds(ws, &rnti))
                break;
        }
        decide(L, R, ws);
        const bool ok = crc_holds(ws, &rnti);
        d_rule.write_output(ws.c.data(), rnti, out);

        const auto& info = d_code.bit_positions();
        const int k = d_code.k();
        if (soft)
            for (int j = 0; j < k; j++)
                soft[j] = static_cast<float>(L[info[j]] + R[info[j]]);
        return frame_status{ it, ok };
    }

    // u_hat from the u-side a-posteriori LLRs (frozen bits come out 0 by their prior).
    void decide(const T* __restrict__ L, const T* __restrict__ R, workspace& ws) const
    {
        const int N = d_code.N();
        uint8_t* __restrict__ u = ws.u.data();
        for (int j = 0; j < N; j++)
            u[j] = (L[j] + R[j]) < 0;
    }

    // G-matrix criterion: the x-side decisions equal u_hat G_N. Leaves u_hat in ws.u
    // when it holds.
    bool g_matrix_holds(const T* L, const T* R, workspace& ws) const
    {
        const int N = d_code.N(), n = d_code.n();
        const int words = std::max(1, N / 64);
        pack_signs(L, R, N, ws.uw.data());
        transform_packed(ws.uw.data(), N);
        pack_signs(L + size_t(n) * N, R + size_t(n) * N, N, ws.xw.data());
        if (!std::equal(ws.uw.begin(), ws.uw.begin() + words, ws.xw.begin()))
            return false;
        decide(L, R, ws);
        return true;
    }

    //! The CRC verdict of u_hat (polar_crc_rule); leaves its K bits in ws.c.
    bool crc_holds(workspace& ws, uint32_t* rnti) const
    {
        const auto& info = d_code.bit_positions();
        const int K = d_code.K();
        for (int j = 0; j < K; j++)
            ws.c[j] = ws.u[info[j]];
        return d_rule.check(d_code, ws.c.data(), rnti);
    }

    nr_polar_code d_code;
    polar_crc_rule d_rule;
    int d_iterations;
    bool d_early;
    std::vector<float> d_fill; // channel LLR before adding the received values
    std::vector<T> d_prior;    // R at the u layer: known zero on frozen bits
};

} // namespace

std::unique_ptr<fixed_length_cpu_decoder>
make_polar_bp_decoder_cpu(const nr_polar_code& code, const polar_decoder_options& opt)
{
    if (opt.bp_arithmetic == polar_bp_arithmetic::int8)
        return std::make_unique<polar_bp_decoder_cpu<int8_messages>>(code, opt);
    return std::make_unique<polar_bp_decoder_cpu<float_messages>>(code, opt);
}

} // namespace gpufec
