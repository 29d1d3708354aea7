// libscale._core: the compiled part of the libscale Python package. The public API is
// the pure-Python package around it (bindings/libscale); this module only exposes the
// C++ core, one submodule per capability of the core (libscale/src/<capability>), each
// bound by the files of bindings/src/<capability>:
//
//   libscale._core            __version__, the exception types (errors.cpp) and Progress
//                             (progress.cpp), which the long calls of several submodules take
//   libscale._core.spec       models, hardware, training configurations, FLOP counting
//   libscale._core.io         the shipped catalog, the torchtitan log scanner
//   libscale._core.calibrate  calibrations, calibration files, measurements, the fitter, validation
//   libscale._core.estimate   compute laws, the step model, projections, solvers, sweeps, uncertainty
//   libscale._core.gate       sequence packing and the pre-launch packing gate
//   libscale._core.triage     power traces, bands, triage, live streams, NVML
//
// The order below is the dependency order: pybind11 writes a parameter's type as its
// Python name (libscale._core.spec.ModelSpec) only once that type is registered.
#include "common.hpp"

#ifndef LIBSCALE_VERSION
#define LIBSCALE_VERSION "0+unknown"
#endif

PYBIND11_MODULE(_core, m) {
    namespace b = libscale_py;
    m.doc() =
        "libscale C++ core (private; use the `libscale` package). One submodule per capability: "
        "spec, io, calibrate, estimate, gate, triage.";
    m.attr("__version__") = LIBSCALE_VERSION;
    b::register_errors(m);
    b::register_progress(m);

    // def_submodule also enters each in sys.modules, so `import libscale._core.spec` works.
    py::module_ spec = m.def_submodule("spec", "Models, hardware profiles, training configurations, FLOP counting.");
    b::register_spec_model(spec);
    b::register_spec_hardware(spec);
    b::register_spec_training_config(spec);
    b::register_spec_options(spec);

    py::module_ io = m.def_submodule(
        "io", "The shipped catalog: models, hardware profiles, data files; the torchtitan log scanner.");
    b::register_io_catalog(io);
    b::register_io_trainer_log(io);

    // Before calibrate: its FitResult names triage's PowerBands in its signatures.
    py::module_ triage =
        m.def_submodule("triage", "GPU power traces, power bands, offline triage, live triage streams and NVML.");
    b::register_triage_trace(triage);
    b::register_triage_triage(triage);
    b::register_triage_options(triage);
    b::register_triage_stream(triage);
    b::register_triage_nvml(triage);

    py::module_ calibrate =
        m.def_submodule("calibrate",
                        "Calibrations and their coefficient table, calibration files, measurements, the fitter, "
                        "validation against published step timings.");
    b::register_calibrate_calibration(calibrate);
    b::register_calibrate_measurement(calibrate);
    b::register_calibrate_fit(calibrate);
    b::register_calibrate_calibration_file(calibrate);
    b::register_calibrate_validation(calibrate);

    py::module_ estimate =
        m.def_submodule("estimate",
                        "The compute laws, the step and memory model, projections over GPU counts, the deadline and "
                        "budget solvers, vectorized sweeps and projection quantiles.");
    b::register_estimate_compute(estimate);
    b::register_estimate_step(estimate);
    b::register_estimate_projection(estimate);
    b::register_estimate_uncertainty(estimate);
    b::register_estimate_scenario(estimate);
    b::register_estimate_sweep(estimate);
    b::register_estimate_layouts(estimate);

    py::module_ gate = m.def_submodule("gate", "Sequence packing as trainers do it and the pre-launch packing gate.");
    b::register_gate_packing(gate);
    b::register_gate_gate(gate);
}
