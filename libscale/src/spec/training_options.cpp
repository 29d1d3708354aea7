// The option tables of TrainingConfig, DataPipeline and CheckpointPolicy: one entry per
// field, the single place its name, unit, valid values and help are written.
#include "libscale/spec/hardware.hpp"
#include "libscale/spec/training_config.hpp"
#include "spec/option_builders.hpp"

namespace libscale {

using namespace option_builders;

const OptionTable<TrainingConfig>& training_options() {
    using C = TrainingConfig;
    static const OptionTable<C> table{
        "training",
        {
            integer<C>("gpus", &C::gpus, "GPUs",
                       "GPUs in the job: data-parallel ranks × context_parallel × tensor_parallel", 1,
                       static_cast<double>(kMaxGpus)),
            optional_count<C>("gpus_per_node", &C::gpus_per_node, "GPUs", "GPUs per node (not set: the hardware's)", 1,
                              static_cast<double>(kMaxGpusPerNode)),
            integer<C>("seq_len", &C::seq_len, "tokens", "sequence length", 1, 1LL << 40),
            integer<C>("micro_batch", &C::micro_batch, "sequences", "sequences per micro-batch per GPU", 1, 1LL << 40),
            optional_count<C>(
                "global_batch_tokens", &C::global_batch_tokens, "tokens",
                "tokens per optimizer step, kept fixed in strong scaling (not set: one micro-batch per "
                "data-parallel rank; in a projection over several GPU counts, on each of their least common multiple)",
                1, 9.2e18),
            choice<C>("strategy", &C::strategy, parse_strategy,
                      {"fsdp", "hsdp", "ddp", "zero1", "zero2", "zero3", "full_shard", "hybrid_shard"},
                      "data-parallel sharding: fsdp (= zero3, full_shard), hsdp (= hybrid_shard: shard in a node, "
                      "replicate across), ddp, zero1, zero2"),
            choice<C>("activation_checkpointing", &C::activation_checkpointing, parse_checkpointing,
                      {"none", "selective", "full", "off", "op"},
                      "activation checkpointing: full recomputes each layer, selective (= op) recomputes what "
                      "torchtitan's op policy discards, none (= off)"),
            boolean<C>("reshard_after_forward", &C::reshard_after_forward,
                       "free each unit's gathered parameters after forward and gather again for backward (FSDP2 "
                       "reshard_after_forward)"),
            Option<C>{
                .name = "reduce_dtype",
                .type = OptionType::choice,
                .help = "gradient reduction dtype: bf16 (FSDP2 with reduce_dtype unset) or fp32 (torchtitan's "
                        "default)",
                .choices = {"bf16", "fp32"},
                .get = [](const C& c) -> OptionValue { return std::string(c.reduce_bytes == 4 ? "fp32" : "bf16"); },
                .set = [](C& c, const OptionValue& v) { c.reduce_bytes = std::get<std::string>(v) == "fp32" ? 4 : 2; }},
            choice<C>("grad_sync", &C::grad_sync, parse_grad_sync, {"every_micro_batch", "last_micro_batch"},
                      "when gradients are reduced under accumulation: after every micro-batch, or only the last "
                      "(no_sync / set_requires_gradient_sync(False) on the others)"),
            optional_positive<C>("attention_span_tokens", &C::attention_span_tokens, "tokens",
                                 "mean keys a query attends (not set: causal, seq_len / 2)"),
            choice<C>("precision", &C::precision, parse_precision, {"bf16", "fp8"},
                      "decoder-layer GEMMs in bf16, or fp8 (torchao Float8Linear, tensorwise scaling; needs fp8 "
                      "tensor cores)"),
            boolean<C>("fp8_all_gather", &C::fp8_all_gather,
                       "FSDP all-gathers fp8 weights (torchtitan enable_fsdp_float8_all_gather; needs precision fp8 "
                       "and fsdp or hsdp)"),
            choice<C>("optimizer", &C::optimizer, parse_optimizer, {"adamw", "adamw_8bit", "sgd", "adafactor"},
                      "optimizer state per parameter"),
            choice<C>("master_weights", &C::master_weights, parse_master_weights, {"fp32", "bf16"},
                      "fp32 master weights with bf16 compute copies, or bf16 weights updated in place"),
            choice<C>("loss_kernel", &C::loss_kernel, parse_loss_kernel, {"eager", "fused"},
                      "eager cross-entropy on fp32 logits, or a fused loss that never materializes them"),
            choice<C>(
                "attention_kernel", &C::attention_kernel, parse_attention_kernel,
                {"flash2", "flash3", "cudnn", "flash1", "flash_triton", "llm_foundry_triton", "xformers", "eager"},
                "fused-attention implementation"),
            choice<C>("implementation", &C::implementation, parse_implementation,
                      {"generic", "transformers", "torchtitan", "transformer_engine"},
                      "the model code whose memory-bound kernels run: generic per-op eager counts, Hugging Face "
                      "transformers' eager modules (fp32 RMSNorm, early-stopping recompute), torchtitan's (fused "
                      "RMSNorm, full recompute) or Transformer Engine's modules (fused RMSNorm and RoPE: NeMo, "
                      "Megatron); docs/model.md"),
            boolean<C>("torch_compile", &C::torch_compile, "torch.compile of each decoder layer"),
            integer<C>("checkpoint_every", &C::checkpoint_every, "layers",
                       "activation checkpointing on every k-th decoder layer only (1: every layer)", 1, 1 << 20),
            boolean<C>("clip_grad_norm", &C::clip_grad_norm,
                       "clip gradients to a maximum global norm before the optimizer step "
                       "(torch.nn.utils.clip_grad_norm_: Hugging Face max_grad_norm > 0, torchtitan max_norm)"),
            boolean<C>("keep_logits", &C::keep_logits,
                       "the training loop keeps the model's output (its bf16 logits) through backward, as "
                       "`outputs = model(**batch); outputs.loss.backward()` does (Hugging Face Trainer, TRL and "
                       "torchtitan drop it first)"),
            boolean<C>("fused_optimizer", &C::fused_optimizer,
                       "the optimizer's fused kernel (torch.optim fused=True, torchtitan's default); not: "
                       "torch.optim's default multi-tensor path, whose AdamW step holds one more state-sized tensor"),
            choice<C>("fine_tuning", &C::fine_tuning, parse_fine_tuning, {"full", "lora", "qlora", "dora"},
                      "what is trained: every weight (full), low-rank adapters on a frozen base (lora), on a 4-bit "
                      "base (qlora), or weight-decomposed adapters (dora); docs/model.md \"Fine-tuning methods\""),
            integer<C>("lora_rank", &C::lora_rank, "", "rank r of each adapter (PEFT LoraConfig r)", 1, 1 << 20),
            Option<C>{
                .name = "lora_targets",
                .type = OptionType::text,
                .help = "the decoder layer's projections that get adapters: all-linear (PEFT's, the output "
                        "layer excluded), attention, mlp, or a comma list of q_proj, k_proj, v_proj, o_proj, "
                        "gate_proj, up_proj, down_proj",
                .get = [](const C& c) -> OptionValue { return format_lora_targets(c.lora_targets); },
                .set = [](C& c,
                          const OptionValue& v) { c.lora_targets = parse_lora_targets(std::get<std::string>(v)); }},
            choice<C>("base_weights", &C::base_weights, parse_base_weights,
                      {"auto", "bf16", "fp8", "nf4", "nf4_double_quant"},
                      "storage of the frozen base's linear weights under lora, qlora or dora: auto (bf16; for qlora "
                      "nf4_double_quant), bf16, fp8, or 4-bit NormalFloat (bitsandbytes, torchao) with or without "
                      "double quantization"),
            boolean<C>("train_embeddings", &C::train_embeddings,
                       "under lora, qlora or dora: the token embedding and output head are trained too (PEFT "
                       "modules_to_save)"),
            boolean<C>("activation_offloading", &C::activation_offloading,
                       "saved activations kept in host memory between their forward and backward (torchtune "
                       "enable_activation_offloading); memory only, its copies taken to hide under compute"),
            integer<C>("tensor_parallel", &C::tensor_parallel, "GPUs",
                       "tensor-parallel degree: each decoder layer's matmuls split column- then row-wise over this "
                       "many GPUs of one node, FSDP or HSDP over the rest (torchtitan tensor_parallel_degree)",
                       1, 1 << 16),
            boolean<C>("sequence_parallel", &C::sequence_parallel,
                       "with tensor_parallel > 1: norms and residuals split by tokens, the layer's collectives "
                       "all-gather and reduce-scatter its activations instead of all-reducing them (Megatron-LM "
                       "sequence_parallel; torchtitan always)"),
            boolean<C>("async_tensor_parallel", &C::async_tensor_parallel,
                       "with tensor_parallel > 1, sequence_parallel and torch_compile: each activation gather that "
                       "feeds matmuls and each scatter a matmul feeds runs in per-rank chunks beside that matmul "
                       "(torchtitan enable_async_tensor_parallel, PyTorch's micro-pipeline TP)"),
            integer<C>("context_parallel", &C::context_parallel, "GPUs",
                       "context-parallel degree: each sequence split over this many GPUs, ring attention "
                       "exchanging keys and values (PyTorch context_parallel; torchtitan context_parallel_degree) "
                       "or Ulysses all-to-alls (context_parallel_method)",
                       1, 1 << 16),
            choice<C>("context_parallel_method", &C::context_parallel_method, parse_context_parallel_method,
                      {"ring", "ulysses"},
                      "how context parallel splits attention: ring (PyTorch context_parallel, torchtitan: each rank's "
                      "query chunks against every rank's keys and values, load-balanced for causal masks) or ulysses "
                      "(DeepSpeed-Ulysses, DeepSpeed ALST with ZeRO-3: all-to-alls trade the sequence split for a "
                      "head split, attention over the whole sequence for 1/cp of the heads)"),
            integer<C>("pipeline_parallel", &C::pipeline_parallel, "GPUs",
                       "pipeline-parallel degree: not modelled (its schedules and bubbles), 1 only", 1, 1 << 16),
            integer<C>("expert_parallel", &C::expert_parallel, "GPUs",
                       "expert-parallel degree of a mixture-of-experts model: each MoE layer's experts split over "
                       "this many of the FSDP ranks, tokens sent to their experts and back by all-to-all "
                       "(torchtitan expert_parallel_degree)",
                       1, 1 << 16),
            choice<C>("expert_comm_backend", &C::expert_comm_backend, parse_expert_comm_backend, {"standard", "deepep"},
                      "how expert parallel moves tokens: standard (all_to_all_single of each token's k routed "
                      "copies) or deepep (DeepEP's dispatch and combine: a token once to each rank holding one of "
                      "its experts); torchtitan comm_backend"),
            number<C>("expert_imbalance", &C::expert_imbalance, "× mean",
                      "routed tokens of the busiest expert-parallel rank over the mean (1: perfectly balanced); "
                      "its expert GEMMs and all-to-alls set the pace of the others",
                      1, 1 << 16),
        }};
    return table;
}

const OptionTable<DataPipeline>& data_options() {
    using D = DataPipeline;
    static const OptionTable<D> table{
        "data",
        {
            boolean<D>("pretokenized", &D::pretokenized,
                       "the corpus holds token ids (false: raw text tokenized "
                       "on the fly)"),
            positive<D>("bytes_per_token", &D::bytes_per_token, "bytes", "stored bytes per token (uint32 ids: 4)"),
            boolean<D>("corpus_in_page_cache", &D::corpus_in_page_cache,
                       "the corpus is in the page cache (reads cost memory bandwidth only)"),
            number<D>("storage_read_gbps_per_node", &D::storage_read_gbps_per_node, "GB/s",
                      "storage read bandwidth a node's ranks share (needed when the corpus is not cached)", 0),
            number<D>("tokenize_tokens_per_s_per_core", &D::tokenize_tokens_per_s_per_core, "tokens/s",
                      "tokenizer throughput per CPU core (needed when not pretokenized)", 0),
            integer<D>("loader_workers_per_rank", &D::loader_workers_per_rank, "processes",
                       "DataLoader worker processes per rank", 0, 1 << 20),
            integer<D>("cpu_cores_per_node", &D::cpu_cores_per_node, "cores", "CPU cores per node (0: not limiting)", 0,
                       1 << 24),
        }};
    return table;
}

const OptionTable<CheckpointPolicy>& checkpoint_options() {
    using P = CheckpointPolicy;
    static const OptionTable<P> table{"checkpoint",
                                      {
                                          integer<P>("every_steps", &P::every_steps, "steps",
                                                     "write a checkpoint every this many optimizer steps "
                                                     "(0: never)",
                                                     0, 9.2e18),
                                          number<P>("write_gbps_per_node", &P::write_gbps_per_node, "GB/s",
                                                    "checkpoint write bandwidth per node (needed with every_steps)", 0),
                                      }};
    return table;
}

}  // namespace libscale
