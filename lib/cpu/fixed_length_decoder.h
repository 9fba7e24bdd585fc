/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the batch_decoder plumbing shared by CPU decoders of block codes with one
// frame length (LDPC, polar): e LLRs in, k bits out, frames decoded in parallel.
#ifndef INCLUDED_GPUFEC_FIXED_LENGTH_DECODER_H
#define INCLUDED_GPUFEC_FIXED_LENGTH_DECODER_H

#include <gpufec/batch_decoder.h>
#include <string>
#include <vector>

namespace gpufec {

class fixed_length_cpu_decoder : public batch_decoder
{
public:
    //! `family` names the decoder in error messages ("ldpc", "polar").
    fixed_length_cpu_decoder(std::string family, size_t e, size_t k)
        : d_family(std::move(family)), d_e(e), d_k(k)
    {
    }

    backend_kind backend() const override { return backend_kind::cpu; }
    input_format input() const override
    {
        return d_int4_step ? input_format::llr_int4 : input_format::llr_int8;
    }
    size_t max_input_items_per_frame() const override { return d_e; }
    size_t default_input_items() const override { return d_e; }
    size_t default_output_bits() const override { return d_k; }
    size_t output_bits_for_input(size_t input_items) const override
    {
        if (input_items != d_e)
            throw error(
                d_family + " decoder: a frame of " + std::to_string(input_items) +
                " LLRs does not match the code; allowed: e = " + std::to_string(d_e));
        return d_k;
    }

    //! Decodes one frame of e LLRs into k packed bits (MSB first) and, when `soft` is not
    //! null, the k a-posteriori LLRs (see frame_batch::soft_out). Called concurrently
    //! from several threads; `worker`'s scratch is ctx.worker_scratch<T>(worker). Public
    //! so that a decoder can run another's frames (polar code blocks).
    virtual frame_status decode_one(const llr8_t* llrs,
                                    uint8_t* packed,
                                    float* soft,
                                    const exec_ctx& ctx,
                                    size_t worker) = 0;

    //! Checks every frame's lengths, then decodes the frames through ctx.parallel_for.
    void decode(const frame_batch& batch, exec_ctx& ctx) final
    {
        for (size_t f = 0; f < batch.num_frames; f++) {
            const frame_extent& fe = batch.frames[f];
            output_bits_for_input(fe.in_items);
            if (fe.out_bits != d_k)
                throw error(d_family + " decoder: frame " + std::to_string(f) +
                            " has out_bits = " + std::to_string(fe.out_bits) +
                            "; allowed: k = " + std::to_string(d_k));
        }
        for_each_item(ctx, batch.num_frames, [&](size_t f, size_t worker) {
            const frame_extent& fe = batch.frames[f];
            const llr8_t* in = batch.in ? batch.in + fe.in_offset : nullptr;
            if (d_int4_step) {
                // 4-bit input: unpacked to int8 (value * step) in a per-thread buffer
                // that grows once.
                thread_local std::vector<llr8_t> unpacked;
                unpacked.resize(d_e);
                for (size_t i = 0; i < d_e; i++)
                    unpacked[i] = static_cast<llr8_t>(
                        d_int4_step * llr_int4_at(batch.in_int4, fe.in_offset + i));
                in = unpacked.data();
            }
            const frame_status st =
                decode_one(in,
                           batch.out + fe.out_offset,
                           batch.soft_out ? batch.soft_out + 8 * fe.out_offset : nullptr,
                           ctx,
                           worker);
            if (batch.status)
                batch.status[f] = st;
        });
    }

protected:
    //! Takes llr_int4 input from now on, each 4-bit value v decoded as the int8 LLR
    //! step * v (0: int8 input).
    void set_int4_input_step(int step) { d_int4_step = step; }

private:
    std::string d_family;
    size_t d_e, d_k;
    int d_int4_step = 0;
};

} // namespace gpufec

#endif
