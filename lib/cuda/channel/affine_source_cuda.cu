/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA AWGN/BPSK source of an affine block code (affine_source_cuda.h).
#include "codes/affine_frame_map.h"
#include "cpu/awgn_source_common.h"
#include "cuda/channel/affine_source_cuda.h"
#include "cuda/common/cuda_utils.h"
#include <gpufec/philox.h>
#include <algorithm>
#include <atomic>
#include <cstdint>

namespace gpufec {
namespace cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kFrames = 8; //!< frames a block: one generator load serves all of them

struct kernel_params {
    uint64_t seed;
    uint32_t k;           //!< info bits
    uint32_t e;           //!< coded (transmitted) bits
    uint32_t words;       //!< info words
    uint32_t stride4;     //!< row_stride / 4: uint4 vectors per generator word
    uint32_t tiles;       //!< blocks a group of kFrames frames is split into
    uint32_t tile_groups; //!< groups of four coded bits a tile makes
    uint32_t vector_out;  //!< e % 4 == 0 and the output 16-byte aligned: float4 stores
    float sigma;
    float llr_scale;
    const uint4* rows;      //!< affine_frame_map::rows as vectors of four coded bits
    const uint32_t* offset; //!< affine_frame_map::offset
};

__global__ void __launch_bounds__(kThreads) affine_frames_kernel(const kernel_params p,
                                                                 uint64_t first_frame,
                                                                 uint64_t num_frames,
                                                                 float* llrs,
                                                                 uint8_t* bits)
{
    // Word w of frame f at s_info[w * kFrames + f]: a thread's 8 frames are two
    // 16-byte broadcast loads.
    extern __shared__ __align__(16) uint32_t s_info[];
    const uint32_t tid = threadIdx.x;
    // Block b makes tile b % tiles of frames [8 (b / tiles), + 8): long codes get
    // several blocks per group of frames, so that a batch fills the GPU.
    const uint32_t tile = blockIdx.x % p.tiles;
    const uint64_t frame0 = (blockIdx.x / p.tiles) * static_cast<uint64_t>(kFrames);
    const uint32_t frames_here =
        static_cast<uint32_t>(min(static_cast<uint64_t>(kFrames), num_frames - frame0));

    // Info words, a Philox block per four (stream 0); frames past the batch get zeros.
    const uint32_t blocks4 = (p.words + 3) / 4;
    for (uint32_t i = tid; i < kFrames * blocks4; i += kThreads) {
        const uint32_t f = i / blocks4, pb = i - f * blocks4;
        philox::u32x4 r{};
        if (f < frames_here)
            r = philox::frame_block(
                p.seed, first_frame + frame0 + f, pb, philox::stream_info);
#pragma unroll
        for (int m = 0; m < 4; ++m) {
            const uint32_t w = 4 * pb + m;
            if (w >= p.words)
                break;
            const uint32_t valid = p.k - 32 * w;
            s_info[w * kFrames + f] =
                valid >= 32 ? r.v[m] : r.v[m] & ((1u << valid) - 1u);
        }
    }
    __syncthreads();
    if (bits && tile == 0)
        for (uint32_t f = 0; f < frames_here; ++f) {
            uint8_t* out = bits + (frame0 + f) * p.k;
            for (uint32_t i = tid; i < p.k; i += kThreads)
                out[i] = static_cast<uint8_t>(
                    (s_info[(i / 32) * kFrames + f] >> (i % 32)) & 1u);
        }
    if (!llrs)
        return;

    const uint32_t groups = min((p.e + 3) / 4, (tile + 1) * p.tile_groups);
    for (uint32_t q = tile * p.tile_groups + tid; q < groups; q += kThreads) {
        uint32_t acc[4][kFrames];
#pragma unroll
        for (int m = 0; m < 4; ++m)
#pragma unroll
            for (int f = 0; f < kFrames; ++f)
                acc[m][f] = 0;
        for (uint32_t w = 0; w < p.words; ++w) {
            const uint4 g = __ldg(p.rows + static_cast<size_t>(w) * p.stride4 + q);
            const uint4 lo = *reinterpret_cast<const uint4*>(s_info + w * kFrames);
            const uint4 hi = *reinterpret_cast<const uint4*>(s_info + w * kFrames + 4);
            const uint32_t x[kFrames] = {
                lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w
            };
#pragma unroll
            for (int f = 0; f < kFrames; ++f) {
                acc[0][f] ^= x[f] & g.x;
                acc[1][f] ^= x[f] & g.y;
                acc[2][f] ^= x[f] & g.z;
                acc[3][f] ^= x[f] & g.w;
            }
        }
        // Coded bits 4q .. 4q + 3 lie in one offset word (4q % 32 <= 28).
        const uint32_t off = p.offset[q / 8] >> (4 * (q % 8));
#pragma unroll
        for (int f = 0; f < kFrames; ++f) {
            if (f >= static_cast<int>(frames_here))
                break;
            float g[4], v[4];
            philox::noise4(p.seed, first_frame + frame0 + f, q, g);
#pragma unroll
            for (int m = 0; m < 4; ++m)
                v[m] = philox::bpsk_llr(
                    (__popc(acc[m][f]) ^ (off >> m)) & 1u, g[m], p.sigma, p.llr_scale);
            float* out = llrs + (frame0 + f) * p.e;
            if (p.vector_out) {
                *reinterpret_cast<float4*>(out + 4 * q) =
                    make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
                for (int m = 0; m < 4; ++m)
                    if (4 * q + m < p.e)
                        out[4 * q + m] = v[m];
            }
        }
    }
}

} // namespace

struct affine_source_cuda::impl {
    int device;
    int sms = 1; //!< multiprocessors of the device
    kernel_params base{};
    device_buffer<uint32_t> d_rows, d_offset;

    detail::awgn_channel_constants constants(double ebn0) const
    {
        // As the CPU frame source: R = info bits / coded bits.
        const double sigma = detail::awgn_sigma_of(double(base.k) / double(base.e), ebn0);
        return { static_cast<float>(sigma), static_cast<float>(2.0 / (sigma * sigma)) };
    }
};

affine_source_cuda::affine_source_cuda(const frame_code& code,
                                       double ebn0_db,
                                       uint64_t seed,
                                       int device)
    : cuda_source_base(device, code.coded_bits, code.info_bits),
      d_impl(std::make_unique<impl>())
{
    require_device(device);
    const affine_frame_map map = make_affine_frame_map(code);
    impl& im = *d_impl;
    im.device = device;
    kernel_params& p = im.base;
    p.seed = seed;
    p.k = static_cast<uint32_t>(map.info_bits);
    p.e = static_cast<uint32_t>(map.coded_bits);
    p.words = static_cast<uint32_t>(map.info_words);
    p.stride4 = static_cast<uint32_t>(map.row_stride / 4);
    device_guard guard(device);
    GPUFEC_CUDA_CHECK(
        cudaDeviceGetAttribute(&im.sms, cudaDevAttrMultiProcessorCount, device));
    upload(im.d_rows, map.rows);
    upload(im.d_offset, map.offset);
    set_ebn0_db(ebn0_db);
}

affine_source_cuda::~affine_source_cuda() = default;

void affine_source_cuda::check_ebn0_db(double ebn0_db) const
{
    d_impl->constants(ebn0_db); // throws for a bad value
}

void affine_source_cuda::launch_frames(uint64_t first_frame,
                                       size_t num_frames,
                                       float* d_llrs,
                                       uint8_t* d_bits,
                                       void* stream,
                                       double ebn0_db)
{
    impl& im = *d_impl;
    kernel_params p = im.base;
    const auto channel = im.constants(ebn0_db);
    p.sigma = channel.sigma;
    p.llr_scale = channel.llr_scale;
    p.rows = reinterpret_cast<const uint4*>(im.d_rows.get());
    p.offset = im.d_offset.get();
    device_guard guard(im.device);
    // At most 32 KiB of shared memory (1024 info words x 8 frames): no opt-in needed.
    const size_t smem = size_t(p.words) * kFrames * sizeof(uint32_t);
    constexpr size_t max_blocks = 1u << 30;
    // As many tiles (ceil(groups / tiles) groups each) as bring the launch to ~8
    // blocks an SM.
    const size_t groups = (size_t(p.e) + 3) / 4;
    const size_t frame_blocks = (num_frames + kFrames - 1) / kFrames;
    const size_t wanted_blocks = size_t(8) * size_t(im.sms);
    const size_t max_tiles = (groups + kThreads - 1) / kThreads;
    const size_t tiles = std::max<size_t>(
        1,
        std::min(max_tiles,
                 (wanted_blocks + frame_blocks - 1) / std::max<size_t>(frame_blocks, 1)));
    p.tiles = static_cast<uint32_t>(tiles);
    p.tile_groups = static_cast<uint32_t>((groups + tiles - 1) / tiles);
    // Frame starts are 16-byte aligned where the first is and e % 4 == 0.
    p.vector_out =
        p.e % 4 == 0 && reinterpret_cast<uintptr_t>(d_llrs) % sizeof(float4) == 0 ? 1u
                                                                                  : 0u;
    for (size_t done = 0; done < num_frames;) {
        const size_t n = std::min(num_frames - done, max_blocks / tiles * kFrames);
        const unsigned blocks =
            static_cast<unsigned>((n + kFrames - 1) / kFrames * tiles);
        affine_frames_kernel<<<blocks,
                               kThreads,
                               smem,
                               static_cast<cudaStream_t>(stream)>>>(
            p,
            first_frame + done,
            n,
            d_llrs ? d_llrs + done * p.e : nullptr,
            d_bits ? d_bits + done * p.k : nullptr);
        GPUFEC_CUDA_CHECK_LAUNCH();
        done += n;
    }
}

} // namespace cuda

std::unique_ptr<awgn_bpsk_source>
make_affine_source_cuda(const frame_code& code, double ebn0_db, uint64_t seed, int device)
{
    return std::make_unique<cuda::affine_source_cuda>(code, ebn0_db, seed, device);
}

} // namespace gpufec
