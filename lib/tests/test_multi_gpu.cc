/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The device choice. On one GPU: device_guard gives a thread back the context it had
// (none, its own, nested guards). On two (backend "cuda:1"; skipped with fewer): every
// decoder family and the sources give the CPU's results there, two GPUs decode at
// once, and work meant for GPU 1 opens no context on GPU 0. Compiled to a skip without
// CUDA.
#include "test_helpers.h"
#include <gpufec/awgn_source.h>
#include <gpufec/backends.h>
#include <gpufec/ldpc.h>
#include <gpufec/ldpc_decoding.h>
#include <gpufec/polar.h>
#include <gpufec/polar_decoding.h>
#include <gpufec/turbo.h>
#include <gpufec/turbo_decoding.h>
#include <gpufec/viterbi.h>
#include <gtest/gtest.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#ifdef GPUFEC_HAVE_CUDA
#include "cuda/common/cuda_utils.h"
#endif

namespace gpufec {
namespace {

#ifdef GPUFEC_HAVE_CUDA

bool two_gpus() { return cuda_device_count() >= 2; }

// A thread that never chose a device has no context before a guard and none after it,
// however the guards nest and in either form.
TEST(DeviceGuard, AThreadWithoutContextGetsNoneBack)
{
    if (cuda_device_count() < 1)
        GTEST_SKIP() << "no CUDA device available";
    std::thread([] {
        EXPECT_FALSE(cuda::thread_has_context());
        {
            cuda::device_guard outer(0);
            EXPECT_TRUE(cuda::thread_has_context());
            EXPECT_EQ(cuda::current_device(), 0);
            {
                cuda::device_guard inner(0);
                EXPECT_TRUE(cuda::thread_has_context());
            }
            EXPECT_TRUE(cuda::thread_has_context()); // the outer guard's still
        }
        EXPECT_FALSE(cuda::thread_has_context());
        {
            cuda::device_guard quiet(0, std::nothrow);
            EXPECT_TRUE(quiet.ok());
            EXPECT_TRUE(cuda::thread_has_context());
        }
        EXPECT_FALSE(cuda::thread_has_context());
    }).join();
}

// A thread with a context keeps it, and device 1's guard inside device 0's returns it
// to device 0 (two GPUs).
TEST(DeviceGuard, AThreadWithAContextKeepsIt)
{
    if (cuda_device_count() < 1)
        GTEST_SKIP() << "no CUDA device available";
    std::thread([] {
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        ASSERT_TRUE(cuda::thread_has_context());
        {
            cuda::device_guard same(0);
            EXPECT_EQ(cuda::current_device(), 0);
            if (two_gpus()) {
                cuda::device_guard other(1);
                EXPECT_EQ(cuda::current_device(), 1);
            }
            EXPECT_EQ(cuda::current_device(), 0);
        }
        EXPECT_TRUE(cuda::thread_has_context());
        EXPECT_EQ(cuda::current_device(), 0);
    }).join();
}

// A guard for a device that does not exist: the throwing form raises, the nothrow form
// says so through ok(), and the thread is as before.
TEST(DeviceGuard, ANonexistentDeviceIsReported)
{
    if (cuda_device_count() < 1)
        GTEST_SKIP() << "no CUDA device available";
    std::thread([] {
        const int missing = cuda_device_count();
        EXPECT_THROW({ cuda::device_guard guard(missing); }, error);
        {
            cuda::device_guard quiet(missing, std::nothrow);
            EXPECT_FALSE(quiet.ok());
        }
        EXPECT_FALSE(cuda::thread_has_context());
        EXPECT_EQ(cudaGetLastError(), cudaSuccess); // no error left behind
    }).join();
}

//! int8 frames (scale 8, as the engine quantizes) from a CPU source.
std::vector<std::vector<llr8_t>> source_frames(awgn_bpsk_source& source, size_t count)
{
    const size_t n = source.llrs_per_frame();
    std::vector<float> llrs(count * n);
    source.generate(0, count, llrs.data(), nullptr);
    std::vector<std::vector<llr8_t>> frames(count, std::vector<llr8_t>(n));
    for (size_t f = 0; f < count; f++)
        quantize_llrs(llrs.data() + f * n, frames[f].data(), n, 8.0f);
    return frames;
}

template <class Code>
frame_code as_frame_code(const Code& code, size_t info, size_t coded)
{
    frame_code fc;
    fc.info_bits = info;
    fc.coded_bits = coded;
    fc.encode = [code](const uint8_t* in, uint8_t* out) { code.encode(in, out); };
    fc.description = "test code";
    return fc;
}

std::vector<std::vector<llr8_t>>
frames_of(const frame_code& fc, double ebn0_db, uint64_t seed, size_t count)
{
    awgn_frame_source_options o;
    o.ebn0_db = ebn0_db;
    o.seed = seed;
    auto source = make(fc, o, "cpu");
    return source_frames(*source, count);
}

//! The decoder on `backend` (a GPU) through the engine against the CPU decoder: bits,
//! status and (where the decoder has it) soft output of every frame.
template <class Code, class Options>
void expect_like_cpu(const Code& code,
                     const Options& options,
                     const std::vector<std::vector<llr8_t>>& frames,
                     size_t k,
                     const std::string& backend,
                     const std::string& what)
{
    SCOPED_TRACE(what + " on " + backend);
    auto cpu = make_decoder(code, options, "cpu");
    std::shared_ptr<batch_decoder> gpu = make_decoder(code, options, backend);
    ASSERT_EQ(gpu->backend(), backend_kind::cuda);
    EXPECT_EQ(gpu->device(), parse_backend(backend).device);
    const bool soft = gpu->has_soft_output();
    const auto ref = test::decode_all(*cpu, frames, k, true, soft);
    const auto got = test::engine_decode(gpu, frames, int(k), soft);
    size_t differ = 0, crc_ok = 0;
    for (size_t f = 0; f < frames.size(); f++) {
        differ += got.bits[f] != ref.bits[f] || got.status[f].ok != ref.status[f].ok ||
                  got.status[f].iterations != ref.status[f].iterations ||
                  (soft && got.soft[f] != ref.soft[f]);
        crc_ok += ref.status[f].ok;
    }
    EXPECT_EQ(differ, 0u) << "frames differing from the CPU, of " << frames.size();
    EXPECT_GT(crc_ok, 0u); // frames near the waterfall, of which some decode
}

struct family_frames {
    conv_code conv{ 2048 };
    nr_ldpc_code ldpc{ 1, 52, 0, 0 };
    nr_polar_code polar{ 512, 1024 };
    lte_turbo_code turbo{ 1024, true };
    std::vector<std::vector<llr8_t>> conv_frames, ldpc_frames, polar_frames, turbo_frames;

    family_frames()
    {
        awgn_source_options co;
        co.ebn0_db = 3.0;
        co.seed = 11;
        auto conv_source = make(conv, co, "cpu");
        conv_frames = source_frames(*conv_source, 96);
        ldpc_frames = frames_of(
            as_frame_code(ldpc, size_t(ldpc.k()), size_t(ldpc.e())), 1.0, 12, 96);
        polar_frames = frames_of(
            as_frame_code(polar, size_t(polar.k()), size_t(polar.e())), 1.5, 13, 160);
        frame_code tc;
        tc.info_bits = size_t(turbo.info_bits());
        tc.coded_bits = turbo.coded_bits();
        tc.encode = [code = turbo](const uint8_t* in, uint8_t* out) {
            lte_turbo_encode(code, in, out);
        };
        tc.description = "LTE turbo K=1024";
        turbo_frames = frames_of(tc, 0.8, 14, 96);
    }
};

const family_frames& families()
{
    static const family_frames f;
    return f;
}

//! Every decoder family of the product on `backend`, against the CPU.
void expect_every_family_like_cpu(const std::string& backend)
{
    const family_frames& f = families();
    expect_like_cpu(f.conv,
                    viterbi_options{},
                    f.conv_frames,
                    size_t(f.conv.frame_bits()),
                    backend,
                    "viterbi K=7");
    for (auto arithmetic : { ldpc_arithmetic::int8, ldpc_arithmetic::half })
        expect_like_cpu(f.ldpc.graph(),
                        test::ldpc_opts(arithmetic),
                        f.ldpc_frames,
                        size_t(f.ldpc.k()),
                        backend,
                        arithmetic == ldpc_arithmetic::int8 ? "LDPC int8" : "LDPC half");
    polar_decoder_options po;
    po.algorithm = polar_algorithm::fast_ssc;
    expect_like_cpu(
        f.polar, po, f.polar_frames, size_t(f.polar.k()), backend, "fast-SSC");
    po.algorithm = polar_algorithm::scl;
    po.list_size = 8;
    expect_like_cpu(
        f.polar, po, f.polar_frames, size_t(f.polar.k()), backend, "CA-SCL-8");
    po.algorithm = polar_algorithm::bp;
    po.bp_arithmetic = polar_bp_arithmetic::int8;
    expect_like_cpu(f.polar, po, f.polar_frames, size_t(f.polar.k()), backend, "BP int8");
    expect_like_cpu(f.turbo,
                    turbo_decoder_options{},
                    f.turbo_frames,
                    size_t(f.turbo.info_bits()),
                    backend,
                    "turbo K=1024");
}

TEST(MultiGpu, EveryDecoderFamilyOnTheSecondGpuDecodesAsTheCpu)
{
    if (!two_gpus())
        GTEST_SKIP() << "fewer than two CUDA devices";
    expect_every_family_like_cpu("cuda:1");
}

//! A GPU source's frames, by generate() and by generate_device() into memory of its
//! device, against the CPU source's.
template <class Code, class Options>
void expect_source_like_cpu(const Code& code, const Options& o, const std::string& what)
{
    SCOPED_TRACE(what);
    auto cpu = make(code, o, "cpu");
    auto gpu = make(code, o, "cuda:1");
    ASSERT_EQ(gpu->backend(), backend_kind::cuda);
    EXPECT_EQ(gpu->device(), 1);
    const size_t frames = 40, n = cpu->llrs_per_frame(), k = cpu->bits_per_frame();
    std::vector<float> ref(frames * n), got(frames * n);
    std::vector<uint8_t> ref_bits(frames * k), got_bits(frames * k);
    cpu->generate(7, frames, ref.data(), ref_bits.data());
    gpu->generate(7, frames, got.data(), got_bits.data());
    EXPECT_EQ(got, ref) << "generate()";
    EXPECT_EQ(got_bits, ref_bits) << "generate()";

    cuda::device_guard on(1);
    cuda::device_buffer<float> llrs(frames * n);
    cuda::device_buffer<uint8_t> bits(frames * k);
    cuda::stream s;
    gpu->generate_device(7, frames, llrs.get(), bits.get(), s.get());
    std::fill(got.begin(), got.end(), 0.0f);
    std::fill(got_bits.begin(), got_bits.end(), 2);
    ASSERT_EQ(cudaMemcpyAsync(
                  got.data(), llrs.get(), llrs.bytes(), cudaMemcpyDeviceToHost, s.get()),
              cudaSuccess);
    ASSERT_EQ(
        cudaMemcpyAsync(
            got_bits.data(), bits.get(), bits.bytes(), cudaMemcpyDeviceToHost, s.get()),
        cudaSuccess);
    s.synchronize();
    EXPECT_EQ(got, ref) << "generate_device()";
    EXPECT_EQ(got_bits, ref_bits) << "generate_device()";
}

TEST(MultiGpu, SourcesOnTheSecondGpuMakeTheCpuFrames)
{
    if (!two_gpus())
        GTEST_SKIP() << "fewer than two CUDA devices";
    awgn_source_options co;
    co.ebn0_db = 2.0;
    co.seed = 21;
    expect_source_like_cpu(conv_code(1000), co, "conv K=7");
    awgn_frame_source_options fo;
    fo.ebn0_db = 1.0;
    fo.seed = 22;
    const nr_ldpc_code ldpc(2, 64, 0, 0);
    frame_code lc = as_frame_code(ldpc, size_t(ldpc.k()), size_t(ldpc.e()));
    lc.nr_ldpc = std::make_shared<const nr_ldpc_code>(ldpc);
    expect_source_like_cpu(lc, fo, "NR LDPC (its own encoder)");
    const nr_polar_code polar(200, 600);
    expect_source_like_cpu(as_frame_code(polar, size_t(polar.k()), size_t(polar.e())),
                           fo,
                           "polar (the generator matrix)");
}

// Both GPUs at once, from two threads, each with its own engines: each gets the CPU's
// results (no device state leaks between the threads' decoders).
TEST(MultiGpu, BothGpusDecodeAtOnce)
{
    if (!two_gpus())
        GTEST_SKIP() << "fewer than two CUDA devices";
    families(); // made once, before the threads
    std::thread first([] { expect_every_family_like_cpu("cuda:0"); });
    std::thread second([] { expect_every_family_like_cpu("cuda:1"); });
    first.join();
    second.join();
}

//! Runs in a child process that has touched no GPU: builds, runs and drops decoders, an
//! engine and a source on GPU 1, from this thread and from a new one, checking after
//! each step that GPU 0 has no context; exits 0 when it never got one.
[[noreturn]] void work_on_second_gpu_only()
{
    auto check = [](const char* step) {
        if (cuda::primary_context_active(0)) {
            std::fprintf(stderr, "GPU 0 has a context after: %s\n", step);
            std::fflush(stderr);
            std::_Exit(1);
        }
    };
    check("start");
    const family_frames& f = families();
    check("frames made on the CPU");
    {
        std::shared_ptr<batch_decoder> ldpc = make_decoder(
            f.ldpc.graph(), test::ldpc_opts(ldpc_arithmetic::half), "cuda:1");
        check("LDPC decoder made");
        test::engine_decode(ldpc, f.ldpc_frames, f.ldpc.k(), true);
        check("LDPC frames decoded through the engine");
        if (ldpc->backend() != backend_kind::cuda || !cuda::primary_context_active(1)) {
            std::fprintf(stderr, "the LDPC decoder did not run on GPU 1\n");
            std::_Exit(5);
        }
        polar_decoder_options po;
        std::shared_ptr<batch_decoder> polar = make_decoder(f.polar, po, "cuda:1");
        test::engine_decode(polar, f.polar_frames, f.polar.k(), false);
        check("polar frames decoded");
        awgn_frame_source_options so;
        auto source =
            make(as_frame_code(f.polar, size_t(f.polar.k()), size_t(f.polar.e())),
                 so,
                 "cuda:1");
        std::vector<float> llrs(8 * source->llrs_per_frame());
        source->generate(0, 8, llrs.data(), nullptr);
        check("source frames made");
    }
    check("decoders, engines and source dropped");
    if (cuda::thread_has_context()) {
        std::fprintf(stderr, "the main thread kept a context it did not have before\n");
        std::_Exit(2);
    }
    // A new thread that never chose a device, dropping what it made.
    bool thread_kept_context = true;
    std::thread([&] {
        std::shared_ptr<batch_decoder> turbo =
            make_decoder(f.turbo, turbo_decoder_options{}, "cuda:1");
        test::engine_decode(turbo, f.turbo_frames, f.turbo.info_bits(), false);
        turbo.reset();
        thread_kept_context = cuda::thread_has_context();
    }).join();
    check("a turbo decoder on a new thread");
    if (thread_kept_context) {
        std::fprintf(stderr, "the new thread kept a context it did not have before\n");
        std::_Exit(3);
    }
    // The check itself sees a context on GPU 0 once there is one (what the old guard's
    // restore of "device 0" did).
    if (cudaSetDevice(0) != cudaSuccess || !cuda::primary_context_active(0)) {
        std::fprintf(stderr, "a context on GPU 0 went unseen\n");
        std::_Exit(4);
    }
    std::_Exit(0);
}

TEST(MultiGpuDeathTest, WorkOnTheSecondGpuOpensNoContextOnTheFirst)
{
    if (!two_gpus())
        GTEST_SKIP() << "fewer than two CUDA devices";
    // "threadsafe": the child is a fresh process that runs only this test, so it starts
    // with no context on any GPU whatever the tests before it did.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(work_on_second_gpu_only(), ::testing::ExitedWithCode(0), "");
}

#else

TEST(DeviceGuard, AThreadWithoutContextGetsNoneBack)
{
    GTEST_SKIP() << "built without CUDA";
}

TEST(MultiGpu, EveryDecoderFamilyOnTheSecondGpuDecodesAsTheCpu)
{
    GTEST_SKIP() << "built without CUDA";
}

#endif

} // namespace
} // namespace gpufec
