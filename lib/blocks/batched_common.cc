/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "batched_common.h"
#include <gpufec/convolutional.h>
#include <gpufec/viterbi.h>
#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

namespace gr {
namespace gpufec {

batched_engine make_batched_engine(const std::string& block_name,
                                   const decoder_factory& factory,
                                   const batched_options& options,
                                   const gr::logger_ptr& logger)
{
    if (options.max_batch_frames < 0) {
        throw ::gpufec::error(block_name + ": max_batch_frames = " +
                              std::to_string(options.max_batch_frames) +
                              "; allowed: 0 (auto: the decoder's preferred batch) or "
                              "1 or more");
    }
    if (!(options.max_latency_ms >= 0.0)) {
        throw ::gpufec::error(block_name + ": max_latency_ms must be >= 0");
    }
    if (!(options.llr_scale > 0.0) || !std::isfinite(options.llr_scale)) {
        throw ::gpufec::error(block_name +
                              ": llr_scale must be a positive finite number");
    }
    if (options.trailer_bits < 0 || options.trailer_bits > 62 ||
        (options.trailer_bits > 0 && options.trailer_key.empty())) {
        throw ::gpufec::error(block_name +
                              ": trailer_bits = " + std::to_string(options.trailer_bits) +
                              "; allowed: 0..62, with a trailer_key when > 0");
    }
    const auto convention =
        parse_block_soft_convention(block_name, options.soft_convention);
    batched_engine out;
    out.soft_output_gain =
        ::gpufec::soft_sign(convention) / static_cast<float>(options.llr_scale);
    try {
        out.decoder = factory(options.backend);
    } catch (const ::gpufec::error& e) {
        throw ::gpufec::error(block_name + ": " + e.what());
    }
    ::gpufec::backend_spec used;
    used.kind = out.decoder->backend();
    used.device = std::max(0, out.decoder->device());
    out.backend_name = ::gpufec::describe_backend(used);
    // Auto: the decoder's batch, within max_auto_output_bytes of a stream block's
    // output buffer (which holds a batch: soft output takes 4 bytes a bit).
    const size_t preferred = out.decoder->preferred_batch_frames();
    const size_t out_bytes =
        out.decoder->default_output_bits() * (options.soft_output ? sizeof(float) : 1);
    out.max_batch_frames =
        options.max_batch_frames > 0
            ? static_cast<size_t>(options.max_batch_frames)
            : (preferred > 0
                   ? std::min(preferred,
                              std::max<size_t>(1,
                                               max_auto_output_bytes /
                                                   std::max<size_t>(1, out_bytes)))
                   : default_batch_frames);
    ::gpufec::engine_config config;
    config.max_batch_frames = out.max_batch_frames;
    config.llr_scale = static_cast<float>(options.llr_scale);
    // A 4-bit stage reads v as the int8 LLR int4_llr_step * v: its values are int8
    // values / step, so llr_scale keeps its meaning (int8 steps per LLR).
    if (out.decoder->input() == ::gpufec::input_format::llr_int4)
        config.llr_scale /= static_cast<float>(::gpufec::int4_llr_step);
    config.soft_output = options.soft_output;
    config.convention = convention;
    if (options.soft_output && !out.decoder->has_soft_output()) {
        throw ::gpufec::error(block_name + ": soft_output is not available with " +
                              out.decoder->name() + "; allowed: soft_output=False");
    }
    try {
        out.engine = std::make_unique<::gpufec::batch_engine>(out.decoder, config);
    } catch (const std::bad_alloc&) {
        // The engine holds a few slots of max_batch_frames frames each, in and out.
        throw ::gpufec::error(
            block_name + ": max_batch_frames = " + std::to_string(out.max_batch_frames) +
            " frames of up to " +
            std::to_string(out.decoder->max_input_items_per_frame()) +
            " LLRs need more host memory than is available; allowed: fewer frames per "
            "batch");
    }
    if (logger) {
        logger->info("{}: {}backend {} ({}), {} frames per batch{}",
                     block_name,
                     options.backend == "auto" ? "auto selected " : "",
                     out.backend_name,
                     out.decoder->name(),
                     out.max_batch_frames,
                     options.max_batch_frames == 0 ? " (auto)" : "");
    }
    return out;
}

std::string frame_length_problem(const ::gpufec::batch_decoder& decoder, uint64_t items)
{
    if (items == 0) {
        return "empty frame";
    }
    if (items > decoder.max_input_items_per_frame()) {
        return "longer than the largest frame (" +
               std::to_string(decoder.max_input_items_per_frame()) + " LLRs)";
    }
    try {
        decoder.output_bits_for_input(items);
    } catch (const ::gpufec::error& e) {
        return e.what();
    }
    return "";
}

const ::gpufec::conv_code& require_conv_code(const code::sptr& code,
                                             const std::string& who)
{
    auto conv = std::dynamic_pointer_cast<conv_code>(code);
    if (!conv) {
        throw ::gpufec::error(who +
                              ": needs a convolutional code (gpufec.conv_code), got " +
                              (code ? "a '" + code->family() + "' code" : "None"));
    }
    return conv->core();
}

batched_options block_decoder_options(bool soft_output,
                                      const std::string& backend,
                                      int max_batch_frames,
                                      double max_latency_ms,
                                      double llr_scale,
                                      const std::string& soft_convention,
                                      bool status_tags)
{
    batched_options options;
    options.backend = backend;
    options.max_batch_frames = max_batch_frames;
    options.max_latency_ms = max_latency_ms;
    options.llr_scale = llr_scale;
    options.soft_output = soft_output;
    options.status_tags = status_tags;
    options.soft_convention = soft_convention;
    return options;
}

::gpufec::soft_convention parse_block_soft_convention(const std::string& block_name,
                                                      const std::string& convention)
{
    try {
        return ::gpufec::parse_soft_convention(convention);
    } catch (const ::gpufec::error& e) {
        throw ::gpufec::error(block_name + ": " + e.what());
    }
}

std::string code_name(const code::sptr& code)
{
    return code ? "a '" + code->family() + "' code (" + code->describe() + ")" : "None";
}

size_t frames_per_call(size_t max_batch_frames, size_t upstream_bytes_per_frame)
{
    const size_t by_batch = std::max<size_t>(1, max_batch_frames / 2);
    const size_t by_memory = std::max<size_t>(
        1, (size_t(8) << 20) / std::max<size_t>(1, upstream_bytes_per_frame));
    return std::min(by_batch, by_memory);
}

int output_multiple_within_caps(gr::block& block, size_t frames, size_t frame_items)
{
    frame_items = std::max<size_t>(1, frame_items);
    const long max_buffer = block.max_output_buffer(0); // -1: not set
    if (max_buffer > 0)
        frames = std::min(frames, size_t(max_buffer) / (2 * frame_items));
    if (block.is_set_max_noutput_items() && block.max_noutput_items() > 0)
        frames = std::min(frames, size_t(block.max_noutput_items()) / frame_items);
    return static_cast<int>(std::max<size_t>(1, frames) * frame_items);
}

const pmt::pmt_t& iterations_key()
{
    static const pmt::pmt_t key = pmt::mp("iterations");
    return key;
}

const pmt::pmt_t& crc_ok_key()
{
    static const pmt::pmt_t key = pmt::mp("crc_ok");
    return key;
}

pmt::pmt_t iterations_value(int iterations)
{
    static const std::vector<pmt::pmt_t> shared = [] {
        std::vector<pmt::pmt_t> values(256);
        for (int i = 0; i < 256; ++i)
            values[size_t(i)] = pmt::from_long(i);
        return values;
    }();
    return iterations >= 0 && iterations < 256 ? shared[size_t(iterations)]
                                               : pmt::from_long(iterations);
}

decoder_factory viterbi_factory(const code::sptr& code)
{
    return registry_factory(require_conv_code(code, "viterbi_decoder"),
                            ::gpufec::viterbi_options{});
}

void lift_output_buffer_caps(gr::block& block, int ports)
{
    for (int port = 0; port < ports; ++port) {
        block.set_max_output_buffer(port, -1);
    }
}

} // namespace gpufec
} // namespace gr
