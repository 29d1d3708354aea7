#include "libscale/estimate/layouts.hpp"

#include <algorithm>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>

#include "estimate/rank_detail.hpp"
#include "libscale/estimate/config_rules.hpp"
#include "libscale/estimate/projection.hpp"
#include "libscale/spec/parallelism.hpp"

namespace libscale {

namespace {

std::vector<std::int64_t> powers_of_two(std::int64_t limit) {
    std::vector<std::int64_t> out;
    for (std::int64_t v = 1; v <= limit; v *= 2) out.push_back(v);
    return out;
}

void check_degrees(const char* list, const std::vector<std::int64_t>& values) {
    if (values.empty()) return;
    for (const std::int64_t v : values)
        if (v < 1 || v > (1 << 16))
            throw std::invalid_argument(std::string(list) + " contains " + std::to_string(v) +
                                        "; valid: integers in [1, 65536]");
}

}  // namespace

LayoutRanking rank_layouts(const Scenario& s, const LayoutSearch& search) {
    s.validate();
    check_degrees("tensor_parallel", search.tensor_parallel);
    check_degrees("context_parallel", search.context_parallel);
    check_degrees("expert_parallel", search.expert_parallel);
    check_degrees("micro_batch", search.micro_batch);
    if (search.strategies.empty()) throw std::invalid_argument("strategies is empty; give fsdp, hsdp or both");
    for (const Strategy st : search.strategies)
        if (st != Strategy::fsdp && st != Strategy::hsdp)
            throw std::invalid_argument(std::string("strategies contains '") + to_string(st) +
                                        "'; valid: fsdp, hsdp (tensor and context parallel compose with them)");
    if (search.micro_batch.empty()) throw std::invalid_argument("micro_batch is empty; give at least one");
    if (search.checkpointing.empty()) throw std::invalid_argument("checkpointing is empty; give at least one");
    if (search.intervals < 0)
        throw std::invalid_argument("intervals = " + std::to_string(search.intervals) + "; it must be >= 0");

    const TrainingConfig& base = s.config;
    const std::int64_t gpn = node_gpus(base, s.hardware);
    const std::vector<std::int64_t> tps =
        search.tensor_parallel.empty() ? powers_of_two(std::min(gpn, base.gpus)) : search.tensor_parallel;
    const std::vector<std::int64_t> cps =
        search.context_parallel.empty() ? powers_of_two(base.gpus) : search.context_parallel;
    if (search.context_parallel_methods.empty())
        throw std::invalid_argument("context_parallel_methods is empty; give ring, ulysses or both");
    // Each context-parallel degree with each method; degree 1 once, with the scenario's method.
    std::vector<std::pair<std::int64_t, ContextParallelMethod>> cps_methods;
    for (const std::int64_t cp : cps) {
        if (cp == 1) cps_methods.emplace_back(cp, base.context_parallel_method);
        else
            for (const ContextParallelMethod method : search.context_parallel_methods)
                cps_methods.emplace_back(cp, method);
    }
    const std::vector<std::int64_t> eps = !search.expert_parallel.empty() ? search.expert_parallel
                                          : s.model.moe() ? powers_of_two(std::min(s.model.num_experts, base.gpus))
                                                          : std::vector<std::int64_t>{1};

    LayoutRanking out;
    // The global batch every layout trains: the scenario's, or one micro-batch on each of its
    // own data-parallel ranks.
    out.global_batch_tokens = base.global_batch_tokens > 0 ? base.global_batch_tokens
                                                           : data_parallel_size(base) * base.micro_batch * base.seq_len;
    const ParameterCounts p = count_parameters(s.model);
    const Calibration& cal = s.coefficients();
    // Each tensor-parallel degree's slice, made once for every layout that shares it.
    std::vector<std::pair<ModelSpec, ParameterCounts>> slices;
    slices.reserve(tps.size());
    for (const std::int64_t tp : tps) {
        ModelSpec slice = tensor_parallel_slice(s.model, tp);
        ParameterCounts counts = count_parameters(slice);
        slices.emplace_back(std::move(slice), counts);
    }
    // The plan does not depend on the micro-batch, the compute not on the strategy (FSDP and
    // HSDP time the same kernels), and memory not on the compute: a plan per (tp, cp, ep,
    // checkpointing), a timing per micro-batch, and neither for layouts that break a rule or
    // do not fit. Rows are ranked with their enumeration order (strategy outermost) as the
    // last key, so the order does not depend on the loops' nesting.
    std::vector<Strategy> strategies;
    for (const Strategy strategy : search.strategies)
        if (strategy != Strategy::hsdp || base.gpus > gpn) strategies.push_back(strategy);  // HSDP in one node: FSDP
    const std::size_t per_strategy =
        tps.size() * cps_methods.size() * eps.size() * search.micro_batch.size() * search.checkpointing.size();
    std::vector<std::size_t> order;
    out.rows.reserve(per_strategy * strategies.size());  // untouched capacity costs no pages
    for (std::size_t ti = 0; ti < tps.size(); ++ti) {
        const auto& [slice, counts] = slices[ti];
        for (std::size_t ci = 0; ci < cps_methods.size(); ++ci)
            for (std::size_t ei = 0; ei < eps.size(); ++ei)
                for (std::size_t ai = 0; ai < search.checkpointing.size(); ++ai) {
                    std::optional<OperationPlan> plan;
                    for (std::size_t mi = 0; mi < search.micro_batch.size(); ++mi) {
                        std::optional<ComputeTimes> ct;
                        for (std::size_t si = 0; si < strategies.size(); ++si) {
                            TrainingConfig c = base;
                            c.strategy = strategies[si];
                            c.tensor_parallel = tps[ti];
                            // Async tensor parallel, where asked for, on the layouts that have it.
                            c.async_tensor_parallel = base.async_tensor_parallel && tps[ti] > 1;
                            c.context_parallel = cps_methods[ci].first;
                            c.context_parallel_method = cps_methods[ci].second;
                            c.expert_parallel = eps[ei];
                            c.micro_batch = search.micro_batch[mi];
                            c.activation_checkpointing = search.checkpointing[ai];
                            c.global_batch_tokens = out.global_batch_tokens;
                            ++out.tried;
                            if (check_config(s.model, s.hardware, c) != ConfigIssue::none) {
                                ++out.invalid;
                                continue;
                            }
                            const DeviceMesh mesh = device_mesh(c, gpn);
                            const MemoryBreakdown memory =
                                detail::rank_memory(slice, counts, s.hardware, cal, c, mesh.shard_group());
                            if (!memory.fits) {
                                ++out.not_fitting;
                                continue;
                            }
                            if (!plan) plan = detail::rank_operations(slice, counts, c);
                            if (!ct) ct = compute_times(*plan, s.hardware, cal, rank_tokens(c), attention_span(c));
                            out.rows.push_back(
                                {c,
                                 mesh,
                                 detail::rank_step(s.model, p, slice, counts, s.hardware, cal, c, *ct, memory),
                                 {}});
                            order.push_back(
                                si * per_strategy +
                                (((ti * cps_methods.size() + ci) * eps.size() + ei) * search.micro_batch.size() + mi) *
                                    search.checkpointing.size() +
                                ai);
                        }
                    }
                }
    }
    // Sort keys, then put each row in place along the permutation's cycles.
    std::vector<std::size_t> rank(out.rows.size());
    for (std::size_t i = 0; i < rank.size(); ++i) rank[i] = i;
    std::sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) {
        const StepBreakdown &x = out.rows[a].step, &y = out.rows[b].step;
        if (x.tokens_per_s != y.tokens_per_s) return x.tokens_per_s > y.tokens_per_s;
        if (x.memory.total_gib != y.memory.total_gib) return x.memory.total_gib < y.memory.total_gib;
        return order[a] < order[b];
    });
    for (std::size_t i = 0; i < rank.size(); ++i) {
        if (rank[i] == i) continue;
        const LayoutRow held = out.rows[i];  // trivially copyable
        std::size_t j = i;
        while (rank[j] != i) {
            out.rows[j] = out.rows[rank[j]];
            const std::size_t next = rank[j];
            rank[j] = j;
            j = next;
        }
        out.rows[j] = held;
        rank[j] = j;
    }
    const std::size_t n = std::min(out.rows.size(), static_cast<std::size_t>(search.intervals));
    for (std::size_t i = 0; i < n; ++i) {
        LayoutRow& row = out.rows[i];
        const Scenario one{s.model, s.hardware, s.calibration, row.config};
        row.tokens_per_s = projection_quantiles(one, {row.config.gpus}, Scaling::strong, Job{}, search.uncertainty)
                               .front()
                               .tokens_per_s;
    }
    return out;
}

std::ostream& operator<<(std::ostream& os, const LayoutRow& r) {
    return os << "LayoutRow(mesh='" << format_mesh(r.mesh) << "', micro_batch=" << r.config.micro_batch
              << ", activation_checkpointing='" << to_string(r.config.activation_checkpointing)
              << "', tokens_per_s_per_gpu=" << r.step.tokens_per_s_per_gpu << ", memory_gib=" << r.step.memory.total_gib
              << ")";
}

std::ostream& operator<<(std::ostream& os, const LayoutRanking& r) {
    os << "LayoutRanking(fitting=" << r.rows.size() << ", tried=" << r.tried << ", invalid=" << r.invalid
       << ", not_fitting=" << r.not_fitting;
    if (!r.rows.empty()) os << ", fastest=" << r.rows.front();
    return os << ")";
}

}  // namespace libscale
