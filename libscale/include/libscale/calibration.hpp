// Coefficients the step model consumes: achieved compute efficiency, collective
// latency and bandwidth per link level, memory-bandwidth efficiency, per-phase power.
// A default calibration per hardware ships in calibration/data/calibrations; fitted
// ones come from measurements. Values here are resolved to absolute units.
#pragma once

#include <iosfwd>
#include <string>

namespace libscale {

struct HardwareProfile;

struct LinkLevel {
    double alpha_s = 0;             // latency per ring step
    double busbw_bytes_per_s = 0;   // nccl-tests "bus bandwidth"
};

struct Calibration {
    std::string hardware;
    std::string kind = "default";   // "default" (uncalibrated), "derived", "fitted"
    std::string source;
    // η(t) = eta_max · t / (t + half_saturation_tokens), t = tokens per micro-batch per GPU
    double eta_max = 0;
    double half_saturation_tokens = 0;
    LinkLevel intra_node;
    LinkLevel inter_node;
    double hbm_efficiency = 0;      // achieved / peak HBM bandwidth, memory-bound kernels
    double reserved_gib = 0;        // per-GPU memory not available to the model
    double power_compute_w = 0;     // board watts while computing
    double power_comm_w = 0;        // while waiting on exposed communication
    double power_idle_w = 0;        // while idle (data wait, checkpoint)
    double step_overhead_s = 0;     // fixed time per step nothing else explains (fitted)

    void validate() const;
    double eta(double tokens_per_micro_batch) const {
        return eta_max * tokens_per_micro_batch / (tokens_per_micro_batch + half_saturation_tokens);
    }
};

// Fractions as the default-calibration files state them, resolved against a hardware.
struct CalibrationFractions {
    double eta_max = 0;
    double half_saturation_tokens = 0;
    double intra_alpha_us = 0;
    double intra_busbw_fraction = 0;  // of unidirectional NVLink line rate
    double inter_alpha_us = 0;
    double inter_busbw_fraction = 0;  // of NIC line rate
    double hbm_efficiency = 0;
    double reserved_gib = 0;
    double power_compute_fraction = 0;  // of board power
    double power_comm_fraction = 0;
    double power_idle_fraction = 0;     // used only where the hardware has no idle figure
};

Calibration resolve_calibration(const CalibrationFractions& f, const HardwareProfile& hw,
                                std::string kind, std::string source);

std::ostream& operator<<(std::ostream& os, const LinkLevel& l);
std::ostream& operator<<(std::ostream& os, const Calibration& c);

}  // namespace libscale
