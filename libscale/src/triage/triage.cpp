#include "libscale/triage/triage.hpp"

#include "libscale/triage/triage_stream.hpp"
#include "triage_detail.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace libscale {

namespace {

void require(bool ok, const char* where, const char* field, double v, const char* valid) {
    if (ok) return;
    std::ostringstream msg;
    msg << where << "." << field << " = " << v << "; " << valid;
    throw std::invalid_argument(msg.str());
}

constexpr std::size_t idx(Phase p) { return static_cast<std::size_t>(p); }
// A double, unlike <cmath>'s INFINITY (a float).
constexpr double kInf = std::numeric_limits<double>::infinity();
// A pause in a trace's data (data_gap_s): ten of its sampling intervals, and never under
// StreamOptions' default stale window, the live watcher's gap.
constexpr double kDataGapIntervals = 10;
constexpr double kDataGapMinS = StreamOptions{}.stale_after_s;

}  // namespace

const char* to_string(AlertKind k) {
    switch (k) {
        case AlertKind::deadlock: return "deadlock";
        case AlertKind::data_starvation: return "data_starvation";
        case AlertKind::straggler: return "straggler";
    }
    return "?";
}

void ClassifierOptions::validate() const {
    require(std::isfinite(smoothing_window_s) && smoothing_window_s > 0 && smoothing_window_s <= kMaxDetectorSpanS,
            "ClassifierOptions", "smoothing_window_s", smoothing_window_s,
            "it must be a positive number of seconds, at most 86400");
    require(std::isfinite(min_dwell_s) && min_dwell_s >= 0, "ClassifierOptions", "min_dwell_s", min_dwell_s,
            "it must be a non-negative number of seconds");
}

void classify_gpu(std::span<const double> time_s, std::span<const double> power_w,
                  std::span<const double> utilization_pct, const BandThresholdsW& bands, const ClassifierOptions& opt,
                  std::span<Phase> out, double gap_s) {
    const std::size_t n = time_s.size();
    if (power_w.size() != n || utilization_pct.size() != n || out.size() != n)
        throw std::invalid_argument("classify_gpu: time_s, power_w, utilization_pct and out must have the same length");
    if (n == 0) return;
    const double* t = time_s.data();
    const double* p = power_w.data();
    const double* u = utilization_pct.data();
    Phase* o = out.data();
    const double window = opt.smoothing_window_s;
    double sum = 0;
    std::size_t left = 0;
    detail::Dwell dwell;
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0 && t[i] - t[i - 1] > gap_s) {  // no data in between: start afresh
            sum = 0;
            left = i;
            dwell = {};
        }
        sum += p[i];
        const double lo = t[i] - window;
        // The window always holds sample i: a window below the timestamps' resolution
        // (t - window == t at 1.8e9 s and 1e-9 s) would otherwise drop it and read past it.
        while (left < i && t[left] <= lo) sum -= p[left++];
        const double mean = sum / static_cast<double>(i - left + 1);
        if (dwell.step(raw_phase(mean, u[i], bands), t[i], i, opt.min_dwell_s))
            for (std::size_t j = dwell.cand_i; j < i; ++j) o[j] = dwell.cur;  // date the change back
        o[i] = dwell.cur;
    }
}

double data_gap_s(std::span<const double> time_s, std::span<const int> gpu) {
    // A GPU's samples in order of time; its intervals pooled.
    std::unordered_map<int, double> last;
    std::vector<std::size_t> order(time_s.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return time_s[a] < time_s[b]; });
    std::vector<double> dt;
    dt.reserve(time_s.size());
    for (std::size_t i : order) {
        const auto [it, added] = last.try_emplace(gpu[i], time_s[i]);
        if (!added) {
            if (time_s[i] > it->second) dt.push_back(time_s[i] - it->second);
            it->second = time_s[i];
        }
    }
    if (dt.empty()) return kDataGapMinS;
    std::nth_element(dt.begin(), dt.begin() + static_cast<std::ptrdiff_t>(dt.size() / 2), dt.end());
    return std::max(kDataGapMinS, kDataGapIntervals * dt[dt.size() / 2]);
}

bool CheckpointSchedule::covers(double t) const {
    for (const auto& [a, b] : windows)
        if (t >= a && t < b) return true;
    if (interval_s > 0 && t >= first_start_s) {
        const double k = std::floor((t - first_start_s) / interval_s);
        if (t - (first_start_s + k * interval_s) < duration_s) return true;
    }
    return false;
}

void CheckpointSchedule::validate() const {
    const char* w = "CheckpointSchedule";
    require(interval_s == 0 || (interval_s >= kMinCheckpointIntervalS && interval_s <= kMaxCheckpointIntervalS), w,
            "interval_s", interval_s, "it must be 0 (none) or in [1, 604800] seconds");
    // A save as long as the interval would be one endless save: the detector never speaks.
    require(std::isfinite(duration_s) && duration_s >= 0 && duration_s <= kMaxDetectorSpanS &&
                (interval_s == 0 || duration_s < interval_s),
            w, "duration_s", duration_s, "it must be in [0, 86400] seconds and shorter than interval_s");
    require(std::isfinite(first_start_s), w, "first_start_s", first_start_s, "it must be finite");
    // A periodic schedule without a duration would silence nothing: the one place this is checked.
    require(interval_s == 0 || duration_s > 0, w, "duration_s", duration_s,
            "checkpoint_interval_s needs checkpoint_duration_s (how long each save lasts, > 0 s)");
    for (const auto& [start, end] : windows)
        require(std::isfinite(start) && std::isfinite(end) && start < end, w, "windows[i].end", end,
                "each window must be a finite [start, end) with start < end");
}

std::ostream& operator<<(std::ostream& os, const Alert& a) {
    return os << to_string(a.kind) << " at t = " << detail::fmt_time(a.time_s) << " s: " << a.message;
}

void check_classifier_for(const ClassifierOptions& classifier, const DetectorOptions& detector) {
    const double T = detector.deadlock_threshold_s();
    const std::string at =
        "the deadlock threshold T = " + detail::fmt_time(T) + " s (deadlock_after_s, or its default)";
    if (classifier.min_dwell_s >= T)
        throw std::invalid_argument("min_dwell_s = " + detail::fmt_time(classifier.min_dwell_s) +
                                    " s; it must be below " + at + ": a phase adopted only after T hides the hang");
    if (classifier.smoothing_window_s > T)
        throw std::invalid_argument("smoothing_window_s = " + detail::fmt_time(classifier.smoothing_window_s) +
                                    " s; it must be at most " + at +
                                    ": a longer average blends a hang's watts into the phases around it");
}

double default_deadlock_after_s(double expected_checkpoint_s) {
    return expected_checkpoint_s > 0 ? std::max(2.0 * expected_checkpoint_s, 60.0) : 600.0;
}

double DetectorOptions::expected_save_s() const {
    return expected_checkpoint_s > 0 ? expected_checkpoint_s : checkpoints.duration_s;
}

double DetectorOptions::deadlock_threshold_s() const {
    return deadlock_after_s > 0 ? deadlock_after_s : default_deadlock_after_s(expected_save_s());
}

void DetectorOptions::validate() const {
    const char* w = "DetectorOptions";
    require(util_threshold_pct >= 0 && util_threshold_pct <= 100, w, "util_threshold_pct", util_threshold_pct,
            "it must be in [0, 100]");
    require(expected_checkpoint_s >= 0 && expected_checkpoint_s <= kMaxDetectorSpanS, w, "expected_checkpoint_s",
            expected_checkpoint_s, "it must be in [0, 86400] seconds (0: unknown)");
    require(deadlock_after_s >= 0 && deadlock_after_s <= kMaxDetectorSpanS, w, "deadlock_after_s", deadlock_after_s,
            "it must be in [0, 86400] seconds (0: default from the expected save)");
    require(starvation_after_s > 0 && starvation_after_s <= kMaxDetectorSpanS, w, "starvation_after_s",
            starvation_after_s, "it must be in (0, 86400] seconds");
    require(straggler_after_s > 0 && straggler_after_s <= kMaxDetectorSpanS, w, "straggler_after_s", straggler_after_s,
            "it must be in (0, 86400] seconds");
    checkpoints.validate();
}

namespace detail {

// Timestamps are epoch seconds (about 1.7e9): six significant digits would round them
// to the thousand seconds, so large values are printed fixed-point to 0.1 s.
std::string fmt_time(double v) {
    std::ostringstream s;
    if (std::fabs(v) >= 1e5) {
        s.setf(std::ios::fixed);
        s.precision(1);
    } else {
        s.precision(6);
    }
    s << v;
    return s.str();
}

std::size_t JobTracker::slot(int id) {
    const auto [it, added] = slots_.try_emplace(id, gpus_.size());
    if (added) gpus_.push_back({id});
    return it->second;
}

void JobTracker::set(std::size_t g, Phase p, double since, double power_w, double util_pct) {
    Gpu& x = gpus_[g];
    const int q = static_cast<int>(p);
    if (x.phase != q) {
        if (x.phase >= 0) --count_[x.phase];
        ++count_[q];
        x.phase = q;
        x.phase_since = since;
    }
    x.power_w = power_w;
    x.util_pct = util_pct;
}

void JobTracker::clear(std::size_t g) {
    Gpu& x = gpus_[g];
    if (x.phase >= 0) --count_[x.phase];
    x.phase = -1;
}

JobTracker::Step JobTracker::evaluate(double now, bool data_complete, std::vector<Alert>& out) {
    int present = 0;
    for (int c : count_) present += c;
    const int ck = static_cast<int>(Phase::checkpoint_or_deadlock);
    int jp = -1;
    if (present > 0 && count_[ck] == present) {
        jp = ck;
    } else if (present > 0) {
        for (int q = 0; q < kPhaseCount; ++q)
            if (q != ck && (jp < 0 || count_[q] > count_[jp])) jp = q;
    }
    if (jp != job_) {
        // dated back to when the last of the GPUs now in that phase entered it (their
        // phases were adopted after the dwell, dated back to their first sample)
        double entered = -kInf;
        for (const Gpu& x : gpus_)
            if (x.phase == jp) entered = std::max(entered, x.phase_since);
        job_ = jp;
        job_since_ = std::isfinite(entered) ? std::min(entered, now) : now;
    }
    double total_p = 0, last_entry = -kInf, max_since = -kInf;
    bool all_busy = present > 0;
    for (const Gpu& x : gpus_)
        if (x.phase >= 0) {
            total_p += x.power_w;
            all_busy = all_busy && x.util_pct >= opt_.util_threshold_pct;  // NaN: not busy
            max_since = std::max(max_since, x.phase_since);
        }
    const auto gpus_in = [&](Phase q) {
        std::vector<int> v;
        for (const Gpu& x : gpus_)
            if (x.phase == static_cast<int>(q)) v.push_back(x.id);
        return v;
    };
    const double T = opt_.deadlock_threshold_s();
    const bool eligible = all_busy && data_complete;
    const bool covered = opt_.checkpoints.covers(now);
    if (eligible && !other_ok_) other_since_ = now;
    other_ok_ = eligible;
    // Time inside declared checkpoint windows is not hang time, and leaving a window does
    // not restart the clock either: windows closer together than the threshold would
    // otherwise hide any hang for good.
    if (jp != ck || !eligible) {
        paused_ = false;
        excluded_s_ = 0;
        hang_told_ = false;
    } else if (covered && !paused_) {
        paused_ = true;
        paused_at_ = now;
    } else if (!covered && paused_) {
        excluded_s_ += now - paused_at_;
        paused_ = false;
    }
    last_entry = std::min(now, std::max(max_since, other_since_) + excluded_s_);
    if (dead_.update(jp == ck && eligible && !covered, now, last_entry, T) && !std::exchange(hang_told_, true)) {
        out.push_back({AlertKind::deadlock, now, gpus_in(Phase::checkpoint_or_deadlock),
                       "deadlock suspected: all " + std::to_string(present) +
                           " GPUs in checkpoint_or_deadlock with utilization >= " + fmt_time(opt_.util_threshold_pct) +
                           "% at " + fmt_time(total_p / present) + " W per GPU since t = " + fmt_time(dead_.since) +
                           " s, longer than T = " + fmt_time(T) + " s, outside any declared checkpoint window"});
    }
    if (starve_.update(jp == static_cast<int>(Phase::data_starvation), now, job_since_, opt_.starvation_after_s)) {
        auto v = gpus_in(Phase::data_starvation);
        out.push_back({AlertKind::data_starvation, now, v,
                       "data starvation: " + std::to_string(v.size()) + " of " + std::to_string(present) +
                           " GPUs waiting for input since t = " + fmt_time(starve_.since) + " s, longer than " +
                           fmt_time(opt_.starvation_after_s) + " s"});
    }
    const int comp = static_cast<int>(Phase::compute), comm = static_cast<int>(Phase::communication);
    const bool sg = present >= 2 && count_[comp] == 1 && count_[comm] == present - 1;
    int who = -1;
    if (sg)
        for (const Gpu& x : gpus_)
            if (x.phase == comp) who = x.id;
    if (strag_.update(sg, now, max_since, opt_.straggler_after_s, who)) {
        out.push_back({AlertKind::straggler,
                       now,
                       {who},
                       "straggler: GPU " + std::to_string(who) + " computing while the other " +
                           std::to_string(present - 1) + " wait in communication since t = " + fmt_time(strag_.since) +
                           " s, longer than " + fmt_time(opt_.straggler_after_s) + " s"});
    }
    return {jp, total_p, present};
}

}  // namespace detail

TriageResult triage(const PowerTrace& trace, const PowerBands& bands, const ClassifierOptions& copt,
                    const DetectorOptions& dopt) {
    copt.validate();
    dopt.validate();
    const BandThresholdsW th = thresholds_w(bands);
    check_classifier_for(copt, dopt);
    const std::size_t n = trace.size();
    if (trace.gpu.size() != n || trace.power_w.size() != n || trace.utilization_pct.size() != n)
        throw std::invalid_argument("PowerTrace: time_s, gpu, power_w and utilization_pct must have the same length");

    TriageResult res;
    res.sample_phase.assign(n, Phase::idle);
    const std::vector<int> ids = trace.gpus();
    std::unordered_map<int, std::size_t> dense;
    for (std::size_t g = 0; g < ids.size(); ++g) dense[ids[g]] = g;
    std::vector<std::vector<std::size_t>> rows(ids.size());
    for (std::size_t i = 0; i < n; ++i) {
        require(std::isfinite(trace.power_w[i]) && trace.power_w[i] >= 0, "PowerTrace", "power_w[i]", trace.power_w[i],
                "it must be a finite number of watts >= 0");
        require(std::isfinite(trace.time_s[i]), "PowerTrace", "time_s[i]", trace.time_s[i], "it must be finite");
        rows[dense[trace.gpu[i]]].push_back(i);
    }

    const double gap_s = data_gap_s(trace.time_s, trace.gpu);

    // Per GPU: classify, segments, totals.
    std::vector<double> t, p, u;
    std::vector<Phase> ph;
    for (std::size_t g = 0; g < ids.size(); ++g) {
        const auto& r = rows[g];
        const std::size_t m = r.size();
        t.resize(m);
        p.resize(m);
        u.resize(m);
        ph.resize(m);
        for (std::size_t k = 0; k < m; ++k) {
            t[k] = trace.time_s[r[k]];
            p[k] = trace.power_w[r[k]];
            u[k] = trace.utilization_pct[r[k]];
            if (k > 0 && !(t[k] > t[k - 1]))
                throw std::invalid_argument("PowerTrace: GPU " + std::to_string(ids[g]) +
                                            " time_s = " + detail::fmt_time(t[k]) + " at row " + std::to_string(r[k]) +
                                            " does not increase; times must increase per GPU");
        }
        classify_gpu(t, p, u, th, copt, ph, gap_s);
        PhaseTotals& tot = res.per_gpu[ids[g]];
        std::size_t s = 0;
        // A gap in the data (samples more than gap_s apart) belongs to no phase: a segment
        // ends at it, and neither its time nor its energy is counted (a day without samples
        // between two compute readings is not a day of compute).
        const auto gap_after = [&](std::size_t k) { return k + 1 < m && t[k + 1] - t[k] > gap_s; };
        while (s < m) {
            std::size_t e = s;
            double energy = 0;
            while (e + 1 < m && ph[e + 1] == ph[s] && !gap_after(e)) ++e;
            // intervals [t_k, t_{k+1}] belong to the phase of sample k
            const std::size_t last = gap_after(e) ? e : std::min(e + 1, m - 1);
            for (std::size_t k = s; k < last; ++k) energy += 0.5 * (p[k] + p[k + 1]) * (t[k + 1] - t[k]);
            const double end = t[last];
            const double dur = end - t[s];
            res.gpu_segments.push_back({ids[g], t[s], end, ph[s], dur > 0 ? energy / dur : p[s]});
            tot.seconds[idx(ph[s])] += dur;
            tot.energy_j[idx(ph[s])] += energy;
            res.job.energy_j[idx(ph[s])] += energy;
            s = e + 1;
        }
        for (std::size_t k = 0; k < m; ++k) res.sample_phase[r[k]] = ph[k];
    }

    // Job sweep over the distinct sample times.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return trace.time_s[a] < trace.time_s[b]; });
    const std::size_t G = ids.size();
    detail::JobTracker job(dopt);
    for (int id : ids) job.slot(id);  // slot g = dense index g
    std::vector<double> last_t(G, -kInf);
    for (std::size_t i = 0; i < n; ++i)
        last_t[dense[trace.gpu[i]]] = std::max(last_t[dense[trace.gpu[i]]], trace.time_s[i]);
    std::vector<bool> gone(G, false);
    int cur = -1;
    double cur_start = 0, seg_power_sum = 0, t_prev = 0;
    std::size_t seg_points = 0;
    const auto close_job = [&](double end) {
        if (cur < 0) return;
        res.job_segments.push_back(
            {-1, cur_start, end, static_cast<Phase>(cur), seg_power_sum / static_cast<double>(seg_points)});
        res.job.seconds[static_cast<std::size_t>(cur)] += end - cur_start;
    };
    for (std::size_t a = 0; a < n;) {
        const double now = trace.time_s[order[a]];
        const bool first = a == 0;
        for (std::size_t g = 0; g < G; ++g)  // a GPU has data from its first to its last sample
            if (!gone[g] && last_t[g] < now) {
                job.clear(g);
                gone[g] = true;
            }
        for (; a < n && trace.time_s[order[a]] == now; ++a) {
            const std::size_t i = order[a];
            job.set(dense[trace.gpu[i]], res.sample_phase[i], now, trace.power_w[i], trace.utilization_pct[i]);
        }
        // Time with no sample is no evidence: after a gap the alert clocks start again, and
        // the job's phase time stops at the gap's start.
        const bool continuous = first || now - t_prev <= gap_s;
        const auto step = job.evaluate(now, continuous, res.alerts);
        if (!continuous) {
            close_job(t_prev);
            cur = -1;
        }
        if (step.phase != cur) {
            close_job(now);
            cur = step.phase;
            cur_start = now;
            seg_power_sum = 0;
            seg_points = 0;
        }
        seg_power_sum += step.total_power_w;
        ++seg_points;
        t_prev = now;
    }
    close_job(t_prev);
    return res;
}

}  // namespace libscale
