/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: what every polar decoder (CPU SC/SCL, fast-SSC, BP and the CUDA kernels)
// starts a frame from: the channel LLR of each mother-code position before the
// received values are added.
#ifndef INCLUDED_GPUFEC_POLAR_COMMON_H
#define INCLUDED_GPUFEC_POLAR_COMMON_H

#include <gpufec/polar.h>

#include <vector>

namespace gpufec {

// "Known zero" for shortened positions (and BP's frozen bits): far above any sum of
// int8 LLRs (at most 8 repetitions of 127 per position). BP's messages never grow past
// 2^n times this, well inside float range, and stay finite: known zeros never meet a
// large value of the opposite sign (the all-zero word satisfies them all).
constexpr float polar_known_zero_llr = 1e5f;

//! Per mother-code position: 0, or polar_known_zero_llr where shortening leaves it
//! unsent (a known zero); the received LLRs are added to it.
inline std::vector<float> polar_channel_fill(const nr_polar_code& code)
{
    const int N = code.N();
    std::vector<float> fill(N, 0.0f);
    if (code.rate_matching() != polar_rate_matching::shortening)
        return fill;
    std::vector<uint8_t> sent(N, 0);
    for (uint16_t d : code.output_to_codeword())
        sent[d] = 1;
    for (int j = 0; j < N; j++)
        if (!sent[j])
            fill[j] = polar_known_zero_llr;
    return fill;
}

//! N flags: 1 at the code's parity-check positions (5.3.1.2).
inline std::vector<uint8_t> polar_pc_flags(const nr_polar_code& code)
{
    std::vector<uint8_t> flags(code.N(), 0);
    for (uint16_t p : code.pc_positions())
        flags[p] = 1;
    return flags;
}

} // namespace gpufec

#endif
