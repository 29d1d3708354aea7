#include "libscale/estimate/step_model.hpp"

#include "estimate/rank_detail.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "libscale/estimate/collective.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/fit_advice.hpp"
#include "libscale/io/error.hpp"
#include "libscale/spec/flops.hpp"
#include "libscale/spec/parallelism.hpp"

namespace libscale {

namespace {

// Adam's HBM traffic per parameter with fp32 masters: read master, gradient, m, v (16 B);
// write master, m, v (12 B) and the bf16 copy the next forward gathers (2 B). The other
// optimizers are itemized the same way in optimizer_traffic_bytes.
constexpr double kCheckpointBytes = 14;  // bf16 weights + fp32 master + m + v per parameter
// torch.optim's multi-tensor (fused / foreach) step streams at 0.79 of a memcpy: fused AdamW
// moved 152.8 GB in 46.0 ms (3.32 TB/s) against 4.20 TB/s for the same step's memcpys on one
// H200 (calibration/data/measured/h200-2026-12-04/PROFILE.md).
constexpr double kMultiTensorRate = 0.79;

}  // namespace

namespace {

// Wall time of one micro-batch with and without its gradient reduction, the collective
// time in it, and the collectives that run once per step.
struct Schedule {
    double sync_s = 0, nosync_s = 0;  // wall time of a micro-batch
    double comm_sync_s = 0, comm_nosync_s = 0;
    double per_step_exposed_s = 0;
    bool hidden = true;
    std::int64_t shard_group = 1;
};

// Backward of L layers where each layer's collectives overlap the next layer's compute:
// `prefetch` runs under every layer but the first (it is issued during the head's
// backward), `after` is the per-layer reduction that starts once a layer's backward ends
// and runs under the following layer; the last one is exposed, then the embedding's
// backward and the root unit's reduction (`tail`).
double backward_s(const ComputeTimes& ct, double prefetch, double after, double tail) {
    const double L = ct.layers, cb = ct.layer_backward_s;
    double b = std::max(ct.head_backward_s, prefetch);
    if (L <= 1) return b + cb + std::max(ct.embed_backward_s, after) + tail;
    b += std::max(cb, prefetch);
    b += (L - 2.0) * std::max(cb, prefetch + after);
    b += std::max(cb, after);
    return b + std::max(ct.embed_backward_s, after) + tail;
}

// FSDP / HSDP (PyTorch FSDP2): each layer gathered before its forward (prefetched under
// the previous layer) and, with reshard_after_forward, again in backward; its gradients
// reduce-scattered after its backward; HSDP all-reduces the shard across replicas.
Schedule fsdp_schedule(const ComputeTimes& ct, const ModelSpec& m, const ParameterCounts& p, const FineTuningPlan& ft,
                       const Calibration& cal, const TrainingConfig& c, std::int64_t gpn, const DeviceMesh& mesh) {
    Schedule s;
    const double L = ct.layers;
    // FSDP shards over the data- and context-parallel ranks; a node holds gpn / tp of them
    // (its other GPUs are the same ranks' tensor-parallel peers, each in a group of its own).
    s.shard_group = mesh.shard_group();
    const std::int64_t replicas = mesh.dp_replicate;
    const LinkLevel link = ring_link(s.shard_group, std::max<std::int64_t>(gpn / mesh.tp, 1), cal);
    // Gathered: every parameter (a frozen base in its stored dtype); reduced: the trained ones.
    const double layer = ft.trained_per_layer, root = ft.trained_root;
    // fp8 all-gather moves the layer's matmul weights in one byte instead of two.
    double layer_bytes = c.fp8_all_gather && c.precision == Precision::fp8
                             ? 2.0 * layer - static_cast<double>(p.per_layer_matmul)
                             : 2.0 * layer;
    double root_bytes = 2.0 * root;
    if (ft.peft) {
        layer_bytes = ft.frozen_layer_bytes + 2.0 * layer;
        root_bytes = ft.frozen_root_bytes + 2.0 * root;
    }
    const double rb = static_cast<double>(c.reduce_bytes);
    // Under expert parallel a layer's routed experts are a unit of their own (torchtitan
    // applies fully_shard to them over the efsdp mesh): the rank's E / ep experts gathered
    // and reduced over shard group / ep ranks, which stride over the expert-parallel ones
    // (a node holds gpn / ep of them), beside the rest of the layer over the shard group.
    const double experts = mesh.ep > 1 ? detail::moe_share(m) * static_cast<double>(p.routed_experts) : 0.0;
    const std::int64_t efsdp = mesh.expert_shard_group();
    const LinkLevel elink = ring_link(efsdp, std::max<std::int64_t>(gpn / mesh.tp / mesh.ep, 1), cal);
    const double ep = static_cast<double>(mesh.ep);
    const double ag = ring_time_s(Collective::all_gather, layer_bytes - 2.0 * experts, s.shard_group, link) +
                      ring_time_s(Collective::all_gather, 2.0 * experts / ep, efsdp, elink);
    const double ag_root = ring_time_s(Collective::all_gather, root_bytes, s.shard_group, link);
    double rs = ring_time_s(Collective::reduce_scatter, (layer - experts) * rb, s.shard_group, link) +
                ring_time_s(Collective::reduce_scatter, experts / ep * rb, efsdp, elink);
    double rs_root = ring_time_s(Collective::reduce_scatter, root * rb, s.shard_group, link);
    if (replicas > 1) {
        // HSDP: the shard's gradients are all-reduced across the replicas (one GPU per
        // node, over its own NIC) right after the reduce-scatter.
        const double shard = 1.0 / static_cast<double>(s.shard_group);
        const LinkLevel across = ring_link(replicas, 1, cal);
        rs += ring_time_s(Collective::all_reduce, layer * rb * shard, replicas, across);
        rs_root += ring_time_s(Collective::all_reduce, root * rb * shard, replicas, across);
    }
    const double cf = ct.layer_forward_s, cb = ct.layer_backward_s;
    // Root (embedding, final norm, output projection) and layer 0 are gathered before any
    // compute they could hide under; each later layer's gather is prefetched under the
    // previous layer's forward.
    const double fwd = ag_root + ct.embed_forward_s + ag + (L - 1.0) * std::max(cf, ag) + cf + ct.head_forward_s;
    // FSDP2 keeps the root unsharded after forward; with reshard_after_forward each layer
    // is gathered again in backward.
    const double ag_back = c.reshard_after_forward ? ag : 0.0;
    s.sync_s = fwd + backward_s(ct, ag_back, rs, rs_root);
    s.nosync_s = fwd + backward_s(ct, ag_back, 0.0, 0.0);
    const double gathers = ag_root + L * ag + L * ag_back;
    s.comm_sync_s = gathers + L * rs + rs_root;
    s.comm_nosync_s = gathers;
    // The last layer's backward gather runs under the head's backward; the other gathers
    // and reductions under layer compute.
    s.hidden = ag <= cf && ag_back <= ct.head_backward_s && ag_back + rs <= cb;
    return s;
}

// Tensor- and context-parallel collectives of one micro-batch (docs/model.md "Tensor and
// context parallel"), as the time they add to a layer's passes and to the head's, and
// their whole time, hidden or not.
struct ModelParallelTimes {
    double layer_forward_s = 0, layer_backward_s = 0;
    double head_forward_s = 0, head_backward_s = 0;
    double comm_s = 0;
};

// Tensor parallel (pytorch/torchtitan v0.2.2 73a0e697, models/llama3/infra/parallelize.py
// apply_tp: q, k, v, w1, w3 column-wise, wo and w2 row-wise, the norms SequenceParallel;
// Megatron-LM's f and g operators, Shoeybi et al. arXiv 1909.08053 §3): each layer's
// attention and MLP all-gather their input over the tensor-parallel ranks and reduce-
// scatter their output, in forward and, transposed, in backward; without sequence parallel
// each pair is one all-reduce of the same bytes (Korthikanti et al. arXiv 2205.05198
// §4.2.2). The activations are the rank's tokens at the whole hidden size in bf16; fp8
// (torchao's tensorwise Float8ColwiseParallel) all-gathers them in fp8. They run between
// the layer's matmuls, on its critical path: torchtitan overlaps them only under async
// tensor parallel, which is not modelled. Full checkpointing runs them again in the
// recomputed forward; torchtitan's op-level policy saves the reduce-scatters' outputs and
// repeats only the all-gathers. The root adds a pair: the embedding's output reduce-
// scattered to the sequence shards and the final norm's gathered for the vocabulary-
// parallel output projection (loss_parallel's all-reduces of per-token scalars and the
// norms' weight-gradient all-reduces are too small to count).
// An all-to-all of `bytes` per rank over a group of consecutive ranks (Ulysses' and expert
// parallel's), as many in a node as it holds of them.
double consecutive_all_to_all_s(double bytes, std::int64_t ranks, std::int64_t gpn, const Calibration& cal) {
    return all_to_all_time_s(bytes, ranks, std::min(ranks, std::max<std::int64_t>(gpn, 1)), cal);
}

// Context parallel (torch/distributed/tensor/experimental/_context_parallel/_attention.py
// @09b101c5, its default rotate method, which torchtitan v0.2.2 trains with): each
// attention call all-gathers the ranks' keys and values (bf16) while the local block
// computes, then runs a block per rank; backward all-gathers them again beside the local
// block and passes the keys' and values' gradients around the ring in fp32, one hop after
// each block (cp hops). The time beyond the attention it overlaps is exposed.
ModelParallelTimes model_parallel_times(const ModelSpec& m, const ModelSpec& rank, const ComputeTimes& ct,
                                        const HardwareProfile& hw, const Calibration& cal, const TrainingConfig& c,
                                        std::int64_t gpn, const DeviceMesh& mesh) {
    ModelParallelTimes out;
    const double t = rank_tokens(c), L = ct.layers;
    const double share =
        m.num_layers > 0 ? static_cast<double>(checkpointed_layers(c, m.num_layers)) / static_cast<double>(m.num_layers)
                         : 0.0;
    const bool full = c.activation_checkpointing == Checkpointing::full;
    // The share of a layer's forward collectives that full checkpointing runs again
    // (op-level checkpointing saves the collectives' outputs).
    const double rerun = full ? share : 0.0;
    if (mesh.tp > 1) {
        const LinkLevel link = ring_link(mesh.tp, gpn, cal);
        const double act = 2.0 * t * static_cast<double>(m.hidden_size);
        double pair = 0, recompute = 0;  // a gather and a reduction; the recomputed forward's
        double recompute_comm = 0;       // the recomputed collectives, hidden or not
        double fwd = 0, bwd = 0;         // the layer's exposed collectives
        if (c.sequence_parallel) {
            const double gathered = c.precision == Precision::fp8 ? act / 2 : act;
            const double ag = ring_time_s(Collective::all_gather, gathered, mesh.tp, link);
            const double rs = ring_time_s(Collective::reduce_scatter, act, mesh.tp, link);
            pair = ag + rs;
            fwd = bwd = 2 * pair;
            recompute = recompute_comm = full ? 2 * pair : 2 * ag;
            if (c.async_tensor_parallel) {
                // Micro-pipelined (torch/distributed/_symmetric_memory/__init__.py
                // _pipelined_all_gather_and_consume, _pipelined_produce_and_all2all): the
                // matmul runs on the rank's own chunk first, then on each peer's as the copy
                // engine brings it (or sends each partial as it is made), so what shows is
                // the transfer beyond (tp − 1)/tp of the matmul. The forward's gathers feed
                // q|k|v and gate|up, its scatters take o's and down's outputs
                // (micro_pipeline_tp.py fuses a gather with the matmuls that read it and a
                // scatter with the lone matmul that feeds it); so does full checkpointing's
                // recompute of that forward. The backward's own collectives stay NCCL's: the
                // PyTorch team's figures put the gain in the forward (Llama 3 8B: up to 29 %
                // faster forward, 8 % end to end; discuss.pytorch.org/t/209487), and of the
                // readings of the pass this one matches torchtitan's published async rows
                // (docs/model.md section 9). The head keeps its own.
                const bool fp8 = c.precision == Precision::fp8;
                const double d = static_cast<double>(rank.hidden_size), f = static_cast<double>(rank.intermediate_size);
                const double q = static_cast<double>(rank.q_width()), kv = static_cast<double>(rank.kv_width());
                const auto gemm = [&](double n, double k) { return gemm_time_s(hw, cal, t, n, k, fp8); };
                const double tp = static_cast<double>(mesh.tp);
                const auto exposed = [&](double transfer, double matmul) {
                    return std::max(0.0, transfer - matmul * (tp - 1) / tp);
                };
                const double inputs = rank.mlp == MlpKind::gated ? 2 : 1;  // gate and up, or up
                const double qkv = gemm(q, d) + 2 * gemm(kv, d), o = gemm(d, q), gate_up = inputs * gemm(f, d),
                             down = gemm(d, f);
                fwd = exposed(ag, qkv) + exposed(ag, gate_up) + exposed(rs, o) + exposed(rs, down);
                if (full) recompute = fwd;
            }
        } else {
            pair = ring_time_s(Collective::all_reduce, act, mesh.tp, link);
            fwd = bwd = 2 * pair;
            recompute = recompute_comm = 2 * pair;
        }
        if (c.activation_checkpointing == Checkpointing::none) recompute = recompute_comm = 0;
        out.layer_forward_s += fwd;
        out.layer_backward_s += bwd + share * recompute;
        out.head_forward_s += pair;
        out.head_backward_s += pair;
        out.comm_s += L * (4 * pair + share * recompute_comm) + 2 * pair;
    }
    if (const double kv_copies = detail::ulysses_kv_copies(rank, c); mesh.cp > 1 && kv_copies > 0) {
        // Ulysses (DeepSpeed ALST UlyssesSPAttentionHF, its _DimZeroAllToAll): per layer an
        // all-to-all each of q, k and v (the rank's tokens, all heads, to the heads' ranks;
        // key/value heads repeated when fewer than cp) and one of the output back, in bf16,
        // between the projections and attention: on the critical path. Backward the four
        // transposes; full checkpointing repeats the forward's. Consecutive ranks (tp is 1).
        const double q = static_cast<double>(rank.q_width()), kv = static_cast<double>(rank.kv_width());
        const auto a2a = [&](double width) { return consecutive_all_to_all_s(2.0 * t * width, mesh.cp, gpn, cal); };
        const double fwd = 2 * a2a(q) + 2 * a2a(kv * kv_copies);
        const double again = rerun * fwd;
        out.layer_forward_s += fwd;
        out.layer_backward_s += fwd + again;
        out.comm_s += L * (2 * fwd + again);
    } else if (mesh.cp > 1) {
        // The group strides over the tensor-parallel ranks: a node holds gpn / tp of it.
        const double cp = static_cast<double>(mesh.cp);
        const LinkLevel link = ring_link(mesh.cp, std::max<std::int64_t>(gpn / mesh.tp, 1), cal);
        const double kv = 2.0 * t * static_cast<double>(rank.kv_width());  // a rank's keys and values
        const double gather = ring_time_s(Collective::all_gather, 2.0 * kv * cp, mesh.cp, link);
        const double hops = cp * (link.alpha_s + 4.0 * kv / link.busbw_bytes_per_s);
        const double a_f = ct.layer_attention_forward_s, a_b = ct.layer_attention_backward_s;
        const double local = 1.0 / cp;  // the share of the blocks that is the rank's own
        const double fwd = std::max(0.0, gather - local * a_f);
        const double bwd =
            std::max(0.0, gather - local * a_b) + std::max(0.0, hops - (1.0 - local) * a_b) + rerun * fwd;
        out.layer_forward_s += fwd;
        out.layer_backward_s += bwd;
        out.comm_s += L * (gather * (2.0 + rerun) + hops);
    }
    if (mesh.ep > 1 && m.moe()) {
        // Expert parallel (torchtitan b5bcd76c models/common/token_dispatcher.py, its
        // all-to-all dispatcher; distributed/deepep/deepep.py, DeepEP's): per MoE layer the
        // ranks exchange their token counts per expert (an all-to-all of E integers), then
        // send each token's routed copies (bf16, d wide) to their experts' ranks and the
        // outputs back: two all-to-alls per rank, the busiest rank's imbalance × that;
        // backward the transposes, two more. Full checkpointing runs the forward's again;
        // op-level checkpointing saves all_to_all_single's outputs
        // (distributed/activation_checkpoint.py _save_list). They sit between the router and
        // the experts and between the experts and the combine, on the critical path (neither
        // dispatcher overlaps them with compute). The group is consecutive ranks (ep
        // innermost of the sparse mesh), in one node up to gpus_per_node.
        //
        // The standard dispatcher sends k copies of a token. DeepEP sends one to each rank
        // holding one of its experts: with k of E experts drawn without replacement (a
        // balanced router), a rank holding E/ep of them is missed with probability
        // C(E − E/ep, k) / C(E, k), so a token goes to ep·(1 − that) ranks.
        const double moe = detail::moe_share(m);
        double copies = static_cast<double>(m.experts_per_token);
        if (c.expert_comm_backend == ExpertCommBackend::deepep) {
            const double E = static_cast<double>(m.num_experts), local = E / static_cast<double>(mesh.ep);
            double missed = 1;
            for (std::int64_t i = 0; i < m.experts_per_token; ++i)
                missed *= std::max(0.0, (E - local - static_cast<double>(i)) / (E - static_cast<double>(i)));
            copies = static_cast<double>(mesh.ep) * (1 - missed);
        }
        const double routed = copies * std::max(c.expert_imbalance, 1.0);
        const double bytes = 2.0 * t * routed * static_cast<double>(m.hidden_size);
        const double a2a = consecutive_all_to_all_s(bytes, mesh.ep, gpn, cal);
        const double counts = consecutive_all_to_all_s(8.0 * static_cast<double>(m.num_experts), mesh.ep, gpn, cal);
        const double fwd = moe * (counts + 2 * a2a), bwd = moe * 2 * a2a;
        const double again = rerun * fwd;
        out.layer_forward_s += fwd;
        out.layer_backward_s += bwd + again;
        out.comm_s += L * (fwd + bwd + again);
    }
    return out;
}

// DDP, ZeRO-1, ZeRO-2: gradients reduced in buckets as backward produces them
// (all-reduce for DDP, reduce-scatter for ZeRO-1/2); ZeRO-1/2 then all-gather the
// updated weights once per step.
Schedule replicated_schedule(const ComputeTimes& ct, const FineTuningPlan& ft, const Calibration& cal,
                             const TrainingConfig& c, std::int64_t gpn) {
    Schedule s;
    const std::int64_t n = c.gpus;
    s.shard_group = n;
    const LinkLevel link = ring_link(n, gpn, cal);
    const Collective op = c.strategy == Strategy::ddp ? Collective::all_reduce : Collective::reduce_scatter;
    const double rb = static_cast<double>(c.reduce_bytes);
    const double red = ring_time_s(op, ft.trained_per_layer * rb, n, link);
    const double red_root = ring_time_s(op, ft.trained_root * rb, n, link);
    const double fwd = ct.embed_forward_s + ct.layers * ct.layer_forward_s + ct.head_forward_s;
    s.sync_s = fwd + backward_s(ct, 0.0, red, red_root);
    s.nosync_s = fwd + backward_s(ct, 0.0, 0.0, 0.0);
    s.comm_sync_s = ct.layers * red + red_root;
    if (c.strategy != Strategy::ddp)
        s.per_step_exposed_s = ring_time_s(Collective::all_gather, ft.trained * 2.0, n, link);
    s.hidden = red <= ct.layer_backward_s;
    return s;
}

// Optimizer HBM traffic per local parameter, read + written: with fp32 masters, AdamW reads
// master, gradient, m, v and writes master, m, v (28 B) plus the bf16 copy the next forward
// gathers (2 B); 8-bit AdamW's states are one byte each; SGD has one momentum buffer;
// Adafactor reads the gradient for its row/column statistics, writes and re-reads the
// update for its RMS clipping, then applies it. bf16 masters halve the 4-byte items and
// need no copy. Gradient-norm clipping adds three passes over the gradient shard (in the
// masters' dtype, as FSDP2 keeps sharded gradients): torch.nn.utils.clip_grad_norm_ reads
// every gradient for torch._foreach_norm, then torch._foreach_mul_ reads and writes each
// one by the clamped coefficient, unconditionally, to avoid a host sync (pytorch
// torch/nn/utils/clip_grad.py). The all-reduce of the one-element norm is not modelled.
//
// Under FSDP2 (with an itemized implementation, compute_model.cpp) the optimizer updates the
// fp32 shards and writes no bf16 copy: the cast runs at each gather (FSDP2's copies), and its
// bytes count at torch.optim's multi-tensor rate (kMultiTensorRate).
double optimizer_traffic_bytes(const TrainingConfig& c) {
    const bool fp32 = c.master_weights == MasterWeights::fp32;
    // The generic implementation keeps the counts the published series were validated with.
    const bool fsdp2 =
        (c.strategy == Strategy::fsdp || c.strategy == Strategy::hsdp) && c.implementation != Implementation::generic;
    const double w = fp32 ? 4.0 : 2.0, copy = fp32 && !fsdp2 ? 2.0 : 0.0;
    const double states = [&] {
        switch (c.optimizer) {
            case Optimizer::adamw:
            case Optimizer::adafactor: return 7 * w;
            case Optimizer::adamw_8bit: return 3 * w + 4.0;
            case Optimizer::sgd: return 5 * w;
        }
        return 7 * w;
    }();
    const double bytes = states + copy + (c.clip_grad_norm ? 3 * w : 0.0);
    return fsdp2 ? bytes / kMultiTensorRate : bytes;
}

// Input pipeline: loader workers prefetch, so only what exceeds the step is exposed.
double data_exposed_s(const TrainingConfig& c, std::int64_t gpn, double global_tokens, double busy_s) {
    const double n = static_cast<double>(c.gpus);
    const double ranks_per_node = std::min(n, static_cast<double>(gpn));
    const double node_tokens = global_tokens * ranks_per_node / n;
    double data_time = 0;
    if (!c.data.corpus_in_page_cache)
        data_time += node_tokens * c.data.bytes_per_token / (c.data.storage_read_gbps_per_node * 1e9);
    // A corpus in the page cache is read at host-memory speed: a step's token ids are
    // megabytes, microseconds at tens of GB/s, so that read is not modelled.
    if (!c.data.pretokenized) {
        double workers = static_cast<double>(c.data.loader_workers_per_rank) * ranks_per_node;
        if (c.data.cpu_cores_per_node > 0) workers = std::min(workers, static_cast<double>(c.data.cpu_cores_per_node));
        data_time += node_tokens / (workers * c.data.tokenize_tokens_per_s_per_core);
    }
    return std::max(0.0, data_time - busy_s);
}

// A full checkpoint written by every node in parallel, amortized over its interval.
// Under a frozen base only the trained parameters and their states are saved (PEFT's
// save_pretrained writes the adapters).
double checkpoint_amortized_s(const FineTuningPlan& ft, const TrainingConfig& c, std::int64_t nodes) {
    if (c.checkpoint.every_steps <= 0) return 0;
    // ft is one tensor-parallel rank's slice: the checkpoint holds all of them.
    const double trained = ft.trained * static_cast<double>(std::max<std::int64_t>(c.tensor_parallel, 1));
    const double write_s =
        trained * kCheckpointBytes / (static_cast<double>(nodes) * c.checkpoint.write_gbps_per_node * 1e9);
    return write_s / static_cast<double>(c.checkpoint.every_steps);
}

// Each phase's time × its power, summed over GPUs.
double energy_j(const StepBreakdown& s, const Calibration& cal) {
    return static_cast<double>(s.gpus) *
           ((s.compute_s + s.optimizer_s) * cal.power_compute_w + s.exposed_comm_s * cal.power_comm_w +
            (s.data_s + s.checkpoint_s + cal.step_overhead_s) * cal.power_idle_w);
}

}  // namespace

StepBreakdown estimate_microrun(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal,
                                const TrainingConfig& c, std::int64_t layers) {
    if (layers < 1 || layers > m.num_layers)
        throw std::invalid_argument("micro-run layers = " + std::to_string(layers) + "; valid: 1.." +
                                    std::to_string(m.num_layers) + " (the model's decoder layers)");
    ModelSpec cut = m;
    cut.num_layers = layers;
    cut.sliding_window_layers = std::llround(static_cast<double>(m.sliding_window_layers) *
                                             static_cast<double>(layers) / static_cast<double>(m.num_layers));
    Calibration kernels = cal;
    kernels.framework_efficiency = 1;
    kernels.kernel_overhead_s = kernels.layer_overhead_s = kernels.step_overhead_s = 0;
    TrainingConfig one = c;
    one.global_batch_tokens = 0;  // one micro-batch per GPU
    one.data = DataPipeline{};
    one.checkpoint = CheckpointPolicy{};
    if (one.checkpoint_every > layers) one.checkpoint_every = layers;
    return estimate_step(cut, hw, kernels, one);
}

double optimizer_step_s(const FineTuningPlan& ft, const HardwareProfile& hw, const Calibration& cal,
                        const TrainingConfig& c) noexcept {
    // The ranks the trained parameters (a tensor-parallel rank's slice: ft) are sharded over.
    std::int64_t ways = 1;
    switch (c.strategy) {
        case Strategy::fsdp:
        case Strategy::hsdp: ways = device_mesh(c, node_gpus(c, hw)).shard_group(); break;
        case Strategy::zero1:
        case Strategy::zero2: ways = c.gpus; break;  // no tensor or context parallel (parallel_strategy)
        case Strategy::ddp: ways = 1; break;
    }
    const double local = ft.trained / static_cast<double>(ways);
    return local * optimizer_traffic_bytes(c) / (hw.hbm_bytes_per_s() * cal.hbm_efficiency);
}

namespace {

// The step of model m (counts p) whose GPUs each hold mr (counts pr): the model itself, or
// one tensor-parallel rank's slice of it (spec/parallelism.hpp).
StepBreakdown compose_step(const ModelSpec& m, const ParameterCounts& p, const ModelSpec& mr, const ParameterCounts& pr,
                           const HardwareProfile& hw, const Calibration& cal, const TrainingConfig& c,
                           const ComputeTimes& ct, const MemoryBreakdown* memory = nullptr) noexcept {
    StepBreakdown s;
    const std::int64_t n = c.gpus;
    const std::int64_t gpn = node_gpus(c, hw);
    const DeviceMesh mesh = device_mesh(c, gpn);
    // A data-parallel rank's micro-batch; its tensor- and context-parallel GPUs share it.
    const double t = static_cast<double>(c.micro_batch * c.seq_len);
    const double dp = static_cast<double>(mesh.data_parallel());
    const double global = c.global_batch_tokens > 0 ? static_cast<double>(c.global_batch_tokens) : t * dp;
    const std::int64_t accum = static_cast<std::int64_t>(std::llround(global / (t * dp)));
    const double A = static_cast<double>(accum);
    s.gpus = n;
    s.gpus_per_node = gpn;
    s.nodes = (n + gpn - 1) / gpn;
    s.data_parallel = mesh.data_parallel();
    s.tensor_parallel = mesh.tp;
    s.context_parallel = mesh.cp;
    s.expert_parallel = mesh.ep;
    s.grad_accum = accum;
    s.tokens_per_micro_batch = t;
    s.tokens_per_step = global;

    const FineTuningPlan ft = plan_fine_tuning(mr, pr, c);
    // The passes' wall times with the tensor- and context-parallel collectives in them.
    ComputeTimes wall = ct;
    ModelParallelTimes mp;
    if (mesh.tp > 1 || mesh.cp > 1 || mesh.ep > 1) {
        mp = model_parallel_times(m, mr, ct, hw, cal, c, gpn, mesh);
        wall.layer_forward_s += mp.layer_forward_s;
        wall.layer_backward_s += mp.layer_backward_s;
        wall.head_forward_s += mp.head_forward_s;
        wall.head_backward_s += mp.head_backward_s;
    }
    const Schedule sch = c.strategy == Strategy::fsdp || c.strategy == Strategy::hsdp
                             ? fsdp_schedule(wall, mr, pr, ft, cal, c, gpn, mesh)
                             : replicated_schedule(wall, ft, cal, c, gpn);
    // ZeRO-1 keeps full gradients and reduces once, on the last micro-batch; ZeRO-2
    // (DeepSpeed has no no_sync for it) reduces every micro-batch.
    bool every = c.grad_sync == GradSync::every_micro_batch;
    if (c.strategy == Strategy::zero1) every = false;
    if (c.strategy == Strategy::zero2) every = true;
    const double micro = every ? A * sch.sync_s : (A - 1.0) * sch.nosync_s + sch.sync_s;
    const double compute_mb = ct.micro_batch_s();
    s.compute_s = A * compute_mb;
    s.gemm_s = A * ct.gemm_s;
    s.attention_s = A * ct.attention_s;
    s.memory_bound_s = A * ct.memory_s;
    s.host_wait_s = A * ct.host_wait_s;
    s.comm_s = (every ? A * sch.comm_sync_s : (A - 1.0) * sch.comm_nosync_s + sch.comm_sync_s) +
               sch.per_step_exposed_s + A * mp.comm_s;
    s.model_parallel_comm_s = A * mp.comm_s;
    s.exposed_comm_s = std::max(0.0, micro - s.compute_s) + sch.per_step_exposed_s;
    s.comm_hidden = sch.hidden;
    s.optimizer_s = optimizer_step_s(ft, hw, cal, c);

    const double busy = micro + sch.per_step_exposed_s + s.optimizer_s + cal.step_overhead_s;
    s.data_s = data_exposed_s(c, gpn, global, busy);
    s.checkpoint_s = checkpoint_amortized_s(ft, c, s.nodes);
    s.step_time_s = busy + s.data_s + s.checkpoint_s;
    s.tokens_per_s = global / s.step_time_s;
    s.tokens_per_s_per_gpu = s.tokens_per_s / static_cast<double>(n);
    // MFU and HFU count the attention FLOPs done: sliding-window layers attend fewer keys.
    FlopsPerToken fl = flops_per_token(p, m, mean_attended_keys(m, attention_span(c)), c.activation_checkpointing);
    // Selective: what the plan recomputes (fused layouts recompute other matmuls than
    // Llama's). Every k-th layer: only floor(L/k) layers recompute.
    if (c.activation_checkpointing == Checkpointing::selective)
        fl.recompute = layer_gemms(m).recomputed_flops() * static_cast<double>(m.num_layers);
    if (m.num_layers > 0)
        fl.recompute *= static_cast<double>(checkpointed_layers(c, m.num_layers)) / static_cast<double>(m.num_layers);
    if (ft.peft) {
        // A frozen weight has no weight gradient; the adapters add their own GEMMs (forward
        // 2·r·(in + out) per token, twice that backward), recomputed with the layer.
        double adapters = 0;
        for (int i = 0; i < ft.adapted_count; ++i)
            adapters += 2.0 * ft.rank *
                        (ft.adapted[static_cast<std::size_t>(i)].in + ft.adapted[static_cast<std::size_t>(i)].out);
        adapters *= static_cast<double>(m.num_layers);
        double frozen_wgrad = 2.0 * static_cast<double>(p.per_layer_matmul) * static_cast<double>(m.num_layers);
        if (!c.train_embeddings)
            frozen_wgrad += 2.0 * static_cast<double>(p.matmul_forward - p.per_layer_matmul * m.num_layers);
        fl.forward += adapters;
        fl.backward += 2.0 * adapters - frozen_wgrad;
        fl.model = fl.forward + fl.backward;
        if (c.activation_checkpointing != Checkpointing::none)
            fl.recompute += adapters * static_cast<double>(checkpointed_layers(c, m.num_layers)) /
                            static_cast<double>(m.num_layers);
    }
    fl.hardware = fl.model + fl.recompute;
    s.mfu = s.tokens_per_s_per_gpu * fl.model / hw.peak_flops();
    s.hfu = s.tokens_per_s_per_gpu * fl.hardware / hw.peak_flops();
    s.energy_per_step_j = energy_j(s, cal);
    s.memory = memory != nullptr ? *memory : detail::rank_memory(mr, pr, hw, cal, c, sch.shard_group);
    return s;
}

}  // namespace

StepBreakdown detail::rank_step(const ModelSpec& m, const ParameterCounts& p, const ModelSpec& rank,
                                const ParameterCounts& counts, const HardwareProfile& hw, const Calibration& cal,
                                const TrainingConfig& c) noexcept {
    const ComputeTimes ct =
        compute_times(detail::rank_operations(rank, counts, c), hw, cal, rank_tokens(c), attention_span(c));
    return compose_step(m, p, rank, counts, hw, cal, c, ct);
}

StepBreakdown detail::rank_step(const ModelSpec& m, const ParameterCounts& p, const ModelSpec& rank,
                                const ParameterCounts& counts, const HardwareProfile& hw, const Calibration& cal,
                                const TrainingConfig& c, const ComputeTimes& ct,
                                const MemoryBreakdown& memory) noexcept {
    return compose_step(m, p, rank, counts, hw, cal, c, ct, &memory);
}

StepBreakdown estimate_step_unchecked(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                                      const Calibration& cal, const TrainingConfig& c,
                                      const ComputeTimes& ct) noexcept {
    if (c.tensor_parallel <= 1) return compose_step(m, p, m, p, hw, cal, c, ct);
    const ModelSpec slice = tensor_parallel_slice(m, c.tensor_parallel);
    return compose_step(m, p, slice, count_parameters(slice), hw, cal, c, ct);
}

StepBreakdown estimate_step_unchecked(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                                      const Calibration& cal, const TrainingConfig& c) noexcept {
    if (c.tensor_parallel <= 1) return detail::rank_step(m, p, m, p, hw, cal, c);
    // The slice once for the plan, the step and the memory.
    const ModelSpec slice = tensor_parallel_slice(m, c.tensor_parallel);
    return detail::rank_step(m, p, slice, count_parameters(slice), hw, cal, c);
}

void validate_calibration_for(const HardwareProfile& hw, const Calibration& cal, const TrainingConfig& c) {
    // fp8 on hardware without it is check_config's error, which says so more plainly.
    if (!(hw.peak_fp8_tflops > 0)) return;
    validate_calibration_for(cal, c);
}

void validate_calibration_for(const Calibration& cal, const TrainingConfig& c) {
    if (c.precision == Precision::fp8 && !(cal.gemm.fp8_eta_max > 0))
        throw std::invalid_argument("precision = 'fp8', but the calibration for '" + cal.hardware +
                                    "' has no fp8 GEMM coefficient (gemm.fp8_eta_max = 0); use precision='bf16' or "
                                    "a calibration with fp8 GEMM measurements");
}

StepBreakdown estimate_step(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal,
                            const TrainingConfig& c) {
    m.validate();
    hw.validate();
    cal.validate();
    validate_config(m, hw, c);
    validate_calibration_for(cal, c);
    return estimate_step_unchecked(m, count_parameters(m), hw, cal, c);
}

void require_fit(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal, const TrainingConfig& c,
                 const StepBreakdown& s) {
    if (s.memory.fits) return;
    const MemoryBreakdown& mem = s.memory;
    const bool uncertain = mem.status == FitStatus::uncertain;
    std::ostringstream msg;
    msg << std::fixed << std::setprecision(1) << m.name << (uncertain ? " may not fit on " : " does not fit on ")
        << c.gpus << " × " << hw.name << " with " << to_string(c.strategy) << ": it needs " << mem.total_gib
        << " GiB per GPU, " << mem.available_gib << " GiB available (weights " << mem.weights_gib << ", grads "
        << mem.grads_gib << ", optimizer " << mem.optimizer_gib << ", activations " << mem.activations_gib
        << ", logits " << mem.logits_gib << ", buffers " << mem.buffers_gib << ", fragmentation "
        << mem.fragmentation_gib << ", reserved " << mem.reserved_gib << ")" << std::setprecision(0);
    if (uncertain)
        msg << "; the GPU's memory lies within the estimate's " << 100.0 * mem.margin
            << " % margin, so it is not counted as fitting";
    else msg << "; even " << 100.0 * mem.margin << " % less would not fit";
    const std::string hint = fit_suggestion(m, hw, cal, c);
    if (!hint.empty()) msg << "; " << hint;
    throw DoesNotFitError(msg.str(), mem.total_gib, mem.available_gib);
}

std::ostream& operator<<(std::ostream& os, const StepBreakdown& s) {
    return os << "StepBreakdown(gpus=" << s.gpus << ", nodes=" << s.nodes << ", grad_accum=" << s.grad_accum
              << ", step_time_s=" << s.step_time_s << ", tokens_per_s=" << s.tokens_per_s
              << ", tokens_per_s_per_gpu=" << s.tokens_per_s_per_gpu << ", mfu=" << s.mfu
              << ", compute_s=" << s.compute_s << ", exposed_comm_s=" << s.exposed_comm_s
              << ", memory_gib=" << s.memory.total_gib << ")";
}

}  // namespace libscale
