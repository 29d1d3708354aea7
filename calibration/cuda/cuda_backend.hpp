// The backend that measures a real GPU (calibration/cuda): cuBLASLt GEMMs, cuDNN fused
// attention, a bandwidth kernel, NCCL collectives, the FSDP step micro-run, and NVML power
// phases. Built when CMake finds CUDA (NCCL and cuDNN where found); elsewhere
// make_cuda_backend throws and says why.
#pragma once

#include <memory>
#include <string>

#include "../harness/backend.hpp"
#include "libscale/spec/hardware.hpp"

namespace libscale::harness {

// What this build of the harness can do on a GPU ("" when it has no CUDA backend).
std::string cuda_backend_features();

// GPUs the driver reports, through NVML (never CUDA: the local world forks after this,
// and CUDA does not survive a fork). 0 when there is no driver.
int count_gpus_without_cuda(std::string* gpu_name, double* memory_gib);

// Binds this rank to its GPU (the world's local rank). Throws BackendError when there is
// no GPU, no driver, or the build has no CUDA backend.
std::unique_ptr<Backend> make_cuda_backend(World& w, const HardwareProfile& hw);

}  // namespace libscale::harness
