/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The fast CUDA turbo kernel (issue 12): one thread per short trellis window (at most
// max_window steps), many windows per code block, many code blocks per thread block.
// docs/turbo.md gives the roofline this is designed against.
//
// What keeps it fast:
// - A thread's own channel LLRs (systematic, parity 1, parity 2 of its window) stay in
//   registers for the whole decode, packed four to a word: no input reads after the
//   first.
// - One extrinsic array per code block, updated in place: decoder 1 reads e21[i] and
//   later writes d0[i] + e12[i] (the a-priori-plus-systematic input decoder 2 reads at
//   Pi(i)); decoder 2 reads that at j = Pi(i) and later writes e21[j]. Each index is
//   touched by one thread only within a half-iteration, so in place is race free.
// - The forward metrics are stored once per step as one 16-byte word: alpha_1..alpha_7
//   (alpha_0 is 0 after normalisation) and, in the slot of alpha_0, the step's
//   systematic-plus-a-priori LLR, which the backward pass then does not recompute.
// - The QPP interleaver is computed on the fly: Pi(i + 1) = Pi(i) + d(i) mod K with
//   d(i + 1) = d(i) + 2 f2 mod K (and backwards), no table reads.
// - The window boundary metrics ("stakes") go through a small global workspace per
//   resident code block (L1/L2), double-buffered by iteration parity.
// - Every trellis step is branch free, so the compiler schedules the unrolled window
//   as one block (steps overlap; 9.3 -> 12.0 Gb/s at K = 6144 on an H200, where the
//   per-step branches on the decoder, the window length and the decisions cost a
//   basic block per step). Both decoders run one code path: decoder 1 walks i =
//   begin, begin + 1, ... as a QPP walk with d = 1 and no increment and takes its
//   systematic word from x0 where decoder 2 takes zero; decoder 2 stores its extrinsic
//   doubled with its hard decision (APP < 0) in bit 0, and the decisions are collected
//   after the half-iteration instead of by an atomic in the step.
// The arithmetic is lib/cpu/turbo_steps.h's, step for step, so the decisions equal the
// CPU decoder's with the same sub_blocks.
#ifndef INCLUDED_GPUFEC_TURBO_WINDOW_KERNEL_CUH
#define INCLUDED_GPUFEC_TURBO_WINDOW_KERNEL_CUH

#include "cpu/turbo_steps.h"
#include <gpufec/common.h>

#include <cstdint>

namespace gpufec {
namespace cuda {
//! The frames and outputs of one launch, as every turbo kernel takes them.
struct turbo_io {
    const llr8_t* in;
    const frame_extent* frames;
    uint32_t num_frames;
    uint8_t* out;
    float* soft; //!< null: no soft output
    frame_status* status;
    //! Non-null: frame f's d0 | d1 | d2 LLRs at derated + f * derated_stride (the
    //! de-rate-matching kernel's output) rather than at in + in_offset.
    const int8_t* derated;
    uint32_t derated_stride;

    //! Frame f's d0 | d1 | d2 stream LLRs (K + 4 each).
    __device__ const int8_t* streams(uint32_t f, const frame_extent& fe) const
    {
        return derated ? derated + size_t(f) * derated_stride
                       : reinterpret_cast<const int8_t*>(in + fe.in_offset);
    }
};

namespace turbo_window {

namespace ts = turbo_steps;

//! Longest window (trellis steps per thread) of the kernel: its register arrays.
constexpr int max_window = 32;
//! Largest thread block.
constexpr int max_threads = 512;

struct params {
    turbo_io io;
    int16_t* stakes; //!< per resident code block: [dec][buf][alpha, beta][P + 1][8]
    const uint32_t* crc_column; //!< K: CRC24B of the unit vector e_i (null without CRC)
    int k, f1, f2, windows, groups, iterations, q, ext_max, info_bits;
    int filler; //!< filler bits F: the payload is bits F .. F + info_bits - 1
    bool scaled, early_termination;
};

// Shared memory of one code block (16-byte aligned): the forward metrics, one 16-byte
// word per step (or, with `half`, per second step: the backward pass recomputes the
// others with one forward step), stored as [step (pair) in window][window] so that a
// warp's threads (one window each) touch consecutive words; the extrinsic array with
// one int16 of padding per 16, which spreads the windows' starts over the banks; the
// hard decisions. The host picks `half` where it fits more thread blocks on an SM
// (docs/turbo.md: K = 512 runs 36 % faster, K = 6144, bound by registers, 4 % slower).
__host__ __device__ inline int metric_words(int k, int windows, bool half)
{
    const int steps = (k + windows - 1) / windows;
    return windows * (half ? (steps + 1) / 2 : steps);
}
__host__ __device__ inline int ext_index(int i) { return i + (i >> 4); }
__host__ __device__ inline size_t ext_bytes(int k)
{
    return (size_t(ext_index(k)) * 2 + 15) / 16 * 16;
}
__host__ __device__ inline size_t group_smem_bytes(int k, int windows, bool half)
{
    return size_t(metric_words(k, windows, half)) * 16 + ext_bytes(k) +
           (size_t((k + 31) / 32) * 4 + 4 + 15) / 16 * 16;
}

__host__ __device__ inline size_t stake_elements(int windows)
{
    return size_t(2 * 2 * 2) * (windows + 1) * 8;
}

__device__ __forceinline__ uint32_t pack2(int lo, int hi)
{
    return (static_cast<uint32_t>(lo) & 0xFFFFu) | (static_cast<uint32_t>(hi) << 16);
}
__device__ __forceinline__ int lo16(uint32_t v)
{
    return static_cast<int16_t>(v & 0xFFFFu);
}
__device__ __forceinline__ int hi16(uint32_t v) { return static_cast<int16_t>(v >> 16); }

__device__ __forceinline__ uint32_t add_mod(uint32_t a, uint32_t b, uint32_t k)
{
    // a + b - k wraps above a + b when a + b < k (a, b < k < 2^31).
    const uint32_t s = a + b;
    return min(s, s - k);
}
__device__ __forceinline__ uint32_t sub_mod(uint32_t a, uint32_t b, uint32_t k)
{
    const uint32_t t = a - b; // wraps when a < b, and then t + k is the result
    return min(t, t + k);
}

// The stakes window w of P starts decoder `dec` with: exact at the code block's ends
// (alpha from state 0, beta from the tail), uniform (all zero) elsewhere.
__device__ inline void initial_stakes(int w,
                                      int P,
                                      int K,
                                      int dec,
                                      const int8_t* d0,
                                      const int8_t* d1,
                                      const int8_t* d2,
                                      int* alpha,
                                      int* beta)
{
    ts::start_alpha(alpha);
    if (w > 0)
        for (int s = 0; s < 8; s++)
            alpha[s] = 0;
    if (w == P - 1)
        ts::tail_beta(d0, d1, d2, K, dec, beta);
    else
        for (int s = 0; s < 8; s++)
            beta[s] = 0;
}

// The recursions without the per-step normalisation to state 0 of turbo_steps.h: the
// metrics stay in int32 registers, unnormalised over a window (at most 32 steps, far
// from overflow), and are normalised only where they leave the thread (the stored
// forward metrics and the stakes). Max-log-MAP is shift invariant (max(a + c, b + c) =
// max(a, b) + c, and the extrinsic is a difference of two maxima over the same
// metrics), so every extrinsic, decision and stake equals the normalised recursion's.
__device__ __forceinline__ void fwd_unnormalised(int* a, int ls, int lp)
{
    int m[8];
#pragma unroll
    for (int n = 0; n < 8; n++) {
        const int g0 =
            (ts::lane(ts::fwd_u0, n) ? ls : 0) + (ts::lane(ts::fwd_z0, n) ? lp : 0);
        const int g1 =
            (ts::lane(ts::fwd_u0, n) ? 0 : ls) + (ts::lane(ts::fwd_z0, n) ? 0 : lp);
        m[n] = max(a[2 * (n & 3)] + g0, a[2 * (n & 3) + 1] + g1);
    }
#pragma unroll
    for (int n = 0; n < 8; n++)
        a[n] = m[n];
}
__device__ __forceinline__ void
bwd_unnormalised(const int* p0, const int* p1, int ls, int* b)
{
#pragma unroll
    for (int s = 0; s < 8; s++) {
        const int u0 = ts::lane(ts::bwd_u0, s) ? ls : 0;
        b[s] = max(p0[s] + u0, p1[s] + (ls - u0));
    }
}

__device__ __forceinline__ int byte_in(uint32_t word, int r)
{
    return static_cast<int8_t>(static_cast<uint8_t>(word >> (8 * r)));
}

// Exact windows with every metric stored come with at most 256 threads (P = K / 32 <=
// 192): up to 168 registers still keep two such thread blocks per SM, and their
// check-free step sequence needs them (at 128 it spills).
template <bool Half, bool Exact>
constexpr int window_max_threads()
{
    return Exact && !Half ? 384 : max_threads;
}

/*!
 * `Half`: every second forward metric stored (see group_smem_bytes). `Exact`: every
 * window has W steps (K = W P): no length checks. `Soft`: the steps of a deciding
 * half-iteration also write the soft output (a separate build: the store is a branch).
 */
template <int W, bool Half, bool Exact, bool Soft>
__global__ void __launch_bounds__(window_max_threads<Half, Exact>())
    window_kernel(const params p)
{
    extern __shared__ uint4 smem_words[];
    const int K = p.k, P = p.windows;
    const int group = threadIdx.x / P, w = threadIdx.x - group * P;
    const bool in_group = group < p.groups;
    const size_t group_bytes = group_smem_bytes(K, P, Half);
    uint8_t* base = reinterpret_cast<uint8_t*>(smem_words) + group * group_bytes;
    uint4* M = reinterpret_cast<uint4*>(base) + w; // [step in window][window]
    const size_t m_bytes = size_t(metric_words(K, P, Half)) * 16;
    int16_t* ext = reinterpret_cast<int16_t*>(base + m_bytes); // at ext_index(i)
    uint32_t* hard = reinterpret_cast<uint32_t*>(base + m_bytes + ext_bytes(K));
    uint32_t* crc_word = hard + (K + 31) / 32;
    const int words = (K + 31) / 32;
    const int begin = Exact ? w * W : int(int64_t(w) * K / P);
    const int end = Exact ? begin + W : int(int64_t(w + 1) * K / P);
    const int len = end - begin;
    const uint32_t uK = uint32_t(K);
    const uint32_t two_f2 = uint32_t((2 * int64_t(p.f2)) % K);
    // Pi(begin) and d(begin) = Pi(begin + 1) - Pi(begin).
    const uint32_t pi_begin =
        uint32_t((int64_t(p.f1) * begin + int64_t(p.f2) * begin % K * begin) % K);
    const uint32_t d_begin =
        uint32_t((int64_t(p.f1) + int64_t(p.f2) * (2 * begin + 1)) % K);
    int16_t* my_stakes =
        p.stakes + (size_t(blockIdx.x) * p.groups + group) * stake_elements(P);
    const int per_buffer = 2 * (P + 1) * 8;
    // Slot `slot` of direction `dir` (0 alpha, 1 beta) of decoder `dec`, buffer `buf`.
    auto stake = [&](int dec, int buf, int dir, int slot) {
        return my_stakes + (2 * dec + buf) * per_buffer + (dir * (P + 1) + slot) * 8;
    };

    for (uint32_t first = blockIdx.x * uint32_t(p.groups); first < p.io.num_frames;
         first += gridDim.x * uint32_t(p.groups)) {
        const uint32_t f = first + uint32_t(group);
        bool active = in_group && f < p.io.num_frames;
        frame_extent fe{};
        uint32_t x0[W / 4], x1[W / 4], x2[W / 4];
        if (active) {
            fe = p.io.frames[f];
            const int8_t* d0 = p.io.streams(f, fe);
            const int8_t* d1 = d0 + (K + 4);
            const int8_t* d2 = d1 + (K + 4);
#pragma unroll
            for (int q = 0; q < W / 4; q++) {
                uint32_t a = 0, b = 0, c = 0;
#pragma unroll
                for (int r = 0; r < 4; r++) {
                    const int s = 4 * q + r;
                    if (s < len) {
                        a |= uint32_t(uint8_t(d0[begin + s])) << (8 * r);
                        b |= uint32_t(uint8_t(d1[begin + s])) << (8 * r);
                        c |= uint32_t(uint8_t(d2[begin + s])) << (8 * r);
                    }
                }
                x0[q] = a;
                x1[q] = b;
                x2[q] = c;
            }
            for (int i = begin; i < end; i++)
                ext[ext_index(i)] = 0;
            // The stakes this thread reads: alpha at slot w, beta at slot w + 1.
            for (int dec = 0; dec < 2; dec++) {
                int a[8], b[8];
                initial_stakes(w, P, K, dec, d0, d1, d2, a, b);
                for (int buf = 0; buf < 2; buf++)
                    for (int s = 0; s < 8; s++) {
                        stake(dec, buf, 0, w)[s] = static_cast<int16_t>(a[s]);
                        stake(dec, buf, 1, w + 1)[s] = static_cast<int16_t>(b[s]);
                    }
            }
        }
        frame_status status{ 0, p.crc_column == nullptr };
        int cur = 0;
        __syncthreads();
        for (int it = 0; it < p.iterations; it++) {
            const bool decide = p.crc_column
                                    ? (p.early_termination || it + 1 == p.iterations)
                                    : it + 1 == p.iterations;
            // One half-iteration of decoder `dec` (a runtime value: two copies of the
            // unrolled windows, one per decoder, overflow the instruction cache and run
            // 25 % slower, measured on an H200).
#pragma unroll 1
            for (int dec = 0; dec < 2; dec++) {
                if (active) {
                    const bool first_dec = dec == 0;
                    if (first_dec && decide) {
                        for (int i = w; i < words; i += P)
                            hard[i] = 0;
                        if (w == 0)
                            *crc_word = 0;
                    }
                    const int16_t* ain = stake(dec, cur, 0, w);
                    const int16_t* bin = stake(dec, cur, 1, w + 1);
                    int alpha[8], beta[8];
#pragma unroll
                    for (int s = 0; s < 8; s++) {
                        alpha[s] = ain[s];
                        beta[s] = bin[s];
                    }
                    // Keep the compiler from hoisting per-step values (unpacked LLRs,
                    // addresses) out of the iteration loop: that needs more registers
                    // than a thread has and spills.
#pragma unroll
                    for (int q = 0; q < W / 4; q++)
                        asm volatile("" : "+r"(x0[q]), "+r"(x1[q]), "+r"(x2[q]));
                    // Decoder 1: i itself (d = 1, no increment); decoder 2: Pi(i).
                    uint32_t pi = first_dec ? uint32_t(begin) : pi_begin;
                    uint32_t d = first_dec ? 1u : d_begin;
                    const uint32_t step = first_dec ? 0u : two_f2;
                    // Decoder 1 reads decoder 2's doubled extrinsic; decoder 2 writes it.
                    const int read_shift = first_dec ? 1 : 0,
                              write_shift = 1 - read_shift;
                    uint4* m_at = M; // the next stored metric word
                                     // Forward recursion over the window.
#pragma unroll
                    for (int s = 0; s < W; s++) {
                        if (Exact || s < len) {
                            const uint32_t sys = first_dec ? x0[s / 4] : 0u;
                            const uint32_t par = first_dec ? x1[s / 4] : x2[s / 4];
                            const int ls =
                                byte_in(sys, s % 4) + (ext[ext_index(pi)] >> read_shift);
                            const int lp = byte_in(par, s % 4);
                            pi = add_mod(pi, d, uK);
                            d = add_mod(d, step, uK);
                            if (!Half || s % 2 == 0) {
                                const int a0 = alpha[0];
                                *m_at = make_uint4(pack2(ls, alpha[1] - a0),
                                                   pack2(alpha[2] - a0, alpha[3] - a0),
                                                   pack2(alpha[4] - a0, alpha[5] - a0),
                                                   pack2(alpha[6] - a0, alpha[7] - a0));
                                m_at += P;
                            }
                            fwd_unnormalised(alpha, ls, lp);
                        }
                    }
                    // Backward recursion and the extrinsic.
#pragma unroll
                    for (int s = W - 1; s >= 0; s--) {
                        if (Exact || s < len) {
                            d = sub_mod(d, step, uK);
                            pi = sub_mod(pi, d, uK);
                            const uint32_t sys = first_dec ? x0[s / 4] : 0u;
                            const uint32_t par = first_dec ? x1[s / 4] : x2[s / 4];
                            // Alpha of step s: stored, or (Half, odd s) one forward
                            // step from the stored s - 1, and the step's input LLR
                            // read again (not yet overwritten: this step writes it
                            // below).
                            uint4 m;
                            if (Half) {
                                m = M[(s / 2) * P];
                            } else {
                                m_at -= P;
                                m = *m_at;
                            }
                            int a[8] = { 0,         hi16(m.x), lo16(m.y), hi16(m.y),
                                         lo16(m.z), hi16(m.z), lo16(m.w), hi16(m.w) };
                            int ls = lo16(m.x);
                            if (Half && s % 2 == 1) {
                                fwd_unnormalised(a, ls, byte_in(par, (s - 1) % 4));
                                ls = byte_in(sys, s % 4) +
                                     (ext[ext_index(pi)] >> read_shift);
                            }
                            int p0[8], p1[8];
                            ts::succ(beta, byte_in(par, s % 4), p0, p1);
                            const int le = ts::ext(a, p0, p1);
                            bwd_unnormalised(p0, p1, ls, beta);
                            const int pass = ts::pass(le, p.q, p.scaled, p.ext_max);
                            // A-posteriori LLR of the step's bit (decoder 2's Ls + La +
                            // Le is that of c_Pi(i)).
                            const int app = ls + le;
                            ext[ext_index(pi)] = static_cast<int16_t>(
                                ((byte_in(sys, s % 4) + pass) << write_shift) |
                                (int(uint32_t(app) >> 31) & write_shift));
                            if (Soft && !first_dec && decide) {
                                const int payload_bit = int(pi) - p.filler;
                                if (payload_bit >= 0 && payload_bit < p.info_bits)
                                    p.io.soft[8 * size_t(fe.out_offset) + payload_bit] =
                                        float(app);
                            }
                        }
                    }
                    // This window's boundary metrics, for its neighbours next iteration.
                    int16_t* aout = stake(dec, 1 - cur, 0, w + 1);
                    int16_t* bout = stake(dec, 1 - cur, 1, w);
#pragma unroll
                    for (int s = 0; s < 8; s++) {
                        if (w + 1 < P)
                            aout[s] = static_cast<int16_t>(alpha[s] - alpha[0]);
                        if (w > 0)
                            bout[s] = static_cast<int16_t>(beta[s] - beta[0]);
                    }
                }
                __syncthreads();
            }
            cur = 1 - cur;
            if (active)
                status.iterations = it + 1;
            if (decide) {
                // Decoder 2's hard decisions, bit 0 of the extrinsic array, into the
                // MSB-first words of the code block (cleared in decoder 1's half).
                if (active) {
                    uint32_t bits = 0;
                    int word = begin >> 5;
                    for (int i = begin; i < end; i++) {
                        if ((i >> 5) != word) {
                            if (bits)
                                atomicOr(&hard[word], bits);
                            bits = 0;
                            word = i >> 5;
                        }
                        if (ext[ext_index(i)] & 1)
                            bits |= 0x80000000u >> (i & 31);
                    }
                    if (bits)
                        atomicOr(&hard[word], bits);
                }
                __syncthreads();
            }
            if (decide && p.crc_column) {
                if (active) {
                    // CRC24B of the K hard bits: linear, so the XOR of the set bits'
                    // columns.
                    uint32_t x = 0;
                    for (int i = w; i < words; i += P) {
                        uint32_t bits = hard[i];
                        while (bits) {
                            const int b = __clz(bits);
                            bits &= ~(0x80000000u >> b);
                            x ^= __ldg(&p.crc_column[32 * i + b]);
                        }
                    }
                    if (x)
                        atomicXor(crc_word, x);
                }
                __syncthreads();
                if (active) {
                    status.ok = *crc_word == 0;
                    if (status.ok && p.early_termination) {
                        // Write this code block's result now; its threads idle until
                        // the others of the thread block finish.
                        active = false;
                        status.iterations = it + 1;
                    }
                }
                if (__syncthreads_and(!active) != 0 && p.early_termination)
                    break;
            }
        }
        if (in_group && f < p.io.num_frames) {
            const int n = p.info_bits;
            uint8_t* out = p.io.out + fe.out_offset;
            for (int byte = w; byte < (n + 7) / 8; byte += P) {
                // Payload bits F + 8 byte .. + 7 of the MSB-first hard words.
                const int bit = p.filler + 8 * byte, word = bit >> 5;
                const uint64_t two = (uint64_t(hard[word]) << 32) |
                                     (word + 1 < words ? hard[word + 1] : 0u);
                uint32_t v = uint32_t(two >> (56 - (bit & 31))) & 0xFFu;
                const int valid = n - 8 * byte;
                if (valid < 8)
                    v &= 0xFFu << (8 - valid);
                out[byte] = static_cast<uint8_t>(v);
            }
            if (w == 0)
                p.io.status[f] = status;
        }
        __syncthreads(); // shared memory is reused by the next code blocks
    }
}

} // namespace turbo_window
} // namespace cuda
} // namespace gpufec

#endif
