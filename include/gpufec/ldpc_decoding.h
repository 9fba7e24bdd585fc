/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// LDPC decoders (layered min-sum) of any code that exports an ldpc_graph (5G NR,
// alist codes), behind the batch_decoder contract.
#ifndef INCLUDED_GPUFEC_LDPC_DECODING_H
#define INCLUDED_GPUFEC_LDPC_DECODING_H

#include <gpufec/batch_decoder.h>
#include <gpufec/ldpc.h>
#include <gpufec/ldpc_graph.h>
#include <memory>
#include <string>

namespace gpufec {

enum class ldpc_algorithm {
    normalized, //!< check message = alpha * min
    offset      //!< check message = max(min - beta, 0)
};
enum class ldpc_arithmetic {
    int8,    //!< int8 check messages, int16 saturating APP (the GPU-exact path)
    float32, //!< float APP and messages
    /*!
     * int8 check messages, APP values in IEEE half precision: integers, exact up to
     * 2048 and rounded to the nearest even half above (no saturation). The fastest
     * GPU kernel's arithmetic (docs/ldpc-gpu.md); the CPU runs it bit for bit.
     */
    half
};

struct ldpc_decoder_options {
    //! Every LDPC code reaches the registry as its graph: nr_ldpc_code::graph(),
    //! ldpc_alist_code::graph().
    using code_type = ldpc_graph;
    using product_type = batch_decoder;
    static constexpr const char* algorithm_name = "LDPC decoding";

    int iterations = 10; //!< maximum layered iterations, 1..100
    ldpc_algorithm algorithm = ldpc_algorithm::normalized;
    float alpha = 0.75f; //!< normalisation, (0, 1]; int8 uses round(alpha*16)/16
    //! Offset in input LLR units (int8 steps; 4 = 0.5 natural LLR at quantize scale 8),
    //! >= 0; int8 uses round(beta).
    float beta = 4.0f;
    ldpc_arithmetic arithmetic = ldpc_arithmetic::int8;
    bool early_termination = true; //!< stop once every parity check holds
    /*!
     * Frames arrive as 4-bit LLRs (input_format::llr_int4, two per byte: half the bytes
     * of int8 over the bus); the value v (-7..7) is decoded as the int8 LLR 8 v. So
     * float LLRs quantized at llr_scale 1 give the int8 decoder's units at scale 8
     * (docs/ldpc-gpu.md: what it costs in BER).
     */
    bool int4_input = false;
};


//! "normalized" | "offset"; throws gpufec::error naming the allowed values.
ldpc_algorithm parse_ldpc_algorithm(const std::string& s);
//! "int8" | "float" | "half"; throws gpufec::error naming the allowed values.
ldpc_arithmetic parse_ldpc_arithmetic(const std::string& s);

/*!
 * THE CPU layered min-sum decoder of an LDPC code given as a graph (ldpc_graph.h). Each
 * frame is graph.e() int8 LLRs (L > 0 means bit 0), mapped onto the codeword by
 * graph.channel_map; the output is the graph.k() bits at graph.info_positions, packed
 * MSB first at out_offset. frame_status: iterations run, ok = every parity check holds.
 * Soft output: the APP LLRs of the output bits. Layers run in the graph's order, so the
 * int8 results are reproducible bit for bit (the arithmetic: lib/cpu/ldpc_cpu.cc and
 * min_sum_kernels.h). Throws gpufec::error naming the allowed values for bad options or
 * an inconsistent graph.
 */
std::unique_ptr<batch_decoder> make_ldpc_decoder_cpu(const ldpc_graph& graph,
                                                     const ldpc_decoder_options& options);

//! The decoder of code.graph(): frames of code.e() rate-matched LLRs, code.k() bits out.
std::unique_ptr<batch_decoder> make_ldpc_decoder_cpu(const nr_ldpc_code& code,
                                                     const ldpc_decoder_options& options);

} // namespace gpufec

#endif
