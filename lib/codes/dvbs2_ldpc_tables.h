/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The DVB-S2 LDPC tables of ETSI EN 302 307-1 (data only; dvbs2_ldpc_tables.cc cites
// the tables and their provenance). Private to lib/codes.
#ifndef INCLUDED_GPUFEC_CODES_DVBS2_LDPC_TABLES_H
#define INCLUDED_GPUFEC_CODES_DVBS2_LDPC_TABLES_H

#include <cstddef>
#include <cstdint>

namespace gpufec {
namespace dvbs2 {

//! One code: its parameters and the rows of its accumulator address table.
struct ldpc_table {
    const char* frame; //!< "normal" | "short"
    const char* rate;  //!< nominal rate, e.g. "1/2"
    const char* table; //!< the standard's table, e.g. "B.4"
    int n;             //!< n_ldpc
    int k;             //!< k_ldpc (Tables 5a/5b)
    int q;             //!< q (Tables 7a/7b), (n - k) / 360
    int long_rows;     //!< the first long_rows rows have long_degree addresses
    int long_degree;
    int short_rows;            //!< the other rows have 3 addresses
    const uint16_t* addresses; //!< row after row
};

extern const ldpc_table ldpc_tables[];
extern const size_t ldpc_table_count;

} // namespace dvbs2
} // namespace gpufec

#endif
