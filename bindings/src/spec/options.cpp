// libscale._core.spec: the option tables (spec/option.hpp) — every training, data,
// checkpoint, job, gate, triage and watch option as the core declares it, and the one path by
// which Python values reach the structs: converted here, checked by the core.
#include <map>
#include <string>

#include "../common.hpp"
#include "../option_fields.hpp"
#include "libscale/estimate/projection.hpp"
#include "libscale/gate/gate_options.hpp"
#include "libscale/spec/training_config.hpp"
#include "libscale/triage/triage_options.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

bool is_instance_of_numpy(py::handle h, const char* type) {
    // Imported per call (a dictionary lookup once numpy is loaded): a function-static
    // py::object would be released by the C++ exit handlers after the interpreter is gone.
    return py::isinstance(h, py::module_::import("numpy").attr(type));
}

std::string choice_list(const std::vector<std::string_view>& choices) {
    std::string s;
    for (const auto c : choices) {
        if (!s.empty()) s += ", ";
        s.append(c.data(), c.size());
    }
    return s;
}

}  // namespace

OptionValue to_option_value(py::handle h, std::string_view group, std::string_view name) {
    if (h.is_none()) return std::monostate{};
    if (PyBool_Check(h.ptr()) || is_instance_of_numpy(h, "bool_")) return h.cast<bool>();
    if (PyFloat_Check(h.ptr()) || is_instance_of_numpy(h, "floating")) return h.cast<double>();
    if (PyLong_Check(h.ptr()) || is_instance_of_numpy(h, "integer")) {
        int overflow = 0;
        py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(h.ptr()));
        const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
        if (overflow != 0) {
            // Its digits up to 100 bits; past that its size (str() refuses past 4300 digits).
            const auto bits = i.attr("bit_length")().cast<long long>();
            const std::string shown =
                bits <= 100 ? py::str(i).cast<std::string>() : "an integer of " + std::to_string(bits) + " bits";
            throw std::invalid_argument(std::string(group) + " option " + std::string(name) + " = " + shown +
                                        "; it is beyond the 64-bit integer range");
        }
        return static_cast<std::int64_t>(v);
    }
    if (PyUnicode_Check(h.ptr())) {
        // Not h.cast<std::string>(): a str that UTF-8 cannot encode (a lone surrogate) would
        // fail as pybind11's RuntimeError "Unable to cast"; Python's UnicodeEncodeError (a
        // ValueError) says what is wrong.
        Py_ssize_t size = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(h.ptr(), &size);
        if (utf8 == nullptr) throw py::error_already_set();
        return std::string(utf8, static_cast<std::size_t>(size));
    }
    throw py::type_error(std::string(group) + " option " + std::string(name) + ": expected a number, a bool, a str " +
                         "or None, got " + std::string(py::str(py::type::handle_of(h).attr("__name__"))) + " " +
                         std::string(py::repr(h)));
}

py::object to_py(const OptionValue& v) {
    return std::visit(
        [](const auto& x) -> py::object {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, std::monostate>) return py::none();
            else return py::cast(x);
        },
        v);
}

void check_option_kind(std::string_view group, std::string_view name, OptionType type,
                       const std::vector<std::string_view>& choices, const OptionValue& value, py::handle original) {
    const bool text = std::holds_alternative<std::string>(value), flag = std::holds_alternative<bool>(value);
    const bool numeric = std::holds_alternative<std::int64_t>(value) || std::holds_alternative<double>(value);
    const bool kind_ok = std::holds_alternative<std::monostate>(value) ||
                         ((type == OptionType::integer || type == OptionType::number) && numeric) ||
                         (type == OptionType::boolean && flag) ||
                         ((type == OptionType::choice || type == OptionType::text) && text);
    if (kind_ok) return;
    const std::string expected = type == OptionType::boolean   ? "True or False"
                                 : type == OptionType::choice  ? "one of the names " + choice_list(choices)
                                 : type == OptionType::text    ? "a str"
                                 : type == OptionType::integer ? "an integer"
                                                               : "a number";
    throw py::type_error(std::string(group) + " option " + std::string(name) + ": expected " + expected + ", got " +
                         std::string(py::str(py::type::handle_of(original).attr("__name__"))) + " " +
                         std::string(py::repr(original)));
}

std::string option_doc_line(std::string_view name, OptionType type, bool optional, std::string_view unit,
                            std::string_view help, const OptionValue& default_value) {
    const char* py_type = type == OptionType::integer   ? "int"
                          : type == OptionType::number  ? "float"
                          : type == OptionType::boolean ? "bool"
                                                        : "str";
    std::string out = std::string(name) + ": " + py_type + (optional ? " | None" : "") + " = ";
    out += std::holds_alternative<std::monostate>(default_value) ? "None" : format_option_value(default_value);
    if (!unit.empty()) out += " [" + std::string(unit) + "]";
    return out + " — " + std::string(help);
}

namespace {

template <class T>
py::list describe(const OptionTable<T>& table) {
    py::list out;
    for (const auto& o : table.options) {
        py::dict d;
        d["group"] = std::string(table.group);
        d["name"] = std::string(o.name);
        d["type"] = to_string(o.type);
        d["unit"] = std::string(o.unit);
        d["help"] = std::string(o.help);
        py::list choices;
        for (auto c : o.choices) choices.append(std::string(c));
        d["choices"] = choices;
        d["minimum"] = o.minimum;
        d["maximum"] = o.maximum;
        d["exclusive_minimum"] = o.exclusive_minimum;
        d["optional"] = o.optional;
        d["valid"] = describe_valid(o);
        d["default"] = to_py(default_value(o));
        out.append(d);
    }
    return out;
}

// One option's value checked on its own (type, range, choices), in the option's type:
// what a front end uses to name the flag that set a bad value.
template <class T>
py::object check_one(const OptionTable<T>& table, const std::string& name, py::handle value) {
    const auto& o = find_option(table, name);
    return to_py(check_option(table, o, to_option_value(value, table.group, o.name)));
}

// A nested struct given as a dict of its options, or as the struct itself.
template <class T>
T nested(const OptionTable<T>& table, py::handle h) {
    if (h.is_none()) return T{};
    if (py::isinstance<T>(h)) {
        T value = h.cast<T>();
        validate_options(table, value);
        return value;
    }
    if (py::isinstance<py::dict>(h)) return make_from_py(table, h.cast<py::dict>());
    throw py::type_error(std::string(table.group) + ": expected a dict of " + std::string(table.group) +
                         " options or the struct, got " +
                         std::string(py::str(py::type::handle_of(h).attr("__name__"))));
}

TrainingConfig make_training(const py::dict& values) {
    TrainingConfig c{};
    py::dict scalars;
    for (auto [k, v] : values) {
        const std::string name = py::str(k);
        if (name == "data") c.data = nested(data_options(), v);
        else if (name == "checkpoint") c.checkpoint = nested(checkpoint_options(), v);
        else scalars[k] = v;
    }
    set_options_from_py(training_options(), c, scalars);
    return c;
}

const std::vector<std::string> kGroups = {"training", "data", "checkpoint", "job", "gate", "triage", "watch"};

[[noreturn]] void unknown_group(const std::string& group) {
    std::string valid;
    for (const auto& g : kGroups) valid += (valid.empty() ? "" : ", ") + g;
    throw std::invalid_argument("option group '" + group + "'; valid: " + valid);
}

}  // namespace

py::object make_options_py(const std::string& group, const py::dict& values) {
    if (group == "training") return py::cast(make_training(values));
    if (group == "data") return py::cast(make_from_py(data_options(), values));
    if (group == "checkpoint") return py::cast(make_from_py(checkpoint_options(), values));
    if (group == "job") return py::cast(make_from_py(job_options(), values));
    if (group == "gate") {
        auto g = make_from_py(gate_options(), values);
        validate(g);  // seq_len has no default: a GateConfig without it is named here
        return py::cast(std::move(g));
    }
    if (group == "triage") {
        auto t = make_from_py(triage_options(), values);
        t.validate();
        return py::cast(std::move(t));
    }
    if (group == "watch") {
        auto w = make_from_py(watch_options(), values);
        w.validate();
        return py::cast(std::move(w));
    }
    unknown_group(group);
}

void register_spec_options(py::module_& m) {
    m.def(
        "option_groups", [] { return kGroups; }, "The option groups, each the fields of one core struct.");
    m.def(
        "options",
        [](const std::string& group) -> py::list {
            if (group == "training") return describe(training_options());
            if (group == "data") return describe(data_options());
            if (group == "checkpoint") return describe(checkpoint_options());
            if (group == "job") return describe(job_options());
            if (group == "gate") return describe(gate_options());
            if (group == "triage") return describe(triage_options());
            if (group == "watch") return describe(watch_options());
            unknown_group(group);
        },
        py::arg("group"),
        "The options of a group as dicts: group, name, type, unit, help, choices, minimum, maximum, "
        "exclusive_minimum, optional, valid (what values are valid, in words), default (None: not set).");
    m.def("make_options", &make_options_py, py::arg("group"), py::arg("values"),
          "The group's struct from its defaults and the given options, each checked by the core (ValueError "
          "naming the option, the value and what is valid; TypeError for a value of no option type). training "
          "also takes data= and checkpoint= as dicts of their options.");
    m.def(
        "check_option",
        [](const std::string& group, const std::string& name, py::handle value) -> py::object {
            if (group == "training") return check_one(training_options(), name, value);
            if (group == "data") return check_one(data_options(), name, value);
            if (group == "checkpoint") return check_one(checkpoint_options(), name, value);
            if (group == "job") return check_one(job_options(), name, value);
            if (group == "gate") return check_one(gate_options(), name, value);
            if (group == "triage") return check_one(triage_options(), name, value);
            if (group == "watch") return check_one(watch_options(), name, value);
            unknown_group(group);
        },
        py::arg("group"), py::arg("name"), py::arg("value"),
        "One option's value checked alone (type, range, choices; not the rules between options), returned "
        "in the option's type; ValueError / TypeError as make_options.");
    m.def(
        "option_values",
        [](const std::string& group, py::handle obj) -> py::dict {
            if (group == "training") {
                const auto& c = obj.cast<const TrainingConfig&>();
                py::dict d = option_dict(training_options(), c);
                d["data"] = option_dict(data_options(), c.data);
                d["checkpoint"] = option_dict(checkpoint_options(), c.checkpoint);
                return d;
            }
            if (group == "data") return option_dict(data_options(), obj.cast<const DataPipeline&>());
            if (group == "checkpoint") return option_dict(checkpoint_options(), obj.cast<const CheckpointPolicy&>());
            if (group == "job") return option_dict(job_options(), obj.cast<const Job&>());
            if (group == "gate") return option_dict(gate_options(), obj.cast<const GateConfig&>());
            if (group == "triage") return option_dict(triage_options(), obj.cast<const TriageOptions&>());
            if (group == "watch") return option_dict(watch_options(), obj.cast<const WatchOptions&>());
            unknown_group(group);
        },
        py::arg("group"), py::arg("value"), "The struct's options by name (None: not set).");
}

}  // namespace libscale_py
