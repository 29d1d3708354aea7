// libscale._core.spec: TrainingConfig (enums as strings), DataPipeline, CheckpointPolicy
// (spec/training_config.hpp).
#include <stdexcept>
#include <string>
#include <string_view>

#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/spec/training_config.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

int parse_reduce_dtype(std::string_view s) {
    if (s == "bf16" || s == "bfloat16") return 2;
    if (s == "fp32" || s == "float32") return 4;
    throw std::invalid_argument("reduce_dtype = '" + std::string(s) + "'; valid: bf16, fp32");
}

const char* reduce_dtype_name(int bytes) { return bytes == 2 ? "bf16" : bytes == 4 ? "fp32" : "invalid"; }

}  // namespace

void register_spec_training_config(py::module_& m) {
    using D = DataPipeline;
    const auto data_fields = fields(
        field("pretokenized", &D::pretokenized),
        field("bytes_per_token", &D::bytes_per_token, "bytes stored per token"),
        field("corpus_in_page_cache", &D::corpus_in_page_cache, "reads then cost memory bandwidth only"),
        field("storage_read_gbps_per_node", &D::storage_read_gbps_per_node, "GB/s shared by a node's ranks"),
        field("tokenize_tokens_per_s_per_core", &D::tokenize_tokens_per_s_per_core, "needed when not pretokenized"),
        field("loader_workers_per_rank", &D::loader_workers_per_rank),
        field("cpu_cores_per_node", &D::cpu_cores_per_node, "0: not limited by cores"));
    py::class_<DataPipeline> data_cls(m, "DataPipeline",
                                      "Where a step's tokens come from (defaults: pretokenized, in the page cache).");
    def_init(data_cls, data_fields, "Every field by keyword.");
    def_fields(data_cls, data_fields, Access::read_write);
    def_value_methods(data_cls);

    const auto ckpt_fields = fields(
        field("every_steps", &CheckpointPolicy::every_steps, "0: no checkpoints"),
        field("write_gbps_per_node", &CheckpointPolicy::write_gbps_per_node, "GB/s each node writes its share at"));
    py::class_<CheckpointPolicy> ckpt(m, "CheckpointPolicy", "How often the training state is written, and how fast.");
    def_init(ckpt, ckpt_fields, "Every field by keyword.");
    def_fields(ckpt, ckpt_fields, Access::read_write);
    def_value_methods(ckpt);

    using C = TrainingConfig;
    const auto cfg_fields = fields(
        field("gpus", &C::gpus), field("gpus_per_node", &C::gpus_per_node, "0: the hardware's"),
        field("seq_len", &C::seq_len, "tokens"),
        field("micro_batch", &C::micro_batch, "sequences per micro-batch per GPU"),
        field("global_batch_tokens", &C::global_batch_tokens, "tokens per optimizer step; 0: no accumulation"),
        enum_field("strategy", &C::strategy, parse_strategy, "'fsdp' (= 'zero3'), 'hsdp', 'ddp', 'zero1', 'zero2'"),
        enum_field("activation_checkpointing", &C::activation_checkpointing, parse_checkpointing,
                   "'none', 'selective', 'full'"),
        field("reshard_after_forward", &C::reshard_after_forward),
        field("reduce_bytes", &C::reduce_bytes,
              "gradient reduction dtype's bytes: 2 (bf16) or 4 (fp32); see reduce_dtype"),
        enum_field("grad_sync", &C::grad_sync, parse_grad_sync, "'every_micro_batch' or 'last_micro_batch'"),
        field("attention_span_tokens", &C::attention_span_tokens, "0: causal, seq_len / 2"),
        enum_field("precision", &C::precision, parse_precision,
                   "'bf16' or 'fp8' (torchao Float8Linear, tensorwise scaling) decoder-layer GEMMs"),
        field("fp8_all_gather", &C::fp8_all_gather,
              "FSDP gathers fp8 weights (needs precision 'fp8' and fsdp or hsdp)"),
        enum_field("optimizer", &C::optimizer, parse_optimizer,
                   "'adamw', 'adamw_8bit' (bitsandbytes), 'sgd' (momentum) or 'adafactor'"),
        enum_field("master_weights", &C::master_weights, parse_master_weights,
                   "'fp32' (mixed precision) or 'bf16' (weights and states in bf16)"),
        enum_field("loss_kernel", &C::loss_kernel, parse_loss_kernel,
                   "'eager' (fp32 logits) or 'fused' (no fp32 logits: Liger, chunked)"),
        enum_field(
            "attention_kernel", &C::attention_kernel, parse_attention_kernel,
            "'flash2', 'flash3', 'cudnn', 'flash1', 'flash_triton', 'llm_foundry_triton', 'xformers' or 'eager'"),
        field("torch_compile", &C::torch_compile, "torch.compile of each decoder layer"),
        field("checkpoint_every", &C::checkpoint_every,
              "activation checkpointing on every k-th decoder layer; 1: every layer"),
        field("data", &C::data), field("checkpoint", &C::checkpoint));
    py::class_<TrainingConfig> cfg(
        m, "TrainingConfig", "How a run is laid out: GPUs, batch, sharding strategy, input pipeline, checkpoints.");
    def_init(cfg, cfg_fields,
             "Every field by keyword (enums as strings). gpus_per_node 0: the hardware's; global_batch_tokens 0: "
             "gpus × micro_batch × seq_len; attention_span_tokens 0: causal, seq_len / 2.");
    def_fields(cfg, cfg_fields, Access::read_write);
    // Not a C++ field: reduce_bytes named as a dtype.
    cfg.def_property(
        "reduce_dtype", [](const TrainingConfig& c) { return std::string(reduce_dtype_name(c.reduce_bytes)); },
        [](TrainingConfig& c, std::string_view s) { c.reduce_bytes = parse_reduce_dtype(s); },
        "reduce_bytes as a dtype: 'bf16' or 'fp32' (gradient reduction)");
    def_value_methods(cfg);
}

}  // namespace libscale_py
