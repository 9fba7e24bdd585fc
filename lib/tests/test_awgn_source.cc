/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// AWGN/BPSK source: Philox known answers, portable maths, the frame definition, channel
// statistics against theory, and CUDA == CPU bit for bit.
#include "test_helpers.h"
#include <gpufec/awgn_source.h>
#include <gpufec/dvbs2_ldpc.h>
#include <gpufec/engine.h>
#include <gpufec/ldpc.h>
#include <gpufec/nr_uci_small.h>
#include <gpufec/philox.h>
#include <gpufec/polar.h>
#include <gpufec/turbo.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#ifdef GPUFEC_HAVE_CUDA
#include "cuda/channel/awgn_source_cuda.h"
#include "cuda/channel/nr_ldpc_source_cuda.h"
#include <cuda_runtime.h>
#endif

namespace gpufec {
namespace {

using philox::u32x4;

// ------------------------------------------------------------------ Philox, maths

TEST(Philox, RandomKnownAnswerVectors)
{
    // Random123 kat_vectors, philox4x32 with 10 rounds.
    struct kat {
        u32x4 ctr;
        uint32_t key0, key1;
        u32x4 expected;
    };
    const kat kats[] = {
        { { { 0, 0, 0, 0 } },
          0,
          0,
          { { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } } },
        { { { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff } },
          0xffffffff,
          0xffffffff,
          { { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } } },
        { { { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 } },
          0xa4093822,
          0x299f31d0,
          { { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } } },
    };
    for (const auto& k : kats) {
        const u32x4 out = philox::philox4x32_10(k.ctr, k.key0, k.key1);
        for (int i = 0; i < 4; ++i)
            EXPECT_EQ(out.v[i], k.expected.v[i]) << "word " << i;
    }
}

TEST(PortableMath, LogMatchesStdLog)
{
    std::vector<float> inputs = {
        1.0f, 0.5f, 0.25f, 0.70710677f, 0.70710683f, 0.9999999f
    };
    for (uint32_t x = 0; x < 4096; ++x) // fine sweep of the smallest arguments
        inputs.push_back(philox::uniform_open(x));
    for (uint32_t i = 0; i < 200000; ++i) // and of the whole range
        inputs.push_back(
            philox::uniform_open(philox::philox4x32_10({ { i, 0, 0, 0 } }, 1, 2).v[0]));
    for (int e = -126; e < 0; ++e) // every binade, both sides of sqrt(2)
        for (float m : { 1.0f, 1.2f, 1.41421354f, 1.41421366f, 1.9999999f })
            inputs.push_back(std::ldexp(m, e));
    for (float u : inputs) {
        const double expected = std::log(static_cast<double>(u));
        const double got = philox::portable_log(u);
        EXPECT_LE(std::fabs(got - expected), 1e-6 * std::fabs(expected) + 1e-12)
            << "u = " << u;
    }
}

TEST(PortableMath, CosSinMatchStd)
{
    std::vector<uint32_t> words = { 0u,          1u,          0x20000000u, 0x1FFFFFFFu,
                                    0x40000000u, 0x80000000u, 0xC0000000u, 0xDFFFFFFFu,
                                    0xE0000000u, 0xFFFFFFFFu };
    for (uint32_t i = 0; i < 200000; ++i)
        words.push_back(philox::philox4x32_10({ { i, 7, 0, 0 } }, 3, 4).v[1]);
    const double two_pi = 6.283185307179586476925;
    for (uint32_t w : words) {
        float c, s;
        philox::portable_cos_sin_2pi(w, c, s);
        const double theta = two_pi * (static_cast<double>(w) / 4294967296.0);
        // ~2 ulp relative, plus half an ulp of 1 where the angle is rounded to float.
        EXPECT_LE(std::fabs(c - std::cos(theta)),
                  1e-6 * std::fabs(std::cos(theta)) + 6e-8)
            << "w = " << w;
        EXPECT_LE(std::fabs(s - std::sin(theta)),
                  1e-6 * std::fabs(std::sin(theta)) + 6e-8)
            << "w = " << w;
    }
}

TEST(PortableMath, BoxMullerIsStandardNormal)
{
    // Moments and tail mass of 2e6 samples straight from the generator.
    const size_t pairs = 1000000;
    double sum = 0, sum2 = 0, sum4 = 0;
    size_t beyond3 = 0;
    for (uint32_t i = 0; i < pairs; ++i) {
        const u32x4 r = philox::philox4x32_10({ { i, 11, 0, 1 } }, 5, 6);
        float g[2];
        philox::box_muller(r.v[0], r.v[1], g[0], g[1]);
        for (float x : g) {
            sum += x;
            sum2 += double(x) * x;
            sum4 += double(x) * x * x * x;
            beyond3 += std::fabs(x) > 3.0f;
        }
    }
    const double n = 2.0 * pairs;
    EXPECT_NEAR(sum / n, 0.0, 5 * std::sqrt(1.0 / n));
    EXPECT_NEAR(sum2 / n, 1.0, 5 * std::sqrt(2.0 / n));
    EXPECT_NEAR(sum4 / n, 3.0, 5 * std::sqrt(96.0 / n)); // Var(x^4) = 105 - 9
    const double p3 = 2.699796e-3;                       // P(|x| > 3)
    EXPECT_NEAR(beyond3 / n, p3, 5 * std::sqrt(p3 / n));
}

// ------------------------------------------------------------------ helpers

double q_function(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }

struct frames {
    std::vector<float> llrs;
    std::vector<uint8_t> bits;
};

frames generate(awgn_bpsk_source& src, uint64_t first, size_t n)
{
    frames f;
    f.llrs.resize(n * src.llrs_per_frame());
    f.bits.resize(n * src.bits_per_frame());
    src.generate(first, n, f.llrs.data(), f.bits.data());
    return f;
}

backend_spec cpu_backend() { return backend_spec{}; }
backend_spec auto_backend()
{
    backend_spec s;
    s.was_auto = true;
    return s;
}

// ------------------------------------------------------------------ CPU source

TEST(AwgnSource, Geometry)
{
    const conv_code codes[] = {
        conv_code(2048),
        conv_code(2048, 7, { 0171, 0133 }, termination::terminated, "3/4"),
        conv_code(1000, 9, { 0561, 0753 }, termination::tail_biting, "5/6"),
        conv_code(40, 7, { 0133, 0171, 0165 }, termination::tail_biting),
        conv_code(77, 5, { 023, 035, 027, 033 }, termination::truncated, "10110111"),
    };
    for (const auto& code : codes) {
        auto src = make_awgn_bpsk_source(code, 3.0, 1, cpu_backend());
        EXPECT_EQ(src->llrs_per_frame(), code.coded_bits()) << code.describe();
        EXPECT_EQ(src->bits_per_frame(), static_cast<size_t>(code.frame_bits()));
        EXPECT_EQ(src->backend(), backend_kind::cpu);
    }
}

TEST(AwgnSource, SigmaFormula)
{
    EXPECT_DOUBLE_EQ(awgn_sigma(0.5, 0.0), 1.0);
    EXPECT_NEAR(awgn_sigma(1.0, 10.0 * std::log10(2.0)), 0.5, 1e-15);
    EXPECT_NEAR(
        awgn_sigma(0.75, 4.0), std::sqrt(1.0 / (1.5 * std::pow(10.0, 0.4))), 1e-15);
    EXPECT_THROW(awgn_sigma(0.0, 1.0), error);
    EXPECT_THROW(awgn_sigma(0.5, NAN), error);
    EXPECT_THROW(make_awgn_bpsk_source(conv_code(), INFINITY, 1, cpu_backend()), error);
}

TEST(AwgnSource, InfoBitsFollowTheFrameDefinition)
{
    const conv_code code(100, 5, { 023, 035 });
    auto src = make_awgn_bpsk_source(code, 2.0, 0x123456789abcdefULL, cpu_backend());
    const uint64_t first = (uint64_t{ 1 } << 32) - 1; // frame counter crosses 2^32
    const frames f = generate(*src, first, 3);
    for (size_t fr = 0; fr < 3; ++fr)
        for (size_t i = 0; i < 100; ++i) {
            const uint32_t word = philox::info_word(
                0x123456789abcdefULL, first + fr, static_cast<uint32_t>(i / 32));
            ASSERT_EQ(f.bits[fr * 100 + i], (word >> (i % 32)) & 1u) << fr << " " << i;
        }
}

TEST(AwgnSource, NoiselessSignsAreTheEncodedBits)
{
    // At 60 dB the noise never flips a sign: the LLR signs must be conv_encode(bits).
    const conv_code codes[] = {
        conv_code(2048),
        conv_code(301, 7, { 0171, 0133 }, termination::terminated, "7/8"),
        conv_code(40, 7, { 0133, 0171, 0165 }, termination::tail_biting),
        conv_code(77, 5, { 023, 035, 027, 033 }, termination::truncated, "10110111"),
    };
    for (const auto& code : codes) {
        auto src = make_awgn_bpsk_source(code, 60.0, 42, cpu_backend());
        const frames f = generate(*src, 7, 4);
        std::vector<uint8_t> coded(code.coded_bits());
        for (size_t fr = 0; fr < 4; ++fr) {
            conv_encode(
                code, &f.bits[fr * code.frame_bits()], code.frame_bits(), coded.data());
            for (size_t j = 0; j < coded.size(); ++j)
                ASSERT_EQ(f.llrs[fr * coded.size() + j] < 0, coded[j] == 1)
                    << code.describe() << " frame " << fr << " bit " << j;
        }
    }
}

// Block codes go through frame_code: same info bits and noise definition, their own
// encoder, R = k/e in sigma; the CPU is the only backend for them so far.
TEST(AwgnSource, FrameCodeUsesItsEncoderAndRate)
{
    const nr_ldpc_code ldpc(2, 16, 150, 300);
    frame_code fc;
    fc.info_bits = size_t(ldpc.k());
    fc.coded_bits = size_t(ldpc.e());
    fc.encode = [ldpc](const uint8_t* in, uint8_t* out) { ldpc.encode(in, out); };
    fc.description = "NR LDPC BG2 Z=16";
    auto src = make_awgn_bpsk_source(fc, 60.0, 3, cpu_backend());
    ASSERT_EQ(src->llrs_per_frame(), 300u);
    ASSERT_EQ(src->bits_per_frame(), 150u);
    const frames f = generate(*src, 11, 3);
    std::vector<uint8_t> coded(300);
    for (size_t fr = 0; fr < 3; ++fr) {
        for (size_t i = 0; i < 150; ++i) {
            const uint32_t word =
                philox::info_word(3, 11 + fr, static_cast<uint32_t>(i / 32));
            ASSERT_EQ(f.bits[fr * 150 + i], (word >> (i % 32)) & 1u);
        }
        ldpc.encode(&f.bits[fr * 150], coded.data());
        for (size_t j = 0; j < coded.size(); ++j)
            ASSERT_EQ(f.llrs[fr * 300 + j] < 0, coded[j] == 1) << fr << " " << j;
    }
    // |LLR| = 2|y|/sigma^2 with sigma from R = 1/2: at 0 dB noiseless mean 4 * R * 1.
    auto noisy = make_awgn_bpsk_source(fc, 0.0, 3, cpu_backend());
    const frames g = generate(*noisy, 0, 200);
    double mean = 0;
    std::vector<uint8_t> c(300);
    for (size_t fr = 0; fr < 200; ++fr) {
        ldpc.encode(&g.bits[fr * 150], c.data());
        for (size_t j = 0; j < 300; ++j)
            mean += g.llrs[fr * 300 + j] * (c[j] ? -1.0 : 1.0);
    }
    mean /= double(g.llrs.size());
    EXPECT_NEAR(mean, 2.0 / (1.0 / (2 * 0.5)), 0.05); // E[L] = 2/sigma^2 = 4 R Eb/N0
    // Without frame_code::nr_ldpc the CUDA backend encodes it through its generator
    // (AffineSourceCuda): "cuda" raises only without CUDA in the build or a device,
    // where "auto" takes the CPU.
    backend_spec cuda;
    cuda.kind = backend_kind::cuda;
    const bool gpu = cuda_device_count() > 0;
    try {
        EXPECT_EQ(make_awgn_bpsk_source(fc, 1.0, 1, cuda)->backend(), backend_kind::cuda);
        EXPECT_TRUE(gpu);
    } catch (const error& e) {
        const std::string what = e.what();
        EXPECT_FALSE(gpu) << what;
        EXPECT_TRUE(what.find("not yet available") != std::string::npos ||
                    what.find("no CUDA device") != std::string::npos)
            << what;
    }
    EXPECT_EQ(make_awgn_bpsk_source(fc, 1.0, 1, auto_backend())->backend(),
              gpu ? backend_kind::cuda : backend_kind::cpu);
}

// Every LLR is the frame definition's (philox::noise4, then bpsk_llr) bit for bit, in
// the CPU's AVX2 lanes (32 samples at a time, where the CPU has them) and in its scalar
// loop (GPUFEC_CPU_SIMD=portable), over frame lengths with and without a tail, seeds
// and frame numbers with both 32-bit halves set.
TEST(AwgnSource, LlrsAreTheNoiseDefinitionBitForBit)
{
    for (const char* simd : { "portable", "avx512" }) { // avx512: no cap
        test::scoped_env env("GPUFEC_CPU_SIMD", simd);
        for (size_t n : { size_t{ 1 },
                          size_t{ 3 },
                          size_t{ 31 },
                          size_t{ 32 },
                          size_t{ 33 },
                          size_t{ 100 },
                          size_t{ 4099 } }) {
            frame_code fc; // coded = info: the coded bits are the info bits
            fc.info_bits = fc.coded_bits = n;
            fc.encode = [n](const uint8_t* in, uint8_t* out) {
                std::copy(in, in + n, out);
            };
            fc.description = "identity";
            for (uint64_t seed : { uint64_t{ 0 }, uint64_t{ 0x0123456789abcdefu } }) {
                SCOPED_TRACE(std::string(simd) + " n=" + std::to_string(n));
                auto src = make_awgn_bpsk_source(fc, 1.0, seed, cpu_backend());
                const uint64_t first = (uint64_t{ 5 } << 32) + 7;
                const frames f = generate(*src, first, 3);
                const double sigma_d = awgn_sigma(1.0, 1.0);
                const float sigma = float(sigma_d),
                            scale = float(2.0 / (sigma_d * sigma_d));
                size_t mismatches = 0;
                for (size_t fr = 0; fr < 3; ++fr) {
                    for (size_t j = 0; j < n; j += 4) {
                        float g[4];
                        philox::noise4(seed, first + fr, uint32_t(j / 4), g);
                        for (size_t m = 0; m < 4 && j + m < n; ++m) {
                            const float want = philox::bpsk_llr(
                                f.bits[fr * n + j + m], g[m], sigma, scale);
                            mismatches += std::memcmp(&want,
                                                      &f.llrs[fr * n + j + m],
                                                      sizeof want) != 0;
                        }
                    }
                }
                EXPECT_EQ(mismatches, 0u);
            }
        }
    }
}

TEST(AwgnSource, FramesArePureFunctionsOfSeedAndIndex)
{
    const conv_code code(512, 7, { 0171, 0133 }, termination::terminated, "2/3");
    auto a = make_awgn_bpsk_source(code, 1.5, 99, cpu_backend());
    auto b = make_awgn_bpsk_source(code, 1.5, 99, cpu_backend());
    const size_t C = a->llrs_per_frame(), I = a->bits_per_frame();
    const frames big = generate(*a, 1000, 96); // large enough for several threads
    for (size_t fr : { size_t{ 0 }, size_t{ 37 }, size_t{ 95 } }) {
        const frames one = generate(*b, 1000 + fr, 1);
        EXPECT_EQ(0, std::memcmp(one.llrs.data(), &big.llrs[fr * C], C * sizeof(float)));
        EXPECT_EQ(0, std::memcmp(one.bits.data(), &big.bits[fr * I], I));
    }
    const frames again = generate(*a, 1000, 96);
    EXPECT_EQ(big.llrs, again.llrs);
    EXPECT_EQ(big.bits, again.bits);
    // Null outputs are skipped and do not change the other output.
    std::vector<uint8_t> bits_only(I * 2);
    a->generate(1000, 2, nullptr, bits_only.data());
    EXPECT_TRUE(std::equal(bits_only.begin(), bits_only.end(), big.bits.begin()));
    // Different frames and different seeds differ.
    EXPECT_NE(0, std::memcmp(&big.bits[0], &big.bits[I], I));
    EXPECT_NE(0, std::memcmp(&big.llrs[0], &big.llrs[C], C * sizeof(float)));
    auto other_seed = make_awgn_bpsk_source(code, 1.5, 100, cpu_backend());
    const frames o = generate(*other_seed, 1000, 1);
    EXPECT_NE(0, std::memcmp(o.bits.data(), big.bits.data(), I));
}

TEST(AwgnSource, NoiseStatisticsAndInfoBalance)
{
    // Recovers n = (LLR sigma^2 / 2 - (1 - 2c)) / sigma from ~1e6 coded bits.
    const conv_code code(2048);
    const double ebn0 = 1.0;
    auto src = make_awgn_bpsk_source(code, ebn0, 2024, cpu_backend());
    const size_t nframes = 250;
    const frames f = generate(*src, 0, nframes);
    const double sigma = awgn_sigma(code.rate(), ebn0);
    std::vector<uint8_t> coded(code.coded_bits());
    double sum = 0, sum2 = 0;
    size_t ones = 0, count = 0;
    for (size_t fr = 0; fr < nframes; ++fr) {
        const uint8_t* bits = &f.bits[fr * code.frame_bits()];
        ones += std::count(bits, bits + code.frame_bits(), 1);
        conv_encode(code, bits, code.frame_bits(), coded.data());
        for (size_t j = 0; j < coded.size(); ++j) {
            const double y = f.llrs[fr * coded.size() + j] * sigma * sigma / 2.0;
            const double n = (y - (coded[j] ? -1.0 : 1.0)) / sigma;
            sum += n;
            sum2 += n * n;
            ++count;
        }
    }
    const double N = static_cast<double>(count);
    const double mean = sum / N, var = sum2 / N - mean * mean;
    EXPECT_NEAR(mean, 0.0, 5 * std::sqrt(1.0 / N));
    EXPECT_NEAR(var, 1.0, 5 * std::sqrt(2.0 / N));
    const double nbits = static_cast<double>(nframes * code.frame_bits());
    EXPECT_NEAR(ones / nbits, 0.5, 5 * std::sqrt(0.25 / nbits));
    for (uint8_t b : f.bits)
        ASSERT_LE(b, 1);
}

TEST(AwgnSource, CodedBitErrorRateMatchesTheory)
{
    // Hard decisions on the LLRs: P(error) = Q(sqrt(2 R Eb/N0)).
    struct point {
        conv_code code;
        double ebn0_db;
    };
    const point points[] = {
        { conv_code(2048), 2.0 },
        { conv_code(2048, 7, { 0171, 0133 }, termination::terminated, "3/4"), 4.0 },
        { conv_code(1000, 7, { 0133, 0171, 0165 }, termination::tail_biting), 0.0 },
    };
    for (const auto& pt : points) {
        auto src = make_awgn_bpsk_source(pt.code, pt.ebn0_db, 5, cpu_backend());
        const size_t nframes = 2000000 / pt.code.coded_bits() + 1;
        const frames f = generate(*src, 0, nframes);
        std::vector<uint8_t> coded(pt.code.coded_bits());
        size_t errors = 0;
        for (size_t fr = 0; fr < nframes; ++fr) {
            conv_encode(pt.code,
                        &f.bits[fr * pt.code.frame_bits()],
                        pt.code.frame_bits(),
                        coded.data());
            for (size_t j = 0; j < coded.size(); ++j)
                errors += (f.llrs[fr * coded.size() + j] < 0) != (coded[j] == 1);
        }
        const double N = static_cast<double>(nframes * coded.size());
        const double p = q_function(
            std::sqrt(2.0 * pt.code.rate() * std::pow(10.0, pt.ebn0_db / 10.0)));
        EXPECT_NEAR(errors / N, p, 5 * std::sqrt(p * (1 - p) / N)) << pt.code.describe();
    }
}

TEST(AwgnSource, EbN0ChangeAppliesToLaterFrames)
{
    const conv_code code(256);
    auto src = make_awgn_bpsk_source(code, 1.0, 8, cpu_backend());
    const frames before = generate(*src, 3, 2);
    src->set_ebn0_db(6.0);
    EXPECT_EQ(src->ebn0_db(), 6.0);
    const frames after = generate(*src, 3, 2);
    auto fresh = make_awgn_bpsk_source(code, 6.0, 8, cpu_backend());
    const frames expected = generate(*fresh, 3, 2);
    EXPECT_EQ(after.llrs, expected.llrs);
    EXPECT_EQ(after.bits, before.bits); // the info bits do not depend on Eb/N0
    EXPECT_NE(after.llrs, before.llrs);
    // Same noise sample, two noise levels: y = s + sigma n gives n back from either one.
    const auto n_of = [&](float llr, double ebn0, uint8_t c) {
        const double sigma = awgn_sigma(code.rate(), ebn0);
        return (llr * sigma * sigma / 2.0 - (c ? -1.0 : 1.0)) / sigma;
    };
    std::vector<uint8_t> coded(code.coded_bits());
    conv_encode(code, before.bits.data(), code.frame_bits(), coded.data());
    for (size_t j = 0; j < coded.size(); ++j)
        ASSERT_NEAR(n_of(before.llrs[j], 1.0, coded[j]),
                    n_of(after.llrs[j], 6.0, coded[j]),
                    1e-4);
    EXPECT_THROW(src->set_ebn0_db(NAN), error);
    EXPECT_EQ(src->ebn0_db(), 6.0);
}

TEST(AwgnSource, CudaBackendWithoutDeviceThrows)
{
    if (cuda_device_count() > 0)
        GTEST_SKIP() << "a CUDA device is present";
    backend_spec cuda;
    cuda.kind = backend_kind::cuda;
    EXPECT_THROW(make_awgn_bpsk_source(conv_code(), 1.0, 1, cuda), error);
}

// ------------------------------------------------------------------ engine producer

/*!
 * Frames [first, first + n) made by the source's engine stage: requested `chunk` at a
 * time as far as the slots allow, popped in order (waiting only when no slot is free),
 * checked for id, size and side, and copied out (device pointers with cudaMemcpy).
 */
frames through_engine(std::shared_ptr<awgn_bpsk_source> src,
                      uint64_t first,
                      size_t n,
                      size_t chunk,
                      const engine_config& config)
{
    const size_t C = src->llrs_per_frame(), I = src->bits_per_frame();
    batch_engine engine(make_source_stage(src), config);
    frames f;
    f.llrs.resize(n * C);
    f.bits.resize(n * I);
    size_t requested = 0, popped = 0;
    completed_frame out;
    while (popped < n) {
        if (requested < n) {
            const size_t took =
                engine.request_frames(std::min(chunk, n - requested), first + requested);
            requested += took;
            if (took > 0)
                continue;
        }
        if (!engine.pop_wait(out)) {
            ADD_FAILURE() << "engine has no frame " << first + popped;
            break;
        }
        EXPECT_EQ(out.id, first + popped);
        EXPECT_EQ(out.nbits, C);
        EXPECT_EQ(out.side_bytes, I);
        EXPECT_EQ(out.packed, nullptr);
        EXPECT_EQ(out.on_device, config.output_side == memory_side::device);
        if (!out.llrs || !out.side) {
            ADD_FAILURE() << "frame " << out.id << " without LLRs or info bits";
            break;
        }
        if (out.on_device) {
#ifdef GPUFEC_HAVE_CUDA
            EXPECT_EQ(cudaMemcpy(f.llrs.data() + popped * C,
                                 out.llrs,
                                 C * sizeof(float),
                                 cudaMemcpyDeviceToHost),
                      cudaSuccess);
            EXPECT_EQ(
                cudaMemcpy(
                    f.bits.data() + popped * I, out.side, I, cudaMemcpyDeviceToHost),
                cudaSuccess);
#endif
        } else {
            std::memcpy(f.llrs.data() + popped * C, out.llrs, C * sizeof(float));
            std::memcpy(f.bits.data() + popped * I, out.side, I);
        }
        ++popped;
    }
    EXPECT_EQ(engine.frames_pending(), 0u);
    return f;
}

//! Frames numbered `ids`, one generate() call each.
frames generate_ids(awgn_bpsk_source& src, const std::vector<uint64_t>& ids)
{
    frames all;
    for (uint64_t id : ids) {
        const frames one = generate(src, id, 1);
        all.llrs.insert(all.llrs.end(), one.llrs.begin(), one.llrs.end());
        all.bits.insert(all.bits.end(), one.bits.begin(), one.bits.end());
    }
    return all;
}

void expect_same_frames(const frames& a, const frames& b, const std::string& what)
{
    ASSERT_EQ(a.llrs.size(), b.llrs.size()) << what;
    ASSERT_EQ(a.bits, b.bits) << what;
    ASSERT_EQ(0, std::memcmp(a.llrs.data(), b.llrs.data(), a.llrs.size() * sizeof(float)))
        << what;
}

TEST(AwgnSourceStage, CpuEngineMakesTheFramesOfGenerate)
{
    // Batches of 7 frames, requests of 4 and 9, 3 slots and 3 workers: frames cross
    // batch, slot and request boundaries and still come back as generate() makes them.
    const conv_code code(1000, 7, { 0171, 0133 }, termination::tail_biting, "3/4");
    std::shared_ptr<awgn_bpsk_source> src =
        make_awgn_bpsk_source(code, 2.5, 11, cpu_backend());
    const frames expected = generate(*src, 1000, 50);
    engine_config config;
    config.max_batch_frames = 7;
    config.num_slots = 3;
    config.cpu_threads = 3;
    for (size_t chunk : { size_t(4), size_t(9) })
        expect_same_frames(through_engine(src, 1000, 50, chunk, config),
                           expected,
                           "chunk " + std::to_string(chunk));

    // A block code through its frame_code encoder.
    const nr_ldpc_code ldpc(2, 16, 150, 300);
    frame_code frame;
    frame.info_bits = size_t(ldpc.k());
    frame.coded_bits = size_t(ldpc.e());
    frame.encode = [ldpc](const uint8_t* in, uint8_t* out) { ldpc.encode(in, out); };
    std::shared_ptr<awgn_bpsk_source> block_src =
        make_awgn_bpsk_source(frame, 1.0, 3, cpu_backend());
    expect_same_frames(through_engine(block_src, 7, 20, 6, config),
                       generate(*block_src, 7, 20),
                       "nr ldpc");
}

TEST(AwgnSourceStage, IdsAreFrameNumbers)
{
    // Gaps in the ids within one batch: each frame is the one its id names.
    std::shared_ptr<awgn_bpsk_source> src =
        make_awgn_bpsk_source(conv_code(300), 3.0, 5, cpu_backend());
    engine_config config;
    config.max_batch_frames = 8;
    batch_engine engine(make_source_stage(src), config);
    const std::vector<uint64_t> ids = { 5, 6, 7, 100, 101, 3 };
    ASSERT_EQ(engine.request_frames(3, 5), 3u);
    ASSERT_EQ(engine.request_frames(2, 100), 2u);
    ASSERT_EQ(engine.request_frames(1, 3), 1u);
    EXPECT_EQ(engine.frames_in_filling(), 6u);
    const frames expected = generate_ids(*src, ids);
    const size_t C = src->llrs_per_frame(), I = src->bits_per_frame();
    completed_frame out;
    for (size_t k = 0; k < ids.size(); ++k) {
        ASSERT_TRUE(engine.pop_wait(out));
        ASSERT_EQ(out.id, ids[k]);
        EXPECT_EQ(0, std::memcmp(out.llrs, &expected.llrs[k * C], C * sizeof(float)));
        EXPECT_EQ(0, std::memcmp(out.side, &expected.bits[k * I], I));
    }
    EXPECT_FALSE(engine.pop_wait(out));
}

TEST(AwgnSourceStage, PopFramesCopiesBatchesBackToBack)
{
    // 20 frames in batches of 7: pop_frames(max 5) stops at each batch's end, so it
    // returns 5, 2, 5, 2, 5, 1; float output is generate()'s, int8 output its
    // quantize_llrs() with the engine's llr_scale, info bits the side output.
    std::shared_ptr<awgn_bpsk_source> src =
        make_awgn_bpsk_source(conv_code(300, 7, { 0171, 0133 }), 1.0, 8, cpu_backend());
    const size_t C = src->llrs_per_frame(), I = src->bits_per_frame();
    const frames expected = generate(*src, 0, 20);
    engine_config config;
    config.max_batch_frames = 7;
    config.num_slots = 3;
    config.llr_scale = 5.5f;
    std::vector<llr8_t> expected8(expected.llrs.size());
    quantize_llrs(
        expected.llrs.data(), expected8.data(), expected8.size(), config.llr_scale);
    for (bool int8 : { false, true }) {
        batch_engine engine(make_source_stage(src), config);
        EXPECT_EQ(engine.pop_frames(static_cast<float*>(nullptr), nullptr, 5, true), 0u)
            << "nothing requested";
        ASSERT_EQ(engine.request_frames(20, 0), 20u);
        std::vector<float> llrs(20 * C);
        std::vector<llr8_t> llrs8(20 * C);
        std::vector<uint8_t> bits(20 * I);
        std::vector<size_t> counts;
        for (size_t got = 0; got < 20;) {
            const size_t n =
                int8 ? engine.pop_frames(&llrs8[got * C], &bits[got * I], 5, true)
                     : engine.pop_frames(&llrs[got * C], &bits[got * I], 5, true);
            ASSERT_GT(n, 0u);
            counts.push_back(n);
            got += n;
        }
        EXPECT_EQ(counts, (std::vector<size_t>{ 5, 2, 5, 2, 5, 1 }));
        EXPECT_EQ(engine.frames_pending(), 0u);
        EXPECT_EQ(bits, expected.bits);
        if (int8)
            EXPECT_EQ(llrs8, expected8);
        else
            EXPECT_EQ(0, std::memcmp(llrs.data(), expected.llrs.data(), llrs.size() * 4));
    }
    batch_engine decoder(make_viterbi_decoder(conv_code(300), cpu_backend()),
                         engine_config{});
    std::vector<float> out(600);
    test::expect_error([&] { decoder.pop_frames(out.data(), nullptr, 1, false); },
                       { "pop_frames", "packed bit", "pop_wait" });
}

// A CPU source's int8 stage (make_source_stage(source, scale): each worker quantizes its
// frame) pops the bytes that the float stage's pop_frames() quantizes with the same
// scale: frame lengths that are multiples of 4 (back to back) and not (each frame padded
// in the slot), both soft conventions; its output has no float form, and bad scales are
// refused.
TEST(AwgnSourceStage, Int8StageMatchesTheQuantizedFloatStage)
{
    for (int info : { 300, 301 }) { // 612 and 614 LLRs a frame
        std::shared_ptr<awgn_bpsk_source> src = make_awgn_bpsk_source(
            conv_code(info, 7, { 0171, 0133 }), 1.5, 3, cpu_backend());
        const size_t C = src->llrs_per_frame(), I = src->bits_per_frame();
        ASSERT_EQ(C % 4 == 0, info == 300);
        for (soft_convention convention :
             { soft_convention::llr, soft_convention::gnuradio }) {
            SCOPED_TRACE(std::to_string(C) + " LLRs, " + to_string(convention));
            engine_config config;
            config.max_batch_frames = 6;
            config.num_slots = 2;
            config.llr_scale = 4.25f;
            config.convention = convention;
            std::vector<llr8_t> got[2];
            std::vector<uint8_t> bits[2];
            for (int int8_stage : { 0, 1 }) {
                batch_engine engine(
                    make_source_stage(src, int8_stage ? config.llr_scale : 0.0f), config);
                EXPECT_EQ(engine.decoder().output(),
                          int8_stage ? output_format::llr_int8
                                     : output_format::llr_float);
                got[int8_stage].resize(17 * C);
                bits[int8_stage].resize(17 * I);
                size_t requested = 0, n = 0; // frames 5 .. 21, two slots of 6
                auto request = [&] {
                    while (const size_t r =
                               engine.request_frames(17 - requested, 5 + requested))
                        requested += r;
                };
                request();
                ASSERT_EQ(requested, 12u);
                while (n < 17) {
                    const size_t k = engine.pop_frames(
                        &got[int8_stage][n * C], &bits[int8_stage][n * I], 17 - n, true);
                    ASSERT_GT(k, 0u);
                    n += k;
                    request();
                }
                if (int8_stage) {
                    std::vector<float> floats(C);
                    ASSERT_EQ(engine.request_frames(1, 0), 1u);
                    test::expect_error(
                        [&] { engine.pop_frames(floats.data(), nullptr, 1, true); },
                        { "int8 LLRs", "llr8_t" });
                }
            }
            EXPECT_EQ(got[1], got[0]);
            EXPECT_EQ(bits[1], bits[0]);
        }
    }
    std::shared_ptr<awgn_bpsk_source> src =
        make_awgn_bpsk_source(conv_code(300), 1.0, 1, cpu_backend());
    for (float bad : { -1.0f,
                       std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::infinity() })
        test::expect_error(
            [&] { make_source_stage(src, bad); },
            { "int8_scale", "allowed: 0 (float output) or a finite scale > 0" });
}

TEST(AwgnSourceStage, ProducersTakeNoInputAndDecodersNoRequests)
{
    std::shared_ptr<awgn_bpsk_source> src =
        make_awgn_bpsk_source(conv_code(300), 3.0, 5, cpu_backend());
    auto stage = make_source_stage(src);
    EXPECT_EQ(stage->input(), input_format::none);
    EXPECT_EQ(stage->output(), output_format::llr_float);
    EXPECT_EQ(stage->output_bits_for_input(0), src->llrs_per_frame());
    EXPECT_EQ(stage->side_bytes_per_frame(), src->bits_per_frame());
    test::expect_error([&] { stage->output_bits_for_input(5); }, { "no input", "5" });
    batch_engine producer(stage, engine_config{});
    const std::vector<float> llrs(600, 1.0f);
    test::expect_error([&] { producer.submit(llrs.data(), llrs.size(), 0); },
                       { "producer", "request_frames" });
    batch_engine decoder(make_viterbi_decoder(conv_code(300), cpu_backend()),
                         engine_config{});
    test::expect_error([&] { decoder.request_frames(1, 0); },
                       { "request_frames", "submit" });
    test::expect_error([] { make_source_stage(nullptr); }, { "null" });
}

// ------------------------------------------------------------------ CUDA == CPU

#ifdef GPUFEC_HAVE_CUDA

backend_spec cuda_backend()
{
    backend_spec s;
    s.kind = backend_kind::cuda;
    return s;
}

void expect_identical(const frames& a, const frames& b, const std::string& what)
{
    ASSERT_EQ(a.llrs.size(), b.llrs.size()) << what;
    ASSERT_EQ(a.bits.size(), b.bits.size()) << what;
    for (size_t i = 0; i < a.bits.size(); ++i)
        ASSERT_EQ(a.bits[i], b.bits[i]) << what << ": info bit " << i;
    for (size_t i = 0; i < a.llrs.size(); ++i) {
        uint32_t x, y;
        std::memcpy(&x, &a.llrs[i], 4);
        std::memcpy(&y, &b.llrs[i], 4);
        ASSERT_EQ(x, y) << what << ": LLR " << i << " cpu " << a.llrs[i] << " cuda "
                        << b.llrs[i];
    }
}

frames generate_on_device(awgn_bpsk_source& src, uint64_t first, size_t n)
{
    const size_t C = src.llrs_per_frame(), I = src.bits_per_frame();
    float* d_llrs = nullptr;
    uint8_t* d_bits = nullptr;
    EXPECT_EQ(cudaMalloc(&d_llrs, n * C * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_bits, n * I), cudaSuccess);
    src.generate_device(first, n, d_llrs, d_bits, nullptr);
    frames f;
    f.llrs.resize(n * C);
    f.bits.resize(n * I);
    EXPECT_EQ(
        cudaMemcpy(f.llrs.data(), d_llrs, n * C * sizeof(float), cudaMemcpyDeviceToHost),
        cudaSuccess);
    EXPECT_EQ(cudaMemcpy(f.bits.data(), d_bits, n * I, cudaMemcpyDeviceToHost),
              cudaSuccess);
    cudaFree(d_llrs);
    cudaFree(d_bits);
    return f;
}

TEST(AwgnSourceCuda, IdenticalToCpu)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    const conv_code codes[] = {
        conv_code(2048),
        conv_code(2048, 7, { 0171, 0133 }, termination::terminated, "3/4"),
        conv_code(301, 7, { 0171, 0133 }, termination::terminated, "7/8"),
        conv_code(1000, 9, { 0561, 0753 }, termination::tail_biting, "5/6"),
        conv_code(40, 7, { 0133, 0171, 0165 }, termination::tail_biting),
        conv_code(5, 7, { 0133, 0171 }, termination::tail_biting), // shorter than K-1
        conv_code(77, 5, { 023, 035, 027, 033 }, termination::truncated, "10110111"),
        conv_code(4096, 3, { 07, 05 }, termination::truncated),
    };
    const uint64_t starts[] = { 0, (uint64_t{ 1 } << 32) - 5, 0xFFFFFFFFFFFFFF00ULL };
    for (const auto& code : codes) {
        auto cpu = make_awgn_bpsk_source(code, 2.5, 0xfeedbeef12345ULL, cpu_backend());
        cuda::awgn_source_cuda gpu(code, 2.5, 0xfeedbeef12345ULL, 0);
        for (int pol = 0; pol < cuda::awgn_source_cuda::num_launch_policies(); ++pol) {
            gpu.set_launch_policy(pol);
            for (uint64_t first : starts) {
                for (size_t n : { size_t{ 1 }, size_t{ 3 }, size_t{ 37 } }) {
                    const std::string what =
                        code.describe() + " policy " +
                        cuda::awgn_source_cuda::launch_policy_name(pol) + " first " +
                        std::to_string(first) + " n " + std::to_string(n);
                    const frames ref = generate(*cpu, first, n);
                    expect_identical(ref, generate(gpu, first, n), what + " (host path)");
                    expect_identical(
                        ref, generate_on_device(gpu, first, n), what + " (device)");
                }
            }
        }
    }
}

TEST(AwgnSourceCuda, LargeBatchesEbN0ChangeAndPartialOutputs)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    const conv_code code(2048);
    auto cpu = make_awgn_bpsk_source(code, 1.0, 77, cpu_backend());
    auto gpu = make_awgn_bpsk_source(code, 1.0, 77, cuda_backend());
    EXPECT_EQ(gpu->backend(), backend_kind::cuda);
    // > 2 staging chunks (64 MiB each) through the host path, crossing 2^32.
    const uint64_t first = (uint64_t{ 1 } << 32) - 4000;
    const size_t n = 8000;
    expect_identical(generate(*cpu, first, n), generate(*gpu, first, n), "8000 frames");
    // Smaller batches after a large one reuse the buffers.
    expect_identical(generate(*cpu, 5, 2), generate(*gpu, 5, 2), "2 frames");
    cpu->set_ebn0_db(4.5);
    gpu->set_ebn0_db(4.5);
    expect_identical(generate(*cpu, 5, 10), generate(*gpu, 5, 10), "after set_ebn0_db");
    // One output only.
    std::vector<float> a(3 * code.coded_bits()), b(a.size());
    cpu->generate(9, 3, a.data(), nullptr);
    gpu->generate(9, 3, b.data(), nullptr);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
    std::vector<uint8_t> c(3 * 2048), d(c.size());
    cpu->generate(9, 3, nullptr, c.data());
    gpu->generate(9, 3, nullptr, d.data());
    EXPECT_EQ(c, d);
}

//! The GPU source as an engine stage gives the CPU source's frames 40..139 with its
//! output on the host and on the device; returns the engine configuration used.
engine_config expect_engine_stage_matches(std::shared_ptr<awgn_bpsk_source> gpu,
                                          awgn_bpsk_source& cpu)
{
    const frames expected = generate(cpu, 40, 100);
    engine_config config;
    config.max_batch_frames = 16;
    config.num_slots = 3;
    for (memory_side side : { memory_side::host, memory_side::device }) {
        config.output_side = side;
        expect_same_frames(through_engine(gpu, 40, 100, 12, config),
                           expected,
                           side == memory_side::host ? "output on the host"
                                                     : "output on the device");
    }
    return config;
}

//! The CUDA source of `fc` against its CPU source: batches of each size in `counts`
//! from each first frame in `starts`, by generate() (host path) and generate_device().
void expect_cuda_source_matches_cpu(const frame_code& fc,
                                    double ebn0_db,
                                    uint64_t seed,
                                    std::initializer_list<uint64_t> starts,
                                    std::initializer_list<size_t> counts)
{
    auto cpu = make_awgn_bpsk_source(fc, ebn0_db, seed, cpu_backend());
    auto gpu = make_awgn_bpsk_source(fc, ebn0_db, seed, cuda_backend());
    ASSERT_EQ(gpu->backend(), backend_kind::cuda) << fc.description;
    for (uint64_t first : starts)
        for (size_t n : counts) {
            const std::string what = fc.description + " first " + std::to_string(first) +
                                     " n " + std::to_string(n);
            const frames ref = generate(*cpu, first, n);
            expect_identical(ref, generate(*gpu, first, n), what + " (host path)");
            expect_identical(ref, generate_on_device(*gpu, first, n), what + " (device)");
        }
}

//! An NR LDPC code as the sources take it, with the GPU encoder's description.
frame_code ldpc_frame_code(const nr_ldpc_code& code)
{
    frame_code fc;
    fc.info_bits = size_t(code.k());
    fc.coded_bits = size_t(code.e());
    fc.encode = [code](const uint8_t* in, uint8_t* out) { code.encode(in, out); };
    fc.description = "NR LDPC BG" + std::to_string(code.bg()) +
                     " Z=" + std::to_string(code.z()) + " k=" + std::to_string(code.k()) +
                     " e=" + std::to_string(code.e());
    fc.nr_ldpc = std::make_shared<const nr_ldpc_code>(code);
    return fc;
}

// The NR LDPC source on the GPU (encoder, rate matching, noise) against the CPU source
// with nr_ldpc_code::encode: both base graphs, small to largest Z, fillers, E below
// and above the circular buffer (repetition), a 1-bit E, frame numbers across 2^32.
TEST(NrLdpcSourceCuda, IdenticalToCpu)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    const nr_ldpc_code codes[] = {
        nr_ldpc_code(1, 384),             // k 8448, e = N = 25 344 (r = 1/3)
        nr_ldpc_code(1, 384, 0, 12672),   // r = 2/3
        nr_ldpc_code(2, 384),             // k 3840, r = 1/5
        nr_ldpc_code(1, 208, 4000, 9000), // fillers
        nr_ldpc_code(2, 52, 500, 2600),   // fillers; E > N - fillers: repetition
        nr_ldpc_code(1, 15, 300, 1000),   // odd Z, repetition
        nr_ldpc_code(2, 7, 60, 200),
        nr_ldpc_code(2, 2),
        nr_ldpc_code(2, 4, 30, 1), // one transmitted bit
    };
    for (const auto& code : codes)
        expect_cuda_source_matches_cpu(ldpc_frame_code(code),
                                       1.5,
                                       0xfeedbeef12345ULL,
                                       { 0, (uint64_t{ 1 } << 32) - 2 },
                                       { 1, 5, 33 });
    // The noiseless signs are the encoder's bits (encode_full and rate_match called
    // directly here, apart from the sources' shared frame definition).
    const nr_ldpc_code code(1, 52, 1000, 0);
    auto gpu = make_awgn_bpsk_source(ldpc_frame_code(code), 60.0, 9, cuda_backend());
    const frames f = generate(*gpu, 3, 4);
    std::vector<uint8_t> cw(size_t(code.codeword_bits())), sent(size_t(code.e()));
    for (size_t fr = 0; fr < 4; ++fr) {
        code.encode_full(&f.bits[fr * code.k()], cw.data());
        code.rate_match(cw.data(), sent.data());
        for (size_t j = 0; j < sent.size(); ++j)
            ASSERT_EQ(f.llrs[fr * sent.size() + j] < 0, sent[j] == 1) << fr << " " << j;
    }
}

// "auto" takes the GPU for NR LDPC codes (their own encoder) and for other affine
// codes (the generator: affine_source_cuda), the CPU for an encoder that is not
// affine, which "cuda" refuses by name. The engine stage gives the CPU's frames on
// both memory sides.
TEST(NrLdpcSourceCuda, BackendChoiceAndEngineStage)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    const frame_code fc = ldpc_frame_code(nr_ldpc_code(2, 64, 600, 1500));
    EXPECT_EQ(make_awgn_bpsk_source(fc, 2.0, 1, auto_backend())->backend(),
              backend_kind::cuda);
    frame_code plain = fc;
    plain.nr_ldpc.reset();
    auto through_generator = make_awgn_bpsk_source(plain, 2.0, 1, auto_backend());
    EXPECT_EQ(through_generator->backend(), backend_kind::cuda);
    expect_identical(generate(*make_awgn_bpsk_source(fc, 2.0, 1, cpu_backend()), 7, 9),
                     generate(*through_generator, 7, 9),
                     "NR LDPC through its generator");
    frame_code product = plain;
    product.description = "bit products";
    product.encode = [](const uint8_t* in, uint8_t* out) {
        for (int j = 0; j < 1500; ++j)
            out[j] = in[j % 600] & in[(j + 1) % 600];
    };
    EXPECT_EQ(make_awgn_bpsk_source(product, 2.0, 1, auto_backend())->backend(),
              backend_kind::cpu);
    test::expect_error([&] { make_awgn_bpsk_source(product, 2.0, 1, cuda_backend()); },
                       { "bit products", "not affine" });
    // nr_ldpc describes the encoder: a frame_code of other sizes is refused.
    frame_code other = fc;
    other.info_bits += 24; // e.g. a CRC attached before the LDPC encoder
    try {
        make_awgn_bpsk_source(other, 2.0, 1, cuda_backend());
        ADD_FAILURE() << "cuda accepted a frame_code whose sizes are not nr_ldpc's";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("k = 600, e = 1500"), std::string::npos)
            << e.what();
    }
    auto cpu = make_awgn_bpsk_source(fc, 2.0, 21, cpu_backend());
    expect_engine_stage_matches(make_awgn_bpsk_source(fc, 2.0, 21, cuda_backend()), *cpu);
}

TEST(AwgnSourceCuda, EngineStageOutputOnEitherSideMatchesCpu)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    const conv_code code(2048, 7, { 0171, 0133 }, termination::terminated, "2/3");
    auto cpu = make_awgn_bpsk_source(code, 2.0, 21, cpu_backend());
    std::shared_ptr<awgn_bpsk_source> gpu =
        make_awgn_bpsk_source(code, 2.0, 21, cuda_backend());
    const engine_config config = expect_engine_stage_matches(gpu, *cpu);
    // Gaps in the ids split a batch into runs, one kernel each.
    batch_engine engine(make_source_stage(gpu), config);
    ASSERT_EQ(engine.request_frames(3, 5), 3u);
    ASSERT_EQ(engine.request_frames(2, 90), 2u);
    const frames gaps = generate_ids(*cpu, { 5, 6, 7, 90, 91 });
    const size_t C = gpu->llrs_per_frame(), I = gpu->bits_per_frame();
    completed_frame out;
    for (size_t k = 0; k < 5; ++k) {
        ASSERT_TRUE(engine.pop_wait(out));
        ASSERT_TRUE(out.on_device);
        std::vector<float> llrs(C);
        std::vector<uint8_t> bits(I);
        ASSERT_EQ(cudaMemcpy(llrs.data(), out.llrs, C * 4, cudaMemcpyDeviceToHost),
                  cudaSuccess);
        ASSERT_EQ(cudaMemcpy(bits.data(), out.side, I, cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_EQ(0, std::memcmp(llrs.data(), &gaps.llrs[k * C], C * 4)) << k;
        EXPECT_EQ(0, std::memcmp(bits.data(), &gaps.bits[k * I], I)) << k;
    }
}

// The CUDA source of any affine block code (its encoder as a generator, one kernel for
// 8 frames a block) against the CPU source of the same frame_code: NR polar (UCI with
// shortening and two code blocks, DCI, BCH), LTE turbo (rate matched K = 6144, rv 2),
// small UCI, DVB-S2 short, and a code whose length is not a multiple of 4; batches
// that end inside a block of 8, frame numbers across 2^32, host and device paths.
TEST(AffineSourceCuda, IdenticalToCpu)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    auto frame_of = [](size_t info,
                       size_t coded,
                       const std::string& name,
                       std::function<void(const uint8_t*, uint8_t*)> encode) {
        frame_code fc;
        fc.info_bits = info;
        fc.coded_bits = coded;
        fc.description = name;
        fc.encode = std::move(encode);
        return fc;
    };
    std::vector<frame_code> codes;
    for (const nr_polar_code& c : { nr_polar_code(512, 1024, "crc11"),
                                    nr_polar_code(400, 1200, "crc11"),
                                    nr_polar_code::dci(40, 216, 0x4A2F),
                                    nr_polar_code::bch() })
        codes.push_back(
            frame_of(c.k(),
                     c.e(),
                     "polar k=" + std::to_string(c.k()),
                     [c](const uint8_t* in, uint8_t* out) { c.encode(in, out); }));
    for (const lte_turbo_code& c :
         { lte_turbo_code(6144, true, 18444), lte_turbo_code(1024, true, 3000, 2) })
        codes.push_back(frame_of(
            size_t(c.info_bits()),
            c.coded_bits(),
            c.describe(),
            [c](const uint8_t* in, uint8_t* out) { lte_turbo_encode(c, in, out); }));
    const nr_uci_small_code uci(11, 61);
    codes.push_back(
        frame_of(11, 61, uci.describe(), [uci](const uint8_t* in, uint8_t* out) {
            uci.encode(in, out);
        }));
    const dvbs2_ldpc_code dvbs2("short", "1/2");
    codes.push_back(
        frame_of(size_t(dvbs2.k()),
                 size_t(dvbs2.n()),
                 dvbs2.describe(),
                 [dvbs2](const uint8_t* in, uint8_t* out) { dvbs2.encode(in, out); }));
    for (const frame_code& fc : codes)
        expect_cuda_source_matches_cpu(
            fc, 1.25, 0xabcdef0123ULL, { 0, (uint64_t{ 1 } << 32) - 3 }, { 1, 9, 35 });
    // Output that is not 16-byte aligned (one float in): the kernel stores floats one by
    // one there instead of as float4 vectors.
    const frame_code& polar = codes[0];
    auto cpu = make_awgn_bpsk_source(polar, 1.25, 5, cpu_backend());
    auto gpu = make_awgn_bpsk_source(polar, 1.25, 5, cuda_backend());
    const size_t n = 3, C = gpu->llrs_per_frame();
    float* d_llrs = nullptr;
    ASSERT_EQ(cudaMalloc(&d_llrs, (n * C + 1) * sizeof(float)), cudaSuccess);
    gpu->generate_device(2, n, d_llrs + 1, nullptr, nullptr);
    std::vector<float> got(n * C);
    ASSERT_EQ(
        cudaMemcpy(got.data(), d_llrs + 1, n * C * sizeof(float), cudaMemcpyDeviceToHost),
        cudaSuccess);
    cudaFree(d_llrs);
    const frames ref = generate(*cpu, 2, n);
    EXPECT_EQ(0, std::memcmp(got.data(), ref.llrs.data(), n * C * sizeof(float)));
}

// CUDA sources' int8 stage (make_source_stage(source, scale): frames made on the GPU,
// quantized there): the bytes quantize_llrs() makes of the CPU source's floats, negated
// for GNU Radio's convention; frame lengths that are multiples of 4 and not (frames
// padded in the slot), the conv and NR LDPC sources, runs of ids with gaps, output on
// the host and on the device.
TEST(AwgnSourceCuda, Int8StageMatchesTheQuantizedCpuFrames)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    struct source_pair {
        std::shared_ptr<awgn_bpsk_source> cpu, gpu;
    };
    auto conv = [](int info) {
        const conv_code code(info, 7, { 0171, 0133 });
        return source_pair{ make_awgn_bpsk_source(code, 1.5, 77, cpu_backend()),
                            make_awgn_bpsk_source(code, 1.5, 77, cuda_backend()) };
    };
    auto ldpc = [](const nr_ldpc_code& code) {
        const frame_code fc = ldpc_frame_code(code);
        return source_pair{ make_awgn_bpsk_source(fc, 1.0, 77, cpu_backend()),
                            make_awgn_bpsk_source(fc, 1.0, 77, cuda_backend()) };
    };
    auto through_generator = [](const nr_polar_code& code) {
        frame_code fc;
        fc.info_bits = size_t(code.k());
        fc.coded_bits = size_t(code.e());
        fc.description = "polar k=" + std::to_string(code.k());
        fc.encode = [code](const uint8_t* in, uint8_t* out) { code.encode(in, out); };
        return source_pair{ make_awgn_bpsk_source(fc, 2.0, 77, cpu_backend()),
                            make_awgn_bpsk_source(fc, 2.0, 77, cuda_backend()) };
    };
    const source_pair sources[] = {
        conv(300),                            // 612 LLRs
        conv(301),                            // 614: padded to 616 in the slot
        ldpc(nr_ldpc_code(1, 384)),           // 25 344
        ldpc(nr_ldpc_code(2, 52, 500, 2601)), // odd E, repetition
        through_generator(nr_polar_code(100, 150, "crc11")), // the affine source
    };
    const std::vector<uint64_t> ids = {
        5, 6, 7, 90, 91, (uint64_t{ 1 } << 32) - 1, uint64_t{ 1 } << 32
    };
    const float scale = 3.5f;
    for (const source_pair& sp : sources) {
        ASSERT_EQ(sp.gpu->backend(), backend_kind::cuda);
        const size_t C = sp.gpu->llrs_per_frame(), I = sp.gpu->bits_per_frame();
        const frames ref = generate_ids(*sp.cpu, ids);
        std::vector<llr8_t> expected(ref.llrs.size());
        quantize_llrs(ref.llrs.data(), expected.data(), expected.size(), scale);
        for (soft_convention convention :
             { soft_convention::llr, soft_convention::gnuradio }) {
            for (memory_side side : { memory_side::host, memory_side::device }) {
                if (side == memory_side::device && convention != soft_convention::llr)
                    continue;
                SCOPED_TRACE(std::to_string(C) + " LLRs, " + to_string(convention) +
                             (side == memory_side::host ? ", host" : ", device"));
                engine_config config;
                config.max_batch_frames = 4; // the runs span slots
                config.num_slots = 3;
                config.llr_scale = scale;
                config.convention = convention;
                config.output_side = side;
                batch_engine engine(make_source_stage(sp.gpu, scale), config);
                ASSERT_EQ(engine.decoder().output(), output_format::llr_int8);
                std::vector<llr8_t> got(ids.size() * C);
                std::vector<uint8_t> bits(ids.size() * I);
                size_t requested = 0, popped = 0;
                while (popped < ids.size()) {
                    // Runs of consecutive ids as the engine takes them.
                    while (requested < ids.size()) {
                        size_t run = 1;
                        while (requested + run < ids.size() &&
                               ids[requested + run] == ids[requested + run - 1] + 1)
                            ++run;
                        const size_t n = engine.request_frames(run, ids[requested]);
                        if (n == 0)
                            break;
                        requested += n;
                    }
                    if (side == memory_side::host) {
                        const size_t k = engine.pop_frames(&got[popped * C],
                                                           &bits[popped * I],
                                                           ids.size() - popped,
                                                           true);
                        ASSERT_GT(k, 0u);
                        popped += k;
                    } else {
                        completed_frame out;
                        ASSERT_TRUE(engine.pop_wait(out));
                        ASSERT_TRUE(out.on_device);
                        ASSERT_NE(out.llrs8, nullptr);
                        ASSERT_EQ(out.nbits, C);
                        ASSERT_EQ(
                            cudaMemcpy(
                                &got[popped * C], out.llrs8, C, cudaMemcpyDeviceToHost),
                            cudaSuccess);
                        ASSERT_EQ(
                            cudaMemcpy(
                                &bits[popped * I], out.side, I, cudaMemcpyDeviceToHost),
                            cudaSuccess);
                        ++popped;
                    }
                }
                std::vector<llr8_t> want = expected;
                if (convention == soft_convention::gnuradio)
                    for (llr8_t& v : want)
                        v = static_cast<llr8_t>(-v);
                EXPECT_EQ(got, want);
                EXPECT_EQ(bits, ref.bits);
            }
        }
    }
    // The call's own checks; a CPU source has no device path.
    auto gpu = sources[0].gpu;
    test::expect_error(
        [&] {
            gpu->generate_device_int8(0,
                                      1,
                                      reinterpret_cast<llr8_t*>(16),
                                      612,
                                      scale,
                                      nullptr,
                                      nullptr,
                                      nullptr);
        },
        { "d_scratch" });
    test::expect_error(
        [&] {
            gpu->generate_device_int8(0,
                                      1,
                                      reinterpret_cast<llr8_t*>(16),
                                      611,
                                      scale,
                                      nullptr,
                                      reinterpret_cast<float*>(16),
                                      nullptr);
        },
        { "llr_stride = 611", ">= 612" });
    test::expect_error(
        [&] {
            sources[0].cpu->generate_device_int8(
                0, 1, nullptr, 612, scale, nullptr, nullptr, nullptr);
        },
        { "needs a CUDA source" });
}

TEST(AwgnSourceCuda, DISABLED_Throughput)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    const conv_code code(2048);
    cuda::awgn_source_cuda src(code, 2.0, 1, 0);
    const size_t C = src.llrs_per_frame(), I = src.bits_per_frame();
    const size_t n = 16384;
    float* d_llrs = nullptr;
    uint8_t* d_bits = nullptr;
    ASSERT_EQ(cudaMalloc(&d_llrs, n * C * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_bits, n * I), cudaSuccess);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    const double bytes = double(n) * (C * sizeof(float) + I);
    std::printf("device %s, %s, %zu frames/launch, %.1f MB written/launch\n",
                cuda_device_description(0).c_str(),
                code.describe().c_str(),
                n,
                bytes / 1e6);
    for (int pol = 0; pol < cuda::awgn_source_cuda::num_launch_policies(); ++pol) {
        src.set_launch_policy(pol);
        for (int w = 0; w < 3; ++w)
            src.generate_device(0, n, d_llrs, d_bits, nullptr);
        std::vector<float> ms;
        for (int r = 0; r < 25; ++r) {
            cudaEventRecord(start, nullptr);
            src.generate_device(uint64_t(r) * n, n, d_llrs, d_bits, nullptr);
            cudaEventRecord(stop, nullptr);
            cudaEventSynchronize(stop);
            float t = 0;
            cudaEventElapsedTime(&t, start, stop);
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2] * 1e-3;
        std::printf(
            "kernel policy %-22s median %.3f ms  %.1f GB/s written  %.1f Gbit/s info  "
            "%.2f G LLR/s\n",
            cuda::awgn_source_cuda::launch_policy_name(pol).c_str(),
            med * 1e3,
            bytes / med / 1e9,
            double(n) * I / med / 1e9,
            double(n) * C / med / 1e9);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaFree(d_llrs);
    cudaFree(d_bits);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);

    // End to end: host memory out (pageable destination, pinned staging inside).
    std::vector<float> llrs(n * C);
    std::vector<uint8_t> bits(n * I);
    src.generate(0, n, llrs.data(), bits.data()); // warm-up (allocates staging)
    std::vector<double> secs;
    for (int r = 0; r < 5; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        src.generate(uint64_t(r) * n, n, llrs.data(), bits.data());
        secs.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(secs.begin(), secs.end());
    std::printf("end-to-end generate(): median %.2f ms  %.1f GB/s  %.1f Gbit/s info\n",
                secs[2] * 1e3,
                bytes / secs[2] / 1e9,
                double(n) * I / secs[2] / 1e9);
}

#endif // GPUFEC_HAVE_CUDA

} // namespace
} // namespace gpufec
