#include "libscale/calibrate/validation.hpp"

#include "libscale/estimate/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "libscale/calibrate/plausibility.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/estimate/uncertainty.hpp"
#include "libscale/io/catalog.hpp"

namespace libscale {

namespace {

ErrorSummary summarize(std::vector<double> errors) {
    ErrorSummary s;
    s.count = errors.size();
    if (errors.empty()) return s;
    for (double& e : errors) e = std::abs(e);
    std::sort(errors.begin(), errors.end());
    s.median_abs = quantile_sorted(errors, 0.5);
    s.max_abs = errors.back();
    return s;
}

// What differs from the calibration row decides the category.
char category_of(const StepRun& row, const StepRun& ref) {
    // A model cut to other dimensions (model_overrides: fewer layers) is another size.
    // (A longer max_position_embeddings, for a run past the config's positions, changes no size.)
    const auto sizes = [](nlohmann::json o) {
        if (o.is_object()) o.erase("max_position_embeddings");
        return o.is_object() && o.empty() ? nlohmann::json() : o;
    };
    if (row.model != ref.model || sizes(row.model_overrides) != sizes(ref.model_overrides)) return 'b';
    // Another fine-tuning method (full, LoRA, QLoRA, DoRA) or its adapters: trains other
    // parameters, whatever else differs.
    for (const char* name : {"fine_tuning", "lora_rank", "lora_targets", "base_weights", "train_embeddings"}) {
        const auto& o = find_option(training_options(), name);
        if (o.get(row.config) != o.get(ref.config)) return 'd';
    }
    // Another device mesh: tensor, sequence or context parallel degrees, or how their
    // collectives run (and with them what each layer's critical path holds), whatever else
    // differs.
    for (const char* name : {"tensor_parallel", "sequence_parallel", "async_tensor_parallel", "context_parallel",
                             "context_parallel_method"}) {
        const auto& o = find_option(training_options(), name);
        if (o.get(row.config) != o.get(ref.config)) return 'e';
    }
    // Any training option other than the GPU count and the global batch (which strong
    // scaling changes with it) makes the row a different configuration; so does another
    // global batch at the same GPU count (more gradient accumulation).
    for (const auto& o : training_options().options)
        if (o.name != "gpus" && o.name != "global_batch_tokens" && o.get(row.config) != o.get(ref.config)) return 'c';
    if (row.config.gpus == ref.config.gpus && row.config.global_batch_tokens != ref.config.global_batch_tokens)
        return 'c';
    if (row.hardware != ref.hardware) return 'c';
    return 'a';
}

}  // namespace

ValidationReport validate(const std::vector<NamedMeasurements>& files, const FitOptions& options) {
    ValidationReport out;
    std::vector<double> by_category[5], ratios, memory_errors, allocated_errors, reserved_errors;
    for (const NamedMeasurements& file : files) {
        // Series in the file's order; each keeps its rows in table order.
        std::vector<std::string> order;
        std::map<std::string, std::vector<std::size_t>> series;
        for (std::size_t i = 0; i < file.set.steps.size(); ++i) {
            const StepRun& s = file.set.steps[i];
            if (!s.validation_exclude.empty()) {
                out.excluded.push_back(file.name + " record " + std::to_string(i) + ": " + s.validation_exclude);
                continue;
            }
            if (!series.contains(s.series)) order.push_back(s.series);
            series[s.series].push_back(i);
        }
        for (const std::string& name : order) {
            const std::vector<std::size_t>& idx = series[name];
            const StepRun& ref = file.set.steps[idx.front()];
            const HardwareProfile hw = find_hardware(ref.hardware);
            const CalibrationFile def_file = default_calibration_file(hw);
            const Calibration& def = def_file.calibration;
            MeasurementSet one;
            one.steps.push_back(ref);
            const std::string where = file.name + " record " + std::to_string(idx.front());
            FitResult fitted;
            try {
                fitted = fit(one, hw, def, options);
            } catch (const std::invalid_argument& e) {
                throw std::invalid_argument(where + " (calibration row of series '" + name + "'): " + e.what());
            }
            out.series.push_back({file.name, name, hw.name, idx.size(), fitted.calibration});
            for (std::size_t k = 0; k < idx.size(); ++k) {
                const StepRun& s = file.set.steps[idx[k]];
                const ModelSpec m = find_model(s.model, s.model_overrides);
                const ParameterCounts p = count_parameters(m);
                if (s.hardware != ref.hardware && find_hardware(s.hardware).name != hw.name)
                    throw std::invalid_argument(file.name + " record " + std::to_string(idx[k]) + ": hardware '" +
                                                s.hardware + "' differs from its series' calibration row ('" + hw.name +
                                                "'); a calibration applies to one GPU, so give it its own series");
                try {
                    validate_config(m, hw, s.config);
                    check_memory_plausible(idx[k], s, hw);
                } catch (const std::invalid_argument& e) {
                    throw std::invalid_argument(file.name + " record " + std::to_string(idx[k]) + ": " + e.what());
                }
                const double measured = static_cast<double>(s.config.global_batch_tokens) / s.step_time_s;
                const StepBreakdown d = estimate_step_unchecked(m, p, hw, def, s.config);
                const StepBreakdown c = estimate_step_unchecked(m, p, hw, fitted.calibration, s.config);
                ValidationRow row;
                row.file = file.name;
                row.series = name;
                row.record = idx[k];
                row.model = s.model;
                row.hardware = hw.name;
                row.config = s.config;
                row.category = k == 0 ? 'x' : category_of(s, ref);
                row.measured_tokens_per_s_per_gpu = measured / static_cast<double>(s.config.gpus);
                row.default_ratio = d.tokens_per_s / measured;
                row.calibrated_error = c.tokens_per_s / measured - 1.0;
                row.fit_status = c.memory.status;
                row.memory_gib = c.memory.total_gib;
                row.available_gib = c.memory.available_gib;
                row.published_memory_gib = s.memory_gib;
                row.published_memory_kind = s.memory_kind;
                if (s.memory_gib > 0) {
                    row.memory_estimate_gib = memory_of_kind(c.memory, s.memory_kind);
                    row.memory_error = row.memory_estimate_gib / s.memory_gib - 1.0;
                    memory_errors.push_back(row.memory_error);
                    if (s.memory_kind == "allocated" || s.memory_kind == "active")
                        allocated_errors.push_back(row.memory_error);
                    else if (s.memory_kind == "reserved") reserved_errors.push_back(row.memory_error);
                }
                const Scenario scenario{m, hw, def_file, s.config};
                const Quantiles q =
                    projection_quantiles(scenario, {s.config.gpus}, Scaling::strong, Job{}).front().tokens_per_s;
                row.default_inside_p10_p90 = q.p10 <= measured && measured <= q.p90;
                out.default_inside_p10_p90 += row.default_inside_p10_p90 ? 1 : 0;
                ratios.push_back(row.default_ratio);
                if (row.category != 'x') by_category[row.category - 'a'].push_back(row.calibrated_error);
                // A run that ran must not be called out of memory; within the margin is allowed.
                if (c.memory.status == FitStatus::does_not_fit) ++out.not_fitting;
                out.rows.push_back(std::move(row));
            }
        }
    }
    if (out.rows.empty()) {
        // An empty report would print ratios of x0.00 as if measured.
        std::string names;
        for (const NamedMeasurements& f : files) names += (names.empty() ? "" : ", ") + f.name;
        throw std::invalid_argument("nothing to validate: no step record" +
                                    std::string(out.excluded.empty() ? "" : " that is not left out") + " in " +
                                    (names.empty() ? std::string("no file") : names) +
                                    "; validate compares step timings (kind \"step\") with the model");
    }
    out.memory = summarize(memory_errors);
    out.memory_allocated = summarize(allocated_errors);
    out.memory_reserved = summarize(reserved_errors);
    out.gpu_counts = summarize(by_category[0]);
    out.model_sizes = summarize(by_category[1]);
    out.configurations = summarize(by_category[2]);
    out.fine_tuning_methods = summarize(by_category[3]);
    out.parallel_layouts = summarize(by_category[4]);
    out.default_count = ratios.size();
    if (!ratios.empty()) {
        std::sort(ratios.begin(), ratios.end());
        out.default_ratio_median = quantile_sorted(ratios, 0.5);
        out.default_ratio_min = ratios.front();
        out.default_ratio_max = ratios.back();
    }
    return out;
}

}  // namespace libscale
