#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, ASan + UBSan) into build-fuzz/ and runs
# each for a while on its seed corpus (fuzz/corpus/<target>/), printing executions,
# speed and findings. docs/fuzzing.md says more.
#
#   scripts/fuzz.sh                       every target, 30 s each
#   scripts/fuzz.sh 600 alist             fuzz_alist for 10 minutes
#   scripts/fuzz.sh --smoke               CI: every target a few seconds
#                                         ($GPUFEC_FUZZ_SMOKE_SECONDS, default 8);
#                                         exits 77 (skipped) without clang + libFuzzer
#
# New inputs go to build-fuzz/corpus/<target>/ (the repository's seeds are only read);
# crashes, leaks and timeouts to build-fuzz/artifacts/<target>/, and the run fails.
# Environment: GPUFEC_FUZZ_BUILD_DIR (build folder), GPUFEC_JOBS (build jobs),
# GPUFEC_FUZZ_ARGS (extra libFuzzer flags, e.g. "-jobs=2 -workers=2"),
# CXX_FUZZ (clang++ to use).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUFEC_FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${GPUFEC_JOBS:-$(nproc)}
smoke=0
if [ "${1:-}" = "--smoke" ]; then
    smoke=1
    shift
fi
seconds=30
[ "$smoke" = 1 ] && seconds=${GPUFEC_FUZZ_SMOKE_SECONDS:-8}
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
    seconds=$1
    shift
fi

skip() {
    echo "[fuzz] skipped: $*"
    exit 77
}
cxx=${CXX_FUZZ:-clang++}
cc=${cxx/clang++/clang}
command -v "$cxx" >/dev/null 2>&1 || skip "no $cxx"
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <cstdint>' '#include <cstddef>' \
    'extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }' \
    >"$probe/probe.cc"
"$cxx" -fsanitize=fuzzer,address,undefined "$probe/probe.cc" -o "$probe/probe" \
    >/dev/null 2>&1 || skip "$cxx cannot link -fsanitize=fuzzer,address,undefined"

t0=$(date +%s)
mkdir -p "$build"
cmake -S "$root" -B "$build" -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DGPUFEC_FUZZ=ON -DGPUFEC_CUDA=OFF -DGPUFEC_TESTS=OFF >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" --target gpufec-fuzz
echo "[fuzz] configure + build: $(($(date +%s) - t0)) s"

mapfile -t built < <(grep -v '^$' "$build/fuzz/targets.txt")
targets=()
if [ $# -eq 0 ]; then
    targets=("${built[@]}")
else
    for t in "$@"; do
        t=fuzz_${t#fuzz_}
        found=0
        for b in "${built[@]}"; do [ "$b" = "$t" ] && found=1; done
        [ "$found" = 1 ] || { echo "[fuzz] no target $t (built: ${built[*]})" >&2; exit 2; }
        targets+=("$t")
    done
fi

read -r -a extra <<<"${GPUFEC_FUZZ_ARGS:-}"
status=0
summary=()
for t in "${targets[@]}"; do
    name=${t#fuzz_}
    work=$build/corpus/$name
    artifacts=$build/artifacts/$name
    mkdir -p "$work" "$artifacts"
    log=$build/$t.log
    echo "[fuzz] $t: ${seconds} s, corpus $work + fuzz/corpus/$name"
    rc=0
    "$build/fuzz/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "${extra[@]}" \
        "$work" "$root/fuzz/corpus/$name" >"$log" 2>&1 || rc=$?
    stat() { grep -h "^stat::$1:" "$log" | awk '{s += $2} END {print s + 0}'; }
    execs=$(stat number_of_executed_units)
    speed=$(stat average_exec_per_sec)
    added=$(stat new_units_added)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    if [ "$rc" = 0 ]; then
        result="no findings"
    else
        status=1
        result="FINDING (exit $rc): $(ls -t "$artifacts" | head -1 | sed "s|^|$artifacts/|")"
        grep -E "ERROR|HANG|runtime error|fuzz_[a-z_]*:|SUMMARY" "$log" | head -20 || true
        echo "[fuzz] full log: $log; reproduce: $build/fuzz/$t <artifact>"
    fi
    line=$(printf '%-22s %5s s %12s execs %8s exec/s  cov %-6s new units %-5s %s' \
        "$t" "$seconds" "$execs" "$speed" "${cov:-?}" "$added" "$result")
    echo "[fuzz] $line"
    summary+=("$line")
done
echo "[fuzz] summary ($(date -u +%FT%TZ), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)):"
printf '[fuzz]   %s\n' "${summary[@]}"
exit "$status"
