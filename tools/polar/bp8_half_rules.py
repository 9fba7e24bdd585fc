#!/usr/bin/env python3
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""The BP int8 kernel's half-precision rules (lib/cuda/polar/bp8_kernel.cuh) against
polar_bp_int8 (lib/cpu/polar_common.h) for every input, on an IEEE binary16 emulation:
numpy float16 (each operation exact in float64, then rounded once to binary16, as the
GPU's HFMA2 / HADD2 / HSUB2 round; min and max are exact).

  unpack: the half 1280 + byte (PRMT 0x65 above the byte) is 1408 + v, v = byte - 128
  top:    hfma(x, 15/16, 1408)              == boxplus(a, b) + 1408          for all a, b
  bottom: clamp(hfma(x, 15/16, 1408 + c))   == boxplus_add(a, b, c) + 1408   for all a, b, c
  sum:    (b_biased - 2816) + c_biased      == b + c, exactly, for all b, c
  and the low byte of every result is the stored byte v + 128; with x = sign(a) sign(b)
  min(|a|, |b|) (min.xorsign.abs); boxplus(a, b + c) == boxplus(a, add(b, c)) (the top
  output skips add's saturation).

Run: /usr/bin/python3 tools/polar/bp8_half_rules.py (numpy; ~20 s)."""
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
    ha, hb = a.astype(h), b.astype(h)
    # min.xorsign.abs: sign(a) xor sign(b) on min(|a|, |b|)
    m = np.minimum(np.abs(ha), np.abs(hb))
    x = np.where(np.signbit(ha) ^ np.signbit(hb), -m, m).astype(h)
    fifteen16 = np.float64(h(15 / 16))
    top = rounded(x.astype(np.float64) * fifteen16 + np.float64(bias))
    want = scaled_sum(a, b, 0)
    assert np.array_equal(top.astype(np.int64), want + 1408), "top"
    assert np.array_equal(top.view(np.uint16) & 0xFF, want + 128), "top byte"
    lo, hi = h(1281), h(1535)
    for c in v:
        s = rounded(x.astype(np.float64) * fifteen16 + np.float64(h(1408 + c)))
        s = np.minimum(np.maximum(s, lo), hi)
        w = np.clip(scaled_sum(a, b, c), -127, 127)
        assert np.array_equal(s.astype(np.int64), w + 1408), ("bottom", c)
        assert np.array_equal(s.view(np.uint16) & 0xFF, w + 128), ("bottom byte", c)
    # The unbiased sum of two biased messages in two roundings, both exact.
    bb, cb = (rounded(m.astype(np.float64) + 1408) for m in (a, b))
    d = rounded(bb.astype(np.float64) - np.float64(h(2816)))
    sums = rounded(d.astype(np.float64) + cb.astype(np.float64))
    assert np.array_equal(sums.astype(np.int64), a + b), "sum"
    # The top output's box-plus takes b + c unsaturated: with |a| <= 127, min(|a|,
    # |b + c|) and the sign of b + c are those of add(b, c) for every sum -254..254.
    sums = np.arange(-254, 255)
    aa, ss = (m.ravel() for m in np.meshgrid(v, sums, indexing="ij"))
    zero = np.zeros_like(aa)
    assert np.array_equal(scaled_sum(aa, ss, zero), scaled_sum(aa, np.clip(ss, -127, 127), zero)), "unsaturated"
    print(f"bp8 half rules exact: {a.size} pairs, {a.size * v.size} triples")


if __name__ == "__main__":
    main()
