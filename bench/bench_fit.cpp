// Fitting 1,000 measurements: kernel and collective micro-runs (target < 10 ms), and
// end-to-end step records (the MAP fit through the full step model).
//   build/cpp/bench/bench_fit --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "libscale/calibrate/fit.hpp"
#include "libscale/estimate/collective.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"

namespace {

using namespace libscale;

struct Data {
    HardwareProfile hw = find_hardware("h100");
    Calibration prior = default_calibration(hw);
    Calibration truth = prior;
    MeasurementSet micro, steps;

    Data() {
        truth.gemm.eta_max = 0.75;
        truth.gemm.k_half = 500;
        truth.attention.forward_eta_max = 0.4;
        truth.attention.forward_half_seq = 600;
        truth.hbm_efficiency = 0.8;
        Calibration trainer = truth;  // step records: a trainer at 0.7 of the kernel laws
        trainer.framework_efficiency = 0.7;
        trainer.step_overhead_s = 0.05;
        std::mt19937_64 rng(7);
        std::normal_distribution<double> z(0, 0.03);
        const auto noise = [&] { return std::exp(z(rng)); };
        // 150 GEMMs, 100 attention kernels, 50 bandwidth runs, 350 intra-node and 350
        // cross-node collectives: 1,000 micro-runs.
        for (int i = 0; i < 150; ++i) {
            const double mn = 1024.0 * (1 + i % 8), k = 256.0 * (1 << (i % 7));
            micro.gemm.push_back({"h100", mn, 4096, k, false, gemm_time_s(hw, truth, mn, 4096, k) * noise()});
        }
        for (int i = 0; i < 100; ++i) {
            const double s = 512.0 * (1 << (i % 6));
            const bool backward = i % 2 == 1;
            micro.attention.push_back({"h100", 1, s, 32, 128, true, backward,
                                       attention_time_s(hw, truth, s, 4096, 128, s / 2, s, backward) * noise()});
        }
        for (int i = 0; i < 50; ++i) {
            const double bytes = 1e8 * (1 + i % 10);
            micro.bandwidth.push_back({"h100", bytes, memory_time_s(hw, truth, bytes) * noise()});
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
            StepRun s;
            s.model = "llama-3.1-8b";
            s.hardware = "h100";
            s.source = "bench";
            s.config.gpus = 8 << (i % 5);
            s.config.micro_batch = 1 + (i / 5) % 2;
            s.config.seq_len = (i / 10) % 2 ? 4096 : 8192;
            s.config.activation_checkpointing = (i / 20) % 2 ? Checkpointing::selective : Checkpointing::full;
            s.config.global_batch_tokens = 1 << 21;
            s.step_time_s = estimate_step_unchecked(m, p, hw, trainer, s.config).step_time_s * noise();
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
