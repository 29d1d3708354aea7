// libscale._core.triage: TriageOptions and WatchOptions (triage/triage_options.hpp), made
// from their option tables by libscale._core.spec.make_options("triage" / "watch", ...).
#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/triage/triage_options.hpp"

namespace libscale_py {

using namespace libscale;

void register_triage_options(py::module_& m) {
    py::class_<TriageOptions> t(m, "TriageOptions", "The classifier's and the detectors' options.");
    t.def(py::init<>())
        .def_readwrite("classifier", &TriageOptions::classifier)
        .def_readwrite("detector", &TriageOptions::detector)
        .def("validate", &TriageOptions::validate);
    t.attr("_fields") = py::make_tuple("classifier", "detector");
    using W = WatchOptions;
    py::class_<WatchOptions> w(m, "WatchOptions", "How `libscale watch` polls and acts (watch option table).");
    w.def(py::init<>()).def("validate", &WatchOptions::validate);
    def_fields(w,
               fields(field("interval_s", &W::interval_s), field("stale_after_s", &W::stale_after_s),
                      field("speed", &W::speed), field("nvml_power", &W::nvml_power), field("kill_on", &W::kill_on),
                      field("grace_s", &W::grace_s), field("prometheus_interval_s", &W::prometheus_interval_s),
                      field("follow", &W::follow), field("dry_run", &W::dry_run)),
               Access::read_only);
    m.def(
        "alert_kinds",
        [](std::string_view list) {
            std::vector<std::string> out;
            for (AlertKind k : parse_alert_kinds(list)) out.emplace_back(to_string(k));
            return out;
        },
        py::arg("kill_on"), "The alert kinds of a kill_on list ('deadlock,straggler'; 'none': none).");
}

}  // namespace libscale_py
