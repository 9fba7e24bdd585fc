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


static const char* __doc_gr_gpufec_lte_turbo_code = R"doc()doc";


static const char* __doc_gr_gpufec_lte_turbo_code_lte_turbo_code_0 = R"doc()doc";


static const char* __doc_gr_gpufec_lte_turbo_code_lte_turbo_code_1 = R"doc()doc";


static const char* __doc_gr_gpufec_lte_turbo_code_make = R"doc()doc";


static const char* __doc_gr_gpufec_lte_turbo_code_k = R"doc()doc";


static const char* __doc_gr_gpufec_lte_turbo_code_crc24b = R"doc()doc";


static const char* __doc_gr_gpufec_lte_turbo_code_e = R"doc()doc";


static const char* __doc_gr_gpufec_lte_turbo_code_rv = R"doc()doc";


static const char* __doc_gr_gpufec_lte_turbo_code_core = R"doc()doc";
