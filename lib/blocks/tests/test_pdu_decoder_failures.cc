/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The PDU decoder template when a batch fails (as a CUDA error would make it): every
// PDU is either published or counted as dropped, in order, frames decoded after the
// failure go out without waiting for another PDU, and an exception of any type is
// logged, never left to end the block's thread. A decoder that fails on a marked frame
// stands in for the GPU; messages are handed to the block as the scheduler does.
#include "batched_pdu_decoder_impl.h"

#include <gnuradio/blocks/message_debug.h>
#include <gnuradio/gpufec/ldpc_decoder_pdu.h>
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace gr {
namespace gpufec {
namespace {

constexpr int8_t fail_gpufec = 100; //!< first LLR of a frame whose batch throws
constexpr int8_t fail_other = 101;  //!< ... throws std::runtime_error

//! Frames of 16 LLRs -> 8 hard decisions; a marked frame makes its batch throw.
class failing_decoder : public ::gpufec::batch_decoder
{
public:
    ::gpufec::backend_kind backend() const override
    {
        return ::gpufec::backend_kind::cpu;
    }
    size_t max_input_items_per_frame() const override { return 16; }
    size_t output_bits_for_input(size_t items) const override
    {
        if (items != 16)
            throw ::gpufec::error("failing_decoder: frames of 16 LLRs");
        return 8;
    }
    size_t default_input_items() const override { return 16; }
    size_t default_output_bits() const override { return 8; }
    std::string name() const override { return "failing decoder"; }
    void decode(const ::gpufec::frame_batch& batch, ::gpufec::exec_ctx&) override
    {
        for (size_t f = 0; f < batch.num_frames; ++f) {
            const ::gpufec::llr8_t* in = batch.in + batch.frames[f].in_offset;
            if (in[0] == fail_gpufec)
                throw ::gpufec::error("injected decoder failure");
            if (in[0] == fail_other)
                throw std::runtime_error("injected failure of another type");
            uint8_t byte = 0;
            for (int i = 0; i < 8; ++i)
                byte = uint8_t(byte << 1) | (in[i] < 0);
            batch.out[batch.frames[f].out_offset] = byte;
            batch.status[f] = ::gpufec::frame_status{};
        }
    }
};

//! The template with the failing decoder; deliver() hands over the oldest queued
//! message as the scheduler's message thread does.
class test_block : public batched_pdu_decoder_impl<ldpc_decoder_pdu>
{
public:
    explicit test_block(const batched_options& options)
        : gr::block("test_pdu",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make(0, 0, 0)),
          batched_pdu_decoder_impl<ldpc_decoder_pdu>(
              "test_pdu",
              [](const std::string&) { return std::make_unique<failing_decoder>(); },
              options)
    {
    }
    void deliver()
    {
        const pmt::pmt_t port = pmt::mp("in");
        dispatch_msg(port, delete_head_nowait(port));
    }
};

struct fixture {
    std::shared_ptr<test_block> block;
    blocks::message_debug::sptr sink = blocks::message_debug::make();

    fixture()
    {
        batched_options options;
        options.backend = "cpu";
        options.max_batch_frames = 1; // a batch per PDU: the slots fill up at once
        options.soft_convention = "llr";
        block = gnuradio::make_block_sptr<test_block>(options);
        block->message_port_sub(pmt::mp("out"),
                                pmt::cons(sink->alias_pmt(), pmt::mp("store")));
    }
    void post(long seq, int8_t first_llr)
    {
        std::vector<int8_t> llrs(16, 5);
        llrs[0] = first_llr;
        block->_post(pmt::mp("in"),
                     pmt::cons(pmt::dict_add(
                                   pmt::make_dict(), pmt::mp("seq"), pmt::from_long(seq)),
                               pmt::init_s8vector(llrs.size(), llrs)));
    }
    //! The seq numbers of the PDUs published so far (queued at the sink: no scheduler
    //! runs its handler).
    std::vector<long> published()
    {
        const pmt::pmt_t port = pmt::mp("store");
        while (pmt::pmt_t msg = sink->delete_head_nowait(port))
            d_seqs.push_back(
                pmt::to_long(pmt::dict_ref(pmt::car(msg), pmt::mp("seq"), pmt::PMT_NIL)));
        return d_seqs;
    }
    std::vector<long> d_seqs;
};

TEST(PduDecoderFailures, QueuedPdusBehindAFailedBatchAreAllAccountedFor)
{
    // Four PDUs at once; the first fails and the fourth waits for a slot (the engine
    // has fewer): the wait meets the failure, and the fourth must still go out.
    fixture f;
    for (int i = 0; i < 4; ++i)
        f.post(i, i == 0 ? fail_gpufec : 1);
    for (int i = 0; i < 4; ++i)
        f.block->deliver();
    f.block->stop();
    EXPECT_EQ(f.block->dropped_frames(), 1u);
    EXPECT_EQ(f.block->decoded_frames(), 3u);
    EXPECT_EQ(f.published(), (std::vector<long>{ 1, 2, 3 }));
}

TEST(PduDecoderFailures, FramesAfterAFailureGoOutWithoutANextPdu)
{
    fixture f;
    f.post(0, fail_gpufec);
    f.post(1, 1);
    f.block->deliver(); // queue not empty yet: #0 stays in flight
    // Let #0's batch fail first (it takes microseconds), so that the failure meets the
    // publishing after #1 rather than the final wait.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    f.block->deliver(); // queue empty: everything pending is published
    EXPECT_EQ(f.published(), (std::vector<long>{ 1 }));
    EXPECT_EQ(f.block->dropped_frames(), 1u);
    EXPECT_EQ(f.block->decoded_frames(), 1u);
}

TEST(PduDecoderFailures, AnExceptionOfAnyTypeIsLoggedAndTheBlockGoesOn)
{
    fixture f;
    f.post(0, fail_other);
    EXPECT_NO_THROW(f.block->deliver());
    f.post(1, 1);
    f.post(2, fail_other);
    f.post(3, 1);
    for (int i = 0; i < 3; ++i)
        EXPECT_NO_THROW(f.block->deliver());
    f.block->stop();
    EXPECT_EQ(f.published(), (std::vector<long>{ 1, 3 }));
    EXPECT_EQ(f.block->dropped_frames(), 2u);
    EXPECT_EQ(f.block->decoded_frames(), 2u);
}

} // namespace
} // namespace gpufec
} // namespace gr
