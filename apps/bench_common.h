/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-bench plumbing shared by the Viterbi bench (gpufec_bench.cc) and the block-code
// bench (bench_block_codes.cc): measured figures, the pool of noisy frames, the engine
// run loop, the one-thread decode-only case, interleaved timed runs, rate formatting,
// JSON writing and the date/CPU stamps.
#ifndef INCLUDED_GPUFEC_BENCH_COMMON_H
#define INCLUDED_GPUFEC_BENCH_COMMON_H

#include <gpufec/awgn_source.h>
#include <gpufec/batch_decoder.h>
#include <gpufec/engine.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace gpufec_bench {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t0);

//! Options every bench takes (same meaning for the Viterbi and the block codes).
struct run_options {
    bool use_float = true;
    bool use_int8 = true;
    double seconds = 0.5; //!< length of one timed run
    int runs = 5;         //!< timed runs per figure (the median is shown)
    int threads = 0;      //!< threads of the "all threads" rows
    double ebn0_db = 5.0;
    //! The warm-up check's limit: a decoder whose BER exceeds it fails the bench (its
    //! figures would be meaningless), unless the code does not decode better there.
    double check_ber = 0.05;
    uint64_t seed = 1;
    size_t batch_bits = 0; //!< information bits per engine batch, 0: the bench's default
    double pool_mib = 64;  //!< MiB of float LLRs in the frame pool
    bool grfec = true;
    std::string json;
};

//! One measured figure (a table cell).
struct result {
    std::string group;          //!< "viterbi", "source", "gpufec", "gr-fec"
    std::string label;          //!< row label
    std::string backend;        //!< "cpu x1", "cpu x8", "cuda:0"
    std::string path;           //!< "end-to-end", "decode-only", "kernel-only", ...
    std::string input;          //!< "float", "int8", "uchar", "-"
    std::string unit = "bit/s"; //!< "bit/s" (information bits) or "B/s"
    size_t info_bits = 0;       //!< information bits per frame
    std::vector<double> runs;   //!< one figure per timed run
    double ber = -1, fer = -1, iterations = -1; //!< warm-up check, -1: not measured
    double info_bits_per_s = 0;
    double median() const;
};

//! Warm-up statistics: bit and frame errors against the sent bits, iterations.
struct check_stats {
    uint64_t bits = 0, bit_errors = 0, frames = 0, frame_errors = 0, iterations = 0;
    void add(const uint8_t* decoded, const uint8_t* sent, size_t n, int iters);
    //! `n` bits packed MSB first.
    void add_packed(const uint8_t* packed, const uint8_t* sent, size_t n, int iters);
    double ber() const { return bits ? double(bit_errors) / double(bits) : 0.0; }
    //! ber, fer and mean iterations into `r`.
    void store(result& r) const;
};

//! Noisy frames of one code, generated once: float LLRs, the same quantized to int8 the
//! way the engine does it, and the transmitted information bits for checking.
struct frame_pool {
    size_t frames = 0, llrs_per_frame = 0, bits_per_frame = 0;
    float sigma = 0;
    std::vector<float> llrs;
    std::vector<gpufec::llr8_t> llrs8;
    std::vector<uint8_t> info_bits;
    const uint8_t* sent(size_t f) const { return info_bits.data() + f * bits_per_frame; }
};

//! About `pool_mib` MiB of float LLRs from `source` (at least `min_frames` frames),
//! quantized with the engine's default LLR scale.
frame_pool make_pool(gpufec::awgn_bpsk_source& source,
                     double pool_mib,
                     size_t min_frames,
                     float sigma);

/*!
 * Streams pool frames through the engine for `seconds`, or, when `check` is given,
 * exactly `check_frames` frames with every output compared to the sent bits. Submits
 * `int8_llrs` (pool-shaped int8 LLRs) where given, else the pool's floats. Returns
 * decoded information bits per second.
 */
double run_engine(gpufec::batch_engine& engine,
                  const frame_pool& pool,
                  const gpufec::llr8_t* int8_llrs,
                  double seconds,
                  size_t check_frames,
                  check_stats* check);

/*!
 * End-to-end figures of `decoder` through a batch_engine of `batch_frames` frames per
 * batch: one result per input type (float, int8) that `opt` asks for, each a copy of
 * `row` with input, the warm-up check and the timed runs filled in.
 */
void bench_engine(std::shared_ptr<gpufec::batch_decoder> decoder,
                  const frame_pool& pool,
                  size_t batch_frames,
                  int cpu_threads,
                  const result& row,
                  const run_options& opt,
                  std::vector<result>& results);

//! A figure measured one run at a time, so that figures meant to be compared take their
//! runs in turn and see the same machine load.
struct timed_case {
    result r;
    std::function<double()> run_once; //!< one timed run -> figure per second
};

//! Runs the cases `runs` times in turn, then appends their results (median filled in).
void run_interleaved(std::vector<timed_case>& cases,
                     int runs,
                     std::vector<result>& results);

/*!
 * batch_decoder::decode() on the pool's int8 LLRs on one thread, without the engine
 * (no staging copy, no quantization): the figure that compares directly with gr-fec's
 * generic_work(). `row` gives the labels; the warm-up checks the decoded bits.
 */
timed_case make_decode_only_case(std::unique_ptr<gpufec::batch_decoder> decoder,
                                 const frame_pool& pool,
                                 double seconds,
                                 const result& row);

//! A timed run of `seconds` that calls decode_frame(index) with index cycling over
//! `pool_frames` frames, one frame per call; returns information bits per second.
std::function<double()> frame_loop(std::function<void(size_t)> decode_frame,
                                   size_t pool_frames,
                                   size_t bits_per_frame,
                                   double seconds);

//! "12.3 Mb/s" for unit "bit/s", else the unit after the prefix ("1.2 GB/s", "3 Mvec/s").
std::string format_rate(double value, const std::string& unit = "bit/s");

std::string json_escape(const std::string& s);

//! The run's stamps: UTC date, CPU model, commit.
struct stamps {
    std::string date, cpu, commit;
};
std::string utc_now();
std::string cpu_model();
int hardware_threads();

//! The keys every JSON file starts with: tool, date, commit, cpu, cpu_threads.
void write_json_head(std::ostream& f, const stamps& s, int cpu_threads);

/*!
 * The keys every JSON file ends with: ebn0_db, seconds_per_run, runs, notes and the
 * results, each with label, group, backend, path, input, then what `row_keys` writes
 * (", \"key\": value" pairs), then its runs.
 */
void write_json_tail(std::ostream& f,
                     double ebn0_db,
                     const run_options& opt,
                     const std::vector<std::string>& notes,
                     const std::vector<result>& results,
                     const std::function<void(std::ostream&, const result&)>& row_keys);

// The AWGN/BPSK source's rows (group "source", unit B/s of LLRs and bits written,
// info_bits_per_s set): generate() into host memory; the source as an engine producer
// (make_source_stage, 4 slots, as the source block runs it) with its output popped to
// the host or left on the device (int8_scale > 0: int8 LLRs, as the source block's
// "byte" output); and, for CUDA sources, the kernel alone (generate_device, device
// events, 2^24 information bits a launch).
void bench_source_to_host(gpufec::awgn_bpsk_source& source,
                          const run_options& opt,
                          const std::string& backend_name,
                          std::vector<result>& results);
void bench_source_engine(std::shared_ptr<gpufec::awgn_bpsk_source> source,
                         const run_options& opt,
                         const std::string& backend_name,
                         gpufec::memory_side side,
                         std::vector<result>& results,
                         float int8_scale = 0.0f);
void bench_source_device_only(gpufec::awgn_bpsk_source& source,
                              const run_options& opt,
                              const std::string& backend_name,
                              std::vector<result>& results);

} // namespace gpufec_bench

#endif
