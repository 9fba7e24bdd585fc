/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: what the CPU running the decoders supports, asked in one place, and the
// GPUFEC_CPU_SIMD override that caps the SIMD level (tests compare the variants).
#ifndef INCLUDED_GPUFEC_CPU_FEATURES_H
#define INCLUDED_GPUFEC_CPU_FEATURES_H

namespace gpufec {
namespace cpu {

//! The running CPU's features (false on non-x86 targets); asked once, then cached.
bool has_fma();
bool has_avx2();
bool has_avx512bw(); //!< AVX-512 F and BW

enum class simd_level { portable, avx2, avx512 };

/*!
 * The widest SIMD level this CPU runs (avx512 needs AVX-512 F+BW), capped by the
 * environment variable GPUFEC_CPU_SIMD = portable | avx2 | avx512 when it is set. Reads
 * the variable on every call (decoders ask once, at construction); throws gpufec::error
 * naming the allowed values for any other value.
 */
simd_level simd_level_in_use();

} // namespace cpu
} // namespace gpufec

#endif
