// Memory per GPU: model states by strategy and optimizer, activations by checkpointing
// mode, logits, FSDP buffers, the allocator's fragmentation, the fit status within the
// estimate's margin, and the does-not-fit error.
//
// Tiny model: P = 152,009,000; per layer 13,002,000; root 100,001,000; d = 1000,
// q = kv = 1000 wide, f = 3000 (SwiGLU), L = 4, V = 50,000; t = 1000 tokens.
#include <gtest/gtest.h>

#include <iomanip>
#include <sstream>
#include <string>

#include "libscale/estimate/fit_advice.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/error.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

using test::kGiB;

struct Memory : ::testing::Test {
    ModelSpec m = test::tiny_model();
    HardwareProfile hw = test::tiny_hardware();
    Calibration cal = test::tiny_calibration();
    TrainingConfig c = test::tiny_config();

    MemoryBreakdown run() const { return estimate_step(m, hw, cal, c).memory; }
};

// Bytes allocated in one phase.
double phase_bytes(const MemoryBreakdown& mem, MemoryPhase p) {
    return mem.phase_gib[static_cast<std::size_t>(p)] * kGiB;
}

// The tiny configuration (2 GPUs, FSDP, fp32 masters, AdamW, bf16 reduction, full
// checkpointing, 2 micro-batches per step), phase by phase, in bytes:
//   sharded fp32 parameters 4 · P / 2 = 304,018,000; AdamW states 8 · P / 2 = 608,036,000;
//   the sharded fp32 gradients of the first micro-batch 4 · P / 2 = 304,018,000 (alive in
//   every phase of the second: accumulation);
//   per token: a checkpointed layer keeps its input 2d = 2000 B; a whole layer (the
//   recomputed one) 2 · 20,000 = 40,000 B; the final norm 4d = 4000 B; backward's working
//   set 4d + 3 · 2f = 22,000 B (the MLP's gradients; attention's 6q + 4kv = 10,000 is less);
//   unsharded bf16: root 2 · 100,001,000 = 200,002,000, a layer 2 · 13,002,000 = 26,004,000.
//   forward:   states + grads + root + the current layer and its flat all-gather output
//              (252,010,000) + 1000 · (3 · 2000 + 40,000) = 1,514,082,000
//   loss:      states + grads + root + 1000 · (4 · 2000 + 4000) + 1000 · 50,000 · 12 B
//              = 2,028,074,000  (the peak)
//   backward:  states + grads + root + the output projection's and final norm's bf16
//              gradients 100,002,000 + the layer's 26,004,000 + the current and the
//              prefetched layer 52,008,000 (378,016,000 in all), and
//              at the last layer 1000 · (3 · 2000 + 40,000 + 4000 + 22,000) → 1,666,088,000;
//              at the one before, the previous layer's reduce-scatter input 26,004,000 and
//              1000 · (2 · 2000 + 66,000) → 1,690,092,000 (the largest);
//              at the first, nothing prefetched (−26,004,000) → 1,660,088,000
//   reduction: states + grads + the root's reduce-scatter input 200,002,000, its output
//              100,001,000 and the output's fp32 cast 200,002,000 (more than the bf16
//              gradients and the input, 400,004,000) = 1,716,077,000
//   optimizer: states + grads = 16 · P / 2 = 1,216,072,000
TEST_F(Memory, PeakIsTheLargestPhaseByHand) {
    const MemoryBreakdown mem = run();
    EXPECT_REL(phase_bytes(mem, MemoryPhase::forward), 1'514'082'000.0);
    EXPECT_REL(phase_bytes(mem, MemoryPhase::loss), 2'028'074'000.0);
    EXPECT_REL(phase_bytes(mem, MemoryPhase::backward), 1'690'092'000.0);
    EXPECT_REL(phase_bytes(mem, MemoryPhase::reduction), 1'716'077'000.0);
    EXPECT_REL(phase_bytes(mem, MemoryPhase::optimizer), 16.0 * 152'009'000.0 / 2.0);
    EXPECT_EQ(mem.peak_phase, MemoryPhase::loss);
    EXPECT_STREQ(to_string(mem.peak_phase), "loss");
    EXPECT_REL(mem.allocated_gib * kGiB, 2'028'074'000.0);
    // What is alive at the peak, by kind: the sharded fp32 parameters are the masters.
    EXPECT_REL(mem.weights_gib * kGiB, 304'018'000.0);
    EXPECT_REL(mem.grads_gib * kGiB, 304'018'000.0);
    EXPECT_REL(mem.optimizer_gib * kGiB, 608'036'000.0);
    EXPECT_REL(mem.activations_gib * kGiB, 12'000'000.0);
    EXPECT_REL(mem.logits_gib * kGiB, 600'000'000.0);
    EXPECT_REL(mem.buffers_gib * kGiB, 200'002'000.0);
    // The sharded state at the optimizer step is 16 B per parameter over N.
    c.gpus = 8;
    c.global_batch_tokens = 0;
    EXPECT_REL(phase_bytes(run(), MemoryPhase::optimizer), 16.0 * 152'009'000.0 / 8.0);
    c.gpus = 2;
    c.master_weights = MasterWeights::bf16;  // bf16 parameters 2, gradients 2, states 2 · 2
    EXPECT_REL(phase_bytes(run(), MemoryPhase::optimizer), 8.0 * 152'009'000.0 / 2.0);
}

TEST_F(Memory, GradientsAreNoneBeforeBackwardWithoutAccumulation) {
    // One micro-batch per step: zero_grad(set_to_none=True) left no gradients, so forward
    // and the loss hold 304,018,000 B less; backward holds the reduced layers' shards only.
    const MemoryBreakdown accumulating = run();
    c.global_batch_tokens = 2000;
    const MemoryBreakdown one = run();
    EXPECT_REL(phase_bytes(accumulating, MemoryPhase::loss) - phase_bytes(one, MemoryPhase::loss), 304'018'000.0);
    EXPECT_REL(phase_bytes(accumulating, MemoryPhase::forward) - phase_bytes(one, MemoryPhase::forward), 304'018'000.0);
    EXPECT_EQ(one.peak_phase, MemoryPhase::loss);
    EXPECT_EQ(one.grads_gib, 0.0);
    // Backward at the second layer: the two layers above reduced, 4 · 2 · 13,002,000 / 2 =
    // 52,008,000 B of gradients; gathered and unsharded buffers 378,016,000 and the previous
    // reduce-scatter input 26,004,000; 1000 · (2000 + 40,000 + 4000 + 22,000) of activations
    // (at the first layer 2,000,000 B less: one more shard, nothing prefetched, one input
    // fewer).
    EXPECT_REL(phase_bytes(one, MemoryPhase::backward), 912'054'000.0 + 52'008'000.0 + 404'020'000.0 + 68'000'000.0);
    // The reduction: every layer's gradient shard, 4 · 52,008,000 / 2 = 104,016,000 B.
    EXPECT_REL(phase_bytes(one, MemoryPhase::reduction), 912'054'000.0 + 104'016'000.0 + 500'005'000.0);
}

TEST_F(Memory, DdpAndZeroShardWhatTheyShard) {
    // DDP's reducer buckets and ZeRO's gradient partitions are allocated once and kept:
    // bf16 weights and gradients with the fp32 masters and states, in every phase.
    const double P = 152'009'000.0;
    c.strategy = Strategy::ddp;
    MemoryBreakdown mem = run();
    EXPECT_REL(mem.weights_gib, 2 * P / kGiB);
    EXPECT_REL(mem.grads_gib, 2 * P / kGiB);
    EXPECT_REL(mem.optimizer_gib, 12 * P / kGiB);
    EXPECT_EQ(mem.buffers_gib, 0.0);  // no gathered copies
    EXPECT_REL(phase_bytes(mem, MemoryPhase::optimizer), 16 * P);
    // The loss: 1000 · (4 · 2000 + 4000) + 600,000,000 above the states.
    EXPECT_REL(phase_bytes(mem, MemoryPhase::loss), 16 * P + 612'000'000.0);
    c.strategy = Strategy::zero1;  // optimizer / 2
    mem = run();
    EXPECT_REL(mem.weights_gib, 2 * P / kGiB);
    EXPECT_REL(mem.grads_gib, 2 * P / kGiB);
    EXPECT_REL(mem.optimizer_gib, 6 * P / kGiB);
    c.strategy = Strategy::zero2;  // grads and optimizer / 2
    mem = run();
    EXPECT_REL(mem.weights_gib, 2 * P / kGiB);
    EXPECT_REL(mem.grads_gib, P / kGiB);
    EXPECT_REL(mem.optimizer_gib, 6 * P / kGiB);
    c.strategy = Strategy::hsdp;  // 16 GPUs: sharded 8 ways inside the node
    c.gpus = 16;
    c.global_batch_tokens = 0;
    mem = run();
    EXPECT_REL(phase_bytes(mem, MemoryPhase::optimizer), 16 * P / 8);
}

TEST_F(Memory, ActivationsByCheckpointingMode) {
    // At the loss every layer's saved tensors are alive, per token:
    //   full: 4 · 2000 + 4000 (final norm) = 12,000 B
    //   selective: d + q + the matmul outputs kept (q, v, w1, w2: 6000) = 8000 elements,
    //     16,000 B per layer: 4 · 16,000 + 4000 = 68,000 B
    //   none: 4 · 40,000 + 4000 = 164,000 B
    // × 1000 tokens; the loss stays the peak.
    const struct {
        Checkpointing ac;
        double bytes;
    } cases[] = {{Checkpointing::full, 12'000'000.0},
                 {Checkpointing::selective, 68'000'000.0},
                 {Checkpointing::none, 164'000'000.0}};
    for (const auto& k : cases) {
        c.activation_checkpointing = k.ac;
        const MemoryBreakdown mem = run();
        EXPECT_EQ(mem.peak_phase, MemoryPhase::loss) << to_string(k.ac);
        EXPECT_REL(mem.activations_gib * kGiB, k.bytes);
    }
    // Activations scale with the micro-batch (two per micro-batch, still accumulating).
    c.micro_batch = 2;
    c.global_batch_tokens = 8000;
    EXPECT_REL(run().activations_gib * kGiB, 328'000'000.0);
}

TEST_F(Memory, QkNormInputsAreSaved) {
    // Qwen3-style q/k norm saves their inputs too: + (q + kv) · 2 B = 4000 B per layer.
    m.qk_norm = QkNorm::per_head;
    c.activation_checkpointing = Checkpointing::none;  // 1000 · (4 · 44,000 + 4000)
    EXPECT_REL(run().activations_gib * kGiB, 180'000'000.0);
}

TEST_F(Memory, TransformersKeepsItsNormsFp32Inputs) {
    // transformers' RMSNorm saves the fp32 upcast of its input (4 B) and the normalized
    // bf16 tensor (2 B) where a fused norm saves the bf16 input (2 B): + 4 B per element
    // of each norm, the final one included. No checkpointing, per token:
    //   4 · (40,000 + 2 · 4000) + (4000 + 4000) = 200,000 B
    c.implementation = Implementation::transformers;
    c.activation_checkpointing = Checkpointing::none;
    EXPECT_REL(run().activations_gib * kGiB, 200'000'000.0);
    // Its q/k norms too: + (q + kv) · (2 + 4) B per layer = 12,000.
    m.qk_norm = QkNorm::per_head;
    EXPECT_REL(run().activations_gib * kGiB, 248'000'000.0);
    // Eager attention keeps softmax's fp32 result and its bf16 cast: h · s · 6 B = 60,000.
    c.attention_kernel = AttentionKernel::eager;
    EXPECT_REL(run().activations_gib * kGiB, 488'000'000.0);
    // A LayerNorm model runs PyTorch's fused LayerNorm: no upcast kept.
    m.norm = NormKind::layer;
    m.qk_norm = QkNorm::none;
    c.attention_kernel = AttentionKernel::flash2;
    EXPECT_REL(run().activations_gib * kGiB, 164'000'000.0);
}

TEST_F(Memory, TheLossPeaksInItsBackward) {
    // Eager: log-softmax's saved fp32 result, nll_loss's fp32 gradient and log-softmax's
    // fp32 gradient: 12 B per logit, 1000 · 50,000 · 12 = 600,000,000 B.
    EXPECT_REL(run().logits_gib * kGiB, 600'000'000.0);
    // A loop that keeps the model's output holds its bf16 logits too (+ 2 B per logit), in
    // backward and, accumulating, in the next micro-batch's forward.
    const MemoryBreakdown dropped = run();
    c.keep_logits = true;
    const MemoryBreakdown kept = run();
    EXPECT_REL(kept.logits_gib * kGiB, 700'000'000.0);
    EXPECT_REL(phase_bytes(kept, MemoryPhase::backward) - phase_bytes(dropped, MemoryPhase::backward), 100'000'000.0);
    EXPECT_REL(phase_bytes(kept, MemoryPhase::forward) - phase_bytes(dropped, MemoryPhase::forward), 100'000'000.0);
    // Fused: the bf16 logits, their gradient written in place (2 B). The loss is then
    // 2,028,074,000 − 500,000,000 B and the root's reduction (1,716,077,000 B) is the peak.
    c.keep_logits = false;
    c.loss_kernel = LossKernel::fused;
    const MemoryBreakdown fused = run();
    EXPECT_REL(phase_bytes(fused, MemoryPhase::loss), 1'528'074'000.0);
    EXPECT_EQ(fused.peak_phase, MemoryPhase::reduction);
    EXPECT_EQ(fused.logits_gib, 0.0);
}

TEST_F(Memory, FsdpBuffers) {
    // fp32 reduction: the previous layer's reduce-scatter input is 4 · 13,002,000 (its
    // output is the gradient shard itself, a view in the parameters' dtype): backward at
    // the layer before the last 1,216,072,000 + 378,016,000 + 52,008,000 + 70,000,000.
    c.reduce_bytes = 4;
    MemoryBreakdown mem = run();
    EXPECT_REL(phase_bytes(mem, MemoryPhase::backward), 1'716'096'000.0);
    // The root's reduction: input and output in fp32, 400,004,000 · 1.5 = 600,006,000.
    EXPECT_REL(phase_bytes(mem, MemoryPhase::reduction), 1'216'072'000.0 + 600'006'000.0);
    c.reduce_bytes = 2;
    // Layers not resharded after forward: every layer stays gathered (root + 4 layers,
    // 304,018,000 B, and the last one's flat all-gather output in forward).
    c.reshard_after_forward = false;
    mem = run();
    EXPECT_REL(phase_bytes(mem, MemoryPhase::forward), 1'592'094'000.0);
    EXPECT_REL(phase_bytes(mem, MemoryPhase::loss), 2'132'090'000.0);
    c.reshard_after_forward = true;
    // Syncing on the last micro-batch only: FSDP2 accumulates unsharded gradients in the
    // reduce dtype (2 · P) instead of shards.
    c.grad_sync = GradSync::last_micro_batch;
    mem = run();
    EXPECT_EQ(mem.peak_phase, MemoryPhase::loss);
    EXPECT_EQ(mem.grads_gib, 0.0);
    EXPECT_REL(mem.buffers_gib * kGiB, 200'002'000.0 + 304'018'000.0);
    // Its backward holds each layer's gradient once: unsharded until that layer reduces,
    // then its shard (here 2 B either way: 4 B over 2 GPUs). At the layer before the last:
    // one shard, 4 · 13,002,000 / 2, and 2 · (P − 13,002,000) unsharded, with 378,016,000 +
    // the reduce-scatter input 26,004,000 + 1000 · (2 · 2000 + 66,000).
    EXPECT_REL(phase_bytes(mem, MemoryPhase::backward),
               912'054'000.0 + 26'004'000.0 + 278'014'000.0 + 404'020'000.0 + 70'000'000.0);
    // The root's reduction: its accumulated bf16 gradient is the reduce-scatter input's
    // source (200,002,000 + 200,002,000), then the output and its fp32 cast.
    EXPECT_REL(phase_bytes(mem, MemoryPhase::reduction), 912'054'000.0 + 104'016'000.0 + 500'005'000.0);
    c.global_batch_tokens = 2000;  // one micro-batch per step (2 GPUs × 1,000): nothing accumulates
    mem = run();
    EXPECT_REL(mem.buffers_gib * kGiB, 200'002'000.0);
    EXPECT_REL(mem.allocated_gib * kGiB, 1'724'056'000.0);
}

TEST_F(Memory, TiedEmbeddingsGradientIsAliveThroughBackward) {
    // Tied: P = 102,009,000, root 50,001,000. The output projection's backward gives the
    // shared table its bf16 gradient (2 · 50,000,000) right after the loss, alive until the
    // root reduces. One micro-batch, backward at the second layer:
    //   states 12 · P / 2 = 612,054,000; the layers above 4 · 2 · 13,002,000 / 2 = 52,008,000;
    //   root 100,002,000 + 2 layers 52,008,000 + the table's and final norm's gradients
    //   100,002,000 + the layer's 26,004,000 + the previous reduce-scatter input 26,004,000;
    //   1000 · (2000 + 40,000 + 4000 + 22,000).
    m.tie_word_embeddings = true;
    c.global_batch_tokens = 2000;
    EXPECT_REL(phase_bytes(run(), MemoryPhase::backward), 612'054'000.0 + 52'008'000.0 + 304'020'000.0 + 68'000'000.0);
}

TEST_F(Memory, ForeachAdamWHoldsOneMoreStateAtItsStep) {
    // torch.optim's default multi-tensor AdamW allocates exp_avg_sq_sqrt: 4 · P / 2.
    const double fused = phase_bytes(run(), MemoryPhase::optimizer);
    c.fused_optimizer = false;
    EXPECT_REL(phase_bytes(run(), MemoryPhase::optimizer) - fused, 304'018'000.0);
    c.optimizer = Optimizer::sgd;  // no such tensor
    const double sgd = phase_bytes(run(), MemoryPhase::optimizer);
    c.fused_optimizer = true;
    EXPECT_REL(phase_bytes(run(), MemoryPhase::optimizer), sgd);
}

TEST_F(Memory, TotalIsThePeakAndFitsAgainstHbm) {
    const MemoryBreakdown mem = run();
    // The loss's 2,028,074,000 B + 1 GiB reserved.
    EXPECT_REL(mem.total_gib, 2'028'074'000.0 / kGiB + 1.0);
    EXPECT_DOUBLE_EQ(mem.available_gib, 80.0);
    EXPECT_TRUE(mem.fits);
    hw.hbm_gib = 2.5;  // below 2.89 GiB
    EXPECT_FALSE(run().fits);
}

TEST_F(Memory, OptimizerBytesPerParameterByOptimizerAndMasterWeights) {
    // Beyond the bf16 weights and gradients: the fp32 master (4 B, when masters are fp32)
    // and the states in the masters' dtype (torch.optim allocates them like the parameter;
    // bitsandbytes' 8-bit states are one byte each).
    const ParameterCounts p = count_parameters(m);
    const double P = 152'009'000.0;
    // Adafactor's factored second moment (Shazeer & Stern §3): a row and a column vector per
    // matrix, the full moment of vectors. Tiny model, per layer: q, k, v (1000 × 1000 each)
    // 3 · 2000, o 2000, gate, up, down (1000 × 3000) 3 · 4000, two norms 2000 → 22,000;
    // × 4 layers = 88,000; embedding and untied output projection (50,000 × 1000) 2 · 51,000,
    // final norm 1000 → 103,000. E = 191,000 elements.
    const double E = 191'000.0;
    struct Case {
        Optimizer o;
        MasterWeights w;
        double bytes;
    };
    const Case cases[] = {
        {Optimizer::adamw, MasterWeights::fp32, 4 + 2 * 4},       // master + m + v = 12
        {Optimizer::adamw, MasterWeights::bf16, 2 * 2},           // m + v in bf16 = 4
        {Optimizer::adamw_8bit, MasterWeights::fp32, 4 + 2 * 1},  // 6
        {Optimizer::adamw_8bit, MasterWeights::bf16, 2 * 1},      // 2
        {Optimizer::sgd, MasterWeights::fp32, 4 + 4},             // master + momentum = 8
        {Optimizer::sgd, MasterWeights::bf16, 2},                 // momentum = 2
        {Optimizer::adafactor, MasterWeights::fp32, 4 + 4 * E / P},
        {Optimizer::adafactor, MasterWeights::bf16, 2 * E / P},
    };
    for (const Case& k : cases) {
        SCOPED_TRACE(std::string(to_string(k.o)) + " " + to_string(k.w));
        c.optimizer = k.o;
        c.master_weights = k.w;
        EXPECT_REL(optimizer_bytes_per_parameter(m, p, c), k.bytes);
        // FSDP over 2 GPUs: the sharded parameters are the masters (fp32, or the bf16
        // weights), the optimizer holds the states: P · (bytes − master) / 2 per GPU.
        const double master = k.w == MasterWeights::fp32 ? 4.0 : 0.0;
        const MemoryBreakdown mem = run();
        EXPECT_REL(mem.optimizer_gib, P * (k.bytes - master) / 2 / kGiB);
        EXPECT_REL(mem.weights_gib, P * (k.w == MasterWeights::fp32 ? 4.0 : 2.0) / 2 / kGiB);
        // DDP keeps bf16 weights and gradients beside them: P · bytes per GPU.
        c.strategy = Strategy::ddp;
        EXPECT_REL(run().optimizer_gib, P * k.bytes / kGiB);
        c.strategy = Strategy::fsdp;
    }
    // Adafactor with fp32 masters, by hand, FSDP over 2 GPUs: 4 · 191,000 / 2 = 382,000 B of
    // states beside the 4 · 152,009,000 / 2 of fp32 parameters.
    c.optimizer = Optimizer::adafactor;
    c.master_weights = MasterWeights::fp32;
    EXPECT_REL(run().optimizer_gib, 382'000.0 / kGiB);
}

TEST_F(Memory, CheckpointingEveryOtherLayer) {
    // checkpoint_every = 2: floor(4 / 2) = 2 layers keep their input (2000 B per token), the
    // other 2 everything (40,000 B); at the loss 1000 · (2 · 2000 + 2 · 40,000 + 4000).
    c.checkpoint_every = 2;
    EXPECT_REL(run().activations_gib * kGiB, 88'000'000.0);
    // Between full (12,000,000 B) and none (164,000,000 B).
    c.checkpoint_every = 1;
    EXPECT_REL(run().activations_gib * kGiB, 12'000'000.0);
}

TEST_F(Memory, EagerAttentionKeepsItsProbabilities) {
    // PyTorch's unfused attention keeps the h × seq softmax output per token: 10 · 1000 · 2
    // = 20,000 B more in every layer that keeps everything (and in the recomputed one).
    c.attention_kernel = AttentionKernel::eager;
    // full: the loss sees only the layers' inputs; backward's recomputed layer has them,
    // and its working set the probabilities' and scores' gradients (h · s · 4 B = 40,000):
    // 1000 · (2 · 2000 + 60,000 + 4000 + 4000 + 50,000) at the layer before the last.
    EXPECT_REL(run().activations_gib * kGiB, 12'000'000.0);
    EXPECT_REL(phase_bytes(run(), MemoryPhase::backward), 1'216'072'000.0 + 404'020'000.0 + 122'000'000.0);
    // none: 1000 · (4 · 60,000 + 4000)
    c.activation_checkpointing = Checkpointing::none;
    EXPECT_REL(run().activations_gib * kGiB, 244'000'000.0);
    // FlashAttention keeps only its output and log-sum-exp (already counted).
    c.attention_kernel = AttentionKernel::xformers;
    EXPECT_REL(run().activations_gib * kGiB, 164'000'000.0);
}

TEST_F(Memory, SelectiveKeepsTheMatmulsThePlanDoesNotRecompute) {
    // One fused q|k|v matmul: the plan keeps qkv (3000), gate (3000) and down (1000), and
    // recomputes o and up; with the block input and attention's output, 1000 + 1000 + 7000
    // = 9000 elements per layer (Llama's separate layout keeps 8000): at the loss
    // 1000 · (4 · 18,000 + 4000) B.
    m.fused_qkv = true;
    c.activation_checkpointing = Checkpointing::selective;
    EXPECT_REL(run().activations_gib * kGiB, 76'000'000.0);
}

TEST_F(Memory, FragmentationIsAShareOfTheAllocatedBytes) {
    // Allocated = 2,028,074,000 B (the loss); 10% fragmentation adds 202,807,400 B.
    cal.fragmentation = 0.1;
    const MemoryBreakdown mem = run();
    EXPECT_REL(mem.fragmentation_gib, 202'807'400.0 / kGiB);
    EXPECT_REL(mem.total_gib, 2'230'881'400.0 / kGiB + 1.0);
    EXPECT_REL(mem.total_gib, mem.weights_gib + mem.grads_gib + mem.optimizer_gib + mem.activations_gib +
                                  mem.logits_gib + mem.buffers_gib + mem.fragmentation_gib + mem.reserved_gib);
}

TEST_F(Memory, StatusWithinTheMargin) {
    // total T = 2,028,074,000 B + 1 GiB = 2.8888 GiB; margin 10%:
    //   fits when T · 1.1 ≤ HBM; uncertain when T · 0.9 ≤ HBM < T · 1.1; otherwise not.
    cal.memory_margin = 0.1;
    const double T = 2'028'074'000.0 / kGiB + 1.0;
    const struct {
        double hbm;
        FitStatus status;
    } cases[] = {
        {80, FitStatus::fits},
        {T * 1.1 * (1 + 1e-9), FitStatus::fits},
        {T * 1.1 * (1 - 1e-9), FitStatus::uncertain},
        {T, FitStatus::uncertain},
        {T * 0.9 * (1 + 1e-9), FitStatus::uncertain},
        {T * 0.9 * (1 - 1e-9), FitStatus::does_not_fit},
        {1.0, FitStatus::does_not_fit},
    };
    for (const auto& k : cases) {
        SCOPED_TRACE(k.hbm);
        hw.hbm_gib = k.hbm;
        const MemoryBreakdown mem = run();
        EXPECT_REL(mem.total_gib, T);
        EXPECT_DOUBLE_EQ(mem.margin, 0.1);
        EXPECT_EQ(mem.status, k.status);
        EXPECT_EQ(mem.fits, k.status == FitStatus::fits);  // uncertain is not fitting
    }
    EXPECT_STREQ(to_string(FitStatus::uncertain), "uncertain");
    EXPECT_STREQ(to_string(FitStatus::does_not_fit), "does_not_fit");
}

// A peak is reported three ways; each is compared with its own estimate.
TEST(MemoryKind, EachKindOfPeakHasItsEstimate) {
    const ModelSpec q = find_model("qwen3-32b");
    const HardwareProfile b300 = find_hardware("b300");
    Calibration cal = default_calibration(b300);
    cal.fragmentation = 0.1;
    TrainingConfig c;
    c.gpus = 16;
    c.seq_len = 4096;
    const MemoryBreakdown m = estimate_step(q, b300, cal, c).memory;
    const double tensors =
        m.weights_gib + m.grads_gib + m.optimizer_gib + m.activations_gib + m.logits_gib + m.buffers_gib;
    EXPECT_REL(m.allocated_gib, tensors);
    EXPECT_REL(m.allocator_reserved_gib, 1.1 * tensors);
    EXPECT_REL(m.total_gib, 1.1 * tensors + cal.reserved_gib);
    EXPECT_DOUBLE_EQ(memory_of_kind(m, "allocated"), m.allocated_gib);
    EXPECT_DOUBLE_EQ(memory_of_kind(m, "active"), m.allocated_gib);
    EXPECT_DOUBLE_EQ(memory_of_kind(m, "reserved"), m.allocator_reserved_gib);
    EXPECT_DOUBLE_EQ(memory_of_kind(m, "nvidia-smi"), m.total_gib);
}

TEST(MemoryFit, Qwen3_32BOnFourH100DoesNotFit) {
    // States alone: 16 B · 32,762,123,264 / 4 = 131,048,493,056 B = 122.05 GiB > 80 GiB.
    const ModelSpec q = find_model("qwen3-32b");
    const HardwareProfile h100 = find_hardware("h100");
    const Calibration cal = default_calibration(h100);
    TrainingConfig c;
    c.gpus = 4;
    c.seq_len = 4096;
    const StepBreakdown s = estimate_step(q, h100, cal, c);  // estimates, does not throw
    EXPECT_FALSE(s.memory.fits);
    EXPECT_REL(s.memory.phase_gib[static_cast<std::size_t>(MemoryPhase::optimizer)], 131'048'493'056.0 / kGiB);
    try {
        require_fit(q, h100, cal, c, s);
        FAIL() << "require_fit did not throw";
    } catch (const DoesNotFitError& e) {
        const std::string msg = e.what();
        EXPECT_REL(e.needed_gib(), s.memory.total_gib);
        EXPECT_DOUBLE_EQ(e.available_gib(), 80.0);
        std::ostringstream needed;
        needed << std::fixed << std::setprecision(1) << e.needed_gib() << " GiB";
        EXPECT_NE(msg.find(needed.str()), std::string::npos) << msg;
        EXPECT_NE(msg.find("80.0 GiB available"), std::string::npos) << msg;
        EXPECT_NE(msg.find("qwen3-32b"), std::string::npos) << msg;
        EXPECT_NE(msg.find("to fit, try"), std::string::npos) << msg;  // a suggestion
        EXPECT_NE(msg.find("gpus=16 (GPU-hours x"), std::string::npos) << msg;
    }
    // 8 H100 peak in backward at the first layer: 12 · P / 8 = 45.8 GiB of parameters and
    // states, 14.9 of the reduced layers' fp32 gradient shards, 7.6 of unsharded root,
    // layers and gradients, 1.9 of activations, + 3 reserved ≈ 73.1 GiB: within the
    // default's ±20% margin of 80 GiB (73.1 · 0.8 ≤ 80 < 73.1 · 1.2), uncertain, which is
    // not fitting. The suggestion is the first doubling that surely fits: 16 GPUs.
    EXPECT_NE(fit_suggestion(q, h100, cal, c).find("gpus=16 (GPU-hours x"), std::string::npos)
        << fit_suggestion(q, h100, cal, c);
    c.gpus = 8;
    const StepBreakdown eight_step = estimate_step(q, h100, cal, c);
    const MemoryBreakdown& eight = eight_step.memory;
    EXPECT_FALSE(eight.fits);
    EXPECT_DOUBLE_EQ(eight.margin, 0.2);
    EXPECT_EQ(eight.status, FitStatus::uncertain);
    try {
        require_fit(q, h100, cal, c, eight_step);
        FAIL() << "require_fit accepted an uncertain fit";
    } catch (const DoesNotFitError& e) {
        EXPECT_NE(std::string(e.what()).find("may not fit on 8 × h100"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("within the estimate's 20 % margin"), std::string::npos) << e.what();
    }
    EXPECT_EQ(s.memory.status, FitStatus::does_not_fit);
}

TEST(MemoryFit, Qwen3_32BOnFourB300Fits) {
    // 122.05 GiB of states plus activations, logits and buffers fit in B300's 268.6 GiB.
    const ModelSpec q = find_model("qwen3-32b");
    const HardwareProfile b300 = find_hardware("b300");
    const Calibration cal = default_calibration(b300);
    TrainingConfig c;
    c.gpus = 4;
    c.seq_len = 8192;
    const StepBreakdown s = estimate_step(q, b300, cal, c);
    EXPECT_TRUE(s.memory.fits);
    EXPECT_LT(s.memory.total_gib, 268.6);
    EXPECT_GT(s.memory.total_gib, 122.05);
    EXPECT_NO_THROW(require_fit(q, b300, cal, c, s));
    // Full checkpointing, seq 8192: the peak is backward at the second layer, whose
    // activations are, per token, the first layer's input 2 · 5120, the recomputed layer
    // 2 · 150,528 (150,528 = 4·5120 + 2·8192 + 2·1024 + 4·25600 + 8192 + 1024 elements), the
    // final norm 4 · 5120 and backward's working set 4 · 5120 + 6 · 25,600.
    EXPECT_EQ(s.memory.peak_phase, MemoryPhase::backward);
    EXPECT_REL(s.memory.activations_gib, (10'240.0 + 301'056.0 + 20'480.0 + 174'080.0) * 8192 / kGiB);
}

}  // namespace
}  // namespace libscale
