/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Convolutional code definitions and the CPU encoder (layer codes/).
#ifndef INCLUDED_GPUFEC_CONV_CODE_H
#define INCLUDED_GPUFEC_CONV_CODE_H

#include <gpufec/common.h>
#include <string>
#include <vector>

namespace gpufec {

enum class termination {
    terminated, //!< K-1 zero tail bits appended; trellis starts and ends in state 0
    truncated,  //!< starts in state 0, no tail; decoder ends on the best state
    tail_biting //!< encoder preloaded with the last K-1 info bits; circular trellis
};

//! "terminated" | "truncated" | "tail_biting" (throws naming the allowed values).
termination parse_termination(const std::string& s);
std::string to_string(termination t);

/*!
 * A convolutional code: constraint length K (3..9), n = 2..4 generator polynomials
 * in octal with the standard convention (the MSB of each polynomial taps the newest
 * input bit: 171/133 is the K=7 code of 802.11/DVB/CCSDS), frame length in
 * information bits, termination and puncturing.
 *
 * Coded stream order: for each trellis stage t, outputs c_0..c_{n-1} in polynomial
 * order; puncturing then applies a periodic keep-mask over that serialized stream,
 * starting at the first coded bit of each frame.
 *
 * Puncture patterns: "" (none), a named rate "1/2"... as in 802.11/DVB-S for n = 2:
 * "2/3" = 1101, "3/4" = 110110, "5/6" = 1101100110, "7/8" = 11010101100110,
 * or a custom string of '0'/'1' whose length is a multiple of n, holding at least one
 * '1' in every... (see parse rules in conv_code.cc).
 *
 * Internal state convention (shared by CPU and CUDA): state = last K-1 input bits with
 * the newest at the LSB; next = ((state << 1) | b) & (S-1); the K-bit register
 * (state << 1) | b is ANDed with tap_mask(i) (the bit-reversed polynomial) and the
 * parity is coded bit i.
 */
class conv_code
{
public:
    static constexpr int min_k = 3;
    static constexpr int max_k = 9;

    conv_code(int frame_bits = 2048,
              int k = 7,
              const std::vector<int>& polys = { 0171, 0133 },
              termination term = termination::terminated,
              const std::string& puncture = "");

    int frame_bits() const { return d_frame_bits; }
    int k() const { return d_k; }
    int n() const { return static_cast<int>(d_polys.size()); } //!< outputs per stage
    int num_states() const { return 1 << (d_k - 1); }
    const std::vector<int>& polys() const { return d_polys; }
    termination term() const { return d_term; }
    //! Keep-mask over the serialized mother stream (empty = unpunctured).
    const std::vector<uint8_t>& puncture_mask() const { return d_mask; }
    const std::string& puncture_string() const { return d_puncture; }
    bool punctured() const { return !d_mask.empty(); }

    // The puncture geometry, in one place for every encoder, decoder and source (CPU
    // and CUDA): the serialized mother stream is cut into periods of
    // puncture_period() positions (n when unpunctured), position `phase` of each period
    // being sent when kept(phase).
    size_t puncture_period() const { return d_kept_before.size() - 1; }
    bool kept(size_t phase) const { return d_mask.empty() || d_mask[phase]; }
    //! Positions sent per period.
    size_t kept_per_period() const { return d_kept_before.back(); }
    //! Positions sent before `phase` within a period, 0 <= phase <= puncture_period().
    size_t kept_before(size_t phase) const { return d_kept_before[phase]; }
    //! Transmitted bits before position `pos` of the mother stream (the transmitted
    //! index of `pos` when it is kept).
    size_t transmitted_before(size_t pos) const
    {
        const size_t period = puncture_period();
        return (pos / period) * kept_per_period() + kept_before(pos % period);
    }
    //! kept() of every phase as bits (bit p = phase p), for periods of at most 64;
    //! throws gpufec::error naming the limit for longer ones.
    uint64_t keep_bits() const;

    //! Register tap mask of polynomial i (newest input bit at the LSB).
    uint32_t tap_mask(int i) const { return d_taps[i]; }
    //! Coded bits (n bits, bit i = output i) for a transition from `state` with input b.
    uint32_t branch_output(uint32_t state, int b) const;
    //! True when every polynomial taps both the newest and the oldest bit: the four
    //! branches of each butterfly then carry +/- the same metric (fast path).
    bool symmetric() const { return d_symmetric; }

    //! Trellis stages for `info_bits` (adds K-1 for terminated).
    size_t stages(size_t info_bits) const;
    //! Coded bits after puncturing for a frame of `info_bits` information bits.
    size_t coded_bits(size_t info_bits) const;
    size_t coded_bits() const { return coded_bits(d_frame_bits); }
    //! Inverse of coded_bits(): info bits of a frame with `coded` transmitted bits, or
    //! 0 when no frame length gives exactly that many coded bits.
    size_t info_bits_for_coded(size_t coded) const;
    //! Code rate after puncturing, info/coded for the configured frame length.
    double rate() const;

    //! Human-readable summary, e.g. "K=7 (171,133) r=1/2 terminated frame=2048".
    std::string describe() const;

private:
    int d_frame_bits;
    int d_k;
    std::vector<int> d_polys;
    std::vector<uint32_t> d_taps;
    termination d_term;
    std::string d_puncture;
    std::vector<uint8_t> d_mask;
    std::vector<size_t> d_kept_before; //!< puncture_period() + 1 prefix counts
    bool d_symmetric = false;
};

/*!
 * Encodes `info_bits` bits (one per byte, LSB used) into coded bits (one per byte),
 * applying termination and puncturing. `out` must hold code.coded_bits(info_bits).
 * Returns the number of coded bits written.
 */
size_t
conv_encode(const conv_code& code, const uint8_t* in, size_t info_bits, uint8_t* out);

/*!
 * Windowed Viterbi schedule shared bit-for-bit by the CPU and CUDA decoders.
 * A frame of T trellis stages is cut into decode regions of `region_bits` stages;
 * region r covers [r*D, min((r+1)*D, T_info)) of the information stages and is decoded
 * by running the trellis over [start - overlap, end + overlap] clipped to the frame
 * (wrapped modulo T for tail-biting). Initial metrics: 0 for state 0 and `-inf`
 * (see viterbi_neg_inf) for others when the window starts at stage 0 of a
 * terminated/truncated frame, else all 0. Traceback starts at state 0 when the window
 * ends at the last stage of a terminated frame, else at the best state (lowest index
 * on ties). ACS keeps the predecessor (s>>1) on ties. Metrics are int32 correlations
 * sum_i (1 - 2 c_i) * L_i with int8 L_i; punctured positions have L = 0.
 */
struct viterbi_schedule {
    int region_bits; //!< information stages decoded per window (multiple of 32)
    int overlap;     //!< stages before and after each region
};
//! The schedule used for a code (depends on K and puncturing only).
viterbi_schedule default_viterbi_schedule(const conv_code& code);
constexpr int32_t viterbi_neg_inf = -(1 << 24);

} // namespace gpufec

#endif
