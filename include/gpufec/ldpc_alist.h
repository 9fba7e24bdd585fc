/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Binary LDPC codes given by a parity-check matrix in MacKay's alist format (802.11n,
// DVB-S2, CCSDS, gr-fec's files), their systematic encoder and their graph for the
// layered min-sum decoders (layer codes/; the decoder's maker from cpu/).
#ifndef INCLUDED_GPUFEC_LDPC_ALIST_H
#define INCLUDED_GPUFEC_LDPC_ALIST_H

#include <gpufec/batch_decoder.h>
#include <gpufec/ldpc_decoding.h>
#include <gpufec/ldpc_graph.h>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {

/*!
 * A binary LDPC code given by its parity-check matrix H (m x n). k = n - rank(H), so
 * rank-deficient matrices (CCSDS C2) work.
 *
 * Encoding is systematic: the k information bits sit at info_positions() (increasing),
 * the n - k parity bits at the other positions. Two encoders, chosen at construction:
 *  - substitution, O(nnz) per codeword and no elimination: when the rows can be ordered
 *    so that each row's largest (or each row's smallest) column is new, i.e. the parity
 *    part is triangular in the given column order (IRA / dual-diagonal codes such as
 *    DVB-S2). Info positions = every column that is not such a pivot.
 *  - Gauss-Jordan elimination over GF(2) on bit-packed rows, otherwise. The parity bits
 *    take the last rank(H) columns when those are independent (802.11n, NR: info bits
 *    first), else the first rank(H) columns when those are (gr-fec's
 *    ldpc_H_matrix files, whose codeword is [p1 p2 s]: info bits last), else the columns
 *    found greedily from the last one down. Each parity bit is then a dense GF(2) sum
 *    of info bits (rank * n / 64 word operations per codeword). Limited to m * n <=
 *    max_elimination_bits() (about n = 22000 at rate 1/2: ~2-3 s to construct);
 *    larger non-triangular matrices throw.
 *
 * Decoding schedule (layers()): rows are grouped into layers by first fit in row order
 * (row r joins the first layer holding no column of r); layers run in order. Rows of one
 * layer share no column, so their order inside a layer does not change any result.
 */
class ldpc_alist_code
{
public:
    //! Reads a MacKay alist file: "n m", the two largest weights, the n column weights,
    //! the m row weights, the n column lists, the m row lists (1-based, zero padding
    //! optional). Both halves must describe the same H. Throws gpufec::error naming the
    //! file and line on malformed input.
    static ldpc_alist_code from_alist(const std::string& path);
    //! Same, from the text of an alist file; `source` names it in messages.
    static ldpc_alist_code from_alist_text(const std::string& text,
                                           const std::string& source = "alist text");
    //! From the column indices (0-based) of each row of H, n columns.
    static ldpc_alist_code from_check_rows(int n,
                                           std::vector<std::vector<int>> rows,
                                           const std::string& source = "check rows");

    int n() const;        //!< code bits (columns of H)
    int m() const;        //!< parity checks (rows of H)
    int k() const;        //!< information bits, n - rank(H)
    int rank() const;     //!< rank of H over GF(2)
    size_t edges() const; //!< ones in H
    //! Column indices (0-based, increasing) of each row of H.
    const std::vector<std::vector<int>>& check_rows() const;
    //! The k codeword positions holding the information bits, increasing.
    const std::vector<int>& info_positions() const;
    //! Rows of each decoding layer (see the class comment), in processing order.
    const std::vector<std::vector<int>>& layers() const;
    /*! The decoder's view (ldpc_graph.h): Z = 1, base rows = the rows of H layer by
     *  layer (layers()), info = info_positions(), the identity channel map (a frame is
     *  n() LLRs), no known zeros, nothing punctured. */
    ldpc_graph graph() const;
    //! True when the encoder is the O(nnz) substitution (triangular parity part).
    bool triangular_encoder() const;

    /*! info: k bits (one per byte, 0/1); codeword: n bytes, info bits at
     *  info_positions(), H c = 0. */
    void encode(const uint8_t* info, uint8_t* codeword) const;
    //! Syndrome check: true when every row of H sums to 0 over `codeword` (n bytes).
    bool is_codeword(const uint8_t* codeword) const;

    //! The matrix as alist text (lists zero-padded, as MacKay writes them).
    std::string to_alist_text() const;
    //! e.g. "LDPC alist n=648 k=324 (file.alist)"; m is named when H is rank-deficient.
    std::string describe() const;

    //! The size limit (m * n bits) of Gauss-Jordan elimination.
    static constexpr double max_elimination_bits() { return 2.5e8; }

    struct impl;

private:
    explicit ldpc_alist_code(std::shared_ptr<const impl> p) : d(std::move(p)) {}
    std::shared_ptr<const impl> d; // immutable, so copies share it
};

/*!
 * The CPU layered min-sum decoder (ldpc_decoding.h) of code.graph(): a frame is code.n()
 * int8 LLRs (no puncturing or rate matching); the output is the code.k() bits at
 * code.info_positions(), packed MSB first. Layers: code.layers() in order.
 */
std::unique_ptr<batch_decoder> make_ldpc_decoder_cpu(const ldpc_alist_code& code,
                                                     const ldpc_decoder_options& options);

} // namespace gpufec

#endif
