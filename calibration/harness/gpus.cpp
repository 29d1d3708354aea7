// GPU count and name through NVML (the core's dlopen loader), before any rank touches CUDA.
#include "../cuda/cuda_backend.hpp"
#include "libscale/io/error.hpp"
#include "libscale/triage/nvml.hpp"

namespace libscale::harness {

int count_gpus_without_cuda(std::string* gpu_name, double* memory_gib) {
    try {
        const NvmlSource nvml;  // shut down and unloaded again at the end of this scope
        const auto& gpus = nvml.gpus();
        if (!gpus.empty() && gpu_name) *gpu_name = gpus.front().name;
        if (memory_gib) *memory_gib = 0;  // the loader does not read memory; the name decides
        return static_cast<int>(gpus.size());
    } catch (const NvmlError&) {
        return 0;
    }
}

}  // namespace libscale::harness
