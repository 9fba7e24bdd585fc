/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The MIMO channel source (issue 10, item 5): frames as mimo_channel.h defines them
// (the symbols of the bits through constellation::modulate, y - H s at the noise
// variance asked for, unit-power Rayleigh entries), frame numbering independent of how
// calls are cut, the caller's bits and channel, bad input; the CUDA source equal to the
// CPU one bit for bit (skipped without a device).
#include <gpufec/backends.h>
#include <gpufec/mimo_channel.h>

#include "test_helpers.h"
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;

namespace {

struct frames {
    std::vector<cfloat> y, h;
    std::vector<uint8_t> bits;
};

frames make_frames(mimo_channel_source& src,
                   uint64_t first,
                   size_t n,
                   const uint8_t* tx = nullptr)
{
    frames f;
    f.y.resize(n * src.samples_per_frame());
    f.h.resize(n * src.channel_per_frame());
    f.bits.resize(n * src.bits_per_frame());
    src.generate(first, n, tx, f.y.data(), f.h.data(), tx ? nullptr : f.bits.data());
    if (tx)
        f.bits.assign(tx, tx + n * src.bits_per_frame());
    return f;
}

mimo_setup setup_of(int nt, int nr, modulation m, int coherence)
{
    mimo_setup s;
    s.nt = nt;
    s.nr = nr;
    s.mod = m;
    s.coherence = coherence;
    return s;
}

//! Residual noise w = y - H s of every sample, s the independent modulator's symbols.
std::vector<cfloat> residuals(const mimo_setup& s, const frames& f, size_t n)
{
    const constellation c(s.mod);
    const size_t per_vector = static_cast<size_t>(s.nt) * c.bits_per_symbol();
    std::vector<cfloat> w;
    std::vector<cfloat> sym(s.nt);
    for (size_t fr = 0; fr < n; fr++)
        for (int v = 0; v < s.coherence; v++) {
            const size_t vec = fr * s.coherence + v;
            c.modulate(f.bits.data() + vec * per_vector, per_vector, sym.data());
            for (int r = 0; r < s.nr; r++) {
                std::complex<double> hs = 0;
                for (int a = 0; a < s.nt; a++)
                    hs += std::complex<double>(f.h[fr * s.nr * s.nt + r * s.nt + a]) *
                          std::complex<double>(sym[a]);
                const std::complex<double> d =
                    std::complex<double>(f.y[vec * s.nr + r]) - hs;
                w.emplace_back(static_cast<float>(d.real()),
                               static_cast<float>(d.imag()));
            }
        }
    return w;
}

bool have_gpu() { return cuda_device_count() > 0; }

} // namespace

TEST(MimoSource, SamplesAreHsPlusNoiseOfTheAskedVariance)
{
    for (const auto& s : { setup_of(4, 4, modulation::qam16, 1),
                           setup_of(2, 4, modulation::qpsk, 3),
                           setup_of(8, 8, modulation::qam256, 1),
                           setup_of(1, 2, modulation::bpsk, 7),
                           setup_of(3, 3, modulation::qam64, 2) }) {
        SCOPED_TRACE(std::to_string(s.nt) + "x" + std::to_string(s.nr) + " " +
                     to_string(s.mod));
        mimo_source_options o;
        o.noise_var = 0.05;
        o.seed = 11;
        auto src = make(s, o, "cpu");
        const size_t n = 4000 / s.coherence;
        const frames f = make_frames(*src, 0, n);
        // Unit-power Rayleigh entries, each part of variance 1/2 and mean 0.
        double p = 0, re = 0, im = 0;
        for (const auto& h : f.h) {
            p += std::norm(h);
            re += h.real();
            im += h.imag();
        }
        const double nh = static_cast<double>(f.h.size());
        EXPECT_NEAR(p / nh, 1.0, 5.0 / std::sqrt(nh));
        EXPECT_NEAR(re / nh, 0.0, 5.0 * std::sqrt(0.5 / nh));
        EXPECT_NEAR(im / nh, 0.0, 5.0 * std::sqrt(0.5 / nh));
        // Balanced random bits.
        double ones = 0;
        for (uint8_t b : f.bits) {
            ASSERT_LE(b, 1);
            ones += b;
        }
        const double nb = static_cast<double>(f.bits.size());
        EXPECT_NEAR(ones / nb, 0.5, 5.0 * 0.5 / std::sqrt(nb));
        // y - H s is circular noise of variance noise_var (real and imaginary halves).
        const auto w = residuals(s, f, n);
        double wr = 0, wi = 0, cross = 0;
        for (const auto& x : w) {
            wr += x.real() * double(x.real());
            wi += x.imag() * double(x.imag());
            cross += x.real() * double(x.imag());
        }
        const double nw = static_cast<double>(w.size());
        EXPECT_NEAR(wr / nw, o.noise_var / 2, 6.0 * o.noise_var / 2 * std::sqrt(2 / nw));
        EXPECT_NEAR(wi / nw, o.noise_var / 2, 6.0 * o.noise_var / 2 * std::sqrt(2 / nw));
        EXPECT_NEAR(cross / nw, 0.0, 6.0 * o.noise_var / 2 / std::sqrt(nw));
    }
}

TEST(MimoSource, FramesDependOnlyOnSeedAndNumber)
{
    const auto s = setup_of(4, 4, modulation::qam16, 2);
    mimo_source_options o;
    o.seed = 3;
    auto a = make(s, o, "cpu");
    const frames all = make_frames(*a, 100, 9);
    // The same frames cut into other calls.
    frames parts;
    for (uint64_t fr : { 100u, 101u, 102u, 103u }) {
        const frames one = make_frames(*a, fr, 1);
        parts.y.insert(parts.y.end(), one.y.begin(), one.y.end());
        parts.h.insert(parts.h.end(), one.h.begin(), one.h.end());
        parts.bits.insert(parts.bits.end(), one.bits.begin(), one.bits.end());
    }
    const frames rest = make_frames(*a, 104, 5);
    parts.y.insert(parts.y.end(), rest.y.begin(), rest.y.end());
    parts.h.insert(parts.h.end(), rest.h.begin(), rest.h.end());
    parts.bits.insert(parts.bits.end(), rest.bits.begin(), rest.bits.end());
    EXPECT_EQ(parts.y, all.y);
    EXPECT_EQ(parts.h, all.h);
    EXPECT_EQ(parts.bits, all.bits);
    // Another seed, or other frame numbers, give other frames.
    o.seed = 4;
    auto b = make(s, o, "cpu");
    EXPECT_NE(make_frames(*b, 100, 9).h, all.h);
    EXPECT_NE(make_frames(*a, 0, 9).bits, all.bits);
    // The noise variance scales the noise only: the same H and bits.
    a->set_noise_var(0.5);
    const frames louder = make_frames(*a, 100, 9);
    EXPECT_EQ(louder.h, all.h);
    EXPECT_EQ(louder.bits, all.bits);
    EXPECT_NE(louder.y, all.y);
}

TEST(MimoSource, CallersBitsAndChannel)
{
    const auto s = setup_of(2, 3, modulation::qam64, 4);
    mimo_source_options o;
    o.noise_var = 1e-10;
    o.channel = { { 1, 0 },     { 0.5f, -0.25f }, { 0, 1 },
                  { -1, 0.5f }, { 0.3f, 0.3f },   { 2, 0 } };
    auto src = make(s, o, "cpu");
    std::mt19937 rng(5);
    const size_t n = 50;
    std::vector<uint8_t> tx(n * src->bits_per_frame());
    for (auto& b : tx)
        b = rng() & 1;
    const frames f = make_frames(*src, 7, n, tx.data());
    for (size_t k = 0; k < f.h.size(); k++)
        ASSERT_EQ(f.h[k], o.channel[k % o.channel.size()]);
    for (const auto& w : residuals(s, f, n))
        ASSERT_LT(std::abs(w), 1e-4f);
    // Random bits are not written when the caller gives them.
    std::vector<uint8_t> untouched(n * src->bits_per_frame(), 9);
    src->generate(7, n, tx.data(), nullptr, nullptr, untouched.data());
    EXPECT_EQ(untouched, std::vector<uint8_t>(untouched.size(), 9));
}

TEST(MimoSource, NoiseVarianceHelpersAndBadInput)
{
    EXPECT_DOUBLE_EQ(mimo_noise_var_esn0(10.0), 0.1);
    EXPECT_DOUBLE_EQ(mimo_noise_var_ebn0(0.0, 4, 0.5), 0.5);
    expect_error([] { mimo_noise_var_ebn0(1.0, 4, 0.0); }, { "0 < rate <= 1" });
    expect_error([] { mimo_noise_var_esn0(NAN); }, { "finite" });
    mimo_source_options o;
    expect_error([&] { make(setup_of(4, 2, modulation::qpsk, 1), o, "cpu"); },
                 { "1 <= nt <= nr <= 8" });
    expect_error([&] { make(setup_of(9, 9, modulation::qpsk, 1), o, "cpu"); },
                 { "1 <= nt <= nr <= 8" });
    expect_error([&] { make(setup_of(2, 2, modulation::qpsk, 0), o, "cpu"); },
                 { "1..65536" });
    o.noise_var = 0;
    expect_error([&] { make(setup_of(2, 2, modulation::qpsk, 1), o, "cpu"); },
                 { "finite value > 0" });
    o.noise_var = 0.1;
    o.channel.resize(3);
    expect_error([&] { make(setup_of(2, 2, modulation::qpsk, 1), o, "cpu"); },
                 { "nr * nt = 4" });
    o.channel.clear();
    auto src = make(setup_of(2, 2, modulation::qpsk, 1), o, "cpu");
    expect_error([&] { src->set_noise_var(-1); }, { "finite value > 0" });
    expect_error(
        [&] { src->generate_device(0, 1, nullptr, nullptr, nullptr, nullptr, nullptr); },
        { "needs a CUDA source" });
}

TEST(MimoSource, CudaEqualsCpuBitForBit)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    for (const auto& s : { setup_of(4, 4, modulation::qam16, 1),
                           setup_of(2, 4, modulation::qpsk, 3),
                           setup_of(8, 8, modulation::qam256, 2),
                           setup_of(1, 1, modulation::bpsk, 5) }) {
        SCOPED_TRACE(std::to_string(s.nt) + "x" + std::to_string(s.nr) + " " +
                     to_string(s.mod));
        mimo_source_options o;
        o.noise_var = 0.3;
        o.seed = 0x1234567890ull;
        auto cpu = make(s, o, "cpu");
        auto gpu = make(s, o, "cuda:0");
        ASSERT_EQ(gpu->backend(), backend_kind::cuda);
        const size_t n = 3000 / s.coherence;
        const frames want = make_frames(*cpu, (1ull << 33) + 5, n);
        const frames got = make_frames(*gpu, (1ull << 33) + 5, n);
        ASSERT_EQ(got.bits, want.bits);
        ASSERT_EQ(got.h, want.h);
        ASSERT_EQ(got.y, want.y);
        // The caller's bits and a fixed channel.
        std::vector<uint8_t> tx(n * cpu->bits_per_frame());
        std::mt19937 rng(9);
        for (auto& b : tx)
            b = rng() & 1;
        ASSERT_EQ(make_frames(*gpu, 17, n, tx.data()).y,
                  make_frames(*cpu, 17, n, tx.data()).y);
        o.channel.assign(static_cast<size_t>(s.nr) * s.nt, cfloat(0.5f, -0.5f));
        o.channel[0] = cfloat(1, 2);
        auto cpu_fixed = make(s, o, "cpu");
        auto gpu_fixed = make(s, o, "cuda:0");
        ASSERT_EQ(make_frames(*gpu_fixed, 3, n).y, make_frames(*cpu_fixed, 3, n).y);
    }
}
