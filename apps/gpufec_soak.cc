/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// gpufec-soak: runs a GNU Radio flowgraph for a set time, with stop()/start() cycles,
// and checks every frame exactly (docs/soak.md):
//
//   soak_source --float LLRs + packet_len--> viterbi_decoder --bits + packet_len-->
//   check_sink
//
// * soak_source: random info lengths in [--min-bits, --max-bits], random bits, the core
//   convolutional encoder (conv_encode), BPSK + AWGN at --ebn0 (or noiseless), float
//   LLRs with a packet_len tag per frame; each frame's info bits go into a reference
//   queue, in order. With --split the frames are written in random pieces.
// * viterbi_decoder (--backend), length tag packet_len, a random max_latency_ms and
//   max_batch_frames per epoch.
// * check_sink: cuts its input at the packet_len tags and compares each frame with the
//   reference queue, in order; stalls at random (sleeps in some work() calls, consumes
//   random partial amounts) to exercise back-pressure.
//
// The run is a series of epochs (one decoder each, so max_latency_ms can change); an
// epoch is 1..4 cycles of start(), a random duration, stop(), wait() with the same
// blocks, and ends with a drain: the source writes what it still holds, returns
// WORK_DONE and the graph runs to its end, after which the reference queue must be
// empty.
//
// GNU Radio gives every block new buffers (and item counters from 0) at each start():
// items in the buffers at stop() are discarded by GNU Radio itself. The soak accounts
// for them exactly from the item counters after wait():
// * items the decoder had not read: the source writes those frames again (the decoder
//   never saw them, or saw only the beginning of one: it must forget that part);
// * decoded items the sink had not read: those frames were decoded, and GNU Radio
//   dropped them; they are taken off the reference queue as "discarded at restart",
//   and the item count must add up to whole frames exactly.
// Anything else missing, extra, reordered or different is a failure.
#include "gr_console_log.h"
#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/gpufec/conv_code.h>
#include <gnuradio/gpufec/viterbi_decoder.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <condition_variable>
#include <gpufec/convolutional.h>
#include <pmt/pmt.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <unordered_map>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

//! splitmix64: small, fast and good enough for test data.
struct rng64 {
    uint64_t s;
    explicit rng64(uint64_t seed) : s(seed) {}
    uint64_t next()
    {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    //! Uniform in [lo, hi] (inclusive).
    uint64_t range(uint64_t lo, uint64_t hi)
    {
        return hi <= lo ? lo : lo + next() % (hi - lo + 1);
    }
    double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    bool chance(double p) { return uniform() < p; }
};

uint64_t hash_bits(const uint8_t* bits, size_t n)
{
    uint64_t h = 1469598103934665603ULL ^ n;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ (bits[i] & 1)) * 1099511628211ULL;
    }
    return h;
}

// ---------------------------------------------------------------------------------
// Reference queue and results shared by the blocks and main()

struct ref_frame {
    uint64_t seq = 0;
    uint64_t hash = 0;
    std::vector<uint8_t> bits;
};

struct results {
    // source
    uint64_t frames_generated = 0;
    uint64_t bits_generated = 0;
    uint64_t frames_resent = 0;          //!< written again after a restart
    uint64_t partial_frames_at_stop = 0; //!< the decoder had read part of one
    // sink
    uint64_t frames_out = 0; //!< decoded frames seen by the sink
    uint64_t frames_ok = 0;
    uint64_t bits_checked = 0;
    uint64_t bit_errors = 0;
    uint64_t frame_errors = 0; //!< right frame, some bits wrong
    uint64_t lost = 0;         //!< frames skipped over in the reference queue
    uint64_t reordered = 0;    //!< a frame earlier counted lost, decoded later
    uint64_t length_mismatch = 0;
    uint64_t extra = 0;            //!< decoded frames with no reference left
    uint64_t untagged_items = 0;   //!< sink items outside any tagged frame
    uint64_t discarded_frames = 0; //!< decoded, dropped by GNU Radio at restart
    uint64_t discarded_items = 0;
    uint64_t accounting_errors = 0;
    uint64_t stalls = 0;
};

class reference_queue
{
public:
    void push(ref_frame f)
    {
        std::lock_guard<std::mutex> l(d_mutex);
        d_q.push_back(std::move(f));
    }
    //! Runs fn(deque&) under the lock.
    template <class F>
    auto with(F&& fn)
    {
        std::lock_guard<std::mutex> l(d_mutex);
        return fn(d_q);
    }
    size_t size()
    {
        std::lock_guard<std::mutex> l(d_mutex);
        return d_q.size();
    }

private:
    std::mutex d_mutex;
    std::deque<ref_frame> d_q;
};

// ---------------------------------------------------------------------------------
// Source

struct source_frame {
    size_t info_bits = 0;
    std::vector<float> llrs;
    uint64_t start = 0; //!< item offset in the current cycle (valid once written)
};

class soak_source : public gr::block
{
public:
    soak_source(const gr::gpufec::conv_code::sptr& code,
                reference_queue& refs,
                results& res,
                int min_bits,
                int max_bits,
                double ebn0_db,
                bool split,
                uint64_t seed)
        : gr::block("soak_source",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make(1, 1, sizeof(float))),
          d_code(code),
          d_refs(refs),
          d_res(res),
          d_min_bits(min_bits),
          d_max_bits(max_bits),
          d_split(split),
          d_rng(seed),
          d_len_key(pmt::intern("packet_len"))
    {
        const double rate = 1.0 / code->core().n(); // unpunctured
        d_noiseless = !std::isfinite(ebn0_db);
        const double ebn0 = std::pow(10.0, ebn0_db / 10.0);
        d_sigma = d_noiseless ? 0.0 : std::sqrt(1.0 / (2.0 * rate * ebn0));
        d_llr_gain = d_noiseless ? 4.0f : float(2.0 / (d_sigma * d_sigma));
        const size_t max_coded = code->core().coded_bits(size_t(max_bits));
        if (!split) {
            set_min_noutput_items(static_cast<int>(max_coded));
        }
        // Room for several frames, as a real source would give a batched decoder.
        set_min_output_buffer(
            static_cast<long>(std::max<size_t>(1 << 18, 16 * max_coded)));
        d_coded.resize(max_coded);
        // 2^20 Gaussian samples (Box-Muller), sigma^2 = 1 / (2 R Eb/N0); zeros when
        // noiseless.
        d_noise.assign(size_t(1) << 20, 0.0f);
        for (size_t i = 0; !d_noiseless && i < d_noise.size(); i += 2) {
            const double u1 = std::max(d_rng.uniform(), 1e-300);
            const double u2 = d_rng.uniform();
            const double r = d_sigma * std::sqrt(-2.0 * std::log(u1));
            d_noise[i] = float(r * std::cos(2.0 * M_PI * u2));
            d_noise[i + 1] = float(r * std::sin(2.0 * M_PI * u2));
        }
    }

    //! The next start() ends the stream once every frame held is written.
    void set_finishing(bool f) { d_finishing = f; }

    /*!
     * After wait(): the decoder read `dec_read` items of this cycle. Frames it read
     * wholly are done; the rest (unread, or read in part) are written again from the
     * start in the next cycle. Returns the frames it had read wholly.
     */
    uint64_t end_cycle(uint64_t dec_read)
    {
        uint64_t consumed = 0;
        while (d_next > 0) {
            const source_frame& f = d_frames.front();
            if (f.start + f.llrs.size() > dec_read) {
                break;
            }
            d_frames.pop_front();
            --d_next;
            ++consumed;
        }
        const size_t written = d_next + (d_pos > 0 ? 1 : 0);
        if (written > 0 && d_frames.front().start < dec_read) {
            ++d_res.partial_frames_at_stop;
        }
        d_res.frames_resent += written;
        d_consumed_total += consumed;
        d_next = 0;
        d_pos = 0;
        return consumed;
    }
    uint64_t consumed_total() const { return d_consumed_total; }
    size_t held_frames() const { return d_frames.size(); }

    int general_work(int noutput_items,
                     gr_vector_int&,
                     gr_vector_const_void_star&,
                     gr_vector_void_star& output_items) override
    {
        auto* out = static_cast<float*>(output_items[0]);
        const uint64_t first = nitems_written(0);
        const size_t room = static_cast<size_t>(noutput_items);
        size_t produced = 0;
        // Frames certainly read by the decoder (more than a buffer behind) need not be
        // kept for writing again.
        const uint64_t bufsize = detail()->output(0)->bufsize();
        while (d_next > 0 &&
               d_frames.front().start + d_frames.front().llrs.size() + bufsize <= first) {
            d_frames.pop_front();
            --d_next;
            ++d_consumed_total;
        }
        // A random budget per call in split mode: frames cross work calls.
        size_t budget = room;
        if (d_split) {
            budget = std::min<size_t>(room, d_rng.range(1, 3 * d_coded.size()));
        }
        while (produced < budget) {
            if (d_next == d_frames.size()) {
                if (d_finishing) {
                    break;
                }
                generate();
            }
            source_frame& f = d_frames[d_next];
            const size_t left = f.llrs.size() - d_pos;
            const size_t n = std::min(left, budget - produced);
            if (!d_split && n < left) {
                break; // whole frames only
            }
            if (d_pos == 0) {
                f.start = first + produced;
                add_item_tag(0,
                             f.start,
                             d_len_key,
                             pmt::from_long(static_cast<long>(f.llrs.size())));
            }
            std::memcpy(out + produced, f.llrs.data() + d_pos, n * sizeof(float));
            produced += n;
            d_pos += n;
            if (d_pos == f.llrs.size()) {
                d_pos = 0;
                ++d_next;
            }
        }
        if (produced == 0 && d_finishing && d_next == d_frames.size()) {
            return WORK_DONE;
        }
        return static_cast<int>(produced);
    }

private:
    void generate()
    {
        const size_t nbits = d_rng.range(size_t(d_min_bits), size_t(d_max_bits));
        ref_frame ref;
        ref.seq = d_seq++;
        ref.bits.resize(nbits);
        for (size_t i = 0; i < nbits; i += 64) {
            uint64_t r = d_rng.next();
            for (size_t j = i; j < std::min(nbits, i + 64); ++j, r >>= 1) {
                ref.bits[j] = static_cast<uint8_t>(r & 1);
            }
        }
        ref.hash = hash_bits(ref.bits.data(), nbits);
        const size_t ncoded =
            ::gpufec::conv_encode(d_code->core(), ref.bits.data(), nbits, d_coded.data());
        source_frame f;
        f.info_bits = nbits;
        f.llrs.resize(ncoded);
        // Noise from a precomputed table at a random offset: the source then keeps up
        // with a GPU decoder (the soak checks frames, not the noise statistics). Soft
        // values in GNU Radio's convention (positive = bit 1), the decoder's default.
        size_t k = d_rng.range(0, d_noise.size() - 1);
        for (size_t i = 0; i < ncoded; ++i) {
            f.llrs[i] = -d_llr_gain * ((d_coded[i] ? -1.0f : 1.0f) + d_noise[k]);
            k = k + 1 == d_noise.size() ? 0 : k + 1;
        }
        ++d_res.frames_generated;
        d_res.bits_generated += nbits;
        d_refs.push(std::move(ref));
        d_frames.push_back(std::move(f));
    }

    gr::gpufec::conv_code::sptr d_code;
    reference_queue& d_refs;
    results& d_res;
    const int d_min_bits;
    const int d_max_bits;
    const bool d_split;
    rng64 d_rng;
    pmt::pmt_t d_len_key;
    bool d_noiseless = false;
    double d_sigma = 0.0;
    float d_llr_gain = 1.0f;
    std::vector<uint8_t> d_coded;
    std::vector<float> d_noise;
    uint64_t d_seq = 0;
    //! Frames not known to be read by the decoder, in order; [0, d_next) are written
    //! (this cycle), d_frames[d_next] is written up to d_pos.
    std::deque<source_frame> d_frames;
    size_t d_next = 0;
    size_t d_pos = 0;
    bool d_finishing = false;
    uint64_t d_consumed_total = 0;
};

// ---------------------------------------------------------------------------------
// Checking sink

class check_sink : public gr::sync_block
{
public:
    check_sink(reference_queue& refs,
               results& res,
               uint64_t seed,
               double stall_prob,
               int stall_max_ms,
               double partial_prob,
               bool verbose)
        : gr::sync_block("check_sink",
                         gr::io_signature::make(1, 1, sizeof(uint8_t)),
                         gr::io_signature::make(0, 0, 0)),
          d_refs(refs),
          d_res(res),
          d_rng(seed),
          d_stall_prob(stall_prob),
          d_stall_max_ms(stall_max_ms),
          d_partial_prob(partial_prob),
          d_verbose(verbose),
          d_len_key(pmt::intern("packet_len"))
    {
        set_tag_propagation_policy(TPP_DONT);
    }

    // A sync sink: returning fewer items than offered consumes only those.
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star&) override
    {
        if (d_rng.chance(d_stall_prob)) {
            ++d_res.stalls;
            std::this_thread::sleep_for(
                std::chrono::microseconds(d_rng.range(0, 1000 * d_stall_max_ms)));
        }
        size_t n = static_cast<size_t>(noutput_items);
        if (n > 1 && d_rng.chance(d_partial_prob)) {
            n = d_rng.range(1, n);
        }
        const auto* in = static_cast<const uint8_t*>(input_items[0]);
        const uint64_t first = nitems_read(0);
        d_tags.clear();
        get_tags_in_range(d_tags, 0, first, first + n, d_len_key);
        std::stable_sort(d_tags.begin(), d_tags.end(), gr::tag_t::offset_compare);
        size_t t = 0;
        size_t i = 0;
        while (i < n) {
            const uint64_t pos = first + i;
            if (t < d_tags.size() && d_tags[t].offset == pos) {
                if (d_len > 0) {
                    report("frame cut short by the next length tag", d_fill, d_len);
                    ++d_res.length_mismatch;
                    d_len = 0;
                }
                const long len = pmt::to_long(d_tags[t].value);
                ++t;
                if (len <= 0) {
                    report("bad length tag", uint64_t(len), 0);
                    ++d_res.length_mismatch;
                    continue;
                }
                d_len = static_cast<size_t>(len);
                d_fill = 0;
                d_frame.resize(d_len);
            }
            const uint64_t next_tag = t < d_tags.size() ? d_tags[t].offset : first + n;
            if (d_len == 0) {
                d_res.untagged_items += next_tag - pos;
                i += next_tag - pos;
                continue;
            }
            const size_t take = std::min<size_t>(d_len - d_fill, next_tag - pos);
            std::memcpy(d_frame.data() + d_fill, in + i, take);
            d_fill += take;
            i += take;
            if (d_fill == d_len) {
                check_frame();
                d_len = 0;
                d_fill = 0;
            }
        }
        return static_cast<int>(n);
    }

    /*!
     * After wait(): GNU Radio drops the `lost` decoded items the sink had not read
     * (the rest of the frame being read, then whole frames). Takes those frames off the
     * reference queue; the count must end on a frame boundary.
     */
    void end_cycle(uint64_t lost)
    {
        d_res.discarded_items += lost;
        uint64_t left = lost;
        if (d_len > 0) {
            const uint64_t rest = d_len - d_fill;
            if (rest > left) {
                report(
                    "fewer items dropped at stop than the open frame needs", left, rest);
                ++d_res.accounting_errors;
                left = 0;
            } else {
                left -= rest;
            }
            pop_discarded(d_len);
            d_len = 0;
            d_fill = 0;
        }
        while (left > 0) {
            const size_t len = d_refs.with([](std::deque<ref_frame>& q) {
                return q.empty() ? 0 : q.front().bits.size();
            });
            if (len == 0 || len > left) {
                report("items dropped at stop do not end on a frame boundary", left, len);
                ++d_res.accounting_errors;
                break;
            }
            pop_discarded(len);
            left -= len;
        }
    }

private:
    void pop_discarded(size_t len)
    {
        d_refs.with([&](std::deque<ref_frame>& q) {
            if (q.empty() || q.front().bits.size() != len) {
                report("dropped frame's length differs from the reference",
                       len,
                       q.empty() ? 0 : q.front().bits.size());
                ++d_res.accounting_errors;
            }
            if (!q.empty()) {
                q.pop_front();
            }
            return 0;
        });
        ++d_res.discarded_frames;
    }

    void report(const char* what, uint64_t a, uint64_t b)
    {
        if (d_reports < 20 || d_verbose) {
            std::fprintf(stderr,
                         "check_sink: %s (%llu, %llu) after %llu frames\n",
                         what,
                         (unsigned long long)a,
                         (unsigned long long)b,
                         (unsigned long long)d_res.frames_out);
        }
        ++d_reports;
    }

    void check_frame()
    {
        ++d_res.frames_out;
        const uint64_t h = hash_bits(d_frame.data(), d_len);
        // A frame counted lost earlier that shows up now: reordered.
        auto it = d_lost.find(h);
        if (it != d_lost.end()) {
            ++d_res.reordered;
            --d_res.lost;
            d_lost.erase(it);
            report("frame decoded out of order", d_len, 0);
            return;
        }
        d_refs.with([&](std::deque<ref_frame>& q) {
            if (q.empty()) {
                ++d_res.extra;
                report("decoded frame with no reference frame left", d_len, 0);
                return 0;
            }
            ref_frame& ref = q.front();
            if (ref.hash == h && ref.bits.size() == d_len) {
                ++d_res.frames_ok;
                d_res.bits_checked += d_len;
                q.pop_front();
                return 0;
            }
            // Not the next frame bit for bit: a later one (frames lost)?
            const size_t look = std::min<size_t>(q.size(), 4096);
            for (size_t k = 1; k < look; ++k) {
                if (q[k].hash == h && q[k].bits.size() == d_len) {
                    report("frames lost before this one", k, q[k].seq);
                    for (size_t j = 0; j < k; ++j) {
                        if (d_lost.size() < 100000) {
                            d_lost.emplace(q.front().hash, q.front().seq);
                        }
                        q.pop_front();
                    }
                    d_res.lost += k;
                    ++d_res.frames_ok;
                    d_res.bits_checked += d_len;
                    q.pop_front();
                    return 0;
                }
            }
            if (ref.bits.size() != d_len) {
                ++d_res.length_mismatch;
                report(
                    "decoded length differs from the reference", d_len, ref.bits.size());
            } else {
                uint64_t errors = 0;
                for (size_t i = 0; i < d_len; ++i) {
                    errors += (d_frame[i] ^ ref.bits[i]) & 1;
                }
                d_res.bit_errors += errors;
                d_res.bits_checked += d_len;
                ++d_res.frame_errors;
                if (d_verbose) {
                    report("bit errors in frame", errors, ref.seq);
                }
            }
            q.pop_front();
            return 0;
        });
    }

    reference_queue& d_refs;
    results& d_res;
    rng64 d_rng;
    const double d_stall_prob;
    const int d_stall_max_ms;
    const double d_partial_prob;
    const bool d_verbose;
    pmt::pmt_t d_len_key;
    std::vector<gr::tag_t> d_tags;
    std::vector<uint8_t> d_frame;
    size_t d_len = 0; //!< 0: between frames
    size_t d_fill = 0;
    uint64_t d_reports = 0;
    std::unordered_map<uint64_t, uint64_t> d_lost; //!< hash -> seq of lost frames
};

// ---------------------------------------------------------------------------------

struct options {
    double seconds = 60.0;
    std::string backend = "cpu";
    uint64_t seed = 1;
    double ebn0 = 8.0;
    int min_bits = 64;
    int max_bits = 4096;
    double cycle_min = 0.5;
    double cycle_max = 3.0;
    double latency_min = 0.0;
    double latency_max = 50.0;
    int batch_min = 4;
    int batch_max = 256;
    int max_cycles_per_epoch = 4;
    bool split = true;
    double stall_prob = 0.05;
    int stall_max_ms = 20;
    double partial_prob = 0.3;
    double max_ber = 0.0;
    double warmup_fraction = 0.2;
    double max_rss_growth_mb = 20.0;
    double hang_seconds = 60.0;
    bool lift_decoder_buffer = false;
    bool verbose = false;
};

void usage()
{
    std::puts(
        "usage: gpufec-soak [--seconds S] [--backend cpu|cuda|cuda:N|auto] [--seed N]\n"
        "                   [--ebn0 dB|inf] [--min-bits N] [--max-bits N]\n"
        "                   [--cycle-seconds MIN,MAX] [--latency-ms MIN,MAX]\n"
        "                   [--batch MIN,MAX] [--cycles-per-epoch N] [--no-split]\n"
        "                   [--stall-prob P] [--stall-max-ms N] [--partial-prob P]\n"
        "                   [--max-ber X] [--max-rss-growth-mb MB] [--hang-seconds S]\n"
        "                   [--lift-decoder-buffer] [--verbose]\n"
        "  source (random lengths, conv K=7 r=1/2, BPSK+AWGN) -> viterbi_decoder ->\n"
        "  checking sink; stop()/start() cycles of random duration, one decoder per\n"
        "  epoch of 1..cycles-per-epoch cycles (random max_latency_ms and batch), a\n"
        "  drain at the end of each epoch. Exit 0 only when every frame checks.\n"
        "  --ebn0 inf      noiseless (default 8 dB: error-free in practice)\n"
        "  --no-split      the source writes whole frames only (default: random pieces)\n"
        "  --max-ber       bit error rate allowed (default 0)\n"
        "  --lift-decoder-buffer  reset the decoder's max_output_buffer before each\n"
        "                  start() (GNU Radio 3.10 otherwise shrinks its output buffer\n"
        "                  to the default at a restart)");
}

bool parse_range(const std::string& s, double& lo, double& hi)
{
    const size_t c = s.find(',');
    try {
        lo = std::stod(s.substr(0, c));
        hi = c == std::string::npos ? lo : std::stod(s.substr(c + 1));
    } catch (const std::exception&) {
        return false;
    }
    return lo <= hi && lo >= 0;
}

double rss_mb()
{
    long pages_total = 0, pages_rss = 0;
    FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) {
        return 0.0;
    }
    if (std::fscanf(f, "%ld %ld", &pages_total, &pages_rss) != 2) {
        pages_rss = 0;
    }
    std::fclose(f);
    return double(pages_rss) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

//! Ends the process when stop()/wait() or a drain takes too long (a hang).
class watchdog
{
public:
    explicit watchdog(double limit_s) : d_limit(limit_s), d_thread([this] { loop(); }) {}
    ~watchdog()
    {
        {
            std::lock_guard<std::mutex> l(d_mutex);
            d_quit = true;
        }
        d_cv.notify_all();
        d_thread.join();
    }
    void arm(const std::string& what)
    {
        std::lock_guard<std::mutex> l(d_mutex);
        d_what = what;
        d_deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                             std::chrono::duration<double>(d_limit));
        d_armed = true;
        d_cv.notify_all();
    }
    void disarm()
    {
        std::lock_guard<std::mutex> l(d_mutex);
        d_armed = false;
    }

private:
    void loop()
    {
        std::unique_lock<std::mutex> l(d_mutex);
        while (!d_quit) {
            if (d_armed && clock_type::now() >= d_deadline) {
                std::fprintf(stderr,
                             "gpufec-soak: HANG: %s did not finish within %.0f s\n",
                             d_what.c_str(),
                             d_limit);
                std::fflush(stderr);
                std::_Exit(3);
            }
            d_cv.wait_for(l, std::chrono::milliseconds(200));
        }
    }
    double d_limit;
    std::mutex d_mutex;
    std::condition_variable d_cv;
    bool d_armed = false;
    bool d_quit = false;
    std::string d_what;
    clock_type::time_point d_deadline;
    std::thread d_thread;
};

constexpr bool under_address_sanitizer()
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

int run(const options& o)
{
    gpufec_apps::gnuradio_log_to_console(o.verbose);
    auto code =
        gr::gpufec::conv_code::make(o.max_bits, 7, { 0171, 0133 }, "terminated", "");
    reference_queue refs;
    results res;
    rng64 rng(o.seed);
    auto src = gnuradio::make_block_sptr<soak_source>(
        code, refs, res, o.min_bits, o.max_bits, o.ebn0, o.split, rng.next());
    auto sink = gnuradio::make_block_sptr<check_sink>(
        refs, res, rng.next(), o.stall_prob, o.stall_max_ms, o.partial_prob, o.verbose);
    watchdog dog(o.hang_seconds);

    std::printf("gpufec-soak: backend %s, %.0f s, seed %llu, Eb/N0 %s, %d..%d bits, "
                "cycles %.2f..%.2f s, max_latency_ms %.1f..%.1f, batch %d..%d, %s\n",
                o.backend.c_str(),
                o.seconds,
                (unsigned long long)o.seed,
                std::isfinite(o.ebn0) ? std::to_string(o.ebn0).c_str()
                                      : "inf (noiseless)",
                o.min_bits,
                o.max_bits,
                o.cycle_min,
                o.cycle_max,
                o.latency_min,
                o.latency_max,
                o.batch_min,
                o.batch_max,
                o.split ? "split frames" : "whole frames");
    std::printf("%5s %5s %7s %6s %7s %10s %10s %8s %8s %8s %6s %9s %8s\n",
                "cycle",
                "epoch",
                "lat_ms",
                "batch",
                "secs",
                "frames_in",
                "frames_out",
                "held",
                "resent",
                "gr_disc",
                "errs",
                "Mb/s",
                "RSS_MB");
    std::fflush(stdout);

    const auto t_start = clock_type::now();
    double run_time = 0.0; // time with the graph running
    // RSS between epochs (decoder and top block destroyed): what stays is the source,
    // the sink, the reference queue and whatever leaked. Per-cycle RSS depends on the
    // epoch's buffer sizes (random batch and frame sizes), so it is printed only.
    std::vector<double> rss;
    std::vector<double> rss_time;
    double rss_peak = 0.0;
    const double rss_start = rss_mb();
    int cycle = 0;
    int epoch = 0;
    uint64_t decoded_total = 0; // decoded_frames() of the decoders of past epochs
    uint64_t dropped_total = 0;
    std::string backend_used;
    bool finished = false;
    while (!finished) {
        const double latency = rng.uniform(o.latency_min, o.latency_max);
        const int batch = static_cast<int>(rng.range(o.batch_min, o.batch_max));
        auto dec = gr::gpufec::viterbi_decoder::make(
            code, "float", "packet_len", o.backend, batch, latency, 8.0);
        backend_used = dec->backend_name();
        auto tb = gr::make_top_block("gpufec_soak");
        tb->connect(src, 0, dec, 0);
        tb->connect(dec, 0, sink, 0);
        const int cycles = static_cast<int>(rng.range(1, o.max_cycles_per_epoch));
        for (int c = 0; c <= cycles && !finished; ++c) {
            // Cycles 0..cycles-1: stop() at a random time; the last one drains.
            const bool drain = c == cycles;
            const uint64_t gen_before = res.frames_generated;
            const uint64_t out_before = res.frames_out;
            const uint64_t bits_before = res.bits_checked;
            const uint64_t resent_before = res.frames_resent;
            const uint64_t disc_before = res.discarded_frames;
            const uint64_t errs_before = res.bit_errors + res.lost + res.reordered +
                                         res.length_mismatch + res.extra +
                                         res.accounting_errors + res.untagged_items;
            src->set_finishing(drain);
            // GNU Radio 3.10 pins max_output_buffer to the buffer it allocated at the
            // first start(); at the next start() that limit wins over
            // min_output_buffer and the buffer falls back to the default (32 KiB * 2),
            // too small for the source's whole frames ("Buffer too small for
            // min_noutput_items"). Lift the limit again. The decoder is left as GNU
            // Radio makes it (its output buffer shrinks after the first cycle; with
            // frames over 32768 bits its thread then fails at the restart) unless
            // --lift-decoder-buffer.
            src->set_max_output_buffer(0, -1);
            if (o.lift_decoder_buffer) {
                dec->set_max_output_buffer(0, -1);
            }
            const auto t0 = clock_type::now();
            double secs = 0.0;
            if (drain) {
                dog.arm("a drain (source done -> graph end)");
                tb->start();
                tb->wait();
            } else {
                const double remaining = o.seconds - seconds_since(t_start);
                const double want = std::min(rng.uniform(o.cycle_min, o.cycle_max),
                                             std::max(remaining, 0.0));
                tb->start();
                std::this_thread::sleep_for(std::chrono::duration<double>(want));
                dog.arm("stop()/wait()");
                tb->stop();
                tb->wait();
            }
            dog.disarm();
            secs = seconds_since(t0);
            run_time += secs;
            // What GNU Radio drops with the buffers at the next start().
            const uint64_t dec_read = dec->nitems_read(0);
            const uint64_t dec_written = dec->nitems_written(0);
            const uint64_t sink_read = sink->nitems_read(0);
            src->end_cycle(dec_read);
            sink->end_cycle(dec_written - sink_read);
            // Frames the decoder read wholly but has not output: held over the stop.
            const uint64_t held =
                src->consumed_total() - (decoded_total + dec->decoded_frames());
            const double r = rss_mb();
            rss_peak = std::max(rss_peak, r);
            const uint64_t errs = res.bit_errors + res.lost + res.reordered +
                                  res.length_mismatch + res.extra +
                                  res.accounting_errors + res.untagged_items;
            std::printf("%5d %5d %7.1f %6d %7.2f %10llu %10llu %8lld %8llu %8llu %6llu "
                        "%9.2f %8.1f%s\n",
                        cycle,
                        epoch,
                        latency,
                        batch,
                        secs,
                        (unsigned long long)(res.frames_generated - gen_before),
                        (unsigned long long)(res.frames_out - out_before),
                        (long long)held,
                        (unsigned long long)(res.frames_resent - resent_before),
                        (unsigned long long)(res.discarded_frames - disc_before),
                        (unsigned long long)(errs - errs_before),
                        (res.bits_checked - bits_before) / std::max(secs, 1e-9) / 1e6,
                        r,
                        drain ? "  (drain)" : "");
            std::fflush(stdout);
            ++cycle;
            if (drain) {
                if (held != 0 || refs.size() != 0) {
                    std::fprintf(stderr,
                                 "gpufec-soak: after the drain of epoch %d: %lld frames "
                                 "held in the decoder, %zu reference frames unmatched\n",
                                 epoch,
                                 (long long)held,
                                 refs.size());
                    ++res.accounting_errors;
                }
                if (seconds_since(t_start) >= o.seconds) {
                    finished = true;
                }
            } else if (seconds_since(t_start) >= o.seconds) {
                // Time is up: go straight to this epoch's drain.
                c = cycles - 1;
            }
        }
        decoded_total += dec->decoded_frames();
        dropped_total += dec->dropped_frames();
        ++epoch;
        // The top block and decoder go out of scope here (engine torn down).
        tb.reset();
        dec.reset();
#ifdef __GLIBC__
        malloc_trim(0); // free heap back to the system: what stays is in use
#endif
        rss.push_back(rss_mb());
        rss_time.push_back(seconds_since(t_start));
        std::printf("      epoch %d done: RSS without a decoder %.1f MB\n",
                    epoch - 1,
                    rss.back());
    }
    const double total = seconds_since(t_start);

    // Memory: growth after the warm-up (the first warmup_fraction of the run).
    double rss_warm = rss.empty() ? rss_start : rss.front();
    for (size_t i = 0; i < rss.size(); ++i) {
        if (rss_time[i] <= o.warmup_fraction * total) {
            rss_warm = rss[i];
        }
    }
    const double rss_end = rss.empty() ? rss_mb() : rss.back();
    for (double v : rss) {
        rss_peak = std::max(rss_peak, v);
    }
    const double growth = rss_end - rss_warm;

    const uint64_t leftover = refs.size();
    const double ber = res.bits_checked ? double(res.bit_errors) / res.bits_checked : 0.0;
    const bool ok_frames = res.lost == 0 && res.reordered == 0 &&
                           res.length_mismatch == 0 && res.extra == 0 &&
                           res.untagged_items == 0 && res.accounting_errors == 0 &&
                           leftover == 0 &&
                           // A frame cut by a stop is dropped by the decoder (logged,
                           // counted) and written again whole by the source.
                           dropped_total == res.partial_frames_at_stop;
    const bool ok_ber = ber <= o.max_ber;
    // AddressSanitizer keeps freed memory in its quarantine (256 MB by default), so
    // RSS grows without a leak; LeakSanitizer checks leaks there instead.
    const bool ok_rss = under_address_sanitizer() || growth <= o.max_rss_growth_mb;
    const bool ok = ok_frames && ok_ber && ok_rss;

    std::printf("\n== gpufec-soak summary (%s backend, seed %llu) ==\n",
                backend_used.c_str(),
                (unsigned long long)o.seed);
    auto row = [](const char* k, const std::string& v) {
        std::printf("  %-34s %s\n", k, v.c_str());
    };
    auto u = [](uint64_t v) { return std::to_string(v); };
    char buf[256];
    std::snprintf(buf, sizeof buf, "%.1f s (graph running %.1f s)", total, run_time);
    row("wall time", buf);
    row("epochs (decoders) / cycles", u(uint64_t(epoch)) + " / " + u(uint64_t(cycle)));
    row("frames in (generated)", u(res.frames_generated));
    row("frames out (decoded, checked)", u(res.frames_out));
    row("frames discarded by GR at restart",
        u(res.discarded_frames) + " (" + u(res.discarded_items) + " items)");
    row("frames written again after stop", u(res.frames_resent));
    row("  of which partly read by decoder", u(res.partial_frames_at_stop));
    row("frames lost", u(res.lost));
    row("frames reordered", u(res.reordered));
    row("length mismatches", u(res.length_mismatch));
    row("extra frames / untagged items", u(res.extra) + " / " + u(res.untagged_items));
    row("accounting errors", u(res.accounting_errors));
    row("reference frames left over", u(leftover));
    row("decoder dropped_frames() (= frames cut by a stop)", u(dropped_total));
    std::snprintf(buf,
                  sizeof buf,
                  "%llu in %llu bits (BER %.3e, %llu frames with errors)",
                  (unsigned long long)res.bit_errors,
                  (unsigned long long)res.bits_checked,
                  ber,
                  (unsigned long long)res.frame_errors);
    row("bit errors", buf);
    std::snprintf(
        buf, sizeof buf, "%.2f", res.bits_checked / std::max(run_time, 1e-9) / 1e6);
    row("decoded Mb/s (while running)", buf);
    row("sink stalls", u(res.stalls));
    std::snprintf(buf,
                  sizeof buf,
                  "start %.1f; between epochs: after warm-up %.1f, end %.1f MB (growth "
                  "%+.1f, bound %.1f%s); peak %.1f",
                  rss_start,
                  rss_warm,
                  rss_end,
                  growth,
                  o.max_rss_growth_mb,
                  under_address_sanitizer() ? ", not checked under ASan" : "",
                  rss_peak);
    row("RSS", buf);
    row("result",
        ok ? "PASS"
           : std::string("FAIL") + (ok_frames ? "" : " (frames)") +
                 (ok_ber ? "" : " (bit errors)") + (ok_rss ? "" : " (memory growth)"));
    std::fflush(stdout);
    return ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                usage();
                std::exit(2);
            }
            return argv[++i];
        };
        try {
            if (a == "--seconds") {
                o.seconds = std::stod(next());
            } else if (a == "--backend") {
                o.backend = next();
            } else if (a == "--seed") {
                o.seed = std::stoull(next());
            } else if (a == "--ebn0") {
                const std::string v = next();
                o.ebn0 = (v == "inf" || v == "noiseless")
                             ? std::numeric_limits<double>::infinity()
                             : std::stod(v);
            } else if (a == "--noiseless") {
                o.ebn0 = std::numeric_limits<double>::infinity();
            } else if (a == "--min-bits") {
                o.min_bits = std::stoi(next());
            } else if (a == "--max-bits") {
                o.max_bits = std::stoi(next());
            } else if (a == "--cycle-seconds") {
                if (!parse_range(next(), o.cycle_min, o.cycle_max)) {
                    throw std::invalid_argument("--cycle-seconds MIN,MAX");
                }
            } else if (a == "--latency-ms") {
                if (!parse_range(next(), o.latency_min, o.latency_max)) {
                    throw std::invalid_argument("--latency-ms MIN,MAX");
                }
            } else if (a == "--batch") {
                double lo, hi;
                if (!parse_range(next(), lo, hi) || lo < 1) {
                    throw std::invalid_argument("--batch MIN,MAX");
                }
                o.batch_min = int(lo);
                o.batch_max = int(hi);
            } else if (a == "--cycles-per-epoch") {
                o.max_cycles_per_epoch = std::max(1, std::stoi(next()));
            } else if (a == "--no-split") {
                o.split = false;
            } else if (a == "--split") {
                o.split = true;
            } else if (a == "--stall-prob") {
                o.stall_prob = std::stod(next());
            } else if (a == "--stall-max-ms") {
                o.stall_max_ms = std::stoi(next());
            } else if (a == "--partial-prob") {
                o.partial_prob = std::stod(next());
            } else if (a == "--max-ber") {
                o.max_ber = std::stod(next());
            } else if (a == "--max-rss-growth-mb") {
                o.max_rss_growth_mb = std::stod(next());
            } else if (a == "--hang-seconds") {
                o.hang_seconds = std::stod(next());
            } else if (a == "--lift-decoder-buffer") {
                o.lift_decoder_buffer = true;
            } else if (a == "--verbose") {
                o.verbose = true;
            } else {
                usage();
                return a == "--help" || a == "-h" ? 0 : 2;
            }
        } catch (const std::exception& e) {
            std::fprintf(
                stderr, "gpufec-soak: bad value for %s (%s)\n", a.c_str(), e.what());
            return 2;
        }
    }
    if (o.min_bits < 1 || o.max_bits < o.min_bits) {
        std::fprintf(stderr, "gpufec-soak: need 1 <= --min-bits <= --max-bits\n");
        return 2;
    }
    try {
        return run(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpufec-soak: %s\n", e.what());
        return 1;
    }
}
