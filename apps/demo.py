#!/usr/bin/python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gr-gpufec demo: a GNU Radio flowgraph

    gpufec.awgn_bpsk_source -> gpufec.viterbi_decoder -> gpufec.ber_counter

for the K=7 rate-1/2 (171,133) code at a few Eb/N0 values, on the GPU when one is
present (backend "auto"), else on the CPU. Prints BER and throughput per point and
writes the BER plot (PNG) and a CSV next to it.

Run through scripts/demo.sh, which builds and installs the module into build/install
and sets PYTHONPATH / LD_LIBRARY_PATH.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpufec_ber  # noqa: E402  (the BER sweep helpers live in apps/gpufec_ber.py)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--ebn0", default="1,2,3,4,5", help='Eb/N0 points in dB, e.g. "1,2,3"')
    parser.add_argument("--backend", default="auto", help="auto | cpu | cuda | cuda:N")
    parser.add_argument("--frame-bits", type=int, default=2048)
    parser.add_argument("--max-bits", type=float, default=0,
                        help="bits per point (0: 4e6 on the CPU, 1e8 on a GPU)")
    parser.add_argument("--max-errors", type=int, default=0,
                        help="stop a point after this many errors (0: run all bits)")
    parser.add_argument("--out-dir", default="demo-out")
    parser.add_argument("--verbose", action="store_true",
                        help="keep GNU Radio's info-level log lines")
    args = parser.parse_args(argv)

    gpufec_ber.load_gnuradio("demo", args.verbose)
    from gnuradio import gpufec

    code = gpufec_ber.make_code(frame_bits=args.frame_bits)
    # Which backend "auto" picks: a throwaway decoder tells (and logs the choice).
    backend = gpufec.viterbi_decoder(code, "float", "", args.backend).backend_name()
    on_gpu = backend.startswith("cuda")
    max_bits = args.max_bits or (1e8 if on_gpu else 4e6)
    points_db = gpufec_ber.parse_ebn0(args.ebn0)

    print(f"gr-gpufec demo: {code.describe()}")
    print(f"backend: {backend} (requested \"{args.backend}\"); {max_bits:.3g} bits per point"
          + (f" or {args.max_errors} errors" if args.max_errors else ""))
    print("flowgraph: awgn_bpsk_source -> viterbi_decoder -> ber_counter\n", flush=True)

    progress = gpufec_ber.progress_bar()
    points = gpufec_ber.sweep(code, points_db, backend=args.backend,
                              max_errors=args.max_errors, max_bits=max_bits,
                              max_batch_frames=256 if on_gpu else 64, progress=progress)
    print()
    print(gpufec_ber.format_table(points))

    os.makedirs(args.out_dir, exist_ok=True)
    csv_path = os.path.join(args.out_dir, "demo_ber.csv")
    png_path = os.path.join(args.out_dir, "demo_ber.png")
    gpufec_ber.write_csv(csv_path, points)
    gpufec_ber.plot_curves(png_path, points, f"{code.describe()}, {backend}")
    print(f"\nwrote {png_path} and {csv_path}")

    # The decoder must beat uncoded BPSK wherever errors were counted.
    worse = [p for p in points if p.bit_errors > 0 and p.ber >= gpufec_ber.uncoded_bpsk_ber(p.ebn0_db)]
    for p in worse:
        print(f"WARNING: at {p.ebn0_db} dB the decoded BER {p.ber:.3e} is not below uncoded BPSK")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
