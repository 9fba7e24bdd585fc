/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// nr_ldpc_code: standard tables, H c = 0, srsRAN example vectors, rate matching,
// validation.
#include <gpufec/ldpc.h>

#include <gtest/gtest.h>
#include "test_helpers.h"

#include <algorithm>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;
using gpufec::test::random_bits;

namespace {

// Number of parity checks of H (lifted from the circulant list) that fail on cw.
int failed_checks(const nr_ldpc_code& code, const std::vector<uint8_t>& cw)
{
    const int z = code.z();
    std::vector<uint8_t> syndrome(code.parity_checks(), 0);
    for (const auto& c : code.circulants())
        for (int r = 0; r < z; r++)
            syndrome[c.row * z + r] ^= cw[c.col * z + (r + c.shift) % z];
    return static_cast<int>(std::count(syndrome.begin(), syndrome.end(), 1));
}

std::vector<uint8_t> encode_full(const nr_ldpc_code& code,
                                 const std::vector<uint8_t>& info)
{
    std::vector<uint8_t> cw(code.codeword_bits());
    code.encode_full(info.data(), cw.data());
    return cw;
}

std::vector<uint8_t> encode(const nr_ldpc_code& code, const std::vector<uint8_t>& info)
{
    std::vector<uint8_t> out(code.e());
    code.encode(info.data(), out.data());
    return out;
}

// The circular buffer without fillers, built directly from the definition.
std::vector<uint8_t> transmitted_bits(const nr_ldpc_code& code,
                                      const std::vector<uint8_t>& cw)
{
    std::vector<uint8_t> v;
    for (int i = 2 * code.z(); i < code.codeword_bits(); i++)
        if (i < code.k() || i >= code.k_max())
            v.push_back(cw[i]);
    return v;
}

int closed_form_set_index(int z)
{
    const int a[8] = { 2, 3, 5, 7, 9, 11, 13, 15 };
    for (int i = 0; i < 8; i++)
        for (int p = a[i]; p <= 384; p *= 2)
            if (p == z)
                return i;
    return -1;
}

} // namespace

TEST(NrLdpcTables, BaseGraphsMatchTheDocumentedSanityChecks)
{
    struct expected {
        int bg, entries, rows, cols, max_v;
    };
    for (const auto& x :
         { expected{ 1, 316, 46, 68, 383 }, expected{ 2, 197, 42, 52, 254 } }) {
        const auto table = nr_ldpc_code::base_graph(x.bg);
        EXPECT_EQ(static_cast<int>(table.size()), x.entries) << "BG" << x.bg;
        int max_row = 0, max_col = 0, max_v = 0, min_row = 99, min_col = 99;
        for (const auto& e : table) {
            max_row = std::max(max_row, e.row);
            min_row = std::min(min_row, e.row);
            max_col = std::max(max_col, e.col);
            min_col = std::min(min_col, e.col);
            for (int v : e.v)
                max_v = std::max(max_v, v);
        }
        EXPECT_EQ(min_row, 0);
        EXPECT_EQ(max_row, x.rows - 1);
        EXPECT_EQ(min_col, 0);
        EXPECT_EQ(max_col, x.cols - 1);
        EXPECT_EQ(max_v, x.max_v);
        const nr_ldpc_code code(x.bg, 2);
        EXPECT_EQ(code.base_rows(), x.rows);
        EXPECT_EQ(code.base_cols(), x.cols);
    }
    // Spot values of Table 5.3.2-2 (row 0, col 0) and of 5.3.2-3 (row 0, col 0).
    const auto bg1 = nr_ldpc_code::base_graph(1);
    EXPECT_EQ(bg1[0].row, 0);
    EXPECT_EQ(bg1[0].col, 0);
    EXPECT_EQ(bg1[0].v[0], 250);
    EXPECT_EQ(bg1[0].v[7], 135);
}

TEST(NrLdpcTables, FiftyOneLiftingSizesWithClosedFormSetIndex)
{
    const auto& sizes = nr_ldpc_code::lifting_sizes();
    ASSERT_EQ(sizes.size(), 51u);
    EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
    EXPECT_EQ(sizes.front(), 2);
    EXPECT_EQ(sizes.back(), 384);
    int count = 0;
    for (int z = 1; z <= 400; z++)
        if (closed_form_set_index(z) >= 0)
            count++;
    EXPECT_EQ(count, 51);
    for (int z : sizes) {
        EXPECT_EQ(nr_ldpc_code::lifting_set_index(z), closed_form_set_index(z))
            << "Z = " << z;
        EXPECT_EQ(nr_ldpc_code(1, z).set_index(), closed_form_set_index(z));
    }
}

TEST(NrLdpcCode, CirculantsAreTheTableShiftsModZ)
{
    for (int bg : { 1, 2 })
        for (int z : { 2, 7, 15, 104, 384 }) {
            const nr_ldpc_code code(bg, z);
            const auto table = nr_ldpc_code::base_graph(bg);
            ASSERT_EQ(code.circulants().size(), table.size());
            for (size_t i = 0; i < table.size(); i++) {
                EXPECT_EQ(code.circulants()[i].row, table[i].row);
                EXPECT_EQ(code.circulants()[i].col, table[i].col);
                EXPECT_EQ(code.circulants()[i].shift, table[i].v[code.set_index()] % z);
            }
        }
}

TEST(NrLdpcCode, Lengths)
{
    const nr_ldpc_code a(1, 384);
    EXPECT_EQ(a.k(), 8448);
    EXPECT_EQ(a.codeword_bits(), 68 * 384);
    EXPECT_EQ(a.n(), 66 * 384);
    EXPECT_EQ(a.e(), 66 * 384);
    EXPECT_EQ(a.parity_checks(), 46 * 384);
    const nr_ldpc_code b(2, 52, 500);
    EXPECT_EQ(b.k_max(), 520);
    EXPECT_EQ(b.fillers(), 20);
    EXPECT_EQ(b.e(), 50 * 52 - 20);
    EXPECT_EQ(nr_ldpc_code(2, 52, 500, 1000).e(), 1000);
}

TEST(NrLdpcCode, RandomCodewordsSatisfyEveryParityCheck)
{
    std::mt19937 rng(1234);
    struct cfg {
        int bg, z, k;
    };
    const cfg cfgs[] = { { 1, 2, 0 },   { 1, 15, 0 },     { 1, 208, 4000 }, { 1, 224, 0 },
                         { 1, 384, 0 }, { 1, 384, 8000 }, { 2, 2, 0 },      { 2, 7, 50 },
                         { 2, 52, 0 },  { 2, 240, 0 },    { 2, 384, 3000 } };
    for (const auto& c : cfgs) {
        const nr_ldpc_code code(c.bg, c.z, c.k);
        for (int trial = 0; trial < 4; trial++) {
            const auto info = random_bits(rng, code.k());
            auto cw = encode_full(code, info);
            ASSERT_EQ(failed_checks(code, cw), 0)
                << "BG" << c.bg << " Z=" << c.z << " k=" << c.k;
            EXPECT_TRUE(std::equal(info.begin(), info.end(), cw.begin())) << "systematic";
            EXPECT_TRUE(std::all_of(cw.begin() + code.k(),
                                    cw.begin() + code.k_max(),
                                    [](uint8_t b) { return b == 0; }))
                << "fillers are zero";
            // The check can fail: one flipped parity bit breaks at least one check.
            cw[code.codeword_bits() - 1 - trial] ^= 1;
            EXPECT_GT(failed_checks(code, cw), 0);
        }
    }
}

// srsRAN_4G's examplesBG{1,2}.dat (format in vectors/README.md): read, never copied.
TEST(NrLdpcCode, SrsranExamplesEncodeBitExactly)
{
    const std::string dir = std::string(GPUFEC_VECTORS_DIR) + "/nr_ldpc";
    for (int bg : { 1, 2 }) {
        const std::string path = dir + "/examplesBG" + std::to_string(bg) + ".dat";
        std::ifstream in(path);
        if (!in)
            GTEST_SKIP() << "vectors not found: " << path;
        const int kb = bg == 1 ? 22 : 10, nb = bg == 1 ? 66 : 50;
        int blocks = 0, codewords = 0;
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty())
                continue;
            ASSERT_EQ(line.substr(0, 2), "ls") << path;
            ASSERT_EQ(line.substr(line.size() - 4), "msgs") << line;
            const int z = std::stoi(line.substr(2));
            std::vector<std::string> msgs(10), cwds(10);
            for (auto& m : msgs)
                ASSERT_TRUE(std::getline(in, m));
            ASSERT_TRUE(std::getline(in, line));
            ASSERT_EQ(line, "ls" + std::to_string(z) + "cwds");
            for (auto& c : cwds)
                ASSERT_TRUE(std::getline(in, c));
            blocks++;
            for (int m = 0; m < 10; m++) {
                ASSERT_EQ(static_cast<int>(msgs[m].size()), kb * z);
                ASSERT_EQ(static_cast<int>(cwds[m].size()), nb * z);
                const int k = static_cast<int>(msgs[m].find('-'));
                ASSERT_GT(k, 0);
                const nr_ldpc_code code(bg, z, k);
                std::vector<uint8_t> info(k);
                for (int i = 0; i < k; i++)
                    info[i] = msgs[m][i] == '1';
                const auto cw = encode_full(code, info);
                std::string got(nb * z, '?');
                for (int i = 0; i < nb * z; i++) {
                    const int pos = i + 2 * z;
                    got[i] = (pos >= k && pos < code.k_max()) ? '-' : char('0' + cw[pos]);
                }
                ASSERT_EQ(got, cwds[m]) << "BG" << bg << " Z=" << z << " message " << m;
                // Full-length rate matching = the example codeword without its fillers.
                std::string expected_rm, rm;
                for (char ch : cwds[m])
                    if (ch != '-')
                        expected_rm += ch;
                for (uint8_t b : encode(code, info))
                    rm += char('0' + b);
                ASSERT_EQ(rm, expected_rm)
                    << "BG" << bg << " Z=" << z << " message " << m;
                codewords++;
            }
        }
        EXPECT_EQ(blocks, 51) << path;
        EXPECT_EQ(codewords, 510) << path;
    }
}

TEST(NrLdpcCode, RateMatchingReadsTheCircularBufferSkippingFillers)
{
    std::mt19937 rng(99);
    for (int bg : { 1, 2 }) {
        const int z = 20;
        const nr_ldpc_code mother(bg, z, bg == 1 ? 420 : 190);
        const auto info = random_bits(rng, mother.k());
        const auto cw = encode_full(mother, info);
        const auto buffer = transmitted_bits(mother, cw);
        ASSERT_EQ(static_cast<int>(buffer.size()), mother.n() - mother.fillers());
        EXPECT_EQ(encode(mother, info), buffer) << "e = 0 is the punctured codeword";
        for (int e : { 1,
                       37,
                       mother.e() / 3,
                       mother.e() - 1,
                       mother.e(),
                       mother.e() + 1,
                       2 * mother.e() + 55 }) {
            const nr_ldpc_code code(bg, z, mother.k(), e);
            const auto out = encode(code, info);
            ASSERT_EQ(static_cast<int>(out.size()), e);
            for (int i = 0; i < e; i++)
                ASSERT_EQ(out[i], buffer[i % buffer.size()])
                    << "BG" << bg << " e=" << e << " i=" << i;
        }
    }
}

TEST(NrLdpcCode, RejectsBadParametersNamingAllowedValues)
{
    expect_error([] { nr_ldpc_code(3, 384); }, { "base graph 3", "1, 2" });
    expect_error([] { nr_ldpc_code(0, 384); }, { "1, 2" });
    expect_error([] { nr_ldpc_code(1, 17); }, { "Z = 17", "2, 3, 4, 5, 6", "384" });
    expect_error([] { nr_ldpc_code(2, 400); }, { "Z = 400", "352, 384" });
    expect_error([] { nr_ldpc_code(1, 384, 8449); }, { "k = 8449", "8448", "769..8448" });
    expect_error([] { nr_ldpc_code(2, 10, 20); }, { "k = 20", "21..100" });
    expect_error([] { nr_ldpc_code(1, 384, -1); }, { "k = -1" });
    expect_error([] { nr_ldpc_code(1, 384, 0, -5); }, { "e = -5", "25344" });
    expect_error([] { nr_ldpc_code::lifting_set_index(500); }, { "Z = 500", "384" });
}
