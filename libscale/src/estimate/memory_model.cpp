#include "libscale/estimate/memory_model.hpp"

#include "libscale/estimate/compute_model.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

namespace libscale {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// bf16 compute weights and gradients per parameter; the rest (masters, states) is the
// optimizer's (ZeRO, arXiv 1910.02054 §3.1: 2 + 2 + 12 bytes for mixed-precision Adam).
constexpr double kWeightBytes = 2, kGradBytes = 2;
constexpr double kActivationBytes = 2;  // bf16

struct Sharding {
    std::int64_t weights = 1, grads = 1, optimizer = 1;  // ways each state is split
};

Sharding sharding_of(Strategy s, std::int64_t n, std::int64_t shard_group) {
    switch (s) {
        case Strategy::fsdp: return {n, n, n};
        case Strategy::hsdp: return {shard_group, shard_group, shard_group};
        case Strategy::ddp: return {1, 1, 1};
        case Strategy::zero1: return {1, 1, n};
        case Strategy::zero2: return {1, n, n};
    }
    return {};
}

// Elements saved per token per decoder layer for backward.
double saved_elements_per_layer(const ModelSpec& m, Checkpointing ac) {
    const double d = static_cast<double>(m.hidden_size);
    const double f = static_cast<double>(m.intermediate_size);
    const double q = static_cast<double>(m.q_width());
    const double kv = static_cast<double>(m.kv_width());
    const bool gated = m.mlp == MlpKind::gated;
    switch (ac) {
        case Checkpointing::full: return d;  // the block's input
        case Checkpointing::selective:
            // torchtitan op-level SAC keeps the block input, attention's output and the
            // output of every matmul it does not recompute (layer_gemms: in a Llama layer
            // q, v, w1, w2; fused layouts keep other tensors).
            return d + q + layer_gemms(m).kept_outputs();
        case Checkpointing::none: break;
    }
    // Each norm's input and the normalized tensors the projections read (one when a
    // parallel block shares its single norm), q, k, v for attention, its output, the MLP's
    // intermediates (gate, up, activation, product; or up and activation), and the q/k-norm
    // inputs where the model has them.
    const double norms = static_cast<double>(m.norms_per_layer);
    const double normed = m.parallel_block && m.norms_per_layer == 1 ? 1 : 2;
    return (norms + normed) * d + 2 * q + 2 * kv + (gated ? 4 * f : 2 * f) + (m.qk_norm != QkNorm::none ? q + kv : 0);
}

// Adafactor keeps, per matrix, a row and a column vector of second-moment statistics,
// and per vector parameter the full second moment (Shazeer & Stern, arXiv 1804.04235 §3).
double adafactor_state_elements(const ModelSpec& m, const ParameterCounts& p) {
    const double d = static_cast<double>(m.hidden_size), f = static_cast<double>(m.intermediate_size);
    const double q = static_cast<double>(m.q_width()), kv = static_cast<double>(m.kv_width());
    const double V = static_cast<double>(m.vocab_size), ew = static_cast<double>(m.embed_width());
    double per_layer = m.fused_qkv ? (d + q + 2 * kv) : (3 * d + q + 2 * kv);
    per_layer += q + d;  // o
    if (m.mlp == MlpKind::gated) per_layer += m.fused_gate_up ? (d + 2 * f) + (f + d) : 3 * (d + f);
    else per_layer += 2 * (d + f);
    per_layer += static_cast<double>(p.per_layer - p.per_layer_matmul);  // norms, biases
    double root = V + ew;                                                // embedding
    if (!m.tie_word_embeddings) root += V + ew;                          // output projection
    if (m.lm_head_bias) root += V;
    if (m.position_embedding_rows > 0) root += static_cast<double>(m.position_embedding_rows) + ew;
    if (m.embed_proj_dim > 0) root += 2 * (d + ew);
    root += static_cast<double>(p.final_norm);
    return static_cast<double>(m.num_layers) * per_layer + root;
}

}  // namespace

const char* to_string(FitStatus f) {
    switch (f) {
        case FitStatus::fits: return "fits";
        case FitStatus::uncertain: return "uncertain";
        case FitStatus::does_not_fit: return "does_not_fit";
    }
    return "?";
}

double optimizer_bytes_per_parameter(const ModelSpec& m, const ParameterCounts& p, const TrainingConfig& c) {
    const bool fp32 = c.master_weights == MasterWeights::fp32;
    // States follow the master weights' dtype (torch.optim allocates them like the
    // parameter), except bitsandbytes' 8-bit states (one byte each for m and v).
    const double state = fp32 ? 4.0 : 2.0;
    double states = 0;
    switch (c.optimizer) {
        case Optimizer::adamw: states = 2 * state; break;
        case Optimizer::adamw_8bit: states = 2.0; break;
        case Optimizer::sgd: states = state; break;
        case Optimizer::adafactor:
            states = state * adafactor_state_elements(m, p) / static_cast<double>(p.total);
            break;
    }
    return (fp32 ? 4.0 : 0.0) + states;
}

MemoryBreakdown estimate_memory(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                                const Calibration& cal, const TrainingConfig& c, std::int64_t shard_group) noexcept {
    MemoryBreakdown mem;
    const std::int64_t n = c.gpus;
    const Sharding sh = sharding_of(c.strategy, n, shard_group);
    const double P = static_cast<double>(p.total);
    const double t = static_cast<double>(c.micro_batch) * static_cast<double>(c.seq_len);
    mem.weights_gib = P * kWeightBytes / static_cast<double>(sh.weights) / kGiB;
    mem.grads_gib = P * kGradBytes / static_cast<double>(sh.grads) / kGiB;
    mem.optimizer_gib = P * optimizer_bytes_per_parameter(m, p, c) / static_cast<double>(sh.optimizer) / kGiB;

    // Checkpointing every k-th layer: L/k layers keep what checkpointing keeps, the others
    // everything. PyTorch's eager attention also keeps its h × seq probabilities per token.
    const Checkpointing ac = c.activation_checkpointing;
    const double L = static_cast<double>(m.num_layers);
    const double checkpointed = static_cast<double>(checkpointed_layers(c, m.num_layers));
    const double probs = c.attention_kernel == AttentionKernel::eager
                             ? static_cast<double>(m.num_heads) * static_cast<double>(c.seq_len)
                             : 0.0;
    const double full_layer = saved_elements_per_layer(m, Checkpointing::none) + probs;
    double act = checkpointed * saved_elements_per_layer(m, ac) + (L - checkpointed) * full_layer +
                 2.0 * static_cast<double>(m.hidden_size);
    if (checkpointed > 0) act += full_layer;  // the layer being recomputed
    mem.activations_gib = t * act * kActivationBytes / kGiB;
    // Eager loss: bf16 logits and the fp32 copy the loss takes (6 B per logit); a fused loss
    // keeps the bf16 logits only.
    const double logit_bytes = c.loss_kernel == LossKernel::eager ? 6.0 : 2.0;
    mem.logits_gib = t * static_cast<double>(m.vocab_size) * logit_bytes / kGiB;
    if (c.strategy == Strategy::fsdp || c.strategy == Strategy::hsdp) {
        // Gathered weights: the root (kept through forward) plus the current and the
        // prefetched layer, or everything when layers stay unsharded after forward; and
        // the unsharded gradient of the largest unit awaiting its reduce-scatter.
        const double layer = static_cast<double>(p.per_layer), root = static_cast<double>(p.root_unit);
        const double rb = static_cast<double>(c.reduce_bytes);
        const double gathered = c.reshard_after_forward ? root + 2.0 * layer : P;
        const double fp8_saving = c.fp8_all_gather && c.precision == Precision::fp8
                                      ? 1.0 * static_cast<double>(p.per_layer_matmul) *
                                            (c.reshard_after_forward ? 2.0 : static_cast<double>(m.num_layers))
                                      : 0.0;
        double buffers = gathered * kWeightBytes - fp8_saving + std::max(layer, root) * rb;
        // Without gradient sync on every micro-batch, unsharded gradients accumulate; with
        // one micro-batch per step there is nothing to accumulate (the same step either way).
        const double tokens_per_micro_step =
            static_cast<double>(n) * static_cast<double>(c.micro_batch) * static_cast<double>(c.seq_len);
        const bool accumulates =
            c.global_batch_tokens > 0 && static_cast<double>(c.global_batch_tokens) > tokens_per_micro_step;
        if (c.grad_sync == GradSync::last_micro_batch && accumulates) buffers += P * rb;
        mem.buffers_gib = buffers / kGiB;
    }
    const double allocated =
        mem.weights_gib + mem.grads_gib + mem.optimizer_gib + mem.activations_gib + mem.logits_gib + mem.buffers_gib;
    mem.fragmentation_gib = allocated * cal.fragmentation;
    mem.reserved_gib = cal.reserved_gib;
    mem.allocated_gib = allocated;
    mem.allocator_reserved_gib = allocated + mem.fragmentation_gib;
    mem.total_gib = mem.allocator_reserved_gib + mem.reserved_gib;
    mem.available_gib = hw.hbm_gib;
    mem.margin = cal.memory_margin;
    if (mem.total_gib * (1.0 + mem.margin) <= mem.available_gib) mem.status = FitStatus::fits;
    else if (mem.total_gib * (1.0 - mem.margin) <= mem.available_gib) mem.status = FitStatus::uncertain;
    else mem.status = FitStatus::does_not_fit;
    mem.fits = mem.status == FitStatus::fits;
    return mem;
}

double memory_of_kind(const MemoryBreakdown& mem, std::string_view kind) noexcept {
    if (kind == "allocated" || kind == "active") return mem.allocated_gib;
    if (kind == "reserved") return mem.allocator_reserved_gib;
    return mem.total_gib;
}

std::ostream& operator<<(std::ostream& os, const MemoryBreakdown& mem) {
    return os << "MemoryBreakdown(total_gib=" << mem.total_gib << ", available_gib=" << mem.available_gib
              << ", status='" << to_string(mem.status) << "', margin=" << mem.margin
              << ", weights_gib=" << mem.weights_gib << ", grads_gib=" << mem.grads_gib
              << ", optimizer_gib=" << mem.optimizer_gib << ", activations_gib=" << mem.activations_gib
              << ", logits_gib=" << mem.logits_gib << ", buffers_gib=" << mem.buffers_gib
              << ", fragmentation_gib=" << mem.fragmentation_gib << ", reserved_gib=" << mem.reserved_gib << ")";
}

}  // namespace libscale
