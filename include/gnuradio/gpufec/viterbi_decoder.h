/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_VITERBI_DECODER_H
#define INCLUDED_GR_GPUFEC_VITERBI_DECODER_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief Batched Viterbi decoder: soft LLRs in, unpacked information bits out.
 * \ingroup gpufec
 *
 * \details
 * Input: soft values in the \p soft_convention, "float" or "byte" (int8, already
 * quantized). Float LLRs are quantized as round(L * llr_scale) saturated to +/-127.
 * Output: one decoded information bit per byte.
 *
 * Frames: fixed (code->coded_bits() LLRs -> code->frame_bits() bits) unless
 * \p len_tag_key is set; then each frame's LLR count comes from its length tag and the
 * decoded frame carries the same key with its bit count. Other tags follow their frame,
 * offsets scaled by out/in length. A frame whose length tag is larger than the largest
 * frame or has no decodable length is DROPPED (its items and tags are consumed, an error
 * is logged, dropped_frames() counts it); items before the first length tag are dropped
 * likewise. Frames are never reordered.
 *
 * Frames are batched through the gpufec engine (up to \p max_batch_frames per batch);
 * a partial batch is launched when the input runs dry and no batch is in flight or the
 * oldest waiting frame is older than \p max_latency_ms. Backend: "auto" (CUDA device 0
 * when present, else CPU; the choice is logged), "cpu", "cuda" or "cuda:N".
 *
 * \p soft_convention: "gnuradio" (default): soft values in and out are positive for
 * bit 1, as gr-digital's constellation_soft_decoder_cf and gr-fec give them; "llr":
 * L = ln P(0)/P(1), positive for bit 0 (AFF3CT, MATLAB, srsRAN).
 */
class GPUFEC_API viterbi_decoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<viterbi_decoder> sptr;

    static sptr make(code::sptr code,
                     const std::string& input_type = "float",
                     const std::string& len_tag_key = "",
                     const std::string& backend = "auto",
                     int max_batch_frames = 64,
                     double max_latency_ms = 10.0,
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio");

    //! The backend in use, e.g. "cpu".
    virtual std::string backend_name() const = 0;
    //! Frames decoded so far.
    virtual uint64_t decoded_frames() const = 0;
    //! Frames dropped because of an invalid length.
    virtual uint64_t dropped_frames() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_VITERBI_DECODER_H */
