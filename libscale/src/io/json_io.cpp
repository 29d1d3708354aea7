#include "libscale/io/json_io.hpp"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "libscale/io/error.hpp"
#include "libscale/io/input_file.hpp"

namespace libscale {

using nlohmann::json;

bool JsonGuard::operator()(int depth, json::parse_event_t event, json& parsed) {
    // Documents nested deeper than this are refused before anything walks them recursively
    // (the Python converters, the readers): `[` × 100,000 is not a configuration.
    constexpr int kMaxDepth = 256;
    using E = json::parse_event_t;
    switch (event) {
        case E::object_start:
        case E::array_start:
            if (depth > kMaxDepth)
                throw ParseError(origin_ + ": JSON nested deeper than " + std::to_string(kMaxDepth) +
                                 " levels; is it the right file?");
            keys_.emplace_back();
            break;
        case E::object_end:
        case E::array_end:
            if (!keys_.empty()) keys_.pop_back();
            break;
        case E::key:
            if (!keys_.empty() && parsed.is_string()) {
                std::vector<std::string>& seen = keys_.back();
                std::string key = parsed.get<std::string>();
                // Objects hold a few dozen keys: a linear scan beats a set's allocations.
                if (std::find(seen.begin(), seen.end(), key) != seen.end())
                    throw ParseError(origin_ + ": key \"" + key +
                                     "\" appears twice in one object; give each key once (a reader would keep one "
                                     "value and drop the other without a word)");
                seen.push_back(std::move(key));
            }
            break;
        case E::value: break;
    }
    return true;
}

json parse_json(std::string_view text, std::string_view origin) {
    try {
        return json::parse(text.begin(), text.end(), JsonGuard(std::string(origin)));
    } catch (const json::parse_error& e) {
        // Report the line and column of the byte where parsing stopped.
        std::size_t line = 1, column = 1;
        const std::size_t stop = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        for (std::size_t i = 0; i < stop; ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        std::string what = e.what();
        if (const auto pos = what.find(": syntax error"); pos != std::string::npos) what = what.substr(pos + 2);
        std::ostringstream msg;
        msg << origin << ":" << line << ":" << column << ": malformed JSON: " << what;
        throw ParseError(msg.str());
    } catch (const json::out_of_range& e) {
        // A number past double's range (1e999): nlohmann refuses it rather than make it inf.
        std::string what = e.what();
        if (const auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
        throw ParseError(std::string(origin) + ": " + what + " (beyond the range of a 64-bit float)");
    } catch (const json::exception& e) {
        throw ParseError(std::string(origin) + ": malformed JSON: " + e.what());
    }
}

json read_json_file(const std::filesystem::path& path, std::string_view expected, std::uint64_t max_bytes) {
    return parse_json(read_input_file(path, expected, max_bytes), path.string());
}

namespace {

[[noreturn]] void field_error(std::string_view origin, const std::string& field, const json& v, const char* expected) {
    throw ParseError(std::string(origin) + ": field '" + field + "' = " + v.dump() + "; expected " + expected);
}

const json& require(const json& j, const std::string& field, std::string_view origin) {
    if (!j.is_object()) throw ParseError(std::string(origin) + ": expected a JSON object at the top level");
    const auto it = j.find(field);
    if (it == j.end()) throw ParseError(std::string(origin) + ": missing field '" + field + "'");
    return *it;
}

// An unsigned value past INT64_MAX is refused here, not read as the negative number
// get<std::int64_t>() would make of it.
bool is_int64(const json& v) {
    return v.is_number_integer() &&
           !(v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX));
}

std::int64_t get_int(const json& j, const std::string& field, std::string_view origin) {
    const json& v = require(j, field, origin);
    if (!is_int64(v)) field_error(origin, field, v, "an integer");
    return v.get<std::int64_t>();
}

std::int64_t get_int_or(const json& j, const std::string& field, std::int64_t fallback, std::string_view origin) {
    const auto it = j.find(field);
    if (it == j.end() || it->is_null()) return fallback;
    if (!is_int64(*it)) field_error(origin, field, *it, "an integer");
    return it->get<std::int64_t>();
}

double get_number(const json& j, const std::string& field, std::string_view origin, bool nullable = false) {
    const json& v = require(j, field, origin);
    if (nullable && v.is_null()) return std::nan("");
    if (!v.is_number()) field_error(origin, field, v, nullable ? "a number or null" : "a number");
    return v.get<double>();
}

// An optional text field: absent or null gives the fallback; any other non-string is an
// error, never skipped (a number where a name belongs is a mistake in the file).
std::string get_string_or(const json& j, const std::string& field, std::string fallback, std::string_view origin) {
    const auto it = j.find(field);
    if (it == j.end() || it->is_null()) return fallback;
    if (!it->is_string()) field_error(origin, field, *it, "a string");
    return it->get<std::string>();
}

void require_schema(const json& j, const char* schema, std::string_view origin) {
    const json& v = require(j, "schema", origin);
    if (!v.is_string() || v.get<std::string>() != schema)
        throw ParseError(std::string(origin) + ": field 'schema' = " + v.dump() + "; expected \"" + schema + "\"");
}

}  // namespace

void check_known_keys(const json& o, std::string_view path, std::initializer_list<std::string_view> known,
                      std::string_view origin) {
    for (const auto& item : o.items()) {
        if (std::find(known.begin(), known.end(), item.key()) != known.end()) continue;
        std::string valid;
        for (const std::string_view k : known) valid.append(valid.empty() ? "" : ", ").append(k);
        std::string field(path);
        field.append(path.empty() ? "" : ".").append(item.key());
        throw ParseError(std::string(origin) + ": field '" + field + "' is not known here; valid: " + valid);
    }
}

HardwareProfile hardware_from_json(const json& j, std::string_view origin) {
    require_schema(j, "libscale.hardware/1", origin);
    HardwareProfile h;
    const json& name = require(j, "name", origin);
    if (!name.is_string() || name.get<std::string>().empty()) field_error(origin, "name", name, "a non-empty string");
    h.name = name.get<std::string>();
    h.display_name = get_string_or(j, "display_name", h.name, origin);
    h.peak_bf16_tflops = get_number(j, "peak_bf16_tflops", origin);
    // Optional: hardware files written before the per-operation compute model lack them.
    h.peak_fp8_tflops = j.contains("peak_fp8_tflops") ? get_number(j, "peak_fp8_tflops", origin) : 0.0;
    h.sm_count = get_int_or(j, "sm_count", 0, origin);
    h.hbm_gib = get_number(j, "hbm_gib", origin);
    h.hbm_tbps = get_number(j, "hbm_tbps", origin);
    h.nvlink_gbps_bidir = get_number(j, "nvlink_gbps_bidir", origin);
    h.nic_gbps_per_gpu = get_number(j, "nic_gbps_per_gpu", origin);
    h.gpus_per_node = get_int(j, "gpus_per_node", origin);
    h.board_power_w = get_number(j, "board_power_w", origin);
    h.idle_power_w = j.contains("idle_power_w") ? get_number(j, "idle_power_w", origin, true) : std::nan("");
    h.price_per_gpu_hour_usd = get_number(j, "price_per_gpu_hour_usd", origin);
    h.source = std::string(origin);
    try {
        h.validate();
    } catch (const std::invalid_argument& e) {
        throw ParseError(std::string(origin) + ": " + e.what());
    }
    return h;
}

CalibrationFractions calibration_fractions_from_json(const json& j, std::string_view origin) {
    require_schema(j, "libscale.calibration/2", origin);
    const auto section = [&](const json& parent, const char* key, const std::string& path) -> const json& {
        const auto it = parent.find(key);
        if (it == parent.end()) throw ParseError(std::string(origin) + ": missing field '" + path + "'");
        if (!it->is_object()) field_error(origin, path, *it, "an object");
        return *it;
    };
    const auto num = [&](const json& parent, const char* key, const std::string& path) {
        const auto it = parent.find(key);
        if (it == parent.end()) throw ParseError(std::string(origin) + ": missing field '" + path + "'");
        if (!it->is_number() || !std::isfinite(it->get<double>())) field_error(origin, path, *it, "a finite number");
        return it->get<double>();
    };
    // Fractions and microseconds are checked here, in the file's own units: once resolved
    // against a GPU they would be reported as watts or bytes/s the file never wrote.
    const auto in_range = [&](const json& parent, const char* key, const std::string& path, double lo, double hi,
                              const char* valid) {
        const double v = num(parent, key, path);
        if (!(v >= lo && v <= hi)) field_error(origin, path, parent.at(key), valid);
        return v;
    };
    CalibrationFractions f;
    const json& compute = section(j, "compute", "compute");
    check_known_keys(compute, "compute", {"framework_efficiency", "gemm", "attention", "overhead"}, origin);
    const json& gemm = section(compute, "gemm", "compute.gemm");
    check_known_keys(gemm, "compute.gemm", {"eta_max", "fp8_eta_max", "tile_m", "tile_n", "k_half"}, origin);
    f.gemm.eta_max = num(gemm, "eta_max", "compute.gemm.eta_max");
    f.gemm.fp8_eta_max = num(gemm, "fp8_eta_max", "compute.gemm.fp8_eta_max");
    f.gemm.tile_m = num(gemm, "tile_m", "compute.gemm.tile_m");
    f.gemm.tile_n = num(gemm, "tile_n", "compute.gemm.tile_n");
    f.gemm.k_half = num(gemm, "k_half", "compute.gemm.k_half");
    const json& att = section(compute, "attention", "compute.attention");
    check_known_keys(att, "compute.attention",
                     {"forward_eta_max", "forward_half_seq", "backward_eta_max", "backward_half_seq", "head_dim_half"},
                     origin);
    f.attention.forward_eta_max = num(att, "forward_eta_max", "compute.attention.forward_eta_max");
    f.attention.forward_half_seq = num(att, "forward_half_seq", "compute.attention.forward_half_seq");
    f.attention.backward_eta_max = num(att, "backward_eta_max", "compute.attention.backward_eta_max");
    f.attention.backward_half_seq = num(att, "backward_half_seq", "compute.attention.backward_half_seq");
    f.attention.head_dim_half = num(att, "head_dim_half", "compute.attention.head_dim_half");
    f.framework_efficiency = num(compute, "framework_efficiency", "compute.framework_efficiency");
    const json& over = section(compute, "overhead", "compute.overhead");
    check_known_keys(over, "compute.overhead", {"kernel_s", "layer_s", "step_s"}, origin);
    f.kernel_overhead_s = num(over, "kernel_s", "compute.overhead.kernel_s");
    f.layer_overhead_s = num(over, "layer_s", "compute.overhead.layer_s");
    f.step_overhead_s = num(over, "step_s", "compute.overhead.step_s");
    const json& comm = section(j, "comm", "comm");
    check_known_keys(comm, "comm", {"intra_node", "inter_node"}, origin);
    const json& intra = section(comm, "intra_node", "comm.intra_node");
    check_known_keys(intra, "comm.intra_node", {"alpha_us", "busbw_fraction"}, origin);
    f.intra_alpha_us = in_range(intra, "alpha_us", "comm.intra_node.alpha_us", 0, 1e6, "microseconds in [0, 1e6]");
    f.intra_busbw_fraction = in_range(intra, "busbw_fraction", "comm.intra_node.busbw_fraction", 1e-9, 1,
                                      "a fraction of the line rate in (0, 1]");
    const json& inter = section(comm, "inter_node", "comm.inter_node");
    check_known_keys(inter, "comm.inter_node", {"alpha_us", "busbw_fraction"}, origin);
    f.inter_alpha_us = in_range(inter, "alpha_us", "comm.inter_node.alpha_us", 0, 1e6, "microseconds in [0, 1e6]");
    f.inter_busbw_fraction = in_range(inter, "busbw_fraction", "comm.inter_node.busbw_fraction", 1e-9, 1,
                                      "a fraction of the line rate in (0, 1]");
    const json& memory = section(j, "memory", "memory");
    check_known_keys(memory, "memory", {"hbm_efficiency", "reserved_gib", "fragmentation", "margin"}, origin);
    f.hbm_efficiency = num(memory, "hbm_efficiency", "memory.hbm_efficiency");
    f.reserved_gib = num(memory, "reserved_gib", "memory.reserved_gib");
    f.fragmentation = num(memory, "fragmentation", "memory.fragmentation");
    f.memory_margin = num(memory, "margin", "memory.margin");
    const json& power = section(j, "power", "power");
    check_known_keys(power, "power", {"compute_fraction", "comm_fraction", "idle_fraction"}, origin);
    f.power_compute_fraction =
        in_range(power, "compute_fraction", "power.compute_fraction", 0, 1, "a fraction of board power in [0, 1]");
    f.power_comm_fraction =
        in_range(power, "comm_fraction", "power.comm_fraction", 0, 1, "a fraction of board power in [0, 1]");
    f.power_idle_fraction =
        in_range(power, "idle_fraction", "power.idle_fraction", 0, 1, "a fraction of board power in [0, 1]");
    f.prior_log_sd = prior_from_json(j, origin);
    f.spread_log_sd = log_sd_from_json(j, "spread", origin);
    return f;
}

std::map<std::string, double> log_sd_from_json(const json& j, const std::string& field, std::string_view origin) {
    std::map<std::string, double> out;
    const auto it = j.find(field);
    if (it == j.end() || it->is_null()) return out;
    if (!it->is_object()) field_error(origin, field, *it, "an object of coefficient name -> log standard deviation");
    for (const auto& [name, v] : it->items()) {
        try {
            (void)coefficient_info(name);
        } catch (const std::invalid_argument& e) {
            throw ParseError(std::string(origin) + ": field '" + field + "." + name + "': " + e.what());
        }
        if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
            field_error(origin, field + "." + name, v, "a finite number > 0 (a standard deviation of log(value))");
        out[name] = v.get<double>();
    }
    return out;
}

std::map<std::string, double> prior_from_json(const json& j, std::string_view origin) {
    return log_sd_from_json(j, "prior", origin);
}

}  // namespace libscale
