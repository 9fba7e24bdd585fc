/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA exhaustive ML decoder of the NR small-block UCI codes: one warp per frame, eight
// frames per block. It follows the reference arithmetic of nr_uci_small.h (int32 only),
// so bits, status and soft output equal the CPU decoder's.
//
// Per frame (one warp):
//   1. combine: lane j sums the LLRs e_k with k = j (mod 32) (K >= 3, N = 32: code bit
//      j), or adds e_k to code bit map[k mod N] with shared-memory atomics (K = 1, 2);
//   2. the m <= 32 combined LLRs go to every lane's registers (shuffles);
//   3. lane l scores the messages u = l, l + 32, ...: ones(u) = sum of L_j over the set
//      bits of codeword(u) (codebook in shared memory, loaded once per block), metric =
//      S - 2 ones; it keeps its best (metric, u), u ascending with a strict compare, and
//      with soft output the best metric per value of every info bit;
//   4. butterfly reductions over the warp: (metric, u) by larger metric then smaller u;
//      soft maxima by max. Lane 0 writes the packed bits and the status, lane i < K the
//      soft value of bit i.
#include "../common/batch_checks.h"
#include "../common/cuda_utils.h"
#include "uci_small_cuda.h"

#include <climits>
#include <sstream>

namespace gpufec {
namespace cuda {
namespace {

struct uci_policy {
    static constexpr int warps = 8; //!< frames per block
    static constexpr int threads = 32 * warps;
};

struct uci_kernel_params {
    const llr8_t* in;
    const frame_extent* frames;
    uint32_t num_frames;
    uint8_t* out;
    float* soft; //!< null: no soft output
    frame_status* status;
    const uint32_t* codebook; //!< 2^K codewords (device)
    int32_t n;                //!< mother length N
    //! K = 1, 2 (N <= 24): 1 + the code bit of d_j (0 for 'x') in bits 2j, 2j+1.
    uint64_t map;
};

//! Code bits m of a K: 1, 3 or 32.
template <int K>
constexpr int code_bits()
{
    return K == 1 ? 1 : K == 2 ? 3 : 32;
}

// ---- device code for one frame (one warp) ---------------------------------------------

template <int K>
__device__ __forceinline__ int32_t combine(
    const uci_kernel_params& p, const llr8_t* x, uint32_t e, int lane, int32_t* warp_sums)
{
    if (K >= 3) {
        // N = 32 and d_j = code bit j: lane j owns code bit j; the warp reads 32
        // consecutive LLRs per step.
        int32_t acc = 0;
        for (uint32_t k = lane; k < e; k += 32)
            acc += x[k];
        return acc;
    }
    warp_sums[lane] = 0;
    __syncwarp();
    int j = lane % p.n;
    for (uint32_t k = lane; k < e; k += 32) {
        const int bit = int((p.map >> (2 * j)) & 3u) - 1;
        if (bit >= 0)
            atomicAdd(&warp_sums[bit], int32_t(x[k])); // integers: order does not matter
        j = (j + 32) % p.n;
    }
    __syncwarp();
    return warp_sums[lane];
}

template <int K, bool SOFT>
__device__ __forceinline__ void decode_frame(const uci_kernel_params& p,
                                             const uint32_t* book,
                                             int32_t* warp_sums,
                                             uint32_t f,
                                             int lane)
{
    constexpr int M = code_bits<K>();
    constexpr uint32_t count = 1u << K;
    const frame_extent fe = p.frames[f];
    const int32_t mine = combine<K>(p, p.in + fe.in_offset, fe.in_items, lane, warp_sums);

    int32_t L[M];
#pragma unroll
    for (int j = 0; j < M; j++)
        L[j] = __shfl_sync(0xffffffffu, mine, j);
    int32_t S = 0;
#pragma unroll
    for (int j = 0; j < M; j++)
        S += L[j];

    int32_t best = INT_MIN;
    uint32_t best_u = 0;
    int32_t best_bit[2][K];
#pragma unroll
    for (int i = 0; i < K; i++)
        best_bit[0][i] = best_bit[1][i] = INT_MIN;
    for (uint32_t u = lane; u < count; u += 32) {
        const uint32_t w = book[u];
        int32_t ones = 0;
#pragma unroll
        for (int j = 0; j < M; j++)
            ones += L[j] & -int32_t((w >> j) & 1u);
        const int32_t metric = S - 2 * ones;
        if (metric > best) {
            best = metric;
            best_u = u;
        }
        if (SOFT) {
#pragma unroll
            for (int i = 0; i < K; i++) {
                const bool one = (u >> (K - 1 - i)) & 1u;
                best_bit[0][i] = one ? best_bit[0][i] : max(best_bit[0][i], metric);
                best_bit[1][i] = one ? max(best_bit[1][i], metric) : best_bit[1][i];
            }
        }
    }

#pragma unroll
    for (int d = 16; d >= 1; d >>= 1) {
        const int32_t other = __shfl_xor_sync(0xffffffffu, best, d);
        const uint32_t other_u = __shfl_xor_sync(0xffffffffu, best_u, d);
        if (other > best || (other == best && other_u < best_u)) {
            best = other;
            best_u = other_u;
        }
    }
    if (lane == 0) {
        uint8_t* out = p.out + fe.out_offset;
        const uint32_t aligned = best_u << (16 - K);
        out[0] = static_cast<uint8_t>(aligned >> 8);
        if (K > 8)
            out[1] = static_cast<uint8_t>(aligned & 0xffu);
        p.status[f] = frame_status{ 1, true };
    }
    if (SOFT) {
        float* soft = p.soft + 8 * fe.out_offset;
#pragma unroll
        for (int i = 0; i < K; i++) {
            int32_t b0 = best_bit[0][i], b1 = best_bit[1][i];
#pragma unroll
            for (int d = 16; d >= 1; d >>= 1) {
                b0 = max(b0, __shfl_xor_sync(0xffffffffu, b0, d));
                b1 = max(b1, __shfl_xor_sync(0xffffffffu, b1, d));
            }
            if (lane == i)
                soft[i] = static_cast<float>((b0 - b1) / 2);
        }
    }
}

// ---- the kernel
// ------------------------------------------------------------------------

template <int K, bool SOFT>
__global__ void __launch_bounds__(uci_policy::threads)
    uci_small_kernel(uci_kernel_params p)
{
    __shared__ uint32_t book[1u << K];
    __shared__ int32_t sums[uci_policy::warps][32];
    for (uint32_t i = threadIdx.x; i < (1u << K); i += blockDim.x)
        book[i] = p.codebook[i];
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t f = blockIdx.x * uci_policy::warps + warp;
    if (f < p.num_frames) // warp-uniform; no block barrier below
        decode_frame<K, SOFT>(p, book, sums[warp], f, lane);
}

using kernel_fn = void (*)(uci_kernel_params);

template <int K>
kernel_fn pick(bool soft)
{
    return soft ? uci_small_kernel<K, true> : uci_small_kernel<K, false>;
}

kernel_fn pick_kernel(int k, bool soft)
{
    switch (k) {
    case 1:
        return pick<1>(soft);
    case 2:
        return pick<2>(soft);
    case 3:
        return pick<3>(soft);
    case 4:
        return pick<4>(soft);
    case 5:
        return pick<5>(soft);
    case 6:
        return pick<6>(soft);
    case 7:
        return pick<7>(soft);
    case 8:
        return pick<8>(soft);
    case 9:
        return pick<9>(soft);
    case 10:
        return pick<10>(soft);
    case 11:
        return pick<11>(soft);
    }
    throw error("uci small (cuda): k = " + std::to_string(k) + "; allowed: 1..11");
}

// ---- host side
// --------------------------------------------------------------------------

class uci_small_decoder_cuda final : public batch_decoder
{
public:
    uci_small_decoder_cuda(const nr_uci_small_code& code, int device)
        : d_code(code), d_device(device)
    {
        require_device(device);
        d_device_name = device_name(device);
        device_guard guard(device);
        const std::vector<uint32_t>& book = code.codebook();
        d_codebook.reset(book.size());
        GPUFEC_CUDA_CHECK(cudaMemcpy(d_codebook.get(),
                                     book.data(),
                                     book.size() * sizeof(uint32_t),
                                     cudaMemcpyHostToDevice));
        d_map = 0;
        if (code.k() < 3) {
            const std::vector<int8_t>& map = code.mother_map();
            for (size_t j = 0; j < map.size(); j++)
                d_map |= uint64_t(map[j] + 1) << (2 * j);
        }
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }
    size_t max_input_items_per_frame() const override { return d_code.e(); }
    size_t default_input_items() const override { return d_code.e(); }
    size_t default_output_bits() const override { return d_code.k(); }
    bool has_soft_output() const override { return true; }
    size_t output_bits_for_input(size_t items) const override
    {
        if (items != static_cast<size_t>(d_code.e()))
            throw error("uci small decoder: a frame of " + std::to_string(items) +
                        " LLRs does not match the code; allowed: e = " +
                        std::to_string(d_code.e()));
        return d_code.k();
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        const size_t nf = batch.num_frames;
        check_frames(*this, batch, d_code.k(), "uci small decoder");
        if (nf == 0)
            return;
        require_engine_buffers(batch.device_frames && batch.device_status,
                               "uci small decoder",
                               "device frame table or status");
        uci_kernel_params p;
        p.in = batch.in;
        p.frames = batch.device_frames;
        p.num_frames = static_cast<uint32_t>(nf);
        p.out = batch.out;
        p.soft = batch.soft_out;
        p.status = batch.device_status;
        p.codebook = d_codebook.get();
        p.n = d_code.n();
        p.map = d_map;
        const unsigned blocks =
            static_cast<unsigned>((nf + uci_policy::warps - 1) / uci_policy::warps);
        pick_kernel(d_code.k(),
                    p.soft != nullptr)<<<blocks,
                                         uci_policy::threads,
                                         0,
                                         static_cast<cudaStream_t>(ctx.stream)>>>(p);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

    std::string name() const override
    {
        return d_code.describe() + " ML on cuda:" + std::to_string(d_device) + " (" +
               d_device_name + ")";
    }

private:
    nr_uci_small_code d_code;
    int d_device;
    std::string d_device_name;
    device_buffer<uint32_t> d_codebook;
    uint64_t d_map; // uci_kernel_params::map
};

} // namespace

std::unique_ptr<batch_decoder> make_uci_small_decoder(const nr_uci_small_code& code,
                                                      int device)
{
    return std::make_unique<uci_small_decoder_cuda>(code, device);
}

} // namespace cuda
} // namespace gpufec
