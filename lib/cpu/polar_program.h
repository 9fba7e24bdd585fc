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
//           take no node rule.
// Decisions of the node's leaves: u = beta G (the transform is its own inverse).
#ifndef INCLUDED_GPUFEC_POLAR_PROGRAM_H
#define INCLUDED_GPUFEC_POLAR_PROGRAM_H

#include <cstdint>
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
    pc_op
};

struct op {
    uint8_t kind;   //!< op_kind
    uint8_t level;  //!< f, g, combine: the child level; nodes: their level
    uint16_t first; //!< the node's (or the child's) first leaf
};

//! Which fast-SSC node rules the program uses (SC: none; rate-0 is always exact).
struct node_rules {
    bool rate1 = false, rep = false, spc = false;
};

inline void build(const std::vector<uint8_t>& frozen,
                  int level,
                  int first,
                  int n,
                  node_rules rules,
                  std::vector<op>& out,
                  const std::vector<uint8_t>* pc = nullptr)
{
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

} // namespace polar_program
} // namespace gpufec

#endif
