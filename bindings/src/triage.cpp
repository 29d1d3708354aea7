// Power triage (offline): PowerTrace + ParseReport (read_trace), PowerBands
// (default_power_bands), and triage() -> TriageResult with its timelines as numpy
// arrays. Parsing and triage run with the GIL released.
#include <pybind11/numpy.h>

#include <algorithm>
#include <limits>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/triage/power_trace.hpp"
#include "libscale/triage/triage.hpp"

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

template <class T>
py::array_t<T> copy(const std::vector<T>& v) {
    py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

// Segments as a dict of equal-length numpy arrays.
py::dict segments(const std::vector<PhaseSegment>& s) {
    const auto n = static_cast<py::ssize_t>(s.size());
    py::array_t<int> gpu(n);
    py::array_t<double> start(n), end(n), power(n);
    py::array_t<std::uint8_t> phase(n);
    auto g = gpu.mutable_unchecked<1>();
    auto a = start.mutable_unchecked<1>();
    auto b = end.mutable_unchecked<1>();
    auto p = power.mutable_unchecked<1>();
    auto ph = phase.mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < n; ++i) {
        const auto& x = s[static_cast<std::size_t>(i)];
        g(i) = x.gpu;
        a(i) = x.start_s;
        b(i) = x.end_s;
        p(i) = x.mean_power_w;
        ph(i) = static_cast<std::uint8_t>(x.phase);
    }
    py::dict d;
    d["gpu"] = gpu;
    d["start_s"] = start;
    d["end_s"] = end;
    d["phase"] = phase;
    d["mean_power_w"] = power;
    return d;
}

py::dict totals(const PhaseTotals& t) {
    py::dict d;
    for (int i = 0; i < kPhaseCount; ++i) {
        py::dict one;
        one["seconds"] = t.seconds[static_cast<std::size_t>(i)];
        one["energy_j"] = t.energy_j[static_cast<std::size_t>(i)];
        d[to_string(static_cast<Phase>(i))] = one;
    }
    return d;
}

ParsedTrace read_any(const std::string& path, const std::string& format) {
    if (format == "nvidia-smi") return read_nvidia_smi_csv(path);
    if (format == "dcgm") return read_dcgm_prometheus(path);
    if (format != "auto")
        throw std::invalid_argument("format: '" + format + "' is not one of auto, nvidia-smi, dcgm");
    // auto: dcgm-exporter text names its metrics; anything else is read as nvidia-smi CSV.
    std::ifstream f(path, std::ios::binary);
    if (f) {
        std::string head(65536, '\0');
        f.read(head.data(), static_cast<std::streamsize>(head.size()));
        head.resize(static_cast<std::size_t>(f.gcount()));
        if (head.find("DCGM_FI_DEV_") != std::string::npos) return read_dcgm_prometheus(path);
    }
    return read_nvidia_smi_csv(path);
}

}  // namespace

void register_triage(py::module_& m) {
    py::list names;
    for (int i = 0; i < kPhaseCount; ++i) names.append(to_string(static_cast<Phase>(i)));
    m.attr("PHASE_NAMES") = py::tuple(names);

    py::class_<ParseReport> rep(m, "ParseReport", "What a trace parser read, skipped and dropped.");
    rep.def_readonly("source", &ParseReport::source)
        .def_readonly("lines", &ParseReport::lines)
        .def_readonly("samples", &ParseReport::samples)
        .def_readonly("skipped_lines", &ParseReport::skipped_lines)
        .def_readonly("first_skipped_line", &ParseReport::first_skipped_line, "1-based; 0 when none")
        .def_readonly("first_skipped_text", &ParseReport::first_skipped_text)
        .def_readonly("first_skipped_reason", &ParseReport::first_skipped_reason)
        .def_readonly("na_values", &ParseReport::na_values)
        .def_readonly("duplicate_timestamps", &ParseReport::duplicate_timestamps)
        .def_readonly("non_monotonic_timestamps", &ParseReport::non_monotonic_timestamps)
        .def_readonly("first_bad_timestamp_line", &ParseReport::first_bad_timestamp_line)
        .def_readonly("scrapes", &ParseReport::scrapes)
        .def_readonly("synthetic_time", &ParseReport::synthetic_time)
        .def_property_readonly("clean", &ParseReport::clean)
        .def("summary", &ParseReport::summary, "One line for logs.")
        .def("__repr__", [](const ParseReport& r) { return "<ParseReport " + r.summary() + ">"; });

    // Bound as PowerTrace: the columns (numpy views, read-only) and the parse report.
    py::class_<ParsedTrace> tr(m, "PowerTrace",
                               "GPU power telemetry, one row per GPU per sample (columns as numpy arrays).");
    tr.def_property_readonly("time_s", [](py::object self) { return view(self.cast<const ParsedTrace&>().trace.time_s, self); },
                             "s")
        .def_property_readonly("gpu", [](py::object self) { return view(self.cast<const ParsedTrace&>().trace.gpu, self); })
        .def_property_readonly("power_w", [](py::object self) { return view(self.cast<const ParsedTrace&>().trace.power_w, self); },
                               "W")
        .def_property_readonly(
            "utilization_pct",
            [](py::object self) { return view(self.cast<const ParsedTrace&>().trace.utilization_pct, self); },
            "%, NaN when not reported")
        .def_readonly("report", &ParsedTrace::report)
        .def_property_readonly("gpus", [](const ParsedTrace& t) { return t.trace.gpus(); }, "distinct GPU ids")
        .def("__len__", [](const ParsedTrace& t) { return t.trace.size(); })
        .def("__repr__", [](const ParsedTrace& t) {
            std::ostringstream os;
            os << "<PowerTrace " << t.trace.size() << " samples, " << t.trace.gpus().size() << " GPUs";
            if (!t.trace.empty()) {
                const auto [lo, hi] = std::minmax_element(t.trace.time_s.begin(), t.trace.time_s.end());
                os << ", " << (*hi - *lo) << " s";
            }
            os << ", from " << t.report.source << ">";
            return os.str();
        });

    m.def("read_trace", &read_any, py::arg("path"), py::arg("format") = "auto",
          py::call_guard<py::gil_scoped_release>(),
          "Read an nvidia-smi CSV log or dcgm-exporter Prometheus text (format auto|nvidia-smi|dcgm).");

    py::class_<PowerBands> pb(m, "PowerBands", "Power band edges of the five phases, as fractions of board power.");
    pb.def_readwrite("board_power_w", &PowerBands::board_power_w, "W")
        .def_readwrite("idle_max_fraction", &PowerBands::idle_max_fraction)
        .def_readwrite("checkpoint_max_fraction", &PowerBands::checkpoint_max_fraction)
        .def_readwrite("starvation_max_fraction", &PowerBands::starvation_max_fraction)
        .def_readwrite("communication_max_fraction", &PowerBands::communication_max_fraction)
        .def_readwrite("idle_util_max_pct", &PowerBands::idle_util_max_pct, "%")
        .def_readwrite("scale_with_power_limit", &PowerBands::scale_with_power_limit,
                       "True: edges follow each GPU's enforced limit (default bands); False: fixed watts")
        .def_readwrite("label", &PowerBands::label)
        .def("thresholds_w", [](const PowerBands& b, double power_limit_w) {
            const BandThresholdsW t = thresholds_w(b, power_limit_w);
            py::dict d;
            d["idle_max_w"] = t.idle_max_w;
            d["checkpoint_max_w"] = t.checkpoint_max_w;
            d["starvation_max_w"] = t.starvation_max_w;
            d["communication_max_w"] = t.communication_max_w;
            return d;
        }, py::arg("power_limit_w") = std::numeric_limits<double>::quiet_NaN(),
           "Band edges in watts for a GPU with this enforced limit (NaN: board_power_w).")
        .def("validate", &PowerBands::validate)
        .def("__copy__", [](const PowerBands& b) { return b; })
        .def("__deepcopy__", [](const PowerBands& b, py::dict) { return b; }, py::arg("memo"))
        .def("__repr__", [](const PowerBands& b) {
            std::ostringstream os;
            os << "<PowerBands " << (b.scale_with_power_limit ? "fractions of the enforced limit (board " : "fixed watts (limit ")
               << b.board_power_w << " W), idle <= " << b.idle_max_fraction
               << ", checkpoint <= " << b.checkpoint_max_fraction << ", starvation <= " << b.starvation_max_fraction
               << ", communication <= " << b.communication_max_fraction << " (" << b.label << ")>";
            return os.str();
        });
    m.def("default_power_bands", &default_power_bands, py::arg("hardware"),
          "Default (uncalibrated) power bands of a HardwareProfile.");
    m.def("read_power_bands", &read_power_bands, py::arg("path"), py::arg("hardware"),
          "The power_bands section of a calibration file made on this hardware.");

    py::class_<Alert> al(m, "Alert", "A deadlock, data-starvation or straggler alert.");
    al.def_property_readonly("kind", [](const Alert& a) { return std::string(to_string(a.kind)); })
        .def_readonly("time_s", &Alert::time_s, "when it fired (a sample time), s")
        .def_readonly("gpus", &Alert::gpus)
        .def_readonly("message", &Alert::message)
        .def("__repr__", [](const Alert& a) {
            std::ostringstream os;
            os << "<Alert " << a << ">";
            return os.str();
        });

    py::class_<TriageResult> res(m, "TriageResult", "Phase timelines, alerts, time and energy per phase.",
                                py::dynamic_attr());
    res.def_property_readonly("sample_phase", [](const TriageResult& r) {
           std::vector<std::uint8_t> v(r.sample_phase.size());
           for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(r.sample_phase[i]);
           return copy(v);
       }, "phase code of every trace row (PHASE_NAMES[code])")
        .def_property_readonly("gpu_segments", [](const TriageResult& r) { return segments(r.gpu_segments); },
                               "per-GPU timeline: dict of numpy arrays gpu, start_s, end_s, phase (code), mean_power_w")
        .def_property_readonly("job_segments", [](const TriageResult& r) { return segments(r.job_segments); },
                               "job timeline (gpu = -1), same columns")
        .def_readonly("alerts", &TriageResult::alerts)
        .def_property_readonly("job_totals", [](const TriageResult& r) { return totals(r.job); },
                               "{phase: {seconds, energy_j}} for the job")
        .def_property_readonly("gpu_totals", [](const TriageResult& r) {
            py::dict d;
            for (const auto& [g, t] : r.per_gpu) d[py::int_(g)] = totals(t);
            return d;
        }, "{gpu: {phase: {seconds, energy_j}}}")
        .def("__repr__", [](const TriageResult& r) {
            std::ostringstream os;
            double total = 0;
            for (double s : r.job.seconds) total += s;
            os << "<TriageResult " << r.per_gpu.size() << " GPUs, " << total << " s, "
               << r.job_segments.size() << " job segments";
            for (int i = 0; i < kPhaseCount; ++i)
                if (r.job.seconds[static_cast<std::size_t>(i)] > 0)
                    os << ", " << to_string(static_cast<Phase>(i)) << " " << r.job.seconds[static_cast<std::size_t>(i)] << " s";
            os << ", " << r.alerts.size() << " alerts>";
            return os.str();
        });

    py::class_<ClassifierOptions> co(m, "ClassifierOptions", "Smoothing and hysteresis of the per-GPU classifier.");
    co.def(py::init([](double smoothing_window_s, double min_dwell_s) {
               ClassifierOptions c;
               c.smoothing_window_s = smoothing_window_s;
               c.min_dwell_s = min_dwell_s;
               c.validate();
               return c;
           }),
           py::kw_only(), py::arg("smoothing_window_s") = ClassifierOptions{}.smoothing_window_s,
           py::arg("min_dwell_s") = ClassifierOptions{}.min_dwell_s)
        .def_readonly("smoothing_window_s", &ClassifierOptions::smoothing_window_s, "s")
        .def_readonly("min_dwell_s", &ClassifierOptions::min_dwell_s, "s")
        .def("__repr__", [](const ClassifierOptions& c) {
            std::ostringstream os;
            os << "ClassifierOptions(smoothing_window_s=" << c.smoothing_window_s << ", min_dwell_s=" << c.min_dwell_s << ")";
            return os.str();
        });

    py::class_<DetectorOptions> dop(m, "DetectorOptions",
                                    "Deadlock, starvation and straggler thresholds, and declared checkpoint saves.");
    dop.def(py::init([](double util_threshold_pct, double expected_checkpoint_s, double deadlock_after_s,
                        double starvation_after_s, double straggler_after_s, double checkpoint_first_start_s,
                        double checkpoint_interval_s, double checkpoint_duration_s,
                        std::vector<std::pair<double, double>> checkpoint_windows) {
                DetectorOptions d;
                d.util_threshold_pct = util_threshold_pct;
                d.expected_checkpoint_s = expected_checkpoint_s;
                d.deadlock_after_s = deadlock_after_s;
                d.starvation_after_s = starvation_after_s;
                d.straggler_after_s = straggler_after_s;
                d.checkpoints.first_start_s = checkpoint_first_start_s;
                d.checkpoints.interval_s = checkpoint_interval_s;
                d.checkpoints.duration_s = checkpoint_duration_s;
                d.checkpoints.windows = std::move(checkpoint_windows);
                d.validate();
                return d;
            }),
            py::kw_only(), py::arg("util_threshold_pct") = DetectorOptions{}.util_threshold_pct,
            py::arg("expected_checkpoint_s") = 0.0, py::arg("deadlock_after_s") = 0.0,
            py::arg("starvation_after_s") = DetectorOptions{}.starvation_after_s,
            py::arg("straggler_after_s") = DetectorOptions{}.straggler_after_s,
            py::arg("checkpoint_first_start_s") = 0.0, py::arg("checkpoint_interval_s") = 0.0,
            py::arg("checkpoint_duration_s") = 0.0,
            py::arg("checkpoint_windows") = std::vector<std::pair<double, double>>{})
        .def_readonly("util_threshold_pct", &DetectorOptions::util_threshold_pct, "%")
        .def_readonly("expected_checkpoint_s", &DetectorOptions::expected_checkpoint_s, "s, 0: unknown")
        .def_readonly("starvation_after_s", &DetectorOptions::starvation_after_s, "s")
        .def_readonly("straggler_after_s", &DetectorOptions::straggler_after_s, "s")
        .def_property_readonly("deadlock_after_s", &DetectorOptions::deadlock_threshold_s, "T in s (resolved default)")
        .def_property_readonly("checkpoint_windows", [](const DetectorOptions& d) { return d.checkpoints.windows; })
        .def("__repr__", [](const DetectorOptions& d) {
            std::ostringstream os;
            os << "DetectorOptions(deadlock_after_s=" << d.deadlock_threshold_s() << ", util_threshold_pct="
               << d.util_threshold_pct << ", starvation_after_s=" << d.starvation_after_s
               << ", straggler_after_s=" << d.straggler_after_s;
            if (d.checkpoints.interval_s > 0)
                os << ", checkpoints every " << d.checkpoints.interval_s << " s for " << d.checkpoints.duration_s << " s";
            if (!d.checkpoints.windows.empty()) os << ", " << d.checkpoints.windows.size() << " checkpoint windows";
            return os.str() + ")";
        });

    m.def(
        "triage",
        [](const ParsedTrace& trace, const PowerBands& bands, const ClassifierOptions& classifier,
           const DetectorOptions& detector) { return triage(trace.trace, bands, classifier, detector); },
        py::arg("trace"), py::arg("bands"), py::kw_only(), py::arg("classifier") = ClassifierOptions{},
        py::arg("detector") = DetectorOptions{}, py::call_guard<py::gil_scoped_release>(),
        "Classify every GPU's power into phases, build the GPU and job timelines and detect alerts.");
    m.attr("DEFAULT_DEADLOCK_AFTER_S") = default_deadlock_after_s(0);
}

}  // namespace libscale_py
