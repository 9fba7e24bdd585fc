/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// lte_turbo_code: QPP table (TS 36.212 Table 5.1.3-3), validation, CRC24B, and the
// encoder against the TS 36.212 vectors (from Sionna) in GPUFEC_VECTORS_DIR/lte_turbo.
#include <gpufec/turbo.h>

#include "test_helpers.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;
using gpufec::test::random_bits;

namespace {

std::vector<uint8_t> encode(const lte_turbo_code& code, const std::vector<uint8_t>& in)
{
    std::vector<uint8_t> out(code.coded_bits(), 0xEE);
    lte_turbo_encode(code, in.data(), out.data());
    return out;
}

// Remainder of M(D) * D^24 divided by g(D), by explicit polynomial long division over
// GF(2) on an array of coefficients (independent of the shift-register form).
uint32_t crc24b_long_division(const std::vector<uint8_t>& msg)
{
    const int g[25] = { 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // D^24, D^23, D^22..D^12
                        0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1 };  // D^11..D^0
    std::vector<uint8_t> r(msg);
    r.resize(msg.size() + 24, 0); // r[0] is the highest power
    for (size_t i = 0; i < msg.size(); ++i)
        if (r[i])
            for (int j = 0; j < 25; ++j)
                r[i + j] ^= g[j];
    uint32_t p = 0;
    for (size_t i = msg.size(); i < r.size(); ++i)
        p = (p << 1) | r[i];
    return p;
}

std::vector<uint8_t> parse_bits(const std::string& s)
{
    std::vector<uint8_t> v;
    for (char ch : s)
        v.push_back(ch == '1');
    return v;
}

} // namespace

TEST(LteTurbo, QppTableMatchesStandardShape)
{
    const auto sizes = lte_turbo_code::block_sizes();
    ASSERT_EQ(sizes.size(), 188u);
    std::vector<int> expected;
    for (int k = 40; k <= 512; k += 8)
        expected.push_back(k);
    for (int k = 528; k <= 1024; k += 16)
        expected.push_back(k);
    for (int k = 1056; k <= 2048; k += 32)
        expected.push_back(k);
    for (int k = 2112; k <= 6144; k += 64)
        expected.push_back(k);
    EXPECT_EQ(sizes, expected);

    int f1 = 0, f2 = 0;
    lte_turbo_code::qpp_parameters(40, f1, f2);
    EXPECT_EQ(f1, 3);
    EXPECT_EQ(f2, 10);
    lte_turbo_code::qpp_parameters(6144, f1, f2);
    EXPECT_EQ(f1, 263);
    EXPECT_EQ(f2, 480);
    lte_turbo_code::qpp_parameters(1024, f1, f2); // row i = 92 of Table 5.1.3-3
    EXPECT_EQ(f1, 31);
    EXPECT_EQ(f2, 64);
}

TEST(LteTurbo, EveryQppIsAPermutationMatchingTheFormula)
{
    for (int k : lte_turbo_code::block_sizes()) {
        const lte_turbo_code code(k);
        const auto& pi = code.interleaver();
        ASSERT_EQ(pi.size(), size_t(k));
        std::vector<uint8_t> seen(k, 0);
        for (int i = 0; i < k; ++i) {
            // Direct formula in 64 bits as the independent reference to the recursion.
            const uint64_t ii = uint64_t(i);
            const uint64_t direct =
                (uint64_t(code.f1()) * ii + uint64_t(code.f2()) * ii * ii) % uint64_t(k);
            ASSERT_EQ(pi[i], direct) << "K=" << k << " i=" << i;
            ASSERT_LT(pi[i], uint32_t(k));
            ASSERT_FALSE(seen[pi[i]]) << "K=" << k << " repeats " << pi[i];
            seen[pi[i]] = 1;
        }
    }
}

TEST(LteTurbo, RejectsBadBlockSizeNamingAllowedValues)
{
    for (int k : { 0, 39, 41, 520, 1040, 2080, 6145, 6208, -8 })
        expect_error([k] { lte_turbo_code code(k); },
                     { "40..512 step 8",
                       "528..1024 step 16",
                       "1056..2048 step 32",
                       "2112..6144 step 64" });
    expect_error([] { lte_turbo_code code(530, true); }, { "K = 530" });
    EXPECT_FALSE(lte_turbo_code::is_valid_k(6200));
    EXPECT_TRUE(lte_turbo_code::is_valid_k(6144));
}

TEST(LteTurbo, LengthsAndRate)
{
    const lte_turbo_code a(6144);
    EXPECT_EQ(a.info_bits(), 6144);
    EXPECT_EQ(a.stream_bits(), 6148);
    EXPECT_EQ(a.coded_bits(), 3u * 6144 + 12);
    const lte_turbo_code b(40, true);
    EXPECT_TRUE(b.crc24b());
    EXPECT_EQ(b.k(), 40);
    EXPECT_EQ(b.info_bits(), 16);
    EXPECT_EQ(b.coded_bits(), 132u);
    EXPECT_DOUBLE_EQ(b.rate(), 16.0 / 132.0);
    EXPECT_NE(b.describe().find("K=40"), std::string::npos);
    EXPECT_NE(b.describe().find("CRC24B"), std::string::npos);
}

TEST(LteTurbo, Crc24bKnownAnswers)
{
    // All-zero message: remainder 0. Single '1': D^24 mod g = D^23 + D^6 + D^5 + D + 1.
    const std::vector<uint8_t> zeros(100, 0), one{ 1 };
    EXPECT_EQ(crc24b(zeros.data(), zeros.size()), 0u);
    EXPECT_EQ(crc24b(one.data(), 1), 0x800063u);
    EXPECT_EQ(crc24b_long_division(one), 0x800063u);
    // Leading zeros do not change a CRC with zero initial register.
    const std::vector<uint8_t> zero_one{ 0, 0, 0, 1 };
    EXPECT_EQ(crc24b(zero_one.data(), zero_one.size()), 0x800063u);
    // '1' followed by one zero: D^25 mod g = D * (D^23+D^6+D^5+D+1) + D^24 terms
    //  = (D^24 + D^7 + D^6 + D^2 + D) + (D^23 + D^6 + D^5 + D + 1) = D^23+D^7+D^5+D^2+1.
    const std::vector<uint8_t> one_zero{ 1, 0 };
    EXPECT_EQ(crc24b(one_zero.data(), 2), 0x8000A5u);

    std::mt19937 rng(2405);
    for (int n : { 1, 7, 24, 25, 100, 6120 }) {
        const auto msg = random_bits(rng, n);
        const uint32_t p = crc24b(msg.data(), msg.size());
        EXPECT_EQ(p, crc24b_long_division(msg)) << "n=" << n;
        // Appending the parity (p_0 first) gives a codeword with zero remainder.
        auto cw = msg;
        for (int j = 0; j < 24; ++j)
            cw.push_back((p >> (23 - j)) & 1);
        EXPECT_EQ(crc24b(cw.data(), cw.size()), 0u);
        // A single flipped bit is always detected.
        cw[rng() % cw.size()] ^= 1;
        EXPECT_NE(crc24b(cw.data(), cw.size()), 0u);
    }
}

TEST(LteTurbo, EncoderStructure)
{
    std::mt19937 rng(7);
    for (int k : { 40, 512, 1056, 6144 }) {
        const lte_turbo_code code(k);
        const auto in = random_bits(rng, k);
        const auto out = encode(code, in);
        const int S = code.stream_bits();
        // Systematic stream d0 starts with the input; every output is a bit.
        for (int i = 0; i < k; ++i)
            ASSERT_EQ(out[i], in[i]);
        for (uint8_t b : out)
            ASSERT_LE(b, 1);
        // Linearity over GF(2): enc(a ^ b) = enc(a) ^ enc(b) (zero state start, linear
        // tail).
        const auto in2 = random_bits(rng, k);
        auto sum = in;
        for (int i = 0; i < k; ++i)
            sum[i] ^= in2[i];
        const auto o2 = encode(code, in2), os = encode(code, sum);
        for (size_t i = 0; i < out.size(); ++i)
            ASSERT_EQ(os[i], out[i] ^ o2[i]) << "K=" << k << " i=" << i;
        // All-zero input gives the all-zero codeword.
        const auto oz = encode(code, std::vector<uint8_t>(k, 0));
        for (uint8_t b : oz)
            ASSERT_EQ(b, 0);
        // The tail drives each RSC to state 0: replaying encoder 1 with its tail inputs
        // from the serialized stream ends in state 0 (x_K = d0[K], x_K+1 = d2[K],
        // x_K+2 = d1[K+1]).
        uint32_t state = 0;
        for (int i = 0; i < k; ++i)
            EXPECT_EQ(lte_turbo_code::rsc_step(state, in[i]), out[S + i]);
        EXPECT_EQ(lte_turbo_code::rsc_step(state, out[k]), out[S + k]);         // z_K
        EXPECT_EQ(lte_turbo_code::rsc_step(state, out[2 * S + k]), out[k + 1]); // z_K+1
        EXPECT_EQ(lte_turbo_code::rsc_step(state, out[S + k + 1]),
                  out[2 * S + k + 1]); // z_K+2
        EXPECT_EQ(state, 0u);
    }
}

TEST(LteTurbo, CrcAttachmentEqualsEncodingMessagePlusCrc)
{
    std::mt19937 rng(11);
    for (int k : { 40, 1024, 6144 }) {
        const lte_turbo_code with_crc(k, true), plain(k, false);
        const auto payload = random_bits(rng, k - 24);
        auto block = payload;
        const uint32_t p = crc24b_long_division(payload);
        for (int j = 0; j < 24; ++j)
            block.push_back((p >> (23 - j)) & 1);
        EXPECT_EQ(encode(with_crc, payload), encode(plain, block)) << "K=" << k;
        EXPECT_EQ(crc24b(block.data(), block.size()), 0u);
    }
}

TEST(LteTurbo, EncoderMatchesVectors)
{
    const std::string path =
        std::string(GPUFEC_VECTORS_DIR) + "/lte_turbo/lte_turbo_vectors.txt";
    std::ifstream f(path);
    if (!f)
        GTEST_SKIP() << "no test vectors at " << path;

    // (K, case) -> field -> bits
    std::map<std::pair<int, int>, std::map<std::string, std::vector<uint8_t>>> cases;
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream ls(line);
        int k = 0, c = 0;
        std::string field, bits;
        ASSERT_TRUE(ls >> k >> c >> field >> bits) << line;
        cases[{ k, c }][field] = parse_bits(bits);
    }
    ASSERT_EQ(cases.size(), 40u);

    int checked = 0;
    for (const auto& [key, fields] : cases) {
        const int K = key.first;
        const lte_turbo_code code(K);
        const auto& u = fields.at("u");
        ASSERT_EQ(u.size(), size_t(K));
        const auto out = encode(code, u);
        const size_t S = code.stream_bits();
        const std::vector<uint8_t> d0(out.begin(), out.begin() + S);
        const std::vector<uint8_t> d1(out.begin() + S, out.begin() + 2 * S);
        const std::vector<uint8_t> d2(out.begin() + 2 * S, out.end());
        EXPECT_EQ(d0, fields.at("d0")) << "K=" << K << " case " << key.second;
        EXPECT_EQ(d1, fields.at("d1")) << "K=" << K << " case " << key.second;
        EXPECT_EQ(d2, fields.at("d2")) << "K=" << K << " case " << key.second;

        // Sionna's interleaved order x_i z_i z'_i, then the 12 tail bits.
        std::vector<uint8_t> x;
        for (int i = 0; i < K; ++i) {
            x.push_back(d0[i]);
            x.push_back(d1[i]);
            x.push_back(d2[i]);
        }
        const uint8_t tail[12] = { d0[K],     d1[K],     d2[K],     d0[K + 1],
                                   d1[K + 1], d2[K + 1], d0[K + 2], d1[K + 2],
                                   d2[K + 2], d0[K + 3], d1[K + 3], d2[K + 3] };
        x.insert(x.end(), tail, tail + 12);
        EXPECT_EQ(x, fields.at("x")) << "K=" << K << " case " << key.second;
        ++checked;
    }
    EXPECT_EQ(checked, 40);
}

// ---- rate matching (TS 36.212 5.1.4.1) -------------------------------------------

namespace {

//! The rate matcher written out as the standard describes it, step by step: the
//! sub-block interleaver's matrix (dummy bits first, rows filled, columns permuted by
//! Table 5.1.4-1, read column by column; d^(2) by its pi formula), bit collection and
//! the circular read. Entries are stream indices, -1 for <NULL>.
std::vector<int> reference_rate_matching(int K, int E, int rv, int n_cb, int F)
{
    static const int P[32] = {
        0, 16, 8, 24, 4, 20, 12, 28, 2, 18, 10, 26, 6, 22, 14, 30,
        1, 17, 9, 25, 5, 21, 13, 29, 3, 19, 11, 27, 7, 23, 15, 31
    };
    const int D = K + 4, C = 32;
    int R = 0;
    while (R * C < D)
        R++;
    const int ND = R * C - D, KPI = R * C;
    std::vector<std::vector<int>> v(3, std::vector<int>(KPI));
    for (int s = 0; s < 3; s++) {
        std::vector<int> yk(KPI, -1);
        for (int k = 0; k < D; k++)
            yk[ND + k] = (s < 2 && k < F) ? -1 : s * D + k;
        if (s < 2) {
            std::vector<std::vector<int>> m(R, std::vector<int>(C));
            for (int r = 0; r < R; r++)
                for (int c = 0; c < C; c++)
                    m[r][c] = yk[r * C + c];
            int k = 0;
            for (int j = 0; j < C; j++) // output column j is input column P(j)
                for (int r = 0; r < R; r++)
                    v[s][k++] = m[r][P[j]];
        } else {
            for (int k = 0; k < KPI; k++)
                v[2][k] = yk[(P[k / R] + C * (k % R) + 1) % KPI];
        }
    }
    std::vector<int> w(3 * KPI);
    for (int k = 0; k < KPI; k++) {
        w[k] = v[0][k];
        w[KPI + 2 * k] = v[1][k];
        w[KPI + 2 * k + 1] = v[2][k];
    }
    const int Ncb = n_cb ? n_cb : 3 * KPI;
    const int k0 =
        R * (2 * static_cast<int>(std::ceil(double(Ncb) / (8.0 * R))) * rv + 2);
    std::vector<int> out;
    for (int j = 0; static_cast<int>(out.size()) < E; j++)
        if (w[(k0 + j) % Ncb] >= 0)
            out.push_back(w[(k0 + j) % Ncb]);
    return out;
}

} // namespace

TEST(LteTurboRateMatching, MatchesTheStandardStepByStep)
{
    std::mt19937 rng(3);
    const auto sizes = lte_turbo_code::block_sizes();
    for (int t = 0; t < 120; t++) {
        const int K = t < 4 ? std::vector<int>{ 40, 6144, 1056, 512 }[t]
                            : sizes[rng() % sizes.size()];
        const int Kw = 96 * ((K + 4 + 31) / 32);
        const int E = 1 + static_cast<int>(rng() % (2 * Kw));
        const int rv = t % 4;
        const int n_cb = t % 3 == 0 ? 0 : Kw / 2 + static_cast<int>(rng() % (Kw / 2));
        const int F = t % 5 == 0 ? std::min(8 * (t % 7), K - 24) : 0;
        SCOPED_TRACE("K " + std::to_string(K) + " E " + std::to_string(E) + " rv " +
                     std::to_string(rv) + " n_cb " + std::to_string(n_cb) + " F " +
                     std::to_string(F));
        const lte_turbo_rate_matching rm(K, E, rv, n_cb, F);
        const auto ref = reference_rate_matching(K, E, rv, n_cb, F);
        ASSERT_EQ(rm.output_to_stream().size(), ref.size());
        for (int j = 0; j < E; j++)
            ASSERT_EQ(int(rm.output_to_stream()[j]), ref[j]) << "bit " << j;
        EXPECT_EQ(rm.k_w(), Kw);
    }
    // K = 40: D = 44, R = 2, 20 dummy bits per stream; rv 0 starts at 2R = 4, rv 2 at
    // R (2 ceil(192 / 16) 2 + 2) = 100.
    const lte_turbo_rate_matching a(40, 132, 0), b(40, 132, 2);
    EXPECT_EQ(a.rows(), 2);
    EXPECT_EQ(a.k0(), 4);
    EXPECT_EQ(b.k0(), 100);
}

TEST(LteTurboRateMatching, FullLengthSendsEveryBitOnceAndRepetitionAdds)
{
    for (int K : { 40, 512, 6144 }) {
        const int S = 3 * (K + 4);
        const lte_turbo_rate_matching once(K, S, 0);
        std::vector<int> seen(S, 0);
        for (uint32_t i : once.output_to_stream())
            seen[i]++;
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), S) << "K " << K;
        // 2.5 x the stream: every bit sent 2 or 3 times; de-rate-matching adds them.
        const lte_turbo_rate_matching rep(K, 5 * S / 2, 1);
        std::vector<float> e(rep.e(), 1.0f), stream(S, 0.0f);
        rep.derate_match(e.data(), stream.data());
        for (int i = 0; i < S; i++)
            ASSERT_TRUE(stream[i] == 2.0f || stream[i] == 3.0f) << "K " << K << " " << i;
        EXPECT_NEAR(std::accumulate(stream.begin(), stream.end(), 0.0), 5.0 * S / 2, 0.5);
    }
}

TEST(LteTurboRateMatching, BadParametersThrowNamingAllowedValues)
{
    expect_error([] { lte_turbo_rate_matching(41, 100); }, { "allowed: 40..512" });
    expect_error([] { lte_turbo_rate_matching(40, 0); }, { "allowed: e >= 1" });
    expect_error([] { lte_turbo_rate_matching(40, 100, 4); }, { "allowed: 0..3" });
    expect_error([] { lte_turbo_rate_matching(40, 100, 0, 1000); }, { "K_w = 192" });
    expect_error([] { lte_turbo_rate_matching(40, 100, 0, 0, 20); }, { "0..K-24" });
}

TEST(LteTurboRateMatching, CodeWithEEncodesTheRateMatchedStreams)
{
    // lte_turbo_code(k, crc24b, e, rv): coded_bits() = e and the encoder writes the
    // rate matcher's selection of the three streams.
    std::mt19937 rng(9);
    for (int rv = 0; rv < 4; rv++) {
        const lte_turbo_code code(512, true, 1300, rv), plain(512, true);
        ASSERT_NE(code.rate_matching(), nullptr);
        EXPECT_EQ(code.coded_bits(), 1300u);
        EXPECT_EQ(code.stream_total(), 3u * 512 + 12);
        const auto payload = random_bits(rng, code.info_bits());
        const auto streams = encode(plain, payload);
        std::vector<uint8_t> want(1300), got(1300);
        lte_turbo_rate_matching(512, 1300, rv).rate_match(streams.data(), want.data());
        lte_turbo_encode(code, payload.data(), got.data());
        EXPECT_EQ(got, want) << "rv " << rv;
    }
    EXPECT_EQ(lte_turbo_code(512).rate_matching(), nullptr);
    expect_error([] { lte_turbo_code(512, false, 0, 2); }, { "rv = 0" });
    expect_error([] { lte_turbo_code(512, false, -5); }, { "e >= 1" });
}

// ---- transport blocks (TS 36.212 5.1.1 - 5.1.5) -----------------------------------

TEST(LteTransportBlock, Crc24aByLongDivision)
{
    // CRC24A (5.1.1) against the polynomial division written out, and appending it
    // leaves remainder 0.
    const int g[] = { 24, 23, 18, 17, 14, 11, 10, 7, 6, 5, 4, 3, 1, 0 };
    std::mt19937 rng(4);
    for (int n : { 1, 16, 100, 6120 }) {
        auto a = random_bits(rng, n);
        std::vector<uint8_t> rem(a);
        rem.resize(n + 24, 0);
        for (int i = 0; i < n; i++)
            if (rem[i])
                for (int d : g)
                    rem[i + 24 - d] ^= 1;
        const uint32_t p = crc24a(a.data(), a.size());
        for (int j = 0; j < 24; j++)
            EXPECT_EQ((p >> (23 - j)) & 1u, rem[n + j]) << "n " << n << " bit " << j;
        for (int j = 0; j < 24; j++)
            a.push_back((p >> (23 - j)) & 1u);
        EXPECT_EQ(crc24a(a.data(), a.size()), 0u);
    }
}

TEST(LteTransportBlock, SegmentationAndBlockSizes)
{
    struct expect_t {
        int tbs, C, k_plus, k_minus, c_minus, F;
    };
    // Worked from 5.1.2: B = tbs + 24; B > 6144: C = ceil(B / 6120), B' = B + 24 C; K+
    // the smallest size with C K+ >= B'; K- the size below; C- = floor((C K+ - B') /
    // (K+ - K-)); F = C+ K+ + C- K- - B'.
    for (const expect_t& x : { expect_t{ 16, 1, 40, 0, 0, 0 },
                               expect_t{ 6120, 1, 6144, 0, 0, 0 },
                               expect_t{ 6121, 2, 3136, 3072, 1, 15 },
                               expect_t{ 75376, 13, 5824, 5760, 0, 0 },
                               expect_t{ 1000, 1, 1024, 0, 0, 0 } }) {
        const lte_transport_block tb(x.tbs, 26 * 1000 * 4);
        SCOPED_TRACE("tbs " + std::to_string(x.tbs));
        EXPECT_EQ(tb.blocks(), x.C);
        EXPECT_EQ(tb.k_plus(), x.k_plus);
        EXPECT_EQ(tb.k_minus(), x.k_minus);
        EXPECT_EQ(tb.blocks_minus(), x.c_minus);
        EXPECT_EQ(tb.filler_bits(), x.F);
        EXPECT_EQ(tb.block(0).filler_bits(), x.F);
    }
    // Random sizes: the blocks hold B' + F bits, each K an LTE size, K- blocks first,
    // CRC24B on each block when C > 1, E_r adding up to G in steps of N_L Q_m.
    std::mt19937 rng(8);
    for (int t = 0; t < 200; t++) {
        const int tbs = 16 + static_cast<int>(rng() % 100000);
        const int layers = 1 << (rng() % 3), qm = 2 * (1 + rng() % 4);
        const int C0 = (tbs + 24 + 6119) / 6120;
        const int g = layers * qm * (C0 + static_cast<int>(rng() % 40000));
        const lte_transport_block tb(tbs, g, t % 4, layers, qm);
        const int C = tb.blocks(), L = C > 1 ? 24 : 0;
        long held = 0;
        int e_sum = 0, e_min = 1 << 30, e_max = 0;
        for (int r = 0; r < C; r++) {
            const lte_turbo_code& code = tb.block(r);
            EXPECT_TRUE(lte_turbo_code::is_valid_k(code.k()));
            EXPECT_EQ(code.k(), r < tb.blocks_minus() ? tb.k_minus() : tb.k_plus());
            EXPECT_EQ(code.crc24b(), C > 1);
            held += code.k() - L;
            const int e = static_cast<int>(code.coded_bits());
            EXPECT_EQ(e % (layers * qm), 0);
            EXPECT_EQ(tb.offset(r), e_sum);
            e_sum += e;
            e_min = std::min(e_min, e);
            e_max = std::max(e_max, e);
        }
        EXPECT_EQ(held, long(tbs) + 24 + tb.filler_bits()) << "tbs " << tbs;
        EXPECT_LT(tb.filler_bits(), C > 1 ? tb.k_plus() - tb.k_minus() : 64); // a step
        EXPECT_EQ(e_sum, g);
        EXPECT_LE(e_max - e_min, layers * qm);
    }
    expect_error([] { lte_transport_block(15, 1000); }, { "tbs >= 16" });
    expect_error([] { lte_transport_block(100, 1001); }, { "multiple of layers * qm" });
    expect_error([] { lte_transport_block(100, 1000, 0, 3); }, { "1, 2, 4" });
}
