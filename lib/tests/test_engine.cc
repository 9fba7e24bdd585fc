/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The batching engine over the CPU slot backend, driven by fake decoders whose output
// is known exactly: ordering, completeness, partial launches, flush, quantization,
// errors and the absence of allocations in steady state.
#include "test_helpers.h"
#include <condition_variable>
#include <gpufec/engine.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

// Counts every heap allocation of the process, to check the steady state allocates
// nothing.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete" // the malloc/free pairs below
#endif
static std::atomic<long> g_allocations{ 0 };

void* operator new(std::size_t n)
{
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace gpufec {
namespace {

//! A frame starting with this LLR makes the fake decoder throw.
constexpr llr8_t poison_llr = -128;

/*!
 * A CPU "decoder" with exactly known output. hard_decision: one bit per LLR (1 when the
 * LLR is negative), so frames of any length share a batch and bit counts are not
 * multiples of 8. echo: the int8 LLRs themselves as output bytes (checks quantization).
 * Each frame's status.iterations = 1 + in_items % 7, so statuses can be matched too.
 */
class fake_decoder : public batch_decoder
{
public:
    enum class mode { hard_decision, echo };

    explicit fake_decoder(mode m = mode::hard_decision, size_t max_items = 200)
        : d_mode(m), d_max_items(max_items)
    {
    }

    //! Random sleeps in decode() and in frame bodies, to shuffle completion timing.
    void set_stalls(double probability, int max_us, uint32_t seed)
    {
        d_stall_probability = probability;
        d_max_stall_us = max_us;
        d_seed = seed;
    }
    //! Frame bodies call parallel_for again (from pool threads).
    void set_nested(bool nested) { d_nested = nested; }
    //! While closed, decode() blocks: batches stay in flight until the test opens it.
    void close_gate()
    {
        std::lock_guard<std::mutex> lock(d_gate_mutex);
        d_gate_open = false;
    }
    void open_gate()
    {
        {
            std::lock_guard<std::mutex> lock(d_gate_mutex);
            d_gate_open = true;
        }
        d_gate_cv.notify_all();
    }

    size_t batches() const { return d_batches.load(); }
    size_t largest_batch() const { return d_largest_batch.load(); }

    backend_kind backend() const override { return backend_kind::cpu; }
    size_t max_input_items_per_frame() const override { return d_max_items; }
    size_t output_bits_for_input(size_t items) const override
    {
        if (items == 0 || items > d_max_items)
            throw error("fake decoder: frames must have 1.." +
                        std::to_string(d_max_items) + " LLRs, got " +
                        std::to_string(items));
        return d_mode == mode::echo ? 8 * items : items;
    }
    size_t default_input_items() const override { return d_max_items; }
    size_t default_output_bits() const override
    {
        return output_bits_for_input(d_max_items);
    }
    std::string name() const override { return "fake decoder"; }
    bool has_soft_output() const override { return d_mode == mode::hard_decision; }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        {
            std::unique_lock<std::mutex> lock(d_gate_mutex);
            d_gate_cv.wait(lock, [this] { return d_gate_open; });
        }
        const size_t batch_index = d_batches.fetch_add(1);
        size_t largest = d_largest_batch.load();
        while (batch.num_frames > largest &&
               !d_largest_batch.compare_exchange_weak(largest, batch.num_frames)) {
        }
        maybe_stall(batch_index * 7919 + 1);
        // Two pointers at most: std::function keeps such a lambda without allocating.
        const frame_batch* b = &batch;
        fake_decoder* self = this;
        ctx.parallel_for(batch.num_frames,
                         [self, b](size_t i, size_t) { self->decode_frame(*b, i); });
        if (d_nested) {
            // Outer bodies run on pool threads and call parallel_for again.
            exec_ctx* c = &ctx;
            ctx.parallel_for(4, [c, b](size_t, size_t) {
                c->parallel_for(b->num_frames, [](size_t, size_t) {});
            });
        }
    }

private:
    void maybe_stall(uint64_t key) const
    {
        if (d_max_stall_us <= 0)
            return;
        std::minstd_rand rng(uint32_t(key * 2654435761u) ^ d_seed);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        if (u(rng) < d_stall_probability)
            std::this_thread::sleep_for(
                std::chrono::microseconds(int(u(rng) * d_max_stall_us)));
    }

    void decode_frame(const frame_batch& batch, size_t i) const
    {
        const frame_extent& f = batch.frames[i];
        const llr8_t* in = batch.in + f.in_offset;
        uint8_t* out = batch.out + f.out_offset;
        if (in[0] == poison_llr)
            throw error("fake decoder: poisoned frame");
        maybe_stall(f.in_offset * 31 + i);
        if (d_mode == mode::echo) {
            for (size_t k = 0; k < f.in_items; ++k)
                out[k] = uint8_t(in[k]);
        } else {
            std::fill(out, out + (f.out_bits + 7) / 8, uint8_t(0));
            for (size_t k = 0; k < f.in_items; ++k)
                if (in[k] < 0)
                    out[k / 8] |= uint8_t(0x80u >> (k % 8));
            if (batch.soft_out)
                for (size_t k = 0; k < f.in_items; ++k)
                    batch.soft_out[8 * f.out_offset + k] = 0.5f * float(in[k]);
        }
        batch.status[i].iterations = int32_t(1 + f.in_items % 7);
        batch.status[i].ok = true;
    }

    mode d_mode;
    size_t d_max_items;
    double d_stall_probability = 0.0;
    int d_max_stall_us = 0;
    uint32_t d_seed = 0;
    bool d_nested = false;
    std::mutex d_gate_mutex;
    std::condition_variable d_gate_cv;
    bool d_gate_open = true;
    std::atomic<size_t> d_batches{ 0 };
    std::atomic<size_t> d_largest_batch{ 0 };
};

//! Reference hard decisions, written independently of the decoder's packing loop.
std::vector<uint8_t> expected_hard_bits(const std::vector<llr8_t>& llrs)
{
    std::vector<uint8_t> bits(llrs.size());
    for (size_t k = 0; k < llrs.size(); ++k)
        bits[k] = llrs[k] < 0 ? 1 : 0;
    return bits;
}

std::vector<uint8_t> unpack_msb_first(const uint8_t* packed, size_t nbits)
{
    std::vector<uint8_t> bits(nbits);
    for (size_t k = 0; k < nbits; ++k)
        bits[k] = (packed[k / 8] >> (7 - k % 8)) & 1;
    return bits;
}

std::vector<llr8_t> random_llrs(std::mt19937& rng, size_t n)
{
    std::uniform_int_distribution<int> value(-127, 127);
    std::vector<llr8_t> llrs(n);
    for (llr8_t& l : llrs)
        l = llr8_t(value(rng));
    return llrs;
}

//! Checks a popped frame against what was submitted under that id.
void expect_frame(const completed_frame& frame, const std::vector<llr8_t>& llrs)
{
    ASSERT_EQ(frame.nbits, llrs.size());
    EXPECT_EQ(unpack_msb_first(frame.packed, frame.nbits), expected_hard_bits(llrs))
        << "frame id " << frame.id;
    EXPECT_EQ(frame.status.iterations, int32_t(1 + llrs.size() % 7));
}

engine_config
small_config(size_t frames, size_t items = 0, int slots = 3, int threads = 2)
{
    engine_config config;
    config.max_batch_frames = frames;
    config.max_batch_items = items;
    config.num_slots = slots;
    config.cpu_threads = threads;
    return config;
}

// Random submission bursts, frame lengths, launches, stalls and pop patterns: every
// frame comes back exactly once, in submission order, with its own bits and status.
TEST(Engine, RandomTrafficKeepsEveryFrameInOrder)
{
    for (uint32_t seed = 1; seed <= 12; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937 rng(seed);
        auto pick = [&](int lo, int hi) {
            return std::uniform_int_distribution<int>(lo, hi)(rng);
        };

        const size_t max_frame = 200;
        auto decoder =
            std::make_shared<fake_decoder>(fake_decoder::mode::hard_decision, max_frame);
        decoder->set_stalls(0.3, 1500, seed);
        const size_t batch_items = pick(0, 1) ? 0 : size_t(pick(200, 900));
        batch_engine engine(
            decoder,
            small_config(size_t(pick(1, 16)), batch_items, pick(2, 4), pick(1, 4)));

        const uint64_t total = 500;
        std::vector<std::vector<llr8_t>> sent;
        uint64_t next_expected = 0;
        std::vector<float> as_float;

        auto check_pop = [&](const completed_frame& frame) {
            ASSERT_LT(next_expected, sent.size());
            ASSERT_EQ(frame.id, next_expected) << "frames reordered, lost or duplicated";
            expect_frame(frame, sent[next_expected]);
            ++next_expected;
        };
        auto submit_one = [&]() {
            const uint64_t id = sent.size();
            std::vector<llr8_t> llrs = random_llrs(rng, size_t(pick(1, int(max_frame))));
            bool can = engine.can_submit(llrs.size());
            bool taken;
            if (pick(0, 1)) {
                // k/8 is exact in float, so quantizing with scale 8 gives k back.
                as_float.resize(llrs.size());
                for (size_t k = 0; k < llrs.size(); ++k)
                    as_float[k] = float(llrs[k]) / 8.0f;
                taken = engine.submit(as_float.data(), as_float.size(), id);
            } else {
                taken = engine.submit(llrs.data(), llrs.size(), id);
            }
            ASSERT_EQ(can, taken) << "can_submit disagrees with submit";
            while (!taken) {
                completed_frame frame;
                ASSERT_TRUE(engine.pop_wait(frame)) << "ring full but nothing to pop";
                check_pop(frame);
                taken = engine.submit(llrs.data(), llrs.size(), id);
            }
            sent.push_back(std::move(llrs));
        };

        while (sent.size() < total) {
            const int action = pick(0, 9);
            completed_frame frame;
            if (action <= 4) {
                for (int n = pick(1, 30); n > 0 && sent.size() < total; --n)
                    submit_one();
            } else if (action == 5) {
                engine.launch();
                EXPECT_EQ(engine.frames_in_filling(), 0u);
            } else if (action == 6 || action == 7) {
                for (int n = pick(1, 20); n > 0 && engine.try_pop(frame); --n)
                    check_pop(frame);
            } else if (action == 8) {
                for (int n = pick(1, 20); n > 0 && engine.pop_wait(frame); --n)
                    check_pop(frame);
            }
            if (::testing::Test::HasFatalFailure())
                return;
            ASSERT_EQ(engine.frames_pending(), sent.size() - next_expected);
        }

        engine.flush();
        EXPECT_EQ(engine.frames_in_filling(), 0u);
        ASSERT_EQ(engine.frames_pending(), total - next_expected);
        completed_frame frame;
        while (engine.try_pop(frame)) // flush() finished everything: no waiting needed
            check_pop(frame);
        EXPECT_EQ(next_expected, total);
        EXPECT_EQ(engine.frames_pending(), 0u);
        EXPECT_FALSE(engine.pop_wait(frame));
        EXPECT_FALSE(engine.try_pop(frame));
    }
}

TEST(Engine, PartialBatchWaitsForLaunch)
{
    auto decoder = std::make_shared<fake_decoder>();
    batch_engine engine(decoder, small_config(100));
    std::mt19937 rng(7);
    std::vector<std::vector<llr8_t>> sent;
    for (uint64_t id = 0; id < 3; ++id) {
        sent.push_back(random_llrs(rng, 50 + id));
        ASSERT_TRUE(engine.submit(sent.back().data(), sent.back().size(), id));
    }
    EXPECT_EQ(engine.frames_in_filling(), 3u);
    completed_frame frame;
    EXPECT_FALSE(engine.try_pop(frame)) << "a partial slot must not run before launch()";
    EXPECT_EQ(decoder->batches(), 0u);

    engine.launch();
    EXPECT_EQ(engine.frames_in_filling(), 0u);
    EXPECT_EQ(engine.frames_pending(), 3u);
    for (uint64_t id = 0; id < 3; ++id) {
        while (!engine.try_pop(frame))
            std::this_thread::yield();
        EXPECT_EQ(frame.id, id);
        expect_frame(frame, sent[id]);
    }
    EXPECT_EQ(decoder->batches(), 1u);
    EXPECT_EQ(decoder->largest_batch(), 3u);
    EXPECT_EQ(engine.frames_pending(), 0u);
}

TEST(Engine, PopWaitLaunchesTheFillingSlot)
{
    auto decoder = std::make_shared<fake_decoder>();
    batch_engine engine(decoder, small_config(100));
    std::mt19937 rng(8);
    auto a = random_llrs(rng, 17), b = random_llrs(rng, 33);
    ASSERT_TRUE(engine.submit(a.data(), a.size(), 10));
    ASSERT_TRUE(engine.submit(b.data(), b.size(), 11));
    completed_frame frame;
    ASSERT_TRUE(engine.pop_wait(frame));
    EXPECT_EQ(frame.id, 10u);
    expect_frame(frame, a);
    ASSERT_TRUE(engine.pop_wait(frame));
    EXPECT_EQ(frame.id, 11u);
    expect_frame(frame, b);
    EXPECT_FALSE(engine.pop_wait(frame));
    EXPECT_EQ(decoder->batches(), 1u);
}

TEST(Engine, SlotLaunchesWhenFramesOrItemsAreFull)
{
    auto decoder = std::make_shared<fake_decoder>();
    decoder->close_gate(); // keep launched slots in flight: counts stay deterministic
    batch_engine engine(decoder, small_config(4, 100, 3));
    std::vector<llr8_t> llrs(60, 5);

    ASSERT_TRUE(engine.submit(llrs.data(), 40, 0));
    ASSERT_TRUE(engine.submit(llrs.data(), 40, 1));
    EXPECT_EQ(engine.frames_in_filling(), 2u);
    // 80 + 40 > 100 items: the first slot launches, the frame opens the next one.
    ASSERT_TRUE(engine.submit(llrs.data(), 40, 2));
    EXPECT_EQ(engine.frames_in_filling(), 1u);
    // 40 + 60 == 100 items exactly: launched at once, nothing more can join.
    ASSERT_TRUE(engine.submit(llrs.data(), 60, 3));
    EXPECT_EQ(engine.frames_in_filling(), 0u);
    // Four short frames reach max_batch_frames.
    for (uint64_t id = 4; id < 7; ++id)
        ASSERT_TRUE(engine.submit(llrs.data(), 1, id));
    EXPECT_EQ(engine.frames_in_filling(), 3u);
    ASSERT_TRUE(engine.submit(llrs.data(), 1, 7));
    EXPECT_EQ(engine.frames_in_filling(), 0u);
    EXPECT_EQ(engine.frames_pending(), 8u);

    // All three slots are in flight: nothing more is taken, and nothing is lost.
    EXPECT_FALSE(engine.can_submit(1));
    EXPECT_FALSE(engine.submit(llrs.data(), 1, 8));
    EXPECT_EQ(engine.frames_pending(), 8u);

    decoder->open_gate();
    completed_frame frame;
    ASSERT_TRUE(engine.pop_wait(frame));
    EXPECT_EQ(frame.id, 0u);
    ASSERT_TRUE(engine.pop_wait(frame));
    EXPECT_EQ(frame.id, 1u); // the first slot is drained and free again
    EXPECT_TRUE(engine.can_submit(1));
    ASSERT_TRUE(engine.submit(llrs.data(), 1, 8));
    for (uint64_t id = 2; id <= 8; ++id) {
        ASSERT_TRUE(engine.pop_wait(frame));
        EXPECT_EQ(frame.id, id);
    }
    EXPECT_EQ(decoder->batches(), 4u);
}

TEST(Engine, FlushDrainsEverything)
{
    auto decoder = std::make_shared<fake_decoder>();
    decoder->set_stalls(0.5, 2000, 3);
    batch_engine engine(decoder, small_config(5, 0, 4, 3));
    std::mt19937 rng(9);
    std::vector<std::vector<llr8_t>> sent;
    // Fill every slot, the last one partially.
    for (;;) {
        auto llrs = random_llrs(rng, size_t(1 + rng() % 200));
        if (!engine.submit(llrs.data(), llrs.size(), sent.size()))
            break;
        sent.push_back(std::move(llrs));
        if (sent.size() == 18)
            break; // 3 full slots of 5 + 3 frames filling
    }
    ASSERT_EQ(sent.size(), 18u);
    EXPECT_EQ(engine.frames_in_filling(), 3u);
    engine.flush();
    EXPECT_EQ(engine.frames_in_filling(), 0u);
    EXPECT_EQ(engine.frames_pending(), 18u);
    completed_frame frame;
    for (uint64_t id = 0; id < sent.size(); ++id) {
        ASSERT_TRUE(engine.try_pop(frame))
            << "flush() left frame " << id << " unfinished";
        EXPECT_EQ(frame.id, id);
        expect_frame(frame, sent[id]);
    }
    EXPECT_FALSE(engine.try_pop(frame));
    EXPECT_EQ(engine.frames_pending(), 0u);
    engine.flush(); // nothing pending: returns at once
}

TEST(Engine, FloatAndInt8InputGiveIdenticalResults)
{
    const float scale = 5.5f;
    engine_config config = small_config(8);
    config.llr_scale = scale;
    batch_engine from_float(std::make_shared<fake_decoder>(fake_decoder::mode::echo),
                            config);
    batch_engine from_int8(std::make_shared<fake_decoder>(fake_decoder::mode::echo),
                           config);

    std::mt19937 rng(11);
    std::normal_distribution<float> llr(0.0f, 12.0f); // many values saturate at +/-127
    std::vector<std::vector<llr8_t>> expected;
    for (uint64_t id = 0; id < 40; ++id) {
        std::vector<float> f(1 + rng() % 200);
        for (float& v : f)
            v = llr(rng);
        // Independent quantizer: round half away from zero, saturate at +/-127.
        std::vector<llr8_t> q(f.size());
        for (size_t k = 0; k < f.size(); ++k)
            q[k] = llr8_t(std::max(-127.0f, std::min(127.0f, std::round(f[k] * scale))));
        ASSERT_TRUE(from_float.submit(f.data(), f.size(), id));
        ASSERT_TRUE(from_int8.submit(q.data(), q.size(), id));
        expected.push_back(std::move(q));
        completed_frame a, b;
        while (from_float.frames_pending() > 16 && from_float.pop_wait(a)) {
            ASSERT_TRUE(from_int8.pop_wait(b));
            ASSERT_EQ(a.id, b.id);
            ASSERT_EQ(a.nbits, 8 * expected[a.id].size());
            EXPECT_EQ(
                0, std::memcmp(a.packed, expected[a.id].data(), expected[a.id].size()));
            EXPECT_EQ(
                0, std::memcmp(b.packed, expected[b.id].data(), expected[b.id].size()));
        }
    }
    from_float.flush();
    from_int8.flush();
    completed_frame a, b;
    size_t compared = 0;
    while (from_float.try_pop(a)) {
        ASSERT_TRUE(from_int8.try_pop(b));
        ASSERT_EQ(a.id, b.id);
        EXPECT_EQ(0, std::memcmp(a.packed, expected[a.id].data(), expected[a.id].size()));
        EXPECT_EQ(0, std::memcmp(b.packed, expected[b.id].data(), expected[b.id].size()));
        ++compared;
    }
    EXPECT_GT(compared, 0u);
    EXPECT_FALSE(from_int8.try_pop(b));
}

TEST(Engine, FrameLongerThanTheMaximumThrowsNamingIt)
{
    batch_engine engine(
        std::make_shared<fake_decoder>(fake_decoder::mode::hard_decision, 1000),
        small_config(4));
    std::vector<llr8_t> llrs(2000, 1);
    try {
        engine.submit(llrs.data(), 1001, 0);
        FAIL() << "no exception for a frame of 1001 LLRs";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("1000"), std::string::npos) << e.what();
    }
    EXPECT_EQ(engine.frames_pending(), 0u);
    // The decoder's own length check reaches the caller too.
    EXPECT_THROW(engine.submit(llrs.data(), 0, 0), error);
    EXPECT_TRUE(engine.submit(llrs.data(), 1000, 1));

    // A slot smaller than the decoder's maximum bounds the frame length.
    batch_engine bounded(
        std::make_shared<fake_decoder>(fake_decoder::mode::hard_decision, 1000),
        small_config(4, 300));
    try {
        bounded.submit(llrs.data(), 301, 0);
        FAIL() << "no exception for a frame longer than max_batch_items";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("300"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(bounded.submit(llrs.data(), 300, 1));
}

TEST(Engine, DecoderErrorsReachTheCaller)
{
    // Slots of two frames; the second slot holds a poisoned frame.
    auto decoder = std::make_shared<fake_decoder>();
    batch_engine engine(decoder, small_config(2, 0, 4, 3));
    std::mt19937 rng(12);
    std::vector<std::vector<llr8_t>> sent;
    for (uint64_t id = 0; id < 6; ++id) {
        sent.push_back(random_llrs(rng, 20));
        if (id == 3)
            sent.back()[0] = poison_llr;
        ASSERT_TRUE(engine.submit(sent.back().data(), sent.back().size(), id));
    }
    completed_frame frame;
    for (uint64_t id = 0; id < 2; ++id) {
        ASSERT_TRUE(engine.pop_wait(frame));
        EXPECT_EQ(frame.id, id);
        expect_frame(frame, sent[id]);
    }
    try {
        engine.pop_wait(frame);
        FAIL() << "the failed batch was not reported";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("poisoned"), std::string::npos) << e.what();
    }
    // The failed batch's frames are gone; later batches are intact and in order.
    EXPECT_EQ(engine.frames_pending(), 2u);
    for (uint64_t id = 4; id < 6; ++id) {
        ASSERT_TRUE(engine.pop_wait(frame));
        EXPECT_EQ(frame.id, id);
        expect_frame(frame, sent[id]);
    }
    EXPECT_FALSE(engine.pop_wait(frame));

    // The same through flush() and through try_pop().
    for (int path = 0; path < 2; ++path) {
        SCOPED_TRACE(path == 0 ? "flush" : "try_pop");
        std::vector<llr8_t> bad(10, 1);
        bad[0] = poison_llr;
        ASSERT_TRUE(engine.submit(bad.data(), bad.size(), 100));
        bool thrown = false;
        try {
            if (path == 0) {
                engine.flush();
            } else {
                engine.launch();
                while (!engine.try_pop(frame))
                    std::this_thread::yield();
            }
        } catch (const error&) {
            thrown = true;
        }
        EXPECT_TRUE(thrown);
        EXPECT_EQ(engine.frames_pending(), 0u);
        EXPECT_FALSE(engine.try_pop(frame));
    }
}

TEST(Engine, RejectsBadConfiguration)
{
    auto decoder = std::make_shared<fake_decoder>();
    for (int slots : { -1, 0, 1 }) {
        try {
            batch_engine engine(decoder, small_config(4, 0, slots));
            FAIL() << "num_slots = " << slots << " accepted";
        } catch (const error& e) {
            EXPECT_NE(std::string(e.what()).find("num_slots"), std::string::npos)
                << e.what();
        }
    }
    EXPECT_THROW(batch_engine(decoder, small_config(0)), error);
    engine_config bad_scale = small_config(4);
    bad_scale.llr_scale = 0.0f;
    EXPECT_THROW(batch_engine(decoder, bad_scale), error);
    EXPECT_THROW(batch_engine(decoder, small_config(4, 0, 3, -2)), error);
    EXPECT_THROW(batch_engine(nullptr, small_config(4)), error);
    EXPECT_NO_THROW(batch_engine(decoder, small_config(4, 0, 2)));
}

TEST(Engine, NestedParallelForDoesNotDeadlock)
{
    auto decoder = std::make_shared<fake_decoder>();
    decoder->set_nested(true);
    for (int threads : { 1, 2, 4 }) {
        batch_engine engine(decoder, small_config(8, 0, 2, threads));
        std::vector<llr8_t> llrs(64, -3);
        for (uint64_t id = 0; id < 20; ++id) {
            while (!engine.submit(llrs.data(), llrs.size(), id)) {
                completed_frame frame;
                ASSERT_TRUE(engine.pop_wait(frame));
            }
        }
        engine.flush();
        completed_frame frame;
        size_t popped = 0;
        while (engine.try_pop(frame)) {
            expect_frame(frame, llrs);
            ++popped;
        }
        EXPECT_GT(popped, 0u);
    }
}

TEST(Engine, FillingAgeFollowsTheFirstFrame)
{
    batch_engine engine(std::make_shared<fake_decoder>(), small_config(16));
    EXPECT_EQ(engine.filling_age_seconds(), 0.0);
    std::vector<llr8_t> llrs(10, 1);
    ASSERT_TRUE(engine.submit(llrs.data(), llrs.size(), 0));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_GE(engine.filling_age_seconds(), 0.002); // sleep_for waits at least that long
    engine.launch();
    EXPECT_EQ(engine.filling_age_seconds(), 0.0);
}

TEST(Engine, SteadyStateDoesNotAllocate)
{
    auto decoder = std::make_shared<fake_decoder>();
    batch_engine engine(decoder, small_config(8, 0, 3, 3));
    std::vector<llr8_t> llrs(150, -7);
    std::vector<float> floats(150, 0.5f);
    completed_frame frame;
    auto cycle = [&](uint64_t first_id) {
        for (uint64_t id = first_id; id < first_id + 100; ++id) {
            bool taken = (id % 2) ? engine.submit(llrs.data(), 1 + id % 150, id)
                                  : engine.submit(floats.data(), 1 + id % 150, id);
            while (!taken) {
                engine.pop_wait(frame);
                taken = engine.submit(llrs.data(), 1 + id % 150, id);
            }
            if (id % 3 == 0)
                engine.try_pop(frame);
            if (id % 17 == 0)
                engine.launch();
        }
        engine.flush();
        while (engine.try_pop(frame)) {
        }
    };
    cycle(0); // warm-up: lazily created state, if any
    const long before = g_allocations.load();
    cycle(1000);
    EXPECT_EQ(g_allocations.load() - before, 0) << "heap allocations in steady state";
    EXPECT_EQ(engine.frames_pending(), 0u);
}


// The bulk path: frames taken in runs, copied by several threads in large chunks (so
// the chunk boundaries fall inside frames), partial acceptance when every slot is busy,
// and the same results as one-by-one submission.
TEST(Engine, SubmitFramesMatchesOneByOneSubmission)
{
    const size_t items = 100003; // odd length: chunk boundaries inside frames
    engine_config config = small_config(5, 0, 3, 2);
    config.copy_threads = 3;
    auto decoder =
        std::make_shared<fake_decoder>(fake_decoder::mode::hard_decision, items);
    decoder->set_stalls(0.3, 2000, 7);
    batch_engine bulk(decoder, config);

    std::mt19937 rng(21);
    const size_t frames = 37;
    const std::vector<llr8_t> llrs = random_llrs(rng, frames * items);
    std::vector<std::vector<llr8_t>> sent(frames);
    for (size_t f = 0; f < frames; ++f)
        sent[f].assign(llrs.begin() + f * items, llrs.begin() + (f + 1) * items);

    size_t submitted = 0, popped = 0, partial_calls = 0;
    completed_frame done;
    while (submitted < frames) {
        const size_t want = std::min<size_t>(1 + rng() % 12, frames - submitted);
        const size_t taken =
            bulk.submit_frames(llrs.data() + submitted * items, items, want, submitted);
        partial_calls += taken < want;
        submitted += taken;
        if (taken < want) { // every slot busy: make room
            ASSERT_TRUE(bulk.pop_wait(done));
            ASSERT_EQ(done.id, popped);
            expect_frame(done, sent[popped++]);
        }
        while (bulk.try_pop(done)) {
            ASSERT_EQ(done.id, popped);
            expect_frame(done, sent[popped++]);
        }
    }
    bulk.flush();
    while (bulk.pop_wait(done)) {
        ASSERT_EQ(done.id, popped);
        expect_frame(done, sent[popped++]);
    }
    EXPECT_EQ(popped, frames);
    EXPECT_GT(partial_calls, 0u) << "the test never filled every slot";
}

TEST(Engine, SubmitFramesQuantizesLikeSubmit)
{
    const size_t items = 70001;
    engine_config config = small_config(4, 0, 2, 1);
    config.llr_scale = 3.0f;
    config.copy_threads = 4;
    auto make = [&] {
        return std::make_shared<fake_decoder>(fake_decoder::mode::echo, items);
    };
    batch_engine bulk(make(), config), single(make(), config);
    std::mt19937 rng(3);
    std::normal_distribution<float> value(0.0f, 30.0f);
    std::vector<float> llrs(3 * items);
    for (float& v : llrs)
        v = value(rng);
    ASSERT_EQ(bulk.submit_frames(llrs.data(), items, 3, 0), 3u);
    for (size_t f = 0; f < 3; ++f)
        ASSERT_TRUE(single.submit(llrs.data() + f * items, items, f));
    bulk.flush();
    single.flush();
    completed_frame a, b;
    for (size_t f = 0; f < 3; ++f) {
        ASSERT_TRUE(bulk.pop_wait(a));
        ASSERT_TRUE(single.pop_wait(b));
        ASSERT_EQ(a.id, f);
        ASSERT_EQ(a.nbits, b.nbits);
        EXPECT_EQ(0, std::memcmp(a.packed, b.packed, a.nbits / 8));
    }
}

} // namespace
} // namespace gpufec

namespace gpufec {
namespace {

// Soft output: each frame's own values come back beside its bits, at any frame length.
TEST(Engine, SoftOutputTravelsWithEachFrame)
{
    engine_config config = small_config(8);
    config.soft_output = true;
    batch_engine engine(std::make_shared<fake_decoder>(), config);
    std::mt19937 rng(5);
    std::vector<std::vector<llr8_t>> sent;
    size_t checked = 0;
    auto check = [&](const completed_frame& f) {
        const auto& llrs = sent[f.id];
        expect_frame(f, llrs);
        ASSERT_NE(f.soft, nullptr);
        for (size_t k = 0; k < llrs.size(); ++k)
            ASSERT_EQ(f.soft[k], 0.5f * float(llrs[k]))
                << "frame " << f.id << " bit " << k;
        ++checked;
    };
    for (uint64_t id = 0; id < 60; ++id) {
        sent.push_back(random_llrs(rng, 1 + rng() % 200));
        completed_frame f;
        while (!engine.submit(sent.back().data(), sent.back().size(), id)) {
            ASSERT_TRUE(engine.pop_wait(f));
            check(f);
        }
    }
    engine.flush();
    completed_frame f;
    while (engine.try_pop(f))
        check(f);
    EXPECT_EQ(checked, sent.size());
}

TEST(Engine, SoftOutputIsNullWhenNotAskedAndRefusedWithoutSupport)
{
    batch_engine engine(std::make_shared<fake_decoder>(), small_config(4));
    const std::vector<llr8_t> llrs(10, -3);
    ASSERT_TRUE(engine.submit(llrs.data(), llrs.size(), 0));
    completed_frame f;
    ASSERT_TRUE(engine.pop_wait(f));
    EXPECT_EQ(f.soft, nullptr);

    engine_config config = small_config(4);
    config.soft_output = true;
    test::expect_error(
        [&] {
            batch_engine e(std::make_shared<fake_decoder>(fake_decoder::mode::echo),
                           config);
        },
        { "has no soft output" });
}

} // namespace
} // namespace gpufec
