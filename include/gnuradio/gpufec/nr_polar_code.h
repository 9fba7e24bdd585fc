/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_NR_POLAR_CODE_H
#define INCLUDED_GR_GPUFEC_NR_POLAR_CODE_H

#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gpufec {
class nr_polar_code;
}

namespace gr {
namespace gpufec {

/*!
 * \brief 5G NR polar code (TS 38.212 5.3.1) with its rate matching (5.4.1): the uplink
 * (UCI) chain, or the downlink DCI and BCH chains.
 * \ingroup gpufec
 *
 * \details
 * \p k payload bits get the CRC \p crc ("crc11", "crc24c", "crc6" or "none") and are
 * polar encoded with the frozen set of the reliability sequence (Table 5.3.1.2-1),
 * mother length N <= 1024; sub-block interleaving and bit selection (puncturing,
 * shortening or repetition) give \p e transmitted bits, channel interleaved (5.4.1.3)
 * when \p channel_interleave. With CRC11, k = 20..1706; a payload of k >= 1013, or
 * k >= 360 with e >= 1088, goes in two code blocks (code-block segmentation, 5.2.1:
 * a filler bit for odd k, CRC11 and e / 2 coded bits per block), which the decoders
 * decode one after the other (the GPU in one launch). With CRC6 and k = 12..19 the
 * code carries the 3 parity-check bits of 6.3.1.3.1 (the UCI chain for those sizes;
 * decoded on the CPU so far).
 *
 * \p chain: "uci" (the above), "dci" (7.3: k = 12..140 payload bits, CRC24C over 24
 * ones and the payload with its last 16 bits scrambled by \p rnti 0..65535, input bit
 * interleaving, n_max = 9, no channel interleaving; decoders report crc_ok only for
 * frames sent with this RNTI) or "bch" (7.1: CRC24C, input bit interleaving, n_max =
 * 9, no channel interleaving; the MIB chain has k = 32, e = 864). For "dci" and "bch"
 * \p crc and \p channel_interleave are fixed by the standard and ignored.
 */
class GPUFEC_API nr_polar_code : public code
{
public:
    typedef std::shared_ptr<nr_polar_code> sptr;

    static sptr make(int k = 512,
                     int e = 1024,
                     const std::string& crc = "crc11",
                     bool channel_interleave = true,
                     const std::string& chain = "uci",
                     int rnti = 0);

    virtual int k() const = 0;             //!< payload bits per frame
    virtual int e() const = 0;             //!< transmitted bits per frame
    virtual int mother_length() const = 0; //!< N
    virtual std::string crc() const = 0;
    //! "puncturing", "shortening" or "repetition"
    virtual std::string rate_matching() const = 0;
    //! "uci", "dci" or "bch"
    virtual std::string chain() const = 0;
    //! The DCI's RNTI, or -1.
    virtual int rnti() const = 0;
    //! The core-library code (C++ only).
    virtual const ::gpufec::nr_polar_code& core() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_NR_POLAR_CODE_H */
