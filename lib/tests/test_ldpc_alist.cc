/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// LDPC codes from alist files: parsing (and its errors), rank and encoders against
// independent references (Hamming code, a plain GF(2) rank, the NR encoder), the
// layered decoder (noiseless, BER of the 802.11n n = 648 code against the NR decoder),
// and gr-fec's shipped alist files when installed.
#include <gpufec/ldpc_alist.h>

#include "ldpc_test_codes.h"
#include "test_helpers.h"
#include <gtest/gtest.h>

#include <dirent.h>
#include <type_traits>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace gpufec;
using gpufec::test::bit_errors;
using gpufec::test::decode_all;
using gpufec::test::expand;
using gpufec::test::expect_error;
using gpufec::test::frame_errors;
using gpufec::test::hamming_alist;
using gpufec::test::ira_rows;
using gpufec::test::ldpc_opts;
using gpufec::test::noiseless;
using gpufec::test::plain_alist;
using gpufec::test::random_bits;
using gpufec::test::trial;
using gpufec::test::wifi_648;
using gpufec::test::wifi_648_base;

namespace {

// Rank over GF(2) by plain row reduction on one byte per bit (the reference).
int gf2_rank(int n, const std::vector<std::vector<int>>& rows)
{
    std::vector<std::vector<uint8_t>> h(rows.size(), std::vector<uint8_t>(n, 0));
    for (size_t r = 0; r < rows.size(); r++)
        for (int c : rows[r])
            h[r][c] = 1;
    int rank = 0;
    for (int c = 0; c < n && rank < static_cast<int>(h.size()); c++) {
        size_t p = rank;
        while (p < h.size() && !h[p][c])
            p++;
        if (p == h.size())
            continue;
        std::swap(h[p], h[rank]);
        for (size_t r = 0; r < h.size(); r++)
            if (r != static_cast<size_t>(rank) && h[r][c])
                for (int x = 0; x < n; x++)
                    h[r][x] ^= h[rank][x];
        rank++;
    }
    return rank;
}

trial make_trial(const ldpc_alist_code& code, int frames, double ebn0_db, uint64_t seed)
{
    return gpufec::test::make_trial(code, code.n(), frames, ebn0_db, seed);
}

// Encodes random info words: H c = 0 and the info bits sit at info_positions().
void check_encoder(const ldpc_alist_code& code, int words, uint32_t seed)
{
    std::mt19937 rng(seed);
    const auto& pos = code.info_positions();
    ASSERT_EQ(pos.size(), static_cast<size_t>(code.k()));
    EXPECT_TRUE(std::is_sorted(pos.begin(), pos.end()));
    for (int w = 0; w < words; w++) {
        const auto info = random_bits(rng, code.k());
        std::vector<uint8_t> c(code.n(), 7);
        code.encode(info.data(), c.data());
        for (int i = 0; i < code.k(); i++)
            ASSERT_EQ(c[pos[i]], info[i]) << code.describe();
        for (const auto& row : code.check_rows()) {
            int s = 0;
            for (int col : row) {
                ASSERT_LE(c[col], 1);
                s ^= c[col];
            }
            ASSERT_EQ(s, 0) << code.describe();
        }
        EXPECT_TRUE(code.is_codeword(c.data()));
        c[pos[w % code.k()]] ^= 1; // one flipped info bit breaks some check
        bool covered = false;
        for (const auto& row : code.check_rows())
            covered |= std::binary_search(row.begin(), row.end(), pos[w % code.k()]);
        if (covered)
            EXPECT_FALSE(code.is_codeword(c.data()));
    }
}

void check_noiseless(const ldpc_alist_code& code, int frames, uint64_t seed)
{
    const trial t = make_trial(code, frames, noiseless, seed);
    for (auto a : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 })
        for (auto alg : { ldpc_algorithm::normalized, ldpc_algorithm::offset }) {
            auto dec = make_ldpc_decoder_cpu(code, ldpc_opts(a, alg));
            const auto d = decode_all(*dec, t.llrs, code.k());
            SCOPED_TRACE(dec->name());
            EXPECT_EQ(bit_errors(t, d), 0u);
            for (size_t f = 0; f < t.info.size(); f++) {
                EXPECT_TRUE(d.status[f].ok);
                EXPECT_EQ(d.status[f].iterations, 1);
                for (int i = 0; i < code.k(); i++) // soft output: sign of the bit
                    ASSERT_EQ(d.soft[f][i] < 0, t.info[f][i] == 1);
            }
        }
}

} // namespace

TEST(LdpcAlist, ParsesHammingCode)
{
    const auto code = ldpc_alist_code::from_alist_text(hamming_alist, "hamming");
    EXPECT_EQ(code.n(), 7);
    EXPECT_EQ(code.m(), 3);
    EXPECT_EQ(code.k(), 4);
    EXPECT_EQ(code.rank(), 3);
    EXPECT_EQ(code.edges(), 12u);
    const std::vector<std::vector<int>> h = { { 0, 1, 3, 4 },
                                              { 0, 2, 3, 5 },
                                              { 1, 2, 3, 6 } };
    EXPECT_EQ(code.check_rows(), h);
    EXPECT_EQ(code.info_positions(), (std::vector<int>{ 0, 1, 2, 3 }));
    EXPECT_TRUE(code.triangular_encoder());
    EXPECT_EQ(code.describe(), "LDPC alist n=7 k=4 (hamming)");
    // Every row shares column 4 (index 3) with the others: one layer per row.
    EXPECT_EQ(code.layers().size(), 3u);

    // The 16 codewords are distinct, satisfy H and have minimum weight 3.
    std::vector<std::vector<uint8_t>> words;
    for (int u = 0; u < 16; u++) {
        const uint8_t info[4] = {
            uint8_t(u >> 3 & 1), uint8_t(u >> 2 & 1), uint8_t(u >> 1 & 1), uint8_t(u & 1)
        };
        std::vector<uint8_t> c(7);
        code.encode(info, c.data());
        EXPECT_TRUE(code.is_codeword(c.data()));
        words.push_back(c);
        if (u)
            EXPECT_GE(std::count(c.begin(), c.end(), 1), 3);
    }
    std::sort(words.begin(), words.end());
    EXPECT_EQ(std::unique(words.begin(), words.end()), words.end());

    // Unpadded lists, odd spacing and the library's own writer read back the same H.
    const auto again =
        ldpc_alist_code::from_alist_text(plain_alist(7, h) + "\n\n", "plain");
    EXPECT_EQ(again.check_rows(), h);
    const auto round = ldpc_alist_code::from_alist_text(code.to_alist_text());
    EXPECT_EQ(round.check_rows(), h);
    EXPECT_EQ(code.to_alist_text(), std::string(hamming_alist));
}

// First fit in row order: a row joins the first layer it shares no column with, even
// one before the layer of an earlier row.
TEST(LdpcAlist, LayersAreFirstFit)
{
    const auto code = ldpc_alist_code::from_check_rows(
        6, { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 4, 5 }, {} });
    EXPECT_EQ(code.layers(), (std::vector<std::vector<int>>{ { 0, 2, 3 }, { 1 } }));
    EXPECT_EQ(code.k(), 2);
    EXPECT_EQ(code.info_positions(), (std::vector<int>{ 0, 4 }));
    check_noiseless(code, 2, 1);
}

TEST(LdpcAlist, MalformedInputThrowsWithLine)
{
    auto parse = [](std::string text) {
        return [text] { ldpc_alist_code::from_alist_text(text, "bad.alist"); };
    };
    const std::string h = hamming_alist;
    auto replace = [&](const std::string& from, const std::string& to) {
        std::string s = h;
        const size_t p = s.find(from);
        EXPECT_NE(p, std::string::npos) << from;
        return s.replace(p, from.size(), to);
    };
    // Truncated before the row lists.
    expect_error(parse(h.substr(0, h.find("1 2 4 5"))),
                 { "bad.alist", "line 12", "end of file", "row 1" });
    expect_error(parse(replace("2 3 0\n1 2 3", "2 3 0\n1 x 3")),
                 { "line 8", "expected", "\"x\"" });
    expect_error(parse(replace("1 3 4 6", "1 3 4 9")), { "line 13", "column 9", "1..7" });
    expect_error(parse(replace("1 3 4 6", "1 3 3 6")), { "line 13", "twice" });
    expect_error(parse(replace("1 2 3\n1 0 0", "1 2 4\n1 0 0")),
                 { "line 8", "row 4", "allowed: 1..3" });
    expect_error(parse(replace("4 4 4\n", "4 4 3\n")), { "line 4", "add up" });
    expect_error(parse(replace("3 0 0\n1 2 4 5", "2 0 0\n1 2 4 5")),
                 { "line 13", "disagree", "row 2", "column 7" });
    expect_error(parse(h + "9\n"), { "line 15", "unexpected data" });
    expect_error(parse(replace("3 4\n", "2 4\n")), { "line 3", "weight 3", "0..2" });
    expect_error(parse("0 3\n"), { "line 1", "allowed" });
    expect_error(parse(""), { "line 1", "end of file" });
    expect_error([] { ldpc_alist_code::from_alist("/nonexistent/x.alist"); },
                 { "cannot open", "/nonexistent/x.alist" });
    expect_error(
        [] {
            ldpc_alist_code::from_check_rows(4, { { 0, 4 } });
        },
        { "column 4", "0..3" });
    // H of full column rank leaves no information bits.
    expect_error(
        [] {
            ldpc_alist_code::from_check_rows(2, { { 0 }, { 1 } });
        },
        { "rank(H) < n" });
}

// Rank-deficient H (like CCSDS C2): k = n - rank, and the dependent rows still hold.
TEST(LdpcAlist, RankDeficientMatrix)
{
    auto rows = expand(wifi_648_base(), 27);
    const int m0 = static_cast<int>(rows.size());
    // Append the sum of rows 0, 30 and 300 and a copy of row 5: two dependent rows.
    std::vector<uint8_t> sum(648, 0);
    for (int r : { 0, 30, 300 })
        for (int c : rows[r])
            sum[c] ^= 1;
    std::vector<int> extra;
    for (int c = 0; c < 648; c++)
        if (sum[c])
            extra.push_back(c);
    rows.insert(rows.begin() + 100, extra); // in the middle, so no end is triangular
    rows.push_back(rows[5]);
    const auto code = ldpc_alist_code::from_check_rows(648, rows, "deficient");
    EXPECT_EQ(code.m(), m0 + 2);
    EXPECT_EQ(code.rank(), gf2_rank(648, rows));
    EXPECT_EQ(code.rank(), m0);
    EXPECT_EQ(code.k(), 648 - m0);
    EXPECT_FALSE(code.triangular_encoder());
    EXPECT_NE(code.describe().find("m=326"), std::string::npos) << code.describe();
    check_encoder(code, 20, 3);
    check_noiseless(code, 3, 4);
}

TEST(LdpcAlist, Wifi648MatchesStandardStructure)
{
    const auto code = wifi_648();
    EXPECT_EQ(code.n(), 648);
    EXPECT_EQ(code.m(), 324);
    EXPECT_EQ(code.k(), 324);
    EXPECT_EQ(code.rank(), gf2_rank(648, code.check_rows()));
    EXPECT_EQ(code.edges(), 2376u);          // 88 nonzero blocks of Z = 27
    EXPECT_FALSE(code.triangular_encoder()); // first parity column has weight 3
    // Full-rank parity part at the end: the info bits come first, as in 802.11n.
    for (int i = 0; i < 324; i++)
        ASSERT_EQ(code.info_positions()[i], i);
    // Every block row touches block column 0, so each is one layer of 27 rows.
    ASSERT_EQ(code.layers().size(), 12u);
    for (const auto& l : code.layers())
        EXPECT_EQ(l.size(), 27u);
    check_encoder(code, 50, 1);
    check_noiseless(code, 4, 2);
}

// The Gauss-Jordan encoder on a 5G NR parity-check matrix gives the NR encoder's
// codewords (the parity of a full-rank parity part is unique), an independent reference.
TEST(LdpcAlist, EncoderMatchesNrEncoder)
{
    for (int bg : { 1, 2 }) {
        const nr_ldpc_code nr(bg, 24);
        const int z = nr.z();
        std::vector<std::vector<int>> rows(nr.parity_checks());
        for (const auto& c : nr.circulants())
            for (int r = 0; r < z; r++)
                rows[c.row * z + r].push_back(c.col * z + (r + c.shift) % z);
        const auto code =
            ldpc_alist_code::from_check_rows(nr.codeword_bits(), rows, "nr");
        ASSERT_EQ(code.k(), nr.k());
        for (int i = 0; i < code.k(); i++)
            ASSERT_EQ(code.info_positions()[i], i);
        std::mt19937 rng(bg);
        for (int w = 0; w < 10; w++) {
            const auto info = random_bits(rng, nr.k());
            std::vector<uint8_t> a(nr.codeword_bits()), b(nr.codeword_bits());
            nr.encode_full(info.data(), a.data());
            code.encode(info.data(), b.data());
            ASSERT_EQ(a, b) << "bg " << bg;
        }
    }
}

// A DVB-S2-sized IRA code (n = 64800, rate 1/2): the triangular parity part is found
// and encoded by substitution, without elimination (m * n is above its limit).
TEST(LdpcAlist, LargeIraCodeEncodesBySubstitution)
{
    const int n = 64800, m = 32400;
    const auto t0 = std::chrono::steady_clock::now();
    const auto code = ldpc_alist_code::from_check_rows(n, ira_rows(n, m, 3, 9), "ira");
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "IRA n=%d: construction %.3f s, %zu layers\n", n, s, code.layers().size());
    EXPECT_TRUE(code.triangular_encoder());
    EXPECT_EQ(code.k(), n - m);
    for (int i = 0; i < code.k(); i++)
        ASSERT_EQ(code.info_positions()[i], i);
    check_encoder(code, 3, 5);
    const trial t = make_trial(code, 2, noiseless, 6);
    const auto d = decode_all(*make_ldpc_decoder_cpu(code, {}), t.llrs, code.k());
    EXPECT_EQ(bit_errors(t, d), 0u);
    EXPECT_TRUE(d.status[0].ok);
    // Parity first with an upper-triangular part: pivots are each row's smallest column.
    auto rows = ira_rows(2000, 1000, 3, 2);
    for (auto& r : rows)
        for (int& c : r)
            c = 1999 - c;
    const auto flipped = ldpc_alist_code::from_check_rows(2000, rows, "flipped");
    EXPECT_TRUE(flipped.triangular_encoder());
    EXPECT_EQ(flipped.info_positions().front(), 1000);
    check_encoder(flipped, 5, 7);
}

TEST(LdpcAlist, LargeNonTriangularMatrixThrowsNamingTheLimit)
{
    std::mt19937 rng(3);
    const int n = 40000, m = 20000;
    std::vector<std::vector<int>> rows(m);
    for (auto& r : rows)
        for (int j = 0; j < 6; j++)
            r.push_back(static_cast<int>(rng() % n));
    for (auto& r : rows) {
        std::sort(r.begin(), r.end());
        r.erase(std::unique(r.begin(), r.end()), r.end());
    }
    rows[1] = rows[0]; // two rows with the same largest and smallest column
    expect_error([&] { ldpc_alist_code::from_check_rows(n, rows, "big"); },
                 { "big", "20000 x 40000", "not triangular", "m * n <=" });
}

// 802.11n n = 648 rate 1/2, 10 iterations, normalised min-sum, at Eb/N0 = 2.0 dB (on
// the waterfall, so the count is informative). Reference: the NR decoder (same
// check-node arithmetic) on the 5G NR code of the same size and rate, BG2 Z = 32 k = 320
// e = 640, over the same channel. Measured with 2000 frames: int8 FER 86/2000 (BER
// 8.6e-4) for 802.11n vs 76/2000 (BER 2.5e-3) for NR; 0.55% vs 0.15% FER at 2.5 dB, none
// at 3.0 dB. Bounds: BER <= 2e-3, FER <= 8%, and at most twice the NR failures (+10).
TEST(LdpcAlist, Wifi648BerAgainstNrDecoder)
{
    const auto code = wifi_648();
    const int frames = 1000;
    const double ebn0 = 2.0;
    const trial t = make_trial(code, frames, ebn0, 2026);
    int fails[2] = { 0, 0 };
    int a = 0;
    for (auto arith : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 }) {
        auto dec = make_ldpc_decoder_cpu(code, ldpc_opts(arith));
        const auto d = decode_all(*dec, t.llrs, code.k());
        const size_t errors = bit_errors(t, d);
        const double bits = static_cast<double>(frames) * code.k();
        const int failed = static_cast<int>(frame_errors(t, d));
        fails[a++] = failed;
        std::printf("%s at %.1f dB: %zu bit errors in %.0f bits (BER %.2e), FER %d/%d\n",
                    dec->name().c_str(),
                    ebn0,
                    errors,
                    bits,
                    errors / bits,
                    failed,
                    frames);
        EXPECT_LE(errors / bits, 2e-3) << dec->name();
        EXPECT_LE(failed, frames * 8 / 100) << dec->name();
    }
    // The NR reference.
    const nr_ldpc_code nr(2, 32, 0, 640);
    const trial nr_t = gpufec::test::make_trial(nr, nr.e(), frames, ebn0, { 7, 8 });
    const int nr_fails = static_cast<int>(frame_errors(
        nr_t,
        decode_all(*make_ldpc_decoder_cpu(nr, ldpc_opts(ldpc_arithmetic::int8)),
                   nr_t.llrs,
                   nr.k())));
    std::printf(
        "NR BG2 k=320 e=640 int8 at %.1f dB: FER %d/%d\n", ebn0, nr_fails, frames);
    EXPECT_GE(nr_fails, 10); // the reference is on its waterfall too
    for (int f : fails)
        EXPECT_LE(f, 2 * nr_fails + 10);
}

// A plain per-row implementation of the documented schedule (ldpc_cpu.cc): layers
// in order, rows one by one, scalar minima. The decoder under test vectorises across the
// rows of a layer; results must agree exactly (bits, soft values, iterations).
struct reference_result {
    std::vector<float> soft; // APP of the info bits
    frame_status status;
};

template <typename T>
reference_result reference_decode(const ldpc_alist_code& code,
                                  const std::vector<llr8_t>& in,
                                  const ldpc_decoder_options& o)
{
    const bool int8 = std::is_integral<T>::value;
    auto sat = [&](T x) { return int8 ? std::max<T>(-32000, std::min<T>(32000, x)) : x; };
    auto mag = [&](T m) -> T {
        const T capped = std::min<T>(m, int8 ? T(127) : T(1e6));
        if (o.algorithm == ldpc_algorithm::normalized)
            return int8 ? T((int(capped) * int(std::lround(o.alpha * 16))) >> 4)
                        : T(capped * o.alpha);
        return std::max<T>(capped - (int8 ? T(std::lround(o.beta)) : T(o.beta)), T(0));
    };
    const auto& rows = code.check_rows();
    std::vector<T> L(in.begin(), in.end());
    std::vector<std::vector<T>> R(rows.size());
    for (size_t r = 0; r < rows.size(); r++)
        R[r].assign(rows[r].size(), T(0));
    reference_result res;
    res.status = { 0, false };
    for (int it = 0; it < o.iterations; it++) {
        for (const auto& layer : code.layers())
            for (int r : layer) {
                const auto& row = rows[r];
                std::vector<T> q(row.size());
                T min1 = int8 ? T(32767) : T(3e38), min2 = min1;
                size_t pos = 0;
                bool neg = false;
                for (size_t j = 0; j < row.size(); j++) {
                    q[j] = sat(L[row[j]] - R[r][j]);
                    const T a = q[j] < 0 ? T(-q[j]) : q[j];
                    neg ^= q[j] < 0;
                    if (a < min1) {
                        min2 = min1;
                        min1 = a;
                        pos = j;
                    } else if (a < min2) {
                        min2 = a;
                    }
                }
                for (size_t j = 0; j < row.size(); j++) {
                    const T m = mag(j == pos ? min2 : min1);
                    const T rn = (neg ^ (q[j] < 0)) ? T(-m) : m;
                    R[r][j] = rn;
                    L[row[j]] = sat(q[j] + rn);
                }
            }
        res.status.iterations = it + 1;
        std::vector<uint8_t> hard(L.size());
        for (size_t v = 0; v < L.size(); v++)
            hard[v] = L[v] < 0;
        res.status.ok = code.is_codeword(hard.data());
        if (res.status.ok && o.early_termination)
            break;
    }
    for (int p : code.info_positions())
        res.soft.push_back(static_cast<float>(L[p]));
    return res;
}

TEST(LdpcAlist, MatchesPlainReferenceDecoder)
{
    std::vector<ldpc_alist_code> codes = { wifi_648() };
    const std::string grfec = "/usr/share/gnuradio/fec/ldpc/n_0300_k_0122_gap_06.alist";
    if (std::ifstream(grfec))
        codes.push_back(ldpc_alist_code::from_alist(grfec)); // irregular rows
    else
        codes.push_back(ldpc_alist_code::from_alist_text(hamming_alist));
    for (const auto& code : codes)
        for (auto a : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 })
            for (auto alg : { ldpc_algorithm::normalized, ldpc_algorithm::offset })
                for (bool et : { true, false }) {
                    const auto o = ldpc_opts(a, alg, et);
                    auto dec = make_ldpc_decoder_cpu(code, o);
                    SCOPED_TRACE(dec->name() + (et ? " ET" : ""));
                    const trial t = make_trial(code, 30, 1.5, 40);
                    const auto d = decode_all(*dec, t.llrs, code.k());
                    int failed = 0;
                    for (size_t f = 0; f < t.llrs.size(); f++) {
                        std::vector<float> soft;
                        frame_status st;
                        if (a == ldpc_arithmetic::int8) {
                            const auto ref = reference_decode<int>(code, t.llrs[f], o);
                            soft = ref.soft;
                            st = ref.status;
                        } else {
                            const auto ref = reference_decode<float>(code, t.llrs[f], o);
                            soft = ref.soft;
                            st = ref.status;
                        }
                        ASSERT_EQ(d.soft[f], soft) << "frame " << f;
                        EXPECT_EQ(d.status[f].iterations, st.iterations);
                        EXPECT_EQ(d.status[f].ok, st.ok);
                        failed += !st.ok;
                        for (int i = 0; i < code.k(); i++)
                            ASSERT_EQ(d.bits[f][i], d.soft[f][i] < 0);
                    }
                    if (code.n() > 100)
                        EXPECT_GT(failed, 0); // some frames exercise the full loop
                }
}

// The int8 path is deterministic: one thread or two, and the same bits again.
TEST(LdpcAlist, DeterministicAcrossThreads)
{
    const auto code = wifi_648();
    const trial t = make_trial(code, 10, 2.0, 3);
    auto dec = make_ldpc_decoder_cpu(code, {});
    const auto two = decode_all(*dec, t.llrs, code.k());
    const auto one = decode_all(*dec, t.llrs, code.k(), false);
    for (size_t f = 0; f < t.llrs.size(); f++) {
        EXPECT_EQ(one.bits[f], two.bits[f]);
        EXPECT_EQ(one.soft[f], two.soft[f]);
        EXPECT_EQ(one.status[f].iterations, two.status[f].iterations);
        EXPECT_EQ(one.status[f].ok, two.status[f].ok);
    }
}

TEST(LdpcAlist, DecoderOptionsAndLengths)
{
    const auto code = ldpc_alist_code::from_alist_text(hamming_alist, "hamming");
    ldpc_decoder_options o;
    o.iterations = 0;
    expect_error([&] { make_ldpc_decoder_cpu(code, o); }, { "1..100" });
    o = {};
    o.alpha = 0.0f;
    expect_error([&] { make_ldpc_decoder_cpu(code, o); }, { "0 < alpha <= 1" });
    auto dec = make_ldpc_decoder_cpu(code, {});
    EXPECT_TRUE(dec->has_soft_output());
    EXPECT_EQ(dec->default_input_items(), 7u);
    EXPECT_EQ(dec->default_output_bits(), 4u);
    expect_error([&] { dec->output_bits_for_input(8); }, { "e = 7" });
    EXPECT_NE(dec->name().find("n=7 k=4"), std::string::npos) << dec->name();
    // A single error in a Hamming codeword is corrected.
    const uint8_t info[4] = { 1, 0, 1, 1 };
    std::vector<uint8_t> c(7);
    code.encode(info, c.data());
    for (int e = 0; e < 7; e++) {
        std::vector<llr8_t> llr(7);
        for (int i = 0; i < 7; i++)
            llr[i] = static_cast<llr8_t>((c[i] ^ (i == e)) ? -20 : 20);
        llr[e] /= 2; // the flipped bit is the least reliable
        const auto d = decode_all(*dec, { llr }, 4);
        EXPECT_EQ(d.bits[0], std::vector<uint8_t>(info, info + 4)) << "error at " << e;
        EXPECT_TRUE(d.status[0].ok);
    }
}

// gr-fec ships alist files (Debian: /usr/share/gnuradio/fec/ldpc/); load them all and
// encode. The parity-check files "n_NNNN_k_KKKK_gap_GG" (gr-fec's ldpc_H_matrix, whose
// codeword is [p1 p2 s]) must give k = KKKK with the info bits last, as gr-fec puts
// them, and decode at 4 dB; the *gen_matrix* files are generator matrices for gr-fec's
// ldpc_G_matrix, read here only as alist text.
TEST(LdpcAlist, GrFecFiles)
{
    const std::string dir = "/usr/share/gnuradio/fec/ldpc/";
    DIR* dp = opendir(dir.c_str());
    if (!dp)
        GTEST_SKIP() << dir << " not installed";
    std::vector<std::string> names;
    while (dirent* e = readdir(dp))
        if (e->d_name[0] != '.')
            names.push_back(e->d_name);
    closedir(dp);
    std::sort(names.begin(), names.end());
    int parity_check_files = 0;
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        const auto code = ldpc_alist_code::from_alist(dir + name);
        std::printf("%-32s %s, %zu layers, %s encoder\n",
                    name.c_str(),
                    code.describe().c_str(),
                    code.layers().size(),
                    code.triangular_encoder() ? "substitution" : "elimination");
        EXPECT_EQ(code.rank(), code.n() - code.k());
        if (code.n() <= 2000)
            EXPECT_EQ(code.rank(), gf2_rank(code.n(), code.check_rows()));
        check_encoder(code, 5, 11);
        int fn = 0, fk = 0, gap = 0;
        if (std::sscanf(name.c_str(), "n_%d_k_%d_gap_%d", &fn, &fk, &gap) != 3)
            continue;
        parity_check_files++;
        EXPECT_EQ(code.n(), fn);
        EXPECT_EQ(code.k(), fk);
        EXPECT_EQ(code.info_positions().front(), fn - fk);
        // 4 dB is above these codes' waterfalls: at most a few failed frames.
        const trial t = make_trial(code, 40, 4.0, 12);
        const auto d =
            decode_all(*make_ldpc_decoder_cpu(code, ldpc_opts(ldpc_arithmetic::int8)),
                       t.llrs,
                       code.k());
        EXPECT_LE(frame_errors(t, d), 4u);
    }
    EXPECT_GE(parity_check_files, 1);
}

// Single-thread throughput, 10 iterations, with and without early termination: gr-fec's
// n = 1800 code at 2.5 dB, 802.11n n = 648 at 2.5 dB, a DVB-S2-sized IRA code (n =
// 64800, rate 1/2, info columns of weight 3: a synthetic code, not DVB-S2's) at 2.5 dB.
// ./test_ldpc_alist --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'
TEST(LdpcAlist, DISABLED_Throughput)
{
    struct bench {
        ldpc_alist_code code;
        double ebn0;
        int frames;
    };
    std::vector<bench> benches;
    const std::string path = "/usr/share/gnuradio/fec/ldpc/n_1800_k_0902_gap_28.alist";
    if (std::ifstream(path))
        benches.push_back({ ldpc_alist_code::from_alist(path), 2.5, 2000 });
    benches.push_back({ wifi_648(), 2.5, 4000 });
    benches.push_back(
        { ldpc_alist_code::from_check_rows(64800, ira_rows(64800, 32400, 3, 9), "IRA"),
          2.5,
          50 });
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
