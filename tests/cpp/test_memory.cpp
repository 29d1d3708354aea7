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

TEST_F(Memory, FsdpStatesAreSixteenBytesPerParamOverN) {
    // 2 GPUs: weights 2 B · P / 2, grads 2 B · P / 2, optimizer 12 B · P / 2.
    const MemoryBreakdown mem = run();
    EXPECT_REL(mem.weights_gib, 152'009'000.0 / kGiB);
    EXPECT_REL(mem.grads_gib, 152'009'000.0 / kGiB);
    EXPECT_REL(mem.optimizer_gib, 912'054'000.0 / kGiB);
    EXPECT_REL(mem.weights_gib + mem.grads_gib + mem.optimizer_gib, 16.0 * 152'009'000.0 / 2.0 / kGiB);
    c.gpus = 8;
    c.global_batch_tokens = 0;
    const MemoryBreakdown m8 = run();
    EXPECT_REL(m8.weights_gib + m8.grads_gib + m8.optimizer_gib, 16.0 * 152'009'000.0 / 8.0 / kGiB);
}

TEST_F(Memory, DdpAndZeroShardWhatTheyShard) {
    const double P = 152'009'000.0;
    c.strategy = Strategy::ddp;
    MemoryBreakdown mem = run();
    EXPECT_REL(mem.weights_gib, 2 * P / kGiB);
    EXPECT_REL(mem.grads_gib, 2 * P / kGiB);
    EXPECT_REL(mem.optimizer_gib, 12 * P / kGiB);
    EXPECT_EQ(mem.buffers_gib, 0.0);  // no gathered copies
    c.strategy = Strategy::zero1;     // optimizer / 2
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
    EXPECT_REL(mem.weights_gib + mem.grads_gib + mem.optimizer_gib, 16 * P / 8 / kGiB);
}

TEST_F(Memory, ActivationsByCheckpointingMode) {
    // Elements saved per token:
    //   no checkpointing, per layer: 4d (two norms, in and out) + 2q (q, SDPA out)
    //     + 2kv (k, v) + 4f (gate, up, act, product) = 4000 + 2000 + 2000 + 12000 = 20,000
    //   full: d per layer (block input) + one layer recomputed (20,000)
    //   selective: d + 2q + kv + f + d (w2's output) = 8,000 per layer + one recomputed layer
    //   plus 2d outside the layers (embedding output, final norm) in every mode.
    // bytes = 1000 tokens · elements · 2 B
    c.activation_checkpointing = Checkpointing::full;  // 4·1000 + 2000 + 20,000 = 26,000
    EXPECT_REL(run().activations_gib, 52'000'000.0 / kGiB);
    c.activation_checkpointing = Checkpointing::selective;  // 4·8000 + 2000 + 20,000 = 54,000
    EXPECT_REL(run().activations_gib, 108'000'000.0 / kGiB);
    c.activation_checkpointing = Checkpointing::none;  // 4·20,000 + 2000 = 82,000
    EXPECT_REL(run().activations_gib, 164'000'000.0 / kGiB);
    // Activations scale with the micro-batch.
    c.micro_batch = 2;
    c.global_batch_tokens = 0;
    EXPECT_REL(run().activations_gib, 328'000'000.0 / kGiB);
}

TEST_F(Memory, QkNormInputsAreSaved) {
    // Qwen3-style q/k norm saves their inputs too: + q + kv = 2000 per layer without AC.
    m.qk_norm = QkNorm::per_head;
    c.activation_checkpointing = Checkpointing::none;  // 4 · 22,000 + 2000 = 90,000
    EXPECT_REL(run().activations_gib, 180'000'000.0 / kGiB);
}

TEST_F(Memory, LogitsAreBf16PlusFp32Copy) {
    // 1000 tokens · 50,000 vocab · (2 + 4) B = 300,000,000 B
    EXPECT_REL(run().logits_gib, 300'000'000.0 / kGiB);
}

TEST_F(Memory, FsdpBuffers) {
    // Reshard after forward: gathered root + current + prefetched layer in bf16, plus the
    // unsharded gradient of the largest unit (the root) in the reduce dtype:
    //   (100,001,000 + 2 · 13,002,000) · 2 + 100,001,000 · 2 = 452,012,000 B
    EXPECT_REL(run().buffers_gib, 452'012'000.0 / kGiB);
    c.reduce_bytes = 4;  // 252,010,000 + 400,004,000
    EXPECT_REL(run().buffers_gib, 652'014'000.0 / kGiB);
    c.reduce_bytes = 2;
    c.reshard_after_forward = false;  // everything stays gathered: P · 2 + root · 2
    EXPECT_REL(run().buffers_gib, 504'020'000.0 / kGiB);
    c.reshard_after_forward = true;
    c.grad_sync = GradSync::last_micro_batch;  // + unsharded accumulated grads P · 2
    EXPECT_REL(run().buffers_gib, 756'030'000.0 / kGiB);
    c.global_batch_tokens = 2000;  // one micro-batch per step (2 GPUs × 1,000): nothing accumulates
    EXPECT_REL(run().buffers_gib, 452'012'000.0 / kGiB);
    c.global_batch_tokens = 0;
    EXPECT_REL(run().buffers_gib, 452'012'000.0 / kGiB);
}

TEST_F(Memory, TotalIsTheSumAndFitsAgainstHbm) {
    const MemoryBreakdown mem = run();
    // 1,216,072,000 (states) + 52,000,000 + 300,000,000 + 452,012,000 B + 1 GiB reserved
    EXPECT_REL(mem.total_gib, 2'020'084'000.0 / kGiB + 1.0);
    EXPECT_DOUBLE_EQ(mem.available_gib, 80.0);
    EXPECT_TRUE(mem.fits);
    hw.hbm_gib = 2.5;  // below 2.88 GiB
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
        // FSDP over 2 GPUs: P · bytes / 2 per GPU.
        EXPECT_REL(run().optimizer_gib, P * k.bytes / 2 / kGiB);
    }
    // Adafactor with fp32 masters, by hand: (4 · 152,009,000 + 4 · 191,000) / 2 = 304,400,000 B.
    c.optimizer = Optimizer::adafactor;
    c.master_weights = MasterWeights::fp32;
    EXPECT_REL(run().optimizer_gib, 304'400'000.0 / kGiB);
}

TEST_F(Memory, CheckpointingEveryOtherLayer) {
    // checkpoint_every = 2: floor(4 / 2) = 2 layers keep their input (1000 per token), the
    // other 2 everything (20,000), plus the recomputed layer (20,000) and 2d outside:
    //   2 · 1000 + 2 · 20,000 + 20,000 + 2000 = 64,000 · 1000 tokens · 2 B = 128,000,000 B
    c.checkpoint_every = 2;
    EXPECT_REL(run().activations_gib, 128'000'000.0 / kGiB);
    // Between full (52,000,000 B) and none (164,000,000 B).
    c.checkpoint_every = 1;
    EXPECT_REL(run().activations_gib, 52'000'000.0 / kGiB);
}

TEST_F(Memory, EagerAttentionKeepsItsProbabilities) {
    // PyTorch's unfused attention keeps the h × seq softmax output per token: 10 · 1000 =
    // 10,000 more elements in every layer that keeps everything (and in the recomputed one).
    c.attention_kernel = AttentionKernel::eager;
    // full: 4 · 1000 + (20,000 + 10,000) + 2000 = 36,000 → 72,000,000 B
    EXPECT_REL(run().activations_gib, 72'000'000.0 / kGiB);
    // none: 4 · 30,000 + 2000 = 122,000 → 244,000,000 B
    c.activation_checkpointing = Checkpointing::none;
    EXPECT_REL(run().activations_gib, 244'000'000.0 / kGiB);
    // FlashAttention keeps only its output and log-sum-exp (already counted).
    c.attention_kernel = AttentionKernel::xformers;
    EXPECT_REL(run().activations_gib, 164'000'000.0 / kGiB);
}

TEST_F(Memory, SelectiveKeepsTheMatmulsThePlanDoesNotRecompute) {
    // One fused q|k|v matmul: the plan keeps qkv (3000), gate (3000) and down (1000), and
    // recomputes o and up; with the block input and attention's output, 1000 + 1000 + 7000
    // = 9000 elements per layer (Llama's separate layout keeps 8000). Plus the final 2000
    // and one layer being recomputed (20,000): 4 · 9000 + 2000 + 20,000 = 58,000 per token.
    m.fused_qkv = true;
    c.activation_checkpointing = Checkpointing::selective;
    EXPECT_REL(run().activations_gib, 116'000'000.0 / kGiB);
}

TEST_F(Memory, FusedLossKeepsOnlyBf16Logits) {
    // 1000 tokens · 50,000 vocab · 2 B = 100,000,000 B (no fp32 copy).
    c.loss_kernel = LossKernel::fused;
    EXPECT_REL(run().logits_gib, 100'000'000.0 / kGiB);
}

TEST_F(Memory, FragmentationIsAShareOfTheAllocatedBytes) {
    // Allocated = 2,020,084,000 B (states, activations, logits, buffers; see
    // TotalIsTheSumAndFitsAgainstHbm); 10% fragmentation adds 202,008,400 B.
    cal.fragmentation = 0.1;
    const MemoryBreakdown mem = run();
    EXPECT_REL(mem.fragmentation_gib, 202'008'400.0 / kGiB);
    EXPECT_REL(mem.total_gib, 2'222'092'400.0 / kGiB + 1.0);
    EXPECT_REL(mem.total_gib, mem.weights_gib + mem.grads_gib + mem.optimizer_gib + mem.activations_gib +
                                  mem.logits_gib + mem.buffers_gib + mem.fragmentation_gib + mem.reserved_gib);
}

TEST_F(Memory, StatusWithinTheMargin) {
    // total T = 2,020,084,000 B + 1 GiB = 2.8814 GiB; margin 10%:
    //   fits when T · 1.1 ≤ HBM; uncertain when T · 0.9 ≤ HBM < T · 1.1; otherwise not.
    cal.memory_margin = 0.1;
    const double T = 2'020'084'000.0 / kGiB + 1.0;
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
    EXPECT_REL(s.memory.weights_gib + s.memory.grads_gib + s.memory.optimizer_gib, 131'048'493'056.0 / kGiB);
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
    // 8 H100 hold 16 · P / 8 = 61.0 GiB of states + 3.7 activations + 3.5 logits + 7.6
    // buffers + 3 reserved ≈ 78.9 GiB: within the default's ±20% margin of 80 GiB
    // (78.9 · 0.8 ≤ 80 < 78.9 · 1.2), uncertain, which is not fitting. The suggestion is the
    // first doubling that surely fits: 16 GPUs.
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
    // Full checkpointing, seq 8192, by hand: activations (64 · 5120 + 2 · 5120 + 150,528)
    // · 8192 · 2 B, where 150,528 = 4·5120 + 2·8192 + 2·1024 + 4·25600 + 8192 + 1024.
    EXPECT_REL(s.memory.activations_gib, 488'448.0 * 8192 * 2 / kGiB);
}

}  // namespace
}  // namespace libscale
