// LoRA, QLoRA and DoRA: the trained / frozen split against hand counts and PEFT's printed
// figures, the stored bytes of an NF4 base, and what a frozen base removes from a step
// (weight gradients, their reduction, the optimizer) and adds (adapters, upcasts).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/fit_advice.hpp"
#include "libscale/estimate/memory_model.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/spec/fine_tuning.hpp"

namespace libscale {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TrainingConfig lora(FineTuning method, std::int64_t rank = 8) {
    TrainingConfig c;
    c.gpus = 1;
    c.strategy = Strategy::ddp;
    c.seq_len = 2048;
    c.fine_tuning = method;
    c.lora_rank = rank;
    return c;
}

TEST(FineTuning, AdapterCountsMatchPeftFigures) {
    // PEFT's print_trainable_parameters for Llama 3 8B, r = 8, target_modules="all-linear":
    // "trainable params: 20,971,520"; by hand 32 × 8 × (2·(4096 + 4096) + 2·(4096 + 1024) +
    // 3·(4096 + 14336)) = 32 × 655,360.
    const ModelSpec m = find_model("llama-3.1-8b");
    const ParameterCounts p = count_parameters(m);
    FineTuningPlan f = plan_fine_tuning(m, p, lora(FineTuning::lora));
    EXPECT_TRUE(f.peft);
    EXPECT_EQ(f.adapted_count, 7);
    EXPECT_DOUBLE_EQ(f.adapter_per_layer, 655360);
    EXPECT_DOUBLE_EQ(f.trained, 20971520);
    EXPECT_DOUBLE_EQ(f.frozen_per_layer, static_cast<double>(p.per_layer));
    // Llama 2 7B with q_proj, v_proj at r = 8 (PEFT's README example): 32 × 8 × 2 · 8192.
    TrainingConfig qv = lora(FineTuning::lora);
    qv.lora_targets = parse_lora_targets("q_proj,v_proj");
    f = plan_fine_tuning(find_model("llama-2-7b"), count_parameters(find_model("llama-2-7b")), qv);
    EXPECT_DOUBLE_EQ(f.trained, 4194304);
    // DoRA adds a magnitude per output feature of each adapted linear.
    const FineTuningPlan d = plan_fine_tuning(m, p, lora(FineTuning::dora));
    EXPECT_DOUBLE_EQ(d.trained - 20971520, 32.0 * (4096 + 1024 + 1024 + 4096 + 14336 + 14336 + 4096));
    // A full fine-tune trains everything.
    const FineTuningPlan full = plan_fine_tuning(m, p, TrainingConfig{});
    EXPECT_FALSE(full.peft);
    EXPECT_DOUBLE_EQ(full.trained, static_cast<double>(p.total));
}

TEST(FineTuning, Nf4BytesPerWeight) {
    // bitsandbytes / QLoRA: 4 bits, an fp32 absmax per 64; double quantization: uint8 absmax
    // and an fp32 scale per 256 blocks (arXiv 2305.14314 §3: 8/64 + 32/(64·256) = 0.127 bits).
    EXPECT_DOUBLE_EQ(base_bytes_per_weight(BaseWeights::nf4), 0.5625);
    EXPECT_NEAR((base_bytes_per_weight(BaseWeights::nf4_double_quant) - 0.5) * 8, 0.127, 0.0005);
    EXPECT_DOUBLE_EQ(base_bytes_per_weight(BaseWeights::fp8), 1.0);
    EXPECT_DOUBLE_EQ(base_bytes_per_weight(BaseWeights::bf16), 2.0);
    // qlora's automatic base is NF4 with double quantization, lora's bf16.
    const ModelSpec m = find_model("llama-3.1-8b");
    const ParameterCounts p = count_parameters(m);
    EXPECT_EQ(plan_fine_tuning(m, p, lora(FineTuning::qlora)).base, BaseWeights::nf4_double_quant);
    EXPECT_EQ(plan_fine_tuning(m, p, lora(FineTuning::lora)).base, BaseWeights::bf16);
}

TEST(FineTuning, TargetsParseAndRefuse) {
    EXPECT_EQ(parse_lora_targets("all-linear"), lora_target::all);
    EXPECT_EQ(parse_lora_targets("q_proj, v_proj"), lora_target::q | lora_target::v);
    // torchtune's names for the same modules.
    EXPECT_EQ(parse_lora_targets("output_proj,w1,w2,w3"), lora_target::o | lora_target::mlp);
    EXPECT_EQ(format_lora_targets(lora_target::q | lora_target::down), "q_proj,down_proj");
    EXPECT_EQ(format_lora_targets(lora_target::all), "all-linear");
    try {
        parse_lora_targets("q_proj,lm_head");
        FAIL() << "lm_head accepted";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("lora_targets = 'q_proj,lm_head'"), std::string::npos) << what;
        EXPECT_NE(what.find("'lm_head'"), std::string::npos) << what;
        EXPECT_NE(what.find("all-linear"), std::string::npos) << what;
    }
    EXPECT_THROW(parse_lora_targets(""), std::invalid_argument);
    TrainingConfig c;
    EXPECT_THROW(set_option(training_options(), c, "lora_targets", OptionValue{std::string("qproj")}),
                 std::invalid_argument);
    EXPECT_THROW(set_option(training_options(), c, "lora_rank", OptionValue{std::int64_t{0}}), std::invalid_argument);
}

TEST(FineTuning, QloraMemoryByHand) {
    // One GPU, no data-parallel wrapper, fp32 adapters (master_weights fp32): the base in
    // NF4 (decoder matmuls) and bf16 (norms, embeddings, head); adapters as bf16 compute
    // copies beside their fp32 masters, gradients and AdamW states.
    const ModelSpec m = find_model("llama-3.1-8b");
    const ParameterCounts p = count_parameters(m);
    const HardwareProfile hw = find_hardware("h100");
    const Calibration cal = default_calibration(hw);
    const TrainingConfig c = lora(FineTuning::qlora);
    const MemoryBreakdown mem = estimate_memory(m, p, hw, cal, c, 1);
    const double L = 32, adapters = 20971520;
    const double nf4 = 0.5 + 1.0 / 64 + 4.0 / 16384;
    const double base = L * (static_cast<double>(p.per_layer_matmul) * nf4 +
                             2.0 * static_cast<double>(p.per_layer - p.per_layer_matmul)) +
                        2.0 * static_cast<double>(p.root_unit);
    EXPECT_NEAR(mem.weights_gib, (base + 2 * adapters) / kGiB, 1e-9);
    EXPECT_NEAR(mem.optimizer_gib, adapters * (4 + 8) / kGiB, 1e-9);
    EXPECT_LE(mem.grads_gib, adapters * 2 / kGiB + 1e-12);
    // Under 6 GiB of weights against 15 for the bf16 base.
    EXPECT_LT(mem.weights_gib, 6.0);
    const MemoryBreakdown bf16 = estimate_memory(m, p, hw, cal, lora(FineTuning::lora), 1);
    EXPECT_GT(bf16.weights_gib, 14.9);
    EXPECT_LT(mem.total_gib, bf16.total_gib);
}

TEST(FineTuning, FrozenBaseDropsWeightGradients) {
    // No checkpointing, eager: a full fine-tune's layer GEMMs are forward + dgrad + wgrad;
    // LoRA's are forward + dgrad of the base plus the adapters' six small GEMMs each.
    const ModelSpec m = find_model("llama-3.1-8b");
    const ParameterCounts p = count_parameters(m);
    const HardwareProfile hw = find_hardware("h100");
    const Calibration cal = default_calibration(hw);
    TrainingConfig full = lora(FineTuning::full);
    full.activation_checkpointing = Checkpointing::none;
    TrainingConfig low = full;
    low.fine_tuning = FineTuning::lora;
    low.lora_rank = 16;
    const double t = 2048;
    double wgrad = 0, adapters = 0;
    for (const GemmOp& g : [&] {
             const LayerGemms lg = layer_gemms(m);
             return std::vector<GemmOp>(lg.gemms.begin(), lg.gemms.begin() + lg.count);
         }())
        wgrad += gemm_time_s(hw, cal, g.k, g.n, t);
    const FineTuningPlan f = plan_fine_tuning(m, p, low);
    for (int i = 0; i < f.adapted_count; ++i) {
        const AdaptedLinear& a = f.adapted[static_cast<std::size_t>(i)];
        const double r = f.rank;
        adapters += gemm_time_s(hw, cal, t, r, a.in) + gemm_time_s(hw, cal, t, r, a.out) +  // A fwd, B dgrad
                    gemm_time_s(hw, cal, a.in, r, t) +                                      // A wgrad
                    gemm_time_s(hw, cal, t, a.out, r) + gemm_time_s(hw, cal, t, a.in, r) +  // B fwd, A dgrad
                    gemm_time_s(hw, cal, r, a.out, t);                                      // B wgrad
    }
    // The output head (tied: no; Llama 3.1 8B has its own) loses its wgrad too.
    const double head_wgrad =
        gemm_time_s(hw, cal, static_cast<double>(m.hidden_size), static_cast<double>(m.vocab_size), t);
    const ComputeTimes cf = compute_times(m, p, hw, cal, full), cl = compute_times(m, p, hw, cal, low);
    EXPECT_NEAR(cl.gemm_s, cf.gemm_s - 32 * wgrad + 32 * adapters - head_wgrad, 1e-9 * cf.gemm_s);
    // The optimizer steps over the adapters only.
    EXPECT_NEAR(optimizer_step_s(f, hw, cal, low) / optimizer_step_s(plan_fine_tuning(m, p, full), hw, cal, full),
                f.trained / static_cast<double>(p.total), 1e-12);
}

TEST(FineTuning, FsdpReducesOnlyWhatIsTrained) {
    // 8 GPUs, FSDP: the base is gathered (bf16 or NF4) but only adapters are reduced.
    const ModelSpec m = find_model("qwen3-32b");
    const HardwareProfile hw = find_hardware("h100");
    const Calibration cal = default_calibration(hw);
    TrainingConfig full;
    full.gpus = 8;
    full.seq_len = 4096;
    full.master_weights = MasterWeights::bf16;  // bf16 adapters (torchtune): no input casts
    TrainingConfig low = full, q = full;
    low.fine_tuning = FineTuning::lora;
    q.fine_tuning = FineTuning::qlora;
    const StepBreakdown sf = estimate_step(m, hw, cal, full), sl = estimate_step(m, hw, cal, low),
                        sq = estimate_step(m, hw, cal, q);
    EXPECT_LT(sl.comm_s, sf.comm_s);
    EXPECT_LT(sq.comm_s, sl.comm_s);  // NF4 gathers about a quarter of bf16's bytes
    EXPECT_LT(sl.memory.total_gib, sf.memory.total_gib);
    EXPECT_LT(sq.memory.weights_gib, 0.3 * sl.memory.weights_gib);
    EXPECT_LT(sl.mfu, sf.mfu);                  // model FLOPs lose the frozen wgrad
    EXPECT_GT(sq.step_time_s, sl.step_time_s);  // NF4 weights are upcast before each GEMM
}

TEST(FineTuning, WhatWouldFitOffersLoraAndQlora) {
    // Qwen3-32B fully fine-tuned on one 80 GB GPU cannot fit; QLoRA (about 17 GiB of base)
    // does, and is offered with a caveat saying it is another method.
    const ModelSpec m = find_model("qwen3-32b");
    const HardwareProfile hw = find_hardware("h100");
    const Calibration cal = default_calibration(hw);
    TrainingConfig c;
    c.gpus = 1;
    c.strategy = Strategy::ddp;
    c.seq_len = 2048;
    const FitAdvice a = fit_advice(m, hw, cal, c);
    ASSERT_FALSE(a.step.memory.fits);
    bool qlora = false;
    for (const FitChange& f : a.changes)
        if (f.change.find("fine_tuning='qlora'") != std::string::npos) {
            qlora = true;
            EXPECT_NE(f.caveat.find("another method"), std::string::npos) << f.caveat;
            EXPECT_TRUE(estimate_step(m, hw, cal, f.config).memory.fits);
        }
    EXPECT_TRUE(qlora) << fit_advice_text(a);
}

}  // namespace
}  // namespace libscale
