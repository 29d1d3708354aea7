// The device mesh of a run: how its GPUs split into data-parallel replicas and shards,
// context-parallel and tensor-parallel ranks (torchtitan's ParallelDims: dp_replicate ×
// dp_shard × cp × tp, innermost last), and the slice of a model that one tensor-parallel
// rank holds. docs/model.md "Tensor and context parallel" states what each degree divides.
#pragma once

#include <cstdint>
#include <string>

#include "libscale/spec/hardware.hpp"
#include "libscale/spec/model_spec.hpp"
#include "libscale/spec/training_config.hpp"

namespace libscale {

struct DeviceMesh {
    std::int64_t dp_replicate = 1;  // HSDP replicas (DDP and ZeRO: every rank)
    std::int64_t dp_shard = 1;      // FSDP shards of a replica that hold distinct batches
    std::int64_t cp = 1;            // context-parallel ranks of a sequence
    std::int64_t tp = 1;            // tensor-parallel ranks of a layer, inside one node
    // Expert-parallel ranks a mixture-of-experts layer's experts split over: a sub-group of
    // the shard group, not a factor of gpus (torchtitan's sparse mesh dp_replicate × efsdp × ep).
    std::int64_t ep = 1;
    bool ulysses = false;  // context parallel by Ulysses' all-to-alls, not the ring (context_parallel_method)
    // FSDP shards parameters over the data- and context-parallel ranks of a replica
    // (torchtitan's dp_shard_cp mesh): the group each all-gather and reduce-scatter spans.
    std::int64_t shard_group() const noexcept { return dp_shard * cp; }
    std::int64_t data_parallel() const noexcept { return dp_replicate * dp_shard; }
    // The ranks one expert's parameters are FSDP-sharded over (torchtitan's efsdp).
    std::int64_t expert_shard_group() const noexcept { return ep > 1 ? shard_group() / ep : shard_group(); }
    std::int64_t gpus() const noexcept { return dp_replicate * dp_shard * cp * tp; }
};

// The GPUs in one node of the run: the configuration's gpus_per_node where given, else
// the hardware's.
std::int64_t node_gpus(const TrainingConfig& c, const HardwareProfile& hw) noexcept;

// The mesh of a configuration that keeps the parallel rules (config_rules.hpp); HSDP
// shards inside a node of `gpus_per_node` GPUs and replicates across nodes.
DeviceMesh device_mesh(const TrainingConfig& c, std::int64_t gpus_per_node) noexcept;

// "dp_shard 8 × tp 8" style: the degrees above 1 (just "1 GPU" for one); expert parallel
// in brackets after the group it splits, "dp_shard 16 (ep 8)", and Ulysses after the
// context-parallel degree, "dp_shard 2 × cp 4 (ulysses)".
std::string format_mesh(const DeviceMesh& mesh);

// What one of `tp` tensor-parallel ranks holds of a decoder layer and of the head, as a
// model of its own: attention heads and key/value heads, the MLP's intermediate width
// and the vocabulary (the embedding row-wise, the output projection column-wise and the
// loss over the vocabulary shard, torchtitan's loss_parallel) divided by tp; the hidden
// size, the norms and the row-parallel biases stay whole (replicated). Its parameter
// counts are one rank's. `tp` == 1 returns the model unchanged.
ModelSpec tensor_parallel_slice(const ModelSpec& m, std::int64_t tp);

}  // namespace libscale
