#include "detect.hpp"

namespace libscale::harness {

std::string catalog_hardware_for(const std::string& name, double memory_gib) {
    const auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
    // The catalog holds the SXM boards; PCIe and NVL parts have other clocks and power.
    if (has("PCIe") || has("NVL") || has("PCIE")) return "";
    if (has("GB200")) return "gb200";
    if (has("B300")) return "b300";
    if (has("B200")) return "b200";
    if (has("H200")) return "h200";
    if (has("H100")) return "h100";
    // NVML says "NVIDIA A100-SXM4-40GB" / "-80GB"; the memory decides when the name does not.
    if (has("A100")) return has("40GB") || (memory_gib > 0 && memory_gib < 60) ? "a100-40gb" : "a100";
    return "";
}

}  // namespace libscale::harness
