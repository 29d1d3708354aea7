// Binding a struct's fields from one list: each field's Python name, how Python sees it
// and its docstring are given once, in the C++ declaration order, and the same list
// defines the properties, the class attribute `_fields` (the names, in that order: what
// to_dict() iterates) and, where the class has one, the keyword constructor (every field
// by keyword, defaults from a value-initialized struct).
//
//   const auto f = fields(field("seq_len", &GateConfig::seq_len, "tokens"),
//                         enum_field("packer", &GateConfig::packer, parse_packer));
//   def_fields(cls, f, Access::read_only);
//   def_init(cls, f, "doc", [](GateConfig& c) { validate(c); });
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "common.hpp"
#include "libscale/estimate/step_fields.hpp"

namespace libscale_py {

enum class Access { read_only, read_write };

namespace detail {

// True or False (or a numpy bool) only: pybind11's bool caster takes any number through its
// __bool__, so qkv_bias = 2.5 or NaN would quietly become True.
inline bool strict_bool(py::handle v, const std::string& what) {
    if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
    const py::handle type = py::type::handle_of(v);
    if (py::str(type.attr("__module__")).cast<std::string>() == "numpy" &&
        py::str(type.attr("__name__")).cast<std::string>().rfind("bool", 0) == 0)
        return PyObject_IsTrue(v.ptr()) == 1;
    throw py::type_error(what + " = " + std::string(py::repr(v)) + "; expected True or False");
}

}  // namespace detail

// A member Python sees as is. Bound with def_readwrite / def_readonly, so a nested struct
// is a live reference (cfg.data.pretokenized = False writes through).
template <class T, class V>
struct MemberField {
    using Class = T;
    using Py = V;
    const char* name;
    V T::*member;
    const char* doc;

    Py get(const T& t) const { return t.*member; }
    void set(T& t, Py v) const { t.*member = std::move(v); }
    template <class Cls>
    void define(Cls& cls, Access access) const {
        if constexpr (std::is_same_v<V, bool>) {
            if (access == Access::read_write) {
                const std::string what = name;
                cls.def_property(
                    name, [m = member](const T& t) { return t.*m; },
                    [m = member, what](T& t, py::handle v) { t.*m = detail::strict_bool(v, what); }, doc);
                return;
            }
        }
        if (access == Access::read_write) cls.def_readwrite(name, member, doc);
        else cls.def_readonly(name, member, doc);
    }
};

// A field Python sees converted (an enum as its name, NaN as None, a part of a member):
// Get is P(const T&), Set is void(T&, P).
template <class T, class P, class Get, class Set>
struct PropertyField {
    using Class = T;
    using Py = P;
    const char* name;
    Get getter;
    Set setter;
    const char* doc;

    Py get(const T& t) const { return getter(t); }
    void set(T& t, Py v) const { setter(t, std::move(v)); }
    template <class Cls>
    void define(Cls& cls, Access access) const {
        if (access == Access::read_write) cls.def_property(name, getter, setter, doc);
        else cls.def_property_readonly(name, getter, doc);
    }
};

template <class T, class V>
MemberField<T, V> field(const char* name, V T::*member, const char* doc = "") {
    return {name, member, doc};
}

template <class P, class T, class Get, class Set>
PropertyField<T, P, Get, Set> property_field(const char* name, Get get, Set set, const char* doc = "") {
    return {name, std::move(get), std::move(set), doc};
}

// An enum member as the str its to_string gives; assignment parses (ValueError listing the
// valid names).
template <class T, class E, class Parse>
auto enum_field(const char* name, E T::*member, Parse parse, const char* doc = "") {
    return property_field<std::string, T>(
        name, [member](const T& t) { return std::string(to_string(t.*member)); },
        [member, parse](T& t, std::string v) { t.*member = parse(v); }, doc);
}

// A double whose NaN means "not set": None in Python.
template <class T>
auto optional_field(const char* name, double T::*member, const char* doc = "") {
    return property_field<std::optional<double>, T>(
        name, [member](const T& t) { return nan_to_none(t.*member); },
        [member](T& t, std::optional<double> v) { t.*member = none_to_nan(v); }, doc);
}

// A read-only member converted on the way out (no constructor keyword: use in output structs).
template <class P, class T, class Get>
auto output_field(const char* name, Get get, const char* doc = "") {
    return property_field<P, T>(
        name, std::move(get), [](T&, P) {}, doc);
}

template <class... F>
struct FieldList {
    std::tuple<F...> items;

    py::tuple names() const {
        py::tuple out(sizeof...(F));
        std::size_t i = 0;
        std::apply([&](const auto&... f) { ((out[i++] = py::str(f.name)), ...); }, items);
        return out;
    }
};

template <class... F>
FieldList<F...> fields(F... f) {
    return {std::tuple<F...>(std::move(f)...)};
}

namespace detail {

py::object plain_value(py::handle v);

// The fields in declaration order (`_fields`), then the derived read-only properties the
// class defines (memory_gib, ...), nested bound structs as dicts.
inline py::dict struct_dict(py::handle obj) {
    const py::handle type = py::type::handle_of(obj);
    const py::list names(type.attr("_fields"));
    py::dict out;
    for (const py::handle name : names) out[name] = plain_value(obj.attr(name));
    const py::object property = py::module_::import("builtins").attr("property");
    for (const auto item : py::dict(type.attr("__dict__"))) {
        if (py::isinstance(item.second, property) && !names.contains(item.first) && !out.contains(item.first))
            out[item.first] = plain_value(obj.attr(item.first));
    }
    return out;
}

inline py::object plain_value(py::handle v) {
    if (py::hasattr(py::type::handle_of(v), "_fields")) return struct_dict(v);
    if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
        py::list out;
        for (const py::handle x : v) out.append(plain_value(x));
        return out;
    }
    return py::reinterpret_borrow<py::object>(v);
}

}  // namespace detail

// `_fields` (the names in declaration order) and to_dict(), which iterates them.
template <class Cls>
void def_field_names(Cls& cls, const py::handle& names, const char* doc) {
    cls.attr("_fields") = py::tuple(py::reinterpret_borrow<py::object>(names));
    cls.def(
        "to_dict", [](py::handle self) { return detail::struct_dict(self); }, doc);
}

// Every field as a property, then `_fields` and to_dict().
template <class Cls, class... F>
void def_fields(Cls& cls, const FieldList<F...>& list, Access access) {
    std::apply([&](const auto&... f) { (f.define(cls, access), ...); }, list.items);
    def_field_names(cls, list.names(),
                    "The fields in declaration order, then derived properties; nested structs as dicts.");
}

struct NoCheck {
    template <class T>
    void operator()(const T&) const {}
};

namespace detail {

// What a keyword argument of type P is called in a message.
template <class P>
const char* expected_kind() {
    if constexpr (std::is_same_v<P, bool>) return "True or False";
    else if constexpr (std::is_integral_v<P>) return "an integer";
    else if constexpr (std::is_floating_point_v<P>) return "a number";
    else if constexpr (std::is_same_v<P, std::optional<double>>) return "a number or None";
    else if constexpr (std::is_same_v<P, std::string>) return "a string";
    else return nullptr;
}

template <class P>
std::string expected_text() {
    if (const char* kind = expected_kind<P>()) return kind;
    if constexpr (!std::is_base_of_v<py::handle, P>) {
        if (const auto* info = py::detail::get_type_info(typeid(P)))
            return "a " + std::string(py::str(py::handle(reinterpret_cast<PyObject*>(info->type)).attr("__name__")));
    }
    return "a value of C++ type " + py::type_id<P>();
}

template <class F>
bool set_from_object(typename F::Class& t, const F& f, const std::string& cls, py::handle value) {
    using P = typename F::Py;
    if constexpr (std::is_same_v<P, bool>) {
        f.set(t, strict_bool(value, cls + "(): " + f.name));
        return true;
    }
    if constexpr (std::is_same_v<P, double>) {
        // pybind11 converts a bool to 1.0: refuse it as the typed overload does.
        if (py::isinstance<py::bool_>(value))
            throw py::type_error(cls + "(): " + f.name + " = " + std::string(py::repr(value)) + "; expected a number");
    }
    try {
        f.set(t, value.cast<P>());
    } catch (const py::cast_error&) {
        throw py::type_error(cls + "(): " + f.name + " = " + std::string(py::repr(value)) + "; expected " +
                             expected_text<P>());
    }
    return true;
}

template <class T, class Tuple, std::size_t... I, class... P>
void set_all(T& t, const Tuple& items, std::index_sequence<I...>, P&&... values) {
    (std::get<I>(items).set(t, std::forward<P>(values)), ...);
}

}  // namespace detail

// The keyword constructor: every field of the list by keyword, in its order, defaulting to a
// value-initialized T's; then `check` (e.g. validate). A second overload takes the same
// keywords as **kwargs and names the unknown keyword or the field of the wrong type
// (pybind11's own message lists every overload instead); it also serves calls the typed
// overload would take only with conversions.
template <class Cls, class... F, class Check = NoCheck>
void def_init(Cls& cls, const FieldList<F...>& list, const char* doc, Check check = {}) {
    using T = typename Cls::type;
    const T d{};
    std::apply(
        [&](const auto&... f) {
            cls.def(py::init([list, check](typename F::Py... args) {
                        T t{};
                        detail::set_all(t, list.items, std::index_sequence_for<F...>{}, std::move(args)...);
                        check(t);
                        return t;
                    }),
                    py::kw_only(), (py::arg(f.name) = f.get(d))..., doc);
        },
        list.items);
    const std::string name = py::str(cls.attr("__name__"));
    cls.def(py::init([list, check, name](const py::kwargs& kwargs) {
                T t{};
                // Not a structured binding: clang before 16 cannot capture one in the lambda below.
                for (const auto& item : kwargs) {
                    const py::handle value = item.second;
                    const std::string k = py::str(item.first);
                    bool found = false;
                    std::apply(
                        [&](const auto&... f) {
                            ((found = found || (k == f.name && detail::set_from_object(t, f, name, value))), ...);
                        },
                        list.items);
                    if (!found) {
                        std::string valid;
                        for (const auto& n : list.names()) {
                            if (!valid.empty()) valid += ", ";
                            valid += std::string(py::str(n));
                        }
                        std::string message = name;
                        message += "(): unexpected keyword '";
                        message += k;
                        message += "'; valid: ";
                        message += valid;
                        throw py::type_error(message);
                    }
                }
                check(t);
                return t;
            }),
            "The same keywords, diagnosed: TypeError names an unknown keyword or a value of the wrong type.");
}

}  // namespace libscale_py

namespace libscale_py {

// "Name(a=1, b=2.5)" from the fields' C++ stream output (structs of numbers).
template <class T, class... F>
std::string fields_repr(const std::string& name, const FieldList<F...>& list, const T& t) {
    std::ostringstream os;
    os << name << '(';
    bool first = true;
    std::apply(
        [&](const auto&... f) { ((os << (first ? "" : ", ") << f.name << '=' << f.get(t), first = false), ...); },
        list.items);
    os << ')';
    return os.str();
}

// Every entry of a core output table (estimate/step_fields.hpp) as a read-only property,
// typed by the entry (int, float, bool) for the stubs, its docstring the help and unit.
// Returns the names in table order (the caller's `_fields`).
template <class Cls, class Field>
py::list def_output_fields(Cls& cls, std::span<const Field> table) {
    using T = typename Cls::type;
    py::list names;
    for (const Field& f : table) {
        const std::string doc = std::string(f.help) + (f.unit.empty() ? "" : " (" + std::string(f.unit) + ")");
        const std::string name(f.name);
        switch (f.type) {
            case libscale::FieldType::number:
                cls.def_property_readonly(
                    name.c_str(), [get = f.get](const T& x) { return get(x); }, doc.c_str());
                break;
            case libscale::FieldType::integer:
                cls.def_property_readonly(
                    name.c_str(), [get = f.get](const T& x) { return static_cast<std::int64_t>(get(x)); }, doc.c_str());
                break;
            case libscale::FieldType::boolean:
                cls.def_property_readonly(
                    name.c_str(), [get = f.get](const T& x) { return get(x) != 0; }, doc.c_str());
                break;
        }
        names.append(name);
    }
    return names;
}

}  // namespace libscale_py
