/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// DVB-S2 LDPC codes (EN 302 307-1 V1.4.1): k, n, q and the column-degree profile of
// every code against Tables 5a/5b and 7a/7b, the accumulator encoder against H and
// against the alist code's substitution encoder on the same rows, the layered graph
// (360-periodic block rows, split only where a weight-2 circulant forces it), errors,
// and the CPU decoder's BER 0.3 dB above the QEF thresholds of Table 13.
#include <gpufec/dvbs2_ldpc.h>
#include <gpufec/ldpc.h>
#include <gpufec/ldpc_alist.h>

#include "codes/ldpc_qc360_plan.h"
#include "cpu/min_sum_kernels.h"
#include "test_helpers.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace gpufec;
using gpufec::test::bit_errors;
using gpufec::test::decode_all;
using gpufec::test::expect_error;
using gpufec::test::noiseless;
using gpufec::test::random_bits;
using gpufec::test::trial;

namespace {

// One code as EN 302 307-1 V1.4.1 lists it: k_ldpc (Tables 5a/5b), q (Tables 7a/7b) and
// the number of columns of each degree (Tables 5a/5b: j and its count, then degree 3;
// degree 2 has n - k - 1 columns and degree 1 one column in every code).
struct expected_code {
    const char* frame;
    const char* rate;
    int k, q;
    int j, cols_j, cols_3;
};

const expected_code standard_codes[] = {
    { "normal", "1/4", 16200, 135, 12, 5400, 10800 },
    { "normal", "1/3", 21600, 120, 12, 7200, 14400 },
    { "normal", "2/5", 25920, 108, 12, 8640, 17280 },
    { "normal", "1/2", 32400, 90, 8, 12960, 19440 },
    { "normal", "3/5", 38880, 72, 12, 12960, 25920 },
    { "normal", "2/3", 43200, 60, 13, 4320, 38880 },
    { "normal", "3/4", 48600, 45, 12, 5400, 43200 },
    { "normal", "4/5", 51840, 36, 11, 6480, 45360 },
    { "normal", "5/6", 54000, 30, 13, 5400, 48600 },
    { "normal", "8/9", 57600, 20, 4, 7200, 50400 },
    { "normal", "9/10", 58320, 18, 4, 6480, 51840 },
    { "short", "1/4", 3240, 36, 12, 1440, 1800 },
    { "short", "1/3", 5400, 30, 12, 1800, 3600 },
    { "short", "2/5", 6480, 27, 12, 2160, 4320 },
    { "short", "1/2", 7200, 25, 8, 1800, 5400 },
    { "short", "3/5", 9720, 18, 12, 3240, 6480 },
    { "short", "2/3", 10800, 15, 13, 1080, 9720 },
    { "short", "3/4", 11880, 12, 12, 360, 11520 },
    { "short", "4/5", 12600, 10, 0, 0, 12600 }, // Table 5b: no column above degree 3
    { "short", "5/6", 13320, 8, 13, 360, 12960 },
    { "short", "8/9", 14400, 5, 4, 1800, 12600 },
};

std::string name_of(const expected_code& e)
{
    return std::string(e.frame) + " " + e.rate;
}

// Column degrees of a graph: degree -> number of columns.
std::map<int, int> column_profile(const ldpc_graph& g)
{
    std::vector<int> deg(g.n(), 0);
    for (int c : g.edge_col)
        deg[c]++;
    std::map<int, int> profile;
    for (int d : deg)
        profile[d]++;
    return profile;
}

// Es/N0 of QPSK (Gray: each bit sees BPSK at Es/N0 - 3.01 dB) as the Eb/N0 of
// make_trial for a code of rate k/n (make_trial draws sigma^2 = 1 / (2 R Eb/N0)).
double ebn0_of_qpsk_esn0(double esn0_db, const dvbs2_ldpc_code& code)
{
    return esn0_db - 10.0 * std::log10(2.0) -
           10.0 * std::log10(static_cast<double>(code.k()) / code.n());
}

} // namespace

TEST(Dvbs2Ldpc, ParametersMatchTables5And7)
{
    size_t normal = 0, short_frames = 0;
    for (const auto& e : standard_codes) {
        SCOPED_TRACE(name_of(e));
        const dvbs2_ldpc_code code(e.frame, e.rate);
        EXPECT_EQ(code.n(), std::string(e.frame) == "normal" ? 64800 : 16200);
        EXPECT_EQ(code.k(), e.k);
        EXPECT_EQ(code.q(), e.q);
        EXPECT_EQ(code.m(), 360 * e.q);
        EXPECT_EQ(code.address_table().size(), static_cast<size_t>(e.k / 360));
        (std::string(e.frame) == "normal" ? normal : short_frames)++;
    }
    EXPECT_EQ(normal, dvbs2_ldpc_code::rates("normal").size());
    EXPECT_EQ(short_frames, dvbs2_ldpc_code::rates("short").size());
    EXPECT_EQ(dvbs2_ldpc_code("normal", "1/2").table_name(), "B.4");
    EXPECT_EQ(dvbs2_ldpc_code("short", "8/9").table_name(), "C.10");
    EXPECT_EQ(dvbs2_ldpc_code().describe(), "DVB-S2 LDPC normal r=1/2 n=64800 k=32400");
}

// Tables 5a/5b: j-degree and degree-3 information columns, n - k - 1 parity columns
// of degree 2 and the last parity column of degree 1; the rows of H from check_rows()
// and from graph() are the same set.
TEST(Dvbs2Ldpc, ColumnDegreesMatchTables5)
{
    for (const auto& e : standard_codes) {
        SCOPED_TRACE(name_of(e));
        const dvbs2_ldpc_code code(e.frame, e.rate);
        const ldpc_graph g = code.graph();
        std::map<int, int> expected;
        if (e.cols_j > 0)
            expected[e.j] = e.cols_j;
        expected[3] += e.cols_3;
        expected[2] = code.m() - 1;
        expected[1] = 1;
        EXPECT_EQ(column_profile(g), expected);
        EXPECT_EQ(g.check_rows(), code.m());
        EXPECT_EQ(g.n(), code.n());
        size_t edges = 0;
        for (const auto& r : code.check_rows())
            edges += r.size();
        EXPECT_EQ(static_cast<size_t>(g.edges()), edges);
    }
}

// Random information frames encode to codewords of H (the graph's check and the code's
// own), the information bits first; one flipped bit breaks a check.
TEST(Dvbs2Ldpc, EveryCodeEncodesToCodewords)
{
    std::mt19937 rng(302307);
    for (const auto& e : standard_codes) {
        SCOPED_TRACE(name_of(e));
        const dvbs2_ldpc_code code(e.frame, e.rate);
        const ldpc_graph g = code.graph();
        for (int f = 0; f < 3; f++) {
            const auto info = random_bits(rng, code.k());
            std::vector<uint8_t> c(code.n(), 7);
            code.encode(info.data(), c.data());
            ASSERT_TRUE(std::equal(info.begin(), info.end(), c.begin()));
            for (uint8_t b : c)
                ASSERT_LE(b, 1);
            EXPECT_TRUE(g.is_codeword(c.data()));
            EXPECT_TRUE(code.is_codeword(c.data()));
            const int flip = static_cast<int>(rng() % code.n());
            c[flip] ^= 1;
            EXPECT_FALSE(g.is_codeword(c.data())) << "bit " << flip;
            EXPECT_FALSE(code.is_codeword(c.data())) << "bit " << flip;
        }
        std::vector<uint8_t> zero(code.k(), 0), c(code.n(), 1);
        code.encode(zero.data(), c.data());
        EXPECT_EQ(std::count(c.begin(), c.end(), 1), 0);
    }
}

// An independent encoder on the same H: ldpc_alist_code picks the substitution
// encoder (each row's largest column is a new parity bit), so its codeword must be
// ours; and the alist text reads back as the same rows.
TEST(Dvbs2Ldpc, MatchesAlistSubstitutionEncoder)
{
    std::mt19937 rng(5);
    for (const auto& fr : { std::make_pair("short", "1/4"),
                            std::make_pair("short", "3/5"),
                            std::make_pair("normal", "3/4") }) {
        const dvbs2_ldpc_code code(fr.first, fr.second);
        SCOPED_TRACE(code.describe());
        const auto alist = ldpc_alist_code::from_alist_text(code.to_alist_text());
        EXPECT_EQ(alist.check_rows(), code.check_rows());
        EXPECT_EQ(alist.k(), code.k());
        EXPECT_TRUE(alist.triangular_encoder());
        ASSERT_EQ(alist.info_positions(), code.graph().info_positions);
        for (int f = 0; f < 2; f++) {
            const auto info = random_bits(rng, code.k());
            std::vector<uint8_t> ours(code.n()), theirs(code.n());
            code.encode(info.data(), ours.data());
            alist.encode(info.data(), theirs.data());
            EXPECT_EQ(ours, theirs);
        }
    }
}

// graph(): layer by layer, each layer is rows i + q (s + c t) of one block row i with
// c = layer_strides()[i]; c > 1 only where the whole block row shares a column (a
// weight-2 circulant), so the split is needed; validate() accepts the graph.
TEST(Dvbs2Ldpc, LayersFollowThe360PeriodicBlockRows)
{
    for (const auto& e : standard_codes) {
        SCOPED_TRACE(name_of(e));
        const dvbs2_ldpc_code code(e.frame, e.rate);
        const ldpc_graph g = code.graph();
        EXPECT_NO_THROW(g.validate());
        const auto rows = code.check_rows();
        const auto& strides = code.layer_strides();
        ASSERT_EQ(strides.size(), static_cast<size_t>(code.q()));
        int layer = 0, base_row = 0, split = 0;
        for (int i = 0; i < code.q(); i++) {
            const int c = strides[i];
            ASSERT_EQ(360 % c, 0);
            for (int s = 0; s < c; s++, layer++) {
                ASSERT_LT(layer, g.layers());
                ASSERT_EQ(g.layer_start[layer + 1] - g.layer_start[layer], 360 / c);
                for (int t = 0; t < 360 / c; t++, base_row++) {
                    const std::vector<int> cols(
                        g.edge_col.begin() + g.row_start[base_row],
                        g.edge_col.begin() + g.row_start[base_row + 1]);
                    ASSERT_EQ(cols, rows[i + code.q() * (s + c * t)]);
                }
            }
            // The unsplit block row would name a column twice exactly when c > 1.
            std::vector<int> seen(code.n(), 0);
            bool shared = false;
            for (int d = 0; d < 360; d++)
                for (int col : rows[i + code.q() * d])
                    shared |= seen[col]++ > 0;
            EXPECT_EQ(shared, c > 1) << "block row " << i;
            split += c > 1;
        }
        EXPECT_EQ(layer, g.layers());
        EXPECT_EQ(base_row, g.base_rows());
        for (int i = 0; i < code.k(); i++)
            ASSERT_EQ(g.info_positions[i], i);
        EXPECT_EQ(g.e(), code.n());
        EXPECT_TRUE(g.known_zeros.empty());
        EXPECT_TRUE(g.punctured.empty());
        if (name_of(e) == "normal 1/2")
            EXPECT_EQ(split, 8);
        std::printf(
            "%-11s q = %3d block rows, %2d with a weight-2 circulant, %3d layers\n",
            name_of(e).c_str(),
            code.q(),
            split,
            g.layers());
    }
}

// The 360-periodic plan of the CUDA kernel (lib/codes/ldpc_qc360_plan.h): every code
// has one, its cells are a permutation of the positions plus the dummy cell 0, each
// layer's rows are those of the graph's layer, the dummy stands in exactly once (row 0
// lacks p_{-1}), and graphs of another shape are refused.
TEST(Dvbs2Ldpc, Qc360PlanDescribesEveryCode)
{
    for (const auto& e : standard_codes) {
        SCOPED_TRACE(name_of(e));
        const dvbs2_ldpc_code code(e.frame, e.rate);
        const ldpc_graph g = code.graph();
        const auto plan = make_qc360_plan(g);
        ASSERT_TRUE(plan.has_value());
        std::vector<int> cells = plan->cell_of;
        std::sort(cells.begin(), cells.end());
        for (int v = 0; v < code.n(); v++)
            ASSERT_EQ(cells[v], v + 1);
        ASSERT_EQ(plan->layers.size(), static_cast<size_t>(g.layers()));
        int dummies = 0;
        for (int l = 0; l < g.layers(); l++) {
            const qc360_layer& L = plan->layers[l];
            ASSERT_EQ(L.rows, g.layer_start[l + 1] - g.layer_start[l]);
            EXPECT_EQ(L.rows * L.stride, 360);
            // The layer's rows as sets of cells, from the graph and from the plan.
            std::vector<std::vector<int>> from_graph, from_plan;
            for (int b = g.layer_start[l]; b < g.layer_start[l + 1]; b++) {
                std::vector<int> row;
                for (int x = g.row_start[b]; x < g.row_start[b + 1]; x++)
                    row.push_back(plan->cell_of[g.edge_col[x]]);
                std::sort(row.begin(), row.end());
                from_graph.push_back(row);
            }
            for (int t = 0; t < L.rows; t++) {
                std::vector<int> row = plan->row_cells(l, t);
                std::sort(row.begin(), row.end());
                if (row.front() == 0) {
                    dummies++;
                    row.erase(row.begin());
                }
                from_plan.push_back(row);
            }
            std::sort(from_graph.begin(), from_graph.end());
            std::sort(from_plan.begin(), from_plan.end());
            ASSERT_EQ(from_graph, from_plan) << "layer " << l;
        }
        EXPECT_EQ(dummies, 1);
        EXPECT_LE(plan->max_degree, 32) << "the CUDA kernel takes rows of up to 32 edges";
        std::printf("%-11s 360-periodic plan: rows of up to %2d edges\n",
                    name_of(e).c_str(),
                    plan->max_degree);
    }
    // Another shape: an NR graph, and a DVB-S2 graph with one edge moved.
    EXPECT_FALSE(make_qc360_plan(nr_ldpc_code(1, 384, 0, 0).graph()).has_value());
    ldpc_graph moved = dvbs2_ldpc_code("short", "1/2").graph();
    moved.edge_col[5] = moved.edge_col[5] == 0 ? 1 : moved.edge_col[5] - 1;
    EXPECT_FALSE(make_qc360_plan(moved).has_value());
}

namespace {

//! The CUDA kernel's schedule (lib/cuda/ldpc/qc360_layered.cuh) on the CPU, int8
//! arithmetic: rows d = d0 + stride t of each layer, every row padded to `slots` with
//! null slots (cells at +32000, read, never written), the dummy cell 0 for p_{-1} of
//! row 0 (written by its row, pinned back after each iteration). Returns the hard
//! decisions of the information bits and the status as the decoders report them.
struct emulated {
    std::vector<uint8_t> bits;
    frame_status status;
};

emulated decode_like_the_kernel(const qc360_plan& plan,
                                int slots,
                                const ldpc_decoder_options& opt,
                                const std::vector<llr8_t>& llrs)
{
    const min_sum::config cfg(opt);
    constexpr int app_max = min_sum::app_max;
    const int null_cells = plan.cells;
    std::vector<int> app(plan.cells + qc360_period, app_max);
    for (int v = 0; v < plan.n; v++)
        app[plan.cell_of[v]] = llrs[v];
    std::vector<std::vector<int8_t>> r(plan.layers.size());
    for (size_t l = 0; l < plan.layers.size(); l++)
        r[l].assign(static_cast<size_t>(plan.layers[l].rows) * slots, 0);
    auto sat = [=](int x) {
        return x > app_max ? app_max : (x < -app_max ? -app_max : x);
    };
    auto scale = [&](int m) {
        m = std::min(m, min_sum::llr_max);
        return opt.algorithm == ldpc_algorithm::normalized
                   ? (m * cfg.alpha16()) >> 4
                   : std::max(m - cfg.beta_int(), 0);
    };
    auto cells_of = [&](const qc360_layer& L, int t) {
        std::vector<int> cells(slots);
        for (int j = 0; j < slots; j++)
            cells[j] = j < L.degree ? qc360_cell(plan.slot_base[L.first_slot + j],
                                                 plan.slot_shift[L.first_slot + j],
                                                 L.d0 + L.stride * t)
                                    : null_cells + L.d0 + L.stride * t;
        return cells;
    };
    emulated e;
    for (int it = 0; it < opt.iterations; it++) {
        for (size_t l = 0; l < plan.layers.size(); l++) {
            const qc360_layer& L = plan.layers[l];
            for (int t = 0; t < L.rows; t++) {
                const std::vector<int> cells = cells_of(L, t);
                int8_t* msg = r[l].data() + static_cast<size_t>(t) * slots;
                std::vector<int> q(slots);
                int min1 = 32767, min2 = 32767, sign = 0;
                for (int j = 0; j < slots; j++) {
                    q[j] = sat(app[cells[j]] - msg[j]);
                    const int a = std::abs(q[j]);
                    min2 = std::min(min2, std::max(min1, a));
                    min1 = std::min(min1, a);
                    sign ^= q[j];
                }
                const int mag1 = scale(min1), mag2 = scale(min2);
                for (int j = 0; j < slots; j++) {
                    const int mag = std::abs(q[j]) == min1 ? mag2 : mag1;
                    msg[j] = static_cast<int8_t>((sign ^ q[j]) < 0 ? -mag : mag);
                    if (j < L.degree)
                        app[cells[j]] = sat(q[j] + msg[j]);
                }
            }
        }
        app[0] = app_max;
        e.status.iterations = it + 1;
        bool holds = true;
        for (const qc360_layer& L : plan.layers)
            for (int t = 0; t < L.rows && holds; t++) {
                int parity = 0;
                for (int c : cells_of(L, t))
                    parity ^= app[c];
                holds = parity >= 0;
            }
        e.status.ok = holds;
        if (holds && opt.early_termination)
            break;
    }
    for (int i = 0; i < plan.k; i++)
        e.bits.push_back(app[plan.info_cell[i]] < 0);
    return e;
}

} // namespace

// The kernel's rewrite of the decoder (the cells of the plan, the dummy edge of row 0,
// the null slots of short rows) decides as the CPU decoder does: bits, iterations and
// status, on noisy frames near each rate's QEF point (some stop early, some fail).
TEST(Dvbs2Ldpc, Qc360ScheduleDecodesAsTheCpuDecoder)
{
    struct one {
        const char* frame;
        const char* rate;
        double esn0_db;
        int slots; // the kernel's row size for this code (qc360::degree_bound)
    };
    for (const one& c : { one{ "normal", "1/2", 1.2, 7 },
                          one{ "short", "1/2", 1.2, 8 },
                          one{ "short", "3/5", 3.0, 16 },
                          one{ "short", "8/9", 6.0, 32 } }) {
        const dvbs2_ldpc_code code(c.frame, c.rate);
        SCOPED_TRACE(code.describe());
        const auto plan = make_qc360_plan(code.graph());
        ASSERT_TRUE(plan.has_value());
        ASSERT_LE(plan->max_degree, c.slots);
        ldpc_decoder_options opt;
        opt.algorithm = ldpc_algorithm::offset;
        opt.beta = 3.0f;
        opt.iterations = 12;
        const trial t = gpufec::test::make_trial(
            code, code.n(), 4, ebn0_of_qpsk_esn0(c.esn0_db, code), 17);
        auto cpu = make_ldpc_decoder_cpu(code.graph(), opt);
        const auto d = decode_all(*cpu, t.llrs, code.k());
        for (size_t f = 0; f < t.llrs.size(); f++) {
            const emulated e = decode_like_the_kernel(*plan, c.slots, opt, t.llrs[f]);
            EXPECT_EQ(e.bits, d.bits[f]) << "frame " << f;
            EXPECT_EQ(e.status.iterations, d.status[f].iterations) << "frame " << f;
            EXPECT_EQ(e.status.ok, d.status[f].ok) << "frame " << f;
        }
    }
}

TEST(Dvbs2Ldpc, BadFrameOrRateThrows)
{
    expect_error([] { dvbs2_ldpc_code("medium", "1/2"); },
                 { "medium", "normal (n = 64800)", "short (n = 16200)" });
    expect_error([] { dvbs2_ldpc_code("short", "9/10"); },
                 { "9/10", "short", "1/4, 1/3, 2/5, 1/2, 3/5, 2/3, 3/4, 4/5, 5/6, 8/9" });
    expect_error([] { dvbs2_ldpc_code("normal", "7/8"); },
                 { "7/8", "1/4, 1/3, 2/5, 1/2, 3/5, 2/3, 3/4, 4/5, 5/6, 8/9, 9/10" });
    expect_error([] { dvbs2_ldpc_code::rates("long"); }, { "long", "normal", "short" });
}

// Noiseless frames of a short and a normal code decode in one iteration, both
// arithmetics.
TEST(Dvbs2Ldpc, NoiselessFramesDecode)
{
    for (const auto& fr :
         { std::make_pair("short", "4/5"), std::make_pair("normal", "2/3") }) {
        const dvbs2_ldpc_code code(fr.first, fr.second);
        const trial t = gpufec::test::make_trial(code, code.n(), 3, noiseless, 9);
        for (auto a : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 }) {
            auto dec = make_ldpc_decoder_cpu(code.graph(), gpufec::test::ldpc_opts(a));
            SCOPED_TRACE(dec->name());
            const auto d = decode_all(*dec, t.llrs, code.k());
            EXPECT_EQ(bit_errors(t, d), 0u);
            for (const auto& s : d.status) {
                EXPECT_TRUE(s.ok);
                EXPECT_EQ(s.iterations, 1);
            }
        }
    }
}

namespace {

// Issue 9: LDPC-only BER <= 1e-6 at 0.3 dB above the QPSK QEF threshold of EN 302
// 307-1 V1.4.1 Table 13 (ideal Es/N0 for PER 1e-7 after BCH, normal FECFRAME, AWGN, 50
// iterations), 50 iterations with early termination, int8 arithmetic on LLRs quantized
// as the engine does (make_trial: scale 8, saturated at +/-127). About 5e6 bits per
// rate, so the 1e-6 budget is 5 bit errors; a failed frame of these codes leaves
// hundreds, so the test also asserts that no frame fails.
//
// Decoders: offset min-sum with beta = 3 int8 steps (0.375 in LLR units at scale 8)
// and normalized min-sum with alpha = 0.875 (int8: 14/16). Not the decoder's default
// alpha = 0.75: on normal 1/2 at Es/N0 1.3 dB it stalls (19 of 20 frames end with
// unsatisfied parity checks after 50 iterations, 25 information-bit errors), while
// rate 3/4 decodes with it. Measured on 60 frames of rate 1/2 (int8): beta = 3 has no
// frame error down to Es/N0 1.0 dB (FER 6/60 at 0.9 dB), beta = 4: 3/60 at 0.9 dB,
// alpha = 0.875: 3/60 at 1.0 dB; rate 3/4: all three clean at 4.03 dB, FER 2-6/60 at
// 3.93 dB.
struct qef_case {
    const char* rate;
    double threshold_esn0_db; // Table 13, QPSK
    int frames;
    uint64_t seed;
};

ldpc_decoder_options qef_options(ldpc_algorithm algorithm)
{
    ldpc_decoder_options opt = gpufec::test::ldpc_opts(ldpc_arithmetic::int8, algorithm);
    opt.iterations = 50;
    opt.alpha = 0.875f;
    opt.beta = 3.0f;
    return opt;
}

void check_qef_ber(const qef_case& c)
{
    const dvbs2_ldpc_code code("normal", c.rate);
    const double esn0 = c.threshold_esn0_db + 0.3;
    const double ebn0 = ebn0_of_qpsk_esn0(esn0, code);
    const auto t0 = std::chrono::steady_clock::now();
    const trial t = gpufec::test::make_trial(code, code.n(), c.frames, ebn0, c.seed);
    const double bits = static_cast<double>(c.frames) * code.k();
    const ldpc_graph graph = code.graph();
    std::printf(
        "%s, QPSK Es/N0 %.2f dB (Table 13: %.2f dB; Eb/N0 %.3f dB), %d frames: "
        "encode + channel %.1f s\n",
        code.describe().c_str(),
        esn0,
        c.threshold_esn0_db,
        ebn0,
        c.frames,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_GE(bits, 1e6);
    for (auto alg : { ldpc_algorithm::offset, ldpc_algorithm::normalized }) {
        auto dec = make_ldpc_decoder_cpu(graph, qef_options(alg));
        const auto t1 = std::chrono::steady_clock::now();
        const auto d = decode_all(*dec, t.llrs, code.k(), true, false);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
        const size_t errors = bit_errors(t, d);
        long iterations = 0;
        int failed = 0;
        for (const auto& s : d.status) {
            iterations += s.iterations;
            failed += !s.ok;
        }
        std::printf("  %s: %zu bit errors in %.0f bits (BER %.2e), %d frames failed, "
                    "%.2f iterations on average, decode %.2f s (2 threads)\n",
                    dec->name().c_str(),
                    errors,
                    bits,
                    errors / bits,
                    failed,
                    static_cast<double>(iterations) / c.frames,
                    seconds);
        EXPECT_LE(errors, static_cast<size_t>(bits * 1e-6)) << dec->name();
        EXPECT_EQ(failed, 0) << dec->name();
    }
}

} // namespace

// Table 13, QPSK 1/2: 1.00 dB. 155 frames = 5,022,000 bits.
TEST(Dvbs2Ldpc, Normal12BerAtQefPlus0p3dB) { check_qef_ber({ "1/2", 1.00, 155, 13 }); }

// Table 13, QPSK 3/4: 4.03 dB. 103 frames = 5,005,800 bits.
TEST(Dvbs2Ldpc, Normal34BerAtQefPlus0p3dB) { check_qef_ber({ "3/4", 4.03, 103, 34 }); }
