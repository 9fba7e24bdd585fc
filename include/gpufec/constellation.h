/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Constellations of the soft MIMO detector (issue 10): the 3GPP Gray mappings of
// TS 38.211 clause 5.1 (BPSK 5.1.2, QPSK 5.1.3, 16QAM 5.1.4, 64QAM 5.1.5, 256QAM
// 5.1.6), unit average energy, and max-log demapping in the core's LLR convention
// (L = ln P(b=0)/P(b=1), positive for bit 0; DESIGN.md §4).
#ifndef INCLUDED_GPUFEC_CONSTELLATION_H
#define INCLUDED_GPUFEC_CONSTELLATION_H

#include <gpufec/common.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpufec {

enum class modulation { bpsk, qpsk, qam16, qam64, qam256 };

//! "bpsk" | "qpsk" | "16qam" | "64qam" | "256qam"; throws gpufec::error naming them.
modulation parse_modulation(const std::string& s);
const char* to_string(modulation m);

/*!
 * One constellation. Point i carries the bits b(0) .. b(m-1) of i, b(0) the most
 * significant (the order TS 38.211 reads them from the bit stream). BPSK is the
 * standard's (1 - 2b)(1 + j) / sqrt(2); the QAMs are Gray mapped per axis: b(0),
 * b(2), ... select the real part, b(1), b(3), ... the imaginary part, so the max-log
 * LLRs of a symbol split into two PAM demappings (exact, not an approximation).
 */
class constellation
{
public:
    explicit constellation(modulation m);

    modulation type() const { return d_type; }
    int bits_per_symbol() const { return d_bits; }
    int size() const { return 1 << d_bits; }
    //! The points, indexed by their bits (b(0) first, most significant).
    const std::vector<std::complex<float>>& points() const { return d_points; }

    //! n_bits / bits_per_symbol() symbols from the bits (one per byte, 0 or 1) in
    //! stream order. Throws when n_bits is not a multiple of bits_per_symbol().
    void modulate(const uint8_t* bits, size_t n_bits, std::complex<float>* symbols) const;

    /*!
     * Max-log LLRs of n received symbols y = x + w, w circular Gaussian with E|w|^2 =
     * noise_var: L(b_k) = (min over x with b_k = 1 of |y - x|^2 - min over x with b_k
     * = 0 of |y - x|^2) / noise_var, bits_per_symbol() values per symbol in stream
     * order. noise_var must be > 0 (throws otherwise, naming the allowed range).
     */
    void demap_maxlog(const std::complex<float>* y,
                      size_t n,
                      float noise_var,
                      float* llrs) const;

private:
    modulation d_type;
    int d_bits;
    std::vector<std::complex<float>> d_points;
    //! Per-axis amplitudes (unnormalised odd integers times the scale) of the Gray
    //! PAM that each axis carries, indexed by the axis's bits, and that PAM's bits.
    std::vector<float> d_levels;
    int d_axis_bits = 0;
};

} // namespace gpufec

#endif
