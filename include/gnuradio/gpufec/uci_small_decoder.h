/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_UCI_SMALL_DECODER_H
#define INCLUDED_GR_GPUFEC_UCI_SMALL_DECODER_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief Exhaustive maximum-likelihood decoder for gpufec.nr_uci_small_code
 * \ingroup gpufec
 *
 * \details
 * Scores all 2^K messages by their correlation with the received LLRs (repeated bits
 * add, 'x' placeholders are ignored) and outputs the best one (the smallest message on
 * ties). Soft output: the max-log a-posteriori LLR of every UCI bit.
 *
 * Input: soft values (float LLRs, or int8 with input_type="byte"), in the
 * \p soft_convention, one frame = the code's e transmitted bits; frames are cut at a
 * fixed length or by the length tag \p len_tag_key (each tagged frame must have
 * exactly that length; others are dropped with an error log). Output: the k decoded
 * bits, one per byte, or with \p soft_output their a-posteriori LLRs (int8 values /
 * llr_scale: the float input's units). Each output frame starts with the tags
 * "iterations" (1) and "crc_ok" (true: the code has no check), besides the input
 * frame's tags. Float input is quantized to int8 as round(L * llr_scale), saturated at
 * +/-127. \p backend: "auto" | "cpu" | "cuda" | "cuda:N". Frames are batched up to
 * \p max_batch_frames, launched when a batch is full, the input is drained, or the
 * oldest frame waited \p max_latency_ms.
 *
 * \p soft_convention: "gnuradio" (default): soft values in and out are positive for
 * bit 1, as gr-digital's constellation_soft_decoder_cf and gr-fec give them; "llr":
 * L = ln P(0)/P(1), positive for bit 0 (AFF3CT, MATLAB, srsRAN).
 *
 * With \p status_tags false the frames carry none of these status tags: GNU Radio
 * locks the output buffer for each tag, and for short frames at high rates the two
 * tags per frame cost more host time than the rest of the block's work.
 */
class GPUFEC_API uci_small_decoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<uci_small_decoder> sptr;

    static sptr make(code::sptr code,
                     bool soft_output = false,
                     const std::string& input_type = "float",
                     const std::string& len_tag_key = "",
                     const std::string& backend = "auto",
                     int max_batch_frames = 256,
                     double max_latency_ms = 10.0,
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio",
                     bool status_tags = true);

    //! The backend in use, e.g. "cpu".
    virtual std::string backend_name() const = 0;
    //! Frames decoded so far.
    virtual uint64_t decoded_frames() const = 0;
    //! Frames dropped because of an invalid length.
    virtual uint64_t dropped_frames() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_UCI_SMALL_DECODER_H */
