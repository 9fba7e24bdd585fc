/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal entry points of the CUDA MIMO detectors (no CUDA types).
#ifndef INCLUDED_GPUFEC_MIMO_CUDA_H
#define INCLUDED_GPUFEC_MIMO_CUDA_H

#include <gpufec/batch_decoder.h>
#include <gpufec/mimo_channel.h>
#include <gpufec/mimo_detection.h>
#include <memory>
#include <string>

namespace gpufec {
namespace cuda {

/*!
 * The CUDA detector stage of make_mimo_detector_cpu()'s contract on `device`
 * (registered in lib/backends/registry.cc): LMMSE (float: its LLRs equal the CPU's
 * double-precision ones within a relative 1e-3, the test's tolerance), MTT and K-best
 * (kbest_k <= 64) for nt <= 4, nr <= 8, up to 64-QAM (the float arithmetic of
 * lib/cpu/mtt_float.h and kbest_float.h, which the CPU stage runs too: the same LLRs
 * bit for bit). Throws gpufec::error naming what it takes for anything else.
 */
//! True when make_mimo_detector() takes this setup and these options.
bool mimo_cuda_accepts(const mimo_setup& setup, const mimo_detector_options& options);

std::unique_ptr<batch_decoder> make_mimo_detector(const mimo_setup& setup,
                                                  const mimo_detector_options& options,
                                                  int device);

//! The CUDA MIMO channel source (mimo_source_cuda.cu): the CPU source's frames, bit
//! for bit, made on `device`.
std::unique_ptr<mimo_channel_source> make_mimo_channel_source(
    const mimo_setup& setup, const mimo_source_options& options, int device);

struct mimo_kernel_timing {
    double median_ms = 0; //!< median kernel time of one batch (device events)
    double vectors = 0;   //!< received vectors per batch
    double bits = 0;      //!< detected bits (LLRs) per batch
    std::string kernel;
};

//! Kernel-only timing: `frames` coherence blocks of random Rayleigh channels and noisy
//! symbols on the device, detected `reps` times after a warm-up (CUDA events, median).
//! mtt_kernel: 0 the detector's choice, 1 MTT's group kernel, 2 its
//! thread-per-coherence-block kernel.
mimo_kernel_timing time_mimo_kernel(const mimo_setup& setup,
                                    const mimo_detector_options& options,
                                    int device,
                                    size_t frames,
                                    int reps,
                                    int mtt_kernel = 0);

} // namespace cuda
} // namespace gpufec

#endif
