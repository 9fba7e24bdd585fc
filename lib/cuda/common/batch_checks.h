/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the checks every CUDA decoder makes on a batch before its launch (host code,
// no CUDA types).
#ifndef INCLUDED_GPUFEC_CUDA_BATCH_CHECKS_H
#define INCLUDED_GPUFEC_CUDA_BATCH_CHECKS_H

#include <gpufec/batch_decoder.h>

#include <string>

namespace gpufec {
namespace cuda {

/*!
 * Every frame of `batch` has an input length the decoder takes (its
 * output_bits_for_input() throws naming the allowed ones) and out_bits == k; `who`
 * names the decoder in the error, e.g. "polar decoder".
 */
inline void check_frames(const batch_decoder& dec,
                         const frame_batch& batch,
                         size_t k,
                         const char* who)
{
    for (size_t f = 0; f < batch.num_frames; f++) {
        dec.output_bits_for_input(batch.frames[f].in_items);
        if (batch.frames[f].out_bits != k)
            throw error(std::string(who) + ": frame " + std::to_string(f) +
                        " has out_bits = " + std::to_string(batch.frames[f].out_bits) +
                        "; allowed: k = " + std::to_string(k));
    }
}

//! Throws unless `present` (the device-side buffers a launch reads, `what` naming them):
//! a CUDA decoder runs through batch_engine, which provides them.
inline void require_engine_buffers(bool present, const char* who, const char* what)
{
    if (!present)
        throw error(std::string(who) + " (cuda): the batch has no " + what +
                    "; run the decoder through batch_engine");
}

} // namespace cuda
} // namespace gpufec

#endif
