// HardwareProfile, LinkLevel, Calibration.
#include "common.hpp"
#include "libscale/calibration.hpp"
#include "libscale/catalog.hpp"
#include "libscale/hardware.hpp"

namespace libscale_py {

using namespace libscale;

void register_hardware(py::module_& m) {
    const HardwareProfile d{};
    py::class_<HardwareProfile> hw(m, "HardwareProfile",
                                   "One GPU type: peak figures, the typical node, power and a default price.");
    hw.def(py::init([](std::string name, std::string display_name, double peak_bf16_tflops, double hbm_gib,
                       double hbm_tbps, double nvlink_gbps_bidir, double nic_gbps_per_gpu, std::int64_t gpus_per_node,
                       double board_power_w, std::optional<double> idle_power_w, double price_per_gpu_hour_usd,
                       std::string source) {
               HardwareProfile h;
               h.name = std::move(name);
               h.display_name = std::move(display_name);
               h.peak_bf16_tflops = peak_bf16_tflops;
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
           py::arg("peak_bf16_tflops") = d.peak_bf16_tflops, py::arg("hbm_gib") = d.hbm_gib,
           py::arg("hbm_tbps") = d.hbm_tbps, py::arg("nvlink_gbps_bidir") = d.nvlink_gbps_bidir,
           py::arg("nic_gbps_per_gpu") = d.nic_gbps_per_gpu, py::arg("gpus_per_node") = d.gpus_per_node,
           py::arg("board_power_w") = d.board_power_w, py::arg("idle_power_w") = py::none(),
           py::arg("price_per_gpu_hour_usd") = d.price_per_gpu_hour_usd, py::arg("source") = d.source,
           "Every field by keyword; idle_power_w None means unknown.")
        .def_readwrite("name", &HardwareProfile::name)
        .def_readwrite("display_name", &HardwareProfile::display_name)
        .def_readwrite("peak_bf16_tflops", &HardwareProfile::peak_bf16_tflops, "dense bf16, TFLOP/s")
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
        .def_property_readonly("peak_flops", &HardwareProfile::peak_flops, "FLOP/s")
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

    const Calibration c{};
    py::class_<Calibration> cal(m, "Calibration",
                                "Coefficients the step model consumes, in absolute units (default_calibration(hw)).");
    cal.def(py::init([](std::string hardware, std::string kind, std::string source, double eta_max,
                        double half_saturation_tokens, LinkLevel intra_node, LinkLevel inter_node,
                        double hbm_efficiency, double reserved_gib, double power_compute_w, double power_comm_w,
                        double power_idle_w) {
                Calibration x;
                x.hardware = std::move(hardware);
                x.kind = std::move(kind);
                x.source = std::move(source);
                x.eta_max = eta_max;
                x.half_saturation_tokens = half_saturation_tokens;
                x.intra_node = intra_node;
                x.inter_node = inter_node;
                x.hbm_efficiency = hbm_efficiency;
                x.reserved_gib = reserved_gib;
                x.power_compute_w = power_compute_w;
                x.power_comm_w = power_comm_w;
                x.power_idle_w = power_idle_w;
                return x;
            }),
            py::kw_only(), py::arg("hardware") = c.hardware, py::arg("kind") = c.kind, py::arg("source") = c.source,
            py::arg("eta_max") = c.eta_max, py::arg("half_saturation_tokens") = c.half_saturation_tokens,
            py::arg("intra_node") = c.intra_node, py::arg("inter_node") = c.inter_node,
            py::arg("hbm_efficiency") = c.hbm_efficiency, py::arg("reserved_gib") = c.reserved_gib,
            py::arg("power_compute_w") = c.power_compute_w, py::arg("power_comm_w") = c.power_comm_w,
            py::arg("power_idle_w") = c.power_idle_w,
            "Every field by keyword; usually start from default_calibration(hw) and copy.copy() it.")
        .def_readwrite("hardware", &Calibration::hardware)
        .def_readwrite("kind", &Calibration::kind, "'default' (uncalibrated), 'derived' or 'fitted'")
        .def_readwrite("source", &Calibration::source)
        .def_readwrite("eta_max", &Calibration::eta_max, "achieved fraction of peak at large micro-batches")
        .def_readwrite("half_saturation_tokens", &Calibration::half_saturation_tokens,
                       "tokens per micro-batch at which eta = eta_max / 2")
        .def_readwrite("intra_node", &Calibration::intra_node)
        .def_readwrite("inter_node", &Calibration::inter_node)
        .def_readwrite("hbm_efficiency", &Calibration::hbm_efficiency)
        .def_readwrite("reserved_gib", &Calibration::reserved_gib, "GiB per GPU not available to the model")
        .def_readwrite("power_compute_w", &Calibration::power_compute_w, "W")
        .def_readwrite("power_comm_w", &Calibration::power_comm_w, "W")
        .def_readwrite("power_idle_w", &Calibration::power_idle_w, "W")
        .def("validate", &Calibration::validate, "Raise ValueError naming the first invalid field.")
        .def("eta", &Calibration::eta, py::arg("tokens_per_micro_batch"),
             "Achieved fraction of peak at t tokens per micro-batch per GPU.");
    def_value_methods(cal);

    m.def("default_calibration", &default_calibration, py::arg("hardware"),
          "The shipped default (uncalibrated) calibration for a HardwareProfile.");
}

}  // namespace libscale_py
