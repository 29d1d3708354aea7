// Coefficients the step model consumes, per hardware: the per-operation compute laws
// (GEMM, fused attention, memory-bound kernels, host overheads; docs/model.md "Compute"),
// collective latency and bandwidth per link level, memory and per-phase power.
// A default calibration per hardware ships in calibration/data/calibrations; fitted
// ones come from measurements. Values here are resolved to absolute units.
#pragma once

#include <iosfwd>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "libscale/spec/training_config.hpp"

namespace libscale {

struct HardwareProfile;

struct LinkLevel {
    double alpha_s = 0;            // latency per ring step
    double busbw_bytes_per_s = 0;  // nccl-tests "bus bandwidth"
};

// A GEMM's time: the output is cut into tile_m × tile_n tiles, one per thread block; the
// tiles run in waves of sm_count blocks and each wave takes one tile's time, 2·K·tile_m·
// tile_n / (per-SM peak · eta_max · K/(K + k_half)). A memory roofline (operands and
// result over HBM) bounds it from below. See docs/model.md "GEMM".
struct GemmLaw {
    double eta_max = 0;      // bf16: fraction of per-SM peak a full tile reaches at long K
    double fp8_eta_max = 0;  // the same in fp8 (0: no fp8 GEMM on this hardware)
    double tile_m = 128;     // output tile rows per thread block
    double tile_n = 256;     // output tile columns per thread block
    double k_half = 0;       // inner dimension at which a tile runs at half eta_max
};

// Fused (flash) attention: FLOP rate = peak · eta_max · s/(s + half_seq) · g(d_h), with
// s the attended sequence length and g(d_h) = [d_h/(d_h + head_dim_half)] /
// [128/(128 + head_dim_half)]. Forward and backward have their own maxima and half
// lengths; backward counts 2.5× the forward FLOPs (it recomputes QKᵀ).
struct AttentionLaw {
    double forward_eta_max = 0;
    double forward_half_seq = 0;
    double backward_eta_max = 0;
    double backward_half_seq = 0;
    double head_dim_half = 0;
};

struct Calibration {
    std::string hardware;
    std::string kind = "default";  // "default" (uncalibrated), "derived", "fitted"
    std::string source;
    GemmLaw gemm;
    AttentionLaw attention;
    // The fused-attention kernel the attention law was measured with: FlashAttention-2 for
    // the published charts of the defaults, cuDNN's SDPA for the harness's CUDA backend.
    // A projection with another attention_kernel scales the law by that kernel's published
    // ratio relative to this one (compute_model.cpp), never on top of a measured kernel.
    AttentionKernel attention_kernel = AttentionKernel::flash2;
    double hbm_efficiency = 0;  // achieved / peak HBM bandwidth of memory-bound kernels
    // A trainer's rate relative to the kernel laws above, common to GEMMs, attention and
    // memory-bound kernels (clocks under sustained power, SMs shared with collectives,
    // allocator and synchronization stalls): what step records measure once kernel
    // micro-runs have measured the laws (docs/model.md "Framework efficiency").
    double framework_efficiency = 1;
    double kernel_overhead_s = 0;  // host time to issue one kernel (launch, dispatch)
    double layer_overhead_s = 0;   // host time per decoder layer and pass (framework hooks)
    LinkLevel intra_node;
    LinkLevel inter_node;
    double reserved_gib = 0;     // per-GPU memory not available to the model
    double fragmentation = 0;    // allocator's reserved-but-unallocated share, of allocated bytes
    double memory_margin = 0;    // relative uncertainty of the memory estimate
    double power_compute_w = 0;  // board watts while computing
    double power_comm_w = 0;     // while waiting on exposed communication
    double power_idle_w = 0;     // while idle (data wait, checkpoint)
    double step_overhead_s = 0;  // fixed time per step nothing else explains (fitted)

    // Throws std::invalid_argument naming the coefficient, its value and its valid range.
    void validate() const;
};

// Every coefficient, declared once: its dotted name (the key path in a calibration
// file's "coefficients"), unit, valid range and meaning. Validation, the file reader and
// writer, the fitter and the uncertainty sampler all go through this table.
struct CoefficientInfo {
    const char* name;
    const char* unit;
    double min, max;     // valid closed range
    bool min_exclusive;  // (min, max]: efficiencies and bandwidths must be > 0
    const char* help;
    double& (*ref)(Calibration&);
};

std::span<const CoefficientInfo> calibration_coefficients();
// Throws std::invalid_argument listing the valid names.
const CoefficientInfo& coefficient_info(std::string_view name);
double get_parameter(const Calibration& c, std::string_view name);
void set_parameter(Calibration& c, std::string_view name, double value);

// The compute and overhead coefficients were fitted as log-normal (fit_compute.cpp): the
// projection's Monte Carlo draws them in log space, which keeps them positive.
bool drawn_in_log_space(std::string_view name);

// Why a standard deviation `sd_value` is too wide for coefficient `name` at `mean` ("" when
// it is not): wider than the coefficient's whole valid range, more than 3 in log space for
// a log-drawn one (a factor of 20 at one sigma), or more than 10 × its mean where the range
// has no upper end. Such a spread is a slip (a variance where a relative sd was meant, a
// unit) that would make every P10/P90 the range's clamps instead of a statement. The shipped
// files' widest is 1.0 × the mean (docs/calibration.md).
std::string spread_problem(std::string_view name, double mean, double sd_value);

// The compute, memory and overhead coefficients as a default file states them (absolute,
// hardware-independent), plus the fractions resolved against the hardware's figures.
struct CalibrationFractions {
    GemmLaw gemm;
    AttentionLaw attention;
    double framework_efficiency = 1;
    double kernel_overhead_s = 0;
    double layer_overhead_s = 0;
    double step_overhead_s = 0;
    double intra_alpha_us = 0;
    double intra_busbw_fraction = 0;  // of unidirectional NVLink line rate
    double inter_alpha_us = 0;
    double inter_busbw_fraction = 0;  // of NIC line rate
    double hbm_efficiency = 0;
    double reserved_gib = 0;
    double fragmentation = 0;
    double memory_margin = 0;
    double power_compute_fraction = 0;  // of board power
    double power_comm_fraction = 0;
    double power_idle_fraction = 0;  // used only where the hardware has no idle figure
    // Prior standard deviation of log(value) of each coefficient the fitter may move.
    std::map<std::string, double> prior_log_sd;
    // Standard deviation of log(value) of the shipped measurements around this default
    // (the default file's "spread"): an uncalibrated projection's P10–P90 comes from it.
    std::map<std::string, double> spread_log_sd;
};

Calibration resolve_calibration(const CalibrationFractions& f, const HardwareProfile& hw, std::string kind,
                                std::string source);

std::ostream& operator<<(std::ostream& os, const LinkLevel& l);
std::ostream& operator<<(std::ostream& os, const Calibration& c);

}  // namespace libscale
