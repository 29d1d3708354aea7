#include "libscale/calibrate/calibration.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "libscale/spec/hardware.hpp"

namespace libscale {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// expr is a member path (gemm.eta_max): `c.(expr)` would not compile, hence the NOLINT.
#define LIBSCALE_REF(expr) [](Calibration& c) -> double& { return c.expr; }  // NOLINT(bugprone-macro-parentheses)

// Floors of what a machine can be: an efficiency of 1e-300 or a link of 1e-300 B/s is
// accepted by "> 0" but projects a step of 1e300 s (a unit slip or a typo, not a machine).
// 0.1 % of peak is far below any kernel measured (docs/calibration.md) and 1 MB/s below any
// NVLink or NIC; a value under them is refused naming the coefficient.
constexpr double kMinEfficiency = 1e-3;
constexpr double kMinBusBytesPerS = 1e6;

// The one declaration of every coefficient (name = path in a calibration file).
constexpr std::array kCoefficients{
    CoefficientInfo{"gemm.eta_max", "fraction", kMinEfficiency, 1, false,
                    "bf16 GEMM: fraction of per-SM peak a full output tile reaches at long K",
                    LIBSCALE_REF(gemm.eta_max)},
    CoefficientInfo{"gemm.fp8_eta_max", "fraction", 0, 1, false,
                    "fp8 GEMM: the same for fp8 operands (0: no fp8 on this hardware)", LIBSCALE_REF(gemm.fp8_eta_max)},
    CoefficientInfo{"gemm.tile_m", "rows", 1, 4096, false, "output tile rows per thread block",
                    LIBSCALE_REF(gemm.tile_m)},
    CoefficientInfo{"gemm.tile_n", "columns", 1, 4096, false, "output tile columns per thread block",
                    LIBSCALE_REF(gemm.tile_n)},
    CoefficientInfo{"gemm.k_half", "elements", 0, 1e9, false,
                    "inner dimension at which a tile runs at half of eta_max (pipeline fill and epilogue)",
                    LIBSCALE_REF(gemm.k_half)},
    CoefficientInfo{"attention.forward_eta_max", "fraction", kMinEfficiency, 1, false,
                    "flash-attention forward: fraction of peak at long sequences, head_dim 128",
                    LIBSCALE_REF(attention.forward_eta_max)},
    CoefficientInfo{"attention.forward_half_seq", "tokens", 0, 1e9, false,
                    "sequence length at which the forward runs at half its maximum",
                    LIBSCALE_REF(attention.forward_half_seq)},
    CoefficientInfo{"attention.backward_eta_max", "fraction", kMinEfficiency, 1, false,
                    "flash-attention backward: fraction of peak at long sequences (2.5x forward FLOPs)",
                    LIBSCALE_REF(attention.backward_eta_max)},
    CoefficientInfo{"attention.backward_half_seq", "tokens", 0, 1e9, false,
                    "sequence length at which the backward runs at half its maximum",
                    LIBSCALE_REF(attention.backward_half_seq)},
    CoefficientInfo{"attention.head_dim_half", "elements", 0, 1e6, false,
                    "head_dim at which attention efficiency halves (normalized at head_dim 128)",
                    LIBSCALE_REF(attention.head_dim_half)},
    CoefficientInfo{"hbm_efficiency", "fraction", kMinEfficiency, 1, false,
                    "achieved fraction of peak HBM bandwidth in memory-bound kernels", LIBSCALE_REF(hbm_efficiency)},
    CoefficientInfo{"framework_efficiency", "fraction", kMinEfficiency, 2, false,
                    "the trainer's rate relative to the kernel laws (GEMM, attention, memory-bound)",
                    LIBSCALE_REF(framework_efficiency)},
    CoefficientInfo{"kernel_overhead_s", "s", 0, 1, false, "host time to issue one kernel",
                    LIBSCALE_REF(kernel_overhead_s)},
    CoefficientInfo{"layer_overhead_s", "s", 0, 10, false, "host time per decoder layer and pass (framework hooks)",
                    LIBSCALE_REF(layer_overhead_s)},
    CoefficientInfo{"intra_node.alpha_s", "s", 0, 1, false, "NVLink ring latency per step",
                    LIBSCALE_REF(intra_node.alpha_s)},
    CoefficientInfo{"intra_node.busbw_bytes_per_s", "B/s", kMinBusBytesPerS, kInf, false,
                    "NVLink bus bandwidth (nccl-tests busbw)", LIBSCALE_REF(intra_node.busbw_bytes_per_s)},
    CoefficientInfo{"inter_node.alpha_s", "s", 0, 1, false, "network ring latency per step",
                    LIBSCALE_REF(inter_node.alpha_s)},
    CoefficientInfo{"inter_node.busbw_bytes_per_s", "B/s", kMinBusBytesPerS, kInf, false,
                    "network bus bandwidth per GPU", LIBSCALE_REF(inter_node.busbw_bytes_per_s)},
    CoefficientInfo{"reserved_gib", "GiB", 0, 1e6, false,
                    "per-GPU memory the model cannot use (CUDA context, workspaces, NCCL)", LIBSCALE_REF(reserved_gib)},
    CoefficientInfo{"fragmentation", "fraction", 0, 1, false,
                    "caching allocator's reserved-but-unallocated memory, as a fraction of allocated",
                    LIBSCALE_REF(fragmentation)},
    CoefficientInfo{"memory_margin", "fraction", 0, 0.9, false,
                    "relative uncertainty of the memory estimate: within it a fit is 'uncertain'",
                    LIBSCALE_REF(memory_margin)},
    CoefficientInfo{"power.compute_w", "W", 0, 1e5, false, "board power while computing",
                    LIBSCALE_REF(power_compute_w)},
    CoefficientInfo{"power.comm_w", "W", 0, 1e5, false, "board power while waiting on exposed communication",
                    LIBSCALE_REF(power_comm_w)},
    CoefficientInfo{"power.idle_w", "W", 0, 1e5, false, "board power while idle", LIBSCALE_REF(power_idle_w)},
    CoefficientInfo{"step_overhead_s", "s", 0, 1e6, false, "fixed time per step nothing else explains",
                    LIBSCALE_REF(step_overhead_s)},
};

#undef LIBSCALE_REF

std::string valid_names() {
    std::string out;
    for (const CoefficientInfo& c : kCoefficients) out += (out.empty() ? "" : ", ") + std::string(c.name);
    return out;
}

}  // namespace

std::span<const CoefficientInfo> calibration_coefficients() { return kCoefficients; }

const CoefficientInfo& coefficient_info(std::string_view name) {
    for (const CoefficientInfo& c : kCoefficients)
        if (name == c.name) return c;
    throw std::invalid_argument("unknown calibration coefficient '" + std::string(name) + "'; valid: " + valid_names());
}

double get_parameter(const Calibration& c, std::string_view name) {
    return coefficient_info(name).ref(const_cast<Calibration&>(c));
}

void set_parameter(Calibration& c, std::string_view name, double value) { coefficient_info(name).ref(c) = value; }

bool drawn_in_log_space(std::string_view name) {
    return name.starts_with("gemm.") || name.starts_with("attention.") || name == "hbm_efficiency" ||
           name == "framework_efficiency" || name == "kernel_overhead_s" || name == "layer_overhead_s";
}

std::string spread_problem(std::string_view name, double mean, double sd_value) {
    constexpr double kMaxLogSd = 3;        // e^3 = 20 × at one sigma
    constexpr double kMaxRelativeSd = 10;  // unbounded ranges (bandwidths)
    const CoefficientInfo& info = coefficient_info(name);
    std::string unit;  // built by appending: GCC 12's -Wrestrict misfires on "x" + std::string at -O3
    if (std::string_view(info.unit) != "fraction") unit.append(" ").append(info.unit);
    std::ostringstream why;
    why.precision(4);
    if (std::isfinite(info.max) && sd_value > info.max - info.min)
        why << "a standard deviation of " << sd_value << unit << " is wider than the whole valid range [" << info.min
            << ", " << info.max << "]";
    else if (drawn_in_log_space(name) && mean > 0 && sd_value / mean > kMaxLogSd)
        why << "a standard deviation of " << sd_value << unit << " is " << sd_value / mean << " x the value " << mean
            << " (drawn in log space, at most " << kMaxLogSd << " x)";
    else if (!std::isfinite(info.max) && mean > 0 && sd_value / mean > kMaxRelativeSd)
        why << "a standard deviation of " << sd_value << unit << " is " << sd_value / mean << " x the value " << mean
            << " (at most " << kMaxRelativeSd << " x)";
    const std::string s = why.str();
    return s.empty() ? s : s + "; is it a variance where a standard deviation was meant, or a unit slip?";
}

void Calibration::validate() const {
    Calibration& self = const_cast<Calibration&>(*this);
    for (const CoefficientInfo& info : kCoefficients) {
        const double v = info.ref(self);
        const bool ok = std::isfinite(v) && (info.min_exclusive ? v > info.min : v >= info.min) && v <= info.max;
        if (ok) continue;
        std::ostringstream msg;
        msg << "calibration for '" << hardware << "': " << info.name << " = " << v << "; it must be in "
            << (info.min_exclusive ? "(" : "[") << info.min << ", ";
        if (std::isinf(info.max)) msg << "inf)";
        else msg << info.max << "]";
        msg << " " << info.unit << " (" << info.help << ")";
        throw std::invalid_argument(msg.str());
    }
}

Calibration resolve_calibration(const CalibrationFractions& f, const HardwareProfile& hw, std::string kind,
                                std::string source) {
    Calibration c;
    c.hardware = hw.name;
    c.kind = std::move(kind);
    c.source = std::move(source);
    c.gemm = f.gemm;
    c.attention = f.attention;
    c.framework_efficiency = f.framework_efficiency;
    c.kernel_overhead_s = f.kernel_overhead_s;
    c.layer_overhead_s = f.layer_overhead_s;
    c.step_overhead_s = f.step_overhead_s;
    c.intra_node = {f.intra_alpha_us * 1e-6, f.intra_busbw_fraction * hw.nvlink_bytes_per_s_unidir()};
    c.inter_node = {f.inter_alpha_us * 1e-6, f.inter_busbw_fraction * hw.nic_bytes_per_s()};
    c.hbm_efficiency = f.hbm_efficiency;
    c.reserved_gib = f.reserved_gib;
    c.fragmentation = f.fragmentation;
    c.memory_margin = f.memory_margin;
    c.power_compute_w = f.power_compute_fraction * hw.board_power_w;
    c.power_comm_w = f.power_comm_fraction * hw.board_power_w;
    c.power_idle_w = std::isnan(hw.idle_power_w) ? f.power_idle_fraction * hw.board_power_w : hw.idle_power_w;
    c.validate();
    return c;
}

std::ostream& operator<<(std::ostream& os, const LinkLevel& l) {
    return os << "LinkLevel(alpha_s=" << l.alpha_s << ", busbw_bytes_per_s=" << l.busbw_bytes_per_s << ")";
}

std::ostream& operator<<(std::ostream& os, const Calibration& c) {
    return os << "Calibration(hardware='" << c.hardware << "', kind='" << c.kind << "', gemm_eta_max=" << c.gemm.eta_max
              << ", attention_forward_eta_max=" << c.attention.forward_eta_max
              << ", hbm_efficiency=" << c.hbm_efficiency << ", kernel_overhead_s=" << c.kernel_overhead_s
              << ", intra_node_busbw_gbps=" << c.intra_node.busbw_bytes_per_s / 1e9
              << ", inter_node_busbw_gbps=" << c.inter_node.busbw_bytes_per_s / 1e9 << ")";
}

}  // namespace libscale
