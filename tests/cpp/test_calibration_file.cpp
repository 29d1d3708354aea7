// Calibration files: both forms read, the absolute form round-trips exactly, every
// malformed field is rejected with the file and field named, and the shipped derived
// B300 / Qwen3-32B calibration reproduces the field report's 53,000 tokens/s.
#include <cmath>
#include <functional>
#include <limits>

#include "libscale/calibration_file.hpp"
#include "libscale/catalog.hpp"
#include "libscale/error.hpp"
#include "libscale/json_io.hpp"
#include "libscale/projection.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

using nlohmann::json;

template <class F>
std::string parse_error_of(F&& f) {
    try {
        f();
    } catch (const ParseError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no ParseError";
    return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A fitted calibration on b300 with two correlated parameters of wildly different scales.
CalibrationFile sample_file() {
    const HardwareProfile hw = find_hardware("b300");
    CalibrationFile f;
    f.calibration = default_calibration(hw);
    f.calibration.kind = "fitted";
    f.calibration.eta_max = 0.4321;
    f.calibration.step_overhead_s = 0.125;
    f.calibration.inter_node.busbw_bytes_per_s = 8.7654321e10;
    f.parameters = {"eta_max", "inter_node.busbw_bytes_per_s"};
    f.covariance.resize(2, 2);
    const double s1 = 0.01, s2 = 3e9, rho = -0.3;
    f.covariance << s1 * s1, rho * s1 * s2, rho * s1 * s2, s2 * s2;
    f.quality = {{"rms_relative_error", 0.0123}, {"loo_relative_error", nullptr}, {"records_used", 7}};
    f.provenance = {{"hardware", "b300"}, {"driver", "570.1"}, {"cuda", "12.9"}, {"nccl", "2.27.3"},
                    {"date", "2026-05-01"}, {"source", "harness"}, {"notes", "test"}};
    f.sources = {{"eta_max", "fitted"}};
    return f;
}

void expect_same(const CalibrationFile& a, const CalibrationFile& b) {
    const Calibration &x = a.calibration, &y = b.calibration;
    EXPECT_EQ(x.hardware, y.hardware);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.eta_max, y.eta_max);
    EXPECT_EQ(x.half_saturation_tokens, y.half_saturation_tokens);
    EXPECT_EQ(x.intra_node.alpha_s, y.intra_node.alpha_s);
    EXPECT_EQ(x.intra_node.busbw_bytes_per_s, y.intra_node.busbw_bytes_per_s);
    EXPECT_EQ(x.inter_node.alpha_s, y.inter_node.alpha_s);
    EXPECT_EQ(x.inter_node.busbw_bytes_per_s, y.inter_node.busbw_bytes_per_s);
    EXPECT_EQ(x.hbm_efficiency, y.hbm_efficiency);
    EXPECT_EQ(x.reserved_gib, y.reserved_gib);
    EXPECT_EQ(x.power_compute_w, y.power_compute_w);
    EXPECT_EQ(x.power_comm_w, y.power_comm_w);
    EXPECT_EQ(x.power_idle_w, y.power_idle_w);
    EXPECT_EQ(x.step_overhead_s, y.step_overhead_s);
    EXPECT_EQ(a.parameters, b.parameters);
    EXPECT_EQ(a.covariance, b.covariance);
    EXPECT_EQ(a.quality, b.quality);
    EXPECT_EQ(a.sources, b.sources);
}

TEST(CalibrationFile, DefaultFormResolvesLikeTheCatalog) {
    const HardwareProfile hw = find_hardware("b300");
    const std::string origin = "calibration/data/calibrations/default-b300.json";
    const CalibrationFile f =
        calibration_from_json(parse_json(catalog_file("calibrations/default-b300.json"), origin), hw, origin);
    const Calibration d = default_calibration(hw);
    EXPECT_EQ(f.calibration.kind, "default");
    EXPECT_EQ(f.calibration.eta_max, d.eta_max);
    EXPECT_EQ(f.calibration.inter_node.busbw_bytes_per_s, d.inter_node.busbw_bytes_per_s);
    EXPECT_EQ(f.calibration.power_idle_w, d.power_idle_w);
    EXPECT_TRUE(f.parameters.empty());
    EXPECT_EQ(f.covariance.size(), 0);
    EXPECT_TRUE(f.sources.contains("compute.eta_max"));
}

TEST(CalibrationFile, GenericDefaultAppliesToAnyHardware) {
    const json j = parse_json(catalog_file("calibrations/default-generic.json"), "generic");
    EXPECT_NO_THROW((void)calibration_from_json(j, test::tiny_hardware(), "generic"));
}

TEST(CalibrationFile, HardwareMismatchNamesBoth) {
    const json j = parse_json(catalog_file("calibrations/default-b300.json"), "b300.json");
    std::string msg = parse_error_of([&] { (void)calibration_from_json(j, find_hardware("h100"), "b300.json"); });
    EXPECT_TRUE(has(msg, "b300.json") && has(msg, "'hardware'") && has(msg, "b300") && has(msg, "h100")) << msg;
    const json fitted = calibration_to_json(sample_file());
    msg = parse_error_of([&] { (void)calibration_from_json(fitted, find_hardware("h200"), "fit.json"); });
    EXPECT_TRUE(has(msg, "fit.json") && has(msg, "b300") && has(msg, "h200")) << msg;
}

TEST(CalibrationFile, AbsoluteFormRoundTripsExactly) {
    const HardwareProfile hw = find_hardware("b300");
    const CalibrationFile f = sample_file();
    const json j = calibration_to_json(f);
    EXPECT_EQ(j["schema"], "libscale.calibration/1");
    EXPECT_EQ(j["kind"], "fitted");
    EXPECT_EQ(j["coefficients"]["intra_node"]["busbw_bytes_per_s"], f.calibration.intra_node.busbw_bytes_per_s);
    expect_same(f, calibration_from_json(j, hw, "mem"));
    // Through text and a file: the writer's digits are enough to give back the same doubles.
    const auto dir = test::temp_dir("CalibrationFileRoundTrip");
    write_file_atomic(dir / "cal.json", j.dump(2));
    const CalibrationFile back = read_calibration_file((dir / "cal.json").string(), hw);
    expect_same(f, back);
    EXPECT_EQ(back.provenance, f.provenance);
    EXPECT_EQ(back.calibration.source, (dir / "cal.json").string());
    // and again: writing what was read gives the same document
    EXPECT_EQ(calibration_to_json(back).dump(), calibration_to_json(calibration_from_json(j, hw, "mem")).dump());
}

TEST(CalibrationFile, FitResultIsWrittenWithQualityAndSources) {
    FitResult fit;
    fit.calibration = default_calibration(find_hardware("b300"));
    fit.calibration.eta_max = 0.5;
    fit.calibration.step_overhead_s = 0.25;
    fit.parameters = {"eta_max", "step_overhead_s"};
    fit.covariance.resize(2, 2);
    fit.covariance << 1e-4, -1e-5, -1e-5, 4e-3;
    fit.coefficients = {{"eta_max", 0.5, 0.01, true, "from 3 step records"},
                        {"half_saturation_tokens", 512, 0, false, "no GEMM runs"}};
    fit.unidentified = {"half_saturation_tokens: no GEMM runs"};
    fit.relative_residuals = {0.01, -0.02, std::numeric_limits<double>::quiet_NaN()};
    fit.rms_relative_error = 0.015;
    fit.loo_relative_error = std::numeric_limits<double>::quiet_NaN();
    fit.families = {{"amdahl", 2, 0.1, true, "ok"}};
    fit.family_reason = "lowest leave-one-out error";
    fit.records_used = 3;
    const json j = calibration_to_json(fit, {{"source", "unit test"}});
    EXPECT_EQ(j["kind"], "fitted");
    EXPECT_TRUE(j["quality"]["loo_relative_error"].is_null());  // JSON has no NaN
    EXPECT_TRUE(j["quality"]["relative_residuals"][2].is_null());
    EXPECT_EQ(j["quality"]["families"][0]["family"], "amdahl");
    EXPECT_EQ(j["quality"]["unidentified"][0], "half_saturation_tokens: no GEMM runs");
    EXPECT_TRUE(has(j["sources"]["eta_max"].get<std::string>(), "fitted"));
    EXPECT_TRUE(has(j["sources"]["half_saturation_tokens"].get<std::string>(), "prior"));
    EXPECT_EQ(j["provenance"]["hardware"], "b300");
    const CalibrationFile back = calibration_from_json(j, find_hardware("b300"), "fit.json");
    EXPECT_EQ(back.calibration.kind, "fitted");
    EXPECT_EQ(back.calibration.step_overhead_s, 0.25);
    EXPECT_EQ(back.parameters, fit.parameters);
    EXPECT_EQ(back.covariance, fit.covariance);
    // No file for a result whose covariance does not match its parameters.
    fit.covariance.resize(3, 3);
    fit.covariance.setZero();
    EXPECT_THROW((void)calibration_to_json(fit, {}), std::invalid_argument);
}

// Each malformed document, the field its error must name and a phrase it must contain.
struct Bad {
    const char* what;
    std::function<void(json&)> edit;
    const char* field;
    const char* phrase;
};

TEST(CalibrationFile, RejectsMalformedFilesNamingFileAndField) {
    const HardwareProfile hw = find_hardware("b300");
    const json good = calibration_to_json(sample_file());
    const std::vector<Bad> cases = {
        {"newer version", [](json& j) { j["schema"] = "libscale.calibration/2"; }, "'schema'", "unknown version 2"},
        {"foreign schema", [](json& j) { j["schema"] = "libscale.hardware/1"; }, "'schema'", "calibration/1"},
        {"no schema", [](json& j) { j.erase("schema"); }, "'schema'", "missing"},
        {"unknown kind", [](json& j) { j["kind"] = "measured"; }, "'kind'", "fitted"},
        {"non-finite coefficient",
         [](json& j) { j["coefficients"]["eta_max"] = std::numeric_limits<double>::quiet_NaN(); },
         "'coefficients.eta_max'", "finite"},
        {"infinite bandwidth",
         [](json& j) { j["coefficients"]["inter_node"]["busbw_bytes_per_s"] = std::numeric_limits<double>::infinity(); },
         "'coefficients.inter_node.busbw_bytes_per_s'", "finite"},
        {"string coefficient", [](json& j) { j["coefficients"]["power"]["idle_w"] = "160"; },
         "'coefficients.power.idle_w'", "number"},
        {"missing coefficient", [](json& j) { j["coefficients"].erase("hbm_efficiency"); },
         "'coefficients.hbm_efficiency'", "missing"},
        {"misspelt coefficient", [](json& j) { j["coefficients"]["eta_mx"] = 0.5; }, "'coefficients.eta_mx'",
         "not a known coefficient"},
        {"out of range", [](json& j) { j["coefficients"]["eta_max"] = 1.5; }, "eta_max", "(0, 1]"},
        {"unknown parameter", [](json& j) { j["uncertainty"]["parameters"][1] = "nic_speed"; },
         "'uncertainty.parameters[1]'", "nic_speed"},
        {"duplicate parameter", [](json& j) { j["uncertainty"]["parameters"][1] = "eta_max"; },
         "'uncertainty.parameters[1]'", "twice"},
        {"too few rows", [](json& j) { j["uncertainty"]["covariance"].erase(1); }, "'uncertainty.covariance'",
         "1 rows for 2 parameters"},
        {"not square", [](json& j) { j["uncertainty"]["covariance"][1].push_back(0.0); },
         "'uncertainty.covariance[1]'", "square"},
        {"size mismatch", [](json& j) { j["uncertainty"]["parameters"].push_back("step_overhead_s"); },
         "'uncertainty.covariance'", "3 parameters"},
        {"not symmetric", [](json& j) { j["uncertainty"]["covariance"][0][1] = 0.0; }, "'uncertainty.covariance'",
         "not symmetric"},
        {"negative variance", [](json& j) { j["uncertainty"]["covariance"][0][0] = -1e-4; },
         "'uncertainty.covariance[0][0]'", ">= 0"},
        {"correlation beyond 1",
         [](json& j) {
             j["uncertainty"]["covariance"][0][1] = 2 * 0.01 * 3e9;
             j["uncertainty"]["covariance"][1][0] = 2 * 0.01 * 3e9;
         },
         "'uncertainty.covariance'", "positive semi-definite"},
        {"non-finite covariance",
         [](json& j) { j["uncertainty"]["covariance"][1][1] = std::numeric_limits<double>::quiet_NaN(); },
         "'uncertainty.covariance[1][1]'", "finite"},
        {"provenance not an object", [](json& j) { j["provenance"] = "today"; }, "'provenance'", "object"},
    };
    for (const Bad& b : cases) {
        json j = good;
        b.edit(j);
        const std::string msg = parse_error_of([&] { (void)calibration_from_json(j, hw, "cal.json"); });
        EXPECT_TRUE(has(msg, "cal.json") && has(msg, b.field) && has(msg, b.phrase))
            << b.what << ": " << msg;
    }
    EXPECT_TRUE(has(parse_error_of([&] { (void)calibration_from_json(json::array(), hw, "cal.json"); }), "object"));
}

TEST(CalibrationFile, ShippedNameOrMissingFile) {
    const HardwareProfile hw = find_hardware("b300");
    EXPECT_EQ(read_calibration_file("derived-b300-qwen3-32b", hw).calibration.kind, "derived");
    EXPECT_EQ(read_calibration_file("default-b300.json", hw).calibration.kind, "default");
    const std::string msg = parse_error_of([&] { (void)read_calibration_file("derived-b300-qwen3-33b", hw); });
    EXPECT_TRUE(has(msg, "derived-b300-qwen3-33b") && has(msg, "derived-b300-qwen3-32b")) << msg;
    EXPECT_THROW((void)read_calibration_file("/nonexistent/cal.json", hw), ParseError);
}

// The report's one public figure: ~53,000 tokens/s on 16 × B300 (two nodes of 8),
// Qwen3-32B, under the assumed configuration the shipped file states.
TEST(CalibrationFile, DerivedB300ReproducesTheFieldReport) {
    const HardwareProfile hw = find_hardware("b300");
    const CalibrationFile f = read_calibration_file("derived-b300-qwen3-32b", hw);
    EXPECT_EQ(f.calibration.kind, "derived");
    EXPECT_TRUE(has(f.provenance["source"].get<std::string>(), "000_f11de584311f69c4"));
    EXPECT_TRUE(f.provenance["notes"].is_array() && !f.provenance["notes"].empty());
    for (const char* name : {"eta_max", "half_saturation_tokens", "intra_node.alpha_s", "intra_node.busbw_bytes_per_s",
                             "inter_node.alpha_s", "inter_node.busbw_bytes_per_s", "hbm_efficiency", "reserved_gib",
                             "power.compute_w", "power.comm_w", "power.idle_w", "step_overhead_s"})
        EXPECT_TRUE(f.sources.contains(name)) << name;
    ASSERT_EQ(f.parameters, std::vector<std::string>{"eta_max"});
    // 1σ of 2.5% on throughput is ~2.5% on η (the point is compute-bound).
    EXPECT_NEAR(std::sqrt(f.covariance(0, 0)) / f.calibration.eta_max, 0.025, 0.001);

    TrainingConfig c;
    c.gpus_per_node = 8;
    c.seq_len = 8192;
    c.micro_batch = 1;
    c.global_batch_tokens = 1'048'576;
    c.strategy = Strategy::fsdp;
    c.activation_checkpointing = Checkpointing::full;
    c.reduce_bytes = 2;
    const Projection p = project(find_model("qwen3-32b"), hw, f.calibration, c, {16}, Scaling::strong, Job{});
    ASSERT_EQ(p.rows.size(), 1u);
    EXPECT_EQ(p.rows[0].step.nodes, 2);
    EXPECT_NEAR(p.rows[0].step.tokens_per_s, 53000.0, 53000.0 * 1e-6);
    // Everything but η is the shipped default's.
    const Calibration d = default_calibration(hw);
    EXPECT_DOUBLE_EQ(f.calibration.intra_node.busbw_bytes_per_s, d.intra_node.busbw_bytes_per_s);
    EXPECT_DOUBLE_EQ(f.calibration.inter_node.busbw_bytes_per_s, d.inter_node.busbw_bytes_per_s);
    EXPECT_DOUBLE_EQ(f.calibration.half_saturation_tokens, d.half_saturation_tokens);
    EXPECT_DOUBLE_EQ(f.calibration.power_idle_w, d.power_idle_w);
}

}  // namespace
}  // namespace libscale
