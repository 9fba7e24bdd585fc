/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// conv_code: validation, encoder known answers, lengths, puncturing; common helpers.
#include <gpufec/convolutional.h>

#include <gtest/gtest.h>
#include "test_helpers.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;
using gpufec::test::random_bits;

namespace {

std::vector<uint8_t> encode(const conv_code& code, const std::vector<uint8_t>& info)
{
    std::vector<uint8_t> out(code.coded_bits(info.size()));
    EXPECT_EQ(conv_encode(code, info.data(), info.size(), out.data()), out.size());
    return out;
}

} // namespace

TEST(ConvCode, RejectsBadParametersNamingAllowedValues)
{
    expect_error([] { conv_code(100, 2); }, { "K = 2", "3..9" });
    expect_error([] { conv_code(100, 10, { 01001, 01011 }); }, { "3..9" });
    expect_error([] { conv_code(100, 7, { 0171 }); }, { "2, 3 or 4" });
    expect_error(
        [] {
            conv_code(100, 7, { 0171, 0133, 0165, 0117, 0127 });
        },
        { "2, 3 or 4" });
    expect_error([] { conv_code(100, 7, { 0171, 0 }); }, { "polynomial 0", "1..177" });
    expect_error([] { conv_code(100, 7, { 0171, 0233 }); }, { "233", "at most K bits" });
    expect_error([] { conv_code(0); }, { "frame_bits = 0", ">= 1" });
    expect_error([] { conv_code(-5); }, { ">= 1" });
    const std::vector<int> p2{ 0171, 0133 };
    const auto t = termination::terminated;
    expect_error([&] { conv_code(100, 7, p2, t, "1102"); }, { "'0' and '1'" });
    expect_error([&] { conv_code(100, 7, p2, t, "110"); }, { "multiple of n = 2" });
    expect_error([&] { conv_code(100, 7, p2, t, "0000"); }, { "all zeros" });
    expect_error([&] { conv_code(100, 7, p2, t, "1100"); }, { "at least one '1'" });
    expect_error([&] { conv_code(100, 7, p2, t, "4/5"); }, { "\"2/3\"", "\"7/8\"" });
    expect_error(
        [] {
            conv_code(100, 7, { 0133, 0171, 0165 }, termination::terminated, "3/4");
        },
        { "rate-1/2", "custom" });
    expect_error([] { parse_termination("zero_tail"); },
                 { "\"terminated\"", "\"truncated\"", "\"tail_biting\"" });
}

TEST(ConvCode, ParsesTerminationAndDescribes)
{
    for (termination t :
         { termination::terminated, termination::truncated, termination::tail_biting })
        EXPECT_EQ(parse_termination(to_string(t)), t);
    EXPECT_EQ(conv_code().describe(), "K=7 (171,133) r=1/2 terminated frame=2048");
    EXPECT_EQ(
        conv_code(64, 7, { 0171, 0133 }, termination::tail_biting, "3/4").describe(),
        "K=7 (171,133) r=3/4 (puncture 110110) tail_biting frame=64");
    // "1/n" and an all-ones pattern mean unpunctured.
    EXPECT_FALSE(
        conv_code(64, 7, { 0171, 0133 }, termination::terminated, "1/2").punctured());
    EXPECT_FALSE(
        conv_code(64, 7, { 0171, 0133 }, termination::terminated, "1111").punctured());
}

TEST(ConvCode, TapMasksAndSymmetry)
{
    const conv_code code(64, 7, { 0171, 0133 });
    // 171 = 1 111 001: reversed over 7 bits = 1 001 111 = 0117; 133 = 1 011 011 -> 1 101
    // 101.
    EXPECT_EQ(code.tap_mask(0), 0117u);
    EXPECT_EQ(code.tap_mask(1), 0155u);
    EXPECT_TRUE(code.symmetric());
    EXPECT_FALSE(conv_code(64, 6, { 046, 075 }).symmetric());
    // branch_output: from state 0 input 1 every polynomial taps the newest bit -> 11.
    EXPECT_EQ(code.branch_output(0, 1), 3u);
    EXPECT_EQ(code.branch_output(0, 0), 0u);
}

TEST(ConvCode, ImpulseResponseEqualsPolynomialTaps)
{
    // A single 1 followed by K-1 zero tail bits walks through every register position:
    // output i at stage t is bit (K-1-t) of polynomial i (MSB first).
    for (const auto& polys : std::vector<std::vector<int>>{
             { 0171, 0133 }, { 0133, 0171, 0165 }, { 0561, 0753 }, { 07, 05 } }) {
        int k = 0;
        for (int p : polys)
            while ((p >> k) != 0)
                k++;
        const conv_code code(1, k, polys, termination::terminated);
        const auto out = encode(code, { 1 });
        ASSERT_EQ(out.size(), static_cast<size_t>(k * polys.size()));
        for (int t = 0; t < k; t++)
            for (size_t i = 0; i < polys.size(); i++)
                EXPECT_EQ(out[t * polys.size() + i], (polys[i] >> (k - 1 - t)) & 1)
                    << "poly " << polys[i] << " stage " << t;
    }
}

TEST(ConvCode, HandWorkedK3Example)
{
    // (7,5), input 1011 + tail 00 (any textbook trellis): 11 10 00 01 01 11.
    const conv_code code(4, 3, { 07, 05 }, termination::terminated);
    EXPECT_EQ(encode(code, { 1, 0, 1, 1 }),
              (std::vector<uint8_t>{ 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1 }));
    // Truncated: no tail.
    const conv_code trunc(4, 3, { 07, 05 }, termination::truncated);
    EXPECT_EQ(encode(trunc, { 1, 0, 1, 1 }),
              (std::vector<uint8_t>{ 1, 1, 1, 0, 0, 0, 0, 1 }));
}

TEST(ConvCode, TailBitingStartsAndEndsInTheSameState)
{
    // With start state = end state the codeword is cyclic: rotating the info bits by one
    // rotates the code bits by n. Also for frames shorter than K-1.
    std::mt19937 rng(5);
    for (size_t len : { size_t(1), size_t(3), size_t(5), size_t(8), size_t(100) }) {
        const conv_code code(
            static_cast<int>(len), 7, { 0171, 0133, 0165 }, termination::tail_biting);
        const auto info = random_bits(rng, len);
        auto rotated = info;
        std::rotate(rotated.begin(), rotated.begin() + 1, rotated.end());
        auto expected = encode(code, info);
        std::rotate(expected.begin(), expected.begin() + 3, expected.end());
        EXPECT_EQ(encode(code, rotated), expected) << "len " << len;
    }
    // And it equals a terminated-style encoding started from the last K-1 info bits:
    // tail-biting of x equals the last len outputs of truncated encoding of (x[-6..-1],
    // x).
    const auto info = random_bits(rng, 50);
    std::vector<uint8_t> prefixed(info.end() - 6, info.end());
    prefixed.insert(prefixed.end(), info.begin(), info.end());
    const auto tb =
        encode(conv_code(50, 7, { 0171, 0133 }, termination::tail_biting), info);
    const auto tr =
        encode(conv_code(56, 7, { 0171, 0133 }, termination::truncated), prefixed);
    EXPECT_EQ(tb, std::vector<uint8_t>(tr.begin() + 12, tr.end()));
}

TEST(ConvCode, PuncturingKeepsTheDvbsPositionsAndRates)
{
    // DVB-S (EN 300 421 table 2): X1 Y1 Y2 X3 for 3/4, i.e. serialized keep-mask 110110.
    const struct {
        const char* name;
        const char* pattern;
        double rate;
    } rates[] = { { "2/3", "1101", 2.0 / 3 },
                  { "3/4", "110110", 3.0 / 4 },
                  { "5/6", "1101100110", 5.0 / 6 },
                  { "7/8", "11010101100110", 7.0 / 8 } };
    std::mt19937 rng(7);
    for (const auto& r : rates) {
        // 2520 is a multiple of every period, so rate() is exact for truncated frames.
        const conv_code code(2520, 7, { 0171, 0133 }, termination::truncated, r.name);
        EXPECT_NEAR(code.rate(), r.rate, 1e-12) << r.name;
        EXPECT_EQ(code.puncture_mask().size(), std::string(r.pattern).size());
        const conv_code mother(2520, 7, { 0171, 0133 }, termination::truncated);
        const auto info = random_bits(rng, 2520);
        const auto full = encode(mother, info);
        std::vector<uint8_t> kept;
        const std::string pat = r.pattern;
        for (size_t i = 0; i < full.size(); i++)
            if (pat[i % pat.size()] == '1')
                kept.push_back(full[i]);
        EXPECT_EQ(encode(code, info), kept) << r.name;
    }
}

TEST(ConvCode, CodedBitsRoundTrip)
{
    const std::vector<conv_code> codes = {
        conv_code(3000, 7, { 0171, 0133 }),
        conv_code(3000, 9, { 0557, 0663, 0711 }, termination::truncated),
        conv_code(3000, 5, { 025, 027, 033, 037 }, termination::tail_biting),
        conv_code(3000, 7, { 0171, 0133 }, termination::terminated, "3/4"),
        conv_code(3000, 7, { 0171, 0133 }, termination::tail_biting, "7/8"),
        conv_code(3000, 4, { 017, 015, 013 }, termination::terminated, "110011010"),
    };
    for (const auto& code : codes) {
        EXPECT_EQ(code.info_bits_for_coded(0), 0u);
        size_t prev = 0;
        for (size_t info = 1; info <= 3000; info++) {
            const size_t coded = code.coded_bits(info);
            ASSERT_GT(coded, prev) << code.describe();
            ASSERT_EQ(code.info_bits_for_coded(coded), info) << code.describe();
            for (size_t c = prev + 1; c < coded; c++)
                ASSERT_EQ(code.info_bits_for_coded(c), 0u) << code.describe() << " " << c;
            prev = coded;
        }
    }
    const conv_code k7(2048);
    EXPECT_EQ(k7.stages(2048), 2054u);
    EXPECT_EQ(k7.coded_bits(), 4108u); // as gr-fec cc_decoder CC_TERMINATED reports
    EXPECT_EQ(conv_code(2048, 7, { 0171, 0133 }, termination::tail_biting).coded_bits(),
              4096u);
}

TEST(ConvCode, DefaultScheduleFollowsTheBrief)
{
    auto sched = [](int k, const char* punct) {
        std::vector<int> polys{ (1 << (k - 1)) | 1, (1 << k) - 1 };
        return default_viterbi_schedule(
            conv_code(64, k, polys, termination::terminated, punct));
    };
    EXPECT_EQ(sched(7, "").region_bits, 512);
    EXPECT_EQ(sched(7, "").overlap, 64);     // 60 -> 64
    EXPECT_EQ(sched(7, "3/4").overlap, 120); // 120
    EXPECT_EQ(sched(3, "").overlap, 24);     // 20 -> 24
    EXPECT_EQ(sched(9, "7/8").overlap, 160);
}

TEST(Common, QuantizeLlrsRoundsSaturatesAndZeroesNan)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> in = { 0.0f,  0.0625f, -0.0625f, 0.06f, 1.3f,
                                    -1.3f, 100.0f,  -20.3f,   nan,   inf,
                                    -inf,  15.875f, -15.875f, 15.9f };
    const std::vector<int8_t> want = { 0,    1, -1,  0,    10,  -10,  127,
                                       -127, 0, 127, -127, 127, -127, 127 };
    std::vector<int8_t> out(in.size());
    quantize_llrs(in.data(), out.data(), in.size(), 8.0f);
    EXPECT_EQ(out, want);

    // Many values (exercises the vector loop and its remainder) against std::round.
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-40.0f, 40.0f);
    std::vector<float> x(1027);
    for (auto& v : x)
        v = u(rng);
    x[5] = 2.5f / 3.0f; // exactly .5 after scaling by 3
    std::vector<int8_t> q(x.size());
    quantize_llrs(x.data(), q.data(), x.size(), 3.0f);
    for (size_t i = 0; i < x.size(); i++) {
        const float r = std::round(x[i] * 3.0f);
        EXPECT_EQ(q[i], static_cast<int8_t>(std::max(-127.0f, std::min(127.0f, r))))
            << x[i];
    }
}

TEST(Common, UnpackBitsMsbFirst)
{
    const uint8_t packed[] = { 0xA5, 0x80 };
    std::vector<uint8_t> bits(9);
    unpack_bits(packed, bits.data(), bits.size());
    EXPECT_EQ(bits, (std::vector<uint8_t>{ 1, 0, 1, 0, 0, 1, 0, 1, 1 }));
}

TEST(Common, ResolveBackend)
{
    EXPECT_EQ(resolve_backend("cpu").kind, backend_kind::cpu);
    EXPECT_EQ(describe_backend(resolve_backend("cpu")), "cpu");
    const backend_spec a = resolve_backend("auto");
    EXPECT_TRUE(a.was_auto);
    EXPECT_EQ(a.kind, cuda_device_count() > 0 ? backend_kind::cuda : backend_kind::cpu);
    for (const char* bad : { "gpu", "", "CUDA", "cuda:", "cuda:x", "cuda:-1", "cpu0" })
        expect_error([&] { resolve_backend(bad); },
                     { "\"auto\"", "\"cpu\"", "\"cuda:N\"" });
    expect_error([] { resolve_backend("cuda:99"); }, { "cuda:99" });
    if (cuda_device_count() == 0) {
        expect_error([] { resolve_backend("cuda"); }, { "no CUDA device", "\"cpu\"" });
        expect_error([] { resolve_backend("cuda:0"); }, { "no CUDA device" });
    } else {
        EXPECT_EQ(resolve_backend("cuda:0").kind, backend_kind::cuda);
        EXPECT_EQ(describe_backend(resolve_backend("cuda:0")).rfind("cuda:0 (", 0), 0u);
    }
}
