// The step model: one optimizer step of data-parallel training (FSDP/ZeRO-3 by default;
// HSDP, DDP, ZeRO-1, ZeRO-2), broken down into the time of each phase, throughput,
// utilization, memory per GPU and energy. docs/model.md states every term. The parts are
// named functions: compute (compute_model.hpp), communication and overlap per strategy,
// optimizer, data, checkpoint, energy (here) and memory (memory_model.hpp).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "libscale/calibrate/calibration.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/config_rules.hpp"
#include "libscale/estimate/memory_model.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/spec/model_spec.hpp"
#include "libscale/spec/training_config.hpp"

namespace libscale {

struct StepBreakdown {
    // configuration the step was resolved to
    std::int64_t gpus = 0;
    std::int64_t gpus_per_node = 0;
    std::int64_t nodes = 0;  // nodes the GPUs span (the last may be partial)
    // The device mesh (spec/parallelism.hpp): ranks holding distinct micro-batches, and the
    // tensor- and context-parallel GPUs of each.
    std::int64_t data_parallel = 0;
    std::int64_t tensor_parallel = 1;
    std::int64_t context_parallel = 1;
    std::int64_t expert_parallel = 1;   // of a mixture of experts: ranks its experts split over
    std::int64_t grad_accum = 0;        // micro-batches per step, A
    double tokens_per_micro_batch = 0;  // per data-parallel rank (per GPU without TP or CP), t
    double tokens_per_step = 0;         // global batch, B = data_parallel·t·A
    // time per step, seconds
    double compute_s = 0;              // all GPU compute (forward, backward, recompute)
    double gemm_s = 0;                 // of which GEMMs,
    double attention_s = 0;            // fused attention,
    double memory_bound_s = 0;         // memory-bound kernels,
    double host_wait_s = 0;            // and the GPU waiting on the host
    double comm_s = 0;                 // all collectives, hidden or not
    double exposed_comm_s = 0;         // collective time not hidden under compute
    double model_parallel_comm_s = 0;  // of comm_s: tensor-, context- and expert-parallel collectives
    double optimizer_s = 0;
    double data_s = 0;        // input pipeline time not hidden by prefetch
    double checkpoint_s = 0;  // checkpoint write, amortized per step
    double step_time_s = 0;
    // throughput and utilization
    double tokens_per_s = 0;
    double tokens_per_s_per_gpu = 0;
    double mfu = 0;
    double hfu = 0;
    // true when every unit's communication fits under its compute; the only exposed
    // communication is then the first all-gather and the last reduce-scatter
    bool comm_hidden = false;
    double energy_per_step_j = 0;  // all GPUs
    MemoryBreakdown memory;
};

// What a configuration needs of the calibration (fp8 GEMM coefficients for fp8 layers).
void validate_calibration_for(const Calibration& cal, const TrainingConfig& c);
// The same, leaving fp8 on hardware without fp8 to check_config (a per-configuration issue).
void validate_calibration_for(const HardwareProfile& hw, const Calibration& cal, const TrainingConfig& c);

// Validates everything, then estimates. Does not throw when the model does not fit:
// memory.fits says so (see require_fit).
StepBreakdown estimate_step(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal,
                            const TrainingConfig& c);

// No validation: callers that validated model, hardware and calibration once and
// checked the configuration with check_config (the sweep).
StepBreakdown estimate_step_unchecked(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                                      const Calibration& cal, const TrainingConfig& c) noexcept;
// The same with the micro-batch's compute already timed (compute_model.hpp): callers that
// estimate many configurations sharing a micro-batch (sweeps, projections over GPU
// counts) time it once.
StepBreakdown estimate_step_unchecked(const ModelSpec& m, const ParameterCounts& p, const HardwareProfile& hw,
                                      const Calibration& cal, const TrainingConfig& c, const ComputeTimes& ct) noexcept;

// The calibration harness's step micro-run (calibration/, docs/calibration.md): one FSDP
// step of the model cut to `layers` decoder layers (sliding-window layers in proportion),
// one micro-batch per GPU, no input pipeline and no checkpoint, timed by the kernel laws
// alone: the harness launches its kernels from C++, so framework_efficiency is 1 and the
// host overheads (kernel, layer, step) are 0. Throws std::invalid_argument for `layers`
// outside 1..num_layers or a configuration validate_config rejects.
StepBreakdown estimate_microrun(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal,
                                const TrainingConfig& c, std::int64_t layers);

// Time of the parts of a step (each a named function of step_model.cpp), exposed for tests.
// The optimizer's step over the local shard of the trained parameters (fine_tuning.hpp):
// bytes read and written over HBM.
double optimizer_step_s(const FineTuningPlan& ft, const HardwareProfile& hw, const Calibration& cal,
                        const TrainingConfig& c) noexcept;

// Throws DoesNotFitError with needed vs available GiB and what would make it fit
// (fit_suggestion, fit_advice.hpp).
void require_fit(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal, const TrainingConfig& c,
                 const StepBreakdown& s);

std::ostream& operator<<(std::ostream& os, const StepBreakdown& s);

}  // namespace libscale
