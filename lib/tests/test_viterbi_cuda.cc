/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// GPU Viterbi tests: the CUDA decoder against the CPU reference (bit for bit on int8
// input) through the batching engine, and BER on the GPU. Skipped without a device.
#include <gpufec/awgn_source.h>
#include <gpufec/engine.h>
#include <gpufec/viterbi.h>
#include "test_helpers.h"
#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace gpufec;

namespace {

bool have_gpu() { return cuda_device_count() > 0; }

#define REQUIRE_GPU()                                  \
    do {                                               \
        if (!have_gpu())                               \
            GTEST_SKIP() << "no CUDA device available"; \
    } while (0)

struct decoded {
    std::vector<uint64_t> ids;
    std::vector<std::vector<uint8_t>> bits;
};

//! Runs frames through an engine, popping as it goes; returns unpacked bits per frame.
decoded run_engine(batch_engine& eng, const std::vector<std::vector<int8_t>>& frames)
{
    decoded out;
    auto take = [&](const completed_frame& c) {
        out.ids.push_back(c.id);
        std::vector<uint8_t> bits(c.nbits);
        unpack_bits(c.packed, bits.data(), c.nbits);
        out.bits.push_back(std::move(bits));
    };
    completed_frame c;
    for (size_t i = 0; i < frames.size(); ++i) {
        while (!eng.submit(frames[i].data(), frames[i].size(), i)) {
            if (eng.pop_wait(c))
                take(c);
        }
        while (eng.try_pop(c))
            take(c);
    }
    eng.flush();
    while (eng.pop_wait(c))
        take(c);
    return out;
}

//! Noisy codeword LLRs (int8) for random info bits: realistic metric spread.
std::vector<int8_t> noisy_frame(const conv_code& code, size_t info, double sigma, std::mt19937& rng)
{
    std::vector<uint8_t> bits(info), coded(code.coded_bits(info));
    for (auto& b : bits)
        b = rng() & 1;
    conv_encode(code, bits.data(), info, coded.data());
    std::normal_distribution<double> noise(0.0, sigma);
    std::vector<int8_t> llr(coded.size());
    for (size_t i = 0; i < coded.size(); ++i) {
        const double y = (coded[i] ? -1.0 : 1.0) + noise(rng);
        const double l = std::round(16.0 * 2.0 * y / (sigma * sigma) / 4.0);
        llr[i] = static_cast<int8_t>(std::max(-127.0, std::min(127.0, l)));
    }
    return llr;
}

struct code_case {
    int k;
    std::vector<int> polys;
    termination term;
    std::string puncture;
};

std::vector<code_case> agreement_cases()
{
    return {
        { 7, { 0171, 0133 }, termination::terminated, "" },
        { 7, { 0171, 0133 }, termination::truncated, "" },
        { 7, { 0171, 0133 }, termination::tail_biting, "" },
        { 7, { 0171, 0133 }, termination::terminated, "3/4" },
        { 7, { 0171, 0133 }, termination::terminated, "7/8" },
        { 7, { 0133, 0171, 0165 }, termination::terminated, "" },
        { 7, { 0117, 0127, 0155, 0171 }, termination::tail_biting, "" },
        { 3, { 07, 05 }, termination::terminated, "" },
        { 4, { 017, 013 }, termination::truncated, "2/3" },
        { 5, { 023, 035 }, termination::tail_biting, "" },
        { 6, { 053, 075 }, termination::terminated, "5/6" },
        { 8, { 0247, 0371 }, termination::terminated, "" },
        { 9, { 0561, 0753 }, termination::terminated, "" },
        { 9, { 0557, 0663, 0711 }, termination::tail_biting, "" },
        { 7, { 0171, 0132 }, termination::terminated, "" }, // not symmetric: general kernel
        { 5, { 027, 014, 033 }, termination::truncated, "" }, // not symmetric, n = 3
    };
}

} // namespace

TEST(ViterbiCuda, BadDeviceIsRejectedWithAllowedValues)
{
    const conv_code code;
    try {
        make_decoder(code, viterbi_options{}, "cuda:99");
        FAIL() << "expected gpufec::error";
    } catch (const error& e) {
        const std::string msg = e.what();
        EXPECT_TRUE(msg.find("cuda") != std::string::npos || msg.find("CUDA") != std::string::npos)
            << msg;
    }
}

TEST(ViterbiCuda, MatchesCpuBitForBitOnInt8Input)
{
    REQUIRE_GPU();
    std::mt19937 rng(1234);
    for (const auto& cc : agreement_cases()) {
        const conv_code code(1500, cc.k, cc.polys, cc.term, cc.puncture);
        SCOPED_TRACE(code.describe());
        // Random lengths, incl. frames shorter than the overlap and one region.
        std::vector<std::vector<int8_t>> frames;
        std::uniform_int_distribution<int> len(1, code.frame_bits());
        for (int f = 0; f < 60; ++f) {
            size_t info = (f % 10 == 0) ? code.frame_bits() : static_cast<size_t>(len(rng));
            if (f % 7 == 3)
                info = 1 + f % 40;
            if (code.coded_bits(info) == 0 || code.info_bits_for_coded(code.coded_bits(info)) != info)
                continue;
            const double sigma = (f % 3 == 0) ? 1.2 : 0.8;
            frames.push_back(noisy_frame(code, info, sigma, rng));
        }
        // Also pure random LLRs: many ties and wrong paths.
        for (int f = 0; f < 10; ++f) {
            std::vector<int8_t> l(code.coded_bits());
            for (auto& v : l)
                v = static_cast<int8_t>(static_cast<int>(rng() % 9) - 4);
            frames.push_back(std::move(l));
        }
        engine_config cfg;
        cfg.max_batch_frames = 16;
        batch_engine cpu(std::shared_ptr<batch_decoder>(make_viterbi_decoder_cpu(code)), cfg);
        batch_engine gpu(std::shared_ptr<batch_decoder>(make_decoder(code, viterbi_options{}, "cuda:0")), cfg);
        const decoded a = run_engine(cpu, frames);
        const decoded b = run_engine(gpu, frames);
        ASSERT_EQ(a.ids.size(), frames.size());
        ASSERT_EQ(b.ids.size(), frames.size());
        for (size_t i = 0; i < frames.size(); ++i) {
            ASSERT_EQ(b.ids[i], i);
            ASSERT_EQ(a.bits[i], b.bits[i]) << "frame " << i << " of " << frames[i].size() << " LLRs";
        }
    }
}

TEST(ViterbiCuda, LongFrameSplitIntoWindowsMatchesCpu)
{
    REQUIRE_GPU();
    std::mt19937 rng(77);
    const conv_code code(65536, 7, { 0171, 0133 }, termination::terminated, "");
    std::vector<std::vector<int8_t>> frames{ noisy_frame(code, 65536, 1.0, rng),
                                             noisy_frame(code, 65536, 0.9, rng) };
    engine_config cfg;
    cfg.max_batch_frames = 2;
    batch_engine cpu(std::shared_ptr<batch_decoder>(make_viterbi_decoder_cpu(code)), cfg);
    batch_engine gpu(std::shared_ptr<batch_decoder>(make_decoder(code, viterbi_options{}, "cuda:0")), cfg);
    const decoded a = run_engine(cpu, frames);
    const decoded b = run_engine(gpu, frames);
    ASSERT_EQ(a.bits.size(), 2u);
    ASSERT_EQ(b.bits.size(), 2u);
    EXPECT_EQ(a.bits[0], b.bits[0]);
    EXPECT_EQ(a.bits[1], b.bits[1]);
}

TEST(ViterbiCuda, EngineKeepsOrderUnderRandomSubmissions)
{
    REQUIRE_GPU();
    std::mt19937 rng(5);
    const conv_code code(1024, 7, { 0171, 0133 }, termination::terminated, "");
    engine_config cfg;
    cfg.max_batch_frames = 7;
    cfg.num_slots = 3;
    batch_engine gpu(std::shared_ptr<batch_decoder>(make_decoder(code, viterbi_options{}, "cuda:0")), cfg);
    // Noiseless frames of random lengths: the decoded bits identify each frame.
    std::vector<std::vector<uint8_t>> sent;
    std::vector<std::vector<uint8_t>> got;
    uint64_t next_id = 0;
    completed_frame c;
    auto take = [&](const completed_frame& fr) {
        ASSERT_EQ(fr.id, got.size());
        std::vector<uint8_t> bits(fr.nbits);
        unpack_bits(fr.packed, bits.data(), fr.nbits);
        got.push_back(std::move(bits));
    };
    for (int round = 0; round < 200; ++round) {
        const int burst = rng() % 12;
        for (int i = 0; i < burst; ++i) {
            const size_t info = 1 + rng() % 1024;
            std::vector<uint8_t> bits(info), coded(code.coded_bits(info));
            for (auto& b : bits)
                b = rng() & 1;
            conv_encode(code, bits.data(), info, coded.data());
            std::vector<float> llr(coded.size());
            for (size_t j = 0; j < coded.size(); ++j)
                llr[j] = coded[j] ? -4.f : 4.f;
            while (!gpu.submit(llr.data(), llr.size(), next_id)) {
                ASSERT_TRUE(gpu.pop_wait(c));
                take(c);
            }
            ++next_id;
            sent.push_back(std::move(bits));
        }
        if (rng() % 3 == 0)
            gpu.launch();
        while (gpu.try_pop(c))
            take(c);
    }
    gpu.flush();
    while (gpu.pop_wait(c))
        take(c);
    ASSERT_EQ(got.size(), sent.size());
    for (size_t i = 0; i < sent.size(); ++i)
        ASSERT_EQ(got[i], sent[i]) << "frame " << i;
}

TEST(ViterbiCuda, ZeroErrorsAt6dBOverAMillionBits)
{
    REQUIRE_GPU();
    const conv_code code(2048, 7, { 0171, 0133 }, termination::terminated, "");
    auto src = make_awgn_bpsk_source(code, 6.0, 42, resolve_backend("cpu"));
    const size_t frames = 500; // 1.02e6 info bits
    std::vector<float> llrs(frames * src->llrs_per_frame());
    std::vector<uint8_t> ref(frames * src->bits_per_frame());
    src->generate(0, frames, llrs.data(), ref.data());
    engine_config cfg;
    cfg.max_batch_frames = 128;
    batch_engine gpu(std::shared_ptr<batch_decoder>(make_decoder(code, viterbi_options{}, "cuda:0")), cfg);
    size_t errors = 0, bits = 0, popped = 0;
    completed_frame c;
    auto take = [&](const completed_frame& fr) {
        std::vector<uint8_t> out(fr.nbits);
        unpack_bits(fr.packed, out.data(), fr.nbits);
        for (size_t i = 0; i < fr.nbits; ++i)
            errors += out[i] != ref[fr.id * code.frame_bits() + i];
        bits += fr.nbits;
        ++popped;
    };
    for (size_t f = 0; f < frames; ++f) {
        while (!gpu.submit(llrs.data() + f * src->llrs_per_frame(), src->llrs_per_frame(), f))
            if (gpu.pop_wait(c))
                take(c);
    }
    gpu.flush();
    while (gpu.pop_wait(c))
        take(c);
    EXPECT_EQ(popped, frames);
    EXPECT_GE(bits, 1000000u);
    EXPECT_EQ(errors, 0u);
}
