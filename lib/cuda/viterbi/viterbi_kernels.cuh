/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Windowed Viterbi decoding, one thread per window, all path metrics in registers.
// The schedule and every tie-break follow viterbi_schedule (gpufec/convolutional.h) so
// the hard decisions equal the CPU reference bit for bit.
#ifndef INCLUDED_GPUFEC_VITERBI_KERNELS_CUH
#define INCLUDED_GPUFEC_VITERBI_KERNELS_CUH

#include <gpufec/common.h>
#include <gpufec/host_device.h>
#include <gpufec/viterbi_schedule.h>
#include <cstdint>

namespace gpufec {
namespace cuda {

constexpr int viterbi_max_butterflies = 128; // K = 9
constexpr int viterbi_max_outputs = 4;

//! One decode window (host-built per batch).
struct viterbi_window {
    uint64_t in_base;     //!< frame's first input LLR
    uint32_t out_byte;    //!< output byte of the region's first bit
    int32_t steps;        //!< trellis stages run by the window
    int32_t out_first;    //!< step index of the region's first stage
    int32_t out_count;    //!< decoded bits of the region
    int32_t t0;           //!< frame stage of step 0 (already wrapped for tail-biting)
    int32_t stages;       //!< stages of the frame (wrap point)
    uint32_t idx0;        //!< input index of stage t0 (relative to in_base)
    uint16_t phase0;      //!< puncture phase of stage t0's first output
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
    // The window schedule (viterbi_schedule), so windows can be derived on the device.
    int32_t region_bits;
    int32_t overlap;
    int32_t tail; //!< K-1 for terminated frames, else 0
    uint8_t tail_biting;
    uint8_t terminated;
    uint32_t mask_ones;      //!< kept positions per period
    uint8_t prefix_ones[64]; //!< kept positions before each phase
};

//! Windows of a frame of `info_bits` information bits.
GPUFEC_HD uint32_t viterbi_windows_of(uint32_t info_bits, const viterbi_code_params& c)
{
    return viterbi_regions(info_bits, c.region_bits);
}

//! Window `region` of a frame, per the normative schedule (viterbi_window_at(), which the
//! CPU decoder uses too), with the frame's input position and puncture phase.
GPUFEC_HD viterbi_window make_viterbi_window(const frame_extent& fe,
                                             int region,
                                             const viterbi_code_params& c)
{
    const int T = static_cast<int>(fe.out_bits) + c.tail;
    const viterbi_window_span g = viterbi_window_at(static_cast<int>(fe.out_bits),
                                                    c.tail,
                                                    region,
                                                    c.region_bits,
                                                    c.overlap,
                                                    c.tail_biting,
                                                    c.terminated);
    viterbi_window w;
    w.in_base = fe.in_offset;
    w.out_byte = static_cast<uint32_t>(fe.out_offset + g.a / 8);
    w.steps = g.we - g.ws;
    w.out_first = g.a - g.ws;
    w.out_count = g.b - g.a;
    const int t0 = c.tail_biting ? ((g.ws % T) + T) % T : g.ws;
    w.t0 = t0;
    w.stages = c.tail_biting ? T : (1 << 30); // no wrap unless tail-biting
    const long long p0 = static_cast<long long>(t0) * c.outputs;
    w.idx0 = static_cast<uint32_t>((p0 / c.period) * c.mask_ones +
                                   c.prefix_ones[p0 % c.period]);
    w.phase0 = static_cast<uint16_t>(p0 % c.period);
    w.start_state0 = g.from_zero ? 1 : 0;
    w.end_state0 = g.end_at_zero ? 1 : 0;
    return w;
}

/*!
 * A batch. Either `windows` holds a host-built window table, or it is null and each
 * thread derives its window from `frames` and `window_first` (the prefix sum of windows
 * per frame, num_frames + 1 entries), which keeps per-window work off the host.
 */
struct viterbi_batch_params {
    const int8_t* llrs;
    uint8_t* out;
    const viterbi_window* windows;
    const frame_extent* frames;
    const uint32_t* window_first;
    int32_t num_frames;
    uint32_t* decisions; //!< [step][word][window]
    int32_t num_windows;
};

} // namespace cuda
} // namespace gpufec

#endif
