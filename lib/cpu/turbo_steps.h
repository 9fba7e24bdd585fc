/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the max-log-MAP of the LTE turbo decoder in scalar form, one source for the
// CUDA decoder's threads and for a host run of the same schedule (its test against the
// CPU decoder, turbo_cpu.cc, whose normative description this follows).
//
// Integer arithmetic only (the "int16" and "int8" decoders): the metrics are held in
// int32 here, which gives the int16 decoder's values exactly because no int16 sum of
// that decoder overflows (turbo_cpu.cc proves the bounds).
//
// State s = (r1 r2 r3) as in turbo.h. Forward lane n takes the branches from states
// 2 (n mod 4) and 2 (n mod 4) + 1; backward lane s the branches to states s / 2 and
// 4 + s / 2. Which branch has systematic bit 0 (u0) or parity bit 0 (z0) is a bit of
// the masks below (bit n = lane n), the CPU decoder's lane tables.
#ifndef INCLUDED_GPUFEC_TURBO_STEPS_H
#define INCLUDED_GPUFEC_TURBO_STEPS_H

#include <gpufec/host_device.h>

#include <cstdint>

namespace gpufec {
namespace turbo_steps {

constexpr int neg_inf = -16384;
constexpr unsigned fwd_u0 = 0xA5, fwd_z0 = 0xC3, bwd_u0 = 0x99, bwd_z0 = 0xA5;

GPUFEC_HD bool lane(unsigned mask, int n) { return (mask >> n) & 1u; }
GPUFEC_HD int imax(int a, int b) { return a > b ? a : b; }

//! alpha_{k+1} from alpha_k (in place), normalised to state 0.
GPUFEC_HD void fwd(int* a, int ls, int lp)
{
    int m[8];
    for (int n = 0; n < 8; n++) {
        const int g0 = (lane(fwd_u0, n) ? ls : 0) + (lane(fwd_z0, n) ? lp : 0);
        const int g1 = (lane(fwd_u0, n) ? 0 : ls) + (lane(fwd_z0, n) ? 0 : lp);
        m[n] = imax(a[2 * (n & 3)] + g0, a[2 * (n & 3) + 1] + g1);
    }
    for (int n = 0; n < 8; n++)
        a[n] = m[n] - m[0];
}

//! The successor terms of beta_{k+1} with the parity part of gamma, per lane s: p0 for
//! the branch to state s / 2, p1 for the one to 4 + s / 2.
GPUFEC_HD void succ(const int* b, int lp, int* p0, int* p1)
{
    for (int s = 0; s < 8; s++) {
        const int z0 = lane(bwd_z0, s) ? lp : 0;
        p0[s] = b[s >> 1] + z0;
        p1[s] = b[4 + (s >> 1)] + (lp - z0);
    }
}

//! beta_k from the successor terms, normalised to state 0.
GPUFEC_HD void bwd(const int* p0, const int* p1, int ls, int* b)
{
    int m[8];
    for (int s = 0; s < 8; s++) {
        const int u0 = lane(bwd_u0, s) ? ls : 0;
        m[s] = imax(p0[s] + u0, p1[s] + (ls - u0));
    }
    for (int s = 0; s < 8; s++)
        b[s] = m[s] - m[0];
}

//! Extrinsic of a step: max over the u = 0 branches of alpha + parity + beta, minus the
//! max over the u = 1 branches.
GPUFEC_HD int ext(const int* a, const int* p0, const int* p1)
{
    int x0 = a[0] + (lane(bwd_u0, 0) ? p0[0] : p1[0]);
    int x1 = a[0] + (lane(bwd_u0, 0) ? p1[0] : p0[0]);
    for (int s = 1; s < 8; s++) {
        x0 = imax(x0, a[s] + (lane(bwd_u0, s) ? p0[s] : p1[s]));
        x1 = imax(x1, a[s] + (lane(bwd_u0, s) ? p1[s] : p0[s]));
    }
    return x0 - x1;
}

//! The extrinsic passed to the other decoder: scaled by q / 128 with rounding
//! (q = 128: plain max-log-MAP), saturated to +/-ext_max.
GPUFEC_HD int pass(int le, int q, bool scaled, int ext_max)
{
    const int v = scaled ? (le * q + 64) >> 7 : le;
    return v > ext_max ? ext_max : (v < -ext_max ? -ext_max : v);
}

//! The exact outer stakes: alpha at step 0 (state 0), and beta at step K from the
//! three tail steps of decoder `dec` (x and z LLRs of steps K..K+2, turbo.h's layout).
GPUFEC_HD void start_alpha(int* a)
{
    a[0] = 0;
    for (int s = 1; s < 8; s++)
        a[s] = neg_inf;
}
GPUFEC_HD void
tail_beta(const int8_t* d0, const int8_t* d1, const int8_t* d2, int k, int dec, int* b)
{
    const int x[2][3] = { { d0[k], d2[k], d1[k + 1] },
                          { d0[k + 2], d2[k + 2], d1[k + 3] } };
    const int z[2][3] = { { d1[k], d0[k + 1], d2[k + 1] },
                          { d1[k + 2], d0[k + 3], d2[k + 3] } };
    start_alpha(b);
    for (int t = 2; t >= 0; t--) {
        int p0[8], p1[8];
        succ(b, z[dec][t], p0, p1);
        bwd(p0, p1, x[dec][t], b);
    }
}

/*!
 * One window [begin, end) of a constituent decoder: the forward recursion from
 * `alpha` (stored per step into A, 8 int16 per step; alpha ends as the metric at
 * `end`), then the backward recursion from `beta` (ends as the metric at `begin`),
 * calling emit(step, ls, le) with each step's systematic-plus-a-priori LLR and raw
 * extrinsic. ls(step) and lp(step) give the step's LLRs.
 */
template <class Ls, class Lp, class Emit>
GPUFEC_HD void
window(int begin, int end, int* alpha, int* beta, int16_t* A, Ls ls, Lp lp, Emit emit)
{
    for (int f = begin; f < end; f++) {
        for (int s = 0; s < 8; s++)
            A[8 * f + s] = static_cast<int16_t>(alpha[s]);
        fwd(alpha, ls(f), lp(f));
    }
    for (int g = end - 1; g >= begin; g--) {
        int p0[8], p1[8], a[8];
        const int l = ls(g);
        succ(beta, lp(g), p0, p1);
        for (int s = 0; s < 8; s++)
            a[s] = A[8 * g + s];
        emit(g, l, ext(a, p0, p1));
        bwd(p0, p1, l, beta);
    }
}

} // namespace turbo_steps
} // namespace gpufec

#endif
