/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU exhaustive ML decoder of the NR small-block UCI codes. It follows the reference
// arithmetic of nr_uci_small.h (all int32, so the CUDA kernel matches it bit for bit):
//
//   L_j = sum_{k : map[k mod N] = j} llr_k                       (j < m <= 32)
//   metric(u) = sum_j (1 - 2 c_j(u)) L_j = S - 2 sum_{j : c_j(u) = 1} L_j,  S = sum_j L_j
//   u_hat = argmax metric (smallest u on ties)
//   soft_i = (max_{u : bit i = 0} metric - max_{u : bit i = 1} metric) / 2
//
// The partial sums sum_{j : c_j = 1} L_j come from four 256-entry tables, one per byte of
// the codeword (built once per frame, 255 adds each), so a candidate costs four lookups
// instead of 32 adds; the integers are the same either way.
#include "cpu/fixed_length_decoder.h"
#include <gpufec/nr_uci_small.h>

#include <climits>
#include <cstring>

namespace gpufec {

namespace {

class uci_small_decoder_cpu : public fixed_length_cpu_decoder
{
public:
    explicit uci_small_decoder_cpu(const nr_uci_small_code& code)
        : fixed_length_cpu_decoder("uci small", code.e(), code.k()), d_code(code)
    {
    }

    bool has_soft_output() const override { return true; }

    std::string name() const override { return d_code.describe() + " ML on cpu"; }

protected:
    frame_status decode_one(const llr8_t* llrs,
                            uint8_t* packed,
                            float* soft,
                            const exec_ctx&,
                            size_t) override
    {
        const int K = d_code.k();
        const int E = d_code.e();
        const std::vector<int8_t>& map = d_code.mother_map();
        const int N = static_cast<int>(map.size());
        const int m = d_code.codeword_bits();

        // 1. Combine the E LLRs into the m code bits.
        int32_t L[32] = {};
        for (int k = 0, j = 0; k < E; k++) {
            if (map[j] >= 0)
                L[map[j]] += llrs[k];
            if (++j == N)
                j = 0;
        }
        int32_t S = 0;
        for (int j = 0; j < m; j++)
            S += L[j];

        // Byte tables: T[b][v] = sum of L[8b + t] over the set bits t of v.
        const int bytes = (m + 7) / 8;
        int32_t T[4][256];
        for (int b = 0; b < bytes; b++) {
            T[b][0] = 0;
            for (int v = 1; v < 256; v++)
                T[b][v] = T[b][v & (v - 1)] + L[8 * b + __builtin_ctz(v)];
        }

        // 2-4. Every message; the best metric, and per bit value when soft is asked.
        const std::vector<uint32_t>& book = d_code.codebook();
        const uint32_t count = static_cast<uint32_t>(book.size());
        int32_t best = INT32_MIN;
        uint32_t best_u = 0;
        int32_t best_bit[2][nr_uci_small_code::max_k];
        for (int i = 0; i < K; i++)
            best_bit[0][i] = best_bit[1][i] = INT32_MIN;
        for (uint32_t u = 0; u < count; u++) {
            const uint32_t w = book[u];
            int32_t ones = T[0][w & 0xff];
            for (int b = 1; b < bytes; b++)
                ones += T[b][(w >> (8 * b)) & 0xff];
            const int32_t metric = S - 2 * ones;
            if (metric > best) {
                best = metric;
                best_u = u;
            }
            if (soft)
                for (int i = 0; i < K; i++) {
                    int32_t& slot = best_bit[(u >> (K - 1 - i)) & 1u][i];
                    if (metric > slot)
                        slot = metric;
                }
        }

        // K <= 11 bits, MSB first, into packed_bytes(K) bytes.
        const uint32_t aligned = best_u << (16 - K);
        packed[0] = static_cast<uint8_t>(aligned >> 8);
        if (K > 8)
            packed[1] = static_cast<uint8_t>(aligned & 0xff);
        if (soft)
            for (int i = 0; i < K; i++)
                soft[i] = static_cast<float>((best_bit[0][i] - best_bit[1][i]) / 2);
        return frame_status{ 1, true };
    }

private:
    nr_uci_small_code d_code;
};

} // namespace

std::unique_ptr<batch_decoder>
make_uci_small_decoder_cpu(const nr_uci_small_code& code,
                           const uci_small_decoder_options&)
{
    return std::make_unique<uci_small_decoder_cpu>(code);
}

} // namespace gpufec
