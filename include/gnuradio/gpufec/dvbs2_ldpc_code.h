/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_DVBS2_LDPC_CODE_H
#define INCLUDED_GR_GPUFEC_DVBS2_LDPC_CODE_H

#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gpufec {
class dvbs2_ldpc_code;
}

namespace gr {
namespace gpufec {

/*!
 * \brief A DVB-S2 LDPC code (ETSI EN 302 307-1 clause 5.3.2, the inner code of a
 * FECFRAME), built from the standard's parity-bit accumulator address tables.
 * \ingroup gpufec
 *
 * \details
 * Python: gpufec.dvbs2_ldpc_code(frame="normal", rate="1/2"). \p frame: "normal" (n =
 * 64800; rates 1/4 1/3 2/5 1/2 3/5 2/3 3/4 4/5 5/6 8/9 9/10, Annex B) or "short" (n =
 * 16200; the same without 9/10, Annex C; k of Table 5b, e.g. 3240 for 1/4). The
 * encoder is systematic as the standard: a frame of k information bits (the BCH
 * codeword, BCHFEC) becomes the n bits of the LDPC codeword, information first, then
 * n - k parity bits; no bit interleaving. The LDPC decoders return the k information
 * bits. Family "ldpc": gpufec.encoder, gpufec.awgn_bpsk_source and the LDPC decoder
 * blocks take it.
 */
class GPUFEC_API dvbs2_ldpc_code : public code
{
public:
    typedef std::shared_ptr<dvbs2_ldpc_code> sptr;

    static sptr make(const std::string& frame = "normal",
                     const std::string& rate = "1/2");

    //! "normal" or "short".
    virtual std::string frame() const = 0;
    //! The nominal rate as the standard names it, e.g. "1/2" (rate() is k / n).
    virtual std::string nominal_rate() const = 0;
    virtual int n() const = 0; //!< n_ldpc: codeword bits
    virtual int k() const = 0; //!< k_ldpc: information bits
    virtual int q() const = 0; //!< q of Tables 7a/7b, (n - k) / 360
    //! The parity-check matrix as MacKay alist text (for gr-fec or other decoders).
    virtual std::string to_alist_text() const = 0;
    //! The core-library code (C++ only).
    virtual const ::gpufec::dvbs2_ldpc_code& core() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_DVBS2_LDPC_CODE_H */
