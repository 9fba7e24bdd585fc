#!/usr/bin/env bash
# Installs missing packages, builds gr-gpufec, installs it into build/install (no root
# needed) and runs the demo flowgraph: AWGN/BPSK source -> Viterbi decoder -> BER
# counter at a few Eb/N0 values, on the GPU when one is present, else on the CPU.
# Arguments go to apps/demo.py (try --help); the BER plot lands in build/demo/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUFEC_BUILD_DIR:-$root/build}
prefix=$build/install

"$root/scripts/build.sh"
cmake --install "$build" --prefix "$prefix" >"$build/install.log"

module_init=$(find "$prefix" -path '*/gnuradio/gpufec/__init__.py' -print -quit)
if [ -z "$module_init" ]; then
    echo "[demo] the GNU Radio module was not built (is GNU Radio 3.10 installed?)" >&2
    exit 1
fi
python_dir=$(dirname "$(dirname "$(dirname "$module_init")")")
lib_dir=$(dirname "$(find "$prefix" -name 'libgnuradio-gpufec.so*' -print -quit)")
# One line in for later shells: `. build/install/gpufec-env.sh` puts the module, its
# library and gpufec-ber on the search paths.
cat >"$prefix/gpufec-env.sh" <<ENV
# gr-gpufec installed in $prefix: source this file (. $prefix/gpufec-env.sh)
export PYTHONPATH=$python_dir\${PYTHONPATH:+:\$PYTHONPATH}
export LD_LIBRARY_PATH=$lib_dir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export PATH=$prefix/bin:\$PATH
export GRC_BLOCKS_PATH=$prefix/share/gnuradio/grc/blocks\${GRC_BLOCKS_PATH:+:\$GRC_BLOCKS_PATH}
ENV
export PYTHONPATH=$python_dir${PYTHONPATH:+:$PYTHONPATH}
export LD_LIBRARY_PATH=$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
status=0
/usr/bin/python3 "$root/apps/demo.py" --out-dir "$build/demo" "$@" || status=$?
echo "[demo] to use the module from Python, gpufec-ber or GRC in another shell:"
echo "[demo]   . $prefix/gpufec-env.sh"
exit $status
