/*
 * Copyright 2026 Free Software Foundation, Inc.
 *
 * This file is part of GNU Radio
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, gpufec, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_gpufec_dvbs2_ldpc_code = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_dvbs2_ldpc_code_0 = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_dvbs2_ldpc_code_1 = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_make = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_frame = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_nominal_rate = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_n = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_k = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_q = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_to_alist_text = R"doc()doc";


static const char* __doc_gr_gpufec_dvbs2_ldpc_code_core = R"doc()doc";
