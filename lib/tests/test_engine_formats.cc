/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The typed batch contract through the engine on the CPU backend: a detector-shaped
// stage (complex samples and channel matrices in, float LLRs out), a stage that takes
// packed 4-bit LLRs, per-worker scratch, and the registry's backend choice.
#include "test_helpers.h"
#include <gpufec/awgn_source.h>
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/turbo_decoding.h>
#include <gtest/gtest.h>
#include <atomic>
#include <cmath>
#include <random>
#include <set>
#include <vector>

namespace gpufec {
namespace {

using test::expect_error;

/*!
 * A dummy soft detector for BPSK over a flat channel that stays constant over a frame
 * (a coherence block): frame = n received samples y_i, aux = its one channel
 * coefficient h. LLR_i = 2 Re(conj(h) y_i) / sigma2 (the exact BPSK LLR for noise
 * variance sigma2 per real dimension). Each frame's status.iterations = frame length.
 * It also records which workers ran, through their scratch.
 */
class bpsk_detector : public batch_decoder
{
public:
    static constexpr float sigma2 = 0.5f;

    struct worker_state : scratch {
        size_t frames = 0;
    };

    backend_kind backend() const override { return backend_kind::cpu; }
    input_format input() const override { return input_format::complex_float; }
    output_format output() const override { return output_format::llr_float; }
    size_t max_input_items_per_frame() const override { return 64; }
    size_t output_bits_for_input(size_t items) const override
    {
        if (items == 0 || items > 64)
            throw error("bpsk detector: 1..64 samples");
        return items;
    }
    size_t aux_items_for_input(size_t) const override { return 1; }
    size_t default_input_items() const override { return 64; }
    size_t default_output_bits() const override { return 64; }
    std::string name() const override { return "bpsk detector"; }
    std::unique_ptr<scratch> make_scratch() const override
    {
        ++scratches_made;
        return std::make_unique<worker_state>();
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        EXPECT_EQ(batch.in, nullptr);
        EXPECT_EQ(batch.out, nullptr);
        ASSERT_NE(batch.samples, nullptr);
        ASSERT_NE(batch.channels, nullptr);
        ASSERT_NE(batch.llrs_out, nullptr);
        for_each_item(ctx, batch.num_frames, [&](size_t f, size_t worker) {
            ctx.worker_scratch<worker_state>(worker).frames++;
            const frame_extent& e = batch.frames[f];
            const cfloat h = batch.channels[e.aux_offset];
            float* out = batch.llrs_out + e.out_offset / sizeof(float);
            for (size_t i = 0; i < e.in_items; ++i)
                out[i] = reference_llr(h, batch.samples[e.in_offset + i]);
            batch.status[f].iterations = int32_t(e.in_items);
        });
    }

    static float reference_llr(cfloat h, cfloat y)
    {
        return 2.0f * (std::conj(h) * y).real() / sigma2;
    }

    mutable std::atomic<int> scratches_made{ 0 };
};

TEST(EngineFormats, DetectorStageTakesSamplesAndChannelsAndGivesLlrsInOrder)
{
    auto detector = std::make_shared<bpsk_detector>();
    engine_config cfg;
    cfg.max_batch_frames = 8;
    cfg.num_slots = 3;
    cfg.cpu_threads = 3;
    batch_engine engine(detector, cfg);
    EXPECT_EQ(detector->scratches_made.load(), 3); // one per worker, made once

    std::mt19937 rng(7);
    std::normal_distribution<float> gauss(0.0f, 1.0f);
    std::uniform_int_distribution<int> length(1, 64);
    struct sent {
        std::vector<cfloat> y;
        cfloat h;
    };
    std::vector<sent> frames(200);
    for (auto& fr : frames) {
        fr.h = cfloat(gauss(rng), gauss(rng));
        fr.y.resize(size_t(length(rng)));
        for (auto& v : fr.y)
            v = cfloat(gauss(rng), gauss(rng));
    }
    size_t next = 0, popped = 0;
    auto check = [&](const completed_frame& out) {
        ASSERT_EQ(out.id, popped);
        const sent& fr = frames[popped];
        ASSERT_EQ(out.packed, nullptr);
        ASSERT_NE(out.llrs, nullptr);
        ASSERT_EQ(out.nbits, fr.y.size());
        EXPECT_FALSE(out.on_device);
        EXPECT_EQ(out.status.iterations, int32_t(fr.y.size()));
        for (size_t i = 0; i < fr.y.size(); ++i)
            ASSERT_EQ(out.llrs[i], bpsk_detector::reference_llr(fr.h, fr.y[i]))
                << "frame " << popped << " sample " << i;
        ++popped;
    };
    completed_frame out;
    while (next < frames.size()) {
        if (engine.submit(
                frames[next].y.data(), frames[next].y.size(), &frames[next].h, 1, next)) {
            ++next;
        } else {
            ASSERT_TRUE(engine.pop_wait(out));
            check(out);
        }
        while (engine.try_pop(out))
            check(out);
    }
    engine.flush();
    while (engine.pop_wait(out))
        check(out);
    EXPECT_EQ(popped, frames.size());
}

TEST(EngineFormats, DetectorStageRefusesLlrsAndWrongChannelSizes)
{
    batch_engine engine(std::make_shared<bpsk_detector>(), engine_config{});
    std::vector<float> llrs(8, 1.0f);
    expect_error([&] { engine.submit(llrs.data(), llrs.size(), 0); },
                 { "complex float sample", "channel matrices" });
    std::vector<cfloat> y(8), h(3);
    expect_error([&] { engine.submit(y.data(), y.size(), h.data(), 3, 0); },
                 { "needs 1 channel-matrix entries", "got 3" });
    engine_config soft;
    soft.soft_output = true;
    expect_error([&] { batch_engine e(std::make_shared<bpsk_detector>(), soft); },
                 { "soft_output" });
}

/*
 * A stage that returns what arrived, for int8 or packed 4-bit input: each LLR's sign as
 * the bit (negative = 1) and the value itself as its soft output, so a test sees
 * exactly what the engine delivered.
 */
template <input_format Format>
class echo_stage : public batch_decoder
{
public:
    backend_kind backend() const override { return backend_kind::cpu; }
    input_format input() const override { return Format; }
    size_t max_input_items_per_frame() const override { return 101; }
    size_t output_bits_for_input(size_t items) const override
    {
        if (items == 0 || items > 101)
            throw error("echo: 1..101 LLRs");
        return items;
    }
    size_t default_input_items() const override { return 101; }
    size_t default_output_bits() const override { return 101; }
    bool has_soft_output() const override { return true; }
    std::string name() const override { return "echo"; }
    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        const bool int4 = Format == input_format::llr_int4;
        if (int4)
            ASSERT_EQ(batch.in, nullptr);
        else
            ASSERT_EQ(batch.in_int4, nullptr);
        for_each_item(ctx, batch.num_frames, [&](size_t f, size_t) {
            const frame_extent& e = batch.frames[f];
            if (int4)
                EXPECT_EQ(e.in_offset % 2, 0u) << "int4 frames start on a byte";
            uint8_t* out = batch.out + e.out_offset;
            for (size_t i = 0; i < e.in_items; ++i) {
                const int v = int4 ? llr_int4_at(batch.in_int4, e.in_offset + i)
                                   : batch.in[e.in_offset + i];
                if (v < 0)
                    out[i / 8] |= uint8_t(0x80u >> (i % 8));
                else
                    out[i / 8] &= uint8_t(~(0x80u >> (i % 8)));
                batch.soft_out[8 * e.out_offset + i] = float(v);
            }
        });
    }
};
using int4_echo = echo_stage<input_format::llr_int4>;
using int8_echo = echo_stage<input_format::llr_int8>;

TEST(EngineFormats, Int4StageGetsSaturatedQuantizedLlrsOfOddLengths)
{
    engine_config cfg;
    cfg.max_batch_frames = 5;
    cfg.soft_output = true;
    cfg.llr_scale = 2.0f;
    batch_engine engine(std::make_shared<int4_echo>(), cfg);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> llr(-6.0f, 6.0f);
    std::uniform_int_distribution<int> length(1, 101);
    std::vector<std::vector<float>> floats(40);
    std::vector<std::vector<llr8_t>> ints(40);
    for (size_t f = 0; f < floats.size(); ++f) {
        floats[f].resize(size_t(length(rng)));
        for (auto& v : floats[f])
            v = llr(rng);
        ints[f].resize(floats[f].size());
        std::uniform_int_distribution<int> any(-127, 127);
        for (auto& v : ints[f])
            v = llr8_t(any(rng));
    }
    // Even ids: float frames; odd ids: int8 frames (saturated to +/-7).
    size_t popped = 0;
    completed_frame out;
    auto check = [&](const completed_frame& c) {
        const size_t f = c.id / 2;
        const bool from_float = c.id % 2 == 0;
        const size_t n = from_float ? floats[f].size() : ints[f].size();
        ASSERT_EQ(c.nbits, n);
        std::vector<llr8_t> q(n);
        if (from_float)
            quantize_llrs(floats[f].data(), q.data(), n, cfg.llr_scale);
        else
            q = ints[f];
        std::vector<uint8_t> bits(n);
        unpack_bits(c.packed, bits.data(), n);
        for (size_t i = 0; i < n; ++i) {
            const int want = std::max(-7, std::min(7, int(q[i])));
            ASSERT_EQ(c.soft[i], float(want)) << "id " << c.id << " item " << i;
            ASSERT_EQ(bits[i], want < 0 ? 1 : 0);
        }
        ++popped;
    };
    for (size_t f = 0; f < floats.size(); ++f) {
        while (!engine.submit(floats[f].data(), floats[f].size(), 2 * f)) {
            ASSERT_TRUE(engine.pop_wait(out));
            check(out);
        }
        while (!engine.submit(ints[f].data(), ints[f].size(), 2 * f + 1)) {
            ASSERT_TRUE(engine.pop_wait(out));
            check(out);
        }
    }
    engine.flush();
    while (engine.pop_wait(out))
        check(out);
    EXPECT_EQ(popped, 2 * floats.size());
}

// pack_llrs_int4 (the copy threads' 4-bit pack: 32 items a vector step, then a scalar
// tail) against the rule item by item: every int8 value, at every place of a vector
// step (the start moved over 32 items), both signs, lengths that end inside and after
// a step, odd ones too. It runs the target_clones version the host picks.
TEST(EngineFormats, PackInt4MatchesTheRuleForEveryValue)
{
    std::vector<llr8_t> in(256 + 70);
    for (size_t i = 0; i < in.size(); i++)
        in[i] = static_cast<llr8_t>(int(i * 37 + 11) % 256 - 128);
    for (bool negate : { false, true })
        for (size_t first = 0; first < 32; first++)
            for (size_t n : { size_t(0),
                              size_t(1),
                              size_t(31),
                              size_t(32),
                              size_t(33),
                              size_t(63),
                              size_t(64),
                              size_t(65),
                              size_t(256) }) {
                std::vector<uint8_t> out(n / 2 + 1, 0xee);
                pack_llrs_int4(in.data() + first, out.data(), n, negate);
                for (size_t i = 0; i < n; i++) {
                    const int v = negate ? -int(in[first + i]) : int(in[first + i]);
                    ASSERT_EQ(llr_int4_at(out.data(), i), std::max(-7, std::min(7, v)))
                        << "negate " << negate << " first " << first << " n " << n
                        << " item " << i;
                }
                if (n % 2)
                    EXPECT_EQ(out[n / 2] >> 4, 0) << "odd n: the last high nibble is 0";
                else
                    EXPECT_EQ(out[n / 2], 0xee) << "nothing written past the last item";
            }
}

// submit_frames() of an int4 stage with frames of an even length: one bulk copy split
// over the copy threads (more than one 2^18-item chunk), the same values as submit().
TEST(EngineFormats, Int4BulkSubmitMatchesTheRule)
{
    engine_config cfg;
    cfg.max_batch_frames = 4000;
    cfg.soft_output = true;
    cfg.llr_scale = 1.5f;
    batch_engine engine(std::make_shared<int4_echo>(), cfg);
    const size_t items = 100, count = 3000; // 300 000 items in one call
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> llr(-9.0f, 9.0f);
    std::vector<float> floats(items * count);
    for (auto& v : floats)
        v = llr(rng);
    size_t done = 0, popped = 0;
    completed_frame out;
    auto check = [&](const completed_frame& c) {
        ASSERT_EQ(c.id, popped);
        ASSERT_EQ(c.nbits, items);
        std::vector<llr8_t> q(items);
        quantize_llrs(floats.data() + c.id * items, q.data(), items, cfg.llr_scale);
        for (size_t i = 0; i < items; ++i)
            ASSERT_EQ(c.soft[i], float(std::max(-7, std::min(7, int(q[i])))))
                << "frame " << c.id << " item " << i;
        ++popped;
    };
    while (done < count) {
        done +=
            engine.submit_frames(floats.data() + done * items, items, count - done, done);
        while (engine.try_pop(out))
            check(out);
        if (done < count && engine.pop_wait(out))
            check(out);
    }
    engine.flush();
    while (engine.pop_wait(out))
        check(out);
    EXPECT_EQ(popped, count);
}

// GNU Radio's soft values are positive for bit 1: with convention = gnuradio the stage
// must see exactly the negated values (int8: -x saturated, -(-128) = 127; float: the
// quantization of -L, the same rounding), on every input path, and the bulk output
// path must hand the negated LLRs back.
TEST(EngineFormats, GnuradioConventionIsNegatedOnEveryCopy)
{
    EXPECT_EQ(parse_soft_convention("gnuradio"), soft_convention::gnuradio);
    EXPECT_EQ(parse_soft_convention("llr"), soft_convention::llr);
    expect_error([] { parse_soft_convention("GNURadio"); },
                 { "\"gnuradio\"", "\"llr\"" });
    const std::vector<float> edges = { 0.0f,  -0.0f,  0.06249f, 0.0625f, -0.0625f,
                                       15.9f, -16.0f, 1e9f,     -1e9f,   NAN };
    const std::vector<llr8_t> ints = { -128, -127, -1, 0, 1, 7, -8, 126, 127 };
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> llr(-20.0f, 20.0f);
    std::vector<float> floats = edges;
    while (floats.size() < 64)
        floats.push_back(llr(rng));
    auto want_int8 = [](int v) { return std::min(127, -v); };
    for (bool int4 : { false, true }) {
        for (bool bulk : { false, true }) {
            SCOPED_TRACE(std::string(int4 ? "int4" : "int8") + (bulk ? " bulk" : ""));
            engine_config cfg;
            cfg.max_batch_frames = 4;
            cfg.soft_output = true;
            cfg.convention = soft_convention::gnuradio;
            std::shared_ptr<batch_decoder> stage;
            if (int4)
                stage = std::make_shared<int4_echo>();
            else
                stage = std::make_shared<int8_echo>();
            batch_engine engine(stage, cfg);
            if (bulk) {
                ASSERT_EQ(engine.submit_frames(floats.data(), floats.size(), 1, 0), 1u);
                ASSERT_EQ(engine.submit_frames(ints.data(), ints.size(), 1, 1), 1u);
            } else {
                ASSERT_TRUE(engine.submit(floats.data(), floats.size(), 0));
                ASSERT_TRUE(engine.submit(ints.data(), ints.size(), 1));
            }
            engine.flush();
            completed_frame out;
            ASSERT_TRUE(engine.pop_wait(out));
            std::vector<llr8_t> q(floats.size());
            quantize_llrs(floats.data(), q.data(), q.size(), cfg.llr_scale);
            for (size_t i = 0; i < floats.size(); ++i) {
                int want = -int(q[i]);
                if (int4)
                    want = std::max(-7, std::min(7, want));
                ASSERT_EQ(out.soft[i], float(want)) << "float item " << i;
            }
            ASSERT_TRUE(engine.pop_wait(out));
            for (size_t i = 0; i < ints.size(); ++i) {
                int want = want_int8(ints[i]);
                if (int4)
                    want = std::max(-7, std::min(7, want));
                ASSERT_EQ(out.soft[i], float(want)) << "int8 item " << i;
            }
        }
    }
    // The bulk path out (a stage with LLR output): negated floats, and int8 quantized
    // from the negated values; completed_frame::llrs stays in the core's convention.
    engine_config cfg;
    cfg.convention = soft_convention::gnuradio;
    batch_engine engine(std::make_shared<bpsk_detector>(), cfg);
    std::vector<cfloat> y(40);
    for (auto& v : y)
        v = cfloat(llr(rng) / 4, llr(rng) / 4);
    const cfloat h(0.8f, -0.3f);
    for (uint64_t id = 0; id < 3; ++id)
        ASSERT_TRUE(engine.submit(y.data(), y.size(), &h, 1, id));
    engine.flush();
    std::vector<float> got_float(y.size());
    std::vector<llr8_t> got_int8(y.size());
    ASSERT_EQ(engine.pop_frames(got_float.data(), nullptr, 1, true), 1u);
    ASSERT_EQ(engine.pop_frames(got_int8.data(), nullptr, 1, true), 1u);
    completed_frame out;
    ASSERT_TRUE(engine.pop_wait(out));
    for (size_t i = 0; i < y.size(); ++i) {
        const float ref = bpsk_detector::reference_llr(h, y[i]);
        ASSERT_EQ(got_float[i], -ref) << i;
        llr8_t q = 0;
        const float neg = -ref;
        quantize_llrs(&neg, &q, 1, cfg.llr_scale);
        ASSERT_EQ(got_int8[i], q) << i;
        ASSERT_EQ(out.llrs[i], ref) << i;
    }
}

TEST(EngineFormats, PackedInt4MatchesTheInt8RuleSaturated)
{
    const std::vector<float> in = { 0.0f, 0.3f,  -0.3f, 0.5f,    -0.5f, 3.49f, -3.5f,
                                    7.0f, -7.0f, 8.0f,  -100.0f, NAN,   1e9f };
    std::vector<uint8_t> packed((in.size() + 1) / 2);
    quantize_llrs_int4(in.data(), packed.data(), in.size(), 1.0f);
    const std::vector<int> want = { 0, 0, 0, 1, -1, 3, -4, 7, -7, 7, -7, 0, 7 };
    for (size_t i = 0; i < in.size(); ++i)
        EXPECT_EQ(llr_int4_at(packed.data(), i), want[i]) << "item " << i;
    EXPECT_EQ(packed.back() >> 4, 0) << "odd count: the last high nibble stays 0";
    EXPECT_EQ(input_bytes(input_format::llr_int4, 13), 7u);
    EXPECT_EQ(input_bytes(input_format::complex_float, 3), 24u);
    EXPECT_EQ(output_bytes(output_format::llr_float, 5), 20u);
    EXPECT_EQ(output_bytes(output_format::packed_bits, 33), 8u);
}

TEST(EngineFormats, DeviceSideNeedsACudaStage)
{
    engine_config cfg;
    cfg.input_side = memory_side::device;
    expect_error([&] { batch_engine e(std::make_shared<bpsk_detector>(), cfg); },
                 { "needs a CUDA stage", "memory_side::host" });
    cfg.input_side = memory_side::host;
    cfg.output_side = memory_side::device;
    expect_error([&] { batch_engine e(std::make_shared<int4_echo>(), cfg); },
                 { "needs a CUDA stage" });
}

TEST(Registry, ListsBackendsAndRefusesAbsentOnesByName)
{
    // The block-code AWGN source has a CUDA maker (for NR LDPC codes) where CUDA is.
#if GPUFEC_HAVE_CUDA
    EXPECT_EQ(registered_backends<awgn_frame_source_options>(),
              (std::vector<std::string>{ "cpu", "cuda" }));
#else
    EXPECT_EQ(registered_backends<awgn_frame_source_options>(),
              std::vector<std::string>{ "cpu" });
#endif
    const auto viterbi = registered_backends<viterbi_options>();
    ASSERT_FALSE(viterbi.empty());
    EXPECT_EQ(viterbi.front(), "cpu");
#if GPUFEC_HAVE_CUDA
    EXPECT_EQ(viterbi.size(), 2u);
#else
    EXPECT_EQ(viterbi.size(), 1u);
#endif
    frame_code frames;
    frames.info_bits = 8;
    frames.coded_bits = 16;
    frames.encode = [](const uint8_t* in, uint8_t* out) {
        for (int i = 0; i < 8; i++)
            out[2 * i] = out[2 * i + 1] = in[i];
    };
    frames.description = "repetition (8, 16)";
    // Not affine over GF(2): no CUDA source can encode it.
    frame_code products = frames;
    products.description = "products (8, 16)";
    products.encode = [](const uint8_t* in, uint8_t* out) {
        for (int i = 0; i < 16; i++)
            out[i] = in[i % 8] & in[(i + 1) % 8];
    };
    const awgn_frame_source_options source{ 3.0, 1 };
    const bool gpu = cuda_device_count() > 0;
#if GPUFEC_HAVE_CUDA
    if (gpu) {
        // An affine code runs on the GPU through its generator; "auto" takes it.
        EXPECT_EQ(make(frames, source, "cuda")->backend(), backend_kind::cuda);
        expect_error([&] { make(products, source, "cuda"); },
                     { "products (8, 16)", "not affine", "\"cpu\"" });
    } else {
        expect_error([&] { make(frames, source, "cuda"); }, { "no CUDA device" });
    }
#else
    expect_error([&] { make(frames, source, "cuda"); },
                 { "not yet available for awgn_bpsk_source (block codes)", "\"cpu\"" });
#endif
    expect_error([&] { make(frames, source, "gpu"); },
                 { "unknown backend", "\"cuda:N\"" });
    EXPECT_EQ(make(frames, source, "auto")->backend(),
              gpu ? backend_kind::cuda : backend_kind::cpu);
    EXPECT_EQ(make(products, source, "auto")->backend(), backend_kind::cpu);
    const lte_turbo_code turbo(40);
    // "auto" takes the CUDA turbo decoder only where it accepts the options and a GPU is
    // there; float arithmetic runs on the CPU only.
    turbo_decoder_options float_turbo;
    float_turbo.arithmetic = turbo_arithmetic::float32;
    EXPECT_EQ(make_decoder(turbo, float_turbo, "auto")->backend(), backend_kind::cpu);
    const conv_code conv;
    auto v = make_decoder(conv, viterbi_options{}, "auto");
    EXPECT_EQ(v->backend(),
              cuda_device_count() > 0 ? backend_kind::cuda : backend_kind::cpu);
#if GPUFEC_HAVE_CUDA
    if (cuda_device_count() == 0)
        expect_error([&] { make_decoder(conv, viterbi_options{}, "cuda:0"); },
                     { "no CUDA device" });
#else
    expect_error([&] { make_decoder(conv, viterbi_options{}, "cuda:0"); },
                 { "not yet available", "in this build", "\"cpu\"" });
#endif
}

} // namespace
} // namespace gpufec
