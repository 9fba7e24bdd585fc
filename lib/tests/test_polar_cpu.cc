/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "test_helpers.h"
#include <gpufec/polar_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

using gpufec::nr_polar_code;
using gpufec::polar_decoder_options;

namespace {

gpufec::exec_ctx two_thread_ctx()
{
    gpufec::exec_ctx ctx;
    ctx.parallel_for = [](size_t n, const std::function<void(size_t)>& body) {
        std::atomic<size_t> next{ 0 };
        auto worker = [&] {
            for (size_t i; (i = next++) < n;)
                body(i);
        };
        std::thread t(worker);
        worker();
        t.join();
    };
    return ctx;
}

struct decoded {
    std::vector<uint8_t> bits; // frames * k, one bit per byte
    std::vector<gpufec::frame_status> status;
};

decoded decode_all(gpufec::batch_decoder& dec,
                   const nr_polar_code& code,
                   const std::vector<gpufec::llr8_t>& llrs,
                   size_t frames)
{
    const size_t k = code.k(), e = code.e();
    const size_t stride = (gpufec::packed_bytes(k) + 3) / 4 * 4;
    std::vector<gpufec::frame_extent> ext(frames);
    for (size_t f = 0; f < frames; f++)
        ext[f] = {
            f * e, static_cast<uint32_t>(e), f * stride, static_cast<uint32_t>(k)
        };
    std::vector<uint8_t> packed(frames * stride, 0xAA);
    decoded d;
    d.status.resize(frames, gpufec::frame_status{ 0, false });
    gpufec::frame_batch b;
    b.in = llrs.data();
    b.out = packed.data();
    b.frames = ext.data();
    b.num_frames = frames;
    b.status = d.status.data();
    auto ctx = two_thread_ctx();
    dec.decode(b, ctx);
    d.bits.resize(frames * k);
    for (size_t f = 0; f < frames; f++)
        gpufec::unpack_bits(packed.data() + f * stride, d.bits.data() + f * k, k);
    return d;
}

// Encodes `frames` random payloads, BPSK over AWGN at ebn0_db (payload rate k/e; no noise
// when ebn0_db is infinite), int8 LLRs with the default scale 8.
void make_frames(const nr_polar_code& code,
                 size_t frames,
                 double ebn0_db,
                 uint32_t seed,
                 std::vector<uint8_t>& payload,
                 std::vector<gpufec::llr8_t>& llrs)
{
    std::mt19937 rng(seed);
    std::normal_distribution<double> gauss;
    const size_t k = code.k(), e = code.e();
    const double rate = double(k) / double(e);
    const double sigma = std::isinf(ebn0_db)
                             ? 0
                             : std::sqrt(1.0 / (2 * rate * std::pow(10, ebn0_db / 10)));
    const double llr_gain = std::isinf(ebn0_db) ? 4.0 : 2.0 / (sigma * sigma);
    payload = gpufec::test::random_bits(rng, frames * k);
    std::vector<float> soft(frames * e);
    std::vector<uint8_t> coded(e);
    for (size_t f = 0; f < frames; f++) {
        code.encode(payload.data() + f * k, coded.data());
        for (size_t j = 0; j < e; j++) {
            const double y = (coded[j] ? -1.0 : 1.0) + sigma * gauss(rng);
            soft[f * e + j] = static_cast<float>(llr_gain * y);
        }
    }
    llrs.resize(soft.size());
    gpufec::quantize_llrs(soft.data(), llrs.data(), soft.size(), 8.0f);
}

size_t frame_errors(const decoded& d, const std::vector<uint8_t>& payload, size_t k)
{
    size_t errors = 0;
    for (size_t f = 0; f * k < payload.size(); f++)
        errors += !std::equal(payload.begin() + f * k,
                              payload.begin() + (f + 1) * k,
                              d.bits.begin() + f * k);
    return errors;
}

// Textbook recursive SC (min-sum), independent of the decoder's iterative schedule:
// x = u G_N = [(u1 ^ u2) G, u2 G]. Returns the re-encoded bits of the subtree; decided
// u bits go to `u`.
std::vector<uint8_t>
reference_sc(const std::vector<float>& y, const uint8_t* frozen, uint8_t* u)
{
    const size_t n = y.size();
    if (n == 1) {
        u[0] = frozen[0] ? 0 : (y[0] < 0 ? 1 : 0);
        return { u[0] };
    }
    const size_t h = n / 2;
    std::vector<float> left(h), right(h);
    for (size_t j = 0; j < h; j++) {
        const float a = y[j], b = y[j + h];
        const float m = std::min(std::fabs(a), std::fabs(b));
        left[j] = ((a < 0) != (b < 0)) ? -m : m;
    }
    const auto x1 = reference_sc(left, frozen, u);
    for (size_t j = 0; j < h; j++)
        right[j] = x1[j] ? y[j + h] - y[j] : y[j + h] + y[j];
    const auto x2 = reference_sc(right, frozen + h, u + h);
    std::vector<uint8_t> x(n);
    for (size_t j = 0; j < h; j++) {
        x[j] = x1[j] ^ x2[j];
        x[j + h] = x2[j];
    }
    return x;
}

// Payload decisions of reference_sc for one frame of e int8 LLRs.
std::vector<uint8_t> reference_sc_payload(const nr_polar_code& code,
                                          const gpufec::llr8_t* in)
{
    const int N = code.N();
    std::vector<float> y(N, 0.f);
    std::vector<uint8_t> sent(N, 0);
    const auto& map = code.output_to_codeword();
    for (size_t j = 0; j < map.size(); j++) {
        y[map[j]] += in[j];
        sent[map[j]] = 1;
    }
    if (code.rate_matching() == gpufec::polar_rate_matching::shortening)
        for (int j = 0; j < N; j++)
            if (!sent[j])
                y[j] = 1e5f; // known zero
    std::vector<uint8_t> u(N);
    reference_sc(y, code.frozen().data(), u.data());
    std::vector<uint8_t> a(code.k());
    for (int j = 0; j < code.k(); j++)
        a[j] = u[code.info_positions()[j]];
    return a;
}

} // namespace

TEST(PolarDecoderCpu, NoiselessFramesDecodeExactly)
{
    // The five vector configurations of test_nr_polar.cc (shortening, repetition,
    // shortening, puncturing, puncturing), plus the BLER point (E = N).
    const std::pair<int, int> configs[] = { { 30, 45 },  { 28, 70 },    { 32, 70 },
                                            { 29, 127 }, { 400, 1023 }, { 512, 1024 } };
    for (auto [a, e] : configs) {
        for (const char* alg : { "sc", "scl" }) {
            nr_polar_code code(a, e);
            auto dec =
                gpufec::make_polar_decoder_cpu(code, polar_decoder_options{ alg, 8 });
            std::vector<uint8_t> payload;
            std::vector<gpufec::llr8_t> llrs;
            make_frames(code, 20, INFINITY, 7, payload, llrs);
            const auto d = decode_all(*dec, code, llrs, 20);
            EXPECT_EQ(frame_errors(d, payload, a), 0u) << alg << " A=" << a << " E=" << e;
            for (const auto& s : d.status) {
                EXPECT_TRUE(s.ok);
                EXPECT_EQ(s.iterations, 1);
            }
            EXPECT_EQ(dec->output_bits_for_input(e), size_t(a));
        }
    }
}

TEST(PolarDecoderCpu, NoiselessWithoutChannelInterleaverAndOtherCrcs)
{
    for (const char* crc : { "none", "crc6", "crc24c" }) {
        nr_polar_code code(40, 100, crc, false);
        auto dec =
            gpufec::make_polar_decoder_cpu(code, polar_decoder_options{ "scl", 4 });
        std::vector<uint8_t> payload;
        std::vector<gpufec::llr8_t> llrs;
        make_frames(code, 10, INFINITY, 3, payload, llrs);
        const auto d = decode_all(*dec, code, llrs, 10);
        EXPECT_EQ(frame_errors(d, payload, 40), 0u) << crc;
    }
}

// k = 512, e = 1024, CRC11 (N = 1024, K = 523, rate 1/2), Eb/N0 = 2.0 dB, 2000 frames
// (~1 s on one core).
//
// CA-SCL-8: the requirement BLER <= 1e-2, i.e. at most 20 errors. Published
// CA-SCL-8 curves for N = 1024, R = 1/2 are at a few 1e-3 at 2 dB (this decoder: 14 in
// 5000 frames = 2.8e-3), so the expected count is ~6 and exceeding 20 by chance has
// probability ~1e-6 (Poisson), while a list that does not work (SC-like) gives ~280.
//
// SC: published SC curves for N = 1024, R = 1/2 on BPSK-AWGN (Arikan 2009; Tal & Vardy
// 2015, Fig. 1; Balatsoukas-Stimming et al. 2015) put the BLER at 2 dB near 1e-1, and
// the curve falls about a decade per 0.7 dB there. Min-sum f and 8-bit LLRs cost ~0.1 dB
// and the 5G sequence is not tuned to this SNR, so we accept [0.05, 0.30] (about +/-0.3
// dB around the literature point), and require strictly more errors than SCL-8 on the
// same frames. Measured: 0.14 (708 in 5000).
TEST(PolarDecoderCpu, BlerAt2dB)
{
    const size_t frames = 2000;
    nr_polar_code code(512, 1024, "crc11");
    std::vector<uint8_t> payload;
    std::vector<gpufec::llr8_t> llrs;
    make_frames(code, frames, 2.0, 2026, payload, llrs);

    auto scl = gpufec::make_polar_decoder_cpu(code, polar_decoder_options{ "scl", 8 });
    auto sc = gpufec::make_polar_decoder_cpu(code, polar_decoder_options{ "sc", 8 });
    const auto d_scl = decode_all(*scl, code, llrs, frames);
    const auto d_sc = decode_all(*sc, code, llrs, frames);
    const size_t e_scl = frame_errors(d_scl, payload, 512);
    const size_t e_sc = frame_errors(d_sc, payload, 512);
    const double bler_scl = double(e_scl) / frames, bler_sc = double(e_sc) / frames;
    std::printf("BLER at 2.0 dB over %zu frames: CA-SCL-8 %.4f (%zu), SC %.4f (%zu)\n",
                frames,
                bler_scl,
                e_scl,
                bler_sc,
                e_sc);
    EXPECT_LE(bler_scl, 1e-2);
    EXPECT_GT(e_sc, e_scl);
    EXPECT_GE(bler_sc, 0.05);
    EXPECT_LE(bler_sc, 0.30);

    // A frame whose CRC passed is (almost surely) right; a failed CRC is reported.
    for (size_t f = 0; f < frames; f++) {
        const bool right = std::equal(payload.begin() + f * 512,
                                      payload.begin() + (f + 1) * 512,
                                      d_scl.bits.begin() + f * 512);
        if (!d_scl.status[f].ok)
            EXPECT_FALSE(right) << f;
    }
}

TEST(PolarDecoderCpu, ScMatchesRecursiveReference)
{
    // Noisy frames (wrong decisions included) for every rate-matching mode.
    const std::pair<int, int> configs[] = { { 30, 45 },  { 28, 70 },    { 32, 70 },
                                            { 29, 127 }, { 400, 1023 }, { 512, 1024 } };
    for (auto [a, e] : configs) {
        nr_polar_code code(a, e);
        std::vector<uint8_t> payload;
        std::vector<gpufec::llr8_t> llrs;
        make_frames(code, 30, 0.5, 5, payload, llrs);
        auto sc = gpufec::make_polar_decoder_cpu(code, polar_decoder_options{ "sc", 8 });
        const auto d = decode_all(*sc, code, llrs, 30);
        for (size_t f = 0; f < 30; f++) {
            const auto ref = reference_sc_payload(code, llrs.data() + f * e);
            EXPECT_TRUE(std::equal(ref.begin(), ref.end(), d.bits.begin() + f * a))
                << "A=" << a << " E=" << e << " frame " << f;
        }
    }
}

TEST(PolarDecoderCpu, ListOfOneEqualsSc)
{
    // Same decisions on every frame, including wrong ones (noisy at 1 dB).
    for (auto [a, e] : { std::pair<int, int>{ 512, 1024 }, { 32, 70 }, { 28, 70 } }) {
        nr_polar_code code(a, e);
        std::vector<uint8_t> payload;
        std::vector<gpufec::llr8_t> llrs;
        make_frames(code, 60, 1.0, 11, payload, llrs);
        auto l1 = gpufec::make_polar_decoder_cpu(code, polar_decoder_options{ "scl", 1 });
        auto sc = gpufec::make_polar_decoder_cpu(code, polar_decoder_options{ "sc", 8 });
        const auto d1 = decode_all(*l1, code, llrs, 60);
        const auto d2 = decode_all(*sc, code, llrs, 60);
        EXPECT_EQ(d1.bits, d2.bits) << "A=" << a << " E=" << e;
        for (size_t f = 0; f < 60; f++)
            EXPECT_EQ(d1.status[f].ok, d2.status[f].ok);
        if (a == 512)
            EXPECT_GT(frame_errors(d2, payload, a), 0u); // the comparison saw errors
    }
}

TEST(PolarDecoderCpu, BadOptionsAndLengthsThrow)
{
    using gpufec::test::expect_error;
    nr_polar_code code(64, 128);
    expect_error(
        [&] {
            gpufec::make_polar_decoder_cpu(code, { "bp", 8 });
        },
        { "\"sc\"", "\"scl\"" });
    expect_error(
        [&] {
            gpufec::make_polar_decoder_cpu(code, { "scl", 0 });
        },
        { "1..32" });
    expect_error(
        [&] {
            gpufec::make_polar_decoder_cpu(code, { "scl", 33 });
        },
        { "1..32" });
    for (int l : { 1, 2, 32 })
        EXPECT_NO_THROW(gpufec::make_polar_decoder_cpu(code, { "scl", l }));
    auto dec = gpufec::make_polar_decoder_cpu(code, {});
    EXPECT_EQ(dec->default_input_items(), 128u);
    EXPECT_EQ(dec->default_output_bits(), 64u);
    expect_error([&] { dec->output_bits_for_input(127); }, { "128" });
}
