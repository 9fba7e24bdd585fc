/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal entry points of the CUDA Viterbi decoder for benchmarks (no CUDA types).
#ifndef INCLUDED_GPUFEC_VITERBI_CUDA_H
#define INCLUDED_GPUFEC_VITERBI_CUDA_H

#include <gpufec/batch_decoder.h>
#include <gpufec/convolutional.h>
#include <cstdint>
#include <memory>
#include <vector>

namespace gpufec {
namespace cuda {

//! The CUDA Viterbi decoder on `device` (registered in lib/backends/registry.cc).
std::unique_ptr<batch_decoder> make_viterbi_decoder(const conv_code& code, int device);

struct kernel_timing {
    double median_ms = 0; //!< median kernel time of one batch (device events)
    double min_ms = 0;
    double info_bits = 0; //!< decoded information bits per batch
    size_t windows = 0;   //!< decode windows (threads) per batch
};

/*!
 * Kernel-only timing: `num_frames` full frames of random int8 LLRs already on the
 * device, window table on the device; times `reps` launches with events after a
 * warm-up, rotating over several input sets so L2 does not hold the input.
 */
kernel_timing
time_viterbi_kernel(const conv_code& code, int device, size_t num_frames, int reps);

struct viterbi_window; // viterbi_kernels.cuh

/*!
 * The window table of a batch, exactly as the decoder builds it (shared by the
 * alternative kernels so every kernel runs the same schedule).
 */
size_t build_viterbi_windows(const conv_code& code,
                             int device,
                             const frame_batch& batch,
                             std::vector<viterbi_window>& windows);

//! Tensor-core kernel (viterbi_tc.cu): K=7 rate-1/2 mother codes, any polynomials,
//! puncturing and termination; same schedule and hard decisions as the reference.
bool viterbi_tc_supports(const conv_code& code);

//! Test hook: decodes `frames` (host LLRs, host packed output of `out_bytes`) with the
//! tensor-core kernel on `device`, synchronously.
void viterbi_tc_decode(const conv_code& code,
                       int device,
                       const int8_t* llrs,
                       size_t num_llrs,
                       const std::vector<frame_extent>& frames,
                       uint8_t* out,
                       size_t out_bytes);

//! As time_viterbi_kernel, for the tensor-core kernel (same inputs and windows).
//! variant 0: default register budget; 1: 40 registers (more warps per SM).
kernel_timing time_viterbi_tc_kernel(
    const conv_code& code, int device, size_t num_frames, int reps, int variant = 0);

} // namespace cuda
} // namespace gpufec

#endif
