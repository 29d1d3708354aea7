// Power bands: the edges between the five phases of a GPU's power draw (triage.hpp).
// Edges are fractions of a reference power limit. Default bands scale with each GPU's
// enforced limit (a capped B300 reads 1,100 W, not 1,400 W), so a live source that
// reads the limit moves them; calibrated bands were measured in watts and stay in watts.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "libscale/spec/hardware.hpp"

namespace libscale {

enum class Phase : std::uint8_t { compute, communication, data_starvation, checkpoint_or_deadlock, idle };
inline constexpr int kPhaseCount = 5;
const char* to_string(Phase p);

// Band edges as fractions of board_power_w, low to high:
//   p ≤ idle_max:          idle, or checkpoint_or_deadlock when utilization > idle_util_max_pct
//                          (kernels spinning at idle watts = a hang or a checkpoint)
//   p ≤ checkpoint_max:    checkpoint_or_deadlock
//   p ≤ starvation_max:    data_starvation
//   p ≤ communication_max: communication
//   above:                 compute
struct PowerBands {
    double board_power_w = 0;  // the reference limit the fractions are of
    double idle_max_fraction = 0.10;
    double checkpoint_max_fraction = 0.25;
    double starvation_max_fraction = 0.40;
    double communication_max_fraction = 0.60;
    double idle_util_max_pct = 50;
    // true: the edges follow a GPU's enforced power limit when a source reports one
    // (default bands); false: fixed watts (bands calibrated on the machine).
    bool scale_with_power_limit = true;
    std::string label;  // "default, uncalibrated: ..." or "calibrated: <file> ..."
    // Where each edge comes from (keys: idle_max, checkpoint_max, starvation_max,
    // communication_max, idle_util_max_pct): measured, interpolated or assumed, in words.
    std::map<std::string, std::string> edge_sources;

    void validate() const;  // std::invalid_argument naming field, value, valid range
};

// Defaults for any catalog GPU, labelled "default, uncalibrated" (reasoning in power_bands.cpp).
PowerBands default_power_bands(const HardwareProfile& hw);

// Band edges in watts, precomputed once for the per-sample loop.
struct BandThresholdsW {
    double idle_max_w, checkpoint_max_w, starvation_max_w, communication_max_w, idle_util_max_pct;
};
BandThresholdsW thresholds_w(const PowerBands& b);
// For a GPU whose enforced limit is `power_limit_w` (NaN or ≤ 0: unknown, use board_power_w).
BandThresholdsW thresholds_w(const PowerBands& b, double power_limit_w);

inline Phase raw_phase(double power_w, double util_pct, const BandThresholdsW& t) {
    if (power_w > t.communication_max_w) return Phase::compute;
    if (power_w > t.starvation_max_w) return Phase::communication;
    if (power_w > t.checkpoint_max_w) return Phase::data_starvation;
    if (power_w > t.idle_max_w) return Phase::checkpoint_or_deadlock;
    return util_pct > t.idle_util_max_pct ? Phase::checkpoint_or_deadlock : Phase::idle;  // NaN → idle
}

// One GPU's reading in a measured phase: median board power and utilization (NaN: not
// read, as in a measurement file written before the harness recorded it).
struct PhaseReading {
    double watts = 0;
    double utilization_pct = std::numeric_limits<double>::quiet_NaN();
};

// Bands measured on the machine (the calibration harness's phases, calibration/): readings
// per phase (keys: the Phase names), `power_limit_w` the enforced limit during the
// measurement; edges in watts. Each edge is halfway between the medians of the phases it
// separates, except:
//  * a hang may draw idle watts (a kernel polling a flag reads 100 % utilization at idle
//    power, as a hung NCCL collective does): when checkpoint_or_deadlock draws less than
//    kWattsSeparate × idle's watts, utilization separates them (idle_util_max_pct halfway
//    between their utilizations, which must differ by kUtilSeparatePct points) and the idle
//    edge sits kWattsSeparate above the higher of the two;
//  * without a communication phase (one GPU has no collective), its watts are interpolated
//    halfway between data_starvation and compute, and the two edges beside it say so.
// edge_sources says which edge came from where. Throws std::invalid_argument naming the
// phase when idle, checkpoint_or_deadlock, data_starvation or compute is missing or empty,
// a reading is not finite and > 0 (utilization: NaN or in [0, 100]), or the phases separate
// by neither watts nor utilization.
inline constexpr double kWattsSeparate = 1.1;
inline constexpr double kUtilSeparatePct = 20;
PowerBands power_bands_from_phases(const std::map<std::string, std::vector<PhaseReading>>& readings,
                                   double power_limit_w, std::string label);

// The "power_bands" section of a calibration file (schema libscale.calibration/1), which
// the micro-run harness writes after measuring each phase on the machine:
//   "power_bands": {"basis": "watts" | "fraction_of_power_limit",
//                   "power_limit_w": 1100,            // the limit during the measurement
//                   "idle_max": 120, "checkpoint_max": 280, "starvation_max": 450,
//                   "communication_max": 700,         // watts, or fractions by basis
//                   "idle_util_max_pct": 50,          // optional
//                   "source": "what was measured, when",
//                   "edges": {"idle_max": "how this edge was set", ...}}  // optional
// Errors (ParseError) name the origin and the field. read_power_bands
// (calibration_file.hpp) reads it from a file.
PowerBands power_bands_from_json(const nlohmann::json& section, std::string_view origin);
nlohmann::json power_bands_to_json(const PowerBands& b, std::string_view source);

}  // namespace libscale
