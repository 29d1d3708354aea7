// The backend's own kernels (kernels.cu), behind plain C++ wrappers so the host files
// compile without nvcc. Each launch is checked (cudaGetLastError) and returns the error
// for the caller's LS_CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace libscale::harness::cuda {

// Pseudo-random bf16 values uniform in [−scale, scale] (a counter-based hash of the index
// and seed, so the host can regenerate nothing: it reads values back for its checks).
cudaError_t fill_bf16(void* p, std::size_t count, std::uint64_t seed, float scale, cudaStream_t s);
// The same values as fill_bf16, rounded to fp8 e4m3 (OCP FP8 "E4M3": bias 7, max 448).
cudaError_t fill_fp8_e4m3(void* p, std::size_t count, std::uint64_t seed, float scale, cudaStream_t s);
cudaError_t fill_f32(float* p, std::size_t count, float value, cudaStream_t s);

// y[i] = x[i]·sigmoid(x[i]) + y[i] over bf16 (a SiLU-and-residual stand-in): 2 reads and 1
// write of 2 bytes, 6 bytes per element. The micro-run's memory-bound work.
cudaError_t elementwise_bf16(const void* x, void* y, std::size_t count, cudaStream_t s);

// Spins with volatile loads on *flag (device memory) until it is non-zero or
// `timeout_ns` of the GPU's global timer pass. A hung NCCL kernel looks like this: the
// SMs it occupies poll a flag that never changes (high utilization, low power).
cudaError_t spin_wait(const volatile int* flag, int blocks, std::uint64_t timeout_ns, cudaStream_t s);

}  // namespace libscale::harness::cuda
