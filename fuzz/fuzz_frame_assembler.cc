/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// libFuzzer target: lib/blocks/frame_assembler driven like the batched decoder's
// general_work() over a fake tag store; the fuzz input decodes into a scenario (tags
// with any offsets, values and types, duplicates, item counts per work call and per
// advance() call, allow_direct per call). The properties and the reference model are
// in lib/blocks/tests/frame_assembler_model.h; a violation prints the scenario and
// aborts.

#include "frame_assembler_model.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>

namespace {

struct fdp_source {
    FuzzedDataProvider& fdp;
    uint64_t range(uint64_t lo, uint64_t hi)
    {
        return fdp.ConsumeIntegralInRange<uint64_t>(lo, hi);
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    FuzzedDataProvider fdp(data, size);
    fdp_source src{ fdp };
    const auto s = gr::gpufec::testing::make_scenario(src, 512);
    const auto r = gr::gpufec::testing::run_scenario(s);
    if (!r.error.empty()) {
        std::fprintf(stderr, "fuzz_frame_assembler: %s\n", r.error.c_str());
        std::abort();
    }
    return 0;
}
