/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_LDPC_DECODER_PDU_H
#define INCLUDED_GR_GPUFEC_LDPC_DECODER_PDU_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief LDPC decoder (layered min-sum) for gpufec.nr_ldpc_code, gpufec.dvbs2_ldpc_code
 * and gpufec.ldpc_code_from_alist, PDU form \ingroup gpufec
 *
 * \details
 * \p iterations: maximum layered iterations, 1..100; \p algorithm: "normalized"
 * (check messages times \p alpha, (0, 1]) | "offset" (minus \p beta, in input LLR
 * units, >= 0); \p arithmetic: "int8" (int8 messages, int16 APP) | "half" (int8
 * messages, APP in half precision: the GPU's fastest kernel, ~1.6x int8's) | "float";
 * \p early_termination: stop once every parity check holds.
 *
 * Message port "in": PDUs of f32vector (float LLRs) or s8vector (int8 LLRs), one
 * frame each; port "out": PDUs of the decoded bits (u8vector, one bit per byte) or,
 * with \p soft_output, their a-posteriori LLRs (f32vector), with the input metadata
 * plus "iterations" (long) and "crc_ok" (bool: every parity check holds). Frames of a
 * wrong length are dropped with an error log. Queued PDUs are decoded together in
 * batches of up to \p max_batch_frames (0, the default: the decoder's preferred batch,
 * as in ldpc_decoder). \p backend: "auto" | "cpu" | "cuda" | "cuda:N": "auto" takes the
 * GPU when one is present and \p arithmetic is "int8" or "half", else the CPU.
 * \p llr_bits: 8 (default) or 4: f32vector LLRs are quantized to 4-bit values,
 * round(L * llr_scale / 8) saturated at +/-7, half the bytes of int8 on the way to the
 * GPU (docs/ldpc-gpu.md); s8vector PDUs are then dropped with an error log.
 *
 * \p soft_convention: "gnuradio" (default): soft values in and out are positive for
 * bit 1, as gr-digital's constellation_soft_decoder_cf and gr-fec give them; "llr":
 * L = ln P(0)/P(1), positive for bit 0 (AFF3CT, MATLAB, srsRAN).
 */
class GPUFEC_API ldpc_decoder_pdu : virtual public gr::block
{
public:
    typedef std::shared_ptr<ldpc_decoder_pdu> sptr;

    static sptr make(code::sptr code,
                     int iterations = 10,
                     const std::string& algorithm = "normalized",
                     double alpha = 0.75,
                     double beta = 0.5,
                     const std::string& arithmetic = "int8",
                     bool early_termination = true,
                     bool soft_output = false,
                     const std::string& backend = "auto",
                     int max_batch_frames = 0,
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio",
                     int llr_bits = 8);

    //! The backend in use, e.g. "cpu".
    virtual std::string backend_name() const = 0;
    //! Frames decoded so far.
    virtual uint64_t decoded_frames() const = 0;
    //! Frames dropped because of an invalid length.
    virtual uint64_t dropped_frames() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_LDPC_DECODER_PDU_H */
