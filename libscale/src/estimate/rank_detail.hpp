// One tensor-parallel rank's model (spec/parallelism.hpp tensor_parallel_slice) given
// made, for the estimate/ sources only: the public entry points make the slice once per
// estimate; rank_layouts makes it once per degree for the many layouts that share it.
#pragma once

#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/memory_model.hpp"
#include "libscale/estimate/step_model.hpp"

namespace libscale::detail {

// A mixture of experts, as compute, memory and the step all read it (0 for a dense model):
// the share of the layers that have experts; a token's routed rows on the busiest
// expert-parallel rank (k × the imbalance); the routed-expert parameters of one MoE layer a
// rank does not hold gathered under expert parallel (all E but its E / ep).
inline double moe_share(const ModelSpec& m) noexcept {
    return m.moe() && m.num_layers > 0 ? static_cast<double>(m.moe_layers) / static_cast<double>(m.num_layers) : 0.0;
}
inline double routed_rows(const ModelSpec& m, double imbalance) noexcept {
    return static_cast<double>(m.experts_per_token) * (imbalance > 1.0 ? imbalance : 1.0);
}
inline double routed_experts_not_held(const ParameterCounts& p, std::int64_t expert_parallel) noexcept {
    return expert_parallel > 1
               ? static_cast<double>(p.routed_experts) * (1.0 - 1.0 / static_cast<double>(expert_parallel))
               : 0.0;
}

// Ulysses context parallel: the all-to-alls carry each key/value head to every rank that
// attends with it, cp / h_kv copies when there are fewer heads than ranks (DeepSpeed ALST
// UlyssesSPAttentionHF repeat_interleave, kv_replication_factor), 0 without Ulysses.
inline double ulysses_kv_copies(const ModelSpec& m, const TrainingConfig& c) noexcept {
    if (c.context_parallel <= 1 || c.context_parallel_method != ContextParallelMethod::ulysses) return 0.0;
    return m.num_kv_heads > 0 && c.context_parallel > m.num_kv_heads
               ? static_cast<double>(c.context_parallel) / static_cast<double>(m.num_kv_heads)
               : 1.0;
}

// m and p: the slice a GPU holds (the whole model without tensor parallel) and its counts.
OperationPlan rank_operations(const ModelSpec& m, const ParameterCounts& p, const TrainingConfig& c);
MemoryBreakdown rank_memory(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                            const Calibration& cal, const TrainingConfig& c, std::int64_t shard_group) noexcept;
// m, p: the whole model (MFU and the collectives' sizes); rank, counts: the slice.
StepBreakdown rank_step(const ModelSpec& m, const ParameterCounts& p, const ModelSpec& rank,
                        const ParameterCounts& counts, const HardwareProfile& hw, const Calibration& cal,
                        const TrainingConfig& c) noexcept;
// The same with the micro-batch's compute timed and the memory (rank_memory over the mesh's
// shard group, for FSDP and HSDP) made already: rank_layouts shares them among the layouts
// that differ only in what they do not depend on.
StepBreakdown rank_step(const ModelSpec& m, const ParameterCounts& p, const ModelSpec& rank,
                        const ParameterCounts& counts, const HardwareProfile& hw, const Calibration& cal,
                        const TrainingConfig& c, const ComputeTimes& ct, const MemoryBreakdown& memory) noexcept;

}  // namespace libscale::detail
