/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Windowed Viterbi decoding, one thread per window, all path metrics in registers.
// The schedule and every tie-break follow viterbi_schedule (gpufec/convolutional.h) so the hard
// decisions equal the CPU reference bit for bit.
#ifndef INCLUDED_GPUFEC_VITERBI_KERNELS_CUH
#define INCLUDED_GPUFEC_VITERBI_KERNELS_CUH

#include <cstdint>

namespace gpufec {
namespace cuda {

constexpr int viterbi_max_butterflies = 128; // K = 9
constexpr int viterbi_max_outputs = 4;

//! One decode window (host-built per batch).
struct viterbi_window {
    uint64_t in_base;   //!< frame's first input LLR
    uint32_t out_byte;  //!< output byte of the region's first bit
    int32_t steps;      //!< trellis stages run by the window
    int32_t out_first;  //!< step index of the region's first stage
    int32_t out_count;  //!< decoded bits of the region
    int32_t t0;         //!< frame stage of step 0 (already wrapped for tail-biting)
    int32_t stages;     //!< stages of the frame (wrap point)
    uint32_t idx0;      //!< input index of stage t0 (relative to in_base)
    uint16_t phase0;    //!< puncture phase of stage t0's first output
    uint8_t start_state0; //!< trellis known to start in state 0
    uint8_t end_state0;   //!< traceback starts at state 0
};

//! Per-code constants, passed by value (they live in the kernel-parameter bank).
struct viterbi_code_params {
    //! Branch-metric signs (+1 / -1, 0 for absent outputs). Symmetric codes use only
    //! [0][j]: the metric X_j of (j -> 2j); the other three branches are -X, -X, X.
    //! General codes: [0] j->2j, [1] j->2j+1, [2] j+S/2->2j, [3] j+S/2->2j+1.
    int32_t sign[4][viterbi_max_butterflies][viterbi_max_outputs];
    uint64_t keep_mask; //!< puncture keep-mask over the serialized stream (bit p)
    int32_t period;     //!< mask period
    int32_t outputs;    //!< n: coded bits per stage (the general kernel is built for 4)
};

struct viterbi_batch_params {
    const int8_t* llrs;
    uint8_t* out;
    const viterbi_window* windows;
    uint32_t* decisions; //!< [step][word][window]
    int32_t num_windows;
};

} // namespace cuda
} // namespace gpufec

#endif
