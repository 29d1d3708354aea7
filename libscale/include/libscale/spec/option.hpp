// One declaration per user-facing option: its name, type, unit, valid values and help,
// and how it reads and writes the struct that carries it. The default is what the
// struct's member initializer says (read back from a default-constructed struct), so it
// is written once. The Python keywords, the command-line flags, the log parsers'
// keywords and the docs are all derived from these tables (docs/cli.md).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace libscale {

enum class OptionType { integer, number, boolean, choice, text };
const char* to_string(OptionType t);

// An option's value; monostate is "not set" (Python None, a flag left out), which only
// optional options accept: the core then uses its own rule (the hardware's GPUs per node,
// the causal attention span, ...).
using OptionValue = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

// The value as a user would type it ("8192", "fsdp", "true", "none" when not set).
std::string format_option_value(const OptionValue& v);

template <class T>
struct Option {
    // Every member has a default so that a table entry names only what it sets (designated
    // initializers, option_builders.hpp).
    std::string_view name{};
    OptionType type = OptionType::number;
    std::string_view unit{};  // "" when dimensionless; "tokens", "s", "GB/s", "USD", ...
    std::string_view help{};
    std::vector<std::string_view> choices{};                    // OptionType::choice: every accepted name
    double minimum = -std::numeric_limits<double>::infinity();  // inclusive bounds
    double maximum = std::numeric_limits<double>::infinity();
    bool optional = false;           // accepts "not set"
    bool exclusive_minimum = false;  // "> minimum" (a positive number: > 0)
    std::function<OptionValue(const T&)> get{};
    std::function<void(T&, const OptionValue&)> set{};  // called with a checked value
};

template <class T>
struct OptionTable {
    std::string_view group;  // "training", "job", "gate", ...
    std::vector<Option<T>> options;
};

namespace detail {
// Throws std::invalid_argument naming group, option, value and what is valid. Checks
// the type (integers are accepted for numbers; nothing else converts), finiteness,
// range and choices; returns the value in the option's own type.
OptionValue check_option_value(std::string_view group, std::string_view name, OptionType type,
                               const std::vector<std::string_view>& choices, double minimum, double maximum,
                               bool optional, bool exclusive_minimum, const OptionValue& v);
// What values are valid, in words ("an integer in [1, 1073741824]", "fsdp, hsdp, ..."),
// as check_option_value's errors say it.
std::string describe_valid(OptionType type, const std::vector<std::string_view>& choices, double minimum,
                           double maximum, bool optional, bool exclusive_minimum);
[[noreturn]] void throw_unknown_option(std::string_view group, std::string_view name,
                                       const std::vector<std::string_view>& valid);
}  // namespace detail

template <class T>
const Option<T>& find_option(const OptionTable<T>& table, std::string_view name) {
    for (const auto& o : table.options)
        if (o.name == name) return o;
    std::vector<std::string_view> valid;
    valid.reserve(table.options.size());
    for (const auto& o : table.options) valid.push_back(o.name);
    detail::throw_unknown_option(table.group, name, valid);
}

// The value in the option's own type (an integer for a number, 1e9 for an integer that
// was given as a float); std::invalid_argument naming group, option, value and what is valid.
template <class T>
OptionValue check_option(const OptionTable<T>& table, const Option<T>& o, const OptionValue& v) {
    return detail::check_option_value(table.group, o.name, o.type, o.choices, o.minimum, o.maximum, o.optional,
                                      o.exclusive_minimum, v);
}

// Checks every field of a struct against its table (for structs built field by field in C++).
template <class T>
void validate_options(const OptionTable<T>& table, const T& value) {
    for (const auto& o : table.options) check_option(table, o, o.get(value));
}

// Sets one option after checking it (std::invalid_argument on an unknown name or a bad value).
template <class T>
void set_option(const OptionTable<T>& table, T& target, std::string_view name, const OptionValue& v) {
    const auto& o = find_option(table, name);
    o.set(target, check_option(table, o, v));
}

// A struct from its defaults and the given options.
template <class T>
T make_from_options(const OptionTable<T>& table, const std::map<std::string, OptionValue, std::less<>>& values) {
    T out{};
    for (const auto& [name, v] : values) set_option(table, out, name, v);
    return out;
}

template <class T>
std::string describe_valid(const Option<T>& o) {
    return detail::describe_valid(o.type, o.choices, o.minimum, o.maximum, o.optional, o.exclusive_minimum);
}

template <class T>
OptionValue default_value(const Option<T>& o) {
    return o.get(T{});
}

// "Name(a=1, b='x', c=none)": every option of the table, as a user would type it.
template <class T>
std::string format_options(std::string_view type_name, const OptionTable<T>& table, const T& value) {
    std::string out = std::string(type_name) + "(";
    for (const auto& o : table.options) {
        if (out.back() != '(') out += ", ";
        out += std::string(o.name) + "=" + format_option_value(o.get(value));
    }
    return out + ")";
}

}  // namespace libscale
