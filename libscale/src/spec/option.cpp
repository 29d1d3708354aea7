#include "libscale/spec/option.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace libscale {

const char* to_string(OptionType t) {
    switch (t) {
        case OptionType::integer: return "integer";
        case OptionType::number: return "number";
        case OptionType::boolean: return "boolean";
        case OptionType::choice: return "choice";
        case OptionType::text: return "text";
    }
    return "?";
}

std::string format_option_value(const OptionValue& v) {
    std::ostringstream os;
    os.precision(17);
    std::visit(
        [&os](const auto& x) {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, std::monostate>) os << "none";
            else if constexpr (std::is_same_v<X, bool>) os << (x ? "true" : "false");
            else if constexpr (std::is_same_v<X, std::string>) os << "'" << x << "'";
            else os << x;
        },
        v);
    return os.str();
}

namespace detail {

namespace {

std::string join(const std::vector<std::string_view>& names) {
    std::string out;
    for (auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

std::string bound(double x) {
    std::ostringstream os;
    os.precision(15);
    os << x;
    return os.str();
}

// "an integer ≥ 1", "a number in [0, 1]", ...
std::string what_is_valid(OptionType type, double minimum, double maximum, bool optional, bool exclusive) {
    std::string what = type == OptionType::integer ? "an integer" : "a finite number";
    const bool lo = std::isfinite(minimum), hi = std::isfinite(maximum);
    if (lo && hi) what += (exclusive ? " in (" : " in [") + bound(minimum) + ", " + bound(maximum) + "]";
    else if (lo) what += (exclusive ? " > " : " >= ") + bound(minimum);
    else if (hi) what += " <= " + bound(maximum);
    if (optional) what += ", or none (not set)";
    return what;
}

[[noreturn]] void bad(std::string_view group, std::string_view name, const OptionValue& v, const std::string& valid) {
    throw std::invalid_argument(std::string(group) + " option " + std::string(name) + " = " + format_option_value(v) +
                                "; valid: " + valid);
}

}  // namespace

std::string describe_valid(OptionType type, const std::vector<std::string_view>& choices, double minimum,
                           double maximum, bool optional, bool exclusive_minimum) {
    const std::string none = optional ? ", or none (not set)" : "";
    switch (type) {
        case OptionType::boolean: return "true or false" + none;
        case OptionType::choice: return join(choices) + none;
        case OptionType::text: return "a string" + none;
        case OptionType::integer:
        case OptionType::number: return what_is_valid(type, minimum, maximum, optional, exclusive_minimum);
    }
    return "?";
}

void throw_unknown_option(std::string_view group, std::string_view name, const std::vector<std::string_view>& valid) {
    throw std::invalid_argument("unknown " + std::string(group) + " option '" + std::string(name) +
                                "'; valid: " + join(valid));
}

OptionValue check_option_value(std::string_view group, std::string_view name, OptionType type,
                               const std::vector<std::string_view>& choices, double minimum, double maximum,
                               bool optional, bool exclusive_minimum, const OptionValue& v) {
    const auto valid = [&] { return what_is_valid(type, minimum, maximum, optional, exclusive_minimum); };
    const auto out_of_range = [&](double x) {
        return x < minimum || x > maximum || (exclusive_minimum && x == minimum);
    };
    if (std::holds_alternative<std::monostate>(v)) {
        if (optional) return v;
        bad(group, name, v, "a value (this option has no 'not set')");
    }
    switch (type) {
        case OptionType::boolean:
            if (!std::holds_alternative<bool>(v)) bad(group, name, v, "true or false");
            return v;
        case OptionType::choice: {
            const auto* s = std::get_if<std::string>(&v);
            if (s != nullptr)
                for (auto c : choices)
                    if (*s == c) return v;
            bad(group, name, v, join(choices));
        }
        case OptionType::text:
            if (!std::holds_alternative<std::string>(v)) bad(group, name, v, "a string");
            return v;
        case OptionType::integer: {
            std::int64_t i = 0;
            if (const auto* p = std::get_if<std::int64_t>(&v)) {
                i = *p;
            } else if (const auto* d = std::get_if<double>(&v);
                       d != nullptr && std::isfinite(*d) && std::trunc(*d) == *d && std::fabs(*d) < 0x1p63) {
                i = static_cast<std::int64_t>(*d);  // 1e9 from a float is the integer it names
            } else {
                bad(group, name, v, valid());
            }
            const auto x = static_cast<double>(i);
            if (out_of_range(x)) bad(group, name, v, valid());
            return i;
        }
        case OptionType::number: {
            double x = 0;
            if (const auto* p = std::get_if<double>(&v)) x = *p;
            else if (const auto* q = std::get_if<std::int64_t>(&v)) x = static_cast<double>(*q);
            else bad(group, name, v, valid());
            if (!std::isfinite(x) || out_of_range(x)) bad(group, name, v, valid());
            return x;
        }
    }
    bad(group, name, v, "?");
}

}  // namespace detail
}  // namespace libscale
