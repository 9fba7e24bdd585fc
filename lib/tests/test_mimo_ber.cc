/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Uncoded BER of the MIMO detectors over the MIMO channel source (issue 10): 4x4
// 16-QAM MTT within 0.5 dB of max-log ML at BER 1e-3, on the same frames (common
// random numbers: the same H, bits and normalised noise at every SNR, so the
// comparison is paired and far less noisy than two independent runs). The curves of
// every detector print from a disabled test (docs/mimo.md).
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/mimo_channel.h>
#include <gpufec/mimo_detection.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

using namespace gpufec;

namespace {

struct ber_point {
    double errors = 0, bits = 0;
    double ber() const { return bits > 0 ? errors / bits : 0.0; }
};

//! Detects `frames` source frames at Es/N0 `esn0_db` with `algorithm` on the CPU.
ber_point measure(const mimo_setup& s,
                  mimo_algorithm algorithm,
                  double esn0_db,
                  size_t frames,
                  uint64_t seed)
{
    mimo_source_options so;
    so.noise_var = mimo_noise_var_esn0(esn0_db);
    so.seed = seed;
    auto src = make(s, so, "cpu");
    mimo_detector_options o;
    o.algorithm = algorithm;
    o.noise_var = static_cast<float>(so.noise_var);
    auto det = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cpu"));
    std::vector<cfloat> y(frames * src->samples_per_frame());
    std::vector<cfloat> h(frames * src->channel_per_frame());
    std::vector<uint8_t> bits(frames * src->bits_per_frame());
    src->generate(0, frames, nullptr, y.data(), h.data(), bits.data());
    engine_config cfg;
    cfg.max_batch_frames = 256;
    batch_engine eng(det, cfg);
    ber_point p;
    completed_frame done;
    auto count = [&](const completed_frame& f) {
        const uint8_t* sent = bits.data() + f.id * src->bits_per_frame();
        for (size_t i = 0; i < f.nbits; i++)
            p.errors += (f.llrs[i] < 0.0f) != (sent[i] != 0);
        p.bits += static_cast<double>(f.nbits);
    };
    for (size_t f = 0; f < frames; f++) {
        while (!eng.submit(y.data() + f * src->samples_per_frame(),
                           src->samples_per_frame(),
                           h.data() + f * src->channel_per_frame(),
                           src->channel_per_frame(),
                           f))
            if (eng.pop_wait(done))
                count(done);
    }
    eng.flush();
    while (eng.pop_wait(done))
        count(done);
    return p;
}

mimo_setup four_by_four_16qam()
{
    mimo_setup s;
    s.nt = 4;
    s.nr = 4;
    s.mod = modulation::qam16;
    return s;
}

} // namespace

TEST(MimoBer, MttIsWithinHalfADecibelOfMlAtBer1e3)
{
    // 4x4 16-QAM, Rayleigh, a channel per vector, 12000 vectors: max-log ML's BER is
    // about 1e-3 at Es/N0 = 16 dB (the curves below). The Es/N0 at which MTT makes as
    // many errors, interpolated log-linearly between 16 and 17 dB on the same frames,
    // must be at most 0.5 dB higher (measured: about 0.35 dB).
    const mimo_setup s = four_by_four_16qam();
    const size_t frames = 12000;
    const ber_point ml = measure(s, mimo_algorithm::ml, 16.0, frames, 7);
    const ber_point mtt16 = measure(s, mimo_algorithm::mtt, 16.0, frames, 7);
    const ber_point mtt17 = measure(s, mimo_algorithm::mtt, 17.0, frames, 7);
    EXPECT_GT(ml.ber(), 5e-4); // the operating point is BER ~1e-3
    EXPECT_LT(ml.ber(), 2e-3);
    ASSERT_GT(mtt16.errors, mtt17.errors);
    ASSERT_GT(mtt17.errors, 0);
    const double gap_db = (std::log(mtt16.errors) - std::log(ml.errors)) /
                          (std::log(mtt16.errors) - std::log(mtt17.errors));
    std::printf("4x4 16-QAM over %.0f bits: ML %.0f errors at 16 dB; MTT %.0f at 16 dB, "
                "%.0f at 17 dB: MTT needs %.2f dB more for ML's BER %.2e\n",
                ml.bits,
                ml.errors,
                mtt16.errors,
                mtt17.errors,
                gap_db,
                ml.ber());
    EXPECT_LE(gap_db, 0.5);
    EXPECT_GE(gap_db, 0.0); // MTT searches a subset of ML's hypotheses
}

TEST(MimoBer, DISABLED_Curves)
{
    // ./test_mimo_ber --gtest_also_run_disabled_tests --gtest_filter='*Curves*'
    const mimo_setup s = four_by_four_16qam();
    for (double esn0 = 8; esn0 <= 20; esn0 += 2) {
        std::printf("Es/N0 %5.1f dB:", esn0);
        for (mimo_algorithm a : { mimo_algorithm::ml,
                                  mimo_algorithm::mtt,
                                  mimo_algorithm::kbest,
                                  mimo_algorithm::lmmse }) {
            const size_t frames = a == mimo_algorithm::ml ? 4000 : 40000;
            std::printf("  %.3e", measure(s, a, esn0, frames, 1).ber());
            std::fflush(stdout);
        }
        std::printf("   (ml mtt kbest(K=16) lmmse)\n");
    }
}
