/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal entry points of the CUDA layered min-sum LDPC decoder (no CUDA types).
#ifndef INCLUDED_GPUFEC_LDPC_CUDA_H
#define INCLUDED_GPUFEC_LDPC_CUDA_H

#include <gpufec/batch_decoder.h>
#include <gpufec/ldpc_decoding.h>
#include <gpufec/ldpc_graph.h>
#include <memory>

namespace gpufec {
namespace cuda {

/*!
 * The CUDA decoder of any code given as an ldpc_graph (NR, alist, DVB-S2) on `device`
 * (registered in lib/backends/registry.cc). int8 and half arithmetic: on the same int8
 * input it gives the bits, soft output, iterations and parity status of
 * make_ldpc_decoder_cpu() with the same options. Throws gpufec::error for float
 * arithmetic, rows of degree > 64 or more than 255 LLRs on one codeword position.
 */
std::unique_ptr<batch_decoder> make_ldpc_decoder(const ldpc_graph& graph,
                                                 const ldpc_decoder_options& options,
                                                 int device);

struct ldpc_kernel_timing {
    double median_ms = 0; //!< median kernel time of one batch (device events)
    double min_ms = 0;
    double info_bits = 0;       //!< decoded information bits per batch
    double mean_iterations = 0; //!< iterations per frame, averaged over the batch
    std::string kernel;         //!< the kernel variant that ran
};

/*!
 * Kernel-only timing: `num_frames` frames of the code on the device, decoded `reps`
 * times after a warm-up (CUDA events, median), rotating over several input sets so
 * that L2 does not hold the input. The input is noisy BPSK at `ebn0_db` (random info
 * bits through the code's encoder is the caller's job: `llrs` holds one or more frames
 * of int8 LLRs, repeated to fill the batch). With options.int4_input the frames go to
 * the device as 4-bit LLRs: `llrs` then holds values at the 4-bit scale, which are
 * saturated to +/-7 and packed as the engine does (pack_llrs_int4).
 */
ldpc_kernel_timing time_ldpc_kernel(const ldpc_graph& graph,
                                    const ldpc_decoder_options& options,
                                    int device,
                                    const std::vector<int8_t>& llrs,
                                    size_t num_frames,
                                    int reps);

} // namespace cuda
} // namespace gpufec

#endif
