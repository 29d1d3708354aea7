// Power triage (triage.hpp) on labelled traces generated from the documented patterns.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "libscale/io/catalog.hpp"
#include "libscale/triage/triage.hpp"
#include "triage_patterns.hpp"

using namespace libscale;

using namespace triage_patterns;

TEST(PowerBands, DefaultsForEveryCatalogGpuAreLabelledUncalibrated) {
    for (const auto& name : hardware_names()) {
        const PowerBands b = default_power_bands(find_hardware(name));
        EXPECT_EQ(b.label.rfind("default, uncalibrated", 0), 0u) << name;
        EXPECT_NO_THROW(b.validate()) << name;
    }
    const BandThresholdsW t = thresholds_w(h100());
    EXPECT_NEAR(t.idle_max_w, 1.1 * 70.6, 1e-9);  // above 10% of 700 W
    EXPECT_DOUBLE_EQ(t.checkpoint_max_w, 175);
    EXPECT_DOUBLE_EQ(t.starvation_max_w, 280);
    EXPECT_DOUBLE_EQ(t.communication_max_w, 420);
    // a hang at idle watts is told from idle by utilization
    EXPECT_EQ(raw_phase(72, 100, t), Phase::checkpoint_or_deadlock);
    EXPECT_EQ(raw_phase(72, 0, t), Phase::idle);
}

TEST(PowerBands, ValidationNamesTheField) {
    PowerBands b = h100();
    b.starvation_max_fraction = 0.7;
    try {
        b.validate();
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("starvation_max_fraction"), std::string::npos);
    }
    ClassifierOptions c;
    c.smoothing_window_s = 0;
    EXPECT_THROW(c.validate(), std::invalid_argument);
    DetectorOptions d;
    d.checkpoints.interval_s = 10;
    d.checkpoints.duration_s = 20;
    EXPECT_THROW(d.validate(), std::invalid_argument);
}

// Measured bands: each edge halfway between the medians of the phases it separates.
TEST(PowerBands, MeasuredPhasesSetEdgesHalfwayBetweenMedians) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto readings = [&](std::initializer_list<double> watts) {
        std::vector<PhaseReading> r;
        for (const double w : watts) r.push_back({w, nan});
        return r;
    };
    std::map<std::string, std::vector<PhaseReading>> w = {{"idle", readings({70, 74, 72})},
                                                          {"checkpoint_or_deadlock", readings({120})},
                                                          {"data_starvation", readings({300, 310})},
                                                          {"communication", readings({400})},
                                                          {"compute", readings({680, 700, 690})}};
    const PowerBands b = power_bands_from_phases(w, 700, "calibrated: test");
    EXPECT_FALSE(b.scale_with_power_limit);
    const BandThresholdsW t = thresholds_w(b, 500);  // watts stay watts under another limit
    EXPECT_NEAR(t.idle_max_w, (72 + 120) / 2.0, 1e-9);
    EXPECT_NEAR(t.checkpoint_max_w, (120 + 305) / 2.0, 1e-9);
    EXPECT_NEAR(t.starvation_max_w, (305 + 400) / 2.0, 1e-9);
    EXPECT_NEAR(t.communication_max_w, (400 + 690) / 2.0, 1e-9);
    EXPECT_DOUBLE_EQ(t.idle_util_max_pct, 50);  // utilization not read: the default, and it says so
    EXPECT_NE(b.edge_sources.at("idle_util_max_pct").find("assumed"), std::string::npos);
    EXPECT_NE(b.edge_sources.at("communication_max").find("measured: halfway between communication (400 W)"),
              std::string::npos)
        << b.edge_sources.at("communication_max");
    EXPECT_EQ(raw_phase(690, 100, t), Phase::compute);
    EXPECT_EQ(raw_phase(400, 100, t), Phase::communication);
    EXPECT_EQ(raw_phase(305, 40, t), Phase::data_starvation);
    EXPECT_EQ(raw_phase(120, 100, t), Phase::checkpoint_or_deadlock);
    EXPECT_EQ(raw_phase(72, 0, t), Phase::idle);
    const PowerBands back = power_bands_from_json(power_bands_to_json(b, "test"), "cal.json");
    EXPECT_NEAR(thresholds_w(back).communication_max_w, 545, 1e-9);
    EXPECT_EQ(back.edge_sources, b.edge_sources);

    auto disordered = w;
    disordered["communication"] = readings({250});
    try {
        power_bands_from_phases(disordered, 700, "x");
        ADD_FAILURE() << "disordered phases accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'communication' drew 250 W"), std::string::npos) << e.what();
    }
    auto missing = w;
    missing.erase("idle");
    EXPECT_THROW(power_bands_from_phases(missing, 700, "x"), std::invalid_argument);
    auto bad = w;
    bad["compute"].push_back({nan, nan});
    EXPECT_THROW(power_bands_from_phases(bad, 700, "x"), std::invalid_argument);
    bad = w;
    bad["idle"].push_back({72, 101});
    EXPECT_THROW(power_bands_from_phases(bad, 700, "x"), std::invalid_argument);
    EXPECT_THROW(power_bands_from_phases(w, 0, "x"), std::invalid_argument);
}

// One H200 (the harness's readings of 2026-12-04, calibration/data/measured/): the spin-wait
// phase drew the idle watts at 100 % utilization, and one GPU has no communication phase.
// Utilization separates the hang, the communication edges are interpolated, and every
// reading lands in its own phase, as does the 79 W cold idle.
TEST(PowerBands, RealH200PhasesSeparateByUtilization) {
    std::map<std::string, std::vector<PhaseReading>> w = {{"idle", {{122.488, 0}}},
                                                          {"checkpoint_or_deadlock", {{122.402, 100}}},
                                                          {"data_starvation", {{353.5545, 26}}},
                                                          {"compute", {{692.364, 99}}}};
    const PowerBands b = power_bands_from_phases(w, 700, "calibrated: h200");
    const BandThresholdsW t = thresholds_w(b);
    EXPECT_NEAR(t.idle_max_w, 1.1 * 122.488, 1e-9);
    EXPECT_NEAR(t.idle_util_max_pct, 50, 1e-9);
    EXPECT_NEAR(t.checkpoint_max_w, (122.488 + 353.5545) / 2, 1e-9);
    const double comm = (353.5545 + 692.364) / 2;  // interpolated
    EXPECT_NEAR(t.starvation_max_w, (353.5545 + comm) / 2, 1e-9);
    EXPECT_NEAR(t.communication_max_w, (comm + 692.364) / 2, 1e-9);
    EXPECT_NE(b.edge_sources.at("idle_max").find("separated by utilization"), std::string::npos);
    EXPECT_NE(b.edge_sources.at("starvation_max").find("interpolated"), std::string::npos);
    EXPECT_NE(b.edge_sources.at("communication_max").find("interpolated"), std::string::npos);
    EXPECT_EQ(b.edge_sources.at("checkpoint_max").find("interpolated"), std::string::npos);
    EXPECT_EQ(raw_phase(122.402, 100, t), Phase::checkpoint_or_deadlock);
    EXPECT_EQ(raw_phase(122.488, 0, t), Phase::idle);
    EXPECT_EQ(raw_phase(79, 0, t), Phase::idle);
    EXPECT_EQ(raw_phase(353.5545, 26, t), Phase::data_starvation);
    EXPECT_EQ(raw_phase(692.364, 99, t), Phase::compute);

    // Same watts and unread utilization: nothing tells a hang from idle, and the error says so.
    for (auto& [phase, list] : w) list[0].utilization_pct = std::numeric_limits<double>::quiet_NaN();
    try {
        power_bands_from_phases(w, 700, "x");
        ADD_FAILURE() << "inseparable idle and hang accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("separated neither by watts"), std::string::npos) << e.what();
    }
    // Same watts and utilization within the required gap: also refused.
    w["idle"][0].utilization_pct = 90;
    w["checkpoint_or_deadlock"][0].utilization_pct = 100;
    EXPECT_THROW(power_bands_from_phases(w, 700, "x"), std::invalid_argument);
}

TEST(Triage, SteadyCompute) {
    const auto l = make_all(8, {{kCompute, 300}});
    const auto r = triage(l.trace, h100(), {}, detector());
    expect_labelled(l, r);
    EXPECT_TRUE(r.alerts.empty());
    ASSERT_EQ(r.job_segments.size(), 1u);
    EXPECT_EQ(r.job_segments[0].phase, Phase::compute);
    EXPECT_NEAR(r.job_segments[0].mean_power_w, 8 * 640, 8 * 5.0);
    EXPECT_EQ(r.gpu_segments.size(), 8u);
}

TEST(Triage, CommunicationHeavy) {
    std::vector<Piece> p;
    for (int k = 0; k < 10; ++k) {
        p.push_back({kCompute, 10});
        p.push_back({kComm, 15});
    }
    const auto l = make_all(4, p);
    const auto r = triage(l.trace, h100(), {}, detector());
    expect_labelled(l, r);
    EXPECT_TRUE(r.alerts.empty());
    EXPECT_EQ(r.job_segments.size(), 20u);
    EXPECT_GT(r.job.seconds[1], r.job.seconds[0]);
}

TEST(Triage, LongCheckpointInADeclaredWindowDoesNotFire) {
    const auto l = make_all(8, {{kCompute, 100}, {kCheckpoint, 400}, {kCompute, 100}});
    DetectorOptions d = detector();  // T = 240 s < 400 s checkpoint
    d.checkpoints.windows = {{100, 505}};
    const auto r = triage(l.trace, h100(), {}, d);
    expect_labelled(l, r);
    EXPECT_TRUE(r.alerts.empty());
    d.checkpoints = {};
    d.checkpoints.first_start_s = 100;  // the same as a schedule
    d.checkpoints.interval_s = 1000;
    d.checkpoints.duration_s = 405;
    EXPECT_TRUE(triage(l.trace, h100(), {}, d).alerts.empty());
    // control: without the declaration the same trace fires
    const auto undeclared = triage(l.trace, h100(), {}, detector());
    ASSERT_EQ(undeclared.alerts.size(), 1u);
    EXPECT_EQ(undeclared.alerts[0].kind, AlertKind::deadlock);
}

// Declared windows pause the hang clock, they do not restart it: windows closer together
// than T (every 50 s for 5 s, T = 240 s) hid a 900 s hang for good. The hang is caught once,
// after T of hang time outside the windows (T plus the windows inside it, plus a sample or
// two), and a hang that starts inside a window counts from the window's end.
TEST(Triage, FrequentCheckpointWindowsDoNotHideAHang) {
    const double hang_start = 100;
    const auto l = make_all(8, {{kCompute, hang_start}, {kHang, 900}});
    DetectorOptions d = detector();
    const double T = d.deadlock_threshold_s();
    d.checkpoints.first_start_s = 0;
    d.checkpoints.interval_s = 50;
    d.checkpoints.duration_s = 5;
    const auto r = triage(l.trace, h100(), {}, d);
    ASSERT_EQ(r.alerts.size(), 1u);
    EXPECT_EQ(r.alerts[0].kind, AlertKind::deadlock);
    // 240 s outside windows from t = 100: windows at 100, 150, ..., 350 take 6 x 5 s.
    EXPECT_GT(r.alerts[0].time_s, hang_start + T + 25);
    EXPECT_LE(r.alerts[0].time_s, hang_start + T + 30 + 2.0);
    // One long window that covers the start of the hang: counted from its end.
    d.checkpoints = {};
    d.checkpoints.windows = {{90, 200}};
    const auto late = triage(l.trace, h100(), {}, d);
    ASSERT_EQ(late.alerts.size(), 1u);
    EXPECT_GT(late.alerts[0].time_s, 200 + T);
    EXPECT_LE(late.alerts[0].time_s, 200 + T + 2.0);
}

TEST(Triage, DeadlockThresholdFromTheDeclaredSaveWhenNoExpectedCheckpoint) {
    DetectorOptions d;  // nothing known: PyTorch's NCCL watchdog default
    EXPECT_DOUBLE_EQ(d.deadlock_threshold_s(), 600);
    d.checkpoints.duration_s = 405;  // declared saves of 405 s: T = 2 x 405 s
    EXPECT_DOUBLE_EQ(d.expected_save_s(), 405);
    EXPECT_DOUBLE_EQ(d.deadlock_threshold_s(), 810);
    d.expected_checkpoint_s = 20;  // said explicitly: it wins, and T has its 60 s floor
    EXPECT_DOUBLE_EQ(d.deadlock_threshold_s(), 60);
    d.deadlock_after_s = 300;
    EXPECT_DOUBLE_EQ(d.deadlock_threshold_s(), 300);
}

TEST(Triage, NcclHangFiresWithinTPlusTwoSamples) {
    const double hang_start = 100;
    const auto l = make_all(8, {{kCompute, hang_start}, {kHang, 900}});
    const DetectorOptions d = detector();
    const double T = d.deadlock_threshold_s();
    EXPECT_DOUBLE_EQ(T, 240);
    const auto r = triage(l.trace, h100(), {}, d);
    expect_labelled(l, r);
    ASSERT_EQ(r.alerts.size(), 1u);
    const Alert& a = r.alerts[0];
    EXPECT_EQ(a.kind, AlertKind::deadlock);
    EXPECT_GT(a.time_s, hang_start + T);
    EXPECT_LE(a.time_s, hang_start + T + 2 * kDt);
    EXPECT_EQ(a.gpus.size(), 8u);
    EXPECT_NE(a.message.find("deadlock"), std::string::npos);
    // the same watts with utilization 0 is idle, never a deadlock
    const auto idle = triage(make_all(8, {{kCompute, 100}, {kIdle, 900}}).trace, h100(), {}, d);
    EXPECT_TRUE(idle.alerts.empty());
    EXPECT_EQ(idle.job_segments.back().phase, Phase::idle);
}

TEST(Triage, DeadlockNeedsEveryGpu) {
    std::vector<std::vector<Piece>> g(4, {{kCompute, 50}, {kHang, 600}});
    g[2] = {{kCompute, 650}};
    const auto r = triage(make(g).trace, h100(), {}, detector());
    EXPECT_TRUE(r.alerts.empty());
    EXPECT_EQ(r.job_segments.back().phase, Phase::compute);  // 3 in hang + 1 computing: not a deadlock
}

TEST(Triage, SustainedDataStarvation) {
    const auto l = make_all(8, {{kCompute, 60}, {kStarve, 200}, {kCompute, 60}});
    DetectorOptions d = detector();
    d.starvation_after_s = 120;
    const auto r = triage(l.trace, h100(), {}, d);
    expect_labelled(l, r);
    ASSERT_EQ(r.alerts.size(), 1u);
    EXPECT_EQ(r.alerts[0].kind, AlertKind::data_starvation);
    EXPECT_GT(r.alerts[0].time_s, 60 + 120);
    EXPECT_LE(r.alerts[0].time_s, 60 + 120 + 2 * kDt);
}

TEST(Triage, Straggler) {
    std::vector<std::vector<Piece>> g(8, {{kCompute, 30}, {kComm, 100}, {kCompute, 30}});
    g[3] = {{kCompute, 160}};
    const auto l = make(g);
    DetectorOptions d = detector();
    d.straggler_after_s = 60;
    const auto r = triage(l.trace, h100(), {}, d);
    expect_labelled(l, r);
    ASSERT_EQ(r.alerts.size(), 1u);
    EXPECT_EQ(r.alerts[0].kind, AlertKind::straggler);
    EXPECT_EQ(r.alerts[0].gpus, std::vector<int>{3});
    EXPECT_GT(r.alerts[0].time_s, 30 + 60);
    EXPECT_LE(r.alerts[0].time_s, 30 + 60 + 2 * kDt);
    EXPECT_EQ(r.job_segments[1].phase, Phase::communication);
}

TEST(Triage, HysteresisIgnoresAShortBlip) {
    const auto l = make_all(1, {{kCompute, 30}, {kComm, 1}, {kCompute, 30}});
    const auto r = triage(l.trace, h100(), {}, detector());
    for (Phase p : r.sample_phase) EXPECT_EQ(p, Phase::compute);
}

TEST(Triage, EnergyPerPhaseByHand) {
    // No smoothing (window below the sample spacing), no dwell.
    PowerTrace t;
    t.push_back({0, 0, 600, 100});
    t.push_back({1, 0, 600, 100});
    t.push_back({2, 0, 300, 100});
    t.push_back({3, 0, 300, 100});
    ClassifierOptions c;
    c.smoothing_window_s = 0.1;
    c.min_dwell_s = 0;
    const auto r = triage(t, h100(), c, detector());
    // [0,1]: 600 J compute; [1,2]: (600+300)/2 = 450 J compute (phase of sample 1);
    // [2,3]: 300 J communication.
    const PhaseTotals& g = r.per_gpu.at(0);
    EXPECT_DOUBLE_EQ(g.energy_j[0], 1050);
    EXPECT_DOUBLE_EQ(g.seconds[0], 2);
    EXPECT_DOUBLE_EQ(g.energy_j[1], 300);
    EXPECT_DOUBLE_EQ(g.seconds[1], 1);
    ASSERT_EQ(r.gpu_segments.size(), 2u);
    EXPECT_DOUBLE_EQ(r.gpu_segments[0].mean_power_w, 525);
    EXPECT_DOUBLE_EQ(r.gpu_segments[1].start_s, 2);
    EXPECT_DOUBLE_EQ(r.gpu_segments[1].end_s, 3);
    EXPECT_DOUBLE_EQ(r.job.energy_j[0], 1050);
    EXPECT_DOUBLE_EQ(r.job.seconds[0], 2);
    EXPECT_DOUBLE_EQ(r.job.seconds[1], 1);
}

TEST(Triage, RejectsNonIncreasingTimes) {
    PowerTrace t;
    t.push_back({1, 0, 600, 100});
    t.push_back({1, 0, 600, 100});
    EXPECT_THROW(triage(t, h100(), {}, detector()), std::invalid_argument);
}

// A smoothing window below the timestamps' resolution (t - 1e-9 == t at epoch seconds)
// smooths nothing: each sample is its own mean, and no sample past the last is read
// (the sanitized build caught the read).
TEST(Triage, SmoothingWindowBelowTheClockResolution) {
    const std::vector<double> t = {1778191200.0, 1778191201.0, 1778191202.0};
    const std::vector<double> p = {650, 72, 650};
    const std::vector<double> u = {100, 100, 100};
    ClassifierOptions o;
    o.smoothing_window_s = 1e-9;
    o.min_dwell_s = 0;
    std::vector<Phase> out(t.size());
    classify_gpu(t, p, u, thresholds_w(h100()), o, out);
    EXPECT_EQ(out[0], Phase::compute);
    EXPECT_EQ(out[1], Phase::checkpoint_or_deadlock);
    EXPECT_EQ(out[2], Phase::compute);
}

// 6 s of samples busy at idle watts, then one sample 995 s later, was reported as
// a deadlock: the 989 s without data counted as hang time. A trace's gap (ten of its own
// sampling intervals, at least 5 s) is no data; a hang sampled throughout still fires.
TEST(Triage, AGapInTheTraceIsNoData) {
    PowerTrace gap, steady;
    for (int g = 0; g < 4; ++g) {
        for (double t = 0; t <= 6; t += 1) gap.push_back({t, g, 72, 100});
        gap.push_back({995, g, 72, 100});
        for (double t = 0; t <= 995; t += 1) steady.push_back({t, g, 72, 100});
    }
    EXPECT_DOUBLE_EQ(data_gap_s(gap.time_s, gap.gpu), 10.0);  // 10 × 1 s
    EXPECT_TRUE(triage(gap, h100()).alerts.empty());
    const TriageResult r = triage(steady, h100());
    ASSERT_EQ(r.alerts.size(), 1u);
    EXPECT_EQ(r.alerts[0].kind, AlertKind::deadlock);
    // Nor is it compute time or energy: 3 s of compute, a day without samples, 3 s more
    // are 4 s (two segments of [0, 2] and [86402, 86404]) and 4 × 600 J, not 86,404 s.
    PowerTrace day;
    for (const double t0 : {0.0, 86400.0})
        for (double t = t0 + 0; t <= t0 + 4; t += 1)
            if (t0 == 0 ? t <= 2 : t >= t0 + 2) day.push_back({t, 0, 600, 100});
    ClassifierOptions c;
    c.smoothing_window_s = 0.1;
    c.min_dwell_s = 0;
    const TriageResult d = triage(day, h100(), c, detector());
    EXPECT_DOUBLE_EQ(d.per_gpu.at(0).seconds[0], 4);
    EXPECT_DOUBLE_EQ(d.per_gpu.at(0).energy_j[0], 4 * 600);
    EXPECT_DOUBLE_EQ(d.job.seconds[0], 4);
    ASSERT_EQ(d.gpu_segments.size(), 2u);
    EXPECT_DOUBLE_EQ(d.gpu_segments[0].end_s, 2);
    EXPECT_DOUBLE_EQ(d.gpu_segments[1].start_s, 86402);
    // The floor: a trace sampled every 0.1 s still has a gap only past 5 s.
    const std::vector<double> fast{0, 0.1, 0.2, 0.3};
    const std::vector<int> one(4, 0);
    EXPECT_DOUBLE_EQ(data_gap_s(fast, one), 5.0);
    EXPECT_DOUBLE_EQ(data_gap_s({}, {}), 5.0);
}
