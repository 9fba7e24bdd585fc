/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Included by polar_cuda.cu after polar_params and the CRC helpers.
//
// Belief propagation with 8-bit messages (polar_bp_arithmetic::int8): a team of P lanes
// per frame, no block barriers. The block-per-frame kernel (polar_bp_kernel) puts a
// __syncthreads between every two of the 2n stages of an iteration, and that, not its
// arithmetic, bounded it (docs/polar-gpu.md). Here a frame's N = P M nodes per layer
// are owned by its P lanes in one of two layouts:
//   contiguous: lane t owns nodes t M + k (k < M), so the butterflies of stages
//               s < log2 M stay inside a lane;
//   strided:    lane t owns nodes t + P k, so those of stages s >= log2 P do.
// With M >= P (P = 2^floor(n/2)) the two cover every stage: a left sweep runs stages
// n-1 .. log2 M strided, then the rest contiguous; a right sweep the reverse. A lane
// only ever reads and writes the nodes it owns within a phase, so the phases are
// separated by a __syncwarp over the team, and 32 / P frames share a warp (several
// frames per warp for N <= 512: the paper's several codewords per block).
//
// The arithmetic is polar_bp_int8's (the CPU int8 decoder's) in 32-bit lanes, the
// sweeps, stopping rule (G-matrix test, then the CRC) and outputs are the CPU's, so
// bits, iterations, status and soft output equal polar_bp_decoder_cpu<int8>'s.

//! Team shape of a BP frame of N = 2^LogN (P lanes, M nodes per lane) and its shared
//! memory. Each layer is stored in one layout, in the node order of the stage that
//! writes it ("constant geometry"): at stage s a lane's node k sits at position
//! rotr(k, j + 1) of layer s (j = the stage's butterfly bit in k), so the processing
//! element q reads and writes layer s at positions q and q + M/2 and layer s + 1 at
//! rot1(q) and rot1(q + M/2), whatever s is. Layers 0 .. log2 M are in the contiguous
//! layout, log2 M .. n in the strided one (layer log2 M, where the phases meet, in both,
//! copied across after the phase that writes it), and in every layer position x of
//! lane t is byte t + P x: the lanes side by side (no bank conflicts), and one stage
//! body serves both layouts, so the loop's code is half as large (instruction fetch
//! was the first stall).
template <int LogN>
struct bp8_shape {
    static constexpr int N = 1 << LogN;
    static constexpr int log_p = LogN / 2;
    static constexpr int P = 1 << log_p;
    static constexpr int log_m = LogN - log_p;
    static constexpr int M = 1 << log_m;
    static constexpr int frames_per_warp = 32 / P;
    //! Layer l is stored at index l (contiguous, l <= log_m) or l + 1 (strided,
    //! l >= log_m): n + 2 layers of N bytes for L, then as many for R.
    static constexpr int r_off = (LogN + 2) * N;
    static constexpr int words = 2 * r_off; //!< then N / 32 decision words
    static constexpr size_t frame_bytes =
        (size_t(words) + 4 * (N / 32) + 15) & ~size_t(15);
    //! x rotated right by r within log_m bits.
    static __host__ __device__ constexpr int rotr(int x, int r)
    {
        r %= log_m;
        return ((x >> r) | (x << (log_m - r))) & (M - 1);
    }
    static __host__ __device__ constexpr int rot1(int x) { return rotr(x, 1); }
    //! Rotation of the strided copy of layer log_m (its butterfly bit: log_m - log_p).
    static constexpr int r_meet = log_m - log_p + 1;
};

__device__ __forceinline__ int bp8_add(int a, int b)
{
    return min(max(a + b, -127), 127);
}
__device__ __forceinline__ int bp8_boxplus(int a, int b)
{
    const int m = (15 * min(abs(a), abs(b))) >> 4;
    return (a ^ b) < 0 ? -m : m;
}

//! One stage's processing elements of a lane: `base` is the lane's byte in the stage's
//! layer of L (layer s + 1 follows at + N, R at + r_off). Loads all come before stores:
//! the compiler cannot move a load above a store to the same array.
template <int LogN, bool Left>
__device__ __forceinline__ void bp8_stage(int8_t* base)
{
    using S = bp8_shape<LogN>;
    constexpr int N = S::N, r_off = S::r_off, P = S::P, pes = S::M / 2;
    int la[pes], lb[pes], ra[pes], rb[pes];
#pragma unroll
    for (int q = 0; q < pes; q++) {
        la[q] = base[N + P * S::rot1(q)]; // L[s + 1]
        lb[q] = base[N + P * S::rot1(q + pes)];
        ra[q] = base[r_off + P * q]; // R[s]
        rb[q] = base[r_off + P * (q + pes)];
    }
#pragma unroll
    for (int q = 0; q < pes; q++) {
        const int sum = bp8_add(lb[q], rb[q]), cross = bp8_boxplus(ra[q], la[q]);
        if (Left) {
            base[P * q] = static_cast<int8_t>(bp8_boxplus(la[q], sum));
            base[P * (q + pes)] = static_cast<int8_t>(bp8_add(cross, lb[q]));
        } else {
            base[r_off + N + P * S::rot1(q)] =
                static_cast<int8_t>(bp8_boxplus(ra[q], sum));
            base[r_off + N + P * S::rot1(q + pes)] =
                static_cast<int8_t>(bp8_add(cross, rb[q]));
        }
    }
}

//! Hard decisions (L + R < 0) of the nodes t M + k (bit k of the result) of layer 0
//! (contiguous) or layer n (strided, read across the team's lanes).
template <int LogN, bool LayerN>
__device__ __forceinline__ uint32_t bp8_decisions(const int8_t* frame, int t)
{
    using S = bp8_shape<LogN>;
    constexpr int P = S::P;
    uint32_t bits = 0;
    if constexpr (!LayerN) {
        const int8_t* a = frame + t;
#pragma unroll
        for (int k = 0; k < S::M; k++) {
            const int at = P * S::rot1(k);
            bits |= static_cast<uint32_t>(int(a[at]) + int(a[S::r_off + at]) < 0) << k;
        }
    } else {
        // Node t M + k is the strided lane k mod P's node t M / P + k / P, at position
        // rot1 of that in layer n: t's part and k's part rotate apart.
        constexpr int d = S::log_m - S::log_p;
        const int8_t* a = frame + (LogN + 1) * S::N + P * S::rot1(t << d);
#pragma unroll
        for (int k = 0; k < S::M; k++) {
            const int at = k % P + P * S::rot1(k >> S::log_p);
            bits |= static_cast<uint32_t>(int(a[at]) + int(a[S::r_off + at]) < 0) << k;
        }
    }
    return bits;
}

//! Writes the team's decisions (bit k of lane t: node t M + k) as N / 32 words.
template <int LogN>
__device__ __forceinline__ void
bp8_store_words(uint32_t* words, uint32_t bits, int t, unsigned team_mask)
{
    using S = bp8_shape<LogN>;
    if constexpr (S::M >= 32) {
        words[t] = bits;
    } else {
        constexpr int lanes_per_word = 32 / S::M; // <= P
        uint32_t w = bits << ((t * S::M) & 31);
        for (int o = 1; o < lanes_per_word; o *= 2)
            w |= __shfl_xor_sync(team_mask, w, o, S::P);
        if (t % lanes_per_word == 0)
            words[t / lanes_per_word] = w;
    }
    __syncwarp(team_mask);
}

//! The CRC syndrome of the decisions in `words` (0 without a CRC), by the team.
template <int LogN>
__device__ __forceinline__ uint32_t
bp8_syndrome(const polar_params& p, const uint32_t* words, int t, unsigned team_mask)
{
    using S = bp8_shape<LogN>;
    if (p.crc_len == 0)
        return 0;
    auto bit = [&](int i) { return (words[i >> 5] >> (i & 31)) & 1u; };
    uint32_t parity = 0;
    for (int j = t; j < p.k; j += S::P)
        if (bit(p.info[j]))
            parity ^= p.crc_column[j];
    for (int j = t; j < p.crc_len; j += S::P)
        parity ^= bit(p.info[p.k + j]) << j;
    for (int o = S::P / 2; o > 0; o /= 2)
        parity ^= __shfl_xor_sync(team_mask, parity, o, S::P);
    return parity ^ p.crc_zero;
}

//! u G_N over the team's decisions (bit k of lane t: node t M + k), in place.
template <int LogN>
__device__ __forceinline__ uint32_t bp8_transform(uint32_t w, int t, unsigned team_mask)
{
    using S = bp8_shape<LogN>;
    constexpr uint32_t keep[5] = {
        0x55555555u, 0x33333333u, 0x0F0F0F0Fu, 0x00FF00FFu, 0x0000FFFFu
    };
#pragma unroll
    for (int s = 0; s < S::log_m; s++)
        w ^= (w >> (1 << s)) & keep[s];
#pragma unroll
    for (int d = 1; d < S::P; d *= 2) {
        const uint32_t other = __shfl_down_sync(team_mask, w, d, S::P);
        if ((t & d) == 0)
            w ^= other;
    }
    return w;
}

template <int LogN>
__global__ void __launch_bounds__(32) polar_bp8_kernel(const polar_params p)
{
    using S = bp8_shape<LogN>;
    constexpr int n = LogN, N = S::N, P = S::P, M = S::M, log_m = S::log_m,
                  log_p = S::log_p, r_off = S::r_off;
    constexpr int d = log_m - log_p;
    extern __shared__ __align__(16) uint8_t bp8_smem[];
    const int lane = threadIdx.x, team = lane / P, t = lane % P;
    const unsigned team_mask = P == 32 ? 0xffffffffu : ((1u << P) - 1u) << (team * P);
    int8_t* const frame = reinterpret_cast<int8_t*>(bp8_smem + team * S::frame_bytes);
    uint32_t* const words = reinterpret_cast<uint32_t*>(frame + S::words);
    int8_t* const own = frame + t; // the lane's byte of layer index 0
    // Where the copies of layer log_m (and the prior) read from: what t contributes
    // to a node's position there (the rest is a constant per node).
    const int8_t* const meet_l = frame + (log_m + 1) * N + P * S::rotr(t << d, S::r_meet);
    int8_t* const prior_r = frame + r_off + P * S::rot1(t);
    for (uint32_t f = blockIdx.x * S::frames_per_warp + team; f < p.num_frames;
         f += gridDim.x * S::frames_per_warp) {
        const frame_extent fe = p.frames[f];
        const llr8_t* in = p.in + fe.in_offset;
        // Channel (layer n of L): the received sum saturated, known zeros at 127;
        // R: the prior at layer 0 (127 on frozen bits), 0 elsewhere. All M of the
        // lane's nodes t + P i at once, in passes, so that their global loads
        // overlap: their source ranges, the first received LLR of each, repetitions
        // (rare). Measured at N = 1024 (H200, 5cf2eb4, before the constant-geometry
        // layout): 2.88 Gb/s; one node at a time 2.61, eight or sixteen at a time in
        // a loop 2.27.
        {
            uint32_t first[M], end[M];
            int sum[M];
#pragma unroll
            for (int i = 0; i < M; i++) {
                first[i] = __ldg(p.src_begin + t + P * i);
                end[i] = __ldg(p.src_begin + t + P * i + 1);
            }
#pragma unroll
            for (int i = 0; i < M; i++)
                sum[i] = first[i] < end[i] ? __ldg(in + __ldg(p.src + first[i])) : 0;
#pragma unroll
            for (int i = 0; i < M; i++)
                for (uint32_t r = first[i] + 1; r < end[i]; r++)
                    sum[i] += __ldg(in + __ldg(p.src + r));
#pragma unroll
            for (int i = 0; i < M; i++) {
                const int node = t + P * i;
                own[(n + 1) * N + P * S::rot1(i)] = static_cast<int8_t>(
                    __ldg(p.fill + node) != 0.0f ? polar_bp_int8::known_zero
                                                 : min(max(sum[i], -127), 127));
                // Node t + P i is the contiguous lane P i / M's node t + P i % M.
                prior_r[((P * i) >> log_m) + P * S::rot1((P * i) & (M - 1))] =
                    static_cast<int8_t>(__ldg(p.frozen + node) ? polar_bp_int8::known_zero
                                                               : 0);
            }
        }
        {
            uint32_t* r = reinterpret_cast<uint32_t*>(frame + r_off + N);
            for (int w = t; w < (n + 1) * N / 4; w += P)
                r[w] = 0;
        }
        __syncwarp(team_mask);
        int it = 1;
        for (;; it++) {
#pragma unroll 1
            for (int s = n - 1; s >= 0; s--) {
                if (s == log_m - 1) {
                    // L of layer log_m, strided -> contiguous (each lane its nodes).
                    __syncwarp(team_mask);
#pragma unroll
                    for (int k = 0; k < M; k++)
                        own[log_m * N + P * S::rot1(k)] =
                            meet_l[k % P + P * S::rotr(k >> log_p, S::r_meet)];
                }
                bp8_stage<LogN, true>(own + (s + (s >= log_m)) * N);
            }
            if (it == p.iterations)
                break;
#pragma unroll 1
            for (int s = 0; s < n; s++) {
                if (s == log_m) {
                    // R of layer log_m, contiguous -> strided (each lane its nodes).
                    __syncwarp(team_mask);
#pragma unroll
                    for (int k = 0; k < M; k++)
                        own[r_off + (log_m + 1) * N + P * S::rotr(k, S::r_meet)] =
                            prior_r[log_m * N + ((P * k) >> log_m) +
                                    P * S::rot1((P * k) & (M - 1))];
                }
                bp8_stage<LogN, false>(own + (s + (s >= log_m)) * N);
            }
            __syncwarp(team_mask);
            if (!p.early_termination)
                continue;
            // G-matrix test: u_hat G_N against x_hat, then the CRC of u_hat.
            const uint32_t u = bp8_decisions<LogN, false>(frame, t);
            const uint32_t x = bp8_decisions<LogN, true>(frame, t);
            if (__any_sync(team_mask, bp8_transform<LogN>(u, t, team_mask) != x))
                continue;
            bp8_store_words<LogN>(words, u, t, team_mask);
            if (crc_accepts(p, bp8_syndrome<LogN>(p, words, t, team_mask)))
                break;
        }
        __syncwarp(team_mask);
        bp8_store_words<LogN>(words, bp8_decisions<LogN, false>(frame, t), t, team_mask);
        const uint32_t syndrome = bp8_syndrome<LogN>(p, words, t, team_mask);
        const bool ok = crc_accepts(p, syndrome);
        const uint32_t rnti = rnti_of(p, syndrome);
        auto bit = [&](int j) {
            const int i = p.info[j];
            return ((words[i >> 5] >> (i & 31)) & 1u) != 0;
        };
        uint8_t* out = p.out + fe.out_offset;
        for (int byte = t; byte < output_bytes(p); byte += P)
            out[byte] = output_byte(p, byte, rnti, bit);
        if (p.soft)
            for (int j = t; j < p.k; j += P) {
                const int i = p.info[j];
                const int8_t* a = frame + (i >> log_m) + P * S::rot1(i & (M - 1));
                p.soft[8 * fe.out_offset + j] =
                    static_cast<float>(int(a[0]) + int(a[r_off]));
            }
        if (t == 0)
            p.status[f] = frame_status{ it, ok };
        __syncwarp(team_mask); // the buffers are reused by the next frame
    }
}

//! The kernel for codes of 2^log_n bits, its frames per warp and shared memory per
//! frame (kernel null outside NR's 5 <= log_n <= 10).
struct bp8_variant {
    void (*kernel)(polar_params);
    int frames_per_warp;
    size_t frame_bytes;
};
template <int LogN>
bp8_variant bp8_variant_of()
{
    return { polar_bp8_kernel<LogN>,
             bp8_shape<LogN>::frames_per_warp,
             bp8_shape<LogN>::frame_bytes };
}
inline bp8_variant bp8_variant_for(int log_n)
{
    switch (log_n) {
    case 5:
        return bp8_variant_of<5>();
    case 6:
        return bp8_variant_of<6>();
    case 7:
        return bp8_variant_of<7>();
    case 8:
        return bp8_variant_of<8>();
    case 9:
        return bp8_variant_of<9>();
    case 10:
        return bp8_variant_of<10>();
    default:
        return { nullptr, 1, 0 };
    }
}
