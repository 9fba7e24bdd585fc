/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_AWGN_BPSK_SOURCE_H
#define INCLUDED_GR_GPUFEC_AWGN_BPSK_SOURCE_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief AWGN/BPSK channel source: random information bits, encoded, BPSK mapped
 * (0 -> +1), white Gaussian noise at Eb/N0, LLRs out.
 * \ingroup gpufec
 *
 * \details
 * Output 0: LLRs of magnitude 2|y|/sigma^2 (sign: \p soft_convention), sigma^2 =
 * 1/(2 R Eb/N0), code->coded_bits() per frame: floats (\p output_type "float"), or int8
 * (\p output_type "byte") quantized exactly as the decoders quantize floats (round(L * \p
 * llr_scale), saturated at +/-127), a quarter of the memory traffic for a decoder with
 * input_type "byte". Output 1: the information bits, one per byte, code->frame_bits() per
 * frame. Frame f is a pure function of (seed, f, Eb/N0) on every backend. Frames are made
 * \p frames_per_call at a time. With \p len_tag_key set, each frame start carries that
 * tag on both outputs (value: the frame's item count on that output), so the streams
 * can feed length-tagged blocks directly.
 *
 * \p soft_convention: "gnuradio" (default): the LLRs are positive for bit 1
 * (-2y/sigma^2), as gr-digital's constellation_soft_decoder_cf gives them; "llr": L = ln
 * P(0)/P(1) = 2y/sigma^2, positive for bit 0 (AFF3CT, MATLAB, srsRAN).
 */
class GPUFEC_API awgn_bpsk_source : virtual public gr::block
{
public:
    typedef std::shared_ptr<awgn_bpsk_source> sptr;

    static sptr make(code::sptr code,
                     double ebn0_db = 3.0,
                     uint64_t seed = 0,
                     const std::string& backend = "auto",
                     int frames_per_call = 16,
                     const std::string& len_tag_key = "",
                     const std::string& output_type = "float",
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio");

    virtual void set_ebn0_db(double ebn0_db) = 0;
    virtual double ebn0_db() const = 0;
    virtual std::string backend_name() const = 0;
    //! Frames produced so far.
    virtual uint64_t frames() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_AWGN_BPSK_SOURCE_H */
