/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the CPU AWGN source's noise loop in AVX2 lanes (awgn_noise_avx2.cc).
#ifndef INCLUDED_GPUFEC_AWGN_NOISE_AVX2_H
#define INCLUDED_GPUFEC_AWGN_NOISE_AVX2_H

#include <cstddef>
#include <cstdint>

namespace gpufec {
namespace cpu {

/*!
 * LLRs of a frame's coded bits 0 .. 32 floor(coded_bits / 32) - 1, bit for bit those
 * of philox::noise4 and philox::bpsk_llr (the scalar loop and the CUDA source); returns
 * how many it wrote (the caller does the rest). Call only where has_avx2() and
 * has_fma(); returns 0 on targets without AVX2 support in the compiler.
 */
size_t noisy_llrs_avx2(uint64_t seed,
                       uint64_t frame,
                       const uint8_t* coded,
                       size_t coded_bits,
                       float sigma,
                       float llr_scale,
                       float* llrs);

} // namespace cpu
} // namespace gpufec

#endif
