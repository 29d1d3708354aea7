// libscale._core.calibrate: CalibrationFile (calibrate/calibration_file.hpp), read and
// written, with its covariance as a numpy array and its quality / provenance / sources as
// Python dicts.
#include <pybind11/eigen.h>

#include <stdexcept>
#include <string>

#include "../common.hpp"
#include "../fields.hpp"
#include "../json_py.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/json_io.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

// A JSON member as plain Python values (dicts, lists, numbers, None).
template <nlohmann::json CalibrationFile::*Member>
auto json_field(const char* name, const char* doc) {
    return property_field<py::object, CalibrationFile>(
        name, [](const CalibrationFile& f) { return json_to_py(f.*Member); },
        [name](CalibrationFile& f, py::object v) { f.*Member = py_to_json(v, name); }, doc);
}

void check_shapes(const CalibrationFile& f) {
    const auto n = static_cast<Eigen::Index>(f.parameters.size());
    if (f.covariance.size() != 0 && (f.covariance.rows() != n || f.covariance.cols() != n))
        throw std::invalid_argument("covariance: " + std::to_string(f.covariance.rows()) + " × " +
                                    std::to_string(f.covariance.cols()) + ", but there are " + std::to_string(n) +
                                    " parameters; it must be empty or parameters × parameters");
}

}  // namespace

void register_calibrate_calibration_file(py::module_& m) {
    using F = CalibrationFile;
    const auto file_fields = fields(
        field("calibration", &F::calibration),
        field("parameters", &F::parameters, "names with an uncertainty, covariance order"),
        property_field<Eigen::MatrixXd, F>(
            "covariance", [](const F& f) { return Eigen::MatrixXd(f.covariance); },
            [](F& f, Eigen::MatrixXd c) { f.covariance = std::move(c); }, "of `parameters`; empty: no uncertainty"),
        json_field<&F::quality>("quality", "residuals, rms / leave-one-out error, families"),
        json_field<&F::provenance>("provenance", "hardware, versions, date, source, notes"),
        json_field<&F::sources>("sources", "coefficient name → where its value came from"),
        field("prior_log_sd", &F::prior_log_sd, "the fitter's prior: sd of log(value) per coefficient name"));
    py::class_<CalibrationFile> cf(m, "CalibrationFile",
                                   "A calibration with its uncertainty, quality and provenance "
                                   "(schema libscale.calibration/2).");
    def_init(cf, file_fields,
             "Every field by keyword; CalibrationFile(calibration=c) is a bare calibration: no covariance, so no "
             "uncertainty.",
             &check_shapes);
    def_fields(cf, file_fields, Access::read_only);
    cf.def_property_readonly(
          "kind", [](const F& f) { return f.calibration.kind; }, "calibration.kind")
        .def_property_readonly(
            "hardware", [](const F& f) { return f.calibration.hardware; }, "calibration.hardware")
        .def_property_readonly(
            "source", [](const F& f) { return f.calibration.source; }, "calibration.source")
        .def(
            "to_json", [](const F& f) { return json_to_py(calibration_to_json(f)); }, "The file's JSON object.")
        .def("__repr__",
             [](const F& f) {
                 std::ostringstream os;
                 os << "CalibrationFile(kind='" << f.calibration.kind << "', hardware='" << f.calibration.hardware
                    << "', source='" << f.calibration.source << "', parameters=[";
                 for (std::size_t i = 0; i < f.parameters.size(); ++i)
                     os << (i ? ", " : "") << '\'' << f.parameters[i] << '\'';
                 os << "])";
                 return os.str();
             })
        .def("__copy__", [](const F& f) { return F(f); })
        .def(
            "__deepcopy__", [](const F& f, py::dict) { return F(f); }, py::arg("memo"));

    m.def("default_calibration_file", &default_calibration_file, py::arg("hardware"),
          "The shipped default as a CalibrationFile: its prior, and the spread of the shipped measurements "
          "around it as covariance (an uncalibrated projection's P10-P90).");
    m.def("read_calibration_file", &read_calibration_file, py::arg("path"), py::arg("hardware"),
          py::call_guard<py::gil_scoped_release>(),
          "A calibration file (either form), or a shipped one by name (e.g. 'derived-b300-qwen3-32b'). "
          "ParseError names the file and field, including a hardware mismatch and a libscale.calibration/1 "
          "file (one efficiency for every FLOP: refit it).");
    m.def(
        "calibration_from_json",
        [](py::handle obj, const HardwareProfile& hw, const std::string& origin) {
            return calibration_from_json(py_to_json(obj, origin), hw, origin);
        },
        py::arg("obj"), py::arg("hardware"), py::arg("origin") = "<calibration>",
        "A CalibrationFile from a calibration file's JSON object (a dict), checked as read_calibration_file does.");
    m.def(
        "calibration_to_json", [](const F& f) { return json_to_py(calibration_to_json(f)); }, py::arg("file"),
        "The file's JSON object (CalibrationFile.to_json()).");
    m.def(
        "write_calibration_file",
        [](const std::string& path, const F& f) {
            const std::string text = calibration_to_json(f).dump(2) + "\n";
            py::gil_scoped_release release;
            write_file_atomic(path, text);
        },
        py::arg("path"), py::arg("file"), "Write atomically (temporary file, then rename).");
}

}  // namespace libscale_py
