// libscale._core.estimate: Job, ProjectionRow, Projection, Solution and the configuration
// project() evaluates at each count (estimate/projection.hpp). project and the solvers
// take a Scenario and are bound with it (scenario.cpp).
#include "libscale/estimate/projection.hpp"
#include "../common.hpp"
#include "../fields.hpp"
#include "../option_fields.hpp"
#include "libscale/estimate/fit_advice.hpp"
#include "libscale/estimate/step_fields.hpp"

namespace libscale_py {

using namespace libscale;

void register_estimate_projection(py::module_& m) {
    py::class_<Job> job_cls(m, "Job", "The training job: tokens per epoch, epochs, price.");
    def_option_init(job_cls, job_options(), "Every job option by keyword (price None: the hardware's default price).");
    def_option_fields(job_cls, job_options(), Access::read_write);
    job_cls.def("validate", &Job::validate, "Raise ValueError naming the first invalid field.");

    // The step, then the row's numbers from the field table (estimate/step_fields.hpp), then
    // its text fields; `_fields` in that order (what to_dict iterates).
    py::class_<ProjectionRow> row(m, "ProjectionRow", "One GPU count of a projection.");
    row.def_readonly("step", &ProjectionRow::step, "the step estimate at this GPU count");
    py::list names;
    names.append("step");
    for (const py::handle n : def_output_fields(row, row_fields())) names.append(n);
    row.def_property_readonly(
           "fit_status", [](const ProjectionRow& r) { return std::string(to_string(r.step.memory.status)); },
           "step.memory.status: 'fits', 'uncertain' or 'does_not_fit'")
        .def_readonly("fit_suggestion", &ProjectionRow::fit_suggestion,
                      "what would make it fit when step.memory.status is not 'fits' ('' otherwise)");
    names.append("fit_status");
    names.append("fit_suggestion");
    def_field_names(row, names, "The step (a dict), then the row's figures, in declaration order.");
    def_value_methods(row);

    using F = FitChange;
    py::class_<FitChange> change(m, "FitChange", "One change that makes a configuration fit in GPU memory.");
    def_fields(change,
               fields(field("change", &F::change, "the change in the API's keyword spelling"),
                      field("config", &F::config, "the configuration with the change"),
                      field("memory_gib", &F::memory_gib, "the memory estimate with the change (total_gib)"),
                      field("step_time_s", &F::step_time_s), field("tokens_per_s_per_gpu", &F::tokens_per_s_per_gpu),
                      field("gpu_hours_ratio", &F::gpu_hours_ratio,
                            "GPU-hours for the same tokens relative to the configuration as given"),
                      field("caveat", &F::caveat, "what else the change alters ('' when only time and memory)")),
               Access::read_only);
    def_value_methods(change);
    using A = FitAdvice;
    py::class_<FitAdvice> advice(m, "FitAdvice", "What would make a configuration fit, and how far it can grow.");
    def_fields(advice,
               fields(field("step", &A::step, "the configuration as given"),
                      field("changes", &A::changes, "each alone makes it fit; cheapest first"),
                      field("max_micro_batch", &A::max_micro_batch,
                            "largest micro-batch that fits, every other option as given (0: none)"),
                      field("max_seq_len", &A::max_seq_len,
                            "largest sequence length that fits, up to max_position_embeddings (0: none)")),
               Access::read_only);
    def_value_methods(advice);

    using P = Projection;
    // No dynamic_attr: libscale.ProjectionResult (results) holds this with its plan and quantiles.
    py::class_<Projection> proj(m, "Projection", "A projection over GPU counts (rows in ascending GPU count).");
    def_fields(
        proj,
        fields(output_field<std::string, P>(
                   "scaling", [](const P& p) { return std::string(to_string(p.scaling)); }, "'strong' or 'weak'"),
               field("job", &P::job), field("price_per_gpu_hour_usd", &P::price_per_gpu_hour_usd, "as applied"),
               field("rows", &P::rows, "ascending GPU count"),
               field("comm_exposed_from_gpus", &P::comm_exposed_from_gpus,
                     "smallest GPU count at which communication stops hiding under compute, or None")),
        Access::read_only);
    def_value_methods(proj);

    // No dynamic_attr: libscale.SolutionResult (results) holds this with its plan and target.
    py::class_<Solution> sol(m, "Solution", "The answer of solve_deadline / solve_budget.");
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

    m.def(
        "projection_configs",
        [](const TrainingConfig& config, std::vector<std::int64_t> gpus, std::string_view scaling) {
            return projection_configs(config, std::move(gpus), parse_scaling(scaling));
        },
        py::arg("config"), py::arg("gpus"), py::arg("scaling") = "strong",
        "The configuration project() evaluates at each count (ascending, duplicates removed).");
}

}  // namespace libscale_py
