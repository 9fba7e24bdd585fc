/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The TS 38.211 clause 5.1 constellations and their max-log demapping
// (include/gpufec/constellation.h).
#include <gpufec/constellation.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpufec {

modulation parse_modulation(const std::string& s)
{
    if (s == "bpsk")
        return modulation::bpsk;
    if (s == "qpsk")
        return modulation::qpsk;
    if (s == "16qam")
        return modulation::qam16;
    if (s == "64qam")
        return modulation::qam64;
    if (s == "256qam")
        return modulation::qam256;
    throw error("modulation \"" + s +
                "\" unknown; allowed: bpsk, qpsk, 16qam, 64qam, 256qam");
}

const char* to_string(modulation m)
{
    switch (m) {
    case modulation::bpsk:
        return "bpsk";
    case modulation::qpsk:
        return "qpsk";
    case modulation::qam16:
        return "16qam";
    case modulation::qam64:
        return "64qam";
    case modulation::qam256:
        return "256qam";
    }
    return "?";
}

namespace {

int bits_of(modulation m)
{
    switch (m) {
    case modulation::bpsk:
        return 1;
    case modulation::qpsk:
        return 2;
    case modulation::qam16:
        return 4;
    case modulation::qam64:
        return 6;
    case modulation::qam256:
        return 8;
    }
    throw error("modulation unknown; allowed: bpsk, qpsk, 16qam, 64qam, 256qam");
}

} // namespace

constellation::constellation(modulation m) : d_type(m), d_bits(bits_of(m))
{
    const int q = 1 << d_bits;
    d_points.resize(q);
    if (m == modulation::bpsk) {
        // 5.1.2: d = (1 - 2b)(1 + j) / sqrt(2).
        const float a = 1.0f / std::sqrt(2.0f);
        d_points[0] = { a, a };
        d_points[1] = { -a, -a };
        return;
    }
    // 5.1.3-5.1.6: each axis is (1 - 2c0)(2^(n-1) - (1 - 2c1)(2^(n-2) - ... (2 - (1 -
    // 2c(n-1))))), c0 = b(0) or b(1), c1 = b(2) or b(3), ..., over sqrt(2 (4^n - 1) /
    // 3): sqrt(2), sqrt(10), sqrt(42), sqrt(170) for n = 1..4 bits per axis.
    d_axis_bits = d_bits / 2;
    const int levels = 1 << d_axis_bits;
    const float scale =
        1.0f / std::sqrt(2.0f * static_cast<float>(levels * levels - 1) / 3.0f);
    d_levels.resize(levels);
    for (int a = 0; a < levels; a++) {
        auto c = [&](int k) { return (a >> (d_axis_bits - 1 - k)) & 1; }; // c0 = MSB
        int value = 1 - 2 * c(d_axis_bits - 1);
        for (int k = d_axis_bits - 2; k >= 0; k--)
            value = (1 - 2 * c(k)) * ((1 << (d_axis_bits - 1 - k)) - value);
        d_levels[a] = scale * static_cast<float>(value);
    }
    for (int i = 0; i < q; i++) {
        int re = 0, im = 0; // the axis indices: even and odd stream bits
        for (int k = 0; k < d_bits; k++) {
            const int bit = (i >> (d_bits - 1 - k)) & 1;
            if (k % 2 == 0)
                re = (re << 1) | bit;
            else
                im = (im << 1) | bit;
        }
        d_points[i] = { d_levels[re], d_levels[im] };
    }
}

void constellation::modulate(const uint8_t* bits,
                             size_t n_bits,
                             std::complex<float>* symbols) const
{
    if (n_bits % static_cast<size_t>(d_bits))
        throw error(std::string("modulate (") + to_string(d_type) +
                    "): " + std::to_string(n_bits) + " bits; allowed: a multiple of " +
                    std::to_string(d_bits));
    for (size_t s = 0; s < n_bits / d_bits; s++) {
        int index = 0;
        for (int k = 0; k < d_bits; k++)
            index = (index << 1) | (bits[s * d_bits + k] & 1);
        symbols[s] = d_points[index];
    }
}

void constellation::demap_maxlog(const std::complex<float>* y,
                                 size_t n,
                                 float noise_var,
                                 float* llrs) const
{
    if (!(noise_var > 0.0f) || !std::isfinite(noise_var))
        throw error("demap_maxlog: noise_var = " + std::to_string(noise_var) +
                    "; allowed: a finite value > 0");
    const float inv = 1.0f / noise_var;
    if (d_type == modulation::bpsk) {
        // |y + x0|^2 - |y - x0|^2 = 4 Re(y conj(x0)), x0 = (1 + j) / sqrt(2).
        const float k = 4.0f * d_points[0].real() * inv;
        for (size_t s = 0; s < n; s++)
            llrs[s] = k * (y[s].real() + y[s].imag());
        return;
    }
    const int levels = 1 << d_axis_bits;
    constexpr float inf = std::numeric_limits<float>::infinity();
    for (size_t s = 0; s < n; s++) {
        for (int axis = 0; axis < 2; axis++) {
            const float v = axis ? y[s].imag() : y[s].real();
            // The PAM of this axis: per axis bit, the nearest level with it 0 and 1.
            float best0[4] = { inf, inf, inf, inf }, best1[4] = { inf, inf, inf, inf };
            for (int a = 0; a < levels; a++) {
                const float d = (v - d_levels[a]) * (v - d_levels[a]);
                for (int k = 0; k < d_axis_bits; k++) {
                    if ((a >> (d_axis_bits - 1 - k)) & 1)
                        best1[k] = std::min(best1[k], d);
                    else
                        best0[k] = std::min(best0[k], d);
                }
            }
            for (int k = 0; k < d_axis_bits; k++)
                llrs[s * d_bits + 2 * k + axis] = (best1[k] - best0[k]) * inv;
        }
    }
}

} // namespace gpufec
