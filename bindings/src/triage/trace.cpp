// libscale._core.triage: power traces (triage/power_trace.hpp): ParseReport and
// PowerTrace (read_trace; its columns as read-only numpy views), and the power bands of
// the five phases (triage/power_bands.hpp). Parsing runs with the GIL released.
#include <pybind11/numpy.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/triage/power_bands.hpp"
#include "libscale/triage/power_trace.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

// A read-only numpy view of `v`, kept alive by `owner` (the Python object holding v).
template <class T>
py::array_t<T> view(const std::vector<T>& v, py::handle owner) {
    py::array_t<T> a(static_cast<py::ssize_t>(v.size()), v.data(), owner);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return a;
}

ParsedTrace read_any(const std::string& path, const std::string& format) { return read_power_trace(path, format); }

}  // namespace

void register_triage_trace(py::module_& m) {
    py::list names;
    for (int i = 0; i < kPhaseCount; ++i) names.append(to_string(static_cast<Phase>(i)));
    m.attr("PHASE_NAMES") = py::tuple(names);

    using R = ParseReport;
    py::class_<ParseReport> rep(m, "ParseReport", "What a trace parser read, skipped and dropped.");
    def_fields(
        rep,
        fields(field("source", &R::source, "file path or '<string>'"),
               field("lines", &R::lines, "lines read, blank ones included"),
               field("samples", &R::samples, "rows in the trace"),
               field("skipped_lines", &R::skipped_lines, "unparseable lines (skipped)"),
               field("first_skipped_line", &R::first_skipped_line, "1-based; 0 when none"),
               field("first_skipped_text", &R::first_skipped_text),
               field("first_skipped_reason", &R::first_skipped_reason),
               field("na_values", &R::na_values, "'[N/A]', '[Not Supported]', NaN, or a GPU with no power"),
               field("duplicate_timestamps", &R::duplicate_timestamps, "same GPU, same time: the later row is dropped"),
               field("non_monotonic_timestamps", &R::non_monotonic_timestamps,
                     "same GPU, earlier time: the row is dropped"),
               field("first_bad_timestamp_line", &R::first_bad_timestamp_line, "1-based; 0 when none"),
               field("clock_steps", &R::clock_steps,
                     "nvidia-smi only: times the log's clock went back more than 5 s (later rows re-based)"),
               field("clock_step_s", &R::clock_step_s, "seconds added to the rows after the steps, in all"),
               field("first_clock_step_line", &R::first_clock_step_line, "1-based; 0 when none"),
               field("gpu_name", &R::gpu_name,
                     "nvidia-smi with a name column: the GPU model the log names ('' when none or several)"),
               field("mixed_gpu_names", &R::mixed_gpu_names, "the log's rows name more than one GPU model"),
               field("scrapes", &R::scrapes, "dcgm only: scrapes seen"),
               field("synthetic_time", &R::synthetic_time,
                     "dcgm only: no timestamps, time_s = scrape ordinal (0, 1, ...)")),
        Access::read_only);
    rep.def_property_readonly("clean", &ParseReport::clean, "nothing skipped, missing or dropped")
        .def("summary", &ParseReport::summary, "One line for logs.")
        .def("__repr__", [](const ParseReport& r) { return "<ParseReport " + r.summary() + ">"; });

    // Bound as PowerTrace: the columns of ParsedTrace.trace (numpy views, read-only), then
    // ParsedTrace.report.
    py::class_<ParsedTrace> tr(m, "PowerTrace",
                               "GPU power telemetry, one row per GPU per sample (columns as numpy arrays).");
    tr.def_property_readonly(
          "time_s", [](py::object self) { return view(self.cast<const ParsedTrace&>().trace.time_s, self); }, "s")
        .def_property_readonly(
            "gpu", [](py::object self) { return view(self.cast<const ParsedTrace&>().trace.gpu, self); },
            "nvidia-smi index / dcgm gpu label")
        .def_property_readonly(
            "power_w", [](py::object self) { return view(self.cast<const ParsedTrace&>().trace.power_w, self); }, "W")
        .def_property_readonly(
            "utilization_pct",
            [](py::object self) { return view(self.cast<const ParsedTrace&>().trace.utilization_pct, self); },
            "%, NaN when not reported")
        .def_readonly("report", &ParsedTrace::report)
        .def_property_readonly(
            "gpus", [](const ParsedTrace& t) { return t.trace.gpus(); }, "distinct GPU ids")
        .def("__len__", [](const ParsedTrace& t) { return t.trace.size(); })
        .def("__repr__",
             [](const ParsedTrace& t) {
                 std::ostringstream os;
                 os << "<PowerTrace " << t.trace.size() << " samples, " << t.trace.gpus().size() << " GPUs";
                 if (!t.trace.empty()) {
                     const auto [lo, hi] = std::minmax_element(t.trace.time_s.begin(), t.trace.time_s.end());
                     os << ", " << (*hi - *lo) << " s";
                 }
                 os << ", from " << t.report.source << ">";
                 return os.str();
             })
        .attr("_fields") = py::make_tuple("time_s", "gpu", "power_w", "utilization_pct", "report");

    m.def("read_trace", &read_any, py::arg("path"), py::arg("format") = "auto",
          py::call_guard<py::gil_scoped_release>(),
          "Read an nvidia-smi CSV log or dcgm-exporter Prometheus text (format auto|nvidia-smi|dcgm).");

    using B = PowerBands;
    py::class_<PowerBands> pb(m, "PowerBands", "Power band edges of the five phases, as fractions of board power.");
    def_fields(pb,
               fields(field("board_power_w", &B::board_power_w, "W: the reference limit the fractions are of"),
                      field("idle_max_fraction", &B::idle_max_fraction),
                      field("checkpoint_max_fraction", &B::checkpoint_max_fraction),
                      field("starvation_max_fraction", &B::starvation_max_fraction),
                      field("communication_max_fraction", &B::communication_max_fraction),
                      field("idle_util_max_pct", &B::idle_util_max_pct, "%"),
                      field("scale_with_power_limit", &B::scale_with_power_limit,
                            "True: edges follow each GPU's enforced limit (default bands); False: fixed watts"),
                      field("label", &B::label, "'default, uncalibrated: ...' or 'calibrated: <file> ...'"),
                      field("edge_sources", &B::edge_sources,
                            "where each edge of measured bands comes from: measured, interpolated or assumed")),
               Access::read_write);
    pb.def(
          "thresholds_w",
          [](const PowerBands& b, double power_limit_w) {
              const BandThresholdsW t = thresholds_w(b, power_limit_w);
              py::dict d;
              d["idle_max_w"] = t.idle_max_w;
              d["checkpoint_max_w"] = t.checkpoint_max_w;
              d["starvation_max_w"] = t.starvation_max_w;
              d["communication_max_w"] = t.communication_max_w;
              return d;
          },
          py::arg("power_limit_w") = std::numeric_limits<double>::quiet_NaN(),
          "Band edges in watts for a GPU with this enforced limit (NaN: board_power_w).")
        .def("validate", &PowerBands::validate, "Raise ValueError naming the first invalid field.")
        .def("__copy__", [](const PowerBands& b) { return b; })
        .def(
            "__deepcopy__", [](const PowerBands& b, py::dict) { return b; }, py::arg("memo"))
        .def("__repr__", [](const PowerBands& b) {
            std::ostringstream os;
            os << "<PowerBands "
               << (b.scale_with_power_limit ? "fractions of the enforced limit (board " : "fixed watts (limit ")
               << b.board_power_w << " W), idle <= " << b.idle_max_fraction
               << ", checkpoint <= " << b.checkpoint_max_fraction << ", starvation <= " << b.starvation_max_fraction
               << ", communication <= " << b.communication_max_fraction << " (" << b.label << ")>";
            return os.str();
        });
    m.def("default_power_bands", &default_power_bands, py::arg("hardware"),
          "Default (uncalibrated) power bands of a HardwareProfile.");
    m.def("read_power_bands", &read_power_bands, py::arg("path"), py::arg("hardware"),
          "The power_bands section of a calibration file made on this hardware.");
}

}  // namespace libscale_py
