/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA SC and fast-SSC polar decoders (issue 11): one warp per frame, four frames per
// block, the frame's whole state in shared memory (7 N bytes: the LLR levels in float,
// the left and right children's re-encoded bits and the decisions in bytes; the channel
// LLRs are summed from the input where the root's two children read them).
//
// The warp runs the decoding tree as a program made on the host
// (lib/cpu/polar_program.h): f, g, leaf and combine ops, and for fast-SSC whole nodes
// (rate 0, rate 1, repetition, single parity check) decided at once. Each op spreads
// its 2^l values over the lanes (lane j takes j, j + 32, ...), __syncwarp between ops.
// The kernel has a case per op kind and level, so each op runs with its size known at
// compile time (loops unrolled, no divisions): 12.5 -> 16.4 Gb/s for fast-SSC. The
// host fuses each node with the f or g before it (and a right child with its
// parent's combine after it) and runs chains of f ops and of combines as one op: the
// dispatch of an op cost more than the values of most: 17.8 -> 25.9 Gb/s at N = 1024.
// The float expressions and their order are the CPU decoders' (SC in polar_cpu.cc:
// channel = fill + the position's int8 LLRs in increasing order, f = min-sum with
// f_minsum's sign rule, g = b +/- a; fast-SSC: polar_fast_ssc_cpu, the same program),
// so bits, CRC status and soft output equal the CPU's. SC's program decides all-frozen
// nodes at once too: that is exactly SC (their decisions are zeros whatever their
// LLRs, which nothing outside them reads).
#include "../common/batch_checks.h"
#include "../common/cuda_utils.h"
#include "../common/half2_bits.cuh"
#include "cpu/env_switch.h"
#include "cpu/polar_common.h"
#include "cpu/polar_program.h"
#include "polar_cuda.h"

#include <cuda_pipeline.h>
#include <type_traits>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace gpufec {
namespace cuda {
namespace {

constexpr int warps_per_block = 4;
//! Frames per warp by the code size, measured on an H200 with the frames interleaved
//! (docs/polar-gpu.md): four fill the warp's lanes in the small ops; fast-SSC at
//! N = 1024, whose nodes are larger, does best with two.
constexpr int frames_per_warp_for(int N, bool fast) { return fast && N >= 1024 ? 2 : 4; }

//! The fast-SSC node rules of a program (polar_program::node_rules), for the subtree
//! ops, which decide their nodes' kinds from the frozen flags at run time.
struct subtree_rules {
    bool rate1, rep, spc;
};

struct polar_params {
    const llr8_t* in;
    const frame_extent* frames;
    uint32_t num_frames;
    uint8_t* out;
    float* soft; //!< null: no soft output
    frame_status* status;
    int n, N, k, crc_len;
    const float* fill;         //!< N: channel LLR before the received values
    const uint32_t* src_begin; //!< N + 1: position d's received LLRs are
    const uint16_t* src;       //!< src[src_begin[d] .. src_begin[d + 1]) (increasing)
    const uint32_t* ops;       //!< the program: polar_program::gpu::word()s
    int num_ops;
    const uint32_t* frozen_words; //!< N / 32: bit j of word i, leaf 32 i + j frozen
    //! GPUFEC_POLAR_OP_PROFILE=1: the small-batch layout's cycles per op (num_ops
    //! counters), then its frame count and the cycles before and after the ops; null:
    //! not measured.
    unsigned long long* op_cycles;
    subtree_rules rules;        //!< the program's node rules (subtree ops)
    const uint16_t* info;       //!< K information positions, increasing
    const int16_t* payload_of;  //!< N: payload index j < k of leaf i, else -1
    const uint32_t* crc_column; //!< k: parity of payload bit j alone, XOR crc_zero
    uint32_t crc_zero;          //!< parity of the all-zero payload
    // Belief propagation
    const uint8_t* frozen; //!< N flags
    int iterations;        //!< bp_iterations
    bool early_termination;
    // CA-SCL
    int list_size;
    //! Tree levels the list kernel does not store but computes from the channel where
    //! read: 1 (level n - 1) or 2 (n - 1 and n - 2, where that fits more frames on an
    //! SM; scl_kernel.cuh, make_scl_layout).
    int scl_unstored;
    //! The list kernel keeps the channel as int16 (the sums of received int8 LLRs, or
    //! the known zero as scl_known_zero16): set where every position's sum fits.
    bool scl_chan16;
    //! The one-code list kernel ranks a fork's candidates by counting against their
    //! metrics in shared memory (counted_survivors), else by its sorting network.
    bool scl_forks_by_count;
    const uint32_t* leaf_column;  //!< N: crc_column of the payload bit at leaf i, or 0
    const uint32_t* leaf_crc_bit; //!< N: 1 << t at the leaf of CRC bit t, or 0
    // Parity-check bits (UCI with 12 <= k <= 19, TS 38.212 5.3.1.2)
    const int8_t* pc_row; //!< N: row of pc_mask of parity-check leaf i (else -1)
    //! N / 32 words per parity-check bit p: the information positions m < p, m = p
    //! (mod 5), whose decided bits XOR to u_p (nr_polar_code::parity_check_bit).
    const uint32_t* pc_mask;
    // Blind RNTI detection (polar_crc_rule): null, or a bit per accepted RNTI.
    const uint32_t* rnti_set;
    uint32_t rnti_ref; //!< the code's RNTI: the syndrome's reference
    //! SC first: the list kernel decodes only frames frame_index[0 .. frame_index[-1])
    //! (listed by the fast-SSC kernel, failed_list; their status says iterations 2);
    //! null: every frame.
    const uint32_t* frame_index;
    //! SC first, in the fast-SSC kernel: null, or where it lists the frames whose CRC
    //! failed (failed_list[0]: their count, set to 0 before; then the frame numbers in
    //! no particular order: each frame's decoding is independent of the others').
    uint32_t* failed_list;
    //! SC first's list pass: its frames' status says iterations 2.
    bool second_pass;
    //! BP int8: the frame counter its warps take frames from (0 at the launch), or
    //! null when the grid holds every frame at once: then each warp decodes the frames
    //! of its place in the grid (a lone frame's latency without the counter's memset).
    uint32_t* next_frame;
};

//! Code parameters `code` with the launch's frames, input and output (hard output).
__host__ __device__ inline polar_params with_launch(polar_params code,
                                                    const polar_params& launch)
{
    code.in = launch.in;
    code.frames = launch.frames;
    code.num_frames = launch.num_frames;
    code.out = launch.out;
    code.soft = nullptr;
    code.status = launch.status;
    return code;
}

//! polar_crc_rule::accepts on the device: a syndrome (decided XOR computed CRC) of 0,
//! or with RNTI detection, 0 in its first 8 bits and an accepted RNTI in its last 16.
__device__ __forceinline__ bool crc_accepts(const polar_params& p, uint32_t syndrome)
{
    if (!p.rnti_set)
        return syndrome == 0;
    const uint32_t r = p.rnti_ref ^ polar_rnti_field(syndrome, p.crc_len);
    return (syndrome & 0xffu) == 0 && ((p.rnti_set[r >> 5] >> (r & 31)) & 1u);
}

//! The sender's RNTI a syndrome names (RNTI detection only; else 0).
__device__ __forceinline__ uint32_t rnti_of(const polar_params& p, uint32_t syndrome)
{
    return p.rnti_set ? p.rnti_ref ^ polar_rnti_field(syndrome, p.crc_len) : 0u;
}

//! Output bytes of a frame: the payload, then the RNTI when detecting it.
__device__ __forceinline__ int output_bytes(const polar_params& p)
{
    return (p.k + (p.rnti_set ? 16 : 0) + 7) / 8;
}

//! Output byte `byte` of a frame, MSB first: payload bit j < k is bit_of(j), then the
//! 16 bits of `rnti` when detecting it.
template <class BitOf>
__device__ __forceinline__ uint8_t
output_byte(const polar_params& p, int byte, uint32_t rnti, BitOf bit_of)
{
    unsigned v = 0;
    for (int b = 0; b < 8; b++) {
        const int j = byte * 8 + b;
        const bool bit = j < p.k ? bit_of(j)
                                 : p.rnti_set != nullptr && j < p.k + 16 &&
                                       ((rnti >> (15 - (j - p.k))) & 1u) != 0;
        if (bit)
            v |= 0x80u >> b;
    }
    return static_cast<uint8_t>(v);
}

__device__ __forceinline__ float f_minsum(float a, float b)
{
    const float m = fminf(fabsf(a), fabsf(b));
    return ((a < 0.0f) != (b < 0.0f)) ? -m : m;
}

//! SC's g: a right child's value from its parent's pair (a, b), b - a where the left
//! sibling's re-encoded bit is 1, else b + a.
__device__ __forceinline__ float g_step(uint32_t bit, float a, float b)
{
    return bit ? b - a : b + a;
}

//! Bit x (0 or 1) of a row of packed bits (32 a word, lowest first).
__device__ __forceinline__ uint32_t row_bit(const uint32_t* row, int x)
{
    return (row[x >> 5] >> (x & 31)) & 1u;
}

//! Shared-memory bytes of one frame.
constexpr size_t frame_bytes(int N) { return 7 * static_cast<size_t>(N); }

//! The small-batch layout's shared memory (polar_kernel, FPW = 1): its frame, then the
//! channel LLRs (N floats), the frozen flags (N / 32 words), its program (num_ops
//! words), the CRC's columns (k words) and the information positions (k + crc_len, 16
//! bits each, padded to words), rounded up to 16 bytes (SC first's list frame follows).
__host__ __device__ constexpr size_t
single_layout_bytes(int N, int k, int crc_len, int num_ops)
{
    const size_t bytes = frame_bytes(N) + 4 * static_cast<size_t>(N) +
                         4 * static_cast<size_t>(N / 32 + num_ops + k) +
                         4 * static_cast<size_t>((k + crc_len + 1) / 2);
    return (bytes + 15) & ~size_t(15);
}

//! The channel LLRs of B mother positions d[i] of one frame: the fill plus the
//! position's received int8 LLRs in increasing order (the CPU's sum, in its order).
//! The B positions go together, pass by pass (their source ranges, the first
//! received LLR of each, then the rare repetitions), so their global loads overlap
//! instead of forming one dependent chain per position: the root's two ops read all
//! N channel values this way.
template <int B>
__device__ __forceinline__ void
channel_llrs(const polar_params& p, const llr8_t* x, const int (&d)[B], float (&out)[B])
{
    uint32_t first[B], end[B];
    int v[B];
#pragma unroll
    for (int i = 0; i < B; i++) {
        first[i] = __ldg(p.src_begin + d[i]);
        end[i] = __ldg(p.src_begin + d[i] + 1);
        out[i] = __ldg(p.fill + d[i]);
    }
#pragma unroll
    for (int i = 0; i < B; i++)
        v[i] = first[i] < end[i] ? x[__ldg(p.src + first[i])] : 0;
#pragma unroll
    for (int i = 0; i < B; i++) {
        if (first[i] < end[i])
            out[i] += static_cast<float>(v[i]);
        for (uint32_t r = first[i] + 1; r < end[i]; r++)
            out[i] += static_cast<float>(x[__ldg(p.src + r)]);
    }
}

//! The kernel's op words (polar_program::gpu::words): a case per kind and level.
namespace sc_op = polar_program::gpu;

//! Where a node's LLRs come from: its own level (the op before it wrote them), or
//! computed from its parent's, f for a left child and g for a right one (fused ops).
enum class node_llrs { own, f_of_parent, g_of_parent };

//! body(j) for j = sub, sub + LPF, ... < S: one frame's lanes over S values.
template <int LPF, int S, class Body>
__device__ __forceinline__ void for_lanes(int sub, Body body)
{
    constexpr int iters = (S + LPF - 1) / LPF;
#pragma unroll 8
    for (int t = 0; t < iters; t++) {
        const int j = sub + t * LPF;
        if (S % LPF == 0 || j < S)
            body(j);
    }
}

//! One frame's array in the shared memory of its warp, interleaved with the warp's
//! other frames: element i at p[i F]. The lanes of the F frames then read equal
//! indices from different banks (frame after frame, they conflicted 2-way at F = 2).
template <class T, int F>
struct interleaved {
    T* p;
    __device__ __forceinline__ T& operator[](int i) const { return p[i * F]; }
    __device__ __forceinline__ interleaved operator+(int o) const
    {
        return { p + o * F };
    }
};

//! u = beta G in place over S decisions (the transform is its own inverse), stage
//! St onwards, by the LPF lanes of one frame.
template <int LPF, int S, int St = 1>
__device__ __forceinline__ void transform(interleaved<uint8_t, 32 / LPF> u, int sub)
{
    if constexpr (St < S) {
        for_lanes<LPF, S / 2>(sub, [&](int idx) {
            const int j = ((idx & ~(St - 1)) << 1) | (idx & (St - 1));
            u[j] ^= u[j + St];
        });
        __syncwarp();
        transform<LPF, S, St * 2>(u, sub);
    }
}

//! A repetition node's LLRs t[0, 2H) summed in place pairwise, as SC's g chain sums
//! them: t[j] = t[j + H] + t[j], then H / 2, ... 1.
template <int LPF, int H>
__device__ __forceinline__ void repetition_sum(interleaved<float, 32 / LPF> t, int sub)
{
    if constexpr (H >= 1) {
        for_lanes<LPF, H>(sub, [&](int j) { t[j] = t[j + H] + t[j]; });
        __syncwarp();
        repetition_sum<LPF, H / 2>(t, sub);
    }
}

//! One frame's state in shared memory (F frames per warp) and its lanes.
template <int F>
struct sc_frame {
    interleaved<float, F> L;       //!< level l at 2^l
    interleaved<uint8_t, F> left;  //!< left children's beta
    interleaved<uint8_t, F> right; //!< right children's beta
    interleaved<uint8_t, F> u;     //!< decisions
    int sub;                       //!< this lane's index among the frame's lanes
};

//! Op `Kind` at level `Lvl` (2^Lvl values) of child `first`: f, g and combine, with
//! the CPU's expressions (polar_program.h).
template <int LPF, int Kind, int Lvl>
__device__ __forceinline__ void sc_level_op(const sc_frame<32 / LPF>& fr, int first)
{
    namespace pp = polar_program;
    constexpr int S = 1 << Lvl;
    const auto L = fr.L;
    const int sub = fr.sub;
    const auto a = L + 2 * S;
    if constexpr (Kind == pp::f_op) {
        for_lanes<LPF, S>(sub, [&](int j) { L[S + j] = f_minsum(a[j], a[j + S]); });
    } else if constexpr (Kind == pp::g_op) {
        for_lanes<LPF, S>(sub, [&](int j) {
            L[S + j] = fr.left[S + j] ? a[j + S] - a[j] : a[j + S] + a[j];
        });
    } else if constexpr (Kind == pp::combine_op) {
        const auto parent = ((first >> (Lvl + 1)) & 1 ? fr.right : fr.left) + 2 * S;
        for_lanes<LPF, S>(sub, [&](int j) {
            const uint8_t r = fr.right[S + j];
            parent[j] = fr.left[S + j] ^ r;
            parent[j + S] = r;
        });
    }
}

//! The combine at level `Lvl` (the parent of `first`'s children) and the `more`
//! combines above it that follow it in the program (a chain of right children: each
//! parent is its own parent's right child), as one op.
template <int LPF, int Lvl>
__device__ __forceinline__ void
combine_chain(const sc_frame<32 / LPF>& fr, int first, int more)
{
    sc_level_op<LPF, polar_program::combine_op, Lvl>(fr, first);
    if constexpr (Lvl + 1 < sc_op::max_level) {
        if (more > 0) {
            __syncwarp();
            combine_chain<LPF, Lvl + 1>(fr, first & ~((2 << (Lvl + 1)) - 1), more - 1);
        }
    }
}

//! f or g (`Kind`) at level `Lvl`, then the `more` f ops below it that follow it in
//! the program (a descent along left children), as one op.
template <int LPF, int Kind, int Lvl>
__device__ __forceinline__ void
descend_chain(const sc_frame<32 / LPF>& fr, int first, int more)
{
    sc_level_op<LPF, Kind, Lvl>(fr, first);
    if constexpr (Lvl > 0) {
        if (more > 0) {
            __syncwarp();
            descend_chain<LPF, polar_program::f_op, Lvl - 1>(fr, first, more - 1);
        }
    }
}

//! Node `Kind` (rate 0, rate 1, repetition, SPC) at level `Lvl` whose first leaf is
//! `first`, its LLRs from `Src`. A right child (g of its parent) also does its
//! parent's combine: it writes the parent's beta, [sibling ^ beta, beta], instead of
//! its own, which only that combine would read. The values are the unfused ops' (the
//! same f and g expressions, the same pairwise sums), so the decisions are the CPU's.
template <int LPF, int Kind, int Lvl, node_llrs Src>
__device__ __forceinline__ void sc_node(const sc_frame<32 / LPF>& fr, int first)
{
    namespace pp = polar_program;
    constexpr int S = 1 << Lvl;
    constexpr bool combine = Src == node_llrs::g_of_parent;
    const auto L = fr.L;
    const int sub = fr.sub;
    const auto own = L + S, a = L + 2 * S;
    const auto sibling = fr.left + S; // a right child's left sibling's beta
    const auto beta = ((first >> Lvl) & 1 ? fr.right : fr.left) + S;
    const auto parent = ((first >> (Lvl + 1)) & 1 ? fr.right : fr.left) + 2 * S;
    // The node's LLR j, given the sibling's bit s (right children).
    auto llr = [&](int j, uint8_t s) {
        if constexpr (Src == node_llrs::f_of_parent)
            return f_minsum(a[j], a[j + S]);
        else if constexpr (Src == node_llrs::g_of_parent)
            return s ? a[j + S] - a[j] : a[j + S] + a[j];
        else
            return own[j];
    };
    auto sibling_bit = [&](int j) -> uint8_t { return combine ? sibling[j] : 0; };
    auto emit = [&](int j, uint8_t s, uint8_t b) {
        if constexpr (combine) {
            parent[j] = s ^ b;
            parent[j + S] = b;
        } else {
            beta[j] = b;
        }
    };
    if constexpr (Kind == pp::rate0_op) {
        for_lanes<LPF, S>(sub, [&](int j) { emit(j, sibling_bit(j), 0); });
    } else if constexpr (Kind == pp::rate1_op) {
        for_lanes<LPF, S>(sub, [&](int j) {
            const uint8_t s = sibling_bit(j);
            const uint8_t h = llr(j, s) < 0.0f ? 1 : 0;
            fr.u[first + j] = h;
            emit(j, s, h);
        });
        __syncwarp();
        transform<LPF, S>(fr.u + first, sub);
    } else if constexpr (Kind == pp::rep_op) {
        if constexpr (Src != node_llrs::own) {
            for_lanes<LPF, S>(sub, [&](int j) { own[j] = llr(j, sibling_bit(j)); });
            __syncwarp();
        }
        repetition_sum<LPF, S / 2>(own, sub);
        const uint8_t bit = own[0] < 0.0f ? 1 : 0;
        for_lanes<LPF, S>(sub, [&](int j) { emit(j, sibling_bit(j), bit); });
        if (sub == 0)
            fr.u[first + S - 1] = bit;
    } else if constexpr (Kind == pp::spc_op) {
        // Hard decisions (into u, the node's decisions after its transform); odd
        // parity flips the least reliable (first of equal).
        float weakest = INFINITY;
        int at = 0;
        uint32_t parity = 0;
        for_lanes<LPF, S>(sub, [&](int j) {
            const float v = llr(j, sibling_bit(j));
            const uint8_t h = v < 0.0f ? 1 : 0;
            fr.u[first + j] = h;
            parity ^= h;
            const float m = fabsf(v);
            if (m < weakest) {
                weakest = m;
                at = j;
            }
        });
        // Only lanes sub < S hold values: the butterfly over min(LPF, S) lanes gives
        // lane 0 the node's minimum and parity (fewer dependent rounds for small
        // nodes; the rule is order-free: least |L|, then the first such position).
#pragma unroll
        for (int o = (S < LPF ? S : LPF) / 2; o > 0; o /= 2) {
            const float w2 = __shfl_xor_sync(0xffffffffu, weakest, o);
            const int at2 = __shfl_xor_sync(0xffffffffu, at, o);
            if (w2 < weakest || (w2 == weakest && at2 < at)) {
                weakest = w2;
                at = at2;
            }
            parity ^= __shfl_xor_sync(0xffffffffu, parity, o);
        }
        __syncwarp();
        if (sub == 0)
            fr.u[first + at] ^= static_cast<uint8_t>(parity);
        __syncwarp();
        for_lanes<LPF, S>(sub, [&](int j) { emit(j, sibling_bit(j), fr.u[first + j]); });
        __syncwarp();
        transform<LPF, S>(fr.u + first, sub);
    }
}

//! u = beta G over the S <= 32 bits of `beta` (bit j: value j), the transform of
//! `transform` on a word: stage St XORs bit j + St into bit j where j's bit St is 0.
__device__ __forceinline__ uint32_t transform_bits(uint32_t beta, int S)
{
    constexpr uint32_t keep[5] = {
        0x55555555u, 0x33333333u, 0x0f0f0f0fu, 0x00ff00ffu, 0x0000ffffu
    };
#pragma unroll
    for (int t = 0; t < 5; t++)
        if ((1 << t) < S)
            beta ^= (beta >> (1 << t)) & keep[t];
    return beta;
}

/*!
 * A subtree of S = 2^Lvl <= LPF values decoded in the registers of the frame's lanes,
 * value j on lane sub = j (lanes from S on hold values no result reads): the ops that
 * polar_program::build emits for it (f, g, leaves, combines and the node rules, tested
 * in build's order on its frozen flags `fm`, bit j for leaf j) with the same
 * expressions, so the same decisions; no shared memory and no warp barrier between
 * them, which is what a lone frame's time is made of (docs/polar-gpu.md). `shift`:
 * the frame's first lane in the warp. Returns the subtree's beta, bit j for value j,
 * the same on each of the frame's lanes.
 *
 * Levels 3 and up are functions, not inlined: the few KB of code stay in the
 * instruction cache across a frame's subtree ops, where the inlined tree (63 node
 * bodies at each of the three call sites) made the small-batch kernel ~160 KB larger
 * and a lone warp waited on instruction fetches (H200, docs/polar-gpu.md).
 */
template <int LPF, int Lvl>
__device__ __forceinline__ uint32_t
subtree_decode(float v, uint32_t fm, subtree_rules r, int sub, int shift);

template <int LPF, int Lvl>
__device__ __noinline__ uint32_t
subtree_decode_call(float v, uint32_t fm, subtree_rules r, int sub, int shift)
{
    return subtree_decode<LPF, Lvl>(v, fm, r, sub, shift);
}

//! A leaf of a subtree (lane sub = 0's value): its bit, or 0 if frozen.
__device__ __forceinline__ uint32_t subtree_leaf(float v, uint32_t fm, int shift)
{
    return fm ? 0u : (__ballot_sync(0xffffffffu, v < 0.0f) >> shift) & 1u;
}

//! A child of a subtree node: a leaf, a subtree of up to 4 leaves inline (most calls
//! would be there), a larger one called.
template <int LPF, int Lvl>
__device__ __forceinline__ uint32_t
subtree_child(float v, uint32_t fm, subtree_rules r, int sub, int shift)
{
    if constexpr (Lvl == 0)
        return subtree_leaf(v, fm, shift);
    else if constexpr (Lvl <= 2)
        return subtree_decode<LPF, Lvl>(v, fm, r, sub, shift);
    else
        return subtree_decode_call<LPF, Lvl>(v, fm, r, sub, shift);
}

template <int LPF, int Lvl>
__device__ __forceinline__ uint32_t
subtree_decode(float v, uint32_t fm, subtree_rules r, int sub, int shift)
{
    static_assert(Lvl >= 1, "leaves: subtree_leaf");
    constexpr int S = 1 << Lvl;
    constexpr uint32_t full = S == 32 ? 0xffffffffu : (1u << S) - 1u;
    auto ballot = [&](bool b) { return (__ballot_sync(0xffffffffu, b) >> shift) & full; };
    if (fm == full) // rate 0
        return 0u;
    if (r.rate1 && fm == 0u)
        return ballot(v < 0.0f);
    if (r.rep && fm == (full >> 1)) { // only the last leaf free
        float t = v;                  // pairwise, as repetition_sum
#pragma unroll
        for (int h = S / 2; h >= 1; h /= 2)
            t = __shfl_down_sync(0xffffffffu, t, h, LPF) + t;
        return __shfl_sync(0xffffffffu, t, 0, LPF) < 0.0f ? full : 0u;
    }
    if constexpr (Lvl >= 2) {
        if (r.spc && fm == 1u) { // only the first leaf frozen: Wagner's rule
            const uint32_t hard = ballot(v < 0.0f);
            // |L| as an unsigned key orders as the float (non-negative, no NaN: sums
            // of int8 values); the first lane of the least flips.
            const uint32_t key = sub < S ? __float_as_uint(fabsf(v)) : 0xffffffffu;
            const uint32_t lanes = LPF == 32 ? 0xffffffffu : ((1u << LPF) - 1u) << shift;
            const uint32_t least = __reduce_min_sync(lanes, key);
            const int at = __ffs(ballot(key == least)) - 1;
            return hard ^ ((__popc(hard) & 1u) << at);
        }
    }
    constexpr int H = S / 2;
    const float hi = __shfl_down_sync(0xffffffffu, v, H, LPF);
    const uint32_t left_beta = subtree_child<LPF, Lvl - 1>(
        f_minsum(v, hi), fm & ((1u << H) - 1u), r, sub, shift);
    const float right = ((left_beta >> sub) & 1u) ? hi - v : hi + v;
    const uint32_t right_beta =
        subtree_child<LPF, Lvl - 1>(right, fm >> H, r, sub, shift);
    return (left_beta ^ right_beta) | (right_beta << H);
}

//! A subtree op (polar_program::subtree_op) at level `Lvl`, 2^Lvl == LPF values, its
//! LLRs from `Src`: decoded in registers, then its decisions and beta written where
//! the ops it stands for would have left them (a right child: its parent's beta).
template <int LPF, int Lvl, node_llrs Src>
__device__ __forceinline__ void sc_subtree(const polar_params& p,
                                           const sc_frame<32 / LPF>& fr,
                                           const uint32_t* frozen_words,
                                           int first)
{
    constexpr int S = 1 << Lvl;
    static_assert(S == LPF, "a subtree takes one value a lane");
    const int j = fr.sub;
    const auto a = fr.L + 2 * S;
    uint8_t s = 0;
    float v;
    if constexpr (Src == node_llrs::f_of_parent) {
        v = f_minsum(a[j], a[j + S]);
    } else if constexpr (Src == node_llrs::g_of_parent) {
        s = fr.left[S + j];
        v = s ? a[j + S] - a[j] : a[j + S] + a[j];
    } else {
        v = fr.L[S + j];
    }
    const uint32_t fm =
        S == 32 ? frozen_words[first >> 5]
                : (frozen_words[first >> 5] >> (first & 31)) & ((1u << S) - 1u);
    const int shift = static_cast<int>(threadIdx.x % 32) - j;
    const uint32_t beta = subtree_decode_call<LPF, Lvl>(v, fm, p.rules, j, shift);
    const uint8_t b = static_cast<uint8_t>((beta >> j) & 1u);
    fr.u[first + j] = static_cast<uint8_t>((transform_bits(beta, S) >> j) & 1u);
    if constexpr (Src == node_llrs::g_of_parent) {
        const auto parent = ((first >> (Lvl + 1)) & 1 ? fr.right : fr.left) + 2 * S;
        parent[j] = s ^ b;
        parent[j + S] = b;
    } else {
        (((first >> Lvl) & 1 ? fr.right : fr.left) + S)[j] = b;
    }
}

//! After a right child at level `Lvl` (node `first`) that did its parent's combine:
//! the `count` combines above it that follow in the program.
template <int LPF, int Lvl>
__device__ __forceinline__ void
combines_above(const sc_frame<32 / LPF>& fr, int first, int count)
{
    if constexpr (Lvl + 1 < sc_op::max_level) {
        if (count > 0) {
            __syncwarp();
            combine_chain<LPF, Lvl + 1>(fr, first & ~((2 << (Lvl + 1)) - 1), count - 1);
        }
    }
}

//! An information leaf (level 0) `first`, its LLR from `Src`: bit = (L < 0), soft =
//! its LLR with the bit's sign; a right leaf also does its parent's combine.
template <bool Soft, node_llrs Src, int F>
__device__ __forceinline__ void
sc_leaf(const polar_params& p, const sc_frame<F>& fr, int first, float* soft, bool active)
{
    if (fr.sub != 0)
        return;
    const auto L = fr.L;
    uint8_t s = 0;
    float leaf;
    if constexpr (Src == node_llrs::f_of_parent) {
        leaf = f_minsum(L[2], L[3]);
    } else if constexpr (Src == node_llrs::g_of_parent) {
        s = fr.left[1];
        leaf = s ? L[3] - L[2] : L[3] + L[2];
    } else {
        leaf = L[1];
    }
    const uint8_t bit = leaf < 0.0f ? 1 : 0;
    fr.u[first] = bit;
    if constexpr (Src == node_llrs::g_of_parent) {
        const auto parent = ((first >> 1) & 1 ? fr.right : fr.left) + 2;
        parent[0] = s ^ bit;
        parent[1] = bit;
    } else {
        ((first & 1) ? fr.right : fr.left)[1] = bit;
    }
    if (Soft) {
        const int j = p.payload_of[first];
        if (j >= 0 && active)
            soft[j] = bit ? -fabsf(leaf) : fabsf(leaf);
    }
}

// The cases of one kind at every level below the root (node kinds: at the levels
// where the program has them).
// clang-format off
#define GPUFEC_SC_CASE(K, LV)                                           \
    case sc_op::code((K), (LV)):                                        \
        if ((K) == polar_program::combine_op)                           \
            combine_chain<LPF, (LV)>(fr, first, sc_op::chain_of(word)); \
        else                                                            \
            descend_chain<LPF, (K), (LV)>(fr, first, sc_op::chain_of(word)); \
        break;
#define GPUFEC_SC_NODE(K, LV, SRC, KIND)                                \
    case sc_op::code((KIND), (LV)):                                     \
        sc_node<LPF, (K), (LV), node_llrs::SRC>(fr, first);             \
        if (node_llrs::SRC == node_llrs::g_of_parent)                   \
            combines_above<LPF, (LV)>(fr, first, sc_op::chain_of(word)); \
        break;
#define GPUFEC_SC_LEVELS(K)                                             \
    GPUFEC_SC_CASE(K, 0) GPUFEC_SC_CASE(K, 1) GPUFEC_SC_CASE(K, 2)      \
    GPUFEC_SC_CASE(K, 3) GPUFEC_SC_CASE(K, 4) GPUFEC_SC_CASE(K, 5)      \
    GPUFEC_SC_CASE(K, 6) GPUFEC_SC_CASE(K, 7) GPUFEC_SC_CASE(K, 8)      \
    GPUFEC_SC_CASE(K, 9)
// Rate 0 from level 0 (a frozen leaf), repetition from 1, SPC from 2, rate 1 from 1;
// fused nodes below level 9 (the root's children read the channel: own LLRs).
#define GPUFEC_SC_NODES_AT(K, LV)                                       \
    GPUFEC_SC_NODE(K, LV, own, K)                                       \
    GPUFEC_SC_NODE(K, LV, f_of_parent, sc_op::left_node + (K))          \
    GPUFEC_SC_NODE(K, LV, g_of_parent, sc_op::right_node + (K))
#define GPUFEC_SC_NODES_FROM1(K)                                        \
    GPUFEC_SC_NODES_AT(K, 1) GPUFEC_SC_NODES_AT(K, 2)                   \
    GPUFEC_SC_NODES_AT(K, 3) GPUFEC_SC_NODES_AT(K, 4)                   \
    GPUFEC_SC_NODES_AT(K, 5) GPUFEC_SC_NODES_AT(K, 6)                   \
    GPUFEC_SC_NODES_AT(K, 7) GPUFEC_SC_NODES_AT(K, 8)                   \
    GPUFEC_SC_NODE(K, 9, own, K)
// clang-format on

//! FPW frames per warp, 32 / FPW lanes each, all running the one program in lockstep:
//! an op of s < 32 values keeps min(32, FPW s) lanes busy instead of s. FPW = 1 is
//! the small-batch layout (one warp per block, a frame on each SM): for latency, not
//! throughput. Blocks of blockDim.x / 32 warps.
template <bool Soft, int LMax, bool Network, bool ListNodes, bool BlindSearch>
__device__ __forceinline__ void scl_decode_frame(const polar_params& p,
                                                 const frame_extent& fe,
                                                 uint32_t f,
                                                 unsigned char* base,
                                                 int lane); // scl_kernel.cuh

//! SC first's list pass over frame f in the one-launch kernel: scl_decode_frame out of
//! line. Inlined, the list decoder's code made ptxas spill in the kernel's fast-SSC
//! part (24 bytes at its 128 registers), and a lone frame that never lists took 54.4
//! us on an H200 instead of 45.5; the call costs a listed frame ~nothing of its ~500.
template <int ListMax>
__device__ __noinline__ void sc_first_list_pass(
    polar_params list, frame_extent fe, uint32_t f, unsigned char* base, int lane)
{
    scl_decode_frame<false, ListMax, true, true, false>(list, fe, f, base, lane);
}

//! The frames of an SC / fast-SSC launch (polar_kernel). ListMax > 0 (SC first in the
//! small-batch layout, polar_sc_first_kernel): a frame whose CRC fails is decoded again
//! at once by the same warp with the list decoder `list` (at most ListMax paths), its
//! state after the layout's (single_layout_bytes); else such frames go to
//! p.failed_list where there is one.
template <bool Soft, int FPW, int ListMax>
__device__ __forceinline__ void sc_decode_frames(const polar_params& p,
                                                 const polar_params& list)
{
    static_assert(ListMax == 0 || (FPW == 1 && !Soft), "SC first: small-batch layout");
    namespace pp = polar_program;
    constexpr int LPF = 32 / FPW;                                  // lanes per frame
    constexpr int subtree_level = FPW == 1 ? 5 : FPW == 2 ? 4 : 3; // 2^level == LPF
    extern __shared__ float smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warps = blockDim.x / 32;
    const int sub = lane % LPF, fslot = lane / LPF;
    const int N = p.N, n = p.n;
    // The warp's frames: N floats, then three N-byte arrays, each interleaved.
    unsigned char* const warp_base =
        reinterpret_cast<unsigned char*>(smem) + warp * FPW * frame_bytes(N);
    uint8_t* const bytes = warp_base + 4 * FPW * N;
    sc_frame<FPW> fr;
    fr.L = { reinterpret_cast<float*>(warp_base) + fslot };
    fr.left = { bytes + fslot };
    fr.right = { bytes + FPW * N + fslot };
    fr.u = { bytes + 2 * FPW * N + fslot };
    fr.sub = sub;
    const auto L = fr.L;
    const auto left = fr.left;
    const auto u = fr.u;
    // The small-batch layout (a warp alone on its SM, each step a dependent chain)
    // keeps in shared memory, after its frame (single_layout_bytes): the channel LLRs,
    // gathered once per frame with every load in flight (the root's two ops read them
    // there), the frozen flags as words and the program, so that no op waits for a
    // global load. The throughput layouts read the channel in each root op and the
    // rest through the cache, which their many warps hide.
    float* const channel = reinterpret_cast<float*>(warp_base + frame_bytes(N));
    const uint32_t* frozen_words = p.frozen_words;
    const uint32_t* ops = p.ops;
    const uint32_t* crc_column = p.crc_column;
    const uint16_t* info = p.info;
    if constexpr (FPW == 1) {
        // Copied without waiting (cp.async), so that the copies overlap the first
        // frame's channel gather; the gather's wait and barrier cover them.
        uint32_t* const words = reinterpret_cast<uint32_t*>(channel + N);
        const int info_words = (p.k + p.crc_len + 1) / 2; // d_info is padded
        const struct {
            const uint32_t* from;
            int count;
        } tables[] = { { p.frozen_words, N / 32 },
                       { p.ops, p.num_ops },
                       { p.crc_column, p.k },
                       { reinterpret_cast<const uint32_t*>(p.info), info_words } };
        uint32_t* to = words;
        for (const auto& t : tables) {
            for (int i = lane; i < t.count; i += 32)
                __pipeline_memcpy_async(to + i, t.from + i, sizeof(uint32_t));
            to += t.count;
        }
        __pipeline_commit();
        frozen_words = words;
        ops = words + N / 32;
        crc_column = ops + p.num_ops;
        info = reinterpret_cast<const uint16_t*>(crc_column + p.k);
    }
    const uint32_t groups = (p.num_frames + FPW - 1) / FPW;
    for (uint32_t g = blockIdx.x * warps + warp; g < groups; g += gridDim.x * warps) {
        // A group's missing frames decode the last frame again and write nothing.
        const uint32_t f = g * FPW + fslot;
        const bool active = f < p.num_frames;
        const frame_extent fe = p.frames[active ? f : p.num_frames - 1];
        const llr8_t* x = p.in + fe.in_offset;
        float* soft = Soft ? p.soft + 8 * fe.out_offset : nullptr;
        const long long frame_start = FPW == 1 && p.op_cycles ? clock64() : 0;
        if constexpr (FPW == 1) {
            constexpr int RB = 16; // positions a lane gathers at a time
            for (int d0 = lane; d0 < N; d0 += RB * 32) {
                int d[RB];
                float c[RB];
#pragma unroll
                for (int i = 0; i < RB; i++)
                    d[i] = min(d0 + i * 32, N - 1);
                channel_llrs(p, x, d, c);
#pragma unroll
                for (int i = 0; i < RB; i++)
                    if (d0 + i * 32 < N)
                        channel[d0 + i * 32] = c[i];
            }
            __pipeline_wait_prior(0);
            __syncwarp();
            if (p.op_cycles && lane == 0)
                atomicAdd(p.op_cycles + p.num_ops + 1,
                          static_cast<unsigned long long>(clock64() - frame_start));
        }
        // The next op's word is loaded while this one runs.
        uint32_t next_word = ops[0];
        long long op_start = 0;
        for (int pc = 0; pc < p.num_ops; pc++) {
            if constexpr (FPW == 1)
                if (p.op_cycles)
                    op_start = clock64();
            const uint32_t word = next_word;
            next_word = ops[min(pc + 1, p.num_ops - 1)];
            const int code = word & 0xffu;
            const int first = static_cast<int>(word >> 16);
            switch (code) {
                GPUFEC_SC_LEVELS(pp::f_op)
                GPUFEC_SC_LEVELS(pp::g_op)
                GPUFEC_SC_LEVELS(pp::combine_op)
                GPUFEC_SC_NODES_AT(pp::rate0_op, 0)
                GPUFEC_SC_NODES_FROM1(pp::rate0_op)
                GPUFEC_SC_NODES_FROM1(pp::rate1_op)
                GPUFEC_SC_NODES_FROM1(pp::rep_op)
                GPUFEC_SC_NODES_FROM1(pp::spc_op)
            case sc_op::code(pp::leaf_op, 0):
                sc_leaf<Soft, node_llrs::own>(p, fr, first, soft, active);
                break;
            case sc_op::code(sc_op::left_node + pp::leaf_op, 0):
                sc_leaf<Soft, node_llrs::f_of_parent>(p, fr, first, soft, active);
                break;
            case sc_op::code(sc_op::right_node + pp::leaf_op, 0):
                sc_leaf<Soft, node_llrs::g_of_parent>(p, fr, first, soft, active);
                combines_above<LPF, 0>(fr, first, sc_op::chain_of(word));
                break;
            // Subtree ops (one value a lane): only in the hard-output programs.
            case sc_op::code(sc_op::subtree_own, subtree_level):
                if constexpr (!Soft)
                    sc_subtree<LPF, subtree_level, node_llrs::own>(
                        p, fr, frozen_words, first);
                break;
            case sc_op::code(sc_op::subtree_left, subtree_level):
                if constexpr (!Soft)
                    sc_subtree<LPF, subtree_level, node_llrs::f_of_parent>(
                        p, fr, frozen_words, first);
                break;
            case sc_op::code(sc_op::subtree_right, subtree_level):
                if constexpr (!Soft) {
                    sc_subtree<LPF, subtree_level, node_llrs::g_of_parent>(
                        p, fr, frozen_words, first);
                    combines_above<LPF, subtree_level>(fr, first, sc_op::chain_of(word));
                }
                break;
            case sc_op::code(pp::pc_op, 0): {
                // A parity-check leaf: the XOR of the decided information bits in its
                // mask, by the frame's lanes.
                const uint32_t* mask = p.pc_mask + p.pc_row[first] * (N / 32);
                uint32_t parity = 0;
                for (int m = sub; m < first; m += LPF)
                    if ((mask[m >> 5] >> (m & 31)) & 1u)
                        parity ^= u[m];
                for (int o = LPF / 2; o > 0; o /= 2)
                    parity ^= __shfl_xor_sync(0xffffffffu, parity, o);
                if (sub == 0)
                    u[first] = ((first & 1) ? fr.right : left)[1] =
                        static_cast<uint8_t>(parity);
                break;
            }
            default: {
                // f_root / g_root (every other code has its case): the root's
                // children read the channel LLRs, gathered at the frame's start in
                // the small-batch layout, else here (not kept: shared memory holds
                // more frames without them), RB of a lane's values at a time.
                const bool is_f = code / sc_op::levels == sc_op::f_root;
                const int size = 1 << (n - 1);
                if constexpr (FPW == 1) { // gathered at the frame's start
                    for (int j = sub; j < size; j += LPF) {
                        const float c0 = channel[j], c1 = channel[j + size];
                        L[size + j] = is_f             ? f_minsum(c0, c1)
                                      : left[size + j] ? c1 - c0
                                                       : c1 + c0;
                    }
                    break;
                }
                constexpr int RB = FPW == 1 ? 8 : 4;
                for (int j0 = sub; j0 < size; j0 += RB * LPF) {
                    int d[2 * RB];
                    float c[2 * RB];
#pragma unroll
                    for (int i = 0; i < RB; i++) {
                        d[2 * i] = min(j0 + i * LPF, size - 1);
                        d[2 * i + 1] = d[2 * i] + size;
                    }
                    channel_llrs(p, x, d, c);
#pragma unroll
                    for (int i = 0; i < RB; i++) {
                        const int j = j0 + i * LPF;
                        if (j < size)
                            L[size + j] = is_f ? f_minsum(c[2 * i], c[2 * i + 1])
                                          : left[size + j] ? c[2 * i + 1] - c[2 * i]
                                                           : c[2 * i + 1] + c[2 * i];
                    }
                }
                break;
            }
            }
            __syncwarp();
            if constexpr (FPW == 1)
                if (p.op_cycles && lane == 0)
                    atomicAdd(p.op_cycles + pc,
                              static_cast<unsigned long long>(clock64() - op_start));
        }
        const long long ops_end = FPW == 1 && p.op_cycles ? clock64() : 0;

        // Payload bits, CRC over them (linear: XOR of the set bits' columns).
        uint32_t parity = 0;
        for (int j = sub; j < p.k; j += LPF)
            if (u[info[j]])
                parity ^= crc_column[j];
        for (int o = LPF / 2; o > 0; o /= 2)
            parity ^= __shfl_xor_sync(0xffffffffu, parity, o);
        uint32_t received = 0;
        for (int t = sub; t < p.crc_len; t += LPF)
            received |= static_cast<uint32_t>(u[info[p.k + t]]) << t;
        for (int o = LPF / 2; o > 0; o /= 2)
            received |= __shfl_xor_sync(0xffffffffu, received, o);
        const uint32_t syndrome = parity ^ p.crc_zero ^ received;
        const int ok = crc_accepts(p, syndrome);
        const uint32_t rnti = rnti_of(p, syndrome);
        uint8_t* out = p.out + fe.out_offset;
        for (int byte = sub; active && byte < output_bytes(p); byte += LPF)
            out[byte] =
                output_byte(p, byte, rnti, [&](int j) { return u[info[j]] != 0; });
        if (active && sub == 0)
            p.status[f] = frame_status{ 1, ok != 0 };
        if constexpr (ListMax > 0) {
            if (active && !ok) { // the same on every lane: one frame per warp
                __syncwarp();
                sc_first_list_pass<ListMax>(
                    list,
                    fe,
                    f,
                    reinterpret_cast<unsigned char*>(smem) +
                        single_layout_bytes(N, p.k, p.crc_len, p.num_ops),
                    lane);
            }
        } else if (p.failed_list && active && sub == 0 && !ok) { // SC first's list
            p.failed_list[1 + atomicAdd(p.failed_list, 1u)] = f;
        }
        if constexpr (FPW == 1) {
            if (p.op_cycles && lane == 0) {
                atomicAdd(p.op_cycles + p.num_ops, 1ull); // frames
                atomicAdd(p.op_cycles + p.num_ops + 2,
                          static_cast<unsigned long long>(clock64() - ops_end));
            }
        }
        __syncwarp(); // the buffers are reused by the next frame
    }
}

template <bool Soft, int FPW, int MinBlocks>
__global__ void __launch_bounds__(32 * warps_per_block, MinBlocks)
    polar_kernel(const polar_params p)
{
    sc_decode_frames<Soft, FPW, 0>(p, p);
}

//! SC first for a small batch (a frame per warp and per block): fast-SSC (p), and on
//! the same warp the list decoder (list, at most LMax paths) over each frame whose CRC
//! fails. One launch: no list of failed frames in memory to reset, no second kernel,
//! which were ~5 us of a lone frame's 50 (docs/polar-gpu.md).
template <int LMax>
__global__ void __launch_bounds__(32)
    polar_sc_first_kernel(const polar_params p, const polar_params list)
{
    sc_decode_frames<false, 1, LMax>(p, list);
}
#undef GPUFEC_SC_NODES_FROM1
#undef GPUFEC_SC_NODES_AT
#undef GPUFEC_SC_LEVELS
#undef GPUFEC_SC_NODE
#undef GPUFEC_SC_CASE


// ---- belief propagation (the paper's full-parallel decoder)
// ----------------------------
//
// One block per frame, N / 2 threads, one processing element each per stage; the
// left-going (L) and right-going (R) messages of all n + 1 layers in shared memory
// (2 (n + 1) N floats). The CPU BP decoder's arithmetic (polar_bp_cpu.cc): f = 15/16
// sign sign min, the same sums in the same order, a left sweep s = n-1..0 then a right
// sweep s = 0..n-1 per iteration, the G-matrix test (x_hat = u_hat G_N) and the CRC
// before stopping early: the same bits, iterations, status and soft output.

// polar_bp_arithmetic::int8 (the paper's 8-bit messages) has a kernel of its own
// without block barriers: bp8_kernel.cuh.

constexpr float bp_scale = 15.0f / 16.0f;

//! Float messages (the CPU's float arithmetic).
struct bp_float_messages {
    using type = float;
    static constexpr float known_zero = polar_known_zero_llr;
    __device__ static __forceinline__ float boxplus(float a, float b)
    {
        const float m = bp_scale * fminf(fabsf(a), fabsf(b));
        return ((a < 0.0f) != (b < 0.0f)) ? -m : m;
    }
    __device__ static __forceinline__ float add(float a, float b) { return a + b; }
};
//! Bytes of shared memory of one BP frame with messages of `message_bytes`.
constexpr size_t bp_frame_bytes(int N, int n, size_t message_bytes = sizeof(float))
{
    return (2 * static_cast<size_t>(n + 1) * N * message_bytes +
            2 * static_cast<size_t>(N) + 15) &
           ~size_t(15);
}

//! Threads of one float BP frame's block: a processing element each.
constexpr int bp_threads(int N) { return std::max(32, N / 2); }

//! The CRC syndrome of the decisions u (information positions p.info; decided XOR
//! computed CRC bits), by the block; 0 without a CRC.
__device__ __forceinline__ uint32_t block_crc_syndrome(const polar_params& p,
                                                       const uint8_t* u,
                                                       uint32_t* scratch)
{
    if (p.crc_len == 0)
        return 0;
    uint32_t parity = 0;
    for (int j = threadIdx.x; j < p.k; j += blockDim.x)
        if (u[p.info[j]])
            parity ^= p.crc_column[j];
    for (int t = threadIdx.x; t < p.crc_len; t += blockDim.x)
        parity ^= static_cast<uint32_t>(u[p.info[p.k + t]]) << t;
    for (int o = 16; o > 0; o /= 2)
        parity ^= __shfl_xor_sync(0xffffffffu, parity, o);
    if (threadIdx.x == 0)
        *scratch = 0;
    __syncthreads();
    if (threadIdx.x % 32 == 0 && parity)
        atomicXor(scratch, parity);
    __syncthreads();
    const uint32_t syndrome = *scratch ^ p.crc_zero;
    __syncthreads(); // the scratch word is reused by the next call
    return syndrome;
}

template <class M>
__global__ void __launch_bounds__(512) polar_bp_kernel(const polar_params p)
{
    using T = typename M::type;
    extern __shared__ float smem[];
    __shared__ uint32_t crc_scratch;
    const int N = p.N, n = p.n, t = threadIdx.x, threads = blockDim.x;
    T* L = reinterpret_cast<T*>(smem); // layer s at s * N; layer n: the channel
    T* R = L + (n + 1) * N;            // layer 0: the prior
    uint8_t* u = reinterpret_cast<uint8_t*>(R + (n + 1) * N);
    uint8_t* x = u + N;
    for (uint32_t f = blockIdx.x; f < p.num_frames; f += gridDim.x) {
        const frame_extent fe = p.frames[f];
        const llr8_t* in = p.in + fe.in_offset;
        for (int d = t; d < N; d += threads) {
            float s = p.fill[d];
            for (uint32_t r = p.src_begin[d]; r < p.src_begin[d + 1]; r++)
                s += static_cast<float>(in[p.src[r]]);
            L[n * N + d] = s;
            R[d] = p.frozen[d] ? T(M::known_zero) : T(0);
            for (int l = 1; l <= n; l++)
                R[l * N + d] = T(0);
        }
        __syncthreads();
        int it = 1;
        for (;; it++) {
            for (int s = n - 1; s >= 0; s--) {
                const int h = 1 << s;
                for (int pe = t; pe < N / 2; pe += threads) {
                    const int j = (pe / h) * 2 * h + pe % h;
                    const T* Lr = L + (s + 1) * N;
                    const T* Rl = R + s * N;
                    const T la = Lr[j], lb = Lr[j + h], ra = Rl[j], rb = Rl[j + h];
                    L[s * N + j] = M::boxplus(la, M::add(lb, rb));
                    L[s * N + j + h] = M::add(M::boxplus(ra, la), lb);
                }
                __syncthreads();
            }
            if (it == p.iterations)
                break;
            for (int s = 0; s < n; s++) {
                const int h = 1 << s;
                for (int pe = t; pe < N / 2; pe += threads) {
                    const int j = (pe / h) * 2 * h + pe % h;
                    const T* Lr = L + (s + 1) * N;
                    const T* Rl = R + s * N;
                    const T la = Lr[j], lb = Lr[j + h], ra = Rl[j], rb = Rl[j + h];
                    R[(s + 1) * N + j] = M::boxplus(ra, M::add(lb, rb));
                    R[(s + 1) * N + j + h] = M::add(M::boxplus(ra, la), rb);
                }
                __syncthreads();
            }
            if (!p.early_termination)
                continue;
            // G-matrix test: u_hat G_N (transformed in place) against x_hat.
            for (int d = t; d < N; d += threads) {
                u[d] = (L[d] + R[d]) < 0;
                x[d] = (L[n * N + d] + R[n * N + d]) < 0;
            }
            __syncthreads();
            for (int h = 1; h < N; h *= 2) {
                for (int pe = t; pe < N / 2; pe += threads) {
                    const int j = (pe / h) * 2 * h + pe % h;
                    u[j] ^= u[j + h];
                }
                __syncthreads();
            }
            int differ = 0;
            for (int d = t; d < N; d += threads)
                differ |= u[d] != x[d];
            if (__syncthreads_or(differ))
                continue;
            for (int d = t; d < N; d += threads)
                u[d] = (L[d] + R[d]) < 0;
            __syncthreads();
            if (crc_accepts(p, block_crc_syndrome(p, u, &crc_scratch)))
                break;
        }
        for (int d = t; d < N; d += threads)
            u[d] = (L[d] + R[d]) < 0;
        __syncthreads();
        const uint32_t syndrome = block_crc_syndrome(p, u, &crc_scratch);
        const bool ok = crc_accepts(p, syndrome);
        const uint32_t rnti = rnti_of(p, syndrome);
        uint8_t* out = p.out + fe.out_offset;
        for (int byte = t; byte < output_bytes(p); byte += threads)
            out[byte] =
                output_byte(p, byte, rnti, [&](int j) { return u[p.info[j]] != 0; });
        if (p.soft)
            for (int j = t; j < p.k; j += threads)
                p.soft[8 * fe.out_offset + j] =
                    static_cast<float>(L[p.info[j]] + R[p.info[j]]);
        if (t == 0)
            p.status[f] = frame_status{ it, ok };
        __syncthreads(); // the buffers are reused by the next frame
    }
}

#include "bp8_kernel.cuh"
#include "scl_kernel.cuh"

//! Frames per engine batch (batch_decoder::preferred_batch_frames): ~2^22 payload
//! bits, at most 2^16 frames and preferred_batch_max_input_bytes of e LLRs each. A launch
//! of the SC / fast-SSC and BP kernels is short, so the engine's host work per batch sets
//! the pace of small batches. H200, k = 512, e = 1024, 3 dB, fast-SSC end to end with
//! int8 input: 2^20 bits a batch 8.1 Gb/s, 2^22 7.3-11.8, 2^24 8.2-15.7, 2^26 9.6
//! (host-bound and noisy between runs and leases: docs/polar-gpu.md); 2^22 holds a
//! quarter of 2^24's memory and latency.
size_t preferred_polar_batch(int k, int e)
{
    constexpr size_t bits = size_t(1) << 22, max_frames = size_t(1) << 16;
    const size_t per_frame = static_cast<size_t>(std::max(1, k));
    const size_t by_bytes =
        std::max<size_t>(1, preferred_batch_max_input_bytes / std::max(1, e));
    return std::min({ max_frames, by_bytes, (bits + per_frame - 1) / per_frame });
}

/*!
 * GPUFEC_POLAR_OP_PROFILE=1 (a measurement switch): the small-batch layout's kernel
 * adds up each op's cycles (clock64, lane 0), and this prints them by op kind and
 * level, per frame, to stderr when the decoder goes (docs/polar-gpu.md).
 */
struct polar_op_profile {
    device_buffer<unsigned long long> cycles; //!< ops, frames, before, after
    std::vector<uint32_t> words;              //!< the small-batch layout's program
    int device = 0;

    ~polar_op_profile()
    {
        namespace gw = polar_program::gpu;
        if (words.empty())
            return;
        std::vector<unsigned long long> c(words.size() + 3, 0);
        // No throwing in a destructor: the CUDA calls' codes are checked by hand. The
        // kernels ran on the engine's streams: wait for them.
        bool read = false;
        {
            device_guard on(device, std::nothrow);
            read = on.ok() && cudaDeviceSynchronize() == cudaSuccess &&
                   cudaMemcpy(c.data(),
                              cycles.get(),
                              c.size() * sizeof(c[0]),
                              cudaMemcpyDeviceToHost) == cudaSuccess;
        }
        if (!read || c[words.size()] == 0)
            return;
        static const char* base[] = { "f",     "g",       "leaf",   "rate0",
                                      "rate1", "rep",     "spc",    "combine",
                                      "pc",    "subtree", "f_root", "g_root" };
        auto name = [&](int kind) {
            if (kind < gw::left_node + polar_program::leaf_op)
                return std::string(base[kind]);
            if (kind < gw::right_node + polar_program::leaf_op)
                return "left " + std::string(base[kind - gw::left_node]);
            if (kind < gw::subtree_own)
                return "right " + std::string(base[kind - gw::right_node]);
            return std::string(kind == gw::subtree_own    ? "subtree"
                               : kind == gw::subtree_left ? "left subtree"
                                                          : "right subtree");
        };
        std::map<std::pair<int, int>, std::pair<int, unsigned long long>> by_kind;
        unsigned long long total = 0;
        for (size_t t = 0; t < words.size(); t++) {
            auto& e = by_kind[{ gw::kind_of(words[t]), gw::level_of(words[t]) }];
            e.first++;
            e.second += c[t];
            total += c[t];
        }
        const double frames = static_cast<double>(c[words.size()]);
        std::fprintf(stderr,
                     "polar op profile: %zu ops, %.0f cycles/frame over %.0f frames; "
                     "before the ops (channel gather, tables) %.0f, after (CRC, "
                     "output) %.0f\n",
                     words.size(),
                     total / frames,
                     frames,
                     c[words.size() + 1] / frames,
                     c[words.size() + 2] / frames);
        for (const auto& [key, e] : by_kind)
            std::fprintf(stderr,
                         "  %-16s level %d: %3d ops, %7.0f cycles/frame (%4.1f%%), "
                         "%6.0f per op\n",
                         name(key.first).c_str(),
                         key.second,
                         e.first,
                         e.second / frames,
                         100.0 * e.second / total,
                         e.second / frames / e.first);
    }
};

class polar_decoder_cuda final : public batch_decoder
{
public:
    //! with_leaf_steps: a list decoder also uploads its program without scl_blocks'
    //! block steps (leaf_step_params(); dci_search_cuda's large batches).
    polar_decoder_cuda(const nr_polar_code& code,
                       const polar_decoder_options& options,
                       int device,
                       bool with_leaf_steps = false)
        : d_code(code), d_device(device)
    {
        d_cpu = make_polar_decoder_cpu(code, options); // validates the options
        if (code.segments() > 1) // polar_segmented_cuda runs this class per block
            throw error("polar decoder (cuda): a code of two blocks given to the "
                        "one-block decoder; allowed: code.segment()");
        const bool fast_list = options.algorithm == polar_algorithm::fast_scl;
        if (!polar_cuda_accepts(code, options))
            throw error(std::string("polar decoder (cuda): algorithm \"") +
                        to_string(options.algorithm) +
                        "\" not available on cuda; allowed on cuda: sc, fast-ssc, "
                        "scl, fast-scl, bp");
        require_device(device);
        d_device_name = device_name(device);
        device_guard guard(device);
        const int N = code.N(), n = code.n(), k = code.k(), K = code.K();
        if (n > sc_op::max_level + 1) // TS 38.212: n <= 10 (uplink), 9 (downlink)
            throw error("polar decoder (cuda): N = " + std::to_string(N) +
                        "; allowed: N <= 1024");
        const auto& map = code.output_to_codeword();
        const auto& frozen = code.frozen();
        const std::vector<float> fill = polar_channel_fill(code);
        std::vector<uint32_t> begin(N + 1, 0);
        for (uint16_t d : map)
            begin[d + 1]++;
        for (int d = 0; d < N; d++)
            begin[d + 1] += begin[d];
        std::vector<uint16_t> src(std::max<size_t>(map.size(), 1));
        std::vector<uint32_t> at(begin.begin(), begin.end() - 1);
        for (size_t j = 0; j < map.size(); j++)
            src[at[map[j]]++] = static_cast<uint16_t>(j);
        polar_program::node_rules rules; // sc: rate-0 nodes only (exactly SC)
        if (options.algorithm == polar_algorithm::fast_ssc)
            rules.rate1 = rules.rep = rules.spc = true;
        d_fast = options.algorithm == polar_algorithm::fast_ssc;
        d_bp = options.algorithm == polar_algorithm::bp;
        d_scl = options.algorithm == polar_algorithm::scl || fast_list;
        d_fast_list = fast_list;
        d_list = options.list_size;
        // SCL takes repetition nodes as one step (scl_kernel.cuh: exactly SCL's
        // metrics and decisions, unlike fast-SSC's rules for rate-1 and SPC nodes);
        // fast-SCL also rate-1 and SPC nodes, by its own rules (fast_scl_node).
        if (d_scl)
            rules.rep = true;
        if (d_fast_list)
            rules.rate1 = rules.spc = true;
        std::vector<uint32_t> ops;
        // Parity-check leaves (UCI, 12 <= k <= 19) are leaves of their own in every
        // program, as in the CPU decoders.
        const std::vector<uint8_t> pc = polar_pc_flags(code);
        auto push = [&](int kind, int level, uint32_t first) {
            ops.push_back(static_cast<uint32_t>(kind) |
                          static_cast<uint32_t>(level) << 8 | first << 16);
        };
        std::vector<polar_program::op> program =
            polar_program::make(frozen, n, rules, &pc);
        namespace pp = polar_program;
        if (d_fast_list) // as the CPU's fast-SCL (its nodes below level n - 1)
            pp::split_root_children(program, frozen, n, rules, &pc);
        if (d_scl) {
            // The channel can be int16 where every position's value is a sum of
            // received int8 LLRs that fits, or the known zero alone.
            bool chan16_fits = true;
            for (int d = 0; d < N; d++) {
                const uint32_t received = begin[d + 1] - begin[d];
                chan16_fits &= fill[d] == 0.0f
                                   ? 128 * received < scl_known_zero16
                                   : fill[d] == polar_known_zero_llr && received == 0;
            }
            choose_scl_shapes(program, n, chan16_fits);
        }
        // Without soft output, nodes of as many leaves as a frame has lanes are one
        // subtree op each, decoded in the lanes' registers: a program per layout (32,
        // 16 and 8 lanes). GPUFEC_POLAR_SUBTREES=off keeps the plain program, for
        // measurement.
        std::vector<uint32_t> subtree_ops[3];
        d_subtrees = env_switch("GPUFEC_POLAR_SUBTREES",
                                { "on", "off" },
                                "polar decoder (cuda)") != "off";
        if (!d_scl) {
            ops = polar_program::gpu::words(program, n);
            for (int i = 0; i < 3; i++) {
                pp::node_rules with = rules;
                with.subtree_level = d_subtrees ? 5 - i : 0;
                subtree_ops[i] = pp::gpu::words(pp::make(frozen, n, with, &pc), n);
            }
        }
        for (size_t t = 0; d_scl && t < program.size(); t++) {
            const pp::op o = program[t];
            // SCL walks the leaves, rate-0 and repetition nodes only (its f / g descend
            // from them), all below the levels it does not store (U = n - 1 or n - 2,
            // scl_unstored): a frozen node that high is rate-0 nodes of level U - 1,
            // the same leaves in the same order, and a repetition node that high is
            // walked leaf by leaf; neither changes a value.
            const int stored_top = n - 1 - d_scl_big.unstored;
            if (o.kind == polar_program::rep_op && o.level > stored_top) {
                std::vector<polar_program::op> plain;
                polar_program::build(frozen, o.level, o.first, n, {}, plain, &pc);
                program.insert(program.begin() + t + 1, plain.begin(), plain.end());
                continue;
            }
            if (o.kind == polar_program::rate0_op && o.level > stored_top) {
                const uint32_t part = 1u << stored_top;
                for (uint32_t first = o.first; first < o.first + (1u << o.level);
                     first += part)
                    push(polar_program::rate0_op, stored_top, first);
                continue;
            }
            if (o.kind == polar_program::leaf_op || o.kind == polar_program::rate0_op ||
                o.kind == polar_program::pc_op || o.kind == polar_program::rep_op ||
                o.kind == polar_program::rate1_op || o.kind == polar_program::spc_op)
                push(o.kind, o.level, o.first);
        }
        if (d_scl && with_leaf_steps) {
            upload(d_leaf_ops, ops);
            d_num_leaf_ops = static_cast<int>(ops.size());
        }
        if (d_scl)
            ops = scl_blocks(ops, n - 1 - d_scl_big.unstored);
        d_num_ops = static_cast<int>(ops.size());
        for (int i = 0; i < 3; i++) {
            d_num_subtree_ops[i] = static_cast<int>(subtree_ops[i].size());
            upload(d_subtree_ops[i], subtree_ops[i]);
        }
        if (!d_scl &&
            env_switch("GPUFEC_POLAR_OP_PROFILE", { "1" }, "polar decoder (cuda)") ==
                "1") {
            d_op_profile.words = subtree_ops[0];
            d_op_profile.device = device;
            upload(d_op_profile.cycles,
                   std::vector<unsigned long long>(subtree_ops[0].size() + 3, 0ull));
        }
        std::vector<uint32_t> frozen_words(std::max(N / 32, 1), 0u);
        for (int i = 0; i < N; i++)
            if (frozen[i])
                frozen_words[i / 32] |= 1u << (i % 32);
        upload(d_frozen_words, frozen_words);
        const auto& info = code.bit_positions();
        std::vector<int16_t> payload_of(N, -1);
        for (int j = 0; j < k; j++)
            payload_of[info[j]] = static_cast<int16_t>(j);
        // The CRC is affine in the payload: parity(a) = parity(0) ^ XOR of the
        // columns of a's set bits.
        const int crc_len = code.crc_bits();
        std::vector<uint32_t> column(std::max(k, 1), 0u);
        uint32_t zero = 0;
        if (crc_len > 0) {
            std::vector<uint8_t> a(k, 0), parity(crc_len);
            auto word = [&]() {
                code.crc_parity(a.data(), parity.data());
                uint32_t w = 0;
                for (int t = 0; t < crc_len; t++)
                    w |= static_cast<uint32_t>(parity[t] & 1u) << t;
                return w;
            };
            zero = word();
            for (int j = 0; j < k; j++) {
                a[j] = 1;
                column[j] = word() ^ zero;
                a[j] = 0;
            }
        }
        // SCL's CRC reads the decisions by leaf.
        std::vector<uint32_t> leaf_column(N, 0u), leaf_crc_bit(N, 0u);
        for (int j = 0; j < k; j++)
            leaf_column[info[j]] = column[j];
        for (int t = 0; t < crc_len; t++)
            leaf_crc_bit[info[k + t]] = 1u << t;
        upload(d_leaf_column, leaf_column);
        upload(d_leaf_crc_bit, leaf_crc_bit);
        // Parity-check masks over the information positions (info_positions(): the
        // register of 5.3.1.2 takes every information bit, CRC bits included).
        const auto& pcs = code.pc_positions();
        std::vector<int8_t> pc_row(N, -1);
        std::vector<uint32_t> pc_mask(std::max<size_t>(pcs.size(), 1) * (N / 32), 0u);
        for (size_t r = 0; r < pcs.size(); r++) {
            pc_row[pcs[r]] = static_cast<int8_t>(r);
            for (uint16_t m : code.info_positions())
                if (m < pcs[r] && (pcs[r] - m) % 5 == 0)
                    pc_mask[r * (N / 32) + m / 32] |= 1u << (m % 32);
        }
        upload(d_pc_row, pc_row);
        upload(d_pc_mask, pc_mask);
        upload(d_fill, fill);
        upload(d_frozen, std::vector<uint8_t>(frozen.begin(), frozen.end()));
        upload(d_begin, begin);
        upload(d_src, src);
        upload(d_ops, ops);
        // Padded to whole words: the small-batch kernel copies it 4 bytes at a time.
        std::vector<uint16_t> info_padded(info.begin(), info.end());
        info_padded.resize((info_padded.size() + 1) / 2 * 2, 0);
        upload(d_info, info_padded);
        upload(d_payload_of, payload_of);
        upload(d_column, column);
        d_params = polar_params{};
        d_params.n = n;
        d_params.N = N;
        d_params.k = k;
        d_params.crc_len = crc_len;
        d_params.fill = d_fill.get();
        d_params.src_begin = d_begin.get();
        d_params.src = d_src.get();
        d_params.ops = d_ops.get();
        d_params.num_ops = d_num_ops;
        d_params.frozen_words = d_frozen_words.get();
        d_params.op_cycles = d_op_profile.cycles.get(); // null unless profiling
        d_params.rules = subtree_rules{ rules.rate1, rules.rep, rules.spc };
        d_params.info = d_info.get();
        d_params.payload_of = d_payload_of.get();
        d_params.crc_column = d_column.get();
        d_params.crc_zero = zero;
        d_params.frozen = d_frozen.get();
        d_params.iterations = options.bp_iterations;
        d_params.early_termination = options.bp_early_termination;
        d_params.list_size = options.list_size;
        d_params.scl_unstored = d_scl_big.unstored;
        d_params.scl_chan16 = d_scl_big.chan16;
        // How the list kernel picks a fork's survivors (the same ones either way): by its
        // sorting network, 13-15 % faster than counting at L = 8 on an H200 (docs/polar-
        // gpu.md); GPUFEC_POLAR_SCL_FORKS=count|network overrides it, for measurement.
        const std::string who = "polar decoder (cuda)";
        d_params.scl_forks_by_count =
            env_switch("GPUFEC_POLAR_SCL_FORKS", { "count", "network" }, who) == "count";
        d_params.leaf_column = d_leaf_column.get();
        d_params.leaf_crc_bit = d_leaf_crc_bit.get();
        d_params.pc_row = d_pc_row.get();
        d_params.pc_mask = d_pc_mask.get();
        const polar_crc_rule rule(code, options.rntis);
        d_detects_rnti = rule.detects_rnti();
        if (d_detects_rnti) {
            upload(d_rnti_set, rule.allowed());
            d_params.rnti_set = d_rnti_set.get();
            d_params.rnti_ref = static_cast<uint32_t>(rule.code_rnti());
        }
        const size_t max_smem = max_block_smem(device);
        const std::string smem_allowed = "; allowed on CUDA device " +
                                         std::to_string(device) + ": up to " +
                                         std::to_string(max_smem);
        if (d_scl) {
            // The small-batch layout is the larger (or the same) of the two.
            const size_t bytes = scl_frame_bytes(d_scl_small);
            if (bytes > max_smem)
                throw error("polar decoder (cuda): scl with list_size " +
                            std::to_string(d_list) + " at N = " + std::to_string(N) +
                            " needs " + std::to_string(bytes) +
                            " bytes of shared memory per frame" + smem_allowed);
            d_scl_warps = static_cast<int>(
                std::min<size_t>(scl_max_warps_per_block, max_smem / bytes));
            for (bool soft : { false, true })
                raise_dynamic_smem_limit(scl_kernel(soft, d_list), d_scl_warps * bytes);
        }
        if (d_bp) {
            d_bp_int8 = options.bp_arithmetic == polar_bp_arithmetic::int8;
            if (d_bp_int8 && !bp8_variant_for(n).kernel)
                throw error("polar decoder (cuda): bp int8 at N = " + std::to_string(N) +
                            "; allowed: N = 32 .. 1024");
            if (d_bp_int8) {
                // The warps a block of the device's binary (its launch bounds).
                cudaFuncAttributes attr{};
                GPUFEC_CUDA_CHECK(cudaFuncGetAttributes(&attr, bp_kernel()));
                d_bp8_warps = std::max(1, attr.maxThreadsPerBlock / 32);
            }
            const size_t bytes = bp_bytes();
            if (bytes > max_smem)
                throw error("polar decoder (cuda): bp needs " + std::to_string(bytes) +
                            " bytes of shared memory per frame" + smem_allowed);
            raise_dynamic_smem_limit(bp_kernel(), bytes);
            if (d_bp_int8) {
                int per_sm = 0, sms = 0;
                GPUFEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &per_sm, bp_kernel(), 32 * d_bp8_warps, bytes));
                GPUFEC_CUDA_CHECK(
                    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
                d_bp8_resident_blocks = static_cast<size_t>(std::max(per_sm, 1) * sms);
            }
        }
        // Four frames a warp where they fit the device's shared memory, else two.
        const int fpw = frames_per_warp_for(N, d_fast);
        set_frames_per_warp(
            fpw == 4 && warps_per_block * 4 * frame_bytes(N) > max_smem ? 2 : fpw);
        {
            int sms = 0;
            GPUFEC_CUDA_CHECK(
                cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
            d_single_max_frames = static_cast<size_t>(sms);
        }
        if (options.sc_first) {
            // Fast-SSC first (its own decoder: program, tables, kernel), the list
            // kernel then over the frames whose CRC failed (launch()).
            polar_decoder_options first = options;
            first.algorithm = polar_algorithm::fast_ssc;
            first.sc_first = false;
            d_first = std::make_unique<polar_decoder_cuda>(code, first, device);
            int per_sm = 0, sms = 0;
            GPUFEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm,
                scl_kernel(false, d_list),
                32 * d_scl_warps,
                d_scl_warps * scl_frame_bytes()));
            GPUFEC_CUDA_CHECK(
                cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
            d_scl_resident = std::max(1, per_sm) * sms;
            // Until a list pass has run: the large-batch layout.
            d_last_listed.reset(1);
            *d_last_listed.get() = UINT32_MAX;
            const size_t small_bytes = sc_first_small_bytes();
            if (small_bytes > max_smem)
                throw error("polar decoder (cuda): sc_first with list_size " +
                            std::to_string(d_list) + " at N = " + std::to_string(N) +
                            " needs " + std::to_string(small_bytes) +
                            " bytes of shared memory per frame" + smem_allowed);
            raise_dynamic_smem_limit(sc_first_kernel(d_list), small_bytes);
        }
        (void)K;
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }
    size_t max_input_items_per_frame() const override { return d_code.e(); }
    size_t default_input_items() const override { return d_code.e(); }
    size_t default_output_bits() const override
    {
        return d_code.k() + (d_detects_rnti ? 16 : 0);
    }
    bool has_soft_output() const override
    {
        return !d_fast && !d_detects_rnti && !d_first;
    }
    size_t preferred_batch_frames() const override
    {
        return preferred_polar_batch(d_code.k(), d_code.e());
    }
    size_t output_bits_for_input(size_t items) const override
    {
        return d_cpu->output_bits_for_input(items);
    }
    //! SC first: the list of frames whose CRC failed; BP int8: its frame counter; per
    //! slot (workspace_words()).
    size_t device_workspace_bytes(const batch_limits& limits) const override
    {
        return workspace_words(limits.max_frames) * sizeof(uint32_t);
    }
    //! Words of launch()'s `workspace` for `frames` frames: SC first's list, BP int8's
    //! frame counter, else none.
    size_t workspace_words(size_t frames) const
    {
        return d_first ? frames + 1 : d_bp && d_bp_int8 ? 1 : 0;
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        const size_t nf = batch.num_frames;
        check_frames(*this, batch, default_output_bits(), "polar decoder");
        if (nf == 0)
            return;
        require_engine_buffers(batch.device_frames && batch.device_status && batch.in &&
                                   (ctx.device_workspace || workspace_words(nf) == 0),
                               "polar decoder",
                               "device frame table, status, int8 input or workspace");
        launch(batch.in,
               batch.device_frames,
               nf,
               batch.out,
               batch.soft_out,
               batch.device_status,
               static_cast<cudaStream_t>(ctx.stream),
               static_cast<uint32_t*>(ctx.device_workspace));
    }

    //! `workspace`: workspace_words(nf) words of device memory (SC first's list,
    //! BP int8's frame counter).
    //! `failed_list` (SC first's fast-SSC decoder): where its kernel lists the frames
    //! whose CRC failed (polar_params::failed_list), for the list kernel after it.
    void launch(const llr8_t* in,
                const frame_extent* frames,
                size_t nf,
                uint8_t* out,
                float* soft,
                frame_status* status,
                cudaStream_t stream,
                uint32_t* workspace = nullptr,
                uint32_t* failed_list = nullptr) const
    {
        polar_params p = d_params;
        p.failed_list = failed_list;
        p.in = in;
        p.frames = frames;
        p.num_frames = static_cast<uint32_t>(nf);
        p.out = out;
        p.soft = soft;
        p.status = status;
        device_guard guard(d_device);
        size_t scl_blocks_max = size_t(1) << 20;
        if (d_first) {
            // Fast-SSC decodes every frame (bits and status), the failed ones are
            // listed on the device, and the list kernel decodes those again over them.
            if (!workspace)
                throw error("polar decoder (cuda): sc_first without its frame list");
            if (soft)
                throw error("polar decoder (cuda): sc_first has no soft output");
            if (d_first->uses_single_layout(nf, false)) {
                launch_sc_first_small(p, stream);
                return;
            }
            GPUFEC_CUDA_CHECK(cudaMemsetAsync(workspace, 0, sizeof(uint32_t), stream));
            d_first->launch(
                in, frames, nf, out, nullptr, status, stream, nullptr, workspace);
            p.frame_index = workspace + 1;
            p.second_pass = true;
        }
        if (d_scl) {
            // Batches that the GPU holds at once in the cheapest layout take it. SC
            // first's list pass, whose size only the device knows, guesses from the
            // last pass's count (copied back below): a wrong guess costs time only.
            const bool small = d_first ? last_listed_count() <= d_scl_small_resident
                                       : nf <= d_scl_small_resident;
            const scl_shape shape = small ? d_scl_small : d_scl_big;
            if (d_first)
                scl_blocks_max = small ? d_scl_small_resident / d_scl_warps
                                       : static_cast<size_t>(d_scl_resident);
            const size_t blocks =
                std::min<size_t>((nf + d_scl_warps - 1) / d_scl_warps, scl_blocks_max);
            p.scl_unstored = shape.unstored;
            p.scl_chan16 = shape.chan16;
            const size_t bytes = d_scl_warps * scl_frame_bytes(shape);
            scl_kernel(soft != nullptr, d_list)<<<static_cast<unsigned>(blocks),
                                                  32 * d_scl_warps,
                                                  bytes,
                                                  stream>>>(p);
            GPUFEC_CUDA_CHECK_LAUNCH();
            if (d_first)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(d_last_listed.get(),
                                                  workspace,
                                                  sizeof(uint32_t),
                                                  cudaMemcpyDeviceToHost,
                                                  stream));
            return;
        }
        if (d_bp) {
            if (d_bp_int8) {
                // Resident blocks at most: when they cannot hold the batch at once,
                // their warps take frames from a counter.
                const size_t per_block =
                    d_bp8_warps * bp8_variant_for(d_code.n()).frames_per_warp;
                const size_t blocks = (nf + per_block - 1) / per_block;
                p.next_frame = nullptr;
                if (blocks > d_bp8_resident_blocks) {
                    if (!workspace)
                        throw error(
                            "polar decoder (cuda): bp int8 without its frame counter");
                    GPUFEC_CUDA_CHECK(
                        cudaMemsetAsync(workspace, 0, sizeof(uint32_t), stream));
                    p.next_frame = workspace;
                }
                bp_kernel()<<<static_cast<unsigned>(
                                  std::min(blocks, d_bp8_resident_blocks)),
                              32 * d_bp8_warps,
                              bp_bytes(),
                              stream>>>(p);
            } else {
                bp_kernel()<<<static_cast<unsigned>(
                                  std::min<size_t>(nf, size_t(1) << 20)),
                              bp_threads(d_code.N()),
                              bp_bytes(),
                              stream>>>(p);
            }
            GPUFEC_CUDA_CHECK_LAUNCH();
            return;
        }
        if (uses_single_layout(nf, soft != nullptr)) {
            // A frame per warp and a warp per block: each frame on an SM of its own.
            p.ops = d_subtree_ops[0].get();
            p.num_ops = d_num_subtree_ops[0];
            single_frame_kernel<<<static_cast<unsigned>(
                                      std::min<size_t>(nf, size_t(1) << 20)),
                                  32,
                                  single_layout_bytes(),
                                  stream>>>(p);
            GPUFEC_CUDA_CHECK_LAUNCH();
            return;
        }
        if (!soft) {
            const int layout = d_fpw == 2 ? 1 : 2;
            p.ops = d_subtree_ops[layout].get();
            p.num_ops = d_num_subtree_ops[layout];
        }
        const size_t groups = (nf + d_fpw - 1) / d_fpw;
        const unsigned blocks = static_cast<unsigned>(std::min<size_t>(
            (groups + warps_per_block - 1) / warps_per_block, size_t(1) << 20));
        kernel(soft != nullptr,
               d_fpw,
               d_min_blocks)<<<blocks, 32 * warps_per_block, smem(), stream>>>(p);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

    //! The small-batch layout's shared memory (single_layout_bytes above).
    size_t single_layout_bytes() const
    {
        return cuda::single_layout_bytes(
            d_code.N(), d_code.k(), d_code.crc_bits(), d_num_subtree_ops[0]);
    }

    //! SC first over a small batch (d_first's small-batch layout): one launch of
    //! polar_sc_first_kernel, fast-SSC with its program and the list decoder `list`
    //! (this decoder's parameters, launch fields set) where the CRC fails.
    void launch_sc_first_small(polar_params list, cudaStream_t stream) const
    {
        const polar_decoder_cuda& first = *d_first;
        polar_params p = with_launch(first.d_params, list);
        p.ops = first.d_subtree_ops[0].get();
        p.num_ops = first.d_num_subtree_ops[0];
        list.second_pass = true;
        list.scl_unstored = d_scl_small.unstored;
        list.scl_chan16 = d_scl_small.chan16;
        sc_first_kernel(d_list)<<<static_cast<unsigned>(
                                      std::min<size_t>(list.num_frames, size_t(1) << 20)),
                                  32,
                                  sc_first_small_bytes(),
                                  stream>>>(p, list);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }
    size_t sc_first_small_bytes() const
    {
        return d_first->single_layout_bytes() + scl_frame_bytes(d_scl_small);
    }

    //! Whether a launch of `nf` frames takes the small-batch layout (one frame per
    //! warp, a warp per block): batches of at most one frame per SM, where the
    //! throughput layouts would leave SMs idle anyway and each frame's time is one
    //! warp's dependent chain (docs/polar-gpu.md). Hard output only: its one
    //! instantiation keeps the build short.
    bool uses_single_layout(size_t nf, bool soft) const
    {
        return !soft && (d_single_always || nf <= d_single_max_frames);
    }

    //! One layout for every batch, instead of the decoder's choice (tests and the
    //! kernel-only benchmark compare them): 2 or 4 frames per warp, or 1, the
    //! small-batch layout, for every batch without soft output (2 with it).
    void force_frames_per_warp(int fpw)
    {
        set_frames_per_warp(fpw == 1 ? 2 : fpw); // checks fpw
        d_single_always = fpw == 1;
        if (fpw != 1)
            d_single_max_frames = 0;
        if (d_first) // SC first: the layout of its fast-SSC pass
            d_first->force_frames_per_warp(fpw);
    }

    //! Frames per warp of the throughput layout (2 or 4). One and eight were slower
    //! on every code measured (docs/polar-gpu.md), and each layout is four
    //! instantiations of a ~25 000-instruction kernel, so they are not built as such.
    void set_frames_per_warp(int fpw)
    {
        if (fpw != 2 && fpw != 4)
            throw error("polar decoder (cuda): frames per warp " + std::to_string(fpw) +
                        "; allowed: 1, 2, 4");
        const size_t bytes = warps_per_block * fpw * frame_bytes(d_code.N());
        const size_t max_smem = max_block_smem(d_device);
        if (bytes > max_smem)
            throw error("polar decoder (cuda): " + std::to_string(fpw) +
                        " frames per warp need " + std::to_string(bytes) +
                        " bytes of shared memory per block; allowed on CUDA device " +
                        std::to_string(d_device) + ": up to " + std::to_string(max_smem));
        device_guard guard(d_device);
        // Registers follow the blocks per SM that the shared memory allows: where it
        // holds at most 4 (N = 1024, or 4 frames per warp at N = 512), 4 blocks and
        // up to 128 registers (ptxas otherwise recomputes the frame's addresses in
        // every op: 17.2 -> 18.4 Gb/s fast-SSC at N = 1024, H200); else 8 and 64.
        int smem_per_sm = 0, reserved = 0;
        GPUFEC_CUDA_CHECK(cudaDeviceGetAttribute(
            &smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, d_device));
        GPUFEC_CUDA_CHECK(cudaDeviceGetAttribute(
            &reserved, cudaDevAttrReservedSharedMemoryPerBlock, d_device));
        const int min_blocks =
            static_cast<size_t>(smem_per_sm) / (bytes + reserved) <= 4 ? 4 : 8;
        for (bool soft : { false, true })
            raise_dynamic_smem_limit(kernel(soft, fpw, min_blocks), bytes);
        d_fpw = fpw;
        d_min_blocks = min_blocks;
    }

    std::string name() const override
    {
        return std::string("polar ") + (d_first ? "sc-first " : "") +
               (d_bp     ? "bp"
                : d_fast ? "fast-ssc"
                : d_scl
                    ? (d_fast_list ? "fast-ca-scl-" : "ca-scl-") + std::to_string(d_list)
                    : "sc") +
               " (k=" + std::to_string(d_code.k()) + ", e=" + std::to_string(d_code.e()) +
               ", N=" + std::to_string(d_code.N()) + ", " + to_string(d_code.crc()) +
               ") on cuda:" + std::to_string(d_device) + " (" + d_device_name + ")";
    }
    //! The launch-independent parameters (a multi-code launch gathers them).
    const polar_params& params() const { return d_params; }
    //! The same with the list program of leaf steps only (built with_leaf_steps).
    polar_params leaf_step_params() const
    {
        if (!d_leaf_ops.get())
            throw error("polar decoder (cuda): leaf_step_params() of a decoder built "
                        "without with_leaf_steps");
        polar_params p = d_params;
        p.ops = d_leaf_ops.get();
        p.num_ops = d_num_leaf_ops;
        return p;
    }
    //! Shared memory of one CA-SCL frame: in the layout of large batches (the
    //! parameters' own, params()), or of `shape`.
    size_t scl_frame_bytes() const { return scl_frame_bytes(d_scl_big); }
    size_t scl_frame_bytes(const scl_shape& shape) const
    {
        return make_scl_layout(
                   d_code.N(), d_list, d_fast_list, shape.unstored, shape.chan16)
            .bytes;
    }

    /*!
     * The list kernel's frame layouts (polar_params::scl_unstored, scl_chan16), from
     * the cheapest to run: levels n - 1 (1) or n - 1 and n - 2 (2) computed from the
     * channel where read, the channel as floats or int16 (where it fits). The list
     * kernel is latency-bound (a warp walks its frame's steps one after another), so
     * large batches take the first layout that fits the most frames (warps) on an SM,
     * and batches that fit the GPU's SMs in the cheapest layout take that (a frame
     * then runs at its shortest). Level n - 2 is left to the channel only where no
     * fast-SCL node is at level n - 2 or above (rate-0 and repetition nodes that high
     * are split, which changes no value; fast-SCL's node rule would change).
     * GPUFEC_POLAR_SCL_UNSTORED=1|2 (2 where the program allows) and
     * GPUFEC_POLAR_SCL_CHANNEL=float|int16 (int16 where it fits) fix a choice for
     * every batch, for measurement and tests.
     */
    /*!
     * The list program with each aligned run of 2^scl_block_level leaves that it
     * walks as two or more leaf, rate-0 or repetition steps below that level made one
     * block step (scl_block_op, its frozen leaves as a mask): the same leaves in the
     * same order with the same values, decided in registers (scl_block). Blocks need
     * their level stored (stored_top: the highest stored level). GPUFEC_POLAR_SCL_BLOCKS
     * =off keeps the leaf steps, for measurement. The blind search takes them in
     * small batches only (dci_search_cuda::program_for).
     */
    static std::vector<uint32_t> scl_blocks(const std::vector<uint32_t>& ops,
                                            int stored_top)
    {
        namespace pp = polar_program;
        if (env_switch("GPUFEC_POLAR_SCL_BLOCKS",
                       { "on", "off" },
                       "polar decoder (cuda)") == "off" ||
            stored_top < scl_block_level)
            return ops;
        constexpr uint32_t B = 1u << scl_block_level;
        auto kind_of = [](uint32_t w) { return static_cast<int>(w & 0xffu); };
        auto level_of = [](uint32_t w) { return static_cast<int>((w >> 8) & 0xffu); };
        auto first_of = [](uint32_t w) { return w >> 16; };
        std::vector<uint32_t> out;
        for (size_t t = 0; t < ops.size();) {
            const uint32_t first = first_of(ops[t]);
            uint32_t covered = 0, frozen = 0;
            size_t e = t;
            while (first % B == 0 && e < ops.size() && covered < B) {
                const int kind = kind_of(ops[e]), level = level_of(ops[e]);
                if (first_of(ops[e]) != first + covered || level >= scl_block_level ||
                    (kind != pp::leaf_op && kind != pp::rate0_op && kind != pp::rep_op))
                    break;
                const uint32_t size = 1u << level;
                if (kind == pp::rate0_op)
                    frozen |= ((1u << size) - 1u) << covered;
                if (kind == pp::rep_op)
                    frozen |= ((1u << (size - 1)) - 1u) << covered;
                covered += size;
                e++;
            }
            if (covered == B && e - t >= 2) {
                out.push_back(static_cast<uint32_t>(scl_block_op) | frozen << 8 |
                              (first >> scl_block_level) << 24);
                t = e;
            } else {
                out.push_back(ops[t]);
                t++;
            }
        }
        return out;
    }

    void choose_scl_shapes(const std::vector<polar_program::op>& program,
                           int n,
                           bool chan16_fits)
    {
        const std::string who = "polar decoder (cuda)";
        const std::string unstored =
            env_switch("GPUFEC_POLAR_SCL_UNSTORED", { "1", "2" }, who);
        const std::string channel =
            env_switch("GPUFEC_POLAR_SCL_CHANNEL", { "float", "int16" }, who);
        bool high_node = false;
        for (const polar_program::op& o : program)
            high_node |=
                (o.kind == polar_program::rate1_op || o.kind == polar_program::spc_op) &&
                o.level >= n - 2;
        // The layouts this code allows, cheapest first.
        std::vector<scl_shape> shapes;
        for (int u : { 1, 2 })
            for (bool c16 : { false, true })
                if ((u == 1 || !high_node) && (!c16 || chan16_fits))
                    shapes.push_back(scl_shape{ u, c16 });
        // A forced value keeps the layouts that have it (where the code allows one).
        auto keep = [&shapes](auto has) {
            std::vector<scl_shape> kept;
            for (const scl_shape& x : shapes)
                if (has(x))
                    kept.push_back(x);
            if (!kept.empty())
                shapes = kept;
        };
        if (!unstored.empty())
            keep([&](const scl_shape& x) { return x.unstored == std::stoi(unstored); });
        if (!channel.empty())
            keep([&](const scl_shape& x) { return x.chan16 == (channel == "int16"); });
        if (!unstored.empty() || !channel.empty()) // one layout for every batch
            shapes.resize(1);
        // Those that fit an SM (the constructor refuses a code where none does).
        const size_t max_smem = max_block_smem(d_device);
        keep([&](const scl_shape& x) { return scl_frame_bytes(x) <= max_smem; });
        d_scl_small = shapes.front();
        d_scl_big = shapes.front();
        const size_t most = scl_frame_bytes(shapes.front()); // the cheapest: the largest
        if (most > max_smem)
            return;
        int sms = 0;
        GPUFEC_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d_device));
        raise_dynamic_smem_limit(scl_kernel(false, d_list), most);
        int best = 0;
        for (const scl_shape& shape : shapes) {
            int per_sm = 0;
            GPUFEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, scl_kernel(false, d_list), 32, scl_frame_bytes(shape)));
            if (&shape == &shapes.front())
                d_scl_small_resident = static_cast<size_t>(per_sm) * sms;
            if (per_sm > best) {
                best = per_sm;
                d_scl_big = shape;
            }
        }
    }

    std::string kernel_name() const
    {
        if (d_scl)
            return std::string(d_first ? "fast-ssc (" + d_first->kernel_name() +
                                             "), then (small batches: in the same "
                                             "launch, a frame per block) "
                                       : "") +
                   "polar ca-scl-" + std::to_string(d_list) + ": 1 warp/frame, " +
                   std::to_string(d_scl_warps) + " frames/block, " +
                   std::to_string(scl_frame_bytes()) +
                   " B shared memory per frame (levels from n - " +
                   std::to_string(d_scl_big.unstored) + " up from the channel" +
                   (d_scl_big.chan16 ? ", int16 channel" : "") +
                   (d_scl_small.unstored != d_scl_big.unstored ||
                            d_scl_small.chan16 != d_scl_big.chan16
                        ? "; batches of up to " + std::to_string(d_scl_small_resident) +
                              " frames: " + std::to_string(scl_frame_bytes(d_scl_small)) +
                              " B, levels from n - " +
                              std::to_string(d_scl_small.unstored) +
                              (d_scl_small.chan16 ? ", int16 channel)" : ")")
                        : ")") +
                   (d_params.scl_forks_by_count ? ", forks by count" : "");
        if (d_bp && d_bp_int8)
            return "polar bp int8: " +
                   std::to_string(32 / bp8_variant_for(d_code.n()).frames_per_warp) +
                   " lanes/frame, " +
                   std::to_string(bp8_variant_for(d_code.n()).frames_per_warp) +
                   " frame(s)/warp, " + std::to_string(d_bp8_warps) + " warp(s)/block, " +
                   std::to_string(bp8_variant_for(d_code.n()).frame_bytes) +
                   " B shared memory per frame";
        if (d_bp)
            return "polar bp: 1 block/frame, " + std::to_string(bp_threads(d_code.N())) +
                   " threads, " + std::to_string(bp_bytes()) +
                   " B shared memory per frame";
        return std::string(d_fast ? "polar fast-ssc" : "polar sc") + ": " +
               std::to_string(d_num_ops) + " ops (hard output, 1/2/4 frames/warp: " +
               std::to_string(d_num_subtree_ops[0]) + "/" +
               std::to_string(d_num_subtree_ops[1]) + "/" +
               std::to_string(d_num_subtree_ops[2]) +
               (d_subtrees ? " with subtree ops), " : ", subtree ops off), ") +
               (d_single_always ? std::string("1 frame/warp without soft output, else ")
                : d_single_max_frames ? "up to " + std::to_string(d_single_max_frames) +
                                            " frames: 1 frame/warp, else "
                                      : std::string()) +
               std::to_string(d_fpw) + " frame(s)/warp, " +
               std::to_string(warps_per_block * d_fpw) + " frames/block, " +
               std::to_string(frame_bytes(d_code.N())) + " B shared memory per frame";
    }

#ifdef GPUFEC_SCL_PROFILE
    //! A development build's phase profile of the list kernel (scl_kernel.cuh).
    ~polar_decoder_cuda() override
    {
        unsigned long long c[scl_phase_count] = {};
        device_guard guard(d_device);
        if (!d_scl ||
            cudaMemcpyFromSymbol(c, scl_profile_cycles, sizeof c) != cudaSuccess ||
            c[scl_phase_frames] == 0)
            return;
        static const char* names[] = { "descend",    "rank",      "node forks",
                                       "node tail",  "rate0/rep", "leaf fork",
                                       "crc+output", "soft" };
        unsigned long long total = 0;
        for (int t = 0; t < scl_phase_frames; t++)
            total += c[t];
        std::fprintf(stderr,
                     "scl profile %s: %.0f cycles/frame:",
                     kernel_name().c_str(),
                     double(total) / c[scl_phase_frames]);
        for (int t = 0; t < scl_phase_frames; t++)
            std::fprintf(stderr,
                         " %s %.0f (%.1f%%)",
                         names[t],
                         double(c[t]) / c[scl_phase_frames],
                         100.0 * c[t] / total);
        static const char* parts[] = { "descend: encode", "descend: levels",
                                       "block: leaves",   "block: forks",
                                       "descents",        "descent passes",
                                       "block reorders" };
        for (int t = scl_phase_frames + 1; t < scl_phase_count; t++)
            std::fprintf(stderr,
                         " | %s %.1f",
                         parts[t - scl_phase_frames - 1],
                         double(c[t]) / c[scl_phase_frames]);
        std::fprintf(stderr, "\n");
        const unsigned long long zero[scl_phase_count] = {};
        (void)cudaMemcpyToSymbol(scl_profile_cycles, zero, sizeof zero);
    }
#endif

private:
    using kernel_fn = void (*)(polar_params);
    using sc_first_kernel_fn = void (*)(polar_params, polar_params);
    //! SC first's small-batch kernel for `list` paths: two instantiations, lists of up
    //! to 8 and of up to 32 (the list loops run to list_size; each instantiation
    //! carries the whole fast-SSC kernel, ~10 s of nvcc time, so not one per size).
    static sc_first_kernel_fn sc_first_kernel(int list)
    {
        return list <= 8 ? polar_sc_first_kernel<8> : polar_sc_first_kernel<32>;
    }
    //! The small-batch layout's kernel (uses_single_layout()).
    static constexpr kernel_fn single_frame_kernel = polar_kernel<false, 1, 4>;
    //! The SC / fast-SSC kernel for `fpw` frames per warp whose launch bounds ask for
    //! `min_blocks` blocks per SM (4: up to 128 registers, 8: 64).
    static kernel_fn kernel(bool soft, int fpw, int min_blocks)
    {
        return min_blocks <= 4 ? kernel_mb<4>(soft, fpw) : kernel_mb<8>(soft, fpw);
    }
    template <int MB>
    static kernel_fn kernel_mb(bool soft, int fpw)
    {
        if (fpw == 2)
            return soft ? polar_kernel<true, 2, MB> : polar_kernel<false, 2, MB>;
        return soft ? polar_kernel<true, 4, MB> : polar_kernel<false, 4, MB>;
    }
    //! The CA-SCL kernel for `list` paths (its loops unrolled to a power of two).
    static kernel_fn scl_kernel(bool soft, int list)
    {
        if (list <= 1)
            return soft ? polar_scl_kernel<true, 1> : polar_scl_kernel<false, 1>;
        if (list <= 2)
            return soft ? polar_scl_kernel<true, 2> : polar_scl_kernel<false, 2>;
        if (list <= 4)
            return soft ? polar_scl_kernel<true, 4> : polar_scl_kernel<false, 4>;
        if (list <= 8)
            return soft ? polar_scl_kernel<true, 8> : polar_scl_kernel<false, 8>;
        if (list <= 16)
            return soft ? polar_scl_kernel<true, 16> : polar_scl_kernel<false, 16>;
        return soft ? polar_scl_kernel<true, 32> : polar_scl_kernel<false, 32>;
    }
    size_t smem() const { return warps_per_block * d_fpw * frame_bytes(d_code.N()); }
    //! The BP kernel of the message arithmetic, and its shared memory per frame.
    kernel_fn bp_kernel() const
    {
        return d_bp_int8 ? bp8_variant_for(d_code.n()).kernel
                         : polar_bp_kernel<bp_float_messages>;
    }
    //! Shared memory of one BP block: a frame (float), or its warps' frames (int8).
    size_t bp_bytes() const
    {
        return d_bp_int8 ? d_bp8_warps * bp8_variant_for(d_code.n()).frames_per_warp *
                               bp8_variant_for(d_code.n()).frame_bytes
                         : bp_frame_bytes(d_code.N(), d_code.n());
    }

    nr_polar_code d_code;
    int d_device;
    std::string d_device_name;
    std::unique_ptr<batch_decoder> d_cpu; // validation and lengths
    polar_params d_params;
    device_buffer<float> d_fill;
    device_buffer<uint32_t> d_begin, d_column, d_ops, d_leaf_ops;
    int d_num_ops = 0, d_num_leaf_ops = 0;
    //! The list kernel's layouts (choose_scl_shapes): of large batches, and of batches
    //! of at most d_scl_small_resident frames (and SC first's small-batch launch).
    scl_shape d_scl_big, d_scl_small;
    size_t d_scl_small_resident = 0;
    //! The hard-output programs with subtree ops, for 32, 16 and 8 lanes a frame (1, 2
    //! and 4 frames a warp), and the frozen flags as words, which those ops read.
    device_buffer<uint32_t> d_subtree_ops[3], d_frozen_words;
    int d_num_subtree_ops[3] = {};
    polar_op_profile d_op_profile; //!< GPUFEC_POLAR_OP_PROFILE
    bool d_subtrees = true;        //!< GPUFEC_POLAR_SUBTREES (on)
    int d_fpw = 1;                 //!< frames per warp
    //! Batches of up to this many frames take the small-batch layout (the SM count).
    size_t d_single_max_frames = 0;
    bool d_single_always = false; //!< force_frames_per_warp(1): every hard-output batch
    int d_min_blocks = 8;         //!< the SC / fast-SSC kernel's launch bounds
    bool d_fast = false;          //!< fast-SSC (no soft output)
    bool d_bp = false;            //!< belief propagation
    bool d_bp_int8 = false;       //!< BP with 8-bit messages
    bool d_scl = false;           //!< CA-SCL
    bool d_fast_list = false;     //!< fast-SCL (CA-SCL with rate-1 and SPC node steps)
    int d_list = 1;               //!< SCL list size
    int d_scl_warps = 1;          //!< SCL frames (warps) per block
    int d_bp8_warps = 1;          //!< BP int8: warps per block
    size_t d_bp8_resident_blocks = 1; //!< BP int8: blocks the device holds at once
    //! SC first: the fast-SSC decoder run before the list, and the list kernel's
    //! resident blocks (its grid; the count of failed frames is on the device)
    std::unique_ptr<polar_decoder_cuda> d_first;
    int d_scl_resident = 1;
    //! SC first: how many frames the last finished list pass decoded (a pinned word
    //! that its stream copies from the device; batches in flight on other streams may
    //! write it at any time, so it is read relaxed and only steers the layout).
    pinned_buffer<uint32_t> d_last_listed;
    size_t last_listed_count() const
    {
        return __atomic_load_n(d_last_listed.get(), __ATOMIC_RELAXED);
    }
    device_buffer<uint32_t> d_leaf_column, d_leaf_crc_bit, d_pc_mask, d_rnti_set;
    bool d_detects_rnti = false; //!< options.rntis: the output carries the RNTI
    device_buffer<int8_t> d_pc_row;
    device_buffer<uint8_t> d_frozen;
    device_buffer<uint16_t> d_src, d_info;
    device_buffer<int16_t> d_payload_of;
};

// ---- PDCCH blind search --------------------------------------------------------------
//
// Candidates of several lengths (one DCI code per aggregation level) in one batch, one
// launch: each warp decodes its frame with the code its length selects
// (polar_scl_set_kernel), with blind RNTI detection.

class dci_search_cuda final : public batch_decoder
{
public:
    dci_search_cuda(const dci_search_space& space,
                    const dci_search_options& options,
                    int device)
        : d_k(space.k), d_device(device)
    {
        d_cpu = make_dci_search_decoder_cpu(space, options); // validates
        const polar_decoder_options o = dci_search_decoding(space, options);
        if (o.algorithm != polar_algorithm::scl)
            throw error(std::string("dci search (cuda): algorithm \"") +
                        to_string(o.algorithm) +
                        "\"; allowed on cuda: scl (list_size 1..32); the cpu backend "
                        "takes every algorithm");
        const std::vector<nr_polar_code> codes = dci_search_codes(space);
        if (codes.size() > static_cast<size_t>(max_launch_codes))
            throw error("dci search (cuda): " + std::to_string(codes.size()) +
                        " aggregation levels; allowed: at most 5");
        d_list = o.list_size;
        std::vector<polar_params> block_step_params, leaf_step_params;
        uint32_t frame_bytes = 0;
        for (size_t c = 0; c < codes.size(); c++) {
            d_levels.push_back(std::make_unique<polar_decoder_cuda>(
                codes[c], o, device, /*with_leaf_steps=*/true));
            block_step_params.push_back(d_levels.back()->params());
            leaf_step_params.push_back(d_levels.back()->leaf_step_params());
            frame_bytes = std::max<uint32_t>(
                frame_bytes, static_cast<uint32_t>(d_levels.back()->scl_frame_bytes()));
        }
        device_guard guard(device);
        for (bool blocks : { true, false }) {
            program_form& form = blocks ? d_block_steps : d_leaf_steps;
            upload(form.codes, blocks ? block_step_params : leaf_step_params);
            form.set.codes = form.codes.get();
            form.set.count = static_cast<int>(codes.size());
            form.set.frame_bytes = frame_bytes;
            for (size_t c = 0; c < codes.size(); c++)
                form.set.e[c] = static_cast<uint32_t>(codes[c].e());
        }
        d_steps = env_switch("GPUFEC_POLAR_DCI_STEPS",
                             { "auto", "blocks", "leaves" },
                             "dci search (cuda)");
        raise_dynamic_smem_limit(kernel(d_list), frame_bytes);
        int sms = 0, per_sm = 0;
        GPUFEC_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        GPUFEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, kernel(d_list), 32, frame_bytes));
        d_block_steps_max_frames = block_step_waves * sms * std::max(per_sm, 1);
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }
    size_t max_input_items_per_frame() const override
    {
        return d_cpu->max_input_items_per_frame();
    }
    size_t default_input_items() const override { return d_cpu->default_input_items(); }
    size_t default_output_bits() const override { return d_k + 16; }
    size_t output_bits_for_input(size_t items) const override
    {
        return d_cpu->output_bits_for_input(items);
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        check_frames(*this, batch, d_k + 16, "dci search");
        if (batch.num_frames == 0)
            return;
        require_engine_buffers(batch.device_frames && batch.device_status && batch.in,
                               "dci search",
                               "device frame table, status or int8 input");
        launch(batch.in,
               batch.device_frames,
               batch.num_frames,
               batch.out,
               batch.device_status,
               static_cast<cudaStream_t>(ctx.stream));
    }

    void launch(const llr8_t* in,
                const frame_extent* frames,
                size_t nf,
                uint8_t* out,
                frame_status* status,
                cudaStream_t stream) const
    {
        polar_params p{};
        p.in = in;
        p.frames = frames;
        p.num_frames = static_cast<uint32_t>(nf);
        p.out = out;
        p.status = status;
        const polar_code_set& set = program_for(nf).set;
        device_guard guard(d_device);
        kernel(d_list)<<<static_cast<unsigned>(std::min<size_t>(nf, size_t(1) << 20)),
                         32,
                         set.frame_bytes,
                         stream>>>(p, set);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

    std::string name() const override
    {
        return d_cpu->name() + " on cuda:" + std::to_string(d_device);
    }
    std::string kernel_name() const
    {
        return "dci search ca-scl-" + std::to_string(d_list) + ": " +
               std::to_string(d_leaf_steps.set.count) +
               " codes in one launch, 1 warp/frame, " +
               std::to_string(d_leaf_steps.set.frame_bytes) +
               " B shared memory per frame; " +
               (d_steps == "blocks" || d_steps == "leaves"
                    ? "GPUFEC_POLAR_DCI_STEPS=" + d_steps + ": every batch takes the " +
                          (d_steps == "blocks" ? "block" : "leaf") + " steps"
                    : "batches of up to " + std::to_string(d_block_steps_max_frames) +
                          " frames (" + std::to_string(block_step_waves) +
                          " waves) take the block steps where the programs have them");
    }

private:
    //! The codes' parameters with their list programs in one form (with block steps,
    //! or leaf steps only), and the launch's code set.
    struct program_form {
        device_buffer<polar_params> codes;
        polar_code_set set{};
    };
    //! Batches of up to 8 waves (a wave: the frames that the GPU holds at once) take
    //! the block steps, larger ones the leaf steps. Measured on an H200 (2026-11-29,
    //! levels 4, 8, 16, CA-SCL-8, 16 frames per SM, a wave 2 112; docs/polar-gpu.md),
    //! kernel-only, blocks against leaves: one candidate 124 against 155 us, one wave
    //! 11.8 against 10.2 M/s (179 against 207 us), 2 waves 11.5 against 10.2, 8 waves
    //! 10.4 against 9.84, 62 waves (131 072) 9.85 against 10.2 M/s: as the resident
    //! frames drift apart in the program over a long launch, the block steps' gain
    //! shrinks and turns into a loss somewhere between 8 and 62 waves (not measured).
    static constexpr int block_step_waves = 8;
    //! GPUFEC_POLAR_DCI_STEPS=blocks|leaves fixes the form, for measurement.
    const program_form& program_for(size_t nf) const
    {
        if (d_steps == "blocks" || d_steps == "leaves")
            return d_steps == "blocks" ? d_block_steps : d_leaf_steps;
        return nf <= static_cast<size_t>(d_block_steps_max_frames) ? d_block_steps
                                                                   : d_leaf_steps;
    }

    using kernel_fn = void (*)(polar_params, polar_code_set);
    static kernel_fn kernel(int list)
    {
        if (list <= 1)
            return polar_scl_set_kernel<1>;
        if (list <= 2)
            return polar_scl_set_kernel<2>;
        if (list <= 4)
            return polar_scl_set_kernel<4>;
        if (list <= 8)
            return polar_scl_set_kernel<8>;
        if (list <= 16)
            return polar_scl_set_kernel<16>;
        return polar_scl_set_kernel<32>;
    }

    int d_k;
    int d_device;
    int d_list = 1;
    std::unique_ptr<batch_decoder> d_cpu; // validation and lengths
    //! One decoder per aggregation level: the device tables of both forms.
    std::vector<std::unique_ptr<polar_decoder_cuda>> d_levels;
    program_form d_block_steps, d_leaf_steps;
    int d_block_steps_max_frames = 0; //!< block_step_waves x SMs x frames per SM
    std::string d_steps; //!< GPUFEC_POLAR_DCI_STEPS ("" or auto: by batch size)
};

// ---- UCI codes of two code blocks (5.2.1) -------------------------------------------
//
// A frame of e LLRs is two blocks of floor(e / 2) (an odd e's last LLR is padding).
// The block decoder runs on 2 nf block frames whose table, bits, status and soft
// output live in the slot's device workspace; a merge kernel then writes each frame's
// payload: the blocks' bits without the leading filler bit, ok when both CRCs hold,
// iterations the larger count (as polar_segmented_cpu).

__global__ void split_segments(const frame_extent* frames,
                               uint32_t num_frames,
                               uint32_t block_e,
                               uint32_t block_k,
                               uint32_t block_bytes,
                               frame_extent* blocks)
{
    for (uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < 2 * num_frames;
         b += gridDim.x * blockDim.x) {
        const frame_extent fe = frames[b / 2];
        frame_extent x{};
        x.in_offset = fe.in_offset + (b % 2) * uint64_t(block_e);
        x.in_items = block_e;
        x.out_offset = uint64_t(b) * block_bytes;
        x.out_bits = block_k;
        blocks[b] = x;
    }
}

__global__ void merge_segments(const frame_extent* frames,
                               uint32_t num_frames,
                               int k,
                               int block_k,
                               int filler,
                               uint32_t block_bytes,
                               const uint8_t* block_out,
                               const float* block_soft,
                               const frame_status* block_status,
                               uint8_t* out,
                               float* soft,
                               frame_status* status)
{
    const uint32_t bytes = (k + 7) / 8;
    for (uint64_t t = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
         t < uint64_t(num_frames) * bytes;
         t += uint64_t(gridDim.x) * blockDim.x) {
        const uint32_t f = static_cast<uint32_t>(t / bytes), byte = t % bytes;
        const frame_extent fe = frames[f];
        unsigned v = 0;
        for (int b = 0; b < 8; b++) {
            const int j = static_cast<int>(byte) * 8 + b;
            if (j >= k)
                break;
            const int at = j + filler, r = at / block_k, i = at % block_k;
            const uint64_t from = uint64_t(2 * f + r) * block_bytes;
            if ((block_out[from + i / 8] >> (7 - i % 8)) & 1u)
                v |= 0x80u >> b;
            if (soft)
                soft[8 * fe.out_offset + j] = block_soft[8 * from + i];
        }
        out[fe.out_offset + byte] = static_cast<uint8_t>(v);
        if (byte == 0) {
            const frame_status s0 = block_status[2 * f], s1 = block_status[2 * f + 1];
            status[f] = frame_status{ max(s0.iterations, s1.iterations), s0.ok && s1.ok };
        }
    }
}

class polar_segmented_cuda final : public batch_decoder
{
public:
    polar_segmented_cuda(const nr_polar_code& code,
                         const polar_decoder_options& options,
                         int device)
        : d_code(code),
          d_cpu(make_polar_decoder_cpu(code, options)),
          d_block(code.segment(), options, device),
          d_device(device)
    {
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }
    size_t max_input_items_per_frame() const override { return d_code.e(); }
    size_t default_input_items() const override { return d_code.e(); }
    size_t default_output_bits() const override { return d_code.k(); }
    bool has_soft_output() const override { return d_block.has_soft_output(); }
    size_t preferred_batch_frames() const override
    {
        return preferred_polar_batch(d_code.k(), d_code.e());
    }
    size_t output_bits_for_input(size_t items) const override
    {
        return d_cpu->output_bits_for_input(items);
    }

    //! Workspace of a batch of `frames` frames: the block frames' table, status, bits
    //! and (soft) floats, each 256-byte aligned.
    struct layout {
        size_t table, status, out, soft, sc_first, bytes;
    };
    layout workspace_layout(size_t frames, bool soft) const
    {
        auto up = [](size_t x) { return (x + 255) & ~size_t(255); };
        layout w{};
        const size_t blocks = 2 * frames;
        w.table = 0;
        w.status = up(w.table + blocks * sizeof(frame_extent));
        w.out = up(w.status + blocks * sizeof(frame_status));
        w.soft = up(w.out + blocks * block_bytes());
        w.sc_first = up(w.soft + (soft ? 8 * blocks * block_bytes() * sizeof(float) : 0));
        w.bytes = up(w.sc_first + d_block.workspace_words(blocks) * sizeof(uint32_t));
        return w;
    }
    size_t device_workspace_bytes(const batch_limits& limits) const override
    {
        return workspace_layout(limits.max_frames, limits.soft_output).bytes;
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        const size_t nf = batch.num_frames;
        check_frames(*this, batch, default_output_bits(), "polar decoder");
        if (nf == 0)
            return;
        require_engine_buffers(batch.device_frames && batch.device_status && batch.in &&
                                   ctx.device_workspace,
                               "polar decoder",
                               "device frame table, status, int8 input or workspace");
        const layout w = workspace_layout(nf, batch.soft_out != nullptr);
        auto* base = static_cast<uint8_t*>(ctx.device_workspace);
        auto* table = reinterpret_cast<frame_extent*>(base + w.table);
        auto* status = reinterpret_cast<frame_status*>(base + w.status);
        uint8_t* out = base + w.out;
        float* soft = batch.soft_out ? reinterpret_cast<float*>(base + w.soft) : nullptr;
        const nr_polar_code& b = d_code.segment();
        auto stream = static_cast<cudaStream_t>(ctx.stream);
        device_guard guard(d_device);
        const unsigned grid =
            static_cast<unsigned>(std::min<size_t>((2 * nf + 255) / 256, 4096));
        split_segments<<<grid, 256, 0, stream>>>(batch.device_frames,
                                                 static_cast<uint32_t>(nf),
                                                 static_cast<uint32_t>(b.e()),
                                                 static_cast<uint32_t>(b.k()),
                                                 static_cast<uint32_t>(block_bytes()),
                                                 table);
        GPUFEC_CUDA_CHECK_LAUNCH();
        d_block.launch(batch.in,
                       table,
                       2 * nf,
                       out,
                       soft,
                       status,
                       stream,
                       reinterpret_cast<uint32_t*>(base + w.sc_first));
        const size_t items = nf * ((d_code.k() + 7) / 8);
        merge_segments<<<static_cast<unsigned>(
                             std::min<size_t>((items + 255) / 256, 4096)),
                         256,
                         0,
                         stream>>>(batch.device_frames,
                                   static_cast<uint32_t>(nf),
                                   d_code.k(),
                                   b.k(),
                                   d_code.filler_bits(),
                                   static_cast<uint32_t>(block_bytes()),
                                   out,
                                   soft,
                                   status,
                                   batch.out,
                                   batch.soft_out,
                                   batch.device_status);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

    std::string name() const override { return "2 code blocks of " + d_block.name(); }

private:
    size_t block_bytes() const { return aligned_packed_bytes(d_code.segment().k()); }

    nr_polar_code d_code;
    std::unique_ptr<batch_decoder> d_cpu; // lengths
    polar_decoder_cuda d_block;
    int d_device;
};

} // namespace

bool polar_cuda_accepts(const nr_polar_code& code, const polar_decoder_options& options)
{
    return options.algorithm == polar_algorithm::sc ||
           options.algorithm == polar_algorithm::fast_ssc ||
           options.algorithm == polar_algorithm::bp ||
           options.algorithm == polar_algorithm::scl ||
           options.algorithm == polar_algorithm::fast_scl;
}

std::unique_ptr<batch_decoder> make_polar_decoder(const nr_polar_code& code,
                                                  const polar_decoder_options& options,
                                                  int device)
{
    if (code.segments() == 2)
        return std::make_unique<polar_segmented_cuda>(code, options, device);
    return std::make_unique<polar_decoder_cuda>(code, options, device);
}

std::unique_ptr<batch_decoder> make_polar_decoder(const nr_polar_code& code,
                                                  const polar_decoder_options& options,
                                                  int device,
                                                  int frames_per_warp)
{
    auto dec = std::make_unique<polar_decoder_cuda>(code, options, device);
    dec->force_frames_per_warp(frames_per_warp);
    return dec;
}

polar_kernel_timing time_polar_kernel(const nr_polar_code& code,
                                      const polar_decoder_options& options,
                                      int device,
                                      const std::vector<int8_t>& llrs,
                                      size_t num_frames,
                                      int reps,
                                      int frames_per_warp)
{
    polar_decoder_cuda dec(code, options, device);
    if (frames_per_warp)
        dec.force_frames_per_warp(frames_per_warp);
    device_guard guard(device);
    const size_t k = code.k();
    const timing_batch b(llrs, code.e(), dec.default_output_bits(), num_frames);
    device_buffer<uint32_t> list(std::max<size_t>(dec.workspace_words(num_frames), 1));
    stream s;
    auto run = [&](int) {
        dec.launch(b.llrs(),
                   b.frames.get(),
                   num_frames,
                   b.out.get(),
                   nullptr,
                   b.status.get(),
                   s.get(),
                   list.get());
    };
    const std::vector<double> times = time_launches(s, reps, run);
    const std::vector<double> gpu_times = time_launches_gpu_side(s, reps, run);
    polar_kernel_timing t;
    t.median_ms = times[times.size() / 2];
    t.gpu_side_median_ms = gpu_times[gpu_times.size() / 2];
    t.info_bits = static_cast<double>(num_frames * k);
    t.kernel = dec.kernel_name();
    t.mean_iterations = b.mean_iterations();
    return t;
}

bool dci_search_cuda_accepts(const dci_search_space&, const dci_search_options& options)
{
    return options.decoding.algorithm == polar_algorithm::scl;
}

std::unique_ptr<batch_decoder> make_dci_search_decoder(const dci_search_space& space,
                                                       const dci_search_options& options,
                                                       int device)
{
    return std::make_unique<dci_search_cuda>(space, options, device);
}

polar_kernel_timing time_dci_search_kernel(const dci_search_space& space,
                                           const dci_search_options& options,
                                           int device,
                                           const std::vector<int8_t>& llrs,
                                           const std::vector<uint32_t>& lengths,
                                           size_t num_frames,
                                           int reps)
{
    dci_search_cuda dec(space, options, device);
    device_guard guard(device);
    if (lengths.empty())
        throw error("time_dci_search_kernel: no candidates");
    // Frame f is candidate f mod lengths.size() (its LLRs at their offset in llrs).
    std::vector<uint64_t> offset(lengths.size(), 0);
    for (size_t c = 1; c < lengths.size(); c++)
        offset[c] = offset[c - 1] + lengths[c - 1];
    if (offset.back() + lengths.back() > llrs.size())
        throw error("time_dci_search_kernel: fewer LLRs than the candidates' lengths");
    const uint32_t out_bits = static_cast<uint32_t>(space.k + 16);
    const size_t out_bytes = aligned_packed_bytes(out_bits);
    std::vector<frame_extent> table(num_frames);
    for (size_t f = 0; f < num_frames; f++) {
        const size_t c = f % lengths.size();
        table[f] = frame_extent{ offset[c], lengths[c], f * out_bytes, out_bits };
    }
    device_buffer<int8_t> in;
    device_buffer<frame_extent> frames;
    upload(in, llrs);
    upload(frames, table);
    device_buffer<uint8_t> out(std::max<size_t>(num_frames * out_bytes, 1));
    device_buffer<frame_status> status(std::max<size_t>(num_frames, 1));
    stream s;
    const std::vector<double> times = time_launches(s, reps, [&](int) {
        dec.launch(reinterpret_cast<const llr8_t*>(in.get()),
                   frames.get(),
                   num_frames,
                   out.get(),
                   status.get(),
                   s.get());
    });
    polar_kernel_timing t;
    t.median_ms = times[times.size() / 2];
    t.info_bits = static_cast<double>(num_frames * space.k);
    t.kernel = dec.kernel_name();
    return t;
}

} // namespace cuda
} // namespace gpufec
