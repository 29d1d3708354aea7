// Live triage (triage_stream.hpp): the labelled traces replayed poll by poll must give
// the offline verdicts; missing data never produces an alert; bands follow the limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/io/error.hpp"
#include "libscale/triage/power_bands.hpp"
#include "libscale/triage/triage_stream.hpp"
#include "triage_patterns.hpp"

using namespace libscale;
using namespace triage_patterns;

namespace {

struct Replay {
    std::vector<PhaseChange> changes;
    std::vector<Alert> alerts;
    std::vector<int> lost, returned;
    std::size_t dropped = 0;
};

// Feeds every distinct sample time as one poll, as a watcher polling at kDt would.
Replay replay(TriageStream& s, const PowerTrace& t, double drop_gpu_from = INFINITY, int drop_gpu = -1,
              double drop_gpu_until = INFINITY) {
    Replay r;
    for (std::size_t a = 0; a < t.size();) {
        const double now = t.time_s[a];
        std::vector<double> ts, pw, ut;
        std::vector<int> gp;
        for (; a < t.size() && t.time_s[a] == now; ++a) {
            if (t.gpu[a] == drop_gpu && now >= drop_gpu_from && now < drop_gpu_until) continue;
            ts.push_back(t.time_s[a]);
            gp.push_back(t.gpu[a]);
            pw.push_back(t.power_w[a]);
            ut.push_back(t.utilization_pct[a]);
        }
        auto up = s.push(ts, gp, pw, ut, now);
        r.changes.insert(r.changes.end(), up.changes.begin(), up.changes.end());
        r.alerts.insert(r.alerts.end(), up.alerts.begin(), up.alerts.end());
        r.lost.insert(r.lost.end(), up.lost.begin(), up.lost.end());
        r.returned.insert(r.returned.end(), up.returned.begin(), up.returned.end());
        r.dropped += up.dropped_samples;
    }
    return r;
}

void expect_same_alerts(const std::vector<Alert>& live, const std::vector<Alert>& offline) {
    ASSERT_EQ(live.size(), offline.size());
    for (std::size_t i = 0; i < live.size(); ++i) {
        EXPECT_EQ(live[i].kind, offline[i].kind);
        EXPECT_EQ(live[i].gpus, offline[i].gpus);
        // live phases are adopted after the dwell; the clocks are dated back, so within a sample
        EXPECT_NEAR(live[i].time_s, offline[i].time_s, kDt + 1e-9) << live[i].message;
    }
}

}  // namespace

TEST(TriageStream, LabelledTracesGiveTheOfflineVerdicts) {
    std::vector<std::vector<std::vector<Piece>>> cases = {
        {8, {{kCompute, 300}}},
        {4, {{kCompute, 100}, {kHang, 400}}},
        {8, {{kCompute, 60}, {kStarve, 200}, {kCompute, 60}}},
        {8, {{kCompute, 100}, {kCheckpoint, 400}, {kCompute, 100}}},
        {4, {{kCompute, 100}, {kIdle, 300}}},
    };
    std::vector<std::vector<Piece>> strag(8, {{kCompute, 30}, {kComm, 100}, {kCompute, 30}});
    strag[3] = {{kCompute, 160}};
    cases.push_back(strag);
    std::vector<Piece> comm;
    for (int k = 0; k < 10; ++k) {
        comm.push_back({kCompute, 10});
        comm.push_back({kComm, 15});
    }
    cases.push_back(std::vector<std::vector<Piece>>(4, comm));
    for (std::size_t c = 0; c < cases.size(); ++c) {
        SCOPED_TRACE("case " + std::to_string(c));
        const auto l = make(cases[c]);
        const auto off = triage(l.trace, h100(), {}, detector());
        TriageStream s(h100(), {}, detector());
        const auto live = replay(s, l.trace);
        expect_same_alerts(live.alerts, off.alerts);
        EXPECT_EQ(s.job_phase(), static_cast<int>(off.job_segments.back().phase));
        // every GPU phase change the offline timeline has, the live one reports, dated the same
        std::size_t offline_changes = off.gpu_segments.size(), live_changes = 0;
        for (const auto& ch : live.changes) live_changes += ch.gpu >= 0;
        EXPECT_EQ(live_changes, offline_changes);
        for (const auto& seg : off.gpu_segments) {
            const auto it = std::find_if(live.changes.begin(), live.changes.end(), [&](const PhaseChange& ch) {
                return ch.gpu == seg.gpu && ch.to == seg.phase && std::fabs(ch.start_s - seg.start_s) < 1e-9;
            });
            EXPECT_NE(it, live.changes.end())
                << "GPU " << seg.gpu << " " << to_string(seg.phase) << " at " << seg.start_s;
        }
        EXPECT_TRUE(live.lost.empty());
    }
}

TEST(TriageStream, HangFiresWithinTPlusTwoSamplesLive) {
    const auto l = make_all(8, {{kCompute, 100}, {kHang, 400}});
    TriageStream s(h100(), {}, detector());
    const auto r = replay(s, l.trace);
    ASSERT_EQ(r.alerts.size(), 1u);
    EXPECT_EQ(r.alerts[0].kind, AlertKind::deadlock);
    EXPECT_GT(r.alerts[0].time_s, 100 + 240.0);
    EXPECT_LE(r.alerts[0].time_s, 100 + 240 + 2 * kDt);
    EXPECT_EQ(s.alert_counts()[0], 1u);
    EXPECT_EQ(s.job_phase(), static_cast<int>(Phase::checkpoint_or_deadlock));
    // the job change is dated back to when the last GPU entered the band
    const auto job = std::find_if(r.changes.begin(), r.changes.end(), [](const PhaseChange& c) {
        return c.gpu < 0 && c.to == Phase::checkpoint_or_deadlock;
    });
    ASSERT_NE(job, r.changes.end());
    EXPECT_NEAR(job->start_s, 100, 1.0 + kDt);
    EXPECT_GT(job->detected_s, job->start_s);
}

TEST(TriageStream, CheckpointDeclaredLiveDoesNotFire) {
    const auto l = make_all(8, {{kCompute, 100}, {kCheckpoint, 400}, {kCompute, 100}});
    TriageStream s(h100(), {}, detector());
    s.add_checkpoint_window(100, 505);  // as a marker file touched at 100 s would declare
    EXPECT_TRUE(replay(s, l.trace).alerts.empty());
    TriageStream undeclared(h100(), {}, detector());
    EXPECT_EQ(replay(undeclared, l.trace).alerts.size(), 1u);
    EXPECT_THROW(s.add_checkpoint_window(5, 5), std::invalid_argument);
}

TEST(TriageStream, LostGpuNeverTriggersAndRestartsTheClock) {
    const auto l = make_all(4, {{kCompute, 100}, {kHang, 600}});
    // GPU 2 stops reporting from 150 s to 450 s (NVML: GPU lost, or a gap in the log)
    TriageStream s(h100(), {}, detector(), {5.0});
    const auto r = replay(s, l.trace, 150, 2, 450);
    ASSERT_EQ(r.lost, std::vector<int>{2});
    ASSERT_EQ(r.returned, std::vector<int>{2});
    ASSERT_EQ(r.alerts.size(), 1u);
    // no alert while data was missing; after it came back, a full T = 240 s again
    EXPECT_GT(r.alerts[0].time_s, 450 + 240.0);
    EXPECT_LE(r.alerts[0].time_s, 450 + 240 + 2 * kDt);
    // a GPU that never comes back keeps the detector silent
    TriageStream gone(h100(), {}, detector());
    const auto r2 = replay(gone, l.trace, 150, 2);
    EXPECT_TRUE(r2.alerts.empty());
    const auto st = gone.gpus();
    ASSERT_EQ(st.size(), 4u);
    EXPECT_FALSE(st[2].present);
    EXPECT_TRUE(st[1].present);
    // with no data at all the clocks move on and nothing fires
    EXPECT_TRUE(gone.advance(2000).alerts.empty());
    for (const auto& g : gone.gpus()) EXPECT_FALSE(g.present);
}

TEST(TriageStream, AnExpectedGpuWithoutAnySampleBlocksTheDeadlock) {
    // GPU 3 fails from its first read (NVML: lost / unknown error): the other three hang
    const auto l = make_all(4, {{kCompute, 100}, {kHang, 600}});
    TriageStream s(h100(), {}, detector());
    const std::vector<int> job{0, 1, 2, 3};
    s.expect_gpus(job);
    EXPECT_TRUE(replay(s, l.trace, 0, 3).alerts.empty());
    // control: not declared, GPU 3 is simply not part of the job and the hang fires
    TriageStream t(h100(), {}, detector());
    EXPECT_EQ(replay(t, l.trace, 0, 3).alerts.size(), 1u);
}

TEST(TriageStream, DropsBadAndOutOfOrderSamples) {
    TriageStream s(h100(), {}, detector());
    const std::vector<double> t{1, 1, 2, 0.5}, p{600, 600, NAN, 600}, u{100, 100, 100, 100};
    const std::vector<int> g{0, 0, 0, 0};
    const auto up = s.push(t, g, p, u, NAN);
    EXPECT_EQ(up.dropped_samples, 2u);  // the duplicate time and the NaN watts
    EXPECT_DOUBLE_EQ(up.time_s, 1);
    ASSERT_EQ(s.gpus().size(), 1u);
    EXPECT_EQ(s.gpus()[0].samples, 2u);  // 0.5 s then 1 s
    EXPECT_THROW(s.push(t, {g.data(), 3}, p, u, NAN), std::invalid_argument);
}

// Regression: a sample at t = 1e308 emptied the smoothing window (t - window
// rounds to t) and read the front of an empty deque; `libscale watch` died with SIGSEGV.
// Such a time is dropped and counted, and later real samples are still classified.
TEST(TriageStream, HugeSampleTimesAreDroppedNotClassified) {
    TriageStream s(h100(), {}, detector());
    const std::vector<double> t{1e308, 1e13, -1e13, 10}, p{600, 600, 600, 600}, u{100, 100, 100, 100};
    const std::vector<int> g{0, 0, 0, 0};
    const auto up = s.push(t, g, p, u, NAN);
    EXPECT_EQ(up.dropped_samples, 3u);
    EXPECT_DOUBLE_EQ(up.time_s, 10);
    const auto later =
        s.push(std::vector<double>{11}, std::vector<int>{0}, std::vector<double>{610}, std::vector<double>{100}, NAN);
    EXPECT_EQ(later.dropped_samples, 0u);
    EXPECT_EQ(s.gpus()[0].samples, 2u);
    EXPECT_DOUBLE_EQ(s.gpus()[0].last_time_s, 11);
    EXPECT_THROW(s.advance(1e308), std::invalid_argument);
    EXPECT_THROW(s.advance(INFINITY), std::invalid_argument);
}

TEST(TriageStream, DefaultBandsFollowTheEnforcedLimitCalibratedOnesDoNot) {
    // H100 bands (700 W board): 300 W is communication (280 < p <= 420).
    const std::vector<double> t{0}, p{300}, u{100};
    const std::vector<int> g{0};
    TriageStream a(h100(), {}, detector());
    a.push(t, g, p, u, NAN);
    EXPECT_EQ(a.gpus()[0].phase, Phase::communication);
    // capped at 350 W, the same 300 W is compute (> 0.6 × 350 = 210)
    TriageStream b(h100(), {}, detector());
    b.set_power_limit_w(0, 350);
    b.push(t, g, p, u, NAN);
    EXPECT_EQ(b.gpus()[0].phase, Phase::compute);
    EXPECT_DOUBLE_EQ(b.gpus()[0].power_limit_w, 350);
    PowerBands fixed = h100();
    fixed.scale_with_power_limit = false;
    TriageStream c(fixed, {}, detector());
    c.set_power_limit_w(0, 350);
    c.push(t, g, p, u, NAN);
    EXPECT_EQ(c.gpus()[0].phase, Phase::communication);
}

TEST(TriageStream, ReprOfChangesAlertsAndStatus) {
    std::ostringstream os;
    os << PhaseChange{-1, false, Phase::compute, Phase::checkpoint_or_deadlock, 100, 102, 576};
    EXPECT_EQ(os.str(), "job compute -> checkpoint_or_deadlock at t = 100 s (576 W)");
    os.str("");
    os << Alert{AlertKind::deadlock, 341, {0, 1}, "deadlock suspected"};
    EXPECT_EQ(os.str(), "deadlock at t = 341 s: deadlock suspected");
    os.str("");
    os << GpuStatus{3, false, Phase::idle, 7, 70, NAN, NAN, 9, 4};
    EXPECT_EQ(os.str(), "GPU 3 lost since t = 7 s, 70 W");
}

TEST(PowerBandsFile, WattsBasisRoundTripsAndValidates) {
    const nlohmann::json j = {{"basis", "watts"},
                              {"power_limit_w", 1100},
                              {"idle_max", 121},
                              {"checkpoint_max", 275},
                              {"starvation_max", 440},
                              {"communication_max", 660},
                              {"source", "micro-runs 2026-12-01"}};
    const PowerBands b = power_bands_from_json(j, "cal.json");
    EXPECT_FALSE(b.scale_with_power_limit);
    EXPECT_DOUBLE_EQ(b.idle_max_fraction, 0.11);
    EXPECT_EQ(b.label, "calibrated: cal.json (micro-runs 2026-12-01)");
    const auto th = thresholds_w(b, 700);  // watts stay watts whatever the limit
    EXPECT_DOUBLE_EQ(th.checkpoint_max_w, 275);
    EXPECT_DOUBLE_EQ(th.communication_max_w, 660);
    const nlohmann::json back = power_bands_to_json(b, "micro-runs 2026-12-01");
    EXPECT_DOUBLE_EQ(back["starvation_max"].get<double>(), 440);
    EXPECT_EQ(back["basis"], "watts");
    auto bad = j;
    bad["starvation_max"] = 200;  // below checkpoint_max
    try {
        power_bands_from_json(bad, "cal.json");
        FAIL();
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("starvation_max"), std::string::npos) << e.what();
    }
    bad = j;
    bad["basis"] = "kW";
    try {
        power_bands_from_json(bad, "cal.json");
        FAIL();
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("power_bands.basis"), std::string::npos) << e.what();
    }
    bad = j;
    bad["idle_maxx"] = 1;
    EXPECT_THROW(power_bands_from_json(bad, "cal.json"), ParseError);
}

TEST(PowerBandsFile, ReadFromACalibrationFileOfTheSameHardware) {
    const std::filesystem::path dir = LIBSCALE_TEST_TMPDIR;
    const auto path = (dir / "bands.json").string();
    {
        std::ofstream f(path);
        f << R"({"schema": "libscale.calibration/1", "kind": "fitted", "hardware": "h100",
                 "power_bands": {"basis": "fraction_of_power_limit", "power_limit_w": 700, "idle_max": 0.12,
                                 "checkpoint_max": 0.3, "starvation_max": 0.45, "communication_max": 0.65}})";
    }
    const PowerBands b = read_power_bands(path, find_hardware("h100"));
    EXPECT_TRUE(b.scale_with_power_limit);
    EXPECT_DOUBLE_EQ(thresholds_w(b, 600).communication_max_w, 390);
    try {
        read_power_bands(path, find_hardware("b300"));
        FAIL();
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("hardware"), std::string::npos);
    }
    {
        std::ofstream f(path);
        f << R"({"schema": "libscale.calibration/1", "kind": "fitted", "hardware": "h100"})";
    }
    try {
        read_power_bands(path, find_hardware("h100"));
        FAIL();
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("no power_bands"), std::string::npos);
    }
}

namespace {

// One poll: every one of `gpus` GPUs at time t, with the pattern's power and utilization.
StreamUpdate poll(TriageStream& s, double t, int gpus, const Pattern& p, double now = NAN) {
    std::vector<double> ts(static_cast<std::size_t>(gpus), t), pw(ts.size(), p.power_w), ut(ts.size(), p.util_pct);
    std::vector<int> g(ts.size());
    for (int i = 0; i < gpus; ++i) g[static_cast<std::size_t>(i)] = i;
    return s.push(ts, g, pw, ut, now);
}

std::size_t deadlocks(const std::vector<Alert>& alerts) {
    return static_cast<std::size_t>(
        std::count_if(alerts.begin(), alerts.end(), [](const Alert& a) { return a.kind == AlertKind::deadlock; }));
}

}  // namespace

// A followed nvidia-smi log whose local-time stamps jump forward (daylight saving,
// a clock step) made 1.5 s of hang-like samples look like an hour. The jump is a gap: the
// evidence starts again after it, reported.
TEST(TriageStreamClock, AForwardJumpIsAGapNotHangTime) {
    DetectorOptions d;
    d.deadlock_after_s = 60;
    TriageStream s(h100(), {}, d);
    double t = 1778191200;
    for (int i = 0; i < 4; ++i, t += kDt) EXPECT_TRUE(poll(s, t, 4, kHang).alerts.empty());
    t += 3600;  // the log's clock moves an hour on
    const StreamUpdate after = poll(s, t, 4, kHang);
    EXPECT_TRUE(after.alerts.empty());
    ASSERT_EQ(after.gaps.size(), 4u);
    EXPECT_NEAR(after.gaps[0].to_s - after.gaps[0].from_s, 3600 + kDt, 1e-6);
    std::vector<Alert> alerts;
    for (int i = 0; i < 100; ++i) {  // 50 s more of the same: still under T = 60 s
        t += kDt;
        const auto up = poll(s, t, 4, kHang);
        alerts.insert(alerts.end(), up.alerts.begin(), up.alerts.end());
    }
    EXPECT_EQ(deadlocks(alerts), 0u);
    // A hang that goes on after the jump is caught, T after the jump.
    for (int i = 0; i < 40; ++i) {
        t += kDt;
        const auto up = poll(s, t, 4, kHang);
        alerts.insert(alerts.end(), up.alerts.begin(), up.alerts.end());
    }
    ASSERT_EQ(deadlocks(alerts), 1u);
    EXPECT_GT(alerts[0].time_s, 1778191200 + 3600 + 60.0);
}

// Replaying a log with a 95 s hole: the hole was counted as hang time.
TEST(TriageStreamClock, AGapInAReplayedLogIsNoData) {
    DetectorOptions d;
    d.deadlock_after_s = 60;
    TriageStream s(h100(), {}, d);
    std::vector<Alert> alerts;
    for (double t = 0; t < 10; t += kDt) poll(s, t, 2, kHang);
    for (double t = 105; t < 115; t += kDt) {
        const auto up = poll(s, t, 2, kHang);
        alerts.insert(alerts.end(), up.alerts.begin(), up.alerts.end());
    }
    EXPECT_EQ(deadlocks(alerts), 0u);
}

// A step backwards dropped every later line (GPUs reported lost, a real hang unseen): the
// clock is re-based, said once, and the hang after it fires.
TEST(TriageStreamClock, AStepBackIsRebasedAndAHangAfterItIsSeen) {
    DetectorOptions d;
    d.deadlock_after_s = 60;
    TriageStream s(h100(), {}, d);
    double t = 1778191200;
    for (int i = 0; i < 20; ++i, t += kDt) poll(s, t, 4, kCompute);
    t -= 3600;  // the log's clock goes back an hour
    const StreamUpdate step = poll(s, t, 4, kCompute);
    EXPECT_EQ(step.dropped_samples, 0u);
    EXPECT_NEAR(step.clock_step_s, 3600, 1.0);
    EXPECT_TRUE(step.lost.empty());
    std::vector<Alert> alerts;
    std::vector<int> lost;
    for (int i = 0; i < 200; ++i) {  // 100 s of a hang after the step
        t += kDt;
        const auto up = poll(s, t, 4, kHang);
        EXPECT_EQ(up.clock_step_s, 0);
        EXPECT_EQ(up.dropped_samples, 0u);
        alerts.insert(alerts.end(), up.alerts.begin(), up.alerts.end());
        lost.insert(lost.end(), up.lost.begin(), up.lost.end());
    }
    EXPECT_TRUE(lost.empty());
    EXPECT_EQ(deadlocks(alerts), 1u);
    EXPECT_NEAR(s.clock_offset_s(), 3600, 1.0);
    // A line repeated or slightly out of order is still dropped, not a clock step.
    const StreamUpdate repeat = poll(s, t - 1, 4, kHang);
    EXPECT_EQ(repeat.dropped_samples, 4u);
    EXPECT_EQ(repeat.clock_step_s, 0);
}

// The watcher's promise: no sequence of healthy samples, gaps and clock steps, forward or
// back, ever raises a deadlock. Healthy here includes checkpoint-like stretches (busy at
// idle watts) shorter than T, on the true clock; the log's clock is stepped and samples
// are dropped for up to 20 minutes at random.
TEST(TriageStreamClock, NoHealthySequenceOfSamplesGapsAndClockStepsRaisesADeadlock) {
    std::mt19937 rng(2023);
    std::uniform_real_distribution<double> unit(0, 1);
    for (int run = 0; run < 200; ++run) {
        DetectorOptions d;
        d.deadlock_after_s = 60;
        TriageStream s(h100(), {}, d);
        const int gpus = 1 + run % 4;
        double truth = 0, shown = 1778191200 + 1e5 * unit(rng), busy_low_left = 0, compute_left = 0;
        const Pattern* phase = &kCompute;
        std::vector<Alert> alerts;
        for (int i = 0; i < 1500; ++i) {
            truth += kDt;
            shown += kDt;
            compute_left -= kDt;
            if (busy_low_left > 0) {
                busy_low_left -= kDt;
                if (busy_low_left <= 0) {
                    phase = &kCompute;
                    compute_left = 10;  // work between saves, longer than a blip the dwell ignores
                }
            } else if (compute_left <= 0 && unit(rng) < 0.01) {
                phase = &kHang;  // a checkpoint-like stretch: busy at idle watts, shorter than T
                busy_low_left = 55 * unit(rng);
            } else if (unit(rng) < 0.02) {
                phase = unit(rng) < 0.5 ? &kIdle : &kCompute;
            }
            const double r = unit(rng);
            if (r < 0.004) shown += (unit(rng) < 0.5 ? -1 : 1) * 3600;  // clock step
            if (r > 0.996) {                                            // no data for a while
                const double gap = 1200 * unit(rng);
                truth += gap;
                shown += gap;
                busy_low_left -= gap;
                compute_left -= gap;
                if (busy_low_left <= 0 && phase == &kHang) {
                    phase = &kCompute;
                    compute_left = 10;
                }
                continue;
            }
            const auto up = poll(s, shown, gpus, *phase);
            alerts.insert(alerts.end(), up.alerts.begin(), up.alerts.end());
        }
        ASSERT_EQ(deadlocks(alerts), 0u) << "run " << run << ": " << alerts.front().message;
    }
}
