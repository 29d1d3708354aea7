#include "libscale/spec/training_config.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>

namespace libscale {

Strategy parse_strategy(std::string_view s) {
    if (s == "fsdp" || s == "zero3" || s == "full_shard") return Strategy::fsdp;
    if (s == "hsdp" || s == "hybrid_shard") return Strategy::hsdp;
    if (s == "ddp") return Strategy::ddp;
    if (s == "zero1") return Strategy::zero1;
    if (s == "zero2") return Strategy::zero2;
    throw std::invalid_argument("strategy = '" + std::string(s) + "'; valid: fsdp (= zero3), hsdp, ddp, zero1, zero2");
}

const char* to_string(Strategy s) {
    switch (s) {
        case Strategy::fsdp: return "fsdp";
        case Strategy::hsdp: return "hsdp";
        case Strategy::ddp: return "ddp";
        case Strategy::zero1: return "zero1";
        case Strategy::zero2: return "zero2";
    }
    return "?";
}

GradSync parse_grad_sync(std::string_view s) {
    if (s == "every_micro_batch") return GradSync::every_micro_batch;
    if (s == "last_micro_batch") return GradSync::last_micro_batch;
    throw std::invalid_argument("grad_sync = '" + std::string(s) + "'; valid: every_micro_batch, last_micro_batch");
}

const char* to_string(GradSync g) {
    return g == GradSync::every_micro_batch ? "every_micro_batch" : "last_micro_batch";
}

namespace {

// One table per enum: the parser, the printer and the error's list of valid names agree.
template <class E, std::size_t N>
E parse_named(std::string_view field, std::string_view s, const std::pair<const char*, E> (&names)[N]) {
    for (const auto& [name, value] : names)
        if (s == name) return value;
    std::string valid;
    for (const auto& [name, value] : names) valid += (valid.empty() ? "" : ", ") + std::string(name);
    throw std::invalid_argument(std::string(field) + " = '" + std::string(s) + "'; valid: " + valid);
}

template <class E, std::size_t N>
const char* name_of(E e, const std::pair<const char*, E> (&names)[N]) {
    for (const auto& [name, value] : names)
        if (value == e) return name;
    return "?";
}

constexpr std::pair<const char*, Precision> kPrecisions[] = {{"bf16", Precision::bf16}, {"fp8", Precision::fp8}};
constexpr std::pair<const char*, Optimizer> kOptimizers[] = {{"adamw", Optimizer::adamw},
                                                             {"adamw_8bit", Optimizer::adamw_8bit},
                                                             {"sgd", Optimizer::sgd},
                                                             {"adafactor", Optimizer::adafactor}};
constexpr std::pair<const char*, MasterWeights> kMasters[] = {{"fp32", MasterWeights::fp32},
                                                              {"bf16", MasterWeights::bf16}};
constexpr std::pair<const char*, AttentionKernel> kAttentionKernels[] = {
    {"flash2", AttentionKernel::flash2},
    {"flash3", AttentionKernel::flash3},
    {"cudnn", AttentionKernel::cudnn},
    {"flash1", AttentionKernel::flash1},
    {"flash_triton", AttentionKernel::flash_triton},
    {"llm_foundry_triton", AttentionKernel::llm_foundry_triton},
    {"xformers", AttentionKernel::xformers},
    {"eager", AttentionKernel::eager}};
constexpr std::pair<const char*, LossKernel> kLosses[] = {{"eager", LossKernel::eager}, {"fused", LossKernel::fused}};
constexpr std::pair<const char*, Implementation> kImplementations[] = {
    {"generic", Implementation::generic},
    {"transformers", Implementation::transformers},
    {"torchtitan", Implementation::torchtitan},
    {"transformer_engine", Implementation::transformer_engine}};
constexpr std::pair<const char*, ExpertCommBackend> kExpertCommBackends[] = {{"standard", ExpertCommBackend::standard},
                                                                             {"deepep", ExpertCommBackend::deepep}};
constexpr std::pair<const char*, ContextParallelMethod> kContextParallelMethods[] = {
    {"ring", ContextParallelMethod::ring}, {"ulysses", ContextParallelMethod::ulysses}};

}  // namespace

Precision parse_precision(std::string_view s) { return parse_named("precision", s, kPrecisions); }
const char* to_string(Precision p) { return name_of(p, kPrecisions); }
Optimizer parse_optimizer(std::string_view s) { return parse_named("optimizer", s, kOptimizers); }
const char* to_string(Optimizer o) { return name_of(o, kOptimizers); }
MasterWeights parse_master_weights(std::string_view s) { return parse_named("master_weights", s, kMasters); }
const char* to_string(MasterWeights m) { return name_of(m, kMasters); }
AttentionKernel parse_attention_kernel(std::string_view s) {
    return parse_named("attention_kernel", s, kAttentionKernels);
}
const char* to_string(AttentionKernel k) { return name_of(k, kAttentionKernels); }
LossKernel parse_loss_kernel(std::string_view s) { return parse_named("loss_kernel", s, kLosses); }
Implementation parse_implementation(std::string_view s) { return parse_named("implementation", s, kImplementations); }
const char* to_string(Implementation i) { return name_of(i, kImplementations); }
ExpertCommBackend parse_expert_comm_backend(std::string_view s) {
    return parse_named("expert_comm_backend", s, kExpertCommBackends);
}
const char* to_string(ExpertCommBackend b) { return name_of(b, kExpertCommBackends); }
ContextParallelMethod parse_context_parallel_method(std::string_view s) {
    return parse_named("context_parallel_method", s, kContextParallelMethods);
}
const char* to_string(ContextParallelMethod m) { return name_of(m, kContextParallelMethods); }
const char* to_string(LossKernel k) { return name_of(k, kLosses); }

std::int64_t checkpointed_layers(const TrainingConfig& c, std::int64_t num_layers) noexcept {
    if (c.activation_checkpointing == Checkpointing::none) return 0;
    return num_layers / std::max<std::int64_t>(c.checkpoint_every, 1);
}

bool is_batch_option(std::string_view name) noexcept {
    return name == "gpus" || name == "gpus_per_node" || name == "seq_len" || name == "micro_batch" ||
           name == "global_batch_tokens";
}

double attention_span(const TrainingConfig& c) noexcept {
    return c.attention_span_tokens > 0 ? c.attention_span_tokens : causal_attention_span(c.seq_len);
}

std::ostream& operator<<(std::ostream& os, const DataPipeline& d) {
    return os << format_options("DataPipeline", data_options(), d);
}

std::ostream& operator<<(std::ostream& os, const CheckpointPolicy& c) {
    return os << format_options("CheckpointPolicy", checkpoint_options(), c);
}

std::ostream& operator<<(std::ostream& os, const TrainingConfig& c) {
    std::string head = format_options("TrainingConfig", training_options(), c);
    head.pop_back();
    return os << head << ", data=" << c.data << ", checkpoint=" << c.checkpoint << ")";
}

}  // namespace libscale
