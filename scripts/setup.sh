#!/usr/bin/env bash
# Installs the Debian 12 / Ubuntu 24.04 packages gr-gpufec needs, and only those that
# are missing: `apt-get update` runs only when something has to be installed, so a
# second run is a no-op. Works as root or through sudo.
#
#   scripts/setup.sh            install what is missing
#   scripts/setup.sh --check    list what is missing, install nothing (exit 1 if any)
#
# GPUFEC_SETUP_TESTS=1 (set by test.sh) adds what only the tests use: clang with
# libFuzzer for the short fuzz run (ctest fuzz_smoke, docs/fuzzing.md).
# GPUFEC_SKIP_SETUP=1 skips everything (for machines managed another way).
# CUDA is optional and not installed here: the build uses /usr/local/cuda/bin/nvcc
# (or any nvcc on the PATH) when present, and builds the CPU backend only otherwise.
set -euo pipefail

if [ "${GPUFEC_SKIP_SETUP:-0}" = 1 ]; then
    echo "[setup] GPUFEC_SKIP_SETUP=1: not checking packages"
    exit 0
fi
check_only=0
[ "${1:-}" = "--check" ] && check_only=1

# One entry per need; "a|b" means either package will do (Debian 12 name first,
# Ubuntu 24.04 name second where they differ).
required=(
    build-essential cmake pkg-config\|pkgconf git
    gnuradio gnuradio-dev
    libvolk2-dev\|libvolk-dev
    libboost-program-options-dev libboost-dev
    libgtest-dev libgmock-dev
    pybind11-dev python3-dev python3-numpy python3-matplotlib
    libspdlog-dev libfmt-dev libgmp-dev
)
if [ "${GPUFEC_SETUP_TESTS:-0}" = 1 ]; then
    required+=(clang libclang-rt-dev)
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "[setup] not a Debian/Ubuntu system (no dpkg/apt): install by hand" \
         "${required[*]//\\/}" >&2
    exit 0
fi

# Output captured first: with pipefail, `cmd | grep -q` fails when grep exits early.
is_installed() {
    local status
    status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
    [[ $status == *"install ok installed"* ]]
}
has_candidate() {
    local policy
    policy=$(apt-cache policy "$1" 2>/dev/null) || return 1
    [[ $policy == *"Candidate: "* && $policy != *"Candidate: (none)"* ]]
}

missing=()
for entry in "${required[@]}"; do
    IFS='|' read -r -a alternatives <<<"$entry"
    found=0
    for pkg in "${alternatives[@]}"; do
        if is_installed "$pkg"; then found=1; break; fi
    done
    [ "$found" = 1 ] || missing+=("$entry")
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "[setup] all ${#required[@]} required packages are installed"
    exit 0
fi
echo "[setup] missing: ${missing[*]}"
if [ "$check_only" = 1 ]; then
    exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "[setup] need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive

"${as_root[@]}" apt-get update -q
to_install=()
for entry in "${missing[@]}"; do
    IFS='|' read -r -a alternatives <<<"$entry"
    chosen=""
    for pkg in "${alternatives[@]}"; do
        if has_candidate "$pkg"; then chosen=$pkg; break; fi
    done
    if [ -z "$chosen" ]; then
        echo "[setup] no installable package among: ${alternatives[*]}" \
             "(on Ubuntu, enable the 'universe' component)" >&2
        exit 1
    fi
    to_install+=("$chosen")
done
# xterm satisfies gnuradio's x-terminal-emulator dependency far more cheaply than the
# first alternative apt would otherwise pull in (a whole desktop terminal).
if ! is_installed gnuradio; then
    to_install+=(xterm)
fi
echo "[setup] installing: ${to_install[*]}"
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${to_install[@]}"
echo "[setup] done"
