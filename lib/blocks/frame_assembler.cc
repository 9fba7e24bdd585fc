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
    // Tagged: the frame must begin with a length tag at this very item.
    d_scratch.clear();
    d_io.get_tags(d_scratch, pos, abs_first + avail);
    auto first = d_scratch.end();
    for (auto it = d_scratch.begin(); it != d_scratch.end(); ++it) {
        if (pmt::eqv(it->key, d_len_key) &&
            (first == d_scratch.end() || it->offset < first->offset)) {
            first = it;
        }
    }
    if (first == d_scratch.end() || first->offset != pos) {
        const uint64_t gap_end =
            first == d_scratch.end() ? abs_first + avail : first->offset;
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

size_t frame_assembler::advance(const void* in, size_t avail, uint64_t abs_first)
{
    size_t consumed = 0;
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
        std::memcpy(d_buffer.data() + d_fill * d_itemsize,
                    static_cast<const uint8_t*>(in) + consumed * d_itemsize,
                    n * d_itemsize);
        const uint64_t pos = abs_first + consumed;
        d_scratch.clear();
        d_io.get_tags(d_scratch, pos, pos + n);
        std::stable_sort(d_scratch.begin(), d_scratch.end(), gr::tag_t::offset_compare);
        for (auto& tag : d_scratch) {
            if (tagged() && pmt::eqv(tag.key, d_len_key)) {
                continue;
            }
            tag.offset -= d_frame_first;
            d_tags.tags.push_back(tag);
        }
        d_fill += n;
        consumed += n;
        if (d_fill == d_frame_items) {
            d_have_frame = true;
        }
    }
    return consumed;
}

frame_tags frame_assembler::take()
{
    frame_tags out;
    out.in_items = d_frame_items;
    out.tags.swap(d_tags.tags);
    d_have_frame = false;
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
