/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// 5G NR polar code: parameters, frozen set, rate matching and the CPU encoder.
#include <gpufec/polar.h>

#include <algorithm>
#include <cstring>
#include <sstream>

namespace gpufec {

namespace {

#include "tables/nr_polar_tables.inc"

constexpr int uplink_n_max = 10;       // TS 38.212 6.3.1.3.1
constexpr int downlink_n_max = 9;      // 7.1.4 (BCH), 7.3.3 (DCI)
constexpr int max_k_interleaved = 164; // K_IL_max of 5.3.1.1
constexpr int max_uci_payload = 1706;  // A's bound in 5.2.1

// TS 38.212 Table 5.3.1.1-1: the input bit interleaving pattern Pi_IL_max(m), m = 0..163.
// Cross-checked against the public implementations in NVlabs/sionna
// (src/sionna/phy/fec/polar/encoding.py) and OpenAirInterface
// (openair1/PHY/CODING/nrPolar_tools/nr_polar_interleaving_pattern.c).
const uint8_t input_interleaving_table[max_k_interleaved] = {
    0,   2,   4,   7,   9,   14,  19,  20,  24,  25,  26,  28,  31,  34,  42,  45,  49,
    50,  51,  53,  54,  56,  58,  59,  61,  62,  65,  66,  67,  69,  70,  71,  72,  76,
    77,  81,  82,  83,  87,  88,  89,  91,  93,  95,  98,  101, 104, 106, 108, 110, 111,
    113, 115, 118, 119, 120, 122, 123, 126, 127, 129, 132, 134, 138, 139, 140, 1,   3,
    5,   8,   10,  15,  21,  27,  29,  32,  35,  43,  46,  52,  55,  57,  60,  63,  68,
    73,  78,  84,  90,  92,  94,  96,  99,  102, 105, 107, 109, 112, 114, 116, 121, 124,
    128, 130, 133, 135, 141, 6,   11,  16,  22,  30,  33,  36,  44,  47,  64,  74,  79,
    85,  97,  100, 103, 117, 125, 131, 136, 142, 12,  17,  23,  37,  48,  75,  80,  86,
    137, 143, 13,  18,  38,  144, 39,  145, 40,  146, 41,  147, 148, 149, 150, 151, 152,
    153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163
};
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

namespace {

//! The CRC register (LFSR form of the long division of a(D) D^L by g(D)) after the
//! bits in[0, n) from `reg`.
uint32_t crc_register(polar_crc c, uint32_t reg, const uint8_t* in, size_t n)
{
    const int len = crc_length(c);
    const uint32_t gen = crc_generator(c);
    const uint32_t mask = (1u << len) - 1;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t feedback = (in[i] & 1u) ^ ((reg >> (len - 1)) & 1u);
        reg = ((reg << 1) & mask) ^ (gen & (0u - feedback));
    }
    return reg;
}

void crc_register_bits(uint32_t reg, int len, uint8_t* parity)
{
    for (int i = 0; i < len; ++i)
        parity[i] = (reg >> (len - 1 - i)) & 1u;
}

} // namespace

void nr_crc_parity(polar_crc c, const uint8_t* in, size_t n, uint8_t* parity)
{
    const int len = crc_length(c);
    if (len == 0)
        return;
    crc_register_bits(crc_register(c, 0, in, n), len, parity);
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
    d_n_max = uplink_n_max;
    check_e();
    if (d_crc == polar_crc::crc6 && k >= 12 && k <= 19) {
        // UCI with 12 <= A <= 19 (6.3.1.2.1, 6.3.1.3.1): CRC6 and n_PC = 3 parity-check
        // bits, one of them at a minimum-row-weight position when E - K + 3 > 192.
        d_n_pc = 3;
        d_n_pc_wm = e - (k + d_crc_len) + 3 > 192 ? 1 : 0;
    }
    if (d_crc == polar_crc::crc11) {
        // UCI: A >= 20 uses CRC11 without parity-check bits; 12..19 CRC6 + 3 PC bits.
        if (k < 20 || k > max_uci_payload)
            fail("k = " + std::to_string(k) +
                 " is not supported with crc11; allowed: 20..1706 (12..19: crc6, which "
                 "adds the 3 parity-check bits of 6.3.1.3.1)");
        if (k >= 1013 || (k >= 360 && e >= 1088)) {
            // Code-block segmentation (5.2.1, I_seg = 1): two code blocks of A'/2 bits
            // each, A' = A rounded up to even with a filler 0 in front; each block gets
            // CRC11 and floor(E/2) coded bits (6.3.1.4), concatenated (6.3.1.5).
            d_filler = k % 2;
            const int block_k = (k + d_filler) / 2, block_e = e / 2;
            chain c;
            c.uplink_block = true;
            d_segment = std::shared_ptr<const nr_polar_code>(new nr_polar_code(
                block_k, block_e, polar_crc::crc11, channel_interleave, c));
            d_segments = 2;
            const nr_polar_code& b = *d_segment;
            d_n = b.d_n;
            d_mode = b.d_mode;
            d_frozen = b.d_frozen;
            d_info = b.d_info;
            d_bit_positions = b.d_bit_positions;
            return;
        }
    } else if (k < 1) {
        fail("k = " + std::to_string(k) + " is out of range; allowed: k >= 1");
    }
    construct();
}

nr_polar_code::nr_polar_code(
    int k, int e, polar_crc crc, bool channel_interleave, chain c)
    : d_k(k),
      d_e(e),
      d_crc_len(crc_length(crc)),
      d_n(0),
      d_crc(crc),
      d_channel_interleave(channel_interleave),
      d_mode(polar_rate_matching::repetition)
{
    if (c.uplink_block) {
        d_n_max = uplink_n_max;
        check_e();
        construct();
        return;
    }
    d_n_max = downlink_n_max;
    d_input_interleave = true;
    check_e();
    d_ones_prefix = c.ones_prefix;
    d_rnti = c.rnti;
    construct();
}

nr_polar_code nr_polar_code::dci(int k, int e, int rnti)
{
    if (k < 12 || k > max_k_interleaved - 24)
        fail("dci: k = " + std::to_string(k) +
             "; allowed: 12..140 (pad shorter DCI formats with zeros, TS 38.212 7.3.1)");
    if (rnti < 0 || rnti > 65535)
        fail("dci: rnti = " + std::to_string(rnti) + "; allowed: 0..65535");
    chain c;
    c.ones_prefix = true;
    c.rnti = rnti;
    return nr_polar_code(k, e, polar_crc::crc24c, false, c);
}

nr_polar_code nr_polar_code::bch(int e, int k)
{
    if (k < 1 || k > max_k_interleaved - 24)
        fail("bch: k = " + std::to_string(k) + "; allowed: 1..140 (the MIB chain: 32)");
    return nr_polar_code(k, e, polar_crc::crc24c, false, chain{});
}

std::vector<uint16_t> nr_polar_code::input_interleaver_pattern(int K)
{
    if (K < 1 || K > max_k_interleaved)
        fail("input interleaver: K = " + std::to_string(K) + "; allowed: 1..164");
    std::vector<uint16_t> pi;
    pi.reserve(K);
    for (int m = 0; m < max_k_interleaved; ++m)
        if (input_interleaving_table[m] >= max_k_interleaved - K)
            pi.push_back(static_cast<uint16_t>(input_interleaving_table[m] -
                                               (max_k_interleaved - K)));
    return pi;
}

void nr_polar_code::crc_parity(const uint8_t* a, uint8_t* parity) const
{
    require_one_block(__func__);
    if (d_crc_len == 0)
        return;
    // The register's columns (construct()): a loop without a branch per bit, which
    // the compiler vectorizes, in place of the bit-serial division (nr_crc_parity).
    uint32_t reg = d_crc_zero;
    const uint32_t* column = d_crc_columns.data();
    for (int j = 0; j < d_k; ++j)
        reg ^= column[j] & (0u - static_cast<uint32_t>(a[j] & 1u));
    crc_register_bits(reg, d_crc_len, parity);
    if (d_rnti >= 0)
        for (int i = 0; i < 16; ++i)
            parity[d_crc_len - 16 + i] ^= (d_rnti >> (15 - i)) & 1;
}

void nr_polar_code::require_one_block(const char* who) const
{
    if (d_segments != 1)
        fail(std::string(who) +
             ": a code of two code blocks (5.2.1) runs its steps per block; use "
             "segment()");
}

void nr_polar_code::check_e() const
{
    if (d_e < 1 || d_e > max_e)
        fail("e = " + std::to_string(d_e) + " is out of range; allowed: 1.." +
             std::to_string(max_e));
}

void nr_polar_code::construct()
{
    const int K = this->K();
    const int n_max = d_n_max;
    const int max_k = d_input_interleave ? max_k_interleaved : 1 << n_max;
    if (K > d_e || K > max_k)
        fail("K = k + CRC = " + std::to_string(K) + " must be <= e (" +
             std::to_string(d_e) + ") and <= " + std::to_string(max_k) +
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

    // Information set Q_I: the K + n_PC most reliable indices < N that are not
    // pre-frozen, 5.3.1.2 (usable is ordered least reliable first).
    std::vector<uint16_t> usable;
    usable.reserve(N);
    for (int i = 0; i < 1024; ++i) {
        const uint16_t q = nr_polar_reliability_table[i];
        if (q < N && !pre_frozen[q])
            usable.push_back(q);
    }
    if (static_cast<int>(usable.size()) < K + d_n_pc)
        fail("K = " + std::to_string(K + d_n_pc) + " exceeds the " +
             std::to_string(usable.size()) +
             " positions left after rate matching of e = " + std::to_string(d_e) +
             "; allowed: smaller k or larger e");
    std::vector<uint16_t> q_i(usable.end() - (K + d_n_pc), usable.end());
    // Parity-check bits (5.3.1.2): the n_PC - n_PC^wm least reliable of Q_I, and
    // n_PC^wm at the positions of minimum row weight (2^popcount of the index) among
    // the |Q_I| - n_PC most reliable, the most reliable of those first.
    d_pc.assign(q_i.begin(), q_i.begin() + (d_n_pc - d_n_pc_wm));
    if (d_n_pc_wm > 0) {
        std::vector<uint16_t> rest(q_i.begin() + d_n_pc, q_i.end());
        for (int w = 0; w < d_n_pc_wm; ++w) {
            int best = -1;
            for (int j = static_cast<int>(rest.size()) - 1; j >= 0; --j)
                if (best < 0 ||
                    __builtin_popcount(rest[j]) < __builtin_popcount(rest[best]))
                    best = j;
            d_pc.push_back(rest[best]);
            rest.erase(rest.begin() + best);
        }
    }
    std::sort(d_pc.begin(), d_pc.end());
    d_info.clear();
    for (uint16_t q : q_i)
        if (!std::binary_search(d_pc.begin(), d_pc.end(), q))
            d_info.push_back(q);
    std::sort(d_info.begin(), d_info.end());
    std::fill(d_frozen.begin(), d_frozen.end(), 1);
    for (uint16_t i : q_i)
        d_frozen[i] = 0;

    d_bit_positions = d_info;
    if (d_input_interleave) {
        const std::vector<uint16_t> pi = input_interleaver_pattern(K);
        for (int k = 0; k < K; ++k) // info_positions()[k] carries c'_k = c_Pi(k)
            d_bit_positions[pi[k]] = d_info[k];
    }
    // The CRC register's columns: payload bit j alone leaves g(D)'s register shifted
    // through the k - 1 - j bits after it; the all-zero payload leaves 0, or with the
    // ones prefix what the 24 ones leave, shifted through k zeros.
    if (d_crc_len > 0) {
        const uint8_t one = 1, zero = 0;
        d_crc_columns.assign(d_k, 0);
        uint32_t reg = crc_register(d_crc, 0, &one, 1);
        for (int j = d_k - 1; j >= 0; --j) {
            d_crc_columns[j] = reg;
            reg = crc_register(d_crc, reg, &zero, 1);
        }
        d_crc_zero = 0;
        if (d_ones_prefix) {
            const std::vector<uint8_t> ones(24, 1), zeros(d_k, 0);
            d_crc_zero = crc_register(d_crc, 0, ones.data(), ones.size());
            d_crc_zero = crc_register(d_crc, d_crc_zero, zeros.data(), zeros.size());
        }
    }
    d_chan = channel_interleaver_pattern(d_e);
    d_out_map.resize(d_e);
    for (int i = 0; i < d_e; ++i) {
        const int sel = d_channel_interleave ? d_chan[i] : i;
        d_out_map[i] = d_subblock[d_select[sel]];
    }
}

void nr_polar_code::attach_crc(const uint8_t* a, uint8_t* c) const
{
    require_one_block(__func__);
    std::copy(a, a + d_k, c);
    crc_parity(a, c + d_k);
}

void nr_polar_code::transform(uint8_t* bits, int n_bits)
{
    // x = u G_N with G_2 = [1 0; 1 1]: each butterfly sets x_j = u_j ^ u_{j+h}, x_{j+h} =
    // u_{j+h}.
    if (n_bits < 8) {
        for (int h = 1; h < n_bits; h <<= 1)
            for (int b = 0; b < n_bits; b += 2 * h)
                for (int j = b; j < b + h; ++j)
                    bits[j] ^= bits[j + h];
        return;
    }
    // Eight bytes a word: h = 1, 2, 4 inside each word (byte j + h is h bytes higher
    // in the little-endian word), then whole words; both loops vectorize.
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "byte j at bits 8 j");
    const int words = n_bits / 8;
    uint64_t w[1024 / 8];
    if (words > 1024 / 8)
        fail("transform: n_bits = " + std::to_string(n_bits) +
             "; allowed: powers of two up to 1024");
    std::memcpy(w, bits, static_cast<size_t>(n_bits));
    for (int i = 0; i < words; ++i) {
        uint64_t x = w[i];
        x ^= (x >> 8) & 0x00ff00ff00ff00ffull;
        x ^= (x >> 16) & 0x0000ffff0000ffffull;
        x ^= (x >> 32) & 0x00000000ffffffffull;
        w[i] = x;
    }
    for (int h = 1; h < words; h <<= 1)
        for (int b = 0; b < words; b += 2 * h)
            for (int j = b; j < b + h; ++j)
                w[j] ^= w[j + h];
    std::memcpy(bits, w, static_cast<size_t>(n_bits));
}

void nr_polar_code::polar_encode(const uint8_t* c, uint8_t* d) const
{
    require_one_block(__func__);
    std::fill(d, d + N(), uint8_t{ 0 });
    for (int i = 0; i < K(); ++i)
        d[d_bit_positions[i]] = c[i] & 1u;
    for (uint16_t p : d_pc)
        d[p] = parity_check_bit(d, p);
    transform(d, N());
}

uint8_t nr_polar_code::parity_check_bit(const uint8_t* u, int p) const
{
    // The cyclic 5-bit register of 5.3.1.2 rotates once per index and adds each
    // information bit (not the PC bits) into its first cell, so at index p that cell
    // holds the XOR of the information bits u_m, m < p, m = p (mod 5).
    uint8_t v = 0;
    for (uint16_t m : d_info) {
        if (m >= p)
            break;
        if ((p - m) % 5 == 0)
            v ^= u[m] & 1u;
    }
    return v;
}

void nr_polar_code::rate_match(const uint8_t* d, uint8_t* e) const
{
    require_one_block(__func__);
    for (int i = 0; i < d_e; ++i)
        e[i] = d[d_subblock[d_select[i]]];
}

void nr_polar_code::interleave_channel(const uint8_t* e, uint8_t* f) const
{
    require_one_block(__func__);
    for (int i = 0; i < d_e; ++i)
        f[i] = e[d_chan[i]];
}

void nr_polar_code::encode(const uint8_t* a, uint8_t* out) const
{
    if (d_segments == 2) {
        // a' = (filler 0, a); block r encodes a'[r A'/2, (r + 1) A'/2); an odd E ends
        // with a 0 (6.3.1.5).
        const nr_polar_code& b = *d_segment;
        std::vector<uint8_t> padded(d_k + d_filler, 0);
        std::copy(a, a + d_k, padded.begin() + d_filler);
        for (int r = 0; r < 2; ++r)
            b.encode(padded.data() + r * b.k(), out + r * b.e());
        if (d_e % 2)
            out[d_e - 1] = 0;
        return;
    }
    uint8_t c[1024], d[1024]; // K <= N <= 1024 (n_max <= 10)
    attach_crc(a, c);
    polar_encode(c, d);
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
