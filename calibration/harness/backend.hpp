// The interface between the harness's phases (runner.hpp) and a machine: the CUDA backend
// (calibration/cuda: cuBLASLt, cuDNN, NCCL, NVML) or the simulated one (simulated.hpp),
// which produces times from known coefficients for tests on machines without a GPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan.hpp"
#include "world.hpp"

namespace libscale::harness {

// One timed case: the median of the repeats, or why there is none.
struct Timing {
    double seconds = 0;      // median over repeats
    double spread = 0;       // (P90 − P10) / median of the repeats
    std::string skipped;     // non-empty: not measured (out of memory, unsupported), and why
    double check_error = 0;  // max relative error against the reference on a sample (0: not checked)
};

struct PowerPhaseResult {
    double watts = 0;            // median of the samples after the settling time
    double utilization_pct = 0;  // median
    int samples = 0;
    std::string skipped;
};

// A fault of the machine that ends the phase on this rank (a GPU that fell off the bus, an
// NCCL error): the runner records what was measured and exits non-zero.
class BackendError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;  // "cuda" | "simulated"
    // The fused-attention kernel attention() times: its records and the fitted calibration
    // name it, so that projections scale other kernels relative to it.
    virtual AttentionKernel attention_kernel() const = 0;
    // GPU name, memory, clocks, power limit, driver / CUDA / cuBLAS / cuDNN / NCCL versions.
    virtual nlohmann::json device_info() = 0;
    virtual Timing gemm(const GemmCase& c, int warmup, int repeats) = 0;
    virtual Timing attention(const AttentionCase& c, int warmup, int repeats) = 0;
    virtual Timing bandwidth(const BandwidthCase& c, int warmup, int repeats) = 0;
    // Every rank calls these in the same order; ranks outside the case's ring take part
    // in setting it up and return a Timing with `skipped` = "not in the ring".
    virtual Timing collective(World& w, const CollectiveCase& c, int warmup, int repeats, double timeout_s) = 0;
    virtual Timing microrun(World& w, const Plan& p, const MicrorunCase& c, int warmup, int repeats,
                            double timeout_s) = 0;
    // Runs the phase on this rank's GPU for `seconds` while sampling its power.
    virtual PowerPhaseResult power_phase(World& w, PowerPhaseKind k, double seconds, double timeout_s) = 0;
};

}  // namespace libscale::harness
