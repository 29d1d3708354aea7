// The step model against hand computation on the tiny model (test_support.hpp), its
// invariants, and configuration validation.
//
// Hand figures used throughout: the per-operation laws of compute_model.hpp with the tiny
// calibration's flat rates: GEMMs 2·m·n·k / 5e14 (no waves, k_half 0; every GEMM here is
// above its memory roofline), attention 4·t·(h·d_h)·span / 5e14 forward and 2.5× that
// backward, memory-bound kernels bytes / 5e12 B/s, no host overheads. t = 1000 tokens
// per micro-batch, span 500 (causal), full activation checkpointing, FSDP with
// reshard_after_forward, eager PyTorch (plan_operations' byte counts).
//
// One decoder layer (d = 1000, q = kv = 1000, f = 3000 SwiGLU, two RMSNorms, rotary):
//   GEMMs forward  2 · 1000 · 13e6 / 5e14                          = 52 µs
//   GEMMs backward dgrad + wgrad = 2 × forward                      = 104 µs
//   attention      4 · 1000 · 1000 · 500 / 5e14 = 4 µs; backward 2.5 × 4 = 10 µs
//   memory-bound forward per token: 2 RMSNorms 2 · 36 · 1000 = 72,000; rotary on q and k
//     20 · 2000 = 40,000; SiLU · up 10 · 3000 = 30,000; two residual adds 2 · 6 · 1000 =
//     12,000 → 154,000 B · 1000 tokens / 5e12                       = 30.8 µs
//   memory-bound backward per token: 2 · 72 · 1000 + 40,000 + 16 · 3000 + 12,000 = 244,000
//     B → 48.8 µs
//   FSDP2 copy-out of the gathered layer, per gather: 2 · (2 B · 13,002,000) = 52,008,000
//     B → 10.4016 µs (forward, and again in backward with reshard_after_forward)
//   cf = 52 + 4 + 30.8 + 10.4016                                    = 97.2016 µs
//   recompute (full) = the forward without the copy-out: 52 + 4 + 30.8 = 86.8 µs
//   cb = 104 + 10 + 48.8 + 10.4016 + 86.8                           = 260.0016 µs
// Output head (V = 50,000): GEMM 2 · 1000 · 50e6 / 5e14 = 200 µs forward, 400 backward;
//   final RMSNorm 36 · 1000 and eager loss 18 · 50,000 = 936,000 B per token → 187.2 µs;
//   backward 72 · 1000 + 22 · 50,000 = 1,172,000 B per token → 234.4 µs
//   hf = 387.2 µs, hb = 634.4 µs
// Embedding: lookup 2 · 2 · 1000 B per token → ef = 0.8 µs; backward 2 · 3 · 1000 B per
//   token (1.2 µs) + zero-filling the 50,000 × 1000 bf16 table gradient (1e8 B, 20 µs)
//   → eb = 21.2 µs
// Compute per micro-batch = 4 · (97.2016 + 260.0016) + 387.2 + 634.4 + 0.8 + 21.2
//   = 2472.4128 µs, of which GEMMs 4 · (52 + 104 + 52) + 600 = 1432, attention
//   4 · (4 + 10 + 4) = 72, memory-bound 968.4128.
// Bytes: layer 13,002,000 params → 26,004,000 B in bf16; root 100,001,000 → 200,002,000 B;
// all P = 152,009,000 → 304,018,000 B.
// Optimizer: P / shards · 30 B / (10e12 · 0.5 = 5e12 B/s): 2 shards 456.027 µs, 1: 912.054 µs.
//
// DDP and ZeRO-1/2 keep their parameters unsharded, so they have no copy-out:
//   cf = 86.8 µs, cb = 249.6 µs, compute per micro-batch 4 · 336.4 + 1043.6 = 2389.2 µs.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "libscale/estimate/collective.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
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
    //   forward  = ag_root + ef + ag + 3 · max(cf, ag) + cf + hf
    //            = 100.001 + 0.8 + 13.002 + 3 · 97.2016 + 97.2016 + 387.2 = 889.8094
    //   backward = max(hb, ag) + max(cb, ag) + 2 · max(cb, ag + rs) + max(cb, rs)
    //              + max(eb, rs) + rs_root
    //            = 634.4 + 4 · 260.0016 + 21.2 + 100.001 = 1795.6074
    //   (the last layer's reduce-scatter, 13.002 µs, runs under the embedding's backward)
    //   micro-batch 2685.4168 µs; two of them 5370.8336 µs; compute 2 · 2472.4128 = 4944.8256 µs
    const StepBreakdown s = run();
    EXPECT_EQ(s.grad_accum, 2);
    EXPECT_EQ(s.gpus_per_node, 8);
    EXPECT_DOUBLE_EQ(s.tokens_per_micro_batch, 1000.0);
    EXPECT_DOUBLE_EQ(s.tokens_per_step, 4000.0);
    EXPECT_REL(s.compute_s, 4944.8256 * kUs);
    // The compute by kind: 2 · 1432 µs of GEMMs, 2 · 72 of attention, 2 · 968.4128 of
    // memory-bound kernels; no host overhead, so no waiting on the host.
    EXPECT_REL(s.gemm_s, 2864 * kUs);
    EXPECT_REL(s.attention_s, 144 * kUs);
    EXPECT_REL(s.memory_bound_s, 1936.8256 * kUs);
    EXPECT_EQ(s.host_wait_s, 0.0);
    EXPECT_REL(s.gemm_s + s.attention_s + s.memory_bound_s + s.host_wait_s, s.compute_s);
    // exposed = 2 · (ag_root + ag + rs_root) = 2 · 213.004
    EXPECT_REL(s.exposed_comm_s, 426.008 * kUs);
    // all collectives per micro-batch: ag_root + 4 ag (fwd) + 4 ag (bwd) + 4 rs + rs_root
    //   = 100.001 + 52.008 + 52.008 + 52.008 + 100.001 = 356.026; × 2
    EXPECT_REL(s.comm_s, 712.052 * kUs);
    EXPECT_REL(s.optimizer_s, 456.027 * kUs);
    EXPECT_EQ(s.data_s, 0.0);
    EXPECT_EQ(s.checkpoint_s, 0.0);
    EXPECT_REL(s.step_time_s, 5826.8606 * kUs);  // 5370.8336 + 456.027
    const double tps = 4000.0 / (5826.8606 * kUs);
    EXPECT_REL(s.tokens_per_s, tps);
    EXPECT_REL(s.tokens_per_s_per_gpu, tps / 2);
    // MFU: per-GPU tokens/s · 636e6 model FLOPs / 1e15; HFU with 748e6 (full recompute).
    EXPECT_REL(s.mfu, tps / 2 * 636e6 / 1e15);
    EXPECT_REL(s.hfu, tps / 2 * 748e6 / 1e15);
    EXPECT_TRUE(s.comm_hidden);
    // Energy: 2 GPUs · ((4944.8256 + 456.027) µs · 1000 W + 426.008 µs · 500 W)
    //   = 2 · (5.4008526 + 0.213004) = 11.2277132 J.
    EXPECT_REL(s.energy_per_step_j, 11.2277132);
    expect_consistent(s);
}

// The harness's micro-run is the step of the model cut to its layers, one micro-batch,
// at the kernel laws' rates with no host overheads.
TEST_F(StepModel, MicroRunIsTheStepOfTheCutModelAtKernelRates) {
    Calibration kernels = cal;
    kernels.framework_efficiency = 1;
    kernels.kernel_overhead_s = kernels.layer_overhead_s = kernels.step_overhead_s = 0;
    TrainingConfig one = c;
    one.global_batch_tokens = c.gpus * c.micro_batch * c.seq_len;
    const StepBreakdown all = estimate_microrun(m, hw, cal, c, m.num_layers);
    EXPECT_REL(all.step_time_s, estimate_step(m, hw, kernels, one).step_time_s);
    EXPECT_EQ(all.grad_accum, 1);
    // Two layers fewer: two layers' forward and backward less compute.
    const StepBreakdown two = estimate_microrun(m, hw, cal, c, m.num_layers - 2);
    const ComputeTimes ct = compute_times(m, count_parameters(m), hw, kernels, one);
    EXPECT_REL(all.compute_s - two.compute_s, 2 * (ct.layer_forward_s + ct.layer_backward_s));
    EXPECT_LT(two.step_time_s, all.step_time_s);
    EXPECT_THROW(estimate_microrun(m, hw, cal, c, 0), std::invalid_argument);
    EXPECT_THROW(estimate_microrun(m, hw, cal, c, m.num_layers + 1), std::invalid_argument);
}

TEST_F(StepModel, ComputeBoundExposesOnlyFirstGathersAndLastReductions) {
    // Every unit's gather (13.002 µs) fits under cf = 97.2016 µs and gather + reduce-scatter
    // (26.004 µs) under cb = 260.0016 µs; the last layer's reduce-scatter runs under the
    // embedding's backward (eb = 21.2 µs). Per micro-batch only the root's and the first
    // layer's all-gathers and the root's reduce-scatter are exposed.
    const StepBreakdown s = run();
    const double ag = ring_time_s(Collective::all_gather, 26'004'000.0, 2, cal.intra_node);
    const double ag_root = ring_time_s(Collective::all_gather, 200'002'000.0, 2, cal.intra_node);
    const double rs_root = ring_time_s(Collective::reduce_scatter, 200'002'000.0, 2, cal.intra_node);
    EXPECT_TRUE(s.comm_hidden);
    EXPECT_REL(s.exposed_comm_s, 2.0 * (ag_root + ag + rs_root));
    EXPECT_LT(s.exposed_comm_s, s.comm_s);
}

TEST_F(StepModel, HiddenFlagCoversTheOutputProjectionBackwardWindow) {
    // With a small head the last layer's backward gather (prefetched under the head's
    // backward) can outlast that window. V = 1000, no final norm, fused loss:
    //   head GEMM 2 · 1000 · 1000 · 1000 / 5e14 = 4 µs; fused loss 6 B · 1000 per token
    //   = 1.2 µs → hf = 5.2 µs; backward 2 · 4 = 8 µs and nothing memory-bound → hb = 8 µs
    //   < ag = 13.002 µs
    //   embedding: 0.8 µs forward; backward 1.2 + 2 · 1000 · 1000 B / 5e12 = 1.6 µs
    //   cf = 97.2016 µs, cb = 260.0016 µs as before (layers unchanged)
    //   root = 2 · 1,000,000 (embedding, output projection) → ag_root = rs_root = ½ ·
    //   4,000,000 / 1e12 = 2.0 µs
    //   exposed = ag_root + ag + (ag − hb) + (rs − eb) + rs_root
    //           = 2.0 + 13.002 + 5.002 + 11.402 + 2.0 = 33.406 µs: the gather under the
    //   head's backward is not hidden.
    m.vocab_size = 1000;
    m.final_norm = false;
    c.loss_kernel = LossKernel::fused;
    c.global_batch_tokens = 0;
    const StepBreakdown s = run();
    EXPECT_REL(s.exposed_comm_s, 33.406 * kUs);
    EXPECT_FALSE(s.comm_hidden);
    // Without the backward re-gather nothing extra is exposed: 2.0 + 13.002 + 11.402 + 2.0.
    c.reshard_after_forward = false;
    const StepBreakdown r = run();
    EXPECT_REL(r.exposed_comm_s, 28.404 * kUs);
    EXPECT_TRUE(r.comm_hidden);
}

TEST_F(StepModel, FsdpWithoutReshardGathersOnce) {
    // reshard_after_forward = False: no backward gathers, and so no backward copy-out:
    // cb = 260.0016 − 10.4016 = 249.6 µs; compute per micro-batch 4 · (97.2016 + 249.6)
    // + 1043.6 = 2430.8064 µs. Collectives per micro-batch 356.026 − 52.008 = 304.018 µs;
    // exposed as before, 213.004 µs per micro-batch.
    //   step = 2 · (2430.8064 + 213.004) + 456.027 = 5743.6478 µs
    // = the baseline less the eight backward copy-outs (8 · 10.4016 = 83.2128 µs).
    c.reshard_after_forward = false;
    const StepBreakdown s = run();
    EXPECT_REL(s.comm_s, 608.036 * kUs);
    EXPECT_REL(s.exposed_comm_s, 426.008 * kUs);
    EXPECT_REL(s.compute_s, 4861.6128 * kUs);
    EXPECT_REL(s.step_time_s, 5743.6478 * kUs);
    EXPECT_REL(s.step_time_s, (5826.8606 - 83.2128) * kUs);
    expect_consistent(s);
}

TEST_F(StepModel, FsdpGradSyncOnLastMicroBatchOnly) {
    // First micro-batch without reduce-scatters: the root's reduce-scatter (100.001 µs) is
    // not paid, the layers' were hidden anyway: 2685.4168 − 100.001 = 2585.4158 µs; second
    // 2685.4168: 5270.8326 µs; exposed 5270.8326 − 4944.8256 = 326.007 µs.
    // Collectives: 204.017 (gathers only) + 356.026 = 560.043 µs.
    c.grad_sync = GradSync::last_micro_batch;
    const StepBreakdown s = run();
    EXPECT_REL(s.exposed_comm_s, 326.007 * kUs);
    EXPECT_REL(s.comm_s, 560.043 * kUs);
    EXPECT_REL(s.step_time_s, (5270.8326 + 456.027) * kUs);
    expect_consistent(s);
}

TEST_F(StepModel, Fp32ReduceDoublesReduceScatterBytes) {
    // rs = 26.004 µs, rs_root = 200.002 µs. The last layer's reduce-scatter now outlasts
    // the embedding's backward (21.2 µs) by 4.804 µs:
    //   exposed 2 · (100.001 + 13.002 + 4.804 + 200.002) = 635.618 µs
    c.reduce_bytes = 4;
    const StepBreakdown s = run();
    EXPECT_REL(s.exposed_comm_s, 635.618 * kUs);
    // 100.001 + 8 · 13.002 + 4 · 26.004 + 200.002 = 508.035 per micro-batch
    EXPECT_REL(s.comm_s, 1016.07 * kUs);
    EXPECT_TRUE(s.comm_hidden);
}

TEST_F(StepModel, NoAccumulationWhenGlobalBatchUnset) {
    c.global_batch_tokens = 0;
    const StepBreakdown s = run();
    EXPECT_EQ(s.grad_accum, 1);
    EXPECT_DOUBLE_EQ(s.tokens_per_step, 2000.0);
    EXPECT_REL(s.compute_s, 2472.4128 * kUs);
    EXPECT_REL(s.step_time_s, (2685.4168 + 456.027) * kUs);
}

TEST_F(StepModel, CrossingTheNodeSwitchesToTheNic) {
    // 8 GPUs, one node, A = 1: ag = rs = 7/8 · 26,004,000 / 1e12 = 22.7535 µs (< cf), ag_root
    // = rs_root = 7/8 · 200,002,000 / 1e12 = 175.00175 µs; the last layer's reduce-scatter
    // outlasts the embedding's backward by 22.7535 − 21.2 = 1.5535 µs:
    //   exposed 175.00175 + 22.7535 + 1.5535 + 175.00175 = 374.3105 µs
    c.gpus = 8;
    c.global_batch_tokens = 8000;
    const StepBreakdown in_node = run();
    EXPECT_TRUE(in_node.comm_hidden);
    EXPECT_REL(in_node.exposed_comm_s, 374.3105 * kUs);

    // 16 GPUs over two nodes of 8: the ring runs at the NIC's 1e11 B/s.
    //   ag = rs = 15/16 · 26,004,000 / 1e11 = 243.7875 µs (> cf = 97.2016 µs: not hidden)
    //   ag_root = rs_root = 15/16 · 200,002,000 / 1e11 = 1875.01875 µs
    //   forward  = 1875.01875 + 0.8 + 243.7875 + 3 · 243.7875 + 97.2016 + 387.2 = 3335.37035
    //   backward = max(634.4, 243.7875) + max(260.0016, 243.7875) + 2 · max(260.0016, 487.575)
    //              + max(260.0016, 243.7875) + max(21.2, 243.7875) + 1875.01875 = 4248.35945
    //   micro-batch 7583.7298 µs; exposed 7583.7298 − 2472.4128 = 5111.317 µs
    c.gpus = 16;
    c.global_batch_tokens = 16000;
    const StepBreakdown across = run();
    EXPECT_FALSE(across.comm_hidden);
    EXPECT_REL(across.exposed_comm_s, 5111.317 * kUs);
    EXPECT_REL(across.compute_s, 2472.4128 * kUs);
    EXPECT_GT(across.exposed_comm_s, 10 * in_node.exposed_comm_s);
    // Optimizer on 1/16: 9,500,562.5 · 30 / 5e12 = 57.003375 µs.
    EXPECT_REL(across.step_time_s, (7583.7298 + 57.003375) * kUs);
    expect_consistent(across);

    // The same 16 GPUs in one 16-GPU NVLink domain stay on NVLink:
    //   ag = rs = 15/16 · 26,004,000 / 1e12 = 24.37875, ag_root = rs_root = 187.501875 µs;
    //   exposed 187.501875 + 24.37875 + (24.37875 − 21.2) + 187.501875 = 402.56125 µs
    c.gpus_per_node = 16;
    const StepBreakdown one_domain = run();
    EXPECT_TRUE(one_domain.comm_hidden);
    EXPECT_REL(one_domain.exposed_comm_s, 402.56125 * kUs);
}

TEST_F(StepModel, HsdpShardsInNodeAndAllReducesAcross) {
    // 16 GPUs = 2 nodes × 8: shard group 8 on NVLink, 2 replicas, each pair of peers on
    // its own NIC (1.25e10 B/s):
    //   ag = 22.7535 µs, ag_root = 175.00175 µs (as for 8 GPUs)
    //   rs = 22.7535 + all-reduce of the 1/8 shard (3,250,500 B) over 2 ranks:
    //        2 · ½ · 3,250,500 / 1.25e10 = 260.04 → 282.7935 µs
    //   rs_root = 175.00175 + 25,000,250 / 1.25e10 = 175.00175 + 2000.02 = 2175.02175 µs
    //   forward  = 175.00175 + 0.8 + 22.7535 + 3 · 97.2016 + 97.2016 + 387.2   = 974.56165
    //   backward = 634.4 + 260.0016 + 2 · max(260.0016, 22.7535 + 282.7935)
    //              + max(260.0016, 282.7935) + max(21.2, 282.7935) + 2175.02175 = 4246.10435
    //   micro-batch 5220.666 µs; exposed 5220.666 − 2472.4128 = 2748.2532 µs: the replica
    //   all-reduce does not hide
    //   collectives = 175.00175 + 8 · 22.7535 + 4 · 282.7935 + 2175.02175  = 3663.2255 µs
    c.strategy = Strategy::hsdp;
    c.gpus = 16;
    c.global_batch_tokens = 16000;
    const StepBreakdown s = run();
    EXPECT_EQ(s.grad_accum, 1);
    EXPECT_FALSE(s.comm_hidden);
    EXPECT_REL(s.exposed_comm_s, 2748.2532 * kUs);
    EXPECT_REL(s.comm_s, 3663.2255 * kUs);
    // Optimizer state sharded 8 ways: 19,001,125 · 30 / 5e12 = 114.00675 µs.
    EXPECT_REL(s.optimizer_s, 114.00675 * kUs);
    EXPECT_REL(s.step_time_s, (5220.666 + 114.00675) * kUs);
    expect_consistent(s);
}

TEST_F(StepModel, DdpAllReducesEveryMicroBatch) {
    // red = all-reduce of a layer: 2 · ½ · 26,004,000 / 1e12 = 26.004 µs; root 200.002 µs.
    // No copy-out (cf = 86.8, cb = 249.6, compute 2389.2 µs per micro-batch):
    //   forward 0.8 + 4 · 86.8 + 387.2 = 735.2
    //   backward 634.4 + 249.6 + 2 · max(249.6, 26.004) + max(249.6, 26.004)
    //            + max(21.2, 26.004) + 200.002 = 1858.806; micro-batch 2594.006 µs
    c.strategy = Strategy::ddp;
    const StepBreakdown s = run();
    EXPECT_REL(s.compute_s, 4778.4 * kUs);
    EXPECT_REL(s.exposed_comm_s, 409.612 * kUs);  // 2 · (4.804 + 200.002)
    EXPECT_REL(s.comm_s, 608.036 * kUs);          // 2 · (4 · 26.004 + 200.002)
    EXPECT_REL(s.optimizer_s, 912.054 * kUs);     // unsharded
    EXPECT_REL(s.step_time_s, (5188.012 + 912.054) * kUs);
    expect_consistent(s);

    // no_sync on the first micro-batch: 2389.2 + 2594.006.
    c.grad_sync = GradSync::last_micro_batch;
    const StepBreakdown ns = run();
    EXPECT_REL(ns.exposed_comm_s, 204.806 * kUs);
    EXPECT_REL(ns.comm_s, 304.018 * kUs);
}

TEST_F(StepModel, Zero1ReducesOnceAndGathersWeights) {
    // Reduce-scatter (13.002 µs per layer, hidden; 100.001 root, exposed) only on the last
    // micro-batch: 2389.2 + (2389.2 + 100.001) = 4878.401 µs; then the updated bf16 weights
    // are all-gathered: ½ · 304,018,000 / 1e12 = 152.009 µs, exposed.
    c.strategy = Strategy::zero1;
    const StepBreakdown s = run();
    EXPECT_REL(s.exposed_comm_s, 252.01 * kUs);  // 4878.401 − 4778.4 + 152.009
    EXPECT_REL(s.comm_s, 304.018 * kUs);         // 4 · 13.002 + 100.001 + 152.009
    EXPECT_REL(s.optimizer_s, 456.027 * kUs);
    EXPECT_REL(s.step_time_s, (4878.401 + 152.009 + 456.027) * kUs);
    expect_consistent(s);
}

TEST_F(StepModel, Zero2ReducesEveryMicroBatch) {
    // 2 · 2489.201 = 4978.402 µs, plus the 152.009 µs weight all-gather; ZeRO-2 reduces
    // every micro-batch even when no_sync is asked for.
    c.strategy = Strategy::zero2;
    for (GradSync g : {GradSync::every_micro_batch, GradSync::last_micro_batch}) {
        c.grad_sync = g;
        const StepBreakdown s = run();
        EXPECT_REL(s.exposed_comm_s, 352.011 * kUs);  // 2 · 100.001 + 152.009
        EXPECT_REL(s.comm_s, 456.027 * kUs);          // 2 · 152.009 + 152.009
        EXPECT_REL(s.step_time_s, (4978.402 + 152.009 + 456.027) * kUs);
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

TEST_F(StepModel, OptimizerTrafficByOptimizerAndMasterWeights) {
    // Bytes read + written per local parameter (step_model.cpp optimizer_traffic_bytes):
    //   fp32 masters (w = 4, + 2 B bf16 copy): AdamW 7w + 2 = 30; 8-bit AdamW 3w + 4 + 2 = 18;
    //   SGD 5w + 2 = 22; Adafactor 7w + 2 = 30
    //   bf16 weights (w = 2, no copy): AdamW 14; 8-bit 10; SGD 10; Adafactor 14
    // 2 shards: 76,004,500 params per GPU, at 5e12 B/s.
    const std::pair<Optimizer, double> fp32[] = {
        {Optimizer::adamw, 30}, {Optimizer::adamw_8bit, 18}, {Optimizer::sgd, 22}, {Optimizer::adafactor, 30}};
    const std::pair<Optimizer, double> bf16[] = {
        {Optimizer::adamw, 14}, {Optimizer::adamw_8bit, 10}, {Optimizer::sgd, 10}, {Optimizer::adafactor, 14}};
    for (const auto& [o, bytes] : fp32) {
        c.optimizer = o;
        c.master_weights = MasterWeights::fp32;
        EXPECT_REL(run().optimizer_s, 76'004'500.0 * bytes / 5e12) << to_string(o);
    }
    for (const auto& [o, bytes] : bf16) {
        c.optimizer = o;
        c.master_weights = MasterWeights::bf16;
        EXPECT_REL(run().optimizer_s, 76'004'500.0 * bytes / 5e12) << to_string(o);
    }
}

TEST_F(StepModel, GradientClippingAddsThreePassesOverTheGradientShard) {
    // clip_grad_norm_: _foreach_norm reads each gradient, _foreach_mul_ reads and writes it:
    // 3 · 4 B with fp32 masters, 3 · 2 B with bf16 ones, over 76,004,500 local parameters.
    c.gpus = 2;
    const double plain = run().optimizer_s;
    c.clip_grad_norm = true;
    EXPECT_REL(run().optimizer_s - plain, 76'004'500.0 * 12 / 5e12);
    EXPECT_REL(run().optimizer_s, 76'004'500.0 * 42 / 5e12);  // AdamW 30 B + 12 B
    c.master_weights = MasterWeights::bf16;
    EXPECT_REL(run().optimizer_s, 76'004'500.0 * (14 + 6) / 5e12);
    expect_consistent(run());
}

TEST_F(StepModel, SingleGpuHasNoCommunication) {
    c.gpus = 1;
    c.global_batch_tokens = 0;
    const StepBreakdown s = run();
    EXPECT_EQ(s.comm_s, 0.0);
    EXPECT_NEAR(s.exposed_comm_s, 0.0, 1e-15);
    // FSDP on one GPU still copies each layer out of its (one-rank) gather buffer.
    EXPECT_REL(s.step_time_s, (2472.4128 + 912.054) * kUs);
}

TEST_F(StepModel, GemmAndAttentionLawsSaturate) {
    // GEMM k_half = 1000: every GEMM takes 2·m·n·(k + 1000) / 5e14, k its inner dimension.
    //   layer forward: q, k, v, o (n = k = 1000) 4 · 8 = 32; gate, up (n = 3000, k = 1000)
    //     2 · 24 = 48; down (n = 1000, k = 3000) 16 → 96 µs
    //   dgrad (inner = n): q..o 4 · 8 = 32; gate, up (inner 3000) 2 · 16 = 32; down
    //     (output 1000 × 3000, inner 1000) 24 → 88 µs
    //   wgrad (inner = 1000 tokens): q..o 32; gate, up 2 · 24 = 48; down 24 → 104 µs
    //   layer with full recompute 96 + 88 + 104 + 96 = 384 µs; × 4 = 1536
    //   head: forward 2 · 1000 · 50,000 · 2000 / 5e14 = 400; dgrad (inner 50,000)
    //     2 · 1000 · 1000 · 51,000 / 5e14 = 204; wgrad 400 → 1004 µs
    //   GEMMs per micro-batch 2540 µs; × 2 = 5080 µs
    cal.gemm.k_half = 1000;
    EXPECT_REL(run().gemm_s, 5080 * kUs);
    // Attention half lengths 1000 at sequences of 1000: half of eta_max, twice the time:
    //   4 layers · (8 + 20 + 8 recomputed) µs = 144 µs per micro-batch; × 2 = 288 µs
    cal = test::tiny_calibration();
    cal.attention.forward_half_seq = 1000;
    cal.attention.backward_half_seq = 1000;
    EXPECT_REL(run().attention_s, 288 * kUs);
    // head_dim_half c: g(d_h = 100) = [100/(100 + c)] / [128/(128 + c)]; c = 28:
    //   (100/128) / (128/156) = 0.952148…; the rate falls by it, the time rises by 1/g.
    cal = test::tiny_calibration();
    cal.attention.head_dim_half = 28;
    EXPECT_REL(run().attention_s, 144 * kUs * (128.0 / 156.0) / (100.0 / 128.0));
}

TEST_F(StepModel, FrameworkEfficiencySlowsEveryKernelButNotTheOptimizer) {
    // framework_efficiency 0.5 halves every kernel law's rate (GEMM, attention,
    // memory-bound): compute doubles, 2 · 4944.8256 µs. Collectives and the optimizer's
    // stream are not kernels of the laws.
    cal.framework_efficiency = 0.5;
    const StepBreakdown s = run();
    EXPECT_REL(s.compute_s, 2 * 4944.8256 * kUs);
    EXPECT_REL(s.comm_s, 712.052 * kUs);
    EXPECT_REL(s.optimizer_s, 456.027 * kUs);
}

TEST_F(StepModel, HostBoundLayersWaitOnTheHost) {
    // kernel_overhead 10 µs, layer_overhead 5 µs, no activation checkpointing.
    // Kernels of an eager layer (compute_model.cpp plan_operations): forward 2 · 7 (RMSNorm)
    //   + 2 · 5 (rotary) + 2 (SiLU, mul) + 2 (residual adds) + 1 (attention) + 7 GEMMs + 1
    //   (copy-out) = 37; backward 2 · 10 + 10 + 3 + 2 + 3 + 2 · 7 + 1 = 53
    //   host: forward 37 · 10 + 5 = 375 µs > device 97.2016; backward 53 · 10 + 5 = 535 µs
    //   > device 104 + 10 + 59.2016 = 173.2016
    //   head: 11 kernels forward (7 norm, 3 loss, 1 GEMM) = 110 < 387.2; 15 backward = 150
    //   < 634.4; embedding forward 1 kernel = 10 µs > 0.8; backward 2 = 20 < 21.2
    //   compute per micro-batch = 4 · (375 + 535) + 387.2 + 634.4 + 10 + 21.2 = 4692.8 µs
    //   host wait = 4 · ((375 − 97.2016) + (535 − 173.2016)) + (10 − 0.8) = 2567.5872 µs
    cal.kernel_overhead_s = 10 * kUs;
    cal.layer_overhead_s = 5 * kUs;
    c.activation_checkpointing = Checkpointing::none;
    const StepBreakdown s = run();
    EXPECT_REL(s.compute_s, 2 * 4692.8 * kUs);
    EXPECT_REL(s.host_wait_s, 2 * 2567.5872 * kUs);
    EXPECT_REL(s.gemm_s + s.attention_s + s.memory_bound_s + s.host_wait_s, s.compute_s);
}

TEST_F(StepModel, FullRecomputeIssuesTheForwardKernelsButNotTheCopyOut) {
    // As HostBoundLayersWaitOnTheHost with full checkpointing: the backward host time adds
    // the recomputed forward's kernels, 37 − 1 (the copy-out is not redone) = 36:
    //   (53 + 36) · 10 + 5 = 895 µs > device 260.0016 µs.
    cal.kernel_overhead_s = 10 * kUs;
    cal.layer_overhead_s = 5 * kUs;
    const StepBreakdown s = run();
    //   compute per micro-batch = 4 · (375 + 895) + 387.2 + 634.4 + 10 + 21.2 = 6132.8 µs
    EXPECT_REL(s.compute_s, 2 * 6132.8 * kUs);
}

TEST_F(StepModel, SelectiveCheckpointingRecomputesOddMatmulsAndMemoryBoundOps) {
    // torchtitan's op-level policy keeps the 1st, 3rd, ... matmul outputs and SDPA's: in
    // call order q, k, v, o, gate, up, down, it recomputes k (4 µs), o (4) and up (12)
    // = 20 µs plus every memory-bound op of the forward (30.8 µs), not attention:
    //   cb = 104 + 10 + 59.2016 + 50.8 = 224.0016 µs
    //   compute per micro-batch = 4 · (97.2016 + 224.0016) + 1043.6 = 2328.4128 µs
    //   GEMMs 4 · (52 + 104 + 20) + 600 = 1304 µs; attention 4 · 14 = 56 µs
    c.activation_checkpointing = Checkpointing::selective;
    const StepBreakdown s = run();
    EXPECT_REL(s.compute_s, 2 * 2328.4128 * kUs);
    EXPECT_REL(s.gemm_s, 2 * 1304 * kUs);
    EXPECT_REL(s.attention_s, 2 * 56 * kUs);
    // HFU counts the recomputed k, o and up matmuls: 636e6 + 2 · (1e6 + 1e6 + 3e6) · 4 = 676e6.
    EXPECT_REL(s.hfu, s.tokens_per_s_per_gpu * 676e6 / 1e15);
}

TEST_F(StepModel, CheckpointEveryOtherLayerRecomputesHalf) {
    // checkpoint_every = 2: the mean layer recomputes half a forward (43.4 µs):
    //   cb = 104 + 10 + 59.2016 + 43.4 = 216.6016 µs
    //   compute per micro-batch = 4 · (97.2016 + 216.6016) + 1043.6 = 2298.8128 µs
    c.checkpoint_every = 2;
    const StepBreakdown s = run();
    EXPECT_REL(s.compute_s, 2 * 2298.8128 * kUs);
    EXPECT_REL(s.attention_s, 2 * 4 * (4 + 10 + 2) * kUs);
}

TEST_F(StepModel, CheckpointEveryThirdLayerRecomputesTheLayersMemoryCounts) {
    // checkpoint_every = 3 on 4 layers: torchtitan wraps the 3rd layer only (floor(4/3) = 1,
    // as estimate_memory counts), so the mean layer recomputes a quarter of a forward:
    //   cb = 104 + 10 + 59.2016 + 86.8 / 4 = 194.9016 µs
    //   compute per micro-batch = 4 · (97.2016 + 194.9016) + 1043.6 = 2212.0128 µs
    c.checkpoint_every = 3;
    EXPECT_REL(run().compute_s, 2 * 2212.0128 * kUs);
}

TEST_F(StepModel, HfuCountsOnlyTheCheckpointedLayersRecompute) {
    // checkpoint_every = 2: half the layers recompute their forward, 112e6 / 2 = 56e6 FLOPs
    // per token: HFU counts 636e6 + 56e6 = 692e6.
    c.checkpoint_every = 2;
    const StepBreakdown s = run();
    EXPECT_REL(s.hfu, s.tokens_per_s_per_gpu * 692e6 / 1e15);
}

TEST_F(StepModel, CheckpointWriteIsAmortized) {
    // 152,009,000 · 14 B = 2,128,126,000 B at 1 GB/s on the one node = 2.128126 s; every
    // 10 steps → 0.2128126 s per step.
    c.checkpoint.every_steps = 10;
    c.checkpoint.write_gbps_per_node = 1.0;
    const StepBreakdown s = run();
    EXPECT_REL(s.checkpoint_s, 0.2128126);
    EXPECT_REL(s.step_time_s, 5826.8606 * kUs + 0.2128126);
    // Idle power during the checkpoint: 11.2277132 + 2 · 0.2128126 · 100 W.
    EXPECT_REL(s.energy_per_step_j, 11.2277132 + 42.56252);
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
    EXPECT_REL(run().step_time_s, 5826.8606 * kUs);

    c.data.storage_read_gbps_per_node = 0.001;  // 1 MB/s: 16 ms, of which 5.8268606 ms hide
    const StepBreakdown s = run();
    EXPECT_REL(s.data_s, (16000 - 5826.8606) * kUs);
    EXPECT_REL(s.step_time_s, 16000 * kUs);
    // Data wait at idle power: + 2 · 10,173.1394 µs · 100 W.
    EXPECT_REL(s.energy_per_step_j, 11.2277132 + 2.03462788);
    expect_consistent(s);
}

TEST_F(StepModel, TokenizationLimitedByCores) {
    // 2 workers/rank · 2 ranks = 4 workers, but 2 cores: 4000 tokens / (2 · 1000 tok/s) = 2 s.
    c.data.pretokenized = false;
    c.data.tokenize_tokens_per_s_per_core = 1000;
    c.data.loader_workers_per_rank = 2;
    c.data.cpu_cores_per_node = 2;
    EXPECT_REL(run().data_s, 2.0 - 5826.8606 * kUs);
    c.data.cpu_cores_per_node = 0;  // unlimited: 4 workers, 1 s
    EXPECT_REL(run().data_s, 1.0 - 5826.8606 * kUs);
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
    // 2 · ((4944.8256 + 456.027) µs · 700 + 426.008 µs · 300 + (10,173.1394 µs + 0.2128126 s) · 50)
    const double expected =
        2 * ((4944.8256 + 456.027) * kUs * 700 + 426.008 * kUs * 300 + (10173.1394 * kUs + 0.2128126) * 50);
    EXPECT_REL(s.energy_per_step_j, expected);
    // A per-step overhead is idle time too: + 2 · 0.01 s · 50 W, and it lengthens the step.
    cal.step_overhead_s = 0.01;
    c.data.corpus_in_page_cache = true;
    c.checkpoint.every_steps = 0;
    const StepBreakdown o = run();
    EXPECT_REL(o.step_time_s, 5826.8606 * kUs + 0.01);
    EXPECT_REL(o.energy_per_step_j, 2 * ((4944.8256 + 456.027) * kUs * 700 + 426.008 * kUs * 300 + 0.01 * 50));
}

TEST_F(StepModel, PackedSpanLowersAttentionFlops) {
    // span 250 instead of 500: attention 2 µs forward, 5 backward, 2 recomputed per layer
    // (half of 4, 10, 4): 4 · 9 = 36 µs less per micro-batch → 2 · (2472.4128 − 36).
    c.attention_span_tokens = 250;
    EXPECT_REL(run().compute_s, 2 * 2436.4128 * kUs);
    EXPECT_REL(run().attention_s, 2 * 36 * kUs);
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
        {"gpus_per_node",
         [](TrainingConfig& c) { c.gpus_per_node = -1; },
         ConfigIssue::gpus_per_node,
         {"gpus_per_node = -1"}},
        {"hsdp partial node",
         [](TrainingConfig& c) {
             c.strategy = Strategy::hsdp;
             c.gpus = 12;
             c.global_batch_tokens = 0;
         },
         ConfigIssue::whole_nodes,
         {"gpus = 12", "nodes of 8", "8 or 16"}},
        {"seq_len", [](TrainingConfig& c) { c.seq_len = 0; }, ConfigIssue::seq_len, {"seq_len = 0"}},
        {"seq_len too long",
         [](TrainingConfig& c) {
             c.seq_len = 5000;
             c.global_batch_tokens = 0;
         },
         ConfigIssue::seq_len_too_long,
         {"seq_len = 5000", "max_position_embeddings = 4096"}},
        {"micro_batch", [](TrainingConfig& c) { c.micro_batch = 0; }, ConfigIssue::micro_batch, {"micro_batch = 0"}},
        // 5000 over a unit of 2 · 1 · 1000 = 2000: nearest valid 4000 or 6000.
        {"global batch",
         [](TrainingConfig& c) { c.global_batch_tokens = 5000; },
         ConfigIssue::global_batch,
         {"global_batch_tokens = 5000", "= 2000", "4000 or 6000"}},
        {"global batch negative",
         [](TrainingConfig& c) { c.global_batch_tokens = -2000; },
         ConfigIssue::global_batch,
         {"global_batch_tokens = -2000"}},
        {"reduce_bytes",
         [](TrainingConfig& c) { c.reduce_bytes = 3; },
         ConfigIssue::reduce_bytes,
         {"reduce_bytes = 3", "2 (bf16) or 4 (fp32)"}},
        {"attention span",
         [](TrainingConfig& c) { c.attention_span_tokens = 2000; },
         ConfigIssue::attention_span,
         {"attention_span_tokens = 2000", "seq_len = 1000"}},
        {"storage missing",
         [](TrainingConfig& c) { c.data.corpus_in_page_cache = false; },
         ConfigIssue::data_pipeline,
         {"storage_read_gbps_per_node", "got 0"}},
        {"tokenizer missing",
         [](TrainingConfig& c) { c.data.pretokenized = false; },
         ConfigIssue::data_pipeline,
         {"tokenize_tokens_per_s_per_core (got 0)"}},
        // Ranges of options a sweep does not vary are the option tables' (none here).
        {"bytes per token",
         [](TrainingConfig& c) { c.data.bytes_per_token = 0; },
         ConfigIssue::none,
         {"bytes_per_token = 0"}},
        {"checkpoint without bandwidth",
         [](TrainingConfig& c) { c.checkpoint.every_steps = 10; },
         ConfigIssue::checkpoint,
         {"every_steps = 10", "write_gbps_per_node > 0 (got 0)"}},
        {"checkpoint negative",
         [](TrainingConfig& c) { c.checkpoint.every_steps = -1; },
         ConfigIssue::none,
         {"every_steps = -1"}},
        // The tiny GPU has no fp8 tensor cores (peak_fp8_tflops 0).
        {"fp8 unsupported",
         [](TrainingConfig& c) { c.precision = Precision::fp8; },
         ConfigIssue::fp8_unsupported,
         {"precision = 'fp8'", "tiny-gpu", "bf16"}},
        {"fp8 all-gather without fp8",
         [](TrainingConfig& c) { c.fp8_all_gather = true; },
         ConfigIssue::fp8_all_gather,
         {"fp8_all_gather", "precision = 'bf16'"}},
        {"checkpoint_every zero",
         [](TrainingConfig& c) { c.checkpoint_every = 0; },
         ConfigIssue::checkpoint_every,
         {"checkpoint_every = 0", "[1, 1048576]"}},
        {"batch overflow",
         [](TrainingConfig& c) {
             c.gpus = std::int64_t{1} << 30;
             c.micro_batch = std::int64_t{1} << 40;
         },
         ConfigIssue::batch_overflow,
         {"overflows a 64-bit token count"}},
        {"flash3 before Hopper",
         [](TrainingConfig& c) { c.attention_kernel = AttentionKernel::flash3; },
         ConfigIssue::attention_kernel,
         {"attention_kernel = 'flash3'", "tiny-gpu"}},
        {"checkpoint_every beyond the layers",
         [](TrainingConfig& c) { c.checkpoint_every = 5; },
         ConfigIssue::checkpoint_every,
         {"checkpoint_every = 5"}},
        {"base weights on a full fine-tune",
         [](TrainingConfig& c) { c.base_weights = BaseWeights::nf4; },
         ConfigIssue::fine_tuning,
         {"fine_tuning = 'full'", "base_weights (got 'nf4')", "'lora'"}},
        {"qlora on a bf16 base",
         [](TrainingConfig& c) {
             c.fine_tuning = FineTuning::qlora;
             c.base_weights = BaseWeights::bf16;
         },
         ConfigIssue::fine_tuning,
         {"fine_tuning = 'qlora'", "base_weights = 'bf16'", "nf4"}},
        {"lora targets nothing",
         [](TrainingConfig& c) {
             c.fine_tuning = FineTuning::lora;
             c.lora_targets = 0;
         },
         ConfigIssue::lora_targets,
         {"lora_targets = ''", "all-linear"}},
        {"pipeline parallel",
         [](TrainingConfig& c) { c.pipeline_parallel = 2; },
         ConfigIssue::pipeline_parallel,
         {"pipeline_parallel = 2", "not modelled", "valid: 1"}},
        {"tensor parallel under ddp",
         [](TrainingConfig& c) {
             c.tensor_parallel = 2;
             c.strategy = Strategy::ddp;
         },
         ConfigIssue::parallel_strategy,
         {"tensor_parallel = 2", "strategy = 'ddp'", "'fsdp' or 'hsdp'"}},
        {"tensor parallel with adapters",
         [](TrainingConfig& c) {
             c.tensor_parallel = 2;
             c.fine_tuning = FineTuning::lora;
         },
         ConfigIssue::parallel_strategy,
         {"fine_tuning = 'lora'", "not modelled"}},
        {"degrees beyond the GPUs",
         [](TrainingConfig& c) { c.tensor_parallel = 4; },
         ConfigIssue::parallel_degrees,
         {"= 4 does not divide gpus = 2"}},
        {"degrees beyond an HSDP node",
         [](TrainingConfig& c) {
             c.strategy = Strategy::hsdp;
             c.gpus = 16;
             c.tensor_parallel = 2;
             c.context_parallel = 8;
             c.seq_len = 992;
             c.global_batch_tokens = 0;
         },
         ConfigIssue::parallel_degrees,
         {"= 16 does not divide the 8 GPUs of a node"}},
        {"tensor parallel across nodes",
         [](TrainingConfig& c) {
             c.gpus = 6;
             c.tensor_parallel = 3;
         },
         ConfigIssue::tensor_parallel_node,
         {"tensor_parallel = 3", "8 GPUs", "valid: 1, 2, 4, 8"}},
        {"tensor parallel splitting heads",
         [](TrainingConfig& c) {
             c.gpus = 4;
             c.tensor_parallel = 4;
         },
         ConfigIssue::tensor_parallel_model,
         {"num_heads = 10", "valid: 1, 2, 5, 10"}},
        {"expert parallel on a dense model",
         [](TrainingConfig& c) { c.expert_parallel = 2; },
         ConfigIssue::expert_parallel,
         {"expert_parallel = 2", "tiny is a dense model", "valid: 1"}},
        {"context parallel chunks",
         [](TrainingConfig& c) {
             c.context_parallel = 2;
             c.seq_len = 1002;
         },
         ConfigIssue::parallel_seq_len,
         {"seq_len = 1002", "multiple of 4", "nearest valid: 1000"}},
        {"context parallel with eager attention",
         [](TrainingConfig& c) {
             c.context_parallel = 2;
             c.attention_kernel = AttentionKernel::eager;
         },
         ConfigIssue::parallel_seq_len,
         {"'eager'", "flash2"}},
        {"Ulysses shards",
         [](TrainingConfig& c) {
             c.context_parallel = 2;
             c.context_parallel_method = ContextParallelMethod::ulysses;
             c.seq_len = 1001;
         },
         ConfigIssue::parallel_seq_len,
         {"seq_len = 1001", "multiple of 2", "Ulysses", "nearest valid: 1000"}},
        {"Ulysses over heads it does not divide",
         [](TrainingConfig& c) {
             c.gpus = 4;
             c.context_parallel = 4;
             c.context_parallel_method = ContextParallelMethod::ulysses;
         },
         ConfigIssue::context_parallel_heads,
         {"context_parallel = 4", "num_heads = 10", "valid: 1, 2, 5, 10"}},
        {"Ulysses under tensor parallel",
         [](TrainingConfig& c) {
             c.gpus = 4;
             c.tensor_parallel = 2;
             c.context_parallel = 2;
             c.context_parallel_method = ContextParallelMethod::ulysses;
         },
         ConfigIssue::context_parallel_heads,
         {"tensor_parallel = 2", "'ring'"}},
        {"async tensor parallel without tensor parallel",
         [](TrainingConfig& c) {
             c.async_tensor_parallel = true;
             c.torch_compile = true;
         },
         ConfigIssue::async_tensor_parallel,
         {"async_tensor_parallel = true", "tensor_parallel = 1", "valid: tensor_parallel > 1"}},
        {"async tensor parallel without sequence parallel",
         [](TrainingConfig& c) {
             c.gpus = 4;
             c.tensor_parallel = 2;
             c.sequence_parallel = false;
             c.async_tensor_parallel = true;
             c.torch_compile = true;
         },
         ConfigIssue::async_tensor_parallel,
         {"sequence_parallel = false", "valid: sequence_parallel = true"}},
        {"async tensor parallel without torch.compile",
         [](TrainingConfig& c) {
             c.gpus = 4;
             c.tensor_parallel = 2;
             c.async_tensor_parallel = true;
         },
         ConfigIssue::async_tensor_parallel,
         {"torch_compile = false", "valid: torch_compile = true"}},
        {"fp8 GEMMs on a 4-bit base",
         [](TrainingConfig& c) {
             c.fine_tuning = FineTuning::qlora;
             c.precision = Precision::fp8;
         },
         ConfigIssue::base_precision,
         {"precision = 'fp8'", "4-bit base", "bf16"}},
    };
    std::set<ConfigIssue> covered;
    const auto check = [&](const ModelSpec& model, const IssueCase& k) {
        SCOPED_TRACE(k.name);
        covered.insert(k.issue);
        TrainingConfig c = test::tiny_config();
        k.mutate(c);
        EXPECT_EQ(check_config(model, hw, c), k.issue);
        try {
            validate_config(model, hw, c);
            ADD_FAILURE() << "no exception";
        } catch (const std::invalid_argument& e) {
            for (const std::string& part : k.in_message)
                EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
                    << "'" << part << "' not in: " << e.what();
        }
        EXPECT_THROW((void)estimate_step(model, hw, cal, c), std::invalid_argument);
    };
    for (const IssueCase& k : cases) check(m, k);
    // The rules of a mixture of experts: the tiny model with 8 experts of 500, top 2.
    ModelSpec moe = m;
    moe.name = "tiny-moe";
    moe.num_experts = 8;
    moe.experts_per_token = 2;
    moe.moe_intermediate_size = 500;
    moe.moe_layers = 4;
    const std::vector<IssueCase> moe_cases = {
        {"expert parallel not dividing the experts",
         [](TrainingConfig& c) {
             c.gpus = 16;
             c.global_batch_tokens = 0;
             c.expert_parallel = 16;
         },
         ConfigIssue::expert_parallel,
         {"expert_parallel = 16", "num_experts = 8", "valid: 1, 2, 4, 8"}},
        {"expert parallel beyond the shard group",
         [](TrainingConfig& c) { c.expert_parallel = 4; },
         ConfigIssue::expert_parallel,
         {"expert_parallel = 4", "FSDP shard group of 2", "valid: 1, 2"}},
        {"a mixture of experts under tensor parallel",
         [](TrainingConfig& c) { c.tensor_parallel = 2; },
         ConfigIssue::mixture_of_experts,
         {"tensor_parallel = 2 with tiny-moe", "valid: 1"}},
        {"a mixture of experts with adapters",
         [](TrainingConfig& c) { c.fine_tuning = FineTuning::lora; },
         ConfigIssue::mixture_of_experts,
         {"fine_tuning = 'lora' with tiny-moe", "valid: full"}},
    };
    for (const IssueCase& k : moe_cases) check(moe, k);
    EXPECT_EQ(check_config(m, hw, test::tiny_config()), ConfigIssue::none);
    EXPECT_NO_THROW(validate_config(m, hw, test::tiny_config()));
    // A new rule fails here until it has a case above.
    for (const ConfigRule& rule : config_rules()) EXPECT_TRUE(covered.count(rule.issue)) << rule.id;
}

TEST(ConfigValidation, RulesAreOneTableInIssueOrder) {
    ASSERT_EQ(config_rules().size() + 1, static_cast<std::size_t>(kConfigIssueCount));
    std::set<std::string_view> ids;
    for (std::size_t i = 0; i < config_rules().size(); ++i) {
        const ConfigRule& rule = config_rules()[i];
        EXPECT_EQ(static_cast<std::size_t>(rule.issue), i + 1);
        EXPECT_TRUE(ids.insert(rule.id).second) << rule.id;
        EXPECT_STREQ(to_string(rule.issue), std::string(rule.id).c_str());
        EXPECT_STREQ(describe(rule.issue), std::string(rule.summary).c_str());
        EXPECT_FALSE(rule.summary.empty()) << rule.id;
    }
    EXPECT_STREQ(to_string(ConfigIssue::none), "none");
    EXPECT_STREQ(describe(ConfigIssue::none), "ok");
}

TEST(ConfigValidation, SweptRangesAreTheOptionTables) {
    // gpus, seq_len and micro_batch are checked per sweep element against the training
    // option table's bounds: one past each bound is an issue, the bound is not.
    const ModelSpec m = test::tiny_model();
    const HardwareProfile hw = test::tiny_hardware();
    const auto& gpus = find_option(training_options(), "gpus");
    TrainingConfig c = test::tiny_config();
    c.global_batch_tokens = 0;
    c.gpus = static_cast<std::int64_t>(gpus.maximum);
    EXPECT_NE(check_config(m, hw, c), ConfigIssue::gpus);
    c.gpus += 1;
    EXPECT_EQ(check_config(m, hw, c), ConfigIssue::gpus);
    try {
        validate_config(m, hw, c);
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("training option gpus"), std::string::npos) << e.what();
    }
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
    cal.gemm.eta_max = 1.5;
    try {
        (void)estimate_step(m, hw, cal, c);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("gemm.eta_max = 1.5"), std::string::npos) << e.what();
    }
    cal = test::tiny_calibration();
    cal.framework_efficiency = 0;  // (0, 2]
    EXPECT_THROW((void)estimate_step(m, hw, cal, c), std::invalid_argument);
    cal = test::tiny_calibration();
    hw.hbm_tbps = -1;
    EXPECT_THROW((void)estimate_step(m, hw, cal, c), std::invalid_argument);
}

TEST(ConfigValidation, Fp8NeedsAnFp8GemmCoefficient) {
    const ModelSpec m = test::tiny_model();
    HardwareProfile hw = test::tiny_hardware();
    hw.peak_fp8_tflops = 2000;
    Calibration cal = test::tiny_calibration();  // gemm.fp8_eta_max 0
    TrainingConfig c = test::tiny_config();
    c.precision = Precision::fp8;
    EXPECT_EQ(check_config(m, hw, c), ConfigIssue::none);
    try {
        (void)estimate_step(m, hw, cal, c);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("gemm.fp8_eta_max = 0"), std::string::npos) << e.what();
    }
    cal.gemm.fp8_eta_max = 0.5;
    EXPECT_NO_THROW((void)estimate_step(m, hw, cal, c));
    // fp8 all-gather needs FSDP or HSDP.
    c.fp8_all_gather = true;
    EXPECT_EQ(check_config(m, hw, c), ConfigIssue::none);
    c.strategy = Strategy::ddp;
    EXPECT_EQ(check_config(m, hw, c), ConfigIssue::fp8_all_gather);
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

namespace libscale {
namespace {

TEST(ConfigValidation, FlashAttention3NeedsHopper) {
    TrainingConfig c = test::tiny_config();
    c.attention_kernel = AttentionKernel::flash3;
    HardwareProfile hw = test::tiny_hardware();  // no fp8 tensor cores: pre-Hopper
    EXPECT_EQ(check_config(test::tiny_model(), hw, c), ConfigIssue::attention_kernel);
    hw.peak_fp8_tflops = 2000;
    EXPECT_EQ(check_config(test::tiny_model(), hw, c), ConfigIssue::none);
}

TEST(Flops, SlidingWindowLayersCountTheKeysTheyAttend) {
    // Two of the tiny model's four layers with a 1000-token window at seq 4000: those
    // attend 875 keys on average (1000 − 1000²/8000), the others 2000: mean 1437.5.
    ModelSpec m = test::tiny_model();
    m.sliding_window = 1000;
    m.sliding_window_layers = 2;
    EXPECT_DOUBLE_EQ(mean_attended_keys(m, 2000.0), 1437.5);
    m.sliding_window = 0;
    EXPECT_DOUBLE_EQ(mean_attended_keys(m, 2000.0), 2000.0);
}

}  // namespace
}  // namespace libscale
