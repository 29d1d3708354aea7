// Vectorized step estimates: one configuration per element of parallel arrays, no
// allocation per configuration. Invalid or non-fitting configurations do not throw:
// they are flagged per element.
#pragma once

#include <cstddef>
#include <cstdint>

#include "libscale/estimate/config_rules.hpp"
#include "libscale/estimate/scenario.hpp"
#include "libscale/io/progress.hpp"

namespace libscale {

// Per-element inputs; a null pointer means "the base configuration's value".
struct SweepInputs {
    std::size_t n = 0;
    const std::int64_t* gpus = nullptr;
    const std::int64_t* gpus_per_node = nullptr;
    const std::int64_t* micro_batch = nullptr;
    const std::int64_t* seq_len = nullptr;
    const std::int64_t* global_batch_tokens = nullptr;
};

// Per-element outputs, each of length n (null: not wanted). Invalid configurations
// get NaN and their ConfigIssue code in `issue`.
struct SweepOutputs {
    double* step_time_s = nullptr;
    double* tokens_per_s = nullptr;
    double* tokens_per_s_per_gpu = nullptr;
    double* mfu = nullptr;
    double* hfu = nullptr;
    double* compute_s = nullptr;
    double* comm_s = nullptr;
    double* exposed_comm_s = nullptr;
    double* memory_gib = nullptr;
    std::int64_t* grad_accum = nullptr;
    std::uint8_t* fits = nullptr;
    std::uint8_t* issue = nullptr;  // ConfigIssue
};

// s.config is every element's base. Validates model, hardware and calibration once
// (throws std::invalid_argument). Progress (io/progress.hpp): counted in elements; a
// sweep split into several calls (one per thread) shares one Progress whose total the
// caller sets to the whole sweep's elements.
void sweep(const Scenario& s, const SweepInputs& in, const SweepOutputs& out, Progress* progress = nullptr);

}  // namespace libscale
