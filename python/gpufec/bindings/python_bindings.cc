/*
 * Copyright 2020 Free Software Foundation, Inc.
 *
 * This file is part of GNU Radio
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 */

#include <gpufec/common.h>
#include <pybind11/pybind11.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace py = pybind11;

// Headers for binding functions
/**************************************/
// The following comment block is used for
// gr_modtool to insert function prototypes
// Please do not delete
/**************************************/
// BINDING_FUNCTION_PROTOTYPES(
void bind_code(py::module& m);
void bind_conv_code(py::module& m);
void bind_encoder(py::module& m);
void bind_viterbi_decoder(py::module& m);
void bind_viterbi_decoder_pdu(py::module& m);
void bind_awgn_bpsk_source(py::module& m);
void bind_ber_counter(py::module& m);
void bind_lte_turbo_code(py::module& m);
void bind_nr_ldpc_code(py::module& m);
void bind_ldpc_alist_code(py::module& m);
void bind_dvbs2_ldpc_code(py::module& m);
void bind_nr_polar_code(py::module& m);
void bind_turbo_decoder(py::module& m);
void bind_turbo_decoder_pdu(py::module& m);
void bind_ldpc_decoder(py::module& m);
void bind_ldpc_decoder_pdu(py::module& m);
void bind_polar_decoder(py::module& m);
void bind_polar_decoder_pdu(py::module& m);
void bind_dci_search_decoder_pdu(py::module& m);
void bind_nr_uci_small_code(py::module& m);
void bind_uci_small_decoder(py::module& m);
void bind_uci_small_decoder_pdu(py::module& m);
void bind_mimo_detector(py::module& m);
void bind_mimo_detector_pdu(py::module& m);
void bind_mimo_channel_source(py::module& m);
// ) END BINDING_FUNCTION_PROTOTYPES


// We need this hack because import_array() returns NULL
// for newer Python versions.
// This function is also necessary because it ensures access to the C API
// and removes a warning.
void* init_numpy()
{
    import_array();
    return NULL;
}

PYBIND11_MODULE(gpufec_python, m)
{
    // Initialize the numpy C API
    // (otherwise we will see segmentation faults)
    init_numpy();

    // Allow access to base block methods
    py::module::import("gnuradio.gr");

    /**************************************/
    // The following comment block is used for
    // gr_modtool to insert binding function calls
    // Please do not delete
    /**************************************/
    // gpufec::error (bad parameters, backend failures) -> gpufec.error, a ValueError.
    py::register_exception<::gpufec::error>(m, "error", PyExc_ValueError);

    // BINDING_FUNCTION_CALLS(
    bind_code(m);
    bind_conv_code(m);
    bind_encoder(m);
    bind_viterbi_decoder(m);
    bind_viterbi_decoder_pdu(m);
    bind_awgn_bpsk_source(m);
    bind_ber_counter(m);
    bind_lte_turbo_code(m);
    bind_nr_ldpc_code(m);
    bind_ldpc_alist_code(m);
    bind_dvbs2_ldpc_code(m);
    bind_nr_polar_code(m);
    bind_turbo_decoder(m);
    bind_turbo_decoder_pdu(m);
    bind_ldpc_decoder(m);
    bind_ldpc_decoder_pdu(m);
    bind_polar_decoder(m);
    bind_polar_decoder_pdu(m);
    bind_dci_search_decoder_pdu(m);
    bind_nr_uci_small_code(m);
    bind_uci_small_decoder(m);
    bind_uci_small_decoder_pdu(m);
    bind_mimo_detector(m);
    bind_mimo_detector_pdu(m);
    bind_mimo_channel_source(m);
    // ) END BINDING_FUNCTION_CALLS
}
