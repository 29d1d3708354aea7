// Shared helpers for the pybind11 binding files of libscale._core. The module has one
// submodule per capability of the core (io, spec, calibrate, estimate, gate, triage), and
// bindings/src one folder per submodule, each file with one register_* function.
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
    cls.def(
        "__deepcopy__", [](const T& self, py::dict) { return T(self); }, py::arg("memo"));
    return cls;
}

// NaN in C++ ("not set") is None in Python, and back.
inline std::optional<double> nan_to_none(double v) {
    if (std::isnan(v)) return std::nullopt;
    return v;
}
inline double none_to_nan(std::optional<double> v) { return v ? *v : std::numeric_limits<double>::quiet_NaN(); }

// One register function per binding file, each taking its submodule; module.cpp calls them
// in dependency order (a type is registered before any signature names it).
void register_errors(py::module_& core);    // libscale._core itself
void register_progress(py::module_& core);  // libscale._core.Progress, taken by long calls of several submodules

// libscale._core.io
void register_io_catalog(py::module_& io);
void register_io_trainer_log(py::module_& io);

// libscale._core.spec
void register_spec_model(py::module_& spec);
void register_spec_hardware(py::module_& spec);
void register_spec_training_config(py::module_& spec);
void register_spec_options(py::module_& spec);

// libscale._core.calibrate
void register_calibrate_calibration(py::module_& calibrate);
void register_calibrate_calibration_file(py::module_& calibrate);
void register_calibrate_measurement(py::module_& calibrate);
void register_calibrate_fit(py::module_& calibrate);
void register_calibrate_validation(py::module_& calibrate);

// libscale._core.estimate
void register_estimate_step(py::module_& estimate);
void register_estimate_compute(py::module_& estimate);
void register_estimate_projection(py::module_& estimate);
void register_estimate_sweep(py::module_& estimate);
void register_estimate_uncertainty(py::module_& estimate);
void register_estimate_scenario(py::module_& estimate);
void register_estimate_layouts(py::module_& estimate);

// libscale._core.gate
void register_gate_packing(py::module_& gate);
void register_gate_gate(py::module_& gate);

// libscale._core.triage
void register_triage_trace(py::module_& triage);
void register_triage_triage(py::module_& triage);
void register_triage_options(py::module_& triage);
void register_triage_stream(py::module_& triage);
void register_triage_nvml(py::module_& triage);

}  // namespace libscale_py
