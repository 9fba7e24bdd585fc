/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// LTE turbo code: QPP table, validation, CRC24B and the CPU encoder (TS 36.212 5.1).
#include <gpufec/turbo.h>

#include <array>
#include <cstring>
#include <sstream>

namespace gpufec {

namespace {

struct lte_qpp_entry {
    int k;
    int f1;
    int f2;
};

#include "tables/lte_qpp_table.inc"

//! A 24-bit CRC of TS 36.212 5.1.1 (register from 0, bits first to last, no final
//! inversion); `poly` is g(D) without its D^24 term.
uint32_t crc24_bitwise(uint32_t poly, uint32_t reg, const uint8_t* bits, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const uint32_t fb = ((reg >> 23) ^ bits[i]) & 1;
        reg = ((reg << 1) & 0xFFFFFF) ^ (poly & (0u - fb));
    }
    return reg;
}

//! Bit 0 of each of the 8 bytes at `p` (one bit a byte), the first byte's at bit 7:
//! a CRC's byte, first bit most significant.
inline uint32_t pack_msb_first(const uint8_t* p)
{
    uint64_t x;
    std::memcpy(&x, p, 8);
    x &= 0x0101010101010101ull;
    // Byte i's bit lands at bit 56 + (7 - i); the partial products do not carry.
    return static_cast<uint32_t>((x * 0x8040201008040201ull) >> 56);
}

//! Bit 0 of each of the 8 bytes at `p`, the first byte's at bit 0.
inline uint32_t pack_lsb_first(const uint8_t* p)
{
    uint64_t x;
    std::memcpy(&x, p, 8);
    x &= 0x0101010101010101ull;
    return static_cast<uint32_t>((x * 0x0102040810204080ull) >> 56);
}

//! The register after 8 bits of a CRC whose register's top byte is i (the rest 0).
std::array<uint32_t, 256> crc24_byte_table(uint32_t poly)
{
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t reg = i << 16;
        for (int b = 0; b < 8; ++b)
            reg = ((reg << 1) & 0xFFFFFF) ^ (poly & (0u - (reg >> 23)));
        t[i] = reg;
    }
    return t;
}

//! A 24-bit CRC of TS 36.212 5.1.1 (register from 0, bits first to last, no final
//! inversion); `poly` is g(D) without its D^24 term. Eight bits a step through a table
//! for the two polynomials of 5.1.1 (CRC24A, CRC24B), bit by bit otherwise.
uint32_t crc24(uint32_t poly, const uint8_t* bits, size_t n)
{
    static const std::array<uint32_t, 256> table_a = crc24_byte_table(0x864CFB);
    static const std::array<uint32_t, 256> table_b = crc24_byte_table(0x800063);
    const uint32_t* table = poly == 0x864CFB   ? table_a.data()
                            : poly == 0x800063 ? table_b.data()
                                               : nullptr;
    if (!table)
        return crc24_bitwise(poly, 0, bits, n);
    const size_t head = n % 8; // the first bits one at a time, then whole bytes
    uint32_t reg = crc24_bitwise(poly, 0, bits, head);
    for (size_t i = head; i < n; i += 8) {
        const uint32_t byte = pack_msb_first(bits + i);
        reg = ((reg << 8) & 0xFFFFFF) ^ table[((reg >> 16) ^ byte) & 0xFF];
    }
    return reg;
}

const lte_qpp_entry* find_entry(int k)
{
    // Sizes are sorted; 188 entries make a linear scan cheap enough at construction.
    for (const auto& e : lte_qpp_table)
        if (e.k == k)
            return &e;
    return nullptr;
}

} // namespace

const char* lte_turbo_code::allowed_k_text()
{
    return "40..512 step 8, 528..1024 step 16, 1056..2048 step 32, 2112..6144 step 64";
}

bool lte_turbo_code::is_valid_k(int k) { return find_entry(k) != nullptr; }

std::vector<int> lte_turbo_code::block_sizes()
{
    std::vector<int> v;
    v.reserve(num_block_sizes);
    for (const auto& e : lte_qpp_table)
        v.push_back(e.k);
    return v;
}

void lte_turbo_code::qpp_parameters(int k, int& f1, int& f2)
{
    const lte_qpp_entry* e = find_entry(k);
    if (!e) {
        std::ostringstream msg;
        msg << "lte_turbo_code: K = " << k
            << " is not an LTE turbo block size (TS 36.212 Table 5.1.3-3); allowed: "
            << allowed_k_text();
        throw error(msg.str());
    }
    f1 = e->f1;
    f2 = e->f2;
}

lte_turbo_code::lte_turbo_code(int k, bool crc24b, int e, int rv, int n_cb, int filler)
    : d_k(k), d_crc24b(crc24b), d_filler(filler)
{
    qpp_parameters(k, d_f1, d_f2);
    if (filler < 0 || filler >= k - (crc24b ? crc_bits : 0))
        throw error("lte_turbo_code: filler = " + std::to_string(filler) +
                    "; allowed: 0..K-1 (K-25 with crc24b)");
    if (e < 0)
        throw error("lte_turbo_code: e = " + std::to_string(e) +
                    "; allowed: 0 (no rate matching) or the rate-matched bits e >= 1");
    if (e > 0)
        d_rm = std::make_shared<const lte_turbo_rate_matching>(k, e, rv, n_cb, filler);
    else if (rv != 0 || n_cb != 0)
        throw error("lte_turbo_code: rv and n_cb need rate matching; allowed: e >= 1, or "
                    "rv = 0 and n_cb = 0");
    d_pi.resize(k);
    // Pi(i+1) = Pi(i) + g(i), g(i+1) = g(i) + 2*f2 (mod K): exact integer recursion,
    // no 64-bit products needed.
    const uint32_t K = static_cast<uint32_t>(k);
    uint32_t pi = 0;
    uint32_t g = static_cast<uint32_t>(d_f1 + d_f2) % K;
    const uint32_t step = static_cast<uint32_t>(2 * d_f2) % K;
    for (uint32_t i = 0; i < K; ++i) {
        d_pi[i] = pi;
        pi = (pi + g) % K;
        g = (g + step) % K;
    }
}

int lte_turbo_code::rsc_step(uint32_t& state, int bit)
{
    const int r1 = (state >> 2) & 1, r2 = (state >> 1) & 1, r3 = state & 1;
    const int a = (bit & 1) ^ r2 ^ r3; // g0 = 1 + D^2 + D^3
    const int z = a ^ r1 ^ r3;         // g1 = 1 + D + D^3
    state = static_cast<uint32_t>((a << 2) | (r1 << 1) | r2);
    return z;
}

std::string lte_turbo_code::describe() const
{
    std::ostringstream s;
    s << "LTE turbo K=" << d_k << " (f1=" << d_f1 << ", f2=" << d_f2 << ") r=1/3";
    if (d_crc24b)
        s << " +CRC24B";
    if (d_filler)
        s << ", " << d_filler << " filler bits";
    if (d_rm)
        s << ", rate matched to E=" << d_rm->e() << " rv=" << d_rm->rv();
    return s.str();
}

uint32_t crc24b(const uint8_t* bits, size_t n)
{
    // g(D) without the D^24 term: D^23 + D^6 + D^5 + D + 1.
    return crc24(0x800063, bits, n);
}

namespace {

// Encodes K input bits (given through an index map) with one RSC, writing K parity
// bits, then 3 tail steps: returns the tail as {x_K, z_K, x_K+1, z_K+1, x_K+2, z_K+2}.
struct rsc_tail {
    int x[3];
    int z[3];
};

//! The RSC eight input bits at a time: entry [state][b] for the bits of b (first bit
//! at bit 0) from `state` holds the next state (bits 8..10) and the 8 parity bits
//! (first at bit 0), as rsc_step gives them.
struct rsc_byte_table {
    uint16_t next[8][256];
    uint64_t spread[256]; //!< byte j = bit j of the index: 8 bits as 8 bytes
    rsc_byte_table()
    {
        for (uint32_t s = 0; s < 8; ++s)
            for (uint32_t b = 0; b < 256; ++b) {
                uint32_t state = s, z = 0;
                for (int j = 0; j < 8; ++j)
                    z |= static_cast<uint32_t>(
                             lte_turbo_code::rsc_step(state, (b >> j) & 1))
                         << j;
                next[s][b] = static_cast<uint16_t>((state << 8) | z);
            }
        for (uint32_t b = 0; b < 256; ++b) {
            spread[b] = 0;
            for (int j = 0; j < 8; ++j)
                spread[b] |= static_cast<uint64_t>((b >> j) & 1) << (8 * j);
        }
    }
};

//! Input(i0) gives the bits i0 .. i0 + 7 packed (first at bit 0).
template <typename Input>
rsc_tail rsc_encode(int k, Input input_byte, uint8_t* parity)
{
    static const rsc_byte_table table;
    if (k % 8 != 0) // every LTE K is a multiple of 8 (Table 5.1.3-3)
        throw error("lte turbo encoder: K = " + std::to_string(k) +
                    "; allowed: multiples of 8");
    uint32_t state = 0;
    for (int i = 0; i < k; i += 8) {
        const uint32_t step = table.next[state][input_byte(i)];
        state = step >> 8;
        std::memcpy(parity + i, &table.spread[step & 0xFF], 8);
    }
    rsc_tail t;
    for (int j = 0; j < 3; ++j) {
        // Termination input equals the feedback, so the register shifts in a zero.
        const int x = ((state >> 1) ^ state) & 1;
        t.x[j] = x;
        t.z[j] = lte_turbo_code::rsc_step(state, x);
    }
    return t;
}

} // namespace

size_t lte_turbo_code::coded_bits() const
{
    return d_rm ? static_cast<size_t>(d_rm->e()) : stream_total();
}

namespace {

//! The d0 | d1 | d2 streams of one code block (3K + 12 bits).
void encode_streams(const lte_turbo_code& code, const uint8_t* in, uint8_t* out)
{
    const int K = code.k();
    const int S = code.stream_bits();
    uint8_t* d0 = out;
    uint8_t* d1 = out + S;
    uint8_t* d2 = out + 2 * S;

    // Filler bits: zeros in front of the payload (the CRC over them is the CRC without
    // them: the register starts at 0).
    const int filler = code.filler_bits();
    const int payload = filler + code.info_bits();
    for (int i = 0; i < filler; ++i)
        d0[i] = 0;
    for (int i = filler; i < payload; ++i)
        d0[i] = in[i - filler] & 1;
    if (code.crc24b()) {
        const uint32_t p = crc24b(d0, payload);
        for (int j = 0; j < lte_turbo_code::crc_bits; ++j)
            d0[payload + j] = (p >> (23 - j)) & 1;
    }
    const uint8_t* c = d0; // systematic bits x_i = c_i, already in place
    const auto& pi = code.interleaver();

    const rsc_tail t1 = rsc_encode(
        K, [c](int i) { return pack_lsb_first(c + i); }, d1);
    const auto* p = pi.data();
    const rsc_tail t2 = rsc_encode(
        K,
        [c, p](int i) {
            uint32_t b = 0;
            for (int j = 0; j < 8; ++j)
                b |= static_cast<uint32_t>(c[p[i + j]] & 1u) << j;
            return b;
        },
        d2);

    // Tail layout of TS 36.212 5.1.3.2.2.
    d0[K] = t1.x[0];
    d0[K + 1] = t1.z[1];
    d0[K + 2] = t2.x[0];
    d0[K + 3] = t2.z[1];
    d1[K] = t1.z[0];
    d1[K + 1] = t1.x[2];
    d1[K + 2] = t2.z[0];
    d1[K + 3] = t2.x[2];
    d2[K] = t1.x[1];
    d2[K + 1] = t1.z[2];
    d2[K + 2] = t2.x[1];
    d2[K + 3] = t2.z[2];
}

} // namespace

void lte_turbo_encode(const lte_turbo_code& code, const uint8_t* in, uint8_t* out)
{
    const lte_turbo_rate_matching* rm = code.rate_matching();
    if (!rm) {
        encode_streams(code, in, out);
        return;
    }
    thread_local std::vector<uint8_t> stream;
    stream.resize(code.stream_total());
    encode_streams(code, in, stream.data());
    rm->rate_match(stream.data(), out);
}

} // namespace gpufec

namespace gpufec {

namespace {

// TS 36.212 Table 5.1.4-1: inter-column permutation pattern of the sub-block
// interleaver of turbo coded transport channels.
constexpr uint8_t turbo_column_permutation[32] = { 0, 16, 8,  24, 4, 20, 12, 28,
                                                   2, 18, 10, 26, 6, 22, 14, 30,
                                                   1, 17, 9,  25, 5, 21, 13, 29,
                                                   3, 19, 11, 27, 7, 23, 15, 31 };

} // namespace

const uint8_t* lte_turbo_rate_matching::column_permutation()
{
    return turbo_column_permutation;
}

lte_turbo_rate_matching::lte_turbo_rate_matching(
    int k, int e, int rv, int n_cb, int filler)
    : d_k(k), d_rv(rv)
{
    int f1, f2;
    lte_turbo_code::qpp_parameters(k, f1, f2); // validates K
    if (e < 1)
        throw error("lte_turbo_rate_matching: e = " + std::to_string(e) +
                    "; allowed: e >= 1");
    if (rv < 0 || rv > 3)
        throw error("lte_turbo_rate_matching: rv = " + std::to_string(rv) +
                    "; allowed: 0..3");
    if (filler < 0 || filler > k - 24)
        throw error("lte_turbo_rate_matching: filler = " + std::to_string(filler) +
                    "; allowed: 0..K-24");
    constexpr int C = 32;
    const int D = k + 4;
    d_rows = (D + C - 1) / C;
    const int R = d_rows, k_pi = R * C, dummies = k_pi - D;
    if (n_cb < 0 || n_cb > 3 * k_pi)
        throw error("lte_turbo_rate_matching: n_cb = " + std::to_string(n_cb) +
                    "; allowed: 0 (K_w = " + std::to_string(3 * k_pi) + ") .. K_w");
    d_n_cb = n_cb == 0 ? 3 * k_pi : n_cb;
    // Stream index of y_m of stream s (-1: a dummy bit, or a filler bit of d0 / d1).
    auto y = [&](int s, int m) -> int32_t {
        if (m < dummies)
            return -1;
        const int pos = m - dummies;
        if (s < 2 && pos < filler)
            return -1;
        return s * D + pos;
    };
    const uint8_t* P = turbo_column_permutation;
    // v^(0), v^(1): the R x 32 matrix, columns permuted, read column by column.
    auto v01 = [&](int s, int i) { return y(s, (i % R) * C + P[i / R]); };
    auto v2 = [&](int i) { return y(2, (P[i / R] + C * (i % R) + 1) % k_pi); };
    d_w.resize(3 * k_pi);
    for (int i = 0; i < k_pi; i++) {
        d_w[i] = v01(0, i);
        d_w[k_pi + 2 * i] = v01(1, i);
        d_w[k_pi + 2 * i + 1] = v2(i);
    }
    const int n = d_n_cb;
    d_k0 = R * (2 * ((n + 8 * R - 1) / (8 * R)) * rv + 2);
    int sendable = 0;
    for (int j = 0; j < n; j++)
        sendable += d_w[j] >= 0;
    if (sendable == 0)
        throw error("lte_turbo_rate_matching: n_cb = " + std::to_string(n) +
                    " holds no coded bit; allowed: a larger n_cb");
    d_map.reserve(e);
    for (int j = 0; static_cast<int>(d_map.size()) < e; j++) {
        const int32_t at = d_w[(d_k0 + j) % n];
        if (at >= 0)
            d_map.push_back(static_cast<uint32_t>(at));
    }
}

void lte_turbo_rate_matching::rate_match(const uint8_t* stream, uint8_t* e) const
{
    for (size_t j = 0; j < d_map.size(); j++)
        e[j] = stream[d_map[j]];
}

void lte_turbo_rate_matching::derate_match(const float* e, float* stream) const
{
    for (size_t j = 0; j < d_map.size(); j++)
        stream[d_map[j]] += e[j];
}

} // namespace gpufec

namespace gpufec {

uint32_t crc24a(const uint8_t* bits, size_t n)
{
    // g(D) without the D^24 term: D^23 + D^18 + D^17 + D^14 + D^11 + D^10 + D^7 + D^6
    // + D^5 + D^4 + D^3 + D + 1.
    return crc24(0x864CFB, bits, n);
}

lte_transport_block::lte_transport_block(
    int tbs, int g, int rv, int layers, int qm, int n_ir)
    : d_tbs(tbs), d_g(g)
{
    auto fail = [](const std::string& what) {
        throw error("lte_transport_block: " + what);
    };
    if (tbs < 16)
        fail("tbs = " + std::to_string(tbs) + "; allowed: tbs >= 16");
    if (layers != 1 && layers != 2 && layers != 4)
        fail("layers = " + std::to_string(layers) + "; allowed: 1, 2, 4");
    if (qm != 2 && qm != 4 && qm != 6 && qm != 8)
        fail("qm = " + std::to_string(qm) + "; allowed: 2, 4, 6, 8");
    if (rv < 0 || rv > 3)
        fail("rv = " + std::to_string(rv) + "; allowed: 0..3");
    if (n_ir < 0)
        fail("n_ir = " + std::to_string(n_ir) + "; allowed: 0 (K_w) or N_IR > 0");
    // Code-block segmentation, 5.1.2.
    constexpr int Z = lte_turbo_code::max_k, crc = lte_turbo_code::crc_bits;
    const int B = tbs + crc;
    const int L = B <= Z ? 0 : crc;
    const int C = B <= Z ? 1 : (B + (Z - L) - 1) / (Z - L);
    const int B1 = B + C * L;
    const std::vector<int> sizes = lte_turbo_code::block_sizes();
    int plus = 0;
    for (int k : sizes)
        if (C * k >= B1) {
            plus = k;
            break;
        }
    if (plus == 0)
        fail("tbs = " + std::to_string(tbs) + " does not segment");
    int minus = 0, c_minus = 0;
    if (C > 1) {
        for (int k : sizes)
            if (k < plus)
                minus = k;
        c_minus = (C * plus - B1) / (plus - minus);
    }
    d_k_plus = plus;
    d_k_minus = minus;
    d_c_minus = c_minus;
    d_filler = (C - c_minus) * plus + c_minus * minus - B1;
    if (g < 1 || g % (layers * qm))
        fail("g = " + std::to_string(g) +
             "; allowed: a positive multiple of layers * qm = " +
             std::to_string(layers * qm));
    // E_r, 5.1.4.1.2: G' = G / (N_L Q_m) symbols shared out, the last gamma blocks one
    // more.
    const int g1 = g / (layers * qm), gamma = g1 % C;
    int at = 0;
    for (int r = 0; r < C; r++) {
        const int k = r < c_minus ? minus : plus;
        const int e = layers * qm * (r <= C - gamma - 1 ? g1 / C : (g1 + C - 1) / C);
        const int kw = 96 * ((k + 4 + 31) / 32);
        const int n_cb = n_ir == 0 ? 0 : std::min(n_ir / C, kw);
        if (e < 1)
            fail("g = " + std::to_string(g) + " leaves code block " + std::to_string(r) +
                 " no bit; allowed: g >= layers * qm * C = " +
                 std::to_string(layers * qm * C));
        d_codes.emplace_back(
            k, C > 1, e, rv, n_cb == kw ? 0 : n_cb, r == 0 ? d_filler : 0);
        d_offsets.push_back(at);
        at += e;
    }
}

void lte_transport_block::encode(const uint8_t* a, uint8_t* out) const
{
    std::vector<uint8_t> b(a, a + d_tbs);
    for (auto& x : b)
        x &= 1u;
    const uint32_t p = crc24a(b.data(), b.size());
    for (int j = 0; j < 24; j++)
        b.push_back((p >> (23 - j)) & 1u);
    size_t s = 0;
    for (int r = 0; r < blocks(); r++) {
        const lte_turbo_code& code = d_codes[r];
        lte_turbo_encode(code, b.data() + s, out + d_offsets[r]);
        s += code.info_bits();
    }
}

bool lte_transport_block::assemble(
    const std::vector<std::vector<uint8_t>>& block_payloads, uint8_t* a) const
{
    if (static_cast<int>(block_payloads.size()) != blocks())
        throw error("lte_transport_block: " + std::to_string(block_payloads.size()) +
                    " decoded blocks; allowed: exactly C = " + std::to_string(blocks()));
    std::vector<uint8_t> b;
    for (int r = 0; r < blocks(); r++) {
        if (static_cast<int>(block_payloads[r].size()) != d_codes[r].info_bits())
            throw error("lte_transport_block: block " + std::to_string(r) + " has " +
                        std::to_string(block_payloads[r].size()) +
                        " bits; allowed: its code's info_bits() = " +
                        std::to_string(d_codes[r].info_bits()));
        b.insert(b.end(), block_payloads[r].begin(), block_payloads[r].end());
    }
    std::copy(b.begin(), b.begin() + d_tbs, a);
    return crc24a(b.data(), b.size()) == 0;
}

} // namespace gpufec
