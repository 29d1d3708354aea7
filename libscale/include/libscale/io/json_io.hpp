// JSON in and out: parsing with file-and-line errors, the catalog file formats
// (libscale.hardware/1, libscale.calibration/1; config.json: hf_config.hpp), and
// atomic file writes (output_file.hpp).
#pragma once

#include <filesystem>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "libscale/calibrate/calibration.hpp"
#include "libscale/io/input_file.hpp"
#include "libscale/io/output_file.hpp"  // write_file_atomic, for the writers of JSON files
#include "libscale/spec/hardware.hpp"

namespace libscale {

// The parser callback every JSON reader passes to nlohmann::json::parse: refuses a document
// nested deeper than 256 levels (before anything walks it recursively) and a key given
// twice in one object (RFC 8259 leaves its meaning open; nlohmann keeps the last, which
// would drop the first value without a word). Throws ParseError naming `origin`.
class JsonGuard {
public:
    explicit JsonGuard(std::string origin) : origin_(std::move(origin)) {}
    bool operator()(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed);

private:
    std::string origin_;
    std::vector<std::vector<std::string>> keys_;  // per open object (an array: none), its keys so far
};

// Throws ParseError "ORIGIN:LINE:COLUMN: ..." on malformed JSON; JsonGuard's rules.
nlohmann::json parse_json(std::string_view text, std::string_view origin);
// A JSON file through the input layer (input_file.hpp: a regular file, at most max_bytes);
// `expected` names it in errors ("a libscale.hardware/1 JSON file").
nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view expected = "a JSON file",
                              std::uint64_t max_bytes = kMaxConfigFileBytes);

// Throws ParseError naming the first key of the object `o` (at `path`, "" for the top
// level) that is not in `known`, with the valid ones: a misspelt key would otherwise be
// skipped and the value it meant to set left at its default.
void check_known_keys(const nlohmann::json& o, std::string_view path, std::initializer_list<std::string_view> known,
                      std::string_view origin);

HardwareProfile hardware_from_json(const nlohmann::json& j, std::string_view origin);
CalibrationFractions calibration_fractions_from_json(const nlohmann::json& j, std::string_view origin);

// A calibration file's "prior" section (coefficient name → log standard deviation > 0);
// absent or null: empty. Names are checked against calibration_coefficients().
std::map<std::string, double> prior_from_json(const nlohmann::json& j, std::string_view origin);
// An object of coefficient name -> standard deviation of log(value) (a default file's "prior"
// and "spread"); each name checked against the coefficient table.
std::map<std::string, double> log_sd_from_json(const nlohmann::json& j, const std::string& field,
                                               std::string_view origin);

}  // namespace libscale
