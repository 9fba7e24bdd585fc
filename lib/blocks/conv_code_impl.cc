/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpufec/conv_code.h>
#include <gpufec/convolutional.h>

namespace gr {
namespace gpufec {

namespace {

class conv_code_impl : public conv_code
{
public:
    conv_code_impl(int frame_bits,
                   int k,
                   const std::vector<int>& polys,
                   const std::string& termination,
                   const std::string& puncture)
        : d_code(frame_bits, k, polys, ::gpufec::parse_termination(termination), puncture)
    {
    }

    std::string family() const override { return "conv"; }
    int frame_bits() const override { return d_code.frame_bits(); }
    size_t coded_bits_for(size_t info_bits) const override
    {
        return d_code.coded_bits(info_bits);
    }
    size_t info_bits_for_coded(size_t coded) const override
    {
        return d_code.info_bits_for_coded(coded);
    }
    double rate() const override { return d_code.rate(); }
    std::string describe() const override { return d_code.describe(); }
    size_t encode_raw(const uint8_t* in, size_t info_bits, uint8_t* out) const override
    {
        return ::gpufec::conv_encode(d_code, in, info_bits, out);
    }

    int k() const override { return d_code.k(); }
    std::vector<int> polys() const override { return d_code.polys(); }
    std::string termination() const override
    {
        return ::gpufec::to_string(d_code.term());
    }
    std::string puncture() const override { return d_code.puncture_string(); }
    std::vector<int> gr_fec_polys() const override
    {
        // gr-fec ANDs the polynomial with a register whose newest bit is the LSB,
        // which is exactly our tap mask (the octal polynomial bit-reversed over K).
        std::vector<int> out;
        for (int i = 0; i < d_code.n(); ++i) {
            out.push_back(static_cast<int>(d_code.tap_mask(i)));
        }
        return out;
    }
    const ::gpufec::conv_code& core() const override { return d_code; }

private:
    ::gpufec::conv_code d_code;
};

} // namespace

conv_code::sptr conv_code::make(int frame_bits,
                                int k,
                                const std::vector<int>& polys,
                                const std::string& termination,
                                const std::string& puncture)
{
    return std::make_shared<conv_code_impl>(frame_bits, k, polys, termination, puncture);
}

} // namespace gpufec
} // namespace gr
