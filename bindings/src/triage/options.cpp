// libscale._core.triage: TriageOptions and WatchOptions (triage/triage_options.hpp), made
// from their option tables by libscale._core.spec.make_options("triage" / "watch", ...).
#include "../common.hpp"
#include "../fields.hpp"
#include "../option_fields.hpp"
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
    py::class_<WatchOptions> w(m, "WatchOptions", "How `libscale watch` polls and acts (watch option table).");
    def_option_init(w, watch_options(), "Every watch option by keyword; validated.");
    def_option_fields(w, watch_options(), Access::read_only);
    w.def("validate", &WatchOptions::validate);
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
