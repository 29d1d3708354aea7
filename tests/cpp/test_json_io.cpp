// JSON input with file-and-line errors, the catalog schemas, and atomic writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "libscale/io/error.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/spec/hf_config.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

using nlohmann::json;

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ParseError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no ParseError";
    return "";
}

TEST(JsonIo, MalformedFileNamesFileAndLine) {
    const auto dir = test::temp_dir("json_malformed");
    const auto file = dir / "broken.json";
    // Line 3 holds the error: a value is missing after "b":.
    test::write_text(file, "{\n  \"a\": 1,\n  \"b\": ,\n  \"c\": 3\n}\n");
    const std::string msg = message_of([&] { (void)read_json_file(file); });
    EXPECT_NE(msg.find(file.string() + ":3:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("malformed JSON"), std::string::npos) << msg;
}

TEST(JsonIo, ParseJsonReportsLineAndColumn) {
    // Error on line 2, column 8: the stray `}` where the value of "x" should be.
    const std::string msg = message_of([] { (void)parse_json("{\n  \"x\": }\n", "inline.json"); });
    EXPECT_NE(msg.find("inline.json:2:8:"), std::string::npos) << msg;
    // An unterminated document fails on its last line.
    const std::string eof = message_of([] { (void)parse_json("{\n\"a\": [1,\n2,\n", "t.json"); });
    EXPECT_NE(eof.find("t.json:"), std::string::npos) << eof;
    EXPECT_EQ(parse_json("{\"a\": [1, 2]}", "ok.json")["a"][1], 2);
}

TEST(JsonIo, AKeyGivenTwiceInOneObjectIsRefused) {
    const auto error_of = [](std::string_view text) {
        return test::error_of([&] { (void)parse_json(text, "f.json"); });
    };
    EXPECT_THROW((void)parse_json(R"({"a": 1, "a": 3})", "f.json"), ParseError);
    EXPECT_NE(error_of(R"({"a": 1, "b": 2, "a": 3})").find("f.json: key \"a\" appears twice in one object"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"x": [{"k": 1}, {"k": 2, "k": 3}]})").find("key \"k\" appears twice"), std::string::npos);
    // The same key in sibling, nested or array-held objects is no repeat.
    EXPECT_EQ(error_of(R"({"a": {"a": 1}, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}], "d": [[{"a": 0}]]})"), "");
    EXPECT_EQ(parse_json(R"({"a": {"a": 1}, "b": [{"a": 2}]})", "f.json")["b"][0]["a"], 2);
}

TEST(JsonIo, MissingFileIsAParseErrorNamingIt) {
    const auto missing = test::temp_dir("json_missing") / "nope.json";
    const std::string msg = message_of([&] { (void)read_json_file(missing); });
    EXPECT_NE(msg.find("nope.json"), std::string::npos) << msg;
}

json hardware_json() {
    return json::parse(R"({
        "schema": "libscale.hardware/1", "name": "g", "peak_bf16_tflops": 100, "hbm_gib": 40,
        "hbm_tbps": 1.5, "nvlink_gbps_bidir": 600, "nic_gbps_per_gpu": 200, "gpus_per_node": 8,
        "board_power_w": 400, "idle_power_w": 50, "price_per_gpu_hour_usd": 1})");
}

TEST(JsonIo, HardwareMissingOrWrongFieldIsNamed) {
    EXPECT_EQ(hardware_from_json(hardware_json(), "hw.json").name, "g");
    json j = hardware_json();
    j.erase("hbm_tbps");
    std::string msg = message_of([&] { (void)hardware_from_json(j, "hw.json"); });
    EXPECT_NE(msg.find("hw.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("missing field 'hbm_tbps'"), std::string::npos) << msg;

    j = hardware_json();
    j["gpus_per_node"] = "eight";
    msg = message_of([&] { (void)hardware_from_json(j, "hw.json"); });
    EXPECT_NE(msg.find("'gpus_per_node' = \"eight\""), std::string::npos) << msg;

    j = hardware_json();
    j["schema"] = "libscale.hardware/2";
    msg = message_of([&] { (void)hardware_from_json(j, "hw.json"); });
    EXPECT_NE(msg.find("schema"), std::string::npos) << msg;

    j = hardware_json();
    j["peak_bf16_tflops"] = -1;  // a value, not a syntax error: still names the field
    msg = message_of([&] { (void)hardware_from_json(j, "hw.json"); });
    EXPECT_NE(msg.find("peak_bf16_tflops = -1"), std::string::npos) << msg;
}

// A default-form (fractions) calibration with a value in every field.
json fractions_json() {
    return json::parse(R"({"schema": "libscale.calibration/2", "kind": "default",
        "compute": {"framework_efficiency": 1.0,
                    "gemm": {"eta_max": 0.7, "fp8_eta_max": 0.6, "tile_m": 128, "tile_n": 256, "k_half": 300},
                    "attention": {"forward_eta_max": 0.35, "forward_half_seq": 400, "backward_eta_max": 0.34,
                                  "backward_half_seq": 600, "head_dim_half": 20},
                    "overhead": {"kernel_s": 5e-6, "layer_s": 0, "step_s": 0}},
        "comm": {"intra_node": {"alpha_us": 2, "busbw_fraction": 0.8},
                 "inter_node": {"alpha_us": 10, "busbw_fraction": 0.9}},
        "memory": {"hbm_efficiency": 0.85, "reserved_gib": 2, "fragmentation": 0.05, "margin": 0.2},
        "power": {"compute_fraction": 0.9, "comm_fraction": 0.5, "idle_fraction": 0.1}})");
}

TEST(JsonIo, CalibrationFractionsMissingNestedField) {
    json j = fractions_json();
    j["prior"] = {{"framework_efficiency", 0.3}, {"gemm.eta_max", 0.1}};
    const CalibrationFractions f = calibration_fractions_from_json(j, "cal.json");
    EXPECT_DOUBLE_EQ(f.gemm.eta_max, 0.7);
    EXPECT_DOUBLE_EQ(f.gemm.k_half, 300);
    EXPECT_DOUBLE_EQ(f.attention.backward_half_seq, 600);
    EXPECT_DOUBLE_EQ(f.kernel_overhead_s, 5e-6);
    EXPECT_DOUBLE_EQ(f.inter_alpha_us, 10);
    EXPECT_DOUBLE_EQ(f.power_comm_fraction, 0.5);
    EXPECT_DOUBLE_EQ(f.fragmentation, 0.05);
    EXPECT_DOUBLE_EQ(f.memory_margin, 0.2);
    EXPECT_EQ(f.prior_log_sd, (std::map<std::string, double>{{"framework_efficiency", 0.3}, {"gemm.eta_max", 0.1}}));
    // Resolved against the tiny GPU: alpha 10 µs, busbw 0.9 · 1e11, comm power 0.5 · 1000 W;
    // the compute laws and memory terms are absolute and pass through.
    const Calibration cal = resolve_calibration(f, test::tiny_hardware(), "fitted", "cal.json");
    EXPECT_DOUBLE_EQ(cal.inter_node.alpha_s, 10e-6);
    EXPECT_NEAR(cal.inter_node.busbw_bytes_per_s, 0.9e11, 1.0);
    EXPECT_DOUBLE_EQ(cal.power_comm_w, 500);
    EXPECT_DOUBLE_EQ(cal.power_idle_w, 100);  // the hardware's idle figure wins
    EXPECT_DOUBLE_EQ(cal.gemm.eta_max, 0.7);
    EXPECT_DOUBLE_EQ(cal.attention.forward_eta_max, 0.35);
    EXPECT_DOUBLE_EQ(cal.fragmentation, 0.05);

    j["compute"]["gemm"].erase("eta_max");
    std::string msg = message_of([&] { (void)calibration_fractions_from_json(j, "cal.json"); });
    EXPECT_NE(msg.find("'compute.gemm.eta_max'"), std::string::npos) << msg;
    j["compute"]["gemm"]["eta_max"] = 0.7;
    j["memory"].erase("margin");
    msg = message_of([&] { (void)calibration_fractions_from_json(j, "cal.json"); });
    EXPECT_NE(msg.find("'memory.margin'"), std::string::npos) << msg;
    j["memory"]["margin"] = 0.2;
    // A prior for a coefficient that does not exist.
    j["prior"]["eta_max"] = 0.1;
    msg = message_of([&] { (void)calibration_fractions_from_json(j, "cal.json"); });
    EXPECT_NE(msg.find("prior.eta_max"), std::string::npos) << msg;
    j["prior"].erase("eta_max");
    // Schema 1 (one efficiency for every FLOP) is not a fraction file of this version.
    j["schema"] = "libscale.calibration/1";
    EXPECT_THROW((void)calibration_fractions_from_json(j, "cal.json"), ParseError);
    j["schema"] = "libscale.calibration/2";
    // Out-of-range fraction: resolve validates and names the field.
    j["compute"]["gemm"]["eta_max"] = 1.2;
    const CalibrationFractions bad = calibration_fractions_from_json(j, "cal.json");
    try {
        (void)resolve_calibration(bad, test::tiny_hardware(), "fitted", "cal.json");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("gemm.eta_max = 1.2"), std::string::npos) << e.what();
    }
}

// A key the reader does not know, at any level of a default-form file, is named with the
// valid ones: a misspelt "margn" would otherwise leave the margin at its default.
TEST(JsonIo, CalibrationFractionsRefuseUnknownKeys) {
    const json good = fractions_json();
    EXPECT_DOUBLE_EQ(calibration_fractions_from_json(good, "cal.json").memory_margin, 0.2);
    const std::vector<std::pair<json::json_pointer, std::string>> cases = {
        {json::json_pointer("/memory/margn"),
         "'memory.margn' is not known here; valid: hbm_efficiency, "
         "reserved_gib, fragmentation, margin"},
        {json::json_pointer("/compute/gemm/eta"), "'compute.gemm.eta'"},
        {json::json_pointer("/compute/attention/fwd_eta_max"), "'compute.attention.fwd_eta_max'"},
        {json::json_pointer("/compute/overhead/launch_s"), "'compute.overhead.launch_s'"},
        {json::json_pointer("/compute/eta_max"), "'compute.eta_max'"},
        {json::json_pointer("/comm/inter_node/alpha_s"), "'comm.inter_node.alpha_s'"},
        {json::json_pointer("/comm/intra/alpha_us"), "'comm.intra'"},
        {json::json_pointer("/power/idle_w"), "'power.idle_w'"},
    };
    for (const auto& [where, expected] : cases) {
        json j = good;
        j[where] = 1;
        const std::string msg = message_of([&] { (void)calibration_fractions_from_json(j, "cal.json"); });
        EXPECT_NE(msg.find("cal.json: field " + expected), std::string::npos) << where.to_string() << ": " << msg;
    }
}

// Optional text fields: absent or null take their default; any other type is refused,
// never skipped.
TEST(JsonIo, OptionalTextOfTheWrongTypeIsRefused) {
    json j = hardware_json();
    EXPECT_EQ(hardware_from_json(j, "hw.json").display_name, "g");
    j["display_name"] = nullptr;
    EXPECT_EQ(hardware_from_json(j, "hw.json").display_name, "g");
    j["display_name"] = 42;
    const std::string msg = message_of([&] { (void)hardware_from_json(j, "hw.json"); });
    EXPECT_NE(msg.find("'display_name' = 42"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a string"), std::string::npos) << msg;
}

// A negative sliding window is refused, not read as "no window"; libscale's own
// annotations must be text.
TEST(JsonIo, HfConfigNegativeWindowAndBadAnnotationsAreRefused) {
    json c = json::parse(R"({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "max_position_embeddings": 256})");
    EXPECT_EQ(model_from_hf_config(c, "m", "m/config.json").model_type, "llama");
    std::string msg;

    for (const char* type : {"mistral", "qwen3"}) {
        c["model_type"] = type;
        c["use_sliding_window"] = true;
        c["sliding_window"] = 0;  // zero is "none" upstream too
        EXPECT_EQ(model_from_hf_config(c, "m", "m/config.json").sliding_window_layers, 0) << type;
        c["sliding_window"] = -4096;
        msg = message_of([&] { (void)model_from_hf_config(c, "m", "m/config.json"); });
        EXPECT_NE(msg.find("sliding_window"), std::string::npos) << type << ": " << msg;
        EXPECT_NE(msg.find("-4096"), std::string::npos) << type << ": " << msg;
        c.erase("sliding_window");
        c.erase("use_sliding_window");
    }
    c["model_type"] = "llama";
    c["_libscale"] = {{"name", 7}};
    msg = message_of([&] { (void)model_from_hf_config(c, "m", "m/config.json"); });
    EXPECT_NE(msg.find("'_libscale.name' = 7"), std::string::npos) << msg;
    c["_libscale"] = "x";
    msg = message_of([&] { (void)model_from_hf_config(c, "m", "m/config.json"); });
    EXPECT_NE(msg.find("'_libscale'"), std::string::npos) << msg;
}

TEST(JsonIo, HfConfigMissingFieldIsNamed) {
    json c = json::parse(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
        "max_position_embeddings": 256})");
    EXPECT_NO_THROW((void)model_from_hf_config(c, "m", "m/config.json"));
    c.erase("vocab_size");
    const std::string msg = message_of([&] { (void)model_from_hf_config(c, "m", "m/config.json"); });
    EXPECT_NE(msg.find("m/config.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'vocab_size'"), std::string::npos) << msg;
    EXPECT_THROW((void)model_from_hf_config(json::array(), "m", "m/config.json"), ParseError);
}

TEST(JsonIo, WriteFileAtomicReplacesAndLeavesNoTemp) {
    const auto dir = test::temp_dir("json_atomic");
    const auto file = dir / "out.json";
    write_file_atomic(file, "{\"v\": 1}\n");
    EXPECT_EQ(test::read_text(file), "{\"v\": 1}\n");
    write_file_atomic(file, "{\"v\": 2}\n");  // replaces, not appends
    EXPECT_EQ(test::read_text(file), "{\"v\": 2}\n");
    std::size_t entries = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        ++entries;
        EXPECT_EQ(e.path().filename(), "out.json");
    }
    EXPECT_EQ(entries, 1u);
    // Round trip through the parser.
    EXPECT_EQ(read_json_file(file)["v"], 2);
    // A directory that does not exist: an error, and nothing left behind.
    EXPECT_THROW(write_file_atomic(dir / "no" / "such" / "out.json", "x"), Error);
    EXPECT_FALSE(std::filesystem::exists(dir / "no"));
}

}  // namespace
}  // namespace libscale
