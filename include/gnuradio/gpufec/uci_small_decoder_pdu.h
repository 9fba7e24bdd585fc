/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_UCI_SMALL_DECODER_PDU_H
#define INCLUDED_GR_GPUFEC_UCI_SMALL_DECODER_PDU_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief Exhaustive maximum-likelihood decoder for gpufec.nr_uci_small_code, PDU form
 * \ingroup gpufec
 *
 * \details
 * Scores all 2^K messages by their correlation with the received LLRs and outputs the
 * best one (the smallest message on ties); soft output: max-log a-posteriori LLRs.
 *
 * Message port "in": PDUs of f32vector (float LLRs) or s8vector (int8 LLRs), one
 * frame of e values each; port "out": PDUs of the decoded bits (u8vector, one bit per
 * byte) or, with \p soft_output, their a-posteriori LLRs (f32vector), with the input
 * metadata plus "iterations" (1) and "crc_ok" (true). Frames of a wrong length are
 * dropped with an error log. Queued PDUs are decoded together in batches.
 *
 * \p soft_convention: "gnuradio" (default): soft values in and out are positive for
 * bit 1, as gr-digital's constellation_soft_decoder_cf and gr-fec give them; "llr":
 * L = ln P(0)/P(1), positive for bit 0 (AFF3CT, MATLAB, srsRAN).
 */
class GPUFEC_API uci_small_decoder_pdu : virtual public gr::block
{
public:
    typedef std::shared_ptr<uci_small_decoder_pdu> sptr;

    static sptr make(code::sptr code,
                     bool soft_output = false,
                     const std::string& backend = "auto",
                     int max_batch_frames = 256,
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

#endif /* INCLUDED_GR_GPUFEC_UCI_SMALL_DECODER_PDU_H */
