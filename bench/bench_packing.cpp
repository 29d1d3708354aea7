// Packing gate benchmarks: 10,000,000 seeded long-tailed lengths at seq_len 8192 written
// to a .npy under /tmp once, 16 ranks. BM_GateBfdFromNpy is the target (< 1 s
// end to end on one core: read + pack + shard + verdict). Run e.g.
//   build/pack/bench/bench_packing --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "libscale/gate/lengths_io.hpp"
#include "libscale/gate/packing.hpp"

namespace {

constexpr std::int64_t kSeqLen = 8192;
constexpr std::size_t kSamples = 10'000'000;

// Log-normal token counts (median ≈ 600, long tail past seq_len), clipped to [1, 2·seq_len].
const std::vector<std::uint32_t>& lengths() {
    static const std::vector<std::uint32_t> v = [] {
        std::mt19937_64 rng(42);
        std::lognormal_distribution<double> d(std::log(600.0), 1.0);
        std::vector<std::uint32_t> out(kSamples);
        for (auto& x : out) x = static_cast<std::uint32_t>(std::clamp(d(rng), 1.0, 2.0 * kSeqLen));
        return out;
    }();
    return v;
}

const std::string& npy_path() {
    static const std::string path = [] {
        const std::string p = (std::filesystem::temp_directory_path() / "libscale_bench_lengths.npy").string();
        libscale::write_lengths_npy(p, lengths());
        return p;
    }();
    return path;
}

libscale::GateConfig config(libscale::Packer p) {
    libscale::GateConfig c;
    c.packer = p;
    c.seq_len = kSeqLen;
    c.world_size = 16;
    c.micro_batch = 1;
    c.grad_accum = 8;
    return c;
}

void BM_GateBfdFromNpy(benchmark::State& state) {
    const std::string& path = npy_path();
    auto c = config(libscale::Packer::trl_bfd);
    c.map_batch_size = state.range(0);
    for (auto _ : state) {
        const auto ls = libscale::read_lengths_npy(path);
        auto g = libscale::run_gate(ls, c);
        benchmark::DoNotOptimize(g.passed);
    }
}
BENCHMARK(BM_GateBfdFromNpy)->Arg(1000)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadNpy(benchmark::State& state) {
    const std::string& path = npy_path();
    for (auto _ : state) benchmark::DoNotOptimize(libscale::read_lengths_npy(path).data());
}
BENCHMARK(BM_ReadNpy)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Gate(benchmark::State& state) {
    const auto p = static_cast<libscale::Packer>(state.range(0));
    state.SetLabel(libscale::to_string(p));
    auto c = config(p);
    auto ls = lengths();
    if (p == libscale::Packer::torchtune || p == libscale::Packer::axolotl_multipack)
        for (auto& x : ls) x = std::min<std::uint32_t>(x, kSeqLen);  // those reject / expect ≤ seq_len
    for (auto _ : state) {
        auto g = libscale::run_gate(ls, c);
        benchmark::DoNotOptimize(g.passed);
    }
}
BENCHMARK(BM_Gate)
    ->DenseRange(0, static_cast<int>(libscale::Packer::none))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
