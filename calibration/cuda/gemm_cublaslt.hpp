// GEMMs through cuBLASLt: C[m×n] = A[m×k]·B[k×n] in bf16 (fp32 accumulation) or fp8 e4m3
// inputs with bf16 output (compute capability 8.9 and newer), the algorithm chosen by
// cuBLASLt's heuristic with a 32 MiB workspace.
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <string>

#include "device.hpp"

namespace libscale::harness::cuda {

[[noreturn]] void throw_cublas(cublasStatus_t s, const char* call);
#define LS_CUBLAS(call)                                                                            \
    do {                                                                                           \
        const cublasStatus_t ls_s_ = (call);                                                       \
        if (ls_s_ != CUBLAS_STATUS_SUCCESS) ::libscale::harness::cuda::throw_cublas(ls_s_, #call); \
    } while (0)

// One cuBLASLt handle, its workspace and the fp8 scale (1.0) of this rank's GPU.
class Lt {
public:
    static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
    Lt();
    ~Lt();
    Lt(const Lt&) = delete;
    Lt& operator=(const Lt&) = delete;
    cublasLtHandle_t handle() const { return h_; }
    void* workspace() const { return workspace_.get(); }
    const float* one() const { return one_.as<float>(); }
    bool fp8_supported() const { return fp8_; }

private:
    cublasLtHandle_t h_ = nullptr;
    DeviceBuffer workspace_;
    DeviceBuffer one_;
    bool fp8_ = false;
};

struct GemmShape {
    std::int64_t m = 0, n = 0, k = 0;
    bool fp8 = false;
    std::size_t a_bytes() const;  // A, m×k: 1 byte per element in fp8, else 2
    std::size_t b_bytes() const;
    std::size_t d_bytes() const;  // bf16
};

// The descriptors and the chosen algorithm of one shape. Layout: A row-major m×k (cuBLAS's
// column-major k×m, op T), B column-major k×n (op N), D column-major m×n: the "TN" layout
// that fp8 requires on Hopper (cuBLAS docs, cublasLtMatmul, "FP8 ... requirements").
class LtGemm {
public:
    LtGemm(const Lt& lt, const GemmShape& s);
    ~LtGemm();
    LtGemm(LtGemm&& o) noexcept;
    LtGemm(const LtGemm&) = delete;
    LtGemm& operator=(const LtGemm&) = delete;
    LtGemm& operator=(LtGemm&&) = delete;
    // Non-empty: cuBLASLt has no algorithm for the shape (why).
    const std::string& unsupported() const { return unsupported_; }
    const GemmShape& shape() const { return s_; }
    void run(const void* a, const void* b, void* d, cudaStream_t stream) const;

private:
    const Lt* lt_ = nullptr;
    GemmShape s_;
    cublasLtMatmulDesc_t desc_ = nullptr;
    cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
    cublasLtMatmulAlgo_t algo_{};
    std::string unsupported_;
};

// The GemmCase: warm-up, `repeats` timed with events, inputs rotated through copies that
// together exceed twice the L2 cache, then a check of 16 outputs against an fp32 host
// reference. Throws OutOfMemory when the case does not fit, BackendError on a fault.
Timing time_gemm(const Lt& lt, const GemmShape& s, int warmup, int repeats);

// Fills A and B (bf16 or fp8 values in [−1, 1]) for a shape's buffers.
void fill_operands(const GemmShape& s, void* a, void* b, std::uint64_t seed, cudaStream_t stream);

}  // namespace libscale::harness::cuda
