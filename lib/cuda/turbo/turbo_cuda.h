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

namespace gpufec {
namespace cuda {

/*!
 * The CUDA max-log-MAP turbo decoder on `device`, synchronised schedule: one thread
 * block per code block, one thread per sub-block window (sub_blocks <= 64), the
 * half-iterations separated by barriers, the CPU decoder's integer arithmetic
 * (lib/cpu/turbo_steps.h), so bits, iterations, CRC status and soft output are meant
 * to equal make_turbo_decoder_cpu()'s ("int16" and "int8"). Codes without rate
 * matching and filler bits. Not registered as a backend until it has run on a GPU
 * (test_turbo_cuda); throws gpufec::error naming what it takes.
 */
std::unique_ptr<batch_decoder> make_turbo_decoder(const lte_turbo_code& code,
                                                  const turbo_decoder_options& options,
                                                  int device);

} // namespace cuda
} // namespace gpufec

#endif
