#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "libscale/estimate/compute_model.hpp"

namespace libscale::harness {

const char* to_string(PowerPhaseKind k) {
    switch (k) {
        case PowerPhaseKind::idle: return "idle";
        case PowerPhaseKind::gemm: return "gemm";
        case PowerPhaseKind::nccl: return "nccl";
        case PowerPhaseKind::host_starved: return "host_starved";
        case PowerPhaseKind::spin: return "spin";
    }
    return "?";
}

const char* triage_phase(PowerPhaseKind k) {
    switch (k) {
        case PowerPhaseKind::idle: return "idle";
        case PowerPhaseKind::gemm: return "compute";
        case PowerPhaseKind::nccl: return "communication";
        case PowerPhaseKind::host_starved: return "data_starvation";
        case PowerPhaseKind::spin: return "checkpoint_or_deadlock";
    }
    return "?";
}

double collective_time_s(const CollectiveCase& c, const Calibration& cal) {
    if (c.op == Collective::all_to_all) return all_to_all_time_s(c.bytes, c.ranks, c.ranks_per_node, cal);
    return ring_time_s(c.op, c.bytes, c.ranks, ring_link(c.ranks, c.ranks_per_node, cal));
}

std::string describe(const GemmCase& g) {
    std::ostringstream s;
    s << "GEMM " << g.label << " m=" << g.m << " n=" << g.n << " k=" << g.k << (g.fp8 ? " fp8" : " bf16");
    return s.str();
}
std::string describe(const AttentionCase& a) {
    std::ostringstream s;
    s << "attention " << (a.backward ? "backward" : "forward") << " seq_len=" << a.seq_len << " batch=" << a.batch;
    return s.str();
}
std::string describe(const CollectiveCase& c) {
    std::ostringstream s;
    s << to_string(c.op) << " " << c.bytes << " B over " << c.ranks << " ranks (" << c.label << ")";
    return s.str();
}
std::string describe(const MicrorunCase& m) {
    return "step micro-run " + std::to_string(m.layers) + " layers on " + std::to_string(m.config.gpus) + " GPUs";
}

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Ring sizes in a node: powers of two up to the node's GPUs, and the node itself.
std::vector<int> ring_sizes(int local_size) {
    std::vector<int> out;
    for (int k = 2; k <= local_size; k *= 2) out.push_back(k);
    if (local_size >= 2 && out.back() != local_size) out.push_back(local_size);
    return out;
}

// NCCL splits a buffer into `ranks` equal chunks of whole elements (4 bytes at most).
double whole_chunks(double bytes, int ranks) {
    const double unit = 256.0 * ranks;
    return std::max(unit, std::floor(bytes / unit) * unit);
}

}  // namespace

Plan make_plan(const std::string& model_name, const ModelSpec& m, const HardwareProfile& hw, int world_size,
               int local_size, int nodes, const PlanOptions& o) {
    if (world_size < 1 || local_size < 1 || nodes < 1 || world_size < local_size)
        throw std::invalid_argument("world of " + std::to_string(world_size) + " ranks, " + std::to_string(local_size) +
                                    " per node, " + std::to_string(nodes) + " nodes: inconsistent");
    if (o.seq_len < 0) throw std::invalid_argument("seq_len = " + std::to_string(o.seq_len) + "; valid: >= 1 or 0");
    if (o.micro_batch < 1)
        throw std::invalid_argument("micro_batch = " + std::to_string(o.micro_batch) + "; valid: an integer >= 1");
    if (o.microrun_layers < 0 || o.microrun_layers > m.num_layers)
        throw std::invalid_argument("microrun_layers = " + std::to_string(o.microrun_layers) + "; valid: 1.." +
                                    std::to_string(m.num_layers) + " (or 0: the default)");
    if (!(o.power_phase_s >= 0) || o.power_phase_s > 3600)
        throw std::invalid_argument("power_phase_s = " + std::to_string(o.power_phase_s) +
                                    "; valid: seconds in [0, 3600] (0: the default)");

    Plan p;
    p.model_name = model_name;
    p.model = m;
    p.hardware = hw;
    p.warmup = o.quick ? 2 : 5;
    p.repeats = o.quick ? 5 : 20;
    const std::int64_t max_seq = m.max_position_embeddings > 0 ? m.max_position_embeddings : 8192;
    const std::int64_t seq = o.seq_len > 0 ? o.seq_len : std::min<std::int64_t>(8192, max_seq);
    if (seq > max_seq)
        throw std::invalid_argument("seq_len = " + std::to_string(seq) + "; valid: 1.." + std::to_string(max_seq) +
                                    " (the model's max_position_embeddings)");

    // GEMMs: forward (t×n×k), dgrad (t×k×n) and wgrad (k×n×t) of each matmul, over t.
    const std::vector<double> tokens =
        o.quick ? std::vector<double>{2048, 8192} : std::vector<double>{512, 1024, 2048, 4096, 8192, 16384};
    const bool fp8 = o.fp8 && hw.peak_fp8_tflops > 0;
    std::vector<std::pair<GemmOp, std::string>> ops;
    const LayerGemms lg = layer_gemms(m);
    for (int i = 0; i < lg.count; ++i)
        ops.emplace_back(lg.gemms[static_cast<std::size_t>(i)], "layer gemm " + std::to_string(i));
    GemmOp head;
    head.n = static_cast<double>(m.vocab_size);
    head.k = static_cast<double>(m.hidden_size);
    ops.emplace_back(head, "head");
    std::set<std::tuple<double, double, double, bool>> seen;
    const auto add_gemm = [&](double gm, double gn, double gk, bool f8, const std::string& label) {
        if (seen.insert({gm, gn, gk, f8}).second) p.gemm.push_back({gm, gn, gk, f8, label});
    };
    for (const double t : tokens)
        for (const auto& [g, name] : ops)
            for (const bool f8 : fp8 ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
                add_gemm(t, g.n, g.k, f8, name + " forward");
                add_gemm(t, g.k, g.n, f8, name + " dgrad");
                add_gemm(g.k, g.n, t, f8, name + " wgrad");
            }

    // Fused attention, causal, both passes, ~16k query tokens per call.
    std::vector<double> seqs =
        o.quick ? std::vector<double>{2048, 8192} : std::vector<double>{512, 1024, 2048, 4096, 8192, 16384, 32768};
    std::erase_if(seqs, [&](double s) { return s > static_cast<double>(max_seq); });
    for (const double s : seqs)
        for (const bool backward : {false, true})
            p.attention.push_back({std::max(1.0, std::floor(16384.0 / s)), s, static_cast<double>(m.num_heads),
                                   static_cast<double>(m.num_kv_heads), static_cast<double>(m.head_dim), true,
                                   backward});

    for (const double mib : o.quick ? std::vector<double>{64, 512} : std::vector<double>{8, 32, 128, 512, 2048})
        p.bandwidth.push_back({mib * kMiB});

    // Collectives: one layer's bf16 parameters (all-gather), its gradients in bf16 and
    // fp32 (reduce-scatter), the root unit, and a sweep from latency- to bandwidth-bound.
    // The sweep has all-to-all too (expert parallelism's token exchange): inside a node it
    // fits the same link as the rings, across nodes it shows the NICs without a ring.
    const ParameterCounts pc = count_parameters(m);
    const double layer = static_cast<double>(pc.per_layer), root = static_cast<double>(pc.root_unit);
    std::vector<std::tuple<Collective, double, std::string>> sizes = {
        {Collective::all_gather, 2 * layer, "layer parameters, bf16"},
        {Collective::reduce_scatter, 2 * layer, "layer gradients, bf16"},
        {Collective::reduce_scatter, 4 * layer, "layer gradients, fp32"},
    };
    if (!o.quick) sizes.emplace_back(Collective::all_gather, 2 * root, "root unit parameters, bf16");
    for (const double mib : o.quick ? std::vector<double>{1} : std::vector<double>{0.0625, 1, 16, 256})
        for (const Collective op :
             {Collective::all_gather, Collective::reduce_scatter, Collective::all_reduce, Collective::all_to_all})
            sizes.emplace_back(op, mib * kMiB, "sweep");
    std::vector<std::pair<int, int>> rings;  // (ranks, per node)
    for (const int k : ring_sizes(local_size)) rings.emplace_back(k, k);
    if (nodes > 1) rings.emplace_back(world_size, local_size);
    for (const auto& [ranks, per_node] : rings)
        for (const auto& [op, bytes, label] : sizes)
            p.collectives.push_back({op, ranks, per_node, whole_chunks(bytes, ranks), label});
    if (world_size < 2) p.notes.push_back("collectives skipped: one GPU (a ring needs two or more)");

    // The step micro-run at every power-of-two GPU count and the whole world.
    const std::int64_t layers =
        o.microrun_layers > 0 ? o.microrun_layers : std::min<std::int64_t>(o.quick ? 2 : 4, m.num_layers);
    std::vector<int> counts;
    for (int g = 1; g <= world_size; g *= 2) counts.push_back(g);
    if (counts.back() != world_size) counts.push_back(world_size);
    for (const int g : counts) {
        MicrorunCase c;
        c.config.gpus = g;
        c.config.gpus_per_node = std::min(g, local_size);
        c.config.seq_len = seq;
        c.config.micro_batch = o.micro_batch;
        c.config.activation_checkpointing = Checkpointing::none;
        c.layers = layers;
        p.microruns.push_back(c);
    }
    if (world_size < 2) p.notes.push_back("multi-GPU step micro-runs skipped: one GPU");

    p.power_phases = {PowerPhaseKind::idle, PowerPhaseKind::gemm, PowerPhaseKind::nccl, PowerPhaseKind::host_starved,
                      PowerPhaseKind::spin};
    if (world_size < 2) {
        std::erase(p.power_phases, PowerPhaseKind::nccl);
        p.notes.push_back("NCCL power phase skipped: one GPU; the communication band is not measured");
    }
    p.power_phase_s = o.power_phase_s > 0 ? o.power_phase_s : (o.quick ? 4.0 : 10.0);
    return p;
}

}  // namespace libscale::harness
