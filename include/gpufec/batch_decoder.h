/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The one batch contract (DESIGN.md §2): every decoder and detector, on every backend,
// implements it, so the engine and the GNU Radio blocks are written once.
#ifndef INCLUDED_GPUFEC_BATCH_DECODER_H
#define INCLUDED_GPUFEC_BATCH_DECODER_H

#include <gpufec/common.h>
#include <complex>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {

//! What a stage takes per input item.
enum class input_format {
    llr_int8,      //!< one int8 LLR per item (L > 0 means bit 0)
    llr_int4,      //!< two 4-bit LLRs per byte, item 2j in the low nibble, range -7..7
    complex_float, //!< one complex<float> sample per item, plus channel matrices
    //! A producer (a channel source): frames take no input; frame f of a batch is the
    //! frame numbered frame_batch::ids[f], the id given to batch_engine::request_frames.
    none
};

//! What a stage writes per output item.
enum class output_format {
    packed_bits, //!< decoded bits, packed MSB first
    llr_float,   //!< float LLRs (L > 0 means bit 0), e.g. a detector's output
    llr_int8     //!< int8 LLRs (L > 0 means bit 0), e.g. a source's quantized output
};

const char* to_string(input_format format);
const char* to_string(output_format format);

//! Bytes that `items` input items occupy (llr_int4: two per byte, rounded up).
size_t input_bytes(input_format format, size_t items);
//! Bytes of one frame's output of `items` bits/LLRs, padded to 4 bytes.
size_t output_bytes(output_format format, size_t items);

using cfloat = std::complex<float>;

/*!
 * A batch: the frames' inputs back to back, each frame's output at its out_offset.
 * Exactly one input pointer is set, the one of the stage's input_format (in_offset and
 * in_items count items of that format), and one output pointer, that of its
 * output_format. On CUDA backends every data pointer is device memory.
 *
 * The frame table and the status array exist on both sides: `frames` and `status` are
 * host memory; on CUDA backends `device_frames` and `device_status` mirror them (the
 * engine uploads the table and the initial statuses before decode() and copies
 * device_status back after it), so a GPU stage writes device_status and never uploads
 * or downloads the table itself. CPU stages write `status`.
 */
struct frame_batch {
    const llr8_t* in = nullptr;       //!< llr_int8 input
    const uint8_t* in_int4 = nullptr; //!< llr_int4 input (item i: byte i/2, nibble i%2)
    const cfloat* samples = nullptr;  //!< complex_float input: received samples
    //! complex_float input: channel matrices, frame f's at channels + aux_offset.
    const cfloat* channels = nullptr;

    uint8_t* out = nullptr;    //!< packed_bits output, frame f's at out + out_offset
    float* llrs_out = nullptr; //!< llr_float output, frame f's at llrs_out + out_offset/4
    llr8_t* llrs8_out = nullptr; //!< llr_int8 output, frame f's at llrs8_out + out_offset
    //! Side output of stages with side_bytes_per_frame() > 0 (a source's info bits):
    //! frame f's at side_out + f * side_bytes_per_frame(); null otherwise.
    uint8_t* side_out = nullptr;
    //! The callers' ids of the frames (host memory, num_frames of them): a producer's
    //! frame numbers.
    const uint64_t* ids = nullptr;

    const frame_extent* frames = nullptr;
    size_t num_frames = 0;
    frame_status* status = nullptr;
    const frame_extent* device_frames = nullptr; //!< CUDA: device copy of `frames`
    frame_status* device_status = nullptr;       //!< CUDA: written by the stage

    /*!
     * Soft output of packed_bits stages, set only for stages whose has_soft_output() is
     * true and only when the user asked for it (else null): the a-posteriori LLR of
     * every decoded bit, in the units of the int8 input (L > 0 means bit 0), frame f's
     * bit i at soft_out[8 * frames[f].out_offset + i]. Device memory on CUDA backends.
     */
    float* soft_out = nullptr;
};

//! Per-worker scratch of a CPU stage: made by the stage, owned by the engine.
struct scratch {
    virtual ~scratch() = default;
};

/*!
 * Where a batch runs. CUDA: the slot's stream and per-slot workspaces (device and
 * pinned host memory, sized by *_workspace_bytes(), allocated once by the engine).
 * CPU: `parallel_for` spreads independent work items over the engine's workers; worker
 * w owns `worker_scratch(w)`, made once by batch_decoder::make_scratch().
 */
struct exec_ctx {
    void* stream = nullptr; //!< cudaStream_t (CUDA backends)
    int device = -1;
    void* device_workspace = nullptr;
    void* host_workspace = nullptr; //!< pinned (CUDA) or plain (CPU) host memory
    //! Runs body(item, worker) for item in [0, n), worker in [0, workers), on the
    //! engine's threads, and returns when every item is done. One worker runs one item
    //! at a time, so its scratch needs no lock.
    std::function<void(size_t n, const std::function<void(size_t, size_t)>& body)>
        parallel_for;
    size_t workers = 1;
    scratch* const* scratches = nullptr; //!< [workers], null when the stage has none

    //! Worker w's scratch, as the stage's own type.
    template <typename T>
    T& worker_scratch(size_t worker) const
    {
        if (!scratches || worker >= workers || !scratches[worker])
            throw error("exec_ctx: no scratch for worker " + std::to_string(worker) +
                        " (the stage's make_scratch() returned none, or the engine "
                        "did not make it)");
        return static_cast<T&>(*scratches[worker]);
    }
};

//! Sizes a backend needs per slot, for a batch of at most these many frames/items.
struct batch_limits {
    size_t max_frames;
    size_t max_input_items; //!< total input items in a batch
    size_t max_output_bytes;
    bool soft_output = false;  //!< slots also carry 8 * max_output_bytes soft floats
    size_t max_aux_items = 0;  //!< complex_float input: channel-matrix entries per batch
    size_t max_side_bytes = 0; //!< side output bytes per batch
};

//! Input bytes (int8 LLRs) of a decoder's preferred batch at most: the engine holds a
//! ring of slots of that size in pinned host memory and on the device.
constexpr size_t preferred_batch_max_input_bytes = size_t(64) << 20;

/*!
 * One decoder or detector on one backend. The default formats are those of a decoder:
 * int8 LLRs in, packed bits out.
 */
class batch_decoder
{
public:
    virtual ~batch_decoder() = default;

    virtual backend_kind backend() const = 0;
    virtual input_format input() const { return input_format::llr_int8; }
    virtual output_format output() const { return output_format::packed_bits; }
    //! Largest accepted frame, in input items (producers: 0).
    virtual size_t max_input_items_per_frame() const = 0;
    //! Output items (decoded bits, or LLRs for llr_float) of a frame of `input_items`
    //! (producers: of input_items = 0);
    //! throws gpufec::error naming the allowed lengths when no frame has that many.
    virtual size_t output_bits_for_input(size_t input_items) const = 0;
    //! complex_float: channel-matrix entries a frame of `input_items` samples needs.
    virtual size_t aux_items_for_input(size_t /*input_items*/) const { return 0; }
    //! Input items of a full-length (default) frame and its output items.
    virtual size_t default_input_items() const = 0;
    virtual size_t default_output_bits() const = 0;
    //! Bytes of a second, fixed-size output per frame (frame_batch::side_out), e.g. the
    //! info bits a source encoded; 0 for decoders.
    virtual size_t side_bytes_per_frame() const { return 0; }
    //! True when decode() can write frame_batch::soft_out.
    virtual bool has_soft_output() const { return false; }
    //! CUDA device the decoder runs on (-1: CPU decoders, or the current device).
    virtual int device() const { return -1; }
    //! Frames per batch with which the decoder keeps its device busy, 0 for no
    //! preference. A CUDA decoder whose kernel runs a fixed number of frames at once
    //! names a whole number of those rounds: a batch that ends in a part-filled round
    //! leaves SMs idle. At most preferred_batch_max_input_bytes of full-length frames
    //! (or one round). Blocks take it when their max_batch_frames is 0 ("auto").
    virtual size_t preferred_batch_frames() const { return 0; }
    //! Per-slot scratch sizes (bytes), for batches within `limits`.
    virtual size_t device_workspace_bytes(const batch_limits& /*limits*/) const
    {
        return 0;
    }
    virtual size_t host_workspace_bytes(const batch_limits& /*limits*/) const
    {
        return 0;
    }
    //! CPU stages: one scratch per worker thread, made once when the engine starts
    //! (null: the stage needs none). Sized for the largest frame, so decode() allocates
    //! nothing.
    virtual std::unique_ptr<scratch> make_scratch() const { return nullptr; }
    //! CPU: decodes now (using ctx.parallel_for). CUDA: enqueues on ctx.stream, returns.
    virtual void decode(const frame_batch& batch, exec_ctx& ctx) = 0;
    //! Short description for logs, e.g. "viterbi K=7 (171,133) r=1/2 on cuda:0".
    virtual std::string name() const = 0;
};

/*!
 * Runs `body(item, worker)` for every item through ctx.parallel_for, or inline as
 * worker 0 when the context has none (a decoder called outside the engine).
 */
inline void
for_each_item(exec_ctx& ctx, size_t n, const std::function<void(size_t, size_t)>& body)
{
    if (ctx.parallel_for && n > 1) {
        ctx.parallel_for(n, body);
        return;
    }
    for (size_t i = 0; i < n; ++i)
        body(i, 0);
}

/*!
 * An exec_ctx for running a CPU stage outside the engine (tests, tools): `threads`
 * workers (plain threads started per parallel_for call; 1 = the calling thread only),
 * each with a scratch made by the stage.
 */
class standalone_ctx
{
public:
    explicit standalone_ctx(const batch_decoder& stage, size_t threads = 1);
    standalone_ctx(const standalone_ctx&) = delete;
    standalone_ctx& operator=(const standalone_ctx&) = delete;
    exec_ctx& ctx() { return d_ctx; }

private:
    std::vector<std::unique_ptr<scratch>> d_owned;
    std::vector<scratch*> d_scratches;
    exec_ctx d_ctx;
};

//! decode() of a CPU stage on the calling thread, outside the engine.
void decode_on_this_thread(batch_decoder& decoder, const frame_batch& batch);

} // namespace gpufec

#endif
