/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-flowgraph: a real GNU Radio top_block in C++ (no Python needed), so the GNU
// Radio path can be proven on machines without GNU Radio's Python (the GPU machine).
//   --graph full (default):
//     awgn_bpsk_source --LLRs--> viterbi_decoder --bits--> head --> ber_counter
//                      --info bits--> head ----------------------^
//     prints BER and throughput per Eb/N0 point;
//   --graph source:  awgn_bpsk_source --> null sinks (the source alone);
//   --graph decoder: precomputed LLR frames (repeated with memcpy) -->
//                    viterbi_decoder --> head --> null sink (the decoder alone).
// --code ldpc puts the NR LDPC code (--ldpc-bg, --ldpc-z; full length, r = 1/3 or 1/5)
// and ldpc_decoder in place of the convolutional code and viterbi_decoder; --code dvbs2
// a DVB-S2 LDPC code (--dvbs2-frame, --dvbs2-rate) and ldpc_decoder with docs/dvbs2.md's
// settings (offset min-sum, beta 0.375, 50 iterations, early termination); --code polar
// the NR polar code (--polar-k, --polar-e, CRC11) and polar_decoder (--algorithm,
// --list-size); --code turbo the LTE turbo code (--turbo-k, CRC24B, --turbo-e: rate
// matched to E bits when > 0) and turbo_decoder (6 iterations, early termination).
// The heads sit on the one-byte bit streams (not on the float LLRs) so that limiting
// the run does not add a copy of the widest stream.
#include "gr_console_log.h"
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/gpufec/awgn_bpsk_source.h>
#include <gnuradio/gpufec/ber_counter.h>
#include <gnuradio/gpufec/conv_code.h>
#include <gnuradio/gpufec/dvbs2_ldpc_code.h>
#include <gnuradio/gpufec/ldpc_decoder.h>
#include <gnuradio/gpufec/lte_turbo_code.h>
#include <gnuradio/gpufec/nr_ldpc_code.h>
#include <gnuradio/gpufec/nr_polar_code.h>
#include <gnuradio/gpufec/polar_decoder.h>
#include <gnuradio/gpufec/turbo_decoder.h>
#include <gnuradio/gpufec/viterbi_decoder.h>
#include <gnuradio/high_res_timer.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/logger.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

void usage()
{
    std::puts(
        "usage: gpufec-flowgraph [--graph full|source|decoder] [--backend "
        "auto|cpu|cuda|cuda:N]\n"
        "                        [--frames N] [--frame-bits N] [--ebn0 dB[,dB...]] "
        "[--batch N]\n"
        "                        [--source-frames N] [--max-latency-ms X]\n"
        "                        [--llr-type float|byte] [--stream-buffer N] "
        "[--profile]\n"
        "                        [--no-status-tags] [--bp-arithmetic float|int8]\n"
        "  --graph full     source -> decoder -> BER counter (default)\n"
        "  --graph source   source -> null sinks\n"
        "  --graph decoder  precomputed LLR frames (repeated) -> decoder -> null sink\n"
        "  --code conv|ldpc|dvbs2|polar|turbo\n"
        "                   the K=7 r=1/2 convolutional code (default; --frame-bits),\n"
        "                   the NR LDPC code --ldpc-bg 1|2 --ldpc-z Z (default BG1 "
        "384),\n"
        "                   decoded by ldpc_decoder (10 iterations, early termination),\n"
        "                   a DVB-S2 LDPC code --dvbs2-frame normal|short --dvbs2-rate "
        "R\n"
        "                   (default normal 1/2) decoded by ldpc_decoder (offset\n"
        "                   min-sum, beta 0.375, 50 iterations, early termination),\n"
        "                   or the NR polar code --polar-k K --polar-e E (default 512,\n"
        "                   1024; CRC11) decoded by polar_decoder --algorithm\n"
        "                   sc|fast-ssc|scl|fast-scl|sc-first-scl|sc-first-fast-scl|bp\n"
        "                   (default scl) --list-size L "
        "(default 8),\n"
        "                   or the LTE turbo code --turbo-k K (default 6144, CRC24B)\n"
        "                   --turbo-e E (rate matching, default 0: 3K + 12 bits) "
        "decoded\n"
        "                   by turbo_decoder (6 iterations, early termination,\n"
        "                   --sub-blocks P windows, default ceil(K / 32): the GPU's\n"
        "                   fast kernel, the same decisions on the CPU)\n"
        "  --source-backend the source's backend (default: --backend for conv and ldpc;\n"
        "                   auto for the others: the GPU through the code's generator\n"
        "                   where it fits, else the CPU)\n"
        "  --source-frames  frames the source generates per batch (default: batch/2,\n"
        "                   between 64 and 1024)\n"
        "  --llr-buffer N   room for N frames in the LLR buffer between the source and\n"
        "                   the decoder (default 0: what the blocks ask for)\n"
        "  --llr-type       LLR stream items: float (default) or byte (int8, quantized\n"
        "                   with scale 8 by the source: a quarter of the traffic)\n"
        "  --stream-buffer  minimum buffer (items) of the bit streams after the decoder\n"
        "                   and source (default 4194304; 0 = GNU Radio's default)\n"
        "  --no-status-tags the block-code decoders without their per-frame status\n"
        "                   tags (iterations, crc_ok)\n"
        "  --bp-arithmetic  polar BP messages (--code polar --algorithm bp): float\n"
        "                   (default) or int8\n"
        "  --profile        print GNU Radio's per-block work time after each run\n"
        "  --verbose        keep GNU Radio's info-level log lines");
}

std::vector<double> parse_list(const std::string& s)
{
    std::vector<double> v;
    size_t pos = 0;
    while (pos <= s.size()) {
        const size_t comma = s.find(',', pos);
        v.push_back(std::stod(s.substr(pos, comma - pos)));
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
    return v;
}

double run_seconds(const gr::top_block_sptr& tb)
{
    const auto t0 = std::chrono::steady_clock::now();
    tb->run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct options {
    std::string graph = "full";
    std::string code = "conv";
    int ldpc_bg = 1, ldpc_z = 384;
    std::string dvbs2_frame = "normal", dvbs2_rate = "1/2";
    int polar_k = 512, polar_e = 1024, list_size = 8;
    int turbo_k = 6144, turbo_e = 0;
    int sub_blocks = 0; //!< turbo windows; 0: ceil(K / 32), the GPU's fast kernel
    std::string algorithm = "scl";
    std::string backend = "auto";
    std::string source_backend; //!< "": see source_backend()
    long frames = 2000;
    int frame_bits = 2048;
    int batch = 512;
    int source_frames = 0;      //!< 0: batch / 2 in [64, 1024]
    long llr_buffer_frames = 0; //!< 0: the blocks' own minimum
    double max_latency_ms = 10.0;
    std::vector<double> ebn0s{ 3.0, 4.0, 6.0 };
    std::string llr_type = "float";
    long stream_buffer = 1L << 22;
    bool profile = false;
    bool verbose = false;
    bool status_tags = true;
    std::string bp_arithmetic = "float";
};

constexpr double llr_scale = 8.0;

//! Turbo windows: --sub-blocks, or ceil(K / 32) (windows of at most 32 steps).
int turbo_sub_blocks(const options& o)
{
    return o.sub_blocks > 0 ? o.sub_blocks : (o.turbo_k + 31) / 32;
}

//! The decoder block of the code under test, and its backend in use.
struct decoder_block {
    gr::block_sptr block;
    std::function<std::string()> backend_name;
};

decoder_block make_decoder(const options& o, const gr::gpufec::code::sptr& code)
{
    if (o.code == "ldpc" || o.code == "dvbs2") {
        const bool dvbs2 = o.code == "dvbs2"; // docs/dvbs2.md's settings
        auto dec = gr::gpufec::ldpc_decoder::make(code,
                                                  dvbs2 ? 50 : 10,
                                                  dvbs2 ? "offset" : "normalized",
                                                  0.75,
                                                  dvbs2 ? 0.375 : 0.5,
                                                  "int8",
                                                  true,
                                                  false,
                                                  o.llr_type,
                                                  "",
                                                  o.backend,
                                                  o.batch,
                                                  o.max_latency_ms,
                                                  llr_scale,
                                                  "gnuradio",
                                                  8,
                                                  o.status_tags);
        return { dec, [dec] { return dec->backend_name(); } };
    }
    if (o.code == "turbo") {
        auto dec = gr::gpufec::turbo_decoder::make(code,
                                                   6,
                                                   "scaled-max-log-map",
                                                   0.7,
                                                   "int16",
                                                   turbo_sub_blocks(o),
                                                   true,
                                                   false,
                                                   o.llr_type,
                                                   "",
                                                   o.backend,
                                                   o.batch,
                                                   o.max_latency_ms,
                                                   llr_scale,
                                                   "gnuradio",
                                                   "synchronised",
                                                   o.status_tags);
        return { dec, [dec] { return dec->backend_name(); } };
    }
    if (o.code == "polar") {
        auto dec = gr::gpufec::polar_decoder::make(code,
                                                   o.algorithm,
                                                   o.list_size,
                                                   50,
                                                   true,
                                                   false,
                                                   o.llr_type,
                                                   "",
                                                   o.backend,
                                                   o.batch,
                                                   o.max_latency_ms,
                                                   llr_scale,
                                                   "gnuradio",
                                                   o.bp_arithmetic,
                                                   o.status_tags);
        return { dec, [dec] { return dec->backend_name(); } };
    }
    auto dec = gr::gpufec::viterbi_decoder::make(
        code, o.llr_type, "", o.backend, o.batch, o.max_latency_ms, llr_scale);
    return { dec, [dec] { return dec->backend_name(); } };
}

//! The source's backend: --source-backend, else --backend for the convolutional and
//! NR LDPC codes (encoders of their own on the GPU) and "auto" for the others (the GPU
//! through the code's generator where it fits, affine_frame_map.h; else the CPU).
std::string source_backend(const options& o)
{
    if (!o.source_backend.empty())
        return o.source_backend;
    return o.code == "conv" || o.code == "ldpc" ? o.backend : "auto";
}

/*!
 * Repeats a block of items forever with memcpy: blocks::vector_source copies item by
 * item (about 0.6 ns per item), which would limit the decoder graph on its own.
 */
class repeat_source : public gr::sync_block
{
public:
    repeat_source(std::vector<uint8_t> data, size_t itemsize)
        : gr::sync_block("repeat_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(1, 1, static_cast<int>(itemsize))),
          d_data(std::move(data)),
          d_itemsize(itemsize)
    {
    }

    int work(int noutput_items,
             gr_vector_const_void_star&,
             gr_vector_void_star& output_items) override
    {
        auto* out = static_cast<uint8_t*>(output_items[0]);
        size_t left = static_cast<size_t>(noutput_items) * d_itemsize;
        while (left > 0) {
            const size_t n = std::min(left, d_data.size() - d_offset);
            std::memcpy(out, d_data.data() + d_offset, n);
            out += n;
            left -= n;
            d_offset = (d_offset + n) % d_data.size();
        }
        return noutput_items;
    }

private:
    std::vector<uint8_t> d_data;
    size_t d_itemsize;
    size_t d_offset = 0;
};

//! Large buffers on the one-byte streams: GNU Radio's default (32 KiB) costs one
//! scheduler round trip per 32 Ki bits between every pair of blocks.
void size_stream_buffer(const options& o, const gr::block_sptr& block)
{
    if (o.stream_buffer > 0)
        block->set_min_output_buffer(o.stream_buffer);
}

//! Per-block work time (GNU Radio performance counters, enabled in main()).
void print_profile(const options& o,
                   double secs,
                   const std::vector<std::pair<std::string, gr::block_sptr>>& blocks)
{
    if (!o.profile)
        return;
    const double tps = double(gr::high_res_timer_tps());
    for (const auto& [name, b] : blocks) {
        std::printf("  profile %-14s work %8.1f ms (%5.1f%% of run)  avg items out "
                    "%10.0f  out buffer full %5.1f%%\n",
                    name.c_str(),
                    b->pc_work_time_total() / tps * 1e3,
                    100.0 * b->pc_work_time_total() / tps / secs,
                    b->pc_noutput_items_avg(),
                    b->pc_output_buffers_full_avg().empty()
                        ? 0.0
                        : 100.0 * b->pc_output_buffers_full_avg()[0]);
    }
}

int run_full(const options& o, const gr::gpufec::code::sptr& code)
{
    std::printf("%-8s %-10s %12s %10s %12s %10s %12s\n",
                "Eb/N0",
                "backend",
                "bits",
                "errors",
                "BER",
                "frames",
                "Mb/s");
    const uint64_t bits = static_cast<uint64_t>(o.frames) * o.frame_bits;
    for (double ebn0 : o.ebn0s) {
        auto tb = gr::make_top_block("gpufec_flowgraph");
        auto src = gr::gpufec::awgn_bpsk_source::make(
            code, ebn0, 1, source_backend(o), o.source_frames, "", o.llr_type, llr_scale);
        const decoder_block decb = make_decoder(o, code);
        const gr::block_sptr dec = decb.block;
        auto head_decoded = gr::blocks::head::make(sizeof(char), bits);
        auto head_info = gr::blocks::head::make(sizeof(char), bits);
        auto ber = gr::gpufec::ber_counter::make(o.frame_bits, 0);
        size_stream_buffer(o, head_decoded);
        size_stream_buffer(o, head_info);
        if (o.llr_buffer_frames > 0)
            src->set_min_output_buffer(
                0, o.llr_buffer_frames * static_cast<long>(code->coded_bits()));
        tb->connect(src, 0, dec, 0);
        tb->connect(dec, 0, head_decoded, 0);
        tb->connect(head_decoded, 0, ber, 0);
        tb->connect(src, 1, head_info, 0);
        tb->connect(head_info, 0, ber, 1);
        const double secs = run_seconds(tb);
        std::printf("%-8.2f %-10s %12llu %10llu %12.3e %10llu %12.1f\n",
                    ebn0,
                    decb.backend_name().c_str(),
                    (unsigned long long)ber->bits(),
                    (unsigned long long)ber->bit_errors(),
                    ber->ber(),
                    (unsigned long long)ber->frames(),
                    ber->bits() / secs / 1e6);
        print_profile(o,
                      secs,
                      { { "source", src },
                        { "decoder", dec },
                        { "head_decoded", head_decoded },
                        { "head_info", head_info },
                        { "ber_counter", ber } });
        if (ber->frames() != static_cast<uint64_t>(o.frames)) {
            std::fprintf(stderr,
                         "error: %llu frames counted, %ld sent\n",
                         (unsigned long long)ber->frames(),
                         o.frames);
            return 1;
        }
    }
    return 0;
}

void print_single_header()
{
    std::printf("%-8s %-8s %-10s %10s %12s %10s %12s\n",
                "graph",
                "Eb/N0",
                "backend",
                "frames",
                "info bits",
                "seconds",
                "Mb/s");
}

void print_single(const options& o, double ebn0, const std::string& backend, double secs)
{
    const double bits = double(o.frames) * o.frame_bits;
    std::printf("%-8s %-8.2f %-10s %10ld %12.0f %10.3f %12.1f\n",
                o.graph.c_str(),
                ebn0,
                backend.c_str(),
                o.frames,
                bits,
                secs,
                bits / secs / 1e6);
}

//! Whether the run delivered every info bit its head block was to pass (a block that
//! failed ends the flowgraph early); prints what is missing when not.
bool delivered_all(const gr::blocks::head::sptr& head, uint64_t want)
{
    const uint64_t got = head->nitems_written(0);
    if (got == want)
        return true;
    std::fprintf(stderr,
                 "error: the flowgraph ended after %llu of %llu info bits\n",
                 static_cast<unsigned long long>(got),
                 static_cast<unsigned long long>(want));
    return false;
}

//! The source alone: LLRs into a null sink, the info bits through a head (which ends
//! the run) into another.
int run_source(const options& o, const gr::gpufec::code::sptr& code)
{
    print_single_header();
    for (double ebn0 : o.ebn0s) {
        auto tb = gr::make_top_block("gpufec_flowgraph_source");
        auto src = gr::gpufec::awgn_bpsk_source::make(
            code, ebn0, 1, source_backend(o), o.source_frames, "", o.llr_type, llr_scale);
        auto head_info = gr::blocks::head::make(
            sizeof(char), static_cast<uint64_t>(o.frames) * o.frame_bits);
        size_stream_buffer(o, head_info);
        auto null_llrs = gr::blocks::null_sink::make(
            o.llr_type == "byte" ? sizeof(char) : sizeof(float));
        auto null_info = gr::blocks::null_sink::make(sizeof(char));
        tb->connect(src, 0, null_llrs, 0);
        tb->connect(src, 1, head_info, 0);
        tb->connect(head_info, 0, null_info, 0);
        const double secs = run_seconds(tb);
        if (!delivered_all(head_info, static_cast<uint64_t>(o.frames) * o.frame_bits))
            return 1;
        print_single(o, ebn0, src->backend_name(), secs);
        print_profile(o, secs, { { "source", src }, { "head_info", head_info } });
    }
    return 0;
}

//! The decoder alone: a few hundred distinct frames from the CPU source, repeated.
int run_decoder(const options& o, const gr::gpufec::code::sptr& code)
{
    print_single_header();
    const long distinct = std::min<long>(o.frames, 256);
    for (double ebn0 : o.ebn0s) {
        std::vector<float> llrs;
        {
            auto tb = gr::make_top_block("gpufec_flowgraph_llrs");
            auto src = gr::gpufec::awgn_bpsk_source::make(code, ebn0, 1, "cpu", 64, "");
            auto head = gr::blocks::head::make(
                sizeof(float), static_cast<uint64_t>(distinct) * code->coded_bits());
            auto sink = gr::blocks::vector_sink_f::make();
            auto null_info = gr::blocks::null_sink::make(sizeof(char));
            tb->connect(src, 0, head, 0);
            tb->connect(head, 0, sink, 0);
            tb->connect(src, 1, null_info, 0);
            tb->run();
            llrs = sink->data();
        }
        auto tb = gr::make_top_block("gpufec_flowgraph_decoder");
        // Whole frames, as int8 (quantized as the decoder quantizes floats:
        // round(L*scale), +/-127) or as floats.
        std::vector<uint8_t> items;
        size_t itemsize = sizeof(float);
        if (o.llr_type == "byte") {
            itemsize = 1;
            items.resize(llrs.size());
            for (size_t i = 0; i < llrs.size(); ++i) {
                float x = llrs[i] * float(llr_scale);
                x = std::isnan(x) ? 0.0f : std::clamp(x, -127.0f, 127.0f);
                const float t = std::trunc(x);
                const int q = int(t) + (x - t >= 0.5f) - (x - t <= -0.5f);
                items[i] = static_cast<uint8_t>(static_cast<int8_t>(q));
            }
        } else {
            items.resize(llrs.size() * sizeof(float));
            std::memcpy(items.data(), llrs.data(), items.size());
        }
        auto vsrc = gnuradio::make_block_sptr<repeat_source>(std::move(items), itemsize);
        const decoder_block decb = make_decoder(o, code);
        const gr::block_sptr dec = decb.block;
        auto head = gr::blocks::head::make(
            sizeof(char), static_cast<uint64_t>(o.frames) * o.frame_bits);
        size_stream_buffer(o, head);
        auto sink = gr::blocks::null_sink::make(sizeof(char));
        // Room for big batches in front of the decoder, as a fast source would give
        // (at most 4 Mi floats, the size the GPU machine is known to map).
        vsrc->set_min_output_buffer(static_cast<long>(std::max<size_t>(
            1 << 20,
            std::min<size_t>(size_t(o.batch) * code->coded_bits(), size_t(1) << 22))));
        tb->connect(vsrc, 0, dec, 0);
        tb->connect(dec, 0, head, 0);
        tb->connect(head, 0, sink, 0);
        const double secs = run_seconds(tb);
        if (!delivered_all(head, static_cast<uint64_t>(o.frames) * o.frame_bits))
            return 1;
        print_single(o, ebn0, decb.backend_name(), secs);
        print_profile(
            o, secs, { { "repeat_source", vsrc }, { "decoder", dec }, { "head", head } });
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                usage();
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--graph")
            o.graph = next();
        else if (a == "--code")
            o.code = next();
        else if (a == "--ldpc-bg")
            o.ldpc_bg = std::stoi(next());
        else if (a == "--ldpc-z")
            o.ldpc_z = std::stoi(next());
        else if (a == "--dvbs2-frame")
            o.dvbs2_frame = next();
        else if (a == "--dvbs2-rate")
            o.dvbs2_rate = next();
        else if (a == "--polar-k")
            o.polar_k = std::stoi(next());
        else if (a == "--polar-e")
            o.polar_e = std::stoi(next());
        else if (a == "--algorithm")
            o.algorithm = next();
        else if (a == "--list-size")
            o.list_size = std::stoi(next());
        else if (a == "--turbo-k")
            o.turbo_k = std::stoi(next());
        else if (a == "--turbo-e")
            o.turbo_e = std::stoi(next());
        else if (a == "--sub-blocks")
            o.sub_blocks = std::stoi(next());
        else if (a == "--backend")
            o.backend = next();
        else if (a == "--source-backend")
            o.source_backend = next();
        else if (a == "--frames")
            o.frames = std::stol(next());
        else if (a == "--frame-bits")
            o.frame_bits = std::stoi(next());
        else if (a == "--ebn0")
            o.ebn0s = parse_list(next());
        else if (a == "--batch")
            o.batch = std::stoi(next());
        else if (a == "--source-frames")
            o.source_frames = std::stoi(next());
        else if (a == "--llr-buffer")
            o.llr_buffer_frames = std::stol(next());
        else if (a == "--max-latency-ms")
            o.max_latency_ms = std::stod(next());
        else if (a == "--llr-type")
            o.llr_type = next();
        else if (a == "--stream-buffer")
            o.stream_buffer = std::stol(next());
        else if (a == "--profile")
            o.profile = true;
        else if (a == "--no-status-tags")
            o.status_tags = false;
        else if (a == "--bp-arithmetic")
            o.bp_arithmetic = next();
        else if (a == "--verbose")
            o.verbose = true;
        else {
            usage();
            return a == "--help" ? 0 : 2;
        }
    }
    if (o.bp_arithmetic != "float" && o.code != "polar") {
        std::fprintf(stderr,
                     "gpufec-flowgraph: --bp-arithmetic is for --code polar (BP); "
                     "allowed with --code %s: float\n",
                     o.code.c_str());
        return 2;
    }
    if (o.graph != "full" && o.graph != "source" && o.graph != "decoder") {
        std::fprintf(stderr,
                     "gpufec-flowgraph: --graph \"%s\" unknown; allowed: full, source, "
                     "decoder\n",
                     o.graph.c_str());
        return 2;
    }
    if (o.code != "conv" && o.code != "ldpc" && o.code != "dvbs2" && o.code != "polar" &&
        o.code != "turbo") {
        std::fprintf(stderr,
                     "gpufec-flowgraph: --code \"%s\" unknown; allowed: conv, ldpc, "
                     "dvbs2, polar, turbo\n",
                     o.code.c_str());
        return 2;
    }
    if (o.llr_type != "float" && o.llr_type != "byte") {
        std::fprintf(
            stderr,
            "gpufec-flowgraph: --llr-type \"%s\" unknown; allowed: float, byte\n",
            o.llr_type.c_str());
        return 2;
    }
    gpufec_apps::gnuradio_log_to_console(o.verbose);
    if (o.profile) // read by GNU Radio's preferences when the blocks start
        setenv("GR_CONF_PERFCOUNTERS_ON", "True", 1);
    if (o.source_frames <= 0)
        o.source_frames = std::clamp(o.batch / 2, 64, 1024);
    if (o.frames < 1) {
        std::fprintf(stderr, "gpufec-flowgraph: --frames must be >= 1\n");
        return 2;
    }

    try {
        gr::gpufec::code::sptr code;
        if (o.code == "ldpc") {
            code = gr::gpufec::nr_ldpc_code::make(o.ldpc_bg, o.ldpc_z, 0, 0);
            o.frame_bits = code->frame_bits();
        } else if (o.code == "dvbs2") {
            code = gr::gpufec::dvbs2_ldpc_code::make(o.dvbs2_frame, o.dvbs2_rate);
            o.frame_bits = code->frame_bits();
        } else if (o.code == "polar") {
            code = gr::gpufec::nr_polar_code::make(o.polar_k, o.polar_e, "crc11");
            o.frame_bits = code->frame_bits();
        } else if (o.code == "turbo") {
            code = gr::gpufec::lte_turbo_code::make(o.turbo_k, true, o.turbo_e);
            o.frame_bits = code->frame_bits();
        } else {
            code = gr::gpufec::conv_code::make(
                o.frame_bits, 7, { 0171, 0133 }, "terminated", "");
        }
        if (o.graph == "source")
            return run_source(o, code);
        if (o.graph == "decoder")
            return run_decoder(o, code);
        return run_full(o, code);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpufec-flowgraph: %s\n", e.what());
        return 1;
    }
}
