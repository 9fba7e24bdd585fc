/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../engine/worker_pool.h" // header-only fork-join pool of the core
#include "batched_common.h"
#include <gnuradio/gpufec/awgn_bpsk_source.h>
#include <gnuradio/io_signature.h>
#include <condition_variable>
#include <gpufec/awgn_source.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace gpufec {

namespace {

//! Output 0 item type: true for float LLRs, false for int8 ("byte").
bool parse_output_type(const std::string& type)
{
    if (type == "float" || type == "f32") {
        return true;
    }
    if (type == "byte" || type == "int8" || type == "s8") {
        return false;
    }
    throw ::gpufec::error("awgn_bpsk_source: output_type \"" + type +
                          "\" unknown; allowed: \"float\", \"byte\" (int8 LLRs)");
}

//! Below this many bytes a copy runs on the calling thread alone.
constexpr size_t parallel_copy_bytes = size_t(1) << 20;

/*!
 * Frames go out frames_per_call at a time at most (as many as the output has room for).
 * The CPU backend generates straight into the output buffer (its generate() already
 * spreads a batch over all cores). The CUDA backend's generate() is synchronous (kernel,
 * device-to-host copy, copy out of pinned staging), so generator threads (up to 4,
 * each with its own backend instance and two staging batches, making interleaved
 * batches) run ahead while work() copies the current batch out: the GPU and the copies
 * overlap, and the copies run on several threads. Frames are a pure function of
 * (seed, frame index, Eb/N0), so the output is the same either way.
 * Copies out of the staging (and the int8 quantization of output_type "byte") are
 * split over a small pool of threads: one thread's memory bandwidth is what limits a
 * GPU source.
 */
class awgn_bpsk_source_impl : public awgn_bpsk_source
{
public:
    awgn_bpsk_source_impl(code::sptr code,
                          double ebn0_db,
                          uint64_t seed,
                          const std::string& backend,
                          int frames_per_call,
                          const std::string& len_tag_key,
                          const std::string& output_type,
                          double llr_scale)
        : gr::block("awgn_bpsk_source",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make2(
                        2,
                        2,
                        parse_output_type(output_type) ? sizeof(float) : sizeof(int8_t),
                        sizeof(uint8_t))),
          d_len_key(len_tag_key.empty() ? pmt::PMT_NIL : pmt::intern(len_tag_key)),
          d_float_output(parse_output_type(output_type)),
          d_llr_scale(static_cast<float>(llr_scale))
    {
        if (!(llr_scale > 0.0) || !std::isfinite(llr_scale)) {
            throw ::gpufec::error(
                "awgn_bpsk_source: llr_scale = " + std::to_string(llr_scale) +
                "; allowed: a finite value > 0");
        }
        if (!code) {
            throw ::gpufec::error("awgn_bpsk_source: code is None; allowed: any gpufec "
                                  "code (conv_code, lte_turbo_code, nr_ldpc_code, "
                                  "ldpc_code_from_alist, nr_polar_code)");
        }
        if (frames_per_call < 1) {
            throw ::gpufec::error(
                "awgn_bpsk_source: frames_per_call = " + std::to_string(frames_per_call) +
                "; allowed: 1 or more");
        }
        // The registry picks the backend: convolutional codes have a GPU encoder, the
        // others are registered for the CPU only ("auto" takes it, "cuda" raises).
        auto conv = std::dynamic_pointer_cast<conv_code>(code);
        auto make_conv_source = [conv, ebn0_db, seed](const std::string& b) {
            return ::gpufec::make(
                conv->core(), ::gpufec::awgn_source_options{ ebn0_db, seed }, b);
        };
        try {
            if (conv) {
                d_source = make_conv_source(backend);
            } else {
                ::gpufec::frame_code frame;
                frame.info_bits = static_cast<size_t>(code->frame_bits());
                frame.coded_bits = code->coded_bits();
                frame.description = code->describe();
                frame.encode = [code](const uint8_t* in, uint8_t* out) {
                    code->encode_raw(in, static_cast<size_t>(code->frame_bits()), out);
                };
                d_source = ::gpufec::make(
                    frame, ::gpufec::awgn_frame_source_options{ ebn0_db, seed }, backend);
            }
        } catch (const ::gpufec::error& e) {
            throw ::gpufec::error(std::string("awgn_bpsk_source: ") + e.what());
        }
        ::gpufec::backend_spec spec;
        spec.kind = d_source->backend();
        spec.device = std::max(0, d_source->device());
        spec.was_auto = backend == "auto";
        d_backend = ::gpufec::describe_backend(spec);
        d_logger->info("awgn_bpsk_source: {}backend {}, {}",
                       spec.was_auto ? "auto selected " : "",
                       d_backend,
                       code->describe());
        d_llrs = d_source->llrs_per_frame();
        d_bits = d_source->bits_per_frame();
        d_frames_per_call = static_cast<size_t>(frames_per_call);
        d_staged = d_source->backend() == ::gpufec::backend_kind::cuda;
        const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
        if (d_staged) {
            // Frames are a pure function of (seed, index, Eb/N0), so independent
            // instances can make interleaved batches: each generate() ends in a
            // single-threaded copy out of its pinned staging, which limits one thread.
            const size_t threads = std::min<size_t>(4, std::max(1u, hw / 4));
            d_generators.push_back(std::move(d_source));
            while (d_generators.size() < threads) {
                // Only convolutional codes have a CUDA source, so conv is set here.
                d_generators.push_back(make_conv_source(
                    "cuda:" + std::to_string(d_generators.front()->device())));
            }
            d_generator_mutexes = std::make_unique<std::mutex[]>(threads);
            d_batches.resize(2 * threads);
            for (auto& batch : d_batches) {
                batch.llrs.resize(d_frames_per_call * d_llrs);
                batch.bits.resize(d_frames_per_call * d_bits);
                if (!d_float_output) {
                    batch.llrs8.resize(d_frames_per_call * d_llrs);
                }
            }
            // Warm-up: staging buffers and kernels are set up here, not in the first
            // work() call (the frames made are discarded; nothing else changes).
            for (size_t g = 0; g < threads; ++g) {
                d_generators[g]->generate(
                    0, d_frames_per_call, d_batches[g].llrs.data(), nullptr);
            }
        } else {
            d_generators.push_back(std::move(d_source));
            d_generator_mutexes = std::make_unique<std::mutex[]>(1);
        }
        d_copy_pool = std::make_unique<::gpufec::worker_pool>(
            static_cast<int>(std::min(4u, std::max(1u, hw / 2))));
        // One output_multiple for both ports: a frame needs max(d_llrs, d_bits) items
        // of space on each, and the scheduler hands out the smaller space of the two.
        const size_t per_frame = std::max(d_llrs, d_bits);
        set_output_multiple(static_cast<int>(per_frame));
        // Two batches of room: one being filled while downstream still reads the other.
        set_min_output_buffer(static_cast<long>(2 * per_frame * d_frames_per_call));
    }

    ~awgn_bpsk_source_impl() override { stop_worker(); }

    void set_ebn0_db(double ebn0_db) override
    {
        for (size_t g = 0; g < d_generators.size(); ++g) {
            std::lock_guard<std::mutex> lock(d_generator_mutexes[g]);
            d_generators[g]->set_ebn0_db(ebn0_db);
        }
    }
    double ebn0_db() const override
    {
        std::lock_guard<std::mutex> lock(d_generator_mutexes[0]);
        return d_generators[0]->ebn0_db();
    }
    std::string backend_name() const override { return d_backend; }
    uint64_t frames() const override { return d_next_frame.load(); }

    bool start() override
    {
        if (d_staged) {
            start_worker();
        }
        return true;
    }

    bool stop() override
    {
        stop_worker();
        return true;
    }

    int general_work(int noutput_items,
                     gr_vector_int&,
                     gr_vector_const_void_star&,
                     gr_vector_void_star& output_items) override
    {
        const size_t per_frame = std::max(d_llrs, d_bits);
        const size_t room = static_cast<size_t>(noutput_items) / per_frame;
        auto* llrs = static_cast<uint8_t*>(output_items[0]);
        auto* bits = static_cast<uint8_t*>(output_items[1]);
        const size_t frames =
            d_staged ? copy_staged(std::min(room, d_frames_per_call), llrs, bits)
                     : generate_direct(room, llrs, bits);
        if (frames == 0) {
            return 0;
        }
        if (!pmt::is_null(d_len_key)) {
            for (size_t f = 0; f < frames; ++f) {
                add_item_tag(0,
                             nitems_written(0) + f * d_llrs,
                             d_len_key,
                             pmt::from_long(static_cast<long>(d_llrs)));
                add_item_tag(1,
                             nitems_written(1) + f * d_bits,
                             d_len_key,
                             pmt::from_long(static_cast<long>(d_bits)));
            }
        }
        d_next_frame += frames;
        produce(0, static_cast<int>(frames * d_llrs));
        produce(1, static_cast<int>(frames * d_bits));
        return WORK_CALLED_PRODUCE;
    }

private:
    struct staged_batch {
        std::vector<float> llrs;
        std::vector<::gpufec::llr8_t> llrs8; //!< output_type "byte": quantized llrs
        std::vector<uint8_t> bits;
        size_t frames = 0; //!< generated
        size_t taken = 0;  //!< already copied out
        bool ready = false;
        std::exception_ptr error;
    };

    size_t generate_direct(size_t room, uint8_t* llrs, uint8_t* bits)
    {
        const size_t frames = std::min(d_frames_per_call, room);
        if (frames == 0) {
            return 0;
        }
        std::lock_guard<std::mutex> lock(d_generator_mutexes[0]);
        auto& source = *d_generators[0];
        if (d_float_output) {
            source.generate(
                d_next_frame.load(), frames, reinterpret_cast<float*>(llrs), bits);
        } else {
            d_scratch.resize(frames * d_llrs);
            source.generate(d_next_frame.load(), frames, d_scratch.data(), bits);
            copy_llrs(d_scratch.data(), llrs, frames * d_llrs);
        }
        return frames;
    }

    //! Float LLRs to output 0's item type, split over the copy pool when large.
    void copy_llrs(const float* src, uint8_t* dst, size_t n)
    {
        const size_t out_size = d_float_output ? sizeof(float) : sizeof(int8_t);
        auto piece = [&](size_t first, size_t len) {
            if (d_float_output) {
                std::memcpy(dst + first * out_size, src + first, len * sizeof(float));
            } else {
                // Not VOLK's float-to-int8 conversion: it rounds half to even, while
                // quantize_llrs rounds half away from zero, bit-identical with the GPU's.
                ::gpufec::quantize_llrs(src + first,
                                        reinterpret_cast<::gpufec::llr8_t*>(dst) + first,
                                        len,
                                        d_llr_scale);
            }
        };
        parallel_pieces(n, n * sizeof(float), piece);
    }

    void copy_bytes(const uint8_t* src, uint8_t* dst, size_t n)
    {
        parallel_pieces(n, n, [&](size_t first, size_t len) {
            std::memcpy(dst + first, src + first, len);
        });
    }

    //! Runs piece(first, len) over [0, n) in cache-line aligned parts, one per thread.
    template <class Piece>
    void parallel_pieces(size_t n, size_t bytes, const Piece& piece)
    {
        if (bytes < parallel_copy_bytes || !d_copy_pool) {
            if (n) {
                piece(0, n);
            }
            return;
        }
        const size_t parts = 4;
        const size_t step = ((n + parts - 1) / parts + 63) & ~size_t(63);
        d_copy_pool->parallel_for(parts, [&](size_t p, size_t) {
            const size_t first = p * step;
            if (first < n) {
                piece(first, std::min(step, n - first));
            }
        });
    }

    //! Copies up to `max_frames` staged frames out, waiting only for the first one.
    size_t copy_staged(size_t max_frames, uint8_t* llrs, uint8_t* bits)
    {
        if (d_workers.empty()) {
            start_worker(); // work() without start(): cannot happen in a flowgraph
        }
        size_t copied = 0;
        while (copied < max_frames) {
            staged_batch& batch = d_batches[d_read];
            {
                std::unique_lock<std::mutex> lock(d_worker_mutex);
                if (copied > 0 && !batch.ready) {
                    break; // hand over what we have rather than wait
                }
                d_worker_cv.wait(lock, [&] { return batch.ready; });
                if (batch.error) {
                    std::rethrow_exception(batch.error);
                }
            }
            const size_t n = std::min(max_frames - copied, batch.frames - batch.taken);
            if (d_float_output) {
                copy_llrs(batch.llrs.data() + batch.taken * d_llrs,
                          llrs + copied * d_llrs * sizeof(float),
                          n * d_llrs);
            } else { // quantized by the generator thread
                copy_bytes(reinterpret_cast<const uint8_t*>(batch.llrs8.data()) +
                               batch.taken * d_llrs,
                           llrs + copied * d_llrs,
                           n * d_llrs);
            }
            copy_bytes(batch.bits.data() + batch.taken * d_bits,
                       bits + copied * d_bits,
                       n * d_bits);
            copied += n;
            batch.taken += n;
            if (batch.taken == batch.frames) {
                {
                    std::lock_guard<std::mutex> lock(d_worker_mutex);
                    batch.ready = false;
                }
                d_worker_cv.notify_all();
                d_read = (d_read + 1) % d_batches.size();
            }
        }
        return copied;
    }

    void start_worker()
    {
        stop_worker();
        for (auto& batch : d_batches) {
            batch.frames = batch.taken = 0;
            batch.ready = false;
            batch.error = nullptr;
        }
        d_read = 0;
        d_stopping = false;
        // Continue where the output stands, so a restarted flowgraph loses no frame.
        for (size_t g = 0; g < d_generators.size(); ++g) {
            d_workers.emplace_back(
                [this, g, first = d_next_frame.load()] { worker(g, first); });
        }
    }

    void stop_worker()
    {
        if (d_workers.empty()) {
            return;
        }
        {
            std::lock_guard<std::mutex> lock(d_worker_mutex);
            d_stopping = true;
        }
        d_worker_cv.notify_all();
        for (std::thread& t : d_workers) {
            t.join();
        }
        d_workers.clear();
    }

    //! Generator g makes batches g, g + G, g + 2G, ... (G generators) from `first` on,
    //! into ring entries (batch index) % 2G, which work() reads in order.
    void worker(size_t g, uint64_t first)
    {
        const size_t num = d_generators.size();
        for (uint64_t k = g;; k += num) {
            staged_batch& batch = d_batches[k % d_batches.size()];
            const uint64_t next = first + k * d_frames_per_call;
            {
                std::unique_lock<std::mutex> lock(d_worker_mutex);
                d_worker_cv.wait(lock, [&] { return d_stopping || !batch.ready; });
                if (d_stopping) {
                    return;
                }
            }
            std::exception_ptr error;
            try {
                std::lock_guard<std::mutex> lock(d_generator_mutexes[g]);
                d_generators[g]->generate(
                    next, d_frames_per_call, batch.llrs.data(), batch.bits.data());
                if (!d_float_output) {
                    ::gpufec::quantize_llrs(batch.llrs.data(),
                                            batch.llrs8.data(),
                                            batch.llrs8.size(),
                                            d_llr_scale);
                }
            } catch (...) {
                error = std::current_exception();
            }
            {
                std::lock_guard<std::mutex> lock(d_worker_mutex);
                batch.frames = d_frames_per_call;
                batch.taken = 0;
                batch.error = error;
                batch.ready = true;
            }
            d_worker_cv.notify_all();
            if (error) {
                return; // work() rethrows it
            }
        }
    }

    pmt::pmt_t d_len_key;
    const bool d_float_output;
    const float d_llr_scale;
    std::unique_ptr<::gpufec::worker_pool> d_copy_pool; //!< copies out in work()
    std::vector<float> d_scratch; //!< CPU backend, byte output: floats before quantizing
    std::unique_ptr<::gpufec::awgn_bpsk_source> d_source; //!< moved into d_generators
    //! One per generator thread (CUDA; the CPU backend uses the first alone).
    std::vector<std::unique_ptr<::gpufec::awgn_bpsk_source>> d_generators;
    std::unique_ptr<std::mutex[]> d_generator_mutexes; //!< guard d_generators[g]
    std::string d_backend;
    size_t d_llrs = 0;
    size_t d_bits = 0;
    size_t d_frames_per_call = 1;
    bool d_staged = false; //!< generate ahead on a worker thread (CUDA)
    std::atomic<uint64_t> d_next_frame{ 0 };

    std::vector<staged_batch> d_batches; //!< ring of 2 per generator thread
    size_t d_read = 0;                   //!< batch work() copies from
    std::vector<std::thread> d_workers;
    std::mutex d_worker_mutex; //!< guards ready/frames/taken/error, d_stopping
    std::condition_variable d_worker_cv;
    bool d_stopping = false;
};

} // namespace

awgn_bpsk_source::sptr awgn_bpsk_source::make(code::sptr code,
                                              double ebn0_db,
                                              uint64_t seed,
                                              const std::string& backend,
                                              int frames_per_call,
                                              const std::string& len_tag_key,
                                              const std::string& output_type,
                                              double llr_scale)
{
    return gnuradio::make_block_sptr<awgn_bpsk_source_impl>(code,
                                                            ebn0_db,
                                                            seed,
                                                            backend,
                                                            frames_per_call,
                                                            len_tag_key,
                                                            output_type,
                                                            llr_scale);
}

} // namespace gpufec
} // namespace gr
