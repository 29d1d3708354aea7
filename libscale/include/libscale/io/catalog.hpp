// The shipped catalogs (calibration/data, compiled into the library so that every
// build, test and installed wheel sees the same data) and lookup by name or file path.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "libscale/calibrate/calibration.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/spec/model_spec.hpp"

namespace libscale {

std::vector<std::string> model_names();
std::vector<std::string> hardware_names();

// A catalog name ("qwen3-32b", case-insensitive) or a path to a config.json.
// Throws UnknownNameError listing the closest names, ParseError for a bad file.
ModelSpec find_model(std::string_view name_or_path);
// The same with config.json keys replaced first (e.g. {"max_seq_len": 65536} for a model
// whose position table was sized to the run).
ModelSpec find_model(std::string_view name_or_path, const nlohmann::json& overrides);

// A catalog name ("b300") or a path to a libscale.hardware/1 JSON file.
HardwareProfile find_hardware(std::string_view name_or_path);

// The shipped default calibration for the hardware (default-<name>.json), or the
// generic default for hardware not in the catalog.
Calibration default_calibration(const HardwareProfile& hw);
// The same with its prior and its spread as covariance (resolve_default_file): what an
// uncalibrated projection samples its P10–P90 from.
CalibrationFile default_calibration_file(const HardwareProfile& hw);
// The default file's prior: standard deviation of log(value) per coefficient the fitter
// may move (calibration/data/calibrations/default-*.json "prior").
std::map<std::string, double> default_priors(const HardwareProfile& hw);
// The default file's spread: standard deviation of log(value) of the shipped measurements
// around it, per coefficient ("spread"; what default_calibration_file's covariance holds).
std::map<std::string, double> default_spreads(const HardwareProfile& hw);

// Raw text of a shipped data file, e.g. "hardware/b300.json" (for `libscale hardware`).
const std::string& catalog_file(std::string_view relative_path);
std::vector<std::string> catalog_files();

}  // namespace libscale
