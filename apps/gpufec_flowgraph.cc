/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-flowgraph: a real GNU Radio top_block in C++ (no Python needed), so the GNU
// Radio path can be proven on machines without GNU Radio's Python (the GPU machine):
//   awgn_bpsk_source --LLRs--> viterbi_decoder --bits--> ber_counter
//                    --info bits------------------------^
// Prints BER and throughput per Eb/N0 point.
#include <gnuradio/blocks/head.h>
#include <gnuradio/gpufec/awgn_bpsk_source.h>
#include <gnuradio/gpufec/ber_counter.h>
#include <gnuradio/gpufec/conv_code.h>
#include <gnuradio/gpufec/viterbi_decoder.h>
#include <gnuradio/top_block.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void usage()
{
    std::puts("usage: gpufec-flowgraph [--backend auto|cpu|cuda|cuda:N] [--frames N]\n"
              "                        [--frame-bits N] [--ebn0 dB[,dB...]] [--batch N]");
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

} // namespace

int main(int argc, char** argv)
{
    std::string backend = "auto";
    long frames = 2000;
    int frame_bits = 2048;
    int batch = 512;
    std::vector<double> ebn0s{ 3.0, 4.0, 6.0 };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                usage();
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--backend")
            backend = next();
        else if (a == "--frames")
            frames = std::stol(next());
        else if (a == "--frame-bits")
            frame_bits = std::stoi(next());
        else if (a == "--ebn0")
            ebn0s = parse_list(next());
        else if (a == "--batch")
            batch = std::stoi(next());
        else {
            usage();
            return a == "--help" ? 0 : 2;
        }
    }

    try {
        auto code = gr::gpufec::conv_code::make(frame_bits, 7, { 0171, 0133 }, "terminated", "");
        std::printf("%-8s %-10s %12s %10s %12s %10s %12s\n", "Eb/N0", "backend", "bits",
                    "errors", "BER", "frames", "Mb/s");
        for (double ebn0 : ebn0s) {
            auto tb = gr::make_top_block("gpufec_flowgraph");
            auto src = gr::gpufec::awgn_bpsk_source::make(code, ebn0, 1, backend, 64, "");
            auto head_llr =
                gr::blocks::head::make(sizeof(float), static_cast<uint64_t>(frames) * code->coded_bits());
            auto head_bits =
                gr::blocks::head::make(sizeof(char), static_cast<uint64_t>(frames) * frame_bits);
            auto dec = gr::gpufec::viterbi_decoder::make(code, "float", "", backend, batch, 10.0, 8.0);
            auto ber = gr::gpufec::ber_counter::make(frame_bits, 0);
            // Large buffers in front of the decoder so it can fill big GPU batches.
            const long llr_buffer = std::max<long>(1L << 22, 2L * code->coded_bits());
            head_llr->set_min_output_buffer(llr_buffer);
            head_bits->set_min_output_buffer(llr_buffer);
            tb->connect(src, 0, head_llr, 0);
            tb->connect(src, 1, head_bits, 0);
            tb->connect(head_llr, 0, dec, 0);
            tb->connect(dec, 0, ber, 0);
            tb->connect(head_bits, 0, ber, 1);
            const auto t0 = std::chrono::steady_clock::now();
            tb->run();
            const double secs =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("%-8.2f %-10s %12llu %10llu %12.3e %10llu %12.1f\n", ebn0,
                        dec->backend_name().c_str(), (unsigned long long)ber->bits(),
                        (unsigned long long)ber->bit_errors(), ber->ber(),
                        (unsigned long long)ber->frames(), ber->bits() / secs / 1e6);
            if (ber->frames() != static_cast<uint64_t>(frames)) {
                std::fprintf(stderr, "error: %llu frames counted, %ld sent\n",
                             (unsigned long long)ber->frames(), frames);
                return 1;
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpufec-flowgraph: %s\n", e.what());
        return 1;
    }
    return 0;
}
