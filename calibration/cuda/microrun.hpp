// The FSDP step micro-run, run for real (MicrorunCase): the model cut to `layers` decoder
// layers, one micro-batch per GPU, every operation of the core's OperationPlan
// (compute_model.hpp) on a compute stream and FSDP2's collectives on a communication
// stream, ordered by events as step_model.cpp's fsdp_schedule models them.
#pragma once

#include "gemm_cublaslt.hpp"
#include "nccl_collectives.hpp"

namespace libscale::harness::cuda {

// Why this case cannot run on this build or configuration ("" when it can); the same on
// every rank, so all of them agree without talking.
std::string microrun_unsupported(const MicrorunCase& c);

// Runs on every rank after the barrier. Ranks ≥ config.gpus take part in the ring's
// split and the agreement on skips, then return "not in the ring".
Timing run_microrun(World& w, const Plan& p, const MicrorunCase& c, int warmup, int repeats, double timeout_s,
                    const Lt& lt, Nccl& nccl);

}  // namespace libscale::harness::cuda
