/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// LTE turbo decoders (max-log-MAP, sub-block windows) behind the batch_decoder contract.
#ifndef INCLUDED_GPUFEC_TURBO_DECODING_H
#define INCLUDED_GPUFEC_TURBO_DECODING_H

#include <gpufec/batch_decoder.h>
#include <gpufec/turbo.h>
#include <memory>
#include <string>

namespace gpufec {

enum class turbo_algorithm {
    max_log_map,       //!< extrinsic passed as computed
    scaled_max_log_map //!< extrinsic multiplied by extrinsic_scale before it is passed
};
enum class turbo_arithmetic {
    int8,   //!< int8 extrinsic storage (saturating at +/-127), int16 state metrics
    int16,  //!< int16 extrinsic (saturating at +/-2047) and int16 state metrics
    float32 //!< float throughout
};

//! The most sub-decoders (windows) a code block may have.
constexpr int max_turbo_sub_blocks = 512;

enum class turbo_schedule {
    //! Every window of a half-iteration reads what the other constituent decoder wrote
    //! in the previous half-iteration (CPU and GPU, the same decisions bit for bit).
    synchronised,
    //! The GPU's loosely synchronised schedule (the paper's, docs/turbo.md): the SMs
    //! that share a code block run their half-iterations without barriers between
    //! them, each reading the extrinsic and boundary metrics written so far; decisions
    //! depend on timing. GPU only (backend "cuda"), windows of at most 32 steps.
    loose
};

struct turbo_decoder_options {
    using code_type = lte_turbo_code;
    using product_type = batch_decoder;
    static constexpr const char* algorithm_name = "turbo decoding";

    int iterations = 6; //!< full iterations (two half-iterations each), 1..32
    turbo_algorithm algorithm = turbo_algorithm::scaled_max_log_map;
    //! Scaled max-log-MAP only, (0, 1]; the integer paths use round(scale * 128) / 128.
    float extrinsic_scale = 0.7f;
    turbo_arithmetic arithmetic = turbo_arithmetic::int16;
    //! Sub-decoders (trellis windows) per code block, 1..max_turbo_sub_blocks, with
    //! K / sub_blocks >= 8.
    //! Windows start from their neighbours' boundary state metrics of the previous
    //! iteration ("stakes"; uniform in the first one), so sub_blocks > 1 costs a little
    //! BER and gives the structure of the parallel GPU decoder.
    int sub_blocks = 1;
    //! Stop once the CRC24B of the hard decisions holds (codes with crc24b() only).
    bool early_termination = true;
    turbo_schedule schedule = turbo_schedule::synchronised;
};

//! "max-log-map" | "scaled-max-log-map"; throws gpufec::error naming the allowed values.
turbo_algorithm parse_turbo_algorithm(const std::string& s);
//! "int8" | "int16" | "float"; throws gpufec::error naming the allowed values.
turbo_arithmetic parse_turbo_arithmetic(const std::string& s);
//! "synchronised" | "loose"; throws gpufec::error naming the allowed values.
turbo_schedule parse_turbo_schedule(const std::string& s);

/*!
 * CPU max-log-MAP turbo decoder of `code`. Each frame is code.coded_bits() = 3K + 12 int8
 * LLRs in the d0 | d1 | d2 layout of lte_turbo_code (L > 0 means bit 0); the output is
 * the code.info_bits() payload bits (CRC24B removed), packed MSB first. frame_status:
 * full iterations run, ok = the CRC24B of the K decoded bits holds (always true for a
 * code without CRC). Soft output: the a-posteriori LLRs of the payload bits in input
 * units. Results depend only on the frame (bit-exact for the integer arithmetics), not
 * on the thread count. Throws gpufec::error naming the allowed values for bad options.
 */
std::unique_ptr<batch_decoder>
make_turbo_decoder_cpu(const lte_turbo_code& code, const turbo_decoder_options& options);

} // namespace gpufec

#endif
