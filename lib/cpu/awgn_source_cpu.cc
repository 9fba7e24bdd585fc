/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU AWGN/BPSK source (the reference of the CUDA one).
#include "cpu/awgn_noise_avx2.h"
#include "cpu/awgn_source_common.h"
#include "cpu/cpu_features.h"
#include <gpufec/awgn_source.h>
#include <gpufec/philox.h>
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace gpufec {
namespace {

#if defined(__GNUC__)
#define GPUFEC_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define GPUFEC_ALWAYS_INLINE inline
#endif

//! LLRs of one frame's coded bits `first` (a multiple of 4) onwards (the inner loop
//! of the CPU source).
GPUFEC_ALWAYS_INLINE void noisy_llrs_body(uint64_t seed,
                                          uint64_t frame,
                                          const uint8_t* coded,
                                          size_t first,
                                          size_t coded_bits,
                                          float sigma,
                                          float llr_scale,
                                          float* llrs)
{
    float g[4];
    for (size_t j = first; j < coded_bits; j += 4) {
        philox::noise4(seed, frame, static_cast<uint32_t>(j / 4), g);
        for (size_t m = 0; m < 4 && j + m < coded_bits; ++m)
            llrs[j + m] = philox::bpsk_llr(coded[j + m], g[m], sigma, llr_scale);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
// philox.h's fused multiply-adds are one instruction only where the target has FMA;
// without it they are (correctly rounded, slower) libm calls. Same results either way.
__attribute__((target("fma"))) void noisy_llrs_fma(uint64_t seed,
                                                   uint64_t frame,
                                                   const uint8_t* coded,
                                                   size_t first,
                                                   size_t coded_bits,
                                                   float sigma,
                                                   float llr_scale,
                                                   float* llrs)
{
    noisy_llrs_body(seed, frame, coded, first, coded_bits, sigma, llr_scale, llrs);
}
#endif

//! Whether the noise runs in AVX2 lanes: the CPU has AVX2 and FMA and GPUFEC_CPU_SIMD
//! does not say "portable" (tests compare the two paths).
bool noise_in_avx2()
{
    return cpu::has_fma() && cpu::simd_level_in_use() != cpu::simd_level::portable;
}

void noisy_llrs(uint64_t seed,
                uint64_t frame,
                const uint8_t* coded,
                size_t coded_bits,
                float sigma,
                float llr_scale,
                float* llrs,
                bool avx2)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (cpu::has_fma()) {
        const size_t first =
            avx2 ? cpu::noisy_llrs_avx2(
                       seed, frame, coded, coded_bits, sigma, llr_scale, llrs)
                 : 0;
        noisy_llrs_fma(seed, frame, coded, first, coded_bits, sigma, llr_scale, llrs);
        return;
    }
#endif
    (void)avx2;
    noisy_llrs_body(seed, frame, coded, 0, coded_bits, sigma, llr_scale, llrs);
}

class awgn_source_cpu final : public awgn_bpsk_source
{
public:
    awgn_source_cpu(const frame_code& code, double ebn0_db, uint64_t seed)
        : d_code(code),
          d_seed(seed),
          d_info_bits(code.info_bits),
          d_coded_bits(code.coded_bits),
          d_avx2(noise_in_avx2())
    {
        if (d_info_bits == 0 || d_coded_bits == 0 || !d_code.encode)
            throw error(
                "awgn_bpsk_source: frame_code needs info_bits > 0, coded_bits > 0 "
                "and an encode function");
        set_ebn0_db(ebn0_db);
    }

    void set_ebn0_db(double ebn0_db) override
    {
        constants(ebn0_db); // validates before storing
        d_ebn0_db.store(ebn0_db);
    }
    double ebn0_db() const override { return d_ebn0_db.load(); }
    backend_kind backend() const override { return backend_kind::cpu; }
    size_t llrs_per_frame() const override { return d_coded_bits; }
    size_t bits_per_frame() const override { return d_info_bits; }

    void generate(uint64_t first_frame,
                  size_t num_frames,
                  float* llrs,
                  uint8_t* info_bits) override
    {
        if (num_frames == 0 || (!llrs && !info_bits))
            return;
        const auto channel = constants(d_ebn0_db.load());
        // Threads only pay off for sizeable batches; each worker owns whole frames.
        const size_t work = num_frames * (d_coded_bits + d_info_bits);
        size_t workers = std::max(1u, std::thread::hardware_concurrency());
        workers = std::min({ workers, num_frames, std::max<size_t>(1, work / 65536) });
        auto run = [&](size_t begin, size_t end) {
            std::vector<uint8_t> bits(d_info_bits), coded(d_coded_bits);
            for (size_t i = begin; i < end; ++i)
                fill_frame(first_frame + i,
                           channel,
                           llrs ? llrs + i * d_coded_bits : nullptr,
                           info_bits ? info_bits + i * d_info_bits : bits.data(),
                           coded.data());
        };
        if (workers == 1) {
            run(0, num_frames);
            return;
        }
        std::vector<std::thread> pool;
        const size_t per = (num_frames + workers - 1) / workers;
        for (size_t begin = 0; begin < num_frames; begin += per)
            pool.emplace_back(run, begin, std::min(num_frames, begin + per));
        for (auto& t : pool)
            t.join();
    }

    size_t frame_scratch_bytes() const override { return d_info_bits + d_coded_bits; }

    void generate_frame(uint64_t frame,
                        float* llrs,
                        uint8_t* info_bits,
                        uint8_t* scratch) const override
    {
        if (!llrs && !info_bits)
            return;
        if (!scratch)
            throw error("awgn_bpsk_source: generate_frame() needs frame_scratch_bytes() "
                        "of scratch, got a null pointer");
        fill_frame(frame,
                   constants(d_ebn0_db.load()),
                   llrs,
                   info_bits ? info_bits : scratch,
                   scratch + d_info_bits);
    }

private:
    void fill_frame(uint64_t frame,
                    const detail::awgn_channel_constants& constants,
                    float* llrs,
                    uint8_t* bits,
                    uint8_t* coded) const
    {
        for (size_t w = 0; 32 * w < d_info_bits; w += 4) {
            const auto block = philox::frame_block(
                d_seed, frame, static_cast<uint32_t>(w / 4), philox::stream_info);
            for (size_t i = 32 * w; i < std::min(d_info_bits, 32 * (w + 4)); ++i)
                bits[i] = (block.v[(i / 32) % 4] >> (i % 32)) & 1u;
        }
        if (!llrs)
            return;
        d_code.encode(bits, coded);
        noisy_llrs(d_seed,
                   frame,
                   coded,
                   d_coded_bits,
                   constants.sigma,
                   constants.llr_scale,
                   llrs,
                   d_avx2);
    }

    //! Same arithmetic as detail::awgn_constants (the CUDA source), for any code.
    detail::awgn_channel_constants constants(double ebn0_db) const
    {
        const double rate = double(d_info_bits) / double(d_coded_bits);
        const double sigma = detail::awgn_sigma_of(rate, ebn0_db);
        return { static_cast<float>(sigma), static_cast<float>(2.0 / (sigma * sigma)) };
    }

    const frame_code d_code;
    const uint64_t d_seed;
    const size_t d_info_bits;
    const size_t d_coded_bits;
    const bool d_avx2; //!< noise_in_avx2() at construction
    std::atomic<double> d_ebn0_db{ 0.0 };
};

} // namespace

double awgn_sigma(double rate, double ebn0_db)
{
    return detail::awgn_sigma_of(rate, ebn0_db);
}

std::unique_ptr<awgn_bpsk_source>
make_awgn_bpsk_source_cpu(const conv_code& code, const awgn_source_options& options)
{
    frame_code frame;
    frame.info_bits = static_cast<size_t>(code.frame_bits());
    frame.coded_bits = code.coded_bits();
    const size_t info = frame.info_bits;
    frame.encode = [code, info](const uint8_t* in, uint8_t* out) {
        conv_encode(code, in, info, out);
    };
    frame.description = code.describe();
    return std::make_unique<awgn_source_cpu>(frame, options.ebn0_db, options.seed);
}

std::unique_ptr<awgn_bpsk_source>
make_awgn_bpsk_source_cpu(const frame_code& code,
                          const awgn_frame_source_options& options)
{
    return std::make_unique<awgn_source_cpu>(code, options.ebn0_db, options.seed);
}

} // namespace gpufec
