/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA layered min-sum LDPC decoder of any ldpc_graph (NR BG1/BG2 at every Z, alist
// codes, DVB-S2): the CPU decoder's int8 and half arithmetics
// (lib/cpu/min_sum_kernels.h), so bits, soft output, iterations and parity status are the
// CPU's, bit for bit.
//
// Layout (docs/ldpc-gpu.md): a thread block decodes C codewords at a time (C from the
// code size: many small codewords, or one large one), persistent over the batch. The
// APP values L of its codewords live in shared memory as int16; the check messages R
// (int8, one per edge and lifted row) in a per-block global scratch that stays in L2.
// A layer's check rows are independent (they share no codeword position), so the
// block's threads take them side by side, one row per thread, with a barrier between
// layers. Per row, two passes as on the CPU: Q_j = sat(L - R_j) kept in registers with
// the two smallest |Q| and the sign product, then R_j and L = sat(Q_j + R_j) written
// back. The edge of the minimum is not stored: where |Q_j| equals the minimum and j is
// not the first such edge, the second minimum equals the first, so "|Q_j| == min1 ?
// mag2 : mag1" is the CPU's "j == argmin ? mag2 : mag1".
//
// Early termination per codeword: after each iteration the block checks every parity
// check of its codewords (hard decision L < 0); a codeword whose checks hold stops
// (its rows are skipped) while the others go on; the block moves to its next
// codewords once all of its own have stopped.
//
// Channel: the e LLRs add onto codeword positions through the graph's channel map,
// given to the kernel as runs of consecutive positions ("segments") grouped into
// passes in which no position repeats; the sums stay exact in int16 up to 255 LLRs on
// one position and are then saturated to +/-32000, as the CPU's int32 sums are.
#include "../common/batch_checks.h"
#include "../common/cuda_utils.h"
#include "cpu/env_switch.h"
#include "cpu/min_sum_kernels.h"
#include "ldpc_cuda.h"
#include "min_sum_device.cuh"
#include "nr_layered.cuh"
#include "qc360_layered.cuh"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace gpufec {
namespace cuda {
namespace {

constexpr int app_max = min_sum_device::app_max;
constexpr int max_codewords_per_block = 128;
constexpr int max_zero_ranges = 4;
constexpr int max_row_degree = 64;

//! One run of the channel map: LLRs llr .. llr + len - 1 add onto positions pos ..
//! pos + len - 1. Runs of one pass name distinct positions.
using channel_segment = nr::channel_run;

struct ldpc_kernel_params {
    // The code.
    const int32_t* layer_start; //!< [layers + 1] first base row of each layer
    const int32_t* row_start;   //!< [base rows + 1] first edge of each base row
    const int2* edges;          //!< [edges] (column * Z, shift)
    const int32_t* info;        //!< [k] codeword positions of the output bits
    const channel_segment* segments;
    int32_t num_segments;
    int32_t layers, base_rows, z, n, k, e;
    int32_t r_stride;                  //!< bytes of R per codeword: edges * Z
    int2 zero_ranges[max_zero_ranges]; //!< [begin, end) of known-zero positions
    int32_t num_zero_ranges;
    bool clamp_input; //!< some position sums more than 250 LLRs: saturate after loading
    // Options.
    int32_t iterations;
    bool early_termination;
    bool normalized;
    int32_t alpha16, beta;
    // The batch.
    const int8_t* in;
    const uint8_t* in4; //!< llr_int4 input (then `in` is null)
    const frame_extent* frames;
    uint32_t num_frames;
    uint8_t* out;
    float* soft;
    frame_status* status;
    int8_t* r_scratch; //!< gridDim.x * codewords_per_block * r_stride bytes
    int32_t codewords_per_block;
};

using min_sum_device::half_add;
using min_sum_device::half_bits;
using min_sum_device::sat_app;

__device__ __forceinline__ bool known_zero(const ldpc_kernel_params& p, int v)
{
    bool zero = false;
    for (int i = 0; i < p.num_zero_ranges; i++)
        zero |= v >= p.zero_ranges[i].x && v < p.zero_ranges[i].y;
    return zero;
}

__device__ __forceinline__ int scale_minimum(const ldpc_kernel_params& p, int m)
{
    return min_sum_device::scale_minimum(p.normalized, p.alpha16, p.beta, m);
}

//! Check row t of base row b of one codeword: the CPU's two passes.
template <int MaxDegree, bool Half>
__device__ __forceinline__ void update_row(const ldpc_kernel_params& p,
                                           int16_t* __restrict__ L,
                                           int8_t* __restrict__ R,
                                           int b,
                                           int t,
                                           bool first_iteration)
{
    const int e0 = __ldg(p.row_start + b);
    const int degree = __ldg(p.row_start + b + 1) - e0;
    const int z = p.z;
    int8_t* r = R + static_cast<size_t>(e0) * z + t;
    int q[MaxDegree];
    int v[MaxDegree];
    int min1 = 32767, min2 = 32767, sign = 0;
#pragma unroll
    for (int j = 0; j < MaxDegree; j++) {
        if (j < degree) {
            const int2 edge = __ldg(p.edges + e0 + j);
            int s = t + edge.y;
            s = s >= z ? s - z : s;
            v[j] = edge.x + s;
            const int r_old = first_iteration ? 0 : r[j * z];
            q[j] = Half ? half_add(L[v[j]], -r_old) : sat_app(L[v[j]] - r_old);
            const int a = abs(q[j]);
            min2 = min(min2, max(min1, a));
            min1 = min(min1, a);
            sign ^= q[j];
        }
    }
    const int mag1 = scale_minimum(p, min1), mag2 = scale_minimum(p, min2);
#pragma unroll
    for (int j = 0; j < MaxDegree; j++) {
        if (j < degree) {
            const int mag = abs(q[j]) == min1 ? mag2 : mag1;
            const int r_new = (sign ^ q[j]) < 0 ? -mag : mag;
            r[j * z] = static_cast<int8_t>(r_new);
            if (Half) // known zeros are not pinned (half_traits)
                L[v[j]] = half_bits(half_add(half_bits(q[j]), r_new));
            else
                L[v[j]] = static_cast<int16_t>(
                    known_zero(p, v[j]) ? app_max : sat_app(q[j] + r_new));
        }
    }
}

//! True when check row t of base row b holds on the hard decisions of L.
__device__ __forceinline__ bool
row_holds(const ldpc_kernel_params& p, const int16_t* __restrict__ L, int b, int t)
{
    const int e0 = __ldg(p.row_start + b), e1 = __ldg(p.row_start + b + 1);
    int parity = 0;
    for (int e = e0; e < e1; e++) {
        const int2 edge = __ldg(p.edges + e);
        int s = t + edge.y;
        s = s >= p.z ? s - p.z : s;
        parity ^= L[edge.x + s];
    }
    return parity >= 0; // sign bit of the XOR: an even number of negative L
}

template <int MaxDegree, bool Half>
__global__ void ldpc_layered_kernel(ldpc_kernel_params p)
{
    extern __shared__ int16_t app[]; // codewords_per_block * n
    __shared__ int done[max_codewords_per_block];
    __shared__ int failed[max_codewords_per_block];
    __shared__ int iterations_used[max_codewords_per_block];

    const int tid = threadIdx.x, threads = blockDim.x;
    const int C = p.codewords_per_block, n = p.n, z = p.z;
    const uint32_t groups = (p.num_frames + C - 1) / C;
    int8_t* r_block = p.r_scratch + static_cast<size_t>(blockIdx.x) * C * p.r_stride;

    for (uint32_t g = blockIdx.x; g < groups; g += gridDim.x) {
        const uint32_t f0 = g * C;
        const int count =
            static_cast<int>(min(static_cast<uint32_t>(C), p.num_frames - f0));

        // ---- channel LLRs onto the codewords
        for (int i = tid; i < count * n; i += threads) {
            const int v = i % n;
            app[i] = static_cast<int16_t>(known_zero(p, v) ? app_max : 0);
        }
        if (tid < count) {
            done[tid] = 0;
            iterations_used[tid] = 0;
            failed[tid] = 0;
        }
        for (int s = 0; s < p.num_segments; s++) {
            const channel_segment seg = p.segments[s];
            if (s == 0 || seg.pass != p.segments[s - 1].pass)
                __syncthreads();
            // Several loads in flight per thread (as the NR kernel).
            const int total = count * seg.len;
            for (int i0 = tid; i0 < total; i0 += nr::channel_batch * threads) {
                int at[nr::channel_batch], llr[nr::channel_batch];
#pragma unroll
                for (int u = 0; u < nr::channel_batch; u++) {
                    const int i = i0 + u * threads;
                    at[u] = -1;
                    llr[u] = 0;
                    if (i >= total)
                        continue;
                    const int c = i / seg.len, j = i - c * seg.len;
                    llr[u] = nr::channel_llr(
                        p.in, p.in4, p.frames[f0 + c].in_offset, seg.llr + j);
                    at[u] = c * n + seg.pos + j;
                }
#pragma unroll
                for (int u = 0; u < nr::channel_batch; u++)
                    if (at[u] >= 0)
                        app[at[u]] += static_cast<int16_t>(llr[u]);
            }
        }
        __syncthreads();
        if (p.clamp_input || Half) {
            for (int i = tid; i < count * n; i += threads) {
                const int x = p.clamp_input ? sat_app(app[i]) : app[i];
                app[i] = Half ? half_bits(x) : static_cast<int16_t>(x);
            }
            __syncthreads();
        }

        // ---- layered iterations
        for (int it = 0; it < p.iterations; it++) {
            for (int l = 0; l < p.layers; l++) {
                const int b0 = __ldg(p.layer_start + l);
                const int rows = (__ldg(p.layer_start + l + 1) - b0) * z;
                for (int i = tid; i < count * rows; i += threads) {
                    const int c = count == 1 ? 0 : i / rows;
                    const int row = i - c * rows;
                    if (done[c])
                        continue;
                    const int b = b0 + row / z, t = row - (row / z) * z;
                    update_row<MaxDegree, Half>(p,
                                                app + c * n,
                                                r_block +
                                                    static_cast<size_t>(c) * p.r_stride,
                                                b,
                                                t,
                                                it == 0);
                }
                __syncthreads();
            }
            const bool last = it + 1 == p.iterations;
            if (p.early_termination || last) {
                const int rows = p.base_rows * z;
                for (int i = tid; i < count * rows; i += threads) {
                    const int c = count == 1 ? 0 : i / rows;
                    const int row = i - c * rows;
                    if (!done[c] && !row_holds(p, app + c * n, row / z, row % z))
                        failed[c] = 1; // benign race: every writer writes 1
                }
                __syncthreads();
            }
            bool active = false;
            if (tid < count && !done[tid]) {
                iterations_used[tid] = it + 1;
                if ((p.early_termination || last) && !failed[tid] && p.early_termination)
                    done[tid] = 1;
                active = !done[tid];
                if (!last)
                    failed[tid] = 0;
            }
            if (!__syncthreads_or(active))
                break;
        }

        // ---- outputs
        const int bytes = (p.k + 7) / 8;
        for (int i = tid; i < count * bytes; i += threads) {
            const int c = i / bytes, byte = i - c * bytes;
            const int16_t* L = app + c * n;
            unsigned bits = 0;
            for (int j = 0; j < 8; j++) {
                const int at = byte * 8 + j;
                const int neg = at < p.k ? L[__ldg(p.info + at)] < 0 : 0; // sign bit
                bits |= static_cast<unsigned>(neg) << (7 - j);
            }
            p.out[p.frames[f0 + c].out_offset + byte] = static_cast<uint8_t>(bits);
        }
        if (p.soft) {
            for (int i = tid; i < count * p.k; i += threads) {
                const int c = i / p.k, at = i - c * p.k;
                const int16_t l = app[c * n + __ldg(p.info + at)];
                p.soft[8 * p.frames[f0 + c].out_offset + at] =
                    Half ? __half2float(__short_as_half(l)) : static_cast<float>(l);
            }
        }
        if (tid < count) {
            frame_status st;
            st.iterations = iterations_used[tid];
            // Without early termination the checks ran after the last iteration only;
            // with it, a codeword that stopped early passed them.
            st.ok = done[tid] || !failed[tid];
            p.status[f0 + tid] = st;
        }
        __syncthreads(); // app and the flags are reused by the next codewords
    }
}

using kernel_fn = void (*)(ldpc_kernel_params);

template <bool Half>
kernel_fn pick_kernel(int max_degree, int& bound)
{
    if (max_degree <= 12) {
        bound = 12;
        return ldpc_layered_kernel<12, Half>;
    }
    if (max_degree <= 20) {
        bound = 20;
        return ldpc_layered_kernel<20, Half>;
    }
    if (max_degree <= 32) {
        bound = 32;
        return ldpc_layered_kernel<32, Half>;
    }
    bound = 64;
    return ldpc_layered_kernel<64, Half>;
}

// ---- host side ------------------------------------------------------------------------


//! Information bits below which a batch leaves the engine's launches too short to
//! overlap well (2^21 bits a batch: ~10 Gb/s against ~15 at 2^22, BG1 Z = 384, H200).
constexpr size_t min_batch_info_bits = size_t(1) << 22;

class ldpc_decoder_cuda final : public batch_decoder
{
public:
    ldpc_decoder_cuda(const ldpc_graph& graph,
                      const ldpc_decoder_options& options,
                      int device)
        : d_graph(checked(graph)), d_cfg(options), d_device(device)
    {
        const std::string who = "ldpc decoder (cuda): ";
        if (options.arithmetic == ldpc_arithmetic::float32)
            throw error(who + "arithmetic \"float\" runs on the CPU only; allowed on "
                              "cuda: int8, half");
        d_half = options.arithmetic == ldpc_arithmetic::half;
        require_device(device);
        d_device_name = device_name(device);
        device_guard guard(device);

        const ldpc_graph& g = d_graph;
        const int z = g.z;
        int max_degree = 0, max_layer_rows = 0;
        for (int b = 0; b < g.base_rows(); b++)
            max_degree = std::max(max_degree, g.row_start[b + 1] - g.row_start[b]);
        for (int l = 0; l < g.layers(); l++)
            max_layer_rows =
                std::max(max_layer_rows, (g.layer_start[l + 1] - g.layer_start[l]) * z);
        if (max_degree > max_row_degree)
            throw error(who + g.description + " has a check row of degree " +
                        std::to_string(max_degree) + "; allowed on cuda: up to " +
                        std::to_string(max_row_degree) + " (the CPU decoder takes any)");
        d_kernel = d_half ? pick_kernel<true>(max_degree, d_degree_bound)
                          : pick_kernel<false>(max_degree, d_degree_bound);

        // Edges as (column * Z, shift).
        std::vector<int2> edges(g.edges());
        for (int e = 0; e < g.edges(); e++)
            edges[e] = make_int2(g.edge_col[e] * z, g.edge_shift[e]);

        // Known zeros as ranges.
        std::vector<int2> zero_ranges;
        for (int v : g.known_zeros) {
            if (!zero_ranges.empty() && zero_ranges.back().y == v)
                zero_ranges.back().y = v + 1;
            else
                zero_ranges.push_back(make_int2(v, v + 1));
        }
        if (zero_ranges.size() > static_cast<size_t>(max_zero_ranges))
            throw error(who + g.description + " has " +
                        std::to_string(zero_ranges.size()) +
                        " runs of known-zero bits; allowed on cuda: up to " +
                        std::to_string(max_zero_ranges));

        // The channel map as runs of consecutive positions, in passes.
        std::vector<channel_segment> segments;
        std::vector<int> pass_of(g.n(), -1), hits(g.n(), 0);
        int pass = 0, max_hits = 0;
        for (int i = 0; i < g.e(); i++) {
            const int v = g.channel_map[i];
            max_hits = std::max(max_hits, ++hits[v]);
            const bool extends = !segments.empty() && i > 0 &&
                                 g.channel_map[i - 1] + 1 == v && pass_of[v] != pass;
            if (!extends) {
                if (pass_of[v] == pass)
                    pass++;
                segments.push_back(channel_segment{ i, v, 0, pass });
            }
            segments.back().len++;
            pass_of[v] = pass;
        }
        if (max_hits > 255)
            throw error(who + g.description + " repeats a codeword position " +
                        std::to_string(max_hits) + " times; allowed on cuda: up to 255");

        // Codewords per block: enough rows per layer to occupy ~256 threads, within
        // a shared-memory budget that leaves room for two blocks per SM.
        const size_t app_bytes = sizeof(int16_t) * g.n();
        int per_block = std::max(1, 256 / std::max(1, max_layer_rows));
        per_block = std::min<int>(per_block, max_codewords_per_block);
        while (per_block > 1 && per_block * app_bytes > 96 * 1024)
            per_block--;
        d_codewords_per_block = per_block;
        d_threads =
            std::min(1024, std::max(64, (per_block * max_layer_rows + 31) / 32 * 32));
        d_smem = per_block * app_bytes;
        const size_t max_smem = max_block_smem(device);
        if (d_smem > max_smem - 3 * 4 * max_codewords_per_block)
            throw error(who + g.description + " needs " + std::to_string(d_smem) +
                        " bytes of shared memory per codeword (n = " +
                        std::to_string(g.n()) + "); allowed on " + d_device_name +
                        ": up to " + std::to_string(max_smem) + " bytes");
        d_resident_blocks = resident_blocks(d_kernel, "the kernel");

        upload(d_layer_start,
               std::vector<int32_t>(g.layer_start.begin(), g.layer_start.end()));
        upload(d_row_start, std::vector<int32_t>(g.row_start.begin(), g.row_start.end()));
        upload(d_edges, edges);
        upload(d_info,
               std::vector<int32_t>(g.info_positions.begin(), g.info_positions.end()));
        upload(d_segments, segments);

        ldpc_kernel_params& p = d_params;
        p = ldpc_kernel_params{};
        p.layer_start = d_layer_start.get();
        p.row_start = d_row_start.get();
        p.edges = d_edges.get();
        p.info = d_info.get();
        p.segments = d_segments.get();
        p.num_segments = static_cast<int32_t>(segments.size());
        p.layers = g.layers();
        p.base_rows = g.base_rows();
        p.z = z;
        p.n = g.n();
        p.k = g.k();
        p.e = g.e();
        p.r_stride = g.edges() * z;
        for (size_t i = 0; i < zero_ranges.size(); i++)
            p.zero_ranges[i] = zero_ranges[i];
        p.num_zero_ranges = static_cast<int32_t>(zero_ranges.size());
        p.clamp_input = max_hits * 128 > app_max;
        p.iterations = options.iterations;
        p.early_termination = options.early_termination;
        p.normalized = options.algorithm == ldpc_algorithm::normalized;
        p.alpha16 = d_cfg.alpha16();
        p.beta = d_cfg.beta_int();
        p.codewords_per_block = d_codewords_per_block;

        d_nr_graph = nr_base_graph(g, zero_ranges.size());
        // The NR kernel holds a codeword pair's APP values (4 bytes a bit); where one
        // pair does not fit the device's shared memory (BG1 Z = 384 on GPUs with 99 KiB
        // a block), the generic kernel above decodes the code (2 bytes a bit).
        if (d_nr_graph && sizeof(uint32_t) * g.n() + nr::static_smem_bytes > max_smem)
            d_nr_graph = 0;
        if (d_nr_graph)
            setup_nr(g, options, zero_ranges, max_hits);
        else if (const auto plan = make_qc360_plan(g))
            setup_qc360(*plan, options);
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }
    bool has_soft_output() const override { return true; }
    input_format input() const override
    {
        return d_cfg.options().int4_input ? input_format::llr_int4
                                          : input_format::llr_int8;
    }
    size_t max_input_items_per_frame() const override { return d_graph.e(); }
    size_t default_input_items() const override { return d_graph.e(); }
    size_t default_output_bits() const override { return d_graph.k(); }
    size_t output_bits_for_input(size_t items) const override
    {
        if (items != static_cast<size_t>(d_graph.e()))
            throw error("ldpc decoder: a frame of " + std::to_string(items) +
                        " LLRs does not match the code; allowed: e = " +
                        std::to_string(d_graph.e()));
        return d_graph.k();
    }

    //! Whole rounds of the codewords that run at once, the fewest that carry
    //! min_batch_info_bits (within preferred_batch_max_input_bytes): a batch that ends in
    //! a part-filled round leaves SMs idle while its last blocks run. H200, BG1 Z = 384,
    //! half, 5 iterations, end to end with int8 input: 497 frames a batch (2^22 bits,
    //! 0.94 of a round) 14.7 Gb/s, 528 (one round) 15.3, 1056 15.4 (docs/ldpc-gpu.md).
    size_t preferred_batch_frames() const override
    {
        const size_t round = frames_per_round();
        const size_t round_bits = round * static_cast<size_t>(d_graph.k());
        const size_t round_bytes = round * static_cast<size_t>(d_graph.e());
        const size_t rounds =
            std::min((min_batch_info_bits + round_bits - 1) / round_bits,
                     preferred_batch_max_input_bytes / round_bytes);
        return round * std::max<size_t>(1, rounds);
    }

    //! Codewords the kernel decodes at once: resident blocks times codewords a block.
    size_t frames_per_round() const
    {
        if (d_nr_graph)
            return static_cast<size_t>(d_resident_blocks) * 2 * d_nr.slots;
        return static_cast<size_t>(d_resident_blocks) * d_codewords_per_block;
    }

    //! R scratch of the blocks that run at once (the kernel is persistent); the NR
    //! kernel's looped variant keeps its row state there, the unrolled one in registers.
    size_t device_workspace_bytes(const batch_limits& limits) const override
    {
        if (d_nr_graph)
            return d_nr_looped ? sizeof(uint32_t) * nr_blocks_for(limits.max_frames) *
                                     d_nr_state_column * nr::state_stride
                               : 0;
        if (d_qc360_kernel)
            return sizeof(uint32_t) * blocks_for(limits.max_frames) * d_qc360_words;
        return static_cast<size_t>(blocks_for(limits.max_frames)) *
               d_codewords_per_block * d_params.r_stride;
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        const size_t nf = batch.num_frames;
        check_frames(*this, batch, d_graph.k(), "ldpc decoder");
        if (nf == 0)
            return;
        const bool int4 = d_cfg.options().int4_input;
        require_engine_buffers(batch.device_frames && batch.device_status &&
                                   (int4 ? static_cast<const void*>(batch.in_int4)
                                         : static_cast<const void*>(batch.in)),
                               "ldpc decoder",
                               "device frame table, status or int8 input");
        launch(int4 ? nullptr : batch.in,
               int4 ? batch.in_int4 : nullptr,
               batch.device_frames,
               nf,
               batch.out,
               batch.soft_out,
               batch.device_status,
               static_cast<int8_t*>(ctx.device_workspace),
               static_cast<cudaStream_t>(ctx.stream));
    }

    //! Enqueues the kernel; `r_scratch` holds device_workspace_bytes() for nf frames.
    void launch(const int8_t* in,
                const uint8_t* in4,
                const frame_extent* frames,
                size_t nf,
                uint8_t* out,
                float* soft,
                frame_status* status,
                int8_t* r_scratch,
                cudaStream_t stream) const
    {
        // The three kernels' parameter blocks share the batch's fields.
        auto with_batch = [&](auto p) {
            p.in = in;
            p.in4 = in4;
            p.frames = frames;
            p.num_frames = static_cast<uint32_t>(nf);
            p.out = out;
            p.soft = soft;
            p.status = status;
            return p;
        };
        device_guard guard(d_device);
        if (d_nr_graph) {
            nr::params p = with_batch(d_nr);
            p.state = reinterpret_cast<uint32_t*>(r_scratch);
            nr_kernel()<<<nr_blocks_for(nf), d_threads, d_smem, stream>>>(p);
        } else if (d_qc360_kernel) {
            qc360::params p = with_batch(d_qc360);
            p.r_scratch = reinterpret_cast<uint32_t*>(r_scratch);
            d_qc360_kernel<<<blocks_for(nf), d_threads, d_smem, stream>>>(p);
        } else {
            ldpc_kernel_params p = with_batch(d_params);
            p.r_scratch = r_scratch;
            d_kernel<<<blocks_for(nf), d_threads, d_smem, stream>>>(p);
        }
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

    std::string name() const override
    {
        const ldpc_decoder_options& o = d_cfg.options();
        return d_graph.description + " " +
               (o.algorithm == ldpc_algorithm::normalized ? "normalized" : "offset") +
               " min-sum " + (d_half ? "half" : "int8") + " x" +
               std::to_string(o.iterations) + " on cuda:" + std::to_string(d_device) +
               " (" + d_device_name + ")";
    }

    std::string kernel_name() const
    {
        if (d_nr_graph)
            return std::string(d_nr_looped ? "nr-looped<BG" : "nr-layered<BG") +
                   std::to_string(d_nr_graph) + (d_half ? ", half" : ", int16") + "> " +
                   std::to_string(2 * d_nr.slots) + " cw/block, " +
                   std::to_string(d_threads) + " threads, " + std::to_string(d_smem) +
                   " B smem, " + std::to_string(d_resident_blocks) + " blocks";
        if (d_qc360_kernel)
            return "qc360-layered<" + std::to_string(d_degree_bound) +
                   (d_half ? ", half" : ", int16") + "> 1 cw/block, " +
                   std::to_string(d_threads) + " threads, " + std::to_string(d_smem) +
                   " B smem, " + std::to_string(d_resident_blocks) + " blocks";
        return "layered<" + std::to_string(d_degree_bound) +
               (d_half ? ", half" : ", int16") + "> " +
               std::to_string(d_codewords_per_block) + " cw/block, " +
               std::to_string(d_threads) + " threads, " + std::to_string(d_smem) +
               " B smem";
    }

private:
    //! 1 or 2 when the graph is an NR base graph lifted by Z >= nr::min_z in table order
    //! with at most one run of fillers (the NR kernel's case), else 0.
    static int nr_base_graph(const ldpc_graph& g, size_t zero_runs)
    {
        // A thread per lifted row, at most max_threads (= state_stride) a block: larger
        // Z (not in TS 38.212, whose largest is 384) keeps the generic kernel.
        if (g.z < nr::min_z || g.z > nr::max_threads || g.layers() != g.base_rows() ||
            zero_runs > 1)
            return 0;
        auto matches =
            [&](const int* degree, const bool* barrier_after, int rows, int columns) {
                if (g.base_rows() != rows || g.base_columns != columns)
                    return false;
                std::vector<int> group_of_column(columns, -1);
                int group = 0;
                for (int r = 0; r < rows; r++) {
                    if (g.row_start[r + 1] - g.row_start[r] != degree[r] ||
                        g.layer_start[r] != r)
                        return false;
                    // Rows updated side by side (no barrier between) share no column.
                    for (int e = g.row_start[r]; e < g.row_start[r + 1]; e++) {
                        if (group_of_column[g.edge_col[e]] == group)
                            return false;
                        group_of_column[g.edge_col[e]] = group;
                    }
                    group += barrier_after[r];
                }
                return true;
            };
        if (matches(nr::base_graph<1>::degree,
                    nr::base_graph<1>::barrier_after,
                    nr::base_graph<1>::rows,
                    nr::base_graph<1>::columns))
            return 1;
        if (matches(nr::base_graph<2>::degree,
                    nr::base_graph<2>::barrier_after,
                    nr::base_graph<2>::rows,
                    nr::base_graph<2>::columns))
            return 2;
        return 0;
    }

    void setup_nr(const ldpc_graph& g,
                  const ldpc_decoder_options& options,
                  const std::vector<int2>& zero_ranges,
                  int max_hits)
    {
        nr::params& p = d_nr;
        p = nr::params{};
        // As many codeword pairs per block as fill its 384 threads (one block per SM for
        // the unrolled kernel, two for the looped one: registers), within the shared
        // memory.
        int slots = std::max(1, std::min(nr::max_threads / g.z, nr::max_slots));
        const size_t max_smem = max_block_smem(d_device);
        while (slots > 1 &&
               sizeof(uint32_t) * g.n() * slots + nr::static_smem_bytes > max_smem)
            slots--;
        p.slots = slots;
        d_threads = (slots * g.z + 31) / 32 * 32;
        d_smem = sizeof(uint32_t) * g.n() * slots;
        // The looped layers (check messages in an L2-resident scratch, two blocks per
        // SM) were faster where the rows are long: BG1 with either arithmetic, BG2 with
        // int8; BG2 with half APP keeps the unrolled kernel (H200, docs/ldpc-gpu.md).
        // GPUFEC_LDPC_NR_KERNEL=looped|unrolled overrides the choice, for measurement.
        d_nr_looped = d_nr_graph == 1 || !d_half;
        const std::string variant = env_switch(
            "GPUFEC_LDPC_NR_KERNEL", { "looped", "unrolled" }, "ldpc decoder (cuda)");
        if (!variant.empty())
            d_nr_looped = variant == "looped";
        // The unrolled kernel interleaves its slots' APP values (position v of slot s at
        // word v slots + s), so its byte offsets count 4 slots bytes a position.
        const uint32_t pos4 = 4u * static_cast<uint32_t>(d_nr_looped ? 1 : slots);
        p.pos4 = pos4;
        for (int e = 0; e < g.edges(); e++)
            p.edge4[e] = make_uint2(pos4 * g.edge_col[e] * g.z, pos4 * g.edge_shift[e]);
        const bool* barrier_after = d_nr_graph == 1 ? nr::base_graph<1>::barrier_after
                                                    : nr::base_graph<2>::barrier_after;
        for (int r = 0; r < g.base_rows(); r++) {
            p.row_info[r] = static_cast<uint32_t>(g.row_start[r]) |
                            static_cast<uint32_t>(g.row_start[r + 1] - g.row_start[r])
                                << nr::row_degree_shift |
                            (barrier_after[r] ? nr::row_barrier_bit : 0u);
        }
        p.z = g.z;
        p.n = g.n();
        p.k = g.k();
        p.zero_begin = zero_ranges.empty() ? 0 : zero_ranges[0].x;
        p.zero_end = zero_ranges.empty() ? 0 : zero_ranges[0].y;
        p.z4 = pos4 * g.z;
        p.zero_begin4 = pos4 * p.zero_begin;
        p.zero_end4 = pos4 * p.zero_end;
        p.info = d_info.get();
        p.runs = d_segments.get();
        p.num_runs = d_params.num_segments;
        p.clamp_input = max_hits * 128 > app_max;
        p.iterations = options.iterations;
        p.early_termination = options.early_termination;
        const bool normalized = options.algorithm == ldpc_algorithm::normalized;
        p.scale_mul = normalized ? static_cast<uint32_t>(d_cfg.alpha16()) : 16u;
        const int subtract = normalized ? 0 : d_cfg.beta_int();
        p.scale_sub_pair_neg =
            static_cast<uint32_t>(static_cast<uint16_t>(-subtract)) * 0x10001u;
        d_nr_state_column =
            d_nr_graph == 1 ? nr::state_column<1>() : nr::state_column<2>();
        d_resident_blocks = resident_blocks(nr_kernel(), "the NR kernel");
    }

    //! The 360-periodic kernel (DVB-S2) from its plan; leaves the generic kernel in
    //! place when the rows are too long for it or its shared memory does not fit.
    void setup_qc360(const qc360_plan& plan, const ldpc_decoder_options& options)
    {
        const int bound = qc360::degree_bound(plan.max_degree);
        const qc360::kernel_fn kernel = qc360::kernel_for(bound, d_half);
        if (!kernel)
            return;
        qc360::params& p = d_qc360;
        p = qc360::params{};
        p.num_layers = static_cast<int32_t>(plan.layers.size());
        p.null_cells = plan.cells;
        p.cells_padded = (plan.cells + qc360_period + 7) / 8 * 8;
        const size_t smem = qc360::shared_bytes(p, bound);
        if (smem > max_block_smem(d_device))
            return;
        // Each layer's slots padded to `bound` with null slots (the kernel's rows are
        // branch-free).
        std::vector<qc360_layer> layers = plan.layers;
        // (2 base, shift): the kernel addresses the APP values in bytes.
        const int stride = qc360::slot_stride(bound);
        std::vector<int2> slots(layers.size() * stride, make_int2(2 * p.null_cells, 0));
        for (size_t l = 0; l < layers.size(); l++) {
            const int first = layers[l].first_slot;
            for (int j = 0; j < layers[l].degree; j++)
                slots[l * stride + j] =
                    make_int2(2 * plan.slot_base[first + j], plan.slot_shift[first + j]);
            layers[l].first_slot = static_cast<int32_t>(l * stride);
        }
        upload(d_qc360_layers, layers);
        upload(d_qc360_slots, slots);
        upload(d_qc360_cell_of, plan.cell_of);
        upload(d_qc360_info_cell, plan.info_cell);
        p.layers = d_qc360_layers.get();
        p.slots = d_qc360_slots.get();
        p.cell_of = d_qc360_cell_of.get();
        p.info_cell = d_qc360_info_cell.get();
        d_qc360_words = qc360::message_words(bound, p.num_layers);
        p.n = plan.n;
        p.k = plan.k;
        p.iterations = options.iterations;
        p.early_termination = options.early_termination;
        p.normalized = options.algorithm == ldpc_algorithm::normalized;
        p.alpha16 = d_cfg.alpha16();
        p.beta = d_cfg.beta_int();
        d_degree_bound = bound;
        d_codewords_per_block = 1;
        d_threads = qc360::threads;
        d_smem = smem;
        d_resident_blocks = resident_blocks(kernel, "the 360-periodic kernel");
        d_qc360_kernel = kernel;
    }

    using nr_kernel_fn = void (*)(nr::params);
    nr_kernel_fn nr_kernel() const
    {
        if (d_nr_looped) {
            if (d_nr_graph == 1)
                return d_half ? nr::nr_layered_kernel<1, true, true>
                              : nr::nr_layered_kernel<1, false, true>;
            return d_half ? nr::nr_layered_kernel<2, true, true>
                          : nr::nr_layered_kernel<2, false, true>;
        }
        if (d_nr_graph == 1)
            return d_half ? nr::nr_layered_kernel<1, true>
                          : nr::nr_layered_kernel<1, false>;
        return d_half ? nr::nr_layered_kernel<2, true> : nr::nr_layered_kernel<2, false>;
    }

    //! Blocks of the NR kernel for nf frames: one per group of slots codeword pairs, at
    //! most as many as run at once (the kernel is persistent).
    unsigned nr_blocks_for(size_t nf) const
    {
        return static_cast<unsigned>(std::max<size_t>(
            1,
            std::min<size_t>(((nf + 1) / 2 + d_nr.slots - 1) / d_nr.slots,
                             d_resident_blocks)));
    }

    //! Blocks of `kernel` (d_threads threads, d_smem bytes of shared memory) that run
    //! at once on the device; throws when not even one fits.
    template <typename Params>
    int resident_blocks(void (*kernel)(Params), const char* what) const
    {
        raise_dynamic_smem_limit(kernel, d_smem);
        int per_sm = 0, sms = 0;
        GPUFEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, kernel, d_threads, d_smem));
        GPUFEC_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d_device));
        if (per_sm < 1)
            throw error("ldpc decoder (cuda): " + std::string(what) +
                        " does not fit on " + d_device_name);
        return per_sm * sms;
    }

    static const ldpc_graph& checked(const ldpc_graph& graph)
    {
        graph.validate();
        return graph;
    }

    unsigned blocks_for(size_t frames) const
    {
        const size_t groups =
            (frames + d_codewords_per_block - 1) / d_codewords_per_block;
        return static_cast<unsigned>(
            std::max<size_t>(1, std::min<size_t>(groups, d_resident_blocks)));
    }

    ldpc_graph d_graph;
    min_sum::config d_cfg;
    int d_device;
    std::string d_device_name;
    kernel_fn d_kernel = nullptr;
    int d_degree_bound = 0;
    int d_codewords_per_block = 1, d_threads = 256, d_resident_blocks = 1;
    size_t d_smem = 0;
    device_buffer<int32_t> d_layer_start, d_row_start, d_info;
    device_buffer<int2> d_edges;
    device_buffer<channel_segment> d_segments;
    ldpc_kernel_params d_params;
    int d_nr_graph = 0;  //!< 1, 2: the NR kernel of that base graph runs
    bool d_half = false; //!< ldpc_arithmetic::half
    nr::params d_nr;
    bool d_nr_looped = false;                  //!< the NR kernel's looped variant
    int d_nr_state_column = 0;                 //!< its state words a thread, padding too
    qc360::kernel_fn d_qc360_kernel = nullptr; //!< set: the 360-periodic kernel runs
    qc360::params d_qc360;
    size_t d_qc360_words = 0; //!< check-message words per block
    device_buffer<qc360_layer> d_qc360_layers;
    device_buffer<int2> d_qc360_slots;
    device_buffer<int32_t> d_qc360_cell_of, d_qc360_info_cell;
};

} // namespace

std::unique_ptr<batch_decoder> make_ldpc_decoder(const ldpc_graph& graph,
                                                 const ldpc_decoder_options& options,
                                                 int device)
{
    return std::make_unique<ldpc_decoder_cuda>(graph, options, device);
}

ldpc_kernel_timing time_ldpc_kernel(const ldpc_graph& graph,
                                    const ldpc_decoder_options& options,
                                    int device,
                                    const std::vector<int8_t>& llrs,
                                    size_t num_frames,
                                    int reps)
{
    ldpc_decoder_cuda dec(graph, options, device);
    device_guard guard(device);
    const size_t e = graph.e();
    if (llrs.size() < e || llrs.size() % e)
        throw error("time_ldpc_kernel: llrs must hold whole frames of e = " +
                    std::to_string(e) + " LLRs");
    const size_t given = llrs.size() / e;
    const bool int4 = options.int4_input;
    // 4-bit frames start on a byte, as the engine lays them out.
    const size_t stride = int4 ? (e + 1) & ~size_t(1) : e;
    const size_t out_bytes = (packed_bytes(graph.k()) + 3) / 4 * 4;
    std::vector<frame_extent> frames(num_frames);
    for (size_t f = 0; f < num_frames; f++)
        frames[f] = frame_extent{ f * stride,
                                  static_cast<uint32_t>(e),
                                  f * out_bytes,
                                  static_cast<uint32_t>(graph.k()) };
    // Several input sets, each the given frames repeated in a different rotation.
    constexpr int sets = 4;
    std::vector<device_buffer<int8_t>> inputs(sets);
    std::vector<device_buffer<uint8_t>> inputs4(sets);
    std::vector<int8_t> host(num_frames * stride);
    std::vector<uint8_t> packed(int4 ? num_frames * stride / 2 : 0);
    for (int s = 0; s < sets; s++) {
        for (size_t f = 0; f < num_frames; f++)
            std::memcpy(host.data() + f * stride, llrs.data() + ((f + s) % given) * e, e);
        if (int4) {
            pack_llrs_int4(host.data(), packed.data(), host.size());
            upload(inputs4[s], packed);
        } else {
            upload(inputs[s], host);
        }
    }
    device_buffer<frame_extent> d_frames;
    upload(d_frames, frames);
    device_buffer<uint8_t> out(num_frames * out_bytes);
    device_buffer<frame_status> status(num_frames);
    batch_limits limits{};
    limits.max_frames = num_frames;
    device_buffer<int8_t> scratch(
        std::max<size_t>(1, dec.device_workspace_bytes(limits)));

    stream s;
    const std::vector<double> times = time_launches(s, reps, [&](int i) {
        dec.launch(int4 ? nullptr : inputs[i % sets].get(),
                   int4 ? inputs4[i % sets].get() : nullptr,
                   d_frames.get(),
                   num_frames,
                   out.get(),
                   nullptr,
                   status.get(),
                   scratch.get(),
                   s.get());
    });
    std::vector<frame_status> st(num_frames);
    GPUFEC_CUDA_CHECK(cudaMemcpy(st.data(),
                                 status.get(),
                                 num_frames * sizeof(frame_status),
                                 cudaMemcpyDeviceToHost));
    ldpc_kernel_timing t;
    t.median_ms = times[times.size() / 2];
    t.min_ms = times.front();
    t.info_bits = static_cast<double>(num_frames) * graph.k();
    double iters = 0;
    for (const auto& x : st)
        iters += x.iterations;
    t.mean_iterations = iters / num_frames;
    t.kernel = dec.kernel_name();
    return t;
}

} // namespace cuda
} // namespace gpufec
