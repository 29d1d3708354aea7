// Binding a struct that has an option table (libscale/spec/option.hpp) from the table
// itself: one property per option (its value as the table gives it: an enum by name,
// "not set" as None), `_fields` (the option names in table order, then nested structs),
// to_dict(), and a keyword constructor that checks every value through the core. A new
// option in the table is a new attribute, keyword and dict key with no line here.
//
//   py::class_<TrainingConfig> cls(m, "TrainingConfig", "...");
//   def_option_fields(cls, training_options(), Access::read_write, {"data", "checkpoint"});
//   def_option_init(cls, training_options(), "How a run is laid out.");
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "fields.hpp"
#include "libscale/spec/option.hpp"

namespace libscale_py {

// Python → OptionValue with no conversion the user did not ask for: bool stays bool (and
// is no integer), an integral type (numpy's too) is an integer, a float a number, a str a
// string, None "not set"; anything else is a TypeError naming group and option.
libscale::OptionValue to_option_value(py::handle h, std::string_view group, std::string_view name);
py::object to_py(const libscale::OptionValue& v);
// TypeError unless `value` is of the option's kind (a str for a number is a TypeError, as
// Python code expects; a value of the right kind but invalid is the core's ValueError).
void check_option_kind(std::string_view group, std::string_view name, libscale::OptionType type,
                       const std::vector<std::string_view>& choices, const libscale::OptionValue& value,
                       py::handle original);
// libscale._core.spec.make_options: the group's struct from its defaults and `values`.
py::object make_options_py(const std::string& group, const py::dict& values);
// "name: int = 8 (GPUs) — help" lines for a docstring.
std::string option_doc_line(std::string_view name, libscale::OptionType type, bool optional, std::string_view unit,
                            std::string_view help, const libscale::OptionValue& default_value);

template <class T>
void set_option_from_py(const libscale::OptionTable<T>& table, T& out, std::string_view name, py::handle v) {
    const auto& o = libscale::find_option(table, name);
    const libscale::OptionValue value = to_option_value(v, table.group, o.name);
    check_option_kind(table.group, o.name, o.type, o.choices, value, v);
    o.set(out, libscale::check_option(table, o, value));
}

template <class T>
void set_options_from_py(const libscale::OptionTable<T>& table, T& out, const py::dict& values) {
    for (auto [k, v] : values) set_option_from_py(table, out, std::string(py::str(k)), v);
}

template <class T>
T make_from_py(const libscale::OptionTable<T>& table, const py::dict& values) {
    T out{};
    set_options_from_py(table, out, values);
    return out;
}

template <class T>
py::dict option_dict(const libscale::OptionTable<T>& table, const T& obj) {
    py::dict d;
    for (const auto& o : table.options) d[py::str(std::string(o.name))] = to_py(o.get(obj));
    return d;
}

// One property per option of `table` (which must outlive the module: the tables are
// function-local statics), `_fields` = the option names then `nested` (members the caller
// binds itself), `_options_group` = the table's group (scripts/make_stubs.py types the
// stub from it), and to_dict(). Read-write properties check what is assigned.
template <class T, class... Extra>
void def_option_fields(py::class_<T, Extra...>& cls, const libscale::OptionTable<T>& table, Access access,
                       const std::vector<std::string>& nested = {}) {
    py::tuple names(table.options.size() + nested.size());
    std::size_t i = 0;
    const T defaults{};
    for (const auto& o : table.options) {
        const libscale::Option<T>* opt = &o;
        const std::string name(o.name);
        names[i++] = py::str(name);
        const std::string doc = option_doc_line(o.name, o.type, o.optional, o.unit, o.help, o.get(defaults));
        const py::cpp_function get([opt](const T& self) { return to_py(opt->get(self)); });
        if (access == Access::read_write) {
            const py::cpp_function set(
                [opt, tab = &table](T& self, py::handle v) { set_option_from_py(*tab, self, opt->name, v); });
            cls.def_property(name.c_str(), get, set, doc.c_str());
        } else {
            cls.def_property_readonly(name.c_str(), get, doc.c_str());
        }
    }
    for (const auto& n : nested) names[i++] = py::str(n);
    cls.attr("_options_group") = py::str(std::string(table.group));
    def_field_names(cls, names,
                    "The options in table order (None: not set), then nested structs as dicts, then derived "
                    "properties.");
    // The options that differ from their defaults, as keywords that rebuild the value
    // (scikit-learn's print_changed_only): TrainingConfig(seq_len=4096, data=DataPipeline(pretokenized=False)).
    cls.def("__repr__", [tab = &table, nested](py::handle self) {
        const T& value = self.cast<const T&>();
        const T initial{};
        std::string out = std::string(py::str(py::type::handle_of(self).attr("__name__"))) + "(";
        bool first = true;
        const auto add = [&](const std::string& name, py::handle v) {
            out += (first ? "" : ", ") + name + "=" + std::string(py::repr(v));
            first = false;
        };
        for (const auto& o : tab->options) {
            const libscale::OptionValue v = o.get(value);
            if (v != o.get(initial)) add(std::string(o.name), to_py(v));
        }
        for (const auto& n : nested) {
            const py::object member = self.attr(n.c_str());
            const py::object fresh = py::type::handle_of(member)();
            if (std::string(py::repr(member)) != std::string(py::repr(fresh))) add(n, member);
        }
        return out + ")";
    });
    cls.def("__copy__", [](const T& self) { return T(self); });
    cls.def(
        "__deepcopy__", [](const T& self, const py::dict&) { return T(self); }, py::arg("memo"));
}

// The constructor: every option by keyword, made as libscale._core.spec.make_options makes
// the table's group (each value checked by the core, then the rules between options); the
// docstring lists the options with their types, defaults and units.
template <class T, class... Extra>
void def_option_init(py::class_<T, Extra...>& cls, const libscale::OptionTable<T>& table, const std::string& intro) {
    std::string doc = intro + "\n\nOptions (keyword only; each checked by the core):\n";
    const T defaults{};
    for (const auto& o : table.options)
        doc += "  " + option_doc_line(o.name, o.type, o.optional, o.unit, o.help, o.get(defaults)) + "\n";
    cls.def(py::init([group = std::string(table.group)](const py::kwargs& kwargs) {
                return make_options_py(group, kwargs).template cast<T>();
            }),
            doc.c_str());
}

}  // namespace libscale_py
