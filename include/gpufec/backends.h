/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The backend registry, at the top of the core (DESIGN.md §1): resolves "auto" | "cpu"
// | "cuda" | "cuda:N" and makes an algorithm's decoder (or source) from the makers that
// cpu/ and cuda/ provide. lib/backends/registry.cc is the one place where an algorithm
// registers its backends; nothing below this layer asks which backends exist.
#ifndef INCLUDED_GPUFEC_BACKENDS_H
#define INCLUDED_GPUFEC_BACKENDS_H

#include <gpufec/batch_decoder.h>
#include <memory>
#include <string>
#include <vector>

namespace gpufec {

//! Parses a backend string without looking at the hardware: "auto" | "cpu" | "cuda" |
//! "cuda:N". Bad strings throw gpufec::error naming the allowed values.
backend_spec parse_backend(const std::string& backend);

/*!
 * Parses and resolves a backend string against the hardware (any algorithm). "auto"
 * picks CUDA device 0 when this build has CUDA and a device exists, else the CPU.
 * "cuda"/"cuda:N" throw gpufec::error when no such device exists.
 */
backend_spec resolve_backend(const std::string& backend);

//! The backend string of a spec: "auto", "cpu" or "cuda:N".
std::string backend_string(const backend_spec& spec);

//! Human-readable backend name, e.g. "cpu" or "cuda:0 (NVIDIA H100 80GB HBM3)".
std::string describe_backend(const backend_spec& spec);

//! Number of CUDA devices usable by this build (0 when built without CUDA or no driver).
int cuda_device_count();
//! Device name, e.g. "NVIDIA H100 80GB HBM3" ("unavailable" without CUDA).
std::string cuda_device_description(int device);

/*!
 * An algorithm is named by its options struct, which says what it takes and makes:
 *
 *     struct my_options {
 *         using code_type = my_code;          // what make() takes
 *         using product_type = batch_decoder; // what make() returns
 *         static constexpr const char* algorithm_name = "my decoding"; // for messages
 *         ...options...
 *     };
 *
 * A maker builds the product on one backend (`device` is the CUDA device, -1 on CPU).
 */
template <class Options>
using maker = std::unique_ptr<typename Options::product_type> (*)(
    const typename Options::code_type& code, const Options& options, int device);

//! The makers registered for one algorithm; a null maker: that backend is absent.
template <class Options>
struct registration {
    maker<Options> cpu = nullptr;
    maker<Options> cuda = nullptr;
    //! Null, or whether the CUDA maker takes this code and these options: "auto" picks
    //! the CPU when it does not (e.g. LDPC float arithmetic, which the GPU decoder
    //! lacks, or MIMO sizes beyond its kernels).
    bool (*cuda_accepts)(const typename Options::code_type& code,
                         const Options& options) = nullptr;
};

//! The registry entry of an algorithm, defined in lib/backends/registry.cc.
template <class Options>
const registration<Options>& registered();

//! Backends registered for an algorithm in this build, e.g. {"cpu", "cuda"}.
template <class Options>
std::vector<std::string> registered_backends()
{
    std::vector<std::string> names;
    if (registered<Options>().cpu)
        names.push_back("cpu");
    if (registered<Options>().cuda)
        names.push_back("cuda");
    return names;
}

namespace detail {
//! Resolves `backend` for an algorithm with the given makers: the chosen backend, or a
//! gpufec::error naming the backends that exist for it.
backend_spec choose_backend(const char* algorithm,
                            bool has_cpu,
                            bool has_cuda,
                            const std::string& backend);
} // namespace detail

/*!
 * Makes the algorithm of `options` for `code` on `backend`. "auto" takes CUDA device 0
 * when the algorithm has a CUDA maker and a device exists, else the CPU. A backend the
 * algorithm lacks throws gpufec::error listing the ones it has; bad options throw from
 * the maker, naming the allowed values.
 */
template <class Options>
std::unique_ptr<typename Options::product_type>
make(const typename Options::code_type& code,
     const Options& options,
     const std::string& backend = "auto")
{
    const registration<Options>& entry = registered<Options>();
    const bool cuda_usable =
        entry.cuda != nullptr &&
        (backend != "auto" || !entry.cuda_accepts || entry.cuda_accepts(code, options));
    const backend_spec spec = detail::choose_backend(
        Options::algorithm_name, entry.cpu != nullptr, cuda_usable, backend);
    if (spec.kind == backend_kind::cuda)
        return entry.cuda(code, options, spec.device);
    return entry.cpu(code, options, -1);
}

//! make() for decoders and detectors: the name the docs use.
template <class Options>
std::unique_ptr<batch_decoder> make_decoder(const typename Options::code_type& code,
                                            const Options& options,
                                            const std::string& backend = "auto")
{
    return make<Options>(code, options, backend);
}

} // namespace gpufec

#endif
