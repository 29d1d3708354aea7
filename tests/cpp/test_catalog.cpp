// The shipped catalogs: every entry loads and validates, lookups by name and by path,
// unknown names with suggestions, default calibrations resolved against hardware.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "libscale/catalog.hpp"
#include "libscale/error.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(Catalog, EveryModelLoads) {
    const std::vector<std::string> expected = {"llama-3.1-405b", "llama-3.1-70b", "llama-3.1-8b",
                                               "qwen3-0.6b",     "qwen3-1.7b",    "qwen3-14b",
                                               "qwen3-32b",      "qwen3-4b",      "qwen3-8b"};
    EXPECT_EQ(model_names(), expected);  // sorted
    for (const std::string& name : model_names()) {
        SCOPED_TRACE(name);
        const ModelSpec m = find_model(name);
        EXPECT_EQ(m.name, name);
        EXPECT_NO_THROW(m.validate());
        EXPECT_FALSE(m.source.empty());
        EXPECT_EQ(m.qk_norm != QkNorm::none, name.rfind("qwen3", 0) == 0);  // Qwen3 has q/k norm, Llama not
        EXPECT_FALSE(m.qkv_bias);
    }
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

TEST(Catalog, EveryHardwareLoadsWithFactsFigures) {
    const std::vector<std::string> expected = {"a100", "b200", "b300", "gb200", "h100", "h200"};
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
    // FACTS.md: dense BF16 TFLOP/s and HBM bandwidth.
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
    EXPECT_DOUBLE_EQ(cal.eta_max, 0.78);
    EXPECT_DOUBLE_EQ(cal.half_saturation_tokens, 512);
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
    EXPECT_DOUBLE_EQ(cal.power_idle_w, 100.0);  // 0.1 · 1000 W
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
    EXPECT_EQ(by_dir.name, "my-model");  // the snapshot directory's name
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
    EXPECT_EQ(under("models/"), 9);
    EXPECT_EQ(under("hardware/"), 6);
    EXPECT_EQ(under("calibrations/"), 8);  // 7 defaults (one generic), one derived
    EXPECT_TRUE(contains(files, "hardware/b300.json"));
    EXPECT_TRUE(contains(files, "calibrations/default-generic.json"));
    EXPECT_TRUE(contains(files, "calibrations/derived-b300-qwen3-32b.json"));
    EXPECT_NE(catalog_file("hardware/b300.json").find("\"name\": \"b300\""), std::string::npos);
    EXPECT_THROW((void)catalog_file("hardware/b301.json"), UnknownNameError);
}

}  // namespace
}  // namespace libscale
