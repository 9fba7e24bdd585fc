/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU slot backend: plain host staging per slot and a small thread pool. One dispatcher
// thread decodes launched slots in launch order (so a decoder object never runs two
// batches at once); inside a batch, exec_ctx::parallel_for spreads work items over the
// dispatcher and the helper threads.
#include "engine/slot_backend.h"
#include <condition_variable>
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gpufec {

namespace {

//! True while this thread runs a parallel_for body: nested calls then run inline, which
//! can never wait on threads that are busy waiting for us.
thread_local bool t_in_parallel_body = false;

class worker_pool
{
public:
    //! `threads` workers in all: the caller of parallel_for plus threads-1 helpers.
    explicit worker_pool(int threads)
    {
        for (int i = 1; i < threads; ++i)
            d_helpers.emplace_back([this] { helper_loop(); });
    }

    ~worker_pool()
    {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_stopping = true;
        }
        d_work_cv.notify_all();
        for (std::thread& t : d_helpers)
            t.join();
    }

    worker_pool(const worker_pool&) = delete;
    worker_pool& operator=(const worker_pool&) = delete;

    void parallel_for(size_t n, const std::function<void(size_t)>& body)
    {
        if (n == 0)
            return;
        if (t_in_parallel_body || d_helpers.empty() || n == 1) {
            run_inline(n, body);
            return;
        }
        // One top-level job at a time; callers from other threads queue up here.
        std::lock_guard<std::mutex> caller_lock(d_caller_mutex);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_body = &body;
            d_n = n;
            d_next.store(0);
            d_error = nullptr;
            d_job_active = true;
            ++d_generation;
        }
        d_work_cv.notify_all();
        run_job(body, n); // the caller participates, so progress never depends on helpers

        std::exception_ptr err;
        {
            std::unique_lock<std::mutex> lock(d_mutex);
            d_done_cv.wait(lock, [this] { return d_job_workers == 0; });
            d_job_active = false;
            d_body = nullptr;
            err = d_error;
            d_error = nullptr;
        }
        if (err)
            std::rethrow_exception(err);
    }

private:
    static void run_inline(size_t n, const std::function<void(size_t)>& body)
    {
        const bool outer = t_in_parallel_body;
        t_in_parallel_body = true;
        try {
            for (size_t i = 0; i < n; ++i)
                body(i);
        } catch (...) {
            t_in_parallel_body = outer;
            throw;
        }
        t_in_parallel_body = outer;
    }

    void run_job(const std::function<void(size_t)>& body, size_t n)
    {
        const bool outer = t_in_parallel_body;
        t_in_parallel_body = true;
        for (;;) {
            const size_t i = d_next.fetch_add(1);
            if (i >= n)
                break;
            try {
                body(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(d_mutex);
                if (!d_error)
                    d_error = std::current_exception();
                d_next.store(n); // hand out no further items
            }
        }
        t_in_parallel_body = outer;
    }

    void helper_loop()
    {
        std::unique_lock<std::mutex> lock(d_mutex);
        uint64_t seen = 0;
        for (;;) {
            d_work_cv.wait(lock, [&] {
                return d_stopping || (d_job_active && d_generation != seen);
            });
            if (d_stopping)
                return;
            seen = d_generation;
            const std::function<void(size_t)>* body = d_body;
            const size_t n = d_n;
            ++d_job_workers;
            lock.unlock();
            run_job(*body, n);
            lock.lock();
            if (--d_job_workers == 0)
                d_done_cv.notify_all();
        }
    }

    std::vector<std::thread> d_helpers;
    std::mutex d_caller_mutex;
    std::mutex d_mutex;
    std::condition_variable d_work_cv;
    std::condition_variable d_done_cv;
    const std::function<void(size_t)>* d_body = nullptr;
    size_t d_n = 0;
    std::atomic<size_t> d_next{ 0 };
    std::exception_ptr d_error;
    bool d_job_active = false;
    uint64_t d_generation = 0;
    int d_job_workers = 0;
    bool d_stopping = false;
};

class cpu_slot_backend : public slot_backend
{
public:
    cpu_slot_backend(std::shared_ptr<batch_decoder> decoder,
                     const batch_limits& limits,
                     int num_slots,
                     int threads)
        : d_decoder(std::move(decoder)), d_pool(threads), d_slots(size_t(num_slots))
    {
        const size_t workspace = d_decoder->host_workspace_bytes(limits);
        for (slot& s : d_slots) {
            s.input.resize(limits.max_input_items);
            s.output.resize(limits.max_output_bytes);
            s.frames.resize(limits.max_frames);
            s.status.resize(limits.max_frames);
            s.workspace.resize(workspace);
            s.ctx.host_workspace = workspace ? s.workspace.data() : nullptr;
            s.ctx.parallel_for = [this](size_t n,
                                        const std::function<void(size_t)>& body) {
                d_pool.parallel_for(n, body);
            };
        }
        d_queue.resize(size_t(num_slots));
        d_dispatcher = std::thread([this] { dispatch_loop(); });
    }

    ~cpu_slot_backend() override
    {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_stopping = true;
        }
        d_queue_cv.notify_all();
        d_dispatcher.join(); // finishes the slots already launched: their memory is ours
    }

    llr8_t* host_input(int slot) override { return d_slots.at(slot).input.data(); }
    uint8_t* host_output(int slot) override { return d_slots.at(slot).output.data(); }
    frame_extent* host_frames(int slot) override
    {
        return d_slots.at(slot).frames.data();
    }
    frame_status* host_status(int slot) override
    {
        return d_slots.at(slot).status.data();
    }

    void launch(int index, size_t num_frames, size_t, size_t) override
    {
        slot& s = d_slots.at(index);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            if (s.state == run_state::queued)
                throw error("cpu slot backend: slot launched while still in flight");
            s.state = run_state::queued;
            s.error = nullptr;
            s.num_frames = num_frames;
            d_queue[(d_queue_head + d_queue_count) % d_queue.size()] = index;
            ++d_queue_count;
        }
        d_queue_cv.notify_one();
    }

    bool done(int index) override
    {
        slot& s = d_slots.at(index);
        std::lock_guard<std::mutex> lock(d_mutex);
        if (s.state == run_state::queued)
            return false;
        if (s.error)
            std::rethrow_exception(s.error);
        return true;
    }

    void wait(int index) override
    {
        slot& s = d_slots.at(index);
        std::unique_lock<std::mutex> lock(d_mutex);
        d_done_cv.wait(lock, [&] { return s.state != run_state::queued; });
        if (s.error)
            std::rethrow_exception(s.error);
    }

private:
    enum class run_state { idle, queued, complete };

    struct slot {
        std::vector<llr8_t> input;
        std::vector<uint8_t> output;
        std::vector<frame_extent> frames;
        std::vector<frame_status> status;
        std::vector<uint8_t> workspace;
        exec_ctx ctx;
        size_t num_frames = 0;
        run_state state = run_state::idle;
        std::exception_ptr error;
    };

    void dispatch_loop()
    {
        std::unique_lock<std::mutex> lock(d_mutex);
        for (;;) {
            d_queue_cv.wait(lock, [this] { return d_stopping || d_queue_count > 0; });
            if (d_queue_count == 0)
                return; // stopping, nothing left
            const int index = d_queue[d_queue_head];
            d_queue_head = (d_queue_head + 1) % d_queue.size();
            --d_queue_count;
            slot& s = d_slots[size_t(index)];
            lock.unlock();

            std::exception_ptr err;
            try {
                frame_batch batch;
                batch.in = s.input.data();
                batch.out = s.output.data();
                batch.frames = s.frames.data();
                batch.num_frames = s.num_frames;
                batch.status = s.status.data();
                d_decoder->decode(batch, s.ctx);
            } catch (...) {
                err = std::current_exception();
            }

            lock.lock();
            s.error = err;
            s.state = run_state::complete;
            d_done_cv.notify_all();
        }
    }

    std::shared_ptr<batch_decoder> d_decoder;
    worker_pool d_pool;
    std::vector<slot> d_slots;

    std::mutex d_mutex; //!< guards slot states, errors and the launch queue
    std::condition_variable d_queue_cv;
    std::condition_variable d_done_cv;
    std::vector<int> d_queue; //!< ring of launched slots, capacity num_slots
    size_t d_queue_head = 0;
    size_t d_queue_count = 0;
    bool d_stopping = false;
    std::thread d_dispatcher;
};

} // namespace

std::unique_ptr<slot_backend>
make_cpu_slot_backend(std::shared_ptr<batch_decoder> decoder,
                      const batch_limits& limits,
                      int num_slots,
                      int threads)
{
    if (!decoder)
        throw error("cpu slot backend needs a decoder (got a null pointer)");
    if (num_slots < 1)
        throw error("cpu slot backend: num_slots must be >= 1, got " +
                    std::to_string(num_slots));
    if (threads < 0)
        throw error(
            "cpu slot backend: threads must be >= 0 (0 = hardware threads), got " +
            std::to_string(threads));
    if (threads == 0)
        threads = int(std::max(1u, std::thread::hardware_concurrency()));
    return std::make_unique<cpu_slot_backend>(
        std::move(decoder), limits, num_slots, threads);
}

} // namespace gpufec
