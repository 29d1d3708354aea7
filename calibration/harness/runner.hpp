// Runs a plan on every rank: the phases in order (operations, collectives, microrun,
// power), each case under a no-progress timeout, the records gathered to rank 0 after
// every phase and written there at once (atomically), then the fit, the power bands and
// the report (report.hpp). docs/calibration.md describes the phases and the files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "backend.hpp"
#include "plan.hpp"
#include "world.hpp"

namespace libscale::harness {

inline constexpr const char* kPhaseNames[] = {"operations", "collectives", "microrun", "power"};

struct RunOptions {
    std::filesystem::path out_dir;
    std::vector<std::string> phases = {"operations", "collectives", "microrun", "power"};
    // The longest a rank may go without finishing a case (or reaching an exchange) before
    // the run stops, naming the rank and the phase.
    double timeout_s = 300;
    std::string command;   // the command line, for the provenance
    bool progress = true;  // progress lines on rank 0's stderr
    // The summary of what was measured on rank 0's stdout; without it (--quiet) a failure
    // is still one line on stderr.
    bool summary = true;
};

// Exit codes: 0 measured and fitted; 3 a rank failed, hung or lost its GPU (what was
// measured until then is written); 4 measured, but the fit failed (no calibration file).
inline constexpr int kExitFault = 3;
inline constexpr int kExitFitFailed = 4;

// Predicted wall seconds of a phase on `ranks` ranks: each case's time by the hardware's
// default calibration × (warm-up + repeats), plus an assumed setup per case (allocation,
// cuBLASLt heuristics, graph builds: 0.1 s per operation, 50 ms per collective, 0.5 s per
// micro-run). What the progress lines' "left" starts from, and `--plan` prints.
double predicted_phase_s(const Plan& p, const std::string& phase, int ranks);

// Throws std::invalid_argument for an unknown phase name or a timeout that is not > 0.
int run_calibration(World& w, Backend& b, const Plan& p, const RunOptions& o);

}  // namespace libscale::harness
