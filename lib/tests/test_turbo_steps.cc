/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The scalar turbo decoder steps that the CUDA decoder's threads run
// (lib/cpu/turbo_steps.h), in the CUDA kernel's schedule (window by window, stakes
// double-buffered, the extrinsic passed through the QPP interleaver, APP and CRC24B
// after decoder 2), run on the host against the CPU decoder: the same bits, iterations,
// CRC status and soft output for int16 and int8, scaled and plain max-log-MAP, 1..64
// sub-blocks, with and without CRC and early termination. The kernel's own test is
// test_turbo_cuda (GPU).
#include "cpu/turbo_steps.h"
#include "test_helpers.h"
#include <gpufec/turbo.h>
#include <gpufec/turbo_decoding.h>

#include <gtest/gtest.h>
#include <cmath>
#include <random>
#include <vector>

using namespace gpufec;
namespace ts = gpufec::turbo_steps;

namespace {

struct scalar_result {
    std::vector<uint8_t> bits;
    std::vector<float> soft;
    frame_status status;
};

//! The CUDA kernel's schedule (turbo_cuda.cu), one window after the other.
scalar_result decode_scalar(const lte_turbo_code& code,
                            const turbo_decoder_options& o,
                            const std::vector<llr8_t>& llrs)
{
    const int K = code.k(), P = o.sub_blocks;
    const bool scaled = o.algorithm == turbo_algorithm::scaled_max_log_map;
    const int q =
        scaled ? std::max(1, int(std::lround(o.extrinsic_scale * 128.0f))) : 128;
    const int ext_max = o.arithmetic == turbo_arithmetic::int8 ? 127 : 2047;
    const bool crc = code.crc24b();
    const auto& pi = code.interleaver();
    const int8_t* d0 = llrs.data();
    const int8_t* d1 = d0 + (K + 4);
    const int8_t* d2 = d1 + (K + 4);
    std::vector<int16_t> A(8 * size_t(K)), e12(K), e21(K, 0);
    std::vector<uint8_t> hard(K);
    std::vector<int> app(K);
    // stakes[dec][buf][slot][state]
    std::vector<int> stakes(2 * 2 * 2 * (P + 1) * 8, 0);
    auto stake = [&](int dec, int buf, int slot) {
        return &stakes[((2 * dec + buf) * 2 * (P + 1) + slot) * 8];
    };
    for (int dec = 0; dec < 2; dec++) {
        int a[8], b[8];
        ts::start_alpha(a);
        ts::tail_beta(d0, d1, d2, K, dec, b);
        for (int buf = 0; buf < 2; buf++)
            for (int s = 0; s < 8; s++) {
                stake(dec, buf, 0)[s] = a[s];
                stake(dec, buf, P + 1 + P)[s] = b[s];
            }
    }
    scalar_result r;
    r.status = frame_status{ 0, !crc };
    int cur = 0;
    for (int it = 0; it < o.iterations; it++) {
        const bool decide = crc ? (o.early_termination || it + 1 == o.iterations)
                                : it + 1 == o.iterations;
        for (int dec = 0; dec < 2; dec++) {
            const int* in = stake(dec, cur, 0);
            int* out = stake(dec, 1 - cur, 0);
            for (int s = 0; s < 8; s++) {
                out[s] = in[s];
                out[8 * (P + 1 + P) + s] = in[8 * (P + 1 + P) + s];
            }
            for (int w = 0; w < P; w++) {
                const int begin = int(int64_t(w) * K / P),
                          end = int(int64_t(w + 1) * K / P);
                int alpha[8], beta[8];
                for (int s = 0; s < 8; s++) {
                    alpha[s] = in[8 * w + s];
                    beta[s] = in[8 * (P + 1 + w + 1) + s];
                }
                if (dec == 0)
                    ts::window(
                        begin,
                        end,
                        alpha,
                        beta,
                        A.data(),
                        [&](int i) { return int(d0[i]) + int(e21[i]); },
                        [&](int i) { return int(d1[i]); },
                        [&](int i, int, int le) {
                            e12[i] = int16_t(ts::pass(le, q, scaled, ext_max));
                        });
                else
                    ts::window(
                        begin,
                        end,
                        alpha,
                        beta,
                        A.data(),
                        [&](int i) { return int(d0[pi[i]]) + int(e12[pi[i]]); },
                        [&](int i) { return int(d2[i]); },
                        [&](int i, int ls, int le) {
                            const uint32_t j = pi[i];
                            e21[j] = int16_t(ts::pass(le, q, scaled, ext_max));
                            if (decide) {
                                app[j] = ls + le;
                                hard[j] = app[j] < 0;
                            }
                        });
                for (int s = 0; s < 8; s++) {
                    out[8 * (w + 1) + s] = alpha[s];
                    out[8 * (P + 1 + w) + s] = beta[s];
                }
            }
        }
        cur = 1 - cur;
        r.status.iterations = it + 1;
        if (decide && crc) {
            r.status.ok = crc24b(hard.data(), K) == 0;
            if (r.status.ok && o.early_termination)
                break;
        }
    }
    const int n = code.info_bits();
    r.bits.assign(hard.begin(), hard.begin() + n);
    for (int i = 0; i < n; i++)
        r.soft.push_back(float(app[i]));
    return r;
}

} // namespace

TEST(TurboSteps, KernelScheduleMatchesCpuDecoder)
{
    std::mt19937 rng(31);
    struct case_t {
        int k;
        bool crc;
    };
    int compared = 0, with_errors = 0;
    for (const case_t& c : { case_t{ 40, false },
                             case_t{ 512, true },
                             case_t{ 1056, true },
                             case_t{ 6144, true },
                             case_t{ 2112, false } })
        for (turbo_arithmetic ar : { turbo_arithmetic::int16, turbo_arithmetic::int8 })
            for (int variant = 0; variant < 4; variant++) {
                const lte_turbo_code code(c.k, c.crc);
                turbo_decoder_options o;
                o.arithmetic = ar;
                o.algorithm = variant % 2 ? turbo_algorithm::max_log_map
                                          : turbo_algorithm::scaled_max_log_map;
                o.sub_blocks =
                    std::min(c.k / 8, variant < 2 ? 1 : (variant == 2 ? 8 : 64));
                o.early_termination = variant != 3;
                o.iterations = 6;
                SCOPED_TRACE("K " + std::to_string(c.k) + " variant " +
                             std::to_string(variant) + " sub_blocks " +
                             std::to_string(o.sub_blocks) +
                             (ar == turbo_arithmetic::int8 ? " int8" : " int16"));
                auto cpu = make_turbo_decoder_cpu(code, o);
                std::vector<std::vector<llr8_t>> frames;
                for (double ebn0 : { 0.0, 0.5, 1.0, test::noiseless }) {
                    const auto payload = test::random_bits(rng, code.info_bits());
                    std::vector<uint8_t> coded(code.coded_bits());
                    lte_turbo_encode(code, payload.data(), coded.data());
                    frames.push_back(test::awgn_llrs(coded, code.rate(), ebn0, rng));
                }
                const auto ref =
                    test::decode_all(*cpu, frames, code.info_bits(), true, true);
                for (size_t f = 0; f < frames.size(); f++) {
                    const scalar_result got = decode_scalar(code, o, frames[f]);
                    ASSERT_EQ(got.bits, ref.bits[f]) << "frame " << f;
                    ASSERT_EQ(got.status.iterations, ref.status[f].iterations)
                        << "frame " << f;
                    ASSERT_EQ(got.status.ok, ref.status[f].ok) << "frame " << f;
                    ASSERT_EQ(got.soft, ref.soft[f]) << "frame " << f;
                    compared++;
                    with_errors += got.status.iterations == o.iterations;
                }
            }
    EXPECT_EQ(compared, 5 * 2 * 4 * 4);
    EXPECT_GT(with_errors, 0); // some frames ran every iteration (hard cases compared)
}
