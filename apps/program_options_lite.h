/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The small subset of Boost.Program_options that gpufec-bench uses, for machines that
// have Boost's headers but not its compiled program_options library (the GPU machines).
// Used only when CMake does not find Boost::program_options.
#ifndef INCLUDED_GPUFEC_PROGRAM_OPTIONS_LITE_H
#define INCLUDED_GPUFEC_PROGRAM_OPTIONS_LITE_H

#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

namespace gpufec {
namespace lite_po {

class value_semantic
{
public:
    virtual ~value_semantic() = default;
    virtual void parse(const std::string& text) = 0;
    virtual std::string default_text() const = 0;
};

template <typename T>
class typed_value : public value_semantic
{
public:
    explicit typed_value(T* target) : d_target(target) {}
    //! Boost assigns defaults at notify(); assigning now is equivalent here because
    //! parsed values overwrite it later.
    typed_value* default_value(const T& v)
    {
        *d_target = v;
        std::ostringstream s;
        s << v;
        d_default = s.str();
        return this;
    }
    void parse(const std::string& text) override
    {
        if constexpr (std::is_same_v<T, std::string>) {
            *d_target = text;
        } else {
            std::istringstream s(text);
            T v;
            if (!(s >> v) || !(s >> std::ws).eof())
                throw std::runtime_error("invalid value '" + text + "'");
            *d_target = v;
        }
    }
    std::string default_text() const override { return d_default; }

private:
    T* d_target;
    std::string d_default;
};

template <typename T>
typed_value<T>* value(T* target)
{
    return new typed_value<T>(target);
}

class options_description
{
public:
    struct option {
        std::string name, shortname, help;
        std::shared_ptr<value_semantic> value;
    };

    explicit options_description(std::string caption) : d_caption(std::move(caption)) {}

    class adder
    {
    public:
        explicit adder(options_description& d) : d_desc(d) {}
        adder& operator()(const char* name, const char* help)
        {
            d_desc.add(name, nullptr, help);
            return *this;
        }
        adder& operator()(const char* name, value_semantic* v, const char* help)
        {
            d_desc.add(name, v, help);
            return *this;
        }

    private:
        options_description& d_desc;
    };
    adder add_options() { return adder(*this); }

    const option* find(const std::string& key) const
    {
        for (const auto& o : d_options)
            if (o.name == key || (!o.shortname.empty() && o.shortname == key))
                return &o;
        return nullptr;
    }

    friend std::ostream& operator<<(std::ostream& os, const options_description& d)
    {
        os << d.d_caption << ":\n";
        for (const auto& o : d.d_options) {
            std::string left = "  --" + o.name;
            if (!o.shortname.empty())
                left = "  -" + o.shortname + " [ --" + o.name + " ]";
            if (o.value)
                left += " arg" + (o.value->default_text().empty()
                                      ? std::string()
                                      : " (=" + o.value->default_text() + ")");
            os << left << (left.size() < 38 ? std::string(38 - left.size(), ' ') : " ")
               << o.help << "\n";
        }
        return os;
    }

private:
    void add(const std::string& spec, value_semantic* v, const char* help)
    {
        option o;
        const auto comma = spec.find(',');
        o.name = spec.substr(0, comma);
        if (comma != std::string::npos)
            o.shortname = spec.substr(comma + 1);
        o.help = help;
        o.value.reset(v);
        d_options.push_back(std::move(o));
    }
    std::string d_caption;
    std::vector<option> d_options;
};

using variables_map = std::map<std::string, std::string>;

struct parsed_options {
    std::vector<std::pair<const options_description::option*, std::string>> values;
};

inline parsed_options parse_command_line(int argc, char** argv, const options_description& desc)
{
    parsed_options parsed;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i], key, text;
        bool has_text = false;
        if (arg.rfind("--", 0) == 0) {
            key = arg.substr(2);
            const auto eq = key.find('=');
            if (eq != std::string::npos) {
                text = key.substr(eq + 1);
                key = key.substr(0, eq);
                has_text = true;
            }
        } else if (arg.size() == 2 && arg[0] == '-') {
            key = arg.substr(1);
        } else {
            throw std::runtime_error("unexpected argument '" + arg + "'");
        }
        const auto* opt = desc.find(key);
        if (!opt)
            throw std::runtime_error("unrecognised option '" + arg + "'");
        if (opt->value && !has_text) {
            if (i + 1 >= argc)
                throw std::runtime_error("option '" + arg + "' needs a value");
            text = argv[++i];
        }
        parsed.values.emplace_back(opt, text);
    }
    return parsed;
}

inline void store(const parsed_options& parsed, variables_map& vm)
{
    for (const auto& [opt, text] : parsed.values) {
        if (opt->value)
            opt->value->parse(text);
        vm[opt->name] = text;
    }
}

inline void notify(variables_map&) {}

} // namespace lite_po
} // namespace gpufec

#endif
