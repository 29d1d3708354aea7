// Measurement records: parsing, defaults, conversions, round trip, and bad input whose
// errors name the record and the field.
#include <cmath>
#include <limits>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "libscale/calibrate/measurement.hpp"
#include "libscale/io/error.hpp"
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
        {{"kind", "gemm"}, {"hardware", "h100"}, {"m", 4096}, {"n", 4096}, {"k", 1024}, {"seconds", 0.02}},
        {{"kind", "attention"},
         {"hardware", "h100"},
         {"batch", 2},
         {"seq_len", 4096},
         {"heads", 32},
         {"head_dim", 128},
         {"pass", "backward"},
         {"seconds", 0.003}},
        {{"kind", "bandwidth"}, {"hardware", "h100"}, {"bytes", 4e9}, {"seconds", 0.0014}},
        {{"kind", "collective"},
         {"hardware", "h100"},
         {"op", "all_reduce"},
         {"ranks", 16},
         {"ranks_per_node", 8},
         {"bytes", 1e8},
         {"seconds", 0.004}},
        {{"kind", "collective"},
         {"hardware", "h100"},
         {"op", "all_gather"},
         {"ranks", 8},
         {"bytes", 1e8},
         {"seconds", 0.0005}},
        issue_step(),
        {{"kind", "power"}, {"hardware", "h100"}, {"phase", "compute"}, {"watts", 650}},
    });
}

TEST(Measurement, ParsesEveryKindWithDefaults) {
    const MeasurementSet m = measurements_from_json(mixed(), "mixed.json");
    ASSERT_EQ(m.size(), 7u);
    EXPECT_EQ(m.gemm[0].m, 4096);
    EXPECT_EQ(m.gemm[0].n, 4096);
    EXPECT_EQ(m.gemm[0].k, 1024);
    EXPECT_FALSE(m.gemm[0].fp8);  // dtype defaults to bf16
    EXPECT_EQ(m.attention[0].batch, 2);
    EXPECT_EQ(m.attention[0].seq_len, 4096);
    EXPECT_EQ(m.attention[0].heads * m.attention[0].head_dim, 4096);
    EXPECT_TRUE(m.attention[0].causal);  // default
    EXPECT_TRUE(m.attention[0].backward);
    EXPECT_EQ(m.bandwidth[0].bytes, 4e9);
    EXPECT_EQ(m.collectives[0].op, Collective::all_reduce);
    EXPECT_EQ(m.collectives[0].ranks_per_node, 8);
    EXPECT_EQ(m.collectives[1].ranks_per_node, 8);  // default: ranks (one node)
    const StepRun& s = m.steps[0];
    EXPECT_EQ(s.config.global_batch_tokens, 8 * 2 * 8192);  // grad_accum 1
    EXPECT_EQ(s.config.activation_checkpointing, Checkpointing::selective);
    EXPECT_EQ(s.config.strategy, Strategy::fsdp);
    EXPECT_EQ(s.config.reduce_bytes, 2);
    // The per-operation model's options default to torchtitan's eager bf16 AdamW run.
    EXPECT_EQ(s.config.precision, Precision::bf16);
    EXPECT_FALSE(s.config.fp8_all_gather);
    EXPECT_EQ(s.config.optimizer, Optimizer::adamw);
    EXPECT_EQ(s.config.master_weights, MasterWeights::fp32);
    EXPECT_EQ(s.config.loss_kernel, LossKernel::eager);
    EXPECT_EQ(s.config.attention_kernel, AttentionKernel::flash2);
    EXPECT_FALSE(s.config.torch_compile);
    EXPECT_EQ(s.config.checkpoint_every, 1);
    EXPECT_EQ(s.relative_error, 0.0);  // the fit's default
    // 131,072 tokens per step at 8 × 5762 tokens/s.
    EXPECT_REL(s.step_time_s, 131072.0 / (8 * 5762.0));
    EXPECT_EQ(m.power[0].watts, 650);
}

TEST(Measurement, StepOptionsOfThePerOperationModel) {
    json r = issue_step();
    r["precision"] = "fp8";
    r["fp8_all_gather"] = true;
    r["optimizer"] = "adamw_8bit";
    r["master_weights"] = "bf16";
    r["loss_kernel"] = "fused";
    r["attention_kernel"] = "flash3";
    r["torch_compile"] = true;
    r["checkpoint_every"] = 2;
    r["relative_error"] = 0.05;
    r["memory_gib"] = 61.5;
    r["memory_kind"] = "allocated";
    r["reported_mfu"] = 0.41;
    r["series"] = "table 3";
    r["model_overrides"] = {{"num_hidden_layers", 16}};
    r["validation_exclude"] = "held out: the report's own outlier";
    const json gemm = {{"kind", "gemm"}, {"hardware", "h100"}, {"m", 8192},       {"n", 8192},
                       {"k", 8192},      {"dtype", "fp8"},     {"seconds", 0.001}};
    const json fwd = {{"kind", "attention"}, {"hardware", "h100"}, {"batch", 1},        {"seq_len", 8192}, {"heads", 8},
                      {"head_dim", 64},      {"causal", false},    {"pass", "forward"}, {"seconds", 0.002}};
    const MeasurementSet m = measurements_from_json(json::array({r, gemm, fwd}), "opts.json");
    const StepRun& s = m.steps[0];
    EXPECT_EQ(s.config.precision, Precision::fp8);
    EXPECT_TRUE(s.config.fp8_all_gather);
    EXPECT_EQ(s.config.optimizer, Optimizer::adamw_8bit);
    EXPECT_EQ(s.config.master_weights, MasterWeights::bf16);
    EXPECT_EQ(s.config.loss_kernel, LossKernel::fused);
    EXPECT_EQ(s.config.attention_kernel, AttentionKernel::flash3);
    EXPECT_TRUE(s.config.torch_compile);
    EXPECT_EQ(s.config.checkpoint_every, 2);
    EXPECT_EQ(s.relative_error, 0.05);
    EXPECT_EQ(s.memory_gib, 61.5);
    EXPECT_EQ(s.memory_kind, "allocated");
    EXPECT_EQ(s.reported_mfu, 0.41);
    EXPECT_EQ(s.series, "table 3");
    EXPECT_EQ(s.model_overrides.at("num_hidden_layers"), 16);
    EXPECT_EQ(s.validation_exclude, "held out: the report's own outlier");
    EXPECT_TRUE(m.gemm[0].fp8);
    EXPECT_FALSE(m.attention[0].causal);
    EXPECT_FALSE(m.attention[0].backward);
    // Every option survives the round trip.
    const json j = to_json(m);
    EXPECT_EQ(to_json(measurements_from_json(j, "again")), j);
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
    // Step records of schema 1 are still read (only its GEMM-chain records are refused).
    const MeasurementSet m =
        measurements_from_json(json{{"schema", "libscale.measurements/1"}, {"records", {a, b}}}, "x");
    EXPECT_EQ(m.steps[0].config.global_batch_tokens, 524288);
    EXPECT_REL(m.steps[0].step_time_s, 8.0);
    EXPECT_EQ(m.steps[0].config.reduce_bytes, 4);
    EXPECT_REL(m.steps[1].step_time_s, 8.0);
}

TEST(Measurement, RoundTripAndFile) {
    const MeasurementSet m = measurements_from_json(mixed(), "mixed.json");
    const json j = to_json(m);
    EXPECT_EQ(j.at("schema"), "libscale.measurements/2");
    EXPECT_EQ(to_json(measurements_from_json(j, "again")), j);
    const auto dir = test::temp_dir("measurement_file");
    test::write_text(dir / "m.json", j.dump());
    const MeasurementSet back = read_measurements((dir / "m.json").string());
    EXPECT_EQ(back.size(), 7u);
    MeasurementSet both = m;
    merge(both, back);
    EXPECT_EQ(both.size(), 14u);
    EXPECT_EQ(both.steps.size(), 2u);
    EXPECT_EQ(both.attention.size(), 2u);
    EXPECT_EQ(both.bandwidth.size(), 2u);
}

// A step's peak reserved memory beside its allocated one (libscale trainer-steps writes
// both) is read, checked and written back.
TEST(Measurement, StepRecordsKeepReservedBesideAllocatedMemory) {
    json r = {
        {"kind", "step"},     {"model", "qwen3-0.6b"}, {"hardware", "h200"},         {"gpus", 1},
        {"gpus_per_node", 8}, {"seq_len", 2048},       {"micro_batch", 1},           {"grad_accum", 1},
        {"step_time_s", 0.5}, {"memory_gib", 20.5},    {"memory_kind", "allocated"}, {"memory_reserved_gib", 22.25}};
    const MeasurementSet m = measurements_from_json(json::array({r}), "steps.json");
    ASSERT_EQ(m.steps.size(), 1u);
    EXPECT_EQ(m.steps[0].memory_gib, 20.5);
    EXPECT_EQ(m.steps[0].memory_reserved_gib, 22.25);
    EXPECT_EQ(to_json(m)["records"][0]["memory_reserved_gib"], 22.25);
    r.erase("memory_reserved_gib");
    EXPECT_FALSE(
        to_json(measurements_from_json(json::array({r}), "steps.json"))["records"][0].contains("memory_reserved_gib"));
    r["memory_reserved_gib"] = -1;
    EXPECT_THROW((void)measurements_from_json(json::array({r}), "steps.json"), ParseError);
    // The reserved segments hold every allocated tensor: a reserved peak below the
    // allocated one is a transcription error, named.
    r["memory_reserved_gib"] = 20.25;
    try {
        (void)measurements_from_json(json::array({r}), "steps.json");
        ADD_FAILURE() << "a reserved peak below the allocated one was read";
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("memory_reserved_gib"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("max_memory_reserved >= max_memory_allocated"), std::string::npos)
            << e.what();
    }
}

// The harness's step micro-runs are their own kind: read, written back, and kept out of
// the steps the fitter consumes (they carry no framework overheads).
// An attention record names its kernel; without one it is the file's: cuDNN for the
// harness's CUDA backend (the only attention it times), FlashAttention-2 otherwise.
TEST(Measurement, AttentionRecordsNameTheirKernel) {
    const json fwd = {{"kind", "attention"}, {"hardware", "h200"}, {"batch", 1},        {"seq_len", 4096},
                      {"heads", 64},         {"head_dim", 128},    {"pass", "forward"}, {"seconds", 1e-3}};
    json named = fwd;
    named["kernel"] = "flash3";
    named["seq_len"] = 8192;
    const json cuda = {{"schema", "libscale.measurements/2"},
                       {"provenance", {{"backend", "cuda"}}},
                       {"records", json::array({fwd, named})}};
    const MeasurementSet m = measurements_from_json(cuda, "cuda.json");
    EXPECT_EQ(m.attention[0].kernel, AttentionKernel::cudnn);
    EXPECT_EQ(m.attention[1].kernel, AttentionKernel::flash3);
    EXPECT_EQ(to_json(m)["records"][0]["kernel"], "cudnn");
    json simulated = cuda;
    simulated["provenance"]["backend"] = "simulated";
    EXPECT_EQ(measurements_from_json(simulated, "sim.json").attention[0].kernel, AttentionKernel::flash2);
    EXPECT_EQ(measurements_from_json(json::array({fwd}), "list.json").attention[0].kernel, AttentionKernel::flash2);
    named["kernel"] = "flash9";
    try {
        (void)measurements_from_json(json::array({named}), "bad.json");
        FAIL();
    } catch (const ParseError& e) {
        const std::string w = e.what();
        EXPECT_NE(w.find("record 0"), std::string::npos) << w;
        EXPECT_NE(w.find("field 'kernel': attention_kernel = 'flash9'"), std::string::npos) << w;
        EXPECT_NE(w.find("valid: flash2, flash3, cudnn"), std::string::npos) << w;
    }
}

TEST(Measurement, StepMicroRunsAreKeptApartFromSteps) {
    const json r = {{"kind", "step_microrun"},
                    {"model", "qwen3-32b"},
                    {"hardware", "h200"},
                    {"gpus", 4},
                    {"seq_len", 4096},
                    {"micro_batch", 1},
                    {"layers", 2},
                    {"step_time_s", 0.2},
                    {"activation_checkpointing", "none"}};
    const MeasurementSet m = measurements_from_json(json::array({r}), "micro.json");
    ASSERT_EQ(m.microruns.size(), 1u);
    EXPECT_TRUE(m.steps.empty());
    EXPECT_EQ(m.size(), 1u);
    EXPECT_EQ(m.microruns[0].layers, 2);
    EXPECT_EQ(m.microruns[0].config.global_batch_tokens, 4 * 4096);
    EXPECT_EQ(m.microruns[0].config.activation_checkpointing, Checkpointing::none);
    const json j = to_json(m);
    EXPECT_EQ(j["records"][0]["kind"], "step_microrun");
    EXPECT_EQ(j["records"][0]["layers"], 2);
    EXPECT_EQ(to_json(measurements_from_json(j, "again")), j);

    json no_layers = r;
    no_layers.erase("layers");
    EXPECT_THROW(
        {
            try {
                measurements_from_json(json::array({no_layers}), "micro.json");
            } catch (const ParseError& e) {
                EXPECT_NE(std::string(e.what()).find("record 0: missing field 'layers'"), std::string::npos)
                    << e.what();
                throw;
            }
        },
        ParseError);
    json accumulated = r;
    accumulated["grad_accum"] = 2;
    EXPECT_THROW(measurements_from_json(json::array({accumulated}), "micro.json"), ParseError);
}

// A step record reads every training option by its table name (spec/training_options.cpp),
// checked as the front ends check it, and writes each back: a new option needs no line in
// the reader or the writer.
TEST(Measurement, StepRecordsReadAndWriteEveryTrainingOption) {
    json rec = issue_step();
    rec["attention_span_tokens"] = 2048.0;
    rec["activation_checkpointing"] = "op";  // torchtitan's word for selective
    rec["optimizer"] = "adafactor";
    const MeasurementSet m = measurements_from_json(json::array({rec}), "opts.json");
    const TrainingConfig& c = m.steps.at(0).config;
    EXPECT_EQ(c.attention_span_tokens, 2048.0);
    EXPECT_EQ(c.activation_checkpointing, Checkpointing::selective);
    EXPECT_EQ(c.optimizer, Optimizer::adafactor);
    const json back = to_json(m).at("records").at(0);
    for (const auto& o : training_options().options) {
        if (!std::holds_alternative<std::monostate>(o.get(c))) {
            EXPECT_TRUE(back.contains(std::string(o.name))) << o.name;
        }
    }
    EXPECT_EQ(back.at("activation_checkpointing"), "selective");
    EXPECT_EQ(back.at("attention_span_tokens"), 2048.0);

    const auto error_of = [](const json& r) -> std::string {
        try {
            measurements_from_json(json::array({r}), "bad.json");
        } catch (const ParseError& e) {
            return e.what();
        }
        return "no error";
    };
    rec["optimizer"] = "lion";
    EXPECT_EQ(error_of(rec),
              "bad.json: record 0: field 'optimizer': training option optimizer = 'lion'; valid: adamw, adamw_8bit, "
              "sgd, adafactor");
    rec["optimizer"] = "adamw";
    rec["checkpoint_every"] = 0;
    EXPECT_NE(error_of(rec).find("field 'checkpoint_every': training option checkpoint_every = 0"), std::string::npos)
        << error_of(rec);
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
    expect_error(with("m", 0), "record 0", "'m'");
    expect_error(with("k", -1), "record 0", "'k'");
    expect_error(with("dtype", "fp16"), "record 0", "dtype");
    expect_error(with("seconds", "fast"), "record 0", "seconds");
    expect_error(with("kind", "flop"), "record 0", "kind");
    json records = mixed();
    records[0].erase("n");
    expect_error(records, "record 0", "'n'");
    records = mixed();
    records[1]["pass"] = "both";
    expect_error(records, "record 1", "pass");
    records = mixed();
    records[1].erase("pass");
    expect_error(records, "record 1", "pass");
    records = mixed();
    records[1]["head_dim"] = 0;
    expect_error(records, "record 1", "head_dim");
    records = mixed();
    records[1]["causal"] = "yes";
    expect_error(records, "record 1", "causal");
    records = mixed();
    records[2]["bytes"] = 0;
    expect_error(records, "record 2", "bytes");
    records = mixed();
    records[3].erase("bytes");
    expect_error(records, "record 3", "bytes");
    records = mixed();
    records[3]["bytes"] = -1;
    expect_error(records, "record 3", "bytes");
    records = mixed();
    records[3]["op"] = "broadcast";
    expect_error(records, "record 3", "op");
    records = mixed();
    records[5]["gpus"] = "8";
    expect_error(records, "record 5", "gpus");
    records = mixed();
    records[5]["tokens_per_s_per_gpu"] = 0;
    expect_error(records, "record 5", "tokens_per_s_per_gpu");
    records = mixed();
    records[5]["step_time_s"] = 2.0;  // two throughput fields
    expect_error(records, "record 5", "step_time_s");
    records = mixed();
    records[5].erase("tokens_per_s_per_gpu");
    expect_error(records, "record 5", "step_time_s");
    records = mixed();
    records[5]["activation_checkpointing"] = "some";
    expect_error(records, "record 5", "activation_checkpointing");
    records = mixed();
    records[5]["global_batch_tokens"] = 1000;  // not a multiple of 8 · 2 · 8192
    expect_error(records, "record 5", "global_batch_tokens");
    records = mixed();
    records[5]["optimizer"] = "lion";
    expect_error(records, "record 5", "optimizer");
    records = mixed();
    records[5]["attention_kernel"] = "flash4";
    expect_error(records, "record 5", "attention_kernel");
    records = mixed();
    records[5]["checkpoint_every"] = 0;
    expect_error(records, "record 5", "checkpoint_every");
    records = mixed();
    records[5]["relative_error"] = 1.5;
    expect_error(records, "record 5", "relative_error");
    records = mixed();
    records[5]["memory_gib"] = 40;
    records[5]["memory_kind"] = "peak";
    expect_error(records, "record 5", "memory_kind");
    records = mixed();
    records[6]["phase"] = "lunch";
    expect_error(records, "record 6", "phase");
    expect_error(json::array({1}), "record 0", "object");
}

TEST(Measurement, ContradictoryDuplicatesNameBothRecords) {
    json fast = issue_step();
    json slow = issue_step();
    slow["tokens_per_s_per_gpu"] = 5762 / 2;  // same configuration, twice the step time
    expect_error(json::array({mixed()[0], fast, slow}), "record 2 contradicts record 1", "step_time_s");
    // Kernel micro-runs too: the same attention shape and pass.
    json a = mixed()[1];
    json a2 = a;
    a2["seconds"] = 0.006;
    expect_error(json::array({a, a2}), "record 1 contradicts record 0", "seconds");
    a2["pass"] = "forward";  // a different kernel: no contradiction
    EXPECT_EQ(measurements_from_json(json::array({a, a2}), "ok").attention.size(), 2u);
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
        measurements_from_json(json{{"schema", "libscale.measurements/3"}, {"records", json::array()}}, "v3.json");
        FAIL();
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("unknown schema version"), std::string::npos) << e.what();
    }
    EXPECT_THROW(measurements_from_json(json{{"records", json::array()}}, "x"), ParseError);
    EXPECT_THROW(measurements_from_json(json("text"), "x"), ParseError);
}

}  // namespace
}  // namespace libscale
