/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Convolutional code parameters, validation and the CPU encoder.
#include <gpufec/convolutional.h>

#include <algorithm>
#include <numeric>
#include <sstream>

namespace gpufec {

namespace {

struct named_puncture {
    const char* rate;
    const char* pattern;
};
// DVB-S / 802.11-family patterns for the rate-1/2 mother code, serialized X1 Y1 X2 Y2 ...
constexpr named_puncture named_punctures[] = {
    { "2/3", "1101" },
    { "3/4", "110110" },
    { "5/6", "1101100110" },
    { "7/8", "11010101100110" },
};

uint32_t reverse_bits(uint32_t v, int width)
{
    uint32_t r = 0;
    for (int i = 0; i < width; i++)
        r |= ((v >> i) & 1u) << (width - 1 - i);
    return r;
}

int parity(uint32_t v) { return __builtin_parity(v); }

std::string octal(int v)
{
    std::ostringstream s;
    s << std::oct << v;
    return s.str();
}

std::string allowed_named_rates()
{
    std::string s;
    for (const auto& p : named_punctures)
        s += std::string(s.empty() ? "\"" : ", \"") + p.rate + "\"";
    return s;
}

// Turns a puncture argument into a keep-mask (empty = unpunctured).
std::vector<uint8_t> parse_puncture(const std::string& puncture, int n)
{
    if (puncture.empty())
        return {};
    const std::string mother = "1/" + std::to_string(n);
    if (puncture == mother)
        return {};
    std::string pattern = puncture;
    if (puncture.find('/') != std::string::npos) {
        const named_puncture* found = nullptr;
        for (const auto& p : named_punctures)
            if (puncture == p.rate)
                found = &p;
        if (!found)
            throw error("conv_code: unknown puncture rate \"" + puncture +
                        "\"; allowed: \"\" (none), \"" + mother + "\", " +
                        allowed_named_rates() +
                        " (rate-1/2 codes only), or a '0'/'1' keep pattern");
        if (n != 2)
            throw error(
                "conv_code: named puncture rate \"" + puncture +
                "\" needs a rate-1/2 mother code (2 polynomials), this code has " +
                std::to_string(n) + "; use \"\" or a custom '0'/'1' pattern");
        pattern = found->pattern;
    }
    if (pattern.find_first_not_of("01") != std::string::npos)
        throw error("conv_code: puncture pattern \"" + puncture +
                    "\" may only hold '0' and '1'; allowed: \"\" (none), " +
                    allowed_named_rates() + " or a '0'/'1' keep pattern");
    if (pattern.size() % static_cast<size_t>(n) != 0)
        throw error("conv_code: puncture pattern \"" + puncture + "\" has length " +
                    std::to_string(pattern.size()) + "; it must be a multiple of n = " +
                    std::to_string(n) + " (one character per coded bit of each stage)");
    if (pattern.find('1') == std::string::npos)
        throw error("conv_code: puncture pattern \"" + puncture +
                    "\" is all zeros; it must keep at least one bit");
    // Every stage must transmit something, so each coded length maps to one frame length.
    for (size_t g = 0; g < pattern.size(); g += n)
        if (pattern.compare(g, n, std::string(n, '0')) == 0)
            throw error("conv_code: puncture pattern \"" + puncture +
                        "\" removes every bit of stage " + std::to_string(g / n) +
                        "; each group of n = " + std::to_string(n) +
                        " characters must hold at least one '1'");
    if (pattern.find('0') == std::string::npos)
        return {}; // keeps everything: same as unpunctured
    std::vector<uint8_t> mask(pattern.size());
    for (size_t i = 0; i < pattern.size(); i++)
        mask[i] = pattern[i] == '1';
    return mask;
}

} // namespace

termination parse_termination(const std::string& s)
{
    if (s == "terminated")
        return termination::terminated;
    if (s == "truncated")
        return termination::truncated;
    if (s == "tail_biting")
        return termination::tail_biting;
    throw error("unknown termination \"" + s +
                "\"; allowed: \"terminated\", \"truncated\", \"tail_biting\"");
}

std::string to_string(termination t)
{
    switch (t) {
    case termination::terminated:
        return "terminated";
    case termination::truncated:
        return "truncated";
    case termination::tail_biting:
        return "tail_biting";
    }
    return "unknown";
}

conv_code::conv_code(int frame_bits,
                     int k,
                     const std::vector<int>& polys,
                     termination term,
                     const std::string& puncture)
    : d_frame_bits(frame_bits), d_k(k), d_polys(polys), d_term(term), d_puncture(puncture)
{
    if (k < min_k || k > max_k)
        throw error("conv_code: constraint length K = " + std::to_string(k) +
                    " is not supported; allowed: K = 3..9");
    if (polys.size() < 2 || polys.size() > 4)
        throw error("conv_code: " + std::to_string(polys.size()) +
                    " polynomials given; allowed: 2, 3 or 4 (rates 1/2, 1/3, 1/4)");
    for (int p : polys) {
        if (p <= 0 || p >= (1 << k))
            throw error("conv_code: polynomial " + octal(p) +
                        " (octal) is not valid for K = " + std::to_string(k) +
                        "; allowed: 1.." + octal((1 << k) - 1) +
                        " octal (nonzero, at most K bits)");
    }
    if (frame_bits <= 0)
        throw error("conv_code: frame_bits = " + std::to_string(frame_bits) +
                    "; allowed: frame_bits >= 1");
    if (static_cast<uint32_t>(term) > static_cast<uint32_t>(termination::tail_biting))
        throw error(
            "conv_code: bad termination; allowed: terminated, truncated, tail_biting");

    d_symmetric = true;
    for (int p : polys) {
        d_taps.push_back(reverse_bits(static_cast<uint32_t>(p), k));
        if (!((p >> (k - 1)) & 1) || !(p & 1))
            d_symmetric = false;
    }
    d_mask = parse_puncture(puncture, n());
    const size_t period = d_mask.empty() ? static_cast<size_t>(n()) : d_mask.size();
    d_kept_before.assign(period + 1, 0);
    for (size_t p = 0; p < period; p++)
        d_kept_before[p + 1] = d_kept_before[p] + (kept(p) ? 1 : 0);
}

uint64_t conv_code::keep_bits() const
{
    const size_t period = puncture_period();
    if (period > 64)
        throw error("conv_code: puncture period " + std::to_string(period) +
                    " has no 64-bit keep mask; allowed: periods of at most 64");
    uint64_t bits = 0;
    for (size_t p = 0; p < period; p++)
        if (kept(p))
            bits |= uint64_t(1) << p;
    return bits;
}

uint32_t conv_code::branch_output(uint32_t state, int b) const
{
    const uint32_t reg = (state << 1) | static_cast<uint32_t>(b & 1);
    uint32_t out = 0;
    for (size_t i = 0; i < d_taps.size(); i++)
        out |= static_cast<uint32_t>(parity(reg & d_taps[i])) << i;
    return out;
}

size_t conv_code::stages(size_t info_bits) const
{
    return info_bits +
           (d_term == termination::terminated ? static_cast<size_t>(d_k - 1) : 0);
}

size_t conv_code::coded_bits(size_t info_bits) const
{
    return transmitted_before(stages(info_bits) * static_cast<size_t>(n()));
}

size_t conv_code::info_bits_for_coded(size_t coded) const
{
    if (coded == 0)
        return 0;
    // coded_bits() is strictly increasing in info_bits (every stage keeps a bit), so
    // start from the rate estimate and walk to the exact match.
    const size_t per_period_stages = puncture_period() / n();
    const size_t per_period_coded = kept_per_period();
    const size_t extra = stages(0);
    size_t est = (coded / per_period_coded) * per_period_stages;
    est = est > extra ? est - extra : 0;
    size_t info = std::max<size_t>(est, 1);
    while (info > 1 && coded_bits(info) > coded)
        info--;
    while (coded_bits(info) < coded)
        info++;
    return coded_bits(info) == coded ? info : 0;
}

double conv_code::rate() const
{
    return static_cast<double>(d_frame_bits) / static_cast<double>(coded_bits());
}

std::string conv_code::describe() const
{
    std::ostringstream s;
    s << "K=" << d_k << " (";
    for (size_t i = 0; i < d_polys.size(); i++)
        s << (i ? "," : "") << octal(d_polys[i]);
    s << ") r=";
    if (d_mask.empty()) {
        s << "1/" << n();
    } else {
        const size_t stages_per_period = puncture_period() / n();
        const size_t g = std::gcd(stages_per_period, kept_per_period());
        s << stages_per_period / g << "/" << kept_per_period() / g << " (puncture ";
        for (uint8_t m : d_mask)
            s << static_cast<int>(m);
        s << ")";
    }
    s << " " << to_string(d_term) << " frame=" << d_frame_bits;
    return s.str();
}

size_t
conv_encode(const conv_code& code, const uint8_t* in, size_t info_bits, uint8_t* out)
{
    if (info_bits == 0)
        return 0;
    const uint32_t state_mask = static_cast<uint32_t>(code.num_states() - 1);
    const int n = code.n();
    const size_t stages = code.stages(info_bits);
    const size_t period = code.puncture_period();

    uint32_t state = 0;
    if (code.term() == termination::tail_biting) {
        // Preload with the last K-1 info bits (periodic extension of the frame when it is
        // shorter than K-1), so the encoder ends in the state it started in.
        for (int j = code.k() - 2; j >= 0; j--) {
            const size_t back = static_cast<size_t>(j) + 1; // x[-back]
            const size_t idx = (info_bits - back % info_bits) % info_bits;
            state |= static_cast<uint32_t>(in[idx] & 1) << j;
        }
    }

    size_t written = 0;
    size_t pos = 0; // position in the mother stream modulo the puncture period
    for (size_t t = 0; t < stages; t++) {
        const int b = t < info_bits ? (in[t] & 1) : 0;
        const uint32_t c = code.branch_output(state, b);
        state = ((state << 1) | static_cast<uint32_t>(b)) & state_mask;
        for (int i = 0; i < n; i++) {
            if (code.kept(pos))
                out[written++] = static_cast<uint8_t>((c >> i) & 1u);
            if (++pos == period)
                pos = 0;
        }
    }
    return written;
}

viterbi_schedule default_viterbi_schedule(const conv_code& code)
{
    const int depth = (code.punctured() ? 20 : 10) * (code.k() - 1);
    return viterbi_schedule{ 512, (depth + 7) / 8 * 8 };
}

} // namespace gpufec
