// Pieces shared by offline triage (triage.cpp) and the live stream (triage_stream.cpp),
// so that a trace replayed through the watcher meets the same rules as `libscale triage`.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "libscale/triage/triage.hpp"

namespace libscale::detail {

// Hysteresis: a new raw phase must hold min_dwell_s from its first sample to be adopted.
struct Dwell {
    Phase cur = Phase::idle, cand = Phase::idle;
    bool started = false, have_cand = false;
    double cand_t = 0;
    std::size_t cand_i = 0;
    // True when `cur` changed at this sample; the change dates back to cand_i / cand_t.
    bool step(Phase r, double t, std::size_t i, double dwell_s) {
        if (!started) {
            started = true;
            cur = r;
            return false;
        }
        if (r == cur) {
            have_cand = false;
            return false;
        }
        if (!have_cand || r != cand) {
            cand = r;
            cand_t = t;
            cand_i = i;
            have_cand = true;
        }
        if (t - cand_t < dwell_s) return false;
        cur = cand;
        have_cand = false;
        return true;
    }
};

// Fires once per episode when `on` has held for longer than after_s. An episode that
// starts now may be dated back to `since_hint` (a GPU phase adopted after its dwell).
struct Episode {
    bool active = false, fired = false;
    double since = 0;
    int who = -1;
    bool update(bool on, double t, double since_hint, double after_s, int id = -1) {
        if (!on || (active && id != who)) {
            active = false;
            fired = false;
        }
        if (!on) return false;
        if (!active) {
            active = true;
            since = std::min(since_hint, t);
            who = id;
        }
        if (!fired && t - since > after_s) {
            fired = true;
            return true;
        }
        return false;
    }
};

// Job-level phase and alerts from the current phase of every GPU.
class JobTracker {
public:
    explicit JobTracker(const DetectorOptions& d) : opt_(d) {}
    struct Gpu {
        int id = 0;
        int phase = -1;  // −1: no data (not started, gone, or lost)
        double phase_since = 0, power_w = 0;
        double util_pct = std::numeric_limits<double>::quiet_NaN();
    };
    std::size_t slot(int id);
    void set(std::size_t g, Phase p, double since, double power_w, double util_pct);
    void clear(std::size_t g);
    struct Step {
        int phase;  // −1: no GPU has data
        double total_power_w;
        int present;
    };
    // data_complete = false (a GPU of the job has no recent data): no deadlock alert, the
    // episode restarts; a watcher never acts on missing data.
    Step evaluate(double now, bool data_complete, std::vector<Alert>& out);
    CheckpointSchedule& checkpoints() { return opt_.checkpoints; }
    const DetectorOptions& options() const { return opt_; }
    const std::vector<Gpu>& gpus() const { return gpus_; }
    int phase() const { return job_; }
    double phase_since() const { return job_since_; }

private:
    DetectorOptions opt_;
    std::vector<Gpu> gpus_;
    std::unordered_map<int, std::size_t> slots_;
    int count_[kPhaseCount] = {};
    int job_ = -1;
    double job_since_ = 0;
    bool other_ok_ = false;
    double other_since_ = 0;
    // A declared checkpoint window pauses the hang clock, it does not restart it: otherwise
    // windows closer together than the threshold would hide any hang for good.
    bool paused_ = false;
    double paused_at_ = 0;
    double excluded_s_ = 0;   // window time since the job entered checkpoint_or_deadlock
    bool hang_told_ = false;  // this hang was alerted: windows inside it do not repeat it
    Episode dead_, starve_, strag_;
};

std::string fmt_time(double v);

}  // namespace libscale::detail
