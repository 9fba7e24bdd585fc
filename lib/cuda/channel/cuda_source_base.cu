/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda/channel/cuda_source_base.h"
#include "cuda/channel/source_staging.h"

namespace gpufec {
namespace cuda {

cuda_source_base::cuda_source_base(int device,
                                   size_t llrs_per_frame,
                                   size_t bits_per_frame)
    : d_device(device),
      d_staging(std::make_unique<source_staging>(llrs_per_frame, bits_per_frame, device))
{
}

cuda_source_base::~cuda_source_base() = default;

void cuda_source_base::generate(uint64_t first_frame,
                                size_t num_frames,
                                float* llrs,
                                uint8_t* info_bits)
{
    // One Eb/N0 for the whole call (as the CPU source), however many chunks it takes.
    const double ebn0 = ebn0_db();
    d_staging->generate(
        first_frame,
        num_frames,
        llrs,
        info_bits,
        [&](uint64_t first, size_t n, float* d_llrs, uint8_t* d_bits, cudaStream_t s) {
            launch_frames(first, n, d_llrs, d_bits, s, ebn0);
        });
}

void cuda_source_base::generate_device(
    uint64_t first_frame, size_t num_frames, float* d_llrs, uint8_t* d_bits, void* stream)
{
    if (num_frames == 0 || (!d_llrs && !d_bits))
        return;
    launch_frames(first_frame, num_frames, d_llrs, d_bits, stream, ebn0_db());
}

} // namespace cuda
} // namespace gpufec
