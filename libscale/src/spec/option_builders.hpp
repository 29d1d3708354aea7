// Shorthands for the option tables: one line per field, reading and writing it through a
// member pointer, so that no table entry repeats its field's name in code.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "libscale/spec/option.hpp"

namespace libscale::option_builders {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

template <class T, class I>
Option<T> integer(std::string_view name, I T::*field, std::string_view unit, std::string_view help, double minimum,
                  double maximum) {
    return {.name = name,
            .type = OptionType::integer,
            .unit = unit,
            .help = help,
            .minimum = minimum,
            .maximum = maximum,
            .get = [field](const T& t) -> OptionValue { return static_cast<std::int64_t>(t.*field); },
            .set = [field](T& t, const OptionValue& v) { t.*field = static_cast<I>(std::get<std::int64_t>(v)); }};
}

// A count whose 0 in the struct means "not set".
template <class T, class I>
Option<T> optional_count(std::string_view name, I T::*field, std::string_view unit, std::string_view help,
                         double minimum, double maximum) {
    return {.name = name,
            .type = OptionType::integer,
            .unit = unit,
            .help = help,
            .minimum = minimum,
            .maximum = maximum,
            .optional = true,
            .get = [field](const T& t) -> OptionValue {
                if (t.*field == 0) return std::monostate{};
                return static_cast<std::int64_t>(t.*field);
            },
            .set =
                [field](T& t, const OptionValue& v) {
                    t.*field =
                        std::holds_alternative<std::monostate>(v) ? I{0} : static_cast<I>(std::get<std::int64_t>(v));
                }};
}

template <class T>
Option<T> number(std::string_view name, double T::*field, std::string_view unit, std::string_view help,
                 double minimum = -kInf, double maximum = kInf) {
    return {.name = name,
            .type = OptionType::number,
            .unit = unit,
            .help = help,
            .minimum = minimum,
            .maximum = maximum,
            .get = [field](const T& t) -> OptionValue { return t.*field; },
            .set = [field](T& t, const OptionValue& v) { t.*field = std::get<double>(v); }};
}

// A number > 0.
template <class T>
Option<T> positive(std::string_view name, double T::*field, std::string_view unit, std::string_view help) {
    auto o = number<T>(name, field, unit, help, 0);
    o.exclusive_minimum = true;
    return o;
}

// A positive number whose 0 in the struct means "not set".
template <class T>
Option<T> optional_positive(std::string_view name, double T::*field, std::string_view unit, std::string_view help) {
    return {.name = name,
            .type = OptionType::number,
            .unit = unit,
            .help = help,
            .minimum = 0,
            .optional = true,
            .exclusive_minimum = true,
            .get = [field](const T& t) -> OptionValue {
                if (t.*field == 0) return std::monostate{};
                return t.*field;
            },
            .set =
                [field](T& t, const OptionValue& v) {
                    t.*field = std::holds_alternative<std::monostate>(v) ? 0.0 : std::get<double>(v);
                }};
}

// A number whose NaN in the struct means "not set".
template <class T>
Option<T> optional_number(std::string_view name, double T::*field, std::string_view unit, std::string_view help,
                          double minimum = -kInf, double maximum = kInf) {
    return {.name = name,
            .type = OptionType::number,
            .unit = unit,
            .help = help,
            .minimum = minimum,
            .maximum = maximum,
            .optional = true,
            .get = [field](const T& t) -> OptionValue {
                if (t.*field != t.*field) return std::monostate{};
                return t.*field;
            },
            .set =
                [field](T& t, const OptionValue& v) {
                    t.*field = std::holds_alternative<std::monostate>(v) ? std::numeric_limits<double>::quiet_NaN()
                                                                         : std::get<double>(v);
                }};
}

template <class T>
Option<T> boolean(std::string_view name, bool T::*field, std::string_view help) {
    return {.name = name,
            .type = OptionType::boolean,
            .help = help,
            .get = [field](const T& t) -> OptionValue { return t.*field; },
            .set = [field](T& t, const OptionValue& v) { t.*field = std::get<bool>(v); }};
}

// An enum by name: parse and to_string are the enum's own (one name table per enum).
template <class T, class E>
Option<T> choice(std::string_view name, E T::*field, E (*parse)(std::string_view),
                 const std::vector<std::string_view>& choices, std::string_view help) {
    return {.name = name,
            .type = OptionType::choice,
            .help = help,
            .choices = choices,
            .get = [field](const T& t) -> OptionValue { return std::string(to_string(t.*field)); },
            .set = [field, parse](T& t, const OptionValue& v) { t.*field = parse(std::get<std::string>(v)); }};
}

}  // namespace libscale::option_builders
