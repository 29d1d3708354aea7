// libscale._core: the compiled part of the libscale Python package. The public API is
// the pure-Python package around it (bindings/libscale); this module only exposes the
// C++ core. One register_* per component, each in its own file.
#include "common.hpp"

#ifndef LIBSCALE_VERSION
#define LIBSCALE_VERSION "0+unknown"
#endif

PYBIND11_MODULE(_core, m) {
    m.doc() = "libscale C++ core (private; use the `libscale` package)";
    m.attr("__version__") = LIBSCALE_VERSION;
    libscale_py::register_errors(m);
    libscale_py::register_model(m);
    libscale_py::register_hardware(m);
    libscale_py::register_catalog(m);
    libscale_py::register_step(m);
    libscale_py::register_compute(m);
    libscale_py::register_projection(m);
    libscale_py::register_sweep(m);
    libscale_py::register_fit(m);
    libscale_py::register_calibration_file(m);
    libscale_py::register_validation(m);
    libscale_py::register_packing(m);
    libscale_py::register_triage(m);
    libscale_py::register_watch(m);
    libscale_py::register_nvml(m);
}
