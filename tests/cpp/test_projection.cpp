// Projections over GPU counts, the job's totals, and the deadline / budget solvers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "libscale/catalog.hpp"
#include "libscale/error.hpp"
#include "libscale/projection.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

using test::kUs;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct ProjectionTest : ::testing::Test {
    ModelSpec m = test::tiny_model();
    HardwareProfile hw = test::tiny_hardware();  // $2.00 per GPU-hour
    Calibration cal = test::tiny_calibration();
    TrainingConfig base = test::tiny_config();
    Job job;
    ProjectionTest() {
        base.global_batch_tokens = 8000;
        job.tokens = 1e9;
        job.epochs = 2;
    }
};

TEST_F(ProjectionTest, StrongScalingKeepsGlobalBatch) {
    const Projection p = project(m, hw, cal, base, {8, 2, 4, 4}, Scaling::strong, job);
    ASSERT_EQ(p.rows.size(), 3u);  // sorted, duplicates dropped
    const std::int64_t gpus[] = {2, 4, 8}, accum[] = {4, 2, 1};
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(p.rows[i].step.gpus, gpus[i]);
        EXPECT_EQ(p.rows[i].step.grad_accum, accum[i]);  // halves as GPUs double
        EXPECT_DOUBLE_EQ(p.rows[i].step.tokens_per_step, 8000.0);
    }
}

TEST_F(ProjectionTest, StrongScalingDefaultBatchIsSharedByEveryCount) {
    // No global batch given: one micro-batch (1000 tokens) on each of lcm(8, 12) = 24 GPUs
    // = 24,000 tokens, so 8 GPUs accumulate 3 micro-batches and 12 GPUs 2.
    base.global_batch_tokens = 0;
    const Projection p = project(m, hw, cal, base, {12, 8}, Scaling::strong, job);
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].step.grad_accum, 3);
    EXPECT_EQ(p.rows[1].step.grad_accum, 2);
    EXPECT_DOUBLE_EQ(p.rows[0].step.tokens_per_step, 24000.0);
    EXPECT_DOUBLE_EQ(p.rows[1].step.tokens_per_step, 24000.0);
}

TEST_F(ProjectionTest, WeakScalingKeepsPerGpuBatch) {
    // At 2 GPUs: 8000 / (2 · 1000) = 4 micro-batches; kept at 4 and 8 GPUs.
    const Projection p = project(m, hw, cal, base, {2, 4, 8}, Scaling::weak, job);
    const double tokens[] = {8000, 16000, 32000};
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(p.rows[i].step.grad_accum, 4);
        EXPECT_DOUBLE_EQ(p.rows[i].step.tokens_per_step, tokens[i]);
    }
}

TEST_F(ProjectionTest, RowTotalsByHand) {
    // 2 GPUs, A = 4: micro-batches 4 · 1722.006 µs + optimizer 456.027 = 7344.051 µs.
    // (per micro-batch figures as in test_step_model.cpp)
    const Projection p = project(m, hw, cal, base, {2}, Scaling::strong, job);
    const ProjectionRow& r = p.rows.at(0);
    EXPECT_REL(r.step.step_time_s, 7344.051 * kUs);
    const double tps = 8000 / (7344.051 * kUs);
    EXPECT_REL(r.step.tokens_per_s, tps);
    EXPECT_REL(r.steps, 250'000.0);                     // 2e9 tokens / 8000
    EXPECT_REL(r.wall_time_h, 2e9 / tps / 3600);        // = 250,000 · 7344.051 µs = 0.51000354 h
    EXPECT_REL(r.wall_time_h, 0.510003541666667);
    EXPECT_REL(r.gpu_hours, 2 * r.wall_time_h);
    EXPECT_REL(r.cost_usd, 2.0 * r.gpu_hours);          // the hardware's $2.00 default
    EXPECT_DOUBLE_EQ(p.price_per_gpu_hour_usd, 2.0);
    // Energy per step: 2 · ((4 · 1496 + 456.027) µs · 1000 W + 4 · 226.006 µs · 500 W)
    //   = 2 · (6.440027 + 0.452012) = 13.784078 J; × 250,000 steps / 3.6e6 = 0.957227639 kWh.
    EXPECT_REL(r.step.energy_per_step_j, 13.784078);
    EXPECT_REL(r.energy_kwh, 13.784078 * 250'000 / 3.6e6);
    EXPECT_DOUBLE_EQ(r.speedup, 1.0);
    EXPECT_DOUBLE_EQ(r.scaling_efficiency, 1.0);

    job.price_per_gpu_hour_usd = 3.5;  // a user's own price overrides the hardware's
    const Projection q = project(m, hw, cal, base, {2}, Scaling::strong, job);
    EXPECT_REL(q.rows[0].cost_usd, 3.5 * q.rows[0].gpu_hours);
}

TEST_F(ProjectionTest, Invariants) {
    base.global_batch_tokens = 32000;
    for (Scaling sc : {Scaling::strong, Scaling::weak}) {
        const Projection p = project(m, hw, cal, base, {2, 4, 8, 16, 32}, sc, job);
        ASSERT_EQ(p.rows.size(), 5u);
        const ProjectionRow& ref = p.rows.front();
        for (const ProjectionRow& r : p.rows) {
            SCOPED_TRACE(r.step.gpus);
            EXPECT_REL(r.gpu_hours, static_cast<double>(r.step.gpus) * r.wall_time_h);
            EXPECT_REL(r.wall_time_h * 3600 * r.step.tokens_per_s, job.tokens * job.epochs);
            EXPECT_REL(r.steps * r.step.tokens_per_step, job.tokens * job.epochs);
            EXPECT_REL(r.speedup, r.step.tokens_per_s / ref.step.tokens_per_s);
            EXPECT_REL(r.scaling_efficiency,
                       r.speedup * static_cast<double>(ref.step.gpus) / static_cast<double>(r.step.gpus));
            EXPECT_REL(r.energy_kwh, r.step.energy_per_step_j * r.steps / 3.6e6);
        }
    }
}

TEST_F(ProjectionTest, CommExposedFromTheNodeBoundary) {
    // Tiny model: hidden on NVLink up to 8 GPUs, exposed at 16 (NIC, see test_step_model).
    base.global_batch_tokens = 32000;
    const Projection p = project(m, hw, cal, base, {2, 4, 8, 16, 32}, Scaling::strong, job);
    ASSERT_TRUE(p.comm_exposed_from_gpus.has_value());
    EXPECT_EQ(*p.comm_exposed_from_gpus, 16);
    // Hand step times (µs): 2: 16 · 1722.006 + 456.027 = 28008.123; 8: 4 · 1891.5105 +
    // 114.00675 = 7680.04875; 16: 2 · 7087.7 + 57.003375 = 14232.403375. Crossing the node
    // makes 16 GPUs slower than 8.
    EXPECT_REL(p.rows[0].step.step_time_s, 28008.123 * kUs);
    EXPECT_REL(p.rows[2].step.step_time_s, 7680.04875 * kUs);
    EXPECT_REL(p.rows[3].step.step_time_s, 14232.403375 * kUs);
    EXPECT_LT(p.rows[3].scaling_efficiency, 0.5);
    EXPECT_GT(p.rows[2].scaling_efficiency, 0.9);
    // In one node only: nothing exposed.
    const Projection q = project(m, hw, cal, base, {2, 4, 8}, Scaling::strong, job);
    EXPECT_FALSE(q.comm_exposed_from_gpus.has_value());
}

TEST(Projection, Qwen3_32BOnB300StaysHiddenAcrossTwoNodes) {
    // Qwen3-32B on B300, seq 8192, micro-batch 1, global batch 1,048,576 tokens:
    //   η(8192) = 0.78 · 8192 / 8704 = 0.73412; rate 2250e12 · η = 1.6518e15 FLOP/s.
    //   One layer's forward: 8192 · (2 · 487,587,840 + 4 · 8192 · 4096) = 9.088e12 FLOPs
    //   → cf ≈ 5.50 ms; backward with full recompute 3 · cf ≈ 16.5 ms.
    //   Layer gather, bf16 975,196,672 B:
    //     8 GPUs (NVLink, 738 GB/s): 7 · 3.4 µs + 7/8 · 975.2e6 / 738e9 ≈ 1.18 ms < cf
    //     16 GPUs (two nodes; eight 800G rails, 8 · 94 GB/s > 738, so NVLink still
    //       bounds the ring): 61.6 µs + 15/16 · 975.2e6 / 738e9 ≈ 1.30 ms < cf
    // So communication hides at every count and scaling is near-linear, as the field
    // report saw on 4/8/16 B300 (FACTS.md).
    const ModelSpec q = find_model("qwen3-32b");
    const HardwareProfile b300 = find_hardware("b300");
    TrainingConfig c;
    c.seq_len = 8192;
    c.micro_batch = 1;
    c.global_batch_tokens = 1'048'576;
    Job job;
    job.tokens = 1e9;
    const Projection p = project(q, b300, default_calibration(b300), c, {4, 8, 16}, Scaling::strong, job);
    ASSERT_EQ(p.rows.size(), 3u);
    EXPECT_EQ(p.rows[0].step.grad_accum, 32);
    EXPECT_EQ(p.rows[1].step.grad_accum, 16);
    EXPECT_EQ(p.rows[2].step.grad_accum, 8);
    EXPECT_FALSE(p.comm_exposed_from_gpus.has_value());
    EXPECT_GT(p.rows[1].scaling_efficiency, 0.97);
    EXPECT_GT(p.rows[2].scaling_efficiency, 0.95);
}

TEST(Projection, SmallModelBendsAtTheNodeBoundary) {
    // Qwen3-0.6B at 2,048 tokens per GPU on H100: a layer's forward is about
    // 2048 · 2 · 15.7e6 / (989.4e12 · 0.78 · 2048/2560) ≈ 0.1 ms, while a 16-GPU ring
    // pays 15 latency steps plus a 14 µs network hop on each gather: the per-layer
    // collectives no longer hide once the ring leaves the node.
    const ModelSpec q = find_model("qwen3-0.6b");
    const HardwareProfile h100 = find_hardware("h100");
    TrainingConfig c;
    c.seq_len = 2048;
    c.global_batch_tokens = 64 * 2048;
    Job job;
    const Projection p = project(q, h100, default_calibration(h100), c, {4, 8, 16, 32}, Scaling::strong, job);
    ASSERT_TRUE(p.comm_exposed_from_gpus.has_value());
    EXPECT_EQ(*p.comm_exposed_from_gpus, 16);  // hidden at 4 and 8, inside one node
    EXPECT_LT(p.rows[3].scaling_efficiency, p.rows[1].scaling_efficiency);
}

TEST_F(ProjectionTest, BadCountsAndJobsThrow) {
    EXPECT_THROW((void)project(m, hw, cal, base, {}, Scaling::strong, job), std::invalid_argument);
    try {
        (void)project(m, hw, cal, base, {2, 0}, Scaling::strong, job);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("gpus[1] = 0"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)project(m, hw, cal, base, {-8}, Scaling::strong, job), std::invalid_argument);
    // 8000 tokens do not divide over 3 GPUs × 1000.
    EXPECT_THROW((void)project(m, hw, cal, base, {2, 3}, Scaling::strong, job), std::invalid_argument);
    Job bad = job;
    bad.tokens = 0;
    EXPECT_THROW((void)project(m, hw, cal, base, {2}, Scaling::strong, bad), std::invalid_argument);
    bad = job;
    bad.epochs = -1;
    EXPECT_THROW((void)project(m, hw, cal, base, {2}, Scaling::strong, bad), std::invalid_argument);
    bad = job;
    bad.price_per_gpu_hour_usd = -1;
    EXPECT_THROW((void)project(m, hw, cal, base, {2}, Scaling::strong, bad), std::invalid_argument);
}

TEST_F(ProjectionTest, DoesNotFitThrowsFromProject) {
    // 2 GPUs need 2.88 GiB (test_memory.cpp); 4 need 16 · P / 4 = 608,036,000 B of states
    // + 52,000,000 + 300,000,000 + 452,012,000 B + 1 GiB = 2.31 GiB.
    hw.hbm_gib = 2.5;
    EXPECT_NO_THROW((void)project(m, hw, cal, base, {4, 8}, Scaling::strong, job));
    EXPECT_THROW((void)project(m, hw, cal, base, {2, 8}, Scaling::strong, job), DoesNotFitError);
}

// Hand table for the solvers (global batch 32,000; job 1e9 tokens × 1 epoch; $2.00/GPU-h):
//   GPUs  step (µs)        tokens/s     wall (h)   GPU-hours
//    2    28008.123        1,142,526    0.24313    0.48625
//    4    14908.0855       2,146,486    0.12941    0.51764
//    8     7680.04875      4,166,640    0.06667    0.53334
//   16    14232.403375     2,248,390    0.12355    1.97672
//   32     7330.5916875    4,365,268    0.06363    2.03628
struct Solvers : ProjectionTest {
    Solvers() {
        base.global_batch_tokens = 32000;
        job.epochs = 1;
    }
    const std::vector<std::int64_t> counts{2, 4, 8, 16, 32};
};

TEST_F(Solvers, TableByHand) {
    const Projection p = project(m, hw, cal, base, counts, Scaling::strong, job);
    const double gpu_hours[] = {0.48625213541667, 0.51764185763889, 0.53333671875, 1.9767226909722,
                                2.03627546875};
    for (std::size_t i = 0; i < 5; ++i) EXPECT_NEAR(p.rows[i].gpu_hours, gpu_hours[i], 1e-12);
}

TEST_F(Solvers, DeadlinePicksTheCheapestCountThatMeetsIt) {
    // Deadline 0.1 h: only 8 (0.0667 h) and 32 (0.0636 h) meet it; 8 costs $1.07, 32 $4.07.
    Solution s = solve_deadline(m, hw, cal, base, counts, Scaling::strong, job, 0.1);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.row.step.gpus, 8);
    EXPECT_EQ(s.candidates.size(), 5u);
    // Deadline 0.065 h: only 32 meets it.
    s = solve_deadline(m, hw, cal, base, counts, Scaling::strong, job, 0.065);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.row.step.gpus, 32);
    // Deadline 0.3 h: everything meets it; 2 GPUs are cheapest.
    s = solve_deadline(m, hw, cal, base, counts, Scaling::strong, job, 0.3);
    EXPECT_EQ(s.row.step.gpus, 2);
    // Unreachable.
    s = solve_deadline(m, hw, cal, base, counts, Scaling::strong, job, 0.01);
    EXPECT_FALSE(s.found);
    EXPECT_THROW((void)solve_deadline(m, hw, cal, base, counts, Scaling::strong, job, 0.0), std::invalid_argument);
    EXPECT_THROW((void)solve_deadline(m, hw, cal, base, {0}, Scaling::strong, job, 1.0), std::invalid_argument);
}

TEST_F(Solvers, BudgetPicksTheFastestCountUnderTheCap) {
    // ≤ 1 GPU-hour: 2, 4, 8 qualify; 8 is fastest.
    Solution s = solve_budget(m, hw, cal, base, counts, Scaling::strong, job, 1.0, kNaN);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.row.step.gpus, 8);
    // ≤ 0.5 GPU-hour: only 2.
    s = solve_budget(m, hw, cal, base, counts, Scaling::strong, job, 0.5, kNaN);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.row.step.gpus, 2);
    // ≤ $5 (2.5 GPU-hours): all qualify; 32 is fastest.
    s = solve_budget(m, hw, cal, base, counts, Scaling::strong, job, kNaN, 5.0);
    EXPECT_EQ(s.row.step.gpus, 32);
    // ≤ $0.90: nothing (2 GPUs cost $0.97).
    s = solve_budget(m, hw, cal, base, counts, Scaling::strong, job, kNaN, 0.9);
    EXPECT_FALSE(s.found);
    EXPECT_THROW((void)solve_budget(m, hw, cal, base, counts, Scaling::strong, job, kNaN, kNaN),
                 std::invalid_argument);
    EXPECT_THROW((void)solve_budget(m, hw, cal, base, counts, Scaling::strong, job, -1.0, kNaN),
                 std::invalid_argument);
}

TEST_F(Solvers, SolversSkipCountsThatDoNotFitOrAreInvalid) {
    // 3 GPUs do not divide the batch: skipped, not an error.
    const std::vector<std::int64_t> with_bad{2, 3, 8};
    const Solution s = solve_deadline(m, hw, cal, base, with_bad, Scaling::strong, job, 1.0);
    EXPECT_EQ(s.candidates.size(), 2u);
    hw.hbm_gib = 2.5;  // 2 GPUs (2.88 GiB) no longer fit; 4 (2.31 GiB) do
    const Solution f = solve_deadline(m, hw, cal, base, counts, Scaling::strong, job, 1.0);
    ASSERT_EQ(f.candidates.size(), 4u);
    EXPECT_EQ(f.candidates.front().step.gpus, 4);
}

TEST(Projection, ParseScaling) {
    EXPECT_EQ(parse_scaling("strong"), Scaling::strong);
    EXPECT_EQ(parse_scaling("weak"), Scaling::weak);
    EXPECT_STREQ(to_string(Scaling::weak), "weak");
    EXPECT_THROW((void)parse_scaling("linear"), std::invalid_argument);
}

}  // namespace
}  // namespace libscale
