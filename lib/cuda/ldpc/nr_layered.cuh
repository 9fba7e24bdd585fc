/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the 5G NR kernel of the CUDA LDPC decoder, specialised on the base graph at
// compile time (TS 38.212 Tables 5.3.2-2/-3: 46 or 42 rows, their degrees), for every
// lifting size Z >= 2 (small Z: several codeword pairs per block).
// Same arithmetic as the generic kernel and the CPU (lib/cpu/min_sum_kernels.h).
//
// Why it is faster than the generic kernel (docs/ldpc-gpu-roofline.md): the check
// messages never leave the SM. Thread t owns lifted row t of every base row, so the
// messages of its 46 rows live in its registers, compressed as the paper does (two
// scaled minima, the edge of the first, one sign bit per edge: 32 bits per row, 64 for
// BG1's four rows of degree 19). Every loop over layers and edges is unrolled at compile
// time, so the register arrays are indexed by constants and the shifts and columns
// are kernel-parameter operands. A thread decodes two codewords at once (a pair), their
// APP values interleaved in shared memory as int16 or half pairs: one 32-bit access reads
// or writes both, and their arithmetic runs in the 16-bit halves of each register. At
// small Z a block holds several pairs ("slots", see nr_layered_kernel).
#ifndef INCLUDED_GPUFEC_LDPC_NR_LAYERED_CUH
#define INCLUDED_GPUFEC_LDPC_NR_LAYERED_CUH

#include <gpufec/common.h>
#include <gpufec/ldpc_decoding.h>

#include "../common/half2_bits.cuh"

#include <cuda_fp16.h>

#include <type_traits>
#include <cstdint>
#include <cstring>

namespace gpufec {
namespace cuda {
namespace nr {

constexpr int app_max = 32000;
constexpr int max_edges = 316; // BG1
constexpr int max_threads = 384;
//! Codeword pairs per block (small Z): 384 threads of Z = 2, TS 38.212's smallest.
constexpr int max_slots = 192;
constexpr int min_z = max_threads / max_slots;
//! The kernel's static shared memory (slot_failed), beside its dynamic APP values.
constexpr size_t static_smem_bytes = 2 * max_slots * sizeof(uint32_t);
//! Channel LLRs each thread loads at once when it fills the APP values.
constexpr int channel_batch = 4;

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
    //! 1 where a barrier follows the row: consecutive rows up to a 1 share no column
    //! (counted from the table), so they update side by side with the results of
    //! updating them one after the other (the CPU's order); the host checks it.
    static constexpr bool barrier_after[rows] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                                  1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1,
                                                  0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1,
                                                  0, 1, 0, 1, 0, 1, 0, 1, 0, 1 };
};
template <>
struct base_graph<2> {
    static constexpr int rows = 42, columns = 52, edges = 197;
    static constexpr int degree[rows] = { 8, 10, 8, 10, 4, 6, 6, 6, 4, 5, 5, 5, 4, 5,
                                          5, 4,  5, 5,  4, 4, 4, 4, 3, 4, 4, 3, 5, 3,
                                          4, 3,  5, 3,  4, 4, 4, 4, 4, 3, 4, 4, 4, 4 };
    static constexpr bool barrier_after[rows] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                                  0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1,
                                                  0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0,
                                                  1, 0, 1, 0, 0, 1, 0, 0, 1 };
};

template <int BG>
constexpr int first_edge(int row)
{
    int e = 0;
    for (int r = 0; r < row; r++)
        e += base_graph<BG>::degree[r];
    return e;
}
//! Rows of degree > 11 need a third state word (nr_layered.cuh, row state); their
//! index among those.
template <int BG>
constexpr int high_index(int row)
{
    int h = 0;
    for (int r = 0; r < row; r++)
        h += base_graph<BG>::degree[r] > 11;
    return h;
}
template <int BG>
constexpr int high_rows()
{
    return high_index<BG>(base_graph<BG>::rows);
}

//! The looped kernel's state column of a thread (row state below): words 0, 1 of row
//! r at 2 r, 2 r + 1; the third word of wide row r (degree > 11: BG1's rows 0-3) at 2
//! rows + r; then two words of padding. The load ahead of the last row reads words 2
//! rows and 2 rows + 1 (BG2: the padding; BG1: two third words) and never uses them.
template <int BG>
constexpr int state_column()
{
    return 2 * base_graph<BG>::rows + high_rows<BG>() + 2;
}
//! The wide rows come first (the third words' index above is the row's).
template <int BG>
constexpr bool wide_rows_first()
{
    for (int r = 0; r < base_graph<BG>::rows; r++)
        if ((base_graph<BG>::degree[r] > 11) != (r < high_rows<BG>()))
            return false;
    return true;
}
static_assert(wide_rows_first<1>() && wide_rows_first<2>(), "state_column's layout");
//! Words between a thread's state words: a constant, so that a row's words are one
//! pointer plus immediate offsets (blocks have at most max_threads threads).
constexpr int state_stride = max_threads;
struct channel_run {
    int32_t llr, pos, len, pass;
};

//! Row r of the looped layers in one word (row_info): its first edge, its degree and
//! whether a barrier follows it, so that a row costs one constant load.
constexpr uint32_t row_first_edge_mask = 0x1ffu, row_degree_shift = 9,
                   row_barrier_bit = 1u << 14;
static_assert(max_edges <= row_first_edge_mask + 1 && base_graph<1>::degree[0] < 32,
              "row_info's fields: 9 bits of first edge, 5 of degree (BG1's largest, 19)");

struct params {
    //! Each edge's operands, graph order: x = 4 column Z, y = 4 x the circulant shift
    //! (bytes); side by side so that a run-time index loads both at once (LDC.64).
    //! With interleaved slots (the unrolled kernel) every byte offset counts 4 slots
    //! bytes a position.
    uint2 edge4[max_edges];
    uint32_t row_info[46]; //!< first edge | degree << 9 | row_barrier_bit
    int32_t z, n, k;
    uint32_t z4;                     //!< 4 z (interleaved slots: 4 slots z)
    uint32_t pos4;                   //!< bytes from a position to the next: 4 or 4 slots
    uint32_t zero_begin4, zero_end4; //!< known zeros as byte offsets
    int32_t slots;                   //!< codeword pairs per block
    int32_t zero_begin, zero_end;    //!< known-zero (filler) positions [begin, end)
    const int32_t* info;
    const channel_run* runs;
    int32_t num_runs;
    bool clamp_input;
    int32_t iterations;
    bool early_termination;
    //! The scaled minimum is max(((m scale_mul) >> 4) - b, 0) per half (scale_pair):
    //! normalised: scale_mul = alpha16, b = 0; offset: scale_mul = 16, b = round(beta).
    uint32_t scale_mul;
    uint32_t scale_sub_pair_neg; //!< -b in both halves
    const int8_t* in;
    const uint8_t* in4; //!< llr_int4 input (then `in` is null)
    const frame_extent* frames;
    uint32_t num_frames;
    uint8_t* out;
    float* soft;
    frame_status* status;
    //! The looped kernel's check-message state: per block state_column<BG>() words per
    //! thread, word i of thread t at [i * state_stride + t] (coalesced); L2-resident.
    uint32_t* state;
};

//! LLR i of a frame starting at input item `base`: int8, or 4-bit times the step.
__device__ __forceinline__ int
channel_llr(const int8_t* in, const uint8_t* in4, uint64_t base, int i)
{
    if (in4) {
        const uint64_t at = base + static_cast<uint64_t>(i);
        const int nibble = (in4[at >> 1] >> (4 * static_cast<int>(at & 1))) & 15;
        return (nibble >= 8 ? nibble - 16 : nibble) * int4_llr_step;
    }
    return in[base + static_cast<uint64_t>(i)];
}

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

//! Byte offset in the APP array of lifted row t (t4 = 4 t) on edge e: 4 (column * Z +
//! (t + shift) mod Z), the mod as an unsigned minimum (t + shift - Z wraps around to a
//! huge value where t + shift < Z): one VIADD, one VIADDMNMX and the add of the column,
//! all with constant-bank operands.
__device__ __forceinline__ unsigned offset4(const params& p, int e, unsigned t4)
{
    const uint2 op = p.edge4[e];
    const unsigned s = t4 + op.y;
    return op.x + __viaddmin_u32(s, 0u - p.z4, s);
}
__device__ __forceinline__ uint32_t& app_at(uint32_t* app, unsigned offset4)
{
    return *reinterpret_cast<uint32_t*>(reinterpret_cast<char*>(app) + offset4);
}
__device__ __forceinline__ uint32_t app_at(const uint32_t* app, unsigned offset4)
{
    return *reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(app) +
                                              offset4);
}

// ---- the row update, both codewords in the 16-bit halves of each register ----------
//
// Hopper runs 16x2 adds and min/max natively (VIADD.16x2, VIMNMX.S16x2/U16x2,
// VIADDMNMX.S16x2: tools/sass/packed16_ops.cu), so one instruction does the work of
// the two codewords. Compares are not native; where a per-half condition is needed it
// is a bit moved to bit 15/31 and spread over its half with PRMT (sign replication).
//
// Row state (per row, both codewords), in registers across iterations:
//   W1 = M1 | D << 7: M1 = the scaled minimum's magnitude (7 bits per half), D = second
//        minus first (>= 0);
//   compact rows (degree <= 11): W0 = the message signs of edges 0..10 (bits 0..10 a,
//        16..26 b) | the edge of the minimum (bits 11..15 a, 27..31 b);
//   wide rows (BG1's four rows of degree 19): W0 = the signs of edges 0..15, W2 = the
//        signs of edges 16.. (bits 0.. a, 16.. b) | the edge of the minimum (bits 8..12
//        a, 24..28 b).
// The minimum search runs on a' = min(|Q|, 127) << 5 | j: capping before the search
// changes no result (the CPU caps the minima before scaling, and where capped values
// tie the two magnitudes are equal, so which edge holds the minimum does not matter),
// and the low bits make the first edge of the smallest value win, as on the CPU.
constexpr int compact_degree = 11;
constexpr uint32_t half_mask7 = 0x007f007fu;

//! All ones in each half whose top bit (15, 31) is set. PRMT's sign-replicate mode
//! (selector nibble 9: byte 1's sign, b: byte 3's); __byte_perm() drops that bit of
//! the selector, hence the PTX.
__device__ __forceinline__ uint32_t spread_sign(uint32_t x)
{
    uint32_t r;
    asm("prmt.b32 %0, %1, 0, 0xbb99;" : "=r"(r) : "r"(x));
    return r;
}
//! One-hot pair: bit (idx - Base) of each half when it is in [0, 16).
template <int Base>
__device__ __forceinline__ uint32_t one_hot(uint32_t index_pair)
{
    const uint32_t ia = (index_pair & 0xffffu) - Base, ib = (index_pair >> 16) - Base;
    return (ia < 16u ? 1u << ia : 0u) | (ib < 16u ? 0x10000u << ib : 0u);
}
__device__ __forceinline__ uint32_t scale_pair(const params& p, uint32_t m)
{
    // m <= 127 per half: m * scale_mul <= 2032 stays in its half. One formula for both
    // algorithms: no run-time branch (predicated, both would issue).
    return __viaddmax_s16x2(
        ((m * p.scale_mul) >> 4) & half_mask7, p.scale_sub_pair_neg, 0u);
}

//! The minimum search over the keys a (distinct: the edge is in the low bits), two
//! edges at once: of min1 <= min2 and lo <= hi the two smallest are min(min1, lo) and
//! min(min2, hi, max(min1, lo)), one three-input VIMNMX3 (2.5 instructions per edge
//! instead of 3). Call for every edge j in order; a_prev is the previous edge's key.
__device__ __forceinline__ void
min_update(int j, int deg, uint32_t a, uint32_t a_prev, uint32_t& min1, uint32_t& min2)
{
    if (j & 1) {
        const uint32_t lo = __vminu2(a_prev, a), hi = __vmaxu2(a_prev, a);
        min2 = __vimin3_u16x2(min2, hi, __vmaxu2(min1, lo));
        min1 = __vminu2(min1, lo);
    } else if (j == deg - 1) {
        min2 = __vminu2(min2, __vmaxu2(min1, a));
        min1 = __vminu2(min1, a);
    }
}

//! x & 0x80008000 (the two sign bits), in asm so that the compiler does not rewrite
//! parity ^ q[j] in the second pass as the XOR of the other edges, masked per edge.
__device__ __forceinline__ void mask_signs(uint32_t& x)
{
    asm("and.b32 %0, %0, 0x80008000;" : "+r"(x));
}

//! First: the first iteration, whose old messages are all 0 (Q = the APP value): the
//! looped kernel runs it as a code path of its own.
template <int Deg, bool First = false, class EdgeIndex>
__device__ __forceinline__ void update_row(const params& p,
                                           uint32_t* __restrict__ app,
                                           unsigned t4,
                                           EdgeIndex e0,
                                           uint32_t& word0,
                                           uint32_t& word1,
                                           uint32_t& word2)
{
    constexpr int deg = Deg;
    constexpr bool wide = deg > compact_degree;
    constexpr uint32_t app_pos = 0x7d007d00u; // +32000 in both halves
    constexpr uint32_t app_neg = 0x83008300u; // -32000 in both halves

    // Old messages: magnitudes, edge of the minimum as one-hot masks, signs.
    const uint32_t w0 = word0, w1 = word1, w2 = wide ? word2 : 0u;
    const uint32_t old_m1 = w1 & half_mask7, old_d = (w1 >> 7) & half_mask7;
    const uint32_t old_index = wide ? (w2 >> 8) & 0x001f001fu : (w0 >> 11) & 0x001f001fu;
    const uint32_t old_hot_lo = one_hot<0>(old_index);
    const uint32_t old_hot_hi = wide ? one_hot<16>(old_index) : 0u;

    uint32_t q[deg];
    uint32_t min1 = 0xffffffffu, min2 = 0xffffffffu, parity = 0, a_prev = 0;
#pragma unroll
    for (int j = 0; j < deg; j++) {
        const uint32_t l = app_at(app, offset4(p, e0 + j, t4));
        const int bit = j < 16 ? j : j - 16;
        const uint32_t signs = j < 16 ? w0 : w2;
        const uint32_t hot = j < 16 ? old_hot_lo : old_hot_hi;
        const uint32_t s = spread_sign(signs << (15 - bit));
        const uint32_t is_min = spread_sign(hot << (15 - bit));
        const uint32_t mag = old_m1 + (old_d & is_min);
        const uint32_t minus_r = __vsub2(s, mag ^ s); // -R_old per half
        const uint32_t qj =
            First ? l : __vmins2(__viaddmax_s16x2(l, minus_r, app_neg), app_pos);
        q[j] = qj;
        const uint32_t abs_q = __vmaxs2(qj, __vsub2(0u, qj));
        const uint32_t a = (__vminu2(abs_q, half_mask7) << 5) | (j * 0x00010001u);
        min_update(j, deg, a, a_prev, min1, min2);
        if (j & 1)
            parity ^= q[j - 1] ^ qj; // one three-input LOP3
        else if (j == deg - 1)
            parity ^= qj;
        a_prev = a;
    }
    mask_signs(parity);
    const uint32_t new_m1 = scale_pair(p, (min1 >> 5) & half_mask7);
    const uint32_t new_d = scale_pair(p, (min2 >> 5) & half_mask7) - new_m1;
    const uint32_t new_index = min1 & 0x001f001fu;
    const uint32_t hot_lo = one_hot<0>(new_index);
    const uint32_t hot_hi = wide ? one_hot<16>(new_index) : 0u;
    uint32_t signs_lo = 0, signs_hi = 0;
#pragma unroll
    for (int j = 0; j < deg; j++) {
        // The position again rather than kept: registers are what limits this kernel.
        const unsigned v4 = offset4(p, e0 + j, t4);
        const int bit = j < 16 ? j : j - 16;
        const uint32_t x = (parity ^ q[j]) & 0x80008000u; // the new message is negative
        const uint32_t s = spread_sign(x);
        const uint32_t is_min = spread_sign((j < 16 ? hot_lo : hot_hi) << (15 - bit));
        const uint32_t mag = new_m1 + (new_d & is_min);
        const uint32_t r = __vsub2(mag ^ s, s);
        uint32_t l = __vmaxs2(__viaddmin_s16x2(q[j], r, app_pos), app_neg);
        if (j < 16)
            signs_lo = add_shifted_right(x, 15 - bit, signs_lo);
        else
            signs_hi = add_shifted_right(x, 15 - bit, signs_hi);
        if (v4 - p.zero_begin4 < p.zero_end4 - p.zero_begin4)
            l = app_pos;
        app_at(app, v4) = l;
    }
    word1 = new_m1 | (new_d << 7);
    if (wide) {
        word0 = signs_lo;
        word2 = signs_hi | (new_index << 8);
    } else {
        word0 = signs_lo | (new_index << 11);
    }
}

// ---- the row update with half-precision APP (ldpc_arithmetic::half) ----------------
//
// The same row state and minimum search; the APP values and Q are IEEE halves holding
// integers (exact up to 2048, rounded to nearest even above: min_sum_kernels.h,
// half_traits). A half's sign is its top bit, so applying a message's sign is one
// LOP3, |Q| is an operand modifier, and the magnitude selects are HSET2/HFMA2 on the
// FMA pipe: the ALU pipe, the int16 kernel's bound, runs ~3x fewer instructions per
// edge. The minimum search runs on the bit patterns of min(|Q|, 127) (non-negative
// halves order as unsigned integers; those of integers up to 127 have 4 low zero bits),
// doubled, with the edge in the 5 low bits.
constexpr uint32_t half_1024 = 0x64006400u; // 1024.0 in both halves: ulp 1
constexpr uint32_t half_127 = 0x57f057f0u;  // 127.0
constexpr uint32_t half_signs = 0x80008000u;
//! Integers 0..1023, one per half, as halves: v | 0x6400 is the half 1024 + v.
__device__ __forceinline__ __half2 small_to_half2(uint32_t v)
{
    return __hsub2(as_half2(v | half_1024), as_half2(half_1024));
}
//! The inverse for integer-valued halves 0..1023.
__device__ __forceinline__ uint32_t half2_to_small(__half2 h)
{
    return as_bits(__hadd2(h, as_half2(half_1024))) - half_1024;
}

template <int Deg, bool First = false, class EdgeIndex>
__device__ __forceinline__ void update_row_half(const params& p,
                                                uint32_t* __restrict__ app,
                                                unsigned t4,
                                                EdgeIndex e0,
                                                uint32_t& word0,
                                                uint32_t& word1,
                                                uint32_t& word2)
{
    constexpr int deg = Deg;
    constexpr bool wide = deg > compact_degree;

    const uint32_t w0 = word0, w1 = word1, w2 = wide ? word2 : 0u;
    const __half2 old_m1 = small_to_half2(w1 & half_mask7);
    const __half2 old_d = small_to_half2((w1 >> 7) & half_mask7);
    // 1024 + the edge of the old minimum, compared with 1024 + j.
    const __half2 old_index =
        as_half2(((wide ? w2 >> 8 : w0 >> 11) & 0x001f001fu) | half_1024);

    uint32_t q[deg];
    uint32_t min1 = 0xffffffffu, min2 = 0xffffffffu, parity = 0, a_prev = 0;
#pragma unroll
    for (int j = 0; j < deg; j++) {
        const uint32_t l = app_at(app, offset4(p, e0 + j, t4));
        const int bit = j < 16 ? j : j - 16;
        const uint32_t signs = j < 16 ? w0 : w2;
        const __half2 is_min = __heq2(old_index, as_half2(half_1024 + j * 0x00010001u));
        const uint32_t r_old = as_bits(__hfma2(is_min, old_d, old_m1)) ^
                               ((signs << (15 - bit)) & half_signs);
        const uint32_t qj = First ? l : as_bits(__hsub2(as_half2(l), as_half2(r_old)));
        q[j] = qj;
        const uint32_t a =
            as_bits(__hmin2(__habs2(as_half2(qj)), as_half2(half_127))) * 2u +
            j * 0x00010001u;
        min_update(j, deg, a, a_prev, min1, min2);
        if (j & 1)
            parity ^= q[j - 1] ^ qj; // one three-input LOP3
        else if (j == deg - 1)
            parity ^= qj;
        a_prev = a;
    }
    const uint32_t min1_all = min1, min2_all = min2;
    mask_signs(parity);
    const __half2 min1_value = as_half2((min1_all >> 1) & 0x7ff07ff0u);
    const __half2 min2_value = as_half2((min2_all >> 1) & 0x7ff07ff0u);
    const uint32_t new_m1 = scale_pair(p, half2_to_small(min1_value));
    const uint32_t new_d = scale_pair(p, half2_to_small(min2_value)) - new_m1;
    const __half2 new_m1h = small_to_half2(new_m1), new_dh = small_to_half2(new_d);
    const uint32_t new_index = min1_all & 0x001f001fu;
    uint32_t signs_lo = 0, signs_hi = 0;
#pragma unroll
    for (int j = 0; j < deg; j++) {
        const int bit = j < 16 ? j : j - 16;
        const uint32_t x = (parity ^ q[j]) & half_signs; // the new message is negative
        // |Q_j| == min1 stands for "j is the edge of the minimum" (generic kernel).
        const __half2 is_min = __heq2(__habs2(as_half2(q[j])), min1_value);
        const uint32_t r = as_bits(__hfma2(is_min, new_dh, new_m1h)) ^ x;
        uint32_t l = as_bits(__hadd2(as_half2(q[j]), as_half2(r)));
        if (j < 16)
            signs_lo = add_shifted_right(x, 15 - bit, signs_lo);
        else
            signs_hi = add_shifted_right(x, 15 - bit, signs_hi);
        // The position again rather than kept: keeping it gains nothing (measured).
        app_at(app, offset4(p, e0 + j, t4)) = l;
    }
    word1 = new_m1 | (new_d << 7);
    if (wide) {
        word0 = signs_lo;
        word2 = signs_hi | (new_index << 8);
    } else {
        word0 = signs_lo | (new_index << 11);
    }
}

template <int BG, bool Half, int Row = 0>
__device__ __forceinline__ void run_layers(const params& p,
                                           uint32_t* __restrict__ app,
                                           unsigned t4,
                                           uint32_t (&word)[2][base_graph<BG>::rows],
                                           uint32_t (&extra)[high_rows<BG>() + 1])
{
    if constexpr (Row < base_graph<BG>::rows) {
        if (t4 < p.z4) {
            constexpr int deg = base_graph<BG>::degree[Row];
            constexpr std::integral_constant<int, first_edge<BG>(Row)> e0{};
            uint32_t& w2 = extra[high_index<BG>(Row)]; // used by wide rows only
            if constexpr (Half)
                update_row_half<deg>(p, app, t4, e0, word[0][Row], word[1][Row], w2);
            else
                update_row<deg>(p, app, t4, e0, word[0][Row], word[1][Row], w2);
        }
        if constexpr (base_graph<BG>::barrier_after[Row])
            __syncthreads();
        run_layers<BG, Half, Row + 1>(p, app, t4, word, extra);
    }
}

// ---- the looped layers: check messages in global memory (L2), one code path per degree
//
// The unrolled kernel keeps a pair's check messages in 97 registers a thread, so one
// pair (12 warps) fills an SM, and its 10 000-instruction body is fetched anew every
// iteration (instruction fetch: a fifth of its stalls). Here a row's state words are
// loaded from an L2-resident scratch one row ahead and stored after its update, and
// the layers are a loop with a case per row degree (BG1: 8 and the wide rows' loop,
// BG2: 6), so two pairs (24 warps) share an SM and the hot code is a few thousand
// instructions. The arithmetic is update_row's: the same results, bit for bit. The
// loop's own cost per row is kept small (ncu: it was 67 instructions a row, a fifth of
// the kernel; now 33): one constant load of the row's descriptor (row_info), a switch
// over the degrees (a short compare tree), the state words at a pointer plus immediate
// offsets (state_column, state_stride).
//
// (Tried and dropped, docs/ldpc-gpu.md: keeping the first pass's APP positions for the
// second, which the compiler already does here; two rows without a barrier between
// them as one pass of the loop, which ran slower.)
template <int Deg, bool Half, bool First>
__device__ __forceinline__ void update_row_of_degree(const params& p,
                                                     uint32_t* __restrict__ app,
                                                     unsigned t4,
                                                     int e0,
                                                     uint32_t& w0,
                                                     uint32_t& w1,
                                                     uint32_t& w2)
{
    if constexpr (Half)
        update_row_half<Deg, First>(p, app, t4, e0, w0, w1, w2);
    else
        update_row<Deg, First>(p, app, t4, e0, w0, w1, w2);
}

//! Calls body(std::integral_constant<int, D>{}) for the row degree D == deg of base
//! graph BG (TS 38.212 Tables 5.3.2-2/-3, counted: BG1's rows have degree 3..10 and
//! its four wide rows 19, BG2's 3..6, 8 and 10) and returns its result: one switch
//! (a short compare tree) for every loop over rows of run-time degree. Wide: whether
//! the wide degree is a case (the layers run the wide rows apart, run_layers_looped).
template <int BG, bool Wide, class Body>
__device__ __forceinline__ auto for_row_degree(int deg, Body&& body)
{
#define GPUFEC_NR_DEGREE_CASE(D) \
    case D:                      \
        return body(std::integral_constant<int, D>{})
    // The default case traps (the host checked the graph against the table, so it is
    // not reached) and falls into the first, so that every path returns.
    if constexpr (BG == 1) {
        switch (deg) {
            GPUFEC_NR_DEGREE_CASE(4);
            GPUFEC_NR_DEGREE_CASE(5);
            GPUFEC_NR_DEGREE_CASE(6);
            GPUFEC_NR_DEGREE_CASE(7);
            GPUFEC_NR_DEGREE_CASE(8);
            GPUFEC_NR_DEGREE_CASE(9);
            GPUFEC_NR_DEGREE_CASE(10);
        case 19:
            if constexpr (Wide)
                return body(std::integral_constant<int, 19>{});
            [[fallthrough]];
        default:
            __trap();
            [[fallthrough]];
            GPUFEC_NR_DEGREE_CASE(3);
        }
    } else {
        switch (deg) {
            GPUFEC_NR_DEGREE_CASE(4);
            GPUFEC_NR_DEGREE_CASE(5);
            GPUFEC_NR_DEGREE_CASE(6);
            GPUFEC_NR_DEGREE_CASE(8);
            GPUFEC_NR_DEGREE_CASE(10);
        default:
            __trap();
            [[fallthrough]];
            GPUFEC_NR_DEGREE_CASE(3);
        }
    }
#undef GPUFEC_NR_DEGREE_CASE
}

//! The degree of every wide row (BG1's rows 0-3: 19; BG2 has none).
template <int BG>
constexpr int wide_degree()
{
    for (int r = 0; r < high_rows<BG>(); r++)
        if (base_graph<BG>::degree[r] != base_graph<BG>::degree[0])
            return -1;
    return high_rows<BG>() > 0 ? base_graph<BG>::degree[0] : 0;
}
static_assert(wide_degree<1>() == 19 && wide_degree<2>() == 0, "run_layers_looped");

//! One iteration of the layers; `state`: this thread's state column (state_column),
//! read unless this is the first iteration (First: R = 0, so Q is the APP value and
//! the old messages are not decoded), written by threads with a row. The wide rows
//! (BG1's first four) run in a loop of their own, so that the loop over the other 42
//! carries no third state word.
template <int BG, bool Half, bool First>
__device__ __forceinline__ void run_layers_looped(const params& p,
                                                  uint32_t* __restrict__ app,
                                                  unsigned t4,
                                                  uint32_t* __restrict__ state)
{
    constexpr int rows = base_graph<BG>::rows, wide = high_rows<BG>();
    constexpr int s = state_stride;
    const bool has_row = t4 < p.z4;
    const bool stored = !First && has_row;
    uint32_t* __restrict__ words = state; // row r's first word
    int r = 0;
    if constexpr (wide > 0) {
        // Three words a row, loaded in the row (4 rows of 46; the other block of the
        // SM hides the wait); the third of row r at 2 rows + r.
#pragma unroll 1
        for (; r < wide; r++) {
            const uint32_t info = p.row_info[r];
            uint32_t* __restrict__ third = state + (2 * rows + r) * s;
            uint32_t w0 = 0, w1 = 0, w2 = 0;
            if (stored) {
                w0 = __ldcg(words);
                w1 = __ldcg(words + s);
                w2 = __ldcg(third);
            }
            if (has_row) {
                update_row_of_degree<wide_degree<BG>(), Half, First>(
                    p, app, t4, static_cast<int>(info & row_first_edge_mask), w0, w1, w2);
                __stcg(words, w0);
                __stcg(words + s, w1);
                __stcg(third, w2);
            }
            if (info & row_barrier_bit)
                __syncthreads();
            words += 2 * s;
        }
    }
    uint32_t n0 = 0, n1 = 0;
    if (stored) {
        n0 = __ldcg(words);
        n1 = __ldcg(words + s);
    }
#pragma unroll 1
    for (; r < rows; r++) {
        const uint32_t info = p.row_info[r];
        uint32_t w0 = n0, w1 = n1, unused = 0;
        if (stored) { // the next row's words while this one updates (state_column)
            n0 = __ldcg(words + 2 * s);
            n1 = __ldcg(words + 3 * s);
        }
        if (has_row) {
            for_row_degree<BG, false>(
                static_cast<int>(info >> row_degree_shift & 31u), [&](auto deg) {
                    update_row_of_degree<decltype(deg)::value, Half, First>(
                        p,
                        app,
                        t4,
                        static_cast<int>(info & row_first_edge_mask),
                        w0,
                        w1,
                        unused);
                });
            __stcg(words, w0);
            __stcg(words + s, w1);
        }
        if (info & row_barrier_bit)
            __syncthreads();
        words += 2 * s;
    }
}

//! XOR of the APP pairs of a row of degree Deg (first edge e0) of thread t: bit 15 / 31
//! set where its parity check fails for codeword 0 / 1. Every load first, then the
//! XOR: one wait for the row's loads, not one per edge.
template <int Deg>
__device__ __forceinline__ uint32_t
row_syndrome(const params& p, const uint32_t* __restrict__ app, unsigned t4, int e0)
{
    uint32_t l[Deg];
#pragma unroll
    for (int j = 0; j < Deg; j++)
        l[j] = app_at(app, offset4(p, e0 + j, t4));
    uint32_t x = 0;
#pragma unroll
    for (int j = 0; j < Deg; j++)
        x ^= l[j];
    return x & 0x80008000u;
}

//! The parity checks of thread t's rows: bit 15 / 31 set where one of codeword 0 / 1
//! fails. It stops at the first row where every codeword of `needed` (bits 15, 31)
//! fails: before convergence that is after a row or two, so the check costs a full
//! pass only when it may pass. A row at a time with its loads together (ncu, looped
//! kernel, BG1 Z = 384, 5 iterations: one edge at a time, each XOR waiting for its
//! load, this check took 8.6 % of the stall samples).
template <int BG>
__device__ __forceinline__ uint32_t failed_checks(const params& p,
                                                  const uint32_t* __restrict__ app,
                                                  unsigned t4,
                                                  uint32_t needed)
{
    uint32_t failed = 0;
#pragma unroll 1
    for (int r = 0; r < base_graph<BG>::rows && (failed & needed) != needed; r++) {
        const uint32_t info = p.row_info[r];
        failed |= for_row_degree<BG, true>(
            static_cast<int>(info >> row_degree_shift & 31u), [&](auto deg) {
                return row_syndrome<decltype(deg)::value>(
                    p, app, t4, static_cast<int>(info & row_first_edge_mask));
            });
    }
    return failed;
}

//! Hard bits, soft output and status of codeword c (0, 1: the 16-bit half) of a pair,
//! into frame `frame`, by the `lanes` threads lane = 0 .. lanes - 1 of its slot, whose
//! position v is at app[v pos_words].
template <bool Half>
__device__ __forceinline__ void write_outputs(const params& p,
                                              const uint32_t* __restrict__ app,
                                              int pos_words,
                                              int lane,
                                              int lanes,
                                              uint32_t frame,
                                              int c,
                                              int iterations,
                                              bool ok)
{
    const uint64_t out = p.frames[frame].out_offset;
    for (int byte = lane; byte < (p.k + 7) / 8; byte += lanes) {
        unsigned bits = 0;
        for (int j = 0; j < 8; j++) {
            const int at = byte * 8 + j;
            const uint32_t l = at < p.k ? app[__ldg(p.info + at) * pos_words] : 0u;
            bits |= ((c ? l >> 31 : l >> 15) & 1u) << (7 - j);
        }
        p.out[out + byte] = static_cast<uint8_t>(bits);
    }
    if (p.soft) {
        for (int at = lane; at < p.k; at += lanes) {
            const uint32_t l = app[__ldg(p.info + at) * pos_words];
            p.soft[8 * out + at] =
                Half ? (c ? __high2float(as_half2(l)) : __low2float(as_half2(l)))
                     : static_cast<float>(c ? hi16(l) : lo16(l));
        }
    }
    if (lane == 0)
        p.status[frame] = frame_status{ iterations, ok };
}

//! Half: ldpc_arithmetic::half (the APP as half2 pairs, known zeros not pinned, as
//! the CPU's half_traits); otherwise int8 (int16 pairs).
//! Looped: run_layers_looped (two blocks per SM, messages in p.state), else the
//! unrolled layers (one block per SM, messages in registers).
template <int BG, bool Half, bool Looped = false>
__global__ void __launch_bounds__(max_threads, Looped ? 2 : 1)
    nr_layered_kernel(const __grid_constant__ params p)
{
    // Slots: the block decodes p.slots codeword pairs side by side (small Z); all its
    // warps run the same layer at once, so they share the instruction cache.
    // The unrolled kernel interleaves them: in a full group slot s owns threads s, s +
    // slots, ... (row r: thread s + r slots; a partial group below) and always APP words
    // s, s + slots, ... (position v: word s + v slots), so a warp's threads on one edge
    // touch consecutive words, whatever the slot count (slot after slot, a warp of BG2 Z
    // = 8 held four slots n = 52 Z words apart, all on the same banks: 5.0 against 6.0
    // Gb/s, docs/ldpc-gpu.md). The looped kernel keeps them slot after slot (s owns
    // threads s Z .. s Z + Z - 1 and words s n .. s n + n - 1): interleaved, it lost 2 %
    // at every Z, one slot included (its registers). The host scales the byte offsets to
    // match (p.pos4).
    constexpr bool interleaved = !Looped;
    extern __shared__ uint32_t smem[]; // slots * n int16 or half pairs
    __shared__ uint32_t slot_failed[2][max_slots];
    const int t = threadIdx.x, threads = blockDim.x, n = p.n, z = p.z;
    const int slots = p.slots;
    const int pos_words = interleaved ? slots : 1;
    // Slot after slot, the mapping is the same for every group.
    const int blocked_slot = t / z, blocked_row = t - blocked_slot * z;
    const uint32_t pairs = (p.num_frames + 1) / 2;
    const uint32_t groups = (pairs + slots - 1) / slots;
    for (uint32_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
        // Interleaved, the threads of a group with fewer pairs than slots (a batch's
        // last, a lone codeword) take its pairs' rows densely (row r of slot s: thread
        // s + r used, used = the pairs in the group), so whole warps have no row and skip
        // the layers' work (with every warp holding a few rows, one BG2 Z = 64 codeword
        // took 172 instead of 100 us). The APP words keep their stride of `slots`.
        const int used =
            interleaved
                ? static_cast<int>(min(pairs - grp * slots, static_cast<uint32_t>(slots)))
                : slots;
        const int slot = interleaved ? t % used : blocked_slot;
        const int row = interleaved ? t / used : blocked_row;
        const bool in_slot = interleaved ? row < z : slot < slots;
        uint32_t* __restrict__ app = smem + (in_slot ? slot : 0) * (interleaved ? 1 : n);
        const unsigned t4 = interleaved ? row * p.pos4 : 4u * row;
        // This thread's pair and its frames (a missing second codeword gets the first's
        // input; a slot without a pair decodes nothing).
        const uint32_t pair = grp * slots + slot;
        const bool has_pair = in_slot && pair < pairs;
        const uint32_t f0 = 2 * pair;
        const bool two = has_pair && f0 + 1 < p.num_frames;

        // ---- channel LLRs of every slot
        for (int i = t; i < slots * n; i += threads) {
            const int v = interleaved ? i / slots : i % n;
            smem[i] = static_cast<unsigned>(v - p.zero_begin) <
                              static_cast<unsigned>(p.zero_end - p.zero_begin)
                          ? pack(app_max, app_max)
                          : 0u;
        }
        for (int r = 0; r < p.num_runs; r++) {
            const channel_run run = p.runs[r];
            if (r == 0 || run.pass != p.runs[r - 1].pass)
                __syncthreads();
            // Several positions per thread at a time, so that their global loads are in
            // flight together (one after the other, the wait for each took a tenth of
            // the kernel's time at BG1 Z = 384). Positions within a pass are distinct.
            const int total = slots * run.len;
            for (int i0 = t; i0 < total; i0 += channel_batch * threads) {
                int at[channel_batch], l0[channel_batch], l1[channel_batch];
#pragma unroll
                for (int u = 0; u < channel_batch; u++) {
                    const int i = i0 + u * threads;
                    at[u] = -1;
                    l0[u] = l1[u] = 0;
                    if (i >= total)
                        continue;
                    // Interleaved, neighbouring threads take neighbouring slots
                    // (consecutive words).
                    const int s = interleaved ? i % slots : i / run.len;
                    const int j = interleaved ? i / slots : i - s * run.len;
                    const uint32_t sp = grp * slots + s;
                    if (sp >= pairs)
                        continue;
                    const uint64_t x0 = p.frames[2 * sp].in_offset;
                    const uint64_t x1 =
                        2 * sp + 1 < p.num_frames ? p.frames[2 * sp + 1].in_offset : x0;
                    l0[u] = channel_llr(p.in, p.in4, x0, run.llr + j);
                    l1[u] = channel_llr(p.in, p.in4, x1, run.llr + j);
                    at[u] = interleaved ? (run.pos + j) * slots + s : s * n + run.pos + j;
                }
#pragma unroll
                for (int u = 0; u < channel_batch; u++)
                    if (at[u] >= 0) {
                        uint32_t& a = smem[at[u]];
                        a = pack(lo16(a) + l0[u], hi16(a) + l1[u]);
                    }
            }
        }
        for (int i = t; i < 2 * max_slots; i += threads)
            slot_failed[i / max_slots][i % max_slots] = 0u;
        __syncthreads();
        if (Half) {
            // The int16 sums, saturated where they may pass the APP range, as halves.
            for (int i = t; i < slots * n; i += threads) {
                const uint32_t x = smem[i];
                const int a = p.clamp_input ? sat(lo16(x)) : lo16(x);
                const int b = p.clamp_input ? sat(hi16(x)) : hi16(x);
                smem[i] = as_bits(__halves2half2(__int2half_rn(a), __int2half_rn(b)));
            }
            __syncthreads();
        } else if (p.clamp_input) {
            for (int i = t; i < slots * n; i += threads)
                smem[i] = pack(sat(lo16(smem[i])), sat(hi16(smem[i])));
            __syncthreads();
        }

        uint32_t word[2][base_graph<BG>::rows];
        uint32_t extra[high_rows<BG>() + 1];
#pragma unroll
        for (int r = 0; r < base_graph<BG>::rows; r++)
            word[0][r] = word[1][r] = 0u; // R = 0 before the first iteration
#pragma unroll
        for (int r = 0; r <= high_rows<BG>(); r++)
            extra[r] = 0u;

        // A codeword that stops early (every check holds) has its outputs written at
        // once and then goes on with its partner, which changes its APP values no
        // longer read: no per-edge masking. The flags are uniform over a slot.
        bool done0 = !has_pair, done1 = !two;
        bool fail0 = false, fail1 = false;
        int iters0 = 0, iters1 = 0;
        for (int it = 0; it < p.iterations; it++) {
            if constexpr (Looped) {
                uint32_t* const state =
                    p.state +
                    static_cast<size_t>(blockIdx.x) * state_column<BG>() * state_stride +
                    t;
                if (it == 0)
                    run_layers_looped<BG, Half, true>(
                        p, app, has_pair ? t4 : p.z4, state);
                else
                    run_layers_looped<BG, Half, false>(
                        p, app, has_pair ? t4 : p.z4, state);
            } else
                run_layers<BG, Half>(p, app, has_pair ? t4 : p.z4, word, extra);
            iters0 = done0 ? iters0 : it + 1;
            iters1 = done1 ? iters1 : it + 1;
            const bool last = it + 1 == p.iterations;
            if (p.early_termination || last) {
                // Parity checks per slot: OR of the rows' failures in shared memory
                // (two buffers: the one read now, the one cleared for the next time).
                const uint32_t needed =
                    (done0 ? 0u : 0x8000u) | (done1 ? 0u : 0x80000000u);
                const uint32_t f = has_pair ? failed_checks<BG>(p, app, t4, needed) : 0u;
                if (f)
                    atomicOr(&slot_failed[it & 1][slot], (f >> 15 & 1u) | (f >> 30 & 2u));
                __syncthreads();
                const uint32_t failed = in_slot ? slot_failed[it & 1][slot] : 0u;
                if (t < max_slots)
                    slot_failed[(it + 1) & 1][t] = 0u;
                fail0 = done0 ? fail0 : (failed & 1u) != 0;
                fail1 = done1 ? fail1 : (failed & 2u) != 0;
                if (p.early_termination && !last) {
                    const bool stop0 = !done0 && !fail0, stop1 = !done1 && !fail1;
                    if (stop0)
                        write_outputs<Half>(
                            p, app, pos_words, row, z, f0, 0, iters0, true);
                    if (stop1)
                        write_outputs<Half>(
                            p, app, pos_words, row, z, f0 + 1, 1, iters1, true);
                    done0 = done0 || stop0;
                    done1 = done1 || stop1;
                    // Also the barrier between the outputs and the next layers.
                    if (!__syncthreads_or(!(done0 && done1)))
                        break;
                }
            }
        }
        if (!done0)
            write_outputs<Half>(p, app, pos_words, row, z, f0, 0, iters0, !fail0);
        if (!done1)
            write_outputs<Half>(p, app, pos_words, row, z, f0 + 1, 1, iters1, !fail1);
        __syncthreads(); // the APP values are reused by the next group
    }
}

} // namespace nr
} // namespace cuda
} // namespace gpufec

#endif
