/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA MIMO channel source: one thread per received vector runs
// mimo_source::make_vector (lib/cpu/mimo_source_common.h), the code the CPU source
// runs, so both give the same samples bit for bit. The thread of a frame's first
// vector writes the channel matrix; every thread draws the frame's H itself (at most
// 64 complex normals), which keeps the kernel free of barriers.
#include "cpu/mimo_source_common.h"
#include "cuda/common/cuda_utils.h"
#include "cuda/mimo/mimo_cuda.h"
#include <gpufec/mimo_channel.h>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>

namespace gpufec {
namespace cuda {
namespace {

__global__ void __launch_bounds__(128) mimo_source_kernel(mimo_source::params p,
                                                          uint64_t first_frame,
                                                          uint64_t vectors,
                                                          const uint8_t* tx_bits,
                                                          float2* samples,
                                                          float2* channels,
                                                          uint8_t* bits)
{
    const uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
    if (i >= vectors)
        return;
    const uint64_t f = i / static_cast<uint64_t>(p.coherence);
    const int v = static_cast<int>(i - f * static_cast<uint64_t>(p.coherence));
    const uint64_t frame = first_frame + f;
    const int entries = p.nr * p.nt;
    mimo_source::cplx h[mimo_source::max_antennas * mimo_source::max_antennas];
    for (int k = 0; k < entries; k++)
        h[k] = mimo_source::channel_entry(p, frame, static_cast<uint32_t>(k));
    if (channels && v == 0)
        for (int k = 0; k < entries; k++)
            channels[f * entries + k] = make_float2(h[k].re, h[k].im);
    const uint64_t per_vector = static_cast<uint64_t>(p.nt) * p.bits;
    mimo_source::cplx y[mimo_source::max_antennas];
    mimo_source::make_vector(p,
                             frame,
                             v,
                             h,
                             tx_bits ? tx_bits + i * per_vector : nullptr,
                             !tx_bits && bits ? bits + i * per_vector : nullptr,
                             y);
    if (samples)
        for (int r = 0; r < p.nr; r++)
            samples[i * p.nr + r] = make_float2(y[r].re, y[r].im);
}

class mimo_source_cuda final : public mimo_source::source_base
{
public:
    mimo_source_cuda(const mimo_setup& setup,
                     const mimo_source_options& options,
                     int device)
        : source_base(setup, options), d_device(device)
    {
        require_device(device);
        device_guard guard(device);
        std::vector<mimo_source::cplx> points, fixed;
        host_tables(points, fixed);
        upload(d_points, points);
        if (!fixed.empty())
            upload(d_fixed, fixed);
        d_stream = std::make_unique<stream>();
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    int device() const override { return d_device; }

    void generate_device(uint64_t first_frame,
                         size_t num_frames,
                         const uint8_t* tx_bits,
                         cfloat* samples,
                         cfloat* channels,
                         uint8_t* bits,
                         void* stream_ptr) override
    {
        if (num_frames == 0)
            return;
        device_guard guard(d_device);
        const uint64_t vectors = static_cast<uint64_t>(num_frames) * d_setup.coherence;
        const unsigned threads = 128;
        const uint64_t blocks = (vectors + threads - 1) / threads;
        if (blocks > 0x7FFFFFFFu)
            throw error("mimo channel source (cuda): " + std::to_string(num_frames) +
                        " frames in one call; allowed: up to 2^31 * 128 vectors");
        mimo_source_kernel<<<static_cast<unsigned>(blocks),
                             threads,
                             0,
                             static_cast<cudaStream_t>(stream_ptr)>>>(
            call_params(d_points.get(), d_fixed.get()),
            first_frame,
            vectors,
            tx_bits,
            reinterpret_cast<float2*>(samples),
            reinterpret_cast<float2*>(channels),
            bits);
        GPUFEC_CUDA_CHECK_LAUNCH();
    }

    //! Host memory in and out through device buffers kept between calls (grown only
    //! when a larger call arrives), in chunks of at most 2^16 frames.
    void generate(uint64_t first_frame,
                  size_t num_frames,
                  const uint8_t* tx_bits,
                  cfloat* samples,
                  cfloat* channels,
                  uint8_t* bits) override
    {
        std::lock_guard<std::mutex> lock(d_host_mutex);
        device_guard guard(d_device);
        const size_t chunk = std::min<size_t>(num_frames, 1 << 16);
        const size_t ns = samples_per_frame(), nh = channel_per_frame(),
                     nb = bits_per_frame();
        if (d_samples.size() < chunk * ns) {
            d_samples.reset(chunk * ns);
            d_channels.reset(chunk * nh);
            d_bits.reset(chunk * nb);
        }
        cudaStream_t s = d_stream->get();
        for (size_t done = 0; done < num_frames; done += chunk) {
            const size_t n = std::min(chunk, num_frames - done);
            if (tx_bits)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(d_bits.get(),
                                                  tx_bits + done * nb,
                                                  n * nb,
                                                  cudaMemcpyHostToDevice,
                                                  s));
            generate_device(first_frame + done,
                            n,
                            tx_bits ? d_bits.get() : nullptr,
                            samples ? d_samples.get() : nullptr,
                            channels ? d_channels.get() : nullptr,
                            !tx_bits && bits ? d_bits.get() : nullptr,
                            s);
            if (samples)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(samples + done * ns,
                                                  d_samples.get(),
                                                  n * ns * sizeof(cfloat),
                                                  cudaMemcpyDeviceToHost,
                                                  s));
            if (channels)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(channels + done * nh,
                                                  d_channels.get(),
                                                  n * nh * sizeof(cfloat),
                                                  cudaMemcpyDeviceToHost,
                                                  s));
            if (!tx_bits && bits)
                GPUFEC_CUDA_CHECK(cudaMemcpyAsync(
                    bits + done * nb, d_bits.get(), n * nb, cudaMemcpyDeviceToHost, s));
            d_stream->synchronize();
        }
    }

private:
    int d_device;
    device_buffer<mimo_source::cplx> d_points, d_fixed;
    std::unique_ptr<stream> d_stream;
    std::mutex d_host_mutex;
    device_buffer<cfloat> d_samples, d_channels;
    device_buffer<uint8_t> d_bits;
};

} // namespace

std::unique_ptr<mimo_channel_source> make_mimo_channel_source(
    const mimo_setup& setup, const mimo_source_options& options, int device)
{
    return std::make_unique<mimo_source_cuda>(setup, options, device);
}

} // namespace cuda
} // namespace gpufec
