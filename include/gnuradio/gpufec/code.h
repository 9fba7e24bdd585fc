/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_CODE_H
#define INCLUDED_GR_GPUFEC_CODE_H

#include <gnuradio/gpufec/api.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpufec {

/*!
 * \brief A code definition shared by the encoder, source and decoder blocks.
 * \ingroup gpufec
 *
 * \details
 * Every code family derives from this class (conv_code, lte_turbo_code, nr_ldpc_code,
 * ldpc_alist_code, nr_polar_code; family() says "conv", "turbo", "ldpc" or "polar"), so
 * gpufec.encoder works with any code and each decoder block checks that it got the
 * family it decodes. frame_bits() is the default and the largest frame (in information
 * bits) that the blocks accept.
 */
class GPUFEC_API code
{
public:
    typedef std::shared_ptr<code> sptr;

    virtual ~code();

    //! Code family, e.g. "conv".
    virtual std::string family() const = 0;
    //! Default (and largest) frame length in information bits.
    virtual int frame_bits() const = 0;
    //! Transmitted coded bits for a frame of \p info_bits information bits; 0 when the
    //! code cannot take a frame of that length (block codes take exactly frame_bits()).
    virtual size_t coded_bits_for(size_t info_bits) const = 0;
    //! Information bits of a frame with \p coded transmitted bits (0 when none fits).
    virtual size_t info_bits_for_coded(size_t coded) const = 0;
    //! Code rate (information / transmitted bits) at the default frame length.
    virtual double rate() const = 0;
    //! Human-readable summary for logs and GRC.
    virtual std::string describe() const = 0;

    //! Transmitted coded bits of a default-length frame.
    size_t coded_bits() const { return coded_bits_for(frame_bits()); }

    /*!
     * Encodes \p bits (one bit per byte, LSB used); any length from 1 to frame_bits().
     * Returns the coded bits, one per byte.
     */
    std::vector<uint8_t> encode(const std::vector<uint8_t>& bits) const;

    //! Encodes \p info_bits bits from \p in into \p out (coded_bits_for(info_bits)
    //! bytes). Returns the number of coded bits written.
    virtual size_t
    encode_raw(const uint8_t* in, size_t info_bits, uint8_t* out) const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_CODE_H */
