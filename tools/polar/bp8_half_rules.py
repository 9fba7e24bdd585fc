#!/usr/bin/env python3
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""The BP int8 kernel's half-precision rules (lib/cuda/polar/bp8_kernel.cuh) against
polar_bp_int8 (lib/cpu/polar_common.h) for every input, on an IEEE binary16 emulation:
numpy float16 (each operation exact in float64, then rounded once to binary16, as the
GPU's HFMA2 / HADD2 / HSUB2 round; min and max are exact).

The kernel stores L messages as the byte 128 + L and R messages negated, 128 - R.
  unpack: the half 1280 + byte (PRMT 0x65 above the byte): 1408 + L, 1408 - R
  sum:    (1408 + L) - (1408 - R)                       == L + R, exactly
  with x = min.xorsign.abs(p, q) = sign(p) sign(q) min(|p|, |q|) on unbiased values,
  one of them -R where it comes from R, the FMAs (their factor -15/16 where one negated
  operand meets an output that is not negated):
  top, left:            hfma(x(a, b), 15/16, 1408)      == 1408 + boxplus(a, b)
  top, right:           hfma(x(-a, b), 15/16, 1408)     == 1408 - boxplus(a, b)
  top, right, last:     hfma(x(-a, b), -15/16, 1408)    == 1408 + boxplus(a, b)
  bottom, left:         clamp(hfma(x(-a, b), -15/16, 1408 + c)) == 1408 + boxplus_add(a, b, c)
  bottom, right:        clamp(hfma(x(-a, b), 15/16, 1408 - c))  == 1408 - boxplus_add(a, b, c)
  bottom, right, last:  clamp(hfma(x(-a, b), -15/16, 2816 - (1408 - c))) == 1408 + boxplus_add
  with clamp(s) = 1535 - relu(254 - relu(s - 1281)), three FMAs (each exact), equal to
  min(max(s, 1281), 1535);
  for all a, b, c in -127..127, and the low byte of every result is the stored byte;
  boxplus(a, b + c) == boxplus(a, add(b, c)) (the top output skips add's saturation).

Run: /usr/bin/python3 tools/polar/bp8_half_rules.py (numpy; a few seconds)."""
import numpy as np

h = np.float16


def scaled_sum(a, b, c):  # polar_bp_int8::scaled_sum: rne(15 sign(a b) min(|a|, |b|) / 16 + c)
    m = np.minimum(abs(a), abs(b))
    t = 15 * np.where((a < 0) != (b < 0), -m, m) + 16 * c
    q, rem = t // 16, t % 16  # floor and remainder, as the CPU's shift and mask
    return q + ((rem > 8) | ((rem == 8) & (q % 2 == 1)))


def rounded(x):  # exact value (float64) -> binary16, round to nearest even
    return x.astype(np.float64).astype(h)


def main():
    v = np.arange(-127, 128)
    bias = h(1408)
    assert h(1280 + 128) == bias and bias.view(np.uint16) == 0x6580
    a, b = (m.ravel() for m in np.meshgrid(v, v, indexing="ij"))

    def xorsign(p, q):  # min.xorsign.abs on halves
        hp, hq = p.astype(h), q.astype(h)
        m = np.minimum(np.abs(hp), np.abs(hq))
        return np.where(np.signbit(hp) ^ np.signbit(hq), -m, m).astype(h)

    def fma(x, factor, c):  # one HFMA2: exact, then one rounding
        return rounded(x.astype(np.float64) * np.float64(h(factor)) + np.float64(c))

    def check(got, want, what):  # got: biased halves; want: values -127..127
        assert np.array_equal(got.astype(np.int64), want + 1408), what
        assert np.array_equal(got.view(np.uint16) & 0xFF, want + 128), (what, "byte")

    top = scaled_sum(a, b, 0)
    check(fma(xorsign(a, b), 15 / 16, bias), top, "top, left")
    check(fma(xorsign(-a, b), 15 / 16, bias), -top, "top, right")
    check(fma(xorsign(-a, b), -15 / 16, bias), top, "top, right, last")
    def clamp(s):  # bp8_clamp_biased: three FMAs (two with a relu) on sm_80 and later
        low = np.maximum(fma(s, 1, h(-1281)), h(0))
        high = np.maximum(fma(low, -1, h(254)), h(0))
        fmas = fma(high, -1, h(1535))
        mnmx = np.minimum(np.maximum(s, h(1281)), h(1535))  # two HMNMX2 before sm_80
        assert np.array_equal(fmas, mnmx), "clamp forms"
        return fmas
    x_neg = xorsign(-a, b)
    for c in v:
        w = np.clip(scaled_sum(a, b, c), -127, 127)
        check(clamp(fma(x_neg, -15 / 16, h(1408 + c))), w, ("bottom, left", c))
        r_stored = h(1408 - c)  # R = c stored negated
        check(clamp(fma(x_neg, 15 / 16, r_stored)), -w, ("bottom, right", c))
        c_biased = rounded(np.float64(h(2816)) - np.float64(r_stored))
        check(clamp(fma(x_neg, -15 / 16, c_biased)), w, ("bottom, right, last", c))
    # L + R from the biased L and the biased negated R, one exact HSUB2.
    lb, rb = rounded(a.astype(np.float64) + 1408), rounded(1408 - b.astype(np.float64))
    sums = rounded(lb.astype(np.float64) - rb.astype(np.float64))
    assert np.array_equal(sums.astype(np.int64), a + b), "sum"
    # The top output's box-plus takes b + c unsaturated: with |a| <= 127, min(|a|,
    # |b + c|) and the sign of b + c are those of add(b, c) for every sum -254..254.
    sums = np.arange(-254, 255)
    aa, ss = (m.ravel() for m in np.meshgrid(v, sums, indexing="ij"))
    zero = np.zeros_like(aa)
    assert np.array_equal(scaled_sum(aa, ss, zero), scaled_sum(aa, np.clip(ss, -127, 127), zero)), "unsaturated"
    print(f"bp8 half rules exact: {a.size} pairs, {a.size * v.size} triples, six forms")


if __name__ == "__main__":
    main()
