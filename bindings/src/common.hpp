// Shared helpers for the pybind11 binding files of libscale._core. Each component has
// its own translation unit with one register_* function; module.cpp calls them in order.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every TU binding std::vector / std::optional must see the same casters

#include "libscale/calibrate/calibration.hpp"
#include "libscale/estimate/projection.hpp"
#include "libscale/spec/training_config.hpp"

namespace py = pybind11;

namespace libscale_py {

// __repr__ of any T: what the C++ operator<< prints.
template <class T>
std::string repr(const T& value) {
    std::ostringstream os;
    os << value;
    return os.str();
}

// Adds __repr__, __copy__ and __deepcopy__ to a bound value type.
template <class T, class... Extra>
py::class_<T, Extra...>& def_value_methods(py::class_<T, Extra...>& cls) {
    cls.def("__repr__", &repr<T>);
    cls.def("__copy__", [](const T& self) { return T(self); });
    cls.def("__deepcopy__", [](const T& self, py::dict) { return T(self); }, py::arg("memo"));
    return cls;
}

// NaN in C++ ("not set") is None in Python, and back.
inline std::optional<double> nan_to_none(double v) {
    if (std::isnan(v)) return std::nullopt;
    return v;
}
inline double none_to_nan(std::optional<double> v) {
    return v ? *v : std::numeric_limits<double>::quiet_NaN();
}

// One call per component, in dependency order (module.cpp).
void register_errors(py::module_& m);
void register_model(py::module_& m);
void register_hardware(py::module_& m);
void register_catalog(py::module_& m);
void register_step(py::module_& m);
void register_compute(py::module_& m);
void register_projection(py::module_& m);
void register_sweep(py::module_& m);
void register_fit(py::module_& m);
void register_calibration_file(py::module_& m);
void register_validation(py::module_& m);
void register_packing(py::module_& m);
void register_triage(py::module_& m);
void register_watch(py::module_& m);
void register_nvml(py::module_& m);

}  // namespace libscale_py
