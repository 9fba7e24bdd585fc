/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The DVB-S2 LDPC codes (ETSI EN 302 307-1 clause 5.3.2, Annexes B and C): code
// definition, accumulator encoder and the graph for the layered decoders (layer
// codes/; decode with make_ldpc_decoder_cpu(code.graph(), options)).
#ifndef INCLUDED_GPUFEC_DVBS2_LDPC_H
#define INCLUDED_GPUFEC_DVBS2_LDPC_H

#include <gpufec/common.h>
#include <gpufec/ldpc_graph.h>
#include <string>
#include <vector>

namespace gpufec {

namespace dvbs2 {
struct ldpc_table;
}

/*!
 * One LDPC code of DVB-S2 (ETSI EN 302 307-1 V1.4.1 clause 5.3.2), the inner code of
 * a FECFRAME: frame "normal" (n = 64800; rates 1/4 1/3 2/5 1/2 3/5 2/3 3/4 4/5 5/6
 * 8/9 9/10, address Tables B.1-B.11) or "short" (n = 16200; the same rates but 9/10,
 * Tables C.1-C.10). Short frames' k (Table 5b) is not always the nominal rate: 1/4 ->
 * k = 3240 (1/5), 1/2 -> 7200 (4/9), 3/4 -> 11880 (11/15), 4/5 -> 12600 (7/9), 5/6
 * -> 13320 (37/45).
 *
 * Codeword (systematic, as the standard): c = (i_0 .. i_{k-1}, p_0 .. p_{n-k-1}). The
 * k information bits form k/360 groups of 360; row j of the address table lists the
 * parity accumulators x of bit 360 j, and bit 360 j + m adds to accumulator (x + m q)
 * mod (n - k), q = (n - k) / 360 (Tables 7a/7b). Then p_r ^= p_{r-1} for r = 1 ..
 * n-k-1. So check row r of H holds the information bits that reach accumulator r and
 * the parity bits p_{r-1} (r > 0) and p_r: n - k rows, full rank.
 *
 * The 360-periodic structure: the rows r = i + q d (d = 0..359) of "block row" i (i =
 * 0..q-1) are a quasi-cyclic block row (an information group meets it in a cyclically
 * shifted identity: bit m reaches d = (floor(x / q) + m) mod 360). When two addresses x,
 * x' of one table row have the same residue mod q, that block is a weight-2 circulant:
 * every bit of the group reaches two rows of the block row, d and d + delta with delta
 * = (floor(x'/q) - floor(x/q)) mod 360. Every DVB-S2 table has such rows (normal 1/2:
 * 8 of its 90 block rows), so a block row is not always one layer of a layered decoder
 * (rows of a layer must not share a column). graph() splits each such block row into c
 * strided sub-layers, rows i + q (s + c t) for s = 0..c-1, t = 0..360/c-1, with c the
 * smallest divisor of 360 that divides none of the block row's deltas (then d and d +
 * delta always differ mod c); a block row with no weight-2 circulant is one layer (c =
 * 1). layer_strides() gives c per block row.
 */
class dvbs2_ldpc_code
{
public:
    //! frame: "normal" | "short"; rate: one of rates(frame). Throws gpufec::error
    //! naming the allowed values.
    explicit dvbs2_ldpc_code(const std::string& frame = "normal",
                             const std::string& rate = "1/2");

    const std::string& frame() const { return d_frame; } //!< "normal" | "short"
    const std::string& rate() const { return d_rate; }   //!< nominal rate, e.g. "1/2"
    std::string table_name() const;     //!< the standard's address table, e.g. "B.4"
    int n() const;                      //!< n_ldpc: codeword bits
    int k() const;                      //!< k_ldpc: information bits (Tables 5a/5b)
    int m() const { return n() - k(); } //!< parity bits = check rows
    int q() const;                      //!< Tables 7a/7b: (n - k) / 360
    //! The standard's address table: one row per group of 360 information bits.
    std::vector<std::vector<int>> address_table() const;

    //! info: k bits (one per byte, LSB used); codeword: n bytes, info then parity.
    //! O(edges) accumulator encoder of clause 5.3.2.
    void encode(const uint8_t* info, uint8_t* codeword) const;
    //! True when every check row sums to 0 over `codeword` (n bytes, LSB used).
    bool is_codeword(const uint8_t* codeword) const;

    //! Column indices (0-based, increasing) of each row r = 0..m-1 of H.
    std::vector<std::vector<int>> check_rows() const;
    //! H as MacKay alist text (ldpc_alist_code::from_alist_text reads it back).
    std::string to_alist_text() const;

    //! Sub-layers c of block row i = 0..q-1 (class comment): graph() has layer
    //! (i, s) for s = 0..c-1, block rows in order.
    const std::vector<int>& layer_strides() const { return d_strides; }

    /*! The decoder's view (ldpc_graph.h): Z = 1, base rows = the check rows layer by
     *  layer (block row i = 0..q-1, then its sub-layers s = 0..c-1, rows i + q (s + c
     *  t) in increasing t; edges in increasing column order), info positions 0..k-1,
     *  the identity channel map (a frame is n LLRs), no known zeros, none punctured. */
    ldpc_graph graph() const;

    //! e.g. "DVB-S2 LDPC normal r=1/2 n=64800 k=32400".
    std::string describe() const;

    //! "normal", "short".
    static std::vector<std::string> frames();
    //! The rates of a frame, in the standard's order; throws for an unknown frame.
    static std::vector<std::string> rates(const std::string& frame);

private:
    const dvbs2::ldpc_table* d_table;
    std::string d_frame, d_rate;
    std::vector<int> d_strides;

    // Calls f(row, column) for every information edge of H, group by group: within a
    // row, columns arrive in increasing order.
    template <typename F>
    void for_each_info_edge(F&& f) const;
};

} // namespace gpufec

#endif
