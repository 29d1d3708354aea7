// libscale._core.estimate: Scenario (estimate/scenario.hpp) — model, hardware, calibration
// file and training configuration in one object — and the estimates that take it: a
// step, a projection over GPU counts, the solvers and projection quantiles (the GIL is
// released while they run). The Python Plan holds one Scenario.
#include <string_view>
#include <vector>

#include "../common.hpp"
#include "libscale/estimate/fit_advice.hpp"
#include "libscale/estimate/projection.hpp"
#include "libscale/estimate/scenario.hpp"
#include "libscale/estimate/uncertainty.hpp"

namespace libscale_py {

using namespace libscale;

void register_estimate_scenario(py::module_& m) {
    py::class_<Scenario> cls(m, "Scenario",
                             "A model on a hardware profile, with a calibration file and a training "
                             "configuration: what every estimate is of.");
    // Not validated here: Scenario::validate (run by every estimate) names what is wrong,
    // the calibration's hardware included.
    cls.def(py::init([](ModelSpec model, HardwareProfile hardware, CalibrationFile calibration, TrainingConfig config) {
                return Scenario{std::move(model), std::move(hardware), std::move(calibration), std::move(config)};
            }),
            py::kw_only(), py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"))
        .def(
            "copy", [](const Scenario& s) { return Scenario(s); }, "A copy.")
        .def_readwrite("model", &Scenario::model)
        .def_readwrite("hardware", &Scenario::hardware)
        .def_readwrite("calibration", &Scenario::calibration)
        .def_readwrite("config", &Scenario::config)
        .def("validate", &Scenario::validate,
             "Raise ValueError for the first invalid part: model, hardware, calibration (and that it was made "
             "for this hardware), configuration.");
    cls.attr("_fields") = py::make_tuple("model", "hardware", "calibration", "config");

    m.def("estimate_step", py::overload_cast<const Scenario&>(&estimate_step), py::arg("scenario"),
          py::call_guard<py::gil_scoped_release>(),
          "One optimizer step of the scenario (validates everything; does not raise when it does not fit).");
    m.def("require_fit", py::overload_cast<const Scenario&, const StepBreakdown&>(&require_fit), py::arg("scenario"),
          py::arg("step"),
          "Raise DoesNotFitError (needed vs available GiB, what would fit) when the step does not fit.");
    m.def("fit_suggestion", py::overload_cast<const Scenario&>(&fit_suggestion), py::arg("scenario"),
          py::call_guard<py::gil_scoped_release>(),
          "What would make a non-fitting scenario fit ('' if nothing found).");
    m.def("fit_advice", py::overload_cast<const Scenario&>(&fit_advice), py::arg("scenario"),
          py::call_guard<py::gil_scoped_release>(),
          "What would make the scenario fit (each change with its GPU-hour cost, cheapest first) and the largest "
          "micro-batch and sequence length that fit.");
    m.def("fit_advice_text", &fit_advice_text, py::arg("advice"), py::arg("max_changes") = 4,
          "The advice as a sentence ('' when there is no change).");
    m.def(
        "project",
        [](const Scenario& s, std::vector<std::int64_t> gpus, std::string_view scaling, const Job& job) {
            return project(s, std::move(gpus), parse_scaling(scaling), job);
        },
        py::arg("scenario"), py::arg("gpus"), py::arg("scaling") = "strong", py::arg("job") = Job{},
        py::call_guard<py::gil_scoped_release>(),
        "Project over GPU counts. Strong scaling keeps config.global_batch_tokens (0: the smallest count with no "
        "accumulation); weak keeps the per-GPU batch. A count that does not fit is projected all the same: its "
        "row's step.memory says so and fit_suggestion says what would fit.");
    m.def(
        "solve_deadline",
        [](const Scenario& s, const std::vector<std::int64_t>& gpus, std::string_view scaling, const Job& job,
           double deadline_h) { return solve_deadline(s, gpus, parse_scaling(scaling), job, deadline_h); },
        py::arg("scenario"), py::arg("gpus"), py::arg("scaling"), py::arg("job"), py::arg("deadline_h"),
        py::call_guard<py::gil_scoped_release>(), "The cheapest GPU count whose wall time meets deadline_h.");
    m.def(
        "solve_budget",
        [](const Scenario& s, const std::vector<std::int64_t>& gpus, std::string_view scaling, const Job& job,
           double max_gpu_hours, double max_cost_usd) {
            return solve_budget(s, gpus, parse_scaling(scaling), job, max_gpu_hours, max_cost_usd);
        },
        py::arg("scenario"), py::arg("gpus"), py::arg("scaling"), py::arg("job"), py::arg("max_gpu_hours"),
        py::arg("max_cost_usd"), py::call_guard<py::gil_scoped_release>(),
        "The fastest GPU count within the caps (NaN: no cap).");
    m.def(
        "projection_quantiles",
        [](const Scenario& s, const std::vector<std::int64_t>& gpus, std::string_view scaling, const Job& job,
           const UncertaintyOptions& options) {
            return projection_quantiles(s, gpus, parse_scaling(scaling), job, options);
        },
        py::arg("scenario"), py::arg("gpus"), py::arg("scaling") = "strong", py::arg("job") = Job{},
        py::arg("options") = UncertaintyOptions{}, py::call_guard<py::gil_scoped_release>(),
        "P10 / P50 / P90 of each projected figure per GPU count, drawn from the calibration's covariance.");
}

}  // namespace libscale_py
