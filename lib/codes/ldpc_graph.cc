/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// ldpc_graph: derived fields, validation and the syndrome check.
#include <gpufec/ldpc_graph.h>

#include <algorithm>
#include <string>

namespace gpufec {

namespace {

[[noreturn]] void fail(const ldpc_graph& g, const std::string& what)
{
    throw error("ldpc_graph" + (g.description.empty() ? "" : " (" + g.description + ")") +
                ": " + what);
}

void check_offsets(const ldpc_graph& g,
                   const std::vector<int>& start,
                   int total,
                   const char* name,
                   const char* of)
{
    if (start.empty() || start.front() != 0 || start.back() != total)
        fail(g,
             std::string(name) + " must start at 0 and end at " + std::to_string(total) +
                 " (" + of + ")");
    for (size_t i = 1; i < start.size(); i++)
        if (start[i] < start[i - 1])
            fail(g, std::string(name) + " decreases at " + std::to_string(i));
}

} // namespace

void ldpc_graph::finish()
{
    std::vector<uint8_t> reached(static_cast<size_t>(std::max(n(), 0)), 0);
    for (int v : channel_map)
        if (v >= 0 && v < n())
            reached[v] = 1;
    for (int v : known_zeros)
        if (v >= 0 && v < n())
            reached[v] = 1;
    punctured.clear();
    for (int v = 0; v < n(); v++)
        if (!reached[v])
            punctured.push_back(v);
    validate();
}

void ldpc_graph::validate() const
{
    if (z < 1)
        fail(*this, "z = " + std::to_string(z) + "; allowed: >= 1");
    if (base_columns < 1)
        fail(*this, "base_columns = " + std::to_string(base_columns) + "; allowed: >= 1");
    if (edge_shift.size() != edge_col.size())
        fail(*this, "edge_shift and edge_col differ in size");
    check_offsets(*this, row_start, edges(), "row_start", "the edges");
    check_offsets(*this, layer_start, base_rows(), "layer_start", "the base rows");
    std::vector<int> last_layer(static_cast<size_t>(base_columns), -1);
    for (int l = 0; l < layers(); l++)
        for (int b = layer_start[l]; b < layer_start[l + 1]; b++)
            for (int i = row_start[b]; i < row_start[b + 1]; i++) {
                const int c = edge_col[i], s = edge_shift[i];
                if (c < 0 || c >= base_columns)
                    fail(*this,
                         "edge " + std::to_string(i) + " names column " +
                             std::to_string(c) + "; allowed: 0.." +
                             std::to_string(base_columns - 1));
                if (s < 0 || s >= z)
                    fail(*this,
                         "edge " + std::to_string(i) + " has shift " + std::to_string(s) +
                             "; allowed: 0.." + std::to_string(z - 1));
                if (i > row_start[b] && edge_col[i - 1] >= c)
                    fail(*this,
                         "base row " + std::to_string(b) +
                             ": columns must increase within a row");
                if (last_layer[c] == l)
                    fail(*this,
                         "layer " + std::to_string(l) + " names column " +
                             std::to_string(c) +
                             " in two rows; rows of a layer must share no column");
                last_layer[c] = l;
            }
    auto in_range = [&](const std::vector<int>& v, const char* name) {
        for (int x : v)
            if (x < 0 || x >= n())
                fail(*this,
                     std::string(name) + " holds position " + std::to_string(x) +
                         "; allowed: 0.." + std::to_string(n() - 1));
    };
    in_range(info_positions, "info_positions");
    in_range(channel_map, "channel_map");
    in_range(known_zeros, "known_zeros");
    in_range(punctured, "punctured");
    if (!std::is_sorted(known_zeros.begin(), known_zeros.end()) ||
        std::adjacent_find(known_zeros.begin(), known_zeros.end()) != known_zeros.end())
        fail(*this, "known_zeros must increase");
    for (int v : channel_map)
        if (std::binary_search(known_zeros.begin(), known_zeros.end(), v))
            fail(*this,
                 "channel_map sends an LLR to known zero bit " + std::to_string(v));
    if (e() < 1)
        fail(*this, "channel_map is empty; a frame needs at least one LLR");
    if (k() < 1)
        fail(*this, "info_positions is empty");
}

bool ldpc_graph::is_codeword(const uint8_t* codeword) const
{
    for (int b = 0; b < base_rows(); b++)
        for (int t = 0; t < z; t++) {
            uint8_t s = 0;
            for (int i = row_start[b]; i < row_start[b + 1]; i++)
                s ^= codeword[edge_col[i] * z + (t + edge_shift[i]) % z] & 1;
            if (s)
                return false;
        }
    return true;
}

} // namespace gpufec
