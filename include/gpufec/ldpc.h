/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// 5G NR LDPC code definition, CPU encoder and rate matching (layer codes/).
#ifndef INCLUDED_GPUFEC_LDPC_H
#define INCLUDED_GPUFEC_LDPC_H

#include <gpufec/common.h>
#include <gpufec/ldpc_graph.h>
#include <vector>

namespace gpufec {

//! One nonzero Z x Z block of the lifted parity-check matrix: the identity cyclically
//! shifted right by `shift`, i.e. block row r has its 1 in block column (r + shift) mod
//! Z.
struct ldpc_circulant {
    int row;   //!< base-graph row (check-node block)
    int col;   //!< base-graph column (variable-node block)
    int shift; //!< V mod Z
};

//! One nonzero entry of a base-graph table: V_{row,col} for set index iLS = 0..7.
struct nr_ldpc_base_entry {
    int row;
    int col;
    int v[8];
};

/*!
 * A 5G NR LDPC code (TS 38.212 §5.3.2, rate matching §5.4.2.1 with N_cb = N, rv = 0).
 *
 * bg: base graph 1 (46 x 68, K_b = 22) or 2 (42 x 52, K_b = 10). z: one of the 51 lifting
 * sizes of Table 5.3.2-1. k: information bits, 0 = K_b*Z; fewer are padded with filler
 * bits (zeros at the END of the encoder input, never transmitted). The codeword
 * c_0..c_{cols*Z-1} has its first 2Z (systematic) bits punctured, leaving the N =
 * (cols-2)*Z bits d of §5.3.2 in the circular buffer. e: transmitted bits, 0 = N minus
 * the fillers; otherwise the first e non-filler bits read circularly from d_0 (wrapping
 * when e is larger).
 */
class nr_ldpc_code
{
public:
    nr_ldpc_code(int bg = 1, int z = 384, int k = 0, int e = 0);

    int bg() const { return d_bg; }
    int z() const { return d_z; }
    int set_index() const { return d_ils; } //!< iLS of Z
    int base_rows() const { return d_bg == 1 ? 46 : 42; }
    int base_cols() const { return d_bg == 1 ? 68 : 52; }
    int info_cols() const { return d_bg == 1 ? 22 : 10; } //!< K_b
    int k() const { return d_k; }                         //!< information bits
    int k_max() const { return info_cols() * d_z; }       //!< K = K_b*Z
    int fillers() const { return k_max() - d_k; }
    int codeword_bits() const
    {
        return base_cols() * d_z;
    } //!< full codeword, before puncturing
    int n() const { return (base_cols() - 2) * d_z; } //!< N: after puncturing 2Z bits
    int parity_checks() const { return base_rows() * d_z; }
    int e() const { return d_e; } //!< transmitted bits after rate matching

    //! The parity-check matrix as nonzero circulants, sorted by row then column.
    const std::vector<ldpc_circulant>& circulants() const { return d_circ; }

    /*! Systematic encoding. info: k bits (one per byte, 0/1); codeword: codeword_bits()
     *  bytes = [info, fillers as 0, parity] (the 2Z punctured bits included). */
    void encode_full(const uint8_t* info, uint8_t* codeword) const;
    //! Rate matching of a full codeword (from encode_full) into e() bits.
    void rate_match(const uint8_t* codeword, uint8_t* out) const;
    //! encode_full + rate_match: k info bits in, e() coded bits out.
    void encode(const uint8_t* info, uint8_t* out) const;

    /*! The decoder's view (ldpc_graph.h): Z = z(), one layer per base row in order,
     *  info = the first k columns, channel map = the rate matching (e() LLRs onto the
     *  circular buffer from column 2Z, skipping fillers, wrapping at N), known zeros =
     *  the fillers k..K-1, punctured = the first 2Z columns and unsent parity bits. */
    ldpc_graph graph() const;

    //! The 51 lifting sizes of Table 5.3.2-1, ascending.
    static const std::vector<int>& lifting_sizes();
    //! iLS of a lifting size; throws gpufec::error naming the allowed values.
    static int lifting_set_index(int z);
    //! The base-graph table (Table 5.3.2-2 for bg 1, 5.3.2-3 for bg 2), sorted by row,
    //! col.
    static std::vector<nr_ldpc_base_entry> base_graph(int bg);

private:
    int d_bg, d_z, d_ils, d_k, d_e;
    std::vector<ldpc_circulant> d_circ;
    // Encoder plan: where each row's circulants start in d_circ, and the shift of the
    // first parity column (K_b) left after summing the first 4 rows.
    std::vector<int> d_row_start;
    int d_core_shift;
};

} // namespace gpufec

#endif
