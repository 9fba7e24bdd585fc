/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-bench --code mimo: the MIMO detectors (vectors/s and detected bits/s) end to
// end through the batching engine on the CPU and CUDA, CUDA kernel-only, and the MIMO
// channel source; the warm-up checks each detector's hard decisions against the sent
// bits.
#include "bench_mimo.h"

#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/mimo_channel.h>
#include <gpufec/mimo_detection.h>

#ifdef GPUFEC_HAVE_CUDA
#include "cuda/mimo/mimo_cuda.h"
#endif

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace gpufec_bench {
namespace {

using gpufec::cfloat;

//! Source frames generated once and cycled through.
struct mimo_pool {
    size_t frames = 0, samples = 0, aux = 0, bits = 0;
    std::vector<cfloat> y, h;
    std::vector<uint8_t> sent;
};

mimo_pool make_mimo_pool(const gpufec::mimo_setup& s, double noise_var, uint64_t seed)
{
    gpufec::mimo_source_options o;
    o.noise_var = noise_var;
    o.seed = seed;
    auto src = gpufec::make(s, o, "cpu");
    mimo_pool p;
    p.samples = src->samples_per_frame();
    p.aux = src->channel_per_frame();
    p.bits = src->bits_per_frame();
    p.frames = std::max<size_t>(1024, (size_t(1) << 18) / s.coherence);
    p.y.resize(p.frames * p.samples);
    p.h.resize(p.frames * p.aux);
    p.sent.resize(p.frames * p.bits);
    src->generate(0, p.frames, nullptr, p.y.data(), p.h.data(), p.sent.data());
    return p;
}

/*!
 * Streams pool frames through the engine (bulk submit, bulk pop) for `seconds`, or
 * with `check` exactly one pass over the pool, counting hard-decision errors. Returns
 * detected bits per second.
 */
double run_mimo_engine(gpufec::batch_engine& eng,
                       const mimo_pool& pool,
                       double seconds,
                       check_stats* check)
{
    std::vector<float> llrs(pool.frames * pool.bits);
    std::vector<uint8_t> hard(pool.bits);
    const uint64_t total = check ? pool.frames : UINT64_MAX;
    uint64_t submitted = 0, finished = 0;
    bool stopping = false;
    const auto t0 = steady::now();
    while (true) {
        if (!stopping) {
            const size_t in = submitted % pool.frames;
            const size_t n = static_cast<size_t>(
                std::min<uint64_t>(pool.frames - in, total - submitted));
            submitted += eng.submit_frames(pool.y.data() + in * pool.samples,
                                           pool.samples,
                                           pool.h.data() + in * pool.aux,
                                           pool.aux,
                                           n,
                                           submitted);
            stopping = submitted == total || (!check && seconds_since(t0) >= seconds);
        }
        if (finished == submitted) {
            if (stopping)
                break;
            continue;
        }
        // Everything pending sits in the filling slot: send it before waiting.
        if (stopping || eng.frames_in_filling() == eng.frames_pending())
            eng.launch();
        const size_t out = finished % pool.frames;
        const size_t want = static_cast<size_t>(
            std::min<uint64_t>(pool.frames - out, submitted - finished));
        const size_t k =
            eng.pop_frames(llrs.data() + out * pool.bits, nullptr, want, true);
        if (check)
            for (size_t f = out; f < out + k; f++) {
                for (size_t i = 0; i < pool.bits; i++)
                    hard[i] = llrs[f * pool.bits + i] < 0.0f;
                check->add(hard.data(), pool.sent.data() + f * pool.bits, pool.bits, 1);
            }
        finished += k;
    }
    return static_cast<double>(finished * pool.bits) / seconds_since(t0);
}

struct row {
    std::string label, backend, path;
    double bits_per_s = 0, vectors_per_s = 0, ber = -1;
};

} // namespace

int run_mimo_bench(const mimo_options& opt)
{
    gpufec::mimo_setup s;
    s.nt = opt.nt;
    s.nr = opt.nr;
    s.mod = gpufec::parse_modulation(opt.modulation);
    s.coherence = opt.coherence;
    const double noise_var = gpufec::mimo_noise_var_esn0(opt.esn0_db);
    const int bits_per_vector = s.nt * gpufec::constellation(s.mod).bits_per_symbol();
    std::cerr << "[bench] mimo " << s.nt << "x" << s.nr << " " << opt.modulation
              << ", coherence " << s.coherence << ": generating frames at Es/N0 "
              << opt.esn0_db << " dB\n";
    const mimo_pool pool = make_mimo_pool(s, noise_var, opt.seed);
    std::vector<row> rows;
    std::vector<std::string> notes;
    std::vector<std::string> algorithms;
    {
        std::stringstream ss(opt.algorithms);
        std::string a;
        while (std::getline(ss, a, ','))
            algorithms.push_back(a);
    }
    std::vector<std::pair<std::string, int>> backends = { { "cpu", 1 } };
    if (opt.threads > 1)
        backends.push_back({ "cpu", opt.threads });
    if (!opt.cuda_backend.empty())
        backends.push_back({ opt.cuda_backend, 0 });
    bool sane = true;
    for (const std::string& a : algorithms) {
        gpufec::mimo_detector_options o;
        o.algorithm = gpufec::parse_mimo_algorithm(a);
        o.noise_var = static_cast<float>(noise_var);
        for (const auto& [backend, threads] : backends) {
            const bool cuda = backend != "cpu";
            if (cuda &&
                !gpufec::registered<gpufec::mimo_detector_options>().cuda_accepts(s, o))
                continue;
            const std::string name = cuda ? backend : "cpu x" + std::to_string(threads);
            std::cerr << "[bench] " << a << " " << name << " end-to-end\n";
            auto det = std::shared_ptr<gpufec::batch_decoder>(
                gpufec::make_decoder(s, o, backend));
            gpufec::engine_config cfg;
            cfg.max_batch_frames =
                cuda ? std::max<size_t>(4096, (size_t(1) << 18) / s.coherence) : 1024;
            cfg.cpu_threads = threads;
            cfg.num_slots = cuda ? 4 : 3;
            gpufec::batch_engine eng(det, cfg);
            check_stats check;
            run_mimo_engine(eng, pool, 0, &check);
            std::vector<double> runs;
            for (int r = 0; r < opt.runs; r++)
                runs.push_back(run_mimo_engine(eng, pool, opt.seconds, nullptr));
            std::sort(runs.begin(), runs.end());
            row rw;
            rw.label = a;
            rw.backend = name;
            rw.path = "end-to-end";
            rw.bits_per_s = runs[runs.size() / 2];
            rw.vectors_per_s = rw.bits_per_s / bits_per_vector;
            rw.ber = check.ber();
            rows.push_back(rw);
            if (rw.ber > 0.2) {
                sane = false;
                notes.push_back("CHECK FAILED: " + a + " on " + name + " BER " +
                                std::to_string(rw.ber));
            }
        }
#ifdef GPUFEC_HAVE_CUDA
        if (!opt.cuda_backend.empty() &&
            gpufec::registered<gpufec::mimo_detector_options>().cuda_accepts(s, o)) {
            std::cerr << "[bench] " << a << " kernel-only\n";
            const int device = std::stoi(opt.cuda_backend.substr(5));
            const size_t frames =
                (size_t(1) << (o.algorithm == gpufec::mimo_algorithm::lmmse ? 22 : 20)) /
                s.coherence;
            const auto t = gpufec::cuda::time_mimo_kernel(
                s, o, device, frames, std::max(opt.runs, 20));
            row rw;
            rw.label = a;
            rw.backend = opt.cuda_backend;
            rw.path = "kernel-only";
            rw.bits_per_s = t.bits / (t.median_ms * 1e-3);
            rw.vectors_per_s = t.vectors / (t.median_ms * 1e-3);
            rows.push_back(rw);
            notes.push_back(a + " kernel-only: " + std::to_string(frames) +
                            " coherence blocks per launch, " + t.kernel + ", median " +
                            std::to_string(t.median_ms) + " ms");
        }
#endif
    }
    // The channel source: vectors generated into host memory.
    for (const auto& [backend, threads] : backends) {
        if (threads > 1)
            continue;
        gpufec::mimo_source_options so;
        so.noise_var = noise_var;
        auto src = gpufec::make(s, so, backend);
        std::vector<cfloat> y(pool.frames * pool.samples), h(pool.frames * pool.aux);
        std::vector<uint8_t> b(pool.frames * pool.bits);
        src->generate(0, pool.frames, nullptr, y.data(), h.data(), b.data()); // warm-up
        std::vector<double> runs;
        for (int r = 0; r < opt.runs; r++) {
            const auto t0 = steady::now();
            uint64_t frames = 0;
            while (seconds_since(t0) < opt.seconds) {
                src->generate(frames, pool.frames, nullptr, y.data(), h.data(), b.data());
                frames += pool.frames;
            }
            runs.push_back(double(frames * pool.bits) / seconds_since(t0));
        }
        std::sort(runs.begin(), runs.end());
        row rw;
        rw.label = "channel source";
        rw.backend = backend == "cpu" ? "cpu x1" : backend;
        rw.path = "to host";
        rw.bits_per_s = runs[runs.size() / 2];
        rw.vectors_per_s = rw.bits_per_s / bits_per_vector;
        rows.push_back(rw);
    }

    std::cout << "gpufec-bench " << opt.stamp.date << "  commit " << opt.stamp.commit
              << "\nCPU: " << opt.stamp.cpu << " (" << opt.threads << " threads)\n"
              << "GPU: " << (opt.cuda_backend.empty() ? "none used" : opt.gpu) << "\n"
              << "MIMO " << s.nt << "x" << s.nr << " " << opt.modulation
              << ", a channel matrix per " << s.coherence
              << " vector(s), Rayleigh, Es/N0 " << opt.esn0_db << " dB; median of "
              << opt.runs << " runs x " << opt.seconds
              << " s; detected bits = " << bits_per_vector << " per vector\n\n";
    std::cout << std::left << std::setw(16) << "detector" << std::setw(10) << "backend"
              << std::setw(13) << "path" << std::right << std::setw(13) << "bits/s"
              << std::setw(15) << "vectors/s" << std::setw(11) << "check BER"
              << "\n";
    for (const row& r : rows) {
        std::ostringstream ber;
        if (r.ber >= 0)
            ber << std::scientific << std::setprecision(1) << r.ber;
        else
            ber << "-";
        std::cout << std::left << std::setw(16) << r.label << std::setw(10) << r.backend
                  << std::setw(13) << r.path << std::right << std::setw(13)
                  << format_rate(r.bits_per_s) << std::setw(15)
                  << format_rate(r.vectors_per_s, "vec/s") << std::setw(11) << ber.str()
                  << "\n";
    }
    for (const std::string& n : notes)
        std::cout << "note: " << n << "\n";
    if (!opt.json.empty()) {
        std::ofstream f(opt.json);
        f << "{\"tool\": \"gpufec-bench --code mimo\", \"date\": \"" << opt.stamp.date
          << "\", \"commit\": \"" << opt.stamp.commit << "\", \"nt\": " << s.nt
          << ", \"nr\": " << s.nr << ", \"modulation\": \"" << opt.modulation
          << "\", \"coherence\": " << s.coherence << ", \"esn0_db\": " << opt.esn0_db
          << ", \"results\": [";
        for (size_t i = 0; i < rows.size(); i++)
            f << (i ? ", " : "") << "{\"label\": \"" << rows[i].label
              << "\", \"backend\": \"" << rows[i].backend << "\", \"path\": \""
              << rows[i].path << "\", \"bits_per_s\": " << rows[i].bits_per_s
              << ", \"vectors_per_s\": " << rows[i].vectors_per_s
              << ", \"ber\": " << rows[i].ber << "}";
        f << "]}\n";
    }
    return sane ? 0 : 1;
}

} // namespace gpufec_bench
