#
# Copyright 2008,2009 Free Software Foundation, Inc.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

# The presence of this file turns this directory into a Python package

'''
gr-gpufec: batched channel decoders (Viterbi, turbo, LDPC, polar) on NVIDIA GPUs
and, with the same results, on the CPU.
'''
import os

# import pybind11 generated symbols into the gpufec namespace
try:
    from .gpufec_python import *
except ImportError as e:
    # The usual causes, named: another interpreter than Debian's, or an install prefix
    # that is not on the search paths.
    raise ImportError(
        "gnuradio.gpufec: cannot load its compiled part ({}). Use /usr/bin/python3 "
        "(Debian's GNU Radio imports only there); for an install outside /usr, source "
        "the env script the demo prints (build/install/gpufec-env.sh) or set PYTHONPATH "
        "to <prefix>/lib/python3*/dist-packages and LD_LIBRARY_PATH to the directory of "
        "libgnuradio-gpufec.so".format(e)) from e

# import any pure python here


def ldpc_code_from_alist(path):
    """LDPC code from the parity-check matrix in an alist file (MacKay format, as
    gr-fec's ldpc_H_matrix reads): systematic encoder, k = n - rank(H) information
    bits per frame, n transmitted bits. Same as ldpc_alist_code(path). gr-fec's
    *gen_matrix* alist files hold generator matrices, not H: do not pass them here."""
    return ldpc_alist_code(path)

