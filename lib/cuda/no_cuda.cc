/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Built instead of lib/cuda when no CUDA compiler is available: CUDA backends throw.
#include "engine/slot_backend.h"
#include <gpufec/awgn_source.h>
#include <gpufec/viterbi.h>

namespace gpufec {

int cuda_device_count() { return 0; }
std::string cuda_device_description(int) { return "unavailable"; }

std::unique_ptr<batch_decoder> make_viterbi_decoder_cuda(const conv_code&, int)
{
    throw error("backend \"cuda\" is not available: gr-gpufec was built without CUDA; "
                "allowed backends here: \"auto\", \"cpu\"");
}

std::unique_ptr<slot_backend>
make_cuda_slot_backend(std::shared_ptr<batch_decoder>, const batch_limits&, int, int)
{
    throw error("the CUDA engine backend is not available: gr-gpufec was built without "
                "CUDA; allowed backends here: \"auto\", \"cpu\"");
}

} // namespace gpufec

// AWGN/BPSK source (lib/cuda/channel).
#include "cuda/channel/awgn_source_cuda.h"

namespace gpufec {

std::unique_ptr<awgn_bpsk_source>
make_awgn_bpsk_source_cuda(const conv_code&, double, uint64_t, int)
{
    throw error("backend \"cuda\" is not available for the AWGN source: gr-gpufec was built "
                "without CUDA; allowed backends here: \"auto\", \"cpu\"");
}

} // namespace gpufec
