/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The NR small-block UCI code definition and its decoder blocks (stream and PDU): the
// shared batching templates plus the registry's factory (gpufec::make_decoder).

#include "batched_decoder_impl.h"
#include "batched_pdu_decoder_impl.h"
#include <gnuradio/gpufec/nr_uci_small_code.h>
#include <gnuradio/gpufec/uci_small_decoder.h>
#include <gnuradio/gpufec/uci_small_decoder_pdu.h>
#include <gpufec/nr_uci_small.h>
#include <cstdio>

namespace gr {
namespace gpufec {

namespace {

class nr_uci_small_code_impl : public nr_uci_small_code
{
public:
    nr_uci_small_code_impl(int k, int e, int qm) : d_code(k, e, qm) {}

    std::string family() const override { return "uci_small"; }
    int frame_bits() const override { return d_code.k(); }
    size_t coded_bits_for(size_t bits) const override
    {
        return bits == size_t(d_code.k()) ? size_t(d_code.e()) : 0;
    }
    size_t info_bits_for_coded(size_t coded) const override
    {
        return coded == size_t(d_code.e()) ? size_t(d_code.k()) : 0;
    }
    double rate() const override { return double(d_code.k()) / double(d_code.e()); }
    std::string describe() const override
    {
        char r[32];
        std::snprintf(r, sizeof(r), "%.3f", rate());
        return d_code.describe() + " r=" + r;
    }
    size_t encode_raw(const uint8_t* in, size_t bits, uint8_t* out) const override
    {
        if (bits != size_t(d_code.k()))
            throw ::gpufec::error("uci_small encoder: a frame of " +
                                  std::to_string(bits) + " bits; allowed: exactly " +
                                  std::to_string(d_code.k()) + " (the code's k)");
        uint8_t lsb[::gpufec::nr_uci_small_code::max_k];
        for (size_t i = 0; i < bits; i++)
            lsb[i] = in[i] & 1u; // one bit per byte, LSB used
        d_code.encode(lsb, out);
        return d_code.e();
    }

    int k() const override { return d_code.k(); }
    int e() const override { return d_code.e(); }
    int qm() const override { return d_code.qm(); }
    int mother_length() const override { return d_code.n(); }
    const ::gpufec::nr_uci_small_code& core() const override { return d_code; }

private:
    ::gpufec::nr_uci_small_code d_code;
};

decoder_factory uci_small_factory(const std::string& block, const code::sptr& code)
{
    auto uci = std::dynamic_pointer_cast<nr_uci_small_code>(code);
    if (!uci)
        throw ::gpufec::error(block + ": needs gpufec.nr_uci_small_code, got " +
                              code_name(code));
    return registry_factory(uci->core(), ::gpufec::uci_small_decoder_options{});
}

} // namespace

nr_uci_small_code::sptr nr_uci_small_code::make(int k, int e, int qm)
{
    return std::make_shared<nr_uci_small_code_impl>(k, e, qm);
}

uci_small_decoder::sptr uci_small_decoder::make(code::sptr code,
                                                bool soft_output,
                                                const std::string& input_type,
                                                const std::string& len_tag_key,
                                                const std::string& backend,
                                                int max_batch_frames,
                                                double max_latency_ms,
                                                double llr_scale,
                                                const std::string& soft_convention,
                                                bool status_tags)
{
    const std::string block = "uci_small_decoder";
    return gnuradio::make_block_sptr<batched_decoder_impl<uci_small_decoder>>(
        block,
        uci_small_factory(block, code),
        input_type,
        len_tag_key,
        block_decoder_options(soft_output,
                              backend,
                              max_batch_frames,
                              max_latency_ms,
                              llr_scale,
                              soft_convention,
                              status_tags));
}

uci_small_decoder_pdu::sptr
uci_small_decoder_pdu::make(code::sptr code,
                            bool soft_output,
                            const std::string& backend,
                            int max_batch_frames,
                            double llr_scale,
                            const std::string& soft_convention)
{
    const std::string block = "uci_small_decoder_pdu";
    return gnuradio::make_block_sptr<batched_pdu_decoder_impl<uci_small_decoder_pdu>>(
        block,
        uci_small_factory(block, code),
        block_decoder_options(
            soft_output, backend, max_batch_frames, 0.0, llr_scale, soft_convention));
}

} // namespace gpufec
} // namespace gr
