/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Built instead of lib/cuda when no CUDA compiler is available: CUDA backends throw.
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

} // namespace gpufec
