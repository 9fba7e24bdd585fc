/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Small helpers shared by the core GTests.
#ifndef INCLUDED_GPUFEC_TEST_HELPERS_H
#define INCLUDED_GPUFEC_TEST_HELPERS_H

#include <gpufec/awgn_source.h>
#include <gpufec/backends.h>
#include <gpufec/batch_decoder.h>
#include <gpufec/common.h>
#include <gpufec/engine.h>
#include <gpufec/ldpc_decoding.h>
#include <gpufec/viterbi.h>
#include <gtest/gtest.h>
#include <cstdlib>

#include <initializer_list>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gpufec {

//! The registry's makers with a backend_spec, as the tests use them.
inline std::unique_ptr<awgn_bpsk_source> make_awgn_bpsk_source(const conv_code& code,
                                                               double ebn0_db,
                                                               uint64_t seed,
                                                               const backend_spec& b)
{
    awgn_source_options options;
    options.ebn0_db = ebn0_db;
    options.seed = seed;
    return make(code, options, backend_string(b));
}
inline std::unique_ptr<awgn_bpsk_source> make_awgn_bpsk_source(const frame_code& code,
                                                               double ebn0_db,
                                                               uint64_t seed,
                                                               const backend_spec& b)
{
    awgn_frame_source_options options;
    options.ebn0_db = ebn0_db;
    options.seed = seed;
    return make(code, options, backend_string(b));
}
inline std::unique_ptr<batch_decoder> make_viterbi_decoder(const conv_code& code,
                                                           const backend_spec& b)
{
    return make_decoder(code, viterbi_options{}, backend_string(b));
}
namespace test {

//! Expects gpufec::error whose message contains every one of `needles`.
template <typename F>
void expect_error(F&& f, std::initializer_list<const char*> needles)
{
    try {
        f();
        ADD_FAILURE() << "no gpufec::error thrown";
    } catch (const error& e) {
        const std::string msg = e.what();
        for (const char* n : needles)
            EXPECT_NE(msg.find(n), std::string::npos)
                << "message: " << msg << "\nmissing: " << n;
    }
}

//! n random bits, one per byte.
//! Sets an environment variable for one scope (a test's experimental switch), then
//! restores it as it was.
class scoped_env
{
public:
    scoped_env(const char* name, const char* value) : d_name(name)
    {
        const char* before = std::getenv(name);
        d_had = before != nullptr;
        d_before = before ? before : "";
        set(value);
    }
    void set(const char* value) { setenv(d_name.c_str(), value, 1); }
    ~scoped_env()
    {
        if (d_had)
            setenv(d_name.c_str(), d_before.c_str(), 1);
        else
            unsetenv(d_name.c_str());
    }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

private:
    std::string d_name, d_before;
    bool d_had = false;
};

inline std::vector<uint8_t> random_bits(std::mt19937& rng, size_t n)
{
    std::vector<uint8_t> v(n);
    for (auto& b : v)
        b = rng() & 1;
    return v;
}

//! parallel_for on two plain threads (interleaved items).

//! Eb/N0 of noiseless frames in awgn_llrs and make_trial.
constexpr double noiseless = std::numeric_limits<double>::infinity();

//! BPSK (bit 0 -> +1) over AWGN at Eb/N0 for a code of rate `rate`: LLR = 2y/sigma^2,
//! quantised with scale 8 as the engine does. Noiseless (ebn0_db infinite): +/-40 (5 in
//! natural LLR units), nothing drawn. One normal_distribution per call, and it keeps a
//! value between draws: frames in one call get other noise than one call per frame.
template <typename Rng>
std::vector<llr8_t>
awgn_llrs(const std::vector<uint8_t>& coded, double rate, double ebn0_db, Rng& rng)
{
    std::vector<llr8_t> q(coded.size());
    if (std::isinf(ebn0_db)) {
        for (size_t i = 0; i < coded.size(); i++)
            q[i] = coded[i] ? -40 : 40;
        return q;
    }
    const double sigma2 = 1.0 / (2.0 * rate * std::pow(10.0, ebn0_db / 10.0));
    std::normal_distribution<double> noise(0.0, std::sqrt(sigma2));
    std::vector<float> llr(coded.size());
    for (size_t i = 0; i < coded.size(); i++)
        llr[i] =
            static_cast<float>(2.0 * ((coded[i] ? -1.0 : 1.0) + noise(rng)) / sigma2);
    quantize_llrs(llr.data(), q.data(), q.size(), 8.0f);
    return q;
}

//! Random info words and the channel LLRs of their codewords, frame by frame.
struct trial {
    std::vector<std::vector<uint8_t>> info;
    std::vector<std::vector<llr8_t>> llrs;
};

//! The generators of make_trial: info bits, and noise (from one seed, implicitly).
struct trial_rngs {
    trial_rngs(uint64_t seed) : bits(static_cast<uint32_t>(seed)), noise(seed * 7919 + 1)
    {
    }
    trial_rngs(uint32_t bit_seed, uint64_t noise_seed) : bits(bit_seed), noise(noise_seed)
    {
    }
    std::mt19937 bits;
    std::mt19937_64 noise;
};

//! `frames` words of k random bits, encoded to n bits by encode(info, coded), through
//! awgn_llrs for a code of rate `rate`.
template <typename Encode>
trial make_trial(int frames,
                 size_t k,
                 size_t n,
                 double rate,
                 double ebn0_db,
                 trial_rngs rngs,
                 Encode&& encode)
{
    trial t;
    for (int f = 0; f < frames; f++) {
        t.info.push_back(random_bits(rngs.bits, k));
        std::vector<uint8_t> coded(n);
        encode(t.info.back().data(), coded.data());
        t.llrs.push_back(awgn_llrs(coded, rate, ebn0_db, rngs.noise));
    }
    return t;
}

//! The same for a code with k() and encode(info, coded) sending n bits (rate k/n).
template <typename Code>
trial make_trial(const Code& code, size_t n, int frames, double ebn0_db, trial_rngs rngs)
{
    return make_trial(
        frames,
        code.k(),
        n,
        static_cast<double>(code.k()) / n,
        ebn0_db,
        std::move(rngs),
        [&](const uint8_t* info, uint8_t* coded) { code.encode(info, coded); });
}

struct decoded_batch {
    std::vector<std::vector<uint8_t>> bits; // one bit per byte, per frame
    std::vector<std::vector<float>> soft;   // per frame, when asked for
    std::vector<frame_status> status;
};

//! Decodes `frames` (each its whole input) in one batch, k bits out per frame, through
//! two threads or on the calling thread. The packed output starts as 0xAA and the
//! soft output as NaN, so what a decoder leaves unwritten shows.
inline decoded_batch decode_all(batch_decoder& dec,
                                const std::vector<std::vector<llr8_t>>& frames,
                                size_t k,
                                bool threads = true,
                                bool with_soft = true)
{
    std::vector<llr8_t> in;
    std::vector<frame_extent> ext;
    size_t out_bytes = 0;
    for (const auto& f : frames) {
        ext.push_back({ in.size(),
                        static_cast<uint32_t>(f.size()),
                        out_bytes,
                        static_cast<uint32_t>(k) });
        in.insert(in.end(), f.begin(), f.end());
        out_bytes += aligned_packed_bytes(k);
    }
    std::vector<uint8_t> out(out_bytes, 0xAA);
    std::vector<float> soft(with_soft ? 8 * out_bytes : 0, NAN);
    decoded_batch r;
    r.status.resize(frames.size());
    frame_batch b;
    b.in = in.data();
    b.out = out.data();
    b.frames = ext.data();
    b.num_frames = frames.size();
    b.status = r.status.data();
    b.soft_out = with_soft ? soft.data() : nullptr;
    standalone_ctx run(dec, threads ? 2 : 1);
    dec.decode(b, run.ctx());
    for (const auto& x : ext) {
        std::vector<uint8_t> bits(k);
        unpack_bits(out.data() + x.out_offset, bits.data(), k);
        r.bits.push_back(bits);
        if (with_soft)
            r.soft.emplace_back(soft.begin() + 8 * x.out_offset,
                                soft.begin() + 8 * x.out_offset + k);
    }
    return r;
}

//! Decodes one frame on its own into an output buffer at byte offset 4 whose other
//! bytes hold 0x5A, expects those untouched, and returns the unpacked bits.
inline std::vector<uint8_t>
decode_guarded(batch_decoder& dec, const std::vector<llr8_t>& frame, size_t k)
{
    std::vector<uint8_t> out(aligned_packed_bytes(k) + 8, 0x5A);
    frame_extent fe{
        0, static_cast<uint32_t>(frame.size()), 4, static_cast<uint32_t>(k)
    };
    frame_status st;
    frame_batch b;
    b.in = frame.data();
    b.out = out.data();
    b.frames = &fe;
    b.num_frames = 1;
    b.status = &st;
    decode_on_this_thread(dec, b);
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(out[i], 0x5A) << "byte " << i;
    for (size_t i = 4 + packed_bytes(k); i < out.size(); i++)
        EXPECT_EQ(out[i], 0x5A) << "byte " << i;
    std::vector<uint8_t> bits(k);
    unpack_bits(out.data() + 4, bits.data(), k);
    return bits;
}

//! LDPC decoder options: arithmetic, algorithm, early termination; defaults otherwise.
inline ldpc_decoder_options ldpc_opts(ldpc_arithmetic a,
                                      ldpc_algorithm alg = ldpc_algorithm::normalized,
                                      bool et = true)
{
    ldpc_decoder_options o;
    o.arithmetic = a;
    o.algorithm = alg;
    o.early_termination = et;
    return o;
}

//! Info bits decoded wrong, over all frames.
inline size_t bit_errors(const trial& t, const decoded_batch& d)
{
    size_t errors = 0;
    for (size_t f = 0; f < t.info.size(); f++)
        for (size_t i = 0; i < t.info[f].size(); i++)
            errors += t.info[f][i] != d.bits[f][i];
    return errors;
}

//! Frames with at least one info bit wrong.
inline size_t frame_errors(const trial& t, const decoded_batch& d)
{
    size_t errors = 0;
    for (size_t f = 0; f < t.info.size(); f++)
        errors += t.info[f] != d.bits[f];
    return errors;
}

//! Decodes `frames` through a batch engine (GPU decoders need its device frame table
//! and buffers), k bits per frame, results in frame order; every frame comes back once.
inline decoded_batch engine_decode(std::shared_ptr<batch_decoder> dec,
                                   const std::vector<std::vector<llr8_t>>& frames,
                                   int k,
                                   bool soft,
                                   size_t max_batch_frames = 64)
{
    decoded_batch r;
    r.bits.resize(frames.size());
    r.soft.resize(soft ? frames.size() : 0);
    r.status.resize(frames.size());
    std::vector<uint8_t> seen(frames.size(), 0);
    engine_config cfg;
    cfg.max_batch_frames = max_batch_frames;
    cfg.soft_output = soft;
    batch_engine engine(dec, cfg);
    auto take = [&](const completed_frame& c) {
        ASSERT_LT(c.id, frames.size());
        ASSERT_EQ(c.nbits, size_t(k));
        seen[c.id]++;
        r.bits[c.id].resize(k);
        unpack_bits(c.packed, r.bits[c.id].data(), k);
        r.status[c.id] = c.status;
        if (soft)
            r.soft[c.id].assign(c.soft, c.soft + k);
    };
    completed_frame c;
    for (size_t f = 0; f < frames.size(); f++) {
        while (!engine.submit(frames[f].data(), frames[f].size(), f))
            if (engine.pop_wait(c))
                take(c);
        while (engine.try_pop(c))
            take(c);
    }
    engine.flush();
    while (engine.pop_wait(c))
        take(c);
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(frames.size()));
    return r;
}

} // namespace test
} // namespace gpufec

#endif
