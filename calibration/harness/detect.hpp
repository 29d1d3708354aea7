// The catalog hardware for a GPU as NVML names it ("NVIDIA H200", "NVIDIA H100 80GB
// HBM3", "NVIDIA A100-SXM4-40GB", "NVIDIA B300 SXM6 AC": the names in the catalog's
// nvidia-smi readouts, calibration/data/hardware/*.json). Empty when the part is not in
// the catalog or is another form factor (PCIe, NVL) with other figures: --hardware then.
#pragma once

#include <string>

namespace libscale::harness {

std::string catalog_hardware_for(const std::string& gpu_name, double memory_gib);

}  // namespace libscale::harness
