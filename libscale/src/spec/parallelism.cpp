#include "libscale/spec/parallelism.hpp"

#include <algorithm>
#include <string>

namespace libscale {

std::int64_t node_gpus(const TrainingConfig& c, const HardwareProfile& hw) noexcept {
    return c.gpus_per_node > 0 ? c.gpus_per_node : hw.gpus_per_node;
}

DeviceMesh device_mesh(const TrainingConfig& c, std::int64_t gpus_per_node) noexcept {
    DeviceMesh mesh;
    mesh.tp = std::max<std::int64_t>(c.tensor_parallel, 1);
    mesh.cp = std::max<std::int64_t>(c.context_parallel, 1);
    mesh.ep = std::max<std::int64_t>(c.expert_parallel, 1);
    mesh.ulysses = mesh.cp > 1 && c.context_parallel_method == ContextParallelMethod::ulysses;
    const std::int64_t model = mesh.tp * mesh.cp;
    switch (c.strategy) {
        case Strategy::fsdp: mesh.dp_shard = std::max<std::int64_t>(c.gpus / model, 1); break;
        case Strategy::hsdp: {
            const std::int64_t node = std::min(c.gpus, std::max<std::int64_t>(gpus_per_node, 1));
            mesh.dp_shard = std::max<std::int64_t>(node / model, 1);
            mesh.dp_replicate = std::max<std::int64_t>(c.gpus / (mesh.dp_shard * model), 1);
            break;
        }
        case Strategy::ddp:
        case Strategy::zero1:
        case Strategy::zero2: mesh.dp_replicate = std::max<std::int64_t>(c.gpus / model, 1); break;
    }
    return mesh;
}

std::string format_mesh(const DeviceMesh& mesh) {
    std::string out;
    const auto add = [&](const char* name, std::int64_t degree) {
        if (degree <= 1) return;
        if (!out.empty()) out += " × ";
        out += name;
        out += ' ';
        out += std::to_string(degree);
    };
    add("dp_replicate", mesh.dp_replicate);
    add("dp_shard", mesh.dp_shard);
    add("cp", mesh.cp);
    if (mesh.ulysses && mesh.cp > 1) out += " (ulysses)";
    add("tp", mesh.tp);
    if (mesh.ep > 1) {
        if (!out.empty()) out += ' ';
        out += "(ep ";
        out += std::to_string(mesh.ep);
        out += ')';
    }
    return out.empty() ? std::string("1 GPU") : out;
}

ModelSpec tensor_parallel_slice(const ModelSpec& m, std::int64_t tp) {
    if (tp <= 1) return m;
    ModelSpec r = m;
    // At least one of each, so that a caller that skipped the tensor_parallel_model rule
    // gets a model that still validates (estimates are noexcept).
    r.num_heads = std::max<std::int64_t>(m.num_heads / tp, 1);
    r.num_kv_heads = std::max<std::int64_t>(m.num_kv_heads / tp, 1);
    if (r.num_heads % r.num_kv_heads != 0) r.num_kv_heads = 1;
    r.intermediate_size = std::max<std::int64_t>(m.intermediate_size / tp, 1);
    // DTensor shards an uneven vocabulary unevenly: the largest shard is ceil(V / tp).
    r.vocab_size = (m.vocab_size + tp - 1) / tp;
    return r;
}

}  // namespace libscale
