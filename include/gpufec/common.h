/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Types shared by every layer of the core library (no GNU Radio, no CUDA).
#ifndef INCLUDED_GPUFEC_COMMON_H
#define INCLUDED_GPUFEC_COMMON_H

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpufec {

//! Thrown for bad parameters and for backend (CUDA) failures; the message names the
//! allowed values or the failing call.
class error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//! LLR convention: L = ln P(b=0)/P(b=1); BPSK maps bit 0 -> +1.
using llr8_t = int8_t;

/*!
 * How callers' soft values read. The core works in `llr` (L = ln P(b=0)/P(b=1),
 * positive for bit 0: AFF3CT, MATLAB, srsRAN); GNU Radio's soft decisions
 * (gr-digital's constellation_soft_decoder_cf, gr-fec's float decoder inputs) are
 * positive for bit 1: `gnuradio`, the negated value. The engine converts at its copies
 * (engine_config::convention); the GNU Radio blocks default to `gnuradio`.
 */
enum class soft_convention { llr, gnuradio };
//! "gnuradio" or "llr"; anything else throws gpufec::error naming both.
soft_convention parse_soft_convention(const std::string& s);
const char* to_string(soft_convention c);
//! +1 for llr, -1 for gnuradio: the factor from the core's LLRs to the convention's.
inline float soft_sign(soft_convention c)
{
    return c == soft_convention::llr ? 1.0f : -1.0f;
}

//! Which implementation runs a decoder.
enum class backend_kind { cpu, cuda };

//! A parsed backend string: "auto" | "cpu" | "cuda" | "cuda:N".
struct backend_spec {
    backend_kind kind = backend_kind::cpu;
    int device = 0; //!< CUDA device index (cuda only)
    bool was_auto = false;
};

// resolve_backend(), describe_backend() and cuda_device_count() live in
// <gpufec/backends.h>, the top layer of the core.

//! Where one frame lives inside a batch.
struct frame_extent {
    uint64_t in_offset;  //!< first input item of the frame (items of the input format)
    uint32_t in_items;   //!< number of input items (LLRs, or complex samples)
    uint64_t out_offset; //!< first output BYTE of the frame; multiple of 4
    uint32_t out_bits;   //!< output items: decoded bits, or LLRs for llr_float output
    uint64_t aux_offset = 0; //!< complex_float input: first channel-matrix entry
    uint32_t aux_items = 0;  //!< complex_float input: channel-matrix entries
};

//! Per-frame result status (travels as stream tags / PDU metadata).
struct frame_status {
    int32_t iterations = 1; //!< iterations used (1 for non-iterative decoders)
    bool ok = true;         //!< checks passed (CRC / parity), true when the code has none
};

//! Packed output layout: frame bits MSB first, out_offset aligned to 4 bytes.
inline size_t packed_bytes(size_t bits) { return (bits + 7) / 8; }
inline size_t aligned_packed_bytes(size_t bits) { return ((bits + 31) / 32) * 4; }

//! float LLR -> int8 with saturation: round(llr*scale) clamped to [-127, 127]; NaN -> 0.
void quantize_llrs(const float* in, llr8_t* out, size_t n, float scale);

//! float LLR -> 4-bit LLR: round(llr*scale) clamped to [-7, 7] (NaN -> 0), two per byte,
//! item 2j in the low nibble of out[j] (two's complement). An odd n leaves the high
//! nibble of the last byte 0.
void quantize_llrs_int4(const float* in, uint8_t* out, size_t n, float scale);
//! int8 LLR -> 4-bit LLR, saturated to [-7, 7], packed as quantize_llrs_int4 does;
//! `negate` packs -in (the other soft_convention).
void pack_llrs_int4(const llr8_t* in, uint8_t* out, size_t n, bool negate = false);
//! out = -in, saturated: -(-128) is 127 (in == out allowed).
void negate_llrs(const llr8_t* in, llr8_t* out, size_t n);
//! A stage with 4-bit input decodes the value v as the int8 LLR int4_llr_step * v, so
//! its quantization scale is the int8 scale / int4_llr_step (the GNU Radio blocks do
//! this for their llr_scale).
constexpr int int4_llr_step = 8;

//! The 4-bit LLR of item i of a packed array.
inline int llr_int4_at(const uint8_t* packed, size_t i)
{
    const int nibble = (packed[i >> 1] >> (4 * (i & 1))) & 0xf;
    return nibble >= 8 ? nibble - 16 : nibble;
}

//! Unpacks MSB-first packed bits into one bit per byte.
void unpack_bits(const uint8_t* packed, uint8_t* bits, size_t nbits);

} // namespace gpufec

#endif
