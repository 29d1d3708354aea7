// What would make a configuration fit in GPU memory, each change with what it costs, and
// how far a configuration can grow: the largest micro-batch and sequence length that fit.
// Every change moves one to three option groups of the configuration as given, its GPU
// count or sequence length, or one model-parallel degree (context, tensor or expert parallel
// at the same GPUs), and is estimated by the same step and memory model as the
// configuration itself (docs/model.md 5.1 "What would fit").
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "libscale/estimate/step_model.hpp"

namespace libscale {

struct Scenario;

struct FitChange {
    // The change in the API's keyword spelling: "activation_checkpointing='full'",
    // "micro_batch=1, global_batch_tokens=65536", "gpus=32".
    std::string change;
    TrainingConfig config;  // the configuration with the change
    double memory_gib = 0;  // the estimate with the change (total_gib: what is compared with the GPU)
    double step_time_s = 0;
    double tokens_per_s_per_gpu = 0;
    // GPU-hours for the same tokens, relative to the configuration as given: its tokens/s
    // per GPU over the change's (> 1: dearer). Equal to the step-time ratio when the
    // change keeps the GPUs and the global batch.
    double gpu_hours_ratio = 1;
    // What else the change alters ("" when only time and memory): a different global batch,
    // shorter sequences, other optimizer numerics. A planner weighs these beside the cost.
    std::string caveat;
};

struct FitAdvice {
    StepBreakdown step;  // the configuration as given (step.memory: its verdict)
    // Each makes the configuration fit (status fits): one option group moved, or two (three)
    // where no one (two) of them is enough. Those without a caveat first, then those that
    // change the recipe; cheapest first within each. Empty when the configuration fits
    // already or nothing tried does.
    std::vector<FitChange> changes;
    // The largest micro-batch and sequence length that fit with every other option as given
    // (global_batch_tokens unset: one micro-batch per GPU per step); 0 when none does.
    // max_seq_len stops at the model's max_position_embeddings.
    std::int64_t max_micro_batch = 0;
    std::int64_t max_seq_len = 0;
};

// Validates nothing: m, hw, cal and c must be valid (fit_advice(Scenario) checks them).
FitAdvice fit_advice(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal, const TrainingConfig& c);
// Validates the scenario first (Scenario::validate).
FitAdvice fit_advice(const Scenario& s);

// The advice as a sentence: "to fit, try X (GPU-hours x1.05), or Y (x1.30)", at most
// `max_changes` of them; "" when there is none.
std::string fit_advice_text(const FitAdvice& a, std::size_t max_changes = 4);

// fit_advice_text of fit_advice(...)'s changes (the size searches skipped): what require_fit's error and
// a projection row say.
std::string fit_suggestion(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal,
                           const TrainingConfig& c);
std::string fit_suggestion(const Scenario& s);

std::ostream& operator<<(std::ostream& os, const FitChange& f);
std::ostream& operator<<(std::ostream& os, const FitAdvice& a);

}  // namespace libscale
