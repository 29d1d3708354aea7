// Power phases (PowerPhaseKind) on this rank's GPU, sampled through NVML
// (libscale::NvmlSource, loaded with dlopen: no nvml.h needed).
#pragma once

#include <memory>
#include <string>

#include "gemm_cublaslt.hpp"
#include "libscale/triage/nvml.hpp"
#include "nccl_collectives.hpp"

namespace libscale::harness::cuda {

// NVML's view of the CUDA device this rank uses, matched by UUID: NVML numbers GPUs by PCI
// bus order, CUDA by speed unless CUDA_DEVICE_ORDER=PCI_BUS_ID, and CUDA_VISIBLE_DEVICES
// renumbers them (CUDA C Programming Guide, "CUDA Environment Variables"). Never throws:
// error() says why NVML is unusable.
class NvmlGpu {
public:
    explicit NvmlGpu(int local_rank);
    const std::string& error() const { return error_; }
    const std::string& uuid() const { return uuid_; }
    const std::string& match() const { return match_; }  // how the NVML GPU was chosen
    double power_limit_w() const { return power_limit_w_; }
    NvmlSource* source() { return source_.get(); }

private:
    std::unique_ptr<NvmlSource> source_;
    std::string error_, uuid_, match_;
    double power_limit_w_ = 0;
};

// Runs phase `k` for `seconds` while a host thread polls NVML every 100 ms; the first
// 1.5 s of samples are dropped (nvmlDeviceGetPowerUsage is a 1 s moving average on Ampere
// and newer, nvml.hpp). The caller has already met the other ranks at the barrier.
PowerPhaseResult run_power_phase(World& w, PowerPhaseKind k, double seconds, double timeout_s, NvmlGpu& nvml,
                                 const Lt& lt, Nccl& nccl);

}  // namespace libscale::harness::cuda
