// Live power triage: the same classifier and detector as triage() (triage.hpp), fed one
// poll at a time by a watcher (NVML, a growing nvidia-smi log, dcgm-exporter scrapes, or
// a replayed trace). It reports phase changes and alerts as they happen; a phase change
// is reported when adopted (after min_dwell_s) and dated back to its first sample, and
// the deadlock clock starts at that date, so the live alert fires when the offline one
// does. A GPU without data for stale_after_s is "lost": reported, and while any GPU is
// lost no deadlock alert fires (never act on missing data). Time between samples is only
// evidence while they keep coming: a sample more than stale_after_s after its GPU's last
// (a gap in the data, or the log's clock stepping forward) restarts that GPU's phase and
// the job's alert clocks, and a step backwards by more than that re-bases the clock
// instead of dropping every later sample (both reported).
#pragma once

#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <ostream>
#include <span>
#include <utility>
#include <vector>

#include "libscale/triage/triage.hpp"

namespace libscale {

struct StreamOptions {
    // A GPU whose last sample is older than this is lost. The default covers nvidia-smi's
    // and NVML's usual 0.1-1 s polling with margin; an ASSUMPTION to tune per source.
    double stale_after_s = 5.0;
    void validate() const;
};

struct PhaseChange {
    int gpu;     // −1: the job
    bool first;  // first phase of this GPU / of the job (from has no meaning)
    Phase from, to;
    double start_s;     // when the new phase began (dated back)
    double detected_s;  // the poll at which it was adopted
    double power_w;     // smoothed watts (GPU) or summed watts (job) at detection
};

struct GpuStatus {
    int gpu;
    bool present;  // has fresh data
    Phase phase;
    double phase_since_s;
    double power_w;  // smoothed
    double utilization_pct;
    double power_limit_w;  // NaN: unknown (bands use board_power_w)
    double last_time_s;
    std::size_t samples;
};

// Samples of a GPU more than stale_after_s apart: the time between them is no data, never
// hang time (on the stream's clock, re-based as below).
struct DataGap {
    int gpu;
    double from_s, to_s;
};

struct StreamUpdate {
    double time_s = 0;
    std::vector<PhaseChange> changes;  // GPUs in id order, then the job
    std::vector<Alert> alerts;
    std::vector<int> lost, returned;  // GPUs whose data stopped / came back at this poll
    std::vector<DataGap> gaps;        // GPUs whose data resumed after a gap at this poll
    // Seconds added to this and every later sample time: the source's clock stepped back
    // (a daylight-saving change, a clock set back) by more than stale_after_s.
    double clock_step_s = 0;
    std::size_t dropped_samples = 0;  // time not after the GPU's last, or power not finite
    bool empty() const {
        return changes.empty() && alerts.empty() && lost.empty() && returned.empty() && gaps.empty() &&
               clock_step_s == 0;
    }
};

class TriageStream {
public:
    TriageStream(PowerBands bands, ClassifierOptions classifier = {}, const DetectorOptions& detector = {},
                 StreamOptions stream = {});
    TriageStream(TriageStream&&) noexcept;
    TriageStream& operator=(TriageStream&&) noexcept;
    ~TriageStream();

    // One poll: samples of any GPUs (NaN power = no reading, dropped and counted), then the
    // job is evaluated at `now_s` (≥ every sample time; NaN: the latest sample time).
    StreamUpdate push(std::span<const double> time_s, std::span<const int> gpu, std::span<const double> power_w,
                      std::span<const double> utilization_pct, double now_s);
    // A poll with no data: lost-GPU detection and the clocks move on.
    StreamUpdate advance(double now_s);

    // The GPU's enforced power limit; default bands scale with it (PowerBands::scale_with_power_limit).
    void set_power_limit_w(int gpu, double power_limit_w);
    // The GPUs the job runs on (e.g. NVML's list). Until each has fresh data, no deadlock
    // alert fires: a GPU failing from its first read is missing data, not absent.
    void expect_gpus(std::span<const int> gpus);
    // A checkpoint save declared live (e.g. the trainer touched a marker file).
    void add_checkpoint_window(double start_s, double end_s);

    std::vector<GpuStatus> gpus() const;  // by id
    int job_phase() const;                // −1: no data yet
    double job_phase_since_s() const;
    double last_time_s() const;
    double clock_offset_s() const;                           // added to every sample time so far (clock steps back)
    const std::array<std::size_t, 3>& alert_counts() const;  // by AlertKind
    const PowerBands& bands() const;
    double deadlock_after_s() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

std::ostream& operator<<(std::ostream& os, const PhaseChange& c);
std::ostream& operator<<(std::ostream& os, const GpuStatus& s);

}  // namespace libscale
