// The per-operation compute model (compute_model.hpp; the laws and the byte counts are
// derived in docs/model.md "Compute").
#include "libscale/estimate/compute_model.hpp"

#include "estimate/rank_detail.hpp"
#include "libscale/spec/parallelism.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

namespace libscale {

namespace {

constexpr double kAct = 2;  // bf16 activations and gradients, bytes per element

// A stream-K part (see gemm_s) splits its tiles' K loops between SMs: the peers of a
// split tile write their fp32 partial accumulators and the last one reads them back
// before its epilogue, two passes over the tile more than a whole tile makes. k_half is
// what one such pass (the epilogue) costs.
constexpr double kStreamKFixupEpilogues = 2;

// Bytes per element and kernels of the memory-bound chains, eager and compiled (see
// plan_operations).
struct EagerOrCompiled {
    double rms_forward, rms_backward, rms_forward_kernels, rms_backward_kernels;
    double layer_forward, layer_backward;
    double rope, rope_kernels;
    double gated_forward, gated_backward, gated_kernels;
    double plain_forward, plain_backward;
    double residual, residual_kernels;
};
constexpr EagerOrCompiled kEager{36, 72, 7, 10, 4, 8, 20, 5, 10, 16, 2, 4, 6, 6, 1};
constexpr EagerOrCompiled kCompiled{4, 8, 1, 1, 4, 8, 4, 1, 6, 10, 1, 4, 6, 2, 0};

// Attention kernels other than FlashAttention-2, as a ratio of FA2's maximum efficiency
// and their own half-saturation length: a·s/(s + s½) fitted through the 512 and 16k (8k
// where 16k ran out of memory) points of published causal head_dim-128 charts and
// divided by FA2's a on the same chart. The ratios agree across GPUs where both were
// measured (FlashAttention-1: 0.43 on A100, 0.41 on H100; eager: 0.18, 0.19).
//   flash3, cudnn: Dao-AILab/flash-attention@0251105 assets/flash3_fp16_fwd.png (H100,
//     forward: FA3 292..616, cuDNN 315..539 against FA2 a = 343 TFLOP/s).
//   flash1, flash_triton, xformers, eager: assets/flash2_a100_fwd_bwd_benchmark.png
//     (A100, forward + backward: FlashAttention 55..83, FlashAttention Triton 50..80,
//     xformers 58..92, PyTorch 23..34 at 8k, against FA2 a = 194.7 TFLOP/s) and
//     assets/flash2_h100_fwd_bwd_benchmark.png (H100: FlashAttention 98..137, PyTorch 40..63).
//   llm_foundry_triton: llm-foundry's own copy of the Triton kernel (attn_impl: triton in
//     mosaicml/llm-foundry v0.3.0), which none of these charts measured. DERIVED from
//     published step timings: libscale fit on all 61 rows of llm-foundry's A100 80GB table
//     (scripts/train/benchmarking/README.md @8c8dd48, sequences 512 to 65536) moves the
//     FlashAttention-Triton law to 0.622 (forward) and 0.570 (backward) of FA2; its A100
//     40GB and H100 tables are held out (docs/model.md "Validation").
//   flash2 itself: its own half lengths on the H100 charts (forward 408, backward 608;
//     docs/model.md "Attention"), used only when a calibration measured another kernel.
struct KernelLaw {
    double forward_ratio, backward_ratio, forward_half_seq, backward_half_seq;
};
KernelLaw kernel_law(AttentionKernel k) {
    switch (k) {
        case AttentionKernel::flash2: return {1.0, 1.0, 408, 608};
        case AttentionKernel::flash3: return {1.861, 1.861, 608, 608};
        case AttentionKernel::cudnn: return {1.607, 1.607, 385, 385};
        case AttentionKernel::flash1: return {0.42, 0.42, 244, 244};
        case AttentionKernel::flash_triton: return {0.419, 0.419, 323, 323};
        case AttentionKernel::llm_foundry_triton: return {0.622, 0.570, 323, 323};
        case AttentionKernel::xformers: return {0.482, 0.482, 316, 316};
        case AttentionKernel::eager: return {0.187, 0.187, 298, 298};
    }
    return {1.0, 1.0, 408, 608};
}

// Memory-bound kernel classes' rates, as fractions of a device-to-device memcpy, measured
// on one H200 in one profiled FSDP2 step (calibration/data/measured/h200-2026-12-04/
// PROFILE.md; the memcpys ran at 4.20 TB/s): transformers' elementwise kernels as a whole
// 2.62 TB/s, FSDP2's fp32 → bf16 cast 3.37, chunk_cat 1.95.
constexpr double kTransformersElementwiseRate = 0.62;
constexpr double kCastRate = 0.80;
constexpr double kChunkCatRate = 0.46;

struct GemmRate {
    double peak = 0;  // FLOP/s of the whole GPU
    double sm = 0;    // 0: no wave model
    double tile_m = 0, tile_n = 0;
    double eta = 0;
    double k_half = 0;
    double in_bytes = 0, out_bytes = 0;
    double bandwidth = 0;  // achieved HBM bytes/s
};

GemmRate gemm_rate(const HardwareProfile& hw, const Calibration& cal, bool fp8) {
    GemmRate r;
    const bool use_fp8 = fp8 && hw.peak_fp8_tflops > 0 && cal.gemm.fp8_eta_max > 0;
    r.peak = use_fp8 ? hw.peak_fp8_flops() : hw.peak_flops();
    r.eta = (use_fp8 ? cal.gemm.fp8_eta_max : cal.gemm.eta_max) * cal.framework_efficiency;
    r.sm = static_cast<double>(hw.sm_count);
    r.tile_m = cal.gemm.tile_m;
    r.tile_n = cal.gemm.tile_n;
    // The epilogue's K-equivalent scales with the FLOP rate it is measured against.
    r.k_half = cal.gemm.k_half * (use_fp8 ? hw.peak_fp8_tflops / hw.peak_bf16_tflops : 1.0);
    r.in_bytes = use_fp8 ? 1 : 2;
    r.out_bytes = 2;
    r.bandwidth = hw.hbm_bytes_per_s() * cal.hbm_efficiency * cal.framework_efficiency;
    return r;
}

// ceil and floor of non-negative values below 2^63 without a libm call (this runs tens of
// times per step estimate).
inline double ceil_pos(double x) {
    const double t = static_cast<double>(static_cast<std::int64_t>(x));
    return t < x ? t + 1.0 : t;
}
inline double floor_pos(double x) { return static_cast<double>(static_cast<std::int64_t>(x)); }

// Output M×N in tiles of one thread block each, scheduled as NVIDIA/cutlass's heuristic
// decomposition does (include/cutlass/gemm/kernel/tile_scheduler_params.h,
// get_num_sk_tiles; stream-K: Osama et al., arXiv 2301.03598). Whole waves of one tile per
// SM run data-parallel, each tile's main loop over K slowed by the pipeline fill and
// epilogue as K/(K + k_half). A last wave at least half full runs data-parallel too, as a
// whole wave. A smaller one, with the wave before it, is spread stream-K over every SM:
// each SM takes an equal share of their K iterations, and the split tiles pay a fixup.
// Below one wave cuBLAS also spreads the work (split-K, stream-K or narrower tiles: one
// H200's 512×5120×8192, 80 tiles of 128×256 on 132 SMs, ran at the full rate), so fewer
// tiles than SMs are spread as well. Fitted to that H200's 150 cuBLASLt GEMMs
// (docs/model.md "GEMMs") this law leaves 6 % rms where whole waves alone left 20 %.
// Bounded below by moving the operands and the result through HBM once.
// A dimension smaller than the tile gets a tile no wider than it needs (a power of two, at
// least 16, the tensor-core MMA's width): cuBLAS's heuristics pick narrow tiles for skinny
// GEMMs such as LoRA's rank-8..64 adapters, rather than a 256-wide tile mostly idle.
inline double narrow_tile(double tile, double extent) {
    if (extent >= tile) return tile;
    double t = 16;
    while (t < extent && t < tile) t *= 2;
    return std::min(t, tile);
}

// `groups` equal GEMMs in one grouped launch (torch._grouped_mm, CUTLASS grouped GEMM): their
// tiles share the waves.
double gemm_s(const GemmRate& r, double m, double n, double k, double groups = 1) {
    if (!(m > 0 && n > 0 && k > 0)) return 0;
    double compute = 0;
    if (r.sm > 0) {
        const double tile_m = narrow_tile(r.tile_m, m), tile_n = narrow_tile(r.tile_n, n);
        const double tiles = groups * ceil_pos(m / tile_m) * ceil_pos(n / tile_n);
        const double full = floor_pos(tiles / r.sm), tail = tiles - full * r.sm;
        double k_steps = 0;
        if (tail == 0 || (full >= 1 && 2 * tail >= r.sm)) {
            k_steps = ceil_pos(tiles / r.sm) * (k + r.k_half);
        } else {
            const double data_parallel = full >= 1 ? full - 1 : 0;
            const double streamed = tiles - data_parallel * r.sm;
            k_steps = data_parallel * (k + r.k_half) + streamed * k / r.sm + (1 + kStreamKFixupEpilogues) * r.k_half;
        }
        compute = k_steps * 2.0 * tile_m * tile_n / (r.peak / r.sm * r.eta);
    } else {
        compute = groups * 2.0 * m * n * (k + r.k_half) / (r.peak * r.eta);
    }
    const double bytes = groups * (r.in_bytes * (m * k + k * n) + r.out_bytes * m * n);
    return std::max(compute, bytes / r.bandwidth);
}

struct GemmPasses {
    double forward = 0, dgrad = 0, wgrad = 0;
};

// A layer's op at `tokens`: its share of the layers folded in (the mean layer's time).
GemmPasses gemm_passes(const GemmRate& bf16, const GemmRate& fp8, const GemmOp& g, double tokens) {
    const GemmRate& r = g.fp8 ? fp8 : bf16;
    const double m = tokens * g.rows / g.groups;
    // Looped experts are separate launches: each quantizes its own waves.
    const double launches = g.looped ? g.groups : 1.0, grouped = g.looped ? 1.0 : g.groups;
    const double w = g.share * launches;
    return {w * gemm_s(r, m, g.n, g.k, grouped), w * gemm_s(r, m, g.k, g.n, grouped),
            g.frozen ? 0.0 : w * gemm_s(r, g.k, g.n, m, grouped)};
}

// The adapters of one layer (docs/model.md "Fine-tuning methods"; PEFT v0.20.0
// src/peft/tuners/lora/layer.py Linear.forward, torchtune modules/peft/lora.py):
// result + lora_B(lora_A(x)) * scaling is two small GEMMs, a scale and an add per adapted
// linear (4 + 6 B per output element forward; backward the scale's 4 B and the input
// gradient's sum of both branches, 6 B per input element). fp32 adapters (PEFT's default)
// cast their input to fp32 and autocast casts it back (6 + 6 B per input element each
// way). DoRA (PEFT lora/dora.py) builds ΔW each forward as lora_B(lora_A(I)) (an in × in
// identity through both adapters: two GEMMs) and the detached norm of W + s·ΔW per output
// row (the base weight upcast to the adapters' dtype, the sum, the squares: about 22 B per
// weight in fp32, 11 in bf16), then scales the base and adapter outputs by the magnitude
// per token (14 B per output element forward, 28 backward).
// A base stored below bf16 is upcast before each forward and backward GEMM (read its
// bytes, write 2 B per weight; bitsandbytes MatMul4Bit, torchao linear_nf4) and again when
// checkpointing recomputes the layer: at the copy law's rate (not measured: an assumption).
void plan_adapters(OperationPlan& o, const FineTuningPlan& ft, const TrainingConfig& c) {
    const bool fp32_adapters = ft.fp32_input_casts;
    for (int i = 0; i < ft.adapted_count; ++i) {
        const AdaptedLinear& a = ft.adapted[static_cast<std::size_t>(i)];
        o.adapter_gemms[static_cast<std::size_t>(o.adapter_gemm_count++)] = {ft.rank, a.in};
        o.adapter_gemms[static_cast<std::size_t>(o.adapter_gemm_count++)] = {a.out, ft.rank};
        // Compiled, the scale and the add are one kernel (6 B per output element) and the
        // input gradient's sum is read into the kernel that follows (2 B more per element).
        const bool compiled = c.torch_compile;
        o.layer_forward_bytes_per_token += (compiled ? 6 : 10) * a.out + (fp32_adapters ? 12 * a.in : 0.0);
        o.layer_backward_bytes_per_token += 4 * a.out + (compiled ? 2 : 6) * a.in + (fp32_adapters ? 12 * a.in : 0.0);
        o.layer_forward_kernels += (compiled ? 3 : 4) + (fp32_adapters ? 2 : 0);
        o.layer_backward_kernels += (compiled ? 5 : 6) + (fp32_adapters ? 2 : 0);
        if (ft.dora) {
            o.dora_adapted[static_cast<std::size_t>(o.dora_count++)] = a;
            o.dora_rank = ft.rank;
            const bool fp32 = c.master_weights == MasterWeights::fp32;  // the adapters' dtype
            o.layer_forward_fixed_bytes += (fp32 ? 22.0 : 11.0) * a.in * a.out + (fp32 ? 4.0 : 2.0) * a.in * a.in;
            o.layer_forward_bytes_per_token += 14 * a.out;
            o.layer_backward_bytes_per_token += 28 * a.out;
            o.layer_forward_kernels += 7;
            o.layer_backward_kernels += 4;
        }
    }
    if (ft.quantized_per_layer > 0) {
        const double upcast = (ft.stored_bytes + 2.0) * ft.quantized_per_layer;
        o.layer_forward_fixed_bytes += upcast;
        o.layer_backward_fixed_bytes += upcast;
        o.layer_recompute_fixed_bytes = upcast;
        o.layer_forward_kernels += o.layer_gemm_count;
        o.layer_backward_kernels += o.layer_gemm_count;
    }
}

double attention_rate(const HardwareProfile& hw, const Calibration& cal, double head_dim, double seq_len, bool backward,
                      AttentionKernel kernel) {
    // The law is the calibration's kernel (cal.attention_kernel): another kernel runs at the
    // ratio of their published rates and at its own half length; the measured kernel
    // itself at exactly the law, so a harness calibration that timed cuDNN's SDPA is not
    // scaled by cuDNN's ratio a second time.
    const AttentionLaw& a = cal.attention;
    const KernelLaw k = kernel_law(kernel), base = kernel_law(cal.attention_kernel);
    const double eta_max = backward ? a.backward_eta_max * k.backward_ratio / base.backward_ratio
                                    : a.forward_eta_max * k.forward_ratio / base.forward_ratio;
    const double half = kernel == cal.attention_kernel ? (backward ? a.backward_half_seq : a.forward_half_seq)
                                                       : (backward ? k.backward_half_seq : k.forward_half_seq);
    const double c = a.head_dim_half;
    const double head = (head_dim / (head_dim + c)) / (128.0 / (128.0 + c));
    return hw.peak_flops() * eta_max * cal.framework_efficiency * head * seq_len / (seq_len + half);
}

// Attended keys per query and the length that sets the kernel's efficiency, for a layer
// with a sliding window over documents of length 2·span (a causal sequence of s tokens
// has span s/2).
struct Span {
    double keys = 0, length = 0;
};

Span windowed(double span, double window) {
    const double doc = 2.0 * span;
    if (!(window > 0) || window >= doc) return {span, doc};
    // Position i attends min(i, w) keys: mean over the document ≈ w − w²/(2·doc).
    return {window - window * window / (2.0 * doc), window};
}

}  // namespace

// transformers' eager experts loop over the experts (v5 main @008e5743
// modeling_qwen3_moe.py Qwen3MoeSparseMoeBlock.forward: `for expert_idx in expert_hit`);
// torchtitan and compiled code run grouped GEMMs.
ExpertLayout expert_layout(const TrainingConfig& c) noexcept {
    return {static_cast<double>(std::max<std::int64_t>(c.expert_parallel, 1)), std::max(c.expert_imbalance, 1.0),
            c.implementation == Implementation::transformers && !c.torch_compile};
}

LayerGemms layer_gemms(const ModelSpec& m, bool fp8, const ExpertLayout& experts) {
    LayerGemms g;
    const double d = static_cast<double>(m.hidden_size), f = static_cast<double>(m.intermediate_size);
    const double q = static_cast<double>(m.q_width()), kv = static_cast<double>(m.kv_width());
    const double moe_share = detail::moe_share(m);
    // Call order matters: torchtitan's op-level checkpointing saves the output of every
    // other matmul (the 1st, 3rd, ...) and recomputes the rest (torchtitan
    // models/llama3 parallelize: _apply_ac_to_transformer_block, "mm_count % 2").
    const auto add = [&](double n, double k, bool bias, double share = 1, double rows = 1, double groups = 1,
                         bool looped = false, bool cast = true) {
        const int index = g.count;
        g.gemms[static_cast<std::size_t>(g.count++)] = {n,     k,    cast && fp8, bias,  index % 2 == 1,
                                                        false, rows, groups,      share, looped};
    };
    if (m.fused_qkv) {
        add(q + 2 * kv, d, m.qkv_bias);
    } else {
        add(q, d, m.qkv_bias);
        add(kv, d, m.qkv_bias);
        add(kv, d, m.qkv_bias);
    }
    for (int i = 0; i < g.count; ++i) g.gemms[static_cast<std::size_t>(i)].reads_block_input = true;
    add(d, q, m.o_bias);
    const int mlp_first = g.count;
    if (moe_share < 1) {
        const double dense = 1 - moe_share;
        if (m.mlp == MlpKind::gated) {
            if (m.fused_gate_up) {
                add(2 * f, d, m.mlp_bias, dense);
            } else {
                add(f, d, m.mlp_bias, dense);
                add(f, d, m.mlp_bias, dense);
            }
        } else {
            add(f, d, m.mlp_bias, dense);
        }
        for (int i = mlp_first; i < g.count; ++i) g.gemms[static_cast<std::size_t>(i)].reads_block_input = true;
        add(d, f, m.mlp_bias, dense);
    }
    if (moe_share > 0) {
        // A mixture-of-experts layer (torchtitan b5bcd76c models/common/moe.py MoE.forward;
        // transformers' *SparseMoeBlock): the router, then each routed token through its
        // experts' w1 (gate), w3 (up) and w2 (down), grouped by expert; then the shared
        // expert (and Qwen2-MoE's d × 1 gate on it). The experts' weights are Parameters, not
        // nn.Linear: torchao's Float8Linear does not convert them, so they stay bf16.
        const double fe = static_cast<double>(m.moe_intermediate_size);
        const double fs = static_cast<double>(m.shared_expert_intermediate_size);
        const double local = static_cast<double>(m.num_experts) / std::max(experts.expert_parallel, 1.0);
        const double rows = detail::routed_rows(m, experts.imbalance);
        add(static_cast<double>(m.num_experts), d, false, moe_share, 1, 1, false, false);
        add(fe, d, false, moe_share, rows, local, experts.looped, false);
        add(fe, d, false, moe_share, rows, local, experts.looped, false);
        add(d, fe, false, moe_share, rows, local, experts.looped, false);
        if (fs > 0) {
            add(fs, d, false, moe_share);
            add(fs, d, false, moe_share);
            add(d, fs, false, moe_share);
        }
        if (m.shared_expert_gate) add(1, d, false, moe_share, 1, 1, false, false);
    }
    return g;
}

double LayerGemms::kept_outputs() const {
    double n = 0;
    for (int i = 0; i < count; ++i) {
        const GemmOp& op = gemms[static_cast<std::size_t>(i)];
        if (!op.selective_recompute) n += op.n * op.rows * op.share;
    }
    return n;
}

double LayerGemms::recomputed_flops() const {
    double flops = 0;
    for (int i = 0; i < count; ++i) {
        const GemmOp& op = gemms[static_cast<std::size_t>(i)];
        if (op.selective_recompute) flops += 2.0 * op.n * op.k * op.rows * op.share;
    }
    return flops;
}

namespace {

// The memory-bound work and launches of a mixture-of-experts layer beside its GEMMs, per
// token of the rank, as a mean over the layers (torchtitan b5bcd76c models/common/moe.py and
// token_dispatcher.py; transformers modeling_qwen3_moe.py Qwen3MoeSparseMoeBlock). Router:
// softmax over E in fp32 (read the bf16 logits, write fp32: 6 B per expert), top-k (read
// 4 B) and the gather of the chosen scores; backward the softmax's gradient (read 8, write
// 4, cast 6: 18 B per expert). Dispatch: the k routed copies of each token gathered into
// expert order (read and write 2 B per element of k × d); combine: each expert output
// scaled by its score (read 2, write 2) and scatter-added into the token's row (read 2 of k ×
// d, read and write the d-row: 4 B per element of d, plus its zero-fill); backward the
// transposes: the gradient gathered back (4 B per k × d), scaled (4), scattered (4). The
// gated activation on k expert widths (and the shared expert's) as the dense MLP's. The
// busiest rank's tokens (imbalance) set the time. Counted from the code, at the copy law's
// rate (not measured).
void plan_experts(OperationPlan& o, const ModelSpec& m, const TrainingConfig& c, const ExpertLayout& x,
                  double act_forward, double act_backward) {
    const double share = detail::moe_share(m);
    const double d = static_cast<double>(m.hidden_size), E = static_cast<double>(m.num_experts);
    const double routed = detail::routed_rows(m, x.imbalance);  // rows per token
    const double width =
        routed * static_cast<double>(m.moe_intermediate_size) + static_cast<double>(m.shared_expert_intermediate_size);
    o.layer_forward_bytes_per_token += share * (10 * E + 4 * routed * d + 8 * routed * d + 6 * d + act_forward * width);
    o.layer_backward_bytes_per_token += share * (18 * E + 12 * routed * d + 2 * d + act_backward * width);
    // Launches: router softmax, top-k, score gather, token counts, permutation indices (3),
    // gather, activation and product, score scale, scatter-add and its zero-fill (13
    // forward, about twice backward). Looped experts (transformers' loop) add per local
    // expert: torch.where on its mask, which syncs with the host (nonzero), the index, the
    // activation, the product, the score scale, the cast and index_add_ (7); in backward
    // about twice that, without syncs.
    const double local = E / std::max(x.expert_parallel, 1.0);
    const double fused = c.torch_compile ? 0.5 : 1.0;
    o.layer_forward_kernels += share * 13 * fused;
    o.layer_backward_kernels += share * 26 * fused;
    if (x.looped) {
        o.layer_forward_kernels += share * local * 6;
        o.layer_backward_kernels += share * local * 14;
        o.layer_forward_serial_kernels += share * local * 7;
    } else if (x.expert_parallel > 1) {
        // torchtitan's all-to-all dispatcher reads the exchanged token counts on the host
        // (token_dispatcher.py _sync_token_count_exchange: `input_splits.tolist()`) to size
        // the token all-to-all: the dispatch's permutation, the three grouped GEMMs, the
        // combine and its all-to-all (about 10 launches) wait for the GPU.
        o.layer_forward_serial_kernels += share * 10;
    }
}

}  // namespace

// One tensor-parallel rank's plan: `m` and `p` are its slice (tensor_parallel_slice).
OperationPlan detail::rank_operations(const ModelSpec& m, const ParameterCounts& p, const TrainingConfig& c) {
    OperationPlan o;
    // Ring attention over context-parallel ranks runs each block on a chunk of the sequence;
    // Ulysses runs the whole sequence for 1/cp of the heads (the same work per rank).
    o.attention_chunks = c.context_parallel_method == ContextParallelMethod::ulysses
                             ? 1.0
                             : static_cast<double>(std::max<std::int64_t>(c.context_parallel, 1));
    const double d = static_cast<double>(m.hidden_size), f = static_cast<double>(m.intermediate_size);
    const double q = static_cast<double>(m.q_width()), kv = static_cast<double>(m.kv_width());
    const double V = static_cast<double>(m.vocab_size), ew = static_cast<double>(m.embed_width());
    const bool fp8 = c.precision == Precision::fp8;
    o.checkpointing = c.activation_checkpointing;
    o.checkpointed_fraction =
        m.num_layers > 0 ? static_cast<double>(checkpointed_layers(c, m.num_layers)) / static_cast<double>(m.num_layers)
                         : 1.0;
    o.attention_kernel = c.attention_kernel;
    o.layers = static_cast<double>(m.num_layers);

    const ExpertLayout experts = expert_layout(c);
    const LayerGemms gemms = layer_gemms(m, fp8, experts);
    o.layer_gemms = gemms.gemms;
    o.layer_gemm_count = gemms.count;
    const FineTuningPlan ft = plan_fine_tuning(m, p, c);
    for (int i = 0; i < o.layer_gemm_count; ++i) o.layer_gemms[static_cast<std::size_t>(i)].frozen = ft.peft;

    // Memory-bound kernels of a layer: bytes read + written per element (docs/model.md
    // "Memory-bound work" itemizes each). Eager PyTorch runs RMSNorm as a chain of
    // upcast, pow, mean, rsqrt, mul, downcast and weight multiply (36 B per element
    // forward, twice that backward, 7 and 10 kernels); LayerNorm is one native kernel
    // (read x, write y; backward reads x and dy twice and writes dx); rotary on q and k is
    // five elementwise kernels (about 20 B per element each way); a gated activation is
    // silu then multiply (10 B per element of f; backward 16); residual adds read two
    // tensors and write one. torch.compile fuses each chain into one kernel and the
    // residual add into the norm that follows it.
    const EagerOrCompiled& k = c.torch_compile ? kCompiled : kEager;
    // Sequence parallel: each tensor-parallel rank normalizes and adds the residuals of
    // 1/tp of the tokens (Korthikanti et al., arXiv 2205.05198 §4.2.2); without it every
    // rank repeats them on all tokens. Attention's and the MLP's elementwise work is on the
    // rank's heads and intermediate slice already.
    const double sp = c.tensor_parallel > 1 && c.sequence_parallel ? 1.0 / static_cast<double>(c.tensor_parallel) : 1.0;
    const double norms = static_cast<double>(m.norms_per_layer);
    const bool qk = m.qk_norm != QkNorm::none, rope = m.positions == Positions::rope;
    const bool gated = m.mlp == MlpKind::gated, rms = m.norm == NormKind::rms;
    const double qkv_width = q + kv;
    // The chains of the implementation that runs (compiled code fuses them all alike).
    const Implementation impl = c.torch_compile ? Implementation::generic : c.implementation;
    double norm_f = rms ? k.rms_forward : k.layer_forward, norm_b = rms ? k.rms_backward : k.layer_backward;
    double norm_kf = rms ? k.rms_forward_kernels : 1, norm_kb = rms ? k.rms_backward_kernels : 2;
    double rope_f = k.rope, rope_b = k.rope, rope_kf = k.rope_kernels, rope_kb = k.rope_kernels;
    double residual_f = 2 * k.residual, residual_b = 2 * k.residual;
    double residual_kf = 2 * k.residual_kernels, residual_kb = 2 * k.residual_kernels;
    double gated_b = k.gated_backward, loss_f = 18, loss_b = 22, rate = 1;
    if (impl == Implementation::transformers && rms) {
        // Hugging Face transformers v5.17.0, models/qwen3/modeling_qwen3.py (Llama's alike):
        // RMSNorm in fp32, x.to(fp32), pow, mean, rsqrt, mul, to(bf16), weight mul: 36 B per
        // element forward in 8 kernels, 92 B backward in 16; rotary (mul cos, neg, cat, mul
        // sin, add) 20 B forward, 30 B backward in 9 kernels, plus 4 B for the clone of the
        // per-head view's gradient with q/k-norm; the MLP input's, the attention input's
        // and the residuals' gradients accumulate in 5 adds (30 B per element of d).
        // Measured on one H200 (calibration/data/measured/h200-2026-12-04/PROFILE.md):
        // these kernels, many of them TensorIterator's non-vectorized broadcast path,
        // moved 339.7 GB in 129.9 ms, 2.62 TB/s against the same profile's device-to-
        // device memcpy at 4.20 TB/s: their bytes count at 0.62 of the copy law.
        norm_f = 36, norm_b = 92, norm_kf = 8, norm_kb = 16;
        rope_f = 20, rope_b = 30 + (qk ? 4 : 0), rope_kf = 5, rope_kb = qk ? 10 : 9;
        residual_b = 30, residual_kb = 5;
        gated_b = 18;
        loss_f = 14, loss_b = 22;  // loss/loss_utils.py: logits.float() 6 + log-softmax 8; zeros 4 + 12 + 6
        rate = kTransformersElementwiseRate;
        o.recompute_early_stop = true;
        o.recompute_skipped_bytes_per_token = 6 * d;  // the second residual add
    } else if (impl == Implementation::transformer_engine && rms) {
        // NVIDIA/TransformerEngine @0dc141cf: te.pytorch.RMSNorm is one fused kernel each way
        // (read x, write y; backward read dy and x, write dx), and FusedRoPEFunc
        // (transformer_engine/pytorch/attention/rope.py, the fused path NeMo's rope_fusion
        // selects) one kernel forward (read t, write the rotated t: 4 B per q/k element) and one
        // backward (4 B); residual adds and their gradients' accumulation are eager PyTorch, as
        // torchtitan's. Its kernels' rate is not measured: the copy law's (an assumption).
        norm_f = 4, norm_b = 6, norm_kf = 1, norm_kb = 2;
        rope_f = 4, rope_b = 4, rope_kf = 1, rope_kb = 1;
        residual_b = 30, residual_kb = 5;
        gated_b = 18;
        loss_f = 14, loss_b = 22;
    } else if (impl == Implementation::torchtitan && rms) {
        // pytorch/torchtitan@b5bcd76c: nn.RMSNorm runs PyTorch's fused RMSNorm kernel (read x,
        // write y; backward read dy and x, write dx); rotary is complex64 for Llama 3
        // (cast, complex mul, cast: 20 B each way in 3 kernels) and fp32 cos/sin for Qwen3
        // (models/common/rope.py CosSinRoPE: 52 B forward in 7 kernels, 72 B backward in 11);
        // checkpointing recomputes the whole layer (early_stop=False). Its kernels' rate is
        // not measured: the copy law's (an assumption).
        norm_f = 4, norm_b = 6, norm_kf = 1, norm_kb = 2;
        rope_f = qk ? 52 : 20, rope_b = qk ? 72 : 20, rope_kf = qk ? 7 : 3, rope_kb = qk ? 11 : 3;
        residual_b = 30, residual_kb = 5;
        gated_b = 18;
        loss_f = 14, loss_b = 22;  // components/loss.py: cross_entropy(pred.float()), as transformers
    }
    // The dense MLP's activation on the layers that have one (plan_experts adds the experts').
    const double dense_f = m.moe() ? f * static_cast<double>(m.dense_layers()) / static_cast<double>(m.num_layers) : f;
    o.layer_forward_bytes_per_token = sp * (norms * norm_f * d + residual_f * d) + (qk ? norm_f * qkv_width : 0) +
                                      (rope ? rope_f * qkv_width : 0) +
                                      (gated ? k.gated_forward : k.plain_forward) * dense_f;
    o.layer_backward_bytes_per_token = sp * (norms * norm_b * d + residual_b * d) + (qk ? norm_b * qkv_width : 0) +
                                       (rope ? rope_b * qkv_width : 0) + (gated ? gated_b : k.plain_backward) * dense_f;
    o.recompute_skipped_bytes_per_token *= sp;
    o.layer_forward_kernels = norms * norm_kf + (qk ? 2 * norm_kf : 0) + (rope ? 2 * rope_kf : 0) +
                              (gated ? k.gated_kernels : 1) + residual_kf + 1;  // + attention
    o.layer_backward_kernels = norms * norm_kb + (qk ? 2 * norm_kb : 0) + (rope ? 2 * rope_kb : 0) +
                               (gated ? k.gated_kernels + 1 : 1) + residual_kb + 3;  // + attention (3)
    if (m.moe())
        plan_experts(o, m, c, experts, gated ? k.gated_forward : k.plain_forward, gated ? gated_b : k.plain_backward);
    o.layer_forward_bytes_per_token /= rate;
    o.layer_backward_bytes_per_token /= rate;
    o.recompute_skipped_bytes_per_token /= rate;
    for (int i = 0; i < o.layer_gemm_count; ++i) {
        const GemmOp& g = o.layer_gemms[static_cast<std::size_t>(i)];
        const double launches = g.share * (g.looped ? g.groups : 1.0);
        o.layer_forward_kernels += launches;
        o.layer_backward_kernels += 2 * launches;
        if (g.bias) {
            o.layer_backward_bytes_per_token += kAct * g.n;  // dY summed over tokens
            o.layer_backward_kernels += 1;
        }
        if (g.fp8) {
            // torchao Float8Linear, tensorwise: forward takes X's amax (read 2 B) and casts it
            // (read 2, write 1); backward casts dY for dgrad and, transposed, for wgrad (8 B)
            // and transposes X's fp8 copy for wgrad (2 B). The weight is cast once per
            // micro-batch (amax, cast, transposed copy: 7 B), or only transposed when FSDP
            // already gathered it in fp8. Compiled, each amax is fused into the kernel that
            // produces the tensor (3 B for X, 6 for dY, 5 for the weight).
            o.layer_forward_bytes_per_token += (c.torch_compile ? 3 : 5) * g.k;
            o.layer_backward_bytes_per_token += (c.torch_compile ? 6 : 8) * g.n + 2 * g.k;
            o.layer_forward_fixed_bytes += (c.fp8_all_gather ? 2 : (c.torch_compile ? 5 : 7)) * g.k * g.n;
            o.layer_forward_kernels += c.torch_compile ? 1 : 3;
            o.layer_backward_kernels += c.torch_compile ? 2 : 3;
        }
    }
    if (c.tensor_parallel > 1 && c.sequence_parallel) {
        // Sequence parallel's redistributions (torchtitan's plan: PrepareModuleInput from
        // Shard(1) to Replicate before attention and the MLP, RowwiseParallel to Shard(1)
        // after them) go through torch/distributed/_functional_collectives.py: NCCL gathers
        // and scatters along dim 0 while the sequence is dim 1, so all_gather_tensor
        // rearranges its output with torch.cat(torch.chunk(...)) and reduce_scatter_tensor
        // its input (read and write the gathered tensor: 2 × its bytes per element). Two
        // gathers and two scatters a layer forward, the transposed pair on the gradients
        // (bf16) backward; recomputed with the layer. Float8 tensorwise TP (torchao
        // float8/float8_tensor_parallel.py PrepareFloat8ModuleInput) casts a module's input
        // once, on the rank's 1/tp of the tokens, before the gather (fp8, 1 B): the linears
        // that read that input (reads_block_input) take it cast instead of casting it each.
        const double gathered = fp8 ? 1.0 : kAct;
        const double rearranged = 2 * (2 * gathered * d) + 2 * (2 * kAct * d);
        o.layer_backward_bytes_per_token += 4 * (2 * kAct * d);
        o.layer_backward_kernels += 4;
        if (c.async_tensor_parallel) {
            // The forward's fused collectives (step_model.cpp) skip the rearranging: a
            // gather copies the rank's own chunk (1/tp of the tokens) into its symmetric
            // buffer, a scatter sums the tp partials it received (reads the tokens' whole
            // width, writes its 1/tp). Each launches its chunks' matmuls and copies and the
            // barriers between: about 2·tp. Full checkpointing's recompute is that forward
            // again; op-level checkpointing's, and backward, rearrange as without async.
            const double fused = 2 * (2 * gathered * d * sp) + 2 * (kAct * d * (1 + sp));
            o.layer_forward_bytes_per_token += fused;
            if (c.activation_checkpointing == Checkpointing::selective)
                o.layer_backward_bytes_per_token += o.checkpointed_fraction * (rearranged - fused);
            o.layer_forward_kernels += 8.0 * static_cast<double>(c.tensor_parallel);
        } else {
            o.layer_forward_bytes_per_token += rearranged;
            o.layer_forward_kernels += 4;
        }
        if (fp8) {
            const double cast = c.torch_compile ? 3 : 5, cast_kernels = c.torch_compile ? 1 : 3;
            for (int i = 0; i < o.layer_gemm_count; ++i) {
                const GemmOp& g = o.layer_gemms[static_cast<std::size_t>(i)];
                if (!g.fp8 || !g.reads_block_input) continue;
                o.layer_forward_bytes_per_token -= cast * g.k;
                o.layer_forward_kernels -= cast_kernels;
            }
            o.layer_forward_bytes_per_token += 2 * cast * d * sp;
            o.layer_forward_kernels += 2 * cast_kernels;
        }
    }
    if (const double kv_copies = detail::ulysses_kv_copies(m, c); kv_copies > 0) {
        // Ulysses (DeepSpeed ALST UlyssesSPAttentionHF): q, k and v each rearranged into a
        // contiguous [ranks, tokens, heads] buffer before their all-to-all and into
        // [batch, heads, sequence, dim] after it, the output likewise around its own: two
        // copies of each (2 × 2 B per element, key/value heads repeated first when fewer than
        // cp), backward the same on the gradients; recomputed with the layer.
        const double copied = 2 * (2 * kAct) * (2 * q + 2 * kv * kv_copies);
        o.layer_forward_bytes_per_token += copied;
        o.layer_backward_bytes_per_token += copied;
        o.layer_forward_kernels += 8;
        o.layer_backward_kernels += 8;
    }
    if (ft.peft) plan_adapters(o, ft, c);
    // FSDP2's copies on the compute stream (torch 2.11, torch/distributed/fsdp/_fully_shard/;
    // docs/model.md "FSDP2's copies"). Per gather, foreach_all_gather_copy_out splits the
    // gathered buffer into the parameters (read and write the gathered bytes); the fp32 →
    // bf16 cast and the copy-in run on the all-gather streams, beside compute. With one GPU
    // FSDPParamGroup.unshard gathers nothing: wait_for_unshard casts each fp32 shard to bf16
    // (6 B per parameter at 0.80 of a copy: 3.37 TB/s on one H200 against its 4.20 TB/s
    // memcpy) and copies it (4 B). Per reduction, chunk_cat lays the bf16 gradients out in
    // the reduce dtype (2 + 2 or 4 B per parameter, at 0.46 of a copy: 1.95 TB/s), and with
    // one GPU the reduce-scatter is a device-to-device copy of that buffer (2 × reduce B).
    // The root unit (embeddings, final norm, output head) is gathered once a micro-batch:
    // FSDP2 keeps the root unsharded after forward. The generic implementation keeps the
    // copy-out alone, as the published series were validated with (docs/model.md).
    if (c.strategy == Strategy::fsdp || c.strategy == Strategy::hsdp) {
        // Under expert parallel a rank gathers E / ep experts of each MoE layer (torchtitan's
        // efsdp), not E: the mean layer's gathered bytes lose that share.
        const double cut = detail::moe_share(m) * detail::routed_experts_not_held(p, c.expert_parallel);
        const double matmul = static_cast<double>(p.per_layer_matmul) - cut;
        const double rest = static_cast<double>(p.per_layer - p.per_layer_matmul);
        // A gathered layer's bytes read and written (fp8 all-gather: its matmul weights in 1 B).
        double copy_out = 2.0 * ((c.fp8_all_gather && fp8 ? 1.0 : 2.0) * matmul + 2.0 * rest);
        // Under a frozen base the gathered bytes are its stored weights and the adapters' bf16.
        if (ft.peft) copy_out = 2.0 * (ft.frozen_layer_bytes + 2.0 * ft.trained_per_layer);
        o.layer_forward_kernels += 1;
        o.copy_out_kernels = 1;
        if (c.implementation == Implementation::generic) {
            o.fsdp_layer_forward_bytes = copy_out;
            o.fsdp_layer_backward_bytes = c.reshard_after_forward ? copy_out : 0.0;
            if (c.reshard_after_forward) o.layer_backward_kernels += 1;
        } else {
            // One GPU in the shard group (the only data-parallel rank of a tensor-parallel group).
            const bool one_gpu = c.gpus == std::max<std::int64_t>(c.tensor_parallel, 1);
            // Cast and reduce only what is trained (all of it in a full fine-tune).
            const double layer = ft.trained_per_layer - cut, root = ft.trained_root;
            // Per parameter: the one-GPU cast of fp32 shards, and a reduction's chunk_cat (and its
            // one-GPU copy standing in for the reduce-scatter).
            const double cast = one_gpu && c.master_weights == MasterWeights::fp32 ? 6.0 / kCastRate : 0.0;
            const double rb = static_cast<double>(c.reduce_bytes);
            const double reduce = (2.0 + rb) / kChunkCatRate + (one_gpu ? 2.0 * rb : 0.0);
            o.fsdp_layer_forward_bytes = cast * layer + copy_out;
            o.fsdp_layer_backward_bytes = (c.reshard_after_forward ? o.fsdp_layer_forward_bytes : 0.0) + reduce * layer;
            o.fsdp_root_gather_bytes =
                ft.peft ? cast * root + 2.0 * (ft.frozen_root_bytes + 2.0 * root) : (cast + 4.0) * root;
            o.fsdp_root_reduce_bytes = reduce * root;
            o.layer_backward_kernels += c.reshard_after_forward ? 2 : 1;
        }
    }

    o.attention_width = q;
    o.head_dim = static_cast<double>(m.head_dim);
    o.window = static_cast<double>(m.sliding_window);
    o.window_layers = m.sliding_window > 0 ? static_cast<double>(m.sliding_window_layers) : 0.0;

    // Head: final norm, optional soft-capping, then the loss over the vocabulary. Eager
    // cross-entropy on fp32 logits (torch.nn.functional.cross_entropy(logits.float())):
    // forward casts (read 2, write 4) and log-softmaxes (two reads of 4, write 4) = 18 B
    // per logit; backward zero-fills the NLL gradient (4), runs log_softmax_backward (read
    // 8, write 4) and casts back (read 4, write 2) = 22 B. A fused loss reads the bf16
    // logits twice and writes their bf16 gradient: 6 B.
    const bool eager = c.loss_kernel == LossKernel::eager;
    const bool softcap = m.final_logit_softcap > 0;
    const bool frozen_root = ft.peft && !c.train_embeddings;
    o.head_gemm = {V, ew, false, m.lm_head_bias, false, frozen_root};
    if (m.embed_proj_dim > 0) {
        o.project_gemm = {ew, d, false, false, false, frozen_root};
        o.embed_gemm = {d, ew, false, false, false, frozen_root};
    }
    o.loss_forward_bytes_per_token = (eager ? loss_f : 6) * V / rate;
    o.loss_backward_bytes_per_token = (eager ? loss_b : 0) * V / rate;
    o.head_forward_bytes_per_token =
        ((m.final_norm ? sp * norm_f * d : 0) + (softcap ? kAct * 2 * V : 0)) / rate + o.loss_forward_bytes_per_token;
    o.head_backward_bytes_per_token =
        ((m.final_norm ? sp * norm_b * d : 0) + (softcap ? kAct * 3 * V : 0) + (m.lm_head_bias ? kAct * V : 0)) / rate +
        o.loss_backward_bytes_per_token;
    if (c.tensor_parallel > 1 && c.sequence_parallel) {
        // The output head's input gathered from Shard(1): one rearranging copy each way (see
        // the layer's above).
        o.head_forward_bytes_per_token += 2 * kAct * d;
        o.head_backward_bytes_per_token += 2 * kAct * d;
    }
    const double head_gemms = m.embed_proj_dim > 0 ? 2 : 1;
    o.head_forward_kernels = (m.final_norm ? norm_kf : 0) + (softcap ? 1 : 0) + (eager ? 3 : 1) + head_gemms;
    o.head_backward_kernels =
        (m.final_norm ? norm_kb : 0) + (softcap ? 1 : 0) + (eager ? 3 : 0) + 2 * head_gemms + (m.lm_head_bias ? 1 : 0);

    // Embedding: a lookup (read and write a row per token), plus a learned position table
    // added in; backward zero-fills the table's bf16 gradient once per micro-batch and
    // accumulates each token's row into it.
    const bool learned = m.positions == Positions::learned;
    o.embed_forward_bytes_per_token = kAct * (2 * ew + (learned ? 3 * ew : 0));
    o.embed_backward_bytes_per_token = kAct * (3 * ew + (learned ? 3 * ew : 0));
    o.embed_backward_fixed_bytes =
        kAct * (V * ew + (learned ? static_cast<double>(m.position_embedding_rows) * ew : 0));
    o.embed_forward_kernels = 1 + (learned ? 2 : 0) + (m.embed_proj_dim > 0 ? 1 : 0);
    o.embed_backward_kernels = 2 + (learned ? 2 : 0) + (m.embed_proj_dim > 0 ? 2 : 0);
    if (c.tensor_parallel > 1 && c.sequence_parallel) {  // its output scattered to Shard(1) (RowwiseParallel)
        o.embed_forward_bytes_per_token += 2 * kAct * d;
        o.embed_backward_bytes_per_token += 2 * kAct * d;
    }
    if (frozen_root) {  // a frozen table has no gradient to fill: autograd stops at the first layer
        o.embed_backward_bytes_per_token = 0;
        o.embed_backward_fixed_bytes = 0;
        o.embed_backward_kernels = 0;
    }
    return o;
}

OperationPlan plan_operations(const ModelSpec& m, const ParameterCounts& p, const TrainingConfig& c) {
    if (c.tensor_parallel <= 1) return detail::rank_operations(m, p, c);
    const ModelSpec slice = tensor_parallel_slice(m, c.tensor_parallel);
    return detail::rank_operations(slice, count_parameters(slice), c);
}

double ComputeTimes::micro_batch_s() const {
    return layers * (layer_forward_s + layer_backward_s) + head_forward_s + head_backward_s + embed_forward_s +
           embed_backward_s;
}

ComputeTimes compute_times(const OperationPlan& o, const HardwareProfile& hw, const Calibration& cal, double t,
                           double span) noexcept {
    ComputeTimes out;
    out.layers = o.layers;
    const GemmRate bf16 = gemm_rate(hw, cal, false), fp8 = gemm_rate(hw, cal, true);
    const double bw = bf16.bandwidth;
    const double L = o.layers;

    // Decoder layer GEMMs.
    double g_fwd = 0, g_bwd = 0, g_sel = 0, n_sel = 0;
    double last_fwd = 0;  // the layer's last GEMM in call order, which early-stopping recompute skips
    for (int i = 0; i < o.layer_gemm_count; ++i) {
        const GemmOp& g = o.layer_gemms[static_cast<std::size_t>(i)];
        const GemmPasses s = gemm_passes(bf16, fp8, g, t);
        g_fwd += s.forward;
        last_fwd = s.forward;
        g_bwd += s.dgrad + s.wgrad;
        if (g.selective_recompute) {
            g_sel += s.forward;
            n_sel += 1;
        }
    }
    // Adapters: trained small GEMMs beside the frozen ones; DoRA's B·A once per forward.
    double adapter_fwd = 0;
    for (int i = 0; i < o.adapter_gemm_count; ++i) {
        const GemmPasses s = gemm_passes(bf16, fp8, o.adapter_gemms[static_cast<std::size_t>(i)], t);
        adapter_fwd += s.forward;
        g_bwd += s.dgrad + s.wgrad;
    }
    for (int i = 0; i < o.dora_count; ++i) {
        const AdaptedLinear& a = o.dora_adapted[static_cast<std::size_t>(i)];
        adapter_fwd += gemm_s(bf16, a.in, o.dora_rank, a.in) + gemm_s(bf16, a.in, a.out, o.dora_rank);
    }
    g_fwd += adapter_fwd;
    g_sel += adapter_fwd;  // selective checkpointing: counted as recomputed
    // Attention: global layers and sliding-window layers.
    const double window_layers = std::min(o.window_layers, L), global_layers = L - window_layers;
    const Span full = windowed(span, 0), local = windowed(span, o.window);
    const auto attention = [&](bool backward) {
        const auto one = [&](const Span& s) {
            return attention_time_s(hw, cal, t, o.attention_width, o.head_dim, s.keys, s.length / o.attention_chunks,
                                    backward, o.attention_kernel);
        };
        return L > 0 ? (global_layers * one(full) + window_layers * one(local)) / L : 0.0;
    };
    const double a_fwd = attention(false), a_bwd = attention(true);
    const double m_fwd_tokens = o.layer_forward_bytes_per_token * t / bw;
    const double fsdp_f = o.fsdp_layer_forward_bytes / bw, fsdp_b = o.fsdp_layer_backward_bytes / bw;
    const double m_fwd = m_fwd_tokens + o.layer_forward_fixed_bytes / bw + fsdp_f;
    const double m_bwd = (o.layer_backward_bytes_per_token * t + o.layer_backward_fixed_bytes) / bw + fsdp_b;

    double recompute = 0, recompute_kernels = 0, recompute_gemm = 0, recompute_attention = 0;
    switch (o.checkpointing) {
        case Checkpointing::none: break;
        case Checkpointing::full:
            // The whole layer forward again (its parameters are still gathered); an early-
            // stopping recompute ends before the last GEMM and residual add, whose outputs
            // backward does not need (torch/utils/checkpoint.py, early_stop).
            recompute_gemm = g_fwd - (o.recompute_early_stop ? last_fwd : 0.0);
            recompute_attention = a_fwd;
            recompute = recompute_gemm + a_fwd + m_fwd_tokens + o.layer_recompute_fixed_bytes / bw -
                        (o.recompute_early_stop ? o.recompute_skipped_bytes_per_token * t / bw : 0.0);
            recompute_kernels = o.layer_forward_kernels - o.copy_out_kernels - (o.recompute_early_stop ? 2 : 0);
            break;
        case Checkpointing::selective:
            // The odd-numbered matmuls and every memory-bound op; attention is saved.
            recompute_gemm = g_sel;
            recompute = g_sel + m_fwd_tokens + o.layer_recompute_fixed_bytes / bw;
            recompute_kernels =
                o.layer_forward_kernels - o.copy_out_kernels - static_cast<double>(o.layer_gemm_count) - 1 + n_sel;
            break;
    }
    // Checkpointing every k-th layer recomputes 1/k of the layers: the mean layer pays 1/k.
    const double share = o.checkpointed_fraction;
    recompute *= share;
    recompute_kernels *= share;
    recompute_gemm *= share;
    recompute_attention *= share;
    const double dev_f = g_fwd + a_fwd + m_fwd;
    const double dev_b = g_bwd + a_bwd + m_bwd + recompute;
    const double host_f = o.layer_forward_kernels * cal.kernel_overhead_s + cal.layer_overhead_s;
    const double host_b = (o.layer_backward_kernels + recompute_kernels) * cal.kernel_overhead_s + cal.layer_overhead_s;
    // Launches after a host sync wait for the GPU: their time adds to it (again in a
    // recomputed forward).
    const double serial_f = o.layer_forward_serial_kernels * cal.kernel_overhead_s;
    const double serial_b = o.checkpointing == Checkpointing::full ? share * serial_f : 0.0;
    out.layer_attention_forward_s = a_fwd;
    out.layer_attention_backward_s = a_bwd + recompute_attention;
    out.layer_forward_s = std::max(dev_f, host_f) + serial_f;
    out.layer_backward_s = std::max(dev_b, host_b) + serial_b;

    // Head and embedding.
    const GemmPasses h = gemm_passes(bf16, fp8, o.head_gemm, t);
    const GemmPasses pr = gemm_passes(bf16, fp8, o.project_gemm, t);
    const GemmPasses em = gemm_passes(bf16, fp8, o.embed_gemm, t);
    const double hf_dev = h.forward + pr.forward + o.head_forward_bytes_per_token * t / bw;
    const double hb_dev = h.dgrad + h.wgrad + pr.dgrad + pr.wgrad + o.head_backward_bytes_per_token * t / bw;
    const double ef_dev = em.forward + (o.embed_forward_bytes_per_token * t + o.fsdp_root_gather_bytes) / bw;
    const double eb_dev =
        em.dgrad + em.wgrad +
        (o.embed_backward_bytes_per_token * t + o.embed_backward_fixed_bytes + o.fsdp_root_reduce_bytes) / bw;
    const double tau = cal.kernel_overhead_s;
    out.head_forward_s = std::max(hf_dev, o.head_forward_kernels * tau);
    out.head_backward_s = std::max(hb_dev, o.head_backward_kernels * tau);
    out.embed_forward_s = std::max(ef_dev, o.embed_forward_kernels * tau);
    out.embed_backward_s = std::max(eb_dev, o.embed_backward_kernels * tau);

    out.gemm_s = L * (g_fwd + g_bwd + recompute_gemm) + h.forward + h.dgrad + h.wgrad + pr.forward + pr.dgrad +
                 pr.wgrad + em.forward + em.dgrad + em.wgrad;
    out.attention_s = L * (a_fwd + a_bwd + recompute_attention);
    const double device = L * (dev_f + dev_b) + hf_dev + hb_dev + ef_dev + eb_dev;
    out.memory_s = device - out.gemm_s - out.attention_s;
    out.fsdp_copy_s = L * (fsdp_f + fsdp_b) + (o.fsdp_root_gather_bytes + o.fsdp_root_reduce_bytes) / bw;
    out.loss_s = (o.loss_forward_bytes_per_token + o.loss_backward_bytes_per_token) * t / bw;
    out.host_wait_s = L * (out.layer_forward_s - dev_f + out.layer_backward_s - dev_b) + (out.head_forward_s - hf_dev) +
                      (out.head_backward_s - hb_dev) + (out.embed_forward_s - ef_dev) + (out.embed_backward_s - eb_dev);
    return out;
}

ComputeTimes compute_times(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                           const Calibration& cal, const TrainingConfig& c) noexcept {
    return compute_times(plan_operations(m, p, c), hw, cal, rank_tokens(c), attention_span(c));
}

double gemm_time_s(const HardwareProfile& hw, const Calibration& cal, double m, double n, double k, bool fp8,
                   double groups) noexcept {
    return gemm_s(gemm_rate(hw, cal, fp8), m, n, k, groups);
}

double attention_time_s(const HardwareProfile& hw, const Calibration& cal, double tokens, double width, double head_dim,
                        double span, double seq_len, bool backward, AttentionKernel kernel) noexcept {
    if (!(tokens > 0 && span > 0 && seq_len > 0)) return 0;
    return attention_flops(tokens, width, span, backward) /
           attention_rate(hw, cal, head_dim, seq_len, backward, kernel);
}

double attention_flops(double tokens, double width, double span, bool backward) noexcept {
    // FlashAttention's FLOP count: 4·tokens·(h·d_h)·span forward; backward 2.5× that
    // (Dao, arXiv 2307.08691, benchmark flops(): five matmuls against two).
    return 4.0 * tokens * width * span * (backward ? 2.5 : 1.0);
}

double mean_attended_keys(const ModelSpec& m, double span) noexcept {
    const double L = static_cast<double>(m.num_layers);
    if (!(L > 0) || m.sliding_window <= 0) return span;
    const double w = std::min(static_cast<double>(m.sliding_window_layers), L);
    return ((L - w) * span + w * windowed(span, static_cast<double>(m.sliding_window)).keys) / L;
}

Calibration with_attention_kernel(const Calibration& cal, AttentionKernel to) noexcept {
    if (to == cal.attention_kernel) return cal;
    Calibration c = cal;
    const KernelLaw k = kernel_law(to), base = kernel_law(cal.attention_kernel);
    c.attention.forward_eta_max *= k.forward_ratio / base.forward_ratio;
    c.attention.backward_eta_max *= k.backward_ratio / base.backward_ratio;
    c.attention.forward_half_seq = k.forward_half_seq;
    c.attention.backward_half_seq = k.backward_half_seq;
    c.attention_kernel = to;
    return c;
}

double memory_time_s(const HardwareProfile& hw, const Calibration& cal, double bytes) noexcept {
    return bytes / (hw.hbm_bytes_per_s() * cal.hbm_efficiency * cal.framework_efficiency);
}

std::ostream& operator<<(std::ostream& os, const ComputeTimes& t) {
    return os << "ComputeTimes(layer_forward_s=" << t.layer_forward_s << ", layer_backward_s=" << t.layer_backward_s
              << ", head_forward_s=" << t.head_forward_s << ", head_backward_s=" << t.head_backward_s
              << ", gemm_s=" << t.gemm_s << ", attention_s=" << t.attention_s << ", memory_s=" << t.memory_s
              << ", host_wait_s=" << t.host_wait_s << ")";
}

}  // namespace libscale
