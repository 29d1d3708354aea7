// What rank 0 makes of the gathered records: the fitted calibration file (the core's
// fit(), as `libscale fit` runs it, with the measured power coefficients and power bands
// added) and the report: GEMM and attention rates, the power of each phase, the step
// micro-runs against the model's prediction, what was skipped and why.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "libscale/calibrate/measurement.hpp"
#include "plan.hpp"

namespace libscale::harness {

struct Collected {
    MeasurementSet records;
    nlohmann::json skipped = nlohmann::json::array();  // [{"phase", "case", "rank", "why"}]
    nlohmann::json power = nlohmann::json::object();   // harness phase → [{"rank", "watts", ...}]
    std::string failure;                               // "" or what stopped the run
    nlohmann::json provenance = nlohmann::json::object();
};

inline constexpr const char* kReportSchema = "libscale.calibration_report/1";

// Writes out_dir/calibration.json (atomically) when the fit succeeds; the report says
// what was fitted, or "fit_error". Never throws for a failed fit.
nlohmann::json finish(const Plan& p, Collected& c, const std::filesystem::path& out_dir);

// The report in a few lines for the terminal.
std::string summary(const nlohmann::json& report);

}  // namespace libscale::harness
