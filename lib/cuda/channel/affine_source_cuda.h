/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA AWGN/BPSK source of any block code whose encoder is affine over GF(2) (polar,
// turbo, alist and DVB-S2 LDPC, the small UCI codes, ...): Philox info bits -> the
// encoder as a generator (codes/affine_frame_map.h) -> BPSK + AWGN -> float LLRs, one
// kernel, bit-identical to the CPU source of the same frame_code. Plain C++ header.
#ifndef INCLUDED_GPUFEC_AFFINE_SOURCE_CUDA_H
#define INCLUDED_GPUFEC_AFFINE_SOURCE_CUDA_H

#include "cuda/channel/cuda_source_base.h"
#include <gpufec/awgn_source.h>
#include <memory>

namespace gpufec {

//! Factory used by the registry (the frame source's CUDA maker for codes without a
//! dedicated GPU encoder). Throws where affine_frame_map refuses the code.
std::unique_ptr<awgn_bpsk_source> make_affine_source_cuda(const frame_code& code,
                                                          double ebn0_db,
                                                          uint64_t seed,
                                                          int device);

namespace cuda {

/*!
 * A block makes 8 frames (a tile of their coded bits where a batch has too few frames
 * to fill the GPU otherwise): their info words in shared memory; each thread takes four
 * consecutive coded bits at a time and, word by word, loads their four generator words
 * as one 16-byte vector and ANDs them into all 8 frames' accumulators (one load for 32
 * AND-XORs), a coded bit being its accumulator's parity; then the four bits' noise
 * (one Philox block per frame), as on the CPU. Work per frame: ~coded_bits x
 * info_words AND-XORs (polar N = 1024, K = 512: 16 k; turbo K = 6144: 3.5 M).
 */
class affine_source_cuda final : public cuda_source_base
{
public:
    affine_source_cuda(const frame_code& code, double ebn0_db, uint64_t seed, int device);
    ~affine_source_cuda() override;
    affine_source_cuda(const affine_source_cuda&) = delete;
    affine_source_cuda& operator=(const affine_source_cuda&) = delete;


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
