/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal entry point of the CUDA exhaustive ML decoder of the NR small-block UCI codes
// (no CUDA types).
#ifndef INCLUDED_GPUFEC_UCI_SMALL_CUDA_H
#define INCLUDED_GPUFEC_UCI_SMALL_CUDA_H

#include <gpufec/batch_decoder.h>
#include <gpufec/nr_uci_small.h>
#include <memory>

namespace gpufec {
namespace cuda {

//! The CUDA decoder on `device` (registered in lib/backends/registry.cc): bit-exact with
//! make_uci_small_decoder_cpu() (hard bits, status and soft output).
std::unique_ptr<batch_decoder> make_uci_small_decoder(const nr_uci_small_code& code,
                                                      int device);

} // namespace cuda
} // namespace gpufec

#endif
