// Choosing a layout (docs/model.md section 9, "Choosing a layout"): every way to lay a
// scenario's run out on its GPUs (FSDP or HSDP, tensor-, context- and expert-parallel
// degrees, ring or Ulysses context parallel, micro-batch, activation checkpointing) at
// the scenario's global batch, each estimated; those that fit, fastest first. At a fixed GPU count the fastest layout
// is also the one that costs the fewest GPU-hours for the same tokens.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "libscale/estimate/scenario.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/estimate/uncertainty.hpp"
#include "libscale/spec/parallelism.hpp"

namespace libscale {

struct LayoutSearch {
    std::vector<Strategy> strategies = {Strategy::fsdp, Strategy::hsdp};
    // Empty: 1 and each power of two up to the node's GPU count (the rules drop those that
    // do not divide the model or the node).
    std::vector<std::int64_t> tensor_parallel;
    // Empty: 1 and each power of two up to the GPU count.
    std::vector<std::int64_t> context_parallel;
    // How context parallel splits attention, each tried at every degree above 1.
    std::vector<ContextParallelMethod> context_parallel_methods = {ContextParallelMethod::ring,
                                                                   ContextParallelMethod::ulysses};
    // Empty: for a mixture of experts 1 and each power of two up to its expert count and the
    // GPU count; for a dense model 1.
    std::vector<std::int64_t> expert_parallel;
    std::vector<std::int64_t> micro_batch = {1, 2, 4, 8};
    std::vector<Checkpointing> checkpointing = {Checkpointing::none, Checkpointing::selective, Checkpointing::full};
    // The leading rows whose tokens/s P10–P90 is drawn from the calibration (uncertainty.hpp).
    std::int64_t intervals = 10;
    UncertaintyOptions uncertainty;
};

struct LayoutRow {
    TrainingConfig config;  // the scenario's, with the layout's options
    DeviceMesh mesh;
    StepBreakdown step;
    Quantiles tokens_per_s;  // P10 / P50 / P90 of the leading rows; zeros for the others
};

struct LayoutRanking {
    std::vector<LayoutRow> rows;           // layouts that fit, fastest first (less memory first at a tie)
    std::int64_t tried = 0;                // layouts enumerated
    std::int64_t invalid = 0;              // broken a configuration rule (a degree that does not divide, ...)
    std::int64_t not_fitting = 0;          // valid, but not 'fits' (uncertain counts here)
    std::int64_t global_batch_tokens = 0;  // what every layout trains per step
};

// Validates the scenario (its own configuration must be valid) and the search's lists
// (std::invalid_argument naming the list and value).
LayoutRanking rank_layouts(const Scenario& s, const LayoutSearch& search);

std::ostream& operator<<(std::ostream& os, const LayoutRow& r);
std::ostream& operator<<(std::ostream& os, const LayoutRanking& r);

}  // namespace libscale
