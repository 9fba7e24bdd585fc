/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Tensor-core Viterbi kernel (lib/cuda/viterbi/viterbi_tc.cu) against the CPU reference,
// bit for bit on int8 input. Skipped without a device.
#include <gpufec/backends.h>
#include <gpufec/viterbi.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <random>
#include <vector>

#ifdef GPUFEC_HAVE_CUDA
#include "cuda/viterbi/viterbi_cuda.h"

using namespace gpufec;

namespace {

#define REQUIRE_GPU()                                   \
    do {                                                \
        if (cuda_device_count() == 0)                   \
            GTEST_SKIP() << "no CUDA device available"; \
    } while (0)

//! Noisy codeword LLRs (int8) for random info bits.
std::vector<int8_t>
noisy_frame(const conv_code& code, size_t info, double sigma, std::mt19937& rng)
{
    std::vector<uint8_t> bits(info), coded(code.coded_bits(info));
    for (auto& b : bits)
        b = rng() & 1;
    conv_encode(code, bits.data(), info, coded.data());
    std::normal_distribution<double> noise(0.0, sigma);
    std::vector<int8_t> llr(coded.size());
    for (size_t i = 0; i < coded.size(); ++i) {
        const double y = (coded[i] ? -1.0 : 1.0) + noise(rng);
        const double l = std::round(8.0 * y / (sigma * sigma));
        llr[i] = static_cast<int8_t>(std::max(-127.0, std::min(127.0, l)));
    }
    return llr;
}

//! Decodes all frames in one TC batch and compares each with viterbi_decode_frame_cpu.
void expect_matches_cpu(const conv_code& code,
                        const std::vector<std::vector<int8_t>>& frames)
{
    std::vector<frame_extent> ext;
    std::vector<int8_t> llrs;
    size_t out_bytes = 0;
    for (const auto& f : frames) {
        const size_t info = code.info_bits_for_coded(f.size());
        ASSERT_GT(info, 0u);
        ext.push_back(frame_extent{ llrs.size(),
                                    static_cast<uint32_t>(f.size()),
                                    out_bytes,
                                    static_cast<uint32_t>(info) });
        llrs.insert(llrs.end(), f.begin(), f.end());
        out_bytes += aligned_packed_bytes(info);
    }
    std::vector<uint8_t> out(out_bytes, 0xa5); // poison: every bit must be written
    cuda::viterbi_tc_decode(
        code, 0, llrs.data(), llrs.size(), ext, out.data(), out.size());
    for (size_t i = 0; i < frames.size(); ++i) {
        const size_t info = ext[i].out_bits;
        std::vector<uint8_t> ref(info), got(info);
        ASSERT_EQ(viterbi_decode_frame_cpu(
                      code, frames[i].data(), frames[i].size(), ref.data()),
                  info);
        unpack_bits(out.data() + ext[i].out_offset, got.data(), info);
        size_t first = info, errors = 0;
        for (size_t b = 0; b < info; ++b) {
            if (ref[b] != got[b]) {
                first = std::min(first, b);
                ++errors;
            }
        }
        ASSERT_EQ(errors, 0u) << "frame " << i << " of " << info << " info bits: first "
                              << "difference at bit " << first;
    }
}

struct code_case {
    std::vector<int> polys;
    termination term;
    std::string puncture;
};

} // namespace

TEST(ViterbiTensorCore, RejectsCodesOtherThanK7RateHalf)
{
    EXPECT_TRUE(cuda::viterbi_tc_supports(conv_code(2048, 7, { 0171, 0133 })));
    EXPECT_FALSE(cuda::viterbi_tc_supports(conv_code(2048, 9, { 0561, 0753 })));
    EXPECT_FALSE(cuda::viterbi_tc_supports(conv_code(2048, 7, { 0133, 0171, 0165 })));
    REQUIRE_GPU();
    const conv_code k5(256, 5, { 023, 035 });
    std::vector<int8_t> llr(k5.coded_bits(), 1);
    std::vector<frame_extent> ext{ { 0, static_cast<uint32_t>(llr.size()), 0, 256 } };
    std::vector<uint8_t> out(aligned_packed_bytes(256));
    try {
        cuda::viterbi_tc_decode(
            k5, 0, llr.data(), llr.size(), ext, out.data(), out.size());
        FAIL() << "expected gpufec::error";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("k=7"), std::string::npos) << e.what();
    }
}

TEST(ViterbiTensorCore, MatchesCpuBitForBitOnNoisyFrames)
{
    REQUIRE_GPU();
    const std::vector<code_case> cases{
        { { 0171, 0133 }, termination::terminated, "" },
        { { 0171, 0133 }, termination::truncated, "" },
        { { 0171, 0133 }, termination::tail_biting, "" },
        { { 0171, 0133 }, termination::terminated, "3/4" },
        { { 0171, 0133 }, termination::tail_biting, "7/8" },
        { { 0171, 0132 }, termination::truncated, "" }, // not symmetric
    };
    std::mt19937 rng(2026);
    for (const auto& cc : cases) {
        const conv_code code(3000, 7, cc.polys, cc.term, cc.puncture);
        SCOPED_TRACE(code.describe());
        std::vector<std::vector<int8_t>> frames;
        std::uniform_int_distribution<int> len(1, code.frame_bits());
        for (int f = 0; f < 48; ++f) {
            // Full frames, random lengths (odd and even stage counts), frames shorter
            // than the overlap.
            size_t info = f % 8 == 0 ? code.frame_bits() : static_cast<size_t>(len(rng));
            if (f % 6 == 5)
                info = 1 + f % 23;
            if (code.info_bits_for_coded(code.coded_bits(info)) != info)
                continue;
            frames.push_back(noisy_frame(code, info, f % 3 == 0 ? 1.1 : 0.7, rng));
        }
        // Small random LLRs (many metric ties) and saturated ones (largest metrics).
        for (int f = 0; f < 6; ++f) {
            std::vector<int8_t> l(code.coded_bits());
            for (auto& v : l)
                v = f < 3 ? static_cast<int8_t>(static_cast<int>(rng() % 5) - 2)
                          : static_cast<int8_t>((rng() & 1) ? 127 : -128);
            frames.push_back(std::move(l));
        }
        expect_matches_cpu(code, frames);
    }
}

TEST(ViterbiTensorCore, LongFramesOverManyWindowsMatchCpu)
{
    REQUIRE_GPU();
    std::mt19937 rng(99);
    for (termination term : { termination::terminated, termination::tail_biting }) {
        const conv_code code(65537, 7, { 0171, 0133 }, term, "");
        SCOPED_TRACE(code.describe());
        expect_matches_cpu(
            code,
            { noisy_frame(code, 65537, 1.0, rng), noisy_frame(code, 40000, 0.8, rng) });
    }
}

TEST(ViterbiTensorCore, NoiselessFramesDecodeToTheSentBits)
{
    REQUIRE_GPU();
    // Independent of the CPU decoder: a clean codeword must come back unchanged.
    std::mt19937 rng(3);
    const conv_code code(2048, 7, { 0171, 0133 }, termination::terminated, "");
    std::vector<uint8_t> bits(2048), coded(code.coded_bits());
    for (auto& b : bits)
        b = rng() & 1;
    conv_encode(code, bits.data(), bits.size(), coded.data());
    std::vector<int8_t> llr(coded.size());
    for (size_t i = 0; i < coded.size(); ++i)
        llr[i] = coded[i] ? -20 : 20;
    std::vector<frame_extent> ext{ { 0, static_cast<uint32_t>(llr.size()), 0, 2048 } };
    std::vector<uint8_t> out(aligned_packed_bytes(2048), 0xa5), got(2048);
    cuda::viterbi_tc_decode(code, 0, llr.data(), llr.size(), ext, out.data(), out.size());
    unpack_bits(out.data(), got.data(), got.size());
    EXPECT_EQ(got, bits);
}

#endif // GPUFEC_HAVE_CUDA
