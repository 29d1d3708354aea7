#include "libscale/estimate/sweep.hpp"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "estimate/scenario_detail.hpp"

namespace libscale {

void sweep(const Scenario& s, const SweepInputs& in, const SweepOutputs& out, Progress* progress) {
    detail::validate_inputs(s);
    const ModelSpec& m = s.model;
    const HardwareProfile& hw = s.hardware;
    const Calibration& cal = s.coefficients();
    const TrainingConfig& base = s.config;
    validate_calibration_for(hw, cal, base);
    const ParameterCounts p = count_parameters(m);
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    TrainingConfig c = base;
    // Compute depends only on the micro-batch (micro_batch × seq_len tokens, the span):
    // the plan is the base configuration's, and each micro-batch is timed once.
    const OperationPlan plan = plan_operations(m, p, base);
    std::unordered_map<std::uint64_t, ComputeTimes> timed;
    progress_start(progress, in.n);
    ProgressLoop loop(progress, in.n, in.n);
    for (std::size_t i = 0; i < in.n; ++i, loop.step()) {
        if (in.gpus) c.gpus = in.gpus[i];
        if (in.gpus_per_node) c.gpus_per_node = in.gpus_per_node[i];
        if (in.micro_batch) c.micro_batch = in.micro_batch[i];
        if (in.seq_len) c.seq_len = in.seq_len[i];
        if (in.global_batch_tokens) c.global_batch_tokens = in.global_batch_tokens[i];
        const ConfigIssue issue = check_config(m, hw, c);
        if (out.issue) out.issue[i] = static_cast<std::uint8_t>(issue);
        if (issue != ConfigIssue::none) {
            for (double* col : {out.step_time_s, out.tokens_per_s, out.tokens_per_s_per_gpu, out.mfu, out.hfu,
                                out.compute_s, out.comm_s, out.exposed_comm_s, out.memory_gib})
                if (col) col[i] = nan;
            if (out.grad_accum) out.grad_accum[i] = 0;
            if (out.fits) out.fits[i] = 0;
            continue;
        }
        const std::uint64_t key =
            static_cast<std::uint64_t>(c.micro_batch) << 32 ^ static_cast<std::uint64_t>(c.seq_len);
        auto it = timed.find(key);
        if (it == timed.end()) {
            it = timed
                     .emplace(key, compute_times(plan, hw, cal, static_cast<double>(c.micro_batch * c.seq_len),
                                                 attention_span(c)))
                     .first;
        }
        const StepBreakdown step = estimate_step_unchecked(m, p, hw, cal, c, it->second);
        if (out.step_time_s) out.step_time_s[i] = step.step_time_s;
        if (out.tokens_per_s) out.tokens_per_s[i] = step.tokens_per_s;
        if (out.tokens_per_s_per_gpu) out.tokens_per_s_per_gpu[i] = step.tokens_per_s_per_gpu;
        if (out.mfu) out.mfu[i] = step.mfu;
        if (out.hfu) out.hfu[i] = step.hfu;
        if (out.compute_s) out.compute_s[i] = step.compute_s;
        if (out.comm_s) out.comm_s[i] = step.comm_s;
        if (out.exposed_comm_s) out.exposed_comm_s[i] = step.exposed_comm_s;
        if (out.memory_gib) out.memory_gib[i] = step.memory.total_gib;
        if (out.grad_accum) out.grad_accum[i] = step.grad_accum;
        if (out.fits) out.fits[i] = step.memory.fits ? 1 : 0;
    }
    loop.finish();
}

}  // namespace libscale
