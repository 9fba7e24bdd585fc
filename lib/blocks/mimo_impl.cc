/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The MIMO blocks (issue 10): the detector (stream and PDU forms) on the batch engine,
// and the channel source. Frames of the detector stage are coherence blocks: their
// channel matrix and noise variance travel with them as aux entries
// (mimo_detector_options::noise_var_per_frame), so a noise variance from a tag or a
// stream reaches exactly the blocks it belongs to, on either backend.
#include "batched_common.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/gpufec/mimo_channel_source.h>
#include <gnuradio/gpufec/mimo_detector.h>
#include <gnuradio/gpufec/mimo_detector_pdu.h>
#include <gnuradio/io_signature.h>
#include <gpufec/mimo_channel.h>
#include <gpufec/mimo_detection.h>
#include <gpufec/philox.h>
#include <volk/volk.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <deque>
#include <vector>

namespace gr {
namespace gpufec {
namespace {

//! A core error as the block raises it: the block's name first, unless the core's
//! message already names the MIMO channel source.
std::string source_error(const std::string& what)
{
    return what.rfind("mimo channel", 0) == 0 ? what : "mimo_channel_source: " + what;
}

using ::gpufec::cfloat;

::gpufec::mimo_setup
parse_setup(const std::string& who, int nt, int nr, const std::string& mod, int coherence)
{
    ::gpufec::mimo_setup s;
    s.nt = nt;
    s.nr = nr;
    s.coherence = coherence;
    try {
        s.mod = ::gpufec::parse_modulation(mod);
    } catch (const ::gpufec::error& e) {
        throw ::gpufec::error(who + ": " + e.what());
    }
    return s;
}

double checked_noise_var(const std::string& who, double noise_var)
{
    if (!(noise_var > 0.0) || !std::isfinite(noise_var))
        throw ::gpufec::error(who + ": noise_var = " + std::to_string(noise_var) +
                              "; allowed: a finite value > 0");
    return noise_var;
}

//! The detector stage of a block: the noise variance travels with every frame.
decoder_factory detector_factory(const std::string& who,
                                 const ::gpufec::mimo_setup& setup,
                                 const std::string& algorithm,
                                 double noise_var,
                                 int kbest_k)
{
    ::gpufec::mimo_detector_options o;
    try {
        o.algorithm = ::gpufec::parse_mimo_algorithm(algorithm);
    } catch (const ::gpufec::error& e) {
        throw ::gpufec::error(who + ": " + e.what());
    }
    o.noise_var = static_cast<float>(checked_noise_var(who, noise_var));
    o.kbest_k = kbest_k;
    o.noise_var_per_frame = true;
    return registry_factory(setup, o);
}

batched_options detector_engine_options(const std::string& backend,
                                        int max_batch_frames,
                                        const std::string& soft_convention)
{
    batched_options o;
    o.backend = backend;
    o.max_batch_frames = max_batch_frames;
    o.soft_convention = soft_convention;
    return o;
}

//! "float" -> true, "byte" -> false (int8 LLRs).
bool parse_llr_output_type(const std::string& who, const std::string& type)
{
    if (type == "float" || type == "f32")
        return true;
    if (type == "byte" || type == "int8" || type == "s8")
        return false;
    throw ::gpufec::error(who + ": output_type \"" + type +
                          "\" unknown; allowed: \"float\", \"byte\" (int8 LLRs)");
}

//! Bytes of one output vector: nt * bits per symbol LLRs of the output type.
int llr_item_size(const std::string& who,
                  int nt,
                  const std::string& modulation,
                  const std::string& output_type)
{
    const auto s = parse_setup(who, std::max(nt, 1), 1, modulation, 1);
    const int bits = ::gpufec::constellation(s.mod).bits_per_symbol();
    return std::max(nt, 1) * bits *
           (parse_llr_output_type(who, output_type) ? static_cast<int>(sizeof(float))
                                                    : 1);
}

const pmt::pmt_t& noise_var_key()
{
    static const pmt::pmt_t key = pmt::intern("noise_var");
    return key;
}

//! The entries + 1 aux entries of one frame at `aux`: its channel matrix, then its
//! noise variance (the detector stage's noise_var_per_frame layout).
void stage_aux(cfloat* aux, const cfloat* h, size_t entries, double nv)
{
    std::copy(h, h + entries, aux);
    aux[entries] = cfloat(static_cast<float>(nv), 0.0f);
}

// ---------------------------------------------------------------------------------

/*!
 * Stream form. Every frame is one coherence block (coherence vectors of input 0, one
 * matrix of input 1, one value of input 2), so output room is counted in whole
 * blocks and a finished frame never needs a stash: it stays in the engine until the
 * output has room. Policy per call: pop finished blocks into the output; submit the
 * whole blocks of the input while slots are free (popping the oldest into the output
 * when every slot is busy and there is room); pop again; launch a partial slot when
 * the input is drained and no batch is in flight or its oldest block waited 10 ms;
 * if nothing came out while blocks are pending, wait for the oldest.
 */
class mimo_detector_impl : public mimo_detector
{
public:
    mimo_detector_impl(int nt,
                       int nr,
                       const std::string& modulation,
                       const std::string& algorithm,
                       const std::string& backend,
                       int coherence,
                       double noise_var,
                       bool noise_var_input,
                       const std::string& output_type,
                       double llr_scale,
                       const std::string& soft_convention,
                       int kbest_k,
                       int max_batch_frames)
        : gr::block(
              "mimo_detector",
              gr::io_signature::makev(
                  noise_var_input ? 3 : 2,
                  noise_var_input ? 3 : 2,
                  { static_cast<int>(std::max(nr, 1) * sizeof(gr_complex)),
                    static_cast<int>(std::max(nr * nt, 1) * sizeof(gr_complex)),
                    static_cast<int>(sizeof(float)) }),
              gr::io_signature::make(
                  1, 1, llr_item_size("mimo_detector", nt, modulation, output_type))),
          d_setup(parse_setup("mimo_detector", nt, nr, modulation, coherence)),
          d_float_output(parse_llr_output_type("mimo_detector", output_type)),
          d_noise_input(noise_var_input),
          d_noise_var(checked_noise_var("mimo_detector", noise_var))
    {
        if (!(llr_scale > 0.0) || !std::isfinite(llr_scale))
            throw ::gpufec::error(
                "mimo_detector: llr_scale = " + std::to_string(llr_scale) +
                "; allowed: a finite value > 0");
        d_run = make_batched_engine(
            "mimo_detector",
            detector_factory("mimo_detector", d_setup, algorithm, noise_var, kbest_k),
            detector_engine_options(backend, max_batch_frames, soft_convention),
            d_logger);
        d_sign = parse_block_soft_convention("mimo_detector", soft_convention) ==
                         ::gpufec::soft_convention::gnuradio
                     ? -1.0f
                     : 1.0f;
        d_scale = static_cast<float>(llr_scale) * d_sign;
        d_per_vector = d_run.decoder->output_bits_for_input(d_setup.nr);
        set_tag_propagation_policy(TPP_DONT);
        // Half a batch of blocks per call (frames_per_call() says why). GNU Radio sizes
        // every input's upstream buffer by the output multiple alike, so those of the
        // matrices and noise values hold coherence times more than needed: count them
        // too against the 8 MiB.
        const size_t coh = static_cast<size_t>(d_setup.coherence);
        const size_t upstream_bytes = coh * (static_cast<size_t>(d_setup.nr) *
                                                 (1 + d_setup.nt) * sizeof(gr_complex) +
                                             (noise_var_input ? sizeof(float) : 0));
        d_call_blocks = frames_per_call(d_run.max_batch_frames, upstream_bytes);
        set_output_multiple(static_cast<int>(coh * d_call_blocks));
        set_min_output_buffer(static_cast<long>(coh * d_run.max_batch_frames));
    }

    void set_noise_var(double noise_var) override
    {
        d_noise_var.store(checked_noise_var("mimo_detector", noise_var));
    }
    double noise_var() const override { return d_noise_var.load(); }
    std::string backend_name() const override { return d_run.backend_name; }
    uint64_t detected_vectors() const override { return d_detected.load(); }

    bool check_topology(int /*ninputs*/, int /*noutputs*/) override
    {
        // The user's caps on this block are set by now; the buffers are sized next.
        set_output_multiple(output_multiple_within_caps(
            *this, d_call_blocks, static_cast<size_t>(d_setup.coherence)));
        return true;
    }

    void forecast(int /*noutput_items*/, gr_vector_int& required) override
    {
        // One block is enough to work on (the output multiple is many): the last blocks
        // of a stream must not wait for a whole multiple.
        const bool pending = !d_pending.empty();
        required[0] = pending ? 0 : d_setup.coherence;
        for (size_t p = 1; p < required.size(); p++)
            required[p] = pending ? 0 : 1;
    }

    bool start() override
    {
        d_failed = false; // a run after a failed one starts afresh
        return true;
    }

    bool stop() override
    {
        lift_output_buffer_caps(*this, 1);
        // Vectors still in the input buffer are not detected: a stream that ends
        // inside a coherence block (or without its matrix) leaves them. Said, not
        // silent.
        if (const auto d = detail(); d && d->ninputs() > 0) {
            const int left = d->input(0)->items_available();
            if (left > 0)
                d_logger->warn("{} received vectors left undetected at stop (a coherence "
                               "block needs {} vectors and its channel matrix{})",
                               left,
                               d_setup.coherence,
                               d_noise_input ? " and noise variance" : "");
        }
        return true;
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        // After a failure the run ends; the vectors detected before it go out.
        if (d_failed)
            return WORK_DONE;
        try {
            return detect_work(noutput_items, ninput_items, input_items, output_items);
        } catch (const std::exception& e) {
            d_failed = true;
            d_logger->error("{}; stopping after {} detected vectors (the vectors of the "
                            "failed batch are lost)",
                            e.what(),
                            d_detected.load());
            return d_produced > 0 ? static_cast<int>(d_produced) : WORK_DONE;
        }
    }

private:
    int detect_work(int noutput_items,
                    gr_vector_int& ninput_items,
                    gr_vector_const_void_star& input_items,
                    gr_vector_void_star& output_items)
    {
        auto& engine = *d_run.engine;
        const size_t coh = static_cast<size_t>(d_setup.coherence);
        const size_t nr = static_cast<size_t>(d_setup.nr);
        const size_t entries = nr * static_cast<size_t>(d_setup.nt);
        d_out = static_cast<uint8_t*>(output_items[0]);
        d_noutput = static_cast<size_t>(noutput_items);
        d_produced = 0;
        d_out_first = nitems_written(0);

        while (pop_one(false)) {
        }
        size_t blocks = static_cast<size_t>(ninput_items[0]) / coh;
        blocks = std::min(blocks, static_cast<size_t>(ninput_items[1]));
        if (d_noise_input)
            blocks = std::min(blocks, static_cast<size_t>(ninput_items[2]));
        const auto* y = static_cast<const cfloat*>(input_items[0]);
        const auto* h = static_cast<const cfloat*>(input_items[1]);
        const auto* nv =
            d_noise_input ? static_cast<const float*>(input_items[2]) : nullptr;
        const uint64_t first_vector = nitems_read(0);
        // The blocks go in with one bulk submit per run of free slot space: their aux
        // entries (H, then the block's noise variance) staged back to back, their
        // input-0 tags kept for their output vectors.
        const size_t aux_per_block = entries + 1;
        size_t taken = 0;
        while (taken < blocks) {
            const size_t n = blocks - taken;
            const uint64_t start = first_vector + taken * coh;
            std::vector<gr::tag_t> tags;
            get_tags_in_range(tags, 0, start, start + n * coh);
            std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
            d_aux.resize(n * aux_per_block);
            d_block_tags.resize(n);
            d_noise_after.resize(n);
            double tag_nv = d_noise_var.load();
            bool tag_seen = false;
            size_t next_tag = 0;
            for (size_t b = 0; b < n; b++) {
                d_block_tags[b].clear();
                const uint64_t end = start + (b + 1) * coh;
                for (; next_tag < tags.size() && tags[next_tag].offset < end;
                     next_tag++) {
                    const gr::tag_t& tag = tags[next_tag];
                    d_block_tags[b].push_back(tag);
                    double v = 0.0;
                    if (!d_noise_input && pmt::eqv(tag.key, noise_var_key()) &&
                        noise_tag_value(tag, v)) {
                        tag_nv = v;
                        tag_seen = true;
                    }
                }
                d_noise_after[b] = tag_nv;
                stage_aux(d_aux.data() + b * aux_per_block,
                          h + (taken + b) * entries,
                          entries,
                          nv ? static_cast<double>(nv[taken + b]) : tag_nv);
            }
            const size_t k = engine.submit_frames(y + taken * coh * nr,
                                                  coh * nr,
                                                  d_aux.data(),
                                                  aux_per_block,
                                                  n,
                                                  d_next_id);
            for (size_t b = 0; b < k; b++) {
                pending_block& p = d_pending.emplace_back();
                p.id = d_next_id++;
                p.first_vector = start + b * coh;
                p.tags = std::move(d_block_tags[b]);
            }
            if (k > 0 && tag_seen)
                d_noise_var.store(d_noise_after[k - 1]);
            taken += k;
            // Every slot is busy: free one into the output, or leave the rest of the
            // input for the next call when the output has no room.
            if (k < n && !pop_one(true))
                break;
        }
        consume(0, static_cast<int>(taken * coh));
        consume(1, static_cast<int>(taken));
        if (d_noise_input)
            consume(2, static_cast<int>(taken));

        while (pop_one(false)) {
        }
        if (engine.frames_in_filling() > 0 && taken == blocks) {
            const bool in_flight = engine.frames_pending() > engine.frames_in_filling();
            if (!in_flight || engine.filling_age_seconds() >= 0.010)
                engine.launch();
        }
        if (d_produced == 0 && !d_pending.empty() && room_for_next()) {
            pop_one(true);
            while (pop_one(false)) {
            }
        }
        return static_cast<int>(d_produced);
    }

    //! The value of a noise_var tag, or false (with a warning) when it is not a
    //! finite real number > 0.
    bool noise_tag_value(const gr::tag_t& tag, double& value) const
    {
        if (pmt::is_number(tag.value) && !pmt::is_complex(tag.value)) {
            value = pmt::to_double(tag.value);
            if (value > 0.0 && std::isfinite(value))
                return true;
        }
        d_logger->warn("ignoring the noise_var tag at vector {}: its value {} is not a "
                       "finite number > 0",
                       tag.offset,
                       pmt::write_string(tag.value));
        return false;
    }

    bool room_for_next() const
    {
        return !d_pending.empty() &&
               d_produced + static_cast<size_t>(d_setup.coherence) <= d_noutput;
    }

    //! Pops the oldest block into the output if there is room for it.
    bool pop_one(bool wait)
    {
        if (!room_for_next())
            return false;
        ::gpufec::completed_frame done;
        if (!(wait ? d_run.engine->pop_wait(done) : d_run.engine->try_pop(done)))
            return false;
        // Blocks before done.id never came back: lost with a failed batch (reported
        // when it failed).
        while (!d_pending.empty() && d_pending.front().id < done.id)
            d_pending.pop_front();
        if (d_pending.empty() || done.id != d_pending.front().id)
            throw std::logic_error("gpufec engine returned frames out of order");
        const size_t vectors = done.nbits / d_per_vector;
        uint8_t* dst = d_out + d_produced * d_per_vector * (d_float_output ? 4 : 1);
        if (d_float_output)
            volk_32f_s32f_multiply_32f(reinterpret_cast<float*>(dst),
                                       done.llrs,
                                       d_sign,
                                       static_cast<unsigned int>(done.nbits));
        else
            ::gpufec::quantize_llrs(
                done.llrs, reinterpret_cast<::gpufec::llr8_t*>(dst), done.nbits, d_scale);
        const pending_block& p = d_pending.front();
        for (gr::tag_t tag : p.tags) {
            tag.offset = d_out_first + d_produced + (tag.offset - p.first_vector);
            add_item_tag(0, tag);
        }
        d_pending.pop_front();
        d_produced += vectors;
        d_detected += vectors;
        return true;
    }

    struct pending_block {
        uint64_t id = 0;
        uint64_t first_vector = 0;
        std::vector<gr::tag_t> tags;
    };

    const ::gpufec::mimo_setup d_setup;
    size_t d_call_blocks = 1; //!< coherence blocks per output multiple, before caps
    const bool d_float_output;
    const bool d_noise_input;
    std::atomic<double> d_noise_var;
    batched_engine d_run;
    float d_sign = -1.0f;
    float d_scale = -8.0f;
    size_t d_per_vector = 0;
    std::vector<cfloat> d_aux;                        //!< staged aux entries
    std::vector<std::vector<gr::tag_t>> d_block_tags; //!< staged blocks' tags
    std::vector<double> d_noise_after; //!< the tag noise variance after each block
    std::deque<pending_block> d_pending;
    uint64_t d_next_id = 0;
    std::atomic<uint64_t> d_detected{ 0 };
    bool d_failed = false; //!< a batch failed: this run ends
    uint8_t* d_out = nullptr;
    size_t d_noutput = 0;
    size_t d_produced = 0;
    uint64_t d_out_first = 0;
};

// ---------------------------------------------------------------------------------

//! PDU form: each PDU's coherence blocks are detected as one batch run.
class mimo_detector_pdu_impl : public mimo_detector_pdu
{
public:
    mimo_detector_pdu_impl(int nt,
                           int nr,
                           const std::string& modulation,
                           const std::string& algorithm,
                           const std::string& backend,
                           int coherence,
                           double noise_var,
                           const std::string& soft_convention,
                           int kbest_k,
                           int max_batch_frames)
        : gr::block("mimo_detector_pdu",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make(0, 0, 0)),
          d_setup(parse_setup("mimo_detector_pdu", nt, nr, modulation, coherence)),
          d_noise_var(checked_noise_var("mimo_detector_pdu", noise_var))
    {
        d_run = make_batched_engine(
            "mimo_detector_pdu",
            detector_factory("mimo_detector_pdu", d_setup, algorithm, noise_var, kbest_k),
            detector_engine_options(backend, max_batch_frames, soft_convention),
            d_logger);
        d_sign = parse_block_soft_convention("mimo_detector_pdu", soft_convention) ==
                         ::gpufec::soft_convention::gnuradio
                     ? -1.0f
                     : 1.0f;
        message_port_register_in(pmt::mp("in"));
        message_port_register_out(pmt::mp("out"));
        set_msg_handler(pmt::mp("in"), [this](const pmt::pmt_t& msg) { handle(msg); });
    }

    void set_noise_var(double noise_var) override
    {
        d_noise_var.store(checked_noise_var("mimo_detector_pdu", noise_var));
    }
    double noise_var() const override { return d_noise_var.load(); }
    std::string backend_name() const override { return d_run.backend_name; }
    uint64_t detected_pdus() const override { return d_detected.load(); }
    uint64_t dropped_pdus() const override { return d_dropped.load(); }

private:
    void handle(const pmt::pmt_t& msg)
    {
        const uint64_t number = d_received++;
        try {
            const std::string problem = detect(msg);
            if (!problem.empty()) {
                ++d_dropped;
                d_logger->error("dropping PDU #{} (counting from 0 since start): {}",
                                number,
                                problem);
            }
        } catch (const std::exception& e) {
            ++d_dropped;
            d_logger->error("detector failure, PDU #{} is lost: {}", number, e.what());
            discard_pending();
        }
    }

    //! After a failure: the failed PDU's other blocks still in the engine are dropped
    //! with it (a PDU is detected to the end before the next one starts), so none of
    //! them is taken for the next PDU's.
    void discard_pending()
    {
        auto& engine = *d_run.engine;
        ::gpufec::completed_frame done;
        for (;;) {
            try {
                engine.flush();
                if (!engine.pop_wait(done))
                    return;
            } catch (const std::exception& e) {
                d_logger->error("detector failure while discarding: {}", e.what());
            }
        }
    }

    //! Detects and publishes one PDU; returns why it cannot, or "".
    std::string detect(const pmt::pmt_t& msg)
    {
        if (!pmt::is_pair(msg) || !pmt::is_c32vector(pmt::cdr(msg)))
            return "not a PDU of received samples (pair of metadata and c32vector)";
        pmt::pmt_t meta = pmt::car(msg);
        if (!pmt::is_dict(meta))
            return "no metadata dict: the \"channel\" entry (c32vector) is required";
        const size_t nr = d_setup.nr, nt = d_setup.nt, coh = d_setup.coherence;
        const size_t entries = nr * nt;
        const pmt::pmt_t vec = pmt::cdr(msg);
        const size_t samples = pmt::length(vec);
        if (samples == 0 || samples % nr)
            return "the PDU holds " + std::to_string(samples) +
                   " samples; allowed: a positive multiple of nr = " + std::to_string(nr);
        const size_t vectors = samples / nr;
        const size_t blocks = (vectors + coh - 1) / coh;
        const pmt::pmt_t channel = pmt::dict_ref(meta, pmt::mp("channel"), pmt::PMT_NIL);
        if (!pmt::is_c32vector(channel) || pmt::length(channel) != blocks * entries)
            return "metadata \"channel\" must be a c32vector of ceil(v / coherence) * nr "
                   "* "
                   "nt = " +
                   std::to_string(blocks * entries) + " entries for " +
                   std::to_string(vectors) + " vectors";
        double nv = d_noise_var.load();
        const pmt::pmt_t nv_value = pmt::dict_ref(meta, noise_var_key(), pmt::PMT_NIL);
        if (!pmt::is_null(nv_value)) {
            if (pmt::is_real(nv_value) || pmt::is_integer(nv_value))
                nv = pmt::to_double(nv_value);
            else if (pmt::is_uint64(nv_value))
                nv = static_cast<double>(pmt::to_uint64(nv_value));
            else
                return "metadata \"noise_var\" must be a real number (a double or an "
                       "integer)";
            // The detector works in float: the value must stay finite and positive there.
            const float nv_float = static_cast<float>(nv);
            if (!(nv_float > 0.0f) || !std::isfinite(nv_float))
                return "metadata \"noise_var\" = " + std::to_string(nv) +
                       "; allowed: a finite value > 0 that stays so as a float (below "
                       "3.4e38)";
        }
        size_t len = 0;
        const auto* y =
            reinterpret_cast<const cfloat*>(pmt::c32vector_elements(vec, len));
        const auto* h =
            reinterpret_cast<const cfloat*>(pmt::c32vector_elements(channel, len));
        auto& engine = *d_run.engine;
        d_llrs.clear();
        ::gpufec::completed_frame done;
        auto collect = [&](const ::gpufec::completed_frame& f) {
            const size_t at = d_llrs.size();
            d_llrs.resize(at + f.nbits);
            volk_32f_s32f_multiply_32f(
                d_llrs.data() + at, f.llrs, d_sign, static_cast<unsigned int>(f.nbits));
        };
        for (size_t b = 0; b < blocks; b++) {
            const size_t in_block = std::min(coh, vectors - b * coh);
            d_aux.resize(entries + 1);
            stage_aux(d_aux.data(), h + b * entries, entries, nv);
            while (!engine.submit(
                y + b * coh * nr, in_block * nr, d_aux.data(), d_aux.size(), b))
                if (engine.pop_wait(done))
                    collect(done);
        }
        engine.flush();
        while (engine.pop_wait(done))
            collect(done);
        meta = pmt::dict_delete(meta, pmt::mp("channel"));
        message_port_pub(pmt::mp("out"),
                         pmt::cons(meta, pmt::init_f32vector(d_llrs.size(), d_llrs)));
        ++d_detected;
        return "";
    }

    const ::gpufec::mimo_setup d_setup;
    std::atomic<double> d_noise_var;
    batched_engine d_run;
    float d_sign = -1.0f;
    std::vector<cfloat> d_aux;
    std::vector<float> d_llrs;
    uint64_t d_received = 0;
    std::atomic<uint64_t> d_detected{ 0 };
    std::atomic<uint64_t> d_dropped{ 0 };
};

// ---------------------------------------------------------------------------------

/*!
 * The channel source: frames (coherence blocks) are made frames_per_call at a time
 * by the core source (gpufec::make of mimo_source_options: CPU or CUDA, the same
 * frames). With a code, a unit is one codeword: its information bits (Philox stream
 * 0 of the codeword's number, as the AWGN source draws them) are encoded on the CPU
 * and sent over the whole frames it fills.
 */
class mimo_channel_source_impl : public mimo_channel_source
{
public:
    mimo_channel_source_impl(int nt,
                             int nr,
                             const std::string& modulation,
                             double snr_db,
                             const std::string& snr_unit,
                             uint64_t seed,
                             int coherence,
                             const std::string& backend,
                             code::sptr code,
                             int frames_per_call)
        : gr::block("mimo_channel_source",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::makev(
                        3,
                        3,
                        { static_cast<int>(std::max(nr, 1) * sizeof(gr_complex)),
                          static_cast<int>(std::max(nr * nt, 1) * sizeof(gr_complex)),
                          static_cast<int>(sizeof(uint8_t)) })),
          d_setup(parse_setup("mimo_channel_source", nt, nr, modulation, coherence)),
          d_code(std::move(code)),
          d_seed(seed)
    {
        if (snr_unit != "esn0" && snr_unit != "ebn0")
            throw ::gpufec::error("mimo_channel_source: snr_unit \"" + snr_unit +
                                  "\" unknown; allowed: \"esn0\" (Es/N0 per transmitted "
                                  "symbol), \"ebn0\" (Eb/N0 per information bit)");
        if (frames_per_call < 1)
            throw ::gpufec::error("mimo_channel_source: frames_per_call = " +
                                  std::to_string(frames_per_call) +
                                  "; allowed: 1 or more");
        d_ebn0 = snr_unit == "ebn0";
        const ::gpufec::constellation c(d_setup.mod);
        d_bits_per_symbol = c.bits_per_symbol();
        const size_t frame_bits =
            static_cast<size_t>(coherence) * nt * static_cast<size_t>(d_bits_per_symbol);
        if (d_code) {
            d_info_bits = static_cast<size_t>(d_code->frame_bits());
            d_coded_bits = d_code->coded_bits();
            if (frame_bits == 0 || d_coded_bits % frame_bits)
                throw ::gpufec::error(
                    "mimo_channel_source: the code's " + std::to_string(d_coded_bits) +
                    " coded bits do not fill whole coherence blocks of nt * bits per "
                    "symbol * coherence = " +
                    std::to_string(frame_bits) +
                    " bits; allowed: codes whose coded_bits() is a multiple of it "
                    "(choose "
                    "E, the modulation or coherence)");
            d_frames_per_unit = d_coded_bits / frame_bits;
            d_rate = static_cast<double>(d_info_bits) / static_cast<double>(d_coded_bits);
        } else {
            d_info_bits = frame_bits;
            d_frames_per_unit = 1;
        }
        ::gpufec::mimo_source_options o;
        o.noise_var = noise_var_for(snr_db);
        o.seed = seed;
        try {
            d_source = ::gpufec::make(d_setup, o, backend);
        } catch (const ::gpufec::error& e) {
            throw ::gpufec::error(source_error(e.what()));
        }
        d_snr_db.store(snr_db);
        ::gpufec::backend_spec spec;
        spec.kind = d_source->backend();
        spec.device = std::max(0, d_source->device());
        spec.was_auto = backend == "auto";
        d_backend = ::gpufec::describe_backend(spec);
        d_logger->info("mimo_channel_source: {}backend {}, {}x{} {}, coherence {}{}",
                       spec.was_auto ? "auto selected " : "",
                       d_backend,
                       nt,
                       nr,
                       modulation,
                       coherence,
                       d_code ? ", " + d_code->describe() : std::string());
        d_units_per_call =
            std::max<size_t>(1, static_cast<size_t>(frames_per_call) / d_frames_per_unit);
        // Items per unit on each output; one output multiple for all three (the
        // scheduler's noutput_items is the least room among them).
        d_unit_items =
            std::max(d_frames_per_unit * static_cast<size_t>(coherence), d_info_bits);
        set_output_multiple(static_cast<int>(d_unit_items));
        set_min_output_buffer(static_cast<long>(2 * d_unit_items * d_units_per_call));
    }

    void set_snr_db(double snr_db) override
    {
        d_source->set_noise_var(noise_var_for(snr_db));
        d_snr_db.store(snr_db);
    }
    double snr_db() const override { return d_snr_db.load(); }
    double noise_var() const override { return d_source->noise_var(); }
    std::string backend_name() const override { return d_backend; }
    uint64_t frames() const override { return d_next_frame.load(); }

    bool stop() override
    {
        lift_output_buffer_caps(*this, 3);
        return true;
    }

    int general_work(int noutput_items,
                     gr_vector_int&,
                     gr_vector_const_void_star&,
                     gr_vector_void_star& output_items) override
    {
        try {
            return make_units(static_cast<size_t>(noutput_items), output_items);
        } catch (const std::exception& e) {
            d_logger->error(
                "{}; stopping after {} frames", e.what(), d_next_frame.load());
            return WORK_DONE;
        }
    }

private:
    double noise_var_for(double snr_db) const
    {
        try {
            return d_ebn0
                       ? ::gpufec::mimo_noise_var_ebn0(snr_db, d_bits_per_symbol, d_rate)
                       : ::gpufec::mimo_noise_var_esn0(snr_db);
        } catch (const ::gpufec::error& e) {
            throw ::gpufec::error(source_error(e.what()));
        }
    }

    int make_units(size_t noutput, gr_vector_void_star& out)
    {
        const size_t units = std::min(d_units_per_call, noutput / d_unit_items);
        if (units == 0)
            return 0;
        const uint64_t first_frame = d_next_frame.load();
        const size_t frames = units * d_frames_per_unit;
        auto* y = static_cast<cfloat*>(out[0]);
        auto* h = static_cast<cfloat*>(out[1]);
        auto* bits = static_cast<uint8_t*>(out[2]);
        if (d_code) {
            const uint64_t first_unit = first_frame / d_frames_per_unit;
            d_coded.resize(units * d_coded_bits);
            for (size_t u = 0; u < units; u++) {
                uint8_t* info = bits + u * d_info_bits;
                for (size_t i = 0; i < d_info_bits; i++)
                    info[i] =
                        (::gpufec::philox::info_word(
                             d_seed, first_unit + u, static_cast<uint32_t>(i / 32)) >>
                         (i % 32)) &
                        1u;
                d_code->encode_raw(info, d_info_bits, d_coded.data() + u * d_coded_bits);
            }
            d_source->generate(first_frame, frames, d_coded.data(), y, h, nullptr);
        } else {
            d_source->generate(first_frame, frames, nullptr, y, h, bits);
        }
        produce(0, static_cast<int>(frames * d_setup.coherence));
        produce(1, static_cast<int>(frames));
        produce(2, static_cast<int>(units * d_info_bits));
        d_next_frame.store(first_frame + frames);
        return WORK_CALLED_PRODUCE;
    }

    const ::gpufec::mimo_setup d_setup;
    code::sptr d_code;
    const uint64_t d_seed;
    bool d_ebn0 = false;
    int d_bits_per_symbol = 1;
    double d_rate = 1.0;
    size_t d_info_bits = 0;  //!< bits on output 2 per unit
    size_t d_coded_bits = 0; //!< with a code: per codeword
    size_t d_frames_per_unit = 1;
    size_t d_units_per_call = 1;
    size_t d_unit_items = 1;
    std::unique_ptr<::gpufec::mimo_channel_source> d_source;
    std::string d_backend;
    std::atomic<double> d_snr_db{ 0.0 };
    std::atomic<uint64_t> d_next_frame{ 0 };
    std::vector<uint8_t> d_coded;
};

} // namespace

mimo_detector::sptr mimo_detector::make(int nt,
                                        int nr,
                                        const std::string& modulation,
                                        const std::string& algorithm,
                                        const std::string& backend,
                                        int coherence,
                                        double noise_var,
                                        bool noise_var_input,
                                        const std::string& output_type,
                                        double llr_scale,
                                        const std::string& soft_convention,
                                        int kbest_k,
                                        int max_batch_frames)
{
    return gnuradio::make_block_sptr<mimo_detector_impl>(nt,
                                                         nr,
                                                         modulation,
                                                         algorithm,
                                                         backend,
                                                         coherence,
                                                         noise_var,
                                                         noise_var_input,
                                                         output_type,
                                                         llr_scale,
                                                         soft_convention,
                                                         kbest_k,
                                                         max_batch_frames);
}

mimo_detector_pdu::sptr mimo_detector_pdu::make(int nt,
                                                int nr,
                                                const std::string& modulation,
                                                const std::string& algorithm,
                                                const std::string& backend,
                                                int coherence,
                                                double noise_var,
                                                const std::string& soft_convention,
                                                int kbest_k,
                                                int max_batch_frames)
{
    return gnuradio::make_block_sptr<mimo_detector_pdu_impl>(nt,
                                                             nr,
                                                             modulation,
                                                             algorithm,
                                                             backend,
                                                             coherence,
                                                             noise_var,
                                                             soft_convention,
                                                             kbest_k,
                                                             max_batch_frames);
}

mimo_channel_source::sptr mimo_channel_source::make(int nt,
                                                    int nr,
                                                    const std::string& modulation,
                                                    double snr_db,
                                                    const std::string& snr_unit,
                                                    uint64_t seed,
                                                    int coherence,
                                                    const std::string& backend,
                                                    code::sptr code,
                                                    int frames_per_call)
{
    return gnuradio::make_block_sptr<mimo_channel_source_impl>(nt,
                                                               nr,
                                                               modulation,
                                                               snr_db,
                                                               snr_unit,
                                                               seed,
                                                               coherence,
                                                               backend,
                                                               std::move(code),
                                                               frames_per_call);
}

} // namespace gpufec
} // namespace gr
