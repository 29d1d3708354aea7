// libscale._core.calibrate: MeasurementSet and its records (calibrate/measurement.hpp),
// read from Python lists / dicts (converted to nlohmann::json here, validated by the core),
// from JSON text or from a file.
#include <set>
#include <string>
#include <vector>

#include "../common.hpp"
#include "../fields.hpp"
#include "../json_py.hpp"
#include "libscale/calibrate/measurement.hpp"
#include "libscale/io/json_io.hpp"

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
    for (const auto& r : m.microruns) add(r.hardware);
    for (const auto& r : m.power) add(r.hardware);
    return out;
}

// A record class: its fields read-only, and a repr of them.
template <class T, class... F>
void def_record(py::module_& m, const char* name, const char* doc, const FieldList<F...>& list) {
    py::class_<T> cls(m, name, doc);
    def_fields(cls, list, Access::read_only);
    cls.def("__repr__", [list, n = std::string(name)](const T& t) {
        py::object self = py::cast(t);
        std::string out = n + "(";
        bool first = true;
        for (const auto& f : list.names()) {
            out += (first ? "" : ", ") + std::string(py::str(f)) + "=" + std::string(py::repr(self.attr(f)));
            first = false;
        }
        return out + ")";
    });
}

}  // namespace

void register_calibrate_measurement(py::module_& m) {
    def_record<GemmRun>(m, "GemmRun", "One GEMM C[m×n] = A[m×k]·B[k×n], median time of repeated runs.",
                        fields(field("hardware", &GemmRun::hardware), field("m", &GemmRun::m), field("n", &GemmRun::n),
                               field("k", &GemmRun::k), field("fp8", &GemmRun::fp8, "dtype 'fp8' (else bf16)"),
                               field("seconds", &GemmRun::seconds)));
    def_record<AttentionRun>(m, "AttentionRun", "One fused attention kernel over batch × seq_len query tokens.",
                             fields(field("hardware", &AttentionRun::hardware), field("batch", &AttentionRun::batch),
                                    field("seq_len", &AttentionRun::seq_len), field("heads", &AttentionRun::heads),
                                    field("head_dim", &AttentionRun::head_dim), field("causal", &AttentionRun::causal),
                                    field("backward", &AttentionRun::backward, "pass 'backward' (else forward)"),
                                    field("seconds", &AttentionRun::seconds)));
    def_record<BandwidthRun>(m, "BandwidthRun",
                             "A memory-bound kernel that reads and writes `bytes` in all (a copy counts both).",
                             fields(field("hardware", &BandwidthRun::hardware), field("bytes", &BandwidthRun::bytes),
                                    field("seconds", &BandwidthRun::seconds)));
    def_record<CollectiveRun>(
        m, "CollectiveRun", "One collective micro-run (nccl-tests).",
        fields(field("hardware", &CollectiveRun::hardware),
               output_field<std::string, CollectiveRun>(
                   "op", [](const CollectiveRun& r) { return std::string(to_string(r.op)); },
                   "'all_gather', 'reduce_scatter', 'all_reduce' or 'all_to_all'"),
               field("ranks", &CollectiveRun::ranks),
               field("ranks_per_node", &CollectiveRun::ranks_per_node, "GPUs of the ring in each node"),
               field("bytes", &CollectiveRun::bytes, "full buffer size S, as nccl-tests reports 'size'"),
               field("seconds", &CollectiveRun::seconds)));
    def_record<StepRun>(
        m, "StepRun", "One end-to-end training step configuration and its measured step time.",
        fields(field("model", &StepRun::model, "catalog name or config.json path"),
               output_field<py::object, StepRun>(
                   "model_overrides", [](const StepRun& r) { return json_to_py(r.model_overrides); },
                   "config.json keys replaced"),
               field("hardware", &StepRun::hardware), field("config", &StepRun::config),
               field("step_time_s", &StepRun::step_time_s),
               field("memory_gib", &StepRun::memory_gib, "published peak memory per GPU (0: none)"),
               field("memory_kind", &StepRun::memory_kind, "reserved | allocated | active | nvidia-smi"),
               field("memory_reserved_gib", &StepRun::memory_reserved_gib,
                     "peak memory the caching allocator reserved per GPU, beside an allocated memory_gib (0: none)"),
               field("reported_mfu", &StepRun::reported_mfu, "as the source computed it (0: none)"),
               field("relative_error", &StepRun::relative_error, "1 sd, relative (0: the fit's default)"),
               field("series", &StepRun::series),
               field("validation_exclude", &StepRun::validation_exclude,
                     "why validate() leaves the record out ('': used)"),
               field("source", &StepRun::source),
               field("layers", &StepRun::layers, "step micro-runs: the decoder layers run (0: a whole step)")));
    def_record<PowerRecord>(m, "PowerRecord", "Board power in one phase.",
                            fields(field("hardware", &PowerRecord::hardware),
                                   field("phase", &PowerRecord::phase,
                                         "compute | communication | data_starvation | checkpoint_or_deadlock | idle"),
                                   field("watts", &PowerRecord::watts)));

    using M = MeasurementSet;
    // No dynamic_attr: libscale.Measurements (results) holds this with the source names.
    py::class_<MeasurementSet> ms(m, "MeasurementSet",
                                  "Validated measurement records (schema libscale.measurements/2; /1 files are "
                                  "read too).");
    ms.def(py::init<>());
    def_fields(ms,
               fields(field("gemm", &M::gemm), field("attention", &M::attention), field("bandwidth", &M::bandwidth),
                      field("collectives", &M::collectives), field("steps", &M::steps),
                      field("microruns", &M::microruns), field("power", &M::power)),
               Access::read_only);
    ms.def("__len__", &MeasurementSet::size)
        .def_property_readonly("gemm_count", [](const MeasurementSet& s) { return s.gemm.size(); })
        .def_property_readonly("attention_count", [](const MeasurementSet& s) { return s.attention.size(); })
        .def_property_readonly("bandwidth_count", [](const MeasurementSet& s) { return s.bandwidth.size(); })
        .def_property_readonly("collective_count", [](const MeasurementSet& s) { return s.collectives.size(); })
        .def_property_readonly("step_count", [](const MeasurementSet& s) { return s.steps.size(); })
        .def_property_readonly("microrun_count", [](const MeasurementSet& s) { return s.microruns.size(); })
        .def_property_readonly("power_count", [](const MeasurementSet& s) { return s.power.size(); })
        .def_property_readonly("hardware", &measurement_hardware,
                               "distinct hardware names of the records, in order of appearance")
        .def(
            "to_json", [](const MeasurementSet& s) { return json_to_py(to_json(s)); },
            "The records as the measurement file's JSON object (dicts and lists).")
        .def(
            "merge", [](MeasurementSet& a, const MeasurementSet& b) { merge(a, b); }, py::arg("other"),
            "Append other's records.")
        .def("__repr__",
             [](const MeasurementSet& s) {
                 std::ostringstream os;
                 os << "MeasurementSet(gemm=" << s.gemm.size() << ", attention=" << s.attention.size()
                    << ", bandwidth=" << s.bandwidth.size() << ", collectives=" << s.collectives.size()
                    << ", steps=" << s.steps.size() << ", power=" << s.power.size() << ')';
                 return os.str();
             })
        .def("__copy__", [](const MeasurementSet& s) { return MeasurementSet(s); })
        .def(
            "__deepcopy__", [](const MeasurementSet& s, py::dict) { return MeasurementSet(s); }, py::arg("memo"));

    m.def(
        "measurements_from_json",
        [](py::handle records, const std::string& origin) {
            nlohmann::json j = py_to_json(records, origin);
            return measurements_from_json(j, origin);
        },
        py::arg("records"), py::arg("origin") = "<records>",
        "Records from a list of dicts (or {'schema': ..., 'records': [...]}); ParseError names the record "
        "and field.");
    m.def(
        "measurements_from_json_text",
        [](const std::string& text, const std::string& origin) {
            return measurements_from_json(parse_json(text, origin), origin);
        },
        py::arg("text"), py::arg("origin") = "<text>");
    m.def(
        "read_measurements", [](const std::string& path) { return read_measurements(path); }, py::arg("path"),
        py::call_guard<py::gil_scoped_release>(),
        "A libscale.measurements/2 (or /1) JSON file; v1 GEMM-chain records are refused with a message.");
}

}  // namespace libscale_py
