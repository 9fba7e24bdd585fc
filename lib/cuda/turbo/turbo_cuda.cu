/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA turbo decoder, synchronised schedule (issue 12, first step): a thread block per
// code block, thread w runs window w of the constituent decoder (forward then
// backward recursion, lib/cpu/turbo_steps.h), a barrier between half-iterations. The
// stakes (window boundary metrics of the previous iteration), the extrinsic exchange
// through the QPP interleaver, the a-posteriori LLRs, the CRC24B check for early
// termination and the output follow the CPU decoder's normative description
// (turbo_cpu.cc), so its decisions are reproduced.
//
// Shared memory per block: the forward metrics of every step (K x 8 int16: 96 KB at K =
// 6144), the two extrinsic arrays (int16), the hard decisions, the stakes.
#include "../common/batch_checks.h"
#include "../common/cuda_utils.h"
#include "cluster_kernel.cuh"
#include "cpu/turbo_steps.h"
#include "turbo_cuda.h"
#include "window_kernel.cuh"

#include <algorithm>
#include <string>

namespace gpufec {
namespace cuda {
namespace {

namespace ts = turbo_steps;

constexpr int max_windows = 64;

struct turbo_params {
    turbo_io io;
    int k, windows, iterations, q, ext_max, info_bits;
    int filler; //!< filler bits F: the payload is bits F .. F + info_bits - 1
    bool scaled, crc, early_termination;
    const uint32_t* pi;         //!< K
    const uint32_t* crc_column; //!< K: CRC24B of the unit vector e_i (0 without CRC)
};

size_t smem_bytes(int k, int windows)
{
    const size_t stakes = 2 * 2 * 2 * size_t(windows + 1) * 8 * sizeof(int16_t);
    return size_t(k) * 8 * sizeof(int16_t) + 2 * size_t(k) * sizeof(int16_t) + size_t(k) +
           stakes + 16;
}

__global__ void __launch_bounds__(max_windows) turbo_kernel(const turbo_params p)
{
    extern __shared__ int16_t smem16[];
    __shared__ uint32_t crc_acc;
    const int K = p.k, P = p.windows, w = threadIdx.x;
    int16_t* A = smem16;       // K x 8
    int16_t* e12 = A + 8 * K;  // decoder 1 -> 2, natural order
    int16_t* e21 = e12 + K;    // decoder 2 -> 1, natural order
    int16_t* stakes = e21 + K; // [dec][buf][2 (P + 1)][8]
    uint8_t* hard = reinterpret_cast<uint8_t*>(stakes + 2 * 2 * 2 * (P + 1) * 8);
    const int per_buffer = 2 * (P + 1) * 8;
    auto stake = [&](int dec, int buf, int slot) {
        return stakes + (2 * dec + buf) * per_buffer + slot * 8;
    };
    const int begin = int(int64_t(w) * K / P), end = int(int64_t(w + 1) * K / P);

    for (uint32_t f = blockIdx.x; f < p.io.num_frames; f += gridDim.x) {
        const frame_extent fe = p.io.frames[f];
        const int8_t* d0 = p.io.streams(f, fe);
        const int8_t* d1 = d0 + (K + 4);
        const int8_t* d2 = d1 + (K + 4);
        for (int i = threadIdx.x; i < K; i += blockDim.x)
            e21[i] = 0;
        for (int i = threadIdx.x; i < 4 * per_buffer; i += blockDim.x)
            stakes[i] = 0;
        __syncthreads();
        if (threadIdx.x < 2) {
            // Exact outer stakes of decoder `dec`, in both buffers.
            const int dec = threadIdx.x;
            int a[8], b[8];
            ts::start_alpha(a);
            ts::tail_beta(d0, d1, d2, K, dec, b);
            for (int buf = 0; buf < 2; buf++)
                for (int s = 0; s < 8; s++) {
                    stake(dec, buf, 0)[s] = static_cast<int16_t>(a[s]);
                    stake(dec, buf, P + 1 + P)[s] = static_cast<int16_t>(b[s]);
                }
        }
        __syncthreads();
        frame_status status{ 0, !p.crc };
        int cur = 0;
        for (int it = 0; it < p.iterations; it++) {
            const bool decide = p.crc ? (p.early_termination || it + 1 == p.iterations)
                                      : it + 1 == p.iterations;
            for (int dec = 0; dec < 2; dec++) {
                if (w < P) {
                    const int16_t* in = stake(dec, cur, 0);
                    int16_t* out = stake(dec, 1 - cur, 0);
                    int alpha[8], beta[8];
                    for (int s = 0; s < 8; s++) {
                        alpha[s] = in[8 * w + s];
                        beta[s] = in[8 * (P + 1 + w + 1) + s];
                    }
                    if (dec == 0) {
                        ts::window(
                            begin,
                            end,
                            alpha,
                            beta,
                            A,
                            [&](int i) { return int(d0[i]) + int(e21[i]); },
                            [&](int i) { return int(d1[i]); },
                            [&](int i, int, int le) {
                                e12[i] = static_cast<int16_t>(
                                    ts::pass(le, p.q, p.scaled, p.ext_max));
                            });
                    } else {
                        ts::window(
                            begin,
                            end,
                            alpha,
                            beta,
                            A,
                            [&](int i) {
                                const uint32_t j = p.pi[i];
                                return int(d0[j]) + int(e12[j]);
                            },
                            [&](int i) { return int(d2[i]); },
                            [&](int i, int ls, int le) {
                                const uint32_t j = p.pi[i];
                                e21[j] = static_cast<int16_t>(
                                    ts::pass(le, p.q, p.scaled, p.ext_max));
                                if (decide) {
                                    // A-posteriori LLR of c_j: decoder 2's Ls + La + Le.
                                    const int app = ls + le;
                                    hard[j] = app < 0;
                                    const int payload_bit = int(j) - p.filler;
                                    if (p.io.soft && payload_bit >= 0 &&
                                        payload_bit < p.info_bits)
                                        p.io.soft[8 * fe.out_offset + payload_bit] =
                                            float(app);
                                }
                            });
                    }
                    for (int s = 0; s < 8; s++) {
                        out[8 * (w + 1) + s] = static_cast<int16_t>(alpha[s]);
                        out[8 * (P + 1 + w) + s] = static_cast<int16_t>(beta[s]);
                    }
                    if (w == 0)
                        for (int s = 0; s < 8; s++) {
                            out[s] = in[s];
                            out[8 * (P + 1 + P) + s] = in[8 * (P + 1 + P) + s];
                        }
                }
                __syncthreads();
            }
            cur = 1 - cur;
            status.iterations = it + 1;
            if (decide && p.crc) {
                // CRC24B of the K hard bits: linear, so the XOR of the set bits' columns.
                if (threadIdx.x == 0)
                    crc_acc = 0;
                __syncthreads();
                uint32_t x = 0;
                for (int i = threadIdx.x; i < K; i += blockDim.x)
                    if (hard[i])
                        x ^= p.crc_column[i];
                for (int o = 16; o > 0; o /= 2)
                    x ^= __shfl_xor_sync(0xffffffffu, x, o);
                if ((threadIdx.x & 31) == 0 && x)
                    atomicXor(&crc_acc, x);
                __syncthreads();
                status.ok = crc_acc == 0;
                __syncthreads();
                if (status.ok && p.early_termination)
                    break;
            }
        }
        const int n = p.info_bits;
        uint8_t* out = p.io.out + fe.out_offset;
        for (int byte = threadIdx.x; byte < (n + 7) / 8; byte += blockDim.x) {
            unsigned v = 0;
            for (int b = 0; b < 8; b++) {
                const int j = byte * 8 + b;
                if (j < n && hard[p.filler + j])
                    v |= 0x80u >> b;
            }
            out[byte] = static_cast<uint8_t>(v);
        }
        if (threadIdx.x == 0)
            p.io.status[f] = status;
        __syncthreads(); // shared memory is reused by the next frame
    }
}

// De-rate-matching and filler bits on the device (TS 36.212 5.1.4.1, 5.1.2), so only
// the E received LLRs cross the bus. Stream position t of frame f (d0 | d1 | d2) gets the
// sum of the received LLRs that carry it (sources[source_begin[t] .. source_begin[t +
// 1]), repetitions of the circular buffer), saturated to +/-127, 0 when never sent; the
// F filler positions of d0 and d1 are known zeros (+127). The CPU decoder does the
// same (turbo_cpu.cc), so the decisions stay equal.
struct derate_params {
    const llr8_t* in;
    const frame_extent* frames;
    uint32_t num_frames;
    const uint32_t* source_begin; //!< null: no rate matching, position t is input t
    const uint32_t* sources;
    int8_t* out; //!< frame f at out + f * stride
    uint32_t stride;
    int stream_bits, stream_total, filler;
};

__global__ void __launch_bounds__(256) derate_kernel(const derate_params p)
{
    const int t = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (t >= p.stream_total)
        return;
    const bool known_zero =
        t < p.filler || (t >= p.stream_bits && t < p.stream_bits + p.filler);
    uint32_t first = 0, last = 0;
    if (p.source_begin) {
        first = p.source_begin[t];
        last = p.source_begin[t + 1];
    }
    for (uint32_t f = blockIdx.y; f < p.num_frames; f += gridDim.y) {
        const int8_t* in = reinterpret_cast<const int8_t*>(p.in + p.frames[f].in_offset);
        int v;
        if (p.source_begin) {
            int sum = 0;
            for (uint32_t j = first; j < last; j++)
                sum += in[p.sources[j]];
            v = max(-127, min(127, sum));
        } else {
            v = in[t];
        }
        p.out[size_t(f) * p.stride + t] = static_cast<int8_t>(known_zero ? 127 : v);
    }
}

class turbo_decoder_cuda final : public batch_decoder
{
public:
    turbo_decoder_cuda(const lte_turbo_code& code,
                       const turbo_decoder_options& options,
                       int device,
                       turbo_cuda_kernel kernel)
        : d_code(code), d_device(device), d_kernel(kernel)
    {
        turbo_decoder_options synchronised = options;
        synchronised.schedule = turbo_schedule::synchronised;
        d_cpu = make_turbo_decoder_cpu(code, synchronised); // validates the options
        if (!turbo_cuda_accepts(code, options))
            throw error(
                "turbo decoder (cuda): allowed arithmetic: int8, int16 (float "
                "runs on the CPU only); allowed sub_blocks: 1..64, or windows of at "
                "most 32 steps (sub_blocks >= K / 32, at most 512; the loose schedule "
                "needs these); got " +
                code.describe() + ", sub_blocks = " + std::to_string(options.sub_blocks));
        require_device(device);
        device_guard guard(device);
        const int K = code.k();
        std::vector<uint32_t> column(K, 0u);
        if (code.crc24b()) {
            std::vector<uint8_t> unit(K, 0);
            for (int i = 0; i < K; i++) {
                unit[i] = 1;
                column[i] = crc24b(unit.data(), K);
                unit[i] = 0;
            }
        }
        upload(d_pi, code.interleaver());
        upload(d_column, column);
        setup_derate(code);
        const bool scaled = options.algorithm == turbo_algorithm::scaled_max_log_map;
        d_params = turbo_params{};
        d_params.k = K;
        d_params.windows = options.sub_blocks;
        d_params.iterations = options.iterations;
        d_params.scaled = scaled;
        d_params.q =
            scaled
                ? std::max(
                      1, static_cast<int>(std::lround(options.extrinsic_scale * 128.0f)))
                : 128;
        d_params.ext_max = options.arithmetic == turbo_arithmetic::int8 ? 127 : 2047;
        d_params.info_bits = code.info_bits();
        d_params.filler = code.filler_bits();
        d_params.crc = code.crc24b();
        d_params.early_termination = options.early_termination;
        d_params.pi = d_pi.get();
        d_params.crc_column = d_column.get();
        d_smem = smem_bytes(K, options.sub_blocks);
        setup_window_kernel(code, options, scaled);
        setup_cluster_kernel(options);
        // The per-block kernel runs where the window kernel does not (long windows, or
        // a GPU whose shared memory holds no group of windows).
        if (!d_use_window) {
            const size_t max_smem = max_block_smem(device);
            if (d_smem > max_smem)
                throw error("turbo decoder (cuda): K = " + std::to_string(K) + " with " +
                            std::to_string(options.sub_blocks) + " sub_blocks needs " +
                            std::to_string(d_smem) +
                            " bytes of shared memory per block; allowed on CUDA device " +
                            std::to_string(device) + ": up to " +
                            std::to_string(max_smem));
            raise_dynamic_smem_limit(turbo_kernel, d_smem);
        }
        const bool needs_cluster = options.schedule == turbo_schedule::loose ||
                                   kernel == turbo_cuda_kernel::cluster;
        if (needs_cluster && !d_use_cluster)
            throw error("turbo decoder (cuda): the loose schedule and the cluster kernel "
                        "need thread block clusters (compute capability 9.0 or newer) "
                        "and windows of at most 32 steps; " +
                        code.describe() +
                        " with sub_blocks = " + std::to_string(options.sub_blocks) +
                        " on device " + std::to_string(device) + " has none");
        if (options.schedule == turbo_schedule::loose &&
            kernel == turbo_cuda_kernel::window)
            throw error("turbo decoder (cuda): the loose schedule runs on the cluster "
                        "kernel only");
        if (!d_use_window && options.sub_blocks > max_windows)
            throw error("turbo decoder (cuda): " + code.describe() +
                        " with sub_blocks = " + std::to_string(options.sub_blocks) +
                        " does not fit the device's window kernel; allowed: sub_blocks "
                        "1..64");
    }

    //! The window kernel takes windows of at most turbo_window::max_window steps.
    void setup_window_kernel(const lte_turbo_code& code,
                             const turbo_decoder_options& options,
                             bool scaled)
    {
        namespace tw = turbo_window;
        const int K = code.k(), P = options.sub_blocks;
        if (!turbo_cuda_window_kernel(code, options))
            return; // long windows: the per-block kernel above
        tw::params& w = d_window;
        w = tw::params{};
        w.k = K;
        w.f1 = code.f1();
        w.f2 = code.f2();
        w.windows = P;
        w.iterations = options.iterations;
        w.q = d_params.q;
        w.ext_max = d_params.ext_max;
        w.info_bits = code.info_bits();
        w.filler = code.filler_bits();
        w.scaled = scaled;
        w.early_termination = options.early_termination;
        w.crc_column = code.crc24b() ? d_column.get() : nullptr;
        // Every forward metric stored, or every second one (recomputed in the backward
        // pass): whichever keeps more code blocks resident per SM; the full one on a tie.
        // Windows of exactly max_window steps (K = 32 P) skip the length checks (the
        // half-metric build keeps them: without, it spills at its 128 registers).
        const bool exact = K % P == 0 && K / P == tw::max_window;
        using window_fn = void (*)(tw::params);
        const window_fn kernels[2][2] = {
            // [half][soft output]
            { exact ? tw::window_kernel<tw::max_window, false, true, false>
                    : tw::window_kernel<tw::max_window, false, false, false>,
              exact ? tw::window_kernel<tw::max_window, false, true, true>
                    : tw::window_kernel<tw::max_window, false, false, true> },
            { tw::window_kernel<tw::max_window, true, false, false>,
              tw::window_kernel<tw::max_window, true, false, true> }
        };
        // Groups of windows within 200 KiB a block (so that two blocks may share an
        // SM on Hopper), or within what the device allows a block.
        const size_t budget = std::min<size_t>(200 * 1024, max_block_smem(d_device));
        int per_sm = 0, best_blocks = 0;
        for (bool half : { false, true }) {
            const size_t group = tw::group_smem_bytes(K, P, half);
            if (group > budget)
                continue;
            const int groups =
                std::max(1, std::min(256 / P, static_cast<int>(budget / group)));
            const size_t smem = group * size_t(groups);
            const int threads = groups * P;
            for (window_fn kernel : kernels[half])
                raise_dynamic_smem_limit(kernel, smem);
            int blocks = 0;
            GPUFEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, kernels[half][0], threads, smem));
            if (blocks * groups > best_blocks) {
                best_blocks = blocks * groups;
                per_sm = blocks;
                w.groups = groups;
                d_window_smem = smem;
                d_window_threads = threads;
                d_window_kernel = kernels[half][0];
                d_window_kernel_soft = kernels[half][1];
                d_window_half = half;
            }
        }
        int sms = 0;
        GPUFEC_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d_device));
        if (per_sm < 1)
            return;
        d_window_blocks = static_cast<size_t>(per_sm) * sms;
        d_use_window = true;
    }

    //! The multi-SM kernel (turbo_cluster): a code block over a cluster of C <= 8
    //! SMs, used for the loose schedule and for batches too small to fill the GPU.
    void setup_cluster_kernel(const turbo_decoder_options& options)
    {
        namespace tc = turbo_cluster;
        if (!d_use_window)
            return;
        int major = 0;
        GPUFEC_CUDA_CHECK(
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d_device));
        if (major < 9)
            return;
        const int P = options.sub_blocks;
        const int C = std::min(tc::max_cluster, (P + 31) / 32);
        tc::params& c = d_cluster;
        c = tc::params{};
        c.k = d_window.k;
        c.f1 = d_window.f1;
        c.f2 = d_window.f2;
        c.windows = P;
        c.cluster = C;
        c.windows_per_block = (P + C - 1) / C;
        c.iterations = d_window.iterations;
        c.q = d_window.q;
        c.ext_max = d_window.ext_max;
        c.info_bits = d_window.info_bits;
        c.filler = d_window.filler;
        c.scaled = d_window.scaled;
        c.early_termination = d_window.early_termination;
        c.crc_column = d_window.crc_column;
        c.loose = options.schedule == turbo_schedule::loose;
        c.role_threads = (c.windows_per_block + 31) / 32 * 32;
        d_cluster_threads = 2 * c.role_threads; // forward and backward
        d_cluster_smem = tc::block_smem_bytes(turbo_window::max_window, c.role_threads);
        if (d_cluster_smem > max_block_smem(d_device))
            return; // no cluster kernel on this device
        raise_dynamic_smem_limit(tc::cluster_kernel<turbo_window::max_window>,
                                 d_cluster_smem);
        cudaLaunchConfig_t cfg = cluster_config(1, nullptr);
        cudaLaunchAttribute attr = cluster_attribute();
        cfg.attrs = &attr;
        int clusters = 0;
        GPUFEC_CUDA_CHECK(cudaOccupancyMaxActiveClusters(
            &clusters, tc::cluster_kernel<turbo_window::max_window>, &cfg));
        int sms = 0;
        GPUFEC_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d_device));
        d_sms = static_cast<size_t>(sms);
        if (clusters < 1)
            return;
        d_cluster_max = static_cast<size_t>(clusters);
        d_use_cluster = true;
    }
    cudaLaunchAttribute cluster_attribute() const
    {
        cudaLaunchAttribute attr{};
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = static_cast<unsigned>(d_cluster.cluster);
        attr.val.clusterDim.y = 1;
        attr.val.clusterDim.z = 1;
        return attr;
    }
    cudaLaunchConfig_t cluster_config(size_t clusters, cudaStream_t stream) const
    {
        cudaLaunchConfig_t cfg{};
        cfg.gridDim = dim3(static_cast<unsigned>(clusters * size_t(d_cluster.cluster)));
        cfg.blockDim = dim3(static_cast<unsigned>(d_cluster_threads));
        cfg.dynamicSmemBytes = d_cluster_smem;
        cfg.stream = stream;
        cfg.numAttrs = 1;
        return cfg;
    }
    //! Whether a launch of `frames` code blocks runs the cluster kernel: always for the
    //! loose schedule; for the synchronised one (the same decisions either way) when
    //! every code block gets its own cluster at once, which the window kernel would
    //! leave on one SM each.
    bool runs_cluster_kernel(size_t frames) const
    {
        if (!d_use_cluster || d_kernel == turbo_cuda_kernel::window)
            return false;
        return d_cluster.loose || d_kernel == turbo_cuda_kernel::cluster ||
               frames * size_t(d_cluster.cluster) <= d_sms;
    }
    size_t cluster_bytes(size_t frames) const
    {
        if (!d_use_cluster)
            return 0;
        return std::min(frames, d_cluster_max) *
               turbo_cluster::workspace_bytes(d_cluster.k, d_cluster.windows);
    }

    //! Rate-matched codes and codes with filler bits go through derate_kernel first.
    void setup_derate(const lte_turbo_code& code)
    {
        d_derate = code.rate_matching() != nullptr || code.filler_bits() > 0;
        if (!d_derate)
            return;
        d_derate_stride = static_cast<uint32_t>((code.stream_total() + 15) / 16 * 16);
        if (const lte_turbo_rate_matching* rm = code.rate_matching()) {
            // Which received LLRs carry each stream position (CSR, in the order the
            // CPU adds them).
            const std::vector<uint32_t>& map = rm->output_to_stream();
            std::vector<uint32_t> begin(code.stream_total() + 1, 0u), sources(map.size());
            for (uint32_t t : map)
                begin[t + 1]++;
            for (size_t t = 0; t < code.stream_total(); t++)
                begin[t + 1] += begin[t];
            std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
            for (size_t j = 0; j < map.size(); j++)
                sources[next[map[j]]++] = static_cast<uint32_t>(j);
            upload(d_source_begin, begin);
            upload(d_sources, sources);
        }
    }
    //! Bytes of the de-rate-matched streams of `frames` frames (256-aligned).
    size_t derate_bytes(size_t frames) const
    {
        return d_derate ? (frames * d_derate_stride + 255) / 256 * 256 : 0;
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }
    size_t max_input_items_per_frame() const override { return d_code.coded_bits(); }
    size_t default_input_items() const override { return d_code.coded_bits(); }
    size_t default_output_bits() const override { return d_code.info_bits(); }
    bool has_soft_output() const override { return true; }
    size_t output_bits_for_input(size_t items) const override
    {
        return d_cpu->output_bits_for_input(items);
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        const size_t nf = batch.num_frames;
        check_frames(*this, batch, d_code.info_bits(), "turbo decoder");
        if (nf == 0)
            return;
        require_engine_buffers(batch.device_frames && batch.device_status && batch.in,
                               "turbo decoder",
                               "device frame table, status or int8 input");
        if (d_use_window || d_derate)
            require_engine_buffers(ctx.device_workspace != nullptr,
                                   "turbo decoder",
                                   "device workspace (de-rate-matched LLRs, window "
                                   "boundary metrics)");
        launch(batch.in,
               batch.device_frames,
               nf,
               batch.out,
               batch.soft_out,
               batch.device_status,
               static_cast<cudaStream_t>(ctx.stream),
               static_cast<uint8_t*>(ctx.device_workspace));
    }

    //! Per slot (slots run concurrently on their own streams): the de-rate-matched
    //! streams of every frame (rate matching or filler bits), then the window kernel's
    //! boundary metrics, one set per resident code block.
    size_t device_workspace_bytes(const batch_limits& limits) const override
    {
        return derate_bytes(limits.max_frames) +
               std::max(stake_bytes(limits.max_frames), cluster_bytes(limits.max_frames));
    }
    size_t stake_bytes(size_t frames) const
    {
        if (!d_use_window)
            return 0;
        const size_t groups = size_t(d_window.groups);
        const size_t blocks = std::min(d_window_blocks, (frames + groups - 1) / groups);
        return blocks * groups * turbo_window::stake_elements(d_window.windows) *
               sizeof(int16_t);
    }

    //! One launch over device-resident frames (decode() and the kernel-only timing).
    void launch(const llr8_t* in,
                const frame_extent* frames,
                size_t num_frames,
                uint8_t* out,
                float* soft,
                frame_status* status,
                cudaStream_t stream,
                uint8_t* workspace)
    {
        device_guard guard(d_device);
        const int8_t* derated = nullptr;
        if (d_derate) {
            derate_params r{};
            r.in = in;
            r.frames = frames;
            r.num_frames = static_cast<uint32_t>(num_frames);
            r.source_begin = d_source_begin.get();
            r.sources = d_sources.get();
            r.out = reinterpret_cast<int8_t*>(workspace);
            r.stride = d_derate_stride;
            r.stream_bits = d_code.stream_bits();
            r.stream_total = static_cast<int>(d_code.stream_total());
            r.filler = d_code.filler_bits();
            const dim3 grid(static_cast<unsigned>((r.stream_total + 255) / 256),
                            static_cast<unsigned>(std::min<size_t>(num_frames, 65535)));
            derate_kernel<<<grid, 256, 0, stream>>>(r);
            GPUFEC_CUDA_CHECK_LAUNCH();
            derated = r.out;
        }
        const turbo_io io{ in,      frames,         static_cast<uint32_t>(num_frames),
                           out,     soft,           status,
                           derated, d_derate_stride };
        uint8_t* after_derate = workspace + derate_bytes(num_frames);
        if (runs_cluster_kernel(num_frames)) {
            turbo_cluster::params c = d_cluster;
            c.io = io;
            c.workspace = after_derate;
            cudaLaunchConfig_t cfg =
                cluster_config(std::min(num_frames, d_cluster_max), stream);
            cudaLaunchAttribute attr = cluster_attribute();
            cfg.attrs = &attr;
            GPUFEC_CUDA_CHECK(cudaLaunchKernelEx(
                &cfg, turbo_cluster::cluster_kernel<turbo_window::max_window>, c));
            return;
        }
        int16_t* stakes = reinterpret_cast<int16_t*>(after_derate);
        if (d_use_window) {
            turbo_window::params w = d_window;
            w.io = io;
            w.stakes = stakes;
            const size_t groups = size_t(w.groups);
            const size_t blocks =
                std::min(d_window_blocks, (num_frames + groups - 1) / groups);
            (soft ? d_window_kernel_soft
                  : d_window_kernel)<<<static_cast<unsigned>(blocks),
                                       d_window_threads,
                                       d_window_smem,
                                       stream>>>(w);
            GPUFEC_CUDA_CHECK_LAUNCH();
            return;
        }
        turbo_params p = d_params;
        p.io = io;
        turbo_kernel<<<static_cast<unsigned>(
                           std::min<size_t>(num_frames, size_t(1) << 20)),
                       max_windows,
                       d_smem,
                       stream>>>(p);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

    std::string name() const override
    {
        return "turbo " + d_code.describe() + " on cuda:" + std::to_string(d_device);
    }
    //! The kernel a launch of `frames` code blocks runs: "cluster" (turbo_cluster),
    //! "window" (thread per window, turbo_window) or "block" (a block per code block).
    std::string kernel_name(size_t frames) const
    {
        return runs_cluster_kernel(frames)
                   ? "cluster x" + std::to_string(d_cluster.cluster)
                   : (d_use_window ? (d_window_half ? "window (half metrics)" : "window")
                                   : "block");
    }

private:
    lte_turbo_code d_code;
    int d_device;
    turbo_cuda_kernel d_kernel;
    std::unique_ptr<batch_decoder> d_cpu;
    turbo_params d_params;
    size_t d_smem = 0;
    // The window kernel (turbo_window), when the windows are short enough.
    bool d_use_window = false;
    turbo_window::params d_window{};
    size_t d_window_smem = 0, d_window_blocks = 0;
    int d_window_threads = 0;
    void (*d_window_kernel)(turbo_window::params) = nullptr;
    void (*d_window_kernel_soft)(turbo_window::params) = nullptr; //!< with soft output
    bool d_window_half = false; //!< every second forward metric stored
    // The cluster kernel (turbo_cluster), on compute capability 9.0 and newer.
    bool d_use_cluster = false;
    turbo_cluster::params d_cluster{};
    int d_cluster_threads = 0;
    size_t d_cluster_smem = 0, d_cluster_max = 0, d_sms = 0;
    device_buffer<uint32_t> d_pi, d_column;
    // De-rate-matching (derate_kernel): rate matching or filler bits.
    bool d_derate = false;
    uint32_t d_derate_stride = 0;
    device_buffer<uint32_t> d_source_begin, d_sources;
};

} // namespace

bool turbo_cuda_window_kernel(const lte_turbo_code& code,
                              const turbo_decoder_options& options)
{
    const int P = options.sub_blocks, K = code.k();
    return P >= 1 && P <= turbo_window::max_threads &&
           (K + P - 1) / P <= turbo_window::max_window;
}

bool turbo_cuda_accepts(const lte_turbo_code& code, const turbo_decoder_options& options)
{
    const int P = options.sub_blocks;
    const bool window_kernel = turbo_cuda_window_kernel(code, options);
    if (options.schedule == turbo_schedule::loose)
        return options.arithmetic != turbo_arithmetic::float32 && window_kernel;
    return options.arithmetic != turbo_arithmetic::float32 &&
           ((P >= 1 && P <= max_windows) || window_kernel);
}

turbo_kernel_timing time_turbo_kernel(const lte_turbo_code& code,
                                      const turbo_decoder_options& options,
                                      int device,
                                      const std::vector<int8_t>& llrs,
                                      size_t num_frames,
                                      int reps)
{
    turbo_decoder_cuda dec(code, options, device, turbo_cuda_kernel::automatic);
    device_guard guard(device);
    const size_t k = size_t(code.info_bits());
    const timing_batch b(llrs, code.coded_bits(), k, num_frames);
    batch_limits limits{};
    limits.max_frames = num_frames;
    device_buffer<uint8_t> d_workspace(dec.device_workspace_bytes(limits));
    stream s;
    auto run = [&](int) {
        dec.launch(b.llrs(),
                   b.frames.get(),
                   num_frames,
                   b.out.get(),
                   nullptr,
                   b.status.get(),
                   s.get(),
                   d_workspace.get());
    };
    const std::vector<double> times = time_launches(s, reps, run);
    const double back_to_back = time_back_to_back(s, 10 * reps, run);
    const double clock_mhz = measure_sm_clock_mhz(s);
    turbo_kernel_timing t;
    t.kernel = dec.kernel_name(num_frames);
    t.median_ms = times[times.size() / 2];
    t.info_bits = static_cast<double>(num_frames * k);
    t.mean_iterations = b.mean_iterations();
    t.back_to_back_ms = back_to_back;
    t.sm_clock_mhz = clock_mhz;
    return t;
}

std::unique_ptr<batch_decoder> make_turbo_decoder(const lte_turbo_code& code,
                                                  const turbo_decoder_options& options,
                                                  int device,
                                                  turbo_cuda_kernel kernel)
{
    return std::make_unique<turbo_decoder_cuda>(code, options, device, kernel);
}

} // namespace cuda
} // namespace gpufec
