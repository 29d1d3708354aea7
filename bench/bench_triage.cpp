// Classifier throughput: samples per second per core through classify_gpu (one GPU's
// columnar arrays, precomputed band thresholds in watts, no allocation per sample).
//   build/tri/bench/bench_triage --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "libscale/catalog.hpp"
#include "libscale/triage.hpp"

using namespace libscale;

static void BM_ClassifyGpu(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    std::vector<double> t(n), p(n), u(n);
    std::vector<Phase> out(n);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> noise(-20, 20);
    const double levels[] = {640, 350, 220, 120, 72};
    for (std::size_t i = 0; i < n; ++i) {
        t[i] = static_cast<double>(i) * 0.1;
        p[i] = levels[(i / 600) % 5] + noise(rng);  // a phase change every 60 s
        u[i] = 100;
    }
    const BandThresholdsW th = thresholds_w(default_power_bands(find_hardware("h100")));
    const ClassifierOptions opt;
    for (auto _ : state) {
        classify_gpu(t, p, u, th, opt, out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_ClassifyGpu)->Arg(1 << 22)->Unit(benchmark::kMillisecond);
