// libscale._core.calibrate: FitOptions, Coefficient, FamilyScore, FitResult and fit
// (calibrate/fit.hpp; the fit runs with the GIL released, reporting to an optional
// Progress), and the fitted calibration file's JSON (calibrate/calibration_file.hpp).
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../common.hpp"
#include "../fields.hpp"
#include "../json_py.hpp"
#include "../progress.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/calibrate/fit.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/json_io.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

template <class T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
    py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

std::string fit_result_repr(const FitResult& r) {
    std::ostringstream os;
    os << "FitResult(hardware='" << r.calibration.hardware << "', records_used=" << r.records_used << ", fitted=[";
    bool first = true;
    for (const auto& c : r.coefficients) {
        if (!c.fitted) continue;
        os << (first ? "" : ", ") << c.name << '=' << c.value;
        first = false;
    }
    os << "], rms_relative_error=" << r.rms_relative_error << ", loo_relative_error=" << r.loo_relative_error
       << ", chosen_family='" << r.chosen_family << "')";
    return os.str();
}

}  // namespace

void register_calibrate_fit(py::module_& m) {
    using O = FitOptions;
    const auto opt_fields =
        fields(field("fit_overhead", &O::fit_overhead, "fit step_overhead_s when the steps allow it"),
               field("max_iterations", &O::max_iterations, "Levenberg-Marquardt iterations"),
               field("condition_limit", &O::condition_limit, "above: the design is ill-conditioned"),
               field("relative_error", &O::relative_error, "1-sd relative error of each record that states none"),
               field("prior_log_sd", &O::prior_log_sd,
                     "prior sd of log(value) per coefficient name; empty: the hardware's default file's prior "
                     "(a copy: assign a whole dict to change it)"));
    py::class_<FitOptions> opt(m, "FitOptions", "Options of fit().");
    def_init(opt, opt_fields, "Every field by keyword.");
    def_fields(opt, opt_fields, Access::read_write);
    opt.def("__repr__", [](const FitOptions& o) {
        std::ostringstream os;
        os << "FitOptions(fit_overhead=" << (o.fit_overhead ? "True" : "False")
           << ", max_iterations=" << o.max_iterations << ", condition_limit=" << o.condition_limit
           << ", relative_error=" << o.relative_error << ", prior_log_sd={";
        bool first = true;
        for (const auto& [name, sd] : o.prior_log_sd) {
            os << (first ? "" : ", ") << '\'' << name << "': " << sd;
            first = false;
        }
        os << "})";
        return os.str();
    });

    using K = Coefficient;
    py::class_<Coefficient> coef(m, "Coefficient", "One calibration parameter after a fit.");
    def_fields(coef,
               fields(field("name", &K::name), field("value", &K::value),
                      field("std_error", &K::std_error, "posterior sd; 0 when kept from the prior"),
                      field("prior_value", &K::prior_value, "value before the fit"),
                      field("prior_log_sd", &K::prior_log_sd,
                            "prior sd of log(value) it was fitted under; 0 when not fitted (or flat prior)"),
                      field("fitted", &K::fitted, "free in the fit"),
                      field("identified", &K::identified,
                            "the data narrowed its prior (posterior log sd < 0.7 × prior log sd)"),
                      field("measured", &K::measured, "set from records directly (power), not fitted"),
                      field("note", &K::note, "how it was determined")),
               Access::read_only);
    coef.def_property_readonly(
            "interval_80",
            [](const Coefficient& c) -> std::optional<std::pair<double, double>> {
                // z of the normal's 90th percentile. The fit is normal in log(value) for a
                // coefficient with a log-normal prior (std_error = value · sd of the log, the
                // delta method), so its interval is value·exp(±z·std_error/value); a
                // flat-prior one (step_overhead_s) is normal in the value itself.
                constexpr double z = 1.2815515655446004;
                if (!c.fitted || !std::isfinite(c.std_error) || c.std_error <= 0) return std::nullopt;
                if (c.prior_log_sd > 0 && c.value > 0) {
                    const double f = std::exp(z * c.std_error / c.value);
                    return std::make_pair(c.value / f, c.value * f);
                }
                return std::make_pair(c.value - z * c.std_error, c.value + z * c.std_error);
            },
            "(low, high) of the 80% interval: value·exp(±1.2816·std_error/value) for a coefficient fitted in "
            "log space (prior_log_sd > 0), else value ± 1.2816·std_error; None when not fitted")
        .def("__repr__", [](const Coefficient& c) {
            std::ostringstream os;
            os << "Coefficient(name='" << c.name << "', value=" << c.value << ", std_error=" << c.std_error
               << ", prior_value=" << c.prior_value << ", fitted=" << (c.fitted ? "True" : "False")
               << ", identified=" << (c.identified ? "True" : "False") << ')';
            return os.str();
        });

    py::class_<FamilyScore> fam(m, "FamilyScore", "Leave-one-out score of one scaling-model family.");
    def_fields(fam,
               fields(field("family", &FamilyScore::family, "'mechanistic', 'amdahl' or 'usl'"),
                      field("parameters", &FamilyScore::parameters),
                      output_field<std::optional<double>, FamilyScore>(
                          "loo_relative_error", [](const FamilyScore& f) { return nan_to_none(f.loo_relative_error); },
                          "mean |pred − obs| / obs, leave-one-out; None when not computed"),
                      field("applicable", &FamilyScore::applicable, "enough points, one configuration series"),
                      field("note", &FamilyScore::note)),
               Access::read_only);
    fam.def("__repr__", [](const FamilyScore& f) {
        std::ostringstream os;
        os << "FamilyScore(family='" << f.family << "', parameters=" << f.parameters
           << ", loo_relative_error=" << f.loo_relative_error << ", applicable=" << (f.applicable ? "True" : "False")
           << ')';
        return os.str();
    });

    using R = FitResult;
    // No dynamic_attr: libscale.FitResult (results) holds this with the hardware and sources.
    py::class_<FitResult> fr(m, "FitResult", "A fitted calibration with its covariance and quality.");
    def_fields(
        fr,
        fields(field("calibration", &R::calibration, "the prior with the fitted values in place"),
               field("parameters", &R::parameters, "names with an uncertainty, covariance order"),
               output_field<Eigen::MatrixXd, FitResult>(
                   "covariance", [](const FitResult& r) { return Eigen::MatrixXd(r.covariance); },
                   "of `parameters`, natural units"),
               field("coefficients", &R::coefficients, "every coefficient, fitted or kept"),
               field("unidentified", &R::unidentified, "'name: reason' for what the data cannot pin down"),
               field("notes", &R::notes, "records the fit set aside, and why"),
               field("power_bands", &R::power_bands, "from the power records of all five phases; None otherwise"),
               field("power_bands_note", &R::power_bands_note,
                     "why the power records gave no bands ('' when they did, or there were none)"),
               output_field<py::array_t<double>, FitResult>(
                   "relative_residuals", [](const FitResult& r) { return to_numpy(r.relative_residuals); },
                   "(pred − obs)/obs per record used: intra-node collectives, cross-node collectives, GEMM, "
                   "attention, bandwidth, steps, each in input order"),
               output_field<py::array_t<double>, FitResult>(
                   "loo_relative_errors", [](const FitResult& r) { return to_numpy(r.loo_relative_errors); },
                   "per record, as relative_residuals: (pred − obs)/obs with the record left out (steps: "
                   "refit up to 32, else leverage; collectives: leverage, exact for their linear fit); NaN "
                   "where none (GEMM, attention, bandwidth micro-runs; an unfitted collective level; a "
                   "single step)"),
               field("record_kinds", &R::record_kinds,
                     "per record, as relative_residuals: its measurement kind ('collective', 'gemm', "
                     "'attention', 'bandwidth', 'step')"),
               output_field<py::array_t<std::uint64_t>, FitResult>(
                   "record_indices",
                   [](const FitResult& r) {
                       return to_numpy(std::vector<std::uint64_t>(r.record_indices.begin(), r.record_indices.end()));
                   },
                   "per record, as relative_residuals: its index in its kind's list of the MeasurementSet"),
               field("rms_relative_error", &R::rms_relative_error),
               output_field<std::optional<double>, FitResult>(
                   "loo_relative_error", [](const FitResult& r) { return nan_to_none(r.loo_relative_error); },
                   "mean |leave-one-out relative error|; None when no stage has more points than parameters"),
               field("families", &R::families, "end-to-end step series only"),
               field("chosen_family", &R::chosen_family), field("family_reason", &R::family_reason),
               field("records_used", &R::records_used),
               field("prior_log_sd", &R::prior_log_sd, "the prior used (kept for later refits)")),
        Access::read_only);
    fr.def(
          "calibration_json",
          [](const FitResult& r, py::handle provenance) {
              return json_to_py(calibration_to_json(r, py_to_json(provenance, "provenance")));
          },
          py::arg("provenance") = py::dict(), "The calibration file's JSON object (libscale.calibration/2).")
        .def("__repr__", &fit_result_repr)
        .def("__copy__", [](const FitResult& r) { return FitResult(r); })
        .def(
            "__deepcopy__", [](const FitResult& r, py::dict) { return FitResult(r); }, py::arg("memo"));

    m.def(
        "fit",
        [](const MeasurementSet& data, const HardwareProfile& hardware, const std::optional<Calibration>& prior,
           const FitOptions& options, Progress* progress) {
            return run_released(progress, [&] {
                return fit(data, hardware, prior ? *prior : default_calibration(hardware), options, progress);
            });
        },
        py::arg("data"), py::arg("hardware"), py::arg("prior") = py::none(), py::arg("options") = FitOptions{},
        py::kw_only(), py::arg("progress") = nullptr,
        "Fit a calibration to the records for this hardware, by maximum a posteriori (prior None: the "
        "hardware's default; options.prior_log_sd empty: its default file's prior). progress counts "
        "Levenberg-Marquardt iterations, max_iterations per planned solve (an upper bound: a solve that "
        "converges early adds the rest at once).");

    m.def(
        "write_fit_calibration",
        [](const std::string& path, const FitResult& r, py::handle provenance) {
            const std::string text = calibration_to_json(r, py_to_json(provenance, "provenance")).dump(2) + "\n";
            py::gil_scoped_release release;
            write_file_atomic(path, text);
        },
        py::arg("path"), py::arg("fit"), py::arg("provenance") = py::dict(),
        "Write the fitted calibration file atomically (temporary file, then rename).");
}

}  // namespace libscale_py
