/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU Viterbi decoder: the windowed schedule of conv_code.h, 16 windows at a time, one
// window per SIMD lane (inter-frame SIMD). Path metrics are int16, renormalised every
// stage by subtracting the metric of state 0; this subtracts the same constant from all
// candidates of every comparison, so decisions equal those of the int32 algorithm.
#include <gpufec/viterbi.h>

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

// The 32-byte vector types never cross a non-inlined call boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace gpufec {

namespace {

constexpr int lanes = 16;
typedef int16_t v16s __attribute__((vector_size(32)));
typedef uint16_t v16u __attribute__((vector_size(32)));
typedef int8_t v16b __attribute__((vector_size(16)));

// Stands in for viterbi_neg_inf in int16. Paths from unreachable states stay below every
// reachable path during the first K-1 stages (spread there <= 8 * 2 * 4 * 128 = 8192),
// and unreachable-vs-unreachable comparisons see the same offset as in int32, so
// decisions match.
constexpr int16_t unreachable_metric = -16384;

struct window {
    const llr8_t* in;
    uint8_t* out;     // first byte of the frame's packed output
    int64_t ws;       // first trellis stage of the window (may be < 0 for tail-biting)
    int64_t a, b;     // decoded region [a, b) of information stages
    int64_t T;        // trellis stages of the frame
    int len;          // stages in the window
    bool from_zero;   // known start state 0 (pm[0] = 0, others unreachable)
    bool end_at_zero; // traceback from state 0
};

struct group_job {
    int k, n, nstages;
    const v16s* llr;       // [stage][output] lane vectors
    const uint8_t* outtab; // codeword of (predecessor state, input bit): outtab[2p + b]
    const uint8_t* end_flags; // end_flags[j]: some lane ends after j stages
    uint16_t* decisions;      // [stage][state] lane bit masks
    v16s init_other;          // initial metric of states != 0, per lane
    int16_t lane_len[lanes];
    int16_t best_state[lanes]; // out: best state at each lane's end
};

__attribute__((always_inline)) inline v16s vadd(v16s a, v16s b)
{
    return (v16s)((v16u)a + (v16u)b);
}
__attribute__((always_inline)) inline v16s vsub(v16s a, v16s b)
{
    return (v16s)((v16u)a - (v16u)b);
}

__attribute__((always_inline)) inline uint32_t lane_mask(v16s d)
{
    const v16b narrow = __builtin_convertvector(d, v16b);
#if defined(__x86_64__) || defined(__i386__)
    return static_cast<uint32_t>(_mm_movemask_epi8((__m128i)narrow));
#else
    uint32_t m = 0;
    for (int l = 0; l < lanes; l++)
        m |= static_cast<uint32_t>(narrow[l] & 1) << l;
    return m;
#endif
}

template <int K, int N>
__attribute__((always_inline)) inline void acs_group(group_job& job)
{
    constexpr int S = 1 << (K - 1);
    constexpr int half = S / 2;
    constexpr int C = 1 << N;
    alignas(32) v16s pm_buf[2][S];
    v16s* pm = pm_buf[0];
    v16s* npm = pm_buf[1];
    pm[0] = v16s{};
    for (int s = 1; s < S; s++)
        pm[s] = job.init_other;
    uint8_t out[2 * S];
    std::memcpy(out, job.outtab, sizeof(out));

    for (int j = 0; j < job.nstages; j++) {
        const v16s* llr = job.llr + static_cast<size_t>(j) * N;
        // Branch metrics per codeword, minus pm[0] (the per-stage renormalisation).
        v16s bm[C];
        const v16s renorm = pm[0];
        for (int c = 0; c < C / 2; c++) {
            v16s m = v16s{};
            for (int i = 0; i < N; i++)
                m = ((c >> i) & 1) ? vsub(m, llr[i]) : vadd(m, llr[i]);
            bm[c] = vsub(m, renorm);
            bm[(C - 1) ^ c] = vsub(vsub(v16s{}, m), renorm);
        }
        uint16_t* dec = job.decisions + static_cast<size_t>(j) * S;
        for (int p = 0; p < half; p++) {
            const v16s a = pm[p];
            const v16s c = pm[p + half];
            for (int b = 0; b < 2; b++) {
                const v16s m0 = vadd(a, bm[out[2 * p + b]]);
                const v16s m1 = vadd(c, bm[out[2 * (p + half) + b]]);
                const v16s d = m1 > m0;
                npm[2 * p + b] = d ? m1 : m0;
                dec[2 * p + b] = static_cast<uint16_t>(lane_mask(d));
            }
        }
        std::swap(pm, npm);
        if (job.end_flags[j + 1]) {
            // Best state, lowest index on ties.
            v16s best = pm[0];
            v16s idx = v16s{};
            for (int s = 1; s < S; s++) {
                const v16s gt = pm[s] > best;
                best = gt ? pm[s] : best;
                idx = gt ? (v16s{} + static_cast<int16_t>(s)) : idx;
            }
            for (int l = 0; l < lanes; l++)
                if (job.lane_len[l] == j + 1)
                    job.best_state[l] = idx[l];
        }
    }
}

// One entry point, cloned for AVX2 and baseline x86-64 (picked at load time).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void run_group(group_job& job)
{
#define GPUFEC_ACS_CASE(K, N) \
    case K * 8 + N:           \
        acs_group<K, N>(job); \
        break;
#define GPUFEC_ACS_K(K)   \
    GPUFEC_ACS_CASE(K, 2) \
    GPUFEC_ACS_CASE(K, 3) \
    GPUFEC_ACS_CASE(K, 4)
    switch (job.k * 8 + job.n) {
        GPUFEC_ACS_K(3)
        GPUFEC_ACS_K(4)
        GPUFEC_ACS_K(5)
        GPUFEC_ACS_K(6)
        GPUFEC_ACS_K(7)
        GPUFEC_ACS_K(8)
        GPUFEC_ACS_K(9)
    default:
        throw error("viterbi cpu: unsupported K/n");
    }
#undef GPUFEC_ACS_K
#undef GPUFEC_ACS_CASE
}

class viterbi_decoder_cpu : public batch_decoder
{
public:
    explicit viterbi_decoder_cpu(const conv_code& code)
        : d_code(code), d_sched(default_viterbi_schedule(code))
    {
        const int S = code.num_states();
        d_outtab.resize(2 * S);
        for (int p = 0; p < S; p++)
            for (int b = 0; b < 2; b++)
                d_outtab[2 * p + b] = static_cast<uint8_t>(code.branch_output(p, b));
        const auto& mask = code.puncture_mask();
        d_prefix.resize(mask.size());
        size_t ones = 0;
        for (size_t i = 0; i < mask.size(); i++) {
            d_prefix[i] = ones;
            ones += mask[i];
        }
        d_mask_ones = ones;
    }

    backend_kind backend() const override { return backend_kind::cpu; }
    size_t max_input_items_per_frame() const override { return d_code.coded_bits(); }
    size_t default_input_items() const override { return d_code.coded_bits(); }
    size_t default_output_bits() const override
    {
        return static_cast<size_t>(d_code.frame_bits());
    }

    size_t output_bits_for_input(size_t input_items) const override
    {
        const size_t info = d_code.info_bits_for_coded(input_items);
        if (info == 0 || info > static_cast<size_t>(d_code.frame_bits())) {
            const size_t full = d_code.coded_bits();
            std::string msg = "viterbi: a frame of " + std::to_string(input_items) +
                              " LLRs matches no frame length of " + d_code.describe() +
                              "; allowed: coded_bits(I) for I = 1.." +
                              std::to_string(d_code.frame_bits()) + " (" +
                              std::to_string(d_code.coded_bits(1)) + ", " +
                              std::to_string(d_code.coded_bits(2)) + ", ..., " +
                              std::to_string(full) + ")";
            if (input_items > d_code.coded_bits(1) && input_items < full) {
                // Largest frame below the request: coded_bits() increases with I.
                size_t lo = 1, hi = static_cast<size_t>(d_code.frame_bits());
                while (lo + 1 < hi) {
                    const size_t mid = (lo + hi) / 2;
                    (d_code.coded_bits(mid) < input_items ? lo : hi) = mid;
                }
                msg += "; nearest: " + std::to_string(d_code.coded_bits(lo)) + " or " +
                       std::to_string(d_code.coded_bits(lo + 1));
            }
            throw error(msg);
        }
        return info;
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        std::vector<window> windows;
        const int64_t D = d_sched.region_bits;
        const int64_t V = d_sched.overlap;
        const bool tb = d_code.term() == termination::tail_biting;
        const bool term = d_code.term() == termination::terminated;
        for (size_t f = 0; f < batch.num_frames; f++) {
            const frame_extent& fe = batch.frames[f];
            const size_t info = output_bits_for_input(fe.in_items);
            if (fe.out_bits != info)
                throw error("viterbi: frame " + std::to_string(f) + " has " +
                            std::to_string(fe.in_items) + " LLRs, which decode to " +
                            std::to_string(info) +
                            " bits, but out_bits = " + std::to_string(fe.out_bits));
            const int64_t I = static_cast<int64_t>(info);
            const int64_t T = static_cast<int64_t>(d_code.stages(info));
            for (int64_t a = 0; a < I; a += D) {
                window w;
                w.in = batch.in + fe.in_offset;
                w.out = batch.out + fe.out_offset;
                w.a = a;
                w.b = std::min(a + D, I);
                w.T = T;
                int64_t we;
                if (tb) {
                    w.ws = a - V;
                    we = w.b + V;
                } else {
                    w.ws = std::max<int64_t>(0, a - V);
                    we = std::min(T, w.b + V);
                }
                w.len = static_cast<int>(we - w.ws);
                w.from_zero = !tb && w.ws == 0;
                w.end_at_zero = term && we == T;
                windows.push_back(w);
            }
            if (batch.status)
                batch.status[f] = frame_status{ 1, true };
        }
        // Equal lengths share a group, so few lanes idle at the end of a group.
        std::stable_sort(windows.begin(),
                         windows.end(),
                         [](const window& x, const window& y) { return x.len > y.len; });
        const size_t groups = (windows.size() + lanes - 1) / lanes;
        auto body = [&](size_t g) {
            const size_t first = g * lanes;
            const size_t count = std::min<size_t>(lanes, windows.size() - first);
            decode_group(&windows[first], count);
        };
        if (ctx.parallel_for && groups > 1)
            ctx.parallel_for(groups, body);
        else
            for (size_t g = 0; g < groups; g++)
                body(g);
    }

    std::string name() const override
    {
        return "viterbi " + d_code.describe() + " on cpu";
    }

private:
    struct workspace {
        std::vector<int16_t> llr_storage; // over-allocated; llr() is 32-byte aligned
        int16_t* llr()
        {
            const auto addr = reinterpret_cast<uintptr_t>(llr_storage.data());
            return llr_storage.data() + ((32 - (addr & 31)) & 31) / sizeof(int16_t);
        }
        std::vector<uint16_t> decisions;
        std::vector<uint8_t> end_flags;
        std::vector<uint8_t> bits;
    };

    // Int8 LLR of output i at (wrapped) stage t; 0 where punctured away.
    void gather_stage(const llr8_t* in, int64_t t, int16_t* dst, int n) const
    {
        if (d_prefix.empty()) {
            const llr8_t* src = in + t * n;
            for (int i = 0; i < n; i++)
                dst[i * lanes] = src[i];
            return;
        }
        const auto& mask = d_code.puncture_mask();
        const size_t period = mask.size();
        const size_t p = static_cast<size_t>(t) * static_cast<size_t>(n);
        size_t q = p / period;
        size_t r = p % period;
        for (int i = 0; i < n; i++) {
            dst[i * lanes] = mask[r] ? in[q * d_mask_ones + d_prefix[r]] : 0;
            if (++r == period) {
                r = 0;
                q++;
            }
        }
    }

    void decode_group(const window* w, size_t count) const
    {
        thread_local workspace ws;
        const int n = d_code.n();
        const int S = d_code.num_states();
        int maxlen = 0;
        for (size_t l = 0; l < count; l++)
            maxlen = std::max(maxlen, w[l].len);
        ws.llr_storage.assign(static_cast<size_t>(maxlen) * n * lanes + lanes, 0);
        int16_t* llr = ws.llr();
        ws.decisions.resize(static_cast<size_t>(maxlen) * S);
        ws.end_flags.assign(static_cast<size_t>(maxlen) + 1, 0);
        ws.bits.resize(d_sched.region_bits);

        group_job job;
        job.k = d_code.k();
        job.n = n;
        job.nstages = maxlen;
        job.llr = reinterpret_cast<const v16s*>(llr);
        job.outtab = d_outtab.data();
        job.end_flags = ws.end_flags.data();
        job.decisions = ws.decisions.data();
        job.init_other = v16s{};
        for (int l = 0; l < lanes; l++) {
            job.lane_len[l] = -1;
            job.best_state[l] = 0;
        }

        const bool tb = d_code.term() == termination::tail_biting;
        for (size_t l = 0; l < count; l++) {
            const window& win = w[l];
            int16_t* base = llr + l;
            for (int j = 0; j < win.len; j++) {
                int64_t t = win.ws + j;
                if (tb)
                    t = ((t % win.T) + win.T) % win.T;
                gather_stage(win.in, t, base + static_cast<size_t>(j) * n * lanes, n);
            }
            job.init_other[l] = win.from_zero ? unreachable_metric : 0;
            job.lane_len[l] = static_cast<int16_t>(win.len);
            if (!win.end_at_zero)
                ws.end_flags[win.len] = 1;
        }

        run_group(job);

        for (size_t l = 0; l < count; l++) {
            const window& win = w[l];
            uint32_t s = win.end_at_zero ? 0u : static_cast<uint32_t>(job.best_state[l]);
            const int ja = static_cast<int>(win.a - win.ws);
            const int jb = static_cast<int>(win.b - win.ws);
            const uint32_t top = static_cast<uint32_t>(S / 2);
            for (int j = win.len - 1; j >= ja; j--) {
                if (j < jb)
                    ws.bits[j - ja] = static_cast<uint8_t>(s & 1u);
                const uint32_t d =
                    (ws.decisions[static_cast<size_t>(j) * S + s] >> l) & 1u;
                s = (s >> 1) | (d ? top : 0u);
            }
            const int nbits = jb - ja;
            uint8_t* dst = win.out + win.a / 8; // regions start on multiples of 512 bits
            for (int byte = 0; byte < (nbits + 7) / 8; byte++) {
                uint8_t v = 0;
                for (int k = 0; k < 8; k++) {
                    const int i = byte * 8 + k;
                    v = static_cast<uint8_t>((v << 1) | (i < nbits ? ws.bits[i] : 0));
                }
                dst[byte] = v;
            }
        }
    }

    conv_code d_code;
    viterbi_schedule d_sched;
    std::vector<uint8_t> d_outtab;
    std::vector<size_t> d_prefix;
    size_t d_mask_ones = 0;
};

} // namespace

std::unique_ptr<batch_decoder> make_viterbi_decoder_cpu(const conv_code& code)
{
    return std::make_unique<viterbi_decoder_cpu>(code);
}

std::unique_ptr<batch_decoder> make_viterbi_decoder(const conv_code& code,
                                                    const backend_spec& backend)
{
    if (backend.kind == backend_kind::cuda)
        return make_viterbi_decoder_cuda(code, backend.device);
    return make_viterbi_decoder_cpu(code);
}

size_t viterbi_decode_frame_cpu(const conv_code& code,
                                const llr8_t* llrs,
                                size_t n_llrs,
                                uint8_t* out_bits)
{
    viterbi_decoder_cpu dec(code);
    const size_t info = dec.output_bits_for_input(n_llrs);
    std::vector<uint8_t> packed(aligned_packed_bytes(info));
    frame_extent fe{ 0, static_cast<uint32_t>(n_llrs), 0, static_cast<uint32_t>(info) };
    frame_status st;
    frame_batch batch;
    batch.in = llrs;
    batch.out = packed.data();
    batch.frames = &fe;
    batch.num_frames = 1;
    batch.status = &st;
    exec_ctx ctx;
    dec.decode(batch, ctx);
    unpack_bits(packed.data(), out_bits, info);
    return info;
}

} // namespace gpufec
