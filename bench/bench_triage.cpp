// Classifier throughput: samples per second per core through classify_gpu (one GPU's
// columnar arrays, precomputed band thresholds in watts, no allocation per sample).
//   build/tri/bench/bench_triage --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "libscale/io/catalog.hpp"
#include "libscale/triage/triage.hpp"
#include "libscale/triage/triage_stream.hpp"

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

// One watcher poll: 8 GPUs' samples through TriageStream::push (smoothing, dwell, job
// phase, detector). The per-poll C++ cost of `libscale watch`; at 10 Hz a poll must cost
// far below 1 ms for the watcher to stay under 1 % of a core.
static void BM_StreamPoll8Gpus(benchmark::State& state) {
    constexpr int kGpus = 8;
    TriageStream s(default_power_bands(find_hardware("h100")));
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> noise(-20, 20);
    std::vector<double> t(kGpus), p(kGpus), u(kGpus, 100);
    std::vector<int> g(kGpus);
    for (int i = 0; i < kGpus; ++i) g[static_cast<std::size_t>(i)] = i;
    double now = 0;
    for (auto _ : state) {
        now += 0.1;
        const double level = (static_cast<long>(now / 60) % 2) ? 350 : 640;  // a change every 60 s
        for (std::size_t i = 0; i < kGpus; ++i) {
            t[i] = now;
            p[i] = level + noise(rng);
        }
        auto up = s.push(t, g, p, u, now);
        benchmark::DoNotOptimize(up);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_StreamPoll8Gpus)->Unit(benchmark::kMicrosecond);
