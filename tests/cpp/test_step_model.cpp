// The step model against hand computation on the tiny model (test_support.hpp), its
// invariants, and configuration validation.
//
// Hand figures used throughout (tiny model, t = 1000 tokens per micro-batch, s_eff = 500,
// full activation checkpointing, compute rate η · peak = 0.5 · 1e15 = 5e14 FLOP/s):
//   cf  = one layer's forward  = 1000 · (2 · 13e6 + 4 · 1000 · 500) / 5e14 = 56 µs
//   ch  = lm_head forward      = 1000 · 2 · 50e6 / 5e14                   = 200 µs
//   cb  = one layer's backward = 2 · cf + recompute (= cf)                 = 168 µs
//   compute per micro-batch    = 4 · (56 + 168) + 3 · 200                  = 1496 µs
// Bytes: layer 13,002,000 params → 26,004,000 B in bf16; root 100,001,000 → 200,002,000 B;
// all P = 152,009,000 → 304,018,000 B.
// Optimizer: P / shards · 30 B / (10e12 · 0.5 = 5e12 B/s): 2 shards 456.027 µs, 1: 912.054 µs.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "libscale/catalog.hpp"
#include "libscale/collective.hpp"
#include "libscale/step_model.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

using test::kUs;

struct StepModel : ::testing::Test {
    ModelSpec m = test::tiny_model();
    HardwareProfile hw = test::tiny_hardware();
    Calibration cal = test::tiny_calibration();
    TrainingConfig c = test::tiny_config();

    StepBreakdown run() const { return estimate_step(m, hw, cal, c); }
};

void expect_consistent(const StepBreakdown& s) {
    // tokens/s is the global batch over the step time; the step is the sum of its phases.
    EXPECT_REL(s.tokens_per_s, s.tokens_per_step / s.step_time_s);
    EXPECT_REL(s.tokens_per_s_per_gpu, s.tokens_per_s / static_cast<double>(s.gpus));
    EXPECT_REL(s.step_time_s, s.compute_s + s.exposed_comm_s + s.optimizer_s + s.data_s + s.checkpoint_s);
    EXPECT_REL(s.tokens_per_step, static_cast<double>(s.gpus * s.grad_accum) * s.tokens_per_micro_batch);
    EXPECT_LE(s.exposed_comm_s, s.comm_s * (1 + 1e-12));
    EXPECT_GE(s.exposed_comm_s, 0.0);
    EXPECT_LE(s.mfu, s.hfu);
}

TEST_F(StepModel, FsdpBaselineByHand) {
    // 2 GPUs on NVLink (1e12 B/s), A = 4000 / (2 · 1000) = 2.
    //   ag = ½ · 26,004,000 / 1e12 = 13.002 µs = rs; ag_root = ½ · 200,002,000 / 1e12 = 100.001 µs = rs_root
    //   forward  = ag_root + ag + 3 · max(cf, ag) + cf + ch = 100.001 + 13.002 + 168 + 56 + 200 = 537.003
    //   backward = max(2ch, ag) + max(cb, ag) + 2 · max(cb, ag + rs) + max(cb, rs) + rs + rs_root
    //            = 400 + 168 + 336 + 168 + 13.002 + 100.001 = 1185.003
    //   micro-batch 1722.006 µs; two of them 3444.012 µs; compute 2 · 1496 = 2992 µs
    const StepBreakdown s = run();
    EXPECT_EQ(s.grad_accum, 2);
    EXPECT_EQ(s.gpus_per_node, 8);
    EXPECT_DOUBLE_EQ(s.tokens_per_micro_batch, 1000.0);
    EXPECT_DOUBLE_EQ(s.tokens_per_step, 4000.0);
    EXPECT_DOUBLE_EQ(s.eta, 0.5);
    EXPECT_REL(s.compute_s, 2992 * kUs);
    // exposed = 2 · (ag_root + ag + rs + rs_root) = 2 · 226.006
    EXPECT_REL(s.exposed_comm_s, 452.012 * kUs);
    // all collectives per micro-batch: ag_root + 4 ag (fwd) + 4 ag (bwd) + 4 rs + rs_root
    //   = 100.001 + 52.008 + 52.008 + 52.008 + 100.001 = 356.026; × 2
    EXPECT_REL(s.comm_s, 712.052 * kUs);
    EXPECT_REL(s.optimizer_s, 456.027 * kUs);
    EXPECT_EQ(s.data_s, 0.0);
    EXPECT_EQ(s.checkpoint_s, 0.0);
    EXPECT_REL(s.step_time_s, 3900.039 * kUs);  // 3444.012 + 456.027
    const double tps = 4000.0 / (3900.039 * kUs);
    EXPECT_REL(s.tokens_per_s, tps);
    EXPECT_REL(s.tokens_per_s_per_gpu, tps / 2);
    // MFU: per-GPU tokens/s · 636e6 model FLOPs / 1e15; HFU with 748e6 (full recompute).
    EXPECT_REL(s.mfu, tps / 2 * 636e6 / 1e15);
    EXPECT_REL(s.hfu, tps / 2 * 748e6 / 1e15);
    EXPECT_TRUE(s.comm_hidden);
    // Energy: 2 GPUs · ((2992 + 456.027) µs · 1000 W + 452.012 µs · 500 W) = 7.348066 J.
    EXPECT_REL(s.energy_per_step_j, 7.348066);
    expect_consistent(s);
}

TEST_F(StepModel, ComputeBoundExposesOnlyFirstGathersAndLastReduceScatters) {
    // Every unit's gather (13.002 µs) fits under cf = 56 µs and gather + reduce-scatter
    // (26.004 µs) under cb = 168 µs: per micro-batch only the root and first layer's
    // all-gathers and the last layer's and root's reduce-scatters are exposed.
    const StepBreakdown s = run();
    const double ag = ring_time_s(Collective::all_gather, 26'004'000.0, 2, cal.intra_node);
    const double ag_root = ring_time_s(Collective::all_gather, 200'002'000.0, 2, cal.intra_node);
    const double rs = ring_time_s(Collective::reduce_scatter, 26'004'000.0, 2, cal.intra_node);
    const double rs_root = ring_time_s(Collective::reduce_scatter, 200'002'000.0, 2, cal.intra_node);
    EXPECT_TRUE(s.comm_hidden);
    EXPECT_REL(s.exposed_comm_s, 2.0 * (ag_root + ag + rs + rs_root));
    EXPECT_LT(s.exposed_comm_s, s.comm_s);
}

TEST_F(StepModel, HiddenFlagCoversTheOutputProjectionBackwardWindow) {
    // With a small vocabulary the last layer's backward gather (prefetched under the
    // lm_head's backward, 2·ch) can outlast that window. V = 1000:
    //   ch = 1000 · 2 · 1000 · 1000 / 5e14 = 4 µs → 2ch = 8 µs < ag = 13.002 µs
    //   cf = 56 µs, cb = 168 µs as before (layers unchanged)
    //   root = 2 · 1e6 + 1000 = 2,001,000 → ag_root = rs_root = ½ · 4,002,000 / 1e12 = 2.001 µs
    //   exposed = ag_root + ag + (ag − 2ch) + rs + rs_root = 2.001 + 13.002 + 5.002 + 13.002
    //   + 2.001 = 35.008 µs: more than the first gathers and last reduce-scatters, so
    //   communication is not fully hidden.
    m.vocab_size = 1000;
    c.global_batch_tokens = 0;
    const StepBreakdown s = run();
    EXPECT_REL(s.exposed_comm_s, 35.008 * kUs);
    EXPECT_FALSE(s.comm_hidden);
    // Without the backward re-gather nothing extra is exposed: 2.001 + 13.002 + 13.002 + 2.001.
    c.reshard_after_forward = false;
    const StepBreakdown r = run();
    EXPECT_REL(r.exposed_comm_s, 30.006 * kUs);
    EXPECT_TRUE(r.comm_hidden);
}

TEST_F(StepModel, FsdpWithoutReshardGathersOnce) {
    // reshard_after_forward = False: no backward gathers. Compute-bound, so the step is
    // unchanged; collectives per micro-batch 356.026 − 52.008 = 304.018 µs.
    c.reshard_after_forward = false;
    const StepBreakdown s = run();
    EXPECT_REL(s.comm_s, 608.036 * kUs);
    EXPECT_REL(s.exposed_comm_s, 452.012 * kUs);
    EXPECT_REL(s.step_time_s, 3900.039 * kUs);
    expect_consistent(s);
}

TEST_F(StepModel, FsdpGradSyncOnLastMicroBatchOnly) {
    // First micro-batch without reduce-scatters: 1722.006 − 113.003 = 1609.003 µs,
    // second 1722.006: 3331.009 µs; exposed 3331.009 − 2992 = 339.009 µs.
    // Collectives: 204.017 (gathers only) + 356.026 = 560.043 µs.
    c.grad_sync = GradSync::last_micro_batch;
    const StepBreakdown s = run();
    EXPECT_REL(s.exposed_comm_s, 339.009 * kUs);
    EXPECT_REL(s.comm_s, 560.043 * kUs);
    EXPECT_REL(s.step_time_s, (3331.009 + 456.027) * kUs);
    expect_consistent(s);
}

TEST_F(StepModel, Fp32ReduceDoublesReduceScatterBytes) {
    // rs = 26.004 µs, rs_root = 200.002 µs: exposed 2 · (100.001 + 13.002 + 26.004 + 200.002).
    c.reduce_bytes = 4;
    const StepBreakdown s = run();
    EXPECT_REL(s.exposed_comm_s, 678.018 * kUs);
    // 100.001 + 8 · 13.002 + 4 · 26.004 + 200.002 = 508.035 per micro-batch
    EXPECT_REL(s.comm_s, 1016.07 * kUs);
}

TEST_F(StepModel, NoAccumulationWhenGlobalBatchUnset) {
    c.global_batch_tokens = 0;
    const StepBreakdown s = run();
    EXPECT_EQ(s.grad_accum, 1);
    EXPECT_DOUBLE_EQ(s.tokens_per_step, 2000.0);
    EXPECT_REL(s.compute_s, 1496 * kUs);
    EXPECT_REL(s.step_time_s, (1722.006 + 456.027) * kUs);
}

TEST_F(StepModel, CrossingTheNodeSwitchesToTheNic) {
    // 8 GPUs, one node, A = 1: ag = 7/8 · 26,004,000 / 1e12 = 22.7535 µs (< cf), ag_root
    // = 7/8 · 200,002,000 / 1e12 = 175.00175 µs: exposed 2 · (175.00175 + 22.7535).
    c.gpus = 8;
    c.global_batch_tokens = 8000;
    const StepBreakdown in_node = run();
    EXPECT_TRUE(in_node.comm_hidden);
    EXPECT_REL(in_node.exposed_comm_s, 395.5105 * kUs);

    // 16 GPUs over two nodes of 8: the ring runs at the NIC's 1e11 B/s.
    //   ag = rs = 15/16 · 26,004,000 / 1e11 = 243.7875 µs (> cf = 56 µs: not hidden)
    //   ag_root = rs_root = 15/16 · 200,002,000 / 1e11 = 1875.01875 µs
    //   forward  = 1875.01875 + 243.7875 + 3 · 243.7875 + 56 + 200           = 3106.16875
    //   backward = max(400, 243.7875) + max(168, 243.7875) + 2 · max(168, 487.575)
    //              + max(168, 243.7875) + 243.7875 + 1875.01875              = 3981.53125
    //   micro-batch 7087.7 µs; exposed 7087.7 − 1496 = 5591.7 µs
    c.gpus = 16;
    c.global_batch_tokens = 16000;
    const StepBreakdown across = run();
    EXPECT_FALSE(across.comm_hidden);
    EXPECT_REL(across.exposed_comm_s, 5591.7 * kUs);
    EXPECT_REL(across.compute_s, 1496 * kUs);
    EXPECT_GT(across.exposed_comm_s, 10 * in_node.exposed_comm_s);
    // Optimizer on 1/16: 9,500,562.5 · 30 / 5e12 = 57.0033750 µs.
    EXPECT_REL(across.step_time_s, (7087.7 + 57.003375) * kUs);
    expect_consistent(across);

    // The same 16 GPUs in one 16-GPU NVLink domain stay on NVLink:
    //   ag = 15/16 · 26,004,000 / 1e12 = 24.37875, ag_root = 187.501875 µs
    c.gpus_per_node = 16;
    const StepBreakdown one_domain = run();
    EXPECT_TRUE(one_domain.comm_hidden);
    EXPECT_REL(one_domain.exposed_comm_s, 2 * (187.501875 + 24.37875) * kUs);
}

TEST_F(StepModel, HsdpShardsInNodeAndAllReducesAcross) {
    // 16 GPUs = 2 nodes × 8: shard group 8 on NVLink, 2 replicas, each pair of peers on
    // its own NIC (1.25e10 B/s):
    //   ag = 22.7535 µs, ag_root = 175.00175 µs (as for 8 GPUs)
    //   rs = 22.7535 + all-reduce of the 1/8 shard (3,250,500 B) over 2 ranks:
    //        2 · ½ · 3,250,500 / 1.25e10 = 260.04 → 282.7935 µs
    //   rs_root = 175.00175 + 25,000,250 / 1.25e10 = 175.00175 + 2000.02 = 2175.02175 µs
    //   forward  = 175.00175 + 22.7535 + 3 · 56 + 56 + 200                 = 621.75525
    //   backward = 400 + 168 + 2 · max(168, 22.7535 + 282.7935) + max(168, 282.7935)
    //              + 282.7935 + 2175.02175                                  = 3919.70275
    //   exposed = 4541.458 − 1496 = 3045.458 µs: the replica all-reduce does not hide
    //   collectives = 175.00175 + 8 · 22.7535 + 4 · 282.7935 + 2175.02175  = 3663.2255 µs
    c.strategy = Strategy::hsdp;
    c.gpus = 16;
    c.global_batch_tokens = 16000;
    const StepBreakdown s = run();
    EXPECT_EQ(s.grad_accum, 1);
    EXPECT_FALSE(s.comm_hidden);
    EXPECT_REL(s.exposed_comm_s, 3045.458 * kUs);
    EXPECT_REL(s.comm_s, 3663.2255 * kUs);
    // Optimizer state sharded 8 ways: 19,001,125 · 30 / 5e12 = 114.00675 µs.
    EXPECT_REL(s.optimizer_s, 114.00675 * kUs);
    EXPECT_REL(s.step_time_s, (1496 + 3045.458 + 114.00675) * kUs);
    expect_consistent(s);
}

TEST_F(StepModel, DdpAllReducesEveryMicroBatch) {
    // red = all-reduce of a layer: 2 · ½ · 26,004,000 / 1e12 = 26.004 µs; root 200.002 µs.
    //   forward 4 · 56 + 200 = 424; backward 400 + 168 + 336 + 168 + 26.004 + 200.002
    //   = 1298.006; micro-batch 1722.006 µs
    c.strategy = Strategy::ddp;
    const StepBreakdown s = run();
    EXPECT_REL(s.compute_s, 2992 * kUs);
    EXPECT_REL(s.exposed_comm_s, 452.012 * kUs);    // 2 · (26.004 + 200.002)
    EXPECT_REL(s.comm_s, 608.036 * kUs);            // 2 · (4 · 26.004 + 200.002)
    EXPECT_REL(s.optimizer_s, 912.054 * kUs);       // unsharded
    EXPECT_REL(s.step_time_s, (3444.012 + 912.054) * kUs);
    expect_consistent(s);

    // no_sync on the first micro-batch: 1496 + 1722.006.
    c.grad_sync = GradSync::last_micro_batch;
    const StepBreakdown ns = run();
    EXPECT_REL(ns.exposed_comm_s, 226.006 * kUs);
    EXPECT_REL(ns.comm_s, 304.018 * kUs);
}

TEST_F(StepModel, Zero1ReducesOnceAndGathersWeights) {
    // Reduce-scatter (13.002 µs per layer, 100.001 root) only on the last micro-batch:
    //   1496 + (1496 + 13.002 + 100.001) = 3105.003 µs; then the updated bf16 weights are
    //   all-gathered: ½ · 304,018,000 / 1e12 = 152.009 µs, exposed.
    c.strategy = Strategy::zero1;
    const StepBreakdown s = run();
    EXPECT_REL(s.exposed_comm_s, 265.012 * kUs);  // 3105.003 − 2992 + 152.009
    EXPECT_REL(s.comm_s, 304.018 * kUs);          // 4 · 13.002 + 100.001 + 152.009
    EXPECT_REL(s.optimizer_s, 456.027 * kUs);
    EXPECT_REL(s.step_time_s, (3105.003 + 152.009 + 456.027) * kUs);
    expect_consistent(s);
}

TEST_F(StepModel, Zero2ReducesEveryMicroBatch) {
    // 2 · 1609.003 = 3218.006 µs, plus the 152.009 µs weight all-gather; ZeRO-2 reduces
    // every micro-batch even when no_sync is asked for.
    c.strategy = Strategy::zero2;
    for (GradSync g : {GradSync::every_micro_batch, GradSync::last_micro_batch}) {
        c.grad_sync = g;
        const StepBreakdown s = run();
        EXPECT_REL(s.exposed_comm_s, 378.015 * kUs);  // 226.006 + 152.009
        EXPECT_REL(s.comm_s, 456.027 * kUs);          // 2 · 152.009 + 152.009
        EXPECT_REL(s.step_time_s, (3218.006 + 152.009 + 456.027) * kUs);
        expect_consistent(s);
    }
}

TEST_F(StepModel, OptimizerIsShardParamsTimesThirtyBytesOverHbm) {
    for (std::int64_t n : {1, 2, 4, 8}) {
        c.gpus = n;
        c.global_batch_tokens = 0;
        // 152,009,000 / n · 30 B / (10e12 B/s · 0.5)
        EXPECT_REL(run().optimizer_s, 152'009'000.0 / static_cast<double>(n) * 30.0 / 5e12);
    }
    cal.hbm_efficiency = 0.25;  // half the bandwidth, twice the time
    c.gpus = 2;
    EXPECT_REL(run().optimizer_s, 2 * 456.027 * kUs);
}

TEST_F(StepModel, SingleGpuHasNoCommunication) {
    c.gpus = 1;
    c.global_batch_tokens = 0;
    const StepBreakdown s = run();
    EXPECT_EQ(s.comm_s, 0.0);
    EXPECT_NEAR(s.exposed_comm_s, 0.0, 1e-15);
    EXPECT_REL(s.step_time_s, (1496 + 912.054) * kUs);
}

TEST_F(StepModel, EtaSaturatesWithTokensPerMicroBatch) {
    // η(t) = 0.78 · t / (t + 512): η(512) = 0.39; η(4096) = 0.78 · 4096/4608 = 0.693333...
    cal.eta_max = 0.78;
    cal.half_saturation_tokens = 512;
    c.seq_len = 512;
    c.global_batch_tokens = 0;
    EXPECT_REL(run().eta, 0.39);
    c.seq_len = 4096;
    EXPECT_REL(run().eta, 0.78 * 4096.0 / 4608.0);
}

TEST_F(StepModel, CheckpointWriteIsAmortized) {
    // 152,009,000 · 14 B = 2,128,126,000 B at 1 GB/s on the one node = 2.128126 s; every
    // 10 steps → 0.2128126 s per step.
    c.checkpoint.every_steps = 10;
    c.checkpoint.write_gbps_per_node = 1.0;
    const StepBreakdown s = run();
    EXPECT_REL(s.checkpoint_s, 0.2128126);
    EXPECT_REL(s.step_time_s, 3900.039 * kUs + 0.2128126);
    // Idle power during the checkpoint: 7.348066 + 2 · 0.2128126 · 100 W.
    EXPECT_REL(s.energy_per_step_j, 7.348066 + 42.56252);
    expect_consistent(s);
    // Two nodes write in parallel: half the time.
    c.gpus = 16;
    c.global_batch_tokens = 16000;
    EXPECT_REL(run().checkpoint_s, 0.2128126 / 2);
}

TEST_F(StepModel, DataTermExposedOnlyBeyondTheStep) {
    // Not cached, node reads 4000 tokens · 4 B = 16,000 B per step.
    c.data.corpus_in_page_cache = false;
    c.data.storage_read_gbps_per_node = 1.0;  // 16 µs: hidden by prefetch
    EXPECT_EQ(run().data_s, 0.0);
    EXPECT_REL(run().step_time_s, 3900.039 * kUs);

    c.data.storage_read_gbps_per_node = 0.001;  // 1 MB/s: 16 ms, of which 3.900039 ms hide
    const StepBreakdown s = run();
    EXPECT_REL(s.data_s, (16000 - 3900.039) * kUs);
    EXPECT_REL(s.step_time_s, 16000 * kUs);
    // Data wait at idle power: + 2 · 12,099.961 µs · 100 W.
    EXPECT_REL(s.energy_per_step_j, 7.348066 + 2.4199922);
    expect_consistent(s);
}

TEST_F(StepModel, TokenizationLimitedByCores) {
    // 2 workers/rank · 2 ranks = 4 workers, but 2 cores: 4000 tokens / (2 · 1000 tok/s) = 2 s.
    c.data.pretokenized = false;
    c.data.tokenize_tokens_per_s_per_core = 1000;
    c.data.loader_workers_per_rank = 2;
    c.data.cpu_cores_per_node = 2;
    EXPECT_REL(run().data_s, 2.0 - 3900.039 * kUs);
    c.data.cpu_cores_per_node = 0;  // unlimited: 4 workers, 1 s
    EXPECT_REL(run().data_s, 1.0 - 3900.039 * kUs);
    EXPECT_REL(run().step_time_s, 1.0);
}

TEST_F(StepModel, EnergyIsGpusTimesPhaseTimesPhasePower) {
    cal.power_compute_w = 700;
    cal.power_comm_w = 300;
    cal.power_idle_w = 50;
    c.data.corpus_in_page_cache = false;
    c.data.storage_read_gbps_per_node = 0.001;
    c.checkpoint.every_steps = 10;
    c.checkpoint.write_gbps_per_node = 1.0;
    const StepBreakdown s = run();
    // 2 · ((2992 + 456.027) µs · 700 + 452.012 µs · 300 + (12,099.961 µs + 0.2128126 s) · 50)
    const double expected = 2 * ((2992 + 456.027) * kUs * 700 + 452.012 * kUs * 300 +
                                 (12099.961 * kUs + 0.2128126) * 50);
    EXPECT_REL(s.energy_per_step_j, expected);
}

TEST_F(StepModel, PackedSpanLowersAttentionFlops) {
    // span 250 instead of 500: layer forward 1000 · (26e6 + 4 · 1000 · 250) / 5e14 = 54 µs,
    // backward 162: per micro-batch 4 · 216 + 600 = 1464 µs.
    c.attention_span_tokens = 250;
    EXPECT_REL(run().compute_s, 2 * 1464 * kUs);
}

TEST_F(StepModel, Qwen3_32BOnB300MatchesTheFieldReportScale) {
    // The field report: 16 × B300 (two nodes), ~53k tokens/s. The uncalibrated default
    // should land within a factor of two of it (the calibration is not fitted).
    const ModelSpec q = find_model("qwen3-32b");
    const HardwareProfile b300 = find_hardware("b300");
    TrainingConfig x;
    x.gpus = 16;
    x.seq_len = 8192;
    x.micro_batch = 1;
    x.global_batch_tokens = 1'048'576;
    const StepBreakdown s = estimate_step(q, b300, default_calibration(b300), x);
    EXPECT_EQ(s.grad_accum, 8);  // 1,048,576 / (16 · 8192)
    EXPECT_GT(s.tokens_per_s, 53'000.0 / 2);
    EXPECT_LT(s.tokens_per_s, 53'000.0 * 2);
    EXPECT_TRUE(s.memory.fits);
    expect_consistent(s);
}

// ---- configuration validation --------------------------------------------------------

struct IssueCase {
    const char* name;
    std::function<void(TrainingConfig&)> mutate;
    ConfigIssue issue;
    std::vector<std::string> in_message;
};

TEST(ConfigValidation, EveryIssueNamesFieldAndValue) {
    const ModelSpec m = test::tiny_model();  // max_position_embeddings 4096
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    const std::vector<IssueCase> cases = {
        {"gpus", [](TrainingConfig& c) { c.gpus = 0; }, ConfigIssue::gpus, {"gpus = 0"}},
        {"gpus negative", [](TrainingConfig& c) { c.gpus = -4; }, ConfigIssue::gpus, {"gpus = -4"}},
        {"gpus_per_node", [](TrainingConfig& c) { c.gpus_per_node = -1; }, ConfigIssue::gpus_per_node,
         {"gpus_per_node = -1"}},
        {"hsdp partial node",
         [](TrainingConfig& c) {
             c.strategy = Strategy::hsdp;
             c.gpus = 12;
             c.global_batch_tokens = 0;
         },
         ConfigIssue::whole_nodes, {"gpus = 12", "nodes of 8", "8 or 16"}},
        {"seq_len", [](TrainingConfig& c) { c.seq_len = 0; }, ConfigIssue::seq_len, {"seq_len = 0"}},
        {"seq_len too long",
         [](TrainingConfig& c) {
             c.seq_len = 5000;
             c.global_batch_tokens = 0;
         },
         ConfigIssue::seq_len_too_long, {"seq_len = 5000", "max_position_embeddings = 4096"}},
        {"micro_batch", [](TrainingConfig& c) { c.micro_batch = 0; }, ConfigIssue::micro_batch,
         {"micro_batch = 0"}},
        // 5000 over a unit of 2 · 1 · 1000 = 2000: nearest valid 4000 or 6000.
        {"global batch", [](TrainingConfig& c) { c.global_batch_tokens = 5000; }, ConfigIssue::global_batch,
         {"global_batch_tokens = 5000", "= 2000", "4000 or 6000"}},
        {"global batch negative", [](TrainingConfig& c) { c.global_batch_tokens = -2000; },
         ConfigIssue::global_batch, {"global_batch_tokens = -2000"}},
        {"reduce_bytes", [](TrainingConfig& c) { c.reduce_bytes = 3; }, ConfigIssue::reduce_bytes,
         {"reduce_bytes = 3", "2 (bf16) or 4 (fp32)"}},
        {"attention span", [](TrainingConfig& c) { c.attention_span_tokens = 2000; }, ConfigIssue::attention_span,
         {"attention_span_tokens = 2000", "seq_len = 1000"}},
        {"storage missing",
         [](TrainingConfig& c) { c.data.corpus_in_page_cache = false; },
         ConfigIssue::data_pipeline, {"storage_read_gbps_per_node", "got 0"}},
        {"tokenizer missing", [](TrainingConfig& c) { c.data.pretokenized = false; }, ConfigIssue::data_pipeline,
         {"tokenize_tokens_per_s_per_core (got 0)"}},
        {"bytes per token", [](TrainingConfig& c) { c.data.bytes_per_token = 0; }, ConfigIssue::data_pipeline,
         {"bytes_per_token = 0"}},
        {"checkpoint without bandwidth", [](TrainingConfig& c) { c.checkpoint.every_steps = 10; },
         ConfigIssue::checkpoint, {"every_steps = 10", "write_gbps_per_node = 0"}},
        {"checkpoint negative", [](TrainingConfig& c) { c.checkpoint.every_steps = -1; }, ConfigIssue::checkpoint,
         {"every_steps = -1"}},
    };
    for (const IssueCase& k : cases) {
        SCOPED_TRACE(k.name);
        TrainingConfig c = test::tiny_config();
        k.mutate(c);
        EXPECT_EQ(check_config(m, hw, c), k.issue);
        try {
            validate_config(m, hw, c);
            ADD_FAILURE() << "no exception";
        } catch (const std::invalid_argument& e) {
            for (const std::string& part : k.in_message)
                EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
                    << "'" << part << "' not in: " << e.what();
        }
        EXPECT_THROW((void)estimate_step(m, hw, cal, c), std::invalid_argument);
    }
    EXPECT_EQ(check_config(m, hw, test::tiny_config()), ConfigIssue::none);
    EXPECT_NO_THROW(validate_config(m, hw, test::tiny_config()));
}

TEST(ConfigValidation, HsdpWithinOneNodeOrWholeNodesIsValid) {
    const ModelSpec m = test::tiny_model();
    const HardwareProfile hw = test::tiny_hardware();
    TrainingConfig c = test::tiny_config();
    c.strategy = Strategy::hsdp;
    c.global_batch_tokens = 0;
    for (std::int64_t g : {1, 4, 8, 16, 24}) {
        c.gpus = g;
        EXPECT_EQ(check_config(m, hw, c), ConfigIssue::none) << g;
    }
}

TEST(ConfigValidation, EstimateValidatesModelHardwareCalibration) {
    const ModelSpec m = test::tiny_model();
    HardwareProfile hw = test::tiny_hardware();
    Calibration cal = test::tiny_calibration();
    const TrainingConfig c = test::tiny_config();
    cal.eta_max = 1.5;
    try {
        (void)estimate_step(m, hw, cal, c);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("eta_max = 1.5"), std::string::npos) << e.what();
    }
    cal = test::tiny_calibration();
    hw.hbm_tbps = -1;
    EXPECT_THROW((void)estimate_step(m, hw, cal, c), std::invalid_argument);
}

TEST(ConfigValidation, ParseStrategyAndGradSync) {
    EXPECT_EQ(parse_strategy("zero3"), Strategy::fsdp);
    EXPECT_EQ(parse_strategy("full_shard"), Strategy::fsdp);
    EXPECT_EQ(parse_strategy("hybrid_shard"), Strategy::hsdp);
    EXPECT_EQ(parse_strategy("zero2"), Strategy::zero2);
    EXPECT_THROW((void)parse_strategy("zero4"), std::invalid_argument);
    EXPECT_EQ(parse_grad_sync("last_micro_batch"), GradSync::last_micro_batch);
    EXPECT_THROW((void)parse_grad_sync("sometimes"), std::invalid_argument);
}

}  // namespace
}  // namespace libscale
