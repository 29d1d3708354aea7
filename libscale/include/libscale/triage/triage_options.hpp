// The options of power triage and of the live watcher, declared once (spec/option.hpp):
// the Python keywords and the `libscale triage` / `libscale watch` flags derive from them.
#pragma once

#include <string>
#include <vector>

#include "libscale/spec/option.hpp"
#include "libscale/triage/triage.hpp"

namespace libscale {

// The classifier's and the detectors' options as one flat set of names (checkpoint
// windows, a list, are not an option: they are given as data).
struct TriageOptions {
    ClassifierOptions classifier;
    DetectorOptions detector;
    void validate() const;
};
const OptionTable<TriageOptions>& triage_options();

// How `libscale watch` polls and acts. The loop itself is the Python package's
// (libscale/watch/loop.py); the values are checked here, once.
struct WatchOptions {
    double interval_s = 0.5;             // poll interval
    double stale_after_s = 5.0;          // a GPU without samples this long is lost (TriageStream)
    double speed = 1.0;                  // replay speed of a recorded trace
    std::string nvml_power = "average";  // NVML's 1 s average, or the instantaneous field
    std::string kill_on = "deadlock";    // comma list of alert kinds that terminate the job, or none
    double grace_s = 30.0;               // SIGTERM to SIGKILL
    double prometheus_interval_s = 5.0;  // between textfile writes
    bool follow = false;                 // follow a growing nvidia-smi log
    bool dry_run = false;                // log the signals, send none
    void validate() const;
};
const OptionTable<WatchOptions>& watch_options();

// "deadlock,straggler" → the kinds; "none" or "" → none. std::invalid_argument naming a
// kind that is not an AlertKind.
std::vector<AlertKind> parse_alert_kinds(std::string_view list);

}  // namespace libscale
