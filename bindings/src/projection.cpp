// Job, ProjectionRow, Projection, Solution; project and the deadline / budget solvers
// (GIL released while they run).
#include "common.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/estimate/projection.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

Calibration calibration_or_default(const std::optional<Calibration>& cal, const HardwareProfile& hw) {
    return cal ? *cal : default_calibration(hw);
}

}  // namespace

void register_projection(py::module_& m) {
    const Job dj{};
    py::class_<Job> job_cls(m, "Job", "The training job: tokens per epoch, epochs, price.");
    job_cls.def(py::init([](double tokens, double epochs, std::optional<double> price_per_gpu_hour_usd) {
                Job j;
                j.tokens = tokens;
                j.epochs = epochs;
                j.price_per_gpu_hour_usd = none_to_nan(price_per_gpu_hour_usd);
                return j;
            }),
            py::kw_only(), py::arg("tokens") = dj.tokens, py::arg("epochs") = dj.epochs,
            py::arg("price_per_gpu_hour_usd") = py::none(),
            "price_per_gpu_hour_usd None: the hardware's default price (an assumption to override).")
        .def_readwrite("tokens", &Job::tokens, "tokens per epoch")
        .def_readwrite("epochs", &Job::epochs)
        .def_property(
            "price_per_gpu_hour_usd", [](const Job& j) { return nan_to_none(j.price_per_gpu_hour_usd); },
            [](Job& j, std::optional<double> v) { j.price_per_gpu_hour_usd = none_to_nan(v); },
            "USD per GPU-hour, or None for the hardware's default")
        .def("validate", &Job::validate, "Raise ValueError naming the first invalid field.");
    def_value_methods(job_cls);

    py::class_<ProjectionRow> row(m, "ProjectionRow", "One GPU count of a projection.");
    row.def_readonly("step", &ProjectionRow::step)
        .def_readonly("speedup", &ProjectionRow::speedup, "tokens/s over the smallest count's")
        .def_readonly("scaling_efficiency", &ProjectionRow::scaling_efficiency,
                      "speedup / (gpus / smallest gpus)")
        .def_readonly("steps", &ProjectionRow::steps, "optimizer steps for the job")
        .def_readonly("wall_time_h", &ProjectionRow::wall_time_h)
        .def_readonly("gpu_hours", &ProjectionRow::gpu_hours)
        .def_readonly("cost_usd", &ProjectionRow::cost_usd)
        .def_readonly("energy_kwh", &ProjectionRow::energy_kwh)
        .def_readonly("fit_suggestion", &ProjectionRow::fit_suggestion,
                      "what would make it fit when step.memory.status is not 'fits' ('' otherwise)")
        // The memory verdict at the row's level, as `libscale project --json` rows carry it.
        .def_property_readonly("fits", [](const ProjectionRow& r) { return r.step.memory.fits; },
                               "step.memory.fits: the status is not 'does_not_fit'")
        .def_property_readonly(
            "fit_status", [](const ProjectionRow& r) { return std::string(to_string(r.step.memory.status)); },
            "step.memory.status: 'fits', 'uncertain' or 'does_not_fit'")
        .def_property_readonly("needed_gib", [](const ProjectionRow& r) { return r.step.memory.total_gib; },
                               "step.memory.total_gib")
        .def_property_readonly("available_gib", [](const ProjectionRow& r) { return r.step.memory.available_gib; },
                               "step.memory.available_gib");
    def_value_methods(row);

    py::class_<Projection> proj(m, "Projection", "A projection over GPU counts (rows in ascending GPU count).",
                                py::dynamic_attr());
    proj.def_property_readonly("scaling", [](const Projection& p) { return std::string(to_string(p.scaling)); })
        .def_readonly("job", &Projection::job)
        .def_readonly("price_per_gpu_hour_usd", &Projection::price_per_gpu_hour_usd, "as applied")
        .def_readonly("rows", &Projection::rows)
        .def_readonly("comm_exposed_from_gpus", &Projection::comm_exposed_from_gpus,
                      "smallest GPU count at which communication stops hiding under compute, or None");
    def_value_methods(proj);

    py::class_<Solution> sol(m, "Solution", "The answer of solve_deadline / solve_budget.", py::dynamic_attr());
    sol.def_readonly("found", &Solution::found)
        .def_property_readonly(
            "row", [](const Solution& s) -> std::optional<ProjectionRow> {
                if (!s.found) return std::nullopt;
                return s.row;
            },
            "the chosen GPU count's row, or None when nothing meets the target")
        .def_readonly("candidates", &Solution::candidates,
                      "every valid count evaluated, fitting or not (the chosen row fits)");
    def_value_methods(sol);

    m.def("project",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config,
             std::vector<std::int64_t> gpus, std::string_view scaling, const Job& job,
             const std::optional<Calibration>& calibration) {
              return project(model, hardware, calibration_or_default(calibration, hardware), config,
                             std::move(gpus), parse_scaling(scaling), job);
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"), py::arg("gpus"), py::kw_only(),
          py::arg("scaling") = "strong", py::arg("job") = Job{}, py::arg("calibration") = py::none(),
          py::call_guard<py::gil_scoped_release>(),
          "Project over GPU counts. Strong scaling keeps config.global_batch_tokens (0: the smallest count "
          "with no accumulation); weak keeps the per-GPU batch. A count that does not fit is projected all the "
          "same: its row's step.memory says so and fit_suggestion says what would fit (see require_fit).");

    m.def("projection_configs",
          [](const TrainingConfig& config, std::vector<std::int64_t> gpus, std::string_view scaling) {
              return projection_configs(config, std::move(gpus), parse_scaling(scaling));
          },
          py::arg("config"), py::arg("gpus"), py::kw_only(), py::arg("scaling") = "strong",
          "The configuration project() evaluates at each count (ascending, duplicates removed).");

    m.def("solve_deadline",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config,
             const std::vector<std::int64_t>& gpus, double deadline_h, std::string_view scaling, const Job& job,
             const std::optional<Calibration>& calibration) {
              return solve_deadline(model, hardware, calibration_or_default(calibration, hardware), config, gpus,
                                    parse_scaling(scaling), job, deadline_h);
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"), py::arg("gpus"), py::kw_only(),
          py::arg("deadline_h"), py::arg("scaling") = "strong", py::arg("job") = Job{},
          py::arg("calibration") = py::none(), py::call_guard<py::gil_scoped_release>(),
          "The cheapest fitting GPU count whose wall time meets deadline_h.");

    m.def("solve_budget",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config,
             const std::vector<std::int64_t>& gpus, std::optional<double> max_gpu_hours,
             std::optional<double> max_cost_usd, std::string_view scaling, const Job& job,
             const std::optional<Calibration>& calibration) {
              return solve_budget(model, hardware, calibration_or_default(calibration, hardware), config, gpus,
                                  parse_scaling(scaling), job, none_to_nan(max_gpu_hours), none_to_nan(max_cost_usd));
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"), py::arg("gpus"), py::kw_only(),
          py::arg("max_gpu_hours") = py::none(), py::arg("max_cost_usd") = py::none(),
          py::arg("scaling") = "strong", py::arg("job") = Job{}, py::arg("calibration") = py::none(),
          py::call_guard<py::gil_scoped_release>(),
          "The fastest fitting GPU count whose GPU-hours and cost stay under the caps (None: no cap).");
}

}  // namespace libscale_py
