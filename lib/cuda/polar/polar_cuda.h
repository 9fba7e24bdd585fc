/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal entry points of the CUDA polar decoders (no CUDA types).
#ifndef INCLUDED_GPUFEC_POLAR_CUDA_H
#define INCLUDED_GPUFEC_POLAR_CUDA_H

#include <gpufec/batch_decoder.h>
#include <gpufec/polar.h>
#include <gpufec/polar_decoding.h>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {
namespace cuda {

//! True when make_polar_decoder() takes the code and options (every algorithm; every
//! code but those with parity-check bits, which stay on the CPU for now).
bool polar_cuda_accepts(const nr_polar_code& code, const polar_decoder_options& options);

/*!
 * The CUDA polar decoder on `device` (registered in lib/backends/registry.cc): SC,
 * fast-SSC, CA-SCL (list sizes 1..32) and BP with the CPU decoders' float arithmetic,
 * so bits, status and soft output equal make_polar_decoder_cpu()'s on the same int8
 * input (SC and fast-SSC run the same decoding program, lib/cpu/polar_program.h).
 * Uplink UCI codes (two code blocks too) and the downlink DCI and BCH chains. Rate
 * recovery (repetition sums, punctured zeros, shortened known zeros) runs on the device.
 * Throws gpufec::error naming what it takes otherwise.
 */
std::unique_ptr<batch_decoder> make_polar_decoder(const nr_polar_code& code,
                                                  const polar_decoder_options& options,
                                                  int device);
//! The same with `frames_per_warp` (2 or 4) frames decoded side by side by one warp
//! in every batch instead of the decoder's choice, small batches included (tests and
//! benchmarks); 1: the small-batch layout
//! (a frame per warp, which batches of at most one frame per SM take) for every batch
//! without soft output.
std::unique_ptr<batch_decoder> make_polar_decoder(const nr_polar_code& code,
                                                  const polar_decoder_options& options,
                                                  int device,
                                                  int frames_per_warp);

struct polar_kernel_timing {
    double median_ms = 0; //!< median kernel time of one batch (device events)
    //! The same on the GPU side alone (time_launches_gpu_side: the host's launch calls
    //! hidden behind a hold kernel; they count in median_ms for small batches).
    double gpu_side_median_ms = 0;
    double info_bits = 0; //!< decoded payload bits per batch
    std::string kernel;
    //! Mean frame_status iterations of the batch (SC first: 1 + the listed fraction).
    double mean_iterations = 0;
};

//! Kernel-only timing: `num_frames` frames (the int8 `llrs`, one or more frames of e,
//! repeated to fill the batch) on the device, decoded `reps` times after a warm-up.
//! frames_per_warp: 2 or 4 frames decoded side by side by one warp for every batch
//! (no small-batch layout), 1 the small-batch layout for every batch without soft
//! output (see make_polar_decoder); 0: the decoder's choice.
polar_kernel_timing time_polar_kernel(const nr_polar_code& code,
                                      const polar_decoder_options& options,
                                      int device,
                                      const std::vector<int8_t>& llrs,
                                      size_t num_frames,
                                      int reps,
                                      int frames_per_warp = 0);

//! True when make_dci_search_decoder() takes the options (algorithm scl).
bool dci_search_cuda_accepts(const dci_search_space& space,
                             const dci_search_options& options);
//! The PDCCH blind search on `device` (dci_search_options): the whole batch, candidates
//! of every aggregation level, in one CA-SCL launch; the CPU search's results.
std::unique_ptr<batch_decoder> make_dci_search_decoder(const dci_search_space& space,
                                                       const dci_search_options& options,
                                                       int device);
//! Kernel-only timing of the search: frame f is candidate f mod lengths.size(), whose
//! lengths[c] LLRs follow the earlier candidates' in `llrs`.
polar_kernel_timing time_dci_search_kernel(const dci_search_space& space,
                                           const dci_search_options& options,
                                           int device,
                                           const std::vector<int8_t>& llrs,
                                           const std::vector<uint32_t>& lengths,
                                           size_t num_frames,
                                           int reps);

} // namespace cuda
} // namespace gpufec

#endif
