/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// TEST-ONLY: a frozen copy of the two CPU LDPC decoders as they were before the merge
// into one graph decoder (lib/cpu/ldpc_cpu.cc for NR codes, lib/cpu/ldpc_alist_cpu.cc
// for alist codes, and their shared lib/cpu/min_sum_kernels.h, at commit 251ab7b), so
// test_ldpc_graph.cc can assert that the merged decoder is bit-identical to them. Only
// namespaces and maker names changed; do not edit the arithmetic.
#ifndef INCLUDED_GPUFEC_TEST_LDPC_REFERENCE_H
#define INCLUDED_GPUFEC_TEST_LDPC_REFERENCE_H

#include "cpu/fixed_length_decoder.h"
#include <gpufec/ldpc_alist.h>
#include <gpufec/ldpc_decoding.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {
namespace ldpc_reference {
namespace min_sum_ref {

constexpr int llr_max = 127;
constexpr int app_max = 32000;

struct int8_traits {
    typedef int16_t store; // APP
    typedef int8_t msg;    // check messages
    typedef int16_t work;  // Q and minima
    typedef int16_t index; // position of the minimum, sign product (lane-sized)
    static constexpr work filler = app_max; // a known zero bit
    static inline work sat(int x)
    {
        return static_cast<work>(x > app_max ? app_max : (x < -app_max ? -app_max : x));
    }
    static inline store from_sum(int x) { return sat(x); }
    static constexpr work big = 32767;
};

struct float_traits {
    typedef float store;
    typedef float msg;
    typedef float work;
    typedef int32_t index;
    static constexpr float filler = 1e6f;
    static inline float sat(float x) { return x; }
    static inline store from_sum(int x) { return static_cast<float>(x); }
    static constexpr float big = 3e38f;
};

// The kernels run over n rows (one edge of each); restrict lets them vectorise.

//! Q = sat(L - R).
template <typename Tr>
inline void load_q(const typename Tr::store* __restrict__ L,
                   const typename Tr::msg* __restrict__ R,
                   typename Tr::work* __restrict__ Q,
                   int n)
{
    for (int r = 0; r < n; r++)
        Q[r] = Tr::sat(L[r] - R[r]);
}

//! Starts the minima of n rows: none seen, sign product positive.
template <typename Tr>
inline void reset_minima(typename Tr::work* min1,
                         typename Tr::work* min2,
                         typename Tr::index* pos,
                         typename Tr::index* sign,
                         int n)
{
    std::fill(min1, min1 + n, Tr::big);
    std::fill(min2, min2 + n, Tr::big);
    std::fill(pos, pos + n, typename Tr::index(0));
    std::fill(sign, sign + n, typename Tr::index(0));
}

//! Folds edge j's Q into the two minima, the minimum's position and the sign product.
template <typename Tr>
inline void track_minima(const typename Tr::work* __restrict__ Q,
                         typename Tr::work* __restrict__ min1,
                         typename Tr::work* __restrict__ min2,
                         typename Tr::index* __restrict__ pos,
                         typename Tr::index* __restrict__ sign,
                         typename Tr::index j,
                         int n)
{
    typedef typename Tr::work W;
    typedef typename Tr::index I;
    for (int r = 0; r < n; r++) {
        const W q = Q[r];
        const W a = q < 0 ? W(-q) : q;
        const W m1 = min1[r];
        const W m2 = min2[r];
        const I p = pos[r];
        sign[r] = sign[r] ^ static_cast<I>(q < 0);
        // Plain selects (no std::min/max references) so GCC vectorises the int16 case.
        const W lo = a < m1 ? a : m1;
        const W hi = a < m1 ? m1 : a;
        pos[r] = a < m1 ? j : p;
        min2[r] = hi < m2 ? hi : m2;
        min1[r] = lo;
    }
}

//! Edge j's new messages R from the scaled minima mag1/mag2, and the updated APP
//! values sat(Q + R) into L.
template <typename Tr>
inline void store_update(const typename Tr::work* __restrict__ Q,
                         const typename Tr::work* __restrict__ mag1,
                         const typename Tr::work* __restrict__ mag2,
                         const typename Tr::index* __restrict__ pos,
                         const typename Tr::index* __restrict__ sign,
                         typename Tr::index j,
                         typename Tr::msg* __restrict__ R,
                         typename Tr::store* __restrict__ L,
                         int n)
{
    typedef typename Tr::work W;
    typedef typename Tr::index I;
    for (int r = 0; r < n; r++) {
        const W q = Q[r];
        const W m1 = mag1[r], m2 = mag2[r]; // both loaded: no branch, so it vectorises
        const W mag = pos[r] == j ? m2 : m1;
        const I neg = sign[r] ^ static_cast<I>(q < 0);
        const W rn = mag * W(1 - 2 * neg);
        R[r] = static_cast<typename Tr::msg>(rn);
        L[r] = static_cast<typename Tr::store>(Tr::sat(q + rn));
    }
}

//! Hard decisions (bit = L < 0) of the k info bits L[at(i)], packed MSB first, and
//! their APP values into `soft` when it is not null.
template <typename S, typename At>
inline void write_info_bits(const S* L, int k, At at, uint8_t* out, float* soft)
{
    std::memset(out, 0, packed_bytes(k));
    for (int i = 0; i < k; i++)
        if (L[at(i)] < 0)
            out[i >> 3] |= static_cast<uint8_t>(0x80u >> (i & 7));
    if (soft)
        for (int i = 0; i < k; i++)
            soft[i] = static_cast<float>(L[at(i)]);
}

//! The validated decoder options and the check-message magnitudes they define.
class config
{
public:
    //! Throws gpufec::error naming the allowed values. Float minima are capped at
    //! `float_cap` before scaling (a row of degree 1 has no second minimum).
    explicit config(const ldpc_decoder_options& opt,
                    float float_cap = std::numeric_limits<float>::infinity())
        : d_opt(opt), d_float_cap(float_cap)
    {
        if (opt.iterations < 1 || opt.iterations > 100)
            throw error("ldpc decoder: iterations = " + std::to_string(opt.iterations) +
                        "; allowed: 1..100");
        if (opt.algorithm != ldpc_algorithm::normalized &&
            opt.algorithm != ldpc_algorithm::offset)
            throw error("ldpc decoder: algorithm unknown; allowed: normalized, offset");
        if (opt.arithmetic != ldpc_arithmetic::int8 &&
            opt.arithmetic != ldpc_arithmetic::float32)
            throw error("ldpc decoder: arithmetic unknown; allowed: int8, float");
        if (opt.algorithm == ldpc_algorithm::normalized &&
            !(opt.alpha > 0.0f && opt.alpha <= 1.0f))
            throw error("ldpc decoder: alpha = " + std::to_string(opt.alpha) +
                        "; allowed: 0 < alpha <= 1");
        if (opt.algorithm == ldpc_algorithm::offset &&
            !(opt.beta >= 0.0f && opt.beta <= 127.0f))
            throw error("ldpc decoder: beta = " + std::to_string(opt.beta) +
                        "; allowed: 0 <= beta <= 127 (input LLR units)");
        d_alpha16 = std::max(1, static_cast<int>(std::lround(opt.alpha * 16.0f)));
        d_beta_int = static_cast<int>(std::lround(opt.beta));
    }

    const ldpc_decoder_options& options() const { return d_opt; }

    //! "normalized min-sum int8 x10 on cpu": the options part of a decoder's name.
    std::string describe() const
    {
        return std::string(d_opt.algorithm == ldpc_algorithm::normalized ? "normalized"
                                                                         : "offset") +
               " min-sum " +
               (d_opt.arithmetic == ldpc_arithmetic::int8 ? "int8" : "float") + " x" +
               std::to_string(d_opt.iterations) + " on cpu";
    }

    //! Check-message magnitudes from the minima, in place.
    void scale_minima(int16_t* __restrict__ m, int n) const
    {
        // A minimum above 127 only arises with no second minimum or a saturated APP;
        // messages stay int8.
        if (d_opt.algorithm == ldpc_algorithm::normalized) {
            const int a = d_alpha16;
            for (int r = 0; r < n; r++)
                m[r] = static_cast<int16_t>((std::min<int>(m[r], llr_max) * a) >> 4);
        } else {
            const int b = d_beta_int;
            for (int r = 0; r < n; r++)
                m[r] =
                    static_cast<int16_t>(std::max(std::min<int>(m[r], llr_max) - b, 0));
        }
    }
    void scale_minima(float* __restrict__ m, int n) const
    {
        // The cap inside the scaling loop (a pass of its own costs the alist decoder
        // ~7%), and no cap at all where there is none (~1% for the NR decoder).
        if (d_float_cap < std::numeric_limits<float>::infinity())
            scale_float(m, n, [cap = d_float_cap](float x) { return std::min(x, cap); });
        else
            scale_float(m, n, [](float x) { return x; });
    }

private:
    template <typename Cap>
    void scale_float(float* __restrict__ m, int n, Cap cap) const
    {
        if (d_opt.algorithm == ldpc_algorithm::normalized) {
            const float a = d_opt.alpha;
            for (int r = 0; r < n; r++)
                m[r] = cap(m[r]) * a;
        } else {
            const float b = d_opt.beta;
            for (int r = 0; r < n; r++)
                m[r] = std::max(cap(m[r]) - b, 0.0f);
        }
    }

    ldpc_decoder_options d_opt;
    float d_float_cap;
    int d_alpha16 = 12;
    int d_beta_int = 4;
};

} // namespace min_sum_ref
} // namespace ldpc_reference
} // namespace gpufec


namespace gpufec {
namespace ldpc_reference {

namespace nr {

using min_sum_ref::float_traits;
using min_sum_ref::int8_traits;

struct workspace {
    std::vector<int32_t> acc;
    std::vector<uint8_t> storage; // L, R, Q (typed by the arithmetic)
    std::vector<uint8_t> mins;    // min1, min2, pos, sign per check row
    std::vector<uint8_t> hard, syndrome;
};

class ldpc_decoder_cpu : public fixed_length_cpu_decoder
{
public:
    ldpc_decoder_cpu(const nr_ldpc_code& code, const ldpc_decoder_options& opt)
        : fixed_length_cpu_decoder("ldpc", code.e(), code.k()), d_code(code), d_cfg(opt)
    {
        const auto& circ = code.circulants();
        d_row_start.assign(code.base_rows() + 1, 0);
        for (const auto& c : circ)
            d_row_start[c.row + 1]++;
        for (int i = 0; i < code.base_rows(); i++) {
            d_row_start[i + 1] += d_row_start[i];
            d_max_degree = std::max(d_max_degree, d_row_start[i + 1] - d_row_start[i]);
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

    std::string name() const override
    {
        return "ldpc BG" + std::to_string(d_code.bg()) +
               " Z=" + std::to_string(d_code.z()) + " k=" + std::to_string(d_code.k()) +
               " e=" + std::to_string(d_code.e()) + " " + d_cfg.describe();
    }

private:
    // Channel LLRs onto the full codeword: repeated positions add up, punctured and
    // unread positions stay 0, fillers are known zeros.
    template <typename Tr>
    void derate_match(const llr8_t* in, typename Tr::store* L, workspace& ws) const
    {
        const int z = d_code.z(), k = d_code.k(), kmax = d_code.k_max();
        const int total = d_code.codeword_bits(), n_cb = d_code.n();
        ws.acc.assign(total, 0);
        int32_t* d = ws.acc.data() + 2 * z;
        const int filler_begin = k - 2 * z, filler_end = kmax - 2 * z;
        int j = 0;
        for (int i = 0; i < d_code.e();) {
            if (j < filler_begin || j >= filler_end)
                d[j] += in[i++];
            if (++j == n_cb)
                j = 0;
        }
        for (int v = 0; v < total; v++)
            L[v] = Tr::from_sum(ws.acc[v]);
        for (int v = k; v < kmax; v++)
            L[v] = static_cast<typename Tr::store>(Tr::filler);
    }

    template <typename Tr>
    bool checks_hold(const typename Tr::store* L, workspace& ws) const
    {
        const int z = d_code.z(), total = d_code.codeword_bits();
        ws.hard.resize(total);
        for (int v = 0; v < total; v++)
            ws.hard[v] = L[v] < 0;
        ws.syndrome.resize(z);
        const auto& circ = d_code.circulants();
        for (int i = 0; i < d_code.base_rows(); i++) {
            std::fill(ws.syndrome.begin(), ws.syndrome.end(), 0);
            uint8_t* s = ws.syndrome.data();
            for (int c = d_row_start[i]; c < d_row_start[i + 1]; c++) {
                const uint8_t* h = ws.hard.data() + circ[c].col * z;
                const int sh = circ[c].shift, head = z - sh;
                for (int r = 0; r < head; r++)
                    s[r] ^= h[r + sh];
                for (int r = head; r < z; r++)
                    s[r] ^= h[r - head];
            }
            for (int r = 0; r < z; r++)
                if (s[r])
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
        const int z = d_code.z(), total = d_code.codeword_bits();
        const int k = d_code.k(), kmax = d_code.k_max();
        const auto& circ = d_code.circulants();
        const size_t r_offset = (sizeof(S) * total + 63) / 64 * 64;
        const size_t q_offset = (r_offset + sizeof(M) * circ.size() * z + 63) / 64 * 64;
        ws.storage.assign(q_offset + sizeof(W) * static_cast<size_t>(d_max_degree) * z,
                          0); // R starts at 0
        S* L = reinterpret_cast<S*>(ws.storage.data());
        M* R = reinterpret_cast<M*>(ws.storage.data() + r_offset);
        W* Q = reinterpret_cast<W*>(ws.storage.data() + q_offset);
        ws.mins.resize((2 * sizeof(W) + 2 * sizeof(I)) * z + 64);
        W* min1 = reinterpret_cast<W*>(ws.mins.data());
        W* min2 = min1 + z;
        I* pos = reinterpret_cast<I*>(min2 + z);
        I* sign = pos + z;

        derate_match<Tr>(in, L, ws);

        const ldpc_decoder_options& opt = d_cfg.options();
        frame_status st{ 0, false };
        // An explicit loop, not a lambda around the layers: captured pointers would be
        // reloaded after every int8 message store (~8% slower).
        for (int it = 0; it < opt.iterations; it++) {
            for (int i = 0; i < d_code.base_rows(); i++) {
                const int c0 = d_row_start[i], deg = d_row_start[i + 1] - c0;
                min_sum_ref::reset_minima<Tr>(min1, min2, pos, sign, z);
                for (int j = 0; j < deg; j++) {
                    const ldpc_circulant& c = circ[c0 + j];
                    const S* Lv = L + c.col * z;
                    const M* Rc = R + static_cast<size_t>(c0 + j) * z;
                    W* Qj = Q + static_cast<size_t>(j) * z;
                    const int sh = c.shift, head = z - sh;
                    min_sum_ref::load_q<Tr>(Lv + sh, Rc, Qj, head);
                    min_sum_ref::load_q<Tr>(Lv, Rc + head, Qj + head, sh);
                    min_sum_ref::track_minima<Tr>(Qj, min1, min2, pos, sign, I(j), z);
                }
                // Reuse min1/min2 as the two scaled magnitudes.
                d_cfg.scale_minima(min1, z);
                d_cfg.scale_minima(min2, z);
                for (int j = 0; j < deg; j++) {
                    const ldpc_circulant& c = circ[c0 + j];
                    S* Lv = L + c.col * z;
                    M* Rc = R + static_cast<size_t>(c0 + j) * z;
                    const W* Qj = Q + static_cast<size_t>(j) * z;
                    const int sh = c.shift, head = z - sh;
                    min_sum_ref::store_update<Tr>(
                        Qj, min1, min2, pos, sign, I(j), Rc, Lv + sh, head);
                    min_sum_ref::store_update<Tr>(Qj + head,
                                              min1 + head,
                                              min2 + head,
                                              pos + head,
                                              sign + head,
                                              I(j),
                                              Rc + head,
                                              Lv,
                                              sh);
                    // Known filler bits stay pinned.
                    const int lo = std::max(k, c.col * z),
                              hi = std::min(kmax, (c.col + 1) * z);
                    for (int v = lo; v < hi; v++)
                        L[v] = static_cast<S>(Tr::filler);
                }
            }
            st.iterations = it + 1;
            if (opt.early_termination || it + 1 == opt.iterations) {
                st.ok = checks_hold<Tr>(L, ws);
                if (st.ok && opt.early_termination)
                    break;
            }
        }
        min_sum_ref::write_info_bits(
            L, k, [](int i) { return i; }, out, soft);
        return st;
    }

    nr_ldpc_code d_code;
    min_sum_ref::config d_cfg;
    int d_max_degree = 0;
    std::vector<int> d_row_start;
};

} // namespace nr
using nr::ldpc_decoder_cpu;

inline std::unique_ptr<batch_decoder> make_nr_decoder(const nr_ldpc_code& code,
                                                     const ldpc_decoder_options& options)
{
    return std::make_unique<ldpc_decoder_cpu>(code, options);
}

} // namespace ldpc_reference
} // namespace gpufec

namespace gpufec {
namespace ldpc_reference {

namespace alist {

using min_sum_ref::float_traits;
using min_sum_ref::int8_traits;

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
    min_sum_ref::load_q<Tr>(G, R, Q, n);
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
                min_sum_ref::reset_minima<Tr>(min1, min2, pos, sign, c);
                for (int j = 0; j < g.degree; j++) {
                    const size_t o = static_cast<size_t>(j) * c;
                    gather_q<Tr>(L, col + o, Rg + o, V, Q + o, c);
                    min_sum_ref::track_minima<Tr>(Q + o, min1, min2, pos, sign, I(j), c);
                }
                // Reuse min1/min2 as the two scaled magnitudes.
                d_cfg.scale_minima(min1, c);
                d_cfg.scale_minima(min2, c);
                for (int j = 0; j < g.degree; j++) {
                    const size_t o = static_cast<size_t>(j) * c;
                    // The updated APP values go to V, then scattered.
                    min_sum_ref::store_update<Tr>(
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
        min_sum_ref::write_info_bits(
            L, d_k, [this](int i) { return d_info[i]; }, out, soft);
        return st;
    }

    int d_n, d_k;
    std::vector<int> d_info;
    std::string d_desc;
    min_sum_ref::config d_cfg;
    std::vector<group> d_groups;
    std::vector<int32_t> d_col; // edge -> column, group by group
    int d_max_rows = 1;
    size_t d_max_edges = 1;
};

} // namespace alist
using alist::ldpc_alist_decoder_cpu;

inline std::unique_ptr<batch_decoder> make_alist_decoder(const ldpc_alist_code& code,
                                                     const ldpc_decoder_options& options)
{
    return std::make_unique<ldpc_alist_decoder_cpu>(code, options);
}

} // namespace ldpc_reference
} // namespace gpufec

#endif
