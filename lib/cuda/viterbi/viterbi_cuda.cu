/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/cuda_utils.h"
#include "kernel_bench.cuh"
#include "viterbi_cuda.h"
#include "viterbi_kernels.cuh"
#include <gpufec/viterbi.h>
#include <type_traits>
#include <algorithm>
#include <cstring>
#include <sstream>

namespace gpufec {
namespace cuda {
namespace {

constexpr int threads_per_block = 128;

//! Branch metric of output-sign row `row` of butterfly j: sum_i sign_i * L_i.
template <int NOUT>
__device__ __forceinline__ int32_t
branch_metric(const viterbi_code_params& code, int row, int j, const int32_t (&llr)[NOUT])
{
    int32_t m = llr[0] * code.sign[row][j][0];
#pragma unroll
    for (int i = 1; i < NOUT; ++i)
        m += llr[i] * code.sign[row][j][i];
    return m;
}

/*!
 * One thread decodes one window. Path metrics are int32 registers (no renormalisation
 * needed: a window's metrics stay far inside int32). Decision bit of new state s is
 * the sign of m0 - m1, i.e. 1 when the upper predecessor (s>>1 | S/2) strictly wins.
 * Decision words: bit (31 - s % 32) of word s / 32, stored [step][word][window] so the
 * warp writes coalesced.
 */
//! Output symbol (bit i = coded bit i) of the transition j -> 2j for compile-time taps.
__host__ __device__ constexpr int parity_of(uint32_t v)
{
    int p = 0;
    for (; v; v &= v - 1)
        p ^= 1;
    return p;
}

template <uint32_t TAP0, uint32_t TAP1>
__host__ __device__ constexpr int static_symbol(int j)
{
    const uint32_t reg = static_cast<uint32_t>(j) << 1;
    return parity_of(reg & TAP0) | (parity_of(reg & TAP1) << 1);
}

//! Calls f(integral_constant<int, I>) for I in [BEGIN, END): compile-time indices.
template <int BEGIN, int END, typename F>
__device__ __forceinline__ void static_for(F&& f)
{
    if constexpr (BEGIN < END) {
        f(std::integral_constant<int, BEGIN>{});
        static_for<BEGIN + 1, END>(f);
    }
}

/*!
 * TAP0/TAP1 != 0 selects the compile-time rate-1/2 path: the four possible branch
 * metrics (+/-A, +/-B) are formed once per stage and each butterfly picks its own
 * at compile time (no per-butterfly multiplies).
 */
template <int K, int NOUT, bool SYM, uint32_t TAP0 = 0, uint32_t TAP1 = 0>
__global__ void __launch_bounds__(threads_per_block)
    viterbi_window_kernel(const viterbi_code_params code,
                          const viterbi_batch_params batch)
{
    constexpr bool STATIC_CODE = TAP0 != 0;
    constexpr int S = 1 << (K - 1);
    constexpr int HALF = S / 2;
    constexpr int WORDS = (S + 31) / 32;
    constexpr int BITS_PER_WORD = S < 32 ? S : 32;

    const int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= batch.num_windows)
        return;
    viterbi_window win;
    if (batch.windows) {
        win = batch.windows[w];
    } else { // find the frame holding window w, then derive the window
        int lo = 0, hi = batch.num_frames;
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            if (batch.window_first[mid] <= static_cast<uint32_t>(w))
                lo = mid;
            else
                hi = mid;
        }
        win = make_viterbi_window(batch.frames[lo], w - batch.window_first[lo], code);
    }
    const int8_t* in = batch.llrs + win.in_base;
    const size_t nw = static_cast<size_t>(batch.num_windows);
    uint32_t* dec = batch.decisions + w;

    int32_t pm[S];
#pragma unroll
    for (int s = 0; s < S; ++s)
        pm[s] = (win.start_state0 && s != 0) ? -(1 << 24) : 0;

    int t = win.t0;
    uint32_t idx = win.idx0;
    int phase = win.phase0;

    for (int step = 0; step < win.steps; ++step) {
        // Load (and depuncture) this stage's LLRs; wrap for tail-biting frames.
        int32_t llr[NOUT];
#pragma unroll
        for (int i = 0; i < NOUT; ++i) {
            if (!SYM && i >= code.outputs) { // general kernel: n < 4 leaves zero metrics
                llr[i] = 0;
                continue;
            }
            const bool keep = (code.keep_mask >> phase) & 1u;
            llr[i] = keep ? static_cast<int32_t>(__ldg(in + idx)) : 0;
            idx += keep;
            phase = (phase + 1 == code.period) ? 0 : phase + 1;
        }
        if (++t == win.stages) {
            t = 0;
            idx = 0;
            phase = 0;
        }

        // Static path: metrics of the symbols 00 (A), 01 (-B), 10 (B), 11 (-A).
        const int32_t A = llr[0] + llr[NOUT > 1 ? 1 : 0];
        const int32_t B = llr[0] - llr[NOUT > 1 ? 1 : 0];
        int32_t npm[S];
        uint32_t word[WORDS];
#pragma unroll
        for (int q = 0; q < WORDS; ++q)
            word[q] = 0;
        static_for<0, HALF>([&](auto jc) {
            constexpr int j = decltype(jc)::value;
            const int32_t a = pm[j];
            const int32_t b = pm[j + HALF];
            int32_t n0, n1, d0, d1;
            if constexpr (SYM) {
                int32_t x;
                if constexpr (STATIC_CODE) {
                    constexpr int sym = static_symbol<TAP0, TAP1>(j);
                    x = sym == 0 ? A : sym == 3 ? -A : sym == 2 ? B : -B;
                } else {
                    x = branch_metric<NOUT>(code, 0, j, llr);
                }
                const int32_t x2 = x + x;
                d0 = a - b + x2; // (a + x) - (b - x)
                d1 = a - b - x2; // (a - x) - (b + x)
                n0 = __viaddmax_s32(a, x, b - x);
                n1 = __viaddmax_s32(b, x, a - x);
            } else {
                const int32_t m00 = a + branch_metric<NOUT>(code, 0, j, llr);
                const int32_t m01 = a + branch_metric<NOUT>(code, 1, j, llr);
                const int32_t m10 = b + branch_metric<NOUT>(code, 2, j, llr);
                const int32_t m11 = b + branch_metric<NOUT>(code, 3, j, llr);
                d0 = m00 - m10;
                d1 = m01 - m11;
                n0 = max(m00, m10);
                n1 = max(m01, m11);
            }
            npm[2 * j] = n0;
            npm[2 * j + 1] = n1;
            // Shift the sign bits in, state order: state s ends at bit 31 - s % 32
            // (for S < 32, at bit S - 1 - s).
            word[(2 * j) / 32] =
                __funnelshift_l(static_cast<uint32_t>(d0), word[(2 * j) / 32], 1);
            word[(2 * j) / 32] =
                __funnelshift_l(static_cast<uint32_t>(d1), word[(2 * j) / 32], 1);
        });
#pragma unroll
        for (int s = 0; s < S; ++s)
            pm[s] = npm[s];
#pragma unroll
        for (int q = 0; q < WORDS; ++q)
            dec[(static_cast<size_t>(step) * WORDS + q) * nw] = word[q];
    }

    // Traceback start state.
    int state = 0;
    if (!win.end_state0) {
        int32_t best = pm[0];
#pragma unroll
        for (int s = 1; s < S; ++s) {
            if (pm[s] > best) {
                best = pm[s];
                state = s;
            }
        }
    }

    uint32_t* out_words = reinterpret_cast<uint32_t*>(batch.out + win.out_byte);
    const int out_last = win.out_first + win.out_count; // one past
    uint32_t acc = 0;
    for (int step = win.steps - 1; step >= win.out_first; --step) {
        if (step < out_last) {
            const int pos = step - win.out_first;
            acc |= static_cast<uint32_t>(state & 1) << (31 - (pos & 31));
            if ((pos & 31) == 0) {
                out_words[pos >> 5] = __byte_perm(acc, 0, 0x0123); // MSB-first bytes
                acc = 0;
            }
        }
        const uint32_t wv = dec[(static_cast<size_t>(step) * WORDS + (state >> 5)) * nw];
        const int bit = (wv >> (BITS_PER_WORD - 1 - (state & 31))) & 1;
        state = (state >> 1) | (bit ? HALF : 0);
    }
}

using kernel_fn = void (*)(const viterbi_code_params, const viterbi_batch_params);

template <int K>
kernel_fn pick_kernel_k(int nout, bool sym)
{
    if (sym) {
        switch (nout) {
        case 2:
            return viterbi_window_kernel<K, 2, true>;
        case 3:
            return viterbi_window_kernel<K, 3, true>;
        default:
            return viterbi_window_kernel<K, 4, true>;
        }
    }
    return viterbi_window_kernel<K, 4, false>;
}

kernel_fn pick_kernel(const conv_code& code)
{
    const int k = code.k(), nout = code.n();
    const bool sym = code.symmetric();
    // The 802.11/DVB/CCSDS code gets the compile-time path (taps: bit-reversed 171, 133).
    if (k == 7 && nout == 2 && code.tap_mask(0) == 0117 && code.tap_mask(1) == 0155)
        return viterbi_window_kernel<7, 2, true, 0117, 0155>;
    switch (k) {
    case 3:
        return pick_kernel_k<3>(nout, sym);
    case 4:
        return pick_kernel_k<4>(nout, sym);
    case 5:
        return pick_kernel_k<5>(nout, sym);
    case 6:
        return pick_kernel_k<6>(nout, sym);
    case 7:
        return pick_kernel_k<7>(nout, sym);
    case 8:
        return pick_kernel_k<8>(nout, sym);
    default:
        return pick_kernel_k<9>(nout, sym);
    }
}

class viterbi_decoder_cuda final : public batch_decoder
{
public:
    viterbi_decoder_cuda(const conv_code& code, int device)
        : d_code(code), d_sched(default_viterbi_schedule(code)), d_device(device)
    {
        require_device(device);
        d_device_name = device_name(device);
        build_params();
        d_kernel = pick_kernel(code);
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }
    size_t max_input_items_per_frame() const override { return d_code.coded_bits(); }
    size_t output_bits_for_input(size_t items) const override
    {
        const size_t bits = d_code.info_bits_for_coded(items);
        if (bits == 0 || bits > static_cast<size_t>(d_code.frame_bits())) {
            std::ostringstream msg;
            msg << "viterbi: a frame of " << items << " LLRs is not decodable with "
                << d_code.describe() << "; allowed: coded lengths of 1.."
                << d_code.frame_bits() << " info bits (" << d_code.coded_bits()
                << " LLRs for a full frame)";
            throw error(msg.str());
        }
        return bits;
    }
    size_t default_input_items() const override { return d_code.coded_bits(); }
    size_t default_output_bits() const override { return d_code.frame_bits(); }

    size_t max_windows(const batch_limits& lim) const
    {
        // Each frame has ceil(I / D) windows, and I <= its input items.
        return lim.max_frames + lim.max_input_items / d_sched.region_bits + 1;
    }
    size_t max_steps() const { return d_sched.region_bits + 2 * d_sched.overlap; }
    size_t words() const { return (d_code.num_states() + 31) / 32; }

    size_t device_workspace_bytes(const batch_limits& lim) const override
    {
        return decision_bytes(max_windows(lim)) + frame_table_bytes(lim.max_frames);
    }
    size_t host_workspace_bytes(const batch_limits& lim) const override
    {
        return (lim.max_frames + 1) * sizeof(uint32_t);
    }

    /*!
     * The host only sums windows per frame (one add per frame); every thread derives
     * its own window on the device from the frame table, so no per-window host work.
     */
    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        const size_t nf = batch.num_frames;
        auto* first = static_cast<uint32_t*>(ctx.host_workspace);
        first[0] = 0;
        for (size_t f = 0; f < nf; ++f)
            first[f + 1] =
                first[f] + viterbi_windows_of(batch.frames[f].out_bits, d_params);
        const size_t nw = first[nf];
        // Statuses stay as the engine set them: {1 iteration, ok}.
        if (nw == 0)
            return;
        if (!batch.device_frames)
            throw error("viterbi (cuda): the batch has no device frame table; run the "
                        "decoder through batch_engine");
        cudaStream_t s = static_cast<cudaStream_t>(ctx.stream);
        const frame_extent* d_frames = batch.device_frames;
        uint32_t* d_first = device_window_first(ctx.device_workspace, nw, nf);
        GPUFEC_CUDA_CHECK(cudaMemcpyAsync(
            d_first, first, (nf + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
        viterbi_batch_params p =
            batch_params(batch.in, batch.out, nw, ctx.device_workspace);
        p.frames = d_frames;
        p.window_first = d_first;
        p.num_frames = static_cast<int32_t>(nf);
        run(p, s);
    }

    //! Workspace layout: decisions of nw windows, then the frame table and window sums.
    size_t decision_bytes(size_t nw) const
    {
        return align(nw * max_steps() * words() * 4);
    }
    static size_t frame_table_bytes(size_t nf)
    {
        return align(nf * sizeof(frame_extent)) + (nf + 1) * sizeof(uint32_t);
    }
    frame_extent* device_frames(void* workspace, size_t nw) const
    {
        return reinterpret_cast<frame_extent*>(static_cast<char*>(workspace) +
                                               decision_bytes(nw));
    }
    uint32_t* device_window_first(void* workspace, size_t nw, size_t nf) const
    {
        return reinterpret_cast<uint32_t*>(
            reinterpret_cast<char*>(device_frames(workspace, nw)) +
            align(nf * sizeof(frame_extent)));
    }

    viterbi_batch_params
    batch_params(const llr8_t* d_in, uint8_t* d_out, size_t nw, void* workspace) const
    {
        viterbi_batch_params p{};
        p.llrs = d_in;
        p.out = d_out;
        p.decisions = static_cast<uint32_t*>(workspace);
        p.num_windows = static_cast<int32_t>(nw);
        return p;
    }

    //! Kernel only, frame table and window sums already on the device (the benchmark).
    void launch_frames(const llr8_t* d_in,
                       uint8_t* d_out,
                       const frame_extent* d_frames,
                       const uint32_t* d_first,
                       size_t nf,
                       size_t nw,
                       void* workspace,
                       cudaStream_t s) const
    {
        viterbi_batch_params p = batch_params(d_in, d_out, nw, workspace);
        p.frames = d_frames;
        p.window_first = d_first;
        p.num_frames = static_cast<int32_t>(nf);
        run(p, s);
    }

    void run(const viterbi_batch_params& p, cudaStream_t s) const
    {
        const unsigned blocks = static_cast<unsigned>(
            (p.num_windows + threads_per_block - 1) / threads_per_block);
        d_kernel<<<blocks, threads_per_block, 0, s>>>(d_params, p);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

    std::string name() const override
    {
        return "viterbi " + d_code.describe() + " on cuda:" + std::to_string(d_device) +
               " (" + d_device_name + ")";
    }

    //! The host-built window table of a batch (the tensor-core kernel's input).
    size_t build_windows(const frame_batch& batch, viterbi_window* windows) const
    {
        size_t count = 0;
        for (size_t f = 0; f < batch.num_frames; ++f) {
            const uint32_t regions =
                viterbi_windows_of(batch.frames[f].out_bits, d_params);
            for (uint32_t r = 0; r < regions; ++r)
                windows[count++] = make_viterbi_window(batch.frames[f], r, d_params);
        }
        return count;
    }

private:
    static size_t align(size_t b) { return (b + 255) & ~size_t(255); }

    void build_params()
    {
        std::memset(&d_params, 0, sizeof(d_params));
        const int S = d_code.num_states();
        const int half = S / 2;
        const int n = d_code.n();
        auto sign_of = [&](uint32_t state, int b, int i) {
            return ((d_code.branch_output(state, b) >> i) & 1) ? -1 : 1;
        };
        for (int j = 0; j < half; ++j) {
            for (int i = 0; i < n; ++i) {
                d_params.sign[0][j][i] = sign_of(j, 0, i);
                d_params.sign[1][j][i] = sign_of(j, 1, i);
                d_params.sign[2][j][i] = sign_of(j + half, 0, i);
                d_params.sign[3][j][i] = sign_of(j + half, 1, i);
            }
        }
        if (d_code.puncture_period() > 64)
            throw error(
                "viterbi (cuda): puncture patterns longer than 64 are not supported "
                "(pattern length " +
                std::to_string(d_code.puncture_period()) + ")");
        d_period = static_cast<int>(d_code.puncture_period());
        d_params.keep_mask = d_code.keep_bits();
        d_params.period = d_period;
        d_params.outputs = n;
        d_params.region_bits = d_sched.region_bits;
        d_params.overlap = d_sched.overlap;
        d_params.tail = d_code.term() == termination::terminated ? d_code.k() - 1 : 0;
        d_params.tail_biting = d_code.term() == termination::tail_biting;
        d_params.terminated = d_code.term() == termination::terminated;
        for (int p = 0; p < d_period; ++p)
            d_params.prefix_ones[p] = static_cast<uint8_t>(d_code.kept_before(p));
        d_params.mask_ones = static_cast<uint32_t>(d_code.kept_per_period());
    }

    conv_code d_code;
    viterbi_schedule d_sched;
    int d_device;
    std::string d_device_name;
    viterbi_code_params d_params;
    kernel_fn d_kernel = nullptr;
    int d_period = 2;
};

} // namespace

std::unique_ptr<batch_decoder> make_viterbi_decoder(const conv_code& code, int device)
{
    return std::make_unique<viterbi_decoder_cuda>(code, device);
}

} // namespace cuda
} // namespace gpufec

namespace gpufec {
namespace cuda {

size_t build_viterbi_windows(const conv_code& code,
                             int device,
                             const frame_batch& batch,
                             std::vector<viterbi_window>& windows)
{
    viterbi_decoder_cuda dec(code, device);
    batch_limits lim{ batch.num_frames, 0, 0 };
    for (size_t f = 0; f < batch.num_frames; ++f)
        lim.max_input_items += batch.frames[f].in_items;
    windows.resize(dec.max_windows(lim));
    const size_t nw = dec.build_windows(batch, windows.data());
    windows.resize(nw);
    return nw;
}

kernel_timing
time_viterbi_kernel(const conv_code& code, int device, size_t num_frames, int reps)
{
    device_guard guard(device);
    viterbi_decoder_cuda dec(code, device);
    kernel_bench_batch bench(code, device, num_frames);
    const size_t nw = bench.windows.size();
    const batch_limits lim{ num_frames,
                            num_frames * code.coded_bits(),
                            num_frames * aligned_packed_bytes(code.frame_bits()) };
    device_buffer<uint8_t> ws(dec.device_workspace_bytes(lim));
    std::vector<uint32_t> first(num_frames + 1, 0);
    for (size_t f = 0; f < num_frames; ++f)
        first[f + 1] = static_cast<uint32_t>(first[f] + nw / num_frames);
    frame_extent* d_frames = dec.device_frames(ws.get(), nw);
    uint32_t* d_first = dec.device_window_first(ws.get(), nw, num_frames);
    GPUFEC_CUDA_CHECK(cudaMemcpy(d_frames,
                                 bench.frames.data(),
                                 num_frames * sizeof(frame_extent),
                                 cudaMemcpyHostToDevice));
    GPUFEC_CUDA_CHECK(cudaMemcpy(
        d_first, first.data(), first.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
    return bench.time(code, reps, [&](const int8_t* in, cudaStream_t s) {
        dec.launch_frames(
            in, bench.out.get(), d_frames, d_first, num_frames, nw, ws.get(), s);
    });
}

} // namespace cuda
} // namespace gpufec
