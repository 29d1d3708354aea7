// Fitting 1,000 measurements: target < 10 ms.
//   build/cpp/bench/bench_fit --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "libscale/catalog.hpp"
#include "libscale/collective.hpp"
#include "libscale/fit.hpp"
#include "libscale/step_model.hpp"

namespace {

using namespace libscale;

struct Data {
    HardwareProfile hw = find_hardware("h100");
    Calibration prior = default_calibration(hw);
    Calibration truth = prior;
    MeasurementSet micro, steps;

    Data() {
        truth.eta_max = 0.55;
        truth.half_saturation_tokens = 1500;
        truth.step_overhead_s = 0.05;
        std::mt19937_64 rng(7);
        std::normal_distribution<double> z(0, 0.03);
        const auto noise = [&] { return std::exp(z(rng)); };
        // 300 GEMM chains, 350 intra-node and 350 cross-node collectives.
        for (int i = 0; i < 300; ++i) {
            const double t = 256.0 * (1 + i % 64);
            micro.gemm.push_back({"h100", t, 2.4e9 * t, 2.4e9 * t / (hw.peak_flops() * truth.eta(t)) * noise()});
        }
        for (int i = 0; i < 700; ++i) {
            const bool inter = i >= 350;
            const std::int64_t ranks = inter ? 16 << (i % 3) : 2 << (i % 3);
            const double bytes = std::pow(10.0, 4 + i % 6);
            const auto op = static_cast<Collective>(i % 3);
            micro.collectives.push_back({"h100", op, ranks, inter ? 8 : ranks, bytes,
                                         ring_time_s(op, bytes, ranks, ring_link(ranks, 8, truth)) * noise()});
        }
        // 1,000 step records: 5 GPU counts × 2 micro-batches × 2 sequence lengths × 2
        // checkpointing modes (40 configurations, 8 series), 25 repeats each.
        const ModelSpec m = find_model("llama-3.1-8b");
        const ParameterCounts p = count_parameters(m);
        for (int i = 0; i < 1000; ++i) {
            StepRun s{"llama-3.1-8b", "h100", {}, 0, "bench"};
            s.config.gpus = 8 << (i % 5);
            s.config.micro_batch = 1 + (i / 5) % 2;
            s.config.seq_len = (i / 10) % 2 ? 4096 : 8192;
            s.config.activation_checkpointing = (i / 20) % 2 ? Checkpointing::selective : Checkpointing::full;
            s.config.global_batch_tokens = 1 << 21;
            s.step_time_s = estimate_step_unchecked(m, p, hw, truth, s.config).step_time_s * noise();
            steps.steps.push_back(s);
        }
    }
};

const Data& data() {
    static const Data d;
    return d;
}

void BM_FitMicroRuns1000(benchmark::State& state) {
    const Data& d = data();
    for (auto _ : state) {
        FitResult r = fit(d.micro, d.hw, d.prior);
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_FitMicroRuns1000)->Unit(benchmark::kMillisecond);

void BM_FitSteps1000(benchmark::State& state) {
    const Data& d = data();
    for (auto _ : state) {
        FitResult r = fit(d.steps, d.hw, d.prior);
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_FitSteps1000)->Unit(benchmark::kMillisecond);

}  // namespace
