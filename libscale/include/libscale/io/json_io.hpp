// JSON in and out: parsing with file-and-line errors, the catalog file formats
// (libscale.hardware/1, libscale.calibration/1; config.json: hf_config.hpp), and
// atomic file writes (temporary file, then rename: never a half-written file).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "libscale/calibrate/calibration.hpp"
#include "libscale/spec/hardware.hpp"

namespace libscale {

// Throws ParseError "ORIGIN:LINE:COLUMN: ..." on malformed JSON.
nlohmann::json parse_json(std::string_view text, std::string_view origin);
nlohmann::json read_json_file(const std::filesystem::path& path);

HardwareProfile hardware_from_json(const nlohmann::json& j, std::string_view origin);
CalibrationFractions calibration_fractions_from_json(const nlohmann::json& j, std::string_view origin);

// A calibration file's "prior" section (coefficient name → log standard deviation > 0);
// absent or null: empty. Names are checked against calibration_coefficients().
std::map<std::string, double> prior_from_json(const nlohmann::json& j, std::string_view origin);

void write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace libscale
