/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// What the CUDA AWGN/BPSK sources share: the host path of generate() (chunks through
// pinned staging, source_staging.h) and generate_device()'s checks, around the one
// thing each source defines, the launch of its frames. Plain C++ header.
#ifndef INCLUDED_GPUFEC_CUDA_SOURCE_BASE_H
#define INCLUDED_GPUFEC_CUDA_SOURCE_BASE_H

#include <gpufec/awgn_source.h>
#include <memory>

namespace gpufec {
namespace cuda {

class source_staging;

class cuda_source_base : public awgn_bpsk_source
{
public:
    ~cuda_source_base() override;
    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }
    void generate(uint64_t first_frame,
                  size_t num_frames,
                  float* llrs,
                  uint8_t* info_bits) override;
    void generate_device(uint64_t first_frame,
                         size_t num_frames,
                         float* d_llrs,
                         uint8_t* d_bits,
                         void* stream) override;

protected:
    cuda_source_base(int device, size_t llrs_per_frame, size_t bits_per_frame);
    /*!
     * Enqueues frames [first_frame, first_frame + num_frames) on `stream` (a
     * cudaStream_t) into device memory at `ebn0_db` (validated by set_ebn0_db()); a
     * null pointer: that output is not wanted (not both null).
     */
    virtual void launch_frames(uint64_t first_frame,
                               size_t num_frames,
                               float* d_llrs,
                               uint8_t* d_bits,
                               void* stream,
                               double ebn0_db) = 0;

private:
    const int d_device;
    std::unique_ptr<source_staging> d_staging;
};

} // namespace cuda
} // namespace gpufec

#endif
