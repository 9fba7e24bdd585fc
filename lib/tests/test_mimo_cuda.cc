/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// GPU MIMO detection (issue 10): the CUDA LMMSE detector against the CPU's through the
// engine (LLRs within a relative 1e-3: float against double; the same hard decisions
// wherever |L| > 1e-2), bad input, and a kernel-only timing (disabled). Skipped without
// a device.
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/mimo_detection.h>

#include "cpu/kbest_float.h"
#include "test_helpers.h"
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#if GPUFEC_HAVE_CUDA
#include "cuda/mimo/mimo_cuda.h"
#endif

using namespace gpufec;
using gpufec::test::expect_error;

namespace {

bool have_gpu() { return cuda_device_count() > 0; }

#define REQUIRE_GPU()                                   \
    do {                                                \
        if (!have_gpu())                                \
            GTEST_SKIP() << "no CUDA device available"; \
    } while (0)

struct block {
    std::vector<cfloat> h, y;
};

//! Coherence blocks of 1..coherence vectors: Rayleigh H, random points, noise; every
//! 17th block has a zero column, every 29th a NaN sample.
std::vector<block>
draw_blocks(const mimo_setup& s, float noise_var, int count, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    const constellation c(s.mod);
    std::vector<block> out(count);
    for (int i = 0; i < count; i++) {
        block& b = out[i];
        b.h.resize(s.nr * s.nt);
        for (auto& x : b.h)
            x = cfloat(g(rng), g(rng)) * 0.70710678f;
        if (i % 17 == 5)
            for (int r = 0; r < s.nr; r++)
                b.h[r * s.nt] = 0;
        const int vectors = 1 + i % s.coherence;
        for (int v = 0; v < vectors; v++) {
            std::vector<cfloat> x(s.nt);
            for (auto& p : x)
                p = c.points()[rng() % c.size()];
            for (int r = 0; r < s.nr; r++) {
                cfloat acc = cfloat(g(rng), g(rng)) * std::sqrt(noise_var / 2);
                for (int k = 0; k < s.nt; k++)
                    acc += b.h[r * s.nt + k] * x[k];
                b.y.push_back(acc);
            }
        }
        if (i % 29 == 7)
            b.y[0] = cfloat(std::nanf(""), 0);
    }
    return out;
}

std::vector<std::vector<float>> run(std::shared_ptr<batch_decoder> det,
                                    const std::vector<block>& blocks)
{
    engine_config cfg;
    cfg.max_batch_frames = 64;
    batch_engine eng(det, cfg);
    std::vector<std::vector<float>> out;
    completed_frame f;
    auto take = [&](const completed_frame& c) {
        EXPECT_EQ(c.id, out.size());
        out.emplace_back(c.llrs, c.llrs + c.nbits);
    };
    for (size_t i = 0; i < blocks.size(); i++) {
        while (!eng.submit(blocks[i].y.data(),
                           blocks[i].y.size(),
                           blocks[i].h.data(),
                           blocks[i].h.size(),
                           i))
            if (eng.pop_wait(f))
                take(f);
        while (eng.try_pop(f))
            take(f);
    }
    eng.flush();
    while (eng.pop_wait(f))
        take(f);
    return out;
}

} // namespace

TEST(MimoCuda, LmmseMatchesCpu)
{
    REQUIRE_GPU();
    struct cfg {
        int nt, nr;
        modulation m;
        int coherence;
    };
    for (const cfg& k : { cfg{ 1, 1, modulation::qam256, 1 },
                          cfg{ 2, 2, modulation::qpsk, 1 },
                          cfg{ 2, 4, modulation::qam16, 3 },
                          cfg{ 4, 4, modulation::qam16, 1 },
                          cfg{ 4, 4, modulation::qam64, 12 },
                          cfg{ 3, 3, modulation::bpsk, 2 },
                          cfg{ 8, 8, modulation::qam16, 1 },
                          cfg{ 6, 8, modulation::qam256, 4 } }) {
        mimo_setup s;
        s.nt = k.nt;
        s.nr = k.nr;
        s.mod = k.m;
        s.coherence = k.coherence;
        mimo_detector_options o;
        o.algorithm = mimo_algorithm::lmmse;
        o.noise_var = 0.2f;
        SCOPED_TRACE(std::to_string(k.nt) + "x" + std::to_string(k.nr) + " " +
                     to_string(k.m));
        auto gpu = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cuda:0"));
        auto cpu = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cpu"));
        ASSERT_EQ(gpu->backend(), backend_kind::cuda);
        const auto blocks = draw_blocks(s, o.noise_var, 300, 11 + k.nt * 10 + k.nr);
        const auto want = run(cpu, blocks), got = run(gpu, blocks);
        ASSERT_EQ(got.size(), want.size());
        size_t compared = 0;
        for (size_t f = 0; f < want.size(); f++) {
            ASSERT_EQ(got[f].size(), want[f].size());
            for (size_t i = 0; i < want[f].size(); i++) {
                const float w = want[f][i], g = got[f][i];
                ASSERT_NEAR(g, w, 1e-3f * (1 + std::fabs(w)))
                    << "frame " << f << " llr " << i;
                if (std::fabs(w) > 1e-2f)
                    ASSERT_EQ(g < 0, w < 0);
                compared++;
            }
        }
        EXPECT_GT(compared, 1000u);
    }
}

TEST(MimoCuda, MttMatchesCpuBitForBit)
{
    // The CPU stage runs the same float MTT (lib/cpu/mtt_float.h): equal LLRs.
    REQUIRE_GPU();
    struct cfg {
        int nt, nr;
        modulation m;
        int coherence;
    };
    for (const cfg& k : { cfg{ 1, 1, modulation::qam64, 1 },
                          cfg{ 2, 2, modulation::qpsk, 1 },
                          cfg{ 2, 4, modulation::qam16, 3 },
                          cfg{ 4, 4, modulation::qam16, 1 },
                          cfg{ 4, 4, modulation::qam64, 2 },
                          cfg{ 3, 3, modulation::bpsk, 2 },
                          cfg{ 4, 8, modulation::qpsk, 1 },
                          cfg{ 4, 4, modulation::qpsk, 2 } }) {
        mimo_setup s;
        s.nt = k.nt;
        s.nr = k.nr;
        s.mod = k.m;
        s.coherence = k.coherence;
        mimo_detector_options o;
        o.algorithm = mimo_algorithm::mtt;
        o.noise_var = 0.2f;
        SCOPED_TRACE(std::to_string(k.nt) + "x" + std::to_string(k.nr) + " " +
                     to_string(k.m));
        auto gpu = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cuda:0"));
        auto cpu = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cpu"));
        ASSERT_EQ(gpu->backend(), backend_kind::cuda);
        const auto blocks = draw_blocks(s, o.noise_var, 200, 51 + k.nt * 10 + k.nr);
        const auto want = run(cpu, blocks), got = run(gpu, blocks);
        ASSERT_EQ(got.size(), want.size());
        for (size_t f = 0; f < want.size(); f++)
            ASSERT_EQ(got[f], want[f]) << "frame " << f;
    }
}

TEST(MimoCuda, KBestMatchesCpuBitForBit)
{
    // The CPU stage runs the same float K-best (lib/cpu/kbest_float.h): equal LLRs,
    // the default K (the constellation size) and others, clipped LLRs included.
    REQUIRE_GPU();
    struct cfg {
        int nt, nr;
        modulation m;
        int coherence, k;
    };
    for (const cfg& k : { cfg{ 2, 2, modulation::qpsk, 1, 0 },
                          cfg{ 2, 4, modulation::qam16, 3, 0 },
                          cfg{ 4, 4, modulation::qam16, 1, 0 },
                          cfg{ 4, 4, modulation::qam16, 4, 5 },
                          cfg{ 4, 4, modulation::qam64, 2, 0 },
                          cfg{ 3, 3, modulation::bpsk, 2, 1 },
                          cfg{ 4, 8, modulation::qpsk, 1, 64 } }) {
        mimo_setup s;
        s.nt = k.nt;
        s.nr = k.nr;
        s.mod = k.m;
        s.coherence = k.coherence;
        mimo_detector_options o;
        o.algorithm = mimo_algorithm::kbest;
        o.kbest_k = k.k;
        o.noise_var = 0.2f;
        SCOPED_TRACE(std::to_string(k.nt) + "x" + std::to_string(k.nr) + " " +
                     to_string(k.m) + " K " + std::to_string(k.k));
        auto gpu = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cuda:0"));
        auto cpu = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cpu"));
        ASSERT_EQ(gpu->backend(), backend_kind::cuda);
        const auto blocks = draw_blocks(s, o.noise_var, 200, 91 + k.nt * 10 + k.nr);
        const auto want = run(cpu, blocks), got = run(gpu, blocks);
        ASSERT_EQ(got.size(), want.size());
        for (size_t f = 0; f < want.size(); f++)
            ASSERT_EQ(got[f], want[f]) << "frame " << f;
    }
}

TEST(MimoCuda, NoiseVariancePerFrameMatchesCpu)
{
    // The frame's own noise variance (the aux entry after H): 0.05, 0.5, 0 and NaN in
    // turn, the last two giving all-zero LLRs on both backends.
    REQUIRE_GPU();
    mimo_setup s;
    s.nt = 4;
    s.nr = 4;
    s.mod = modulation::qam16;
    s.coherence = 2;
    const float values[] = { 0.05f, 0.5f, 0.0f, std::nanf("") };
    auto blocks = draw_blocks(s, 0.1f, 240, 77);
    for (size_t i = 0; i < blocks.size(); i++)
        blocks[i].h.push_back(cfloat(values[i % 4], 0.0f));
    for (mimo_algorithm alg :
         { mimo_algorithm::mtt, mimo_algorithm::lmmse, mimo_algorithm::kbest }) {
        mimo_detector_options o;
        o.algorithm = alg;
        o.noise_var_per_frame = true;
        auto gpu = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cuda:0"));
        auto cpu = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cpu"));
        const auto want = run(cpu, blocks), got = run(gpu, blocks);
        ASSERT_EQ(got.size(), want.size());
        for (size_t f = 0; f < want.size(); f++) {
            ASSERT_EQ(got[f].size(), want[f].size());
            for (size_t i = 0; i < want[f].size(); i++) {
                if (alg != mimo_algorithm::lmmse || f % 4 >= 2)
                    ASSERT_EQ(got[f][i], want[f][i]) << "frame " << f;
                else
                    ASSERT_NEAR(
                        got[f][i], want[f][i], 1e-3f * (1 + std::fabs(want[f][i])))
                        << "frame " << f;
            }
        }
    }
}

TEST(MimoCuda, RefusesWhatItCannotDetect)
{
    REQUIRE_GPU();
    mimo_setup s;
    mimo_detector_options o;
    o.algorithm = mimo_algorithm::ml;
    expect_error([&] { make_decoder(s, o, "cuda:0"); }, { "allowed on cuda: lmmse" });
    // "auto" keeps the CPU-only algorithms and sizes on the CPU.
    EXPECT_EQ(make_decoder(s, o, "auto")->backend(), backend_kind::cpu);
    o.algorithm = mimo_algorithm::kbest;
    EXPECT_EQ(make_decoder(s, o, "auto")->backend(), backend_kind::cuda);
    o.kbest_k = kbest_float::max_k + 1;
    EXPECT_EQ(make_decoder(s, o, "auto")->backend(), backend_kind::cpu);
    expect_error([&] { make_decoder(s, o, "cuda:0"); }, { "kbest_k <= 64" });
    o.kbest_k = 0;
    o.algorithm = mimo_algorithm::lmmse;
    EXPECT_EQ(make_decoder(s, o, "auto")->backend(), backend_kind::cuda);
    o.algorithm = mimo_algorithm::mtt;
    EXPECT_EQ(make_decoder(s, o, "auto")->backend(), backend_kind::cuda);
    mimo_setup big = s;
    big.nt = big.nr = 8;
    EXPECT_EQ(make_decoder(big, o, "auto")->backend(), backend_kind::cpu);
    expect_error([&] { make_decoder(big, o, "cuda:0"); }, { "nt <= 4" });
    o.noise_var = 0;
    expect_error([&] { make_decoder(s, o, "cuda:0"); }, { "> 0" });
}

#if GPUFEC_HAVE_CUDA
TEST(MimoCuda, DISABLED_LmmseKernelThroughput)
{
    // ./test_mimo_cuda --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'
    REQUIRE_GPU();
    struct cfg {
        int nt, nr;
        modulation m;
        int coherence;
    };
    for (const cfg& k : { cfg{ 4, 4, modulation::qam16, 1 },
                          cfg{ 4, 4, modulation::qam16, 12 },
                          cfg{ 2, 2, modulation::qpsk, 1 },
                          cfg{ 4, 4, modulation::qam64, 1 } }) {
        mimo_setup s;
        s.nt = k.nt;
        s.nr = k.nr;
        s.mod = k.m;
        s.coherence = k.coherence;
        for (mimo_algorithm alg : { mimo_algorithm::lmmse, mimo_algorithm::mtt }) {
            mimo_detector_options o;
            o.algorithm = alg;
            const size_t frames =
                (size_t(1) << (alg == mimo_algorithm::mtt ? 20 : 22)) / k.coherence;
            // MTT: the group kernel (1) and the thread-per-block one (2) side by side.
            for (int kernel : { 1, 2 }) {
                if (kernel == 2 && alg != mimo_algorithm::mtt)
                    continue;
                const auto t = cuda::time_mimo_kernel(s, o, 0, frames, 20, kernel);
                std::printf(
                    "%s %dx%d %s coherence %d: %.3f ms per %.0f vectors, %.2f Gb/s "
                    "(%s)\n",
                    alg == mimo_algorithm::mtt ? "mtt" : "lmmse",
                    k.nt,
                    k.nr,
                    to_string(k.m),
                    k.coherence,
                    t.median_ms,
                    t.vectors,
                    t.bits / (t.median_ms * 1e-3) / 1e9,
                    t.kernel.c_str());
            }
        }
    }
}
#endif
