/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-bench: throughput of the Viterbi decoder (decoded information bits per second)
// and of the AWGN/BPSK source, on the CPU and CUDA backends, side by side with gr-fec's
// cc_decoder when built with GNU Radio. --code turbo|ldpc|ldpc-alist|polar benches the
// block-code decoders instead (bench_block_codes.cc).
//
// Method: inputs are noisy codewords from the AWGN source (random bits, never zeros),
// generated once per frame size into a pool that the timed loops cycle through; every
// configuration gets a warm-up pass (which also checks that the decoded bits match the
// transmitted ones), then --runs timed runs of --seconds each; the table shows the
// median run. End-to-end = host LLRs in, host bits out, through gpufec::batch_engine
// with its pipelined slots; kernel-only = CUDA events around the decode kernel with the
// data already on the device.
#include "bench_block_codes.h"
#include "bench_common.h"
#include "bench_mimo.h"

#include <gpufec/awgn_source.h>
#include <gpufec/backends.h>
#include <gpufec/convolutional.h>
#include <gpufec/engine.h>
#include <gpufec/viterbi.h>

#ifdef GPUFEC_HAVE_BOOST_PO
#include <boost/program_options.hpp>
#else
#include "program_options_lite.h"
#endif

#ifdef GPUFEC_HAVE_CUDA
#include "cuda/channel/awgn_source_cuda.h"
#include "cuda/common/cuda_utils.h"
#include "cuda/viterbi/viterbi_cuda.h"
#endif
#ifdef GPUFEC_HAVE_GNURADIO
#include <gnuradio/fec/cc_common.h>
#include <gnuradio/fec/cc_decoder.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpufec_git_commit.h" // generated at build time (apps/git_commit.cmake)
#ifndef GPUFEC_GIT_COMMIT
#define GPUFEC_GIT_COMMIT "unknown"
#endif

#ifdef GPUFEC_HAVE_BOOST_PO
namespace po = boost::program_options;
#else
namespace po = gpufec::lite_po;
#endif
namespace {

using namespace gpufec_bench;

//! The shared options (run_options) and the Viterbi bench's own.
struct options : run_options {
    std::string backend = "all";
    std::vector<int> frame_sizes;
    int device = 0;
    int k = 7;
    std::vector<int> polys;
    std::string termination = "terminated";
    std::string puncture;
    bool source = true;
    //! --code and the block-code options; code "conv" runs the Viterbi bench.
    gpufec_bench::block_options block;
    //! --code mimo (or --mimo): the MIMO detectors and channel source.
    gpufec_bench::mimo_options mimo;
};

std::vector<int> parse_int_list(const std::string& text, int base, const char* what)
{
    std::vector<int> values;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item.empty())
            continue;
        size_t used = 0;
        int v = 0;
        try {
            v = std::stoi(item, &used, base);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != item.size())
            throw gpufec::error(std::string("bad ") + what + " \"" + item + "\" in \"" +
                                text + "\"");
        values.push_back(v);
    }
    if (values.empty())
        throw gpufec::error(std::string("empty ") + what + " list");
    return values;
}

frame_pool make_conv_pool(const gpufec::conv_code& code, const options& opt)
{
    auto source =
        gpufec::make(code, gpufec::awgn_source_options{ opt.ebn0_db, opt.seed }, "cpu");
    const float sigma = float(gpufec::awgn_sigma(code.rate(), opt.ebn0_db));
    return make_pool(*source, opt.pool_mib, 1, sigma);
}

size_t default_batch_bits(gpufec::backend_kind kind)
{
    // CPU: a few ms of work per batch and thread; CUDA: enough windows (2^26 / 512) to
    // fill an H100 several times over (132 SMs x 384 resident threads per wave).
    return kind == gpufec::backend_kind::cuda ? (size_t(1) << 26) : (size_t(1) << 18);
}

struct engine_case {
    std::string label;
    std::string backend_name;
    gpufec::backend_spec spec;
    int cpu_threads;
};

void bench_engine_case(const gpufec::conv_code& code,
                       const frame_pool& pool,
                       const engine_case& c,
                       const options& opt,
                       std::vector<result>& results)
{
    const size_t batch_bits =
        opt.batch_bits ? opt.batch_bits : default_batch_bits(c.spec.kind);
    result row;
    row.group = "viterbi";
    row.label = "viterbi " + c.label + " end-to-end";
    row.backend = c.backend_name;
    row.path = "end-to-end";
    row.info_bits = size_t(code.frame_bits());
    bench_engine(
        gpufec::make_decoder(
            code, gpufec::viterbi_options{}, gpufec::backend_string(c.spec)),
        pool,
        std::max<size_t>(1, (batch_bits + code.frame_bits() - 1) / code.frame_bits()),
        c.cpu_threads,
        row,
        opt,
        results);
}

/*!
 * The CPU decoder alone on one thread: batch_decoder::decode() on int8 LLRs in host
 * memory, without the engine (no staging copy, no quantization). The CPU counterpart of
 * kernel-only, and the figure that compares directly with gr-fec's generic_work().
 */
timed_case make_cpu_decode_only_case(const gpufec::conv_code& code,
                                     const frame_pool& pool,
                                     const options& opt)
{
    result row;
    row.group = "viterbi";
    row.label = "viterbi cpu x1 decode-only";
    row.backend = "cpu x1";
    row.path = "decode-only";
    row.input = "int8";
    row.info_bits = size_t(code.frame_bits());
    return make_decode_only_case(
        gpufec::make_viterbi_decoder_cpu(code), pool, opt.seconds, row);
}

#ifdef GPUFEC_HAVE_CUDA
void bench_cuda_kernel(const gpufec::conv_code& code,
                       const options& opt,
                       const std::string& backend_name,
                       std::vector<result>& results)
{
    const size_t batch_bits =
        opt.batch_bits ? opt.batch_bits : default_batch_bits(gpufec::backend_kind::cuda);
    const size_t frames = std::max<size_t>(1, batch_bits / code.frame_bits());
    const int reps = std::max(opt.runs, 10);
    const auto timing = gpufec::cuda::time_viterbi_kernel(code, opt.device, frames, reps);
    result r;
    r.group = "viterbi";
    r.label = "viterbi " + backend_name + " kernel-only";
    r.backend = backend_name;
    r.path = "kernel-only";
    r.input = "int8";
    r.unit = "bit/s";
    r.info_bits = size_t(code.frame_bits());
    r.runs.push_back(timing.info_bits / (timing.median_ms * 1e-3));
    r.info_bits_per_s = r.runs.back();
    results.push_back(r);

    // The paper's tensor-core radix-4 formulation (K=7 rate 1/2 only), same windows.
    if (gpufec::cuda::viterbi_tc_supports(code)) {
        const auto tc =
            gpufec::cuda::time_viterbi_tc_kernel(code, opt.device, frames, reps);
        result t = r;
        t.label = "viterbi " + backend_name + " kernel-only tensor-core";
        t.path = "kernel-only-tc";
        t.runs.assign(1, tc.info_bits / (tc.median_ms * 1e-3));
        t.info_bits_per_s = t.runs.back();
        results.push_back(t);
    }
}

//! Peak DRAM bandwidth in bytes/s from the memory clock (kHz, double data rate) and
//! bus width.
double peak_memory_bandwidth(int device)
{
    int clock_khz = 0, bus_bits = 0;
    GPUFEC_CUDA_CHECK(
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device));
    GPUFEC_CUDA_CHECK(
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    return 2.0 * clock_khz * 1e3 * bus_bits / 8.0;
}
#endif

#ifdef GPUFEC_HAVE_GNURADIO
/*!
 * gr-fec's cc_decoder on one thread. Its generic_work() takes one unsigned char per
 * coded bit: 128 + 48*y for a BPSK symbol y that is +1 for coded bit 1 (its branch
 * table expects 255 for a 1), saturated to 0..255 -- what gr-fec's extended decoder
 * produces from floats (multiply by 48, add 128, float_to_uchar). With our LLR
 * L = 2y'/sigma^2 and our BPSK 0 -> +1 (y' = -y), the symbol is 128 - 24 sigma^2 L.
 * Polynomials: gr-fec's are ours bit-reversed over K, in the same order.
 */
bool grfec_supports(const gpufec::conv_code& code, std::string* why)
{
    if (code.k() != 7 || code.n() != 2 || code.punctured()) {
        *why = "gr-fec cc_decoder: only K=7 rate 1/2 unpunctured (its VOLK kernel)";
        return false;
    }
    return true;
}

std::vector<int> grfec_polys(const gpufec::conv_code& code)
{
    std::vector<int> out;
    for (int p : code.polys()) {
        int r = 0;
        for (int i = 0; i < code.k(); ++i)
            r |= ((p >> i) & 1) << (code.k() - 1 - i);
        out.push_back(r);
    }
    return out;
}

//! 128 + 48 y rounded (half up) and saturated to 0..255; branch-free so the per-frame
//! conversion loop vectorizes like VOLK's would.
inline uint8_t grfec_symbol(float gr_convention_y)
{
    const float v = std::min(255.0f, std::max(0.0f, 128.5f + 48.0f * gr_convention_y));
    return uint8_t(int(v));
}

std::vector<timed_case> make_grfec_cases(const gpufec::conv_code& code,
                                         const frame_pool& pool,
                                         const options& opt)
{
    struct state {
        gr::fec::generic_decoder::sptr decoder;
        size_t in_items = 0;
        std::vector<float> y;         //!< gr-fec convention soft symbols
        std::vector<uint8_t> symbols; //!< the same as gr-fec's unsigned char input
        std::vector<uint8_t> out, converted;
    };
    const int fb = code.frame_bits();
    cc_mode_t mode = CC_TERMINATED;
    if (code.term() == gpufec::termination::truncated)
        mode = CC_TRUNCATED;
    else if (code.term() == gpufec::termination::tail_biting)
        mode = CC_TAILBITING;
    auto st = std::make_shared<state>();
    st->decoder = gr::fec::code::cc_decoder::make(
        fb, code.k(), code.n(), grfec_polys(code), 0, -1, mode, false);
    st->in_items = size_t(st->decoder->get_input_size());
    if (st->in_items != pool.llrs_per_frame)
        throw gpufec::error("gr-fec cc_decoder wants " + std::to_string(st->in_items) +
                            " symbols per frame, our code has " +
                            std::to_string(pool.llrs_per_frame));
    // gr-fec's soft symbols: y = -L sigma^2 / 2 (gr-fec BPSK: coded 1 -> +1).
    const float to_y = -pool.sigma * pool.sigma / 2.0f;
    st->y.resize(pool.llrs.size());
    st->symbols.resize(pool.llrs.size());
    for (size_t i = 0; i < st->y.size(); ++i) {
        st->y[i] = pool.llrs[i] * to_y;
        st->symbols[i] = grfec_symbol(st->y[i]);
    }
    st->out.resize(size_t(st->decoder->get_output_size()) + 8);
    st->converted.resize(st->in_items);

    std::vector<timed_case> cases;
    for (int with_conversion = 0; with_conversion < 2; ++with_conversion) {
        if ((with_conversion && !opt.use_float) || (!with_conversion && !opt.use_int8))
            continue;
        auto decode_frame = [st, with_conversion](size_t index) {
            if (with_conversion) {
                const float* src = st->y.data() + index * st->in_items;
                for (size_t i = 0; i < st->in_items; ++i)
                    st->converted[i] = grfec_symbol(src[i]);
                st->decoder->generic_work(st->converted.data(), st->out.data());
            } else {
                st->decoder->generic_work(st->symbols.data() + index * st->in_items,
                                          st->out.data());
            }
        };
        timed_case c;
        c.r.group = "gr-fec";
        c.r.label = with_conversion ? "gr-fec cc_decoder x1 (+float->uchar)"
                                    : "gr-fec cc_decoder x1";
        c.r.backend = "cpu x1";
        c.r.path = "decode-only";
        c.r.input = with_conversion ? "float" : "uchar";
        c.r.unit = "bit/s";
        c.r.info_bits = size_t(fb);
        // Warm-up and check against the transmitted bits.
        check_stats check;
        const size_t check_frames =
            std::min<size_t>(pool.frames, std::max(4, (1 << 16) / fb));
        for (size_t f = 0; f < check_frames; ++f) {
            decode_frame(f);
            check.add(st->out.data(), pool.sent(f), size_t(fb), 1);
        }
        c.r.ber = check.ber();
        c.run_once = frame_loop(decode_frame, pool.frames, size_t(fb), opt.seconds);
        cases.push_back(std::move(c));
    }
    return cases;
}
#endif

struct run_info {
    stamps stamp;
    std::string gpu, code;
    double peak_bandwidth = 0; //!< bytes/s of the GPU's memory, 0 without GPU
    std::vector<std::string> notes;
};

void write_json(const std::string& path,
                const run_info& info,
                const options& opt,
                const std::vector<result>& results)
{
    std::ofstream f(path);
    if (!f)
        throw gpufec::error("cannot write " + path);
    write_json_head(f, info.stamp, opt.threads);
    f << "  \"gpu\": \"" << json_escape(info.gpu) << "\",\n";
    f << "  \"gpu_peak_memory_bandwidth_Bps\": " << info.peak_bandwidth << ",\n";
    f << "  \"code\": \"" << json_escape(info.code) << "\",\n";
    write_json_tail(
        f, opt.ebn0_db, opt, info.notes, results, [](std::ostream& o, const result& r) {
            o << ", \"frame_bits\": " << r.info_bits << ", \"unit\": \"" << r.unit
              << "\", \"median\": " << r.median()
              << ", \"info_bits_per_s\": " << r.info_bits_per_s
              << ", \"check_ber\": " << r.ber;
        });
}

void print_table(const run_info& info,
                 const options& opt,
                 const std::vector<result>& results)
{
    std::cout << "gpufec-bench " << info.stamp.date << "  commit " << info.stamp.commit
              << "\n"
              << "CPU: " << info.stamp.cpu << " (" << opt.threads
              << " threads)   GPU: " << info.gpu << "\n"
              << "code: " << info.code << "; LLRs from the AWGN source at " << opt.ebn0_db
              << " dB; median of " << opt.runs << " runs x " << opt.seconds << " s\n\n";
    // Rows in first-seen order, one column per frame size.
    std::vector<std::pair<std::string, std::string>> rows; // (label, input)
    for (const result& r : results) {
        auto key = std::make_pair(r.label, r.input);
        if (std::find(rows.begin(), rows.end(), key) == rows.end())
            rows.push_back(key);
    }
    const int label_w = 40, input_w = 6, cell_w = 12;
    std::cout << std::left << std::setw(label_w) << "frame size (info bits)"
              << std::setw(input_w) << "input";
    for (int fb : opt.frame_sizes)
        std::cout << std::right << std::setw(cell_w) << fb;
    std::cout << "\n";
    std::string group;
    for (const auto& row : rows) {
        const result* first = nullptr;
        for (const result& r : results)
            if (r.label == row.first && r.input == row.second) {
                first = &r;
                break;
            }
        if (first->group == "source" && group != "source")
            std::cout
                << "AWGN source (bytes written per second: float LLRs + bit bytes)\n";
        else if (first->group != "source" && group.empty())
            std::cout << "Viterbi decoder (decoded information bits per second)\n";
        group = first->group;
        std::cout << std::left << std::setw(label_w) << row.first << std::setw(input_w)
                  << row.second;
        for (int fb : opt.frame_sizes) {
            std::string cell = "-";
            for (const result& r : results)
                if (r.label == row.first && r.input == row.second &&
                    r.info_bits == size_t(fb))
                    cell = format_rate(r.median(), r.unit);
            std::cout << std::right << std::setw(cell_w) << cell;
        }
        std::cout << "\n";
    }
    // Our CPU decoder on one core against gr-fec's, per frame size.
    struct ratio_row {
        const char* title;
        const char* ours;
        const char* input;
        const char* theirs;
    };
    const ratio_row ratio_rows[] = {
        { "ratio decode-only / gr-fec",
          "viterbi cpu x1 decode-only",
          "int8",
          "gr-fec cc_decoder x1" },
        { "ratio cpu x1 int8 / gr-fec",
          "viterbi cpu x1 end-to-end",
          "int8",
          "gr-fec cc_decoder x1" },
        { "ratio cpu x1 float / gr-fec(+conv)",
          "viterbi cpu x1 end-to-end",
          "float",
          "gr-fec cc_decoder x1 (+float->uchar)" },
    };
    for (const ratio_row& row : ratio_rows) {
        const std::string ours = row.ours, input = row.input, theirs = row.theirs;
        std::ostringstream line;
        bool any = false;
        for (int fb : opt.frame_sizes) {
            double a = 0, b = 0;
            for (const result& r : results) {
                if (r.info_bits != size_t(fb))
                    continue;
                if (r.label == ours && r.input == input)
                    a = r.median();
                if (r.label == theirs)
                    b = r.median();
            }
            std::ostringstream cell;
            if (a > 0 && b > 0) {
                cell << std::fixed << std::setprecision(2) << a / b << "x";
                any = true;
            } else {
                cell << "-";
            }
            line << std::right << std::setw(cell_w) << cell.str();
        }
        if (any)
            std::cout << std::left << std::setw(label_w) << row.title
                      << std::setw(input_w) << "" << line.str() << "\n";
    }
    if (info.peak_bandwidth > 0) {
        for (const result& r : results)
            if (r.path == "device-only" && r.info_bits == size_t(opt.frame_sizes.back()))
                std::cout << "source device-only at " << r.info_bits
                          << " bits: " << std::fixed << std::setprecision(1)
                          << 100.0 * r.median() / info.peak_bandwidth
                          << "% of the GPU's peak memory bandwidth ("
                          << format_rate(info.peak_bandwidth, "B/s") << ")\n";
    }
    for (const std::string& note : info.notes)
        std::cout << "note: " << note << "\n";
}

options parse_options(int argc, char** argv, bool& help)
{
    options opt;
    std::string frame_sizes = "256,1024,4096,16384,65536";
    std::string input = "both", polys = "171,133", source = "on", grfec = "on";
    std::string crc24b = "off", early_termination = "on";
    opt.block.code = "conv";
    po::options_description desc(
        "gpufec-bench: Viterbi decoder and AWGN source throughput.\n"
        "Decoder figures are decoded information bits per second: end-to-end (host\n"
        "memory in and out, through the batching engine) on the CPU with 1 and all\n"
        "threads and on CUDA, plus CUDA kernel-only; gr-fec's cc_decoder on one thread\n"
        "when built with GNU Radio. --code turbo|ldpc|ldpc-alist|polar|uci: that code's\n"
        "CPU decoders instead (1 and all threads, decode-only; gr-fec's polar SC/SCL "
        "and\n"
        "alist LDPC decoders alongside; uci: its CUDA decoder end-to-end too). Options");
    // clang-format off
    desc.add_options()
        ("help,h", "this help")
        ("backend", po::value(&opt.backend)->default_value(opt.backend),
         "cpu | cuda | all (all: CUDA too when a device exists; cuda: the GPU rows only)")
        ("frame-sizes", po::value(&frame_sizes)->default_value(frame_sizes),
         "comma-separated frame lengths in information bits")
        ("frames-sizes", po::value(&frame_sizes), "alias of --frame-sizes")
        ("input", po::value(&input)->default_value(input), "float | int8 | both")
        ("seconds", po::value(&opt.seconds)->default_value(opt.seconds),
         "length of one timed run")
        ("runs", po::value(&opt.runs)->default_value(opt.runs),
         "timed runs per figure (the median is shown)")
        ("threads", po::value(&opt.threads)->default_value(0),
         "CPU threads of the 'all threads' rows (0: hardware threads)")
        ("device", po::value(&opt.device)->default_value(opt.device), "CUDA device")
        ("k", po::value(&opt.k)->default_value(opt.k), "constraint length 3..9")
        ("polys", po::value(&polys)->default_value(polys),
         "generator polynomials in octal, standard convention (MSB taps the newest bit)")
        ("termination", po::value(&opt.termination)->default_value(opt.termination),
         "terminated | truncated | tail_biting")
        ("puncture", po::value(&opt.puncture)->default_value(""),
         "\"\", 2/3, 3/4, 5/6, 7/8 or a keep-mask such as 110110")
        ("ebn0", po::value(&opt.ebn0_db)->default_value(opt.ebn0_db),
         "Eb/N0 (dB) of the input frames; the warm-up checks the decoded BER")
        ("check-ber", po::value(&opt.check_ber)->default_value(opt.check_ber),
         "the warm-up check's BER limit (above it the bench fails): raise it only where "
         "the code itself decodes no better at this Eb/N0")
        ("seed", po::value(&opt.seed)->default_value(opt.seed), "source seed")
        ("batch-bits", po::value(&opt.batch_bits)->default_value(0),
         "information bits per engine batch (0: 2^18 CPU, 2^26 CUDA)")
        ("pool-mib", po::value(&opt.pool_mib)->default_value(opt.pool_mib),
         "MiB of float LLRs generated per frame size and cycled through")
        ("source", po::value(&source)->default_value(source), "on | off: time the AWGN source")
        ("grfec", po::value(&grfec)->default_value(grfec),
         "on | off: time gr-fec's cc_decoder (needs a GNU Radio build)")
        ("json", po::value(&opt.json), "also write every figure to this JSON file")
        ("code", po::value(&opt.block.code)->default_value(opt.block.code),
         "conv | turbo | ldpc | ldpc-alist | polar | dci-search | mimo (conv: the Viterbi bench above; "
         "mimo: the MIMO detectors; the others: that code's decoders, default --ebn0 "
         "1.5 / 2 / 3 / 3 dB)")
        ("turbo-k", po::value(&opt.block.turbo_k)->default_value(opt.block.turbo_k),
         "LTE turbo block size K (40..6144, a QPP size)")
        ("crc24b", po::value(&crc24b)->default_value(crc24b),
         "on | off: turbo code with CRC24B (early termination on the CRC)")
        ("sub-blocks", po::value(&opt.block.sub_blocks)->default_value(opt.block.sub_blocks),
         "turbo sub-decoders (windows) per code block")
        ("schedule", po::value(&opt.block.turbo_schedule)->default_value(opt.block.turbo_schedule),
         "turbo schedule of the CUDA rows: synchronised | loose")
        ("turbo-e", po::value(&opt.block.turbo_e)->default_value(opt.block.turbo_e),
         "turbo rate matching to E bits (0: none, the 3K + 12 stream bits)")
        ("turbo-rv", po::value(&opt.block.turbo_rv)->default_value(opt.block.turbo_rv),
         "turbo redundancy version 0..3 (with --turbo-e)")
        ("ldpc-bg", po::value(&opt.block.ldpc_bg)->default_value(opt.block.ldpc_bg),
         "NR LDPC base graph 1 | 2")
        ("ldpc-z", po::value(&opt.block.ldpc_z)->default_value(opt.block.ldpc_z),
         "NR LDPC lifting size Z")
        ("ldpc-k", po::value(&opt.block.ldpc_k)->default_value(opt.block.ldpc_k),
         "NR LDPC information bits (0: K_b Z)")
        ("ldpc-e", po::value(&opt.block.ldpc_e)->default_value(opt.block.ldpc_e),
         "NR LDPC transmitted bits (0: the whole codeword after puncturing)")
        ("alist", po::value(&opt.block.alist), "alist file of --code ldpc-alist")
        ("dvbs2-frame", po::value(&opt.block.dvbs2_frame)->default_value(opt.block.dvbs2_frame),
         "normal | short: frame of --code dvbs2")
        ("dvbs2-rate", po::value(&opt.block.dvbs2_rate)->default_value(opt.block.dvbs2_rate),
         "rate of --code dvbs2, e.g. 1/2, 3/4")
        ("polar-k", po::value(&opt.block.polar_k)->default_value(opt.block.polar_k),
         "NR polar payload bits")
        ("polar-e", po::value(&opt.block.polar_e)->default_value(opt.block.polar_e),
         "NR polar transmitted bits")
        ("polar-crc", po::value(&opt.block.polar_crc)->default_value(opt.block.polar_crc),
         "crc11 | crc24c | crc6 | none")
        ("dci-k", po::value(&opt.block.dci_k)->default_value(opt.block.dci_k),
         "dci-search: DCI payload bits (12..140)")
        ("dci-levels", po::value(&opt.block.dci_levels)->default_value(opt.block.dci_levels),
         "dci-search: aggregation levels, e.g. 1,2,4,8,16 (N = 512 from 4 up)")
        ("dci-rntis", po::value(&opt.block.dci_rntis)->default_value(opt.block.dci_rntis),
         "dci-search: monitored RNTIs")
        ("dci-batches", po::value(&opt.block.dci_batches)->default_value(opt.block.dci_batches),
         "dci-search: candidates per launch of the kernel-only rows, e.g. 131072,44,1")
        ("uci-k", po::value(&opt.block.uci_k)->default_value(opt.block.uci_k),
         "NR UCI small-block payload bits, 1..11")
        ("uci-e", po::value(&opt.block.uci_e)->default_value(opt.block.uci_e),
         "NR UCI small-block transmitted bits")
        ("uci-qm", po::value(&opt.block.uci_qm)->default_value(opt.block.uci_qm),
         "NR UCI modulation order Q_m (1, 2, 4, 6, 8)")
        ("algorithm", po::value(&opt.block.algorithm),
         "comma list of decoder algorithms (turbo: max-log-map, scaled-max-log-map "
         "[default]; ldpc: normalized [default], offset; polar: sc,fast-ssc,scl,fast-scl,sc-first-scl,sc-first-fast-scl,bp "
         "[default sc,scl,bp])")
        ("arithmetic", po::value(&opt.block.arithmetic),
         "comma list (turbo: int8,int16,float [default all]; ldpc: int8,float [default "
         "both])")
        ("iterations", po::value(&opt.block.iterations)->default_value(0),
         "turbo / LDPC / polar BP iterations (0: the decoder's default 6 / 10 / 50)")
        ("list-size", po::value(&opt.block.list_size)->default_value(opt.block.list_size),
         "polar SCL list size (ours and gr-fec's)")
        ("early-termination", po::value(&early_termination)->default_value(early_termination),
         "on | off: turbo (with CRC24B), LDPC and polar BP early stop")
        ("mimo", "the MIMO detectors and channel source (same as --code mimo)")
        ("mimo-nt", po::value(&opt.mimo.nt)->default_value(opt.mimo.nt),
         "MIMO transmit antennas")
        ("mimo-nr", po::value(&opt.mimo.nr)->default_value(opt.mimo.nr),
         "MIMO receive antennas")
        ("modulation", po::value(&opt.mimo.modulation)->default_value(opt.mimo.modulation),
         "MIMO constellation: bpsk | qpsk | 16qam | 64qam | 256qam")
        ("coherence", po::value(&opt.mimo.coherence)->default_value(opt.mimo.coherence),
         "MIMO received vectors per channel matrix")
        ("esn0", po::value(&opt.mimo.esn0_db)->default_value(opt.mimo.esn0_db),
         "MIMO Es/N0 (dB) of the source frames");
    // clang-format on
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
#ifdef GPUFEC_HAVE_BOOST_PO
    opt.block.ebn0_given = vm.count("ebn0") && !vm["ebn0"].defaulted();
#else
    opt.block.ebn0_given = vm.count("ebn0") > 0;
#endif
    help = vm.count("help") > 0;
    if (vm.count("mimo"))
        opt.block.code = "mimo";
    if (help) {
        std::cout << desc << "\n";
        return opt;
    }
    if (opt.backend != "cpu" && opt.backend != "cuda" && opt.backend != "all")
        throw gpufec::error("--backend must be cpu, cuda or all, got \"" + opt.backend +
                            "\"");
    if (input != "float" && input != "int8" && input != "both")
        throw gpufec::error("--input must be float, int8 or both, got \"" + input + "\"");
    opt.use_float = input != "int8";
    opt.use_int8 = input != "float";
    auto on_off = [](const std::string& v, const char* name) {
        if (v != "on" && v != "off")
            throw gpufec::error(std::string("--") + name + " must be on or off, got \"" +
                                v + "\"");
        return v == "on";
    };
    opt.source = on_off(source, "source");
    opt.block.source = opt.source;
    opt.grfec = on_off(grfec, "grfec");
    opt.block.crc24b = on_off(crc24b, "crc24b");
    opt.block.early_termination = on_off(early_termination, "early-termination");
    opt.frame_sizes = parse_int_list(frame_sizes, 10, "frame size");
    opt.polys = parse_int_list(polys, 8, "octal polynomial");
    if (!(opt.seconds > 0) || opt.runs < 1)
        throw gpufec::error("--seconds must be > 0 and --runs >= 1");
    if (opt.threads <= 0)
        opt.threads = hardware_threads();
    return opt;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        bool help = false;
        options opt = parse_options(argc, argv, help);
        if (help)
            return 0;

        run_info info;
        info.stamp = { utc_now(), cpu_model(), GPUFEC_GIT_COMMIT };
        if (opt.block.code == "mimo") {
            gpufec_bench::mimo_options& m = opt.mimo;
            static_cast<run_options&>(m) = opt;
            m.stamp = info.stamp;
            if (!opt.block.algorithm.empty())
                m.algorithms = opt.block.algorithm;
            const bool have_cuda = gpufec::cuda_device_count() > opt.device;
            if (opt.backend == "cuda" && !have_cuda)
                throw gpufec::error("--backend cuda: no CUDA device " +
                                    std::to_string(opt.device));
            if (opt.backend != "cpu" && have_cuda) {
                m.cuda_backend = "cuda:" + std::to_string(opt.device);
                m.gpu = gpufec::cuda_device_description(opt.device);
            }
            return gpufec_bench::run_mimo_bench(m);
        }
        if (opt.block.code != "conv") {
            // Block codes: CPU decoders, and the CUDA ones of the codes that have one.
            const bool has_cuda_decoder =
                opt.block.code == "uci" || opt.block.code == "ldpc" ||
                opt.block.code == "polar" || opt.block.code == "ldpc-alist" ||
                opt.block.code == "dvbs2" || opt.block.code == "turbo" ||
                opt.block.code == "dci-search";
            if (opt.backend == "cuda" && !has_cuda_decoder)
                throw gpufec::error("--code " + opt.block.code +
                                    ": only the CPU backend has these decoders; use "
                                    "--backend cpu or all");
            const bool have_cuda = gpufec::cuda_device_count() > opt.device;
            if (opt.backend == "cuda" && !have_cuda)
                throw gpufec::error("--backend cuda: no CUDA device " +
                                    std::to_string(opt.device) +
                                    "; use --backend cpu or all");
            if (has_cuda_decoder && opt.backend != "cpu" && have_cuda)
                opt.block.cuda_backend = "cuda:" + std::to_string(opt.device);
            gpufec_bench::block_options& b = opt.block;
            static_cast<run_options&>(b) = opt;
            b.stamp = info.stamp;
            b.cpu_rows = opt.backend != "cuda";
            if (b.code == "dci-search")
                return gpufec_bench::run_dci_search_bench(b);
            return gpufec_bench::run_block_code_bench(b);
        }
        const bool want_cuda = opt.backend != "cpu";
        const bool have_cuda = gpufec::cuda_device_count() > opt.device;
        if (opt.backend == "cuda" && !have_cuda)
            throw gpufec::error("--backend cuda: no CUDA device " +
                                std::to_string(opt.device) + " (" +
                                std::to_string(gpufec::cuda_device_count()) +
                                " found); use --backend cpu or all");
        const bool run_cuda = want_cuda && have_cuda;
        const bool run_cpu = opt.backend != "cuda";
        info.gpu = run_cuda ? gpufec::cuda_device_description(opt.device) : "none used";
        if (want_cuda && !have_cuda)
            info.notes.push_back("no CUDA device: CUDA rows skipped");
#ifdef GPUFEC_HAVE_CUDA
        if (run_cuda)
            info.peak_bandwidth = peak_memory_bandwidth(opt.device);
#endif
        const gpufec::termination term = gpufec::parse_termination(opt.termination);
        info.code = gpufec::conv_code(
                        opt.frame_sizes.front(), opt.k, opt.polys, term, opt.puncture)
                        .describe();
        // describe() names the first frame size; the table has one column per size.
        const auto frame_pos = info.code.find(" frame=");
        if (frame_pos != std::string::npos)
            info.code.erase(frame_pos);

        const std::string cuda_name = "cuda:" + std::to_string(opt.device);
        std::vector<engine_case> cases;
        if (run_cpu) {
            cases.push_back({ "cpu x1", "cpu x1", gpufec::resolve_backend("cpu"), 1 });
            if (opt.threads > 1)
                cases.push_back({ "cpu x" + std::to_string(opt.threads),
                                  "cpu x" + std::to_string(opt.threads),
                                  gpufec::resolve_backend("cpu"),
                                  opt.threads });
        }
        if (run_cuda)
            cases.push_back(
                { cuda_name, cuda_name, gpufec::resolve_backend(cuda_name), 0 });

        std::vector<result> results;
        [[maybe_unused]] bool grfec_noted = false;
        for (int fb : opt.frame_sizes) {
            const gpufec::conv_code code(fb, opt.k, opt.polys, term, opt.puncture);
            std::cerr << "[bench] frame " << fb << " bits: generating frames\n";
            const frame_pool pool = make_conv_pool(code, opt);
            for (const engine_case& c : cases) {
                std::cerr << "[bench] frame " << fb << " bits: viterbi " << c.label
                          << "\n";
                bench_engine_case(code, pool, c, opt, results);
                if (c.label != "cpu x1")
                    continue;
                // One-thread decoders side by side, their runs interleaved.
                std::vector<timed_case> side_by_side;
                if (opt.use_int8)
                    side_by_side.push_back(make_cpu_decode_only_case(code, pool, opt));
#ifdef GPUFEC_HAVE_GNURADIO
                if (opt.grfec) {
                    std::string why;
                    if (grfec_supports(code, &why)) {
                        std::cerr << "[bench] frame " << fb
                                  << " bits: decode-only vs gr-fec cc_decoder\n";
                        for (timed_case& g : make_grfec_cases(code, pool, opt))
                            side_by_side.push_back(std::move(g));
                    } else if (!grfec_noted) {
                        info.notes.push_back(why);
                        grfec_noted = true;
                    }
                }
#endif
                run_interleaved(side_by_side, opt.runs, results);
            }
#ifdef GPUFEC_HAVE_CUDA
            if (run_cuda) {
                std::cerr << "[bench] frame " << fb << " bits: viterbi kernel-only\n";
                bench_cuda_kernel(code, opt, cuda_name, results);
            }
#endif
            if (opt.source) {
                std::cerr << "[bench] frame " << fb << " bits: source\n";
                auto make_source = [&](const std::string& backend) {
                    return std::shared_ptr<gpufec::awgn_bpsk_source>(
                        gpufec::make(code,
                                     gpufec::awgn_source_options{ opt.ebn0_db, opt.seed },
                                     backend));
                };
                if (run_cpu) {
                    auto cpu = make_source("cpu");
                    bench_source_to_host(*cpu, opt, "cpu", results);
                    bench_source_engine(
                        cpu, opt, "cpu", gpufec::memory_side::host, results);
                }
                if (run_cuda) {
                    auto gpu = make_source(cuda_name);
                    bench_source_to_host(*gpu, opt, cuda_name, results);
                    bench_source_engine(
                        gpu, opt, cuda_name, gpufec::memory_side::host, results);
                    bench_source_engine(
                        gpu, opt, cuda_name, gpufec::memory_side::host, results, 8.0f);
                    bench_source_engine(
                        gpu, opt, cuda_name, gpufec::memory_side::device, results);
                    bench_source_device_only(*gpu, opt, cuda_name, results);
                }
            }
        }
#ifndef GPUFEC_HAVE_GNURADIO
        if (opt.grfec && run_cpu)
            info.notes.push_back("built without GNU Radio: no gr-fec comparison");
#else
        info.notes.push_back("gr-fec rows: generic_work() on unsigned char symbols "
                             "128 - 24 sigma^2 L (128 + 48 y, coded 1 -> y = +1), its "
                             "polynomials ours bit-reversed");
#endif

        // Sanity: decoders that do not decode at this Eb/N0 make the figures meaningless.
        const double ber_limit = opt.check_ber;
        bool sane = true;
        for (const result& r : results) {
            if (r.ber > ber_limit) {
                info.notes.push_back("CHECK FAILED: " + r.label + " (" + r.input + ", " +
                                     std::to_string(r.info_bits) +
                                     " bits) decoded with BER " + std::to_string(r.ber) +
                                     " at " + std::to_string(opt.ebn0_db) + " dB");
                sane = false;
            }
        }
        double worst = 0;
        for (const result& r : results)
            worst = std::max(worst, r.ber);
        if (sane) {
            std::ostringstream s;
            s << "check: every decoder's warm-up output matched the sent bits (worst BER "
              << worst << " at " << opt.ebn0_db << " dB)";
            info.notes.push_back(s.str());
        }

        print_table(info, opt, results);
        if (!opt.json.empty())
            write_json(opt.json, info, opt, results);
        return sane ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "gpufec-bench: " << e.what() << "\n";
        return 2;
    }
}
