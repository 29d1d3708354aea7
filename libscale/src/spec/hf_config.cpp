// model_from_hf_config: refusals (mixture of experts, unknown model_type), dispatch to
// the family reader by model_type, then validation. The typed key access the readers
// use is here too; the readers themselves are in hf_families.cpp.
#include "libscale/spec/hf_config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "hf_config_reader.hpp"
#include "libscale/io/error.hpp"

namespace libscale {

using nlohmann::json;

namespace detail {

const json* HfConfig::find(const char* key) const {
    const auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
}

bool HfConfig::has(const char* key) const {
    const json* v = find(key);
    return v != nullptr && !v->is_null();
}

bool HfConfig::is_null(const char* key) const {
    const json* v = find(key);
    return v != nullptr && v->is_null();
}

void HfConfig::bad_value(const std::string& key, const json& value, const std::string& valid) const {
    throw ParseError(origin() + ": field '" + prefix_ + key + "' = " + value.dump() + "; " + valid);
}

void HfConfig::refuse(const std::string& key, const json& value, const std::string& why) const {
    throw ParseError(origin() + ": field '" + prefix_ + key + "' = " + value.dump() + " (model_type '" + type_ +
                     "'): " + why);
}

std::int64_t HfConfig::size(const char* key) const {
    const json* v = find(key);
    if (v == nullptr || v->is_null())
        throw ParseError(origin() + ": missing field '" + prefix_ + key + "' (model_type '" + type_ +
                         "' needs it: it sizes a weight)");
    if (!v->is_number_integer() || v->get<std::int64_t>() <= 0) bad_value(key, *v, "expected a positive integer");
    return v->get<std::int64_t>();
}

std::int64_t HfConfig::integer(const char* key, std::int64_t fallback) const {
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return fallback;
    // An unsigned value past INT64_MAX would read as a negative one (max_window_layers =
    // 2^64 - 1, "no layer slides", as -1, "every layer slides").
    if (!v->is_number_integer() ||
        (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)))
        bad_value(key, *v, "expected an integer or null");
    return v->get<std::int64_t>();
}

bool HfConfig::flag(const char* key, bool fallback) const {
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_boolean()) bad_value(key, *v, "expected true or false");
    return v->get<bool>();
}

double HfConfig::number(const char* key, double fallback) const {
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_number()) bad_value(key, *v, "expected a number or null");
    return v->get<double>();
}

std::string HfConfig::text(const char* key, const std::string& fallback) const {
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_string()) bad_value(key, *v, "expected a string");
    return v->get<std::string>();
}

Activation HfConfig::activation(const char* key, const char* fallback) const {
    const std::string name = text(key, fallback);
    try {
        return parse_activation(name);
    } catch (const std::invalid_argument& e) {
        bad_value(key, json(name), e.what());
    }
}

HfConfig HfConfig::object(const char* key) const {
    static const json kEmpty = json::object();
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return {kEmpty, origin_, type_, prefix_ + key + "."};
    if (!v->is_object()) bad_value(key, *v, "expected an object");
    return {*v, origin_, type_, prefix_ + key + "."};
}

std::int64_t sliding_layers(const HfConfig& c, std::int64_t num_layers, std::int64_t derived) {
    if (!c.has("layer_types")) return derived;
    const json& types = c.raw("layer_types");
    if (!types.is_array() || static_cast<std::int64_t>(types.size()) != num_layers)
        c.bad_value("layer_types", types, "expected one entry per layer (" + std::to_string(num_layers) + ")");
    std::int64_t n = 0;
    for (const json& t : types) {
        if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
            c.bad_value("layer_types", t, "each entry must be \"sliding_attention\" or \"full_attention\"");
        n += t == "sliding_attention" ? 1 : 0;
    }
    return n;
}

}  // namespace detail

namespace {

// Mixture-of-experts model_types (transformers' models/<type>/) this reader does not
// read, refused by name even when their config lacks an expert count key it knows.
constexpr const char* kMoeTypes[] = {
    "arctic",  "dbrx",        "deepseek_v2",      "deepseek_v3",    "ernie4_5_moe", "glm4_moe",
    "gpt_oss", "granitemoe",  "granitemoeshared", "hunyuan_v1_moe", "jamba",        "jetmoe",
    "llama4",  "llama4_text", "minimax",          "phimoe",         "qwen3_next",
};

std::string supported_list() {
    std::string out;
    for (const std::string& t : supported_model_types()) out += (out.empty() ? "" : ", ") + t;
    return out;
}

// "mixture-of-experts model_type read: mixtral, ...; supported model_type: ...", from the
// family table (kFamilies is in alphabetical order).
std::string read_lists() {
    std::string moe;
    for (std::size_t i = 0; i < detail::kFamilyCount; ++i)
        if (detail::kFamilies[i].experts)
            moe += (moe.empty() ? "" : ", ") + std::string(detail::kFamilies[i].model_type);
    return "mixture-of-experts model_type read: " + moe + "; supported model_type: " + supported_list();
}

const detail::Family* family(std::string_view type) {
    for (std::size_t i = 0; i < detail::kFamilyCount; ++i)
        if (type == detail::kFamilies[i].model_type) return &detail::kFamilies[i];
    return nullptr;
}

void refuse_mixture_of_experts(const json& config, const std::string& type, std::string_view origin) {
    if (const detail::Family* fam = family(type); fam != nullptr && fam->experts) return;
    for (const char* key : {"num_experts", "num_local_experts", "n_routed_experts"}) {
        const auto it = config.find(key);
        if (it != config.end() && it->is_number() && it->get<double>() > 1)
            throw ParseError(std::string(origin) + ": field '" + key + "' = " + it->dump() +
                             ": a mixture-of-experts model of a family libscale does not read (" + read_lists() + ")");
    }
    if (std::find(std::begin(kMoeTypes), std::end(kMoeTypes), type) != std::end(kMoeTypes))
        throw ParseError(std::string(origin) + ": model_type '" + type +
                         "' is a mixture-of-experts model libscale does not read (its attention or routing is not "
                         "modelled; " +
                         read_lists() + ")");
}

}  // namespace

std::vector<std::string> supported_model_types() {
    std::vector<std::string> out;
    out.reserve(detail::kFamilyCount);
    for (std::size_t i = 0; i < detail::kFamilyCount; ++i) out.emplace_back(detail::kFamilies[i].model_type);
    std::sort(out.begin(), out.end());
    return out;
}

ModelSpec model_from_hf_config(const json& config, std::string_view name, std::string_view origin) {
    if (!config.is_object()) throw ParseError(std::string(origin) + ": expected a JSON object (a config.json)");
    std::string type;
    if (const auto it = config.find("model_type"); it != config.end()) {
        if (!it->is_string())
            throw ParseError(std::string(origin) + ": field 'model_type' = " + it->dump() + "; expected a string");
        type = it->get<std::string>();
    }
    refuse_mixture_of_experts(config, type, origin);
    if (type.empty()) {
        // No model_type, or an empty one (transformers writes "" for a bare
        // PretrainedConfig: configuration_utils.py to_dict): read as llama only when
        // Llama's size keys are all there, rather than guessing at another family's layout.
        for (const char* key :
             {"hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "vocab_size"})
            if (!config.contains(key))
                throw ParseError(std::string(origin) + ": no 'model_type', and no '" + key +
                                 "' to read it as llama; add model_type (supported: " + supported_list() + ")");
        type = "llama";
    }
    const detail::Family* fam = family(type);
    if (fam == nullptr)
        throw ParseError(std::string(origin) + ": model_type '" + type +
                         "' is not supported; supported: " + supported_list());
    ModelSpec m;
    m.model_type = type;
    const detail::HfConfig c(config, origin, type);
    // libscale's own annotations of a shipped file (the catalog name, the source).
    const detail::HfConfig meta = c.object("_libscale");
    m.name = meta.text("name", std::string(name));
    m.source = meta.text("source", std::string(origin));
    fam->read(c, m);
    try {
        m.validate();
    } catch (const std::invalid_argument& e) {
        throw ParseError(std::string(origin) + ": " + e.what());
    }
    return m;
}

}  // namespace libscale
