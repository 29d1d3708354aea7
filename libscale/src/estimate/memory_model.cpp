#include "libscale/estimate/memory_model.hpp"

#include "estimate/rank_detail.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/spec/parallelism.hpp"

#include <algorithm>
#include <array>
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
        case Strategy::fsdp:  // over the data- and context-parallel ranks (DeviceMesh::shard_group)
        case Strategy::hsdp: return {shard_group, shard_group, shard_group};
        case Strategy::ddp: return {1, 1, 1};
        case Strategy::zero1: return {1, 1, n};
        case Strategy::zero2: return {1, n, n};
    }
    return {};
}

// Elements saved per token per decoder layer for backward, as the generic (torchtitan-like)
// model code keeps them: fused norms save their bf16 input. sp: the share of the tokens a
// tensor-parallel rank holds of what sequence parallel splits (the block's input, the
// norms' inputs); the tensors the matmuls save (their all-gathered input, q, k, v, the MLP's
// intermediates) are whole on every rank: DTensor's gather is an ordinary op whose output
// autograd saves for the weight gradient (m is the rank's slice).
// A mixture of experts (mean over the layers, k × imbalance routed rows per token on the
// busiest rank): the router's fp32 scores before and after the softmax (E each,
// 4 B: 2 elements' worth), the k routed copies of the input in expert order, each expert's
// gate, up, activation and product (as the dense gated MLP's, at width moe_intermediate_size)
// and its output before the combine, the shared expert's four intermediates.
double saved_elements_per_layer(const ModelSpec& m, Checkpointing ac, double sp = 1, const ExpertLayout& x = {}) {
    const double d = static_cast<double>(m.hidden_size);
    const double moe = detail::moe_share(m);
    const double f = static_cast<double>(m.intermediate_size) * (1 - moe);
    const double q = static_cast<double>(m.q_width());
    const double kv = static_cast<double>(m.kv_width());
    const bool gated = m.mlp == MlpKind::gated;
    switch (ac) {
        case Checkpointing::full: return sp * d;  // the block's input
        case Checkpointing::selective:
            // torchtitan op-level SAC keeps the block input, attention's output and the
            // output of every matmul it does not recompute (layer_gemms: in a Llama layer
            // q, v, w1, w2; fused layouts keep other tensors).
            return sp * d + q + layer_gemms(m, false, x).kept_outputs();
        case Checkpointing::none: break;
    }
    // Each norm's input and the normalized tensors the projections read (one when a
    // parallel block shares its single norm), q, k, v for attention, its output, the MLP's
    // intermediates (gate, up, activation, product; or up and activation), and the q/k-norm
    // inputs where the model has them.
    const double norms = static_cast<double>(m.norms_per_layer);
    const double normed = m.parallel_block && m.norms_per_layer == 1 ? 1 : 2;
    const double experts = detail::routed_rows(m, x.imbalance);
    const double moe_saved = moe > 0 ? moe * (4 * static_cast<double>(m.num_experts) +
                                              experts * (2 * d + 4 * static_cast<double>(m.moe_intermediate_size)) +
                                              4 * static_cast<double>(m.shared_expert_intermediate_size))
                                     : 0.0;
    return (sp * norms + normed) * d + 2 * q + 2 * kv + (gated ? 4 * f : 2 * f) +
           (m.qk_norm != QkNorm::none ? q + kv : 0) + moe_saved;
}

// Bytes per token that one decoder layer and the code around the layers keep, by the
// implementation that runs them (docs/model.md "Memory per GPU").
struct TokenBytes {
    double saved = 0;      // a layer under its checkpointing (mean over the layers)
    double full = 0;       // a layer without checkpointing: also the recomputed layer
    double outside = 0;    // the final norm's saved tensors
    double transient = 0;  // a layer's backward working set: gradients of its activations
};

// How a frozen base with adapters changes what one layer keeps per token, against a full
// fine-tune (docs/model.md "Fine-tuning methods"). A linear with a frozen weight saves no
// input (PyTorch's autograd saves mm's input only for the weight's gradient:
// tools/autograd/gen_variable_type.py guards each save with should_compute_output), so the
// inputs of q|k|v, of gate|up (the plain MLP's fc1) and of down are saved only through an
// adapter's lora_A. bf16 adapters (torchtune) share that tensor across a group; fp32
// adapters (PEFT's default, under autocast) cast it to fp32 and autocast casts it back, and
// that bf16 copy is what each lora_A saves (2 B per input element per adapted linear; the
// attention output o reads is saved by attention anyway). lora_B saves lora_A's r outputs;
// DoRA's magnitude scaling saves the base output and the scaled adapter output.
double adapter_saved_bytes(const ModelSpec& m, const FineTuningPlan& ft, const TrainingConfig& c) {
    const double d = static_cast<double>(m.hidden_size), f = static_cast<double>(m.intermediate_size);
    const std::uint8_t t = c.lora_targets;
    const bool gated = m.mlp == MlpKind::gated;
    const bool qkv = (t & (lora_target::q | lora_target::k | lora_target::v)) != 0;
    const bool gate_up = (t & (gated ? lora_target::gate | lora_target::up : lora_target::up)) != 0;
    const bool down = (t & lora_target::down) != 0;
    const bool fp32_adapters = ft.fp32_input_casts;
    // The group inputs a full fine-tune saves once each: gone unless a bf16 adapter keeps them.
    double bytes = -kActivationBytes * ((fp32_adapters || !qkv ? d : 0.0) + (fp32_adapters || !gate_up ? d : 0.0) +
                                        (fp32_adapters || !down ? f : 0.0));
    for (int i = 0; i < ft.adapted_count; ++i) {
        const AdaptedLinear& a = ft.adapted[static_cast<std::size_t>(i)];
        bytes += kActivationBytes * ft.rank + (fp32_adapters ? kActivationBytes * a.in : 0.0) +
                 (ft.dora ? 2 * kActivationBytes * a.out : 0.0);
    }
    return bytes;
}

TokenBytes token_bytes(const ModelSpec& m, const TrainingConfig& c, const FineTuningPlan& ft, double sp) {
    const double d = static_cast<double>(m.hidden_size), f = static_cast<double>(m.intermediate_size);
    const double q = static_cast<double>(m.q_width()), kv = static_cast<double>(m.kv_width());
    const double s = static_cast<double>(c.seq_len), h = static_cast<double>(m.num_heads);
    const bool eager_attention = c.attention_kernel == AttentionKernel::eager;
    // Compiled layers save what Inductor's partitioner keeps, as compute_model.cpp counts
    // compiled kernels alike for every implementation: the fused norms' bf16 tensors.
    const bool hf = c.implementation == Implementation::transformers && !c.torch_compile;
    // transformers' RMSNorm upcasts: `hidden_states.to(torch.float32)` is saved by pow and
    // mul (4 B) and the normalized tensor by the weight's mul (2 B) before the output (2 B)
    // the next matmul saves; a fused norm saves its bf16 input (2 B) and the output (2 B).
    const double rms_extra = hf && m.norm == NormKind::rms ? 4.0 : 0.0;
    const ExpertLayout experts = expert_layout(c);
    TokenBytes b;
    double full = kActivationBytes * saved_elements_per_layer(m, Checkpointing::none, sp, experts) +
                  rms_extra * sp * d * static_cast<double>(m.norms_per_layer);
    if (m.qk_norm != QkNorm::none) full += rms_extra * (q + kv);
    // Ulysses: attention saves its inputs and output as the all-to-alls made them (the
    // rank's heads over the whole sequence, key/value heads repeated when fewer than cp),
    // the output projection its input after the all-to-all back: one more output, and the
    // repeated keys and values.
    if (const double kv_copies = detail::ulysses_kv_copies(m, c); kv_copies > 0)
        full += kActivationBytes * (q + 2 * kv * (kv_copies - 1));
    // Eager attention keeps its h × s probabilities: bf16 for matmul(probs, v); transformers
    // also keeps softmax's fp32 result (`softmax(..., dtype=torch.float32)`).
    if (eager_attention) full += h * s * (hf ? 6.0 : 2.0);
    const double adapters = ft.peft ? adapter_saved_bytes(m, ft, c) : 0.0;
    full += adapters;
    b.full = full;
    const double L = static_cast<double>(m.num_layers);
    const double ckpt = static_cast<double>(checkpointed_layers(c, m.num_layers));
    const double kept = c.activation_checkpointing == Checkpointing::none
                            ? full
                            : kActivationBytes * saved_elements_per_layer(m, c.activation_checkpointing, sp, experts) +
                                  (c.activation_checkpointing == Checkpointing::selective ? adapters : 0.0);
    b.saved = L > 0 ? (ckpt * kept + (L - ckpt) * full) / L : 0.0;
    // Offloaded activations leave one layer's saved tensors on the GPU (the layer whose
    // copy to or from the host is in flight); the mean layer's share is 1/L of them.
    if (c.activation_offloading && L > 0) b.saved /= L;
    // The final norm's input (split by sequence parallel) and its output, gathered whole for
    // the output projection.
    b.outside =
        (m.final_norm ? (1 + sp) * kActivationBytes : kActivationBytes) * d + (m.final_norm ? rms_extra * sp * d : 0.0);
    // Backward of a layer: the incoming and outgoing gradients (2 × 2d) and the larger of
    // the MLP's (gated: the product's, the activation's and up's gradients, 3f; plain 2f)
    // and attention's (dq, dk, dv in bf16 and the fp32 dq accumulator of flash backward).
    double mlp = (m.mlp == MlpKind::gated ? 3.0 : 2.0) * kActivationBytes * f;
    // A mixture-of-experts layer: its k routed rows' gradients through the experts (3 of
    // moe_intermediate_size each) and before the combine (d), the shared expert's.
    if (m.moe()) {
        const double rows = detail::routed_rows(m, experts.imbalance);
        mlp = std::max(mlp, kActivationBytes * (rows * (3 * static_cast<double>(m.moe_intermediate_size) + 2 * d) +
                                                3 * static_cast<double>(m.shared_expert_intermediate_size)));
    }
    double attention = 6 * q + 4 * kv;
    // Eager attention's backward also makes the probabilities' gradient and the scores'
    // (bf16, 2 + 2 B each); transformers' fp32 softmax casts the former to fp32 first
    // (+4 B, the bf16 one freed).
    if (eager_attention) attention += h * s * (hf ? 6.0 : 4.0);
    // Ring attention's keys and values of the block in flight and of the next (bf16);
    // Ulysses' all-to-all outputs beside their inputs: q, k and v of the rank's heads over the
    // whole sequence (as many elements as its own tokens' q, k, v) and the output.
    if (const double kv_copies = detail::ulysses_kv_copies(m, c); kv_copies > 0)
        attention += kActivationBytes * (2 * q + 2 * kv * kv_copies);
    else if (c.context_parallel > 1) attention += 2 * 2 * kActivationBytes * kv;
    b.transient = 2 * kActivationBytes * sp * d + std::max(mlp, attention);
    return b;
}

// What the loss over the vocabulary has alive at its peak, per logit. Eager
// (`cross_entropy(logits.float())`, transformers' ForCausalLMLoss and torchtitan's loss):
// forward holds the bf16 logits, their fp32 copy and log-softmax's fp32 result (10 B);
// backward the saved result, nll_loss's fp32 gradient and log-softmax's fp32 gradient
// (12 B), plus the bf16 logits where the caller still holds the model's output. Fused
// (Liger, flash-attn's xentropy): the bf16 logits, their gradient written in place.
double loss_peak_bytes(const TrainingConfig& c, bool logits_held) {
    if (c.loss_kernel == LossKernel::fused) return 2.0;
    return 12.0 + (logits_held ? 2.0 : 0.0);  // backward's 12 B is above forward's 10
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

const char* to_string(MemoryPhase p) {
    switch (p) {
        case MemoryPhase::forward: return "forward";
        case MemoryPhase::loss: return "loss";
        case MemoryPhase::backward: return "backward";
        case MemoryPhase::reduction: return "reduction";
        case MemoryPhase::optimizer: return "optimizer";
    }
    return "?";
}

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
        case Optimizer::adafactor: {
            const FineTuningPlan ft = plan_fine_tuning(m, p, c);
            double elements = adafactor_state_elements(m, p);
            if (ft.peft) {  // each adapter matrix: a row and a column vector
                elements = ft.trained_root;
                for (int i = 0; i < ft.adapted_count; ++i) {
                    const AdaptedLinear& a = ft.adapted[static_cast<std::size_t>(i)];
                    elements += static_cast<double>(m.num_layers) * (a.in + a.out + 2 * ft.rank);
                }
            }
            states = state * elements / ft.trained;
            break;
        }
    }
    return (fp32 ? 4.0 : 0.0) + states;
}

namespace {

// What is alive in one phase, in bytes, by the breakdown's kinds.
struct Alive {
    double weights = 0, grads = 0, optimizer = 0, activations = 0, logits = 0, buffers = 0;
    double sum() const { return weights + grads + optimizer + activations + logits + buffers; }
};

}  // namespace

// The memory of one GPU holding model m (the whole model, or one tensor-parallel rank's
// slice).
MemoryBreakdown detail::rank_memory(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                                    const Calibration& cal, const TrainingConfig& c,
                                    std::int64_t shard_group) noexcept {
    // The share of the tokens sequence parallel leaves each rank of what it splits.
    const double sp = c.tensor_parallel > 1 && c.sequence_parallel ? 1.0 / static_cast<double>(c.tensor_parallel) : 1.0;
    MemoryBreakdown mem;
    const std::int64_t n = c.gpus;
    const Sharding sh = sharding_of(c.strategy, n, shard_group);
    // Under a frozen base (LoRA, QLoRA, DoRA) gradients, optimizer states and reductions
    // are the trained parameters'; the frozen ones are stored, gathered and upcast only.
    const FineTuningPlan ft = plan_fine_tuning(m, p, c);
    const double P = ft.trained;
    const double frozen = static_cast<double>(m.num_layers) * ft.frozen_layer_bytes + ft.frozen_root_bytes;
    // A base stored below bf16 is upcast one linear at a time (bitsandbytes dequantize_4bit,
    // torchao NF4Tensor): the largest bf16 copy is alive in forward and again in backward.
    const double upcast = 2.0 * ft.largest_quantized;
    const double t = rank_tokens(c);  // this GPU's tokens of a micro-batch
    const double L = static_cast<double>(m.num_layers);
    const double V = static_cast<double>(m.vocab_size);
    const TokenBytes tb = token_bytes(m, c, ft, sp);
    const double tokens_per_micro_step = static_cast<double>(data_parallel_size(c)) *
                                         static_cast<double>(c.micro_batch) * static_cast<double>(c.seq_len);
    const bool accumulates =
        c.global_batch_tokens > 0 && static_cast<double>(c.global_batch_tokens) > tokens_per_micro_step;
    // The model's output (transformers returns the logits with the loss) held by the
    // training loop through backward (keep_logits); torchtitan deletes it (`del pred`),
    // Hugging Face Trainer returns only the loss from compute_loss.
    const bool logits_held = c.keep_logits;
    const double held = logits_held ? 2.0 * t * V : 0.0;
    const double loss_bytes = t * V * loss_peak_bytes(c, logits_held);
    const double optimizer_states =
        optimizer_bytes_per_parameter(m, p, c) - (c.master_weights == MasterWeights::fp32 ? 4.0 : 0.0);

    // fused AdamW updates in place; torch.optim's default multi-tensor path allocates
    // exp_avg_sq_sqrt, one more state-sized tensor, for the step (torch/optim/adam.py
    // _multi_tensor_adam).
    const double w_state = c.master_weights == MasterWeights::fp32 ? 4.0 : 2.0;
    const double optimizer_temp = !c.fused_optimizer && c.optimizer == Optimizer::adamw ? w_state : 0.0;

    std::array<Alive, MemoryBreakdown::kPhases> phase{};
    const bool fsdp = c.strategy == Strategy::fsdp || c.strategy == Strategy::hsdp;
    if (fsdp) {
        // FSDP2 (torch/distributed/fsdp/_fully_shard/): the sharded parameters are the
        // master weights and the reduced gradients take their dtype; bf16 copies exist
        // only gathered. Gradients are None until backward (zero_grad(set_to_none=True))
        // unless micro-batches accumulate into them.
        const double N = static_cast<double>(sh.weights);
        const bool across = sh.weights > 1;  // one GPU: no all-gather, no flat output, nothing prefetched
        const double w = w_state;
        const double layer = ft.trained_per_layer, root = ft.trained_root;
        // The unit FSDP gathers and reduces whole: a layer, the largest one of a mixture of
        // experts (an MoE layer), whose routed experts under expert parallel are the rank's
        // E / ep only (torchtitan's efsdp shards each over shard group / ep ranks).
        const double unit =
            m.moe() ? static_cast<double>(p.largest_layer) - detail::routed_experts_not_held(p, c.expert_parallel)
                    : layer;
        const double rb = static_cast<double>(c.reduce_bytes);
        const double fp8_saving = c.fp8_all_gather && c.precision == Precision::fp8
                                      ? static_cast<double>(p.per_layer_matmul)
                                      : 0.0;  // 1 B less per matmul weight gathered in fp8
        // Gathered: the frozen weights in their stored dtype, the trained ones as bf16 copies.
        const double unsharded_layer = ft.peft ? ft.frozen_layer_bytes + 2.0 * layer : 2.0 * unit - fp8_saving;
        const double unsharded_root = ft.peft ? ft.frozen_root_bytes + 2.0 * root : 2.0 * root;
        // Gathered in forward: the root (not resharded after forward: FSDP2's root keeps
        // its parameters through backward) and the current layer, across GPUs with its flat
        // all-gather output, kept until the next layer's all-gather is waited on; without
        // resharding every layer stays gathered.
        const double flat = across ? unsharded_layer : 0.0;
        const double gathered = c.reshard_after_forward ? unsharded_root + unsharded_layer + flat
                                                        : unsharded_root + L * unsharded_layer + flat;
        const double sharded_grads = w * P / N;
        // Accumulating micro-batches: the sharded gradients of earlier micro-batches, or,
        // without syncing until the last one, every unsharded gradient in the reduce dtype
        // (each freed as the last micro-batch reduces it).
        const bool unsharded_accumulation = accumulates && c.grad_sync == GradSync::last_micro_batch;
        const double carried_shards = accumulates && !unsharded_accumulation ? sharded_grads : 0.0;
        const double carried_unsharded = unsharded_accumulation ? rb * P : 0.0;
        auto base = [&](double grads, double buffers) {
            Alive a;
            a.weights = (w * P + frozen) / N;
            a.optimizer = optimizer_states * P / N;
            a.grads = std::max(grads, carried_shards);
            a.buffers = buffers;
            return a;
        };
        Alive& fwd = phase[0] = base(0, gathered + carried_unsharded + upcast);
        fwd.activations = t * ((L - 1) * tb.saved + tb.full);
        fwd.logits = accumulates ? held : 0.0;  // the previous micro-batch's output, until replaced
        Alive& loss = phase[1] =
            base(0, unsharded_root + (c.reshard_after_forward ? 0.0 : L * unsharded_layer) + carried_unsharded);
        loss.activations = t * (L * tb.saved + tb.outside);
        loss.logits = loss_bytes;
        // A layer's backward, at the last layer, the first, and the two next to them (every
        // term is linear in the layer's index but the prefetched layer, none at the first,
        // and the previous reduce-scatter input, none at the last): the root's parameters and its output projection's
        // unsharded gradient (the tied embedding's when tied), the current layer gathered and, across GPUs, the next
        // one prefetched (none at the first; without resharding, every layer not yet through backward), the layer's
        // unsharded gradients, the previous layer's reduce-scatter input (kept until the next reduction; none yet at
        // the last layer), the gradient shards of the layers above. Syncing on the last
        // micro-batch only: its backward reduces each layer's accumulated gradient in turn,
        // the others keep all of them.
        const double head =
            m.tie_word_embeddings ? static_cast<double>(p.embedding + p.lm_head) : static_cast<double>(p.lm_head);
        const double head_grads = ft.peft ? 2.0 * ft.trained_root : 2.0 * (head + static_cast<double>(p.final_norm));
        for (const double below : {L, L - 1, 2.0, 1.0}) {  // layers whose saved activations remain
            if (below < 1 || below > L) continue;
            const double above = L - below;  // layers already reduced
            const bool first = below == 1, last = below == L;
            const double layers_gathered =
                c.reshard_after_forward ? unsharded_layer + (first ? 0.0 : flat) : below * unsharded_layer;
            const double common = unsharded_root + layers_gathered + head_grads + 2.0 * unit + upcast;
            Alive a = base(w * above * layer / N, common + (last ? 0.0 : rb * unit) +
                                                      (unsharded_accumulation ? rb * (P - above * layer) : 0.0));
            if (unsharded_accumulation) {  // a micro-batch that does not reduce: every gradient unsharded
                const Alive keep = base(0, common + carried_unsharded);
                if (keep.sum() > a.sum()) a = keep;
            }
            a.activations = t * ((below - 1) * tb.saved + tb.full + tb.outside + tb.transient);
            a.logits = held;
            if (a.sum() > phase[2].sum()) phase[2] = a;
        }
        // The root's post-backward: its parameters are resharded first, its gradients
        // (bf16, or accumulated in the reduce dtype) are copied into the reduce-scatter
        // input and freed; then the output (1/N of it) and, in another dtype than the
        // parameters, its cast to theirs (the root's new shard).
        const double root_grads = unsharded_accumulation ? rb * root : 2.0 * root;
        const double cast = rb == w ? 0.0 : w * root / N;
        Alive& red = phase[3] =
            base(w * (P - root) / N, std::max(root_grads + rb * root, rb * root + rb * root / N + cast));
        red.logits = held;
        // The optimizer step over every gradient shard.
        Alive& opt = phase[4] = base(sharded_grads, optimizer_temp * P / N);
        opt.logits = held;
    } else {
        // DDP and ZeRO-1/2: bf16 weights and gradient buffers allocated once and kept, fp32
        // masters and states with the optimizer (ZeRO, arXiv 1910.02054 §3.1): every phase
        // holds them. (PyTorch DDP's reducer buckets are a second gradient copy unless
        // gradient_as_bucket_view=True; not counted.)
        Alive s;
        s.weights = (P * kWeightBytes + frozen) / static_cast<double>(sh.weights);
        s.grads = P * kGradBytes / static_cast<double>(sh.grads);
        s.optimizer = P * optimizer_bytes_per_parameter(m, p, c) / static_cast<double>(sh.optimizer);
        phase[0] = phase[1] = phase[2] = phase[3] = phase[4] = s;
        // One GPU without a data-parallel wrapper (a single-device loop, as torchtune's
        // *_single_device recipes run): no reducer buckets hold gradients, each .grad is
        // created by backward and freed by zero_grad(set_to_none=True), torch.optim's default.
        // In backward a layer's gradients appear as it runs: at each layer, those of the
        // layers above, its own and the root unit's (the output head's come first).
        if (c.strategy == Strategy::ddp && n == 1 && !accumulates) {
            phase[0].grads = phase[1].grads = 0;
            for (const double below : {L, L - 1, 2.0, 1.0}) {
                if (below < 1 || below > L) continue;
                Alive a = s;
                a.grads = kGradBytes * (ft.trained_root + (L - below + 1) * ft.trained_per_layer);
                a.activations = t * ((below - 1) * tb.saved + tb.full + tb.outside + tb.transient);
                a.logits = held;
                a.buffers = upcast;
                if (below == L || a.sum() > phase[2].sum()) phase[2] = a;
            }
        }
        phase[0].activations = t * ((L - 1) * tb.saved + tb.full);
        phase[0].logits = accumulates ? held : 0.0;
        phase[0].buffers = upcast;
        phase[2].buffers = upcast;
        phase[1].activations = t * (L * tb.saved + tb.outside);
        phase[1].logits = loss_bytes;
        phase[2].activations = t * ((L - 1) * tb.saved + tb.full + tb.outside + tb.transient);
        phase[2].logits = held;
        phase[3].logits = held;
        phase[4].logits = held;
        phase[4].buffers = optimizer_temp * P / static_cast<double>(sh.optimizer);
    }
    std::size_t peak = 0;
    for (std::size_t i = 0; i < phase.size(); ++i) {
        mem.phase_gib[i] = phase[i].sum() / kGiB;
        if (phase[i].sum() > phase[peak].sum()) peak = i;
    }
    const Alive& a = phase[peak];
    mem.peak_phase = static_cast<MemoryPhase>(peak);
    mem.weights_gib = a.weights / kGiB;
    mem.grads_gib = a.grads / kGiB;
    mem.optimizer_gib = a.optimizer / kGiB;
    mem.activations_gib = a.activations / kGiB;
    mem.logits_gib = a.logits / kGiB;
    mem.buffers_gib = a.buffers / kGiB;
    const double allocated = a.sum() / kGiB;
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

MemoryBreakdown estimate_memory(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                                const Calibration& cal, const TrainingConfig& c, std::int64_t shard_group) noexcept {
    if (c.tensor_parallel <= 1) return detail::rank_memory(m, p, hw, cal, c, shard_group);
    // Under tensor parallel, what one rank holds (spec/parallelism.hpp).
    const ModelSpec slice = tensor_parallel_slice(m, c.tensor_parallel);
    return detail::rank_memory(slice, count_parameters(slice), hw, cal, c, shard_group);
}

double memory_of_kind(const MemoryBreakdown& mem, std::string_view kind) noexcept {
    if (kind == "allocated" || kind == "active") return mem.allocated_gib;
    if (kind == "reserved") return mem.allocator_reserved_gib;
    return mem.total_gib;
}

std::ostream& operator<<(std::ostream& os, const MemoryBreakdown& mem) {
    return os << "MemoryBreakdown(total_gib=" << mem.total_gib << ", available_gib=" << mem.available_gib
              << ", status='" << to_string(mem.status) << "', margin=" << mem.margin << ", peak_phase='"
              << to_string(mem.peak_phase) << "'"
              << ", weights_gib=" << mem.weights_gib << ", grads_gib=" << mem.grads_gib
              << ", optimizer_gib=" << mem.optimizer_gib << ", activations_gib=" << mem.activations_gib
              << ", logits_gib=" << mem.logits_gib << ", buffers_gib=" << mem.buffers_gib
              << ", fragmentation_gib=" << mem.fragmentation_gib << ", reserved_gib=" << mem.reserved_gib << ")";
}

}  // namespace libscale
