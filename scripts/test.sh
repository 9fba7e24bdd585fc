#!/usr/bin/env bash
# Installs missing packages, builds everything into build/ (CUDA kernels too when nvcc
# is found; GPU tests skip themselves without a GPU) and runs every test through ctest.
# Arguments are passed to ctest, e.g. `scripts/test.sh -R viterbi`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUFEC_BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j"$(nproc)" --timeout "${GPUFEC_TEST_TIMEOUT:-1500}" "$@"
