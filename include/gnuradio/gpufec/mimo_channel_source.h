/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_MIMO_CHANNEL_SOURCE_H
#define INCLUDED_GR_GPUFEC_MIMO_CHANNEL_SOURCE_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief MIMO channel source: random bits (optionally encoded), 3GPP constellation,
 * i.i.d. Rayleigh channel and white Gaussian noise \ingroup gpufec
 *
 * \details
 * y = H s + w with \p nt transmit and \p nr receive antennas, symbols of \p
 * modulation ("bpsk" | "qpsk" | "16qam" | "64qam" | "256qam", unit average energy), H
 * with CN(0, 1) entries, a new one every \p coherence vectors, w CN(0, noise_var).
 * \p snr_db is Es/N0 (\p snr_unit "esn0": noise_var = 10^(-snr_db/10), Es = 1 per
 * transmitted symbol) or Eb/N0 (\p snr_unit "ebn0": per information bit, counting the
 * code rate). Output 0: received vectors (gr_complex, vector length nr); output 1:
 * channel matrices, one per coherence block (gr_complex, vector length nr * nt,
 * row-major); output 2: the bits (one per byte): without \p code the transmitted
 * bits (nt * bits per symbol per vector, antenna 0's first), with \p code the
 * information bits of each codeword, encoded on the CPU and sent over coded_bits() /
 * (nt * bits per symbol * coherence) coherence blocks (which must be whole).
 *
 * Everything is a pure function of \p seed and the frame number, the same on every
 * backend ("auto" | "cpu" | "cuda" | "cuda:N"; "auto" takes the GPU when present).
 * Pair it with gpufec.mimo_detector (same nt, nr, modulation, coherence, and noise_var
 * = noise_var()) and a decoder of \p code.
 */
class GPUFEC_API mimo_channel_source : virtual public gr::block
{
public:
    typedef std::shared_ptr<mimo_channel_source> sptr;

    static sptr make(int nt = 4,
                     int nr = 4,
                     const std::string& modulation = "16qam",
                     double snr_db = 10.0,
                     const std::string& snr_unit = "esn0",
                     uint64_t seed = 0,
                     int coherence = 1,
                     const std::string& backend = "auto",
                     code::sptr code = nullptr,
                     int frames_per_call = 64);

    //! Takes effect for frames not made yet.
    virtual void set_snr_db(double snr_db) = 0;
    virtual double snr_db() const = 0;
    //! E|w_r|^2 of the current snr_db (what the detector needs).
    virtual double noise_var() const = 0;
    virtual std::string backend_name() const = 0;
    //! Coherence blocks produced so far.
    virtual uint64_t frames() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_MIMO_CHANNEL_SOURCE_H */
