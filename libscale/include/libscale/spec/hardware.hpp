// One GPU type as the catalog describes it: published peak figures, the typical node,
// power, and a default price. Every value has a source in the catalog JSON.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>

namespace libscale {

// Most GPUs one node holds, in a hardware file and as a training option: far beyond any
// machine (NVL72 is 72), and small enough that node arithmetic cannot overflow.
inline constexpr std::int64_t kMaxGpusPerNode = std::int64_t{1} << 20;

struct HardwareProfile {
    std::string name;
    std::string display_name;
    double peak_bf16_tflops = 0;  // dense
    double peak_fp8_tflops = 0;   // dense; 0: no fp8 tensor cores (A100 and older)
    std::int64_t sm_count = 0;    // streaming multiprocessors; 0: unknown (no wave quantization)
    double hbm_gib = 0;
    double hbm_tbps = 0;
    double nvlink_gbps_bidir = 0;  // GB/s, both directions added
    double nic_gbps_per_gpu = 0;   // Gb/s of network per GPU
    std::int64_t gpus_per_node = 8;
    double board_power_w = 0;
    double idle_power_w = std::numeric_limits<double>::quiet_NaN();  // NaN: not known
    double price_per_gpu_hour_usd = 0;                               // an assumption the user overrides
    std::string source;                                              // file or catalog entry it came from

    void validate() const;  // std::invalid_argument naming field, value, valid range

    double peak_flops() const { return peak_bf16_tflops * 1e12; }
    double peak_fp8_flops() const { return peak_fp8_tflops * 1e12; }
    double nvlink_bytes_per_s_unidir() const { return nvlink_gbps_bidir * 0.5e9; }
    double nic_bytes_per_s() const { return nic_gbps_per_gpu * 1e9 / 8.0; }
    double hbm_bytes_per_s() const { return hbm_tbps * 1e12; }
};

std::ostream& operator<<(std::ostream& os, const HardwareProfile& h);

}  // namespace libscale
