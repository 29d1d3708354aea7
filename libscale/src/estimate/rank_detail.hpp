// One tensor-parallel rank's model (spec/parallelism.hpp tensor_parallel_slice) given
// made, for the estimate/ sources only: the public entry points make the slice once per
// estimate; rank_layouts makes it once per degree for the many layouts that share it.
#pragma once

#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/memory_model.hpp"
#include "libscale/estimate/step_model.hpp"

namespace libscale::detail {

// m and p: the slice a GPU holds (the whole model without tensor parallel) and its counts.
OperationPlan rank_operations(const ModelSpec& m, const ParameterCounts& p, const TrainingConfig& c);
MemoryBreakdown rank_memory(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                            const Calibration& cal, const TrainingConfig& c, std::int64_t shard_group) noexcept;
// m, p: the whole model (MFU and the collectives' sizes); rank, counts: the slice.
StepBreakdown rank_step(const ModelSpec& m, const ParameterCounts& p, const ModelSpec& rank,
                        const ParameterCounts& counts, const HardwareProfile& hw, const Calibration& cal,
                        const TrainingConfig& c) noexcept;

}  // namespace libscale::detail
