/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Float channel constants shared by the CPU and CUDA AWGN sources (header-only, so
// nvcc compiles the same code; the frame geometry is conv_code's own coded_bits()).
#ifndef INCLUDED_GPUFEC_AWGN_SOURCE_COMMON_H
#define INCLUDED_GPUFEC_AWGN_SOURCE_COMMON_H

#include <gpufec/convolutional.h>
#include <cmath>
#include <sstream>

namespace gpufec {
namespace detail {

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
    const double rate =
        static_cast<double>(code.frame_bits()) / static_cast<double>(code.coded_bits());
    const double sigma = awgn_sigma_of(rate, ebn0_db);
    return { static_cast<float>(sigma), static_cast<float>(2.0 / (sigma * sigma)) };
}

} // namespace detail
} // namespace gpufec

#endif
