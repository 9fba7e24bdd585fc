/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The PDCCH blind search on the CPU: each candidate through the polar decoder of its
// aggregation level, with blind RNTI detection.

#include <gpufec/polar_decoding.h>

#include "cpu/fixed_length_decoder.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gpufec {

std::vector<nr_polar_code> dci_search_codes(const dci_search_space& space)
{
    if (space.aggregation_levels.empty())
        throw error("dci search: no aggregation levels; allowed: 1, 2, 4, 8, 16");
    std::vector<nr_polar_code> codes;
    std::vector<int> seen;
    for (int L : space.aggregation_levels) {
        if (L != 1 && L != 2 && L != 4 && L != 8 && L != 16)
            throw error("dci search: aggregation level " + std::to_string(L) +
                        "; allowed: 1, 2, 4, 8, 16");
        if (std::find(seen.begin(), seen.end(), L) != seen.end())
            throw error("dci search: aggregation level " + std::to_string(L) +
                        " listed twice; allowed: each of 1, 2, 4, 8, 16 once");
        seen.push_back(L);
        try {
            codes.push_back(nr_polar_code::dci(space.k, dci_candidate_bits(L), 0));
        } catch (const error& e) {
            // Name the level: a DCI too long for level 1 (e = 108) is the usual case.
            throw error("dci search: k = " + std::to_string(space.k) +
                        " does not fit aggregation level " + std::to_string(L) +
                        " (e = " + std::to_string(dci_candidate_bits(L)) +
                        " bits); drop that level or shorten the DCI (" + e.what() + ")");
        }
    }
    return codes;
}

polar_decoder_options dci_search_decoding(const dci_search_space& space,
                                          const dci_search_options& options)
{
    if (space.rntis.empty())
        throw error("dci search: no rntis; allowed: 1 or more RNTIs, 0..65535");
    if (!options.decoding.rntis.empty())
        throw error("dci search: decoding.rntis given; allowed: empty (the search "
                    "space's rntis are used)");
    // Most candidates of a search are not addressed to the UE, fail fast-SSC's CRC and
    // would be decoded twice; the GPU search kernel runs the list alone.
    if (options.decoding.sc_first)
        throw error("dci search: decoding.sc_first set; allowed: false (each candidate "
                    "is list-decoded once)");
    polar_decoder_options o = options.decoding;
    o.rntis = space.rntis;
    return o;
}

namespace {

//! One scratch per aggregation level's decoder.
struct search_scratch : scratch {
    std::vector<std::unique_ptr<scratch>> per_level;
};

class dci_search_cpu final : public batch_decoder
{
public:
    dci_search_cpu(const dci_search_space& space, const dci_search_options& options)
        : d_k(space.k)
    {
        const polar_decoder_options o = dci_search_decoding(space, options);
        for (const nr_polar_code& code : dci_search_codes(space)) {
            std::unique_ptr<batch_decoder> d = make_polar_decoder_cpu(code, o);
            auto* fixed = dynamic_cast<fixed_length_cpu_decoder*>(d.get());
            if (!fixed)
                throw error("dci search: internal: the polar decoder is not a "
                            "fixed-length decoder");
            d.release();
            d_levels.emplace_back(fixed);
            d_e.push_back(static_cast<size_t>(code.e()));
        }
    }

    backend_kind backend() const override { return backend_kind::cpu; }
    size_t max_input_items_per_frame() const override
    {
        return *std::max_element(d_e.begin(), d_e.end());
    }
    size_t default_input_items() const override { return d_e.front(); }
    size_t default_output_bits() const override { return d_k + 16; }
    size_t output_bits_for_input(size_t items) const override
    {
        level_of(items);
        return d_k + 16;
    }
    std::unique_ptr<scratch> make_scratch() const override
    {
        auto s = std::make_unique<search_scratch>();
        for (const auto& d : d_levels)
            s->per_level.push_back(d->make_scratch());
        return s;
    }

    void decode(const frame_batch& batch, exec_ctx& ctx) override
    {
        std::vector<int> level(batch.num_frames);
        for (size_t f = 0; f < batch.num_frames; f++) {
            level[f] = level_of(batch.frames[f].in_items);
            if (batch.frames[f].out_bits != static_cast<uint32_t>(d_k + 16))
                throw error(
                    "dci search: frame " + std::to_string(f) +
                    " has out_bits = " + std::to_string(batch.frames[f].out_bits) +
                    "; allowed: k + 16 = " + std::to_string(d_k + 16));
        }
        // Each level's decoder sees its own scratches through a view of the context.
        const size_t levels = d_levels.size();
        std::vector<scratch*> views(levels * ctx.workers, nullptr);
        for (size_t w = 0; w < ctx.workers; w++) {
            auto& s = ctx.worker_scratch<search_scratch>(w);
            for (size_t l = 0; l < levels; l++)
                views[l * ctx.workers + w] = s.per_level[l].get();
        }
        std::vector<exec_ctx> sub(levels, ctx);
        for (size_t l = 0; l < levels; l++)
            sub[l].scratches = views.data() + l * ctx.workers;
        for_each_item(ctx, batch.num_frames, [&](size_t f, size_t worker) {
            const frame_extent& fe = batch.frames[f];
            const frame_status st =
                d_levels[level[f]]->decode_one(batch.in + fe.in_offset,
                                               batch.out + fe.out_offset,
                                               nullptr,
                                               sub[level[f]],
                                               worker);
            if (batch.status)
                batch.status[f] = st;
        });
    }

    std::string name() const override
    {
        std::string e;
        for (size_t x : d_e)
            e += (e.empty() ? "" : ",") + std::to_string(x);
        return "dci blind search (k=" + std::to_string(d_k) + ", e=" + e + ") of " +
               d_levels.front()->name();
    }

private:
    int level_of(size_t items) const
    {
        for (size_t l = 0; l < d_e.size(); l++)
            if (d_e[l] == items)
                return static_cast<int>(l);
        std::string allowed;
        for (size_t x : d_e)
            allowed += (allowed.empty() ? "" : ", ") + std::to_string(x);
        throw error("dci search: a frame of " + std::to_string(items) +
                    " LLRs is no candidate of the search space; allowed: e = " + allowed);
    }

    int d_k;
    std::vector<std::unique_ptr<fixed_length_cpu_decoder>> d_levels;
    std::vector<size_t> d_e;
};

} // namespace

std::unique_ptr<batch_decoder>
make_dci_search_decoder_cpu(const dci_search_space& space,
                            const dci_search_options& options)
{
    return std::make_unique<dci_search_cpu>(space, options);
}

} // namespace gpufec
