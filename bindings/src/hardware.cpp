// HardwareProfile, LinkLevel, GemmLaw, AttentionLaw, Calibration and its coefficient table.
// Calibration's numbers are bound from calibration_coefficients(), the core's one list of
// them (name, unit, range, meaning), not restated here.
#include <algorithm>
#include <array>
#include <deque>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "libscale/calibrate/calibration.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/spec/hardware.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

// Struct-valued parts of a Calibration, bound as their own classes.
constexpr std::array<std::string_view, 4> kParts{"gemm.", "attention.", "intra_node.", "inter_node."};

// A coefficient of calibration_coefficients() as an attribute of a bound class: under a
// part's prefix, the rest of its name; on Calibration itself, its name with '.' written
// '_' (power.compute_w is the C++ field power_compute_w).
struct Field {
    std::string attribute;
    const CoefficientInfo* info;
};

std::vector<Field> fields_under(std::string_view prefix) {
    std::vector<Field> out;
    for (const CoefficientInfo& info : calibration_coefficients()) {
        std::string_view name = info.name;
        if (prefix.empty()) {
            if (std::any_of(kParts.begin(), kParts.end(), [&](std::string_view p) { return name.starts_with(p); }))
                continue;
        } else if (name.starts_with(prefix)) {
            name.remove_prefix(prefix.size());
        } else {
            continue;
        }
        std::string attribute(name);
        std::replace(attribute.begin(), attribute.end(), '.', '_');
        out.push_back({std::move(attribute), &info});
    }
    return out;
}

// Docstrings live as long as the module (pybind11 keeps the pointer of a property's doc).
const char* doc_of(const CoefficientInfo& info) {
    static std::deque<std::string> docs;
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

// T is the part of a Calibration that `view` selects (or the Calibration itself): a
// coefficient is read and written through the table's reference into a Calibration
// holding a copy of the part.
template <class T>
using View = T& (*)(Calibration&);

template <class T>
void set_from_kwargs(T& self, const py::kwargs& kwargs, std::string_view prefix, View<T> view, const char* cls) {
    const std::vector<Field> fields = fields_under(prefix);
    Calibration c;
    view(c) = self;
    for (const auto& [key, value] : kwargs) {
        const std::string name = py::str(key);
        const auto f = std::find_if(fields.begin(), fields.end(), [&](const Field& x) { return x.attribute == name; });
        if (f == fields.end()) {
            std::string valid;
            for (const Field& x : fields) valid += (valid.empty() ? "" : ", ") + x.attribute;
            throw py::type_error(std::string(cls) + "(): unexpected keyword '" + name + "'; valid: " + valid);
        }
        if (py::isinstance<py::bool_>(value) || !(py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value)))
            throw py::type_error(std::string(cls) + "(): " + name + " = " + std::string(py::repr(value)) +
                                 "; expected a number");
        f->info->ref(c) = py::cast<double>(value);
    }
    self = view(c);
}

template <class T>
void def_table_fields(py::class_<T>& cls, std::string_view prefix, View<T> view) {
    for (const Field& f : fields_under(prefix)) {
        const auto ref = f.info->ref;
        cls.def_property(
            f.attribute.c_str(),
            [ref, view](const T& self) {
                Calibration c;
                view(c) = self;
                return ref(c);
            },
            [ref, view](T& self, double value) {
                Calibration c;
                view(c) = self;
                ref(c) = value;
                self = view(c);
            },
            doc_of(*f.info));
    }
}

// A part's class: keyword constructor, its fields and a repr, all from the table.
template <class T>
void def_table_class(py::class_<T>& cls, const char* prefix, View<T> view) {
    const std::string name = py::str(cls.attr("__name__"));
    cls.def(py::init([prefix, view, name](const py::kwargs& kwargs) {
                T x{};
                set_from_kwargs(x, kwargs, prefix, view, name.c_str());
                return x;
            }),
            "Every field by keyword; unset fields keep the C++ defaults.");
    def_table_fields(cls, prefix, view);
    cls.def("__repr__", [prefix, view, name](const T& self) {
        Calibration c;
        view(c) = self;
        std::ostringstream os;
        os << name << '(';
        bool first = true;
        for (const Field& f : fields_under(prefix)) {
            os << (first ? "" : ", ") << f.attribute << '=' << f.info->ref(c);
            first = false;
        }
        os << ')';
        return os.str();
    });
    cls.def("__copy__", [](const T& self) { return T(self); });
    cls.def("__deepcopy__", [](const T& self, py::dict) { return T(self); }, py::arg("memo"));
}

}  // namespace

void register_hardware(py::module_& m) {
    const HardwareProfile d{};
    py::class_<HardwareProfile> hw(m, "HardwareProfile",
                                   "One GPU type: peak figures, the typical node, power and a default price.");
    hw.def(py::init([](std::string name, std::string display_name, double peak_bf16_tflops, double peak_fp8_tflops,
                       std::int64_t sm_count, double hbm_gib, double hbm_tbps, double nvlink_gbps_bidir, double nic_gbps_per_gpu, std::int64_t gpus_per_node,
                       double board_power_w, std::optional<double> idle_power_w, double price_per_gpu_hour_usd,
                       std::string source) {
               HardwareProfile h;
               h.name = std::move(name);
               h.display_name = std::move(display_name);
               h.peak_bf16_tflops = peak_bf16_tflops;
               h.peak_fp8_tflops = peak_fp8_tflops;
               h.sm_count = sm_count;
               h.hbm_gib = hbm_gib;
               h.hbm_tbps = hbm_tbps;
               h.nvlink_gbps_bidir = nvlink_gbps_bidir;
               h.nic_gbps_per_gpu = nic_gbps_per_gpu;
               h.gpus_per_node = gpus_per_node;
               h.board_power_w = board_power_w;
               h.idle_power_w = none_to_nan(idle_power_w);
               h.price_per_gpu_hour_usd = price_per_gpu_hour_usd;
               h.source = std::move(source);
               return h;
           }),
           py::kw_only(), py::arg("name") = d.name, py::arg("display_name") = d.display_name,
           py::arg("peak_bf16_tflops") = d.peak_bf16_tflops, py::arg("peak_fp8_tflops") = d.peak_fp8_tflops,
           py::arg("sm_count") = d.sm_count, py::arg("hbm_gib") = d.hbm_gib,
           py::arg("hbm_tbps") = d.hbm_tbps, py::arg("nvlink_gbps_bidir") = d.nvlink_gbps_bidir,
           py::arg("nic_gbps_per_gpu") = d.nic_gbps_per_gpu, py::arg("gpus_per_node") = d.gpus_per_node,
           py::arg("board_power_w") = d.board_power_w, py::arg("idle_power_w") = py::none(),
           py::arg("price_per_gpu_hour_usd") = d.price_per_gpu_hour_usd, py::arg("source") = d.source,
           "Every field by keyword; idle_power_w None means unknown.")
        .def_readwrite("name", &HardwareProfile::name)
        .def_readwrite("display_name", &HardwareProfile::display_name)
        .def_readwrite("peak_bf16_tflops", &HardwareProfile::peak_bf16_tflops, "dense bf16, TFLOP/s")
        .def_readwrite("peak_fp8_tflops", &HardwareProfile::peak_fp8_tflops,
                       "dense fp8, TFLOP/s; 0: no fp8 tensor cores (A100 and older)")
        .def_readwrite("sm_count", &HardwareProfile::sm_count,
                       "streaming multiprocessors; 0: unknown (no wave quantization)")
        .def_readwrite("hbm_gib", &HardwareProfile::hbm_gib, "GiB")
        .def_readwrite("hbm_tbps", &HardwareProfile::hbm_tbps, "TB/s")
        .def_readwrite("nvlink_gbps_bidir", &HardwareProfile::nvlink_gbps_bidir, "GB/s, both directions added")
        .def_readwrite("nic_gbps_per_gpu", &HardwareProfile::nic_gbps_per_gpu, "Gb/s of network per GPU")
        .def_readwrite("gpus_per_node", &HardwareProfile::gpus_per_node)
        .def_readwrite("board_power_w", &HardwareProfile::board_power_w, "W")
        .def_property(
            "idle_power_w", [](const HardwareProfile& h) { return nan_to_none(h.idle_power_w); },
            [](HardwareProfile& h, std::optional<double> v) { h.idle_power_w = none_to_nan(v); },
            "W, or None when not known")
        .def_readwrite("price_per_gpu_hour_usd", &HardwareProfile::price_per_gpu_hour_usd,
                       "USD per GPU-hour (an assumption to override)")
        .def_readwrite("source", &HardwareProfile::source)
        .def("validate", &HardwareProfile::validate, "Raise ValueError naming the first invalid field.")
        .def_property_readonly("peak_flops", &HardwareProfile::peak_flops, "dense bf16, FLOP/s")
        .def_property_readonly("peak_fp8_flops", &HardwareProfile::peak_fp8_flops, "dense fp8, FLOP/s")
        .def_property_readonly("nvlink_bytes_per_s_unidir", &HardwareProfile::nvlink_bytes_per_s_unidir, "B/s")
        .def_property_readonly("nic_bytes_per_s", &HardwareProfile::nic_bytes_per_s, "B/s")
        .def_property_readonly("hbm_bytes_per_s", &HardwareProfile::hbm_bytes_per_s, "B/s");
    def_value_methods(hw);

    py::class_<LinkLevel> link(m, "LinkLevel", "Ring collective latency and bus bandwidth of one link level.");
    link.def(py::init([](double alpha_s, double busbw_bytes_per_s) { return LinkLevel{alpha_s, busbw_bytes_per_s}; }),
             py::kw_only(), py::arg("alpha_s") = 0.0, py::arg("busbw_bytes_per_s") = 0.0)
        .def_readwrite("alpha_s", &LinkLevel::alpha_s, "latency per ring step, s")
        .def_readwrite("busbw_bytes_per_s", &LinkLevel::busbw_bytes_per_s, "nccl-tests bus bandwidth, B/s");
    def_value_methods(link);

    py::class_<GemmLaw> gemm_cls(m, "GemmLaw",
                             "GEMM law: tiles of tile_m × tile_n run in waves of sm_count blocks at a fraction "
                             "eta_max · K/(K + k_half) of per-SM peak (docs/model.md 'GEMM').");
    def_table_class(gemm_cls, "gemm.", +[](Calibration& x) -> GemmLaw& { return x.gemm; });

    py::class_<AttentionLaw> attention_cls(m, "AttentionLaw",
                                       "Fused-attention law: peak · eta_max · s/(s + half_seq) · g(head_dim), "
                                       "forward and backward (docs/model.md 'Attention').");
    def_table_class(attention_cls, "attention.", +[](Calibration& x) -> AttentionLaw& { return x.attention; });

    const Calibration c{};
    py::class_<Calibration> cal(m, "Calibration",
                                "Coefficients the step model consumes, in absolute units (default_calibration(hw)). "
                                "Its numbers are calibration_coefficients(): gemm.* and attention.* on .gemm and "
                                ".attention, the link levels on .intra_node / .inter_node, the rest here with '.' "
                                "written '_' (power.compute_w is .power_compute_w).");
    cal.def(py::init([](std::string hardware, std::string kind, std::string source, const GemmLaw& gemm,
                        const AttentionLaw& attention, const LinkLevel& intra_node, const LinkLevel& inter_node,
                        const py::kwargs& coefficients) {
                Calibration x;
                x.hardware = std::move(hardware);
                x.kind = std::move(kind);
                x.source = std::move(source);
                x.gemm = gemm;
                x.attention = attention;
                x.intra_node = intra_node;
                x.inter_node = inter_node;
                set_from_kwargs(x, coefficients, "", +[](Calibration& y) -> Calibration& { return y; },
                                "Calibration");
                return x;
            }),
            py::kw_only(), py::arg("hardware") = c.hardware, py::arg("kind") = c.kind, py::arg("source") = c.source,
            py::arg("gemm") = c.gemm, py::arg("attention") = c.attention, py::arg("intra_node") = c.intra_node,
            py::arg("inter_node") = c.inter_node,
            "Every field by keyword (the scalar coefficients by their attribute names, e.g. hbm_efficiency=0.9); "
            "usually start from default_calibration(hw) and copy.copy() it.")
        .def_readwrite("hardware", &Calibration::hardware)
        .def_readwrite("kind", &Calibration::kind, "'default' (uncalibrated), 'derived' or 'fitted'")
        .def_readwrite("source", &Calibration::source)
        .def_readwrite("gemm", &Calibration::gemm, "GEMM law (gemm.* coefficients)")
        .def_readwrite("attention", &Calibration::attention, "fused-attention law (attention.* coefficients)")
        .def_readwrite("intra_node", &Calibration::intra_node, "NVLink ring (intra_node.* coefficients)")
        .def_readwrite("inter_node", &Calibration::inter_node, "network ring (inter_node.* coefficients)");
    def_table_fields(cal, "", +[](Calibration& y) -> Calibration& { return y; });
    cal.def("validate", &Calibration::validate,
            "Raise ValueError naming the first coefficient outside its valid range.");
    def_value_methods(cal);

    m.def("calibration_coefficients",
          [] {
              py::list out;
              for (const CoefficientInfo& info : calibration_coefficients()) out.append(coefficient_dict(info));
              return out;
          },
          "Every calibration coefficient, as the core declares it once: a dict of name (dotted, as in a "
          "calibration file), unit, min, max, min_exclusive (the range is (min, max] rather than [min, max]) "
          "and help.");
    m.def("coefficient_info", [](std::string_view name) { return coefficient_dict(coefficient_info(name)); },
          py::arg("name"), "One coefficient's entry (ValueError listing the valid names for an unknown one).");
    m.def("get_parameter", [](const Calibration& x, std::string_view name) { return get_parameter(x, name); },
          py::arg("calibration"), py::arg("name"), "A coefficient by its dotted name, e.g. 'gemm.eta_max'.");
    m.def("set_parameter",
          [](Calibration& x, std::string_view name, double value) { set_parameter(x, name, value); },
          py::arg("calibration"), py::arg("name"), py::arg("value"),
          "Set a coefficient by its dotted name, in place (not validated: call validate()).");

    m.def("default_calibration", &default_calibration, py::arg("hardware"),
          "The shipped default (uncalibrated) calibration for a HardwareProfile.");
    m.def("default_priors", &default_priors, py::arg("hardware"),
          "The default file's prior: standard deviation of log(value) per coefficient the fitter may move.");
}

}  // namespace libscale_py
