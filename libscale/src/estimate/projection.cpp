#include "libscale/estimate/projection.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "estimate/scenario_detail.hpp"
#include "libscale/estimate/fit_advice.hpp"
#include "libscale/io/error.hpp"
#include "spec/option_builders.hpp"

namespace libscale {

Scaling parse_scaling(std::string_view s) {
    if (s == "strong") return Scaling::strong;
    if (s == "weak") return Scaling::weak;
    throw std::invalid_argument("scaling = '" + std::string(s) + "'; valid: strong, weak");
}

const char* to_string(Scaling s) { return s == Scaling::strong ? "strong" : "weak"; }

const OptionTable<Job>& job_options() {
    using namespace option_builders;
    static const OptionTable<Job> table{
        "job",
        {
            // At least one token: 0.5 or 1e-300 tokens passed a positive check as a one-step job.
            number<Job>("tokens", &Job::tokens, "tokens", "tokens per epoch", 1),
            positive<Job>("epochs", &Job::epochs, "", "passes over the tokens"),
            optional_number<Job>("price_per_gpu_hour_usd", &Job::price_per_gpu_hour_usd, "USD",
                                 "price of one GPU-hour (not set: the hardware's, an assumption to override)", 0),
        }};
    return table;
}

void Job::validate() const {
    validate_options(job_options(), *this);
    if (!std::isfinite(tokens * epochs)) {
        std::ostringstream msg;
        msg << "job tokens × epochs = " << tokens << " × " << epochs
            << " overflows a 64-bit float; give a job of at most ~1e300 tokens";
        throw std::invalid_argument(msg.str());
    }
}

namespace {

std::vector<std::int64_t> sorted_counts(std::vector<std::int64_t> counts) {
    if (counts.empty()) throw std::invalid_argument("gpus is empty; give at least one GPU count");
    for (std::size_t i = 0; i < counts.size(); ++i)
        if (counts[i] <= 0 || counts[i] > kMaxGpus)
            throw std::invalid_argument("gpus[" + std::to_string(i) + "] = " + std::to_string(counts[i]) +
                                        "; GPU counts must be positive integers, at most " + std::to_string(kMaxGpus));
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return counts;
}

// The global batch every count shares in strong scaling when none is given: the least
// common multiple of the counts, one micro-batch each (4, 8, 16 → 16 micro-batches;
// 8, 12 → 24). Capped so the product stays a valid token count; past the cap the
// largest count is used and validation names any count that does not divide.
std::int64_t shared_gpus(const std::vector<std::int64_t>& counts) {
    std::int64_t l = 1;
    for (const std::int64_t g : counts) {
        l = std::lcm(l, g);
        if (l > kMaxGpus) return counts.back();
    }
    return l;
}

// The configuration at `gpus`: strong scaling keeps the global batch (given, or one
// micro-batch on each of `shared` GPUs); weak scaling keeps the per-GPU batch (micro-batch
// × accumulation) of the smallest count.
TrainingConfig config_at(const TrainingConfig& base, std::int64_t smallest, std::int64_t shared, std::int64_t gpus,
                         Scaling scaling) {
    TrainingConfig c = base;
    c.gpus = gpus;
    const std::int64_t unit = base.micro_batch * base.seq_len;
    // Counts of data-parallel ranks: each tensor × context-parallel group shares a micro-batch
    // (a count the degrees do not divide is validation's error, named at that count).
    const std::int64_t model = std::max<std::int64_t>(base.tensor_parallel * base.context_parallel, 1);
    const auto ranks = [&](std::int64_t g) { return g % model == 0 ? g / model : g; };
    if (scaling == Scaling::strong) {
        c.global_batch_tokens = base.global_batch_tokens > 0 ? base.global_batch_tokens : ranks(shared) * unit;
    } else {
        gpus = ranks(gpus);
        smallest = ranks(smallest);
        // A reference batch that does not divide is reported by validation at the smallest count.
        const std::int64_t global_ref = base.global_batch_tokens > 0 ? base.global_batch_tokens : smallest * unit;
        const std::int64_t unit_ref = smallest * unit;
        const std::int64_t accum = unit_ref > 0 && global_ref % unit_ref == 0 ? global_ref / unit_ref : 0;
        std::int64_t scaled = 0;
        const bool overflow =
            __builtin_mul_overflow(gpus, unit, &scaled) || __builtin_mul_overflow(scaled, accum, &scaled);
        if (accum > 0 && overflow)
            throw std::invalid_argument("weak scaling to " + std::to_string(gpus) + " GPUs: the global batch " +
                                        std::to_string(gpus) + " × " + std::to_string(unit) + " × " +
                                        std::to_string(accum) + " tokens overflows a 64-bit token count");
        c.global_batch_tokens = accum > 0 ? scaled : global_ref;
    }
    return c;
}

ProjectionRow make_row(const StepBreakdown& s, const Job& job, double price) {
    ProjectionRow r;
    r.step = s;
    const double total_tokens = job.tokens * job.epochs;
    r.steps = std::ceil(total_tokens / s.tokens_per_step);
    r.wall_time_h = r.steps * s.step_time_s / 3600.0;
    r.gpu_hours = static_cast<double>(s.gpus) * r.wall_time_h;
    r.cost_usd = r.gpu_hours * price;
    r.energy_kwh = s.energy_per_step_j * r.steps / 3.6e6;
    // Each input is finite, but their products need not be (1e300 tokens at $6/GPU-h):
    // an answer of inf is refused rather than printed.
    for (const auto& [name, v] : {std::pair{"wall_time_h", r.wall_time_h}, std::pair{"gpu_hours", r.gpu_hours},
                                  std::pair{"cost_usd", r.cost_usd}, std::pair{"energy_kwh", r.energy_kwh}})
        if (!std::isfinite(v)) {
            std::ostringstream msg;
            msg << "the projected " << name << " overflows a 64-bit float: job tokens × epochs = " << total_tokens
                << " is " << r.steps << " steps of " << s.step_time_s << " s and " << s.energy_per_step_j << " J on "
                << s.gpus << " GPUs at " << price << " USD per GPU-hour; ";
            // A step longer than the age of the universe (4e17 s) is no job size's fault: one
            // of the hardware's or the calibration's figures is absurdly small.
            if (!(s.step_time_s < 1e17) || !(s.energy_per_step_j < 1e25))
                msg << "a step that long comes from an implausible hardware or calibration figure (a peak, "
                       "bandwidth or efficiency near 0): check them";
            else msg << "give a smaller job";
            throw std::invalid_argument(msg.str());
        }
    return r;
}

void fill_scaling(std::vector<ProjectionRow>& rows) {
    if (rows.empty()) return;
    const ProjectionRow& ref = rows.front();
    for (ProjectionRow& r : rows) {
        r.speedup = r.step.tokens_per_s / ref.step.tokens_per_s;
        r.scaling_efficiency = r.speedup / (static_cast<double>(r.step.gpus) / static_cast<double>(ref.step.gpus));
    }
}

double price_of(const Job& job, const HardwareProfile& hw) {
    return std::isnan(job.price_per_gpu_hour_usd) ? hw.price_per_gpu_hour_usd : job.price_per_gpu_hour_usd;
}

}  // namespace

std::vector<TrainingConfig> projection_configs(const TrainingConfig& base, std::vector<std::int64_t> gpu_counts,
                                               Scaling scaling) {
    const std::vector<std::int64_t> counts = sorted_counts(std::move(gpu_counts));
    const std::int64_t shared = shared_gpus(counts);
    std::vector<TrainingConfig> out;
    out.reserve(counts.size());
    for (const std::int64_t g : counts) out.push_back(config_at(base, counts.front(), shared, g, scaling));
    return out;
}

ProjectionRow projection_row(const StepBreakdown& s, const Job& job, double price_per_gpu_hour_usd) {
    return make_row(s, job, price_per_gpu_hour_usd);
}

Projection project(const Scenario& s, std::vector<std::int64_t> gpu_counts, Scaling scaling, const Job& job) {
    job.validate();
    detail::validate_inputs(s);
    const std::vector<std::int64_t> counts = sorted_counts(std::move(gpu_counts));
    const std::int64_t shared = shared_gpus(counts);
    const Calibration& cal = s.coefficients();
    const ParameterCounts params = count_parameters(s.model);
    Projection out;
    out.scaling = scaling;
    out.job = job;
    out.price_per_gpu_hour_usd = price_of(job, s.hardware);
    for (const std::int64_t g : counts) {
        const TrainingConfig c = config_at(s.config, counts.front(), shared, g, scaling);
        // Unlike the solvers, an invalid configuration at any count is an error here: a
        // projection shows every count asked for.
        validate_config(s.model, s.hardware, c);
        validate_calibration_for(cal, c);
        const StepBreakdown step = estimate_step_unchecked(s.model, params, s.hardware, cal, c);
        out.rows.push_back(make_row(step, job, out.price_per_gpu_hour_usd));
        if (step.memory.status != FitStatus::fits)
            out.rows.back().fit_suggestion = fit_suggestion(s.model, s.hardware, cal, c);
        if (!step.comm_hidden && !out.comm_exposed_from_gpus) out.comm_exposed_from_gpus = g;
    }
    fill_scaling(out.rows);
    return out;
}

namespace {

// Every count that is a valid configuration, in ascending order, marked whether it fits.
std::vector<ProjectionRow> feasible_rows(const Scenario& s, const std::vector<std::int64_t>& gpu_counts,
                                         Scaling scaling, const Job& job) {
    job.validate();
    detail::validate_inputs(s);
    validate_calibration_for(s.hardware, s.coefficients(), s.config);
    const std::vector<std::int64_t> counts = sorted_counts(gpu_counts);
    const std::int64_t shared = shared_gpus(counts);
    const double price = price_of(job, s.hardware);
    const ParameterCounts p = count_parameters(s.model);
    std::vector<ProjectionRow> rows;
    for (const std::int64_t g : counts) {
        const TrainingConfig c = config_at(s.config, counts.front(), shared, g, scaling);
        if (check_config(s.model, s.hardware, c) != ConfigIssue::none) continue;
        const StepBreakdown step = estimate_step_unchecked(s.model, p, s.hardware, s.coefficients(), c);
        rows.push_back(make_row(step, job, price));
    }
    fill_scaling(rows);
    return rows;
}

}  // namespace

Solution solve_deadline(const Scenario& s, const std::vector<std::int64_t>& gpu_counts, Scaling scaling, const Job& job,
                        double deadline_h) {
    if (!(deadline_h > 0) || std::isinf(deadline_h)) {
        std::ostringstream msg;  // -1e-300 as itself, not std::to_string's -0.000000
        msg << "deadline_h = " << deadline_h << "; it must be a finite number of hours > 0";
        throw std::invalid_argument(msg.str());
    }
    Solution sol;
    sol.candidates = feasible_rows(s, gpu_counts, scaling, job);
    for (const ProjectionRow& r : sol.candidates) {
        if (!r.step.memory.fits || r.wall_time_h > deadline_h) continue;
        if (!sol.found || r.cost_usd < sol.row.cost_usd) {
            sol.row = r;
            sol.found = true;
        }
    }
    return sol;
}

Solution solve_budget(const Scenario& s, const std::vector<std::int64_t>& gpu_counts, Scaling scaling, const Job& job,
                      double max_gpu_hours, double max_cost_usd) {
    if (std::isnan(max_gpu_hours) && std::isnan(max_cost_usd))
        throw std::invalid_argument("give max_gpu_hours or max_cost_usd (both are unset)");
    // NaN is "no cap" here (the Python layer refuses a NaN a user gives); a cap is finite.
    for (const auto& [name, cap] : {std::pair{"max_gpu_hours", max_gpu_hours}, std::pair{"max_cost_usd", max_cost_usd}})
        if (!std::isnan(cap) && (!(cap > 0) || std::isinf(cap))) {
            std::ostringstream msg;
            msg << name << " = " << cap << "; it must be a finite number > 0";
            throw std::invalid_argument(msg.str());
        }
    Solution sol;
    sol.candidates = feasible_rows(s, gpu_counts, scaling, job);
    for (const ProjectionRow& r : sol.candidates) {
        if (!r.step.memory.fits) continue;
        if (!std::isnan(max_gpu_hours) && r.gpu_hours > max_gpu_hours) continue;
        if (!std::isnan(max_cost_usd) && r.cost_usd > max_cost_usd) continue;
        if (!sol.found || r.wall_time_h < sol.row.wall_time_h) {
            sol.row = r;
            sol.found = true;
        }
    }
    return sol;
}

std::ostream& operator<<(std::ostream& os, const Job& j) {
    os << "Job(tokens=" << j.tokens << ", epochs=" << j.epochs << ", price_per_gpu_hour_usd=";
    if (std::isnan(j.price_per_gpu_hour_usd)) os << "None";
    else os << j.price_per_gpu_hour_usd;
    return os << ")";
}

std::ostream& operator<<(std::ostream& os, const Solution& s) {
    os << "Solution(found=" << (s.found ? "True" : "False") << ", row=";
    if (s.found) os << s.row;
    else os << "None";
    return os << ", candidates=" << s.candidates.size() << ")";
}

std::ostream& operator<<(std::ostream& os, const ProjectionRow& r) {
    return os << "ProjectionRow(gpus=" << r.step.gpus << ", tokens_per_s=" << r.step.tokens_per_s
              << ", scaling_efficiency=" << r.scaling_efficiency << ", wall_time_h=" << r.wall_time_h
              << ", gpu_hours=" << r.gpu_hours << ", cost_usd=" << r.cost_usd << ", energy_kwh=" << r.energy_kwh << ")";
}

std::ostream& operator<<(std::ostream& os, const Projection& p) {
    os << "Projection(scaling='" << to_string(p.scaling) << "', rows=[";
    for (std::size_t i = 0; i < p.rows.size(); ++i) os << (i ? ", " : "") << p.rows[i];
    os << "], comm_exposed_from_gpus=";
    if (p.comm_exposed_from_gpus) os << *p.comm_exposed_from_gpus;
    else os << "None";
    return os << ")";
}

}  // namespace libscale
