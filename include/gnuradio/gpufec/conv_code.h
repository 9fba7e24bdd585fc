/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_CONV_CODE_H
#define INCLUDED_GR_GPUFEC_CONV_CODE_H

#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>
#include <vector>

namespace gpufec {
class conv_code;
}

namespace gr {
namespace gpufec {

/*!
 * \brief Convolutional code definition (constraint length, polynomials, termination,
 * puncturing) for the gpufec blocks.
 * \ingroup gpufec
 *
 * \details
 * Polynomials are octal in the standard convention: the MSB taps the NEWEST input bit
 * (0o171, 0o133 is the K=7 code of 802.11/DVB/CCSDS). gr-fec's cc_encoder/cc_decoder
 * use the bit-reversed value with the newest bit at the LSB: for the same code pass
 * gr-fec the list of bit-reversed polynomials in the same order, e.g. our
 * [0o171, 0o133] == gr-fec [79, 109]; gr-fec's default [109, 79] == our [0o133, 0o171].
 *
 * \param frame_bits default and largest frame length in information bits (>= 1)
 * \param k constraint length 3..9
 * \param polys 2..4 generator polynomials in octal, each at most k bits wide
 * \param termination "terminated" (K-1 zero tail), "truncated" or "tail_biting"
 * \param puncture "" (none), "2/3", "3/4", "5/6", "7/8" or a keep-mask such as "110110"
 */
class GPUFEC_API conv_code : public code
{
public:
    typedef std::shared_ptr<conv_code> sptr;

    static sptr make(int frame_bits = 2048,
                     int k = 7,
                     const std::vector<int>& polys = std::vector<int>{ 0171, 0133 },
                     const std::string& termination = "terminated",
                     const std::string& puncture = "");

    virtual int k() const = 0;
    virtual std::vector<int> polys() const = 0;
    virtual std::string termination() const = 0;
    virtual std::string puncture() const = 0;
    //! The same polynomials in gr-fec's cc_encoder/cc_decoder convention (bit-reversed
    //! over k bits, same order).
    virtual std::vector<int> gr_fec_polys() const = 0;

    //! The core-library code (C++ only).
    virtual const ::gpufec::conv_code& core() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_CONV_CODE_H */
