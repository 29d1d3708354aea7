// The per-operation compute model: one decoder layer, the embedding and the output head
// as lists of operations (GEMMs at their real shapes, fused attention, memory-bound
// kernels, host overheads), each timed by its own law (calibration.hpp's GemmLaw and
// AttentionLaw, bytes over HBM). docs/model.md "Compute" states every law and source.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>

#include "libscale/calibrate/calibration.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/spec/model_spec.hpp"
#include "libscale/spec/training_config.hpp"

namespace libscale {

// Y[M×N] = X[M×K] · W[K×N] with M the tokens of the micro-batch. Backward runs dgrad
// (dX = dY·Wᵀ: output M×K, inner N) and wgrad (dW = Xᵀ·dY: output K×N, inner M).
// A mixture of experts' expert matmuls are `groups` GEMMs (one per local expert) over
// `rows` × tokens rows in all (top-k routing: k × the imbalance), run as one grouped GEMM
// (torch._grouped_mm) or one after another (`looped`: transformers' loop over experts).
// `share`: the fraction of the layers that run the op (MoE layers or dense MLP layers).
struct GemmOp {
    double n = 0, k = 0;
    bool fp8 = false;                  // operands cast to fp8 (Precision::fp8)
    bool bias = false;                 // backward reduces dY for the bias gradient
    bool selective_recompute = false;  // recomputed by torchtitan's op-level checkpointing
    bool frozen = false;               // a frozen weight: no wgrad (LoRA's base)
    double rows = 1;                   // M = rows × tokens, over all groups
    double groups = 1;                 // equal GEMMs of M / groups rows each
    double share = 1;                  // of the layers
    bool looped = false;               // the groups as separate GEMMs, not one grouped GEMM
    bool reads_block_input = false;    // q|k|v or the MLP's input: reads the normalized layer input
};

// How the experts of a mixture-of-experts layer run on one rank: split over
// expert_parallel ranks, the busiest receiving `imbalance` × its mean share of tokens,
// grouped or looped (GemmOp).
struct ExpertLayout {
    double expert_parallel = 1;
    double imbalance = 1;
    bool looped = false;
};

// The layout a configuration trains with: expert_parallel, expert_imbalance, and looped
// experts for transformers' eager code (compiled code and torchtitan group them).
ExpertLayout expert_layout(const TrainingConfig& c) noexcept;

// A decoder layer's matmuls in call order (fused q|k|v or gate|up where the family fuses
// them; a mixture of experts' router, experts and shared expert), each marked whether
// torchtitan's op-level checkpointing recomputes it. The one definition of both, used by
// the plan, by memory's saved tensors and by HFU. Per-token sums are means over the layers.
struct LayerGemms {
    static constexpr int kMax = 16;
    std::array<GemmOp, kMax> gemms{};
    int count = 0;
    double kept_outputs() const;      // Σ N·rows of the matmuls selective checkpointing keeps
    double recomputed_flops() const;  // Σ 2·N·K·rows of those it recomputes, per token
};
LayerGemms layer_gemms(const ModelSpec& m, bool fp8 = false, const ExpertLayout& experts = {});

// What a decoder layer, the head and the embedding do, independent of the hardware and of
// the token count: built once per model and configuration (plan_operations). Memory-bound
// work is in bytes at the copy law's rate (hbm_efficiency): a kernel class that streams
// slower than a device-to-device copy counts its bytes over its measured rate.
struct OperationPlan {
    std::array<GemmOp, LayerGemms::kMax> layer_gemms{};
    int layer_gemm_count = 0;
    // The adapters' GEMMs of one layer (A: in → r, B: r → out per adapted linear), trained.
    static constexpr int kMaxAdapterGemms = 14;
    std::array<GemmOp, kMaxAdapterGemms> adapter_gemms{};
    int adapter_gemm_count = 0;
    // DoRA's per-forward ΔW = lora_B(lora_A(I)) of each adapted linear: GEMMs of in × r
    // (inner in) and in × out (inner r).
    std::array<AdaptedLinear, 7> dora_adapted{};
    double dora_rank = 0;
    int dora_count = 0;
    // Memory-bound kernels of one layer: bytes per token and kernels per pass.
    double layer_forward_bytes_per_token = 0;
    double layer_backward_bytes_per_token = 0;
    double layer_forward_kernels = 0;
    double layer_backward_kernels = 0;
    // Bytes per micro-batch independent of tokens: fp8 weight casts.
    double layer_forward_fixed_bytes = 0;
    double layer_backward_fixed_bytes = 0;
    double layer_recompute_fixed_bytes = 0;  // a base below bf16 upcast again when recomputed
    double copy_out_kernels = 0;             // of layer_forward_kernels: FSDP2's copies, not recomputed
    // Kernels the host launches only after waiting for the GPU (a device-to-host sync before
    // them), so their launch time adds to the device time instead of hiding under it:
    // transformers' loop over experts syncs on each expert's token indices.
    double layer_forward_serial_kernels = 0;
    // FSDP2's own copies on the compute stream (docs/model.md "FSDP2's copies"), per micro-
    // batch: a layer's per gather (forward; again in backward when resharded) and per
    // gradient reduction, and the root unit's one gather and one reduction.
    double fsdp_layer_forward_bytes = 0;   // its gather
    double fsdp_layer_backward_bytes = 0;  // its gather again when resharded, and its reduction
    double fsdp_root_gather_bytes = 0;
    double fsdp_root_reduce_bytes = 0;
    // Transformers' non-reentrant checkpointing stops its recompute after the last op whose
    // output backward needs: the layer's last GEMM and residual add are not run again.
    bool recompute_early_stop = false;
    double recompute_skipped_bytes_per_token = 0;
    // Attention: q heads × head_dim; layers that use a sliding window.
    double attention_width = 0;  // h · d_h
    double head_dim = 0;
    double window = 0;  // 0: none
    double window_layers = 0;
    double layers = 0;
    // Context parallel: each attention call runs on 1/cp of the sequence (the rate's length).
    double attention_chunks = 1;
    // Output head: optional OPT project_out, the output projection, then norms and loss.
    GemmOp head_gemm;
    GemmOp project_gemm;                      // n = 0: absent
    double head_forward_bytes_per_token = 0;  // loss included
    double head_backward_bytes_per_token = 0;
    double loss_forward_bytes_per_token = 0;  // the loss over the vocabulary, of the head's
    double loss_backward_bytes_per_token = 0;
    double head_forward_kernels = 0;
    double head_backward_kernels = 0;
    // Embedding lookup; its backward zero-fills the table's gradient once per micro-batch.
    double embed_forward_bytes_per_token = 0;
    double embed_backward_bytes_per_token = 0;
    double embed_backward_fixed_bytes = 0;
    double embed_forward_kernels = 0;
    double embed_backward_kernels = 0;
    GemmOp embed_gemm;  // OPT project_in; n = 0: absent
    Checkpointing checkpointing = Checkpointing::full;
    double checkpointed_fraction = 1;  // of the layers (1 / checkpoint_every)
    AttentionKernel attention_kernel = AttentionKernel::flash2;
};

// m and p: the whole model; under tensor parallel the plan is one rank's (its slice,
// spec/parallelism.hpp), under context parallel its attention runs on sequence chunks.
OperationPlan plan_operations(const ModelSpec& m, const ParameterCounts& p, const TrainingConfig& c);

// Time of one micro-batch's compute, by part. Each pass of a layer (and the head and the
// embedding) takes max(device time, host time): a host issuing kernels more slowly than
// the GPU runs them leaves the GPU waiting.
struct ComputeTimes {
    double layers = 0;            // L
    double layer_forward_s = 0;   // one decoder layer
    double layer_backward_s = 0;  // including what activation checkpointing recomputes
    double head_forward_s = 0;    // final norm, output projection, loss
    double head_backward_s = 0;
    double embed_forward_s = 0;
    double embed_backward_s = 0;
    // Of a layer's passes: its attention kernels (forward; backward with what is recomputed),
    // which context parallel's key/value exchange runs under.
    double layer_attention_forward_s = 0;
    double layer_attention_backward_s = 0;
    // Device time of one micro-batch by kind (all layers, head and embedding).
    double gemm_s = 0;
    double attention_s = 0;
    double memory_s = 0;
    // Of memory_s: FSDP2's copies, and the loss over the vocabulary (head).
    double fsdp_copy_s = 0;
    double loss_s = 0;
    double host_wait_s = 0;        // time the GPU waits on the host
    double micro_batch_s() const;  // L·(forward + backward) + head + embedding
};

// t: tokens per micro-batch per GPU (rank_tokens); span: mean attended keys per query
// (seq/2 causal, the whole sequence's under context parallel).
ComputeTimes compute_times(const OperationPlan& o, const HardwareProfile& hw, const Calibration& cal, double t,
                           double span) noexcept;
ComputeTimes compute_times(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                           const Calibration& cal, const TrainingConfig& c) noexcept;

// The laws, for tests, the fitter's kernel records and the harness's comparisons. They
// apply the calibration as given, framework_efficiency included: to predict a kernel
// micro-run (the kernel alone), pass a calibration with framework_efficiency = 1, as
// fit_compute.cpp does.
// groups: that many m × n × k GEMMs in one grouped launch (a mixture of experts' experts).
double gemm_time_s(const HardwareProfile& hw, const Calibration& cal, double m, double n, double k, bool fp8 = false,
                   double groups = 1) noexcept;
// Fused attention over `tokens` query tokens attending `span` keys on average, in
// sequences (or documents) of `seq_len`; forward or backward kernel.
double attention_time_s(const HardwareProfile& hw, const Calibration& cal, double tokens, double width, double head_dim,
                        double span, double seq_len, bool backward,
                        AttentionKernel kernel = AttentionKernel::flash2) noexcept;
// The FLOPs those laws count for one fused attention call (backward: 2.5× forward).
double attention_flops(double tokens, double width, double span, bool backward) noexcept;
double memory_time_s(const HardwareProfile& hw, const Calibration& cal, double bytes) noexcept;
// The calibration with its attention law re-expressed for kernel `to`: maxima scaled by the
// two kernels' published ratio, `to`'s own half lengths (unchanged when `to` is already the
// calibration's kernel). The fitter starts from it when it fits another kernel's records.
Calibration with_attention_kernel(const Calibration& cal, AttentionKernel to) noexcept;
// Keys a query attends on average over the layers, sliding-window layers included
// (span: a global layer's mean, seq/2 for a causal sequence).
double mean_attended_keys(const ModelSpec& m, double span) noexcept;

std::ostream& operator<<(std::ostream& os, const ComputeTimes& t);

}  // namespace libscale
