/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU layered min-sum LDPC decoder: noiseless frames, int8 vs float, early termination,
// BER over AWGN against the target, option validation.
#include <gpufec/engine.h>
#include <gpufec/ldpc_decoding.h>

#include "test_helpers.h"
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace gpufec;
using gpufec::test::bit_errors;
using gpufec::test::decode_all;
using gpufec::test::expect_error;
using gpufec::test::ldpc_opts;
using gpufec::test::noiseless;
using gpufec::test::trial;

namespace {

trial make_trial(const nr_ldpc_code& code, int frames, double ebn0_db, uint64_t seed)
{
    return gpufec::test::make_trial(code, code.e(), frames, ebn0_db, seed);
}

} // namespace

TEST(LdpcCpu, NoiselessFramesDecodeInOneIteration)
{
    struct cfg {
        int bg, z, k, e;
    };
    // Full length, fillers, repetition (e > N) and shortened (parity not all sent).
    const cfg cfgs[] = { { 1, 384, 0, 0 },    { 1, 384, 8000, 3 * 8000 },
                         { 1, 16, 300, 400 }, { 1, 104, 2000, 6000 },
                         { 2, 52, 0, 0 },     { 2, 52, 400, 2000 },
                         { 2, 10, 50, 120 },  { 2, 384, 3840, 7000 } };
    for (const auto& c : cfgs) {
        const nr_ldpc_code code(c.bg, c.z, c.k, c.e);
        const trial t = make_trial(code, 3, noiseless, 11 + c.z);
        for (auto a : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 })
            for (auto alg : { ldpc_algorithm::normalized, ldpc_algorithm::offset }) {
                auto dec = make_ldpc_decoder_cpu(code, ldpc_opts(a, alg));
                const auto d = decode_all(*dec, t.llrs, code.k());
                SCOPED_TRACE("bg " + std::to_string(c.bg) + " z " + std::to_string(c.z) +
                             " k " + std::to_string(code.k()) + " e " +
                             std::to_string(code.e()) + " " + dec->name());
                EXPECT_EQ(bit_errors(t, d), 0u);
                for (const auto& s : d.status) {
                    EXPECT_TRUE(s.ok);
                    EXPECT_EQ(s.iterations, 1);
                }
            }
    }
}

TEST(LdpcCpu, Int8AndFloatAgreeAtHighSnr)
{
    const nr_ldpc_code code(2, 52, 0, 1040); // rate 1/2
    const trial t = make_trial(code, 40, 3.5, 5);
    auto d8 = decode_all(
        *make_ldpc_decoder_cpu(code, ldpc_opts(ldpc_arithmetic::int8)), t.llrs, code.k());
    auto df =
        decode_all(*make_ldpc_decoder_cpu(code, ldpc_opts(ldpc_arithmetic::float32)),
                   t.llrs,
                   code.k());
    EXPECT_EQ(bit_errors(t, d8), 0u);
    EXPECT_EQ(bit_errors(t, df), 0u);
    for (size_t f = 0; f < t.info.size(); f++) {
        EXPECT_EQ(d8.bits[f], df.bits[f]);
        EXPECT_TRUE(d8.status[f].ok);
        EXPECT_TRUE(df.status[f].ok);
    }
}

TEST(LdpcCpu, EarlyTerminationStopsSooner)
{
    const nr_ldpc_code code(1, 96, 0, 3 * 22 * 96);
    const trial t = make_trial(code, 20, 2.5, 9);
    auto with = decode_all(
        *make_ldpc_decoder_cpu(code, ldpc_opts(ldpc_arithmetic::int8)), t.llrs, code.k());
    auto without = decode_all(
        *make_ldpc_decoder_cpu(
            code, ldpc_opts(ldpc_arithmetic::int8, ldpc_algorithm::normalized, false)),
        t.llrs,
        code.k());
    int total = 0;
    for (size_t f = 0; f < t.info.size(); f++) {
        EXPECT_TRUE(with.status[f].ok);
        EXPECT_LT(with.status[f].iterations, 10);
        EXPECT_GE(with.status[f].iterations, 1);
        total += with.status[f].iterations;
        EXPECT_EQ(without.status[f].iterations, 10);
        EXPECT_TRUE(without.status[f].ok);
    }
    EXPECT_EQ(bit_errors(t, with), 0u);
    EXPECT_EQ(bit_errors(t, without), 0u);
    std::printf("early termination at 2.5 dB: %.2f iterations on average\n",
                static_cast<double>(total) / t.info.size());
}

// Issue 3 target: BG1 Z = 384, rate 1/3 (e = 3 * 8448), 10 iterations: BER <= 1e-4 at
// Eb/N0 = 1.5 dB. 150 frames = 1,267,200 bits per arithmetic; the 1e-4 budget is 126
// errors, less than one failed frame (a failure leaves thousands), so this asserts FER
// well below 1%. Measured: 0 errors (int8 and float); the waterfall sits near 1.0 dB
// (int8: FER 9/100 at 1.0 dB, 0/100 at 1.2 dB), so 1.5 dB has ~0.3 dB margin.
TEST(LdpcCpu, Bg1Rate13BerAt1p5dB)
{
    const nr_ldpc_code code(1, 384, 0, 3 * 8448);
    const int frames = 150;
    const trial t = make_trial(code, frames, 1.5, 2026);
    for (auto a : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 }) {
        auto dec = make_ldpc_decoder_cpu(code, ldpc_opts(a));
        const auto d = decode_all(*dec, t.llrs, code.k());
        const size_t errors = bit_errors(t, d);
        const double bits = static_cast<double>(frames) * code.k();
        int failed = 0;
        for (const auto& s : d.status)
            failed += !s.ok;
        std::printf("%s: %zu bit errors in %.0f bits (BER %.2e), %d frames failed\n",
                    dec->name().c_str(),
                    errors,
                    bits,
                    errors / bits,
                    failed);
        EXPECT_LE(errors / bits, 1e-4) << dec->name();
    }
}

// BG2 Z = 52, k = 520, rate 1/5 (e = 2600), 10 iterations at Eb/N0 = 1.75 dB: BER <=
// 1e-4 over 600 frames (312,000 bits), normalised and offset (beta = 4). Measured with
// int8: FER 45/400 at 1.0 dB, 1/400 at 1.5 dB, 0/400 at 2.0 dB.
TEST(LdpcCpu, Bg2Rate15Ber)
{
    const nr_ldpc_code code(2, 52, 0, 2600);
    const int frames = 600;
    const trial t = make_trial(code, frames, 1.75, 77);
    for (auto alg : { ldpc_algorithm::normalized, ldpc_algorithm::offset }) {
        auto dec = make_ldpc_decoder_cpu(code, ldpc_opts(ldpc_arithmetic::int8, alg));
        const auto d = decode_all(*dec, t.llrs, code.k());
        const size_t errors = bit_errors(t, d);
        const double bits = static_cast<double>(frames) * code.k();
        std::printf("%s: %zu bit errors in %.0f bits (BER %.2e)\n",
                    dec->name().c_str(),
                    errors,
                    bits,
                    errors / bits);
        EXPECT_LE(errors / bits, 1e-4) << dec->name();
    }
}

// The int8 path is deterministic: the same bits and status whether frames run on one
// thread or two, and bytes around a frame's packed output are left alone.
TEST(LdpcCpu, DeterministicAcrossThreadsAndLayout)
{
    const nr_ldpc_code code(1, 64, 1300, 4000); // fillers, k not a multiple of 8
    const trial t = make_trial(code, 12, 1.0, 3);
    auto dec = make_ldpc_decoder_cpu(code, {});
    const auto two = decode_all(*dec, t.llrs, code.k());
    for (size_t f = 0; f < t.llrs.size(); f++) {
        const auto one = decode_all(*dec, { t.llrs[f] }, code.k());
        EXPECT_EQ(one.bits[0], two.bits[f]);
        EXPECT_EQ(one.status[0].iterations, two.status[f].iterations);
        EXPECT_EQ(one.status[0].ok, two.status[f].ok);
    }
    EXPECT_EQ(gpufec::test::decode_guarded(*dec, t.llrs[0], code.k()), two.bits[0]);
}

TEST(LdpcCpu, Int4InputIsInt8TimesTheStep)
{
    // A 4-bit value v decodes as the int8 LLR 8 v: same bits, soft output and status.
    const nr_ldpc_code code(1, 52, 0, 0);
    const trial t = make_trial(code, 6, 1.5, 9);
    std::vector<std::vector<llr8_t>> as_int8;
    std::vector<uint8_t> packed;
    std::vector<frame_extent> ext;
    for (const auto& f : t.llrs) {
        std::vector<llr8_t> v(f.size());
        for (size_t i = 0; i < f.size(); i++)
            v[i] = static_cast<llr8_t>(std::max(-7, std::min(7, f[i] / 8)));
        std::vector<uint8_t> nibbles((v.size() + 1) / 2);
        pack_llrs_int4(v.data(), nibbles.data(), v.size());
        ext.push_back({ 2 * packed.size(),
                        static_cast<uint32_t>(v.size()),
                        ext.size() * aligned_packed_bytes(code.k()),
                        static_cast<uint32_t>(code.k()) });
        packed.insert(packed.end(), nibbles.begin(), nibbles.end());
        for (auto& x : v)
            x = static_cast<llr8_t>(int4_llr_step * x);
        as_int8.push_back(v);
    }
    ldpc_decoder_options o;
    auto int8_dec = make_ldpc_decoder_cpu(code, o);
    o.int4_input = true;
    auto int4_dec = make_ldpc_decoder_cpu(code, o);
    EXPECT_EQ(int4_dec->input(), input_format::llr_int4);
    const auto want = decode_all(*int8_dec, as_int8, code.k());
    std::vector<uint8_t> out(ext.size() * aligned_packed_bytes(code.k()));
    std::vector<float> soft(8 * out.size());
    std::vector<frame_status> status(ext.size());
    frame_batch b;
    b.in_int4 = packed.data();
    b.out = out.data();
    b.soft_out = soft.data();
    b.frames = ext.data();
    b.num_frames = ext.size();
    b.status = status.data();
    decode_on_this_thread(*int4_dec, b);
    for (size_t f = 0; f < ext.size(); f++) {
        std::vector<uint8_t> bits(code.k());
        unpack_bits(out.data() + ext[f].out_offset, bits.data(), code.k());
        EXPECT_EQ(bits, want.bits[f]) << "frame " << f;
        for (int i = 0; i < code.k(); i++)
            ASSERT_EQ(soft[8 * ext[f].out_offset + i], want.soft[f][i]) << f << " " << i;
        EXPECT_EQ(status[f].iterations, want.status[f].iterations);
        EXPECT_EQ(status[f].ok, want.status[f].ok);
    }
}

// The BER cost of 4-bit input (docs/ldpc-gpu.md): BG1 Z=384 r=1/3, the same noisy
// float LLRs quantized to int8 at scale 8 or to 4 bits at scale 1 (one step per natural
// LLR unit, decoded as 8 v) or at scale 2, 20 iterations with early termination.
// ./test_ldpc_cpu --gtest_also_run_disabled_tests --gtest_filter='*Int4Ber*'
TEST(LdpcCpu, DISABLED_Int4BerCost)
{
    const nr_ldpc_code code(1, 384, 0, 0);
    const int frames = 1000;
    std::printf("Eb/N0  input      frame errors  bit errors  (of %d frames, %d bits)\n",
                frames,
                frames * code.k());
    for (double ebn0 : { 0.6, 0.7, 0.8, 0.9, 1.0, 1.1 }) {
        std::mt19937 bit_rng(7);
        std::mt19937_64 noise_rng(11);
        const double rate = double(code.k()) / code.e();
        const double sigma2 = 1.0 / (2.0 * rate * std::pow(10.0, ebn0 / 10.0));
        std::normal_distribution<double> noise(0.0, std::sqrt(sigma2));
        trial t8, t4, t4s2; // int8 at scale 8, 4-bit at scale 1 and at scale 2
        for (int f = 0; f < frames; f++) {
            std::vector<uint8_t> info(code.k()), coded(code.e());
            for (auto& b : info)
                b = bit_rng() & 1;
            code.encode(info.data(), coded.data());
            std::vector<float> llr(code.e());
            for (int i = 0; i < code.e(); i++)
                llr[i] =
                    float(2.0 * ((coded[i] ? -1.0 : 1.0) + noise(noise_rng)) / sigma2);
            std::vector<llr8_t> q8(code.e()), q4(code.e()), q4s2(code.e());
            quantize_llrs(llr.data(), q8.data(), q8.size(), 8.0f);
            std::vector<uint8_t> nibbles((code.e() + 1) / 2);
            quantize_llrs_int4(llr.data(), nibbles.data(), llr.size(), 1.0f);
            for (int i = 0; i < code.e(); i++)
                q4[i] =
                    static_cast<llr8_t>(int4_llr_step * llr_int4_at(nibbles.data(), i));
            quantize_llrs_int4(llr.data(), nibbles.data(), llr.size(), 2.0f);
            for (int i = 0; i < code.e(); i++)
                q4s2[i] =
                    static_cast<llr8_t>(int4_llr_step * llr_int4_at(nibbles.data(), i));
            for (trial* t : { &t8, &t4, &t4s2 })
                t->info.push_back(info);
            t8.llrs.push_back(q8);
            t4.llrs.push_back(q4);
            t4s2.llrs.push_back(q4s2);
        }
        ldpc_decoder_options o;
        o.iterations = 20;
        auto dec = make_ldpc_decoder_cpu(code, o);
        for (const trial* t : { &t8, &t4, &t4s2 }) {
            const auto d = decode_all(*dec, t->llrs, code.k());
            std::printf("%5.2f  %-9s  %12zu  %10zu\n",
                        ebn0,
                        t == &t8   ? "int8 x8"
                        : t == &t4 ? "int4 x1"
                                   : "int4 x2",
                        gpufec::test::frame_errors(*t, d),
                        bit_errors(*t, d));
        }
    }
}

TEST(LdpcCpu, Int4InputThroughTheEngine)
{
    // The engine packs int8 submissions (within -7..7) to 4 bits for an int4 stage: the
    // decoded frames equal the int8 decoder's on 8 v.
    const nr_ldpc_code code(2, 16, 100, 300);
    const trial t = make_trial(code, 10, 1.5, 21);
    std::vector<std::vector<llr8_t>> small, times8;
    for (const auto& f : t.llrs) {
        std::vector<llr8_t> v(f.size()), w(f.size());
        for (size_t i = 0; i < f.size(); i++) {
            v[i] = static_cast<llr8_t>(std::max(-7, std::min(7, f[i] / 8)));
            w[i] = static_cast<llr8_t>(int4_llr_step * v[i]);
        }
        small.push_back(v);
        times8.push_back(w);
    }
    ldpc_decoder_options o;
    const auto want = decode_all(*make_ldpc_decoder_cpu(code, o), times8, code.k());
    o.int4_input = true;
    engine_config cfg;
    cfg.soft_output = true;
    cfg.max_batch_frames = 4;
    batch_engine eng(std::shared_ptr<batch_decoder>(make_ldpc_decoder_cpu(code, o)), cfg);
    size_t f = 0;
    auto check = [&](const completed_frame& c) {
        ASSERT_LT(f, want.bits.size());
        std::vector<uint8_t> bits(c.nbits);
        unpack_bits(c.packed, bits.data(), c.nbits);
        EXPECT_EQ(bits, want.bits[f]) << "frame " << f;
        EXPECT_EQ(std::vector<float>(c.soft, c.soft + c.nbits), want.soft[f]) << f;
        EXPECT_EQ(c.status.iterations, want.status[f].iterations) << f;
        EXPECT_EQ(c.status.ok, want.status[f].ok) << f;
        f++;
    };
    completed_frame c;
    for (size_t i = 0; i < small.size(); i++) {
        while (!eng.submit(small[i].data(), small[i].size(), i))
            if (eng.pop_wait(c))
                check(c);
        while (eng.try_pop(c))
            check(c);
    }
    eng.flush();
    while (eng.pop_wait(c))
        check(c);
    EXPECT_EQ(f, small.size());
}

TEST(LdpcCpu, BadOptionsThrow)
{
    const nr_ldpc_code code(2, 52);
    auto with = [&](auto change) {
        ldpc_decoder_options o;
        change(o);
        return [&code, o] { make_ldpc_decoder_cpu(code, o); };
    };
    expect_error(with([](ldpc_decoder_options& o) { o.iterations = 0; }), { "1..100" });
    expect_error(with([](ldpc_decoder_options& o) { o.alpha = 1.5f; }),
                 { "0 < alpha <= 1" });
    expect_error(with([](ldpc_decoder_options& o) {
                     o.algorithm = ldpc_algorithm::offset;
                     o.beta = -1.0f;
                 }),
                 { "beta" });
    expect_error(with([](ldpc_decoder_options& o) {
                     o.algorithm = static_cast<ldpc_algorithm>(7);
                 }),
                 { "normalized", "offset" });
    expect_error(with([](ldpc_decoder_options& o) {
                     o.arithmetic = static_cast<ldpc_arithmetic>(7);
                 }),
                 { "int8", "float" });
    expect_error([] { parse_ldpc_algorithm("layered"); }, { "normalized", "offset" });
    expect_error([] { parse_ldpc_arithmetic("int16"); }, { "int8", "float" });
    EXPECT_EQ(parse_ldpc_algorithm("offset"), ldpc_algorithm::offset);
    EXPECT_EQ(parse_ldpc_arithmetic("float"), ldpc_arithmetic::float32);
    auto dec = make_ldpc_decoder_cpu(code, {});
    expect_error([&] { dec->output_bits_for_input(code.e() + 1); },
                 { std::to_string(code.e()).c_str() });
    EXPECT_EQ(dec->output_bits_for_input(code.e()), static_cast<size_t>(code.k()));
}

// Single-thread throughput, 10 iterations, with and without early termination: BG1 Z =
// 384 rate 1/3 at 1.5 dB and BG2 Z = 52 rate 1/2 at 3 dB.
// ./test_ldpc_cpu --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'
TEST(LdpcCpu, DISABLED_Throughput)
{
    struct bench {
        nr_ldpc_code code;
        double ebn0;
        int frames;
    };
    const bench benches[] = { { nr_ldpc_code(1, 384, 0, 3 * 8448), 1.5, 60 },
                              { nr_ldpc_code(2, 52, 0, 1040), 3.0, 2000 } };
    for (const auto& b : benches) {
        const auto& code = b.code;
        const trial t = make_trial(code, b.frames, b.ebn0, 1);
        for (bool et : { false, true })
            for (auto a : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 }) {
                auto dec = make_ldpc_decoder_cpu(
                    code, ldpc_opts(a, ldpc_algorithm::normalized, et));
                const auto t0 = std::chrono::steady_clock::now();
                const auto d = decode_all(*dec, t.llrs, code.k(), false);
                const double s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                        .count();
                double its = 0;
                for (const auto& st : d.status)
                    its += st.iterations;
                std::printf("%s ET %s at %.1f dB: %.2f info Mb/s per thread, %.2f "
                            "iterations, BER %.2e\n",
                            dec->name().c_str(),
                            et ? "on" : "off",
                            b.ebn0,
                            b.frames * code.k() / s / 1e6,
                            its / b.frames,
                            bit_errors(t, d) /
                                (static_cast<double>(b.frames) * code.k()));
            }
    }
}
