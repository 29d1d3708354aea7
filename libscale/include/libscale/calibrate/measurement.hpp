// Measurement records (schema libscale.measurements/2; /1 files are read too): what the
// fitter learns from. GEMM, fused-attention and bandwidth micro-runs, collective
// micro-runs, end-to-end step timings (from a trainer's log, a CSV or a published table),
// the calibration harness's step micro-runs (checked against the model, not fitted) and
// power samples per phase. Validated on load: errors name the
// record (index) and the field. docs/formats.md lists every field.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "libscale/estimate/collective.hpp"
#include "libscale/spec/training_config.hpp"

namespace libscale {

// The smallest relative error a fit takes, for all records (FitOptions::relative_error) and
// for one (StepRun::relative_error): 0.1 %. No timing repeats better (kernel runs jitter by
// about 1 %), and weights past it make the normal equations lose every digit.
inline constexpr double kMinRelativeError = 1e-3;

inline constexpr const char* kMeasurementSchema = "libscale.measurements/2";

// One GEMM C[m×n] = A[m×k]·B[k×n], median time of repeated runs.
struct GemmRun {
    std::string hardware;
    double m = 0, n = 0, k = 0;
    bool fp8 = false;  // "dtype": "bf16" (default) or "fp8"
    double seconds = 0;
};

// One fused attention kernel over batch × seq_len query tokens.
struct AttentionRun {
    std::string hardware;
    double batch = 0, seq_len = 0, heads = 0, head_dim = 0;
    bool causal = true;
    bool backward = false;  // "pass": "forward" | "backward"
    double seconds = 0;
    // The fused kernel timed ("kernel"); a record without one takes its file's default
    // (measurements_from_json).
    AttentionKernel kernel = AttentionKernel::flash2;
};

// A memory-bound kernel that reads and writes `bytes` in all (a copy counts both).
struct BandwidthRun {
    std::string hardware;
    double bytes = 0;
    double seconds = 0;
};

struct CollectiveRun {
    std::string hardware;
    Collective op = Collective::all_gather;
    std::int64_t ranks = 0;
    std::int64_t ranks_per_node = 0;  // GPUs of the ring in each node (ranks if one node)
    double bytes = 0;                 // full buffer size S, as nccl-tests reports "size"
    double seconds = 0;
};

// One end-to-end training step configuration and its measured step time.
struct StepRun {
    std::string model;                                          // catalog name or config.json path
    nlohmann::json model_overrides = nlohmann::json::object();  // config.json keys replaced
    std::string hardware;                                       // catalog name or hardware JSON path
    TrainingConfig config;    // gpus, gpus_per_node, seq_len, micro_batch, global batch, ...
    double step_time_s = 0;   // from step_time_s, tokens_per_s or tokens_per_s_per_gpu
    double memory_gib = 0;    // published peak memory per GPU (0: none)
    std::string memory_kind;  // reserved | allocated | active | nvidia-smi
    // Peak memory the caching allocator reserved per GPU beside an allocated memory_gib
    // (torch.cuda.max_memory_reserved; libscale trainer-steps writes both); 0: none.
    double memory_reserved_gib = 0;
    double reported_mfu = 0;         // as the source computed it (0: none)
    double relative_error = 0;       // 1 sd of the figure, relative (0: the fit's default)
    std::string series;              // records of one table share it
    std::string validation_exclude;  // why validate() leaves the record out ("" : used)
    std::string source;              // where it came from (file, log line, publication)
    // Kind "step_microrun" only: the decoder layers the harness ran (the model cut to them).
    std::int64_t layers = 0;
};

struct PowerRecord {
    std::string hardware;
    std::string phase;  // compute | communication | data_starvation | checkpoint_or_deadlock | idle
    double watts = 0;
    double utilization_pct = std::numeric_limits<double>::quiet_NaN();  // NaN: not read
};

struct MeasurementSet {
    std::vector<GemmRun> gemm;
    std::vector<AttentionRun> attention;
    std::vector<BandwidthRun> bandwidth;
    std::vector<CollectiveRun> collectives;
    std::vector<StepRun> steps;
    // The harness's FSDP step micro-runs (calibration/): kernels launched from C++ without a
    // framework, so they check the composition of compute and overlap (estimate_microrun)
    // and are not fitted as a trainer's steps.
    std::vector<StepRun> microruns;
    std::vector<PowerRecord> power;
    std::size_t size() const {
        return gemm.size() + attention.size() + bandwidth.size() + collectives.size() + steps.size() +
               microruns.size() + power.size();
    }
};

// Accepts a JSON list of records, or {"schema": "libscale.measurements/2" (or /1),
// "records": [...]}. Each record has "kind": "gemm" | "attention" | "bandwidth" |
// "collective" | "step" | "step_microrun" | "power". Throws ParseError
// naming ORIGIN, the record index and the field (NaN, negative or zero times, unknown
// kind, unknown schema version, contradictory duplicates).
MeasurementSet measurements_from_json(const nlohmann::json& j, std::string_view origin);
MeasurementSet read_measurements(const std::string& path);
nlohmann::json to_json(const MeasurementSet& m);

// Appends b's records to a.
void merge(MeasurementSet& a, const MeasurementSet& b);

}  // namespace libscale
