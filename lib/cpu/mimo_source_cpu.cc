/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cpu/mimo_source_common.h"
#include <gpufec/mimo_channel.h>
#include <atomic>
#include <cmath>
#include <string>

namespace gpufec {

size_t mimo_channel_source::samples_per_frame() const
{
    return static_cast<size_t>(setup().coherence) * setup().nr;
}
size_t mimo_channel_source::channel_per_frame() const
{
    return static_cast<size_t>(setup().nr) * setup().nt;
}
size_t mimo_channel_source::bits_per_vector() const
{
    return static_cast<size_t>(setup().nt) * constellation(setup().mod).bits_per_symbol();
}
size_t mimo_channel_source::bits_per_frame() const
{
    return static_cast<size_t>(setup().coherence) * bits_per_vector();
}

double mimo_noise_var_esn0(double esn0_db)
{
    if (!std::isfinite(esn0_db))
        throw error("mimo channel: Es/N0 = " + std::to_string(esn0_db) +
                    " dB; allowed: a finite value");
    return std::pow(10.0, -esn0_db / 10.0);
}

double mimo_noise_var_ebn0(double ebn0_db, int bits_per_symbol, double rate)
{
    if (!std::isfinite(ebn0_db) || bits_per_symbol < 1 || !(rate > 0.0) || rate > 1.0)
        throw error("mimo channel: Eb/N0 = " + std::to_string(ebn0_db) + " dB, " +
                    std::to_string(bits_per_symbol) + " bits per symbol, rate " +
                    std::to_string(rate) +
                    "; allowed: a finite Eb/N0, 1..8 bits per symbol, 0 < rate <= 1");
    return 1.0 / (bits_per_symbol * rate * std::pow(10.0, ebn0_db / 10.0));
}

namespace detail {
void check_mimo_source(const mimo_setup& setup, const mimo_source_options& options)
{
    if (setup.nt < 1 || setup.nt > mimo_max_antennas || setup.nr < 1 ||
        setup.nr > mimo_max_antennas || setup.nr < setup.nt)
        throw error("mimo channel source: nt = " + std::to_string(setup.nt) +
                    ", nr = " + std::to_string(setup.nr) +
                    "; allowed: 1 <= nt <= nr <= " + std::to_string(mimo_max_antennas));
    if (setup.coherence < 1 || setup.coherence > 1 << 16)
        throw error(
            "mimo channel source: coherence = " + std::to_string(setup.coherence) +
            "; allowed: 1..65536 received vectors per channel matrix");
    if (!(options.noise_var > 0.0) || !std::isfinite(options.noise_var))
        throw error("mimo channel source: noise_var = " +
                    std::to_string(options.noise_var) + "; allowed: a finite value > 0");
    const size_t entries = static_cast<size_t>(setup.nr) * setup.nt;
    if (!options.channel.empty() && options.channel.size() != entries)
        throw error("mimo channel source: a fixed channel of " +
                    std::to_string(options.channel.size()) +
                    " entries; allowed: nr * nt = " + std::to_string(entries) +
                    " (row-major), or none for Rayleigh fading");
}
} // namespace detail

namespace {

class mimo_source_cpu final : public mimo_source::source_base
{
public:
    mimo_source_cpu(const mimo_setup& setup, const mimo_source_options& options)
        : source_base(setup, options)
    {
        host_tables(d_points, d_fixed);
    }

    backend_kind backend() const override { return backend_kind::cpu; }

    void generate(uint64_t first_frame,
                  size_t num_frames,
                  const uint8_t* tx_bits,
                  cfloat* samples,
                  cfloat* channels,
                  uint8_t* bits) override
    {
        const mimo_source::params p = call_params(d_points.data(), d_fixed.data());
        const size_t per_vector = bits_per_vector(), entries = channel_per_frame();
        std::vector<mimo_source::cplx> h(entries);
        mimo_source::cplx y[mimo_source::max_antennas];
        for (size_t f = 0; f < num_frames; f++) {
            const uint64_t frame = first_frame + f;
            for (size_t k = 0; k < entries; k++)
                h[k] = mimo_source::channel_entry(p, frame, static_cast<uint32_t>(k));
            if (channels)
                for (size_t k = 0; k < entries; k++)
                    channels[f * entries + k] = cfloat(h[k].re, h[k].im);
            for (int v = 0; v < d_setup.coherence; v++) {
                const size_t bit0 = (f * d_setup.coherence + v) * per_vector;
                mimo_source::make_vector(p,
                                         frame,
                                         v,
                                         h.data(),
                                         tx_bits ? tx_bits + bit0 : nullptr,
                                         !tx_bits && bits ? bits + bit0 : nullptr,
                                         y);
                if (samples)
                    for (int r = 0; r < d_setup.nr; r++)
                        samples[(f * d_setup.coherence + v) * d_setup.nr + r] =
                            cfloat(y[r].re, y[r].im);
            }
        }
    }

private:
    std::vector<mimo_source::cplx> d_points;
    std::vector<mimo_source::cplx> d_fixed;
};

} // namespace

std::unique_ptr<mimo_channel_source>
make_mimo_channel_source_cpu(const mimo_setup& setup, const mimo_source_options& options)
{
    return std::make_unique<mimo_source_cpu>(setup, options);
}

} // namespace gpufec
