#include "libscale/json_io.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>
#include <unistd.h>

#include "libscale/error.hpp"

namespace libscale {

using nlohmann::json;

json parse_json(std::string_view text, std::string_view origin) {
    try {
        return json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        // Report the line and column of the byte where parsing stopped.
        std::size_t line = 1, column = 1;
        const std::size_t stop = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        for (std::size_t i = 0; i < stop; ++i) {
            if (text[i] == '\n') { ++line; column = 1; } else { ++column; }
        }
        std::string what = e.what();
        if (const auto pos = what.find(": syntax error"); pos != std::string::npos) what = what.substr(pos + 2);
        std::ostringstream msg;
        msg << origin << ":" << line << ":" << column << ": malformed JSON: " << what;
        throw ParseError(msg.str());
    }
}

json read_json_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ParseError(path.string() + ": cannot open the file (does it exist and is it readable?)");
    std::ostringstream buf;
    buf << in.rdbuf();
    return parse_json(buf.str(), path.string());
}

namespace {

[[noreturn]] void field_error(std::string_view origin, const std::string& field, const json& v,
                              const char* expected) {
    throw ParseError(std::string(origin) + ": field '" + field + "' = " + v.dump() + "; expected " + expected);
}

const json& require(const json& j, const std::string& field, std::string_view origin) {
    if (!j.is_object()) throw ParseError(std::string(origin) + ": expected a JSON object at the top level");
    const auto it = j.find(field);
    if (it == j.end()) throw ParseError(std::string(origin) + ": missing field '" + field + "'");
    return *it;
}

std::int64_t get_int(const json& j, const std::string& field, std::string_view origin) {
    const json& v = require(j, field, origin);
    if (!v.is_number_integer()) field_error(origin, field, v, "an integer");
    return v.get<std::int64_t>();
}

std::int64_t get_int_or(const json& j, const std::string& field, std::int64_t fallback, std::string_view origin) {
    const auto it = j.find(field);
    if (it == j.end() || it->is_null()) return fallback;
    if (!it->is_number_integer()) field_error(origin, field, *it, "an integer");
    return it->get<std::int64_t>();
}

bool get_bool_or(const json& j, const std::string& field, bool fallback, std::string_view origin) {
    const auto it = j.find(field);
    if (it == j.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) field_error(origin, field, *it, "true or false");
    return it->get<bool>();
}

double get_number(const json& j, const std::string& field, std::string_view origin, bool nullable = false) {
    const json& v = require(j, field, origin);
    if (nullable && v.is_null()) return std::nan("");
    if (!v.is_number()) field_error(origin, field, v, nullable ? "a number or null" : "a number");
    return v.get<double>();
}

std::string get_string_or(const json& j, const std::string& field, std::string fallback) {
    const auto it = j.find(field);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

void require_schema(const json& j, const char* schema, std::string_view origin) {
    const json& v = require(j, "schema", origin);
    if (!v.is_string() || v.get<std::string>() != schema)
        throw ParseError(std::string(origin) + ": field 'schema' = " + v.dump() + "; expected \"" + schema + "\"");
}

}  // namespace

ModelSpec model_from_hf_config(const json& config, std::string_view name, std::string_view origin) {
    if (!config.is_object()) throw ParseError(std::string(origin) + ": expected a JSON object (a config.json)");
    // Mixture-of-experts configs carry an expert count; this model is for dense decoders.
    for (const char* moe : {"num_experts", "num_local_experts", "n_routed_experts"}) {
        const auto it = config.find(moe);
        if (it != config.end() && it->is_number() && it->get<double>() > 1)
            throw ParseError(std::string(origin) + ": field '" + moe + "' = " + it->dump() +
                             "; libscale models dense decoders only (no mixture of experts)");
    }
    ModelSpec m;
    const json meta = config.value("_libscale", json::object());
    m.name = meta.is_object() ? get_string_or(meta, "name", std::string(name)) : std::string(name);
    m.source = meta.is_object() ? get_string_or(meta, "source", std::string(origin)) : std::string(origin);
    m.hidden_size = get_int(config, "hidden_size", origin);
    m.intermediate_size = get_int(config, "intermediate_size", origin);
    m.num_layers = get_int(config, "num_hidden_layers", origin);
    m.num_heads = get_int(config, "num_attention_heads", origin);
    m.num_kv_heads = get_int_or(config, "num_key_value_heads", m.num_heads, origin);
    m.head_dim = get_int_or(config, "head_dim", m.num_heads > 0 ? m.hidden_size / m.num_heads : 0, origin);
    m.vocab_size = get_int(config, "vocab_size", origin);
    m.max_position_embeddings = get_int(config, "max_position_embeddings", origin);
    // transformers' Llama/Qwen2/Qwen3/Mistral configs default to untied embeddings.
    m.tie_word_embeddings = get_bool_or(config, "tie_word_embeddings", false, origin);
    const std::string type = get_string_or(config, "model_type", "");
    m.qk_norm = type == "qwen3" ? QkNorm::per_head : QkNorm::none;
    const bool attention_bias = get_bool_or(config, "attention_bias", false, origin);
    if (type == "qwen2") {
        m.qkv_bias = true;  // Qwen2 attention: bias on q, k, v, none on o
    } else {
        m.qkv_bias = attention_bias;
        m.o_bias = attention_bias;
    }
    m.mlp_bias = get_bool_or(config, "mlp_bias", false, origin);
    try {
        m.validate();
    } catch (const std::invalid_argument& e) {
        throw ParseError(std::string(origin) + ": " + e.what());
    }
    return m;
}

HardwareProfile hardware_from_json(const json& j, std::string_view origin) {
    require_schema(j, "libscale.hardware/1", origin);
    HardwareProfile h;
    const json& name = require(j, "name", origin);
    if (!name.is_string() || name.get<std::string>().empty()) field_error(origin, "name", name, "a non-empty string");
    h.name = name.get<std::string>();
    h.display_name = get_string_or(j, "display_name", h.name);
    h.peak_bf16_tflops = get_number(j, "peak_bf16_tflops", origin);
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
    require_schema(j, "libscale.calibration/1", origin);
    const auto section = [&](const json& parent, const char* key, const std::string& path) -> const json& {
        const json& s = require(parent, key, origin);
        if (!s.is_object()) field_error(origin, path, s, "an object");
        return s;
    };
    CalibrationFractions f;
    const json& compute = section(j, "compute", "compute");
    f.eta_max = get_number(compute, "eta_max", origin);
    f.half_saturation_tokens = get_number(compute, "half_saturation_tokens", origin);
    const json& comm = section(j, "comm", "comm");
    const json& intra = section(comm, "intra_node", "comm.intra_node");
    f.intra_alpha_us = get_number(intra, "alpha_us", origin);
    f.intra_busbw_fraction = get_number(intra, "busbw_fraction", origin);
    const json& inter = section(comm, "inter_node", "comm.inter_node");
    f.inter_alpha_us = get_number(inter, "alpha_us", origin);
    f.inter_busbw_fraction = get_number(inter, "busbw_fraction", origin);
    const json& memory = section(j, "memory", "memory");
    f.hbm_efficiency = get_number(memory, "hbm_efficiency", origin);
    f.reserved_gib = get_number(memory, "reserved_gib", origin);
    const json& power = section(j, "power", "power");
    f.power_compute_fraction = get_number(power, "compute_fraction", origin);
    f.power_comm_fraction = get_number(power, "comm_fraction", origin);
    f.power_idle_fraction = get_number(power, "idle_fraction", origin);
    return f;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
    const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw Error(path.string() + ": cannot write (is the directory there and writable?)");
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) {
            out.close();
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            throw Error(path.string() + ": write failed (disk full?)");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw Error(path.string() + ": cannot replace the file: " + ec.message());
    }
}

}  // namespace libscale
