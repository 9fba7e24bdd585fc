/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda/channel/cuda_source_base.h"
#include "cuda/channel/source_staging.h"
#include "cuda/common/convert.h"
#include <cmath>
#include <string>

namespace gpufec {
namespace cuda {

cuda_source_base::cuda_source_base(int device,
                                   size_t llrs_per_frame,
                                   size_t bits_per_frame)
    : d_device(device),
      d_llrs_per_frame(llrs_per_frame),
      d_bits_per_frame(bits_per_frame),
      d_staging(std::make_unique<source_staging>(llrs_per_frame, bits_per_frame, device))
{
}

cuda_source_base::~cuda_source_base() = default;

void cuda_source_base::set_ebn0_db(double ebn0_db)
{
    check_ebn0_db(ebn0_db);
    d_ebn0_db.store(ebn0_db);
}

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

void cuda_source_base::generate_device_int8(uint64_t first_frame,
                                            size_t num_frames,
                                            llr8_t* d_llrs,
                                            size_t llr_stride,
                                            float llr_scale,
                                            uint8_t* d_bits,
                                            float* d_scratch,
                                            void* stream)
{
    const size_t llrs = llrs_per_frame();
    if (d_llrs && (!d_scratch || llr_stride < llrs))
        throw error("generate_device_int8: " +
                    std::string(!d_scratch
                                    ? "d_scratch is null; allowed: device memory of "
                                      "num_frames x llrs_per_frame() floats"
                                    : "llr_stride = " + std::to_string(llr_stride) +
                                          "; allowed: >= " + std::to_string(llrs)));
    if (!(llr_scale > 0.0f) || !std::isfinite(llr_scale))
        throw error("generate_device_int8: llr_scale = " + std::to_string(llr_scale) +
                    "; allowed: a finite value > 0");
    if (num_frames == 0 || (!d_llrs && !d_bits))
        return;
    launch_frames(
        first_frame, num_frames, d_llrs ? d_scratch : nullptr, d_bits, stream, ebn0_db());
    if (d_llrs)
        quantize_llr_frames_async(d_scratch,
                                  num_frames,
                                  llrs,
                                  d_llrs,
                                  llr_stride,
                                  llr_scale,
                                  static_cast<cudaStream_t>(stream));
}

} // namespace cuda
} // namespace gpufec
