// The per-operation laws (compute_model.hpp) against hand-computed values on the tiny
// fixtures, and against the public kernel figures the defaults come from.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "libscale/estimate/compute_model.hpp"
#include "libscale/io/catalog.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

using test::tiny_calibration;
using test::tiny_config;
using test::tiny_hardware;
using test::tiny_model;

// Tiny GPU: 1e15 FLOP/s, 10 TB/s; tiny calibration: GEMM and attention at 0.5, HBM 0.5
// (5e12 B/s), no SM count (no waves), k_half 0.

TEST(GemmLaw, FlatRateAndMemoryRoofline) {
    const HardwareProfile hw = tiny_hardware();
    const Calibration cal = tiny_calibration();
    // 2·1000³ = 2e9 FLOPs at 5e14 FLOP/s = 4 µs; operands and result 2·3e6 B = 1.2 µs.
    EXPECT_REL(gemm_time_s(hw, cal, 1000, 1000, 1000), 4e-6);
    // K = 1: 2e6 FLOPs (4 ns) but 2·(1000 + 1000 + 1e6) B = 2,004,000 B at 5e12 B/s.
    EXPECT_REL(gemm_time_s(hw, cal, 1000, 1000, 1), 2'004'000.0 / 5e12);
}

TEST(GemmLaw, KSaturationAndFrameworkEfficiency) {
    const HardwareProfile hw = tiny_hardware();
    Calibration cal = tiny_calibration();
    cal.gemm.k_half = 1000;  // K/(K + 1000) = 1/2 at K = 1000: twice the time
    EXPECT_REL(gemm_time_s(hw, cal, 1000, 1000, 1000), 8e-6);
    cal.gemm.k_half = 0;
    cal.framework_efficiency = 0.5;  // every rate halves
    EXPECT_REL(gemm_time_s(hw, cal, 1000, 1000, 1000), 8e-6);
}

TEST(GemmLaw, WholeWavesThenAStreamKTail) {
    HardwareProfile hw = tiny_hardware();
    hw.sm_count = 100;  // per SM 1e13 FLOP/s, 5e12 at eta 0.5
    Calibration cal = tiny_calibration();
    const double wave = 13.1072e-6;  // one 128 × 256 tile, K = 1000: 65,536,000 FLOPs at 5e12
    // 1280 × 2560 = 10 × 10 tiles of 128 × 256: one full wave of 100 tiles, the ideal rate.
    EXPECT_REL(gemm_time_s(hw, cal, 1280, 2560, 1000), wave);
    EXPECT_REL(gemm_time_s(hw, cal, 1280, 2560, 1000), 2.0 * 1280 * 2560 * 1000 / 5e14);
    // One more row: 110 tiles, a last wave of 10 (under half full): that wave and the one
    // before are spread stream-K, 110 × 1000 K steps over 100 SMs, not a second wave.
    EXPECT_REL(gemm_time_s(hw, cal, 1281, 2560, 1000), 1.1 * wave);
    // 150 tiles: the last wave is half full, so it runs data-parallel as a whole wave.
    EXPECT_REL(gemm_time_s(hw, cal, 1920, 2560, 1000), 2 * wave);
    // 310 tiles: two data-parallel waves, then the third and the 10 left over stream-K.
    EXPECT_REL(gemm_time_s(hw, cal, 3968, 2560, 1000), 3.1 * wave);
    // With k_half 100: a data-parallel wave pays it once per tile; the stream-K part once for
    // its epilogue and twice for the fixup (partials written, then read back).
    cal.gemm.k_half = 100;
    EXPECT_REL(gemm_time_s(hw, cal, 1280, 2560, 1000), 1.1 * wave);
    EXPECT_REL(gemm_time_s(hw, cal, 1281, 2560, 1000), (1100.0 + 300.0) / 1000 * wave);
    EXPECT_REL(gemm_time_s(hw, cal, 3968, 2560, 1000), (2 * 1100.0 + 1100.0 + 300.0) / 1000 * wave);
}

TEST(GemmLaw, AFewTilesAreSpreadOverEverySm) {
    HardwareProfile hw = tiny_hardware();
    hw.sm_count = 100;
    const Calibration cal = tiny_calibration();
    // Forty 128 × 256 tiles with K = 10,000: 40 × 10,000 / 100 = 4000 K steps per SM,
    // 4000 · 2·128·256 / 5e12 = 52.4288 µs, above the bytes' 2·(1280·1e4 + 1e4·1024) + 2·1280·1024
    // = 48,621,440 B at 5e12 B/s (9.72 µs).
    EXPECT_REL(gemm_time_s(hw, cal, 1280, 1024, 10'000), 4000 * 2.0 * 128 * 256 / 5e12);
    // One tile with K = 100,000: 1000 K steps per SM (13.1 µs), but the operands
    // 2·(128·1e5 + 1e5·256) = 76,800,000 B and the result 65,536 B take 15.4 µs: memory-bound.
    EXPECT_REL(gemm_time_s(hw, cal, 128, 256, 100'000), (76'800'000.0 + 65'536.0) / 5e12);
}

TEST(GemmLaw, Fp8UsesTheFp8PeakAndOneByteOperands) {
    HardwareProfile hw = tiny_hardware();
    hw.peak_fp8_tflops = 2000;  // 2e15
    Calibration cal = tiny_calibration();
    cal.gemm.fp8_eta_max = 0.4;  // 8e14 FLOP/s
    EXPECT_REL(gemm_time_s(hw, cal, 1000, 1000, 1000, true), 2e9 / 8e14);
    // k_half is a K-equivalent at the bf16 rate; at twice the FLOP rate it doubles.
    cal.gemm.k_half = 500;  // fp8: 1000 → K/(K + 1000) = 1/2
    EXPECT_REL(gemm_time_s(hw, cal, 1000, 1000, 1000, true), 2 * 2e9 / 8e14);
    // K = 1, memory-bound: operands 1 B, result 2 B: 1000 + 1000 + 2e6 B.
    cal.gemm.k_half = 0;
    EXPECT_REL(gemm_time_s(hw, cal, 1000, 1000, 1, true), 2'002'000.0 / 5e12);
}

TEST(AttentionLaw, FlopsRatesHalfLengthsAndHeadDim) {
    const HardwareProfile hw = tiny_hardware();
    Calibration cal = tiny_calibration();
    // 1000 tokens, h·d_h = 1000, span 500: 4·1000·1000·500 = 2e9 FLOPs forward at 5e14;
    // backward 2.5 × 2e9 at the same rate.
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 100, 500, 1000, false), 4e-6);
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 100, 500, 1000, true), 1e-5);
    // s/(s + s½) with s½ = s: half the rate.
    cal.attention.forward_half_seq = 1000;
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 100, 500, 1000, false), 8e-6);
    // head_dim 64 with c = 20: (64/84) / (128/148) = 0.88095... of the head_dim-128 rate.
    cal.attention.forward_half_seq = 0;
    cal.attention.head_dim_half = 20;
    const double g = (64.0 / 84.0) / (128.0 / 148.0);
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 64, 500, 1000, false), 4e-6 / g);
    // Another kernel: FlashAttention in Triton at 0.419 of FA2 with s½ = 323.
    cal.attention.head_dim_half = 0;
    const double rate = 1e15 * 0.5 * 0.419 * 1000.0 / 1323.0;
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 128, 500, 1000, false, AttentionKernel::flash_triton), 2e9 / rate);
}

// A calibration knows which kernel its attention law measured: that kernel runs at exactly
// the law, the others at their published ratio relative to it (cuDNN 1.607 of FA2,
// FlashAttention in Triton 0.419), each at its own half length.
TEST(AttentionLaw, RatiosRelativeToTheMeasuredKernel) {
    const HardwareProfile hw = tiny_hardware();
    Calibration cal = tiny_calibration();  // eta 0.5, half lengths 0
    cal.attention_kernel = AttentionKernel::cudnn;
    // cuDNN measured: cuDNN at the law itself (5e14 FLOP/s, no half length), not 1.607 × it.
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 128, 500, 1000, false, AttentionKernel::cudnn), 4e-6);
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 128, 500, 1000, true, AttentionKernel::cudnn), 1e-5);
    // FA2 from a cuDNN law: 1/1.607 of it, at FA2's own half lengths (408 forward, 608 backward).
    const double fa2_fwd = 1e15 * 0.5 / 1.607 * 1000.0 / 1408.0, fa2_bwd = 1e15 * 0.5 / 1.607 * 1000.0 / 1608.0;
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 128, 500, 1000, false), 2e9 / fa2_fwd);
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 128, 500, 1000, true), 5e9 / fa2_bwd);
    // Triton from a cuDNN law: 0.419 / 1.607.
    const double triton = 1e15 * 0.5 * 0.419 / 1.607 * 1000.0 / 1323.0;
    EXPECT_REL(attention_time_s(hw, cal, 1000, 1000, 128, 500, 1000, false, AttentionKernel::flash_triton),
               2e9 / triton);
    // with_attention_kernel carries a law to another kernel's scale: the FA2 law of the
    // tiny calibration, as cuDNN, predicts cuDNN as a FA2 law with cuDNN's ratio did.
    const Calibration fa2 = tiny_calibration();
    const Calibration as_cudnn = with_attention_kernel(fa2, AttentionKernel::cudnn);
    EXPECT_EQ(as_cudnn.attention_kernel, AttentionKernel::cudnn);
    EXPECT_REL(as_cudnn.attention.forward_eta_max, 0.5 * 1.607);
    EXPECT_REL(as_cudnn.attention.backward_half_seq, 385);
    for (const bool backward : {false, true})
        EXPECT_REL(attention_time_s(hw, as_cudnn, 1000, 1000, 128, 500, 1000, backward, AttentionKernel::cudnn),
                   attention_time_s(hw, fa2, 1000, 1000, 128, 500, 1000, backward, AttentionKernel::cudnn));
    EXPECT_EQ(with_attention_kernel(fa2, AttentionKernel::flash2).attention.forward_eta_max, 0.5);
}

TEST(MemoryLaw, BytesOverAchievedBandwidth) {
    EXPECT_REL(memory_time_s(tiny_hardware(), tiny_calibration(), 5e12), 1.0);
}

TEST(OperationPlan, TinyLayerEagerAndCompiled) {
    const ModelSpec m = tiny_model();
    TrainingConfig c = tiny_config();
    const OperationPlan o = plan_operations(m, count_parameters(m), c);
    // q, k, v, o, gate, up, down; torchtitan recomputes the even-numbered ones (k, o, up).
    ASSERT_EQ(o.layer_gemm_count, 7);
    EXPECT_EQ(o.layer_gemms[4].n, 3000);  // gate: N = f
    EXPECT_EQ(o.layer_gemms[6].k, 3000);  // down: K = f
    EXPECT_TRUE(o.layer_gemms[1].selective_recompute && o.layer_gemms[3].selective_recompute &&
                o.layer_gemms[5].selective_recompute);
    EXPECT_FALSE(o.layer_gemms[0].selective_recompute || o.layer_gemms[2].selective_recompute);
    // Eager, per token: 2 RMSNorms 2·36·1000 + rotary 20·(1000 + 1000) + SwiGLU 10·3000 +
    // 2 residual adds 2·6·1000 = 154,000 B forward; backward 2·72·1000 + 40,000 + 16·3000
    // + 12,000 = 244,000 B.
    EXPECT_REL(o.layer_forward_bytes_per_token, 154'000.0);
    EXPECT_REL(o.layer_backward_bytes_per_token, 244'000.0);
    // Kernels: norms 2·7, rotary 2·5, SwiGLU 2, residual 2, attention 1, GEMMs 7, FSDP2
    // copy-out 1 = 37 forward; backward 2·10 + 10 + 3 + 2 + 3 + 2·7 + 1 = 53.
    EXPECT_EQ(o.layer_forward_kernels, 37);
    EXPECT_EQ(o.layer_backward_kernels, 53);
    // FSDP2 copy-out: the layer's 13,002,000 bf16 parameters read and written per gather.
    EXPECT_REL(o.fsdp_layer_forward_bytes, 2.0 * 2.0 * 13'002'000.0);
    EXPECT_REL(o.fsdp_layer_backward_bytes, 2.0 * 2.0 * 13'002'000.0);
    EXPECT_EQ(o.layer_forward_fixed_bytes, 0);
    EXPECT_EQ(o.fsdp_root_gather_bytes, 0);  // generic: the copy-out alone
    // Compiled: norms 2·4·1000, rotary 4·2000, SwiGLU 6·3000, residuals folded into the
    // norms (2·2·1000) = 38,000 B; backward 2·8·1000 + 8000 + 10·3000 + 4000 = 58,000 B.
    c.torch_compile = true;
    const OperationPlan k = plan_operations(m, count_parameters(m), c);
    EXPECT_REL(k.layer_forward_bytes_per_token, 38'000.0);
    EXPECT_REL(k.layer_backward_bytes_per_token, 58'000.0);
    // Head, eager loss over 50,000 logits: final norm 36·1000 + 18·50,000 forward.
    EXPECT_REL(o.head_forward_bytes_per_token, 936'000.0);
    EXPECT_REL(o.head_backward_bytes_per_token, 72'000.0 + 22.0 * 50'000);
}

TEST(OperationPlan, Fp8CastsPerLinear) {
    ModelSpec m = tiny_model();
    TrainingConfig c = tiny_config();
    const OperationPlan bf16 = plan_operations(m, count_parameters(m), c);
    c.precision = Precision::fp8;
    const OperationPlan fp8 = plan_operations(m, count_parameters(m), c);
    // Forward 5·K per linear: ΣK = 6·1000 + 3000 = 9000 → 45,000 B per token. Backward
    // 8·N + 2·K: ΣN = 4·1000 + 2·3000 + 1000 = 11,000 → 88,000 + 18,000.
    EXPECT_REL(fp8.layer_forward_bytes_per_token - bf16.layer_forward_bytes_per_token, 45'000.0);
    EXPECT_REL(fp8.layer_backward_bytes_per_token - bf16.layer_backward_bytes_per_token, 106'000.0);
    // Weights: amax, cast and transposed copy, 7 B per element, ΣK·N = 13e6.
    EXPECT_REL(fp8.layer_forward_fixed_bytes - bf16.layer_forward_fixed_bytes, 7.0 * 13e6);
    EXPECT_TRUE(fp8.layer_gemms[0].fp8);
    EXPECT_FALSE(fp8.head_gemm.fp8);  // the output projection stays bf16
}

// One micro-batch of the tiny model (t = 1000, span 500, full checkpointing, FSDP):
//   GEMMs per layer forward 2·1000·13e6 / 5e14 = 52 µs, backward (dgrad + wgrad) 104 µs;
//   attention 4 µs forward, 10 µs backward;
//   memory forward 154,000·1000/5e12 = 30.8 µs + copy-out 52,008,000/5e12 = 10.4016 µs;
//   memory backward 244,000·1000/5e12 = 48.8 µs + 10.4016 µs;
//   recompute (full) 52 + 4 + 30.8 = 86.8 µs.
//   Layer forward 97.2016 µs, backward 104 + 10 + 59.2016 + 86.8 = 260.0016 µs.
//   Head: output GEMM 2·1000·50,000·1000/5e14 = 200 µs per pass; loss and norm 936,000 B
//   per token forward (187.2 µs) and 1,172,000 B backward (234.4 µs): 387.2 and 634.4 µs.
//   Embedding: 4000 B per token forward (0.8 µs); backward 6000 B per token plus the
//   table's gradient zero-filled (2·50,000·1000 B): 21.2 µs.
TEST(ComputeTimes, TinyMicroBatchByHand) {
    const ModelSpec m = tiny_model();
    const ComputeTimes t = compute_times(m, count_parameters(m), tiny_hardware(), tiny_calibration(), tiny_config());
    EXPECT_REL(t.layer_forward_s, 97.2016e-6);
    EXPECT_REL(t.layer_backward_s, 260.0016e-6);
    EXPECT_REL(t.head_forward_s, 387.2e-6);
    EXPECT_REL(t.head_backward_s, 634.4e-6);
    EXPECT_REL(t.embed_forward_s, 0.8e-6);
    EXPECT_REL(t.embed_backward_s, 21.2e-6);
    EXPECT_REL(t.micro_batch_s(), 4 * (97.2016e-6 + 260.0016e-6) + 387.2e-6 + 634.4e-6 + 0.8e-6 + 21.2e-6);
    // By kind: GEMMs 4·(52 + 104 + 52) + 3·200 µs; attention 4·(4 + 10 + 4) µs.
    EXPECT_REL(t.gemm_s, 4 * 208e-6 + 600e-6);
    EXPECT_REL(t.attention_s, 4 * 18e-6);
    EXPECT_REL(t.memory_s, t.micro_batch_s() - t.gemm_s - t.attention_s);
    EXPECT_EQ(t.host_wait_s, 0.0);
}

TEST(ComputeTimes, CheckpointingRecomputesWhatItDiscards) {
    const ModelSpec m = tiny_model();
    const ParameterCounts p = count_parameters(m);
    TrainingConfig c = tiny_config();
    const auto backward = [&] { return compute_times(m, p, tiny_hardware(), tiny_calibration(), c).layer_backward_s; };
    const double full = backward();
    c.activation_checkpointing = Checkpointing::none;
    const double none = backward();
    EXPECT_REL(full - none, 86.8e-6);
    // Selective: k, o, up recomputed (4 + 4 + 12 µs) and every memory-bound op (30.8 µs).
    c.activation_checkpointing = Checkpointing::selective;
    EXPECT_REL(backward() - none, 50.8e-6);
    // Full checkpointing of every other layer: half the recompute on average.
    c.activation_checkpointing = Checkpointing::full;
    c.checkpoint_every = 2;
    EXPECT_REL(backward() - none, 43.4e-6);
}

// Hugging Face transformers' checkpointing stops its recompute before the layer's last GEMM
// (down, 12 µs here) and residual add: full − none = GEMMs 52 − 12 µs + attention 4 µs + the
// forward's memory-bound bytes but one add, (154,000 − 6,000) B × 1000 tokens at 0.62 of
// 5e12 B/s.
TEST(ComputeTimes, TransformersRecomputeStopsEarly) {
    const ModelSpec m = tiny_model();
    const ParameterCounts p = count_parameters(m);
    TrainingConfig c = tiny_config();
    c.implementation = Implementation::transformers;
    const auto backward = [&] { return compute_times(m, p, tiny_hardware(), tiny_calibration(), c).layer_backward_s; };
    const double full = backward();
    c.activation_checkpointing = Checkpointing::none;
    EXPECT_REL(full - backward(), 40e-6 + 4e-6 + 148'000.0 * 1000 / 0.62 / 5e12);
    // torchtitan recomputes the whole layer (its byte counts differ, its GEMMs do not).
    c.implementation = Implementation::torchtitan;
    const ComputeTimes none = compute_times(m, p, tiny_hardware(), tiny_calibration(), c);
    c.activation_checkpointing = Checkpointing::full;
    const ComputeTimes all = compute_times(m, p, tiny_hardware(), tiny_calibration(), c);
    EXPECT_REL(all.gemm_s - none.gemm_s, 4 * 52e-6);
}

// Transformer Engine's fused RoPE moves 4 B per q/k element each way where torchtitan's
// fp32 cos/sin rotary of a q/k-normed model moves 52 forward and 72 backward (Qwen3-32B:
// q 8192 + kv 1024 wide); the rest of the layer's chains are the same.
TEST(OperationPlan, TransformerEngineFusesRope) {
    const ModelSpec m = find_model("qwen3-32b");
    const ParameterCounts p = count_parameters(m);
    TrainingConfig c;
    c.gpus = 8;
    c.implementation = Implementation::torchtitan;
    const OperationPlan titan = plan_operations(m, p, c);
    c.implementation = Implementation::transformer_engine;
    const OperationPlan te = plan_operations(m, p, c);
    const double qkv = 8192 + 1024;
    EXPECT_REL(titan.layer_forward_bytes_per_token - te.layer_forward_bytes_per_token, (52 - 4) * qkv);
    EXPECT_REL(titan.layer_backward_bytes_per_token - te.layer_backward_bytes_per_token, (72 - 4) * qkv);
    EXPECT_REL(titan.layer_forward_kernels - te.layer_forward_kernels, 2 * (7 - 1));
    EXPECT_EQ(parse_implementation("transformer_engine"), Implementation::transformer_engine);
}

// FSDP2's copies on the compute stream, per parameter (docs/model.md): with one GPU a
// gather casts fp32 to bf16 (6 B at 0.80 of a copy) and copies (4 B), a reduction
// chunk_cats (2 + reduce bytes, at 0.46) and copies (2 × reduce bytes); with more GPUs the
// copy-out (4 B) and the chunk_cat stay. The root unit: one gather, one reduction.
TEST(OperationPlan, Fsdp2CopiesByWorldSize) {
    const ModelSpec m = tiny_model();
    const ParameterCounts p = count_parameters(m);
    const double layer = static_cast<double>(p.per_layer), root = static_cast<double>(p.root_unit);
    TrainingConfig c = tiny_config();
    c.implementation = Implementation::transformers;
    c.gpus = 1;
    c.global_batch_tokens = 0;
    c.reduce_bytes = 4;
    OperationPlan o = plan_operations(m, p, c);
    const double gather1 = 6 / 0.80 + 4, reduce1 = 6 / 0.46 + 8;
    EXPECT_REL(o.fsdp_layer_forward_bytes, gather1 * layer);
    EXPECT_REL(o.fsdp_layer_backward_bytes, (gather1 + reduce1) * layer);  // gathered again: resharded
    EXPECT_REL(o.fsdp_root_gather_bytes, gather1 * root);
    EXPECT_REL(o.fsdp_root_reduce_bytes, reduce1 * root);
    c.gpus = 8;
    c.reduce_bytes = 2;
    o = plan_operations(m, p, c);
    EXPECT_REL(o.fsdp_layer_forward_bytes, 4 * layer);
    EXPECT_REL(o.fsdp_layer_backward_bytes, (4 + 4 / 0.46) * layer);
    EXPECT_REL(o.fsdp_root_reduce_bytes, 4 / 0.46 * root);
    c.reshard_after_forward = false;
    EXPECT_REL(plan_operations(m, p, c).fsdp_layer_backward_bytes, 4 / 0.46 * layer);
    // bf16 weights: no cast at a one-GPU gather.
    c.gpus = 1;
    c.master_weights = MasterWeights::bf16;
    EXPECT_REL(plan_operations(m, p, c).fsdp_layer_forward_bytes, 4 * layer);
    // The per-part times: FSDP2's copies and the loss are reported within memory_s.
    const ComputeTimes t = compute_times(m, p, tiny_hardware(), tiny_calibration(), c);
    EXPECT_GT(t.fsdp_copy_s, 0);
    EXPECT_REL(t.loss_s, (14.0 + 22.0) * 50'000 * 1000 / 0.62 / 5e12);
    EXPECT_LT(t.fsdp_copy_s + t.loss_s, t.memory_s);
}

TEST(ComputeTimes, HostBoundWhenKernelsAreShort) {
    const ModelSpec m = tiny_model();
    Calibration cal = tiny_calibration();
    cal.kernel_overhead_s = 1e-3;  // 37 kernels forward: 37 ms ≫ 97 µs of device time
    const ComputeTimes t = compute_times(m, count_parameters(m), tiny_hardware(), cal, tiny_config());
    EXPECT_REL(t.layer_forward_s, 37e-3);
    EXPECT_GT(t.host_wait_s, 4 * (37e-3 - 97.2016e-6));
}

TEST(ComputeTimes, SlidingWindowLayersAttendFewerKeys) {
    ModelSpec m = tiny_model();
    TrainingConfig c = tiny_config();
    c.seq_len = 4000;  // span 2000, 4000 tokens per micro-batch
    c.global_batch_tokens = 0;
    const auto attention = [&] {
        return compute_times(m, count_parameters(m), tiny_hardware(), tiny_calibration(), c).attention_s;
    };
    // Full causal: per layer forward 4·4000·1000·2000 / 5e14 = 64 µs, backward 160 µs,
    // recompute 64 µs.
    EXPECT_REL(attention(), 4 * (64e-6 + 160e-6 + 64e-6));
    // A 1000-token window on two of the four layers: position i attends min(i, 1000) keys,
    // 1000 − 1000²/(2·4000) = 875 on average instead of 2000.
    m.sliding_window = 1000;
    m.sliding_window_layers = 2;
    EXPECT_REL(attention(), (2 * 288e-6 + 2 * 288e-6 * 875.0 / 2000.0));
}

TEST(ComputeTimes, Fp8LinearAgainstTorchaoPublishedSpeedups) {
    // torchao float8 README "Performance" (pytorch/ao@0cf1281, H100, Float8Linear with
    // dynamic tensorwise scaling, forward + backward, casts included, vs bf16): M,K,N =
    // 4096,8192,16384 runs 1.39× faster; 1024,2048,1024 runs at 0.80× (slower). The law on
    // the H100 defaults: three GEMMs each way plus the casts' bytes of plan_operations.
    const HardwareProfile hw = find_hardware("h100");
    const Calibration cal = default_calibration(hw);
    const auto linear = [&](double M, double K, double N, bool fp8) {
        double t = gemm_time_s(hw, cal, M, N, K, fp8) + gemm_time_s(hw, cal, M, K, N, fp8) +
                   gemm_time_s(hw, cal, K, N, M, fp8);
        if (fp8) t += memory_time_s(hw, cal, 5 * M * K + 8 * M * N + 2 * M * K + 7 * K * N);
        return t;
    };
    const double large = linear(4096, 8192, 16384, false) / linear(4096, 8192, 16384, true);
    const double small = linear(1024, 2048, 1024, false) / linear(1024, 2048, 1024, true);
    EXPECT_NEAR(large, 1.39, 0.25) << "large-shape fp8 speedup";
    EXPECT_LT(small, 1.0) << "small shapes: casts outweigh the faster GEMM";
    EXPECT_GT(large, small);
}

TEST(ComputeTimes, DefaultsReproduceTheirOwnSources) {
    // The GEMM default is derived from the best-shape matmul figure (MAMF) of
    // stas00/ml-engineering: H100 794.5 of 989 TFLOP/s at 2048×2048×13312; A100 271.2 of
    // 312 at 1024×10240×5120. The law must give them back at those shapes.
    for (const auto& [name, m, n, k, fraction] :
         {std::tuple{"h100", 2048.0, 2048.0, 13312.0, 0.803}, std::tuple{"a100", 1024.0, 10240.0, 5120.0, 0.869}}) {
        const HardwareProfile hw = find_hardware(name);
        Calibration kernel = default_calibration(hw);
        kernel.framework_efficiency = 1;  // a kernel alone: the default's trainer losses left out
        const double achieved = 2 * m * n * k / gemm_time_s(hw, kernel, m, n, k) / hw.peak_flops();
        EXPECT_NEAR(achieved, fraction, 0.002) << name;
    }
    // FlashAttention-2 on H100, head_dim 128, causal (flash-attention assets/flash3_fp16_fwd.png):
    // forward 335 TFLOP/s at 16k, 191 at 512.
    const HardwareProfile h100 = find_hardware("h100");
    Calibration cal = default_calibration(h100);
    cal.framework_efficiency = 1;
    const auto fwd_rate = [&](double s) {
        const double flops = 4.0 * s * 128 * (s / 2);
        return flops / attention_time_s(h100, cal, s, 128, 128, s / 2, s, false) / 1e12;
    };
    EXPECT_NEAR(fwd_rate(16384), 335, 335 * 0.03);
    EXPECT_NEAR(fwd_rate(512), 191, 191 * 0.03);
}

}  // namespace
}  // namespace libscale
