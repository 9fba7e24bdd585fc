/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpufec/code.h>
#include <gpufec/common.h>

namespace gr {
namespace gpufec {

code::~code() = default;

std::vector<uint8_t> code::encode(const std::vector<uint8_t>& bits) const
{
    if (bits.empty() || bits.size() > static_cast<size_t>(frame_bits())) {
        throw ::gpufec::error("encode: frame of " + std::to_string(bits.size()) +
                              " bits; allowed 1.." + std::to_string(frame_bits()));
    }
    std::vector<uint8_t> out(coded_bits_for(bits.size()));
    out.resize(encode_raw(bits.data(), bits.size(), out.data()));
    return out;
}

} // namespace gpufec
} // namespace gr
