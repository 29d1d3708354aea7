// What would fit: every change offered fits when estimated on its own, its cost is the
// tokens/s-per-GPU ratio of two independent estimates, changes come cheapest first, and
// the largest micro-batch and sequence length are edges (the next one up does not fit).
#include <gtest/gtest.h>

#include <string>

#include "libscale/estimate/fit_advice.hpp"
#include "libscale/estimate/scenario.hpp"
#include "libscale/io/catalog.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

struct Case {
    ModelSpec m = find_model("qwen3-32b");
    HardwareProfile hw = find_hardware("h200");
    Calibration cal = default_calibration(hw);
    TrainingConfig c;
    Case() {
        c.gpus = 8;
        c.seq_len = 8192;
        c.micro_batch = 4;
        c.activation_checkpointing = Checkpointing::none;
    }
    StepBreakdown step(const TrainingConfig& x) const { return estimate_step(m, hw, cal, x); }
};

const FitChange* find(const FitAdvice& a, const std::string& prefix) {
    for (const FitChange& f : a.changes)
        if (f.change.rfind(prefix, 0) == 0) return &f;
    return nullptr;
}

TEST(FitAdvice, EveryChangeFitsAndCostsWhatItsOwnEstimateSays) {
    const Case k;
    const FitAdvice a = fit_advice(k.m, k.hw, k.cal, k.c);
    ASSERT_FALSE(a.step.memory.fits);  // 4 × 8,192 tokens without checkpointing on 8 × H200
    ASSERT_GE(a.changes.size(), 3u);
    const double rate = k.step(k.c).tokens_per_s_per_gpu;
    for (std::size_t i = 0; i < a.changes.size(); ++i) {
        const FitChange& f = a.changes[i];
        SCOPED_TRACE(f.change);
        const StepBreakdown s = k.step(f.config);
        EXPECT_TRUE(s.memory.fits);
        EXPECT_REL(f.memory_gib, s.memory.total_gib);
        EXPECT_REL(f.step_time_s, s.step_time_s);
        EXPECT_REL(f.gpu_hours_ratio, rate / s.tokens_per_s_per_gpu);
        if (i > 0) {  // the same training first, then recipe changes, then other methods; cheapest first in each
            const FitChange& prev = a.changes[i - 1];
            const auto tier = [&](const FitChange& x) {
                return x.config.fine_tuning != k.c.fine_tuning ? 2 : x.caveat.empty() ? 0 : 1;
            };
            EXPECT_LE(tier(prev), tier(f));
            if (tier(prev) == tier(f)) {
                EXPECT_LE(prev.gpu_hours_ratio, f.gpu_hours_ratio);
            }
        }
    }
    // Checkpointing recomputes the forward: dearer than none, never free.
    const FitChange* ckpt = find(a, "activation_checkpointing=");
    ASSERT_NE(ckpt, nullptr);
    EXPECT_GT(ckpt->gpu_hours_ratio, 1.0);
    EXPECT_EQ(ckpt->caveat, "");
    // Full checkpointing alone leaves 4 × 8,192 tokens within the margin (129 GiB on 141):
    // with it, the micro-batch bisection picks 2, the largest divisor of 4 that fits.
    for (const FitChange& f : a.changes)
        if (f.change.find("micro_batch=") != std::string::npos && f.config.micro_batch < 4) {
            SCOPED_TRACE(f.change);
            TrainingConfig larger = f.config;
            larger.micro_batch = f.config.micro_batch * 2;
            larger.global_batch_tokens = 262'144;
            EXPECT_FALSE(k.step(larger).memory.fits);
        }
    EXPECT_NE(find(a, "activation_checkpointing='full', micro_batch=2, global_batch_tokens=262144"), nullptr);
    // A smaller micro-batch keeps the global batch (8 GPUs × 4 × 8,192 = 262,144 tokens).
    if (const FitChange* mb = find(a, "micro_batch=")) {
        EXPECT_EQ(mb->config.global_batch_tokens, 262'144);
        EXPECT_LT(mb->config.micro_batch, 4);
        EXPECT_EQ(4 % mb->config.micro_batch, 0);
        EXPECT_EQ(mb->caveat, "");
    }
    // A shorter sequence trains differently, and says so.
    if (const FitChange* seq = find(a, "seq_len=")) {
        EXPECT_EQ(seq->config.seq_len % 128, 0);
        EXPECT_NE(seq->caveat, "");
    }
    const std::string text = fit_advice_text(a);
    EXPECT_EQ(text.rfind("to fit, try " + a.changes[0].change + " (GPU-hours x", 0), 0u) << text;
}

TEST(FitAdvice, ALoopThatKeepsTheLogitsCanDropThem) {
    // Qwen3-32B on 8 × H200 at 3 × 8,960 tokens with full checkpointing: 121.8 GiB with the
    // output's bf16 logits held through backward, within the 20 % margin of 141 GiB; 7.6 GiB
    // less without them (2 B × 26,880 × 151,936), which fits. Dropping them trains the same
    // way and costs nothing.
    Case k;
    k.c.micro_batch = 3;
    k.c.seq_len = 8960;
    k.c.activation_checkpointing = Checkpointing::full;
    k.c.keep_logits = true;
    const FitAdvice a = fit_advice(k.m, k.hw, k.cal, k.c);
    ASSERT_FALSE(a.step.memory.fits);
    const FitChange* drop = find(a, "keep_logits=False");
    ASSERT_NE(drop, nullptr);
    EXPECT_EQ(drop->caveat, "");
    EXPECT_FALSE(drop->config.keep_logits);
    EXPECT_REL(drop->gpu_hours_ratio, 1.0);
    EXPECT_TRUE(k.step(drop->config).memory.fits);
}

TEST(FitAdvice, LargestMicroBatchAndSequenceAreEdges) {
    Case k;
    k.c.activation_checkpointing = Checkpointing::full;
    k.c.micro_batch = 1;
    const FitAdvice a = fit_advice(k.m, k.hw, k.cal, k.c);
    EXPECT_TRUE(a.step.memory.fits);
    EXPECT_TRUE(a.changes.empty());  // it fits: nothing to change
    ASSERT_GE(a.max_micro_batch, 1);
    TrainingConfig x = k.c;
    x.micro_batch = a.max_micro_batch;
    EXPECT_TRUE(k.step(x).memory.fits);
    x.micro_batch = a.max_micro_batch + 1;
    EXPECT_FALSE(k.step(x).memory.fits);
    x = k.c;
    x.seq_len = a.max_seq_len;
    EXPECT_TRUE(k.step(x).memory.fits);
    if (a.max_seq_len < k.m.max_position_embeddings) {
        x.seq_len = a.max_seq_len + 1;
        EXPECT_FALSE(k.step(x).memory.fits);
    }
}

TEST(FitAdvice, WhenTheStatesDoNotFitOnlyFewerBytesOrMoreGpusHelp) {
    // Qwen3-32B's states alone need 16 B × P / 4 = 122 GiB on 4 × H100 (test_memory.cpp).
    // 8 GPUs are within the margin, so 16, with the per-GPU batch (16,384 tokens do not
    // divide over 16 × 4,096). Neither 8-bit states nor bf16 masters alone are enough
    // (12 B and 10 B × P / 4 = 92 and 76 GiB before activations), together they are (6 B);
    // or another method: LoRA and QLoRA train no base weights (their caveats say so).
    const ModelSpec q = find_model("qwen3-32b");
    const HardwareProfile h100 = find_hardware("h100");
    TrainingConfig c;
    c.gpus = 4;
    c.seq_len = 4096;
    const FitAdvice a = fit_advice(q, h100, default_calibration(h100), c);
    ASSERT_EQ(a.changes.size(), 4u);
    EXPECT_NE(find(a, "fine_tuning='lora'"), nullptr);
    EXPECT_NE(find(a, "fine_tuning='qlora'"), nullptr);
    const FitChange* more = find(a, "gpus=");
    ASSERT_NE(more, nullptr);
    EXPECT_EQ(more->change, "gpus=16");
    EXPECT_EQ(more->config.gpus, 16);
    EXPECT_EQ(more->config.global_batch_tokens, 0);
    EXPECT_EQ(more->caveat, "a larger global batch (65536 tokens, one micro-batch per GPU)");
    const FitChange* states = find(a, "optimizer=");
    ASSERT_NE(states, nullptr);
    EXPECT_EQ(states->change, "optimizer='adamw_8bit', master_weights='bf16'");
    EXPECT_EQ(states->config.optimizer, Optimizer::adamw_8bit);
    EXPECT_EQ(states->config.master_weights, MasterWeights::bf16);
    EXPECT_EQ(a.max_micro_batch, 0);  // nothing fits on 4 as configured
    EXPECT_EQ(a.max_seq_len, 0);
}

// A sequence too long for one GPU's activations: context parallel splits it at the same
// GPU count, tensor parallel splits the layers; each offered at its smallest degree that
// fits, the global batch kept, as the same training (no caveat).
TEST(FitAdvice, ModelParallelDegreesAtTheSameGpus) {
    Case k;
    k.m = find_model("llama-3.1-8b");
    k.hw = find_hardware("h100");
    k.cal = default_calibration(k.hw);
    k.c.seq_len = 131072;
    k.c.micro_batch = 1;
    k.c.activation_checkpointing = Checkpointing::full;
    const FitAdvice a = fit_advice(k.m, k.hw, k.cal, k.c);
    ASSERT_FALSE(a.step.memory.fits);
    for (const char* name : {"context_parallel=", "tensor_parallel="}) {
        SCOPED_TRACE(name);
        const FitChange* f = find(a, name);
        ASSERT_NE(f, nullptr);
        EXPECT_TRUE(f->caveat.empty());
        EXPECT_EQ(f->config.gpus, 8);
        EXPECT_EQ(f->config.global_batch_tokens, 8 * 131072);
        const StepBreakdown s = k.step(f->config);
        EXPECT_TRUE(s.memory.fits);
        EXPECT_DOUBLE_EQ(f->memory_gib, s.memory.total_gib);
        // The next degree down does not fit.
        TrainingConfig half = f->config;
        if (half.context_parallel > 1) half.context_parallel /= 2;
        else half.tensor_parallel /= 2;
        EXPECT_FALSE(k.step(half).memory.fits);
    }
    EXPECT_EQ(find(a, "expert_parallel="), nullptr);  // a dense model
}

TEST(FitAdvice, TheScenarioIsValidatedFirst) {
    Case k;
    k.c.seq_len = 0;
    Scenario s = make_scenario(k.m, k.hw, k.c);
    EXPECT_THROW((void)fit_advice(s), std::invalid_argument);
}

}  // namespace
}  // namespace libscale
