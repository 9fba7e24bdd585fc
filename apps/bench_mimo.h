/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-bench --code mimo: the MIMO detectors and the MIMO channel source.
#ifndef INCLUDED_GPUFEC_BENCH_MIMO_H
#define INCLUDED_GPUFEC_BENCH_MIMO_H

#include "bench_common.h"

#include <string>

namespace gpufec_bench {

struct mimo_options : run_options {
    int nt = 4, nr = 4, coherence = 1;
    std::string modulation = "16qam";
    std::string algorithms = "mtt,lmmse,kbest"; //!< comma list
    double esn0_db = 20.0;
    std::string cuda_backend; //!< "cuda:N" for the CUDA rows, "" for the CPU only
    std::string gpu;          //!< its description
    stamps stamp;
};

//! Runs the MIMO bench, prints its table (and writes --json); returns the exit status
//! (1 when a detector's warm-up BER is implausible).
int run_mimo_bench(const mimo_options& opt);

} // namespace gpufec_bench

#endif
