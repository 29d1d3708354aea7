// Power triage: classify each GPU's power draw into five phases, combine the GPUs into
// a job-level phase, and detect deadlocks (NCCL hangs: utilization 100% at near-idle
// watts, NVIDIA/nccl#968), sustained data starvation and stragglers. Offline over a
// PowerTrace (power_trace.hpp); the classifier kernel is causal, so a live watcher can
// feed it the same way.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "libscale/triage/power_bands.hpp"
#include "libscale/triage/power_trace.hpp"

namespace libscale {

// The longest window, threshold or save duration a detector takes, and the longest
// checkpoint interval: one day and one week. Past them a threshold silences the detector
// it configures (a deadlock after 1e308 s is never reported), which a watcher must not do.
inline constexpr double kMaxDetectorSpanS = 86400;
inline constexpr double kMaxCheckpointIntervalS = 7 * 86400;
// Declared saves at most this often: a schedule of a save every microsecond is a unit slip.
inline constexpr double kMinCheckpointIntervalS = 1;

struct ClassifierOptions {
    // Trailing moving average of power over (t − window, t]. NVML/nvidia-smi power is
    // already a 1 s average on Ampere and newer, so 1 s only removes sample noise.
    double smoothing_window_s = 1.0;
    // A new phase must hold this long (from its first sample) before it is adopted; once
    // adopted, the phase change is dated back to that first sample.
    double min_dwell_s = 2.0;
    void validate() const;
};

// One GPU's samples, time strictly increasing. Writes the phase of every sample to
// `out` (same length). Samples more than gap_s apart are a gap in the data: smoothing and
// dwell start again after it. No allocation; O(n).
void classify_gpu(std::span<const double> time_s, std::span<const double> power_w,
                  std::span<const double> utilization_pct, const BandThresholdsW& bands, const ClassifierOptions& opt,
                  std::span<Phase> out, double gap_s = std::numeric_limits<double>::infinity());

// The gap a trace's own sampling tells from a pause in the data: ten times its median
// interval between a GPU's samples, and at least StreamOptions' default stale window (5 s).
double data_gap_s(std::span<const double> time_s, std::span<const int> gpu);

// Declared checkpoint saves: every interval_s from first_start_s for duration_s, and/or
// explicit [start, end) windows. The deadlock detector is silent inside them.
struct CheckpointSchedule {
    double first_start_s = 0;
    double interval_s = 0;  // 0: no periodic schedule
    double duration_s = 0;
    std::vector<std::pair<double, double>> windows;
    bool covers(double t_s) const;
    void validate() const;
};

struct DetectorOptions {
    double util_threshold_pct = 90;
    double expected_checkpoint_s = 0;  // 0: the declared saves' duration (checkpoints.duration_s), if any
    double deadlock_after_s = 0;       // T; 0: default_deadlock_after_s(expected_save_s())
    double starvation_after_s = 120;   // assumption
    double straggler_after_s = 60;     // assumption
    CheckpointSchedule checkpoints;
    // How long a save lasts: expected_checkpoint_s, else the declared saves' duration (a
    // save declared to last that long is expected); 0: unknown.
    double expected_save_s() const;
    double deadlock_threshold_s() const;
    void validate() const;
};

// What the classifier's options must leave the detector: a dwell below the deadlock
// threshold T (else a hang is adopted only after T has passed) and a smoothing window no
// longer than T (else a hang's watts are averaged into the phases around it). Throws
// std::invalid_argument naming both options and T.
void check_classifier_for(const ClassifierOptions& classifier, const DetectorOptions& detector);

// T = max(2 × expected checkpoint, 60 s); 600 s (PyTorch's NCCL watchdog default) when the
// checkpoint duration is unknown. Assumptions, to be replaced by calibration.
double default_deadlock_after_s(double expected_checkpoint_s);

enum class AlertKind { deadlock, data_starvation, straggler };
const char* to_string(AlertKind k);

struct Alert {
    AlertKind kind;
    double time_s;          // when it fired (a sample time)
    std::vector<int> gpus;  // deadlock/starvation: the GPUs in that phase; straggler: the straggler
    std::string message;
};

// "deadlock at t = 1778192071.0 s: <message>" (the __repr__ of Python's Alert).
std::ostream& operator<<(std::ostream& os, const Alert& a);

struct PhaseSegment {
    int gpu;  // −1 for the job timeline
    double start_s, end_s;
    Phase phase;
    double mean_power_w;  // GPU: trapezoidal energy / duration; job: mean of summed GPU power
};

struct PhaseTotals {
    std::array<double, kPhaseCount> seconds{};
    std::array<double, kPhaseCount> energy_j{};
};

struct TriageResult {
    std::vector<Phase> sample_phase;         // per trace row
    std::vector<PhaseSegment> gpu_segments;  // by GPU, then time
    std::vector<PhaseSegment> job_segments;
    std::vector<Alert> alerts;  // in time order
    std::map<int, PhaseTotals> per_gpu;
    // seconds: from the job timeline; energy_j: sum over GPUs of each GPU's energy by its
    // own phase (so it adds up to the job's total energy).
    PhaseTotals job;
};

// Job phase at each time: the phase most GPUs share (ties: enum order), except that
// checkpoint_or_deadlock is the job phase only when every GPU with data is in it.
// A GPU has data from its first to its last sample.
TriageResult triage(const PowerTrace& trace, const PowerBands& bands, const ClassifierOptions& copt = {},
                    const DetectorOptions& dopt = {});

}  // namespace libscale
