#!/usr/bin/python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpufec-ber: bit and frame error rates of a convolutional code versus Eb/N0.

Each Eb/N0 point runs a GNU Radio flowgraph

    gpufec.awgn_bpsk_source --LLRs--> gpufec.viterbi_decoder --bits--> gpufec.ber_counter
                            --information bits---------------------------^

until it has seen --max-errors bit errors or --max-bits bits, then prints a BER/FER
table, writes a CSV file and a PNG plot (with the uncoded BPSK curve Q(sqrt(2 Eb/N0))
for comparison).

Example:
    gpufec-ber --ebn0 0:6:0.5 --k 7 --polys 171,133 --backend auto --max-bits 1e7

Run it with /usr/bin/python3 (Debian's GNU Radio modules import only there). The
functions below (run_point, sweep, write_csv, plot_curves, format_table) are reused by
apps/demo.py and tested by apps/qa_gpufec_ber.py.
"""

import argparse
import csv
import math
import os
import sys
import threading
import time

DEFAULT_POLYS = "171,133"


# ---------------------------------------------------------------------------------
# Theory and parsing (no GNU Radio needed)


def uncoded_bpsk_ber(ebn0_db):
    """BER of uncoded BPSK on AWGN: Q(sqrt(2 Eb/N0)) = erfc(sqrt(Eb/N0)) / 2."""
    return 0.5 * math.erfc(math.sqrt(10.0 ** (ebn0_db / 10.0)))


def parse_ebn0(spec):
    """"1,2,3.5" -> [1.0, 2.0, 3.5]; "0:6:0.5" -> 0, 0.5, ..., 6 (stop included)."""
    spec = spec.strip()
    if ":" in spec:
        parts = spec.split(":")
        if len(parts) != 3:
            raise ValueError(f'Eb/N0 range must be start:stop:step, got "{spec}"')
        start, stop, step = (float(p) for p in parts)
        if step <= 0 or stop < start:
            raise ValueError(f'Eb/N0 range needs step > 0 and stop >= start, got "{spec}"')
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        return [round(start + i * step, 10) for i in range(count)]
    values = [float(v) for v in spec.split(",") if v.strip()]
    if not values:
        raise ValueError("no Eb/N0 value given")
    return values


def parse_polys(spec):
    """Octal polynomials "171,133" -> [0o171, 0o133] (MSB taps the newest bit)."""
    try:
        polys = [int(p, 8) for p in spec.replace(" ", "").split(",") if p]
    except ValueError:
        raise ValueError(f'polynomials must be octal numbers such as "171,133", got "{spec}"')
    if not polys:
        raise ValueError("no polynomial given")
    return polys


class point:
    """Counts of one Eb/N0 point."""

    def __init__(self, ebn0_db, bits, bit_errors, frames, frame_errors, seconds, backend):
        self.ebn0_db = ebn0_db
        self.bits = bits
        self.bit_errors = bit_errors
        self.frames = frames
        self.frame_errors = frame_errors
        self.seconds = seconds
        self.backend = backend

    @property
    def ber(self):
        return self.bit_errors / self.bits if self.bits else float("nan")

    @property
    def fer(self):
        return self.frame_errors / self.frames if self.frames else float("nan")

    @property
    def bits_per_second(self):
        return self.bits / self.seconds if self.seconds > 0 else float("nan")

    def as_row(self):
        return {
            "ebn0_db": self.ebn0_db,
            "bits": self.bits,
            "bit_errors": self.bit_errors,
            "ber": self.ber,
            "frames": self.frames,
            "frame_errors": self.frame_errors,
            "fer": self.fer,
            "uncoded_ber": uncoded_bpsk_ber(self.ebn0_db),
            "seconds": self.seconds,
            "info_bits_per_s": self.bits_per_second,
            "backend": self.backend,
        }


CSV_FIELDS = ["ebn0_db", "bits", "bit_errors", "ber", "frames", "frame_errors", "fer",
              "uncoded_ber", "seconds", "info_bits_per_s", "backend"]


def read_csv(path):
    """Rows of a CSV written by write_csv, as points."""
    with open(path, newline="") as f:
        return [point(float(r["ebn0_db"]), int(r["bits"]), int(r["bit_errors"]),
                      int(r["frames"]), int(r["frame_errors"]), float(r["seconds"]),
                      r["backend"]) for r in csv.DictReader(f)]


def write_csv(path, points):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for p in points:
            row = p.as_row()
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                             for k, v in row.items()})


def format_rate(bits_per_second):
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if bits_per_second >= scale:
            return f"{bits_per_second / scale:.1f} {prefix}b/s"
    return f"{bits_per_second:.0f} b/s"


def format_table(points):
    """The BER/FER table as text."""
    head = (f"{'Eb/N0 dB':>8} {'bits':>11} {'errors':>8} {'BER':>10} {'frames':>8} "
            f"{'fr.err':>7} {'FER':>10} {'uncoded BER':>12} {'throughput':>12}")
    lines = [head, "-" * len(head)]
    for p in points:
        lines.append(f"{p.ebn0_db:8.2f} {p.bits:11d} {p.bit_errors:8d} {p.ber:10.3e} "
                     f"{p.frames:8d} {p.frame_errors:7d} {p.fer:10.3e} "
                     f"{uncoded_bpsk_ber(p.ebn0_db):12.3e} {format_rate(p.bits_per_second):>12}")
    return "\n".join(lines)


def plot_curves(path, points, title):
    """Writes a PNG: BER and FER versus Eb/N0 (log scale) with the uncoded BPSK curve.
    Points without errors cannot sit on a log axis: they are drawn as a downward
    triangle at 1/bits (the BER is below that)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5.0), dpi=120)
    xs = [p.ebn0_db for p in points]
    if xs:
        lo, hi = min(xs), max(xs)
        if hi - lo < 1.0:
            lo, hi = lo - 0.5, hi + 0.5
        grid = [lo + (hi - lo) * i / 200.0 for i in range(201)]
        ax.semilogy(grid, [uncoded_bpsk_ber(x) for x in grid], "k--", lw=1,
                    label="uncoded BPSK  Q(sqrt(2 Eb/N0))")
    with_errors = [p for p in points if p.bit_errors > 0]
    ax.semilogy([p.ebn0_db for p in with_errors], [p.ber for p in with_errors], "o-",
                color="tab:blue", label="BER")
    fer_points = [p for p in points if p.frame_errors > 0]
    ax.semilogy([p.ebn0_db for p in fer_points], [p.fer for p in fer_points], "s:",
                color="tab:orange", label="FER")
    error_free = [p for p in points if p.bit_errors == 0 and p.bits > 0]
    if error_free:
        ax.semilogy([p.ebn0_db for p in error_free], [1.0 / p.bits for p in error_free], "v",
                    color="tab:blue", fillstyle="none", label="no bit error (BER < 1/bits)")
    ax.set_xlabel("Eb/N0 (dB)")
    ax.set_ylabel("error rate")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


class progress_bar:
    """A plain-text bar on stderr: redrawn in place on a terminal, one line per point
    otherwise (logs, CI)."""

    def __init__(self, stream=sys.stderr, width=30, enabled=True):
        self.stream = stream
        self.width = width
        self.enabled = enabled
        self.live = enabled and hasattr(stream, "isatty") and stream.isatty()

    def update(self, label, fraction, detail):
        if not self.live:
            return
        fraction = min(1.0, max(0.0, fraction))
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r{label} [{bar}] {fraction * 100:5.1f}% {detail}   ")
        self.stream.flush()

    def finish(self, label, detail):
        if not self.enabled:
            return
        bar = "#" * self.width
        prefix = "\r" if self.live else ""
        self.stream.write(f"{prefix}{label} [{bar}] 100.0% {detail}   \n")
        self.stream.flush()


# ---------------------------------------------------------------------------------
# GNU Radio part


def make_code(frame_bits=2048, k=7, polys=None, termination="terminated", puncture=""):
    from gnuradio import gpufec
    return gpufec.conv_code(frame_bits, k, list(polys or parse_polys(DEFAULT_POLYS)),
                            termination, puncture)


def run_point(code, ebn0_db, backend="auto", max_errors=100, max_bits=1e7, seed=0,
              input_type="float", max_batch_frames=64, max_latency_ms=10.0,
              progress=None, poll_s=0.05):
    """Runs source -> decoder -> ber_counter at one Eb/N0 until `max_errors` bit errors
    or `max_bits` decoded bits (rounded up to whole frames; exact, so a run that stops
    on bits is reproducible for a seed). Returns a point."""
    from gnuradio import blocks, gr, gpufec

    frame_bits = code.frame_bits()
    frames = max(1, int(math.ceil(float(max_bits) / frame_bits)))
    total_bits = frames * frame_bits

    tb = gr.top_block("gpufec-ber")
    source = gpufec.awgn_bpsk_source(code, float(ebn0_db), int(seed), backend)
    decoder = gpufec.viterbi_decoder(code, input_type, "", backend, int(max_batch_frames),
                                     float(max_latency_ms))
    counter = gpufec.ber_counter(frame_bits)
    head_decoded = blocks.head(gr.sizeof_char, total_bits)
    head_reference = blocks.head(gr.sizeof_char, total_bits)
    if input_type == "float":
        tb.connect((source, 0), decoder)
    else:
        # Byte input: quantize the source's float LLRs the way the decoder would.
        to_int8 = blocks.float_to_char(1, 8.0)
        tb.connect((source, 0), to_int8, decoder)
    tb.connect(decoder, head_decoded, (counter, 0))
    tb.connect((source, 1), head_reference, (counter, 1))

    label = f"{ebn0_db:5.2f} dB"
    start = time.monotonic()
    tb.start()
    waiter = threading.Thread(target=tb.wait, daemon=True)
    waiter.start()
    try:
        while waiter.is_alive():
            waiter.join(poll_s)
            errors, bits = counter.bit_errors(), counter.bits()
            if progress is not None:
                fraction = max(errors / max_errors if max_errors else 0.0, bits / total_bits)
                progress.update(label, fraction, f"{bits:.3g} bits, {errors} errors")
            if max_errors and errors >= max_errors:
                tb.stop()
                waiter.join()
                break
    except KeyboardInterrupt:
        tb.stop()
        waiter.join()
        raise
    seconds = time.monotonic() - start
    result = point(float(ebn0_db), counter.bits(), counter.bit_errors(), counter.frames(),
                   counter.frame_errors(), seconds, decoder.backend_name())
    if progress is not None:
        progress.finish(label, f"{result.bits:.3g} bits, {result.bit_errors} errors, "
                               f"BER {result.ber:.2e}, {format_rate(result.bits_per_second)}")
    return result


def sweep(code, ebn0_values, stop_at_zero=False, **point_args):
    """run_point for each Eb/N0; with stop_at_zero, stops after the first error-free
    point (higher Eb/N0 would only spend --max-bits each to find no error either)."""
    points = []
    for ebn0 in ebn0_values:
        p = run_point(code, ebn0, **point_args)
        points.append(p)
        if stop_at_zero and p.bit_errors == 0:
            break
    return points


# ---------------------------------------------------------------------------------
# Command line


def build_parser():
    parser = argparse.ArgumentParser(
        prog="gpufec-ber", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--ebn0", default="0:6:1",
                        help='Eb/N0 points in dB: "start:stop:step" or "1,2,3"')
    parser.add_argument("--frame-bits", type=int, default=2048,
                        help="information bits per frame")
    parser.add_argument("--k", type=int, default=7, help="constraint length 3..9")
    parser.add_argument("--polys", default=DEFAULT_POLYS,
                        help="octal generator polynomials, MSB taps the newest bit")
    parser.add_argument("--termination", default="terminated",
                        choices=["terminated", "truncated", "tail_biting"])
    parser.add_argument("--puncture", default="",
                        help='"", 2/3, 3/4, 5/6, 7/8 or a keep-mask such as 110110')
    parser.add_argument("--backend", default="auto", help="auto | cpu | cuda | cuda:N")
    parser.add_argument("--input", dest="input_type", default="float",
                        choices=["float", "byte"],
                        help="decoder input: float LLRs, or int8 (quantized x8 in the flowgraph)")
    parser.add_argument("--max-errors", type=int, default=200,
                        help="stop a point after this many bit errors")
    parser.add_argument("--max-bits", type=float, default=1e7,
                        help="stop a point after this many decoded bits")
    parser.add_argument("--seed", type=int, default=0, help="source seed")
    parser.add_argument("--batch-frames", type=int, default=64,
                        help="decoder max_batch_frames")
    parser.add_argument("--stop-at-zero", action="store_true",
                        help="end the sweep after the first point without errors")
    parser.add_argument("--out-dir", default=".", help="where the CSV and PNG go")
    parser.add_argument("--name", default="ber", help="file name stem of the CSV and PNG")
    parser.add_argument("--no-plot", action="store_true", help="write no PNG")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        ebn0_values = parse_ebn0(args.ebn0)
        polys = parse_polys(args.polys)
    except ValueError as e:
        print(f"gpufec-ber: {e}", file=sys.stderr)
        return 2
    try:
        code = make_code(args.frame_bits, args.k, polys, args.termination, args.puncture)
    except (ValueError, RuntimeError) as e:
        print(f"gpufec-ber: bad code: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.out_dir, exist_ok=True)
    title = f"{code.describe()}, backend {args.backend}"
    print(f"gpufec-ber: {title}; up to {args.max_errors} errors or {args.max_bits:.3g} bits "
          f"per point", flush=True)
    progress = progress_bar(enabled=not args.quiet)
    points = sweep(code, ebn0_values, stop_at_zero=args.stop_at_zero,
                   backend=args.backend, max_errors=args.max_errors, max_bits=args.max_bits,
                   seed=args.seed, input_type=args.input_type,
                   max_batch_frames=args.batch_frames, progress=progress)
    if points:
        title = f"{code.describe()}, backend {points[0].backend}"
    print(format_table(points))
    csv_path = os.path.join(args.out_dir, args.name + ".csv")
    write_csv(csv_path, points)
    print(f"wrote {csv_path}")
    if not args.no_plot:
        png_path = os.path.join(args.out_dir, args.name + ".png")
        plot_curves(png_path, points, title)
        print(f"wrote {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
