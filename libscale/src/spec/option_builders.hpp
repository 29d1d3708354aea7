// Shorthands for the option tables: one line per field, reading and writing it through a
// member pointer, so that no table entry repeats its field's name in code.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
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

// A number > 0 (and at most `maximum`).
template <class T>
Option<T> positive(std::string_view name, double T::*field, std::string_view unit, std::string_view help,
                   double maximum = kInf) {
    auto o = number<T>(name, field, unit, help, 0, maximum);
    o.exclusive_minimum = true;
    return o;
}

// An option that may be left unset, stored in the struct as the sentinel `unset` (0 for a
// count or a positive number, NaN for any number) and read back as "not set".
template <class T, class V, class IsUnset>
Option<T> unset_as(Option<T> o, V T::*field, V unset, IsUnset is_unset) {
    o.optional = true;
    o.get = [get = std::move(o.get), field, is_unset](const T& t) -> OptionValue {
        return is_unset(t.*field) ? OptionValue{} : get(t);
    };
    o.set = [set = std::move(o.set), field, unset](T& t, const OptionValue& v) {
        if (std::holds_alternative<std::monostate>(v)) t.*field = unset;
        else set(t, v);
    };
    return o;
}

// A count whose 0 in the struct means "not set".
template <class T, class I>
Option<T> optional_count(std::string_view name, I T::*field, std::string_view unit, std::string_view help,
                         double minimum, double maximum) {
    return unset_as(integer<T>(name, field, unit, help, minimum, maximum), field, I{0}, [](I x) { return x == 0; });
}

// A positive number whose 0 in the struct means "not set".
template <class T>
Option<T> optional_positive(std::string_view name, double T::*field, std::string_view unit, std::string_view help,
                            double maximum = kInf) {
    return unset_as(positive<T>(name, field, unit, help, maximum), field, 0.0, [](double x) { return x == 0; });
}

// A number whose NaN in the struct means "not set".
template <class T>
Option<T> optional_number(std::string_view name, double T::*field, std::string_view unit, std::string_view help,
                          double minimum = -kInf, double maximum = kInf) {
    return unset_as(number<T>(name, field, unit, help, minimum, maximum), field,
                    std::numeric_limits<double>::quiet_NaN(), [](double x) { return std::isnan(x); });
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
