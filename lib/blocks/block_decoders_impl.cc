/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The turbo, LDPC and polar decoder blocks: the shared batching templates plus a
// factory per algorithm, made by the core's registry (gpufec::make_decoder).

#include "batched_decoder_impl.h"
#include "batched_pdu_decoder_impl.h"
#include <gnuradio/gpufec/dci_search_decoder_pdu.h>
#include <gnuradio/gpufec/dvbs2_ldpc_code.h>
#include <gnuradio/gpufec/ldpc_alist_code.h>
#include <gnuradio/gpufec/ldpc_decoder.h>
#include <gnuradio/gpufec/ldpc_decoder_pdu.h>
#include <gnuradio/gpufec/lte_turbo_code.h>
#include <gnuradio/gpufec/nr_ldpc_code.h>
#include <gnuradio/gpufec/nr_polar_code.h>
#include <gnuradio/gpufec/polar_decoder.h>
#include <gnuradio/gpufec/polar_decoder_pdu.h>
#include <gnuradio/gpufec/turbo_decoder.h>
#include <gnuradio/gpufec/turbo_decoder_pdu.h>
#include <gpufec/dvbs2_ldpc.h>
#include <gpufec/ldpc_alist.h>
#include <gpufec/ldpc_decoding.h>
#include <gpufec/polar_decoding.h>
#include <gpufec/turbo_decoding.h>

namespace gr {
namespace gpufec {

namespace {

// ---- turbo ----------------------------------------------------------------------

decoder_factory turbo_factory(const std::string& block,
                              const code::sptr& code,
                              int iterations,
                              const std::string& algorithm,
                              double extrinsic_scale,
                              const std::string& arithmetic,
                              int sub_blocks,
                              bool early_termination,
                              const std::string& schedule)
{
    auto turbo = std::dynamic_pointer_cast<lte_turbo_code>(code);
    if (!turbo) {
        throw ::gpufec::error(block + ": needs gpufec.lte_turbo_code, got " +
                              code_name(code));
    }
    ::gpufec::turbo_decoder_options opt;
    opt.iterations = iterations;
    opt.algorithm = ::gpufec::parse_turbo_algorithm(algorithm);
    opt.extrinsic_scale = static_cast<float>(extrinsic_scale);
    opt.arithmetic = ::gpufec::parse_turbo_arithmetic(arithmetic);
    opt.sub_blocks = sub_blocks;
    opt.early_termination = early_termination;
    opt.schedule = ::gpufec::parse_turbo_schedule(schedule);
    return registry_factory(turbo->core(), opt);
}

// ---- LDPC -----------------------------------------------------------------------

decoder_factory ldpc_factory(const std::string& block,
                             const code::sptr& code,
                             int iterations,
                             const std::string& algorithm,
                             double alpha,
                             double beta,
                             const std::string& arithmetic,
                             bool early_termination,
                             double llr_scale,
                             int llr_bits = 8)
{
    ::gpufec::ldpc_decoder_options opt;
    if (llr_bits != 8 && llr_bits != 4)
        throw ::gpufec::error(block + ": llr_bits = " + std::to_string(llr_bits) +
                              "; allowed: 8, 4");
    opt.int4_input = llr_bits == 4;
    opt.iterations = iterations;
    opt.algorithm = ::gpufec::parse_ldpc_algorithm(algorithm);
    opt.alpha = static_cast<float>(alpha);
    if (!(beta >= 0.0)) {
        throw ::gpufec::error(block + ": beta = " + std::to_string(beta) +
                              "; allowed: >= 0 (input LLR units)");
    }
    // The core takes the offset in int8 input steps.
    opt.beta = static_cast<float>(beta * llr_scale);
    opt.arithmetic = ::gpufec::parse_ldpc_arithmetic(arithmetic);
    opt.early_termination = early_termination;
    if (auto nr = std::dynamic_pointer_cast<nr_ldpc_code>(code)) {
        return registry_factory(nr->core().graph(), opt);
    }
    if (auto alist = std::dynamic_pointer_cast<ldpc_alist_code>(code)) {
        return registry_factory(alist->core().graph(), opt);
    }
    if (auto dvbs2 = std::dynamic_pointer_cast<dvbs2_ldpc_code>(code)) {
        return registry_factory(dvbs2->core().graph(), opt);
    }
    throw ::gpufec::error(block +
                          ": needs gpufec.nr_ldpc_code, gpufec.ldpc_code_from_alist or "
                          "gpufec.dvbs2_ldpc_code, got " +
                          code_name(code));
}

// ---- polar ----------------------------------------------------------------------

decoder_factory polar_factory(const std::string& block,
                              const code::sptr& code,
                              const std::string& algorithm,
                              int list_size,
                              int bp_iterations,
                              bool early_termination,
                              const std::string& bp_arithmetic)
{
    auto polar = std::dynamic_pointer_cast<nr_polar_code>(code);
    if (!polar) {
        throw ::gpufec::error(block + ": needs gpufec.nr_polar_code, got " +
                              code_name(code));
    }
    ::gpufec::polar_decoder_options opt;
    ::gpufec::set_polar_algorithm(opt, algorithm);
    opt.list_size = list_size;
    opt.bp_iterations = bp_iterations;
    opt.bp_early_termination = early_termination;
    opt.bp_arithmetic = ::gpufec::parse_polar_bp_arithmetic(bp_arithmetic);
    return registry_factory(polar->core(), opt);
}

} // namespace

turbo_decoder::sptr turbo_decoder::make(code::sptr code,
                                        int iterations,
                                        const std::string& algorithm,
                                        double extrinsic_scale,
                                        const std::string& arithmetic,
                                        int sub_blocks,
                                        bool early_termination,
                                        bool soft_output,
                                        const std::string& input_type,
                                        const std::string& len_tag_key,
                                        const std::string& backend,
                                        int max_batch_frames,
                                        double max_latency_ms,
                                        double llr_scale,
                                        const std::string& soft_convention,
                                        const std::string& schedule,
                                        bool status_tags)
{
    const std::string block = "turbo_decoder";
    return gnuradio::make_block_sptr<batched_decoder_impl<turbo_decoder>>(
        block,
        turbo_factory(block,
                      code,
                      iterations,
                      algorithm,
                      extrinsic_scale,
                      arithmetic,
                      sub_blocks,
                      early_termination,
                      schedule),
        input_type,
        len_tag_key,
        block_decoder_options(soft_output,
                              backend,
                              max_batch_frames,
                              max_latency_ms,
                              llr_scale,
                              soft_convention,
                              status_tags));
}

turbo_decoder_pdu::sptr turbo_decoder_pdu::make(code::sptr code,
                                                int iterations,
                                                const std::string& algorithm,
                                                double extrinsic_scale,
                                                const std::string& arithmetic,
                                                int sub_blocks,
                                                bool early_termination,
                                                bool soft_output,
                                                const std::string& backend,
                                                int max_batch_frames,
                                                double llr_scale,
                                                const std::string& soft_convention,
                                                const std::string& schedule)
{
    const std::string block = "turbo_decoder_pdu";
    return gnuradio::make_block_sptr<batched_pdu_decoder_impl<turbo_decoder_pdu>>(
        block,
        turbo_factory(block,
                      code,
                      iterations,
                      algorithm,
                      extrinsic_scale,
                      arithmetic,
                      sub_blocks,
                      early_termination,
                      schedule),
        block_decoder_options(
            soft_output, backend, max_batch_frames, 0.0, llr_scale, soft_convention));
}

ldpc_decoder::sptr ldpc_decoder::make(code::sptr code,
                                      int iterations,
                                      const std::string& algorithm,
                                      double alpha,
                                      double beta,
                                      const std::string& arithmetic,
                                      bool early_termination,
                                      bool soft_output,
                                      const std::string& input_type,
                                      const std::string& len_tag_key,
                                      const std::string& backend,
                                      int max_batch_frames,
                                      double max_latency_ms,
                                      double llr_scale,
                                      const std::string& soft_convention,
                                      int llr_bits,
                                      bool status_tags)
{
    const std::string block = "ldpc_decoder";
    if (llr_bits == 4 && !parse_input_type(block, input_type))
        throw ::gpufec::error(block + ": llr_bits = 4 quantizes float input; allowed "
                                      "with it: input_type = \"float\"");
    return gnuradio::make_block_sptr<batched_decoder_impl<ldpc_decoder>>(
        block,
        ldpc_factory(block,
                     code,
                     iterations,
                     algorithm,
                     alpha,
                     beta,
                     arithmetic,
                     early_termination,
                     llr_scale,
                     llr_bits),
        input_type,
        len_tag_key,
        block_decoder_options(soft_output,
                              backend,
                              max_batch_frames,
                              max_latency_ms,
                              llr_scale,
                              soft_convention,
                              status_tags));
}

ldpc_decoder_pdu::sptr ldpc_decoder_pdu::make(code::sptr code,
                                              int iterations,
                                              const std::string& algorithm,
                                              double alpha,
                                              double beta,
                                              const std::string& arithmetic,
                                              bool early_termination,
                                              bool soft_output,
                                              const std::string& backend,
                                              int max_batch_frames,
                                              double llr_scale,
                                              const std::string& soft_convention,
                                              int llr_bits)
{
    const std::string block = "ldpc_decoder_pdu";
    return gnuradio::make_block_sptr<batched_pdu_decoder_impl<ldpc_decoder_pdu>>(
        block,
        ldpc_factory(block,
                     code,
                     iterations,
                     algorithm,
                     alpha,
                     beta,
                     arithmetic,
                     early_termination,
                     llr_scale,
                     llr_bits),
        block_decoder_options(
            soft_output, backend, max_batch_frames, 0.0, llr_scale, soft_convention));
}

polar_decoder::sptr polar_decoder::make(code::sptr code,
                                        const std::string& algorithm,
                                        int list_size,
                                        int bp_iterations,
                                        bool early_termination,
                                        bool soft_output,
                                        const std::string& input_type,
                                        const std::string& len_tag_key,
                                        const std::string& backend,
                                        int max_batch_frames,
                                        double max_latency_ms,
                                        double llr_scale,
                                        const std::string& soft_convention,
                                        const std::string& bp_arithmetic,
                                        bool status_tags)
{
    const std::string block = "polar_decoder";
    return gnuradio::make_block_sptr<batched_decoder_impl<polar_decoder>>(
        block,
        polar_factory(block,
                      code,
                      algorithm,
                      list_size,
                      bp_iterations,
                      early_termination,
                      bp_arithmetic),
        input_type,
        len_tag_key,
        block_decoder_options(soft_output,
                              backend,
                              max_batch_frames,
                              max_latency_ms,
                              llr_scale,
                              soft_convention,
                              status_tags));
}

polar_decoder_pdu::sptr polar_decoder_pdu::make(code::sptr code,
                                                const std::string& algorithm,
                                                int list_size,
                                                int bp_iterations,
                                                bool early_termination,
                                                bool soft_output,
                                                const std::string& backend,
                                                int max_batch_frames,
                                                double llr_scale,
                                                const std::string& soft_convention,
                                                const std::string& bp_arithmetic)
{
    const std::string block = "polar_decoder_pdu";
    return gnuradio::make_block_sptr<batched_pdu_decoder_impl<polar_decoder_pdu>>(
        block,
        polar_factory(block,
                      code,
                      algorithm,
                      list_size,
                      bp_iterations,
                      early_termination,
                      bp_arithmetic),
        block_decoder_options(
            soft_output, backend, max_batch_frames, 0.0, llr_scale, soft_convention));
}

dci_search_decoder_pdu::sptr
dci_search_decoder_pdu::make(int k,
                             const std::vector<int>& rntis,
                             const std::vector<int>& aggregation_levels,
                             int list_size,
                             const std::string& backend,
                             int max_batch_frames,
                             double llr_scale,
                             const std::string& soft_convention)
{
    const std::string block = "dci_search_decoder_pdu";
    ::gpufec::dci_search_space space;
    space.k = k;
    space.rntis = rntis;
    space.aggregation_levels = aggregation_levels;
    ::gpufec::dci_search_options opt;
    opt.decoding.algorithm = ::gpufec::polar_algorithm::scl;
    opt.decoding.list_size = list_size;
    batched_options options = block_decoder_options(
        false, backend, max_batch_frames, 0.0, llr_scale, soft_convention);
    options.trailer_bits = 16;
    options.trailer_key = "rnti";
    return gnuradio::make_block_sptr<batched_pdu_decoder_impl<dci_search_decoder_pdu>>(
        block, registry_factory(space, opt), options);
}

} // namespace gpufec
} // namespace gr
