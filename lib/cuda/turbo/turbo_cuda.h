/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal entry point of the CUDA turbo decoder (no CUDA types).
#ifndef INCLUDED_GPUFEC_TURBO_CUDA_H
#define INCLUDED_GPUFEC_TURBO_CUDA_H

#include <gpufec/batch_decoder.h>
#include <gpufec/turbo.h>
#include <gpufec/turbo_decoding.h>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {
namespace cuda {

/*!
 * The CUDA max-log-MAP turbo decoder on `device`, synchronised schedule: one thread
 * block per code block, one thread per sub-block window (sub_blocks <= 64), the
 * half-iterations separated by barriers, the CPU decoder's integer arithmetic
 * (lib/cpu/turbo_steps.h), so bits, iterations, CRC status and soft output are meant
 * to equal make_turbo_decoder_cpu()'s ("int16" and "int8"). Rate-matched codes and
 * filler bits are de-rate-matched on the device (only the E received LLRs cross the
 * bus). Throws gpufec::error naming what it takes.
 */
//! Which kernel decodes windows of at most 32 steps (tests pin one; the decisions are
//! the same for the synchronised schedule).
enum class turbo_cuda_kernel {
    automatic, //!< the cluster kernel for launches too small to fill the GPU, else window
    window,    //!< one SM per code block, many code blocks per SM
    cluster    //!< a code block over a cluster of SMs (needs compute capability 9.0)
};

std::unique_ptr<batch_decoder>
make_turbo_decoder(const lte_turbo_code& code,
                   const turbo_decoder_options& options,
                   int device,
                   turbo_cuda_kernel kernel = turbo_cuda_kernel::automatic);

//! Whether make_turbo_decoder() takes this code and these options (for "auto").
bool turbo_cuda_accepts(const lte_turbo_code& code, const turbo_decoder_options& options);

//! Whether the decoder runs the thread-per-window kernel (windows of at most 32 steps)
//! for this code and these options, rather than the block-per-code-block one.
bool turbo_cuda_window_kernel(const lte_turbo_code& code,
                              const turbo_decoder_options& options);

struct turbo_kernel_timing {
    double median_ms = 0; //!< median kernel time of one batch (device events)
    double info_bits = 0; //!< decoded payload bits per batch
    double mean_iterations = 0;
    //! The same launch enqueued back to back (mean per launch: the GPU kept busy).
    double back_to_back_ms = 0;
    //! SM clock (MHz) of a single thread block right after the timed launches.
    double sm_clock_mhz = 0;
    std::string kernel; //!< "cluster xC", "window" or "block"
};

//! Kernel-only timing: `num_frames` frames (the int8 `llrs`, one or more frames of
//! coded_bits(), repeated to fill the batch) on the device, decoded `reps` times after
//! a warm-up.
turbo_kernel_timing time_turbo_kernel(const lte_turbo_code& code,
                                      const turbo_decoder_options& options,
                                      int device,
                                      const std::vector<int8_t>& llrs,
                                      size_t num_frames,
                                      int reps);

} // namespace cuda
} // namespace gpufec

#endif
