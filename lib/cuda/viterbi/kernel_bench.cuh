/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the shared set-up and timing loop of the kernel-only Viterbi benchmarks, so
// every kernel is timed on the same inputs, windows and method.
#ifndef INCLUDED_GPUFEC_VITERBI_KERNEL_BENCH_CUH
#define INCLUDED_GPUFEC_VITERBI_KERNEL_BENCH_CUH

#include "../common/cuda_utils.h"
#include "viterbi_cuda.h"
#include "viterbi_kernels.cuh"
#include <algorithm>
#include <vector>

namespace gpufec {
namespace cuda {

//! Full frames of random int8 LLRs on the device (several copies, rotated so L2 cannot
//! hold the input), their window table on the host, and an output buffer.
struct kernel_bench_batch {
    static constexpr int sets = 4;
    size_t num_frames = 0;
    std::vector<frame_extent> frames;
    std::vector<viterbi_window> windows;
    std::vector<device_buffer<int8_t>> inputs;
    device_buffer<uint8_t> out;

    kernel_bench_batch(const conv_code& code, int device, size_t frames_in_batch)
        : num_frames(frames_in_batch)
    {
        const size_t items = code.coded_bits();
        const size_t out_bytes = aligned_packed_bytes(code.frame_bits());
        frames.resize(num_frames);
        for (size_t f = 0; f < num_frames; ++f)
            frames[f] = frame_extent{ f * items, static_cast<uint32_t>(items), f * out_bytes,
                                      static_cast<uint32_t>(code.frame_bits()) };
        frame_batch fb;
        fb.frames = frames.data();
        fb.num_frames = num_frames;
        build_viterbi_windows(code, device, fb, windows);

        std::vector<int8_t> host(items * num_frames);
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (auto& v : host) { // xorshift: LLRs in [-60, 60], a realistic noisy spread
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v = static_cast<int8_t>(static_cast<int>(x % 121) - 60);
        }
        inputs.resize(sets);
        for (auto& b : inputs) {
            b.reset(host.size());
            GPUFEC_CUDA_CHECK(
                cudaMemcpy(b.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
        }
        out.reset(num_frames * out_bytes);
    }

    //! Times `reps` calls of launch(input, stream) with events after 3 warm-ups.
    template <typename Launch>
    kernel_timing time(const conv_code& code, int reps, Launch&& launch)
    {
        stream s;
        event start(true), stop(true);
        for (int i = 0; i < 3; ++i)
            launch(inputs[i % sets].get(), s.get());
        s.synchronize();
        std::vector<double> times;
        for (int r = 0; r < reps; ++r) {
            start.record(s.get());
            launch(inputs[r % sets].get(), s.get());
            stop.record(s.get());
            stop.synchronize();
            times.push_back(stop.elapsed_ms_since(start));
        }
        std::sort(times.begin(), times.end());
        kernel_timing t;
        t.median_ms = times[times.size() / 2];
        t.min_ms = times.front();
        t.info_bits = static_cast<double>(num_frames) * code.frame_bits();
        t.windows = windows.size();
        return t;
    }
};

} // namespace cuda
} // namespace gpufec

#endif
