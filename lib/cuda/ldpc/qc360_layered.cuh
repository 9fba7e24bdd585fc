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
    //! (2 base, shift) per slot, slot_stride(Slots) per layer: the layer's slots, then
    //! null ones
    const int2* slots;
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
    uint32_t* r_scratch; //!< gridDim.x * message_words(Slots, num_layers) words
};

//! Slot-table entries per layer: even, so that two slots are one 16-byte load.
constexpr int slot_stride(int slots) { return (slots + 1) / 2 * 2; }
//! 32-bit words of int8 check messages per row.
constexpr int row_words(int slots) { return (slots + 3) / 4; }

//! Check-message words of one codeword: row t of layer l's word w at (l * words + w) *
//! 360 + t (a warp's accesses coalesced).
inline size_t message_words(int slots, int layers)
{
    return static_cast<size_t>(layers) * row_words(slots) * qc360_period;
}

//! Byte offset in the APP array of the cell of a slot (2 base, shift) in row d:
//! qc360_cell() with the mod 360 as one VIADDMNMX (the smaller of x and x - 360 as
//! unsigned numbers).
__device__ __forceinline__ uint32_t cell_bytes(int2 slot, int d)
{
    const uint32_t x = static_cast<uint32_t>(d + slot.y);
    return static_cast<uint32_t>(slot.x) + 2u * __viaddmin_u32(x, 0u - qc360_period, x);
}

__device__ __forceinline__ int16_t& app_at(int16_t* app, uint32_t bytes)
{
    return *reinterpret_cast<int16_t*>(reinterpret_cast<char*>(app) + bytes);
}

//! Byte `byte` (0..3) of w, sign-extended: one PRMT in sign-replicate mode.
__device__ __forceinline__ int signed_byte(uint32_t w, int byte)
{
    const uint32_t top = static_cast<uint32_t>(byte | 8);
    const uint32_t selector =
        static_cast<uint32_t>(byte) | top << 4 | top << 8 | top << 12;
    uint32_t r;
    asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(w), "r"(selector));
    return static_cast<int>(r);
}

//! The check messages of row t of layer l (4 per word), or zeros before the first
//! iteration and past the layer's rows.
template <int Slots>
__device__ __forceinline__ void load_messages(const uint32_t* __restrict__ r,
                                              int l,
                                              int rows,
                                              int t,
                                              bool zeros,
                                              uint32_t (&word)[row_words(Slots)])
{
    constexpr int words = row_words(Slots);
    const uint32_t* at = r + l * words * qc360_period + t;
    zeros |= t >= rows;
#pragma unroll
    for (int w = 0; w < words; w++)
        word[w] = zeros ? 0u : at[w * qc360_period];
}

//! Row d = L.d0 + L.stride t of layer l: the CPU's two passes from the row's check
//! messages `old_word` (load_messages), the new ones written back to its words in `r`.
//! Every row has Slots slots: those past L.degree read a null cell (the "bit 0"
//! maximum: no minimum below the 127 cap, no sign) and write nothing, so the row has
//! no branch and its loads can all be in flight at once.
template <int Slots, bool Half>
__device__ __forceinline__ void update_row(const params& p,
                                           int16_t* __restrict__ app,
                                           const qc360_layer& L,
                                           int l,
                                           const int2* __restrict__ slots,
                                           uint32_t* __restrict__ r,
                                           int t,
                                           const uint32_t (&old_word)[row_words(Slots)])
{
    using namespace min_sum_device;
    constexpr int words = row_words(Slots);
    const int d = L.d0 + L.stride * t;
    const int2* row_slots = slots + l * slot_stride(Slots);
    uint32_t cell[Slots];
    int q[Slots], a[Slots];
    int min1 = 32767, min2 = 32767, sign = 0;
#pragma unroll
    for (int j = 0; j < Slots; j++) {
        cell[j] = cell_bytes(row_slots[j], d);
        const int l_old = app_at(app, cell[j]);
        const int r_old = signed_byte(old_word[j / 4], j % 4);
        // sat(L - R) as max(L - R, -32000) in one VIADDMNMX, then the upper bound.
        q[j] = Half ? half_add(static_cast<int16_t>(l_old), -r_old)
                    : min(__viaddmax_s32(l_old, -r_old, -app_max), app_max);
        a[j] = abs(q[j]);
        // The two smallest |Q|, two edges at a time: of min1 <= min2 and lo <= hi they
        // are min(min1, lo) and min(min2, hi, max(min1, lo)) (one three-input min).
        if (j & 1) {
            const int lo = min(a[j - 1], a[j]), hi = max(a[j - 1], a[j]);
            min2 = __vimin3_s32(min2, hi, max(min1, lo));
            min1 = min(min1, lo);
            sign ^= q[j - 1] ^ q[j];
        } else if (j == Slots - 1) {
            min2 = min(min2, max(min1, a[j]));
            min1 = min(min1, a[j]);
            sign ^= q[j];
        }
    }
    const int mag1 = scale_minimum(p.normalized, p.alpha16, p.beta, min1);
    const int mag2 = scale_minimum(p.normalized, p.alpha16, p.beta, min2);
    int r_new[Slots];
#pragma unroll
    for (int j = 0; j < Slots; j++) {
        // "|Q_j| == min1 ? mag2 : mag1" is the CPU's "j == argmin ? ...": on a tie
        // min2 equals min1.
        const int mag = a[j] == min1 ? mag2 : mag1;
        r_new[j] = (sign ^ q[j]) < 0 ? -mag : mag;
        const int16_t updated =
            Half ? half_bits(half_add(half_bits(q[j]), r_new[j]))
                 : static_cast<int16_t>(
                       min(__viaddmax_s32(q[j], r_new[j], -app_max), app_max));
        if (j < L.degree)
            app_at(app, cell[j]) = updated;
    }
    uint32_t* at = r + l * words * qc360_period + t;
#pragma unroll
    for (int w = 0; w < words; w++) {
        // Four messages into one word: three PRMTs.
        const int j = 4 * w;
        const uint32_t b0 = static_cast<uint32_t>(r_new[j]);
        const uint32_t b1 = j + 1 < Slots ? static_cast<uint32_t>(r_new[j + 1]) : 0u;
        const uint32_t b2 = j + 2 < Slots ? static_cast<uint32_t>(r_new[j + 2]) : 0u;
        const uint32_t b3 = j + 3 < Slots ? static_cast<uint32_t>(r_new[j + 3]) : 0u;
        at[w * qc360_period] =
            __byte_perm(__byte_perm(b0, b1, 0x0040), __byte_perm(b2, b3, 0x0040), 0x5410);
    }
}

//! True when row t of layer l holds on the hard decisions of the APP values (the null
//! cells are positive).
template <int Slots>
__device__ __forceinline__ bool row_holds(int16_t* __restrict__ app,
                                          const qc360_layer& L,
                                          int l,
                                          const int2* __restrict__ slots,
                                          int t)
{
    const int d = L.d0 + L.stride * t;
    const int2* row_slots = slots + l * slot_stride(Slots);
    int parity = 0;
#pragma unroll
    for (int j = 0; j < Slots; j++)
        parity ^= app_at(app, cell_bytes(row_slots[j], d));
    return parity >= 0; // sign bit of the XOR: an even number of negative values
}

template <int Slots, bool Half>
__global__ void __launch_bounds__(threads, 1) qc360_layered_kernel(params p)
{
    using namespace min_sum_device;
    extern __shared__ __align__(16) unsigned char smem[];
    int16_t* app = reinterpret_cast<int16_t*>(smem);
    qc360_layer* layers = reinterpret_cast<qc360_layer*>(app + p.cells_padded);
    int2* slots = reinterpret_cast<int2*>(layers + p.num_layers);
    constexpr int words = row_words(Slots);
    const int tid = threadIdx.x;

    // The code's tables, once per block.
    {
        const int4* from = reinterpret_cast<const int4*>(p.layers);
        int4* to = reinterpret_cast<int4*>(layers);
        constexpr int per_layer = sizeof(qc360_layer) / sizeof(int4);
        for (int i = tid; i < p.num_layers * per_layer; i += threads)
            to[i] = from[i];
        for (int i = tid; i < p.num_layers * slot_stride(Slots); i += threads)
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
            load_messages<Slots>(r, 0, L.rows, tid, it == 0, word);
            for (int l = 0; l < p.num_layers; l++) {
                const bool more = l + 1 < p.num_layers;
                const qc360_layer next = layers[more ? l + 1 : l];
                uint32_t next_word[words];
                load_messages<Slots>(
                    r, l + 1, next.rows, tid, it == 0 || !more, next_word);
                if (tid < L.rows)
                    update_row<Slots, Half>(p, app, L, l, slots, r, tid, word);
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
                        if (tid < L.rows && !row_holds<Slots>(app, L, l, slots, tid))
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

//! The slots per row of the kernel for rows of up to max_degree edges (7: DVB-S2 rate
//! 1/2; 8, 16, 32), or 0 past 32.
inline int degree_bound(int max_degree)
{
    return max_degree == 7    ? 7
           : max_degree <= 8  ? 8
           : max_degree <= 16 ? 16
           : max_degree <= 32 ? 32
                              : 0;
}

inline kernel_fn kernel_for(int slots, bool half)
{
    switch (slots) {
    case 7:
        return half ? qc360_layered_kernel<7, true> : qc360_layered_kernel<7, false>;
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

inline size_t shared_bytes(const params& p, int slots)
{
    return sizeof(int16_t) * p.cells_padded + sizeof(qc360_layer) * p.num_layers +
           sizeof(int2) * slot_stride(slots) * p.num_layers;
}

} // namespace qc360
} // namespace cuda
} // namespace gpufec

#endif
