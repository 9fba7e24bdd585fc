/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_LDPC_DECODER_H
#define INCLUDED_GR_GPUFEC_LDPC_DECODER_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief LDPC decoder (layered min-sum) for gpufec.nr_ldpc_code, gpufec.dvbs2_ldpc_code
 * and gpufec.ldpc_code_from_alist \ingroup gpufec
 *
 * \details
 * \p iterations: maximum layered iterations, 1..100; \p algorithm: "normalized"
 * (check messages times \p alpha, (0, 1]) | "offset" (minus \p beta, in input LLR
 * units, >= 0); \p arithmetic: "int8" (int8 messages, int16 APP) | "half" (int8
 * messages, APP in half precision: the GPU's fastest kernel, ~1.6x int8's) | "float";
 * \p early_termination: stop once every parity check holds.
 *
 * Input: soft values (float LLRs, or int8 with input_type="byte"), in the
 * \p soft_convention, one frame = the code's transmitted bits; frames are cut at a
 * fixed length or by the length tag \p len_tag_key (each tagged frame must have
 * exactly that length; others are dropped with an error log). Output: the decoded
 * information bits, one per byte, or with \p soft_output their a-posteriori LLRs
 * (float LLRs, int8 values / llr_scale: the float input's units). Each output frame
 * starts with the tags "iterations" (long) and "crc_ok" (bool: every parity check holds),
 * besides the input frame's tags. Float input is quantized to int8 as round(L *
 * llr_scale), saturated at
 * +/-127. \p backend: "auto" | "cpu" | "cuda" | "cuda:N": "auto" takes the GPU when one
 * is present and \p arithmetic is "int8" or "half" (its bits, soft output, iterations
 * and status equal the CPU decoder's of the same arithmetic), else the CPU.
 * Frames are batched up to
 * \p max_batch_frames, launched when a batch is full, the input is drained, or the
 * oldest frame waited \p max_latency_ms. \p max_batch_frames = 0 (default): the
 * decoder's preferred batch, on the GPU whole rounds of the codewords its kernel runs
 * at once (528 frames of BG1 Z = 384 on an H200), on the CPU 64 frames.
 *
 * \p soft_convention: "gnuradio" (default): soft values in and out are positive for
 * bit 1, as gr-digital's constellation_soft_decoder_cf and gr-fec give them; "llr":
 * L = ln P(0)/P(1), positive for bit 0 (AFF3CT, MATLAB, srsRAN).
 *
 * \p llr_bits: 8 (default) or 4: the float input is quantized to 4-bit LLRs, round(L *
 * llr_scale / 8) saturated at +/-7, half the bytes of int8 on the way to the GPU, at a
 * BER cost of about 0.15 dB near the waterfall (docs/ldpc-gpu.md); float input only.
 *
 * With \p status_tags false the frames carry none of these status tags: GNU Radio
 * locks the output buffer for each tag, and for short frames at high rates the two
 * tags per frame cost more host time than the rest of the block's work.
 */
class GPUFEC_API ldpc_decoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<ldpc_decoder> sptr;

    static sptr make(code::sptr code,
                     int iterations = 10,
                     const std::string& algorithm = "normalized",
                     double alpha = 0.75,
                     double beta = 0.5,
                     const std::string& arithmetic = "int8",
                     bool early_termination = true,
                     bool soft_output = false,
                     const std::string& input_type = "float",
                     const std::string& len_tag_key = "",
                     const std::string& backend = "auto",
                     int max_batch_frames = 0,
                     double max_latency_ms = 10.0,
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio",
                     int llr_bits = 8,
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

#endif /* INCLUDED_GR_GPUFEC_LDPC_DECODER_H */
