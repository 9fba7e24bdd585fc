/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// THE PDU decoder block: one template for every algorithm, sharing the engine setup
// with the stream template (batched_common.h).
#ifndef INCLUDED_GPUFEC_BLOCKS_BATCHED_PDU_DECODER_IMPL_H
#define INCLUDED_GPUFEC_BLOCKS_BATCHED_PDU_DECODER_IMPL_H

#include "batched_common.h"
#include <gnuradio/block.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/pdu.h>
#include <gpufec/common.h>
#include <volk/volk.h>
#include <atomic>
#include <cstdint>
#include <deque>
#include <vector>

namespace gr {
namespace gpufec {

/*!
 * PDUs go into the engine as they arrive. PDUs queued behind the one being handled
 * join the same batch; when the queue is empty the partial batch is launched and every
 * pending frame is published, in order (a lone PDU is never held back).
 *
 * An empty vector gives an empty PDU (same vector type as a decoded one, metadata kept,
 * no status entries), published in order. Anything else that is not a pair of nil or a
 * dict and an f32vector or s8vector of a length the decoder takes is dropped with an
 * error naming the message's number.
 */
template <class Interface>
class batched_pdu_decoder_impl : public Interface
{
public:
    batched_pdu_decoder_impl(const std::string& block_name,
                             const decoder_factory& factory,
                             const batched_options& options)
        : gr::block(block_name,
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make(0, 0, 0)),
          d_in_port(pmt::mp("in")),
          d_out_port(pmt::mp("out")),
          d_soft(options.soft_output),
          d_status(options.status_tags),
          d_trailer_bits(options.trailer_bits),
          d_trailer_key(pmt::intern(options.trailer_key))
    {
        d_run = make_batched_engine(block_name, factory, options, this->d_logger);
        d_soft_gain = d_run.soft_output_gain;
        this->message_port_register_in(d_in_port);
        this->message_port_register_out(d_out_port);
        this->set_msg_handler(d_in_port,
                              [this](const pmt::pmt_t& msg) { handle_pdu(msg); });
    }

    std::string backend_name() const override { return d_run.backend_name; }
    uint64_t decoded_frames() const override { return d_decoded.load(); }
    uint64_t dropped_frames() const override { return d_dropped.load(); }

    bool stop() override
    {
        publish_all();
        return true;
    }

private:
    //! nil or a list of (key . value) pairs: what dict_add() can extend safely.
    static bool is_metadata(const pmt::pmt_t& meta)
    {
        pmt::pmt_t p = meta;
        while (pmt::is_pair(p)) {
            if (!pmt::is_pair(pmt::car(p))) {
                return false;
            }
            p = pmt::cdr(p);
        }
        return pmt::is_null(p);
    }

    void handle_pdu(const pmt::pmt_t& msg)
    {
        // A decoder failure (a CUDA error, or anything a decoder throws) loses the
        // frames of its batch: it is logged, their PDUs are counted as dropped when
        // later ones come back, and the block goes on with the next PDU.
        try {
            decode_pdu(msg);
        } catch (const std::exception& e) {
            log_failure(e);
        }
        // Publish after every message, dropped ones included: when the queue has run
        // dry, frames still in the engine must not wait for a next message.
        publish_in_turn(/*wait=*/false);
        if (this->empty_p(d_in_port)) {
            publish_all();
        }
    }

    void log_failure(const std::exception& e)
    {
        this->d_logger->error("decoder failure, the PDUs of one batch are lost: {}",
                              e.what());
    }

    void decode_pdu(const pmt::pmt_t& msg)
    {
        const uint64_t number = d_received++;
        if (!pmt::is_pair(msg) || !pmt::is_uniform_vector(pmt::cdr(msg))) {
            drop(number, "not a PDU (pair of metadata and uniform vector)");
            return;
        }
        const pmt::pmt_t meta = pmt::car(msg);
        const pmt::pmt_t vec = pmt::cdr(msg);
        if (!is_metadata(meta)) {
            drop(number, "the metadata (car) is neither a dict nor nil");
            return;
        }
        const bool is_float = pmt::is_f32vector(vec);
        if (!is_float && !pmt::is_s8vector(vec)) {
            drop(number,
                 "vector type must be f32vector (float LLRs) or s8vector (int8 LLRs)");
            return;
        }
        if (!is_float && d_run.decoder->input() == ::gpufec::input_format::llr_int4) {
            drop(number,
                 "llr_bits = 4 quantizes float LLRs: the vector must be f32vector");
            return;
        }
        const size_t items = pmt::length(vec);
        const std::string problem =
            items == 0 ? "" : frame_length_problem(*d_run.decoder, items);
        if (!problem.empty()) {
            drop(number, problem);
        } else if (items == 0) {
            d_meta.push_back({ empty_id, meta }); // published in turn, not decoded
        } else {
            auto& engine = *d_run.engine;
            while (!engine.can_submit(items)) {
                try { // a failed batch frees its slot too: go on waiting, then submit
                    publish_one(/*wait=*/true);
                } catch (const std::exception& e) {
                    log_failure(e);
                }
            }
            // Queued before the submit: if the submit throws (its slot's launch
            // failed), the PDU is counted as dropped in turn, never lost uncounted.
            const uint64_t id = d_next_id++;
            d_meta.push_back({ id, meta });
            size_t len = 0;
            const bool accepted =
                is_float ? engine.submit(pmt::f32vector_elements(vec, len), items, id)
                         : engine.submit(pmt::s8vector_elements(vec, len), items, id);
            if (!accepted) { // cannot happen after can_submit()
                d_meta.pop_back();
                drop(number, "the engine had no room");
            }
        }
    }

    void drop(uint64_t number, const std::string& reason)
    {
        ++d_dropped;
        this->d_logger->error(
            "dropping PDU #{} (counting from 0 since start): {}", number, reason);
    }

    bool publish_one(bool wait)
    {
        if (!d_meta.empty() && d_meta.front().first == empty_id) {
            publish_empty();
            return true;
        }
        ::gpufec::completed_frame done;
        const bool got =
            wait ? d_run.engine->pop_wait(done) : d_run.engine->try_pop(done);
        if (!got) {
            return false;
        }
        // Frames before done.id that never came back were lost with a failed batch
        // (the engine reported it); empty PDUs queued among them still go out.
        while (!d_meta.empty() && d_meta.front().first != done.id) {
            if (d_meta.front().first == empty_id) {
                publish_empty();
            } else if (d_meta.front().first < done.id) {
                ++d_dropped;
                d_meta.pop_front();
            } else {
                break;
            }
        }
        if (d_meta.empty() || d_meta.front().first != done.id) {
            throw std::logic_error("gpufec engine returned frames out of order");
        }
        pmt::pmt_t meta = d_meta.front().second;
        size_t nbits = done.nbits;
        if (d_trailer_bits > 0 && nbits >= size_t(d_trailer_bits)) {
            nbits -= d_trailer_bits;
            long value = 0;
            for (size_t i = nbits; i < done.nbits; i++)
                value = (value << 1) | ((done.packed[i / 8] >> (7 - i % 8)) & 1);
            if (!pmt::is_dict(meta)) {
                meta = pmt::make_dict();
            }
            // A frame that failed its check names no one: -1, never a value that a
            // consumer routing on the key could take for a match.
            meta = pmt::dict_add(
                meta, d_trailer_key, pmt::from_long(done.status.ok ? value : -1));
        }
        if (d_status) {
            if (!pmt::is_dict(meta)) {
                meta = pmt::make_dict(); // PDUs with nil metadata get a fresh dict
            }
            meta = pmt::dict_add(
                meta, iterations_key(), iterations_value(done.status.iterations));
            meta = pmt::dict_add(meta, crc_ok_key(), pmt::from_bool(done.status.ok));
        }
        pmt::pmt_t vec;
        if (d_soft) { // the trailer's values are not payload either
            d_soft_values.resize(nbits);
            volk_32f_s32f_multiply_32f(d_soft_values.data(),
                                       done.soft,
                                       d_soft_gain,
                                       static_cast<unsigned int>(nbits));
            vec = pmt::init_f32vector(d_soft_values.size(), d_soft_values);
        } else {
            d_bits.resize(nbits);
            ::gpufec::unpack_bits(done.packed, d_bits.data(), nbits);
            vec = pmt::init_u8vector(d_bits.size(), d_bits);
        }
        this->message_port_pub(d_out_port, pmt::cons(meta, vec));
        d_meta.pop_front();
        ++d_decoded;
        return true;
    }

    void publish_empty()
    {
        const pmt::pmt_t vec =
            d_soft ? pmt::make_f32vector(0, 0.0f) : pmt::make_u8vector(0, 0);
        this->message_port_pub(d_out_port, pmt::cons(d_meta.front().second, vec));
        d_meta.pop_front();
        ++d_decoded;
    }

    //! Publishes the finished frames in order (all pending ones when `wait`); a failed
    //! batch is logged and skipped.
    void publish_in_turn(bool wait)
    {
        for (;;) {
            try {
                if (!publish_one(wait)) {
                    return;
                }
            } catch (const std::exception& e) {
                log_failure(e);
            }
        }
    }

    //! Publishes everything pending, in order; a failed batch is logged and skipped.
    void publish_all()
    {
        publish_in_turn(/*wait=*/true);
        // Nothing is pending in the engine: what is left was lost with a failed batch,
        // but for empty PDUs, which go out in turn.
        while (!d_meta.empty()) {
            if (d_meta.front().first == empty_id) {
                publish_empty();
            } else {
                ++d_dropped;
                d_meta.pop_front();
            }
        }
    }

    const pmt::pmt_t d_in_port;
    const pmt::pmt_t d_out_port;
    batched_engine d_run;
    std::deque<std::pair<uint64_t, pmt::pmt_t>> d_meta;
    const bool d_soft;
    const bool d_status;
    const int d_trailer_bits; //!< batched_options::trailer_bits
    const pmt::pmt_t d_trailer_key;
    //! int8-input units (core convention) -> the float input's units and convention
    float d_soft_gain = 1.0f;
    std::vector<uint8_t> d_bits;
    std::vector<float> d_soft_values;
    //! d_meta's id of an empty PDU (engine ids count from 0 and never get there).
    static constexpr uint64_t empty_id = UINT64_MAX;
    uint64_t d_next_id = 0;
    uint64_t d_received = 0;
    std::atomic<uint64_t> d_decoded{ 0 };
    std::atomic<uint64_t> d_dropped{ 0 };
};

} // namespace gpufec
} // namespace gr

#endif
