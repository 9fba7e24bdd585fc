/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: a small fork-join pool (the caller participates) used by the CPU slot
// backend for decoding and by the engine for copying frames into slots.
#ifndef INCLUDED_GPUFEC_WORKER_POOL_H
#define INCLUDED_GPUFEC_WORKER_POOL_H

#include <condition_variable>
#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpufec {

//! True while this thread runs a parallel_for body: nested calls then run inline, which
//! can never wait on threads that are busy waiting for us.
inline thread_local bool t_in_parallel_body = false;
//! The worker index of this thread inside the body it runs (nested calls keep it).
inline thread_local size_t t_worker_index = 0;

class worker_pool
{
public:
    //! `threads` workers in all: the caller of parallel_for plus threads-1 helpers.
    explicit worker_pool(int threads)
    {
        for (int i = 1; i < threads; ++i)
            d_helpers.emplace_back([this, i] { helper_loop(size_t(i)); });
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

    using body_fn = std::function<void(size_t item, size_t worker)>;

    //! Workers: the caller (worker 0) and the helper threads (1..workers()-1).
    size_t workers() const { return d_helpers.size() + 1; }

    //! Runs body(item, worker) for every item; returns when all are done.
    void parallel_for(size_t n, const body_fn& body)
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
        run_job(body, n, 0); // the caller participates: progress never depends on helpers

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
    static void run_inline(size_t n, const body_fn& body)
    {
        const bool outer = t_in_parallel_body;
        // Top level: this thread is worker 0; nested: it stays the worker it is.
        const size_t worker = outer ? t_worker_index : 0;
        t_in_parallel_body = true;
        try {
            for (size_t i = 0; i < n; ++i)
                body(i, worker);
        } catch (...) {
            t_in_parallel_body = outer;
            throw;
        }
        t_in_parallel_body = outer;
    }

    void run_job(const body_fn& body, size_t n, size_t worker)
    {
        const bool outer = t_in_parallel_body;
        const size_t outer_worker = t_worker_index;
        t_in_parallel_body = true;
        t_worker_index = worker;
        for (;;) {
            const size_t i = d_next.fetch_add(1);
            if (i >= n)
                break;
            try {
                body(i, worker);
            } catch (...) {
                std::lock_guard<std::mutex> lock(d_mutex);
                if (!d_error)
                    d_error = std::current_exception();
                d_next.store(n); // hand out no further items
            }
        }
        t_in_parallel_body = outer;
        t_worker_index = outer_worker;
    }

    void helper_loop(size_t worker)
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
            const body_fn* body = d_body;
            const size_t n = d_n;
            ++d_job_workers;
            lock.unlock();
            run_job(*body, n, worker);
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
    const body_fn* d_body = nullptr;
    size_t d_n = 0;
    std::atomic<size_t> d_next{ 0 };
    std::exception_ptr d_error;
    bool d_job_active = false;
    uint64_t d_generation = 0;
    int d_job_workers = 0;
    bool d_stopping = false;
};

} // namespace gpufec

#endif
