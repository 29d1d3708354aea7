// libscale._core.calibrate: LinkLevel, GemmLaw, AttentionLaw, Calibration and its
// coefficient table (calibrate/calibration.hpp), and the shipped default calibration and
// prior of a hardware profile (io/catalog.hpp).
//
// The fields are bound from lists in the C++ declaration order; every scalar coefficient's
// docstring comes from calibration_coefficients(), the core's one table of them (name,
// unit, range, meaning), and check_against_table() makes import fail if the lists and the
// table ever disagree (a coefficient missing here, or bound to another member).
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/calibrate/calibration.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/spec/hardware.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

// A coefficient's docstring: its help, unit and dotted name. Docstrings live as long as
// the module (pybind11 keeps the pointer of a property's doc).
const char* coefficient_doc(std::string_view name) {
    static std::deque<std::string> docs;
    const CoefficientInfo& info = coefficient_info(name);
    return docs.emplace_back(std::string(info.help) + ", " + info.unit + " ('" + info.name + "')").c_str();
}

py::dict coefficient_dict(const CoefficientInfo& info) {
    py::dict d;
    d["name"] = info.name;
    d["unit"] = info.unit;
    d["min"] = info.min;
    d["max"] = info.max;
    d["min_exclusive"] = info.min_exclusive;
    d["help"] = info.help;
    return d;
}

// The double members a list binds, by dotted coefficient name: prefix + field name.
template <class T, class... F>
void collect_doubles(const FieldList<F...>& list, T& t, const std::string& prefix,
                     std::map<std::string, double*>& out) {
    std::apply(
        [&](const auto&... f) {
            const auto one = [&](const auto& x) {
                if constexpr (std::is_same_v<std::decay_t<decltype(x)>, MemberField<T, double>>)
                    out[prefix + x.name] = &(t.*(x.member));
            };
            (one(f), ...);
        },
        list.items);
}

}  // namespace

void register_calibrate_calibration(py::module_& m) {
    const auto link_fields =
        fields(field("alpha_s", &LinkLevel::alpha_s, "latency per ring step, s"),
               field("busbw_bytes_per_s", &LinkLevel::busbw_bytes_per_s, "nccl-tests bus bandwidth, B/s"));
    py::class_<LinkLevel> link(m, "LinkLevel", "Ring collective latency and bus bandwidth of one link level.");
    def_init(link, link_fields, "Every field by keyword.");
    def_fields(link, link_fields, Access::read_write);
    def_value_methods(link);

    const auto gemm_fields = fields(field("eta_max", &GemmLaw::eta_max, coefficient_doc("gemm.eta_max")),
                                    field("fp8_eta_max", &GemmLaw::fp8_eta_max, coefficient_doc("gemm.fp8_eta_max")),
                                    field("tile_m", &GemmLaw::tile_m, coefficient_doc("gemm.tile_m")),
                                    field("tile_n", &GemmLaw::tile_n, coefficient_doc("gemm.tile_n")),
                                    field("k_half", &GemmLaw::k_half, coefficient_doc("gemm.k_half")));
    py::class_<GemmLaw> gemm_cls(m, "GemmLaw",
                                 "GEMM law: tiles of tile_m × tile_n run in waves of sm_count blocks at a fraction "
                                 "eta_max · K/(K + k_half) of per-SM peak (docs/model.md 'GEMM').");
    def_init(gemm_cls, gemm_fields, "Every field by keyword; unset fields keep the C++ defaults.");
    def_fields(gemm_cls, gemm_fields, Access::read_write);
    gemm_cls.def("__repr__", [gemm_fields](const GemmLaw& g) { return fields_repr("GemmLaw", gemm_fields, g); });
    gemm_cls.def("__copy__", [](const GemmLaw& g) { return g; });
    gemm_cls.def(
        "__deepcopy__", [](const GemmLaw& g, py::dict) { return g; }, py::arg("memo"));

    using A = AttentionLaw;
    const auto attention_fields =
        fields(field("forward_eta_max", &A::forward_eta_max, coefficient_doc("attention.forward_eta_max")),
               field("forward_half_seq", &A::forward_half_seq, coefficient_doc("attention.forward_half_seq")),
               field("backward_eta_max", &A::backward_eta_max, coefficient_doc("attention.backward_eta_max")),
               field("backward_half_seq", &A::backward_half_seq, coefficient_doc("attention.backward_half_seq")),
               field("head_dim_half", &A::head_dim_half, coefficient_doc("attention.head_dim_half")));
    py::class_<AttentionLaw> attention_cls(m, "AttentionLaw",
                                           "Fused-attention law: peak · eta_max · s/(s + half_seq) · g(head_dim), "
                                           "forward and backward (docs/model.md 'Attention').");
    def_init(attention_cls, attention_fields, "Every field by keyword; unset fields keep the C++ defaults.");
    def_fields(attention_cls, attention_fields, Access::read_write);
    attention_cls.def("__repr__", [attention_fields](const AttentionLaw& a) {
        return fields_repr("AttentionLaw", attention_fields, a);
    });
    attention_cls.def("__copy__", [](const AttentionLaw& a) { return a; });
    attention_cls.def(
        "__deepcopy__", [](const AttentionLaw& a, py::dict) { return a; }, py::arg("memo"));

    using C = Calibration;
    const auto cal_fields = fields(
        field("hardware", &C::hardware), field("kind", &C::kind, "'default' (uncalibrated), 'derived' or 'fitted'"),
        field("source", &C::source), field("gemm", &C::gemm, "GEMM law (gemm.* coefficients)"),
        field("attention", &C::attention, "fused-attention law (attention.* coefficients)"),
        enum_field("attention_kernel", &C::attention_kernel, parse_attention_kernel,
                   "the fused-attention kernel the attention law was measured with ('flash2' for the published "
                   "charts of the defaults, 'cudnn' for the harness's CUDA backend); other kernels run at their "
                   "published ratio to it"),
        field("hbm_efficiency", &C::hbm_efficiency, coefficient_doc("hbm_efficiency")),
        field("framework_efficiency", &C::framework_efficiency, coefficient_doc("framework_efficiency")),
        field("kernel_overhead_s", &C::kernel_overhead_s, coefficient_doc("kernel_overhead_s")),
        field("layer_overhead_s", &C::layer_overhead_s, coefficient_doc("layer_overhead_s")),
        field("intra_node", &C::intra_node, "NVLink ring (intra_node.* coefficients)"),
        field("inter_node", &C::inter_node, "network ring (inter_node.* coefficients)"),
        field("reserved_gib", &C::reserved_gib, coefficient_doc("reserved_gib")),
        field("fragmentation", &C::fragmentation, coefficient_doc("fragmentation")),
        field("memory_margin", &C::memory_margin, coefficient_doc("memory_margin")),
        field("power_compute_w", &C::power_compute_w, coefficient_doc("power.compute_w")),
        field("power_comm_w", &C::power_comm_w, coefficient_doc("power.comm_w")),
        field("power_idle_w", &C::power_idle_w, coefficient_doc("power.idle_w")),
        field("step_overhead_s", &C::step_overhead_s, coefficient_doc("step_overhead_s")));

    // Every coefficient of the table is bound, to its own member, and nothing else is.
    {
        Calibration c;
        std::map<std::string, double*> bound;
        collect_doubles(cal_fields, c, "", bound);
        collect_doubles(gemm_fields, c.gemm, "gemm.", bound);
        collect_doubles(attention_fields, c.attention, "attention.", bound);
        collect_doubles(link_fields, c.intra_node, "intra_node.", bound);
        collect_doubles(link_fields, c.inter_node, "inter_node.", bound);
        for (const CoefficientInfo& info : calibration_coefficients()) {
            std::string name = info.name;
            if (name.rfind("power.", 0) == 0) name = "power_" + name.substr(6);  // power.compute_w: .power_compute_w
            const auto it = bound.find(name);
            if (it == bound.end() || it->second != &info.ref(c))
                throw std::logic_error(
                    std::string("libscale._core: calibration coefficient '") + info.name +
                    "' is not bound to its Calibration member (bindings/src/calibrate/calibration.cpp)");
            bound.erase(it);
        }
        if (!bound.empty())
            throw std::logic_error("libscale._core: '" + bound.begin()->first +
                                   "' is bound as a Calibration coefficient but is not in calibration_coefficients()");
    }

    py::class_<Calibration> cal(m, "Calibration",
                                "Coefficients the step model consumes, in absolute units (default_calibration(hw)). "
                                "Its numbers are calibration_coefficients(): gemm.* and attention.* on .gemm and "
                                ".attention, the link levels on .intra_node / .inter_node, the rest here with '.' "
                                "written '_' (power.compute_w is .power_compute_w).");
    def_init(cal, cal_fields, "Every field by keyword; usually start from default_calibration(hw) and copy.copy() it.");
    def_fields(cal, cal_fields, Access::read_write);
    cal.def("validate", &Calibration::validate,
            "Raise ValueError naming the first coefficient outside its valid range.");
    def_value_methods(cal);

    m.def(
        "calibration_coefficients",
        [] {
            py::list out;
            for (const CoefficientInfo& info : calibration_coefficients()) out.append(coefficient_dict(info));
            return out;
        },
        "Every calibration coefficient, as the core declares it once: a dict of name (dotted, as in a "
        "calibration file), unit, min, max, min_exclusive (the range is (min, max] rather than [min, max]) "
        "and help.");
    m.def(
        "coefficient_info", [](std::string_view name) { return coefficient_dict(coefficient_info(name)); },
        py::arg("name"), "One coefficient's entry (ValueError listing the valid names for an unknown one).");
    m.def(
        "get_parameter", [](const Calibration& c, std::string_view name) { return get_parameter(c, name); },
        py::arg("calibration"), py::arg("name"), "A coefficient by its dotted name, e.g. 'gemm.eta_max'.");
    m.def(
        "set_parameter", [](Calibration& c, std::string_view name, double value) { set_parameter(c, name, value); },
        py::arg("calibration"), py::arg("name"), py::arg("value"),
        "Set a coefficient by its dotted name, in place (not validated: call validate()).");

    m.def("default_calibration", &default_calibration, py::arg("hardware"),
          "The shipped default (uncalibrated) calibration for a HardwareProfile.");
    m.def("default_priors", &default_priors, py::arg("hardware"),
          "The default file's prior: standard deviation of log(value) per coefficient the fitter may move.");
}

}  // namespace libscale_py
