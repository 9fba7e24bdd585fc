/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU layered min-sum decoder of LDPC codes given by an alist matrix (ldpc_alist.h).
//
// Schedule (normative for bit-exactness of the int8 path): the layers of
// ldpc_alist_code::layers() in order; rows of a layer share no column, so they are
// processed side by side. For a row with columns c_0 < c_1 < ... and each edge j: Q_j =
// sat(L[c_j] - R_j); min1 <= min2 the two smallest |Q_j| (position of the first strict
// minimum), s the sign product (Q >= 0 counts as positive); m = min(min, 127), mag =
// (m * round(16 alpha)) >> 4 (normalised) or max(m - round(beta), 0) (offset); R_j =
// +/-mag (min2 for the minimum's edge), L[c_j] = sat(Q_j + R_j). This is the NR decoder's
// arithmetic (ldpc_cpu.cc): int8 check messages, int16 APP saturating at +/-32000, or
// float (minima capped at 1e6 only so that a degree-1 row, whose second minimum does not
// exist, cannot swamp the APP). Hard decision: bit = L < 0. Early termination checks
// every row after each iteration.
//
// Layout: each layer is split into groups of rows of equal degree, and a group's edges
// are stored edge-major (edge j of all its rows together), so the minima and updates run
// across rows in SIMD lanes; only the gathers and scatters of L are per edge.
#include "cpu/fixed_length_decoder.h"
#include <gpufec/ldpc_alist.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace gpufec {

namespace {

constexpr int llr_max = 127;
constexpr int app_max = 32000;

struct int8_traits {
    typedef int16_t store; // APP
    typedef int8_t msg;    // check messages
    typedef int16_t work;  // Q and minima
    typedef int16_t index; // position of the minimum, sign product (lane-sized)
    static inline work sat(int x)
    {
        return static_cast<work>(x > app_max ? app_max : (x < -app_max ? -app_max : x));
    }
    static constexpr work big = 32767;
};

struct float_traits {
    typedef float store;
    typedef float msg;
    typedef float work;
    typedef int32_t index;
    static inline float sat(float x) { return x; }
    static constexpr float big = 3e38f;
};

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
    for (int r = 0; r < n; r++)
        Q[r] = Tr::sat(G[r] - R[r]);
}

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
        // Plain selects so that GCC vectorises the int16 case.
        const W lo = a < m1 ? a : m1;
        const W hi = a < m1 ? m1 : a;
        pos[r] = a < m1 ? j : p;
        min2[r] = hi < m2 ? hi : m2;
        min1[r] = lo;
    }
}

// New messages of one edge of every row, and the updated APP values into V (scattered
// by the caller).
template <typename Tr>
inline void update(const typename Tr::work* __restrict__ Q,
                   const typename Tr::work* __restrict__ mag1,
                   const typename Tr::work* __restrict__ mag2,
                   const typename Tr::index* __restrict__ pos,
                   const typename Tr::index* __restrict__ sign,
                   typename Tr::index j,
                   typename Tr::msg* __restrict__ R,
                   typename Tr::store* __restrict__ V,
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
        V[r] = static_cast<typename Tr::store>(Tr::sat(q + rn));
    }
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
          d_opt(opt)
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

    frame_status decode_one(const llr8_t* llrs, uint8_t* packed, float* soft) override
    {
        thread_local workspace ws;
        if (d_opt.arithmetic == ldpc_arithmetic::int8)
            return decode_frame<int8_traits>(llrs, packed, soft, ws);
        return decode_frame<float_traits>(llrs, packed, soft, ws);
    }

    std::string name() const override
    {
        return d_desc + " " +
               (d_opt.algorithm == ldpc_algorithm::normalized ? "normalized" : "offset") +
               " min-sum " +
               (d_opt.arithmetic == ldpc_arithmetic::int8 ? "int8" : "float") + " x" +
               std::to_string(d_opt.iterations) + " on cpu";
    }

private:
    // Check-message magnitudes from the minima, in place (see the schedule above).
    void scale_minima(int16_t* __restrict__ m, int n) const
    {
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
        constexpr float cap = 1e6f;
        if (d_opt.algorithm == ldpc_algorithm::normalized) {
            const float a = d_opt.alpha;
            for (int r = 0; r < n; r++)
                m[r] = std::min(m[r], cap) * a;
        } else {
            const float b = d_opt.beta;
            for (int r = 0; r < n; r++)
                m[r] = std::max(std::min(m[r], cap) - b, 0.0f);
        }
    }

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

        frame_status st{ 0, false };
        for (int it = 0; it < d_opt.iterations; it++) {
            for (const group& g : d_groups) {
                const int c = g.rows;
                const int32_t* col = d_col.data() + g.edge0;
                M* Rg = R + g.edge0;
                std::fill(min1, min1 + c, Tr::big);
                std::fill(min2, min2 + c, Tr::big);
                std::fill(pos, pos + c, I(0));
                std::fill(sign, sign + c, I(0));
                for (int j = 0; j < g.degree; j++) {
                    const size_t o = static_cast<size_t>(j) * c;
                    gather_q<Tr>(L, col + o, Rg + o, V, Q + o, c);
                    track_minima<Tr>(Q + o, min1, min2, pos, sign, I(j), c);
                }
                // Reuse min1/min2 as the two scaled magnitudes.
                scale_minima(min1, c);
                scale_minima(min2, c);
                for (int j = 0; j < g.degree; j++) {
                    const size_t o = static_cast<size_t>(j) * c;
                    update<Tr>(Q + o, min1, min2, pos, sign, I(j), Rg + o, V, c);
                    scatter<S>(L, col + o, V, c);
                }
            }
            st.iterations = it + 1;
            if (d_opt.early_termination || it + 1 == d_opt.iterations) {
                st.ok = checks_hold<Tr>(L, ws);
                if (st.ok && d_opt.early_termination)
                    break;
            }
        }

        std::memset(out, 0, packed_bytes(d_k));
        for (int i = 0; i < d_k; i++)
            if (L[d_info[i]] < 0)
                out[i >> 3] |= static_cast<uint8_t>(0x80u >> (i & 7));
        if (soft)
            for (int i = 0; i < d_k; i++)
                soft[i] = static_cast<float>(L[d_info[i]]);
        return st;
    }

    int d_n, d_k;
    std::vector<int> d_info;
    std::string d_desc;
    ldpc_decoder_options d_opt;
    int d_alpha16 = 12;
    int d_beta_int = 4;
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
