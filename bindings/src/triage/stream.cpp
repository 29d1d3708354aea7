// libscale._core.triage: live triage for `libscale watch` (triage/triage_stream.hpp):
// incremental trace parsers, TriageStream fed one poll at a time (numpy arrays in, without
// copies), its phase changes, alerts and per-GPU status out.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/triage/power_trace.hpp"
#include "libscale/triage/triage_stream.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
using IntArray = py::array_t<int, py::array::c_style | py::array::forcecast>;

template <class T>
std::string repr_of(const T& x) {
    std::ostringstream os;
    os << x;
    return os.str();
}

template <class A>
std::span<const typename A::value_type> span_of(const A& a, const char* name) {
    if (a.ndim() != 1)
        throw std::invalid_argument(std::string(name) + ": expected a 1-D array, got " + std::to_string(a.ndim()) +
                                    "-D");
    return {a.data(), static_cast<std::size_t>(a.shape(0))};
}

// New rows as a dict of numpy arrays (copies: the trace buffer is reused per call).
py::dict columns(const PowerTrace& t) {
    py::dict d;
    d["time_s"] = py::array_t<double>(static_cast<py::ssize_t>(t.size()), t.time_s.data());
    d["gpu"] = py::array_t<int>(static_cast<py::ssize_t>(t.size()), t.gpu.data());
    d["power_w"] = py::array_t<double>(static_cast<py::ssize_t>(t.size()), t.power_w.data());
    d["utilization_pct"] = py::array_t<double>(static_cast<py::ssize_t>(t.size()), t.utilization_pct.data());
    return d;
}

struct DcgmScrapeParser {
    ParseReport report;
};

py::dict update_dict(StreamUpdate&& u) {
    py::dict d;
    d["time_s"] = u.time_s;
    d["changes"] = py::cast(std::move(u.changes));
    d["alerts"] = py::cast(std::move(u.alerts));
    d["lost"] = py::cast(u.lost);
    d["returned"] = py::cast(u.returned);
    d["dropped_samples"] = u.dropped_samples;
    py::list gaps;
    for (const DataGap& g : u.gaps) gaps.append(py::make_tuple(g.gpu, g.from_s, g.to_s));
    d["gaps"] = gaps;
    d["clock_step_s"] = u.clock_step_s;
    return d;
}

}  // namespace

void register_triage_stream(py::module_& m) {
    py::class_<NvidiaSmiCsvReader>(m, "NvidiaSmiCsvReader",
                                   "Incremental nvidia-smi CSV parser for a growing log: feed() chunks as they come.")
        .def(py::init<std::string>(), py::arg("source") = "<stream>")
        .def(
            "feed",
            [](NvidiaSmiCsvReader& r, py::bytes chunk) {
                const std::string_view text = chunk;
                PowerTrace t;
                {
                    py::gil_scoped_release release;
                    r.feed(text, t);
                }
                return columns(t);
            },
            py::arg("chunk"), "Rows parsed from the complete lines so far: dict of numpy arrays.")
        .def(
            "finish",
            [](NvidiaSmiCsvReader& r) {
                PowerTrace t;
                r.finish(t);
                return columns(t);
            },
            "Parses a last line without a newline.")
        .def_property_readonly("report", &NvidiaSmiCsvReader::report);

    py::class_<DcgmScrapeParser>(m, "DcgmScrapeParser", "Parses one dcgm-exporter scrape at a time.")
        .def(py::init([](std::string source) {
                 DcgmScrapeParser p;
                 p.report.source = std::move(source);
                 return p;
             }),
             py::arg("source") = "<dcgm>")
        .def(
            "parse",
            [](DcgmScrapeParser& p, std::string_view text, double time_s) {
                PowerTrace t;
                parse_dcgm_scrape(text, time_s, t, p.report);
                return columns(t);
            },
            py::arg("text"), py::arg("time_s"), "One scrape's samples, stamped time_s unless a line has its own.")
        .def_readonly("report", &DcgmScrapeParser::report);

    using C = PhaseChange;
    py::class_<PhaseChange> change(m, "PhaseChange", "A GPU's (gpu >= 0) or the job's (gpu = -1) change of phase.");
    def_fields(change,
               fields(field("gpu", &C::gpu, "-1: the job"),
                      field("first", &C::first, "the first phase seen (from_phase is meaningless)"),
                      // `from` is a Python keyword: C++ from / to are from_phase / to_phase.
                      output_field<std::string, C>(
                          "from_phase", [](const C& c) { return std::string(to_string(c.from)); }, "C++ from"),
                      output_field<std::string, C>(
                          "to_phase", [](const C& c) { return std::string(to_string(c.to)); }, "C++ to"),
                      field("start_s", &C::start_s, "when the new phase began (dated back), s"),
                      field("detected_s", &C::detected_s, "the poll at which it was adopted, s"),
                      field("power_w", &C::power_w, "smoothed W (GPU) or summed W (job)")),
               Access::read_only);
    change.def("__repr__", [](const C& c) { return "<PhaseChange " + repr_of(c) + ">"; })
        .def("__str__", [](const C& c) { return repr_of(c); });

    using S = GpuStatus;
    py::class_<GpuStatus> status(m, "GpuStatus", "One GPU as the stream sees it now.");
    def_fields(status,
               fields(field("gpu", &S::gpu), field("present", &S::present, "has fresh data"),
                      output_field<std::string, S>(
                          "phase", [](const S& s) { return std::string(to_string(s.phase)); }, "a PHASE_NAMES name"),
                      field("phase_since_s", &S::phase_since_s), field("power_w", &S::power_w, "smoothed W"),
                      field("utilization_pct", &S::utilization_pct),
                      field("power_limit_w", &S::power_limit_w, "NaN: unknown (bands use board_power_w)"),
                      field("last_time_s", &S::last_time_s), field("samples", &S::samples)),
               Access::read_only);
    status.def("__repr__", [](const S& s) { return "<GpuStatus " + repr_of(s) + ">"; });

    const auto stream_fields =
        fields(field("stale_after_s", &StreamOptions::stale_after_s,
                     "a GPU whose last sample is older than this is lost (s; an assumption to tune per source)"));
    py::class_<StreamOptions> so(m, "StreamOptions", "Options of a TriageStream.");
    def_init(so, stream_fields, "Every field by keyword; validated.", [](const StreamOptions& o) { o.validate(); });
    def_fields(so, stream_fields, Access::read_only);
    so.def("__repr__", [](const StreamOptions& o) {
        std::ostringstream os;
        os << "StreamOptions(stale_after_s=" << o.stale_after_s << ")";
        return os.str();
    });

    py::class_<TriageStream>(m, "TriageStream",
                             "Live triage: push one poll of samples at a time; phase changes and alerts come back.")
        .def(py::init<PowerBands, ClassifierOptions, DetectorOptions, StreamOptions>(), py::arg("bands"),
             py::arg("classifier") = ClassifierOptions{}, py::arg("detector") = DetectorOptions{},
             py::arg("stream") = StreamOptions{})
        .def(
            "push",
            [](TriageStream& s, const DoubleArray& time_s, const IntArray& gpu, const DoubleArray& power_w,
               const DoubleArray& utilization_pct, double now_s) {
                const auto t = span_of(time_s, "time_s");
                const auto g = span_of(gpu, "gpu");
                const auto p = span_of(power_w, "power_w");
                const auto u = span_of(utilization_pct, "utilization_pct");
                StreamUpdate up;
                {
                    py::gil_scoped_release release;
                    up = s.push(t, g, p, u, now_s);
                }
                return update_dict(std::move(up));
            },
            py::arg("time_s"), py::arg("gpu"), py::arg("power_w"), py::arg("utilization_pct"), py::kw_only(),
            py::arg("now_s") = std::numeric_limits<double>::quiet_NaN(),
            "One poll. Returns {time_s, changes: [PhaseChange], alerts: [Alert], lost: [gpu], returned: [gpu], "
            "dropped_samples}.")
        .def(
            "advance", [](TriageStream& s, double now_s) { return update_dict(s.advance(now_s)); }, py::arg("now_s"),
            "A poll without data: lost GPUs are detected and the clocks move on.")
        .def("set_power_limit_w", &TriageStream::set_power_limit_w, py::arg("gpu"), py::arg("power_limit_w"))
        .def(
            "expect_gpus", [](TriageStream& s, std::vector<int> gpus) { s.expect_gpus(gpus); }, py::arg("gpus"),
            "The job's GPUs: no deadlock alert until each has fresh data.")
        .def("add_checkpoint_window", &TriageStream::add_checkpoint_window, py::arg("start_s"), py::arg("end_s"))
        .def("gpus", &TriageStream::gpus)
        .def_property_readonly("job_phase",
                               [](const TriageStream& s) -> py::object {
                                   if (s.job_phase() < 0) return py::none();
                                   return py::str(to_string(static_cast<Phase>(s.job_phase())));
                               })
        .def_property_readonly("job_phase_since_s", &TriageStream::job_phase_since_s)
        .def_property_readonly("last_time_s", &TriageStream::last_time_s)
        .def_property_readonly("alert_counts",
                               [](const TriageStream& s) {
                                   py::dict d;
                                   for (std::size_t k = 0; k < 3; ++k)
                                       d[to_string(static_cast<AlertKind>(k))] = s.alert_counts()[k];
                                   return d;
                               })
        .def_property_readonly("bands", &TriageStream::bands)
        .def_property_readonly("deadlock_after_s", &TriageStream::deadlock_after_s)
        .def("__repr__", [](const TriageStream& s) {
            std::ostringstream os;
            os << "<TriageStream " << s.gpus().size() << " GPUs, job "
               << (s.job_phase() < 0 ? "no data" : to_string(static_cast<Phase>(s.job_phase())))
               << ", T = " << s.deadlock_after_s() << " s>";
            return os.str();
        });
}

}  // namespace libscale_py
