// Measurement records (schema libscale.measurements/1): what the fitter learns from.
// GEMM-chain micro-runs, collective micro-runs, end-to-end step timings (from the
// harness, a trainer's log or a CSV) and power samples per phase. Validated on load:
// errors name the record (index) and the field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "libscale/collective.hpp"
#include "libscale/training_config.hpp"

namespace libscale {

inline constexpr const char* kMeasurementSchema = "libscale.measurements/1";

// A chain of GEMMs shaped like one decoder layer's forward at `tokens` rows.
struct GemmRun {
    std::string hardware;
    double tokens = 0;      // rows of the GEMMs = tokens per micro-batch per GPU
    double flops = 0;       // FLOPs the chain executed
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
    std::string model;       // catalog name or config.json path
    std::string hardware;    // catalog name or hardware JSON path
    TrainingConfig config;   // gpus, gpus_per_node, seq_len, micro_batch, global batch, ...
    double step_time_s = 0;  // from step_time_s, tokens_per_s or tokens_per_s_per_gpu
    std::string source;      // where it came from (file, log line, publication)
};

struct PowerRecord {
    std::string hardware;
    std::string phase;       // compute | communication | data_starvation | checkpoint_or_deadlock | idle
    double watts = 0;
};

struct MeasurementSet {
    std::vector<GemmRun> gemm;
    std::vector<CollectiveRun> collectives;
    std::vector<StepRun> steps;
    std::vector<PowerRecord> power;
    std::size_t size() const { return gemm.size() + collectives.size() + steps.size() + power.size(); }
};

// Accepts a JSON list of records, or {"schema": "libscale.measurements/1", "records": [...]}.
// Each record has "kind": "gemm" | "collective" | "step" | "power". Throws ParseError
// naming ORIGIN, the record index and the field (NaN, negative or zero times, unknown
// kind, unknown schema version, contradictory duplicates).
MeasurementSet measurements_from_json(const nlohmann::json& j, std::string_view origin);
MeasurementSet read_measurements(const std::string& path);
nlohmann::json to_json(const MeasurementSet& m);

// Appends b's records to a.
void merge(MeasurementSet& a, const MeasurementSet& b);

}  // namespace libscale
