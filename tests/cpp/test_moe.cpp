// Mixture-of-experts models and expert parallel: exact parameter counts (total and active)
// against the published ones, the HF config readers, the grouped expert GEMMs, the
// all-to-alls expert parallel adds (by hand on the tiny GPU, whose NVLink moves 1e12 B/s
// with no latency), the smaller gathered unit, and the rules.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "libscale/estimate/collective.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/config_rules.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/error.hpp"
#include "libscale/spec/flops.hpp"
#include "libscale/spec/hf_config.hpp"
#include "libscale/spec/parallelism.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The tiny model with 8 experts of width 500 on every layer, top 2:
//   per layer: attention 4,000,000 + norms 2,000 + router 1000·8 = 8,000
//              + experts 8 · 3 · 1000 · 500 = 12,000,000           = 16,010,000
//   layers 4 · 16,010,000 = 64,040,000; root 100,001,000; total 164,041,000
//   active: total − 4 layers · 6 unrouted experts · 1,500,000    = 128,041,000
ModelSpec tiny_moe() {
    ModelSpec m = test::tiny_model();
    m.name = "tiny-moe";
    m.num_experts = 8;
    m.experts_per_token = 2;
    m.moe_intermediate_size = 500;
    m.moe_layers = 4;
    return m;
}

TEST(MixtureOfExperts, TinyCountsByHand) {
    const ParameterCounts p = count_parameters(tiny_moe());
    EXPECT_EQ(p.router, 8'000);
    EXPECT_EQ(p.routed_experts, 12'000'000);
    EXPECT_EQ(p.per_layer, 16'010'000);
    EXPECT_EQ(p.largest_layer, 16'010'000);
    EXPECT_EQ(p.total, 164'041'000);
    EXPECT_EQ(p.active, 128'041'000);
    // A token's matmuls per layer: attention 4e6, router 8e3, two experts 3e6.
    EXPECT_EQ(p.per_layer_active_matmul, 7'008'000);
    EXPECT_EQ(p.matmul_forward, 4 * 7'008'000 + 50'000'000);
    // Two of the four layers dense (f = 3000, 9e6): the per-layer fields are the means.
    ModelSpec half = tiny_moe();
    half.moe_layers = 2;
    const ParameterCounts h = count_parameters(half);
    EXPECT_EQ(h.layers, 2 * 16'010'000 + 2 * 13'002'000);
    EXPECT_EQ(h.per_layer, (16'010'000 + 13'002'000) / 2);
    EXPECT_EQ(h.largest_layer, 16'010'000);
    EXPECT_EQ(h.active, h.total - 2 * 6 * 1'500'000);
}

// Qwen3-30B-A3B: per layer q 2048·4096 = 8,388,608, k and v 2048·512 = 1,048,576 each,
// o 8,388,608, q/k norms 2·128, norms 2·2048 → 18,878,720; router 2048·128 = 262,144;
// experts 128·3·2048·768 = 603,979,776 → 623,120,640; × 48 = 29,909,790,720; embedding and
// lm_head 2·151936·2048 = 622,329,856; final norm 2048 → 30,532,122,624 (keras-hub's
// "params": 30532122624). Active: 48 layers × 120 unrouted experts × 4,718,592 less.
TEST(MixtureOfExperts, Qwen3_30B_A3B_ByHand) {
    const ModelSpec m = find_model("qwen3-30b-a3b");
    EXPECT_EQ(m.num_experts, 128);
    EXPECT_EQ(m.experts_per_token, 8);
    EXPECT_EQ(m.moe_intermediate_size, 768);
    EXPECT_EQ(m.moe_layers, 48);
    const ParameterCounts p = count_parameters(m);
    EXPECT_EQ(p.per_layer, 623'120'640);
    EXPECT_EQ(p.total, 30'532'122'624);
    EXPECT_EQ(p.active, 30'532'122'624 - std::int64_t{48} * 120 * 4'718'592);
    EXPECT_EQ(p.active, 3'353'032'704);
}

// Every mixture-of-experts file of the catalog: the formula's active count is the one the
// file states, and within 2 % of the rounded figure its authors publish ("3.3B
// activated", "12.9B", "A14B", ...); the total is checked with every model in
// test_model_spec.cpp.
TEST(MixtureOfExperts, CatalogActiveCountsMatchPublished) {
    int moe = 0;
    for (const std::string& name : model_names()) {
        const ModelSpec m = find_model(name);
        if (!m.moe()) continue;
        SCOPED_TRACE(name);
        ++moe;
        const json file = json::parse(catalog_file("models/" + name + ".json"));
        const json& meta = file.at("_libscale");
        const ParameterCounts p = count_parameters(m);
        EXPECT_EQ(p.active, meta.at("active_parameters_formula").get<std::int64_t>());
        const double published = meta.at("active_parameters_published").get<double>();
        EXPECT_NEAR(static_cast<double>(p.active) / published, 1.0, 0.02);
    }
    EXPECT_EQ(moe, 6);
}

json qwen2_moe_config() {
    return json::parse(R"({"model_type": "qwen2_moe", "hidden_size": 1024, "intermediate_size": 2816,
        "num_hidden_layers": 6, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 1000,
        "num_experts": 16, "num_experts_per_tok": 4, "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 2048})");
}

TEST(MixtureOfExperts, Qwen2MoeLayersSharedExpertAndDenseLayers) {
    json c = qwen2_moe_config();
    ModelSpec m = model_from_hf_config(c, "q", "test");
    EXPECT_EQ(m.moe_layers, 6);
    EXPECT_EQ(m.shared_expert_intermediate_size, 2048);
    EXPECT_TRUE(m.shared_expert_gate);
    EXPECT_TRUE(m.qkv_bias);
    // The shared expert, 3 · 1024 · 2048, and its 1024 × 1 gate.
    EXPECT_EQ(count_parameters(m).shared_experts, 3 * 1024 * 2048 + 1024);
    // decoder_sparse_step 2: layers 1, 3, 5 sparse; mlp_only_layers [3]: two left.
    c["decoder_sparse_step"] = 2;
    c["mlp_only_layers"] = json::array({3});
    m = model_from_hf_config(c, "q", "test");
    EXPECT_EQ(m.moe_layers, 2);
    EXPECT_EQ(m.dense_layers(), 4);
    // Every layer dense: a dense model.
    c["mlp_only_layers"] = json::array({0, 1, 2, 3, 4, 5});
    m = model_from_hf_config(c, "q", "test");
    EXPECT_FALSE(m.moe());
    EXPECT_EQ(count_parameters(m).routed_experts, 0);
    c["mlp_only_layers"] = json::array({6});
    EXPECT_NE(test::error_of([&] { (void)model_from_hf_config(c, "q", "test"); }).find("'mlp_only_layers' = 6"),
              std::string::npos);
}

TEST(MixtureOfExperts, BadAndUnreadConfigsNameTheField) {
    json c = qwen2_moe_config();
    c["num_experts_per_tok"] = 17;
    const std::string top_k = test::error_of([&] { (void)model_from_hf_config(c, "q", "test"); });
    EXPECT_NE(top_k.find("'num_experts_per_tok' = 17"), std::string::npos) << top_k;
    EXPECT_NE(top_k.find("1 to num_experts = 16"), std::string::npos) << top_k;
    // DeepSeek's multi-head latent attention is not read: refused by model_type, naming
    // the families that are.
    const std::string deepseek = test::error_of([] {
        (void)model_from_hf_config(json::parse(R"({"model_type": "deepseek_v3", "n_routed_experts": 256})"), "d",
                                   "test");
    });
    EXPECT_NE(deepseek.find("'n_routed_experts' = 256"), std::string::npos) << deepseek;
    EXPECT_NE(deepseek.find("mixtral, olmoe, qwen2_moe, qwen3_moe"), std::string::npos) << deepseek;
    // A dense family's config with an expert count is still refused.
    const std::string llama = test::error_of([] {
        (void)model_from_hf_config(json::parse(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "num_local_experts": 8})"),
                                   "l", "test");
    });
    EXPECT_NE(llama.find("'num_local_experts' = 8"), std::string::npos) << llama;
}

// torch._grouped_mm runs the local experts' GEMMs as one launch whose tiles share the
// waves: 16 experts of 8192 rows cost what one GEMM of 16 · 8192 rows does (8192 is whole
// tiles); transformers' loop launches each alone.
TEST(MixtureOfExperts, GroupedGemmSharesWaves) {
    const HardwareProfile hw = find_hardware("h100");
    const Calibration cal = default_calibration(hw);
    const double grouped = gemm_time_s(hw, cal, 8192, 768, 2048, false, 16);
    EXPECT_REL(grouped, gemm_time_s(hw, cal, 16 * 8192, 768, 2048));
    // 200 rows an expert: one tile row each; alone, 6 tiles on 132 SMs run stream-K.
    EXPECT_GT(16 * gemm_time_s(hw, cal, 200, 768, 2048), gemm_time_s(hw, cal, 200, 768, 2048, false, 16));
}

TrainingConfig ep2() {
    TrainingConfig c = test::tiny_config();  // 2 GPUs, 1000 tokens a micro-batch, A = 2
    c.expert_parallel = 2;
    return c;
}

TEST(ExpertParallel, AllToAllsByHand) {
    const ModelSpec m = tiny_moe();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    const StepBreakdown s = estimate_step(m, hw, cal, ep2());
    EXPECT_EQ(s.expert_parallel, 2);
    EXPECT_EQ(s.data_parallel, 2);
    // Dispatch and combine each send a rank's 1000 tokens × 2 experts × 1000 × 2 B = 4e6 B,
    // half of it to the other GPU: 2e6 B at 1e12 B/s = 2 µs; the token counts, 8 experts ×
    // 8 B, 32 ns... exactly 32 B / 1e12. A layer: counts + 2 forward, 2 backward, counts + 2
    // again in full checkpointing's recompute; 4 layers, 2 micro-batches.
    const double a2a = 2e-6, counts = 32.0 / 1e12;
    EXPECT_REL(all_to_all_time_s(4e6, 2, 2, cal), a2a);
    EXPECT_NEAR(s.model_parallel_comm_s, 2 * 4 * (6 * a2a + 2 * counts), 1e-15);
    EXPECT_GE(s.exposed_comm_s, s.model_parallel_comm_s);
    // Op-level checkpointing saves the all-to-alls' outputs: none again.
    TrainingConfig sel = ep2();
    sel.activation_checkpointing = Checkpointing::selective;
    EXPECT_NEAR(estimate_step(m, hw, cal, sel).model_parallel_comm_s, 2 * 4 * (4 * a2a + counts), 1e-15);
    // The busiest rank's imbalance scales the bytes it receives.
    TrainingConfig skew = sel;
    skew.expert_imbalance = 1.5;
    EXPECT_NEAR(estimate_step(m, hw, cal, skew).model_parallel_comm_s, 2 * 4 * (4 * 1.5 * a2a + counts), 1e-15);
}

// DeepEP sends a token once to each rank holding one of its experts. Top 2 of 8 experts,
// 4 on each of 2 ranks: a rank is missed with probability (4/8)·(3/7) = 3/14, so a token
// goes to 2·(1 − 3/14) = 11/7 ranks instead of 2 copies: 11/14 of the bytes.
TEST(ExpertParallel, DeepEpSendsATokenOncePerRank) {
    const ModelSpec m = tiny_moe();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    TrainingConfig c = ep2();
    c.expert_comm_backend = ExpertCommBackend::deepep;
    const double a2a = 2e-6 * 11.0 / 14.0, counts = 32.0 / 1e12;
    EXPECT_NEAR(estimate_step(m, hw, cal, c).model_parallel_comm_s, 2 * 4 * (6 * a2a + 2 * counts), 1e-15);
    // With one expert per token nothing is duplicated: the same bytes either way.
    ModelSpec top1 = m;
    top1.experts_per_token = 1;
    TrainingConfig standard = ep2();
    EXPECT_NEAR(estimate_step(top1, hw, cal, c).model_parallel_comm_s,
                estimate_step(top1, hw, cal, standard).model_parallel_comm_s, 1e-15);
    EXPECT_EQ(parse_expert_comm_backend("deepep"), ExpertCommBackend::deepep);
    EXPECT_NE(test::error_of([] { (void)parse_expert_comm_backend("nccl"); }).find("expert_comm_backend"),
              std::string::npos);
}

TEST(ExpertParallel, AcrossNodesTheNicsSetThePace) {
    // 16 ranks, 8 a node: a GPU sends 7/16 of its buffer over NVLink (1e12 B/s) and 8/16
    // through its own NIC (1.25e10 B/s); the NIC's share sets the time.
    const Calibration cal = test::tiny_calibration();
    EXPECT_REL(all_to_all_time_s(1.6e9, 16, 8, cal), 8 * 1e8 / 1.25e10);
    // Inside a node it is the all-gather's cost.
    EXPECT_REL(all_to_all_time_s(1.6e9, 8, 8, cal), ring_time_s(Collective::all_gather, 1.6e9, 8, cal.intra_node));
}

TEST(ExpertParallel, GathersOnlyTheRanksExperts) {
    const ModelSpec m = tiny_moe();
    const HardwareProfile hw = test::tiny_hardware();
    const Calibration cal = test::tiny_calibration();
    TrainingConfig one = ep2();
    one.expert_parallel = 1;
    const StepBreakdown a = estimate_step(m, hw, cal, one), b = estimate_step(m, hw, cal, ep2());
    // Each layer's 12e6 routed-expert parameters: a rank holds and gathers 6e6 of them under
    // expert parallel 2, its shard the same 1/2 of everything either way.
    EXPECT_DOUBLE_EQ(a.memory.weights_gib, b.memory.weights_gib);
    EXPECT_DOUBLE_EQ(a.memory.optimizer_gib, b.memory.optimizer_gib);
    // In backward (the loss, over 50,000 logits a token, is this model's peak) the gathered
    // layer, its all-gather output, its unsharded gradients and, below the last layer, the
    // reduce-scatter input hold 6e6 fewer parameters each: 2 + 2 + 2 (+ 2) B.
    const std::size_t backward = static_cast<std::size_t>(MemoryPhase::backward);
    const double saved = (a.memory.phase_gib[backward] - b.memory.phase_gib[backward]) * kGiB;
    EXPECT_GE(saved, 6 * 6e6 - 1);
    EXPECT_LE(saved, 8 * 6e6 + 1);
    // With 2 GPUs the experts' own group is one rank: FSDP moves only the rest of a layer.
    EXPECT_LT(b.comm_s - b.model_parallel_comm_s, a.comm_s);
    // The same work: the step's FLOPs and the GEMMs' FLOPs do not change (no waves here).
    EXPECT_DOUBLE_EQ(a.mfu * a.step_time_s, b.mfu * b.step_time_s);
    EXPECT_NEAR(a.gemm_s, b.gemm_s, 1e-12);
}

TEST(ExpertParallel, RulesNameFieldValueAndValid) {
    const HardwareProfile hw = find_hardware("h100");
    TrainingConfig c;
    c.gpus = 8;
    c.seq_len = 4096;
    c.expert_parallel = 8;
    const std::string dense = test::error_of([&] { validate_config(find_model("llama-3.1-8b"), hw, c); });
    EXPECT_NE(dense.find("expert_parallel = 8: llama-3.1-8b is a dense model"), std::string::npos) << dense;
    const ModelSpec mixtral = find_model("mixtral-8x7b-v0.1");  // 8 experts
    c.gpus = 16;
    c.expert_parallel = 16;
    const std::string experts = test::error_of([&] { validate_config(mixtral, hw, c); });
    EXPECT_NE(experts.find("does not divide mixtral-8x7b-v0.1's num_experts = 8"), std::string::npos) << experts;
    EXPECT_NE(experts.find("valid: 1, 2, 4, 8"), std::string::npos) << experts;
    c.expert_parallel = 8;
    c.strategy = Strategy::zero2;
    EXPECT_NE(test::error_of([&] { validate_config(mixtral, hw, c); }).find("with strategy = 'zero2'"),
              std::string::npos);
    c.strategy = Strategy::fsdp;
    check_config(mixtral, hw, c);  // experts split 8 ways inside 16 shards
    c.tensor_parallel = 2;
    c.expert_parallel = 1;
    const std::string tp = test::error_of([&] { validate_config(mixtral, hw, c); });
    EXPECT_NE(tp.find("tensor_parallel = 2 with mixtral-8x7b-v0.1, a mixture-of-experts model"), std::string::npos)
        << tp;
    c.tensor_parallel = 1;
    c.fine_tuning = FineTuning::lora;
    EXPECT_NE(test::error_of([&] { validate_config(mixtral, hw, c); }).find("fine_tuning = 'lora'"), std::string::npos);
    TrainingConfig mesh;
    mesh.gpus = 16;
    mesh.expert_parallel = 8;
    EXPECT_EQ(format_mesh(device_mesh(mesh, 8)), "dp_shard 16 (ep 8)");
    EXPECT_EQ(device_mesh(mesh, 8).expert_shard_group(), 2);
}

// transformers' eager experts: a loop of launches, each expert's after a host sync on its
// token indices; torchtitan's grouped GEMMs do the same FLOPs in a few launches.
TEST(MixtureOfExperts, TransformersLoopIsHostBound) {
    const ModelSpec m = find_model("qwen3-30b-a3b");
    const HardwareProfile hw = find_hardware("h100");
    const Calibration cal = default_calibration(hw);
    TrainingConfig c;
    c.gpus = 8;
    c.seq_len = 4096;
    c.implementation = Implementation::transformers;
    const OperationPlan looped = plan_operations(m, count_parameters(m), c);
    EXPECT_DOUBLE_EQ(looped.layer_forward_serial_kernels, 128 * 7);
    c.implementation = Implementation::torchtitan;
    const OperationPlan grouped = plan_operations(m, count_parameters(m), c);
    EXPECT_DOUBLE_EQ(grouped.layer_forward_serial_kernels, 0);
    EXPECT_GT(looped.layer_forward_kernels, grouped.layer_forward_kernels + 128 * 3);
    c.implementation = Implementation::transformers;
    const double slow = compute_times(m, count_parameters(m), hw, cal, c).micro_batch_s();
    c.implementation = Implementation::torchtitan;
    EXPECT_GT(slow, compute_times(m, count_parameters(m), hw, cal, c).micro_batch_s());
}

// MFU counts a token's FLOPs: its k experts, not all of them (6 × active matmul weights).
TEST(MixtureOfExperts, FlopsCountActiveParameters) {
    const ModelSpec m = find_model("qwen3-30b-a3b");
    const ParameterCounts p = count_parameters(m);
    const FlopsPerToken f = flops_per_token(p, m, 0.0, Checkpointing::none);
    // Active matmul weights: active less the embedding and the norms (48 · (4096 + 256) + 2048).
    const double matmul = static_cast<double>(p.active - p.embedding - (48 * (4096 + 256) + 2048));
    EXPECT_REL(f.matmul_forward, 2 * matmul);
    EXPECT_REL(f.model, 6 * matmul);
}

}  // namespace
}  // namespace libscale
