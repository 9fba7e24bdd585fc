/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA AWGN/BPSK source: Philox info bits -> convolutional encoding -> BPSK + AWGN ->
// float LLRs, one kernel, bit-identical to the CPU source.
//
// Work split: a block handles one tile (tile_llrs consecutive transmitted bits) of one
// frame. Every thread draws the noise of groups of 4 transmitted bits (one Philox call,
// two Box-Muller pairs) before the barrier; meanwhile a few threads regenerate the info
// words the tile's trellis stages touch into shared memory. Each coded bit is then the
// parity of a K-bit window of those words (no sequential encoder state): a funnel shift
// extracts the window, a small table maps the transmitted index to (stage, output)
// through the puncturing period.
#include "cpu/awgn_source_common.h"
#include "cuda/channel/awgn_source_cuda.h"
#include "cuda/common/cuda_utils.h"
#include <gpufec/philox.h>
#include <algorithm>
#include <atomic>
#include <climits>
#include <iterator>
#include <vector>

namespace gpufec {
namespace cuda {
namespace {

struct kernel_params {
    uint64_t seed;
    uint32_t info_bits;     // I
    uint32_t info_words;    // ceil(I / 32)
    uint32_t coded_bits;    // transmitted bits per frame
    uint32_t tiles;         // tiles per frame
    uint32_t tile_llrs;     // transmitted bits per tile (multiple of 4)
    uint32_t k;             // constraint length
    uint32_t ones;          // transmitted bits per puncturing period
    uint32_t period_stages; // trellis stages per puncturing period
    uint32_t tail_biting;
    uint32_t smem_words; // capacity of the shared info-word window
    float sigma;
    float llr_scale;
    // Per kept position of the puncturing period: (stage in period << table_shift) | taps
    // of its output over the K-bit window whose LSB is the OLDEST bit.
    const uint32_t* table;
};

constexpr uint32_t table_shift = 9; // K <= 9 tap bits below the stage
constexpr uint32_t table_taps = (1u << table_shift) - 1;

struct launch_policy {
    int threads;
    int groups; // groups of 4 transmitted bits per thread
};
// A frame is cut into ceil(groups / (threads * groups per thread)) tiles of equal size
// (rounded up to whole groups of 4 bits), so no tile is a nearly empty remainder.
constexpr launch_policy policies[] = { { 256, 1 }, { 256, 2 }, { 128, 4 },
                                       { 512, 1 }, { 256, 4 }, { 128, 8 } };
// 128 x 4 is fastest on an H100 80GB: 1008 GB/s written for K=7 r=1/2 2048-bit frames.
constexpr int default_policy = 2;

__host__ __device__ inline int32_t floor_div32(int32_t x)
{
    return x >= 0 ? x / 32 : -((31 - x) / 32);
}

//! Stage of transmitted bit j (through the puncturing table).
__host__ __device__ __forceinline__ int32_t stage_of(const kernel_params& p,
                                                     const uint32_t* table,
                                                     uint32_t j)
{
    const uint32_t period = j / p.ones;
    return static_cast<int32_t>(period * p.period_stages +
                                (table[j - period * p.ones] >> table_shift));
}

//! Info word w of the frame extended to the whole trellis: w < 0 holds the bits before
//! stage 0 (the tail-biting preload, else zeros), w >= info_words the (zero) tail.
__device__ __forceinline__ uint32_t extended_info_word(const kernel_params& p,
                                                       uint64_t frame,
                                                       int32_t w)
{
    if (w >= static_cast<int32_t>(p.info_words))
        return 0;
    if (w >= 0) {
        uint32_t word = philox::info_word(p.seed, frame, static_cast<uint32_t>(w));
        const uint32_t valid = p.info_bits - 32u * static_cast<uint32_t>(w);
        return valid >= 32 ? word : word & ((1u << valid) - 1u);
    }
    if (!p.tail_biting || w < -1)
        return 0;
    // Bits x[-1] .. x[-(K-1)] at the top of word -1; x[-d] = x[(I - d % I) % I].
    uint32_t word = 0, cached_index = UINT32_MAX, cached = 0;
    for (uint32_t d = 1; d < p.k; ++d) {
        const uint32_t idx = (p.info_bits - d % p.info_bits) % p.info_bits;
        if (idx / 32 != cached_index) {
            cached_index = idx / 32;
            cached = philox::info_word(p.seed, frame, cached_index);
        }
        word |= ((cached >> (idx % 32)) & 1u) << (32 - d);
    }
    return word;
}

//! 4 info bits (LSB = first) spread to 4 bytes of 0/1.
__device__ __forceinline__ uint32_t spread4(uint32_t nibble)
{
    return (nibble * 0x00204081u) & 0x01010101u;
}

template <int kThreads, int kGroups, bool kVectorLlrs>
__global__ void __launch_bounds__(kThreads) awgn_frames_kernel(const kernel_params p,
                                                               uint64_t first_frame,
                                                               float* llrs,
                                                               uint8_t* bits,
                                                               int vector_bits)
{
    extern __shared__ __align__(16) uint32_t smem[];
    uint32_t* s_table = smem;
    uint32_t* s_words = smem + p.ones;
    float4* s_stage =
        reinterpret_cast<float4*>(smem + ((p.ones + p.smem_words + 3) & ~3u));

    const uint32_t tid = threadIdx.x;
    const uint32_t tile = blockIdx.x % p.tiles;
    const uint64_t local_frame = blockIdx.x / p.tiles;
    const uint64_t frame = first_frame + local_frame;

    const uint32_t j_begin = tile * p.tile_llrs;
    const uint32_t j_end = min(p.coded_bits, j_begin + p.tile_llrs);
    const int32_t k1 = static_cast<int32_t>(p.k - 1);
    const int32_t t_first = stage_of(p, p.table, j_begin);
    const int32_t w_lo = floor_div32(t_first - k1);
    const int32_t w_hi = floor_div32(stage_of(p, p.table, j_end - 1) - k1) + 1;
    const int32_t n_words = w_hi - w_lo + 1;

    if (llrs) {
        for (uint32_t i = tid; i < p.ones; i += kThreads)
            s_table[i] = p.table[i];
        // Regular words come 4 per Philox block; the few outside [0, info_words) (zero
        // tail, tail-biting preload) one by one.
        const int32_t reg_lo = max(w_lo, 0);
        const int32_t reg_hi = min(w_hi, static_cast<int32_t>(p.info_words) - 1);
        for (int32_t i = static_cast<int32_t>(tid); i < n_words; i += kThreads)
            if (w_lo + i < reg_lo || w_lo + i > reg_hi)
                s_words[i] = extended_info_word(p, frame, w_lo + i);
        if (reg_lo <= reg_hi) {
            for (int32_t pb = (reg_lo >> 2) + static_cast<int32_t>(tid);
                 pb <= (reg_hi >> 2);
                 pb += kThreads) {
                const philox::u32x4 r = philox::frame_block(
                    p.seed, frame, static_cast<uint32_t>(pb), philox::stream_info);
#pragma unroll
                for (int m = 0; m < 4; ++m) {
                    const int32_t w = 4 * pb + m;
                    if (w < reg_lo || w > reg_hi)
                        continue;
                    const uint32_t valid = p.info_bits - 32u * static_cast<uint32_t>(w);
                    s_words[w - w_lo] =
                        valid >= 32 ? r.v[m] : r.v[m] & ((1u << valid) - 1u);
                }
            }
        }
    }

    // The heavy part first: it needs no shared data, so the barrier wait overlaps it.
    float g[kGroups][4];
    const uint32_t q_begin = j_begin / 4;
#pragma unroll
    for (int gi = 0; gi < kGroups; ++gi) {
        const uint32_t q = q_begin + gi * kThreads + tid;
        if (llrs && 4 * q < j_end)
            philox::noise4(p.seed, frame, q, g[gi]);
    }
    __syncthreads();

    if (llrs) {
        float* frame_llrs = llrs + local_frame * p.coded_bits;
        // Puncturing period and position of this thread's first bit; later groups step
        // by 4 * kThreads bits, so one division per thread instead of one per group.
        const uint32_t step_period = 4u * kThreads / p.ones;
        const uint32_t step_r = 4u * kThreads - step_period * p.ones;
        uint32_t group_period = 4u * (q_begin + tid) / p.ones;
        uint32_t group_r = 4u * (q_begin + tid) - group_period * p.ones;
#pragma unroll
        for (int gi = 0; gi < kGroups; ++gi) {
            const uint32_t q = q_begin + gi * kThreads + tid;
            const uint32_t j0 = 4 * q;
            uint32_t period = group_period, r = group_r;
            group_period += step_period;
            group_r += step_r;
            if (group_r >= p.ones) {
                group_r -= p.ones;
                ++group_period;
            }
            if (j0 >= j_end)
                continue;
            float out[4];
#pragma unroll
            for (int m = 0; m < 4; ++m) {
                out[m] = 0.0f;
                if (j0 + m < j_end) {
                    const uint32_t e = s_table[r];
                    const int32_t t = static_cast<int32_t>(period * p.period_stages +
                                                           (e >> table_shift));
                    const uint32_t x = static_cast<uint32_t>(t - k1 - 32 * w_lo);
                    const uint32_t window =
                        __funnelshift_r(s_words[x >> 5], s_words[(x >> 5) + 1], x & 31);
                    const uint32_t c = __popc(window & e & table_taps) & 1u;
                    out[m] = philox::bpsk_llr(c, g[gi][m], p.sigma, p.llr_scale);
                }
                if (++r == p.ones) {
                    r = 0;
                    ++period;
                }
            }
            const float4 v = make_float4(out[0], out[1], out[2], out[3]);
            if (kVectorLlrs)
                __stcs(reinterpret_cast<float4*>(frame_llrs + j0), v);
            else
                s_stage[gi * kThreads + tid] = v;
        }
        if (!kVectorLlrs) {
            __syncthreads();
            const float* staged = reinterpret_cast<const float*>(s_stage);
            for (uint32_t i = tid; i < j_end - j_begin; i += kThreads)
                __stcs(frame_llrs + j_begin + i, staged[i]);
        }
    }

    if (bits) {
        // This tile writes the info words that start within its stages [t_first, t_next):
        // they lie inside its shared window (every stage transmits at least one bit), and
        // the tiles of a frame cover each word once. 16 bits (16 bytes) per thread.
        const uint32_t own_lo = static_cast<uint32_t>(t_first + 31) / 32;
        const uint32_t own_hi =
            j_end < p.coded_bits
                ? min(p.info_words,
                      static_cast<uint32_t>(stage_of(p, p.table, j_end) + 31) / 32)
                : p.info_words;
        uint8_t* frame_bits = bits + local_frame * p.info_bits;
        for (uint32_t c = tid; own_lo + c / 2 < own_hi; c += kThreads) {
            const uint32_t w = own_lo + c / 2;
            const uint32_t first_bit = 32 * w + 16 * (c & 1);
            if (first_bit >= p.info_bits)
                continue;
            const int32_t in_window = static_cast<int32_t>(w) - w_lo;
            const uint32_t word =
                (llrs && in_window >= 0 && in_window < n_words)
                    ? s_words[in_window]
                    : extended_info_word(p, frame, static_cast<int32_t>(w));
            const uint32_t half = (word >> (16 * (c & 1))) & 0xFFFFu;
            const uint32_t count = min(16u, p.info_bits - first_bit);
            if (vector_bits && count == 16) {
                __stcs(reinterpret_cast<uint4*>(frame_bits + first_bit),
                       make_uint4(spread4(half & 15u),
                                  spread4((half >> 4) & 15u),
                                  spread4((half >> 8) & 15u),
                                  spread4(half >> 12)));
            } else {
                for (uint32_t b = 0; b < count; ++b)
                    frame_bits[first_bit + b] = (half >> b) & 1u;
            }
        }
    }
}

template <int kThreads, int kGroups>
void launch_policy_kernel(const kernel_params& p,
                          size_t smem_bytes,
                          bool vector_llrs,
                          uint32_t blocks,
                          uint64_t first_frame,
                          float* llrs,
                          uint8_t* bits,
                          int vector_bits,
                          cudaStream_t stream)
{
    if (vector_llrs)
        awgn_frames_kernel<kThreads, kGroups, true>
            <<<blocks, kThreads, smem_bytes, stream>>>(
                p, first_frame, llrs, bits, vector_bits);
    else
        awgn_frames_kernel<kThreads, kGroups, false>
            <<<blocks, kThreads, smem_bytes, stream>>>(
                p, first_frame, llrs, bits, vector_bits);
    GPUFEC_CUDA_CHECK_LAUNCH();
}

uint32_t field_taps_of(const conv_code& code, int i)
{
    const uint32_t reg = code.tap_mask(i); // bit b taps input x[t - b]
    uint32_t field = 0;
    for (int b = 0; b < code.k(); ++b)
        if (reg >> b & 1u)
            field |= 1u << (code.k() - 1 - b);
    return field;
}

} // namespace

struct awgn_source_cuda::impl {
    conv_code code;
    int device;
    kernel_params base{};
    std::vector<uint32_t> table;
    device_buffer<uint32_t> d_table;
    std::atomic<int> policy{ default_policy };

    impl(const conv_code& c, int dev) : code(c), device(dev) {}

    //! Shared staging of the LLR tile, used when LLRs cannot be stored as float4.
    static size_t staging_bytes(int pol)
    {
        return 16 * static_cast<size_t>(policies[pol].threads * policies[pol].groups);
    }

    //! Kernel parameters for a launch policy; smem_bytes is the worst case (with
    //! staging).
    kernel_params params_for_policy(int pol, size_t& smem_bytes) const
    {
        kernel_params p = base;
        const auto& lp = policies[pol];
        const uint32_t max_tile_groups = static_cast<uint32_t>(lp.threads * lp.groups);
        const uint32_t frame_groups = (p.coded_bits + 3) / 4;
        p.tiles = (frame_groups + max_tile_groups - 1) / max_tile_groups;
        p.tile_llrs = 4 * ((frame_groups + p.tiles - 1) / p.tiles);
        p.tiles = (p.coded_bits + p.tile_llrs - 1) / p.tile_llrs;
        int32_t max_words = 0;
        for (uint32_t t = 0; t < p.tiles; ++t) {
            const uint32_t jb = t * p.tile_llrs;
            const uint32_t je = std::min(p.coded_bits, jb + p.tile_llrs);
            const int32_t lo = floor_div32(stage_of(p, table.data(), jb) -
                                           static_cast<int32_t>(p.k - 1));
            const int32_t hi = floor_div32(stage_of(p, table.data(), je - 1) -
                                           static_cast<int32_t>(p.k - 1)) +
                               1;
            max_words = std::max(max_words, hi - lo + 1);
        }
        p.smem_words = static_cast<uint32_t>(max_words);
        smem_bytes = 4 * static_cast<size_t>((p.ones + p.smem_words + 3) & ~3u) +
                     staging_bytes(pol);
        return p;
    }

    void launch(uint64_t first_frame,
                size_t num_frames,
                float* llrs,
                uint8_t* bits,
                const detail::awgn_channel_constants& constants,
                cudaStream_t s)
    {
        const int pol = policy.load();
        size_t smem_bytes = 0;
        kernel_params p = params_for_policy(pol, smem_bytes);
        p.sigma = constants.sigma;
        p.llr_scale = constants.llr_scale;
        p.table = d_table.get();
        const bool vector_llrs =
            p.coded_bits % 4 == 0 && reinterpret_cast<uintptr_t>(llrs) % 16 == 0;
        const int vector_bits =
            p.info_bits % 16 == 0 && reinterpret_cast<uintptr_t>(bits) % 16 == 0;
        if (vector_llrs)
            smem_bytes -= staging_bytes(pol);
        const size_t max_frames_per_launch = static_cast<size_t>(INT_MAX) / p.tiles;
        device_guard guard(device);
        for (size_t done_frames = 0; done_frames < num_frames;) {
            const size_t n = std::min(num_frames - done_frames, max_frames_per_launch);
            const uint32_t blocks = static_cast<uint32_t>(n * p.tiles);
            float* l = llrs ? llrs + done_frames * p.coded_bits : nullptr;
            uint8_t* b = bits ? bits + done_frames * p.info_bits : nullptr;
            const uint64_t f = first_frame + done_frames;
            switch (pol) {
            case 0:
                launch_policy_kernel<256, 1>(
                    p, smem_bytes, vector_llrs, blocks, f, l, b, vector_bits, s);
                break;
            case 1:
                launch_policy_kernel<256, 2>(
                    p, smem_bytes, vector_llrs, blocks, f, l, b, vector_bits, s);
                break;
            case 2:
                launch_policy_kernel<128, 4>(
                    p, smem_bytes, vector_llrs, blocks, f, l, b, vector_bits, s);
                break;
            case 3:
                launch_policy_kernel<512, 1>(
                    p, smem_bytes, vector_llrs, blocks, f, l, b, vector_bits, s);
                break;
            case 4:
                launch_policy_kernel<256, 4>(
                    p, smem_bytes, vector_llrs, blocks, f, l, b, vector_bits, s);
                break;
            default:
                launch_policy_kernel<128, 8>(
                    p, smem_bytes, vector_llrs, blocks, f, l, b, vector_bits, s);
                break;
            }
            done_frames += n;
        }
    }
};

awgn_source_cuda::awgn_source_cuda(const conv_code& code,
                                   double ebn0_db,
                                   uint64_t seed,
                                   int device)
    : cuda_source_base(device, code.coded_bits(), size_t(std::max(code.frame_bits(), 0))),
      d_impl(std::make_unique<impl>(code, device))
{
    require_device(device);
    kernel_params& p = d_impl->base;
    const size_t coded = code.coded_bits();
    if (coded > (size_t{ 1 } << 31) || code.frame_bits() <= 0)
        throw error("awgn_source_cuda: frames must have 1 .. 2^31 transmitted bits");
    p.seed = seed;
    p.info_bits = static_cast<uint32_t>(code.frame_bits());
    p.info_words = (p.info_bits + 31) / 32;
    p.coded_bits = static_cast<uint32_t>(coded);
    p.k = static_cast<uint32_t>(code.k());
    p.tail_biting = code.term() == termination::tail_biting;

    const int n = code.n();
    const size_t period = code.puncture_period();
    for (size_t pos = 0; pos < period; ++pos)
        if (code.kept(pos))
            d_impl->table.push_back(
                static_cast<uint32_t>(((pos / n) << table_shift) |
                                      field_taps_of(code, static_cast<int>(pos % n))));
    p.ones = static_cast<uint32_t>(d_impl->table.size());
    p.period_stages = static_cast<uint32_t>(period / n);

    device_guard guard(device);
    size_t smem_bytes = 0;
    for (int pol = 0; pol < num_launch_policies(); ++pol) {
        d_impl->params_for_policy(pol, smem_bytes);
        if (smem_bytes > 48 * 1024)
            throw error(
                "awgn_source_cuda: puncturing pattern too long for the kernel's shared "
                "memory (at most ~8000 kept bits per period)");
    }
    upload(d_impl->d_table, d_impl->table);
    set_ebn0_db(ebn0_db);
}

awgn_source_cuda::~awgn_source_cuda() = default;

void awgn_source_cuda::check_ebn0_db(double ebn0_db) const
{
    detail::awgn_constants(d_impl->code, ebn0_db); // throws for a bad value
}

int awgn_source_cuda::num_launch_policies()
{
    return static_cast<int>(std::size(policies));
}

std::string awgn_source_cuda::launch_policy_name(int policy)
{
    if (policy < 0 || policy >= num_launch_policies())
        throw error("awgn_source_cuda: launch policy must be 0.." +
                    std::to_string(num_launch_policies() - 1));
    return std::to_string(policies[policy].threads) + " threads x " +
           std::to_string(policies[policy].groups) + " groups";
}

void awgn_source_cuda::set_launch_policy(int policy)
{
    launch_policy_name(policy); // validates
    d_impl->policy.store(policy);
}

void awgn_source_cuda::launch_frames(uint64_t first_frame,
                                     size_t num_frames,
                                     float* d_llrs,
                                     uint8_t* d_bits,
                                     void* stream,
                                     double ebn0_db)
{
    d_impl->launch(first_frame,
                   num_frames,
                   d_llrs,
                   d_bits,
                   detail::awgn_constants(d_impl->code, ebn0_db),
                   static_cast<cudaStream_t>(stream));
}

} // namespace cuda

std::unique_ptr<awgn_bpsk_source> make_awgn_bpsk_source_cuda(const conv_code& code,
                                                             double ebn0_db,
                                                             uint64_t seed,
                                                             int device)
{
    return std::make_unique<cuda::awgn_source_cuda>(code, ebn0_db, seed, device);
}

} // namespace gpufec
