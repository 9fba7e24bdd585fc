/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The CPU reference MIMO detectors (include/gpufec/mimo_detection.h), in double
// precision: sorted QR, exhaustive max-log ML, LMMSE with max-log demapping.
#include "cpu/kbest_float.h"
#include "cpu/mtt_float.h"
#include <gpufec/mimo_detection.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpufec {

mimo_algorithm parse_mimo_algorithm(const std::string& s)
{
    if (s == "ml")
        return mimo_algorithm::ml;
    if (s == "lmmse")
        return mimo_algorithm::lmmse;
    if (s == "kbest")
        return mimo_algorithm::kbest;
    if (s == "mtt")
        return mimo_algorithm::mtt;
    throw error("mimo detector: algorithm \"" + s +
                "\" unknown; allowed: ml, lmmse, kbest, mtt");
}

namespace {

using cd = std::complex<double>;

void check_sizes(const char* who, int nr, int nt, float noise_var)
{
    if (nt < 1 || nt > mimo_max_antennas || nr < 1 || nr > mimo_max_antennas)
        throw error(std::string(who) + ": nt = " + std::to_string(nt) +
                    ", nr = " + std::to_string(nr) + "; allowed: 1.." +
                    std::to_string(mimo_max_antennas) + " each");
    if (nr < nt)
        throw error(std::string(who) + ": nr = " + std::to_string(nr) +
                    " < nt = " + std::to_string(nt) + "; allowed: nr >= nt");
    if (!(noise_var > 0.0f) || !std::isfinite(noise_var))
        throw error(std::string(who) + ": noise_var = " + std::to_string(noise_var) +
                    "; allowed: a finite value > 0");
}

//! False when H or y holds a NaN or an infinity: the detectors then output zeros.
bool all_finite(const cfloat* h, const cfloat* y, int nr, int nt)
{
    for (int i = 0; i < nr * nt; i++)
        if (!std::isfinite(h[i].real()) || !std::isfinite(h[i].imag()))
            return false;
    for (int i = 0; i < nr; i++)
        if (!std::isfinite(y[i].real()) || !std::isfinite(y[i].imag()))
            return false;
    return true;
}

} // namespace

sorted_qr sorted_qr_decompose(const cfloat* h, int nr, int nt, const cfloat* y)
{
    sorted_qr out;
    out.nt = nt;
    out.r.assign(static_cast<size_t>(nt) * nt, cd());
    out.z.assign(nt, cd());
    out.order.resize(nt);
    std::vector<cd> q(static_cast<size_t>(nr) * nt); // column-major: column k at k * nr
    for (int k = 0; k < nt; k++) {
        out.order[k] = k;
        for (int i = 0; i < nr; i++)
            q[k * nr + i] = cd(h[i * nt + k]);
    }
    auto norm2 = [&](int k) {
        double s = 0;
        for (int i = 0; i < nr; i++)
            s += std::norm(q[k * nr + i]);
        return s;
    };
    for (int i = 0; i < nt; i++) {
        // The remaining column of least norm goes next (detected last: the strongest
        // streams stay at the bottom of R, where the detection starts).
        int best = i;
        double best_norm = norm2(i);
        for (int k = i + 1; k < nt; k++) {
            const double nk = norm2(k);
            if (nk < best_norm) {
                best = k;
                best_norm = nk;
            }
        }
        if (best != i) {
            std::swap(out.order[i], out.order[best]);
            for (int row = 0; row < nr; row++)
                std::swap(q[i * nr + row], q[best * nr + row]);
            for (int row = 0; row < i; row++)
                std::swap(out.r[row * nt + i], out.r[row * nt + best]);
        }
        const double rii = std::sqrt(best_norm);
        out.r[i * nt + i] = rii;
        if (rii > 0)
            for (int row = 0; row < nr; row++)
                q[i * nr + row] /= rii;
        for (int l = i + 1; l < nt; l++) {
            cd dot = 0;
            for (int row = 0; row < nr; row++)
                dot += std::conj(q[i * nr + row]) * q[l * nr + row];
            if (rii == 0)
                dot = 0;
            out.r[i * nt + l] = dot;
            for (int row = 0; row < nr; row++)
                q[l * nr + row] -= dot * q[i * nr + row];
        }
    }
    for (int i = 0; i < nt; i++) {
        cd s = 0;
        for (int row = 0; row < nr; row++)
            s += std::conj(q[i * nr + row]) * cd(y[row]);
        out.z[i] = s;
    }
    return out;
}

namespace {

/*!
 * Exhaustive max-log ML as a depth-first walk of the whole tree (no pruning): every
 * hypothesis s gets its distance ||z - R s||^2 (= ||y - H s||^2 less a constant), but
 * a row's interference from the positions above it is computed once per subtree, and
 * each bit's least distance is taken per subtree (min is exact), so a leaf costs one
 * complex subtraction, a norm and its own bits instead of the whole of R s and every
 * bit. best0/best1: the least distance per bit value (antenna-major bits).
 */
struct ml_tree {
    ml_tree(const sorted_qr& qr, const constellation& c, int nt)
        : qr(qr), nt(nt), q(c.size()), bits(c.bits_per_symbol())
    {
        best0.assign(static_cast<size_t>(nt) * bits,
                     std::numeric_limits<double>::infinity());
        best1 = best0;
        // r(row, pos) * point x for every row <= pos: products made once per vector.
        rp.resize(static_cast<size_t>(nt) * nt * q);
        for (int row = 0; row < nt; row++)
            for (int pos = row; pos < nt; pos++)
                for (int x = 0; x < q; x++)
                    rp[(static_cast<size_t>(row) * nt + pos) * q + x] =
                        qr.r[row * nt + pos] * cd(c.points()[x]);
    }

    //! The subtree below a choice at every position above `pos`: part[row] = z_row less
    //! the interference of those choices (rows 0..pos), `above` their rows' distance.
    //! Returns the least distance in the subtree.
    double node(int pos, const cd* part, double above)
    {
        cd next[mimo_max_antennas];
        double least = std::numeric_limits<double>::infinity();
        const cd* own = &rp[(static_cast<size_t>(pos) * nt + pos) * q];
        for (int x = 0; x < q; x++) {
            const double d = above + std::norm(part[pos] - own[x]);
            double sub = d;
            if (pos > 0) {
                for (int row = 0; row < pos; row++)
                    next[row] =
                        part[row] - rp[(static_cast<size_t>(row) * nt + pos) * q + x];
                sub = node(pos - 1, next, d);
            }
            const int antenna = qr.order[pos];
            for (int k = 0; k < bits; k++) {
                double& best = (x >> (bits - 1 - k)) & 1 ? best1[antenna * bits + k]
                                                         : best0[antenna * bits + k];
                best = std::min(best, sub);
            }
            least = std::min(least, sub);
        }
        return least;
    }

    const sorted_qr& qr;
    int nt, q, bits;
    std::vector<cd> rp;
    std::vector<double> best0, best1;
};

} // namespace

void detect_ml(const cfloat* h,
               const cfloat* y,
               int nr,
               int nt,
               const constellation& c,
               float noise_var,
               float* llrs)
{
    check_sizes("detect_ml", nr, nt, noise_var);
    const int bits = c.bits_per_symbol(), q = c.size();
    const int total_bits = nt * bits;
    if (std::pow(double(q), nt) > double(1 << 20))
        throw error("detect_ml: " + std::to_string(q) + "^" + std::to_string(nt) +
                    " hypotheses; allowed: up to 2^20 (use lmmse for larger sizes)");
    std::fill(llrs, llrs + total_bits, 0.0f);
    if (!all_finite(h, y, nr, nt))
        return;
    const sorted_qr qr = sorted_qr_decompose(h, nr, nt, y);
    ml_tree search(qr, c, nt);
    std::vector<cd> part(qr.z.begin(), qr.z.end());
    search.node(nt - 1, part.data(), 0.0);
    for (int b = 0; b < total_bits; b++)
        llrs[b] = static_cast<float>((search.best1[b] - search.best0[b]) / noise_var);
}

void detect_lmmse(const cfloat* h,
                  const cfloat* y,
                  int nr,
                  int nt,
                  const constellation& c,
                  float noise_var,
                  float* llrs)
{
    check_sizes("detect_lmmse", nr, nt, noise_var);
    const int bits = c.bits_per_symbol();
    std::fill(llrs, llrs + nt * bits, 0.0f);
    if (!all_finite(h, y, nr, nt))
        return;
    // G = H^H H + noise_var I (positive definite), [G | H^H] -> [I | W] by Gauss-Jordan.
    const int cols = nt + nr;
    std::vector<cd> a(static_cast<size_t>(nt) * cols);
    for (int i = 0; i < nt; i++) {
        for (int j = 0; j < nt; j++) {
            cd s = i == j ? cd(noise_var) : cd();
            for (int row = 0; row < nr; row++)
                s += std::conj(cd(h[row * nt + i])) * cd(h[row * nt + j]);
            a[i * cols + j] = s;
        }
        for (int row = 0; row < nr; row++)
            a[i * cols + nt + row] = std::conj(cd(h[row * nt + i]));
    }
    for (int p = 0; p < nt; p++) {
        int pivot = p;
        for (int i = p + 1; i < nt; i++)
            if (std::abs(a[i * cols + p]) > std::abs(a[pivot * cols + p]))
                pivot = i;
        for (int j = 0; j < cols; j++)
            std::swap(a[p * cols + j], a[pivot * cols + j]);
        const cd inv = 1.0 / a[p * cols + p];
        for (int j = 0; j < cols; j++)
            a[p * cols + j] *= inv;
        for (int i = 0; i < nt; i++)
            if (i != p) {
                const cd f = a[i * cols + p];
                for (int j = 0; j < cols; j++)
                    a[i * cols + j] -= f * a[p * cols + j];
            }
    }
    // s_hat = W y = mu_k s_k + noise of variance mu_k (1 - mu_k), mu_k = (W H)_kk:
    // demap s_hat_k / mu_k at noise variance (1 - mu_k) / mu_k.
    for (int k = 0; k < nt; k++) {
        cd s_hat = 0, mu = 0;
        for (int row = 0; row < nr; row++) {
            s_hat += a[k * cols + nt + row] * cd(y[row]);
            mu += a[k * cols + nt + row] * cd(h[row * nt + k]);
        }
        const double m = mu.real();
        if (!(m > 1e-12))
            continue; // a stream the channel does not carry: LLRs 0
        const double nv = std::max((1.0 - m) / m, 1e-12);
        const cfloat est(static_cast<float>(s_hat.real() / m),
                         static_cast<float>(s_hat.imag() / m));
        c.demap_maxlog(&est, 1, static_cast<float>(nv), llrs + k * bits);
    }
}

void detect_kbest(const cfloat* h,
                  const cfloat* y,
                  int nr,
                  int nt,
                  const constellation& c,
                  float noise_var,
                  int k,
                  float* llrs,
                  float clip)
{
    check_sizes("detect_kbest", nr, nt, noise_var);
    if (k < 1 || k > 4096)
        throw error("detect_kbest: k = " + std::to_string(k) + "; allowed: 1..4096");
    const int bits = c.bits_per_symbol(), q = c.size();
    std::fill(llrs, llrs + nt * bits, 0.0f);
    if (!all_finite(h, y, nr, nt))
        return;
    const sorted_qr qr = sorted_qr_decompose(h, nr, nt, y);
    const auto& pts = c.points();
    struct path {
        double d;
        std::vector<int> s; // points at positions pos .. nt - 1 (s[i - pos])
    };
    std::vector<path> kept{ path{ 0.0, {} } }, next;
    for (int pos = nt - 1; pos >= 0; pos--) {
        next.clear();
        for (const path& p : kept) {
            // The interference of the decided positions below pos.
            cd base = qr.z[pos];
            for (int j = pos + 1; j < nt; j++)
                base -= qr.r[pos * nt + j] * cd(pts[p.s[j - pos - 1]]);
            for (int x = 0; x < q; x++) {
                path e;
                e.d = p.d + std::norm(base - qr.r[pos * nt + pos] * cd(pts[x]));
                e.s.reserve(nt - pos);
                e.s.push_back(x);
                e.s.insert(e.s.end(), p.s.begin(), p.s.end());
                next.push_back(std::move(e));
            }
        }
        std::stable_sort(next.begin(), next.end(), [](const path& a, const path& b) {
            return a.d < b.d;
        });
        if (static_cast<int>(next.size()) > k)
            next.resize(k);
        kept.swap(next);
    }
    const double inf = std::numeric_limits<double>::infinity();
    for (int pos = 0; pos < nt; pos++) {
        const int antenna = qr.order[pos];
        for (int b = 0; b < bits; b++) {
            double d0 = inf, d1 = inf;
            for (const path& p : kept) {
                double& best = (p.s[pos] >> (bits - 1 - b)) & 1 ? d1 : d0;
                best = std::min(best, p.d);
            }
            llrs[antenna * bits + b] = d0 == inf ? -clip
                                       : d1 == inf
                                           ? clip
                                           : static_cast<float>((d1 - d0) / noise_var);
        }
    }
}

void mtt_metrics(const cfloat* h,
                 const cfloat* y,
                 int nr,
                 int nt,
                 const constellation& c,
                 std::vector<double>& metrics)
{
    const int q = c.size();
    metrics.assign(static_cast<size_t>(nt) * q, std::numeric_limits<double>::infinity());
    const sorted_qr qr = sorted_qr_decompose(h, nr, nt, y);
    const auto& pts = c.points();
    auto R = [&](int row, int col) { return qr.r[row * nt + col]; };
    // A path: the point index chosen at each stage so far (stage u: row nt-1-u).
    struct path {
        std::vector<int> s;
        double d = 0;
    };
    // The interference of a path's decided points on row r (stage s = nt-1-r).
    auto delta = [&](const path& p, int r) {
        cd acc = 0;
        for (size_t u = 0; u < p.s.size(); u++)
            acc += R(r, nt - 1 - static_cast<int>(u)) * cd(pts[p.s[u]]);
        return acc;
    };
    auto weight = [&](int r, cd d, int point) {
        return std::norm(qr.z[r] - d - R(r, r) * cd(pts[point]));
    };
    // The shared reduction chain: chain[s][v] = the best path to vertex v of stage s.
    std::vector<std::vector<path>> chain(nt, std::vector<path>(q));
    for (int v = 0; v < q; v++) {
        chain[0][v].s = { v };
        chain[0][v].d = weight(nt - 1, 0.0, v);
    }
    for (int st = 1; st < nt; st++) {
        const int r = nt - 1 - st;
        std::vector<cd> deltas(q);
        for (int k = 0; k < q; k++)
            deltas[k] = delta(chain[st - 1][k], r);
        for (int v = 0; v < q; v++) {
            int best = 0;
            double best_d = chain[st - 1][0].d + weight(r, deltas[0], v);
            for (int k = 1; k < q; k++) {
                const double d = chain[st - 1][k].d + weight(r, deltas[k], v);
                if (d < best_d) {
                    best = k;
                    best_d = d;
                }
            }
            chain[st][v].s = chain[st - 1][best].s;
            chain[st][v].s.push_back(v);
            chain[st][v].d = best_d;
        }
    }
    // List t: the chain at stage t, each path extended greedily to the last stage.
    for (int t = 0; t < nt; t++) {
        std::vector<path> list = chain[t];
        for (int st = t + 1; st < nt; st++) {
            const int r = nt - 1 - st;
            for (path& p : list) {
                const cd d = delta(p, r);
                int best = 0;
                double best_w = weight(r, d, 0);
                for (int v = 1; v < q; v++) {
                    const double w = weight(r, d, v);
                    if (w < best_w) {
                        best = v;
                        best_w = w;
                    }
                }
                p.s.push_back(best);
                p.d += best_w;
            }
        }
        // Every path of every list is a complete hypothesis with its exact distance:
        // each one bounds the metric of each of its points.
        for (const path& p : list)
            for (int u = 0; u < nt; u++) {
                double& m =
                    metrics[static_cast<size_t>(qr.order[nt - 1 - u]) * q + p.s[u]];
                m = std::min(m, p.d);
            }
    }
}

void detect_mtt(const cfloat* h,
                const cfloat* y,
                int nr,
                int nt,
                const constellation& c,
                float noise_var,
                float* llrs)
{
    check_sizes("detect_mtt", nr, nt, noise_var);
    const int bits = c.bits_per_symbol(), q = c.size();
    std::fill(llrs, llrs + nt * bits, 0.0f);
    if (!all_finite(h, y, nr, nt))
        return;
    std::vector<double> metrics;
    mtt_metrics(h, y, nr, nt, c, metrics);
    const double inf = std::numeric_limits<double>::infinity();
    for (int a = 0; a < nt; a++)
        for (int b = 0; b < bits; b++) {
            double m0 = inf, m1 = inf;
            for (int k = 0; k < q; k++) {
                double& best = (k >> (bits - 1 - b)) & 1 ? m1 : m0;
                best = std::min(best, metrics[static_cast<size_t>(a) * q + k]);
            }
            llrs[a * bits + b] = static_cast<float>((m1 - m0) / noise_var);
        }
}

namespace {

class mimo_detector_cpu final : public batch_decoder
{
public:
    mimo_detector_cpu(const mimo_setup& setup, const mimo_detector_options& options)
        : d_setup(setup), d_opt(options), d_const(setup.mod)
    {
        check_sizes("mimo detector", setup.nr, setup.nt, options.noise_var);
        if (setup.coherence < 1 || setup.coherence > 1 << 16)
            throw error("mimo detector: coherence = " + std::to_string(setup.coherence) +
                        "; allowed: 1..65536 received vectors per channel matrix");
        if (options.algorithm == mimo_algorithm::kbest &&
            (options.kbest_k < 0 || options.kbest_k > 4096))
            throw error("mimo detector: kbest_k = " + std::to_string(options.kbest_k) +
                        "; allowed: 0 (the constellation size) .. 4096");
        if (options.algorithm == mimo_algorithm::ml &&
            std::pow(double(d_const.size()), setup.nt) > double(1 << 20))
            throw error("mimo detector: ml with " + std::to_string(d_const.size()) + "^" +
                        std::to_string(setup.nt) +
                        " hypotheses; allowed: up to 2^20 (use lmmse or kbest)");
        d_out_per_vector = static_cast<size_t>(setup.nt) * d_const.bits_per_symbol();
        d_mtt_float = setup.nt <= mtt_float::max_nt && setup.nr <= mtt_float::max_nr &&
                      d_const.size() <= mtt_float::max_q;
        d_kbest_k = options.kbest_k ? options.kbest_k : d_const.size();
        d_kbest_float = d_mtt_float && d_kbest_k <= kbest_float::max_k;
        d_view = mtt_float::make_view(
            reinterpret_cast<const mtt_float::cplx*>(d_const.points().data()),
            d_const.bits_per_symbol());
    }

    backend_kind backend() const override { return backend_kind::cpu; }
    input_format input() const override { return input_format::complex_float; }
    output_format output() const override { return output_format::llr_float; }
    size_t max_input_items_per_frame() const override
    {
        return static_cast<size_t>(d_setup.coherence) * d_setup.nr;
    }
    size_t output_bits_for_input(size_t items) const override
    {
        const size_t nr = d_setup.nr;
        if (items == 0 || items % nr ||
            items / nr > static_cast<size_t>(d_setup.coherence))
            throw error(
                "mimo detector: a frame of " + std::to_string(items) +
                " samples; allowed: v * nr with nr = " + std::to_string(nr) +
                " and 1 <= v <= coherence = " + std::to_string(d_setup.coherence));
        return items / nr * d_out_per_vector;
    }
    size_t aux_items_for_input(size_t) const override
    {
        return static_cast<size_t>(d_setup.nr) * d_setup.nt +
               (d_opt.noise_var_per_frame ? 1 : 0);
    }
    size_t default_input_items() const override { return max_input_items_per_frame(); }
    size_t default_output_bits() const override
    {
        return output_bits_for_input(default_input_items());
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        const int nr = d_setup.nr;
        for_each_item(ctx, batch.num_frames, [&](size_t f, size_t) {
            const frame_extent& e = batch.frames[f];
            const size_t vectors = output_bits_for_input(e.in_items) / d_out_per_vector;
            const cfloat* h = batch.channels + e.aux_offset;
            float* out = batch.llrs_out + e.out_offset / sizeof(float);
            const float noise_var = d_opt.noise_var_per_frame
                                        ? h[static_cast<size_t>(nr) * d_setup.nt].real()
                                        : d_opt.noise_var;
            if (!(noise_var > 0.0f) || !std::isfinite(noise_var)) {
                std::fill(out, out + vectors * d_out_per_vector, 0.0f);
            } else {
                for (size_t v = 0; v < vectors; v++)
                    detect(h,
                           batch.samples + e.in_offset + v * nr,
                           noise_var,
                           out + v * d_out_per_vector);
            }
            batch.status[f] = frame_status{ 1, true };
        });
    }

    std::string name() const override
    {
        return std::string("mimo ") + std::to_string(d_setup.nt) + "x" +
               std::to_string(d_setup.nr) + " " + to_string(d_setup.mod) + " " +
               algorithm_label() + " on cpu";
    }

private:
    const char* algorithm_label() const
    {
        switch (d_opt.algorithm) {
        case mimo_algorithm::ml:
            return "ml";
        case mimo_algorithm::lmmse:
            return "lmmse";
        case mimo_algorithm::kbest:
            return "kbest";
        case mimo_algorithm::mtt:
            return "mtt";
        }
        return "?";
    }

    void detect(const cfloat* h, const cfloat* y, float noise_var, float* llrs) const
    {
        const int nr = d_setup.nr, nt = d_setup.nt;
        switch (d_opt.algorithm) {
        case mimo_algorithm::ml:
            detect_ml(h, y, nr, nt, d_const, noise_var, llrs);
            break;
        case mimo_algorithm::lmmse:
            detect_lmmse(h, y, nr, nt, d_const, noise_var, llrs);
            break;
        case mimo_algorithm::kbest:
            if (d_kbest_float)
                detect_kbest_float(h, y, noise_var, llrs);
            else
                detect_kbest(
                    h, y, nr, nt, d_const, noise_var, d_kbest_k, llrs, d_opt.kbest_clip);
            break;
        case mimo_algorithm::mtt:
            if (d_mtt_float)
                detect_mtt_float(h, y, noise_var, llrs);
            else
                detect_mtt(h, y, nr, nt, d_const, noise_var, llrs);
            break;
        }
    }

    //! The float MTT the CUDA kernel runs (mtt_float.h): the stage's MTT within its
    //! sizes, so that CPU and GPU stages give the same LLRs bit for bit.
    void
    detect_mtt_float(const cfloat* h, const cfloat* y, float noise_var, float* llrs) const
    {
        const auto* hp = reinterpret_cast<const mtt_float::cplx*>(h);
        const auto* yp = reinterpret_cast<const mtt_float::cplx*>(y);
        const int nr = d_setup.nr, nt = d_setup.nt;
        if (d_const.size() <= 4)
            mtt_float::detect<4>(hp, yp, nr, nt, d_view, noise_var, llrs);
        else if (d_const.size() <= 16)
            mtt_float::detect<16>(hp, yp, nr, nt, d_view, noise_var, llrs);
        else
            mtt_float::detect<64>(hp, yp, nr, nt, d_view, noise_var, llrs);
    }

    //! The float K-best the CUDA kernel runs (kbest_float.h), likewise.
    void detect_kbest_float(const cfloat* h,
                            const cfloat* y,
                            float noise_var,
                            float* llrs) const
    {
        const auto* hp = reinterpret_cast<const mtt_float::cplx*>(h);
        const auto* yp = reinterpret_cast<const mtt_float::cplx*>(y);
        const auto* pts =
            reinterpret_cast<const mtt_float::cplx*>(d_const.points().data());
        const int nr = d_setup.nr, nt = d_setup.nt, bits = d_const.bits_per_symbol();
        if (d_kbest_k <= 16)
            kbest_float::detect<16>(
                hp, yp, nr, nt, pts, bits, d_kbest_k, d_opt.kbest_clip, noise_var, llrs);
        else
            kbest_float::detect<kbest_float::max_k>(
                hp, yp, nr, nt, pts, bits, d_kbest_k, d_opt.kbest_clip, noise_var, llrs);
    }

    mimo_setup d_setup;
    mimo_detector_options d_opt;
    constellation d_const;
    size_t d_out_per_vector = 0;
    int d_kbest_k = 0;
    bool d_kbest_float = false; //!< kbest within kbest_float's sizes
    bool d_mtt_float = false;
    mtt_float::view d_view; //!< points into d_const
};

} // namespace

std::unique_ptr<batch_decoder>
make_mimo_detector_cpu(const mimo_setup& setup, const mimo_detector_options& options)
{
    return std::make_unique<mimo_detector_cpu>(setup, options);
}

} // namespace gpufec
