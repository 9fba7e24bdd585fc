/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Tensor-core Viterbi kernel for K=7 rate-1/2 codes (after "Viterbi decoding on tensor
// cores"): radix-4 steps (two trellis stages), one warp per decode window.
//
// Dragonfly j (0..15) joins the predecessors p = j | x << 4 (x = 0..3) to the successors
// s'' = j << 2 | y (y = 0..3, the two input bits). The 16 candidates of all 16
// dragonflies form one 16x16 tile D[c = 4x + y][j] = pm[j | x << 4] + bm(j, x, y).
// Every output bit is the parity of disjoint register parts (x/y bits and j bits), so
// each sign factors as f(x, y) * g(j) and the branch metrics are a rank-4 product:
//   D = A x B + C,  A[c][k] = f_k(x, y),  B[k][j] = g_k(j) * L_k,  C[c][j] = pm[j | x <<
//   4]
// with L_0..3 the two stages' LLRs. Two mma.m16n8k8 (fp16 A/B, fp32 C/D) per step.
// Everything is an integer below 2^24, so fp32 is exact and the hard decisions equal
// the int32 reference; max/select runs on CUDA cores with the radix-2 tie-breaks:
// first the pair sharing the intermediate state (x vs x + 2, lower on ties), then the
// two pairs (intermediate top bit 0 wins ties). A window with an odd stage count ends
// with one radix-2 step (stage-2 LLRs zero, pair maxima only).
#include "../common/cuda_utils.h"
#include "kernel_bench.cuh"
#include "viterbi_cuda.h"
#include "viterbi_kernels.cuh"
#include <cuda_fp16.h>
#include <gpufec/viterbi.h>
#include <algorithm>
#include <string>

namespace gpufec {
namespace cuda {
namespace {

constexpr int tc_warps_per_block = 4;
constexpr int tc_steps_per_chunk = 8; //!< radix-4 steps per 128-byte decision chunk
//! "Minus infinity" of the initial metrics: far below any real path, and sums stay
//! integers below 2^24 (exact in fp32).
constexpr float tc_neg_inf = -4194304.0f; // -(1 << 22)

struct viterbi_tc_params {
    const int8_t* llrs;
    uint8_t* out;
    const viterbi_window* windows;
    uint32_t* decisions; //!< [window][chunk][32 words]; word (step % 8) * 4 + q
    int32_t num_windows;
    int32_t chunks; //!< decision chunks per window
    uint32_t tap0;
    uint32_t tap1;
    uint64_t keep_mask;
    int32_t period;
};

__device__ __forceinline__ float sign_of(uint32_t reg, uint32_t tap)
{
    return (__popc(reg & tap) & 1) ? -1.0f : 1.0f;
}

__device__ __forceinline__ uint32_t pack_half2(float lo, float hi)
{
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
}

//! D = A x B + C for one 16x8x8 tile (fp16 inputs, fp32 accumulators).
__device__ __forceinline__ void
mma_16x8x8(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t b, const float (&c)[4])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%7,%8,%9,%10};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a0), "r"(a1), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}

/*!
 * Tile layout: rows = dragonflies, columns = candidates, so each lane's accumulator
 * fragment holds all four candidates of two successors and the whole max/select stays
 * in the lane. Lane (g = lane / 4, q = lane % 4): rows g and g + 8 (dragonflies j = g,
 * g + 8), columns 2q, 2q + 1 of two n8 tiles: tile 0 = predecessors x = 0, 2, tile 1 =
 * x = 1, 3, all for y = q. Its successors are j << 2 | q: states lane and lane + 32.
 *   A[j][k] = g_k(j) L_k (this step's LLRs), B[k][c] = f_k(x, y) (constant),
 *   C[j][c] = pm[j | x << 4]: the eight states = g (mod 8), stored contiguously in
 *   shared memory at (s % 8) * 8 + s / 8, so two 16-byte loads fetch them.
 * Decisions: four ballots per step, word 2h + b = bit b of x for state lane + 32 h.
 */
//! MIN_BLOCKS: resident blocks asked of the register allocator (8: up to 64 registers,
//! 12: 40 registers, 48 warps per SM).
template <bool PUNCTURED, int MIN_BLOCKS>
__global__ void __launch_bounds__(tc_warps_per_block * 32, MIN_BLOCKS)
    viterbi_tc_kernel(const viterbi_tc_params p)
{
    __shared__ __align__(16) float pm_buf[tc_warps_per_block][2][64];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int w = blockIdx.x * tc_warps_per_block + warp;
    if (w >= p.num_windows) // warp-uniform
        return;
    const viterbi_window win = p.windows[w];
    const int8_t* in = p.llrs + win.in_base;
    const int g = lane >> 2, q = lane & 3;

    // k = 0, 1: stage-1 outputs (register parts x << 5 | y >> 1 and j << 1);
    // k = 2, 3: stage-2 outputs ((x & 1) << 6 | y and j << 2); k >= 4 unused.
    auto tap_of = [&](int k) { return (k & 1) ? p.tap1 : p.tap0; };
    auto f_sign = [&](int x, int y, int k) {
        return sign_of(k < 2 ? ((x << 5) | (y >> 1)) : (((x & 1) << 6) | y), tap_of(k));
    };
    auto g_sign = [&](int j, int k) {
        return sign_of(k < 2 ? (j << 1) : (j << 2), tap_of(k));
    };
    uint32_t b_even = 0,
             b_odd = 0; // B columns g of tile 0 (x = 0 / 2) and tile 1 (1 / 3)
    __half2 ga_lo = __floats2half2_rn(0.f, 0.f), ga_hi = ga_lo;
    if (q < 2) {
        const int y = g >> 1, xe = (g & 1) ? 2 : 0, xo = (g & 1) ? 3 : 1;
        b_even = pack_half2(f_sign(xe, y, 2 * q), f_sign(xe, y, 2 * q + 1));
        b_odd = pack_half2(f_sign(xo, y, 2 * q), f_sign(xo, y, 2 * q + 1));
        ga_lo = __floats2half2_rn(g_sign(g, 2 * q), g_sign(g, 2 * q + 1));
        ga_hi = __floats2half2_rn(g_sign(g + 8, 2 * q), g_sign(g + 8, 2 * q + 1));
    }

    float(*pm)[64] = pm_buf[warp];
    auto slot_of = [](int s) { return (s & 7) * 8 + (s >> 3); };
    pm[0][slot_of(lane)] = (win.start_state0 && lane != 0) ? tc_neg_inf : 0.0f;
    pm[0][slot_of(lane + 32)] = win.start_state0 ? tc_neg_inf : 0.0f;
    __syncwarp();

    const int nfull = win.steps >> 1;
    const int total = nfull + (win.steps & 1);
    uint32_t* dec = p.decisions + static_cast<size_t>(w) * p.chunks * 32;

    // LLR fetch, one step ahead. Unpunctured: lane q < 2 follows stage t0 + 2k + q.
    int st = win.t0 + q;
    if (st >= win.stages)
        st -= win.stages;
    int t = win.t0; // punctured: warp-uniform walk as in the reference kernel
    uint32_t idx = win.idx0;
    int phase = win.phase0;
    auto fetch = [&](int k, int& la, int& lb) {
        la = lb = 0;
        const bool want = q == 0 || (q == 1 && k < nfull);
        if constexpr (!PUNCTURED) {
            if (want) {
                la = __ldg(in + 2 * st);
                lb = __ldg(in + 2 * st + 1);
            }
            st += 2;
            if (st >= win.stages)
                st -= win.stages;
            if (st >= win.stages)
                st -= win.stages;
        } else {
            uint32_t pos[4];
            bool keep[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                keep[i] = (p.keep_mask >> phase) & 1u;
                pos[i] = idx;
                idx += keep[i];
                phase = (phase + 1 == p.period) ? 0 : phase + 1;
                if ((i & 1) && ++t == win.stages) {
                    t = 0;
                    idx = 0;
                    phase = 0;
                }
            }
            if (want) {
                const bool ka = q == 0 ? keep[0] : keep[2];
                const bool kb = q == 0 ? keep[1] : keep[3];
                la = ka ? __ldg(in + (q == 0 ? pos[0] : pos[2])) : 0;
                lb = kb ? __ldg(in + (q == 0 ? pos[1] : pos[3])) : 0;
            }
        }
    };
    int la, lb;
    fetch(0, la, lb);

    int cur = 0;
    uint32_t chunk_word = 0;
    for (int k = 0; k < total; ++k) {
        const bool radix2 = k == nfull; // odd stage count: the last step is one stage
        const __half2 l2 = __halves2half2(__int2half_rn(la), __int2half_rn(lb));
        if (k + 1 < total)
            fetch(k + 1, la, lb);
        const __half2 alo = __hmul2(ga_lo, l2), ahi = __hmul2(ga_hi, l2);
        const uint32_t a_lo = *reinterpret_cast<const uint32_t*>(&alo);
        const uint32_t a_hi = *reinterpret_cast<const uint32_t*>(&ahi);

        const float4 m03 = *reinterpret_cast<const float4*>(&pm[cur][g * 8]);
        const float4 m47 = *reinterpret_cast<const float4*>(&pm[cur][g * 8 + 4]);
        // pm[g + 8 m] = m_m: x = m / 2 for row g (m even), row g + 8 (m odd).
        const float C0[4] = { m03.x, m47.x, m03.y, m47.y }; // x = 0, 2
        const float C1[4] = { m03.z, m47.z, m03.w, m47.w }; // x = 1, 3
        float D0[4], D1[4];
        mma_16x8x8(D0, a_lo, a_hi, b_even, C0);
        mma_16x8x8(D1, a_lo, a_hi, b_odd, C1);

        // h = 0: successor lane (row g), h = 1: lane + 32 (row g + 8).
        // Pair a: x = 0 vs 2 (intermediate top bit 0), pair b: x = 1 vs 3; lower wins
        // ties.
        const float a0 = fmaxf(D0[0], D0[1]), a1 = fmaxf(D0[2], D0[3]);
        const float b0 = fmaxf(D1[0], D1[1]), b1 = fmaxf(D1[2], D1[3]);
        const bool da0 = D0[1] > D0[0], da1 = D0[3] > D0[2];
        const bool db0 = D1[1] > D1[0], db1 = D1[3] > D1[2];
        float* pmn = pm[cur ^ 1];
        uint32_t word[4];
        if (!radix2) {
            const bool win0 = b0 > a0, win1 = b1 > a1;
            pmn[slot_of(lane)] = fmaxf(a0, b0);
            pmn[slot_of(lane + 32)] = fmaxf(a1, b1);
            word[0] = __ballot_sync(0xffffffffu, win0);
            word[1] = __ballot_sync(0xffffffffu, win0 ? db0 : da0);
            word[2] = __ballot_sync(0xffffffffu, win1);
            word[3] = __ballot_sync(0xffffffffu, win1 ? db1 : da1);
        } else {
            // One stage: new state m = top << 5 | j << 1 | b1 (y = q = 2 b1 + b2, b2 =
            // 0).
            if ((q & 1) == 0) {
                const int m = (g << 1) | (q >> 1);
                pmn[slot_of(m)] = a0;
                pmn[slot_of(m | 32)] = b0;
                pmn[slot_of(m + 16)] = a1; // j = g + 8
                pmn[slot_of((m + 16) | 32)] = b1;
            }
            word[0] = __ballot_sync(0xffffffffu, da0);
            word[1] = __ballot_sync(0xffffffffu, db0);
            word[2] = __ballot_sync(0xffffffffu, da1);
            word[3] = __ballot_sync(0xffffffffu, db1);
        }
        const int slot = k & (tc_steps_per_chunk - 1);
        if ((lane >> 2) == slot) {
            const int wq = lane & 3;
            chunk_word = wq == 0   ? word[0]
                         : wq == 1 ? word[1]
                         : wq == 2 ? word[2]
                                   : word[3];
        }
        if (slot == tc_steps_per_chunk - 1 || k == total - 1)
            dec[(k / tc_steps_per_chunk) * 32 + lane] = chunk_word;
        __syncwarp();
        cur ^= 1;
    }

    // Traceback start: state 0, or the best state (lowest index on ties).
    int state = 0;
    if (!win.end_state0) {
        const float v0 = pm[cur][slot_of(lane)], v1 = pm[cur][slot_of(lane + 32)];
        float best = v1 > v0 ? v1 : v0;
        int bi = v1 > v0 ? lane + 32 : lane;
#pragma unroll
        for (int off = 16; off >= 1; off >>= 1) {
            const float ov = __shfl_xor_sync(0xffffffffu, best, off);
            const int oi = __shfl_xor_sync(0xffffffffu, bi, off);
            if (ov > best || (ov == best && oi < bi)) {
                best = ov;
                bi = oi;
            }
        }
        state = bi;
    }

    // Warp-uniform traceback; each chunk is one coalesced load, words by shuffle.
    uint32_t* out_words = reinterpret_cast<uint32_t*>(p.out + win.out_byte);
    const int out_first = win.out_first;
    const int out_last = out_first + win.out_count;
    uint32_t acc = 0;
    auto emit = [&](int stage, int bit) {
        if (stage >= out_first && stage < out_last) {
            const int pos = stage - out_first;
            acc |= static_cast<uint32_t>(bit) << (31 - (pos & 31));
            if ((pos & 31) == 0) {
                if (lane == 0)
                    out_words[pos >> 5] = __byte_perm(acc, 0, 0x0123); // MSB-first bytes
                acc = 0;
            }
        }
    };
    uint32_t chunk = 0;
    const int k_stop = out_first >> 1; // out_first is even (0 or the overlap)
    for (int k = total - 1; k >= k_stop; --k) {
        const int slot = k & (tc_steps_per_chunk - 1);
        if (slot == tc_steps_per_chunk - 1 || k == total - 1)
            chunk = dec[(k / tc_steps_per_chunk) * 32 + lane];
        if (k == nfull) { // radix-2 step (odd stage count)
            const int m = state;
            emit(2 * k, m & 1);
            const int j = (m >> 1) & 15;
            const int src = 4 * (j & 7) + 2 * (m & 1);
            const int wi = 2 * (j >> 3) + (m >> 5);
            const uint32_t wv = __shfl_sync(0xffffffffu, chunk, slot * 4 + wi);
            state = (m >> 1) | (((wv >> src) & 1) << 5);
        } else {
            const int s = state;
            emit(2 * k + 1, s & 1);
            emit(2 * k, (s >> 1) & 1);
            const int h = s >> 5, src = s & 31;
            const uint32_t wlo = __shfl_sync(0xffffffffu, chunk, slot * 4 + 2 * h);
            const uint32_t whi = __shfl_sync(0xffffffffu, chunk, slot * 4 + 2 * h + 1);
            const int x = ((wlo >> src) & 1) | (((whi >> src) & 1) << 1);
            state = (s >> 2) | (x << 4);
        }
    }
}

//! Host side: parameters, decision workspace and launches of the TC kernel.
class viterbi_tc_runner
{
public:
    explicit viterbi_tc_runner(const conv_code& code, int variant = 0)
        : d_code(code), d_variant(variant)
    {
        if (!viterbi_tc_supports(code))
            throw error(
                "viterbi (cuda, tensor cores): only K=7 rate-1/2 mother codes are "
                "supported (got " +
                code.describe() + "); allowed: k=7 with two polynomials");
        const viterbi_schedule sched = default_viterbi_schedule(code);
        const int max_steps = sched.region_bits + 2 * sched.overlap;
        d_chunks = ((max_steps + 1) / 2 + tc_steps_per_chunk - 1) / tc_steps_per_chunk;
        d_params.tap0 = code.tap_mask(0);
        d_params.tap1 = code.tap_mask(1);
        d_punctured = code.punctured();
        if (code.puncture_period() > 64)
            throw error("viterbi (cuda, tensor cores): puncture patterns longer than 64 "
                        "are not supported");
        d_params.period = static_cast<int32_t>(code.puncture_period()); // 2 unpunctured
        d_params.keep_mask = code.keep_bits();
    }

    size_t decision_bytes(size_t nw) const
    {
        return nw * static_cast<size_t>(d_chunks) * 32 * sizeof(uint32_t);
    }

    void launch(const int8_t* d_in,
                uint8_t* d_out,
                const viterbi_window* d_windows,
                size_t nw,
                uint32_t* d_decisions,
                cudaStream_t s) const
    {
        viterbi_tc_params p = d_params;
        p.llrs = d_in;
        p.out = d_out;
        p.windows = d_windows;
        p.decisions = d_decisions;
        p.num_windows = static_cast<int32_t>(nw);
        p.chunks = d_chunks;
        const unsigned blocks =
            static_cast<unsigned>((nw + tc_warps_per_block - 1) / tc_warps_per_block);
        auto kernel =
            d_punctured ? viterbi_tc_kernel<true, 8> : viterbi_tc_kernel<false, 8>;
        if (d_variant == 1)
            kernel =
                d_punctured ? viterbi_tc_kernel<true, 12> : viterbi_tc_kernel<false, 12>;
        kernel<<<blocks, tc_warps_per_block * 32, 0, s>>>(p);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

private:
    conv_code d_code;
    int d_variant;
    viterbi_tc_params d_params{};
    int d_chunks = 0;
    bool d_punctured = false;
};

} // namespace

bool viterbi_tc_supports(const conv_code& code) { return code.k() == 7 && code.n() == 2; }

void viterbi_tc_decode(const conv_code& code,
                       int device,
                       const int8_t* llrs,
                       size_t num_llrs,
                       const std::vector<frame_extent>& frames,
                       uint8_t* out,
                       size_t out_bytes)
{
    device_guard guard(device);
    viterbi_tc_runner runner(code);
    frame_batch fb;
    fb.frames = frames.data();
    fb.num_frames = frames.size();
    std::vector<viterbi_window> windows;
    const size_t nw = build_viterbi_windows(code, device, fb, windows);
    if (nw == 0)
        return;
    device_buffer<int8_t> d_in(std::max<size_t>(num_llrs, 1));
    device_buffer<uint8_t> d_out(out_bytes);
    device_buffer<viterbi_window> d_windows(nw);
    device_buffer<uint32_t> d_dec(runner.decision_bytes(nw) / sizeof(uint32_t));
    GPUFEC_CUDA_CHECK(cudaMemcpy(d_in.get(), llrs, num_llrs, cudaMemcpyHostToDevice));
    GPUFEC_CUDA_CHECK(cudaMemcpy(d_out.get(), out, out_bytes, cudaMemcpyHostToDevice));
    GPUFEC_CUDA_CHECK(cudaMemcpy(d_windows.get(),
                                 windows.data(),
                                 nw * sizeof(viterbi_window),
                                 cudaMemcpyHostToDevice));
    runner.launch(d_in.get(), d_out.get(), d_windows.get(), nw, d_dec.get(), nullptr);
    GPUFEC_CUDA_CHECK(cudaDeviceSynchronize());
    GPUFEC_CUDA_CHECK(cudaMemcpy(out, d_out.get(), out_bytes, cudaMemcpyDeviceToHost));
}

kernel_timing time_viterbi_tc_kernel(
    const conv_code& code, int device, size_t num_frames, int reps, int variant)
{
    device_guard guard(device);
    viterbi_tc_runner runner(code, variant);
    kernel_bench_batch bench(code, device, num_frames);
    const size_t nw = bench.windows.size();
    device_buffer<viterbi_window> d_windows(nw);
    device_buffer<uint32_t> dec(runner.decision_bytes(nw) / sizeof(uint32_t));
    GPUFEC_CUDA_CHECK(cudaMemcpy(d_windows.get(),
                                 bench.windows.data(),
                                 nw * sizeof(viterbi_window),
                                 cudaMemcpyHostToDevice));
    return bench.time(code, reps, [&](const int8_t* in, cudaStream_t s) {
        runner.launch(in, bench.out.get(), d_windows.get(), nw, dec.get(), s);
    });
}

} // namespace cuda
} // namespace gpufec
