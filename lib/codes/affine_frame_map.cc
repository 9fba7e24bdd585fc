/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "codes/affine_frame_map.h"
#include <gpufec/common.h>
#include <algorithm>
#include <exception>
#include <random>
#include <string>
#include <thread>

namespace gpufec {

namespace {

std::string name_of(const frame_code& code)
{
    return code.description.empty() ? std::string("this code") : code.description;
}

std::vector<uint8_t> encode(const frame_code& code, const std::vector<uint8_t>& info)
{
    std::vector<uint8_t> coded(code.coded_bits);
    code.encode(info.data(), coded.data());
    for (uint8_t& c : coded)
        c = c != 0; // a nonzero byte is a 1, as in the sources' BPSK
    return coded;
}

std::vector<uint8_t> random_word(std::mt19937_64& rng, size_t bits)
{
    std::vector<uint8_t> w(bits);
    for (size_t i = 0; i < bits; i += 64) {
        const uint64_t r = rng();
        for (size_t b = 0; b < 64 && i + b < bits; ++b)
            w[i + b] = static_cast<uint8_t>((r >> b) & 1u);
    }
    return w;
}

std::vector<uint32_t> pack_words(const std::vector<uint8_t>& bits)
{
    std::vector<uint32_t> words((bits.size() + 31) / 32, 0);
    for (size_t i = 0; i < bits.size(); ++i)
        words[i / 32] |= uint32_t(bits[i] & 1u) << (i % 32);
    return words;
}

void check_code(const frame_code& code)
{
    if (code.info_bits == 0 || code.coded_bits == 0 || !code.encode)
        throw error("affine_frame_map: " + name_of(code) +
                    " needs info_bits > 0, coded_bits > 0 and an encode function");
}

} // namespace

size_t affine_map_bytes(size_t info_bits, size_t coded_bits)
{
    const size_t words = (info_bits + 31) / 32, stride = (coded_bits + 3) & ~size_t(3);
    return words * stride * sizeof(uint32_t);
}

bool affine_map_fits(size_t info_bits, size_t coded_bits, std::string* why)
{
    const size_t words = (info_bits + 31) / 32;
    if (words > affine_map_max_info_words) {
        if (why)
            *why = std::to_string(info_bits) + " info bits; allowed: at most " +
                   std::to_string(32 * affine_map_max_info_words);
        return false;
    }
    // Sizes checked one at a time so that the product cannot overflow.
    if (coded_bits > affine_map_max_bytes ||
        affine_map_bytes(info_bits, coded_bits) > affine_map_max_bytes) {
        if (why)
            *why = "a generator of " + std::to_string(info_bits) + " x " +
                   std::to_string(coded_bits) + " bits; allowed: at most " +
                   std::to_string(affine_map_max_bytes >> 20) + " MiB of rows";
        return false;
    }
    return true;
}

bool encoder_looks_affine(const frame_code& code, int checks)
{
    check_code(code);
    std::mt19937_64 rng(0x5eed0fa1f1e5ULL);
    const std::vector<uint8_t> zero_out =
        encode(code, std::vector<uint8_t>(code.info_bits));
    for (int c = 0; c < checks; ++c) {
        const std::vector<uint8_t> x = random_word(rng, code.info_bits);
        const std::vector<uint8_t> y = random_word(rng, code.info_bits);
        std::vector<uint8_t> xy(code.info_bits);
        for (size_t i = 0; i < xy.size(); ++i)
            xy[i] = x[i] ^ y[i];
        const auto ex = encode(code, x), ey = encode(code, y), exy = encode(code, xy);
        for (size_t j = 0; j < code.coded_bits; ++j)
            if ((ex[j] ^ ey[j] ^ exy[j]) != zero_out[j])
                return false;
    }
    return true;
}

void affine_encode(const affine_frame_map& map,
                   const uint32_t* info_words,
                   uint8_t* coded)
{
    for (size_t j = 0; j < map.coded_bits; ++j) {
        uint32_t acc = 0;
        for (size_t w = 0; w < map.info_words; ++w)
            acc ^= info_words[w] & map.rows[w * map.row_stride + j];
        uint32_t parity = (map.offset[j / 32] >> (j % 32)) & 1u;
        for (; acc; acc &= acc - 1)
            parity ^= 1u;
        coded[j] = static_cast<uint8_t>(parity);
    }
}

affine_frame_map make_affine_frame_map(const frame_code& code, int checks)
{
    check_code(code);
    std::string why;
    if (!affine_map_fits(code.info_bits, code.coded_bits, &why))
        throw error("affine_frame_map: " + name_of(code) + " is too large for the GPU " +
                    "encoder: " + why + " (backend \"cpu\" runs it)");
    affine_frame_map map;
    map.info_bits = code.info_bits;
    map.coded_bits = code.coded_bits;
    map.info_words = (code.info_bits + 31) / 32;
    map.row_stride = (code.coded_bits + 3) & ~size_t(3);
    map.rows.assign(map.info_words * map.row_stride, 0);
    const std::vector<uint8_t> zero_out =
        encode(code, std::vector<uint8_t>(code.info_bits));
    map.offset = pack_words(zero_out);

    // Unit word i sets bit i % 32 of row word i / 32: workers own whole words, so no
    // two write the same row word.
    const size_t workers = std::max<size_t>(
        1, std::min<size_t>(std::thread::hardware_concurrency(), map.info_words));
    std::vector<std::exception_ptr> failures(workers);
    auto run = [&](size_t first_word, size_t end_word, size_t worker) {
        try {
            std::vector<uint8_t> unit(code.info_bits, 0), coded(code.coded_bits);
            const size_t end = std::min(code.info_bits, 32 * end_word);
            for (size_t i = 32 * first_word; i < end; ++i) {
                unit[i] = 1;
                code.encode(unit.data(), coded.data());
                unit[i] = 0;
                uint32_t* word = &map.rows[(i / 32) * map.row_stride];
                const uint32_t bit = 1u << (i % 32);
                for (size_t j = 0; j < code.coded_bits; ++j)
                    if ((coded[j] != 0) != (zero_out[j] != 0))
                        word[j] |= bit;
            }
        } catch (...) {
            failures[worker] = std::current_exception();
        }
    };
    const size_t per = (map.info_words + workers - 1) / workers;
    std::vector<std::thread> pool;
    try {
        for (size_t w = 0; w < map.info_words; w += per)
            pool.emplace_back(run, w, std::min(map.info_words, w + per), pool.size());
    } catch (...) { // a thread that could not start: join the others, then report
        for (auto& t : pool)
            t.join();
        throw;
    }
    for (auto& t : pool)
        t.join();
    for (const auto& failure : failures)
        if (failure)
            std::rethrow_exception(failure);

    std::mt19937_64 rng(0xaff1e5eedULL);
    std::vector<uint8_t> got(code.coded_bits);
    for (int c = 0; c < checks; ++c) {
        const std::vector<uint8_t> x = random_word(rng, code.info_bits);
        affine_encode(map, pack_words(x).data(), got.data());
        if (got != encode(code, x))
            throw error("affine_frame_map: the encoder of " + name_of(code) +
                        " is not affine over GF(2) (a random word does not encode to "
                        "the sum of its unit words' codewords); the GPU source needs "
                        "an affine encoder (backend \"cpu\" runs any)");
    }
    return map;
}

} // namespace gpufec
