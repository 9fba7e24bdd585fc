/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: K-best detection of one received vector in float, one source for the CPU
// stage and the CUDA kernel (compiled __host__ __device__), so that the two give the
// same LLRs bit for bit (the arithmetic rules of mtt_float.h, whose sorted QR it
// shares). The algorithm is detect_kbest()'s, which the tests keep as the
// double-precision reference: breadth first from the last row of R, every kept path
// extended by every point, the k least distances kept (ties: the earlier candidate,
// as a stable sort keeps them), max-log LLRs over the final list, +/-clip for a bit
// value no kept path has.
#ifndef INCLUDED_GPUFEC_KBEST_FLOAT_H
#define INCLUDED_GPUFEC_KBEST_FLOAT_H

#include "cpu/mtt_float.h"

namespace gpufec {
namespace kbest_float {

using mtt_float::cplx;

constexpr int max_k = 64; //!< kept paths (the stage falls back to double beyond)

/*!
 * LLRs (nt * bits, antenna 0's first; L > 0 for bit 0) of one vector: h row-major nr x
 * nt, y of nr, 2^bits `points`, 1 <= k <= MaxK, noise_var > 0. Non-finite h or y: all
 * zeros. Sizes within mtt_float::max_nt and max_nr (the callers check).
 *
 * The candidates of a stage are made kept path by kept path (in list order), point by
 * point, and each goes into the sorted list of the next stage behind the entries of
 * equal distance: the list is the first k of a stable sort of all candidates, as on the
 * double-precision reference. A full list rejects a candidate not below its last entry
 * with one comparison, so most candidates of the later stages cost no insertion.
 */
template <int MaxK, int NT = 0, int NR = 0, int Bits = 0> // > 0: known at compile time
GPUFEC_MTT_HD void detect(const cplx* h,
                          const cplx* y,
                          int nr_given,
                          int nt_given,
                          const cplx* points,
                          int bits_given,
                          int k,
                          float clip,
                          float noise_var,
                          float* llrs)
{
    const int nt = NT ? NT : nt_given, nr = NR ? NR : nr_given;
    const int bits = Bits ? Bits : bits_given, q = 1 << bits;
    if (!mtt_float::inputs_finite(h, y, nr, nt)) {
        for (int i = 0; i < nt * bits; i++)
            llrs[i] = 0.0f;
        return;
    }
    mtt_float::sorted_qr qr;
    mtt_float::decompose(h, y, nr, nt, qr);

    // Paths packed bits-wide per stage (stage u, row nt-1-u, in bits [u * bits, ...)).
    float kept_d[MaxK], next_d[MaxK];
    uint32_t kept_path[MaxK], next_path[MaxK];
    int kept = 1;
    kept_d[0] = 0.0f;
    kept_path[0] = 0;
    for (int t = 0; t < nt; t++) {
        const int row = nt - 1 - t;
        int n = 0;
        for (int i = 0; i < kept; i++) {
            const cplx delta =
                mtt_float::path_interference(qr, points, nt, kept_path[i], bits, t, row);
            const cplx zd = { qr.z[row].re - delta.re, qr.z[row].im - delta.im };
            for (int x = 0; x < q; x++) {
                const cplx r = mtt_float::mul(qr.r[row][row], points[x]);
                const float d =
                    kept_d[i] + mtt_float::norm2({ zd.re - r.re, zd.im - r.im });
                if (n == k && !(d < next_d[k - 1]))
                    continue;
                int pos = n < k ? n : k - 1; // a full list drops its last entry
                while (pos > 0 && next_d[pos - 1] > d) {
                    next_d[pos] = next_d[pos - 1];
                    next_path[pos] = next_path[pos - 1];
                    pos--;
                }
                next_d[pos] = d;
                next_path[pos] = kept_path[i] | (static_cast<uint32_t>(x) << (t * bits));
                if (n < k)
                    n++;
            }
        }
        for (int i = 0; i < n; i++) {
            kept_d[i] = next_d[i];
            kept_path[i] = next_path[i];
        }
        kept = n;
    }
    const uint32_t mask = (1u << bits) - 1u;
    for (int t = 0; t < nt; t++) {
        const int antenna = qr.order[nt - 1 - t];
        for (int b = 0; b < bits; b++) {
            float d0 = INFINITY, d1 = INFINITY;
            for (int i = 0; i < kept; i++) {
                const uint32_t point = (kept_path[i] >> (t * bits)) & mask;
                if ((point >> (bits - 1 - b)) & 1)
                    d1 = kept_d[i] < d1 ? kept_d[i] : d1;
                else
                    d0 = kept_d[i] < d0 ? kept_d[i] : d0;
            }
            llrs[antenna * bits + b] = d0 == INFINITY   ? -clip
                                       : d1 == INFINITY ? clip
                                                        : (d1 - d0) / noise_var;
        }
    }
}

} // namespace kbest_float
} // namespace gpufec

#endif
