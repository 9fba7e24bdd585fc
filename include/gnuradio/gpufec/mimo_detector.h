/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_MIMO_DETECTOR_H
#define INCLUDED_GR_GPUFEC_MIMO_DETECTOR_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/api.h>
#include <string>

namespace gr {
namespace gpufec {

/*!
 * \brief Soft MIMO detector: received vectors and channel matrices in, LLRs out
 * \ingroup gpufec
 *
 * \details
 * y = H s + w with \p nt transmit and \p nr receive antennas, s from \p modulation
 * ("bpsk" | "qpsk" | "16qam" | "64qam" | "256qam", TS 38.211 5.1 Gray mappings), w
 * circular Gaussian of variance noise_var per receive antenna. \p algorithm: "mtt"
 * (multi-pass trellis traversal; equals max-log ML for nt = 2) | "lmmse" | "kbest"
 * (\p kbest_k paths, 0 = the constellation size) | "ml" (exhaustive, up to 2^20
 * hypotheses). \p backend: "auto" | "cpu" | "cuda" | "cuda:N": "auto" takes the GPU
 * for lmmse, and for mtt with nt <= 4, nr <= 8 up to 64-QAM, the CPU otherwise.
 *
 * Input 0: received vectors (gr_complex, vector length nr). Input 1: one channel
 * matrix per \p coherence vectors (gr_complex, vector length nr * nt, row-major:
 * entry r * nt + t couples transmit antenna t to receive antenna r). With \p
 * noise_var_input, input 2: one noise variance (float) per coherence block.
 * Otherwise the noise variance is \p noise_var (set_noise_var() at run time) or the
 * value of the latest "noise_var" tag on input 0 (it applies from the coherence block
 * holding the tagged vector on). Output: nt * bits per symbol LLRs per received
 * vector (vector length), antenna 0's bits first, each symbol's first bit first:
 * floats (\p output_type "float") or int8 (\p output_type "byte", round(L * \p
 * llr_scale) saturated at +/-127), ready for the decoders. Tags of input 0 are
 * copied to the output vectors. Vectors are detected in batches of \p
 * max_batch_frames coherence blocks, asynchronously on the GPU.
 *
 * A channel matrix or a vector holding NaN or Inf, or a noise variance that is not
 * finite and > 0, gives all-zero LLRs for what it touches; the flowgraph runs on.
 *
 * \p soft_convention: "gnuradio" (default): LLRs positive for bit 1, as gr-digital's
 * soft decoders and the gpufec decoders' default expect; "llr": L = ln P(0)/P(1).
 */
class GPUFEC_API mimo_detector : virtual public gr::block
{
public:
    typedef std::shared_ptr<mimo_detector> sptr;

    static sptr make(int nt = 4,
                     int nr = 4,
                     const std::string& modulation = "16qam",
                     const std::string& algorithm = "mtt",
                     const std::string& backend = "auto",
                     int coherence = 1,
                     double noise_var = 0.1,
                     bool noise_var_input = false,
                     const std::string& output_type = "float",
                     double llr_scale = 8.0,
                     const std::string& soft_convention = "gnuradio",
                     int kbest_k = 0,
                     int max_batch_frames = 1024);

    //! Noise variance of the coherence blocks not yet submitted (> 0, finite).
    virtual void set_noise_var(double noise_var) = 0;
    virtual double noise_var() const = 0;
    //! The backend in use, e.g. "cuda:0 (NVIDIA H100 80GB HBM3)".
    virtual std::string backend_name() const = 0;
    //! Received vectors detected so far.
    virtual uint64_t detected_vectors() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_MIMO_DETECTOR_H */
