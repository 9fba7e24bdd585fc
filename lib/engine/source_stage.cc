/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The AWGN/BPSK source as a producer stage of the batch engine (awgn_source.h): the
// engine owns its slots, streams, workers and scratch, so a source block needs no
// threads or staging of its own, and its output can stay on the device.
#include <gpufec/awgn_source.h>
#include <gpufec/batch_decoder.h>
#include <gpufec/common.h>
#include <limits>
#include <string>
#include <vector>

namespace gpufec {

namespace {

struct frame_scratch final : scratch {
    explicit frame_scratch(size_t bytes) : bytes(bytes) {}
    std::vector<uint8_t> bytes;
};

class source_stage final : public batch_decoder
{
public:
    source_stage(std::shared_ptr<awgn_bpsk_source> source, float int8_scale)
        : d_source(std::move(source)),
          d_llrs(d_source->llrs_per_frame()),
          d_bits(d_source->bits_per_frame()),
          d_int8_scale(int8_scale)
    {
        if (!(int8_scale >= 0.0f) || int8_scale == std::numeric_limits<float>::infinity())
            throw error("make_source_stage: int8_scale = " + std::to_string(int8_scale) +
                        "; allowed: 0 (float output) or a finite scale > 0");
    }

    backend_kind backend() const override { return d_source->backend(); }
    input_format input() const override { return input_format::none; }
    output_format output() const override
    {
        return d_int8_scale > 0.0f ? output_format::llr_int8 : output_format::llr_float;
    }
    size_t max_input_items_per_frame() const override { return 0; }
    size_t output_bits_for_input(size_t input_items) const override
    {
        if (input_items != 0)
            throw error(name() + ": a producer's frames take no input (0 items), got " +
                        std::to_string(input_items));
        return d_llrs;
    }
    size_t default_input_items() const override { return 0; }
    size_t default_output_bits() const override { return d_llrs; }
    size_t side_bytes_per_frame() const override { return d_bits; }
    int device() const override { return d_source->device(); }

    //! CUDA int8 output: the batch's float LLRs before they are quantized.
    size_t device_workspace_bytes(const batch_limits& limits) const override
    {
        const bool cuda_int8 =
            d_source->backend() != backend_kind::cpu && d_int8_scale > 0.0f;
        return cuda_int8 ? limits.max_frames * d_llrs * sizeof(float) : 0;
    }

    std::unique_ptr<scratch> make_scratch() const override
    {
        // int8 output: the frame's float LLRs first (4-byte aligned), then the source's.
        const size_t bytes =
            d_source->frame_scratch_bytes() + (d_int8_scale > 0.0f ? 4 * d_llrs : 0);
        if (d_source->backend() != backend_kind::cpu || bytes == 0)
            return nullptr;
        return std::make_unique<frame_scratch>(bytes);
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        if (!batch.ids)
            throw error(name() + ": the batch carries no frame numbers (ids)");
        if (d_source->backend() == backend_kind::cpu) {
            const bool has_scratch = d_source->frame_scratch_bytes() > 0;
            const bool int8 = d_int8_scale > 0.0f;
            for_each_item(ctx, batch.num_frames, [&](size_t f, size_t worker) {
                uint8_t* work =
                    has_scratch || int8
                        ? ctx.worker_scratch<frame_scratch>(worker).bytes.data()
                        : nullptr;
                // int8: quantized by the worker while the frame is in its cache, so the
                // batch is a quarter of the bytes and needs no second pass.
                float* llrs = int8 ? reinterpret_cast<float*>(work)
                                   : batch.llrs_out + batch.frames[f].out_offset / 4;
                d_source->generate_frame(
                    batch.ids[f],
                    llrs,
                    batch.side_out ? batch.side_out + f * d_bits : nullptr,
                    has_scratch ? work + (int8 ? 4 * d_llrs : 0) : nullptr);
                if (int8)
                    quantize_llrs(llrs,
                                  batch.llrs8_out + batch.frames[f].out_offset,
                                  d_llrs,
                                  d_int8_scale);
            });
            return;
        }
        // One kernel per run of consecutive frame numbers whose outputs lie at equal
        // strides (the engine's request_frames() makes one run per batch). int8: the
        // frames are made as floats in the slot's device workspace, then quantized on
        // the device into the slot (frames padded to 4 bytes, output_bytes()).
        const bool int8 = d_int8_scale > 0.0f;
        const size_t stride = output_bytes(output(), d_llrs);
        if (int8 && !ctx.device_workspace)
            throw error(name() + ": int8 output needs the slot's device workspace");
        for (size_t first = 0; first < batch.num_frames;) {
            size_t end = first + 1;
            while (end < batch.num_frames && batch.ids[end] == batch.ids[end - 1] + 1 &&
                   batch.frames[end].out_offset ==
                       batch.frames[end - 1].out_offset + stride)
                ++end;
            uint8_t* bits = batch.side_out ? batch.side_out + first * d_bits : nullptr;
            if (int8)
                d_source->generate_device_int8(
                    batch.ids[first],
                    end - first,
                    batch.llrs8_out + batch.frames[first].out_offset,
                    stride,
                    d_int8_scale,
                    bits,
                    static_cast<float*>(ctx.device_workspace) + first * d_llrs,
                    ctx.stream);
            else
                d_source->generate_device(batch.ids[first],
                                          end - first,
                                          batch.llrs_out +
                                              batch.frames[first].out_offset / 4,
                                          bits,
                                          ctx.stream);
            first = end;
        }
    }

    std::string name() const override
    {
        const std::string where = d_source->backend() == backend_kind::cpu
                                      ? std::string("cpu")
                                      : "cuda:" + std::to_string(d_source->device());
        return "awgn_bpsk_source (" + std::to_string(d_bits) + " bits -> " +
               std::to_string(d_llrs) + " LLRs per frame) on " + where;
    }

private:
    std::shared_ptr<awgn_bpsk_source> d_source;
    const size_t d_llrs;
    const size_t d_bits;
    const float d_int8_scale; //!< > 0: llr_int8 output, quantized with this scale
};

} // namespace

std::shared_ptr<batch_decoder> make_source_stage(std::shared_ptr<awgn_bpsk_source> source,
                                                 float int8_scale)
{
    if (!source)
        throw error("make_source_stage: source is a null pointer");
    return std::make_shared<source_stage>(std::move(source), int8_scale);
}

} // namespace gpufec
