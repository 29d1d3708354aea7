// CalibrationFile (read / write, with its covariance as a numpy array and its quality /
// provenance / sources as Python dicts), and the projection quantiles (GIL released).
#include <pybind11/eigen.h>

#include "common.hpp"
#include "json_py.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/estimate/uncertainty.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

std::string quantiles_repr(const Quantiles& q) {
    std::ostringstream os;
    os << "Quantiles(p10=" << q.p10 << ", p50=" << q.p50 << ", p90=" << q.p90 << ')';
    return os.str();
}

}  // namespace

void register_calibration_file(py::module_& m) {
    py::class_<CalibrationFile> cf(m, "CalibrationFile",
                                   "A calibration with its uncertainty, quality and provenance "
                                   "(schema libscale.calibration/2).",
                                   py::dynamic_attr());
    cf.def(py::init([](const Calibration& calibration) {
               CalibrationFile f;
               f.calibration = calibration;
               return f;
           }),
           py::arg("calibration"), "A bare calibration: no covariance, so no uncertainty.")
        .def_readonly("calibration", &CalibrationFile::calibration)
        .def_readonly("parameters", &CalibrationFile::parameters, "names with an uncertainty, covariance order")
        .def_property_readonly("covariance", [](const CalibrationFile& f) { return Eigen::MatrixXd(f.covariance); })
        .def_property_readonly("kind", [](const CalibrationFile& f) { return f.calibration.kind; })
        .def_property_readonly("hardware", [](const CalibrationFile& f) { return f.calibration.hardware; })
        .def_property_readonly("source", [](const CalibrationFile& f) { return f.calibration.source; })
        .def_property_readonly("quality", [](const CalibrationFile& f) { return json_to_py(f.quality); })
        .def_property_readonly("provenance", [](const CalibrationFile& f) { return json_to_py(f.provenance); })
        .def_property_readonly("sources", [](const CalibrationFile& f) { return json_to_py(f.sources); })
        .def_readonly("prior_log_sd", &CalibrationFile::prior_log_sd,
                      "the fitter's prior: sd of log(value) per coefficient name")
        .def("to_json", [](const CalibrationFile& f) { return json_to_py(calibration_to_json(f)); },
             "The file's JSON object.")
        .def("__repr__", [](const CalibrationFile& f) {
            std::ostringstream os;
            os << "CalibrationFile(kind='" << f.calibration.kind << "', hardware='" << f.calibration.hardware
               << "', source='" << f.calibration.source << "', parameters=[";
            for (std::size_t i = 0; i < f.parameters.size(); ++i) os << (i ? ", " : "") << '\'' << f.parameters[i] << '\'';
            os << "])";
            return os.str();
        })
        .def("__copy__", [](const CalibrationFile& f) { return CalibrationFile(f); })
        .def("__deepcopy__", [](const CalibrationFile& f, py::dict) { return CalibrationFile(f); }, py::arg("memo"));

    m.def("read_calibration_file", &read_calibration_file, py::arg("path"), py::arg("hardware"),
          py::call_guard<py::gil_scoped_release>(),
          "A calibration file (either form), or a shipped one by name (e.g. 'derived-b300-qwen3-32b'). "
          "ParseError names the file and field, including a hardware mismatch and a libscale.calibration/1 "
          "file (one efficiency for every FLOP: refit it).");
    m.def("calibration_from_json",
          [](py::handle obj, const HardwareProfile& hw, const std::string& origin) {
              return calibration_from_json(py_to_json(obj, origin), hw, origin);
          },
          py::arg("obj"), py::arg("hardware"), py::arg("origin") = "<calibration>");
    m.def("calibration_to_json", [](const CalibrationFile& f) { return json_to_py(calibration_to_json(f)); },
          py::arg("file"));
    m.def("write_calibration_file",
          [](const std::string& path, const CalibrationFile& f) {
              const std::string text = calibration_to_json(f).dump(2) + "\n";
              py::gil_scoped_release release;
              write_file_atomic(path, text);
          },
          py::arg("path"), py::arg("file"), "Write atomically (temporary file, then rename).");

    py::class_<Quantiles> q(m, "Quantiles", "P10 / P50 / P90 of one projected figure.");
    q.def_readonly("p10", &Quantiles::p10).def_readonly("p50", &Quantiles::p50).def_readonly("p90", &Quantiles::p90);
    q.def("__repr__", &quantiles_repr);

    py::class_<RowQuantiles> rq(m, "RowQuantiles", "The quantiles of one GPU count's projected figures.");
    rq.def_readonly("gpus", &RowQuantiles::gpus)
        .def_readonly("step_time_s", &RowQuantiles::step_time_s)
        .def_readonly("tokens_per_s", &RowQuantiles::tokens_per_s)
        .def_readonly("tokens_per_s_per_gpu", &RowQuantiles::tokens_per_s_per_gpu)
        .def_readonly("wall_time_h", &RowQuantiles::wall_time_h)
        .def_readonly("gpu_hours", &RowQuantiles::gpu_hours)
        .def_readonly("cost_usd", &RowQuantiles::cost_usd)
        .def_readonly("energy_kwh", &RowQuantiles::energy_kwh)
        .def("__repr__", [](const RowQuantiles& r) {
            std::ostringstream os;
            os << "RowQuantiles(gpus=" << r.gpus << ", tokens_per_s=" << quantiles_repr(r.tokens_per_s)
               << ", gpu_hours=" << quantiles_repr(r.gpu_hours) << ')';
            return os.str();
        });

    const UncertaintyOptions uo{};
    py::class_<UncertaintyOptions> uopt(m, "UncertaintyOptions", "Sampling options of projection_quantiles.");
    uopt.def(py::init([](int samples, std::uint64_t seed) {
                 UncertaintyOptions o;
                 o.samples = samples;
                 o.seed = seed;
                 return o;
             }),
             py::kw_only(), py::arg("samples") = uo.samples, py::arg("seed") = uo.seed)
        .def_readwrite("samples", &UncertaintyOptions::samples)
        .def_readwrite("seed", &UncertaintyOptions::seed)
        .def("__repr__", [](const UncertaintyOptions& o) {
            std::ostringstream os;
            os << "UncertaintyOptions(samples=" << o.samples << ", seed=" << o.seed << ')';
            return os.str();
        });

    m.def("projection_quantiles",
          [](const ModelSpec& model, const HardwareProfile& hardware, const CalibrationFile& calibration,
             const TrainingConfig& config, const std::vector<std::int64_t>& gpus, std::string_view scaling,
             const Job& job, const UncertaintyOptions& options) {
              return projection_quantiles(model, hardware, calibration, config, gpus, parse_scaling(scaling), job,
                                          options);
          },
          py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"), py::arg("gpus"),
          py::kw_only(), py::arg("scaling") = "strong", py::arg("job") = Job{},
          py::arg("options") = UncertaintyOptions{}, py::call_guard<py::gil_scoped_release>(),
          "P10/P50/P90 per GPU count (same order as project()), sampled from the calibration's covariance.");
}

}  // namespace libscale_py
