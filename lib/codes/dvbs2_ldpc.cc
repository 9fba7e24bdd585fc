/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// dvbs2_ldpc_code: table lookup, the accumulator encoder of EN 302 307-1 5.3.2, the
// parity-check rows and the layered graph (block rows split where they hold a
// weight-2 circulant; see the header).
#include "codes/dvbs2_ldpc_tables.h"
#include <gpufec/dvbs2_ldpc.h>
#include <gpufec/ldpc_alist.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gpufec {

namespace {

constexpr int group = 360; // information bits per table row (M in the standard)

std::string join(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

const dvbs2::ldpc_table& lookup(const std::string& frame, const std::string& rate)
{
    const auto frames = dvbs2_ldpc_code::frames();
    if (std::find(frames.begin(), frames.end(), frame) == frames.end())
        throw error("dvbs2_ldpc_code: frame \"" + frame +
                    "\" unknown; allowed: normal (n = 64800), short (n = 16200)");
    for (size_t i = 0; i < dvbs2::ldpc_table_count; i++) {
        const auto& t = dvbs2::ldpc_tables[i];
        if (frame == t.frame && rate == t.rate)
            return t;
    }
    throw error("dvbs2_ldpc_code: rate \"" + rate + "\" unknown for " + frame +
                " frames; allowed: " + join(dvbs2_ldpc_code::rates(frame)));
}

int rows_of(const dvbs2::ldpc_table& t) { return t.long_rows + t.short_rows; }

int degree_of(const dvbs2::ldpc_table& t, int row)
{
    return row < t.long_rows ? t.long_degree : 3;
}

// c of each block row: the smallest divisor of 360 that divides no distance between
// two rows of the block row that one information bit reaches (header comment).
std::vector<int> make_strides(const dvbs2::ldpc_table& t)
{
    std::vector<std::vector<int>> deltas(t.q);
    const uint16_t* a = t.addresses;
    for (int j = 0; j < rows_of(t); j++) {
        const int deg = degree_of(t, j);
        for (int u = 0; u < deg; u++)
            for (int v = u + 1; v < deg; v++)
                if (a[u] % t.q == a[v] % t.q)
                    deltas[a[u] % t.q].push_back(
                        ((a[v] / t.q - a[u] / t.q) % group + group) % group);
        a += deg;
    }
    std::vector<int> strides(t.q, 1);
    for (int i = 0; i < t.q; i++) {
        if (deltas[i].empty())
            continue;
        for (int c = 2; c <= group; c++) {
            if (group % c != 0)
                continue;
            if (std::none_of(deltas[i].begin(), deltas[i].end(), [c](int delta) {
                    return delta % c == 0;
                })) {
                strides[i] = c;
                break;
            }
        }
        // delta = 0 would be a repeated address, which no table has.
        if (strides[i] == 1)
            throw error("dvbs2_ldpc_code: Table " + std::string(t.table) +
                        " repeats an address in a row");
    }
    return strides;
}

} // namespace

dvbs2_ldpc_code::dvbs2_ldpc_code(const std::string& frame, const std::string& rate)
    : d_table(&lookup(frame, rate)), d_frame(frame), d_rate(rate)
{
    d_strides = make_strides(*d_table);
}

std::string dvbs2_ldpc_code::table_name() const { return d_table->table; }
int dvbs2_ldpc_code::n() const { return d_table->n; }
int dvbs2_ldpc_code::k() const { return d_table->k; }
int dvbs2_ldpc_code::q() const { return d_table->q; }

std::vector<std::string> dvbs2_ldpc_code::frames() { return { "normal", "short" }; }

std::vector<std::string> dvbs2_ldpc_code::rates(const std::string& frame)
{
    std::vector<std::string> r;
    for (size_t i = 0; i < dvbs2::ldpc_table_count; i++)
        if (frame == dvbs2::ldpc_tables[i].frame)
            r.push_back(dvbs2::ldpc_tables[i].rate);
    if (r.empty())
        throw error("dvbs2_ldpc_code: frame \"" + frame +
                    "\" unknown; allowed: normal (n = 64800), short (n = 16200)");
    return r;
}

std::vector<std::vector<int>> dvbs2_ldpc_code::address_table() const
{
    std::vector<std::vector<int>> rows;
    const uint16_t* a = d_table->addresses;
    for (int j = 0; j < rows_of(*d_table); j++) {
        const int deg = degree_of(*d_table, j);
        rows.emplace_back(a, a + deg);
        a += deg;
    }
    return rows;
}

template <typename F>
void dvbs2_ldpc_code::for_each_info_edge(F&& f) const
{
    const int parity = m(), step = q();
    const uint16_t* a = d_table->addresses;
    for (int j = 0; j < rows_of(*d_table); j++) {
        const int deg = degree_of(*d_table, j);
        for (int b = 0; b < group; b++)
            for (int e = 0; e < deg; e++) {
                int r = a[e] + b * step;
                r -= r >= parity ? parity : 0; // a[e] < parity and b * step < parity
                f(r, group * j + b);
            }
        a += deg;
    }
}

void dvbs2_ldpc_code::encode(const uint8_t* info, uint8_t* codeword) const
{
    const int K = k(), parity = m(), step = q();
    for (int i = 0; i < K; i++)
        codeword[i] = info[i] & 1;
    // Bit b of a group goes to parity x + b q (mod n - k = 360 q), i.e. residue
    // c = x mod q, column (x / q + b) mod 360: a group lands on one residue's 360
    // parity bits rotated by x / q. Summed residue by residue (rows of 360 bytes, two
    // runs an address, which the compiler vectorizes), then read back in the natural
    // order r = c + q t through the accumulator p[r] ^= p[r - 1].
    std::vector<uint8_t> by_residue(static_cast<size_t>(parity), 0);
    const uint16_t* a = d_table->addresses;
    for (int j = 0; j < rows_of(*d_table); j++) {
        const int deg = degree_of(*d_table, j);
        const uint8_t* u = codeword + group * j;
        for (int e = 0; e < deg; e++) {
            uint8_t* row = by_residue.data() + (a[e] % step) * group;
            const int rotation = a[e] / step, head = group - rotation;
            for (int b = 0; b < head; b++)
                row[rotation + b] ^= u[b];
            for (int b = head; b < group; b++)
                row[b - head] ^= u[b];
        }
        a += deg;
    }
    uint8_t* p = codeword + K;
    uint8_t sum = 0;
    for (int t = 0; t < group; t++)
        for (int c = 0; c < step; c++) {
            sum ^= by_residue[c * group + t];
            p[t * step + c] = sum;
        }
}

bool dvbs2_ldpc_code::is_codeword(const uint8_t* codeword) const
{
    const int K = k(), parity = m();
    std::vector<uint8_t> s(parity, 0);
    for_each_info_edge([&](int r, int c) { s[r] ^= codeword[c] & 1; });
    const uint8_t* p = codeword + K;
    for (int r = 0; r < parity; r++)
        if ((s[r] ^ (p[r] & 1) ^ (r > 0 ? p[r - 1] & 1 : 0)) != 0)
            return false;
    return true;
}

std::vector<std::vector<int>> dvbs2_ldpc_code::check_rows() const
{
    const int K = k(), parity = m();
    std::vector<std::vector<int>> rows(parity);
    for_each_info_edge([&](int r, int c) { rows[r].push_back(c); });
    for (int r = 0; r < parity; r++) {
        if (r > 0)
            rows[r].push_back(K + r - 1);
        rows[r].push_back(K + r);
    }
    return rows;
}

std::string dvbs2_ldpc_code::to_alist_text() const
{
    return ldpc_alist_code::from_check_rows(n(), check_rows(), describe())
        .to_alist_text();
}

ldpc_graph dvbs2_ldpc_code::graph() const
{
    const auto rows = check_rows();
    ldpc_graph g;
    g.z = 1;
    g.base_columns = n();
    g.description = describe();
    g.layer_start.push_back(0);
    g.row_start.push_back(0);
    size_t edges = 0;
    for (const auto& r : rows)
        edges += r.size();
    g.edge_col.reserve(edges);
    for (int i = 0; i < q(); i++) {
        const int c = d_strides[i];
        for (int s = 0; s < c; s++) {
            for (int d = s; d < group; d += c) {
                const auto& cols = rows[i + q() * d];
                g.edge_col.insert(g.edge_col.end(), cols.begin(), cols.end());
                g.row_start.push_back(static_cast<int>(g.edge_col.size()));
            }
            g.layer_start.push_back(static_cast<int>(g.row_start.size()) - 1);
        }
    }
    g.edge_shift.assign(g.edge_col.size(), 0);
    g.info_positions.resize(k());
    for (int i = 0; i < k(); i++)
        g.info_positions[i] = i;
    g.channel_map.resize(n());
    for (int v = 0; v < n(); v++)
        g.channel_map[v] = v;
    g.finish();
    return g;
}

std::string dvbs2_ldpc_code::describe() const
{
    return "DVB-S2 LDPC " + d_frame + " r=" + d_rate + " n=" + std::to_string(n()) +
           " k=" + std::to_string(k());
}

} // namespace gpufec
