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


static const char* __doc_gr_gpufec_code = R"doc()doc";


static const char* __doc_gr_gpufec_code_code_0 = R"doc()doc";


static const char* __doc_gr_gpufec_code_code_1 = R"doc()doc";


static const char* __doc_gr_gpufec_code_family = R"doc()doc";


static const char* __doc_gr_gpufec_code_frame_bits = R"doc()doc";


static const char* __doc_gr_gpufec_code_coded_bits_for = R"doc()doc";


static const char* __doc_gr_gpufec_code_info_bits_for_coded = R"doc()doc";


static const char* __doc_gr_gpufec_code_rate = R"doc()doc";


static const char* __doc_gr_gpufec_code_describe = R"doc()doc";


static const char* __doc_gr_gpufec_code_coded_bits = R"doc()doc";


static const char* __doc_gr_gpufec_code_encode = R"doc()doc";


static const char* __doc_gr_gpufec_code_encode_raw = R"doc()doc";
