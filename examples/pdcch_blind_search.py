#!/usr/bin/env python3
# Copyright 2026 gr-gpufec developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""The 5G NR PDCCH blind search with gr-gpufec.

A UE does not know where its DCIs are: it decodes every PDCCH candidate of its search
spaces (aggregation levels L = 1..16, e = 108 L coded bits each) and checks each CRC
against its RNTIs. This script makes such a set of candidates: per aggregation level,
one carries a DCI for us (under one of our RNTIs), one a DCI for another UE and the rest
only noise. It sends them as PDUs through gpufec.dci_search_decoder_pdu (one decode per
candidate, every RNTI checked at once; on the GPU, one launch for the whole batch) and
reports what was found.

    /usr/bin/python3 pdcch_blind_search.py --ebn0-db 2 --backend auto
"""

import argparse
import time

import numpy as np
import pmt
from gnuradio import blocks, gpufec, gr


class pdu_source(gr.basic_block):
    """Publishes a list of PDUs on port "out" once the flowgraph starts."""

    def __init__(self, pdus):
        gr.basic_block.__init__(self, name="pdu_source", in_sig=None, out_sig=None)
        self.message_port_register_out(pmt.intern("out"))
        self.pdus = pdus

    def start(self):
        for pdu in self.pdus:
            self.message_port_pub(pmt.intern("out"), pdu)
        return True


def candidate_llrs(rng, k, level, rnti, ebn0_db):
    """Soft bits (GNU Radio convention: positive means 1) of one candidate: a random
    DCI under `rnti` over BPSK/AWGN at ebn0_db per payload bit, or noise alone when rnti
    is None."""
    e = 108 * level
    sigma = np.sqrt(1.0 / (2.0 * (k / e) * 10 ** (ebn0_db / 10)))
    if rnti is None:
        y = sigma * rng.standard_normal(e)
        return y * 2 / sigma ** 2, None
    code = gpufec.nr_polar_code(k, e, chain="dci", rnti=rnti)
    payload = rng.integers(0, 2, k).astype(np.uint8)
    coded = np.array(code.encode(payload.tolist()), dtype=np.float64)
    y = (2 * coded - 1) + sigma * rng.standard_normal(e)
    return y * 2 / sigma ** 2, payload


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--k", type=int, default=40, help="DCI payload bits (12..140)")
    p.add_argument("--rntis", default="0x4601,0x4602,0xffff",
                   help="our RNTIs (C-RNTI, SI-RNTI, ...), comma separated")
    p.add_argument("--other-rnti", type=lambda s: int(s, 0), default=0x1234,
                   help="the RNTI of another UE's DCIs")
    p.add_argument("--levels", default="1,2,4,8,16", help="aggregation levels searched")
    p.add_argument("--candidates", type=int, default=6,
                   help="candidates per aggregation level (2 carry a DCI)")
    p.add_argument("--ebn0-db", type=float, default=2.0, help="Eb/N0 per payload bit")
    p.add_argument("--list-size", type=int, default=8)
    p.add_argument("--backend", default="auto", help="auto | cpu | cuda | cuda:N")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--check", action="store_true",
                   help="exit 1 unless every DCI for us is found and nothing else")
    args = p.parse_args()

    rntis = [int(r, 0) for r in args.rntis.split(",")]
    levels = [int(x) for x in args.levels.split(",")]
    rng = np.random.default_rng(args.seed)
    pdus, truth = [], []
    for li, level in enumerate(levels):
        for c in range(args.candidates):
            rnti = rntis[li % len(rntis)] if c == 0 else args.other_rnti if c == 1 else None
            llrs, payload = candidate_llrs(rng, args.k, level, rnti, args.ebn0_db)
            meta = pmt.dict_add(pmt.make_dict(), pmt.intern("aggregation_level"),
                                pmt.from_long(level))
            pdus.append(pmt.cons(meta, pmt.init_f32vector(len(llrs), llrs.tolist())))
            truth.append((level, rnti, payload))

    dec = gpufec.dci_search_decoder_pdu(args.k, rntis, aggregation_levels=levels,
                                        list_size=args.list_size, backend=args.backend,
                                        max_batch_frames=len(pdus))
    src = pdu_source(pdus)
    sink = blocks.message_debug()
    tb = gr.top_block()
    tb.msg_connect((src, "out"), (dec, "in"))
    tb.msg_connect((dec, "out"), (sink, "store"))
    start = time.time()
    tb.start()
    while sink.num_messages() < len(pdus) and time.time() - start < 60:
        time.sleep(0.01)
    tb.stop()
    tb.wait()

    print(f"blind search on {dec.backend_name()}: {len(pdus)} candidates, k = {args.k}, "
          f"RNTIs {', '.join(hex(r) for r in rntis)}, Eb/N0 {args.ebn0_db} dB")
    found = missed = false_alarms = 0
    for i in range(sink.num_messages()):
        msg = sink.get_message(i)
        meta = pmt.car(msg)
        ok = pmt.to_bool(pmt.dict_ref(meta, pmt.intern("crc_ok"), pmt.PMT_F))
        rnti = pmt.to_long(pmt.dict_ref(meta, pmt.intern("rnti"), pmt.from_long(-1)))
        bits = np.array(pmt.u8vector_elements(pmt.cdr(msg)), dtype=np.uint8)
        level, sent, payload = truth[i]
        ours = sent in rntis
        if ok and ours and rnti == sent and np.array_equal(bits, payload):
            found += 1
            print(f"  AL {level:2d}: DCI for RNTI {hex(rnti)}: {''.join(map(str, bits))}")
        elif ours:
            missed += 1
            print(f"  AL {level:2d}: missed the DCI for RNTI {hex(sent)}")
        elif ok:
            false_alarms += 1
            print(f"  AL {level:2d}: false alarm, RNTI {hex(rnti)}")
    print(f"found {found}, missed {missed}, false alarms {false_alarms} "
          f"({sink.num_messages()} of {len(pdus)} candidates decoded)")
    complete = sink.num_messages() == len(pdus)
    if args.check:
        return 0 if complete and missed == 0 and false_alarms == 0 else 1
    return 0 if complete else 1


if __name__ == "__main__":
    raise SystemExit(main())
