/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The engine over the CUDA slot backend with a decoder of exactly known output: bits,
// statuses and soft output come back through the device buffers and D2H copies, in
// order. Skipped without a device (and compiled to a skip without CUDA).
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gtest/gtest.h>
#include <cstring>
#include <random>
#include <vector>

#ifdef GPUFEC_HAVE_CUDA
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

#else

TEST(EngineCuda, BitsStatusAndSoftOutputComeBackInOrder)
{
    GTEST_SKIP() << "built without CUDA";
}

#endif

} // namespace
} // namespace gpufec
