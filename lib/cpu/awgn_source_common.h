/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Frame geometry and float channel constants shared by the CPU and CUDA AWGN sources.
// Header-only on purpose: the CUDA static library must not call back into gpufec-core.
#ifndef INCLUDED_GPUFEC_AWGN_SOURCE_COMMON_H
#define INCLUDED_GPUFEC_AWGN_SOURCE_COMMON_H

#include <gpufec/convolutional.h>
#include <cmath>
#include <sstream>

namespace gpufec {
namespace detail {

//! Transmitted (post-puncturing) coded bits of one frame of `code`.
inline size_t awgn_transmitted_bits(const conv_code& code)
{
    const size_t info = static_cast<size_t>(code.frame_bits());
    const size_t stages =
        info +
        (code.term() == termination::terminated ? static_cast<size_t>(code.k() - 1) : 0);
    const size_t mother = stages * static_cast<size_t>(code.n());
    const auto& mask = code.puncture_mask();
    if (mask.empty())
        return mother;
    size_t ones = 0, head = 0;
    for (size_t i = 0; i < mask.size(); ++i) {
        ones += mask[i] != 0;
        if (i < mother % mask.size())
            head += mask[i] != 0;
    }
    return (mother / mask.size()) * ones + head;
}

inline double awgn_sigma_of(double rate, double ebn0_db)
{
    if (!(rate > 0.0) || !std::isfinite(rate) || !std::isfinite(ebn0_db)) {
        std::ostringstream msg;
        msg << "awgn_sigma: need a finite rate > 0 and a finite Eb/N0 in dB (got rate "
            << rate << ", Eb/N0 " << ebn0_db << " dB)";
        throw error(msg.str());
    }
    return std::sqrt(1.0 / (2.0 * rate * std::pow(10.0, ebn0_db / 10.0)));
}

//! The two float constants every backend uses, rounded once from double.
struct awgn_channel_constants {
    float sigma;
    float llr_scale; //!< 2 / sigma^2
};

inline awgn_channel_constants awgn_constants(const conv_code& code, double ebn0_db)
{
    const double rate = static_cast<double>(code.frame_bits()) /
                        static_cast<double>(awgn_transmitted_bits(code));
    const double sigma = awgn_sigma_of(rate, ebn0_db);
    return { static_cast<float>(sigma), static_cast<float>(2.0 / (sigma * sigma)) };
}

} // namespace detail
} // namespace gpufec

#endif
