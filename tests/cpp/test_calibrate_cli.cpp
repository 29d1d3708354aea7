// libscale-calibrate as a user runs it: the simulated backend through the program, its
// faults (a rank that hangs, an NCCL error, out of memory, a lost GPU), bad arguments,
// and, where MPI is installed, four ranks under mpirun.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.hpp"
#include "harness/simulated.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/calibrate/measurement.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/json_io.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Result {
    int code = -1;
    std::string output;  // stdout and stderr
};

// A shell command line's status and output.
Result run_shell(const std::string& cmd) {
    Result r;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf{};
    while (const std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) r.output.append(buf.data(), n);
    const int status = ::pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

Result run(const std::string& args) { return run_shell(std::string(LIBSCALE_CALIBRATE_BIN) + " " + args + " 2>&1"); }

fs::path out_dir(const std::string& name) {
    return test::temp_dir("calibrate_" + name + "_" + std::to_string(::getpid()));
}

const std::string kSimulated = "--model qwen3-32b --hardware h200 --backend simulated --quick --quiet ";

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(CalibrateCli, SimulatedRunFeedsProjections) {
    const fs::path dir = out_dir("ok");
    const Result r = run(kSimulated + "--gpus 2 --out " + dir.string());
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(r.output, "");  // --quiet: no progress, no summary
    EXPECT_TRUE(contains(read_json_file(dir / "report.json")["calibration"].get<std::string>(), "calibration.json"));
    // The fitted file drives a projection, and moves it off the default calibration.
    const HardwareProfile hw = find_hardware("h200");
    const CalibrationFile f = read_calibration_file((dir / "calibration.json").string(), hw);
    const ModelSpec m = find_model("qwen3-32b");
    TrainingConfig c;
    c.gpus = 8;
    c.seq_len = 4096;
    c.micro_batch = 1;
    c.global_batch_tokens = 8 * 4096 * 4;
    const double fitted = estimate_step(m, hw, f.calibration, c).step_time_s;
    const double prior = estimate_step(m, hw, default_calibration(hw), c).step_time_s;
    EXPECT_GT(fitted, prior * 1.02);  // the simulated machine's GEMMs are 7% slower than the prior's
    EXPECT_TRUE(std::isfinite(fitted));
    EXPECT_EQ(f.provenance["backend"], "simulated");
    EXPECT_EQ(f.provenance["gpus"], 2);
    EXPECT_FALSE(f.provenance["date"].get<std::string>().empty());
}

// Two pretended nodes of two GPUs: rings that cross nodes, and the network level fitted.
TEST(CalibrateCli, PretendedNodesMeasureTheNetworkLevel) {
    const fs::path dir = out_dir("nodes");
    // -o: the short spelling libscale fit and report take as well
    const Result r = run(kSimulated + "--gpus 4 --nodes 2 -o " + dir.string());
    ASSERT_EQ(r.code, 0) << r.output;
    const MeasurementSet m = read_measurements((dir / "measurements.json").string());
    std::size_t crossing = 0;
    for (const CollectiveRun& c : m.collectives) crossing += c.ranks == 4 && c.ranks_per_node == 2;
    EXPECT_GT(crossing, 0u);
    const json report = read_json_file(dir / "report.json");
    EXPECT_EQ(report["provenance"]["nodes"], 2);
    const Calibration truth = harness::simulated_truth(find_hardware("h200"));
    for (const char* name : {"inter_node.busbw_bytes_per_s", "inter_node.alpha_s"}) {
        ASSERT_TRUE(report["fit"]["coefficients"].contains(name)) << report["fit"].dump();
        const json& c = report["fit"]["coefficients"][name];
        EXPECT_LT(std::abs(c["value"].get<double>() - get_parameter(truth, name)), 3.5 * c["std_error"].get<double>())
            << name << " " << c.dump() << " truth " << get_parameter(truth, name);
    }
    EXPECT_EQ(run(kSimulated + "--gpus 3 --nodes 2 --out " + dir.string()).code, 2);
}

TEST(CalibrateCli, PlanPrintsEveryPhaseWithoutRunning) {
    const Result r = run("--plan --model qwen3-32b --hardware h200 --gpus 8 --quick");
    ASSERT_EQ(r.code, 0) << r.output;
    for (const char* phase : {"operations", "collectives", "microrun", "power", "total"})
        EXPECT_TRUE(contains(r.output, phase)) << r.output;
    EXPECT_TRUE(contains(r.output, "on 8 × h200")) << r.output;
}

TEST(CalibrateCli, AHungRankIsNamedAndTheMeasurementsKept) {
    const fs::path dir = out_dir("hang");
    const Result r = run(kSimulated + "--gpus 4 --timeout 2 --fault hang@collectives:2 --out " + dir.string());
    EXPECT_EQ(r.code, 3) << r.output;
    EXPECT_TRUE(contains(r.output, "rank 2")) << r.output;
    EXPECT_TRUE(contains(r.output, "collectives")) << r.output;
    EXPECT_FALSE(fs::exists(dir / "calibration.json"));
    const json j = read_json_file(dir / "measurements.json");
    EXPECT_TRUE(contains(j["failure"].get<std::string>(), "rank 2")) << j["failure"];
    // The operations phase finished before the hang: its records are kept.
    const MeasurementSet m = measurements_from_json(j, "measurements.json");
    EXPECT_GT(m.gemm.size(), 10u);
    EXPECT_TRUE(m.collectives.empty());
    for (const auto& e : fs::directory_iterator(dir))  // no temporary file left behind
        EXPECT_EQ(e.path().extension(), ".json") << e.path();
}

TEST(CalibrateCli, AnNcclErrorStopsEveryRank) {
    const fs::path dir = out_dir("error");
    const Result r = run(kSimulated + "--gpus 3 --fault error@collectives:1 --out " + dir.string());
    EXPECT_EQ(r.code, 3) << r.output;
    EXPECT_TRUE(contains(r.output, "NCCL error on rank 1")) << r.output;
    EXPECT_FALSE(fs::exists(dir / "calibration.json"));
    EXPECT_TRUE(contains(read_json_file(dir / "measurements.json")["failure"].get<std::string>(),
                         "rank 1, phase collectives: NCCL error"));
}

TEST(CalibrateCli, ALostGpuStopsTheRun) {
    const fs::path dir = out_dir("lost");
    const Result r = run(kSimulated + "--gpus 2 --fault lost@microrun:0 --out " + dir.string());
    EXPECT_EQ(r.code, 3) << r.output;
    EXPECT_TRUE(contains(r.output, "fell off the bus")) << r.output;
    EXPECT_FALSE(fs::exists(dir / "calibration.json"));
    EXPECT_EQ(read_measurements((dir / "measurements.json").string()).collectives.size() > 0, true);
}

TEST(CalibrateCli, OutOfMemoryShapesAreSkippedAndSaid) {
    const fs::path dir = out_dir("oom");
    const Result r = run(kSimulated + "--gpus 2 --fault oom@operations --out " + dir.string());
    ASSERT_EQ(r.code, 0) << r.output;
    const json report = read_json_file(dir / "report.json");
    ASSERT_FALSE(report["skipped"].empty());
    // Without --quiet the summary says what was measured and written.
    const fs::path loud = out_dir("loud");
    const Result said = run(
        "--model qwen3-0.6b --hardware h200 --backend simulated --quick --phases operations --out " + loud.string());
    ASSERT_EQ(said.code, 0) << said.output;
    EXPECT_TRUE(contains(said.output, "GEMM bf16") && contains(said.output, "wrote ")) << said.output;
    for (const json& s : report["skipped"]) EXPECT_TRUE(contains(s["why"], "out of memory")) << s.dump();
    // The output head's GEMMs (151936 × 5120 bf16 weights: 1.5 GiB) did not fit in 256 MiB.
    const MeasurementSet m = read_measurements((dir / "measurements.json").string());
    for (const GemmRun& g : m.gemm) EXPECT_NE(g.n, 151936.0);
    EXPECT_TRUE(fs::exists(dir / "calibration.json"));
}

TEST(CalibrateCli, BadArgumentsNameTheFlag) {
    const fs::path dir = out_dir("bad");
    Result r = run("--model qwen3-32b --out " + dir.string() + " --backend simulated --gpus 0");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.output, "--gpus = '0'")) << r.output;
    r = run("--model qwen3-32b --out " + dir.string() + " --backend simulated --gpus 4096");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.output, "--gpus = '4096'; valid: a number in [1, 64]")) << r.output;
    r = run("--model no-such-model --backend simulated --out " + dir.string());
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.output, "no-such-model")) << r.output;
    r = run("--model qwen3-32b --backend simulated --out " + dir.string() + " --phases operations,nap");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.output, "'nap'")) << r.output;
    r = run("--model qwen3-32b --backend simulated --out " + dir.string() + " --fault hang@lunch");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.output, "fault = 'hang@lunch'")) << r.output;
    // Faults that would never fire are refused, not silently ignored.
    const std::string sim =
        "--model qwen3-0.6b --hardware h100 --backend simulated --quick --quiet --out " + dir.string();
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {" --gpus 2 --fault hang@power:7", "rank 7 does not exist (the run has 2 ranks, 0-1)"},
             {" --gpus 2 --fault oom@power", "power allocates none"},
             {" --gpus 2 --phases operations --fault error@microrun", "phase 'microrun' is not run"},
             {" --gpus 1 --fault error@collectives", "the plan has no collectives cases"},
             {" --gpus 2 --fault oom@operations --fault hang@power", "--fault given twice"}}) {
        SCOPED_TRACE(args);
        r = run(sim + args);
        EXPECT_EQ(r.code, 2);
        EXPECT_TRUE(contains(r.output, says)) << r.output;
        EXPECT_FALSE(fs::exists(dir / "measurements.json"));
    }
    r = run("--backend simulated --out " + dir.string());
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.output, "--model is required")) << r.output;
}

// Without a GPU (or a CUDA build) the default backend says so and runs nothing.
TEST(CalibrateCli, NoGpuIsAClearErrorNotACrash) {
    std::string name;
    double memory = 0;
    if (harness::count_gpus_without_cuda(&name, &memory) > 0) GTEST_SKIP() << "this machine has a GPU: " << name;
    const fs::path dir = out_dir("nogpu");
    const Result r = run("--model qwen3-32b --quick --out " + dir.string());
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "no NVIDIA GPU found") || contains(r.output, "built without CUDA")) << r.output;
    EXPECT_TRUE(contains(r.output, "--backend simulated")) << r.output;
    EXPECT_FALSE(fs::exists(dir / "measurements.json"));
}

#ifdef LIBSCALE_MPIEXEC
std::string mpirun(int ranks) {
    std::string cmd = std::string(LIBSCALE_MPIEXEC) + " -np " + std::to_string(ranks) + " --oversubscribe";
    if (::geteuid() == 0) cmd += " --allow-run-as-root";  // CI containers run as root
    return cmd + " ";
}

Result run_mpi(int ranks, const std::string& args) {
    return run_shell(mpirun(ranks) + LIBSCALE_CALIBRATE_BIN + " " + args + " 2>&1");
}

TEST(CalibrateMpi, FourRanksGatherOneAtomicWrite) {
    const fs::path dir = out_dir("mpi");
    const Result r = run_mpi(4, kSimulated + "--out " + dir.string());
    ASSERT_EQ(r.code, 0) << r.output;
    const json report = read_json_file(dir / "report.json");
    EXPECT_EQ(report["provenance"]["launcher"], "mpi");
    EXPECT_EQ(report["provenance"]["gpus"], 4);
    const MeasurementSet m = read_measurements((dir / "measurements.json").string());
    EXPECT_EQ(m.power.size(), 20u);  // 4 ranks × 5 phases
    std::set<std::int64_t> rings;
    for (const CollectiveRun& c : m.collectives) rings.insert(c.ranks);
    EXPECT_EQ(rings, (std::set<std::int64_t>{2, 4}));
    EXPECT_TRUE(fs::exists(dir / "calibration.json"));
}

TEST(CalibrateMpi, AHungRankUnderMpirunIsNamed) {
    const fs::path dir = out_dir("mpi_hang");
    const Result r = run_mpi(4, kSimulated + "--timeout 2 --fault hang@microrun:3 --out " + dir.string());
    EXPECT_NE(r.code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "rank 3")) << r.output;
    EXPECT_FALSE(fs::exists(dir / "calibration.json"));
    EXPECT_FALSE(read_measurements((dir / "measurements.json").string()).collectives.empty());
}
#endif

}  // namespace
}  // namespace libscale
