/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The batching engine (DESIGN.md §3): a ring of slots, each free -> filling -> in
// flight -> done (draining) -> free. Slots launch in ring order, so popping the oldest
// launched slot front to back returns frames in submission order.
#include "engine/slot_backend.h"
#include "engine/worker_pool.h"
#include <gpufec/engine.h>
#include <type_traits>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <sstream>
#include <vector>

namespace gpufec {

namespace {

using steady = std::chrono::steady_clock;

enum class slot_state { free, filling, in_flight, done };

struct slot {
    slot_state state = slot_state::free;
    size_t num_frames = 0;
    size_t input_items = 0; //!< next free input item (int4: frames start on even items)
    size_t aux_items = 0;
    size_t output_bytes = 0;
    size_t next_pop = 0; //!< frames [0, next_pop) were handed back (or dropped)
    std::vector<uint64_t>
        ids; //!< caller ids, capacity max_frames (no steady-state allocs)
    //! Where a done slot's results lie, looked up once when it completes rather than
    //! through the backend's virtual calls for every popped frame.
    struct results {
        const frame_extent* frames = nullptr;
        const uint8_t* output = nullptr;
        const frame_status* status = nullptr;
        const float* soft = nullptr;
        const uint8_t* side = nullptr;
    } done;
};

void validate_config(const engine_config& config)
{
    if (config.num_slots < 2) {
        std::ostringstream msg;
        msg << "engine_config.num_slots must be >= 2 (one slot filling while another is "
               "in flight), got "
            << config.num_slots;
        throw error(msg.str());
    }
    if (config.max_batch_frames < 1)
        throw error("engine_config.max_batch_frames must be >= 1, got 0");
    if (!(config.llr_scale > 0.0f) || !std::isfinite(config.llr_scale)) {
        std::ostringstream msg;
        msg << "engine_config.llr_scale must be a finite value > 0, got "
            << config.llr_scale;
        throw error(msg.str());
    }
    if (config.cpu_threads < 0) {
        std::ostringstream msg;
        msg << "engine_config.cpu_threads must be >= 0 (0 = hardware threads), got "
            << config.cpu_threads;
        throw error(msg.str());
    }
}

//! Decoded bits per input LLR, used only to size the output staging; submit() also
//! checks the real output size of every frame, so an estimate that is too low only
//! makes batches launch earlier.
double output_bits_per_item(const batch_decoder& decoder, size_t max_frame_items)
{
    double ratio = 0.0;
    if (decoder.default_input_items() > 0)
        ratio =
            double(decoder.default_output_bits()) / double(decoder.default_input_items());
    try {
        const size_t bits = decoder.output_bits_for_input(max_frame_items);
        ratio = std::max(ratio, double(bits) / double(max_frame_items));
    } catch (const error&) {
        // The largest frame need not be a valid length (e.g. fixed-size codes).
    }
    // Information bits never outnumber channel LLRs for a code; this also covers
    // decoders that report nothing useful.
    return ratio > 0.0 ? ratio : 1.0;
}

__attribute__((target_clones("avx2", "default"))) void
negate_floats(const float* in, float* out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = -in[i];
}

} // namespace

struct batch_engine::impl {
    std::shared_ptr<batch_decoder> decoder;
    engine_config config;
    batch_limits limits{};
    size_t max_frame_items = 0; //!< largest accepted frame (decoder and slot bound)
    size_t side_per_frame = 0;  //!< side output bytes per frame
    input_format in_format = input_format::llr_int8;
    output_format out_format = output_format::packed_bits;
    bool device_input = false;
    bool device_output = false;
    bool flip = false; //!< callers use the gnuradio soft convention: negate at copies
    std::unique_ptr<slot_backend> backend;
    std::unique_ptr<worker_pool> copier; //!< created by the first submit_frames()
    std::vector<slot> slots;
    int head = 0;     //!< oldest launched slot (meaningful when launched > 0)
    int launched = 0; //!< slots in flight or done, in ring order from head
    size_t pending = 0;
    steady::time_point filling_since{};

    // A launched slot's frame table points into `slots` (ids) while the backend may
    // still run it: stop the backend first (it waits for work in flight), then the copy
    // threads; only then may `slots` go. Members alone would go in reverse order,
    // `slots` first (ASan: heap-use-after-free in source_stage at engine teardown).
    ~impl()
    {
        backend.reset();
        copier.reset();
    }

    int num_slots() const { return int(slots.size()); }
    //! The slot taking new frames; only valid when launched < num_slots.
    int fill_index() const { return (head + launched) % num_slots(); }
    bool has_filling_slot() const { return launched < num_slots(); }

    void compute_limits()
    {
        limits.max_frames = config.max_batch_frames;
        side_per_frame = decoder->side_bytes_per_frame();
        limits.max_side_bytes = limits.max_frames * side_per_frame;
        if (in_format == input_format::none) {
            // A producer: fixed-size frames and no input.
            const size_t bits = decoder->output_bits_for_input(0);
            if (bits == 0 || bits > std::numeric_limits<uint32_t>::max())
                throw error("producer " + decoder->name() + " reports " +
                            std::to_string(bits) + " output items per frame");
            limits.max_output_bytes = limits.max_frames * output_bytes(out_format, bits);
            return;
        }
        const size_t decoder_max = decoder->max_input_items_per_frame();
        if (decoder_max == 0)
            throw error("decoder " + decoder->name() +
                        " reports a maximum frame of 0 LLRs");
        if (config.max_batch_items > 0) {
            limits.max_input_items = config.max_batch_items;
        } else {
            if (decoder_max > std::numeric_limits<size_t>::max() / limits.max_frames)
                throw error(
                    "engine_config.max_batch_items must be set (> 0) for decoder " +
                    decoder->name() +
                    ": max_batch_frames * its maximum frame length overflows");
            limits.max_input_items = limits.max_frames * decoder_max;
        }
        max_frame_items = std::min({ decoder_max,
                                     limits.max_input_items,
                                     size_t(std::numeric_limits<uint32_t>::max()) });

        if (in_format == input_format::complex_float) {
            const size_t aux = decoder->aux_items_for_input(max_frame_items);
            limits.max_aux_items =
                config.max_batch_aux > 0 ? config.max_batch_aux : limits.max_frames * aux;
        }
        const double ratio = output_bits_per_item(*decoder, max_frame_items);
        const size_t frame_bits_bound =
            size_t(std::ceil(double(max_frame_items) * ratio));
        const size_t per_frame_bound =
            limits.max_frames * output_bytes(out_format, frame_bits_bound);
        // Alignment of each frame to 4 bytes costs at most 4 bytes per frame.
        const size_t total_items =
            size_t(std::ceil(double(limits.max_input_items) * ratio));
        const size_t per_item_bound =
            (out_format == output_format::packed_bits ? packed_bytes(total_items)
                                                      : 4 * total_items) +
            4 * limits.max_frames;
        limits.max_output_bytes = std::min(per_frame_bound, per_item_bound);
    }

    //! Output bytes of a frame of `items` LLRs; throws for lengths that cannot be
    //! decoded.
    size_t checked_output_bytes(size_t items, size_t& bits) const
    {
        if (items > max_frame_items) {
            std::ostringstream msg;
            msg << "frame of " << items << " LLRs is longer than the maximum of "
                << max_frame_items << " LLRs per frame accepted by " << decoder->name();
            if (max_frame_items < decoder->max_input_items_per_frame())
                msg << " (bounded by engine_config.max_batch_items = "
                    << limits.max_input_items << ")";
            throw error(msg.str());
        }
        bits = decoder->output_bits_for_input(items);
        if (bits > std::numeric_limits<uint32_t>::max())
            throw error("decoder " + decoder->name() + " reports too many output bits");
        const size_t bytes = output_bytes(out_format, bits);
        if (bytes > limits.max_output_bytes) {
            std::ostringstream msg;
            msg << "frame of " << items << " LLRs decodes to " << bits
                << " bits, more than a slot holds (" << limits.max_output_bytes
                << " bytes); raise engine_config.max_batch_items";
            throw error(msg.str());
        }
        return bytes;
    }

    //! Where the next frame's input starts: int4 frames start on a byte (even item).
    size_t input_start(const slot& s) const
    {
        return in_format == input_format::llr_int4 ? (s.input_items + 1) & ~size_t(1)
                                                   : s.input_items;
    }

    bool fits(const slot& s, size_t items, size_t out_bytes, size_t aux = 0) const
    {
        return s.num_frames < limits.max_frames &&
               input_start(s) + items <= limits.max_input_items &&
               s.aux_items + aux <= limits.max_aux_items &&
               s.output_bytes + out_bytes <= limits.max_output_bytes;
    }

    void reset_slot(slot& s)
    {
        s.state = slot_state::free;
        s.num_frames = s.input_items = s.aux_items = s.output_bytes = s.next_pop = 0;
        s.ids.clear();
    }

    //! Copies `items` LLRs (or samples) of the caller to input item `at` of a slot:
    //! host staging or, with input_side = device, the slot's device input.
    template <typename T>
    void stage_input(int index, size_t at, const T* src, size_t items)
    {
        if (device_input) {
            backend->stage_device_input(index,
                                        at,
                                        src,
                                        items,
                                        std::is_same<T, float>::value,
                                        signed_scale(),
                                        flip);
            return;
        }
        uint8_t* base = backend->host_input(index);
        if constexpr (std::is_same<T, cfloat>::value) {
            std::memcpy(base + at * sizeof(cfloat), src, items * sizeof(cfloat));
        } else if (in_format == input_format::llr_int4) {
            if constexpr (std::is_same<T, float>::value)
                quantize_llrs_int4(src, base + at / 2, items, signed_scale());
            else
                pack_llrs_int4(src, base + at / 2, items, flip);
        } else if constexpr (std::is_same<T, float>::value) {
            quantize_llrs(
                src, reinterpret_cast<llr8_t*>(base) + at, items, signed_scale());
        } else if (flip) {
            negate_llrs(src, reinterpret_cast<llr8_t*>(base) + at, items);
        } else {
            std::memcpy(base + at, src, items);
        }
    }

    template <typename T>
    void check_input_type() const
    {
        if (in_format == input_format::none)
            throw error("batch_engine: " + decoder->name() +
                        " is a producer and takes no input; ask it for frames with "
                        "request_frames()");
        const bool complex_in = in_format == input_format::complex_float;
        if (complex_in != std::is_same<T, cfloat>::value)
            throw error("batch_engine: " + decoder->name() + " takes " +
                        to_string(in_format) + " input; submit " +
                        (complex_in ? "complex samples with their channel matrices"
                                    : "float or int8 LLRs"));
    }

    void launch_filling()
    {
        if (!has_filling_slot())
            return;
        const int index = fill_index();
        slot& s = slots[index];
        if (s.num_frames == 0)
            return;
        try {
            slot_launch what;
            what.num_frames = s.num_frames;
            what.input_bytes = device_input ? 0 : input_bytes(in_format, s.input_items);
            what.aux_items = device_input ? 0 : s.aux_items;
            what.output_bytes = s.output_bytes;
            what.output_to_host = !device_output;
            what.ids = s.ids.data();
            what.side_bytes = s.num_frames * side_per_frame;
            backend->launch(index, what);
        } catch (...) {
            // Nothing was started: the frames are lost to the caller through the error.
            pending -= s.num_frames;
            reset_slot(s);
            throw;
        }
        s.state = slot_state::in_flight;
        ++launched;
    }

    //! Drops the remaining frames of a failed slot; it is freed when it reaches the head.
    void drop_frames(slot& s)
    {
        pending -= s.num_frames - s.next_pop;
        s.next_pop = s.num_frames;
        s.state = slot_state::done;
    }

    //! Frees fully popped slots at the head of the ring.
    void release_drained()
    {
        while (launched > 0) {
            slot& s = slots[head];
            if (s.state != slot_state::done || s.next_pop < s.num_frames)
                break;
            reset_slot(s);
            head = (head + 1) % num_slots();
            --launched;
        }
    }

    //! Completes slot `index` (blocking or not); a decode error drops its frames and
    //! propagates to the caller.
    bool complete(int index, bool block)
    {
        slot& s = slots[index];
        if (s.state == slot_state::done)
            return true;
        try {
            if (block)
                backend->wait(index);
            else if (!backend->done(index))
                return false;
        } catch (...) {
            drop_frames(s);
            release_drained();
            throw;
        }
        s.state = slot_state::done;
        s.done.frames = backend->host_frames(index);
        s.done.output =
            device_output ? backend->device_output(index) : backend->host_output(index);
        s.done.status = backend->host_status(index);
        s.done.soft =
            device_output ? backend->device_soft(index) : backend->host_soft(index);
        s.done.side =
            device_output ? backend->device_side(index) : backend->host_side(index);
        return true;
    }

    void pop_front(completed_frame& out)
    {
        slot& s = slots[head];
        const size_t i = s.next_pop++;
        const frame_extent& extent = s.done.frames[i];
        out.id = s.ids[i];
        const uint8_t* output = s.done.output + extent.out_offset;
        const bool bits = out_format == output_format::packed_bits;
        out.packed = bits ? output : nullptr;
        out.llrs = out_format == output_format::llr_float
                       ? reinterpret_cast<const float*>(output)
                       : nullptr;
        out.llrs8 = out_format == output_format::llr_int8
                        ? reinterpret_cast<const llr8_t*>(output)
                        : nullptr;
        out.nbits = extent.out_bits;
        out.status = s.done.status[i];
        out.on_device = device_output;
        out.soft = s.done.soft ? s.done.soft + 8 * extent.out_offset : nullptr;
        const uint8_t* side = s.done.side;
        out.side = side ? side + i * side_per_frame : nullptr;
        out.side_bytes = side ? side_per_frame : 0;
        --pending;
        // The slot's memory stays untouched until it is filled and launched again, so
        // `out.packed` is valid until the next submit()/pop, as documented.
        release_drained();
    }

    template <typename T>
    bool submit(const T* llrs,
                size_t items,
                uint64_t id,
                const cfloat* channels = nullptr,
                size_t aux = 0)
    {
        check_input_type<T>();
        size_t bits = 0;
        const size_t out_bytes = checked_output_bytes(items, bits);
        if (in_format == input_format::complex_float) {
            const size_t want = decoder->aux_items_for_input(items);
            if (aux != want)
                throw error("batch_engine: a frame of " + std::to_string(items) +
                            " samples needs " + std::to_string(want) +
                            " channel-matrix entries for " + decoder->name() + ", got " +
                            std::to_string(aux));
            if (aux > limits.max_aux_items)
                throw error("batch_engine: " + std::to_string(aux) +
                            " channel-matrix entries exceed a slot's " +
                            std::to_string(limits.max_aux_items) +
                            "; raise engine_config.max_batch_aux");
        }
        if (!has_filling_slot())
            return false;
        if (!fits(slots[fill_index()], items, out_bytes, aux)) {
            launch_filling();
            if (!has_filling_slot())
                return false;
        }
        const int index = fill_index();
        slot& s = slots[index];
        const size_t at = input_start(s);
        frame_extent& extent = backend->host_frames(index)[s.num_frames];
        extent.in_offset = at;
        extent.in_items = uint32_t(items);
        extent.out_offset = s.output_bytes;
        extent.out_bits = uint32_t(bits);
        extent.aux_offset = s.aux_items;
        extent.aux_items = uint32_t(aux);
        backend->host_status(index)[s.num_frames] = frame_status{};
        stage_input(index, at, llrs, items);
        if (aux > 0) {
            if (device_input)
                backend->stage_device_aux(index, s.aux_items, channels, aux);
            else
                std::memcpy(backend->host_aux(index) + s.aux_items,
                            channels,
                            aux * sizeof(cfloat));
        }

        if (s.num_frames == 0) {
            s.state = slot_state::filling;
            filling_since = steady::now();
        }
        s.ids.push_back(id);
        ++s.num_frames;
        s.input_items = at + items;
        s.aux_items += aux;
        s.output_bytes += out_bytes;
        ++pending;

        // Launch as soon as no further frame can join (not even the shortest).
        if (s.num_frames == limits.max_frames || s.input_items == limits.max_input_items)
            launch_filling();
        return true;
    }

    //! The quantization scale with the convention's sign folded in (quantization is
    //! symmetric, so this is exactly the negated int8 value).
    float signed_scale() const { return config.llr_scale * soft_sign(config.convention); }

    //! Runs body(chunk, worker) for the chunks of a copy of n items: inline for one
    //! chunk, else over the copy threads (started on first use).
    template <typename Body>
    void run_chunks(size_t n, size_t chunks, Body& body)
    {
        if (chunks <= 1) {
            if (n)
                body(0, 0);
            return;
        }
        if (!copier) {
            const int hw = int(std::max(1u, std::thread::hardware_concurrency()));
            copier = std::make_unique<worker_pool>(
                config.copy_threads > 0 ? config.copy_threads : std::min(8, hw));
        }
        copier->parallel_for(chunks, body);
    }

    /*!
     * Copies n items (float -> int8: quantizes with llr_scale), split over the copy
     * threads in large chunks. `negate` (soft values of the gnuradio convention)
     * negates them in the same pass; side outputs (bytes) are copied as they are.
     */
    template <typename S, typename D>
    void copy_llrs(const S* src, D* dst, size_t n, bool negate)
    {
        constexpr size_t chunk = size_t(1) << 18; // large enough to amortize a hand-off
        const size_t chunks = (n + chunk - 1) / chunk;
        auto body = [&](size_t c, size_t) {
            const size_t first = c * chunk;
            const size_t len = std::min(chunk, n - first);
            if constexpr (std::is_same<S, float>::value && std::is_same<D, llr8_t>::value)
                quantize_llrs(src + first,
                              dst + first,
                              len,
                              negate ? -config.llr_scale : config.llr_scale);
            else if constexpr (std::is_same<S, float>::value &&
                               std::is_same<D, float>::value)
                negate ? negate_floats(src + first, dst + first, len)
                       : void(std::memcpy(dst + first, src + first, len * sizeof(D)));
            else if constexpr (std::is_same<S, llr8_t>::value &&
                               std::is_same<D, llr8_t>::value)
                negate ? negate_llrs(src + first, dst + first, len)
                       : void(std::memcpy(dst + first, src + first, len * sizeof(D)));
            else
                std::memcpy(dst + first, src + first, len * sizeof(D));
        };
        run_chunks(n, chunks, body);
    }

    //! The same into a 4-bit input (two items per byte from item 0 of dst): float
    //! quantized with llr_scale, or int8 saturated to +/-7; chunks of an even size.
    template <typename S>
    void copy_llrs_int4(const S* src, uint8_t* dst, size_t n, bool negate)
    {
        constexpr size_t chunk = size_t(1) << 18; // even: chunks start on a byte
        const size_t chunks = (n + chunk - 1) / chunk;
        auto body = [&](size_t c, size_t) {
            const size_t first = c * chunk;
            const size_t len = std::min(chunk, n - first);
            if constexpr (std::is_same<S, float>::value)
                quantize_llrs_int4(src + first,
                                   dst + first / 2,
                                   len,
                                   negate ? -config.llr_scale : config.llr_scale);
            else
                pack_llrs_int4(src + first, dst + first / 2, len, negate);
        };
        run_chunks(n, chunks, body);
    }

    //! Bulk path out of llr_float and llr_int8 stages: see batch_engine::pop_frames().
    template <typename D>
    size_t pop_frames(D* llrs, uint8_t* side, size_t max_frames, bool wait)
    {
        const bool int8_stage = out_format == output_format::llr_int8;
        if ((out_format != output_format::llr_float && !int8_stage) || device_output)
            throw error(
                "batch_engine::pop_frames() copies float or int8 LLR output to the "
                "host; " +
                decoder->name() + " writes " + to_string(out_format) +
                (device_output ? " to the device (output_side = device)" : "") +
                ": use try_pop()/pop_wait()");
        if (int8_stage && !std::is_same<D, llr8_t>::value)
            throw error("batch_engine::pop_frames(): " + decoder->name() +
                        " writes int8 LLRs; pop them as int8 (llr8_t)");
        release_drained();
        if (max_frames == 0)
            return 0;
        if (launched == 0) {
            if (!wait)
                return 0;
            launch_filling();
            if (launched == 0)
                return 0;
        }
        if (!complete(head, wait))
            return 0;
        // The head slot's frames [next_pop, next_pop + k): llr_float frames lie back to
        // back (4 bytes per item, no padding), llr_int8 frames where their lengths are
        // multiples of 4 (else each frame is padded to 4 bytes and copied alone); side
        // outputs are fixed-size.
        slot& s = slots[head];
        const size_t first = s.next_pop;
        const size_t k = std::min(max_frames, s.num_frames - first);
        const frame_extent* extents = backend->host_frames(head);
        const uint8_t* output = backend->host_output(head);
        if constexpr (std::is_same<D, llr8_t>::value) {
            if (int8_stage) {
                bool padded = false;
                for (size_t f = first; f < first + k; ++f)
                    padded |= extents[f].out_bits % 4 != 0;
                const auto* src = reinterpret_cast<const llr8_t*>(output);
                if (padded) {
                    for (size_t f = first; f < first + k; ++f) {
                        copy_llrs(
                            src + extents[f].out_offset, llrs, extents[f].out_bits, flip);
                        llrs += extents[f].out_bits;
                    }
                } else {
                    const size_t begin = extents[first].out_offset;
                    const size_t end = extents[first + k - 1].out_offset +
                                       extents[first + k - 1].out_bits;
                    copy_llrs(src + begin, llrs, end - begin, flip);
                }
            }
        }
        if (!int8_stage) {
            const size_t begin = extents[first].out_offset / sizeof(float);
            const size_t end = extents[first + k - 1].out_offset / sizeof(float) +
                               extents[first + k - 1].out_bits;
            copy_llrs(
                reinterpret_cast<const float*>(output) + begin, llrs, end - begin, flip);
        }
        if (side && side_per_frame)
            copy_llrs(backend->host_side(head) + first * side_per_frame,
                      side,
                      k * side_per_frame,
                      false);
        s.next_pop += k;
        pending -= k;
        release_drained();
        return k;
    }

    size_t request_frames(size_t count, uint64_t first_id)
    {
        if (in_format != input_format::none)
            throw error("batch_engine: request_frames() is for producer stages; " +
                        decoder->name() + " takes " + to_string(in_format) +
                        " input (use submit())");
        const size_t bits = decoder->output_bits_for_input(0);
        const size_t out_bytes = output_bytes(out_format, bits);
        size_t done = 0;
        while (done < count && has_filling_slot()) {
            const int index = fill_index();
            slot& s = slots[index];
            const size_t k = std::min(limits.max_frames - s.num_frames, count - done);
            frame_extent* extents = backend->host_frames(index) + s.num_frames;
            frame_status* status = backend->host_status(index) + s.num_frames;
            for (size_t j = 0; j < k; ++j) {
                extents[j] =
                    frame_extent{ 0, 0, s.output_bytes + j * out_bytes, uint32_t(bits) };
                status[j] = frame_status{};
                s.ids.push_back(first_id + done + j);
            }
            if (s.num_frames == 0 && k > 0) {
                s.state = slot_state::filling;
                filling_since = steady::now();
            }
            s.num_frames += k;
            s.output_bytes += k * out_bytes;
            pending += k;
            done += k;
            if (s.num_frames == limits.max_frames)
                launch_filling();
        }
        return done;
    }

    /*!
     * The bulk paths' common part: frames [done, count) of `items` input items and
     * `aux` channel entries each go into the filling slots a slot's worth at a time;
     * copy(index, first_item, first_aux, frame, k) copies frames [frame, frame + k)
     * to slot `index` at those positions. Returns the frame count reached.
     */
    template <typename Copy>
    size_t take_bulk(size_t items,
                     size_t aux,
                     size_t done,
                     size_t count,
                     uint64_t first_id,
                     Copy&& copy)
    {
        size_t bits = 0;
        const size_t out_bytes = checked_output_bytes(items, bits);
        while (done < count && has_filling_slot()) {
            const int index = fill_index();
            slot& s = slots[index];
            size_t room =
                std::min({ limits.max_frames - s.num_frames,
                           (limits.max_input_items - s.input_items) / items,
                           (limits.max_output_bytes - s.output_bytes) / out_bytes });
            if (aux > 0)
                room = std::min(room, (limits.max_aux_items - s.aux_items) / aux);
            if (room == 0) {
                launch_filling();
                continue;
            }
            const size_t k = std::min(room, count - done);
            frame_extent* extents = backend->host_frames(index) + s.num_frames;
            frame_status* status = backend->host_status(index) + s.num_frames;
            for (size_t j = 0; j < k; ++j) {
                extents[j] = frame_extent{ s.input_items + j * items,
                                           uint32_t(items),
                                           s.output_bytes + j * out_bytes,
                                           uint32_t(bits) };
                extents[j].aux_offset = s.aux_items + j * aux;
                extents[j].aux_items = uint32_t(aux);
                status[j] = frame_status{};
                s.ids.push_back(first_id + done + j);
            }
            copy(index, s.input_items, s.aux_items, done, k);
            if (s.num_frames == 0) {
                s.state = slot_state::filling;
                filling_since = steady::now();
            }
            s.num_frames += k;
            s.input_items += k * items;
            s.aux_items += k * aux;
            s.output_bytes += k * out_bytes;
            pending += k;
            done += k;
            if (s.num_frames == limits.max_frames ||
                limits.max_input_items - s.input_items < items ||
                limits.max_output_bytes - s.output_bytes < out_bytes ||
                (aux > 0 && limits.max_aux_items - s.aux_items < aux))
                launch_filling();
        }
        return done;
    }

    template <typename T>
    size_t submit_frames(const T* llrs, size_t items, size_t count, uint64_t first_id)
    {
        if (count == 0)
            return 0;
        check_input_type<T>();
        // 4-bit frames of an even length lie back to back on whole bytes: bulk copies
        // too.
        const bool int4_bulk = in_format == input_format::llr_int4 && items % 2 == 0;
        if (device_input || !(in_format == input_format::llr_int8 || int4_bulk)) {
            // Device copies are one call per frame already; odd int4 frames are
            // realigned.
            size_t done = 0;
            while (done < count && submit(llrs + done * items, items, first_id + done))
                ++done;
            return done;
        }
        return take_bulk(
            items,
            0,
            0,
            count,
            first_id,
            [&](int index, size_t at, size_t, size_t frame, size_t k) {
                if (int4_bulk)
                    copy_llrs_int4(llrs + frame * items,
                                   backend->host_input(index) + at / 2,
                                   k * items,
                                   flip);
                else
                    copy_llrs(llrs + frame * items,
                              reinterpret_cast<llr8_t*>(backend->host_input(index)) + at,
                              k * items,
                              flip);
            });
    }

    //! The bulk path of complex_float stages: equal frames and their channel
    //! matrices back to back, copied a slot's worth at a time.
    size_t submit_frames_complex(const cfloat* samples,
                                 size_t items,
                                 const cfloat* channels,
                                 size_t aux,
                                 size_t count,
                                 uint64_t first_id)
    {
        if (count == 0)
            return 0;
        check_input_type<cfloat>();
        if (device_input) {
            size_t done = 0;
            while (done < count && submit(samples + done * items,
                                          items,
                                          first_id + done,
                                          channels + done * aux,
                                          aux))
                ++done;
            return done;
        }
        // The first frame goes through submit() for its checks (lengths, aux count).
        if (!submit(samples, items, first_id, channels, aux))
            return 0;
        return take_bulk(
            items,
            aux,
            1,
            count,
            first_id,
            [&](int index, size_t at, size_t aux_at, size_t frame, size_t k) {
                std::memcpy(backend->host_input(index) + at * sizeof(cfloat),
                            samples + frame * items,
                            k * items * sizeof(cfloat));
                if (aux > 0)
                    std::memcpy(backend->host_aux(index) + aux_at,
                                channels + frame * aux,
                                k * aux * sizeof(cfloat));
            });
    }
};

batch_engine::batch_engine(std::shared_ptr<batch_decoder> decoder,
                           const engine_config& config)
    : d(std::make_unique<impl>())
{
    if (!decoder)
        throw error("batch_engine needs a decoder (got a null pointer)");
    validate_config(config);
    d->decoder = std::move(decoder);
    d->config = config;
    if (config.soft_output && !d->decoder->has_soft_output())
        throw error("batch_engine: decoder " + d->decoder->name() +
                    " has no soft output; set engine_config.soft_output = false");
    d->in_format = d->decoder->input();
    d->out_format = d->decoder->output();
    if (config.soft_output && d->out_format != output_format::packed_bits)
        throw error("batch_engine: soft_output is for decoders with packed-bit output; " +
                    d->decoder->name() + " already writes LLRs");
    d->device_input = config.input_side == memory_side::device;
    d->device_output = config.output_side == memory_side::device;
    d->flip = config.convention == soft_convention::gnuradio;
    const bool on_gpu = d->decoder->backend() == backend_kind::cuda;
    if ((d->device_input || d->device_output) && !on_gpu)
        throw error("batch_engine: input_side/output_side = device needs a CUDA stage; " +
                    d->decoder->name() + " runs on the CPU (allowed: memory_side::host)");
    d->compute_limits();
    d->limits.soft_output = config.soft_output;

    switch (d->decoder->backend()) {
    case backend_kind::cpu:
        d->backend = make_cpu_slot_backend(
            d->decoder, d->limits, config.num_slots, config.cpu_threads);
        break;
    case backend_kind::cuda:
#if GPUFEC_HAVE_CUDA
        d->backend = make_cuda_slot_backend(
            d->decoder, d->limits, config.num_slots, d->decoder->device());
#else
        throw error("batch_engine: " + d->decoder->name() +
                    " is a CUDA stage, and this build has no CUDA");
#endif
        break;
    }
    if (!d->backend)
        throw error("batch_engine: decoder " + d->decoder->name() +
                    " has an unknown backend");

    d->slots.resize(size_t(config.num_slots));
    for (slot& s : d->slots)
        s.ids.reserve(d->limits.max_frames);
}

batch_engine::~batch_engine() = default; // the backend waits for work in flight

bool batch_engine::can_submit(size_t items) const
{
    if (!d->has_filling_slot())
        return false;
    size_t out_bytes = 0;
    try {
        size_t bits = 0;
        out_bytes = d->checked_output_bytes(items, bits);
    } catch (const error&) {
        return true; // submit() does not block on it: it throws, naming the problem
    }
    const size_t aux = d->in_format == input_format::complex_float
                           ? d->decoder->aux_items_for_input(items)
                           : 0;
    return d->fits(d->slots[d->fill_index()], items, out_bytes, aux) ||
           d->launched + 1 < d->num_slots();
}

bool batch_engine::submit(const float* llrs, size_t items, uint64_t id)
{
    return d->submit(llrs, items, id);
}

bool batch_engine::submit(const llr8_t* llrs, size_t items, uint64_t id)
{
    return d->submit(llrs, items, id);
}

bool batch_engine::submit(const cfloat* samples,
                          size_t items,
                          const cfloat* channels,
                          size_t aux_items,
                          uint64_t id)
{
    return d->submit(samples, items, id, channels, aux_items);
}

size_t batch_engine::submit_frames(const cfloat* samples,
                                   size_t items,
                                   const cfloat* channels,
                                   size_t aux_items,
                                   size_t count,
                                   uint64_t first_id)
{
    return d->submit_frames_complex(samples, items, channels, aux_items, count, first_id);
}

size_t batch_engine::submit_frames(const float* llrs,
                                   size_t items,
                                   size_t count,
                                   uint64_t first_id)
{
    return d->submit_frames(llrs, items, count, first_id);
}

size_t batch_engine::submit_frames(const llr8_t* llrs,
                                   size_t items,
                                   size_t count,
                                   uint64_t first_id)
{
    return d->submit_frames(llrs, items, count, first_id);
}

size_t batch_engine::request_frames(size_t count, uint64_t first_id)
{
    return d->request_frames(count, first_id);
}

size_t batch_engine::pop_frames(float* llrs, uint8_t* side, size_t max_frames, bool wait)
{
    return d->pop_frames(llrs, side, max_frames, wait);
}

size_t batch_engine::pop_frames(llr8_t* llrs, uint8_t* side, size_t max_frames, bool wait)
{
    return d->pop_frames(llrs, side, max_frames, wait);
}

void batch_engine::launch() { d->launch_filling(); }

bool batch_engine::try_pop(completed_frame& out)
{
    d->release_drained();
    if (d->launched == 0)
        return false;
    if (!d->complete(d->head, false))
        return false;
    // complete() may have dropped a failed head slot, which then throws; here the head
    // slot is done and holds at least one frame (release_drained ran above).
    d->pop_front(out);
    return true;
}

bool batch_engine::pop_wait(completed_frame& out)
{
    d->release_drained();
    if (d->launched == 0) {
        d->launch_filling();
        if (d->launched == 0)
            return false;
    }
    d->complete(d->head, true);
    d->pop_front(out);
    return true;
}

void batch_engine::flush()
{
    d->launch_filling();
    for (int k = 0; k < d->launched; ++k)
        d->complete((d->head + k) % d->num_slots(), true);
}

size_t batch_engine::frames_pending() const { return d->pending; }

size_t batch_engine::frames_in_filling() const
{
    return d->has_filling_slot() ? d->slots[d->fill_index()].num_frames : 0;
}

double batch_engine::filling_age_seconds() const
{
    if (frames_in_filling() == 0)
        return 0.0;
    return std::chrono::duration<double>(steady::now() - d->filling_since).count();
}

const batch_decoder& batch_engine::decoder() const { return *d->decoder; }

const engine_config& batch_engine::config() const { return d->config; }

} // namespace gpufec
