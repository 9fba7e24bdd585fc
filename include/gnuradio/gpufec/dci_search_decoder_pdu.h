/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_DCI_SEARCH_DECODER_PDU_H
#define INCLUDED_GR_GPUFEC_DCI_SEARCH_DECODER_PDU_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <string>
#include <vector>

namespace gr {
namespace gpufec {

/*!
 * \brief PDCCH blind search: 5G NR DCI candidates of every aggregation level decoded
 * against a set of RNTIs, PDU form \ingroup gpufec
 *
 * \details
 * Each input PDU is one PDCCH candidate: the 108 L received soft bits of a candidate
 * of aggregation level L (TS 38.211 7.3.2: L CCEs of 54 QPSK data symbols), for any L
 * in \p aggregation_levels (1, 2, 4, 8, 16). It is decoded once as the DCI chain of TS
 * 38.212 7.3 with \p k payload bits (12..140) by CA-SCL with \p list_size paths
 * (1..32), and its CRC is checked against every RNTI in \p rntis at once (the CRC's
 * last 16 bits are scrambled by the sender's RNTI, so the syndrome names it).
 *
 * Message port "in": PDUs of f32vector (float LLRs) or s8vector (int8 LLRs). Port
 * "out": PDUs of the k decoded payload bits (u8vector, one bit per byte) with the
 * input metadata plus "crc_ok" (bool: the CRC matched one of \p rntis), "rnti" (long:
 * the matched RNTI, -1 when none matched) and "iterations". To see every RNTI on the
 * channel, list all 65536.
 * PDUs of any other length are dropped with an error log. Queued PDUs are decoded
 * together: on the GPU, every candidate of a batch, whatever its aggregation level, in
 * one kernel launch.
 *
 * \p soft_convention: "gnuradio" (default, positive soft values mean bit 1) or "llr"
 * (positive means bit 0).
 */
class GPUFEC_API dci_search_decoder_pdu : virtual public gr::block
{
public:
    typedef std::shared_ptr<dci_search_decoder_pdu> sptr;
    static sptr make(int k,
                     const std::vector<int>& rntis,
                     const std::vector<int>& aggregation_levels = { 1, 2, 4, 8, 16 },
                     int list_size = 8,
                     const std::string& backend = "auto",
                     int max_batch_frames = 64,
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio");
    //! The backend in use, e.g. "cpu".
    virtual std::string backend_name() const = 0;
    //! Candidates decoded so far.
    virtual uint64_t decoded_frames() const = 0;
    //! Candidates dropped because of an invalid length.
    virtual uint64_t dropped_frames() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_DCI_SEARCH_DECODER_PDU_H */
