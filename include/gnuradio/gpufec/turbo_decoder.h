/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_TURBO_DECODER_H
#define INCLUDED_GR_GPUFEC_TURBO_DECODER_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief LTE turbo decoder (max-log-MAP / scaled max-log-MAP) for gpufec.lte_turbo_code
 * \ingroup gpufec
 *
 * \details
 * \p iterations: full iterations (two half-iterations each), 1..32; \p algorithm:
 * "max-log-map" | "scaled-max-log-map" (extrinsic information times
 * \p extrinsic_scale, (0, 1]); \p arithmetic: "int8" | "int16" | "float";
 * \p sub_blocks: windows decoded in parallel per code block (1..512 with K /
 * sub_blocks >= 8; the GPU's fast kernels want windows of at most 32 steps, about
 * K / 32, at a BER cost docs/turbo.md tables); \p early_termination: stop when the CRC24B
 * holds (codes with crc24b only); \p schedule: "synchronised" (default: barriers between
 * the half-iterations; the CPU's decisions bit for bit) | "loose" (the GPU's cluster
 * kernel without those barriers, the paper's schedule: GPU only, sub_blocks with
 * windows of at most 32 steps; on Hopper it is slower and about 0.1 dB worse, see
 * docs/turbo.md).
 *
 * Input: soft values (float LLRs, or int8 with input_type="byte"), in the
 * \p soft_convention, one frame = the code's transmitted bits (3K + 12, or e with rate
 * matching); frames are cut at a
 * fixed length or by the length tag \p len_tag_key (each tagged frame must have
 * exactly that length; others are dropped with an error log). Output: the decoded
 * information bits, one per byte, or with \p soft_output their a-posteriori LLRs
 * (float LLRs, int8 values / llr_scale: the float input's units). Each output frame
 * starts with the tags "iterations" (long) and "crc_ok" (bool: CRC24B holds; true without
 * CRC), besides the input frame's tags. Float input is quantized to int8 as round(L *
 * llr_scale), saturated at +/-127. \p backend: "auto" | "cpu" | "cuda" | "cuda:N"; the
 * GPU decodes int16 and int8 ("auto" takes it when present; float arithmetic stays on the
 * CPU), with the CPU's decisions bit for bit, de-rate-matching on the device; choose
 * sub_blocks about K / 32 for its speed.
 * Frames are batched up to \p max_batch_frames, launched when a batch is full, the input
 * is drained, or the oldest frame waited \p max_latency_ms.
 *
 * \p soft_convention: "gnuradio" (default): soft values in and out are positive for
 * bit 1, as gr-digital's constellation_soft_decoder_cf and gr-fec give them; "llr":
 * L = ln P(0)/P(1), positive for bit 0 (AFF3CT, MATLAB, srsRAN).
 *
 * With \p status_tags false the frames carry none of these status tags: GNU Radio
 * locks the output buffer for each tag, and for short frames at high rates the two
 * tags per frame cost more host time than the rest of the block's work.
 */
class GPUFEC_API turbo_decoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<turbo_decoder> sptr;

    static sptr make(code::sptr code,
                     int iterations = 6,
                     const std::string& algorithm = "scaled-max-log-map",
                     double extrinsic_scale = 0.7,
                     const std::string& arithmetic = "int16",
                     int sub_blocks = 1,
                     bool early_termination = true,
                     bool soft_output = false,
                     const std::string& input_type = "float",
                     const std::string& len_tag_key = "",
                     const std::string& backend = "auto",
                     int max_batch_frames = 64,
                     double max_latency_ms = 10.0,
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio",
                     const std::string& schedule = "synchronised",
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

#endif /* INCLUDED_GR_GPUFEC_TURBO_DECODER_H */
