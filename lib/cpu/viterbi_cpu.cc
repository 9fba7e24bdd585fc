/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU Viterbi decoder: the windowed schedule of convolutional.h, W windows at a time,
// one window per int16 SIMD lane (inter-frame SIMD): W = 32 with AVX-512BW, 16 with
// AVX2 or portable vector code. Every lane does the same int16 arithmetic, so all
// variants give identical bits.
//
// Exactness. Path metrics are int16, renormalised every stage by subtracting the metric
// of state 0 (folded into the branch metrics); a common constant changes no decision.
// After the renormalisation every metric lies within the spread of the previous stage,
// and the spread is at most (K-1) * 2 * n * 128 <= 8 * 2 * 4 * 128 = 8192 (any state is
// reached from any other in K-1 stages, each branch metric is within n * 128 of 0), so
// with |branch metric| <= 512 nothing comes near +/-32767. Unreachable start states use
// -16384 (see unreachable_metric). ACS: new = max(m0, m1); the decision bit stored is
// "kept the p0 branch" (m0 == new, i.e. m0 >= m1), so ties keep p0 as in the reference.
//
// Layouts per group of W windows:
//  - LLRs: int8 [stage][output][lane], transposed from the frames 16x16 bytes at a time.
//  - decisions: one word per (stage, butterfly p) holding, for each lane and the two new
//    states 2p and 2p+1, the keep-p0 bit (decision_bit() gives the position).
// Traceback runs all lanes of a group interleaved, so their dependent load chains
// overlap, and packs the decoded bits 64 at a time.
#include "cpu/cpu_features.h"
#include <gpufec/viterbi.h>
#include <gpufec/viterbi_schedule.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

// The vector types never cross a non-inlined call boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace gpufec {

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GPUFEC_X86_KERNELS 1
#else
#define GPUFEC_X86_KERNELS 0
#endif

// Stands in for viterbi_neg_inf in int16. Paths from unreachable states stay below every
// reachable path during the first K-1 stages (spread there <= 8 * 2 * 4 * 128 = 8192),
// and unreachable-vs-unreachable comparisons see the same offset as in int32, so
// decisions match.
constexpr int16_t unreachable_metric = -16384;

template <int W>
struct simd;
template <>
struct simd<16> {
    typedef int16_t v __attribute__((vector_size(32)));
    typedef uint16_t vu __attribute__((vector_size(32)));
    typedef int8_t vb __attribute__((vector_size(16)));
    typedef uint32_t word;
    // Bit of lane l, new state 2p+b in the word of butterfly p: the order of AVX2's
    // packs_epi16 + movemask_epi8 (128-bit halves interleave the two states).
    static constexpr int bit(int l, uint32_t b)
    {
        return (l & 7) + 8 * static_cast<int>(b) + 16 * (l >> 3);
    }
};
template <>
struct simd<32> {
    typedef int16_t v __attribute__((vector_size(64)));
    typedef uint16_t vu __attribute__((vector_size(64)));
    typedef int8_t vb __attribute__((vector_size(32)));
    typedef uint64_t word;
    static constexpr int bit(int l, uint32_t b) { return l + 32 * static_cast<int>(b); }
};

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

template <int W>
struct group_job {
    typedef typename simd<W>::v v;
    int k, n, nstages;
    bool k7_standard;      // outtab is k7_outtab: compile-time branch table
    const int8_t* llr;     // [stage][output][lane]
    const uint8_t* outtab; // codeword of (predecessor state, input bit): outtab[2p + b]
    const uint8_t* end_flags;          // end_flags[j]: some lane ends after j stages
    typename simd<W>::word* decisions; // [stage][butterfly]
    int16_t init_other[W];             // initial metric of states != 0, per lane
    int16_t lane_len[W];
    int16_t best_state[W]; // out: best state at each lane's end
};

// Branch table of K=7 (171,133), the code almost everyone uses, built like
// conv_code::branch_output(); the decoder takes the compile-time path when its runtime
// table is equal.
constexpr uint32_t reverse_bits(uint32_t x, int k)
{
    uint32_t r = 0;
    for (int i = 0; i < k; i++)
        r |= ((x >> i) & 1u) << (k - 1 - i);
    return r;
}
constexpr int parity(uint32_t x)
{
    int p = 0;
    for (; x; x &= x - 1)
        p ^= 1;
    return p;
}
struct k7_table {
    uint8_t out[128];
};
constexpr k7_table make_k7_table()
{
    k7_table t{};
    const uint32_t taps[2] = { reverse_bits(0171, 7), reverse_bits(0133, 7) };
    for (uint32_t s = 0; s < 64; s++)
        for (uint32_t b = 0; b < 2; b++) {
            const uint32_t reg = (s << 1) | b;
            t.out[2 * s + b] = static_cast<uint8_t>(parity(reg & taps[0]) |
                                                    (parity(reg & taps[1]) << 1));
        }
    return t;
}
constexpr k7_table k7_outtab = make_k7_table();

// Keep-p0 masks of one butterfly: lanes where m0e == ne (new state 2p) and m0o == no
// (new state 2p+1), in the word layout of simd<W>::bit().
namespace portable {
struct mask {
    typedef simd<16>::v v;
    static __attribute__((always_inline)) inline uint32_t keep(v m0e, v ne, v m0o, v no)
    {
#if defined(__SSE2__)
        // The AVX2 layout from two 128-bit halves (SSE2 is baseline on x86-64).
        const v e = m0e == ne;
        const v o = m0o == no;
        __m128i eh[2], oh[2];
        std::memcpy(eh, &e, sizeof(eh));
        std::memcpy(oh, &o, sizeof(oh));
        return static_cast<uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(eh[0], oh[0]))) |
               static_cast<uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(eh[1], oh[1])))
                   << 16;
#else
        uint32_t m = 0;
        for (int l = 0; l < 16; l++) {
            m |= static_cast<uint32_t>(m0e[l] == ne[l]) << simd<16>::bit(l, 0);
            m |= static_cast<uint32_t>(m0o[l] == no[l]) << simd<16>::bit(l, 1);
        }
        return m;
#endif
    }
};
#include "viterbi_cpu_kernels.h"
void run_group(group_job<16>& job) { run_group_impl<16, mask>(job); }
} // namespace portable

#if GPUFEC_X86_KERNELS
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
struct mask {
    typedef simd<16>::v v;
    static __attribute__((always_inline)) inline uint32_t keep(v m0e, v ne, v m0o, v no)
    {
        const __m256i e = (__m256i)(m0e == ne);
        const __m256i o = (__m256i)(m0o == no);
        return static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_packs_epi16(e, o)));
    }
};
#include "viterbi_cpu_kernels.h"
void run_group(group_job<16>& job) { run_group_impl<16, mask>(job); }
} // namespace avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512bw")
namespace avx512 {
struct mask {
    typedef simd<32>::v v;
    static __attribute__((always_inline)) inline uint64_t keep(v m0e, v ne, v m0o, v no)
    {
        const uint64_t e = _mm512_cmpeq_epi16_mask((__m512i)m0e, (__m512i)ne);
        const uint64_t o = _mm512_cmpeq_epi16_mask((__m512i)m0o, (__m512i)no);
        return e | (o << 32);
    }
};
#include "viterbi_cpu_kernels.h"
void run_group(group_job<32>& job) { run_group_impl<32, mask>(job); }
} // namespace avx512
#pragma GCC pop_options
#endif

// Bits i..i+63 of the window's region (fewer at its end; the rest of acc is 0), MSB
// first: acc's bit 63 is bit i.
void store_bits(const window& win, int i, uint64_t acc)
{
    const int nbits = static_cast<int>(win.b - win.a);
    uint8_t* dst = win.out + win.a / 8 + i / 8; // regions start on 512-bit multiples
    if (nbits - i >= 64) {
        const uint64_t be = __builtin_bswap64(acc);
        std::memcpy(dst, &be, sizeof(be));
        return;
    }
    const int bytes = (nbits - i + 7) / 8;
    for (int k = 0; k < bytes; k++)
        dst[k] = static_cast<uint8_t>(acc >> (56 - 8 * k));
}

#if GPUFEC_X86_KERNELS
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
// Traceback of a group whose windows share len, a - ws and b - ws: 8 lanes per vector,
// each step gathers the decision word of every lane's state. Decision words are read as
// 32-bit words: W = 16, word (j, s >> 1), bit (l & 7) + 16 (l >> 3) + 8 (s & 1);
// W = 32, word (j, s) of the 64-bit butterfly words, bit l.
template <int W>
void traceback_uniform(const window* w,
                       size_t count,
                       int k,
                       const int16_t* best_state,
                       const typename simd<W>::word* decisions)
{
    const int half = 1 << (k - 2);
    const int len = w[0].len;
    const int ja = static_cast<int>(w[0].a - w[0].ws);
    const int jb = static_cast<int>(w[0].b - w[0].ws);
    const int row = W == 16 ? half : 2 * half; // 32-bit words per stage
    const int* dec = reinterpret_cast<const int*>(decisions);
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i idx_shift = _mm256_set1_epi64x(W == 16 ? 1 : 0);
    constexpr int groups = W / 8;
    __m256i state[groups], base[groups], acc_lo[groups], acc_hi[groups];
    for (int g = 0; g < groups; g++) {
        alignas(32) int st[8], bs[8];
        for (int i = 0; i < 8; i++) {
            const size_t l = static_cast<size_t>(8 * g + i);
            st[i] = l < count && !w[l].end_at_zero ? best_state[l] : 0;
            bs[i] = W == 16 ? (i & 7) + 16 * (g & 1) : 8 * g + i;
        }
        state[g] = _mm256_load_si256(reinterpret_cast<const __m256i*>(st));
        base[g] = _mm256_load_si256(reinterpret_cast<const __m256i*>(bs));
        acc_lo[g] = _mm256_setzero_si256();
        acc_hi[g] = _mm256_setzero_si256();
    }
    const __m128i idx_sh = _mm256_castsi256_si128(idx_shift);
    const __m128i top_sh = _mm_cvtsi32_si128(k - 2);
    for (int j = len - 1; j >= ja; j--) {
        const int* d = dec + static_cast<size_t>(j) * row;
        const bool emit = j < jb;
        for (int g = 0; g < groups; g++) {
            const __m256i s = state[g];
            if (emit) {
                // acc = (acc >> 1) | (s & 1) << 63, per lane in 64 bits.
                const __m256i bit = _mm256_and_si256(s, one);
                const __m256i lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(bit));
                const __m256i hi =
                    _mm256_cvtepu32_epi64(_mm256_extracti128_si256(bit, 1));
                acc_lo[g] = _mm256_or_si256(_mm256_srli_epi64(acc_lo[g], 1),
                                            _mm256_slli_epi64(lo, 63));
                acc_hi[g] = _mm256_or_si256(_mm256_srli_epi64(acc_hi[g], 1),
                                            _mm256_slli_epi64(hi, 63));
            }
            const __m256i idx = _mm256_srl_epi32(s, idx_sh);
            const __m256i word = _mm256_i32gather_epi32(d, idx, 4);
            __m256i sh = base[g];
            if (W == 16)
                sh = _mm256_add_epi32(sh, _mm256_slli_epi32(_mm256_and_si256(s, one), 3));
            const __m256i keep = _mm256_and_si256(_mm256_srlv_epi32(word, sh), one);
            // New state: (s >> 1) | (!keep) << (K-2).
            state[g] =
                _mm256_or_si256(_mm256_srli_epi32(s, 1),
                                _mm256_sll_epi32(_mm256_xor_si256(keep, one), top_sh));
        }
        const int i = j - ja;
        if (emit && (i & 63) == 0)
            for (int g = 0; g < groups; g++) {
                alignas(32) uint64_t a[8];
                _mm256_store_si256(reinterpret_cast<__m256i*>(a), acc_lo[g]);
                _mm256_store_si256(reinterpret_cast<__m256i*>(a + 4), acc_hi[g]);
                for (int x = 0; x < 8; x++) {
                    const size_t l = static_cast<size_t>(8 * g + x);
                    if (l < count)
                        store_bits(w[l], i, a[x]);
                }
            }
    }
}
} // namespace avx2
#pragma GCC pop_options
#endif

using cpu::simd_level;

#if defined(__SSE2__)
// rows[r] -> 16 bytes at dst + c * stride: column c of the 16x16 byte block. Four rounds
// of "interleave row k with row k+8" rotate the 8-bit (row, column) index by 4 bits.
inline void
transpose16x16(const int8_t* const* rows, size_t col, int8_t* dst, size_t stride)
{
    __m128i x[16], y[16];
    for (int r = 0; r < 16; r++)
        x[r] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r] + col));
    for (int round = 0; round < 4; round++) {
        for (int k = 0; k < 8; k++) {
            y[2 * k] = _mm_unpacklo_epi8(x[k], x[k + 8]);
            y[2 * k + 1] = _mm_unpackhi_epi8(x[k], x[k + 8]);
        }
        std::memcpy(x, y, sizeof(x));
    }
    for (int c = 0; c < 16; c++)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + c * stride), x[c]);
}
#endif

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
        d_k7_standard =
            S == 64 && code.n() == 2 &&
            std::equal(d_outtab.begin(), d_outtab.end(), std::begin(k7_outtab.out));
        // GPUFEC_CPU_SIMD caps the level (tests compare the variants).
        d_simd = cpu::simd_level_in_use();
        if (!GPUFEC_X86_KERNELS)
            d_simd = simd_level::portable;
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

    //! The batch's window lists live in the slot's host workspace (see window_lists).
    size_t host_workspace_bytes(const batch_limits& limits) const override
    {
        return window_list_bytes(limits.max_frames * windows_of(d_code.frame_bits()));
    }

    //! Worker scratch for the lane count in use, sized for the longest window.
    std::unique_ptr<scratch> make_scratch() const override
    {
        if (d_simd == simd_level::avx512)
            return std::make_unique<workspace<32>>(max_window_len(), d_code);
        return std::make_unique<workspace<16>>(max_window_len(), d_code);
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        size_t total = 0;
        for (size_t f = 0; f < batch.num_frames; f++) {
            const frame_extent& fe = batch.frames[f];
            const size_t info = output_bits_for_input(fe.in_items);
            if (fe.out_bits != info)
                throw error("viterbi: frame " + std::to_string(f) + " has " +
                            std::to_string(fe.in_items) + " LLRs, which decode to " +
                            std::to_string(info) +
                            " bits, but out_bits = " + std::to_string(fe.out_bits));
            total += windows_of(info);
        }
        // The engine gives every slot a host workspace of host_workspace_bytes(limits)
        // and never launches a batch beyond its limits; outside the engine (no
        // workspace, e.g. decode_on_this_thread, which makes its scratch per call too)
        // the lists are allocated here.
        std::vector<unsigned char> own;
        void* mem = ctx.host_workspace;
        if (!mem) {
            own.resize(window_list_bytes(total));
            mem = own.data();
        }
        const window_lists lists = carve(mem, total);

        const bool tb = d_code.term() == termination::tail_biting;
        const bool term = d_code.term() == termination::terminated;
        const int32_t tail = static_cast<int32_t>(d_code.stages(0));
        size_t count = 0;
        for (size_t f = 0; f < batch.num_frames; f++) {
            const frame_extent& fe = batch.frames[f];
            const uint32_t regions = viterbi_regions(fe.out_bits, d_sched.region_bits);
            for (uint32_t r = 0; r < regions; r++) {
                const viterbi_window_span g =
                    viterbi_window_at(static_cast<int32_t>(fe.out_bits),
                                      tail,
                                      static_cast<int32_t>(r),
                                      d_sched.region_bits,
                                      d_sched.overlap,
                                      tb,
                                      term);
                window w;
                w.in = batch.in + fe.in_offset;
                w.out = batch.out + fe.out_offset;
                w.a = g.a;
                w.b = g.b;
                w.ws = g.ws;
                w.T = static_cast<int64_t>(fe.out_bits) + tail;
                w.len = g.we - g.ws;
                w.from_zero = g.from_zero;
                w.end_at_zero = g.end_at_zero;
                lists.built[count++] = w;
            }
            if (batch.status)
                batch.status[f] = frame_status{ 1, true };
        }
        // Equal lengths share a group, so few lanes idle at the end of a group: a stable
        // counting sort by decreasing length.
        const int maxlen = max_window_len();
        std::fill(lists.first_of_len, lists.first_of_len + maxlen + 2, 0u);
        for (size_t i = 0; i < count; i++)
            lists.first_of_len[maxlen - lists.built[i].len + 1]++;
        for (int r = 1; r <= maxlen + 1; r++)
            lists.first_of_len[r] += lists.first_of_len[r - 1];
        for (size_t i = 0; i < count; i++)
            lists.sorted[lists.first_of_len[maxlen - lists.built[i].len]++] =
                lists.built[i];
        const window* windows = lists.sorted;

        const size_t lanes = d_simd == simd_level::avx512 ? 32 : 16;
        const size_t groups = (count + lanes - 1) / lanes;
        for_each_item(ctx, groups, [&](size_t g, size_t worker) {
            const size_t first = g * lanes;
            const size_t n = std::min<size_t>(lanes, count - first);
            if (lanes == 32)
                decode_group<32>(
                    &windows[first], n, ctx.worker_scratch<workspace<32>>(worker));
            else
                decode_group<16>(
                    &windows[first], n, ctx.worker_scratch<workspace<16>>(worker));
        });
    }

    std::string name() const override
    {
        return "viterbi " + d_code.describe() + " on cpu";
    }

private:
    // Windows of a frame of `info` bits.
    size_t windows_of(size_t info) const
    {
        return viterbi_regions(static_cast<uint32_t>(info), d_sched.region_bits);
    }
    // Stages of the longest window (a region plus the overlap on both sides).
    int max_window_len() const { return d_sched.region_bits + 2 * d_sched.overlap; }

    // A batch's windows in frame order (built), the same sorted by decreasing length,
    // and the counting sort's table (max_window_len() + 2 entries), carved out of one
    // block: the slot's host workspace.
    struct window_lists {
        window* built;
        window* sorted;
        uint32_t* first_of_len;
    };
    size_t window_list_bytes(size_t windows) const
    {
        return alignof(window) + 2 * windows * sizeof(window) +
               (static_cast<size_t>(max_window_len()) + 2) * sizeof(uint32_t);
    }
    static window_lists carve(void* mem, size_t windows)
    {
        const uintptr_t a = reinterpret_cast<uintptr_t>(mem);
        window* built = reinterpret_cast<window*>((a + alignof(window) - 1) &
                                                  ~uintptr_t(alignof(window) - 1));
        return { built,
                 built + windows,
                 reinterpret_cast<uint32_t*>(built + 2 * windows) };
    }

    // One worker's scratch (made by make_scratch(), owned by the engine), sized for
    // windows of up to `maxlen` stages.
    template <int W>
    struct workspace : scratch {
        workspace(int maxlen, const conv_code& code)
            : llr_storage(static_cast<size_t>(maxlen) * code.n() * W + 64),
              decisions(static_cast<size_t>(maxlen) * (code.num_states() / 2)),
              end_flags(static_cast<size_t>(maxlen) + 1)
        {
        }
        std::vector<int8_t> llr_storage; // over-allocated; llr() is 64-byte aligned
        int8_t* llr()
        {
            const auto addr = reinterpret_cast<uintptr_t>(llr_storage.data());
            return llr_storage.data() + ((64 - (addr & 63)) & 63);
        }
        std::vector<typename simd<W>::word> decisions;
        std::vector<uint8_t> end_flags;
    };

    // Int8 LLR of output i at (wrapped) stage t; 0 where punctured away.
    void gather_stage(const llr8_t* in, int64_t t, int8_t* dst, int n, int stride) const
    {
        if (!d_code.punctured()) {
            const llr8_t* src = in + t * n;
            for (int i = 0; i < n; i++)
                dst[i * stride] = src[i];
            return;
        }
        const size_t period = d_code.puncture_period();
        const size_t ones = d_code.kept_per_period();
        const size_t p = static_cast<size_t>(t) * static_cast<size_t>(n);
        size_t q = p / period;
        size_t r = p % period;
        for (int i = 0; i < n; i++) {
            dst[i * stride] = d_code.kept(r) ? in[q * ones + d_code.kept_before(r)] : 0;
            if (++r == period) {
                r = 0;
                q++;
            }
        }
    }

    // LLRs of the group's windows into [stage][output][lane] int8.
    template <int W>
    void gather_group(const window* w, size_t count, int8_t* llr) const
    {
        const int n = d_code.n();
        const bool tb = d_code.term() == termination::tail_biting;
        // Unpunctured windows inside their frame are contiguous runs of len * n LLRs.
        bool contiguous = !d_code.punctured() && count == static_cast<size_t>(W);
        int minlen = w[0].len;
        for (size_t l = 0; l < count; l++) {
            contiguous = contiguous && w[l].ws >= 0 && w[l].ws + w[l].len <= w[l].T;
            minlen = std::min(minlen, w[l].len);
        }
        size_t done_cols = 0;
#if defined(__SSE2__)
        if (contiguous) {
            const int8_t* rows[W];
            for (int l = 0; l < W; l++)
                rows[l] = w[l].in + w[l].ws * n;
            const size_t cols = static_cast<size_t>(minlen) * n;
            for (; done_cols + 16 <= cols; done_cols += 16)
                for (int g = 0; g < W; g += 16)
                    transpose16x16(rows + g, done_cols, llr + done_cols * W + g, W);
            for (size_t l = 0; l < count; l++) {
                const size_t end = static_cast<size_t>(w[l].len) * n;
                for (size_t c = done_cols; c < end; c++)
                    llr[c * W + l] = rows[l][c];
            }
            return;
        }
#endif
        for (size_t l = 0; l < count; l++) {
            const window& win = w[l];
            for (int j = 0; j < win.len; j++) {
                int64_t t = win.ws + j;
                if (tb)
                    t = ((t % win.T) + win.T) % win.T;
                gather_stage(win.in, t, llr + static_cast<size_t>(j) * n * W + l, n, W);
            }
        }
    }

    template <int W>
    void decode_group(const window* w, size_t count, workspace<W>& ws) const
    {
        const int n = d_code.n();
        int maxlen = 0;
        for (size_t l = 0; l < count; l++)
            maxlen = std::max(maxlen, w[l].len);
        // Lanes past `count` and stages past a lane's end decode whatever the buffer
        // holds; lanes never mix, so those results are simply not read.
        int8_t* llr = ws.llr();
        std::fill(ws.end_flags.begin(), ws.end_flags.begin() + maxlen + 1, 0);

        group_job<W> job;
        job.k = d_code.k();
        job.n = n;
        job.nstages = maxlen;
        job.k7_standard = d_k7_standard;
        job.llr = llr;
        job.outtab = d_outtab.data();
        job.end_flags = ws.end_flags.data();
        job.decisions = ws.decisions.data();
        for (int l = 0; l < W; l++) {
            job.init_other[l] = 0;
            job.lane_len[l] = -1;
            job.best_state[l] = 0;
        }
        gather_group<W>(w, count, llr);
        for (size_t l = 0; l < count; l++) {
            const window& win = w[l];
            job.init_other[l] = win.from_zero ? unreachable_metric : 0;
            job.lane_len[l] = static_cast<int16_t>(win.len);
            if (!win.end_at_zero)
                ws.end_flags[win.len] = 1;
        }

        run(job);

#if GPUFEC_X86_KERNELS
        bool uniform = d_simd != simd_level::portable;
        for (size_t l = 1; l < count; l++)
            uniform = uniform && w[l].len == w[0].len &&
                      w[l].a - w[l].ws == w[0].a - w[0].ws &&
                      w[l].b - w[l].ws == w[0].b - w[0].ws;
        if (uniform) {
            avx2::traceback_uniform<W>(
                w, count, d_code.k(), job.best_state, ws.decisions.data());
            return;
        }
#endif
        traceback<W>(w, count, maxlen, job.best_state, ws.decisions.data());
    }

    void run(group_job<16>& job) const
    {
#if GPUFEC_X86_KERNELS
        if (d_simd == simd_level::avx2) {
            avx2::run_group(job);
            return;
        }
#endif
        portable::run_group(job);
    }

    void run(group_job<32>& job) const
    {
#if GPUFEC_X86_KERNELS
        avx512::run_group(job);
#else
        (void)job;
        throw error("viterbi cpu: no 32-lane kernel on this platform");
#endif
    }

    // All lanes step back together (independent chains overlap in the pipeline). The
    // decoded bit of stage j (a <= j < b) goes to output bit j - a, MSB first: 64 bits
    // are collected in a word and stored big-endian.
    template <int W>
    void traceback(const window* w,
                   size_t count,
                   int maxlen,
                   const int16_t* best_state,
                   const typename simd<W>::word* decisions) const
    {
        typedef typename simd<W>::word word;
        const int S = d_code.num_states();
        const int half = S / 2;
        const uint32_t top = static_cast<uint32_t>(half);
        uint32_t state[W];
        int len[W], ja[W], jb[W], shift0[W];
        uint64_t acc[W];
        int jmin = maxlen;
        for (size_t l = 0; l < count; l++) {
            const window& win = w[l];
            state[l] = win.end_at_zero ? 0u : static_cast<uint32_t>(best_state[l]);
            len[l] = win.len;
            ja[l] = static_cast<int>(win.a - win.ws);
            jb[l] = static_cast<int>(win.b - win.ws);
            shift0[l] = simd<W>::bit(static_cast<int>(l), 0);
            acc[l] = 0;
            jmin = std::min(jmin, ja[l]);
        }
        const int bshift = simd<W>::bit(0, 1) - simd<W>::bit(0, 0);
        for (int j = maxlen - 1; j >= jmin; j--) {
            const word* d = decisions + static_cast<size_t>(j) * half;
            for (size_t l = 0; l < count; l++) {
                if (j >= len[l] || j < ja[l])
                    continue;
                const uint32_t s = state[l];
                if (j < jb[l]) {
                    acc[l] = (acc[l] >> 1) | (static_cast<uint64_t>(s & 1u) << 63);
                    const int i = j - ja[l];
                    if ((i & 63) == 0)
                        store_bits(w[l], i, acc[l]);
                }
                const uint32_t keep =
                    static_cast<uint32_t>(d[s >> 1] >> (shift0[l] + bshift * (s & 1u))) &
                    1u;
                state[l] = (s >> 1) | (keep ? 0u : top);
            }
        }
    }

    conv_code d_code;
    viterbi_schedule d_sched;
    std::vector<uint8_t> d_outtab;
    bool d_k7_standard = false;
    simd_level d_simd = simd_level::portable;
};

} // namespace

std::unique_ptr<batch_decoder> make_viterbi_decoder_cpu(const conv_code& code)
{
    return std::make_unique<viterbi_decoder_cpu>(code);
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
    decode_on_this_thread(dec, batch);
    unpack_bits(packed.data(), out_bits, info);
    return info;
}

} // namespace gpufec
