// The vectorized sweep equals estimate_step element by element; invalid elements are
// flagged, never thrown.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "libscale/estimate/sweep.hpp"
#include "libscale/io/catalog.hpp"
#include "test_scenario.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

struct Columns {
    explicit Columns(std::size_t n)
        : step(n),
          tps(n),
          tps_gpu(n),
          mfu(n),
          hfu(n),
          compute(n),
          comm(n),
          exposed(n),
          mem(n),
          accum(n),
          fits(n),
          issue(n) {}
    std::vector<double> step, tps, tps_gpu, mfu, hfu, compute, comm, exposed, mem;
    std::vector<std::int64_t> accum;
    std::vector<std::uint8_t> fits, issue;
    SweepOutputs outputs() {
        SweepOutputs o;
        o.add("step_time_s", step.data())
            .add("tokens_per_s", tps.data())
            .add("tokens_per_s_per_gpu", tps_gpu.data())
            .add("mfu", mfu.data())
            .add("hfu", hfu.data())
            .add("compute_s", compute.data())
            .add("comm_s", comm.data())
            .add("exposed_comm_s", exposed.data())
            .add("memory_gib", mem.data())
            .add("grad_accum", accum.data())
            .add("fits", fits.data());
        o.issue = issue.data();
        return o;
    }
};

// Sweeps 1..64 GPUs, one or two nodes and more, micro-batch 1 or 2, sequences of 2 to 8 Ki
// and global batch 0 or 512 Ki over `base`, checks every element against estimate_step
// and returns how many were valid.
std::size_t expect_sweep_equals_estimates(const TrainingConfig& base) {
    const ModelSpec m = find_model("qwen3-8b");
    const HardwareProfile hw = find_hardware("h100");
    const Calibration cal = default_calibration(hw);
    std::vector<std::int64_t> gpus, mb, seq, gbt;
    for (std::int64_t g : {1, 2, 4, 8, 16, 32, 64})
        for (std::int64_t b : {1, 2})
            for (std::int64_t s : {2048, 4096, 8192})
                for (std::int64_t G : {std::int64_t{0}, std::int64_t{524288}}) {
                    gpus.push_back(g);
                    mb.push_back(b);
                    seq.push_back(s);
                    gbt.push_back(G);
                }
    const std::size_t n = gpus.size();
    SweepInputs in;
    in.n = n;
    in.gpus = gpus.data();
    in.micro_batch = mb.data();
    in.seq_len = seq.data();
    in.global_batch_tokens = gbt.data();
    Columns col(n);
    sweep(test::scenario(m, hw, cal, base), in, col.outputs());
    std::size_t valid = 0;
    for (std::size_t i = 0; i < n; ++i) {
        SCOPED_TRACE(i);
        TrainingConfig c = base;
        c.gpus = gpus[i];
        c.micro_batch = mb[i];
        c.seq_len = seq[i];
        c.global_batch_tokens = gbt[i];
        const ConfigIssue issue = check_config(m, hw, c);
        EXPECT_EQ(col.issue[i], static_cast<std::uint8_t>(issue));
        if (issue != ConfigIssue::none) {
            EXPECT_TRUE(std::isnan(col.step[i]));
            continue;
        }
        ++valid;
        const StepBreakdown s = estimate_step(m, hw, cal, c);
        EXPECT_DOUBLE_EQ(col.step[i], s.step_time_s);
        EXPECT_DOUBLE_EQ(col.tps[i], s.tokens_per_s);
        EXPECT_DOUBLE_EQ(col.tps_gpu[i], s.tokens_per_s_per_gpu);
        EXPECT_DOUBLE_EQ(col.mfu[i], s.mfu);
        EXPECT_DOUBLE_EQ(col.hfu[i], s.hfu);
        EXPECT_DOUBLE_EQ(col.compute[i], s.compute_s);
        EXPECT_DOUBLE_EQ(col.comm[i], s.comm_s);
        EXPECT_DOUBLE_EQ(col.exposed[i], s.exposed_comm_s);
        EXPECT_DOUBLE_EQ(col.mem[i], s.memory.total_gib);
        EXPECT_EQ(col.accum[i], s.grad_accum);
        EXPECT_EQ(col.fits[i], s.memory.fits ? 1 : 0);
    }
    return valid;
}

TEST(Sweep, EqualsEstimateStepElementWise) {
    TrainingConfig base;
    base.seq_len = 4096;
    // 524288 = 2^19 divides every g · b · s here except 64 · 2 · 8192 = 2^20: one issue.
    EXPECT_EQ(expect_sweep_equals_estimates(base), 7u * 2 * 3 * 2 - 1);
}

// transformers' FSDP2 copies differ on one GPU (casts, no gather): the one-GPU elements of a
// sweep over a multi-GPU plan are timed with their own plan.
TEST(Sweep, EqualsEstimateStepOnOneGpuAndMany) {
    TrainingConfig base;
    base.gpus = 8;
    base.implementation = Implementation::transformers;
    EXPECT_EQ(expect_sweep_equals_estimates(base), 7u * 2 * 3 * 2 - 1);
}

// Under context parallel each rank computes 1/cp of its micro-batch's tokens.
TEST(Sweep, EqualsEstimateStepUnderTensorAndContextParallel) {
    TrainingConfig base;
    base.tensor_parallel = 2;
    base.context_parallel = 2;
    // One GPU and two break the 2 × 2 model-parallel group (24 elements); 64 GPUs hold 16
    // data-parallel ranks, whose batch of 2 × 8 Ki divides 512 Ki.
    EXPECT_EQ(expect_sweep_equals_estimates(base), 7u * 2 * 3 * 2 - 24);
}

TEST(Sweep, ReportsItsElementsToAProgress) {
    // Enough elements to report along the way (ProgressLoop::kEvery), valid and not.
    const ModelSpec m = find_model("qwen3-8b");
    const HardwareProfile hw = find_hardware("h100");
    const Calibration cal = default_calibration(hw);
    TrainingConfig base;
    base.seq_len = 4096;
    const std::size_t n = 3 * ProgressLoop::kEvery + 5;
    std::vector<std::int64_t> gpus(n), mb(n);
    for (std::size_t i = 0; i < n; ++i) {
        gpus[i] = std::int64_t{1} << (i % 8);
        mb[i] = static_cast<std::int64_t>(i % 3);  // 0: invalid
    }
    SweepInputs in;
    in.n = n;
    in.gpus = gpus.data();
    in.micro_batch = mb.data();
    const Scenario s = test::scenario(m, hw, cal, base);
    Columns with(n), without(n);
    Progress p;
    sweep(s, in, with.outputs(), &p);
    EXPECT_EQ(p.total.load(), n);
    EXPECT_EQ(p.done.load(), n);
    sweep(s, in, without.outputs());
    EXPECT_EQ(with.issue, without.issue);
    EXPECT_EQ(with.accum, without.accum);
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isnan(without.step[i])) {
            EXPECT_EQ(with.step[i], without.step[i]) << i;
        }
    }

    // Split in two calls, as the bindings' threads do: the caller's total stands.
    Progress q;
    progress_start(&q, n);
    SweepInputs head = in, tail = in;
    head.n = n / 2;
    tail.n = n - n / 2;
    tail.gpus += n / 2;
    tail.micro_batch += n / 2;
    const SweepOutputs tail_out = with.outputs().from(n / 2);
    sweep(s, head, with.outputs(), &q);
    EXPECT_EQ(q.done.load(), n / 2);
    sweep(s, tail, tail_out, &q);
    EXPECT_EQ(q.total.load(), n);
    EXPECT_EQ(q.done.load(), n);
    EXPECT_EQ(with.issue, without.issue);

    Progress cancelled;
    cancelled.cancel = true;
    EXPECT_THROW(sweep(s, in, with.outputs(), &cancelled), Cancelled);
}

TEST(Sweep, InvalidElementsGetNaNAndTheirIssue) {
    const ModelSpec m = test::tiny_model();  // max_position_embeddings 4096
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    const TrainingConfig base = test::tiny_config();  // global batch 4000 tokens
    // 0: valid (2 GPUs, A = 2); 1: gpus 0; 2: 3 GPUs do not divide 4000; 3: seq 5000 > 4096;
    // 4: valid (4 GPUs, A = 1); 5: gpus_per_node −1.
    const std::vector<std::int64_t> gpus{2, 0, 3, 2, 4, 2};
    const std::vector<std::int64_t> seq{1000, 1000, 1000, 5000, 1000, 1000};
    const std::vector<std::int64_t> gpn{0, 0, 0, 0, 0, -1};
    SweepInputs in;
    in.n = gpus.size();
    in.gpus = gpus.data();
    in.seq_len = seq.data();
    in.gpus_per_node = gpn.data();
    Columns col(in.n);
    ASSERT_NO_THROW(sweep(test::scenario(m, hw, cal, base), in, col.outputs()));
    const ConfigIssue expected[] = {ConfigIssue::none,         ConfigIssue::gpus,
                                    ConfigIssue::global_batch, ConfigIssue::seq_len_too_long,
                                    ConfigIssue::none,         ConfigIssue::gpus_per_node};
    for (std::size_t i = 0; i < in.n; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(col.issue[i], static_cast<std::uint8_t>(expected[i]));
        const bool bad = expected[i] != ConfigIssue::none;
        for (const std::vector<double>* c :
             {&col.step, &col.tps, &col.tps_gpu, &col.mfu, &col.hfu, &col.compute, &col.comm, &col.exposed, &col.mem})
            EXPECT_EQ(std::isnan((*c)[i]), bad);
        if (bad) {
            EXPECT_EQ(col.accum[i], 0);
            EXPECT_EQ(col.fits[i], 0);
        }
    }
    // Element 0 is the hand-computed baseline of test_step_model.cpp: 5826.8606 µs.
    EXPECT_REL(col.step[0], 5826.8606e-6);
    EXPECT_EQ(col.accum[0], 2);
    EXPECT_EQ(col.accum[4], 1);
    EXPECT_EQ(col.fits[0], 1);
    // Every code has a description and a name, the per-operation model's too.
    for (int k = 0; k < kConfigIssueCount; ++k) {
        EXPECT_STRNE(describe(static_cast<ConfigIssue>(k)), "?") << k;
        EXPECT_STRNE(to_string(static_cast<ConfigIssue>(k)), "?") << k;
    }
}

TEST(Sweep, NullColumnsAreSkippedAndBaseValuesUsed) {
    const ModelSpec m = test::tiny_model();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    SweepInputs in;
    in.n = 3;  // no per-element inputs: three copies of the base configuration
    std::vector<double> step(3);
    SweepOutputs out;
    out.add("step_time_s", step.data());
    sweep(test::scenario(m, hw, cal, test::tiny_config()), in, out);
    for (double v : step) EXPECT_REL(v, 5826.8606e-6);
}

TEST(Sweep, OptionsOfTheBaseApplyToEveryElementAndTheirIssuesAreFlagged) {
    // The base's per-operation options reach every element: checkpoint_every = 5 is beyond
    // the tiny model's 4 layers, precision fp8 needs fp8 tensor cores the tiny GPU lacks.
    const ModelSpec m = test::tiny_model();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    TrainingConfig base = test::tiny_config();
    base.checkpoint_every = 5;
    const std::vector<std::int64_t> gpus{2, 4};
    SweepInputs in;
    in.n = 2;
    in.gpus = gpus.data();
    Columns col(2);
    sweep(test::scenario(m, hw, cal, base), in, col.outputs());
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(col.issue[i], static_cast<std::uint8_t>(ConfigIssue::checkpoint_every));
        EXPECT_TRUE(std::isnan(col.step[i]));
    }
    base.checkpoint_every = 2;  // valid: the hand figure of test_step_model.cpp, 2 · 2298.8128 µs of compute
    sweep(test::scenario(m, hw, cal, base), in, col.outputs());
    EXPECT_EQ(col.issue[0], static_cast<std::uint8_t>(ConfigIssue::none));
    EXPECT_REL(col.compute[0], 2 * 2298.8128e-6);
    base.checkpoint_every = 1;
    base.precision = Precision::fp8;
    Calibration fp8 = cal;
    fp8.gemm.fp8_eta_max = 0.5;
    // On a GPU without fp8 every element is flagged, whatever the calibration says.
    for (const Calibration& c : {cal, fp8}) {
        sweep(test::scenario(m, hw, c, base), in, col.outputs());
        EXPECT_EQ(col.issue[1], static_cast<std::uint8_t>(ConfigIssue::fp8_unsupported));
    }
    // On one with fp8, a calibration without an fp8 GEMM coefficient is refused once.
    HardwareProfile hopper = hw;
    hopper.peak_fp8_tflops = 2000;
    EXPECT_THROW(sweep(test::scenario(m, hopper, cal, base), in, col.outputs()), std::invalid_argument);
    sweep(test::scenario(m, hopper, fp8, base), in, col.outputs());
    EXPECT_EQ(col.issue[1], static_cast<std::uint8_t>(ConfigIssue::none));
}

TEST(Sweep, OutputsAreTheFieldTablesAndTyped) {
    // Every field a sweep can write equals estimate_step's value of it, through the table.
    const ModelSpec m = test::tiny_model();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    const TrainingConfig c = test::tiny_config();
    const StepBreakdown direct = estimate_step(m, hw, cal, c);
    SweepInputs in;
    in.n = 1;
    for (const StepField& f : step_fields()) {
        SCOPED_TRACE(std::string(f.name));
        double number = -1;
        std::int64_t integer = -1;
        std::uint8_t boolean = 2;
        SweepOutputs out;
        if (f.type == FieldType::number) out.add(f.name, &number);
        else if (f.type == FieldType::integer) out.add(f.name, &integer);
        else out.add(f.name, &boolean);
        sweep(test::scenario(m, hw, cal, c), in, out);
        const double got = f.type == FieldType::number    ? number
                           : f.type == FieldType::integer ? static_cast<double>(integer)
                                                          : static_cast<double>(boolean);
        EXPECT_EQ(got, f.get(direct));
    }
    EXPECT_EQ(find_step_field("exposed_comm_s").get(direct), direct.exposed_comm_s);
    EXPECT_EQ(find_step_field("memory_gib").get(direct), direct.memory.total_gib);
    double wrong = 0;
    SweepOutputs out;
    EXPECT_THROW(out.add("grad_accum", &wrong), std::invalid_argument);  // an integer field
    EXPECT_THROW(out.add("no_such_field", &wrong), std::invalid_argument);
}

TEST(Sweep, IssueCountCoversEveryIssue) {
    // Callers size their tables of issue names by it (bindings/src/sweep.cpp).
    EXPECT_EQ(kConfigIssueCount, static_cast<int>(config_rules().size()) + 1);
}

TEST(Sweep, InvalidModelThrowsOnce) {
    ModelSpec m = test::tiny_model();
    m.hidden_size = 0;
    SweepInputs in;
    in.n = 1;
    EXPECT_THROW(sweep(test::scenario(m, test::tiny_hardware(), test::tiny_calibration(), test::tiny_config()), in,
                       SweepOutputs{}),
                 std::invalid_argument);
}

}  // namespace
}  // namespace libscale
