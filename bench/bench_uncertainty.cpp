// P10/P50/P90 projections: 2000 coefficient samples through the step model for 4, 8
// and 16 GPUs (Qwen3-32B on B300).
//   build/cpp/bench/bench_uncertainty --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "libscale/estimate/uncertainty.hpp"
#include "libscale/io/catalog.hpp"

namespace {

using namespace libscale;

void BM_ProjectionQuantiles(benchmark::State& state) {
    const ModelSpec m = find_model("qwen3-32b");
    const HardwareProfile hw = find_hardware("b300");
    TrainingConfig base;
    base.gpus_per_node = 8;
    base.seq_len = 8192;
    base.global_batch_tokens = 1'048'576;
    Job job;
    CalibrationFile f;
    f.calibration = default_calibration(hw);
    // What a fit to step records leaves uncertain (the derived B300 file's parameters),
    // plus the network.
    f.parameters = {"gemm.eta_max",      "attention.forward_eta_max", "attention.backward_eta_max",
                    "hbm_efficiency",    "framework_efficiency",      "inter_node.busbw_bytes_per_s",
                    "inter_node.alpha_s"};
    f.covariance = Eigen::MatrixXd::Zero(7, 7);
    f.covariance.diagonal() << 6e-3, 7e-3, 7e-3, 4e-2, 5e-3, 1e20, 1e-12;
    UncertaintyOptions o;
    o.samples = static_cast<int>(state.range(0));
    const Scenario scenario{m, hw, f, base};
    for (auto _ : state) {
        auto q = projection_quantiles(scenario, {4, 8, 16}, Scaling::strong, job, o);
        benchmark::DoNotOptimize(q.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0) * 3);
}
BENCHMARK(BM_ProjectionQuantiles)->Arg(2000)->Unit(benchmark::kMillisecond);

}  // namespace
