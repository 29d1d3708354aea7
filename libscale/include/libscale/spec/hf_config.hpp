// Hugging Face config.json → ModelSpec, for every common dense decoder family.
// Which keys each model_type reads, their defaults (those of transformers'
// configuration_<type>.py) and what is refused: docs/architectures.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "libscale/spec/model_spec.hpp"

namespace libscale {

// `name` is used when the file carries no "_libscale.name"; `origin` (a path) names
// the file in errors. Throws ParseError naming the origin, the field, its value and
// what is valid: for a missing size key, an unsupported or mixture-of-experts
// model_type (listing the supported ones), or a shape transformers would not build.
// A config without model_type is read as llama when it has Llama's keys.
ModelSpec model_from_hf_config(const nlohmann::json& config, std::string_view name, std::string_view origin);

// The model_type values model_from_hf_config reads, sorted.
std::vector<std::string> supported_model_types();

}  // namespace libscale
