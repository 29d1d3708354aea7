// The calibration harness's plan: the shapes, message sizes, rings and micro-runs it
// measures for a model, worked out from the model's figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

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
