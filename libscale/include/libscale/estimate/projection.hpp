// Projections over GPU counts: strong scaling (global batch fixed) and weak scaling
// (per-GPU batch fixed), a job's wall time, GPU-hours, cost and energy, and solvers for
// a deadline or a budget.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libscale/estimate/scenario.hpp"

namespace libscale {

enum class Scaling { strong, weak };
Scaling parse_scaling(std::string_view s);
const char* to_string(Scaling s);

struct Job {
    double tokens = 1e9;  // tokens per epoch
    double epochs = 1;
    // NaN: the hardware's default price (an assumption the user should override)
    double price_per_gpu_hour_usd = std::numeric_limits<double>::quiet_NaN();
    void validate() const;  // against job_options()
};

// Job's option table (spec/option.hpp).
const OptionTable<Job>& job_options();

struct ProjectionRow {
    StepBreakdown step;
    double speedup = 0;             // tokens/s over the smallest count's
    double scaling_efficiency = 0;  // speedup / (gpus / smallest gpus)
    // Optimizer steps for the job, whole: a trainer runs the last step on what is left, so a
    // job smaller than one step still takes one (1,000 tokens on 1,024 GPUs is not 0.0001 of
    // a step's time).
    double steps = 0;
    double wall_time_h = 0;  // steps × step time
    double gpu_hours = 0;    // gpus × wall hours
    double cost_usd = 0;
    double energy_kwh = 0;
    // What would make it fit, when step.memory.status is not FitStatus::fits ("" otherwise).
    std::string fit_suggestion;
};

struct Projection {
    Scaling scaling = Scaling::strong;
    Job job;
    double price_per_gpu_hour_usd = 0;  // as applied
    std::vector<ProjectionRow> rows;    // ascending GPU count
    // The smallest GPU count at which communication stops hiding under compute
    // (comm_hidden false), if any row shows it.
    std::optional<std::int64_t> comm_exposed_from_gpus;
};

// s.config: the configuration at every count; its global_batch_tokens is kept fixed in
// strong scaling (0: one micro-batch on each of lcm(counts) GPUs, so every count divides
// it). In weak scaling the per-GPU batch (micro-batch × accumulation) of the smallest
// count is kept.
// Throws std::invalid_argument on bad counts or configurations. A count that does not fit
// is still projected: its row's step.memory says so (status, needed and available GiB)
// and fit_suggestion says what would fit; require_fit() turns that into an error.
Projection project(const Scenario& s, std::vector<std::int64_t> gpu_counts, Scaling scaling, const Job& job);

// What project() evaluates, for callers that re-run the step model at the same points
// (projection_quantiles): the configuration at each count (ascending, duplicates
// removed; counts validated, configurations not), and a row's job totals from a step.
std::vector<TrainingConfig> projection_configs(const TrainingConfig& base, std::vector<std::int64_t> gpu_counts,
                                               Scaling scaling);
ProjectionRow projection_row(const StepBreakdown& s, const Job& job, double price_per_gpu_hour_usd);

enum class Objective { cheapest, fastest };

struct Solution {
    bool found = false;
    ProjectionRow row;
    std::vector<ProjectionRow> candidates;  // every valid count evaluated; the solution fits
};

// The cheapest GPU count (least cost) whose wall time meets deadline_h.
Solution solve_deadline(const Scenario& s, const std::vector<std::int64_t>& gpu_counts, Scaling scaling, const Job& job,
                        double deadline_h);

// The fastest GPU count whose GPU-hours and cost stay under the caps (NaN: no cap).
Solution solve_budget(const Scenario& s, const std::vector<std::int64_t>& gpu_counts, Scaling scaling, const Job& job,
                      double max_gpu_hours, double max_cost_usd);

std::ostream& operator<<(std::ostream& os, const Job& j);
std::ostream& operator<<(std::ostream& os, const Solution& s);
std::ostream& operator<<(std::ostream& os, const ProjectionRow& r);
std::ostream& operator<<(std::ostream& os, const Projection& p);

}  // namespace libscale
