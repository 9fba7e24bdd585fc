#!/usr/bin/env bash
# The CPU test suite under AddressSanitizer + UndefinedBehaviorSanitizer (no CUDA):
# configures build-asan/ (or $GPUFEC_ASAN_BUILD_DIR) as a Debug build with
# -fsanitize=address,undefined, builds it and runs ctest. Any sanitizer report fails
# the test that triggered it (UBSan does not recover, ASan aborts).
#
#   scripts/sanitize.sh                 everything (C++ tests, then Python QA tests)
#   scripts/sanitize.sh -R viterbi      extra arguments go to both ctest runs
#   GPUFEC_ASAN_PYTHON=0 scripts/sanitize.sh   C++ tests only
#
# The Python QA tests load the sanitized module into /usr/bin/python3, which is not
# built with ASan: they run in a second ctest pass with the compiler's libasan in
# LD_PRELOAD (ASan must be the first library loaded; libstdc++ with it, for exceptions)
# and leak detection off (CPython
# keeps its objects alive at exit). The C++ tests run with leak detection on.
# downstream_packages (install + build against the installed package) is left out: it
# checks packaging, not memory, and would need the sanitizer flags downstream too.
# Extra CMake arguments come from $GPUFEC_CMAKE_ARGS, the job count from $GPUFEC_JOBS.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUFEC_ASAN_BUILD_DIR:-$root/build-asan}
jobs=${GPUFEC_JOBS:-$(nproc)}
cxx=${CXX:-g++}

flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
read -r -a extra_args <<<"${GPUFEC_CMAKE_ARGS:-}"

# Tests run during the build too (gtest_discover_tests lists each executable's tests).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

t0=$(date +%s)
cmake -S "$root" -B "$build" -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DCMAKE_BUILD_TYPE=Debug -DGPUFEC_CUDA=OFF \
    -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" \
    "${extra_args[@]}"
cmake --build "$build" -j "$jobs"
t1=$(date +%s)
echo "[sanitize] build: $((t1 - t0)) s"

cd "$build"
status=0
ctest --output-on-failure -j"$jobs" --timeout "${GPUFEC_TEST_TIMEOUT:-1500}" \
    -E '^(qa_|downstream_packages$)' "$@" || status=$?
t2=$(date +%s)
echo "[sanitize] C++ tests: $((t2 - t1)) s (exit $status)"

# (Listed first, then matched: `ctest | grep -q` fails under pipefail on SIGPIPE.)
qa_list=$(ctest -N -R '^qa_' || true)
if [ "${GPUFEC_ASAN_PYTHON:-1}" = 1 ] && [[ "$qa_list" =~ Test\ *\#[0-9]+:\ qa_ ]]; then
    libasan=$("$cxx" -print-file-name=libasan.so)
    # libstdc++ too: python3 does not link it, and ASan's __cxa_throw interceptor
    # needs it loaded at start ("CHECK failed: ... real___cxa_throw != 0" otherwise).
    libstdcxx=$("$cxx" -print-file-name=libstdc++.so)
    if [ ! -e "$libasan" ]; then
        echo "[sanitize] $cxx has no libasan.so: Python QA tests not run" >&2
        status=1
    else
        py_status=0
        LD_PRELOAD="$libasan $libstdcxx" \
            ASAN_OPTIONS="detect_leaks=0:abort_on_error=0" \
            ctest --output-on-failure -j"$jobs" --timeout "${GPUFEC_TEST_TIMEOUT:-1500}" \
            -R '^qa_' "$@" || py_status=$?
        t3=$(date +%s)
        echo "[sanitize] Python QA tests (LD_PRELOAD=$libasan): $((t3 - t2)) s" \
             "(exit $py_status)"
        [ "$py_status" = 0 ] || status=$py_status
    fi
fi
echo "[sanitize] total: $(($(date +%s) - t0)) s"
exit "$status"
