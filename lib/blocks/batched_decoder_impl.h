/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// THE stream decoder block: one template for every algorithm (DESIGN.md §2, §3).
// An algorithm adds a decoder_factory and a public interface class declaring
// backend_name(), decoded_frames() and dropped_frames(); its make() returns
// batched_decoder_impl<interface>.
#ifndef INCLUDED_GPUFEC_BLOCKS_BATCHED_DECODER_IMPL_H
#define INCLUDED_GPUFEC_BLOCKS_BATCHED_DECODER_IMPL_H

#include "batched_common.h"
#include "frame_assembler.h"
#include <gnuradio/block.h>
#include <gnuradio/io_signature.h>
#include <gpufec/common.h>
#include <algorithm>
#include <atomic>
#include <deque>
#include <vector>

namespace gr {
namespace gpufec {

//! Soft input item type of a stream decoder: "float" or "byte" (int8 LLRs).
inline bool parse_input_type(const std::string& block_name, const std::string& type)
{
    if (type == "float" || type == "f32") {
        return true;
    }
    if (type == "byte" || type == "int8" || type == "s8") {
        return false;
    }
    throw ::gpufec::error(block_name + ": input_type \"" + type +
                          "\" unknown; allowed: \"float\", \"byte\" (int8 LLRs)");
}

/*!
 * Policy of general_work (one call):
 *  1. copy finished frames already popped (the stash) to the output, as space allows;
 *  2. cut complete frames out of the input and submit() them (when every slot is busy,
 *     pop_wait() the oldest frame into the stash first);
 *  3. pop every finished frame (try_pop) into the stash;
 *  4. the input is drained: launch the partial slot when no batch is in flight or its
 *     oldest frame waited longer than max_latency_ms;
 *  5. copy the stash out; if nothing was produced while frames are pending, pop_wait()
 *     one, so the block never returns empty-handed with work pending and end of stream
 *     flushes every frame (forecast asks for no input while frames are pending).
 * Tags are handled here (TPP_DONT): each frame's tags travel with it.
 */
template <class Interface>
class batched_decoder_impl : public Interface
{
public:
    batched_decoder_impl(const std::string& block_name,
                         const decoder_factory& factory,
                         const std::string& input_type,
                         const std::string& len_tag_key,
                         const batched_options& options)
        : gr::block(block_name,
                    gr::io_signature::make(1,
                                           1,
                                           parse_input_type(block_name, input_type)
                                               ? sizeof(float)
                                               : sizeof(int8_t)),
                    gr::io_signature::make(1, 1, sizeof(uint8_t))),
          d_float_input(parse_input_type(block_name, input_type)),
          d_max_latency_s(options.max_latency_ms * 1e-3)
    {
        d_run = make_batched_engine(block_name, factory, options, this->d_logger);
        const auto& dec = *d_run.decoder;
        d_max_in = len_tag_key.empty() ? dec.default_input_items()
                                       : dec.max_input_items_per_frame();
        d_max_out = dec.default_output_bits();
        if (d_max_in > dec.default_input_items()) {
            try {
                d_max_out = std::max(d_max_out, dec.output_bits_for_input(d_max_in));
            } catch (const ::gpufec::error&) {
                d_max_out = std::max(d_max_out, d_max_in); // rate < 1: a safe bound
            }
        }
        const size_t itemsize = d_float_input ? sizeof(float) : sizeof(int8_t);
        auto decoder = d_run.decoder;
        d_assembler = std::make_unique<frame_assembler>(
            access(),
            itemsize,
            dec.default_input_items(),
            len_tag_key,
            d_max_in,
            [decoder](uint64_t items) { return frame_length_problem(*decoder, items); });

        this->set_tag_propagation_policy(gr::block::TPP_DONT);
        this->set_relative_rate(static_cast<uint64_t>(dec.default_output_bits()),
                                static_cast<uint64_t>(dec.default_input_items()));
        if (len_tag_key.empty()) {
            this->set_output_multiple(static_cast<int>(d_max_out));
        } else {
            this->set_min_noutput_items(static_cast<int>(d_max_out));
        }
        // Room for a whole batch, so a finished batch drains in one call.
        this->set_min_output_buffer(
            static_cast<long>(d_max_out * static_cast<size_t>(options.max_batch_frames)));
    }

    std::string backend_name() const override { return d_run.backend_name; }
    uint64_t decoded_frames() const override { return d_decoded.load(); }
    uint64_t dropped_frames() const override { return d_assembler->dropped(); }

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override
    {
        // No input needed while frames are pending: the scheduler must keep calling
        // us (also after the upstream finished) until all of them are out.
        ninput_items_required[0] = work_pending() ? 0 : 1;
    }

    bool stop() override
    {
        if (d_assembler->partial_items() > 0) {
            this->d_logger->warn("discarding an incomplete final frame ({} items)",
                                 d_assembler->partial_items());
        }
        return true;
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        auto* out = static_cast<uint8_t*>(output_items[0]);
        const auto* in = static_cast<const uint8_t*>(input_items[0]);
        const size_t itemsize = d_float_input ? sizeof(float) : sizeof(int8_t);
        const size_t avail = static_cast<size_t>(ninput_items[0]);
        auto& engine = *d_run.engine;

        size_t produced = drain_stash(out, static_cast<size_t>(noutput_items), 0);

        size_t consumed = 0;
        const uint64_t abs_first = this->nitems_read(0);
        while (true) {
            if (!d_assembler->has_frame()) {
                if (consumed == avail) {
                    break;
                }
                consumed += d_assembler->advance(
                    in + consumed * itemsize, avail - consumed, abs_first + consumed);
                if (!d_assembler->has_frame()) {
                    continue;
                }
            }
            const size_t items = d_assembler->frame_items();
            while (!engine.can_submit(items)) {
                pop_one(/*wait=*/true);
            }
            const bool accepted =
                d_float_input ? engine.submit(reinterpret_cast<const float*>(
                                                  d_assembler->frame_data()),
                                              items,
                                              d_next_id)
                              : engine.submit(reinterpret_cast<const ::gpufec::llr8_t*>(
                                                  d_assembler->frame_data()),
                                              items,
                                              d_next_id);
            if (!accepted) {
                continue; // cannot happen after can_submit(); retry after popping
            }
            d_frames.push_back({ d_next_id,
                                 d_run.decoder->output_bits_for_input(items),
                                 d_assembler->take() });
            ++d_next_id;
        }
        this->consume(0, static_cast<int>(consumed));

        while (pop_one(/*wait=*/false)) {
        }
        // The input is drained: send the partial slot unless a batch is still in
        // flight and the waiting frames are young (they will join the next batch).
        if (engine.frames_in_filling() > 0) {
            const bool in_flight = engine.frames_pending() > engine.frames_in_filling();
            if (!in_flight || engine.filling_age_seconds() >= d_max_latency_s) {
                engine.launch();
            }
        }
        produced = drain_stash(out, static_cast<size_t>(noutput_items), produced);
        if (produced == 0 && d_stash.empty() && engine.frames_pending() > 0) {
            pop_one(/*wait=*/true);
            while (pop_one(/*wait=*/false)) {
            }
            produced = drain_stash(out, static_cast<size_t>(noutput_items), produced);
        }
        return static_cast<int>(produced);
    }

private:
    struct frame_info {
        uint64_t id;
        size_t out_bits;
        frame_tags tags;
    };
    struct decoded_frame {
        std::vector<uint8_t> bits; //!< unpacked
        frame_info info;
    };

    block_access access()
    {
        block_access io;
        io.get_tags = [this](std::vector<gr::tag_t>& v, uint64_t start, uint64_t end) {
            this->get_tags_in_range(v, 0, start, end);
        };
        io.add_tag = [this](int port, const gr::tag_t& tag) {
            this->add_item_tag(port, tag);
        };
        io.logger = this->d_logger;
        return io;
    }

    bool work_pending() const
    {
        return !d_stash.empty() || d_run.engine->frames_pending() > 0 ||
               d_assembler->has_frame();
    }

    //! Pops the oldest finished frame into the stash; false when none (is ready).
    bool pop_one(bool wait)
    {
        ::gpufec::completed_frame done;
        const bool got =
            wait ? d_run.engine->pop_wait(done) : d_run.engine->try_pop(done);
        if (!got) {
            return false;
        }
        if (d_frames.empty() || d_frames.front().id != done.id) {
            throw std::logic_error("gpufec engine returned frames out of order");
        }
        decoded_frame frame{ std::vector<uint8_t>(done.nbits),
                             std::move(d_frames.front()) };
        d_frames.pop_front();
        ::gpufec::unpack_bits(done.packed, frame.bits.data(), done.nbits);
        d_stash.push_back(std::move(frame));
        return true;
    }

    //! Copies stashed frames to the output while they fit; returns the new total.
    size_t drain_stash(uint8_t* out, size_t noutput_items, size_t produced)
    {
        while (!d_stash.empty() &&
               produced + d_stash.front().bits.size() <= noutput_items) {
            const decoded_frame& frame = d_stash.front();
            std::copy(frame.bits.begin(), frame.bits.end(), out + produced);
            emit_frame_tags(d_io,
                            0,
                            this->nitems_written(0) + produced,
                            frame.bits.size(),
                            frame.info.tags,
                            d_assembler->len_key());
            produced += frame.bits.size();
            d_stash.pop_front();
            ++d_decoded;
        }
        return produced;
    }

    const bool d_float_input;
    const double d_max_latency_s;
    batched_engine d_run;
    size_t d_max_in = 0;
    size_t d_max_out = 0;
    block_access d_io = access();
    std::unique_ptr<frame_assembler> d_assembler;
    std::deque<frame_info> d_frames; //!< submitted, not yet popped (submission order)
    std::deque<decoded_frame> d_stash;
    uint64_t d_next_id = 0;
    std::atomic<uint64_t> d_decoded{ 0 };
};

} // namespace gpufec
} // namespace gr

#endif
