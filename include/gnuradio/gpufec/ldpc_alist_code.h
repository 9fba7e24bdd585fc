/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_LDPC_ALIST_CODE_H
#define INCLUDED_GR_GPUFEC_LDPC_ALIST_CODE_H

#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gpufec {
class ldpc_alist_code;
}

namespace gr {
namespace gpufec {

/*!
 * \brief A binary LDPC code given by the parity-check matrix in an alist file
 * (MacKay's format, as gr-fec's ldpc_H_matrix reads): DVB-S2, 802.11n, CCSDS ...
 * \ingroup gpufec
 *
 * \details
 * Python: gpufec.ldpc_code_from_alist(path). The encoder is systematic: a frame of
 * k = n - rank(H) information bits becomes the n codeword bits (no puncturing), with
 * the information bits at info_positions(); the LDPC decoders return those bits.
 */
class GPUFEC_API ldpc_alist_code : public code
{
public:
    typedef std::shared_ptr<ldpc_alist_code> sptr;

    static sptr make(const std::string& path);

    virtual int n() const = 0; //!< codeword bits
    virtual int k() const = 0; //!< information bits
    virtual int m() const = 0; //!< parity checks (rows of H)
    //! Codeword positions of the information bits.
    virtual std::vector<int> info_positions() const = 0;
    //! The core-library code (C++ only).
    virtual const ::gpufec::ldpc_alist_code& core() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_LDPC_ALIST_CODE_H */
