#include "libscale/triage/power_bands.hpp"
#include "libscale/estimate/statistics.hpp"

#include <algorithm>
#include <cmath>
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

PowerBands power_bands_from_phase_watts(const std::map<std::string, std::vector<double>>& watts_by_phase,
                                        double power_limit_w, std::string label) {
    require(std::isfinite(power_limit_w) && power_limit_w > 0, "power_limit_w", power_limit_w,
            "it must be the enforced power limit in watts, > 0");
    // Low to high power, as raw_phase separates them.
    static constexpr Phase order[kPhaseCount] = {Phase::idle, Phase::checkpoint_or_deadlock, Phase::data_starvation,
                                                 Phase::communication, Phase::compute};
    double median_w[kPhaseCount];
    for (int i = 0; i < kPhaseCount; ++i) {
        const std::string name = to_string(order[i]);
        const auto it = watts_by_phase.find(name);
        if (it == watts_by_phase.end() || it->second.empty())
            throw std::invalid_argument("power phase '" + name +
                                        "' was not measured; bands need all five (idle, checkpoint_or_deadlock, "
                                        "data_starvation, communication, compute)");
        for (const double x : it->second)
            require(std::isfinite(x) && x > 0, ("power phase " + name + " watts").c_str(), x,
                    "it must be a finite number of watts > 0");
        median_w[i] = median(it->second);
        if (i > 0 && !(median_w[i] > median_w[i - 1])) {
            std::ostringstream msg;
            msg << "power phase '" << name << "' drew " << median_w[i] << " W (median), not more than '"
                << to_string(order[i - 1]) << "' at " << median_w[i - 1]
                << " W: the phases must rise idle < checkpoint_or_deadlock < data_starvation < communication < "
                   "compute for bands to separate them";
            throw std::invalid_argument(msg.str());
        }
    }
    require(median_w[kPhaseCount - 1] <= 1.5 * power_limit_w, "compute phase watts", median_w[kPhaseCount - 1],
            "it cannot exceed the power limit by half");
    PowerBands b;
    b.board_power_w = power_limit_w;
    b.scale_with_power_limit = false;
    const auto edge = [&](int i) { return 0.5 * (median_w[i] + median_w[i + 1]) / power_limit_w; };
    b.idle_max_fraction = edge(0);
    b.checkpoint_max_fraction = edge(1);
    b.starvation_max_fraction = edge(2);
    b.communication_max_fraction = edge(3);
    b.label = std::move(label);
    b.validate();
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
    static const char* const known[] = {"basis",          "power_limit_w",     "idle_max",          "checkpoint_max",
                                        "starvation_max", "communication_max", "idle_util_max_pct", "source",
                                        "notes"};
    // Not a structured binding: clang before 16 cannot capture one in the lambda.
    for (const auto& item : s.items()) {
        const std::string& k = item.key();
        if (std::find_if(std::begin(known), std::end(known), [&](const char* n) { return k == n; }) == std::end(known))
            fail(origin, k,
                 "is not a known field; valid: basis, power_limit_w, idle_max, checkpoint_max, starvation_max, "
                 "communication_max, idle_util_max_pct, source, notes");
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
    return {{"basis", b.scale_with_power_limit ? "fraction_of_power_limit" : "watts"},
            {"power_limit_w", b.board_power_w},
            {"idle_max", b.idle_max_fraction * mul},
            {"checkpoint_max", b.checkpoint_max_fraction * mul},
            {"starvation_max", b.starvation_max_fraction * mul},
            {"communication_max", b.communication_max_fraction * mul},
            {"idle_util_max_pct", b.idle_util_max_pct},
            {"source", std::string(source)}};
}

}  // namespace libscale
