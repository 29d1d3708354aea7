#include "libscale/triage/triage_options.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "spec/option_builders.hpp"

namespace libscale {

namespace {

using namespace option_builders;

// An entry of a nested struct: the table's struct holds it as `part`.
template <class Outer, class Inner>
Option<Outer> nested(Inner Outer::*part, const Option<Inner>& o) {
    Option<Outer> out{o.name,  o.type, o.unit, o.help, o.choices, o.minimum, o.maximum, o.optional, o.exclusive_minimum,
                      nullptr, nullptr};
    out.get = [part, get = o.get](const Outer& x) { return get(x.*part); };
    out.set = [part, set = o.set](Outer& x, const OptionValue& v) { set(x.*part, v); };
    return out;
}

}  // namespace

std::vector<AlertKind> parse_alert_kinds(std::string_view list) {
    std::vector<AlertKind> out;
    // Empty is refused, not read as none: an unset shell variable (--kill-on "$KINDS") must
    // not disarm the watchdog without a word; "none" says it on purpose.
    if (list.empty())
        throw std::invalid_argument(
            "watch option kill_on = '': empty; valid: a comma list of deadlock, data_starvation, straggler, or "
            "none (to act on no alert)");
    if (list == "none") return out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t end = std::min(list.find(',', start), list.size());
        const std::string_view kind = list.substr(start, end - start);
        if (kind == "deadlock") out.push_back(AlertKind::deadlock);
        else if (kind == "data_starvation") out.push_back(AlertKind::data_starvation);
        else if (kind == "straggler") out.push_back(AlertKind::straggler);
        else
            throw std::invalid_argument("watch option kill_on = '" + std::string(list) + "': '" + std::string(kind) +
                                        "' is not an alert kind; valid: a comma list of deadlock, data_starvation, "
                                        "straggler, or none");
        start = end + 1;
    }
    return out;
}

const OptionTable<TriageOptions>& triage_options() {
    using T = TriageOptions;
    using Cl = ClassifierOptions;
    using De = DetectorOptions;
    using Ck = CheckpointSchedule;
    const auto checkpoints = [](const Option<Ck>& o) { return nested<De, Ck>(&De::checkpoints, o); };
    static const OptionTable<T> table{
        "triage",
        {
            nested<T, Cl>(&T::classifier, positive<Cl>("smoothing_window_s", &Cl::smoothing_window_s, "s",
                                                       "trailing moving average of power (NVML's power is already "
                                                       "a 1 s average on Ampere and newer)",
                                                       kMaxDetectorSpanS)),
            nested<T, Cl>(&T::classifier, number<Cl>("min_dwell_s", &Cl::min_dwell_s, "s",
                                                     "a new phase must hold this long before it is adopted", 0)),
            nested<T, De>(&T::detector,
                          number<De>("util_threshold_pct", &De::util_threshold_pct, "%",
                                     "utilization at or above which near-idle watts mean a hang", 0, 100)),
            nested<T, De>(&T::detector,
                          optional_positive<De>("expected_checkpoint_s", &De::expected_checkpoint_s, "s",
                                                "how long a checkpoint save lasts (not set: checkpoint_duration_s)",
                                                kMaxDetectorSpanS)),
            nested<T, De>(&T::detector,
                          optional_positive<De>("deadlock_after_s", &De::deadlock_after_s, "s",
                                                "deadlock threshold T (not set: max(2 x expected checkpoint, 60 s), "
                                                "600 s when that is unknown)",
                                                kMaxDetectorSpanS)),
            nested<T, De>(&T::detector,
                          positive<De>("starvation_after_s", &De::starvation_after_s, "s",
                                       "data starvation after this long waiting on input", kMaxDetectorSpanS)),
            nested<T, De>(&T::detector,
                          positive<De>("straggler_after_s", &De::straggler_after_s, "s",
                                       "a straggler after this long behind the others", kMaxDetectorSpanS)),
            nested<T, De>(&T::detector, checkpoints(number<Ck>("checkpoint_first_start_s", &Ck::first_start_s, "s",
                                                               "when the first declared checkpoint save starts"))),
            nested<T, De>(&T::detector,
                          checkpoints(optional_positive<Ck>("checkpoint_interval_s", &Ck::interval_s, "s",
                                                            "declared checkpoint saves every this many seconds (needs "
                                                            "checkpoint_duration_s)",
                                                            kMaxCheckpointIntervalS))),
            nested<T, De>(&T::detector, checkpoints(optional_positive<Ck>(
                                            "checkpoint_duration_s", &Ck::duration_s, "s",
                                            "how long one checkpoint save lasts (the detector is silent inside "
                                            "it; it also sets the deadlock threshold)",
                                            kMaxDetectorSpanS))),
        }};
    return table;
}

void TriageOptions::validate() const {
    classifier.validate();
    detector.validate();
}

const OptionTable<WatchOptions>& watch_options() {
    using W = WatchOptions;
    static const OptionTable<W> table{
        "watch",
        {
            // At most a minute: the shortest deadlock threshold (default_deadlock_after_s), so
            // that a poll never spans a whole hang (1e9 s left the job unwatched).
            positive<W>("interval_s", &W::interval_s, "s", "poll interval", 60),
            positive<W>("stale_after_s", &W::stale_after_s, "s",
                        "a GPU without samples this long is lost; no action while any is"),
            // 1e-300 passed a positive check and overflowed the replay's clock.
            number<W>("speed", &W::speed, "x", "replay a recorded trace at this multiple of real time", 1e-3, 1e6),
            Option<W>{.name = "nvml_power",
                      .type = OptionType::choice,
                      .help = "NVML power reading: the 1 s average, or the instantaneous field 186",
                      .choices = {"average", "instant"},
                      .get = [](const W& w) -> OptionValue { return w.nvml_power; },
                      .set = [](W& w, const OptionValue& v) { w.nvml_power = std::get<std::string>(v); }},
            Option<W>{.name = "kill_on",
                      .type = OptionType::text,
                      .help = "alert kinds that terminate the job: a comma list of deadlock, data_starvation, "
                              "straggler, or none",
                      .get = [](const W& w) -> OptionValue { return w.kill_on; },
                      .set =
                          [](W& w, const OptionValue& v) {
                              const auto& s = std::get<std::string>(v);
                              parse_alert_kinds(s);  // refuses an unknown kind
                              w.kill_on = s;
                          }},
            number<W>("grace_s", &W::grace_s, "s", "seconds between SIGTERM and SIGKILL", 0),
            positive<W>("prometheus_interval_s", &W::prometheus_interval_s, "s",
                        "seconds between Prometheus textfile writes"),
            boolean<W>("follow", &W::follow, "follow a growing nvidia-smi log (tail -f)"),
            boolean<W>("dry_run", &W::dry_run, "log the signals it would send and send none"),
        }};
    return table;
}

void WatchOptions::validate() const {
    validate_options(watch_options(), *this);
    parse_alert_kinds(kill_on);
}

}  // namespace libscale
