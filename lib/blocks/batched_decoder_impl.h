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
#include <volk/volk.h>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
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

//! FIFO on a growable ring: no allocation once it has reached its working size.
template <class T>
class fifo
{
public:
    bool empty() const { return d_size == 0; }
    size_t size() const { return d_size; }
    T& front() { return d_items[d_head]; }
    const T& front() const { return d_items[d_head]; }
    T& back() { return d_items[(d_head + d_size - 1) % d_items.size()]; }
    //! A slot at the back (holding whatever an earlier element left there).
    T& emplace_back()
    {
        if (d_size == d_items.size()) {
            std::vector<T> grown(std::max<size_t>(8, 2 * d_items.size()));
            for (size_t i = 0; i < d_size; ++i) {
                grown[i] = std::move(d_items[(d_head + i) % d_items.size()]);
            }
            d_items.swap(grown);
            d_head = 0;
        }
        ++d_size;
        return back();
    }
    void pop_front()
    {
        d_head = (d_head + 1) % d_items.size();
        --d_size;
    }

private:
    std::vector<T> d_items;
    size_t d_head = 0;
    size_t d_size = 0;
};

/*!
 * Policy of general_work (one call):
 *  1. copy stashed frames (decoded but without output room earlier) to the output, then
 *     pop finished frames straight into the output while they fit;
 *  2. cut complete frames out of the input and submit them, straight from the input
 *     buffer when a frame lies wholly in it (only frames straddling calls are copied);
 *     runs of whole fixed-length frames go in with one submit_frames() call;
 *     when every slot is busy, the oldest frame is waited for (into the output if it
 *     fits, else the stash) to free one; once the stash holds a batch of frames, the
 *     rest of the input waits for a later call instead (a downstream slower than the
 *     decoder then holds back the intake rather than growing the stash; a frame
 *     already assembled is still submitted, so the stash stays within two batches);
 *  3. pop finished frames into the output while they fit (the rest stay in the engine);
 *  4. the input is drained: launch the partial slot when no batch is in flight or its
 *     oldest frame waited longer than max_latency_ms (full slots launch by themselves);
 *  5. if nothing was produced while frames are pending, wait for the oldest one, so the
 *     block never returns empty-handed with work pending and end of stream flushes every
 *     frame (forecast asks for no input while frames are pending).
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
                    gr::io_signature::make(
                        1, 1, options.soft_output ? sizeof(float) : sizeof(uint8_t))),
          d_float_input(parse_input_type(block_name, input_type)),
          d_max_latency_s(options.max_latency_ms * 1e-3),
          d_soft(options.soft_output),
          d_status_tags(options.status_tags),
          d_out_itemsize(options.soft_output ? sizeof(float) : sizeof(uint8_t))
    {
        d_run = make_batched_engine(block_name, factory, options, this->d_logger);
        d_soft_gain = d_run.soft_output_gain;
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
        // Half a batch per call (frames_per_call() says why); forecast() asks for one
        // item only.
        d_call_frames = frames_per_call(d_run.max_batch_frames, d_max_in * itemsize);
        this->set_output_multiple(static_cast<int>(d_call_frames * d_max_out));
        if (!len_tag_key.empty()) {
            this->set_min_noutput_items(static_cast<int>(d_max_out));
        }
        // Room for a whole batch, so a finished batch drains in one call.
        this->set_min_output_buffer(
            static_cast<long>(d_max_out * d_run.max_batch_frames));
    }

    std::string backend_name() const override { return d_run.backend_name; }
    uint64_t decoded_frames() const override { return d_decoded.load(); }
    //! Frames of an invalid length, and frames lost with a failed batch.
    uint64_t dropped_frames() const override
    {
        return d_assembler->dropped() + d_lost.load();
    }

    bool check_topology(int /*ninputs*/, int /*noutputs*/) override
    {
        // The user's caps on this block are set by now; the buffers are sized next.
        this->set_output_multiple(
            output_multiple_within_caps(*this, d_call_frames, d_max_out));
        return true;
    }

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override
    {
        // No input needed while frames are pending: the scheduler must keep calling
        // us (also after the upstream finished) until all of them are out.
        ninput_items_required[0] = work_pending() ? 0 : 1;
    }

    //! Decoded frames waiting for output room (tests; read while stopped).
    size_t stashed_frames() const { return d_stash.size(); }

    bool start() override
    {
        d_failed = false; // a run after a failed one starts afresh (frames kept)
        return true;
    }

    bool stop() override
    {
        d_assembler->end_of_stream();
        lift_output_buffer_caps(*this, 1);
        settle_lost_frames();
        return true;
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        // A decoder failure (a CUDA error, a lost device) ends the flowgraph with the
        // reason logged, rather than escaping work() and leaving the graph hanging.
        // The frames decoded before it still go out (this call's, then the stash),
        // and the frames it lost count as dropped.
        if (d_failed) {
            begin_call(output_items, noutput_items);
            drain_stash();
            return d_produced > 0 ? static_cast<int>(d_produced) : this->WORK_DONE;
        }
        try {
            return decode_work(noutput_items, ninput_items, input_items, output_items);
        } catch (const std::exception& e) {
            d_failed = true;
            settle_lost_frames();
            this->d_logger->error("{}; stopping after {} decoded frames (the failed "
                                  "batch's frames count as dropped)",
                                  e.what(),
                                  d_decoded.load());
            return d_produced > 0 ? static_cast<int>(d_produced) : this->WORK_DONE;
        }
    }

private:
    int decode_work(int noutput_items,
                    gr_vector_int& ninput_items,
                    gr_vector_const_void_star& input_items,
                    gr_vector_void_star& output_items)
    {
        const auto* in = static_cast<const uint8_t*>(input_items[0]);
        const size_t itemsize = d_float_input ? sizeof(float) : sizeof(int8_t);
        const size_t avail = static_cast<size_t>(ninput_items[0]);
        auto& engine = *d_run.engine;
        begin_call(output_items, noutput_items);

        drain_stash();
        while (pop_one(/*wait=*/false, /*may_stash=*/false)) {
        }

        size_t consumed = 0;
        const uint64_t abs_first = this->nitems_read(0);
        while (true) {
            const size_t run = d_assembler->whole_frames(avail - consumed);
            if (run > 0) {
                // Whole fixed-length frames lying in the input: one bulk submit (the
                // engine quantizes/copies them with its copy threads).
                const size_t taken = submit_run(in + consumed * itemsize,
                                                run,
                                                abs_first + consumed,
                                                abs_first + avail);
                consumed += taken * d_assembler->frame_length();
                if (taken == 0 && !wait_for_a_slot()) {
                    break; // the stash is full: the rest waits for a later call
                }
                continue;
            }
            if (!d_assembler->has_frame()) {
                // A batch of frames waits for output room: the next frame waits in
                // the upstream buffer (checked before a frame is assembled, since an
                // assembled frame may point into the input and must be submitted in
                // this call).
                if (consumed == avail || d_stash.size() >= d_run.max_batch_frames) {
                    break;
                }
                consumed += d_assembler->advance(in + consumed * itemsize,
                                                 avail - consumed,
                                                 abs_first + consumed,
                                                 /*allow_direct=*/true);
                if (!d_assembler->has_frame()) {
                    continue;
                }
            }
            const size_t items = d_assembler->frame_items();
            if (items == 0) {
                // An empty frame never reaches the engine; it queues behind the frames
                // in flight so that its tags come out in order.
                frame_info& info = d_frames.emplace_back();
                info.empty = true;
                info.out_bits = 0;
                info.tags = d_assembler->take();
                continue;
            }
            while (!engine.can_submit(items)) {
                pop_one(/*wait=*/true, /*may_stash=*/true);
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
            if (items != d_last_items) {
                d_last_items = items;
                d_last_out_bits = d_run.decoder->output_bits_for_input(items);
            }
            frame_info& info = d_frames.emplace_back();
            info.empty = false;
            info.id = d_next_id;
            info.out_bits = d_last_out_bits;
            info.tags = d_assembler->take();
            ++d_next_id;
        }
        this->consume(0, static_cast<int>(consumed));

        while (pop_one(/*wait=*/false, /*may_stash=*/false)) {
        }
        // The input is drained: send the partial slot unless a batch is still in
        // flight and the waiting frames are young (they will join the next batch).
        if (engine.frames_in_filling() > 0) {
            const bool in_flight = engine.frames_pending() > engine.frames_in_filling();
            if (!in_flight || engine.filling_age_seconds() >= d_max_latency_s) {
                engine.launch();
            }
        }
        if (d_produced == 0 && d_stash.empty() && !d_frames.empty() && room_for_next()) {
            pop_one(/*wait=*/true, /*may_stash=*/false);
            while (pop_one(/*wait=*/false, /*may_stash=*/false)) {
            }
        }
        return static_cast<int>(d_produced);
    }

private:
    struct frame_info {
        bool empty = false; //!< a length tag of 0: not submitted, no output items
        uint64_t id = 0;
        size_t out_bits = 0;
        frame_tags tags;
        ::gpufec::frame_status status;
    };
    struct decoded_frame {
        std::vector<uint8_t> bits; //!< output items (bits or floats); capacity reused
        size_t nbits = 0;
        frame_info info;
    };

    //! A popped frame as output items: one bit per byte, or floats in input LLR units.
    void write_items(const ::gpufec::completed_frame& done, uint8_t* dst) const
    {
        if (!d_soft) {
            ::gpufec::unpack_bits(done.packed, dst, done.nbits);
            return;
        }
        // One IEEE multiply per value, as a scalar loop would do: identical results.
        volk_32f_s32f_multiply_32f(reinterpret_cast<float*>(dst),
                                   done.soft,
                                   d_soft_gain,
                                   static_cast<unsigned int>(done.nbits));
    }

    void begin_call(gr_vector_void_star& output_items, int noutput_items)
    {
        d_out = static_cast<uint8_t*>(output_items[0]);
        d_noutput = static_cast<size_t>(noutput_items);
        d_produced = 0;
        d_out_first = this->nitems_written(0);
    }

    /*!
     * Every slot is busy and the next frames lie whole in the input: waits for the
     * oldest frame (into the output if it fits, else the stash). Returns false without
     * waiting when the stash already holds a batch of frames: memory and latency stay
     * bounded when the downstream is slower than the decoder (the input then waits in
     * the upstream buffer).
     */
    bool wait_for_a_slot()
    {
        if (d_stash.size() >= d_run.max_batch_frames) {
            return false;
        }
        pop_one(/*wait=*/true, /*may_stash=*/true);
        return true;
    }

    /*!
     * With nothing left in the engine, frames still listed as submitted were lost with
     * a failed batch: counted as dropped and forgotten (queued empty frames stay, in
     * order). Frames in flight are kept: they come out in a later call or run.
     */
    void settle_lost_frames()
    {
        if (d_run.engine->frames_pending() > 0) {
            return;
        }
        const size_t n = d_frames.size();
        for (size_t i = 0; i < n; ++i) {
            frame_info info = std::move(d_frames.front());
            d_frames.pop_front();
            if (info.empty) {
                d_frames.emplace_back() = std::move(info);
            } else {
                ++d_lost;
            }
        }
    }

    //! Submits up to `count` whole frames starting at `data` (absolute item `first`).
    size_t submit_run(const uint8_t* data, size_t count, uint64_t first, uint64_t end)
    {
        const size_t items = d_assembler->frame_length();
        auto& engine = *d_run.engine;
        const size_t taken =
            d_float_input
                ? engine.submit_frames(
                      reinterpret_cast<const float*>(data), items, count, d_next_id)
                : engine.submit_frames(reinterpret_cast<const ::gpufec::llr8_t*>(data),
                                       items,
                                       count,
                                       d_next_id);
        if (taken > 0 && items != d_last_items) {
            d_last_items = items;
            d_last_out_bits = d_run.decoder->output_bits_for_input(items);
        }
        for (size_t j = 0; j < taken; ++j) {
            frame_info& info = d_frames.emplace_back();
            info.empty = false;
            info.id = d_next_id++;
            info.out_bits = d_last_out_bits;
            info.tags = d_assembler->take_whole(first + j * items, end);
        }
        return taken;
    }

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
        // d_frames holds the engine's pending frames and queued empty frames.
        return !d_stash.empty() || !d_frames.empty() || d_assembler->has_frame();
    }

    //! True when the oldest frame not yet popped fits in this call's output.
    bool room_for_next() const
    {
        return !d_frames.empty() && d_produced + d_frames.front().out_bits <= d_noutput;
    }

    //! Writes a frame's bits and tags at the output position, counts it.
    void emit(const frame_info& info, size_t nbits)
    {
        emit_frame_tags(
            d_io, 0, d_out_first + d_produced, nbits, info.tags, d_assembler->len_key());
        if (d_status_tags && !info.empty) { // nothing was decoded: no status
            // Two kept tags, their offset and value set: one temporary tag_t fewer
            // per tag (GNU Radio stores its own copy).
            const uint64_t at = d_out_first + d_produced;
            d_iterations_tag.offset = at;
            d_iterations_tag.value = iterations_value(info.status.iterations);
            this->add_item_tag(0, d_iterations_tag);
            d_crc_ok_tag.offset = at;
            d_crc_ok_tag.value = info.status.ok ? pmt::PMT_T : pmt::PMT_F;
            this->add_item_tag(0, d_crc_ok_tag);
        }
        d_produced += nbits;
        ++d_decoded;
    }

    //! The oldest frame is an empty one (no engine frame): out now when `direct`
    //! (nothing stashed before it), else into the stash behind the others.
    void pass_empty_frame(bool direct)
    {
        if (direct) {
            emit(d_frames.front(), 0);
        } else {
            decoded_frame& frame = d_stash.emplace_back();
            frame.nbits = 0;
            frame.info = std::move(d_frames.front());
        }
        d_frames.pop_front();
    }

    /*!
     * Pops the oldest finished frame: into the output when the stash is empty and it
     * fits, else into the stash when `may_stash` (never otherwise: the frame then stays
     * in the engine). Returns false when nothing was popped.
     */
    bool pop_one(bool wait, bool may_stash)
    {
        const bool direct = d_stash.empty() && room_for_next();
        if (!direct && !may_stash) {
            return false;
        }
        if (!d_frames.empty() && d_frames.front().empty) {
            pass_empty_frame(direct);
            return true;
        }
        ::gpufec::completed_frame done;
        const bool got =
            wait ? d_run.engine->pop_wait(done) : d_run.engine->try_pop(done);
        if (!got) {
            return false;
        }
        // Frames before done.id that never came back were lost with a failed batch
        // (the engine reported it): counted as dropped. Empty frames queued among them
        // go out in their turn.
        while (!d_frames.empty() &&
               (d_frames.front().empty || d_frames.front().id < done.id)) {
            if (d_frames.front().empty) {
                pass_empty_frame(d_stash.empty());
            } else {
                ++d_lost;
                d_frames.pop_front();
            }
        }
        if (d_frames.empty() || d_frames.front().id != done.id) {
            throw std::logic_error("gpufec engine returned frames out of order");
        }
        d_frames.front().status = done.status;
        if (direct && d_stash.empty() && d_produced + done.nbits <= d_noutput) {
            write_items(done, d_out + d_produced * d_out_itemsize);
            emit(d_frames.front(), done.nbits);
        } else {
            decoded_frame& frame = d_stash.emplace_back();
            if (frame.bits.size() < done.nbits * d_out_itemsize) {
                frame.bits.resize(done.nbits * d_out_itemsize);
            }
            frame.nbits = done.nbits;
            frame.info = std::move(d_frames.front());
            write_items(done, frame.bits.data());
        }
        d_frames.pop_front();
        return true;
    }

    //! Copies stashed frames to the output while they fit.
    void drain_stash()
    {
        while (!d_stash.empty() && d_produced + d_stash.front().nbits <= d_noutput) {
            decoded_frame& frame = d_stash.front();
            if (frame.nbits > 0) { // an empty frame may have no buffer yet
                std::memcpy(d_out + d_produced * d_out_itemsize,
                            frame.bits.data(),
                            frame.nbits * d_out_itemsize);
            }
            emit(frame.info, frame.nbits);
            frame.info.tags.tags.clear();
            d_stash.pop_front(); // the bits buffer stays in the ring for reuse
        }
    }

    gr::tag_t d_iterations_tag = status_tag(iterations_key());
    gr::tag_t d_crc_ok_tag = status_tag(crc_ok_key());
    const bool d_float_input;
    const double d_max_latency_s;
    const bool d_soft;
    const bool d_status_tags;
    const size_t d_out_itemsize;
    //! int8-input units (core convention) -> the float input's units and convention
    float d_soft_gain = 1.0f;
    batched_engine d_run;
    size_t d_max_in = 0;
    size_t d_max_out = 0;
    size_t d_call_frames = 1; //!< frames per output multiple, before the user's caps
    block_access d_io = access();
    std::unique_ptr<frame_assembler> d_assembler;
    fifo<frame_info> d_frames; //!< submitted, not yet popped (submission order)
    fifo<decoded_frame> d_stash;
    uint64_t d_next_id = 0;
    size_t d_last_items = 0; //!< memo of output_bits_for_input
    size_t d_last_out_bits = 0;
    std::atomic<uint64_t> d_decoded{ 0 };
    std::atomic<uint64_t> d_lost{ 0 }; //!< frames lost with a failed batch
    bool d_failed = false;             //!< a batch failed: this run ends
    // The current work call's output.
    uint8_t* d_out = nullptr;
    size_t d_noutput = 0;
    size_t d_produced = 0;
    uint64_t d_out_first = 0;
};

} // namespace gpufec
} // namespace gr

#endif
