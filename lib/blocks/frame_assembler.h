/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Cuts a stream into frames (fixed length or length tags) for the encoder and the
// batched decoders, and puts each frame's tags back on its output items.
#ifndef INCLUDED_GPUFEC_BLOCKS_FRAME_ASSEMBLER_H
#define INCLUDED_GPUFEC_BLOCKS_FRAME_ASSEMBLER_H

#include <gnuradio/logger.h>
#include <gnuradio/tags.h>
#include <pmt/pmt.h>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gr {
namespace gpufec {

//! A frame's tags, offsets relative to the frame's first input item.
struct frame_tags {
    uint64_t in_items = 0;
    std::vector<gr::tag_t> tags; //!< offset = relative input item
};

/*!
 * What frame_assembler and emit_frame_tags() need from their block: tag access is
 * protected in gr::block, so the block hands over these small closures (and its
 * logger).
 */
struct block_access {
    //! All tags of input 0 in [start, end) (absolute item offsets).
    std::function<void(std::vector<gr::tag_t>&, uint64_t start, uint64_t end)> get_tags;
    std::function<void(int port, const gr::tag_t&)> add_tag;
    gr::logger_ptr logger;
};

/*!
 * Cuts input items into frames. Frames are either `fixed_items` long or, with a length
 * tag key, as long as the tag at their first item says. A frame lying wholly in one
 * work call's input is handed over in place when the caller allows it (advance() with
 * allow_direct, or take_whole() for runs of fixed-length frames); a frame straddling
 * work calls is copied into a frame buffer, so frames may be larger than the upstream
 * buffer.
 *
 * Invalid tagged lengths (check() returns a reason) are skipped: their items and tags
 * are consumed, an error is logged and dropped() counts them. Items with no length
 * tag before them are skipped up to the next length tag, with one error per gap.
 */
class frame_assembler
{
public:
    //! Returns "" when a frame of that many items is acceptable, else the reason.
    using length_check = std::function<std::string(uint64_t items)>;

    frame_assembler(block_access access,
                    size_t itemsize,
                    uint64_t fixed_items,
                    const std::string& len_tag_key,
                    uint64_t max_items,
                    length_check check);

    /*!
     * Reads input items [in, in + avail), the first being absolute item `abs_first`
     * of input 0. Stops early when a frame is complete. Returns items consumed.
     *
     * With `allow_direct`, a frame lying wholly in [in, in + avail) is not copied:
     * frame_data() then points into `in`, so the caller must take() the frame before
     * its input buffer moves on (within the same work call). Only frames straddling
     * calls are copied.
     */
    size_t
    advance(const void* in, size_t avail, uint64_t abs_first, bool allow_direct = false);

    bool has_frame() const { return d_have_frame; }
    const uint8_t* frame_data() const { return d_direct ? d_direct : d_buffer.data(); }
    uint64_t frame_items() const { return d_frame_items; }
    //! Items of every frame of a fixed-length stream.
    size_t frame_length() const { return static_cast<size_t>(d_fixed_items); }
    //! Hands the complete frame's tags over and starts the next frame.
    frame_tags take();

    /*!
     * Fixed-length streams between frames (nothing held, nothing to skip): how many
     * whole frames lie in `avail` items, which the caller may then take in one run
     * with take_whole() instead of advance()/take() per frame. 0 otherwise.
     */
    size_t whole_frames(size_t avail) const
    {
        if (tagged() || d_have_frame || d_fill > 0 || d_skip > 0) {
            return 0;
        }
        return static_cast<size_t>(avail / d_fixed_items);
    }
    /*!
     * Takes the frame of fixed length starting at absolute item `pos` (lying wholly in
     * the caller's input, which ends at absolute item `input_end`), without copying:
     * returns its tags. Frames must be taken in stream order.
     */
    frame_tags take_whole(uint64_t pos, uint64_t input_end);

    bool tagged() const { return !pmt::is_null(d_len_key); }
    const pmt::pmt_t& len_key() const { return d_len_key; }
    uint64_t dropped() const { return d_dropped.load(); }
    //! Items of an incomplete frame held (0 when none), for an end-of-stream message.
    uint64_t partial_items() const { return d_have_frame ? 0 : d_fill; }

private:
    bool start_frame(const void* in, size_t avail, uint64_t abs_first, size_t& consumed);
    //! Makes d_call_tags hold every tag of [start, end) (one get_tags per work call).
    void fetch_tags(uint64_t start, uint64_t end);
    //! Index of the first cached tag at or after absolute item `pos`.
    size_t first_tag_at_or_after(uint64_t pos);

    block_access d_io;
    size_t d_itemsize;
    uint64_t d_fixed_items;
    pmt::pmt_t d_len_key; //!< PMT_NIL when untagged
    uint64_t d_max_items;
    length_check d_check;

    std::vector<uint8_t> d_buffer;
    uint64_t d_frame_items = 0; //!< 0: waiting for a frame start
    uint64_t d_fill = 0;
    uint64_t d_frame_first = 0; //!< absolute offset of the frame's first item
    bool d_have_frame = false;
    uint64_t d_skip = 0; //!< items of a dropped frame still to consume
    bool d_in_gap = false;
    std::atomic<uint64_t> d_dropped{ 0 }; //!< read from other threads (Python)
    frame_tags d_tags;
    const uint8_t* d_direct = nullptr; //!< the complete frame in the caller's input
    // Tags of the current work call's input range, sorted by offset (stable), fetched
    // once per call instead of once per frame; d_tag_cursor only moves forward.
    std::vector<gr::tag_t> d_call_tags;
    uint64_t d_tags_start = 0;
    uint64_t d_tags_end = 0;
    size_t d_tag_cursor = 0;
    bool d_tags_valid = false;
};

/*!
 * Writes a frame's tags on output `port` for a frame of `out_items` items starting at
 * absolute output item `out_first`: the length tag first (when `len_key` is not nil),
 * then the others at out_first + rel * out_items / in_items (order kept).
 */
void emit_frame_tags(const block_access& io,
                     int port,
                     uint64_t out_first,
                     uint64_t out_items,
                     const frame_tags& tags,
                     const pmt::pmt_t& len_key);

} // namespace gpufec
} // namespace gr

#endif
