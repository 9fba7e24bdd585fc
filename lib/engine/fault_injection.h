/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal, test-only: makes a chosen launch of the CUDA slot backend fail with a real
// CUDA error, so tests and flowgraphs can check that a GPU fault is reported (the
// slot's frames are lost with that error, later batches run) and never hangs.
#ifndef INCLUDED_GPUFEC_FAULT_INJECTION_H
#define INCLUDED_GPUFEC_FAULT_INJECTION_H

#include <cstdint>

namespace gpufec {
namespace testing {

enum class cuda_fault {
    none,
    copy,  //!< a host-to-device copy the runtime refuses (invalid direction)
    kernel //!< a kernel launch the runtime refuses (invalid configuration)
};

/*!
 * The `launch`-th CUDA slot launch from now (1 = the next), counted over every engine
 * of the process, fails with `kind` instead of running its stage; kind none disarms.
 * GPUFEC_TEST_CUDA_FAULT=copy:N or kernel:N in the environment arms the same at the
 * first launch of the process, so a program (a GNU Radio flowgraph) is tested as is.
 */
void arm_cuda_fault(cuda_fault kind, uint64_t launch);

} // namespace testing
} // namespace gpufec

#endif
