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


static const char* __doc_gr_gpufec_nr_polar_code = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_nr_polar_code_0 = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_nr_polar_code_1 = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_make = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_k = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_e = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_mother_length = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_crc = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_rate_matching = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_chain = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_rnti = R"doc()doc";


static const char* __doc_gr_gpufec_nr_polar_code_core = R"doc()doc";
