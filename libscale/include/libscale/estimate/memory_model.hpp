// Memory per GPU: sharded weights, gradients and optimizer state (by optimizer and
// master-weight dtype), activations saved for backward (by checkpointing), logits, FSDP's
// unsharded buffers, the caching allocator's fragmentation and the runtime's reserve, and
// whether that fits within the stated margin. docs/model.md "Memory" gives each term.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string_view>

#include "libscale/calibrate/calibration.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/spec/model_spec.hpp"
#include "libscale/spec/training_config.hpp"

namespace libscale {

// Whether a configuration fits in the GPU's memory, given the estimate's stated margin.
enum class FitStatus : std::uint8_t {
    fits,          // even the estimate plus its margin fits
    uncertain,     // the limit lies within the margin of the estimate
    does_not_fit,  // even the estimate minus its margin does not fit
};
const char* to_string(FitStatus f);

struct MemoryBreakdown {
    double weights_gib = 0;
    double grads_gib = 0;
    double optimizer_gib = 0;      // master weights (when fp32) and optimizer states
    double activations_gib = 0;    // saved for backward, including one recomputed layer
    double logits_gib = 0;         // logits and what the loss keeps of them
    double buffers_gib = 0;        // unsharded parameter / gradient buffers (FSDP, HSDP)
    double fragmentation_gib = 0;  // the caching allocator's reserved-but-unallocated share
    double reserved_gib = 0;       // CUDA context, workspaces, NCCL (calibration)
    // What each of the ways a peak is reported counts: PyTorch's caching allocator hands out
    // tensors (torch.cuda.max_memory_allocated: weights to buffers above) and holds them in
    // segments (max_memory_reserved: with fragmentation); nvidia-smi sees the process (with
    // the runtime's reserve besides): total_gib.
    double allocated_gib = 0;
    double allocator_reserved_gib = 0;
    double total_gib = 0;
    double available_gib = 0;  // the GPU's HBM
    double margin = 0;         // relative uncertainty of total_gib (calibration)
    FitStatus status = FitStatus::does_not_fit;
    // status == fits: the only status a plan may count on. 'uncertain' (the GPU's memory
    // lies within the estimate's margin) is not fitting: a run that might run out of memory
    // is not one to launch, and --require-fit, sweeps and the solvers treat it so.
    bool fits = false;
};

// Bytes per parameter held by the optimizer beyond the bf16 weights and gradients: the
// fp32 master copy (when master_weights is fp32) and the states. Adafactor's factored
// second moment depends on the matrix shapes, hence the model.
double optimizer_bytes_per_parameter(const ModelSpec& m, const ParameterCounts& p, const TrainingConfig& c);

// Memory per GPU of configuration c (validated by the caller). shard_group: GPUs that
// share one copy of the sharded state (N for FSDP, the node for HSDP).
MemoryBreakdown estimate_memory(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                                const Calibration& cal, const TrainingConfig& c, std::int64_t shard_group) noexcept;

// The estimate comparable with a peak reported as `kind` (a measurement's memory_kind):
// "allocated" and "active" → allocated_gib, "reserved" → allocator_reserved_gib,
// "nvidia-smi" (and anything else) → total_gib.
double memory_of_kind(const MemoryBreakdown& mem, std::string_view kind) noexcept;

std::ostream& operator<<(std::ostream& os, const MemoryBreakdown& mem);

}  // namespace libscale
