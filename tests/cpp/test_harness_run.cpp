// The harness end to end on the simulated backend, in this process: four ranks forked on
// this machine, every phase, the fit, the calibration file and the report. The fit must
// recover the coefficients the simulated machine was given.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "harness/report.hpp"
#include "harness/runner.hpp"
#include "harness/simulated.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/calibrate/fit.hpp"
#include "libscale/estimate/collective.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/triage/power_bands.hpp"
#include "test_support.hpp"

namespace libscale::harness {
namespace {

using nlohmann::json;

struct SimulatedRun : ::testing::Test {
    static inline std::filesystem::path dir;
    static inline int rc = -1;
    static inline Calibration truth;
    static inline Plan plan;

    // One run for the suite: the phases take well under a second simulated.
    static void SetUpTestSuite() {
        // ctest runs each test in its own process, in parallel: one folder per process.
        dir = test::temp_dir("harness_simulated_" + std::to_string(::getpid()));
        const HardwareProfile hw = find_hardware("h200");
        truth = simulated_truth(hw);
        PlanOptions po;
        po.quick = true;
        plan = make_plan("qwen3-32b", find_model("qwen3-32b"), hw, 4, 4, 1, po);
        const auto world = make_local_world(4);
        SimulatedOptions so;
        so.truth = truth;
        so.seed = 7;
        const auto backend = make_simulated_backend(hw, so, world->rank());
        RunOptions ro;
        ro.out_dir = dir;
        ro.progress = false;
        ro.timeout_s = 20;
        ro.command = "test";
        const int code = run_calibration(*world, *backend, plan, ro);
        if (world->rank() != 0) std::_Exit(code);  // a forked rank must not run the other tests
        rc = code;
    }
};

TEST_F(SimulatedRun, WritesEveryFileAndEveryRecord) {
    ASSERT_EQ(rc, 0);
    const MeasurementSet m = read_measurements((dir / "measurements.json").string());
    EXPECT_EQ(m.gemm.size(), plan.gemm.size());  // dealt over four ranks, all gathered
    EXPECT_EQ(m.attention.size(), plan.attention.size());
    EXPECT_EQ(m.bandwidth.size(), plan.bandwidth.size());
    EXPECT_EQ(m.collectives.size(), plan.collectives.size());
    // The quick sweep's 1 MiB all-to-all on the rings of 2 and 4 GPUs.
    std::vector<std::int64_t> all_to_all;
    for (const CollectiveRun& c : m.collectives)
        if (c.op == Collective::all_to_all) {
            all_to_all.push_back(c.ranks);
            EXPECT_EQ(c.bytes, 1048576.0);
        }
    EXPECT_EQ(all_to_all, (std::vector<std::int64_t>{2, 4}));
    EXPECT_EQ(m.microruns.size(), plan.microruns.size());
    EXPECT_EQ(m.power.size(), 4u * 5u);  // every GPU, every phase
    const json report = read_json_file(dir / "report.json");
    EXPECT_EQ(report["schema"], kReportSchema);
    EXPECT_EQ(report["provenance"]["gpus"], 4);
    EXPECT_EQ(report["provenance"]["launcher"], "local");
    EXPECT_TRUE(report["skipped"].empty());
}

TEST_F(SimulatedRun, TheFitRecoversTheSimulatedMachine) {
    ASSERT_EQ(rc, 0);
    const HardwareProfile hw = find_hardware("h200");
    const CalibrationFile f = read_calibration_file((dir / "calibration.json").string(), hw);
    EXPECT_EQ(f.calibration.kind, "fitted");
    const json quality = f.quality;
    int checked = 0;
    for (const json& c : quality["coefficients"]) {
        if (!c["fitted"].get<bool>()) continue;
        const std::string name = c["name"];
        const double want = get_parameter(truth, name), got = c["value"], sd = c["std_error"];
        EXPECT_GT(sd, 0) << name;
        EXPECT_LT(std::abs(got - want), 3.5 * sd + 1e-12 * std::abs(want))
            << name << ": fitted " << got << " ± " << sd << ", truth " << want;
        ++checked;
    }
    // GEMM (bf16, fp8, k_half), attention (4), HBM, NVLink latency and bandwidth.
    EXPECT_GE(checked, 10);
    // The measured watts replace the prior's upper bounds.
    EXPECT_NEAR(f.calibration.power_comm_w, truth.power_comm_w, 0.05 * truth.power_comm_w);
    EXPECT_NEAR(f.calibration.power_compute_w, truth.power_compute_w, 0.05 * truth.power_compute_w);
    EXPECT_EQ(f.sources["power.comm_w"], "measured: median of 4 power records of the communication phase");
}

TEST_F(SimulatedRun, PowerBandsSeparateTheMeasuredPhases) {
    ASSERT_EQ(rc, 0);
    const HardwareProfile hw = find_hardware("h200");
    const PowerBands b = read_power_bands((dir / "calibration.json").string(), hw);
    EXPECT_FALSE(b.scale_with_power_limit);
    const BandThresholdsW t = thresholds_w(b);
    const json power = read_json_file(dir / "report.json")["power"];
    EXPECT_EQ(raw_phase(power["gemm"]["median_w"], 100, t), Phase::compute);
    EXPECT_EQ(raw_phase(power["nccl"]["median_w"], 100, t), Phase::communication);
    EXPECT_EQ(raw_phase(power["host_starved"]["median_w"], 40, t), Phase::data_starvation);
    EXPECT_EQ(raw_phase(power["spin"]["median_w"], 100, t), Phase::checkpoint_or_deadlock);
    EXPECT_EQ(raw_phase(power["idle"]["median_w"], 0, t), Phase::idle);
}

TEST_F(SimulatedRun, MicroRunsAreComparedWithTheModel) {
    ASSERT_EQ(rc, 0);
    const json micro = read_json_file(dir / "report.json")["microrun"];
    ASSERT_EQ(micro.size(), 3u);  // 1, 2 and 4 GPUs
    for (const json& r : micro) {
        // The simulated machine runs 3% slower than the model's composition, with 2% noise.
        EXPECT_NEAR(r["measured_over_predicted"].get<double>(), 1.03, 0.07) << r.dump();
        EXPECT_NEAR(r["measured_s"].get<double>() / r["predicted_s"].get<double>(),
                    r["measured_over_predicted"].get<double>(), 1e-12);
    }
}

// `libscale fit` runs the same fit: refitting the written records reproduces the file.
TEST_F(SimulatedRun, RefittingTheRecordsReproducesTheCalibration) {
    ASSERT_EQ(rc, 0);
    const HardwareProfile hw = find_hardware("h200");
    const FitResult again = fit(read_measurements((dir / "measurements.json").string()), hw, default_calibration(hw));
    const CalibrationFile f = read_calibration_file((dir / "calibration.json").string(), hw);
    for (const std::string name : {"gemm.eta_max", "attention.forward_eta_max", "intra_node.busbw_bytes_per_s"})
        EXPECT_NEAR(get_parameter(again.calibration, name), get_parameter(f.calibration, name),
                    1e-9 * get_parameter(f.calibration, name))
            << name;
}

// The collectives phase alone, the full sweep, on four ranks pretended to be two nodes of
// two GPUs: rings of 2 inside a node and of 4 across both, all-to-all among the cases.
struct SimulatedTwoNodes : ::testing::Test {
    static inline std::filesystem::path dir;
    static inline int rc = -1;
    static inline Calibration truth;
    static inline Plan plan;

    static void SetUpTestSuite() {
        dir = test::temp_dir("harness_two_nodes_" + std::to_string(::getpid()));
        const HardwareProfile hw = find_hardware("h200");
        truth = simulated_truth(hw);
        plan = make_plan("qwen3-32b", find_model("qwen3-32b"), hw, 4, 2, 2, PlanOptions{});
        const auto world = make_local_world(4, 2);
        SimulatedOptions so;
        so.truth = truth;
        so.seed = 11;
        const auto backend = make_simulated_backend(hw, so, world->rank());
        RunOptions ro;
        ro.out_dir = dir;
        ro.phases = {"collectives"};
        ro.progress = false;
        ro.summary = false;
        ro.timeout_s = 20;
        ro.command = "test";
        const int code = run_calibration(*world, *backend, plan, ro);
        if (world->rank() != 0) std::_Exit(code);
        rc = code;
    }

    static MeasurementSet all_to_all_records() {
        MeasurementSet m = read_measurements((dir / "measurements.json").string());
        std::erase_if(m.collectives, [](const CollectiveRun& c) { return c.op != Collective::all_to_all; });
        return m;
    }
};

TEST_F(SimulatedTwoNodes, AllToAllIsTimedAtEverySweepSizeOnEveryRing) {
    ASSERT_EQ(rc, 0);
    const MeasurementSet m = all_to_all_records();
    // Sweep sizes 1/16, 1, 16 and 256 MiB, each on the ring of 2 (one node) and of 4 (two).
    ASSERT_EQ(m.collectives.size(), 8u);
    for (const CollectiveRun& c : m.collectives) {
        SCOPED_TRACE(std::to_string(c.ranks) + " ranks, " + std::to_string(c.bytes) + " B");
        EXPECT_EQ(c.ranks_per_node, 2);
        EXPECT_TRUE(c.ranks == 2 || c.ranks == 4);
        // The simulated machine times it by the core's law: within its 2% noise (5 sd).
        const double law = all_to_all_time_s(c.bytes, c.ranks, c.ranks_per_node, truth);
        EXPECT_LT(std::abs(std::log(c.seconds / law)), 0.1) << c.seconds << " s against " << law << " s";
    }
    // On one node that is the all-gather ring's time; across nodes each GPU's own NIC
    // carries half its buffer (to the other node's two GPUs), which no ring does.
    const double mib = 1048576.0;
    EXPECT_REL(all_to_all_time_s(256 * mib, 2, 2, truth),
               ring_time_s(Collective::all_gather, 256 * mib, 2, truth.intra_node));
    EXPECT_REL(all_to_all_time_s(256 * mib, 4, 2, truth), truth.intra_node.alpha_s + 2 * truth.inter_node.alpha_s +
                                                              2 * (256 * mib / 4) / truth.inter_node.busbw_bytes_per_s);
}

// all_to_all records alone pin both links: inside a node by the all-gather law, across
// nodes by all_to_all_time_s (fit_collectives.cpp).
TEST_F(SimulatedTwoNodes, TheFitOfTheAllToAllRecordsAloneRecoversBothLinks) {
    ASSERT_EQ(rc, 0);
    const HardwareProfile hw = find_hardware("h200");
    const FitResult r = fit(all_to_all_records(), hw, default_calibration(hw));
    for (const std::string name :
         {"intra_node.busbw_bytes_per_s", "intra_node.alpha_s", "inter_node.busbw_bytes_per_s", "inter_node.alpha_s"}) {
        SCOPED_TRACE(name);
        const Coefficient* c = nullptr;
        for (const Coefficient& k : r.coefficients)
            if (k.name == name) c = &k;
        ASSERT_NE(c, nullptr);
        EXPECT_TRUE(c->fitted) << c->note;
        const double want = get_parameter(truth, name);
        EXPECT_NEAR(c->value, want, 0.05 * want) << c->note;
        EXPECT_LT(std::abs(c->value - want), 3.5 * c->std_error + 1e-12 * want);
        if (name.starts_with("inter_node")) {
            EXPECT_NE(c->note.find("4 all_to_all among them, timed by all_to_all_time_s"), std::string::npos)
                << c->note;
        }
    }
}

}  // namespace
}  // namespace libscale::harness
