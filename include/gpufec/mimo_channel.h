/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// MIMO channel source (issue 10): bits -> 3GPP constellation -> y = H s + w, with
// i.i.d. Rayleigh H (or the caller's H), the same output on the CPU and on CUDA for one
// seed. It feeds the MIMO detectors, and with a code (the caller's coded bits) makes
// coded BER curves.
#ifndef INCLUDED_GPUFEC_MIMO_CHANNEL_H
#define INCLUDED_GPUFEC_MIMO_CHANNEL_H

#include <gpufec/mimo_detection.h>
#include <memory>
#include <vector>

namespace gpufec {

/*!
 * Frame f (a 64-bit counter) is one coherence block: `coherence` received vectors that
 * share one channel matrix; it is a pure function of (seed, f, noise_var, the bits):
 *  - H: nr x nt row-major, entries CN(0, 1) (each part N(0, 1/2)), Philox stream 6;
 *  - bits: nt * bits_per_symbol per vector, antenna 0's first, each symbol's first bit
 *    most significant (TS 38.211 5.1 order); random (Philox stream 5) or the caller's;
 *  - symbols of unit average energy (constellation.h), w_r CN(0, noise_var) (stream 7);
 *  - y = H s + w, nr samples per vector.
 * With unit-energy symbols and E|h|^2 = 1, Es/N0 (per transmitted symbol) =
 * 1 / noise_var; the SNR per receive antenna is nt / noise_var.
 */
class mimo_channel_source
{
public:
    virtual ~mimo_channel_source() = default;
    virtual const mimo_setup& setup() const = 0;
    virtual backend_kind backend() const = 0;
    //! CUDA device of a CUDA source, -1 on the CPU.
    virtual int device() const { return -1; }
    //! E|w_r|^2, > 0; takes effect for frames generated after the call.
    virtual void set_noise_var(double noise_var) = 0;
    virtual double noise_var() const = 0;

    size_t samples_per_frame() const; //!< coherence * nr
    size_t channel_per_frame() const; //!< nr * nt
    size_t bits_per_frame() const;    //!< coherence * nt * bits_per_symbol
    size_t bits_per_vector() const;   //!< nt * bits_per_symbol

    /*!
     * Frames [first_frame, first_frame + num_frames) into host memory: `samples`
     * num_frames * samples_per_frame(), `channels` num_frames * channel_per_frame(),
     * `bits` num_frames * bits_per_frame() (one per byte). `tx_bits`: null = random
     * bits (copied to `bits`), else the bits to send, num_frames * bits_per_frame()
     * of them (e.g. coded bits; `bits` is then not written). Output pointers may be
     * null to skip that output.
     */
    virtual void generate(uint64_t first_frame,
                          size_t num_frames,
                          const uint8_t* tx_bits,
                          cfloat* samples,
                          cfloat* channels,
                          uint8_t* bits) = 0;
    /*!
     * CUDA sources: the same into device memory of device(), enqueued on `stream`
     * (a cudaStream_t), tx_bits in device memory too; returns at once. CPU: throws.
     */
    virtual void generate_device(uint64_t /*first_frame*/,
                                 size_t /*num_frames*/,
                                 const uint8_t* /*tx_bits*/,
                                 cfloat* /*samples*/,
                                 cfloat* /*channels*/,
                                 uint8_t* /*bits*/,
                                 void* /*stream*/)
    {
        throw error("mimo_channel_source: generate_device() needs a CUDA source; this "
                    "one runs on the CPU (use generate())");
    }
};

//! The source as a registered algorithm: make(setup, options, backend).
struct mimo_source_options {
    using code_type = mimo_setup;
    using product_type = mimo_channel_source;
    static constexpr const char* algorithm_name = "MIMO channel source";
    double noise_var = 0.1; //!< E|w_r|^2 (see mimo_noise_var_*)
    uint64_t seed = 0;
    //! Empty: a new i.i.d. Rayleigh H per frame; else one H for every frame (nr * nt
    //! entries, row-major).
    std::vector<cfloat> channel;
};

/*!
 * The CPU source; throws gpufec::error naming the allowed values for nt, nr outside
 * 1..8, nr < nt, coherence outside 1..65536, noise_var not finite and > 0, or a fixed
 * channel of the wrong size.
 */
std::unique_ptr<mimo_channel_source>
make_mimo_channel_source_cpu(const mimo_setup& setup, const mimo_source_options& options);

//! noise_var for Es/N0 in dB (Es = 1, the energy of one transmitted symbol).
double mimo_noise_var_esn0(double esn0_db);
//! noise_var for Eb/N0 in dB with `bits_per_symbol` coded bits per symbol and a code
//! of rate `rate` (1 uncoded): Es/N0 = Eb/N0 * bits_per_symbol * rate.
double mimo_noise_var_ebn0(double ebn0_db, int bits_per_symbol, double rate = 1.0);

namespace detail {
//! Checks a source's setup and options (the CPU and CUDA sources share it).
void check_mimo_source(const mimo_setup& setup, const mimo_source_options& options);
} // namespace detail

} // namespace gpufec

#endif
