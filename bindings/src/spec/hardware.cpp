// libscale._core.spec: HardwareProfile (spec/hardware.hpp).
#include "libscale/spec/hardware.hpp"
#include "../common.hpp"
#include "../fields.hpp"

namespace libscale_py {

using namespace libscale;

void register_spec_hardware(py::module_& m) {
    using H = HardwareProfile;
    const auto hw_fields = fields(
        field("name", &H::name), field("display_name", &H::display_name),
        field("peak_bf16_tflops", &H::peak_bf16_tflops, "dense bf16, TFLOP/s"),
        field("peak_fp8_tflops", &H::peak_fp8_tflops, "dense fp8, TFLOP/s; 0: no fp8 tensor cores (A100 and older)"),
        field("sm_count", &H::sm_count, "streaming multiprocessors; 0: unknown (no wave quantization)"),
        field("hbm_gib", &H::hbm_gib, "GiB"), field("hbm_tbps", &H::hbm_tbps, "TB/s"),
        field("nvlink_gbps_bidir", &H::nvlink_gbps_bidir, "GB/s, both directions added"),
        field("nic_gbps_per_gpu", &H::nic_gbps_per_gpu, "Gb/s of network per GPU"),
        field("gpus_per_node", &H::gpus_per_node), field("board_power_w", &H::board_power_w, "W"),
        optional_field("idle_power_w", &H::idle_power_w, "W, or None when not known"),
        field("price_per_gpu_hour_usd", &H::price_per_gpu_hour_usd, "USD per GPU-hour (an assumption to override)"),
        field("source", &H::source, "file or catalog entry it came from"));
    py::class_<HardwareProfile> hw(m, "HardwareProfile",
                                   "One GPU type: peak figures, the typical node, power and a default price.");
    def_init(hw, hw_fields, "Every field by keyword; idle_power_w None means unknown.");
    def_fields(hw, hw_fields, Access::read_write);
    hw.def("validate", &HardwareProfile::validate, "Raise ValueError naming the first invalid field.")
        .def_property_readonly("peak_flops", &HardwareProfile::peak_flops, "dense bf16, FLOP/s")
        .def_property_readonly("peak_fp8_flops", &HardwareProfile::peak_fp8_flops, "dense fp8, FLOP/s")
        .def_property_readonly("nvlink_bytes_per_s_unidir", &HardwareProfile::nvlink_bytes_per_s_unidir, "B/s")
        .def_property_readonly("nic_bytes_per_s", &HardwareProfile::nic_bytes_per_s, "B/s")
        .def_property_readonly("hbm_bytes_per_s", &HardwareProfile::hbm_bytes_per_s, "B/s");
    def_value_methods(hw);
}

}  // namespace libscale_py
