/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// libFuzzer target: ldpc_alist_code::from_alist_text() on arbitrary text. Malformed
// text must throw gpufec::error (any other exception, a crash or a sanitizer report is
// a finding); an accepted code must be self-consistent:
//  - sizes: n, m, rows sorted/in range/without repeats, edges, k = n - rank > 0;
//  - rank equal to an independent GF(2) row reduction (small codes);
//  - info_positions: k increasing positions; layers: every non-empty row once, rows of
//    one layer share no column; graph() consistent with the code;
//  - the encoder: codewords satisfy H c = 0, carry the info bits at info_positions and
//    are linear (encode(a) ^ encode(b) == encode(a ^ b));
//  - to_alist_text() parses back to the same matrix and k.
#include <gpufec/common.h>
#include <gpufec/ldpc_alist.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const gpufec::ldpc_alist_code& code, const std::string& what)
{
    std::fprintf(stderr, "fuzz_alist: %s: %s\n", code.describe().c_str(), what.c_str());
    std::abort();
}

void check(bool ok, const gpufec::ldpc_alist_code& code, const char* what)
{
    if (!ok)
        fail(code, what);
}

// Rank over GF(2), one byte per bit (independent of the library's bit-packed code).
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
                for (int x = c; x < n; x++)
                    h[r][x] ^= h[rank][x];
        rank++;
    }
    return rank;
}

uint64_t next(uint64_t& s)
{
    s += 0x9e3779b97f4a7c15ull;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void check_code(const gpufec::ldpc_alist_code& code, uint64_t seed)
{
    const int n = code.n();
    const int m = code.m();
    const auto& rows = code.check_rows();
    check(n >= 1 && m >= 1, code, "n or m < 1");
    check(static_cast<int>(rows.size()) == m, code, "check_rows().size() != m");
    size_t edges = 0;
    for (const auto& row : rows) {
        for (size_t j = 0; j < row.size(); j++) {
            check(row[j] >= 0 && row[j] < n, code, "row lists a column out of range");
            check(j == 0 || row[j - 1] < row[j], code, "row not strictly increasing");
        }
        edges += row.size();
    }
    check(edges == code.edges(), code, "edges() != ones in check_rows()");
    check(code.rank() >= 0 && code.rank() <= std::min(n, m), code, "rank out of range");
    check(code.k() == n - code.rank() && code.k() > 0, code, "k != n - rank or k <= 0");
    if (static_cast<double>(n) * m <= 2.5e5) // O(rank m n): keep each run short
        check(gf2_rank(n, rows) == code.rank(), code, "rank() != reference GF(2) rank");

    const auto& info = code.info_positions();
    check(
        static_cast<int>(info.size()) == code.k(), code, "info_positions().size() != k");
    for (size_t i = 0; i < info.size(); i++) {
        check(info[i] >= 0 && info[i] < n, code, "info position out of range");
        check(i == 0 || info[i - 1] < info[i], code, "info positions not increasing");
    }

    std::vector<int> row_seen(m, 0);
    std::vector<int> col_layer(n, -1);
    const auto& layers = code.layers();
    for (size_t l = 0; l < layers.size(); l++) {
        check(!layers[l].empty(), code, "empty layer");
        for (int r : layers[l]) {
            check(r >= 0 && r < m, code, "layer lists a row out of range");
            row_seen[r]++;
            for (int c : rows[r]) {
                check(col_layer[c] != static_cast<int>(l),
                      code,
                      "two rows of one layer share a column");
                col_layer[c] = static_cast<int>(l);
            }
        }
    }
    for (int r = 0; r < m; r++)
        check(row_seen[r] == (rows[r].empty() ? 0 : 1),
              code,
              "a non-empty row is not in exactly one layer (or an empty one is)");

    const gpufec::ldpc_graph g = code.graph();
    check(g.n() == n && g.k() == code.k() && g.e() == n, code, "graph() sizes");
    check(static_cast<size_t>(g.edges()) == edges, code, "graph() edge count");
    check(g.info_positions == info, code, "graph() info positions");

    // Encoder: zeros, ones, random words and their sum.
    const int k = code.k();
    std::vector<uint8_t> a(k), b(k), s(k), ca(n), cb(n), cs(n);
    for (int trial = 0; trial < 4; trial++) {
        for (int i = 0; i < k; i++) {
            a[i] = trial == 0 ? 0 : trial == 1 ? 1 : next(seed) & 1;
            b[i] = next(seed) & 1;
            s[i] = a[i] ^ b[i];
        }
        code.encode(a.data(), ca.data());
        code.encode(b.data(), cb.data());
        code.encode(s.data(), cs.data());
        check(code.is_codeword(ca.data()) && code.is_codeword(cb.data()),
              code,
              "encode() output fails H c = 0");
        check(g.is_codeword(ca.data()), code, "graph().is_codeword() rejects a codeword");
        for (int i = 0; i < k; i++)
            check(ca[info[i]] == a[i], code, "info bit not at its info position");
        for (int x = 0; x < n; x++)
            check(ca[x] <= 1 && (ca[x] ^ cb[x]) == cs[x], code, "encode() not linear");
    }

    // Round trip through the alist writer.
    const auto again =
        gpufec::ldpc_alist_code::from_alist_text(code.to_alist_text(), "again");
    check(again.n() == n && again.check_rows() == rows && again.k() == code.k(),
          code,
          "to_alist_text() does not parse back to the same code");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    uint64_t seed = size;
    for (size_t i = 0; i < size; i++)
        seed = seed * 131 + data[i];
    try {
        const auto code = gpufec::ldpc_alist_code::from_alist_text(text, "fuzz");
        check_code(code, seed);
    } catch (const gpufec::error&) {
        // Rejected with a message: the expected outcome for malformed text.
    }
    return 0;
}
