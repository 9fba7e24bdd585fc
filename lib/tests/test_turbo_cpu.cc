/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU LTE turbo decoder: noiseless frames for every option, a plain textbook max-log-MAP
// (windows and stakes included) as a bit-exact reference, soft output, early
// termination and CRC status, determinism, BER over AWGN against the issue's target,
// option validation.
#include <gpufec/turbo_decoding.h>

#include "test_helpers.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;
using gpufec::test::random_bits;

namespace {

using test::bit_errors;
using test::decoded_batch;
using test::trial;

decoded_batch decode_all(batch_decoder& dec,
                         const lte_turbo_code& code,
                         const std::vector<std::vector<llr8_t>>& frames,
                         bool threads = true)
{
    return test::decode_all(dec, frames, code.info_bits(), threads);
}

// Info bits from mt19937(seed), noise from mt19937_64(seed * 7919 + 1).
trial make_trial(const lte_turbo_code& code, int frames, double ebn0_db, uint64_t seed)
{
    return test::make_trial(frames,
                            code.info_bits(),
                            code.coded_bits(),
                            code.rate(),
                            ebn0_db,
                            test::trial_rngs(seed),
                            [&](const uint8_t* info, uint8_t* coded) {
                                lte_turbo_encode(code, info, coded);
                            });
}

turbo_decoder_options opts(turbo_arithmetic a,
                           turbo_algorithm alg = turbo_algorithm::scaled_max_log_map,
                           int sub_blocks = 1,
                           int iterations = 6,
                           bool et = true)
{
    turbo_decoder_options o;
    o.arithmetic = a;
    o.algorithm = alg;
    o.sub_blocks = sub_blocks;
    o.iterations = iterations;
    o.early_termination = et;
    return o;
}

using test::noiseless;
const turbo_arithmetic all_arithmetics[] = { turbo_arithmetic::int8,
                                             turbo_arithmetic::int16,
                                             turbo_arithmetic::float32 };
const turbo_algorithm all_algorithms[] = { turbo_algorithm::max_log_map,
                                           turbo_algorithm::scaled_max_log_map };

/*
 * Textbook max-log-MAP turbo decoder in int64, written from the definition rather than
 * from the decoder: transitions from lte_turbo_code::rsc_step, full alpha/beta arrays
 * over K + 3 steps without normalisation, sequential windows that read last iteration's
 * boundary metrics. Extrinsic passing: scaled as (Le * scale_q + 64) >> 7 when
 * scale_q != 128, saturated at +/-ext_max when ext_max > 0. Returns the APP LLRs of the
 * K bits after `iterations` full iterations.
 */
std::vector<int64_t> reference_app(const lte_turbo_code& code,
                                   const std::vector<llr8_t>& llr,
                                   int iterations,
                                   int scale_q,
                                   int ext_max,
                                   int windows)
{
    const int K = code.k(), S = code.stream_bits();
    const int64_t ninf = -(int64_t(1) << 40);
    int next[8][2], par[8][2];
    for (int s = 0; s < 8; s++)
        for (int u = 0; u < 2; u++) {
            uint32_t st = s;
            par[s][u] = lte_turbo_code::rsc_step(st, u);
            next[s][u] = st;
        }
    const llr8_t* d0 = llr.data();
    const llr8_t* d1 = d0 + S;
    const llr8_t* d2 = d1 + S;
    const auto& pi = code.interleaver();
    std::vector<int> inverse(K);
    for (int i = 0; i < K; i++)
        inverse[pi[i]] = i;
    // Per decoder: systematic and parity of the K + 3 steps (tail of
    // TS 36.212 5.1.3.2.2).
    std::vector<int64_t> sys[2], prt[2];
    for (int d = 0; d < 2; d++) {
        sys[d].resize(K + 3);
        prt[d].resize(K + 3);
    }
    for (int i = 0; i < K; i++) {
        sys[0][i] = d0[i];
        prt[0][i] = d1[i];
        sys[1][i] = d0[pi[i]];
        prt[1][i] = d2[i];
    }
    const int tx[2][3] = { { d0[K], d2[K], d1[K + 1] },
                           { d0[K + 2], d2[K + 2], d1[K + 3] } };
    const int tz[2][3] = { { d1[K], d0[K + 1], d2[K + 1] },
                           { d1[K + 2], d0[K + 3], d2[K + 3] } };
    for (int d = 0; d < 2; d++)
        for (int t = 0; t < 3; t++) {
            sys[d][K + t] = tx[d][t];
            prt[d][K + t] = tz[d][t];
        }
    typedef std::vector<std::array<int64_t, 8>> metrics;
    std::vector<int> bound(windows + 1);
    for (int w = 0; w <= windows; w++)
        bound[w] = static_cast<int>(int64_t(w) * K / windows);
    metrics stake_a[2], stake_b[2];
    for (int d = 0; d < 2; d++) {
        stake_a[d].assign(windows + 1, std::array<int64_t, 8>{});
        stake_b[d].assign(windows + 1, std::array<int64_t, 8>{});
    }
    std::vector<int64_t> la[2] = { std::vector<int64_t>(K, 0),
                                   std::vector<int64_t>(K, 0) };
    std::vector<int64_t> app(K);
    for (int it = 0; it < iterations; it++) {
        for (int d = 0; d < 2; d++) {
            auto gamma = [&](int k, int s, int u) {
                const int64_t a = k < K ? la[d][k] : 0;
                return (u == 0 ? sys[d][k] + a : 0) + (par[s][u] == 0 ? prt[d][k] : 0);
            };
            metrics alpha(K + 4), beta(K + 4);
            beta[K + 3].fill(ninf);
            beta[K + 3][0] = 0;
            for (int k = K + 2; k >= K; k--)
                for (int s = 0; s < 8; s++)
                    beta[k][s] = std::max(beta[k + 1][next[s][0]] + gamma(k, s, 0),
                                          beta[k + 1][next[s][1]] + gamma(k, s, 1));
            metrics new_a = stake_a[d], new_b = stake_b[d];
            std::vector<int64_t> le(K);
            for (int w = 0; w < windows; w++) {
                const int b = bound[w], e = bound[w + 1];
                if (w == 0) {
                    alpha[0].fill(ninf);
                    alpha[0][0] = 0;
                } else {
                    alpha[b] = stake_a[d][w];
                }
                for (int k = b; k < e; k++) {
                    alpha[k + 1].fill(ninf);
                    for (int s = 0; s < 8; s++)
                        for (int u = 0; u < 2; u++) {
                            int64_t& m = alpha[k + 1][next[s][u]];
                            m = std::max(m, alpha[k][s] + gamma(k, s, u));
                        }
                }
                new_a[w + 1] = alpha[e];
                if (w + 1 < windows)
                    beta[e] = stake_b[d][w + 1];
                for (int k = e - 1; k >= b; k--)
                    for (int s = 0; s < 8; s++)
                        beta[k][s] = std::max(beta[k + 1][next[s][0]] + gamma(k, s, 0),
                                              beta[k + 1][next[s][1]] + gamma(k, s, 1));
                new_b[w] = beta[b];
                for (int k = b; k < e; k++) {
                    int64_t best[2] = { ninf, ninf };
                    for (int s = 0; s < 8; s++)
                        for (int u = 0; u < 2; u++)
                            best[u] =
                                std::max(best[u],
                                         alpha[k][s] + (par[s][u] == 0 ? prt[d][k] : 0) +
                                             beta[k + 1][next[s][u]]);
                    le[k] = best[0] - best[1];
                }
            }
            stake_a[d] = new_a;
            stake_b[d] = new_b;
            for (int k = 0; k < K; k++) {
                int64_t v = scale_q == 128 ? le[k] : (le[k] * scale_q + 64) >> 7;
                if (ext_max > 0)
                    v = std::max<int64_t>(-ext_max, std::min<int64_t>(ext_max, v));
                // Decoder 2's step k is code bit pi[k].
                if (d == 0)
                    la[1][inverse[k]] = v;
                else
                    la[0][pi[k]] = v;
            }
            if (d == 1)
                for (int k = 0; k < K; k++)
                    app[pi[k]] = sys[1][k] + la[1][k] + le[k];
        }
    }
    return app;
}

} // namespace

TEST(TurboCpu, NoiselessFramesEveryOption)
{
    for (int k : { 40, 1024, 6144 })
        for (bool crc : { false, true }) {
            const lte_turbo_code code(k, crc);
            const trial t = make_trial(code, 2, noiseless, 100 + k + crc);
            for (auto a : all_arithmetics)
                for (auto alg : all_algorithms)
                    for (int p : { 1, 5, std::min(64, k / 8) }) {
                        auto dec = make_turbo_decoder_cpu(code, opts(a, alg, p));
                        SCOPED_TRACE(dec->name());
                        ASSERT_TRUE(dec->has_soft_output());
                        EXPECT_EQ(dec->default_input_items(), code.coded_bits());
                        EXPECT_EQ(dec->default_output_bits(),
                                  static_cast<size_t>(code.info_bits()));
                        const auto d = decode_all(*dec, code, t.llrs);
                        EXPECT_EQ(bit_errors(t, d), 0u);
                        for (size_t f = 0; f < t.llrs.size(); f++) {
                            EXPECT_TRUE(d.status[f].ok);
                            // CRC frames stop after one iteration; without a CRC all run.
                            EXPECT_EQ(d.status[f].iterations, crc ? 1 : 6);
                            for (size_t i = 0; i < t.info[f].size(); i++) {
                                const float s = d.soft[f][i];
                                ASSERT_TRUE(t.info[f][i] ? s < 0.0f : s > 0.0f)
                                    << "frame " << f << " bit " << i << " soft " << s;
                            }
                        }
                    }
        }
}

// Bit-exact against the textbook reference: APP LLRs of every bit after a fixed number
// of iterations, on noisy frames near the waterfall (where extrinsics stay moderate and
// every branch of the max matters). Float is exact too for plain max-log-MAP (integer
// sums far below 2^24).
TEST(TurboCpu, MatchesTextbookReference)
{
    struct cfg {
        int k;
        int windows;
        double ebn0;
    };
    const cfg cfgs[] = { { 40, 1, 1.0 },   { 40, 5, 2.0 },   { 1024, 1, 0.8 },
                         { 1024, 3, 0.8 }, { 6144, 1, 0.6 }, { 6144, 48, 0.8 } };
    for (const auto& c : cfgs) {
        const lte_turbo_code code(c.k);
        const trial t = make_trial(code, 2, c.ebn0, 31 + c.k + c.windows);
        for (auto a : all_arithmetics)
            for (auto alg : all_algorithms) {
                if (a == turbo_arithmetic::float32 && alg != turbo_algorithm::max_log_map)
                    continue; // float scaling rounds: compared by BER instead
                const int iterations = 4;
                auto dec =
                    make_turbo_decoder_cpu(code, opts(a, alg, c.windows, iterations));
                SCOPED_TRACE(dec->name());
                const int scale_q = alg == turbo_algorithm::max_log_map ? 128 : 90;
                const int ext_max = a == turbo_arithmetic::int8    ? 127
                                    : a == turbo_arithmetic::int16 ? 2047
                                                                   : 0;
                const auto d = decode_all(*dec, code, t.llrs);
                for (size_t f = 0; f < t.llrs.size(); f++) {
                    const auto app = reference_app(
                        code, t.llrs[f], iterations, scale_q, ext_max, c.windows);
                    size_t mismatches = 0;
                    for (int i = 0; i < c.k; i++) {
                        mismatches += d.soft[f][i] != static_cast<float>(app[i]);
                        mismatches += d.bits[f][i] != (app[i] < 0);
                    }
                    EXPECT_EQ(mismatches, 0u) << "frame " << f;
                }
            }
    }
}

TEST(TurboCpu, EarlyTerminationAndCrcStatus)
{
    const lte_turbo_code crc_code(6144, true);
    const trial clean = make_trial(crc_code, 2, noiseless, 5);
    for (auto a : all_arithmetics) {
        auto without = make_turbo_decoder_cpu(
            crc_code, opts(a, turbo_algorithm::scaled_max_log_map, 1, 6, false));
        const auto d = decode_all(*without, crc_code, clean.llrs);
        EXPECT_EQ(bit_errors(clean, d), 0u);
        for (const auto& s : d.status) {
            EXPECT_EQ(s.iterations, 6);
            EXPECT_TRUE(s.ok);
        }
    }

    // Noise only: the CRC never holds, so every iteration runs and ok is false.
    std::mt19937_64 rng(99);
    std::normal_distribution<double> n(0.0, 20.0);
    std::vector<std::vector<llr8_t>> noise(3, std::vector<llr8_t>(crc_code.coded_bits()));
    for (auto& f : noise)
        for (auto& x : f)
            x = static_cast<llr8_t>(
                std::max(-127.0, std::min(127.0, std::round(n(rng)))));
    for (auto a : all_arithmetics) {
        auto dec = make_turbo_decoder_cpu(crc_code, opts(a));
        const auto d = decode_all(*dec, crc_code, noise);
        for (const auto& s : d.status) {
            EXPECT_FALSE(s.ok);
            EXPECT_EQ(s.iterations, 6);
        }
    }
    // Without a CRC there is nothing to check: all iterations, ok.
    const lte_turbo_code plain(6144, false);
    auto dec = make_turbo_decoder_cpu(plain, {});
    const auto d = decode_all(*dec, plain, noise);
    for (const auto& s : d.status) {
        EXPECT_TRUE(s.ok);
        EXPECT_EQ(s.iterations, 6);
    }

    // Near the waterfall early termination saves iterations and still decodes.
    const trial t = make_trial(crc_code, 30, 1.2, 8);
    auto et = make_turbo_decoder_cpu(crc_code, {});
    const auto de = decode_all(*et, crc_code, t.llrs);
    int total = 0, failed = 0;
    for (const auto& s : de.status) {
        total += s.iterations;
        failed += !s.ok;
    }
    EXPECT_EQ(bit_errors(t, de), 0u);
    EXPECT_EQ(failed, 0);
    EXPECT_LT(total, 6 * 30);
    std::printf("early termination at 1.2 dB: %.2f iterations on average\n",
                static_cast<double>(total) / t.info.size());
}

// Results depend only on the frame: two threads or one, alone or in a batch, and bytes
// around a frame's packed output are left alone.
TEST(TurboCpu, DeterministicAcrossThreadsAndLayout)
{
    const lte_turbo_code code(1056, true); // 1032 payload bits: not a multiple of 32
    const trial t = make_trial(code, 10, 0.5, 3);
    for (auto a : all_arithmetics) {
        auto dec =
            make_turbo_decoder_cpu(code, opts(a, turbo_algorithm::scaled_max_log_map, 4));
        const auto two = decode_all(*dec, code, t.llrs);
        for (size_t f = 0; f < t.llrs.size(); f++) {
            const auto one = decode_all(*dec, code, { t.llrs[f] }, false);
            EXPECT_EQ(one.bits[0], two.bits[f]);
            EXPECT_EQ(one.soft[0], two.soft[f]);
            EXPECT_EQ(one.status[0].iterations, two.status[f].iterations);
            EXPECT_EQ(one.status[0].ok, two.status[f].ok);
        }
    }
    auto dec = make_turbo_decoder_cpu(code, {});
    const size_t k = code.info_bits();
    std::vector<uint8_t> out(aligned_packed_bytes(k) + 8, 0x5A);
    frame_extent fe{
        0, static_cast<uint32_t>(code.coded_bits()), 4, static_cast<uint32_t>(k)
    };
    frame_status st;
    frame_batch b;
    b.in = t.llrs[0].data();
    b.out = out.data();
    b.frames = &fe;
    b.num_frames = 1;
    b.status = &st;
    decode_on_this_thread(*dec, b);
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(out[i], 0x5A);
    for (size_t i = 4 + packed_bytes(k); i < out.size(); i++)
        EXPECT_EQ(out[i], 0x5A);
    std::vector<uint8_t> bits(k);
    unpack_bits(out.data() + 4, bits.data(), k);
    EXPECT_EQ(bits, decode_all(*dec, code, { t.llrs[0] }).bits[0]);
}

// Every kernel variant the CPU has gives the same results (GPUFEC_CPU_SIMD caps the
// level; float included: same operations in the same order, no contraction).
TEST(TurboCpu, SimdVariantsAgree)
{
    const lte_turbo_code code(2048, true);
    const trial t = make_trial(code, 6, 0.6, 12);
    for (auto a : all_arithmetics)
        for (int p : { 1, 7 }) {
            const auto o = opts(a, turbo_algorithm::scaled_max_log_map, p);
            ASSERT_EQ(setenv("GPUFEC_CPU_SIMD", "portable", 1), 0);
            auto portable = make_turbo_decoder_cpu(code, o);
            ASSERT_EQ(unsetenv("GPUFEC_CPU_SIMD"), 0);
            auto best = make_turbo_decoder_cpu(code, o);
            const auto dp = decode_all(*portable, code, t.llrs);
            const auto db = decode_all(*best, code, t.llrs);
            for (size_t f = 0; f < t.llrs.size(); f++) {
                EXPECT_EQ(dp.bits[f], db.bits[f]) << best->name();
                EXPECT_EQ(dp.soft[f], db.soft[f]) << best->name();
                EXPECT_EQ(dp.status[f].iterations, db.status[f].iterations);
                EXPECT_EQ(dp.status[f].ok, db.status[f].ok);
            }
        }
    ASSERT_EQ(setenv("GPUFEC_CPU_SIMD", "sse9", 1), 0);
    expect_error([&] { make_turbo_decoder_cpu(code, {}); }, { "portable", "avx2" });
    ASSERT_EQ(unsetenv("GPUFEC_CPU_SIMD"), 0);
}

namespace {

struct ber_result {
    size_t errors = 0;
    double bits = 0;
    int failed_frames = 0;
};

ber_result run_ber(batch_decoder& dec,
                   const lte_turbo_code& code,
                   int frames,
                   double ebn0,
                   uint64_t seed)
{
    ber_result r;
    const int chunk = 64;
    for (int done = 0; done < frames; done += chunk) {
        const trial t =
            make_trial(code, std::min(chunk, frames - done), ebn0, seed + done);
        const auto d = decode_all(dec, code, t.llrs);
        for (size_t f = 0; f < t.info.size(); f++) {
            size_t e = 0;
            for (size_t i = 0; i < t.info[f].size(); i++)
                e += t.info[f][i] != d.bits[f][i];
            r.errors += e;
            r.failed_frames += e != 0;
        }
        r.bits += static_cast<double>(t.info.size()) * code.info_bits();
    }
    std::printf(
        "%s at %.2f dB: %zu bit errors in %.0f bits (BER %.2e), %d frames in error\n",
        dec.name().c_str(),
        ebn0,
        r.errors,
        r.bits,
        r.errors / r.bits,
        r.failed_frames);
    return r;
}

} // namespace

// Issue 3 target: K = 6144, 6 iterations, max-log-MAP: BER <= 1e-4 at Eb/N0 = 1.0 dB and
// no errors at 2.0 dB over >= 1e6 bits. 170 frames = 1,044,480 bits per point.
TEST(TurboCpu, K6144BerIssueTarget)
{
    const lte_turbo_code code(6144);
    const int frames = 170;
    for (auto alg : all_algorithms) {
        auto dec = make_turbo_decoder_cpu(code, opts(turbo_arithmetic::int16, alg));
        const auto at1 = run_ber(*dec, code, frames, 1.0, 1000);
        EXPECT_LE(at1.errors / at1.bits, 1e-4) << dec->name();
        const auto at2 = run_ber(*dec, code, frames, 2.0, 2000);
        EXPECT_EQ(at2.errors, 0u) << dec->name();
    }
}

// The other arithmetics and the windowed decoder at the issue's 1.0 dB point.
TEST(TurboCpu, K6144BerArithmeticsAndWindows)
{
    const lte_turbo_code code(6144);
    const int frames = 170;
    for (auto a : { turbo_arithmetic::int8, turbo_arithmetic::float32 }) {
        auto dec = make_turbo_decoder_cpu(code, opts(a, turbo_algorithm::max_log_map));
        const auto r = run_ber(*dec, code, frames, 1.0, 1000);
        EXPECT_LE(r.errors / r.bits, 1e-4) << dec->name();
    }
    auto dec = make_turbo_decoder_cpu(
        code, opts(turbo_arithmetic::int16, turbo_algorithm::scaled_max_log_map, 64));
    const auto r = run_ber(*dec, code, frames, 1.0, 1000);
    EXPECT_LE(r.errors / r.bits, 1e-4) << dec->name();
}

// The waterfall, for the record (all threads of the machine; frames per point from
// GPUFEC_TURBO_SWEEP_FRAMES, default 500):
// ./test_turbo_cpu --gtest_also_run_disabled_tests --gtest_filter=*BerSweep*
TEST(TurboCpu, DISABLED_BerSweep)
{
    const lte_turbo_code code(6144);
    const char* env = std::getenv("GPUFEC_TURBO_SWEEP_FRAMES");
    const int frames = env ? std::atoi(env) : 500;
    struct cfg {
        turbo_arithmetic a;
        turbo_algorithm alg;
        int p;
    };
    const cfg cfgs[] = {
        { turbo_arithmetic::int16, turbo_algorithm::max_log_map, 1 },
        { turbo_arithmetic::int16, turbo_algorithm::scaled_max_log_map, 1 },
        { turbo_arithmetic::int8, turbo_algorithm::scaled_max_log_map, 1 },
        { turbo_arithmetic::float32, turbo_algorithm::scaled_max_log_map, 1 },
        { turbo_arithmetic::int16, turbo_algorithm::scaled_max_log_map, 64 },
    };
    for (const auto& c : cfgs) {
        auto dec = make_turbo_decoder_cpu(code, opts(c.a, c.alg, c.p));
        for (double ebn0 = 0.3; ebn0 < 1.05; ebn0 += 0.1)
            run_ber(*dec, code, frames, ebn0, 5000);
    }
}

// The paper's trade-off for our decoder (issue 12): sub-decoders (windows with stakes
// from the previous iteration) and iterations against BER, K = 6144, int16 scaled
// max-log-MAP, the same frames for every configuration (frames per point from
// GPUFEC_TURBO_SWEEP_FRAMES, default 1000; docs/turbo.md has the table):
// ./test_turbo_cpu --gtest_also_run_disabled_tests --gtest_filter=*SubBlockTradeOff*
TEST(TurboCpu, DISABLED_SubBlockTradeOff)
{
    const lte_turbo_code code(6144);
    const char* env = std::getenv("GPUFEC_TURBO_SWEEP_FRAMES");
    const int frames = env ? std::atoi(env) : 1000;
    for (int p : { 1, 32, 64, 96, 128, 192, 384 })
        for (int iterations : { 6, 8 }) {
            auto dec = make_turbo_decoder_cpu(code,
                                              opts(turbo_arithmetic::int16,
                                                   turbo_algorithm::scaled_max_log_map,
                                                   p,
                                                   iterations));
            for (double ebn0 : { 0.6, 0.7, 0.8, 0.9, 1.0 }) {
                std::printf("sub_blocks %d, %d iterations: ", p, iterations);
                run_ber(
                    *dec, code, frames, ebn0, 7000 + static_cast<uint64_t>(ebn0 * 10));
            }
        }
}

TEST(TurboCpu, BadOptionsThrow)
{
    const lte_turbo_code code(40);
    auto with = [&](auto change) {
        turbo_decoder_options o;
        change(o);
        return [&code, o] { make_turbo_decoder_cpu(code, o); };
    };
    expect_error(with([](turbo_decoder_options& o) { o.iterations = 0; }), { "1..32" });
    expect_error(with([](turbo_decoder_options& o) { o.iterations = 33; }), { "1..32" });
    expect_error(with([](turbo_decoder_options& o) { o.extrinsic_scale = 1.5f; }),
                 { "0 < extrinsic_scale <= 1" });
    expect_error(with([](turbo_decoder_options& o) { o.extrinsic_scale = 0.0f; }),
                 { "0 < extrinsic_scale <= 1" });
    expect_error(with([](turbo_decoder_options& o) { o.sub_blocks = 0; }),
                 { "1..512", "K / sub_blocks >= 8" });
    expect_error(with([](turbo_decoder_options& o) { o.sub_blocks = 6; }),
                 { "1..512", "K / sub_blocks >= 8", "at most 5" });
    expect_error(with([](turbo_decoder_options& o) {
                     o.algorithm = static_cast<turbo_algorithm>(7);
                 }),
                 { "max-log-map", "scaled-max-log-map" });
    expect_error(with([](turbo_decoder_options& o) {
                     o.arithmetic = static_cast<turbo_arithmetic>(7);
                 }),
                 { "int8", "int16", "float" });
    expect_error(
        with([](turbo_decoder_options& o) { o.schedule = turbo_schedule::loose; }),
        { "GPU only", "synchronised" });
    EXPECT_EQ(parse_turbo_schedule("loose"), turbo_schedule::loose);
    EXPECT_EQ(parse_turbo_schedule("synchronised"), turbo_schedule::synchronised);
    expect_error([] { parse_turbo_schedule("lockstep"); }, { "synchronised, loose" });
    // The scale only matters to the scaled algorithm.
    turbo_decoder_options plain;
    plain.algorithm = turbo_algorithm::max_log_map;
    plain.extrinsic_scale = 2.0f;
    EXPECT_NO_THROW(make_turbo_decoder_cpu(code, plain));
    const lte_turbo_code big(6144);
    turbo_decoder_options many;
    many.sub_blocks = 512;
    EXPECT_NO_THROW(make_turbo_decoder_cpu(big, many));
    many.sub_blocks = 513;
    expect_error([&] { make_turbo_decoder_cpu(big, many); }, { "1..512", "at most 512" });

    expect_error([] { parse_turbo_algorithm("log-map"); },
                 { "max-log-map", "scaled-max-log-map" });
    expect_error([] { parse_turbo_arithmetic("int32"); }, { "int8", "int16", "float" });
    EXPECT_EQ(parse_turbo_algorithm("max-log-map"), turbo_algorithm::max_log_map);
    EXPECT_EQ(parse_turbo_algorithm("scaled-max-log-map"),
              turbo_algorithm::scaled_max_log_map);
    EXPECT_EQ(parse_turbo_arithmetic("int8"), turbo_arithmetic::int8);
    EXPECT_EQ(parse_turbo_arithmetic("int16"), turbo_arithmetic::int16);
    EXPECT_EQ(parse_turbo_arithmetic("float"), turbo_arithmetic::float32);
    auto dec = make_turbo_decoder_cpu(code, {});
    expect_error([&] { dec->output_bits_for_input(code.coded_bits() + 1); },
                 { std::to_string(code.coded_bits()).c_str() });
    EXPECT_EQ(dec->output_bits_for_input(code.coded_bits()), 40u);
}

// Single-thread throughput, K = 6144, 6 iterations, 1.5 dB, no early termination (no
// CRC), decode() calls only:
// ./test_turbo_cpu --gtest_also_run_disabled_tests --gtest_filter=*Throughput*
TEST(TurboCpu, DISABLED_Throughput)
{
    const lte_turbo_code code(6144);
    const int frames = 32;
    const trial t = make_trial(code, frames, 1.5, 42);
    const size_t e = code.coded_bits(), k = code.info_bits();
    std::vector<llr8_t> in;
    std::vector<frame_extent> ext;
    for (int f = 0; f < frames; f++) {
        ext.push_back({ in.size(),
                        static_cast<uint32_t>(e),
                        f * aligned_packed_bytes(k),
                        static_cast<uint32_t>(k) });
        in.insert(in.end(), t.llrs[f].begin(), t.llrs[f].end());
    }
    std::vector<uint8_t> out(frames * aligned_packed_bytes(k));
    std::vector<frame_status> status(frames);
    frame_batch b;
    b.in = in.data();
    b.out = out.data();
    b.frames = ext.data();
    b.num_frames = frames;
    b.status = status.data();
    for (auto alg : all_algorithms)
        for (auto a : all_arithmetics)
            for (int p : { 1, 64 }) {
                auto dec = make_turbo_decoder_cpu(code, opts(a, alg, p));
                standalone_ctx run(*dec); // one thread
                exec_ctx& ctx = run.ctx();
                dec->decode(b, ctx); // warm-up
                double best = 1e9;
                for (int r = 0; r < 5; r++) {
                    const auto t0 = std::chrono::steady_clock::now();
                    dec->decode(b, ctx);
                    best = std::min(best,
                                    std::chrono::duration<double>(
                                        std::chrono::steady_clock::now() - t0)
                                        .count());
                }
                std::vector<uint8_t> bits(k);
                size_t errors = 0;
                for (int f = 0; f < frames; f++) {
                    unpack_bits(out.data() + ext[f].out_offset, bits.data(), k);
                    for (size_t i = 0; i < k; i++)
                        errors += bits[i] != t.info[f][i];
                }
                std::printf("%s: %.2f Mb/s per thread (best of 5, %zu errors)\n",
                            dec->name().c_str(),
                            frames * k / best / 1e6,
                            errors);
            }
}

TEST(TurboCpu, RateMatchedFramesDecodeAndRedundancyVersionsCombine)
{
    // encode -> rate match (E, rv) -> BPSK over AWGN -> de-rate-match (LLRs of
    // repeated bits added, unsent ones 0) -> the CPU decoder. Noiseless: every E and
    // rv decodes exactly (E down to rate ~0.8 with rv 0). Noisy at rate ~1/2: adding
    // the LLRs of a second transmission with rv 2 to those of rv 0 makes fewer errors.
    const int K = 1056;
    const lte_turbo_code code(K, true);
    auto dec = make_turbo_decoder_cpu(code, opts(turbo_arithmetic::int16));
    std::mt19937 rng(17);
    const int S = static_cast<int>(code.coded_bits());
    auto transmit = [&](const std::vector<uint8_t>& stream,
                        const lte_turbo_rate_matching& rm,
                        double ebn0_db,
                        std::vector<float>& llrs) {
        std::vector<uint8_t> e(rm.e());
        rm.rate_match(stream.data(), e.data());
        const double rate = double(code.info_bits()) / rm.e();
        const double sigma = std::sqrt(1.0 / (2.0 * rate * std::pow(10.0, ebn0_db / 10)));
        std::normal_distribution<double> noise(0.0, std::isinf(ebn0_db) ? 0.0 : sigma);
        std::vector<float> rx(rm.e());
        for (int j = 0; j < rm.e(); j++) {
            const double y = (e[j] ? -1.0 : 1.0) + noise(rng);
            rx[j] = static_cast<float>(std::isinf(ebn0_db) ? 4.0 * y
                                                           : 2.0 * y / (sigma * sigma));
        }
        rm.derate_match(rx.data(), llrs.data());
    };
    auto to_int8 = [](const std::vector<float>& llrs) {
        std::vector<llr8_t> q(llrs.size());
        for (size_t i = 0; i < llrs.size(); i++)
            q[i] =
                static_cast<llr8_t>(std::clamp(std::lround(llrs[i] * 4.0f), -127L, 127L));
        return q;
    };
    for (int E : { 1400, 2200, 3 * K + 12, 5000 })
        for (int rv = 0; rv < 4; rv++) {
            if (E < 2000 && rv != 0)
                continue; // high rates need the systematic bits rv 0 starts with
            const lte_turbo_rate_matching rm(K, E, rv);
            std::vector<std::vector<llr8_t>> frames;
            std::vector<std::vector<uint8_t>> payloads;
            for (int f = 0; f < 4; f++) {
                payloads.push_back(random_bits(rng, code.info_bits()));
                std::vector<uint8_t> stream(S);
                lte_turbo_encode(code, payloads.back().data(), stream.data());
                std::vector<float> llrs(S, 0.0f);
                transmit(stream, rm, noiseless, llrs);
                frames.push_back(to_int8(llrs));
            }
            const auto d = decode_all(*dec, code, frames);
            for (int f = 0; f < 4; f++) {
                EXPECT_EQ(d.bits[f], payloads[f]) << "E " << E << " rv " << rv;
                EXPECT_TRUE(d.status[f].ok) << "E " << E << " rv " << rv;
            }
        }
    // Two transmissions of E = 2 K at 0.5 dB (per transmission's rate), rv 0 then rv 2.
    const lte_turbo_rate_matching rv0(K, 2 * K, 0), rv2(K, 2 * K, 2);
    std::vector<std::vector<llr8_t>> one, two;
    std::vector<std::vector<uint8_t>> payloads;
    for (int f = 0; f < 60; f++) {
        payloads.push_back(random_bits(rng, code.info_bits()));
        std::vector<uint8_t> stream(S);
        lte_turbo_encode(code, payloads.back().data(), stream.data());
        std::vector<float> llrs(S, 0.0f);
        transmit(stream, rv0, 0.5, llrs);
        one.push_back(to_int8(llrs));
        transmit(stream, rv2, 0.5, llrs);
        two.push_back(to_int8(llrs));
    }
    size_t errors_one = 0, errors_two = 0;
    const auto d1 = decode_all(*dec, code, one), d2 = decode_all(*dec, code, two);
    for (int f = 0; f < 60; f++)
        for (int i = 0; i < code.info_bits(); i++) {
            errors_one += d1.bits[f][i] != payloads[f][i];
            errors_two += d2.bits[f][i] != payloads[f][i];
        }
    std::printf("rv 0 alone: %zu bit errors, rv 0 + rv 2: %zu\n", errors_one, errors_two);
    EXPECT_GT(errors_one, 0u); // the first transmission alone is in the waterfall
    EXPECT_LT(errors_two, errors_one / 4);
}

TEST(TurboCpu, TransportBlocksDecodeBlockByBlock)
{
    // A transport block encoded as TS 36.212 5.1 says (CRC24A, segmentation with
    // filler bits, CRC24B per block, rate matching, concatenation) decodes block by
    // block with each block's code, and assemble() returns the payload with CRC24A
    // holding; an all-erased block fails it.
    std::mt19937 rng(23);
    struct case_t {
        int tbs, g, rv;
    };
    for (const case_t& c : { case_t{ 1000, 3000, 0 },
                             case_t{ 1001, 3200, 1 }, // one block, 31 filler bits
                             case_t{ 6121, 14000, 0 },
                             case_t{ 6121, 20000, 2 },
                             case_t{ 20000, 45000, 0 } }) {
        const lte_transport_block tb(c.tbs, c.g, c.rv);
        SCOPED_TRACE("tbs " + std::to_string(c.tbs) + " g " + std::to_string(c.g));
        const auto payload = random_bits(rng, c.tbs);
        std::vector<uint8_t> coded(c.g);
        tb.encode(payload.data(), coded.data());
        std::vector<std::vector<uint8_t>> blocks;
        for (int r = 0; r < tb.blocks(); r++) {
            const lte_turbo_code& code = tb.block(r);
            std::vector<llr8_t> llrs(code.coded_bits());
            for (size_t j = 0; j < llrs.size(); j++)
                llrs[j] = coded[tb.offset(r) + j] ? -40 : 40;
            auto dec = make_turbo_decoder_cpu(code, opts(turbo_arithmetic::int16));
            const auto d = decode_all(*dec, code, { llrs });
            if (tb.blocks() > 1)
                EXPECT_TRUE(d.status[0].ok) << "block " << r;
            blocks.push_back(d.bits[0]);
        }
        std::vector<uint8_t> got(c.tbs);
        EXPECT_TRUE(tb.assemble(blocks, got.data()));
        EXPECT_EQ(got, payload);
        blocks.back().assign(blocks.back().size(), 1);
        EXPECT_FALSE(tb.assemble(blocks, got.data()));
    }
}
