#!/usr/bin/env python3
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""The BP int8 kernel's half-precision rules (lib/cuda/polar/bp8_kernel.cuh) against
polar_bp_int8 (lib/cpu/polar_common.h) for every input, on an IEEE binary16 emulation:
numpy float16 (each operation exact in float32, then rounded once to binary16, as the
GPU's HFMA2 / HADD2 / HSUB2 round; min and max are exact).

  bp8_boxplus_biased(a, b)        == boxplus(a, b) + 1152         for all a, b
  bp8_boxplus_add_biased(a, b, c) == add(boxplus(a, b), c) + 1152 for all a, b, c
  and the low byte of either result is the stored byte v + 128; with sign(x) 15/32
  formed as sm_80 does (sign bit and constant) and as min.xorsign.abs(x, 15/32);
  boxplus(a, b + c) == boxplus(a, add(b, c)) (the top output skips add's saturation).

Run: /usr/bin/python3 tools/polar/bp8_half_rules.py (numpy; ~10 s)."""
import numpy as np

h = np.float16


def boxplus(a, b):  # polar_bp_int8::boxplus: sign(a b) floor(15 min(|a|, |b|) / 16)
    sign = np.where((a < 0) != (b < 0), -1, 1)
    return sign * ((15 * np.minimum(abs(a), abs(b))) // 16)


def rounded(x):  # float32 value -> binary16, round to nearest even
    return x.astype(np.float32).astype(h)


def main():
    v = np.arange(-127, 128)
    a, b = (m.ravel() for m in np.meshgrid(v, v, indexing="ij"))
    ha, hb = a.astype(h), b.astype(h)
    # min.xorsign.abs: sign(a) xor sign(b) on min(|a|, |b|)
    m = np.minimum(np.abs(ha), np.abs(hb))
    x = np.where(np.signbit(ha) ^ np.signbit(hb), -m, m).astype(h)
    # sign(x) 15/32: the kernel's (sign bit | 15/32, two LOP3s), and min.xorsign.abs(x,
    # 15/32) (one HMNMX2.XORSIGN; +/-0 where x is +/-0), which gives the same results
    c_lop = np.where(np.signbit(x), h(-15 / 32), h(15 / 32))
    c_min = (np.where(np.signbit(x), -1, 1) * np.minimum(np.abs(x), h(15 / 32))).astype(h)
    for c in (c_lop, c_min):
        check(a, b, x, c)
    # The top output's box-plus takes b + c unsaturated: with |a| <= 127, min(|a|,
    # |b + c|) and the sign of b + c are those of add(b, c) for every sum -254..254.
    sums = np.arange(-254, 255)
    aa, ss = (m.ravel() for m in np.meshgrid(v, sums, indexing="ij"))
    assert np.array_equal(boxplus(aa, ss), boxplus(aa, np.clip(ss, -127, 127))), "unsaturated"
    print(f"bp8 half rules exact: {a.size} pairs, {a.size * v.size} triples, both forms")


def check(a, b, x, c):
    v = np.arange(-127, 128)
    g = rounded(x.astype(np.float32) * np.float32(1 / 16) + c.astype(np.float32))
    r = rounded(g.astype(np.float32) - np.float32(1152))
    biased = rounded(x.astype(np.float32) - r.astype(np.float32))
    want = boxplus(a, b)
    assert np.array_equal(biased.astype(np.int64), want + 1152), "bp8_boxplus_biased"
    bits = biased.view(np.uint16)
    assert np.array_equal(bits & 0xFF, want + 128) and np.all(bits >> 8 == 0x64)
    for third in v:
        s = rounded(biased.astype(np.float32) + np.float32(third))
        s = np.minimum(np.maximum(s, h(1025)), h(1279))
        assert np.array_equal(s.astype(np.int64), np.clip(want + third, -127, 127) + 1152), (
            "bp8_boxplus_add_biased", third)


if __name__ == "__main__":
    main()
