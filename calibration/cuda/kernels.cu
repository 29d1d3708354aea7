// Device code of the CUDA backend; see kernels.hpp for what each kernel is for.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "kernels.hpp"

namespace libscale::harness::cuda {

namespace {

constexpr int kThreads = 256;

// Enough blocks to fill every SM several times; the grid-stride loops cover the rest
// (NVIDIA Developer Blog, "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops").
int blocks_for(std::size_t n) {
    int dev = 0, sms = 1;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    const std::size_t want = (n + kThreads - 1) / kThreads;
    const std::size_t cap = static_cast<std::size_t>(sms) * 8;
    return static_cast<int>(want < cap ? (want > 0 ? want : 1) : cap);
}

// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014).
__device__ __forceinline__ float uniform(std::uint64_t i, std::uint64_t seed) {
    std::uint64_t z = i + seed * 0x9E3779B97F4A7C15ull + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<float>(z >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;  // [−1, 1)
}

__global__ void fill_bf16_kernel(__nv_bfloat16* p, std::size_t n, std::uint64_t seed, float scale) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = __float2bfloat16(scale * uniform(i, seed));
}

__global__ void fill_fp8_kernel(__nv_fp8_e4m3* p, std::size_t n, std::uint64_t seed, float scale) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = __nv_fp8_e4m3(__bfloat162float(__float2bfloat16(scale * uniform(i, seed))));
}

__global__ void fill_f32_kernel(float* p, std::size_t n, float v) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = v;
}

__global__ void elementwise_kernel(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const float v = __bfloat162float(x[i]);
        y[i] = __float2bfloat16(v / (1.0f + __expf(-v)) + __bfloat162float(y[i]));
    }
}

__device__ __forceinline__ std::uint64_t global_ns() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));  // PTX ISA: %globaltimer, ns
    return t;
}

// One thread per block polls; the others wait at the barrier, as a blocked NCCL
// primitive's threads do. The timeout bounds a flag write that never lands.
__global__ void spin_kernel(const volatile int* flag, std::uint64_t timeout_ns) {
    if (threadIdx.x == 0) {
        const std::uint64_t end = global_ns() + timeout_ns;
        while (*flag == 0 && global_ns() < end) {
        }
    }
    __syncthreads();
}

}  // namespace

cudaError_t fill_bf16(void* p, std::size_t count, std::uint64_t seed, float scale, cudaStream_t s) {
    fill_bf16_kernel<<<blocks_for(count), kThreads, 0, s>>>(static_cast<__nv_bfloat16*>(p), count, seed, scale);
    return cudaGetLastError();
}

cudaError_t fill_fp8_e4m3(void* p, std::size_t count, std::uint64_t seed, float scale, cudaStream_t s) {
    fill_fp8_kernel<<<blocks_for(count), kThreads, 0, s>>>(static_cast<__nv_fp8_e4m3*>(p), count, seed, scale);
    return cudaGetLastError();
}

cudaError_t fill_f32(float* p, std::size_t count, float value, cudaStream_t s) {
    fill_f32_kernel<<<blocks_for(count), kThreads, 0, s>>>(p, count, value);
    return cudaGetLastError();
}

cudaError_t elementwise_bf16(const void* x, void* y, std::size_t count, cudaStream_t s) {
    if (count == 0) return cudaSuccess;
    elementwise_kernel<<<blocks_for(count), kThreads, 0, s>>>(static_cast<const __nv_bfloat16*>(x),
                                                              static_cast<__nv_bfloat16*>(y), count);
    return cudaGetLastError();
}

cudaError_t spin_wait(const volatile int* flag, int blocks, std::uint64_t timeout_ns, cudaStream_t s) {
    const int grid = blocks > 0 ? blocks : 1;  // a ternary inside <<< >>> defeats clang-format
    spin_kernel<<<grid, kThreads, 0, s>>>(flag, timeout_ns);
    return cudaGetLastError();
}

}  // namespace libscale::harness::cuda
