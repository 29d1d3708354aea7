// libscale._core.triage: offline triage (triage/triage.hpp): ClassifierOptions,
// CheckpointSchedule, DetectorOptions, Alert, and triage() -> TriageResult with its
// timelines as numpy arrays (the GIL released while it runs).
#include <pybind11/numpy.h>

#include <sstream>
#include <utility>
#include <vector>

#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/triage/triage.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

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

}  // namespace

void register_triage_triage(py::module_& m) {
    m.attr("DEFAULT_DEADLOCK_AFTER_S") = default_deadlock_after_s(0);

    const auto classifier_fields =
        fields(field("smoothing_window_s", &ClassifierOptions::smoothing_window_s,
                     "s: trailing moving average of power over (t − window, t]"),
               field("min_dwell_s", &ClassifierOptions::min_dwell_s,
                     "s: a new phase must hold this long before it is adopted (then dated back)"));
    py::class_<ClassifierOptions> co(m, "ClassifierOptions", "Smoothing and hysteresis of the per-GPU classifier.");
    def_init(co, classifier_fields, "Every field by keyword; validated.",
             [](const ClassifierOptions& c) { c.validate(); });
    def_fields(co, classifier_fields, Access::read_only);
    co.def("__repr__", [](const ClassifierOptions& c) {
        std::ostringstream os;
        os << "ClassifierOptions(smoothing_window_s=" << c.smoothing_window_s << ", min_dwell_s=" << c.min_dwell_s
           << ")";
        return os.str();
    });

    using K = CheckpointSchedule;
    const auto schedule_fields = fields(field("first_start_s", &K::first_start_s, "s: the first save's start"),
                                        field("interval_s", &K::interval_s, "s between saves; 0: no periodic schedule"),
                                        field("duration_s", &K::duration_s, "s each save lasts"),
                                        field("windows", &K::windows, "declared saves as [(start_s, end_s), ...]"));
    py::class_<CheckpointSchedule> cs(m, "CheckpointSchedule",
                                      "Declared checkpoint saves (periodic and / or windows): the deadlock detector "
                                      "is silent inside them.");
    def_init(cs, schedule_fields, "Every field by keyword; validated.",
             [](const CheckpointSchedule& c) { c.validate(); });
    def_fields(cs, schedule_fields, Access::read_only);
    cs.def("covers", &CheckpointSchedule::covers, py::arg("t_s"), "Whether a declared save covers time t_s.")
        .def("__repr__", [](const CheckpointSchedule& c) {
            std::ostringstream os;
            os << "CheckpointSchedule(first_start_s=" << c.first_start_s << ", interval_s=" << c.interval_s
               << ", duration_s=" << c.duration_s << ", windows=" << c.windows.size() << ")";
            return os.str();
        });

    using D = DetectorOptions;
    const auto detector_fields =
        fields(field("util_threshold_pct", &D::util_threshold_pct, "%"),
               field("expected_checkpoint_s", &D::expected_checkpoint_s, "s, 0: the declared saves' duration"),
               field("deadlock_after_s", &D::deadlock_after_s,
                     "T in s as given; 0: default_deadlock_after_s(expected save) (see deadlock_threshold_s)"),
               field("starvation_after_s", &D::starvation_after_s, "s"),
               field("straggler_after_s", &D::straggler_after_s, "s"),
               field("checkpoints", &D::checkpoints, "declared checkpoint saves"));
    py::class_<DetectorOptions> dop(m, "DetectorOptions",
                                    "Deadlock, starvation and straggler thresholds, and declared checkpoint saves.");
    def_init(dop, detector_fields, "Every field by keyword; validated.",
             [](const DetectorOptions& d) { d.validate(); });
    def_fields(dop, detector_fields, Access::read_only);
    dop.def_property_readonly("deadlock_threshold_s", &DetectorOptions::deadlock_threshold_s,
                              "T in s (deadlock_after_s, or its default when 0)")
        .def("__repr__", [](const DetectorOptions& d) {
            std::ostringstream os;
            os << "DetectorOptions(deadlock_after_s=" << d.deadlock_threshold_s()
               << ", util_threshold_pct=" << d.util_threshold_pct << ", starvation_after_s=" << d.starvation_after_s
               << ", straggler_after_s=" << d.straggler_after_s;
            if (d.checkpoints.interval_s > 0)
                os << ", checkpoints every " << d.checkpoints.interval_s << " s for " << d.checkpoints.duration_s
                   << " s";
            if (!d.checkpoints.windows.empty()) os << ", " << d.checkpoints.windows.size() << " checkpoint windows";
            return os.str() + ")";
        });

    py::class_<Alert> al(m, "Alert", "A deadlock, data-starvation or straggler alert.");
    def_fields(
        al,
        fields(output_field<std::string, Alert>(
                   "kind", [](const Alert& a) { return std::string(to_string(a.kind)); },
                   "'deadlock', 'data_starvation' or 'straggler'"),
               field("time_s", &Alert::time_s, "when it fired (a sample time), s"),
               field("gpus", &Alert::gpus, "deadlock / starvation: the GPUs in that phase; straggler: the straggler"),
               field("message", &Alert::message)),
        Access::read_only);
    al.def("__repr__", [](const Alert& a) {
        std::ostringstream os;
        os << "<Alert " << a << ">";
        return os.str();
    });

    using T = TriageResult;
    // No dynamic_attr: libscale.TriageResult (results) holds this with the trace and the bands.
    py::class_<TriageResult> res(m, "TriageResult", "Phase timelines, alerts, time and energy per phase.");
    def_fields(res,
               fields(output_field<py::array_t<std::uint8_t>, T>(
                          "sample_phase",
                          [](const T& r) {
                              std::vector<std::uint8_t> v(r.sample_phase.size());
                              for (std::size_t i = 0; i < v.size(); ++i)
                                  v[i] = static_cast<std::uint8_t>(r.sample_phase[i]);
                              return copy(v);
                          },
                          "phase code of every trace row (PHASE_NAMES[code])"),
                      output_field<py::dict, T>(
                          "gpu_segments", [](const T& r) { return segments(r.gpu_segments); },
                          "per-GPU timeline: dict of numpy arrays gpu, start_s, end_s, phase (code), mean_power_w"),
                      output_field<py::dict, T>(
                          "job_segments", [](const T& r) { return segments(r.job_segments); },
                          "job timeline (gpu = -1), same columns"),
                      field("alerts", &T::alerts, "in time order"),
                      output_field<py::dict, T>(
                          "gpu_totals",
                          [](const T& r) {
                              py::dict d;
                              for (const auto& [g, t] : r.per_gpu) d[py::int_(g)] = totals(t);
                              return d;
                          },
                          "{gpu: {phase: {seconds, energy_j}}} (C++ per_gpu)"),
                      output_field<py::dict, T>(
                          "job_totals", [](const T& r) { return totals(r.job); },
                          "{phase: {seconds, energy_j}} for the job (C++ job)")),
               Access::read_only);
    res.def("__repr__", [](const T& r) {
        std::ostringstream os;
        double total = 0;
        for (double s : r.job.seconds) total += s;
        os << "<TriageResult " << r.per_gpu.size() << " GPUs, " << total << " s, " << r.job_segments.size()
           << " job segments";
        for (int i = 0; i < kPhaseCount; ++i)
            if (r.job.seconds[static_cast<std::size_t>(i)] > 0)
                os << ", " << to_string(static_cast<Phase>(i)) << " " << r.job.seconds[static_cast<std::size_t>(i)]
                   << " s";
        os << ", " << r.alerts.size() << " alerts>";
        return os.str();
    });

    m.def(
        "triage",
        [](const ParsedTrace& trace, const PowerBands& bands, const ClassifierOptions& classifier,
           const DetectorOptions& detector) { return libscale::triage(trace.trace, bands, classifier, detector); },
        py::arg("trace"), py::arg("bands"), py::arg("classifier") = ClassifierOptions{},
        py::arg("detector") = DetectorOptions{}, py::call_guard<py::gil_scoped_release>(),
        "Classify every GPU's power into phases, build the GPU and job timelines and detect alerts.");
}

}  // namespace libscale_py
