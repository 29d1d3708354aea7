// The shipped catalogs: every entry loads and validates, lookups by name and by path,
// unknown names with suggestions, default calibrations resolved against hardware.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "libscale/io/catalog.hpp"
#include "libscale/io/error.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(Catalog, EveryModelLoads) {
    const std::vector<std::string> expected = {"codellama-34b",
                                               "gemma-2-9b",
                                               "gemma-2b",
                                               "gpt2",
                                               "kempnerforge-13b",
                                               "kempnerforge-debug-20m",
                                               "kempnerforge-wikitext-77m",
                                               "llama-2-13b",
                                               "llama-2-70b",
                                               "llama-2-7b",
                                               "llama-3.1-405b",
                                               "llama-3.1-70b",
                                               "llama-3.1-8b",
                                               "llama-3.2-3b",
                                               "llm-foundry-mpt-125m",
                                               "llm-foundry-mpt-13b",
                                               "llm-foundry-mpt-1b",
                                               "llm-foundry-mpt-30b",
                                               "llm-foundry-mpt-350m",
                                               "llm-foundry-mpt-3b",
                                               "llm-foundry-mpt-70b",
                                               "llm-foundry-mpt-760m",
                                               "llm-foundry-mpt-7b",
                                               "mistral-7b-v0.1",
                                               "mixtral-8x7b-v0.1",
                                               "mpt-7b",
                                               "olmo-1b",
                                               "olmo-2-1124-7b",
                                               "olmoe-1b-7b-0924",
                                               "opt-125m",
                                               "phi-2",
                                               "phi-3-mini-4k-instruct",
                                               "pythia-1b",
                                               "qwen1.5-moe-a2.7b",
                                               "qwen2-57b-a14b",
                                               "qwen2.5-7b",
                                               "qwen3-0.6b",
                                               "qwen3-1.7b",
                                               "qwen3-14b",
                                               "qwen3-235b-a22b",
                                               "qwen3-30b-a3b",
                                               "qwen3-32b",
                                               "qwen3-4b",
                                               "qwen3-8b"};
    EXPECT_EQ(model_names(), expected);  // sorted
    for (const std::string& name : model_names()) {
        SCOPED_TRACE(name);
        const ModelSpec m = find_model(name);
        EXPECT_EQ(m.name, name);
        EXPECT_NO_THROW(m.validate());
        EXPECT_FALSE(m.source.empty());
        EXPECT_FALSE(m.model_type.empty());  // every catalog file carries model_type
        // Per-head q/k norm: Qwen3 only; full-width: OLMo 2 only.
        EXPECT_EQ(m.qk_norm == QkNorm::per_head, name.rfind("qwen3", 0) == 0);
        EXPECT_EQ(m.qk_norm == QkNorm::full, name == "olmo-2-1124-7b" || name == "olmoe-1b-7b-0924");
        // Bias on q/k/v: Qwen2 (and its MoE models), and the GPT-2 / OPT / Pythia / Phi-2 generation.
        // llm-foundry's benchmark MPTs keep MPTConfig's default no_bias = false (the Hugging
        // Face mpt-7b release sets no_bias = true).
        const bool biased = name == "qwen2.5-7b" || name == "qwen1.5-moe-a2.7b" || name == "qwen2-57b-a14b" ||
                            name == "gpt2" || name == "opt-125m" || name == "pythia-1b" || name == "phi-2" ||
                            name.rfind("llm-foundry-mpt-", 0) == 0;
        EXPECT_EQ(m.qkv_bias, biased);
    }
}

TEST(Catalog, FamilyFlagsOfTheNewModels) {
    const ModelSpec gpt2 = find_model("gpt2");
    EXPECT_EQ(gpt2.positions, Positions::learned);
    EXPECT_EQ(gpt2.position_embedding_rows, 1024);
    EXPECT_EQ(gpt2.activation, Activation::gelu_tanh);  // gelu_new
    EXPECT_TRUE(gpt2.fused_qkv && gpt2.tie_word_embeddings && gpt2.norm_bias);
    EXPECT_EQ(find_model("opt-125m").position_embedding_rows, 2050);  // 2048 + OPT's offset of 2
    EXPECT_EQ(find_model("opt-125m").activation, Activation::relu);
    EXPECT_TRUE(find_model("pythia-1b").parallel_block);
    EXPECT_TRUE(find_model("phi-2").lm_head_bias);
    EXPECT_EQ(find_model("phi-2").norms_per_layer, 1);
    const ModelSpec phi3 = find_model("phi-3-mini-4k-instruct");
    EXPECT_TRUE(phi3.fused_qkv && phi3.fused_gate_up);
    EXPECT_EQ(phi3.sliding_window, 2047);
    EXPECT_EQ(phi3.sliding_window_layers, 32);
    EXPECT_EQ(find_model("gemma-2b").activation, Activation::gelu_tanh);
    const ModelSpec gemma2 = find_model("gemma-2-9b");
    EXPECT_EQ(gemma2.norms_per_layer, 4);
    EXPECT_EQ(gemma2.sliding_window_layers, 21);  // even layers of 42
    EXPECT_DOUBLE_EQ(gemma2.attn_logit_softcap, 50.0);
    EXPECT_DOUBLE_EQ(gemma2.final_logit_softcap, 30.0);
    EXPECT_EQ(find_model("mistral-7b-v0.1").sliding_window_layers, 32);
    EXPECT_EQ(find_model("qwen2.5-7b").sliding_window, 0);  // use_sliding_window false
    EXPECT_EQ(find_model("mpt-7b").positions, Positions::alibi);
    EXPECT_FALSE(find_model("olmo-1b").norm_affine);
    EXPECT_EQ(find_model("llama-3.1-8b").mlp, MlpKind::gated);
}

TEST(Catalog, FactsFieldsOfQwen3_32B) {
    const ModelSpec m = find_model("qwen3-32b");
    EXPECT_EQ(m.hidden_size, 5120);
    EXPECT_EQ(m.intermediate_size, 25600);
    EXPECT_EQ(m.num_layers, 64);
    EXPECT_EQ(m.num_heads, 64);
    EXPECT_EQ(m.num_kv_heads, 8);
    EXPECT_EQ(m.head_dim, 128);  // explicit: 64 · 128 = 8192 ≠ 5120
    EXPECT_EQ(m.vocab_size, 151936);
    EXPECT_EQ(m.max_position_embeddings, 40960);
    EXPECT_FALSE(m.tie_word_embeddings);
    // Llama-3.1 has no head_dim key: 4096 / 32 = 128.
    EXPECT_EQ(find_model("llama-3.1-8b").head_dim, 128);
    EXPECT_EQ(find_model("llama-3.1-8b").max_position_embeddings, 131072);
}

TEST(Catalog, NamesAreCaseInsensitive) {
    EXPECT_EQ(find_model("Qwen3-32B").name, "qwen3-32b");
    EXPECT_EQ(find_hardware("B300").name, "b300");
}

TEST(Catalog, EveryHardwareLoadsWithPublishedFigures) {
    const std::vector<std::string> expected = {"a100", "a100-40gb", "b200", "b300", "gb200", "h100", "h200"};
    EXPECT_EQ(hardware_names(), expected);
    for (const std::string& name : hardware_names()) {
        SCOPED_TRACE(name);
        const HardwareProfile h = find_hardware(name);
        EXPECT_NO_THROW(h.validate());
        const Calibration cal = default_calibration(h);
        EXPECT_NO_THROW(cal.validate());
        EXPECT_EQ(cal.hardware, name);
        EXPECT_EQ(cal.kind, "default");
        EXPECT_NE(cal.source.find("default-" + name + ".json"), std::string::npos) << cal.source;
    }
    // Published dense BF16 TFLOP/s and HBM bandwidth (glennklockwood.com, NVIDIA's H200
    // datasheet and HGX table; each hardware file's `sources`, calibration/data/README.md).
    EXPECT_DOUBLE_EQ(find_hardware("a100").peak_bf16_tflops, 312);
    EXPECT_DOUBLE_EQ(find_hardware("h100").peak_bf16_tflops, 989.4);
    EXPECT_DOUBLE_EQ(find_hardware("h100").hbm_tbps, 3.35);
    EXPECT_DOUBLE_EQ(find_hardware("h200").hbm_tbps, 4.8);
    EXPECT_DOUBLE_EQ(find_hardware("b200").peak_bf16_tflops, 2250);
    EXPECT_DOUBLE_EQ(find_hardware("b300").peak_bf16_tflops, 2250);
    EXPECT_DOUBLE_EQ(find_hardware("gb200").peak_bf16_tflops, 2500);
    // HGX B300: one 800 Gb/s ConnectX-8 per GPU = 100 GB/s; HGX H100 400 Gb/s = 50 GB/s.
    EXPECT_DOUBLE_EQ(find_hardware("b300").nic_bytes_per_s(), 100e9);
    EXPECT_DOUBLE_EQ(find_hardware("h100").nic_bytes_per_s(), 50e9);
    // NVLink 900 GB/s bidirectional on H100 = 450 GB/s one way (nccl-tests#212 line rate).
    EXPECT_DOUBLE_EQ(find_hardware("h100").nvlink_bytes_per_s_unidir(), 450e9);
    EXPECT_EQ(find_hardware("b300").gpus_per_node, 8);
}

TEST(Catalog, DefaultCalibrationResolvesFractions) {
    // default-h100.json: intra 0.82 · 450 GB/s = 369 GB/s (nccl-tests#212: "~370");
    // inter 0.94 · 50 GB/s = 47 GB/s (nccl-tests#290: "46-48"); idle from the hardware
    // file (70.6 W), compute power 1.0 · 700 W.
    const Calibration cal = default_calibration(find_hardware("h100"));
    EXPECT_NEAR(cal.intra_node.busbw_bytes_per_s, 369e9, 1e3);
    EXPECT_NEAR(cal.inter_node.busbw_bytes_per_s, 47e9, 1e3);
    // The compute laws are absolute in the file (its sources derive each): GEMM from the
    // MAMF table, attention from FlashAttention-2's H100 charts, 5 µs per kernel launch.
    EXPECT_DOUBLE_EQ(cal.gemm.eta_max, 0.858);
    EXPECT_DOUBLE_EQ(cal.gemm.fp8_eta_max, 0.748);
    EXPECT_DOUBLE_EQ(cal.gemm.k_half, 295);
    EXPECT_DOUBLE_EQ(cal.attention.forward_eta_max, 0.347);
    EXPECT_DOUBLE_EQ(cal.attention.forward_half_seq, 408);
    EXPECT_DOUBLE_EQ(cal.attention.backward_eta_max, 0.341);
    EXPECT_DOUBLE_EQ(cal.attention.backward_half_seq, 608);
    EXPECT_DOUBLE_EQ(cal.attention.head_dim_half, 20);
    // Centred on the shipped step timings (scripts/centre_defaults.py), with their spread.
    const nlohmann::json raw = nlohmann::json::parse(catalog_file("calibrations/default-h100.json"));
    const double kappa = raw.at("compute").at("framework_efficiency").get<double>();
    const double spread = raw.at("spread").at("framework_efficiency").get<double>();
    EXPECT_GT(kappa, 0.5);
    EXPECT_LT(kappa, 1.0);
    EXPECT_DOUBLE_EQ(cal.framework_efficiency, kappa);
    const CalibrationFile file = default_calibration_file(find_hardware("h100"));
    ASSERT_EQ(file.parameters, std::vector<std::string>{"framework_efficiency"});
    EXPECT_NEAR(std::sqrt(file.covariance(0, 0)), kappa * spread, 1e-12);
    EXPECT_DOUBLE_EQ(cal.kernel_overhead_s, 5e-6);
    EXPECT_DOUBLE_EQ(cal.hbm_efficiency, 0.9);
    EXPECT_DOUBLE_EQ(cal.fragmentation, 0.0);
    EXPECT_DOUBLE_EQ(cal.memory_margin, 0.2);
    EXPECT_EQ(default_priors(find_hardware("h100")).at("framework_efficiency"), 0.3);
    EXPECT_DOUBLE_EQ(cal.power_idle_w, 70.6);
    EXPECT_DOUBLE_EQ(cal.power_compute_w, 700);
    EXPECT_DOUBLE_EQ(cal.reserved_gib, 3.0);
    // A100 with a 200G NIC: 0.96 · 25 GB/s = 24 GB/s (nccl-tests#119).
    EXPECT_NEAR(default_calibration(find_hardware("a100")).inter_node.busbw_bytes_per_s, 24e9, 1e3);
}

TEST(Catalog, UnknownHardwareGetsTheGenericCalibration) {
    HardwareProfile h = test::tiny_hardware();
    h.idle_power_w = std::nan("");  // no idle figure: 0.1 · board power
    const Calibration cal = default_calibration(h);
    EXPECT_NE(cal.source.find("generic"), std::string::npos) << cal.source;
    EXPECT_DOUBLE_EQ(cal.power_idle_w, 100.0);                    // 0.1 · 1000 W
    EXPECT_NEAR(cal.intra_node.busbw_bytes_per_s, 0.82e12, 1e3);  // 0.82 · 1e12 one way
    EXPECT_NEAR(cal.inter_node.busbw_bytes_per_s, 0.94e11, 1e3);
}

TEST(Catalog, UnknownModelSuggestsClosest) {
    try {
        (void)find_model("qwen3-33b");
        FAIL();
    } catch (const UnknownNameError& e) {
        ASSERT_FALSE(e.suggestions().empty());
        EXPECT_EQ(e.suggestions().front(), "qwen3-32b");  // one edit away
        EXPECT_LE(e.suggestions().size(), 3u);
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'qwen3-33b'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("qwen3-32b"), std::string::npos) << msg;
    }
    try {
        (void)find_hardware("b301");
        FAIL();
    } catch (const UnknownNameError& e) {
        EXPECT_EQ(e.suggestions().front(), "b300");
    }
    // UnknownNameError is a libscale::Error (Python: libscale.UnknownNameError).
    EXPECT_THROW((void)find_model("gpt-5"), Error);
}

TEST(Catalog, ClosestNames) {
    const std::vector<std::string> names{"h100", "h200", "b200", "b300"};
    EXPECT_EQ(closest_names("h10", names, 1), std::vector<std::string>{"h100"});
    EXPECT_EQ(closest_names("B300", names, 2).front(), "b300");  // case-insensitive
    EXPECT_EQ(closest_names("x", names, 10).size(), 4u);
}

TEST(Catalog, ModelFromAPathOrSnapshotDirectory) {
    const auto dir = test::temp_dir("catalog_model_path") / "my-model";
    std::filesystem::create_directories(dir);
    test::write_text(dir / "config.json", R"({
        "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "vocab_size": 100, "max_position_embeddings": 256})");
    const ModelSpec by_dir = find_model(dir.string());
    EXPECT_EQ(by_dir.name, "my-model");                 // the snapshot directory's name
    EXPECT_EQ(count_parameters(by_dir).total, 86'848);  // test_model_spec.cpp by hand
    EXPECT_EQ(find_model((dir / "config.json").string()).name, "my-model");
    EXPECT_THROW((void)find_model((dir / "missing.json").string()), ParseError);
}

TEST(Catalog, HardwareFromATempFile) {
    const auto dir = test::temp_dir("catalog_hardware_path");
    const auto file = dir / "mygpu.json";
    test::write_text(file, R"({
        "schema": "libscale.hardware/1", "name": "mygpu", "peak_bf16_tflops": 500,
        "hbm_gib": 96, "hbm_tbps": 4, "nvlink_gbps_bidir": 800, "nic_gbps_per_gpu": 200,
        "gpus_per_node": 4, "board_power_w": 600, "idle_power_w": null,
        "price_per_gpu_hour_usd": 1.25})");
    const HardwareProfile h = find_hardware(file.string());
    EXPECT_EQ(h.name, "mygpu");
    EXPECT_DOUBLE_EQ(h.peak_flops(), 500e12);
    EXPECT_DOUBLE_EQ(h.hbm_bytes_per_s(), 4e12);
    EXPECT_DOUBLE_EQ(h.nic_bytes_per_s(), 25e9);
    EXPECT_EQ(h.gpus_per_node, 4);
    EXPECT_TRUE(std::isnan(h.idle_power_w));
    EXPECT_EQ(h.source, file.string());
    // Generic calibration: idle 0.1 · 600 W; inter 0.94 · 25 GB/s.
    const Calibration cal = default_calibration(h);
    EXPECT_DOUBLE_EQ(cal.power_idle_w, 60.0);
    EXPECT_NEAR(cal.inter_node.busbw_bytes_per_s, 23.5e9, 1e3);
}

TEST(Catalog, ShippedFiles) {
    const std::vector<std::string> files = catalog_files();
    // Counted per directory, so that adding e.g. example measurements does not break it.
    const auto under = [&](const std::string& dir) {
        return std::count_if(files.begin(), files.end(), [&](const std::string& f) { return f.rfind(dir, 0) == 0; });
    };
    EXPECT_EQ(under("models/"), 44);
    EXPECT_EQ(under("hardware/"), 7);
    EXPECT_EQ(under("calibrations/"), 10);  // 8 defaults (one generic), one derived, one fitted (H200 harness)
    EXPECT_TRUE(contains(files, "calibrations/fitted-h200-harness.json"));
    EXPECT_TRUE(contains(files, "measured/h200-2026-12-04/harness-measurements.json"));
    EXPECT_TRUE(contains(files, "hardware/b300.json"));
    EXPECT_TRUE(contains(files, "calibrations/default-generic.json"));
    EXPECT_TRUE(contains(files, "calibrations/derived-b300-qwen3-32b.json"));
    EXPECT_NE(catalog_file("hardware/b300.json").find("\"name\": \"b300\""), std::string::npos);
    EXPECT_THROW((void)catalog_file("hardware/b301.json"), UnknownNameError);
}

}  // namespace
}  // namespace libscale
