/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-bench --code turbo|ldpc|ldpc-alist|polar: CPU throughput of the block-code
// decoders (one thread and all threads), side by side with gr-fec's polar SC/SCL and
// alist LDPC decoders when built with GNU Radio.
#ifndef INCLUDED_GPUFEC_BENCH_BLOCK_CODES_H
#define INCLUDED_GPUFEC_BENCH_BLOCK_CODES_H

#include "bench_common.h"

#include <string>

namespace gpufec_bench {

//! The shared options (run_options) are set from the Viterbi bench's; ebn0_db is used
//! when ebn0_given, else the code's default.
struct block_options : run_options {
    std::string code; //!< "turbo" | "ldpc" | "ldpc-alist" | "dvbs2" | "polar" | "uci"
    bool ebn0_given = false;
    // Codes.
    int turbo_k = 6144;
    bool crc24b = false;
    int ldpc_bg = 1, ldpc_z = 384, ldpc_k = 0, ldpc_e = 0;
    std::string alist;
    std::string dvbs2_frame = "normal", dvbs2_rate = "1/2";
    int polar_k = 512, polar_e = 1024;
    std::string polar_crc = "crc11";
    int uci_k = 11, uci_e = 64, uci_qm = 1;
    //! dci-search: DCI payload bits, aggregation levels, number of monitored RNTIs.
    int dci_k = 40;
    std::string dci_levels = "4,8,16";
    int dci_rntis = 4;
    std::string dci_batches = "131072,44,1"; //!< kernel-only batch sizes (candidates)
    //! "cuda:N" to add the rows of the code's CUDA decoders, "" for the CPU only.
    std::string cuda_backend;
    //! The AWGN source's rows for codes whose source runs on the GPU (--source).
    bool source = true;
    //! The CPU decoders' rows (end to end, decode-only, gr-fec): off with --backend
    //! cuda, as for the convolutional code, so that a GPU run spends no time on them.
    bool cpu_rows = true;
    // Decoders: comma-separated lists, "" = the code's default set of rows.
    std::string algorithm;
    std::string arithmetic;
    int iterations = 0; //!< 0 = the decoder's default
    int list_size = 8;
    int sub_blocks = 1;
    bool early_termination = true;
    //! Turbo: "synchronised" or "loose" (the CUDA rows; the CPU runs synchronised).
    std::string turbo_schedule = "synchronised";
    int turbo_e = 0, turbo_rv = 0; //!< turbo rate matching (e = 0: none)
    stamps stamp;
};

/*!
 * Runs the block-code bench, prints the table (and writes --json). Returns the process
 * exit status: 0, or 1 when a decoder's warm-up check failed.
 */
int run_block_code_bench(const block_options& opt);
//! --code dci-search: the PDCCH blind search (CPU through the engine; with
//! opt.cuda_backend, the GPU end to end and kernel-only). Prints its table.
int run_dci_search_bench(const block_options& opt);

} // namespace gpufec_bench

#endif
