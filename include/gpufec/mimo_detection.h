/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Soft MIMO detection (issue 10): the CPU reference detectors of one received vector
// y = H s + w (nr receive, nt transmit antennas, s from a constellation.h
// constellation, w circular Gaussian with E|w_i|^2 = noise_var). Output: max-log LLRs
// in the core's convention (L = ln P(b=0)/P(b=1)), nt * bits_per_symbol of them,
// antenna 0's bits first, each antenna's in stream order. H is row-major, nr x nt.
#ifndef INCLUDED_GPUFEC_MIMO_DETECTION_H
#define INCLUDED_GPUFEC_MIMO_DETECTION_H

#include <gpufec/batch_decoder.h>
#include <gpufec/constellation.h>

#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {

using cfloat = std::complex<float>;

enum class mimo_algorithm {
    ml,    //!< exhaustive max-log ML (the reference; Q^nt hypotheses)
    lmmse, //!< linear MMSE filter, then per-stream max-log demapping
    kbest, //!< breadth-first tree search keeping the K best partial paths
    mtt,   //!< multi-pass trellis traversal (docs/mimo.md; the paper of issue 10)
};

//! "ml" | "lmmse" | "kbest" | "mtt"; throws gpufec::error naming the allowed values.
mimo_algorithm parse_mimo_algorithm(const std::string& s);

constexpr int mimo_max_antennas = 8;

/*!
 * Sorted QR decomposition (SQRD: modified Gram-Schmidt taking the remaining column of
 * least norm first, Wuebben et al. 2001) of H (nr x nt, nr >= nt), applied to y:
 * H P = Q R with R upper triangular (real, non-negative diagonal), z = Q^H y.
 * order[i] is the column of H (the antenna) at position i of R and z.
 */
struct sorted_qr {
    int nt = 0;
    std::vector<std::complex<double>> r; //!< nt x nt, row-major
    std::vector<std::complex<double>> z; //!< nt
    std::vector<int> order;              //!< nt
};
sorted_qr sorted_qr_decompose(const cfloat* h, int nr, int nt, const cfloat* y);

/*!
 * The detectors. Each throws gpufec::error (naming the allowed values) for nt or nr
 * outside 1..mimo_max_antennas, nr < nt, or noise_var not finite and > 0. A singular
 * or non-finite H gives defined output (finite LLRs; 0 where nothing is known).
 */
void detect_ml(const cfloat* h,
               const cfloat* y,
               int nr,
               int nt,
               const constellation& c,
               float noise_var,
               float* llrs);
void detect_lmmse(const cfloat* h,
                  const cfloat* y,
                  int nr,
                  int nt,
                  const constellation& c,
                  float noise_var,
                  float* llrs);
/*!
 * K-best on the sorted QR: from the last row of R up, every kept partial path is
 * extended by every point and the k of least partial distance are kept (ties: the
 * earlier path and point first). LLRs: max-log over the k final paths; a bit with no
 * path for one of its values gets +/-clip (the sign of the value it has). k: 1..4096;
 * with k >= Q^nt it is ML exactly.
 */
constexpr float kbest_default_clip = 20.0f;

/*!
 * Multi-pass trellis traversal on the sorted QR (stage t = row nt-1-t of R, Q vertices
 * per stage, one per point): for every stage t a list of Q complete paths, the one
 * through vertex k of stage t found by edge reductions (per vertex, the best incoming
 * path) up to stage t and path extensions (per path, the best next point) after it;
 * the reductions are shared by all lists. `metrics`: nt * Q values, antenna a's point
 * k at a * Q + k: the least squared distance ||z - R s||^2 among the paths of all nt
 * lists with point k at antenna a (finite: antenna a's own list has a path through
 * every point). Every path is a complete hypothesis with its exact distance, so using
 * all lists rather than antenna a's only brings each metric nearer the exact minimum
 * over every s with that point (equal to it for nt <= 2; an upper bound of it
 * otherwise): at 4x4 16-QAM it cuts the coded gap to ML from ~0.6 to ~0.2 dB
 * (docs/mimo.md). Ties: the lowest index wins.
 */
void mtt_metrics(const cfloat* h,
                 const cfloat* y,
                 int nr,
                 int nt,
                 const constellation& c,
                 std::vector<double>& metrics);
//! MTT max-log LLRs: per bit, (least metric with the bit 1 - least with it 0) /
//! noise_var over the antenna's Q metrics. Every bit has both values among the Q
//! points, so no clipping is needed. For nt = 2 it equals detect_ml().
void detect_mtt(const cfloat* h,
                const cfloat* y,
                int nr,
                int nt,
                const constellation& c,
                float noise_var,
                float* llrs);
void detect_kbest(const cfloat* h,
                  const cfloat* y,
                  int nr,
                  int nt,
                  const constellation& c,
                  float noise_var,
                  int k,
                  float* llrs,
                  float clip = kbest_default_clip);

/*!
 * The shape of a detection problem, the "code" of the registry: nt transmit and nr
 * receive antennas, the constellation, and the received vectors that share one channel
 * matrix (a coherence block, e.g. an OFDM resource block).
 */
struct mimo_setup {
    int nt = 4, nr = 4;
    modulation mod = modulation::qam16;
    int coherence = 1;
};

struct mimo_detector_options {
    using code_type = mimo_setup;
    using product_type = batch_decoder;
    static constexpr const char* algorithm_name = "MIMO detection";

    mimo_algorithm algorithm = mimo_algorithm::mtt;
    float noise_var = 0.1f; //!< E|w_i|^2 per receive antenna, > 0
    int kbest_k = 0;        //!< kbest: paths kept; 0 = the constellation size
    float kbest_clip = kbest_default_clip;
    /*!
     * true: each frame carries its own noise variance as one more aux entry after the
     * channel matrix (nr * nt + 1 entries, the last one's real part), e.g. from a
     * stream tag or an estimator; a frame whose value is not finite and > 0 gets
     * all-zero LLRs (nothing is known). false: every frame uses noise_var.
     */
    bool noise_var_per_frame = false;
};

/*!
 * The CPU detector as a batch stage (input_format::complex_float, output llr_float):
 * a frame is v received vectors of one coherence block (v * nr samples, 1 <= v <=
 * coherence, vector after vector) with its channel matrix as aux (nr * nt entries,
 * row-major, then the frame's noise variance with noise_var_per_frame); out: v * nt *
 * bits_per_symbol LLRs, vector after vector. MTT with nt
 * <= 4, nr <= 8 and up to 64-QAM runs the float arithmetic of the CUDA kernel
 * (lib/cpu/mtt_float.h: the same LLRs bit for bit), detect_mtt() beyond. Throws
 * gpufec::error naming the allowed values for a bad setup or options.
 */
std::unique_ptr<batch_decoder>
make_mimo_detector_cpu(const mimo_setup& setup, const mimo_detector_options& options);

} // namespace gpufec

#endif
