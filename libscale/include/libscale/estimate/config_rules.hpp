// The rules a training configuration must keep across its options, the model and the
// hardware, each declared once (config_rules.cpp: id, a short summary for sweep columns,
// the check, and the one-line explanation an error carries). A single option's range is
// not a rule: the option tables (training_config.hpp) declare and check it. The rules
// below the ranges of the options a sweep varies per element (gpus, gpus_per_node,
// seq_len, micro_batch) read those tables' bounds, so a sweep flags what the table would
// refuse without a second declaration.
//
// Adding a rule: an enumerator here, its entry in config_rules.cpp in the same order (a
// static_assert there fails the build when they disagree). Sweeps, the Python module's
// issue names and the docs take the rest from the table.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string_view>

#include "libscale/spec/hardware.hpp"
#include "libscale/spec/model_spec.hpp"
#include "libscale/spec/training_config.hpp"

namespace libscale {

// What is wrong with a configuration, without building a message (for sweeps): 0 is
// none, each other value the rule of that position in config_rules() (plus one).
enum class ConfigIssue : std::uint8_t {
    none,
    gpus,                   // option range (sweep-varied)
    gpus_per_node,          // option range (sweep-varied)
    seq_len,                // option range (sweep-varied)
    micro_batch,            // option range (sweep-varied)
    whole_nodes,            // HSDP across nodes needs a multiple of gpus_per_node
    pipeline_parallel,      // pipeline parallelism is not modelled
    parallel_strategy,      // tensor or context parallel without FSDP/HSDP, or with adapters
    parallel_degrees,       // tensor × context parallel does not divide gpus (or HSDP's node)
    tensor_parallel_node,   // tensor parallel wider than a node
    tensor_parallel_model,  // heads, key/value heads or the MLP width not divisible by it
    expert_parallel,        // expert parallel on a dense model, without FSDP/HSDP, or not dividing experts or ranks
    mixture_of_experts,     // a mixture-of-experts model under tensor parallel or with adapters
    parallel_seq_len,  // seq_len not a multiple of 2 × cp (× tp with sequence parallel), or eager attention under cp
    context_parallel_heads,  // Ulysses context parallel with heads it does not divide, or under tensor parallel
    async_tensor_parallel,   // async tensor parallel without tensor parallel, sequence parallel or torch.compile
    seq_len_too_long,        // beyond the model's max_position_embeddings
    batch_overflow,          // data-parallel ranks × micro_batch × seq_len overflows a 64-bit token count
    global_batch,            // not a positive multiple of data-parallel ranks × micro_batch × seq_len
    reduce_bytes,            // not 2 or 4 (a C++ caller's field; the option is reduce_dtype)
    attention_span,          // beyond the sequence
    data_pipeline,           // a required input pipeline figure is missing
    checkpoint,              // checkpoint interval without a write bandwidth
    base_precision,          // fp8 GEMMs on a 4-bit base (it is upcast to bf16)
    fp8_unsupported,         // fp8 linear layers on hardware without fp8 tensor cores
    fp8_all_gather,          // fp8 all-gather without fp8 linear layers, or without FSDP
    checkpoint_every,        // beyond the model's num_layers
    attention_kernel,        // FlashAttention-3 on a GPU before Hopper
    fine_tuning,             // adapter options on a full fine-tune, or qlora on a base that is not 4-bit
    lora_targets,            // adapters on no projection the model has
    count_                   // not a rule: the number of codes, none included
};
inline constexpr int kConfigIssueCount = static_cast<int>(ConfigIssue::count_);

struct RuleInput {
    const ModelSpec& model;
    const HardwareProfile& hardware;
    const TrainingConfig& config;
};

struct ConfigRule {
    ConfigIssue issue;
    std::string_view id;       // "whole_nodes": sweeps' issue names
    std::string_view summary;  // "HSDP needs whole nodes (...)": sweeps' error columns
    bool (*broken)(const RuleInput&) noexcept;
    // The error's text: the values involved and what would be valid.
    void (*explain)(std::ostream&, const RuleInput&);
};

// Every rule, in ConfigIssue order (config_rules()[i].issue == ConfigIssue(i + 1)).
std::span<const ConfigRule> config_rules() noexcept;

// The first rule the configuration breaks (none: it keeps them all). Does not check
// ranges of options a sweep does not vary; validate_config does.
ConfigIssue check_config(const ModelSpec& m, const HardwareProfile& hw, const TrainingConfig& c) noexcept;

// Every option against its table, then every rule: std::invalid_argument naming the
// field, its value and what would be valid.
void validate_config(const ModelSpec& m, const HardwareProfile& hw, const TrainingConfig& c);

// The rule's short text ("ok" for none) and its id ("none" for none), for sweeps.
const char* describe(ConfigIssue issue);
const char* to_string(ConfigIssue issue);

}  // namespace libscale
