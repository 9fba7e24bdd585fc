/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Backend strings and the hardware behind them; the choice of a backend for an
// algorithm from what it registered.
#include <gpufec/backends.h>

#include <cstdlib>

#if GPUFEC_HAVE_CUDA
#include "cuda/common/cuda_utils.h"
#endif

namespace gpufec {

#if GPUFEC_HAVE_CUDA
int cuda_device_count() { return cuda::device_count(); }
std::string cuda_device_description(int device) { return cuda::device_name(device); }
#else
// A build without CUDA registers no CUDA maker and sees no device.
int cuda_device_count() { return 0; }
std::string cuda_device_description(int) { return "unavailable"; }
#endif

namespace {

const char* const allowed_backends =
    "\"auto\", \"cpu\", \"cuda\", \"cuda:N\" (N = device index)";

void require_cuda_device(int device, const std::string& requested)
{
    const int count = cuda_device_count();
    if (count <= 0)
        throw error(
            "backend \"" + requested +
            "\": no CUDA device is available (built without CUDA, no driver or no "
            "GPU); use \"cpu\" or \"auto\"");
    if (device >= count)
        throw error("backend \"" + requested + "\": no CUDA device " +
                    std::to_string(device) +
                    "; allowed devices: cuda:0..cuda:" + std::to_string(count - 1));
}

std::string list_backends(bool has_cpu, bool has_cuda)
{
    std::string names = "\"auto\"";
    if (has_cpu)
        names += ", \"cpu\"";
    if (has_cuda)
        names += ", \"cuda\", \"cuda:N\"";
    return names;
}

} // namespace

backend_spec parse_backend(const std::string& backend)
{
    backend_spec spec;
    if (backend == "auto") {
        spec.was_auto = true;
        return spec;
    }
    if (backend == "cpu")
        return spec;
    spec.kind = backend_kind::cuda;
    if (backend == "cuda")
        return spec;
    const std::string prefix = "cuda:";
    if (backend.compare(0, prefix.size(), prefix) == 0 &&
        backend.size() > prefix.size() && backend.size() <= prefix.size() + 4 &&
        backend.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
        spec.device = std::atoi(backend.c_str() + prefix.size());
        return spec;
    }
    throw error("unknown backend \"" + backend + "\"; allowed: " + allowed_backends);
}

backend_spec resolve_backend(const std::string& backend)
{
    backend_spec spec = parse_backend(backend);
    if (spec.was_auto) {
        if (cuda_device_count() > 0)
            spec.kind = backend_kind::cuda;
        return spec;
    }
    if (spec.kind == backend_kind::cuda)
        require_cuda_device(spec.device, backend);
    return spec;
}

std::string backend_string(const backend_spec& spec)
{
    if (spec.was_auto)
        return "auto";
    if (spec.kind == backend_kind::cpu)
        return "cpu";
    return "cuda:" + std::to_string(spec.device);
}

std::string describe_backend(const backend_spec& spec)
{
    if (spec.kind == backend_kind::cpu)
        return "cpu";
    return "cuda:" + std::to_string(spec.device) + " (" +
           cuda_device_description(spec.device) + ")";
}

namespace detail {

backend_spec choose_backend(const char* algorithm,
                            bool has_cpu,
                            bool has_cuda,
                            const std::string& backend)
{
    backend_spec spec = parse_backend(backend);
    if (spec.was_auto) {
        if (has_cuda && cuda_device_count() > 0)
            spec.kind = backend_kind::cuda;
        else if (has_cpu)
            spec.kind = backend_kind::cpu;
        else
            throw error(std::string(algorithm) +
                        ": backend \"auto\" found no CUDA device, and this algorithm has "
                        "no CPU implementation; allowed here: none");
        return spec;
    }
    const bool present = spec.kind == backend_kind::cuda ? has_cuda : has_cpu;
    if (!present)
        throw error("backend \"" + backend + "\" is not yet available for " + algorithm +
                    " in this build; allowed: " + list_backends(has_cpu, has_cuda));
    if (spec.kind == backend_kind::cuda)
        require_cuda_device(spec.device, backend);
    return spec;
}

} // namespace detail

} // namespace gpufec
