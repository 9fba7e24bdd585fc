#!/usr/bin/env bash
# Installs missing packages, builds everything into build/ (CUDA kernels too when nvcc
# is found; GPU tests skip themselves without a GPU) and runs every test through ctest.
# Arguments are passed to ctest, e.g. `scripts/test.sh -R viterbi`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUFEC_BUILD_DIR:-$root/build}

# The tests also need clang + libFuzzer (the fuzz_smoke test), installed when missing.
GPUFEC_SETUP_TESTS=1 "$root/scripts/build.sh"
cd "$build"
status=0
ctest --output-on-failure -j"$(nproc)" --timeout "${GPUFEC_TEST_TIMEOUT:-1500}" "$@" || status=$?
# ctest says "Skipped" but not why; GTest's reasons are in its log.
reasons=$(awk '/: Skipped$/ { getline reason; print reason }' \
    Testing/Temporary/LastTest.log 2>/dev/null | sort | uniq -c | sort -rn)
if [ -n "$reasons" ]; then
    echo "Why tests were skipped (count, reason):"
    echo "$reasons"
fi
exit $status
