/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// A frame_code's encoder as an affine map over GF(2), coded = offset XOR (info G), built
// from K + 1 calls of its encode() (the zero word and the K unit words). Every encoder
// of this module is affine (CRCs with zero initial state, the polar transform, turbo and
// LDPC encoders, interleavers, rate matching, RNTI scrambling), so one kernel can encode
// any of them on the GPU (cuda/channel/affine_source_cuda.h). Plain C++.
#ifndef INCLUDED_GPUFEC_AFFINE_FRAME_MAP_H
#define INCLUDED_GPUFEC_AFFINE_FRAME_MAP_H

#include <gpufec/awgn_source.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpufec {

/*!
 * G by coded bit: row j is the set of info bits that coded bit j sums, as info_words
 * words (bit b of word w: info bit 32 w + b, the order of the sources' Philox info
 * words). Stored word-major, rows[w * row_stride + j], row_stride = coded_bits rounded
 * up to 4, so that the kernel's threads (four consecutive coded bits each) load one
 * 16-byte vector per word, side by side. offset: coded bit j of the zero word, bit j %
 * 32 of offset[j / 32].
 */
struct affine_frame_map {
    size_t info_bits = 0;
    size_t coded_bits = 0;
    size_t info_words = 0;
    size_t row_stride = 0;
    std::vector<uint32_t> rows;
    std::vector<uint32_t> offset;
};

//! Most bytes of rows a map may take (the GPU keeps it in global memory, read through
//! the caches for every frame): 64 MiB, e.g. K = 6144 turbo 14 MiB, DVB-S2 short 29 MiB.
constexpr size_t affine_map_max_bytes = size_t(64) << 20;
//! Most info words (the kernel's shared memory holds them for 8 frames): K <= 32768.
constexpr size_t affine_map_max_info_words = 1024;

//! Bytes of rows of a code of these sizes (without building it); sizes that
//! affine_map_fits() accepts (larger ones may overflow size_t).
size_t affine_map_bytes(size_t info_bits, size_t coded_bits);

//! Whether the sizes fit the limits above; if not and `why` is set, the reason.
bool affine_map_fits(size_t info_bits, size_t coded_bits, std::string* why = nullptr);

/*!
 * Whether encode() behaves as an affine map on `checks` random word pairs (x, y):
 * E(x) ^ E(y) ^ E(x ^ y) == E(0). Cheap (3 x checks + 1 encodes): a screen for the
 * registry's "auto", not a proof: make_affine_frame_map() checks the built map too.
 */
bool encoder_looks_affine(const frame_code& code, int checks = 2);

/*!
 * Builds the map (info_bits + 1 encodes, spread over the hardware threads; encode()
 * must be thread-safe, as frame_code requires), then checks it against encode() on
 * `checks` random words. Throws gpufec::error naming the code where the sizes exceed the
 * limits above or the encoder is not affine. A coded byte counts as a 1 when it is not
 * 0, as for the sources' BPSK.
 */
affine_frame_map make_affine_frame_map(const frame_code& code, int checks = 16);

//! The map applied to info words (info bit i = bit i % 32 of word i / 32): one byte
//! per coded bit. The CPU form of the kernel's arithmetic, for tests and checks.
void affine_encode(const affine_frame_map& map,
                   const uint32_t* info_words,
                   uint8_t* coded);

} // namespace gpufec

#endif
