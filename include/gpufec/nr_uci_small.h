/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// 5G NR small-block UCI codes (layer codes/): TS 38.212 5.3.3 channel coding of K = 1..11
// UCI bits with the rate matching of 5.4.3, and their exhaustive maximum-likelihood
// decoder (cpu/, cuda/uci_small/). docs/uci_small.md describes both.
#ifndef INCLUDED_GPUFEC_NR_UCI_SMALL_H
#define INCLUDED_GPUFEC_NR_UCI_SMALL_H

#include <gpufec/batch_decoder.h>
#include <gpufec/common.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {

/*!
 * Basis sequence M_{i,n} of TS 38.212 Table 5.3.3.3-1 (the same table as TS 36.212 Table
 * 5.2.2.6.4-1) as a 32-bit word: bit i (0..31) is M_{i,n}, n = 0..10. Throws for n out of
 * range.
 */
uint32_t nr_uci_small_basis(int n);

/*!
 * A 5G NR small-block UCI code, TS 38.212 5.3.3 + 5.4.3:
 *
 *   K = 1 (5.3.3.1): d = [c0, y, x, ..., x], N = Qm bits (Qm = 1: d = [c0]);
 *   K = 2 (5.3.3.2): c2 = c0 ^ c1; Qm = 1: d = [c0 c1 c2]; Qm = 2: [c0 c1 c2 c0 c1 c2];
 *     Qm >= 4: [c0 c1 x.. c2 c0 x.. c1 c2 x..] with Qm - 2 'x' after each pair, N = 3 Qm;
 *   K = 3..11 (5.3.3.3): d_i = sum_n c_n M_{i,n} mod 2, i = 0..31, N = 32 (Qm unused);
 *   rate matching (5.4.3): e_k = d_{k mod N}, k = 0..E-1 (E < N: the tail is cut).
 *
 * The placeholders 'x' and 'y' are resolved by the scrambler of TS 38.211 (x -> 1,
 * y -> the previous bit); this encoder has no scrambler and writes what the scrambler
 * would leave on unscrambled bits: 1 for 'x', a copy of the previous bit (c0) for 'y'.
 *
 * The code bits c_0..c_{m-1} (m = codeword_bits(): 1, 3 or 32) are the distinct coded
 * bits: c0 for K = 1, (c0, c1, c0^c1) for K = 2, d_0..d_31 for K >= 3. mother_map()
 * says which of them each d_j carries ('y' carries c0; 'x' carries none, -1).
 *
 * Message index: a message c_0..c_{K-1} is the integer whose binary digits they are,
 * c_0 the most significant: the value of the k bits packed MSB first.
 */
class nr_uci_small_code
{
public:
    /*!
     * k: 1..11 UCI bits, e: 1..65536 transmitted bits (E >= 1, any value; E < N
     * truncates), qm: modulation order 1 | 2 | 4 | 6 | 8 (placeholders of K = 1, 2).
     * Throws gpufec::error naming the allowed values.
     */
    nr_uci_small_code(int k, int e, int qm = 1);

    static constexpr int max_k = 11;
    static constexpr int max_e = 65536;

    int k() const { return d_k; }
    int e() const { return d_e; }
    int qm() const { return d_qm; }
    int n() const { return static_cast<int>(d_map.size()); } //!< mother length N
    int codeword_bits() const { return d_m; }                //!< m: 1, 3 or 32
    //! N entries: the code bit (0..m-1) that d_j carries, or -1 for an 'x' placeholder.
    const std::vector<int8_t>& mother_map() const { return d_map; }
    //! 2^K codewords: bit j of codebook()[u] is code bit c_j of message index u.
    const std::vector<uint32_t>& codebook() const { return d_codebook; }

    //! The N bits d of a message (info: k bits, one per byte; x -> 1, y -> c0).
    void mother_encode(const uint8_t* info, uint8_t* d) const;
    //! Whole chain: k info bits (one per byte, 0/1) -> E coded bits (one per byte).
    void encode(const uint8_t* info, uint8_t* out) const;
    std::vector<uint8_t> encode(const std::vector<uint8_t>& info) const;

    //! e.g. "nr uci small K=7 E=40 (Reed-Muller (32,7))".
    std::string describe() const;

private:
    int d_k, d_e, d_qm, d_m;
    std::vector<int8_t> d_map;
    std::vector<uint32_t> d_codebook;
};

/*!
 * Exhaustive maximum-likelihood decoding of nr_uci_small_code (no options yet).
 *
 * The reference arithmetic, which every backend follows bit for bit:
 *   1. L_j (int32, j < m) = sum of the int8 LLRs e_k with mother_map()[k mod N] == j
 *      ('y' positions add to c0, 'x' positions are ignored);
 *   2. metric(u) = sum_j (1 - 2 c_j(u)) L_j (int32) for every message index u < 2^K;
 *   3. decision: the u of largest metric, the smallest u among equal ones; its K bits
 *      written packed MSB first; frame_status {1, true};
 *   4. soft output (has_soft_output): for info bit i, (max metric over u with bit i = 0
 *      - max over u with bit i = 1) / 2, an exact integer stored as float (max-log
 *      a-posteriori LLR in the int8 input's units, L > 0 means bit 0).
 */
struct uci_small_decoder_options {
    using code_type = nr_uci_small_code;
    using product_type = batch_decoder;
    static constexpr const char* algorithm_name = "UCI small-block decoding";
};

//! CPU decoder (registered in lib/backends/registry.cc); use gpufec::make_decoder().
std::unique_ptr<batch_decoder>
make_uci_small_decoder_cpu(const nr_uci_small_code& code,
                           const uci_small_decoder_options&);

} // namespace gpufec

#endif
