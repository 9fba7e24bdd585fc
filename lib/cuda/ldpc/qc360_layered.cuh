/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the kernel of the CUDA LDPC decoder for 360-periodic graphs (DVB-S2),
// from a qc360_plan (lib/codes/ldpc_qc360_plan.h). Same arithmetic as the generic
// kernel and the CPU (lib/cpu/min_sum_kernels.h): same bits, soft output, iterations
// and status.
//
// Why it is faster than the generic kernel on these codes (docs/ldpc-gpu.md): a layer
// is one block row (or a strided part of one), so thread t takes row d = d0 + stride t
// of it and computes each edge's APP cell as base + ((d + shift) mod 360) from a
// per-layer slot table in shared memory (one broadcast load per edge, no per-row index
// loads from global memory); the check messages of a row are int8, four to a 32-bit
// word, laid out so that a warp's loads and stores of them are coalesced, and the whole
// row's work is unrolled over its edges (independent loads in flight). One codeword per
// block (its 64800 APP values take 130 KB of shared memory), 384 threads.
#ifndef INCLUDED_GPUFEC_LDPC_QC360_LAYERED_CUH
#define INCLUDED_GPUFEC_LDPC_QC360_LAYERED_CUH

#include "codes/ldpc_qc360_plan.h"
#include "min_sum_device.cuh"
#include "nr_layered.cuh"

#include <cstdint>

namespace gpufec {
namespace cuda {
namespace qc360 {

constexpr int threads = 384; // >= 360 rows of a layer
//! Layers whose parity checks are tested between two block-wide votes (early exit at
//! the first failing group).
constexpr int check_group = 8;

struct params {
    const qc360_layer* layers;
    const int2* slots; //!< (base, shift), MaxDegree per layer: the real ones, then null
    const int32_t* cell_of;
    const int32_t* info_cell;
    int32_t num_layers;
    int32_t null_cells;   //!< first of the 360 null cells (read-only "bit 0" maxima)
    int32_t cells_padded; //!< APP and null cells, rounded up to 8 (16-byte alignment)
    int32_t n, k;
    int32_t iterations;
    bool early_termination, normalized;
    int32_t alpha16, beta;
    const int8_t* in;
    const uint8_t* in4;
    const frame_extent* frames;
    uint32_t num_frames;
    uint8_t* out;
    float* soft;
    frame_status* status;
    uint32_t* r_scratch; //!< gridDim.x * message_words(MaxDegree, num_layers) words
};

//! Check-message words of one codeword: 4 int8 messages per word, row t of layer l's
//! word w at (l * MaxDegree / 4 + w) * 360 + t (a warp's accesses coalesced).
inline size_t message_words(int max_degree, int layers)
{
    return static_cast<size_t>(layers) * (max_degree / 4) * qc360_period;
}

//! The check messages of row t of layer l (4 per word), or zeros before the first
//! iteration and past the layer's rows.
template <int MaxDegree>
__device__ __forceinline__ void load_messages(const uint32_t* __restrict__ r,
                                              int l,
                                              int rows,
                                              int t,
                                              bool zeros,
                                              uint32_t (&word)[MaxDegree / 4])
{
    constexpr int words = MaxDegree / 4;
    const uint32_t* row_words = r + l * words * qc360_period + t;
    zeros |= t >= rows;
#pragma unroll
    for (int w = 0; w < words; w++)
        word[w] = zeros ? 0u : row_words[w * qc360_period];
}

//! Row d = L.d0 + L.stride t of layer l: the CPU's two passes from the row's check
//! messages `old_word` (load_messages), the new ones written back to its words in `r`.
//! Every row has MaxDegree slots: those past L.degree read a null cell (the "bit 0"
//! maximum: no minimum below the 127 cap, no sign) and write nothing, so the row has
//! no branch and its loads can all be in flight at once.
template <int MaxDegree, bool Half>
__device__ __forceinline__ void update_row(const params& p,
                                           int16_t* __restrict__ app,
                                           const qc360_layer& L,
                                           int l,
                                           const int2* __restrict__ slots,
                                           uint32_t* __restrict__ r,
                                           int t,
                                           const uint32_t (&old_word)[MaxDegree / 4])
{
    using namespace min_sum_device;
    constexpr int words = MaxDegree / 4;
    const int d = L.d0 + L.stride * t;
    const int2* row_slots = slots + l * MaxDegree;
    int cell[MaxDegree], q[MaxDegree];
#pragma unroll
    for (int j = 0; j < MaxDegree; j++) {
        const int2 s = row_slots[j];
        cell[j] = qc360_cell(s.x, s.y, d);
        const int r_old = static_cast<int8_t>(old_word[j / 4] >> (8 * (j % 4)));
        q[j] = Half ? half_add(app[cell[j]], -r_old) : sat_app(app[cell[j]] - r_old);
    }
    int min1 = 32767, min2 = 32767, sign = 0;
#pragma unroll
    for (int j = 0; j < MaxDegree; j++) {
        const int a = abs(q[j]);
        min2 = min(min2, max(min1, a));
        min1 = min(min1, a);
        sign ^= q[j];
    }
    const int mag1 = scale_minimum(p.normalized, p.alpha16, p.beta, min1);
    const int mag2 = scale_minimum(p.normalized, p.alpha16, p.beta, min2);
    uint32_t new_word[words];
#pragma unroll
    for (int w = 0; w < words; w++)
        new_word[w] = 0;
#pragma unroll
    for (int j = 0; j < MaxDegree; j++) {
        // "|Q_j| == min1 ? mag2 : mag1" is the CPU's "j == argmin ? ...": on a tie
        // min2 equals min1.
        const int mag = abs(q[j]) == min1 ? mag2 : mag1;
        const int r_new = (sign ^ q[j]) < 0 ? -mag : mag;
        new_word[j / 4] |= (static_cast<uint32_t>(r_new) & 0xffu) << (8 * (j % 4));
        const int16_t updated = Half ? half_bits(half_add(half_bits(q[j]), r_new))
                                     : static_cast<int16_t>(sat_app(q[j] + r_new));
        if (j < L.degree)
            app[cell[j]] = updated;
    }
    uint32_t* row_words = r + l * words * qc360_period + t;
#pragma unroll
    for (int w = 0; w < words; w++)
        row_words[w * qc360_period] = new_word[w];
}

//! True when row t of layer l holds on the hard decisions of the APP values (the null
//! cells are positive).
template <int MaxDegree>
__device__ __forceinline__ bool row_holds(const int16_t* __restrict__ app,
                                          const qc360_layer& L,
                                          int l,
                                          const int2* __restrict__ slots,
                                          int t)
{
    const int d = L.d0 + L.stride * t;
    const int2* row_slots = slots + l * MaxDegree;
    int parity = 0;
#pragma unroll
    for (int j = 0; j < MaxDegree; j++) {
        const int2 s = row_slots[j];
        parity ^= app[qc360_cell(s.x, s.y, d)];
    }
    return parity >= 0; // sign bit of the XOR: an even number of negative values
}

template <int MaxDegree, bool Half>
__global__ void __launch_bounds__(threads, 1) qc360_layered_kernel(params p)
{
    using namespace min_sum_device;
    extern __shared__ __align__(16) unsigned char smem[];
    int16_t* app = reinterpret_cast<int16_t*>(smem);
    qc360_layer* layers = reinterpret_cast<qc360_layer*>(app + p.cells_padded);
    int2* slots = reinterpret_cast<int2*>(layers + p.num_layers);
    constexpr int words = MaxDegree / 4;
    const int tid = threadIdx.x;

    // The code's tables, once per block.
    {
        const int4* from = reinterpret_cast<const int4*>(p.layers);
        int4* to = reinterpret_cast<int4*>(layers);
        constexpr int per_layer = sizeof(qc360_layer) / sizeof(int4);
        for (int i = tid; i < p.num_layers * per_layer; i += threads)
            to[i] = from[i];
        for (int i = tid; i < p.num_layers * MaxDegree; i += threads)
            slots[i] = p.slots[i];
    }
    uint32_t* r = p.r_scratch +
                  static_cast<size_t>(blockIdx.x) * p.num_layers * words * qc360_period;
    // Cell 0, the dummy edge of row 0 (qc360_plan), held at the "bit 0" maximum.
    const int16_t pin = Half ? half_bits(app_max) : static_cast<int16_t>(app_max);

    for (uint32_t f = blockIdx.x; f < p.num_frames; f += gridDim.x) {
        __syncthreads(); // the tables are in; the previous frame's outputs are read
        const frame_extent frame = p.frames[f];

        // ---- channel LLRs onto the cells, several loads in flight per thread
        for (int i0 = tid; i0 < p.n; i0 += nr::channel_batch * threads) {
            int at[nr::channel_batch], llr[nr::channel_batch];
#pragma unroll
            for (int u = 0; u < nr::channel_batch; u++) {
                const int i = i0 + u * threads;
                at[u] = -1;
                llr[u] = 0;
                if (i < p.n) {
                    at[u] = __ldg(p.cell_of + i);
                    llr[u] = nr::channel_llr(p.in, p.in4, frame.in_offset, i);
                }
            }
#pragma unroll
            for (int u = 0; u < nr::channel_batch; u++)
                if (at[u] >= 0)
                    app[at[u]] = Half ? half_bits(llr[u]) : static_cast<int16_t>(llr[u]);
        }
        if (tid == 0)
            app[0] = pin;
        for (int i = tid; i < qc360_period; i += threads)
            app[p.null_cells + i] = pin; // never written after this
        __syncthreads();

        // ---- layered iterations
        int used = 0;
        bool ok = false;
        for (int it = 0; it < p.iterations; it++) {
            // Software pipeline: the next layer's messages are loaded (L2 or HBM
            // latency) while this layer's rows are updated.
            qc360_layer L = layers[0];
            uint32_t word[words];
            load_messages<MaxDegree>(r, 0, L.rows, tid, it == 0, word);
            for (int l = 0; l < p.num_layers; l++) {
                const bool more = l + 1 < p.num_layers;
                const qc360_layer next = layers[more ? l + 1 : l];
                uint32_t next_word[words];
                load_messages<MaxDegree>(
                    r, l + 1, next.rows, tid, it == 0 || !more, next_word);
                if (tid < L.rows)
                    update_row<MaxDegree, Half>(p, app, L, l, slots, r, tid, word);
                __syncthreads();
                L = next;
#pragma unroll
                for (int w = 0; w < words; w++)
                    word[w] = next_word[w];
            }
            // Only thread 0 reads cell 0 (row d = 0 of block row 0), so no barrier.
            if (tid == 0)
                app[0] = pin;
            used = it + 1;
            if (p.early_termination || used == p.iterations) {
                bool failed = false;
                for (int l0 = 0; l0 < p.num_layers && !failed; l0 += check_group) {
                    bool fails = false;
                    const int l1 = min(l0 + check_group, p.num_layers);
                    for (int l = l0; l < l1; l++) {
                        const qc360_layer L = layers[l];
                        if (tid < L.rows && !row_holds<MaxDegree>(app, L, l, slots, tid))
                            fails = true;
                    }
                    failed = __syncthreads_or(fails);
                }
                ok = !failed;
                if (ok && p.early_termination)
                    break; // block-uniform
            }
        }

        // ---- outputs (hard bits MSB first, soft APP values, status)
        const int bytes = (p.k + 7) / 8;
        for (int i = tid; i < bytes; i += threads) {
            unsigned bits = 0;
            for (int j = 0; j < 8; j++) {
                const int at = i * 8 + j;
                const int neg = at < p.k ? app[__ldg(p.info_cell + at)] < 0 : 0;
                bits |= static_cast<unsigned>(neg) << (7 - j);
            }
            p.out[frame.out_offset + i] = static_cast<uint8_t>(bits);
        }
        if (p.soft) {
            for (int i = tid; i < p.k; i += threads) {
                const int16_t l = app[__ldg(p.info_cell + i)];
                p.soft[8 * frame.out_offset + i] =
                    Half ? __half2float(__short_as_half(l)) : static_cast<float>(l);
            }
        }
        if (tid == 0) {
            frame_status st;
            st.iterations = used;
            st.ok = ok;
            p.status[f] = st;
        }
    }
}

using kernel_fn = void (*)(params);

//! The slots per row of the kernel for rows of up to max_degree edges (8, 16, 32), or 0
//! past 32.
inline int degree_bound(int max_degree)
{
    return max_degree <= 8 ? 8 : max_degree <= 16 ? 16 : max_degree <= 32 ? 32 : 0;
}

inline kernel_fn kernel_for(int bound, bool half)
{
    switch (bound) {
    case 8:
        return half ? qc360_layered_kernel<8, true> : qc360_layered_kernel<8, false>;
    case 16:
        return half ? qc360_layered_kernel<16, true> : qc360_layered_kernel<16, false>;
    case 32:
        return half ? qc360_layered_kernel<32, true> : qc360_layered_kernel<32, false>;
    default:
        return nullptr;
    }
}

inline size_t shared_bytes(const params& p, int bound)
{
    return sizeof(int16_t) * p.cells_padded + sizeof(qc360_layer) * p.num_layers +
           sizeof(int2) * bound * p.num_layers;
}

} // namespace qc360
} // namespace cuda
} // namespace gpufec

#endif
