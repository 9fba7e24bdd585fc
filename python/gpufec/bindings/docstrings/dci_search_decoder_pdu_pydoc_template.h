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


static const char* __doc_gr_gpufec_dci_search_decoder_pdu = R"doc()doc";


static const char* __doc_gr_gpufec_dci_search_decoder_pdu_dci_search_decoder_pdu_0 =
    R"doc()doc";


static const char* __doc_gr_gpufec_dci_search_decoder_pdu_dci_search_decoder_pdu_1 =
    R"doc()doc";


static const char* __doc_gr_gpufec_dci_search_decoder_pdu_make = R"doc()doc";


static const char* __doc_gr_gpufec_dci_search_decoder_pdu_backend_name = R"doc()doc";


static const char* __doc_gr_gpufec_dci_search_decoder_pdu_decoded_frames = R"doc()doc";


static const char* __doc_gr_gpufec_dci_search_decoder_pdu_dropped_frames = R"doc()doc";
