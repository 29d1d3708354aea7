// A machine that does not exist: times from the core's laws (compute_model.hpp,
// collective.hpp, estimate_microrun) at known coefficients, with log-normal noise, so
// that calibrate → fit → project runs end to end without a GPU and a test can check that
// the fit recovers the coefficients it was given. It never stands in for a measurement:
// every record it writes says "simulated" in the provenance.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "libscale/calibrate/calibration.hpp"
#include "plan.hpp"

namespace libscale::harness {

struct SimulatedOptions {
    Calibration truth;       // the coefficients the simulated machine runs at
    double noise = 0.02;     // sd of log(time) of each timing
    std::uint64_t seed = 1;  // per rank: seed + rank
    // The step micro-run's time over the model's prediction: a composition the model does
    // not capture (imperfect overlap), which the report must show.
    double microrun_factor = 1.03;
    double memory_gib = 0;  // device memory; 0: the hardware's
    // A fault to inject, "KIND@PHASE" or "KIND@PHASE:RANK" (every rank without RANK):
    // KIND hang | error | oom | lost; PHASE operations | collectives | microrun | power.
    // hang: the rank stops answering; error: an NCCL-style error; oom: the phase's cases run
    // out of memory and are skipped (operations and microrun); lost: the GPU falls off the bus.
    std::string fault;
};

// The hardware's default calibration moved by stated factors (GEMM efficiency × 0.93, its
// k_half × 1.4, attention × 0.9, HBM × 0.95, NVLink bus bandwidth × 0.9 and latency × 1.5,
// ...): a machine the fit must move off its prior to describe. It draws 95% of board
// power computing and 55% waiting on communication.
Calibration simulated_truth(const HardwareProfile& hw);

// A fault that would never fire is refused before the run, as a malformed one is: a rank
// the world does not have, a phase not run (`phases`) or with no cases in `plan` (one GPU
// has no collectives), an oom where nothing is allocated (power, collectives: oom fires in
// operations and microrun). Throws std::invalid_argument saying which.
void check_fault(const std::string& fault, int world_size, const std::vector<std::string>& phases, const Plan& plan);

// Throws std::invalid_argument for a malformed fault.
std::unique_ptr<Backend> make_simulated_backend(const HardwareProfile& hw, const SimulatedOptions& o, int rank);

}  // namespace libscale::harness
