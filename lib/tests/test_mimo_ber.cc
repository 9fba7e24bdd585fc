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
#include <gpufec/ldpc.h>
#include <gpufec/ldpc_decoding.h>
#include <gpufec/mimo_channel.h>
#include <gpufec/mimo_detection.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
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

namespace {

/*!
 * Coded BER: NR LDPC BG1 Z=64 (k 1408, e 2816, r 1/2) over 4x4 16-QAM Rayleigh (176
 * vectors per codeword, a channel per vector), `algorithm` then the CPU LDPC decoder
 * (10 layered iterations, early termination). Eb/N0 per information bit.
 */
ber_point coded(mimo_algorithm algorithm, double ebn0_db, size_t codewords)
{
    const mimo_setup s = four_by_four_16qam();
    const nr_ldpc_code code(1, 64, 0, 2816);
    mimo_source_options so;
    so.noise_var = mimo_noise_var_ebn0(ebn0_db, 4, double(code.k()) / code.e());
    so.seed = 99;
    auto src = make(s, so, "cpu");
    const size_t per_cw = code.e() / src->bits_per_frame();
    mimo_detector_options o;
    o.algorithm = algorithm;
    o.noise_var = static_cast<float>(so.noise_var);
    auto det = std::shared_ptr<batch_decoder>(make_decoder(s, o, "cpu"));
    engine_config dcfg;
    dcfg.max_batch_frames = 1024;
    batch_engine detect(det, dcfg);
    engine_config lcfg;
    lcfg.max_batch_frames = 16;
    lcfg.llr_scale = 4.0f; // int8 range +/-32 natural LLR units
    batch_engine decode(std::shared_ptr<batch_decoder>(
                            make_decoder(code.graph(), ldpc_decoder_options{}, "cpu")),
                        lcfg);
    std::mt19937 rng(7);
    std::vector<uint8_t> info(code.k()), tx(code.e()), bits(code.k());
    std::vector<cfloat> y(per_cw * src->samples_per_frame()),
        h(per_cw * src->channel_per_frame());
    std::vector<float> llrs(code.e());
    ber_point p;
    completed_frame done;
    for (size_t c = 0; c < codewords; c++) {
        for (auto& b : info)
            b = rng() & 1;
        code.encode(info.data(), tx.data());
        src->generate(c * per_cw, per_cw, tx.data(), y.data(), h.data(), nullptr);
        size_t in = 0, out = 0;
        while (out < per_cw) {
            in += detect.submit_frames(y.data() + in * src->samples_per_frame(),
                                       src->samples_per_frame(),
                                       h.data() + in * src->channel_per_frame(),
                                       src->channel_per_frame(),
                                       per_cw - in,
                                       in);
            if (in == per_cw)
                detect.launch();
            out += detect.pop_frames(
                llrs.data() + out * src->bits_per_frame(), nullptr, per_cw - out, true);
        }
        decode.submit(llrs.data(), llrs.size(), c);
        decode.flush();
        while (decode.pop_wait(done)) {
            unpack_bits(done.packed, bits.data(), code.k());
            for (int i = 0; i < code.k(); i++)
                p.errors += bits[i] != info[i];
            p.bits += code.k();
        }
    }
    return p;
}

} // namespace

TEST(MimoBer, DISABLED_CodedMttWithinPointThreeDbOfMl)
{
    // ./test_mimo_ber --gtest_also_run_disabled_tests --gtest_filter='*Coded*'
    // Where each curve crosses BER 1e-4 on an Eb/N0 grid: [lo, hi] brackets the
    // crossing (the last point at or above 1e-4, the first below; log-linear inside
    // when both have errors). Conservative: MTT's upper end minus ML's lower end must
    // be at most 0.3 dB (issue 10). 7100 codewords (1e7 information bits) per point:
    // a failed codeword costs ~100-200 bit errors, so near 1e-4 a point holds 50-100
    // failed codewords. A curve stops at its first point below 1e-4. ML takes about
    // three minutes per point on two cores.
    std::vector<double> grid;
    for (double e = 3.0; e < 4.3; e += 0.125)
        grid.push_back(e);
    const size_t codewords = 7100;
    auto crossing = [&](mimo_algorithm a, const char* name) {
        std::vector<double> ber;
        for (double e : grid) {
            const ber_point p = coded(a, e, codewords);
            ber.push_back(p.ber());
            std::printf("%s %.3f dB: %.0f errors / %.0f bits, BER %.3e\n",
                        name,
                        e,
                        p.errors,
                        p.bits,
                        p.ber());
            std::fflush(stdout);
            if (p.ber() < 1e-4)
                break;
        }
        for (size_t i = 1; i < ber.size(); i++)
            if (ber[i - 1] >= 1e-4 && ber[i] < 1e-4) {
                if (ber[i] > 0) {
                    const double x =
                        grid[i - 1] + (grid[i] - grid[i - 1]) *
                                          (std::log(ber[i - 1]) - std::log(1e-4)) /
                                          (std::log(ber[i - 1]) - std::log(ber[i]));
                    return std::make_pair(x, x);
                }
                return std::make_pair(grid[i - 1], grid[i]);
            }
        return std::make_pair(1e9, 1e9); // not crossed on the grid
    };
    const auto mtt = crossing(mimo_algorithm::mtt, "mtt");
    const auto kbest = crossing(mimo_algorithm::kbest, "kbest");
    const auto ml = crossing(mimo_algorithm::ml, "ml");
    std::printf("BER 1e-4: K-best (K = 16) at %.3f dB\n", kbest.first);
    std::printf(
        "BER 1e-4: MTT in [%.3f, %.3f] dB, ML in [%.3f, %.3f] dB: gap %.2f..%.2f dB\n",
        mtt.first,
        mtt.second,
        ml.first,
        ml.second,
        mtt.first - ml.second,
        mtt.second - ml.first);
    EXPECT_LE(mtt.second - ml.first, 0.3);
}
