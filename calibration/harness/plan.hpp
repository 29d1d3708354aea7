// What the harness measures for a model on a machine: every GEMM of one decoder layer and
// of the output head at its real shapes (forward, dgrad, wgrad) over a sweep of tokens
// per micro-batch, fused attention over sequence lengths, a bandwidth sweep, the FSDP
// collectives at the model's message sizes and a size sweep of all-gather, reduce-scatter,
// all-reduce and all-to-all for every ring size, the step micro-run per GPU count, and the
// power phases. Built from the core's operation plan
// (compute_model.hpp), so the shapes are the ones the step model times.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libscale/estimate/collective.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/spec/model_spec.hpp"
#include "libscale/spec/training_config.hpp"

namespace libscale::harness {

struct GemmCase {
    double m = 0, n = 0, k = 0;  // C[m×n] = A[m×k]·B[k×n]
    bool fp8 = false;
    std::string label;  // "layer gemm 0 forward", "head dgrad", ...
};

struct AttentionCase {
    double batch = 0, seq_len = 0, heads = 0, kv_heads = 0, head_dim = 0;
    bool causal = true;
    bool backward = false;
};

struct BandwidthCase {
    double bytes = 0;  // read + written
};

struct CollectiveCase {
    Collective op = Collective::all_gather;
    int ranks = 2;           // the ring: ranks 0..ranks−1 of the world
    int ranks_per_node = 2;  // of the ring, per node
    double bytes = 0;        // full buffer, as nccl-tests' "size"
    std::string label;       // "layer parameters, bf16", "sweep"
};

struct MicrorunCase {
    TrainingConfig config;  // gpus = the ring, seq_len, micro_batch
    std::int64_t layers = 0;
};

// The core's time of a collective case at `cal`: ring_time_s on the ring's link
// (ring_link), or for all_to_all all_to_all_time_s, which is not a ring across nodes and
// equals ring_time_s inside one (collective.hpp). What the simulated backend times and the
// progress lines predict.
double collective_time_s(const CollectiveCase& c, const Calibration& cal);

// A case in words, for progress lines, skips and errors ("GEMM head dgrad m=... bf16").
std::string describe(const GemmCase& g);
std::string describe(const AttentionCase& a);
std::string describe(const CollectiveCase& c);
std::string describe(const MicrorunCase& m);

// The five phases of the power section, each produced on every GPU at once.
enum class PowerPhaseKind { idle, gemm, nccl, host_starved, spin };
const char* to_string(PowerPhaseKind k);
// The triage phase each one stands for (triage/power_bands.hpp).
const char* triage_phase(PowerPhaseKind k);

struct PlanOptions {
    bool quick = false;        // a few shapes and short phases: one node in under 2 minutes
    std::int64_t seq_len = 0;  // of the micro-run and the token sweep's centre (0: min(8192, model max))
    std::int64_t micro_batch = 1;
    std::int64_t microrun_layers = 0;  // 0: 2 with quick, else 4
    double power_phase_s = 0;          // 0: 4 s with quick, else 10 s
    bool fp8 = true;                   // fp8 GEMMs where the GPU has fp8 tensor cores
};

struct Plan {
    std::string model_name;
    ModelSpec model;
    HardwareProfile hardware;
    std::vector<GemmCase> gemm;
    std::vector<AttentionCase> attention;
    std::vector<BandwidthCase> bandwidth;
    std::vector<CollectiveCase> collectives;
    std::vector<MicrorunCase> microruns;
    std::vector<PowerPhaseKind> power_phases;
    double power_phase_s = 0;
    int warmup = 0, repeats = 0;     // per timed case
    std::vector<std::string> notes;  // what was left out and why (e.g. no collectives on 1 GPU)
};

// `world_size` GPUs, `local_size` per node, `nodes` nodes. Throws std::invalid_argument
// for options out of range (naming the option).
Plan make_plan(const std::string& model_name, const ModelSpec& m, const HardwareProfile& hw, int world_size,
               int local_size, int nodes, const PlanOptions& o);

}  // namespace libscale::harness
