/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_ENCODER_H
#define INCLUDED_GR_GPUFEC_ENCODER_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>

namespace gr {
namespace gpufec {

/*!
 * \brief Encodes unpacked information bits (one per byte) into coded bits (one per
 * byte) with any gpufec code definition.
 * \ingroup gpufec
 *
 * \details
 * Without a length tag key, the input is cut into frames of code->frame_bits() bits and
 * each yields code->coded_bits() bits. With \p len_tag_key, each frame's length comes
 * from its length tag (1 .. frame_bits()); the coded frame carries the same key with
 * the coded length. Other tags follow their frame with offsets scaled by out/in length.
 * A tagged frame longer than frame_bits() is dropped with a logged error (as in the
 * decoders); items before the first length tag are dropped likewise.
 */
class GPUFEC_API encoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<encoder> sptr;

    static sptr make(code::sptr code, const std::string& len_tag_key = "");

    //! Frames dropped because their length tag was invalid.
    virtual uint64_t dropped_frames() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_ENCODER_H */
