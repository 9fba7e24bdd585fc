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


static const char* __doc_gr_gpufec_mimo_channel_source = R"doc()doc";


static const char* __doc_gr_gpufec_mimo_channel_source_mimo_channel_source_0 =
    R"doc()doc";


static const char* __doc_gr_gpufec_mimo_channel_source_mimo_channel_source_1 =
    R"doc()doc";


static const char* __doc_gr_gpufec_mimo_channel_source_make = R"doc()doc";


static const char* __doc_gr_gpufec_mimo_channel_source_set_snr_db = R"doc()doc";


static const char* __doc_gr_gpufec_mimo_channel_source_snr_db = R"doc()doc";


static const char* __doc_gr_gpufec_mimo_channel_source_noise_var = R"doc()doc";


static const char* __doc_gr_gpufec_mimo_channel_source_backend_name = R"doc()doc";


static const char* __doc_gr_gpufec_mimo_channel_source_frames = R"doc()doc";
