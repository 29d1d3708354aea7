#include "libscale/step_model.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "libscale/collective.hpp"
#include "libscale/error.hpp"
#include "libscale/flops.hpp"

namespace libscale {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// Mixed-precision Adam per parameter (ZeRO, arXiv 1910.02054 §3.1): bf16 weights 2 B,
// bf16 gradients 2 B, fp32 master weights, momentum and variance 12 B.
constexpr double kWeightBytes = 2, kGradBytes = 2, kOptimizerBytes = 12;
// Adam's HBM traffic per parameter: read fp32 master, gradient, m, v (16 B); write
// master, m, v (12 B) and the bf16 copy the next forward gathers (2 B).
constexpr double kOptimizerTrafficBytes = 30;
// A full checkpoint per parameter: bf16 weights + fp32 master + m + v (DESIGN.md).
constexpr double kCheckpointBytes = 14;
// Logits per token and vocabulary entry: bf16 logits plus the fp32 copy the loss takes.
constexpr double kLogitBytes = 6;
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
    const double q = static_cast<double>(m.num_heads * m.head_dim);
    const double kv = static_cast<double>(m.num_kv_heads * m.head_dim);
    switch (ac) {
        case Checkpointing::full:
            return d;  // the block's input
        case Checkpointing::selective:
            // torchtitan op-level SAC: block input, outputs of q, v, SDPA, w1 (and w2,
            // the 7th matmul, in a gated MLP).
            return d + 2 * q + kv + f + (m.mlp == MlpKind::gated ? d : 0);
        case Checkpointing::none:
            break;
    }
    // Two RMSNorms (input and output each), q, k, v for SDPA, SDPA's output, the MLP's
    // intermediates (gate, up, activation, product; or up and activation), and the
    // q/k-norm inputs where the model has them.
    return 4 * d + 2 * q + 2 * kv + (m.mlp == MlpKind::gated ? 4 * f : 2 * f) + (m.qk_norm != QkNorm::none ? q + kv : 0);
}

bool is_positive_multiple(std::int64_t value, std::int64_t unit) {
    return unit > 0 && value > 0 && value % unit == 0;
}

}  // namespace

ConfigIssue check_config(const ModelSpec& m, const HardwareProfile& hw,
                         const TrainingConfig& c) noexcept {
    const std::int64_t gpn = c.gpus_per_node > 0 ? c.gpus_per_node : hw.gpus_per_node;
    if (c.gpus <= 0 || c.gpus > kMaxGpus) return ConfigIssue::gpus;
    if (c.gpus_per_node < 0 || gpn <= 0) return ConfigIssue::gpus_per_node;
    if (c.strategy == Strategy::hsdp && c.gpus > gpn && c.gpus % gpn != 0) return ConfigIssue::whole_nodes;
    if (c.seq_len <= 0) return ConfigIssue::seq_len;
    if (c.seq_len > m.max_position_embeddings) return ConfigIssue::seq_len_too_long;
    if (c.micro_batch <= 0) return ConfigIssue::micro_batch;
    std::int64_t unit = 0;
    if (__builtin_mul_overflow(c.gpus, c.micro_batch, &unit) || __builtin_mul_overflow(unit, c.seq_len, &unit))
        return ConfigIssue::batch_overflow;
    if (c.global_batch_tokens != 0 && !is_positive_multiple(c.global_batch_tokens, unit))
        return ConfigIssue::global_batch;
    if (c.reduce_bytes != 2 && c.reduce_bytes != 4) return ConfigIssue::reduce_bytes;
    if (!(c.attention_span_tokens >= 0) || c.attention_span_tokens > static_cast<double>(c.seq_len))
        return ConfigIssue::attention_span;
    const DataPipeline& dp = c.data;
    if (!(dp.bytes_per_token > 0) || dp.loader_workers_per_rank < 0 || dp.cpu_cores_per_node < 0 ||
        (!dp.corpus_in_page_cache && !(dp.storage_read_gbps_per_node > 0)) ||
        (!dp.pretokenized && !(dp.tokenize_tokens_per_s_per_core > 0 && dp.loader_workers_per_rank > 0)))
        return ConfigIssue::data_pipeline;
    if (c.checkpoint.every_steps < 0 ||
        (c.checkpoint.every_steps > 0 && !(c.checkpoint.write_gbps_per_node > 0)))
        return ConfigIssue::checkpoint;
    return ConfigIssue::none;
}

void validate_config(const ModelSpec& m, const HardwareProfile& hw, const TrainingConfig& c) {
    const ConfigIssue issue = check_config(m, hw, c);
    if (issue == ConfigIssue::none) return;  // before building a stream: the common case is cheap
    const std::int64_t gpn = c.gpus_per_node > 0 ? c.gpus_per_node : hw.gpus_per_node;
    std::ostringstream msg;
    switch (issue) {
        case ConfigIssue::none: return;
        case ConfigIssue::gpus:
            msg << "gpus = " << c.gpus << "; it must be a positive integer, at most " << kMaxGpus;
            break;
        case ConfigIssue::gpus_per_node:
            msg << "gpus_per_node = " << c.gpus_per_node << "; it must be a positive integer (0: the hardware's "
                << hw.gpus_per_node << ")";
            break;
        case ConfigIssue::whole_nodes:
            msg << "gpus = " << c.gpus << " does not fill whole nodes of " << gpn
                << " GPUs; HSDP replicates whole nodes, so use a multiple of " << gpn << " (e.g. "
                << (c.gpus / gpn) * gpn << " or " << (c.gpus / gpn + 1) * gpn << ")";
            break;
        case ConfigIssue::seq_len:
            msg << "seq_len = " << c.seq_len << "; it must be a positive integer";
            break;
        case ConfigIssue::seq_len_too_long:
            msg << "seq_len = " << c.seq_len << " is longer than " << m.name
                << "'s max_position_embeddings = " << m.max_position_embeddings
                << "; use at most " << m.max_position_embeddings;
            break;
        case ConfigIssue::micro_batch:
            msg << "micro_batch = " << c.micro_batch << "; it must be a positive integer";
            break;
        case ConfigIssue::global_batch: {
            const std::int64_t unit = c.gpus * c.micro_batch * c.seq_len;
            const std::int64_t lo = std::max<std::int64_t>(unit, c.global_batch_tokens / unit * unit);
            msg << "global_batch_tokens = " << c.global_batch_tokens
                << " is not a positive multiple of gpus × micro_batch × seq_len = " << c.gpus << " × "
                << c.micro_batch << " × " << c.seq_len << " = " << unit << "; nearest valid: " << lo;
            if (lo < c.global_batch_tokens) msg << " or " << lo + unit;
            break;
        }
        case ConfigIssue::batch_overflow:
            msg << "gpus × micro_batch × seq_len = " << c.gpus << " × " << c.micro_batch << " × " << c.seq_len
                << " overflows a 64-bit token count; use realistic values";
            break;
        case ConfigIssue::reduce_bytes:
            msg << "reduce_bytes = " << c.reduce_bytes << "; valid: 2 (bf16) or 4 (fp32)";
            break;
        case ConfigIssue::attention_span:
            msg << "attention_span_tokens = " << c.attention_span_tokens
                << "; it must be between 0 (causal, seq_len/2) and seq_len = " << c.seq_len;
            break;
        case ConfigIssue::data_pipeline:
            msg << "data pipeline: ";
            if (!(c.data.bytes_per_token > 0))
                msg << "bytes_per_token = " << c.data.bytes_per_token << "; it must be > 0";
            else if (c.data.loader_workers_per_rank < 0 || c.data.cpu_cores_per_node < 0)
                msg << "loader_workers_per_rank = " << c.data.loader_workers_per_rank
                    << ", cpu_cores_per_node = " << c.data.cpu_cores_per_node << "; they must be >= 0";
            else if (!c.data.corpus_in_page_cache && !(c.data.storage_read_gbps_per_node > 0))
                msg << "the corpus is not in the page cache, so storage_read_gbps_per_node must be > 0 (got "
                    << c.data.storage_read_gbps_per_node << ")";
            else
                msg << "data is not pretokenized, so tokenize_tokens_per_s_per_core (got "
                    << c.data.tokenize_tokens_per_s_per_core << ") and loader_workers_per_rank (got "
                    << c.data.loader_workers_per_rank << ") must be > 0";
            break;
        case ConfigIssue::checkpoint:
            msg << "checkpoint: every_steps = " << c.checkpoint.every_steps << ", write_gbps_per_node = "
                << c.checkpoint.write_gbps_per_node
                << "; every_steps must be >= 0, and a positive interval needs write_gbps_per_node > 0";
            break;
    }
    throw std::invalid_argument(msg.str());
}

StepBreakdown estimate_step_unchecked(const ModelSpec& m, const ParameterCounts& p,
                                      const HardwareProfile& hw, const Calibration& cal,
                                      const TrainingConfig& c) noexcept {
    StepBreakdown s;
    const std::int64_t n = c.gpus;
    const std::int64_t gpn = c.gpus_per_node > 0 ? c.gpus_per_node : hw.gpus_per_node;
    const double t = static_cast<double>(c.micro_batch * c.seq_len);
    const double global = c.global_batch_tokens > 0 ? static_cast<double>(c.global_batch_tokens)
                                                    : t * static_cast<double>(n);
    const std::int64_t accum = static_cast<std::int64_t>(std::llround(global / (t * static_cast<double>(n))));
    const double A = static_cast<double>(accum);
    const double L = static_cast<double>(m.num_layers);
    const double span = c.attention_span_tokens > 0 ? c.attention_span_tokens : causal_attention_span(c.seq_len);
    const FlopsPerToken fl = flops_per_token(p, m, span, c.activation_checkpointing);

    s.gpus = n;
    s.gpus_per_node = gpn;
    s.nodes = (n + gpn - 1) / gpn;
    s.grad_accum = accum;
    s.tokens_per_micro_batch = t;
    s.tokens_per_step = global;
    s.eta = cal.eta(t);

    // Compute per micro-batch: decoder layers forward (cf) and backward (cb, with what
    // checkpointing recomputes), the output projection forward (ch) and backward (2ch).
    const double rate = hw.peak_flops() * s.eta;
    const double cf = t * (fl.forward - 2.0 * static_cast<double>(m.vocab_size * m.hidden_size)) / L / rate;
    const double ch = t * 2.0 * static_cast<double>(m.vocab_size * m.hidden_size) / rate;
    const double cb = 2.0 * cf + t * fl.recompute / L / rate;
    const double compute_mb = L * (cf + cb) + 3.0 * ch;

    const double layer = static_cast<double>(p.per_layer);
    const double root = static_cast<double>(p.root_unit);
    const double rb = static_cast<double>(c.reduce_bytes);
    const bool sync_all = c.grad_sync == GradSync::every_micro_batch;

    double mb_sync = compute_mb, mb_nosync = compute_mb;  // wall time of one micro-batch
    double comm_sync = 0, comm_nosync = 0;                // collective time of one micro-batch
    double per_step_exposed = 0;                          // collectives once per step, exposed
    bool hidden = true;
    std::int64_t shard_group = n;

    // Backward of L layers where each layer's collectives overlap the next layer's
    // compute: `prefetch` runs under every layer but the first (it is issued during the
    // output projection's backward), `after` is the per-layer reduction that starts once
    // a layer's backward ends and runs under the following layer; the last one and the
    // root unit's reduction (`tail`) are exposed.
    const auto backward = [&](double prefetch, double after, double tail) {
        double b = std::max(2.0 * ch, prefetch);
        if (m.num_layers == 1) return b + cb + after + tail;
        b += std::max(cb, prefetch);
        b += (L - 2.0) * std::max(cb, prefetch + after);
        b += std::max(cb, after);
        return b + after + tail;
    };

    switch (c.strategy) {
        case Strategy::fsdp:
        case Strategy::hsdp: {
            shard_group = c.strategy == Strategy::hsdp ? std::min(n, gpn) : n;
            const std::int64_t replicas = n / shard_group;
            const LinkLevel link = ring_link(shard_group, gpn, cal);
            const double ag = ring_time_s(Collective::all_gather, layer * kWeightBytes, shard_group, link);
            const double ag_root = ring_time_s(Collective::all_gather, root * kWeightBytes, shard_group, link);
            double rs = ring_time_s(Collective::reduce_scatter, layer * rb, shard_group, link);
            double rs_root = ring_time_s(Collective::reduce_scatter, root * rb, shard_group, link);
            if (replicas > 1) {
                // HSDP: the shard's gradients are all-reduced across the replicas (one
                // GPU per node, over its own NIC) right after the reduce-scatter.
                const double shard = 1.0 / static_cast<double>(shard_group);
                const LinkLevel across = ring_link(replicas, 1, cal);
                rs += ring_time_s(Collective::all_reduce, layer * rb * shard, replicas, across);
                rs_root += ring_time_s(Collective::all_reduce, root * rb * shard, replicas, across);
            }
            // Root (embedding, final norm, output projection) and layer 0 are gathered
            // before any compute they could hide under; each later layer's gather is
            // prefetched under the previous layer's forward.
            const double fwd = ag_root + ag + (L - 1.0) * std::max(cf, ag) + cf + ch;
            // FSDP2 keeps the root unsharded after forward; with reshard_after_forward
            // each layer is gathered again in backward.
            const double ag_back = c.reshard_after_forward ? ag : 0.0;
            mb_sync = fwd + backward(ag_back, rs, rs_root);
            mb_nosync = fwd + backward(ag_back, 0.0, 0.0);
            const double gathers = ag_root + L * ag + L * ag_back;
            comm_sync = gathers + L * rs + rs_root;
            comm_nosync = gathers;
            // The last layer's backward gather runs under the output projection's
            // backward (2·ch); the other gathers and reductions under layer compute.
            hidden = ag <= cf && ag_back <= 2.0 * ch && ag_back + rs <= cb;
            break;
        }
        case Strategy::ddp:
        case Strategy::zero1:
        case Strategy::zero2: {
            // Gradients are reduced in buckets as backward produces them (all-reduce for
            // DDP, reduce-scatter for ZeRO-1/2); ZeRO-1 keeps full gradients and reduces
            // once, on the last micro-batch; ZeRO-2 (DeepSpeed has no no_sync for it)
            // reduces every micro-batch. ZeRO-1/2 then all-gather the updated weights.
            const LinkLevel link = ring_link(n, gpn, cal);
            const Collective op = c.strategy == Strategy::ddp ? Collective::all_reduce
                                                              : Collective::reduce_scatter;
            const double red = ring_time_s(op, layer * rb, n, link);
            const double red_root = ring_time_s(op, root * rb, n, link);
            const double fwd = L * cf + ch;
            mb_sync = fwd + backward(0.0, red, red_root);
            mb_nosync = fwd + backward(0.0, 0.0, 0.0);
            comm_sync = L * red + red_root;
            comm_nosync = 0;
            if (c.strategy != Strategy::ddp)
                per_step_exposed = ring_time_s(Collective::all_gather, static_cast<double>(p.total) * kWeightBytes,
                                               n, link);
            hidden = red <= cb;
            break;
        }
    }
    bool every = sync_all;
    if (c.strategy == Strategy::zero1) every = false;
    if (c.strategy == Strategy::zero2) every = true;
    const double micro = every ? A * mb_sync : (A - 1.0) * mb_nosync + mb_sync;
    s.compute_s = A * compute_mb;
    s.comm_s = (every ? A * comm_sync : (A - 1.0) * comm_nosync + comm_sync) + per_step_exposed;
    s.exposed_comm_s = micro - s.compute_s + per_step_exposed;
    s.comm_hidden = hidden;

    const Sharding sh = sharding_of(c.strategy, n, shard_group);
    const double P = static_cast<double>(p.total);
    const double opt_params = P / static_cast<double>(sh.optimizer);
    s.optimizer_s = opt_params * kOptimizerTrafficBytes / (hw.hbm_bytes_per_s() * cal.hbm_efficiency);

    const double busy = micro + per_step_exposed + s.optimizer_s + cal.step_overhead_s;

    // Input pipeline: loader workers prefetch, so only what exceeds the step is exposed.
    const double ranks_per_node = static_cast<double>(std::min(n, gpn));
    const double node_tokens = global * ranks_per_node / static_cast<double>(n);
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
    s.data_s = std::max(0.0, data_time - busy);

    if (c.checkpoint.every_steps > 0) {
        const double write_s =
            P * kCheckpointBytes / (static_cast<double>(s.nodes) * c.checkpoint.write_gbps_per_node * 1e9);
        s.checkpoint_s = write_s / static_cast<double>(c.checkpoint.every_steps);
    }

    s.step_time_s = busy + s.data_s + s.checkpoint_s;
    s.tokens_per_s = global / s.step_time_s;
    s.tokens_per_s_per_gpu = s.tokens_per_s / static_cast<double>(n);
    s.mfu = s.tokens_per_s_per_gpu * fl.model / hw.peak_flops();
    s.hfu = s.tokens_per_s_per_gpu * fl.hardware / hw.peak_flops();
    s.energy_per_step_j = static_cast<double>(n) *
                          ((s.compute_s + s.optimizer_s) * cal.power_compute_w +
                           s.exposed_comm_s * cal.power_comm_w +
                           (s.data_s + s.checkpoint_s + cal.step_overhead_s) * cal.power_idle_w);

    // Memory per GPU.
    MemoryBreakdown& mem = s.memory;
    mem.weights_gib = P * kWeightBytes / static_cast<double>(sh.weights) / kGiB;
    mem.grads_gib = P * kGradBytes / static_cast<double>(sh.grads) / kGiB;
    mem.optimizer_gib = P * kOptimizerBytes / static_cast<double>(sh.optimizer) / kGiB;
    const Checkpointing ac = c.activation_checkpointing;
    double act = L * saved_elements_per_layer(m, ac) + 2.0 * static_cast<double>(m.hidden_size);
    if (ac != Checkpointing::none) act += saved_elements_per_layer(m, Checkpointing::none);  // the layer being recomputed
    mem.activations_gib = t * act * kActivationBytes / kGiB;
    mem.logits_gib = t * static_cast<double>(m.vocab_size) * kLogitBytes / kGiB;
    if (c.strategy == Strategy::fsdp || c.strategy == Strategy::hsdp) {
        // Gathered bf16 weights: the root (kept through forward) plus the current and the
        // prefetched layer, or everything when layers stay unsharded after forward; and
        // the unsharded gradient of the largest unit awaiting its reduce-scatter.
        const double gathered = c.reshard_after_forward ? root + 2.0 * layer : P;
        double buffers = gathered * kWeightBytes + std::max(layer, root) * rb;
        // Without gradient sync on every micro-batch, unsharded gradients accumulate.
        if (!sync_all) buffers += P * rb;
        mem.buffers_gib = buffers / kGiB;
    }
    mem.reserved_gib = cal.reserved_gib;
    mem.total_gib = mem.weights_gib + mem.grads_gib + mem.optimizer_gib + mem.activations_gib +
                    mem.logits_gib + mem.buffers_gib + mem.reserved_gib;
    mem.available_gib = hw.hbm_gib;
    mem.fits = mem.total_gib <= mem.available_gib;
    return s;
}

StepBreakdown estimate_step(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal,
                            const TrainingConfig& c) {
    m.validate();
    hw.validate();
    cal.validate();
    validate_config(m, hw, c);
    return estimate_step_unchecked(m, count_parameters(m), hw, cal, c);
}

std::string fit_suggestion(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal,
                           const TrainingConfig& c) {
    const ParameterCounts p = count_parameters(m);
    const auto fits = [&](const TrainingConfig& x) {
        return check_config(m, hw, x) == ConfigIssue::none &&
               estimate_step_unchecked(m, p, hw, cal, x).memory.fits;
    };
    std::vector<std::string> ways;
    if (c.activation_checkpointing != Checkpointing::full) {
        TrainingConfig x = c;
        x.activation_checkpointing = Checkpointing::full;
        if (fits(x)) ways.push_back("activation_checkpointing='full'");
    }
    if (c.micro_batch > 1) {
        TrainingConfig x = c;
        x.micro_batch = 1;
        if (fits(x)) ways.push_back("micro_batch=1 (more gradient accumulation)");
    }
    if (c.strategy != Strategy::fsdp) {
        TrainingConfig x = c;
        x.strategy = Strategy::fsdp;
        if (fits(x)) ways.push_back("strategy='fsdp' (shard weights, gradients and optimizer state)");
    }
    // More GPUs with the same per-GPU batch: FSDP's state per GPU falls as 1/N.
    for (std::int64_t g = c.gpus * 2; g <= std::min<std::int64_t>(65536, kMaxGpus); g *= 2) {
        TrainingConfig x = c;
        x.gpus = g;
        x.global_batch_tokens = 0;
        if (x.strategy != Strategy::fsdp) x.strategy = Strategy::fsdp;
        if (fits(x)) {
            ways.push_back("at least " + std::to_string(g) + " GPUs with strategy='fsdp'");
            break;
        }
    }
    if (ways.empty()) return "";
    std::string out = "to fit, try ";
    for (std::size_t i = 0; i < ways.size(); ++i) {
        if (i) out += i + 1 == ways.size() ? ", or " : ", ";
        out += ways[i];
    }
    return out;
}

void require_fit(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal,
                 const TrainingConfig& c, const StepBreakdown& s) {
    if (s.memory.fits) return;
    const MemoryBreakdown& mem = s.memory;
    std::ostringstream msg;
    msg << std::fixed << std::setprecision(1) << m.name << " does not fit on " << c.gpus << " × " << hw.name
        << " with " << to_string(c.strategy) << ": it needs " << mem.total_gib << " GiB per GPU, "
        << mem.available_gib << " GiB available (weights " << mem.weights_gib << ", grads " << mem.grads_gib
        << ", optimizer " << mem.optimizer_gib << ", activations " << mem.activations_gib << ", logits "
        << mem.logits_gib << ", buffers " << mem.buffers_gib << ", reserved " << mem.reserved_gib << ")";
    const std::string hint = fit_suggestion(m, hw, cal, c);
    if (!hint.empty()) msg << "; " << hint;
    throw DoesNotFitError(msg.str(), mem.total_gib, mem.available_gib);
}

std::ostream& operator<<(std::ostream& os, const MemoryBreakdown& mem) {
    return os << "MemoryBreakdown(total_gib=" << mem.total_gib << ", available_gib=" << mem.available_gib
              << ", fits=" << (mem.fits ? "True" : "False") << ", weights_gib=" << mem.weights_gib
              << ", grads_gib=" << mem.grads_gib << ", optimizer_gib=" << mem.optimizer_gib
              << ", activations_gib=" << mem.activations_gib << ", logits_gib=" << mem.logits_gib
              << ", buffers_gib=" << mem.buffers_gib << ", reserved_gib=" << mem.reserved_gib << ")";
}

std::ostream& operator<<(std::ostream& os, const StepBreakdown& s) {
    return os << "StepBreakdown(gpus=" << s.gpus << ", nodes=" << s.nodes << ", grad_accum=" << s.grad_accum
              << ", step_time_s=" << s.step_time_s << ", tokens_per_s=" << s.tokens_per_s
              << ", tokens_per_s_per_gpu=" << s.tokens_per_s_per_gpu << ", mfu=" << s.mfu
              << ", compute_s=" << s.compute_s << ", exposed_comm_s=" << s.exposed_comm_s
              << ", memory_gib=" << s.memory.total_gib << ")";
}

}  // namespace libscale
