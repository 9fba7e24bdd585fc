#!/usr/bin/env bash
# Installs a build tree into a scratch prefix and builds the downstream projects against
# it: core/ (find_package(gpufec) -> gpufec::core) and, when the GNU Radio module was
# built, gr/ (find_package(gnuradio-gpufec) alone).
#   run.sh BUILD_DIR WITH_GNURADIO(ON|OFF)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
with_gr=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
cmake -S "$here/core" -B "$work/core" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/core" -j2 >/dev/null
"$work/core/decode"
if [ "$with_gr" = ON ]; then
    cmake -S "$here/gr" -B "$work/gr" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
    cmake --build "$work/gr" -j2 >/dev/null
    LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" \
        "$work/gr/flowgraph"
fi
echo "downstream packages: ok"
