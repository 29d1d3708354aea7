// Measurement records: parsing, defaults, conversions, round trip, and bad input whose
// errors name the record and the field.
#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "libscale/error.hpp"
#include "libscale/measurement.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

using nlohmann::json;

json issue_step() {
    return json::parse(R"({"kind": "step", "model": "llama-3.1-8b", "hardware": "h100", "gpus": 8,
        "gpus_per_node": 8, "seq_len": 8192, "micro_batch": 2, "grad_accum": 1,
        "activation_checkpointing": "selective", "tokens_per_s_per_gpu": 5762})");
}

json mixed() {
    return json::array({
        {{"kind", "gemm"}, {"hardware", "h100"}, {"tokens", 4096}, {"flops", 1e13}, {"seconds", 0.02}},
        {{"kind", "collective"}, {"hardware", "h100"}, {"op", "all_reduce"}, {"ranks", 16}, {"ranks_per_node", 8},
         {"bytes", 1e8}, {"seconds", 0.004}},
        {{"kind", "collective"}, {"hardware", "h100"}, {"op", "all_gather"}, {"ranks", 8}, {"bytes", 1e8},
         {"seconds", 0.0005}},
        issue_step(),
        {{"kind", "power"}, {"hardware", "h100"}, {"phase", "compute"}, {"watts", 650}},
    });
}

TEST(Measurement, ParsesEveryKindWithDefaults) {
    const MeasurementSet m = measurements_from_json(mixed(), "mixed.json");
    ASSERT_EQ(m.size(), 5u);
    EXPECT_EQ(m.gemm[0].tokens, 4096);
    EXPECT_EQ(m.collectives[0].op, Collective::all_reduce);
    EXPECT_EQ(m.collectives[0].ranks_per_node, 8);
    EXPECT_EQ(m.collectives[1].ranks_per_node, 8);  // default: ranks (one node)
    const StepRun& s = m.steps[0];
    EXPECT_EQ(s.config.global_batch_tokens, 8 * 2 * 8192);  // grad_accum 1
    EXPECT_EQ(s.config.activation_checkpointing, Checkpointing::selective);
    EXPECT_EQ(s.config.strategy, Strategy::fsdp);
    EXPECT_EQ(s.config.reduce_bytes, 2);
    // 131,072 tokens per step at 8 × 5762 tokens/s.
    EXPECT_REL(s.step_time_s, 131072.0 / (8 * 5762.0));
    EXPECT_EQ(m.power[0].watts, 650);
}

TEST(Measurement, ThroughputFormsAndAccumulation) {
    json a = issue_step();
    a.erase("tokens_per_s_per_gpu");
    a["tokens_per_s"] = 65536;
    a["grad_accum"] = 4;  // 8 · 2 · 8192 · 4 = 524,288 tokens
    a["reduce_dtype"] = "fp32";
    json b = a;
    b.erase("tokens_per_s");
    b.erase("grad_accum");
    b["global_batch_tokens"] = 524288;
    b["step_time_s"] = 8.0;
    const MeasurementSet m = measurements_from_json(json{{"schema", "libscale.measurements/1"}, {"records", {a, b}}}, "x");
    EXPECT_EQ(m.steps[0].config.global_batch_tokens, 524288);
    EXPECT_REL(m.steps[0].step_time_s, 8.0);
    EXPECT_EQ(m.steps[0].config.reduce_bytes, 4);
    EXPECT_REL(m.steps[1].step_time_s, 8.0);
}

TEST(Measurement, RoundTripAndFile) {
    const MeasurementSet m = measurements_from_json(mixed(), "mixed.json");
    const json j = to_json(m);
    EXPECT_EQ(j.at("schema"), "libscale.measurements/1");
    EXPECT_EQ(to_json(measurements_from_json(j, "again")), j);
    const auto dir = test::temp_dir("measurement_file");
    test::write_text(dir / "m.json", j.dump());
    const MeasurementSet back = read_measurements((dir / "m.json").string());
    EXPECT_EQ(back.size(), 5u);
    MeasurementSet both = m;
    merge(both, back);
    EXPECT_EQ(both.size(), 10u);
    EXPECT_EQ(both.steps.size(), 2u);
}

TEST(Measurement, ExactDuplicatesAreRepeatedMeasurements) {
    const MeasurementSet m = measurements_from_json(json::array({issue_step(), issue_step()}), "dup.json");
    EXPECT_EQ(m.steps.size(), 2u);
}

// The error names the origin, the record and the field.
void expect_error(const json& records, const std::string& record, const std::string& field) {
    try {
        measurements_from_json(records, "bad.json");
        ADD_FAILURE() << "no error for " << records.dump();
    } catch (const ParseError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
        EXPECT_NE(what.find(record), std::string::npos) << what;
        EXPECT_NE(what.find(field), std::string::npos) << what;
    }
}

json with(const char* field, const json& value) {
    json records = mixed();
    records[0][field] = value;
    return records;
}

TEST(Measurement, BadInputNamesRecordAndField) {
    expect_error(with("seconds", std::numeric_limits<double>::quiet_NaN()), "record 0", "seconds");
    expect_error(with("seconds", std::numeric_limits<double>::infinity()), "record 0", "seconds");
    expect_error(with("seconds", -0.5), "record 0", "seconds");
    expect_error(with("seconds", 0), "record 0", "seconds");
    expect_error(with("tokens", 0), "record 0", "tokens");
    expect_error(with("seconds", "fast"), "record 0", "seconds");
    expect_error(with("kind", "flop"), "record 0", "kind");
    json records = mixed();
    records[1].erase("bytes");
    expect_error(records, "record 1", "bytes");
    records = mixed();
    records[1]["bytes"] = -1;
    expect_error(records, "record 1", "bytes");
    records = mixed();
    records[1]["op"] = "broadcast";
    expect_error(records, "record 1", "op");
    records = mixed();
    records[3]["gpus"] = "8";
    expect_error(records, "record 3", "gpus");
    records = mixed();
    records[3]["tokens_per_s_per_gpu"] = 0;
    expect_error(records, "record 3", "tokens_per_s_per_gpu");
    records = mixed();
    records[3]["step_time_s"] = 2.0;  // two throughput fields
    expect_error(records, "record 3", "step_time_s");
    records = mixed();
    records[3].erase("tokens_per_s_per_gpu");
    expect_error(records, "record 3", "step_time_s");
    records = mixed();
    records[3]["activation_checkpointing"] = "some";
    expect_error(records, "record 3", "activation_checkpointing");
    records = mixed();
    records[3]["global_batch_tokens"] = 1000;  // not a multiple of 8 · 2 · 8192
    expect_error(records, "record 3", "global_batch_tokens");
    records = mixed();
    records[4]["phase"] = "lunch";
    expect_error(records, "record 4", "phase");
    expect_error(json::array({1}), "record 0", "object");
}

TEST(Measurement, ContradictoryDuplicatesNameBothRecords) {
    json fast = issue_step();
    json slow = issue_step();
    slow["tokens_per_s_per_gpu"] = 5762 / 2;  // same configuration, twice the step time
    expect_error(json::array({mixed()[0], fast, slow}), "record 2 contradicts record 1", "step_time_s");
    json g = mixed()[0];
    json g2 = g;
    g2["seconds"] = 0.04;
    expect_error(json::array({g, g2}), "record 1 contradicts record 0", "seconds");
    // 1.4× apart is noise, not a contradiction.
    g2["seconds"] = 0.028;
    EXPECT_EQ(measurements_from_json(json::array({g, g2}), "ok").gemm.size(), 2u);
}

TEST(Measurement, UnknownSchemaVersion) {
    try {
        measurements_from_json(json{{"schema", "libscale.measurements/2"}, {"records", json::array()}}, "v2.json");
        FAIL();
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("unknown schema version"), std::string::npos) << e.what();
    }
    EXPECT_THROW(measurements_from_json(json{{"records", json::array()}}, "x"), ParseError);
    EXPECT_THROW(measurements_from_json(json("text"), "x"), ParseError);
}

}  // namespace
}  // namespace libscale
