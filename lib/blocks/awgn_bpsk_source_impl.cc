/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "batched_common.h"
#include <gnuradio/gpufec/awgn_bpsk_source.h>
#include <gnuradio/io_signature.h>
#include <gpufec/awgn_source.h>
#include <atomic>
#include <mutex>

namespace gr {
namespace gpufec {

namespace {

class awgn_bpsk_source_impl : public awgn_bpsk_source
{
public:
    awgn_bpsk_source_impl(code::sptr code,
                          double ebn0_db,
                          uint64_t seed,
                          const std::string& backend,
                          int frames_per_call,
                          const std::string& len_tag_key)
        : gr::block("awgn_bpsk_source",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make2(2, 2, sizeof(float), sizeof(uint8_t))),
          d_len_key(len_tag_key.empty() ? pmt::PMT_NIL : pmt::intern(len_tag_key))
    {
        const ::gpufec::conv_code& conv = require_conv_code(code, "awgn_bpsk_source");
        if (frames_per_call < 1) {
            throw ::gpufec::error(
                "awgn_bpsk_source: frames_per_call = " + std::to_string(frames_per_call) +
                "; allowed: 1 or more");
        }
        const ::gpufec::backend_spec spec = ::gpufec::resolve_backend(backend);
        d_source = ::gpufec::make_awgn_bpsk_source(conv, ebn0_db, seed, spec);
        d_backend = ::gpufec::describe_backend(spec);
        d_logger->info("awgn_bpsk_source: {}backend {}, {}",
                       spec.was_auto ? "auto selected " : "",
                       d_backend,
                       conv.describe());
        d_llrs = d_source->llrs_per_frame();
        d_bits = d_source->bits_per_frame();
        d_frames_per_call = static_cast<size_t>(frames_per_call);
        // One output_multiple for both ports: a frame needs max(d_llrs, d_bits) items
        // of space on each, and the scheduler hands out the smaller space of the two.
        const size_t per_frame = std::max(d_llrs, d_bits);
        set_output_multiple(static_cast<int>(per_frame));
        set_min_output_buffer(static_cast<long>(per_frame * d_frames_per_call));
    }

    void set_ebn0_db(double ebn0_db) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_source->set_ebn0_db(ebn0_db);
    }
    double ebn0_db() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_source->ebn0_db();
    }
    std::string backend_name() const override { return d_backend; }
    uint64_t frames() const override { return d_next_frame.load(); }

    int general_work(int noutput_items,
                     gr_vector_int&,
                     gr_vector_const_void_star&,
                     gr_vector_void_star& output_items) override
    {
        const size_t per_frame = std::max(d_llrs, d_bits);
        const size_t frames =
            std::min(d_frames_per_call, static_cast<size_t>(noutput_items) / per_frame);
        if (frames == 0) {
            return 0;
        }
        const uint64_t first = d_next_frame.load();
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_source->generate(first,
                               frames,
                               static_cast<float*>(output_items[0]),
                               static_cast<uint8_t*>(output_items[1]));
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

private:
    pmt::pmt_t d_len_key;
    std::unique_ptr<::gpufec::awgn_bpsk_source> d_source;
    std::string d_backend;
    size_t d_llrs = 0;
    size_t d_bits = 0;
    size_t d_frames_per_call = 1;
    std::atomic<uint64_t> d_next_frame{ 0 };
    mutable std::mutex d_mutex;
};

} // namespace

awgn_bpsk_source::sptr awgn_bpsk_source::make(code::sptr code,
                                              double ebn0_db,
                                              uint64_t seed,
                                              const std::string& backend,
                                              int frames_per_call,
                                              const std::string& len_tag_key)
{
    return gnuradio::make_block_sptr<awgn_bpsk_source_impl>(
        code, ebn0_db, seed, backend, frames_per_call, len_tag_key);
}

} // namespace gpufec
} // namespace gr
