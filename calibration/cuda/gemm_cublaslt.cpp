#include "gemm_cublaslt.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels.hpp"
#include "stats.hpp"

namespace libscale::harness::cuda {

void throw_cublas(cublasStatus_t s, const char* call) {
    if (s == CUBLAS_STATUS_ALLOC_FAILED) {
        (void)cudaGetLastError();
        throw OutOfMemory(out_of_memory_text(0) + " (cuBLASLt could not allocate in " + call + ")");
    }
    throw BackendError(std::string("cuBLASLt error ") + cublasLtGetStatusName(s) + " (" + cublasLtGetStatusString(s) +
                       ") in " + call);
}

Lt::Lt() : workspace_(kWorkspaceBytes), one_(sizeof(float)) {
    LS_CUBLAS(cublasLtCreate(&h_));
    LS_CUDA(fill_f32(one_.as<float>(), 1, 1.0f, nullptr));
    LS_CUDA(cudaDeviceSynchronize());
    // fp8 tensor cores: Ada (8.9) and Hopper (9.0) onwards (CUDA C Programming Guide,
    // "Compute Capabilities"; cuBLAS docs list the fp8 GEMMs from compute capability 8.9).
    const int major = device_attribute(cudaDevAttrComputeCapabilityMajor);
    const int minor = device_attribute(cudaDevAttrComputeCapabilityMinor);
    fp8_ = major * 10 + minor >= 89;
}

Lt::~Lt() {
    if (h_) (void)cublasLtDestroy(h_);
}

std::size_t GemmShape::a_bytes() const { return static_cast<std::size_t>(m * k) * (fp8 ? 1u : 2u); }
std::size_t GemmShape::b_bytes() const { return static_cast<std::size_t>(k * n) * (fp8 ? 1u : 2u); }
std::size_t GemmShape::d_bytes() const { return static_cast<std::size_t>(m * n) * 2u; }

LtGemm::LtGemm(const Lt& lt, const GemmShape& s) : lt_(&lt), s_(s) {
    if (s.fp8 && !lt.fp8_supported()) {
        unsupported_ = "fp8 GEMMs need compute capability 8.9 or newer";
        return;
    }
    const cudaDataType_t in = s.fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    const auto rows = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    LS_CUBLAS(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
    LS_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    LS_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof nop));
    if (s.fp8) {
        // Per-tensor scales of 1: the inputs are generated within e4m3's range. torchao's
        // tensorwise recipe passes its scales the same way (cublasLt A/B_SCALE_POINTER).
        const void* one = lt.one();
        LS_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &one, sizeof one));
        LS_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &one, sizeof one));
    }
    LS_CUBLAS(cublasLtMatrixLayoutCreate(&a_, in, rows(s.k), rows(s.m), s.k));
    LS_CUBLAS(cublasLtMatrixLayoutCreate(&b_, in, rows(s.k), rows(s.n), s.k));
    LS_CUBLAS(cublasLtMatrixLayoutCreate(&d_, CUDA_R_16BF, rows(s.m), rows(s.n), s.m));

    cublasLtMatmulPreference_t pref = nullptr;
    LS_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    const std::uint64_t ws = Lt::kWorkspaceBytes;
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublasStatus_t st =
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(lt.handle(), desc_, a_, b_, d_, d_, pref, 1, &result, &found);
    (void)cublasLtMatmulPreferenceDestroy(pref);
    if (st == CUBLAS_STATUS_NOT_SUPPORTED || (st == CUBLAS_STATUS_SUCCESS && found == 0)) {
        unsupported_ = std::string("cuBLASLt has no ") + (s.fp8 ? "fp8" : "bf16") +
                       " algorithm for m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                       " k=" + std::to_string(s.k);
        return;
    }
    if (st != CUBLAS_STATUS_SUCCESS) throw_cublas(st, "cublasLtMatmulAlgoGetHeuristic");
    algo_ = result.algo;
}

LtGemm::LtGemm(LtGemm&& o) noexcept
    : lt_(o.lt_),
      s_(o.s_),
      desc_(o.desc_),
      a_(o.a_),
      b_(o.b_),
      d_(o.d_),
      algo_(o.algo_),
      unsupported_(std::move(o.unsupported_)) {
    o.desc_ = nullptr, o.a_ = o.b_ = o.d_ = nullptr;
}

LtGemm::~LtGemm() {
    if (a_) (void)cublasLtMatrixLayoutDestroy(a_);
    if (b_) (void)cublasLtMatrixLayoutDestroy(b_);
    if (d_) (void)cublasLtMatrixLayoutDestroy(d_);
    if (desc_) (void)cublasLtMatmulDescDestroy(desc_);
}

void LtGemm::run(const void* a, const void* b, void* d, cudaStream_t stream) const {
    if (!unsupported_.empty()) throw BackendError("internal: running an unsupported GEMM (" + unsupported_ + ")");
    const float alpha = 1.0f, beta = 0.0f;
    LS_CUBLAS(cublasLtMatmul(lt_->handle(), desc_, &alpha, a, a_, b, b_, &beta, d, d_, d, d_, &algo_, lt_->workspace(),
                             Lt::kWorkspaceBytes, stream));
}

void fill_operands(const GemmShape& s, void* a, void* b, std::uint64_t seed, cudaStream_t stream) {
    const auto na = static_cast<std::size_t>(s.m * s.k), nb = static_cast<std::size_t>(s.k * s.n);
    if (s.fp8) {
        LS_CUDA(fill_fp8_e4m3(a, na, seed, 1.0f, stream));
        LS_CUDA(fill_fp8_e4m3(b, nb, seed + 1, 1.0f, stream));
    } else {
        LS_CUDA(fill_bf16(a, na, seed, 1.0f, stream));
        LS_CUDA(fill_bf16(b, nb, seed + 1, 1.0f, stream));
    }
}

namespace {

// OCP 8-bit floating point specification (2023), E4M3: bias 7, no infinities, S.1111.111 NaN.
float e4m3_to_float(std::uint8_t v) {
    const int sign = v >> 7, exp = (v >> 3) & 0xF, man = v & 0x7;
    if (exp == 0xF && man == 0x7) return std::nanf("");
    const float mag = exp == 0 ? std::ldexp(static_cast<float>(man) / 8.0f, -6)
                               : std::ldexp(1.0f + static_cast<float>(man) / 8.0f, exp - 7);
    return sign ? -mag : mag;
}

// max |D − reference| / RMS(reference) over a 4×4 grid of outputs, the reference summed in
// double on the host from the very inputs the GPU read. Normalizing by the RMS (not each
// element) keeps an output that happens to be near zero from inflating the error, while a
// wrong layout or a corrupt result still gives an error of order 1.
double check_sample(const GemmShape& s, const void* a, const void* b, const void* d) {
    const std::size_t es = s.fp8 ? 1 : 2;
    const auto k = static_cast<std::size_t>(s.k);
    std::vector<unsigned char> row(k * es), col(k * es);
    double sq = 0, worst = 0;
    int count = 0;
    for (int ii = 0; ii < 4; ++ii) {
        const auto i = static_cast<std::size_t>((s.m - 1) * ii / 3);
        LS_CUDA(
            cudaMemcpy(row.data(), static_cast<const unsigned char*>(a) + i * k * es, k * es, cudaMemcpyDeviceToHost));
        for (int jj = 0; jj < 4; ++jj) {
            const auto j = static_cast<std::size_t>((s.n - 1) * jj / 3);
            LS_CUDA(cudaMemcpy(col.data(), static_cast<const unsigned char*>(b) + j * k * es, k * es,
                               cudaMemcpyDeviceToHost));
            std::uint16_t out = 0;
            LS_CUDA(cudaMemcpy(&out, static_cast<const unsigned char*>(d) + (i + j * static_cast<std::size_t>(s.m)) * 2,
                               2, cudaMemcpyDeviceToHost));
            double ref = 0;
            for (std::size_t l = 0; l < k; ++l) {
                float x, y;
                if (s.fp8) {
                    x = e4m3_to_float(row[l]), y = e4m3_to_float(col[l]);
                } else {
                    std::uint16_t u, v;
                    std::memcpy(&u, &row[2 * l], 2);
                    std::memcpy(&v, &col[2 * l], 2);
                    x = bf16_to_float(u), y = bf16_to_float(v);
                }
                ref += static_cast<double>(x) * static_cast<double>(y);
            }
            const double got = static_cast<double>(bf16_to_float(out));
            if (!std::isfinite(got)) return INFINITY;
            worst = std::max(worst, std::fabs(got - ref));
            sq += ref * ref;
            ++count;
        }
    }
    const double rms = std::sqrt(sq / count);
    return rms > 0 ? worst / rms : worst;
}

}  // namespace

Timing time_gemm(const Lt& lt, const GemmShape& s, int warmup, int repeats) {
    if (s.m <= 0 || s.n <= 0 || s.k <= 0) return {0, 0, "empty GEMM shape", 0};
    LtGemm g(lt, s);
    if (!g.unsupported().empty()) return {0, 0, g.unsupported(), 0};
    // Rotate through copies whose total exceeds 2× L2, so each repeat reads its operands
    // from HBM as in training, not from the cache the previous repeat warmed.
    const std::size_t per = s.a_bytes() + s.b_bytes() + s.d_bytes();
    const std::size_t copies = std::clamp<std::size_t>((2 * l2_bytes() + per - 1) / per, 1, 64);
    require_free(static_cast<double>(per * copies));
    std::vector<DeviceBuffer> a, b, d;
    Stream stream;
    for (std::size_t c = 0; c < copies; ++c) {
        a.emplace_back(s.a_bytes()), b.emplace_back(s.b_bytes()), d.emplace_back(s.d_bytes());
        fill_operands(s, a.back().get(), b.back().get(), 1234 + 2 * c, stream.get());
    }
    const auto run = [&](std::size_t c) { g.run(a[c].get(), b[c].get(), d[c].get(), stream.get()); };
    Timing t = time_calls(
        stream.get(), warmup, repeats, [&](int i) { run(static_cast<std::size_t>(i) % copies); }, "the GEMM");
    run(0);  // copy 0's output for the check, whatever the repeats' rotation left in it
    wait_stream(stream.get(), 600, "the GEMM");
    t.check_error = check_sample(s, a[0].get(), b[0].get(), d[0].get());
    // bf16 output rounding is 2^-9 relative, times max/RMS of the sample (a few): 2e-2
    // leaves room; fp8 adds Hopper's reduced-precision fp8 accumulation (DeepSeek-V3
    // technical report, 2024, §3.3.2), hence looser.
    const double tol = s.fp8 ? 6e-2 : 2e-2;
    if (!(t.check_error <= tol))
        return {0, 0,
                "result check failed: max error " + std::to_string(t.check_error) + " of the RMS, tolerance " +
                    std::to_string(tol),
                t.check_error};
    return t;
}

}  // namespace libscale::harness::cuda
