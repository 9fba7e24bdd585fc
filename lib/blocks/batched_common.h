/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// What every batched decoder block shares, stream or PDU form: picking the backend,
// building the decoder and the engine, logging the choice. A new algorithm only
// supplies a decoder_factory.
#ifndef INCLUDED_GPUFEC_BLOCKS_BATCHED_COMMON_H
#define INCLUDED_GPUFEC_BLOCKS_BATCHED_COMMON_H

#include <gnuradio/block.h>
#include <gnuradio/gpufec/code.h>
#include <gnuradio/gpufec/conv_code.h>
#include <gnuradio/logger.h>
#include <gpufec/backends.h>
#include <gpufec/batch_decoder.h>
#include <gpufec/engine.h>
#include <pmt/pmt.h>
#include <functional>
#include <memory>
#include <string>

namespace gr {
namespace gpufec {

//! Builds the algorithm's decoder on a backend ("auto", "cpu", "cuda", "cuda:N")
//! through the core's registry (gpufec::make_decoder), which rejects backends the
//! algorithm lacks.
using decoder_factory =
    std::function<std::unique_ptr<::gpufec::batch_decoder>(const std::string& backend)>;

//! The factory of an algorithm: its code and options bound, the backend left open.
template <class Options>
decoder_factory registry_factory(const typename Options::code_type& code,
                                 const Options& options)
{
    return [code, options](const std::string& backend) {
        return ::gpufec::make_decoder(code, options, backend);
    };
}

//! Frames per batch of a block whose max_batch_frames is 0 ("auto") when its decoder
//! names no preferred batch.
constexpr size_t default_batch_frames = 64;
//! An auto batch's output at most (a stream block's output buffer holds a batch; 16 MiB
//! is what GNU Radio's buffers are known to map on the GPU machines).
constexpr size_t max_auto_output_bytes = size_t(16) << 20;

struct batched_options {
    std::string backend = "auto";
    //! Frames per engine batch; 0: the decoder's preferred_batch_frames() (within
    //! max_auto_output_bytes of output), or default_batch_frames when it names none.
    //! The blocks pass their own default (0 for LDPC and polar, 64 or more elsewhere).
    int max_batch_frames = 64;
    double max_latency_ms = 10.0;
    double llr_scale = 8.0;
    //! Output a-posteriori LLRs (float, input units) instead of bits.
    bool soft_output = false;
    //! Tag each frame (stream) / fill its metadata (PDU) with `iterations` and `crc_ok`.
    bool status_tags = false;
    //! Soft values in and out: "gnuradio" (positive = bit 1) or "llr" (positive = bit 0).
    std::string soft_convention = "gnuradio";
    //! PDU form: a decoder whose output ends with an identifier (the DCI search's RNTI)
    //! has its last `trailer_bits` (0..62) output bits published as the metadata value
    //! `trailer_key` (a long, most significant bit first; -1 when the frame failed its
    //! check) instead of in the vector.
    int trailer_bits = 0;
    std::string trailer_key;
};

//! Options of a block-code decoder block: status tags on every frame unless
//! `status_tags` is false (stream blocks; the PDU forms always give the metadata).
batched_options block_decoder_options(bool soft_output,
                                      const std::string& backend,
                                      int max_batch_frames,
                                      double max_latency_ms,
                                      double llr_scale,
                                      const std::string& soft_convention,
                                      bool status_tags = true);

//! The soft_convention parameter, or a gpufec::error naming the block and the allowed
//! values.
::gpufec::soft_convention parse_block_soft_convention(const std::string& block_name,
                                                      const std::string& convention);

//! "a 'family' code (description)", or "None", for error messages.
std::string code_name(const code::sptr& code);

/*!
 * Frames a stream block takes per call, as its output multiple in frames: half a batch
 * (GNU Radio sizes the upstream buffers for twice a block's output multiple, so they
 * then hold a whole batch, cut and submitted in one call), fewer where their upstream
 * bytes would pass 8 MiB (the buffers then stay within 16 MiB, a size known to map on
 * the GPU machines: GNU Radio's buffers are double-mapped shared memory). With one
 * frame as the multiple a call saw about two frames, and the scheduler's and engine's
 * thread hand-offs per call cost more than the data (docs/gnuradio-blocks.md). The
 * block's forecast must still ask for one frame only, so the stream's last frames go
 * through.
 */
size_t frames_per_call(size_t max_batch_frames, size_t upstream_bytes_per_frame);

/*!
 * The output multiple of `frames` frames of `frame_items` output items, with fewer
 * frames (at least one) where the user capped the block: GRC's Max Output Buffer (the
 * buffer must hold twice the multiple) or set_max_noutput_items (GNU Radio rounds it
 * down to the multiple, so a smaller one would give the block no room at all). For
 * check_topology(), which GNU Radio runs after the user's settings and before it sizes
 * the buffers.
 */
int output_multiple_within_caps(gr::block& block, size_t frames, size_t frame_items);

//! Keys of the per-frame status tags / PDU metadata.
/*!
 * For stop(): GNU Radio 3.10 caps a block's output buffers at their first size when a
 * flowgraph is started again, which can undercut min_output_buffer (a block whose
 * frames need more than the default buffer then fails at the restart). Lifts the cap
 * of output ports [0, ports).
 */
void lift_output_buffer_caps(gr::block& block, int ports);

const pmt::pmt_t& iterations_key();
const pmt::pmt_t& crc_ok_key();
//! pmt::from_long(iterations), shared for 0..255: a frame's status tags then allocate
//! nothing (they are a large part of the block's per-frame cost for short frames).
pmt::pmt_t iterations_value(int iterations);
//! A tag of `key` (srcid PMT_F), kept by a block that sets its offset and value per
//! frame.
inline gr::tag_t status_tag(const pmt::pmt_t& key)
{
    gr::tag_t tag;
    tag.key = key;
    return tag;
}

//! The engine of one block plus what it runs on.
struct batched_engine {
    std::shared_ptr<::gpufec::batch_decoder> decoder;
    std::unique_ptr<::gpufec::batch_engine> engine;
    std::string backend_name;
    //! The engine's frames per batch: batched_options::max_batch_frames resolved.
    size_t max_batch_frames = default_batch_frames;
    //! Decoder soft output (int8-input units, core convention) -> the block's soft
    //! output: the convention's sign / llr_scale.
    float soft_output_gain = 1.0f;
};

/*!
 * Validates the options (throws gpufec::error naming the allowed values), resolves
 * the backend, builds decoder and engine, and logs which backend runs (and that "auto"
 * chose it).
 */
batched_engine make_batched_engine(const std::string& block_name,
                                   const decoder_factory& factory,
                                   const batched_options& options,
                                   const gr::logger_ptr& logger);

//! Why a frame of `items` LLRs cannot be decoded ("" when it can).
std::string frame_length_problem(const ::gpufec::batch_decoder& decoder, uint64_t items);

//! The convolutional code inside `code`, or a gpufec::error naming what is needed.
const ::gpufec::conv_code& require_conv_code(const code::sptr& code,
                                             const std::string& who);

//! Decoder factory of the Viterbi decoder for a code definition.
decoder_factory viterbi_factory(const code::sptr& code);

} // namespace gpufec
} // namespace gr

#endif
