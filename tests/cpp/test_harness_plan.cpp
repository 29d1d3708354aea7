// The calibration harness's plan: the shapes, message sizes, rings and micro-runs it
// measures for a model, worked out from the model's figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda/collective_buffers.hpp"
#include "harness/detect.hpp"
#include "harness/plan.hpp"
#include "libscale/io/catalog.hpp"

namespace libscale::harness {
namespace {

struct HarnessPlan : ::testing::Test {
    ModelSpec m = find_model("qwen3-32b");
    HardwareProfile hw = find_hardware("h200");
    PlanOptions quick = [] {
        PlanOptions o;
        o.quick = true;
        return o;
    }();
};

bool has_gemm(const Plan& p, double m, double n, double k, bool fp8) {
    return std::any_of(p.gemm.begin(), p.gemm.end(),
                       [&](const GemmCase& g) { return g.m == m && g.n == n && g.k == k && g.fp8 == fp8; });
}

TEST_F(HarnessPlan, GemmsAreTheLayersAndHeadAtTheirShapesInEveryPass) {
    const Plan p = make_plan("qwen3-32b", m, hw, 8, 8, 1, quick);
    // Qwen3-32B: d = 5120, q width 64 heads × 128 = 8192, kv width 8 × 128 = 1024, f = 25600, V = 151936.
    for (const bool fp8 : {false, true}) {                  // H200 has fp8 tensor cores
        EXPECT_TRUE(has_gemm(p, 2048, 8192, 5120, fp8));    // q forward
        EXPECT_TRUE(has_gemm(p, 2048, 5120, 8192, fp8));    // q dgrad
        EXPECT_TRUE(has_gemm(p, 5120, 8192, 2048, fp8));    // q wgrad
        EXPECT_TRUE(has_gemm(p, 8192, 1024, 5120, fp8));    // k/v forward at 8192 tokens
        EXPECT_TRUE(has_gemm(p, 8192, 5120, 25600, fp8));   // down projection forward
        EXPECT_TRUE(has_gemm(p, 2048, 151936, 5120, fp8));  // output head forward
        EXPECT_TRUE(has_gemm(p, 5120, 151936, 8192, fp8));  // output head wgrad
    }
    // k and v share a shape: measured once.
    EXPECT_EQ(std::count_if(p.gemm.begin(), p.gemm.end(),
                            [](const GemmCase& g) { return g.m == 2048 && g.n == 1024 && g.k == 5120 && !g.fp8; }),
              1);
    PlanOptions no_fp8 = quick;
    no_fp8.fp8 = false;
    const Plan b = make_plan("qwen3-32b", m, hw, 8, 8, 1, no_fp8);
    EXPECT_EQ(2 * b.gemm.size(), p.gemm.size());
    EXPECT_TRUE(std::none_of(b.gemm.begin(), b.gemm.end(), [](const GemmCase& g) { return g.fp8; }));
}

TEST_F(HarnessPlan, CollectivesAreTheFsdpMessagesOnEveryRing) {
    const Plan p = make_plan("qwen3-32b", m, hw, 16, 8, 2, quick);
    const ParameterCounts pc = count_parameters(m);
    std::vector<std::pair<int, int>> rings;
    for (const CollectiveCase& c : p.collectives)
        if (std::find(rings.begin(), rings.end(), std::pair{c.ranks, c.ranks_per_node}) == rings.end())
            rings.emplace_back(c.ranks, c.ranks_per_node);
    EXPECT_EQ(rings, (std::vector<std::pair<int, int>>{{2, 2}, {4, 4}, {8, 8}, {16, 8}}));
    for (const CollectiveCase& c : p.collectives) {
        EXPECT_EQ(std::fmod(c.bytes, 256.0 * c.ranks), 0.0) << c.label;  // whole elements per rank
        if (c.label == "layer parameters, bf16") {
            EXPECT_EQ(c.op, Collective::all_gather);
            EXPECT_LE(c.bytes, 2.0 * static_cast<double>(pc.per_layer));
            EXPECT_GT(c.bytes, 2.0 * static_cast<double>(pc.per_layer) - 256.0 * c.ranks);
        }
        if (c.label == "layer gradients, fp32") {
            EXPECT_NEAR(c.bytes, 4.0 * static_cast<double>(pc.per_layer), 256.0 * c.ranks);
        }
    }
    std::vector<std::int64_t> gpus;
    for (const MicrorunCase& r : p.microruns) {
        gpus.push_back(r.config.gpus);
        EXPECT_EQ(r.layers, 2);
        EXPECT_EQ(r.config.seq_len, 8192);
        EXPECT_EQ(r.config.gpus_per_node, std::min<std::int64_t>(r.config.gpus, 8));
    }
    EXPECT_EQ(gpus, (std::vector<std::int64_t>{1, 2, 4, 8, 16}));
    EXPECT_EQ(p.power_phases.size(), 5u);
    EXPECT_TRUE(p.notes.empty());
}

TEST_F(HarnessPlan, TheSweepTimesAllToAllBesideTheRingsOnEveryRing) {
    PlanOptions full;
    const Plan p = make_plan("qwen3-32b", m, hw, 16, 8, 2, full);
    constexpr double kMiB = 1048576.0;
    std::vector<std::tuple<int, int, double>> all_to_all;  // (ranks, per node, bytes)
    std::size_t sweep_all_gather = 0;
    for (const CollectiveCase& c : p.collectives) {
        if (c.op == Collective::all_to_all) {
            EXPECT_EQ(c.label, "sweep");
            all_to_all.emplace_back(c.ranks, c.ranks_per_node, c.bytes);
        }
        sweep_all_gather += c.op == Collective::all_gather && c.label == "sweep";
    }
    // The same sizes and rings as the all-gather sweep: 1/16, 1, 16, 256 MiB (whole
    // 256-byte chunks per rank: 65536 B over 16 ranks is 16 chunks of 4096 B) on 2, 4, 8
    // and 16 GPUs, the last across the two nodes.
    EXPECT_EQ(all_to_all.size(), sweep_all_gather);
    std::vector<std::tuple<int, int, double>> want;
    for (const auto& [ranks, per_node] : std::vector<std::pair<int, int>>{{2, 2}, {4, 4}, {8, 8}, {16, 8}})
        for (const double mib : {0.0625, 1.0, 16.0, 256.0}) want.emplace_back(ranks, per_node, mib * kMiB);
    EXPECT_EQ(all_to_all, want);
    // --quick: the 1 MiB one on each ring.
    const Plan q = make_plan("qwen3-32b", m, hw, 16, 8, 2, quick);
    EXPECT_EQ(std::count_if(q.collectives.begin(), q.collectives.end(),
                            [](const CollectiveCase& c) { return c.op == Collective::all_to_all && c.bytes == kMiB; }),
              4);
}

// What the simulated backend times and the progress lines predict: the core's laws.
TEST(HarnessCollectiveTime, RingsByRingTimeAllToAllByItsOwnLaw) {
    Calibration cal;
    cal.intra_node = {5e-6, 400e9};
    cal.inter_node = {10e-6, 50e9};
    CollectiveCase c;
    c.op = Collective::all_to_all;
    c.ranks = 16;
    c.ranks_per_node = 8;
    c.bytes = 1e9;
    // all_to_all_time_s by hand: 7 · 5 µs + 8 · 10 µs + max(7 · 62.5e6 / 400e9, 8 · 62.5e6 / 50e9).
    EXPECT_NEAR(collective_time_s(c, cal), 10.115e-3, 1e-12);
    c.ranks = c.ranks_per_node = 8;  // one node: the all-gather ring, 7 · 5 µs + 7/8 · 1e9 / 400e9
    EXPECT_NEAR(collective_time_s(c, cal), 2.2225e-3, 1e-12);
    c.op = Collective::all_reduce;
    c.ranks = 16;  // a ring across nodes: ring_link's min(400e9, 8 · 50e9), α (14 · 5 + 10) / 15 µs
    EXPECT_NEAR(collective_time_s(c, cal), 2 * (80e-6 + 15.0 / 16.0 * 1e9 / 400e9), 1e-12);
}

// The CUDA backend's buffers (cuda/collective_buffers.hpp), which build without CUDA.
TEST(HarnessCollectiveBuffers, AllToAllSendsAndReceivesTheBufferInAlignedChunks) {
    using cuda::collective_buffers;
    // 1 MiB of bf16 over 8 ranks: 524288 elements, a chunk of 65536 to each peer; both
    // buffers hold all 8 chunks, and each ncclSend / ncclRecv takes one chunk's count.
    const cuda::CollectiveBuffers a = collective_buffers(Collective::all_to_all, 1048576, 8, 2);
    EXPECT_EQ(a.send_bytes, 1048576u);
    EXPECT_EQ(a.recv_bytes, 1048576u);
    EXPECT_EQ(a.count, 65536u);
    // The all-gather of the same S sends one shard and receives S, count one shard.
    const cuda::CollectiveBuffers g = collective_buffers(Collective::all_gather, 1048576, 8, 2);
    EXPECT_EQ(g.send_bytes, 131072u);
    EXPECT_EQ(g.recv_bytes, 1048576u);
    EXPECT_EQ(g.count, 65536u);
    // 1000 B of bf16 over 3 ranks: 500 elements, 166 per peer, rounded down to whole 16
    // bytes (8 elements) as nccl-tests' alltoall does: 160, so 3 · 160 · 2 = 960 B.
    const cuda::CollectiveBuffers odd = collective_buffers(Collective::all_to_all, 1000, 3, 2);
    EXPECT_EQ(odd.count, 160u);
    EXPECT_EQ(odd.send_bytes, 960u);
    EXPECT_EQ(odd.recv_bytes, 960u);
    // 10 B of fp32 over 4 ranks: less than an element each; at least 16 bytes (4 elements)
    // to each peer: 4 · 4 · 4 = 64 B.
    const cuda::CollectiveBuffers tiny = collective_buffers(Collective::all_to_all, 10, 4, 4);
    EXPECT_EQ(tiny.count, 4u);
    EXPECT_EQ(tiny.send_bytes, 64u);
    EXPECT_EQ(tiny.recv_bytes, 64u);
}

TEST_F(HarnessPlan, OneGpuSaysWhatItCannotMeasure) {
    const Plan p = make_plan("qwen3-32b", m, hw, 1, 1, 1, quick);
    EXPECT_TRUE(p.collectives.empty());
    ASSERT_EQ(p.microruns.size(), 1u);
    EXPECT_EQ(p.microruns[0].config.gpus, 1);
    EXPECT_EQ(std::count(p.power_phases.begin(), p.power_phases.end(), PowerPhaseKind::nccl), 0);
    EXPECT_EQ(p.notes.size(), 3u);
    EXPECT_NE(p.notes[0].find("collectives skipped"), std::string::npos);
}

TEST_F(HarnessPlan, OptionsOutOfRangeNameTheOption) {
    PlanOptions o = quick;
    o.seq_len = 1 << 20;  // beyond Qwen3-32B's 40960 positions
    try {
        make_plan("qwen3-32b", m, hw, 8, 8, 1, o);
        ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("seq_len = 1048576"), std::string::npos) << e.what();
    }
    o = quick;
    o.microrun_layers = m.num_layers + 1;
    EXPECT_THROW(make_plan("qwen3-32b", m, hw, 8, 8, 1, o), std::invalid_argument);
    o = quick;
    o.micro_batch = 0;
    EXPECT_THROW(make_plan("qwen3-32b", m, hw, 8, 8, 1, o), std::invalid_argument);
    EXPECT_THROW(make_plan("qwen3-32b", m, hw, 4, 8, 1, quick), std::invalid_argument);
}

TEST(HarnessDetect, NvmlNamesMapToTheCatalog) {
    EXPECT_EQ(catalog_hardware_for("NVIDIA H200", 140.4), "h200");
    EXPECT_EQ(catalog_hardware_for("NVIDIA H100 80GB HBM3", 79.6), "h100");
    EXPECT_EQ(catalog_hardware_for("NVIDIA A100-SXM4-40GB", 40), "a100-40gb");
    EXPECT_EQ(catalog_hardware_for("NVIDIA A100-SXM4-80GB", 80), "a100");
    EXPECT_EQ(catalog_hardware_for("NVIDIA B300 SXM6 AC", 268.6), "b300");
    EXPECT_EQ(catalog_hardware_for("NVIDIA GB200", 185), "gb200");
    EXPECT_EQ(catalog_hardware_for("NVIDIA H100 PCIe", 80), "");  // another part: --hardware
    EXPECT_EQ(catalog_hardware_for("NVIDIA H200 NVL", 140), "");
    EXPECT_EQ(catalog_hardware_for("Tesla V100-SXM2-32GB", 32), "");
}

}  // namespace
}  // namespace libscale::harness
