// validate(): the model against published step timings (libscale/include/libscale/calibrate/validation.hpp).
#include <filesystem>
#include <string>
#include <vector>

#include "common.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/calibrate/validation.hpp"

namespace libscale_py {

using namespace libscale;

void register_validation(py::module_& m) {
    py::class_<ValidationRow> row(m, "ValidationRow", "One published step timing against the model.");
    row.def_readonly("file", &ValidationRow::file)
        .def_readonly("series", &ValidationRow::series)
        .def_readonly("record", &ValidationRow::record)
        .def_readonly("model", &ValidationRow::model)
        .def_readonly("hardware", &ValidationRow::hardware)
        .def_readonly("config", &ValidationRow::config)
        .def_property_readonly("category", [](const ValidationRow& r) { return std::string(1, r.category); },
                               "'x' the calibration row; 'a' other GPU count; 'b' other model; 'c' other configuration")
        .def_readonly("measured_tokens_per_s_per_gpu", &ValidationRow::measured_tokens_per_s_per_gpu)
        .def_readonly("default_ratio", &ValidationRow::default_ratio,
                      "the default calibration's tokens/s over the measured")
        .def_readonly("calibrated_error", &ValidationRow::calibrated_error,
                      "tokens/s calibrated on the series' first row, over the measured, minus 1")
        .def_property_readonly("fit_status", [](const ValidationRow& r) { return std::string(to_string(r.fit_status)); })
        .def_readonly("memory_gib", &ValidationRow::memory_gib)
        .def_readonly("available_gib", &ValidationRow::available_gib)
        .def_readonly("published_memory_gib", &ValidationRow::published_memory_gib)
        .def_readonly("published_memory_kind", &ValidationRow::published_memory_kind);

    py::class_<ValidationSeries>(m, "ValidationSeries")
        .def_readonly("file", &ValidationSeries::file)
        .def_readonly("series", &ValidationSeries::series)
        .def_readonly("hardware", &ValidationSeries::hardware)
        .def_readonly("rows", &ValidationSeries::rows)
        .def_readonly("calibration", &ValidationSeries::calibration);

    py::class_<ErrorSummary>(m, "ErrorSummary")
        .def_readonly("count", &ErrorSummary::count)
        .def_readonly("median_abs", &ErrorSummary::median_abs)
        .def_readonly("max_abs", &ErrorSummary::max_abs);

    py::class_<ValidationReport>(m, "ValidationReport")
        .def_readonly("rows", &ValidationReport::rows)
        .def_readonly("series", &ValidationReport::series)
        .def_readonly("excluded", &ValidationReport::excluded)
        .def_readonly("gpu_counts", &ValidationReport::gpu_counts, "(a) other GPU counts")
        .def_readonly("model_sizes", &ValidationReport::model_sizes, "(b) other models")
        .def_readonly("configurations", &ValidationReport::configurations, "(c) other configurations")
        .def_readonly("default_count", &ValidationReport::default_count)
        .def_readonly("default_ratio_median", &ValidationReport::default_ratio_median)
        .def_readonly("default_ratio_min", &ValidationReport::default_ratio_min)
        .def_readonly("default_ratio_max", &ValidationReport::default_ratio_max)
        .def_readonly("not_fitting", &ValidationReport::not_fitting);

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
