/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA MIMO detection (issue 10): LMMSE with max-log demapping, one thread per
// coherence block (frame). Per block: G = H^H H + noise_var I, its Cholesky factor L
// and L^-1, so G^-1 = L^-H L^-1; per stream mu_k = (G^-1 H^H H)_kk = 1 - noise_var
// (G^-1)_kk. Per received vector: s_hat = G^-1 H^H y, demapped per stream at
// s_hat_k / mu_k with noise variance (1 - mu_k) / mu_k, as the CPU's detect_lmmse
// (which solves the same system in double precision by Gauss-Jordan).
//
// MTT: one thread per coherence block runs lib/cpu/mtt_float.h (sorted QR, reduction
// chain, extensions, max-log) per vector, the CPU stage's float code: the same LLRs.
//
// K-best: one thread per received vector runs lib/cpu/kbest_float.h, likewise.
#include "../common/cuda_utils.h"
#include "cpu/kbest_float.h"
#include "cpu/mtt_float.h"
#include "mimo_cuda.h"

#include <cuComplex.h>
#include <algorithm>
#include <random>
#include <vector>

namespace gpufec {
namespace cuda {
namespace {

struct lmmse_params {
    const float2* samples;
    const float2* channels;
    float* llrs;
    const frame_extent* frames;
    uint32_t num_frames;
    frame_status* status;
    int nr, nt, bits, axis_bits;
    bool bpsk;
    bool noise_var_per_frame; //!< the frame's aux entry nr * nt holds its noise variance
    float noise_var;
    float level[16]; //!< the PAM levels of one axis (QAM), indexed by the axis bits
};

__device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
//! conj(a) b
__device__ __forceinline__ float2 cmulc(float2 a, float2 b)
{
    return make_float2(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}
__device__ __forceinline__ float2 cadd(float2 a, float2 b)
{
    return make_float2(a.x + b.x, a.y + b.y);
}
__device__ __forceinline__ float2 csub(float2 a, float2 b)
{
    return make_float2(a.x - b.x, a.y - b.y);
}
__device__ __forceinline__ bool finite2(float2 a)
{
    return isfinite(a.x) && isfinite(a.y);
}

//! Max-log LLRs of one stream estimate (the constellation's per-axis PAM), as
//! constellation::demap_maxlog. AB >= 0: the bits per axis known at compile time (0:
//! BPSK), so the loops unroll and `out` may be a register array.
template <int AB = -1>
__device__ __forceinline__ void
demap(const lmmse_params& p, float2 est, float noise_var, float* out)
{
    const float inv = 1.0f / noise_var;
    if (AB >= 0 ? AB == 0 : p.bpsk) {
        out[0] = 4.0f * 0.70710678f * inv * (est.x + est.y);
        return;
    }
    const int axis_bits = AB >= 0 ? AB : p.axis_bits;
    const int levels = 1 << axis_bits;
#pragma unroll
    for (int axis = 0; axis < 2; axis++) {
        const float v = axis ? est.y : est.x;
        float best0[4], best1[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            best0[k] = best1[k] = INFINITY;
#pragma unroll
        for (int a = 0; a < 16; a++) {
            if (a >= levels)
                break;
            const float d = (v - p.level[a]) * (v - p.level[a]);
#pragma unroll
            for (int k = 0; k < 4; k++)
                if (k < axis_bits) {
                    if ((a >> (axis_bits - 1 - k)) & 1)
                        best1[k] = fminf(best1[k], d);
                    else
                        best0[k] = fminf(best0[k], d);
                }
        }
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (k < axis_bits)
                out[2 * k + axis] = (best1[k] - best0[k]) * inv;
    }
}

//! The noise variance of frame e (the options' one, or its own); 0 when not finite
//! and > 0, which the kernels turn into all-zero LLRs as the CPU stage does.
__device__ __forceinline__ float frame_noise_var(const lmmse_params& p,
                                                 const frame_extent& e)
{
    const float nv =
        p.noise_var_per_frame ? p.channels[e.aux_offset + p.nr * p.nt].x : p.noise_var;
    return nv > 0.0f && isfinite(nv) ? nv : 0.0f;
}

//! Zeros of a frame the kernels cannot detect (its noise variance is unusable).
__device__ __forceinline__ void zero_frame(float* out, int count)
{
    for (int i = 0; i < count; i++)
        out[i] = 0.0f;
}

//! N: the largest antenna count this instance takes (arrays in registers). NT, NR, AB
//! (bits per axis) > 0 / >= 0: compiled for those sizes (loops unroll, each vector's
//! LLRs leave in 16-byte stores when aligned).
template <int N, int NT = 0, int NR = 0, int AB = -1>
__global__ void __launch_bounds__(128) lmmse_kernel(const lmmse_params p)
{
    constexpr bool fixed = NT > 0 && NR > 0 && AB >= 0;
    constexpr int fixed_bits = AB > 0 ? 2 * AB : 1;
    const int nr = NR ? NR : p.nr, nt = NT ? NT : p.nt;
    const int bits = AB >= 0 ? fixed_bits : p.bits;
    for (uint32_t f = blockIdx.x * blockDim.x + threadIdx.x; f < p.num_frames;
         f += gridDim.x * blockDim.x) {
        const frame_extent e = p.frames[f];
        const int vectors = static_cast<int>(e.in_items) / nr;
        float* out = p.llrs + e.out_offset / sizeof(float);
        const int per_vector = nt * bits;
        const float noise_var = frame_noise_var(p, e);
        if (noise_var == 0.0f) {
            zero_frame(out, vectors * per_vector);
            p.status[f] = frame_status{ 1, true };
            continue;
        }
        float2 h[N][N]; // h[row][col], row < nr, col < nt
        bool ok = true;
#pragma unroll
        for (int r = 0; r < N; r++)
#pragma unroll
            for (int c = 0; c < N; c++)
                if (r < nr && c < nt) {
                    h[r][c] = p.channels[e.aux_offset + r * nt + c];
                    ok = ok && finite2(h[r][c]);
                }
        // L L^H = G = H^H H + noise_var I (lower triangular, real diagonal), then L^-1.
        float2 l[N][N], li[N][N];
#pragma unroll
        for (int i = 0; i < N; i++)
#pragma unroll
            for (int j = 0; j < N; j++) {
                l[i][j] = make_float2(0.0f, 0.0f);
                li[i][j] = make_float2(0.0f, 0.0f);
            }
#pragma unroll
        for (int j = 0; j < N; j++) {
            if (j >= nt)
                continue;
#pragma unroll
            for (int i = 0; i < N; i++) {
                if (i < j || i >= nt)
                    continue;
                float2 g = make_float2(i == j ? noise_var : 0.0f, 0.0f);
#pragma unroll
                for (int r = 0; r < N; r++)
                    if (r < nr)
                        g = cadd(g,
                                 cmulc(h[r][i], h[r][j])); // G_ij = sum conj(h_ri) h_rj
#pragma unroll
                for (int k = 0; k < N; k++)
                    if (k < j)
                        g = csub(g, cmulc(l[j][k], l[i][k])); // - L_ik conj(L_jk)
                if (i == j) {
                    l[j][j] = make_float2(sqrtf(fmaxf(g.x, 1e-30f)), 0.0f);
                } else {
                    // L_ij = (G_ij - sum_k<j L_ik conj(L_jk)) / L_jj.
                    const float inv = 1.0f / l[j][j].x;
                    l[i][j] = make_float2(g.x * inv, g.y * inv);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < N; j++) {
            if (j >= nt)
                continue;
            li[j][j] = make_float2(1.0f / l[j][j].x, 0.0f);
#pragma unroll
            for (int i = 0; i < N; i++) {
                if (i <= j || i >= nt)
                    continue;
                float2 s = make_float2(0.0f, 0.0f);
#pragma unroll
                for (int k = 0; k < N; k++)
                    if (k >= j && k < i)
                        s = cadd(s, cmul(l[i][k], li[k][j]));
                const float inv = 1.0f / l[i][i].x;
                li[i][j] = make_float2(-s.x * inv, -s.y * inv);
            }
        }
        float mu[N];
#pragma unroll
        for (int k = 0; k < N; k++) {
            float d = 0.0f; // (G^-1)_kk = sum_i |(L^-1)_ik|^2
#pragma unroll
            for (int i = 0; i < N; i++)
                if (i < nt)
                    d += li[i][k].x * li[i][k].x + li[i][k].y * li[i][k].y;
            mu[k] = 1.0f - noise_var * d;
        }
        for (int v = 0; v < vectors; v++) {
            float2 y[N], u[N], t[N];
            bool vok = ok;
#pragma unroll
            for (int r = 0; r < N; r++)
                if (r < nr) {
                    y[r] = p.samples[e.in_offset + v * nr + r];
                    vok = vok && finite2(y[r]);
                }
#pragma unroll
            for (int c = 0; c < N; c++) {
                u[c] = make_float2(0.0f, 0.0f);
#pragma unroll
                for (int r = 0; r < N; r++)
                    if (r < nr && c < nt)
                        u[c] = cadd(u[c], cmulc(h[r][c], y[r])); // H^H y
            }
#pragma unroll
            for (int i = 0; i < N; i++) { // t = L^-1 u
                t[i] = make_float2(0.0f, 0.0f);
#pragma unroll
                for (int k = 0; k < N; k++)
                    if (k <= i && i < nt)
                        t[i] = cadd(t[i], cmul(li[i][k], u[k]));
            }
            float* o = out + v * per_vector;
            float buf[fixed ? NT * fixed_bits : 1];
            float* dst = fixed ? buf : o;
#pragma unroll
            for (int k = 0; k < N; k++) { // s_hat = L^-H t
                if (k >= nt)
                    continue;
                float2 s = make_float2(0.0f, 0.0f);
#pragma unroll
                for (int i = 0; i < N; i++)
                    if (i >= k && i < nt)
                        s = cadd(s, cmulc(li[i][k], t[i]));
                float* ok_out = dst + k * bits;
                if (!vok || !(mu[k] > 1e-6f)) {
#pragma unroll
                    for (int b = 0; b < 8; b++)
                        if (b < bits)
                            ok_out[b] = 0.0f; // nothing known of this stream
                    continue;
                }
                const float m = mu[k];
                demap<AB>(p,
                          make_float2(s.x / m, s.y / m),
                          fmaxf((1.0f - m) / m, 1e-12f),
                          ok_out);
            }
            if constexpr (fixed) {
                constexpr int count = NT * fixed_bits;
                if (count % 4 == 0 && (reinterpret_cast<uintptr_t>(o) & 15) == 0) {
#pragma unroll
                    for (int i = 0; i < count; i += 4)
                        *reinterpret_cast<float4*>(o + i) =
                            make_float4(buf[i], buf[i + 1], buf[i + 2], buf[i + 3]);
                } else {
#pragma unroll
                    for (int i = 0; i < count; i++)
                        o[i] = buf[i];
                }
            }
        }
        p.status[f] = frame_status{ 1, true };
    }
}

//! MTT, one thread per coherence block, MaxQ: the constellation size bound (4, 16, 64).
template <int MaxQ, int NT = 0, int NR = 0, int Bits = 0> // > 0: compile-time sizes
__global__ void __launch_bounds__(128)
    mtt_kernel(const lmmse_params p, const mtt_float::view c)
{
    const int nr = NR ? NR : p.nr, nt = NT ? NT : p.nt;
    for (uint32_t f = blockIdx.x * blockDim.x + threadIdx.x; f < p.num_frames;
         f += gridDim.x * blockDim.x) {
        const frame_extent e = p.frames[f];
        const int vectors = static_cast<int>(e.in_items) / nr;
        float* out = p.llrs + e.out_offset / sizeof(float);
        const auto* h =
            reinterpret_cast<const mtt_float::cplx*>(p.channels + e.aux_offset);
        const float noise_var = frame_noise_var(p, e);
        if (noise_var == 0.0f) {
            zero_frame(out, vectors * nt * p.bits);
            p.status[f] = frame_status{ 1, true };
            continue;
        }
        for (int v = 0; v < vectors; v++)
            mtt_float::detect<MaxQ, NT, NR, Bits>(
                h,
                reinterpret_cast<const mtt_float::cplx*>(p.samples + e.in_offset +
                                                         v * nr),
                nr,
                nt,
                c,
                noise_var,
                out + v * nt * p.bits);
        p.status[f] = frame_status{ 1, true };
    }
}

//! K-best, one thread per received vector: thread i takes vector i % coherence of
//! frame i / coherence (idle past a short frame's end). Its sorted lists live in local
//! memory (dynamically indexed); the same operations as the CPU stage: the same LLRs.
template <int MaxK, int NT = 0, int NR = 0, int Bits = 0> // > 0: compile-time sizes
__global__ void __launch_bounds__(128) kbest_kernel(
    const lmmse_params p, const mtt_float::cplx* points, int k, float clip, int coherence)
{
    const int nr = NR ? NR : p.nr, nt = NT ? NT : p.nt;
    const uint64_t total = static_cast<uint64_t>(p.num_frames) * coherence;
    for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
         i < total;
         i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
        const uint32_t f = static_cast<uint32_t>(i / coherence);
        const int v = static_cast<int>(i % coherence);
        const frame_extent e = p.frames[f];
        if (v == 0)
            p.status[f] = frame_status{ 1, true };
        if (v >= static_cast<int>(e.in_items) / nr)
            continue;
        float* out = p.llrs + e.out_offset / sizeof(float) + v * nt * p.bits;
        const float noise_var = frame_noise_var(p, e);
        if (noise_var == 0.0f) {
            zero_frame(out, nt * p.bits);
            continue;
        }
        kbest_float::detect<MaxK, NT, NR, Bits>(
            reinterpret_cast<const mtt_float::cplx*>(p.channels + e.aux_offset),
            reinterpret_cast<const mtt_float::cplx*>(p.samples + e.in_offset + v * nr),
            nr,
            nt,
            points,
            p.bits,
            k,
            clip,
            noise_var,
            out);
    }
}

//! What phase A of the group kernel leaves for one received vector.
struct qr_slot {
    mtt_float::sorted_qr qr;
    float* out;      //!< its nt * bits LLRs
    float noise_var; //!< 0: write zeros (non-finite input or noise variance)
};

/*!
 * MTT with the paper's mapping, G = min(Q, 32) lanes per received vector, so that the
 * per-vector state is a vertex per lane rather than Q vertices per thread (no local
 * memory, few registers, full occupancy). Per round: phase A, each thread takes the
 * next vector of its coherence block and leaves its sorted QR in shared memory (the
 * decompose() the CPU runs); phase B, groups of G lanes detect those vectors one
 * after another: lane v owns vertex v (and v + 32 for 64-QAM), the reduction reads the
 * predecessors' z - delta, distances and paths from shared memory, each lane extends
 * its own list paths, and the per-bit minima are reduced by shuffles (min is exact, so
 * the order does not matter). The same operations as mtt_float::detect: the same LLRs.
 */
template <int MaxQ, int NT = 0, int NR = 0, int Bits = 0> // > 0: compile-time sizes
__global__ void __launch_bounds__(128)
    mtt_group_kernel(const lmmse_params p, const mtt_float::view c)
{
    using mtt_float::cplx;
    constexpr int threads = 128;
    constexpr int G = MaxQ < 32 ? MaxQ : 32;
    constexpr int per_lane = MaxQ / G;
    constexpr int groups = threads / G;
    constexpr int unroll_q = MaxQ <= 16 ? MaxQ : 1; // 64-QAM: keep the code small
    __shared__ qr_slot slots[threads];
    __shared__ cplx points[MaxQ];
    // The chain at the previous stage, one 16-byte load per predecessor.
    struct alignas(16) node {
        float re, im; //!< z_row - the interference of its path
        float d;
        uint32_t path;
    };
    __shared__ node nodes[groups][MaxQ];
    // Per group, the least distance of its vector's paths (of every list) through each
    // point of each stage, as the int bits of a non-negative float (atomicMin orders
    // them as the floats).
    __shared__ int point_min[groups][mtt_float::max_nt][MaxQ];
    const int nr = NR ? NR : p.nr, nt = NT ? NT : p.nt;
    const int bits = Bits ? Bits : c.bits, q = 1 << bits;
    const int tid = threadIdx.x, group = tid / G, lane = tid % G;
    // The lanes of this thread's group within its warp, for __syncwarp and shuffles.
    const unsigned group_mask = (G == 32 ? 0xFFFFFFFFu : ((1u << G) - 1u))
                                << ((tid % 32) / G * G);
    for (int i = tid; i < q; i += threads)
        points[i] = c.points[i];

    for (uint32_t base = blockIdx.x * threads; base < p.num_frames;
         base += gridDim.x * threads) {
        const uint32_t f = base + tid;
        frame_extent e{};
        int vectors = 0;
        float noise_var = 0.0f;
        if (f < p.num_frames) {
            e = p.frames[f];
            vectors = static_cast<int>(e.in_items) / nr;
            noise_var = frame_noise_var(p, e);
        }
        // Rounds: the block's coherence blocks' vectors, one per thread per round.
        int rounds = vectors;
        for (int o = 16; o > 0; o /= 2)
            rounds = max(rounds, __shfl_xor_sync(0xFFFFFFFFu, rounds, o));
        __shared__ int block_rounds[threads / 32];
        if (tid % 32 == 0)
            block_rounds[tid / 32] = rounds;
        __syncthreads();
        rounds = 0;
        for (int w = 0; w < threads / 32; w++)
            rounds = max(rounds, block_rounds[w]);
        for (int round = 0; round < rounds; round++) {
            qr_slot& mine = slots[tid];
            mine.out = nullptr;
            if (round < vectors) {
                const auto* h = reinterpret_cast<const cplx*>(p.channels + e.aux_offset);
                const auto* y =
                    reinterpret_cast<const cplx*>(p.samples + e.in_offset + round * nr);
                mine.out = p.llrs + e.out_offset / sizeof(float) + round * nt * bits;
                mine.noise_var = noise_var;
                if (noise_var != 0.0f && mtt_float::inputs_finite(h, y, nr, nt))
                    mtt_float::decompose(h, y, nr, nt, mine.qr);
                else
                    mine.noise_var = 0.0f;
            }
            __syncthreads();
            for (int s = group; s < threads; s += groups) {
                const qr_slot& slot = slots[s];
                if (!slot.out)
                    continue; // uniform over the group
                if (slot.noise_var == 0.0f) {
                    for (int i = lane; i < nt * bits; i += G)
                        slot.out[i] = 0.0f;
                    continue;
                }
                const mtt_float::sorted_qr& qr = slot.qr;
                float d[per_lane];
                uint32_t path[per_lane];
#pragma unroll
                for (int j = 0; j < per_lane; j++) {
                    const int v = lane + j * G;
                    if (v < q) {
                        const cplx r = mtt_float::mul(qr.r[nt - 1][nt - 1], points[v]);
                        d[j] = mtt_float::norm2(
                            { qr.z[nt - 1].re - r.re, qr.z[nt - 1].im - r.im });
                        path[j] = static_cast<uint32_t>(v);
                    }
                }
                for (int i = lane; i < mtt_float::max_nt * MaxQ; i += G)
                    (&point_min[group][0][0])[i] = 0x7f800000; // +infinity
                __syncwarp(group_mask);
                for (int t = 0; t < nt; t++) {
                    if (t > 0) { // the reduction to stage t
                        const int row = nt - 1 - t;
#pragma unroll
                        for (int j = 0; j < per_lane; j++) {
                            const int k = lane + j * G;
                            if (k < q) {
                                const uint32_t pk = path[j];
                                const cplx delta = mtt_float::path_interference(
                                    qr, points, nt, pk, bits, t, row);
                                nodes[group][k] = node{ qr.z[row].re - delta.re,
                                                        qr.z[row].im - delta.im,
                                                        d[j],
                                                        pk };
                            }
                        }
                        __syncwarp(group_mask);
#pragma unroll
                        for (int j = 0; j < per_lane; j++) {
                            const int v = lane + j * G;
                            if (v < q) {
                                const cplx r = mtt_float::mul(qr.r[row][row], points[v]);
                                const node n0 = nodes[group][0];
                                float best_d = n0.d + mtt_float::norm2(
                                                          { n0.re - r.re, n0.im - r.im });
                                uint32_t best_path = n0.path;
#pragma unroll unroll_q
                                for (int k = 1; k < MaxQ; k++)
                                    if (k < q) {
                                        const node n = nodes[group][k];
                                        const float dk =
                                            n.d + mtt_float::norm2(
                                                      { n.re - r.re, n.im - r.im });
                                        if (dk < best_d) {
                                            best_d = dk;
                                            best_path = n.path;
                                        }
                                    }
                                d[j] = best_d;
                                path[j] =
                                    best_path | (static_cast<uint32_t>(v) << (t * bits));
                            }
                        }
                        __syncwarp(group_mask);
                    }
                    // List t: each lane extends its paths and takes their minima.
#pragma unroll
                    for (int j = 0; j < per_lane; j++) {
                        const int k = lane + j * G;
                        if (k >= q)
                            continue;
                        uint32_t pk = path[j];
                        float dk = d[j];
                        for (int st = t + 1; st < nt; st++) {
                            const int row = nt - 1 - st;
                            const cplx delta = mtt_float::path_interference(
                                qr, points, nt, pk, bits, st, row);
                            const cplx zd = { qr.z[row].re - delta.re,
                                              qr.z[row].im - delta.im };
                            uint32_t best = 0;
                            const float best_w =
                                mtt_float::nearest<Bits>(qr, c, points, row, zd, best);
                            pk |= best << (st * bits);
                            dk = dk + best_w;
                        }
                        // Each path bounds the metric of each of its points.
#pragma unroll
                        for (int st = 0; st < mtt_float::max_nt; st++)
                            if (st < nt)
                                atomicMin(&point_min[group][st][(pk >> (st * bits)) &
                                                                ((1u << bits) - 1u)],
                                          __float_as_int(dk));
                    }
                }
                __syncwarp(group_mask);
                // Per stage and bit, the least over the points with the bit 0 / 1 (min
                // is exact: the same values as the CPU's per-path minima); lane i takes
                // slots i, i + G, ... (stage, bit).
                for (int i = lane; i < nt * bits; i += G) {
                    const int st = i / bits, b = i % bits;
                    float m0 = INFINITY, m1 = INFINITY;
#pragma unroll unroll_q
                    for (int x = 0; x < MaxQ; x++)
                        if (x < q) {
                            const float d = __int_as_float(point_min[group][st][x]);
                            if ((x >> (bits - 1 - b)) & 1)
                                m1 = fminf(m1, d);
                            else
                                m0 = fminf(m0, d);
                        }
                    const int antenna = qr.order[nt - 1 - st];
                    slot.out[antenna * bits + b] = (m1 - m0) / slot.noise_var;
                }
                __syncwarp(group_mask); // point_min is reused by the next vector
            }
            __syncthreads();
        }
        if (f < p.num_frames)
            p.status[f] = frame_status{ 1, true };
    }
}

using kernel_fn = void (*)(lmmse_params);
using mtt_kernel_fn = void (*)(lmmse_params, const mtt_float::view);
using kbest_kernel_fn = void (*)(lmmse_params, const mtt_float::cplx*, int, float, int);

bool mtt_fits(const mimo_setup& s)
{
    return s.nt <= mtt_float::max_nt && s.nr <= mtt_float::max_nr &&
           s.mod != modulation::qam256;
}

//! The paths K-best keeps: kbest_k, 0 meaning the constellation size.
int kbest_paths(const mimo_setup& s, const mimo_detector_options& o)
{
    return o.kbest_k ? o.kbest_k : constellation(s.mod).size();
}

class mimo_detector_cuda final : public batch_decoder
{
public:
    mimo_detector_cuda(const mimo_setup& setup,
                       const mimo_detector_options& options,
                       int device)
        : d_setup(setup), d_opt(options), d_device(device)
    {
        // The CPU stage validates the setup and options the same way.
        d_cpu = make_mimo_detector_cpu(setup, options);
        if (!mimo_cuda_accepts(setup, options))
            throw error("mimo detector (cuda): this algorithm or size runs on the CPU "
                        "only; allowed on cuda: lmmse, and mtt or kbest (kbest_k <= " +
                        std::to_string(kbest_float::max_k) +
                        ") with nt <= 4, nr <= 8, up to 64qam");
        require_device(device);
        device_guard guard(device); // the constellation tables live on `device`
        d_device_name = device_name(device);
        const constellation c(setup.mod);
        lmmse_params& p = d_params;
        p = lmmse_params{};
        p.nr = setup.nr;
        p.nt = setup.nt;
        p.bits = c.bits_per_symbol();
        p.bpsk = setup.mod == modulation::bpsk;
        p.axis_bits = p.bpsk ? 0 : p.bits / 2;
        p.noise_var = options.noise_var;
        p.noise_var_per_frame = options.noise_var_per_frame;
        if (!p.bpsk)
            for (int a = 0; a < (1 << p.axis_bits); a++) {
                // Point a's real part where a's bits sit on the even stream bits.
                int index = 0;
                for (int k = 0; k < p.axis_bits; k++)
                    index |= ((a >> (p.axis_bits - 1 - k)) & 1) << (p.bits - 1 - 2 * k);
                p.level[a] = c.points()[index].real();
            }
        const int n = std::max(setup.nr, setup.nt);
        d_kernel = n <= 2 ? lmmse_kernel<2> : n <= 4 ? lmmse_kernel<4> : lmmse_kernel<8>;
        // The common shapes compiled for their sizes (the same operations, same LLRs).
        if (setup.nt == 4 && setup.nr == 4 && p.axis_bits == 2 && !p.bpsk)
            d_kernel = lmmse_kernel<4, 4, 4, 2>;
        if (setup.nt == 4 && setup.nr == 4 && p.axis_bits == 3 && !p.bpsk)
            d_kernel = lmmse_kernel<4, 4, 4, 3>;
        if (setup.nt == 2 && setup.nr == 2 && p.axis_bits == 1 && !p.bpsk)
            d_kernel = lmmse_kernel<2, 2, 2, 1>;
        d_bound = n <= 2 ? 2 : n <= 4 ? 4 : 8;
        d_mtt = options.algorithm == mimo_algorithm::mtt;
        if (d_mtt) {
            d_mtt_kernel = c.size() <= 4    ? mtt_group_kernel<4>
                           : c.size() <= 16 ? mtt_group_kernel<16>
                                            : mtt_group_kernel<64>;
            // Up to QPSK a thread holds a whole vector's chain in registers and is the
            // faster mapping (docs/mimo.md).
            d_group = c.size() > 4;
            d_thread_kernel = c.size() <= 4    ? mtt_kernel<4>
                              : c.size() <= 16 ? mtt_kernel<16>
                                               : mtt_kernel<64>;
            // The common shapes compiled for their sizes: every loop over antennas,
            // bits and axis levels unrolls (the same operations, so the same LLRs).
            const int b = c.bits_per_symbol();
            if (setup.nt == 4 && setup.nr == 4 && b == 4)
                d_mtt_kernel = mtt_group_kernel<16, 4, 4, 4>;
            if (setup.nt == 4 && setup.nr == 4 && b == 6)
                d_mtt_kernel = mtt_group_kernel<64, 4, 4, 6>;
            if (setup.nt == 2 && setup.nr == 2 && b == 2)
                d_thread_kernel = mtt_kernel<4, 2, 2, 2>;
            if (setup.nt == 4 && setup.nr == 4 && b == 2)
                d_thread_kernel = mtt_kernel<4, 4, 4, 2>;
            d_bound = c.size() <= 4 ? 4 : c.size() <= 16 ? 16 : 64;
            std::vector<mtt_float::cplx> pts(c.size());
            for (int i = 0; i < c.size(); i++)
                pts[i] = { c.points()[i].real(), c.points()[i].imag() };
            upload(d_points, pts);
            d_view = mtt_float::make_view(pts.data(), c.bits_per_symbol());
            d_view.points = d_points.get();
        }
        d_kbest = options.algorithm == mimo_algorithm::kbest;
        if (d_kbest) {
            d_k = kbest_paths(setup, options);
            d_kbest_kernel =
                d_k <= 16 ? kbest_kernel<16> : kbest_kernel<kbest_float::max_k>;
            if (setup.nt == 4 && setup.nr == 4 && c.bits_per_symbol() == 4 && d_k <= 16)
                d_kbest_kernel = kbest_kernel<16, 4, 4, 4>;
            d_bound = d_k <= 16 ? 16 : kbest_float::max_k;
            std::vector<mtt_float::cplx> pts(c.size());
            for (int i = 0; i < c.size(); i++)
                pts[i] = { c.points()[i].real(), c.points()[i].imag() };
            upload(d_points, pts);
        }
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }
    input_format input() const override { return input_format::complex_float; }
    output_format output() const override { return output_format::llr_float; }
    size_t max_input_items_per_frame() const override
    {
        return d_cpu->max_input_items_per_frame();
    }
    size_t output_bits_for_input(size_t items) const override
    {
        return d_cpu->output_bits_for_input(items);
    }
    size_t aux_items_for_input(size_t items) const override
    {
        return d_cpu->aux_items_for_input(items);
    }
    size_t default_input_items() const override { return d_cpu->default_input_items(); }
    size_t default_output_bits() const override { return d_cpu->default_output_bits(); }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        for (size_t f = 0; f < batch.num_frames; f++)
            output_bits_for_input(batch.frames[f].in_items);
        if (batch.num_frames == 0)
            return;
        if (!batch.device_frames || !batch.device_status || !batch.samples ||
            !batch.channels || !batch.llrs_out)
            throw error("mimo detector (cuda): the batch has no device frame table, "
                        "status, samples, channels or LLR output; run it through "
                        "batch_engine");
        launch(reinterpret_cast<const float2*>(batch.samples),
               reinterpret_cast<const float2*>(batch.channels),
               batch.llrs_out,
               batch.device_frames,
               batch.num_frames,
               batch.device_status,
               static_cast<cudaStream_t>(ctx.stream));
    }

    void launch(const float2* samples,
                const float2* channels,
                float* llrs,
                const frame_extent* frames,
                size_t nf,
                frame_status* status,
                cudaStream_t stream) const
    {
        lmmse_params p = d_params;
        p.samples = samples;
        p.channels = channels;
        p.llrs = llrs;
        p.frames = frames;
        p.num_frames = static_cast<uint32_t>(nf);
        p.status = status;
        device_guard guard(d_device);
        const unsigned threads = 128;
        if (d_kbest) {
            const size_t vectors = nf * static_cast<size_t>(d_setup.coherence);
            const unsigned kb_blocks = static_cast<unsigned>(
                std::min<size_t>((vectors + threads - 1) / threads, 1u << 20));
            d_kbest_kernel<<<kb_blocks, threads, 0, stream>>>(
                p, d_points.get(), d_k, d_opt.kbest_clip, d_setup.coherence);
            GPUFEC_CUDA_CHECK_LAUNCH();
            return;
        }
        const unsigned blocks =
            static_cast<unsigned>(std::min<size_t>((nf + threads - 1) / threads, 65535));
        if (d_mtt)
            (d_group ? d_mtt_kernel
                     : d_thread_kernel)<<<blocks, threads, 0, stream>>>(p, d_view);
        else
            d_kernel<<<blocks, threads, 0, stream>>>(p);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

    std::string name() const override
    {
        return "mimo " + std::to_string(d_setup.nt) + "x" + std::to_string(d_setup.nr) +
               " " + to_string(d_setup.mod) +
               (d_mtt     ? " mtt"
                : d_kbest ? " kbest"
                          : " lmmse") +
               " on cuda:" + std::to_string(d_device) + " (" + d_device_name + ")";
    }
    std::string kernel_name() const
    {
        if (d_mtt && d_group)
            return "mtt_group<" + std::to_string(d_bound) + "> " +
                   std::to_string(std::min(d_bound, 32)) + " lanes/vector";
        if (d_kbest)
            return "kbest<" + std::to_string(d_bound) +
                   "> 1 thread/vector, K = " + std::to_string(d_k);
        return std::string(d_mtt ? "mtt<" : "lmmse<") + std::to_string(d_bound) +
               "> 1 thread/coherence block";
    }
    //! MTT: the group kernel (default) or the thread-per-block one (for comparison).
    void use_group_kernel(bool group) { d_group = group; }

private:
    mimo_setup d_setup;
    mimo_detector_options d_opt;
    int d_device;
    std::string d_device_name;
    std::unique_ptr<batch_decoder> d_cpu; // validation and lengths
    lmmse_params d_params;
    kernel_fn d_kernel = nullptr;
    mtt_kernel_fn d_mtt_kernel = nullptr, d_thread_kernel = nullptr;
    kbest_kernel_fn d_kbest_kernel = nullptr;
    int d_k = 0; //!< kbest: paths kept
    bool d_group = true;
    bool d_mtt = false, d_kbest = false;
    device_buffer<mtt_float::cplx> d_points;
    mtt_float::view d_view; //!< its points are d_points
    int d_bound = 0;
};


} // namespace

bool mimo_cuda_accepts(const mimo_setup& setup, const mimo_detector_options& options)
{
    return options.algorithm == mimo_algorithm::lmmse ||
           (options.algorithm == mimo_algorithm::mtt && mtt_fits(setup)) ||
           (options.algorithm == mimo_algorithm::kbest && mtt_fits(setup) &&
            kbest_paths(setup, options) <= kbest_float::max_k);
}

std::unique_ptr<batch_decoder> make_mimo_detector(const mimo_setup& setup,
                                                  const mimo_detector_options& options,
                                                  int device)
{
    return std::make_unique<mimo_detector_cuda>(setup, options, device);
}

mimo_kernel_timing time_mimo_kernel(const mimo_setup& setup,
                                    const mimo_detector_options& options,
                                    int device,
                                    size_t frames,
                                    int reps,
                                    int mtt_kernel)
{
    mimo_detector_cuda det(setup, options, device);
    if (mtt_kernel)
        det.use_group_kernel(mtt_kernel == 1);
    device_guard guard(device);
    const constellation c(setup.mod);
    const size_t nr = setup.nr, nt = setup.nt, v = setup.coherence;
    std::mt19937 rng(1);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<float2> h(frames * nr * nt), y(frames * v * nr);
    for (auto& x : h)
        x = make_float2(g(rng) * 0.70710678f, g(rng) * 0.70710678f);
    const float w = std::sqrt(options.noise_var / 2);
    for (size_t f = 0; f < frames; f++)
        for (size_t k = 0; k < v; k++) {
            std::vector<cfloat> s(nt);
            for (auto& x : s)
                x = c.points()[rng() % c.size()];
            for (size_t r = 0; r < nr; r++) {
                cfloat acc(g(rng) * w, g(rng) * w);
                for (size_t t = 0; t < nt; t++) {
                    const float2 hh = h[(f * nr + r) * nt + t];
                    acc += cfloat(hh.x, hh.y) * s[t];
                }
                y[(f * v + k) * nr + r] = make_float2(acc.real(), acc.imag());
            }
        }
    const size_t per_frame = det.output_bits_for_input(v * nr);
    std::vector<frame_extent> table(frames);
    for (size_t f = 0; f < frames; f++)
        table[f] = frame_extent{ f * v * nr,
                                 static_cast<uint32_t>(v * nr),
                                 f * per_frame * sizeof(float),
                                 static_cast<uint32_t>(per_frame) };
    for (size_t f = 0; f < frames; f++) {
        table[f].aux_offset = f * nr * nt;
        table[f].aux_items = static_cast<uint32_t>(nr * nt);
    }
    device_buffer<float2> d_h, d_y;
    device_buffer<frame_extent> d_table;
    upload(d_h, h);
    upload(d_y, y);
    upload(d_table, table);
    device_buffer<float> d_llrs(frames * per_frame);
    device_buffer<frame_status> d_status(frames);
    stream s;
    const std::vector<double> times = time_launches(s, reps, [&](int) {
        det.launch(d_y.get(),
                   d_h.get(),
                   d_llrs.get(),
                   d_table.get(),
                   frames,
                   d_status.get(),
                   s.get());
    });
    mimo_kernel_timing t;
    t.median_ms = times[times.size() / 2];
    t.vectors = static_cast<double>(frames * v);
    t.bits = static_cast<double>(frames * per_frame);
    t.kernel = det.kernel_name();
    return t;
}

} // namespace cuda
} // namespace gpufec
