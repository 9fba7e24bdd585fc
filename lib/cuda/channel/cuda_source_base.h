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
#include <atomic>
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
    size_t llrs_per_frame() const override { return d_llrs_per_frame; }
    size_t bits_per_frame() const override { return d_bits_per_frame; }
    //! Validated by check_ebn0_db(); takes effect for launches after the call.
    void set_ebn0_db(double ebn0_db) override;
    double ebn0_db() const override { return d_ebn0_db.load(); }
    void generate(uint64_t first_frame,
                  size_t num_frames,
                  float* llrs,
                  uint8_t* info_bits) override;
    void generate_device(uint64_t first_frame,
                         size_t num_frames,
                         float* d_llrs,
                         uint8_t* d_bits,
                         void* stream) override;
    //! The frames made in d_scratch, then quantized into d_llrs by one more kernel.
    void generate_device_int8(uint64_t first_frame,
                              size_t num_frames,
                              llr8_t* d_llrs,
                              size_t llr_stride,
                              float llr_scale,
                              uint8_t* d_bits,
                              float* d_scratch,
                              void* stream) override;

protected:
    cuda_source_base(int device, size_t llrs_per_frame, size_t bits_per_frame);
    //! Throws gpufec::error for an Eb/N0 the source cannot use (its noise constants).
    virtual void check_ebn0_db(double ebn0_db) const = 0;
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
    const size_t d_llrs_per_frame, d_bits_per_frame;
    std::atomic<double> d_ebn0_db{ 0.0 };
    std::unique_ptr<source_staging> d_staging;
};

} // namespace cuda
} // namespace gpufec

#endif
