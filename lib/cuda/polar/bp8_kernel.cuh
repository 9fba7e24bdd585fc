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

//! Team shape of a BP frame of N = 2^LogN: P lanes, M nodes per lane.
template <int LogN>
struct bp8_shape {
    static constexpr int N = 1 << LogN;
    static constexpr int log_p = LogN / 2;
    static constexpr int P = 1 << log_p;
    static constexpr int log_m = LogN - log_p;
    static constexpr int M = 1 << log_m;
    static constexpr int frames_per_warp = 32 / P;
    //! Bytes of one layer: node i at i + 4 (i >> 7), so that the contiguous layout's
    //! lanes (rows of M bytes) fall in different banks.
    static constexpr int layer = N + 4 * (N >> 7);
    static __device__ __forceinline__ int at(int i) { return i + 4 * (i >> 7); }
    //! A frame's shared memory: L and R of layers 0..n, then N / 32 decision words.
    static constexpr size_t frame_bytes =
        (2 * size_t(LogN + 1) * layer + 4 * size_t(N > 32 ? N / 32 : 1) + 15) &
        ~size_t(15);
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

//! One phase of a sweep: stages `from` .. `to` (down for Left, up for right) over the
//! nodes this lane owns in the Strided or contiguous layout. L points at layer 0 of the
//! frame's L; R = L + (n + 1) layers. The stage index is a runtime value (unrolling the
//! stages too makes ~120 KB of code at N = 1024, and the warps then wait on
//! instruction fetches: measured 1.46 against 2.61 Gb/s). A stage's loads all come
//! before its stores: the compiler cannot move a load above a store to the same
//! array, so loads interleaved with stores would run one processing element at a time.
template <int LogN, bool Strided, bool Left>
__device__ __forceinline__ void bp8_phase(int8_t* L, int t, int from, int to)
{
    using S = bp8_shape<LogN>;
    constexpr int layer = S::layer, pes = S::M / 2;
    constexpr int r_off = (LogN + 1) * layer; // R relative to L
    constexpr int local_shift = Strided ? S::log_p : 0;
    // The lane's node k sits at lane_base + offset(k) in a layer.
    int8_t* const lane_base = L + (Strided ? t : S::at(t * S::M));
    auto offset = [](int k) { return Strided ? S::at(S::P * k) : k; };
    for (int s = from; Left ? s >= to : s <= to; s += Left ? -1 : 1) {
        const int hk = 1 << (s - local_shift); // butterfly span in k
        int8_t* const base = lane_base + s * layer;
        int oa[pes], ob[pes], la[pes], lb[pes], ra[pes], rb[pes];
#pragma unroll
        for (int q = 0; q < pes; q++) {
            const int ka = q + (q & ~(hk - 1));
            oa[q] = offset(ka);
            ob[q] = offset(ka + hk);
            la[q] = base[oa[q] + layer]; // L[s + 1]
            lb[q] = base[ob[q] + layer];
            ra[q] = base[oa[q] + r_off]; // R[s]
            rb[q] = base[ob[q] + r_off];
        }
#pragma unroll
        for (int q = 0; q < pes; q++) {
            const int sum = bp8_add(lb[q], rb[q]), cross = bp8_boxplus(ra[q], la[q]);
            if (Left) {
                base[oa[q]] = static_cast<int8_t>(bp8_boxplus(la[q], sum));
                base[ob[q]] = static_cast<int8_t>(bp8_add(cross, lb[q]));
            } else {
                base[oa[q] + r_off + layer] =
                    static_cast<int8_t>(bp8_boxplus(ra[q], sum));
                base[ob[q] + r_off + layer] = static_cast<int8_t>(bp8_add(cross, rb[q]));
            }
        }
    }
}

//! Hard decisions of layer `l` (L + R < 0) over the nodes lane t owns in the contiguous
//! layout: bit k of the result is node t M + k.
template <int LogN>
__device__ __forceinline__ uint32_t bp8_decisions(const int8_t* L, int t, int l)
{
    using S = bp8_shape<LogN>;
    const int8_t* a = L + l * S::layer + S::at(t * S::M);
    const int8_t* r = a + (LogN + 1) * S::layer;
    uint32_t bits = 0;
#pragma unroll
    for (int k = 0; k < S::M; k++)
        bits |= static_cast<uint32_t>(int(a[k]) + int(r[k]) < 0) << k;
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
    constexpr int n = LogN, P = S::P, layer = S::layer;
    extern __shared__ __align__(16) uint8_t bp8_smem[];
    const int lane = threadIdx.x, team = lane / P, t = lane % P;
    const unsigned team_mask = P == 32 ? 0xffffffffu : ((1u << P) - 1u) << (team * P);
    int8_t* L = reinterpret_cast<int8_t*>(bp8_smem + team * S::frame_bytes);
    int8_t* R = L + (n + 1) * layer; // layer 0: the prior
    uint32_t* words = reinterpret_cast<uint32_t*>(R + (n + 1) * layer);
    for (uint32_t f = blockIdx.x * S::frames_per_warp + team; f < p.num_frames;
         f += gridDim.x * S::frames_per_warp) {
        const frame_extent fe = p.frames[f];
        const llr8_t* in = p.in + fe.in_offset;
        // Channel (layer n of L): the received sum saturated, known zeros at 127;
        // R: the prior at layer 0 (127 on frozen bits), 0 elsewhere. All M of the
        // lane's nodes d = t + P i at once, in passes, so that their global loads
        // overlap: their source ranges, the first received LLR of each, repetitions
        // (rare). Measured at N = 1024 (H200): 2.88 Gb/s; one node at a time 2.61,
        // eight or sixteen at a time in a loop 2.27 (the registers this takes, 224,
        // cost nothing: shared memory allows 9 frames per SM, registers 8).
        {
            uint32_t first[S::M], end[S::M];
            int sum[S::M];
#pragma unroll
            for (int i = 0; i < S::M; i++) {
                first[i] = __ldg(p.src_begin + t + P * i);
                end[i] = __ldg(p.src_begin + t + P * i + 1);
            }
#pragma unroll
            for (int i = 0; i < S::M; i++)
                sum[i] = first[i] < end[i] ? __ldg(in + __ldg(p.src + first[i])) : 0;
#pragma unroll
            for (int i = 0; i < S::M; i++)
                for (uint32_t r = first[i] + 1; r < end[i]; r++)
                    sum[i] += __ldg(in + __ldg(p.src + r));
#pragma unroll
            for (int i = 0; i < S::M; i++) {
                const int d = t + P * i;
                L[n * layer + S::at(d)] = static_cast<int8_t>(
                    __ldg(p.fill + d) != 0.0f ? polar_bp_int8::known_zero
                                              : min(max(sum[i], -127), 127));
                R[S::at(d)] = static_cast<int8_t>(
                    __ldg(p.frozen + d) ? polar_bp_int8::known_zero : 0);
            }
        }
        {
            uint32_t* r = reinterpret_cast<uint32_t*>(R + layer);
            for (int w = t; w < n * layer / 4; w += P)
                r[w] = 0;
        }
        __syncwarp(team_mask);
        int it = 1;
        for (;; it++) {
            bp8_phase<LogN, true, true>(L, t, n - 1, S::log_m);
            __syncwarp(team_mask);
            bp8_phase<LogN, false, true>(L, t, S::log_m - 1, 0);
            if (it == p.iterations)
                break;
            bp8_phase<LogN, false, false>(L, t, 0, S::log_m - 1);
            __syncwarp(team_mask);
            bp8_phase<LogN, true, false>(L, t, S::log_m, n - 1);
            __syncwarp(team_mask);
            if (!p.early_termination)
                continue;
            // G-matrix test: u_hat G_N against x_hat, then the CRC of u_hat.
            const uint32_t u = bp8_decisions<LogN>(L, t, 0);
            const uint32_t x = bp8_decisions<LogN>(L, t, n);
            if (__any_sync(team_mask, bp8_transform<LogN>(u, t, team_mask) != x))
                continue;
            bp8_store_words<LogN>(words, u, t, team_mask);
            if (crc_accepts(p, bp8_syndrome<LogN>(p, words, t, team_mask)))
                break;
        }
        __syncwarp(team_mask);
        bp8_store_words<LogN>(words, bp8_decisions<LogN>(L, t, 0), t, team_mask);
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
                const int i = S::at(p.info[j]);
                p.soft[8 * fe.out_offset + j] = static_cast<float>(int(L[i]) + int(R[i]));
            }
        if (t == 0)
            p.status[f] = frame_status{ it, ok };
        __syncwarp(team_mask); // the buffers are reused by the next frame
    }
}

//! The kernel for codes of 2^log_n bits (NR: 5 <= log_n <= 10), or null.
inline void (*bp8_kernel_for(int log_n))(polar_params)
{
    switch (log_n) {
    case 5:
        return polar_bp8_kernel<5>;
    case 6:
        return polar_bp8_kernel<6>;
    case 7:
        return polar_bp8_kernel<7>;
    case 8:
        return polar_bp8_kernel<8>;
    case 9:
        return polar_bp8_kernel<9>;
    case 10:
        return polar_bp8_kernel<10>;
    default:
        return nullptr;
    }
}

//! Frames per warp and shared memory per frame of the kernel for 2^log_n bits.
inline int bp8_frames_per_warp(int log_n) { return 32 >> (log_n / 2); }
inline size_t bp8_frame_bytes(int log_n)
{
    switch (log_n) {
    case 5:
        return bp8_shape<5>::frame_bytes;
    case 6:
        return bp8_shape<6>::frame_bytes;
    case 7:
        return bp8_shape<7>::frame_bytes;
    case 8:
        return bp8_shape<8>::frame_bytes;
    case 9:
        return bp8_shape<9>::frame_bytes;
    default:
        return bp8_shape<10>::frame_bytes;
    }
}
