/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "batched_common.h"
#include <gnuradio/gpufec/awgn_bpsk_source.h>
#include <gnuradio/gpufec/nr_ldpc_code.h>
#include <gnuradio/io_signature.h>
#include <gpufec/awgn_source.h>
#include <gpufec/engine.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

namespace gr {
namespace gpufec {

namespace {

//! Output 0 item type: true for float LLRs, false for int8 ("byte").
bool parse_output_type(const std::string& type)
{
    if (type == "float" || type == "f32") {
        return true;
    }
    if (type == "byte" || type == "int8" || type == "s8") {
        return false;
    }
    throw ::gpufec::error("awgn_bpsk_source: output_type \"" + type +
                          "\" unknown; allowed: \"float\", \"byte\" (int8 LLRs)");
}

/*!
 * The source is a producer stage of the batch engine (gpufec::make_source_stage): the
 * engine makes frames frames_per_call at a time in its slots (on the CPU's worker
 * threads or on a CUDA stream), num_slots batches ahead of what work() hands out, and
 * returns them in order; work() only copies finished frames (quantized where they
 * were made, for "byte") into the output buffers and asks for more. Frames are a pure
 * function of (seed, frame number, Eb/N0), so how far ahead they are made changes nothing
 * but latency.
 */
class awgn_bpsk_source_impl : public awgn_bpsk_source
{
public:
    awgn_bpsk_source_impl(code::sptr code,
                          double ebn0_db,
                          uint64_t seed,
                          const std::string& backend,
                          int frames_per_call,
                          const std::string& len_tag_key,
                          const std::string& output_type,
                          double llr_scale,
                          const std::string& soft_convention)
        : gr::block("awgn_bpsk_source",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make2(
                        2,
                        2,
                        parse_output_type(output_type) ? sizeof(float) : sizeof(int8_t),
                        sizeof(uint8_t))),
          d_len_key(len_tag_key.empty() ? pmt::PMT_NIL : pmt::intern(len_tag_key)),
          d_float_output(parse_output_type(output_type)),
          d_llr_scale(static_cast<float>(llr_scale))
    {
        if (!(llr_scale > 0.0) || !std::isfinite(llr_scale)) {
            throw ::gpufec::error(
                "awgn_bpsk_source: llr_scale = " + std::to_string(llr_scale) +
                "; allowed: a finite value > 0");
        }
        if (!code) {
            throw ::gpufec::error("awgn_bpsk_source: code is None; allowed: any gpufec "
                                  "code (conv_code, lte_turbo_code, nr_ldpc_code, "
                                  "ldpc_code_from_alist, dvbs2_ldpc_code, nr_polar_code, "
                                  "nr_uci_small_code)");
        }
        if (frames_per_call < 1) {
            throw ::gpufec::error(
                "awgn_bpsk_source: frames_per_call = " + std::to_string(frames_per_call) +
                "; allowed: 1 or more");
        }
        // The registry picks the backend: convolutional and NR LDPC codes have GPU
        // encoders of their own, the other block codes run on the GPU through their
        // generator matrix where it fits (affine_frame_map.h), else on the CPU ("auto"
        // takes it, "cuda" raises naming the limit).
        try {
            if (auto conv = std::dynamic_pointer_cast<conv_code>(code)) {
                d_source = ::gpufec::make(conv->core(),
                                          ::gpufec::awgn_source_options{ ebn0_db, seed },
                                          backend);
            } else {
                ::gpufec::frame_code frame;
                frame.info_bits = static_cast<size_t>(code->frame_bits());
                frame.coded_bits = code->coded_bits();
                frame.description = code->describe();
                frame.encode = [code](const uint8_t* in, uint8_t* out) {
                    code->encode_raw(in, static_cast<size_t>(code->frame_bits()), out);
                };
                if (auto ldpc = std::dynamic_pointer_cast<nr_ldpc_code>(code))
                    frame.nr_ldpc =
                        std::make_shared<const ::gpufec::nr_ldpc_code>(ldpc->core());
                d_source = ::gpufec::make(
                    frame, ::gpufec::awgn_frame_source_options{ ebn0_db, seed }, backend);
            }
        } catch (const ::gpufec::error& e) {
            throw ::gpufec::error(std::string("awgn_bpsk_source: ") + e.what());
        }
        ::gpufec::backend_spec spec;
        spec.kind = d_source->backend();
        spec.device = std::max(0, d_source->device());
        spec.was_auto = backend == "auto";
        d_backend = ::gpufec::describe_backend(spec);
        d_logger->info("awgn_bpsk_source: {}backend {}, {}",
                       spec.was_auto ? "auto selected " : "",
                       d_backend,
                       code->describe());
        d_llrs = d_source->llrs_per_frame();
        d_bits = d_source->bits_per_frame();
        d_frames_per_call = static_cast<size_t>(frames_per_call);

        ::gpufec::engine_config config;
        config.max_batch_frames = d_frames_per_call;
        // "byte" output: quantize_llrs (round half away from zero, as the decoders and
        // the GPU do; not VOLK's convert, which rounds half to even) where the frames
        // are made: on the CPU by the source's workers as they make each frame, on the
        // GPU by a kernel before the copy out (a quarter of the bytes through the
        // engine and over the bus, no second pass over floats on the host).
        config.llr_scale = d_llr_scale;
        // GNU Radio's convention (positive = bit 1) is the engine's negated copy out.
        config.convention =
            parse_block_soft_convention("awgn_bpsk_source", soft_convention);
        // CUDA: more batches in flight hide the launch and copy latency of small ones.
        config.num_slots = d_source->backend() == ::gpufec::backend_kind::cuda ? 4 : 3;
        d_engine = std::make_unique<::gpufec::batch_engine>(
            ::gpufec::make_source_stage(d_source, d_float_output ? 0.0f : d_llr_scale),
            config);
        // Warm-up: kernels and first-touch costs are paid here, not in the first
        // work() call. The frames made are discarded; numbering starts at 0 below.
        d_engine->request_frames(d_frames_per_call, 0);
        ::gpufec::completed_frame discarded;
        while (d_engine->pop_wait(discarded)) {
        }

        // One output_multiple for both ports: a frame needs max(d_llrs, d_bits) items
        // of space on each, and the scheduler hands out the smaller space of the two.
        const size_t per_frame = std::max(d_llrs, d_bits);
        set_output_multiple(static_cast<int>(per_frame));
        // Two batches of room: one being filled while downstream still reads the other.
        set_min_output_buffer(static_cast<long>(2 * per_frame * d_frames_per_call));
    }

    bool stop() override
    {
        lift_output_buffer_caps(*this, 2);
        return true;
    }

    //! Takes effect for frames not made yet (the engine runs a few batches ahead).
    void set_ebn0_db(double ebn0_db) override { d_source->set_ebn0_db(ebn0_db); }
    double ebn0_db() const override { return d_source->ebn0_db(); }
    std::string backend_name() const override { return d_backend; }
    uint64_t frames() const override { return d_next_frame.load(); }

    int general_work(int noutput_items,
                     gr_vector_int&,
                     gr_vector_const_void_star&,
                     gr_vector_void_star& output_items) override
    {
        // A failure of the engine (a CUDA error, a lost device) ends the flowgraph with
        // the reason logged, rather than escaping work() and leaving the graph hanging.
        try {
            return produce_frames(noutput_items, output_items);
        } catch (const std::exception& e) {
            d_logger->error("awgn_bpsk_source: {}; stopping after {} frames",
                            e.what(),
                            d_next_frame.load());
            return WORK_DONE;
        }
    }

private:
    int produce_frames(int noutput_items, gr_vector_void_star& output_items)
    {
        const size_t per_frame = std::max(d_llrs, d_bits);
        const size_t room = static_cast<size_t>(noutput_items) / per_frame;
        auto* llrs = static_cast<uint8_t*>(output_items[0]);
        auto* bits = static_cast<uint8_t*>(output_items[1]);
        const size_t llr_size = d_float_output ? sizeof(float) : sizeof(int8_t);
        request_ahead();
        size_t frames = 0;
        // Wait for the oldest batch only; then hand over what is ready. pop_frames()
        // copies one batch at a time on the engine's copy threads; the freed slot is
        // refilled before the next one is copied.
        while (frames < room) {
            uint8_t* out = llrs + frames * d_llrs * llr_size;
            uint8_t* info = bits + frames * d_bits;
            const bool wait = frames == 0;
            const size_t n =
                d_float_output
                    ? d_engine->pop_frames(
                          reinterpret_cast<float*>(out), info, room - frames, wait)
                    : d_engine->pop_frames(reinterpret_cast<::gpufec::llr8_t*>(out),
                                           info,
                                           room - frames,
                                           wait);
            if (n == 0) {
                break;
            }
            frames += n;
            request_ahead();
        }
        if (frames == 0) {
            return 0;
        }
        if (!pmt::is_null(d_len_key)) {
            for (size_t f = 0; f < frames; ++f) {
                add_item_tag(0,
                             nitems_written(0) + f * d_llrs,
                             d_len_key,
                             pmt::from_long(static_cast<long>(d_llrs)));
                add_item_tag(1,
                             nitems_written(1) + f * d_bits,
                             d_len_key,
                             pmt::from_long(static_cast<long>(d_bits)));
            }
        }
        d_next_frame += frames;
        produce(0, static_cast<int>(frames * d_llrs));
        produce(1, static_cast<int>(frames * d_bits));
        return WORK_CALLED_PRODUCE;
    }

    //! Fills every free slot with whole batches of the next frame numbers.
    void request_ahead()
    {
        while (const size_t n =
                   d_engine->request_frames(d_frames_per_call, d_next_request)) {
            d_next_request += n;
        }
    }

    pmt::pmt_t d_len_key;
    const bool d_float_output;
    const float d_llr_scale;
    std::shared_ptr<::gpufec::awgn_bpsk_source> d_source; //!< shared with the stage
    std::unique_ptr<::gpufec::batch_engine> d_engine;
    std::string d_backend;
    size_t d_llrs = 0;
    size_t d_bits = 0;
    size_t d_frames_per_call = 1;
    uint64_t d_next_request = 0;             //!< next frame number to ask the engine for
    std::atomic<uint64_t> d_next_frame{ 0 }; //!< next frame number to hand out
};

} // namespace

awgn_bpsk_source::sptr awgn_bpsk_source::make(code::sptr code,
                                              double ebn0_db,
                                              uint64_t seed,
                                              const std::string& backend,
                                              int frames_per_call,
                                              const std::string& len_tag_key,
                                              const std::string& output_type,
                                              double llr_scale,
                                              const std::string& soft_convention)
{
    return gnuradio::make_block_sptr<awgn_bpsk_source_impl>(code,
                                                            ebn0_db,
                                                            seed,
                                                            backend,
                                                            frames_per_call,
                                                            len_tag_key,
                                                            output_type,
                                                            llr_scale,
                                                            soft_convention);
}

} // namespace gpufec
} // namespace gr
