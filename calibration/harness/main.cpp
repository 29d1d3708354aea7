// libscale-calibrate: measures a machine and writes a calibration file. docs/calibration.md
// is the manual; `libscale-calibrate --help` the summary.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "../cuda/cuda_backend.hpp"
#include "detect.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/error.hpp"
#include "runner.hpp"
#include "simulated.hpp"

namespace fs = std::filesystem;
using namespace libscale;
using namespace libscale::harness;

namespace {

constexpr int kExitUsage = 2;

const char* const kUsage = R"(usage: libscale-calibrate --model MODEL --out DIR [options]

Measures this machine for MODEL (a catalog name or a config.json path) and writes
DIR/measurements.json, DIR/calibration.json (fitted, with power bands) and DIR/report.json.
One process per GPU: without MPI it forks them on this node; under mpirun or srun each
process is one rank (across nodes).

  --model MODEL        catalog name (libscale models) or config.json path (required)
  -o, --out DIR        output folder, created if missing (required)
  --hardware HW        catalog name or hardware JSON (default: from the GPU's name)
  --quick              a few shapes and short phases: one node in under 2 minutes
  --backend B          cuda (default) or simulated (no GPU: known coefficients + noise)
  --gpus N             GPUs on this node without MPI, 1..64 (default: all; simulated: 1)
  --launcher L         auto (default: mpi when started by mpirun/srun), mpi or local
  --phases LIST        comma-separated subset of operations,collectives,microrun,power
  --timeout S          seconds a rank may go without progress before the run stops (300)
  --seq-len N          sequence length of the micro-run (default min(8192, model's))
  --micro-batch N      sequences per micro-batch of the micro-run (1)
  --layers N           decoder layers of the micro-run (quick 2, else 4)
  --power-phase-s S    seconds per power phase (quick 4, else 10)
  --no-fp8             no fp8 GEMMs
  --quiet              no progress lines and no summary (a failure is one line on stderr)
  --plan               print what would be measured and the predicted time, then exit
                       (with --gpus N and --nodes M for another machine's size)
 simulated backend only:
  --seed N             noise seed (1)
  --noise X            sd of log(time) (0.02)
  --fault SPEC         inject KIND@PHASE[:RANK], KIND hang|error|oom|lost
  --nodes M            spread the --gpus ranks over M pretended nodes (local launch)

Exit status: 0 measured and fitted; 2 bad arguments; 3 a rank failed, hung or lost its GPU
(the measurements taken are written); 4 measured, but the fit failed.
)";

struct Args {
    std::string model, out, hardware, backend = "cuda", launcher = "auto", fault;
    bool quick = false, quiet = false, fp8 = true, plan = false;
    int gpus = 0, nodes = 1;
    std::vector<std::string> phases;
    double timeout_s = 300, noise = 0.02, power_phase_s = 0;
    std::int64_t seq_len = 0, micro_batch = 1, layers = 0;
    std::uint64_t seed = 1;
};

[[noreturn]] void usage_error(const std::string& msg) {
    std::cerr << "libscale-calibrate: " << one_line(msg) << "\n(see libscale-calibrate --help)\n";
    std::exit(kExitUsage);
}

double number(const std::string& flag, const std::string& v, double lo, double hi) {
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(x) || x < lo || x > hi) {
        std::ostringstream s;
        s << std::setprecision(12) << flag << " = '" << v << "'; valid: a number in [" << lo << ", " << hi << "]";
        usage_error(s.str());
    }
    return x;
}

std::int64_t integer(const std::string& flag, const std::string& v, std::int64_t lo, std::int64_t hi) {
    const double x = number(flag, v, static_cast<double>(lo), static_cast<double>(hi));
    if (x != std::floor(x)) usage_error(flag + " = '" + v + "'; valid: an integer");
    return static_cast<std::int64_t>(x);
}

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string f = argv[i];
        if (f == "-h" || f == "--help") {
            std::cout << kUsage;
            std::exit(0);
        }
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage_error(f + " needs a value");
            return argv[++i];
        };
        if (f == "--model") a.model = value();
        else if (f == "--out" || f == "-o") a.out = value();
        else if (f == "--hardware") a.hardware = value();
        else if (f == "--quick") a.quick = true;
        else if (f == "--quiet") a.quiet = true;
        else if (f == "--no-fp8") a.fp8 = false;
        else if (f == "--plan") a.plan = true;
        else if (f == "--nodes") a.nodes = static_cast<int>(integer(f, value(), 1, 1024));
        else if (f == "--backend") a.backend = value();
        else if (f == "--launcher") a.launcher = value();
        // One process per GPU on this node: 64 bounds it well above any node's GPUs
        // (8 on HGX, 4 per GB200 tray) and keeps a typo from forking thousands.
        else if (f == "--gpus") a.gpus = static_cast<int>(integer(f, value(), 1, 64));
        else if (f == "--timeout") a.timeout_s = number(f, value(), 1, 86400);
        else if (f == "--seq-len") a.seq_len = integer(f, value(), 1, 1 << 24);
        else if (f == "--micro-batch") a.micro_batch = integer(f, value(), 1, 1 << 16);
        else if (f == "--layers") a.layers = integer(f, value(), 1, 1 << 16);
        else if (f == "--power-phase-s") a.power_phase_s = number(f, value(), 1, 3600);
        else if (f == "--seed") a.seed = static_cast<std::uint64_t>(integer(f, value(), 0, 1LL << 52));
        else if (f == "--noise") a.noise = number(f, value(), 0, 0.5);
        else if (f == "--fault") {
            const std::string spec = value();
            if (!a.fault.empty())
                usage_error("--fault given twice ('" + a.fault + "' and '" + spec + "'); one fault per run");
            a.fault = spec;
        } else if (f == "--phases") {
            std::stringstream s(value());
            for (std::string p; std::getline(s, p, ',');) a.phases.push_back(p);
        } else usage_error("unknown argument '" + f + "'");
    }
    if (a.model.empty()) usage_error("--model is required (a catalog name or a config.json path)");
    if (a.out.empty() && !a.plan) usage_error("--out is required (the folder the files go to)");
    if (a.backend != "cuda" && a.backend != "simulated")
        usage_error("--backend = '" + a.backend + "'; valid: cuda, simulated");
    if (a.launcher != "auto" && a.launcher != "mpi" && a.launcher != "local")
        usage_error("--launcher = '" + a.launcher + "'; valid: auto, mpi, local");
    if (a.backend != "simulated" && (!a.fault.empty()))
        usage_error("--fault injects faults into the simulated backend only; add --backend simulated");
    if (a.nodes > 1 && !a.plan && (a.backend != "simulated" || a.launcher == "mpi"))
        usage_error(
            "--nodes pretends nodes for the simulated backend (or sizes a --plan); across real nodes, "
            "launch with mpirun or srun");
    for (const std::string& p : a.phases)
        if (std::find(std::begin(kPhaseNames), std::end(kPhaseNames), p) == std::end(kPhaseNames))
            usage_error("--phases: '" + p + "'; valid: operations, collectives, microrun, power");
    return a;
}

PlanOptions plan_options(const Args& a) {
    PlanOptions po;
    po.quick = a.quick;
    po.seq_len = a.seq_len;
    po.micro_batch = a.micro_batch;
    po.microrun_layers = a.layers;
    po.power_phase_s = a.power_phase_s;
    po.fp8 = a.fp8;
    return po;
}

// --plan: the cases of each phase and their predicted time, for --gpus GPUs on --nodes nodes.
int print_plan(const Args& a, const ModelSpec& model, const HardwareProfile& hw, int gpus_here) {
    const int per_node = a.gpus > 0 ? a.gpus : std::max(gpus_here, 1);
    const int world = per_node * a.nodes;
    try {
        const Plan p = make_plan(a.model, model, hw, world, per_node, a.nodes, plan_options(a));
        std::cout << "libscale-calibrate plan: " << a.model << " on " << world << " × " << hw.name << " (" << a.nodes
                  << " node(s))" << (a.quick ? ", --quick" : "") << "\n";
        const std::vector<std::string> phases =
            a.phases.empty() ? std::vector<std::string>(std::begin(kPhaseNames), std::end(kPhaseNames)) : a.phases;
        double total = 0;
        for (const std::string& ph : phases) {
            const std::size_t cases = ph == "operations"    ? p.gemm.size() + p.attention.size() + p.bandwidth.size()
                                      : ph == "collectives" ? p.collectives.size()
                                      : ph == "microrun"    ? p.microruns.size()
                                                            : p.power_phases.size();
            const double s = predicted_phase_s(p, ph, world);
            total += s;
            std::printf("  %-12s %5zu cases  about %6.1f s\n", ph.c_str(), cases, s);
        }
        std::printf(
            "  %-12s              about %6.1f s (predicted from %s's default calibration, plus assumed setup "
            "per case)\n",
            "total", total, hw.name.c_str());
        for (const std::string& n : p.notes) std::cout << "  note: " << n << "\n";
        return 0;
    } catch (const std::invalid_argument& e) {
        usage_error(e.what());
    }
}

}  // namespace

int main(int argc, char** argv) {
    const Args a = parse(argc, argv);
    std::string command = "libscale-calibrate";
    for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];

    // Everything that can be checked without the GPUs is checked before a rank starts.
    ModelSpec model;
    HardwareProfile hw;
    std::string gpu_name;
    double gpu_memory_gib = 0;
    int gpus_here = 0;
    try {
        model = find_model(a.model);
        if (a.backend == "cuda") gpus_here = count_gpus_without_cuda(&gpu_name, &gpu_memory_gib);
        std::string hw_name = a.hardware;
        if (hw_name.empty() && a.backend == "cuda") {
            hw_name = catalog_hardware_for(gpu_name, gpu_memory_gib);
            if (hw_name.empty() && gpus_here > 0)
                throw std::invalid_argument("the GPU '" + gpu_name +
                                            "' is not in the hardware catalog: give --hardware with a hardware "
                                            "JSON file (docs/formats.md)");
        }
        if (hw_name.empty() && a.backend == "simulated") hw_name = "h100";
        if (hw_name.empty() && a.plan)
            throw std::invalid_argument("--plan without a GPU here: give --hardware (the machine to plan for)");
        if (!a.plan && a.backend == "cuda" && gpus_here == 0 && cuda_backend_features().empty())
            throw std::invalid_argument(
                "this libscale-calibrate was built without CUDA (CMake found no CUDA toolkit), so it cannot measure a "
                "GPU; rebuild on a machine with the CUDA toolkit, or run --backend simulated");
        if (!a.plan && a.backend == "cuda" && gpus_here == 0)
            throw std::invalid_argument(
                "no NVIDIA GPU found (NVML reports none, or libnvidia-ml.so.1 is missing: is the driver installed?); "
                "--backend simulated runs a simulated machine");
        hw = find_hardware(hw_name);
        if (!a.plan) fs::create_directories(a.out);
    } catch (const std::exception& e) {
        usage_error(e.what());
    }

    if (a.plan) return print_plan(a, model, hw, gpus_here);

    const bool mpi = a.launcher == "mpi" || (a.launcher == "auto" && launched_by_mpi());
    std::unique_ptr<World> world;
    int local_ranks = a.gpus > 0 ? a.gpus : (a.backend == "simulated" ? 1 : gpus_here);
    if (a.backend == "cuda" && a.gpus > gpus_here)
        usage_error("--gpus = " + std::to_string(a.gpus) + "; this node has " + std::to_string(gpus_here) + " GPU(s)");
    try {
        world = mpi ? make_mpi_world(&argc, &argv) : make_local_world(local_ranks, a.nodes);
    } catch (const std::exception& e) {
        std::cerr << "libscale-calibrate: " << one_line(e.what()) << "\n";
        return kExitUsage;
    }

    try {
        const Plan plan =
            make_plan(a.model, model, hw, world->size(), world->local_size(), world->nodes(), plan_options(a));
        std::unique_ptr<Backend> backend;
        if (a.backend == "simulated") {
            SimulatedOptions so;
            so.truth = simulated_truth(hw);
            so.noise = a.noise;
            so.seed = a.seed;
            so.fault = a.fault;
            check_fault(a.fault, world->size(), a.phases.empty() ? RunOptions().phases : a.phases, plan);
            backend = make_simulated_backend(hw, so, world->rank());
        } else {
            backend = make_cuda_backend(*world, hw);
        }
        RunOptions ro;
        ro.out_dir = a.out;
        if (!a.phases.empty()) ro.phases = a.phases;
        ro.timeout_s = a.timeout_s;
        ro.command = command;
        ro.progress = !a.quiet;
        ro.summary = !a.quiet;
        return run_calibration(*world, *backend, plan, ro);
    } catch (const BackendError& e) {
        std::cerr << "libscale-calibrate: rank " << world->rank() << ": " << one_line(e.what()) << "\n";
        world->abort(kExitFault);
    } catch (const std::invalid_argument& e) {
        std::cerr << "libscale-calibrate: " << one_line(e.what()) << "\n";
        if (world->size() > 1) world->abort(kExitUsage);
        return kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << "libscale-calibrate: rank " << world->rank() << ": " << one_line(e.what()) << "\n";
        if (world->size() > 1) world->abort(kExitFault);
        return kExitFault;
    }
}
