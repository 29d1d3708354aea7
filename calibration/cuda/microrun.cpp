#include "microrun.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "attention_cudnn.hpp"
#include "kernels.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/step_model.hpp"
#include "stats.hpp"

namespace libscale::harness::cuda {

std::string microrun_unsupported(const MicrorunCase& c) {
    if (const std::string a = attention_unavailable(); !a.empty())
        return "the micro-run needs fused attention, which is unavailable: " + a;
    if (c.config.strategy != Strategy::fsdp) return "the CUDA micro-run runs strategy fsdp only";
    if (c.config.gpus > 1 && !Nccl::built()) return "built without NCCL: multi-GPU micro-runs need it";
    return "";
}

namespace {

// The operations of one step, prepared before anything is timed.
class Step {
public:
    Step(const Plan& p, const MicrorunCase& c, const Lt& lt, Nccl& nccl, void* comm)
        : lt_(lt), nccl_(nccl), comm_(comm) {
        // As estimate_microrun (step_model.cpp): the model cut to `layers`, sliding-window
        // layers in proportion, one micro-batch, checkpoint_every clamped to the layers.
        cut_ = p.model;
        cut_.num_layers = c.layers;
        cut_.sliding_window_layers =
            std::llround(static_cast<double>(p.model.sliding_window_layers) * static_cast<double>(c.layers) /
                         static_cast<double>(p.model.num_layers));
        cfg_ = c.config;
        cfg_.global_batch_tokens = 0;
        if (cfg_.checkpoint_every > c.layers) cfg_.checkpoint_every = c.layers;
        pc_ = count_parameters(cut_);
        op_ = plan_operations(cut_, pc_, cfg_);
        t_ = cfg_.micro_batch * cfg_.seq_len;
        n_ = static_cast<int>(cfg_.gpus);
        layers_ = static_cast<int>(c.layers);
        // fp8 all-gather moves the matmul weights in one byte (fsdp_schedule's layer_bytes).
        layer_bytes_ = cfg_.fp8_all_gather && cfg_.precision == Precision::fp8
                           ? 2.0 * static_cast<double>(pc_.per_layer) - static_cast<double>(pc_.per_layer_matmul)
                           : 2.0 * static_cast<double>(pc_.per_layer);
        root_bytes_ = 2.0 * static_cast<double>(pc_.root_unit);
        rb_ = cfg_.reduce_bytes;
        // optimizer_step_s = local × optimizer_traffic_bytes(c) / (HBM B/s × hbm_efficiency)
        // (step_model.cpp); with 1 TB/s and efficiency 1 it gives the bytes × 1e-12.
        HardwareProfile unit = p.hardware;
        unit.hbm_tbps = 1;
        Calibration cal;
        cal.hbm_efficiency = 1;
        optimizer_bytes_ = optimizer_step_s(plan_fine_tuning(cut_, pc_, cfg_), unit, cal, cfg_) * 1e12;
        // The micro-run composes a full fine-tune's operations; adapters and a frozen or
        // quantized base are not among them.
        if (cfg_.fine_tuning != FineTuning::full)
            unsupported_ = std::string("fine_tuning = '") + to_string(cfg_.fine_tuning) +
                           "': the step micro-run composes full fine-tunes only";
        prepare_gemms();
        prepare_attention_calls();
    }

    const std::string& unsupported() const { return unsupported_; }

    // Device memory the step needs, for the out-of-memory check.
    double bytes() const {
        double b = static_cast<double>(max_a_ + max_b_ + max_d_) + 2.0 * kScratchElems * 2 + attention_bytes();
        if (n_ > 1) {
            const auto ag = collective_buffers(Collective::all_gather, std::max(layer_bytes_, root_bytes_), n_, 2);
            const auto layer = collective_buffers(Collective::all_gather, layer_bytes_, n_, 2);
            const auto root = collective_buffers(Collective::all_gather, root_bytes_, n_, 2);
            const auto rs =
                collective_buffers(Collective::reduce_scatter, std::max(layer_params(), root_params()) * rb_, n_, rb_);
            b += static_cast<double>(ag.send_bytes + 2 * layer.recv_bytes + root.recv_bytes + rs.send_bytes +
                                     rs.recv_bytes);
        }
        return b;
    }

    void allocate() {
        a_ = DeviceBuffer(max_a_), b_ = DeviceBuffer(max_b_), d_ = DeviceBuffer(max_d_);
        x_ = DeviceBuffer(kScratchElems * 2), y_ = DeviceBuffer(kScratchElems * 2);
        LS_CUDA(fill_bf16(a_.get(), max_a_ / 2, 1, 1.0f, cs_.get()));
        LS_CUDA(fill_bf16(b_.get(), max_b_ / 2, 2, 1.0f, cs_.get()));
        LS_CUDA(fill_bf16(x_.get(), kScratchElems, 3, 1.0f, cs_.get()));
        LS_CUDA(cudaMemsetAsync(y_.get(), 0, y_.bytes(), cs_.get()));
        if (n_ > 1) {
            const auto ag = collective_buffers(Collective::all_gather, std::max(layer_bytes_, root_bytes_), n_, 2);
            const auto rs =
                collective_buffers(Collective::reduce_scatter, std::max(layer_params(), root_params()) * rb_, n_, rb_);
            ag_send_ = DeviceBuffer(ag.send_bytes);
            // The root unit stays gathered for the whole step (the embedding's forward, the
            // head's forward and backward, the embedding's backward), so it has its own
            // buffer; the layers alternate between two slots.
            for (auto& s : slot_)
                s = DeviceBuffer(collective_buffers(Collective::all_gather, layer_bytes_, n_, 2).recv_bytes);
            root_ = DeviceBuffer(collective_buffers(Collective::all_gather, root_bytes_, n_, 2).recv_bytes);
            rs_send_ = DeviceBuffer(rs.send_bytes), rs_recv_ = DeviceBuffer(rs.recv_bytes);
            LS_CUDA(cudaMemsetAsync(ag_send_.get(), 0, ag_send_.bytes(), cs_.get()));
            LS_CUDA(cudaMemsetAsync(rs_send_.get(), 0, rs_send_.bytes(), cs_.get()));
        }
        allocate_attention();
        LS_CUDA(cudaStreamSynchronize(cs_.get()));
    }

    // One step: returns after it is enqueued; `start` and `stop` bracket it on the compute stream.
    void enqueue(const Event& start, const Event& stop) {
        const bool comm = n_ > 1;
        const auto L = static_cast<std::size_t>(layers_);
        start.record(cs_.get());
        if (comm) {
            wait(ns_, start);
            gather_root();  // the root unit, then layer 0: nothing to hide them under
            ev_root_.record(ns_.get());
            gather(layer_bytes_, 0);
            ev_ag_[0].record(ns_.get());
            wait(cs_, ev_root_);
        }
        embed(false);
        for (std::size_t l = 0; l < L; ++l) {
            if (comm && l + 1 < L) {  // prefetch layer l+1 into the slot layer l−1 used
                if (l >= 1) wait(ns_, ev_fwd_[l - 1]);
                gather(layer_bytes_, (l + 1) % 2);
                ev_ag_[l + 1].record(ns_.get());
            }
            if (comm) wait(cs_, ev_ag_[l]);
            layer_forward(l, false);
            ev_fwd_[l].record(cs_.get());
        }
        head(false);
        // Backward. With reshard_after_forward the last layer is gathered again under the
        // head's backward, each earlier one under the following layer's backward.
        const bool regather = comm && cfg_.reshard_after_forward;
        if (regather) {
            wait(ns_, ev_fwd_[L - 1]);
            gather(layer_bytes_, (L - 1) % 2);
            ev_agb_[L - 1].record(ns_.get());
        }
        head(true);
        for (std::size_t i = L; i-- > 0;) {
            if (regather) wait(cs_, ev_agb_[i]);
            layer_backward(i);
            ev_bwd_[i].record(cs_.get());
            if (comm && i + 1 < L) {  // layer i+1's gradients, after its backward
                wait(ns_, ev_bwd_[i + 1]);
                reduce(layer_params() * rb_);
            }
            if (regather && i >= 1) {
                gather(layer_bytes_, (i - 1) % 2);
                ev_agb_[i - 1].record(ns_.get());
            }
        }
        if (comm) {
            wait(ns_, ev_bwd_[0]);
            reduce(layer_params() * rb_);
        }
        embed(true);
        if (comm) {
            ev_embed_.record(cs_.get());
            wait(ns_, ev_embed_);
            reduce(root_params() * rb_);
            ev_comm_.record(ns_.get());
            wait(cs_, ev_comm_);
        }
        memory(optimizer_bytes_);  // the optimizer over the local shard, after the last reduction
        stop.record(cs_.get());
    }

    void wait_step(double timeout_s) {
        if (n_ > 1) nccl_.wait(comm_, cs_.get(), timeout_s, "the micro-run step");
        else wait_stream(cs_.get(), timeout_s, "the micro-run step");
    }

private:
    static constexpr std::size_t kScratchElems = std::size_t{64} << 20;  // 128 MiB bf16, far above L2

    double layer_params() const { return static_cast<double>(pc_.per_layer); }
    double root_params() const { return static_cast<double>(pc_.root_unit); }

    using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>;

    void add_gemm(std::int64_t m, std::int64_t n, std::int64_t k, bool fp8) {
        if (m <= 0 || n <= 0 || k <= 0) return;
        const Key key{m, n, k, fp8};
        if (gemms_.count(key)) return;
        const GemmShape s{m, n, k, fp8};
        LtGemm g(lt_, s);
        if (!g.unsupported().empty() && unsupported_.empty()) unsupported_ = g.unsupported();
        max_a_ = std::max(max_a_, s.a_bytes()), max_b_ = std::max(max_b_, s.b_bytes()),
        max_d_ = std::max(max_d_, s.d_bytes());
        gemms_.emplace(key, std::move(g));
    }

    // Forward Y[t×n] = X[t×k]·W[k×n]; dgrad dX[t×k] (inner n); wgrad dW[k×n] (inner t):
    // compute_model.cpp gemm_passes.
    void add_passes(const GemmOp& g) {
        const auto n = static_cast<std::int64_t>(g.n), k = static_cast<std::int64_t>(g.k);
        add_gemm(t_, n, k, g.fp8), add_gemm(t_, k, n, g.fp8), add_gemm(k, n, t_, g.fp8);
    }

    void prepare_gemms() {
        for (int i = 0; i < op_.layer_gemm_count; ++i) add_passes(op_.layer_gemms[static_cast<std::size_t>(i)]);
        add_passes(op_.head_gemm), add_passes(op_.project_gemm), add_passes(op_.embed_gemm);
        ev_ag_.resize(static_cast<std::size_t>(layers_)), ev_fwd_.resize(ev_ag_.size());
        ev_agb_.resize(ev_ag_.size()), ev_bwd_.resize(ev_ag_.size());
    }

    void gemm(std::int64_t m, std::int64_t n, std::int64_t k, bool fp8) {
        if (m <= 0 || n <= 0 || k <= 0) return;
        gemms_.at(Key{m, n, k, fp8}).run(a_.get(), b_.get(), d_.get(), cs_.get());
    }
    void forward(const GemmOp& g) { gemm(t_, static_cast<std::int64_t>(g.n), static_cast<std::int64_t>(g.k), g.fp8); }
    void backward(const GemmOp& g) {
        const auto n = static_cast<std::int64_t>(g.n), k = static_cast<std::int64_t>(g.k);
        gemm(t_, k, n, g.fp8), gemm(k, n, t_, g.fp8);
    }

    // Memory-bound work of `bytes` read + written, in passes over the scratch buffers.
    void memory(double bytes) {
        auto left = static_cast<std::size_t>(std::max(0.0, bytes) / 6.0);  // 6 B per element
        while (left > 0) {
            const std::size_t now = std::min(left, kScratchElems);
            LS_CUDA(elementwise_bf16(x_.get(), y_.get(), now, cs_.get()));
            left -= now;
        }
    }

    // Fused attention (cuDNN SDPA, attention_cudnn.hpp) at the shapes compute_model.cpp's
    // compute_times times: the micro-batch's tokens as causal sequences of seq_len, or,
    // with attention_span_tokens, as documents of 2·span tokens (a causal document's mean
    // span is half its length); the model's sliding window on its windowed layers.
    void prepare_attention_calls() {
        std::int64_t len = cfg_.seq_len;
        if (cfg_.attention_span_tokens > 0)
            len = std::clamp<std::int64_t>(std::llround(2.0 * cfg_.attention_span_tokens), 1, cfg_.seq_len);
        attn_[0] = AttentionShape{std::max<std::int64_t>(1, t_ / std::max<std::int64_t>(1, len)),
                                  len,
                                  cut_.num_heads,
                                  cut_.num_kv_heads,
                                  cut_.head_dim,
                                  true,
                                  0};
        attn_[1] = attn_[0];
        if (cut_.sliding_window > 0 && cut_.sliding_window < len) attn_[1].window = cut_.sliding_window;
        for (std::size_t w = 0; w < 2; ++w) {
            if (w == 1 && (attn_[1] == attn_[0] || cut_.sliding_window_layers <= 0)) break;
            for (const bool back : {false, true}) {
                std::size_t ws = 0;
                const std::string why = prepare_attention(attn_[w], back, &ws);
                if (!why.empty() && unsupported_.empty()) unsupported_ = why;
                attn_ws_ = std::max(attn_ws_, ws);
            }
        }
    }

    // Q, K, V, O, dO, dQ, dK, dV in bf16, the fp32 Stats and cuDNN's workspace.
    double attention_bytes() const {
        const AttentionShape& s = attn_[0];
        return static_cast<double>(8 * s.q_elems() + 8 * s.kv_elems() + 4 * s.stats_elems() + attn_ws_);
    }

    void allocate_attention() {
        const AttentionShape& s = attn_[0];
        const auto buffer = [&](std::size_t bytes) {
            attn_mem_.emplace_back(bytes);
            return attn_mem_.back().get();
        };
        AttentionBuffers& b = attn_buf_;
        b.q = buffer(2 * s.q_elems()), b.o = buffer(2 * s.q_elems()), b.d_o = buffer(2 * s.q_elems());
        b.dq = buffer(2 * s.q_elems());
        b.k = buffer(2 * s.kv_elems()), b.v = buffer(2 * s.kv_elems());
        b.dk = buffer(2 * s.kv_elems()), b.dv = buffer(2 * s.kv_elems());
        b.stats = static_cast<float*>(buffer(4 * s.stats_elems()));
        b.workspace = buffer(attn_ws_);
        LS_CUDA(fill_bf16(b.q, s.q_elems(), 11, 1.0f, cs_.get()));
        LS_CUDA(fill_bf16(b.k, s.kv_elems(), 12, 1.0f, cs_.get()));
        LS_CUDA(fill_bf16(b.v, s.kv_elems(), 13, 1.0f, cs_.get()));
        LS_CUDA(fill_bf16(b.d_o, s.q_elems(), 14, 1.0f, cs_.get()));
        run_attention(cs_.get(), s, false, b);  // O and Stats for the first backward
    }

    // cut_.sliding_window_layers of the layers_ spread evenly (every other one for Gemma 2,
    // all for Mistral v0.1); which ones does not change the step's time.
    bool windowed(std::size_t l) const {
        const std::int64_t w = std::clamp<std::int64_t>(cut_.sliding_window_layers, 0, layers_);
        const auto i = static_cast<std::int64_t>(l);
        return layers_ > 0 && (i + 1) * w / layers_ > i * w / layers_;
    }

    void attention(bool backward, std::size_t l) {
        run_attention(cs_.get(), attn_[windowed(l) ? 1 : 0], backward, attn_buf_);
    }

    void layer_forward(std::size_t l, bool recompute) {
        // An early-stopping recompute leaves out the last GEMM and residual add (compute_times).
        const bool stop = recompute && op_.recompute_early_stop;
        const int gemms = stop ? op_.layer_gemm_count - 1 : op_.layer_gemm_count;
        for (int i = 0; i < gemms; ++i) forward(op_.layer_gemms[static_cast<std::size_t>(i)]);
        attention(false, l);
        memory(op_.layer_forward_bytes_per_token * static_cast<double>(t_) -
               (stop ? op_.recompute_skipped_bytes_per_token * static_cast<double>(t_) : 0.0) +
               (recompute ? 0.0 : op_.layer_forward_fixed_bytes + op_.fsdp_layer_forward_bytes));
    }

    void layer_backward(std::size_t l) {
        // Layers torchtitan wraps (every checkpoint_every-th) recompute their forward first.
        const bool wrapped = (static_cast<std::int64_t>(l) + 1) % std::max<std::int64_t>(1, cfg_.checkpoint_every) == 0;
        if (wrapped && op_.checkpointing == Checkpointing::full) layer_forward(l, true);
        if (wrapped && op_.checkpointing == Checkpointing::selective) {
            for (int i = 0; i < op_.layer_gemm_count; ++i)
                if (op_.layer_gemms[static_cast<std::size_t>(i)].selective_recompute)
                    forward(op_.layer_gemms[static_cast<std::size_t>(i)]);
            memory(op_.layer_forward_bytes_per_token * static_cast<double>(t_));
        }
        for (int i = op_.layer_gemm_count; i-- > 0;) backward(op_.layer_gemms[static_cast<std::size_t>(i)]);
        attention(true, l);
        memory(op_.layer_backward_bytes_per_token * static_cast<double>(t_) + op_.layer_backward_fixed_bytes +
               op_.fsdp_layer_backward_bytes);
    }

    void head(bool back) {
        const double t = static_cast<double>(t_);
        if (!back) {
            if (op_.project_gemm.n > 0) forward(op_.project_gemm);
            forward(op_.head_gemm);
            memory(op_.head_forward_bytes_per_token * t);
        } else {
            backward(op_.head_gemm);
            if (op_.project_gemm.n > 0) backward(op_.project_gemm);
            memory(op_.head_backward_bytes_per_token * t);
        }
    }

    void embed(bool back) {
        const double t = static_cast<double>(t_);
        if (!back) {
            if (op_.embed_gemm.n > 0) forward(op_.embed_gemm);
            memory(op_.embed_forward_bytes_per_token * t + op_.fsdp_root_gather_bytes);
        } else {
            if (op_.embed_gemm.n > 0) backward(op_.embed_gemm);
            memory(op_.embed_backward_bytes_per_token * t + op_.embed_backward_fixed_bytes +
                   op_.fsdp_root_reduce_bytes);
        }
    }

    void gather(double bytes, std::size_t slot) {
        nccl_.enqueue(comm_, Collective::all_gather, bytes, false, ag_send_.get(), slot_[slot].get(), ns_.get());
    }
    void gather_root() {
        nccl_.enqueue(comm_, Collective::all_gather, root_bytes_, false, ag_send_.get(), root_.get(), ns_.get());
    }
    void reduce(double bytes) {
        nccl_.enqueue(comm_, Collective::reduce_scatter, bytes, rb_ == 4, rs_send_.get(), rs_recv_.get(), ns_.get());
    }
    static void wait(const Stream& s, const Event& e) { LS_CUDA(cudaStreamWaitEvent(s.get(), e.get(), 0)); }

    const Lt& lt_;
    Nccl& nccl_;
    void* comm_;
    ModelSpec cut_;
    TrainingConfig cfg_;
    ParameterCounts pc_;
    OperationPlan op_;
    std::int64_t t_ = 0;
    int n_ = 1, layers_ = 0, rb_ = 2;
    double layer_bytes_ = 0, root_bytes_ = 0, optimizer_bytes_ = 0;
    std::map<Key, LtGemm> gemms_;
    std::size_t max_a_ = 0, max_b_ = 0, max_d_ = 0;
    std::string unsupported_;
    Stream cs_, ns_;
    DeviceBuffer a_, b_, d_, x_, y_, ag_send_, rs_send_, rs_recv_, root_;
    DeviceBuffer slot_[2];
    std::vector<Event> ev_ag_, ev_fwd_, ev_agb_, ev_bwd_;
    AttentionShape attn_[2];  // global layers, sliding-window layers
    std::size_t attn_ws_ = 0;
    std::vector<DeviceBuffer> attn_mem_;
    AttentionBuffers attn_buf_;
    Event ev_root_{false}, ev_embed_{false}, ev_comm_{false};
};

}  // namespace

Timing run_microrun(World& w, const Plan& p, const MicrorunCase& c, int warmup, int repeats, double timeout_s,
                    const Lt& lt, Nccl& nccl) {
    if (const std::string why = microrun_unsupported(c); !why.empty()) {
        if (w.rank() >= c.config.gpus) return {0, 0, "not in the ring", 0};
        return {0, 0, why, 0};
    }
    const bool ring = w.rank() < c.config.gpus;
    void* comm = c.config.gpus > 1 ? nccl.ring(static_cast<int>(c.config.gpus)) : nullptr;
    std::unique_ptr<Step> step;
    std::string skip;
    if (ring) {
        try {
            step = std::make_unique<Step>(p, c, lt, nccl, comm);
            skip = step->unsupported();
            if (skip.empty()) require_free(step->bytes());
            if (skip.empty()) step->allocate();
        } catch (const OutOfMemory& e) {
            skip = e.what();
        }
    }
    skip = agree_skip(w, skip, timeout_s, "microrun");
    if (!ring) return {0, 0, "not in the ring", 0};
    if (!skip.empty()) return {0, 0, skip, 0};
    Event start, stop;
    for (int r = 0; r < warmup; ++r) {
        step->enqueue(start, stop);
        step->wait_step(timeout_s);
    }
    std::vector<double> secs;
    for (int r = 0; r < repeats; ++r) {
        step->enqueue(start, stop);
        step->wait_step(timeout_s);
        secs.push_back(elapsed_s(start, stop));
    }
    return summarize(secs);
}

}  // namespace libscale::harness::cuda
