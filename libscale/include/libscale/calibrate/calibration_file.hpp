// Calibration files (schema libscale.calibration/2; /1 is read for its power bands only).
// Two forms:
// - "default": compute coefficients and fractions of the hardware's figures
//   (calibration/data/calibrations), with a prior for the fitter;
// - "fitted" / "derived": absolute coefficients with their covariance, the fit's quality
//   (residuals, leave-one-out error, unidentified coefficients) and provenance
//   (hardware, driver / CUDA / NCCL versions, date, source).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "libscale/calibrate/calibration.hpp"
#include "libscale/calibrate/fit.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/triage/power_bands.hpp"

namespace libscale {

struct CalibrationFile {
    Calibration calibration;
    std::vector<std::string> parameters;         // names with uncertainty, covariance order
    Eigen::MatrixXd covariance;                  // empty: no uncertainty known
    nlohmann::json quality;                      // residuals, rms / leave-one-out error, families
    nlohmann::json provenance;                   // hardware, versions, date, source, notes
    nlohmann::json sources;                      // coefficient name → where its value came from
    std::map<std::string, double> prior_log_sd;  // the fitter's prior, log standard deviations
};

// A default file's fractions resolved for `hw`, with its prior and its "spread" as the
// covariance: diagonal, variance (value × log sd)² (the delta method, as projections sample
// those coefficients in log space), so an uncalibrated projection's P10–P90 is the spread
// of the shipped measurements around the default (docs/calibration.md "Uncalibrated").
// The first of `parameters` whose standard deviation (the root of its variance on the
// covariance's diagonal) spread_problem refuses: its index and why; nullopt when none is.
// The reader, the writer and the projection's sampler all check with it.
std::optional<std::pair<std::size_t, std::string>> first_spread_problem(const Calibration& c,
                                                                        const std::vector<std::string>& parameters,
                                                                        const Eigen::MatrixXd& covariance);

CalibrationFile resolve_default_file(const CalibrationFractions& f, const HardwareProfile& hw, std::string origin);

// Reads either form; a default file is resolved against `hw`. Throws ParseError naming
// the file and field (unknown schema or version, non-positive-definite covariance, a
// hardware mismatch).
CalibrationFile calibration_from_json(const nlohmann::json& j, const HardwareProfile& hw, std::string_view origin);
// PATH may also name a shipped calibration ("derived-b300-qwen3-32b") when no such file exists.
CalibrationFile read_calibration_file(const std::string& path, const HardwareProfile& hw);

// The fitted form, ready to write (write_file_atomic: no partial file on failure).
nlohmann::json calibration_to_json(const FitResult& fit, const nlohmann::json& provenance);
nlohmann::json calibration_to_json(const CalibrationFile& file);

// Reads a calibration file's power_bands; ParseError when the file has none, or when its
// hardware (provenance.hardware) is not `hw`.
PowerBands read_power_bands(const std::string& path, const HardwareProfile& hw);
// The same from a parsed calibration file; `origin` names it in errors.
PowerBands power_bands_from_calibration_json(const nlohmann::json& j, const HardwareProfile& hw,
                                             std::string_view origin);

}  // namespace libscale
