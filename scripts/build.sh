#!/usr/bin/env bash
# Configures and builds gr-gpufec into build/ (or $GPUFEC_BUILD_DIR) after installing
# missing packages. Shared by demo.sh and test.sh; extra CMake options come from
# $GPUFEC_CMAKE_ARGS (e.g. "-DGPUFEC_CUDA=OFF" or "-DCMAKE_CUDA_ARCHITECTURES=90").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUFEC_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"

# Debian's GNU Radio Python modules import only under the system interpreter.
read -r -a extra_args <<<"${GPUFEC_CMAKE_ARGS:-}"
cmake -S "$root" -B "$build" -DPython3_EXECUTABLE=/usr/bin/python3 "${extra_args[@]}"
cmake --build "$build" -j "$(nproc)"
