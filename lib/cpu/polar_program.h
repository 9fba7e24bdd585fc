/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Internal: the SC decoding tree of a polar code as a flat program, one source for the
// CPU fast-SSC decoder and the CUDA SC / fast-SSC kernel, so that the two run the same
// float operations in the same order.
//
// LLRs of a node at level l (2^l leaves) live at offset 2^l of an N-float array (the
// channel, level n, apart); its re-encoded bits (beta) at offset 2^l of one of two
// N-byte arrays, `left` for a left child and `right` for a right child, so that a
// parent's combine finds both children. Ops:
//   f / g   the left / right child's LLRs from the parent's (min-sum f; g = b +/- a by
//           the left sibling's beta), both with the CPU SC decoder's expressions;
//   leaf    an information leaf: bit = (L < 0), soft = its LLR with the bit's sign;
//   rate0   every leaf frozen: beta = 0, no LLR needed (exactly SC's result);
//   rate1   no leaf frozen: beta = hard decisions of the LLRs (fast-SSC);
//   rep     only the last leaf free: its LLR is the sum of the node's LLRs, summed
//           pairwise as SC's g chain does (so exactly SC's decision and soft value);
//   spc     only the first leaf frozen: hard decisions, and with odd parity the least
//           reliable (first of equal |L|) flipped: Wagner's ML rule (fast-SSC);
//   combine the parent's beta = [left ^ right, right] from its children's;
//   pc      a parity-check leaf (5.3.1.2): its bit is the parity of earlier decisions
//           (nr_polar_code::parity_check_bit), not its LLR's sign; nodes that hold one
//           take no node rule;
//   subtree a whole node of at most 32 leaves as one op (node_rules::subtree_level;
//           only the GPU kernel's hard-output programs ask for it, a level per
//           layout): the ops its recursion would emit, run in the lanes' registers;
//           beta and decisions as they give.
// Decisions of the node's leaves: u = beta G (the transform is its own inverse).
#ifndef INCLUDED_GPUFEC_POLAR_PROGRAM_H
#define INCLUDED_GPUFEC_POLAR_PROGRAM_H

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpufec {
namespace polar_program {

enum op_kind : uint8_t {
    f_op,
    g_op,
    leaf_op,
    rate0_op,
    rate1_op,
    rep_op,
    spc_op,
    combine_op,
    pc_op,
    subtree_op
};

struct op {
    uint8_t kind;   //!< op_kind
    uint8_t level;  //!< f, g, combine: the child level; nodes: their level
    uint16_t first; //!< the node's (or the child's) first leaf
};

//! Which fast-SSC node rules the program uses (SC: none; rate-0 is always exact).
struct node_rules {
    bool rate1 = false, rep = false, spc = false;
    //! If > 0: a node at this level (2^level <= 32 leaves, below the root's children,
    //! no parity-check leaf) that no rule above takes is one subtree_op, its
    //! recursion left to the op. 0: the plain recursion (the CPU decoders).
    int subtree_level = 0;
};

inline void build(const std::vector<uint8_t>& frozen,
                  int level,
                  int first,
                  int n,
                  node_rules rules,
                  std::vector<op>& out,
                  const std::vector<uint8_t>* pc = nullptr)
{
    if (rules.subtree_level < 0 || rules.subtree_level > 5)
        throw std::logic_error("polar_program: subtree level " +
                               std::to_string(rules.subtree_level) +
                               "; allowed: 0 (none) .. 5 (32 leaves)");
    const int size = 1 << level;
    int frozen_count = 0, pc_count = 0;
    for (int j = 0; j < size; j++) {
        frozen_count += frozen[first + j] != 0;
        pc_count += pc && (*pc)[first + j] != 0;
    }
    auto emit = [&](op_kind k, int l, int i) {
        out.push_back(op{ k, static_cast<uint8_t>(l), static_cast<uint16_t>(i) });
    };
    if (frozen_count == size) {
        emit(rate0_op, level, first);
        return;
    }
    if (level == 0) {
        emit(pc_count ? pc_op : leaf_op, 0, first);
        return;
    }
    if (level < n && pc_count == 0) { // the root keeps the plain recursion
        if (rules.rate1 && frozen_count == 0) {
            emit(rate1_op, level, first);
            return;
        }
        if (rules.rep && frozen_count == size - 1 && !frozen[first + size - 1]) {
            emit(rep_op, level, first);
            return;
        }
        if (rules.spc && level >= 2 && frozen_count == 1 && frozen[first]) {
            emit(spc_op, level, first);
            return;
        }
        if (level == rules.subtree_level && level + 1 < n) {
            emit(subtree_op, level, first);
            return;
        }
    }
    const int half = size / 2;
    emit(f_op, level - 1, first);
    build(frozen, level - 1, first, n, rules, out, pc);
    emit(g_op, level - 1, first + half);
    build(frozen, level - 1, first + half, n, rules, out, pc);
    if (level < n)
        emit(combine_op, level - 1, first);
}

//! The program of a code's frozen set (N = 2^n flags, 1 = frozen) and its
//! parity-check leaves (N flags, or null: none).
inline std::vector<op> make(const std::vector<uint8_t>& frozen,
                            int n,
                            node_rules rules,
                            const std::vector<uint8_t>* pc = nullptr)
{
    std::vector<op> out;
    build(frozen, n, 0, n, rules, out, pc);
    return out;
}

/*!
 * For the list decoders' node steps (fast-SCL on the CPU and in the CUDA list kernel,
 * which does not store level n - 1): every rate-1 or SPC node at level n - 1, a child
 * of the root, replaced in place by its two children's programs under the same rules.
 */
inline void split_root_children(std::vector<op>& program,
                                const std::vector<uint8_t>& frozen,
                                int n,
                                node_rules rules,
                                const std::vector<uint8_t>* pc = nullptr)
{
    for (size_t t = 0; t < program.size(); t++) {
        const op o = program[t];
        if ((o.kind != rate1_op && o.kind != spc_op) || o.level < n - 1)
            continue;
        std::vector<op> children;
        for (int half : { 0, 1 })
            build(frozen,
                  o.level - 1,
                  o.first + half * (1 << (o.level - 1)),
                  n,
                  rules,
                  children,
                  pc);
        program.erase(program.begin() + static_cast<std::ptrdiff_t>(t));
        program.insert(program.begin() + static_cast<std::ptrdiff_t>(t),
                       children.begin(),
                       children.end());
        t += children.size() - 1; // the children are below level n - 1
    }
}

/*!
 * The GPU kernel's form of a program (lib/cuda/polar/polar_cuda.cu, SC and fast-SSC):
 * one 32-bit word per op, kind * levels + level | chain << 8 | first leaf << 16, with
 * fewer ops than the program. The kernel dispatches each op, and at N = 1024 the
 * dispatch cost more than the values of most ops, so:
 *  - the root's children read the channel: kinds f_root, g_root;
 *  - a node (leaf, rate 0, rate 1, repetition, SPC) below them is fused with the op
 *    before it: left_node + K computes its LLRs as the f of its parent's (a left
 *    child), right_node + K as the g of its parent's and also does the parent's
 *    combine after it (a right child: it writes the parent's beta);
 *  - chains run as one op, their length in bits 8..11 (`chain`: the ops that follow
 *    the first): combines in a row, each one level up (after a combine, or after a
 *    right node, which did the combine below), and f ops in a row, each one level down
 *    (after an f or a g).
 *  - a subtree op (rules.subtree_level) is fused like a node: subtree_own,
 *    subtree_left (LLRs f of the parent's), subtree_right (g of the parent's, then
 *    the parent's combine and the chain of combines above).
 * Every value is computed by the same expression from the same operands as in the
 * program, so decisions do not change (test_polar_cpu runs the words on the CPU).
 */
namespace gpu {
constexpr int f_root = subtree_op + 1;          //!< f of the root's left child
constexpr int g_root = f_root + 1;              //!< g of the root's right child
constexpr int left_node = g_root + 1 - leaf_op; //!< + leaf_op .. spc_op
constexpr int right_node = left_node + spc_op - leaf_op + 1; //!< + leaf_op .. spc_op
constexpr int subtree_own = right_node + spc_op + 1;
constexpr int subtree_left = subtree_own + 1;
constexpr int subtree_right = subtree_left + 1;
constexpr int kinds = subtree_right + 1;
constexpr int max_level = 9; //!< N <= 1024: nodes below the root
constexpr int levels = max_level + 1;
constexpr int max_chain = 15;
static_assert(kinds * levels <= 256, "op codes fit a byte");

//! The case code of an op (the word's low byte).
constexpr int code(int kind, int level) { return kind * levels + level; }
constexpr uint32_t word(int kind, int level, uint32_t first, int chain = 0)
{
    return static_cast<uint32_t>(code(kind, level)) | static_cast<uint32_t>(chain) << 8 |
           first << 16;
}
constexpr int kind_of(uint32_t w) { return static_cast<int>(w & 0xffu) / levels; }
constexpr int level_of(uint32_t w) { return static_cast<int>(w & 0xffu) % levels; }
constexpr int chain_of(uint32_t w) { return static_cast<int>((w >> 8) & 15u); }
constexpr int first_of(uint32_t w) { return static_cast<int>(w >> 16); }

inline bool is_node(int kind)
{
    return kind == leaf_op || kind == rate0_op || kind == rate1_op || kind == rep_op ||
           kind == spc_op || kind == subtree_op;
}

//! The word kind of node `kind` whose LLRs come from its own level (src 0), the f of
//! its parent's (1) or the g of its parent's (2).
inline int fused_node(int kind, int src)
{
    if (kind == subtree_op)
        return subtree_own + src;
    return src == 0 ? kind : src == 1 ? left_node + kind : right_node + kind;
}

//! The words of `program` (make(), a code of N = 2^n <= 1024).
inline std::vector<uint32_t> words(const std::vector<op>& program, int n)
{
    std::vector<uint32_t> out;
    for (size_t t = 0; t < program.size(); t++) {
        const op o = program[t];
        const size_t after = program.size() - t - 1; // ops after this one
        if (o.kind == f_op && o.level + 1 < n && after >= 1 &&
            is_node(program[t + 1].kind)) {
            const op node = program[++t];
            out.push_back(word(fused_node(node.kind, 1), node.level, node.first));
            continue;
        }
        if (o.kind == g_op && o.level + 1 < n && after >= 2 &&
            is_node(program[t + 1].kind) && program[t + 2].kind == combine_op) {
            const op node = program[t + 1];
            t += 2;
            out.push_back(word(fused_node(node.kind, 2), node.level, node.first));
            continue;
        }
        if (!out.empty() && chain_of(out.back()) < max_chain) {
            const uint32_t prev = out.back();
            const int prev_kind = kind_of(prev), prev_level = level_of(prev);
            const int chain = chain_of(prev);
            const bool after_combine =
                prev_kind == combine_op || prev_kind == subtree_right ||
                (prev_kind >= right_node + leaf_op && prev_kind <= right_node + spc_op);
            // The next combine up: one level above the chain's top, of the node that
            // holds it (its first leaf).
            if (o.kind == combine_op && after_combine &&
                prev_level + chain + 1 == o.level &&
                o.first == (first_of(prev) & ~((2 << o.level) - 1))) {
                out.back() += 1u << 8;
                continue;
            }
            if (o.kind == f_op && o.level + 1 < n &&
                (prev_kind == f_op || prev_kind == g_op) &&
                prev_level - chain - 1 == o.level) {
                out.back() += 1u << 8;
                continue;
            }
        }
        int kind = is_node(o.kind) ? fused_node(o.kind, 0) : o.kind;
        if (o.level + 1 == n && kind == f_op)
            kind = f_root;
        if (o.level + 1 == n && kind == g_op)
            kind = g_root;
        out.push_back(word(kind, o.level, o.first));
    }
    return out;
}
} // namespace gpu

} // namespace polar_program
} // namespace gpufec

#endif
