/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA CA-SCL polar decoder (issue 11), included by polar_cuda.cu (polar_params).
//
// One warp per frame, list_size (L <= 32) path slots in shared memory. It makes the
// CPU decoder's decisions (polar_cpu.cc, decode_frame): the same float expressions in
// the same order per path (f = min-sum, g = b +/- a, PM += |L| against the LLR's
// sign), the same survivors (the L smallest candidates by (metric, 2 path + bit)),
// the same list order (survivors by candidate index), and the same final choice (the
// first path by (metric, list position) whose CRC holds, else the first).
//
// Lazy copies instead of copying LLR arrays: a path's LLRs of level l live in the
// buffer of the slot named by its level-l pointer. At leaf i every path rewrites
// levels 0 .. ctz(i) into its own slot's buffer (so nobody can still need the old
// values there) and reads level ctz(i) + 1 through its pointer, which a clone
// inherits. A fork copies only the decisions, bit-packed (N / 32 words), and the n
// pointer bytes. The left sibling's re-encoded bits that g needs are recomputed from
// the decisions (u G over 2^l bits, word-parallel), so no partial sums are kept.
// Soft output replays the chosen path once (its leaf LLRs are a function of its
// decisions: the same values) instead of keeping L soft arrays.
//
// The warp walks the steps of the code's SC program (polar_program.h, with the
// repetition rule only): information leaves, all-frozen (rate-0) nodes and repetition
// nodes. A rate-0 node's leaves are all decided 0, so their LLRs do not wait on
// decisions: the node's subtree is computed level by level in place (f for left
// children, b + a for right ones: SC's values) and each path adds its leaves'
// penalties in leaf order, as SC does one leaf at a time. A repetition node is the
// same for all its leaves but the last, whose LLR (b + a at every level) the paths
// then fork on: SCL's own metrics and decisions in one step. A fork where every path
// keeps exactly one child changes no slot and no list order: only the metrics and
// decisions are updated. An aligned run of 16 leaves that the program would walk as
// several such steps is one block step (scl_block): its leaves are decided in
// registers, its clones made once at its end; where every path keeps its better child
// (two lane reductions say so) such a leaf costs no more. A descent computes up to three
// levels a pass (scl_descent_group).

// GPUFEC_SCL_PROFILE (a development build only: -DGPUFEC_SCL_PROFILE in the CUDA flags):
// lane 0 of each warp adds the clock cycles of the list kernel's phases to
// scl_profile_cycles, which the decoder prints to stderr when destroyed.
enum scl_phase {
    scl_phase_descend,
    scl_phase_rank,
    scl_phase_node_forks,
    scl_phase_node_tail,
    scl_phase_rate0,
    scl_phase_leaf_fork,
    scl_phase_crc_output,
    scl_phase_soft,
    scl_phase_frames, // a count, not cycles
    // Parts of the phases above (not summed again) and counts:
    scl_sub_descend_encode, // descend(): the re-encodes for g
    scl_sub_descend_levels, // descend(): its level loops
    scl_sub_block_leaf,     // scl_block: block_descend
    scl_sub_block_fork,     // scl_block: the survivors and the list update
    scl_count_descents,
    scl_count_descent_iterations, // a lane's passes over descend()'s value loops (in
                                  // descend_from_channel: one a value, all paths)
    scl_count_block_reorders,     // forks inside a block that reorder the list
    scl_phase_count
};
#ifdef GPUFEC_SCL_PROFILE
__device__ unsigned long long scl_profile_cycles[scl_phase_count];
struct scl_profiler {
    long long t;
    __device__ static long long now()
    {
#ifdef __CUDA_ARCH__
        long long c;
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
        return c;
#else
        return 0;
#endif
    }
    __device__ scl_profiler() : t(now()) {}
    __device__ void lap(scl_phase phase, int lane)
    {
        const long long t1 = now();
        if (lane == 0)
            atomicAdd(&scl_profile_cycles[phase],
                      static_cast<unsigned long long>(t1 - t));
        t = t1;
    }
    __device__ void count(int lane, scl_phase what = scl_phase_frames, unsigned n = 1)
    {
        if (lane == 0)
            atomicAdd(&scl_profile_cycles[what], static_cast<unsigned long long>(n));
    }
};
#else
struct scl_profiler {
    __device__ void lap(scl_phase, int) {}
    __device__ void count(int, scl_phase = scl_phase_frames, unsigned = 1) {}
};
#endif

//! One warp (frame) per block: an SM then holds as many frames as its shared memory
//! takes (228 KB / frame), up to 32, rather than a multiple of a larger block's.
constexpr int scl_max_warps_per_block = 1;

//! Byte offsets of one frame's shared memory (one warp). Levels below `first unstored`
//! U (n - 1, or n - 2 where that fits more frames on an SM: polar_params::scl_unstored)
//! are stored per slot; level U and above are computed from the channel when read.
struct scl_layout {
    uint32_t llr;     //!< L x N/2^u floats: slot s, level l < U = n - u at s N/2^u + 2^l
    uint32_t chan;    //!< N floats, or int16s (chan16): the channel (level n)
    uint32_t bits;    //!< L x (N / 32 + 4) words: slot s's decisions, then its pointers
    uint32_t enc;     //!< L x scl_sibling_words(N, u): a left sibling's re-encoded bits
    uint32_t top;     //!< L x scl_enc_words(N): u[0, N/2) G, for level n - 1
    uint32_t quarter; //!< u = 2 only: L x scl_quarter_words(N), u[Q - N/4, Q) G for
                      //!< the g of an odd quarter Q of level n - 2
    uint32_t ctl;     //!< per-path bookkeeping of a fork (6 x L words)
    uint32_t cand;    //!< a fork's 2 L candidate metrics (16-byte aligned, whole float4s)
    uint32_t mag;     //!< fast-SCL nodes: L x L floats, |a| of path q's ranked positions
    uint32_t order;   //!< fast-SCL nodes: L x L uint16, path q's least reliable positions
    uint32_t bytes;   //!< total, a multiple of 16
};

__host__ __device__ constexpr uint32_t scl_words(int N) { return N / 32 + 4; }
//! Words per slot of re-encoded bits: u[0, N/2) G (top_enc) ...
__host__ __device__ constexpr uint32_t scl_enc_words(int N)
{
    return N >= 128 ? N / 64 : 1;
}
//! ... an odd quarter's left sibling, N/4 bits (quarter_enc) ...
__host__ __device__ constexpr uint32_t scl_quarter_words(int N)
{
    return N >= 256 ? N / 128 : 1;
}
//! ... and a left sibling below level U = n - unstored (enc): 2^(U - 1) bits at most.
//! Sized to that and the quarter's to N/4 bits, not both to N/2: at N = 1024, L = 32
//! the 2.5 KB saved let 5 frames share an SM instead of 4.
__host__ __device__ constexpr uint32_t scl_sibling_words(int N, int unstored)
{
    return (N >> (unstored + 6)) > 0 ? static_cast<uint32_t>(N >> (unstored + 6)) : 1u;
}

//! The channel value an int16 channel (polar_params::scl_chan16) stores for a known
//! zero (polar_known_zero_llr): no sum of received int8 LLRs reaches it there.
constexpr int16_t scl_known_zero16 = 32767;

//! list_nodes: room for fast-SCL's node ranks (`order`), else none. unstored: the
//! levels not stored, 1 (n - 1) or 2 (n - 1 and n - 2). chan16: the channel as int16.
__host__ __device__ inline scl_layout
make_scl_layout(int N, int L, bool list_nodes, int unstored, bool chan16)
{
    scl_layout s{};
    s.llr = 0;
    s.chan = s.llr + 4u * L * (N >> unstored);
    s.bits = s.chan + (chan16 ? 2u : 4u) * N;
    s.enc = s.bits + 4u * L * scl_words(N);
    s.top = s.enc + 4u * L * scl_sibling_words(N, unstored);
    s.quarter = s.top + 4u * L * scl_enc_words(N);
    s.ctl = s.quarter + (unstored == 2 ? 4u * L * scl_quarter_words(N) : 0u);
    // Sized by L, not by the largest list: at L = 8 the 768 bytes saved let 16 frames
    // share an SM instead of 15.
    s.cand = (s.ctl + 6u * 4 * L + 15u) & ~15u;
    s.mag = s.cand + 16u * ((2 * L + 3) / 4);
    s.order = s.mag + (list_nodes ? 4u * L * L : 0u);
    s.bytes = (s.order + (list_nodes ? 2u * L * L : 0u) + 15u) & ~15u;
    return s;
}

//! A list frame's layout choice: polar_params::scl_unstored and scl_chan16.
struct scl_shape {
    int unstored = 1;
    bool chan16 = false;
};

//! x = v G over the bits of one word (the butterfly stages of the polar transform);
//! bits above a 2^t-bit segment must be 0, so the full transform is the segment's.
__device__ __forceinline__ uint32_t polar_encode_word(uint32_t v)
{
    v ^= (v >> 1) & 0x55555555u;
    v ^= (v >> 2) & 0x33333333u;
    v ^= (v >> 4) & 0x0f0f0f0fu;
    v ^= (v >> 8) & 0x00ff00ffu;
    v ^= (v >> 16) & 0x0000ffffu;
    return v;
}

//! The r-th (from 0) lowest set bit of `free`: the slot the r-th clone takes.
__device__ __forceinline__ int nth_free_slot(uint32_t free, int r)
{
    for (int t = 0; t < r; t++)
        free &= free - 1u;
    return __ffs(free) - 1;
}

//! Levels a descent computes per pass where their sources are stored, by the largest
//! list: 1 is one level a pass with a barrier between levels; with D = 2 or 3 a lane
//! derives a value of the group's last level and its ancestors in the group from 2^D
//! independent loads, no barrier between them. Measured on an H200 (2026-11-29, N =
//! 1024, kernel-only at 3 dB, against D = 1, before the block's better-halves fast
//! path): one CA-SCL-8 frame 432 -> 399 us (D = 2) or 396 (D = 3), CA-SCL-8 1.84 ->
//! 1.86 / 1.84 Gb/s, CA-SCL-16 854 -> 910 Mb/s and CA-SCL-32 238 -> 260 (D = 3);
//! CA-SCL-4 2.67 -> 2.56 / 2.58 Gb/s, so lists of 4 and fewer keep D = 1.
//! GPUFEC_SCL_DESCENT_GROUP (1..3) sets D for every list (a development switch for such
//! measurements).
__host__ __device__ constexpr int scl_descent_group(int list_max)
{
#ifdef GPUFEC_SCL_DESCENT_GROUP
    static_assert(GPUFEC_SCL_DESCENT_GROUP >= 1 && GPUFEC_SCL_DESCENT_GROUP <= 3,
                  "1, 2 or 3 levels");
    return list_max > 0 ? GPUFEC_SCL_DESCENT_GROUP : 1;
#else
    return list_max <= 4 ? 1 : list_max == 8 ? 2 : 3;
#endif
}

//! Whether a descent computes level U - 1 for the whole list at once
//! (scl_frame::descend_from_channel: the channel values and the first half's level n -
//! 1 read and computed once a value, not once a path) or one value of one path a lane.
//! Measured on an H200 (2026-11-29, N = 1024, kernel-only at 3 dB, against one value a
//! lane): CA-SCL-8 1.97 -> 2.01-2.02 Gb/s, one frame 380 -> 364 us, CA-SCL-16 0.91 ->
//! 1.12 Gb/s, CA-SCL-32 316 -> 367 Mb/s, SC first + CA-SCL-8 at 2 dB 7.89 -> 8.37 Gb/s;
//! but CA-SCL-4 2.76 -> 2.70 Gb/s and the blind search's kernel (few paths at the top
//! descents of its K = 64 codes) 9.86 -> 8.83 M candidates/s at N = 512, so lists of 4
//! and fewer and the blind search keep one value a lane. Measured at N = 1024 only:
//! below N = 128 (256 with level n - 2 unstored) level U - 1 has fewer than 32 values,
//! and lanes then wait while each busy one walks the list.
__host__ __device__ constexpr bool scl_shared_top(int list_max, bool blind_search)
{
    return list_max >= 8 && !blind_search;
}

struct scl_frame {
    float* llr; //!< slot s's levels 0 .. U-1 at s stride + 2^l
    const float* chan;
    const int16_t* chan16; //!< the channel as int16 (polar_params::scl_chan16), or null
    uint32_t* bits;
    uint32_t* enc;
    uint32_t* top_enc;     //!< u[0, N/2) G per slot, read as level n-1's g
    uint32_t* quarter_enc; //!< U = n - 2: an odd quarter's left sibling, re-encoded
    int* cur_slot;         //!< slot of list position q
    float* cand;           //!< a fork's candidate metrics (counted_survivors)
    int N, n, W, BW;
    int EW;     //!< words per slot of top_enc
    int QW;     //!< of quarter_enc
    int SW;     //!< of enc (a left sibling below level U)
    int U;      //!< the first level not stored: n - 1 or n - 2
    int stride; //!< floats per slot: N / 2^(n - U)

    __device__ uint8_t* ptr(int slot) const
    {
        return reinterpret_cast<uint8_t*>(bits + slot * BW + W);
    }
    __device__ float* at_level(int slot, int l) const
    {
        return llr + slot * stride + (1 << l);
    }

    //! Copies slot src[r]'s decision and pointer words to slot dst[r], r < clones.
    __device__ void clone_rows(const int* src, const int* dst, int clones, int lane) const
    {
        for (int r = 0; r < clones; r++)
            for (int w = lane; w < BW; w += 32)
                bits[dst[r] * BW + w] = bits[src[r] * BW + w];
    }

    //! The slots of a list after a node's forks: lane p < count (`valid`) holds
    //! survivor p, whose origin (its path at the node's start) has slot from_slot.
    //! Each origin's first survivor keeps that slot; the others clone its row into free
    //! slots, lowest first (src and dst: rows of the bookkeeping). Returns p's slot.
    __device__ __forceinline__ int
    clone_survivors(int from_slot, bool valid, int L, int* src, int* dst, int lane) const
    {
        constexpr uint32_t all = 0xffffffffu;
        const uint32_t same = __match_any_sync(all, valid ? from_slot : 64 + lane);
        const bool first = valid && __ffs(same) - 1 == lane;
        const uint32_t used = __reduce_or_sync(all, valid ? 1u << from_slot : 0u);
        const uint32_t cloning = __ballot_sync(all, valid && !first);
        const uint32_t slot_mask = L == 32 ? all : (1u << L) - 1u;
        int slot = from_slot;
        if (valid && !first) {
            const int r = __popc(cloning & ((1u << lane) - 1u));
            slot = nth_free_slot(~used & slot_mask, r);
            src[r] = from_slot;
            dst[r] = slot;
        }
        __syncwarp();
        clone_rows(src, dst, __popc(cloning), lane);
        __syncwarp();
        return slot;
    }

    //! dst[slot stride] = u[from, from + 2^log_h) G of each of the A paths (bit j at
    //! word j/32).
    __device__ void encode(uint32_t* dst,
                           int stride,
                           int from,
                           int log_h,
                           int A,
                           int lane,
                           int my_slot) const
    {
        const int h = 1 << log_h;
        if (h <= 32) {
            if (lane < A) {
                uint32_t v = bits[my_slot * BW + (from >> 5)] >> (from & 31);
                if (h < 32)
                    v &= (1u << h) - 1u;
                dst[my_slot * stride] = polar_encode_word(v);
            }
        } else {
            const int words = h >> 5, log_words = log_h - 5;
            for (int it = lane; it < A * words; it += 32) {
                const int s = cur_slot[it >> log_words], w = it & (words - 1);
                dst[s * stride + w] = polar_encode_word(bits[s * BW + (from >> 5) + w]);
            }
            __syncwarp();
            for (int st = 1; st < words; st *= 2) {
                for (int it = lane; it < A * words / 2; it += 32) {
                    const int s = cur_slot[it >> (log_words - 1)];
                    const int idx = it & (words / 2 - 1);
                    const int w =
                        ((idx & ~(st - 1)) << 1) | (idx & (st - 1)); // st: a power of two
                    dst[s * stride + w] ^= dst[s * stride + w + st];
                }
                __syncwarp();
            }
        }
    }

    //! Channel value j (level n).
    __device__ __forceinline__ float channel(int j) const
    {
        if (!chan16)
            return chan[j];
        const int v = chan16[j];
        return v == scl_known_zero16 ? polar_known_zero_llr : static_cast<float>(v);
    }

    //! Value j of level n - 1 of slot s: never stored (read at four leaves a frame,
    //! eight with level n - 2 unstored too), computed from the channel as SC computes it:
    //! f in the first half of the tree, g by u[0, N/2) G in the second.
    __device__ float level_top(int s, int j, bool second_half) const
    {
        const float a = channel(j), b = channel(j + N / 2);
        if (!second_half)
            return f_minsum(a, b);
        return g_step(row_bit(top_enc + s * EW, j), a, b);
    }

    //! Value j of level n - 2 of slot s in quarter `quarter` of the tree where it is
    //! not stored (U = n - 2; read at eight leaves per frame): from level n - 1 as SC
    //! computes it, f in an even quarter, g by the left quarter's u G in an odd one.
    __device__ float level_quarter(int s, int j, int quarter) const
    {
        const bool second_half = quarter >= 2;
        const float a = level_top(s, j, second_half);
        const float b = level_top(s, j + N / 4, second_half);
        if (!(quarter & 1))
            return f_minsum(a, b);
        return g_step(row_bit(quarter_enc + s * QW, j), a, b);
    }

    //! Values j and j + 2^l of level l + 1 that value j of level l of slot s is computed
    //! from (levels U and above from the channel).
    __device__ __forceinline__ void
    descend_operands(int s, int j, int l, int top, int quarter, float& a, float& b) const
    {
        const int size = 1 << l;
        if (l + 1 == U) {
            if (U == n - 1) {
                a = level_top(s, j, quarter >= 2);
                b = level_top(s, j + size, quarter >= 2);
            } else {
                a = level_quarter(s, j, quarter);
                b = level_quarter(s, j + size, quarter);
            }
        } else {
            const float* src = at_level(l < top ? s : ptr(s)[l + 1], l + 1);
            a = src[j];
            b = src[j + size];
        }
    }

    //! Level U - 1 (the first stored one) of the A paths' slots, from the unstored
    //! levels above it: descend()'s first pass where the descent starts at U - 1 or
    //! above (at N = 1024: eight times a frame with level n - 2 unstored, four with
    //! n - 1 only). A lane takes value j for every path in turn: the channel values it
    //! needs, and level n - 1 in the first half of the tree (f of the channel, which no
    //! decision enters), are the same for every path, so they are read and computed
    //! once for the list instead of once a path. Each path's values are level_top's,
    //! level_quarter's and descend()'s expressions on the same operands: the same
    //! floats. g: level U - 1 is a right child (g by enc).
    __device__ __forceinline__ void
    descend_from_channel(int quarter, bool g, int A, int lane) const
    {
        const int size = 1 << (U - 1);
        const bool second_half = quarter >= 2;
        const int half = N / 2, fourth = N / 4;
        // Level n - 1 value x of slot s from its channel pair (a, b): level_top.
        const auto top = [&](int s, int x, float a, float b, float first_half_value) {
            if (!second_half)
                return first_half_value;
            return g_step(row_bit(top_enc + s * EW, x), a, b);
        };
        for (int j = lane; j < size; j += 32) {
            if (U == n - 1) {
                // Level n - 2 value j from level n - 1 values j and j + size.
                const float a0 = channel(j), b0 = channel(j + half);
                const float a1 = channel(j + size), b1 = channel(j + size + half);
                const float f0 = second_half ? 0.0f : f_minsum(a0, b0);
                const float f1 = second_half ? 0.0f : f_minsum(a1, b1);
                for (int q = 0; q < A; q++) {
                    const int s = cur_slot[q];
                    const float a = top(s, j, a0, b0, f0);
                    const float b = top(s, j + size, a1, b1, f1);
                    at_level(s, U - 1)[j] =
                        g ? g_step(row_bit(enc + s * SW, j), a, b) : f_minsum(a, b);
                }
            } else {
                // Level n - 3 value j from level n - 2 values j and j + size, each from
                // level n - 1 values x and x + N/4 (level_quarter).
                float ca[4], cb[4], ft[4];
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const int x = j + (k & 1) * size + (k >> 1) * fourth;
                    ca[k] = channel(x);
                    cb[k] = channel(x + half);
                    ft[k] = second_half ? 0.0f : f_minsum(ca[k], cb[k]);
                }
                for (int q = 0; q < A; q++) {
                    const int s = cur_slot[q];
                    float t[4]; // level n - 1 at j, j + size, j + N/4, j + size + N/4
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        t[k] = top(s,
                                   j + (k & 1) * size + (k >> 1) * fourth,
                                   ca[k],
                                   cb[k],
                                   ft[k]);
                    const uint32_t* quarter_row = quarter_enc + s * QW;
                    const float a = !(quarter & 1)
                                        ? f_minsum(t[0], t[2])
                                        : g_step(row_bit(quarter_row, j), t[0], t[2]);
                    const float b =
                        !(quarter & 1)
                            ? f_minsum(t[1], t[3])
                            : g_step(row_bit(quarter_row, j + size), t[1], t[3]);
                    at_level(s, U - 1)[j] =
                        g ? g_step(row_bit(enc + s * SW, j), a, b) : f_minsum(a, b);
                }
            }
        }
    }

    //! D levels of slot s's descent in one lane, l down to l - D + 1 (level l + 1
    //! stored): value j of level l - D + 1 and the values of the levels above it that it
    //! is computed from, each with descend()'s expression (level l: g by enc where `g`,
    //! else f; the levels below: f), written to slot s. Returns the last level's value.
    template <int D>
    __device__ __forceinline__ float
    descend_group(int s, int j, int l, int top, bool g) const
    {
        constexpr int K = 1 << D;
        const int h = 1 << (l - D + 1); // the last level's size
        const float* src = at_level(l < top ? s : ptr(s)[l + 1], l + 1);
        float x[K]; // level l + 1's values j + k h
#pragma unroll
        for (int k = 0; k < K; k++)
            x[k] = src[j + k * h];
        uint32_t sign = 0; // g: bit k set where value j + k h of level l takes b - a
        if (g) {
#pragma unroll
            for (int k = 0; k < K / 2; k++) {
                const int at = j + k * h;
                sign |= row_bit(enc + s * SW, at) << k;
            }
        }
#pragma unroll
        for (int d = 0; d < D; d++) {
            const int half = K >> (d + 1);
            float* dst = at_level(s, l - d);
#pragma unroll
            for (int k = 0; k < half; k++) {
                const float a = x[k], b = x[k + half];
                x[k] = d == 0 && g ? g_step((sign >> k) & 1u, a, b) : f_minsum(a, b);
                dst[j + k * h] = x[k];
            }
        }
        return x[0];
    }

    //! The LLRs of the node at `level` (< U) whose first leaf is `first` for the A
    //! paths of the list, in each path's own slot (levels ctz(first) .. level are
    //! computed). level 0: lane q < A returns path q's leaf LLR. Group: levels per pass
    //! (scl_descent_group). SharedTop: level U - 1 by descend_from_channel
    //! (scl_shared_top), else one value of one path a lane. (Four values of one level
    //! a lane, with each path's slot shuffled from its lane, measured slower in
    //! 2026-11-27's per-leaf kernel: polar-gpu.md.)
    template <int Group, bool SharedTop>
    __device__ __forceinline__ float
    descend(int first, int level, int A, int lane, int my_slot) const
    {
        const int V = n - 1; // the root's children: never stored
        const int top = first == 0 ? V : __ffs(first) - 1;
        const int quarter = first >> (n - 2);
        scl_profiler sub;
        sub.count(lane, scl_count_descents);
        if (top >= U - 1) {
            // Level U - 1 is computed from the unstored levels, with each path's
            // re-encoded bits for their g (its slot may be new since the last time).
            if (quarter >= 2) {
                encode(top_enc, EW, 0, V, A, lane, my_slot);
                __syncwarp();
            }
            if (U < V && (quarter & 1)) {
                encode(
                    quarter_enc, QW, (quarter - 1) << (n - 2), n - 2, A, lane, my_slot);
                __syncwarp();
            }
        }
        if (first > 0 && top < U) {
            // The left sibling's re-encoded bits for g at level top.
            encode(enc, SW, first - (1 << top), top, A, lane, my_slot);
            __syncwarp();
        }
        const int start = min(top, U - 1);
        sub.lap(scl_sub_descend_encode, lane);
        float leaf = 0.0f;
        int l = start;
        if (SharedTop && start == U - 1 && level <= start && start > 0) {
            sub.count(lane, scl_count_descent_iterations, ((1 << start) + 31) / 32);
            descend_from_channel(quarter, top == start && first > 0, A, lane);
            __syncwarp();
            l = start - 1;
        }
        while (l >= level) {
            // Up to Group levels a pass where level l + 1 is stored: a
            // lane takes value j of the group's last level and every value of the
            // levels above that it derives from, so their chains need no barrier.
            const int depth = l + 1 < U ? min(Group, l - level + 1) : 1;
            const int last = l - depth + 1, size = 1 << last;
            const bool g = l == top && first > 0;
            const int total = A << last;
            sub.count(lane, scl_count_descent_iterations, (total + 31) / 32);
            for (int v = lane; v < total; v += 32) {
                const int s = cur_slot[v >> last], j = v & (size - 1);
                if (depth == 1) {
                    float a, b;
                    descend_operands(s, j, l, top, quarter, a, b);
                    leaf = g ? g_step(row_bit(enc + s * SW, j), a, b) : f_minsum(a, b);
                    at_level(s, l)[j] = leaf; // level 0: lane q holds path q's leaf
                } else if (Group >= 3 && depth == 3) {
                    leaf = descend_group<3>(s, j, l, top, g);
                } else if (Group >= 2) {
                    leaf = descend_group<2>(s, j, l, top, g);
                }
            }
            __syncwarp();
            l -= depth;
        }
        if (lane < A) {
            uint8_t* own = ptr(my_slot);
            for (int l = level; l <= start; l++)
                own[l] = static_cast<uint8_t>(my_slot);
        }
        __syncwarp();
        sub.lap(scl_sub_descend_levels, lane);
        return leaf;
    }

    //! A rate-0 node at `level` (< U; its LLRs in each path's slot): its subtree's
    //! leaf LLRs in place, leaf t at level(s, level)[t], with every decision 0.
    __device__ void rate0_leaves(int lvl, int A, int lane) const
    {
        const int size = 1 << lvl;
        for (int h = size / 2; h >= 1; h /= 2) {
            for (int it = lane; it < A * size / 2; it += 32) {
                const int s = cur_slot[it >> (lvl - 1)];
                const int idx = it & (size / 2 - 1);
                const int j =
                    ((idx & ~(h - 1)) << 1) | (idx & (h - 1)); // h: a power of two
                float* x = at_level(s, lvl);
                const float a = x[j], b = x[j + h];
                x[j] = f_minsum(a, b);
                x[j + h] = b + a;
            }
            __syncwarp();
        }
    }
};

//! The `survivors` smallest of the 2A candidates c = 2 q + b (lane q < A holds path q's
//! metrics m0, m1) by (metric, c), as a mask of bits c: a bitonic network sorts the 2A
//! candidates, one per lane (10 compare-exchange steps at L = 8), or with a full list
//! finds the threshold of the smallest half (7 steps of min / max). LMax <= 16.
template <int LMax>
__device__ __forceinline__ uint32_t
network_survivors(float m0, float m1, int A, int survivors, int lane)
{
    static_assert(LMax <= 16, "2 LMax candidates, one per lane");
    constexpr uint32_t all = 0xffffffffu;
    constexpr int S = 2 * LMax; // lanes sorted together
    const float a0 = __shfl_sync(all, m0, lane >> 1);
    const float a1 = __shfl_sync(all, m1, lane >> 1);
    float key = lane < 2 * A ? (lane & 1 ? a1 : a0) : __int_as_float(0x7f800000);
    if (survivors == LMax) {
        // A full list (the usual case): which LMax of the 2 LMax lanes are the
        // smallest needs no sorted order. Sorting each half (the two in opposite
        // orders) and the last stage's first step leave the LMax smallest keys in the
        // lower half; their largest, v, is the threshold: the survivors are the keys
        // below v and the first of those equal to v by candidate index, which is the
        // order by (metric, c). Metrics are non-negative, so their bits order as
        // unsigned integers and min / max replace compare-and-swap; only the keys
        // move, not the indices: log2(S) - 1 fewer steps, one shuffle a step instead
        // of two.
        const uint32_t mine = __float_as_uint(key);
        uint32_t x = mine;
#pragma unroll
        for (int k = 2; k < S; k <<= 1) {
#pragma unroll
            for (int j = k >> 1; j > 0; j >>= 1) {
                const uint32_t other = __shfl_xor_sync(all, x, j);
                const bool lower = (lane & j) == 0, ascending = (lane & k) == 0;
                x = lower == ascending ? min(x, other) : max(x, other);
            }
        }
        x = min(x, __shfl_xor_sync(all, x, LMax)); // the lower half's
        const uint32_t v = __reduce_max_sync(all, lane < LMax ? x : 0u);
        const bool real = lane < 2 * A;
        uint32_t kept = __ballot_sync(all, real && mine < v);
        uint32_t tied = __ballot_sync(all, real && mine == v);
        for (int more = LMax - __popc(kept); more > 0; more--) {
            kept |= tied & (0u - tied); // the lowest tied candidate
            tied &= tied - 1u;
        }
        return kept;
    }
    int idx = lane;
#pragma unroll
    for (int k = 2; k <= S; k <<= 1) {
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            const float other = __shfl_xor_sync(all, key, j);
            const int other_idx = __shfl_xor_sync(all, idx, j);
            const bool other_less = other < key || (other == key && other_idx < idx);
            const bool lower = (lane & j) == 0, ascending = (lane & k) == 0;
            if (lower == ascending ? other_less : !other_less) {
                key = other;
                idx = other_idx;
            }
        }
    }
    return __reduce_or_sync(all, lane < survivors ? 1u << idx : 0u);
}

//! Which of path q's children survive a fork (lane q < A holds their metrics m0, m1):
//! bit b is set when candidate c = 2 q + b is among the `survivors` smallest of the 2A
//! by (metric, c).
//! - A full list whose every better child is below every worse child keeps the better
//!   halves: two lane reductions. Ties across the two sets, or within a path, take
//!   the general rules, so the result is theirs (the CPU decoder checks the same).
//!   `BetterHalves` = false skips the check: fast-SCL's rate-1 and SPC nodes, where it
//!   measured slower (fast-SCL-8 0.91 against 1.07 Gb/s on an H200, 2026-11-29), and
//!   scl_block, which makes it itself before calling.
//! - With `Network`, up to 16 paths, the 2A candidates sit one per lane and
//!   network_survivors sorts or thresholds them; else each candidate's rank is counted
//!   (8 rounds of 2 shuffles and 8 comparisons). Measured on an H200: the network makes
//!   the one-code kernel 7-18 % faster (N = 1024 and 512, L = 8) but the multi-code
//!   kernel slower, 6.01 against 7.19 M candidates/s, and still 7.45 against 8.02 once
//!   neither spilled (2026-11-26), so each kernel takes the faster one.
template <int LMax, bool Network, bool BetterHalves = true>
__device__ __forceinline__ int
surviving_children(float m0, float m1, int A, int survivors, int lane)
{
    constexpr uint32_t all = 0xffffffffu;
    if (BetterHalves && survivors == A) {
        // Metrics are non-negative: their bits order as unsigned integers.
        const uint32_t u0 = __float_as_uint(m0), u1 = __float_as_uint(m1);
        const uint32_t better = lane < A ? min(u0, u1) : 0u;
        const uint32_t worse = lane < A ? max(u0, u1) : ~0u;
        if (__reduce_max_sync(all, better) < __reduce_min_sync(all, worse))
            return lane < A ? (u1 < u0 ? 2 : 1) : 0;
    }
    if constexpr (Network && LMax <= 16) {
        const uint32_t kept = network_survivors<LMax>(m0, m1, A, survivors, lane);
        return lane < A ? static_cast<int>((kept >> (2 * lane)) & 3u) : 0;
    } else {
        // Rank of candidates (lane, 0) and (lane, 1) among the 2A by (metric, 2q+b).
        int r0 = 0, r1 = 0;
#pragma unroll
        for (int q = 0; q < LMax; q++) {
            const float o0 = __shfl_sync(all, m0, q), o1 = __shfl_sync(all, m1, q);
            if (q < A) {
                r0 += (o0 < m0 || (o0 == m0 && q < lane)) +
                      (o1 < m0 || (o1 == m0 && q < lane));
                r1 += (o0 < m1 || (o0 == m1 && q <= lane)) +
                      (o1 < m1 || (o1 == m1 && q < lane));
            }
        }
        return lane < A ? (r0 < survivors ? 1 : 0) | (r1 < survivors ? 2 : 0) : 0;
    }
}

//! surviving_children by counting each candidate's rank against the 2A metrics
//! written to shared memory (read four at a time, the same address for every lane):
//! no chain of dependent shuffles, as the sorting network has. Same result, but slower
//! on an H200 (fast-SCL-8 872 against 985 Mb/s, SCL-8 587 against 676): kept as the
//! measured alternative (GPUFEC_POLAR_SCL_FORKS=count).
template <int LMax>
__device__ __forceinline__ int
counted_survivors(float* cand, float m0, float m1, int A, int survivors, int lane)
{
    if (lane < A)
        reinterpret_cast<float2*>(cand)[lane] = make_float2(m0, m1);
    __syncwarp();
    const int c0 = 2 * lane; // this lane's candidates: c0 and c0 + 1
    int r0 = 0, r1 = 0;
#pragma unroll
    for (int c = 0; c < 2 * LMax; c += 4) {
        if (c < 2 * A) {
            const float4 v = reinterpret_cast<const float4*>(cand)[c / 4];
            const float x[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
            for (int u = 0; u < 4; u++) {
                if (c + u < 2 * A) {
                    r0 += x[u] < m0 || (x[u] == m0 && c + u < c0) ? 1 : 0;
                    r1 += x[u] < m1 || (x[u] == m1 && c + u < c0 + 1) ? 1 : 0;
                }
            }
        }
    }
    __syncwarp(); // cand is rewritten by the next fork
    return lane < A ? (r0 < survivors ? 1 : 0) | (r1 < survivors ? 2 : 0) : 0;
}

//! The survivors of a fork by the one-code kernel's run-time choice (by_count:
//! counted_survivors, else surviving_children).
template <int LMax, bool Network, bool BetterHalves = true>
__device__ __forceinline__ int fork_survivors(const scl_frame& fr,
                                              bool by_count,
                                              float m0,
                                              float m1,
                                              int A,
                                              int survivors,
                                              int lane)
{
    if (by_count)
        return counted_survivors<LMax>(fr.cand, m0, m1, A, survivors, lane);
    return surviving_children<LMax, Network, BetterHalves>(m0, m1, A, survivors, lane);
}

//! Fast-SCL's ranks of a node of 2^Level <= 32 positions for the A paths at once: path
//! q's positions sit in lanes q 2^Level .. (q + 1) 2^Level - 1 (mod 32) of a row, and
//! each position's rank by (|a|, position) is counted against the others' keys, shuffled
//! within the path's lanes (instead of one argmin round per rank and path). Writes
//! order[q L + r] and mag[q L + r] for ranks r < ranked <= L, and parity_of[q].
template <int Level>
__device__ __forceinline__ void rank_small_node(const scl_frame& fr,
                                                uint16_t* order,
                                                float* mag,
                                                int* parity_of,
                                                int ranked,
                                                int L,
                                                int A,
                                                int lane)
{
    constexpr uint32_t all = 0xffffffffu;
    constexpr int size = 1 << Level;
    constexpr uint32_t seg_mask = size == 32 ? all : (1u << size) - 1u;
    const int seg = lane & ~(size - 1); // the path's first lane in the row
    const int j = lane & (size - 1);    // this lane's position
    const int pairs = A << Level;
    for (int row = 0; row < pairs; row += 32) {
        // A row is all in or all out for a path: pairs is a multiple of size <= 32.
        const int q = (row + lane) >> Level;
        const bool in = row + lane < pairs;
        const float v = in ? fr.at_level(fr.cur_slot[q], Level)[j] : 0.0f;
        const float m = fabsf(v);
        const uint32_t key = __float_as_uint(m); // non-negative floats order as integers
        const uint32_t negative = __ballot_sync(all, in && v < 0.0f);
        int rank = 0;
#pragma unroll
        for (int t = 0; t < size; t++) {
            const uint32_t other = __shfl_sync(all, key, seg + t);
            rank += other < key || (other == key && t < j) ? 1 : 0;
        }
        if (in && rank < ranked) {
            order[q * L + rank] = static_cast<uint16_t>(j);
            mag[q * L + rank] = m;
        }
        if (in && j == 0)
            parity_of[q] = __popc((negative >> seg) & seg_mask) & 1;
    }
}

/*!
 * Fast-SCL (polar_cpu.cc, decode_node, the CPU's decisions): a rate-1 or SPC node of
 * 2^level leaves (level <= 8) from leaf i for the A paths of the list, whose LLRs a
 * descend() has left in each path's slot. Each path ranks its positions by (|a|,
 * position) (a warp-wide argmin per rank), a candidate starts from the hard decisions
 * (an SPC node with odd parity flips the least reliable one), the list forks once per
 * ranked position (keep, or flip it: + |a_t|, and at an SPC node the least reliable
 * position toggled, -/+ its |a|) and keeps the L best by (metric, 2 candidate + flip)
 * in list order. Then each path's first survivor keeps its slot, the others clone it
 * into free slots (lowest first), and the decisions become u = beta G. Returns the
 * paths in the list; my_slot and my_metric are lane q's.
 */
template <int LMax, bool Network>
__device__ __forceinline__ int fast_scl_node(const scl_frame& fr,
                                             uint16_t* order,
                                             float* mag,
                                             int* ctl,
                                             int i,
                                             int level,
                                             bool spc,
                                             int L,
                                             int A,
                                             int lane,
                                             bool by_count,
                                             int& my_slot,
                                             float& my_metric,
                                             scl_profiler& prof)
{
    constexpr uint32_t all = 0xffffffffu;
    constexpr int per_lane = 8; // 2^level <= 256 positions
    int* cur_slot = ctl;        // list position -> slot, at the node's start
    int* new_slot = ctl + L;    // six rows of L words (scl_layout::ctl)
    float* new_metric = reinterpret_cast<float*>(ctl + 2 * L);
    int* new_flips = ctl + 3 * L;
    int* new_origin = ctl + 4 * L;
    int* clone_dst = ctl + 5 * L;
    const int size = 1 << level;
    const int ranked = spc ? min(L, size) : min(L - 1, size);
    const uint32_t lanes_below = (1u << lane) - 1u;

    // Each path's `ranked` least reliable positions by (|a|, position), their |a|, and
    // the path's parity (at clone_dst[q] until the forks need that array).
    int* parity_of = clone_dst;
    if (level <= 5) {
        switch (level) {
        case 1:
            rank_small_node<1>(fr, order, mag, parity_of, ranked, L, A, lane);
            break;
        case 2:
            rank_small_node<2>(fr, order, mag, parity_of, ranked, L, A, lane);
            break;
        case 3:
            rank_small_node<3>(fr, order, mag, parity_of, ranked, L, A, lane);
            break;
        case 4:
            rank_small_node<4>(fr, order, mag, parity_of, ranked, L, A, lane);
            break;
        default:
            rank_small_node<5>(fr, order, mag, parity_of, ranked, L, A, lane);
            break;
        }
    } else {
        // Larger nodes (up to 256 positions, eight a lane), path by path: one warp-wide
        // argmin per rank.
        for (int q = 0; q < A; q++) {
            const float* a = fr.at_level(cur_slot[q], level);
            uint32_t key[per_lane]; // |a| as bits (non-negative floats order as integers)
            uint32_t parity = 0;
#pragma unroll
            for (int e = 0; e < per_lane; e++) {
                const int j = lane + 32 * e;
                key[e] = 0xffffffffu;
                if (j < size) {
                    const float v = a[j];
                    key[e] = __float_as_uint(fabsf(v));
                    parity ^= v < 0.0f ? 1u : 0u;
                }
            }
            parity = __reduce_xor_sync(all, parity);
            if (lane == 0)
                parity_of[q] = static_cast<int>(parity);
            for (int t = 0; t < ranked; t++) {
                uint32_t best = 0xffffffffu;
                int best_e = 0;
#pragma unroll
                for (int e = per_lane - 1; e >= 0; e--) // ties: the lower position
                    if (key[e] <= best) {
                        best = key[e];
                        best_e = e;
                    }
                const uint32_t min_key = __reduce_min_sync(all, best);
                const uint32_t pos = static_cast<uint32_t>(lane + 32 * best_e);
                const uint32_t min_pos =
                    __reduce_min_sync(all, best == min_key ? pos : 0xffffffffu);
#pragma unroll
                for (int e = 0; e < per_lane; e++)
                    if (static_cast<uint32_t>(lane + 32 * e) == min_pos)
                        key[e] = 0xffffffffu;
                if (lane == 0) {
                    order[q * L + t] = static_cast<uint16_t>(min_pos);
                    mag[q * L + t] = __uint_as_float(min_key);
                }
            }
        }
    }
    __syncwarp();
    const bool odd = lane < A && parity_of[lane] != 0;
    __syncwarp(); // parity_of is clone_dst, written below
    prof.lap(scl_phase_rank, lane);

    // Candidate of list position `lane`: its path at the node's start, flips, whether
    // the least reliable position is flipped (SPC), metric.
    int origin = lane;
    uint32_t flips = 0;
    bool weakest_flipped = false;
    float metric = my_metric;
    if (spc && odd) {
        weakest_flipped = true;
        metric = my_metric + mag[lane * L];
    }
    int count = A;
    for (int t = spc ? 1 : 0; t < ranked; t++) {
        float flipped = 0.0f;
        if (lane < count) {
            flipped = metric + mag[origin * L + t];
            if (spc) {
                const float weakest = mag[origin * L];
                flipped = weakest_flipped ? flipped - weakest : flipped + weakest;
            }
        }
        const int survivors = min(2 * count, L);
        const int kept = fork_survivors<LMax, Network, false>(
            fr, by_count, metric, flipped, count, survivors, lane);
        const bool k0 = (kept & 1) != 0, k1 = (kept & 2) != 0;
        const uint32_t kept0 = __ballot_sync(all, k0), kept1 = __ballot_sync(all, k1);
        const int pos0 = __popc(kept0 & lanes_below) + __popc(kept1 & lanes_below);
        const int pos1 = pos0 + (k0 ? 1 : 0);
        if (k0) {
            new_origin[pos0] = origin;
            new_flips[pos0] = static_cast<int>(flips);
            new_slot[pos0] = weakest_flipped ? 1 : 0;
            new_metric[pos0] = metric;
        }
        if (k1) {
            new_origin[pos1] = origin;
            new_flips[pos1] = static_cast<int>(flips | 1u << t);
            new_slot[pos1] = spc && !weakest_flipped ? 1 : 0;
            new_metric[pos1] = flipped;
        }
        __syncwarp();
        count = survivors;
        if (lane < count) {
            origin = new_origin[lane];
            flips = static_cast<uint32_t>(new_flips[lane]);
            weakest_flipped = new_slot[lane] != 0;
            metric = new_metric[lane];
        }
        __syncwarp();
    }

    prof.lap(scl_phase_node_forks, lane);
    // Slots: a path's first survivor keeps it, the others clone it into free slots.
    const bool valid = lane < count;
    const int from_slot = valid ? cur_slot[origin] : 0;
    const int slot = fr.clone_survivors(from_slot, valid, L, new_origin, clone_dst, lane);
    if (valid) {
        new_slot[lane] = slot;
        new_origin[lane] = from_slot;
    }
    __syncwarp();

    // beta: the hard decisions of the path's node LLRs (32 positions per ballot) ...
    const int total = count << level;
    for (int base = 0; base < total; base += 32) {
        const int it = base + lane;
        const bool in = it < total;
        const int c = it >> level, j = it & (size - 1);
        const bool bit = in && fr.at_level(new_origin[c], level)[j] < 0.0f;
        const uint32_t m = __ballot_sync(all, bit);
        if (in && (j & 31) == 0) {
            uint32_t* row = fr.bits + new_slot[c] * fr.BW + ((i + j) >> 5);
            if (size >= 32) {
                *row = m;
            } else {
                const uint32_t seg_mask = (1u << size) - 1u;
                const int shift = i & 31;
                *row =
                    (*row & ~(seg_mask << shift)) | (((m >> lane) & seg_mask) << shift);
            }
        }
    }
    __syncwarp();
    // ... with its flips,
    if (valid) {
        uint32_t* row = fr.bits + slot * fr.BW;
        for (uint32_t f = flips; f != 0; f &= f - 1u) {
            const int at = i + order[origin * L + __ffs(f) - 1];
            row[at >> 5] ^= 1u << (at & 31);
        }
        if (weakest_flipped) {
            const int at = i + order[origin * L];
            row[at >> 5] ^= 1u << (at & 31);
        }
        my_slot = slot;
        my_metric = metric;
        cur_slot[lane] = slot;
    }
    __syncwarp();
    // ... and the decisions u = beta G (G is its own inverse).
    fr.encode(fr.enc, fr.SW, i, level, count, lane, my_slot);
    __syncwarp();
    if (size <= 32) {
        if (valid) {
            const uint32_t seg_mask = size == 32 ? all : (1u << size) - 1u;
            const int shift = i & 31;
            uint32_t* row = fr.bits + my_slot * fr.BW + (i >> 5);
            *row = (*row & ~(seg_mask << shift)) | (fr.enc[my_slot * fr.SW] << shift);
        }
    } else {
        const int words = size >> 5, log_words = level - 5;
        for (int it = lane; it < count * words; it += 32) {
            const int s = cur_slot[it >> log_words], w = it & (words - 1);
            fr.bits[s * fr.BW + (i >> 5) + w] = fr.enc[s * fr.SW + w];
        }
    }
    __syncwarp();
    prof.lap(scl_phase_node_tail, lane);
    return count;
}

//! The metrics of an information leaf's children (bit 0, bit 1) for a path of metric
//! `metric`: + |L| for the decision against the LLR's sign (the CPU's rule).
__device__ __forceinline__ void
child_metrics(float leaf, float metric, float& m0, float& m1)
{
    const float mag = fabsf(leaf);
    const bool hd = leaf < 0.0f;
    m0 = metric + (hd ? mag : 0.0f);
    m1 = metric + (hd ? 0.0f : mag);
}

//! A block step of the list program: the 2^scl_block_level leaves from leaf i (i a
//! multiple of 2^scl_block_level), frozen and information ones, as one step instead of
//! one per leaf or small node. Its word: scl_block_op | frozen mask << 8 | (i >>
//! scl_block_level) << 24.
constexpr int scl_block_op = 32; //!< beyond polar_program's kinds
#ifndef GPUFEC_SCL_BLOCK_LEVEL
#define GPUFEC_SCL_BLOCK_LEVEL 4
#endif
constexpr int scl_block_level = GPUFEC_SCL_BLOCK_LEVEL;
static_assert(scl_block_level >= 3 && scl_block_level <= 4,
              "a mask of 16 leaves at most");

//! Leaf t of a block: lv holds levels l < R in registers, level l's 2^l values at
//! lv[2^l ..]; level R, the block's own, is read from `origin` (the origin path's slot
//! in shared memory) where needed: held in registers too, its 2^R values would spill at
//! R = 4. u: the path's decisions of the leaves before t (bit t' for leaf t'). SC's
//! descent to leaf t: level l is recomputed where t starts a new node of it (or every
//! level, `all_levels`, when the lane's path has changed), with the expressions
//! descend() uses (f = f_minsum(a, b), g = b -/+ a by the left sibling's u G), so the
//! same values. Returns the leaf's LLR.
template <int R, int Level = R - 1>
__device__ __forceinline__ float block_descend(
    float (&lv)[1 << R], const float* origin, uint32_t u, int t, bool all_levels)
{
    static_assert(R >= 3, "level R read four values at a time");
    // One level an instantiation, sizes known at compile time: every index into lv is
    // then a constant, which keeps lv in registers (a loop over the levels put lv on
    // the stack at R = 4).
    constexpr int size = 1 << Level;
    if (all_levels || (t & (size - 1)) == 0) {
        const bool right = ((t >> Level) & 1) != 0;
        // The left sibling's leaves start at the parent node's first leaf.
        const int sibling = (t >> (Level + 1)) << (Level + 1);
        uint32_t e = (u >> sibling) & ((1u << size) - 1u);
        // u G over the sibling's bits: polar_encode_word's stages within them.
        if constexpr (size > 1)
            e ^= (e >> 1) & 0x55555555u;
        if constexpr (size > 2)
            e ^= (e >> 2) & 0x33333333u;
        if constexpr (size > 4)
            e ^= (e >> 4) & 0x0f0f0f0fu;
        if constexpr (size > 8)
            e ^= (e >> 8) & 0x00ff00ffu;
        float in[2 * size]; // level Level + 1
        if constexpr (Level == R - 1) {
#pragma unroll
            for (int j = 0; j < 2 * size; j += 4) {
                const float4 v = reinterpret_cast<const float4*>(origin)[j / 4];
                in[j] = v.x;
                in[j + 1] = v.y;
                in[j + 2] = v.z;
                in[j + 3] = v.w;
            }
        } else {
#pragma unroll
            for (int j = 0; j < 2 * size; j++)
                in[j] = lv[2 * size + j];
        }
#pragma unroll
        for (int j = 0; j < size; j++) {
            const float a = in[j], b = in[j + size];
            lv[size + j] = right ? g_step((e >> j) & 1u, a, b) : f_minsum(a, b);
        }
    }
    if constexpr (Level > 0)
        return block_descend<R, Level - 1>(lv, origin, u, t, all_levels);
    else
        return lv[1];
}

/*!
 * A block step (scl_block_op): the leaves i .. i + 2^R - 1 one after another, as SCL
 * decides them (frozen: a penalty where the LLR says 1; information: the fork, the
 * survivors and the list order of a leaf step), in registers: lane q keeps its path's
 * decisions in the block and levels below R, computed from the level-R LLRs of its
 * origin (the path at the block's start, whose slot holds them: descend() has just
 * computed them, and nothing in the block writes them), so no leaf needs a descent,
 * an LLR or pointer write, or a clone (a fork that reorders the list exchanges
 * origin, metric and decisions through the bookkeeping rows). Clones happen once at the
 * end, as at a fast-SCL node: each origin's first survivor keeps its slot, the others
 * copy its row into free slots. Returns the paths in the list.
 */
template <int LMax, bool Network>
__device__ __forceinline__ int scl_block(const scl_frame& fr,
                                         int* ctl,
                                         int i,
                                         uint32_t frozen_mask,
                                         int L,
                                         int A,
                                         int lane,
                                         bool by_count,
                                         int& my_slot,
                                         float& my_metric)
{
    constexpr uint32_t all = 0xffffffffu;
    constexpr int R = scl_block_level, B = 1 << R;
    int* cur_slot = ctl;
    int* new_from = ctl + L; // survivors in list order: their origin's slot,
    float* new_metric = reinterpret_cast<float*>(ctl + 2 * L); // metric,
    int* new_bits = ctl + 3 * L;                               // and decisions
    int* clone_src = ctl + 4 * L;
    int* clone_dst = ctl + 5 * L;
    const uint32_t lanes_below = (1u << lane) - 1u;
    int from = my_slot;
    float metric = my_metric;
    uint32_t u = 0;
    float lv[B]; // the block's levels below R, level l at 2^l (block_descend)
    // Lanes without a path read slot 0's row: any row in bounds, their values unused.
    const float* origin = fr.at_level(lane < A ? from : 0, R);
    bool moved = true; // the lanes' paths changed since their levels were computed
    scl_profiler sub;
    for (int t = 0; t < B; t++) {
        const float leaf = block_descend<R>(lv, origin, u, t, moved);
        moved = false;
        sub.lap(scl_sub_block_leaf, lane);
        if ((frozen_mask >> t) & 1u) {
            if (lane < A && leaf < 0.0f)
                metric += -leaf;
            continue;
        }
        const int survivors = min(2 * A, L);
        if (survivors == A && !by_count) {
            // surviving_children's better-halves check, taken out so that its usual
            // success skips the rest: a path's better child keeps its metric exactly
            // (+ 0), its worse one adds |leaf|, and where every better child is below
            // every worse one each path keeps its better child (bit 1 where leaf < 0)
            // with its metric unchanged.
            const uint32_t better = lane < A ? __float_as_uint(metric) : 0u;
            const uint32_t worse = lane < A ? __float_as_uint(metric + fabsf(leaf)) : ~0u;
            if (__reduce_max_sync(all, better) < __reduce_min_sync(all, worse)) {
                if (lane < A && leaf < 0.0f)
                    u |= 1u << t;
                sub.lap(scl_sub_block_fork, lane);
                continue;
            }
        }
        float m0, m1;
        child_metrics(leaf, metric, m0, m1);
        const int kept = fork_survivors<LMax, Network, false>(
            fr, by_count, m0, m1, A, survivors, lane);
        const bool k0 = (kept & 1) != 0, k1 = (kept & 2) != 0;
        if (__ballot_sync(all, k0 && k1) == 0) {
            // Every path keeps one child (so A == L): the list order stays.
            if (lane < A) {
                metric = k0 ? m0 : m1;
                if (k1)
                    u |= 1u << t;
            }
            sub.lap(scl_sub_block_fork, lane);
            continue;
        }
        sub.count(lane, scl_count_block_reorders);
        const uint32_t kept0 = __ballot_sync(all, k0), kept1 = __ballot_sync(all, k1);
        // Survivors in list order: by candidate index 2q + b.
        const int pos0 = __popc(kept0 & lanes_below) + __popc(kept1 & lanes_below);
        const int pos1 = pos0 + (k0 ? 1 : 0);
        if (k0) {
            new_from[pos0] = from;
            new_metric[pos0] = m0;
            new_bits[pos0] = static_cast<int>(u);
        }
        if (k1) {
            new_from[pos1] = from;
            new_metric[pos1] = m1;
            new_bits[pos1] = static_cast<int>(u | 1u << t);
        }
        __syncwarp();
        A = survivors;
        if (lane < A) {
            from = new_from[lane];
            metric = new_metric[lane];
            u = static_cast<uint32_t>(new_bits[lane]);
        }
        __syncwarp(); // the rows are rewritten by the next fork
        origin = fr.at_level(lane < A ? from : 0, R);
        moved = true;
        sub.lap(scl_sub_block_fork, lane);
    }

    // Slots: an origin's first survivor keeps its slot, the others clone its row.
    const bool valid = lane < A;
    const int slot = fr.clone_survivors(from, valid, L, clone_src, clone_dst, lane);
    if (valid) {
        constexpr uint32_t block_mask = B == 32 ? all : (1u << B) - 1u;
        const int shift = i & 31;
        uint32_t* row = fr.bits + slot * fr.BW + (i >> 5);
        *row = (*row & ~(block_mask << shift)) | (u << shift);
        my_slot = slot;
        my_metric = metric;
        cur_slot[lane] = slot;
    }
    __syncwarp();
    return A;
}

//! CA-SCL of frame f (extent fe) with code p in one warp, its state at `base` in shared
//! memory, list_size <= LMax (a power of two: the loops over the list unroll).
//! ListNodes: the program may hold fast-SCL's rate-1 and SPC nodes (not compiled into
//! the blind search's kernel, whose programs have none). BlindSearch: the blind
//! search's kernel (scl_shared_top).
template <bool Soft, int LMax, bool Network, bool ListNodes, bool BlindSearch>
__device__ __forceinline__ void scl_decode_frame(const polar_params& p,
                                                 const frame_extent& fe,
                                                 uint32_t f,
                                                 unsigned char* base,
                                                 int lane)
{
    namespace pp = polar_program;
    constexpr uint32_t all = 0xffffffffu;
    const int N = p.N, L = p.list_size;
    // With ListNodes the layout has fast-SCL's rank tables (mag, order) after the rest;
    // only rate-1 and SPC steps use them, and only a fast-SCL program, whose frames the
    // host sizes with them, holds such steps.
    const scl_layout lay = make_scl_layout(N, L, ListNodes, p.scl_unstored, p.scl_chan16);
    float* chan = reinterpret_cast<float*>(base + lay.chan);
    int16_t* chan16 = reinterpret_cast<int16_t*>(base + lay.chan);
    int* ctl = reinterpret_cast<int*>(base + lay.ctl);
    int* cur_slot = ctl;                                       // slot of list position q
    int* new_slot = ctl + L;                                   // the survivors in list
    float* new_metric = reinterpret_cast<float*>(ctl + 2 * L); // order: slot, metric,
    int* new_bit = ctl + 3 * L;                                // decision
    int* clone_src = ctl + 4 * L; // the r-th fork's parent slot
    int* clone_dst = ctl + 5 * L; // and its clone's slot
    scl_frame fr;
    fr.llr = reinterpret_cast<float*>(base + lay.llr);
    fr.chan = chan;
    fr.chan16 = p.scl_chan16 ? chan16 : nullptr;
    fr.bits = reinterpret_cast<uint32_t*>(base + lay.bits);
    fr.enc = reinterpret_cast<uint32_t*>(base + lay.enc);
    fr.top_enc = reinterpret_cast<uint32_t*>(base + lay.top);
    fr.quarter_enc = reinterpret_cast<uint32_t*>(base + lay.quarter);
    fr.cur_slot = cur_slot;
    fr.cand = reinterpret_cast<float*>(base + lay.cand);
    fr.N = N;
    fr.n = p.n;
    fr.W = N / 32;
    fr.BW = static_cast<int>(scl_words(N));
    fr.EW = static_cast<int>(scl_enc_words(N));
    fr.QW = static_cast<int>(scl_quarter_words(N));
    fr.SW = static_cast<int>(scl_sibling_words(N, p.scl_unstored));
    fr.U = p.n - p.scl_unstored;
    fr.stride = N >> p.scl_unstored;
    const uint32_t slot_mask = L == 32 ? all : (1u << L) - 1u;
    const uint32_t lanes_below = (1u << lane) - 1u;
    {
        const llr8_t* x = p.in + fe.in_offset;
        constexpr int CB = 8; // channel positions of a lane gathered at once
        for (int d0 = lane; d0 < N; d0 += 32 * CB) {
            int d[CB];
            float c[CB];
#pragma unroll
            for (int i = 0; i < CB; i++)
                d[i] = min(d0 + 32 * i, N - 1);
            channel_llrs(p, x, d, c);
#pragma unroll
            for (int i = 0; i < CB; i++)
                if (d0 + 32 * i < N) {
                    if (p.scl_chan16) // integers, or the known zero (host: scl_chan16)
                        chan16[d0 + 32 * i] = c[i] == polar_known_zero_llr
                                                  ? scl_known_zero16
                                                  : static_cast<int16_t>(c[i]);
                    else
                        chan[d0 + 32 * i] = c[i];
                }
        }
        for (int w = lane; w < L * fr.BW; w += 32)
            fr.bits[w] = 0;
        if (lane == 0)
            cur_slot[0] = 0;
        __syncwarp();
        scl_profiler prof;
        int A = 1;           // paths in the list
        int my_slot = 0;     // lane q < A: path q's slot
        float my_metric = 0; // and its metric
        for (int pc = 0; pc < p.num_ops; pc++) {
            const uint32_t word = __ldg(p.ops + pc);
            const int kind = word & 0xffu, level = (word >> 8) & 0xffu;
            int i = static_cast<int>(word >> 16);
            // One descent for every kind of step (one copy of its code: the kernel is
            // larger than the instruction cache).
            const bool list_node =
                ListNodes && (kind == pp::rate1_op || kind == pp::spc_op); // fast-SCL
            const bool node = kind == pp::rate0_op || kind == pp::rep_op;
            const bool block = kind == scl_block_op;
            if (block)
                i = static_cast<int>(word >> 24) << scl_block_level;
            float leaf =
                fr.descend<scl_descent_group(LMax), scl_shared_top(LMax, BlindSearch)>(
                    i,
                    block               ? scl_block_level
                    : node || list_node ? level
                                        : 0,
                    A,
                    lane,
                    my_slot);
            prof.lap(scl_phase_descend, lane);
            if (block) {
                A = scl_block<LMax, Network>(fr,
                                             ctl,
                                             i,
                                             (word >> 8) & 0xffffu, // frozen mask
                                             L,
                                             A,
                                             lane,
                                             ListNodes && p.scl_forks_by_count,
                                             my_slot,
                                             my_metric);
                prof.lap(scl_phase_leaf_fork, lane);
                continue;
            }
            if (ListNodes && list_node) {
                A = fast_scl_node<LMax, Network>(
                    fr,
                    reinterpret_cast<uint16_t*>(base + lay.order),
                    reinterpret_cast<float*>(base + lay.mag),
                    ctl,
                    i,
                    level,
                    kind == pp::spc_op,
                    L,
                    A,
                    lane,
                    p.scl_forks_by_count,
                    my_slot,
                    my_metric,
                    prof);
                continue;
            }
            if (node) {
                // A rate-0 node, or a repetition node (every leaf frozen but the last):
                // their frozen leaves' LLRs do not wait on decisions, so the subtree is
                // computed at once with zero decisions (SC's values, the last leaf's
                // too: b + a at every level), and each path adds the frozen leaves'
                // penalties in leaf order, as SCL adds them one leaf at a time. A
                // repetition node then forks on its last leaf as on any information
                // leaf: exactly SCL's metrics and decisions, in one step instead of
                // one per rate-0 subtree and leaf.
                fr.rate0_leaves(level, A, lane);
                const int frozen = kind == pp::rep_op ? (1 << level) - 1 : 1 << level;
                if (lane < A) {
                    const float* leaves = fr.at_level(my_slot, level);
                    for (int t = 0; t < frozen; t++) {
                        const float v = leaves[t];
                        if (v < 0.0f)
                            my_metric += -v;
                    }
                    leaf = leaves[frozen & ((1 << level) - 1)];
                }
                __syncwarp();
                prof.lap(scl_phase_rate0, lane);
                if (kind == pp::rate0_op)
                    continue;
                i += frozen; // the information leaf
            }
            if (kind == pp::pc_op) {
                // A parity-check leaf: each path's own parity over its decisions,
                // penalised as a frozen bit of that value (the CPU's rule).
                if (lane < A) {
                    const uint32_t* mask = p.pc_mask + p.pc_row[i] * fr.W;
                    uint32_t* mine = fr.bits + my_slot * fr.BW;
                    uint32_t parity = 0;
                    for (int w = 0; w <= (i >> 5); w++)
                        parity ^= __popc(mine[w] & mask[w]);
                    const bool bit = (parity & 1u) != 0;
                    if (bit ? leaf > 0.0f : leaf < 0.0f)
                        my_metric += fabsf(leaf);
                    if (bit)
                        mine[i >> 5] |= 1u << (i & 31);
                }
                __syncwarp();
                prof.lap(scl_phase_leaf_fork, lane);
                continue;
            }
            float m0, m1;
            child_metrics(leaf, my_metric, m0, m1);
            const int survivors = min(2 * A, L);
            const int kept = fork_survivors<LMax, Network>(
                fr, ListNodes && p.scl_forks_by_count, m0, m1, A, survivors, lane);
            const bool k0 = (kept & 1) != 0, k1 = (kept & 2) != 0;
            const uint32_t forks = __ballot_sync(all, k0 && k1);
            if (forks == 0) {
                // Every path keeps one child (so A == L): slots and order stay.
                if (lane < A) {
                    my_metric = k0 ? m0 : m1;
                    if (k1)
                        fr.bits[my_slot * fr.BW + (i >> 5)] |= 1u << (i & 31);
                }
                __syncwarp();
                prof.lap(scl_phase_leaf_fork, lane);
                continue;
            }
            const uint32_t kept0 = __ballot_sync(all, k0), kept1 = __ballot_sync(all, k1);
            const uint32_t used = __reduce_or_sync(all, k0 || k1 ? 1u << my_slot : 0u);
            // Survivors in list order: by candidate index 2q + b.
            const int pos0 = __popc(kept0 & lanes_below) + __popc(kept1 & lanes_below);
            const int pos1 = pos0 + (k0 ? 1 : 0);
            int slot1 = my_slot;
            if (k0 && k1) {
                // The r-th fork's clone takes the r-th free slot.
                const int r = __popc(forks & lanes_below);
                slot1 = nth_free_slot(~used & slot_mask, r);
                clone_src[r] = my_slot;
                clone_dst[r] = slot1;
            }
            if (k0) {
                new_slot[pos0] = my_slot;
                new_metric[pos0] = m0;
                new_bit[pos0] = 0;
            }
            if (k1) {
                new_slot[pos1] = slot1;
                new_metric[pos1] = m1;
                new_bit[pos1] = 1;
            }
            __syncwarp();
            fr.clone_rows(clone_src, clone_dst, __popc(forks), lane);
            __syncwarp();
            A = survivors;
            if (lane < A) {
                my_slot = new_slot[lane];
                my_metric = new_metric[lane];
                if (new_bit[lane])
                    fr.bits[my_slot * fr.BW + (i >> 5)] |= 1u << (i & 31);
                cur_slot[lane] = my_slot;
            }
            __syncwarp();
            prof.lap(scl_phase_leaf_fork, lane);
        }

        // The CRC of each path: XOR of the columns of its set payload bits, against its
        // CRC bits (leaf tables: zero on frozen leaves, which are 0 anyway).
        int ok_mine = 0;
        uint32_t syndrome_mine = 0;
        for (int q = 0; q < A; q++) {
            const int s = cur_slot[q];
            uint32_t parity = 0, received = 0;
            for (int w = lane; w < fr.W; w += 32) {
                uint32_t v = fr.bits[s * fr.BW + w];
                while (v) {
                    const int leaf = 32 * w + __ffs(v) - 1;
                    v &= v - 1u;
                    parity ^= p.leaf_column[leaf];
                    received |= p.leaf_crc_bit[leaf];
                }
            }
            parity = __reduce_xor_sync(all, parity);
            received = __reduce_or_sync(all, received);
            if (lane == q) {
                syndrome_mine = parity ^ p.crc_zero ^ received;
                ok_mine = crc_accepts(p, syndrome_mine);
            }
        }
        // List positions by (metric, position); the first that passes, else the first.
        int rank = 0;
        for (int q = 0; q < A; q++) {
            const float o = __shfl_sync(all, my_metric, q);
            rank += o < my_metric || (o == my_metric && q < lane);
        }
        const int best = static_cast<int>(
            __reduce_min_sync(all, lane < A && ok_mine ? unsigned(rank) : 64u));
        const int target = best == 64 ? 0 : best;
        const int chosen_lane = __ffs(__ballot_sync(all, lane < A && rank == target)) - 1;
        const int chosen = __shfl_sync(all, my_slot, chosen_lane);
        const uint32_t rnti = rnti_of(p, __shfl_sync(all, syndrome_mine, chosen_lane));
        const uint32_t* u = fr.bits + chosen * fr.BW;
        uint8_t* out = p.out + fe.out_offset;
        for (int byte = lane; byte < output_bytes(p); byte += 32)
            out[byte] = output_byte(p, byte, rnti, [&](int j) {
                const int i = p.info[j];
                return row_bit(u, i) != 0;
            });
        if (lane == 0)
            p.status[f] = frame_status{ p.second_pass ? 2 : 1, best != 64 };
        prof.lap(scl_phase_crc_output, lane);
        if (Soft) {
            // Replay the chosen path alone: its leaf LLRs, signed by its decisions.
            __syncwarp();
            if (lane == 0)
                cur_slot[0] = chosen;
            __syncwarp();
            float* soft = p.soft + 8 * fe.out_offset;
            for (int pc = 0; pc < p.num_ops; pc++) {
                const uint32_t word = __ldg(p.ops + pc);
                const int level = (word >> 8) & 0xffu, kind = word & 0xffu;
                const int i = kind == scl_block_op
                                  ? static_cast<int>(word >> 24) << scl_block_level
                                  : static_cast<int>(word >> 16);
                const bool block = kind == scl_block_op;
                if (block ||
                    (ListNodes && (kind == pp::rate1_op || kind == pp::spc_op))) {
                    // Decided at once: its leaf LLRs from the decisions, leaf by leaf.
                    const int leaves = 1 << (block ? scl_block_level : level);
                    for (int at = i; at < i + leaves; at++) {
                        const float leaf = fr.descend<scl_descent_group(LMax),
                                                      scl_shared_top(LMax, BlindSearch)>(
                            at, 0, 1, lane, chosen);
                        const int j = p.payload_of[at];
                        if (lane == 0 && j >= 0)
                            soft[j] = row_bit(u, at) ? -fabsf(leaf) : fabsf(leaf);
                    }
                    continue;
                }
                const bool node = kind == pp::rate0_op || kind == pp::rep_op;
                float leaf = fr.descend<scl_descent_group(LMax),
                                        scl_shared_top(LMax, BlindSearch)>(
                    i, node ? level : 0, 1, lane, chosen);
                int at = i;
                if (kind == pp::rep_op) {
                    fr.rate0_leaves(level, 1, lane);
                    at = i + (1 << level) - 1;
                    leaf = fr.at_level(chosen, level)[(1 << level) - 1];
                }
                const int j = kind == pp::rate0_op ? -1 : p.payload_of[at];
                if (lane == 0 && j >= 0)
                    soft[j] = row_bit(u, at) ? -fabsf(leaf) : fabsf(leaf);
            }
            prof.lap(scl_phase_soft, lane);
        }
        prof.count(lane);
        __syncwarp(); // the buffers are reused by the next frame
    }
}

//! Blocks (frames) per SM the kernels ask for in their launch bounds, which sets their
//! register budget: 128 registers for lists of 8 and more (without it ptxas held them
//! to 72-96 and spilled the loop's state to local memory); shorter lists keep ptxas's
//! own choice (0: no minimum), which suits their smaller frames, more per SM. (17
//! frames would put five warps on one of the SM's four register files: ptxas then
//! allows 96 registers, and the list-8 kernel spilled 84 bytes.)
__host__ __device__ constexpr int scl_min_blocks(int list_max)
{
    return list_max >= 8 ? 16 : 0;
}

//! CA-SCL, one warp per frame, every frame with the launch's code.
template <bool Soft, int LMax>
__global__ void __launch_bounds__(32 * scl_max_warps_per_block, scl_min_blocks(LMax))
    polar_scl_kernel(const polar_params p)
{
    // One warp per block, so frame 0 of a block starts at its shared memory's start
    // whatever the frame size (with or without fast-SCL's ranks).
    static_assert(scl_max_warps_per_block == 1, "frames of several sizes per block");
    extern __shared__ float smem[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    unsigned char* base =
        reinterpret_cast<unsigned char*>(smem) +
        warp *
            make_scl_layout(p.N, p.list_size, false, p.scl_unstored, p.scl_chan16).bytes;
    // SC first (polar_params::frame_index): the frames the device listed, a grid
    // sized to the SMs rather than to the count (which only the device knows).
    const uint32_t count = p.frame_index ? p.frame_index[-1] : p.num_frames;
    for (uint32_t i = blockIdx.x * warps + warp; i < count; i += gridDim.x * warps) {
        const uint32_t f = p.frame_index ? p.frame_index[i] : i;
        scl_decode_frame<Soft, LMax, true, true, false>(p, p.frames[f], f, base, lane);
    }
}

//! The codes of a launch over frames of several lengths (a PDCCH blind search: one DCI
//! code per aggregation level): a frame of e[c] LLRs is decoded with codes[c].
constexpr int max_launch_codes = 5;
struct polar_code_set {
    const polar_params* codes; //!< device array of `count`
    uint32_t e[max_launch_codes];
    int count;
    uint32_t frame_bytes; //!< shared memory per frame: the largest code's
};

//! CA-SCL, one warp per frame, each frame with the code of its length (hard output).
template <int LMax>
__global__ void __launch_bounds__(32 * scl_max_warps_per_block, scl_min_blocks(LMax))
    polar_scl_set_kernel(const polar_params launch, const polar_code_set set)
{
    extern __shared__ float smem[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    unsigned char* base = reinterpret_cast<unsigned char*>(smem) + warp * set.frame_bytes;
    for (uint32_t f = blockIdx.x * warps + warp; f < launch.num_frames;
         f += gridDim.x * warps) {
        const frame_extent fe = launch.frames[f];
        int c = 0;
#pragma unroll
        for (int t = 1; t < max_launch_codes; t++)
            if (t < set.count && set.e[t] == fe.in_items)
                c = t;
        const polar_params p = with_launch(set.codes[c], launch);
        scl_decode_frame<false, LMax, false, false, true>(p, fe, f, base, lane);
    }
}
