/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_LTE_TURBO_CODE_H
#define INCLUDED_GR_GPUFEC_LTE_TURBO_CODE_H

#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>

namespace gpufec {
class lte_turbo_code;
}

namespace gr {
namespace gpufec {

/*!
 * \brief LTE turbo code (TS 36.212 5.1.3): rate-1/3 PCCC, 13/15 octal RSCs, QPP
 * interleaver, trellis termination.
 * \ingroup gpufec
 *
 * \details
 * \p k is the code block size K, one of the 188 QPP sizes (40..512 step 8, 528..1024
 * step 16, 1056..2048 step 32, 2112..6144 step 64). With \p crc24b the encoder
 * appends CRC24B (TS 36.212 5.1.1) to K - 24 payload bits, so a frame carries K - 24
 * information bits and decoders can stop early. With \p e = 0 a frame is 3K + 12 coded
 * bits: the streams d0 | d1 | d2 of K + 4 bits each, one after the other (the layout
 * the LTE rate matcher reads). With \p e > 0 the block is rate matched as TS 36.212
 * 5.1.4.1 says (sub-block interleaving, bit collection, circular buffer from the
 * redundancy version \p rv 0..3, soft buffer \p n_cb, 0 = K_w as the uplink uses) to
 * e bits; decoders take e soft values and de-rate-match them (repeated bits added,
 * unsent bits 0). \p filler: the F filler bits of 5.1.2 in front of the first code
 * block of a segmented transport block (zeros, never sent, known to the decoder); a
 * frame then carries K - F (- 24) information bits.
 */
class GPUFEC_API lte_turbo_code : public code
{
public:
    typedef std::shared_ptr<lte_turbo_code> sptr;

    static sptr make(int k = 6144,
                     bool crc24b = false,
                     int e = 0,
                     int rv = 0,
                     int n_cb = 0,
                     int filler = 0);

    //! Code block size K (including the CRC when crc24b).
    virtual int k() const = 0;
    virtual bool crc24b() const = 0;
    //! Rate-matched bits per block (0: none, a frame is 3K + 12 bits).
    virtual int e() const = 0;
    //! Redundancy version 0..3.
    virtual int rv() const = 0;
    //! The core-library code (C++ only).
    virtual const ::gpufec::lte_turbo_code& core() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_LTE_TURBO_CODE_H */
