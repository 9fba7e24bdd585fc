/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// 5G NR LDPC: base graphs, lifting, systematic encoder and rate matching (TS 38.212).
#include <gpufec/ldpc.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace gpufec {

namespace {

struct nr_ldpc_table_entry {
    uint8_t row;
    uint8_t col;
    uint16_t v[8];
};
struct nr_ldpc_lifting {
    int z;
    int ils;
};

#include "tables/nr_ldpc_tables.inc"

constexpr int core_rows = 4; // rows 0..3 hold the double-diagonal core parity part

std::string allowed_lifting_sizes()
{
    std::string s;
    for (const auto& l : nr_ldpc_lifting_table)
        s += (s.empty() ? "" : ", ") + std::to_string(l.z);
    return s;
}

// acc[r] ^= x[(r + shift) mod Z]: one circulant times a Z-bit block.
void accumulate(uint8_t* acc, const uint8_t* x, int z, int shift)
{
    const int head = z - shift;
    for (int r = 0; r < head; r++)
        acc[r] ^= x[r + shift];
    for (int r = head; r < z; r++)
        acc[r] ^= x[r - head];
}

// Solves x from acc[r] = x[(r + shift) mod Z]: two copies, no division per bit.
void solve(uint8_t* x, const uint8_t* acc, int z, int shift)
{
    const int head = z - shift;
    std::copy(acc, acc + head, x + shift);
    std::copy(acc + head, acc + z, x);
}

} // namespace

const std::vector<int>& nr_ldpc_code::lifting_sizes()
{
    static const std::vector<int> sizes = [] {
        std::vector<int> v;
        for (const auto& l : nr_ldpc_lifting_table)
            v.push_back(l.z);
        return v;
    }();
    return sizes;
}

int nr_ldpc_code::lifting_set_index(int z)
{
    for (const auto& l : nr_ldpc_lifting_table)
        if (l.z == z)
            return l.ils;
    throw error(
        "nr_ldpc_code: lifting size Z = " + std::to_string(z) +
        " is not in TS 38.212 Table 5.3.2-1; allowed: " + allowed_lifting_sizes());
}

std::vector<nr_ldpc_base_entry> nr_ldpc_code::base_graph(int bg)
{
    if (bg != 1 && bg != 2)
        throw error("nr_ldpc_code: base graph " + std::to_string(bg) +
                    " unknown; allowed: 1, 2");
    std::vector<nr_ldpc_base_entry> out;
    auto add = [&out](const auto& table) {
        for (const auto& t : table) {
            nr_ldpc_base_entry e{ t.row, t.col, {} };
            std::copy(std::begin(t.v), std::end(t.v), e.v);
            out.push_back(e);
        }
    };
    if (bg == 1)
        add(nr_ldpc_bg1_table);
    else
        add(nr_ldpc_bg2_table);
    return out;
}

nr_ldpc_code::nr_ldpc_code(int bg, int z, int k, int e)
    : d_bg(bg), d_z(z), d_ils(0), d_k(k), d_e(e), d_core_shift(0)
{
    const auto table = base_graph(bg); // validates bg
    d_ils = lifting_set_index(z);
    const int kmax = k_max();
    if (k == 0)
        d_k = kmax;
    else if (k < 2 * z + 1 || k > kmax)
        throw error("nr_ldpc_code: k = " + std::to_string(k) +
                    " information bits for BG" + std::to_string(bg) +
                    ", Z = " + std::to_string(z) +
                    "; allowed: 0 (= K_b*Z = " + std::to_string(kmax) + ") or " +
                    std::to_string(2 * z + 1) + ".." + std::to_string(kmax) +
                    " (fillers must not reach the 2Z punctured bits)");
    if (e < 0)
        throw error("nr_ldpc_code: e = " + std::to_string(e) +
                    " transmitted bits; allowed: 0 (= N - fillers = " +
                    std::to_string(n() - fillers()) + ") or any positive count");
    if (e == 0)
        d_e = n() - fillers();

    d_row_start.assign(base_rows() + 1, 0);
    for (const auto& t : table) {
        d_circ.push_back({ t.row, t.col, t.v[d_ils] % z });
        d_row_start[t.row + 1]++;
    }
    for (int i = 0; i < base_rows(); i++)
        d_row_start[i + 1] += d_row_start[i];

    // Summing the core rows cancels the paired double-diagonal entries, leaving one
    // circulant on parity column K_b: find its shift (and check the structure holds).
    const int kb = info_cols();
    std::vector<int> core_shifts;
    for (const auto& c : d_circ)
        if (c.row < core_rows && c.col == kb)
            core_shifts.push_back(c.shift);
    std::sort(core_shifts.begin(), core_shifts.end());
    int odd = 0; // distinct shifts that do not cancel (odd multiplicity)
    for (size_t i = 0; i < core_shifts.size();) {
        size_t j = i;
        while (j < core_shifts.size() && core_shifts[j] == core_shifts[i])
            j++;
        if ((j - i) % 2 == 1) {
            d_core_shift = core_shifts[i];
            odd++;
        }
        i = j;
    }
    if (odd != 1)
        throw std::logic_error("nr_ldpc_code: base graph core is not double-diagonal");
}

void nr_ldpc_code::encode_full(const uint8_t* info, uint8_t* cw) const
{
    const int z = d_z, kb = info_cols(), cols = base_cols();
    std::fill(cw, cw + codeword_bits(), 0);
    for (int i = 0; i < d_k; i++)
        cw[i] = info[i] & 1;

    std::vector<char> known(cols, 0);
    std::fill(known.begin(), known.begin() + kb, 1);
    std::vector<uint8_t> acc(z), lambda(z, 0);

    // First core parity block: the sum of the core rows over the systematic part.
    for (int i = 0; i < core_rows; i++)
        for (int c = d_row_start[i]; c < d_row_start[i + 1]; c++)
            if (d_circ[c].col < kb)
                accumulate(lambda.data(), cw + d_circ[c].col * z, z, d_circ[c].shift);
    solve(cw + kb * z, lambda.data(), z, d_core_shift);
    known[kb] = 1;

    // Each remaining parity block is the single unknown of some row: the other core
    // blocks by back-substitution through rows 0..3, then one extension row each.
    auto solve_row = [&](int i) {
        int unknown = -1;
        for (int c = d_row_start[i]; c < d_row_start[i + 1]; c++) {
            if (known[d_circ[c].col])
                continue;
            if (unknown >= 0)
                return false; // two unknowns: not yet (before summing anything)
            unknown = c;
        }
        if (unknown < 0)
            return false;
        std::fill(acc.begin(), acc.end(), 0);
        for (int c = d_row_start[i]; c < d_row_start[i + 1]; c++)
            if (c != unknown)
                accumulate(acc.data(), cw + d_circ[c].col * z, z, d_circ[c].shift);
        solve(cw + d_circ[unknown].col * z, acc.data(), z, d_circ[unknown].shift);
        known[d_circ[unknown].col] = 1;
        return true;
    };
    for (int solved = 1; solved < core_rows;) {
        int progress = 0;
        for (int i = 0; i < core_rows && solved < core_rows; i++)
            if (solve_row(i)) {
                solved++;
                progress++;
            }
        if (!progress)
            throw std::logic_error("nr_ldpc_code: core parity not solvable");
    }
    for (int i = core_rows; i < base_rows(); i++)
        if (!solve_row(i))
            throw std::logic_error(
                "nr_ldpc_code: extension row without a single new parity block");
}

void nr_ldpc_code::rate_match(const uint8_t* cw, uint8_t* out) const
{
    // Circular buffer d = cw[2Z ..), N_cb = N, k0 = 0 (rv 0); fillers are skipped:
    // the buffer is two runs, [0, filler_begin) and [filler_end, N_cb), copied whole
    // until e bits are out.
    const uint8_t* d = cw + 2 * d_z;
    const int n_cb = n();
    const int filler_begin = d_k - 2 * d_z, filler_end = k_max() - 2 * d_z;
    const std::pair<int, int> runs[] = { { 0, filler_begin }, { filler_end, n_cb } };
    for (int i = 0; i < d_e;)
        for (const auto& [begin, end] : runs) {
            const int count = std::min(end - begin, d_e - i);
            std::copy(d + begin, d + begin + count, out + i);
            i += count;
        }
}

void nr_ldpc_code::encode(const uint8_t* info, uint8_t* out) const
{
    std::vector<uint8_t> cw(codeword_bits());
    encode_full(info, cw.data());
    rate_match(cw.data(), out);
}

ldpc_graph nr_ldpc_code::graph() const
{
    ldpc_graph g;
    g.z = d_z;
    g.base_columns = base_cols();
    g.description = "ldpc BG" + std::to_string(d_bg) + " Z=" + std::to_string(d_z) +
                    " k=" + std::to_string(d_k) + " e=" + std::to_string(d_e);
    g.row_start.assign(d_row_start.begin(), d_row_start.end());
    for (int r = 0; r <= base_rows(); r++)
        g.layer_start.push_back(r);
    for (const auto& c : d_circ) {
        g.edge_col.push_back(c.col);
        g.edge_shift.push_back(c.shift);
    }
    for (int i = 0; i < d_k; i++)
        g.info_positions.push_back(i);
    // rate_match(), as positions: the circular buffer d = c[2Z ..), fillers skipped.
    const int n_cb = n(), filler_begin = d_k - 2 * d_z, filler_end = k_max() - 2 * d_z;
    g.channel_map.reserve(d_e);
    for (int i = 0, j = 0; i < d_e;) {
        if (j < filler_begin || j >= filler_end) {
            g.channel_map.push_back(2 * d_z + j);
            i++;
        }
        if (++j == n_cb)
            j = 0;
    }
    for (int v = d_k; v < k_max(); v++)
        g.known_zeros.push_back(v);
    g.finish();
    return g;
}

} // namespace gpufec
