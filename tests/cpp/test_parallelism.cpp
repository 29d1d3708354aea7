// Tensor, sequence and context parallel composed with FSDP: the device mesh, one rank's
// slice of a model, the collectives each degree adds (by hand on the tiny GPU, whose
// NVLink ring moves 1e12 B/s with no latency) and the work each divides.
#include <gtest/gtest.h>

#include <string>

#include "libscale/estimate/collective.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/config_rules.hpp"
#include "libscale/estimate/layouts.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/spec/parallelism.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(DeviceMesh, DegreesOfEachStrategy) {
    TrainingConfig c;
    c.gpus = 256;
    c.tensor_parallel = 8;
    DeviceMesh mesh = device_mesh(c, 8);  // torchtitan's 70B 2-D layout: FSDP 32 × TP 8
    EXPECT_EQ(mesh.dp_shard, 32);
    EXPECT_EQ(mesh.dp_replicate, 1);
    EXPECT_EQ(mesh.shard_group(), 32);
    EXPECT_EQ(mesh.gpus(), 256);
    EXPECT_EQ(format_mesh(mesh), "dp_shard 32 × tp 8");
    c.gpus = 64;
    c.tensor_parallel = 2;
    c.context_parallel = 2;
    c.strategy = Strategy::hsdp;
    mesh = device_mesh(c, 8);  // a node: 2 data shards × 2 context × 2 tensor ranks; 8 replicas
    EXPECT_EQ(mesh.dp_shard, 2);
    EXPECT_EQ(mesh.cp, 2);
    EXPECT_EQ(mesh.dp_replicate, 8);
    EXPECT_EQ(mesh.shard_group(), 4);  // FSDP shards over the data- and context-parallel ranks
    EXPECT_EQ(mesh.data_parallel(), 16);
    EXPECT_EQ(format_mesh(mesh), "dp_replicate 8 × dp_shard 2 × cp 2 × tp 2");
    c.context_parallel_method = ContextParallelMethod::ulysses;  // the rules refuse it with tp; the text says it
    EXPECT_EQ(format_mesh(device_mesh(c, 8)), "dp_replicate 8 × dp_shard 2 × cp 2 (ulysses) × tp 2");
    TrainingConfig one;
    one.gpus = 1;
    EXPECT_EQ(format_mesh(device_mesh(one, 8)), "1 GPU");
}

TEST(TensorParallelSlice, Llama70bOverEightRanks) {
    const ModelSpec m = find_model("llama-3.1-70b");  // 64 heads, 8 KV heads, f 28672, V 128256
    const ModelSpec r = tensor_parallel_slice(m, 8);
    EXPECT_EQ(r.num_heads, 8);
    EXPECT_EQ(r.num_kv_heads, 1);
    EXPECT_EQ(r.intermediate_size, 3584);
    EXPECT_EQ(r.vocab_size, 16032);
    EXPECT_EQ(r.hidden_size, m.hidden_size);
    const ParameterCounts full = count_parameters(m), rank = count_parameters(r);
    // Every matmul weight splits evenly; the norms (2 × 8192 per layer, 8192 final) stay whole.
    EXPECT_EQ(rank.per_layer_matmul * 8, full.per_layer_matmul);
    EXPECT_EQ(rank.layer_norms, full.layer_norms);
    EXPECT_EQ(rank.embedding * 8, full.embedding);
    EXPECT_EQ(rank.total,
              (full.total - 80 * full.layer_norms - full.final_norm) / 8 + 80 * full.layer_norms + full.final_norm);
    EXPECT_EQ(tensor_parallel_slice(m, 1).num_heads, 64);
}

// tiny model (d 1000, 4 layers), 4 GPUs, tp 2: two data-parallel ranks of 1000 tokens,
// global 4000 → A = 2 micro-batches.
TrainingConfig tp2() {
    TrainingConfig c = test::tiny_config();
    c.gpus = 4;
    c.tensor_parallel = 2;
    return c;
}

TEST(TensorParallel, CollectivesByHand) {
    const ModelSpec m = test::tiny_model();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    const StepBreakdown s = estimate_step(m, hw, cal, tp2());
    EXPECT_EQ(s.data_parallel, 2);
    EXPECT_EQ(s.tensor_parallel, 2);
    EXPECT_EQ(s.grad_accum, 2);
    EXPECT_DOUBLE_EQ(s.tokens_per_step, 4000);
    // An all-gather or reduce-scatter of 1000 tokens × 1000 × 2 B over 2 ranks moves half of
    // the 2e6 B at 1e12 B/s: 1 µs; a pair 2 µs. A layer: 2 pairs forward, 2 backward, 2 again
    // in full checkpointing's recompute (12 µs); 4 layers and the root's pair: 52 µs per
    // micro-batch, 104 µs per step.
    EXPECT_NEAR(s.model_parallel_comm_s, 104e-6, 1e-12);
    // On the critical path: the step is longer than without them by at least that much
    // (what FSDP leaves exposed differs little with the layer's longer passes).
    EXPECT_GE(s.exposed_comm_s, s.model_parallel_comm_s);
    // Without sequence parallel the pairs are all-reduces of the same bytes (2 × 1e6 B).
    TrainingConfig no_sp = tp2();
    no_sp.sequence_parallel = false;
    EXPECT_NEAR(estimate_step(m, hw, cal, no_sp).model_parallel_comm_s, 104e-6, 1e-12);
    // fp8 (tensorwise) gathers activations in one byte; the tiny GPU has no fp8, so the
    // same model is checked through the op-level checkpointing variant instead: only the
    // gathers recompute (4 layers × (8 + 2) µs + 4 µs root = 44 µs per micro-batch).
    TrainingConfig sel = tp2();
    sel.activation_checkpointing = Checkpointing::selective;
    EXPECT_NEAR(estimate_step(m, hw, cal, sel).model_parallel_comm_s, 2 * 44e-6, 1e-12);
}

TEST(TensorParallel, DividesWeightsAndWork) {
    const ModelSpec m = test::tiny_model();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    const StepBreakdown s = estimate_step(m, hw, cal, tp2());
    // FSDP shards the rank's slice over the 2 data-parallel ranks: fp32 masters 4 B each.
    const ParameterCounts slice = count_parameters(tensor_parallel_slice(m, 2));
    EXPECT_NEAR(s.memory.weights_gib, 4.0 * static_cast<double>(slice.total) / 2 / kGiB, 1e-12);
    // The GEMMs of a layer split in two (flat GEMM law): the step's GEMM time is half of one
    // GPU doing the same data-parallel rank's work.
    TrainingConfig whole = test::tiny_config();
    const StepBreakdown one = estimate_step(m, hw, cal, whole);
    const double layer_gemm_ratio = s.gemm_s / one.gemm_s;
    EXPECT_NEAR(layer_gemm_ratio, 0.5, 1e-9);
    // MFU counts the whole model's FLOPs per token, whatever each rank holds.
    EXPECT_NEAR(s.mfu / s.tokens_per_s_per_gpu, one.mfu / one.tokens_per_s_per_gpu, 1e-15);
    // Sequence parallel: norms and residuals on half the tokens, less memory-bound time and
    // fewer saved activations than without it.
    TrainingConfig no_sp = tp2();
    no_sp.sequence_parallel = false;
    const StepBreakdown n = estimate_step(m, hw, cal, no_sp);
    EXPECT_LT(s.memory_bound_s, n.memory_bound_s);
    EXPECT_LT(s.memory.activations_gib, n.memory.activations_gib);
}

// Sequence parallel's redistributions rearrange what NCCL gathers or scatters along dim 0
// (torch.cat(torch.chunk(...)): 2 × the bytes of the tensor), and float8 tensor parallel
// casts a module's input once, on the rank's 1/tp of the tokens, then gathers it in fp8.
TEST(TensorParallel, SequenceParallelCopiesAndFloat8ModuleInputCasts) {
    const ModelSpec m = test::tiny_model();  // d = 1000
    const ParameterCounts p = count_parameters(m);
    TrainingConfig no_sp = tp2();
    no_sp.sequence_parallel = false;
    const OperationPlan sp = plan_operations(m, p, tp2()), all = plan_operations(m, p, no_sp);
    // The embedding's output scattered to Shard(1), its gradient gathered: 2 × 2 B × d each way.
    EXPECT_DOUBLE_EQ(sp.embed_forward_bytes_per_token - all.embed_forward_bytes_per_token, 4000);
    EXPECT_DOUBLE_EQ(sp.embed_backward_bytes_per_token - all.embed_backward_bytes_per_token, 4000);
    // fp8 over bf16, eager: the linears that read the layer's d-wide input (k = d: q|k|v and
    // the MLP's input) take their module's input cast once (5 B on half the tokens, two
    // modules) instead of casting it each (5 B × k); the others cast their own (5 B × k); the
    // two gathers carry 1 B per element instead of 2, so their copies move 2 B less each.
    TrainingConfig fp8 = tp2();
    fp8.precision = Precision::fp8;
    const OperationPlan f = plan_operations(m, p, fp8);
    double own = 0, module_input = 0;
    for (int i = 0; i < f.layer_gemm_count; ++i) {
        const GemmOp& g = f.layer_gemms[static_cast<std::size_t>(i)];
        (g.reads_block_input ? module_input : own) += 5 * g.k;
    }
    EXPECT_GT(module_input, 0);
    EXPECT_GT(own, 0);
    EXPECT_DOUBLE_EQ(f.layer_forward_bytes_per_token - sp.layer_forward_bytes_per_token,
                     own + 2 * 5 * 1000 / 2.0 - 2 * 2 * 1000);
    // Which linears read the block input is their place, not their width: Qwen3 0.6B's
    // output projection at tp 2 reads 2048 / 2 = d = 1024 features, yet casts its own input.
    const ModelSpec qwen = find_model("qwen3-0.6b");
    const OperationPlan qf = plan_operations(qwen, count_parameters(qwen), fp8);
    int reading = 0;
    for (int i = 0; i < qf.layer_gemm_count; ++i)
        reading += qf.layer_gemms[static_cast<std::size_t>(i)].reads_block_input ? 1 : 0;
    EXPECT_EQ(reading, 5);  // q, k, v, gate, up
    EXPECT_EQ(qf.layer_gemms[3].k, 1024.0);
    EXPECT_FALSE(qf.layer_gemms[3].reads_block_input);
}

// Async tensor parallel: each of the forward's fused gathers and scatters shows only the
// transfer beyond (tp − 1)/tp of its matmul. Two GPUs at tp 2 leave one data-parallel rank, so FSDP
// moves nothing and every exposed microsecond is tensor parallel's.
TEST(TensorParallel, AsyncOverlapsTheFusedCollectivesByHand) {
    const ModelSpec m = test::tiny_model();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    TrainingConfig vanilla = test::tiny_config();
    vanilla.tensor_parallel = 2;
    vanilla.torch_compile = true;
    TrainingConfig async = vanilla;
    async.async_tensor_parallel = true;
    const StepBreakdown v = estimate_step(m, hw, cal, vanilla), a = estimate_step(m, hw, cal, async);
    ASSERT_EQ(v.grad_accum, 4);
    // Vanilla, per micro-batch (CollectivesByHand): 1 µs per gather or scatter, 12 µs a
    // layer with full checkpointing, 4 layers and the root's 4 µs.
    EXPECT_NEAR(v.exposed_comm_s, 4 * 52e-6, 1e-12);
    // Async, on the rank's slice (q, k, v 500 wide, f 1500) at 5e14 FLOP/s and 1000 tokens:
    // q|k|v 6 µs, o 2, gate|up 12, down 6. Half of each hides a transfer, so every gather
    // and scatter of the forward, and of full checkpointing's recompute of it, hides (o's
    // 1 µs exactly). Backward keeps its two pairs: 4 µs a layer, 16 for the four, 4 for the
    // root: 20 µs per micro-batch.
    EXPECT_NEAR(a.exposed_comm_s, 4 * 20e-6, 1e-12);
    // The same bytes move: only what shows changes.
    EXPECT_DOUBLE_EQ(a.model_parallel_comm_s, v.model_parallel_comm_s);
    // Memory-bound work: the fused collectives skip the rearranging copies (2 × 2 B × d a
    // token each) for a copy of the rank's own half into the symmetric buffer (2 × 2 B × d
    // / 2) or a sum of the partials (2 B × d read, d / 2 written): 16 000 → 10 000 B a token
    // and layer, forward and recompute: 12 000 B × 1000 tokens × 4 layers = 4.8e7 B at 5e12
    // B/s, 9.6 µs per micro-batch.
    EXPECT_NEAR(v.memory_bound_s - a.memory_bound_s, 4 * 9.6e-6, 1e-12);
    // Op-level checkpointing recomputes the gathers unfused: 2 µs a layer on top of the
    // backward's 4, 24 + 4 µs per micro-batch.
    TrainingConfig sel = async;
    sel.activation_checkpointing = Checkpointing::selective;
    EXPECT_NEAR(estimate_step(m, hw, cal, sel).exposed_comm_s, 4 * 28e-6, 1e-12);
    // The rule: async tensor parallel needs torch.compile (and tensor and sequence parallel).
    async.torch_compile = false;
    EXPECT_EQ(check_config(m, hw, async), ConfigIssue::async_tensor_parallel);
}

TEST(ContextParallel, SplitsTheSequenceNotTheWork) {
    const ModelSpec m = test::tiny_model();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    TrainingConfig cp = test::tiny_config();  // 2 GPUs
    cp.context_parallel = 2;
    const StepBreakdown s = estimate_step(m, hw, cal, cp);
    const StepBreakdown one = estimate_step(m, hw, cal, test::tiny_config());
    EXPECT_EQ(s.data_parallel, 1);
    EXPECT_EQ(s.grad_accum, 4);  // 4000 tokens of one rank's 1000-token micro-batches
    // Each GPU computes half of each sequence for twice the micro-batches: the same GEMM and
    // attention work per step at the tiny GPU's flat laws.
    EXPECT_NEAR(s.gemm_s / one.gemm_s, 1.0, 1e-9);
    EXPECT_NEAR(s.attention_s / one.attention_s, 1.0, 1e-9);
    // Ring attention per layer and micro-batch: the keys and values of 500 tokens × 1000
    // wide in bf16 (2e6 B per rank) all-gathered (1e6 B of the 4e6 B buffer arrive: 2 µs,
    // forward, again in backward and in the recompute) and 2 hops of their fp32 gradients
    // (4e6 B each, 8 µs): 14 µs per layer, 56 µs per micro-batch, 224 µs per step.
    EXPECT_NEAR(s.model_parallel_comm_s, 224e-6, 1e-12);
    // Activations per GPU halve with the tokens.
    EXPECT_LT(s.memory.activations_gib, 0.6 * one.memory.activations_gib);
}

// Ulysses: all-to-alls trade the sequence split for a head split (DeepSpeed ALST).
TEST(ContextParallel, UlyssesAllToAllsByHand) {
    const ModelSpec m = test::tiny_model();  // 10 heads, 10 key/value heads of 100: q = kv = 1000 wide
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    TrainingConfig u = test::tiny_config();  // 2 GPUs, 1000-token sequences, 4000 tokens a step
    u.context_parallel = 2;
    u.context_parallel_method = ContextParallelMethod::ulysses;
    const StepBreakdown s = estimate_step(m, hw, cal, u);
    EXPECT_EQ(s.grad_accum, 4);
    // Per layer and micro-batch: q, k, v and the output, each 500 tokens × 1000 × 2 B = 1e6 B
    // a rank, half of it to the other rank at 1e12 B/s: 0.5 µs each, 2 µs forward, 2 µs
    // backward, 2 µs in full checkpointing's recompute; 4 layers, 4 micro-batches: 96 µs.
    EXPECT_NEAR(s.model_parallel_comm_s, 96e-6, 1e-12);
    EXPECT_GE(s.exposed_comm_s, s.model_parallel_comm_s);
    // The same attention work as the ring's, at the whole sequence's kernel length: on a
    // GPU whose attention rate grows with length (the h100 default) Ulysses' kernels run
    // faster than the ring's half-length blocks.
    TrainingConfig ring = u;
    ring.context_parallel_method = ContextParallelMethod::ring;
    const HardwareProfile h100 = find_hardware("h100");
    const Calibration h100_cal = default_calibration(h100);
    const ModelSpec llama = find_model("llama-3.1-8b");
    TrainingConfig big = ring;
    big.gpus = 8;
    big.context_parallel = 8;
    big.seq_len = 65536;
    big.global_batch_tokens = 0;
    const StepBreakdown r8 = estimate_step(llama, h100, h100_cal, big);
    big.context_parallel_method = ContextParallelMethod::ulysses;  // 32 heads, 8 key/value heads
    const StepBreakdown u8 = estimate_step(llama, h100, h100_cal, big);
    EXPECT_LT(u8.attention_s, r8.attention_s);
    EXPECT_NEAR(u8.gemm_s, r8.gemm_s, 1e-12 * r8.gemm_s);
    // Each rank's all-to-alls: q and the output 4096 wide, k and v 1024 (8 key/value heads
    // for 8 ranks: none repeated), of its 8,192 tokens; forward, backward and the recompute
    // of 32 layers, one micro-batch.
    const double fwd = 2 * all_to_all_time_s(2.0 * 8192 * 4096, 8, 8, h100_cal) +
                       2 * all_to_all_time_s(2.0 * 8192 * 1024, 8, 8, h100_cal);
    EXPECT_NEAR(u8.model_parallel_comm_s, 32 * 3 * fwd, 1e-9 * fwd);
}

TEST(ParallelRules, LayoutsTorchtitanRuns) {
    const ModelSpec m = find_model("llama-3.1-70b");
    const HardwareProfile hw = find_hardware("h100");
    TrainingConfig c;
    c.gpus = 256;
    c.tensor_parallel = 8;
    c.micro_batch = 16;
    EXPECT_EQ(check_config(m, hw, c), ConfigIssue::none);
    c.tensor_parallel = 16;  // beyond a node of 8
    EXPECT_EQ(check_config(m, hw, c), ConfigIssue::tensor_parallel_node);
    c.tensor_parallel = 8;
    c.context_parallel = 2;
    c.seq_len = 8200;  // not a multiple of 8 × 2 × 2
    EXPECT_EQ(check_config(m, hw, c), ConfigIssue::parallel_seq_len);
    EXPECT_NE(test::error_of([&] { validate_config(m, hw, c); }).find("nearest valid: 8192"), std::string::npos);
}

TEST(Layouts, RankedFastestFirstAndEachAsEstimated) {
    Scenario s{test::tiny_model(), test::tiny_hardware(), {}, test::tiny_config()};
    s.calibration.calibration = test::tiny_calibration();
    s.config.gpus = 8;
    s.config.global_batch_tokens = 16000;
    LayoutSearch search;
    search.intervals = 2;
    search.uncertainty.samples = 50;
    const LayoutRanking r = rank_layouts(s, search);
    // 8 GPUs fill one node: HSDP is FSDP there and is not tried again. tp in 1, 2, 4, 8;
    // cp 1, and 2, 4, 8 each by ring and by Ulysses; micro-batch 1, 2, 4, 8; three
    // checkpointing modes.
    EXPECT_EQ(r.tried, 4 * (1 + 3 * 2) * 4 * 3);
    EXPECT_EQ(r.global_batch_tokens, 16000);
    EXPECT_EQ(r.tried, r.invalid + r.not_fitting + static_cast<std::int64_t>(r.rows.size()));
    ASSERT_FALSE(r.rows.empty());
    int ulysses = 0;
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const LayoutRow& row = r.rows[i];
        EXPECT_TRUE(row.step.memory.fits);
        EXPECT_NE(row.config.tensor_parallel, 4);  // 10 heads: tp 4 and 8 break a rule
        EXPECT_NE(row.config.tensor_parallel, 8);
        EXPECT_EQ(row.step.tokens_per_step, 16000);
        if (i > 0) {
            EXPECT_GE(r.rows[i - 1].step.tokens_per_s, row.step.tokens_per_s);
        }
        EXPECT_EQ(estimate_step(s.model, s.hardware, s.coefficients(), row.config).step_time_s, row.step.step_time_s);
        EXPECT_EQ(row.mesh.gpus(), 8);
        EXPECT_EQ(row.mesh.ulysses, row.config.context_parallel_method == ContextParallelMethod::ulysses);
        if (row.mesh.ulysses) {
            EXPECT_GT(row.config.context_parallel, 1);
            EXPECT_EQ(row.config.tensor_parallel, 1);  // Ulysses under tensor parallel breaks a rule
            ++ulysses;
        }
    }
    EXPECT_GT(ulysses, 0);  // 10 heads: Ulysses at cp 2 fits
    // The leading rows carry an interval; a fitted calibration without covariance has
    // none to draw from, so it collapses on the estimate.
    EXPECT_NEAR(r.rows[0].tokens_per_s.p50, r.rows[0].step.tokens_per_s, 1e-6 * r.rows[0].step.tokens_per_s);
    if (r.rows.size() > 2) {
        EXPECT_EQ(r.rows[2].tokens_per_s.p90, 0);
    }
    LayoutSearch bad;
    bad.strategies = {Strategy::ddp};
    EXPECT_NE(test::error_of([&] { (void)rank_layouts(s, bad); }).find("valid: fsdp, hsdp"), std::string::npos);
    bad = {};
    bad.micro_batch = {0};
    EXPECT_NE(test::error_of([&] { (void)rank_layouts(s, bad); }).find("micro_batch contains 0"), std::string::npos);
    bad = {};
    bad.context_parallel_methods.clear();
    EXPECT_NE(test::error_of([&] { (void)rank_layouts(s, bad); }).find("context_parallel_methods is empty"),
              std::string::npos);
}

}  // namespace
}  // namespace libscale
