/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_VITERBI_DECODER_PDU_H
#define INCLUDED_GR_GPUFEC_VITERBI_DECODER_PDU_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief Batched Viterbi decoder on PDUs.
 * \ingroup gpufec
 *
 * \details
 * Message port "in": PDUs whose vector is an f32vector (float LLRs, quantized with
 * \p llr_scale) or an s8vector (int8 LLRs). Message port "out": one PDU per input PDU,
 * in the same order, with the same metadata and a u8vector of decoded bits (one per
 * byte). PDUs queued together are decoded as one batch (up to \p max_batch_frames); a
 * partial batch is sent as soon as the input queue is empty. A PDU whose length is not
 * decodable (too long, or no frame has that many LLRs) is dropped with a logged error.
 *
 * \p soft_convention: "gnuradio" (default): soft values in and out are positive for
 * bit 1, as gr-digital's constellation_soft_decoder_cf and gr-fec give them; "llr":
 * L = ln P(0)/P(1), positive for bit 0 (AFF3CT, MATLAB, srsRAN).
 */
class GPUFEC_API viterbi_decoder_pdu : virtual public gr::block
{
public:
    typedef std::shared_ptr<viterbi_decoder_pdu> sptr;

    static sptr make(code::sptr code,
                     const std::string& backend = "auto",
                     int max_batch_frames = 64,
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio");

    virtual std::string backend_name() const = 0;
    virtual uint64_t decoded_frames() const = 0;
    virtual uint64_t dropped_frames() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_VITERBI_DECODER_PDU_H */
