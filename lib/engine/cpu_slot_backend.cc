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
#include "engine/worker_pool.h"
#include <condition_variable>
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gpufec {

namespace {

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
            if (limits.soft_output)
                s.soft.resize(8 * limits.max_output_bytes);
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
    float* host_soft(int slot) override
    {
        auto& soft = d_slots.at(slot).soft;
        return soft.empty() ? nullptr : soft.data();
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
        std::vector<float> soft; //!< empty unless soft output was asked for
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
                batch.soft_out = s.soft.empty() ? nullptr : s.soft.data();
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
