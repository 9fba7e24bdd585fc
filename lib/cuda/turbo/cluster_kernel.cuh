/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The multi-SM CUDA turbo kernel (issue 12; docs/turbo.md): one code block spread over
// a thread block cluster of up to 8 SMs, one thread per window of at most 32 steps, as
// in the window kernel. A code block alone on one SM is issue bound (its windows share
// one SM's four schedulers); spread over C SMs each step runs about C times sooner, so
// this kernel serves latency (few code blocks per launch), and it runs the paper's
// loosely synchronised schedule.
//
// What crosses the SMs goes through global memory (L2), with relaxed loads and stores
// at GPU scope: the two extrinsic arrays e12 (decoder 1 -> 2, systematic included,
// natural order) and e21 (2 -> 1, natural order), the window boundary metrics
// ("stakes"), the hard decisions and the CRC words. Each thread's channel LLRs stay in
// its registers and its forward metrics in its block's shared memory.
//
// Two threads per window, in two warps: one runs the forward recursion, the other the
// backward one, at the same time; where they meet (mid-window) each reads the other's
// stored metrics and emits the extrinsic of the steps still ahead of it (the CPU
// decoder's side-by-side window, turbo_cpu.cc). A half-iteration then takes L steps
// of one thread rather than 2 L.
//
// Schedules:
// - synchronised: a cluster barrier after every half-iteration, so every window reads
//   what the other decoder wrote in the previous half-iteration: the window kernel's
//   and the CPU decoder's decisions, bit for bit.
// - loose (the paper's): no barrier between half-iterations. A window reads whatever
//   extrinsic and stakes the other SMs have written so far (this or the previous
//   half-iteration); barriers only where a consistent view is needed: the CRC check
//   of early termination, and the final decisions.
#ifndef INCLUDED_GPUFEC_TURBO_CLUSTER_KERNEL_CUH
#define INCLUDED_GPUFEC_TURBO_CLUSTER_KERNEL_CUH

#include "window_kernel.cuh"

#include <cooperative_groups.h>
#include <cstdint>

namespace gpufec {
namespace cuda {
namespace turbo_cluster {

namespace tw = turbo_window;
namespace ts = turbo_steps;

//! Most thread blocks per cluster (the portable cluster size).
constexpr int max_cluster = 8;
//! Most threads per thread block: 512 windows over 8 SMs, two threads per window.
constexpr int max_block_threads = 128;
//! CRC words per code block: one per decision (at most one per iteration).
constexpr int crc_words = 32;

struct params {
    turbo_io io;
    const uint32_t* crc_column; //!< K: CRC24B of the unit vector e_i (null without CRC)
    uint8_t* workspace;         //!< per resident cluster: workspace_bytes(k, windows)
    //! role_threads: threads of each role (forward, backward) per block, a multiple of
    //! 32 that is at least windows_per_block.
    int k, f1, f2, windows, cluster, windows_per_block, role_threads, iterations, q,
        ext_max, info_bits, filler;
    bool scaled, early_termination, loose;
};

__host__ __device__ inline size_t align16(size_t n) { return (n + 15) / 16 * 16; }
__host__ __device__ inline size_t ext_bytes(int k) { return align16(size_t(k) * 2); }
__host__ __device__ inline size_t hard_bytes(int k)
{
    return align16(2 * size_t((k + 31) / 32) * 4);
}
//! Global workspace of one code block: e12, e21, stakes, two hard-decision buffers,
//! the CRC words.
__host__ __device__ inline size_t workspace_bytes(int k, int windows)
{
    return 2 * ext_bytes(k) + tw::stake_elements(windows) * 2 + hard_bytes(k) +
           crc_words * 4;
}

__device__ __forceinline__ int ld_relaxed(const int16_t* p)
{
    unsigned short v;
    asm volatile("ld.relaxed.gpu.global.u16 %0, [%1];" : "=h"(v) : "l"(p));
    return static_cast<short>(v);
}
__device__ __forceinline__ void st_relaxed(int16_t* p, int v)
{
    asm volatile("st.relaxed.gpu.global.u16 [%0], %1;" ::"l"(p),
                 "h"(static_cast<unsigned short>(v)));
}
__device__ __forceinline__ uint32_t ld_relaxed(const uint32_t* p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ void st_relaxed(uint32_t* p, uint32_t v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v));
}
// A stake (8 int16 metrics) as one 16-byte access, so that in the loose schedule a
// reader sees one writer's whole vector.
__device__ __forceinline__ void ld_stake(const int16_t* p, int* m)
{
    uint32_t a, b, c, d;
    asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "l"(p));
    const uint32_t w[4] = { a, b, c, d };
#pragma unroll
    for (int s = 0; s < 4; s++) {
        m[2 * s] = tw::lo16(w[s]);
        m[2 * s + 1] = tw::hi16(w[s]);
    }
}
//! Stores m - m[0] (normalised to state 0).
__device__ __forceinline__ void st_stake(int16_t* p, const int* m)
{
    asm volatile("st.relaxed.gpu.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p),
                 "r"(tw::pack2(m[0] - m[0], m[1] - m[0])),
                 "r"(tw::pack2(m[2] - m[0], m[3] - m[0])),
                 "r"(tw::pack2(m[4] - m[0], m[5] - m[0])),
                 "r"(tw::pack2(m[6] - m[0], m[7] - m[0])));
}

//! Shared memory of a block: per boundary and window the stored metrics (16 bytes),
//! per step and window the channel LLRs (x0, x1, x2 in one word) and the a-priori input.
__host__ __device__ inline size_t block_smem_bytes(int max_window, int role_threads)
{
    return size_t(max_window + 1) * role_threads * 16 +
           2 * size_t(max_window) * role_threads * 4;
}

__device__ __forceinline__ uint32_t qpp_at(int64_t x, int f1, int f2, int k)
{
    return uint32_t((int64_t(f1) * x + int64_t(f2) * x % k * x) % k);
}
__device__ __forceinline__ uint32_t qpp_step_at(int64_t x, int f1, int f2, int k)
{
    return uint32_t((int64_t(f1) + int64_t(f2) * (2 * x + 1)) % k);
}

// The step loops are rolled: one warp per SM scheduler runs this kernel, with no other
// warp to hide instruction fetches, and fully unrolled windows (tens of KB of code run
// once per half-iteration) left it waiting on instruction fetch most of the time
// (ncu, H200: 5.6 no-instruction stalls per issue). Per-step data therefore comes from
// shared memory rather than from unrolled register arrays.
template <int W>
__global__ void __launch_bounds__(max_block_threads, 1) cluster_kernel(const params p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); // clusters need sm_90; the host launches this kernel only there
#else
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    extern __shared__ uint4 cluster_smem[];
    const int K = p.k, P = p.windows;
    const int rank = static_cast<int>(cluster.block_rank());
    // The first warps run the forward recursions, the others the backward ones.
    const bool backward_role = int(threadIdx.x) >= p.role_threads;
    const int slot = int(threadIdx.x) - (backward_role ? p.role_threads : 0);
    const int w = rank * p.windows_per_block + slot;
    const bool mine = slot < p.windows_per_block && w < P;
    // Thread index across the cluster, for work shared by all its threads.
    const int t = rank * int(blockDim.x) + int(threadIdx.x);
    const int threads = p.cluster * int(blockDim.x);
    const int stride = p.role_threads;
    uint4* M = cluster_smem + slot; // boundary b at M[b * stride]
    uint32_t* llr = reinterpret_cast<uint32_t*>(cluster_smem + (W + 1) * stride) + slot;
    int* apriori = reinterpret_cast<int*>(llr - slot + W * stride) + slot;
    const int words = (K + 31) / 32;
    const int begin = mine ? int(int64_t(w) * K / P) : 0;
    const int end = mine ? int(int64_t(w + 1) * K / P) : 0;
    const int len = end - begin, mid = (len + 1) / 2;
    const uint32_t uK = uint32_t(K);
    const uint32_t two_f2 = uint32_t((2 * int64_t(p.f2)) % K);
    // Pi and its increment d at the window's start and middle.
    const uint32_t pi_begin = qpp_at(begin, p.f1, p.f2, K);
    const uint32_t d_begin = qpp_step_at(begin, p.f1, p.f2, K);
    const uint32_t pi_mid = qpp_at(begin + mid, p.f1, p.f2, K);
    const uint32_t d_mid = qpp_step_at(begin + mid, p.f1, p.f2, K);

    const uint32_t cluster_id = blockIdx.x / uint32_t(p.cluster);
    const uint32_t clusters = gridDim.x / uint32_t(p.cluster);
    uint8_t* ws = p.workspace + size_t(cluster_id) * workspace_bytes(K, P);
    int16_t* e12 = reinterpret_cast<int16_t*>(ws);
    int16_t* e21 = reinterpret_cast<int16_t*>(ws + ext_bytes(K));
    int16_t* stakes = reinterpret_cast<int16_t*>(ws + 2 * ext_bytes(K));
    uint32_t* hard =
        reinterpret_cast<uint32_t*>(ws + 2 * ext_bytes(K) + tw::stake_elements(P) * 2);
    uint32_t* crc =
        reinterpret_cast<uint32_t*>(reinterpret_cast<uint8_t*>(hard) + hard_bytes(K));
    const int per_buffer = 2 * (P + 1) * 8;
    auto stake = [&](int dec, int buf, int dir, int slot_) {
        return stakes + (2 * dec + buf) * per_buffer + (dir * (P + 1) + slot_) * 8;
    };
    auto unpack = [](const uint4& m, int* v) {
        v[0] = 0;
        v[1] = tw::hi16(m.x);
        v[2] = tw::lo16(m.y);
        v[3] = tw::hi16(m.y);
        v[4] = tw::lo16(m.z);
        v[5] = tw::hi16(m.z);
        v[6] = tw::lo16(m.w);
        v[7] = tw::hi16(m.w);
    };
    auto pack = [](const int* v) {
        const int v0 = v[0];
        return make_uint4(tw::pack2(0, v[1] - v0),
                          tw::pack2(v[2] - v0, v[3] - v0),
                          tw::pack2(v[4] - v0, v[5] - v0),
                          tw::pack2(v[6] - v0, v[7] - v0));
    };

    for (uint32_t f = cluster_id; f < p.io.num_frames; f += clusters) {
        const frame_extent fe = p.io.frames[f];
        const int8_t* d0 = p.io.streams(f, fe);
        const int8_t* d1 = d0 + (K + 4);
        const int8_t* d2 = d1 + (K + 4);
        if (mine && !backward_role) {
            for (int s = 0; s < len; s++) {
                const int i = begin + s;
                llr[s * stride] = uint32_t(uint8_t(d0[i])) |
                                  uint32_t(uint8_t(d1[i])) << 8 |
                                  uint32_t(uint8_t(d2[i])) << 16;
                st_relaxed(e12 + i, 0);
                st_relaxed(e21 + i, 0);
            }
            // The stakes this thread reads first (as the window kernel).
            for (int dec = 0; dec < 2; dec++) {
                int a[8], b[8];
                tw::initial_stakes(w, P, K, dec, d0, d1, d2, a, b);
                for (int buf = 0; buf < 2; buf++) {
                    // Stored as given: start_alpha's -infinity must not be shifted.
                    asm volatile(
                        "st.relaxed.gpu.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(
                            stake(dec, buf, 0, w)),
                        "r"(tw::pack2(a[0], a[1])),
                        "r"(tw::pack2(a[2], a[3])),
                        "r"(tw::pack2(a[4], a[5])),
                        "r"(tw::pack2(a[6], a[7])));
                    asm volatile(
                        "st.relaxed.gpu.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(
                            stake(dec, buf, 1, w + 1)),
                        "r"(tw::pack2(b[0], b[1])),
                        "r"(tw::pack2(b[2], b[3])),
                        "r"(tw::pack2(b[4], b[5])),
                        "r"(tw::pack2(b[6], b[7])));
                }
            }
        }
        for (int i = t; i < 2 * words; i += threads)
            st_relaxed(hard + i, 0u);
        for (int i = t; i < crc_words; i += threads)
            st_relaxed(crc + i, 0u);
        cluster.sync();

        frame_status status{ 0, p.crc_column == nullptr };
        int cur = 0, decisions = 0;
        const uint32_t* decided = hard;
        for (int it = 0; it < p.iterations; it++) {
            const bool decide = p.crc_column
                                    ? (p.early_termination || it + 1 == p.iterations)
                                    : it + 1 == p.iterations;
            uint32_t* hard_now = hard + (decisions & 1) * words;
            for (int dec = 0; dec < 2; dec++) {
                // The a-priori input of the steps this thread recurses over first
                // (forward: 0 .. mid - 1, backward: mid .. len - 1), all loads issued
                // before the first is used (one L2 latency, not one per step).
                // Loads the a-priori input of steps first .. first + count - 1 (at most
                // W / 2 + 1) into shared memory, all loads issued before the first is
                // stored (one L2 latency, not one per step).
                auto load_apriori = [&](int first, int count, uint32_t pi, uint32_t d) {
                    int la[W / 2 + 1];
#pragma unroll
                    for (int j = 0; j < W / 2 + 1; j++) {
                        la[j] = 0;
                        if (j < count) {
                            if (dec == 0) {
                                la[j] = ld_relaxed(e21 + begin + first + j);
                            } else {
                                la[j] = ld_relaxed(e12 + pi);
                                pi = tw::add_mod(pi, d, uK);
                                d = tw::add_mod(d, two_f2, uK);
                            }
                        }
                    }
#pragma unroll
                    for (int j = 0; j < W / 2 + 1; j++)
                        if (j < count)
                            apriori[(first + j) * stride] = la[j];
                };
                // The steps this thread recurses over first: forward 0 .. mid - 1,
                // backward mid .. len - 1.
                int metric[8]; // alpha (forward thread) or beta (backward thread)
                if (mine) {
                    ld_stake(backward_role ? stake(dec, cur, 1, w + 1)
                                           : stake(dec, cur, 0, w),
                             metric);
                    if (backward_role)
                        load_apriori(mid, len - mid, pi_mid, d_mid);
                    else
                        load_apriori(0, mid, pi_begin, d_begin);
                }
                // Step s's LLRs: systematic plus a-priori, and parity.
                auto step_llrs = [&](int s, int& ls, int& lp) {
                    const uint32_t x = llr[s * stride];
                    const int a = apriori[s * stride];
                    ls = dec == 0 ? int(int8_t(x & 0xFFu)) + a : a;
                    lp = dec == 0 ? int(int8_t((x >> 8) & 0xFFu)) : int(int8_t(x >> 16));
                };
                // Step s's extrinsic: to the other decoder, and the decisions.
                auto emit = [&](int s, int ls, int le, uint32_t pi_s) {
                    const int pass = ts::pass(le, p.q, p.scaled, p.ext_max);
                    if (dec == 0) {
                        const int x0 = int(int8_t(llr[s * stride] & 0xFFu));
                        st_relaxed(e12 + begin + s, x0 + pass);
                    } else {
                        st_relaxed(e21 + pi_s, pass);
                        if (decide) {
                            const int app = ls + le;
                            if (app < 0)
                                atomicOr(&hard_now[pi_s >> 5],
                                         0x80000000u >> (pi_s & 31));
                            const int payload_bit = int(pi_s) - p.filler;
                            if (p.io.soft && payload_bit >= 0 &&
                                payload_bit < p.info_bits)
                                p.io.soft[8 * size_t(fe.out_offset) + payload_bit] =
                                    float(app);
                        }
                    }
                };
                // Phase 1: alpha of boundaries 0 .. mid - 1 and beta of mid + 1 .. len,
                // stored (normalised) for the other thread.
                if (mine && !backward_role) {
#pragma unroll 1
                    for (int s = 0; s < mid; s++) {
                        int ls, lp;
                        step_llrs(s, ls, lp);
                        M[s * stride] = pack(metric);
                        tw::fwd_unnormalised(metric, ls, lp);
                    }
                } else if (mine) {
#pragma unroll 1
                    for (int s = len - 1; s >= mid; s--) {
                        int ls, lp;
                        step_llrs(s, ls, lp);
                        M[(s + 1) * stride] = pack(metric);
                        int p0[8], p1[8];
                        ts::succ(metric, lp, p0, p1);
                        tw::bwd_unnormalised(p0, p1, ls, metric);
                    }
                }
                __syncthreads();
                // Loose: the other half's a-priori input read again, now, rather than
                // at the start of the half-iteration: the other SMs have written more
                // of this half-iteration's input by now (the pair thread is done with
                // these slots).
                if (mine && p.loose) {
                    if (backward_role)
                        load_apriori(0, mid, pi_begin, d_begin);
                    else
                        load_apriori(mid, len - mid, pi_mid, d_mid);
                }
                // Phase 2: each thread completes the steps ahead of it with the other's
                // stored metrics.
                if (mine && !backward_role) {
                    uint32_t pi = pi_mid, d = d_mid;
#pragma unroll 1
                    for (int s = mid; s < len; s++) {
                        int ls, lp, b[8], p0[8], p1[8];
                        step_llrs(s, ls, lp);
                        unpack(M[(s + 1) * stride], b);
                        ts::succ(b, lp, p0, p1);
                        emit(s, ls, ts::ext(metric, p0, p1), pi);
                        tw::fwd_unnormalised(metric, ls, lp);
                        pi = tw::add_mod(pi, d, uK);
                        d = tw::add_mod(d, two_f2, uK);
                    }
                    if (w + 1 < P)
                        st_stake(stake(dec, 1 - cur, 0, w + 1), metric);
                } else if (mine) {
                    uint32_t pi = pi_mid, d = d_mid;
#pragma unroll 1
                    for (int s = mid - 1; s >= 0; s--) {
                        d = tw::sub_mod(d, two_f2, uK);
                        pi = tw::sub_mod(pi, d, uK);
                        int ls, lp, a[8], p0[8], p1[8];
                        step_llrs(s, ls, lp);
                        unpack(M[s * stride], a);
                        ts::succ(metric, lp, p0, p1);
                        emit(s, ls, ts::ext(a, p0, p1), pi);
                        tw::bwd_unnormalised(p0, p1, ls, metric);
                    }
                    if (w > 0)
                        st_stake(stake(dec, 1 - cur, 1, w), metric);
                }
                if (!p.loose || (dec == 1 && decide))
                    cluster.sync();
                else
                    __syncthreads(); // the metrics in shared memory are reused
            }
            cur = 1 - cur;
            status.iterations = it + 1;
            if (!decide)
                continue;
            // hard_now is complete (the barrier above). Clear the other buffer for the
            // next decision: its last readers passed a barrier before this one.
            decided = hard_now;
            uint32_t* next = hard + ((decisions + 1) & 1) * words;
            for (int i = t; i < words; i += threads)
                st_relaxed(next + i, 0u);
            if (p.crc_column) {
                // CRC24B of the K hard bits: the XOR of the set bits' columns.
                uint32_t x = 0;
                for (int i = t; i < words; i += threads) {
                    uint32_t bits = ld_relaxed(hard_now + i);
                    while (bits) {
                        const int b = __clz(bits);
                        bits &= ~(0x80000000u >> b);
                        x ^= __ldg(&p.crc_column[32 * i + b]);
                    }
                }
                if (x)
                    atomicXor(&crc[decisions], x);
                cluster.sync();
                status.ok = ld_relaxed(crc + decisions) == 0;
            }
            decisions++;
            if (status.ok && p.crc_column && p.early_termination)
                break;
        }
        const int n = p.info_bits;
        uint8_t* out = p.io.out + fe.out_offset;
        for (int byte = t; byte < (n + 7) / 8; byte += threads) {
            // Payload bits F + 8 byte .. + 7 of the MSB-first hard words.
            const int bit = p.filler + 8 * byte, word = bit >> 5;
            const uint64_t two = (uint64_t(ld_relaxed(decided + word)) << 32) |
                                 (word + 1 < words ? ld_relaxed(decided + word + 1) : 0u);
            uint32_t v = uint32_t(two >> (56 - (bit & 31))) & 0xFFu;
            const int valid = n - 8 * byte;
            if (valid < 8)
                v &= 0xFFu << (8 - valid);
            out[byte] = static_cast<uint8_t>(v);
        }
        if (t == 0)
            p.io.status[f] = status;
        cluster.sync(); // the workspace is reused by the next code block
    }
#endif
}

} // namespace turbo_cluster
} // namespace cuda
} // namespace gpufec

#endif
