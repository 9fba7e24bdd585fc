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

//! The Viterbi decoder as a registered algorithm: make_decoder(code, viterbi_options{},
//! backend) from <gpufec/backends.h>. It has no options of its own yet.
struct viterbi_options {
    using code_type = conv_code;
    using product_type = batch_decoder;
    static constexpr const char* algorithm_name = "viterbi decoding";
};

//! CPU Viterbi decoder (the bit-exact reference of the CUDA one), windowed per
//! viterbi_schedule, multi-threaded over windows through exec_ctx::parallel_for.
std::unique_ptr<batch_decoder> make_viterbi_decoder_cpu(const conv_code& code);

size_t viterbi_decode_frame_cpu(const conv_code& code,
                                const llr8_t* llrs,
                                size_t n_llrs,
                                uint8_t* out_bits);

} // namespace gpufec

#endif
