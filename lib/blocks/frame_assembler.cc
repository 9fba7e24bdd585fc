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

bool frame_assembler::start_frame(const void* in,
                                  size_t avail,
                                  uint64_t abs_first,
                                  size_t& consumed)
{
    const uint64_t pos = abs_first + consumed;
    if (!tagged()) {
        d_frame_items = d_fixed_items;
        d_frame_first = pos;
        return true;
    }
    // Tagged: the frame must begin with a length tag at this very item. The cached
    // tags are sorted by offset, so the first length tag found is the nearest one.
    const gr::tag_t* first = nullptr;
    for (size_t k = first_tag_at_or_after(pos); k < d_call_tags.size(); ++k) {
        if (pmt::eqv(d_call_tags[k].key, d_len_key)) {
            first = &d_call_tags[k];
            break;
        }
    }
    if (!first || first->offset != pos) {
        const uint64_t gap_end = !first ? abs_first + avail : first->offset;
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
    const pmt::pmt_t& value = first->value;
    const int64_t length = pmt::is_integer(value) ? pmt::to_long(value)
                           : pmt::is_uint64(value)
                               ? static_cast<int64_t>(pmt::to_uint64(value))
                               : -1;
    std::string reason;
    if (length < 0) {
        reason = "the tag value is not a non-negative integer";
    } else if (length == 0) {
        return false; // empty frame: nothing to decode, nothing to consume
    } else if (static_cast<uint64_t>(length) > d_max_items) {
        reason =
            "longer than the largest frame (" + std::to_string(d_max_items) + " items)";
    } else {
        reason = d_check(static_cast<uint64_t>(length));
    }
    if (!reason.empty()) {
        ++d_dropped;
        d_io.logger->error("dropping frame at item {} with length tag {}: {}",
                           pos,
                           pmt::write_string(value),
                           reason);
        if (length <= 0) {
            consumed += 1; // step past the bad tag so the next call looks further on
        } else {
            d_skip = static_cast<uint64_t>(length);
        }
        return false;
    }
    d_frame_items = static_cast<uint64_t>(length);
    d_frame_first = pos;
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
    while (!d_have_frame && consumed < avail) {
        if (d_skip > 0) {
            const uint64_t n = std::min<uint64_t>(d_skip, avail - consumed);
            d_skip -= n;
            consumed += n;
            continue;
        }
        if (d_frame_items == 0) {
            if (!start_frame(in, avail, abs_first, consumed)) {
                continue;
            }
            d_fill = 0;
            d_tags.tags.clear();
        }
        const uint64_t n = std::min<uint64_t>(d_frame_items - d_fill, avail - consumed);
        const uint8_t* src = static_cast<const uint8_t*>(in) + consumed * d_itemsize;
        if (allow_direct && d_fill == 0 && n == d_frame_items) {
            d_direct = src; // whole frame in the caller's buffer: no copy
        } else {
            std::memcpy(d_buffer.data() + d_fill * d_itemsize, src, n * d_itemsize);
        }
        const uint64_t pos = abs_first + consumed;
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
