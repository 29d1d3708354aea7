// The option tables: defaults read from the structs, checked values, named errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "libscale/estimate/projection.hpp"
#include "libscale/estimate/sweep.hpp"
#include "libscale/estimate/uncertainty.hpp"
#include "libscale/gate/gate_options.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/spec/training_config.hpp"
#include "libscale/triage/triage_options.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

// The message of the std::invalid_argument f throws ("" when it does not throw).
template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

template <class T>
void expect_sane_table(const OptionTable<T>& table) {
    std::set<std::string_view> names;
    for (const auto& o : table.options) {
        EXPECT_TRUE(names.insert(o.name).second) << table.group << "." << o.name << " declared twice";
        EXPECT_FALSE(o.help.empty()) << o.name;
        if (o.type == OptionType::choice) {
            EXPECT_FALSE(o.choices.empty()) << o.name;
        }
        // The struct's default is a valid value of its own option, and setting it back
        // leaves the struct's field as it was.
        const OptionValue d = default_value(o);
        EXPECT_NO_THROW(check_option(table, o, d)) << o.name << " = " << format_option_value(d);
        T t{};
        set_option(table, t, o.name, d);
        EXPECT_EQ(o.get(t), d) << o.name;
    }
    EXPECT_NO_THROW(validate_options(table, T{}));
}

TEST(Options, EveryTableIsConsistentWithItsStruct) {
    expect_sane_table(training_options());
    expect_sane_table(data_options());
    expect_sane_table(checkpoint_options());
    expect_sane_table(job_options());
    expect_sane_table(triage_options());
    expect_sane_table(watch_options());
}

TEST(Options, TriageAndWatchOptionsReachTheirNestedFields) {
    TriageOptions o;
    set_option(triage_options(), o, "smoothing_window_s", 3.0);
    set_option(triage_options(), o, "checkpoint_interval_s", 1800.0);
    EXPECT_DOUBLE_EQ(o.classifier.smoothing_window_s, 3.0);
    EXPECT_DOUBLE_EQ(o.detector.checkpoints.interval_s, 1800.0);
    // A periodic schedule needs its duration: checked once, by CheckpointSchedule.
    EXPECT_NE(error_of([&] { o.validate(); }).find("checkpoint_interval_s needs checkpoint_duration_s"),
              std::string::npos);
    set_option(triage_options(), o, "checkpoint_duration_s", 120.0);
    EXPECT_NO_THROW(o.validate());
    EXPECT_NE(error_of([&] { set_option(triage_options(), o, "util_threshold_pct", 101.0); }).find("[0, 100]"),
              std::string::npos);
    WatchOptions w;
    set_option(watch_options(), w, "kill_on", std::string("deadlock,straggler"));
    EXPECT_EQ(parse_alert_kinds(w.kill_on).size(), 2u);
    EXPECT_TRUE(parse_alert_kinds("none").empty());
    const auto bad = error_of([&] { set_option(watch_options(), w, "kill_on", std::string("deadlock,hang")); });
    EXPECT_NE(bad.find("'hang' is not an alert kind"), std::string::npos) << bad;
    EXPECT_EQ(w.kill_on, "deadlock,straggler");  // unchanged by the refused value
}

TEST(Options, SetsFieldsByNameThroughTheirTypes) {
    TrainingConfig c;
    const auto& t = training_options();
    set_option(t, c, "seq_len", std::int64_t{8192});
    set_option(t, c, "strategy", std::string("zero3"));  // an alias of fsdp
    set_option(t, c, "reduce_dtype", std::string("fp32"));
    set_option(t, c, "global_batch_tokens", 1048576.0);             // an integral float names its integer
    set_option(t, c, "attention_span_tokens", std::int64_t{1000});  // an integer is a number
    set_option(t, c, "torch_compile", true);
    EXPECT_EQ(c.seq_len, 8192);
    EXPECT_EQ(c.strategy, Strategy::fsdp);
    EXPECT_EQ(c.reduce_bytes, 4);
    EXPECT_EQ(c.global_batch_tokens, 1048576);
    EXPECT_DOUBLE_EQ(c.attention_span_tokens, 1000.0);
    EXPECT_TRUE(c.torch_compile);
    EXPECT_EQ(std::get<std::string>(find_option(t, "reduce_dtype").get(c)), "fp32");
    // "not set" is 0 in the struct, none in the table.
    set_option(t, c, "global_batch_tokens", OptionValue{});
    EXPECT_EQ(c.global_batch_tokens, 0);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(find_option(t, "global_batch_tokens").get(c)));
}

TEST(Options, RefusesBadValuesNamingOptionValueAndWhatIsValid) {
    TrainingConfig c;
    const auto& t = training_options();
    const auto msg = error_of([&] { set_option(t, c, "seq_len", std::int64_t{-5}); });
    EXPECT_NE(msg.find("seq_len"), std::string::npos) << msg;
    EXPECT_NE(msg.find("-5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("an integer in [1,"), std::string::npos) << msg;
    EXPECT_EQ(c.seq_len, TrainingConfig{}.seq_len);  // unchanged
    EXPECT_NE(error_of([&] { set_option(t, c, "seq_len", 1.5); }).find("an integer"), std::string::npos);
    EXPECT_NE(error_of([&] { set_option(t, c, "seq_len", true); }).find("an integer"), std::string::npos);
    EXPECT_NE(error_of([&] { set_option(t, c, "seq_len", OptionValue{}); }).find("no 'not set'"), std::string::npos);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (double bad : {nan, inf, -inf, -1.0, 0.0}) {
        const auto m = error_of([&] { set_option(t, c, "attention_span_tokens", bad); });
        EXPECT_NE(m.find("attention_span_tokens"), std::string::npos) << bad;
        EXPECT_NE(m.find("> 0"), std::string::npos) << m;
    }
    const auto choice = error_of([&] { set_option(t, c, "optimizer", std::string("adam")); });
    EXPECT_NE(choice.find("'adam'"), std::string::npos) << choice;
    EXPECT_NE(choice.find("adamw, adamw_8bit, sgd, adafactor"), std::string::npos) << choice;
    const auto unknown = error_of([&] { set_option(t, c, "seqlen", std::int64_t{1}); });
    EXPECT_NE(unknown.find("unknown training option 'seqlen'"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("seq_len"), std::string::npos) << unknown;
    EXPECT_NE(error_of([&] { set_option(t, c, "fp8_all_gather", std::int64_t{1}); }).find("true or false"),
              std::string::npos);
}

TEST(Options, JobValidatesThroughItsTable) {
    Job j;
    EXPECT_NO_THROW(j.validate());  // price not set: the hardware's
    j.tokens = 0;
    EXPECT_NE(error_of([&] { j.validate(); }).find("tokens = 0"), std::string::npos);
    j = Job{};
    j.price_per_gpu_hour_usd = -1;
    EXPECT_NE(error_of([&] { j.validate(); }).find("price_per_gpu_hour_usd = -1"), std::string::npos);
    j.price_per_gpu_hour_usd = std::numeric_limits<double>::infinity();
    EXPECT_NE(error_of([&] { j.validate(); }).find(">= 0"), std::string::npos);
}

TEST(Options, MakeFromOptionsStartsFromTheDefaults) {
    const auto c =
        make_from_options(training_options(), {{"gpus", std::int64_t{16}}, {"precision", std::string("fp8")}});
    EXPECT_EQ(c.gpus, 16);
    EXPECT_EQ(c.precision, Precision::fp8);
    EXPECT_EQ(c.seq_len, TrainingConfig{}.seq_len);
}

TEST(Scenario, EstimatesWhatTheStepModelEstimates) {
    TrainingConfig c = test::tiny_config();
    Scenario s = make_scenario(test::tiny_model(), test::tiny_hardware(), c);
    s.calibration.calibration = test::tiny_calibration();
    const StepBreakdown a = estimate_step(s);
    const StepBreakdown b = estimate_step(s.model, s.hardware, test::tiny_calibration(), c);
    EXPECT_DOUBLE_EQ(a.step_time_s, b.step_time_s);
    EXPECT_DOUBLE_EQ(a.memory.total_gib, b.memory.total_gib);
    Job job;
    const Projection p = project(s, {2, 1}, Scaling::strong, job);
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].step.gpus, 1);
    // Each row is the step model at the configuration project() evaluates there.
    const std::vector<TrainingConfig> at = projection_configs(s.config, {2, 1}, Scaling::strong);
    for (std::size_t i = 0; i < 2; ++i)
        EXPECT_DOUBLE_EQ(p.rows[i].step.step_time_s,
                         estimate_step(s.model, s.hardware, test::tiny_calibration(), at[i]).step_time_s);
    s.config.seq_len = -1;
    EXPECT_NE(error_of([&] { s.validate(); }).find("seq_len"), std::string::npos);
}

TEST(Scenario, RejectsACalibrationMadeForOtherHardware) {
    Scenario s = make_scenario(test::tiny_model(), test::tiny_hardware(), test::tiny_config());
    s.calibration.calibration = test::tiny_calibration();
    ASSERT_NO_THROW(s.validate());
    s.calibration.calibration.hardware = "b300";
    const std::string message = error_of([&] { s.validate(); });
    EXPECT_NE(message.find("made for hardware 'b300'"), std::string::npos) << message;
    EXPECT_NE(message.find("the scenario's hardware is 'tiny-gpu'"), std::string::npos) << message;
    EXPECT_NE(message.find("give one made on 'tiny-gpu'"), std::string::npos) << message;
    // Every estimate runs the check, not only validate(); the message is the same.
    const Job job;
    EXPECT_EQ(error_of([&] { (void)estimate_step(s); }), message);
    EXPECT_EQ(error_of([&] { (void)project(s, {1, 2}, Scaling::strong, job); }), message);
    EXPECT_EQ(error_of([&] { (void)solve_deadline(s, {1, 2}, Scaling::strong, job, 1.0); }), message);
    EXPECT_EQ(error_of([&] { (void)solve_budget(s, {1, 2}, Scaling::strong, job, 1.0, 1.0); }), message);
    EXPECT_EQ(error_of([&] { (void)projection_quantiles(s, {1, 2}, Scaling::strong, job); }), message);
    EXPECT_EQ(error_of([&] { sweep(s, SweepInputs{}, SweepOutputs{}); }), message);
}

TEST(GateOptions, DefaultsAreTheStructsAndEveryFieldIsDeclared) {
    const auto& table = gate_options();
    EXPECT_EQ(table.group, "gate");
    std::set<std::string> names;
    for (const auto& o : table.options) names.insert(std::string(o.name));
    EXPECT_EQ(names.size(), table.options.size());  // no name twice
    // One entry per GateConfig member (16 of them).
    EXPECT_EQ(names, (std::set<std::string>{"packer", "seq_len", "world_size", "micro_batch", "grad_accum", "shuffle",
                                            "seed", "epoch", "sampler_drop_last", "dataloader_drop_last",
                                            "step_rounding", "map_batch_size", "num_proc", "watchdog_s",
                                            "runtime_equalize", "shard_before_packing"}));
    EXPECT_EQ(std::get<std::string>(default_value(find_option(table, "packer"))), "trl_bfd");
    EXPECT_EQ(std::get<std::string>(default_value(find_option(table, "step_rounding"))), "ceil");
    EXPECT_EQ(std::get<double>(default_value(find_option(table, "watchdog_s"))), kNcclDefaultTimeoutS);
    EXPECT_EQ(std::get<std::int64_t>(default_value(find_option(table, "map_batch_size"))), 1000);
    // Every packer the core parses is a choice, and nothing else.
    for (auto name : find_option(table, "packer").choices) EXPECT_EQ(to_string(parse_packer(name)), name);
    EXPECT_EQ(find_option(table, "packer").choices.size(), 9u);
}

TEST(GateOptions, ValidateChecksThroughTheTable) {
    GateConfig c;
    // seq_len has no default: a GateConfig without it is invalid, and says so.
    std::string message = error_of([&] { validate(c); });
    EXPECT_NE(message.find("seq_len"), std::string::npos) << message;
    EXPECT_NE(message.find("0"), std::string::npos) << message;
    c.seq_len = 4096;
    EXPECT_NO_THROW(validate(c));
    c.map_batch_size = 0;  // the whole dataset in one datasets.map batch
    EXPECT_NO_THROW(validate(c));
    c.map_batch_size = -1;
    message = error_of([&] { validate(c); });
    EXPECT_NE(message.find("gate option map_batch_size"), std::string::npos) << message;
    c.map_batch_size = 1000;
    c.watchdog_s = 0;
    EXPECT_NE(error_of([&] { validate(c); }).find("watchdog_s"), std::string::npos);
    c.watchdog_s = std::numeric_limits<double>::infinity();
    EXPECT_NE(error_of([&] { validate(c); }).find("watchdog_s"), std::string::npos);
    c.watchdog_s = 600;
    c.epoch = -1;
    EXPECT_NE(error_of([&] { validate(c); }).find("epoch"), std::string::npos);
    c.epoch = 0;
    c.num_proc = 0;
    EXPECT_NE(error_of([&] { validate(c); }).find("num_proc"), std::string::npos);
}

TEST(GateOptions, MakeFromOptionsParsesNames) {
    const GateConfig c = make_from_options(gate_options(), {{"packer", std::string("nemo_ffd")},
                                                            {"step_rounding", std::string("floor")},
                                                            {"seq_len", std::int64_t{2048}}});
    EXPECT_EQ(c.packer, Packer::nemo_ffd);
    EXPECT_EQ(c.step_rounding, StepRounding::floor);
    EXPECT_EQ(c.seq_len, 2048);
    EXPECT_EQ(c.world_size, GateConfig{}.world_size);
    const std::string message = error_of([] {
        (void)make_from_options(gate_options(), {{"step_rounding", std::string("round")}});
    });
    EXPECT_NE(message.find("step_rounding"), std::string::npos) << message;
    EXPECT_NE(message.find("ceil, floor"), std::string::npos) << message;
}

}  // namespace
}  // namespace libscale
