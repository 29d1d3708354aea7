// Calibration files, schema "libscale.calibration/2" (docs/formats.md).
//
// kind "default": the compute coefficients in absolute terms and the rest as fractions of
// the hardware's figures (calibration/data/calibrations/default-*.json, read by
// calibration_fractions_from_json and resolved against the GPU), plus a "prior".
//
// kind "fitted" (written by `libscale fit`) or "derived" (worked out from a published
// figure): every coefficient of calibration.hpp's table in absolute units, under
// "coefficients" at its dotted name ({"gemm": {"eta_max": ...}, "intra_node": {...},
// "hbm_efficiency": ..., "power": {"compute_w": ...}, ...}), with optional "uncertainty"
// ({"parameters": [dotted names], "covariance": [[...]]}, natural units), "quality",
// "provenance", "sources" and "prior".
//
// Schema libscale.calibration/1 files (one compute efficiency for every FLOP) are still
// read for their power bands; for projections they are refused with a message, because
// their eta_max has no per-operation equivalent.
#include "libscale/calibrate/calibration_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "libscale/io/catalog.hpp"
#include "libscale/io/error.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/triage/power_bands.hpp"

namespace libscale {

using nlohmann::json;

namespace {

constexpr const char* kSchema = "libscale.calibration/2";
constexpr const char* kSchemaV1 = "libscale.calibration/1";
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

// Accepts "libscale.calibration/2" (and /1 where allow_v1); names the version when it is
// ours but unknown. Returns the version read.
int check_schema(const json& j, std::string_view origin, bool allow_v1 = false) {
    const json& s = member(j, "schema", "schema", origin);
    if (s.is_string() && s.get<std::string>() == kSchema) return 2;
    if (s.is_string() && s.get<std::string>() == kSchemaV1) {
        if (allow_v1) return 1;
        std::string eta;
        if (const auto k = j.find("coefficients"); k != j.end() && k->is_object() && k->contains("eta_max"))
            eta = " (its eta_max = " + k->at("eta_max").dump() + ")";
        throw ParseError(std::string(origin) + ": schema \"" + kSchemaV1 +
                         "\" has one compute efficiency for every FLOP" + eta +
                         ", which has no per-operation equivalent, so libscale " + kSchema +
                         " does not use it; refit with `libscale fit` from the measurements it came from");
    }
    const std::string text = s.is_string() ? s.get<std::string>() : s.dump();
    if (text.rfind(kSchemaPrefix, 0) == 0)
        fail(origin, "schema",
             "= \"" + text + "\": unknown version " + text.substr(std::string(kSchemaPrefix).size()) +
                 "; this libscale reads \"" + kSchema + "\"");
    fail(origin, "schema", "= " + s.dump() + "; expected \"" + kSchema + "\" (is this a calibration file?)");
}

void check_hardware(const std::string& file_hw, const HardwareProfile& hw, std::string_view origin) {
    if (lower(file_hw) == lower(hw.name)) return;
    fail(origin, "hardware",
         "= \"" + file_hw + "\", but it is being used for hardware '" + hw.name +
             "'; a calibration applies only to the hardware it was made on");
}

json optional_object(const json& j, const char* key, std::string_view origin) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return json::object();
    if (!it->is_object()) fail(origin, key, "= " + it->dump() + "; expected an object");
    return *it;
}

// "measured_with": what the laws were measured with. Only the attention kernel changes a
// projection (compute_model.cpp scales other kernels relative to it); absent, the law is
// FlashAttention-2's, as the published charts behind every default are.
void read_measured_with(const json& j, Calibration& c, std::string_view origin) {
    const json m = optional_object(j, "measured_with", origin);
    for (const auto& [key, v] : m.items())
        if (key != "attention_kernel")
            fail(origin, "measured_with." + key, "is not known here; valid: attention_kernel");
    const auto k = m.find("attention_kernel");
    if (k == m.end() || k->is_null()) return;
    if (!k->is_string()) fail(origin, "measured_with.attention_kernel", "= " + k->dump() + "; expected a kernel name");
    try {
        c.attention_kernel = parse_attention_kernel(k->get<std::string>());
    } catch (const std::invalid_argument& e) {
        throw ParseError(std::string(origin) + ": measured_with." + e.what());
    }
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
                 "= " + (std::ostringstream() << d(i)).str() + "; a variance must be >= 0");
    Eigen::MatrixXd r(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index k = 0; k < n; ++k) {
            const double a = c(i, k), b = c(k, i);
            const double scale = std::sqrt(d(i) * d(k));
            if (std::abs(a - b) > 1e-9 * std::max({std::abs(a), std::abs(b), scale}))
                fail(origin, "uncertainty.covariance",
                     "is not symmetric: [" + std::to_string(i) + "][" + std::to_string(k) + "] differs from [" +
                         std::to_string(k) + "][" + std::to_string(i) + "]");
            if (scale > 0) {
                r(i, k) = a / scale;
            } else if (a != 0) {
                fail(origin, "uncertainty.covariance",
                     "is not positive semi-definite: entry [" + std::to_string(i) + "][" + std::to_string(k) +
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
        fail(origin, "uncertainty.covariance",
             "has " + std::to_string(cov.size()) + " rows for " + std::to_string(n) + " parameters; it must be " +
                 std::to_string(n) + " × " + std::to_string(n));
    out.covariance.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
    for (std::size_t r = 0; r < n; ++r) {
        const std::string row = "uncertainty.covariance[" + std::to_string(r) + "]";
        if (!cov[r].is_array() || cov[r].size() != n)
            fail(origin, row,
                 "= " + cov[r].dump() + "; expected a row of " + std::to_string(n) +
                     " numbers (the matrix must be square, one row and column per parameter)");
        for (std::size_t c = 0; c < n; ++c)
            out.covariance(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
                finite_number(cov[r][c], row + "[" + std::to_string(c) + "]", origin);
    }
    check_covariance(out.covariance, origin);
    if (const auto bad = first_spread_problem(cal, out.parameters, out.covariance)) {
        const std::string i = std::to_string(bad->first);
        fail(origin, "uncertainty.covariance[" + i + "][" + i + "]",
             "(" + out.parameters[bad->first] + "): " + bad->second);
    }
}

}  // namespace

std::optional<std::pair<std::size_t, std::string>> first_spread_problem(const Calibration& c,
                                                                        const std::vector<std::string>& parameters,
                                                                        const Eigen::MatrixXd& covariance) {
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        const auto d = static_cast<Eigen::Index>(i);
        std::string why =
            spread_problem(parameters[i], get_parameter(c, parameters[i]), std::sqrt(std::max(covariance(d, d), 0.0)));
        if (!why.empty()) return std::pair{i, std::move(why)};
    }
    return std::nullopt;
}

namespace {

// Every key under "coefficients" must be a coefficient or a group of them: a misspelt
// name would otherwise be ignored and a default used in its place.
void check_coefficient_keys(const json& o, const std::string& path, const std::string& prefix,
                            std::string_view origin) {
    for (const auto& [key, v] : o.items()) {
        const std::string name = prefix + key;
        bool leaf = false, group = false;
        std::string valid;
        for (const CoefficientInfo& info : calibration_coefficients()) {
            const std::string_view n = info.name;
            if (n == name) leaf = true;
            if (n.substr(0, name.size() + 1) == name + ".") group = true;
            if (n.substr(0, prefix.size()) == prefix) {
                const std::string_view tail = n.substr(prefix.size());
                valid += (valid.empty() ? "" : ", ") + std::string(tail.substr(0, tail.find('.')));
            }
        }
        if (group && v.is_object()) {
            check_coefficient_keys(v, path + "." + key, name + ".", origin);
        } else if (!leaf) {
            fail(origin, path + "." + key, "is not a known coefficient; valid here: " + valid);
        }
    }
}

CalibrationFile read_default(const json& j, const HardwareProfile& hw, std::string_view origin) {
    if (const auto h = j.find("hardware"); h != j.end()) {
        if (!h->is_string()) fail(origin, "hardware", "= " + h->dump() + "; expected a hardware name");
        // The generic default is written for any hardware file a user brings.
        if (lower(h->get<std::string>()) != "generic") check_hardware(h->get<std::string>(), hw, origin);
    }
    CalibrationFile out;
    try {
        out = resolve_default_file(calibration_fractions_from_json(j, origin), hw, std::string(origin));
        read_measured_with(j, out.calibration, origin);
    } catch (const std::invalid_argument& e) {
        throw ParseError(std::string(origin) + ": " + e.what());
    }
    out.provenance = {{"hardware", hw.name}, {"source", std::string(origin)}};
    if (const auto d = j.find("description"); d != j.end() && !d->is_null()) {
        if (!d->is_string()) fail(origin, "description", "= " + d->dump() + "; expected a string");
        out.provenance["notes"] = *d;
    }
    out.sources = optional_object(j, "sources", origin);
    out.quality = json::object();
    return out;
}

}  // namespace

CalibrationFile resolve_default_file(const CalibrationFractions& f, const HardwareProfile& hw, std::string origin) {
    CalibrationFile out;
    out.calibration = resolve_calibration(f, hw, "default", std::move(origin));
    out.prior_log_sd = f.prior_log_sd;
    // Covariance order: the coefficient table's, as the fitter writes it.
    for (const CoefficientInfo& info : calibration_coefficients())
        if (f.spread_log_sd.contains(info.name)) out.parameters.emplace_back(info.name);
    const auto k = static_cast<Eigen::Index>(out.parameters.size());
    if (k == 0) return out;
    out.covariance = Eigen::MatrixXd::Zero(k, k);
    for (Eigen::Index i = 0; i < k; ++i) {
        const std::string& name = out.parameters[static_cast<std::size_t>(i)];
        const double sd = coefficient_info(name).ref(out.calibration) * f.spread_log_sd.at(name);
        out.covariance(i, i) = sd * sd;
    }
    return out;
}

namespace {

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
    const json& k = member(j, "coefficients", "coefficients", origin);
    if (!k.is_object()) fail(origin, "coefficients", "= " + k.dump() + "; expected an object");
    check_coefficient_keys(k, "coefficients", "", origin);
    for (const CoefficientInfo& info : calibration_coefficients()) {
        const std::string path = std::string("coefficients.") + info.name;
        const json* at = &k;
        std::string_view rest = info.name;
        for (std::size_t dot = 0; (dot = rest.find('.')) != std::string_view::npos; rest.remove_prefix(dot + 1)) {
            const std::string key(rest.substr(0, dot));
            const auto it = at->find(key);
            if (it == at->end() || !it->is_object())
                fail(origin, path.substr(0, path.size() - rest.size() + dot), "is missing; expected an object");
            at = &*it;
        }
        const auto it = at->find(std::string(rest));
        if (it == at->end())
            throw ParseError(std::string(origin) + ": missing field '" + path + "' (" + info.help + ", " + info.unit +
                             ")");
        info.ref(c) = finite_number(*it, path, origin);
    }
    try {
        c.validate();
    } catch (const std::invalid_argument& e) {
        throw ParseError(std::string(origin) + ": " + e.what());
    }

    read_measured_with(j, c, origin);
    read_uncertainty(j, c, out, origin);
    out.prior_log_sd = prior_from_json(j, origin);
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
                   const Eigen::MatrixXd& covariance, json quality, json provenance, json sources,
                   const std::map<std::string, double>& prior) {
    c.validate();
    const auto n = static_cast<Eigen::Index>(parameters.size());
    if (covariance.size() != 0 && (covariance.rows() != n || covariance.cols() != n))
        throw std::invalid_argument("covariance is " + std::to_string(covariance.rows()) + " × " +
                                    std::to_string(covariance.cols()) + " for " + std::to_string(n) +
                                    " parameters; it must be square, one row and column per parameter");
    if (!covariance.allFinite()) throw std::invalid_argument("covariance has a non-finite entry");
    for (const std::string& name : parameters) (void)get_parameter(c, name);
    if (covariance.size() != 0) {  // what read_uncertainty refuses, refused before a file is written
        check_covariance(covariance, "the calibration to write");
        if (const auto bad = first_spread_problem(c, parameters, covariance))
            throw std::invalid_argument("the calibration to write: covariance, " + parameters[bad->first] + ": " +
                                        bad->second);
    }

    json j;
    j["schema"] = kSchema;
    j["kind"] = kind;
    j["hardware"] = c.hardware;
    j["coefficients"] = json::object();
    for (const CoefficientInfo& info : calibration_coefficients()) {
        json* at = &j["coefficients"];
        std::string_view rest = info.name;
        for (std::size_t dot = 0; (dot = rest.find('.')) != std::string_view::npos; rest.remove_prefix(dot + 1))
            at = &(*at)[std::string(rest.substr(0, dot))];
        (*at)[std::string(rest)] = info.ref(const_cast<Calibration&>(c));
    }
    j["measured_with"] = {{"attention_kernel", to_string(c.attention_kernel)}};
    if (!parameters.empty() && covariance.size() != 0)
        j["uncertainty"] = {{"parameters", parameters}, {"covariance", covariance_json(covariance)}};
    j["quality"] = quality.is_object() ? std::move(quality) : json::object();
    j["provenance"] = provenance.is_object() ? std::move(provenance) : json::object();
    if (!j["provenance"].contains("hardware")) j["provenance"]["hardware"] = c.hardware;
    j["sources"] = sources.is_object() ? std::move(sources) : json::object();
    if (!prior.empty()) j["prior"] = prior;
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
PowerBands power_bands_from_calibration_json(const json& j, const HardwareProfile& hw, std::string_view origin) {
    if (!j.is_object()) throw ParseError(std::string(origin) + ": expected a JSON object (a calibration file)");
    check_schema(j, origin, /*allow_v1=*/true);
    if (const auto h = j.find("hardware"); h != j.end()) {
        if (!h->is_string()) fail(origin, "hardware", "= " + h->dump() + "; expected a hardware name");
        if (lower(h->get<std::string>()) != "generic") check_hardware(h->get<std::string>(), hw, origin);
    }
    const auto it = j.find("power_bands");
    if (it == j.end())
        throw ParseError(std::string(origin) +
                         ": no power_bands section (the micro-run harness writes one after measuring the phases; "
                         "without it, the default bands of the hardware are used)");
    return power_bands_from_json(*it, origin);
}

PowerBands read_power_bands(const std::string& path, const HardwareProfile& hw) {
    return power_bands_from_calibration_json(read_json_file(path, "a libscale.calibration JSON file"), hw, path);
}

CalibrationFile read_calibration_file(const std::string& path, const HardwareProfile& hw) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::symlink_status(path, ec).type() == fs::file_type::not_found && path.find('/') == std::string::npos) {
        std::string rel = "calibrations/" + path;
        if (rel.size() < 5 || rel.substr(rel.size() - 5) != ".json") rel += ".json";
        const std::vector<std::string> files = catalog_files();
        if (std::find(files.begin(), files.end(), rel) != files.end())
            return calibration_from_json(parse_json(catalog_file(rel), "calibration/data/" + rel), hw,
                                         "calibration/data/" + rel);
        std::string shipped;
        for (const std::string& f : files)
            if (f.rfind("calibrations/", 0) == 0)
                shipped += (shipped.empty() ? "" : ", ") + fs::path(f).stem().string();
        throw ParseError(path + ": no such file, and no shipped calibration of that name (shipped: " + shipped + ")");
    }
    return calibration_from_json(read_json_file(path, "a libscale.calibration JSON file"), hw, path);
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
        std::string where = c.fitted     ? "fitted to " + std::to_string(fit.records_used) + " measurement records"
                            : c.measured ? std::string("measured")
                                         : "kept from the prior (" + fit.calibration.source + ")";
        if (!c.note.empty()) where += ": " + c.note;
        sources[c.name] = where;
    }
    // What a fit never touches (memory, power) is the prior's.
    for (const CoefficientInfo& info : calibration_coefficients())
        if (const std::string name = info.name; !sources.contains(name))
            sources[name] = "kept from the prior (" + fit.calibration.source + ")";
    json prov = provenance.is_null() ? json::object() : provenance;
    if (!prov.is_object()) throw std::invalid_argument("provenance = " + prov.dump() + "; it must be a JSON object");
    if (!fit.power_bands_note.empty()) quality["power_bands_note"] = fit.power_bands_note;
    json j = absolute_form(fit.calibration, "fitted", fit.parameters, fit.covariance, std::move(quality),
                           std::move(prov), std::move(sources), fit.prior_log_sd);
    if (fit.power_bands) {
        // The reader prefixes "calibrated: <file>"; the source says only what was measured.
        std::string_view source = fit.power_bands->label;
        if (source.starts_with("calibrated: ")) source.remove_prefix(std::string_view("calibrated: ").size());
        j["power_bands"] = power_bands_to_json(*fit.power_bands, source);
    }
    return j;
}

json calibration_to_json(const CalibrationFile& file) {
    // The absolute form cannot say "default" (that kind means fractions): a resolved
    // default written out is a calibration derived from it.
    const std::string kind = file.calibration.kind == "fitted" ? "fitted" : "derived";
    json prov = file.provenance.is_object() ? file.provenance : json::object();
    if (!prov.contains("source") && !file.calibration.source.empty()) prov["source"] = file.calibration.source;
    return absolute_form(file.calibration, kind, file.parameters, file.covariance, file.quality, std::move(prov),
                         file.sources, file.prior_log_sd);
}

}  // namespace libscale
