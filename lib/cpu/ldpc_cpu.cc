/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// THE CPU layered min-sum LDPC decoder: one decoder for every code that exports an
// ldpc_graph (NR codes, alist codes), and the reference of a GPU kernel.
//
// Schedule (normative for bit-exactness of the int8 path): the graph's layers in order;
// the base rows of a layer touch disjoint positions, so their Z-lifted check rows are
// updated side by side (their order is irrelevant). For check row t of base row b and
// each edge (col, shift) of b, in column order: v = col*Z + (t + shift) mod Z, Q =
// sat(L[v] - R_old); then with min1 <= min2 the two smallest |Q| (the edge of the first
// strict minimum) and the sign product: m = min(min, 127), mag = (m * round(16 alpha))
// >> 4 (normalised) or max(m - round(beta), 0) (offset), R_new = +/-mag, L[v] = sat(Q +
// R_new). Q >= 0 counts as positive. After a layer, its known-zero bits are pinned again.
// The arithmetic is written down in min_sum_kernels.h.
//
// "int8" arithmetic: check messages R are int8 (|R| <= 127); the APP L and Q are int16
// saturating at +/-32000. (An int8 APP saturating at 127 loses too much with the input
// scale of 8 used by quantize_llrs: BER 1.4e-1 instead of 0 at the 1.5 dB point.)
// The floor in (m * round(16 alpha)) >> 4 acts like a small extra offset and helps near
// the waterfall: BG1 r = 1/3 at 1.0 dB, FER 9/100 for int8 vs 47/100 for float's exact
// alpha * m (float with floor() reproduces int8 exactly there).
// "half": the int8 arithmetic with the APP and Q rounded to IEEE half precision
// (integers; exact up to 2048, the nearest even half above) instead of saturated, the
// channel sums saturated at +/-32000 as in int8 and then rounded, known zeros not pinned
// after the first load (min_sum_kernels.h, half_traits): what the fastest GPU kernel
// computes with half2 instructions.
// "float": the same in float with alpha and beta unrounded. Graphs with Z = 1 (general
// rows, which may have degree 1 and then no second minimum) cap float minima at the
// known-bit magnitude 1e6 before scaling, so a missing second minimum cannot swamp the
// APP; lifted graphs (Z > 1, NR: every row has degree >= 3) leave them uncapped. (These
// are the rules of the two decoders this one replaced, kept for bit-exactness. A cap
// for NR too changes none of test_ldpc_graph's cases, but NR minima are not bounded by
// 1e6 in general: heavy repetition, alpha = 1 or beta = 0, many iterations without
// early termination; Z = 1 float messages do pass 1e6 there, reaching 1e12.)
//
// Channel: the e LLRs add up in int32 at their codeword positions (channel_map), then
// saturate to the APP range; positions no LLR reaches start at 0; known zeros are pinned
// at the APP maximum. Hard decision: bit = L < 0. Early termination checks every parity
// check after each iteration. Output: the bits at info_positions, packed MSB first.
//
// Layout: each layer is split into groups of base rows of equal degree; a group's edges
// are stored edge-major (edge j of all its rows together), so the minima and updates run
// across lanes (SIMD). Lifted graphs (Z > 1): one base row at a time, its Z check rows in
// the lanes, a circulant loaded as two contiguous runs of L. Z = 1 graphs: all rows of a
// group in the lanes, L gathered and scattered through each lane's column.
#include "cpu/fixed_length_decoder.h"
#include "cpu/min_sum_kernels.h"
#include <gpufec/ldpc_alist.h>
#include <gpufec/ldpc_decoding.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace gpufec {

ldpc_algorithm parse_ldpc_algorithm(const std::string& s)
{
    if (s == "normalized")
        return ldpc_algorithm::normalized;
    if (s == "offset")
        return ldpc_algorithm::offset;
    throw error("ldpc decoder: algorithm \"" + s +
                "\" unknown; allowed: normalized, offset");
}

ldpc_arithmetic parse_ldpc_arithmetic(const std::string& s)
{
    if (s == "int8")
        return ldpc_arithmetic::int8;
    if (s == "float")
        return ldpc_arithmetic::float32;
    if (s == "half")
        return ldpc_arithmetic::half;
    throw error("ldpc decoder: arithmetic \"" + s +
                "\" unknown; allowed: int8, float, half");
}

namespace {

using min_sum::float_traits;
using min_sum::half_traits;
using min_sum::int8_traits;

inline size_t align64(size_t x) { return (x + 63) / 64 * 64; }

// One group: `rows` base rows of `degree` edges; edge j of row r is edge
// edge0 + j * rows + r (its column in d_col, shift in d_shift, messages at R + edge * Z).
struct group {
    int rows, degree;
    size_t edge0;
};

// Q_j = sat(L[col] - R_j) for one edge of every row of a Z = 1 group: a plain gather
// into G, then the arithmetic in SIMD lanes.
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

// A worker's buffers, sized at construction for the code and the arithmetic.
struct ldpc_scratch : scratch {
    std::vector<int32_t> acc;      // de-rate-matching sums, n
    std::vector<uint8_t> storage;  // L (n), R (edges * Z), Q (largest group), typed
    std::vector<uint8_t> lanes;    // min1, min2, pos, sign, V per lane of a group
    std::vector<uint8_t> hard;     // n hard decisions
    std::vector<uint8_t> syndrome; // per lane of a group
};

class ldpc_decoder_cpu : public fixed_length_cpu_decoder
{
public:
    ldpc_decoder_cpu(const ldpc_graph& graph, const ldpc_decoder_options& opt)
        : fixed_length_cpu_decoder("ldpc", checked(graph).e(), graph.k()),
          d_z(graph.z),
          d_n(graph.n()),
          d_k(graph.k()),
          d_info(graph.info_positions),
          d_map(graph.channel_map),
          d_desc(graph.description),
          d_cfg(opt,
                graph.z == 1 ? 1e6f // caps a degree-1 row's missing second minimum
                             : std::numeric_limits<float>::infinity())
    {
        if (opt.int4_input)
            set_int4_input_step(int4_llr_step);
        d_identity = graph.e() == d_n && graph.known_zeros.empty();
        for (int i = 0; d_identity && i < d_n; i++)
            d_identity = d_map[i] == i;

        d_layer_groups.push_back(0);
        d_layer_zeros.push_back(0);
        const auto& zeros = graph.known_zeros;
        for (int l = 0; l < graph.layers(); l++) {
            std::vector<int> by_degree;
            for (int b = graph.layer_start[l]; b < graph.layer_start[l + 1]; b++)
                by_degree.push_back(b);
            auto degree = [&](int b) {
                return graph.row_start[b + 1] - graph.row_start[b];
            };
            std::stable_sort(by_degree.begin(), by_degree.end(), [&](int a, int b) {
                return degree(a) < degree(b);
            });
            for (size_t i = 0; i < by_degree.size();) {
                const int deg = degree(by_degree[i]);
                size_t e = i;
                while (e < by_degree.size() && degree(by_degree[e]) == deg)
                    e++;
                const int count = static_cast<int>(e - i);
                const group g{ count, deg, d_col.size() };
                d_col.resize(d_col.size() + static_cast<size_t>(count) * deg);
                d_shift.resize(d_col.size());
                for (int r = 0; r < count; r++) {
                    const int first = graph.row_start[by_degree[i + r]];
                    for (int j = 0; j < deg; j++) {
                        const size_t at = g.edge0 + static_cast<size_t>(j) * count + r;
                        d_col[at] = graph.edge_col[first + j];
                        d_shift[at] = graph.edge_shift[first + j];
                    }
                }
                d_groups.push_back(g);
                // Lanes: Z of one base row (lifted) or one per row of the group.
                const size_t lanes = d_z > 1 ? static_cast<size_t>(d_z) : count;
                d_max_lanes = std::max(d_max_lanes, lanes);
                d_max_q = std::max(d_max_q, lanes * deg);
                i = e;
            }
            d_layer_groups.push_back(static_cast<int>(d_groups.size()));
            // The known zeros in the layer's columns, pinned again after the layer.
            for (int b = graph.layer_start[l]; b < graph.layer_start[l + 1]; b++)
                for (int i = graph.row_start[b]; i < graph.row_start[b + 1]; i++) {
                    const int c = graph.edge_col[i];
                    auto lo = std::lower_bound(zeros.begin(), zeros.end(), c * d_z);
                    auto hi = std::lower_bound(lo, zeros.end(), (c + 1) * d_z);
                    d_zeros.insert(d_zeros.end(), lo, hi);
                }
            d_layer_zeros.push_back(static_cast<int>(d_zeros.size()));
        }
        d_all_zeros = zeros;
    }

    bool has_soft_output() const override { return true; }

    std::unique_ptr<scratch> make_scratch() const override
    {
        auto s = std::make_unique<ldpc_scratch>();
        switch (d_cfg.options().arithmetic) {
        case ldpc_arithmetic::int8:
            size_scratch<int8_traits>(*s);
            break;
        case ldpc_arithmetic::half:
            size_scratch<half_traits>(*s);
            break;
        default:
            size_scratch<float_traits>(*s);
        }
        return s;
    }

    frame_status decode_one(const llr8_t* llrs,
                            uint8_t* packed,
                            float* soft,
                            const exec_ctx& ctx,
                            size_t worker) override
    {
        ldpc_scratch& ws = ctx.worker_scratch<ldpc_scratch>(worker);
        return d_z > 1 ? decode<true>(llrs, packed, soft, ws)
                       : decode<false>(llrs, packed, soft, ws);
    }

    std::string name() const override { return d_desc + " " + d_cfg.describe(); }

private:
    static const ldpc_graph& checked(const ldpc_graph& graph)
    {
        graph.validate();
        return graph;
    }

    size_t edges() const { return d_col.size(); }

    template <bool Lifted>
    frame_status
    decode(const llr8_t* in, uint8_t* out, float* soft, ldpc_scratch& ws) const
    {
        switch (d_cfg.options().arithmetic) {
        case ldpc_arithmetic::int8:
            return decode_frame<int8_traits, Lifted>(in, out, soft, ws);
        case ldpc_arithmetic::half:
            return decode_frame<half_traits, Lifted>(in, out, soft, ws);
        default:
            return decode_frame<float_traits, Lifted>(in, out, soft, ws);
        }
    }

    // Byte offsets of R and Q in ldpc_scratch::storage, and its size.
    template <typename Tr>
    size_t r_offset() const
    {
        return align64(sizeof(typename Tr::store) * d_n);
    }
    template <typename Tr>
    size_t q_offset() const
    {
        return align64(r_offset<Tr>() + sizeof(typename Tr::msg) * edges() * d_z);
    }
    template <typename Tr>
    size_t lane_bytes() const
    {
        return align64(sizeof(typename Tr::work) * d_max_lanes);
    }

    template <typename Tr>
    void size_scratch(ldpc_scratch& s) const
    {
        s.acc.resize(d_n);
        s.storage.resize(q_offset<Tr>() + sizeof(typename Tr::work) * d_max_q);
        s.lanes.resize(5 * lane_bytes<Tr>());
        s.hard.resize(d_n);
        s.syndrome.resize(d_max_lanes);
    }

    // Channel LLRs onto the codeword: repeated positions add up, positions no LLR
    // reaches stay 0, known zeros are pinned.
    template <typename Tr>
    void load_channel(const llr8_t* in, typename Tr::store* L, ldpc_scratch& ws) const
    {
        typedef typename Tr::store S;
        if (d_identity) {
            for (int v = 0; v < d_n; v++)
                L[v] = static_cast<S>(in[v]);
            return;
        }
        int32_t* acc = ws.acc.data();
        std::fill(acc, acc + d_n, 0);
        const int* map = d_map.data();
        const int e = static_cast<int>(d_map.size());
        for (int i = 0; i < e; i++)
            acc[map[i]] += in[i];
        for (int v = 0; v < d_n; v++)
            L[v] = Tr::from_sum(acc[v]);
        for (int v : d_all_zeros)
            L[v] = static_cast<S>(Tr::filler);
    }

    template <typename Tr, bool Lifted>
    bool checks_hold(const typename Tr::store* L, ldpc_scratch& ws) const
    {
        uint8_t* h = ws.hard.data();
        for (int v = 0; v < d_n; v++)
            h[v] = L[v] < 0;
        uint8_t* s = ws.syndrome.data();
        const int z = d_z;
        for (const group& g : d_groups) {
            const int32_t* col = d_col.data() + g.edge0;
            const int32_t* shift = d_shift.data() + g.edge0;
            // Lifted: one base row (Z lanes) at a time; Z = 1: all rows of the group.
            const int passes = Lifted ? g.rows : 1;
            const int lanes = Lifted ? z : g.rows;
            for (int b = 0; b < passes; b++) {
                std::fill(s, s + lanes, 0);
                for (int j = 0; j < g.degree; j++) {
                    if (Lifted) {
                        const size_t e = static_cast<size_t>(j) * g.rows + b;
                        const uint8_t* hv = h + col[e] * z;
                        const int sh = shift[e], head = z - sh;
                        for (int r = 0; r < head; r++)
                            s[r] ^= hv[r + sh];
                        for (int r = head; r < z; r++)
                            s[r] ^= hv[r - head];
                    } else {
                        const int32_t* c = col + static_cast<size_t>(j) * g.rows;
                        for (int r = 0; r < lanes; r++)
                            s[r] ^= h[c[r]];
                    }
                }
                uint8_t any = 0;
                for (int r = 0; r < lanes; r++)
                    any |= s[r];
                if (any)
                    return false;
            }
        }
        return true;
    }

    template <typename Tr, bool Lifted>
    frame_status
    decode_frame(const llr8_t* in, uint8_t* out, float* soft, ldpc_scratch& ws) const
    {
        typedef typename Tr::store S;
        typedef typename Tr::msg M;
        typedef typename Tr::index I;
        typedef typename Tr::work W;
        static_assert(sizeof(I) == sizeof(W) && sizeof(S) == sizeof(W), "lane sizes");
        S* L = reinterpret_cast<S*>(ws.storage.data());
        M* R = reinterpret_cast<M*>(ws.storage.data() + r_offset<Tr>());
        W* Q = reinterpret_cast<W*>(ws.storage.data() + q_offset<Tr>());
        std::memset(R, 0, sizeof(M) * edges() * d_z);
        const size_t lane = lane_bytes<Tr>();
        W* min1 = reinterpret_cast<W*>(ws.lanes.data());
        W* min2 = reinterpret_cast<W*>(ws.lanes.data() + lane);
        I* pos = reinterpret_cast<I*>(ws.lanes.data() + 2 * lane);
        I* sign = reinterpret_cast<I*>(ws.lanes.data() + 3 * lane);
        S* V = reinterpret_cast<S*>(ws.lanes.data() + 4 * lane);

        load_channel<Tr>(in, L, ws);

        // Locals, not members, inside the loops: an int8 message store may alias any
        // member, which would then be reloaded after every store.
        const int z = d_z;
        const int32_t* cols = d_col.data();
        const int32_t* shifts = d_shift.data();
        const group* groups = d_groups.data();
        const int* layer_groups = d_layer_groups.data();
        const int* layer_zeros = d_layer_zeros.data();
        const int* zeros = d_zeros.data();
        const int layers = static_cast<int>(d_layer_groups.size()) - 1;
        const ldpc_decoder_options& opt = d_cfg.options();
        const int iterations = opt.iterations;
        const bool early = opt.early_termination;
        frame_status st{ 0, false };
        // An explicit loop, not a lambda around the layers: captured pointers would be
        // reloaded after every int8 message store (~8% slower).
        for (int it = 0; it < iterations; it++) {
            for (int l = 0; l < layers; l++) {
                for (int gi = layer_groups[l]; gi < layer_groups[l + 1]; gi++) {
                    const group g = groups[gi];
                    const int rows = g.rows, deg = g.degree;
                    const int32_t* col = cols + g.edge0;
                    M* Rg = R + g.edge0 * z;
                    if (Lifted) {
                        // One base row at a time, in Z lanes: each circulant is two
                        // contiguous runs of L (fewer live values than all the rows
                        // of the group at once, which costs ~10% in spills).
                        const int32_t* shift = shifts + g.edge0;
                        for (int b = 0; b < rows; b++) {
                            min_sum::reset_minima<Tr>(min1, min2, pos, sign, z);
                            for (int j = 0; j < deg; j++) {
                                const size_t e = static_cast<size_t>(j) * rows + b;
                                const S* Lv = L + col[e] * z;
                                const M* Rc = Rg + e * z;
                                W* Qj = Q + static_cast<size_t>(j) * z;
                                const int sh = shift[e], head = z - sh;
                                min_sum::load_q<Tr>(Lv + sh, Rc, Qj, head);
                                min_sum::load_q<Tr>(Lv, Rc + head, Qj + head, sh);
                                min_sum::track_minima<Tr>(
                                    Qj, min1, min2, pos, sign, I(j), z);
                            }
                            // Reuse min1/min2 as the two scaled magnitudes.
                            d_cfg.scale_minima(min1, z);
                            d_cfg.scale_minima(min2, z);
                            for (int j = 0; j < deg; j++) {
                                const size_t e = static_cast<size_t>(j) * rows + b;
                                S* Lv = L + col[e] * z;
                                M* Rc = Rg + e * z;
                                const W* Qj = Q + static_cast<size_t>(j) * z;
                                const int sh = shift[e], head = z - sh;
                                min_sum::store_update<Tr>(
                                    Qj, min1, min2, pos, sign, I(j), Rc, Lv + sh, head);
                                min_sum::store_update<Tr>(Qj + head,
                                                          min1 + head,
                                                          min2 + head,
                                                          pos + head,
                                                          sign + head,
                                                          I(j),
                                                          Rc + head,
                                                          Lv,
                                                          sh);
                            }
                        }
                    } else {
                        // All rows of the group side by side, one lane each.
                        min_sum::reset_minima<Tr>(min1, min2, pos, sign, rows);
                        for (int j = 0; j < deg; j++) {
                            const size_t o = static_cast<size_t>(j) * rows;
                            gather_q<Tr>(L, col + o, Rg + o, V, Q + o, rows);
                            min_sum::track_minima<Tr>(
                                Q + o, min1, min2, pos, sign, I(j), rows);
                        }
                        d_cfg.scale_minima(min1, rows);
                        d_cfg.scale_minima(min2, rows);
                        for (int j = 0; j < deg; j++) {
                            const size_t o = static_cast<size_t>(j) * rows;
                            // The updated APP values go to V, then scattered.
                            min_sum::store_update<Tr>(
                                Q + o, min1, min2, pos, sign, I(j), Rg + o, V, rows);
                            scatter<S>(L, col + o, V, rows);
                        }
                    }
                }
                // Known zero bits stay pinned (no other row of the layer reads them).
                if (Tr::pin_known_zeros)
                    for (int i = layer_zeros[l]; i < layer_zeros[l + 1]; i++)
                        L[zeros[i]] = static_cast<S>(Tr::filler);
            }
            st.iterations = it + 1;
            if (early || it + 1 == iterations) {
                st.ok = checks_hold<Tr, Lifted>(L, ws);
                if (st.ok && early)
                    break;
            }
        }
        const int* info = d_info.data();
        min_sum::write_info_bits(
            L, d_k, [info](int i) { return info[i]; }, out, soft);
        return st;
    }

    int d_z, d_n, d_k;
    std::vector<int> d_info, d_map;
    std::string d_desc;
    min_sum::config d_cfg;
    bool d_identity = false;
    std::vector<group> d_groups;
    std::vector<int32_t> d_col, d_shift; // per edge, group by group, edge-major
    std::vector<int> d_layer_groups;     // [layers + 1] into d_groups
    std::vector<int> d_zeros;            // known zeros touched, layer by layer
    std::vector<int> d_layer_zeros;      // [layers + 1] into d_zeros
    std::vector<int> d_all_zeros;
    size_t d_max_lanes = 1, d_max_q = 1;
};

} // namespace

std::unique_ptr<batch_decoder> make_ldpc_decoder_cpu(const ldpc_graph& graph,
                                                     const ldpc_decoder_options& options)
{
    return std::make_unique<ldpc_decoder_cpu>(graph, options);
}

std::unique_ptr<batch_decoder> make_ldpc_decoder_cpu(const nr_ldpc_code& code,
                                                     const ldpc_decoder_options& options)
{
    return make_ldpc_decoder_cpu(code.graph(), options);
}

std::unique_ptr<batch_decoder> make_ldpc_decoder_cpu(const ldpc_alist_code& code,
                                                     const ldpc_decoder_options& options)
{
    return make_ldpc_decoder_cpu(code.graph(), options);
}

} // namespace gpufec
