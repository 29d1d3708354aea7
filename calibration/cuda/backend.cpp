// The CUDA backend (cuda_backend.hpp): binds the rank to its GPU and runs each case with
// the pieces of this folder. Behaves at the Backend interface as simulated.cpp does: the
// same barriers, "not in the ring" for ranks outside a ring, "out of memory: …" skips, and
// BackendError (naming the case) for faults.
#include <cublasLt.h>

#include <algorithm>
#include <sstream>

#include "attention_cudnn.hpp"
#include "cuda_backend.hpp"
#include "gemm_cublaslt.hpp"
#include "kernels.hpp"
#include "microrun.hpp"
#include "nccl_collectives.hpp"
#include "power.hpp"
#include "stats.hpp"

namespace libscale::harness {

std::string cuda_backend_features() {
    std::string f = "cuBLASLt";
    const std::string a = cuda::attention_unavailable();
    f += a.empty() ? ", cuDNN SDPA" : ", no fused attention (" + a + ")";
    f += cuda::Nccl::built() ? ", NCCL " + cuda::Nccl::version()
                             : ", no NCCL (collectives and multi-GPU micro-runs skipped)";
    return f + ", NVML (dlopen)";
}

namespace cuda {
namespace {

// Runs a case: out of memory becomes a skip, a fault a BackendError that names the case.
template <class F>
Timing guarded(const std::string& what, F&& f) {
    try {
        return f();
    } catch (const OutOfMemory& e) {
        return {0, 0, e.what(), 0};
    } catch (const BackendError& e) {
        throw BackendError(what + ": " + e.what());
    }
}

class CudaBackend final : public Backend {
public:
    CudaBackend(World& w, const HardwareProfile& hw) : hw_(hw), rank_(w.rank()) {
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e != cudaSuccess)
            throw BackendError("rank " + std::to_string(rank_) + ": no usable GPU: cudaGetDeviceCount failed with " +
                               cuda_error_text(e));
        // A launcher that binds each task to its GPU (Slurm's --gpus-per-task, or
        // CUDA_VISIBLE_DEVICES set per rank) leaves one device visible: it is this rank's.
        const int device = count == 1 ? 0 : w.local_rank();
        if (device >= count)
            throw BackendError("rank " + std::to_string(rank_) + " needs GPU " + std::to_string(device) +
                               " of its node, but CUDA sees " + std::to_string(count) +
                               " (one process per GPU: launch as many ranks per node as GPUs)");
        if (const cudaError_t s = cudaSetDevice(device); s != cudaSuccess)
            throw BackendError("rank " + std::to_string(rank_) + ": cudaSetDevice(" + std::to_string(device) +
                               ") failed with " + cuda_error_text(s));
        LS_CUDA(cudaFree(nullptr));  // make the context now, so a broken GPU fails here
        lt_ = std::make_unique<Lt>();
        nvml_ = std::make_unique<NvmlGpu>(w.local_rank());
    }

    std::string name() const override { return "cuda"; }
    AttentionKernel attention_kernel() const override { return AttentionKernel::cudnn; }  // attention_cudnn.cpp

    nlohmann::json device_info() override {
        int dev = 0, driver = 0, runtime = 0;
        LS_CUDA(cudaGetDevice(&dev));
        cudaDeviceProp p{};
        LS_CUDA(cudaGetDeviceProperties(&p, dev));
        LS_CUDA(cudaDriverGetVersion(&driver));
        LS_CUDA(cudaRuntimeGetVersion(&runtime));
        const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
        nlohmann::json j = {
            {"gpu_name", p.name},
            {"memory_gib", static_cast<double>(p.totalGlobalMem) / 1073741824.0},
            {"sm_count", p.multiProcessorCount},
            {"compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor)},
            // kHz in CUDA 12's cudaDevAttrClockRate / MemoryClockRate
            {"sm_clock_mhz", device_attribute(cudaDevAttrClockRate) / 1000},
            {"memory_clock_mhz", device_attribute(cudaDevAttrMemoryClockRate) / 1000},
            {"driver_version", version(driver)},
            {"cuda_runtime_version", version(runtime)},
            {"cublaslt_version", cublasLtGetVersion()},
            {"cuda_backend", cuda_backend_features()},
        };
        if (const std::string v = cudnn_version(); !v.empty()) j["cudnn_version"] = v;
        if (const std::string v = Nccl::version(); !v.empty()) j["nccl_version"] = v;
        if (nvml_->error().empty()) {
            j["power_limit_w"] = nvml_->power_limit_w();
            j["nvml_uuid"] = nvml_->uuid();
            j["nvml_match"] = nvml_->match();
        } else {
            j["nvml_error"] = nvml_->error();
        }
        return j;
    }

    Timing gemm(const GemmCase& c, int warmup, int repeats) override {
        const GemmShape s{std::llround(c.m), std::llround(c.n), std::llround(c.k), c.fp8};
        return guarded(describe(c), [&] { return time_gemm(*lt_, s, warmup, repeats); });
    }

    Timing attention(const AttentionCase& c, int warmup, int repeats) override {
        return guarded("attention", [&] { return time_attention(c, warmup, repeats); });
    }

    Timing bandwidth(const BandwidthCase& c, int warmup, int repeats) override {
        return guarded("bandwidth " + std::to_string(c.bytes) + " B", [&] {
            const auto half = static_cast<std::size_t>(c.bytes / 2);
            // As the GEMM timing: rotate through copies whose total exceeds 2× L2. The plan's
            // smaller cases (8 and 32 MiB) fit in an H100's 50 MB L2, and repeats of one pair
            // would then time L2, not HBM, bandwidth.
            const std::size_t per = std::max<std::size_t>(2 * half, 1);
            const std::size_t copies = std::clamp<std::size_t>((2 * l2_bytes() + per - 1) / per, 1, 64);
            require_free(static_cast<double>(per * copies));
            std::vector<DeviceBuffer> src, dst;
            Stream s;
            for (std::size_t i = 0; i < copies; ++i) {
                src.emplace_back(half), dst.emplace_back(half);
                LS_CUDA(cudaMemsetAsync(src.back().get(), 1, half, s.get()));
            }
            // cudaMemcpyAsync, not a kernel of ours: it is what PyTorch's copy_ of a contiguous
            // tensor and FSDP2's copies run, and the rates of the other memory-bound kernel
            // classes are measured against it (docs/model.md "Memory-bound work"). On one H200
            // a hand-written uint4 copy kernel reached 3.92 TB/s at 2 GiB where a training
            // step's memcpys ran at 4.20.
            const auto run = [&](int r) {
                const auto i = static_cast<std::size_t>(r) % copies;
                LS_CUDA(cudaMemcpyAsync(dst[i].get(), src[i].get(), half, cudaMemcpyDeviceToDevice, s.get()));
            };
            return time_calls(s.get(), warmup, repeats, run, "the bandwidth kernel");
        });
    }

    Timing collective(World& w, const CollectiveCase& c, int warmup, int repeats, double timeout_s) override {
        // Ranks synchronize per case, as the simulated backend does.
        w.barrier(timeout_s, "collectives");
        if (!Nccl::built()) {
            if (rank_ >= c.ranks) return {0, 0, "not in the ring", 0};
            return nccl(w, timeout_s).time(c, warmup, repeats, timeout_s);  // the "built without NCCL" skip
        }
        return guarded(std::string(to_string(c.op)) + " over " + std::to_string(c.ranks) + " ranks",
                       [&] { return nccl(w, timeout_s).time(c, warmup, repeats, timeout_s); });
    }

    Timing microrun(World& w, const Plan& p, const MicrorunCase& c, int warmup, int repeats,
                    double timeout_s) override {
        w.barrier(timeout_s, "microrun");
        return guarded("step micro-run on " + std::to_string(c.config.gpus) + " GPUs",
                       [&] { return run_microrun(w, p, c, warmup, repeats, timeout_s, *lt_, nccl(w, timeout_s)); });
    }

    PowerPhaseResult power_phase(World& w, PowerPhaseKind k, double seconds, double timeout_s) override {
        w.barrier(timeout_s, "power");
        try {
            return run_power_phase(w, k, seconds, timeout_s, *nvml_, *lt_, nccl(w, timeout_s));
        } catch (const OutOfMemory& e) {
            return {0, 0, 0, e.what()};
        } catch (const BackendError& e) {
            throw BackendError(std::string("power phase ") + to_string(k) + ": " + e.what());
        }
    }

private:
    Nccl& nccl(World& w, double timeout_s) {
        if (!nccl_) nccl_ = std::make_unique<Nccl>(w, timeout_s);
        return *nccl_;
    }

    HardwareProfile hw_;
    int rank_ = 0;
    std::unique_ptr<Lt> lt_;
    std::unique_ptr<NvmlGpu> nvml_;
    std::unique_ptr<Nccl> nccl_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<Backend> make_cuda_backend(World& w, const HardwareProfile& hw) {
    return std::make_unique<cuda::CudaBackend>(w, hw);
}

}  // namespace libscale::harness
