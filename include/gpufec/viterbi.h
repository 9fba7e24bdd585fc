/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUFEC_VITERBI_H
#define INCLUDED_GPUFEC_VITERBI_H

#include <gpufec/batch_decoder.h>
#include <gpufec/convolutional.h>
#include <memory>

namespace gpufec {

//! CPU Viterbi decoder (the bit-exact reference of the CUDA one), windowed per
//! viterbi_schedule, multi-threaded over windows through exec_ctx::parallel_for.
std::unique_ptr<batch_decoder> make_viterbi_decoder_cpu(const conv_code& code);

//! CUDA Viterbi decoder on `device`. Throws gpufec::error when built without CUDA or
//! when the device does not exist.
std::unique_ptr<batch_decoder> make_viterbi_decoder_cuda(const conv_code& code, int device);

//! Picks by backend spec.
std::unique_ptr<batch_decoder> make_viterbi_decoder(const conv_code& code,
                                                    const backend_spec& backend);

//! Convenience for tests and tools: decodes one frame on the CPU reference, single
//! thread. `out_bits` gets one bit per byte. Returns the number of decoded bits.
size_t viterbi_decode_frame_cpu(const conv_code& code,
                                const llr8_t* llrs,
                                size_t n_llrs,
                                uint8_t* out_bits);

} // namespace gpufec

#endif
