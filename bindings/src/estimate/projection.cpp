// libscale._core.estimate: Job, ProjectionRow, Projection, Solution; project and the
// deadline / budget solvers (estimate/projection.hpp; the GIL is released while they run).
// Arguments in the C++ order; calibration None: the hardware's default.
#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/estimate/projection.hpp"
#include "libscale/io/catalog.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

Calibration calibration_or_default(const std::optional<Calibration>& cal, const HardwareProfile& hw) {
    return cal ? *cal : default_calibration(hw);
}

}  // namespace

void register_estimate_projection(py::module_& m) {
    const auto job_fields =
        fields(field("tokens", &Job::tokens, "tokens per epoch"), field("epochs", &Job::epochs),
               optional_field("price_per_gpu_hour_usd", &Job::price_per_gpu_hour_usd,
                              "USD per GPU-hour, or None for the hardware's default (an assumption to override)"));
    py::class_<Job> job_cls(m, "Job", "The training job: tokens per epoch, epochs, price.");
    def_init(job_cls, job_fields, "Every field by keyword; price_per_gpu_hour_usd None: the hardware's default price.");
    def_fields(job_cls, job_fields, Access::read_write);
    job_cls.def("validate", &Job::validate, "Raise ValueError naming the first invalid field.");
    def_value_methods(job_cls);

    using R = ProjectionRow;
    py::class_<ProjectionRow> row(m, "ProjectionRow", "One GPU count of a projection.");
    def_fields(row,
               fields(field("step", &R::step), field("speedup", &R::speedup, "tokens/s over the smallest count's"),
                      field("scaling_efficiency", &R::scaling_efficiency, "speedup / (gpus / smallest gpus)"),
                      field("steps", &R::steps, "optimizer steps for the job"),
                      field("wall_time_h", &R::wall_time_h, "total tokens / tokens per second"),
                      field("gpu_hours", &R::gpu_hours, "gpus × wall hours"), field("cost_usd", &R::cost_usd),
                      field("energy_kwh", &R::energy_kwh),
                      field("fit_suggestion", &R::fit_suggestion,
                            "what would make it fit when step.memory.status is not 'fits' ('' otherwise)")),
               Access::read_only);
    // The memory verdict at the row's level, as `libscale project --json` rows carry it.
    row.def_property_readonly("fits", [](const ProjectionRow& r) { return r.step.memory.fits; },
                              "step.memory.fits: the status is not 'does_not_fit'")
        .def_property_readonly(
            "fit_status", [](const ProjectionRow& r) { return std::string(to_string(r.step.memory.status)); },
            "step.memory.status: 'fits', 'uncertain' or 'does_not_fit'")
        .def_property_readonly("needed_gib", [](const ProjectionRow& r) { return r.step.memory.total_gib; },
                               "step.memory.total_gib")
        .def_property_readonly("available_gib", [](const ProjectionRow& r) { return r.step.memory.available_gib; },
                               "step.memory.available_gib");
    def_value_methods(row);

    using P = Projection;
    // dynamic_attr: libscale.project attaches its inputs (model, hardware, ...) and quantiles.
    py::class_<Projection> proj(m, "Projection", "A projection over GPU counts (rows in ascending GPU count).",
                                py::dynamic_attr());
    def_fields(proj,
               fields(output_field<std::string, P>(
                          "scaling", [](const P& p) { return std::string(to_string(p.scaling)); },
                          "'strong' or 'weak'"),
                      field("job", &P::job), field("price_per_gpu_hour_usd", &P::price_per_gpu_hour_usd, "as applied"),
                      field("rows", &P::rows, "ascending GPU count"),
                      field("comm_exposed_from_gpus", &P::comm_exposed_from_gpus,
                            "smallest GPU count at which communication stops hiding under compute, or None")),
               Access::read_only);
    def_value_methods(proj);

    // dynamic_attr: the solvers attach their inputs and target.
    py::class_<Solution> sol(m, "Solution", "The answer of solve_deadline / solve_budget.", py::dynamic_attr());
    def_fields(sol,
               fields(field("found", &Solution::found),
                      output_field<std::optional<ProjectionRow>, Solution>(
                          "row",
                          [](const Solution& s) -> std::optional<ProjectionRow> {
                              if (!s.found) return std::nullopt;
                              return s.row;
                          },
                          "the chosen GPU count's row, or None when nothing meets the target"),
                      field("candidates", &Solution::candidates,
                            "every valid count evaluated, fitting or not (the chosen row fits)")),
               Access::read_only);
    def_value_methods(sol);

    m.def("project",
          [](const ModelSpec& model, const HardwareProfile& hardware, const std::optional<Calibration>& calibration,
             const TrainingConfig& config, std::vector<std::int64_t> gpus, std::string_view scaling, const Job& job) {
              return project(model, hardware, calibration_or_default(calibration, hardware), config, std::move(gpus),
                             parse_scaling(scaling), job);
          },
          py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"), py::arg("gpus"),
          py::arg("scaling") = "strong", py::arg("job") = Job{}, py::call_guard<py::gil_scoped_release>(),
          "Project over GPU counts. Strong scaling keeps config.global_batch_tokens (0: the smallest count "
          "with no accumulation); weak keeps the per-GPU batch. A count that does not fit is projected all the "
          "same: its row's step.memory says so and fit_suggestion says what would fit (see require_fit).");

    m.def("projection_configs",
          [](const TrainingConfig& config, std::vector<std::int64_t> gpus, std::string_view scaling) {
              return projection_configs(config, std::move(gpus), parse_scaling(scaling));
          },
          py::arg("config"), py::arg("gpus"), py::arg("scaling") = "strong",
          "The configuration project() evaluates at each count (ascending, duplicates removed).");

    m.def("solve_deadline",
          [](const ModelSpec& model, const HardwareProfile& hardware, const std::optional<Calibration>& calibration,
             const TrainingConfig& config, const std::vector<std::int64_t>& gpus, std::string_view scaling,
             const Job& job, double deadline_h) {
              return solve_deadline(model, hardware, calibration_or_default(calibration, hardware), config, gpus,
                                    parse_scaling(scaling), job, deadline_h);
          },
          py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"), py::arg("gpus"),
          py::arg("scaling"), py::arg("job"), py::arg("deadline_h"), py::call_guard<py::gil_scoped_release>(),
          "The cheapest fitting GPU count whose wall time meets deadline_h.");

    m.def("solve_budget",
          [](const ModelSpec& model, const HardwareProfile& hardware, const std::optional<Calibration>& calibration,
             const TrainingConfig& config, const std::vector<std::int64_t>& gpus, std::string_view scaling,
             const Job& job, std::optional<double> max_gpu_hours, std::optional<double> max_cost_usd) {
              return solve_budget(model, hardware, calibration_or_default(calibration, hardware), config, gpus,
                                  parse_scaling(scaling), job, none_to_nan(max_gpu_hours), none_to_nan(max_cost_usd));
          },
          py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"), py::arg("gpus"),
          py::arg("scaling"), py::arg("job"), py::arg("max_gpu_hours"), py::arg("max_cost_usd"),
          py::call_guard<py::gil_scoped_release>(),
          "The fastest fitting GPU count whose GPU-hours and cost stay under the caps (None: no cap).");
}

}  // namespace libscale_py
