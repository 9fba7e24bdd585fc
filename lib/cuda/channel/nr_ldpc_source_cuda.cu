/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA AWGN/BPSK source of an NR LDPC code (nr_ldpc_source_cuda.h).
//
// The encoder is nr_ldpc_code::encode_full's, as data: every parity block is the one
// unknown of a "solve step" x[(z + s_u) mod Z] = XOR over the step's known terms of
// col[(z + s) mod Z]. The host orders the steps into levels (a step's level is one more
// than the highest level of a step producing one of its columns), so the kernel needs a
// barrier per level only, not per step: five for BG1 and BG2 (the four core blocks are
// solved one after another; each extension row joins the first level after the core
// blocks it reads; BG1's levels hold 26, 7, 4, 5 and 4 steps). Per frame that is ~the
// edges x Z shared-memory byte reads (BG1 Z = 384: 121 344), below the noise's Philox
// and Box-Muller work (6 336 groups of four for E = 25 344).
#include "cpu/awgn_source_common.h"
#include "cuda/channel/nr_ldpc_source_cuda.h"
#include "cuda/common/cuda_utils.h"
#include <gpufec/philox.h>
#include <algorithm>
#include <atomic>
#include <climits>
#include <stdexcept>
#include <vector>

namespace gpufec {
namespace cuda {
namespace {

constexpr int kThreads = 256;

struct solve_step {
    uint32_t target;               //!< column << 16 | shift of the solved parity block
    uint32_t term_begin, term_end; //!< its known terms, column << 16 | shift each
};

struct kernel_params {
    uint64_t seed;
    uint32_t z;
    uint32_t k;            //!< information bits
    uint32_t k_max;        //!< K_b * Z (k .. k_max - 1 are fillers, zero)
    uint32_t cw_bits;      //!< full codeword (the kernel's shared memory, bytes)
    uint32_t e;            //!< transmitted bits
    uint32_t buffer_bits;  //!< circular buffer without fillers (N - fillers)
    uint32_t filler_begin; //!< first filler in the circular buffer d = cw[2Z ..)
    uint32_t fillers;
    uint32_t levels;
    float sigma;
    float llr_scale;
    const uint32_t* level_start; //!< [levels + 1] into steps
    const solve_step* steps;
    const uint32_t* terms;
};

__global__ void __launch_bounds__(kThreads) nr_ldpc_frames_kernel(const kernel_params p,
                                                                  uint64_t first_frame,
                                                                  float* llrs,
                                                                  uint8_t* bits)
{
    extern __shared__ uint8_t cw[];
    const uint64_t frame = first_frame + blockIdx.x;
    const uint32_t tid = threadIdx.x;

    // Information bits: word w of stream 0 (a Philox block per four words), fillers 0.
    const uint32_t words = (p.k + 31) / 32;
    for (uint32_t w = tid; w < words; w += kThreads) {
        const uint32_t word = philox::info_word(p.seed, frame, w);
        const uint32_t end = min(32u, p.k - 32 * w);
        for (uint32_t b = 0; b < end; ++b)
            cw[32 * w + b] = static_cast<uint8_t>((word >> b) & 1u);
    }
    for (uint32_t i = p.k + tid; i < p.k_max; i += kThreads)
        cw[i] = 0;
    __syncthreads();
    if (bits) {
        uint8_t* out = bits + blockIdx.x * static_cast<size_t>(p.k);
        for (uint32_t i = tid; i < p.k; i += kThreads)
            out[i] = cw[i];
    }
    if (!llrs)
        return;

    // Encoding: the steps of a level are independent; Z threads per step.
    const uint32_t z = p.z;
    for (uint32_t level = 0; level < p.levels; ++level) {
        const uint32_t first = p.level_start[level];
        const uint32_t items = (p.level_start[level + 1] - first) * z;
        for (uint32_t item = tid; item < items; item += kThreads) {
            const uint32_t r = item % z;
            const solve_step step = p.steps[first + item / z];
            uint32_t acc = 0;
            for (uint32_t t = step.term_begin; t < step.term_end; ++t) {
                const uint32_t term = p.terms[t];
                uint32_t at = r + (term & 0xffffu);
                at -= at >= z ? z : 0;
                acc ^= cw[(term >> 16) * z + at];
            }
            uint32_t at = r + (step.target & 0xffffu);
            at -= at >= z ? z : 0;
            cw[(step.target >> 16) * z + at] = static_cast<uint8_t>(acc);
        }
        __syncthreads();
    }

    // Rate matching (rv 0, fillers skipped, repetition by wrapping) and the channel.
    float* out = llrs + blockIdx.x * static_cast<size_t>(p.e);
    const uint32_t groups = (p.e + 3) / 4;
    for (uint32_t q = tid; q < groups; q += kThreads) {
        float g[4];
        philox::noise4(p.seed, frame, q, g);
        for (uint32_t m = 0; m < 4; ++m) {
            const uint32_t j = 4 * q + m;
            if (j >= p.e)
                break;
            uint32_t t = j < p.buffer_bits ? j : j % p.buffer_bits;
            t += t >= p.filler_begin ? p.fillers : 0;
            out[j] = philox::bpsk_llr(cw[2 * z + t], g[m], p.sigma, p.llr_scale);
        }
    }
}

//! Packs a (column, shift) pair as the kernel reads it.
uint32_t pack_term(int col, int shift)
{
    return static_cast<uint32_t>(col) << 16 | static_cast<uint32_t>(shift);
}

} // namespace

struct nr_ldpc_source_cuda::impl {
    nr_ldpc_code code;
    int device;
    kernel_params base{};
    std::vector<uint32_t> level_start, terms;
    std::vector<solve_step> steps;
    device_buffer<uint32_t> d_level_start, d_terms;
    device_buffer<solve_step> d_steps;

    impl(const nr_ldpc_code& c, int dev) : code(c), device(dev) {}

    //! encode_full's order as levels of solve steps (see the file comment).
    void plan()
    {
        const int z = code.z(), kb = code.info_cols(), cols = code.base_cols();
        const int rows = code.base_rows();
        constexpr int core_rows = 4;
        std::vector<std::vector<ldpc_circulant>> row_edges(rows);
        for (const auto& c : code.circulants())
            row_edges[c.row].push_back(c);

        struct step_plan {
            int col, shift;
            std::vector<uint32_t> terms;
        };
        std::vector<step_plan> plan;
        std::vector<int> level_of_col(cols, -1); // -1: known before any step (info)
        std::vector<int> step_level;
        auto add_step = [&](int col, int shift, std::vector<uint32_t> t) {
            int level = 0;
            for (uint32_t term : t)
                level = std::max(level, level_of_col[term >> 16] + 1);
            level_of_col[col] = level;
            step_level.push_back(level);
            plan.push_back({ col, shift, std::move(t) });
        };

        // The first core block: the core rows' sum cancels the paired double-diagonal
        // entries of column K_b but one (odd multiplicity), whose shift solves it.
        std::vector<uint32_t> core_terms;
        std::vector<int> core_shifts;
        for (int i = 0; i < core_rows; ++i)
            for (const auto& c : row_edges[i]) {
                if (c.col < kb)
                    core_terms.push_back(pack_term(c.col, c.shift));
                else if (c.col == kb)
                    core_shifts.push_back(c.shift);
            }
        std::sort(core_shifts.begin(), core_shifts.end());
        int core_shift = -1, odd = 0;
        for (size_t i = 0; i < core_shifts.size();) {
            size_t j = i;
            while (j < core_shifts.size() && core_shifts[j] == core_shifts[i])
                ++j;
            if ((j - i) % 2 == 1) {
                core_shift = core_shifts[i];
                ++odd;
            }
            i = j;
        }
        if (odd != 1)
            throw std::logic_error("nr_ldpc_source_cuda: base graph core is not "
                                   "double-diagonal");
        std::vector<char> known(cols, 0);
        std::fill(known.begin(), known.begin() + kb, 1);
        add_step(kb, core_shift, core_terms);
        known[kb] = 1;

        // Then each remaining parity block as the single unknown of a row, in the
        // order encode_full finds them.
        auto solve_row = [&](int i) {
            int unknown = -1;
            for (size_t c = 0; c < row_edges[i].size(); ++c) {
                if (known[row_edges[i][c].col])
                    continue;
                if (unknown >= 0)
                    return false;
                unknown = static_cast<int>(c);
            }
            if (unknown < 0)
                return false;
            std::vector<uint32_t> t;
            for (size_t c = 0; c < row_edges[i].size(); ++c)
                if (static_cast<int>(c) != unknown)
                    t.push_back(pack_term(row_edges[i][c].col, row_edges[i][c].shift));
            const auto& u = row_edges[i][unknown];
            add_step(u.col, u.shift, std::move(t));
            known[u.col] = 1;
            return true;
        };
        for (int solved = 1; solved < core_rows;) {
            int progress = 0;
            for (int i = 0; i < core_rows && solved < core_rows; ++i)
                if (solve_row(i)) {
                    ++solved;
                    ++progress;
                }
            if (!progress)
                throw std::logic_error("nr_ldpc_source_cuda: core parity not solvable");
        }
        for (int i = core_rows; i < rows; ++i)
            if (!solve_row(i))
                throw std::logic_error("nr_ldpc_source_cuda: extension row without a "
                                       "single new parity block");

        // Steps sorted by level (stable: encode_full's order within a level).
        const int levels = *std::max_element(step_level.begin(), step_level.end()) + 1;
        level_start.assign(1, 0);
        for (int level = 0; level < levels; ++level) {
            for (size_t s = 0; s < plan.size(); ++s) {
                if (step_level[s] != level)
                    continue;
                solve_step st;
                st.target = pack_term(plan[s].col, plan[s].shift);
                st.term_begin = static_cast<uint32_t>(terms.size());
                terms.insert(terms.end(), plan[s].terms.begin(), plan[s].terms.end());
                st.term_end = static_cast<uint32_t>(terms.size());
                steps.push_back(st);
            }
            level_start.push_back(static_cast<uint32_t>(steps.size()));
        }
        base.z = static_cast<uint32_t>(z);
        base.levels = static_cast<uint32_t>(levels);
    }

    detail::awgn_channel_constants constants(double ebn0_db) const
    {
        // As the CPU frame source: R = k / e.
        const double sigma =
            detail::awgn_sigma_of(double(code.k()) / double(code.e()), ebn0_db);
        return { static_cast<float>(sigma), static_cast<float>(2.0 / (sigma * sigma)) };
    }

    void launch(uint64_t first_frame,
                size_t num_frames,
                float* llrs,
                uint8_t* bits,
                const detail::awgn_channel_constants& channel,
                cudaStream_t s)
    {
        kernel_params p = base;
        p.sigma = channel.sigma;
        p.llr_scale = channel.llr_scale;
        p.level_start = d_level_start.get();
        p.steps = d_steps.get();
        p.terms = d_terms.get();
        device_guard guard(device);
        for (size_t done = 0; done < num_frames;) {
            const size_t n = std::min<size_t>(num_frames - done, INT_MAX);
            nr_ldpc_frames_kernel<<<static_cast<unsigned>(n), kThreads, p.cw_bits, s>>>(
                p,
                first_frame + done,
                llrs ? llrs + done * p.e : nullptr,
                bits ? bits + done * p.k : nullptr);
            GPUFEC_CUDA_CHECK_LAUNCH();
            done += n;
        }
    }
};

nr_ldpc_source_cuda::nr_ldpc_source_cuda(const nr_ldpc_code& code,
                                         double ebn0_db,
                                         uint64_t seed,
                                         int device)
    : cuda_source_base(device, size_t(code.e()), size_t(code.k())),
      d_impl(std::make_unique<impl>(code, device))
{
    require_device(device);
    impl& im = *d_impl;
    kernel_params& p = im.base;
    p.seed = seed;
    p.k = static_cast<uint32_t>(code.k());
    p.k_max = static_cast<uint32_t>(code.k_max());
    p.cw_bits = static_cast<uint32_t>(code.codeword_bits());
    p.e = static_cast<uint32_t>(code.e());
    p.fillers = static_cast<uint32_t>(code.fillers());
    p.filler_begin = static_cast<uint32_t>(code.k() - 2 * code.z());
    p.buffer_bits = static_cast<uint32_t>(code.n() - code.fillers());
    im.plan();
    device_guard guard(device);
    // 26 112 bytes at most (BG1 Z = 384): within the default 48 KiB.
    upload(im.d_level_start, im.level_start);
    upload(im.d_steps, im.steps);
    upload(im.d_terms, im.terms);
    set_ebn0_db(ebn0_db);
}

nr_ldpc_source_cuda::~nr_ldpc_source_cuda() = default;

void nr_ldpc_source_cuda::check_ebn0_db(double ebn0_db) const
{
    d_impl->constants(ebn0_db); // throws for a bad value
}

void nr_ldpc_source_cuda::launch_frames(uint64_t first_frame,
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
                   d_impl->constants(ebn0_db),
                   static_cast<cudaStream_t>(stream));
}

} // namespace cuda

std::unique_ptr<awgn_bpsk_source> make_nr_ldpc_source_cuda(const nr_ldpc_code& code,
                                                           double ebn0_db,
                                                           uint64_t seed,
                                                           int device)
{
    return std::make_unique<cuda::nr_ldpc_source_cuda>(code, ebn0_db, seed, device);
}

} // namespace gpufec
