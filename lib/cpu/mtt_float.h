/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: MTT detection of one received vector in float, one source for the CPU
// stage and the CUDA kernel (compiled __host__ __device__), so that the two give the
// same LLRs bit for bit: the same IEEE operations in the same order (the core builds
// with -ffp-contract=off, the kernels with -fmad=false; sqrt and division are
// correctly rounded on both). The algorithm is detect_mtt()'s (docs/mimo.md), which
// the tests keep as the double-precision reference: sorted QR by modified
// Gram-Schmidt, the shared reduction chain, greedy extensions, max-log per list.
#ifndef INCLUDED_GPUFEC_MTT_FLOAT_H
#define INCLUDED_GPUFEC_MTT_FLOAT_H

#include <cmath>
#include <cstdint>

// Not host_device.h's GPUFEC_HD: these functions are large, so the host copy is a
// plain inline function rather than always inlined.
#ifdef __CUDACC__
#define GPUFEC_MTT_HD __host__ __device__ __forceinline__
#else
#define GPUFEC_MTT_HD inline
#endif

namespace gpufec {
namespace mtt_float {

constexpr int max_nt = 4; //!< transmit antennas
constexpr int max_nr = 8; //!< receive antennas
constexpr int max_q = 64; //!< constellation points (MaxQ: 4, 16 or 64)

struct cplx {
    float re, im;
};
GPUFEC_MTT_HD cplx mul(cplx a, cplx b)
{
    return { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
}
//! conj(a) b
GPUFEC_MTT_HD cplx mulc(cplx a, cplx b)
{
    return { a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re };
}
GPUFEC_MTT_HD float norm2(cplx a) { return a.re * a.re + a.im * a.im; }
GPUFEC_MTT_HD bool finite(float x) { return x - x == 0.0f; } // false for NaN and +/-Inf

//! False when h or y holds a NaN or an infinity (then every LLR is 0).
GPUFEC_MTT_HD bool inputs_finite(const cplx* h, const cplx* y, int nr, int nt)
{
    bool ok = true;
    for (int i = 0; i < nr * nt; i++)
        ok = ok && finite(h[i].re) && finite(h[i].im);
    for (int i = 0; i < nr; i++)
        ok = ok && finite(y[i].re) && finite(y[i].im);
    return ok;
}

//! The sorted QR of one vector: r (upper triangular), z = Q^H y, order[i] = the
//! antenna at position i.
struct sorted_qr {
    cplx r[max_nt][max_nt], z[max_nt];
    int order[max_nt];
};

//! SQRD: modified Gram-Schmidt, the remaining column of least norm first.
GPUFEC_MTT_HD void decompose(const cplx* h, const cplx* y, int nr, int nt, sorted_qr& qr)
{
    cplx col[max_nt][max_nr];
    for (int k = 0; k < nt; k++) {
        qr.order[k] = k;
        for (int i = 0; i < nr; i++)
            col[k][i] = h[i * nt + k];
        for (int j = 0; j < nt; j++)
            qr.r[k][j] = { 0.0f, 0.0f };
    }
    for (int i = 0; i < nt; i++) {
        int best = i;
        float best_norm = 0.0f;
        for (int k = i; k < nt; k++) {
            float n = 0.0f;
            for (int row = 0; row < nr; row++)
                n += norm2(col[k][row]);
            if (k == i || n < best_norm) {
                best = k;
                best_norm = n;
            }
        }
        if (best != i) {
            const int t = qr.order[i];
            qr.order[i] = qr.order[best];
            qr.order[best] = t;
            for (int row = 0; row < nr; row++) {
                const cplx c = col[i][row];
                col[i][row] = col[best][row];
                col[best][row] = c;
            }
            for (int row = 0; row < i; row++) {
                const cplx c = qr.r[row][i];
                qr.r[row][i] = qr.r[row][best];
                qr.r[row][best] = c;
            }
        }
        const float rii = sqrtf(best_norm);
        qr.r[i][i] = { rii, 0.0f };
        if (rii > 0.0f)
            for (int row = 0; row < nr; row++)
                col[i][row] = { col[i][row].re / rii, col[i][row].im / rii };
        for (int l = i + 1; l < nt; l++) {
            cplx dot = { 0.0f, 0.0f };
            if (rii > 0.0f)
                for (int row = 0; row < nr; row++) {
                    const cplx p = mulc(col[i][row], col[l][row]);
                    dot = { dot.re + p.re, dot.im + p.im };
                }
            qr.r[i][l] = dot;
            for (int row = 0; row < nr; row++) {
                const cplx p = mul(dot, col[i][row]);
                col[l][row] = { col[l][row].re - p.re, col[l][row].im - p.im };
            }
        }
    }
    for (int i = 0; i < nt; i++) {
        cplx s = { 0.0f, 0.0f };
        for (int row = 0; row < nr; row++) {
            const cplx p = mulc(col[i][row], y[row]);
            s = { s.re + p.re, s.im + p.im };
        }
        qr.z[i] = s;
    }
}

//! The edge weight |z_row - delta - r_row,row point|^2.
GPUFEC_MTT_HD float
weight(const sorted_qr& qr, const cplx* points, int row, cplx delta, int point)
{
    const cplx rq = mul(qr.r[row][row], points[point]);
    const cplx e = { qr.z[row].re - delta.re - rq.re, qr.z[row].im - delta.im - rq.im };
    return norm2(e);
}

//! The interference on row `row` of a path's first `stages` points, sym(u) the point
//! of stage u (row nt-1-u).
template <typename Symbols>
GPUFEC_MTT_HD cplx interference(
    const sorted_qr& qr, const cplx* points, int nt, Symbols sym, int stages, int row)
{
    cplx acc = { 0.0f, 0.0f };
    for (int u = 0; u < stages; u++) {
        const cplx p = mul(qr.r[row][nt - 1 - u], points[sym(u)]);
        acc = { acc.re + p.re, acc.im + p.im };
    }
    return acc;
}

//! interference() of a path packed `bits` wide per stage (stage u in bits [u * bits,
//! (u + 1) * bits)).
GPUFEC_MTT_HD cplx path_interference(const sorted_qr& qr,
                                     const cplx* points,
                                     int nt,
                                     uint32_t path,
                                     int bits,
                                     int stages,
                                     int row)
{
    const uint32_t mask = (1u << bits) - 1u;
    return interference(
        qr,
        points,
        nt,
        [path, bits, mask](int u) { return (path >> (u * bits)) & mask; },
        stages,
        row);
}

/*!
 * A constellation as detect() uses it: the points (indexed by their bits) and, for the
 * QAMs, the levels of each axis and the point of a pair of axis indices, so that the
 * greedy extensions find the nearest point one axis at a time (L + L candidates
 * instead of L^2: the squared distance is the sum of the axes' terms and each axis
 * depends on its own bits only). axis_levels = 0: search every point (BPSK).
 */
struct view {
    const cplx* points = nullptr;
    int bits = 0;
    int axis_levels = 0; //!< L = 2^(bits/2) for the QAMs, else 0
    float re_level[8] = {}, im_level[8] = {};
    uint8_t point_of[8][8] = {}; //!< [real axis index][imaginary axis index]
};

//! The view of `points` (2^bits of them, TS 38.211 order): the QAM axis tables when
//! every point is the pair of its axes' levels (the 3GPP mappings), else none.
GPUFEC_MTT_HD view make_view(const cplx* points, int bits)
{
    view c;
    c.points = points;
    c.bits = bits;
    if (bits < 2 || bits % 2 || bits > 6)
        return c;
    const int half = bits / 2, levels = 1 << half;
    // Point index of axis indices: the real axis holds bits 0, 2, ... (first bit most
    // significant), the imaginary axis bits 1, 3, ...
    auto index = [&](int re, int im) {
        int i = 0;
        for (int k = 0; k < half; k++) {
            i |= ((re >> (half - 1 - k)) & 1) << (bits - 1 - 2 * k);
            i |= ((im >> (half - 1 - k)) & 1) << (bits - 2 - 2 * k);
        }
        return i;
    };
    for (int a = 0; a < levels; a++) {
        c.re_level[a] = points[index(a, 0)].re;
        c.im_level[a] = points[index(0, a)].im;
    }
    for (int re = 0; re < levels; re++)
        for (int im = 0; im < levels; im++) {
            const cplx p = points[index(re, im)];
            if (p.re != c.re_level[re] || p.im != c.im_level[im])
                return view{ points, bits }; // not separable: search every point
            c.point_of[re][im] = static_cast<uint8_t>(index(re, im));
        }
    c.axis_levels = levels;
    return c;
}

/*!
 * The greedy extension's step on row `row`: the point nearest to zd / r_row,row, i.e.
 * the least |zd - r_row,row point|^2 (lowest index among equal weights), written to
 * `best`; returns that weight. Per axis for the QAMs (view above).
 */
template <int Bits = 0> // > 0: c.bits known at compile time (loops unroll)
GPUFEC_MTT_HD float nearest(const sorted_qr& qr,
                            const view& c,
                            const cplx* points,
                            int row,
                            cplx zd,
                            uint32_t& best)
{
    const float rr = qr.r[row][row].re;
    const int levels = Bits ? (Bits % 2 == 0 ? 1 << (Bits / 2) : 0) : c.axis_levels;
    if (c.axis_levels) {
        int best_re = 0, best_im = 0;
        const float dre = zd.re - rr * c.re_level[0];
        const float dim = zd.im - rr * c.im_level[0];
        float wre = dre * dre, wim = dim * dim;
        for (int a = 1; a < levels; a++) {
            const float xr = zd.re - rr * c.re_level[a];
            const float xi = zd.im - rr * c.im_level[a];
            const float vr = xr * xr, vi = xi * xi;
            if (vr < wre) {
                wre = vr;
                best_re = a;
            }
            if (vi < wim) {
                wim = vi;
                best_im = a;
            }
        }
        best = c.point_of[best_re][best_im];
        return wre + wim;
    }
    const int q = 1 << (Bits ? Bits : c.bits);
    const cplx r0 = mul(qr.r[row][row], points[0]);
    float best_w = norm2({ zd.re - r0.re, zd.im - r0.im });
    best = 0;
    for (int v = 1; v < q; v++) {
        const cplx r = mul(qr.r[row][row], points[v]);
        const float w = norm2({ zd.re - r.re, zd.im - r.im });
        if (w < best_w) {
            best = static_cast<uint32_t>(v);
            best_w = w;
        }
    }
    return best_w;
}

//! Loops over the points unroll fully up to 16-QAM, so that the current chain's
//! distances and paths live in registers; 64-QAM keeps rolled loops (local memory).
#if defined(__CUDA_ARCH__)
#define GPUFEC_MTT_UNROLL _Pragma("unroll")
#else
#define GPUFEC_MTT_UNROLL
#endif

//! The per-stage, per-bit minima m0 / m1 with a complete path (packed bits-wide per
//! stage) of distance d.
template <int Bits = 0>
GPUFEC_MTT_HD void update_minima(uint32_t path,
                                 float d,
                                 int nt,
                                 int bits_given,
                                 float (&m0)[max_nt][8],
                                 float (&m1)[max_nt][8])
{
    const int bits = Bits ? Bits : bits_given;
    GPUFEC_MTT_UNROLL
    for (int st = 0; st < max_nt; st++) {
        if (st >= nt)
            continue;
        const uint32_t point = path >> (st * bits);
        GPUFEC_MTT_UNROLL
        for (int b = 0; b < 8; b++)
            if (b < bits) {
                if ((point >> (bits - 1 - b)) & 1)
                    m1[st][b] = d < m1[st][b] ? d : m1[st][b];
                else
                    m0[st][b] = d < m0[st][b] ? d : m0[st][b];
            }
    }
}

/*!
 * LLRs (nt * bits, antenna 0's first; L > 0 for bit 0) of one vector: h row-major nr x
 * nt, y of nr, the constellation `c` (2^bits <= MaxQ points), noise_var > 0.
 * Non-finite h or y: all zeros. Sizes within max_nt, max_nr (the callers check).
 *
 * Stage by stage: the reduction chain to stage t (per vertex, the best extension of
 * the chain at stage t - 1), then list t (that chain's paths extended greedily to
 * the last stage); only the current chain is kept (distances, and paths packed
 * bits-wide per stage in one word). Every path of every list is a complete hypothesis
 * with its exact distance, so each one updates the least distance per bit value of
 * every stage (mtt_metrics' rule, include/gpufec/mimo_detection.h); the LLRs come
 * from those minima at the end. Every edge weight is
 * |(z_row - delta) - r_row,row point|^2 in that order, z_row - delta hoisted out of
 * the loops that reuse it. The extensions' nearest point is searched per axis for the
 * QAMs (view above); an exact tie between points may then resolve to another point
 * than a search over every point would (it cannot change the distance).
 */
template <int MaxQ, int NT = 0, int NR = 0, int Bits = 0> // > 0: known at compile time
GPUFEC_MTT_HD void detect(const cplx* h,
                          const cplx* y,
                          int nr_given,
                          int nt_given,
                          const view& c,
                          float noise_var,
                          float* llrs)
{
    constexpr bool unrolled = MaxQ <= 16;
    const int nt = NT ? NT : nt_given, nr = NR ? NR : nr_given;
    const int bits = Bits ? Bits : c.bits, q = 1 << bits;
    if (!inputs_finite(h, y, nr, nt)) {
        for (int i = 0; i < nt * bits; i++)
            llrs[i] = 0.0f;
        return;
    }
    sorted_qr qr;
    decompose(h, y, nr, nt, qr);

    // The chain at the current stage t (row nt-1-t): per vertex v its distance and its
    // path, the point of stage u in bits [u * bits, (u + 1) * bits).
    float chain_d[MaxQ];
    uint32_t chain_path[MaxQ];
    GPUFEC_MTT_UNROLL
    for (int v = 0; v < MaxQ; v++)
        if (v < q) {
            const cplx r = mul(qr.r[nt - 1][nt - 1], c.points[v]);
            chain_d[v] = norm2({ qr.z[nt - 1].re - r.re, qr.z[nt - 1].im - r.im });
            chain_path[v] = static_cast<uint32_t>(v);
        }
    // Per stage and bit, the least distance of the paths of every list with the bit 0
    // / 1 (each path is a complete hypothesis with its exact distance).
    float m0[max_nt][8], m1[max_nt][8];
    GPUFEC_MTT_UNROLL
    for (int st = 0; st < max_nt; st++)
        GPUFEC_MTT_UNROLL
    for (int b = 0; b < 8; b++)
        m0[st][b] = m1[st][b] = INFINITY;
    for (int t = 0; t < nt; t++) {
        if (t > 0) { // the reduction to stage t
            const int row = nt - 1 - t;
            cplx zd[MaxQ]; // z_row - the interference of predecessor k
            GPUFEC_MTT_UNROLL
            for (int k = 0; k < MaxQ; k++)
                if (k < q) {
                    const uint32_t path = chain_path[k];
                    const cplx delta =
                        path_interference(qr, c.points, nt, path, bits, t, row);
                    zd[k] = { qr.z[row].re - delta.re, qr.z[row].im - delta.im };
                }
            float next_d[MaxQ];
            uint32_t next_path[MaxQ];
            GPUFEC_MTT_UNROLL
            for (int v = 0; v < MaxQ; v++)
                if (v < q) {
                    const cplx r = mul(qr.r[row][row], c.points[v]);
                    float best_d =
                        chain_d[0] + norm2({ zd[0].re - r.re, zd[0].im - r.im });
                    uint32_t best_path = chain_path[0];
                    if (unrolled) {
                        GPUFEC_MTT_UNROLL
                        for (int k = 1; k < MaxQ; k++)
                            if (k < q) {
                                const float d = chain_d[k] + norm2({ zd[k].re - r.re,
                                                                     zd[k].im - r.im });
                                if (d < best_d) {
                                    best_d = d;
                                    best_path = chain_path[k];
                                }
                            }
                    } else {
                        int best = 0;
                        for (int k = 1; k < q; k++) {
                            const float d =
                                chain_d[k] + norm2({ zd[k].re - r.re, zd[k].im - r.im });
                            if (d < best_d) {
                                best_d = d;
                                best = k;
                            }
                        }
                        best_path = chain_path[best];
                    }
                    next_d[v] = best_d;
                    next_path[v] = best_path | (static_cast<uint32_t>(v) << (t * bits));
                }
            GPUFEC_MTT_UNROLL
            for (int v = 0; v < MaxQ; v++)
                if (v < q) {
                    chain_d[v] = next_d[v];
                    chain_path[v] = next_path[v];
                }
        }
        // List t: each chain path extended greedily; its bits' minima.
        GPUFEC_MTT_UNROLL
        for (int k = 0; k < MaxQ; k++)
            if (k < q) {
                uint32_t path = chain_path[k];
                float d = chain_d[k];
                for (int st = t + 1; st < nt; st++) {
                    const int row = nt - 1 - st;
                    const cplx delta =
                        path_interference(qr, c.points, nt, path, bits, st, row);
                    const cplx zd = { qr.z[row].re - delta.re, qr.z[row].im - delta.im };
                    uint32_t best = 0;
                    const float best_w = nearest<Bits>(qr, c, c.points, row, zd, best);
                    path |= best << (st * bits);
                    d = d + best_w;
                }
                update_minima<Bits>(path, d, nt, bits, m0, m1);
            }
    }
    GPUFEC_MTT_UNROLL
    for (int st = 0; st < max_nt; st++) {
        if (st >= nt)
            continue;
        const int antenna = qr.order[nt - 1 - st];
        GPUFEC_MTT_UNROLL
        for (int b = 0; b < 8; b++)
            if (b < bits)
                llrs[antenna * bits + b] = (m1[st][b] - m0[st][b]) / noise_var;
    }
}

//! detect() with the view of `points` made for this call (tests and one-off use).
template <int MaxQ>
GPUFEC_MTT_HD void detect(const cplx* h,
                          const cplx* y,
                          int nr,
                          int nt,
                          const cplx* points,
                          int bits,
                          float noise_var,
                          float* llrs)
{
    const view c = make_view(points, bits);
    detect<MaxQ>(h, y, nr, nt, c, noise_var, llrs);
}

} // namespace mtt_float
} // namespace gpufec

#endif
