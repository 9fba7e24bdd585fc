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

//! Which implementation runs a decoder.
enum class backend_kind { cpu, cuda };

//! A parsed backend string: "auto" | "cpu" | "cuda" | "cuda:N".
struct backend_spec {
    backend_kind kind = backend_kind::cpu;
    int device = 0; //!< CUDA device index (cuda only)
    bool was_auto = false;
};

//! Parses and resolves a backend string. "auto" picks CUDA device 0 when a CUDA device
//! exists (and the library was built with CUDA), else the CPU. "cuda"/"cuda:N" throw
//! gpufec::error when no such device exists. Bad strings throw, naming the allowed values.
backend_spec resolve_backend(const std::string& backend);

//! Human-readable backend name, e.g. "cpu" or "cuda:0 (NVIDIA H100 80GB HBM3)".
std::string describe_backend(const backend_spec& spec);

//! Number of CUDA devices usable by this build (0 when built without CUDA or no driver).
int cuda_device_count();
//! Device name, e.g. "NVIDIA H100 80GB HBM3" ("unavailable" without CUDA).
std::string cuda_device_description(int device);

//! Where one frame lives inside a batch.
struct frame_extent {
    uint64_t in_offset;  //!< first input LLR of the frame (items)
    uint32_t in_items;   //!< number of input LLRs
    uint64_t out_offset; //!< first output BYTE of the frame; multiple of 4
    uint32_t out_bits;   //!< number of decoded information bits
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

//! Unpacks MSB-first packed bits into one bit per byte.
void unpack_bits(const uint8_t* packed, uint8_t* bits, size_t nbits);

} // namespace gpufec

#endif
