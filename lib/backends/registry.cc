/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// THE REGISTRY: the one place where each algorithm names its makers, one line per
// backend. A build without CUDA compiles the CUDA lines to "absent" (GPUFEC_CUDA), so
// those algorithms simply have fewer backends; nothing else in the core changes.
//
// Adding an algorithm (docs/architecture.md): include its CPU header and, under
// GPUFEC_HAVE_CUDA, its CUDA header; then one GPUFEC_REGISTER line below.
#include <gpufec/awgn_source.h>
#include <gpufec/backends.h>
#include <gpufec/ldpc_decoding.h>
#include <gpufec/mimo_channel.h>
#include <gpufec/mimo_detection.h>
#include <gpufec/nr_uci_small.h>
#include <gpufec/polar_decoding.h>
#include <gpufec/turbo_decoding.h>
#include <gpufec/viterbi.h>

#include "codes/affine_frame_map.h"

#if GPUFEC_HAVE_CUDA
#include "cuda/channel/affine_source_cuda.h"
#include "cuda/channel/awgn_source_cuda.h"
#include "cuda/channel/nr_ldpc_source_cuda.h"
#include "cuda/ldpc/ldpc_cuda.h"
#include "cuda/mimo/mimo_cuda.h"
#include "cuda/polar/polar_cuda.h"
#include "cuda/turbo/turbo_cuda.h"
#include "cuda/uci_small/uci_small_cuda.h"
#include "cuda/viterbi/viterbi_cuda.h"
#define GPUFEC_CUDA(maker) (maker)
#else
#define GPUFEC_CUDA(maker) nullptr
#endif

namespace gpufec {

namespace {

// Each algorithm's table is found by overloading on its options type.
template <class Options>
struct tag {
};

// ---- makers with the registry's signature (code, options, device) -------------------

std::unique_ptr<batch_decoder>
viterbi_cpu(const conv_code& code, const viterbi_options&, int)
{
    return make_viterbi_decoder_cpu(code);
}
std::unique_ptr<batch_decoder>
turbo_cpu(const lte_turbo_code& code, const turbo_decoder_options& options, int)
{
    return make_turbo_decoder_cpu(code, options);
}
std::unique_ptr<batch_decoder>
ldpc_cpu(const ldpc_graph& code, const ldpc_decoder_options& options, int)
{
    return make_ldpc_decoder_cpu(code, options);
}
std::unique_ptr<batch_decoder>
polar_cpu(const nr_polar_code& code, const polar_decoder_options& options, int)
{
    return make_polar_decoder_cpu(code, options);
}
std::unique_ptr<batch_decoder>
dci_search_cpu(const dci_search_space& space, const dci_search_options& options, int)
{
    return make_dci_search_decoder_cpu(space, options);
}
std::unique_ptr<batch_decoder> uci_small_cpu(const nr_uci_small_code& code,
                                             const uci_small_decoder_options& options,
                                             int)
{
    return make_uci_small_decoder_cpu(code, options);
}
std::unique_ptr<batch_decoder>
mimo_cpu(const mimo_setup& setup, const mimo_detector_options& options, int)
{
    return make_mimo_detector_cpu(setup, options);
}
std::unique_ptr<mimo_channel_source>
mimo_source_cpu(const mimo_setup& setup, const mimo_source_options& options, int)
{
    return make_mimo_channel_source_cpu(setup, options);
}
std::unique_ptr<awgn_bpsk_source>
awgn_conv_cpu(const conv_code& code, const awgn_source_options& options, int)
{
    return make_awgn_bpsk_source_cpu(code, options);
}
std::unique_ptr<awgn_bpsk_source>
awgn_frame_cpu(const frame_code& code, const awgn_frame_source_options& options, int)
{
    return make_awgn_bpsk_source_cpu(code, options);
}
#if GPUFEC_HAVE_CUDA
std::unique_ptr<batch_decoder>
viterbi_cuda(const conv_code& code, const viterbi_options&, int device)
{
    return cuda::make_viterbi_decoder(code, device);
}
std::unique_ptr<batch_decoder>
ldpc_cuda(const ldpc_graph& code, const ldpc_decoder_options& options, int device)
{
    return cuda::make_ldpc_decoder(code, options, device);
}
std::unique_ptr<batch_decoder>
mimo_cuda(const mimo_setup& setup, const mimo_detector_options& options, int device)
{
    return cuda::make_mimo_detector(setup, options, device);
}
std::unique_ptr<mimo_channel_source>
mimo_source_cuda(const mimo_setup& setup, const mimo_source_options& options, int device)
{
    return cuda::make_mimo_channel_source(setup, options, device);
}
std::unique_ptr<batch_decoder>
polar_cuda(const nr_polar_code& code, const polar_decoder_options& options, int device)
{
    return cuda::make_polar_decoder(code, options, device);
}
std::unique_ptr<batch_decoder> dci_search_cuda(const dci_search_space& space,
                                               const dci_search_options& options,
                                               int device)
{
    return cuda::make_dci_search_decoder(space, options, device);
}
std::unique_ptr<batch_decoder>
turbo_cuda(const lte_turbo_code& code, const turbo_decoder_options& options, int device)
{
    return cuda::make_turbo_decoder(code, options, device);
}
std::unique_ptr<batch_decoder> uci_small_cuda(const nr_uci_small_code& code,
                                              const uci_small_decoder_options&,
                                              int device)
{
    return cuda::make_uci_small_decoder(code, device);
}
std::unique_ptr<awgn_bpsk_source>
awgn_conv_cuda(const conv_code& code, const awgn_source_options& options, int device)
{
    return make_awgn_bpsk_source_cuda(code, options.ebn0_db, options.seed, device);
}
std::unique_ptr<awgn_bpsk_source> awgn_frame_cuda(
    const frame_code& code, const awgn_frame_source_options& options, int device)
{
    // Any other code: its encoder as a generator (affine_source_cuda.h), where it is
    // affine and its generator fits (affine_frame_map.h names the limits it breaks).
    if (!code.nr_ldpc)
        return make_affine_source_cuda(code, options.ebn0_db, options.seed, device);
    const nr_ldpc_code& ldpc = *code.nr_ldpc;
    if (code.info_bits != size_t(ldpc.k()) || code.coded_bits != size_t(ldpc.e()))
        throw error("awgn_bpsk_source: frame_code::nr_ldpc is a code of k = " +
                    std::to_string(ldpc.k()) + ", e = " + std::to_string(ldpc.e()) +
                    " but the frame_code has " + std::to_string(code.info_bits) +
                    " info and " + std::to_string(code.coded_bits) +
                    " coded bits; allowed: nr_ldpc only where encode is its encode()");
    return make_nr_ldpc_source_cuda(ldpc, options.ebn0_db, options.seed, device);
}
#endif

//! The codes and options a CUDA maker takes, for "auto" (registration::cuda_accepts);
//! null: all.
template <class Options>
constexpr bool (*cuda_accepts)(const typename Options::code_type&,
                               const Options&) = nullptr;
bool ldpc_cuda_accepts(const ldpc_graph&, const ldpc_decoder_options& o)
{
    return o.arithmetic != ldpc_arithmetic::float32;
}
template <>
constexpr bool (*cuda_accepts<ldpc_decoder_options>)(
    const ldpc_graph&, const ldpc_decoder_options&) = ldpc_cuda_accepts;
bool frame_source_cuda_accepts(const frame_code& code, const awgn_frame_source_options&)
{
    // NR LDPC has its own encoder; any other code goes through its generator, where it
    // fits and the encoder passes a quick affinity screen (the maker checks it again).
    if (code.nr_ldpc)
        return true;
    try { // an encoder that throws here is left to the CPU source (and its errors)
        return code.encode && code.info_bits > 0 && code.coded_bits > 0 &&
               affine_map_fits(code.info_bits, code.coded_bits) &&
               encoder_looks_affine(code);
    } catch (const std::exception&) {
        return false;
    }
}
template <>
constexpr bool (*cuda_accepts<awgn_frame_source_options>)(
    const frame_code&, const awgn_frame_source_options&) = frame_source_cuda_accepts;
#if GPUFEC_HAVE_CUDA
template <>
constexpr bool (*cuda_accepts<mimo_detector_options>)(
    const mimo_setup&, const mimo_detector_options&) = cuda::mimo_cuda_accepts;
template <>
constexpr bool (*cuda_accepts<polar_decoder_options>)(
    const nr_polar_code&, const polar_decoder_options&) = cuda::polar_cuda_accepts;
template <>
constexpr bool (*cuda_accepts<dci_search_options>)(
    const dci_search_space&, const dci_search_options&) = cuda::dci_search_cuda_accepts;
template <>
constexpr bool (*cuda_accepts<turbo_decoder_options>)(
    const lte_turbo_code&, const turbo_decoder_options&) = cuda::turbo_cuda_accepts;
#endif

} // namespace

// The table of an algorithm, looked up by argument-dependent lookup on tag<Options>.
template <class Options>
const registration<Options>& registered()
{
    static const registration<Options> entry = table_of(tag<Options>{});
    return entry;
}

//! Registers an algorithm: its options type, its CPU maker and its CUDA maker (wrap it in
//! GPUFEC_CUDA(), or nullptr when there is none). Defines the table and instantiates
//! registered<Options>() so that make<Options>() links.
#define GPUFEC_REGISTER(Options, cpu_maker, cuda_maker) \
    namespace {                                         \
    registration<Options> table_of(tag<Options>)        \
    {                                                   \
        registration<Options> entry;                    \
        entry.cpu = cpu_maker;                          \
        entry.cuda = cuda_maker;                        \
        entry.cuda_accepts = cuda_accepts<Options>;     \
        return entry;                                   \
    }                                                   \
    }                                                   \
    template const registration<Options>& registered<Options>();

// ---- the registrations: one line per algorithm ---------------------------------------

GPUFEC_REGISTER(viterbi_options, viterbi_cpu, GPUFEC_CUDA(viterbi_cuda))
GPUFEC_REGISTER(turbo_decoder_options, turbo_cpu, GPUFEC_CUDA(turbo_cuda))
GPUFEC_REGISTER(ldpc_decoder_options, ldpc_cpu, GPUFEC_CUDA(ldpc_cuda))
GPUFEC_REGISTER(polar_decoder_options, polar_cpu, GPUFEC_CUDA(polar_cuda))
GPUFEC_REGISTER(dci_search_options, dci_search_cpu, GPUFEC_CUDA(dci_search_cuda))
GPUFEC_REGISTER(uci_small_decoder_options, uci_small_cpu, GPUFEC_CUDA(uci_small_cuda))
GPUFEC_REGISTER(awgn_source_options, awgn_conv_cpu, GPUFEC_CUDA(awgn_conv_cuda))
GPUFEC_REGISTER(awgn_frame_source_options, awgn_frame_cpu, GPUFEC_CUDA(awgn_frame_cuda))
GPUFEC_REGISTER(mimo_detector_options, mimo_cpu, GPUFEC_CUDA(mimo_cuda))
GPUFEC_REGISTER(mimo_source_options, mimo_source_cpu, GPUFEC_CUDA(mimo_source_cuda))

} // namespace gpufec
