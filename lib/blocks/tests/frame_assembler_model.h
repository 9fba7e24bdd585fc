/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// A reference model of frame_assembler and a driver that runs it like a GNU Radio block
// over a fake tag store, shared by the randomized property test
// (test_frame_assembler_random.cc, fixed seeds) and the libFuzzer target
// (fuzz/fuzz_frame_assembler.cc, scenarios decoded from the fuzz input).
//
// A scenario is a stream of items (item i holds a pattern of i), tags on it (length
// tags with integer, uint64, negative, zero and non-integer values, other tags,
// duplicates, any order in the store), the items the upstream makes available per
// work call, a cap on the items offered per advance() call and allow_direct per call.
// run_scenario() checks:
//  - every advance() call returns (a watchdog aborts with a message when one takes
//    longer than a few seconds) and the driver makes progress (a bound on calls that
//    consume nothing aborts the run with a message);
//  - advance() consumes no more than it is offered; has_frame() after every call that
//    completes a frame;
//  - every well-formed frame comes out exactly once, in stream order, with its items
//    (frame_data()) and exactly its own tags (same tags, same order, offsets relative
//    to the frame, length tags left out);
//  - malformed length tags (non-integer, negative, too long, refused by the length
//    check) and frames cut by the next length tag are counted in dropped(); gaps are
//    not;
//  - end_of_stream() reports (and counts in dropped()) exactly an incomplete last frame;
//  - emit_frame_tags() writes the length tag first and every other tag inside the
//    output frame, in order.
// The model is the documented behaviour (frame_assembler.h) written out plainly: every
// length tag before the end of the stream starts a frame, in offset order (ties in the
// tag store's order); items before the first length tag and after a dropped one are a
// gap. A tag at item p with value L (tags sorted, the next one at item q):
//  - not an integer >= 0, longer than the largest frame, or refused by the check
//    (L > 0): dropped;
//  - L == 0: an empty frame;
//  - q < p + L (q inside the stream): cut by the next tag, dropped;
//  - p + L beyond the stream: the incomplete last frame (end_of_stream());
//  - else the frame [p, p + L) with every other tag of that range.
#ifndef INCLUDED_GPUFEC_FRAME_ASSEMBLER_MODEL_H
#define INCLUDED_GPUFEC_FRAME_ASSEMBLER_MODEL_H

#include "frame_assembler.h"

#include <gnuradio/logger.h>
#include <pmt/pmt.h>

#include <condition_variable>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace gpufec {
namespace testing {

//! The length tag key of tagged scenarios.
inline const char* length_key_name() { return "packet_len"; }

enum class value_kind : uint8_t {
    long_int, //!< pmt::from_long(value)
    uint64,   //!< pmt::from_uint64(value): > INT64_MAX reads as negative
    real,     //!< pmt::from_double(value)
    symbol,   //!< pmt::intern("x")
    nil,      //!< PMT_NIL
    boolean,  //!< PMT_T
    pair,     //!< (value . value)
    count
};

struct tag_spec {
    uint64_t offset = 0;
    bool length = false; //!< the length key, else key "k<other_key>"
    uint8_t other_key = 0;
    value_kind kind = value_kind::long_int;
    int64_t value = 0;
};

struct scenario {
    size_t itemsize = 1;
    bool tagged = true;
    uint64_t fixed_items = 8;     //!< frame length of untagged streams
    uint64_t max_items = 16;      //!< the largest frame (the frame buffer's size)
    uint64_t reject_multiple = 0; //!< the length check refuses multiples of it (0: none)
    uint64_t total_items = 0;
    std::vector<tag_spec> tags;    //!< in the tag store's order
    std::vector<uint64_t> produce; //!< items the upstream adds per work call
    std::vector<uint64_t> limits;  //!< cap on items per advance() call, cycled (0: none)
    std::vector<uint8_t> direct;   //!< allow_direct per advance() call, cycled
    bool use_whole = false;        //!< untagged: whole_frames()/take_whole() runs
    uint32_t out_num = 1, out_den = 1; //!< emit_frame_tags(): out items = in * num / den
};

struct run_options {
    //! Seconds one advance() call may take before the watchdog aborts the process.
    double watchdog_seconds = 5.0;
    //! Driver calls in a row that consume nothing and complete no frame.
    int max_idle_calls = 64;
};

inline pmt::pmt_t make_value(const tag_spec& t)
{
    switch (t.kind) {
    case value_kind::long_int:
        return pmt::from_long(static_cast<long>(t.value));
    case value_kind::uint64:
        return pmt::from_uint64(static_cast<uint64_t>(t.value));
    case value_kind::real:
        return pmt::from_double(static_cast<double>(t.value));
    case value_kind::symbol:
        return pmt::intern("x");
    case value_kind::nil:
        return pmt::PMT_NIL;
    case value_kind::boolean:
        return pmt::PMT_T;
    default:
        return pmt::cons(pmt::from_long(static_cast<long>(t.value)),
                         pmt::from_long(static_cast<long>(t.value)));
    }
}

//! Whether a tag value is a length (an integer >= 0) and which.
inline bool tag_length(const tag_spec& t, uint64_t& length)
{
    if (t.kind == value_kind::long_int) {
        const long v = static_cast<long>(t.value);
        length = static_cast<uint64_t>(v);
        return v >= 0;
    }
    if (t.kind == value_kind::uint64) {
        length = static_cast<uint64_t>(t.value); // a uint64 PMT is never negative
        return true;
    }
    return false;
}

inline uint8_t item_byte(uint64_t item, size_t byte)
{
    return static_cast<uint8_t>((item * 0x9e3779b97f4a7c15ull) >> (8 * (byte % 8))) ^
           static_cast<uint8_t>(byte);
}

struct expected_frame {
    uint64_t first = 0, items = 0;
    std::vector<size_t> tags; //!< indices into scenario::tags, in emitted order
};

struct model_result {
    std::vector<expected_frame> frames;
    uint64_t dropped = 0; //!< before end_of_stream()
    uint64_t partial = 0; //!< items of an incomplete last frame (end_of_stream())
};

inline std::string check_reason(const scenario& s, uint64_t items)
{
    if (s.reject_multiple > 0 && items % s.reject_multiple == 0)
        return "a multiple of " + std::to_string(s.reject_multiple);
    return "";
}

//! Tag indices sorted by offset, ties in store order (what the assembler sees).
inline std::vector<size_t> sorted_tags(const scenario& s)
{
    std::vector<size_t> idx(s.tags.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return s.tags[a].offset < s.tags[b].offset;
    });
    return idx;
}

inline model_result model(const scenario& s)
{
    model_result r;
    const uint64_t N = s.total_items;
    const std::vector<size_t> idx = sorted_tags(s);
    auto frame_tags_of = [&](expected_frame& f) {
        for (size_t i : idx) {
            const tag_spec& t = s.tags[i];
            if (t.offset >= f.first && t.offset < f.first + f.items &&
                !(s.tagged && t.length))
                f.tags.push_back(i);
        }
    };
    if (!s.tagged) {
        const uint64_t F = s.fixed_items;
        uint64_t p = 0;
        for (; p + F <= N; p += F) {
            expected_frame f;
            f.first = p;
            f.items = F;
            frame_tags_of(f);
            r.frames.push_back(std::move(f));
        }
        r.partial = N - p;
        return r;
    }
    std::vector<size_t> starts; // the length tags inside the stream, sorted
    for (size_t i : idx)
        if (s.tags[i].length && s.tags[i].offset < N)
            starts.push_back(i);
    for (size_t k = 0; k < starts.size(); k++) {
        const tag_spec& t = s.tags[starts[k]];
        const uint64_t p = t.offset;
        const uint64_t next = k + 1 < starts.size() ? s.tags[starts[k + 1]].offset : N;
        uint64_t L = 0;
        if (!tag_length(t, L) || L > s.max_items ||
            (L > 0 && !check_reason(s, L).empty())) {
            r.dropped++;
        } else if (L == 0) {
            expected_frame f;
            f.first = p;
            r.frames.push_back(f);
        } else if (next < p + L && next < N) {
            r.dropped++; // cut by the next length tag
        } else if (L > N - p) {
            r.partial = N - p;
        } else {
            expected_frame f;
            f.first = p;
            f.items = L;
            frame_tags_of(f);
            r.frames.push_back(std::move(f));
        }
    }
    return r;
}

inline std::string describe(const scenario& s)
{
    std::ostringstream o;
    o << "scenario: itemsize " << s.itemsize << ", "
      << (s.tagged ? "tagged" : "fixed " + std::to_string(s.fixed_items)) << ", max "
      << s.max_items << ", refuse multiples of " << s.reject_multiple << ", items "
      << s.total_items << (s.use_whole ? ", take_whole" : "")
      << "\n  tags (offset key value):";
    static const char* kinds[] = {
        "long", "u64", "double", "sym", "nil", "bool", "pair"
    };
    for (const tag_spec& t : s.tags)
        o << " [" << t.offset << " "
          << (t.length ? std::string(length_key_name())
                       : "k" + std::to_string(t.other_key))
          << " " << kinds[static_cast<int>(t.kind)] << ":" << t.value << "]";
    o << "\n  produce:";
    for (uint64_t p : s.produce)
        o << " " << p;
    o << "\n  limits:";
    for (uint64_t l : s.limits)
        o << " " << l;
    o << "\n  direct:";
    for (uint8_t d : s.direct)
        o << " " << int(d);
    o << "\n";
    return o.str();
}

/*!
 * Aborts the process with a message when armed for longer than its limit: a call that
 * never returns cannot be reported any other way from inside the process.
 */
class watchdog
{
public:
    static watchdog& get()
    {
        static watchdog* w = new watchdog; // never destroyed: its thread runs to exit
        return *w;
    }
    void arm(double seconds, const scenario* context)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_context = context;
        d_deadline = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(seconds));
        d_armed = true;
        d_seconds = seconds;
    }
    void disarm()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_armed = false;
    }

private:
    watchdog()
    {
        std::thread([this] { loop(); }).detach();
    }
    void loop()
    {
        for (;;) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            std::lock_guard<std::mutex> lock(d_mutex);
            if (d_armed && std::chrono::steady_clock::now() > d_deadline) {
                std::fprintf(stderr,
                             "\nframe_assembler HANG: advance() has not returned after "
                             "%.1f s.\n%s\n",
                             d_seconds,
                             d_context ? describe(*d_context).c_str() : "");
                std::fflush(stderr);
                std::abort();
            }
        }
    }
    std::mutex d_mutex;
    bool d_armed = false;
    double d_seconds = 0;
    std::chrono::steady_clock::time_point d_deadline;
    const scenario* d_context = nullptr;
};

inline gr::logger_ptr quiet_logger()
{
    static gr::logger_ptr log = [] {
        auto l = std::make_shared<gr::logger>("frame_assembler_model");
        l->set_level(spdlog::level::off);
        return l;
    }();
    return log;
}

struct run_result {
    std::string error; //!< "" when every property held
    size_t frames = 0;
    size_t advance_calls = 0;
};

/*!
 * Runs the scenario through a frame_assembler as the batched decoder's general_work
 * does, and checks it against model(). Every work call's input is a heap buffer of
 * exactly the available items, so reads past it are caught by AddressSanitizer.
 */
inline run_result run_scenario(const scenario& s, const run_options& opt = run_options())
{
    run_result res;
    const model_result want = model(s);
    const uint64_t N = s.total_items;
    const size_t isz = s.itemsize;
    const pmt::pmt_t len_key = pmt::intern(length_key_name());

    std::vector<gr::tag_t> store;
    for (size_t i = 0; i < s.tags.size(); i++) {
        const tag_spec& t = s.tags[i];
        gr::tag_t tag;
        tag.offset = t.offset;
        tag.key = t.length ? len_key : pmt::intern("k" + std::to_string(t.other_key));
        tag.value = make_value(t);
        tag.srcid = pmt::from_long(static_cast<long>(i)); // identifies the tag
        store.push_back(tag);
    }
    uint64_t written = 0;
    std::string fail;
    block_access io;
    io.get_tags = [&](std::vector<gr::tag_t>& v, uint64_t start, uint64_t end) {
        if (start > end || end > written) {
            fail = "get_tags(" + std::to_string(start) + ", " + std::to_string(end) +
                   ") beyond the items written (" + std::to_string(written) + ")";
        }
        for (const gr::tag_t& t : store)
            if (t.offset >= start && t.offset < end)
                v.push_back(t);
    };
    std::vector<gr::tag_t> emitted;
    io.add_tag = [&](int, const gr::tag_t& t) { emitted.push_back(t); };
    io.logger = quiet_logger();

    frame_assembler fa(io,
                       isz,
                       s.fixed_items,
                       s.tagged ? length_key_name() : "",
                       s.max_items,
                       [&s](uint64_t items) { return check_reason(s, items); });

    size_t next_frame = 0;
    uint64_t out_written = 0;
    auto error = [&](const std::string& what) {
        if (res.error.empty())
            res.error = what + "\n" + describe(s);
    };
    // Checks the frame the assembler holds (or the run at `data`) against the model.
    auto got_frame = [&](const uint8_t* data, uint64_t items, frame_tags tags) {
        if (next_frame >= want.frames.size()) {
            error("an unexpected frame of " + std::to_string(items) + " items (frame " +
                  std::to_string(next_frame) + "; the model has " +
                  std::to_string(want.frames.size()) + ")");
            return;
        }
        const expected_frame& f = want.frames[next_frame++];
        if (items != f.items || tags.in_items != f.items) {
            error("frame " + std::to_string(next_frame - 1) + " (at item " +
                  std::to_string(f.first) + "): " + std::to_string(items) +
                  " items (in_items " + std::to_string(tags.in_items) + "), expected " +
                  std::to_string(f.items));
            return;
        }
        for (uint64_t i = 0; i < items; i++)
            for (size_t b = 0; b < isz; b++)
                if (data[i * isz + b] != item_byte(f.first + i, b)) {
                    error("frame " + std::to_string(next_frame - 1) + " (at item " +
                          std::to_string(f.first) + "): wrong data at item " +
                          std::to_string(i));
                    return;
                }
        bool same = tags.tags.size() == f.tags.size();
        for (size_t j = 0; same && j < f.tags.size(); j++) {
            const gr::tag_t& t = tags.tags[j];
            same = pmt::is_integer(t.srcid) &&
                   static_cast<size_t>(pmt::to_long(t.srcid)) == f.tags[j] &&
                   t.offset == s.tags[f.tags[j]].offset - f.first;
        }
        if (!same) {
            std::string got, exp;
            for (const gr::tag_t& t : tags.tags)
                got += " #" + pmt::write_string(t.srcid) + "@" + std::to_string(t.offset);
            for (size_t i : f.tags)
                exp += " #" + std::to_string(i) + "@" +
                       std::to_string(s.tags[i].offset - f.first);
            error("frame " + std::to_string(next_frame - 1) + " (at item " +
                  std::to_string(f.first) + ", " + std::to_string(f.items) +
                  " items): tags" + got + ", expected" + exp);
            return;
        }
        // The tags written for the frame's output.
        // An empty frame gives an empty output frame, any other at least one item.
        const uint64_t out_items =
            items == 0 ? 0
                       : std::max<uint64_t>(
                             1, items * s.out_num / std::max<uint32_t>(1, s.out_den));
        emitted.clear();
        emit_frame_tags(io, 0, out_written, out_items, tags, fa.len_key());
        size_t e = 0;
        if (s.tagged) {
            if (emitted.empty() || !pmt::eqv(emitted[0].key, len_key) ||
                emitted[0].offset != out_written ||
                !pmt::eqv(emitted[0].value, pmt::from_long(static_cast<long>(out_items))))
                error("emit_frame_tags(): no length tag first");
            e = 1;
        }
        if (emitted.size() != e + tags.tags.size()) {
            error("emit_frame_tags(): " + std::to_string(emitted.size()) + " tags for " +
                  std::to_string(tags.tags.size()));
            return;
        }
        for (size_t j = 0; j < tags.tags.size(); j++, e++) {
            const gr::tag_t& t = emitted[e];
            if (t.offset < out_written || t.offset >= out_written + out_items ||
                (j > 0 && t.offset < emitted[e - 1].offset) ||
                !pmt::equal(t.srcid, tags.tags[j].srcid))
                error("emit_frame_tags(): tag " + std::to_string(j) + " at " +
                      std::to_string(t.offset) + ", output frame [" +
                      std::to_string(out_written) + ", " +
                      std::to_string(out_written + out_items) + ")");
        }
        out_written += out_items;
    };

    uint64_t read = 0;
    size_t work_calls = 0, advance_calls = 0;
    int idle = 0;
    bool more = true;
    while (more && res.error.empty() && fail.empty()) {
        const uint64_t add =
            work_calls < s.produce.size() ? s.produce[work_calls] : N - written;
        written = std::min(N, written + add);
        work_calls++;
        const uint64_t avail = written - read;
        // Exactly the available items: ASan reports any read beyond them.
        std::unique_ptr<uint8_t[]> buf(new uint8_t[avail * isz]);
        for (uint64_t i = 0; i < avail; i++)
            for (size_t b = 0; b < isz; b++)
                buf[i * isz + b] = item_byte(read + i, b);
        uint64_t consumed = 0;
        bool progress = false;
        while (res.error.empty() && fail.empty()) {
            const size_t run = fa.whole_frames(avail - consumed);
            if (s.use_whole && run > 0) {
                if (fa.tagged())
                    error("whole_frames() > 0 on a tagged stream");
                for (size_t i = 0; i < run; i++) {
                    const uint64_t pos = read + consumed;
                    frame_tags tags = fa.take_whole(pos, read + avail);
                    got_frame(
                        buf.get() + consumed * isz, fa.frame_length(), std::move(tags));
                    consumed += fa.frame_length();
                }
                progress = true;
                continue;
            }
            if (!fa.has_frame()) {
                if (consumed == avail)
                    break;
                uint64_t offer = avail - consumed;
                const uint64_t cap =
                    s.limits.empty() ? 0 : s.limits[advance_calls % s.limits.size()];
                if (cap > 0)
                    offer = std::min(offer, cap);
                const bool direct =
                    s.direct.empty() ? false : s.direct[advance_calls % s.direct.size()];
                advance_calls++;
                watchdog::get().arm(opt.watchdog_seconds, &s);
                const size_t c = fa.advance(
                    buf.get() + consumed * isz, offer, read + consumed, direct);
                watchdog::get().disarm();
                if (c > offer) {
                    error("advance() consumed " + std::to_string(c) + " of " +
                          std::to_string(offer) + " items offered");
                    break;
                }
                consumed += c;
                if (c > 0 || fa.has_frame()) {
                    progress = true;
                    idle = 0;
                } else if (++idle > opt.max_idle_calls) {
                    error("no progress: " + std::to_string(idle) +
                          " advance() calls in a row consumed nothing and completed no "
                          "frame (at item " +
                          std::to_string(read + consumed) + ")");
                    break;
                }
                if (!fa.has_frame())
                    continue;
            }
            const uint64_t items = fa.frame_items();
            const uint8_t* data = fa.frame_data();
            got_frame(data, items, fa.take());
            if (fa.has_frame())
                error("has_frame() after take()");
            progress = true;
        }
        read += consumed;
        // After the upstream has finished: stop at the first call that does nothing.
        more = work_calls < s.produce.size() || written < N || progress;
        if (work_calls > s.produce.size() + N + 16)
            error("no end: " + std::to_string(work_calls) + " work calls");
    }
    if (!fail.empty())
        error(fail);
    if (res.error.empty()) {
        if (read != N)
            error("consumed " + std::to_string(read) + " of " + std::to_string(N) +
                  " items");
        else if (next_frame != want.frames.size())
            error(std::to_string(next_frame) + " frames, the model has " +
                  std::to_string(want.frames.size()));
        else if (fa.dropped() != want.dropped)
            error("dropped() = " + std::to_string(fa.dropped()) + ", the model has " +
                  std::to_string(want.dropped));
        else if (fa.has_frame())
            error("has_frame() at the end");
        else if (fa.end_of_stream() != (want.partial > 0))
            error(std::string("end_of_stream() ") +
                  (want.partial > 0 ? "missed the incomplete last frame of " +
                                          std::to_string(want.partial) + " items"
                                    : "reported an incomplete frame the model has not"));
        else if (fa.dropped() != want.dropped + (want.partial > 0))
            error("dropped() after end_of_stream() = " + std::to_string(fa.dropped()));
    }
    res.frames = next_frame;
    res.advance_calls = advance_calls;
    return res;
}

/*!
 * Draws a scenario from `src`, which has `uint64_t range(uint64_t lo, uint64_t hi)`
 * (inclusive): a random engine in the property test, the fuzz input in the fuzzer.
 * Half the streams start as back-to-back valid frames that are then disturbed; tags
 * get every value kind, offsets past the end, duplicates and a shuffled store order.
 */
template <typename Source>
scenario make_scenario(Source& src, uint64_t max_total_items)
{
    scenario s;
    static const size_t itemsizes[] = { 1, 4, 3, 8 };
    s.itemsize = itemsizes[src.range(0, 3)];
    s.tagged = src.range(0, 3) != 0;
    s.max_items = src.range(1, 64);
    s.fixed_items = src.range(1, s.max_items);
    if (!s.tagged) {
        s.fixed_items = src.range(1, 32);
        s.max_items = s.fixed_items + src.range(0, 8);
    }
    s.reject_multiple = src.range(0, 3) == 0 ? src.range(2, 7) : 0;
    s.total_items = src.range(0, max_total_items);
    const uint64_t N = s.total_items;
    auto offset = [&]() -> uint64_t {
        if (N == 0 || src.range(0, 15) == 0)
            return N + src.range(0, 2);
        return src.range(0, N - 1);
    };
    auto length_value = [&](tag_spec& t) {
        const uint64_t pick = src.range(0, 31);
        if (pick == 0) {
            t.kind = value_kind::long_int;
            t.value = 0;
        } else if (pick == 1) {
            t.kind = value_kind::long_int;
            t.value = -static_cast<int64_t>(src.range(1, 1000));
        } else if (pick == 2) {
            t.kind = value_kind::uint64;
            t.value = static_cast<int64_t>(src.range(0, ~uint64_t(0)));
        } else if (pick == 3) {
            t.kind = static_cast<value_kind>(src.range(2, 6));
            t.value = static_cast<int64_t>(src.range(0, 100));
        } else if (pick == 4) {
            t.kind = value_kind::long_int;
            t.value = static_cast<int64_t>(
                s.max_items + (src.range(0, 1) ? src.range(1, 2) : src.range(1, 1000)));
        } else {
            t.kind = pick < 8 ? value_kind::uint64 : value_kind::long_int;
            t.value = static_cast<int64_t>(src.range(1, s.max_items));
        }
    };
    if (src.range(0, 1)) {
        for (uint64_t pos = 0; pos < N;) {
            tag_spec t;
            t.offset = pos;
            t.length = true;
            t.kind = value_kind::long_int;
            t.value = static_cast<int64_t>(src.range(1, s.max_items));
            s.tags.push_back(t);
            pos += static_cast<uint64_t>(t.value);
            if (s.tags.size() > 256)
                break;
        }
    }
    const uint64_t extra = src.range(0, 48);
    for (uint64_t i = 0; i < extra; i++) {
        tag_spec t;
        t.offset = offset();
        t.length = src.range(0, 2) == 0;
        if (t.length) {
            length_value(t);
        } else {
            t.other_key = static_cast<uint8_t>(src.range(0, 3));
            t.kind = static_cast<value_kind>(src.range(0, 6));
            t.value = static_cast<int64_t>(src.range(0, 10));
        }
        s.tags.push_back(t);
    }
    // Perturb: changed values, duplicates, swapped store order.
    const uint64_t edits = s.tags.empty() ? 0 : src.range(0, 6);
    for (uint64_t e = 0; e < edits; e++) {
        const size_t a = static_cast<size_t>(src.range(0, s.tags.size() - 1));
        switch (src.range(0, 2)) {
        case 0:
            if (s.tags[a].length)
                length_value(s.tags[a]);
            break;
        case 1:
            s.tags.insert(s.tags.begin() + static_cast<long>(src.range(0, s.tags.size())),
                          s.tags[a]);
            break;
        default:
            std::swap(s.tags[a],
                      s.tags[static_cast<size_t>(src.range(0, s.tags.size() - 1))]);
        }
    }
    const uint64_t calls = src.range(0, 16);
    for (uint64_t i = 0; i < calls; i++)
        s.produce.push_back(src.range(0, N / 2 + 1));
    const uint64_t limits = src.range(0, 4);
    for (uint64_t i = 0; i < limits; i++)
        s.limits.push_back(src.range(0, s.max_items + 2));
    const uint64_t direct = src.range(0, 4);
    for (uint64_t i = 0; i < direct; i++)
        s.direct.push_back(static_cast<uint8_t>(src.range(0, 1)));
    s.use_whole = src.range(0, 1) != 0;
    s.out_num = static_cast<uint32_t>(src.range(1, 4));
    s.out_den = static_cast<uint32_t>(src.range(1, 4));
    return s;
}

} // namespace testing
} // namespace gpufec
} // namespace gr

#endif
