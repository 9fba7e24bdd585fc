/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "batched_common.h"
#include "frame_assembler.h"
#include <gnuradio/gpufec/encoder.h>
#include <gnuradio/io_signature.h>
#include <gpufec/common.h>

namespace gr {
namespace gpufec {

namespace {

class encoder_impl : public encoder
{
public:
    encoder_impl(code::sptr code, const std::string& len_tag_key)
        : gr::block("gpufec_encoder",
                    gr::io_signature::make(1, 1, sizeof(uint8_t)),
                    gr::io_signature::make(1, 1, sizeof(uint8_t))),
          d_code(code ? code : throw ::gpufec::error("encoder: code is None"))
    {
        const uint64_t max_bits = static_cast<uint64_t>(d_code->frame_bits());
        d_max_out = d_code->coded_bits_for(max_bits);
        d_assembler = std::make_unique<frame_assembler>(
            access(),
            sizeof(uint8_t),
            max_bits,
            len_tag_key,
            max_bits,
            [code = d_code](uint64_t bits) {
                // Block codes (turbo, LDPC, polar) take exactly frame_bits() bits.
                return code->coded_bits_for(bits) == 0
                           ? "the code takes frames of exactly " +
                                 std::to_string(code->frame_bits()) + " bits"
                           : std::string();
            });
        set_tag_propagation_policy(TPP_DONT);
        set_relative_rate(static_cast<uint64_t>(d_max_out), max_bits);
        if (len_tag_key.empty()) {
            set_output_multiple(static_cast<int>(d_max_out));
        } else {
            set_min_noutput_items(static_cast<int>(d_max_out));
        }
        set_min_output_buffer(static_cast<long>(4 * d_max_out));
    }

    uint64_t dropped_frames() const override { return d_assembler->dropped(); }

    bool stop() override
    {
        d_assembler->end_of_stream();
        lift_output_buffer_caps(*this, 1);
        return true;
    }

    void forecast(int, gr_vector_int& ninput_items_required) override
    {
        ninput_items_required[0] = d_assembler->has_frame() ? 0 : 1;
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        const auto* in = static_cast<const uint8_t*>(input_items[0]);
        auto* out = static_cast<uint8_t*>(output_items[0]);
        const size_t avail = static_cast<size_t>(ninput_items[0]);
        const uint64_t abs_first = nitems_read(0);
        size_t consumed = 0;
        size_t produced = 0;
        while (true) {
            if (!d_assembler->has_frame()) {
                if (consumed == avail) {
                    break;
                }
                consumed += d_assembler->advance(
                    in + consumed, avail - consumed, abs_first + consumed);
                continue;
            }
            const size_t bits = d_assembler->frame_items();
            // An empty frame stays empty (no tail bits): only its tags go out.
            const size_t coded = bits == 0 ? 0 : d_code->coded_bits_for(bits);
            if (produced + coded > static_cast<size_t>(noutput_items)) {
                break;
            }
            if (bits > 0) {
                d_code->encode_raw(d_assembler->frame_data(), bits, out + produced);
            }
            emit_frame_tags(d_io,
                            0,
                            nitems_written(0) + produced,
                            coded,
                            d_assembler->take(),
                            d_assembler->len_key());
            produced += coded;
        }
        consume(0, static_cast<int>(consumed));
        return static_cast<int>(produced);
    }

private:
    block_access access()
    {
        block_access io;
        io.get_tags = [this](std::vector<gr::tag_t>& v, uint64_t start, uint64_t end) {
            get_tags_in_range(v, 0, start, end);
        };
        io.add_tag = [this](int port, const gr::tag_t& tag) { add_item_tag(port, tag); };
        io.logger = d_logger;
        return io;
    }

    code::sptr d_code;
    size_t d_max_out = 0;
    block_access d_io = access();
    std::unique_ptr<frame_assembler> d_assembler;
};

} // namespace

encoder::sptr encoder::make(code::sptr code, const std::string& len_tag_key)
{
    return gnuradio::make_block_sptr<encoder_impl>(code, len_tag_key);
}

} // namespace gpufec
} // namespace gr
