/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// 5G NR small-block UCI codes, TS 38.212 5.3.3 and 5.4.3 (see nr_uci_small.h).
#include <gpufec/nr_uci_small.h>

#include <sstream>

namespace gpufec {

namespace {

/*
 * TS 38.212 Table 5.3.3.3-1 "Basis sequences for (32, K) code" (identical to TS 36.212
 * Table 5.2.2.6.4-1), in the standard's layout: row i = 0..31 holds M_{i,0} .. M_{i,10}.
 * Cross-checked against two independent public implementations (srsRAN Project's short
 * block encoder, stored per n, and OpenAirInterface's nrSmallBlockBasis, stored as 32-bit
 * words); lib/tests/test_nr_uci_small.cc checks it against the latter's words.
 */
constexpr uint8_t basis_table[32][11] = {
    { 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1 }, // i = 0
    { 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1 }, // i = 1
    { 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1 }, // i = 2
    { 1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1 }, // i = 3
    { 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 }, // i = 4
    { 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1 }, // i = 5
    { 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1 }, // i = 6
    { 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1 }, // i = 7
    { 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1 }, // i = 8
    { 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1 }, // i = 9
    { 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1 }, // i = 10
    { 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1 }, // i = 11
    { 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1 }, // i = 12
    { 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1 }, // i = 13
    { 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1 }, // i = 14
    { 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1 }, // i = 15
    { 1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0 }, // i = 16
    { 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0 }, // i = 17
    { 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0 }, // i = 18
    { 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0 }, // i = 19
    { 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 }, // i = 20
    { 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1 }, // i = 21
    { 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1 }, // i = 22
    { 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1 }, // i = 23
    { 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0 }, // i = 24
    { 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1 }, // i = 25
    { 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0 }, // i = 26
    { 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0 }, // i = 27
    { 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0 }, // i = 28
    { 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0 }, // i = 29
    { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, // i = 30
    { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, // i = 31
};

std::string allowed_k() { return "allowed: k = 1..11"; }

} // namespace

uint32_t nr_uci_small_basis(int n)
{
    if (n < 0 || n > 10)
        throw error("nr_uci_small_basis: n = " + std::to_string(n) +
                    " out of range; allowed: 0..10");
    uint32_t w = 0;
    for (int i = 0; i < 32; i++)
        w |= static_cast<uint32_t>(basis_table[i][n]) << i;
    return w;
}

nr_uci_small_code::nr_uci_small_code(int k, int e, int qm) : d_k(k), d_e(e), d_qm(qm)
{
    if (k < 1 || k > max_k)
        throw error("nr_uci_small_code: k = " + std::to_string(k) + " unsupported; " +
                    allowed_k() + " (TS 38.212 5.3.3; larger payloads use polar codes)");
    if (e < 1 || e > max_e)
        throw error("nr_uci_small_code: e = " + std::to_string(e) +
                    " out of range; allowed: e = 1.." + std::to_string(max_e));
    if (qm != 1 && qm != 2 && qm != 4 && qm != 6 && qm != 8)
        throw error("nr_uci_small_code: qm = " + std::to_string(qm) +
                    " unsupported; allowed: qm = 1, 2, 4, 6, 8");

    // Mother sequence d as code-bit indices (-1 = 'x').
    if (k == 1) {
        d_m = 1;
        d_map.assign(qm, -1); // [c0, y, x, ..., x]
        d_map[0] = 0;
        if (qm > 1)
            d_map[1] = 0; // 'y' repeats c0
    } else if (k == 2) {
        d_m = 3;
        if (qm == 1) {
            d_map = { 0, 1, 2 };
        } else if (qm == 2) {
            d_map = { 0, 1, 2, 0, 1, 2 };
        } else {
            // Three groups of Qm bits: (c0 c1), (c2 c0), (c1 c2), each pair followed by
            // Qm - 2 'x'.
            static constexpr int8_t pairs[3][2] = { { 0, 1 }, { 2, 0 }, { 1, 2 } };
            d_map.assign(3 * qm, -1);
            for (int g = 0; g < 3; g++) {
                d_map[g * qm] = pairs[g][0];
                d_map[g * qm + 1] = pairs[g][1];
            }
        }
    } else {
        d_m = 32;
        d_map.resize(32);
        for (int i = 0; i < 32; i++)
            d_map[i] = static_cast<int8_t>(i);
    }

    // Codebook: message index u, c_n = bit (K-1-n) of u.
    uint32_t basis[max_k];
    for (int n = 0; n < k; n++) {
        if (k == 1)
            basis[n] = 1u; // c0
        else if (k == 2)
            basis[n] = n == 0 ? 0b101u : 0b110u; // c0 -> c0, c2; c1 -> c1, c2
        else
            basis[n] = nr_uci_small_basis(n);
    }
    d_codebook.resize(size_t(1) << k);
    for (uint32_t u = 0; u < d_codebook.size(); u++) {
        uint32_t w = 0;
        for (int n = 0; n < k; n++)
            if ((u >> (k - 1 - n)) & 1u)
                w ^= basis[n];
        d_codebook[u] = w;
    }
}

void nr_uci_small_code::mother_encode(const uint8_t* info, uint8_t* d) const
{
    uint32_t u = 0;
    for (int n = 0; n < d_k; n++)
        u = (u << 1) | (info[n] & 1u);
    const uint32_t w = d_codebook[u];
    for (size_t j = 0; j < d_map.size(); j++)
        d[j] = d_map[j] < 0 ? 1 : static_cast<uint8_t>((w >> d_map[j]) & 1u);
}

void nr_uci_small_code::encode(const uint8_t* info, uint8_t* out) const
{
    uint8_t d[32];
    mother_encode(info, d);
    const size_t N = d_map.size();
    for (int k = 0; k < d_e; k++)
        out[k] = d[k % N];
}

std::vector<uint8_t> nr_uci_small_code::encode(const std::vector<uint8_t>& info) const
{
    if (info.size() != static_cast<size_t>(d_k))
        throw error("nr_uci_small_code::encode: " + std::to_string(info.size()) +
                    " info bits given; allowed: k = " + std::to_string(d_k));
    std::vector<uint8_t> out(d_e);
    encode(info.data(), out.data());
    return out;
}

std::string nr_uci_small_code::describe() const
{
    std::ostringstream s;
    s << "nr uci small K=" << d_k << " E=" << d_e;
    if (d_k == 1)
        s << " Qm=" << d_qm << " (repetition, N=" << n() << ")";
    else if (d_k == 2)
        s << " Qm=" << d_qm << " (simplex, N=" << n() << ")";
    else
        s << " (Reed-Muller (32," << d_k << "))";
    return s.str();
}

} // namespace gpufec
