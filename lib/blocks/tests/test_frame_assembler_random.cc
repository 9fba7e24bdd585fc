/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Randomized property test of frame_assembler (fixed seeds, deterministic): thousands
// of scenarios drawn by make_scenario() run through the block-like driver and are
// checked against the reference model (frame_assembler_model.h): every call returns
// and makes progress, every well-formed frame comes out once, in order, with its data
// and its own tags, malformed length tags are counted in dropped(), emit_frame_tags()
// keeps tags inside their output frame. Also a few hand-written scenarios.
#include "frame_assembler_model.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>

using namespace gr::gpufec::testing;

namespace {

struct rng_source {
    std::mt19937_64 rng;
    uint64_t range(uint64_t lo, uint64_t hi)
    {
        if (lo >= hi)
            return lo;
        if (lo == 0 && hi == ~uint64_t(0))
            return rng();
        return lo + rng() % (hi - lo + 1);
    }
};

run_options options() { return run_options(); }

struct totals {
    size_t runs = 0, empty_frames = 0, frames = 0, calls = 0;
};

// Runs `count` scenarios of one seed; stops at the first failure (printing it).
totals run_seed(uint64_t seed, size_t count, uint64_t max_items)
{
    totals t;
    rng_source src{ std::mt19937_64(seed) };
    for (size_t i = 0; i < count; i++) {
        const scenario s = make_scenario(src, max_items);
        const run_result r = run_scenario(s, options());
        t.runs++;
        for (const expected_frame& f : model(s).frames)
            t.empty_frames += f.items == 0;
        t.frames += r.frames;
        t.calls += r.advance_calls;
        if (!r.error.empty()) {
            ADD_FAILURE() << "seed " << seed << " scenario " << i << ": " << r.error;
            break;
        }
    }
    return t;
}

scenario
tagged_stream(std::vector<tag_spec> tags, uint64_t items, uint64_t max_items = 16)
{
    scenario s;
    s.tagged = true;
    s.max_items = max_items;
    s.fixed_items = 4;
    s.total_items = items;
    s.tags = std::move(tags);
    return s;
}

tag_spec len(uint64_t offset, int64_t value, value_kind kind = value_kind::long_int)
{
    tag_spec t;
    t.offset = offset;
    t.length = true;
    t.kind = kind;
    t.value = value;
    return t;
}

tag_spec other(uint64_t offset, uint8_t key = 0)
{
    tag_spec t;
    t.offset = offset;
    t.other_key = key;
    t.value = static_cast<int64_t>(offset);
    return t;
}

} // namespace

TEST(FrameAssemblerRandom, SmallStreamsManySeeds)
{
    const auto t0 = std::chrono::steady_clock::now();
    totals all;
    for (uint64_t seed = 1; seed <= 40 && !HasFailure(); seed++) {
        const totals t = run_seed(seed, 1000, 256);
        all.runs += t.runs;
        all.empty_frames += t.empty_frames;
        all.frames += t.frames;
        all.calls += t.calls;
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%zu scenarios, %zu frames (%zu empty), %zu advance() calls in %.2f s\n",
                all.runs,
                all.frames,
                all.empty_frames,
                all.calls,
                s);
    EXPECT_GT(all.frames, all.runs); // the scenarios do produce frames
    EXPECT_GT(all.empty_frames, 0u); // length-0 tags are reached
}

TEST(FrameAssemblerRandom, LongStreams)
{
    for (uint64_t seed = 1000; seed < 1010 && !HasFailure(); seed++)
        run_seed(seed, 100, 4096);
}

TEST(FrameAssemblerRandom, HandWritten)
{
    // Back-to-back frames with tags of their own, offered a few items at a time.
    scenario a = tagged_stream(
        { len(0, 5), other(0), other(4), len(5, 3), other(6, 1), other(7, 2), len(8, 4) },
        12);
    a.produce = { 2, 3, 1, 6 };
    a.limits = { 1, 2, 0 };
    a.direct = { 1, 0 };
    EXPECT_EQ(run_scenario(a, options()).error, "");
    // Malformed lengths: negative, a double, too long, uint64 above INT64_MAX.
    scenario b = tagged_stream({ len(0, -2),
                                 len(1, 7, value_kind::real),
                                 len(2, 40),
                                 len(42, -1, value_kind::uint64),
                                 len(43, 2, value_kind::uint64),
                                 other(44) },
                               45);
    EXPECT_EQ(run_scenario(b, options()).error, "");
    EXPECT_EQ(model(b).dropped, 4u);
    EXPECT_EQ(model(b).frames.size(), 1u);
    // Two length tags at one item: each starts a frame, so the first (in the store's
    // order) is cut at once, the second by the tag at item 3.
    scenario c = tagged_stream({ len(0, 3), len(0, 6), other(2), len(3, 2) }, 5);
    EXPECT_EQ(run_scenario(c, options()).error, "");
    EXPECT_EQ(model(c).frames.size(), 1u);
    EXPECT_EQ(model(c).dropped, 2u);
    // Untagged, whole-frame runs.
    scenario d;
    d.tagged = false;
    d.fixed_items = d.max_items = 4;
    d.total_items = 18;
    d.use_whole = true;
    d.tags = { other(0), other(3), other(4), len(9, 1), other(17) };
    d.produce = { 9, 0, 9 };
    EXPECT_EQ(run_scenario(d, options()).error, "");
    EXPECT_EQ(model(d).partial, 2u);
}

TEST(FrameAssemblerRandom, EmptyFramesAndCutFrames)
{
    // A length-0 tag gives an empty frame; the next tag at the same item starts the
    // next frame.
    scenario z = tagged_stream({ len(0, 2), len(2, 0), len(2, 3), other(3) }, 5);
    z.produce = { 2, 0, 3 };
    EXPECT_EQ(run_scenario(z, options()).error, "");
    const model_result mz = model(z);
    ASSERT_EQ(mz.frames.size(), 3u);
    EXPECT_EQ(mz.frames[1].items, 0u);
    EXPECT_EQ(mz.dropped, 0u);
    // A frame cut by the next length tag is dropped; that tag starts the next frame;
    // a frame longer than the rest of the stream is the incomplete last frame.
    scenario c =
        tagged_stream({ len(0, 6), other(1), len(4, 3), other(5), len(7, 9) }, 10);
    c.limits = { 3 };
    EXPECT_EQ(run_scenario(c, options()).error, "");
    const model_result mc = model(c);
    ASSERT_EQ(mc.frames.size(), 1u);
    EXPECT_EQ(mc.frames[0].first, 4u);
    EXPECT_EQ(mc.dropped, 1u);
    EXPECT_EQ(mc.partial, 3u);
}
