// Memory per GPU: the peak over a step's phases (forward, loss, backward, the last
// reduction, the optimizer step) of what is alive in each: sharded weights, gradients and
// optimizer state (by optimizer and master-weight dtype), activations saved for backward
// (by checkpointing and the model code), the loss's logits, FSDP's unsharded buffers; then
// the caching allocator's fragmentation and the runtime's reserve, and whether that fits
// within the stated margin. docs/model.md "Memory per GPU" gives each term and its source.
#pragma once

#include <array>
#include <cstddef>
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

// The phase of a step whose live tensors are the peak.
enum class MemoryPhase : std::uint8_t {
    forward,    // the last decoder layer's forward, every earlier layer's activations saved
    loss,       // the loss over the vocabulary and its gradient, every activation saved
    backward,   // a decoder layer's backward: recomputed, its gradients, reductions in flight
    reduction,  // the end of backward: the root unit's gradients reduced
    optimizer,  // the optimizer step over the sharded gradients
};
const char* to_string(MemoryPhase p);

struct MemoryBreakdown {
    // What is alive at the peak (peak_phase), by kind. Under FSDP/HSDP the sharded
    // parameters are the master weights (fp32 or bf16) and their gradients take the same
    // dtype; the optimizer then holds its states only.
    double weights_gib = 0;
    double grads_gib = 0;        // sharded gradients alive at the peak (none before backward)
    double optimizer_gib = 0;    // optimizer states, and master weights kept apart (DDP, ZeRO)
    double activations_gib = 0;  // saved for backward, a recomputed layer, backward's working set
    double logits_gib = 0;       // logits and what the loss makes of them
    double buffers_gib = 0;      // unsharded parameters and gradients, reduction buffers (FSDP, HSDP)
    MemoryPhase peak_phase = MemoryPhase::optimizer;
    // Allocated in each phase, indexed by MemoryPhase: the peak is their maximum, and how
    // far the others lie below it says what a change elsewhere in the step would gain.
    static constexpr std::size_t kPhases = 5;
    std::array<double, kPhases> phase_gib{};
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

// Memory per GPU of configuration c (validated by the caller). m and p: the whole model
// (under tensor parallel a rank holds its slice, spec/parallelism.hpp). shard_group: GPUs
// that share one copy of the sharded state (DeviceMesh::shard_group for FSDP and HSDP).
MemoryBreakdown estimate_memory(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                                const Calibration& cal, const TrainingConfig& c, std::int64_t shard_group) noexcept;

// The estimate comparable with a peak reported as `kind` (a measurement's memory_kind):
// "allocated" and "active" → allocated_gib, "reserved" → allocator_reserved_gib,
// "nvidia-smi" (and anything else) → total_gib.
double memory_of_kind(const MemoryBreakdown& mem, std::string_view kind) noexcept;

std::ostream& operator<<(std::ostream& os, const MemoryBreakdown& mem);

}  // namespace libscale
