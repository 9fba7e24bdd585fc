/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal (header-only: used by the core's tests and the CUDA library, which links
// below the core): the 360-periodic (quasi-cyclic) view of a DVB-S2-style ldpc_graph, for
// the CUDA kernel that keeps one thread per row of a 360-row block row (docs/dvbs2.md,
// docs/ldpc-gpu.md). Plain C++: built and unit-tested without a GPU.
//
// DVB-S2 (EN 302 307-1 5.3.2) defines H from 360-bit information groups and an
// accumulator: check row r = i + q d (block row i = 0..q-1, d = 0..359) holds, from each
// information group, the bit 360 g + ((d + shift) mod 360), plus the parity bits p_r and
// p_{r-1}. With the parity bits stored as groups too (p_{i + q d} in group i at d), every
// edge of a block row is "cell base + ((d + shift) mod 360)": a thread per d computes its
// positions instead of reading them. Two exceptions, both absorbed here:
//  * p_{r-1} of block row 0 is group q-1 at d - 1, and row r = 0 has no such edge. That
//    slot has shift -1 and group q-1 sits at cells 361..720, so d = 0 computes cell
//    361 - 361 = 0 (qc360_cell below): cell 0 is a dummy held at the "bit 0" maximum,
//    which changes no minimum below the 127 cap, no sign and no parity.
//  * block rows split into strided sub-layers (weight-2 circulants): a layer holds the
//    rows d = d0 + stride t, t = 0..rows-1.
#ifndef INCLUDED_GPUFEC_LDPC_QC360_PLAN_H
#define INCLUDED_GPUFEC_LDPC_QC360_PLAN_H

#include <gpufec/ldpc_graph.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace gpufec {

constexpr int qc360_period = 360;

//! The cell of the edge with (base, shift) in row d: base + ((d + shift) mod 360) for
//! shift in 0..359; for shift -1, base + d - 1 when d > 0 and base - 361 when d = 0 (the
//! larger of the two differences wraps as an unsigned number, so the smaller is taken).
#ifdef __CUDACC__
__host__ __device__
#endif
    inline int
    qc360_cell(int base, int shift, int d)
{
    const unsigned a = static_cast<unsigned>(d + shift);
    const unsigned b = static_cast<unsigned>(d + shift - qc360_period);
    return base + static_cast<int>(a < b ? a : b);
}

struct qc360_layer {
    int32_t d0, stride, rows; //!< rows d = d0 + stride t, t < rows
    int32_t degree;           //!< edges per row (the dummy included)
    int32_t first_slot;       //!< slots first_slot .. first_slot + degree - 1
    int32_t pad[3];
};

struct qc360_plan {
    int n = 0, k = 0, q = 0;
    int cells = 0;                  //!< n + 1: cell 0 is the dummy
    std::vector<int32_t> cell_of;   //!< [n] codeword position -> cell
    std::vector<int32_t> info_cell; //!< [k] cell of each output bit
    std::vector<qc360_layer> layers;
    std::vector<int32_t> slot_base, slot_shift; //!< [slots]
    int max_degree = 0;

    //! The cells of row t of layer l (dummy included), in slot order.
    std::vector<int> row_cells(int l, int t) const;
};

/*!
 * The plan of `g` when it is a DVB-S2-style graph: Z = 1, information bits 0..k-1 and
 * the identity channel map, k and n - k multiples of 360, every check row r holding the
 * parity bits k + r and k + r - 1 (r > 0) and information bits of the 360-periodic
 * form above, each layer one block row or a strided part of one. Every row of every
 * layer is checked against the graph (cell for cell); anything else gives nullopt (the
 * generic kernel then runs).
 */
std::optional<qc360_plan> make_qc360_plan(const ldpc_graph& g);

inline std::vector<int> qc360_plan::row_cells(int l, int t) const
{
    const qc360_layer& L = layers[l];
    const int d = L.d0 + L.stride * t;
    std::vector<int> cells_of_row(L.degree);
    for (int j = 0; j < L.degree; j++)
        cells_of_row[j] =
            qc360_cell(slot_base[L.first_slot + j], slot_shift[L.first_slot + j], d);
    return cells_of_row;
}

inline std::optional<qc360_plan> make_qc360_plan(const ldpc_graph& g)
{
    constexpr int P = qc360_period;
    const int n = g.n(), k = g.k();
    if (g.z != 1 || k <= 0 || k % P || (n - k) <= 0 || (n - k) % P || g.e() != n ||
        !g.known_zeros.empty() || !g.punctured.empty() || g.check_rows() != n - k)
        return std::nullopt;
    for (int i = 0; i < k; i++)
        if (g.info_positions[i] != i)
            return std::nullopt;
    for (int i = 0; i < n; i++)
        if (g.channel_map[i] != i)
            return std::nullopt;

    qc360_plan plan;
    plan.n = n;
    plan.k = k;
    plan.q = (n - k) / P;
    plan.cells = n + 1;
    const int q = plan.q;
    // Cells: 0 the dummy, 1..360 information group 0, 361..720 parity group q - 1 (so
    // that its shift -1 slot reaches cell 0 at d = 0), then the other information
    // groups, then parity groups 0..q-2.
    auto group_base = [&](int v) { // cell of the group's d = 0 bit
        if (v < P)
            return 1;
        if (v < k)
            return (v / P) * P + P + 1;
        const int i = (v - k) % q;
        return i == q - 1 ? P + 1 : k + P + 1 + P * i;
    };
    auto group_offset = [&](int v) { return v < k ? v % P : (v - k) / q; };
    plan.cell_of.resize(n);
    for (int v = 0; v < n; v++)
        plan.cell_of[v] = group_base(v) + group_offset(v);
    plan.info_cell.assign(plan.cell_of.begin(), plan.cell_of.begin() + k);

    for (int l = 0; l < g.layers(); l++) {
        const int b0 = g.layer_start[l], rows = g.layer_start[l + 1] - b0;
        if (rows < 1) // validate() lets an empty layer through
            return std::nullopt;
        // Each row's block row i and index d, from its highest column p_r = k + r.
        std::vector<std::pair<int, int>> row_d(rows); // (d, base row)
        int block_row = -1;
        for (int t = 0; t < rows; t++) {
            const int b = b0 + t;
            const int e0 = g.row_start[b], e1 = g.row_start[b + 1];
            if (e1 - e0 < 3) // the dummy needs two real edges beside it
                return std::nullopt;
            const int r = g.edge_col[e1 - 1] - k; // edges are in increasing column order
            if (r < 0) // the cell-for-cell check below catches any other shape
                return std::nullopt;
            if (block_row < 0)
                block_row = r % q;
            if (r % q != block_row)
                return std::nullopt;
            row_d[t] = { r / q, b };
        }
        std::sort(row_d.begin(), row_d.end());
        const int d0 = row_d[0].first;
        const int stride = rows > 1 ? row_d[1].first - d0 : P;
        if (stride <= 0 || rows * stride != P || d0 >= stride)
            return std::nullopt;
        for (int t = 0; t < rows; t++)
            if (row_d[t].first != d0 + stride * t)
                return std::nullopt;

        // Slots: (base, shift) of every edge of a full row; row 0 of block row 0 lacks
        // p_{-1} and takes the dummy instead.
        auto slots_of = [&](int b, int d) {
            std::vector<std::pair<int, int>> s;
            for (int e = g.row_start[b]; e < g.row_start[b + 1]; e++) {
                const int v = g.edge_col[e];
                int shift = group_offset(v) - d;
                const bool wrap = v >= k && block_row == 0 && (v - k) % q == q - 1;
                if (!wrap && shift < 0)
                    shift += P;
                s.emplace_back(group_base(v), shift);
            }
            if (block_row == 0 && d == 0)
                s.emplace_back(P + 1, -1); // the dummy edge
            std::sort(s.begin(), s.end());
            return s;
        };
        const auto slots = slots_of(row_d[0].second, d0);
        qc360_layer L{};
        L.d0 = d0;
        L.stride = stride;
        L.rows = rows;
        L.degree = static_cast<int>(slots.size());
        L.first_slot = static_cast<int>(plan.slot_base.size());
        for (const auto& s : slots) {
            plan.slot_base.push_back(s.first);
            plan.slot_shift.push_back(s.second);
        }
        plan.layers.push_back(L);
        plan.max_degree = std::max(plan.max_degree, L.degree);

        // Every row, cell for cell (the graph's cells plus the dummy where p_{-1} is
        // missing), against the slots.
        for (int t = 0; t < rows; t++) {
            const int d = row_d[t].first, b = row_d[t].second;
            std::vector<int> want;
            for (int e = g.row_start[b]; e < g.row_start[b + 1]; e++)
                want.push_back(plan.cell_of[g.edge_col[e]]);
            if (block_row == 0 && d == 0)
                want.push_back(0);
            std::vector<int> got = plan.row_cells(l, t);
            std::sort(want.begin(), want.end());
            std::sort(got.begin(), got.end());
            if (want != got)
                return std::nullopt;
        }
    }
    return plan;
}


} // namespace gpufec

#endif
