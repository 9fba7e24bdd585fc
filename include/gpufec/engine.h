/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The asynchronous batching engine (DESIGN.md §3), the same interface over the CPU
// backend (worker threads) and the CUDA backend (pinned slots, ring of streams).
#ifndef INCLUDED_GPUFEC_ENGINE_H
#define INCLUDED_GPUFEC_ENGINE_H

#include <gpufec/batch_decoder.h>
#include <memory>

namespace gpufec {

//! Where the engine's callers keep frames: host memory, or device memory of the stage's
//! CUDA device (DESIGN.md §3: GPU blocks chain with no host round trip).
enum class memory_side { host, device };

struct engine_config {
    size_t max_batch_frames = 256; //!< frames per slot
    size_t max_batch_items = 0;    //!< LLRs per slot; 0 = max_batch_frames * max frame
    int num_slots = 3;             //!< in-flight ring depth (>= 2)
    float llr_scale = 8.0f;        //!< float -> int8: round(L*scale), saturated at +/-127
    /*!
     * The convention of the soft values callers submit and pop_frames() copies out
     * (common.h): the engine negates `gnuradio` values in the same pass that copies or
     * quantizes them (int8 -128 becomes 127), so stages see the core's `llr` values.
     * completed_frame's pointers (llrs, soft) are the stage's memory, always `llr`.
     */
    soft_convention convention = soft_convention::llr;
    int cpu_threads = 0;  //!< CPU backend worker threads; 0 = hardware threads
    int copy_threads = 0; //!< threads copying frames in submit_frames(); 0 = min(8, hw)
    //! Also return a-posteriori LLRs of the decoded bits (completed_frame::soft); the
    //! decoder must have has_soft_output().
    bool soft_output = false;
    //! host: submit() reads host memory (copied into pinned slots). device: submit()
    //! takes device pointers, copied (or quantized) on the slot's stream; CUDA only.
    memory_side input_side = memory_side::host;
    //! host: results are copied back to host memory. device: completed_frame points
    //! into the slot's device memory and nothing but the status crosses the bus.
    memory_side output_side = memory_side::host;
    //! complex_float stages: channel-matrix entries per slot; 0 = max_batch_frames *
    //! those of the largest frame.
    size_t max_batch_aux = 0;
};

//! One decoded frame, handed back in submission order.
struct completed_frame {
    uint64_t id; //!< the caller's id given at submit()
    //! packed_bits stages: packed bits MSB first (device memory with output_side =
    //! device); valid until the next pop/submit. Null for llr_float stages.
    const uint8_t* packed = nullptr;
    //! llr_float stages: nbits float LLRs (L > 0 = bit 0, whatever the engine's
    //! convention); null for other stages.
    const float* llrs = nullptr;
    //! llr_int8 stages: nbits int8 LLRs (L > 0 = bit 0); null for other stages.
    const llr8_t* llrs8 = nullptr;
    size_t nbits = 0; //!< output items: bits, or LLRs
    frame_status status;
    bool on_device = false; //!< packed/llrs/soft are device pointers
    //! With engine_config::soft_output: nbits a-posteriori LLRs in int8-input units
    //! (divide by llr_scale for the float input's units), L > 0 = bit 0; else null.
    //! Valid as long as `packed`.
    const float* soft = nullptr;
    //! Stages with a side output (side_bytes_per_frame() > 0, e.g. a source's info
    //! bits): the frame's side_bytes bytes, on the same side as `llrs`; else null.
    const uint8_t* side = nullptr;
    size_t side_bytes = 0;
};

/*!
 * Frames go in with submit() (copied into the filling slot, which launches by itself
 * when full), come back in order with try_pop()/pop_wait(). launch() sends a partial
 * slot; flush() launches and waits for everything. Not thread-safe: one caller thread.
 */
class batch_engine
{
public:
    batch_engine(std::shared_ptr<batch_decoder> decoder, const engine_config& config);
    ~batch_engine();
    batch_engine(const batch_engine&) = delete;
    batch_engine& operator=(const batch_engine&) = delete;

    //! True when submit() can take a frame of `items` LLRs now without blocking.
    bool can_submit(size_t items) const;
    //! Copies one frame in (float LLRs are quantized with llr_scale to the stage's
    //! input format, int8 or int4; int8 LLRs are saturated to int4 for int4 stages).
    //! Returns false, taking nothing, when every slot is busy (pop frames first).
    //! Throws gpufec::error when the frame length is not decodable, or the stage takes
    //! complex samples. With input_side = device the pointer is device memory.
    bool submit(const float* llrs, size_t items, uint64_t id);
    bool submit(const llr8_t* llrs, size_t items, uint64_t id);
    //! complex_float stages (detectors): `items` received samples and the frame's
    //! channel matrices, aux_items = decoder().aux_items_for_input(items) entries.
    bool submit(const cfloat* samples,
                size_t items,
                const cfloat* channels,
                size_t aux_items,
                uint64_t id);
    /*!
     * Submits up to `count` frames of `items` LLRs each, lying back to back at `llrs`,
     * with ids first_id, first_id + 1, ...: the bulk path. Copies (and quantizes) with
     * the engine's copy threads straight into the filling slots, launching each slot
     * as it fills. Returns the number of frames taken: fewer than `count` when every
     * slot is busy (pop frames, then submit the rest). Bulk for int8 stages and for
     * 4-bit stages with frames of an even length; frame by frame otherwise.
     */
    size_t
    submit_frames(const float* llrs, size_t items, size_t count, uint64_t first_id);
    size_t
    submit_frames(const llr8_t* llrs, size_t items, size_t count, uint64_t first_id);
    /*!
     * The bulk path of complex_float stages: up to `count` frames of `items` samples
     * each, back to back at `samples`, their channel matrices (aux_items entries each)
     * back to back at `channels`, with ids first_id, first_id + 1, ...; copied a slot's
     * worth at a time. Returns the frames taken (fewer when every slot is busy).
     */
    size_t submit_frames(const cfloat* samples,
                         size_t items,
                         const cfloat* channels,
                         size_t aux_items,
                         size_t count,
                         uint64_t first_id);
    /*!
     * Producer stages (input_format::none, e.g. make_source_stage()): asks for up to
     * `count` frames numbered first_id, first_id + 1, ..., which the stage makes and
     * which come back in order like decoded frames. Slots launch as they fill. Returns
     * the number taken: fewer than `count` when every slot is busy. Throws for stages
     * that take input.
     */
    size_t request_frames(size_t count, uint64_t first_id);
    //! Launches the filling slot if it holds frames (a partial batch).
    void launch();
    //! Oldest finished frame, without blocking; false when none is ready.
    bool try_pop(completed_frame& out);
    //! Oldest frame, waiting for its batch if it is in flight (launching the filling
    //! slot first if that is where it is); false when nothing is pending.
    bool pop_wait(completed_frame& out);
    /*!
     * The bulk path out of llr_float and llr_int8 stages with host output (e.g. a
     * source): copies up to `max_frames` finished frames, in order and back to back, of
     * the oldest batch only (so a caller can refill between calls): their LLRs to
     * `llrs` (float, or int8: an llr_float stage's quantized with llr_scale as submit()
     * does, an llr_int8 stage's as they are; an llr_int8 stage has no float form) and,
     * when `side` is not null,
     * their side outputs to `side`. Large copies are split over the copy threads.
     * Statuses and ids are not returned (use pop for them). Waits for the oldest batch
     * when `wait`, else returns 0 if it is not finished. Returns the frames taken.
     */
    size_t pop_frames(float* llrs, uint8_t* side, size_t max_frames, bool wait);
    size_t pop_frames(llr8_t* llrs, uint8_t* side, size_t max_frames, bool wait);
    //! Launches, then waits until every submitted frame is finished (still to be popped).
    void flush();

    size_t frames_pending() const;    //!< submitted and not yet popped
    size_t frames_in_filling() const; //!< in the slot not yet launched
    //! Seconds since the first frame entered the filling slot (0 when empty).
    double filling_age_seconds() const;
    const batch_decoder& decoder() const;
    const engine_config& config() const;

private:
    struct impl;
    std::unique_ptr<impl> d;
};

} // namespace gpufec

#endif
