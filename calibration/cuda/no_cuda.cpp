// Built when CMake found no CUDA toolkit: the harness runs its simulated backend only.
#include "cuda_backend.hpp"

namespace libscale::harness {

std::string cuda_backend_features() { return ""; }

std::unique_ptr<Backend> make_cuda_backend(World&, const HardwareProfile&) {
    throw BackendError(
        "this libscale-calibrate was built without CUDA (CMake found no CUDA toolkit), so it cannot measure a GPU; "
        "rebuild where the CUDA toolkit is installed, or run --backend simulated");
}

}  // namespace libscale::harness
