/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// GPU turbo decoding (issue 12): the CUDA decoder (synchronised schedule) against the
// CPU decoder through the engine, bit for bit (payload bits, iterations, CRC status,
// soft output) for int16 and int8, scaled and plain max-log-MAP, K = 40 .. 6144,
// sub_blocks 1 .. 64, with and without CRC and early termination; what it refuses.
// Skipped without a device. (The kernel's schedule is also checked on the host against
// the CPU decoder by test_turbo_steps.)
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/turbo_decoding.h>

#include "test_helpers.h"
#include <gtest/gtest.h>

#if GPUFEC_HAVE_CUDA
#include "cuda/turbo/turbo_cuda.h"
#endif

#include <random>
#include <string>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;

#if GPUFEC_HAVE_CUDA
namespace {

bool have_gpu() { return cuda_device_count() > 0; }

} // namespace

TEST(TurboCuda, SynchronisedScheduleMatchesCpuBitForBit)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    std::mt19937 rng(41);
    struct case_t {
        int k;
        bool crc;
    };
    for (const case_t& c : { case_t{ 40, false },
                             case_t{ 512, true },
                             case_t{ 1056, true },
                             case_t{ 6144, true },
                             case_t{ 2112, false },
                             case_t{ 4032, true } })
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
                SCOPED_TRACE("K " + std::to_string(c.k) + " variant " +
                             std::to_string(variant));
                auto cpu = make_turbo_decoder_cpu(code, o);
                std::shared_ptr<batch_decoder> gpu = cuda::make_turbo_decoder(code, o, 0);
                std::vector<std::vector<llr8_t>> frames;
                for (double ebn0 : { 0.0, 0.5, 1.0, 2.0, test::noiseless })
                    for (int f = 0; f < 6; f++) {
                        const auto payload = test::random_bits(rng, code.info_bits());
                        std::vector<uint8_t> coded(code.coded_bits());
                        lte_turbo_encode(code, payload.data(), coded.data());
                        frames.push_back(test::awgn_llrs(coded, code.rate(), ebn0, rng));
                    }
                const auto ref =
                    test::decode_all(*cpu, frames, code.info_bits(), true, true);
                for (bool soft : { true, false }) {
                    const auto got =
                        test::engine_decode(gpu, frames, code.info_bits(), soft);
                    for (size_t f = 0; f < frames.size(); f++) {
                        EXPECT_EQ(got.bits[f], ref.bits[f]) << "frame " << f;
                        EXPECT_EQ(got.status[f].iterations, ref.status[f].iterations)
                            << "frame " << f;
                        EXPECT_EQ(got.status[f].ok, ref.status[f].ok) << "frame " << f;
                        if (soft)
                            EXPECT_EQ(got.soft[f], ref.soft[f]) << "frame " << f;
                    }
                }
            }
}

TEST(TurboCuda, RefusesWhatItDoesNotTake)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    turbo_decoder_options o;
    o.arithmetic = turbo_arithmetic::float32;
    expect_error([&] { cuda::make_turbo_decoder(lte_turbo_code(512), o, 0); },
                 { "int8, int16" });
    o.arithmetic = turbo_arithmetic::int16;
    expect_error([&] { cuda::make_turbo_decoder(lte_turbo_code(512, true, 1000), o, 0); },
                 { "e = 0" });
    auto gpu = cuda::make_turbo_decoder(lte_turbo_code(512), o, 0);
    expect_error([&] { gpu->output_bits_for_input(1000); }, { "1548" });
}
#endif
