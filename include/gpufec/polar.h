/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// 5G NR polar code definition and CPU encoder (layer codes/), TS 38.212 5.3.1 and 5.4.1.
#ifndef INCLUDED_GPUFEC_POLAR_H
#define INCLUDED_GPUFEC_POLAR_H

#include <gpufec/common.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {

//! CRCs of TS 38.212 5.1 that the polar chain can attach.
enum class polar_crc { none, crc6, crc11, crc24c };

//! "none" | "crc6" | "crc11" | "crc24c" (throws naming the allowed values).
polar_crc parse_polar_crc(const std::string& s);
std::string to_string(polar_crc c);
//! Number of parity bits L: 0, 6, 11, 24.
int crc_length(polar_crc c);
/*!
 * CRC parity bits of TS 38.212 5.1 (register starts at 0, no reflection, no final xor):
 * the remainder of a(D) D^L divided by the generator, highest power first.
 * in: n bits, one per byte (0/1); parity: L bytes (0/1). Generators:
 * CRC6 = D^6+D^5+1, CRC11 = D^11+D^10+D^9+D^5+1,
 * CRC24C = D^24+D^23+D^21+D^20+D^17+D^15+D^13+D^12+D^8+D^4+D^2+D+1.
 */
void nr_crc_parity(polar_crc c, const uint8_t* in, size_t n, uint8_t* parity);

//! TS 38.212 Table 5.3.1.2-1: Q_0..Q_1023, least reliable first (compiled-in table).
const uint16_t* nr_polar_reliability_sequence();
//! TS 38.212 Table 5.4.1.1-1: sub-block interleaver pattern P(0..31).
const uint8_t* nr_polar_subblock_pattern();

enum class polar_rate_matching { puncturing, shortening, repetition };
std::string to_string(polar_rate_matching m);

/*!
 * A 5G NR polar code with its rate matching, uplink (UCI) chain of TS 38.212 without
 * code-block segmentation:
 *   a (k bits) -> CRC attachment (5.1) -> c (K = k + L bits)
 *   -> u: c on the information set Q_I^N in increasing index order, frozen bits 0
 * (5.3.1.2)
 *   -> d = u G_N, G_N = [1 0; 1 1]^(x)n, no bit reversal (5.3.1.2)
 *   -> sub-block interleaving y_n = d_J(n) (5.4.1.1)
 *   -> bit selection: repetition (E >= N), puncturing (K/E <= 7/16) or shortening
 * (5.4.1.2)
 *   -> e (E bits) -> optional channel interleaving, I_BIL = 1 (5.4.1.3) -> f (E bits).
 *
 * Mother length N (5.3.1): n_max = 10, R_min = 1/8, n_min = 5. Input bit interleaving is
 * off (I_IL = 0, uplink). UCI with A >= 20 uses CRC11 and no parity-check bits; with
 * "crc6" and 12 <= k <= 19 the code carries the n_PC = 3 parity-check bits of
 * 6.3.1.3.1 (pc_positions(); "crc6" with other k attaches CRC6 alone). Two code blocks
 * for A >= 1013, or A >= 360 with E >= 1088 (segments()); the downlink chains come from
 * dci() and bch().
 *
 * The frozen set contains the pre-frozen (punctured / shortened) positions of 5.4.1.1.
 * Bits are one per byte (0/1) everywhere.
 */
class nr_polar_code
{
public:
    /*!
     * k: payload bits before the CRC, e: transmitted bits (1..8192), crc: "crc11" |
     * "crc24c" | "crc6" | "none". channel_interleave: apply 5.4.1.3 (I_BIL = 1) as the
     * uplink does; false gives e instead of f (e.g. for a decoder working on e).
     * Throws gpufec::error naming the allowed values.
     */
    nr_polar_code(int k,
                  int e,
                  const std::string& crc = "crc11",
                  bool channel_interleave = true);

    /*!
     * The downlink control chain of TS 38.212 7.3 (DCI): k payload bits (12..140; pad
     * shorter DCI formats with zeros as 7.3.1 says), CRC24C computed over 24 ones
     * followed by the payload (7.3.2) with its last 16 bits scrambled by `rnti`
     * (0..65535, most significant bit first), input bit interleaving (5.3.1.1, I_IL =
     * 1), n_max = 9, no channel interleaving (I_BIL = 0). Decoders report crc_ok only
     * for frames sent with this RNTI.
     */
    static nr_polar_code dci(int k, int e, int rnti);
    /*!
     * The broadcast chain of TS 38.212 7.1 (BCH), from the payload a' of 7.1.3 on:
     * CRC24C, input bit interleaving, n_max = 9, no channel interleaving; k = 32 (the
     * MIB chain's payload) and e = 864 unless given.
     */
    static nr_polar_code bch(int e = 864, int k = 32);

    int k() const { return d_k; }              //!< payload bits A
    int e() const { return d_e; }              //!< transmitted bits E
    int crc_bits() const { return d_crc_len; } //!< L
    //! polar information bits (payload + CRC; of one code block when segmented)
    int K() const { return d_segments == 2 ? d_segment->K() : d_k + d_crc_len; }
    int n() const { return d_n; }      //!< log2 N
    int N() const { return 1 << d_n; } //!< mother code length
    polar_crc crc() const { return d_crc; }
    bool channel_interleave() const { return d_channel_interleave; }
    polar_rate_matching rate_matching() const { return d_mode; }
    //! 10 (uplink) or 9 (DCI, BCH): the largest log2 N.
    int n_max() const { return d_n_max; }
    //! Input bit interleaving (5.3.1.1, I_IL = 1: DCI and BCH).
    bool input_interleave() const { return d_input_interleave; }
    //! The RNTI that scrambles the CRC (DCI), or -1.
    int rnti() const { return d_rnti; }
    /*!
     * The index in u of bit c_j, j < K, of the payload-and-CRC sequence c: with input
     * interleaving info_positions()[k] holds c'_k = c_Pi(k), so c_j sits at
     * info_positions()[Pi^-1(j)]; without it, info_positions()[j]. Decoders read the
     * payload and the CRC bits through it.
     */
    const std::vector<uint16_t>& bit_positions() const { return d_bit_positions; }
    /*!
     * The crc_bits() CRC bits the chain attaches to the k payload bits `a` (plain, or
     * DCI's: over 24 ones and a, the last 16 scrambled by the RNTI). A frame's CRC
     * holds when its decoded CRC bits equal these.
     */
    void crc_parity(const uint8_t* a, uint8_t* parity) const;
    /*!
     * Code blocks: 2 when the UCI payload needs code-block segmentation (5.2.1: k >=
     * 1013, or k >= 360 with e >= 1088): block r carries a'[r k', (r + 1) k') of a' =
     * (filler_bits() zeros, a), k' = (k + filler_bits()) / 2, with its own CRC11, in
     * floor(e / 2) coded bits, the blocks back to back (an odd e ends with a 0). Then
     * K(), N(), frozen(), info_positions(), bit_positions(), rate_matching() describe one
     * block (segment()), the decoders decode the blocks one after the other, and the
     * step-by-step functions (attach_crc .. interleave_channel, crc_parity) are the
     * block's: call them on segment().
     */
    int segments() const { return d_segments; }
    int filler_bits() const { return d_filler; }
    //! The code of one code block (the code itself when segments() == 1).
    const nr_polar_code& segment() const { return d_segments == 2 ? *d_segment : *this; }
    //! Pi(0..K-1) of 5.3.1.1 (Table 5.3.1.1-1, K_IL_max = 164), K = 1..164.
    static std::vector<uint16_t> input_interleaver_pattern(int K);

    //! N flags, 1 = frozen (includes the rate-matching pre-frozen positions; the
    //! parity-check positions are not frozen).
    const std::vector<uint8_t>& frozen() const { return d_frozen; }
    /*!
     * The parity-check positions Q_PC of u (5.3.1.2), increasing: none, or 3 for UCI
     * with CRC6 and 12 <= k <= 19 (n_pc_min_weight() of them at minimum-row-weight
     * positions). u_p = parity_check_bit(u, p): the XOR of the information bits u_m,
     * m < p, m = p (mod 5), which is what the standard's cyclic register holds.
     */
    const std::vector<uint16_t>& pc_positions() const { return d_pc; }
    int n_pc_min_weight() const { return d_n_pc_wm; }
    //! The value of parity-check bit p given the decisions u[0, p).
    uint8_t parity_check_bit(const uint8_t* u, int p) const;
    //! The K information positions of u, increasing.
    const std::vector<uint16_t>& info_positions() const { return d_info; }
    //! Sub-block interleaver J(0..N-1): y_n = d_J(n).
    const std::vector<uint16_t>& subblock_interleaver() const { return d_subblock; }
    /*!
     * For each of the E output bits (after channel interleaving when enabled), the index
     * of the mother codeword bit d it carries; the decoder adds the LLRs of repeated bits
     * and treats d bits never transmitted as punctured (LLR 0) or shortened (known 0).
     */
    const std::vector<uint16_t>& output_to_codeword() const { return d_out_map; }

    // The chain step by step (each output buffer must hold the stated number of bits).
    void attach_crc(const uint8_t* a, uint8_t* c) const;   //!< k -> K
    void polar_encode(const uint8_t* c, uint8_t* d) const; //!< K -> N (u placement + G_N)
    void rate_match(const uint8_t* d,
                    uint8_t* e) const; //!< N -> E (sub-block + bit selection)
    void interleave_channel(const uint8_t* e,
                            uint8_t* f) const; //!< E -> E (5.4.1.3, always applied)
    //! Whole chain: k payload bits -> E bits (f, or e when channel interleaving is off).
    void encode(const uint8_t* a, uint8_t* out) const;
    std::vector<uint8_t> encode(const std::vector<uint8_t>& a) const;

    //! In-place polar transform x = u G_N over n_bits = 2^m bits.
    static void transform(uint8_t* bits, int n_bits);
    //! Channel interleaver permutation of 5.4.1.3: f_k = e_{pattern[k]}, for any E >= 1.
    static std::vector<uint16_t> channel_interleaver_pattern(int e);

private:
    //! A downlink chain (DCI, BCH): n_max = 9 and input interleaving.
    struct chain {
        bool ones_prefix = false; //!< DCI: the CRC covers 24 ones first
        int rnti = -1;
        bool uplink_block = false; //!< a code block of a segmented UCI code
    };
    nr_polar_code(int k, int e, polar_crc crc, bool channel_interleave, chain c);
    void check_e() const;
    void require_one_block(const char* who) const;
    void construct();

    int d_k, d_e, d_crc_len, d_n;
    int d_n_max = 10;
    bool d_input_interleave = false, d_ones_prefix = false;
    int d_rnti = -1;
    std::vector<uint16_t> d_bit_positions;
    int d_segments = 1, d_filler = 0;
    int d_n_pc = 0, d_n_pc_wm = 0;
    std::vector<uint16_t> d_pc;
    std::shared_ptr<const nr_polar_code> d_segment;
    polar_crc d_crc;
    bool d_channel_interleave;
    polar_rate_matching d_mode;
    std::vector<uint8_t> d_frozen;
    std::vector<uint16_t> d_info, d_subblock, d_select, d_chan, d_out_map;
    //! The CRC register is linear in the payload: d_crc_zero (the all-zero payload's,
    //! with DCI's ones prefix) XOR d_crc_columns[j] for each payload bit j set.
    std::vector<uint32_t> d_crc_columns;
    uint32_t d_crc_zero = 0;
};

} // namespace gpufec

#endif
