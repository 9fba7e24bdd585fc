/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The one LDPC graph (ldpc_graph.h) and the one CPU decoder that reads it: the graphs
// of NR and alist codes against the codes' own encoders, rate matching and syndrome
// checks; and the decoder bit for bit (bits, soft output, iterations, status) against a
// frozen copy of the two decoders it replaced (ldpc_reference.h), for NR BG1/BG2 codes
// with fillers, repetition and shortening and for the alist codes of
// test_ldpc_alist.cc, over every option.
#include <gpufec/backends.h>
#include <gpufec/ldpc_alist.h>
#include <gpufec/ldpc_decoding.h>

#include "ldpc_reference.h"
#include "ldpc_test_codes.h"
#include "test_helpers.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace gpufec;
using gpufec::test::decode_all;
using gpufec::test::decoded_batch;
using gpufec::test::expect_error;
using gpufec::test::random_bits;
using gpufec::test::trial;

namespace {

struct nr_cfg {
    int bg, z, k, e;
    double ebn0; // near the waterfall, so some frames use every iteration
};

// Fillers, repetition (e > N), shortening (parity not all sent), k not a multiple of 8.
const nr_cfg nr_cfgs[] = { { 1, 16, 300, 400, 1.5 },    { 1, 64, 1300, 4000, 1.0 },
                           { 1, 104, 2000, 6000, 0.5 }, { 1, 384, 0, 3 * 8448, 1.0 },
                           { 2, 10, 50, 120, 2.0 },     { 2, 52, 0, 2600, 1.0 },
                           { 2, 52, 400, 2000, 0.5 },   { 2, 384, 3840, 7000, 1.5 },
                           { 2, 16, 150, 300, 1.5 } };

// Every option combination, plus the corners where float messages grow: alpha = 1 and
// offset min-sum with beta = 0, 30 iterations without early termination.
std::vector<ldpc_decoder_options> all_options()
{
    std::vector<ldpc_decoder_options> all;
    for (auto a : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 })
        for (auto alg : { ldpc_algorithm::normalized, ldpc_algorithm::offset })
            for (bool et : { true, false })
                all.push_back(gpufec::test::ldpc_opts(a, alg, et));
    for (auto a : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 }) {
        ldpc_decoder_options o = gpufec::test::ldpc_opts(a);
        o.iterations = 30;
        o.early_termination = false;
        o.alpha = 1.0f;
        all.push_back(o);
        o.algorithm = ldpc_algorithm::offset;
        o.beta = 0.0f;
        all.push_back(o);
        o.beta = 2.6f; // rounds to 3 in int8
        o.iterations = 3;
        all.push_back(o);
    }
    return all;
}

void expect_identical(const decoded_batch& got, const decoded_batch& want)
{
    ASSERT_EQ(got.bits.size(), want.bits.size());
    for (size_t f = 0; f < want.bits.size(); f++) {
        ASSERT_EQ(got.bits[f], want.bits[f]) << "frame " << f;
        ASSERT_EQ(got.soft[f], want.soft[f]) << "frame " << f;
        EXPECT_EQ(got.status[f].iterations, want.status[f].iterations) << "frame " << f;
        EXPECT_EQ(got.status[f].ok, want.status[f].ok) << "frame " << f;
    }
}

// Decodes with the graph decoder (two workers) and the frozen reference; returns how many
// frames failed (so a test can check that the near-waterfall points exercise failures).
template <typename MakeRef>
int compare_with_reference(const ldpc_graph& graph,
                           const trial& t,
                           const ldpc_decoder_options& o,
                           MakeRef make_ref)
{
    auto dec = make_ldpc_decoder_cpu(graph, o);
    auto ref = make_ref(o);
    SCOPED_TRACE(dec->name());
    EXPECT_EQ(dec->name(), ref->name());
    EXPECT_EQ(dec->default_input_items(), ref->default_input_items());
    EXPECT_EQ(dec->default_output_bits(), ref->default_output_bits());
    const auto want = decode_all(*ref, t.llrs, graph.k());
    const auto got = decode_all(*dec, t.llrs, graph.k());
    expect_identical(got, want);
    int failed = 0;
    for (const auto& s : want.status)
        failed += !s.ok;
    return failed;
}

// The alist codes of test_ldpc_alist.cc, plus gr-fec's files when installed and a code
// with rows of degree 1 and 2 (the float cap's case).
std::vector<std::pair<ldpc_alist_code, double>> alist_codes()
{
    using gpufec::test::ira_rows;
    std::vector<std::pair<ldpc_alist_code, double>> codes;
    codes.push_back(
        { ldpc_alist_code::from_alist_text(gpufec::test::hamming_alist, "hamming"),
          2.0 });
    codes.push_back({ gpufec::test::wifi_648(), 1.5 });
    codes.push_back(
        { ldpc_alist_code::from_check_rows(2000, ira_rows(2000, 1000, 3, 2), "IRA"),
          1.5 });
    auto rows = gpufec::test::expand(gpufec::test::wifi_648_base(), 27);
    rows.push_back({ 5 });       // degree 1: bit 5 is 0
    rows.push_back({ 17, 300 }); // degree 2
    codes.push_back({ ldpc_alist_code::from_check_rows(648, rows, "low degree"), 1.5 });
    for (const char* name :
         { "n_0300_k_0122_gap_06.alist", "n_1800_k_0902_gap_28.alist" }) {
        const std::string path = std::string("/usr/share/gnuradio/fec/ldpc/") + name;
        if (std::ifstream(path))
            codes.push_back({ ldpc_alist_code::from_alist(path), 1.5 });
    }
    return codes;
}

} // namespace

TEST(LdpcGraph, NrGraphDescribesTheCode)
{
    std::mt19937 rng(5);
    for (const auto& c : nr_cfgs) {
        const nr_ldpc_code code(c.bg, c.z, c.k, c.e);
        const ldpc_graph g = code.graph();
        SCOPED_TRACE(g.description);
        EXPECT_EQ(g.description,
                  "ldpc BG" + std::to_string(c.bg) + " Z=" + std::to_string(c.z) + " k=" +
                      std::to_string(code.k()) + " e=" + std::to_string(code.e()));
        EXPECT_EQ(g.z, code.z());
        EXPECT_EQ(g.n(), code.codeword_bits());
        EXPECT_EQ(g.k(), code.k());
        EXPECT_EQ(g.e(), code.e());
        EXPECT_EQ(g.base_rows(), code.base_rows());
        ASSERT_EQ(g.layers(), code.base_rows()); // one layer per base row, in order
        for (int l = 0; l <= g.layers(); l++)
            EXPECT_EQ(g.layer_start[l], l);
        ASSERT_EQ(g.edges(), static_cast<int>(code.circulants().size()));
        for (int i = 0; i < g.edges(); i++) {
            const auto& circ = code.circulants()[i];
            EXPECT_EQ(g.edge_col[i], circ.col);
            EXPECT_EQ(g.edge_shift[i], circ.shift);
            EXPECT_GE(i, g.row_start[circ.row]);
            EXPECT_LT(i, g.row_start[circ.row + 1]);
        }
        std::vector<int> fillers;
        for (int v = code.k(); v < code.k_max(); v++)
            fillers.push_back(v);
        EXPECT_EQ(g.known_zeros, fillers);
        // Every position is reached by the channel, known, or punctured: exactly one.
        std::vector<int> kind(g.n(), 0);
        for (int v : g.channel_map)
            kind[v] |= 1;
        for (int v : g.known_zeros)
            kind[v] |= 2;
        for (int v : g.punctured)
            kind[v] |= 4;
        for (int v = 0; v < g.n(); v++)
            ASSERT_TRUE(kind[v] == 1 || kind[v] == 2 || kind[v] == 4) << "position " << v;
        for (int v = 0; v < 2 * c.z; v++)
            EXPECT_EQ(kind[v], 4) << "the first 2Z columns are punctured";
        for (int w = 0; w < 3; w++) {
            const auto info = random_bits(rng, code.k());
            std::vector<uint8_t> cw(code.codeword_bits()), tx(code.e());
            code.encode_full(info.data(), cw.data());
            code.rate_match(cw.data(), tx.data());
            EXPECT_TRUE(g.is_codeword(cw.data()));
            for (int i = 0; i < g.k(); i++)
                ASSERT_EQ(cw[g.info_positions[i]], info[i]);
            for (int i = 0; i < g.e(); i++)
                ASSERT_EQ(tx[i], cw[g.channel_map[i]]) << "LLR " << i;
            for (int v : g.known_zeros)
                ASSERT_EQ(cw[v], 0);
            cw[rng() % cw.size()] ^= 1; // every NR column is in some check
            EXPECT_FALSE(g.is_codeword(cw.data()));
        }
    }
}

TEST(LdpcGraph, AlistGraphDescribesTheCode)
{
    std::mt19937 rng(9);
    for (const auto& entry : alist_codes()) {
        const ldpc_alist_code& code = entry.first;
        const ldpc_graph g = code.graph();
        SCOPED_TRACE(code.describe());
        EXPECT_EQ(g.description, code.describe());
        EXPECT_EQ(g.z, 1);
        EXPECT_EQ(g.n(), code.n());
        EXPECT_EQ(g.e(), code.n());
        EXPECT_EQ(g.info_positions, code.info_positions());
        EXPECT_TRUE(g.known_zeros.empty());
        EXPECT_TRUE(g.punctured.empty());
        for (int i = 0; i < g.e(); i++)
            ASSERT_EQ(g.channel_map[i], i);
        ASSERT_EQ(g.layers(), static_cast<int>(code.layers().size()));
        EXPECT_EQ(g.base_rows(), code.m());
        for (int l = 0; l < g.layers(); l++) {
            const auto& layer = code.layers()[l];
            ASSERT_EQ(g.layer_start[l + 1] - g.layer_start[l],
                      static_cast<int>(layer.size()));
            for (size_t r = 0; r < layer.size(); r++) {
                const int b = g.layer_start[l] + static_cast<int>(r);
                const std::vector<int> cols(g.edge_col.begin() + g.row_start[b],
                                            g.edge_col.begin() + g.row_start[b + 1]);
                EXPECT_EQ(cols, code.check_rows()[layer[r]]);
            }
        }
        EXPECT_TRUE(std::all_of(
            g.edge_shift.begin(), g.edge_shift.end(), [](int s) { return s == 0; }));
        for (int w = 0; w < 4; w++) {
            std::vector<uint8_t> cw(code.n());
            code.encode(random_bits(rng, code.k()).data(), cw.data());
            EXPECT_TRUE(g.is_codeword(cw.data()));
            cw[rng() % cw.size()] ^= 1;
            EXPECT_EQ(g.is_codeword(cw.data()), code.is_codeword(cw.data()));
        }
    }
}

TEST(LdpcGraph, InconsistentGraphsThrow)
{
    const ldpc_graph good = nr_ldpc_code(2, 16, 150, 300).graph();
    auto with = [&](auto change) {
        ldpc_graph g = good;
        change(g);
        return [g] { make_ldpc_decoder_cpu(g, ldpc_decoder_options{}); };
    };
    EXPECT_NO_THROW(with([](ldpc_graph&) {})());
    expect_error(with([](ldpc_graph& g) { g.edge_shift[3] = 16; }),
                 { "ldpc_graph", "shift 16", "0..15" });
    expect_error(with([](ldpc_graph& g) { g.edge_col[0] = 52; }),
                 { "column 52", "0..51" });
    expect_error(with([](ldpc_graph& g) { std::swap(g.edge_col[0], g.edge_col[1]); }),
                 { "increase within a row" });
    expect_error(with([](ldpc_graph& g) {
                     g.layer_start = { 0, 2, 42 };
                 }), // rows 0, 1
                 { "share no column" });
    expect_error(with([](ldpc_graph& g) { g.channel_map[0] = g.known_zeros[0]; }),
                 { "known zero" });
    expect_error(with([](ldpc_graph& g) { g.info_positions.push_back(g.n()); }),
                 { "info_positions", "position 832", "0..831" });
    expect_error(with([](ldpc_graph& g) { g.row_start.back()++; }), { "row_start" });
}

TEST(LdpcGraph, NrDecoderIsBitIdenticalToTheDecoderItReplaced)
{
    const auto options = all_options();
    for (const auto& c : nr_cfgs) {
        const nr_ldpc_code code(c.bg, c.z, c.k, c.e);
        const int frames = code.e() > 10000 ? 4 : 16;
        const trial t = gpufec::test::make_trial(code, code.e(), frames, c.ebn0, c.z + 1);
        const ldpc_graph graph = code.graph();
        int failed = 0;
        for (const auto& o : options)
            failed +=
                compare_with_reference(graph, t, o, [&](const ldpc_decoder_options& x) {
                    return ldpc_reference::make_nr_decoder(code, x);
                });
        EXPECT_GT(failed, 0) << graph.description << ": no frame used every iteration";
    }
}

TEST(LdpcGraph, AlistDecoderIsBitIdenticalToTheDecoderItReplaced)
{
    const auto options = all_options();
    for (const auto& entry : alist_codes()) {
        const ldpc_alist_code& code = entry.first;
        const trial t = gpufec::test::make_trial(code, code.n(), 16, entry.second, 7);
        const ldpc_graph graph = code.graph();
        int failed = 0;
        for (const auto& o : options)
            failed +=
                compare_with_reference(graph, t, o, [&](const ldpc_decoder_options& x) {
                    return ldpc_reference::make_alist_decoder(code, x);
                });
        if (code.n() > 100)
            EXPECT_GT(failed, 0) << code.describe() << ": no frame used every iteration";
    }
}

// Regrouping disjoint rows changes nothing: an NR graph whose consecutive base rows are
// merged into layers while they share no column (lifted layers of several base rows),
// and an alist graph with one row per layer (Z = 1 layers of one row), decode exactly
// as the replaced decoders did.
TEST(LdpcGraph, RegroupedLayersDecodeTheSame)
{
    const nr_ldpc_code nr(1, 64, 1300, 4000);
    ldpc_graph merged = nr.graph();
    merged.layer_start = { 0 };
    std::vector<int> used(merged.base_columns, -1);
    for (int b = 0; b < merged.base_rows(); b++) {
        bool clash = false;
        for (int i = merged.row_start[b]; i < merged.row_start[b + 1]; i++)
            clash |= used[merged.edge_col[i]] == merged.layers();
        if (clash)
            merged.layer_start.push_back(b);
        for (int i = merged.row_start[b]; i < merged.row_start[b + 1]; i++)
            used[merged.edge_col[i]] = merged.layers();
    }
    merged.layer_start.push_back(merged.base_rows());
    ASSERT_NO_THROW(merged.validate());
    EXPECT_LT(merged.layers(), merged.base_rows() * 3 / 4); // many layers of 2+ rows
    const trial tn = gpufec::test::make_trial(nr, nr.e(), 12, 1.0, 5);
    const auto alist = gpufec::test::wifi_648();
    ldpc_graph single = alist.graph();
    single.layer_start.clear();
    for (int b = 0; b <= single.base_rows(); b++)
        single.layer_start.push_back(b);
    const trial ta = gpufec::test::make_trial(alist, alist.n(), 12, 1.5, 5);
    for (const auto& o : all_options()) {
        compare_with_reference(merged, tn, o, [&](const ldpc_decoder_options& x) {
            return ldpc_reference::make_nr_decoder(nr, x);
        });
        compare_with_reference(single, ta, o, [&](const ldpc_decoder_options& x) {
            return ldpc_reference::make_alist_decoder(alist, x);
        });
    }
}

// The registry takes the graph: make_decoder(graph, options, "cpu") is the same decoder,
// for both code families, and the code-taking wrappers are too.
TEST(LdpcGraph, RegistryAndWrappersDecodeTheSame)
{
    const nr_ldpc_code nr(2, 52, 400, 2000);
    const auto alist = gpufec::test::wifi_648();
    const ldpc_decoder_options o;
    const trial tn = gpufec::test::make_trial(nr, nr.e(), 8, 1.0, 3);
    const trial ta = gpufec::test::make_trial(alist, alist.n(), 8, 1.5, 3);
    EXPECT_EQ(registered_backends<ldpc_decoder_options>()[0], "cpu");
    expect_identical(
        decode_all(*make_decoder(nr.graph(), o, "cpu"), tn.llrs, nr.k()),
        decode_all(*ldpc_reference::make_nr_decoder(nr, o), tn.llrs, nr.k()));
    expect_identical(
        decode_all(*make_ldpc_decoder_cpu(nr, o), tn.llrs, nr.k()),
        decode_all(*ldpc_reference::make_nr_decoder(nr, o), tn.llrs, nr.k()));
    expect_identical(
        decode_all(*make_decoder(alist.graph(), o, "cpu"), ta.llrs, alist.k()),
        decode_all(*ldpc_reference::make_alist_decoder(alist, o), ta.llrs, alist.k()));
    expect_identical(
        decode_all(*make_ldpc_decoder_cpu(alist, o), ta.llrs, alist.k()),
        decode_all(*ldpc_reference::make_alist_decoder(alist, o), ta.llrs, alist.k()));
}

// Single thread, 10 iterations, no early termination: the graph decoder against the
// decoders it replaced, interleaved (old, new, old, new) so machine load hits both;
// the best of 5 runs of each.
// ./test_ldpc_graph --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'
TEST(LdpcGraph, DISABLED_ThroughputAgainstTheDecodersItReplaced)
{
    struct bench {
        std::string label;
        ldpc_graph graph;
        std::function<std::unique_ptr<batch_decoder>(const ldpc_decoder_options&)> old;
        trial t;
    };
    std::vector<bench> benches;
    for (auto c : { nr_cfg{ 1, 384, 0, 3 * 8448, 1.5 }, nr_cfg{ 2, 52, 0, 1040, 3.0 } }) {
        auto code = std::make_shared<nr_ldpc_code>(c.bg, c.z, c.k, c.e);
        benches.push_back({ code->graph().description,
                            code->graph(),
                            [code](const ldpc_decoder_options& o) {
                                return ldpc_reference::make_nr_decoder(*code, o);
                            },
                            gpufec::test::make_trial(
                                *code, code->e(), c.z > 100 ? 40 : 1500, c.ebn0, 1) });
    }
    std::vector<std::pair<ldpc_alist_code, int>> alists = { { gpufec::test::wifi_648(),
                                                              3000 } };
    const std::string path = "/usr/share/gnuradio/fec/ldpc/n_1800_k_0902_gap_28.alist";
    if (std::ifstream(path))
        alists.push_back({ ldpc_alist_code::from_alist(path), 1000 });
    alists.push_back({ ldpc_alist_code::from_check_rows(
                           64800, gpufec::test::ira_rows(64800, 32400, 3, 9), "IRA"),
                       30 });
    for (const auto& a : alists) {
        auto code = std::make_shared<ldpc_alist_code>(a.first);
        benches.push_back(
            { code->describe(),
              code->graph(),
              [code](const ldpc_decoder_options& o) {
                  return ldpc_reference::make_alist_decoder(*code, o);
              },
              gpufec::test::make_trial(*code, code->n(), a.second, 2.5, 1) });
    }
    for (const auto& b : benches)
        for (auto ar : { ldpc_arithmetic::int8, ldpc_arithmetic::float32 }) {
            const auto o = gpufec::test::ldpc_opts(ar, ldpc_algorithm::normalized, false);
            auto dec_old = b.old(o);
            auto dec_new = make_ldpc_decoder_cpu(b.graph, o);
            // Best of 5 runs each, alternating: the fastest run is the least disturbed.
            double s_old = 1e30, s_new = 1e30;
            for (int rep = 0; rep < 5; rep++)
                for (batch_decoder* d : { dec_old.get(), dec_new.get() }) {
                    const auto t0 = std::chrono::steady_clock::now();
                    decode_all(*d, b.t.llrs, b.graph.k(), false, false);
                    const double s = std::chrono::duration<double>(
                                         std::chrono::steady_clock::now() - t0)
                                         .count();
                    double& best = d == dec_old.get() ? s_old : s_new;
                    best = std::min(best, s);
                }
            const double bits = static_cast<double>(b.t.llrs.size()) * b.graph.k();
            std::printf("%-50s %-5s old %6.2f new %6.2f info Mb/s per thread (new/old "
                        "%.3f)\n",
                        b.label.c_str(),
                        ar == ldpc_arithmetic::int8 ? "int8" : "float",
                        bits / s_old / 1e6,
                        bits / s_new / 1e6,
                        s_old / s_new);
        }
}
