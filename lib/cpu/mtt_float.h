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

#ifdef __CUDACC__
#define GPUFEC_HD __host__ __device__ __forceinline__
#else
#define GPUFEC_HD inline
#endif

namespace gpufec {
namespace mtt_float {

constexpr int max_nt = 4; //!< transmit antennas
constexpr int max_nr = 8; //!< receive antennas
constexpr int max_q = 64; //!< constellation points (MaxQ: 4, 16 or 64)

struct cplx {
    float re, im;
};
GPUFEC_HD cplx mul(cplx a, cplx b)
{
    return { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
}
//! conj(a) b
GPUFEC_HD cplx mulc(cplx a, cplx b)
{
    return { a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re };
}
GPUFEC_HD float norm2(cplx a) { return a.re * a.re + a.im * a.im; }
GPUFEC_HD bool finite(float x) { return x - x == 0.0f; } // false for NaN and +/-Inf

//! False when h or y holds a NaN or an infinity (then every LLR is 0).
GPUFEC_HD bool inputs_finite(const cplx* h, const cplx* y, int nr, int nt)
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
GPUFEC_HD void decompose(const cplx* h, const cplx* y, int nr, int nt, sorted_qr& qr)
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
GPUFEC_HD float
weight(const sorted_qr& qr, const cplx* points, int row, cplx delta, int point)
{
    const cplx rq = mul(qr.r[row][row], points[point]);
    const cplx e = { qr.z[row].re - delta.re - rq.re, qr.z[row].im - delta.im - rq.im };
    return norm2(e);
}

//! The interference on row `row` of a path's first `stages` points, sym(u) the point
//! of stage u (row nt-1-u).
template <typename Symbols>
GPUFEC_HD cplx interference(
    const sorted_qr& qr, const cplx* points, int nt, Symbols sym, int stages, int row)
{
    cplx acc = { 0.0f, 0.0f };
    for (int u = 0; u < stages; u++) {
        const cplx p = mul(qr.r[row][nt - 1 - u], points[sym(u)]);
        acc = { acc.re + p.re, acc.im + p.im };
    }
    return acc;
}

/*!
 * LLRs (nt * bits, antenna 0's first; L > 0 for bit 0) of one vector: h row-major nr x
 * nt, y of nr, the 2^bits <= MaxQ points, noise_var > 0. Non-finite h or y: all zeros.
 * Sizes within max_nt, max_nr (the callers check). One thread does it all; the CUDA
 * group kernel splits the same loops over Q threads (lib/cuda/mimo/mimo_cuda.cu).
 */
template <int MaxQ>
GPUFEC_HD void detect(const cplx* h,
                      const cplx* y,
                      int nr,
                      int nt,
                      const cplx* points,
                      int bits,
                      float noise_var,
                      float* llrs)
{
    const int q = 1 << bits;
    if (!inputs_finite(h, y, nr, nt)) {
        for (int i = 0; i < nt * bits; i++)
            llrs[i] = 0.0f;
        return;
    }
    sorted_qr qr;
    decompose(h, y, nr, nt, qr);

    // The trellis: stage t is row nt-1-t. chain[st][v]: the reduction chain's path to
    // vertex v of stage st (its points by stage) and distance.
    uint8_t chain_sym[max_nt][MaxQ][max_nt];
    float chain_d[max_nt][MaxQ];
    for (int v = 0; v < q; v++) {
        chain_sym[0][v][0] = static_cast<uint8_t>(v);
        chain_d[0][v] = weight(qr, points, nt - 1, { 0.0f, 0.0f }, v);
    }
    for (int st = 1; st < nt; st++) {
        const int row = nt - 1 - st;
        cplx deltas[MaxQ];
        for (int k = 0; k < q; k++) {
            const uint8_t* sym = chain_sym[st - 1][k];
            deltas[k] = interference(
                qr, points, nt, [sym](int u) { return sym[u]; }, st, row);
        }
        for (int v = 0; v < q; v++) {
            int best = 0;
            float best_d = chain_d[st - 1][0] + weight(qr, points, row, deltas[0], v);
            for (int k = 1; k < q; k++) {
                const float d =
                    chain_d[st - 1][k] + weight(qr, points, row, deltas[k], v);
                if (d < best_d) {
                    best = k;
                    best_d = d;
                }
            }
            for (int u = 0; u < st; u++)
                chain_sym[st][v][u] = chain_sym[st - 1][best][u];
            chain_sym[st][v][st] = static_cast<uint8_t>(v);
            chain_d[st][v] = best_d;
        }
    }
    // List t: the chain at stage t extended greedily; max-log over it.
    for (int t = 0; t < nt; t++) {
        const int antenna = qr.order[nt - 1 - t];
        float m0[8], m1[8];
        for (int b = 0; b < bits; b++)
            m0[b] = m1[b] = INFINITY;
        for (int k = 0; k < q; k++) {
            uint8_t sym[max_nt];
            for (int u = 0; u <= t; u++)
                sym[u] = chain_sym[t][k][u];
            float d = chain_d[t][k];
            for (int st = t + 1; st < nt; st++) {
                const int row = nt - 1 - st;
                const cplx delta = interference(
                    qr, points, nt, [&sym](int u) { return sym[u]; }, st, row);
                int best = 0;
                float best_w = weight(qr, points, row, delta, 0);
                for (int v = 1; v < q; v++) {
                    const float w = weight(qr, points, row, delta, v);
                    if (w < best_w) {
                        best = v;
                        best_w = w;
                    }
                }
                sym[st] = static_cast<uint8_t>(best);
                d = d + best_w;
            }
            for (int b = 0; b < bits; b++) {
                if ((k >> (bits - 1 - b)) & 1)
                    m1[b] = d < m1[b] ? d : m1[b];
                else
                    m0[b] = d < m0[b] ? d : m0[b];
            }
        }
        for (int b = 0; b < bits; b++)
            llrs[antenna * bits + b] = (m1[b] - m0[b]) / noise_var;
    }
}

} // namespace mtt_float
} // namespace gpufec

#endif
