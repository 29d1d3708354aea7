// How a run is laid out: GPUs, batch, sharding strategy and its FSDP options, the
// input pipeline and checkpointing. Defaults follow PyTorch FSDP2 and torchtitan.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "libscale/spec/fine_tuning.hpp"
#include "libscale/spec/flops.hpp"
#include "libscale/spec/option.hpp"

namespace libscale {

// fsdp = FSDP full shard = ZeRO-3; hsdp shards inside a node and replicates across.
enum class Strategy { fsdp, hsdp, ddp, zero1, zero2 };
Strategy parse_strategy(std::string_view s);  // also accepts "zero3", "full_shard"
const char* to_string(Strategy s);

enum class GradSync {
    every_micro_batch,  // plain accumulation loop: reduce (-scatter) after each backward
    last_micro_batch,   // no_sync / set_requires_gradient_sync(False) on the others
};
GradSync parse_grad_sync(std::string_view s);
const char* to_string(GradSync g);

// Precision of the decoder layers' linear GEMMs. fp8: torchao Float8Linear with dynamic
// tensorwise scaling, as torchtitan runs it (the output projection stays bf16), which adds
// the casts and amax reductions of inputs, weights and gradients (docs/model.md "fp8").
enum class Precision { bf16, fp8 };
Precision parse_precision(std::string_view s);
const char* to_string(Precision p);

// Optimizer state per parameter: AdamW m and v; bitsandbytes 8-bit AdamW (block-wise
// quantized m and v); SGD with momentum (one buffer); Adafactor (factored second moment,
// no momentum: a row and a column vector per matrix).
enum class Optimizer { adamw, adamw_8bit, sgd, adafactor };
Optimizer parse_optimizer(std::string_view s);
const char* to_string(Optimizer o);

// The weights the optimizer updates: fp32 masters with bf16 compute copies (mixed
// precision; FSDP2 MixedPrecisionPolicy(param_dtype=bf16)), or bf16 weights updated in
// place (the optimizer's states then follow the weights' dtype, as torch.optim does).
enum class MasterWeights { fp32, bf16 };
MasterWeights parse_master_weights(std::string_view s);
const char* to_string(MasterWeights m);

// The loss over the vocabulary: eager PyTorch cross-entropy on fp32 logits (torchtitan,
// Hugging Face), or a fused kernel that never materializes fp32 logits (Liger,
// flash-attn's xentropy, a compiled chunked loss).
enum class LossKernel { eager, fused };
LossKernel parse_loss_kernel(std::string_view s);
const char* to_string(LossKernel k);

// The fused-attention implementation the trainer runs. FlashAttention-2 is the law of the
// calibration (AttentionLaw); the others run at a sourced ratio of it with their own
// half-saturation length (compute_model.cpp kAttentionKernels; docs/model.md
// "Attention kernels"). eager: PyTorch's unfused math attention, which also keeps the
// s×s probabilities for backward.
enum class AttentionKernel { flash2, flash3, cudnn, flash1, flash_triton, llm_foundry_triton, xformers, eager };
AttentionKernel parse_attention_kernel(std::string_view s);
const char* to_string(AttentionKernel k);

// The model code whose memory-bound kernels run (docs/model.md "Memory-bound work"):
// generic, the per-operation eager counts the published series were validated with;
// transformers, Hugging Face transformers' eager modules (fp32 RMSNorm chains, rotary on
// mixed layouts, its checkpointing's early-stopping recompute); torchtitan, torchtitan's
// eager modules (fused RMSNorm, full recompute).
enum class Implementation { generic, transformers, torchtitan, transformer_engine };
Implementation parse_implementation(std::string_view s);
const char* to_string(Implementation i);

// How expert parallel moves tokens (torchtitan's comm_backend, b5bcd76c
// models/common/config_utils.py): `standard`, all_to_all_single of each token's k routed
// copies; `deepep`, DeepEP's dispatch and combine, which send a token once to each rank
// holding one of its experts (a compact, deduplicated layout: distributed/deepep/deepep.py).
enum class ExpertCommBackend : std::uint8_t { standard, deepep };
ExpertCommBackend parse_expert_comm_backend(std::string_view s);
const char* to_string(ExpertCommBackend b);

// How context parallel splits attention (docs/model.md "Tensor, sequence and context
// parallel"): `ring`, PyTorch's context_parallel (torchtitan): each rank keeps its query
// chunks and runs attention block by block against every rank's keys and values; `ulysses`,
// DeepSpeed-Ulysses (Jacobs et al., arXiv 2309.14509; DeepSpeed ALST's UlyssesSPAttentionHF
// with ZeRO-3): all-to-alls trade the sequence split for a head split, so each rank runs
// attention over the whole sequence for 1/cp of the heads, and back.
enum class ContextParallelMethod : std::uint8_t { ring, ulysses };
ContextParallelMethod parse_context_parallel_method(std::string_view s);
const char* to_string(ContextParallelMethod m);

// Where a step's tokens come from. Defaults: pretokenized data already in the page
// cache, which costs nothing the model resolves; the DESIGN's NFS / tokenization
// cases are set explicitly.
struct DataPipeline {
    bool pretokenized = true;
    double bytes_per_token = 4;                 // stored token ids (uint32) or raw text bytes
    bool corpus_in_page_cache = true;           // reads then cost memory bandwidth only
    double storage_read_gbps_per_node = 0;      // GB/s shared by the node's ranks; needed when not cached
    double tokenize_tokens_per_s_per_core = 0;  // needed when not pretokenized
    std::int64_t loader_workers_per_rank = 2;
    std::int64_t cpu_cores_per_node = 0;  // 0: not limited by cores
};

struct CheckpointPolicy {
    std::int64_t every_steps = 0;    // 0: no checkpoints
    double write_gbps_per_node = 0;  // GB/s each node writes its share at
};

// Largest GPU count accepted: far beyond any cluster, and small enough that the
// searches in fit_suggestion cannot overflow.
inline constexpr std::int64_t kMaxGpus = std::int64_t{1} << 30;

struct TrainingConfig {
    std::int64_t gpus = 8;
    std::int64_t gpus_per_node = 0;  // 0: the hardware's
    std::int64_t seq_len = 8192;
    std::int64_t micro_batch = 1;          // sequences per micro-batch per GPU
    std::int64_t global_batch_tokens = 0;  // 0: gpus × micro_batch × seq_len (no accumulation)
    Strategy strategy = Strategy::fsdp;
    Checkpointing activation_checkpointing = Checkpointing::full;
    bool reshard_after_forward = true;
    // 2: bf16, as FSDP2 reduces in param_dtype when MixedPrecisionPolicy.reduce_dtype is
    // None (also Accelerate's bf16 default); 4: fp32 (torchtitan's default)
    int reduce_bytes = 2;
    GradSync grad_sync = GradSync::every_micro_batch;
    double attention_span_tokens = 0;  // 0: causal full sequence, seq_len / 2
    Precision precision = Precision::bf16;
    bool fp8_all_gather = false;  // FSDP gathers fp8 weights (torchtitan enable_fsdp_float8_all_gather)
    Optimizer optimizer = Optimizer::adamw;
    MasterWeights master_weights = MasterWeights::fp32;
    LossKernel loss_kernel = LossKernel::eager;
    AttentionKernel attention_kernel = AttentionKernel::flash2;
    Implementation implementation = Implementation::generic;
    // torch.compile of each decoder layer: elementwise chains fused (norm with residual,
    // activation with product, rotary, fp8 casts), fewer kernels launched.
    bool torch_compile = false;
    // Activation checkpointing on every k-th decoder layer only (torchtitan's
    // "selective" layer option, IBM fms-fsdp's fraction 1/k); 1: every layer.
    std::int64_t checkpoint_every = 1;
    // Gradients clipped to a maximum global norm before the optimizer step
    // (torch.nn.utils.clip_grad_norm_). Off by default: the shipped calibrations were fitted
    // without this term, so their step_overhead_s already holds what clipping cost there.
    bool clip_grad_norm = false;
    // The training loop keeps the model's output, and with it the bf16 logits, alive
    // through backward (`outputs = model(**batch); outputs.loss.backward()`, as
    // Accelerate's examples do); Hugging Face Trainer, TRL and torchtitan drop it before
    // backward. 2 B per logit at the memory peak.
    bool keep_logits = false;
    // The optimizer's fused kernel (torch.optim fused=True; torchtitan's default), or
    // torch.optim's default multi-tensor (foreach) path, whose AdamW step holds one more
    // state-sized tensor (exp_avg_sq_sqrt).
    bool fused_optimizer = true;
    // What is trained (spec/fine_tuning.hpp). The adapters' dtype is master_weights':
    // PEFT keeps them in fp32 (autocast_adapter_dtype), torchtune in the model's bf16.
    FineTuning fine_tuning = FineTuning::full;
    // PEFT LoraConfig's default r.
    std::int64_t lora_rank = 8;
    // lora_target bits; all-linear, as the QLoRA paper found needed to match full fine-tuning.
    std::uint8_t lora_targets = lora_target::all;
    BaseWeights base_weights = BaseWeights::automatic;
    bool train_embeddings = false;  // the token table and output head trained beside the adapters
    // Saved activations moved to pinned host memory as forward saves them and brought back
    // one layer ahead in backward, on their own CUDA streams (torchtune
    // training/_activation_offload.py OffloadActivations, use_streams=True). Memory only:
    // its copies are taken to hide under compute (torchtune's own table measured -0.11 %
    // tokens/s for it on a Llama 3.2 3B, README "Optimization flags").
    bool activation_offloading = false;
    // Model parallelism inside the data-parallel ranks (docs/model.md "Tensor and context
    // parallel"): gpus = data-parallel ranks × context_parallel × tensor_parallel, FSDP or
    // HSDP sharding over the data- and context-parallel ranks, as torchtitan's device mesh
    // does (dp_replicate, dp_shard, cp, tp). Tensor parallel splits each decoder layer's
    // matmuls column- then row-wise over GPUs of one node (Shoeybi et al., arXiv 1909.08053);
    // sequence parallel splits the norms and residuals by tokens between them (Korthikanti
    // et al., arXiv 2205.05198). Context parallel splits each sequence, ring attention
    // exchanging keys and values (Liu et al., arXiv 2310.01889; PyTorch context_parallel).
    std::int64_t tensor_parallel = 1;
    bool sequence_parallel = true;
    // Async tensor parallel (torchtitan enable_async_tensor_parallel: torch.compile's
    // micro-pipeline pass, torch/_inductor/fx_passes/micro_pipeline_tp.py): each gather that
    // feeds matmuls and each scatter a matmul feeds split into per-rank chunks that the copy
    // engine moves while the matmul runs on the others (torch/distributed/_symmetric_memory).
    bool async_tensor_parallel = false;
    // Expert parallel's token transport (below; a byte here, beside the flag, packs the struct).
    ExpertCommBackend expert_comm_backend = ExpertCommBackend::standard;
    ContextParallelMethod context_parallel_method = ContextParallelMethod::ring;  // a byte, packed beside them
    std::int64_t context_parallel = 1;
    // Pipeline parallelism is not modelled (its schedules and bubbles): 1 only, a rule says so.
    std::int64_t pipeline_parallel = 1;
    // Expert parallel (mixture-of-experts models; docs/model.md "Mixture of experts"): each
    // MoE layer's experts split over this many of the FSDP ranks, whole experts per rank,
    // each expert FSDP-sharded over the shard group / expert_parallel ranks (torchtitan's
    // ep and efsdp meshes); tokens go to their experts' ranks and back by all-to-all
    // (Lepikhin et al., arXiv 2006.16668). expert_imbalance: the busiest rank's routed
    // tokens over the mean, which its GEMMs and the all-to-alls wait on; expert_comm_backend
    // (declared above) how the all-to-alls move them.
    std::int64_t expert_parallel = 1;
    double expert_imbalance = 1.0;
    DataPipeline data;
    CheckpointPolicy checkpoint;
};

// Layers that activation checkpointing wraps: floor(L / checkpoint_every), as torchtitan
// wraps every k-th block (0 without checkpointing). Compute, memory and HFU all count it.
std::int64_t checkpointed_layers(const TrainingConfig& c, std::int64_t num_layers) noexcept;
// Keys a query attends on average: attention_span_tokens, or seq_len/2 for a causal sequence.
double attention_span(const TrainingConfig& c) noexcept;
// Ranks that hold distinct micro-batches: gpus / (tensor_parallel × context_parallel)
// (at least 1; the parallel_degrees rule checks that the degrees divide gpus).
inline std::int64_t data_parallel_size(const TrainingConfig& c) noexcept {
    const std::int64_t model =
        (c.tensor_parallel > 1 ? c.tensor_parallel : 1) * (c.context_parallel > 1 ? c.context_parallel : 1);
    return c.gpus / model > 1 ? c.gpus / model : 1;
}
// Tokens of a micro-batch each GPU computes: micro_batch × seq_len of its data-parallel
// rank, split over the context-parallel ranks (tensor-parallel ranks share all of them).
inline double rank_tokens(const TrainingConfig& c) noexcept {
    return static_cast<double>(c.micro_batch) * static_cast<double>(c.seq_len) /
           static_cast<double>(c.context_parallel > 1 ? c.context_parallel : 1);
}

// gpus, gpus_per_node, seq_len, micro_batch, global_batch_tokens: the options that size a
// step's batch, which a step record spells its own way (grad_accum, 0 GPUs per node) and a
// fit keys by their resolved values; every other training option goes by its table entry.
bool is_batch_option(std::string_view name) noexcept;

// The option tables (spec/option.hpp): every field's name, unit, valid values and help.
const OptionTable<TrainingConfig>& training_options();
const OptionTable<DataPipeline>& data_options();
const OptionTable<CheckpointPolicy>& checkpoint_options();

std::ostream& operator<<(std::ostream& os, const DataPipeline& d);
std::ostream& operator<<(std::ostream& os, const CheckpointPolicy& c);
std::ostream& operator<<(std::ostream& os, const TrainingConfig& c);

}  // namespace libscale
