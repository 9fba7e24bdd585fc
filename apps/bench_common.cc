/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "bench_common.h"
#ifdef GPUFEC_HAVE_CUDA
#include "cuda/common/cuda_utils.h"
#endif

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <thread>

namespace gpufec_bench {

double seconds_since(steady::time_point t0)
{
    return std::chrono::duration<double>(steady::now() - t0).count();
}

double result::median() const
{
    std::vector<double> v = runs;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

void check_stats::add(const uint8_t* decoded, const uint8_t* sent, size_t n, int iters)
{
    size_t e = 0;
    for (size_t i = 0; i < n; ++i)
        e += (decoded[i] & 1) != (sent[i] & 1);
    bits += n;
    bit_errors += e;
    frames += 1;
    frame_errors += e != 0;
    iterations += uint64_t(std::max(0, iters));
}

void check_stats::add_packed(const uint8_t* packed,
                             const uint8_t* sent,
                             size_t n,
                             int iters)
{
    std::vector<uint8_t> bits_out(n);
    gpufec::unpack_bits(packed, bits_out.data(), n);
    add(bits_out.data(), sent, n, iters);
}

void check_stats::store(result& r) const
{
    r.ber = ber();
    r.fer = frames ? double(frame_errors) / double(frames) : 0.0;
    r.iterations = frames ? double(iterations) / double(frames) : 0.0;
}

frame_pool make_pool(gpufec::awgn_bpsk_source& source,
                     double pool_mib,
                     size_t min_frames,
                     float sigma)
{
    frame_pool pool;
    pool.llrs_per_frame = source.llrs_per_frame();
    pool.bits_per_frame = source.bits_per_frame();
    const double frame_bytes = double(pool.llrs_per_frame) * sizeof(float);
    pool.frames = size_t(
        std::max(double(min_frames), std::floor(pool_mib * 1048576.0 / frame_bytes)));
    pool.sigma = sigma;
    pool.llrs.resize(pool.frames * pool.llrs_per_frame);
    pool.llrs8.resize(pool.llrs.size());
    pool.info_bits.resize(pool.frames * pool.bits_per_frame);
    source.generate(0, pool.frames, pool.llrs.data(), pool.info_bits.data());
    const gpufec::engine_config defaults;
    gpufec::quantize_llrs(
        pool.llrs.data(), pool.llrs8.data(), pool.llrs.size(), defaults.llr_scale);
    return pool;
}

double run_engine(gpufec::batch_engine& engine,
                  const frame_pool& pool,
                  const gpufec::llr8_t* int8_llrs,
                  double seconds,
                  size_t check_frames,
                  check_stats* check)
{
    const size_t items = pool.llrs_per_frame;
    uint64_t next_id = 0, bits = 0;
    gpufec::completed_frame done;
    auto consume = [&](const gpufec::completed_frame& f) {
        bits += f.nbits;
        if (check)
            check->add_packed(
                f.packed, pool.sent(f.id % pool.frames), f.nbits, f.status.iterations);
    };
    const auto t0 = steady::now();
    const auto deadline = t0 + std::chrono::duration_cast<steady::duration>(
                                   std::chrono::duration<double>(seconds));
    for (;;) {
        if (check ? next_id >= check_frames : steady::now() >= deadline)
            break;
        // The bulk path: runs of ~16 Mi LLRs, so that the engine's copy threads get
        // large chunks even for short frames.
        const size_t index = next_id % pool.frames;
        size_t run = std::min<size_t>(pool.frames - index,
                                      std::max<size_t>(1, (size_t(1) << 24) / items));
        if (check)
            run = std::min<size_t>(run, check_frames - next_id);
        const size_t taken =
            int8_llrs
                ? engine.submit_frames(int8_llrs + index * items, items, run, next_id)
                : engine.submit_frames(
                      pool.llrs.data() + index * items, items, run, next_id);
        next_id += taken;
        if (taken < run) {
            if (!engine.pop_wait(done))
                throw gpufec::error("engine refused a frame with nothing pending");
            consume(done);
        }
        while (engine.try_pop(done))
            consume(done);
    }
    engine.flush();
    while (engine.pop_wait(done))
        consume(done);
    return double(bits) / seconds_since(t0);
}

void bench_engine(std::shared_ptr<gpufec::batch_decoder> decoder,
                  const frame_pool& pool,
                  size_t batch_frames,
                  int cpu_threads,
                  const result& row,
                  const run_options& opt,
                  std::vector<result>& results)
{
    gpufec::engine_config config;
    config.max_batch_frames = batch_frames;
    config.cpu_threads = cpu_threads;
    // A 4-bit stage: floats quantized at scale 1 (one step = one natural LLR unit;
    // the LDPC decoders scale 4-bit values by 8). Its int8 input is the pool's floats
    // quantized at that scale, values -7..7 once the engine saturates them ("i8>int4":
    // a caller whose LLRs are already small integers, so the host only packs them;
    // the pool's own int8 values, at scale 8, would saturate).
    const bool int4_stage = decoder->input() == gpufec::input_format::llr_int4;
    if (int4_stage)
        config.llr_scale = 1.0f;
    std::vector<gpufec::llr8_t> int4_scale;
    if (int4_stage && opt.use_int8) {
        int4_scale.resize(pool.llrs.size());
        gpufec::quantize_llrs(
            pool.llrs.data(), int4_scale.data(), pool.llrs.size(), config.llr_scale);
    }
    gpufec::batch_engine engine(std::move(decoder), config);
    for (int pass = 0; pass < 2; ++pass) {
        const bool int8_input = pass == 1;
        if ((int8_input && !opt.use_int8) || (!int8_input && !opt.use_float))
            continue;
        const gpufec::llr8_t* int8_llrs = !int8_input  ? nullptr
                                          : int4_stage ? int4_scale.data()
                                                       : pool.llrs8.data();
        result r = row;
        r.input = int8_input ? (int4_stage ? "i8>int4" : "int8")
                             : (int4_stage ? "f>int4" : "float");
        // Warm-up that also checks the output: at least two full batches.
        const size_t check_frames = std::max<size_t>(2 * config.max_batch_frames,
                                                     std::min<size_t>(pool.frames, 64));
        check_stats check;
        run_engine(engine, pool, int8_llrs, 0, check_frames, &check);
        check.store(r);
        for (int i = 0; i < opt.runs; ++i)
            r.runs.push_back(
                run_engine(engine, pool, int8_llrs, opt.seconds, 0, nullptr));
        r.info_bits_per_s = r.median();
        results.push_back(r);
    }
}

void run_interleaved(std::vector<timed_case>& cases,
                     int runs,
                     std::vector<result>& results)
{
    for (int run = 0; run < runs; ++run)
        for (timed_case& c : cases)
            c.r.runs.push_back(c.run_once());
    for (timed_case& c : cases) {
        c.r.info_bits_per_s = c.r.median();
        results.push_back(c.r);
    }
}

timed_case make_decode_only_case(std::unique_ptr<gpufec::batch_decoder> decoder,
                                 const frame_pool& pool,
                                 double seconds,
                                 const result& row)
{
    struct state {
        std::unique_ptr<gpufec::batch_decoder> decoder;
        size_t frames = 0, out_stride = 0, first = 0;
        std::vector<gpufec::frame_extent> extents;
        std::vector<gpufec::frame_status> status;
        std::vector<uint8_t> out;
        std::unique_ptr<gpufec::standalone_ctx> run; // one thread, the stage's scratch
    };
    auto st = std::make_shared<state>();
    st->decoder = std::move(decoder);
    st->frames = std::min<size_t>(
        pool.frames, std::max<size_t>(1, (size_t(1) << 16) / pool.bits_per_frame));
    st->out_stride = gpufec::aligned_packed_bytes(pool.bits_per_frame);
    st->extents.resize(st->frames);
    st->status.resize(st->frames);
    st->out.resize(st->frames * st->out_stride);
    for (size_t i = 0; i < st->frames; ++i)
        st->extents[i] = { uint64_t(i * pool.llrs_per_frame),
                           uint32_t(pool.llrs_per_frame),
                           uint64_t(i * st->out_stride),
                           uint32_t(pool.bits_per_frame) };
    st->run = std::make_unique<gpufec::standalone_ctx>(*st->decoder);
    const frame_pool* p = &pool;
    auto decode_batch = [st, p]() {
        if (st->first + st->frames > p->frames)
            st->first = 0;
        gpufec::frame_batch batch;
        batch.in = p->llrs8.data() + st->first * p->llrs_per_frame;
        batch.out = st->out.data();
        batch.frames = st->extents.data();
        batch.num_frames = st->frames;
        batch.status = st->status.data();
        st->decoder->decode(batch, st->run->ctx());
    };

    timed_case c;
    c.r = row;
    decode_batch(); // warm-up and check
    check_stats check;
    for (size_t i = 0; i < st->frames; ++i)
        check.add_packed(st->out.data() + i * st->out_stride,
                         pool.sent(st->first + i),
                         pool.bits_per_frame,
                         st->status[i].iterations);
    check.store(c.r);
    c.run_once = [st, p, decode_batch, seconds]() {
        const auto t0 = steady::now();
        uint64_t bits = 0;
        do {
            st->first += st->frames;
            decode_batch();
            bits += st->frames * p->bits_per_frame;
        } while (seconds_since(t0) < seconds);
        return bits / seconds_since(t0);
    };
    return c;
}

std::function<double()> frame_loop(std::function<void(size_t)> decode_frame,
                                   size_t pool_frames,
                                   size_t bits_per_frame,
                                   double seconds)
{
    auto index = std::make_shared<size_t>(0);
    return [decode_frame, index, pool_frames, bits_per_frame, seconds]() {
        const auto t0 = steady::now();
        uint64_t decoded = 0;
        do {
            decode_frame(*index);
            *index = (*index + 1) % pool_frames;
            decoded += bits_per_frame;
        } while (seconds_since(t0) < seconds);
        return decoded / seconds_since(t0);
    };
}

std::string format_rate(double value, const std::string& unit)
{
    std::ostringstream s;
    const char* prefix = "";
    if (value >= 1e9) {
        value /= 1e9;
        prefix = "G";
    } else if (value >= 1e6) {
        value /= 1e6;
        prefix = "M";
    } else if (value >= 1e3) {
        value /= 1e3;
        prefix = "k";
    }
    s << std::fixed << std::setprecision(value >= 100 ? 0 : (value >= 10 ? 1 : 2))
      << value << ' ' << prefix << (unit == "bit/s" ? "b/s" : unit);
    return s.str();
}

std::string json_escape(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (static_cast<unsigned char>(c) < 0x20)
            continue;
        out += c;
    }
    return out;
}

std::string utc_now()
{
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::string cpu_model()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos)
                return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    }
    return "unknown CPU";
}

int hardware_threads() { return int(std::max(1u, std::thread::hardware_concurrency())); }

void write_json_head(std::ostream& f, const stamps& s, int cpu_threads)
{
    f << std::setprecision(10);
    f << "{\n  \"tool\": \"gpufec-bench\",\n";
    f << "  \"date\": \"" << s.date << "\",\n";
    f << "  \"commit\": \"" << json_escape(s.commit) << "\",\n";
    f << "  \"cpu\": \"" << json_escape(s.cpu) << "\",\n";
    f << "  \"cpu_threads\": " << cpu_threads << ",\n";
}

void write_json_tail(std::ostream& f,
                     double ebn0_db,
                     const run_options& opt,
                     const std::vector<std::string>& notes,
                     const std::vector<result>& results,
                     const std::function<void(std::ostream&, const result&)>& row_keys)
{
    f << "  \"ebn0_db\": " << ebn0_db << ",\n";
    f << "  \"seconds_per_run\": " << opt.seconds << ",\n";
    f << "  \"runs\": " << opt.runs << ",\n";
    f << "  \"notes\": [";
    for (size_t i = 0; i < notes.size(); ++i)
        f << (i ? ", " : "") << '"' << json_escape(notes[i]) << '"';
    f << "],\n  \"results\": [\n";
    for (size_t i = 0; i < results.size(); ++i) {
        const result& r = results[i];
        f << "    {\"label\": \"" << json_escape(r.label) << "\", \"group\": \""
          << r.group << "\", \"backend\": \"" << json_escape(r.backend)
          << "\", \"path\": \"" << r.path << "\", \"input\": \"" << r.input << "\"";
        row_keys(f, r);
        f << ", \"runs\": [";
        for (size_t j = 0; j < r.runs.size(); ++j)
            f << (j ? ", " : "") << r.runs[j];
        f << "]}" << (i + 1 < results.size() ? "," : "") << "\n";
    }
    f << "  ]\n}\n";
}

void bench_source_to_host(gpufec::awgn_bpsk_source& source,
                          const run_options& opt,
                          const std::string& backend_name,
                          std::vector<result>& results)
{
    const bool cuda = source.backend() == gpufec::backend_kind::cuda;
    const size_t batch_bits = cuda ? (size_t(1) << 24) : (size_t(1) << 20);
    const size_t frames = std::max<size_t>(1, batch_bits / source.bits_per_frame());
    std::vector<float> llrs(frames * source.llrs_per_frame());
    std::vector<uint8_t> bits(frames * source.bits_per_frame());
    const double bytes_per_frame =
        double(source.llrs_per_frame() * sizeof(float) + source.bits_per_frame());
    result r;
    r.group = "source";
    r.label = "source " + backend_name + " to host";
    r.backend = backend_name;
    r.path = "to-host";
    r.input = "-";
    r.unit = "B/s";
    r.info_bits = source.bits_per_frame();
    uint64_t first = 0;
    source.generate(first, frames, llrs.data(), bits.data()); // warm-up
    first += frames;
    for (int i = 0; i < opt.runs; ++i) {
        const auto t0 = steady::now();
        size_t made = 0;
        do {
            source.generate(first, frames, llrs.data(), bits.data());
            first += frames;
            made += frames;
        } while (seconds_since(t0) < opt.seconds);
        r.runs.push_back(made * bytes_per_frame / seconds_since(t0));
    }
    r.info_bits_per_s = r.median() / bytes_per_frame * source.bits_per_frame();
    results.push_back(r);
}

void bench_source_engine(std::shared_ptr<gpufec::awgn_bpsk_source> source,
                         const run_options& opt,
                         const std::string& backend_name,
                         gpufec::memory_side side,
                         std::vector<result>& results,
                         float int8_scale)
{
    const bool cuda = source->backend() == gpufec::backend_kind::cuda;
    const size_t batch_bits = cuda ? (size_t(1) << 22) : (size_t(1) << 18);
    gpufec::engine_config config;
    // CPU: at least two frames per worker, so long frames keep every core busy too.
    const size_t min_frames = cuda ? 1 : 2 * size_t(hardware_threads());
    config.max_batch_frames = std::max(min_frames, batch_bits / source->bits_per_frame());
    config.num_slots = 4;
    config.output_side = side;
    const bool int8 = int8_scale > 0.0f;
    if (int8)
        config.llr_scale = int8_scale;
    gpufec::batch_engine engine(gpufec::make_source_stage(source, int8_scale), config);
    const size_t C = source->llrs_per_frame(), I = source->bits_per_frame();
    const bool to_host = side == gpufec::memory_side::host;
    const double bytes_per_frame = double(C * (int8 ? 1 : sizeof(float)) + I);
    result r;
    r.group = "source";
    r.label = "source " + backend_name +
              (to_host ? " engine to host" : " engine on device") + (int8 ? " int8" : "");
    r.backend = backend_name;
    r.path = to_host ? "engine-to-host" : "engine-device";
    r.input = "-";
    r.unit = "B/s";
    r.info_bits = I;
    uint64_t next_request = 0;
    gpufec::completed_frame frame;
    // To the host, a batch's frames are copied out with pop_frames() (as the source
    // block does); on the device, frames are popped one by one (pointers only).
    std::vector<float> llrs(to_host && !int8 ? config.max_batch_frames * C : 0);
    std::vector<gpufec::llr8_t> llrs8(to_host && int8 ? config.max_batch_frames * C : 0);
    std::vector<uint8_t> bits(to_host ? config.max_batch_frames * I : 0);
    // Makes `frames` frames, keeping every slot busy; returns the frames popped.
    auto run_frames = [&](size_t frames) {
        size_t popped = 0;
        while (popped < frames) {
            while (const size_t n =
                       engine.request_frames(config.max_batch_frames, next_request))
                next_request += n;
            size_t n = 0;
            if (to_host)
                n = int8 ? engine.pop_frames(
                               llrs8.data(), bits.data(), config.max_batch_frames, true)
                         : engine.pop_frames(
                               llrs.data(), bits.data(), config.max_batch_frames, true);
            else
                n = engine.pop_wait(frame) ? 1 : 0;
            if (n == 0)
                throw gpufec::error("bench: the source engine returned no frame");
            popped += n;
        }
        return popped;
    };
    run_frames(4 * config.max_batch_frames); // warm-up
    for (int i = 0; i < opt.runs; ++i) {
        const auto t0 = steady::now();
        size_t made = 0;
        do {
            made += run_frames(config.max_batch_frames);
        } while (seconds_since(t0) < opt.seconds);
        r.runs.push_back(made * bytes_per_frame / seconds_since(t0));
    }
    r.info_bits_per_s = r.median() / bytes_per_frame * I;
    results.push_back(r);
}

void bench_source_device_only(gpufec::awgn_bpsk_source& source,
                              const run_options& opt,
                              const std::string& backend_name,
                              std::vector<result>& results)
{
#ifdef GPUFEC_HAVE_CUDA
    gpufec::cuda::device_guard guard(source.device());
    const size_t frames =
        std::max<size_t>(1, (size_t(1) << 24) / source.bits_per_frame());
    gpufec::cuda::device_buffer<float> llrs(frames * source.llrs_per_frame());
    gpufec::cuda::device_buffer<uint8_t> bits(frames * source.bits_per_frame());
    gpufec::cuda::stream stream;
    gpufec::cuda::event start(true), stop(true);
    const double bytes = double(llrs.bytes() + bits.bytes());
    const double info_bits = double(frames * source.bits_per_frame());
    result r;
    r.group = "source";
    r.label = "source " + backend_name + " device-only";
    r.backend = backend_name;
    r.path = "device-only";
    r.input = "-";
    r.unit = "B/s";
    r.info_bits = source.bits_per_frame();
    const int reps = std::max(opt.runs, 10);
    uint64_t first = 0;
    for (int i = -2; i < reps; ++i) { // two warm-up launches
        start.record(stream.get());
        source.generate_device(first, frames, llrs.get(), bits.get(), stream.get());
        stop.record(stream.get());
        stop.synchronize();
        first += frames;
        const double s = stop.elapsed_ms_since(start) * 1e-3;
        if (i >= 0)
            r.runs.push_back(bytes / s);
    }
    r.info_bits_per_s = r.median() / bytes * info_bits;
    results.push_back(r);
#else
    (void)source, (void)opt, (void)backend_name, (void)results;
    throw gpufec::error("bench: device-only source rows need a CUDA build");
#endif
}

} // namespace gpufec_bench
