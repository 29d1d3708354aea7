// nlohmann::json <-> Python objects, directly (no text round trip: NaN stays a float, so
// the core's validators name the record and field instead of a JSON syntax error).
#pragma once

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "common.hpp"

namespace libscale_py {

// Deeper than this is refused, as parse_json refuses such a file (json_io.cpp): it also
// catches a container that holds itself, which would otherwise recurse until the C stack
// overflows and take the interpreter with it.
constexpr int kMaxPyJsonDepth = 256;

inline nlohmann::json py_to_json(py::handle o, const std::string& where = "value", int depth = 0) {
    if (depth > kMaxPyJsonDepth)
        throw py::value_error((where.size() > 60 ? where.substr(0, 60) + "..." : where) + ": nested deeper than " +
                              std::to_string(kMaxPyJsonDepth) + " levels (does a list or dict contain itself?)");
    if (o.is_none()) return nullptr;
    if (py::isinstance<py::bool_>(o)) return o.cast<bool>();
    if (py::isinstance<py::int_>(o)) {
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
        if (overflow != 0)
            throw py::value_error(where + " = " + std::string(py::str(o)) + ": beyond the 64-bit integer range");
        if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
        return static_cast<std::int64_t>(v);
    }
    if (py::isinstance<py::float_>(o)) return o.cast<double>();
    if (py::isinstance<py::str>(o)) return o.cast<std::string>();
    if (py::isinstance<py::dict>(o)) {
        nlohmann::json j = nlohmann::json::object();
        for (auto item : o.cast<py::dict>()) {
            if (!py::isinstance<py::str>(item.first))
                throw py::type_error(where + ": keys must be strings, got " +
                                     std::string(py::str(py::type::of(item.first).attr("__name__"))));
            const std::string key = item.first.cast<std::string>();
            j[key] = py_to_json(item.second, where + "." + key, depth + 1);
        }
        return j;
    }
    if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
        nlohmann::json j = nlohmann::json::array();
        std::size_t i = 0;
        for (auto item : o) j.push_back(py_to_json(item, where + "[" + std::to_string(i++) + "]", depth + 1));
        return j;
    }
    // numpy scalars and other numbers
    if (py::hasattr(o, "__index__")) return py_to_json(o.attr("__index__")(), where, depth + 1);
    if (py::hasattr(o, "__float__")) return o.attr("__float__")().cast<double>();
    throw py::type_error(where + ": cannot be written as JSON (" +
                         std::string(py::str(py::type::of(o).attr("__name__"))) + ")");
}

inline py::object json_to_py(const nlohmann::json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::null: return py::none();
        case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
        case nlohmann::json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
        case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
        case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
        case nlohmann::json::value_t::string: return py::str(j.get_ref<const std::string&>());
        case nlohmann::json::value_t::array: {
            py::list out;
            for (const auto& x : j) out.append(json_to_py(x));
            return out;
        }
        case nlohmann::json::value_t::object: {
            py::dict out;
            for (auto it = j.begin(); it != j.end(); ++it) out[py::str(it.key())] = json_to_py(it.value());
            return out;
        }
        default: return py::none();
    }
}

}  // namespace libscale_py
