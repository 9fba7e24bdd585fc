/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The window geometry of the Viterbi schedule (viterbi_schedule in
// <gpufec/convolutional.h>), one definition for the CPU decoder and the CUDA kernels
// (host and device code), so both cut frames into the same windows.
#ifndef INCLUDED_GPUFEC_VITERBI_SCHEDULE_H
#define INCLUDED_GPUFEC_VITERBI_SCHEDULE_H

#include <gpufec/host_device.h>
#include <cstdint>

namespace gpufec {

//! Where one window of a frame lies, in trellis stages of the frame.
struct viterbi_window_span {
    int32_t a, b;     //!< decoded information stages [a, b): the window's region
    int32_t ws, we;   //!< stages run [ws, we); tail-biting: may leave [0, T), read mod T
    bool from_zero;   //!< known start state 0 (starts at stage 0, not tail-biting)
    bool end_at_zero; //!< traceback from state 0 (ends at the last stage of a
                      //!< terminated frame)
};

//! Windows (regions) of a frame of `info_bits` information bits.
GPUFEC_HD uint32_t viterbi_regions(uint32_t info_bits, int32_t region_bits)
{
    return (info_bits + static_cast<uint32_t>(region_bits) - 1) /
           static_cast<uint32_t>(region_bits);
}

/*!
 * Window `region` of a frame of `info_bits` information bits and `info_bits + tail`
 * trellis stages: region r decodes [r D, min((r + 1) D, I)) and runs the trellis over
 * the region widened by `overlap` on both sides, clipped to the frame unless the code
 * is tail-biting.
 */
GPUFEC_HD viterbi_window_span viterbi_window_at(int32_t info_bits,
                                                int32_t tail,
                                                int32_t region,
                                                int32_t region_bits,
                                                int32_t overlap,
                                                bool tail_biting,
                                                bool terminated)
{
    const int32_t I = info_bits;
    const int32_t T = I + tail;
    viterbi_window_span w;
    w.a = region * region_bits;
    w.b = w.a + region_bits < I ? w.a + region_bits : I;
    if (tail_biting) {
        w.ws = w.a - overlap;
        w.we = w.b + overlap;
    } else {
        w.ws = w.a - overlap > 0 ? w.a - overlap : 0;
        w.we = w.b + overlap < T ? w.b + overlap : T;
    }
    w.from_zero = !tail_biting && w.ws == 0;
    w.end_at_zero = terminated && w.we == T;
    return w;
}

} // namespace gpufec

#endif
