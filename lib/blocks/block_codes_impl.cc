/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Code definitions of the block codes (one frame length each): LTE turbo, NR LDPC,
// LDPC from alist, DVB-S2 LDPC, NR polar. Each wraps its core-library code.

#include <gnuradio/gpufec/dvbs2_ldpc_code.h>
#include <gnuradio/gpufec/ldpc_alist_code.h>
#include <gnuradio/gpufec/lte_turbo_code.h>
#include <gnuradio/gpufec/nr_ldpc_code.h>
#include <gnuradio/gpufec/nr_polar_code.h>
#include <gpufec/dvbs2_ldpc.h>
#include <gpufec/ldpc.h>
#include <gpufec/ldpc_alist.h>
#include <gpufec/polar.h>
#include <gpufec/turbo.h>
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

namespace gr {
namespace gpufec {

namespace {

std::string rate_text(double r)
{
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3f", r);
    return buf;
}

/*!
 * The code interface of a block code: frames of exactly info_bits() bits become
 * coded_bits() bits. Derived classes supply the sizes and encode_frame().
 */
template <class Interface>
class block_code_base : public Interface
{
public:
    int frame_bits() const override { return static_cast<int>(info_bits()); }
    size_t coded_bits_for(size_t bits) const override
    {
        return bits == info_bits() ? coded_frame_bits() : 0;
    }
    size_t info_bits_for_coded(size_t coded) const override
    {
        return coded == coded_frame_bits() ? info_bits() : 0;
    }
    double rate() const override
    {
        return double(info_bits()) / double(coded_frame_bits());
    }
    size_t encode_raw(const uint8_t* in, size_t bits, uint8_t* out) const override
    {
        if (bits != info_bits()) {
            throw ::gpufec::error(this->family() + " encoder: a frame of " +
                                  std::to_string(bits) + " bits; allowed: exactly " +
                                  std::to_string(info_bits()) + " (the code's k)");
        }
        // Encoders take bits as 0/1 bytes; other bytes count by their LSB, so only
        // input with other values is copied (no shared or per-thread scratch).
        if (std::all_of(in, in + bits, [](uint8_t b) { return b <= 1; })) {
            encode_frame(in, out);
        } else {
            std::vector<uint8_t> lsb(in, in + bits);
            for (auto& b : lsb) {
                b &= 1u;
            }
            encode_frame(lsb.data(), out);
        }
        return coded_frame_bits();
    }

protected:
    virtual size_t info_bits() const = 0;
    virtual size_t coded_frame_bits() const = 0;
    virtual void encode_frame(const uint8_t* in, uint8_t* out) const = 0;
};

class lte_turbo_code_impl : public block_code_base<lte_turbo_code>
{
public:
    lte_turbo_code_impl(int k, bool crc24b, int e, int rv, int n_cb, int filler)
        : d_code(k, crc24b, e, rv, n_cb, filler)
    {
    }
    std::string family() const override { return "turbo"; }
    std::string describe() const override { return d_code.describe(); }
    int k() const override { return d_code.k(); }
    bool crc24b() const override { return d_code.crc24b(); }
    int e() const override
    {
        return d_code.rate_matching() ? d_code.rate_matching()->e() : 0;
    }
    int rv() const override
    {
        return d_code.rate_matching() ? d_code.rate_matching()->rv() : 0;
    }
    const ::gpufec::lte_turbo_code& core() const override { return d_code; }

protected:
    size_t info_bits() const override { return d_code.info_bits(); }
    size_t coded_frame_bits() const override { return d_code.coded_bits(); }
    void encode_frame(const uint8_t* in, uint8_t* out) const override
    {
        ::gpufec::lte_turbo_encode(d_code, in, out);
    }

private:
    ::gpufec::lte_turbo_code d_code;
};

class nr_ldpc_code_impl : public block_code_base<nr_ldpc_code>
{
public:
    nr_ldpc_code_impl(int bg, int z, int k, int e) : d_code(bg, z, k, e) {}
    std::string family() const override { return "ldpc"; }
    std::string describe() const override
    {
        return "NR LDPC BG" + std::to_string(d_code.bg()) +
               " Z=" + std::to_string(d_code.z()) + " k=" + std::to_string(d_code.k()) +
               " e=" + std::to_string(d_code.e()) + " r=" + rate_text(rate());
    }
    int bg() const override { return d_code.bg(); }
    int z() const override { return d_code.z(); }
    int k() const override { return d_code.k(); }
    int e() const override { return d_code.e(); }
    const ::gpufec::nr_ldpc_code& core() const override { return d_code; }

protected:
    size_t info_bits() const override { return d_code.k(); }
    size_t coded_frame_bits() const override { return d_code.e(); }
    void encode_frame(const uint8_t* in, uint8_t* out) const override
    {
        d_code.encode(in, out);
    }

private:
    ::gpufec::nr_ldpc_code d_code;
};

/*!
 * An LDPC code whose frame is its whole codeword, k information bits in, n bits out
 * (alist and DVB-S2 codes): family "ldpc", the core code's k, n, describe() and
 * encode(info, codeword).
 */
template <class Interface, class Core>
class codeword_ldpc_code : public block_code_base<Interface>
{
public:
    std::string family() const override { return "ldpc"; }
    std::string describe() const override { return d_code.describe(); }
    int n() const override { return d_code.n(); }
    int k() const override { return d_code.k(); }
    const Core& core() const override { return d_code; }

protected:
    explicit codeword_ldpc_code(Core code) : d_code(std::move(code)) {}
    size_t info_bits() const override { return d_code.k(); }
    size_t coded_frame_bits() const override { return d_code.n(); }
    void encode_frame(const uint8_t* in, uint8_t* out) const override
    {
        d_code.encode(in, out);
    }

    const Core d_code;
};

class ldpc_alist_code_impl
    : public codeword_ldpc_code<ldpc_alist_code, ::gpufec::ldpc_alist_code>
{
public:
    explicit ldpc_alist_code_impl(const std::string& path)
        : codeword_ldpc_code(::gpufec::ldpc_alist_code::from_alist(path))
    {
    }
    int m() const override { return d_code.m(); }
    std::vector<int> info_positions() const override { return d_code.info_positions(); }
};

class dvbs2_ldpc_code_impl
    : public codeword_ldpc_code<dvbs2_ldpc_code, ::gpufec::dvbs2_ldpc_code>
{
public:
    dvbs2_ldpc_code_impl(const std::string& frame, const std::string& rate)
        : codeword_ldpc_code(::gpufec::dvbs2_ldpc_code(frame, rate))
    {
    }
    std::string frame() const override { return d_code.frame(); }
    std::string nominal_rate() const override { return d_code.rate(); }
    int q() const override { return d_code.q(); }
    std::string to_alist_text() const override { return d_code.to_alist_text(); }
};

class nr_polar_code_impl : public block_code_base<nr_polar_code>
{
public:
    nr_polar_code_impl(int k,
                       int e,
                       const std::string& crc,
                       bool channel_interleave,
                       const std::string& chain,
                       int rnti)
        : d_code(make_core(k, e, crc, channel_interleave, chain, rnti)), d_chain(chain)
    {
    }
    static ::gpufec::nr_polar_code make_core(int k,
                                             int e,
                                             const std::string& crc,
                                             bool channel_interleave,
                                             const std::string& chain,
                                             int rnti)
    {
        if (chain == "dci")
            return ::gpufec::nr_polar_code::dci(k, e, rnti);
        if (rnti != 0) // the default; only the DCI chain scrambles its CRC with one
            throw ::gpufec::error("nr_polar_code: rnti = " + std::to_string(rnti) +
                                  " given for chain \"" + chain +
                                  "\"; allowed: rnti only with chain=\"dci\" (other "
                                  "chains: leave it 0)");
        if (chain == "bch")
            return ::gpufec::nr_polar_code::bch(e, k);
        if (chain != "uci")
            throw ::gpufec::error("nr_polar_code: chain \"" + chain +
                                  "\" unknown; allowed: \"uci\", \"dci\", \"bch\"");
        return ::gpufec::nr_polar_code(k, e, crc, channel_interleave);
    }
    std::string chain() const override { return d_chain; }
    int rnti() const override { return d_code.rnti(); }
    std::string family() const override { return "polar"; }
    std::string describe() const override
    {
        return "NR polar k=" + std::to_string(d_code.k()) +
               " e=" + std::to_string(d_code.e()) + " N=" + std::to_string(d_code.N()) +
               " " + crc() + " " + rate_matching() +
               (d_code.channel_interleave() ? " +chan-il" : "") +
               (d_chain != "uci" ? " " + d_chain : "") +
               (d_code.rnti() >= 0 ? " rnti=" + std::to_string(d_code.rnti()) : "") +
               " r=" + rate_text(rate());
    }
    int k() const override { return d_code.k(); }
    int e() const override { return d_code.e(); }
    int mother_length() const override { return d_code.N(); }
    std::string crc() const override { return ::gpufec::to_string(d_code.crc()); }
    std::string rate_matching() const override
    {
        return ::gpufec::to_string(d_code.rate_matching());
    }
    const ::gpufec::nr_polar_code& core() const override { return d_code; }

protected:
    size_t info_bits() const override { return d_code.k(); }
    size_t coded_frame_bits() const override { return d_code.e(); }
    void encode_frame(const uint8_t* in, uint8_t* out) const override
    {
        d_code.encode(in, out);
    }

private:
    ::gpufec::nr_polar_code d_code;
    std::string d_chain;
};

} // namespace

lte_turbo_code::sptr
lte_turbo_code::make(int k, bool crc24b, int e, int rv, int n_cb, int filler)
{
    return std::make_shared<lte_turbo_code_impl>(k, crc24b, e, rv, n_cb, filler);
}

nr_ldpc_code::sptr nr_ldpc_code::make(int bg, int z, int k, int e)
{
    return std::make_shared<nr_ldpc_code_impl>(bg, z, k, e);
}

ldpc_alist_code::sptr ldpc_alist_code::make(const std::string& path)
{
    return std::make_shared<ldpc_alist_code_impl>(path);
}

dvbs2_ldpc_code::sptr dvbs2_ldpc_code::make(const std::string& frame,
                                            const std::string& rate)
{
    return std::make_shared<dvbs2_ldpc_code_impl>(frame, rate);
}

nr_polar_code::sptr nr_polar_code::make(int k,
                                        int e,
                                        const std::string& crc,
                                        bool channel_interleave,
                                        const std::string& chain,
                                        int rnti)
{
    return std::make_shared<nr_polar_code_impl>(
        k, e, crc, channel_interleave, chain, rnti);
}

} // namespace gpufec
} // namespace gr
