/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-bench --code dci-search: the PDCCH blind search (issue 11). Candidates of the
// listed aggregation levels, a quarter sent under a monitored RNTI and the rest under
// others (what a UE's search mostly meets), decoded with CA-SCL and blind RNTI
// detection: candidates per second kernel-only (one launch per batch, data on the
// device), end to end through the engine, and on the CPU.

#include "bench_block_codes.h"

#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/polar.h>
#include <gpufec/polar_decoding.h>

#ifdef GPUFEC_HAVE_CUDA
#include "cuda/polar/polar_cuda.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace gpufec_bench {

namespace {

struct candidates {
    std::vector<std::vector<gpufec::llr8_t>> frames;
    std::vector<int> sender;
    std::vector<std::vector<uint8_t>> payload;
};

//! BPSK over AWGN at Es/N0 from Eb/N0 and the rate, LLRs at scale 8 saturated to int8.
candidates draw(const gpufec::dci_search_space& space,
                const std::vector<int>& other_rntis,
                double ebn0_db,
                size_t count,
                uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, 1.0);
    candidates c;
    for (size_t i = 0; i < count; i++) {
        const int L = space.aggregation_levels[i % space.aggregation_levels.size()];
        const bool mine = (i / space.aggregation_levels.size()) % 4 == 0;
        const int r = mine ? space.rntis[i % space.rntis.size()]
                           : other_rntis[i % other_rntis.size()];
        const gpufec::nr_polar_code code =
            gpufec::nr_polar_code::dci(space.k, gpufec::dci_candidate_bits(L), r);
        std::vector<uint8_t> payload(space.k);
        for (auto& b : payload)
            b = static_cast<uint8_t>(rng() & 1u);
        const std::vector<uint8_t> coded = code.encode(payload);
        const double rate = double(space.k) / code.e();
        const double sigma = std::sqrt(1.0 / (2.0 * rate * std::pow(10.0, ebn0_db / 10)));
        std::vector<gpufec::llr8_t> llr(coded.size());
        for (size_t j = 0; j < coded.size(); j++) {
            const double y = (coded[j] ? -1.0 : 1.0) + sigma * noise(rng);
            const double l = 8.0 * 2.0 * y / (sigma * sigma);
            llr[j] =
                static_cast<gpufec::llr8_t>(std::lround(std::clamp(l, -127.0, 127.0)));
        }
        c.frames.push_back(std::move(llr));
        c.sender.push_back(r);
        c.payload.push_back(payload);
    }
    return c;
}

//! Decodes every candidate through the engine `passes` times; returns candidates per
//! second, and in *right the decodings (of passes x candidates) whose verdict matches
//! the sender (ok exactly for a monitored RNTI) with the payload sent and its RNTI.
double run_engine(std::shared_ptr<gpufec::batch_decoder> dec,
                  const candidates& c,
                  const gpufec::dci_search_space& space,
                  size_t batch,
                  int threads,
                  int passes,
                  size_t* right)
{
    gpufec::engine_config cfg;
    cfg.max_batch_frames = batch;
    cfg.cpu_threads = threads;
    gpufec::batch_engine engine(dec, cfg);
    const size_t n = c.frames.size();
    size_t correct = 0; // over every pass
    auto take = [&](const gpufec::completed_frame& d) {
        const size_t f = d.id % n;
        const bool listed =
            std::count(space.rntis.begin(), space.rntis.end(), c.sender[f]) > 0;
        bool same = d.status.ok == listed;
        for (int j = 0; same && listed && j < space.k; j++)
            same = ((d.packed[j / 8] >> (7 - j % 8)) & 1) == c.payload[f][j];
        int rnti = 0; // the 16 bits after the payload: the RNTI it passed under
        for (int j = space.k; j < space.k + 16; j++)
            rnti = (rnti << 1) | ((d.packed[j / 8] >> (7 - j % 8)) & 1);
        same = same && (!listed || rnti == c.sender[f]);
        correct += same;
    };
    const auto t0 = std::chrono::steady_clock::now();
    gpufec::completed_frame d;
    for (int p = 0; p < passes; p++) {
        for (size_t f = 0; f < n; f++) {
            const uint64_t id = uint64_t(p) * n + f;
            while (!engine.submit(c.frames[f].data(), c.frames[f].size(), id))
                if (engine.pop_wait(d))
                    take(d);
            while (engine.try_pop(d))
                take(d);
        }
    }
    engine.flush();
    while (engine.pop_wait(d))
        take(d);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (right)
        *right = correct;
    return double(n) * passes / s;
}

std::vector<int> parse_list(const std::string& text)
{
    std::vector<int> v;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t comma = std::min(text.find(',', at), text.size());
        if (comma > at)
            v.push_back(std::stoi(text.substr(at, comma - at)));
        at = comma + 1;
    }
    return v;
}

} // namespace

int run_dci_search_bench(const block_options& opt)
{
    gpufec::dci_search_space space;
    space.k = opt.dci_k;
    space.aggregation_levels = parse_list(opt.dci_levels);
    for (int r = 0; r < opt.dci_rntis; r++)
        space.rntis.push_back(0x4000 + 17 * r);
    const std::vector<int> others{ 0x0bad, 0x1111, 0x2222, 0x7777, 0xfffe };
    gpufec::dci_search_options o;
    o.decoding.algorithm = gpufec::polar_algorithm::scl;
    o.decoding.list_size = opt.list_size;
    // Eb/N0 per payload bit; the 24 CRC bits cost 10 log10((k + 24) / k) on top, so
    // 3 dB is still in the waterfall at k = 40 (CA-SCL-8 about 1 % of our candidates
    // missed) and 5 dB is clear of it.
    const double ebn0 = opt.ebn0_given ? opt.ebn0_db : 5.0;
    const candidates c = draw(space, others, ebn0, 4096, opt.seed);
    std::printf("# dci blind search: k = %d, aggregation levels %s, %d monitored RNTIs, "
                "CA-SCL-%d, Eb/N0 %.2f dB, 1 in 4 candidates for us\n",
                space.k,
                opt.dci_levels.c_str(),
                opt.dci_rntis,
                opt.list_size,
                ebn0);
    std::printf("%-34s %-14s %16s %14s\n", "row", "backend", "candidates/s", "correct");
    const int passes = std::max(opt.runs, 3);
    std::vector<int> threads{ 1 };
    if (opt.threads > 1)
        threads.push_back(opt.threads);
    // --backend cuda: the GPU rows only.
    if (opt.cpu_rows && (opt.cuda_backend.empty() || opt.threads > 0))
        for (int t : threads) {
            size_t right = 0;
            const double rate = run_engine(
                gpufec::make_decoder(space, o, "cpu"), c, space, 256, t, 1, &right);
            std::printf("%-34s %-14s %16.4g %9zu/%zu\n",
                        "end to end (engine)",
                        ("cpu x" + std::to_string(t)).c_str(),
                        rate,
                        right,
                        c.frames.size());
        }
#ifdef GPUFEC_HAVE_CUDA
    if (!opt.cuda_backend.empty()) {
        const int device = std::stoi(opt.cuda_backend.substr(5));
        size_t right = 0;
        const double e2e = run_engine(gpufec::make_decoder(space, o, opt.cuda_backend),
                                      c,
                                      space,
                                      16384,
                                      0,
                                      passes * 8,
                                      &right);
        std::printf("%-34s %-14s %16.4g %9zu/%zu\n",
                    "end to end (engine, int8 in)",
                    opt.cuda_backend.c_str(),
                    e2e,
                    right,
                    c.frames.size() * passes * 8);
        std::vector<int8_t> llrs;
        std::vector<uint32_t> lengths;
        for (const auto& f : c.frames) {
            llrs.insert(llrs.end(), f.begin(), f.end());
            lengths.push_back(static_cast<uint32_t>(f.size()));
        }
        bool noted = false;
        for (int batch : parse_list(opt.dci_batches)) {
            if (batch < 1)
                throw gpufec::error("--dci-batches " + opt.dci_batches +
                                    "; allowed: positive candidate counts");
            const size_t frames = static_cast<size_t>(batch);
            const auto t = gpufec::cuda::time_dci_search_kernel(
                space, o, device, llrs, lengths, frames, std::max(opt.runs, 20));
            const std::string row = frames == 1 ? "kernel-only, 1 candidate"
                                    : frames == 44
                                        ? "kernel-only, 44 candidates (a slot)"
                                        : "kernel-only, " + std::to_string(frames);
            std::printf("%-34s %-14s %16.4g   %.1f us per launch\n",
                        row.c_str(),
                        opt.cuda_backend.c_str(),
                        double(frames) / (t.median_ms * 1e-3),
                        t.median_ms * 1e3);
            if (!noted) // the form that the first batch took
                std::printf("#   %s\n", t.kernel.c_str());
            noted = true;
        }
    }
#endif
    return 0;
}

} // namespace gpufec_bench
