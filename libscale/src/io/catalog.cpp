#include "libscale/io/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "embedded_data.hpp"
#include "libscale/io/error.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/spec/hf_config.hpp"

namespace libscale {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string stem(std::string_view path) {
    std::string name = std::filesystem::path(std::string(path)).stem().string();
    return name;
}

struct Catalog {
    std::map<std::string, std::string> files;  // relative path → text
    std::map<std::string, ModelSpec> models;
    std::map<std::string, std::string> model_files;  // model name → relative path of its config
    std::map<std::string, HardwareProfile> hardware;
    std::map<std::string, CalibrationFractions> calibrations;  // by hardware name

    Catalog() {
        for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i)
            files.emplace(detail::kEmbeddedFiles[i].path, detail::kEmbeddedFiles[i].text);
        for (const auto& [path, text] : files) {
            if (path.size() < 5 || path.substr(path.size() - 5) != ".json") continue;
            const std::string origin = "calibration/data/" + path;
            if (starts_with(path, "models/")) {
                ModelSpec m = model_from_hf_config(parse_json(text, origin), stem(path), origin);
                model_files.emplace(lower(m.name), path);
                models.emplace(lower(m.name), std::move(m));
            } else if (starts_with(path, "hardware/")) {
                HardwareProfile h = hardware_from_json(parse_json(text, origin), origin);
                hardware.emplace(lower(h.name), std::move(h));
            } else if (starts_with(path, "calibrations/default-")) {
                const nlohmann::json j = parse_json(text, origin);
                calibrations.emplace(lower(j.value("hardware", stem(path).substr(8))),
                                     calibration_fractions_from_json(j, origin));
            }
        }
    }
};

const Catalog& catalog() {
    static const Catalog c;
    return c;
}

template <class Map>
std::vector<std::string> keys(const Map& m) {
    std::vector<std::string> out;
    out.reserve(m.size());
    for (const auto& [k, v] : m) out.push_back(k);
    return out;
}

// The error_code overloads: a link loop or an unreadable directory is the input layer's to
// report (input_file.hpp), with the path, not a std::filesystem exception here.
bool looks_like_path(std::string_view s) {
    // A name with a NUL is no catalog name; as a path, the input layer refuses it by name.
    if (s.find('\0') != std::string_view::npos) return true;
    std::error_code ec;
    return s.find('/') != std::string_view::npos || (s.size() > 5 && s.substr(s.size() - 5) == ".json") ||
           std::filesystem::symlink_status(std::string(s), ec).type() != std::filesystem::file_type::not_found;
}

// A Hugging Face snapshot directory holds config.json.
std::filesystem::path config_json_path(std::string_view name_or_path) {
    std::filesystem::path p{std::string(name_or_path)};
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) p /= "config.json";
    return p;
}

constexpr const char* kConfigExpected = "a Hugging Face config.json (or a directory holding one)";

[[noreturn]] void unknown(const char* what, std::string_view name, const std::vector<std::string>& names,
                          const char* file_hint) {
    // Names are a few dozen characters: the rest of a pasted blob is not echoed (nor compared).
    constexpr std::size_t kShown = 100;
    const std::string_view head = name.substr(0, kShown);
    std::vector<std::string> near = closest_names(lower(head), names);
    std::string shown(head);
    if (name.size() > kShown) shown += "... (" + std::to_string(name.size()) + " characters)";
    std::string msg = std::string("unknown ") + what + " '" + shown + "'; closest: ";
    for (std::size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : "") + near[i];
    msg += std::string(" (see `libscale ") + (std::string(what) == "model" ? "models" : "hardware") + "`), or give " +
           file_hint;
    throw UnknownNameError(msg, std::move(near));
}

}  // namespace

std::vector<std::string> model_names() { return keys(catalog().models); }
std::vector<std::string> hardware_names() { return keys(catalog().hardware); }

ModelSpec find_model(std::string_view name_or_path) {
    const Catalog& c = catalog();
    if (const auto it = c.models.find(lower(name_or_path)); it != c.models.end()) return it->second;
    if (looks_like_path(name_or_path)) {
        const std::filesystem::path p = config_json_path(name_or_path);
        std::string name = p.filename() == "config.json" ? p.parent_path().filename().string() : p.stem().string();
        if (name.empty()) name = p.string();
        return model_from_hf_config(read_json_file(p, kConfigExpected), name, p.string());
    }
    unknown("model", name_or_path, model_names(), "a path to a Hugging Face config.json");
}

ModelSpec find_model(std::string_view name_or_path, const nlohmann::json& overrides) {
    if (overrides.is_null() || overrides.empty()) return find_model(name_or_path);
    if (!overrides.is_object())
        throw ParseError("model overrides = " + overrides.dump() + "; expected an object of config.json keys");
    const Catalog& c = catalog();
    nlohmann::json config;
    std::string name(name_or_path), origin;
    if (const auto it = c.model_files.find(lower(name_or_path)); it != c.model_files.end()) {
        origin = "calibration/data/" + it->second;
        config = parse_json(c.files.at(it->second), origin);
    } else if (looks_like_path(name_or_path)) {
        const std::filesystem::path p = config_json_path(name_or_path);
        origin = p.string();
        config = read_json_file(p, kConfigExpected);
    } else {
        (void)find_model(name_or_path);  // throws the unknown-name error with the closest names
    }
    // RFC 7396 merge: the overrides replace keys, nested objects merge.
    config.merge_patch(overrides);
    ModelSpec m = model_from_hf_config(config, name, origin + " with " + overrides.dump());
    return m;
}

HardwareProfile find_hardware(std::string_view name_or_path) {
    const Catalog& c = catalog();
    if (const auto it = c.hardware.find(lower(name_or_path)); it != c.hardware.end()) return it->second;
    if (looks_like_path(name_or_path)) {
        const std::filesystem::path p{std::string(name_or_path)};
        return hardware_from_json(read_json_file(p, "a libscale.hardware/1 JSON file"), p.string());
    }
    unknown("hardware", name_or_path, hardware_names(), "a path to a libscale.hardware/1 JSON file");
}

namespace {

const CalibrationFractions& default_fractions(const HardwareProfile& hw, std::string& file) {
    const Catalog& c = catalog();
    auto it = c.calibrations.find(lower(hw.name));
    const bool own = it != c.calibrations.end();
    if (!own) it = c.calibrations.find("generic");
    if (it == c.calibrations.end()) throw Error("the catalog has no default calibration (default-generic.json)");
    file = "calibration/data/calibrations/default-" + (own ? lower(hw.name) : "generic") + ".json";
    return it->second;
}

}  // namespace

Calibration default_calibration(const HardwareProfile& hw) {
    std::string file;
    const CalibrationFractions& f = default_fractions(hw, file);
    return resolve_calibration(f, hw, "default", file);
}

CalibrationFile default_calibration_file(const HardwareProfile& hw) {
    std::string file;
    const CalibrationFractions& f = default_fractions(hw, file);
    return resolve_default_file(f, hw, file);
}

std::map<std::string, double> default_priors(const HardwareProfile& hw) {
    std::string file;
    return default_fractions(hw, file).prior_log_sd;
}

std::map<std::string, double> default_spreads(const HardwareProfile& hw) {
    std::string file;
    return default_fractions(hw, file).spread_log_sd;
}

const std::string& catalog_file(std::string_view relative_path) {
    const Catalog& c = catalog();
    const auto it = c.files.find(std::string(relative_path));
    if (it == c.files.end()) {
        std::vector<std::string> near = closest_names(std::string(relative_path), keys(c.files));
        throw UnknownNameError("no shipped data file '" + std::string(relative_path) + "'", std::move(near));
    }
    return it->second;
}

std::vector<std::string> catalog_files() { return keys(catalog().files); }

}  // namespace libscale
