/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Polar decoders for nr_polar_code (layer cpu/): SC, CRC-aided SCL and belief
// propagation.
#ifndef INCLUDED_GPUFEC_POLAR_DECODING_H
#define INCLUDED_GPUFEC_POLAR_DECODING_H

#include <gpufec/batch_decoder.h>
#include <gpufec/polar.h>
#include <memory>
#include <string>

namespace gpufec {

enum class polar_algorithm {
    sc,  //!< successive cancellation
    scl, //!< CRC-aided successive cancellation list
    bp,  //!< belief propagation on the factor graph
    //! SC with rate-0, rate-1, repetition and single-parity-check nodes decided at once
    //! (fast-SSC); hard output only
    fast_ssc
};

//! "sc" | "fast-ssc" | "scl" | "bp"; throws gpufec::error naming the allowed values.
polar_algorithm parse_polar_algorithm(const std::string& s);
//! The name parse_polar_algorithm() reads.
const char* to_string(polar_algorithm a);

struct polar_decoder_options {
    using code_type = nr_polar_code;
    using product_type = batch_decoder;
    static constexpr const char* algorithm_name = "polar decoding";

    polar_algorithm algorithm = polar_algorithm::scl;
    //! SCL list size, 1..32 (validated for every algorithm; only SCL uses it).
    int list_size = 8;
    //! BP iteration limit, 1..200 (validated for every algorithm; only BP uses it).
    int bp_iterations = 50;
    //! BP: stop once the G-matrix criterion holds (x_hat == u_hat G_N) and, when the
    //! code has a CRC, the CRC of u_hat passes too. false: always bp_iterations.
    bool bp_early_termination = true;
};

/*!
 * CPU polar decoder. A frame is code.e() LLRs (LLR > 0 means bit 0), in the order the
 * encoder transmits them (after channel interleaving when the code has it); the decoder
 * maps them to the N mother-code LLRs with code.output_to_codeword() (repeated bits
 * add, punctured bits get LLR 0, shortened bits are known zeros), decodes in float, and
 * writes the k payload bits (CRC removed) packed MSB first. Throws gpufec::error naming
 * the allowed values for bad options. Deterministic; frames are decoded in parallel
 * through exec_ctx::parallel_for.
 *
 * sc / scl: min-sum f/g. frame_status: iterations 1, ok = CRC of the chosen path
 * passes (true without CRC). SCL keeps the list_size paths with the smallest LLR-based
 * path metric (PM += |L| when a bit disagrees with the sign of its LLR) and returns the
 * best path that passes the CRC, else the best path (ties: lower path index, bit 0
 * first). Soft output: for each payload bit, the decision LLR along the chosen path,
 * i.e. the leaf LLR L_i at the moment u_i was decided, with its sign set to the
 * decision: +|L_i| for 0, -|L_i| for 1 (SCL may decide against the sign of L_i). It is
 * a reliability of the decision given the earlier decisions, not a true a-posteriori
 * LLR.
 *
 * bp: scaled min-sum (factor 15/16) belief propagation on the n-stage factor graph of
 * G_N, one right-to-left sweep then one left-to-right sweep per iteration; frozen bits
 * enter as known zeros. u_hat = signs of the u-side LLRs. frame_status: iterations = BP
 * iterations run (1..bp_iterations), ok = CRC of u_hat passes (true without CRC).
 * Soft output: the u-side a-posteriori LLR of each payload bit (left message plus the
 * zero prior), the sign of which is the decision.
 *
 * fast-ssc: SC's tree with four node rules (lib/cpu/polar_program.h): all-frozen nodes
 * decide zeros and repetition nodes the sign of the sum of their LLRs (both exactly
 * SC's decisions), nodes with no frozen leaf take the hard decisions of their LLRs and
 * single-parity-check nodes flip the least reliable hard decision when the parity is
 * odd (ML for those nodes; plain SC can differ there, and on LLRs of exactly 0).
 * frame_status as sc. No soft output. The CUDA decoder runs the same program.
 *
 * Soft outputs are in the units of the int8 input (L > 0 means bit 0); the sign bit is
 * always the decision, also for a zero LLR (-0 for a 1, which SCL can choose on L = 0).
 */
std::unique_ptr<batch_decoder>
make_polar_decoder_cpu(const nr_polar_code& code, const polar_decoder_options& options);

} // namespace gpufec

#endif
