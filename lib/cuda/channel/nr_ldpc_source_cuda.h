/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA AWGN/BPSK source of a 5G NR LDPC code: Philox info bits -> NR LDPC encoding ->
// rate matching -> BPSK + AWGN -> float LLRs, one kernel, bit-identical to the CPU
// source of the same code (awgn_source.h's frame definition). Plain C++ header.
#ifndef INCLUDED_GPUFEC_NR_LDPC_SOURCE_CUDA_H
#define INCLUDED_GPUFEC_NR_LDPC_SOURCE_CUDA_H

#include "cuda/channel/cuda_source_base.h"
#include <gpufec/awgn_source.h>
#include <gpufec/ldpc.h>
#include <memory>

namespace gpufec {

//! Factory used by the registry (the frame source's CUDA maker for NR LDPC codes).
std::unique_ptr<awgn_bpsk_source> make_nr_ldpc_source_cuda(const nr_ldpc_code& code,
                                                           double ebn0_db,
                                                           uint64_t seed,
                                                           int device);

namespace cuda {

/*!
 * One thread block per frame: the codeword lives in shared memory (one bit per byte,
 * BG1 Z = 384: 26 112 bytes); encoding runs as levels of independent "solve" steps
 * (the core parity block from the sum of the four core rows, the other core blocks by
 * back-substitution, each extension row as soon as the core blocks it reads are known:
 * five levels), each step Z threads wide; the
 * transmitted bits are read through the rate matching and get their noise in groups
 * of four (one Philox block each), as on the CPU.
 */
class nr_ldpc_source_cuda final : public cuda_source_base
{
public:
    nr_ldpc_source_cuda(const nr_ldpc_code& code,
                        double ebn0_db,
                        uint64_t seed,
                        int device);
    ~nr_ldpc_source_cuda() override;
    nr_ldpc_source_cuda(const nr_ldpc_source_cuda&) = delete;
    nr_ldpc_source_cuda& operator=(const nr_ldpc_source_cuda&) = delete;


private:
    void check_ebn0_db(double ebn0_db) const override;
    void launch_frames(uint64_t first_frame,
                       size_t num_frames,
                       float* d_llrs,
                       uint8_t* d_bits,
                       void* stream,
                       double ebn0_db) override;

    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace cuda
} // namespace gpufec

#endif
