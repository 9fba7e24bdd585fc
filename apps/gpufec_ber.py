#!/usr/bin/python3
#
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpufec-ber: bit and frame error rates of a gpufec code versus Eb/N0.

Each Eb/N0 point runs a GNU Radio flowgraph

    gpufec.awgn_bpsk_source --LLRs--> gpufec.<decoder> --bits--> gpufec.ber_counter
                            --information bits----------------------^

until it has seen --max-errors bit errors or --max-bits bits, then prints a BER/FER
table, writes a CSV file and a PNG plot (with the uncoded BPSK curve Q(sqrt(2 Eb/N0))
for comparison). --code picks the code family and with it the decoder: conv (Viterbi),
turbo (LTE, max-log-MAP), ldpc (5G NR, layered min-sum), ldpc-alist (any LDPC code
from an alist file, same decoder) or polar (5G NR, SC / fast-SSC / CA-SCL / BP).

Examples:
    gpufec-ber --ebn0 0:6:0.5 --k 7 --polys 171,133 --backend auto --max-bits 1e7
    gpufec-ber --code turbo --turbo-k 6144 --crc24b --iterations 6 --ebn0 0:2:0.25
    gpufec-ber --code ldpc --ldpc-bg 1 --ldpc-z 384 --ldpc-e 25344 --ebn0 0.5:2:0.25
    gpufec-ber --code ldpc-alist --alist /usr/share/gnuradio/fec/ldpc/n_0100_k_0042_gap_02.alist
    gpufec-ber --code polar --polar-k 512 --polar-e 1024 --algorithm scl --list-size 8
    gpufec-ber --mimo 4x4 --modulation 16qam --detector mtt --ebn0 4:14:2
    gpufec-ber --mimo 4x4 --detector mtt --code ldpc --ldpc-z 64 --ldpc-e 2816 --ebn0 4:8:0.5

Run it with /usr/bin/python3 (Debian's GNU Radio modules import only there). The
functions below (run_point, sweep, make_code, make_block_code, make_decoder,
write_csv, plot_curves, format_table) are reused by apps/demo.py and tested by
apps/qa_gpufec_ber.py.
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
    """A convolutional code (the --code conv default)."""
    from gnuradio import gpufec
    return gpufec.conv_code(frame_bits, k, list(polys or parse_polys(DEFAULT_POLYS)),
                            termination, puncture)


def make_block_code(family, turbo_k=6144, crc24b=False, turbo_e=0, turbo_rv=0, ldpc_bg=1, ldpc_z=384, ldpc_k=0,
                    ldpc_e=0, alist=None, polar_k=512, polar_e=1024, polar_crc="crc11",
                    channel_interleave=True, dvbs2_frame="normal", dvbs2_rate="1/2"):
    """The code of a --code family other than conv: "turbo", "ldpc", "ldpc-alist",
    "dvbs2" or "polar". Bad parameters raise ValueError naming the allowed values."""
    from gnuradio import gpufec
    if family == "turbo":
        return gpufec.lte_turbo_code(int(turbo_k), bool(crc24b), int(turbo_e), int(turbo_rv))
    if family == "ldpc":
        return gpufec.nr_ldpc_code(int(ldpc_bg), int(ldpc_z), int(ldpc_k), int(ldpc_e))
    if family == "ldpc-alist":
        if not alist:
            raise ValueError("--code ldpc-alist needs --alist PATH (an alist file)")
        return gpufec.ldpc_code_from_alist(alist)
    if family == "dvbs2":
        return gpufec.dvbs2_ldpc_code(dvbs2_frame, dvbs2_rate)
    if family == "polar":
        return gpufec.nr_polar_code(int(polar_k), int(polar_e), polar_crc,
                                    bool(channel_interleave))
    raise ValueError(f'unknown code family "{family}"; allowed: {", ".join(CODE_FAMILIES)}')


#: --code values.
CODE_FAMILIES = ("conv", "turbo", "ldpc", "ldpc-alist", "dvbs2", "polar")

#: Decoder options each code family's decoder takes (keyword arguments of
#: gpufec.turbo_decoder / ldpc_decoder / polar_decoder; the Viterbi decoder has none).
DECODER_OPTIONS = {
    "conv": (),
    "turbo": ("iterations", "algorithm", "extrinsic_scale", "arithmetic", "sub_blocks",
              "early_termination", "schedule"),
    "ldpc": ("iterations", "algorithm", "alpha", "beta", "arithmetic", "early_termination"),
    "polar": ("algorithm", "list_size", "bp_iterations", "early_termination"),
}


def check_decoder_options(family, options):
    """Raises ValueError when `options` holds a key the family's decoder does not take.
    `family` is a code family() ("conv", "turbo", "ldpc", "polar")."""
    allowed = DECODER_OPTIONS.get(family)
    if allowed is None:
        raise ValueError(f'no decoder for code family "{family}"')
    bad = sorted(set(options) - set(allowed))
    if bad:
        raise ValueError(f"decoder option(s) {', '.join(bad)} do not apply to a '{family}' "
                         f"code; allowed: {', '.join(allowed) or 'none'}")


def make_decoder(code, input_type="float", backend="auto", max_batch_frames=0,
                 max_latency_ms=10.0, len_tag_key="", **options):
    """The stream decoder block for `code`'s family: viterbi_decoder (conv),
    turbo_decoder, ldpc_decoder (NR and alist codes) or polar_decoder; `options` are
    that decoder's own keyword arguments (DECODER_OPTIONS), defaults where absent."""
    from gnuradio import gpufec
    family = code.family()
    check_decoder_options(family, options)
    if family == "conv":
        return gpufec.viterbi_decoder(code, input_type, len_tag_key, backend,
                                      int(max_batch_frames), float(max_latency_ms))
    make = {"turbo": gpufec.turbo_decoder, "ldpc": gpufec.ldpc_decoder,
            "polar": gpufec.polar_decoder}[family]
    return make(code, input_type=input_type, len_tag_key=len_tag_key, backend=backend,
                max_batch_frames=int(max_batch_frames),
                max_latency_ms=float(max_latency_ms), **options)


def describe_decoder(family, options):
    """A short text of the decoder and the options that differ from its defaults."""
    name = {"conv": "Viterbi", "turbo": "turbo", "ldpc": "LDPC", "polar": "polar"}.get(
        family, family)
    if not options:
        return f"{name} decoder"
    opts = ", ".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{name} decoder ({opts})"


def run_point(code, ebn0_db, backend="auto", max_errors=100, max_bits=1e7, seed=0,
              input_type="float", max_batch_frames=0, max_latency_ms=10.0,
              progress=None, poll_s=0.05, decoder_options=None):
    """Runs source -> decoder -> ber_counter at one Eb/N0 until `max_errors` bit errors
    or `max_bits` decoded bits (rounded up to whole frames; exact, so a run that stops
    on bits is reproducible for a seed). Any gpufec code; the decoder is the one of its
    family (make_decoder) with `decoder_options` (a dict of its keyword arguments).
    Returns a point."""
    from gnuradio import blocks, gr, gpufec

    frame_bits = code.frame_bits()
    frames = max(1, int(math.ceil(float(max_bits) / frame_bits)))
    total_bits = frames * frame_bits

    tb = gr.top_block("gpufec-ber")
    # The source encodes convolutional and NR LDPC codes on the decoder's backend; the
    # other block codes' sources take "auto" (the GPU through the code's generator where
    # it fits, else the CPU) unless the CPU is asked for. The frames are the same on
    # either.
    on_gpu = code.family() == "conv" or isinstance(code, gpufec.nr_ldpc_code)
    source_backend = backend if on_gpu else ("cpu" if backend == "cpu" else "auto")
    source = gpufec.awgn_bpsk_source(code, float(ebn0_db), int(seed), source_backend)
    decoder = make_decoder(code, input_type, backend, max_batch_frames, max_latency_ms,
                           **(decoder_options or {}))
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

    return _run_flowgraph(tb, counter, ebn0_db, max_errors, total_bits, progress, poll_s,
                          decoder.backend_name())


def _run_flowgraph(tb, counter, ebn0_db, max_errors, total_bits, progress, poll_s, backend):
    """Runs tb until it ends or `counter` has seen max_errors bit errors; a point."""
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
                   counter.frame_errors(), seconds, backend)
    if progress is not None:
        progress.finish(label, f"{result.bits:.3g} bits, {result.bit_errors} errors, "
                               f"BER {result.ber:.2e}, {format_rate(result.bits_per_second)}")
    return result


MODULATION_BITS = {"bpsk": 1, "qpsk": 2, "16qam": 4, "64qam": 6, "256qam": 8}


def parse_antennas(spec):
    """"4x4" -> (nt, nr) = (4, 4)."""
    try:
        nt, nr = (int(v) for v in spec.lower().split("x"))
    except ValueError:
        raise ValueError(f'--mimo takes NTxNR such as 4x4, got "{spec}"')
    return nt, nr


def run_mimo_point(ebn0_db, nt=4, nr=4, modulation="16qam", detector="mtt", code=None,
                   coherence=1, backend="auto", max_errors=100, max_bits=1e7, seed=0,
                   max_batch_frames=1024, progress=None, poll_s=0.05, decoder_options=None):
    """One Eb/N0 point of a MIMO link (Eb/N0 per information bit, counting the bits per
    symbol and the code rate):

        gpufec.mimo_channel_source --y, H--> gpufec.mimo_detector --LLRs-->
            uncoded: a slicer (LLR > 0 in GNU Radio's convention: bit 1)
            coded:   gpufec.<decoder of code> --bits--> gpufec.ber_counter

    against the source's bits (the transmitted ones, or the code's information bits).
    Returns a point."""
    from gnuradio import blocks, digital, gr, gpufec

    bits_per_vector = nt * MODULATION_BITS[modulation]
    source = gpufec.mimo_channel_source(nt, nr, modulation, float(ebn0_db), "ebn0",
                                        int(seed), coherence, backend, code)
    if code is None:
        frame_bits = bits_per_vector * coherence
        blocks_per_frame = 1
    else:
        frame_bits = code.frame_bits()
        blocks_per_frame = code.coded_bits() // (bits_per_vector * coherence)
    frames = max(1, int(math.ceil(float(max_bits) / frame_bits)))
    total_bits = frames * frame_bits
    det = gpufec.mimo_detector(nt, nr, modulation, detector, backend, coherence,
                               source.noise_var(), max_batch_frames=max_batch_frames)
    tb = gr.top_block("gpufec-ber mimo")
    head_y = blocks.head(gr.sizeof_gr_complex * nr, frames * blocks_per_frame * coherence)
    head_h = blocks.head(gr.sizeof_gr_complex * nr * nt, frames * blocks_per_frame)
    head_ref = blocks.head(gr.sizeof_char, total_bits)
    counter = gpufec.ber_counter(frame_bits)
    tb.connect((source, 0), head_y, (det, 0))
    tb.connect((source, 1), head_h, (det, 1))
    tb.connect((source, 2), head_ref, (counter, 1))
    to_stream = blocks.vector_to_stream(gr.sizeof_float, bits_per_vector)
    if code is None:
        tb.connect(det, to_stream, digital.binary_slicer_fb(), (counter, 0))
    else:
        decoder = make_decoder(code, "float", backend, 0, **(decoder_options or {}))
        tb.connect(det, to_stream, decoder, (counter, 0))
    return _run_flowgraph(tb, counter, ebn0_db, max_errors, total_bits, progress, poll_s,
                          det.backend_name())


def sweep(code, ebn0_values, stop_at_zero=False, mimo=None, **point_args):
    """run_point (or run_mimo_point with `mimo`, a dict of its arguments) for each
    Eb/N0; with stop_at_zero, stops after the first error-free point (higher Eb/N0
    would only spend --max-bits each to find no error either)."""
    points = []
    for ebn0 in ebn0_values:
        if mimo is not None:
            point_args.pop("input_type", None)
            p = run_mimo_point(ebn0, code=code, **mimo, **point_args)
        else:
            p = run_point(code, ebn0, **point_args)
        points.append(p)
        if stop_at_zero and p.bit_errors == 0:
            break
    return points


# ---------------------------------------------------------------------------------
# Command line


class _help_formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows defaults, except None (unset: the decoder's own default applies)."""

    def _get_help_string(self, action):
        if action.default is None:
            return action.help
        return super()._get_help_string(action)


def load_gnuradio(program, verbose=False):
    """Imports GNU Radio and gr-gpufec, or exits with what to do; silences GNU Radio's
    info-level log lines (backend choices, buffer sizes) unless `verbose`."""
    try:
        from gnuradio import gr, gpufec  # noqa: F401
    except ImportError as e:
        sys.exit(f"{program}: cannot import GNU Radio and gr-gpufec with {sys.executable}:"
                 f" {e}\n  Run it with /usr/bin/python3 (Debian's GNU Radio imports only "
                 "there). After ./scripts/demo.sh, `. build/install/gpufec-env.sh` sets "
                 "PYTHONPATH, LD_LIBRARY_PATH and PATH for an install in build/install.")
    if not verbose:
        gr.logging().set_default_level(gr.log_levels.warn)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="gpufec-ber", description=__doc__.split("\n\n")[0],
        formatter_class=_help_formatter)
    parser.add_argument("--ebn0", default="0:6:1",
                        help='Eb/N0 points in dB: "start:stop:step" or "1,2,3"')
    parser.add_argument("--code", default=None, choices=CODE_FAMILIES + ("none",),
                        help="code family (and with it the decoder)")
    parser.add_argument("--verbose", action="store_true",
                        help="keep GNU Radio's info-level log lines")
    conv = parser.add_argument_group("convolutional code (--code conv)")
    conv.add_argument("--frame-bits", type=int, default=2048,
                      help="information bits per frame")
    conv.add_argument("--k", type=int, default=7, help="constraint length 3..9")
    conv.add_argument("--polys", default=DEFAULT_POLYS,
                      help="octal generator polynomials, MSB taps the newest bit")
    conv.add_argument("--termination", default="terminated",
                      choices=["terminated", "truncated", "tail_biting"])
    conv.add_argument("--puncture", default="",
                      help='"", 2/3, 3/4, 5/6, 7/8 or a keep-mask such as 110110')
    mimo = parser.add_argument_group(
        "MIMO link (--mimo): gpufec.mimo_channel_source -> gpufec.mimo_detector -> the "
        "decoder of --code (default none: uncoded, the detector's hard decisions)")
    mimo.add_argument("--mimo", default=None, metavar="NTxNR",
                      help="transmit x receive antennas, e.g. 4x4")
    mimo.add_argument("--modulation", default="16qam", choices=sorted(MODULATION_BITS))
    mimo.add_argument("--detector", default="mtt", choices=["mtt", "lmmse", "kbest", "ml"])
    mimo.add_argument("--coherence", type=int, default=1,
                      help="received vectors per channel matrix")
    turbo = parser.add_argument_group("LTE turbo code (--code turbo)")
    turbo.add_argument("--turbo-k", type=int, default=6144,
                       help="code block size K, one of the 188 QPP sizes 40..6144")
    turbo.add_argument("--crc24b", action="store_true",
                       help="append CRC24B (K - 24 payload bits; early termination)")
    turbo.add_argument("--extrinsic-scale", type=float, default=None,
                       help="extrinsic scale of scaled-max-log-map, (0, 1] (decoder default 0.7)")
    turbo.add_argument("--sub-blocks", type=int, default=None,
                       help="windows decoded in parallel per block, 1..512 (default 1; "
                            "about K / 32 for the GPU's speed, at a BER cost: docs/turbo.md)")
    turbo.add_argument("--turbo-e", type=int, default=0,
                       help="rate matching to E transmitted bits (0: the 3K + 12 streams)")
    turbo.add_argument("--turbo-rv", type=int, default=0, choices=[0, 1, 2, 3],
                       help="redundancy version of the rate matching")
    turbo.add_argument("--schedule", default=None, choices=["synchronised", "loose"],
                       help="synchronised (default) or the GPU-only loose schedule")
    ldpc = parser.add_argument_group("5G NR LDPC code (--code ldpc) or alist (--code ldpc-alist)")
    ldpc.add_argument("--ldpc-bg", type=int, default=1, choices=[1, 2], help="base graph")
    ldpc.add_argument("--ldpc-z", type=int, default=384,
                      help="lifting size, one of the 51 NR sizes 2..384")
    ldpc.add_argument("--ldpc-k", type=int, default=0,
                      help="information bits, 0 = K_b * Z (fewer: filler bits)")
    ldpc.add_argument("--ldpc-e", type=int, default=0,
                      help="transmitted bits, 0 = the whole circular buffer (rate matching "
                           "from rv0 otherwise)")
    ldpc.add_argument("--alist", default=None, metavar="PATH",
                      help="alist file of the parity-check matrix (--code ldpc-alist)")
    ldpc.add_argument("--alpha", type=float, default=None,
                      help="normalized min-sum factor, (0, 1] (decoder default 0.75)")
    ldpc.add_argument("--beta", type=float, default=None,
                      help="offset min-sum offset in LLR units, >= 0 (decoder default 0.5)")
    dvbs2 = parser.add_argument_group("DVB-S2 LDPC code (--code dvbs2; decoded by the LDPC "
                                      "decoder: use --algorithm offset --beta 0.375 "
                                      "--iterations 50, docs/dvbs2.md)")
    dvbs2.add_argument("--dvbs2-frame", default="normal", choices=["normal", "short"])
    dvbs2.add_argument("--dvbs2-rate", default="1/2", help="e.g. 1/2, 3/4, 9/10")
    polar = parser.add_argument_group("5G NR polar code (--code polar)")
    polar.add_argument("--polar-k", type=int, default=512, help="payload bits before the CRC")
    polar.add_argument("--polar-e", type=int, default=1024, help="transmitted bits")
    polar.add_argument("--polar-crc", default="crc11",
                       choices=["crc11", "crc24c", "crc6", "none"],
                       help="CRC appended to the payload")
    polar.add_argument("--no-channel-interleave", action="store_true",
                       help="skip the channel interleaver of TS 38.212 5.4.1.3")
    polar.add_argument("--list-size", type=int, default=None,
                       help="CA-SCL list size 1..32 (decoder default 8)")
    dec = parser.add_argument_group("decoder (turbo, LDPC, polar; unset: decoder defaults)")
    dec.add_argument("--algorithm", default=None,
                     help="turbo: max-log-map | scaled-max-log-map; ldpc: normalized | "
                          "offset; polar: sc | fast-ssc | scl | fast-scl | sc-first-scl | "
                          "sc-first-fast-scl | bp")
    dec.add_argument("--iterations", type=int, default=None,
                     help="turbo iterations (default 6), LDPC max iterations (default 10), "
                          "polar BP max iterations (default 50)")
    dec.add_argument("--arithmetic", default=None,
                     help="turbo: int8 | int16 | float; ldpc: int8 | float")
    dec.add_argument("--no-early-termination", action="store_true",
                     help="always run every iteration (turbo CRC, LDPC parity, polar BP "
                          "G-matrix checks off)")
    parser.add_argument("--backend", default="auto", help="auto | cpu | cuda | cuda:N")
    parser.add_argument("--input", dest="input_type", default="float",
                        choices=["float", "byte"],
                        help="decoder input: float LLRs, or int8 (quantized x8 in the flowgraph)")
    parser.add_argument("--max-errors", type=int, default=200,
                        help="stop a point after this many bit errors")
    parser.add_argument("--max-bits", type=float, default=1e7,
                        help="stop a point after this many decoded bits")
    parser.add_argument("--seed", type=int, default=0, help="source seed")
    parser.add_argument("--batch-frames", type=int, default=0,
                        help="decoder max_batch_frames (0: the decoder's preferred batch, "
                             "e.g. whole rounds of the GPU LDPC kernel; 64 on the CPU)")
    parser.add_argument("--stop-at-zero", action="store_true",
                        help="end the sweep after the first point without errors")
    parser.add_argument("--out-dir", default=".", help="where the CSV and PNG go")
    parser.add_argument("--name", default="ber", help="file name stem of the CSV and PNG")
    parser.add_argument("--no-plot", action="store_true", help="write no PNG")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def code_family_of(args):
    """--code as given, else its default: "none" (uncoded) with --mimo, "conv" without."""
    if args.code is not None:
        return args.code
    return "none" if getattr(args, "mimo", None) else "conv"


def decoder_options_from_args(args):
    """The decoder keyword arguments the command line set, for args.code's decoder.
    Raises ValueError for an option that decoder does not take."""
    args.code = code_family_of(args)
    family = "ldpc" if args.code in ("ldpc-alist", "dvbs2") else args.code
    given = {"algorithm": args.algorithm, "arithmetic": args.arithmetic,
             "extrinsic_scale": args.extrinsic_scale, "sub_blocks": args.sub_blocks,
             "alpha": args.alpha, "beta": args.beta, "list_size": args.list_size,
             "schedule": args.schedule}
    # --iterations is BP's iteration limit for polar codes.
    given["bp_iterations" if family == "polar" else "iterations"] = args.iterations
    if args.no_early_termination:
        given["early_termination"] = False
    options = {k: v for k, v in given.items() if v is not None}
    allowed = DECODER_OPTIONS[family]
    flag = {"bp_iterations": "iterations", "early_termination": "no-early-termination"}
    bad = sorted("--" + flag.get(k, k).replace("_", "-") for k in options if k not in allowed)
    if bad:
        raise ValueError(f"{', '.join(bad)} do(es) not apply to --code {args.code}")
    return options


def code_from_args(args):
    """The code the command line describes (ValueError for bad parameters)."""
    args.code = code_family_of(args)
    if args.code == "conv":
        return make_code(args.frame_bits, args.k, parse_polys(args.polys), args.termination,
                         args.puncture)
    return make_block_code(args.code, turbo_k=args.turbo_k, crc24b=args.crc24b,
                           turbo_e=args.turbo_e, turbo_rv=args.turbo_rv,
                           ldpc_bg=args.ldpc_bg, ldpc_z=args.ldpc_z, ldpc_k=args.ldpc_k,
                           ldpc_e=args.ldpc_e, alist=args.alist, polar_k=args.polar_k,
                           polar_e=args.polar_e, polar_crc=args.polar_crc,
                           channel_interleave=not args.no_channel_interleave,
                           dvbs2_frame=args.dvbs2_frame, dvbs2_rate=args.dvbs2_rate)


def main(argv=None):
    args = build_parser().parse_args(argv)
    args.code = code_family_of(args)
    load_gnuradio("gpufec-ber", args.verbose)
    try:
        ebn0_values = parse_ebn0(args.ebn0)
        parse_polys(args.polys)
        if args.code == "none":
            if not args.mimo:
                raise ValueError("--code none (uncoded) needs --mimo")
            return mimo_main(args, ebn0_values, None, {})
        decoder_options = decoder_options_from_args(args)
    except ValueError as e:
        print(f"gpufec-ber: {e}", file=sys.stderr)
        return 2
    try:
        code = code_from_args(args)
        # Built once here so bad decoder options fail before the sweep starts.
        make_decoder(code, args.input_type, "cpu", 1, **decoder_options)
    except (ValueError, RuntimeError) as e:
        print(f"gpufec-ber: bad code or decoder: {e}", file=sys.stderr)
        return 2
    if args.mimo:
        return mimo_main(args, ebn0_values, code, decoder_options)
    os.makedirs(args.out_dir, exist_ok=True)
    decoder_text = describe_decoder(code.family(), decoder_options)
    title = f"{code.describe()}, {decoder_text}, backend {args.backend}"
    print(f"gpufec-ber: {title}; up to {args.max_errors} errors or {args.max_bits:.3g} bits "
          f"per point", flush=True)
    progress = progress_bar(enabled=not args.quiet)
    points = sweep(code, ebn0_values, stop_at_zero=args.stop_at_zero,
                   backend=args.backend, max_errors=args.max_errors, max_bits=args.max_bits,
                   seed=args.seed, input_type=args.input_type,
                   max_batch_frames=args.batch_frames, progress=progress,
                   decoder_options=decoder_options)
    if points:
        title = f"{code.describe()}, {decoder_text}, backend {points[0].backend}"
    print(format_table(points))
    csv_path = os.path.join(args.out_dir, args.name + ".csv")
    write_csv(csv_path, points)
    print(f"wrote {csv_path}")
    if not args.no_plot:
        png_path = os.path.join(args.out_dir, args.name + ".png")
        plot_curves(png_path, points, title)
        print(f"wrote {png_path}")
    return 0


def mimo_main(args, ebn0_values, code, decoder_options):
    """--mimo: the sweep of one detector, uncoded (code None) or with a code."""
    try:
        nt, nr = parse_antennas(args.mimo)
    except ValueError as e:
        print(f"gpufec-ber: {e}", file=sys.stderr)
        return 2
    mimo = {"nt": nt, "nr": nr, "modulation": args.modulation, "detector": args.detector,
            "coherence": args.coherence}
    link = f"{nt}x{nr} {args.modulation} Rayleigh, {args.detector} detector"
    coded = "uncoded" if code is None else (
        f"{code.describe()}, {describe_decoder(code.family(), decoder_options)}")
    title = f"{link}, {coded}"
    print(f"gpufec-ber: {title}; up to {args.max_errors} errors or {args.max_bits:.3g} bits "
          f"per point (Eb/N0 per information bit)", flush=True)
    os.makedirs(args.out_dir, exist_ok=True)
    try:
        points = sweep(code, ebn0_values, stop_at_zero=args.stop_at_zero, mimo=mimo,
                       backend=args.backend, max_errors=args.max_errors,
                       max_bits=args.max_bits, seed=args.seed,
                       max_batch_frames=max(args.batch_frames, 1024),
                       progress=progress_bar(enabled=not args.quiet),
                       decoder_options=decoder_options)
    except (ValueError, RuntimeError) as e:
        print(f"gpufec-ber: bad MIMO setup: {e}", file=sys.stderr)
        return 2
    print(format_table(points))
    csv_path = os.path.join(args.out_dir, args.name + ".csv")
    write_csv(csv_path, points)
    print(f"wrote {csv_path}")
    if not args.no_plot:
        png_path = os.path.join(args.out_dir, args.name + ".png")
        plot_curves(png_path, points, f"{title}, backend {points[0].backend}")
        print(f"wrote {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
