/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU layered min-sum decoder of LDPC codes given by an alist matrix (ldpc_alist.h).
//
// Schedule (normative for bit-exactness of the int8 path): the layers of
// ldpc_alist_code::layers() in order; rows of a layer share no column, so they are
// processed side by side. Each row takes its edges in column order c_0 < c_1 < ...
// through the check-node arithmetic of min_sum_kernels.h (the NR decoder's,
// ldpc_cpu.cc), with float minima capped at 1e6 only so that a degree-1 row, whose
// second minimum does not exist, cannot swamp the APP. Hard decision: bit = L < 0. Early
// termination checks every row after each iteration.
//
// Layout: each layer is split into groups of rows of equal degree, and a group's edges
// are stored edge-major (edge j of all its rows together), so the minima and updates run
// across rows in SIMD lanes; only the gathers and scatters of L are per edge.
#include "cpu/fixed_length_decoder.h"
#include "cpu/min_sum_kernels.h"
#include <gpufec/ldpc_alist.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace gpufec {

namespace {

using min_sum::float_traits;
using min_sum::int8_traits;

// One group: `rows` rows of `degree` edges; edge j of row r at edge0 + j * rows + r.
struct group {
    int rows, degree;
    size_t edge0;
};

// Q_j = sat(L[col] - R_j) for one edge of every row of a group: a plain gather into
// G, then the arithmetic in SIMD lanes.
template <typename Tr>
inline void gather_q(const typename Tr::store* __restrict__ L,
                     const int32_t* __restrict__ col,
                     const typename Tr::msg* __restrict__ R,
                     typename Tr::store* __restrict__ G,
                     typename Tr::work* __restrict__ Q,
                     int n)
{
    for (int r = 0; r < n; r++)
        G[r] = L[col[r]];
    min_sum::load_q<Tr>(G, R, Q, n);
}

template <typename S>
inline void scatter(S* __restrict__ L,
                    const int32_t* __restrict__ col,
                    const S* __restrict__ V,
                    int n)
{
    for (int r = 0; r < n; r++)
        L[col[r]] = V[r];
}

struct workspace {
    std::vector<uint8_t> storage; // L, R, Q (typed by the arithmetic)
    std::vector<uint8_t> lanes;   // min1, min2, pos, sign, V per row of a group
    std::vector<uint8_t> hard, syndrome;
};

inline size_t align64(size_t x) { return (x + 63) / 64 * 64; }

class ldpc_alist_decoder_cpu : public fixed_length_cpu_decoder
{
public:
    ldpc_alist_decoder_cpu(const ldpc_alist_code& code, const ldpc_decoder_options& opt)
        : fixed_length_cpu_decoder("ldpc", code.n(), code.k()),
          d_n(code.n()),
          d_k(code.k()),
          d_info(code.info_positions()),
          d_desc(code.describe()),
          d_cfg(opt, 1e6f) // caps a degree-1 row's missing second minimum
    {
        const auto& rows = code.check_rows();
        for (const auto& layer : code.layers()) {
            std::vector<int> by_degree(layer);
            std::stable_sort(by_degree.begin(), by_degree.end(), [&](int a, int b) {
                return rows[a].size() < rows[b].size();
            });
            for (size_t i = 0; i < by_degree.size();) {
                const int deg = static_cast<int>(rows[by_degree[i]].size());
                size_t e = i;
                while (e < by_degree.size() &&
                       static_cast<int>(rows[by_degree[e]].size()) == deg)
                    e++;
                const int count = static_cast<int>(e - i);
                group g{ count, deg, d_col.size() };
                d_col.resize(d_col.size() + static_cast<size_t>(count) * deg);
                for (int r = 0; r < count; r++)
                    for (int j = 0; j < deg; j++)
                        d_col[g.edge0 + static_cast<size_t>(j) * count + r] =
                            rows[by_degree[i + r]][j];
                d_groups.push_back(g);
                d_max_rows = std::max(d_max_rows, count);
                d_max_edges = std::max(d_max_edges, static_cast<size_t>(count) * deg);
                i = e;
            }
        }
    }

    bool has_soft_output() const override { return true; }

    frame_status decode_one(const llr8_t* llrs,
                            uint8_t* packed,
                            float* soft,
                            const exec_ctx&,
                            size_t) override
    {
        thread_local workspace ws;
        if (d_cfg.options().arithmetic == ldpc_arithmetic::int8)
            return decode_frame<int8_traits>(llrs, packed, soft, ws);
        return decode_frame<float_traits>(llrs, packed, soft, ws);
    }

    std::string name() const override { return d_desc + " " + d_cfg.describe(); }

private:
    template <typename Tr>
    bool checks_hold(const typename Tr::store* L, workspace& ws) const
    {
        ws.hard.resize(d_n);
        for (int v = 0; v < d_n; v++)
            ws.hard[v] = L[v] < 0;
        ws.syndrome.resize(d_max_rows);
        const uint8_t* h = ws.hard.data();
        uint8_t* s = ws.syndrome.data();
        for (const group& g : d_groups) {
            std::fill(s, s + g.rows, 0);
            for (int j = 0; j < g.degree; j++) {
                const int32_t* col =
                    d_col.data() + g.edge0 + static_cast<size_t>(j) * g.rows;
                for (int r = 0; r < g.rows; r++)
                    s[r] ^= h[col[r]];
            }
            uint8_t any = 0;
            for (int r = 0; r < g.rows; r++)
                any |= s[r];
            if (any)
                return false;
        }
        return true;
    }

    template <typename Tr>
    frame_status
    decode_frame(const llr8_t* in, uint8_t* out, float* soft, workspace& ws) const
    {
        typedef typename Tr::store S;
        typedef typename Tr::msg M;
        typedef typename Tr::index I;
        typedef typename Tr::work W;
        const size_t r_offset = align64(sizeof(S) * d_n);
        const size_t q_offset = align64(r_offset + sizeof(M) * d_col.size());
        ws.storage.resize(q_offset + sizeof(W) * d_max_edges);
        S* L = reinterpret_cast<S*>(ws.storage.data());
        M* R = reinterpret_cast<M*>(ws.storage.data() + r_offset);
        W* Q = reinterpret_cast<W*>(ws.storage.data() + q_offset);
        std::memset(R, 0, sizeof(M) * d_col.size());
        const size_t lane = align64(sizeof(W) * d_max_rows);
        ws.lanes.resize(5 * lane);
        W* min1 = reinterpret_cast<W*>(ws.lanes.data());
        W* min2 = reinterpret_cast<W*>(ws.lanes.data() + lane);
        I* pos = reinterpret_cast<I*>(ws.lanes.data() + 2 * lane);
        I* sign = reinterpret_cast<I*>(ws.lanes.data() + 3 * lane);
        S* V = reinterpret_cast<S*>(ws.lanes.data() + 4 * lane);
        static_assert(sizeof(I) == sizeof(W) && sizeof(S) == sizeof(W), "lane sizes");

        for (int v = 0; v < d_n; v++)
            L[v] = static_cast<S>(in[v]);

        const ldpc_decoder_options& opt = d_cfg.options();
        frame_status st{ 0, false };
        // An explicit loop, not a lambda around the layers: captured pointers would be
        // reloaded after every int8 message store (~8% slower).
        for (int it = 0; it < opt.iterations; it++) {
            for (const group& g : d_groups) {
                const int c = g.rows;
                const int32_t* col = d_col.data() + g.edge0;
                M* Rg = R + g.edge0;
                min_sum::reset_minima<Tr>(min1, min2, pos, sign, c);
                for (int j = 0; j < g.degree; j++) {
                    const size_t o = static_cast<size_t>(j) * c;
                    gather_q<Tr>(L, col + o, Rg + o, V, Q + o, c);
                    min_sum::track_minima<Tr>(Q + o, min1, min2, pos, sign, I(j), c);
                }
                // Reuse min1/min2 as the two scaled magnitudes.
                d_cfg.scale_minima(min1, c);
                d_cfg.scale_minima(min2, c);
                for (int j = 0; j < g.degree; j++) {
                    const size_t o = static_cast<size_t>(j) * c;
                    // The updated APP values go to V, then scattered.
                    min_sum::store_update<Tr>(
                        Q + o, min1, min2, pos, sign, I(j), Rg + o, V, c);
                    scatter<S>(L, col + o, V, c);
                }
            }
            st.iterations = it + 1;
            if (opt.early_termination || it + 1 == opt.iterations) {
                st.ok = checks_hold<Tr>(L, ws);
                if (st.ok && opt.early_termination)
                    break;
            }
        }
        min_sum::write_info_bits(
            L, d_k, [this](int i) { return d_info[i]; }, out, soft);
        return st;
    }

    int d_n, d_k;
    std::vector<int> d_info;
    std::string d_desc;
    min_sum::config d_cfg;
    std::vector<group> d_groups;
    std::vector<int32_t> d_col; // edge -> column, group by group
    int d_max_rows = 1;
    size_t d_max_edges = 1;
};

} // namespace

std::unique_ptr<batch_decoder> make_ldpc_decoder_cpu(const ldpc_alist_code& code,
                                                     const ldpc_decoder_options& options)
{
    return std::make_unique<ldpc_alist_decoder_cpu>(code, options);
}

} // namespace gpufec
