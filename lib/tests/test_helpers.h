/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Small helpers shared by the core GTests.
#ifndef INCLUDED_GPUFEC_TEST_HELPERS_H
#define INCLUDED_GPUFEC_TEST_HELPERS_H

#include <gpufec/common.h>
#include <gtest/gtest.h>
#include <initializer_list>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gpufec {
namespace test {

//! Expects gpufec::error whose message contains every one of `needles`.
template <typename F>
void expect_error(F&& f, std::initializer_list<const char*> needles)
{
    try {
        f();
        ADD_FAILURE() << "no gpufec::error thrown";
    } catch (const error& e) {
        const std::string msg = e.what();
        for (const char* n : needles)
            EXPECT_NE(msg.find(n), std::string::npos)
                << "message: " << msg << "\nmissing: " << n;
    }
}

//! n random bits, one per byte.
inline std::vector<uint8_t> random_bits(std::mt19937& rng, size_t n)
{
    std::vector<uint8_t> v(n);
    for (auto& b : v)
        b = rng() & 1;
    return v;
}

} // namespace test
} // namespace gpufec

#endif
