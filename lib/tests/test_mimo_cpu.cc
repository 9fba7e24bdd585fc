/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU MIMO detectors (issue 10, item 2): sorted QR against its definition, exhaustive
// max-log ML against a naive search over ||y - H s||^2 written here, LMMSE against the
// closed form of a unitary channel, and bad input.
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/mimo_detection.h>

#include "cpu/kbest_float.h"
#include "cpu/mtt_float.h"
#include "test_helpers.h"
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;

namespace {

struct channel_use {
    std::vector<cfloat> h, y;
    std::vector<int> s; // point index per transmit antenna
    std::vector<uint8_t> bits;
};

//! Rayleigh H (unit variance entries), random symbols, y = H s + w.
channel_use
draw(std::mt19937& rng, int nr, int nt, const constellation& c, float noise_var)
{
    std::normal_distribution<float> g(0.0f, 1.0f);
    channel_use u;
    u.h.resize(nr * nt);
    for (auto& x : u.h)
        x = cfloat(g(rng), g(rng)) * float(std::sqrt(0.5));
    u.s.resize(nt);
    for (int k = 0; k < nt; k++) {
        u.s[k] = static_cast<int>(rng() % c.size());
        for (int b = 0; b < c.bits_per_symbol(); b++)
            u.bits.push_back((u.s[k] >> (c.bits_per_symbol() - 1 - b)) & 1);
    }
    u.y.resize(nr);
    const float w = std::sqrt(noise_var / 2);
    for (int r = 0; r < nr; r++) {
        cfloat acc = cfloat(g(rng), g(rng)) * w;
        for (int k = 0; k < nt; k++)
            acc += u.h[r * nt + k] * c.points()[u.s[k]];
        u.y[r] = acc;
    }
    return u;
}

//! Max-log LLRs by trying every s on ||y - H s||^2 directly (no QR).
std::vector<float>
naive_ml(const channel_use& u, int nr, int nt, const constellation& c, float nv)
{
    const int bits = c.bits_per_symbol(), q = c.size();
    std::vector<double> b0(nt * bits, 1e300), b1(nt * bits, 1e300);
    std::vector<int> idx(nt, 0);
    for (;;) {
        double d = 0;
        for (int r = 0; r < nr; r++) {
            std::complex<double> e = u.y[r];
            for (int k = 0; k < nt; k++)
                e -= std::complex<double>(u.h[r * nt + k]) *
                     std::complex<double>(c.points()[idx[k]]);
            d += std::norm(e);
        }
        for (int k = 0; k < nt; k++)
            for (int b = 0; b < bits; b++) {
                double& best =
                    (idx[k] >> (bits - 1 - b)) & 1 ? b1[k * bits + b] : b0[k * bits + b];
                best = std::min(best, d);
            }
        int k = 0;
        while (k < nt && ++idx[k] == q)
            idx[k++] = 0;
        if (k == nt)
            break;
    }
    std::vector<float> l(nt * bits);
    for (size_t i = 0; i < l.size(); i++)
        l[i] = float((b1[i] - b0[i]) / nv);
    return l;
}

std::vector<modulation> all_test_modulations()
{
    return { modulation::bpsk,
             modulation::qpsk,
             modulation::qam16,
             modulation::qam64,
             modulation::qam256 };
}

} // namespace

TEST(MimoCpu, SortedQrIsADecompositionOfTheSortedChannel)
{
    std::mt19937 rng(1);
    const constellation c(modulation::qam16);
    for (auto dims :
         { std::make_pair(4, 4), std::make_pair(4, 2), std::make_pair(8, 8) }) {
        const int nr = dims.first, nt = dims.second;
        for (int trial = 0; trial < 20; trial++) {
            // Noiseless: z = R s in the sorted order.
            const channel_use u = draw(rng, nr, nt, c, 1e-30f);
            const sorted_qr qr = sorted_qr_decompose(u.h.data(), nr, nt, u.y.data());
            std::vector<int> seen(nt, 0);
            for (int i = 0; i < nt; i++)
                seen.at(qr.order[i])++;
            for (int i = 0; i < nt; i++) {
                EXPECT_EQ(seen[i], 1);
                EXPECT_NEAR(qr.r[i * nt + i].imag(), 0.0, 1e-12);
                EXPECT_GE(qr.r[i * nt + i].real(), 0.0);
                for (int j = 0; j < i; j++)
                    EXPECT_EQ(qr.r[i * nt + j], std::complex<double>(0.0));
                std::complex<double> rs = 0;
                for (int j = i; j < nt; j++)
                    rs += qr.r[i * nt + j] *
                          std::complex<double>(c.points()[u.s[qr.order[j]]]);
                EXPECT_NEAR(std::abs(qr.z[i] - rs), 0.0, 1e-5);
            }
            // The first column is the one of least norm.
            double least = 1e300;
            for (int k = 0; k < nt; k++) {
                double n2 = 0;
                for (int r = 0; r < nr; r++)
                    n2 += std::norm(std::complex<double>(u.h[r * nt + k]));
                least = std::min(least, n2);
            }
            EXPECT_NEAR(std::norm(qr.r[0]), least, 1e-6 * least);
        }
    }
}

TEST(MimoCpu, MlEqualsNaiveExhaustiveSearch)
{
    std::mt19937 rng(2);
    struct cfg {
        int nr, nt;
        modulation m;
    };
    for (const cfg& k : { cfg{ 2, 2, modulation::qpsk },
                          cfg{ 2, 2, modulation::qam16 },
                          cfg{ 2, 2, modulation::qam64 },
                          cfg{ 3, 3, modulation::qam16 },
                          cfg{ 4, 4, modulation::qpsk },
                          cfg{ 4, 2, modulation::qam16 },
                          cfg{ 1, 1, modulation::qam256 },
                          cfg{ 2, 2, modulation::bpsk } }) {
        const constellation c(k.m);
        SCOPED_TRACE(std::to_string(k.nr) + "x" + std::to_string(k.nt) + " " +
                     to_string(k.m));
        for (float nv : { 0.05f, 0.5f }) {
            for (int trial = 0; trial < 10; trial++) {
                const channel_use u = draw(rng, k.nr, k.nt, c, nv);
                std::vector<float> l(k.nt * c.bits_per_symbol());
                detect_ml(u.h.data(), u.y.data(), k.nr, k.nt, c, nv, l.data());
                const auto want = naive_ml(u, k.nr, k.nt, c, nv);
                for (size_t i = 0; i < l.size(); i++)
                    ASSERT_NEAR(l[i], want[i], 1e-4f * (1 + std::fabs(want[i]))) << i;
            }
        }
    }
}

TEST(MimoCpu, LmmseOnAUnitaryChannelIsTheMatchedFilterDemapper)
{
    // H = F diag(phase) with F the 4-point DFT over 2: H^H H = I, so the LMMSE output
    // of stream k is (H^H y)_k / (1 + nv) with mu = 1 / (1 + nv): demapping it at
    // (1 - mu) / mu = nv is demapping (H^H y)_k at nv.
    std::mt19937 rng(4);
    const int n = 4;
    const double pi = std::acos(-1.0);
    for (modulation m : { modulation::qpsk, modulation::qam16, modulation::qam64 }) {
        const constellation c(m);
        std::vector<cfloat> h(n * n);
        for (int r = 0; r < n; r++)
            for (int k = 0; k < n; k++)
                h[r * n + k] = std::polar(0.5f, float(-2 * pi * r * k / n + 0.3 * k));
        for (float nv : { 0.1f, 1.0f }) {
            channel_use u = draw(rng, n, n, c, nv);
            u.h = h;
            for (int r = 0; r < n; r++) {
                u.y[r] = 0;
                for (int k = 0; k < n; k++)
                    u.y[r] += h[r * n + k] * c.points()[u.s[k]];
            }
            std::vector<float> l(n * c.bits_per_symbol());
            detect_lmmse(h.data(), u.y.data(), n, n, c, nv, l.data());
            for (int k = 0; k < n; k++) {
                cfloat mf = 0;
                for (int r = 0; r < n; r++)
                    mf += std::conj(h[r * n + k]) * u.y[r];
                std::vector<float> want(c.bits_per_symbol());
                c.demap_maxlog(&mf, 1, nv, want.data());
                for (int b = 0; b < c.bits_per_symbol(); b++)
                    EXPECT_NEAR(l[k * c.bits_per_symbol() + b],
                                want[b],
                                1e-4f * (1 + std::fabs(want[b])));
            }
        }
    }
}

TEST(MimoCpu, HighSnrDecisionsAreTheSentBits)
{
    std::mt19937 rng(6);
    for (modulation m : { modulation::qpsk, modulation::qam16 }) {
        const constellation c(m);
        for (int trial = 0; trial < 50; trial++) {
            channel_use u = draw(rng, 4, 4, c, 1e-4f);
            std::vector<float> ml(4 * c.bits_per_symbol()), lm(ml.size());
            detect_ml(u.h.data(), u.y.data(), 4, 4, c, 1e-4f, ml.data());
            detect_lmmse(u.h.data(), u.y.data(), 4, 4, c, 1e-4f, lm.data());
            for (size_t i = 0; i < ml.size(); i++) {
                EXPECT_EQ(ml[i] < 0, u.bits[i] == 1) << to_string(m) << " " << i;
                EXPECT_EQ(lm[i] < 0, u.bits[i] == 1) << to_string(m) << " " << i;
            }
        }
    }
}

TEST(MimoCpu, BadInputIsRefusedOrDefined)
{
    const constellation c(modulation::qpsk);
    std::vector<cfloat> h(81, cfloat(1, 0)), y(9, cfloat(1, 0));
    std::vector<float> l(64, 7.0f);
    expect_error([&] { detect_ml(h.data(), y.data(), 9, 9, c, 1.0f, l.data()); },
                 { "allowed: 1..8" });
    expect_error([&] { detect_lmmse(h.data(), y.data(), 2, 3, c, 1.0f, l.data()); },
                 { "nr >= nt" });
    for (float nv : { 0.0f, -1.0f, std::nanf("") })
        expect_error([&] { detect_lmmse(h.data(), y.data(), 2, 2, c, nv, l.data()); },
                     { "> 0" });
    expect_error(
        [&] {
            detect_ml(h.data(),
                      y.data(),
                      8,
                      8,
                      constellation(modulation::qam64),
                      1.0f,
                      l.data());
        },
        { "2^20", "lmmse" });
    expect_error([] { parse_mimo_algorithm("sphere"); },
                 { "ml", "lmmse", "kbest", "mtt" });

    // NaN in H: zeros. A zero column (singular H): finite LLRs, and LMMSE knows
    // nothing of that antenna.
    h.assign(4, cfloat(0.7f, 0.1f));
    h[1] = cfloat(std::nanf(""), 0);
    detect_ml(h.data(), y.data(), 2, 2, c, 0.5f, l.data());
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(l[i], 0.0f);
    h = { cfloat(1, 0), cfloat(0, 0), cfloat(0.5f, 0.2f), cfloat(0, 0) };
    detect_ml(h.data(), y.data(), 2, 2, c, 0.5f, l.data());
    for (int i = 0; i < 4; i++)
        EXPECT_TRUE(std::isfinite(l[i]));
    detect_lmmse(h.data(), y.data(), 2, 2, c, 0.5f, l.data());
    for (int i = 0; i < 4; i++)
        EXPECT_TRUE(std::isfinite(l[i]));
    EXPECT_EQ(l[2], 0.0f);
    EXPECT_EQ(l[3], 0.0f);
}

TEST(MimoCpu, KBestWithEveryPathIsMlAndClipsWhatItLacks)
{
    std::mt19937 rng(8);
    for (modulation m : { modulation::qpsk, modulation::qam16 }) {
        const constellation c(m);
        const int q = c.size(), bits = c.bits_per_symbol();
        for (int trial = 0; trial < 10; trial++) {
            const channel_use u = draw(rng, 2, 2, c, 0.3f);
            std::vector<float> kb(2 * bits), ml(2 * bits);
            detect_kbest(u.h.data(), u.y.data(), 2, 2, c, 0.3f, q * q, kb.data());
            detect_ml(u.h.data(), u.y.data(), 2, 2, c, 0.3f, ml.data());
            for (int i = 0; i < 2 * bits; i++)
                ASSERT_NEAR(kb[i], ml[i], 1e-4f * (1 + std::fabs(ml[i]))) << to_string(m);
            // One path: every bit lacks its other value, so every LLR is +/-clip, the
            // path's bits (the first stage's nearest point, at high SNR the sent one).
            detect_kbest(u.h.data(), u.y.data(), 2, 2, c, 0.3f, 1, kb.data(), 5.0f);
            for (float l : kb)
                EXPECT_EQ(std::fabs(l), 5.0f);
        }
        // 4x4 with K = Q at high SNR: the sent bits.
        for (int trial = 0; trial < 30; trial++) {
            const channel_use u = draw(rng, 4, 4, c, 1e-4f);
            std::vector<float> kb(4 * bits);
            detect_kbest(u.h.data(), u.y.data(), 4, 4, c, 1e-4f, q, kb.data());
            for (int i = 0; i < 4 * bits; i++)
                EXPECT_EQ(kb[i] < 0, u.bits[i] == 1) << to_string(m) << " " << i;
        }
    }
    const constellation c(modulation::qpsk);
    std::vector<cfloat> h(4, cfloat(1, 0)), y(2);
    std::vector<float> l(4);
    expect_error([&] { detect_kbest(h.data(), y.data(), 2, 2, c, 1.0f, 0, l.data()); },
                 { "allowed: 1..4096" });
}

TEST(MimoCpu, FloatKBestFollowsTheDoublePrecisionReference)
{
    // kbest_float (the stage's and the CUDA kernel's K-best) against detect_kbest: the
    // same algorithm in float. With every path kept (2x2, K = Q^2) both are max-log ML;
    // with K < Q^nt a near tie at a cut may keep another path in float, so 4x4 asks
    // for agreement on nearly every LLR (and every hard decision of |L| > 1).
    std::mt19937 rng(21);
    auto run_float = [](const channel_use& u,
                        int nr,
                        int nt,
                        const constellation& c,
                        float nv,
                        int k,
                        float* out) {
        kbest_float::detect<kbest_float::max_k>(
            reinterpret_cast<const mtt_float::cplx*>(u.h.data()),
            reinterpret_cast<const mtt_float::cplx*>(u.y.data()),
            nr,
            nt,
            reinterpret_cast<const mtt_float::cplx*>(c.points().data()),
            c.bits_per_symbol(),
            k,
            kbest_default_clip,
            nv,
            out);
    };
    for (modulation m : { modulation::qpsk, modulation::qam16 }) {
        const constellation c(m);
        const int q = c.size(), bits = c.bits_per_symbol();
        for (int trial = 0; trial < 50; trial++) {
            const channel_use u = draw(rng, 2, 2, c, 0.3f);
            std::vector<float> fl(2 * bits), ml(2 * bits);
            run_float(u, 2, 2, c, 0.3f, std::min(q * q, kbest_float::max_k), fl.data());
            if (q * q > kbest_float::max_k)
                continue;
            detect_ml(u.h.data(), u.y.data(), 2, 2, c, 0.3f, ml.data());
            for (int i = 0; i < 2 * bits; i++)
                ASSERT_NEAR(fl[i], ml[i], 1e-3f * (1 + std::fabs(ml[i]))) << to_string(m);
        }
    }
    for (modulation m : { modulation::qpsk, modulation::qam16, modulation::qam64 }) {
        const constellation c(m);
        const int q = c.size(), bits = c.bits_per_symbol();
        size_t close = 0, total = 0;
        for (int trial = 0; trial < 300; trial++) {
            const float nv = trial % 2 ? 0.1f : 0.02f;
            const channel_use u = draw(rng, 4, 4, c, nv);
            std::vector<float> fl(4 * bits), db(4 * bits);
            run_float(u, 4, 4, c, nv, q, fl.data());
            detect_kbest(u.h.data(), u.y.data(), 4, 4, c, nv, q, db.data());
            for (int i = 0; i < 4 * bits; i++) {
                total++;
                close += std::fabs(fl[i] - db[i]) <= 1e-3f * (1 + std::fabs(db[i]));
                if (std::fabs(db[i]) > 1.0f)
                    ASSERT_EQ(fl[i] < 0, db[i] < 0) << to_string(m) << " trial " << trial;
            }
        }
        EXPECT_GE(close, total * 995 / 1000) << to_string(m);
    }
    // One path: +/-clip everywhere, as the reference.
    const constellation c(modulation::qam16);
    const channel_use u = draw(rng, 4, 4, c, 0.1f);
    std::vector<float> fl(16), db(16);
    run_float(u, 4, 4, c, 0.1f, 1, fl.data());
    detect_kbest(u.h.data(), u.y.data(), 4, 4, c, 0.1f, 1, db.data());
    EXPECT_EQ(fl, db);
}

TEST(MimoCpu, DetectorStageThroughTheEngineEqualsThePerVectorDetectors)
{
    // Coherence blocks of 3 vectors (and shorter last blocks) through batch_engine on
    // the CPU backend: each frame's LLRs are the per-vector detector's, in order.
    std::mt19937 rng(10);
    for (mimo_algorithm alg : { mimo_algorithm::ml,
                                mimo_algorithm::lmmse,
                                mimo_algorithm::kbest,
                                mimo_algorithm::mtt }) {
        mimo_setup setup;
        setup.nt = 2;
        setup.nr = 3;
        setup.mod = modulation::qam16;
        setup.coherence = 3;
        mimo_detector_options opt;
        opt.algorithm = alg;
        opt.noise_var = 0.2f;
        auto det = std::shared_ptr<batch_decoder>(make_decoder(setup, opt, "cpu"));
        EXPECT_EQ(det->input(), input_format::complex_float);
        EXPECT_EQ(det->aux_items_for_input(9), 6u);
        EXPECT_EQ(det->output_bits_for_input(6), 16u);
        expect_error([&] { det->output_bits_for_input(4); }, { "allowed: v * nr" });
        expect_error([&] { det->output_bits_for_input(12); }, { "coherence = 3" });

        engine_config cfg;
        cfg.max_batch_frames = 4;
        cfg.cpu_threads = 2;
        batch_engine eng(det, cfg);
        const constellation c(setup.mod);
        struct block {
            channel_use u;
            std::vector<cfloat> y;
        };
        std::vector<block> sent(30);
        size_t got = 0;
        auto check = [&](const completed_frame& f) {
            const block& b = sent[f.id];
            const size_t vectors = b.y.size() / 3;
            ASSERT_EQ(f.nbits, vectors * 8);
            for (size_t v = 0; v < vectors; v++) {
                std::vector<float> want(8);
                detect_lmmse(
                    b.u.h.data(), b.y.data() + 3 * v, 3, 2, c, 0.2f, want.data());
                if (alg == mimo_algorithm::ml)
                    detect_ml(
                        b.u.h.data(), b.y.data() + 3 * v, 3, 2, c, 0.2f, want.data());
                if (alg == mimo_algorithm::mtt) // the stage runs the float MTT
                    mtt_float::detect<16>(
                        reinterpret_cast<const mtt_float::cplx*>(b.u.h.data()),
                        reinterpret_cast<const mtt_float::cplx*>(b.y.data() + 3 * v),
                        3,
                        2,
                        reinterpret_cast<const mtt_float::cplx*>(c.points().data()),
                        4,
                        0.2f,
                        want.data());
                if (alg == mimo_algorithm::kbest) // the stage runs the float K-best
                    kbest_float::detect<16>(
                        reinterpret_cast<const mtt_float::cplx*>(b.u.h.data()),
                        reinterpret_cast<const mtt_float::cplx*>(b.y.data() + 3 * v),
                        3,
                        2,
                        reinterpret_cast<const mtt_float::cplx*>(c.points().data()),
                        4,
                        16,
                        kbest_default_clip,
                        0.2f,
                        want.data());
                for (int i = 0; i < 8; i++)
                    ASSERT_EQ(f.llrs[v * 8 + i], want[i]);
            }
            got++;
        };
        completed_frame done;
        for (size_t i = 0; i < sent.size(); i++) {
            const int vectors = 1 + static_cast<int>(i % 3);
            sent[i].u = draw(rng, 3, 2, c, 0.2f);
            for (int v = 0; v < vectors; v++) {
                const channel_use w = draw(rng, 3, 2, c, 0.2f);
                // The block's channel, fresh symbols.
                for (int r = 0; r < 3; r++) {
                    cfloat acc = 0;
                    for (int k = 0; k < 2; k++)
                        acc += sent[i].u.h[r * 2 + k] * c.points()[w.s[k]];
                    sent[i].y.push_back(acc + 0.3f * w.y[r]);
                }
            }
            while (!eng.submit(sent[i].y.data(),
                               sent[i].y.size(),
                               sent[i].u.h.data(),
                               sent[i].u.h.size(),
                               i))
                if (eng.pop_wait(done))
                    check(done);
        }
        eng.flush();
        while (eng.pop_wait(done))
            check(done);
        EXPECT_EQ(got, sent.size());
    }
}

TEST(MimoCpu, MttTwoByTwoIsMaxLogMl)
{
    // The paper's claim: with two transmit antennas the two lists hold, for every
    // point of each antenna, the exact least distance, so MTT's LLRs are max-log ML's.
    std::mt19937 rng(12);
    for (modulation m : all_test_modulations())
        for (int nr : { 2, 4 }) {
            const constellation c(m);
            const int bits = c.bits_per_symbol();
            SCOPED_TRACE(std::string(to_string(m)) + " nr " + std::to_string(nr));
            for (float nv : { 0.02f, 0.3f, 1.5f })
                for (int trial = 0; trial < (m == modulation::qam256 ? 4 : 25); trial++) {
                    const channel_use u = draw(rng, nr, 2, c, nv);
                    std::vector<float> mtt(2 * bits), ml(2 * bits);
                    detect_mtt(u.h.data(), u.y.data(), nr, 2, c, nv, mtt.data());
                    detect_ml(u.h.data(), u.y.data(), nr, 2, c, nv, ml.data());
                    for (int i = 0; i < 2 * bits; i++)
                        ASSERT_NEAR(mtt[i], ml[i], 1e-4f * (1 + std::fabs(ml[i]))) << i;
                }
        }
}

TEST(MimoCpu, MttMetricsBoundTheExactOnesAndOneByOneIsTheDemapper)
{
    // nt = 3, 4: every list metric is the distance of a real path through its point,
    // so it is at least the exact least distance with that point on that antenna.
    std::mt19937 rng(13);
    for (int nt : { 3, 4 })
        for (modulation m : { modulation::qpsk, modulation::qam16 }) {
            if (nt == 4 && m == modulation::qam16)
                continue; // 16^4 exact minima per point: slow for a unit test
            const constellation c(m);
            const int q = c.size();
            for (int trial = 0; trial < 20; trial++) {
                const channel_use u = draw(rng, nt, nt, c, 0.3f);
                std::vector<double> metrics;
                mtt_metrics(u.h.data(), u.y.data(), nt, nt, c, metrics);
                // Exact least ||y - H s||^2 per antenna and point, less the part of y
                // outside H's range (zero here: nr = nt).
                std::vector<double> exact(nt * q, 1e300);
                std::vector<int> idx(nt, 0);
                for (;;) {
                    double d = 0;
                    for (int r = 0; r < nt; r++) {
                        std::complex<double> e = u.y[r];
                        for (int k = 0; k < nt; k++)
                            e -= std::complex<double>(u.h[r * nt + k]) *
                                 std::complex<double>(c.points()[idx[k]]);
                        d += std::norm(e);
                    }
                    for (int a = 0; a < nt; a++)
                        exact[a * q + idx[a]] = std::min(exact[a * q + idx[a]], d);
                    int k = 0;
                    while (k < nt && ++idx[k] == q)
                        idx[k++] = 0;
                    if (k == nt)
                        break;
                }
                for (int i = 0; i < nt * q; i++)
                    ASSERT_GE(metrics[i], exact[i] * (1 - 1e-9) - 1e-9) << i;
                std::vector<float> l(nt * c.bits_per_symbol());
                detect_mtt(u.h.data(), u.y.data(), nt, nt, c, 0.3f, l.data());
                for (float x : l)
                    ASSERT_TRUE(std::isfinite(x));
            }
        }
    // nt = nr = 1: the constellation's demapper on y / h at noise_var / |h|^2.
    for (modulation m : all_test_modulations()) {
        const constellation c(m);
        const int bits = c.bits_per_symbol();
        for (int trial = 0; trial < 20; trial++) {
            const channel_use u = draw(rng, 1, 1, c, 0.2f);
            std::vector<float> l(bits), want(bits);
            detect_mtt(u.h.data(), u.y.data(), 1, 1, c, 0.2f, l.data());
            const cfloat est = u.y[0] / u.h[0];
            c.demap_maxlog(&est, 1, 0.2f / std::norm(u.h[0]), want.data());
            for (int b = 0; b < bits; b++)
                ASSERT_NEAR(l[b], want[b], 1e-3f * (1 + std::fabs(want[b])));
        }
    }
}

TEST(MimoCpu, MttHighSnrDecisionsAreTheSentBits)
{
    std::mt19937 rng(14);
    for (modulation m : { modulation::qpsk, modulation::qam16, modulation::qam64 }) {
        const constellation c(m);
        for (int trial = 0; trial < 40; trial++) {
            const channel_use u = draw(rng, 4, 4, c, 1e-5f);
            std::vector<float> l(4 * c.bits_per_symbol());
            detect_mtt(u.h.data(), u.y.data(), 4, 4, c, 1e-5f, l.data());
            for (size_t i = 0; i < l.size(); i++)
                ASSERT_EQ(l[i] < 0, u.bits[i] == 1) << to_string(m) << " " << i;
        }
    }
}

TEST(MimoCpu, FloatMttAgreesWithTheDoubleReference)
{
    // The float MTT (lib/cpu/mtt_float.h, the CUDA kernel's code) against detect_mtt:
    // 2x2 against max-log ML within float rounding of the distances; 4x4 the same
    // decisions on at least 99.5 % of the bits (a near tie may pick another path).
    std::mt19937 rng(15);
    for (modulation m :
         { modulation::bpsk, modulation::qpsk, modulation::qam16, modulation::qam64 }) {
        const constellation c(m);
        const int bits = c.bits_per_symbol();
        const auto* pts = reinterpret_cast<const mtt_float::cplx*>(c.points().data());
        auto run_float = [&](const channel_use& u, int nr, int nt, float nv, float* out) {
            const auto* h = reinterpret_cast<const mtt_float::cplx*>(u.h.data());
            const auto* y = reinterpret_cast<const mtt_float::cplx*>(u.y.data());
            if (c.size() <= 4)
                mtt_float::detect<4>(h, y, nr, nt, pts, bits, nv, out);
            else if (c.size() <= 16)
                mtt_float::detect<16>(h, y, nr, nt, pts, bits, nv, out);
            else
                mtt_float::detect<64>(h, y, nr, nt, pts, bits, nv, out);
        };
        for (int trial = 0; trial < 30; trial++) {
            const float nv = trial % 2 ? 0.05f : 0.5f;
            const channel_use u = draw(rng, 2, 2, c, nv);
            std::vector<float> f(2 * bits), ml(2 * bits);
            run_float(u, 2, 2, nv, f.data());
            detect_ml(u.h.data(), u.y.data(), 2, 2, c, nv, ml.data());
            double scale = 0; // the distances' size, in LLR units
            for (const cfloat& x : u.y)
                scale += std::norm(x) / nv;
            for (int i = 0; i < 2 * bits; i++)
                ASSERT_NEAR(f[i], ml[i], 1e-5 * (scale + 10) + 1e-4 * std::fabs(ml[i]))
                    << to_string(m) << " " << i;
        }
        size_t same = 0, total = 0;
        for (int trial = 0; trial < 200; trial++) {
            const channel_use u = draw(rng, 4, 4, c, 0.3f);
            std::vector<float> f(4 * bits), d(4 * bits);
            run_float(u, 4, 4, 0.3f, f.data());
            detect_mtt(u.h.data(), u.y.data(), 4, 4, c, 0.3f, d.data());
            for (int i = 0; i < 4 * bits; i++) {
                ASSERT_TRUE(std::isfinite(f[i]));
                same += (f[i] < 0) == (d[i] < 0);
                total++;
            }
        }
        EXPECT_GE(same, total * 995 / 1000) << to_string(m);
    }
}

TEST(MimoCpu, NoiseVariancePerFrameTravelsAsTheLastAuxEntry)
{
    // Frame f carries noise variance 0.05, 0.4, 0, NaN, ...: the first two give the
    // LLRs of a stage built with that variance, the others all-zero LLRs.
    std::mt19937 rng(21);
    mimo_setup setup;
    setup.nt = 2;
    setup.nr = 2;
    setup.mod = modulation::qpsk;
    setup.coherence = 2;
    const constellation c(setup.mod);
    for (mimo_algorithm alg :
         { mimo_algorithm::lmmse, mimo_algorithm::mtt, mimo_algorithm::kbest }) {
        mimo_detector_options opt;
        opt.algorithm = alg;
        opt.noise_var_per_frame = true;
        auto det = std::shared_ptr<batch_decoder>(make_decoder(setup, opt, "cpu"));
        EXPECT_EQ(det->aux_items_for_input(4), 5u);
        const float values[] = { 0.05f, 0.4f, 0.0f, std::nanf("") };
        engine_config cfg;
        cfg.max_batch_frames = 3;
        batch_engine eng(det, cfg);
        std::vector<channel_use> sent;
        completed_frame done;
        size_t got = 0;
        auto check = [&](const completed_frame& f) {
            const float nv = values[f.id % 4];
            std::vector<float> want(8, 0.0f);
            if (nv > 0) {
                mimo_detector_options fixed = opt;
                fixed.noise_var_per_frame = false;
                fixed.noise_var = nv;
                auto ref = make_decoder(setup, fixed, "cpu");
                const channel_use& u = sent[f.id];
                frame_extent e{ 0, 4, 0, 8 };
                e.aux_offset = 0;
                e.aux_items = 4;
                frame_status st{};
                frame_batch b;
                b.samples = u.y.data();
                b.channels = u.h.data();
                b.llrs_out = want.data();
                b.frames = &e;
                b.num_frames = 1;
                b.status = &st;
                decode_on_this_thread(*ref, b);
            }
            for (int i = 0; i < 8; i++)
                ASSERT_EQ(f.llrs[i], want[i]) << "frame " << f.id;
            got++;
        };
        for (size_t i = 0; i < 12; i++) {
            channel_use u = draw(rng, 2, 2, c, 0.1f);
            const channel_use second = draw(rng, 2, 2, c, 0.1f);
            u.y.insert(u.y.end(), second.y.begin(), second.y.end());
            sent.push_back(u);
            std::vector<cfloat> aux = u.h;
            aux.push_back(cfloat(values[i % 4], 0.0f));
            while (!eng.submit(u.y.data(), 4, aux.data(), aux.size(), i))
                if (eng.pop_wait(done))
                    check(done);
        }
        eng.flush();
        while (eng.pop_wait(done))
            check(done);
        EXPECT_EQ(got, 12u);
    }
}

TEST(MimoCpu, BulkSubmitAndPopEqualFrameByFrame)
{
    // submit_frames() of equal coherence blocks (with their matrices back to back) and
    // pop_frames() give the LLRs of frame-by-frame submit() and the per-frame stage.
    std::mt19937 rng(31);
    mimo_setup setup;
    setup.nt = 2;
    setup.nr = 3;
    setup.mod = modulation::qam16;
    setup.coherence = 2;
    const constellation c(setup.mod);
    mimo_detector_options opt;
    opt.algorithm = mimo_algorithm::lmmse;
    const size_t frames = 500, items = 6, aux = 6, out = 16;
    std::vector<cfloat> y, h;
    for (size_t f = 0; f < frames; f++) {
        const channel_use a = draw(rng, 3, 2, c, 0.1f), b = draw(rng, 3, 2, c, 0.1f);
        h.insert(h.end(), a.h.begin(), a.h.end());
        y.insert(y.end(), a.y.begin(), a.y.end());
        y.insert(y.end(), b.y.begin(), b.y.end());
    }
    auto det = std::shared_ptr<batch_decoder>(make_decoder(setup, opt, "cpu"));
    std::vector<float> want(frames * out);
    {
        engine_config cfg;
        cfg.max_batch_frames = 64;
        batch_engine eng(det, cfg);
        completed_frame done;
        auto take = [&](const completed_frame& f) {
            ASSERT_EQ(f.nbits, out);
            std::copy(f.llrs, f.llrs + out, want.begin() + f.id * out);
        };
        for (size_t f = 0; f < frames; f++)
            while (!eng.submit(y.data() + f * items, items, h.data() + f * aux, aux, f))
                if (eng.pop_wait(done))
                    take(done);
        eng.flush();
        while (eng.pop_wait(done))
            take(done);
    }
    engine_config cfg;
    cfg.max_batch_frames = 64;
    cfg.cpu_threads = 2;
    batch_engine eng(det, cfg);
    std::vector<float> got(frames * out);
    size_t in = 0, popped = 0;
    while (popped < frames) {
        in += eng.submit_frames(
            y.data() + in * items, items, h.data() + in * aux, aux, frames - in, in);
        if (in == frames)
            eng.launch();
        popped +=
            eng.pop_frames(got.data() + popped * out, nullptr, frames - popped, true);
    }
    EXPECT_EQ(got, want);
    // A wrong aux count is refused by the bulk path too.
    expect_error([&] { eng.submit_frames(y.data(), items, h.data(), aux - 1, 4, 0); },
                 { "channel-matrix entries" });
}
