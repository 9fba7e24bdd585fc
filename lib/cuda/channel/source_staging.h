/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The host path of the CUDA channel sources (awgn_bpsk_source::generate): frames made
// on the device in chunks, copied back through two pinned staging slots so that the
// host's copy of one chunk overlaps the GPU work of the next. Allocated on first use,
// grown only when a larger chunk arrives; one caller at a time (a mutex).
#ifndef INCLUDED_GPUFEC_CUDA_SOURCE_STAGING_H
#define INCLUDED_GPUFEC_CUDA_SOURCE_STAGING_H

#include "cuda/common/cuda_utils.h"
#include <cstring>
#include <memory>
#include <mutex>

namespace gpufec {
namespace cuda {

class source_staging
{
public:
    source_staging(size_t llrs_per_frame, size_t bits_per_frame, int device)
        : d_llrs(llrs_per_frame), d_bits(bits_per_frame), d_device(device)
    {
    }

    /*!
     * Frames [first_frame, first_frame + num_frames) into host memory (either pointer
     * may be null). `launch(first, n, d_llrs, d_bits, stream)` enqueues n frames into
     * device memory (a null pointer: that output is not wanted).
     */
    template <typename Launch>
    void generate(uint64_t first_frame,
                  size_t num_frames,
                  float* llrs,
                  uint8_t* info_bits,
                  Launch&& launch)
    {
        if (num_frames == 0 || (!llrs && !info_bits))
            return;
        const size_t C = d_llrs, I = d_bits;
        const size_t bytes_per_frame = C * sizeof(float) + I;
        const size_t max_chunk =
            std::max<size_t>(1, (size_t{ 64 } << 20) / bytes_per_frame);
        const size_t chunk = std::min(num_frames, max_chunk);

        std::lock_guard<std::mutex> lock(d_mutex);
        device_guard guard(d_device);
        ensure_slots(chunk);
        cudaStream_t s = d_stream->get();

        auto copy_out = [&](size_t chunk_index) {
            slot& sl = d_slots[chunk_index % 2];
            d_done[chunk_index % 2]->synchronize();
            const size_t begin = chunk_index * chunk;
            const size_t n = std::min(chunk, num_frames - begin);
            if (llrs)
                std::memcpy(llrs + begin * C, sl.h_llrs.get(), n * C * sizeof(float));
            if (info_bits)
                std::memcpy(info_bits + begin * I, sl.h_bits.get(), n * I);
        };

        const size_t chunks = (num_frames + chunk - 1) / chunk;
        for (size_t ci = 0; ci < chunks; ++ci) {
            slot& sl = d_slots[ci % 2];
            const size_t begin = ci * chunk;
            const size_t n = std::min(chunk, num_frames - begin);
            launch(first_frame + begin,
                   n,
                   llrs ? sl.d_llrs.get() : nullptr,
                   info_bits ? sl.d_bits.get() : nullptr,
                   s);
            if (llrs)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(sl.h_llrs.get(),
                                                  sl.d_llrs.get(),
                                                  n * C * sizeof(float),
                                                  cudaMemcpyDeviceToHost,
                                                  s));
            if (info_bits)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(
                    sl.h_bits.get(), sl.d_bits.get(), n * I, cudaMemcpyDeviceToHost, s));
            d_done[ci % 2]->record(s);
            if (ci > 0)
                copy_out(ci - 1); // overlaps the GPU work of chunk ci
        }
        copy_out(chunks - 1);
    }

private:
    struct slot {
        device_buffer<float> d_llrs;
        device_buffer<uint8_t> d_bits;
        pinned_buffer<float> h_llrs;
        pinned_buffer<uint8_t> h_bits;
        size_t frames = 0;
    };

    void ensure_slots(size_t frames)
    {
        if (!d_stream) {
            d_stream = std::make_unique<stream>();
            d_done[0] = std::make_unique<event>();
            d_done[1] = std::make_unique<event>();
        }
        for (auto& sl : d_slots) {
            if (sl.frames >= frames)
                continue;
            sl.d_llrs.reset(frames * d_llrs);
            sl.d_bits.reset(frames * d_bits);
            sl.h_llrs.reset(frames * d_llrs);
            sl.h_bits.reset(frames * d_bits);
            sl.frames = frames;
        }
    }

    const size_t d_llrs;
    const size_t d_bits;
    const int d_device;
    std::mutex d_mutex;
    std::unique_ptr<stream> d_stream;
    std::unique_ptr<event> d_done[2];
    slot d_slots[2];
};

} // namespace cuda
} // namespace gpufec

#endif
