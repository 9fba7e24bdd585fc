/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: what every polar decoder (CPU SC/SCL, fast-SSC, BP and the CUDA kernels)
// starts a frame from: the channel LLR of each mother-code position before the
// received values are added.
#ifndef INCLUDED_GPUFEC_POLAR_COMMON_H
#define INCLUDED_GPUFEC_POLAR_COMMON_H

#include <gpufec/common.h>
#include <gpufec/host_device.h>
#include <gpufec/polar.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gpufec {

// "Known zero" for shortened positions (and BP's frozen bits): far above any sum of
// int8 LLRs (at most 8 repetitions of 127 per position). BP's messages never grow past
// 2^n times this, well inside float range, and stay finite: known zeros never meet a
// large value of the opposite sign (the all-zero word satisfies them all).
constexpr float polar_known_zero_llr = 1e5f;

//! Per mother-code position: 0, or polar_known_zero_llr where shortening leaves it
//! unsent (a known zero); the received LLRs are added to it.
inline std::vector<float> polar_channel_fill(const nr_polar_code& code)
{
    const int N = code.N();
    std::vector<float> fill(N, 0.0f);
    if (code.rate_matching() != polar_rate_matching::shortening)
        return fill;
    std::vector<uint8_t> sent(N, 0);
    for (uint16_t d : code.output_to_codeword())
        sent[d] = 1;
    for (int j = 0; j < N; j++)
        if (!sent[j])
            fill[j] = polar_known_zero_llr;
    return fill;
}

//! N flags: 1 at the code's parity-check positions (5.3.1.2).
inline std::vector<uint8_t> polar_pc_flags(const nr_polar_code& code)
{
    std::vector<uint8_t> flags(code.N(), 0);
    for (uint16_t p : code.pc_positions())
        flags[p] = 1;
    return flags;
}

/*!
 * The 8-bit message arithmetic of belief propagation (the paper's quantization,
 * ../shared/papers/polar-bp-gpu.txt; polar_bp_arithmetic::int8), shared by the CPU
 * decoder and the kernel: messages in -127..127, sums saturated, known zeros at 127.
 * The box-plus is x = sign(a b) min(|a|, |b|) scaled by 15/16 (the float decoder's
 * scale) and rounded once to the nearest integer, ties to even: boxplus(a, b) =
 * rne(15 x / 16), and where a processing element adds a message to it,
 * boxplus_add(a, b, c) = sat(rne(15 x / 16 + c)) (one rounding after the sum). That is
 * what one half-precision FMA computes (15 x / 16 + c + a bias whose ulp is 1: the
 * kernel's box-plus is a min.xorsign and that FMA, plus a max and a min to saturate a
 * bottom output), where floor(15 |x| / 16) took five instructions before the add.
 */
struct polar_bp_int8 {
    static constexpr int known_zero = 127;
    GPUFEC_HD static int8_t saturate(int v)
    {
        return static_cast<int8_t>(v > 127 ? 127 : v < -127 ? -127 : v);
    }
    GPUFEC_HD static int8_t add(int8_t a, int8_t b) { return saturate(int(a) + int(b)); }
    //! t / 16 rounded to the nearest integer, ties to even: floor((t + 7 + q_odd) / 16)
    //! with q = floor(t / 16) (arithmetic shifts). Also for GNU vectors of 16-bit lanes
    //! (the CPU decoder's wide stages; |t| <= 15 * 127 + 16 * 127 fits).
    template <class V>
    GPUFEC_HD static V rne_sixteenths(V t)
    {
        return (t + 7 + ((t >> 4) & 1)) >> 4;
    }
    //! rne(15 sign(a b) min(|a|, |b|) / 16 + c), unsaturated (|result| <= 127 + 119).
    GPUFEC_HD static int scaled_sum(int8_t a, int8_t b, int c)
    {
        const int ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
        const int m = ma < mb ? ma : mb;
        return rne_sixteenths(15 * ((a < 0) != (b < 0) ? -m : m) + 16 * c);
    }
    GPUFEC_HD static int8_t boxplus(int8_t a, int8_t b)
    {
        return static_cast<int8_t>(scaled_sum(a, b, 0));
    }
    GPUFEC_HD static int8_t boxplus_add(int8_t a, int8_t b, int8_t c)
    {
        return saturate(scaled_sum(a, b, c));
    }
};

//! The 16-bit RNTI field of a DCI CRC syndrome (bit t = CRC bit t of decided XOR
//! computed): 7.3.2 XORs RNTI bit 15 - i onto CRC bit crc_len - 16 + i.
GPUFEC_HD uint32_t polar_rnti_field(uint32_t syndrome, int crc_len)
{
    uint32_t r = 0;
    for (int i = 0; i < 16; i++)
        r |= ((syndrome >> (crc_len - 16 + i)) & 1u) << (15 - i);
    return r;
}

/*!
 * The CRC test of every polar decoder (CPU and CUDA). Without blind RNTI detection a
 * frame passes when its decided CRC bits equal the CRC of its decided payload (for DCI
 * under the code's RNTI): a syndrome of 0. With it (polar_decoder_options::rntis, DCI
 * codes only) the first crc_len - 16 syndrome bits must be 0 and the last 16 are the
 * difference between the code's RNTI and the sender's, so a frame passes when
 * code.rnti() XOR that field is one of the rntis; the decoder reports that RNTI after
 * the payload. This is how a UE tells its DCIs apart without decoding once per RNTI.
 */
class polar_crc_rule
{
public:
    polar_crc_rule(const nr_polar_code& code, const std::vector<int>& rntis)
        : d_k(code.k()), d_crc_len(code.crc_bits()), d_rnti(code.rnti())
    {
        if (rntis.empty())
            return;
        if (code.rnti() < 0 || code.crc_bits() != 24)
            throw error("polar decoder: rntis (blind RNTI detection) given for a code "
                        "without an RNTI; allowed: DCI codes (nr_polar_code::dci)");
        d_allowed.assign(65536 / 32, 0u);
        for (int r : rntis) {
            if (r < 0 || r > 65535)
                throw error("polar decoder: rnti " + std::to_string(r) +
                            " in rntis; allowed: 0..65535");
            d_allowed[r >> 5] |= 1u << (r & 31);
        }
    }

    bool detects_rnti() const { return !d_allowed.empty(); }
    //! Output bits per frame: the payload, plus 16 RNTI bits when detecting.
    size_t output_bits() const { return d_k + (detects_rnti() ? 16 : 0); }
    //! The code's RNTI (the syndrome's reference), -1 without one.
    int code_rnti() const { return d_rnti; }
    //! 2048 words, bit r set for each accepted RNTI r (empty without detection).
    const std::vector<uint32_t>& allowed() const { return d_allowed; }

    //! The verdict on a syndrome; *rnti gets the sender's RNTI (detection only).
    bool accepts(uint32_t syndrome, uint32_t* rnti) const
    {
        if (!detects_rnti())
            return syndrome == 0;
        const uint32_t r = static_cast<uint32_t>(d_rnti) ^ polar_rnti_field(syndrome, 24);
        *rnti = r;
        return (syndrome & 0xffu) == 0 && ((d_allowed[r >> 5] >> (r & 31)) & 1u);
    }

    //! The verdict on c: K decided bits (payload then CRC, one per byte).
    bool check(const nr_polar_code& code, const uint8_t* c, uint32_t* rnti) const
    {
        if (d_crc_len == 0)
            return true;
        uint8_t parity[24];
        code.crc_parity(c, parity);
        uint32_t syndrome = 0;
        for (int t = 0; t < d_crc_len; t++)
            syndrome |= static_cast<uint32_t>((parity[t] ^ c[d_k + t]) & 1u) << t;
        return accepts(syndrome, rnti);
    }

    //! Writes the packed output: payload bits c[0, k), then the RNTI when detecting.
    void write_output(const uint8_t* c, uint32_t rnti, uint8_t* out) const
    {
        std::fill(out, out + packed_bytes(output_bits()), uint8_t(0));
        for (int j = 0; j < d_k; j++)
            if (c[j])
                out[j >> 3] |= static_cast<uint8_t>(0x80u >> (j & 7));
        if (detects_rnti())
            for (int i = 0; i < 16; i++)
                if ((rnti >> (15 - i)) & 1u)
                    out[(d_k + i) >> 3] |= static_cast<uint8_t>(0x80u >> ((d_k + i) & 7));
    }

private:
    int d_k, d_crc_len, d_rnti;
    std::vector<uint32_t> d_allowed;
};

} // namespace gpufec

#endif
