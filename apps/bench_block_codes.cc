/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-bench for the block codes (LTE turbo, NR LDPC, alist LDPC, NR polar) on the CPU
// backend. Same method as the Viterbi bench: a pool of noisy frames from the AWGN source
// generated once, a warm-up per configuration that checks the decoded bits, then --runs
// timed runs of --seconds; the median is shown. gr-fec's decoders get their own codewords
// (from gr-fec's encoders) with the same information bits and the same noise samples.
#include "bench_block_codes.h"

#include <gpufec/awgn_source.h>
#include <gpufec/backends.h>
#include <gpufec/dvbs2_ldpc.h>
#include <gpufec/engine.h>
#include <gpufec/ldpc.h>
#include <gpufec/ldpc_alist.h>
#include <gpufec/ldpc_decoding.h>
#include <gpufec/nr_uci_small.h>
#include <gpufec/polar.h>
#include <gpufec/polar_decoding.h>
#include <gpufec/turbo.h>
#include <gpufec/turbo_decoding.h>

#ifdef GPUFEC_HAVE_CUDA
#include "cuda/ldpc/ldpc_cuda.h"
#include "cuda/polar/polar_cuda.h"
#include "cuda/turbo/turbo_cuda.h"
#endif

#ifdef GPUFEC_HAVE_GNURADIO
#include <gnuradio/fec/ldpc_decoder.h>
#include <gnuradio/fec/ldpc_encoder.h>
#include <gnuradio/fec/polar_decoder_sc.h>
#include <gnuradio/fec/polar_decoder_sc_list.h>
#include <gnuradio/fec/polar_encoder.h>
#endif

#include <algorithm>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace gpufec_bench {
namespace {

std::vector<std::string> split_list(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

//! A decoder row: how to build it, and the gr-fec row it is compared with (if any).
struct variant {
    std::string label;
    std::function<std::unique_ptr<gpufec::batch_decoder>()> make;
    std::string grfec_peer;
    std::string cuda_backend; //!< "cuda:N": a CUDA decoder, end-to-end row only
};

//! The code under test: its frame definition for the AWGN source and its decoder rows.
struct bench_code {
    gpufec::frame_code frame;
    double default_ebn0 = 2.0;
    std::vector<variant> variants;
    std::shared_ptr<const gpufec::nr_polar_code> polar;
    std::shared_ptr<const gpufec::ldpc_alist_code> alist;
    std::string alist_path;
    //! LDPC codes: the graph, and the options of each int8 row (CUDA kernel-only rows).
    std::shared_ptr<const gpufec::ldpc_graph> ldpc;
    std::vector<std::pair<std::string, gpufec::ldpc_decoder_options>> ldpc_kernel_rows;
    //! Polar: the options of each algorithm the CUDA backend takes (kernel-only rows).
    std::vector<std::pair<std::string, gpufec::polar_decoder_options>> polar_kernel_rows;
    //! Turbo: the code, and the options of each row the CUDA backend takes.
    std::shared_ptr<const gpufec::lte_turbo_code> turbo;
    std::vector<std::pair<std::string, gpufec::turbo_decoder_options>> turbo_kernel_rows;
    std::vector<std::string> notes;
};

frame_pool
make_code_pool(const bench_code& code, const block_options& opt, double ebn0_db)
{
    auto source = gpufec::make(
        code.frame, gpufec::awgn_frame_source_options{ ebn0_db, opt.seed }, "cpu");
    const float sigma = float(gpufec::awgn_sigma(
        double(code.frame.info_bits) / double(code.frame.coded_bits), ebn0_db));
    // At least enough frames for a few full engine batches.
    return make_pool(*source, opt.pool_mib, 16, sigma);
}

size_t batch_frames(const block_options& opt, size_t info_bits)
{
    const size_t bits = opt.batch_bits ? opt.batch_bits : (size_t(1) << 18);
    return std::max<size_t>(1, (bits + info_bits - 1) / info_bits);
}

void bench_variant(const variant& v,
                   const frame_pool& pool,
                   int threads,
                   const block_options& opt,
                   std::vector<result>& results)
{
    result row;
    row.group = "gpufec";
    row.label = v.label;
    row.backend =
        v.cuda_backend.empty() ? "cpu x" + std::to_string(threads) : v.cuda_backend;
    row.path = "end-to-end";
    row.info_bits = pool.bits_per_frame;
    // A GPU needs far larger batches than a CPU core to fill: the decoder's preferred
    // batch (what a block with max_batch_frames = 0 takes), else 2^22 bits.
    std::shared_ptr<gpufec::batch_decoder> decoder = v.make();
    block_options sized = opt;
    if (!v.cuda_backend.empty() && !opt.batch_bits)
        sized.batch_bits = size_t(1) << 22;
    const size_t preferred = decoder->preferred_batch_frames();
    const size_t frames = opt.batch_bits || preferred == 0
                              ? batch_frames(sized, pool.bits_per_frame)
                              : preferred;
    std::cout << "note: " << v.label << " on " << row.backend << ": " << frames
              << " frames per engine batch"
              << (opt.batch_bits || preferred == 0 ? "" : " (the decoder's preferred)")
              << "\n";
    bench_engine(decoder, pool, frames, threads, row, opt, results);
}

//! batch_decoder::decode() on int8 LLRs on one thread, no engine: the figure that
//! compares directly with gr-fec's generic_work().
timed_case make_variant_decode_only(const variant& v,
                                    const frame_pool& pool,
                                    const block_options& opt)
{
    result row;
    row.group = "gpufec";
    row.label = v.label + " decode-only";
    row.backend = "cpu x1";
    row.path = "decode-only";
    row.input = "int8";
    row.info_bits = pool.bits_per_frame;
    return make_decode_only_case(v.make(), pool, opt.seconds, row);
}

#ifdef GPUFEC_HAVE_GNURADIO
/*!
 * Frames for a gr-fec decoder: gr-fec's own codeword of each pool frame's information
 * bits, carried over the same noise samples. Our LLR L = 2 y / sigma^2 with y = (1 - 2c)
 * + noise, so noise = L sigma^2 / 2 - (1 - 2c) with c our coded bit; gr-fec's decoders
 * take y' = -((1 - 2c') + noise) (gr-fec maps bit 1 to +1).
 */
struct grfec_pool {
    size_t frames = 0, in_items = 0, out_bits = 0;
    std::vector<float> symbols; //!< frames * in_items, gr-fec's soft input
    std::vector<uint8_t> sent;  //!< frames * out_bits, what gr-fec must decode
};

/*!
 * `grfec_info(f, out)` writes the gr-fec information word of pool frame f (out_bits
 * bytes), `grfec_encode(info, codeword)` its codeword (in_items bytes) with gr-fec's
 * encoder.
 */
grfec_pool make_grfec_pool(const bench_code& code,
                           const frame_pool& pool,
                           size_t in_items,
                           size_t out_bits,
                           const std::function<void(size_t, uint8_t*)>& grfec_info,
                           const std::function<void(uint8_t*, uint8_t*)>& grfec_encode)
{
    if (in_items != pool.llrs_per_frame)
        throw gpufec::error("gr-fec codeword of " + std::to_string(in_items) +
                            " bits, ours " + std::to_string(pool.llrs_per_frame));
    grfec_pool g;
    g.frames = std::min<size_t>(pool.frames, 512);
    g.in_items = in_items;
    g.out_bits = out_bits;
    g.symbols.resize(g.frames * in_items);
    g.sent.resize(g.frames * out_bits);
    std::vector<uint8_t> ours(pool.llrs_per_frame), theirs(in_items);
    const float half_var = pool.sigma * pool.sigma / 2.0f;
    for (size_t f = 0; f < g.frames; ++f) {
        code.frame.encode(pool.sent(f), ours.data());
        uint8_t* info = g.sent.data() + f * out_bits;
        grfec_info(f, info);
        grfec_encode(info, theirs.data());
        const float* L = pool.llrs.data() + f * pool.llrs_per_frame;
        float* y = g.symbols.data() + f * in_items;
        for (size_t j = 0; j < in_items; ++j) {
            const float noise = L[j] * half_var - (1.0f - 2.0f * float(ours[j] & 1));
            y[j] = -((1.0f - 2.0f * float(theirs[j] & 1)) + noise);
        }
    }
    return g;
}

/*!
 * A gr-fec decoder on one thread through generic_work(), one frame per call; `counted`
 * information bits per frame (the compared payload). Warm-up checks the first `counted`
 * output bits against the sent ones.
 */
timed_case make_grfec_case(const std::string& label,
                           gr::fec::generic_decoder::sptr decoder,
                           std::shared_ptr<const grfec_pool> g,
                           size_t counted,
                           const block_options& opt)
{
    if (size_t(decoder->get_input_size()) != g->in_items ||
        size_t(decoder->get_output_size()) != g->out_bits)
        throw gpufec::error(
            label + ": gr-fec frame sizes " + std::to_string(decoder->get_input_size()) +
            " -> " + std::to_string(decoder->get_output_size()) + ", expected " +
            std::to_string(g->in_items) + " -> " + std::to_string(g->out_bits));
    struct state {
        gr::fec::generic_decoder::sptr decoder;
        std::vector<float> in; //!< generic_work's input is not const
        std::vector<uint8_t> out;
    };
    auto st = std::make_shared<state>();
    st->decoder = decoder;
    st->in.resize(g->in_items);
    st->out.resize(g->out_bits + 8);
    auto decode_frame = [st, g](size_t f) {
        std::copy_n(g->symbols.data() + f * g->in_items, g->in_items, st->in.data());
        st->decoder->generic_work(st->in.data(), st->out.data());
    };
    timed_case c;
    c.r.group = "gr-fec";
    c.r.label = label;
    c.r.backend = "cpu x1";
    c.r.path = "decode-only";
    c.r.input = "float";
    c.r.info_bits = counted;
    check_stats check;
    const size_t min_frames = std::min<size_t>(g->frames, 8);
    const size_t max_frames =
        std::min<size_t>(g->frames, std::max<size_t>(min_frames, (1 << 16) / counted));
    const auto t0 = steady::now();
    for (size_t f = 0; f < max_frames; ++f) {
        if (f >= min_frames && seconds_since(t0) > std::max(1.0, 2 * opt.seconds))
            break;
        decode_frame(f);
        const float it = st->decoder->get_iterations();
        check.add(st->out.data(),
                  g->sent.data() + f * g->out_bits,
                  counted,
                  it < 0 ? 1 : int(it));
    }
    check.store(c.r);
    c.run_once = frame_loop(decode_frame, g->frames, counted, opt.seconds);
    return c;
}

/*!
 * gr-fec's polar SC and SCL on the same mother code: its frozen set is our frozen()
 * (gr-fec indexes u in decoding order like we do and bit-reverses on the codeword side
 * only, so the two are the same code up to a codeword permutation). Its K information
 * bits are our payload + CRC; the CRC is not used by gr-fec's SCL (plain SCL, best
 * path). Throughput counts our k payload bits per frame, so the ratios are frame-rate
 * ratios.
 */
std::vector<timed_case> make_grfec_polar_cases(const bench_code& code,
                                               const frame_pool& pool,
                                               const block_options& opt,
                                               std::vector<std::string>& notes)
{
    const gpufec::nr_polar_code& pc = *code.polar;
    if (pc.e() != pc.N()) {
        notes.push_back("gr-fec polar: compared only for e = N (no rate matching); here "
                        "e = " +
                        std::to_string(pc.e()) + ", N = " + std::to_string(pc.N()));
        return {};
    }
    std::vector<int> frozen;
    for (int i = 0; i < pc.N(); ++i)
        if (pc.frozen()[size_t(i)])
            frozen.push_back(i);
    const std::vector<uint8_t> frozen_values(frozen.size(), 0);
    auto encoder =
        gr::fec::code::polar_encoder::make(pc.N(), pc.K(), frozen, frozen_values, false);
    auto info = [&](size_t f, uint8_t* out) { pc.attach_crc(pool.sent(f), out); };
    auto encode = [&](uint8_t* in, uint8_t* out) { encoder->generic_work(in, out); };
    auto g = std::make_shared<const grfec_pool>(
        make_grfec_pool(code, pool, size_t(pc.N()), size_t(pc.K()), info, encode));
    std::vector<timed_case> cases;
    cases.push_back(make_grfec_case(
        "gr-fec polar_decoder_sc",
        gr::fec::code::polar_decoder_sc::make(pc.N(), pc.K(), frozen, frozen_values),
        g,
        size_t(pc.k()),
        opt));
    cases.push_back(
        make_grfec_case("gr-fec polar_decoder_sc_list " + std::to_string(opt.list_size),
                        gr::fec::code::polar_decoder_sc_list::make(
                            opt.list_size, pc.N(), pc.K(), frozen, frozen_values),
                        g,
                        size_t(pc.k()),
                        opt));
    notes.push_back(
        "gr-fec polar: frozen set = ours (N=" + std::to_string(pc.N()) +
        ", K=" + std::to_string(pc.K()) +
        " incl. CRC), its encoder's codeword over our noise; its SCL keeps the "
        "best path (no CRC selection); figures count our " +
        std::to_string(pc.k()) + " payload bits per frame");
    return cases;
}

/*!
 * gr-fec's ldpc_decoder (flooding sum-product in the likelihood-ratio domain) on the
 * same alist file, its codewords from gr-fec's ldpc_encoder. Its input convention: it
 * negates the input and computes LR = exp(-r / (2 s^2)) from r with bit 0 -> +1, so the
 * exact channel LR needs s = sigma / 2.
 */
std::vector<timed_case> make_grfec_ldpc_cases(const bench_code& code,
                                              const frame_pool& pool,
                                              const block_options& opt,
                                              int iterations,
                                              std::vector<std::string>& notes)
{
    auto encoder = gr::fec::ldpc_encoder::make(code.alist_path);
    if (size_t(encoder->get_input_size()) != pool.bits_per_frame)
        throw gpufec::error(
            "gr-fec ldpc_encoder: k = " + std::to_string(encoder->get_input_size()) +
            ", ours " + std::to_string(pool.bits_per_frame));
    auto info = [&](size_t f, uint8_t* out) {
        std::copy_n(pool.sent(f), pool.bits_per_frame, out);
    };
    auto encode = [&](uint8_t* in, uint8_t* out) { encoder->generic_work(in, out); };
    auto g = std::make_shared<const grfec_pool>(
        make_grfec_pool(code,
                        pool,
                        size_t(encoder->get_output_size()),
                        pool.bits_per_frame,
                        info,
                        encode));
    std::vector<timed_case> cases;
    cases.push_back(make_grfec_case(
        "gr-fec ldpc_decoder " + std::to_string(iterations) + " it",
        gr::fec::ldpc_decoder::make(code.alist_path, pool.sigma / 2.0f, iterations),
        g,
        pool.bits_per_frame,
        opt));
    notes.push_back("gr-fec ldpc_decoder: same alist, sigma = channel sigma / 2 (its LR "
                    "convention), max " +
                    std::to_string(iterations) +
                    " flooding iterations with its syndrome stop; its own encoder's "
                    "codeword over our noise");
    return cases;
}
#endif

std::string turbo_algorithm_name(gpufec::turbo_algorithm a)
{
    return a == gpufec::turbo_algorithm::max_log_map ? "max-log-map"
                                                     : "scaled-max-log-map";
}

//! The LDPC rows: every algorithm x arithmetic on the CPU and, with --backend cuda,
//! the int8 ones on the GPU (end to end here, kernel-only in run_block_code_bench).
void add_ldpc_variants(bench_code& code,
                       const std::string& prefix,
                       const block_options& opt,
                       bool compare_grfec)
{
    const auto algorithms =
        split_list(opt.algorithm.empty() ? "normalized" : opt.algorithm);
    const auto arithmetics =
        split_list(opt.arithmetic.empty() ? "int8,half,float" : opt.arithmetic);
    std::vector<std::string> backends = { "cpu" };
    if (!opt.cuda_backend.empty())
        backends.push_back(opt.cuda_backend);
    const std::shared_ptr<const gpufec::ldpc_graph> graph = code.ldpc;
    for (const std::string& b : backends)
        for (const std::string& alg : algorithms)
            for (const std::string& ar : arithmetics) {
                gpufec::ldpc_decoder_options o;
                o.algorithm = gpufec::parse_ldpc_algorithm(alg);
                o.arithmetic = gpufec::parse_ldpc_arithmetic(ar);
                if (prefix == "dvbs2") { // docs/dvbs2.md: offset 3 steps, 50 iterations
                    o.beta = 3.0f;
                    o.iterations = 50;
                }
                if (opt.iterations > 0)
                    o.iterations = opt.iterations;
                o.early_termination = opt.early_termination;
                if (b != "cpu" && o.arithmetic == gpufec::ldpc_arithmetic::float32)
                    continue; // the GPU decoder is int8 or half
                variant v;
                v.label = prefix + " " + ar + " " + alg + " " +
                          std::to_string(o.iterations) + " it";
                v.cuda_backend = b == "cpu" ? "" : b;
                v.make = [graph, o, b]() { return gpufec::make_decoder(*graph, o, b); };
                if (compare_grfec && b == "cpu")
                    v.grfec_peer =
                        "gr-fec ldpc_decoder " + std::to_string(o.iterations) + " it";
                code.variants.push_back(v);
                if (b != "cpu") {
                    code.ldpc_kernel_rows.emplace_back(v.label, o);
                    // The same decoder fed 4-bit LLRs: half the bytes over the bus.
                    variant v4 = v;
                    gpufec::ldpc_decoder_options o4 = o;
                    o4.int4_input = true;
                    v4.label = v.label + " int4-in";
                    v4.make = [graph, o4, b]() {
                        return gpufec::make_decoder(*graph, o4, b);
                    };
                    code.variants.push_back(v4);
                    code.ldpc_kernel_rows.emplace_back(v4.label, o4);
                }
            }
}

bench_code make_bench_code(const block_options& opt)
{
    bench_code code;
    if (opt.code == "turbo") {
        auto tc = std::make_shared<const gpufec::lte_turbo_code>(
            opt.turbo_k, opt.crc24b, opt.turbo_e, opt.turbo_rv);
        const gpufec::turbo_schedule schedule =
            gpufec::parse_turbo_schedule(opt.turbo_schedule);
        code.frame.info_bits = size_t(tc->info_bits());
        code.frame.coded_bits = tc->coded_bits();
        code.frame.description = tc->describe();
        code.frame.encode = [tc](const uint8_t* in, uint8_t* out) {
            gpufec::lte_turbo_encode(*tc, in, out);
        };
        code.default_ebn0 = 1.5;
        const auto algorithms =
            split_list(opt.algorithm.empty() ? "scaled-max-log-map" : opt.algorithm);
        const auto arithmetics =
            split_list(opt.arithmetic.empty() ? "int8,int16,float" : opt.arithmetic);
        for (const std::string& alg : algorithms)
            for (const std::string& ar : arithmetics) {
                gpufec::turbo_decoder_options o;
                o.algorithm = gpufec::parse_turbo_algorithm(alg);
                o.arithmetic = gpufec::parse_turbo_arithmetic(ar);
                if (opt.iterations > 0)
                    o.iterations = opt.iterations;
                o.sub_blocks = opt.sub_blocks;
                o.early_termination = opt.early_termination;
                variant v;
                v.label = "turbo " + ar + " " + turbo_algorithm_name(o.algorithm) + " " +
                          std::to_string(o.iterations) + " it";
                if (o.sub_blocks > 1)
                    v.label += " x" + std::to_string(o.sub_blocks) + " sub-blocks";
                v.make = [tc, o]() { return gpufec::make_turbo_decoder_cpu(*tc, o); };
                code.variants.push_back(v);
                gpufec::turbo_decoder_options on_gpu = o;
                on_gpu.schedule = schedule;
                if (!opt.cuda_backend.empty() &&
                    gpufec::registered<gpufec::turbo_decoder_options>().cuda_accepts(
                        *tc, on_gpu)) {
                    o = on_gpu;
                    variant g = v;
                    if (schedule == gpufec::turbo_schedule::loose)
                        g.label += " loose";
                    g.cuda_backend = opt.cuda_backend;
                    const std::string b = opt.cuda_backend;
                    g.make = [tc, o, b]() { return gpufec::make_decoder(*tc, o, b); };
                    g.make();
                    code.variants.push_back(g);
                    code.turbo_kernel_rows.emplace_back(g.label, o);
                }
            }
        code.turbo = tc;
        if (!opt.crc24b)
            code.notes.push_back("turbo without CRC24B: every frame runs all iterations "
                                 "(no early termination)");
    } else if (opt.code == "ldpc") {
        auto lc = std::make_shared<const gpufec::nr_ldpc_code>(
            opt.ldpc_bg, opt.ldpc_z, opt.ldpc_k, opt.ldpc_e);
        code.frame.info_bits = size_t(lc->k());
        code.frame.coded_bits = size_t(lc->e());
        std::ostringstream d;
        d << "NR LDPC BG" << lc->bg() << " Z=" << lc->z() << " k=" << lc->k()
          << " e=" << lc->e() << " (r=" << std::setprecision(3)
          << double(lc->k()) / double(lc->e()) << ")";
        code.frame.description = d.str();
        code.frame.encode = [lc](const uint8_t* in, uint8_t* out) {
            lc->encode(in, out);
        };
        code.frame.nr_ldpc = lc; // its CUDA source encodes on the GPU
        code.default_ebn0 = 2.0;
        code.ldpc = std::make_shared<const gpufec::ldpc_graph>(lc->graph());
        add_ldpc_variants(code, "ldpc", opt, false);
    } else if (opt.code == "dvbs2") {
        auto dc = std::make_shared<const gpufec::dvbs2_ldpc_code>(opt.dvbs2_frame,
                                                                  opt.dvbs2_rate);
        code.frame.info_bits = size_t(dc->k());
        code.frame.coded_bits = size_t(dc->n());
        code.frame.description = dc->describe();
        code.frame.encode = [dc](const uint8_t* in, uint8_t* out) {
            dc->encode(in, out);
        };
        // Eb/N0 of QPSK at the standard's threshold + 0.3 dB is the caller's (--ebn0);
        // the default is about normal 1/2's: Es/N0 1.3 dB.
        code.default_ebn0 = 1.3;
        code.ldpc = std::make_shared<const gpufec::ldpc_graph>(dc->graph());
        add_ldpc_variants(code, "dvbs2", opt, false);
    } else if (opt.code == "ldpc-alist") {
        if (opt.alist.empty())
            throw gpufec::error(
                "--code ldpc-alist needs --alist PATH (e.g. one of gr-fec's "
                "files in /usr/share/gnuradio/fec/ldpc/)");
        code.alist = std::make_shared<const gpufec::ldpc_alist_code>(
            gpufec::ldpc_alist_code::from_alist(opt.alist));
        code.alist_path = opt.alist;
        auto ac = code.alist;
        code.frame.info_bits = size_t(ac->k());
        code.frame.coded_bits = size_t(ac->n());
        code.frame.description = ac->describe();
        code.frame.encode = [ac](const uint8_t* in, uint8_t* out) {
            ac->encode(in, out);
        };
        code.default_ebn0 = 3.0;
        code.ldpc = std::make_shared<const gpufec::ldpc_graph>(ac->graph());
        add_ldpc_variants(code, "ldpc-alist", opt, true);
    } else if (opt.code == "polar") {
        code.polar = std::make_shared<const gpufec::nr_polar_code>(
            opt.polar_k, opt.polar_e, opt.polar_crc);
        auto pc = code.polar;
        code.frame.info_bits = size_t(pc->k());
        code.frame.coded_bits = size_t(pc->e());
        std::ostringstream d;
        d << "NR polar k=" << pc->k() << " e=" << pc->e() << " " << opt.polar_crc
          << " (N=" << pc->N() << ", K=" << pc->K() << ", "
          << gpufec::to_string(pc->rate_matching()) << ")";
        code.frame.description = d.str();
        code.frame.encode = [pc](const uint8_t* in, uint8_t* out) {
            pc->encode(in, out);
        };
        code.default_ebn0 = 3.0;
        // BP rows for each --arithmetic (float, int8); the other algorithms once.
        std::vector<std::pair<std::string, std::string>> rows;
        for (const std::string& alg :
             split_list(opt.algorithm.empty() ? "sc,scl,bp" : opt.algorithm))
            if (alg == "bp")
                for (const std::string& ar :
                     split_list(opt.arithmetic.empty() ? "float" : opt.arithmetic))
                    rows.emplace_back(alg, ar);
            else
                rows.emplace_back(alg, "float");
        for (const auto& [alg, arithmetic] : rows) {
            gpufec::polar_decoder_options o;
            gpufec::set_polar_algorithm(o, alg);
            o.bp_arithmetic = gpufec::parse_polar_bp_arithmetic(arithmetic);
            o.list_size = opt.list_size;
            if (opt.iterations > 0)
                o.bp_iterations = opt.iterations;
            o.bp_early_termination = opt.early_termination;
            variant v;
            if (o.sc_first) {
                v.label = "polar " + alg + "-" + std::to_string(o.list_size);
            } else if (o.algorithm == gpufec::polar_algorithm::sc) {
                v.label = "polar sc";
                v.grfec_peer = "gr-fec polar_decoder_sc";
            } else if (o.algorithm == gpufec::polar_algorithm::scl) {
                v.label = "polar scl-" + std::to_string(o.list_size);
                v.grfec_peer =
                    "gr-fec polar_decoder_sc_list " + std::to_string(o.list_size);
            } else if (o.algorithm == gpufec::polar_algorithm::fast_ssc) {
                v.label = "polar fast-ssc";
            } else if (o.algorithm == gpufec::polar_algorithm::fast_scl) {
                v.label = "polar fast-scl-" + std::to_string(o.list_size);
            } else {
                v.label = "polar " + alg +
                          (arithmetic == "int8" ? std::string(" int8") : std::string()) +
                          " " + std::to_string(o.bp_iterations) + " it";
            }
            v.make = [pc, o]() { return gpufec::make_polar_decoder_cpu(*pc, o); };
            v.make(); // validates the options before any frame is generated
            code.variants.push_back(v);
            if (!opt.cuda_backend.empty() &&
                gpufec::registered<gpufec::polar_decoder_options>().cuda_accepts(*pc,
                                                                                 o)) {
                variant g = v;
                g.grfec_peer.clear();
                g.cuda_backend = opt.cuda_backend;
                const std::string b = opt.cuda_backend;
                g.make = [pc, o, b]() { return gpufec::make_decoder(*pc, o, b); };
                g.make();
                code.variants.push_back(g);
                code.polar_kernel_rows.emplace_back(v.label, o);
            }
        }
    } else if (opt.code == "uci") {
        auto uc = std::make_shared<const gpufec::nr_uci_small_code>(
            opt.uci_k, opt.uci_e, opt.uci_qm);
        code.frame.info_bits = size_t(uc->k());
        code.frame.coded_bits = size_t(uc->e());
        code.frame.description = uc->describe();
        code.frame.encode = [uc](const uint8_t* in, uint8_t* out) {
            uc->encode(in, out);
        };
        code.default_ebn0 = 3.0;
        std::vector<std::string> backends = { "cpu" };
        if (!opt.cuda_backend.empty())
            backends.push_back(opt.cuda_backend);
        for (const std::string& b : backends) {
            variant v;
            v.label = "uci ml";
            v.cuda_backend = b == "cpu" ? "" : b;
            v.make = [uc, b]() {
                return gpufec::make_decoder(*uc, gpufec::uci_small_decoder_options{}, b);
            };
            v.make();
            code.variants.push_back(v);
        }
    } else {
        throw gpufec::error(
            "--code must be conv, turbo, ldpc, ldpc-alist, dvbs2, polar or "
            "uci, "
            "got \"" +
            opt.code + "\"");
    }
    return code;
}

void print_table(const block_options& opt,
                 const bench_code& code,
                 double ebn0_db,
                 const std::vector<result>& results,
                 const std::vector<std::string>& notes)
{
    std::cout << "gpufec-bench " << opt.stamp.date << "  commit " << opt.stamp.commit
              << "\n"
              << "CPU: " << opt.stamp.cpu << " (" << opt.threads << " threads)\n"
              << "code: " << code.frame.description << "; LLRs from the AWGN source at "
              << ebn0_db << " dB; median of " << opt.runs << " runs x " << opt.seconds
              << " s\n\n";
    std::vector<std::pair<std::string, std::string>> rows; // (label, input)
    for (const result& r : results) {
        auto key = std::make_pair(r.label, r.input);
        if (std::find(rows.begin(), rows.end(), key) == rows.end())
            rows.push_back(key);
    }
    std::vector<std::string> backends;
    if (opt.cpu_rows)
        backends.push_back("cpu x1");
    if (opt.cpu_rows && opt.threads > 1)
        backends.push_back("cpu x" + std::to_string(opt.threads));
    if (!opt.cuda_backend.empty())
        backends.push_back(opt.cuda_backend);
    const std::string title = "decoder (info bits per second)";
    size_t label_w = title.size() + 2;
    for (const auto& row : rows)
        label_w = std::max(label_w, row.first.size() + 2);
    const int input_w = 7, cell_w = 12, stat_w = 11;
    std::cout << std::left << std::setw(int(label_w)) << title << std::setw(input_w)
              << "input";
    for (const std::string& b : backends)
        std::cout << std::right << std::setw(cell_w) << b;
    std::cout << std::right << std::setw(stat_w) << "check BER" << std::setw(stat_w)
              << "FER" << std::setw(stat_w) << "avg it"
              << "\n";
    auto find = [&](const std::string& label,
                    const std::string& input,
                    const std::string& backend) -> const result* {
        for (const result& r : results)
            if (r.label == label && r.input == input && r.backend == backend)
                return &r;
        return nullptr;
    };
    for (const auto& row : rows) {
        std::cout << std::left << std::setw(int(label_w)) << row.first
                  << std::setw(input_w) << row.second;
        const result* stats = nullptr;
        for (const std::string& b : backends) {
            const result* r = find(row.first, row.second, b);
            if (r && !stats)
                stats = r;
            std::cout << std::right << std::setw(cell_w)
                      << (r ? format_rate(r->median()) : std::string("-"));
        }
        if (stats) {
            std::ostringstream ber, fer, it;
            ber << std::scientific << std::setprecision(1) << stats->ber;
            fer << std::scientific << std::setprecision(1) << stats->fer;
            it << std::fixed << std::setprecision(2) << stats->iterations;
            std::cout << std::right << std::setw(stat_w) << ber.str() << std::setw(stat_w)
                      << fer.str() << std::setw(stat_w) << it.str();
        }
        std::cout << "\n";
    }
    // Our one-thread figures against gr-fec's peer decoder (gr-fec takes floats).
    std::vector<std::pair<std::string, double>> ratios;
    for (const variant& v : code.variants) {
        if (v.grfec_peer.empty())
            continue;
        const result* theirs = find(v.grfec_peer, "float", "cpu x1");
        if (!theirs || theirs->median() <= 0)
            continue;
        const std::pair<const result*, std::string> ours[] = {
            { find(v.label + " decode-only", "int8", "cpu x1"), " decode-only int8" },
            { find(v.label, "float", "cpu x1"), " cpu x1 float" },
        };
        for (const auto& [r, what] : ours)
            if (r)
                ratios.emplace_back(v.label + what + " / " + v.grfec_peer,
                                    r->median() / theirs->median());
    }
    if (!ratios.empty()) {
        size_t w = 0;
        for (const auto& ratio : ratios)
            w = std::max(w, ratio.first.size() + 2);
        std::cout << "ratio to gr-fec, one thread each\n";
        for (const auto& [text, value] : ratios) {
            std::ostringstream cell;
            cell << std::fixed << std::setprecision(2) << value << "x";
            std::cout << std::left << std::setw(int(w)) << text << std::right
                      << std::setw(8) << cell.str() << "\n";
        }
    }
    for (const std::string& note : notes)
        std::cout << "note: " << note << "\n";
}

void write_json(const block_options& opt,
                const bench_code& code,
                double ebn0_db,
                const std::vector<result>& results,
                const std::vector<std::string>& notes)
{
    std::ofstream f(opt.json);
    if (!f)
        throw gpufec::error("cannot write " + opt.json);
    write_json_head(f, opt.stamp, opt.threads);
    f << "  \"code_family\": \"" << opt.code << "\",\n";
    f << "  \"code\": \"" << json_escape(code.frame.description) << "\",\n";
    f << "  \"info_bits\": " << code.frame.info_bits << ",\n";
    f << "  \"coded_bits\": " << code.frame.coded_bits << ",\n";
    write_json_tail(
        f, ebn0_db, opt, notes, results, [](std::ostream& o, const result& r) {
            o << ", \"info_bits\": " << r.info_bits
              << ", \"unit\": \"bit/s\", \"median\": " << r.median()
              << ", \"check_ber\": " << r.ber << ", \"check_fer\": " << r.fer
              << ", \"check_mean_iterations\": " << r.iterations;
        });
}

} // namespace

#ifdef GPUFEC_HAVE_CUDA
namespace {

//! Device N of "cuda:N" ("cuda": 0).
int cuda_device_of(const std::string& backend)
{
    const size_t colon = backend.find(':');
    return colon == std::string::npos ? 0 : std::stoi(backend.substr(colon + 1));
}

//! Frames of k information bits per kernel-only launch: about 2^log2_bits bits.
size_t kernel_batch_frames(size_t k, int log2_bits)
{
    return std::min<size_t>(
        1 << 20, std::max<size_t>(1024, ((size_t(1) << log2_bits) + k - 1) / k));
}

//! A kernel-only result row from a timed launch of `info_bits` in `median_ms`.
result kernel_only_row(const std::string& label,
                       const std::string& backend,
                       size_t k,
                       double info_bits,
                       double median_ms,
                       double iterations)
{
    result r;
    r.group = "gpufec";
    r.label = label + " kernel-only";
    r.backend = backend;
    r.path = "kernel-only";
    r.input = "int8";
    r.info_bits = k;
    r.iterations = iterations;
    r.runs = { info_bits / (median_ms * 1e-3) };
    r.info_bits_per_s = r.runs.front();
    return r;
}

} // namespace
#endif

int run_block_code_bench(const block_options& opt)
{
    bench_code code = make_bench_code(opt);
    const double ebn0_db = opt.ebn0_given ? opt.ebn0_db : code.default_ebn0;
    std::vector<std::string> notes = code.notes;
    std::cerr << "[bench] " << code.frame.description << ": generating frames at "
              << ebn0_db << " dB\n";
    const frame_pool pool = make_code_pool(code, opt, ebn0_db);

    std::vector<result> results;
    std::vector<int> thread_counts = { 1 };
    if (opt.threads > 1)
        thread_counts.push_back(opt.threads);
    for (const variant& v : code.variants) {
        if (!v.cuda_backend.empty()) {
            std::cerr << "[bench] " << v.label << " " << v.cuda_backend << "\n";
            bench_variant(v, pool, 0, opt, results);
            continue;
        }
        if (!opt.cpu_rows)
            continue;
        for (int threads : thread_counts) {
            std::cerr << "[bench] " << v.label << " cpu x" << threads << "\n";
            bench_variant(v, pool, threads, opt, results);
        }
    }

#ifdef GPUFEC_HAVE_CUDA
    // Kernel-only: the pool's int8 frames on the device, ~2^25 information bits per
    // launch (enough codewords to fill every SM several times over).
    for (const auto& row : code.ldpc_kernel_rows) {
        std::cerr << "[bench] " << row.first << " kernel-only\n";
        const size_t k = code.frame.info_bits;
        const size_t frames = kernel_batch_frames(k, 25);
        // 4-bit input: the pool's LLRs at the 4-bit scale (one step = one natural LLR
        // unit, as bench_engine's i8>int4 rows), which the timing saturates and packs.
        const bool int4 = row.second.int4_input;
        std::vector<int8_t> llrs(pool.llrs8.begin(), pool.llrs8.end());
        if (int4)
            gpufec::quantize_llrs(pool.llrs.data(),
                                  reinterpret_cast<gpufec::llr8_t*>(llrs.data()),
                                  llrs.size(),
                                  1.0f);
        const int device = cuda_device_of(opt.cuda_backend);
        const auto t = gpufec::cuda::time_ldpc_kernel(
            *code.ldpc, row.second, device, llrs, frames, std::max(opt.runs, 20));
        results.push_back(kernel_only_row(
            row.first, opt.cuda_backend, k, t.info_bits, t.median_ms, t.mean_iterations));
        if (int4)
            results.back().input = "int4";
        else { // latency: one codeword alone in a launch (the int8 row's)
            const auto one = gpufec::cuda::time_ldpc_kernel(
                *code.ldpc, row.second, device, llrs, 1, std::max(opt.runs, 20));
            notes.push_back(row.first +
                            " latency: one codeword per launch, kernel time " +
                            std::to_string(one.median_ms * 1e3) + " us (" +
                            std::to_string(one.mean_iterations) + " iterations)");
        }
        notes.push_back(row.first + " kernel-only: " + std::to_string(frames) +
                        " frames per launch, " + t.kernel + ", median " +
                        std::to_string(t.median_ms) + " ms, mean " +
                        std::to_string(t.mean_iterations) + " iterations");
    }
#endif

#ifdef GPUFEC_HAVE_CUDA
    for (const auto& row : code.polar_kernel_rows) {
        std::cerr << "[bench] " << row.first << " kernel-only\n";
        const size_t k = code.frame.info_bits;
        const size_t frames = kernel_batch_frames(k, 24);
        const std::vector<int8_t> llrs(pool.llrs8.begin(), pool.llrs8.end());
        const int device = cuda_device_of(opt.cuda_backend);
        const auto t = gpufec::cuda::time_polar_kernel(
            *code.polar, row.second, device, llrs, frames, std::max(opt.runs, 20));
        // Mean iterations: BP's, or with SC first 1 + the fraction of frames listed.
        results.push_back(kernel_only_row(row.first,
                                          opt.cuda_backend,
                                          k,
                                          t.info_bits,
                                          t.median_ms,
                                          t.mean_iterations > 0 ? t.mean_iterations : 1));
        // The other frames-per-warp layouts, for comparison.
        for (int fpw : { 2, 4 }) {
            if (row.second.algorithm == gpufec::polar_algorithm::bp ||
                row.second.algorithm == gpufec::polar_algorithm::scl ||
                row.second.algorithm == gpufec::polar_algorithm::fast_scl)
                break; // a block or a warp per frame: no such layouts
            const auto alt = gpufec::cuda::time_polar_kernel(*code.polar,
                                                             row.second,
                                                             device,
                                                             llrs,
                                                             frames,
                                                             std::max(opt.runs, 20),
                                                             fpw);
            notes.push_back(row.first + " kernel-only with " + std::to_string(fpw) +
                            " frame(s) per warp: " +
                            std::to_string(alt.info_bits / (alt.median_ms * 1e-3) / 1e9) +
                            " Gb/s");
        }
        const auto one = gpufec::cuda::time_polar_kernel(
            *code.polar, row.second, device, llrs, 1, std::max(opt.runs, 20));
        notes.push_back(
            row.first + " latency: one frame per launch, kernel time " +
            std::to_string(one.median_ms * 1e3) +
            " us (events on an idle GPU: the host's launch calls included); " +
            std::to_string(one.gpu_side_median_ms * 1e3) +
            " us on the GPU side (launches enqueued behind a hold kernel)");
        if (row.second.algorithm == gpufec::polar_algorithm::sc ||
            row.second.algorithm == gpufec::polar_algorithm::fast_ssc) {
            // The throughput layout on one frame, against the small-batch one above.
            const auto wide = gpufec::cuda::time_polar_kernel(
                *code.polar, row.second, device, llrs, 1, std::max(opt.runs, 20), 2);
            notes.push_back(row.first + " latency with the 2-frames-per-warp layout: " +
                            std::to_string(wide.median_ms * 1e3) + " us");
        }
        notes.push_back(row.first + " kernel-only: " + std::to_string(frames) +
                        " frames per launch, " + t.kernel + ", median " +
                        std::to_string(t.median_ms) + " ms");
    }
#endif

#ifdef GPUFEC_HAVE_CUDA
    for (const auto& row : code.turbo_kernel_rows) {
        std::cerr << "[bench] " << row.first << " kernel-only\n";
        const size_t k = code.frame.info_bits;
        const size_t frames = kernel_batch_frames(k, 24);
        const std::vector<int8_t> llrs(pool.llrs8.begin(), pool.llrs8.end());
        const int device = cuda_device_of(opt.cuda_backend);
        const auto t = gpufec::cuda::time_turbo_kernel(
            *code.turbo, row.second, device, llrs, frames, std::max(opt.runs, 20));
        results.push_back(kernel_only_row(
            row.first, opt.cuda_backend, k, t.info_bits, t.median_ms, t.mean_iterations));
        const auto one = gpufec::cuda::time_turbo_kernel(
            *code.turbo, row.second, device, llrs, 1, std::max(opt.runs, 20));
        notes.push_back(row.first + " latency: one code block per launch (" + one.kernel +
                        " kernel), kernel time " + std::to_string(one.median_ms * 1e3) +
                        " us (" + std::to_string(one.mean_iterations) +
                        " iterations); back to back " +
                        std::to_string(one.back_to_back_ms * 1e3) +
                        " us per launch; SM clock of one block " +
                        std::to_string(int(one.sm_clock_mhz)) + " MHz");
        notes.push_back(row.first + " kernel-only: " + std::to_string(frames) +
                        " frames per launch, " + t.kernel + " kernel, median " +
                        std::to_string(t.median_ms) + " ms, mean " +
                        std::to_string(t.mean_iterations) + " iterations");
    }
#endif

    // The AWGN source on the CPU (every thread) and the GPU (NR LDPC's own encoder,
    // any other affine code's generator): engine to host (the source block's path, float
    // and int8 LLRs), engine on the device and the kernel alone; in information bits
    // per second. A code the GPU source refuses (its generator too large) gets a note.
    std::shared_ptr<gpufec::awgn_bpsk_source> gpu;
    const gpufec::awgn_frame_source_options source_options{ ebn0_db, opt.seed };
    if (opt.source && !opt.cuda_backend.empty()) {
        try {
            const auto t0 = steady::now();
            gpu = gpufec::make(code.frame, source_options, opt.cuda_backend);
            notes.push_back("GPU source of " + code.frame.description + " made in " +
                            std::to_string(int(1000 * seconds_since(t0))) + " ms");
        } catch (const gpufec::error& e) {
            notes.push_back(std::string("no GPU source: ") + e.what());
        }
    }
    if (gpu) {
        std::vector<result> source_rows;
        std::cerr << "[bench] source\n";
        if (opt.cpu_rows) {
            std::shared_ptr<gpufec::awgn_bpsk_source> cpu =
                gpufec::make(code.frame, source_options, "cpu");
            bench_source_engine(cpu, opt, "cpu", gpufec::memory_side::host, source_rows);
            source_rows.back().backend = "cpu x" + std::to_string(opt.threads);
        }
        bench_source_engine(
            gpu, opt, opt.cuda_backend, gpufec::memory_side::host, source_rows);
        // int8 LLRs made on the device: what the source block's "byte" output takes.
        bench_source_engine(
            gpu, opt, opt.cuda_backend, gpufec::memory_side::host, source_rows, 8.0f);
        bench_source_engine(
            gpu, opt, opt.cuda_backend, gpufec::memory_side::device, source_rows);
        bench_source_device_only(*gpu, opt, opt.cuda_backend, source_rows);
        for (result r : source_rows) {
            const double info_per_byte = r.info_bits_per_s / r.median();
            for (double& run : r.runs)
                run *= info_per_byte;
            r.unit = "bit/s";
            const bool int8 =
                r.label.size() > 5 && r.label.substr(r.label.size() - 5) == " int8";
            r.label =
                "awgn source, " + r.path + (int8 ? " (int8 LLRs)" : " (float LLRs)");
            results.push_back(r);
        }
    }

    // One-thread decoders side by side, their runs interleaved.
    std::vector<timed_case> side_by_side;
    if (opt.use_int8 && opt.cpu_rows)
        for (const variant& v : code.variants) {
            if (!v.cuda_backend.empty())
                continue;
            std::cerr << "[bench] " << v.label << " decode-only\n";
            side_by_side.push_back(make_variant_decode_only(v, pool, opt));
        }
#ifdef GPUFEC_HAVE_GNURADIO
    if (opt.grfec && opt.cpu_rows && (code.polar || code.alist)) {
        std::cerr << "[bench] gr-fec\n";
        std::vector<timed_case> g;
        if (code.polar) {
            g = make_grfec_polar_cases(code, pool, opt, notes);
        } else {
            gpufec::ldpc_decoder_options defaults;
            g = make_grfec_ldpc_cases(code,
                                      pool,
                                      opt,
                                      opt.iterations > 0 ? opt.iterations
                                                         : defaults.iterations,
                                      notes);
        }
        for (timed_case& c : g)
            side_by_side.push_back(std::move(c));
    }
#else
    if (opt.grfec && (code.polar || code.alist))
        notes.push_back("built without GNU Radio: no gr-fec comparison");
#endif
    run_interleaved(side_by_side, opt.runs, results);

    // Decoders that do not decode at this Eb/N0 make the figures meaningless.
    const double ber_limit = opt.check_ber;
    bool sane = true;
    double worst = 0;
    for (const result& r : results) {
        worst = std::max(worst, r.ber);
        if (r.ber > ber_limit) {
            std::ostringstream s;
            s << "CHECK FAILED: " << r.label << " (" << r.input << ", " << r.backend
              << ") decoded with BER " << r.ber << " at " << ebn0_db << " dB";
            notes.push_back(s.str());
            sane = false;
        }
    }
    if (sane) {
        std::ostringstream s;
        s << "check: every decoder's warm-up output matched the sent bits up to BER "
          << worst << " (limit " << ber_limit << ") at " << ebn0_db << " dB";
        notes.push_back(s.str());
    }
    notes.push_back("early termination makes iterative decoders faster at higher Eb/N0; "
                    "figures hold for this Eb/N0");
    print_table(opt, code, ebn0_db, results, notes);
    if (!opt.json.empty())
        write_json(opt, code, ebn0_db, results, notes);
    return sane ? 0 : 1;
}

} // namespace gpufec_bench
