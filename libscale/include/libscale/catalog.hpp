// The shipped catalogs (calibration/data, compiled into the library so that every
// build, test and installed wheel sees the same data) and lookup by name or file path.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libscale/calibration.hpp"
#include "libscale/hardware.hpp"
#include "libscale/model_spec.hpp"

namespace libscale {

std::vector<std::string> model_names();
std::vector<std::string> hardware_names();

// A catalog name ("qwen3-32b", case-insensitive) or a path to a config.json.
// Throws UnknownNameError listing the closest names, ParseError for a bad file.
ModelSpec find_model(std::string_view name_or_path);

// A catalog name ("b300") or a path to a libscale.hardware/1 JSON file.
HardwareProfile find_hardware(std::string_view name_or_path);

// The shipped default calibration for the hardware (default-<name>.json), or the
// generic default for hardware not in the catalog.
Calibration default_calibration(const HardwareProfile& hw);

// Raw text of a shipped data file, e.g. "hardware/b300.json" (for `libscale hardware`).
const std::string& catalog_file(std::string_view relative_path);
std::vector<std::string> catalog_files();

}  // namespace libscale
