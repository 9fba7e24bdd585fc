/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Constellations (TS 38.211 clause 5.1) and max-log demapping (issue 10, item 1): the
// points against the standard's formulas written out here one by one, unit energy and
// Gray neighbours, and the demapper against a brute-force search over every point.
#include <gpufec/constellation.h>

#include "test_helpers.h"
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;
using cf = std::complex<float>;

namespace {

const modulation all_modulations[] = { modulation::bpsk,
                                       modulation::qpsk,
                                       modulation::qam16,
                                       modulation::qam64,
                                       modulation::qam256 };

//! TS 38.211 5.1.2-5.1.6 as printed, b = the symbol's bits b(0), b(1), ...
cf standard_point(modulation m, const std::vector<int>& b)
{
    auto s = [&](int i) { return 1.0 - 2.0 * b[i]; };
    switch (m) {
    case modulation::bpsk:
        return cf(float(s(0) / std::sqrt(2.0)), float(s(0) / std::sqrt(2.0)));
    case modulation::qpsk:
        return cf(float(s(0) / std::sqrt(2.0)), float(s(1) / std::sqrt(2.0)));
    case modulation::qam16:
        return cf(float(s(0) * (2 - s(2)) / std::sqrt(10.0)),
                  float(s(1) * (2 - s(3)) / std::sqrt(10.0)));
    case modulation::qam64:
        return cf(float(s(0) * (4 - s(2) * (2 - s(4))) / std::sqrt(42.0)),
                  float(s(1) * (4 - s(3) * (2 - s(5))) / std::sqrt(42.0)));
    case modulation::qam256:
        return cf(float(s(0) * (8 - s(2) * (4 - s(4) * (2 - s(6)))) / std::sqrt(170.0)),
                  float(s(1) * (8 - s(3) * (4 - s(5) * (2 - s(7)))) / std::sqrt(170.0)));
    }
    return cf();
}

std::vector<int> bits_of_index(int i, int m)
{
    std::vector<int> b(m);
    for (int k = 0; k < m; k++)
        b[k] = (i >> (m - 1 - k)) & 1;
    return b;
}

} // namespace

TEST(Constellation, PointsAreTheStandardsFormulas)
{
    for (modulation m : all_modulations) {
        const constellation c(m);
        SCOPED_TRACE(to_string(m));
        ASSERT_EQ(c.size(), static_cast<int>(c.points().size()));
        for (int i = 0; i < c.size(); i++) {
            const cf want = standard_point(m, bits_of_index(i, c.bits_per_symbol()));
            EXPECT_NEAR(c.points()[i].real(), want.real(), 1e-6f) << i;
            EXPECT_NEAR(c.points()[i].imag(), want.imag(), 1e-6f) << i;
        }
    }
    // A few points read off the formulas by hand.
    const constellation q16(modulation::qam16), q64(modulation::qam64);
    EXPECT_NEAR(q16.points()[0b0000].real(), 1 / std::sqrt(10.0f), 1e-6f);
    EXPECT_NEAR(q16.points()[0b0010].real(), 3 / std::sqrt(10.0f), 1e-6f);
    EXPECT_NEAR(q16.points()[0b0001].imag(), 3 / std::sqrt(10.0f), 1e-6f);
    EXPECT_NEAR(q16.points()[0b1000].real(), -1 / std::sqrt(10.0f), 1e-6f);
    EXPECT_NEAR(q64.points()[0b001010].real(), 7 / std::sqrt(42.0f), 1e-6f);
    EXPECT_NEAR(q64.points()[0b000010].real(), 1 / std::sqrt(42.0f), 1e-6f);
}

TEST(Constellation, UnitEnergyDistinctPointsGrayNeighbours)
{
    for (modulation m : all_modulations) {
        const constellation c(m);
        SCOPED_TRACE(to_string(m));
        double energy = 0, dmin = 1e9;
        for (const cf& p : c.points())
            energy += std::norm(p);
        EXPECT_NEAR(energy / c.size(), 1.0, 1e-6);
        for (int i = 0; i < c.size(); i++)
            for (int j = i + 1; j < c.size(); j++)
                dmin = std::min(dmin, double(std::abs(c.points()[i] - c.points()[j])));
        EXPECT_GT(dmin, 1e-3);
        // Gray: points at the minimum distance differ in exactly one bit.
        int neighbours = 0;
        for (int i = 0; i < c.size(); i++)
            for (int j = i + 1; j < c.size(); j++)
                if (std::abs(c.points()[i] - c.points()[j]) < dmin * 1.001) {
                    neighbours++;
                    EXPECT_EQ(__builtin_popcount(i ^ j), 1) << i << " " << j;
                }
        EXPECT_GT(neighbours, 0);
    }
}

TEST(Constellation, MaxLogDemapperEqualsBruteForce)
{
    std::mt19937 rng(3);
    std::normal_distribution<float> g(0.0f, 1.0f);
    for (modulation m : all_modulations) {
        const constellation c(m);
        const int bits = c.bits_per_symbol();
        SCOPED_TRACE(to_string(m));
        for (float noise_var : { 0.01f, 0.3f, 2.0f }) {
            std::vector<cf> y(500);
            for (size_t s = 0; s < y.size(); s++) {
                // Points plus noise, and some far outside the constellation.
                const float spread = s % 10 == 0 ? 3.0f : std::sqrt(noise_var / 2);
                y[s] = c.points()[rng() % c.size()] + spread * cf(g(rng), g(rng));
            }
            std::vector<float> llr(y.size() * bits);
            c.demap_maxlog(y.data(), y.size(), noise_var, llr.data());
            for (size_t s = 0; s < y.size(); s++)
                for (int k = 0; k < bits; k++) {
                    float d0 = 1e30f, d1 = 1e30f;
                    for (int i = 0; i < c.size(); i++) {
                        const float d = std::norm(y[s] - c.points()[i]);
                        if ((i >> (bits - 1 - k)) & 1)
                            d1 = std::min(d1, d);
                        else
                            d0 = std::min(d0, d);
                    }
                    const float want = (d1 - d0) / noise_var;
                    ASSERT_NEAR(llr[s * bits + k], want, 1e-4f * (1 + std::fabs(want)))
                        << "symbol " << s << " bit " << k;
                }
        }
    }
}

TEST(Constellation, ModulateThenDemapNoiseless)
{
    std::mt19937 rng(5);
    for (modulation m : all_modulations) {
        const constellation c(m);
        const int bits = c.bits_per_symbol();
        std::vector<uint8_t> b(bits * 300);
        for (auto& x : b)
            x = rng() & 1;
        std::vector<cf> sym(300);
        c.modulate(b.data(), b.size(), sym.data());
        std::vector<float> llr(b.size());
        c.demap_maxlog(sym.data(), sym.size(), 0.1f, llr.data());
        for (size_t i = 0; i < b.size(); i++)
            ASSERT_EQ(llr[i] < 0, b[i] == 1) << to_string(m) << " bit " << i; // L > 0: 0
    }
}

TEST(Constellation, BadInputIsRefused)
{
    expect_error([] { parse_modulation("8psk"); },
                 { "bpsk", "qpsk", "16qam", "64qam", "256qam" });
    EXPECT_EQ(parse_modulation("64qam"), modulation::qam64);
    const constellation c(modulation::qam16);
    std::vector<uint8_t> b(6);
    std::vector<cf> s(2);
    expect_error([&] { c.modulate(b.data(), b.size(), s.data()); }, { "multiple of 4" });
    std::vector<float> llr(8);
    for (float nv : { 0.0f, -1.0f, std::nanf(""), INFINITY })
        expect_error([&] { c.demap_maxlog(s.data(), 2, nv, llr.data()); }, { "> 0" });
}
