// Typed access to one config.json for the family readers (hf_families.cpp): every
// error is a ParseError naming the file, the key, its value and what is valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "libscale/spec/model_spec.hpp"

namespace libscale::detail {

class HfConfig {
public:
    HfConfig(const nlohmann::json& j, std::string_view origin, std::string model_type)
        : j_(j), origin_(origin), type_(std::move(model_type)) {}

    const std::string& model_type() const { return type_; }
    bool has(const char* key) const;      // present and not null
    bool is_null(const char* key) const;  // present as null
    // A weight size: required, a positive integer.
    std::int64_t size(const char* key) const;
    // Missing or null: `fallback` (the transformers default).
    std::int64_t integer(const char* key, std::int64_t fallback) const;
    bool flag(const char* key, bool fallback) const;
    double number(const char* key, double fallback) const;
    std::string text(const char* key, const std::string& fallback) const;
    // A Hugging Face activation name (hidden_act, activation_function, ...), parsed by
    // parse_activation; missing or null: `fallback`.
    Activation activation(const char* key, const char* fallback) const;
    // The value itself (present; check has() first).
    const nlohmann::json& raw(const char* key) const { return *find(key); }
    // A nested object (MPT's attn_config); missing or null: an empty object.
    HfConfig object(const char* key) const;

    [[noreturn]] void bad_value(const std::string& key, const nlohmann::json& value, const std::string& valid) const;
    // A value this family's transformers model would build into a shape libscale
    // cannot represent, or would silently ignore: refused with the reason.
    [[noreturn]] void refuse(const std::string& key, const nlohmann::json& value, const std::string& why) const;
    // Errors name the file; a nested object's keys carry their parent's prefix.
    std::string origin() const { return std::string(origin_); }

private:
    HfConfig(const nlohmann::json& j, std::string_view origin, std::string type, std::string prefix)
        : j_(j), origin_(origin), type_(std::move(type)), prefix_(std::move(prefix)) {}
    const nlohmann::json* find(const char* key) const;

    const nlohmann::json& j_;
    std::string_view origin_;
    std::string type_;
    std::string prefix_;  // "attn_config." for a nested object
};

// Sliding-window layers from `layer_types` when the config lists them (transformers
// 4.53+ writes one "sliding_attention" / "full_attention" entry per layer), else
// `derived`, the count the family's attention code implies.
std::int64_t sliding_layers(const HfConfig& c, std::int64_t num_layers, std::int64_t derived);

// One reader per model_type (hf_families.cpp).
using FamilyReader = void (*)(const HfConfig&, ModelSpec&);
struct Family {
    const char* model_type = nullptr;
    FamilyReader read = nullptr;
    bool experts = false;  // its reader reads a mixture-of-experts layer's keys
};
extern const Family kFamilies[];
extern const std::size_t kFamilyCount;

}  // namespace libscale::detail
