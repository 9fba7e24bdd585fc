/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the 5G NR kernel of the CUDA LDPC decoder, specialised on the base graph at
// compile time (TS 38.212 Tables 5.3.2-2/-3: 46 or 42 rows, their degrees), for Z >= 32.
// Same arithmetic as the generic kernel and the CPU (lib/cpu/min_sum_kernels.h).
//
// Why it is faster than the generic kernel (docs/ldpc-gpu-roofline.md): the check
// messages never leave the SM. Thread t owns lifted row t of every base row, so the
// messages of its 46 rows live in its registers, compressed as the paper does (two
// scaled minima, the edge of the first, one sign bit per edge: 32 bits per row, 64 for
// BG1's four rows of degree 19). Every loop over layers and edges is unrolled at compile
// time, so the register arrays are indexed by constants and the shifts and columns
// are kernel-parameter operands. A block decodes two codewords at once, their APP values
// interleaved in shared memory as int16 pairs: one 32-bit access reads or writes both,
// and the two codewords' arithmetic interleaves (more independent work per thread).
#ifndef INCLUDED_GPUFEC_LDPC_NR_LAYERED_CUH
#define INCLUDED_GPUFEC_LDPC_NR_LAYERED_CUH

#include <gpufec/common.h>

#include <cstdint>

namespace gpufec {
namespace cuda {
namespace nr {

constexpr int app_max = 32000;
constexpr int max_edges = 316; // BG1
constexpr int max_threads = 384;

//! Row degrees of the base graphs (TS 38.212 Tables 5.3.2-2 and 5.3.2-3, counted).
template <int BG>
struct base_graph;
template <>
struct base_graph<1> {
    static constexpr int rows = 46, columns = 68, edges = 316;
    static constexpr int degree[rows] = { 19, 19, 19, 19, 3, 8, 9, 7, 10, 9, 7, 8,
                                          7,  6,  7,  7,  6, 6, 6, 6, 6,  6, 5, 5,
                                          6,  5,  5,  4,  5, 5, 5, 5, 5,  5, 5, 5,
                                          5,  4,  5,  5,  4, 5, 4, 5, 5,  4 };
};
template <>
struct base_graph<2> {
    static constexpr int rows = 42, columns = 52, edges = 197;
    static constexpr int degree[rows] = { 8, 10, 8, 10, 4, 6, 6, 6, 4, 5, 5, 5, 4, 5,
                                          5, 4,  5, 5,  4, 4, 4, 4, 3, 4, 4, 3, 5, 3,
                                          4, 3,  5, 3,  4, 4, 4, 4, 4, 3, 4, 4, 4, 4 };
};

template <int BG>
constexpr int first_edge(int row)
{
    int e = 0;
    for (int r = 0; r < row; r++)
        e += base_graph<BG>::degree[r];
    return e;
}
//! Rows of degree > 13 need a second word for their signs; their index among those.
constexpr int sign_bits_in_word = 13;
template <int BG>
constexpr int high_index(int row)
{
    int h = 0;
    for (int r = 0; r < row; r++)
        h += base_graph<BG>::degree[r] > sign_bits_in_word;
    return h;
}
template <int BG>
constexpr int high_rows()
{
    return high_index<BG>(base_graph<BG>::rows);
}

struct channel_run {
    int32_t llr, pos, len, pass;
};

struct params {
    int32_t colz[max_edges];  //!< column * Z of each edge, graph order
    int32_t shift[max_edges]; //!< circulant shift of each edge
    int32_t z, n, k;
    int32_t zero_begin, zero_end; //!< known-zero (filler) positions [begin, end)
    const int32_t* info;
    const channel_run* runs;
    int32_t num_runs;
    bool clamp_input;
    int32_t iterations;
    bool early_termination, normalized;
    int32_t alpha16, beta;
    const int8_t* in;
    const frame_extent* frames;
    uint32_t num_frames;
    uint8_t* out;
    float* soft;
    frame_status* status;
};

__device__ __forceinline__ int sat(int x) { return max(-app_max, min(app_max, x)); }
__device__ __forceinline__ int lo16(uint32_t x)
{
    return static_cast<int16_t>(x & 0xffffu);
}
__device__ __forceinline__ int hi16(uint32_t x) { return static_cast<int32_t>(x) >> 16; }
__device__ __forceinline__ uint32_t pack(int lo, int hi)
{
    return (static_cast<uint32_t>(lo) & 0xffffu) | (static_cast<uint32_t>(hi) << 16);
}

//! Codeword position of lifted row t on edge e: column * Z + (t + shift) mod Z.
__device__ __forceinline__ int position(const params& p, int e, int t)
{
    const int s = t + p.shift[e];
    return p.colz[e] + (s >= p.z ? s - p.z : s);
}

//! One codeword's row state: compressed messages in, minima and signs being built.
struct row_state {
    int m1, m2, idx;    // old messages: magnitudes, edge of the minimum
    uint32_t signs;     // old message signs, bit j
    int min1, min2, at; // new minima of |Q| and the edge of the first
    int parity;         // sign product of Q (sign bit)
};

__device__ __forceinline__ void open_row(row_state& s, uint32_t word, uint32_t extra)
{
    s.m1 = word & 127u;
    s.m2 = (word >> 7) & 127u;
    s.idx = (word >> 14) & 31u;
    s.signs = (word >> 19) | (extra << sign_bits_in_word);
    s.min1 = s.min2 = 32767;
    s.at = 0;
    s.parity = 0;
}

//! Q = sat(L - R_old) for edge j, folded into the minima; returns Q.
__device__ __forceinline__ int first_pass(row_state& s, int l, int j)
{
    int r = j == s.idx ? s.m2 : s.m1;
    r = (s.signs >> j) & 1u ? -r : r;
    const int q = sat(l - r);
    const int a = abs(q);
    s.at = a < s.min1 ? j : s.at;
    s.min2 = min(s.min2, max(s.min1, a));
    s.min1 = min(s.min1, a);
    s.parity ^= q;
    return q;
}

__device__ __forceinline__ int scale(const params& p, int m)
{
    m = min(m, 127);
    return p.normalized ? (m * p.alpha16) >> 4 : max(m - p.beta, 0);
}

template <int BG, int Row>
__device__ __forceinline__ void update_layer(const params& p,
                                             uint32_t* __restrict__ app,
                                             int t,
                                             uint32_t (&word)[2][base_graph<BG>::rows],
                                             uint32_t (&extra)[2][high_rows<BG>() + 1],
                                             uint32_t keep)
{
    constexpr int deg = base_graph<BG>::degree[Row];
    constexpr int e0 = first_edge<BG>(Row);
    constexpr bool high = deg > sign_bits_in_word;
    constexpr int h = high_index<BG>(Row);
    row_state a, b;
    open_row(a, word[0][Row], high ? extra[0][h] : 0u);
    open_row(b, word[1][Row], high ? extra[1][h] : 0u);
    uint32_t q[deg];
#pragma unroll
    for (int j = 0; j < deg; j++) {
        const uint32_t l = app[position(p, e0 + j, t)];
        const int qa = first_pass(a, lo16(l), j);
        const int qb = first_pass(b, hi16(l), j);
        q[j] = pack(qa, qb);
    }
    const int mag1a = scale(p, a.min1), mag2a = scale(p, a.min2);
    const int mag1b = scale(p, b.min1), mag2b = scale(p, b.min2);
    uint32_t signs_a = 0, signs_b = 0;
#pragma unroll
    for (int j = 0; j < deg; j++) {
        // The position again rather than kept: registers are what limits this kernel.
        const int v = position(p, e0 + j, t);
        const int qa = lo16(q[j]), qb = hi16(q[j]);
        const bool nega = (a.parity ^ qa) < 0, negb = (b.parity ^ qb) < 0;
        const int ma = j == a.at ? mag2a : mag1a;
        const int mb = j == b.at ? mag2b : mag1b;
        signs_a |= static_cast<uint32_t>(nega) << j;
        signs_b |= static_cast<uint32_t>(negb) << j;
        uint32_t l = pack(sat(qa + (nega ? -ma : ma)), sat(qb + (negb ? -mb : mb)));
        if (static_cast<unsigned>(v - p.zero_begin) <
            static_cast<unsigned>(p.zero_end - p.zero_begin))
            l = pack(app_max, app_max);
        if (keep) // a codeword of the pair has stopped: its values stay (block-uniform)
            l = (l & ~keep) | (app[v] & keep);
        app[v] = l;
    }
    word[0][Row] = static_cast<uint32_t>(mag1a) | (static_cast<uint32_t>(mag2a) << 7) |
                   (static_cast<uint32_t>(a.at) << 14) | (signs_a << 19);
    word[1][Row] = static_cast<uint32_t>(mag1b) | (static_cast<uint32_t>(mag2b) << 7) |
                   (static_cast<uint32_t>(b.at) << 14) | (signs_b << 19);
    if (high) {
        extra[0][h] = signs_a >> sign_bits_in_word;
        extra[1][h] = signs_b >> sign_bits_in_word;
    }
}

template <int BG, int Row = 0>
__device__ __forceinline__ void run_layers(const params& p,
                                           uint32_t* __restrict__ app,
                                           int t,
                                           uint32_t (&word)[2][base_graph<BG>::rows],
                                           uint32_t (&extra)[2][high_rows<BG>() + 1],
                                           uint32_t keep)
{
    if constexpr (Row < base_graph<BG>::rows) {
        if (t < p.z)
            update_layer<BG, Row>(p, app, t, word, extra, keep);
        __syncthreads();
        run_layers<BG, Row + 1>(p, app, t, word, extra, keep);
    }
}

//! XOR of the APP pairs over every row of thread t: bit 15 / 31 set where a parity
//! check of codeword 0 / 1 fails.
template <int BG, int Row = 0>
__device__ __forceinline__ uint32_t failed_checks(const params& p,
                                                  const uint32_t* __restrict__ app,
                                                  int t)
{
    if constexpr (Row < base_graph<BG>::rows) {
        constexpr int deg = base_graph<BG>::degree[Row];
        constexpr int e0 = first_edge<BG>(Row);
        uint32_t x = 0;
#pragma unroll
        for (int j = 0; j < deg; j++)
            x ^= app[position(p, e0 + j, t)];
        return (x & 0x80008000u) | failed_checks<BG, Row + 1>(p, app, t);
    } else {
        return 0u;
    }
}

template <int BG>
__global__ void __launch_bounds__(max_threads, 1)
    nr_layered_kernel(const __grid_constant__ params p)
{
    extern __shared__ uint32_t app[]; // n int16 pairs
    const int t = threadIdx.x, threads = blockDim.x, n = p.n;
    const uint32_t pairs = (p.num_frames + 1) / 2;
    for (uint32_t g = blockIdx.x; g < pairs; g += gridDim.x) {
        const uint32_t f0 = 2 * g;
        const bool two = f0 + 1 < p.num_frames;
        const int8_t* x0 = p.in + p.frames[f0].in_offset;
        const int8_t* x1 = two ? p.in + p.frames[f0 + 1].in_offset : x0;

        // ---- channel LLRs (both codewords; a missing second one gets the first's)
        for (int v = t; v < n; v += threads)
            app[v] = static_cast<unsigned>(v - p.zero_begin) <
                             static_cast<unsigned>(p.zero_end - p.zero_begin)
                         ? pack(app_max, app_max)
                         : 0u;
        for (int r = 0; r < p.num_runs; r++) {
            const channel_run run = p.runs[r];
            if (r == 0 || run.pass != p.runs[r - 1].pass)
                __syncthreads();
            for (int j = t; j < run.len; j += threads) {
                const uint32_t l = app[run.pos + j];
                app[run.pos + j] =
                    pack(lo16(l) + x0[run.llr + j], hi16(l) + x1[run.llr + j]);
            }
        }
        __syncthreads();
        if (p.clamp_input) {
            for (int v = t; v < n; v += threads)
                app[v] = pack(sat(lo16(app[v])), sat(hi16(app[v])));
            __syncthreads();
        }

        uint32_t word[2][base_graph<BG>::rows];
        uint32_t extra[2][high_rows<BG>() + 1];
#pragma unroll
        for (int r = 0; r < base_graph<BG>::rows; r++)
            word[0][r] = word[1][r] = 0u; // R = 0 before the first iteration
#pragma unroll
        for (int r = 0; r <= high_rows<BG>(); r++)
            extra[0][r] = extra[1][r] = 0u;

        bool done0 = false, done1 = !two;
        bool fail0 = false, fail1 = false;
        int iters0 = 0, iters1 = 0;
        for (int it = 0; it < p.iterations; it++) {
            const uint32_t keep = (done0 ? 0x0000ffffu : 0u) | (done1 ? 0xffff0000u : 0u);
            run_layers<BG>(p, app, t, word, extra, keep);
            iters0 = done0 ? iters0 : it + 1;
            iters1 = done1 ? iters1 : it + 1;
            const bool last = it + 1 == p.iterations;
            if (p.early_termination || last) {
                const uint32_t f = t < p.z ? failed_checks<BG>(p, app, t) : 0u;
                fail0 = done0 ? fail0 : __syncthreads_or(f & 0x8000u) != 0;
                fail1 = done1 ? fail1 : __syncthreads_or(f & 0x80000000u) != 0;
                if (p.early_termination) {
                    done0 = done0 || !fail0;
                    done1 = done1 || !fail1;
                    if (done0 && done1)
                        break;
                }
            }
        }
        // Both __syncthreads_or above are reached by every thread: done flags are
        // block-uniform. (A stopped codeword keeps fail = false, as the CPU's ok.)

        // ---- outputs
        const int bytes = (p.k + 7) / 8;
        const int count = two ? 2 : 1;
        for (int i = t; i < count * bytes; i += threads) {
            const int c = i / bytes, byte = i - c * bytes;
            unsigned bits = 0;
            for (int j = 0; j < 8; j++) {
                const int at = byte * 8 + j;
                const uint32_t l = at < p.k ? app[__ldg(p.info + at)] : 0u;
                bits |= ((c ? l >> 31 : l >> 15) & 1u) << (7 - j);
            }
            p.out[p.frames[f0 + c].out_offset + byte] = static_cast<uint8_t>(bits);
        }
        if (p.soft) {
            for (int i = t; i < count * p.k; i += threads) {
                const int c = i / p.k, at = i - c * p.k;
                const uint32_t l = app[__ldg(p.info + at)];
                p.soft[8 * p.frames[f0 + c].out_offset + at] =
                    static_cast<float>(c ? hi16(l) : lo16(l));
            }
        }
        if (t < count) {
            frame_status st;
            st.iterations = t ? iters1 : iters0;
            st.ok = !(t ? fail1 : fail0);
            p.status[f0 + t] = st;
        }
        __syncthreads(); // app is reused by the next pair
    }
}

} // namespace nr
} // namespace cuda
} // namespace gpufec

#endif
