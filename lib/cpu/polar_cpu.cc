/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU SC / CA-SCL polar decoder, and the option checks shared with BP
// (polar_bp_cpu.cc).
//
// Tree layout (x = u G_N, G_N = F^(x)n, no bit reversal): a node at level l covers 2^l
// codeword bits; x = [(u1 ^ u2) G, u2 G], so the left child sees f(a, b) of the two
// halves (a, b) of its parent's LLRs, the right child g = b + (1 - 2 v) a with v the
// re-encoded left child, and the parent's bits are [v ^ w, w]. Per level the LLRs
// (llr + 2^l, 2^l values; level n holds the channel) and the re-encoded bits of the
// last left child (left + 2^l) are kept. Going from leaf i-1 to leaf i only levels
// 0..ctz(i) change: a g at level ctz(i), then f down to the leaf.
#include "cpu/fixed_length_decoder.h"
#include "cpu/polar_common.h"
#include "cpu/polar_program.h"
#include <gpufec/polar_decoding.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace gpufec {

namespace {

inline float f_minsum(float a, float b)
{
    const float m = std::min(std::fabs(a), std::fabs(b));
    return ((a < 0) != (b < 0)) ? -m : m;
}

int ctz_nonzero(unsigned x)
{
    int t = 0;
    for (; !(x & 1u); x >>= 1)
        t++;
    return t;
}

// State of one decoding path.
struct path {
    std::vector<float> llr;    // N: level l < n at offset 2^l (channel kept apart)
    std::vector<uint8_t> left; // N: re-encoded left child at level l < n, offset 2^l
    std::vector<uint8_t> u;    // N decided bits
    std::vector<float> soft;   // N decision LLRs (sign = decision), when asked for
    float metric = 0;

    void allocate(int N)
    {
        llr.resize(N);
        left.resize(N);
        u.resize(N);
        soft.resize(N);
    }
    //! Resets a path allocated for N bits (soft is written only when asked for).
    void init(bool with_soft)
    {
        std::fill(llr.begin(), llr.end(), 0.f);
        std::fill(left.begin(), left.end(), 0);
        std::fill(u.begin(), u.end(), 0);
        if (with_soft)
            std::fill(soft.begin(), soft.end(), 0.f);
        metric = 0;
    }
};

// One worker's scratch (made by make_scratch(), owned by the engine), sized at
// construction for the code and the list size so that decoding allocates nothing.
struct workspace : scratch {
    workspace(int N, int K, int list)
        : paths(list),
          chosen(list),
          channel(N),
          cands(2 * list),
          keep(2 * list),
          used(list),
          c(K),
          order(list),
          node_cands(2 * list),
          next_cands(2 * list),
          positions(N),
          bits(N)
    {
        for (auto& p : paths)
            p.allocate(N);
        for (auto& p : chosen)
            p.allocate(N);
        free_slots.reserve(list);
        live.reserve(list);
        next_live.reserve(list);
        rank.reserve(list);
    }

    struct cand {
        float metric;
        int index; // 2 * path + bit
    };
    std::vector<path> paths, chosen;
    std::vector<float> channel;
    std::vector<cand> cands;
    std::vector<int> keep, free_slots, live, next_live, rank;
    std::vector<uint8_t> used, c;

    // Fast-SCL nodes: a candidate is a path at the node's start (origin, its place in
    // the list then), its flips so far (bit t: the t-th least reliable position) and,
    // at an SPC node, whether the least reliable position is flipped for the parity.
    struct node_cand {
        int origin;
        uint32_t flips;
        bool weakest_flipped;
        float metric;
    };
    std::vector<std::array<int, 32>> order; // per origin: positions by (|LLR|, position)
    std::vector<node_cand> node_cands, next_cands;
    std::vector<int> positions;
    std::vector<uint8_t> bits;
};

// Decision LLR of the soft output: the leaf's reliability with the decision's sign.
inline float decision_llr(float leaf, uint8_t bit)
{
    return bit ? -std::fabs(leaf) : std::fabs(leaf);
}

// Computes the LLRs of the node of 2^level leaves from leaf i (levels level..top, top =
// n-1 for i = 0) and returns them (at offset 2^level of the path's LLR array).
inline const float* compute_node(path& p, const float* channel, int n, int i, int level)
{
    float* L = p.llr.data();
    int top = (i == 0) ? n - 1 : ctz_nonzero(static_cast<unsigned>(i));
    {
        // Level top: g when this node is a right child (i > 0), else f (i == 0).
        const int s = 1 << top;
        const float* a = top == n - 1 ? channel : L + 2 * s;
        const float* b = a + s;
        float* o = L + s;
        if (i == 0) {
            for (int j = 0; j < s; j++)
                o[j] = f_minsum(a[j], b[j]);
        } else {
            const uint8_t* v = p.left.data() + s;
            for (int j = 0; j < s; j++)
                o[j] = v[j] ? b[j] - a[j] : b[j] + a[j];
        }
    }
    for (int l = top - 1; l >= level; l--) {
        const int s = 1 << l;
        const float* a = L + 2 * s;
        const float* b = a + s;
        float* o = L + s;
        for (int j = 0; j < s; j++)
            o[j] = f_minsum(a[j], b[j]);
    }
    return L + (1 << level);
}

// Computes the leaf LLR of bit i.
inline float compute_leaf(path& p, const float* channel, int n, int i)
{
    return compute_node(p, channel, n, i, 0)[0];
}

// Records decision u of leaf i and propagates the partial sums up to the first left
// child.
inline void commit_bit(path& p, int n, int i, uint8_t bit)
{
    p.u[i] = bit;
    uint8_t* B = p.left.data();
    // cur holds the re-encoded bits of the node just finished at level l; a right child
    // combines with its stored left sibling into the parent (level l+1, stored at the
    // parent's left slot only if the parent itself is a left child).
    uint8_t cur_buf[2048];
    cur_buf[0] = bit;
    int len = 1;
    for (int l = 0; l < n; l++) {
        const int node = i >> l;
        if ((node & 1) == 0) {
            std::memcpy(B + len, cur_buf, len);
            return;
        }
        const uint8_t* v = B + len;
        // parent = [v ^ w, w]
        for (int j = len - 1; j >= 0; j--) {
            cur_buf[len + j] = cur_buf[j];
            cur_buf[j] = static_cast<uint8_t>(v[j] ^ cur_buf[j]);
        }
        len *= 2;
    }
}

class polar_decoder_cpu : public fixed_length_cpu_decoder
{
public:
    polar_decoder_cpu(const nr_polar_code& code, const polar_decoder_options& opt)
        : fixed_length_cpu_decoder(
              "polar", code.e(), polar_crc_rule(code, opt.rntis).output_bits()),
          d_code(code),
          d_scl(opt.algorithm == polar_algorithm::scl ||
                opt.algorithm == polar_algorithm::fast_scl),
          d_fast_list(opt.algorithm == polar_algorithm::fast_scl),
          d_list(opt.list_size),
          d_rule(code, opt.rntis)
    {
        d_fill = polar_channel_fill(code);
        d_pc = polar_pc_flags(code);
        if (d_fast_list) {
            // The rate-1 and SPC nodes (largest first, none holding a parity-check
            // leaf) by their first leaf, below level n - 1 as the GPU's list kernel
            // needs them (a child of the root is split into its children's nodes).
            namespace pp = polar_program;
            pp::node_rules rules;
            rules.rate1 = rules.spc = true;
            std::vector<pp::op> program = pp::make(code.frozen(), code.n(), rules, &d_pc);
            pp::split_root_children(program, code.frozen(), code.n(), rules, &d_pc);
            d_node.assign(code.N(), 0);
            for (const pp::op& o : program)
                if (o.kind == polar_program::rate1_op || o.kind == polar_program::spc_op)
                    d_node[o.first] = static_cast<uint16_t>(
                        o.level << 4 |
                        (o.kind == polar_program::spc_op ? spc_node : rate1_node));
        }
    }

    bool has_soft_output() const override { return !d_rule.detects_rnti(); }

    std::unique_ptr<scratch> make_scratch() const override
    {
        return std::make_unique<workspace>(d_code.N(), d_code.K(), d_scl ? d_list : 1);
    }

    frame_status decode_one(const llr8_t* llrs,
                            uint8_t* packed,
                            float* soft,
                            const exec_ctx& ctx,
                            size_t worker) override
    {
        workspace& ws = ctx.worker_scratch<workspace>(worker);
        return frame_status{ 1, decode_frame(llrs, packed, soft, ws) };
    }

    std::string name() const override
    {
        return std::string("polar ") +
               (d_scl
                    ? (d_fast_list ? "fast-ca-scl-" : "ca-scl-") + std::to_string(d_list)
                    : "sc") +
               " (k=" + std::to_string(d_code.k()) + ", e=" + std::to_string(d_code.e()) +
               ", N=" + std::to_string(d_code.N()) + ", " + to_string(d_code.crc()) +
               ") on cpu";
    }

    //! Decodes one frame with `ws` (make_scratch()'s type); returns the CRC verdict of
    //! the output path. Public for the SC-first composite (polar_sc_first_cpu).
    bool decode_frame(const llr8_t* in, uint8_t* out, float* soft, workspace& ws) const
    {
        const int N = d_code.N();
        const int n = d_code.n();
        const bool with_soft = soft != nullptr;
        const auto& frozen = d_code.frozen();
        std::vector<path>& paths = ws.paths; // d_list paths (SCL) or one (SC)
        for (auto& p : paths)
            p.init(with_soft);
        // Mother-code LLRs, shared by all paths.
        std::vector<float>& channel = ws.channel;
        std::copy(d_fill.begin(), d_fill.end(), channel.begin());
        {
            const auto& map = d_code.output_to_codeword();
            for (size_t j = 0; j < map.size(); j++)
                channel[map[j]] += static_cast<float>(in[j]);
        }
        const float* ch = channel.data();
        int active = 1;
        if (!d_scl) {
            path& p = paths[0];
            for (int i = 0; i < N; i++) {
                const float L = compute_leaf(p, ch, n, i);
                const uint8_t bit = frozen[i] ? 0
                                    : d_pc[i] ? d_code.parity_check_bit(p.u.data(), i)
                                              : (L < 0 ? 1 : 0);
                if (with_soft)
                    p.soft[i] = decision_llr(L, bit);
                commit_bit(p, n, i, bit);
            }
        } else {
            using cand = workspace::cand;
            std::vector<cand>& cands = ws.cands;
            std::vector<int>& keep = ws.keep;
            std::vector<int>& free_slots = ws.free_slots;
            // live[q]: slot of the q-th active path (slots never move; clones go to free
            // slots, so only the paths that branch are copied).
            std::vector<int>& live = ws.live;
            std::vector<int>& next_live = ws.next_live;
            live.assign(1, 0);
            std::vector<uint8_t>& used = ws.used;
            for (int i = 0; i < N; i++) {
                if (d_fast_list && d_node[i]) {
                    const int level = d_node[i] >> 4;
                    active =
                        decode_node(ws, i, d_node[i] & 15, level, active, ch, with_soft);
                    i += (1 << level) - 1;
                    continue;
                }
                float leaf[32];
                for (int q = 0; q < active; q++)
                    leaf[q] = compute_leaf(paths[live[q]], ch, n, i);
                if (frozen[i]) {
                    for (int q = 0; q < active; q++) {
                        path& p = paths[live[q]];
                        if (leaf[q] < 0)
                            p.metric += -leaf[q];
                        commit_bit(p, n, i, 0);
                    }
                    continue;
                }
                if (d_pc[i]) {
                    // A parity-check bit: each path's own parity, penalised as a frozen
                    // bit of that value.
                    for (int q = 0; q < active; q++) {
                        path& p = paths[live[q]];
                        const uint8_t bit = d_code.parity_check_bit(p.u.data(), i);
                        if (bit ? leaf[q] > 0 : leaf[q] < 0)
                            p.metric += std::fabs(leaf[q]);
                        commit_bit(p, n, i, bit);
                    }
                    continue;
                }
                for (int q = 0; q < active; q++) {
                    const float a = std::fabs(leaf[q]);
                    const bool hd = leaf[q] < 0;
                    const float m = paths[live[q]].metric;
                    cands[2 * q] = { m + (hd ? a : 0.f), 2 * q };
                    cands[2 * q + 1] = { m + (hd ? 0.f : a), 2 * q + 1 };
                }
                const int survivors = select_survivors(ws, 2 * active);
                // Free slots: never used, or paths with no surviving child.
                std::fill(used.begin(), used.end(), 0);
                for (int q = 0; q < active; q++)
                    if (keep[2 * q] || keep[2 * q + 1])
                        used[live[q]] = 1;
                free_slots.clear();
                for (int s = d_list - 1; s >= 0; s--)
                    if (!used[s])
                        free_slots.push_back(s); // back() is the lowest free slot
                next_live.clear();
                for (int q = 0; q < active; q++) {
                    const bool k0 = keep[2 * q], k1 = keep[2 * q + 1];
                    if (!k0 && !k1)
                        continue;
                    path& p = paths[live[q]];
                    const float a = std::fabs(leaf[q]);
                    const bool hd = leaf[q] < 0;
                    const float m0 = p.metric + (hd ? a : 0.f);
                    const float m1 = p.metric + (hd ? 0.f : a);
                    next_live.push_back(live[q]);
                    if (k0 && k1) {
                        const int slot = free_slots.back();
                        free_slots.pop_back();
                        copy_path(paths[slot], p, n, i, with_soft);
                        paths[slot].metric = m1;
                        if (with_soft)
                            paths[slot].soft[i] = decision_llr(leaf[q], 1);
                        commit_bit(paths[slot], n, i, 1);
                        next_live.push_back(slot);
                        p.metric = m0;
                        if (with_soft)
                            p.soft[i] = decision_llr(leaf[q], 0);
                        commit_bit(p, n, i, 0);
                    } else {
                        p.metric = k0 ? m0 : m1;
                        if (with_soft)
                            p.soft[i] = decision_llr(leaf[q], k0 ? 0 : 1);
                        commit_bit(p, n, i, k0 ? 0 : 1);
                    }
                }
                live.swap(next_live);
                active = survivors;
            }
            // The live paths in list order, for the selection below (swapped, so both
            // vectors keep their buffers for the next frame).
            std::vector<path>& chosen_paths = ws.chosen; // d_list allocated paths
            for (int q = 0; q < active; q++)
                std::swap(chosen_paths[q], paths[live[q]]);
            for (int q = 0; q < active; q++)
                std::swap(chosen_paths[q], paths[q]);
        }

        // Candidate outputs by increasing metric (ties: lower slot).
        std::vector<int>& rank = ws.rank;
        rank.resize(active);
        std::iota(rank.begin(), rank.end(), 0);
        // Stable insertion sort (at most 32 entries; std::stable_sort would allocate).
        for (int r = 1; r < active; r++) {
            const int x = rank[r];
            int q = r;
            for (; q > 0 && paths[x].metric < paths[rank[q - 1]].metric; q--)
                rank[q] = rank[q - 1];
            rank[q] = x;
        }
        const auto& info = d_code.bit_positions();
        const int K = d_code.K(), k = d_code.k();
        std::vector<uint8_t>& c = ws.c;
        // The first path by (metric, list position) whose CRC passes, else the first.
        int chosen = rank[0];
        bool ok = false;
        uint32_t rnti = 0;
        for (int r : rank) {
            for (int j = 0; j < K; j++)
                c[j] = paths[r].u[info[j]];
            if (d_rule.check(d_code, c.data(), &rnti)) {
                chosen = r;
                ok = true;
                break;
            }
        }
        const path& p = paths[chosen];
        if (!ok) {
            for (int j = 0; j < K; j++)
                c[j] = p.u[info[j]];
            d_rule.check(d_code, c.data(), &rnti);
        }
        d_rule.write_output(c.data(), rnti, out);
        if (with_soft) {
            if (d_fast_list) // nodes decided at once left no leaf LLRs: replay the path
                replay_soft(paths[chosen], ch, n);
            for (int j = 0; j < k; j++)
                soft[j] = p.soft[info[j]];
        }
        return ok;
    }

private:
    // Keeps the `d_list` best of ws.cands[0, total) by (metric, index): ws.keep[index]
    // = 1 for them. Returns how many.
    int select_survivors(workspace& ws, int total) const
    {
        using cand = workspace::cand;
        const int survivors = std::min(total, d_list);
        if (2 * survivors == total && better_halves_survive(ws, total))
            return survivors;
        auto better = [](const cand& x, const cand& y) {
            return x.metric < y.metric || (x.metric == y.metric && x.index < y.index);
        };
        if (survivors < total)
            std::nth_element(ws.cands.begin(),
                             ws.cands.begin() + survivors,
                             ws.cands.begin() + total,
                             better);
        std::fill(ws.keep.begin(), ws.keep.begin() + total, 0);
        for (int c = 0; c < survivors; c++)
            ws.keep[ws.cands[c].index] = 1;
        return survivors;
    }

    // A full list's fork where every pair's better candidate (2c, 2c + 1 by (metric,
    // index)) has a smaller metric than every pair's worse one: the survivors are the
    // better halves, which the selection would also keep (at a reliable leaf, the
    // usual case). Marks them in ws.keep; false (nothing marked) where the metrics
    // overlap or tie. ws.cands[c].index must be c.
    static bool better_halves_survive(workspace& ws, int total)
    {
        float worst_better = -std::numeric_limits<float>::infinity();
        float best_worse = std::numeric_limits<float>::infinity();
        for (int c = 0; c < total; c += 2) {
            const float a = ws.cands[c].metric, b = ws.cands[c + 1].metric;
            worst_better = std::max(worst_better, std::min(a, b));
            best_worse = std::min(best_worse, std::max(a, b));
        }
        if (!(worst_better < best_worse))
            return false;
        for (int c = 0; c < total; c += 2) {
            const bool second = ws.cands[c + 1].metric < ws.cands[c].metric;
            ws.keep[c] = second ? 0 : 1;
            ws.keep[c + 1] = second ? 1 : 0;
        }
        return true;
    }

    /*
     * Fast-SCL (the list decoder's node rules of Hashemi, Condo and Gross, "Fast and
     * flexible successive-cancellation list decoders for polar codes", IEEE TSP 2017):
     * a rate-1 or SPC node of 2^level leaves from leaf i, for the `active` live paths
     * at once. Each path computes the node's LLRs a and ranks its positions by (|a|,
     * position). Its candidates start from the hard decisions (a < 0); an SPC node with
     * odd parity flips its least reliable position, adding that |a| to the metric.
     * Then the list forks once per ranked position t (rate 1: t = 0 .. min(L - 1,
     * 2^level) - 1; SPC: t = 1 .. min(L, 2^level) - 1): each candidate keeps its bits
     * or flips position t, adding |a_t| (at an SPC node also flipping the least
     * reliable position back or forth, -/+ its |a|, to keep the parity), and the L best
     * by (metric, 2 candidate + flip) survive, in list order, as at a leaf. The paths
     * then take the survivors' bits, u = beta G, leaf by leaf. Returns the paths now
     * live.
     */
    int decode_node(workspace& ws,
                    int i,
                    int kind,
                    int level,
                    int active,
                    const float* ch,
                    bool with_soft) const
    {
        using node_cand = workspace::node_cand;
        const int n = d_code.n(), size = 1 << level;
        const bool spc = kind == spc_node;
        const int ranked = spc ? std::min(d_list, size) : std::min(d_list - 1, size);
        std::vector<path>& paths = ws.paths;
        std::vector<int>& live = ws.live;
        std::vector<node_cand>& cands = ws.node_cands;
        std::vector<node_cand>& next = ws.next_cands;
        std::vector<int>& pos = ws.positions;
        for (int q = 0; q < active; q++) {
            path& p = paths[live[q]];
            const float* a = compute_node(p, ch, n, i, level);
            std::iota(pos.begin(), pos.begin() + size, 0);
            std::partial_sort(
                pos.begin(), pos.begin() + ranked, pos.begin() + size, [a](int x, int y) {
                    const float ax = std::fabs(a[x]), ay = std::fabs(a[y]);
                    return ax < ay || (ax == ay && x < y);
                });
            std::copy(pos.begin(), pos.begin() + ranked, ws.order[q].begin());
            node_cand c{ q, 0u, false, p.metric };
            if (spc) {
                int parity = 0;
                for (int j = 0; j < size; j++)
                    parity ^= a[j] < 0;
                if (parity) {
                    c.weakest_flipped = true;
                    c.metric = p.metric + std::fabs(a[ws.order[q][0]]);
                }
            }
            cands[q] = c;
        }
        // The metric of candidate x with position t flipped.
        auto flipped_metric = [&](const node_cand& x, int t) {
            const float* a = paths[live[x.origin]].llr.data() + size;
            float m = x.metric + std::fabs(a[ws.order[x.origin][t]]);
            if (spc) {
                const float weakest = std::fabs(a[ws.order[x.origin][0]]);
                m = x.weakest_flipped ? m - weakest : m + weakest;
            }
            return m;
        };
        int count = active;
        for (int t = spc ? 1 : 0; t < ranked; t++) {
            for (int c = 0; c < count; c++) {
                ws.cands[2 * c] = { cands[c].metric, 2 * c };
                ws.cands[2 * c + 1] = { flipped_metric(cands[c], t), 2 * c + 1 };
            }
            const int survivors = select_survivors(ws, 2 * count);
            int m = 0;
            for (int c = 0; c < count; c++) {
                if (ws.keep[2 * c])
                    next[m++] = cands[c];
                if (ws.keep[2 * c + 1]) {
                    node_cand y = cands[c];
                    y.metric = flipped_metric(cands[c], t);
                    y.flips |= 1u << t;
                    y.weakest_flipped = spc ? !y.weakest_flipped : false;
                    next[m++] = y;
                }
            }
            std::swap(cands, next);
            count = survivors;
        }
        // Slots: a path's first survivor (in list order) keeps its slot, the others
        // take free ones (lowest first), copied before any path changes.
        std::vector<uint8_t>& used = ws.used;
        std::fill(used.begin(), used.end(), 0);
        for (int c = 0; c < count; c++)
            used[live[cands[c].origin]] = 1;
        std::vector<int>& free_slots = ws.free_slots;
        free_slots.clear();
        for (int s = d_list - 1; s >= 0; s--)
            if (!used[s])
                free_slots.push_back(s);
        std::vector<int>& taken = ws.keep; // per origin: its slot handed out
        std::fill(taken.begin(), taken.begin() + active, 0);
        std::vector<int>& next_live = ws.next_live;
        next_live.clear();
        for (int c = 0; c < count; c++) {
            const int q = cands[c].origin;
            if (!taken[q]) {
                taken[q] = 1;
                next_live.push_back(live[q]);
            } else {
                const int slot = free_slots.back();
                free_slots.pop_back();
                copy_path(paths[slot], paths[live[q]], n, i, with_soft);
                next_live.push_back(slot);
            }
        }
        uint8_t* beta = ws.bits.data();
        for (int c = 0; c < count; c++) {
            path& p = paths[next_live[c]];
            const node_cand& x = cands[c];
            const float* a = p.llr.data() + size; // the origin's node LLRs (copied)
            for (int j = 0; j < size; j++)
                beta[j] = a[j] < 0 ? 1 : 0;
            for (uint32_t f = x.flips; f; f &= f - 1)
                beta[ws.order[x.origin][ctz_nonzero(f)]] ^= 1;
            if (x.weakest_flipped)
                beta[ws.order[x.origin][0]] ^= 1;
            for (int h = 1; h < size; h *= 2) // u = beta G (G is its own inverse)
                for (int j = 0; j < size; j += 2 * h)
                    for (int r = j; r < j + h; r++)
                        beta[r] ^= beta[r + h];
            for (int j = 0; j < size; j++)
                commit_bit(p, n, i + j, beta[j]);
            p.metric = x.metric;
        }
        live.swap(next_live);
        return count;
    }

    // The decision LLRs of path p's leaves, from its decisions (the values SCL computes
    // on the way: leaf LLRs depend only on the channel and earlier decisions).
    static void replay_soft(path& p, const float* ch, int n)
    {
        for (int i = 0; i < (1 << n); i++) {
            const float L = compute_leaf(p, ch, n, i);
            p.soft[i] = decision_llr(L, p.u[i]);
            commit_bit(p, n, i, p.u[i]);
        }
    }

    // Copies what later leaves read: the LLR levels below the channel, the stored left
    // children, and the decided bits so far.
    static void copy_path(path& dst, const path& src, int n, int i, bool with_soft)
    {
        const int N = 1 << n;
        std::memcpy(dst.llr.data(), src.llr.data(), sizeof(float) * N);
        std::memcpy(dst.left.data(), src.left.data(), N);
        std::memcpy(dst.u.data(), src.u.data(), i);
        if (with_soft)
            std::memcpy(dst.soft.data(), src.soft.data(), sizeof(float) * i);
    }

    enum : int { rate1_node = 1, spc_node = 2 };

    nr_polar_code d_code;
    bool d_scl;
    bool d_fast_list; // fast-SCL: rate-1 and SPC nodes decided for the list at once
    int d_list;
    polar_crc_rule d_rule;
    std::vector<float> d_fill;    // channel LLR before adding the received values
    std::vector<uint8_t> d_pc;    // parity-check leaves
    std::vector<uint16_t> d_node; // fast-SCL: level << 4 | kind at a node's first leaf
};

/*!
 * Fast-SSC (polar_program.h): the SC tree with rate-0, rate-1, repetition and SPC
 * nodes decided at once, the CUDA kernel's program run op by op with the same float
 * expressions. Hard output only.
 */
class polar_fast_ssc_cpu : public fixed_length_cpu_decoder
{
public:
    polar_fast_ssc_cpu(const nr_polar_code& code, const polar_decoder_options& opt)
        : fixed_length_cpu_decoder(
              "polar", code.e(), polar_crc_rule(code, opt.rntis).output_bits()),
          d_code(code),
          d_rule(code, opt.rntis)
    {
        d_fill = polar_channel_fill(code);
        const std::vector<uint8_t> pc = polar_pc_flags(code);
        d_program = polar_program::make(code.frozen(), code.n(), fast_ssc_rules(), &pc);
    }

    //! The node rules of "fast-ssc".
    static polar_program::node_rules fast_ssc_rules()
    {
        polar_program::node_rules r;
        r.rate1 = r.rep = r.spc = true;
        return r;
    }

    bool has_soft_output() const override { return false; }

    struct work : scratch {
        explicit work(int N) : llr(N), channel(N), left(N), right(N), u(N), tmp(N), c(N)
        {
        }
        std::vector<float> llr, channel;
        std::vector<uint8_t> left, right, u;
        std::vector<float> tmp;
        std::vector<uint8_t> c;
    };
    std::unique_ptr<scratch> make_scratch() const override
    {
        return std::make_unique<work>(d_code.N());
    }

    frame_status decode_one(const llr8_t* in,
                            uint8_t* out,
                            float*,
                            const exec_ctx& ctx,
                            size_t worker) override
    {
        return decode_with(ctx.worker_scratch<work>(worker), in, out);
    }

    //! Decodes one frame with `w` (public for the SC-first composite).
    frame_status decode_with(work& w, const llr8_t* in, uint8_t* out) const
    {
        const int n = d_code.n(), N = d_code.N();
        std::copy(d_fill.begin(), d_fill.end(), w.channel.begin());
        const auto& map = d_code.output_to_codeword();
        for (size_t j = 0; j < map.size(); j++)
            w.channel[map[j]] += static_cast<float>(in[j]);
        float* L = w.llr.data();
        auto llrs_of = [&](int level) {
            return level == n ? w.channel.data() : L + (1 << level);
        };
        auto beta_of = [&](int level, int first) {
            return ((first >> level) & 1 ? w.right.data() : w.left.data()) + (1 << level);
        };
        // u = beta G over the node's 2^level leaves (the transform is an involution).
        auto decide = [&](const uint8_t* beta, int level, int first) {
            const int size = 1 << level;
            uint8_t* u = w.u.data() + first;
            for (int j = 0; j < size; j++)
                u[j] = beta[j];
            for (int s = 1; s < size; s *= 2)
                for (int j = 0; j < size; j++)
                    if (!(j & s))
                        u[j] ^= u[j + s];
        };
        for (const polar_program::op& o : d_program) {
            const int l = o.level, size = 1 << l;
            switch (o.kind) {
            case polar_program::f_op: {
                const float* a = llrs_of(l + 1);
                for (int j = 0; j < size; j++)
                    L[size + j] = f_minsum(a[j], a[j + size]);
                break;
            }
            case polar_program::g_op: {
                const float* a = llrs_of(l + 1);
                const uint8_t* v = w.left.data() + size;
                for (int j = 0; j < size; j++)
                    L[size + j] = v[j] ? a[j + size] - a[j] : a[j + size] + a[j];
                break;
            }
            case polar_program::leaf_op: {
                const uint8_t bit = L[1] < 0 ? 1 : 0;
                w.u[o.first] = bit;
                *beta_of(0, o.first) = bit;
                break;
            }
            case polar_program::rate0_op: {
                uint8_t* beta = beta_of(l, o.first);
                std::fill(beta, beta + size, 0);
                std::fill(w.u.begin() + o.first, w.u.begin() + o.first + size, 0);
                break;
            }
            case polar_program::rate1_op: {
                const float* a = llrs_of(l);
                uint8_t* beta = beta_of(l, o.first);
                for (int j = 0; j < size; j++)
                    beta[j] = a[j] < 0 ? 1 : 0;
                decide(beta, l, o.first);
                break;
            }
            case polar_program::rep_op: {
                const float* a = llrs_of(l);
                float* t = w.tmp.data();
                std::copy(a, a + size, t);
                for (int s = size / 2; s >= 1; s /= 2)
                    for (int j = 0; j < s; j++)
                        t[j] = t[j + s] + t[j];
                const uint8_t bit = t[0] < 0 ? 1 : 0;
                uint8_t* beta = beta_of(l, o.first);
                std::fill(beta, beta + size, bit);
                std::fill(w.u.begin() + o.first, w.u.begin() + o.first + size, 0);
                w.u[o.first + size - 1] = bit;
                break;
            }
            case polar_program::spc_op: {
                const float* a = llrs_of(l);
                uint8_t* beta = beta_of(l, o.first);
                uint8_t parity = 0;
                int weakest = 0;
                for (int j = 0; j < size; j++) {
                    beta[j] = a[j] < 0 ? 1 : 0;
                    parity ^= beta[j];
                    if (std::fabs(a[j]) < std::fabs(a[weakest]))
                        weakest = j;
                }
                beta[weakest] ^= parity;
                decide(beta, l, o.first);
                break;
            }
            case polar_program::pc_op: {
                const uint8_t bit = d_code.parity_check_bit(w.u.data(), o.first);
                w.u[o.first] = bit;
                *beta_of(0, o.first) = bit;
                break;
            }
            case polar_program::combine_op: {
                const uint8_t* left = w.left.data() + size;
                const uint8_t* right = w.right.data() + size;
                uint8_t* parent = beta_of(l + 1, o.first);
                for (int j = 0; j < size; j++) {
                    parent[j] = left[j] ^ right[j];
                    parent[j + size] = right[j];
                }
                break;
            }
            }
        }
        const auto& info = d_code.bit_positions();
        const int K = d_code.K();
        for (int j = 0; j < K; j++)
            w.c[j] = w.u[info[j]];
        uint32_t rnti = 0;
        const bool ok = d_rule.check(d_code, w.c.data(), &rnti);
        d_rule.write_output(w.c.data(), rnti, out);
        (void)N;
        return frame_status{ 1, ok };
    }

    std::string name() const override
    {
        return "polar fast-ssc (k=" + std::to_string(d_code.k()) +
               ", e=" + std::to_string(d_code.e()) + ", N=" + std::to_string(d_code.N()) +
               ", " + to_string(d_code.crc()) + ") on cpu";
    }

private:
    nr_polar_code d_code;
    polar_crc_rule d_rule;
    std::vector<float> d_fill;
    std::vector<polar_program::op> d_program;
};

/*!
 * SC first (polar_decoder_options::sc_first, adaptive list decoding): every frame goes
 * through fast-SSC, and only a frame whose fast-SSC word fails the CRC through the list
 * decoder. Status iterations: 1 where fast-SSC's word was kept, 2 where the list
 * decoded the frame. Hard output only (fast-SSC has none). The CUDA decoder runs the
 * same two decoders with the same decisions.
 */
class polar_sc_first_cpu : public fixed_length_cpu_decoder
{
public:
    polar_sc_first_cpu(const nr_polar_code& code, const polar_decoder_options& opt)
        : fixed_length_cpu_decoder(
              "polar", code.e(), polar_crc_rule(code, opt.rntis).output_bits()),
          d_code(code),
          d_list_size(opt.list_size),
          d_first(code, opt),
          d_list(code, opt)
    {
    }

    bool has_soft_output() const override { return false; }

    struct both : scratch {
        both(const nr_polar_code& code, int list)
            : first(code.N()), list(code.N(), code.K(), list)
        {
        }
        polar_fast_ssc_cpu::work first;
        workspace list;
    };
    std::unique_ptr<scratch> make_scratch() const override
    {
        return std::make_unique<both>(d_code, d_list_size);
    }

    frame_status decode_one(const llr8_t* in,
                            uint8_t* out,
                            float*,
                            const exec_ctx& ctx,
                            size_t worker) override
    {
        both& b = ctx.worker_scratch<both>(worker);
        if (d_first.decode_with(b.first, in, out).ok)
            return frame_status{ 1, true };
        return frame_status{ 2, d_list.decode_frame(in, out, nullptr, b.list) };
    }

    std::string name() const override { return "sc-first " + d_list.name(); }

private:
    nr_polar_code d_code;
    int d_list_size;
    polar_fast_ssc_cpu d_first;
    polar_decoder_cpu d_list;
};

} // namespace

// polar_bp_cpu.cc
std::unique_ptr<fixed_length_cpu_decoder>
make_polar_bp_decoder_cpu(const nr_polar_code& code, const polar_decoder_options& opt);

namespace {

//! The decoder of one code block.
std::unique_ptr<fixed_length_cpu_decoder>
make_block_decoder(const nr_polar_code& block, const polar_decoder_options& options)
{
    if (options.algorithm == polar_algorithm::bp)
        return make_polar_bp_decoder_cpu(block, options);
    if (options.algorithm == polar_algorithm::fast_ssc)
        return std::make_unique<polar_fast_ssc_cpu>(block, options);
    if (options.sc_first)
        return std::make_unique<polar_sc_first_cpu>(block, options);
    return std::make_unique<polar_decoder_cpu>(block, options);
}

/*!
 * A UCI payload in two code blocks (5.2.1): each block's e / 2 LLRs through the block
 * decoder, one after the other on the same worker (its scratch is the block decoder's),
 * the payload the blocks' bits without the filler bit; ok when both CRCs hold,
 * iterations the larger count.
 */
class polar_segmented_cpu : public fixed_length_cpu_decoder
{
public:
    polar_segmented_cpu(const nr_polar_code& code, const polar_decoder_options& options)
        : fixed_length_cpu_decoder("polar", code.e(), code.k()),
          d_code(code),
          d_block(make_block_decoder(code.segment(), options))
    {
    }

    bool has_soft_output() const override { return d_block->has_soft_output(); }
    std::unique_ptr<scratch> make_scratch() const override
    {
        return d_block->make_scratch();
    }

    frame_status decode_one(const llr8_t* in,
                            uint8_t* out,
                            float* soft,
                            const exec_ctx& ctx,
                            size_t worker) override
    {
        const nr_polar_code& b = d_code.segment();
        const int kb = b.k(), eb = b.e(), k = d_code.k(), filler = d_code.filler_bits();
        const size_t block_bytes = packed_bytes(kb);
        thread_local std::vector<uint8_t> packed;
        thread_local std::vector<float> block_soft;
        packed.assign(2 * block_bytes, 0);
        block_soft.resize(soft ? 2 * static_cast<size_t>(kb) : 0);
        frame_status st[2];
        for (int r = 0; r < 2; r++)
            st[r] = d_block->decode_one(in + static_cast<size_t>(r) * eb,
                                        packed.data() + r * block_bytes,
                                        soft ? block_soft.data() + r * kb : nullptr,
                                        ctx,
                                        worker);
        std::memset(out, 0, packed_bytes(k));
        for (int j = 0; j < k; j++) {
            const int at = j + filler, r = at / kb, i = at % kb;
            if ((packed[r * block_bytes + i / 8] >> (7 - i % 8)) & 1)
                out[j >> 3] |= static_cast<uint8_t>(0x80u >> (j & 7));
            if (soft)
                soft[j] = block_soft[at];
        }
        return frame_status{ std::max(st[0].iterations, st[1].iterations),
                             st[0].ok && st[1].ok };
    }

    std::string name() const override { return "2 code blocks of " + d_block->name(); }

private:
    nr_polar_code d_code;
    std::unique_ptr<fixed_length_cpu_decoder> d_block;
};

} // namespace

polar_algorithm parse_polar_algorithm(const std::string& s)
{
    if (s == "sc")
        return polar_algorithm::sc;
    if (s == "scl")
        return polar_algorithm::scl;
    if (s == "bp")
        return polar_algorithm::bp;
    if (s == "fast-ssc")
        return polar_algorithm::fast_ssc;
    if (s == "fast-scl")
        return polar_algorithm::fast_scl;
    throw error("polar decoder: algorithm \"" + s +
                "\" unknown; allowed: \"sc\", \"fast-ssc\", \"scl\", \"fast-scl\", "
                "\"bp\"");
}

void set_polar_algorithm(polar_decoder_options& options, const std::string& name)
{
    const std::string prefix = "sc-first-";
    const bool sc_first = name.compare(0, prefix.size(), prefix) == 0;
    const std::string rest = sc_first ? name.substr(prefix.size()) : name;
    const char* allowed = "allowed: \"sc\", \"fast-ssc\", \"scl\", \"fast-scl\", "
                          "\"sc-first-scl\", \"sc-first-fast-scl\", \"bp\"";
    polar_algorithm a;
    try {
        a = parse_polar_algorithm(rest);
    } catch (const error&) {
        throw error("polar decoder: algorithm \"" + name + "\" unknown; " + allowed);
    }
    if (sc_first && a != polar_algorithm::scl && a != polar_algorithm::fast_scl)
        throw error("polar decoder: algorithm \"" + name + "\" unknown; " + allowed);
    options.algorithm = a;
    options.sc_first = sc_first;
}

std::string polar_algorithm_name(const polar_decoder_options& options)
{
    return std::string(options.sc_first ? "sc-first-" : "") +
           to_string(options.algorithm);
}

polar_bp_arithmetic parse_polar_bp_arithmetic(const std::string& s)
{
    if (s == "float")
        return polar_bp_arithmetic::float32;
    if (s == "int8")
        return polar_bp_arithmetic::int8;
    throw error("polar decoder: bp arithmetic \"" + s +
                "\" unknown; allowed: \"float\", "
                "\"int8\"");
}

const char* to_string(polar_bp_arithmetic a)
{
    return a == polar_bp_arithmetic::int8 ? "int8" : "float";
}

const char* to_string(polar_algorithm a)
{
    switch (a) {
    case polar_algorithm::sc:
        return "sc";
    case polar_algorithm::scl:
        return "scl";
    case polar_algorithm::bp:
        return "bp";
    case polar_algorithm::fast_ssc:
        return "fast-ssc";
    case polar_algorithm::fast_scl:
        return "fast-scl";
    }
    return "unknown";
}

std::unique_ptr<batch_decoder>
make_polar_decoder_cpu(const nr_polar_code& code, const polar_decoder_options& options)
{
    const polar_algorithm alg = options.algorithm;
    if (alg != polar_algorithm::sc && alg != polar_algorithm::scl &&
        alg != polar_algorithm::bp && alg != polar_algorithm::fast_ssc &&
        alg != polar_algorithm::fast_scl)
        throw error("polar decoder: algorithm unknown; allowed: \"sc\", \"fast-ssc\", "
                    "\"scl\", \"fast-scl\", \"bp\"");
    if (options.list_size < 1 || options.list_size > 32)
        throw error("polar decoder: list_size " + std::to_string(options.list_size) +
                    " out of range; allowed: 1..32");
    if (options.bp_iterations < 1 || options.bp_iterations > 200)
        throw error("polar decoder: bp_iterations " +
                    std::to_string(options.bp_iterations) +
                    " out of range; allowed: 1..200");
    if (options.bp_arithmetic != polar_bp_arithmetic::float32 &&
        options.bp_arithmetic != polar_bp_arithmetic::int8)
        throw error("polar decoder: bp_arithmetic unknown; allowed: \"float\", \"int8\"");
    if (options.sc_first) {
        if (alg != polar_algorithm::scl && alg != polar_algorithm::fast_scl)
            throw error(std::string("polar decoder: sc_first with algorithm \"") +
                        to_string(alg) + "\"; allowed: \"scl\", \"fast-scl\"");
        if (code.crc_bits() == 0)
            throw error("polar decoder: sc_first needs a code with a CRC (it keeps "
                        "fast-SSC's word where the CRC holds); allowed: crc_bits > 0");
    }
    if (code.segments() == 2)
        return std::make_unique<polar_segmented_cpu>(code, options);
    return make_block_decoder(code, options);
}

} // namespace gpufec
