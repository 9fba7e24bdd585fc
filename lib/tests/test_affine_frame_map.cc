/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The encoders as affine maps over GF(2) (codes/affine_frame_map.h), which the CUDA
// source of every block code without an encoder of its own runs: the map built from
// the unit words must encode random words as the code's encode() does. CPU only: CI
// checks every chain's map without a GPU; test_awgn_source checks the kernel.
#include "codes/affine_frame_map.h"
#include "test_helpers.h"
#include <gpufec/dvbs2_ldpc.h>
#include <gpufec/ldpc.h>
#include <gpufec/ldpc_alist.h>
#include <gpufec/nr_uci_small.h>
#include <gpufec/polar.h>
#include <gpufec/turbo.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <random>
#include <string>

namespace gpufec {
namespace {

template <class Code>
void encode_with(const Code& code, const uint8_t* in, uint8_t* out)
{
    code.encode(in, out);
}
void encode_with(const lte_turbo_code& code, const uint8_t* in, uint8_t* out)
{
    lte_turbo_encode(code, in, out);
}

template <class Code>
frame_code frame_of(const Code& code, size_t info, size_t coded, const std::string& name)
{
    frame_code fc;
    fc.info_bits = info;
    fc.coded_bits = coded;
    fc.encode = [code](const uint8_t* in, uint8_t* out) { encode_with(code, in, out); };
    fc.description = name;
    return fc;
}

//! encode() of zeros, ones and random words against the map (info words packed as the
//! sources' Philox words: bit i % 32 of word i / 32).
void expect_map_encodes_as(const frame_code& fc)
{
    SCOPED_TRACE(fc.description);
    const affine_frame_map map = make_affine_frame_map(fc);
    ASSERT_EQ(map.rows.size() * sizeof(uint32_t),
              affine_map_bytes(fc.info_bits, fc.coded_bits));
    EXPECT_TRUE(encoder_looks_affine(fc));
    std::mt19937_64 rng(fc.info_bits * 1000003u + fc.coded_bits);
    std::vector<uint8_t> info(fc.info_bits), want(fc.coded_bits), got(fc.coded_bits);
    for (int t = 0; t < 12; ++t) {
        std::vector<uint32_t> words(map.info_words, 0);
        for (size_t i = 0; i < fc.info_bits; ++i) {
            info[i] = t == 0 ? 0 : t == 1 ? 1 : static_cast<uint8_t>(rng() & 1u);
            words[i / 32] |= uint32_t(info[i]) << (i % 32);
        }
        fc.encode(info.data(), want.data());
        for (uint8_t& w : want)
            w = w != 0; // any nonzero byte is a 1, as in the sources' BPSK
        affine_encode(map, words.data(), got.data());
        ASSERT_EQ(got, want) << "word " << t;
    }
}

TEST(AffineFrameMap, EncodesAsEveryChainOfTheModule)
{
    // 5G NR polar: uplink UCI with CRC11 (puncturing, shortening, repetition, two code
    // blocks), CRC6 with parity-check bits, downlink DCI (RNTI scrambling: an offset)
    // and BCH.
    const nr_polar_code polar[] = { nr_polar_code(512, 1024, "crc11"),
                                    nr_polar_code(100, 150, "crc11"),
                                    nr_polar_code(40, 900, "crc11"),
                                    nr_polar_code(400, 1200, "crc11"),
                                    nr_polar_code(15, 100, "crc6"),
                                    nr_polar_code::dci(40, 216, 0x4A2F),
                                    nr_polar_code::bch() };
    for (const auto& c : polar)
        expect_map_encodes_as(frame_of(c,
                                       c.k(),
                                       c.e(),
                                       "NR polar k=" + std::to_string(c.k()) +
                                           " e=" + std::to_string(c.e())));
    // LTE turbo: the three streams; rate matched with CRC24B, rv 2; filler bits.
    const lte_turbo_code turbo[] = { lte_turbo_code(40),
                                     lte_turbo_code(1024, true, 3000, 2),
                                     lte_turbo_code(6144, true, 18444),
                                     lte_turbo_code(512, false, 1500, 0, 0, 16) };
    for (const auto& c : turbo)
        expect_map_encodes_as(
            frame_of(c, size_t(c.info_bits()), c.coded_bits(), c.describe()));
    // Small UCI (placeholders 'x' and 'y' for qm > 1), NR LDPC with fillers and
    // repetition, DVB-S2 short, and an alist code from random check rows.
    const nr_uci_small_code uci[] = { nr_uci_small_code(11, 64),
                                      nr_uci_small_code(1, 9, 4),
                                      nr_uci_small_code(2, 13, 6) };
    for (const auto& c : uci)
        expect_map_encodes_as(frame_of(c, c.k(), c.e(), c.describe()));
    const nr_ldpc_code ldpc(2, 52, 500, 2601);
    expect_map_encodes_as(frame_of(ldpc, ldpc.k(), ldpc.e(), "NR LDPC BG2 Z=52"));
    const dvbs2_ldpc_code dvbs2("short", "1/2");
    expect_map_encodes_as(frame_of(dvbs2, dvbs2.k(), dvbs2.n(), dvbs2.describe()));
    std::mt19937 rng(7);
    std::vector<std::vector<int>> rows(48);
    for (auto& r : rows)
        for (int j = 0; j < 6; ++j)
            r.push_back(static_cast<int>(rng() % 96));
    for (auto& r : rows) {
        std::sort(r.begin(), r.end());
        r.erase(std::unique(r.begin(), r.end()), r.end());
    }
    const auto alist = ldpc_alist_code::from_check_rows(96, rows, "random");
    expect_map_encodes_as(frame_of(alist, alist.k(), alist.n(), "alist (96)"));
}

TEST(AffineFrameMap, RefusesEncodersItCannotRun)
{
    // Affine with an offset (every bit complemented): accepted.
    frame_code complement;
    complement.info_bits = 37;
    complement.coded_bits = 74;
    complement.description = "complemented repetition";
    complement.encode = [](const uint8_t* in, uint8_t* out) {
        for (int i = 0; i < 37; ++i)
            out[2 * i] = out[2 * i + 1] = in[i] ^ 1u;
    };
    expect_map_encodes_as(complement);
    // Ones written as other nonzero bytes (the sources' BPSK reads any as a 1).
    frame_code twos = complement;
    twos.description = "repetition in 0/2 bytes";
    twos.encode = [](const uint8_t* in, uint8_t* out) {
        for (int i = 0; i < 37; ++i)
            out[2 * i] = out[2 * i + 1] = static_cast<uint8_t>(2 * in[i]);
    };
    expect_map_encodes_as(twos);
    // Not affine (a product of two bits): screened out and refused by name.
    frame_code product = complement;
    product.description = "bit products";
    product.encode = [](const uint8_t* in, uint8_t* out) {
        for (int i = 0; i < 74; ++i)
            out[i] = in[i % 37] & in[(i + 1) % 37];
    };
    EXPECT_FALSE(encoder_looks_affine(product));
    test::expect_error([&] { make_affine_frame_map(product); },
                       { "bit products", "not affine", "\"cpu\"" });
    // Too large: the limits named.
    std::string why;
    EXPECT_FALSE(affine_map_fits(40000, 80000, &why));
    EXPECT_NE(why.find("at most 32768"), std::string::npos) << why;
    EXPECT_FALSE(affine_map_fits(32400, 64800, &why)); // DVB-S2 normal 1/2: 262 MB
    EXPECT_NE(why.find("64 MiB"), std::string::npos) << why;
    EXPECT_TRUE(affine_map_fits(6144, 18444));
    frame_code huge = complement;
    huge.info_bits = 32400;
    huge.coded_bits = 64800;
    huge.description = "huge";
    test::expect_error([&] { make_affine_frame_map(huge); }, { "huge", "64 MiB" });
    frame_code empty;
    test::expect_error([&] { make_affine_frame_map(empty); }, { "info_bits > 0" });
}

} // namespace
} // namespace gpufec
