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
        // One scratch per worker, shared by the slots: the dispatcher runs one batch at
        // a time, and inside it one worker runs one item at a time.
        for (size_t w = 0; w < d_pool.workers(); ++w) {
            std::unique_ptr<scratch> made = d_decoder->make_scratch();
            if (!made)
                break;
            d_scratch_owner.push_back(std::move(made));
            d_scratches.push_back(d_scratch_owner.back().get());
        }
        for (slot& s : d_slots) {
            s.input.resize(input_bytes(d_decoder->input(), limits.max_input_items));
            s.aux.resize(limits.max_aux_items);
            s.output.resize(limits.max_output_bytes);
            if (limits.soft_output)
                s.soft.resize(8 * limits.max_output_bytes);
            s.side.resize(limits.max_side_bytes);
            s.frames.resize(limits.max_frames);
            s.status.resize(limits.max_frames);
            s.workspace.resize(workspace);
            s.ctx.host_workspace = workspace ? s.workspace.data() : nullptr;
            s.ctx.parallel_for = [this](size_t n, const worker_pool::body_fn& body) {
                d_pool.parallel_for(n, body);
            };
            s.ctx.workers = d_pool.workers();
            s.ctx.scratches = d_scratches.empty() ? nullptr : d_scratches.data();
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

    uint8_t* host_input(int slot) override { return d_slots.at(slot).input.data(); }
    cfloat* host_aux(int slot) override
    {
        auto& aux = d_slots.at(slot).aux;
        return aux.empty() ? nullptr : aux.data();
    }
    void stage_device_input(int, size_t, const void*, size_t, bool, float, bool) override
    {
        throw error("cpu slot backend: input_side = device needs a CUDA stage");
    }
    void stage_device_aux(int, size_t, const cfloat*, size_t) override
    {
        throw error("cpu slot backend: input_side = device needs a CUDA stage");
    }
    uint8_t* host_output(int slot) override { return d_slots.at(slot).output.data(); }
    uint8_t* host_side(int slot) override
    {
        auto& side = d_slots.at(slot).side;
        return side.empty() ? nullptr : side.data();
    }
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

    void launch(int index, const slot_launch& what) override
    {
        const size_t num_frames = what.num_frames;
        slot& s = d_slots.at(index);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            if (s.state == run_state::queued)
                throw error("cpu slot backend: slot launched while still in flight");
            s.state = run_state::queued;
            s.error = nullptr;
            s.num_frames = num_frames;
            s.ids = what.ids;
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
        std::vector<uint8_t> input; //!< in the stage's input format
        std::vector<cfloat> aux;    //!< channel matrices (complex_float input)
        std::vector<uint8_t> output;
        std::vector<float> soft;       //!< empty unless soft output was asked for
        std::vector<uint8_t> side;     //!< empty unless the stage has a side output
        const uint64_t* ids = nullptr; //!< the engine's, stable while in flight
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
                set_batch_io(
                    batch, *d_decoder, s.input.data(), host_aux(index), s.output.data());
                batch.frames = s.frames.data();
                batch.num_frames = s.num_frames;
                batch.status = s.status.data();
                batch.soft_out = s.soft.empty() ? nullptr : s.soft.data();
                batch.side_out = s.side.empty() ? nullptr : s.side.data();
                batch.ids = s.ids;
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
    std::vector<std::unique_ptr<scratch>> d_scratch_owner;
    std::vector<scratch*> d_scratches; //!< [worker], empty when the stage has none
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
