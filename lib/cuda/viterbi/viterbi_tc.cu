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
 * Lane roles (mma fragment layout): g = lane / 4 (rows g and g + 8 of A/C/D, column g
 * of B), q = lane % 4 (k = 2q, 2q + 1 of A/B; columns 2q, 2q + 1 of C/D). Row g is
 * candidate x0 = g / 4, y = g % 4; row g + 8 is x0 + 2 (same intermediate state, so
 * the first comparison stays in the lane). Lanes g and g ^ 4 (lane ^ 16) hold the two
 * pairs of a successor; lane x0 finalises tile x0 (dragonflies 8 x0 + 2q + {0, 1}).
 */
__global__ void __launch_bounds__(tc_warps_per_block * 32)
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
    const int x0 = g >> 2, y = g & 3;

    // A: k = 0, 1 are stage-1 outputs 0, 1 (register part x << 5 | y >> 1);
    // k = 2, 3 stage-2 outputs (register part (x & 1) << 6 | y); k >= 4 unused.
    auto f_sign = [&](int x, int k) {
        const uint32_t tap = (k & 1) ? p.tap1 : p.tap0;
        const uint32_t reg = k < 2 ? ((x << 5) | (y >> 1)) : (((x & 1) << 6) | y);
        return sign_of(reg, tap);
    };
    auto g_sign = [&](int j, int k) {
        const uint32_t tap = (k & 1) ? p.tap1 : p.tap0;
        return sign_of(k < 2 ? (j << 1) : (j << 2), tap);
    };
    uint32_t a_lo = 0, a_hi = 0;
    __half2 gb0 = __floats2half2_rn(0.f, 0.f), gb1 = gb0;
    if (q < 2) {
        a_lo = pack_half2(f_sign(x0, 2 * q), f_sign(x0, 2 * q + 1));
        a_hi = pack_half2(f_sign(x0 + 2, 2 * q), f_sign(x0 + 2, 2 * q + 1));
        gb0 = __floats2half2_rn(g_sign(g, 2 * q), g_sign(g, 2 * q + 1));
        gb1 = __floats2half2_rn(g_sign(g + 8, 2 * q), g_sign(g + 8, 2 * q + 1));
    }

    float(*pm)[64] = pm_buf[warp];
    pm[0][lane] = (win.start_state0 && lane != 0) ? tc_neg_inf : 0.0f;
    pm[0][lane + 32] = win.start_state0 ? tc_neg_inf : 0.0f;
    __syncwarp();

    const int nfull = win.steps >> 1;
    const int total = nfull + (win.steps & 1);
    uint32_t* dec = p.decisions + static_cast<size_t>(w) * p.chunks * 32;
    int t = win.t0;
    uint32_t idx = win.idx0;
    int phase = win.phase0;
    int cur = 0;
    uint32_t chunk_word = 0;
    const int c_base = 2 * q + 16 * x0; // C: pm[j | x << 4], j = 2q (+8), x = x0 (+2)

    for (int k = 0; k < total; ++k) {
        const bool radix2 = k == nfull; // odd stage count: last step is one stage

        // This step's four LLR positions (warp-uniform; wraps for tail-biting).
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
        int la = 0, lb = 0;
        if (q == 0 || (q == 1 && !radix2)) {
            const bool ka = q == 0 ? keep[0] : keep[2];
            const bool kb = q == 0 ? keep[1] : keep[3];
            const uint32_t pa = q == 0 ? pos[0] : pos[2];
            const uint32_t pb = q == 0 ? pos[1] : pos[3];
            la = ka ? __ldg(in + pa) : 0;
            lb = kb ? __ldg(in + pb) : 0;
        }
        const __half2 l2 = __halves2half2(__int2half_rn(la), __int2half_rn(lb));
        const __half2 b0h = __hmul2(gb0, l2), b1h = __hmul2(gb1, l2);
        const uint32_t b0 = *reinterpret_cast<const uint32_t*>(&b0h);
        const uint32_t b1 = *reinterpret_cast<const uint32_t*>(&b1h);

        const float* pmc = pm[cur];
        const float2 c00 = *reinterpret_cast<const float2*>(pmc + c_base);
        const float2 c01 = *reinterpret_cast<const float2*>(pmc + c_base + 32);
        const float2 c10 = *reinterpret_cast<const float2*>(pmc + c_base + 8);
        const float2 c11 = *reinterpret_cast<const float2*>(pmc + c_base + 40);
        const float C0[4] = { c00.x, c00.y, c01.x, c01.y };
        const float C1[4] = { c10.x, c10.y, c11.x, c11.y };
        float D0[4], D1[4];
        mma_16x8x8(D0, a_lo, a_hi, b0, C0);
        mma_16x8x8(D1, a_lo, a_hi, b1, C1);

        // Pair maxima (x vs x + 2: same intermediate state), lower x on ties.
        // Column c: 0, 1 = dragonflies 2q, 2q + 1; 2, 3 = 8 + 2q, 9 + 2q.
        const float P[4] = { fmaxf(D0[0], D0[2]),
                             fmaxf(D0[1], D0[3]),
                             fmaxf(D1[0], D1[2]),
                             fmaxf(D1[1], D1[3]) };
        const bool dh[4] = { D0[2] > D0[0], D0[3] > D0[1], D1[2] > D1[0], D1[3] > D1[1] };
        float* pmn = pm[cur ^ 1];
        uint32_t word[4];
        if (!radix2) {
            // Swap with lane ^ 16 the pairs of the tile the partner finalises.
            const float s0 = x0 ? P[0] : P[2];
            const float s1 = x0 ? P[1] : P[3];
            const uint32_t sd = x0 ? (dh[0] | (dh[1] << 1)) : (dh[2] | (dh[3] << 1));
            const float r0 = __shfl_xor_sync(0xffffffffu, s0, 16);
            const float r1 = __shfl_xor_sync(0xffffffffu, s1, 16);
            const uint32_t rd = __shfl_xor_sync(0xffffffffu, sd, 16);
            const float o0 = x0 ? P[2] : P[0];
            const float o1 = x0 ? P[3] : P[1];
            const uint32_t od = x0 ? (dh[2] | (dh[3] << 1)) : (dh[0] | (dh[1] << 1));
            // a: pair through intermediate top bit 0 (x even), b: top bit 1.
            const float a0 = x0 ? r0 : o0, b0v = x0 ? o0 : r0;
            const float a1 = x0 ? r1 : o1, b1v = x0 ? o1 : r1;
            const uint32_t da = x0 ? rd : od, db = x0 ? od : rd;
            const bool win0 = b0v > a0, win1 = b1v > a1;
            const bool hi0 = (win0 ? db : da) & 1u;
            const bool hi1 = ((win1 ? db : da) >> 1) & 1u;
            const int s_new =
                8 * q + 32 * x0 + y; // successor (j << 2 | y), j = 2q + 8 x0
            pmn[s_new] = fmaxf(a0, b0v);
            pmn[s_new + 4] = fmaxf(a1, b1v);
            word[0] = __ballot_sync(0xffffffffu, win0);
            word[1] = __ballot_sync(0xffffffffu, hi0);
            word[2] = __ballot_sync(0xffffffffu, win1);
            word[3] = __ballot_sync(0xffffffffu, hi1);
        } else {
            // Radix-2 stage: new state m = x0 << 5 | j << 1 | b1, held by lanes with b2 =
            // 0.
            if ((y & 1) == 0) {
                const int m = (x0 << 5) | (q << 2) | (y >> 1); // j = 2q
                pmn[m] = P[0];
                pmn[m + 2] = P[1];  // j = 2q + 1
                pmn[m + 16] = P[2]; // j = 8 + 2q
                pmn[m + 18] = P[3]; // j = 9 + 2q
            }
#pragma unroll
            for (int c = 0; c < 4; ++c)
                word[c] = __ballot_sync(0xffffffffu, dh[c]);
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
        const float v0 = pm[cur][lane], v1 = pm[cur][lane + 32];
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
            const int src_lane = 4 * (4 * (m >> 5) + 2 * (m & 1)) + ((j >> 1) & 3);
            const int c = ((j >> 3) << 1) | (j & 1);
            const uint32_t wv = __shfl_sync(0xffffffffu, chunk, slot * 4 + c);
            state = (m >> 1) | (((wv >> src_lane) & 1) << 5);
        } else {
            const int s = state;
            emit(2 * k + 1, s & 1);
            emit(2 * k, (s >> 1) & 1);
            const int cc = (s >> 2) & 1;
            const int src_lane = 4 * (4 * (s >> 5) + (s & 3)) + ((s >> 3) & 3);
            const uint32_t wlo = __shfl_sync(0xffffffffu, chunk, slot * 4 + 2 * cc);
            const uint32_t whi = __shfl_sync(0xffffffffu, chunk, slot * 4 + 2 * cc + 1);
            const int x = ((wlo >> src_lane) & 1) | (((whi >> src_lane) & 1) << 1);
            state = (s >> 2) | (x << 4);
        }
    }
}

//! Host side: parameters, decision workspace and launches of the TC kernel.
class viterbi_tc_runner
{
public:
    explicit viterbi_tc_runner(const conv_code& code) : d_code(code)
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
        const auto& mask = code.puncture_mask();
        if (mask.empty()) {
            d_params.period = 2;
            d_params.keep_mask = 3;
        } else {
            if (mask.size() > 64)
                throw error(
                    "viterbi (cuda, tensor cores): puncture patterns longer than 64 "
                    "are not supported");
            d_params.period = static_cast<int32_t>(mask.size());
            d_params.keep_mask = 0;
            for (size_t i = 0; i < mask.size(); ++i)
                if (mask[i])
                    d_params.keep_mask |= uint64_t(1) << i;
        }
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
        viterbi_tc_kernel<<<blocks, tc_warps_per_block * 32, 0, s>>>(p);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

private:
    conv_code d_code;
    viterbi_tc_params d_params{};
    int d_chunks = 0;
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

kernel_timing
time_viterbi_tc_kernel(const conv_code& code, int device, size_t num_frames, int reps)
{
    device_guard guard(device);
    viterbi_tc_runner runner(code);
    const size_t items = code.coded_bits();
    const size_t out_bytes = aligned_packed_bytes(code.frame_bits());
    constexpr int sets =
        4; // rotate inputs so L2 does not hold them (as time_viterbi_kernel)

    std::vector<frame_extent> frames(num_frames);
    for (size_t f = 0; f < num_frames; ++f)
        frames[f] = frame_extent{ f * items,
                                  static_cast<uint32_t>(items),
                                  f * out_bytes,
                                  static_cast<uint32_t>(code.frame_bits()) };
    frame_batch fb;
    fb.frames = frames.data();
    fb.num_frames = num_frames;
    std::vector<viterbi_window> windows;
    const size_t nw = build_viterbi_windows(code, device, fb, windows);

    std::vector<int8_t> host(items * num_frames);
    uint64_t x = 0x9e3779b97f4a7c15ull; // same LLRs as time_viterbi_kernel
    for (auto& v : host) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v = static_cast<int8_t>(static_cast<int>(x % 121) - 60);
    }
    std::vector<device_buffer<int8_t>> in(sets);
    for (auto& b : in) {
        b.reset(host.size());
        GPUFEC_CUDA_CHECK(
            cudaMemcpy(b.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    }
    device_buffer<uint8_t> out(num_frames * out_bytes);
    device_buffer<viterbi_window> d_windows(nw);
    device_buffer<uint32_t> dec(runner.decision_bytes(nw) / sizeof(uint32_t));
    GPUFEC_CUDA_CHECK(cudaMemcpy(d_windows.get(),
                                 windows.data(),
                                 nw * sizeof(viterbi_window),
                                 cudaMemcpyHostToDevice));

    stream s;
    event start(true), stop(true);
    for (int i = 0; i < 3; ++i)
        runner.launch(
            in[i % sets].get(), out.get(), d_windows.get(), nw, dec.get(), s.get());
    s.synchronize();
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
        start.record(s.get());
        runner.launch(
            in[r % sets].get(), out.get(), d_windows.get(), nw, dec.get(), s.get());
        stop.record(s.get());
        stop.synchronize();
        times.push_back(stop.elapsed_ms_since(start));
    }
    std::sort(times.begin(), times.end());
    kernel_timing t;
    t.median_ms = times[times.size() / 2];
    t.min_ms = times.front();
    t.info_bits = static_cast<double>(num_frames) * code.frame_bits();
    t.windows = nw;
    return t;
}

} // namespace cuda
} // namespace gpufec
