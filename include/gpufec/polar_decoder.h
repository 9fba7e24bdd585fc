/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Polar decoders for nr_polar_code (layer cpu/): SC and CRC-aided SCL.
#ifndef INCLUDED_GPUFEC_POLAR_DECODER_H
#define INCLUDED_GPUFEC_POLAR_DECODER_H

#include <gpufec/batch_decoder.h>
#include <gpufec/polar.h>
#include <memory>
#include <string>

namespace gpufec {

struct polar_decoder_options {
    //! "sc" (successive cancellation) | "scl" (CRC-aided successive cancellation list).
    std::string algorithm = "scl";
    //! SCL list size, 1..32 (validated for both algorithms; SC ignores it).
    int list_size = 8;
};

/*!
 * CPU polar decoder. A frame is code.e() LLRs (LLR > 0 means bit 0), in the order the
 * encoder transmits them (after channel interleaving when the code has it); the decoder
 * maps them to the N mother-code LLRs with code.output_to_codeword() (repeated bits
 * add, punctured bits get LLR 0, shortened bits are known zeros), decodes with min-sum
 * f/g in float, and writes the k payload bits (CRC removed) packed MSB first.
 * frame_status: iterations 1, ok = CRC of the chosen path passes (true without CRC).
 * SCL keeps the list_size paths with the smallest LLR-based path metric
 * (PM += |L| when a bit disagrees with the sign of its LLR) and returns the best path
 * that passes the CRC, else the best path. Deterministic (ties: lower path index, bit 0
 * first). Frames are decoded in parallel through exec_ctx::parallel_for.
 * Throws gpufec::error naming the allowed values for bad options.
 */
std::unique_ptr<batch_decoder>
make_polar_decoder_cpu(const nr_polar_code& code, const polar_decoder_options& options);

} // namespace gpufec

#endif
