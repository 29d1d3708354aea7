// MeasurementSet, FitOptions, Coefficient, FamilyScore, FitResult and fit (GIL released).
// Measurement records come in as Python lists / dicts (converted to nlohmann::json here,
// validated by the core), as JSON text or as a file path.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>

#include <set>

#include "common.hpp"
#include "json_py.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/calibrate/fit.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/calibrate/measurement.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

std::vector<std::string> measurement_hardware(const MeasurementSet& m) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    auto add = [&](const std::string& h) {
        if (seen.insert(h).second) out.push_back(h);
    };
    for (const auto& r : m.gemm) add(r.hardware);
    for (const auto& r : m.attention) add(r.hardware);
    for (const auto& r : m.bandwidth) add(r.hardware);
    for (const auto& r : m.collectives) add(r.hardware);
    for (const auto& r : m.steps) add(r.hardware);
    for (const auto& r : m.power) add(r.hardware);
    return out;
}

py::array_t<double> to_numpy(const std::vector<double>& v) {
    py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

std::string fit_result_repr(const FitResult& r) {
    std::ostringstream os;
    os << "FitResult(hardware='" << r.calibration.hardware << "', records_used=" << r.records_used
       << ", fitted=[";
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

void register_fit(py::module_& m) {
    py::class_<MeasurementSet> ms(m, "MeasurementSet",
                                  "Validated measurement records (schema libscale.measurements/2; /1 files are "
                                  "read too).",
                                  py::dynamic_attr());
    ms.def(py::init<>())
        .def("__len__", &MeasurementSet::size)
        .def_property_readonly("gemm_count", [](const MeasurementSet& s) { return s.gemm.size(); })
        .def_property_readonly("attention_count", [](const MeasurementSet& s) { return s.attention.size(); })
        .def_property_readonly("bandwidth_count", [](const MeasurementSet& s) { return s.bandwidth.size(); })
        .def_property_readonly("collective_count", [](const MeasurementSet& s) { return s.collectives.size(); })
        .def_property_readonly("step_count", [](const MeasurementSet& s) { return s.steps.size(); })
        .def_property_readonly("power_count", [](const MeasurementSet& s) { return s.power.size(); })
        .def_property_readonly("hardware", &measurement_hardware,
                               "distinct hardware names of the records, in order of appearance")
        .def("to_json", [](const MeasurementSet& s) { return json_to_py(to_json(s)); },
             "The records as the measurement file's JSON object (dicts and lists).")
        .def("merge", [](MeasurementSet& a, const MeasurementSet& b) { merge(a, b); }, py::arg("other"),
             "Append other's records.")
        .def("__repr__", [](const MeasurementSet& s) {
            std::ostringstream os;
            os << "MeasurementSet(gemm=" << s.gemm.size() << ", attention=" << s.attention.size()
               << ", bandwidth=" << s.bandwidth.size() << ", collectives=" << s.collectives.size()
               << ", steps=" << s.steps.size() << ", power=" << s.power.size() << ')';
            return os.str();
        })
        .def("__copy__", [](const MeasurementSet& s) { return MeasurementSet(s); })
        .def("__deepcopy__", [](const MeasurementSet& s, py::dict) { return MeasurementSet(s); }, py::arg("memo"));

    m.def("measurements_from_json",
          [](py::handle records, const std::string& origin) {
              nlohmann::json j = py_to_json(records, origin);
              return measurements_from_json(j, origin);
          },
          py::arg("records"), py::arg("origin") = "<records>",
          "Records from a list of dicts (or {'schema': ..., 'records': [...]}); ParseError names the record "
          "and field.");
    m.def("measurements_from_json_text",
          [](const std::string& text, const std::string& origin) {
              return measurements_from_json(parse_json(text, origin), origin);
          },
          py::arg("text"), py::arg("origin") = "<text>");
    m.def("read_measurements", [](const std::string& path) { return read_measurements(path); }, py::arg("path"),
          py::call_guard<py::gil_scoped_release>(),
          "A libscale.measurements/2 (or /1) JSON file; v1 GEMM-chain records are refused with a message.");

    const FitOptions fo{};
    py::class_<FitOptions> opt(m, "FitOptions", "Options of fit().");
    opt.def(py::init([](bool fit_overhead, int max_iterations, double condition_limit, double relative_error,
                        std::map<std::string, double> prior_log_sd) {
                FitOptions o;
                o.fit_overhead = fit_overhead;
                o.max_iterations = max_iterations;
                o.condition_limit = condition_limit;
                o.relative_error = relative_error;
                o.prior_log_sd = std::move(prior_log_sd);
                return o;
            }),
            py::kw_only(), py::arg("fit_overhead") = fo.fit_overhead, py::arg("max_iterations") = fo.max_iterations,
            py::arg("condition_limit") = fo.condition_limit, py::arg("relative_error") = fo.relative_error,
            py::arg("prior_log_sd") = fo.prior_log_sd)
        .def_readwrite("fit_overhead", &FitOptions::fit_overhead, "fit step_overhead_s when the steps allow it")
        .def_readwrite("max_iterations", &FitOptions::max_iterations, "Levenberg-Marquardt iterations")
        .def_readwrite("condition_limit", &FitOptions::condition_limit, "above: the design is ill-conditioned")
        .def_readwrite("relative_error", &FitOptions::relative_error,
                       "1-sd relative error of each record that states none")
        .def_readwrite("prior_log_sd", &FitOptions::prior_log_sd,
                       "prior sd of log(value) per coefficient name; empty: the hardware's default file's prior "
                       "(a copy: assign a whole dict to change it)")
        .def("__repr__", [](const FitOptions& o) {
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

    py::class_<Coefficient> coef(m, "Coefficient", "One calibration parameter after a fit.");
    coef.def_readonly("name", &Coefficient::name)
        .def_readonly("value", &Coefficient::value)
        .def_readonly("std_error", &Coefficient::std_error, "posterior sd; 0 when kept from the prior")
        .def_readonly("prior_value", &Coefficient::prior_value, "value before the fit")
        .def_readonly("prior_log_sd", &Coefficient::prior_log_sd,
                      "prior sd of log(value) it was fitted under; 0 when not fitted (or flat prior)")
        .def_readonly("fitted", &Coefficient::fitted, "free in the fit")
        .def_readonly("identified", &Coefficient::identified,
                      "the data narrowed its prior (posterior log sd < 0.7 × prior log sd)")
        .def_readonly("note", &Coefficient::note)
        .def_property_readonly(
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
    fam.def_readonly("family", &FamilyScore::family)
        .def_readonly("parameters", &FamilyScore::parameters)
        .def_property_readonly("loo_relative_error",
                               [](const FamilyScore& f) { return nan_to_none(f.loo_relative_error); })
        .def_readonly("applicable", &FamilyScore::applicable)
        .def_readonly("note", &FamilyScore::note)
        .def("__repr__", [](const FamilyScore& f) {
            std::ostringstream os;
            os << "FamilyScore(family='" << f.family << "', parameters=" << f.parameters
               << ", loo_relative_error=" << f.loo_relative_error
               << ", applicable=" << (f.applicable ? "True" : "False") << ')';
            return os.str();
        });

    py::class_<FitResult> fr(m, "FitResult", "A fitted calibration with its covariance and quality.",
                             py::dynamic_attr());
    fr.def_readonly("calibration", &FitResult::calibration)
        .def_readonly("parameters", &FitResult::parameters, "names with an uncertainty, covariance order")
        .def_property_readonly("covariance", [](const FitResult& r) { return Eigen::MatrixXd(r.covariance); })
        .def_readonly("coefficients", &FitResult::coefficients)
        .def_readonly("unidentified", &FitResult::unidentified)
        .def_property_readonly("relative_residuals", [](const FitResult& r) { return to_numpy(r.relative_residuals); })
        .def_readonly("rms_relative_error", &FitResult::rms_relative_error)
        .def_property_readonly("loo_relative_error",
                               [](const FitResult& r) { return nan_to_none(r.loo_relative_error); })
        .def_readonly("families", &FitResult::families)
        .def_readonly("chosen_family", &FitResult::chosen_family)
        .def_readonly("family_reason", &FitResult::family_reason)
        .def_readonly("records_used", &FitResult::records_used)
        .def_readonly("prior_log_sd", &FitResult::prior_log_sd, "the prior used (kept for later refits)")
        .def("calibration_json",
             [](const FitResult& r, py::handle provenance) {
                 return json_to_py(calibration_to_json(r, py_to_json(provenance, "provenance")));
             },
             py::arg("provenance") = py::dict(), "The calibration file's JSON object (libscale.calibration/2).")
        .def("__repr__", &fit_result_repr)
        .def("__copy__", [](const FitResult& r) { return FitResult(r); })
        .def("__deepcopy__", [](const FitResult& r, py::dict) { return FitResult(r); }, py::arg("memo"));

    m.def("fit",
          [](const MeasurementSet& data, const HardwareProfile& hardware, const std::optional<Calibration>& prior,
             const FitOptions& options) {
              return fit(data, hardware, prior ? *prior : default_calibration(hardware), options);
          },
          py::arg("data"), py::arg("hardware"), py::kw_only(), py::arg("prior") = py::none(),
          py::arg("options") = FitOptions{}, py::call_guard<py::gil_scoped_release>(),
          "Fit a calibration to the records for this hardware, by maximum a posteriori (prior None: the "
          "hardware's default; options.prior_log_sd empty: its default file's prior).");

    m.def("write_fit_calibration",
          [](const std::string& path, const FitResult& r, py::handle provenance) {
              const std::string text = calibration_to_json(r, py_to_json(provenance, "provenance")).dump(2) + "\n";
              py::gil_scoped_release release;
              write_file_atomic(path, text);
          },
          py::arg("path"), py::arg("fit"), py::arg("provenance") = py::dict(),
          "Write the fitted calibration file atomically (temporary file, then rename).");
}

}  // namespace libscale_py
