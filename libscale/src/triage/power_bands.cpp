#include "libscale/triage/power_bands.hpp"
#include "libscale/estimate/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "libscale/io/error.hpp"

namespace libscale {

namespace {

void require(bool ok, const char* field, double v, const char* valid) {
    if (ok) return;
    std::ostringstream msg;
    msg << "PowerBands." << field << " = " << v << "; " << valid;
    throw std::invalid_argument(msg.str());
}

[[noreturn]] void fail(std::string_view origin, const std::string& field, const std::string& what) {
    throw ParseError(std::string(origin) + ": power_bands." + field + " " + what);
}

double number(const nlohmann::json& s, const char* key, std::string_view origin) {
    const auto it = s.find(key);
    if (it == s.end()) fail(origin, key, "is missing");
    if (!it->is_number() || !std::isfinite(it->get<double>()))
        fail(origin, key, "= " + it->dump() + "; expected a finite number");
    return it->get<double>();
}

}  // namespace

const char* to_string(Phase p) {
    switch (p) {
        case Phase::compute: return "compute";
        case Phase::communication: return "communication";
        case Phase::data_starvation: return "data_starvation";
        case Phase::checkpoint_or_deadlock: return "checkpoint_or_deadlock";
        case Phase::idle: return "idle";
    }
    return "?";
}

void PowerBands::validate() const {
    require(std::isfinite(board_power_w) && board_power_w > 0, "board_power_w", board_power_w,
            "it must be a positive number of watts");
    require(idle_max_fraction > 0 && idle_max_fraction < checkpoint_max_fraction, "idle_max_fraction",
            idle_max_fraction, "it must be in (0, checkpoint_max_fraction)");
    require(checkpoint_max_fraction < starvation_max_fraction, "checkpoint_max_fraction", checkpoint_max_fraction,
            "it must be below starvation_max_fraction");
    require(starvation_max_fraction < communication_max_fraction, "starvation_max_fraction", starvation_max_fraction,
            "it must be below communication_max_fraction");
    require(communication_max_fraction < 1, "communication_max_fraction", communication_max_fraction,
            "it must be below 1 (the board power limit)");
    require(idle_util_max_pct >= 0 && idle_util_max_pct < 100, "idle_util_max_pct", idle_util_max_pct,
            "it must be in [0, 100)");
}

// Default bands, "default, uncalibrated". Evidence and assumptions:
//  * idle_max = max(1.1 × idle_power_w, 10% of board). Evidence: idle H100s read 69-75 W in
//    public nvidia-smi snapshots (catalog idle_power_w 70.6 W of 700 W, hardware/h100.json), i.e.
//    about 10% of the limit; a hung job "drops to around ~10%" (LambdaLabsML/
//    distributed-training-guide, 06-diagnosing-errors); NVIDIA/nccl#968 "GPU util is 100%
//    but the power consumption is pretty low (~70W)". The 1.1 margin (covering the
//    69-75 W scatter around 70.6 W) is an ASSUMPTION. Below this edge, utilization
//    separates idle (no kernel) from checkpoint_or_deadlock (kernels spinning on flags);
//    the 50% utilization edge is an ASSUMPTION.
//  * checkpoint_max = 25% of board: ASSUMPTION (a save keeps the GPU near idle with a few
//    copy kernels; a hang spins at ~10%).
//  * starvation_max = 40% of board: ASSUMPTION (short bursts of compute between waits for
//    the input pipeline average out low).
//  * communication_max = 60% of board: ASSUMPTION (collectives keep SMs and HBM busy but
//    not the tensor cores); compute is above it (dense training runs near the limit).
PowerBands default_power_bands(const HardwareProfile& hw) {
    require(std::isfinite(hw.board_power_w) && hw.board_power_w > 0, "board_power_w (of the hardware)",
            hw.board_power_w, "it must be a positive number of watts to derive power bands");
    PowerBands b;
    b.board_power_w = hw.board_power_w;
    double idle_w = 0.10 * hw.board_power_w;
    if (std::isfinite(hw.idle_power_w)) idle_w = std::max(idle_w, 1.1 * hw.idle_power_w);
    b.idle_max_fraction = std::min(idle_w / hw.board_power_w, 0.2);
    b.label = "default, uncalibrated: bands for " + hw.name +
              " derived from board_power_w and idle_power_w (see power_bands.cpp for the reasoning)";
    b.validate();
    return b;
}

namespace {

struct PhaseMedian {
    double watts, utilization_pct;  // utilization NaN: some reading did not say
    std::string name;
};

// Medians of one phase's readings; nullopt when it was not measured.
std::optional<PhaseMedian> phase_median(const std::map<std::string, std::vector<PhaseReading>>& readings, Phase phase) {
    const std::string name = to_string(phase);
    const auto it = readings.find(name);
    if (it == readings.end() || it->second.empty()) return std::nullopt;
    std::vector<double> w, u;
    bool util_known = true;
    for (const PhaseReading& r : it->second) {
        require(std::isfinite(r.watts) && r.watts > 0, ("power phase " + name + " watts").c_str(), r.watts,
                "it must be a finite number of watts > 0");
        require(std::isnan(r.utilization_pct) || (r.utilization_pct >= 0 && r.utilization_pct <= 100),
                ("power phase " + name + " utilization_pct").c_str(), r.utilization_pct,
                "it must be a percentage in [0, 100] (or not given)");
        w.push_back(r.watts);
        if (std::isnan(r.utilization_pct)) util_known = false;
        else u.push_back(r.utilization_pct);
    }
    return PhaseMedian{median(w), util_known ? median(u) : std::numeric_limits<double>::quiet_NaN(), name};
}

PhaseMedian need(const std::optional<PhaseMedian>& m, Phase phase) {
    if (!m)
        throw std::invalid_argument(std::string("power phase '") + to_string(phase) +
                                    "' was not measured; bands need idle, checkpoint_or_deadlock, data_starvation "
                                    "and compute (communication is interpolated when absent)");
    return *m;
}

void require_above(const PhaseMedian& hi, const PhaseMedian& lo) {
    if (hi.watts > lo.watts) return;
    std::ostringstream msg;
    msg << "power phase '" << hi.name << "' drew " << hi.watts << " W (median), not more than '" << lo.name << "' at "
        << lo.watts
        << " W: above the idle and hang phases the phases must rise data_starvation < communication < compute "
           "for bands to separate them";
    throw std::invalid_argument(msg.str());
}

std::string watts(double w) {
    std::ostringstream s;
    s.precision(4);
    s << w << " W";
    return s.str();
}

std::string halfway(const PhaseMedian& lo, const PhaseMedian& hi) {
    return "measured: halfway between " + lo.name + " (" + watts(lo.watts) + ") and " + hi.name + " (" +
           watts(hi.watts) + ")";
}

}  // namespace

PowerBands power_bands_from_phases(const std::map<std::string, std::vector<PhaseReading>>& readings,
                                   double power_limit_w, std::string label) {
    require(std::isfinite(power_limit_w) && power_limit_w > 0, "power_limit_w", power_limit_w,
            "it must be the enforced power limit in watts, > 0");
    const PhaseMedian idle = need(phase_median(readings, Phase::idle), Phase::idle);
    const PhaseMedian hang = need(phase_median(readings, Phase::checkpoint_or_deadlock), Phase::checkpoint_or_deadlock);
    const PhaseMedian starved = need(phase_median(readings, Phase::data_starvation), Phase::data_starvation);
    const PhaseMedian compute = need(phase_median(readings, Phase::compute), Phase::compute);
    const std::optional<PhaseMedian> comm_measured = phase_median(readings, Phase::communication);
    require(compute.watts <= 1.5 * power_limit_w, "compute phase watts", compute.watts,
            "it cannot exceed the power limit by half");

    PowerBands b;
    b.board_power_w = power_limit_w;
    b.scale_with_power_limit = false;
    b.label = std::move(label);
    const bool utils_known = !std::isnan(idle.utilization_pct) && !std::isnan(hang.utilization_pct);
    const double util_gap = hang.utilization_pct - idle.utilization_pct;  // NaN when unknown
    double idle_max_w = 0;
    if (hang.watts >= kWattsSeparate * idle.watts) {
        idle_max_w = 0.5 * (idle.watts + hang.watts);
        b.edge_sources["idle_max"] = halfway(idle, hang);
    } else if (util_gap >= kUtilSeparatePct) {
        idle_max_w = kWattsSeparate * std::max(idle.watts, hang.watts);
        std::ostringstream s;
        s << "measured: " << kWattsSeparate << " x (the default bands' margin) the higher of idle ("
          << watts(idle.watts) << ") and checkpoint_or_deadlock (" << watts(hang.watts)
          << "), which drew the same watts and are separated by utilization";
        b.edge_sources["idle_max"] = s.str();
    } else {
        std::ostringstream msg;
        msg << "power phase 'checkpoint_or_deadlock' drew " << hang.watts << " W at "
            << (utils_known ? std::to_string(hang.utilization_pct) + " %" : std::string("unread"))
            << " utilization, 'idle' " << idle.watts << " W at "
            << (utils_known ? std::to_string(idle.utilization_pct) + " %" : std::string("unread"))
            << ": separated neither by watts (needs " << kWattsSeparate << " x idle) nor by utilization (needs "
            << kUtilSeparatePct << " points more), so no band can tell a hang from idle";
        throw std::invalid_argument(msg.str());
    }
    if (utils_known && util_gap >= kUtilSeparatePct) {
        b.idle_util_max_pct = 0.5 * (idle.utilization_pct + hang.utilization_pct);
        std::ostringstream s;
        s << "measured: halfway between idle (" << idle.utilization_pct << " %) and checkpoint_or_deadlock ("
          << hang.utilization_pct << " %) utilization";
        b.edge_sources["idle_util_max_pct"] = s.str();
    } else {
        b.edge_sources["idle_util_max_pct"] =
            utils_known ? "assumed: the default 50 % (idle and checkpoint_or_deadlock utilizations differ by less "
                          "than the 20 points that would separate them)"
                        : "assumed: the default 50 % (the phases' utilizations were not read)";
    }
    const PhaseMedian low = hang.watts >= idle.watts ? hang : idle;
    require_above(starved, low);
    const double checkpoint_max_w = 0.5 * (low.watts + starved.watts);
    b.edge_sources["checkpoint_max"] = halfway(low, starved);

    PhaseMedian comm{0.5 * (starved.watts + compute.watts), std::numeric_limits<double>::quiet_NaN(), "communication"};
    if (comm_measured) comm = *comm_measured;
    require_above(comm, starved);
    require_above(compute, comm);
    if (comm_measured) {
        b.edge_sources["starvation_max"] = halfway(starved, comm);
        b.edge_sources["communication_max"] = halfway(comm, compute);
    } else {
        const std::string why =
            "interpolated: no communication phase was measured (one GPU has no collective); "
            "its watts taken halfway between data_starvation and compute (" +
            watts(comm.watts) + "), this edge halfway between ";
        b.edge_sources["starvation_max"] = why + "data_starvation (" + watts(starved.watts) + ") and that";
        b.edge_sources["communication_max"] = why + "that and compute (" + watts(compute.watts) + ")";
    }
    b.idle_max_fraction = idle_max_w / power_limit_w;
    b.checkpoint_max_fraction = checkpoint_max_w / power_limit_w;
    b.starvation_max_fraction = 0.5 * (starved.watts + comm.watts) / power_limit_w;
    b.communication_max_fraction = 0.5 * (comm.watts + compute.watts) / power_limit_w;
    try {
        b.validate();
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("the measured phases give no valid bands: ") + e.what());
    }
    return b;
}

BandThresholdsW thresholds_w(const PowerBands& b) { return thresholds_w(b, b.board_power_w); }

BandThresholdsW thresholds_w(const PowerBands& b, double power_limit_w) {
    b.validate();
    const double ref =
        b.scale_with_power_limit && std::isfinite(power_limit_w) && power_limit_w > 0 ? power_limit_w : b.board_power_w;
    return {b.idle_max_fraction * ref, b.checkpoint_max_fraction * ref, b.starvation_max_fraction * ref,
            b.communication_max_fraction * ref, b.idle_util_max_pct};
}

PowerBands power_bands_from_json(const nlohmann::json& s, std::string_view origin) {
    if (!s.is_object()) throw ParseError(std::string(origin) + ": power_bands = " + s.dump() + "; expected an object");
    static const char* const known[] = {"basis",
                                        "power_limit_w",
                                        "idle_max",
                                        "checkpoint_max",
                                        "starvation_max",
                                        "communication_max",
                                        "idle_util_max_pct",
                                        "source",
                                        "notes",
                                        "edges"};
    // Not a structured binding: clang before 16 cannot capture one in the lambda.
    for (const auto& item : s.items()) {
        const std::string& k = item.key();
        if (std::find_if(std::begin(known), std::end(known), [&](const char* n) { return k == n; }) == std::end(known))
            fail(origin, k,
                 "is not a known field; valid: basis, power_limit_w, idle_max, checkpoint_max, starvation_max, "
                 "communication_max, idle_util_max_pct, source, notes, edges");
    }
    const auto basis_it = s.find("basis");
    if (basis_it == s.end()) fail(origin, "basis", "is missing; expected \"watts\" or \"fraction_of_power_limit\"");
    const std::string basis = basis_it->is_string() ? basis_it->get<std::string>() : basis_it->dump();
    if (basis != "watts" && basis != "fraction_of_power_limit")
        fail(origin, "basis", "= " + basis_it->dump() + "; expected \"watts\" or \"fraction_of_power_limit\"");
    PowerBands b;
    b.board_power_w = number(s, "power_limit_w", origin);
    if (!(b.board_power_w > 0))
        fail(origin, "power_limit_w", "= " + s["power_limit_w"].dump() + "; expected watts > 0");
    const double div = basis == "watts" ? b.board_power_w : 1.0;
    b.idle_max_fraction = number(s, "idle_max", origin) / div;
    b.checkpoint_max_fraction = number(s, "checkpoint_max", origin) / div;
    b.starvation_max_fraction = number(s, "starvation_max", origin) / div;
    b.communication_max_fraction = number(s, "communication_max", origin) / div;
    if (s.contains("idle_util_max_pct")) b.idle_util_max_pct = number(s, "idle_util_max_pct", origin);
    b.scale_with_power_limit = basis != "watts";
    std::string source;
    if (const auto it = s.find("source"); it != s.end() && it->is_string()) source = it->get<std::string>();
    b.label = "calibrated: " + std::string(origin) + (source.empty() ? "" : " (" + source + ")");
    if (const auto it = s.find("edges"); it != s.end()) {
        if (!it->is_object()) fail(origin, "edges", "= " + it->dump() + "; expected an object of strings");
        for (const auto& e : it->items()) {
            if (!e.value().is_string())
                fail(origin, "edges." + e.key(), "= " + e.value().dump() + "; expected a string");
            b.edge_sources[e.key()] = e.value().get<std::string>();
        }
    }
    try {
        b.validate();
    } catch (const std::invalid_argument& e) {
        throw ParseError(std::string(origin) + ": power_bands: " + e.what() +
                         " (edges must increase: idle_max < checkpoint_max"
                         " < starvation_max < communication_max < power_limit_w)");
    }
    return b;
}

nlohmann::json power_bands_to_json(const PowerBands& b, std::string_view source) {
    b.validate();
    const double mul = b.scale_with_power_limit ? 1.0 : b.board_power_w;
    nlohmann::json j = {{"basis", b.scale_with_power_limit ? "fraction_of_power_limit" : "watts"},
                        {"power_limit_w", b.board_power_w},
                        {"idle_max", b.idle_max_fraction * mul},
                        {"checkpoint_max", b.checkpoint_max_fraction * mul},
                        {"starvation_max", b.starvation_max_fraction * mul},
                        {"communication_max", b.communication_max_fraction * mul},
                        {"idle_util_max_pct", b.idle_util_max_pct},
                        {"source", std::string(source)}};
    if (!b.edge_sources.empty()) j["edges"] = b.edge_sources;
    return j;
}

}  // namespace libscale
