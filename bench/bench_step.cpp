// One step estimate, with and without validation; FLOPs and parameter counting; a
// projection over three GPU counts. Target: >= 5 million step estimates per second per
// core (a step estimate: BM_EstimateStepUnchecked; with the compute timed once, as sweeps
// do: BM_EstimateStepTimedCompute, target 100 ns = 10 M/s per core).
//   build/cpp/bench/bench_step --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/layouts.hpp"
#include "libscale/estimate/projection.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/spec/flops.hpp"

namespace {

using namespace libscale;

// The field report's setup: Qwen3-32B, 16 × B300 in two nodes, seq 8192, 1 Mi tokens.
struct Setup {
    ModelSpec m = find_model("qwen3-32b");
    HardwareProfile hw = find_hardware("b300");
    Calibration cal = default_calibration(hw);
    ParameterCounts p = count_parameters(m);
    TrainingConfig c;
    Setup() {
        c.gpus = 16;
        c.seq_len = 8192;
        c.micro_batch = 1;
        c.global_batch_tokens = 1'048'576;
    }
};

const Setup& setup() {
    static const Setup s;
    return s;
}

// estimate_step_unchecked of m over four GPU counts in turn (so the compiler cannot hoist
// the estimate out of the loop); items/s = estimates per second.
void estimate_over_counts(benchmark::State& state, const ModelSpec& m, const ParameterCounts& p, TrainingConfig c,
                          const std::int64_t (&counts)[4]) {
    const Setup& s = setup();
    std::size_t i = 0;
    for (auto _ : state) {
        c.gpus = counts[i++ & 3];
        benchmark::DoNotOptimize(c);
        StepBreakdown r = estimate_step_unchecked(m, p, s.hw, s.cal, c);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}

constexpr std::int64_t kCounts[] = {4, 8, 16, 32};

void BM_EstimateStepUnchecked(benchmark::State& state) {
    const Setup& s = setup();
    estimate_over_counts(state, s.m, s.p, s.c, kCounts);
}
BENCHMARK(BM_EstimateStepUnchecked);

// BM_EstimateStepUnchecked with tensor parallel 2 and context parallel 2 (one rank's model slice and its
// parameter counts are made per estimate).
void BM_EstimateStepTensorContextParallel(benchmark::State& state) {
    const Setup& s = setup();
    TrainingConfig c = s.c;
    c.tensor_parallel = 2;
    c.context_parallel = 2;
    estimate_over_counts(state, s.m, s.p, c, kCounts);
}
BENCHMARK(BM_EstimateStepTensorContextParallel);

// A mixture of experts with expert parallel: Qwen3-30B-A3B (128 experts, top 8) on 8 to 64
// B300s (the setup's GPU), experts split 8 ways (grouped expert GEMMs, all-to-alls, the
// gathered unit's own experts).
void BM_EstimateStepExpertParallel(benchmark::State& state) {
    static const ModelSpec m = find_model("qwen3-30b-a3b");
    static const ParameterCounts p = count_parameters(m);
    TrainingConfig c = setup().c;
    c.seq_len = 4096;
    c.expert_parallel = 8;
    constexpr std::int64_t counts[] = {8, 16, 32, 64};
    estimate_over_counts(state, m, p, c, counts);
}
BENCHMARK(BM_EstimateStepExpertParallel);

// Every layout of Llama 3.1 70B on 256 H100s at 4 Mi tokens (864 tried; no intervals):
// items/s = layouts per second.
void BM_RankLayouts(benchmark::State& state) {
    static const Scenario scenario = [] {
        TrainingConfig c;
        c.gpus = 256;
        c.seq_len = 8192;
        c.global_batch_tokens = 4'194'304;
        return make_scenario(find_model("llama-3.1-70b"), find_hardware("h100"), c);
    }();
    LayoutSearch search;
    search.intervals = 0;
    std::int64_t tried = 0;
    for (auto _ : state) {
        LayoutRanking r = rank_layouts(scenario, search);
        tried = r.tried;
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations() * tried);
}
BENCHMARK(BM_RankLayouts)->Unit(benchmark::kMillisecond);

// BM_EstimateStepUnchecked with the micro-batch's compute timed once (what sweeps and projections over GPU
// counts do): the step composition, communication, optimizer and memory per estimate.
void BM_EstimateStepTimedCompute(benchmark::State& state) {
    const Setup& s = setup();
    TrainingConfig c = s.c;
    const ComputeTimes ct = compute_times(s.m, s.p, s.hw, s.cal, c);
    const std::int64_t counts[] = {4, 8, 16, 32};
    std::size_t i = 0;
    for (auto _ : state) {
        c.gpus = counts[i++ & 3];
        benchmark::DoNotOptimize(c);
        StepBreakdown r = estimate_step_unchecked(s.m, s.p, s.hw, s.cal, c, ct);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateStepTimedCompute);

// Timing one micro-batch's operations (plan built once): the per-operation laws.
void BM_ComputeTimes(benchmark::State& state) {
    const Setup& s = setup();
    const OperationPlan plan = plan_operations(s.m, s.p, s.c);
    double tokens = 8192;
    for (auto _ : state) {
        benchmark::DoNotOptimize(tokens);
        ComputeTimes t = compute_times(plan, s.hw, s.cal, tokens, tokens / 2);
        benchmark::DoNotOptimize(t);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ComputeTimes);

void BM_EstimateStep(benchmark::State& state) {
    const Setup& s = setup();
    TrainingConfig c = s.c;
    const std::int64_t counts[] = {4, 8, 16, 32};
    std::size_t i = 0;
    for (auto _ : state) {
        c.gpus = counts[i++ & 3];
        benchmark::DoNotOptimize(c);
        StepBreakdown r = estimate_step(s.m, s.hw, s.cal, c);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateStep);

void BM_CheckConfig(benchmark::State& state) {
    const Setup& s = setup();
    TrainingConfig c = s.c;
    for (auto _ : state) {
        benchmark::DoNotOptimize(c);
        ConfigIssue issue = check_config(s.m, s.hw, c);
        benchmark::DoNotOptimize(issue);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CheckConfig);

void BM_CountParameters(benchmark::State& state) {
    ModelSpec m = setup().m;
    for (auto _ : state) {
        benchmark::DoNotOptimize(m);
        ParameterCounts p = count_parameters(m);
        benchmark::DoNotOptimize(p);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountParameters);

void BM_FlopsPerToken(benchmark::State& state) {
    const Setup& s = setup();
    double span = causal_attention_span(8192);
    for (auto _ : state) {
        benchmark::DoNotOptimize(span);
        FlopsPerToken f = flops_per_token(s.p, s.m, span, Checkpointing::full);
        benchmark::DoNotOptimize(f);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FlopsPerToken);

void BM_PackedAttentionSpan(benchmark::State& state) {
    std::vector<std::int64_t> docs;
    for (std::int64_t i = 0; i < 1024; ++i) docs.push_back(64 + (i * 37) % 2048);
    for (auto _ : state) {
        double span = packed_attention_span(docs);
        benchmark::DoNotOptimize(span);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(docs.size()));
}
BENCHMARK(BM_PackedAttentionSpan);

void BM_Project3Counts(benchmark::State& state) {
    const Setup& s = setup();
    Job job;
    job.tokens = 1e9;
    const Scenario scenario = make_scenario(s.m, s.hw, s.c);  // s.cal is the default calibration
    for (auto _ : state) {
        Projection p = project(scenario, {4, 8, 16}, Scaling::strong, job);
        benchmark::DoNotOptimize(p);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Project3Counts);

}  // namespace
