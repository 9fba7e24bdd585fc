/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// GPU turbo decoding (issue 12): the CUDA decoder (synchronised schedule) against the
// CPU decoder through the engine, bit for bit (payload bits, iterations, CRC status,
// soft output) for int16 and int8, scaled and plain max-log-MAP, K = 40 .. 6144,
// sub_blocks 1 .. 512 (both kernels), with and without CRC and early termination;
// what it refuses.
// Skipped without a device. (The kernel's schedule is also checked on the host against
// the CPU decoder by test_turbo_steps.)
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/turbo_decoding.h>

#include "test_helpers.h"
#include <gtest/gtest.h>

#if GPUFEC_HAVE_CUDA
#include "cuda/turbo/turbo_cuda.h"
#endif

#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace gpufec;
using gpufec::test::expect_error;

#if GPUFEC_HAVE_CUDA
namespace {

bool have_gpu() { return cuda_device_count() > 0; }

//! Decodes `frames_per_point` frames at each of several Eb/N0 (noiseless included) on
//! the CPU and, through the engine, on the GPU (with and without soft output), and
//! expects the same bits, iterations, CRC status and soft output.
void expect_gpu_equals_cpu(
    const lte_turbo_code& code,
    const turbo_decoder_options& o,
    int frames_per_point,
    std::mt19937& rng,
    cuda::turbo_cuda_kernel kernel = cuda::turbo_cuda_kernel::automatic)
{
    auto cpu = make_turbo_decoder_cpu(code, o);
    std::shared_ptr<batch_decoder> gpu = cuda::make_turbo_decoder(code, o, 0, kernel);
    std::vector<std::vector<llr8_t>> frames;
    for (double ebn0 : { 0.0, 0.5, 1.0, 2.0, test::noiseless })
        for (int f = 0; f < frames_per_point; f++) {
            const auto payload = test::random_bits(rng, code.info_bits());
            std::vector<uint8_t> coded(code.coded_bits());
            lte_turbo_encode(code, payload.data(), coded.data());
            frames.push_back(test::awgn_llrs(coded, code.rate(), ebn0, rng));
        }
    const auto ref = test::decode_all(*cpu, frames, code.info_bits(), true, true);
    for (bool soft : { true, false }) {
        const auto got = test::engine_decode(gpu, frames, code.info_bits(), soft);
        int wrong = 0;
        for (size_t f = 0; f < frames.size() && wrong < 5; f++) {
            const bool same = got.bits[f] == ref.bits[f] &&
                              got.status[f].iterations == ref.status[f].iterations &&
                              got.status[f].ok == ref.status[f].ok &&
                              (!soft || got.soft[f] == ref.soft[f]);
            EXPECT_TRUE(same) << "frame " << f << ": iterations "
                              << got.status[f].iterations << " vs "
                              << ref.status[f].iterations << ", ok " << got.status[f].ok
                              << " vs " << ref.status[f].ok << ", bits "
                              << (got.bits[f] == ref.bits[f] ? "equal" : "differ")
                              << (soft ? (got.soft[f] == ref.soft[f] ? ", soft equal"
                                                                     : ", soft differs")
                                       : "");
            wrong += !same;
        }
    }
}

turbo_decoder_options variant_options(turbo_arithmetic ar, int variant, int sub_blocks)
{
    turbo_decoder_options o;
    o.arithmetic = ar;
    o.algorithm =
        variant % 2 ? turbo_algorithm::max_log_map : turbo_algorithm::scaled_max_log_map;
    o.sub_blocks = sub_blocks;
    o.early_termination = variant != 3;
    return o;
}

} // namespace

TEST(TurboCuda, SynchronisedScheduleMatchesCpuBitForBit)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    std::mt19937 rng(41);
    struct case_t {
        int k;
        bool crc;
    };
    for (const case_t& c : { case_t{ 40, false },
                             case_t{ 512, true },
                             case_t{ 1056, true },
                             case_t{ 6144, true },
                             case_t{ 2112, false },
                             case_t{ 4032, true } })
        for (turbo_arithmetic ar : { turbo_arithmetic::int16, turbo_arithmetic::int8 })
            for (int variant = 0; variant < 4; variant++) {
                const int p =
                    std::min(c.k / 8, variant < 2 ? 1 : (variant == 2 ? 8 : 64));
                SCOPED_TRACE("K " + std::to_string(c.k) + " variant " +
                             std::to_string(variant) + " sub_blocks " +
                             std::to_string(p));
                expect_gpu_equals_cpu(
                    lte_turbo_code(c.k, c.crc), variant_options(ar, variant, p), 6, rng);
            }
}

// The thread-per-window kernel (windows of at most 32 steps): many windows per code
// block, many code blocks per thread block.
TEST(TurboCuda, WindowKernelMatchesCpuBitForBit)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    std::mt19937 rng(43);
    struct case_t {
        int k, sub_blocks;
        bool crc;
        int frames_per_point;
    };
    for (const case_t& c : { case_t{ 40, 2, false, 40 },
                             case_t{ 40, 5, true, 40 },
                             case_t{ 512, 16, true, 8 },
                             case_t{ 512, 64, false, 8 },
                             case_t{ 1056, 33, true, 8 },
                             case_t{ 3200, 100, true, 6 },
                             case_t{ 6144, 192, true, 4 },
                             case_t{ 6144, 256, false, 4 },
                             case_t{ 6144, 512, true, 4 } })
        for (turbo_arithmetic ar : { turbo_arithmetic::int16, turbo_arithmetic::int8 })
            for (int variant = 0; variant < 4; variant++) {
                const lte_turbo_code code(c.k, c.crc);
                const turbo_decoder_options o =
                    variant_options(ar, variant, c.sub_blocks);
                ASSERT_TRUE(cuda::turbo_cuda_window_kernel(code, o));
                SCOPED_TRACE("K " + std::to_string(c.k) + " sub_blocks " +
                             std::to_string(c.sub_blocks) + " variant " +
                             std::to_string(variant));
                expect_gpu_equals_cpu(
                    code, o, c.frames_per_point, rng, cuda::turbo_cuda_kernel::window);
            }
    // Random block sizes, each with the fewest windows the kernel takes (K / 32 rounded
    // up: exact 32-step windows where 32 divides K) and a random count above that.
    const std::vector<int> sizes = lte_turbo_code::block_sizes();
    for (int trial = 0; trial < 6; trial++) {
        const int k =
            sizes[std::uniform_int_distribution<size_t>(0, sizes.size() - 1)(rng)];
        const int fewest = (k + 31) / 32;
        const int more =
            std::uniform_int_distribution<int>(fewest, std::min(512, k / 8))(rng);
        for (int p : { fewest, more }) {
            const lte_turbo_code code(k, trial % 2 == 0);
            const turbo_decoder_options o = variant_options(
                trial % 3 ? turbo_arithmetic::int16 : turbo_arithmetic::int8,
                trial % 4,
                p);
            ASSERT_TRUE(cuda::turbo_cuda_window_kernel(code, o));
            SCOPED_TRACE("random K " + std::to_string(k) + " sub_blocks " +
                         std::to_string(p));
            expect_gpu_equals_cpu(code, o, 3, rng, cuda::turbo_cuda_kernel::window);
        }
    }
}

// The multi-SM kernel (a code block over a cluster of up to 8 SMs), synchronised: the
// same decisions as the CPU. Clusters of 1 (K = 40, 512) to 8 (512 windows), more code
// blocks than resident clusters, rate matching.
TEST(TurboCuda, ClusterKernelMatchesCpuBitForBit)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    std::mt19937 rng(61);
    struct case_t {
        int k, sub_blocks;
        bool crc;
        int frames_per_point, e;
    };
    for (const case_t& c : { case_t{ 40, 2, false, 40, 0 },
                             case_t{ 512, 16, true, 8, 0 },
                             case_t{ 1056, 33, true, 8, 0 },
                             case_t{ 3200, 100, true, 6, 0 },
                             case_t{ 6144, 192, true, 8, 0 },
                             case_t{ 6144, 192, true, 4, 15000 },
                             case_t{ 6144, 512, false, 4, 0 } })
        for (turbo_arithmetic ar : { turbo_arithmetic::int16, turbo_arithmetic::int8 })
            for (int variant = 0; variant < 4; variant++) {
                const lte_turbo_code code(c.k, c.crc, c.e);
                SCOPED_TRACE(code.describe() + " sub_blocks " +
                             std::to_string(c.sub_blocks) + " variant " +
                             std::to_string(variant));
                expect_gpu_equals_cpu(code,
                                      variant_options(ar, variant, c.sub_blocks),
                                      c.frames_per_point,
                                      rng,
                                      cuda::turbo_cuda_kernel::cluster);
            }
}

// The paper's loosely synchronised schedule costs at most 0.1 dB at BER 1e-4 (K = 6144,
// 192 windows of 32 steps, 6 iterations): the synchronised decoder's BER at 0.8 dB (about
// 1e-4) is not beaten by the loose one's at 0.9 dB only if the loose one lost more.
// Every point decodes the same frames and the same unit normals, scaled by its sigma
// (common random numbers): with fresh noise per point and 600 frames the comparison
// failed in one of two runs of the same code on 2026-11-29 (loose 0.9 dB 2.7e-4 against
// synchronised 0.8 dB 2.0e-4). The loose schedule itself varies between runs (its
// windows race): over 1000 frames its 0.9 dB BER was 1.27, 1.53 and 2.22e-4 in three
// calls against the synchronised 1.74e-4, so the test decodes 2000 frames and allows
// that spread, a BER factor of 1.3: on this slope (loose 0.8 -> 0.9 dB: ~3x) about
// 0.02 dB, so the assertion is "within ~0.12 dB".
TEST(TurboCuda, LooseScheduleWithinATenthOfADb)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    const lte_turbo_code code(6144);
    turbo_decoder_options sync;
    sync.sub_blocks = 192;
    turbo_decoder_options loose = sync;
    loose.schedule = turbo_schedule::loose;
    std::shared_ptr<batch_decoder> gpu_sync = cuda::make_turbo_decoder(code, sync, 0);
    std::shared_ptr<batch_decoder> gpu_loose = cuda::make_turbo_decoder(code, loose, 0);
    const int frames = 2000;
    auto ber = [&](std::shared_ptr<batch_decoder> dec, double ebn0) {
        std::mt19937 rng(67);
        std::vector<std::vector<llr8_t>> llrs;
        std::vector<std::vector<uint8_t>> sent;
        for (int f = 0; f < frames; f++) {
            sent.push_back(test::random_bits(rng, code.info_bits()));
            std::vector<uint8_t> coded(code.coded_bits());
            lte_turbo_encode(code, sent.back().data(), coded.data());
            llrs.push_back(test::awgn_llrs(coded, code.rate(), ebn0, rng));
        }
        const auto got = test::engine_decode(dec, llrs, code.info_bits(), false);
        size_t errors = 0;
        for (int f = 0; f < frames; f++)
            for (int i = 0; i < code.info_bits(); i++)
                errors += got.bits[f][i] != sent[f][i];
        return double(errors) / (double(frames) * code.info_bits());
    };
    const double sync_08 = ber(gpu_sync, 0.8), loose_08 = ber(gpu_loose, 0.8),
                 loose_09 = ber(gpu_loose, 0.9);
    std::printf("[ loose    ] BER synchronised 0.8 dB %.3g, loose 0.8 dB %.3g, loose "
                "0.9 dB %.3g\n",
                sync_08,
                loose_08,
                loose_09);
    EXPECT_GT(sync_08, 1e-5); // the comparison point is on the waterfall
    EXPECT_GT(loose_08, sync_08); // the loose schedule does cost something
    EXPECT_LE(loose_09, 1.3 * sync_08);
}

// More code blocks than the device holds at once (the kernel loops over them), in
// several engine slots decoding at the same time.
TEST(TurboCuda, WindowKernelManyCodeBlocks)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    std::mt19937 rng(47);
    for (int k : { 6144, 40 }) {
        const lte_turbo_code code(k, true);
        const turbo_decoder_options o =
            variant_options(turbo_arithmetic::int8, 0, (k + 31) / 32);
        ASSERT_TRUE(cuda::turbo_cuda_window_kernel(code, o));
        SCOPED_TRACE("K " + std::to_string(k));
        expect_gpu_equals_cpu(
            code, o, k == 40 ? 2000 : 160, rng, cuda::turbo_cuda_kernel::window);
    }
}

// Rate matching (puncturing, repetition, every rv, a limited soft buffer) and filler
// bits, de-rate-matched on the device from the E received LLRs: the same decisions as
// the CPU decoder, which de-rate-matches on the host. Both kernels.
TEST(TurboCuda, RateMatchingAndFillerMatchCpuBitForBit)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    std::mt19937 rng(53);
    struct case_t {
        int k;
        bool crc;
        int e, rv, n_cb, filler, sub_blocks;
    };
    for (const case_t& c : { case_t{ 6144, true, 12000, 0, 0, 0, 192 },   // punctured
                             case_t{ 6144, true, 0, 0, 0, 40, 192 },      // filler only
                             case_t{ 1056, true, 4000, 2, 0, 0, 33 },     // repeated
                             case_t{ 40, false, 100, 3, 0, 0, 2 },        // repeated
                             case_t{ 512, true, 1200, 1, 0, 8, 8 },       // block kernel
                             case_t{ 2112, true, 5000, 0, 5000, 24, 66 }, // N_cb < K_w
                             case_t{ 2112, true, 3000, 1, 5000, 24, 4 } })
        for (turbo_arithmetic ar : { turbo_arithmetic::int16, turbo_arithmetic::int8 }) {
            const lte_turbo_code code(c.k, c.crc, c.e, c.rv, c.n_cb, c.filler);
            SCOPED_TRACE(code.describe() + " sub_blocks " + std::to_string(c.sub_blocks));
            expect_gpu_equals_cpu(code, variant_options(ar, 0, c.sub_blocks), 6, rng);
        }
}

// The BER check on the GPU: K = 6144, no bit errors in at least 1e6 bits at
// Eb/N0 = 1.0 dB; 6 iterations with windows of 96 steps (the block kernel), 8 with
// windows of 32 (the window kernel: windows that short converge more slowly;
// docs/turbo.md has the trade-off table).
TEST(TurboCuda, NoBitErrorsAtOneDb)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    std::mt19937 rng(59);
    const lte_turbo_code code(6144);
    const int frames = 1000000 / code.info_bits() + 1;
    std::vector<std::vector<llr8_t>> llrs;
    std::vector<std::vector<uint8_t>> sent;
    for (int f = 0; f < frames; f++) {
        sent.push_back(test::random_bits(rng, code.info_bits()));
        std::vector<uint8_t> coded(code.coded_bits());
        lte_turbo_encode(code, sent.back().data(), coded.data());
        llrs.push_back(test::awgn_llrs(coded, code.rate(), 1.0, rng));
    }
    struct case_t {
        int sub_blocks, iterations;
    };
    for (const case_t& c : { case_t{ 64, 6 }, case_t{ 192, 8 } })
        for (turbo_arithmetic ar : { turbo_arithmetic::int16, turbo_arithmetic::int8 }) {
            turbo_decoder_options o;
            o.arithmetic = ar;
            o.sub_blocks = c.sub_blocks;
            o.iterations = c.iterations;
            std::shared_ptr<batch_decoder> gpu = cuda::make_turbo_decoder(code, o, 0);
            const auto got = test::engine_decode(gpu, llrs, code.info_bits(), false);
            size_t errors = 0;
            for (int f = 0; f < frames; f++)
                for (int i = 0; i < code.info_bits(); i++)
                    errors += got.bits[f][i] != sent[f][i];
            EXPECT_EQ(errors, 0u)
                << "over " << frames * code.info_bits() << " bits, " << c.sub_blocks
                << " windows, " << c.iterations << " iterations";
        }
}

// On a GPU with 99 KiB of shared memory a block (sm_86 and sm_89; GPUFEC_TEST_MAX_SMEM
// makes this one behave so): K = 6144 in windows of 32 steps takes the window kernel
// with the CPU's decisions (the per-block kernel, 130 KiB here, is not set up at all);
// windows too long for the window kernel need that per-block kernel and are refused
// with the limit named.
TEST(TurboCuda, FitsAGpuWith99KiBOfSharedMemoryABlock)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    test::scoped_env guard("GPUFEC_TEST_MAX_SMEM", "101376");
    std::mt19937 rng(99);
    for (auto ar : { turbo_arithmetic::int16, turbo_arithmetic::int8 }) {
        SCOPED_TRACE(ar == turbo_arithmetic::int8 ? "int8" : "int16");
        expect_gpu_equals_cpu(
            lte_turbo_code(6144, true), variant_options(ar, 0, 192), 3, rng);
        expect_gpu_equals_cpu(
            lte_turbo_code(512, false), variant_options(ar, 0, 16), 3, rng);
    }
    try {
        cuda::make_turbo_decoder(
            lte_turbo_code(6144), variant_options(turbo_arithmetic::int16, 0, 8), 0);
        ADD_FAILURE() << "K = 6144 with 8 windows accepted at 99 KiB";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("allowed on CUDA device 0: up to 101376"),
                  std::string::npos)
            << e.what();
    }
}

TEST(TurboCuda, RefusesWhatItDoesNotTake)
{
    if (!have_gpu())
        GTEST_SKIP() << "no CUDA device available";
    turbo_decoder_options o;
    o.arithmetic = turbo_arithmetic::float32;
    expect_error([&] { cuda::make_turbo_decoder(lte_turbo_code(512), o, 0); },
                 { "int8, int16" });
    o.arithmetic = turbo_arithmetic::int16;
    o.sub_blocks = 100; // windows of 62 steps: neither kernel
    expect_error([&] { cuda::make_turbo_decoder(lte_turbo_code(6144), o, 0); },
                 { "1..64" });
    o.sub_blocks = 8; // windows of 64 steps: the block kernel, no loose schedule
    o.schedule = turbo_schedule::loose;
    expect_error([&] { cuda::make_turbo_decoder(lte_turbo_code(512), o, 0); },
                 { "windows of at most 32 steps" });
    o.schedule = turbo_schedule::synchronised;
    o.sub_blocks = 1;
    auto gpu = cuda::make_turbo_decoder(lte_turbo_code(512), o, 0);
    expect_error([&] { gpu->output_bits_for_input(1000); }, { "1548" });
    auto matched = cuda::make_turbo_decoder(lte_turbo_code(512, true, 1000), o, 0);
    expect_error([&] { matched->output_bits_for_input(1548); }, { "1000" });
}
#endif
