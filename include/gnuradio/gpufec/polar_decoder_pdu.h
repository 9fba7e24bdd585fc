/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_POLAR_DECODER_PDU_H
#define INCLUDED_GR_GPUFEC_POLAR_DECODER_PDU_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief Polar decoder (SC, CRC-aided SCL, belief propagation) for gpufec.nr_polar_code,
 * PDU form \ingroup gpufec
 *
 * \details
 * \p algorithm: "sc" | "fast-ssc" (SC with whole nodes decided at once, hard output
 * only) | "scl" (CRC-aided list decoding, \p list_size 1..32) | "fast-scl" (the
 * same with rate-1 and single-parity-check nodes decided for the list at once: about
 * SCL's frame errors, faster, on the CPU and the GPU) | "sc-first-scl" |
 * "sc-first-fast-scl" (fast-SSC first, the list only for frames whose fast-SSC word
 * fails the CRC: about the list's frame errors at nearly fast-SSC's speed where most
 * frames are right; codes with a CRC, hard output only; "iterations" 1 or 2: the
 * frame was listed) | "bp"
 * (belief propagation, up to \p bp_iterations 1..200 iterations, stopping early when
 * the G-matrix check holds with \p early_termination; \p bp_arithmetic "float", or
 * "int8" for the paper's 8-bit messages: 4x less GPU memory per frame, about 0.05 dB).
 * Soft output: BP gives the
 * a-posteriori LLRs of the payload bits, SC/SCL the decision LLRs along the chosen
 * path.
 *
 * Message port "in": PDUs of f32vector (float LLRs) or s8vector (int8 LLRs), one
 * frame each; port "out": PDUs of the decoded bits (u8vector, one bit per byte) or,
 * with \p soft_output, their a-posteriori LLRs (f32vector), with the input metadata
 * plus "iterations" (long) and "crc_ok" (bool: the CRC holds; true without CRC). Frames
 * of a wrong length are dropped with an error log. Queued PDUs are decoded together in
 * batches of up to \p max_batch_frames (0, the default: the decoder's preferred batch,
 * as in polar_decoder).
 *
 * \p soft_convention: "gnuradio" (default): soft values in and out are positive for
 * bit 1, as gr-digital's constellation_soft_decoder_cf and gr-fec give them; "llr":
 * L = ln P(0)/P(1), positive for bit 0 (AFF3CT, MATLAB, srsRAN).
 */
class GPUFEC_API polar_decoder_pdu : virtual public gr::block
{
public:
    typedef std::shared_ptr<polar_decoder_pdu> sptr;

    static sptr make(code::sptr code,
                     const std::string& algorithm = "scl",
                     int list_size = 8,
                     int bp_iterations = 50,
                     bool early_termination = true,
                     bool soft_output = false,
                     const std::string& backend = "auto",
                     int max_batch_frames = 0,
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio",
                     const std::string& bp_arithmetic = "float");

    //! The backend in use, e.g. "cpu".
    virtual std::string backend_name() const = 0;
    //! Frames decoded so far.
    virtual uint64_t decoded_frames() const = 0;
    //! Frames dropped because of an invalid length.
    virtual uint64_t dropped_frames() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_POLAR_DECODER_PDU_H */
