/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The Viterbi decoder blocks: the shared batching templates plus the Viterbi factory.

#include "batched_decoder_impl.h"
#include "batched_pdu_decoder_impl.h"
#include <gnuradio/gpufec/viterbi_decoder.h>
#include <gnuradio/gpufec/viterbi_decoder_pdu.h>

namespace gr {
namespace gpufec {

viterbi_decoder::sptr viterbi_decoder::make(code::sptr code,
                                            const std::string& input_type,
                                            const std::string& len_tag_key,
                                            const std::string& backend,
                                            int max_batch_frames,
                                            double max_latency_ms,
                                            double llr_scale,
                                            const std::string& soft_convention)
{
    batched_options options;
    options.backend = backend;
    options.max_batch_frames = max_batch_frames;
    options.max_latency_ms = max_latency_ms;
    options.llr_scale = llr_scale;
    options.soft_convention = soft_convention;
    return gnuradio::make_block_sptr<batched_decoder_impl<viterbi_decoder>>(
        "viterbi_decoder", viterbi_factory(code), input_type, len_tag_key, options);
}

viterbi_decoder_pdu::sptr viterbi_decoder_pdu::make(code::sptr code,
                                                    const std::string& backend,
                                                    int max_batch_frames,
                                                    double llr_scale,
                                                    const std::string& soft_convention)
{
    batched_options options;
    options.backend = backend;
    options.max_batch_frames = max_batch_frames;
    options.llr_scale = llr_scale;
    options.soft_convention = soft_convention;
    return gnuradio::make_block_sptr<batched_pdu_decoder_impl<viterbi_decoder_pdu>>(
        "viterbi_decoder_pdu", viterbi_factory(code), options);
}

} // namespace gpufec
} // namespace gr
