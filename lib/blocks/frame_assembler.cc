/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "frame_assembler.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace gpufec {

frame_assembler::frame_assembler(block_access access,
                                 size_t itemsize,
                                 uint64_t fixed_items,
                                 const std::string& len_tag_key,
                                 uint64_t max_items,
                                 length_check check)
    : d_io(std::move(access)),
      d_itemsize(itemsize),
      d_fixed_items(fixed_items),
      d_len_key(len_tag_key.empty() ? pmt::PMT_NIL : pmt::intern(len_tag_key)),
      d_max_items(max_items),
      d_check(std::move(check)),
      d_buffer(max_items * itemsize)
{
}

namespace {

//! A length tag's value as a length, or the reason it is not one.
bool parse_length(const pmt::pmt_t& value, uint64_t& length, std::string& reason)
{
    if (pmt::is_integer(value)) {
        const long v = pmt::to_long(value);
        if (v < 0) {
            reason = "negative length";
            return false;
        }
        length = static_cast<uint64_t>(v);
        return true;
    }
    if (pmt::is_uint64(value)) {
        length = pmt::to_uint64(value);
        return true;
    }
    reason = "the tag value is not an integer (long or uint64)";
    return false;
}

} // namespace

const gr::tag_t* frame_assembler::next_length_tag(uint64_t pos)
{
    uint64_t used = 0;
    for (size_t k = first_tag_at_or_after(pos); k < d_call_tags.size(); ++k) {
        const gr::tag_t& tag = d_call_tags[k];
        if (!pmt::eqv(tag.key, d_len_key)) {
            continue;
        }
        if (tag.offset == d_used_offset && used < d_used_count) {
            ++used;
            continue;
        }
        return &tag;
    }
    return nullptr;
}

void frame_assembler::mark_used(const gr::tag_t& tag)
{
    if (tag.offset == d_used_offset) {
        ++d_used_count;
    } else {
        d_used_offset = tag.offset;
        d_used_count = 1;
    }
}

void frame_assembler::drop_frame(const gr::tag_t& tag, const std::string& reason)
{
    ++d_dropped;
    d_io.logger->error("dropping frame at item {} with length tag {}: {}",
                       tag.offset,
                       pmt::write_string(tag.value),
                       reason);
}

void frame_assembler::drop_cut_frame(uint64_t cut)
{
    ++d_dropped;
    d_io.logger->error("dropping frame at item {} with length tag {}: the next "
                       "length tag, at item {}, comes after {} of its {} items",
                       d_frame_first,
                       pmt::write_string(d_frame_value),
                       cut,
                       cut - d_frame_first,
                       d_frame_items);
    d_in_frame = false;
    d_direct = nullptr;
    d_fill = 0;
    d_tags.tags.clear();
}

bool frame_assembler::start_frame(size_t avail, uint64_t abs_first, size_t& consumed)
{
    const uint64_t pos = abs_first + consumed;
    if (!tagged()) {
        d_frame_items = d_fixed_items;
        d_frame_first = pos;
        return true;
    }
    // Tagged: the frame must begin with a length tag at this very item.
    const gr::tag_t* tag = next_length_tag(pos);
    if (!tag || tag->offset != pos) {
        const uint64_t gap_end = !tag ? abs_first + avail : tag->offset;
        if (!d_in_gap) {
            d_io.logger->error("no length tag '{}' at item {}: dropping items until "
                               "the next length tag",
                               pmt::symbol_to_string(d_len_key),
                               pos);
            d_in_gap = true;
        }
        consumed += gap_end - pos;
        return false;
    }
    d_in_gap = false;
    mark_used(*tag);
    uint64_t length = 0;
    std::string reason;
    if (!parse_length(tag->value, length, reason)) {
        // No length to skip: the items up to the next length tag go, unreported.
        drop_frame(*tag, reason);
        d_in_gap = true;
        return false;
    }
    if (length > d_max_items) {
        reason =
            "longer than the largest frame (" + std::to_string(d_max_items) + " items)";
    } else if (length > 0) {
        reason = d_check(length);
    }
    if (!reason.empty()) {
        drop_frame(*tag, reason);
        d_skip = length;
        return false;
    }
    d_frame_items = length; // 0: an empty frame, passed on like any other
    d_frame_first = pos;
    d_frame_value = tag->value;
    return true;
}

void frame_assembler::fetch_tags(uint64_t start, uint64_t end)
{
    // The same end means the same work call (or an unchanged input): tags of items
    // already written never change, so the cached list stays valid.
    if (d_tags_valid && end == d_tags_end && start >= d_tags_start) {
        return;
    }
    d_call_tags.clear();
    d_io.get_tags(d_call_tags, start, end);
    std::stable_sort(d_call_tags.begin(), d_call_tags.end(), gr::tag_t::offset_compare);
    d_tags_start = start;
    d_tags_end = end;
    d_tag_cursor = 0;
    d_tags_valid = true;
}

size_t frame_assembler::first_tag_at_or_after(uint64_t pos)
{
    while (d_tag_cursor < d_call_tags.size() && d_call_tags[d_tag_cursor].offset < pos) {
        ++d_tag_cursor;
    }
    return d_tag_cursor;
}

size_t frame_assembler::advance(const void* in,
                                size_t avail,
                                uint64_t abs_first,
                                bool allow_direct)
{
    size_t consumed = 0;
    if (!d_have_frame && avail > 0) {
        fetch_tags(abs_first, abs_first + avail);
    }
    // Every pass consumes items, uses a length tag or completes a frame, so the loop
    // ends even when nothing is consumed (empty frames, several tags at one item).
    while (!d_have_frame && consumed < avail) {
        const uint64_t pos = abs_first + consumed;
        if (d_skip > 0) {
            // A dropped frame's items, up to the next length tag at the latest.
            uint64_t n = std::min<uint64_t>(d_skip, avail - consumed);
            const gr::tag_t* next = next_length_tag(pos);
            if (next && next->offset < pos + n) {
                n = next->offset - pos;
                d_skip = 0;
            } else {
                d_skip -= n;
            }
            consumed += n;
            continue;
        }
        if (!d_in_frame) {
            if (!start_frame(avail, abs_first, consumed)) {
                continue;
            }
            d_in_frame = true;
            d_fill = 0;
            d_tags.tags.clear();
            if (d_frame_items == 0) {
                d_have_frame = true;
                break;
            }
        }
        const uint64_t n = std::min<uint64_t>(d_frame_items - d_fill, avail - consumed);
        if (tagged()) {
            const gr::tag_t* next = next_length_tag(pos);
            if (next && next->offset < pos + n) {
                consumed += next->offset - pos;
                drop_cut_frame(next->offset);
                continue;
            }
        }
        const uint8_t* src = static_cast<const uint8_t*>(in) + consumed * d_itemsize;
        if (allow_direct && d_fill == 0 && n == d_frame_items) {
            d_direct = src; // whole frame in the caller's buffer: no copy
        } else {
            std::memcpy(d_buffer.data() + d_fill * d_itemsize, src, n * d_itemsize);
        }
        size_t k = first_tag_at_or_after(pos);
        for (; k < d_call_tags.size() && d_call_tags[k].offset < pos + n; ++k) {
            const gr::tag_t& tag = d_call_tags[k];
            if (tagged() && pmt::eqv(tag.key, d_len_key)) {
                continue;
            }
            d_tags.tags.push_back(tag);
            d_tags.tags.back().offset -= d_frame_first;
        }
        d_tag_cursor = k;
        d_fill += n;
        consumed += n;
        if (d_fill == d_frame_items) {
            d_have_frame = true;
        }
    }
    return consumed;
}

bool frame_assembler::end_of_stream()
{
    // A restarted flowgraph starts new buffers with item counters from 0: nothing about
    // this stream (a frame being skipped, cached tags and their offsets) may carry over.
    d_skip = 0;
    d_in_gap = false;
    d_used_offset = UINT64_MAX;
    d_used_count = 0;
    d_call_tags.clear();
    d_tags_valid = false;
    d_tag_cursor = 0;
    d_direct = nullptr;
    if (!d_in_frame || d_have_frame) {
        return false;
    }
    ++d_dropped;
    // A warning, not an error: stopping a flowgraph mid-frame is normal use.
    d_io.logger->warn("dropping the incomplete last frame at item {}: the stream "
                      "ended after {} of its {} items",
                      d_frame_first,
                      d_fill,
                      d_frame_items);
    d_in_frame = false;
    d_fill = 0;
    d_tags.tags.clear();
    return true;
}

frame_tags frame_assembler::take_whole(uint64_t pos, uint64_t input_end)
{
    fetch_tags(pos, input_end);
    frame_tags out;
    out.in_items = d_fixed_items;
    const uint64_t end = pos + d_fixed_items;
    size_t k = first_tag_at_or_after(pos);
    for (; k < d_call_tags.size() && d_call_tags[k].offset < end; ++k) {
        out.tags.push_back(d_call_tags[k]);
        out.tags.back().offset -= pos;
    }
    d_tag_cursor = k;
    return out;
}

frame_tags frame_assembler::take()
{
    frame_tags out;
    out.in_items = d_frame_items;
    out.tags.swap(d_tags.tags);
    d_in_frame = false;
    d_have_frame = false;
    d_direct = nullptr;
    d_frame_items = 0;
    d_fill = 0;
    return out;
}

void emit_frame_tags(const block_access& io,
                     int port,
                     uint64_t out_first,
                     uint64_t out_items,
                     const frame_tags& tags,
                     const pmt::pmt_t& len_key)
{
    if (!pmt::is_null(len_key)) {
        gr::tag_t tag;
        tag.offset = out_first;
        tag.key = len_key;
        tag.value = pmt::from_long(static_cast<long>(out_items));
        io.add_tag(port, tag);
    }
    for (gr::tag_t tag : tags.tags) {
        uint64_t rel = tags.in_items ? tag.offset * out_items / tags.in_items : 0;
        if (out_items > 0 && rel >= out_items) {
            rel = out_items - 1;
        }
        tag.offset = out_first + rel;
        io.add_tag(port, tag);
    }
}

} // namespace gpufec
} // namespace gr
