/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Included by polar_cuda.cu after polar_params, the CRC helpers and
// ../common/half2_bits.cuh (cuda_fp16.h, as_half2, as_bits).
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
// A lane runs two processing elements at once, q and q + 1, in the 16-bit halves of
// a register as IEEE halves: the int8 rules are exact there (integers up to 254), and
// sm_86 and later (Ampere GA10x, Ada, Hopper) have the box-plus's core as one
// instruction (min.xorsign.abs.f16x2: sign(a) sign(b) min(|a|, |b|) per half; sm_80
// takes three). Messages stay 8-bit in shared memory (a quarter of float messages'
// bytes: several frames an SM), biased by 128 so that one PRMT makes a pair of them the
// halves 1280 + 128 + v (ulp 1: a box-plus and its sum round there in one HFMA2); the
// layers pair their positions so that each 64-bit load holds the values two element pairs
// need (below), and the stores' PRMTs regroup their bytes into whole 64-bit cells.
//
// The arithmetic is polar_bp_int8's (the CPU int8 decoder's), the sweeps, stopping rule
// (G-matrix test, then the CRC) and outputs are the CPU's, so bits, iterations, status
// and soft output equal polar_bp_decoder_cpu<int8>'s.

//! Shared memory an SM has for blocks and the blocks it holds (CUDA C++ Programming
//! Guide, "Technical Specifications per Compute Capability"): 228 KB and 32 on sm_90,
//! 164 KB and 32 on sm_80, 100 KB and 16 on sm_86 / sm_87, 100 KB and 24 on sm_89.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870)
constexpr size_t bp8_sm_smem = 102400, bp8_sm_blocks = 16;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 890
constexpr size_t bp8_sm_smem = 102400, bp8_sm_blocks = 24;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr size_t bp8_sm_smem = 167936, bp8_sm_blocks = 32;
#else
constexpr size_t bp8_sm_smem = 233472, bp8_sm_blocks = 32;
#endif

//! Team shape of a BP frame of N = 2^LogN (P lanes, M nodes per lane) and its shared
//! memory. Each layer is stored in one layout, in the node order of the stage that
//! writes it ("constant geometry"): at stage s a lane's node k sits at position
//! rotr(k, j + 1) of layer s (j = the stage's butterfly bit in k), so the processing
//! element q reads and writes layer s at positions q and q + M/2 and layer s + 1 at
//! rot1(q) and rot1(q + M/2), whatever s is. Layers 0 .. log2 M are in the contiguous
//! layout, log2 M .. n in the strided one (layer log2 M, where the phases meet, in both,
//! copied across after the phase that writes it). One stage body serves both layouts
//! and every stage (instruction fetch was the first stall).
//!
//! Within a layer, positions go two to a 16-bit word (which two: in L layers x and x +
//! M/2, read at rot1(2u) = u and rot1(2u + 1) = u + M/2 by the element pair 2u, 2u + 1;
//! in R layers 2w and 2w + 1, read at 2u, 2u + 1 by the same pair), words u and u + M/4
//! to a 32-bit pair word (what element pair u reads of a layer), and pair words 2c and
//! 2c + 1 to the 64-bit cell c of a lane, at byte 8 t + cell_stride c (the lanes side by
//! side: a warp's 64-bit access takes the fewest wavefronts). So a stage loads a layer a
//! cell at a time (two element pairs' operands a load), and its stores fill whole cells.
template <int LogN>
struct bp8_shape {
    static constexpr int N = 1 << LogN;
    static constexpr int log_p = LogN / 2;
    static constexpr int P = 1 << log_p;
    static constexpr int log_m = LogN - log_p;
    static constexpr int M = 1 << log_m;
    static_assert(M >= 8, "bp8_stage: a cell holds two element pairs' words");
    static constexpr int frames_per_warp = 32 / P;
    static constexpr int pairs = M / 4; //!< element pairs a lane runs a stage
    static constexpr int cells = M / 8; //!< 64-bit cells of a lane in a layer
    //! Bytes from a lane's cell to its next: 8 P, or 8 P + 8 from N = 256 on. The meet
    //! copies read all M bytes of one lane at once (one from each lane), and with a
    //! stride of 8 P (a multiple of 128 from P = 16) its cells share their banks: M / 8
    //! wavefronts a load where one does. (At N = 512 the padding costs an SM one of its
    //! 11 frames, and gains 3 % all the same, H200.)
    static constexpr int cell_stride = 8 * P + (cells > 1 && P >= 16 ? 8 : 0);
    //! Bytes from a layer to the next: the lanes' cells span N + (cells - 1) (cell_stride
    //! - 8 P) bytes.
    static constexpr int pitch = N + (cells - 1) * (cell_stride - 8 * P);
    //! Layer l is stored at index l (contiguous, l <= log_m) or l + 1 (strided,
    //! l >= log_m): n + 2 layers, `pitch` bytes apart, for L from byte 0, then R's from
    //! r_off.
    //! R's messages are stored negated (the byte 128 - R), so that a stage's L + R is
    //! one subtraction of the unpacked values (bp8_stage).
    //! R's indices log_m and log_m + 1 share their bytes with L's (r_rel): the strided
    //! L[log_m] and the contiguous R[log_m] are read only by the meet copy after the
    //! stage that writes them, over the other layer of their index, which the stage
    //! has read (a lane's loads come before its stores) and nothing reads again before
    //! the next meet copy rewrites it. R[n] (layer index n + 1) is not stored: only the
    //! G-matrix test reads it, and it takes it from the registers of the right sweep's
    //! last stage (bp8_stage). So R stores n - 1 layers.
    static constexpr int r_off = (LogN + 2) * pitch;
    static constexpr int words =
        r_off + (LogN - 1) * pitch; //!< then N / 32 decision words
    //! Bytes from layer index idx of L to layer index idx of R.
    static __host__ __device__ constexpr int r_rel(int idx)
    {
        return idx < log_m ? r_off : idx <= log_m + 1 ? 0 : r_off - 2 * pitch;
    }
    //! A frame's bytes, padded so that the frames of a warp (a team's accesses span 8 P
    //! bytes) start on consecutive bank ranges: 8 P mod 128 apart modulo 128.
    static constexpr size_t frame_bytes = [] {
        const size_t raw = size_t(words) + 4 * (N / 32);
        const size_t phase = (8 * size_t(P)) % 128;
        return raw + (phase + 128 - raw % 128) % 128;
    }();
    //! Blocks of W warps an SM holds by shared memory (1 KB reserved a block), at
    //! most the blocks it allows.
    static constexpr int blocks_fit(int w)
    {
        const size_t fit = bp8_sm_smem / (w * frames_per_warp * frame_bytes + 1024);
        return fit < 1 ? 1 : int(fit > bp8_sm_blocks ? bp8_sm_blocks : fit);
    }
    //! Warps a block: the fewest (1 .. 4) that give an SM the most warps, up to 32 (on
    //! sm_90: 4 at N = 128, 2 at N = 256, else 1). The warps take frames from
    //! a counter, so a block's warps never wait for each other. It depends on the
    //! architecture: the host reads it from the kernel's attributes
    //! (maxThreadsPerBlock, the launch bounds of the device's binary).
    static constexpr int warps_per_block = [] {
        // At most 32 warps an SM count: past that the register cap (64 a thread)
        // spills (N = 32 with four-warp blocks, 64 warps: 2.68 Gb/s against 3.01).
        auto warps = [](int w) {
            return w * blocks_fit(w) < 32 ? w * blocks_fit(w) : 32;
        };
        int best = 1;
        for (int w = 2; w <= 4; w++)
            if (warps(w) > warps(best))
                best = w;
        return best;
    }();
    static constexpr int blocks_per_sm = blocks_fit(warps_per_block);
    //! x rotated right by r within log_m bits.
    static __host__ __device__ constexpr int rotr(int x, int r)
    {
        r %= log_m;
        return ((x >> r) | (x << (log_m - r))) & (M - 1);
    }
    static __host__ __device__ constexpr int rot1(int x) { return rotr(x, 1); }
    //! Rotation of the strided copy of layer log_m (its butterfly bit: log_m - log_p).
    static constexpr int r_meet = log_m - log_p + 1;
    //! Byte of 16-bit word w (< M/2) of lane `lane` in a layer: pair word w mod M/4
    //! (cell (w mod M/4) / 2, half w mod 2), its high 16 bits for w >= M/4.
    static __host__ __device__ constexpr int word_byte(int lane, int w)
    {
        return 8 * lane + cell_stride * ((w & (M / 4 - 1)) >> 1) + 4 * (w & 1) +
               2 * (w >> (log_m - 2));
    }
    //! Byte of position x of lane `lane` in an L layer, in an R layer. Both are sums
    //! over disjoint bits of x (and the lane), so a position's lane part and node part
    //! add.
    static __host__ __device__ constexpr int l_byte(int lane, int x)
    {
        return word_byte(lane, x & (M / 2 - 1)) + (x >> (log_m - 1));
    }
    static __host__ __device__ constexpr int r_byte(int lane, int x)
    {
        return word_byte(lane, x >> 1) + (x & 1);
    }
    //! A lane's byte at `offset` from its cell 0 (cell c, byte o: cell_stride c + o) as
    //! the index 8 c + o of its M bytes in cell order.
    static __host__ __device__ constexpr int cell_slot(int offset)
    {
        return offset / cell_stride * 8 + offset % cell_stride;
    }
};

//! A message v as stored (v + 128), and back.
__device__ __forceinline__ uint8_t bp8_byte(int v)
{
    return static_cast<uint8_t>(v + 128);
}
__device__ __forceinline__ int bp8_value(uint8_t b) { return int(b) - 128; }

//! Messages as halves with a bias whose ulp is 1 (1024 <= 1408 + v +/- 246 < 2048), so
//! that an FMA into it rounds to an integer: the half 1408 + v is 0x6500 | (v + 128),
//! its low byte the stored byte.
constexpr uint32_t bp8_half_1408 = 0x65806580u;
constexpr uint32_t bp8_half_2816 = 0x69806980u; // 2 x 1408 (exact: ulp 2 there)
constexpr uint32_t bp8_half_1281 = 0x65016501u, bp8_half_1535 = 0x65ff65ffu; // +/-127
constexpr uint32_t bp8_half_m1281 = 0xe501e501u, bp8_half_254 = 0x5bf05bf0u;
constexpr uint32_t bp8_half_one = 0x3c003c00u, bp8_half_m_one = 0xbc00bc00u;
constexpr uint32_t bp8_half_15_16 = 0x3b803b80u, bp8_half_m15_16 = 0xbb80bb80u;
constexpr uint32_t bp8_half_signs = 0x80008000u;

//! The two stored messages of the low (Hi = false) or high 16 bits of a pair word
//! (bytes a, b) as biased halves (1408 + a - 128, 1408 + b - 128): PRMT puts 0x65
//! (`k65`) above each byte (the half 1280 + byte).
template <bool Hi>
__device__ __forceinline__ __half2 bp8_unpack_biased(uint32_t w, uint32_t k65)
{
    return as_half2(__byte_perm(w, k65, Hi ? 0x4342 : 0x4140));
}
//! A biased pair as the values themselves.
__device__ __forceinline__ __half2 bp8_unbias(__half2 biased)
{
    return __hsub2(biased, as_half2(bp8_half_1408));
}
//! The stored bytes of two results: x's low half, y's low half, x's high half, y's
//! high half (two 16-bit words: the low halves' and the high halves').
__device__ __forceinline__ uint32_t bp8_bytes(uint32_t x, uint32_t y)
{
    return __byte_perm(x, y, 0x6240);
}

//! sign(a) sign(b) min(|a|, |b|) per half: one HMNMX2.XORSIGN on sm_86 and later.
__device__ __forceinline__ __half2 bp8_min_xorsign_abs(__half2 a, __half2 b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 860
    uint32_t x;
    asm("min.xorsign.abs.f16x2 %0, %1, %2;" : "=r"(x) : "r"(as_bits(a)), "r"(as_bits(b)));
    return as_half2(x);
#else
    return as_half2(as_bits(__hmin2(__habs2(a), __habs2(b))) |
                    ((as_bits(a) ^ as_bits(b)) & bp8_half_signs));
#endif
}
// polar_bp_int8::scaled_sum per half, biased, is one FMA: +/-15/16 x + c_biased (x =
// sign(a) sign(b) min(|a|, |b|), c_biased = 1408 + c), exact before its one rounding to
// the nearest integer with ties to even (ulp 1 there), as the rule rounds.
// tools/polar/bp8_half_rules.py checks it for every message triple.
//! A biased sum (polar_bp_int8::boxplus_add per half, plus 1408) saturated at 1408 +/-
//! 127: two HMNMX2 on the ALU pipe or, with `OnFmaPipe` on sm_80 and later, three FMAs,
//! two of them with a relu: 1535 - max(254 - max(s - 1281, 0), 0), exact (integers
//! below 2048). The ALU pipe is the kernel's busiest (ncu at N = 1024: 57 % of its
//! instructions, the FMA pipe 23 %); the FMA form's extra instruction and longer chain
//! pay where a scheduler has warps enough to hide it (H200 kernel-only, HMNMX2 / FMAs:
//! N = 32 4.65 / 4.82 Gb/s, 128 5.85 / 6.01, 256 12.2 / 12.7, 512 8.87 / 8.76, 1024
//! 12.5 / 12.5), so the small codes take it (bp8_stage).
template <bool OnFmaPipe>
__device__ __forceinline__ uint32_t bp8_clamp_biased(__half2 s)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (OnFmaPipe) {
        uint32_t low, high, out;
        asm("fma.rn.relu.f16x2 %0, %1, %2, %3;"
            : "=r"(low)
            : "r"(as_bits(s)), "r"(bp8_half_one), "r"(bp8_half_m1281));
        asm("fma.rn.relu.f16x2 %0, %1, %2, %3;"
            : "=r"(high)
            : "r"(low), "r"(bp8_half_m_one), "r"(bp8_half_254));
        asm("fma.rn.f16x2 %0, %1, %2, %3;"
            : "=r"(out)
            : "r"(high), "r"(bp8_half_m_one), "r"(bp8_half_1535));
        return out;
    }
#endif
    return as_bits(__hmin2(__hmax2(s, as_half2(bp8_half_1281)), as_half2(bp8_half_1535)));
}

//! Stores a lane's M bytes of a layer (bytes[i]: the byte at cell i / 8, byte i % 8;
//! one byte a word) from `lane0`, its cell 0, as whole 64-bit cells: a warp's byte
//! stores there took two wavefronts each (lanes 8 bytes apart), a cell's take two for
//! eight bytes (the meet copies, bp8 kernel).
//! The cells stored are also left in `cells` (the next stage's chained operand).
template <int LogN>
__device__ __forceinline__ void bp8_put_cells(uint8_t* lane0,
                                              const uint32_t (&bytes)[bp8_shape<LogN>::M],
                                              uint2 (&cells)[bp8_shape<LogN>::cells])
{
    using S = bp8_shape<LogN>;
    auto word = [&](int i) {
        return __byte_perm(__byte_perm(bytes[i], bytes[i + 1], 0x0040),
                           __byte_perm(bytes[i + 2], bytes[i + 3], 0x0040),
                           0x5410);
    };
#pragma unroll
    for (int c = 0; c < S::cells; c++) {
        cells[c] = make_uint2(word(8 * c), word(8 * c + 4));
        *reinterpret_cast<uint2*>(lane0 + S::cell_stride * c) = cells[c];
    }
}

//! Decision bits of a lane as one word, the "sign layout": the lane's node k (contiguous
//! lanes: node t M + k; strided lanes: node t + P k) at bit pos(k), which puts bit b of
//! k at bit sigma(b). It is the order in which the sign bits of a lane's stored bytes
//! gather with one shift a 32-bit word (bp8_u_bits, bp8_stage's last right stage), the
//! same for both layouts, so the G-matrix test transposes one into the other
//! (bp8_to_contiguous) without sorting bits. Up to M = 16 some bits stay unused (0).
template <int LogN>
struct bp8_bits {
    static constexpr int log_m = bp8_shape<LogN>::log_m, M = 1 << log_m;
    static __host__ __device__ constexpr int sigma(int b)
    {
        return b == 0 ? 3 : b == log_m - 1 ? 4 : b - 1;
    }
    static __host__ __device__ constexpr int pos(int k)
    {
        int p = 0;
        for (int b = 0; b < log_m; b++)
            p |= ((k >> b) & 1) << sigma(b);
        return p;
    }
};

//! A lane's 64-bit cell of shared memory, loaded again: the compiler would otherwise keep
//! the stage's first load live across the stage for the one use in its last stage.
__device__ __forceinline__ uint2 bp8_reload(const uint8_t* p)
{
    uint2 v;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
                 : "=r"(v.x), "=r"(v.y)
                 : "r"(static_cast<uint32_t>(__cvta_generic_to_shared(p))));
    return v;
}

//! One stage's processing elements of a lane: `base` is the lane's byte 0 (its cell 0)
//! in the stage's layer of L (layer s; L[s + 1] follows at + pitch), `r_layer` and
//! `r_next` its byte 0 in R[s] and (right sweeps) R[s + 1] (bp8_shape::r_rel). Pair
//! u = (2u, 2u + 1) reads pair word u of L[s + 1] and of R[s] (words u and u + M/4:
//! the layers' pairing, bp8_shape), both loads a cell (two pairs) at a time, and
//! writes: left, L[s] words 2u (positions 2u, 2u + M/2) and 2u + 1, which with pair u +
//! M/8's words 2u + M/4 and 2u + 1 + M/4 fill cell u; right, R[s + 1] at rot1 of 2u,
//! 2u + 1, 2u + M/2, 2u + 1 + M/2 = u, u + M/2, u + M/4, u + 3M/4, so that pairs u, u +
//! 1 (u even) fill pair words u/2 (their top results) and u/2 + M/8 (their bottom
//! ones). All loads come before the stores: the compiler cannot move a load above a
//! store to the same array.
//! The right sweep's last stage (`last`, s = n - 1) stores nothing: R[n] is read only by
//! the G-matrix test, which takes its lane's hard decisions of layer n (R + L < 0, the
//! stored bytes' sum below 256) from the results here when `extract`, as `x_bits` in the
//! sign layout (bp8_bits; node t + P i of strided lane t).
//! `chain` holds the lane's cells of the layer that the sweep's previous stage wrote
//! (left: L[s + 1]; right: R[s]) and leaves those this stage writes (L[s]; R[s + 1]):
//! within a phase a lane reads only what it wrote, so the stage takes that operand from
//! registers instead of loading it back right after its store (bp8_sweep).
template <int LogN, bool Left>
__device__ __forceinline__ void bp8_stage(uint8_t* base,
                                          const uint8_t* r_layer,
                                          uint8_t* r_next,
                                          uint32_t k65,
                                          bool last,
                                          bool extract,
                                          uint32_t& x_bits,
                                          uint2 (&chain)[bp8_shape<LogN>::cells])
{
    using S = bp8_shape<LogN>;
    constexpr int pitch = S::pitch, pairs = S::pairs, cells = S::cells,
                  stride = S::cell_stride;
    uint2 l_cell[cells], r_cell[cells];
#pragma unroll
    for (int c = 0; c < cells; c++) {
        if constexpr (Left) {
            l_cell[c] = chain[c];
            r_cell[c] = *reinterpret_cast<const uint2*>(r_layer + stride * c);
        } else {
            l_cell[c] = *reinterpret_cast<const uint2*>(base + pitch + stride * c);
            r_cell[c] = chain[c];
        }
    }
    uint32_t top[pairs], bottom[pairs]; // halves v + 1408
#pragma unroll
    for (int u = 0; u < pairs; u++) {
        const uint32_t lw = u % 2 ? l_cell[u / 2].y : l_cell[u / 2].x;
        const uint32_t rw = u % 2 ? r_cell[u / 2].y : r_cell[u / 2].x;
        const __half2 la_b = bp8_unpack_biased<false>(lw, k65),
                      lb_b = bp8_unpack_biased<true>(lw, k65);
        const __half2 ra_b = bp8_unpack_biased<false>(rw, k65),
                      rb_b = bp8_unpack_biased<true>(rw, k65);
        // R is stored negated (bp8_shape): ra_b, rb_b are 1408 - R, and ra is -R[s][i].
        const __half2 la = bp8_unbias(la_b), ra = bp8_unbias(ra_b);
        // L + R in one exact HSUB2 of the biased values (|L + R| <= 254).
        const __half2 sum = __hsub2(lb_b, rb_b);
        // boxplus(a, add(b, c)) without add's saturation: |a| <= 127, so min(|a|,
        // |b + c|) = min(|a|, sat(b + c)) and the signs agree (exact: |b + c| <= 254).
        // A negated operand of the box-plus negates its result, so the FMA's factor is
        // -15/16 where one of R's values meets a result that is not negated (left
        // bottom outputs, and the right sweep's last stage, whose R[n] goes to the
        // G-matrix test as it is) and 15/16 otherwise: the same exact sum before the
        // one rounding, which is symmetric (ties to even), as the saturation is.
        const __half2 plus = as_half2(bp8_half_15_16), minus = as_half2(bp8_half_m15_16);
        top[u] = as_bits(__hfma2(bp8_min_xorsign_abs(Left ? la : ra, sum),
                                 last ? minus : plus,
                                 as_half2(bp8_half_1408)));
        // Right: R'[s+1][j] = f(-R[s][i], L) + R'[s][j]; R[n][j] = f(R[s][i], L) +
        // R[s][j] needs R[s][j] biased, 2816 - rb_b.
        const __half2 c_biased = Left   ? lb_b
                                 : last ? __hsub2(as_half2(bp8_half_2816), rb_b)
                                        : rb_b;
        bottom[u] = bp8_clamp_biased<(LogN <= 8)>(
            __hfma2(bp8_min_xorsign_abs(ra, la), Left || last ? minus : plus, c_biased));
    }
    if constexpr (Left) {
#pragma unroll
        for (int u = 0; u < cells; u++) { // pairs u and u + M/8 fill cell u
            const uint32_t a = bp8_bytes(top[u], bottom[u]);
            const uint32_t b = bp8_bytes(top[u + cells], bottom[u + cells]);
            chain[u] = make_uint2(__byte_perm(a, b, 0x5410), __byte_perm(a, b, 0x7632));
            *reinterpret_cast<uint2*>(base + stride * u) = chain[u];
        }
    } else if (!last) {
        if constexpr (cells == 1) { // M = 8: pair words 0 (tops) and 1 (bottoms)
            chain[0] =
                make_uint2(bp8_bytes(top[0], top[1]), bp8_bytes(bottom[0], bottom[1]));
            *reinterpret_cast<uint2*>(r_next) = chain[0];
        } else {
#pragma unroll
            for (int u = 0; u < pairs; u += 4) { // pair words u/2, u/2 + 1: cell u/4
                chain[u / 4] = make_uint2(bp8_bytes(top[u], top[u + 1]),
                                          bp8_bytes(top[u + 2], top[u + 3]));
                chain[u / 4 + cells / 2] =
                    make_uint2(bp8_bytes(bottom[u], bottom[u + 1]),
                               bp8_bytes(bottom[u + 2], bottom[u + 3]));
                *reinterpret_cast<uint2*>(r_next + stride * (u / 4)) = chain[u / 4];
                *reinterpret_cast<uint2*>(r_next + stride * (u / 4 + cells / 2)) =
                    chain[u / 4 + cells / 2];
            }
        }
    } else if (extract) {
        // Pair u's results sit at positions u, u + M/2 (top) and u + M/4, u + 3M/4
        // (bottom), the bytes of L[n]'s pair word u in that order. Byte j's sign goes to
        // bit 8 j + u: node rotl1(u + M/2 (j & 1) + M/4 (j >> 1)) at bit pos() of it.
        uint32_t bits = 0;
#pragma unroll
        for (int c = 0; c < cells; c++) {
            const uint2 cell = bp8_reload(base + pitch + stride * c);
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int u = 2 * c + h;
                const uint32_t l = h ? cell.y : cell.x;
                const uint32_t r = __byte_perm(top[u], bottom[u], 0x6420);
                // Carry out of each byte's sum (bit 7 of the majority of both and the
                // sum of their low 7 bits): set where L + R >= 0.
                const uint32_t low = (r & 0x7f7f7f7fu) + (l & 0x7f7f7f7fu);
                const uint32_t carry = (r & l) | ((r | l) & low);
                bits = add_shifted_right(~carry & 0x80808080u, 7 - u, bits);
            }
        }
        x_bits = bits;
    }
}

//! A sweep of the n stages (left: n-1 .. 0; right: 0 .. n-1) over the lane's layers
//! from `own` (its byte 0 of layer index 0). `meet(chain)` copies layer log_m across the
//! phases before the first stage that reads the copy (left: s = log_m - 1 reads L,
//! right: s = log_m reads R). Up to N = 256 each phase's stages run in a loop of their
//! own, whose R offsets (bp8_shape::r_rel) are constants, the two stages beside the
//! meet apart; up to N = 128 those loops are unrolled. Larger sweeps are one loop, the
//! offsets chosen at run time: their code would outgrow the instruction cache (H200,
//! kernel-only, against one loop: unrolled, N = 32 gained 24 % and N = 128 6 %, N =
//! 256 lost 17 %; phase loops gained 6 % at N = 256 and lost 16-17 % at N = 512, 1024).
//! A right sweep's last stage gives the hard decisions of layer n as `x_bits` when
//! `extract` (bp8_stage); it runs after the loops, so that the loops' code does not
//! grow (H200, a lone frame at N = 1024: 57.4 us with it inside the loop, 55.5 after
//! it; N = 512 44.5 and 41.9. The byte-wise test before took 49.6 and 42.2: the CRC
//! syndrome, run twice a stopped frame, was the rest, docs/polar-gpu.md session 18).
//! The stages pass the layer one writes and the next reads in registers (`chain`,
//! bp8_stage), the meet its copy; a sweep loads only its first such layer (left: the
//! channel L[n]; right: the prior R[0]). `chain` ends as the last stage's cells (left:
//! L[0]).
template <int LogN, bool Left, typename Meet>
__device__ __forceinline__ void bp8_sweep(uint8_t* own,
                                          uint32_t k65,
                                          Meet meet,
                                          bool extract,
                                          uint32_t& x_bits,
                                          uint2 (&chain)[bp8_shape<LogN>::cells])
{
    using S = bp8_shape<LogN>;
    constexpr int n = LogN, pitch = S::pitch, log_m = S::log_m;
    {
        const uint8_t* first = Left ? own + (n + 1) * pitch : own + S::r_rel(0);
#pragma unroll
        for (int c = 0; c < S::cells; c++)
            chain[c] = *reinterpret_cast<const uint2*>(first + S::cell_stride * c);
    }
    if constexpr (LogN <= 8) {
        constexpr int unroll = LogN <= 7 ? LogN : 1;
        constexpr int strided = S::r_rel(log_m + 2), contiguous = S::r_rel(log_m - 1);
        static_assert(S::r_rel(n + 1) == strided && S::r_rel(0) == contiguous &&
                          S::r_rel(log_m) == 0 && S::r_rel(log_m + 1) == 0,
                      "bp8_sweep: R's offsets by phase");
        auto stage = [&](int idx, int r_at, int r_next_at, bool last = false) {
            uint8_t* const base = own + idx * pitch;
            bp8_stage<LogN, Left>(base,
                                  base + r_at,
                                  base + pitch + r_next_at,
                                  k65,
                                  last,
                                  extract,
                                  x_bits,
                                  chain);
        };
        if constexpr (Left) {
#pragma unroll(unroll)
            for (int s = n - 1; s > log_m; s--)
                stage(s + 1, strided, strided);
            stage(log_m + 1, 0, strided);
            meet(chain);
            stage(log_m - 1, contiguous, 0);
#pragma unroll(unroll)
            for (int s = log_m - 2; s >= 0; s--)
                stage(s, contiguous, contiguous);
        } else {
#pragma unroll(unroll)
            for (int s = 0; s < log_m - 1; s++)
                stage(s, contiguous, contiguous);
            stage(log_m - 1, contiguous, 0);
            meet(chain);
            stage(log_m + 1, 0, strided);
#pragma unroll(unroll)
            for (int s = log_m + 1; s < n - 1; s++)
                stage(s + 1, strided, strided);
            stage(n, strided, strided, true);
        }
    } else {
        constexpr int meet_stage = Left ? log_m - 1 : log_m;
        // Stage s works on layer index s (contiguous) or s + 1 (strided).
        auto stage = [&](int idx, bool last) {
            uint8_t* const base = own + idx * pitch;
            bp8_stage<LogN, Left>(base,
                                  base + S::r_rel(idx),
                                  base + pitch + S::r_rel(idx + 1),
                                  k65,
                                  last,
                                  extract,
                                  x_bits,
                                  chain);
        };
#pragma unroll 1
        for (int step = 0; step < (Left ? n : n - 1); step++) {
            const int s = Left ? n - 1 - step : step;
            if (s == meet_stage)
                meet(chain);
            stage(s + (s >= log_m), false);
        }
        if constexpr (!Left)
            stage(n, true); // s = n - 1
    }
}

//! Hard decisions of the lane's nodes of layer 0 in the sign layout (bp8_bits), before
//! the frozen mask: L[0] < 0. R[0] is the prior, 0 on information bits; on frozen ones
//! it is 127, where L + R >= 0 always (|L| <= 127), so the caller masks them out. A
//! stored byte v + 128 is negative where its bit 7 is clear. The last left stage wrote
//! node 4 (c + cells h1) + 2 h + h0 to byte h0 + 2 h1 of word h of cell c: with
//! one shift a word it lands at bit 8 (h0 + 2 h1) + 2 c + h = pos() of it.
template <int LogN>
__device__ __forceinline__ uint32_t
bp8_u_bits(const uint2 (&cells)[bp8_shape<LogN>::cells])
{
    using S = bp8_shape<LogN>;
    uint32_t bits = 0;
#pragma unroll
    for (int c = 0; c < S::cells; c++) {
        const uint2 cell = cells[c];
        bits = add_shifted_right(~cell.x & 0x80808080u, 7 - 2 * c, bits);
        bits = add_shifted_right(~cell.y & 0x80808080u, 6 - 2 * c, bits);
    }
    return bits;
}
//! The same from the lane's cells of L[0] in shared memory.
template <int LogN>
__device__ __forceinline__ uint32_t bp8_u_bits(const uint8_t* own)
{
    using S = bp8_shape<LogN>;
    uint2 cells[S::cells];
#pragma unroll
    for (int c = 0; c < S::cells; c++)
        cells[c] = *reinterpret_cast<const uint2*>(own + S::cell_stride * c);
    return bp8_u_bits<LogN>(cells);
}

//! A word in the sign layout (bp8_bits) in node order (bit k: the lane's node k), or
//! (ToNatural false) back. Bit by bit: it runs once a frame or where the G-matrix test
//! passes.
template <int LogN, bool ToNatural>
__device__ __forceinline__ uint32_t bp8_reorder(uint32_t w)
{
    using B = bp8_bits<LogN>;
    uint32_t r = 0;
#pragma unroll
    for (int k = 0; k < B::M; k++) {
        const int from = ToNatural ? B::pos(k) : k, to = ToNatural ? k : B::pos(k);
        r |= ((w >> from) & 1u) << to;
    }
    return r;
}

//! The strided lanes' decisions (lane t, node t + P i at bit pos(i); node v has lane bits
//! v mod P and position bits from v / P) as the contiguous lanes' (lane v / M, position
//! bits from v mod M), both in the sign layout. Each round swaps a lane bit b with the
//! position bit c between partner lanes t, t ^ 2^b (the element at lane L, position x
//! moves to the lane with bit b = bit c of x, the position with bit c = bit b of L).
//! With M = P, rounds b < log2 P with c = sigma(b) give node bit b its place in the
//! position and node bit log2 M + b its lane bit. With M = 2 P node bit log2 P is a
//! position bit in both: one more round (lane bit 0, sigma(log2 M - 1)) puts it there,
//! and the lanes are then rotated by one bit, which one shuffle undoes.
template <int LogN>
__device__ __forceinline__ uint32_t bp8_to_contiguous(uint32_t w,
                                                      int t,
                                                      unsigned team_mask)
{
    using S = bp8_shape<LogN>;
    using B = bp8_bits<LogN>;
    constexpr uint32_t high[5] = {
        0xAAAAAAAAu, 0xCCCCCCCCu, 0xF0F0F0F0u, 0xFF00FF00u, 0xFFFF0000u
    }; // positions with bit c set
    auto swap = [&](int b, int c) {
        const uint32_t o = __shfl_xor_sync(team_mask, w, 1 << b, S::P);
        const bool upper = (t >> b) & 1;
        const uint32_t moved = upper ? o >> (1 << c) : o << (1 << c);
        w ^= (w ^ moved) & (upper ? ~high[c] : high[c]);
    };
#pragma unroll
    for (int b = 0; b < S::log_p; b++)
        swap(b, B::sigma(b));
    if constexpr (S::log_m > S::log_p) {
        swap(0, B::sigma(S::log_m - 1));
        w = __shfl_sync(
            team_mask, w, ((t << 1) | (t >> (S::log_p - 1))) & (S::P - 1), S::P);
    }
    return w;
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
    if constexpr (LogN >= 7) {
        // Eight payload bits a lane at a time, their positions and CRC columns loaded
        // together and unconditionally: one round trip to the tables (L1 is small
        // beside the frames' shared memory) for eight bits, where a bit at a time
        // waited twice. Not below N = 128, where a lane has few bits (N = 32: 5 %
        // slower with it, H200).
        constexpr int batch = 8;
        for (int j0 = t; j0 < p.k; j0 += batch * S::P) {
            uint32_t position[batch], column[batch];
#pragma unroll
            for (int b = 0; b < batch; b++) {
                const int j = j0 + b * S::P;
                position[b] = j < p.k ? __ldg(p.info + j) : 0u;
                column[b] = j < p.k ? __ldg(p.crc_column + j) : 0u;
            }
#pragma unroll
            for (int b = 0; b < batch; b++)
                parity ^= column[b] & (0u - bit(position[b]));
        }
    } else {
        for (int j = t; j < p.k; j += S::P)
            if (bit(p.info[j]))
                parity ^= p.crc_column[j];
    }
    for (int j = t; j < p.crc_len; j += S::P)
        parity ^= bit(p.info[p.k + j]) << j;
    for (int o = S::P / 2; o > 0; o /= 2)
        parity ^= __shfl_xor_sync(team_mask, parity, o, S::P);
    return parity ^ p.crc_zero;
}

//! u G_N over the team's decisions (lane t: node t M + k at bit pos(k), bp8_bits).
template <int LogN>
__device__ __forceinline__ uint32_t bp8_transform(uint32_t w, int t, unsigned team_mask)
{
    using S = bp8_shape<LogN>;
    using B = bp8_bits<LogN>;
    constexpr uint32_t keep[5] = {
        0x55555555u, 0x33333333u, 0x0F0F0F0Fu, 0x00FF00FFu, 0x0000FFFFu
    }; // positions with bit c clear
#pragma unroll
    for (int b = 0; b < S::log_m; b++)
        w ^= (w >> (1 << B::sigma(b))) & keep[B::sigma(b)];
#pragma unroll
    for (int d = 1; d < S::P; d *= 2) {
        const uint32_t other = __shfl_down_sync(team_mask, w, d, S::P);
        if ((t & d) == 0)
            w ^= other;
    }
    return w;
}

template <int LogN>
__global__ void __launch_bounds__(32 * bp8_shape<LogN>::warps_per_block,
                                  bp8_shape<LogN>::blocks_per_sm)
    polar_bp8_kernel(const polar_params p)
{
    using S = bp8_shape<LogN>;
    constexpr int n = LogN, pitch = S::pitch, P = S::P, M = S::M, log_m = S::log_m,
                  log_p = S::log_p, r_off = S::r_off;
    constexpr int d = log_m - log_p;
    extern __shared__ __align__(16) uint8_t bp8_smem[];
    const int lane = threadIdx.x % 32, team = lane / P, t = lane % P;
    const unsigned team_mask = P == 32 ? 0xffffffffu : ((1u << P) - 1u) << (team * P);
    uint8_t* const frame =
        bp8_smem + (threadIdx.x / 32 * S::frames_per_warp + team) * S::frame_bytes;
    uint32_t* const words = reinterpret_cast<uint32_t*>(frame + S::words);
    uint8_t* const own = frame + S::word_byte(t, 0); // the lane's cell 0 of layer 0
    // The copy of layer log_m reads from meet_l: t's part of a node's byte there (the
    // rest is a constant per node). The prior's and R's copy take t's part of a
    // position (prior_t), ORed with the node's part before r_byte.
    const uint8_t* const meet_l =
        frame + (log_m + 1) * pitch + S::l_byte(0, S::rotr(t << d, S::r_meet));
    uint8_t* const prior_r = frame + r_off;
    const int prior_t = S::rot1(t); // t's part of its nodes' positions in layer 0
    // The unpack's 0x65 in a register the compiler cannot fold: with both PRMT
    // operands constant, ptxas put the selector in a register and copied it before
    // every unpack (2.7-6 % slower on an H200, docs/polar-gpu.md).
    uint32_t k65 = 0x65u;
    {
        uint32_t smem_size;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(smem_size));
        k65 |= smem_size >> 31; // shared memory is far below 2 GB
    }
    // The lane's information bits (its nodes t M + k not frozen) in the sign layout:
    // where hard decisions of layer 0 can be 1 (bp8_u_bits).
    uint32_t info_bits;
    if constexpr (M == 32)
        info_bits = ~bp8_reorder<LogN, false>(__ldg(p.frozen_words + t));
    else
        info_bits = ~bp8_reorder<LogN, false>(__ldg(p.frozen_words + ((t * M) >> 5)) >>
                                              ((t * M) & 31)) &
                    bp8_reorder<LogN, false>((1u << M) - 1u);
    // Frames come from the launch's counter (p.next_frame, 0 at the launch). Without a
    // counter the grid holds the batch: a warp takes the frames of its place only.
    const uint32_t placed =
        (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * S::frames_per_warp;
    bool first_take = true;
    // Up to two frames a warp, a warp takes one frame a team at once, so a warp whose
    // frames stop early starts others at once, whatever the other warps of its block do,
    // and its teams run in step. (Each team taking its own frame, its own loop, measured
    // the same, docs/polar-gpu.md.) From four frames a warp each team takes its own
    // (team_frames below).
    constexpr bool team_frames = S::frames_per_warp >= 4;
    auto next_frame = [&] {
        if (!p.next_frame) {
            const uint32_t f = first_take ? placed : p.num_frames; // then: done
            first_take = false;
            return f + team;
        }
        uint32_t f = 0;
        if (team_frames ? t == 0 : lane == 0)
            f = atomicAdd(p.next_frame, uint32_t(team_frames ? 1 : S::frames_per_warp));
        return team_frames ? __shfl_sync(team_mask, f, 0, P)
                           : __shfl_sync(0xffffffffu, f, 0) + team;
    };
    // Layer log_m's copies across the phases (each lane its nodes): L strided ->
    // contiguous in a left sweep, R contiguous -> strided in a right one.
    // The bytes are gathered one at a time and stored as whole cells (bp8_put_cells).
    auto left_meet = [&](uint2(&chain)[S::cells]) {
        __syncwarp(team_mask);
        uint32_t bytes[M];
#pragma unroll
        for (int k = 0; k < M; k++)
            bytes[S::cell_slot(S::l_byte(0, S::rot1(k)))] =
                meet_l[S::l_byte(k % P, S::rotr(k >> log_p, S::r_meet))];
        bp8_put_cells<LogN>(own + log_m * pitch, bytes, chain);
    };
    auto right_meet = [&](uint2(&chain)[S::cells]) {
        __syncwarp(team_mask);
        uint32_t bytes[M];
#pragma unroll
        for (int k = 0; k < M; k++)
            bytes[S::cell_slot(S::r_byte(0, S::rotr(k, S::r_meet)))] =
                frame[log_m * pitch + S::r_rel(log_m) +
                      S::r_byte((P * k) >> log_m, prior_t | S::rot1((P * k) & (M - 1)))];
        bp8_put_cells<LogN>(
            own + (log_m + 1) * pitch + S::r_rel(log_m + 1), bytes, chain);
    };
    // A frame's start: the channel, the prior and R's messages in its shared memory.
    auto start_frame = [&](const frame_extent& fe) {
        const llr8_t* in = p.in + fe.in_offset;
        // Channel (layer n of L): the received sum saturated, known zeros at 127;
        // R: the prior at layer 0 (127 on frozen bits, stored negated), 0 elsewhere. All
        // M of the lane's nodes t + P i at once, in passes, so that their global loads
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
                own[(n + 1) * pitch + S::l_byte(0, S::rot1(i))] =
                    bp8_byte(__ldg(p.fill + node) != 0.0f ? polar_bp_int8::known_zero
                                                          : min(max(sum[i], -127), 127));
                // Node t + P i is the contiguous lane P i / M's node t + P i % M.
                prior_r[S::r_byte((P * i) >> log_m,
                                  prior_t | S::rot1((P * i) & (M - 1)))] =
                    bp8_byte(__ldg(p.frozen + node) ? -polar_bp_int8::known_zero : 0);
            }
        }
        {
            // Messages 0: R's own layers after the prior, and the strided R[log_m]
            // (the first left sweep reads it; its contiguous copy is written first).
            uint32_t* r = reinterpret_cast<uint32_t*>(frame + r_off + pitch);
            for (int w = t; w < (n - 2) * pitch / 4; w += P)
                r[w] = 0x80808080u;
            uint32_t* r_meet = reinterpret_cast<uint32_t*>(frame + (log_m + 1) * pitch +
                                                           S::r_rel(log_m + 1));
            for (int w = t; w < pitch / 4; w += P)
                r_meet[w] = 0x80808080u;
        }
        __syncwarp(team_mask);
    };
    // The stopping test after an iteration's right sweep (u: u_hat from its left sweep,
    // x_bits: layer n's hard decisions from the right sweep's last stage): u_hat G_N
    // against x_hat, then the CRC of u_hat. Both in the sign layout (bp8_bits), x_hat
    // moved to the contiguous lanes. Where it stops the frame its words and syndrome
    // are the frame's, not computed again.
    auto stops = [&](uint32_t u, uint32_t x_bits, uint32_t& syndrome) {
        if (__any_sync(team_mask,
                       bp8_transform<LogN>(u, t, team_mask) !=
                           bp8_to_contiguous<LogN>(x_bits, t, team_mask)))
            return false;
        bp8_store_words<LogN>(words, bp8_reorder<LogN, true>(u), t, team_mask);
        syndrome = bp8_syndrome<LogN>(p, words, t, team_mask);
        return crc_accepts(p, syndrome);
    };
    // A frame's end: its hard and soft output and status (its extent `kept` in
    // registers, or read again).
    auto finish_frame = [&](uint32_t f,
                            const frame_extent* kept,
                            int it,
                            bool stopped,
                            uint32_t syndrome) {
        __syncwarp(team_mask);
        const frame_extent fe = kept ? *kept : p.frames[f];
        if (!stopped) {
            bp8_store_words<LogN>(
                words,
                bp8_reorder<LogN, true>(bp8_u_bits<LogN>(own) & info_bits),
                t,
                team_mask);
            syndrome = bp8_syndrome<LogN>(p, words, t, team_mask);
        }
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
                const int lane_i = i >> log_m, x = S::rot1(i & (M - 1));
                p.soft[8 * fe.out_offset + j] =
                    static_cast<float>(bp8_value(frame[S::l_byte(lane_i, x)]) -
                                       bp8_value(frame[r_off + S::r_byte(lane_i, x)]));
            }
        if (t == 0)
            p.status[f] = frame_status{ it, ok };
        __syncwarp(team_mask); // the buffers are reused by the next frame
    };
    uint2 chain[S::cells]; // bp8_sweep
    if constexpr (!team_frames) {
        for (uint32_t f = next_frame();; f = next_frame()) {
            // f - team: the group's first frame, the same for the whole warp.
            if (f - team >= p.num_frames)
                break;
            if (f >= p.num_frames)
                continue; // the last group's teams past the batch
            const frame_extent fe = p.frames[f];
            start_frame(fe);
            int it = 1;
            uint32_t x_bits = 0;
            bool stopped = false;
            uint32_t syndrome = 0;
            for (;; it++) {
                bp8_sweep<LogN, true>(own, k65, left_meet, false, x_bits, chain);
                if (it == p.iterations)
                    break;
                // u_hat from the left sweep's L[0], still in registers.
                const uint32_t u = bp8_u_bits<LogN>(chain) & info_bits;
                bp8_sweep<LogN, false>(
                    own, k65, right_meet, p.early_termination, x_bits, chain);
                __syncwarp(team_mask);
                if (!p.early_termination)
                    continue;
                stopped = stops(u, x_bits, syndrome);
                if (stopped)
                    break;
            }
            finish_frame(f, &fe, it, stopped, syndrome);
        }
    } else {
        // Each team decodes frames of its own and takes the next one as soon as its
        // frame stops, while the warp's teams run their sweeps in step (the same
        // instructions, whatever iteration each frame is at): a warp takes as long as
        // its frames' mean iteration count, not as its slowest frame of the group (at N
        // = 32, 3 dB, a frame error rate of ~0.4, some frame of eight runs the 50
        // iterations in nearly every group). H200, kernel-only, groups / own frames:
        // N = 32 4.85 / 7.09 Gb/s, 128 6.01 / 7.91-8.00; at two frames a warp the
        // frames' starts and ends apart cost more than the groups lose (N = 256 12.7 /
        // 12.2, 512 8.86 / 7.41). A team without a frame (the batch's end) sweeps its
        // old one, unread.
        uint32_t f = next_frame();
        bool active = f < p.num_frames;
        int it = 1;
        uint32_t x_bits = 0, syndrome = 0;
        bool stopped = false;
        auto start = [&] {
            start_frame(p.frames[f]);
            it = 1;
            x_bits = 0;
            syndrome = 0;
            stopped = false;
        };
        if (active)
            start();
        while (__any_sync(0xffffffffu, active)) {
            __syncwarp();
            bp8_sweep<LogN, true>(own, k65, left_meet, false, x_bits, chain);
            // A frame ends after its last left sweep; its right sweep below then goes
            // unread (R[0] and L[0], which the outputs read, are not written there).
            bool done = it == p.iterations;
            const uint32_t u = bp8_u_bits<LogN>(chain) & info_bits;
            bp8_sweep<LogN, false>(
                own, k65, right_meet, p.early_termination, x_bits, chain);
            __syncwarp(team_mask);
            if (active && !done && p.early_termination) {
                stopped = stops(u, x_bits, syndrome);
                done = stopped;
            }
            if (active && done) {
                finish_frame(f, nullptr, it, stopped, syndrome);
                f = next_frame();
                active = f < p.num_frames;
                if (active)
                    start();
            } else {
                it++;
            }
        }
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
    using S = bp8_shape<LogN>;
    return { polar_bp8_kernel<LogN>, S::frames_per_warp, S::frame_bytes };
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
