// The configuration rules (config_rules.hpp), one entry each: id, summary, check and
// explanation side by side, so that what a sweep flags and what an error says cannot drift.
#include "libscale/estimate/config_rules.hpp"

#include "libscale/spec/parallelism.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace libscale {

namespace {

bool is_positive_multiple(std::int64_t value, std::int64_t unit) { return unit > 0 && value > 0 && value % unit == 0; }

// The bounds of an option a sweep varies per element, read from the training option table
// once (the table is the one declaration of the range).
struct Bounds {
    double minimum, maximum;
    bool optional;  // 0 in the struct is "not set"
    bool holds(std::int64_t v) const noexcept {
        return (optional && v == 0) || (static_cast<double>(v) >= minimum && static_cast<double>(v) <= maximum);
    }
};
struct SweptBounds {
    Bounds gpus, gpus_per_node, seq_len, micro_batch;
};
SweptBounds read_swept_bounds() {
    const auto of = [](std::string_view name) {
        const auto& o = find_option(training_options(), name);
        return Bounds{o.minimum, o.maximum, o.optional};
    };
    return {of("gpus"), of("gpus_per_node"), of("seq_len"), of("micro_batch")};
}
const SweptBounds& swept_bounds() noexcept {
    static const SweptBounds b = read_swept_bounds();  // the table's names are fixed: this cannot throw
    return b;
}

// The option table's own message for a value outside its range.
void explain_range(std::ostream& os, std::string_view name, std::int64_t value) {
    try {
        const auto& table = training_options();
        check_option(table, find_option(table, name), OptionValue{value});
        os << name << " = " << value << " is out of range";
    } catch (const std::invalid_argument& e) {
        os << e.what();
    }
}

// The batch unit's name: "gpus × ..." when every GPU is a data-parallel rank.
const char* batch_unit_name(const TrainingConfig& c) {
    return c.tensor_parallel * c.context_parallel == 1 ? "gpus × micro_batch × seq_len"
                                                       : "data-parallel ranks × micro_batch × seq_len";
}

// "1, 2, 4, 8": the divisors of n up to 1024, for the tensor-parallel degrees an error offers.
void list_divisors(std::ostream& os, std::int64_t n) {
    for (std::int64_t d = 1; d <= n && d <= 1024; ++d)
        if (n % d == 0) os << (d == 1 ? "" : ", ") << d;
}

// The sequence length's divisor under sequence and context parallel (1 without them).
std::int64_t seq_len_divisor(const TrainingConfig& c) {
    // Degrees below 1 are the option table's error (validate_config); here they divide nothing.
    const std::int64_t sp = c.tensor_parallel > 1 && c.sequence_parallel ? c.tensor_parallel : 1;
    if (c.context_parallel <= 1) return sp;
    return sp *
           (c.context_parallel_method == ContextParallelMethod::ulysses ? c.context_parallel : 2 * c.context_parallel);
}

// Ulysses gives each rank 1/cp of the query heads and of the key/value heads, or one
// key/value head repeated when there are fewer than cp (DeepSpeed ALST UlyssesSPAttentionHF:
// "num_heads % sp == 0", "kv_head_count % sp == 0 or sp % kv_head_count == 0").
bool ulysses_divides_heads(const ModelSpec& m, std::int64_t cp) noexcept {
    return m.num_heads % cp == 0 && m.num_kv_heads > 0 && (m.num_kv_heads % cp == 0 || cp % m.num_kv_heads == 0);
}

using R = const RuleInput&;

constexpr std::array kRules{
    ConfigRule{ConfigIssue::gpus, "gpus", "gpus must be a positive integer (at most 2^30)",
               [](R r) noexcept { return !swept_bounds().gpus.holds(r.config.gpus); },
               [](std::ostream& os, R r) { explain_range(os, "gpus", r.config.gpus); }},
    ConfigRule{ConfigIssue::gpus_per_node, "gpus_per_node", "gpus_per_node must be a positive integer",
               [](R r) noexcept {
                   return !swept_bounds().gpus_per_node.holds(r.config.gpus_per_node) ||
                          node_gpus(r.config, r.hardware) <= 0;
               },
               [](std::ostream& os, R r) {
                   if (r.config.gpus_per_node != 0) explain_range(os, "gpus_per_node", r.config.gpus_per_node);
                   else
                       os << "gpus_per_node is not set and " << r.hardware.name << " gives "
                          << r.hardware.gpus_per_node;
               }},
    ConfigRule{ConfigIssue::seq_len, "seq_len", "seq_len must be a positive integer",
               [](R r) noexcept { return !swept_bounds().seq_len.holds(r.config.seq_len); },
               [](std::ostream& os, R r) { explain_range(os, "seq_len", r.config.seq_len); }},
    ConfigRule{ConfigIssue::micro_batch, "micro_batch", "micro_batch must be a positive integer",
               [](R r) noexcept { return !swept_bounds().micro_batch.holds(r.config.micro_batch); },
               [](std::ostream& os, R r) { explain_range(os, "micro_batch", r.config.micro_batch); }},
    ConfigRule{ConfigIssue::whole_nodes, "whole_nodes", "HSDP needs whole nodes (gpus a multiple of gpus_per_node)",
               [](R r) noexcept {
                   const std::int64_t gpn = node_gpus(r.config, r.hardware);
                   return r.config.strategy == Strategy::hsdp && r.config.gpus > gpn && r.config.gpus % gpn != 0;
               },
               [](std::ostream& os, R r) {
                   const std::int64_t gpn = node_gpus(r.config, r.hardware), g = r.config.gpus;
                   os << "gpus = " << g << " does not fill whole nodes of " << gpn
                      << " GPUs; HSDP replicates whole nodes, so use a multiple of " << gpn << " (e.g. "
                      << (g / gpn) * gpn << " or " << (g / gpn + 1) * gpn << ")";
               }},
    ConfigRule{ConfigIssue::pipeline_parallel, "pipeline_parallel", "pipeline parallelism is not modelled",
               [](R r) noexcept { return r.config.pipeline_parallel != 1; },
               [](std::ostream& os, R r) {
                   os << "pipeline_parallel = " << r.config.pipeline_parallel
                      << ": pipeline parallelism (its schedules and bubbles) is not modelled; valid: 1. Split a "
                         "model that does not fit with tensor_parallel (inside a node) or context_parallel";
               }},
    ConfigRule{ConfigIssue::parallel_strategy, "parallel_strategy",
               "tensor or context parallel needs strategy fsdp or hsdp and a full fine-tune",
               [](R r) noexcept {
                   const TrainingConfig& c = r.config;
                   if (c.tensor_parallel == 1 && c.context_parallel == 1) return false;
                   return (c.strategy != Strategy::fsdp && c.strategy != Strategy::hsdp) ||
                          c.fine_tuning != FineTuning::full;
               },
               [](std::ostream& os, R r) {
                   const TrainingConfig& c = r.config;
                   os << "tensor_parallel = " << c.tensor_parallel << ", context_parallel = " << c.context_parallel;
                   if (c.strategy != Strategy::fsdp && c.strategy != Strategy::hsdp)
                       os << " with strategy = '" << to_string(c.strategy)
                          << "': libscale composes them with FSDP or HSDP only (torchtitan's 2-D and 3-D layouts); "
                             "use strategy 'fsdp' or 'hsdp', or tensor_parallel = context_parallel = 1";
                   else
                       os << " with fine_tuning = '" << to_string(c.fine_tuning)
                          << "': adapters under tensor or context parallel are not modelled; use fine_tuning = "
                             "'full', or tensor_parallel = context_parallel = 1";
               }},
    ConfigRule{ConfigIssue::parallel_degrees, "parallel_degrees",
               "tensor_parallel × context_parallel must divide gpus (with HSDP, a node's GPUs)",
               [](R r) noexcept {
                   const TrainingConfig& c = r.config;
                   const std::int64_t model = c.tensor_parallel * c.context_parallel;
                   if (model <= 1) return false;  // below 1: the option table's error
                   if (c.gpus % model != 0) return true;
                   return c.strategy == Strategy::hsdp &&
                          std::min(c.gpus, node_gpus(r.config, r.hardware)) % model != 0;
               },
               [](std::ostream& os, R r) {
                   const TrainingConfig& c = r.config;
                   const std::int64_t model = c.tensor_parallel * c.context_parallel;
                   os << "tensor_parallel × context_parallel = " << c.tensor_parallel << " × " << c.context_parallel
                      << " = " << model;
                   if (c.gpus % model != 0)
                       os << " does not divide gpus = " << c.gpus
                          << "; gpus must be data-parallel ranks × context_parallel × tensor_parallel (e.g. "
                          << std::max<std::int64_t>(c.gpus / model, 1) * model << ")";
                   else
                       os << " does not divide the " << std::min(c.gpus, node_gpus(r.config, r.hardware))
                          << " GPUs of a node that HSDP shards over; use degrees whose product divides it, or "
                             "strategy 'fsdp'";
               }},
    ConfigRule{ConfigIssue::tensor_parallel_node, "tensor_parallel_node",
               "tensor_parallel must divide gpus_per_node (tensor parallel stays inside a node)",
               [](R r) noexcept {
                   return r.config.tensor_parallel > 1 &&
                          node_gpus(r.config, r.hardware) % r.config.tensor_parallel != 0;
               },
               [](std::ostream& os, R r) {
                   const std::int64_t gpn = node_gpus(r.config, r.hardware);
                   os << "tensor_parallel = " << r.config.tensor_parallel << " does not divide the " << gpn
                      << " GPUs of a " << r.hardware.name
                      << " node; tensor parallel runs collectives in every layer and stays on a node's NVLink: "
                         "valid: ";
                   list_divisors(os, gpn);
               }},
    ConfigRule{ConfigIssue::tensor_parallel_model, "tensor_parallel_model",
               "tensor_parallel must divide the model's heads, key/value heads and MLP width",
               [](R r) noexcept {
                   const std::int64_t tp = r.config.tensor_parallel;
                   const ModelSpec& m = r.model;
                   return tp > 1 &&
                          (m.num_heads % tp != 0 || m.num_kv_heads % tp != 0 || m.intermediate_size % tp != 0);
               },
               [](std::ostream& os, R r) {
                   const std::int64_t tp = r.config.tensor_parallel;
                   const ModelSpec& m = r.model;
                   os << "tensor_parallel = " << tp << " does not divide " << m.name << "'s ";
                   if (m.num_heads % tp != 0) os << "num_heads = " << m.num_heads;
                   else if (m.num_kv_heads % tp != 0) os << "num_kv_heads = " << m.num_kv_heads;
                   else os << "intermediate_size = " << m.intermediate_size;
                   os << " (each rank holds whole heads and an equal share of the MLP); valid: ";
                   const std::int64_t g = std::gcd(std::gcd(m.num_heads, m.num_kv_heads), m.intermediate_size);
                   list_divisors(os, g);
               }},
    // torchtitan (b5bcd76c distributed/parallel_dims.py): "expert_parallel_degree must
    // divide dp_shard * cp * tp"; with tensor_parallel 1 (the mixture_of_experts rule) that
    // is FSDP's shard group. Each rank then holds num_experts / expert_parallel whole experts.
    ConfigRule{ConfigIssue::expert_parallel, "expert_parallel",
               "expert_parallel needs a mixture-of-experts model, FSDP or HSDP, and must divide its experts and the "
               "FSDP shard group",
               [](R r) noexcept {
                   const TrainingConfig& c = r.config;
                   const std::int64_t ep = c.expert_parallel;
                   if (ep <= 1) return false;
                   if (!r.model.moe() || (c.strategy != Strategy::fsdp && c.strategy != Strategy::hsdp)) return true;
                   return r.model.num_experts % ep != 0 ||
                          device_mesh(c, node_gpus(r.config, r.hardware)).shard_group() % ep != 0;
               },
               [](std::ostream& os, R r) {
                   const TrainingConfig& c = r.config;
                   const std::int64_t ep = c.expert_parallel;
                   os << "expert_parallel = " << ep;
                   if (!r.model.moe()) {
                       os << ": " << r.model.name << " is a dense model (no experts to split); valid: 1";
                       return;
                   }
                   if (c.strategy != Strategy::fsdp && c.strategy != Strategy::hsdp) {
                       os << " with strategy = '" << to_string(c.strategy)
                          << "': experts are split over FSDP's ranks (torchtitan's ep mesh inside dp_shard); use "
                             "strategy 'fsdp' or 'hsdp', or expert_parallel = 1";
                       return;
                   }
                   const std::int64_t group = device_mesh(c, node_gpus(r.config, r.hardware)).shard_group();
                   if (r.model.num_experts % ep != 0)
                       os << " does not divide " << r.model.name << "'s num_experts = " << r.model.num_experts
                          << " (each rank holds whole experts)";
                   else
                       os << " does not divide the FSDP shard group of " << group
                          << " GPUs (data-parallel × context-parallel ranks of a replica)";
                   os << "; valid: ";
                   list_divisors(os, std::gcd(r.model.num_experts, group));
               }},
    ConfigRule{ConfigIssue::mixture_of_experts, "mixture_of_experts",
               "a mixture-of-experts model is modelled with tensor_parallel 1 and a full fine-tune",
               [](R r) noexcept {
                   return r.model.moe() && (r.config.tensor_parallel > 1 || r.config.fine_tuning != FineTuning::full);
               },
               [](std::ostream& os, R r) {
                   const TrainingConfig& c = r.config;
                   if (c.tensor_parallel > 1)
                       os << "tensor_parallel = " << c.tensor_parallel << " with " << r.model.name
                          << ", a mixture-of-experts model: tensor parallel of experts (torchtitan's ETP) is not "
                             "modelled; valid: 1 (split the experts with expert_parallel instead)";
                   else
                       os << "fine_tuning = '" << to_string(c.fine_tuning) << "' with " << r.model.name
                          << ", a mixture-of-experts model: adapters on experts are not modelled; valid: full";
               }},
    // torchtitan's ParallelDims.seq_len_divisor (v0.2.2 distributed/parallel_dims.py):
    // sequence parallel shards each sequence over tp, context parallel's head-tail load
    // balancer cuts it into 2 × cp chunks (PyTorch _context_parallel/_load_balancer.py).
    ConfigRule{ConfigIssue::parallel_seq_len, "parallel_seq_len",
               "seq_len must be a multiple of 2 × context_parallel for ring attention, of context_parallel for "
               "Ulysses (× tensor_parallel with sequence parallel); ring attention needs a fused kernel",
               [](R r) noexcept {
                   const TrainingConfig& c = r.config;
                   return c.seq_len % seq_len_divisor(c) != 0 ||
                          (c.context_parallel > 1 && c.context_parallel_method == ContextParallelMethod::ring &&
                           c.attention_kernel == AttentionKernel::eager);
               },
               [](std::ostream& os, R r) {
                   const TrainingConfig& c = r.config;
                   const std::int64_t div = seq_len_divisor(c);
                   if (c.seq_len % div == 0)
                       os << "context_parallel = " << c.context_parallel
                          << " with attention_kernel = 'eager': ring attention runs a fused kernel per block "
                             "(PyTorch context_parallel supports flash, efficient and cuDNN attention); use flash2, "
                             "flash3 or cudnn";
                   else if (c.context_parallel > 1 && c.context_parallel_method == ContextParallelMethod::ulysses)
                       os << "seq_len = " << c.seq_len << " is not a multiple of " << div
                          << " (context_parallel equal shards per sequence for Ulysses' all-to-alls); nearest valid: "
                          << std::max<std::int64_t>(c.seq_len / div, 1) * div;
                   else
                       os << "seq_len = " << c.seq_len << " is not a multiple of " << div
                          << " (2 × context_parallel chunks per sequence, a rank taking one from each end for causal "
                             "load balance, each split over tensor_parallel ranks by sequence parallel); nearest "
                             "valid: "
                          << std::max<std::int64_t>(c.seq_len / div, 1) * div;
               }},
    ConfigRule{ConfigIssue::context_parallel_heads, "context_parallel_heads",
               "Ulysses context parallel needs tensor_parallel 1 and heads it divides (key/value heads divisible by "
               "it, or dividing it)",
               [](R r) noexcept {
                   const TrainingConfig& c = r.config;
                   if (c.context_parallel <= 1 || c.context_parallel_method != ContextParallelMethod::ulysses)
                       return false;
                   return c.tensor_parallel > 1 || !ulysses_divides_heads(r.model, c.context_parallel);
               },
               [](std::ostream& os, R r) {
                   const TrainingConfig& c = r.config;
                   const ModelSpec& m = r.model;
                   os << "context_parallel = " << c.context_parallel << " with context_parallel_method = 'ulysses'";
                   if (c.tensor_parallel > 1) {
                       os << " and tensor_parallel = " << c.tensor_parallel
                          << ": Ulysses under tensor parallel is not modelled (DeepSpeed ALST runs it with ZeRO-3 "
                             "alone); use context_parallel_method 'ring' or tensor_parallel = 1";
                       return;
                   }
                   if (m.num_heads % c.context_parallel != 0)
                       os << " does not divide " << m.name << "'s num_heads = " << m.num_heads;
                   else
                       os << " and " << m.name << "'s num_kv_heads = " << m.num_kv_heads
                          << " neither divide each other";
                   os << " (each rank attends over the whole sequence with 1/context_parallel of the heads); valid: ";
                   bool first = true;
                   for (std::int64_t d = 1; d <= m.num_heads && d <= 1024; ++d) {
                       if (!ulysses_divides_heads(m, d)) continue;
                       os << (first ? "" : ", ") << d;
                       first = false;
                   }
               }},
    // torchtitan's parallelize (models/llama3/infra/parallelize.py maybe_enable_async_tp):
    // the micro-pipeline pass runs in torch.compile's graphs, on sequence parallel's gathers
    // and scatters.
    ConfigRule{ConfigIssue::async_tensor_parallel, "async_tensor_parallel",
               "async tensor parallel needs tensor_parallel > 1, sequence_parallel and torch_compile",
               [](R r) noexcept {
                   const TrainingConfig& c = r.config;
                   return c.async_tensor_parallel &&
                          (c.tensor_parallel <= 1 || !c.sequence_parallel || !c.torch_compile);
               },
               [](std::ostream& os, R r) {
                   const TrainingConfig& c = r.config;
                   os << "async_tensor_parallel = true with ";
                   if (c.tensor_parallel <= 1)
                       os << "tensor_parallel = " << c.tensor_parallel
                          << ": it overlaps tensor parallel's collectives; valid: tensor_parallel > 1, or "
                             "async_tensor_parallel = false";
                   else if (!c.sequence_parallel)
                       os << "sequence_parallel = false: it splits sequence parallel's gathers and scatters, not "
                             "all-reduces; valid: sequence_parallel = true";
                   else
                       os << "torch_compile = false: the micro-pipeline pass runs in torch.compile's graphs "
                             "(torchtitan requires --training.compile); valid: torch_compile = true";
               }},
    ConfigRule{ConfigIssue::seq_len_too_long, "seq_len_too_long", "seq_len exceeds the model's max_position_embeddings",
               [](R r) noexcept { return r.config.seq_len > r.model.max_position_embeddings; },
               [](std::ostream& os, R r) {
                   os << "seq_len = " << r.config.seq_len << " is longer than " << r.model.name
                      << "'s max_position_embeddings = " << r.model.max_position_embeddings << "; use at most "
                      << r.model.max_position_embeddings;
               }},
    ConfigRule{ConfigIssue::batch_overflow, "batch_overflow",
               "data-parallel ranks × micro_batch × seq_len overflows a 64-bit token count",
               [](R r) noexcept {
                   std::int64_t unit = 0;
                   return __builtin_mul_overflow(data_parallel_size(r.config), r.config.micro_batch, &unit) ||
                          __builtin_mul_overflow(unit, r.config.seq_len, &unit);
               },
               [](std::ostream& os, R r) {
                   os << batch_unit_name(r.config) << " = " << data_parallel_size(r.config) << " × "
                      << r.config.micro_batch << " × " << r.config.seq_len
                      << " overflows a 64-bit token count; use realistic values";
               }},
    ConfigRule{ConfigIssue::global_batch, "global_batch",
               "global_batch_tokens is not a multiple of data-parallel ranks × micro_batch × seq_len",
               [](R r) noexcept {
                   const TrainingConfig& c = r.config;
                   return c.global_batch_tokens != 0 &&
                          !is_positive_multiple(c.global_batch_tokens,
                                                data_parallel_size(c) * c.micro_batch * c.seq_len);
               },
               [](std::ostream& os, R r) {
                   const TrainingConfig& c = r.config;
                   const std::int64_t unit = data_parallel_size(c) * c.micro_batch * c.seq_len;
                   const std::int64_t lo = std::max<std::int64_t>(unit, c.global_batch_tokens / unit * unit);
                   os << "global_batch_tokens = " << c.global_batch_tokens << " is not a positive multiple of "
                      << batch_unit_name(c) << " = " << data_parallel_size(c) << " × " << c.micro_batch << " × "
                      << c.seq_len << " = " << unit << "; nearest valid: " << lo;
                   if (lo < c.global_batch_tokens) os << " or " << lo + unit;
               }},
    ConfigRule{ConfigIssue::reduce_bytes, "reduce_bytes", "reduce_bytes must be 2 or 4",
               [](R r) noexcept { return r.config.reduce_bytes != 2 && r.config.reduce_bytes != 4; },
               [](std::ostream& os, R r) {
                   os << "reduce_bytes = " << r.config.reduce_bytes << "; valid: 2 (bf16) or 4 (fp32)";
               }},
    ConfigRule{ConfigIssue::attention_span, "attention_span", "attention_span_tokens must be in [0, seq_len]",
               [](R r) noexcept {
                   return !(r.config.attention_span_tokens >= 0) ||
                          r.config.attention_span_tokens > static_cast<double>(r.config.seq_len);
               },
               [](std::ostream& os, R r) {
                   os << "attention_span_tokens = " << r.config.attention_span_tokens
                      << "; it must be between 0 (causal, seq_len/2) and seq_len = " << r.config.seq_len;
               }},
    ConfigRule{
        ConfigIssue::data_pipeline, "data_pipeline", "the data pipeline lacks a required bandwidth or rate",
        [](R r) noexcept {
            const DataPipeline& d = r.config.data;
            return (!d.corpus_in_page_cache && !(d.storage_read_gbps_per_node > 0)) ||
                   (!d.pretokenized && !(d.tokenize_tokens_per_s_per_core > 0 && d.loader_workers_per_rank > 0));
        },
        [](std::ostream& os, R r) {
            const DataPipeline& d = r.config.data;
            if (!d.corpus_in_page_cache && !(d.storage_read_gbps_per_node > 0))
                os << "data pipeline: the corpus is not in the page cache, so storage_read_gbps_per_node must be > 0 "
                      "(got "
                   << d.storage_read_gbps_per_node << ")";
            else
                os << "data pipeline: data is not pretokenized, so tokenize_tokens_per_s_per_core (got "
                   << d.tokenize_tokens_per_s_per_core << ") and loader_workers_per_rank (got "
                   << d.loader_workers_per_rank << ") must be > 0";
        }},
    ConfigRule{ConfigIssue::checkpoint, "checkpoint", "a checkpoint interval needs write_gbps_per_node > 0",
               [](R r) noexcept {
                   return r.config.checkpoint.every_steps > 0 && !(r.config.checkpoint.write_gbps_per_node > 0);
               },
               [](std::ostream& os, R r) {
                   os << "checkpoint: every_steps = " << r.config.checkpoint.every_steps
                      << " needs write_gbps_per_node > 0 (got " << r.config.checkpoint.write_gbps_per_node << ")";
               }},
    ConfigRule{ConfigIssue::base_precision, "base_precision", "a 4-bit base computes in bf16, not fp8",
               [](R r) noexcept {
                   const TrainingConfig& c = r.config;
                   const bool four_bit =
                       c.base_weights == BaseWeights::nf4 || c.base_weights == BaseWeights::nf4_double_quant ||
                       (c.base_weights == BaseWeights::automatic && c.fine_tuning == FineTuning::qlora);
                   return four_bit && c.fine_tuning != FineTuning::full && c.precision == Precision::fp8;
               },
               [](std::ostream& os, R r) {
                   os << "precision = 'fp8' with a 4-bit base (fine_tuning = '" << to_string(r.config.fine_tuning)
                      << "', base_weights = '" << to_string(r.config.base_weights)
                      << "'): bitsandbytes and torchao upcast NF4 weights to the compute dtype for each GEMM; use "
                         "precision = 'bf16'";
               }},
    ConfigRule{ConfigIssue::fp8_unsupported, "fp8_unsupported", "fp8 linear layers need a GPU with fp8 tensor cores",
               [](R r) noexcept { return r.config.precision == Precision::fp8 && !(r.hardware.peak_fp8_tflops > 0); },
               [](std::ostream& os, R r) {
                   os << "precision = 'fp8', but " << r.hardware.name
                      << " has no fp8 tensor cores (peak_fp8_tflops = 0); fp8 linear layers need Hopper or newer: use "
                         "precision='bf16'";
               }},
    ConfigRule{
        ConfigIssue::fp8_all_gather, "fp8_all_gather", "fp8_all_gather needs precision fp8 and FSDP or HSDP",
        [](R r) noexcept {
            const TrainingConfig& c = r.config;
            return c.fp8_all_gather &&
                   (c.precision != Precision::fp8 || (c.strategy != Strategy::fsdp && c.strategy != Strategy::hsdp));
        },
        [](std::ostream& os, R r) {
            os << "fp8_all_gather = True needs precision = 'fp8' and strategy 'fsdp' or 'hsdp' (got precision = '"
               << to_string(r.config.precision) << "', strategy = '" << to_string(r.config.strategy) << "')";
        }},
    ConfigRule{
        ConfigIssue::checkpoint_every, "checkpoint_every", "checkpoint_every must be between 1 and num_layers",
        [](R r) noexcept { return r.config.checkpoint_every < 1 || r.config.checkpoint_every > r.model.num_layers; },
        [](std::ostream& os, R r) {
            os << "checkpoint_every = " << r.config.checkpoint_every << "; it must be between 1 (every layer) and "
               << r.model.name << "'s num_layers = " << r.model.num_layers;
        }},
    // FlashAttention-3 is written for Hopper's tensor cores (Dao-AILab/flash-attention
    // hopper/); fp8 tensor cores mark Hopper and newer in the hardware file.
    ConfigRule{
        ConfigIssue::attention_kernel, "attention_kernel", "FlashAttention-3 needs Hopper or newer",
        [](R r) noexcept {
            return r.config.attention_kernel == AttentionKernel::flash3 && !(r.hardware.peak_fp8_tflops > 0);
        },
        [](std::ostream& os, R r) {
            os << "attention_kernel = 'flash3', but FlashAttention-3 needs Hopper or newer and " << r.hardware.name
               << " is older (no fp8 tensor cores); use flash2, cudnn, flash1, flash_triton, llm_foundry_triton, "
                  "xformers or eager";
        }},
    ConfigRule{
        ConfigIssue::fine_tuning, "fine_tuning", "base_weights and train_embeddings need adapters; qlora a 4-bit base",
        [](R r) noexcept {
            const TrainingConfig& c = r.config;
            if (c.fine_tuning == FineTuning::full)
                return c.base_weights != BaseWeights::automatic || c.train_embeddings;
            return c.fine_tuning == FineTuning::qlora &&
                   (c.base_weights == BaseWeights::bf16 || c.base_weights == BaseWeights::fp8);
        },
        [](std::ostream& os, R r) {
            const TrainingConfig& c = r.config;
            if (c.fine_tuning == FineTuning::full)
                os << "fine_tuning = 'full' trains and stores every weight in master_weights' dtype, so base_weights "
                      "(got '"
                   << to_string(c.base_weights) << "') must be 'auto' and train_embeddings (got "
                   << (c.train_embeddings ? "True" : "False")
                   << ") False; use fine_tuning = 'lora', 'qlora' or 'dora' for a frozen base";
            else
                os << "fine_tuning = 'qlora' trains adapters on a 4-bit base, but base_weights = '"
                   << to_string(c.base_weights) << "'; use base_weights 'auto', 'nf4' or 'nf4_double_quant', or "
                   << "fine_tuning = 'lora' for a " << to_string(c.base_weights) << " base";
        }},
    ConfigRule{ConfigIssue::lora_targets, "lora_targets", "lora_targets names no projection the model has",
               [](R r) noexcept {
                   const std::uint8_t t = r.config.lora_targets;
                   // A plain (non-gated) MLP has no gate projection to adapt.
                   const std::uint8_t present = r.model.mlp == MlpKind::gated
                                                    ? lora_target::all
                                                    : static_cast<std::uint8_t>(lora_target::all & ~lora_target::gate);
                   return r.config.fine_tuning != FineTuning::full && (t & present) == 0;
               },
               [](std::ostream& os, R r) {
                   os << "lora_targets = '" << format_lora_targets(r.config.lora_targets)
                      << "' adapts no projection of " << r.model.name << " (its MLP is " << to_string(r.model.mlp)
                      << "); valid: all-linear, attention, mlp, or a comma list of q_proj, k_proj, v_proj, o_proj, "
                      << (r.model.mlp == MlpKind::gated ? "gate_proj, " : "") << "up_proj, down_proj";
               }},
};

constexpr bool in_issue_order() {
    for (std::size_t i = 0; i < kRules.size(); ++i)
        if (static_cast<std::size_t>(kRules[i].issue) != i + 1) return false;
    return true;
}
static_assert(kRules.size() + 1 == static_cast<std::size_t>(kConfigIssueCount),
              "every ConfigIssue but none has one entry in kRules");
static_assert(in_issue_order(), "kRules is in ConfigIssue order");

}  // namespace

std::span<const ConfigRule> config_rules() noexcept { return kRules; }

ConfigIssue check_config(const ModelSpec& m, const HardwareProfile& hw, const TrainingConfig& c) noexcept {
    const RuleInput in{m, hw, c};
    for (const ConfigRule& rule : kRules)
        if (rule.broken(in)) return rule.issue;
    return ConfigIssue::none;
}

void validate_config(const ModelSpec& m, const HardwareProfile& hw, const TrainingConfig& c) {
    validate_options(training_options(), c);
    validate_options(data_options(), c.data);
    validate_options(checkpoint_options(), c.checkpoint);
    const ConfigIssue issue = check_config(m, hw, c);
    if (issue == ConfigIssue::none) return;
    std::ostringstream msg;
    kRules[static_cast<std::size_t>(issue) - 1].explain(msg, RuleInput{m, hw, c});
    throw std::invalid_argument(msg.str());
}

const char* describe(ConfigIssue issue) {
    const auto i = static_cast<std::size_t>(issue);
    return i == 0 ? "ok" : i <= kRules.size() ? kRules[i - 1].summary.data() : "?";
}

const char* to_string(ConfigIssue issue) {
    const auto i = static_cast<std::size_t>(issue);
    return i == 0 ? "none" : i <= kRules.size() ? kRules[i - 1].id.data() : "?";
}

}  // namespace libscale
