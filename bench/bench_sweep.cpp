// The vectorized sweep over 1,000,000 configurations (items/s = step estimates per
// second on one core, validation included).
//   build/cpp/bench/bench_sweep --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "libscale/estimate/sweep.hpp"
#include "libscale/io/catalog.hpp"

namespace {

using namespace libscale;

constexpr std::size_t kConfigs = 1'000'000;

struct Grid {
    ModelSpec m = find_model("qwen3-32b");
    HardwareProfile hw = find_hardware("b300");
    TrainingConfig base;
    std::vector<std::int64_t> gpus, micro_batch, seq_len, global_batch;
    Grid() {
        // GPU counts 1..1024 (powers of two and 3 · 2^k), micro-batch 1..4, seq 1024..32768,
        // global batch 0 (no accumulation) or 4 Mi tokens: mostly valid, some not divisible.
        const std::int64_t g[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024};
        const std::int64_t b[] = {1, 2, 4};
        const std::int64_t s[] = {1024, 2048, 4096, 8192, 16384, 32768};
        const std::int64_t G[] = {0, 4'194'304};
        gpus.reserve(kConfigs);
        for (std::size_t i = 0; i < kConfigs; ++i) {
            gpus.push_back(g[i % 17]);
            micro_batch.push_back(b[(i / 17) % 3]);
            seq_len.push_back(s[(i / 51) % 6]);
            global_batch.push_back(G[(i / 306) % 2]);
        }
    }
};

void BM_Sweep1M(benchmark::State& state) {
    static const Grid grid;
    std::vector<double> step(kConfigs), tps(kConfigs), mfu(kConfigs), mem(kConfigs);
    std::vector<std::int64_t> accum(kConfigs);
    std::vector<std::uint8_t> fits(kConfigs), issue(kConfigs);
    SweepInputs in;
    in.n = kConfigs;
    in.gpus = grid.gpus.data();
    in.micro_batch = grid.micro_batch.data();
    in.seq_len = grid.seq_len.data();
    in.global_batch_tokens = grid.global_batch.data();
    SweepOutputs out;
    out.add("step_time_s", step.data())
        .add("tokens_per_s", tps.data())
        .add("mfu", mfu.data())
        .add("memory_gib", mem.data())
        .add("grad_accum", accum.data())
        .add("fits", fits.data());
    out.issue = issue.data();
    const Scenario scenario = make_scenario(grid.m, grid.hw, grid.base);  // the default calibration
    for (auto _ : state) {
        sweep(scenario, in, out);
        benchmark::DoNotOptimize(step.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kConfigs));
    std::size_t valid = 0;
    for (std::uint8_t v : issue) valid += v == 0;
    state.counters["valid_fraction"] = static_cast<double>(valid) / static_cast<double>(kConfigs);
}
BENCHMARK(BM_Sweep1M)->Unit(benchmark::kMillisecond);

}  // namespace
