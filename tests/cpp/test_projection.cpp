// Projections over GPU counts, the job's totals, and the deadline / budget solvers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "libscale/estimate/projection.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/error.hpp"
#include "test_scenario.hpp"
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
    const Projection p = project(test::scenario(m, hw, cal, base), {8, 2, 4, 4}, Scaling::strong, job);
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
    const Projection p = project(test::scenario(m, hw, cal, base), {12, 8}, Scaling::strong, job);
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].step.grad_accum, 3);
    EXPECT_EQ(p.rows[1].step.grad_accum, 2);
    EXPECT_DOUBLE_EQ(p.rows[0].step.tokens_per_step, 24000.0);
    EXPECT_DOUBLE_EQ(p.rows[1].step.tokens_per_step, 24000.0);
}

TEST_F(ProjectionTest, WeakScalingKeepsPerGpuBatch) {
    // At 2 GPUs: 8000 / (2 · 1000) = 4 micro-batches; kept at 4 and 8 GPUs.
    const Projection p = project(test::scenario(m, hw, cal, base), {2, 4, 8}, Scaling::weak, job);
    const double tokens[] = {8000, 16000, 32000};
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(p.rows[i].step.grad_accum, 4);
        EXPECT_DOUBLE_EQ(p.rows[i].step.tokens_per_step, tokens[i]);
    }
}

TEST_F(ProjectionTest, RowTotalsByHand) {
    // 2 GPUs, A = 4: micro-batches 4 · 2685.4168 µs + optimizer 456.027 = 11,197.6942 µs.
    // (per micro-batch figures as in test_step_model.cpp: compute 2472.4128 µs, exposed
    // 213.004 µs)
    const Projection p = project(test::scenario(m, hw, cal, base), {2}, Scaling::strong, job);
    const ProjectionRow& r = p.rows.at(0);
    EXPECT_REL(r.step.step_time_s, 11197.6942 * kUs);
    const double tps = 8000 / (11197.6942 * kUs);
    EXPECT_REL(r.step.tokens_per_s, tps);
    EXPECT_REL(r.steps, 250'000.0);               // 2e9 tokens / 8000
    EXPECT_REL(r.wall_time_h, 2e9 / tps / 3600);  // = 250,000 · 11,197.6942 µs = 0.77761765 h
    EXPECT_REL(r.wall_time_h, 0.777617652777778);
    EXPECT_REL(r.gpu_hours, 2 * r.wall_time_h);
    EXPECT_REL(r.cost_usd, 2.0 * r.gpu_hours);  // the hardware's $2.00 default
    EXPECT_DOUBLE_EQ(p.price_per_gpu_hour_usd, 2.0);
    // Energy per step: 2 · ((4 · 2472.4128 + 456.027) µs · 1000 W + 4 · 213.004 µs · 500 W)
    //   = 2 · (10.3456782 + 0.426008) = 21.5433724 J; × 250,000 steps / 3.6e6 = 1.49606753 kWh.
    EXPECT_REL(r.step.energy_per_step_j, 21.5433724);
    EXPECT_REL(r.energy_kwh, 21.5433724 * 250'000 / 3.6e6);
    EXPECT_DOUBLE_EQ(r.speedup, 1.0);
    EXPECT_DOUBLE_EQ(r.scaling_efficiency, 1.0);
    EXPECT_EQ(r.step.memory.status, FitStatus::fits);
    EXPECT_EQ(r.fit_suggestion, "");

    job.price_per_gpu_hour_usd = 3.5;  // a user's own price overrides the hardware's
    const Projection q = project(test::scenario(m, hw, cal, base), {2}, Scaling::strong, job);
    EXPECT_REL(q.rows[0].cost_usd, 3.5 * q.rows[0].gpu_hours);
}

// A job smaller than one optimizer step takes one whole step, not a fraction of its time.
TEST_F(ProjectionTest, AJobSmallerThanAStepTakesOneStep) {
    base.global_batch_tokens = 32000;
    Job tiny;
    tiny.tokens = 1000;
    const Projection p = project(test::scenario(m, hw, cal, base), {2}, Scaling::strong, tiny);
    const ProjectionRow& r = p.rows[0];
    EXPECT_EQ(r.steps, 1.0);
    EXPECT_REL(r.wall_time_h * 3600, r.step.step_time_s);
    EXPECT_REL(r.energy_kwh, r.step.energy_per_step_j / 3.6e6);
}

TEST_F(ProjectionTest, Invariants) {
    base.global_batch_tokens = 32000;
    for (Scaling sc : {Scaling::strong, Scaling::weak}) {
        const Projection p = project(test::scenario(m, hw, cal, base), {2, 4, 8, 16, 32}, sc, job);
        ASSERT_EQ(p.rows.size(), 5u);
        const ProjectionRow& ref = p.rows.front();
        for (const ProjectionRow& r : p.rows) {
            SCOPED_TRACE(r.step.gpus);
            EXPECT_REL(r.gpu_hours, static_cast<double>(r.step.gpus) * r.wall_time_h);
            // Whole steps: the last one runs on what is left of the job.
            EXPECT_EQ(r.steps, std::ceil(job.tokens * job.epochs / r.step.tokens_per_step));
            EXPECT_GE(r.steps * r.step.tokens_per_step, job.tokens * job.epochs);
            EXPECT_LT((r.steps - 1) * r.step.tokens_per_step, job.tokens * job.epochs);
            EXPECT_REL(r.wall_time_h * 3600, r.steps * r.step.step_time_s);
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
    const Projection p = project(test::scenario(m, hw, cal, base), {2, 4, 8, 16, 32}, Scaling::strong, job);
    ASSERT_TRUE(p.comm_exposed_from_gpus.has_value());
    EXPECT_EQ(*p.comm_exposed_from_gpus, 16);
    // Hand step times (µs), per micro-batch as in test_step_model.cpp (8 GPUs: exposed
    // 374.3105 µs; 16 GPUs on the NIC: micro-batch 7583.7298 µs):
    //    2: 16 · 2685.4168 + 456.027 = 43,422.6958
    //    8: 4 · (2472.4128 + 374.3105) + 114.00675 = 11,500.89995
    //   16: 2 · 7583.7298 + 57.003375 = 15,224.462975
    // Crossing the node makes 16 GPUs slower than 8.
    EXPECT_REL(p.rows[0].step.step_time_s, 43422.6958 * kUs);
    EXPECT_REL(p.rows[2].step.step_time_s, 11500.89995 * kUs);
    EXPECT_REL(p.rows[3].step.step_time_s, 15224.462975 * kUs);
    EXPECT_GT(p.rows[3].step.step_time_s, p.rows[2].step.step_time_s);
    EXPECT_LT(p.rows[3].scaling_efficiency, 0.5);
    EXPECT_GT(p.rows[2].scaling_efficiency, 0.9);
    // In one node only: nothing exposed.
    const Projection q = project(test::scenario(m, hw, cal, base), {2, 4, 8}, Scaling::strong, job);
    EXPECT_FALSE(q.comm_exposed_from_gpus.has_value());
}

TEST(Projection, Qwen3_32BOnB300StaysHiddenAcrossTwoNodes) {
    // Qwen3-32B on B300, seq 8192, micro-batch 1, global batch 1,048,576 tokens, default
    // calibration (GEMM eta_max 0.824 of 2250 TFLOP/s, FlashAttention-2's law, HBM 0.9 of
    // 8 TB/s). One layer's forward, by the per-operation laws:
    //   GEMMs 2 · 8192 · 487,587,840 = 7.99e12 FLOPs at ≈ 0.8 · 2250e12 → ≈ 4.5 ms
    //   attention 4 · 8192 · 8192 · 4096 = 1.10e12 FLOPs at 0.347 · 4096/4504 of peak → ≈ 1.5 ms
    //   memory-bound ≈ 1.2 MB per token · 8192 / 7.2e12 B/s → ≈ 1.4 ms
    //   → cf ≈ 7.6 ms; backward with full recompute ≈ 23 ms.
    //   Layer gather, bf16 975,196,672 B:
    //     8 GPUs (NVLink, 738 GB/s): 7 · 3.4 µs + 7/8 · 975.2e6 / 738e9 ≈ 1.18 ms < cf
    //     16 GPUs (two nodes; eight 800G rails, 8 · 94 GB/s > 738, so NVLink still
    //       bounds the ring): 61.6 µs + 15/16 · 975.2e6 / 738e9 ≈ 1.30 ms < cf
    // So communication hides at every count and scaling is near-linear, as the field
    // report (full fine-tuning of Qwen3-32B on 16 × NVIDIA B300, FSDP / ZeRO-3) saw on
    // 4/8/16 B300 (calibration/data/measurements/field-report-qwen3-32b-b300.json).
    const ModelSpec q = find_model("qwen3-32b");
    const HardwareProfile b300 = find_hardware("b300");
    TrainingConfig c;
    c.seq_len = 8192;
    c.micro_batch = 1;
    c.global_batch_tokens = 1'048'576;
    Job job;
    job.tokens = 1e9;
    const Projection p =
        project(test::scenario(q, b300, default_calibration(b300), c), {4, 8, 16}, Scaling::strong, job);
    ASSERT_EQ(p.rows.size(), 3u);
    EXPECT_EQ(p.rows[0].step.grad_accum, 32);
    EXPECT_EQ(p.rows[1].step.grad_accum, 16);
    EXPECT_EQ(p.rows[2].step.grad_accum, 8);
    EXPECT_FALSE(p.comm_exposed_from_gpus.has_value());
    EXPECT_GT(p.rows[1].scaling_efficiency, 0.97);
    EXPECT_GT(p.rows[2].scaling_efficiency, 0.95);
}

TEST(Projection, SmallModelBendsAtTheNodeBoundary) {
    // Qwen3-0.6B (a layer is 15.73M parameters, 31.5 MB in bf16) at 512 tokens per GPU,
    // torch.compile'd (fused elementwise chains, fewer launches), on H100 with the default
    // calibration: a layer's forward takes about 0.105 ms. Its gather:
    //   8 GPUs (NVLink, 369 GB/s): 7 · 3.4 µs + 7/8 · 31.5e6 / 369e9 ≈ 98 µs < cf
    //   16 GPUs (two nodes): 14 · 3.4 + 14 µs (one network hop) + 15/16 · 31.5e6 / 369e9
    //     ≈ 142 µs > cf
    // so the per-layer collectives stop hiding once the ring leaves the node.
    const ModelSpec q = find_model("qwen3-0.6b");
    const HardwareProfile h100 = find_hardware("h100");
    TrainingConfig c;
    c.seq_len = 512;
    c.global_batch_tokens = 64 * 512;
    c.torch_compile = true;
    Job job;
    // The kernel laws alone (framework efficiency 1): the default's centring on the shipped
    // trainers would slow compute and move the bend to where the arithmetic above does not.
    Calibration kernels = default_calibration(h100);
    kernels.framework_efficiency = 1;
    const Projection p = project(test::scenario(q, h100, kernels, c), {4, 8, 16, 32}, Scaling::strong, job);
    ASSERT_TRUE(p.comm_exposed_from_gpus.has_value());
    EXPECT_EQ(*p.comm_exposed_from_gpus, 16);  // hidden at 4 and 8, inside one node
    EXPECT_LT(p.rows[2].scaling_efficiency, p.rows[1].scaling_efficiency);
    EXPECT_LT(p.rows[3].scaling_efficiency, p.rows[2].scaling_efficiency);
    // Eager, the same layer runs about 2.5 times longer (unfused norms, rotary, SiLU and
    // residual adds; more kernel launches): the gathers hide at every count.
    c.torch_compile = false;
    EXPECT_FALSE(project(test::scenario(q, h100, default_calibration(h100), c), {4, 8, 16, 32}, Scaling::strong, job)
                     .comm_exposed_from_gpus.has_value());
}

TEST_F(ProjectionTest, BadCountsAndJobsThrow) {
    EXPECT_THROW((void)project(test::scenario(m, hw, cal, base), {}, Scaling::strong, job), std::invalid_argument);
    try {
        (void)project(test::scenario(m, hw, cal, base), {2, 0}, Scaling::strong, job);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("gpus[1] = 0"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)project(test::scenario(m, hw, cal, base), {-8}, Scaling::strong, job), std::invalid_argument);
    // 8000 tokens do not divide over 3 GPUs × 1000.
    EXPECT_THROW((void)project(test::scenario(m, hw, cal, base), {2, 3}, Scaling::strong, job), std::invalid_argument);
    Job bad = job;
    bad.tokens = 0;
    EXPECT_THROW((void)project(test::scenario(m, hw, cal, base), {2}, Scaling::strong, bad), std::invalid_argument);
    bad = job;
    bad.epochs = -1;
    EXPECT_THROW((void)project(test::scenario(m, hw, cal, base), {2}, Scaling::strong, bad), std::invalid_argument);
    bad = job;
    bad.price_per_gpu_hour_usd = -1;
    EXPECT_THROW((void)project(test::scenario(m, hw, cal, base), {2}, Scaling::strong, bad), std::invalid_argument);
}

TEST_F(ProjectionTest, DoesNotFitIsReportedNotThrown) {
    // 2 GPUs need 2.88 GiB (test_memory.cpp); 4 need 16 · P / 4 = 608,036,000 B of states
    // + 52,000,000 + 300,000,000 + 452,012,000 B + 1 GiB = 2.31 GiB.
    hw.hbm_gib = 2.5;
    const Projection p = project(test::scenario(m, hw, cal, base), {2, 8}, Scaling::strong, job);
    ASSERT_EQ(p.rows.size(), 2u);
    const ProjectionRow& two = p.rows[0];
    EXPECT_EQ(two.step.memory.status, FitStatus::does_not_fit);
    EXPECT_FALSE(two.step.memory.fits);
    EXPECT_GT(two.step.step_time_s, 0.0);  // still projected
    EXPECT_NE(two.fit_suggestion.find("gpus=4 (GPU-hours x"), std::string::npos) << two.fit_suggestion;
    EXPECT_EQ(p.rows[1].step.memory.status, FitStatus::fits);
    EXPECT_EQ(p.rows[1].fit_suggestion, "");
    // require_fit turns the row into the error.
    TrainingConfig c = base;
    c.gpus = 2;
    EXPECT_THROW(require_fit(m, hw, cal, c, two.step), DoesNotFitError);
    EXPECT_NO_THROW(project(test::scenario(m, hw, cal, base), {4, 8}, Scaling::strong, job));
    // Within the margin the row is "uncertain" and still says what would surely fit:
    // 2.88 GiB ± 10% straddles 3 GiB.
    hw.hbm_gib = 3.0;
    cal.memory_margin = 0.1;
    const Projection u = project(test::scenario(m, hw, cal, base), {2}, Scaling::strong, job);
    EXPECT_EQ(u.rows[0].step.memory.status, FitStatus::uncertain);
    EXPECT_FALSE(u.rows[0].step.memory.fits);  // uncertain is not fitting
    EXPECT_FALSE(u.rows[0].fit_suggestion.empty());
}

// Hand table for the solvers (global batch 32,000; job 1e9 tokens × 1 epoch; $2.00/GPU-h),
// per micro-batch as in test_step_model.cpp; 4 GPUs: ag = 19.503, ag_root = rs_root =
// 150.0015 µs, the last layer's reduce-scatter (19.503) hidden under the embedding's 21.2:
// micro-batch 2472.4128 + 150.0015 + 19.503 + 150.0015 = 2791.9188 µs; 32 GPUs on the
// NIC: ag = 31/32 · 260.04 = 251.91375, ag_root = 1937.519375, micro-batch 7781.8673 µs.
//   GPUs  A   step (µs)                                  wall (h)   GPU-hours  cost
//    2    16  16 · 2685.4168 + 456.027  = 43,422.6958    0.376933   0.753866   $1.51
//    4     8  8 · 2791.9188 + 228.0135  = 22,563.3639    0.195863   0.783450   $1.57
//    8     4  4 · 2846.7233 + 114.00675 = 11,500.89995   0.099834   0.798674   $1.60
//   16     2  2 · 7583.7298 + 57.003375 = 15,224.462975  0.132157   2.114509   $4.23
//   32     1  7781.8673 + 28.5016875    = 7,810.3689875  0.067798   2.169547   $4.34
// (wall = 1e9 / 32,000 steps · step time)
struct Solvers : ProjectionTest {
    Solvers() {
        base.global_batch_tokens = 32000;
        job.epochs = 1;
    }
    const std::vector<std::int64_t> counts{2, 4, 8, 16, 32};
};

TEST_F(Solvers, TableByHand) {
    const Projection p = project(test::scenario(m, hw, cal, base), counts, Scaling::strong, job);
    const double step_us[] = {43422.6958, 22563.3639, 11500.89995, 15224.462975, 7810.3689875};
    for (std::size_t i = 0; i < 5; ++i) {
        SCOPED_TRACE(counts[i]);
        EXPECT_REL(p.rows[i].step.step_time_s, step_us[i] * kUs);
        const double wall_h = 1e9 / 32000 * step_us[i] * kUs / 3600;
        EXPECT_REL(p.rows[i].wall_time_h, wall_h);
        EXPECT_REL(p.rows[i].gpu_hours, static_cast<double>(counts[i]) * wall_h);
    }
}

TEST_F(Solvers, DeadlinePicksTheCheapestCountThatMeetsIt) {
    // Deadline 0.12 h: only 8 (0.0998 h) and 32 (0.0678 h) meet it; 8 costs $1.60, 32 $4.34.
    Solution s = solve_deadline(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, 0.12);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.row.step.gpus, 8);
    EXPECT_EQ(s.candidates.size(), 5u);
    // Deadline 0.08 h: only 32 meets it.
    s = solve_deadline(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, 0.08);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.row.step.gpus, 32);
    // Deadline 0.5 h: everything meets it; 2 GPUs are cheapest.
    s = solve_deadline(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, 0.5);
    EXPECT_EQ(s.row.step.gpus, 2);
    // Unreachable.
    s = solve_deadline(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, 0.05);
    EXPECT_FALSE(s.found);
    EXPECT_THROW((void)solve_deadline(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, 0.0),
                 std::invalid_argument);
    EXPECT_THROW((void)solve_deadline(test::scenario(m, hw, cal, base), {0}, Scaling::strong, job, 1.0),
                 std::invalid_argument);
}

TEST_F(Solvers, BudgetPicksTheFastestCountUnderTheCap) {
    // ≤ 1 GPU-hour: 2, 4, 8 qualify; 8 is fastest.
    Solution s = solve_budget(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, 1.0, kNaN);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.row.step.gpus, 8);
    // ≤ 0.76 GPU-hour: only 2.
    s = solve_budget(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, 0.76, kNaN);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.row.step.gpus, 2);
    // ≤ $5 (2.5 GPU-hours): all qualify; 32 is fastest.
    s = solve_budget(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, kNaN, 5.0);
    EXPECT_EQ(s.row.step.gpus, 32);
    // ≤ $1.50: nothing (2 GPUs cost $1.51).
    s = solve_budget(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, kNaN, 1.5);
    EXPECT_FALSE(s.found);
    EXPECT_THROW((void)solve_budget(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, kNaN, kNaN),
                 std::invalid_argument);
    EXPECT_THROW((void)solve_budget(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, -1.0, kNaN),
                 std::invalid_argument);
}

TEST_F(Solvers, SolversSkipInvalidCountsAndNeverPickOnesThatDoNotFit) {
    // 3 GPUs do not divide the batch: skipped, not an error.
    const std::vector<std::int64_t> with_bad{2, 3, 8};
    const Solution s = solve_deadline(test::scenario(m, hw, cal, base), with_bad, Scaling::strong, job, 1.0);
    EXPECT_EQ(s.candidates.size(), 2u);
    // 2 GPUs (2.88 GiB) no longer fit, 4 (2.31 GiB) do: 2 stays among the candidates,
    // marked, and the cheapest count that fits is chosen instead ($1.57 at 4 GPUs).
    hw.hbm_gib = 2.5;
    const Solution f = solve_deadline(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, 1.0);
    ASSERT_EQ(f.candidates.size(), 5u);
    EXPECT_EQ(f.candidates.front().step.gpus, 2);
    EXPECT_EQ(f.candidates.front().step.memory.status, FitStatus::does_not_fit);
    ASSERT_TRUE(f.found);
    EXPECT_EQ(f.row.step.gpus, 4);
    const Solution b = solve_budget(test::scenario(m, hw, cal, base), counts, Scaling::strong, job, 0.76, kNaN);
    EXPECT_FALSE(b.found);  // only 2 GPUs were under 0.76 GPU-hours, and they do not fit
}

TEST(Projection, ParseScaling) {
    EXPECT_EQ(parse_scaling("strong"), Scaling::strong);
    EXPECT_EQ(parse_scaling("weak"), Scaling::weak);
    EXPECT_STREQ(to_string(Scaling::weak), "weak");
    EXPECT_THROW((void)parse_scaling("linear"), std::invalid_argument);
}

}  // namespace
}  // namespace libscale
