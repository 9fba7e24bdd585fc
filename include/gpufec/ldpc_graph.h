/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The one description of an LDPC code that a layered decoder needs (layer codes/),
// exported by every LDPC code class (nr_ldpc_code::graph(), ldpc_alist_code::graph()):
// plain data, no GNU Radio and no CUDA, so a GPU kernel can upload it as it is.
#ifndef INCLUDED_GPUFEC_LDPC_GRAPH_H
#define INCLUDED_GPUFEC_LDPC_GRAPH_H

#include <gpufec/common.h>
#include <string>
#include <vector>

namespace gpufec {

/*!
 * A binary LDPC code as a layered decoder sees it.
 *
 * Parity-check matrix: ONE representation, quasi-cyclic. A base matrix of base_rows() x
 * base_columns entries, each edge a Z x Z circulant: base row b, edge (col, shift) puts
 * the check row t = 0..Z-1 of b on the codeword position col * Z + (t + shift) mod Z.
 * A general code (alist) is the case Z = 1: every base row is one check row, every
 * shift 0, and an edge's col is the codeword position itself. Why not explicit row
 * lists for everything: expanding an NR code into rows would throw away what makes
 * it fast (a circulant is two contiguous runs of Z positions, 1/Z of the index
 * memory), while the QC form costs a general code only an all-zero shift array. So a
 * decoder reads one format: a layer's check rows are (base row in the layer) x Z, all
 * independent (the CPU decoder takes the Z rows of one base row at a time when Z > 1,
 * all the rows of a layer at once when Z = 1; a kernel may take a whole layer).
 *
 * Layers: base rows are stored in processing order, layer by layer; layer l holds base
 * rows layer_start[l] .. layer_start[l + 1] - 1, which touch disjoint codeword
 * positions (no two of its base rows name the same column), so the rows of a layer can
 * be updated side by side in any order with the same result. NR: one layer per base
 * row, in table order. Alist codes: the first-fit layers of ldpc_alist_code::layers().
 * Within a base row, the edges are in increasing column order (the order of the
 * check-node minimum search, which decides ties).
 *
 * Channel mapping: a frame is e() received LLRs; LLR i adds to codeword position
 * channel_map[i] (several may add to one position: NR repetition). Positions in
 * known_zeros are bits known to be 0 (NR fillers): no LLR reaches them and a decoder
 * pins them at its largest "bit 0" value. Positions in `punctured` are the others that
 * no LLR reaches (NR: the 2Z systematic bits, and parity bits past the rate-matching
 * window): they start at LLR 0. Alist codes: the identity map, no known zeros, none
 * punctured.
 *
 * Output: the k() bits at info_positions, in that order (NR: the first K columns minus
 * the fillers; alist codes: ldpc_alist_code::info_positions(), gr-fec compatible).
 */
struct ldpc_graph {
    int z = 1;            //!< lifting size Z (1: a general code)
    int base_columns = 0; //!< columns of the base matrix; codeword n() = base_columns * Z

    std::vector<int> layer_start; //!< [layers() + 1]: first base row of each layer
    std::vector<int> row_start;   //!< [base_rows() + 1]: first edge of each base row
    std::vector<int> edge_col;    //!< [edges()]: base column, increasing within a row
    std::vector<int> edge_shift;  //!< [edges()]: circulant shift, 0..Z-1

    std::vector<int> info_positions; //!< [k()]: codeword positions of the output bits
    std::vector<int> channel_map;    //!< [e()]: codeword position of each received LLR
    std::vector<int> known_zeros;    //!< increasing: bits known to be 0
    std::vector<int> punctured;      //!< increasing: no LLR, not known: start at 0

    //! Names the code in decoder names and messages, e.g. "ldpc BG1 Z=384 k=8448
    //! e=25344".
    std::string description;

    int n() const { return base_columns * z; } //!< codeword bits
    int k() const { return static_cast<int>(info_positions.size()); }
    int e() const { return static_cast<int>(channel_map.size()); }
    int layers() const { return static_cast<int>(layer_start.size()) - 1; }
    int base_rows() const { return static_cast<int>(row_start.size()) - 1; }
    int edges() const { return static_cast<int>(edge_col.size()); }
    int check_rows() const { return base_rows() * z; }

    //! Fills `punctured` from channel_map and known_zeros, then validate().
    void finish();
    //! Throws gpufec::error naming the first inconsistency (sizes, ranges, a column
    //! named twice in a row or in a layer, an LLR mapped onto a known zero, ...).
    void validate() const;
    //! True when every check row sums to 0 over `codeword` (n() bytes, 0/1).
    bool is_codeword(const uint8_t* codeword) const;
};

} // namespace gpufec

#endif
