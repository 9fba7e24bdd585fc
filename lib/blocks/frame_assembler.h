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
 * Tagged streams: every length tag starts a frame, in tag order (several at one offset
 * included); no tag is used twice. A tag of 0 gives an empty frame (has_frame() with
 * frame_items() == 0) that the caller passes on. A frame is dropped (its items and
 * tags consumed, an error naming its item offset logged, dropped() counts it) when its
 * tag value is not an integer >= 0, when check() gives a reason, or when the next
 * length tag comes before the frame is complete (that tag then starts the next frame).
 * Items with no length tag before them are skipped up to the next length tag, with one
 * error per gap. end_of_stream() counts an incomplete last frame (a warning).
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

    //! A complete frame (possibly empty) waits to be take()n.
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
        if (tagged() || d_in_frame || d_have_frame) {
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
    /*!
     * The stream has ended (the block's stop()): an incomplete frame held is logged as
     * a warning naming its offset and counted in dropped(), and the per-stream state is
     * cleared, so a restarted flowgraph (new buffers, counters from 0) starts clean.
     * Returns whether there was an incomplete frame.
     */
    bool end_of_stream();

private:
    bool start_frame(size_t avail, uint64_t abs_first, size_t& consumed);
    //! Drops the frame being filled: the length tag at `cut` comes before its end.
    void drop_cut_frame(uint64_t cut);
    //! Drops the frame whose length tag is `tag` for `reason`.
    void drop_frame(const gr::tag_t& tag, const std::string& reason);
    //! The first length tag at or after absolute item `pos` not yet used, or nullptr.
    const gr::tag_t* next_length_tag(uint64_t pos);
    //! Marks a length tag as used (it started a frame, good or dropped).
    void mark_used(const gr::tag_t& tag);
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
    bool d_in_frame = false;   //!< a frame has started (its length is known)
    bool d_have_frame = false; //!< ... and is complete
    uint64_t d_frame_items = 0;
    uint64_t d_fill = 0;
    uint64_t d_frame_first = 0; //!< absolute offset of the frame's first item
    pmt::pmt_t d_frame_value;   //!< its length tag's value, for messages
    uint64_t d_skip = 0;        //!< items of a dropped frame still to consume
    bool d_in_gap = false;      //!< skipping to the next length tag, already reported
    // Length tags already used at the latest offset that had one: a tag whose frame
    // consumed no item (length 0, dropped, cut) is seen again by the next work call.
    uint64_t d_used_offset = UINT64_MAX;
    uint64_t d_used_count = 0;
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
