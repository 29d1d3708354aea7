// libscale._core.estimate: MemoryBreakdown (estimate/memory_model.hpp), StepBreakdown and
// the step model's entry points and configuration checks (estimate/step_model.hpp).
// Arguments in the C++ order; calibration None: the hardware's default.
#include <stdexcept>
#include <string>

#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/estimate/fit_advice.hpp"
#include "libscale/estimate/memory_model.hpp"
#include "libscale/estimate/step_fields.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

// An output table as Python sees it: one dict per entry (step_fields(), row_fields()).
template <class Field>
py::typing::List<py::typing::Dict<py::str, py::object>> describe_fields(std::span<const Field> table) {
    py::typing::List<py::typing::Dict<py::str, py::object>> out;
    for (const Field& f : table) {
        py::typing::Dict<py::str, py::object> d;
        d["name"] = std::string(f.name);
        d["type"] = to_string(f.type);
        d["unit"] = std::string(f.unit);
        d["label"] = std::string(f.label);
        d["format"] = std::string(f.format);
        d["help"] = std::string(f.help);
        py::list uses;
        if (f.uses & in_sweep) uses.append("sweep");
        if (f.uses & step_part) uses.append("part");
        if (f.uses & step_total) uses.append("total");
        if (f.uses & in_projection) uses.append("projection");
        d["uses"] = uses;
        out.append(d);
    }
    return out;
}

Calibration calibration_or_default(const std::optional<Calibration>& cal, const HardwareProfile& hw) {
    return cal ? *cal : default_calibration(hw);
}

}  // namespace

void register_estimate_step(py::module_& m) {
    // The numbers from the output table (estimate/step_fields.hpp), then the phase and the
    // verdict; `_fields` in that order (what to_dict iterates).
    py::class_<MemoryBreakdown> mem(m, "MemoryBreakdown", "Memory per GPU, GiB.");
    py::list memory_names = def_output_fields(mem, memory_fields());
    mem.def_property_readonly(
           "peak_phase", [](const MemoryBreakdown& x) { return std::string(to_string(x.peak_phase)); },
           "the phase whose live tensors are the peak: 'forward', 'loss', 'backward', 'reduction' or 'optimizer'")
        // In the step's order (a dict keeps it), typed for the stubs.
        .def_property_readonly(
            "phase_gib",
            [](const MemoryBreakdown& x) {
                py::typing::Dict<py::str, py::float_> d;
                for (std::size_t i = 0; i < MemoryBreakdown::kPhases; ++i)
                    d[to_string(static_cast<MemoryPhase>(i))] = x.phase_gib[i];
                return d;
            },
            "allocated in each phase of the step (the peak is their maximum), GiB")
        .def_property_readonly(
            "status", [](const MemoryBreakdown& x) { return std::string(to_string(x.status)); },
            "'fits' (with the margin), 'uncertain' (the limit lies within the margin) or 'does_not_fit'");
    for (const char* name : {"peak_phase", "phase_gib", "status"}) memory_names.append(name);
    def_field_names(mem, memory_names, "The numbers, then the peak's phase, each phase's GiB and the verdict.");
    def_value_methods(mem);

    // Every output from the field table (estimate/step_fields.hpp), typed for the stubs, then
    // the memory breakdown; `_fields` in that order (what to_dict iterates).
    py::class_<StepBreakdown> step_cls(m, "StepBreakdown", "One optimizer step: time per phase, throughput, memory.");
    py::list names = def_output_fields(step_cls, step_fields());
    step_cls.def_readonly("memory", &StepBreakdown::memory, "memory per GPU, by term and phase");
    names.append("memory");
    def_field_names(step_cls, names, "The fields in declaration order; the memory breakdown as a dict.");
    m.def(
        "step_fields", [] { return describe_fields(step_fields()); },
        "The step estimate's outputs as the core declares them, in StepBreakdown's order: name, type "
        "('integer', 'number', 'boolean'), unit, label, format ('integer', 'fixed:N', 'percent:N', 'yes_no'), "
        "help and uses ('sweep': a sweep column, 'part': a part of the step time, 'total': a total beside the "
        "parts, 'projection': a column of a projection's table).");
    m.def(
        "memory_fields", [] { return describe_fields(memory_fields()); },
        "The memory breakdown's numbers as the core declares them (the keys of step_fields()).");
    m.def(
        "row_fields", [] { return describe_fields(row_fields()); },
        "A projection row's numbers beside its step, as the core declares them (the keys of step_fields()).");
    def_value_methods(step_cls);

    m.def(
        "estimate_step",
        [](const ModelSpec& model, const HardwareProfile& hardware, const std::optional<Calibration>& calibration,
           const TrainingConfig& config) {
            return estimate_step(model, hardware, calibration_or_default(calibration, hardware), config);
        },
        py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"),
        py::call_guard<py::gil_scoped_release>(),
        "Validate everything, then estimate one step. Does not raise when the model does not fit "
        "(memory.fits says so; see require_fit). calibration None: default_calibration(hardware).");

    m.def(
        "require_fit",
        [](const ModelSpec& model, const HardwareProfile& hardware, const std::optional<Calibration>& calibration,
           const TrainingConfig& config, const StepBreakdown& step) {
            require_fit(model, hardware, calibration_or_default(calibration, hardware), config, step);
        },
        py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"), py::arg("step"),
        "Raise DoesNotFitError (needed vs available GiB and what would fit) when step.memory.fits is false.");

    m.def(
        "validate_calibration_for",
        [](const Calibration& calibration, const TrainingConfig& config) {
            validate_calibration_for(calibration, config);
        },
        py::arg("calibration"), py::arg("config"),
        "Raise ValueError when the configuration needs what the calibration lacks (fp8 GEMM coefficients).");

    m.def(
        "optimizer_bytes_per_parameter",
        [](const ModelSpec& model, const TrainingConfig& config) {
            model.validate();
            return optimizer_bytes_per_parameter(model, count_parameters(model), config);
        },
        py::arg("model"), py::arg("config"),
        "Bytes per parameter the optimizer holds beyond the bf16 weights and gradients (fp32 masters, states).");

    m.def(
        "optimizer_step_s",
        [](const ModelSpec& model, const HardwareProfile& hardware, const std::optional<Calibration>& calibration,
           const TrainingConfig& config) {
            const Calibration cal = calibration_or_default(calibration, hardware);
            model.validate();
            hardware.validate();
            cal.validate();
            validate_config(model, hardware, config);
            return optimizer_step_s(plan_fine_tuning(model, count_parameters(model), config), hardware, cal, config);
        },
        py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"),
        "The optimizer's step over the local shard, s (bytes over HBM).");

    m.def(
        "fit_suggestion",
        [](const ModelSpec& model, const HardwareProfile& hardware, const std::optional<Calibration>& calibration,
           const TrainingConfig& config) {
            return fit_suggestion(model, hardware, calibration_or_default(calibration, hardware), config);
        },
        py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"),
        "What would make a non-fitting configuration fit ('' if nothing).");

    m.def(
        "validate_config",
        [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config) {
            validate_config(model, hardware, config);
        },
        py::arg("model"), py::arg("hardware"), py::arg("config"),
        "Raise ValueError naming the field, its value and what would be valid.");

    m.def(
        "check_config",
        [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config) {
            return static_cast<int>(check_config(model, hardware, config));
        },
        py::arg("model"), py::arg("hardware"), py::arg("config"),
        "The configuration's issue code (0: none; describe_issue(code) says what it means).");
}

}  // namespace libscale_py
