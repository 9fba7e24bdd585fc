/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Measurement switches read from the environment (GPUFEC_...): a kernel variant or an
// instruction-set cap that a benchmark or test selects without a new API.
#ifndef INCLUDED_GPUFEC_CPU_ENV_SWITCH_H
#define INCLUDED_GPUFEC_CPU_ENV_SWITCH_H

#include <gpufec/common.h>

#include <initializer_list>
#include <cstdlib>
#include <string>

namespace gpufec {

/*!
 * The value of environment variable `name`, "" when unset. A value outside `allowed` is
 * refused with an error that starts with `who` and names the allowed values, e.g.
 * "polar decoder (cuda): GPUFEC_POLAR_SCL_FORKS=x; allowed: count, network (or unset)".
 */
inline std::string env_switch(const char* name,
                              std::initializer_list<const char*> allowed,
                              const std::string& who)
{
    const char* set = std::getenv(name);
    if (!set)
        return "";
    const std::string value = set;
    std::string names;
    for (const char* a : allowed) {
        if (value == a)
            return value;
        names += (names.empty() ? "" : ", ") + std::string(a);
    }
    throw error(who + ": " + name + "=" + value + "; allowed: " + names + " (or unset)");
}

} // namespace gpufec

#endif
