// libscale._core.calibrate: validate(), the model against published step timings
// (calibrate/validation.hpp).
#include <filesystem>
#include <string>
#include <vector>

#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/calibrate/validation.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/json_io.hpp"

namespace libscale_py {

using namespace libscale;

void register_calibrate_validation(py::module_& m) {
    using R = ValidationRow;
    py::class_<ValidationRow> row(m, "ValidationRow", "One published step timing against the model.");
    def_fields(
        row,
        fields(field("file", &R::file, "the measurement file's name"), field("series", &R::series),
               field("record", &R::record, "index among the file's step records"), field("model", &R::model),
               field("hardware", &R::hardware), field("config", &R::config),
               output_field<std::string, R>(
                   "category", [](const R& r) { return std::string(1, r.category); },
                   "'x' the calibration row; 'a' other GPU count; 'b' other model; 'c' other configuration"),
               field("measured_tokens_per_s_per_gpu", &R::measured_tokens_per_s_per_gpu),
               field("default_ratio", &R::default_ratio, "the default calibration's tokens/s over the measured"),
               field("default_inside_p10_p90", &R::default_inside_p10_p90,
                     "the measured tokens/s lies within the default's P10-P90"),
               field("calibrated_error", &R::calibrated_error,
                     "tokens/s calibrated on the series' first row, over the measured, minus 1"),
               output_field<std::string, R>(
                   "fit_status", [](const R& r) { return std::string(to_string(r.fit_status)); },
                   "'fits', 'uncertain' or 'does_not_fit'"),
               field("memory_gib", &R::memory_gib, "estimated per GPU"), field("available_gib", &R::available_gib),
               field("published_memory_gib", &R::published_memory_gib, "when the source gives one (0: none)"),
               field("published_memory_kind", &R::published_memory_kind),
               field("memory_estimate_gib", &R::memory_estimate_gib,
                     "the estimate of what the published figure counts (allocated, reserved or nvidia-smi); NaN "
                     "without one"),
               field("memory_error", &R::memory_error, "memory_estimate_gib over the published figure, minus 1")),
        Access::read_only);

    using S = ValidationSeries;
    py::class_<ValidationSeries> series(m, "ValidationSeries", "One table of one codebase on one GPU.");
    def_fields(series,
               fields(field("file", &S::file), field("series", &S::series), field("hardware", &S::hardware),
                      field("rows", &S::rows), field("calibration", &S::calibration, "fitted to the first row")),
               Access::read_only);

    py::class_<ErrorSummary> summary(m, "ErrorSummary", "Absolute calibrated errors of one category.");
    def_fields(summary,
               fields(field("count", &ErrorSummary::count), field("median_abs", &ErrorSummary::median_abs),
                      field("max_abs", &ErrorSummary::max_abs)),
               Access::read_only);

    using V = ValidationReport;
    py::class_<ValidationReport> report(m, "ValidationReport", "Every series calibrated on its first row.");
    def_fields(
        report,
        fields(
            field("rows", &V::rows), field("series", &V::series),
            field("excluded", &V::excluded, "'file record N: reason'"),
            field("gpu_counts", &V::gpu_counts, "(a) other GPU counts"),
            field("model_sizes", &V::model_sizes, "(b) other models"),
            field("configurations", &V::configurations, "(c) other configurations"),
            field("fine_tuning_methods", &V::fine_tuning_methods, "(d) other fine-tuning methods or adapters"),
            field("parallel_layouts", &V::parallel_layouts, "(e) other tensor, sequence or context parallel degrees"),
            field("default_count", &V::default_count), field("default_ratio_median", &V::default_ratio_median),
            field("default_ratio_min", &V::default_ratio_min), field("default_ratio_max", &V::default_ratio_max),
            field("default_inside_p10_p90", &V::default_inside_p10_p90,
                  "rows whose measured tokens/s lies within the default's P10-P90"),
            field("not_fitting", &V::not_fitting, "published runs estimated not to fit (should be 0)"),
            field("memory", &V::memory, "peak memory against every published figure, like with like"),
            field("memory_allocated", &V::memory_allocated,
                  "peak memory against the figures of max_memory_allocated (or active)"),
            field("memory_reserved", &V::memory_reserved, "peak memory against the figures of max_memory_reserved")),
        Access::read_only);

    m.def(
        "validate",
        [](std::optional<std::vector<std::string>> paths, const FitOptions& options) {
            std::vector<NamedMeasurements> files;
            if (paths) {
                for (const std::string& p : *paths)
                    files.push_back({std::filesystem::path(p).filename().string(), read_measurements(p)});
            } else {
                for (const std::string& f : catalog_files())
                    if (f.rfind("measurements/", 0) == 0 && f.size() > 5 && f.substr(f.size() - 5) == ".json")
                        files.push_back({std::filesystem::path(f).filename().string(),
                                         measurements_from_json(parse_json(catalog_file(f), "calibration/data/" + f),
                                                                "calibration/data/" + f)});
            }
            py::gil_scoped_release release;
            return validate(files, options);
        },
        py::arg("paths") = py::none(), py::arg("options") = FitOptions{},
        "Calibrate each series of published step timings on its first row and predict the rest; paths None: "
        "the shipped series (calibration/data/measurements).");
}

}  // namespace libscale_py
