/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// LTE turbo code definition (TS 36.212 5.1.3), QPP interleaver, CRC24B and the CPU
// encoder (layer codes/).
#ifndef INCLUDED_GPUFEC_TURBO_H
#define INCLUDED_GPUFEC_TURBO_H

#include <gpufec/common.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {

class lte_turbo_rate_matching;

/*!
 * The LTE turbo code of TS 36.212 5.1.3.2: a rate-1/3 PCCC of two identical 8-state
 * RSC encoders with transfer function [1, g1/g0], g0 = 1 + D^2 + D^3 (13 octal,
 * feedback), g1 = 1 + D + D^3 (15 octal), both starting in state 0 and each
 * terminated by 3 tail steps whose input is the register feedback (12 tail bits in
 * all). The second encoder reads the input through the QPP interleaver
 * c'_i = c_{Pi(i)}, Pi(i) = (f1*i + f2*i^2) mod K, with (f1, f2) from TS 36.212
 * Table 5.1.3-3.
 *
 * `k` is the code block size K: the number of bits entering the turbo encoder, one of
 * the 188 sizes 40..512 step 8, 528..1024 step 16, 1056..2048 step 32, 2112..6144
 * step 64. With `crc24b` set, K COUNTS the 24 CRC bits: the payload is K - 24 bits
 * and the encoder appends their CRC24B (TS 36.212 5.1.1, as for a segmented
 * transport block's code blocks), so the decoder can stop early on a CRC match. No
 * filler bits: every K is a valid block size as it is.
 *
 * Coded stream (what encode() writes and decoders read): the three TS 36.212
 * streams d^(0), d^(1), d^(2) of K + 4 bits each, one after the other:
 *   [d0_0 .. d0_{K+3}, d1_0 .. d1_{K+3}, d2_0 .. d2_{K+3}], 3K + 12 bits.
 * This is the layout the LTE rate matcher (5.1.4.1, one sub-block interleaver per
 * stream) consumes directly. With x = systematic, z = parity 1, z' = parity 2 and
 * x'/z' tail bits from encoder 2:
 *   d0 = x_0..x_{K-1}, x_K,  z_{K+1}, x'_K,  z'_{K+1}
 *   d1 = z_0..z_{K-1}, z_K,  x_{K+2}, z'_K,  x'_{K+2}
 *   d2 = z'_0..z'_{K-1}, x_{K+1}, z_{K+2}, x'_{K+1}, z'_{K+2}
 *
 * RSC state convention (for decoders): state = (r1 << 2) | (r2 << 1) | r3 with r1 the
 * newest register bit; feedback a = c ^ r2 ^ r3, parity z = a ^ r1 ^ r3, next state
 * = (a << 2) | (r1 << 1) | r2.
 */
class lte_turbo_code
{
public:
    static constexpr int min_k = 40;
    static constexpr int max_k = 6144;
    static constexpr int num_block_sizes = 188;
    static constexpr int crc_bits = 24;
    static constexpr int tail_bits = 12;
    //! "40..512 step 8, 528..1024 step 16, 1056..2048 step 32, 2112..6144 step 64"
    static const char* allowed_k_text();
    static bool is_valid_k(int k);
    //! The 188 block sizes of Table 5.1.3-3 in increasing order.
    static std::vector<int> block_sizes();
    //! Table 5.1.3-3 row for block size k: {f1, f2}; throws for an invalid k.
    static void qpp_parameters(int k, int& f1, int& f2);

    /*!
     * e > 0: the code block is rate matched to e bits with redundancy version rv
     * (0..3) and soft buffer n_cb (0: K_w) as TS 36.212 5.1.4.1 says
     * (lte_turbo_rate_matching): encode() writes e bits and decoders take e LLRs,
     * which they de-rate-match (repeated bits' LLRs added and saturated at +/-127,
     * unsent bits 0). e = 0: the d0 | d1 | d2 streams, 3K + 12 bits.
     * filler: the F filler bits of 5.1.2 at the start of the block (the first code
     * block of a segmented transport block): zeros the encoder puts in front of the
     * payload, which is then K - F (- 24) bits; never sent when rate matched (d0, d1
     * <NULL>), and known zeros to the decoders.
     */
    explicit lte_turbo_code(int k = 6144,
                            bool crc24b = false,
                            int e = 0,
                            int rv = 0,
                            int n_cb = 0,
                            int filler = 0);

    int k() const { return d_k; }            //!< code block size K (includes the CRC)
    bool crc24b() const { return d_crc24b; } //!< CRC24B attached by the encoder
    int f1() const { return d_f1; }
    int f2() const { return d_f2; }
    //! Payload bits per block fed to encode(): K - F, less 24 with CRC24B.
    int info_bits() const { return d_k - d_filler - (d_crc24b ? crc_bits : 0); }
    //! Filler bits F at the start of the block (5.1.2).
    int filler_bits() const { return d_filler; }
    int stream_bits() const { return d_k + 4; } //!< length of each d^(i)
    //! Bits per coded block: e when rate matched, else 3K + 12 (the three streams).
    size_t coded_bits() const;
    //! The three streams' bits, 3K + 12.
    size_t stream_total() const { return 3 * static_cast<size_t>(d_k) + tail_bits; }
    //! The rate matching, or null without it (e = 0).
    const lte_turbo_rate_matching* rate_matching() const { return d_rm.get(); }
    double rate() const { return double(info_bits()) / double(coded_bits()); }
    //! Pi(i) for i = 0..K-1: the second encoder's input i is c_{Pi(i)}.
    const std::vector<uint32_t>& interleaver() const { return d_pi; }

    //! One step of the constituent RSC: returns the parity bit and updates `state`.
    static int rsc_step(uint32_t& state, int bit);

    //! e.g. "LTE turbo K=6144 (f1=263, f2=480) r=1/3 +CRC24B"
    std::string describe() const;

private:
    int d_k;
    bool d_crc24b;
    int d_f1 = 0;
    int d_f2 = 0;
    std::vector<uint32_t> d_pi;
    std::shared_ptr<const lte_turbo_rate_matching> d_rm;
    int d_filler = 0;
};

/*!
 * LTE turbo rate matching, TS 36.212 5.1.4.1: each stream d^(i) (D = K + 4 bits) goes
 * through the sub-block interleaver of 5.1.4.1.1 (32 columns, R = ceil(D / 32) rows,
 * R 32 - D dummy bits in front, the inter-column permutation of Table 5.1.4-1; d^(2)
 * by pi(k) = (P(k / R) + 32 (k mod R) + 1) mod 32 R); bit collection gives the circular
 * buffer w = [v^(0), v^(1)_0, v^(2)_0, v^(1)_1, ...] of K_w = 96 R bits (5.1.4.1.2), of
 * which the first N_cb are used; E bits are read from k0 = R (2 ceil(N_cb / (8 R)) rv
 * + 2) on, skipping dummy and filler bits and wrapping around.
 *
 * The whole chain is one map: output bit j carries bit output_to_stream()[j] of the
 * encoder's d0 | d1 | d2 stream (lte_turbo_encode's layout). A receiver adds the LLRs
 * of repeated bits and leaves those never sent at 0 (derate_match()).
 */
class lte_turbo_rate_matching
{
public:
    /*!
     * k: code block size K (an LTE turbo size); e: output bits E >= 1; rv: redundancy
     * version 0..3; n_cb: soft-buffer size N_cb (0: K_w, the uplink's; else at most
     * K_w, the downlink's min(floor(N_IR / C), K_w)); filler: the filler bits F at
     * the start of the block (5.1.2: the first code block of a segmented transport
     * block), which d^(0) and d^(1) carry as dummy bits. Throws naming the allowed
     * values.
     */
    lte_turbo_rate_matching(int k, int e, int rv = 0, int n_cb = 0, int filler = 0);

    int k() const { return d_k; }
    int e() const { return static_cast<int>(d_map.size()); }
    int rv() const { return d_rv; }
    int rows() const { return d_rows; }     //!< R
    int k_w() const { return 96 * d_rows; } //!< circular buffer K_w = 3 K_Pi
    int n_cb() const { return d_n_cb; }     //!< soft buffer N_cb used
    int k0() const { return d_k0; }         //!< first buffer position read
    //! For each of the E output bits, its index in the d0 | d1 | d2 stream (3 (K + 4)).
    const std::vector<uint32_t>& output_to_stream() const { return d_map; }
    //! The buffer w as stream indices, -1 for dummy and filler bits (K_w entries).
    const std::vector<int32_t>& circular_buffer() const { return d_w; }

    //! E bits e_j = stream[output_to_stream()[j]] from the 3 (K + 4) encoder bits.
    void rate_match(const uint8_t* stream, uint8_t* e) const;
    //! Adds the E received LLRs into the 3 (K + 4) stream LLRs (not cleared first, so
    //! transmissions of other redundancy versions combine); positions never sent keep
    //! what they had.
    void derate_match(const float* e, float* stream) const;

    //! TS 36.212 Table 5.1.4-1: the inter-column permutation P(0..31).
    static const uint8_t* column_permutation();

private:
    int d_k, d_rv, d_rows, d_n_cb, d_k0;
    std::vector<int32_t> d_w;
    std::vector<uint32_t> d_map;
};

/*!
 * CRC24B of TS 36.212 5.1.1: g(D) = D^24 + D^23 + D^6 + D^5 + D + 1, register
 * starting at 0, bits fed first bit first, no final inversion. Returns p_0..p_23 with
 * p_0 (the coefficient of D^23) in bit 23; appending them first-first gives a block
 * whose CRC is 0.
 */
uint32_t crc24b(const uint8_t* bits, size_t n);

/*!
 * CRC24A of TS 36.212 5.1.1 (the transport block's CRC): g(D) = D^24 + D^23 + D^18 +
 * D^17 + D^14 + D^11 + D^10 + D^7 + D^6 + D^5 + D^4 + D^3 + D + 1, as crc24b().
 */
uint32_t crc24a(const uint8_t* bits, size_t n);

/*!
 * An LTE transport block on a turbo-coded channel (DL-SCH, UL-SCH, PCH, MCH), TS 36.212
 * 5.1.1 - 5.1.5: the tbs payload bits get CRC24A (B = tbs + 24 bits); code-block
 * segmentation (5.1.2) splits them into C blocks of the sizes K+ / K- (CRC24B on each
 * when C > 1, F filler bits at the front of block 0); each block is turbo encoded and
 * rate matched (5.1.4.1) to E_r bits, E_r from G (the bits the transport block gets),
 * the layers N_L and the modulation order Q_m (5.1.4.1.2); the blocks are concatenated
 * (5.1.5) into G bits.
 *
 * A receiver decodes block r's E_r soft values with block(r) (its K, CRC24B, E_r, rv,
 * soft buffer and filler bits), e.g. with make_decoder(), and assemble() joins the
 * blocks' payloads and checks CRC24A.
 */
class lte_transport_block
{
public:
    /*!
     * tbs: transport block size (bits, >= 16); g: total coded bits G, a multiple of
     * layers * qm; rv: redundancy version 0..3; layers: N_L (1, 2 or 4); qm: 2, 4, 6 or
     * 8; n_ir: soft buffer N_IR of the whole block (0: every block uses K_w, as the
     * uplink; else N_cb = min(floor(N_IR / C), K_w), the downlink's).
     */
    lte_transport_block(
        int tbs, int g, int rv = 0, int layers = 1, int qm = 2, int n_ir = 0);

    int tbs() const { return d_tbs; }
    int g() const { return d_g; }
    int blocks() const { return static_cast<int>(d_codes.size()); } //!< C
    int k_plus() const { return d_k_plus; }
    int k_minus() const { return d_k_minus; }      //!< 0 when C = 1
    int blocks_minus() const { return d_c_minus; } //!< C-: the first C- blocks are K-
    int filler_bits() const { return d_filler; }   //!< F
    //! Code block r's code.
    const lte_turbo_code& block(int r) const { return d_codes.at(r); }
    //! Where block r's E_r bits start in the G bits.
    int offset(int r) const { return d_offsets.at(r); }

    //! tbs payload bits (0/1 bytes) -> G coded bits.
    void encode(const uint8_t* a, uint8_t* out) const;
    /*!
     * Joins the decoded payloads of the C blocks (block(r).info_bits() bits each, 0/1
     * bytes) into the tbs payload bits `a`; returns whether CRC24A holds.
     */
    bool assemble(const std::vector<std::vector<uint8_t>>& block_payloads,
                  uint8_t* a) const;

private:
    int d_tbs, d_g, d_k_plus = 0, d_k_minus = 0, d_c_minus = 0, d_filler = 0;
    std::vector<lte_turbo_code> d_codes;
    std::vector<int> d_offsets;
};

/*!
 * Encodes one code block. `in` holds code.info_bits() bits (one per byte, LSB used);
 * with CRC24B the encoder appends the 24 parity bits before turbo encoding. `out`
 * receives code.coded_bits() bits: the d0 | d1 | d2 layout described above, or with
 * rate matching its e bits.
 */
void lte_turbo_encode(const lte_turbo_code& code, const uint8_t* in, uint8_t* out);

} // namespace gpufec

#endif
