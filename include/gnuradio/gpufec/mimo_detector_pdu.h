/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_MIMO_DETECTOR_PDU_H
#define INCLUDED_GR_GPUFEC_MIMO_DETECTOR_PDU_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief Soft MIMO detector, PDU form \ingroup gpufec
 *
 * \details
 * The parameters are gpufec.mimo_detector's. Message port "in": PDUs whose data is v
 * received vectors (c32vector of v * nr samples, vector after vector) and whose
 * metadata holds "channel": a c32vector of ceil(v / coherence) channel matrices (nr *
 * nt each, row-major; vectors k * coherence .. (k + 1) * coherence - 1 use matrix k)
 * and optionally "noise_var" (a number; else the block's noise_var). Port "out": the
 * PDU's LLRs (f32vector, nt * bits per symbol per vector, \p soft_convention) with
 * its metadata less "channel". A PDU of the wrong type or length is dropped with an
 * error log naming what was expected (dropped_pdus() counts them).
 */
class GPUFEC_API mimo_detector_pdu : virtual public gr::block
{
public:
    typedef std::shared_ptr<mimo_detector_pdu> sptr;

    static sptr make(int nt = 4,
                     int nr = 4,
                     const std::string& modulation = "16qam",
                     const std::string& algorithm = "mtt",
                     const std::string& backend = "auto",
                     int coherence = 1,
                     double noise_var = 0.1,
                     const std::string& soft_convention = "gnuradio",
                     int kbest_k = 0,
                     int max_batch_frames = 1024);

    virtual void set_noise_var(double noise_var) = 0;
    virtual double noise_var() const = 0;
    virtual std::string backend_name() const = 0;
    //! PDUs detected and PDUs dropped so far.
    virtual uint64_t detected_pdus() const = 0;
    virtual uint64_t dropped_pdus() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_MIMO_DETECTOR_PDU_H */
