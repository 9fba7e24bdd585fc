/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_BER_COUNTER_H
#define INCLUDED_GR_GPUFEC_BER_COUNTER_H

#include <gnuradio/gpufec/api.h>
#include <gnuradio/sync_block.h>
#include <cstdint>

namespace gr {
namespace gpufec {

/*!
 * \brief Counts bit and frame errors between two unpacked bit streams.
 * \ingroup gpufec
 *
 * \details
 * Input 0: decoded bits, input 1: reference bits, one bit per byte (LSB compared).
 * A frame is \p frame_bits consecutive bits (0: frames are not counted, frames() and
 * frame_errors() stay 0); a frame with at least one bit error is a frame error.
 * Message port "stats": a PMT dict {bits, bit_errors, ber, frames, frame_errors, fer}
 * posted every \p report_every_frames complete frames (0: never while running) and
 * once when the flowgraph stops.
 */
class GPUFEC_API ber_counter : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<ber_counter> sptr;

    static sptr make(int frame_bits = 0, int report_every_frames = 0);

    //! bit_errors() / bits() (0 before any bit).
    virtual double ber() const = 0;
    virtual uint64_t bit_errors() const = 0;
    virtual uint64_t bits() const = 0;
    virtual uint64_t frame_errors() const = 0;
    virtual uint64_t frames() const = 0;
    //! Clears all counters (a partly counted frame starts again).
    virtual void reset() = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_BER_COUNTER_H */
