/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The stream decoder template in real flowgraphs, with a decoder whose output is known
// (hard decisions): the buffer GNU Radio gives the block's upstream holds half a batch
// or more (not the two frames that one frame as output multiple gave), and frames come
// out complete and in order, fixed-length and tagged, whatever the frame count.
#include "batched_decoder_impl.h"

#include <gnuradio/block_detail.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/throttle.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/buffer.h>
#include <gnuradio/gpufec/ldpc_decoder.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <cstdlib>

#include <chrono>
#include <cstdio>
#include <future>
#include <random>
#include <thread>

namespace gr {
namespace gpufec {
namespace {

//! Bit i of a frame = 1 when LLR i is negative (core convention), for frames of any
//! length up to max_items; iterations = 1.
class hard_decision_decoder : public ::gpufec::batch_decoder
{
public:
    //! decide = false: zeros only (for the host-side benchmark, a decoder that costs
    //! nothing but writing its output).
    //! rate_den > 1: the output is the first items / rate_den decisions (as a rate
    //! 1 / rate_den code gives).
    explicit hard_decision_decoder(size_t max_items,
                                   bool decide = true,
                                   size_t rate_den = 1)
        : d_max_items(max_items), d_decide(decide), d_rate_den(rate_den)
    {
    }
    ::gpufec::backend_kind backend() const override
    {
        return ::gpufec::backend_kind::cpu;
    }
    size_t max_input_items_per_frame() const override { return d_max_items; }
    size_t output_bits_for_input(size_t items) const override
    {
        if (items == 0 || items > d_max_items)
            throw ::gpufec::error("hard_decision_decoder: 1.." +
                                  std::to_string(d_max_items) + " items");
        return std::max<size_t>(1, items / d_rate_den);
    }
    size_t default_input_items() const override { return d_max_items; }
    size_t default_output_bits() const override
    {
        return output_bits_for_input(d_max_items);
    }
    std::string name() const override { return "hard decisions"; }
    size_t preferred_batch_frames() const override { return d_preferred; }
    size_t d_preferred = 0; //!< what preferred_batch_frames() returns
    int d_fail_mark = 1000; //!< a frame whose first LLR is this fails its batch
    void decode(const ::gpufec::frame_batch& batch, ::gpufec::exec_ctx&) override
    {
        for (size_t f = 0; f < batch.num_frames; ++f) {
            const auto& frame = batch.frames[f];
            if (batch.in[frame.in_offset] == d_fail_mark)
                throw ::gpufec::error("hard_decision_decoder: injected failure");
            uint8_t* out = batch.out + frame.out_offset;
            std::fill(out, out + ::gpufec::packed_bytes(frame.out_bits), 0);
            for (size_t i = 0; d_decide && i < frame.out_bits; ++i)
                if (batch.in[frame.in_offset + i] < 0)
                    out[i / 8] |= uint8_t(0x80u >> (i % 8));
            batch.status[f] = ::gpufec::frame_status{};
        }
    }

private:
    size_t d_max_items;
    bool d_decide;
    size_t d_rate_den;
};

using test_block = batched_decoder_impl<ldpc_decoder>;

block_sptr make_block(size_t frame_items,
                      int max_batch_frames,
                      const std::string& len_key,
                      const std::string& input_type = "byte",
                      bool decide = true,
                      size_t rate_den = 1,
                      bool status_tags = true,
                      size_t preferred_batch = 0,
                      int fail_mark = 1000)
{
    batched_options options = block_decoder_options(
        false, "cpu", max_batch_frames, 10.0, 8.0, "llr", status_tags);
    decoder_factory factory = [frame_items, decide, rate_den, preferred_batch, fail_mark](
                                  const std::string&) {
        auto d = std::make_unique<hard_decision_decoder>(frame_items, decide, rate_den);
        d->d_preferred = preferred_batch;
        d->d_fail_mark = fail_mark;
        return d;
    };
    // Any public decoder interface serves as the block's face; the factory decides.
    return gnuradio::make_block_sptr<test_block>(
        "test_decoder", factory, input_type, len_key, options);
}

std::vector<uint8_t> random_llrs(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto& x : v)
        x = uint8_t(int(rng() % 61) - 30);
    return v;
}

std::vector<uint8_t> hard_decisions(const std::vector<uint8_t>& llrs)
{
    std::vector<uint8_t> bits(llrs.size());
    for (size_t i = 0; i < llrs.size(); ++i)
        bits[i] = int8_t(llrs[i]) < 0;
    return bits;
}

//! Runs source -> block -> vector sink to the end of the stream; returns the sink.
blocks::vector_sink_b::sptr run_to_sink(const basic_block_sptr& src,
                                        const block_sptr& block)
{
    auto sink = blocks::vector_sink_b::make();
    auto tb = make_top_block("stream_block_buffers");
    tb->connect(src, 0, block, 0);
    tb->connect(block, 0, sink, 0);
    tb->run();
    return sink;
}

TEST(StreamBlockBuffers, UpstreamBufferHoldsHalfABatch)
{
    const size_t n = 1000;
    for (int batch : { 1, 8, 64, 256 }) {
        auto block = make_block(n, batch, "");
        const size_t frames_per_call = std::max(1, batch / 2);
        EXPECT_EQ(block->output_multiple(), int(frames_per_call * n)) << batch;

        auto src = blocks::vector_source_b::make(random_llrs(4 * n, 1), true);
        auto sink = blocks::vector_sink_b::make();
        auto tb = make_top_block("buffers");
        tb->connect(src, 0, block, 0);
        tb->connect(block, 0, sink, 0);
        tb->start();
        const long upstream = src->detail()->output(0)->bufsize();
        tb->stop();
        tb->wait();
        EXPECT_GE(upstream, long(2 * frames_per_call * n))
            << "max_batch_frames " << batch;
    }
}

// max_batch_frames = 0: the decoder's preferred batch, else default_batch_frames; the
// output multiple (half a batch) shows which one the block took. Negative: refused.
TEST(StreamBlockBuffers, AutoBatchTakesTheDecodersPreferredBatch)
{
    const size_t n = 100;
    EXPECT_EQ(make_block(n, 0, "", "byte", true, 1, true, 528)->output_multiple(),
              int(264 * n));
    EXPECT_EQ(make_block(n, 0, "", "byte", true, 1, true, 0)->output_multiple(),
              int(default_batch_frames / 2 * n));
    // A batch the user sets wins over the preference.
    EXPECT_EQ(make_block(n, 8, "", "byte", true, 1, true, 528)->output_multiple(),
              int(4 * n));
    // An auto batch keeps its output within 16 MiB (the output buffer holds a batch):
    // frames of 2^16 bits out, one byte each, so 256 frames instead of 1000.
    const size_t long_frame = size_t(1) << 16;
    EXPECT_EQ(
        make_block(long_frame, 0, "", "byte", true, 1, true, 1000)->min_output_buffer(0),
        long(256 * long_frame));
    EXPECT_EQ(
        make_block(long_frame, 8, "", "byte", true, 1, true, 1000)->min_output_buffer(0),
        long(8 * long_frame));
    try {
        make_block(n, -1, "");
        ADD_FAILURE() << "max_batch_frames = -1 was accepted";
    } catch (const ::gpufec::error& e) {
        EXPECT_NE(std::string(e.what()).find("0 (auto"), std::string::npos) << e.what();
    }
}

TEST(StreamBlockBuffers, LargeFramesKeepTheUpstreamBufferWithin16MiB)
{
    const size_t n = 3 << 20;          // int8 frames of 3 MiB: two of them fit in 8 MiB
    auto block = make_block(n, 6, ""); // half a batch would be 3
    EXPECT_EQ(block->output_multiple(), int(2 * n));
}

// Frame counts that are and are not multiples of the frames per call; the last frames
// must come out at the end of the stream without waiting for a full multiple.
TEST(StreamBlockBuffers, EveryFrameComesOutInOrder)
{
    const size_t n = 700;
    for (size_t frames : { size_t(1), size_t(31), size_t(32), size_t(77), size_t(300) }) {
        const auto llrs = random_llrs(frames * n, uint32_t(frames));
        const auto sink = run_to_sink(blocks::vector_source_b::make(llrs, false),
                                      make_block(n, 64, ""));
        EXPECT_EQ(sink->data(), hard_decisions(llrs)) << frames << " frames";
    }
}

// A failed batch ends the run: the frames decoded before it come out, its frames count
// as dropped, and the block runs again with the next data (the lost frame once left
// the block out of step with the engine: every later run failed "out of order").
TEST(StreamBlockBuffers, FailedBatchKeepsEarlierFramesAndTheBlockRunsAgain)
{
    const size_t n = 16;
    auto first = random_llrs(4 * n, 5);
    first[3 * n] = 100; // frame 3 fails
    auto second = random_llrs(4 * n, 6);
    auto block = make_block(n, 1, "", "byte", true, 1, true, 0, /*fail_mark=*/100);
    auto& impl = dynamic_cast<test_block&>(*block);
    auto src = blocks::vector_source_b::make(first, false);
    auto sink = blocks::vector_sink_b::make();
    auto tb = make_top_block("failed_batch");
    tb->connect(src, 0, block, 0);
    tb->connect(block, 0, sink, 0);
    tb->run();
    const auto decided = hard_decisions(first);
    EXPECT_EQ(sink->data(),
              std::vector<uint8_t>(decided.begin(), decided.begin() + 3 * n));
    EXPECT_EQ(impl.decoded_frames(), 3u);
    EXPECT_EQ(impl.dropped_frames(), 1u);
    src->set_data(second);
    tb->run();
    auto want = std::vector<uint8_t>(decided.begin(), decided.begin() + 3 * n);
    const auto more = hard_decisions(second);
    want.insert(want.end(), more.begin(), more.end());
    EXPECT_EQ(sink->data(), want);
    EXPECT_EQ(impl.decoded_frames(), 7u);
    EXPECT_EQ(impl.dropped_frames(), 1u);
}

// A downstream slower than the decoder holds the block's intake back: decoded frames
// waiting for output room stay within a batch (they once piled up without bound,
// taking memory and adding latency for as long as the flowgraph ran).
TEST(StreamBlockBuffers, SlowDownstreamKeepsTheBlockWithinABatchOfWaitingFrames)
{
    const size_t n = 700, batch = 16;
    auto block = make_block(n, int(batch), "");
    auto& impl = dynamic_cast<test_block&>(*block);
    auto throttle = blocks::throttle::make(sizeof(uint8_t), 50e3);
    auto tb = make_top_block("slow_downstream");
    tb->connect(blocks::vector_source_b::make(random_llrs(40 * n, 7), true), 0, block, 0);
    tb->connect(block, 0, throttle, 0);
    tb->connect(throttle, 0, blocks::null_sink::make(sizeof(uint8_t)), 0);
    tb->start();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    tb->stop();
    tb->wait();
    // 50 000 items/s out is ~70 frames/s; the decoder could take thousands a second.
    const uint64_t taken = block->nitems_read(0) / n,
                   given = block->nitems_written(0) / n;
    // A batch aside stops the intake; a frame already cut may wait for a whole slot.
    EXPECT_LE(impl.stashed_frames(), 2 * batch);
    EXPECT_LE(taken - given, 8 * batch) << taken << " frames in, " << given << " out";
    EXPECT_GT(given, 0u);
}

// A flowgraph-wide max_noutput_items below the block's output multiple (32 frames of
// 700 items here) must not starve it: every frame still comes out. (GNU Radio 3.10's
// scheduler lets the multiple win over the limit; this guards that.)
TEST(StreamBlockBuffers, SmallFlowgraphOutputLimitStillDecodesEverything)
{
    const size_t n = 700, frames = 100;
    const auto llrs = random_llrs(frames * n, 3);
    auto block = make_block(n, 64, "");
    auto sink = blocks::vector_sink_b::make();
    auto tb = make_top_block("limit");
    tb->connect(blocks::vector_source_b::make(llrs, false), 0, block, 0);
    tb->connect(block, 0, sink, 0);
    auto run = std::async(std::launch::async, [&] { tb->run(1000); });
    if (run.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
        tb->stop(); // unblocks run() so the test can report instead of hanging
        run.wait();
        FAIL() << "the flowgraph did not finish: the block got no output room";
    }
    EXPECT_EQ(sink->data(), hard_decisions(llrs));
}

// Caps the user puts on the block (GRC's Max Output Buffer, set_max_noutput_items)
// shrink the frames per call instead of failing the start or starving the block.
TEST(StreamBlockBuffers, CapsOnTheBlockShrinkItsMultiple)
{
    const size_t n = 700, frames = 100;
    const auto llrs = random_llrs(frames * n, 5);
    for (int cap = 0; cap < 2; ++cap) {
        SCOPED_TRACE(cap == 0 ? "max_output_buffer" : "max_noutput_items");
        auto block = make_block(n, 64, "");
        if (cap == 0)
            block->set_max_output_buffer(0, long(8 * n)); // room for 8 frames
        else
            block->set_max_noutput_items(int(4 * n + 100)); // 4 frames and a bit
        auto sink = blocks::vector_sink_b::make();
        auto tb = make_top_block("caps");
        tb->connect(blocks::vector_source_b::make(llrs, false), 0, block, 0);
        tb->connect(block, 0, sink, 0);
        auto run = std::async(std::launch::async, [&] { tb->run(); });
        if (run.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
            tb->stop();
            run.wait();
            FAIL() << "the flowgraph did not finish";
        }
        EXPECT_EQ(block->output_multiple(), int(4 * n)); // 8 / 2 frames, or 4 frames
        EXPECT_EQ(sink->data(), hard_decisions(llrs));
    }
}

TEST(StreamBlockBuffers, TaggedFramesOfManyLengthsComeOutInOrder)
{
    const size_t max_items = 500;
    std::mt19937 rng(7);
    std::vector<uint8_t> llrs;
    std::vector<tag_t> tags;
    std::vector<size_t> lengths;
    for (int f = 0; f < 150; ++f) {
        const size_t len = 1 + rng() % max_items;
        tag_t tag;
        tag.offset = llrs.size();
        tag.key = pmt::intern("frame_len");
        tag.value = pmt::from_long(long(len));
        tags.push_back(tag);
        lengths.push_back(len);
        const auto part = random_llrs(len, uint32_t(f));
        llrs.insert(llrs.end(), part.begin(), part.end());
    }
    const auto sink = run_to_sink(blocks::vector_source_b::make(llrs, false, 1, tags),
                                  make_block(max_items, 64, "frame_len"));
    EXPECT_EQ(sink->data(), hard_decisions(llrs));
    // One length tag per frame, at its first output bit, with its length.
    std::vector<size_t> out_lengths;
    std::vector<uint64_t> out_offsets;
    for (const auto& tag : sink->tags())
        if (pmt::eq(tag.key, pmt::intern("frame_len"))) {
            out_lengths.push_back(size_t(pmt::to_long(tag.value)));
            out_offsets.push_back(tag.offset);
        }
    EXPECT_EQ(out_lengths, lengths);
    uint64_t at = 0;
    for (size_t f = 0; f < out_offsets.size(); ++f) {
        EXPECT_EQ(out_offsets[f], at) << "frame " << f;
        at += lengths[f];
    }
}

//! Emits `total` items of whatever its buffer holds: a source that costs nothing.
class idle_source : public sync_block
{
public:
    idle_source(size_t itemsize, uint64_t total)
        : sync_block("idle_source",
                     io_signature::make(0, 0, 0),
                     io_signature::make(1, 1, int(itemsize))),
          d_left(total)
    {
    }
    int work(int n, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        if (d_left == 0)
            return WORK_DONE;
        const uint64_t k = std::min<uint64_t>(uint64_t(n), d_left);
        d_left -= k;
        return int(k);
    }

private:
    uint64_t d_left;
};

// The host side's ceiling: source -> block -> null sink with a decoder that does next to
// no work, so the figure is the block's copies, tags and thread hand-offs. A benchmark,
// not a test (run with --gtest_also_run_disabled_tests); docs/benchmarks.md has figures.
TEST(StreamBlockBuffers, DISABLED_HostCeiling)
{
    struct shape {
        const char* name;
        size_t n, rate_den;
        uint64_t frames;
    };
    const shape shapes[] = { { "BG1 Z=384 r=1/3", 25344, 3, 40000 },
                             { "polar N=1024 k=512", 1024, 2, 400000 } };
    for (const auto& code : shapes) {
        for (const std::string type : { "byte", "float" }) {
            for (int batch : { 64, 256 })
                for (bool tags : { true, false }) {
                    // GPUFEC_CEILING_CASE=TEXT: only the cases whose line contains it.
                    const char* only = std::getenv("GPUFEC_CEILING_CASE");
                    const std::string line = std::string(code.name) + " " + type + " " +
                                             std::to_string(batch) +
                                             (tags ? " tags" : " notags");
                    if (only && line.find(only) == std::string::npos)
                        continue;
                    auto src = gnuradio::make_block_sptr<idle_source>(
                        type == "float" ? 4 : 1, code.frames * code.n);
                    auto block = make_block(
                        code.n, batch, "", type, /*decide=*/false, code.rate_den, tags);
                    auto sink = blocks::null_sink::make(1);
                    auto tb = make_top_block("ceiling");
                    tb->connect(src, 0, block, 0);
                    tb->connect(block, 0, sink, 0);
                    const auto t0 = std::chrono::steady_clock::now();
                    tb->run();
                    const double s = std::chrono::duration<double>(
                                         std::chrono::steady_clock::now() - t0)
                                         .count();
                    std::printf(
                        "%-18s %-5s input, max_batch_frames %3d, status tags %-3s: "
                        "%7.0f kframes/s, %.2f Gb/s of information bits\n",
                        code.name,
                        type.c_str(),
                        batch,
                        tags ? "on" : "off",
                        double(code.frames) / s / 1e3,
                        double(code.frames * (code.n / code.rate_den)) / s / 1e9);
                }
        }
    }
}

} // namespace
} // namespace gpufec
} // namespace gr
