/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpufec/ber_counter.h>
#include <gnuradio/io_signature.h>
#include <gpufec/common.h>
#include <algorithm>
#include <mutex>
#include <vector>

namespace gr {
namespace gpufec {

namespace {

class ber_counter_impl : public ber_counter
{
public:
    ber_counter_impl(int frame_bits, int report_every_frames)
        : gr::sync_block("ber_counter",
                         gr::io_signature::make(2, 2, sizeof(uint8_t)),
                         gr::io_signature::make(0, 0, 0)),
          d_frame_bits(frame_bits),
          d_report_every(report_every_frames),
          d_port(pmt::mp("stats"))
    {
        if (frame_bits < 0 || report_every_frames < 0) {
            throw ::gpufec::error(
                "ber_counter: frame_bits and report_every_frames must be "
                ">= 0 (0 = no frames / no periodic report)");
        }
        message_port_register_out(d_port);
    }

    double ber() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_bits ? static_cast<double>(d_bit_errors) / static_cast<double>(d_bits)
                      : 0.0;
    }
    uint64_t bit_errors() const override { return locked(d_bit_errors); }
    uint64_t bits() const override { return locked(d_bits); }
    uint64_t frame_errors() const override { return locked(d_frame_errors); }
    uint64_t frames() const override { return locked(d_frames); }
    void reset() override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_bits = d_bit_errors = d_frames = d_frame_errors = 0;
        d_frame_pos = 0;
        d_frame_has_error = false;
    }

    bool stop() override
    {
        message_port_pub(d_port, stats());
        return true;
    }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star&) override
    {
        const auto* decoded = static_cast<const uint8_t*>(input_items[0]);
        const auto* reference = static_cast<const uint8_t*>(input_items[1]);
        std::vector<pmt::pmt_t> reports;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            uint64_t counted = 0; // bits of this call already added to d_bits
            const size_t n = static_cast<size_t>(noutput_items);
            const uint64_t frame_bits = static_cast<uint64_t>(d_frame_bits);
            // Whole runs up to the next frame boundary at a time, counted by a loop
            // the compiler vectorises.
            for (size_t i = 0; i < n;) {
                size_t run = n - i;
                if (frame_bits > 0) {
                    run = static_cast<size_t>(
                        std::min<uint64_t>(run, frame_bits - d_frame_pos));
                }
                const uint64_t wrong = count_differences(decoded + i, reference + i, run);
                d_bit_errors += wrong;
                i += run;
                if (frame_bits == 0) {
                    continue;
                }
                d_frame_has_error |= wrong != 0;
                d_frame_pos += run;
                if (d_frame_pos == frame_bits) {
                    ++d_frames;
                    d_frame_errors += d_frame_has_error;
                    d_frame_pos = 0;
                    d_frame_has_error = false;
                    if (d_report_every > 0 && d_frames % d_report_every == 0) {
                        d_bits += static_cast<uint64_t>(i) - counted;
                        counted = static_cast<uint64_t>(i);
                        reports.push_back(stats_locked());
                    }
                }
            }
            d_bits += static_cast<uint64_t>(noutput_items) - counted;
        }
        // Published outside the lock: one dict per report point, counts as of that point.
        for (const auto& report : reports) {
            message_port_pub(d_port, report);
        }
        return noutput_items;
    }

private:
    //! Positions where the low bits of `a` and `b` differ.
    static uint64_t count_differences(const uint8_t* a, const uint8_t* b, size_t n)
    {
        uint64_t total = 0;
        for (size_t start = 0; start < n; start += 65536) {
            const size_t end = std::min(n, start + 65536);
            uint32_t sum =
                0; // 32-bit lanes vectorise; the chunk keeps it from overflowing
            for (size_t i = start; i < end; ++i) {
                sum += (a[i] ^ b[i]) & 1u;
            }
            total += sum;
        }
        return total;
    }

    uint64_t locked(const uint64_t& value) const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return value;
    }

    pmt::pmt_t stats() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return stats_locked();
    }

    pmt::pmt_t stats_locked() const
    {
        pmt::pmt_t dict = pmt::make_dict();
        auto put = [&dict](const char* key, const pmt::pmt_t& value) {
            dict = pmt::dict_add(dict, pmt::mp(key), value);
        };
        put("bits", pmt::from_uint64(d_bits));
        put("bit_errors", pmt::from_uint64(d_bit_errors));
        put("ber",
            pmt::from_double(d_bits ? double(d_bit_errors) / double(d_bits) : 0.0));
        put("frames", pmt::from_uint64(d_frames));
        put("frame_errors", pmt::from_uint64(d_frame_errors));
        put("fer",
            pmt::from_double(d_frames ? double(d_frame_errors) / double(d_frames) : 0.0));
        return dict;
    }

    const int d_frame_bits;
    const int d_report_every;
    const pmt::pmt_t d_port;
    mutable std::mutex d_mutex;
    uint64_t d_bits = 0;
    uint64_t d_bit_errors = 0;
    uint64_t d_frames = 0;
    uint64_t d_frame_errors = 0;
    uint64_t d_frame_pos = 0;
    bool d_frame_has_error = false;
};

} // namespace

ber_counter::sptr ber_counter::make(int frame_bits, int report_every_frames)
{
    return gnuradio::make_block_sptr<ber_counter_impl>(frame_bits, report_every_frames);
}

} // namespace gpufec
} // namespace gr
