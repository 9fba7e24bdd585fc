/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cpu/cpu_features.h"
#include "cpu/env_switch.h"
#include <gpufec/common.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace gpufec {
namespace cpu {

namespace {

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define GPUFEC_CPU_X86 1
#else
#define GPUFEC_CPU_X86 0
#endif

struct features {
    bool fma = false, avx2 = false, avx512bw = false;
    features()
    {
#if GPUFEC_CPU_X86
        __builtin_cpu_init();
        fma = __builtin_cpu_supports("fma");
        avx2 = __builtin_cpu_supports("avx2");
        avx512bw =
            __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
    }
};

const features& detected()
{
    static const features f;
    return f;
}

} // namespace

bool has_fma() { return detected().fma; }
bool has_avx2() { return detected().avx2; }
bool has_avx512bw() { return detected().avx512bw; }

simd_level simd_level_in_use()
{
    simd_level best = simd_level::portable;
    if (has_avx2())
        best = simd_level::avx2;
    if (has_avx512bw())
        best = simd_level::avx512;
    const std::string cap = env_switch(
        "GPUFEC_CPU_SIMD", { "portable", "avx2", "avx512" }, "cpu decoders' SIMD level");
    if (cap == "portable")
        best = simd_level::portable;
    else if (cap == "avx2")
        best = std::min(best, simd_level::avx2);
    return best;
}

} // namespace cpu
} // namespace gpufec
