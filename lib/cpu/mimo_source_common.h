/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: one received vector of the MIMO channel source (mimo_channel.h), one
// source for the CPU source and the CUDA kernel, so that both give the same samples
// bit for bit: Philox counters and philox.h's correctly rounded float operations in a
// fixed order (no contraction on either side).
#ifndef INCLUDED_GPUFEC_MIMO_SOURCE_COMMON_H
#define INCLUDED_GPUFEC_MIMO_SOURCE_COMMON_H

#include <gpufec/mimo_channel.h>
#include <gpufec/philox.h>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gpufec {
namespace mimo_source {

// Philox streams of a frame (the AWGN source uses 0 and 1).
constexpr uint32_t stream_bits = 5;
constexpr uint32_t stream_channel = 6;
constexpr uint32_t stream_noise = 7;

constexpr int max_antennas = 8;
constexpr int max_bits_per_symbol = 8;

struct cplx {
    float re, im;
};

//! What every vector of a source needs (host and device copies are identical).
struct params {
    uint64_t seed;
    int nt, nr, bits;          //!< bits per symbol
    int coherence;             //!< vectors per frame (one channel matrix)
    float noise_std;           //!< sqrt(noise_var / 2): per real dimension
    const cplx* points;        //!< the constellation, indexed by the symbol's bits
    const cplx* fixed_channel; //!< nr * nt row-major, or null: i.i.d. Rayleigh
};

//! Random bit i of frame `frame`: bit i % 32 of word i / 32 of stream_bits (word w is
//! output word w % 4 of Philox block w / 4).
GPUFEC_HD uint32_t random_word(uint64_t seed, uint64_t frame, uint32_t w)
{
    const philox::u32x4 r = philox::frame_block(seed, frame, w >> 2, stream_bits);
    const uint32_t k = w & 3u;
    return k == 0 ? r.v[0] : k == 1 ? r.v[1] : k == 2 ? r.v[2] : r.v[3];
}

/*!
 * Standard complex normal number k of a stream of a frame, unscaled (each part N(0,1)):
 * Philox block k / 2 gives words x0..x3; (x0, x1) -> number 2q, (x2, x3) -> 2q + 1
 * through Box-Muller (cos part real, sin part imaginary).
 */
GPUFEC_HD cplx normal_pair(uint64_t seed, uint64_t frame, uint32_t stream, uint32_t k)
{
    const philox::u32x4 r = philox::frame_block(seed, frame, k >> 1, stream);
    cplx g;
    if (k & 1u)
        philox::box_muller(r.v[2], r.v[3], g.re, g.im);
    else
        philox::box_muller(r.v[0], r.v[1], g.re, g.im);
    return g;
}

//! Channel entry k (row-major) of frame `frame`: CN(0, 1), each part N(0, 1/2).
GPUFEC_HD cplx channel_entry(const params& p, uint64_t frame, uint32_t k)
{
    if (p.fixed_channel)
        return p.fixed_channel[k];
    const float half_std = 0x1.6a09e6p-1f; // float(sqrt(1/2))
    const cplx g = normal_pair(p.seed, frame, stream_channel, k);
    return { philox::fmul(g.re, half_std), philox::fmul(g.im, half_std) };
}

/*!
 * Vector v (0 <= v < coherence) of frame `frame`: its nt * bits transmitted bits
 * (vector bit j = frame bit v * nt * bits + j; antenna a sends bits a * bits ..
 * (a + 1) * bits - 1 as one symbol, the first bit most significant), taken from
 * `given` (one per byte) when not null, else random and written to `bits_out` (when
 * not null); h: the frame's channel (nr * nt); y_out: its nr received samples,
 * y_r = w_r + sum_a h_ra s_a in that order, w_r = noise_std * normal number
 * v * nr + r of stream_noise.
 */
GPUFEC_HD void make_vector(const params& p,
                           uint64_t frame,
                           int v,
                           const cplx* h,
                           const uint8_t* given,
                           uint8_t* bits_out,
                           cplx* y_out)
{
    const int per_vector = p.nt * p.bits;
    const uint32_t first_bit = static_cast<uint32_t>(v * per_vector);
    cplx s[max_antennas];
    uint32_t word_index = first_bit >> 5;
    uint32_t word = given ? 0u : random_word(p.seed, frame, word_index);
    for (int a = 0; a < p.nt; a++) {
        uint32_t index = 0;
        for (int b = 0; b < p.bits; b++) {
            const int j = a * p.bits + b;
            uint32_t bit;
            if (given) {
                bit = given[j] & 1u;
            } else {
                const uint32_t i = first_bit + static_cast<uint32_t>(j);
                if ((i >> 5) != word_index) {
                    word_index = i >> 5;
                    word = random_word(p.seed, frame, word_index);
                }
                bit = (word >> (i & 31u)) & 1u;
                if (bits_out)
                    bits_out[j] = static_cast<uint8_t>(bit);
            }
            index = (index << 1) | bit;
        }
        s[a] = p.points[index];
    }
    for (int r = 0; r < p.nr; r++) {
        const cplx g =
            normal_pair(p.seed, frame, stream_noise, static_cast<uint32_t>(v * p.nr + r));
        cplx acc = { philox::fmul(g.re, p.noise_std), philox::fmul(g.im, p.noise_std) };
        for (int a = 0; a < p.nt; a++) {
            const cplx hh = h[r * p.nt + a];
            acc.re = philox::fadd(
                acc.re,
                philox::fsub(philox::fmul(hh.re, s[a].re), philox::fmul(hh.im, s[a].im)));
            acc.im = philox::fadd(
                acc.im,
                philox::fadd(philox::fmul(hh.re, s[a].im), philox::fmul(hh.im, s[a].re)));
        }
        y_out[r] = acc;
    }
}

/*!
 * What the CPU and CUDA sources share: the checked setup and options, the noise
 * variance (atomic: set_noise_var() may come from another thread than generate()),
 * and the params of a call with the backend's constellation and channel pointers.
 */
class source_base : public mimo_channel_source
{
public:
    source_base(const mimo_setup& setup, const mimo_source_options& options)
        : d_setup(setup),
          d_opt(options),
          d_bits(constellation(setup.mod).bits_per_symbol()),
          d_noise_var(options.noise_var)
    {
        detail::check_mimo_source(setup, options);
    }
    const mimo_setup& setup() const override { return d_setup; }
    void set_noise_var(double noise_var) override
    {
        if (!(noise_var > 0.0) || !std::isfinite(noise_var))
            throw error("mimo channel source: noise_var = " + std::to_string(noise_var) +
                        "; allowed: a finite value > 0");
        d_noise_var.store(noise_var);
    }
    double noise_var() const override { return d_noise_var.load(); }

protected:
    //! points: the constellation (indexed by bits); fixed: the caller's H or null.
    params call_params(const cplx* points, const cplx* fixed) const
    {
        params p{};
        p.seed = d_opt.seed;
        p.nt = d_setup.nt;
        p.nr = d_setup.nr;
        p.bits = d_bits;
        p.coherence = d_setup.coherence;
        p.noise_std = static_cast<float>(std::sqrt(d_noise_var.load() / 2.0));
        p.points = points;
        p.fixed_channel = d_opt.channel.empty() ? nullptr : fixed;
        return p;
    }
    //! The constellation's points and the fixed channel as cplx arrays.
    void host_tables(std::vector<cplx>& points, std::vector<cplx>& fixed) const
    {
        const constellation c(d_setup.mod); // alive through the loop
        for (const auto& x : c.points())
            points.push_back({ x.real(), x.imag() });
        for (const auto& h : d_opt.channel)
            fixed.push_back({ h.real(), h.imag() });
    }

    const mimo_setup d_setup;
    const mimo_source_options d_opt;
    const int d_bits; //!< per symbol

private:
    std::atomic<double> d_noise_var;
};

} // namespace mimo_source
} // namespace gpufec

#endif
