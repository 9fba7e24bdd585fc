/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// GPUFEC_HD: marks an inline function that host code and CUDA device code both compile
// (the one definition; headers shared by cpu/ and cuda/ include this file).
#ifndef INCLUDED_GPUFEC_HOST_DEVICE_H
#define INCLUDED_GPUFEC_HOST_DEVICE_H

#ifdef __CUDACC__
#define GPUFEC_HD __host__ __device__ __forceinline__
#elif defined(__GNUC__)
// Always inlined, so a caller built for a wider instruction set (e.g. an FMA clone)
// compiles the body for that set instead of calling a baseline copy.
#define GPUFEC_HD inline __attribute__((always_inline))
#else
#define GPUFEC_HD inline
#endif

#endif
