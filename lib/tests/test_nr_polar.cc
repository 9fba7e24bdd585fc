/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// 5G NR polar code: compiled-in tables, CRCs, parameters and the encoder chain against
// the Sionna-derived vectors in GPUFEC_VECTORS_DIR/nr_polar.
#include <gpufec/polar.h>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>

namespace {

using gpufec::nr_polar_code;
using gpufec::polar_crc;

bool is_dir(const std::string& p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<uint8_t> to_bits(const std::string& s)
{
    std::vector<uint8_t> v(s.size());
    for (size_t i = 0; i < s.size(); ++i)
        v[i] = s[i] == '1';
    return v;
}

// Reference CRC by polynomial long division of a(D) D^L by g(D) on an explicit bit array
// (generator given by its exponents), independent of the LFSR in the library.
std::vector<uint8_t> crc_by_division(const std::vector<uint8_t>& a,
                                     const std::vector<int>& exponents)
{
    const int L = *std::max_element(exponents.begin(), exponents.end());
    std::vector<uint8_t> g(L + 1, 0); // g[0] = coefficient of D^L
    for (int e : exponents)
        g[L - e] = 1;
    std::vector<uint8_t> r(a);
    r.resize(a.size() + L, 0);
    for (size_t i = 0; i < a.size(); ++i)
        if (r[i])
            for (int j = 0; j <= L; ++j)
                r[i + j] ^= g[j];
    return std::vector<uint8_t>(r.end() - L, r.end());
}

std::vector<uint8_t> parity_of(polar_crc c, const std::vector<uint8_t>& a)
{
    std::vector<uint8_t> p(gpufec::crc_length(c));
    gpufec::nr_crc_parity(c, a.data(), a.size(), p.data());
    return p;
}

bool is_permutation_of_range(std::vector<int> v)
{
    std::sort(v.begin(), v.end());
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i] != static_cast<int>(i))
            return false;
    return true;
}

TEST(NrPolarTables, ReliabilitySequence)
{
    const uint16_t* q = gpufec::nr_polar_reliability_sequence();
    const std::vector<int> head = { 0, 1, 2, 4, 8, 16, 32, 3, 5, 64, 9, 6 };
    for (size_t i = 0; i < head.size(); ++i)
        EXPECT_EQ(q[i], head[i]) << "Q_" << i;
    EXPECT_EQ(q[1023], 1023);
    EXPECT_TRUE(is_permutation_of_range(std::vector<int>(q, q + 1024)));
}

TEST(NrPolarTables, SubblockInterleaverPattern)
{
    const uint8_t* p = gpufec::nr_polar_subblock_pattern();
    const std::vector<int> expected = { 0,  1,  2,  4,  3,  5,  6,  7,  8,  16, 9,
                                        17, 10, 18, 11, 19, 12, 20, 13, 21, 14, 22,
                                        15, 23, 24, 25, 26, 28, 27, 29, 30, 31 };
    EXPECT_EQ(std::vector<int>(p, p + 32), expected);
}

TEST(NrPolarTables, MatchSharedDataFiles)
{
    const std::string data = std::string(GPUFEC_VECTORS_DIR) + "/..";
    std::ifstream rel(data + "/nr_polar_reliability.txt"),
        sub(data + "/nr_polar_subblock_interleaver.txt");
    if (!rel || !sub)
        GTEST_SKIP() << "standard tables not found next to " << GPUFEC_VECTORS_DIR;
    auto read = [](std::ifstream& in) {
        std::vector<int> col;
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#')
                continue;
            std::istringstream ls(line);
            int i, v;
            ls >> i >> v;
            col.push_back(v);
        }
        return col;
    };
    const uint16_t* q = gpufec::nr_polar_reliability_sequence();
    const uint8_t* p = gpufec::nr_polar_subblock_pattern();
    EXPECT_EQ(read(rel), std::vector<int>(q, q + 1024));
    EXPECT_EQ(read(sub), std::vector<int>(p, p + 32));
}

TEST(NrPolarTables, SubblockInterleaverIsPermutationWithBlocksOfN32)
{
    for (int N : { 32, 64, 128, 256, 512, 1024 }) {
        // Choose (k, e) so that N comes out as wanted: E = N, K small enough for R >= 1/8
        // not to bind.
        nr_polar_code code(std::max(1, N / 8 - 6), N, "crc6", false);
        ASSERT_EQ(code.N(), N);
        const auto& j = code.subblock_interleaver();
        EXPECT_TRUE(is_permutation_of_range(std::vector<int>(j.begin(), j.end())));
        const int sub = N / 32;
        const uint8_t* p = gpufec::nr_polar_subblock_pattern();
        for (int n = 0; n < N; ++n)
            ASSERT_EQ(j[n], p[n / sub] * sub + n % sub) << "N=" << N << " n=" << n;
    }
}

TEST(NrPolarCrc, MatchesLongDivision)
{
    const std::map<polar_crc, std::vector<int>> gens = {
        { polar_crc::crc6, { 6, 5, 0 } },
        { polar_crc::crc11, { 11, 10, 9, 5, 0 } },
        { polar_crc::crc24c, { 24, 23, 21, 20, 17, 15, 13, 12, 8, 4, 2, 1, 0 } },
    };
    std::mt19937 rng(11);
    for (const auto& [crc, exps] : gens) {
        for (int len : { 1, 7, 20, 64, 333, 1000 }) {
            std::vector<uint8_t> a(len);
            for (auto& b : a)
                b = rng() & 1;
            EXPECT_EQ(parity_of(crc, a), crc_by_division(a, exps))
                << gpufec::to_string(crc) << " len " << len;
        }
    }
}

TEST(NrPolarCrc, KnownAnswers)
{
    // A single 1 followed by zeros: the remainder of D^(L+m) mod g, worked by hand for m
    // = 0: D^L mod g(D) = g(D) - D^L, i.e. the generator's lower coefficients.
    EXPECT_EQ(parity_of(polar_crc::crc6, { 1 }),
              (std::vector<uint8_t>{ 1, 0, 0, 0, 0, 1 }));
    EXPECT_EQ(parity_of(polar_crc::crc11, { 1 }),
              (std::vector<uint8_t>{ 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1 }));
    EXPECT_EQ(parity_of(polar_crc::crc24c, { 1 }),
              to_bits("101100101011000100010111")); // 0xB2B117
    // Leading zeros do not change the remainder (register starts at 0); the all-zero
    // message has zero CRC.
    EXPECT_EQ(parity_of(polar_crc::crc11, { 0, 0, 0, 1 }),
              parity_of(polar_crc::crc11, { 1 }));
    EXPECT_EQ(parity_of(polar_crc::crc24c, std::vector<uint8_t>(50, 0)),
              std::vector<uint8_t>(24, 0));
    // A codeword a || crc(a) is divisible by g: its own CRC is zero.
    std::vector<uint8_t> a = to_bits("110110011101101001111011111010");
    auto c = a;
    const auto p = parity_of(polar_crc::crc11, a);
    c.insert(c.end(), p.begin(), p.end());
    EXPECT_EQ(parity_of(polar_crc::crc11, c), std::vector<uint8_t>(11, 0));
    // First message of the UCI vectors (E=45, A=30): CRC11 = 01011000100.
    EXPECT_EQ(p, to_bits("01011000100"));
}

TEST(NrPolarCode, MotherLengthAndRateMatchingMode)
{
    struct row {
        int a, e, N;
        gpufec::polar_rate_matching mode;
    };
    using gpufec::polar_rate_matching;
    // The five vector configurations (vectors/README.md) plus hand-worked 5.3.1 cases.
    const row rows[] = {
        { 30, 45, 64, polar_rate_matching::shortening },
        { 28, 70, 64, polar_rate_matching::repetition },
        { 32, 70, 128, polar_rate_matching::shortening },
        { 29, 127, 128, polar_rate_matching::puncturing },
        { 400, 1023, 1024, polar_rate_matching::puncturing },
        { 20, 8192, 256, polar_rate_matching::repetition }, // n2 = ceil(log2(8*31)) = 8
        { 1000, 1050, 1024, polar_rate_matching::repetition }, // n_max = 10 caps n1 = 11
    };
    for (const auto& r : rows) {
        nr_polar_code code(r.a, r.e);
        EXPECT_EQ(code.N(), r.N) << "A=" << r.a << " E=" << r.e;
        EXPECT_EQ(code.rate_matching(), r.mode) << "A=" << r.a << " E=" << r.e;
        EXPECT_EQ(code.K(), r.a + 11);
        EXPECT_EQ(static_cast<int>(code.info_positions().size()), code.K());
        EXPECT_EQ(std::count(code.frozen().begin(), code.frozen().end(), 0), code.K());
    }
}

TEST(NrPolarCode, PreFrozenPositionsNeverCarryInformation)
{
    // Shortening: outputs y_n for n >= E are dropped, so u at J(n) must be frozen; the
    // encoder then puts 0 there in d for every message (u_J(n) frozen and G_N lower
    // triangular).
    nr_polar_code sh(32, 70, "crc11", false);
    ASSERT_EQ(sh.rate_matching(), gpufec::polar_rate_matching::shortening);
    for (int n = sh.e(); n < sh.N(); ++n)
        EXPECT_TRUE(sh.frozen()[sh.subblock_interleaver()[n]]) << n;
    // Puncturing: J(n) for n < N-E and the low indices of 5.4.1.1 are frozen.
    nr_polar_code pu(29, 127, "crc11", false);
    ASSERT_EQ(pu.rate_matching(), gpufec::polar_rate_matching::puncturing);
    EXPECT_TRUE(pu.frozen()[pu.subblock_interleaver()[0]]);
    // E = 127 >= 3N/4 = 96: ceil(3N/4 - E/2) = ceil(32.5) = 33 lowest indices frozen.
    for (int i = 0; i < 33; ++i)
        EXPECT_TRUE(pu.frozen()[i]) << i;
}

TEST(NrPolarCode, ChannelInterleaverSmallCase)
{
    // E = 5: T = 3, rows {e0 e1 e2 / e3 e4 / NULL}, read by columns: e0 e3 e1 e4 e2.
    EXPECT_EQ(nr_polar_code::channel_interleaver_pattern(5),
              (std::vector<uint16_t>{ 0, 3, 1, 4, 2 }));
    auto p = nr_polar_code::channel_interleaver_pattern(1023);
    EXPECT_TRUE(is_permutation_of_range(std::vector<int>(p.begin(), p.end())));
}

TEST(NrPolarCode, OutputMapMatchesEncoder)
{
    nr_polar_code code(28, 70);
    std::mt19937 rng(3);
    std::vector<uint8_t> a(code.k()), c(code.K()), d(code.N());
    for (auto& b : a)
        b = rng() & 1;
    code.attach_crc(a.data(), c.data());
    code.polar_encode(c.data(), d.data());
    const auto f = code.encode(a);
    for (int i = 0; i < code.e(); ++i)
        EXPECT_EQ(f[i], d[code.output_to_codeword()[i]]) << i;
}

void expect_throw_naming(const std::function<void()>& fn, const std::string& needle)
{
    try {
        fn();
        ADD_FAILURE() << "no exception; expected one naming '" << needle << "'";
    } catch (const gpufec::error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(NrPolarCode, BadParametersThrowNamingAllowedValues)
{
    expect_throw_naming([] { nr_polar_code(40, 100, "crc16"); },
                        "\"crc11\", \"crc24c\", \"crc6\", \"none\"");
    expect_throw_naming([] { nr_polar_code(15, 100, "crc11"); }, "allowed: 20..1706");
    expect_throw_naming([] { nr_polar_code(1707, 4000, "crc11"); }, "allowed: 20..1706");
    // Two code blocks whose halves of e cannot hold K.
    expect_throw_naming([] { nr_polar_code(1013, 1030, "crc11"); }, "must be <= e");
    expect_throw_naming([] { nr_polar_code(40, 0); }, "allowed: 1..8192");
    expect_throw_naming([] { nr_polar_code(40, 8193); }, "allowed: 1..8192");
    expect_throw_naming([] { nr_polar_code(40, 45); }, "must be <= e");
    expect_throw_naming([] { nr_polar_code(0, 45, "none"); }, "allowed: k >= 1");
    expect_throw_naming([] { nr_polar_code(1010, 1100, "crc24c"); }, "<= 1024");
    nr_polar_code ok(40, 100);
    expect_throw_naming([&] { ok.encode(std::vector<uint8_t>(39)); }, "exactly k = 40");
}

TEST(NrPolarCode, ParityCheckBitsOfShortUci)
{
    // 12 <= A <= 19 with CRC6 (6.3.1.3.1, 5.3.1.2): n_PC = 3; n_PC^wm = 1 when E - K + 3
    // > 192. Q_I = the non-frozen positions (K + 3). Q_PC: the 3 - n_PC^wm least
    // reliable of Q_I, plus n_PC^wm of minimum row weight (2^popcount) among the others
    // but the 3 least reliable, the most reliable such. The encoded u carries the
    // payload and CRC on Q_I \ Q_PC in order and satisfies the standard's register
    // (run literally here) on Q_PC.
    const uint16_t* q = gpufec::nr_polar_reliability_sequence();
    std::mt19937 rng(5);
    int with_wm = 0;
    for (int a = 12; a <= 19; a++)
        for (int e : { 36, 60, 100, 190, 214, 215, 400, 1000 }) {
            if (e < a + 6 + 3)
                continue;
            const nr_polar_code code(a, e, "crc6");
            SCOPED_TRACE("A=" + std::to_string(a) + " E=" + std::to_string(e));
            const int K = a + 6, N = code.N();
            const int wm = e - K + 3 > 192 ? 1 : 0;
            ASSERT_EQ(code.pc_positions().size(), 3u);
            EXPECT_EQ(code.n_pc_min_weight(), wm);
            with_wm += wm;
            // Q_I in increasing reliability.
            std::vector<uint16_t> qi;
            for (int i = 0; i < 1024; i++)
                if (q[i] < N && !code.frozen()[q[i]])
                    qi.push_back(q[i]);
            ASSERT_EQ(qi.size(), size_t(K + 3));
            std::vector<uint16_t> expect(qi.begin(), qi.begin() + (3 - wm));
            if (wm) {
                int best = -1;
                for (size_t j = 3; j < qi.size(); j++)
                    if (best < 0 || __builtin_popcount(qi[j]) <=
                                        __builtin_popcount(qi[size_t(best)]))
                        best = int(j); // ties: the later (more reliable) one
                expect.push_back(qi[size_t(best)]);
            }
            std::sort(expect.begin(), expect.end());
            EXPECT_EQ(code.pc_positions(), expect);
            // Encode, and read u back (G_N is its own inverse).
            std::vector<uint8_t> payload(a);
            for (auto& b : payload)
                b = rng() & 1u;
            std::vector<uint8_t> c(K), u(N);
            code.attach_crc(payload.data(), c.data());
            code.polar_encode(c.data(), u.data());
            nr_polar_code::transform(u.data(), N);
            std::vector<uint8_t> is_pc(N, 0);
            for (uint16_t p : code.pc_positions())
                is_pc[p] = 1;
            uint8_t reg[5] = { 0, 0, 0, 0, 0 };
            int next = 0;
            for (int i = 0; i < N; i++) {
                std::rotate(reg, reg + 1, reg + 5);
                if (code.frozen()[i]) {
                    EXPECT_EQ(u[i], 0) << "frozen " << i;
                } else if (is_pc[i]) {
                    EXPECT_EQ(u[i], reg[0]) << "parity-check bit " << i;
                } else {
                    EXPECT_EQ(u[i], c[next++]) << "information bit " << i;
                    reg[0] ^= u[i];
                }
            }
            EXPECT_EQ(next, K);
        }
    EXPECT_GT(with_wm, 0); // both cases of n_PC^wm were seen
    // CRC6 with k >= 20 has no parity-check bits; CRC11 refuses 12..19, naming crc6.
    EXPECT_TRUE(nr_polar_code(20, 100, "crc6").pc_positions().empty());
    expect_throw_naming([] { nr_polar_code(15, 100, "crc11"); }, "crc6");
}

TEST(NrPolarVectors, UciChainBitExact)
{
    const std::string dir = std::string(GPUFEC_VECTORS_DIR) + "/nr_polar";
    if (!is_dir(dir))
        GTEST_SKIP() << dir << " not found";
    std::ifstream in(dir + "/nr_polar_uci_vectors.txt");
    ASSERT_TRUE(in) << "cannot open nr_polar_uci_vectors.txt in " << dir;

    std::map<std::pair<int, int>, std::unique_ptr<nr_polar_code>> codes, codes_no_ci;
    std::map<std::pair<int, int>, int> checked;
    std::vector<uint8_t> a, c, d, e;
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream ls(line);
        int E, A, cs;
        std::string field, bits;
        ASSERT_TRUE(static_cast<bool>(ls >> E >> A >> cs >> field >> bits)) << line;
        ++lines;
        const auto key = std::make_pair(E, A);
        if (!codes.count(key)) {
            codes[key] = std::make_unique<nr_polar_code>(A, E, "crc11");
            codes_no_ci[key] = std::make_unique<nr_polar_code>(A, E, "crc11", false);
        }
        const nr_polar_code& code = *codes[key];
        const auto want = to_bits(bits);
        const std::string where = "E=" + std::to_string(E) + " A=" + std::to_string(A) +
                                  " case " + std::to_string(cs) + " field " + field;
        if (field == "a") {
            ASSERT_EQ(static_cast<int>(want.size()), A) << where;
            a = want;
            c.assign(code.K(), 0);
            d.assign(code.N(), 0);
            e.assign(E, 0);
            code.attach_crc(a.data(), c.data());
            code.polar_encode(c.data(), d.data());
            code.rate_match(d.data(), e.data());
        } else if (field == "c") {
            ASSERT_EQ(c, want) << where;
        } else if (field == "d") {
            ASSERT_EQ(d, want) << where;
        } else if (field == "e") {
            ASSERT_EQ(e, want) << where;
            ASSERT_EQ(codes_no_ci[key]->encode(a), want)
                << where << " (channel_interleave = false)";
        } else if (field == "f") {
            std::vector<uint8_t> f(E);
            code.interleave_channel(e.data(), f.data());
            ASSERT_EQ(f, want) << where << " (step by step)";
            ASSERT_EQ(code.encode(a), want) << where << " (encode)";
            ++checked[key];
        } else {
            FAIL() << "unknown field in " << line;
        }
    }
    // 5 configurations x 100 messages x 5 fields.
    EXPECT_EQ(lines, 2500);
    EXPECT_EQ(checked.size(), 5u);
    for (const auto& [key, n] : checked)
        EXPECT_EQ(n, 100) << "E=" << key.first << " A=" << key.second;
}

} // namespace

// ---- downlink chains (TS 38.212 7.1 BCH, 7.3 DCI) ----------------------------------

TEST(NrPolarDownlink, InputInterleaverPattern)
{
    // Table 5.3.1.1-1 at K = 164, and Pi for smaller K: a permutation of 0..K-1 that
    // keeps the table's order of the entries >= 164 - K.
    const auto full = nr_polar_code::input_interleaver_pattern(164);
    ASSERT_EQ(full.size(), 164u);
    const std::vector<uint16_t> head = { 0, 2, 4, 7, 9, 14, 19, 20, 24, 25, 26, 28 };
    EXPECT_TRUE(std::equal(head.begin(), head.end(), full.begin()));
    EXPECT_EQ(full[66], 1); // the second run starts after 140
    EXPECT_EQ(full[163], 163);
    for (int K = 1; K <= 164; K++) {
        const auto pi = nr_polar_code::input_interleaver_pattern(K);
        ASSERT_EQ(static_cast<int>(pi.size()), K);
        std::vector<uint16_t> sorted = pi;
        std::sort(sorted.begin(), sorted.end());
        for (int i = 0; i < K; i++)
            ASSERT_EQ(sorted[i], i) << "K " << K;
        std::vector<uint16_t> kept;
        for (uint16_t v : full)
            if (v >= 164 - K)
                kept.push_back(static_cast<uint16_t>(v - (164 - K)));
        EXPECT_EQ(pi, kept) << "K " << K;
    }
    EXPECT_THROW(nr_polar_code::input_interleaver_pattern(165), gpufec::error);
}

TEST(NrPolarDownlink, DciCrcIsCrc24cOverOnesThenPayloadScrambledByRnti)
{
    // 7.3.2, against an independent long division: parity of (24 ones, a) by
    // g_CRC24C, its last 16 bits XOR the RNTI (most significant bit first).
    const std::vector<int> g24c = { 24, 23, 21, 20, 17, 15, 13, 12, 8, 4, 2, 1, 0 };
    std::mt19937 rng(17);
    for (int k : { 12, 39, 64, 140 }) {
        const int rnti = static_cast<int>(rng() % 65536);
        const nr_polar_code code = nr_polar_code::dci(k, 432, rnti);
        EXPECT_EQ(code.crc(), polar_crc::crc24c);
        EXPECT_EQ(code.rnti(), rnti);
        EXPECT_TRUE(code.input_interleave());
        EXPECT_FALSE(code.channel_interleave());
        EXPECT_EQ(code.n_max(), 9);
        std::vector<uint8_t> a(k);
        for (auto& b : a)
            b = rng() & 1;
        std::vector<uint8_t> ones_a(24 + a.size(), 1);
        std::copy(a.begin(), a.end(), ones_a.begin() + 24);
        std::vector<uint8_t> want = crc_by_division(ones_a, g24c);
        for (int i = 0; i < 16; i++)
            want[8 + i] ^= (rnti >> (15 - i)) & 1;
        std::vector<uint8_t> got(24);
        code.crc_parity(a.data(), got.data());
        EXPECT_EQ(got, want) << "k " << k;
        // BCH: the plain CRC24C.
        const nr_polar_code bch = nr_polar_code::bch(864, k);
        bch.crc_parity(a.data(), got.data());
        EXPECT_EQ(got, crc_by_division(a, g24c));
    }
}

TEST(NrPolarDownlink, SizesAndBitPositions)
{
    // n_max = 9: the MIB chain (K = 56, E = 864) and every DCI size use N <= 512; the
    // encoder puts c'_k = c_Pi(k) on the k-th information position.
    const nr_polar_code bch = nr_polar_code::bch();
    EXPECT_EQ(bch.k(), 32);
    EXPECT_EQ(bch.K(), 56);
    EXPECT_EQ(bch.e(), 864);
    EXPECT_EQ(bch.N(), 512);
    EXPECT_EQ(bch.rnti(), -1);
    for (int e : { 108, 216, 432, 864, 1728 }) {
        const nr_polar_code dci = nr_polar_code::dci(40, e, 0xFFFF);
        EXPECT_LE(dci.N(), 512) << e;
        const auto pi = nr_polar_code::input_interleaver_pattern(dci.K());
        for (int k = 0; k < dci.K(); k++)
            EXPECT_EQ(dci.bit_positions()[pi[k]], dci.info_positions()[k]);
        // One payload bit set: its u position, and nothing else among the payload.
        std::vector<uint8_t> a(40, 0), c(dci.K()), d(dci.N());
        a[7] = 1;
        dci.attach_crc(a.data(), c.data());
        std::fill(d.begin(), d.end(), 0);
        for (int j = 0; j < dci.K(); j++)
            d[dci.bit_positions()[j]] = c[j];
        std::vector<uint8_t> d2(dci.N());
        dci.polar_encode(c.data(), d2.data());
        nr_polar_code::transform(d.data(), dci.N());
        EXPECT_EQ(d, d2);
    }
    // Uplink codes: bit positions are the information positions.
    const nr_polar_code uci(100, 200);
    EXPECT_EQ(uci.bit_positions(), uci.info_positions());
    EXPECT_FALSE(uci.input_interleave());
    EXPECT_EQ(uci.n_max(), 10);
    EXPECT_THROW(nr_polar_code::dci(11, 108, 1), gpufec::error);
    EXPECT_THROW(nr_polar_code::dci(141, 1728, 1), gpufec::error);
    EXPECT_THROW(nr_polar_code::dci(40, 108, 65536), gpufec::error);
}

// ---- code-block segmentation (TS 38.212 5.2.1, 6.3.1.4, 6.3.1.5) ----------------------

TEST(NrPolarSegmentation, WhenAndHowThePayloadIsSplit)
{
    // I_seg = 1 for A >= 1013, or A >= 360 with E >= 1088: two blocks of A'/2 payload
    // bits (A' = A rounded up to even, a filler 0 in front) with CRC11 each, in
    // floor(E/2) coded bits, back to back; an odd E ends with a 0.
    struct shape {
        int k, e, segments, filler;
    };
    for (const shape sh : { shape{ 359, 2000, 1, 0 },
                            shape{ 360, 1087, 1, 0 },
                            shape{ 360, 1088, 2, 0 },
                            shape{ 401, 1500, 2, 1 },
                            shape{ 1012, 1087, 1, 0 },
                            shape{ 1013, 2001, 2, 1 },
                            shape{ 1706, 4000, 2, 0 } }) {
        SCOPED_TRACE("k " + std::to_string(sh.k) + " e " + std::to_string(sh.e));
        const nr_polar_code code(sh.k, sh.e, "crc11");
        ASSERT_EQ(code.segments(), sh.segments);
        if (sh.segments == 1) {
            EXPECT_EQ(&code.segment(), &code);
            continue;
        }
        EXPECT_EQ(code.filler_bits(), sh.filler);
        const nr_polar_code& b = code.segment();
        EXPECT_EQ(b.k(), (sh.k + sh.filler) / 2);
        EXPECT_EQ(b.e(), sh.e / 2);
        EXPECT_EQ(b.crc(), polar_crc::crc11);
        EXPECT_EQ(b.segments(), 1);
        EXPECT_EQ(code.K(), b.K());
        EXPECT_EQ(code.N(), b.N());
        EXPECT_EQ(code.info_positions(), b.info_positions());
        std::mt19937 rng(static_cast<uint32_t>(sh.k));
        std::vector<uint8_t> a(sh.k);
        for (auto& x : a)
            x = rng() & 1;
        const std::vector<uint8_t> out = code.encode(a);
        ASSERT_EQ(static_cast<int>(out.size()), sh.e);
        // The definition, spelled out: a' = (filler, a), halves through the block code.
        std::vector<uint8_t> a_prime(sh.filler, 0);
        a_prime.insert(a_prime.end(), a.begin(), a.end());
        const int half = static_cast<int>(a_prime.size()) / 2;
        std::vector<uint8_t> want;
        for (int r = 0; r < 2; r++) {
            const auto block = b.encode(std::vector<uint8_t>(
                a_prime.begin() + r * half, a_prime.begin() + (r + 1) * half));
            want.insert(want.end(), block.begin(), block.end());
        }
        if (sh.e % 2)
            want.push_back(0);
        EXPECT_EQ(out, want);
        std::vector<uint8_t> c(b.K());
        EXPECT_THROW(code.attach_crc(a.data(), c.data()), gpufec::error);
    }
}
