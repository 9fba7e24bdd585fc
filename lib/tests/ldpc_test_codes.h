/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Test helpers: LDPC codes given by rows of H (Hamming, 802.11n n = 648, IRA codes),
// shared by test_ldpc_alist.cc and test_ldpc_graph.cc.
#ifndef INCLUDED_GPUFEC_TEST_LDPC_TEST_CODES_H
#define INCLUDED_GPUFEC_TEST_LDPC_TEST_CODES_H

#include <gpufec/ldpc_alist.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gpufec {
namespace test {

// The (7,4) Hamming code, H = [P | I]: MacKay alist with zero padding.
constexpr const char* hamming_alist = "7 3\n"
                                      "3 4\n"
                                      "2 2 2 3 1 1 1\n"
                                      "4 4 4\n"
                                      "1 2 0\n"
                                      "1 3 0\n"
                                      "2 3 0\n"
                                      "1 2 3\n"
                                      "1 0 0\n"
                                      "2 0 0\n"
                                      "3 0 0\n"
                                      "1 2 4 5\n"
                                      "1 3 4 6\n"
                                      "2 3 4 7\n";

// Rows of H as written by a second, plain alist writer (no padding).
inline std::string plain_alist(int n, const std::vector<std::vector<int>>& rows)
{
    std::vector<std::vector<int>> cols(n);
    size_t max_c = 0, max_r = 0;
    for (size_t r = 0; r < rows.size(); r++) {
        max_r = std::max(max_r, rows[r].size());
        for (int c : rows[r])
            cols[c].push_back(static_cast<int>(r));
    }
    for (const auto& c : cols)
        max_c = std::max(max_c, c.size());
    std::string s = std::to_string(n) + " " + std::to_string(rows.size()) + "\n" +
                    std::to_string(max_c) + " " + std::to_string(max_r) + "\n";
    for (const auto& c : cols)
        s += std::to_string(c.size()) + " ";
    s += "\n";
    for (const auto& r : rows)
        s += std::to_string(r.size()) + " ";
    s += "\n";
    const std::vector<std::vector<int>>* halves[] = { &cols, &rows };
    for (const auto* lists : halves)
        for (const auto& l : *lists) {
            for (int i : l)
                s += std::to_string(i + 1) + " ";
            s += "\n";
        }
    return s;
}

// Quasi-cyclic expansion: entry s >= 0 of the base matrix is the Z x Z identity shifted
// right by s (row r has its one in column (r + s) mod Z).
inline std::vector<std::vector<int>> expand(const std::vector<std::vector<int>>& base,
                                            int z)
{
    std::vector<std::vector<int>> rows;
    for (const auto& b : base)
        for (int r = 0; r < z; r++) {
            std::vector<int> row;
            for (size_t j = 0; j < b.size(); j++)
                if (b[j] >= 0)
                    row.push_back(static_cast<int>(j) * z + (r + b[j]) % z);
            rows.push_back(row);
        }
    return rows;
}

// IEEE 802.11-2020 Annex F (HT LDPC matrix definitions), Table F-1: the matrix
// prototype for n = 648, Z = 27, rate 1/2 (-1 = the zero block), row by row.
inline std::vector<std::vector<int>> wifi_648_base()
{
    // clang-format off
    return {
        { 0, -1, -1, -1, 0, 0, -1, -1, 0, -1, -1, 0, 1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
        { 22, 0, -1, -1, 17, -1, 0, 0, 12, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
        { 6, -1, 0, -1, 10, -1, -1, -1, 24, -1, 0, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1 },
        { 2, -1, -1, 0, 20, -1, -1, -1, 25, 0, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1 },
        { 23, -1, -1, -1, 3, -1, -1, -1, 0, -1, 9, 11, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1 },
        { 24, -1, 23, 1, 17, -1, 3, -1, 10, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1 },
        { 25, -1, -1, -1, 8, -1, -1, -1, 7, 18, -1, -1, 0, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1 },
        { 13, 24, -1, -1, 0, -1, 8, -1, 6, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1 },
        { 7, 20, -1, 16, 22, 10, -1, -1, 23, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1 },
        { 11, -1, -1, -1, 19, -1, -1, -1, 13, -1, 3, 17, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1 },
        { 25, -1, 8, -1, 23, 18, -1, 14, 9, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0 },
        { 3, -1, -1, -1, 16, -1, -1, 2, 25, 5, -1, -1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0 },
    };
    // clang-format on
}

inline ldpc_alist_code wifi_648()
{
    return ldpc_alist_code::from_alist_text(plain_alist(648, expand(wifi_648_base(), 27)),
                                            "802.11n n=648 r=1/2");
}

// An IRA (repeat-accumulate) code like DVB-S2's: info columns of weight `wc` on random
// rows, parity part dual-diagonal (row i holds parity columns k+i-1 and k+i).
inline std::vector<std::vector<int>> ira_rows(int n, int m, int wc, uint32_t seed)
{
    std::mt19937 rng(seed);
    const int k = n - m;
    std::vector<std::vector<int>> rows(m);
    std::vector<int> pick(m);
    for (int i = 0; i < m; i++)
        pick[i] = i;
    for (int c = 0; c < k; c++) {
        for (int j = 0; j < wc; j++) { // partial Fisher-Yates: wc distinct rows
            std::swap(pick[j], pick[j + rng() % (m - j)]);
            rows[pick[j]].push_back(c);
        }
    }
    for (int i = 0; i < m; i++) {
        if (i > 0)
            rows[i].push_back(k + i - 1);
        rows[i].push_back(k + i);
    }
    return rows;
}

} // namespace test
} // namespace gpufec

#endif
