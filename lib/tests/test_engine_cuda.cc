/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The engine over the CUDA slot backend with a decoder of exactly known output: bits,
// statuses and soft output come back through the device buffers and D2H copies, in
// order. Skipped without a device (and compiled to a skip without CUDA).
#include "test_helpers.h"
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/viterbi.h>
#include <gtest/gtest.h>
#include <cstring>
#include <random>
#include <vector>

#ifdef GPUFEC_HAVE_CUDA
#include "engine/fault_injection.h"
#include <cuda_runtime.h>
#endif

namespace gpufec {
namespace {

#ifdef GPUFEC_HAVE_CUDA

void check(cudaError_t e)
{
    if (e != cudaSuccess)
        throw error(std::string("CUDA: ") + cudaGetErrorString(e));
}

//! Noisy frames of a convolutional code from the AWGN/BPSK source: float LLRs and the
//! int8 LLRs the engine would make of them (scale 8).
struct conv_frames {
    size_t n = 0, k = 0; //!< LLRs and information bits per frame
    std::vector<float> llrs;
    std::vector<llr8_t> llrs8;
};
conv_frames
make_conv_frames(const conv_code& code, double ebn0_db, uint64_t seed, size_t frames)
{
    auto source = make_awgn_bpsk_source(code, ebn0_db, seed, backend_spec{});
    conv_frames f;
    f.n = source->llrs_per_frame();
    f.k = source->bits_per_frame();
    f.llrs.resize(frames * f.n);
    source->generate(0, frames, f.llrs.data(), nullptr);
    f.llrs8.resize(f.llrs.size());
    quantize_llrs(f.llrs.data(), f.llrs8.data(), f.llrs.size(), 8.0f);
    return f;
}

/*!
 * A "CUDA decoder" that reads its device input back to the host, decides one bit per
 * LLR (1 when negative), soft = 0.25 * LLR, and writes output and soft to the device
 * buffers on the slot's stream, so everything the slot backend moves is checked.
 */
class echo_cuda_decoder : public batch_decoder
{
public:
    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return 0; }
    bool has_soft_output() const override { return true; }
    size_t max_input_items_per_frame() const override { return 300; }
    size_t output_bits_for_input(size_t items) const override
    {
        if (items == 0 || items > 300)
            throw error("echo decoder: 1..300 LLRs");
        return items;
    }
    size_t default_input_items() const override { return 300; }
    size_t default_output_bits() const override { return 300; }
    std::string name() const override { return "echo cuda decoder"; }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        auto stream = static_cast<cudaStream_t>(ctx.stream);
        const frame_extent& last = batch.frames[batch.num_frames - 1];
        const size_t items = last.in_offset + last.in_items;
        const size_t bytes = last.out_offset + aligned_packed_bytes(last.out_bits);
        in.resize(items);
        check(
            cudaMemcpyAsync(in.data(), batch.in, items, cudaMemcpyDeviceToHost, stream));
        check(cudaStreamSynchronize(stream));
        out.assign(bytes, 0);
        status.assign(batch.num_frames, frame_status{});
        soft.assign(8 * bytes, 0.0f);
        for (size_t f = 0; f < batch.num_frames; ++f) {
            const frame_extent& e = batch.frames[f];
            for (size_t i = 0; i < e.in_items; ++i) {
                const llr8_t l = in[e.in_offset + i];
                if (l < 0)
                    out[e.out_offset + i / 8] |= uint8_t(0x80u >> (i % 8));
                soft[8 * e.out_offset + i] = 0.25f * float(l);
            }
            status[f].iterations = int32_t(1 + f % 5);
            status[f].ok = f % 3 != 0;
        }
        // A GPU stage writes the device status table; the engine brings it back.
        check(cudaMemcpyAsync(batch.device_status,
                              status.data(),
                              batch.num_frames * sizeof(frame_status),
                              cudaMemcpyHostToDevice,
                              stream));
        check(cudaMemcpyAsync(
            batch.out, out.data(), bytes, cudaMemcpyHostToDevice, stream));
        if (batch.soft_out)
            check(cudaMemcpyAsync(batch.soft_out,
                                  soft.data(),
                                  soft.size() * sizeof(float),
                                  cudaMemcpyHostToDevice,
                                  stream));
        check(cudaStreamSynchronize(stream)); // host vectors are reused next batch
    }

private:
    std::vector<llr8_t> in;
    std::vector<uint8_t> out;
    std::vector<float> soft;
    std::vector<frame_status> status;
};

TEST(EngineCuda, BitsStatusAndSoftOutputComeBackInOrder)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device available";
    for (bool soft_output : { false, true }) {
        engine_config config;
        config.max_batch_frames = 7;
        config.soft_output = soft_output;
        batch_engine engine(std::make_shared<echo_cuda_decoder>(), config);
        std::mt19937 rng(3);
        std::vector<std::vector<llr8_t>> sent;
        size_t checked = 0;
        auto verify = [&](const completed_frame& c) {
            const auto& llrs = sent.at(c.id);
            ASSERT_EQ(c.nbits, llrs.size());
            for (size_t i = 0; i < llrs.size(); ++i) {
                const int bit = (c.packed[i / 8] >> (7 - i % 8)) & 1;
                ASSERT_EQ(bit, llrs[i] < 0 ? 1 : 0) << "frame " << c.id << " bit " << i;
                if (soft_output)
                    ASSERT_EQ(c.soft[i], 0.25f * float(llrs[i]));
            }
            if (!soft_output)
                EXPECT_EQ(c.soft, nullptr);
            ++checked;
        };
        for (uint64_t id = 0; id < 100; ++id) {
            std::vector<llr8_t> f(1 + rng() % 300);
            for (auto& l : f)
                l = llr8_t(int(rng() % 255) - 127);
            sent.push_back(f);
            completed_frame c;
            while (!engine.submit(f.data(), f.size(), id)) {
                ASSERT_TRUE(engine.pop_wait(c));
                verify(c);
            }
        }
        engine.flush();
        completed_frame c;
        while (engine.try_pop(c))
            verify(c);
        EXPECT_EQ(checked, sent.size());
    }
}

//! Device memory that the test owns (cudaMalloc'd, freed at scope end).
template <typename T>
struct device_array {
    T* ptr = nullptr;
    explicit device_array(size_t n) { check(cudaMalloc(&ptr, n * sizeof(T) + 1)); }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
};

bool is_device_pointer(const void* p)
{
    cudaPointerAttributes attr{};
    return cudaPointerGetAttributes(&attr, p) == cudaSuccess &&
           attr.type == cudaMemoryTypeDevice;
}

/*
 * DESIGN.md §3: GPU blocks chain with no host round trip. Noisy frames live in device
 * memory (as a GPU source leaves them), the engine quantizes them on the device, the
 * CUDA Viterbi decoder runs, and the decoded bits stay on the device; only the test
 * copies them back, to compare with the CPU decoder on the host-quantized input.
 */
TEST(EngineCuda, DeviceResidentInputAndOutputMatchTheCpuDecoder)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device available";
    const conv_code code(1000);
    const size_t frames = 60;
    const conv_frames trial = make_conv_frames(code, 2.5, 11, frames);
    const size_t n = trial.n, k = trial.k;
    const std::vector<float>& llrs = trial.llrs;
    const std::vector<llr8_t>& llrs8 = trial.llrs8;
    device_array<float> d_llrs(llrs.size());
    device_array<llr8_t> d_llrs8(llrs8.size());
    check(cudaMemcpy(d_llrs.ptr, llrs.data(), llrs.size() * 4, cudaMemcpyHostToDevice));
    check(cudaMemcpy(d_llrs8.ptr, llrs8.data(), llrs8.size(), cudaMemcpyHostToDevice));

    engine_config config;
    config.max_batch_frames = 8;
    config.input_side = memory_side::device;
    config.output_side = memory_side::device;
    batch_engine engine(make_decoder(code, viterbi_options{}, "cuda:0"), config);
    size_t checked = 0;
    std::vector<uint8_t> cpu_bits(k), gpu_packed(aligned_packed_bytes(k)), gpu_bits(k);
    auto verify = [&](const completed_frame& c) {
        ASSERT_TRUE(c.on_device);
        ASSERT_TRUE(is_device_pointer(c.packed)) << "output left on the device";
        ASSERT_EQ(c.nbits, k);
        check(cudaMemcpy(
            gpu_packed.data(), c.packed, gpu_packed.size(), cudaMemcpyDeviceToHost));
        unpack_bits(gpu_packed.data(), gpu_bits.data(), k);
        viterbi_decode_frame_cpu(code, llrs8.data() + c.id * n, n, cpu_bits.data());
        ASSERT_EQ(gpu_bits, cpu_bits) << "frame " << c.id;
        EXPECT_EQ(c.status.iterations, 1);
        EXPECT_TRUE(c.status.ok);
        ++checked;
    };
    completed_frame c;
    for (uint64_t f = 0; f < frames; ++f) {
        // Even frames as float LLRs (quantized on the device), odd ones as int8.
        auto submit = [&] {
            return f % 2 == 0 ? engine.submit(d_llrs.ptr + f * n, n, f)
                              : engine.submit(d_llrs8.ptr + f * n, n, f);
        };
        while (!submit()) {
            ASSERT_TRUE(engine.pop_wait(c));
            verify(c);
        }
    }
    engine.flush();
    while (engine.try_pop(c))
        verify(c);
    EXPECT_EQ(checked, frames);
}

//! A CUDA stage with packed 4-bit input that reports what arrived: sign bits as the
//! output, the 4-bit values as soft output (through a host round trip of its own).
class int4_echo_cuda : public batch_decoder
{
public:
    backend_kind backend() const override { return backend_kind::cuda; }
    input_format input() const override { return input_format::llr_int4; }
    int device() const override { return 0; }
    bool has_soft_output() const override { return true; }
    size_t max_input_items_per_frame() const override { return 301; }
    size_t output_bits_for_input(size_t items) const override
    {
        if (items == 0 || items > 301)
            throw error("int4 echo: 1..301 LLRs");
        return items;
    }
    size_t default_input_items() const override { return 301; }
    size_t default_output_bits() const override { return 301; }
    std::string name() const override { return "int4 echo cuda"; }
    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        auto stream = static_cast<cudaStream_t>(ctx.stream);
        const frame_extent& last = batch.frames[batch.num_frames - 1];
        const size_t bytes = (last.in_offset + last.in_items + 1) / 2;
        in.resize(bytes);
        check(cudaMemcpyAsync(
            in.data(), batch.in_int4, bytes, cudaMemcpyDeviceToHost, stream));
        check(cudaStreamSynchronize(stream));
        const size_t out_bytes = last.out_offset + aligned_packed_bytes(last.out_bits);
        out.assign(out_bytes, 0);
        soft.assign(8 * out_bytes, 0.0f);
        for (size_t f = 0; f < batch.num_frames; ++f) {
            const frame_extent& e = batch.frames[f];
            for (size_t i = 0; i < e.in_items; ++i) {
                const int v = llr_int4_at(in.data(), e.in_offset + i);
                if (v < 0)
                    out[e.out_offset + i / 8] |= uint8_t(0x80u >> (i % 8));
                soft[8 * e.out_offset + i] = float(v);
            }
        }
        check(cudaMemcpyAsync(
            batch.out, out.data(), out_bytes, cudaMemcpyHostToDevice, stream));
        check(cudaMemcpyAsync(batch.soft_out,
                              soft.data(),
                              soft.size() * sizeof(float),
                              cudaMemcpyHostToDevice,
                              stream));
        check(cudaStreamSynchronize(stream));
    }

private:
    std::vector<uint8_t> in, out;
    std::vector<float> soft;
};

TEST(EngineCuda, Int4InputQuantizedOnTheDeviceMatchesTheHostRule)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device available";
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> llr(-2.0f, 2.0f);
    const size_t frames = 30;
    std::vector<size_t> first(frames + 1, 0);
    for (size_t f = 0; f < frames; ++f)
        first[f + 1] = first[f] + 1 + rng() % 301; // odd and even lengths
    std::vector<float> llrs(first.back());
    for (auto& v : llrs)
        v = llr(rng);
    device_array<float> d_llrs(llrs.size());
    check(cudaMemcpy(d_llrs.ptr, llrs.data(), llrs.size() * 4, cudaMemcpyHostToDevice));
    engine_config config;
    config.max_batch_frames = 4;
    config.soft_output = true;
    config.input_side = memory_side::device;
    batch_engine engine(std::make_shared<int4_echo_cuda>(), config);
    size_t checked = 0;
    auto verify = [&](const completed_frame& c) {
        const size_t n = first[c.id + 1] - first[c.id];
        ASSERT_EQ(c.nbits, n);
        std::vector<uint8_t> want((n + 1) / 2);
        quantize_llrs_int4(llrs.data() + first[c.id], want.data(), n, config.llr_scale);
        for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(c.soft[i], float(llr_int4_at(want.data(), i)))
                << "frame " << c.id << " item " << i;
        ++checked;
    };
    completed_frame c;
    for (uint64_t f = 0; f < frames; ++f)
        while (!engine.submit(d_llrs.ptr + first[f], first[f + 1] - first[f], f)) {
            ASSERT_TRUE(engine.pop_wait(c));
            verify(c);
        }
    engine.flush();
    while (engine.try_pop(c))
        verify(c);
    EXPECT_EQ(checked, frames);
}

// GNU Radio's soft values (positive = bit 1) straight from device memory: the engine
// negates them while it copies or quantizes on the device, so the CUDA Viterbi decoder
// decodes -L exactly as the CPU decodes L, and a 4-bit stage sees -x saturated
// (-(-128) -> 127 -> 7).
TEST(EngineCuda, GnuradioConventionIsNegatedOnTheDevice)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device available";
    const conv_code code(600);
    const size_t frames = 24;
    const conv_frames trial = make_conv_frames(code, 2.0, 5, frames);
    const size_t n = trial.n, k = trial.k;
    const std::vector<float>& llrs = trial.llrs;
    const std::vector<llr8_t>& llrs8 = trial.llrs8;
    std::vector<float> neg(llrs.size());
    std::vector<llr8_t> neg8(llrs8.size());
    for (size_t i = 0; i < llrs.size(); ++i) {
        neg[i] = -llrs[i];
        neg8[i] = llr8_t(-llrs8[i]); // never -128: quantize_llrs stops at -127
    }
    device_array<float> d_neg(neg.size());
    device_array<llr8_t> d_neg8(neg8.size());
    check(cudaMemcpy(d_neg.ptr, neg.data(), neg.size() * 4, cudaMemcpyHostToDevice));
    check(cudaMemcpy(d_neg8.ptr, neg8.data(), neg8.size(), cudaMemcpyHostToDevice));
    engine_config config;
    config.max_batch_frames = 5;
    config.input_side = memory_side::device;
    config.convention = soft_convention::gnuradio;
    batch_engine engine(make_decoder(code, viterbi_options{}, "cuda:0"), config);
    std::vector<uint8_t> cpu_bits(k), gpu_bits(k);
    size_t checked = 0;
    auto verify = [&](const completed_frame& c) {
        ASSERT_FALSE(c.on_device);
        unpack_bits(c.packed, gpu_bits.data(), k);
        viterbi_decode_frame_cpu(code, llrs8.data() + c.id * n, n, cpu_bits.data());
        ASSERT_EQ(gpu_bits, cpu_bits) << "frame " << c.id;
        ++checked;
    };
    completed_frame c;
    for (uint64_t f = 0; f < frames; ++f) {
        auto submit = [&] {
            return f % 2 == 0 ? engine.submit(d_neg.ptr + f * n, n, f)
                              : engine.submit(d_neg8.ptr + f * n, n, f);
        };
        while (!submit()) {
            ASSERT_TRUE(engine.pop_wait(c));
            verify(c);
        }
    }
    engine.flush();
    while (engine.try_pop(c))
        verify(c);
    EXPECT_EQ(checked, frames);

    const std::vector<llr8_t> ints = { -128, -127, -9, -8, -7, -1, 0, 1, 6, 7, 8, 127 };
    device_array<llr8_t> d_ints(ints.size());
    check(cudaMemcpy(d_ints.ptr, ints.data(), ints.size(), cudaMemcpyHostToDevice));
    engine_config echo_config;
    echo_config.soft_output = true;
    echo_config.input_side = memory_side::device;
    echo_config.convention = soft_convention::gnuradio;
    batch_engine echo(std::make_shared<int4_echo_cuda>(), echo_config);
    ASSERT_TRUE(echo.submit(d_ints.ptr, ints.size(), 0));
    echo.flush();
    ASSERT_TRUE(echo.pop_wait(c));
    for (size_t i = 0; i < ints.size(); ++i)
        ASSERT_EQ(c.soft[i], float(std::max(-7, std::min(7, -int(ints[i]))))) << i;
}

TEST(EngineCuda, MoreMemoryThanTheDeviceHasFailsAtConstruction)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes));
    engine_config config;
    config.max_batch_frames = 1 << 20;
    config.max_batch_items = 2 * total_bytes; // int8 input alone: twice the device
    try {
        batch_engine engine(std::make_shared<echo_cuda_decoder>(), config);
        ADD_FAILURE() << "an engine larger than the device was built";
    } catch (const error& e) {
        const std::string msg = e.what();
        for (const char* needle :
             { "device memory", "cuda:0", "free", "max_batch_frames" })
            EXPECT_NE(msg.find(needle), std::string::npos) << needle << " in: " << msg;
    }
    // Nothing was allocated: a normal engine still fits and works.
    batch_engine engine(std::make_shared<echo_cuda_decoder>(), engine_config{});
    const std::vector<llr8_t> llrs(300, -3);
    ASSERT_TRUE(engine.submit(llrs.data(), llrs.size(), 7));
    completed_frame c;
    ASSERT_TRUE(engine.pop_wait(c));
    EXPECT_EQ(c.id, 7u);
    EXPECT_EQ(c.packed[0], 0xff);
}

TEST(EngineCuda, InjectedFaultIsReportedAndLaterBatchesRun)
{
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    for (testing::cuda_fault kind :
         { testing::cuda_fault::copy, testing::cuda_fault::kernel }) {
        const char* what = kind == testing::cuda_fault::copy ? "copy" : "kernel";
        engine_config config;
        config.max_batch_frames = 4;
        config.num_slots = 3;
        batch_engine engine(std::make_shared<echo_cuda_decoder>(), config);
        // 16 frames = 4 batches; the second launch fails. Frame f is 100 LLRs, all
        // negative (bits 1) for even f, positive for odd f.
        testing::arm_cuda_fault(kind, 2);
        std::vector<uint64_t> popped;
        size_t errors = 0;
        std::string message;
        completed_frame c;
        auto take = [&](bool wait) {
            try {
                if (!(wait ? engine.pop_wait(c) : engine.try_pop(c)))
                    return false;
                EXPECT_EQ(c.nbits, 100u);
                EXPECT_EQ(c.packed[0], c.id % 2 == 0 ? 0xff : 0x00) << what << c.id;
                popped.push_back(c.id);
            } catch (const error& e) {
                ++errors;
                message = e.what();
            }
            return true;
        };
        for (uint64_t f = 0; f < 16; ++f) {
            const std::vector<llr8_t> llrs(100, f % 2 == 0 ? -5 : 5);
            while (!engine.submit(llrs.data(), llrs.size(), f))
                take(true);
        }
        while (take(true)) {
        }
        testing::arm_cuda_fault(testing::cuda_fault::none, 0);
        EXPECT_EQ(errors, 1u) << what;
        EXPECT_NE(message.find("cudaError"), std::string::npos) << message;
        // The failed batch's frames (4..7) are lost with the error; the others come
        // back in order.
        EXPECT_EQ(popped,
                  (std::vector<uint64_t>{ 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15 }))
            << what;
        EXPECT_EQ(engine.frames_pending(), 0u);
        // The engine keeps working after the fault.
        const std::vector<llr8_t> ones(100, -1);
        ASSERT_TRUE(engine.submit(ones.data(), ones.size(), 99));
        ASSERT_TRUE(engine.pop_wait(c));
        EXPECT_EQ(c.id, 99u);
        EXPECT_EQ(c.packed[0], 0xff);
    }
}

TEST(EngineCuda, FaultLeavesLaterKernelLaunchesOfARealDecoder)
{
    // A failed CUDA call sets its thread's last error; the launch checks after it (the
    // Viterbi decoder's kernel) must not report it again. Before the checks cleared it,
    // every batch after an injected copy fault failed with the fault's error.
    if (cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device";
    const conv_code code(600);
    const size_t frames = 16;
    const conv_frames trial = make_conv_frames(code, 3.0, 9, frames);
    const size_t n = trial.n, k = trial.k;
    const llr8_t* llrs8 = trial.llrs8.data();
    engine_config config;
    config.max_batch_frames = 4;
    config.num_slots = 3;
    batch_engine engine(make_decoder(code, viterbi_options{}, "cuda:0"), config);
    testing::arm_cuda_fault(testing::cuda_fault::copy, 2);
    std::vector<uint64_t> popped;
    size_t errors = 0;
    std::vector<uint8_t> cpu_bits(k), gpu_bits(k);
    completed_frame c;
    auto take = [&] {
        try {
            if (!engine.pop_wait(c))
                return false;
            unpack_bits(c.packed, gpu_bits.data(), k);
            viterbi_decode_frame_cpu(code, llrs8 + c.id * n, n, cpu_bits.data());
            EXPECT_EQ(gpu_bits, cpu_bits) << "frame " << c.id;
            popped.push_back(c.id);
        } catch (const error&) {
            ++errors;
        }
        return true;
    };
    for (uint64_t f = 0; f < frames; ++f)
        while (!engine.submit(llrs8 + f * n, n, f))
            take();
    while (take()) {
    }
    testing::arm_cuda_fault(testing::cuda_fault::none, 0);
    EXPECT_EQ(errors, 1u);
    EXPECT_EQ(popped,
              (std::vector<uint64_t>{ 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15 }));
    ASSERT_TRUE(engine.submit(llrs8, n, 99));
    ASSERT_TRUE(engine.pop_wait(c));
    EXPECT_EQ(c.id, 99u);
    unpack_bits(c.packed, gpu_bits.data(), k);
    viterbi_decode_frame_cpu(code, llrs8, n, cpu_bits.data());
    EXPECT_EQ(gpu_bits, cpu_bits);
}

#else

TEST(EngineCuda, BitsStatusAndSoftOutputComeBackInOrder)
{
    GTEST_SKIP() << "built without CUDA";
}

TEST(EngineCuda, DeviceResidentInputAndOutputMatchTheCpuDecoder)
{
    GTEST_SKIP() << "built without CUDA";
}

#endif

} // namespace
} // namespace gpufec
