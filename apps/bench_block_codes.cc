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
#include <gpufec/engine.h>
#include <gpufec/ldpc.h>
#include <gpufec/ldpc_alist.h>
#include <gpufec/ldpc_decoding.h>
#include <gpufec/polar.h>
#include <gpufec/polar_decoding.h>
#include <gpufec/turbo.h>
#include <gpufec/turbo_decoding.h>

#ifdef GPUFEC_HAVE_GNURADIO
#include <gnuradio/fec/ldpc_decoder.h>
#include <gnuradio/fec/ldpc_encoder.h>
#include <gnuradio/fec/polar_decoder_sc.h>
#include <gnuradio/fec/polar_decoder_sc_list.h>
#include <gnuradio/fec/polar_encoder.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
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

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t0)
{
    return std::chrono::duration<double>(steady::now() - t0).count();
}

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

std::string format_rate(double bits_per_s)
{
    std::ostringstream s;
    const char* prefix = "";
    double v = bits_per_s;
    if (v >= 1e9) {
        v /= 1e9;
        prefix = "G";
    } else if (v >= 1e6) {
        v /= 1e6;
        prefix = "M";
    } else if (v >= 1e3) {
        v /= 1e3;
        prefix = "k";
    }
    s << std::fixed << std::setprecision(v >= 100 ? 0 : (v >= 10 ? 1 : 2)) << v << ' '
      << prefix << "b/s";
    return s.str();
}

std::string json_escape(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (static_cast<unsigned char>(c) < 0x20)
            continue;
        out += c;
    }
    return out;
}

//! One measured figure.
struct result {
    std::string group;   //!< "gpufec" or "gr-fec"
    std::string label;   //!< decoder row, e.g. "turbo int8 scaled-max-log-map 6 it"
    std::string backend; //!< "cpu x1", "cpu x2"
    std::string path;    //!< "end-to-end" | "decode-only"
    std::string input;   //!< "float" | "int8"
    size_t info_bits = 0;
    std::vector<double> runs; //!< information bits per second, one per timed run
    double ber = -1, fer = -1, iterations = -1; //!< warm-up check
    double median() const
    {
        std::vector<double> v = runs;
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    }
};

//! Warm-up statistics: bit and frame errors against the sent bits, iterations.
struct check_stats {
    uint64_t bits = 0, bit_errors = 0, frames = 0, frame_errors = 0, iterations = 0;
    void add(const uint8_t* decoded, const uint8_t* sent, size_t n, int iters)
    {
        size_t e = 0;
        for (size_t i = 0; i < n; ++i)
            e += (decoded[i] & 1) != (sent[i] & 1);
        bits += n;
        bit_errors += e;
        frames += 1;
        frame_errors += e != 0;
        iterations += uint64_t(std::max(0, iters));
    }
    void store(result& r) const
    {
        r.ber = bits ? double(bit_errors) / double(bits) : 0.0;
        r.fer = frames ? double(frame_errors) / double(frames) : 0.0;
        r.iterations = frames ? double(iterations) / double(frames) : 0.0;
    }
};

//! A decoder row: how to build it, and the gr-fec row it is compared with (if any).
struct variant {
    std::string label;
    std::function<std::unique_ptr<gpufec::batch_decoder>()> make;
    std::string grfec_peer;
};

//! The code under test: its frame definition for the AWGN source and its decoder rows.
struct bench_code {
    gpufec::frame_code frame;
    double default_ebn0 = 2.0;
    std::vector<variant> variants;
    std::shared_ptr<const gpufec::nr_polar_code> polar;
    std::shared_ptr<const gpufec::ldpc_alist_code> alist;
    std::string alist_path;
    std::vector<std::string> notes;
};

//! Noisy frames generated once: float LLRs, the engine's int8 quantization, sent bits.
struct frame_pool {
    size_t frames = 0, llrs_per_frame = 0, bits_per_frame = 0;
    float sigma = 0;
    std::vector<float> llrs;
    std::vector<gpufec::llr8_t> llrs8;
    std::vector<uint8_t> info_bits;
    const uint8_t* sent(size_t f) const { return info_bits.data() + f * bits_per_frame; }
};

frame_pool make_pool(const bench_code& code, const block_options& opt, double ebn0_db)
{
    frame_pool pool;
    auto source = gpufec::make_awgn_bpsk_source(
        code.frame, ebn0_db, opt.seed, gpufec::resolve_backend("cpu"));
    pool.llrs_per_frame = source->llrs_per_frame();
    pool.bits_per_frame = source->bits_per_frame();
    const double frame_bytes = double(pool.llrs_per_frame) * sizeof(float);
    // At least enough frames for a few full engine batches.
    pool.frames =
        size_t(std::max(16.0, std::floor(opt.pool_mib * 1048576.0 / frame_bytes)));
    pool.sigma = float(gpufec::awgn_sigma(
        double(code.frame.info_bits) / double(code.frame.coded_bits), ebn0_db));
    pool.llrs.resize(pool.frames * pool.llrs_per_frame);
    pool.llrs8.resize(pool.llrs.size());
    pool.info_bits.resize(pool.frames * pool.bits_per_frame);
    source->generate(0, pool.frames, pool.llrs.data(), pool.info_bits.data());
    const gpufec::engine_config defaults;
    gpufec::quantize_llrs(
        pool.llrs.data(), pool.llrs8.data(), pool.llrs.size(), defaults.llr_scale);
    return pool;
}

size_t batch_frames(const block_options& opt, size_t info_bits)
{
    const size_t bits = opt.batch_bits ? opt.batch_bits : (size_t(1) << 18);
    return std::max<size_t>(1, (bits + info_bits - 1) / info_bits);
}

/*!
 * Streams pool frames through the engine for `seconds`, or, when `check` is given,
 * exactly `check_frames` frames with every output compared to the sent bits. Returns
 * decoded information bits per second.
 */
double run_engine(gpufec::batch_engine& engine,
                  const frame_pool& pool,
                  bool int8_input,
                  double seconds,
                  size_t check_frames,
                  check_stats* check)
{
    const size_t items = pool.llrs_per_frame;
    uint64_t next_id = 0, bits = 0;
    std::vector<uint8_t> scratch;
    gpufec::completed_frame done;
    auto consume = [&](const gpufec::completed_frame& f) {
        bits += f.nbits;
        if (check) {
            scratch.resize(f.nbits);
            gpufec::unpack_bits(f.packed, scratch.data(), f.nbits);
            check->add(scratch.data(),
                       pool.sent(f.id % pool.frames),
                       f.nbits,
                       f.status.iterations);
        }
    };
    const auto t0 = steady::now();
    const auto deadline = t0 + std::chrono::duration_cast<steady::duration>(
                                   std::chrono::duration<double>(seconds));
    for (;;) {
        if (check ? next_id >= check_frames : steady::now() >= deadline)
            break;
        const size_t index = next_id % pool.frames;
        size_t run = std::min<size_t>(pool.frames - index,
                                      std::max<size_t>(1, (size_t(1) << 24) / items));
        if (check)
            run = std::min<size_t>(run, check_frames - next_id);
        const size_t taken =
            int8_input ? engine.submit_frames(
                             pool.llrs8.data() + index * items, items, run, next_id)
                       : engine.submit_frames(
                             pool.llrs.data() + index * items, items, run, next_id);
        next_id += taken;
        if (taken < run) {
            if (!engine.pop_wait(done))
                throw gpufec::error("engine refused a frame with nothing pending");
            consume(done);
        }
        while (engine.try_pop(done))
            consume(done);
    }
    engine.flush();
    while (engine.pop_wait(done))
        consume(done);
    return double(bits) / seconds_since(t0);
}

void bench_engine(const variant& v,
                  const frame_pool& pool,
                  int threads,
                  const block_options& opt,
                  std::vector<result>& results)
{
    std::shared_ptr<gpufec::batch_decoder> decoder = v.make();
    gpufec::engine_config config;
    config.max_batch_frames = batch_frames(opt, pool.bits_per_frame);
    config.cpu_threads = threads;
    gpufec::batch_engine engine(decoder, config);
    for (int pass = 0; pass < 2; ++pass) {
        const bool int8_input = pass == 1;
        if ((int8_input && !opt.use_int8) || (!int8_input && !opt.use_float))
            continue;
        result r;
        r.group = "gpufec";
        r.label = v.label;
        r.backend = "cpu x" + std::to_string(threads);
        r.path = "end-to-end";
        r.input = int8_input ? "int8" : "float";
        r.info_bits = pool.bits_per_frame;
        // Warm-up that checks the output: at least two full batches.
        const size_t check_frames = std::max<size_t>(2 * config.max_batch_frames,
                                                     std::min<size_t>(pool.frames, 64));
        check_stats check;
        run_engine(engine, pool, int8_input, 0, check_frames, &check);
        check.store(r);
        for (int i = 0; i < opt.runs; ++i)
            r.runs.push_back(
                run_engine(engine, pool, int8_input, opt.seconds, 0, nullptr));
        results.push_back(r);
    }
}

//! A figure measured one run at a time, so that figures compared with each other take
//! their runs in turn and see the same machine load.
struct timed_case {
    result r;
    std::function<double()> run_once;
};

void run_interleaved(std::vector<timed_case>& cases,
                     int runs,
                     std::vector<result>& results)
{
    for (int run = 0; run < runs; ++run)
        for (timed_case& c : cases)
            c.r.runs.push_back(c.run_once());
    for (timed_case& c : cases)
        results.push_back(c.r);
}

//! batch_decoder::decode() on int8 LLRs on one thread, no engine: the figure that
//! compares directly with gr-fec's generic_work().
timed_case
make_decode_only_case(const variant& v, const frame_pool& pool, const block_options& opt)
{
    struct state {
        std::unique_ptr<gpufec::batch_decoder> decoder;
        size_t frames = 0, out_stride = 0, first = 0;
        std::vector<gpufec::frame_extent> extents;
        std::vector<gpufec::frame_status> status;
        std::vector<uint8_t> out;
        gpufec::exec_ctx ctx;
    };
    auto st = std::make_shared<state>();
    st->decoder = v.make();
    st->frames = std::min<size_t>(
        pool.frames, std::max<size_t>(1, (size_t(1) << 16) / pool.bits_per_frame));
    st->out_stride = gpufec::aligned_packed_bytes(pool.bits_per_frame);
    st->extents.resize(st->frames);
    st->status.resize(st->frames);
    st->out.resize(st->frames * st->out_stride);
    for (size_t i = 0; i < st->frames; ++i)
        st->extents[i] = { uint64_t(i * pool.llrs_per_frame),
                           uint32_t(pool.llrs_per_frame),
                           uint64_t(i * st->out_stride),
                           uint32_t(pool.bits_per_frame) };
    st->ctx.parallel_for = [](size_t n, const std::function<void(size_t)>& body) {
        for (size_t i = 0; i < n; ++i)
            body(i);
    };
    const frame_pool* p = &pool;
    auto decode_batch = [st, p]() {
        if (st->first + st->frames > p->frames)
            st->first = 0;
        gpufec::frame_batch batch;
        batch.in = p->llrs8.data() + st->first * p->llrs_per_frame;
        batch.out = st->out.data();
        batch.frames = st->extents.data();
        batch.num_frames = st->frames;
        batch.status = st->status.data();
        st->decoder->decode(batch, st->ctx);
    };

    timed_case c;
    c.r.group = "gpufec";
    c.r.label = v.label + " decode-only";
    c.r.backend = "cpu x1";
    c.r.path = "decode-only";
    c.r.input = "int8";
    c.r.info_bits = pool.bits_per_frame;
    decode_batch(); // warm-up and check
    check_stats check;
    std::vector<uint8_t> bits(pool.bits_per_frame);
    for (size_t i = 0; i < st->frames; ++i) {
        gpufec::unpack_bits(
            st->out.data() + i * st->out_stride, bits.data(), pool.bits_per_frame);
        check.add(
            bits.data(), pool.sent(st->first + i), bits.size(), st->status[i].iterations);
    }
    check.store(c.r);
    const double seconds = opt.seconds;
    c.run_once = [st, p, decode_batch, seconds]() {
        const auto t0 = steady::now();
        uint64_t decoded = 0;
        do {
            st->first += st->frames;
            decode_batch();
            decoded += st->frames * p->bits_per_frame;
        } while (seconds_since(t0) < seconds);
        return decoded / seconds_since(t0);
    };
    return c;
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
        size_t index = 0;
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
    const double seconds = opt.seconds;
    c.run_once = [st, g, decode_frame, counted, seconds]() {
        const auto t0 = steady::now();
        uint64_t decoded = 0;
        do {
            decode_frame(st->index);
            st->index = (st->index + 1) % g->frames;
            decoded += counted;
        } while (seconds_since(t0) < seconds);
        return decoded / seconds_since(t0);
    };
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

void add_ldpc_variants(bench_code& code,
                       const std::string& prefix,
                       const block_options& opt,
                       const std::function<std::unique_ptr<gpufec::batch_decoder>(
                           const gpufec::ldpc_decoder_options&)>& factory,
                       bool compare_grfec)
{
    const auto algorithms =
        split_list(opt.algorithm.empty() ? "normalized" : opt.algorithm);
    const auto arithmetics =
        split_list(opt.arithmetic.empty() ? "int8,float" : opt.arithmetic);
    for (const std::string& alg : algorithms)
        for (const std::string& ar : arithmetics) {
            gpufec::ldpc_decoder_options o;
            o.algorithm = gpufec::parse_ldpc_algorithm(alg);
            o.arithmetic = gpufec::parse_ldpc_arithmetic(ar);
            if (opt.iterations > 0)
                o.iterations = opt.iterations;
            o.early_termination = opt.early_termination;
            variant v;
            v.label = prefix + " " + ar + " " + alg + " " + std::to_string(o.iterations) +
                      " it";
            v.make = [factory, o]() { return factory(o); };
            if (compare_grfec)
                v.grfec_peer =
                    "gr-fec ldpc_decoder " + std::to_string(o.iterations) + " it";
            code.variants.push_back(v);
        }
}

bench_code make_bench_code(const block_options& opt)
{
    bench_code code;
    if (opt.code == "turbo") {
        auto tc = std::make_shared<const gpufec::lte_turbo_code>(opt.turbo_k, opt.crc24b);
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
            }
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
        code.default_ebn0 = 2.0;
        add_ldpc_variants(
            code,
            "ldpc",
            opt,
            [lc](const gpufec::ldpc_decoder_options& o) {
                return gpufec::make_ldpc_decoder_cpu(*lc, o);
            },
            false);
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
        add_ldpc_variants(
            code,
            "ldpc-alist",
            opt,
            [ac](const gpufec::ldpc_decoder_options& o) {
                return gpufec::make_ldpc_decoder_cpu(*ac, o);
            },
            true);
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
        for (const std::string& alg :
             split_list(opt.algorithm.empty() ? "sc,scl,bp" : opt.algorithm)) {
            gpufec::polar_decoder_options o;
            o.algorithm = alg;
            o.list_size = opt.list_size;
            if (opt.iterations > 0)
                o.bp_iterations = opt.iterations;
            o.bp_early_termination = opt.early_termination;
            variant v;
            if (alg == "sc") {
                v.label = "polar sc";
                v.grfec_peer = "gr-fec polar_decoder_sc";
            } else if (alg == "scl") {
                v.label = "polar scl-" + std::to_string(o.list_size);
                v.grfec_peer =
                    "gr-fec polar_decoder_sc_list " + std::to_string(o.list_size);
            } else {
                v.label = "polar " + alg + " " + std::to_string(o.bp_iterations) + " it";
            }
            v.make = [pc, o]() { return gpufec::make_polar_decoder_cpu(*pc, o); };
            v.make(); // validates the options before any frame is generated
            code.variants.push_back(v);
        }
    } else {
        throw gpufec::error(
            "--code must be conv, turbo, ldpc, ldpc-alist or polar, got \"" + opt.code +
            "\"");
    }
    return code;
}

void print_table(const block_options& opt,
                 const bench_code& code,
                 double ebn0_db,
                 const std::vector<result>& results,
                 const std::vector<std::string>& notes)
{
    std::cout << "gpufec-bench " << opt.date << "  commit " << opt.commit << "\n"
              << "CPU: " << opt.cpu << " (" << opt.threads << " threads)\n"
              << "code: " << code.frame.description << "; LLRs from the AWGN source at "
              << ebn0_db << " dB; median of " << opt.runs << " runs x " << opt.seconds
              << " s\n\n";
    std::vector<std::pair<std::string, std::string>> rows; // (label, input)
    for (const result& r : results) {
        auto key = std::make_pair(r.label, r.input);
        if (std::find(rows.begin(), rows.end(), key) == rows.end())
            rows.push_back(key);
    }
    std::vector<std::string> backends = { "cpu x1" };
    if (opt.threads > 1)
        backends.push_back("cpu x" + std::to_string(opt.threads));
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
    f << std::setprecision(10);
    f << "{\n  \"tool\": \"gpufec-bench\",\n";
    f << "  \"date\": \"" << opt.date << "\",\n";
    f << "  \"commit\": \"" << json_escape(opt.commit) << "\",\n";
    f << "  \"cpu\": \"" << json_escape(opt.cpu) << "\",\n";
    f << "  \"cpu_threads\": " << opt.threads << ",\n";
    f << "  \"code_family\": \"" << opt.code << "\",\n";
    f << "  \"code\": \"" << json_escape(code.frame.description) << "\",\n";
    f << "  \"info_bits\": " << code.frame.info_bits << ",\n";
    f << "  \"coded_bits\": " << code.frame.coded_bits << ",\n";
    f << "  \"ebn0_db\": " << ebn0_db << ",\n";
    f << "  \"seconds_per_run\": " << opt.seconds << ",\n";
    f << "  \"runs\": " << opt.runs << ",\n";
    f << "  \"notes\": [";
    for (size_t i = 0; i < notes.size(); ++i)
        f << (i ? ", " : "") << '"' << json_escape(notes[i]) << '"';
    f << "],\n  \"results\": [\n";
    for (size_t i = 0; i < results.size(); ++i) {
        const result& r = results[i];
        f << "    {\"label\": \"" << json_escape(r.label) << "\", \"group\": \""
          << r.group << "\", \"backend\": \"" << r.backend << "\", \"path\": \"" << r.path
          << "\", \"input\": \"" << r.input << "\", \"info_bits\": " << r.info_bits
          << ", \"unit\": \"bit/s\", \"median\": " << r.median()
          << ", \"check_ber\": " << r.ber << ", \"check_fer\": " << r.fer
          << ", \"check_mean_iterations\": " << r.iterations << ", \"runs\": [";
        for (size_t j = 0; j < r.runs.size(); ++j)
            f << (j ? ", " : "") << r.runs[j];
        f << "]}" << (i + 1 < results.size() ? "," : "") << "\n";
    }
    f << "  ]\n}\n";
}

} // namespace

int run_block_code_bench(const block_options& opt)
{
    bench_code code = make_bench_code(opt);
    const double ebn0_db = opt.ebn0_given ? opt.ebn0_db : code.default_ebn0;
    std::vector<std::string> notes = code.notes;
    std::cerr << "[bench] " << code.frame.description << ": generating frames at "
              << ebn0_db << " dB\n";
    const frame_pool pool = make_pool(code, opt, ebn0_db);

    std::vector<result> results;
    std::vector<int> thread_counts = { 1 };
    if (opt.threads > 1)
        thread_counts.push_back(opt.threads);
    for (const variant& v : code.variants)
        for (int threads : thread_counts) {
            std::cerr << "[bench] " << v.label << " cpu x" << threads << "\n";
            bench_engine(v, pool, threads, opt, results);
        }

    // One-thread decoders side by side, their runs interleaved.
    std::vector<timed_case> side_by_side;
    if (opt.use_int8)
        for (const variant& v : code.variants) {
            std::cerr << "[bench] " << v.label << " decode-only\n";
            side_by_side.push_back(make_decode_only_case(v, pool, opt));
        }
#ifdef GPUFEC_HAVE_GNURADIO
    if (opt.grfec && (code.polar || code.alist)) {
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
    const double ber_limit = 0.05;
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
