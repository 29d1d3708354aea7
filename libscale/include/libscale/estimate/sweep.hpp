// Vectorized step estimates: one configuration per element of parallel arrays, no
// allocation per configuration. Invalid or non-fitting configurations do not throw:
// they are flagged per element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "libscale/estimate/config_rules.hpp"
#include "libscale/estimate/scenario.hpp"
#include "libscale/estimate/step_fields.hpp"
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

// One output column of length n: the field's values (step_fields.hpp), typed by the field:
// double for numbers, int64 for integers, uint8 (0/1) for booleans.
struct SweepColumn {
    const StepField* field = nullptr;
    void* data = nullptr;
};

// The outputs wanted. Invalid configurations get NaN (integers and booleans 0) and their
// ConfigIssue code in `issue`.
struct SweepOutputs {
    std::vector<SweepColumn> columns;
    std::uint8_t* issue = nullptr;
    // The named output's column (std::invalid_argument for an unknown name or a pointer of
    // another type than the field's).
    SweepOutputs& add(std::string_view name, double* data);
    SweepOutputs& add(std::string_view name, std::int64_t* data);
    SweepOutputs& add(std::string_view name, std::uint8_t* data);
    // The same columns from element `begin` on (a sweep split into chunks, one per thread).
    SweepOutputs from(std::size_t begin) const;
};

// s.config is every element's base. Validates model, hardware and calibration once
// (throws std::invalid_argument). Progress (io/progress.hpp): counted in elements; a
// sweep split into several calls (one per thread) shares one Progress whose total the
// caller sets to the whole sweep's elements.
void sweep(const Scenario& s, const SweepInputs& in, const SweepOutputs& out, Progress* progress = nullptr);

}  // namespace libscale
