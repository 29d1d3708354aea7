// Calibration files, schema "libscale.calibration/1".
//
// kind "default": fractions of the hardware's figures (calibration/data/calibrations/
// default-*.json, read by calibration_fractions_from_json and resolved against the GPU).
//
// kind "fitted" (written by `libscale fit`) or "derived" (worked out by hand from a
// published figure): absolute coefficients in Calibration's units, so that the file means
// the same thing whatever hardware file it is later combined with:
//   {"schema": "libscale.calibration/1", "kind": "fitted", "hardware": "b300",
//    "coefficients": {"eta_max": 0.45, "half_saturation_tokens": 512,
//                     "intra_node": {"alpha_s": 3.4e-6, "busbw_bytes_per_s": 7.38e11},
//                     "inter_node": {"alpha_s": 1.4e-5, "busbw_bytes_per_s": 9.4e10},
//                     "hbm_efficiency": 0.9, "reserved_gib": 3,
//                     "power": {"compute_w": 1100, "comm_w": 1100, "idle_w": 160},
//                     "step_overhead_s": 0},
//    "uncertainty": {"parameters": ["eta_max"], "covariance": [[1.3e-4]]},   (optional)
//    "quality": {"relative_residuals": [...], "rms_relative_error": ..., "loo_relative_error": ...,
//                "unidentified": [...], "families": [...], "chosen_family": ..., "family_reason": ...,
//                "records_used": ..., "coefficients": [...]},                 (optional)
//    "provenance": {"hardware", "driver", "cuda", "nccl", "date", "source", "notes"}, (optional)
//    "sources": {"eta_max": "where the value came from", ...}}               (optional)
// The uncertainty's parameter names are fit.hpp's ("intra_node.busbw_bytes_per_s"), i.e.
// the dotted path of the coefficient; the covariance is in the same units.
#include "libscale/calibration_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include "libscale/catalog.hpp"
#include "libscale/error.hpp"
#include "libscale/json_io.hpp"
#include "libscale/power_bands.hpp"

namespace libscale {

using nlohmann::json;

namespace {

constexpr const char* kSchema = "libscale.calibration/1";
constexpr const char* kSchemaPrefix = "libscale.calibration/";

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

[[noreturn]] void fail(std::string_view origin, const std::string& field, const std::string& what) {
    throw ParseError(std::string(origin) + ": field '" + field + "' " + what);
}

const json& member(const json& parent, const std::string& key, const std::string& path, std::string_view origin) {
    const auto it = parent.find(key);
    if (it == parent.end()) throw ParseError(std::string(origin) + ": missing field '" + path + "'");
    return *it;
}

double finite_number(const json& v, const std::string& path, std::string_view origin) {
    if (!v.is_number()) fail(origin, path, "= " + v.dump() + "; expected a finite number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(origin, path, "= " + v.dump() + "; expected a finite number");
    return x;
}

// An object whose keys must all be in `known`: a misspelt coefficient would otherwise be
// silently ignored and a default used in its place.
const json& strict_object(const json& parent, const std::string& key, const std::string& path,
                          std::string_view origin, const std::vector<std::string>& known) {
    const json& o = member(parent, key, path, origin);
    if (!o.is_object()) fail(origin, path, "= " + o.dump() + "; expected an object");
    for (const auto& [k, v] : o.items()) {
        if (std::find(known.begin(), known.end(), k) != known.end()) continue;
        std::string valid;
        for (std::size_t i = 0; i < known.size(); ++i) valid += (i ? ", " : "") + known[i];
        fail(origin, path + "." + k, "is not a known coefficient; valid: " + valid);
    }
    return o;
}

// Accepts only "libscale.calibration/1"; names the version when it is ours but newer.
void check_schema(const json& j, std::string_view origin) {
    const json& s = member(j, "schema", "schema", origin);
    if (s.is_string() && s.get<std::string>() == kSchema) return;
    const std::string text = s.is_string() ? s.get<std::string>() : s.dump();
    if (text.rfind(kSchemaPrefix, 0) == 0)
        fail(origin, "schema", "= \"" + text + "\": unknown version " + text.substr(std::string(kSchemaPrefix).size()) +
                                   "; this libscale reads \"" + kSchema + "\"");
    fail(origin, "schema", "= " + s.dump() + "; expected \"" + kSchema + "\" (is this a calibration file?)");
}

void check_hardware(const std::string& file_hw, const HardwareProfile& hw, std::string_view origin) {
    if (lower(file_hw) == lower(hw.name)) return;
    fail(origin, "hardware", "= \"" + file_hw + "\", but it is being used for hardware '" + hw.name +
                                 "'; a calibration applies only to the hardware it was made on");
}

json optional_object(const json& j, const char* key, std::string_view origin) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return json::object();
    if (!it->is_object()) fail(origin, key, "= " + it->dump() + "; expected an object");
    return *it;
}

// Symmetric positive semi-definite, judged on the correlation matrix: the parameters'
// units differ by twenty orders of magnitude (efficiency vs bytes/s), which would drown
// a small negative eigenvalue of the raw matrix in rounding.
void check_covariance(const Eigen::MatrixXd& c, std::string_view origin) {
    const Eigen::Index n = c.rows();
    const Eigen::VectorXd d = c.diagonal();
    for (Eigen::Index i = 0; i < n; ++i)
        if (d(i) < 0)
            fail(origin, "uncertainty.covariance[" + std::to_string(i) + "][" + std::to_string(i) + "]",
                 "= " + std::to_string(d(i)) + "; a variance must be >= 0");
    Eigen::MatrixXd r(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index k = 0; k < n; ++k) {
            const double a = c(i, k), b = c(k, i);
            const double scale = std::sqrt(d(i) * d(k));
            if (std::abs(a - b) > 1e-9 * std::max({std::abs(a), std::abs(b), scale}))
                fail(origin, "uncertainty.covariance", "is not symmetric: [" + std::to_string(i) + "][" +
                                                           std::to_string(k) + "] differs from [" + std::to_string(k) +
                                                           "][" + std::to_string(i) + "]");
            if (scale > 0) {
                r(i, k) = a / scale;
            } else if (a != 0) {
                fail(origin, "uncertainty.covariance", "is not positive semi-definite: entry [" + std::to_string(i) +
                                                           "][" + std::to_string(k) +
                                                           "] is non-zero while a variance on its row or column is 0");
            } else {
                r(i, k) = i == k ? 1.0 : 0.0;
            }
        }
    }
    if (n == 0) return;
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(r, Eigen::EigenvaluesOnly);
    const double smallest = eig.eigenvalues().minCoeff();
    if (smallest < -1e-9 * std::max(1.0, eig.eigenvalues().maxCoeff())) {
        std::ostringstream msg;
        msg << "is not positive semi-definite (smallest eigenvalue of the correlation matrix " << smallest
            << "); a correlation beyond ±1 or an inconsistent set of correlations";
        fail(origin, "uncertainty.covariance", msg.str());
    }
}

void read_uncertainty(const json& j, const Calibration& cal, CalibrationFile& out, std::string_view origin) {
    const auto it = j.find("uncertainty");
    if (it == j.end() || it->is_null()) return;
    if (!it->is_object()) fail(origin, "uncertainty", "= " + it->dump() + "; expected an object");
    const json& params = member(*it, "parameters", "uncertainty.parameters", origin);
    if (!params.is_array()) fail(origin, "uncertainty.parameters", "= " + params.dump() + "; expected a list of names");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < params.size(); ++i) {
        const std::string path = "uncertainty.parameters[" + std::to_string(i) + "]";
        if (!params[i].is_string()) fail(origin, path, "= " + params[i].dump() + "; expected a parameter name");
        const std::string name = params[i].get<std::string>();
        try {
            (void)get_parameter(cal, name);
        } catch (const std::exception& e) {
            fail(origin, path, "= \"" + name + "\": " + e.what());
        }
        if (!seen.insert(name).second) fail(origin, path, "= \"" + name + "\" appears twice");
        out.parameters.push_back(name);
    }
    const json& cov = member(*it, "covariance", "uncertainty.covariance", origin);
    const std::size_t n = out.parameters.size();
    if (!cov.is_array()) fail(origin, "uncertainty.covariance", "= " + cov.dump() + "; expected a list of rows");
    if (cov.size() != n)
        fail(origin, "uncertainty.covariance", "has " + std::to_string(cov.size()) + " rows for " + std::to_string(n) +
                                                   " parameters; it must be " + std::to_string(n) + " × " +
                                                   std::to_string(n));
    out.covariance.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
    for (std::size_t r = 0; r < n; ++r) {
        const std::string row = "uncertainty.covariance[" + std::to_string(r) + "]";
        if (!cov[r].is_array() || cov[r].size() != n)
            fail(origin, row, "= " + cov[r].dump() + "; expected a row of " + std::to_string(n) +
                                  " numbers (the matrix must be square, one row and column per parameter)");
        for (std::size_t c = 0; c < n; ++c)
            out.covariance(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
                finite_number(cov[r][c], row + "[" + std::to_string(c) + "]", origin);
    }
    check_covariance(out.covariance, origin);
}

CalibrationFile read_default(const json& j, const HardwareProfile& hw, std::string_view origin) {
    if (const auto h = j.find("hardware"); h != j.end()) {
        if (!h->is_string()) fail(origin, "hardware", "= " + h->dump() + "; expected a hardware name");
        // The generic default is written for any hardware file a user brings.
        if (lower(h->get<std::string>()) != "generic") check_hardware(h->get<std::string>(), hw, origin);
    }
    CalibrationFile out;
    try {
        out.calibration = resolve_calibration(calibration_fractions_from_json(j, origin), hw, "default", std::string(origin));
    } catch (const std::invalid_argument& e) {
        throw ParseError(std::string(origin) + ": " + e.what());
    }
    out.provenance = {{"hardware", hw.name}, {"source", std::string(origin)}};
    if (const auto d = j.find("description"); d != j.end() && d->is_string()) out.provenance["notes"] = *d;
    out.sources = optional_object(j, "sources", origin);
    out.quality = json::object();
    return out;
}

CalibrationFile read_absolute(const json& j, const std::string& kind, const HardwareProfile& hw,
                              std::string_view origin) {
    const json& h = member(j, "hardware", "hardware", origin);
    if (!h.is_string() || h.get<std::string>().empty())
        fail(origin, "hardware", "= " + h.dump() + "; expected the name of the hardware it was made on");
    check_hardware(h.get<std::string>(), hw, origin);

    CalibrationFile out;
    Calibration& c = out.calibration;
    c.hardware = hw.name;
    c.kind = kind;
    c.source = std::string(origin);
    const json& k = strict_object(j, "coefficients", "coefficients", origin,
                                  {"eta_max", "half_saturation_tokens", "intra_node", "inter_node", "hbm_efficiency",
                                   "reserved_gib", "power", "step_overhead_s"});
    const auto num = [&](const json& parent, const char* key, const std::string& path) {
        return finite_number(member(parent, key, path, origin), path, origin);
    };
    c.eta_max = num(k, "eta_max", "coefficients.eta_max");
    c.half_saturation_tokens = num(k, "half_saturation_tokens", "coefficients.half_saturation_tokens");
    for (const auto& [key, level] : {std::pair<const char*, LinkLevel*>{"intra_node", &c.intra_node},
                                     std::pair<const char*, LinkLevel*>{"inter_node", &c.inter_node}}) {
        const std::string path = std::string("coefficients.") + key;
        const json& l = strict_object(k, key, path, origin, {"alpha_s", "busbw_bytes_per_s"});
        level->alpha_s = num(l, "alpha_s", path + ".alpha_s");
        level->busbw_bytes_per_s = num(l, "busbw_bytes_per_s", path + ".busbw_bytes_per_s");
    }
    c.hbm_efficiency = num(k, "hbm_efficiency", "coefficients.hbm_efficiency");
    c.reserved_gib = num(k, "reserved_gib", "coefficients.reserved_gib");
    const json& p = strict_object(k, "power", "coefficients.power", origin, {"compute_w", "comm_w", "idle_w"});
    c.power_compute_w = num(p, "compute_w", "coefficients.power.compute_w");
    c.power_comm_w = num(p, "comm_w", "coefficients.power.comm_w");
    c.power_idle_w = num(p, "idle_w", "coefficients.power.idle_w");
    // Absent in files written before the overhead term existed.
    c.step_overhead_s = k.contains("step_overhead_s") ? num(k, "step_overhead_s", "coefficients.step_overhead_s") : 0.0;
    try {
        c.validate();
    } catch (const std::invalid_argument& e) {
        throw ParseError(std::string(origin) + ": " + e.what());
    }

    read_uncertainty(j, c, out, origin);
    out.quality = optional_object(j, "quality", origin);
    out.provenance = optional_object(j, "provenance", origin);
    out.sources = optional_object(j, "sources", origin);
    return out;
}

// NaN (e.g. leave-one-out error with one record) is written as null: JSON has no NaN.
json number_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json covariance_json(const Eigen::MatrixXd& c) {
    json rows = json::array();
    for (Eigen::Index r = 0; r < c.rows(); ++r) {
        json row = json::array();
        for (Eigen::Index k = 0; k < c.cols(); ++k) row.push_back(c(r, k));
        rows.push_back(std::move(row));
    }
    return rows;
}

// The writers refuse what the reader would reject, so that no unreadable file is written.
json absolute_form(const Calibration& c, const std::string& kind, const std::vector<std::string>& parameters,
                   const Eigen::MatrixXd& covariance, json quality, json provenance, json sources) {
    c.validate();
    const auto n = static_cast<Eigen::Index>(parameters.size());
    if (covariance.size() != 0 && (covariance.rows() != n || covariance.cols() != n))
        throw std::invalid_argument("covariance is " + std::to_string(covariance.rows()) + " × " +
                                    std::to_string(covariance.cols()) + " for " + std::to_string(n) +
                                    " parameters; it must be square, one row and column per parameter");
    if (!covariance.allFinite()) throw std::invalid_argument("covariance has a non-finite entry");
    for (const std::string& name : parameters) (void)get_parameter(c, name);

    json j;
    j["schema"] = kSchema;
    j["kind"] = kind;
    j["hardware"] = c.hardware;
    j["coefficients"] = {
        {"eta_max", c.eta_max},
        {"half_saturation_tokens", c.half_saturation_tokens},
        {"intra_node", {{"alpha_s", c.intra_node.alpha_s}, {"busbw_bytes_per_s", c.intra_node.busbw_bytes_per_s}}},
        {"inter_node", {{"alpha_s", c.inter_node.alpha_s}, {"busbw_bytes_per_s", c.inter_node.busbw_bytes_per_s}}},
        {"hbm_efficiency", c.hbm_efficiency},
        {"reserved_gib", c.reserved_gib},
        {"power", {{"compute_w", c.power_compute_w}, {"comm_w", c.power_comm_w}, {"idle_w", c.power_idle_w}}},
        {"step_overhead_s", c.step_overhead_s}};
    if (!parameters.empty() && covariance.size() != 0)
        j["uncertainty"] = {{"parameters", parameters}, {"covariance", covariance_json(covariance)}};
    j["quality"] = quality.is_object() ? std::move(quality) : json::object();
    j["provenance"] = provenance.is_object() ? std::move(provenance) : json::object();
    if (!j["provenance"].contains("hardware")) j["provenance"]["hardware"] = c.hardware;
    j["sources"] = sources.is_object() ? std::move(sources) : json::object();
    return j;
}

}  // namespace

CalibrationFile calibration_from_json(const json& j, const HardwareProfile& hw, std::string_view origin) {
    if (!j.is_object()) throw ParseError(std::string(origin) + ": expected a JSON object (a calibration file)");
    check_schema(j, origin);
    const auto k = j.find("kind");
    // Hand-written fraction files may leave the kind out; their "compute" section says what they are.
    if (k == j.end() && j.contains("compute")) return read_default(j, hw, origin);
    if (k == j.end()) throw ParseError(std::string(origin) + ": missing field 'kind' (default, fitted or derived)");
    const std::string kind = k->is_string() ? k->get<std::string>() : k->dump();
    if (kind == "default") return read_default(j, hw, origin);
    if (kind == "fitted" || kind == "derived") return read_absolute(j, kind, hw, origin);
    fail(origin, "kind", "= " + k->dump() + "; expected \"default\", \"fitted\" or \"derived\"");
}

// Here, not in power_bands.cpp, so that the bands section meets the same schema and
// hardware checks as the rest of the file.
PowerBands read_power_bands(const std::string& path, const HardwareProfile& hw) {
    const json j = read_json_file(path);
    if (!j.is_object()) throw ParseError(path + ": expected a JSON object (a calibration file)");
    check_schema(j, path);
    if (const auto h = j.find("hardware"); h != j.end() && h->is_string() && lower(h->get<std::string>()) != "generic")
        check_hardware(h->get<std::string>(), hw, path);
    const auto it = j.find("power_bands");
    if (it == j.end())
        throw ParseError(path + ": no power_bands section (the micro-run harness writes one after measuring the phases; "
                                "without it, the default bands of the hardware are used)");
    return power_bands_from_json(*it, path);
}

CalibrationFile read_calibration_file(const std::string& path, const HardwareProfile& hw) {
    namespace fs = std::filesystem;
    if (!fs::exists(path) && path.find('/') == std::string::npos) {
        std::string rel = "calibrations/" + path;
        if (rel.size() < 5 || rel.substr(rel.size() - 5) != ".json") rel += ".json";
        const std::vector<std::string> files = catalog_files();
        if (std::find(files.begin(), files.end(), rel) != files.end())
            return calibration_from_json(parse_json(catalog_file(rel), "calibration/data/" + rel), hw,
                                         "calibration/data/" + rel);
        std::string shipped;
        for (const std::string& f : files)
            if (f.rfind("calibrations/", 0) == 0) shipped += (shipped.empty() ? "" : ", ") + fs::path(f).stem().string();
        throw ParseError(path + ": no such file, and no shipped calibration of that name (shipped: " + shipped + ")");
    }
    return calibration_from_json(read_json_file(path), hw, path);
}

json calibration_to_json(const FitResult& fit, const json& provenance) {
    json quality;
    quality["relative_residuals"] = json::array();
    for (const double r : fit.relative_residuals) quality["relative_residuals"].push_back(number_or_null(r));
    quality["rms_relative_error"] = number_or_null(fit.rms_relative_error);
    quality["loo_relative_error"] = number_or_null(fit.loo_relative_error);
    quality["unidentified"] = fit.unidentified;
    quality["families"] = json::array();
    for (const FamilyScore& f : fit.families)
        quality["families"].push_back({{"family", f.family},
                                       {"parameters", f.parameters},
                                       {"loo_relative_error", number_or_null(f.loo_relative_error)},
                                       {"applicable", f.applicable},
                                       {"note", f.note}});
    quality["chosen_family"] = fit.chosen_family;
    quality["family_reason"] = fit.family_reason;
    quality["records_used"] = fit.records_used;
    quality["coefficients"] = json::array();
    json sources = json::object();
    for (const Coefficient& c : fit.coefficients) {
        quality["coefficients"].push_back({{"name", c.name},
                                           {"value", number_or_null(c.value)},
                                           {"std_error", number_or_null(c.std_error)},
                                           {"fitted", c.fitted},
                                           {"note", c.note}});
        std::string where = c.fitted ? "fitted to " + std::to_string(fit.records_used) + " measurement records"
                                     : "kept from the prior (" + fit.calibration.source + ")";
        if (!c.note.empty()) where += ": " + c.note;
        sources[c.name] = where;
    }
    // What a fit never touches (memory, power) is the prior's.
    for (const char* name : {"hbm_efficiency", "reserved_gib", "power"})
        if (!sources.contains(name)) sources[name] = "kept from the prior (" + fit.calibration.source + ")";
    json prov = provenance.is_null() ? json::object() : provenance;
    if (!prov.is_object()) throw std::invalid_argument("provenance = " + prov.dump() + "; it must be a JSON object");
    return absolute_form(fit.calibration, "fitted", fit.parameters, fit.covariance, std::move(quality),
                         std::move(prov), std::move(sources));
}

json calibration_to_json(const CalibrationFile& file) {
    // The absolute form cannot say "default" (that kind means fractions): a resolved
    // default written out is a calibration derived from it.
    const std::string kind = file.calibration.kind == "fitted" ? "fitted" : "derived";
    json prov = file.provenance.is_object() ? file.provenance : json::object();
    if (!prov.contains("source") && !file.calibration.source.empty()) prov["source"] = file.calibration.source;
    return absolute_form(file.calibration, kind, file.parameters, file.covariance, file.quality, std::move(prov),
                         file.sources);
}

}  // namespace libscale
