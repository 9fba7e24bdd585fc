/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU layered min-sum decoder of the 5G NR LDPC codes (the reference of a GPU kernel).
//
// Schedule (normative for bit-exactness of the int8 path): one layer per base-graph row,
// rows 0..R-1 in order; within a layer the Z check rows touch disjoint variables (every
// circulant is a permutation and a base row names each column once), so their order is
// irrelevant. For check row r of layer i and each circulant (col, shift) of the row, in
// column order: v = col*Z + (r + shift) mod Z, Q = sat(L[v] - R_old); then with min1 <=
// min2 the two smallest |Q| (index of the first strict minimum) and the sign product:
// m = min(min, 127), mag = (m * round(16 alpha)) >> 4 (normalised) or max(m -
// round(beta), 0) (offset), R_new = +/-mag, L[v] = sat(Q + R_new). Q >= 0 counts as
// positive.
//
// "int8" arithmetic: check messages R are int8 (|R| <= 127); the APP L and Q are int16
// saturating at +/-32000. (An int8 APP saturating at 127 loses too much with the input
// scale of 8 used by quantize_llrs: BER 1.4e-1 instead of 0 at the 1.5 dB point.)
// The floor in (m * round(16 alpha)) >> 4 acts like a small extra offset and helps near
// the waterfall: BG1 r = 1/3 at 1.0 dB, FER 9/100 for int8 vs 47/100 for float's exact
// alpha * m (float with floor() reproduces int8 exactly there).
// De-rate-matching sums repeated LLRs in int32, then saturates to the APP range; fillers
// are pinned at the APP maximum (known zero bits). Hard decision: bit = L < 0. Early
// termination checks all parity checks after each iteration.
#include "cpu/fixed_length_decoder.h"
#include "cpu/min_sum_kernels.h"
#include <gpufec/ldpc_decoding.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gpufec {

ldpc_algorithm parse_ldpc_algorithm(const std::string& s)
{
    if (s == "normalized")
        return ldpc_algorithm::normalized;
    if (s == "offset")
        return ldpc_algorithm::offset;
    throw error("ldpc decoder: algorithm \"" + s +
                "\" unknown; allowed: normalized, offset");
}

ldpc_arithmetic parse_ldpc_arithmetic(const std::string& s)
{
    if (s == "int8")
        return ldpc_arithmetic::int8;
    if (s == "float")
        return ldpc_arithmetic::float32;
    throw error("ldpc decoder: arithmetic \"" + s + "\" unknown; allowed: int8, float");
}

namespace {

using min_sum::float_traits;
using min_sum::int8_traits;

struct workspace {
    std::vector<int32_t> acc;
    std::vector<uint8_t> storage; // L, R, Q (typed by the arithmetic)
    std::vector<uint8_t> mins;    // min1, min2, pos, sign per check row
    std::vector<uint8_t> hard, syndrome;
};

class ldpc_decoder_cpu : public fixed_length_cpu_decoder
{
public:
    ldpc_decoder_cpu(const nr_ldpc_code& code, const ldpc_decoder_options& opt)
        : fixed_length_cpu_decoder("ldpc", code.e(), code.k()), d_code(code), d_cfg(opt)
    {
        const auto& circ = code.circulants();
        d_row_start.assign(code.base_rows() + 1, 0);
        for (const auto& c : circ)
            d_row_start[c.row + 1]++;
        for (int i = 0; i < code.base_rows(); i++) {
            d_row_start[i + 1] += d_row_start[i];
            d_max_degree = std::max(d_max_degree, d_row_start[i + 1] - d_row_start[i]);
        }
    }

    bool has_soft_output() const override { return true; }

    frame_status decode_one(const llr8_t* llrs,
                            uint8_t* packed,
                            float* soft,
                            const exec_ctx&,
                            size_t) override
    {
        thread_local workspace ws;
        if (d_cfg.options().arithmetic == ldpc_arithmetic::int8)
            return decode_frame<int8_traits>(llrs, packed, soft, ws);
        return decode_frame<float_traits>(llrs, packed, soft, ws);
    }

    std::string name() const override
    {
        return "ldpc BG" + std::to_string(d_code.bg()) +
               " Z=" + std::to_string(d_code.z()) + " k=" + std::to_string(d_code.k()) +
               " e=" + std::to_string(d_code.e()) + " " + d_cfg.describe();
    }

private:
    // Channel LLRs onto the full codeword: repeated positions add up, punctured and
    // unread positions stay 0, fillers are known zeros.
    template <typename Tr>
    void derate_match(const llr8_t* in, typename Tr::store* L, workspace& ws) const
    {
        const int z = d_code.z(), k = d_code.k(), kmax = d_code.k_max();
        const int total = d_code.codeword_bits(), n_cb = d_code.n();
        ws.acc.assign(total, 0);
        int32_t* d = ws.acc.data() + 2 * z;
        const int filler_begin = k - 2 * z, filler_end = kmax - 2 * z;
        int j = 0;
        for (int i = 0; i < d_code.e();) {
            if (j < filler_begin || j >= filler_end)
                d[j] += in[i++];
            if (++j == n_cb)
                j = 0;
        }
        for (int v = 0; v < total; v++)
            L[v] = Tr::from_sum(ws.acc[v]);
        for (int v = k; v < kmax; v++)
            L[v] = static_cast<typename Tr::store>(Tr::filler);
    }

    template <typename Tr>
    bool checks_hold(const typename Tr::store* L, workspace& ws) const
    {
        const int z = d_code.z(), total = d_code.codeword_bits();
        ws.hard.resize(total);
        for (int v = 0; v < total; v++)
            ws.hard[v] = L[v] < 0;
        ws.syndrome.resize(z);
        const auto& circ = d_code.circulants();
        for (int i = 0; i < d_code.base_rows(); i++) {
            std::fill(ws.syndrome.begin(), ws.syndrome.end(), 0);
            uint8_t* s = ws.syndrome.data();
            for (int c = d_row_start[i]; c < d_row_start[i + 1]; c++) {
                const uint8_t* h = ws.hard.data() + circ[c].col * z;
                const int sh = circ[c].shift, head = z - sh;
                for (int r = 0; r < head; r++)
                    s[r] ^= h[r + sh];
                for (int r = head; r < z; r++)
                    s[r] ^= h[r - head];
            }
            for (int r = 0; r < z; r++)
                if (s[r])
                    return false;
        }
        return true;
    }

    template <typename Tr>
    frame_status
    decode_frame(const llr8_t* in, uint8_t* out, float* soft, workspace& ws) const
    {
        typedef typename Tr::store S;
        typedef typename Tr::msg M;
        typedef typename Tr::index I;
        typedef typename Tr::work W;
        const int z = d_code.z(), total = d_code.codeword_bits();
        const int k = d_code.k(), kmax = d_code.k_max();
        const auto& circ = d_code.circulants();
        const size_t r_offset = (sizeof(S) * total + 63) / 64 * 64;
        const size_t q_offset = (r_offset + sizeof(M) * circ.size() * z + 63) / 64 * 64;
        ws.storage.assign(q_offset + sizeof(W) * static_cast<size_t>(d_max_degree) * z,
                          0); // R starts at 0
        S* L = reinterpret_cast<S*>(ws.storage.data());
        M* R = reinterpret_cast<M*>(ws.storage.data() + r_offset);
        W* Q = reinterpret_cast<W*>(ws.storage.data() + q_offset);
        ws.mins.resize((2 * sizeof(W) + 2 * sizeof(I)) * z + 64);
        W* min1 = reinterpret_cast<W*>(ws.mins.data());
        W* min2 = min1 + z;
        I* pos = reinterpret_cast<I*>(min2 + z);
        I* sign = pos + z;

        derate_match<Tr>(in, L, ws);

        const ldpc_decoder_options& opt = d_cfg.options();
        frame_status st{ 0, false };
        // An explicit loop, not a lambda around the layers: captured pointers would be
        // reloaded after every int8 message store (~8% slower).
        for (int it = 0; it < opt.iterations; it++) {
            for (int i = 0; i < d_code.base_rows(); i++) {
                const int c0 = d_row_start[i], deg = d_row_start[i + 1] - c0;
                min_sum::reset_minima<Tr>(min1, min2, pos, sign, z);
                for (int j = 0; j < deg; j++) {
                    const ldpc_circulant& c = circ[c0 + j];
                    const S* Lv = L + c.col * z;
                    const M* Rc = R + static_cast<size_t>(c0 + j) * z;
                    W* Qj = Q + static_cast<size_t>(j) * z;
                    const int sh = c.shift, head = z - sh;
                    min_sum::load_q<Tr>(Lv + sh, Rc, Qj, head);
                    min_sum::load_q<Tr>(Lv, Rc + head, Qj + head, sh);
                    min_sum::track_minima<Tr>(Qj, min1, min2, pos, sign, I(j), z);
                }
                // Reuse min1/min2 as the two scaled magnitudes.
                d_cfg.scale_minima(min1, z);
                d_cfg.scale_minima(min2, z);
                for (int j = 0; j < deg; j++) {
                    const ldpc_circulant& c = circ[c0 + j];
                    S* Lv = L + c.col * z;
                    M* Rc = R + static_cast<size_t>(c0 + j) * z;
                    const W* Qj = Q + static_cast<size_t>(j) * z;
                    const int sh = c.shift, head = z - sh;
                    min_sum::store_update<Tr>(
                        Qj, min1, min2, pos, sign, I(j), Rc, Lv + sh, head);
                    min_sum::store_update<Tr>(Qj + head,
                                              min1 + head,
                                              min2 + head,
                                              pos + head,
                                              sign + head,
                                              I(j),
                                              Rc + head,
                                              Lv,
                                              sh);
                    // Known filler bits stay pinned.
                    const int lo = std::max(k, c.col * z),
                              hi = std::min(kmax, (c.col + 1) * z);
                    for (int v = lo; v < hi; v++)
                        L[v] = static_cast<S>(Tr::filler);
                }
            }
            st.iterations = it + 1;
            if (opt.early_termination || it + 1 == opt.iterations) {
                st.ok = checks_hold<Tr>(L, ws);
                if (st.ok && opt.early_termination)
                    break;
            }
        }
        min_sum::write_info_bits(
            L, k, [](int i) { return i; }, out, soft);
        return st;
    }

    nr_ldpc_code d_code;
    min_sum::config d_cfg;
    int d_max_degree = 0;
    std::vector<int> d_row_start;
};

} // namespace

std::unique_ptr<batch_decoder> make_ldpc_decoder_cpu(const nr_ldpc_code& code,
                                                     const ldpc_decoder_options& options)
{
    return std::make_unique<ldpc_decoder_cpu>(code, options);
}

} // namespace gpufec
