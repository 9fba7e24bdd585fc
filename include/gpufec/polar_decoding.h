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
#include <vector>

namespace gpufec {

enum class polar_algorithm {
    sc,  //!< successive cancellation
    scl, //!< CRC-aided successive cancellation list
    bp,  //!< belief propagation on the factor graph
    //! SC with rate-0, rate-1, repetition and single-parity-check nodes decided at once
    //! (fast-SSC); hard output only
    fast_ssc,
    //! CA-SCL with rate-1 and single-parity-check nodes decided for the whole list at
    //! once (fast-SSCL: min(L - 1, size) and min(L, size) forks per node, on its least
    //! reliable positions); its own decisions, close to SCL's (docs/polar-gpu.md)
    fast_scl
};

//! Belief propagation's messages: float (the reference) or the paper's 8 bits.
enum class polar_bp_arithmetic {
    float32, //!< float messages, known zeros at 1e5
    //! int8 messages in -127..127, saturating sums, box-plus 15/16 sign(a b) min(|a|,
    //! |b|) plus the element's added message rounded once to the nearest integer (ties
    //! to even: polar_bp_int8), known zeros at 127 (4x less memory per frame: more
    //! frames per SM on the GPU)
    int8
};
//! "float" | "int8"; throws gpufec::error naming the allowed values.
polar_bp_arithmetic parse_polar_bp_arithmetic(const std::string& s);
//! The name parse_polar_bp_arithmetic() reads.
const char* to_string(polar_bp_arithmetic a);

//! "sc" | "fast-ssc" | "scl" | "fast-scl" | "bp"; throws gpufec::error naming the allowed
//! values.
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
    //! BP message arithmetic (only BP uses it).
    polar_bp_arithmetic bp_arithmetic = polar_bp_arithmetic::float32;
    /*!
     * Blind RNTI detection (DCI codes only, nr_polar_code::dci): empty, or the RNTIs
     * (0..65535) a frame may be sent with. A frame's CRC then passes when it holds under
     * any of them (the code's own RNTI is only the reference the syndrome is taken
     * against), and each frame's output is k + 16 bits: the payload, then the RNTI the
     * CRC matched (most significant bit first; when none matched, the RNTI the syndrome
     * names, and ok is false). SCL picks the first path whose CRC passes under any of
     * them. Hard output only. One decode per candidate serves every RNTI, as in a UE's
     * PDCCH search.
     */
    std::vector<int> rntis;
    /*!
     * SC first (adaptive list decoding; algorithm scl or fast-scl, codes with a CRC):
     * each frame is decoded by fast-SSC first, and only a frame whose fast-SSC word
     * fails the CRC goes through the list decoder. Where fast-SSC's word passes it is
     * kept, even where the list would have chosen another CRC-passing word: a different
     * decoder from plain CA-SCL, with about its frame errors (docs/polar-gpu.md) and a
     * cost close to fast-SSC's where frames are mostly right. frame_status iterations:
     * 1 where fast-SSC's word was kept, 2 where the list decoded the frame. Hard
     * output only.
     */
    bool sc_first = false;
};

/*!
 * Sets options.algorithm (and sc_first) from a name: parse_polar_algorithm()'s, or
 * "sc-first-scl" / "sc-first-fast-scl" (sc_first with that list decoder); throws
 * gpufec::error naming the allowed values.
 */
void set_polar_algorithm(polar_decoder_options& options, const std::string& name);
//! The name set_polar_algorithm() reads for options' algorithm and sc_first.
std::string polar_algorithm_name(const polar_decoder_options& options);

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

/*!
 * The PDCCH candidates of one blind search (TS 38.213 10.1): DCI payloads of k bits
 * (TS 38.212 7.3, 12..140) at the listed aggregation levels, each sent under one of
 * the rntis. A candidate of aggregation level L carries e = 108 L coded bits: L CCEs of
 * 6 REGs, each REG 12 resource elements of which 9 carry QPSK data (TS 38.211 7.3.2).
 */
struct dci_search_space {
    int k = 40;
    std::vector<int> aggregation_levels{ 1, 2, 4, 8, 16 }; //!< of 1, 2, 4, 8, 16
    std::vector<int> rntis;                                //!< 1 or more, 0..65535
};

//! Coded bits of a PDCCH candidate of aggregation level L: 108 L.
constexpr int dci_candidate_bits(int aggregation_level)
{
    return 108 * aggregation_level;
}

/*!
 * The blind-search decoder: a batch holds candidates of any of the space's lengths
 * (e = 108 L) in any order, each decoded once with the DCI code of its length
 * (nr_polar_code::dci(k, e, 0)) and blind RNTI detection over the space's rntis
 * (polar_decoder_options::rntis, which `decoding.rntis` must leave empty): output k + 16
 * bits per frame (payload, then the matched RNTI), ok when the CRC matched one of them.
 * On CUDA the whole batch is one kernel launch (algorithm "scl", any list size).
 */
struct dci_search_options {
    using code_type = dci_search_space;
    using product_type = batch_decoder;
    static constexpr const char* algorithm_name = "dci blind search";
    polar_decoder_options decoding;
};

//! The CPU blind-search decoder (dci_search_options); throws gpufec::error naming the
//! allowed values for a bad space or options.
std::unique_ptr<batch_decoder>
make_dci_search_decoder_cpu(const dci_search_space& space,
                            const dci_search_options& options);
//! The DCI codes of a search space, one per aggregation level in the space's order, and
//! the decoder options with the space's rntis (checks both).
std::vector<nr_polar_code> dci_search_codes(const dci_search_space& space);
polar_decoder_options dci_search_decoding(const dci_search_space& space,
                                          const dci_search_options& options);

} // namespace gpufec

#endif
