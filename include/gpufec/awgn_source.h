/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// AWGN/BPSK channel source: random info bits -> encoder -> BPSK -> AWGN -> LLRs.
#ifndef INCLUDED_GPUFEC_AWGN_SOURCE_H
#define INCLUDED_GPUFEC_AWGN_SOURCE_H

#include <gpufec/batch_decoder.h>
#include <gpufec/common.h>
#include <gpufec/convolutional.h>
#include <gpufec/ldpc.h>
#include <functional>
#include <memory>
#include <string>

namespace gpufec {

/*!
 * Frame f (a 64-bit counter) is a pure function of (seed, f, Eb/N0), identical on the
 * CPU and CUDA backends (Philox4x32-10 counters, Box-Muller with portable arithmetic):
 *  - info bit i = bit (i % 32) of Philox word i/32 (stream 0);
 *  - noise for transmitted (post-puncturing) coded bit j from stream 1;
 *  - y = (1 - 2c) + sigma * n, sigma^2 = 1 / (2 R Eb/N0), R = code.rate();
 *  - LLR = 2 y / sigma^2.
 */
class awgn_bpsk_source
{
public:
    virtual ~awgn_bpsk_source() = default;
    virtual void set_ebn0_db(double ebn0_db) = 0;
    virtual double ebn0_db() const = 0;
    virtual backend_kind backend() const = 0;
    //! CUDA device of a CUDA source, -1 on the CPU.
    virtual int device() const { return -1; }
    //! Transmitted coded bits (LLRs) and info bits per frame.
    virtual size_t llrs_per_frame() const = 0;
    virtual size_t bits_per_frame() const = 0;
    /*!
     * Frames [first_frame, first_frame + num_frames) into host memory: `llrs` gets
     * num_frames * llrs_per_frame() floats, `info_bits` num_frames * bits_per_frame()
     * bytes (one bit per byte). Either pointer may be null to skip that output.
     */
    virtual void generate(uint64_t first_frame,
                          size_t num_frames,
                          float* llrs,
                          uint8_t* info_bits) = 0;
    /*!
     * CUDA sources: enqueues frames [first_frame, first_frame + num_frames) on `stream`
     * (a cudaStream_t; null = the default stream) into device memory of device(),
     * either pointer may be null, and returns at once. Thread-safe. CPU sources throw.
     */
    virtual void generate_device(uint64_t /*first_frame*/,
                                 size_t /*num_frames*/,
                                 float* /*llrs*/,
                                 uint8_t* /*info_bits*/,
                                 void* /*stream*/)
    {
        throw error("awgn_bpsk_source: generate_device() needs a CUDA source; this one "
                    "runs on the CPU (use generate())");
    }
    /*!
     * CUDA sources: as generate_device(), with the LLRs quantized on the device as
     * quantize_llrs() does with `llr_scale` (same bytes), so a quarter of the bytes
     * cross the bus. Frame f's num LLRs go to d_llrs + f * llr_stride (llr_stride >=
     * llrs_per_frame(): an engine's int8 slots pad frames to 4 bytes); d_scratch holds
     * num_frames * llrs_per_frame() floats of device memory the call may use until
     * the stream reaches it. CPU sources throw.
     */
    virtual void generate_device_int8(uint64_t /*first_frame*/,
                                      size_t /*num_frames*/,
                                      llr8_t* /*d_llrs*/,
                                      size_t /*llr_stride*/,
                                      float /*llr_scale*/,
                                      uint8_t* /*info_bits*/,
                                      float* /*d_scratch*/,
                                      void* /*stream*/)
    {
        throw error("awgn_bpsk_source: generate_device_int8() needs a CUDA source; this "
                    "one runs on the CPU (use generate_frame())");
    }
    //! CPU sources: bytes of scratch generate_frame() needs.
    virtual size_t frame_scratch_bytes() const { return 0; }
    /*!
     * CPU sources: frame `frame` alone, on the calling thread, into host memory (either
     * pointer may be null), with `scratch` of frame_scratch_bytes() bytes and no
     * allocation. Thread-safe. CUDA sources throw.
     */
    virtual void generate_frame(uint64_t /*frame*/,
                                float* /*llrs*/,
                                uint8_t* /*info_bits*/,
                                uint8_t* /*scratch*/) const
    {
        throw error("awgn_bpsk_source: generate_frame() needs a CPU source; this one "
                    "runs on CUDA (use generate() or generate_device())");
    }
};

//! The source of a convolutional code as a registered algorithm: make(code, options,
//! backend) from <gpufec/backends.h>; CPU and CUDA give the same frames.
struct awgn_source_options {
    using code_type = conv_code;
    using product_type = awgn_bpsk_source;
    static constexpr const char* algorithm_name = "awgn_bpsk_source";
    double ebn0_db = 3.0;
    uint64_t seed = 0;
};

std::unique_ptr<awgn_bpsk_source>
make_awgn_bpsk_source_cpu(const conv_code& code, const awgn_source_options& options);

//! Any code with one frame length, given by its (thread-safe) encoder.
struct frame_code {
    size_t info_bits = 0;
    size_t coded_bits = 0; //!< transmitted bits; R = info_bits / coded_bits
    std::function<void(const uint8_t* info, uint8_t* coded)> encode;
    std::string description; //!< for messages, e.g. "LTE turbo K=6144 ..."
    //! Set when the code is this NR LDPC code (`encode` must be its encode()): the
    //! CUDA source then runs that code's own encoder. Other codes' CUDA sources run
    //! `encode` as a generator matrix (lib/codes/affine_frame_map.h: the encoder must
    //! be affine over GF(2), as every encoder of this module is).
    std::shared_ptr<const nr_ldpc_code> nr_ldpc;
};

//! The source of any frame_code (turbo, LDPC, polar, ...), with the frame definition
//! above and `code.encode` as the encoder; on the CPU, and on CUDA for NR LDPC codes
//! (frame_code::nr_ldpc) and for any code whose encoder is affine and whose generator
//! fits (at most 64 MiB, K <= 32768: not DVB-S2 normal frames); "auto" takes CUDA for
//! those, and the CPU for the others.
struct awgn_frame_source_options {
    using code_type = frame_code;
    using product_type = awgn_bpsk_source;
    static constexpr const char* algorithm_name = "awgn_bpsk_source (block codes)";
    double ebn0_db = 3.0;
    uint64_t seed = 0;
};

std::unique_ptr<awgn_bpsk_source>
make_awgn_bpsk_source_cpu(const frame_code& code,
                          const awgn_frame_source_options& options);

/*!
 * The source as a batch stage for batch_engine (a producer: input_format::none): frame
 * f of a batch is frame number batch.ids[f] (the ids given to request_frames()), its
 * llrs_per_frame() float LLRs the llr_float output and its bits_per_frame() info bits
 * (one per byte) the side output. CPU sources spread frames over the engine's workers;
 * CUDA sources enqueue one kernel per run of consecutive frame numbers on the slot's
 * stream (and one quantizing kernel for int8 output, below), so with
 * engine_config::output_side = device nothing crosses the bus.
 * int8_scale > 0: llr_int8 output instead, quantized as quantize_llrs() with that
 * scale (the bytes that batch_engine::pop_frames() would make of the float output with
 * llr_scale = int8_scale), for consumers of int8 LLRs: on the CPU by each worker, on
 * CUDA on the device (generate_device_int8(), a quarter of the bytes over the bus);
 * 0: float output.
 */
std::shared_ptr<batch_decoder> make_source_stage(std::shared_ptr<awgn_bpsk_source> source,
                                                 float int8_scale = 0.0f);

//! Noise standard deviation for a code rate and Eb/N0 in dB.
double awgn_sigma(double rate, double ebn0_db);

} // namespace gpufec

#endif
