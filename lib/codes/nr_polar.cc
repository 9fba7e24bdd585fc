/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// 5G NR polar code: parameters, frozen set, rate matching and the CPU encoder.
#include <gpufec/polar.h>

#include <algorithm>
#include <sstream>

namespace gpufec {

namespace {

#include "tables/nr_polar_tables.inc"

constexpr int n_max = 10; // uplink (TS 38.212 6.3.1.3.1)
constexpr int n_min = 5;
constexpr int max_e = 8192; // channel interleaver limit of 5.4.1.3

// Generator without its leading D^L term, highest remaining power in bit L-1.
uint32_t crc_generator(polar_crc c)
{
    switch (c) {
    case polar_crc::crc6:
        return 0x21;
    case polar_crc::crc11:
        return 0x621;
    case polar_crc::crc24c:
        return 0xB2B117;
    default:
        return 0;
    }
}

int ceil_log2(int x)
{
    int r = 0;
    while ((1 << r) < x)
        ++r;
    return r;
}

[[noreturn]] void fail(const std::string& msg) { throw error("nr_polar_code: " + msg); }

} // namespace

polar_crc parse_polar_crc(const std::string& s)
{
    if (s == "none")
        return polar_crc::none;
    if (s == "crc6")
        return polar_crc::crc6;
    if (s == "crc11")
        return polar_crc::crc11;
    if (s == "crc24c")
        return polar_crc::crc24c;
    throw error("polar crc '" + s +
                "' is not supported; allowed: \"crc11\", \"crc24c\", \"crc6\", \"none\"");
}

std::string to_string(polar_crc c)
{
    switch (c) {
    case polar_crc::crc6:
        return "crc6";
    case polar_crc::crc11:
        return "crc11";
    case polar_crc::crc24c:
        return "crc24c";
    default:
        return "none";
    }
}

int crc_length(polar_crc c)
{
    switch (c) {
    case polar_crc::crc6:
        return 6;
    case polar_crc::crc11:
        return 11;
    case polar_crc::crc24c:
        return 24;
    default:
        return 0;
    }
}

void nr_crc_parity(polar_crc c, const uint8_t* in, size_t n, uint8_t* parity)
{
    const int len = crc_length(c);
    if (len == 0)
        return;
    const uint32_t gen = crc_generator(c);
    const uint32_t mask = (1u << len) - 1;
    uint32_t reg = 0; // LFSR form of the long division of a(D) D^L by g(D)
    for (size_t i = 0; i < n; ++i) {
        const uint32_t feedback = (in[i] & 1u) ^ ((reg >> (len - 1)) & 1u);
        reg = (reg << 1) & mask;
        if (feedback)
            reg ^= gen;
    }
    for (int i = 0; i < len; ++i)
        parity[i] = (reg >> (len - 1 - i)) & 1u;
}

const uint16_t* nr_polar_reliability_sequence() { return nr_polar_reliability_table; }
const uint8_t* nr_polar_subblock_pattern() { return nr_polar_subblock_table; }

std::string to_string(polar_rate_matching m)
{
    switch (m) {
    case polar_rate_matching::puncturing:
        return "puncturing";
    case polar_rate_matching::shortening:
        return "shortening";
    default:
        return "repetition";
    }
}

nr_polar_code::nr_polar_code(int k,
                             int e,
                             const std::string& crc,
                             bool channel_interleave)
    : d_k(k),
      d_e(e),
      d_crc_len(0),
      d_n(0),
      d_crc(parse_polar_crc(crc)),
      d_channel_interleave(channel_interleave),
      d_mode(polar_rate_matching::repetition)
{
    d_crc_len = crc_length(d_crc);
    if (d_e < 1 || d_e > max_e)
        fail("e = " + std::to_string(e) + " is out of range; allowed: 1.." +
             std::to_string(max_e));
    if (d_crc == polar_crc::crc11) {
        // UCI: A >= 20 uses CRC11 without parity-check bits; 12..19 needs CRC6 + 3 PC
        // bits.
        if (k < 20 || k > 1012)
            fail("k = " + std::to_string(k) +
                 " is not supported with crc11; allowed: 20..1012 (12..19 needs the CRC6 "
                 "+ "
                 "parity-check-bit variant, >= 1013 code-block segmentation; neither is "
                 "supported)");
        if (k >= 360 && e >= 1088)
            fail("k = " + std::to_string(k) + " with e = " + std::to_string(e) +
                 " needs code-block segmentation (TS 38.212 5.2.1), which is not "
                 "supported; "
                 "allowed: k < 360 or e < 1088");
    } else if (k < 1) {
        fail("k = " + std::to_string(k) + " is out of range; allowed: k >= 1");
    }
    const int K = this->K();
    const int max_k = 1 << n_max;
    if (K > d_e || K > max_k)
        fail("K = k + CRC = " + std::to_string(K) + " must be <= e (" +
             std::to_string(e) + ") and <= " + std::to_string(max_k) +
             "; allowed: k <= min(e, " + std::to_string(max_k) + ") - " +
             std::to_string(d_crc_len));

    // Mother code length, TS 38.212 5.3.1.
    const int log2e = ceil_log2(d_e);
    int n1 = log2e;
    if (log2e >= 1 && 8 * d_e <= 9 * (1 << (log2e - 1)) && 16 * K < 9 * d_e)
        n1 = log2e - 1;
    const int n2 = ceil_log2(8 * K); // R_min = 1/8
    d_n = std::max(std::min({ n1, n2, n_max }), n_min);
    const int N = this->N();

    // Sub-block interleaver, 5.4.1.1.
    d_subblock.resize(N);
    const int sub = N / 32;
    for (int i = 0; i < N; ++i)
        d_subblock[i] =
            static_cast<uint16_t>(nr_polar_subblock_table[i / sub] * sub + i % sub);

    // Bit selection, 5.4.1.2, and the pre-frozen positions of 5.4.1.1.
    d_frozen.assign(N, 0);
    std::vector<uint8_t> pre_frozen(N, 0);
    d_select.resize(d_e);
    if (d_e >= N) {
        d_mode = polar_rate_matching::repetition;
        for (int i = 0; i < d_e; ++i)
            d_select[i] = static_cast<uint16_t>(i % N);
    } else if (16 * K <= 7 * d_e) {
        d_mode = polar_rate_matching::puncturing;
        for (int i = 0; i < d_e; ++i)
            d_select[i] = static_cast<uint16_t>(i + N - d_e);
        for (int i = 0; i < N - d_e; ++i)
            pre_frozen[d_subblock[i]] = 1;
        // Low-index bits of u are also frozen since they only reach punctured outputs.
        const int extra =
            (4 * d_e >= 3 * N) ? (3 * N - 2 * d_e + 3) / 4 : (9 * N - 4 * d_e + 15) / 16;
        for (int i = 0; i < extra; ++i)
            pre_frozen[i] = 1;
    } else {
        d_mode = polar_rate_matching::shortening;
        for (int i = 0; i < d_e; ++i)
            d_select[i] = static_cast<uint16_t>(i);
        for (int i = d_e; i < N; ++i)
            pre_frozen[d_subblock[i]] = 1;
    }

    // Information set: the K most reliable indices < N that are not pre-frozen, 5.3.1.2.
    std::vector<uint16_t> usable;
    usable.reserve(N);
    for (int i = 0; i < (1 << n_max); ++i) {
        const uint16_t q = nr_polar_reliability_table[i];
        if (q < N && !pre_frozen[q])
            usable.push_back(q);
    }
    if (static_cast<int>(usable.size()) < K)
        fail("K = " + std::to_string(K) + " exceeds the " +
             std::to_string(usable.size()) +
             " positions left after rate matching of e = " + std::to_string(e) +
             "; allowed: smaller k or larger e");
    d_info.assign(usable.end() - K, usable.end());
    std::sort(d_info.begin(), d_info.end());
    std::fill(d_frozen.begin(), d_frozen.end(), 1);
    for (uint16_t i : d_info)
        d_frozen[i] = 0;

    d_chan = channel_interleaver_pattern(d_e);
    d_out_map.resize(d_e);
    for (int i = 0; i < d_e; ++i) {
        const int sel = d_channel_interleave ? d_chan[i] : i;
        d_out_map[i] = d_subblock[d_select[sel]];
    }
}

void nr_polar_code::attach_crc(const uint8_t* a, uint8_t* c) const
{
    std::copy(a, a + d_k, c);
    nr_crc_parity(d_crc, a, d_k, c + d_k);
}

void nr_polar_code::transform(uint8_t* bits, int n_bits)
{
    // x = u G_N with G_2 = [1 0; 1 1]: each butterfly sets x_j = u_j ^ u_{j+h}, x_{j+h} =
    // u_{j+h}.
    for (int h = 1; h < n_bits; h <<= 1)
        for (int b = 0; b < n_bits; b += 2 * h)
            for (int j = b; j < b + h; ++j)
                bits[j] ^= bits[j + h];
}

void nr_polar_code::polar_encode(const uint8_t* c, uint8_t* d) const
{
    std::fill(d, d + N(), uint8_t{ 0 });
    for (int i = 0; i < K(); ++i)
        d[d_info[i]] = c[i] & 1u;
    transform(d, N());
}

void nr_polar_code::rate_match(const uint8_t* d, uint8_t* e) const
{
    for (int i = 0; i < d_e; ++i)
        e[i] = d[d_subblock[d_select[i]]];
}

void nr_polar_code::interleave_channel(const uint8_t* e, uint8_t* f) const
{
    for (int i = 0; i < d_e; ++i)
        f[i] = e[d_chan[i]];
}

void nr_polar_code::encode(const uint8_t* a, uint8_t* out) const
{
    std::vector<uint8_t> c(K()), d(N());
    attach_crc(a, c.data());
    polar_encode(c.data(), d.data());
    for (int i = 0; i < d_e; ++i)
        out[i] = d[d_out_map[i]];
}

std::vector<uint8_t> nr_polar_code::encode(const std::vector<uint8_t>& a) const
{
    if (static_cast<int>(a.size()) != d_k) {
        std::ostringstream msg;
        msg << "nr_polar_code::encode: got " << a.size()
            << " payload bits; allowed: exactly k = " << d_k;
        throw error(msg.str());
    }
    std::vector<uint8_t> out(d_e);
    encode(a.data(), out.data());
    return out;
}

std::vector<uint16_t> nr_polar_code::channel_interleaver_pattern(int e)
{
    // Triangle of side T, T(T+1)/2 >= E: written row by row, read column by column
    // (5.4.1.3).
    int T = 0;
    while (T * (T + 1) / 2 < e)
        ++T;
    std::vector<int> v(static_cast<size_t>(T) * T, -1);
    int k = 0;
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < T - i; ++j, ++k)
            if (k < e)
                v[i * T + j] = k;
    std::vector<uint16_t> pattern;
    pattern.reserve(e);
    for (int j = 0; j < T; ++j)
        for (int i = 0; i < T - j; ++i)
            if (v[i * T + j] >= 0)
                pattern.push_back(static_cast<uint16_t>(v[i * T + j]));
    return pattern;
}

} // namespace gpufec
