/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// GPU polar decoding (issue 11): the CUDA SC, fast-SSC, CA-SCL (L = 1, 2, 8, 32) and BP
// decoders against the CPU's through the engine, bit for bit (payload bits, CRC status,
// iterations, soft output), over N = 32 .. 1024, puncturing, shortening and repetition,
// every CRC, with and without the channel interleaver, the DCI and BCH chains and UCI
// codes of two code blocks; the RNTI check, CA-SCL-8's BLER, the backend choice and bad
// input. Skipped without a device.
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/polar_decoding.h>

#include "test_helpers.h"
#include <gtest/gtest.h>

#if GPUFEC_HAVE_CUDA
#include "cuda/polar/polar_cuda.h"
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;

namespace {

bool have_gpu() { return cuda_device_count() > 0; }

#define REQUIRE_GPU()                                   \
    do {                                                \
        if (!have_gpu())                                \
            GTEST_SKIP() << "no CUDA device available"; \
    } while (0)

struct shape {
    int k, e;
    const char* crc;
    bool interleave;
};

//! Codes of every rate matching, CRC and mother length.
const shape every_shape[] = {
    { 20, 32, "crc6", true },      // N = 32
    { 12, 40, "none", false },     // puncturing, N = 64
    { 40, 100, "crc11", true },    // puncturing
    { 100, 150, "crc11", true },   // shortening
    { 300, 500, "crc24c", false }, // shortening, N = 512
    { 200, 1500, "crc11", true },  // repetition
    { 512, 1024, "crc11", true },  // N = 1024
    { 64, 864, "crc24c", false },  // a DCI-like size, repetition
    { 600, 1000, "crc11", true },  // shortening, N = 1024
    { 25, 8000, "crc11", true },   // heavy repetition
    { 1000, 1024, "crc11", true }, // a fast-SSC node as the root's child (level 9)
};

//! Frames at several Eb/N0 (noisy, near the waterfall, noiseless), plus an all-zero
//! frame (ties everywhere) and a frame of extreme values.
std::vector<std::vector<llr8_t>> draw_frames(const nr_polar_code& code, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<std::vector<llr8_t>> frames;
    for (double ebn0 : { -1.0, 1.0, 2.0, 3.0, test::noiseless }) {
        for (int f = 0; f < 60; f++) {
            const auto payload = test::random_bits(rng, code.k());
            const auto coded = code.encode(payload);
            frames.push_back(
                test::awgn_llrs(coded, double(code.k()) / double(code.e()), ebn0, rng));
        }
    }
    frames.push_back(std::vector<llr8_t>(code.e(), 0));
    std::vector<llr8_t> extreme(code.e());
    for (auto& x : extreme)
        x = static_cast<llr8_t>(rng() % 2 ? 127 : -128);
    frames.push_back(extreme);
    return frames;
}

//! The options of variant v: sc, fast-ssc, bp (50 iterations, early termination), bp
//! (7, none), CA-SCL with list sizes 1, 2, 8, 32, bp with 8-bit messages (50, early
//! termination).
polar_decoder_options variant_options(int v)
{
    polar_decoder_options o;
    constexpr int lists[] = { 1, 2, 8, 32 };
    o.algorithm = v == 0             ? polar_algorithm::sc
                  : v == 1           ? polar_algorithm::fast_ssc
                  : v <= 3 || v == 8 ? polar_algorithm::bp
                                     : polar_algorithm::scl;
    if (v == 3) {
        o.bp_iterations = 7;
        o.bp_early_termination = false;
    }
    if (v >= 4 && v < 8)
        o.list_size = lists[v - 4];
    if (v == 8)
        o.bp_arithmetic = polar_bp_arithmetic::int8;
    return o;
}
constexpr int num_variants = 9;

std::string describe(const polar_decoder_options& o)
{
    std::string s = to_string(o.algorithm);
    if (o.algorithm == polar_algorithm::scl || o.algorithm == polar_algorithm::fast_scl)
        s += "-" + std::to_string(o.list_size);
    if (o.algorithm == polar_algorithm::bp)
        s += std::string(o.bp_arithmetic == polar_bp_arithmetic::int8 ? " int8 " : " ") +
             std::to_string(o.bp_iterations) + (o.bp_early_termination ? " ET" : "");
    return s;
}

//! Decodes `frames` on the GPU through the engine, with and without soft output, and
//! checks bits, status, iterations and soft output against the CPU decoder's, SC and
//! fast-SSC also in each throughput layout of `frames_per_warp`. Returns the frames
//! whose CRC passed (over both runs).
size_t expect_gpu_matches_cpu(const nr_polar_code& code,
                              const polar_decoder_options& o,
                              const std::vector<std::vector<llr8_t>>& frames,
                              std::initializer_list<int> frames_per_warp = { 2, 4 })
{
    const int k = code.k();
    const bool fast = o.algorithm == polar_algorithm::fast_ssc || o.sc_first; // hard only
    auto cpu = make_decoder(code, o, "cpu");
    std::shared_ptr<batch_decoder> gpu = make_decoder(code, o, "cuda:0");
    EXPECT_EQ(gpu->backend(), backend_kind::cuda);
    const auto ref = test::decode_all(*cpu, frames, k, true, !fast);
    EXPECT_EQ(gpu->has_soft_output(), !fast);
    size_t crc_ok = 0;
    auto expect_as_cpu = [&](const test::decoded_batch& got, bool soft) {
        for (size_t f = 0; f < frames.size(); f++) {
            EXPECT_EQ(got.bits[f], ref.bits[f]) << "frame " << f;
            EXPECT_EQ(got.status[f].ok, ref.status[f].ok) << "frame " << f;
            EXPECT_EQ(got.status[f].iterations, ref.status[f].iterations)
                << "frame " << f;
            if (soft)
                EXPECT_EQ(got.soft[f], ref.soft[f]) << "frame " << f;
        }
    };
    for (bool soft : { true, false }) {
        if (soft && fast)
            continue;
        const auto got = test::engine_decode(gpu, frames, k, soft);
        expect_as_cpu(got, soft);
        for (size_t f = 0; f < frames.size(); f++)
            crc_ok += got.status[f].ok;
    }
#if GPUFEC_HAVE_CUDA
    // The engine's test batches (64 frames) are no larger than the SM count, so hard
    // output above took SC / fast-SSC's small-batch layout; the throughput layouts
    // (2 and 4 frames per warp, each with its subtree ops) decode the same frames
    // here, SC first's fast-SSC pass too (its kernel lists the failed frames).
    const bool sc_kernel = (o.algorithm == polar_algorithm::sc ||
                            o.algorithm == polar_algorithm::fast_ssc || o.sc_first) &&
                           code.segments() == 1;
    for (int fpw : frames_per_warp) {
        if (!sc_kernel)
            break;
        SCOPED_TRACE(std::to_string(fpw) + " frames per warp");
        expect_as_cpu(test::engine_decode(std::shared_ptr<batch_decoder>(
                                              cuda::make_polar_decoder(code, o, 0, fpw)),
                                          frames,
                                          k,
                                          false),
                      false);
    }
#endif
    return crc_ok;
}

} // namespace

TEST(PolarCuda, EveryAlgorithmMatchesCpuBitForBit)
{
    REQUIRE_GPU();
    for (const shape& sh : every_shape)
        for (int v = 0; v < num_variants; v++) {
            const polar_decoder_options o = variant_options(v);
            const nr_polar_code code(sh.k, sh.e, sh.crc, sh.interleave);
            SCOPED_TRACE(describe(o) + " k " + std::to_string(sh.k) + " e " +
                         std::to_string(sh.e) + " N " + std::to_string(code.N()) + " " +
                         sh.crc);
            auto frames = draw_frames(code, static_cast<uint32_t>(sh.k * 7 + sh.e));
            if (o.list_size == 32 && o.algorithm == polar_algorithm::scl)
                frames.resize(frames.size() / 3); // the CPU reference is slow
            const size_t crc_ok = expect_gpu_matches_cpu(code, o, frames);
            // The noiseless frames pass their CRC: the comparison covers real decodes.
            if (std::string(sh.crc) != "none" && frames.size() > 100)
                EXPECT_GE(crc_ok, 60u);
        }
}

// On a GPU with 99 KiB of shared memory a block (sm_86 and sm_89; GPUFEC_TEST_MAX_SMEM
// makes this one behave so) SC at N = 1024 takes two frames a warp instead of four
// (112 KiB a block, which the forced four-frame layout asks for and is refused), and
// every algorithm still makes the CPU's decisions.
TEST(PolarCuda, FitsAGpuWith99KiBOfSharedMemoryABlock)
{
    REQUIRE_GPU();
    test::scoped_env guard("GPUFEC_TEST_MAX_SMEM", "101376");
    const nr_polar_code code(512, 1024, "crc11", false);
    auto frames = draw_frames(code, 1234);
    frames.resize(std::min<size_t>(frames.size(), 200));
    for (int v = 0; v < num_variants; v++) {
        const polar_decoder_options o = variant_options(v);
        if (o.list_size == 32 && o.algorithm == polar_algorithm::scl)
            continue; // the CPU reference is slow; L = 8 covers the list kernel
        SCOPED_TRACE(describe(o) + " at 99 KiB");
        expect_gpu_matches_cpu(code, o, frames, { 2 });
    }
#if GPUFEC_HAVE_CUDA
    polar_decoder_options sc;
    sc.algorithm = polar_algorithm::sc;
    try {
        cuda::make_polar_decoder(code, sc, 0, 4);
        ADD_FAILURE() << "four SC frames a warp (112 KiB a block) accepted at 99 KiB";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("allowed on CUDA device 0: up to 101376"),
                  std::string::npos)
            << e.what();
    }
#endif
}

// Fast-SCL's node steps (fast_scl_node) make the CPU fast-SCL decoder's decisions: bits,
// CRC status and soft output for L = 1, 2, 8 and 32 on every code above (k = 1000 splits
// its rate-1 half into two nodes, as the CPU does). The list kernel's measurement
// variants make the same decisions, for fast-SCL and plain CA-SCL alike
// (EveryAlgorithmMatchesCpuBitForBit runs the defaults): the forks' survivors by
// counting instead of the sorting network, level n - 2 stored or computed from the
// channel where read (2 where the program allows: no fast-SCL node that high), the
// channel as floats or int16 (where every value fits), runs of 8 leaves as block steps
// (scl_block) or leaf by leaf.
TEST(PolarCuda, FastSclMatchesCpu)
{
    REQUIRE_GPU();
    struct variant {
        polar_algorithm algorithm;
        const char* forks;    // GPUFEC_POLAR_SCL_FORKS
        const char* unstored; // GPUFEC_POLAR_SCL_UNSTORED: levels from the channel
        const char* channel;  // GPUFEC_POLAR_SCL_CHANNEL: float, or int16 where it fits
        const char* blocks;   // GPUFEC_POLAR_SCL_BLOCKS: block steps on or off
    };
    const variant variants[] = {
        { polar_algorithm::fast_scl, "network", "1", "float", "on" },
        { polar_algorithm::fast_scl, "count", "2", "int16", "off" },
        { polar_algorithm::scl, "count", "1", "int16", "off" },
        { polar_algorithm::scl, "network", "2", "float", "on" }
    };
    for (const variant& var : variants)
        for (const shape& sh : every_shape)
            for (int list : { 1, 2, 8, 32 }) {
                test::scoped_env forks("GPUFEC_POLAR_SCL_FORKS", var.forks);
                test::scoped_env unstored("GPUFEC_POLAR_SCL_UNSTORED", var.unstored);
                test::scoped_env channel("GPUFEC_POLAR_SCL_CHANNEL", var.channel);
                test::scoped_env blocks("GPUFEC_POLAR_SCL_BLOCKS", var.blocks);
                polar_decoder_options o;
                o.algorithm = var.algorithm;
                o.list_size = list;
                const nr_polar_code code(sh.k, sh.e, sh.crc, sh.interleave);
                SCOPED_TRACE(describe(o) + " forks " + var.forks + " unstored " +
                             var.unstored + " channel " + var.channel + " blocks " +
                             var.blocks + " k " + std::to_string(sh.k) + " e " +
                             std::to_string(sh.e) + " N " + std::to_string(code.N()));
                auto frames = draw_frames(code, static_cast<uint32_t>(sh.k * 5 + sh.e));
                if (list == 32)
                    frames.resize(frames.size() / 3); // the CPU reference is slow
                const size_t crc_ok = expect_gpu_matches_cpu(code, o, frames);
                if (std::string(sh.crc) != "none" && frames.size() > 100)
                    EXPECT_GE(crc_ok, 60u);
            }
}

// List sizes the tests above skip: 16 (the largest that the fork's network serves, and
// its threshold path over 32 lanes) and sizes between powers of two (3, 6, 12: lists
// that never fill the unrolled width, so every fork takes the full network), plain and
// fast-SCL, block steps on: bits, CRC status and soft output equal the CPU's.
TEST(PolarCuda, ListSizesBetweenPowersOfTwoMatchCpu)
{
    REQUIRE_GPU();
    const shape shapes[] = { { 512, 1024, "crc11", true },
                             { 300, 500, "crc24c", false },
                             { 40, 100, "crc11", true } };
    for (polar_algorithm alg : { polar_algorithm::scl, polar_algorithm::fast_scl })
        for (const shape& sh : shapes)
            for (int list : { 3, 6, 12, 16 }) {
                polar_decoder_options o;
                o.algorithm = alg;
                o.list_size = list;
                const nr_polar_code code(sh.k, sh.e, sh.crc, sh.interleave);
                SCOPED_TRACE(describe(o) + " k " + std::to_string(sh.k) + " e " +
                             std::to_string(sh.e));
                // Every third frame (the CPU reference is slow), across every Eb/N0,
                // and the all-zero and extreme frames at the end.
                const auto all =
                    draw_frames(code, static_cast<uint32_t>(sh.k * 3 + list));
                std::vector<std::vector<llr8_t>> frames;
                for (size_t f = 0; f < all.size(); f++)
                    if (f % 3 == 0 || f + 2 >= all.size())
                        frames.push_back(all[f]);
                expect_gpu_matches_cpu(code, o, frames);
            }
}

// SC first (adaptive list decoding): fast-SSC over the batch, the failed frames listed
// on the device and list-decoded: the CPU composite's bits, status and iterations (1:
// fast-SSC's word kept, 2: listed) on every code with a CRC, two code blocks, the DCI
// chain (with blind RNTI detection: BlindRntiDetectionMatchesCpu); both ways taken.
TEST(PolarCuda, ScFirstMatchesCpu)
{
    REQUIRE_GPU();
    std::vector<nr_polar_code> codes;
    for (const shape& sh : every_shape)
        if (std::string(sh.crc) != "none")
            codes.emplace_back(sh.k, sh.e, sh.crc, sh.interleave);
    codes.push_back(nr_polar_code(1200, 2400, "crc11", true)); // two code blocks
    codes.push_back(nr_polar_code::dci(40, 216, 0x4b3c));
    for (const nr_polar_code& code : codes)
        for (polar_algorithm alg : { polar_algorithm::scl, polar_algorithm::fast_scl })
            for (int list : { 2, 8 }) {
                polar_decoder_options o;
                o.algorithm = alg;
                o.list_size = list;
                o.sc_first = true;
                SCOPED_TRACE("sc-first " + describe(o) + " k " +
                             std::to_string(code.k()) + " e " + std::to_string(code.e()));
                const auto frames =
                    draw_frames(code, static_cast<uint32_t>(code.e() + list));
                expect_gpu_matches_cpu(code, o, frames);
                const auto got = test::engine_decode(
                    make_decoder(code, o, "cuda:0"), frames, code.k(), false);
                size_t listed = 0;
                for (const auto& st : got.status)
                    listed += st.iterations == 2;
                EXPECT_GT(listed, 0u);
                EXPECT_LT(listed, frames.size());
            }
}

#if GPUFEC_HAVE_CUDA
TEST(PolarCuda, ScFirstListPassLayoutFollowsTheLastCount)
{
    // SC first's list pass over a large batch picks its frame layout from the count of
    // frames the previous pass listed (only the device knows this batch's): batches
    // where most frames fail fast-SSC's CRC (0 dB) and where almost none do (4 dB), in
    // turn, so that each layout meets a count it did not expect. Every frame as on
    // the CPU.
    REQUIRE_GPU();
    const nr_polar_code code(512, 1024, "crc11", true);
    polar_decoder_options o;
    o.algorithm = polar_algorithm::scl;
    o.list_size = 8;
    o.sc_first = true;
    auto cpu = make_decoder(code, o, "cpu");
    // Two frames a warp: the two-launch path (fast-SSC, then the list) at any size.
    std::shared_ptr<batch_decoder> gpu(cuda::make_polar_decoder(code, o, 0, 2));
    constexpr size_t batch = 2400; // more than the GPU holds in the cheapest layout
    std::mt19937 rng(11);
    for (double ebn0 : { 0.0, 4.0, 0.0, 4.0 }) {
        SCOPED_TRACE("Eb/N0 " + std::to_string(ebn0));
        std::vector<std::vector<llr8_t>> frames;
        for (size_t f = 0; f < batch; f++)
            frames.push_back(test::awgn_llrs(
                code.encode(test::random_bits(rng, code.k())), 0.5, ebn0, rng));
        const auto ref = test::decode_all(*cpu, frames, code.k(), true, false);
        const auto got = test::engine_decode(gpu, frames, code.k(), false, batch);
        size_t listed = 0;
        for (size_t f = 0; f < frames.size(); f++) {
            ASSERT_EQ(got.bits[f], ref.bits[f]) << "frame " << f;
            ASSERT_EQ(got.status[f].ok, ref.status[f].ok) << "frame " << f;
            ASSERT_EQ(got.status[f].iterations, ref.status[f].iterations)
                << "frame " << f;
            listed += got.status[f].iterations == 2;
        }
        if (ebn0 == 0.0)
            EXPECT_GT(listed, batch * 3 / 4);
        else
            EXPECT_LT(listed, batch / 20);
    }
}
#endif

TEST(PolarCuda, DownlinkChainsMatchCpuAndCheckTheRnti)
{
    // DCI (7.3: CRC24C scrambled by the RNTI, input bit interleaving) and BCH (7.1) on
    // the GPU: the CPU's decisions with every algorithm, and a DCI frame passes its CRC
    // only under the RNTI it was sent with.
    REQUIRE_GPU();
    const nr_polar_code codes[] = { nr_polar_code::dci(40, 216, 0x4b3c),
                                    nr_polar_code::dci(60, 432, 0xffff),
                                    nr_polar_code::bch() };
    for (const nr_polar_code& code : codes)
        for (int v = 0; v < num_variants; v++) {
            const polar_decoder_options o = variant_options(v);
            SCOPED_TRACE(describe(o) + " k " + std::to_string(code.k()) + " e " +
                         std::to_string(code.e()));
            auto frames = draw_frames(code, static_cast<uint32_t>(code.e() + v));
            if (o.list_size == 32 && o.algorithm == polar_algorithm::scl)
                frames.resize(frames.size() / 3);
            const size_t crc_ok = expect_gpu_matches_cpu(code, o, frames);
            if (frames.size() > 100)
                EXPECT_GE(crc_ok, 60u);
        }
    std::mt19937 rng(11);
    const nr_polar_code sent = nr_polar_code::dci(40, 216, 0x4b3c);
    std::vector<std::vector<llr8_t>> frames;
    for (int f = 0; f < 50; f++)
        frames.push_back(test::awgn_llrs(
            sent.encode(test::random_bits(rng, 40)), 40.0 / 216, 6.0, rng));
    for (int rnti : { 0x4b3c, 0x4b3d, 0x0000 })
        for (polar_algorithm alg : { polar_algorithm::sc, polar_algorithm::scl }) {
            polar_decoder_options o;
            o.algorithm = alg;
            std::shared_ptr<batch_decoder> gpu =
                make_decoder(nr_polar_code::dci(40, 216, rnti), o, "cuda:0");
            ASSERT_EQ(gpu->backend(), backend_kind::cuda);
            const auto got = test::engine_decode(gpu, frames, 40, false);
            size_t ok = 0;
            for (const auto& st : got.status)
                ok += st.ok;
            if (rnti == 0x4b3c)
                EXPECT_EQ(ok, frames.size()) << to_string(alg);
            else
                EXPECT_EQ(ok, 0u) << to_string(alg) << " rnti " << rnti;
        }
}

namespace {

//! UCI code-block segmentation (5.2.1) on the GPU: each frame's two blocks decoded in
//! one launch and merged (the filler bit of an odd k dropped, an odd e's last LLR
//! ignored): the CPU's bits, status and soft output with every algorithm, over at most
//! `max_frames` frames a code and algorithm.
void expect_two_code_blocks_match_cpu(size_t max_frames)
{
    const nr_polar_code codes[] = { nr_polar_code(1200, 2400, "crc11", true),
                                    nr_polar_code(401, 1101, "crc11", true) };
    for (const nr_polar_code& code : codes) {
        ASSERT_EQ(code.segments(), 2);
        for (int v = 0; v < num_variants; v++) {
            const polar_decoder_options o = variant_options(v);
            SCOPED_TRACE(describe(o) + " k " + std::to_string(code.k()) + " e " +
                         std::to_string(code.e()));
            auto frames = draw_frames(code, static_cast<uint32_t>(code.k() + v));
            if (o.list_size == 32 && o.algorithm == polar_algorithm::scl)
                frames.resize(frames.size() / 3);
            if (frames.size() > max_frames) {
                // Every Eb/N0 of draw_frames: a spread of them, not the first ones.
                std::vector<std::vector<llr8_t>> kept;
                for (size_t f = 0; f < max_frames; f++)
                    kept.push_back(frames[f * frames.size() / max_frames]);
                frames = kept;
            }
            const size_t crc_ok = expect_gpu_matches_cpu(code, o, frames);
            if (frames.size() > 100)
                EXPECT_GE(crc_ok, 60u);
        }
    }
}

} // namespace

TEST(PolarCuda, TwoCodeBlocksMatchCpu)
{
    REQUIRE_GPU();
    expect_two_code_blocks_match_cpu(SIZE_MAX);
}

// The same over a few frames, for compute-sanitizer's racecheck and synccheck, too slow
// on the full test (ci/gpu-check).
TEST(PolarCuda, TwoCodeBlocksFewFramesMatchCpu)
{
    REQUIRE_GPU();
    expect_two_code_blocks_match_cpu(12);
}

TEST(PolarCuda, SclBlerAt2dB)
{
    // Issue 11: k = 512, e = 1024, CRC11, CA-SCL-8 on the GPU: BLER <= 1e-2 at Eb/N0
    // 2.0 dB over 2000 frames (and no better than the theory allows: some errors at
    // 1.0 dB, where the CPU reference reports BLER near 0.3); plain and SC first.
    REQUIRE_GPU();
    const nr_polar_code code(512, 1024, "crc11", true);
    for (bool sc_first : { false, true }) {
        SCOPED_TRACE(sc_first ? "sc-first ca-scl-8" : "ca-scl-8");
        polar_decoder_options o;
        o.algorithm = polar_algorithm::scl;
        o.list_size = 8;
        o.sc_first = sc_first;
        std::shared_ptr<batch_decoder> gpu = make_decoder(code, o, "cuda:0");
        ASSERT_EQ(gpu->backend(), backend_kind::cuda);
        std::mt19937 rng(2024);
        for (double ebn0 : { 2.0, 1.0 }) {
            std::vector<std::vector<uint8_t>> payloads;
            std::vector<std::vector<llr8_t>> frames;
            for (int f = 0; f < 2000; f++) {
                payloads.push_back(test::random_bits(rng, code.k()));
                frames.push_back(
                    test::awgn_llrs(code.encode(payloads.back()), 0.5, ebn0, rng));
            }
            const auto got = test::engine_decode(gpu, frames, code.k(), false);
            size_t errors = 0;
            for (size_t f = 0; f < frames.size(); f++)
                errors += got.bits[f] != payloads[f];
            if (ebn0 == 2.0)
                EXPECT_LE(errors, 20u) << "frame errors of 2000 at 2.0 dB";
            else
                EXPECT_GE(errors, 20u) << "frame errors of 2000 at 1.0 dB";
        }
    }
}

#if GPUFEC_HAVE_CUDA
TEST(PolarCuda, EveryFramesPerWarpLayoutMatchesCpu)
{
    // 2 or 4 frames side by side in one warp (the lanes split among them), or 1 (the
    // small-batch layout, forced for every hard-output batch), a batch that does not
    // fill the last warp: the CPU's bits and status on every frame.
    REQUIRE_GPU();
    for (const shape& sh : { shape{ 20, 32, "crc6", true },
                             shape{ 100, 150, "crc11", true },
                             shape{ 512, 1024, "crc11", true } })
        for (polar_algorithm alg : { polar_algorithm::sc, polar_algorithm::fast_ssc })
            for (int fpw : { 1, 2, 4 }) {
                polar_decoder_options o;
                o.algorithm = alg;
                const nr_polar_code code(sh.k, sh.e, sh.crc, sh.interleave);
                SCOPED_TRACE(std::string(to_string(alg)) + " N " +
                             std::to_string(code.N()) + " frames/warp " +
                             std::to_string(fpw));
                auto cpu = make_decoder(code, o, "cpu");
                std::shared_ptr<batch_decoder> gpu(
                    cuda::make_polar_decoder(code, o, 0, fpw));
                auto frames = draw_frames(code, static_cast<uint32_t>(sh.e + fpw));
                frames.resize(frames.size() - 5); // not a multiple of the warp's frames
                // One frame per warp (forced) is a hard-output layout: SC without soft
                // output there, so that the layout runs.
                const bool soft = alg == polar_algorithm::sc && fpw != 1;
                const auto ref = test::decode_all(*cpu, frames, sh.k, true, soft);
                engine_config cfg;
                cfg.max_batch_frames = 61;
                cfg.soft_output = soft;
                batch_engine engine(gpu, cfg);
                size_t checked = 0;
                completed_frame c;
                auto verify = [&](const completed_frame& d) {
                    std::vector<uint8_t> bits(sh.k);
                    unpack_bits(d.packed, bits.data(), sh.k);
                    ASSERT_EQ(bits, ref.bits[d.id]) << "frame " << d.id;
                    ASSERT_EQ(d.status.ok, ref.status[d.id].ok) << "frame " << d.id;
                    if (soft)
                        for (int i = 0; i < sh.k; i++)
                            ASSERT_EQ(d.soft[i], ref.soft[d.id][i]);
                    ++checked;
                };
                for (size_t f = 0; f < frames.size(); f++) {
                    while (!engine.submit(frames[f].data(), frames[f].size(), f))
                        if (engine.pop_wait(c))
                            verify(c);
                }
                engine.flush();
                while (engine.pop_wait(c))
                    verify(c);
                EXPECT_EQ(checked, frames.size());
            }
}
#endif

// UCI with 12 <= k <= 19 (TS 38.212 6.3.1.3.1): CRC6 plus three parity-check bits, each
// the XOR of earlier information bits (5.3.1.2). Both n_PC^wm cases (E - K + 3 <= 192:
// none at a minimum-weight row; above: one), puncturing, shortening and repetition.
TEST(PolarCuda, ShortUciParityCheckBitsMatchCpu)
{
    REQUIRE_GPU();
    const int sizes[][2] = { { 12, 40 },  { 15, 100 }, { 19, 180 },
                             { 13, 300 }, { 19, 500 }, { 16, 1100 } };
    int wm[2] = { 0, 0 };
    for (const auto& ke : sizes) {
        const nr_polar_code code(ke[0], ke[1], "crc6");
        ASSERT_EQ(code.pc_positions().size(), 3u);
        wm[code.n_pc_min_weight()]++;
        for (int v = 0; v < num_variants; v++) {
            const polar_decoder_options o = variant_options(v);
            SCOPED_TRACE(describe(o) + " k " + std::to_string(ke[0]) + " e " +
                         std::to_string(ke[1]) + " N " + std::to_string(code.N()));
            const auto frames = draw_frames(code, static_cast<uint32_t>(ke[0] + ke[1]));
            EXPECT_EQ(make_decoder(code, o, "auto")->backend(), backend_kind::cuda);
            const size_t crc_ok = expect_gpu_matches_cpu(code, o, frames);
            EXPECT_GE(crc_ok, 60u); // the noiseless frames at least
        }
    }
    EXPECT_GT(wm[0], 0);
    EXPECT_GT(wm[1], 0);
}

TEST(PolarCuda, BackendChoiceAndBadInput)
{
    REQUIRE_GPU();
    const nr_polar_code code(100, 200);
    polar_decoder_options o; // scl
    for (polar_algorithm alg : { polar_algorithm::scl,
                                 polar_algorithm::bp,
                                 polar_algorithm::fast_ssc,
                                 polar_algorithm::sc }) {
        o.algorithm = alg;
        EXPECT_EQ(make_decoder(code, o, "auto")->backend(), backend_kind::cuda);
    }
    polar_decoder_options fast_list;
    fast_list.algorithm = polar_algorithm::fast_scl;
    EXPECT_EQ(make_decoder(code, fast_list, "auto")->backend(), backend_kind::cuda);
    {
        // The measurement switch of the list kernel's forks refuses unknown values.
        test::scoped_env bad("GPUFEC_POLAR_SCL_FORKS", "bitonic");
        expect_error([&] { make_decoder(code, fast_list, "cuda:0"); },
                     { "GPUFEC_POLAR_SCL_FORKS=bitonic", "allowed: count, network" });
        test::scoped_env levels("GPUFEC_POLAR_SCL_UNSTORED", "3");
        expect_error([&] { make_decoder(code, fast_list, "cuda:0"); },
                     { "GPUFEC_POLAR_SCL_UNSTORED=3", "allowed: 1, 2" });
    }
    {
        test::scoped_env blocks("GPUFEC_POLAR_SCL_BLOCKS", "yes");
        expect_error([&] { make_decoder(code, fast_list, "cuda:0"); },
                     { "GPUFEC_POLAR_SCL_BLOCKS=yes", "allowed: on, off" });
    }
    auto gpu = make_decoder(code, o, "auto");
    expect_error([&] { gpu->output_bits_for_input(199); }, { "allowed: e = 200" });
    // The batch a block takes with max_batch_frames = 0: ~2^22 payload bits (the
    // engine's host work per batch is what small batches pay), at most 2^16 frames.
    EXPECT_EQ(make_decoder(code, o, "cpu")->preferred_batch_frames(), 0u);
    EXPECT_EQ(gpu->preferred_batch_frames(), 41944u); // ceil(2^22 / 100)
    EXPECT_EQ(
        make_decoder(nr_polar_code(512, 1024), o, "cuda:0")->preferred_batch_frames(),
        size_t(1) << 13);
    EXPECT_EQ(make_decoder(nr_polar_code(15, 100, "crc6"), o, "cuda:0")
                  ->preferred_batch_frames(),
              size_t(1) << 16); // 2^22 / 15 > 2^16
    // Long frames: at most 64 MiB of LLRs a batch.
    EXPECT_EQ(
        make_decoder(nr_polar_code(200, 8192), o, "cuda:0")->preferred_batch_frames(),
        size_t(8192));
    const nr_polar_code two(1200, 2400);
    ASSERT_EQ(two.segments(), 2);
    EXPECT_EQ(make_decoder(two, o, "auto")->backend(), backend_kind::cuda);
    expect_error([&] { make_decoder(two, o, "cuda:0")->output_bits_for_input(2399); },
                 { "allowed: e = 2400" });
    // Parity-check bits (UCI, 12 <= k <= 19) run on the GPU too.
    const nr_polar_code short_uci(15, 100, "crc6");
    EXPECT_EQ(make_decoder(short_uci, o, "auto")->backend(), backend_kind::cuda);
    o.list_size = 0;
    expect_error([&] { make_decoder(code, o, "cuda:0"); }, { "list_size" });
    o.list_size = 33;
    o.algorithm = polar_algorithm::scl;
    expect_error([&] { make_decoder(code, o, "cuda:0"); }, { "list_size", "1..32" });
}

namespace {

//! PDCCH candidates of k bits at every level of `space`, sent under `senders`, at
//! several Eb/N0 and noiseless, in a shuffled order (so lengths interleave in a batch).
std::vector<std::vector<llr8_t>> draw_candidates(const dci_search_space& space,
                                                 const std::vector<int>& senders,
                                                 uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<std::vector<llr8_t>> frames;
    for (int L : space.aggregation_levels)
        for (int r : senders) {
            const nr_polar_code code =
                nr_polar_code::dci(space.k, dci_candidate_bits(L), r);
            for (double ebn0 : { -2.0, 0.0, 1.0, 2.0, test::noiseless })
                for (int f = 0; f < 6; f++)
                    frames.push_back(
                        test::awgn_llrs(code.encode(test::random_bits(rng, space.k)),
                                        double(space.k) / code.e(),
                                        ebn0,
                                        rng));
        }
    std::shuffle(frames.begin(), frames.end(), rng);
    return frames;
}

} // namespace

TEST(PolarCuda, BlindSearchInOneLaunchMatchesCpu)
{
    // The PDCCH blind search: candidates of aggregation levels 1..16 (e = 108 .. 1728,
    // N = 128 .. 512, repetition at 16) mixed in one batch, decoded in one launch with
    // three monitored RNTIs: the CPU search's payload, RNTI bits and verdicts, CA-SCL
    // with list sizes 1, 2, 8, 32. Both forms of the list programs (with block steps,
    // which batches of up to 8 waves take, and with leaf steps only, for larger ones:
    // dci_search_cuda::program_for), fixed by GPUFEC_POLAR_DCI_STEPS, in batches of 8
    // and of all 450 candidates, and the size-chosen form.
    REQUIRE_GPU();
    dci_search_space space;
    space.k = 40;
    space.rntis = { 0x1234, 0x4b3c, 0xffff };
    const auto frames = draw_candidates(space, { 0x4b3c, 0xffff, 0x0bad }, 21);
    for (int list : { 1, 2, 8, 32 }) {
        SCOPED_TRACE("list " + std::to_string(list));
        dci_search_options o;
        o.decoding.list_size = list;
        auto cpu = make_decoder(space, o, "cpu");
        const auto ref = test::decode_all(*cpu, frames, space.k + 16, true, false);
        for (const char* steps : { "blocks", "leaves", "auto" }) {
            SCOPED_TRACE(std::string("GPUFEC_POLAR_DCI_STEPS=") + steps);
            ASSERT_EQ(setenv("GPUFEC_POLAR_DCI_STEPS", steps, 1), 0);
            std::shared_ptr<batch_decoder> gpu = make_decoder(space, o, "cuda:0");
            ASSERT_EQ(unsetenv("GPUFEC_POLAR_DCI_STEPS"), 0);
            ASSERT_EQ(gpu->backend(), backend_kind::cuda);
            for (size_t batch : { size_t(8), frames.size() }) {
                SCOPED_TRACE("batches of " + std::to_string(batch));
                const auto got =
                    test::engine_decode(gpu, frames, space.k + 16, false, batch);
                size_t ok = 0;
                for (size_t f = 0; f < frames.size(); f++) {
                    EXPECT_EQ(got.bits[f], ref.bits[f]) << "frame " << f;
                    EXPECT_EQ(got.status[f].ok, ref.status[f].ok) << "frame " << f;
                    ok += got.status[f].ok;
                }
                // The monitored senders' clean frames at least (2 of 3 senders, 5
                // levels, 6 noiseless frames each); the unmonitored sender's never.
                EXPECT_GE(ok, 60u);
                EXPECT_LT(ok, frames.size() * 2 / 3);
            }
        }
    }
    ASSERT_EQ(setenv("GPUFEC_POLAR_DCI_STEPS", "blocky", 1), 0);
    expect_error([&] { make_decoder(space, dci_search_options{}, "cuda:0"); },
                 { "GPUFEC_POLAR_DCI_STEPS=blocky", "allowed: auto, blocks, leaves" });
    ASSERT_EQ(unsetenv("GPUFEC_POLAR_DCI_STEPS"), 0);
    // "auto" takes the GPU for scl only; the other algorithms stay on the CPU there
    // and are refused on cuda, naming scl.
    dci_search_options o;
    EXPECT_EQ(make_decoder(space, o, "auto")->backend(), backend_kind::cuda);
    o.decoding.algorithm = polar_algorithm::sc;
    EXPECT_EQ(make_decoder(space, o, "auto")->backend(), backend_kind::cpu);
    expect_error([&] { make_decoder(space, o, "cuda:0"); }, { "allowed on cuda: scl" });
}

TEST(PolarCuda, BlindRntiDetectionMatchesCpu)
{
    // polar_decoder_options::rntis on one DCI code: every GPU algorithm gives the CPU's
    // payload, RNTI bits, verdicts and iterations (SC first too: fast-SSC's CRC check
    // and the list's accept the same RNTIs).
    REQUIRE_GPU();
    dci_search_space space;
    space.k = 40;
    space.aggregation_levels = { 2 };
    space.rntis = { 0x1234, 0x4b3c };
    const auto frames = draw_candidates(space, { 0x4b3c, 0x0bad, 0x1234 }, 33);
    const nr_polar_code code = nr_polar_code::dci(40, 216, 0);
    for (int v = 0; v <= num_variants; v++) {
        polar_decoder_options o = variant_options(v < num_variants ? v : 6); // scl-8
        o.sc_first = v == num_variants;
        o.rntis = space.rntis;
        SCOPED_TRACE(std::string(o.sc_first ? "sc-first " : "") + describe(o));
        auto cpu = make_decoder(code, o, "cpu");
        std::shared_ptr<batch_decoder> gpu = make_decoder(code, o, "cuda:0");
        EXPECT_FALSE(gpu->has_soft_output());
        const auto ref = test::decode_all(*cpu, frames, 56, true, false);
        const auto got = test::engine_decode(gpu, frames, 56, false);
        for (size_t f = 0; f < frames.size(); f++) {
            EXPECT_EQ(got.bits[f], ref.bits[f]) << "frame " << f;
            EXPECT_EQ(got.status[f].ok, ref.status[f].ok) << "frame " << f;
            EXPECT_EQ(got.status[f].iterations, ref.status[f].iterations)
                << "frame " << f;
        }
    }
}

TEST(PolarCuda, BpInt8MatchesCpu)
{
    // BP with the paper's 8-bit messages (bp_arithmetic int8): the CPU's bits, status,
    // iterations and soft output over puncturing, shortening, repetition and N = 32 ..
    // 1024, 50 iterations with early termination and 7 without.
    REQUIRE_GPU();
    const shape shapes[] = {
        { 20, 32, "crc6", true },     { 40, 100, "crc11", true },
        { 100, 150, "crc11", true },  { 300, 500, "crc24c", false },
        { 512, 1024, "crc11", true }, { 200, 1500, "crc11", true },
        { 600, 1000, "crc11", true }, { 25, 8000, "crc11", true },
    };
    for (const shape& sh : shapes)
        for (int v : { 2, 3 }) {
            polar_decoder_options o = variant_options(v);
            o.bp_arithmetic = polar_bp_arithmetic::int8;
            const nr_polar_code code(sh.k, sh.e, sh.crc, sh.interleave);
            SCOPED_TRACE(describe(o) + " k " + std::to_string(sh.k) + " e " +
                         std::to_string(sh.e));
            const auto frames = draw_frames(code, static_cast<uint32_t>(sh.k * 5 + sh.e));
            const size_t crc_ok = expect_gpu_matches_cpu(code, o, frames);
            if (frames.size() > 100)
                EXPECT_GE(crc_ok, 60u);
        }
}

// A batch larger than the GPU holds at once: BP int8's warps then take frames from the
// launch's counter (the engine's 64-frame batches above fit, and each warp decodes the
// frames of its place in the grid), over frames of uneven iteration counts. At N = 128
// a warp runs four frames side by side, each of its teams taking the next frame as
// its own stops while the others go on.
TEST(PolarCuda, BpInt8BatchLargerThanTheGpuHoldsMatchesCpu)
{
    REQUIRE_GPU();
#if GPUFEC_HAVE_CUDA
    int sms = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0),
              cudaSuccess);
    // At N = 1024 a warp decodes one frame at a time, of 22 144 bytes of shared memory:
    // an SM holds ten at most (228 KB on sm_90), so 32 frames an SM is three times the
    // grid. At N = 128 an SM holds 32 warps of four frames: 256 an SM is twice that.
    struct case_ {
        int k, e;
        size_t frames_per_sm;
    };
    for (const case_ c : { case_{ 512, 1024, 32 }, case_{ 64, 128, 256 } }) {
        const nr_polar_code code(c.k, c.e, "crc11", true);
        SCOPED_TRACE("N " + std::to_string(code.N()));
        polar_decoder_options o = variant_options(2); // 50 iterations, early termination
        o.bp_arithmetic = polar_bp_arithmetic::int8;
        std::vector<std::vector<llr8_t>> frames;
        for (uint32_t seed = 1; frames.size() <= c.frames_per_sm * sms; seed++) {
            const auto more = draw_frames(code, seed);
            frames.insert(frames.end(), more.begin(), more.end());
        }
        auto cpu = make_decoder(code, o, "cpu");
        const auto ref = test::decode_all(*cpu, frames, code.k(), true, false);
        const auto got = test::engine_decode(
            make_decoder(code, o, "cuda:0"), frames, code.k(), false, frames.size());
        size_t mismatches = 0, most_iterations = 0;
        for (size_t f = 0; f < frames.size(); f++) {
            mismatches += got.bits[f] != ref.bits[f] ||
                          got.status[f].ok != ref.status[f].ok ||
                          got.status[f].iterations != ref.status[f].iterations;
            most_iterations = std::max<size_t>(most_iterations, ref.status[f].iterations);
        }
        EXPECT_EQ(mismatches, 0u) << "of " << frames.size() << " frames";
        EXPECT_EQ(most_iterations, 50u); // the -1 dB frames run to the limit
    }
#else
    GTEST_SKIP() << "built without CUDA";
#endif
}
