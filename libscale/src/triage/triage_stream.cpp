#include "libscale/triage/triage_stream.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "triage_detail.hpp"

namespace libscale {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();  // a double, unlike INFINITY
// The largest sample time accepted, in seconds (epoch or relative): past it a double no
// longer resolves a millisecond (2^52 ms ≈ 4.5e12 s), so the smoothing window and dwell
// times would round to nothing. Such a sample is dropped and counted, never classified:
// one corrupt line must not move the clock past every later, real sample.
constexpr double kMaxSampleTimeS = 1e12;
// After the source's clock steps back, its next sample is placed this long after the last
// one (a poll's length is unknown here; a millisecond keeps the order and adds no time).
constexpr double kClockStepResumeS = 1e-3;
}  // namespace

void StreamOptions::validate() const {
    if (!(std::isfinite(stale_after_s) && stale_after_s > 0))
        throw std::invalid_argument("StreamOptions.stale_after_s = " + detail::fmt_time(stale_after_s) +
                                    "; it must be a positive number of seconds");
}

struct TriageStream::Impl {
    // One GPU's causal classifier: the trailing mean of classify_gpu over a deque.
    struct Gpu {
        std::deque<std::pair<double, double>> window;  // (time, watts)
        double sum = 0, last_t = -kInf, smoothed_w = 0, util = kNaN, limit_w = kNaN;
        BandThresholdsW th{};
        detail::Dwell dwell;
        double since = 0;
        bool present = false, expected = false;
        std::size_t samples = 0;
    };
    PowerBands bands;
    ClassifierOptions copt;
    StreamOptions sopt;
    detail::JobTracker job;
    std::vector<Gpu> g;  // by JobTracker slot
    int reported_job = -1;
    double last_now = -kInf;
    double offset = 0;  // re-basing of the source's clock after steps back
    std::array<std::size_t, 3> alert_counts{};

    Impl(PowerBands b, ClassifierOptions c, const DetectorOptions& d, StreamOptions s)
        : bands(std::move(b)), copt(c), sopt(s), job(d) {}

    std::size_t slot(int id) {
        const std::size_t k = job.slot(id);
        if (k == g.size()) {
            g.emplace_back();
            g.back().th = thresholds_w(bands, kNaN);
        }
        return k;
    }
};

TriageStream::TriageStream(PowerBands bands, ClassifierOptions classifier, const DetectorOptions& detector,
                           StreamOptions stream) {
    bands.validate();
    classifier.validate();
    detector.validate();
    stream.validate();
    check_classifier_for(classifier, detector);
    impl_ = std::make_unique<Impl>(std::move(bands), classifier, detector, stream);
}
TriageStream::TriageStream(TriageStream&&) noexcept = default;
TriageStream& TriageStream::operator=(TriageStream&&) noexcept = default;
TriageStream::~TriageStream() = default;

void TriageStream::set_power_limit_w(int gpu, double w) {
    Impl::Gpu& x = impl_->g[impl_->slot(gpu)];
    x.limit_w = std::isfinite(w) && w > 0 ? w : kNaN;
    x.th = thresholds_w(impl_->bands, x.limit_w);
}

void TriageStream::expect_gpus(std::span<const int> gpus) {
    for (int id : gpus) impl_->g[impl_->slot(id)].expected = true;
}

void TriageStream::add_checkpoint_window(double start_s, double end_s) {
    if (!(std::isfinite(start_s) && std::isfinite(end_s) && start_s < end_s))
        throw std::invalid_argument("checkpoint window [" + detail::fmt_time(start_s) + ", " + detail::fmt_time(end_s) +
                                    ") must be finite with start < end");
    impl_->job.checkpoints().windows.emplace_back(start_s, end_s);
}

StreamUpdate TriageStream::advance(double now_s) { return push({}, {}, {}, {}, now_s); }

StreamUpdate TriageStream::push(std::span<const double> time_s, std::span<const int> gpu,
                                std::span<const double> power_w, std::span<const double> utilization_pct,
                                double now_s) {
    const std::size_t n = time_s.size();
    if (gpu.size() != n || power_w.size() != n || utilization_pct.size() != n)
        throw std::invalid_argument(
            "TriageStream.push: time_s, gpu, power_w and utilization_pct must have the same length");
    if (!std::isnan(now_s) && !(std::abs(now_s) <= kMaxSampleTimeS))
        throw std::invalid_argument("TriageStream: now_s = " + detail::fmt_time(now_s) +
                                    "; it must be a time in seconds within ±1e12, or NaN (the latest sample's)");
    Impl& s = *impl_;
    StreamUpdate up;
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return time_s[a] < time_s[b]; });
    double latest = s.last_now;
    bool resumed = false;  // a GPU's data came back after a gap: its evidence starts again
    for (std::size_t i : order) {
        const double p = power_w[i];
        if (!(std::abs(time_s[i]) <= kMaxSampleTimeS) || !std::isfinite(p) || p < 0) {
            ++up.dropped_samples;
            continue;
        }
        double t = time_s[i] + s.offset;
        const std::size_t k = s.slot(gpu[i]);
        Impl::Gpu& x = s.g[k];
        if (!(t > x.last_t)) {
            // A repeated or reordered line is dropped; a step back by more than the stale
            // window is the source's clock being set back: later samples are re-based to go
            // on from the last one, so the data is not lost and a real hang not missed.
            if (x.samples == 0 || x.last_t - t <= s.sopt.stale_after_s) {
                ++up.dropped_samples;
                continue;
            }
            const double step = x.last_t - t + kClockStepResumeS;
            s.offset += step;
            up.clock_step_s += step;
            t += step;
        }
        if (x.samples > 0 && t - x.last_t > s.sopt.stale_after_s) {
            // No data in between (a gap, or the clock stepped forward): the phase before the
            // gap says nothing about the time in it. The GPU starts afresh.
            up.gaps.push_back({gpu[i], x.last_t, t});
            x.window.clear();
            x.sum = 0;
            x.dwell = {};
            resumed = true;
        }
        x.window.emplace_back(t, p);
        x.sum += p;
        // The newest sample always stays: the mean below divides by the window's size.
        while (x.window.size() > 1 && x.window.front().first <= t - s.copt.smoothing_window_s) {
            x.sum -= x.window.front().second;
            x.window.pop_front();
        }
        x.smoothed_w = x.sum / static_cast<double>(x.window.size());
        x.util = utilization_pct[i];
        x.last_t = t;
        latest = std::max(latest, t);
        const bool first = !x.dwell.started;
        const Phase before = x.dwell.cur;
        if (x.dwell.step(raw_phase(x.smoothed_w, x.util, x.th), t, x.samples, s.copt.min_dwell_s)) {
            x.since = x.dwell.cand_t;
            up.changes.push_back({gpu[i], false, before, x.dwell.cur, x.since, t, x.smoothed_w});
        } else if (first) {
            x.since = t;
            up.changes.push_back({gpu[i], true, x.dwell.cur, x.dwell.cur, t, t, x.smoothed_w});
        }
        if (!x.present) {
            x.present = true;
            if (x.samples > 0) up.returned.push_back(gpu[i]);
        }
        ++x.samples;
        s.job.set(k, x.dwell.cur, x.since, x.smoothed_w, x.util);
    }
    const double now = std::max(std::isnan(now_s) ? latest : now_s + s.offset, s.last_now);
    if (!std::isfinite(now)) return up;  // nothing seen yet
    s.last_now = now;
    up.time_s = now;
    bool complete = true;
    for (std::size_t k = 0; k < s.g.size(); ++k) {
        Impl::Gpu& x = s.g[k];
        if (x.present && now - x.last_t > s.sopt.stale_after_s) {
            x.present = false;
            s.job.clear(k);
            up.lost.push_back(s.job.gpus()[k].id);
        }
        complete = complete && (x.present || (x.samples == 0 && !x.expected));
    }
    // After a gap the job's alert clocks start again (an incomplete evaluation restarts
    // every episode), so that only time spanned by samples that arrived counts.
    complete = complete && !resumed;
    const auto step = s.job.evaluate(now, complete, up.alerts);
    for (const Alert& a : up.alerts) ++s.alert_counts[static_cast<std::size_t>(a.kind)];
    if (step.phase >= 0 && step.phase != s.reported_job) {
        const double start = s.job.phase_since();
        const bool first = s.reported_job < 0;
        up.changes.push_back({-1, first, static_cast<Phase>(first ? step.phase : s.reported_job),
                              static_cast<Phase>(step.phase), start, now, step.total_power_w});
        s.reported_job = step.phase;
    }
    std::stable_sort(up.changes.begin(), up.changes.end(), [](const PhaseChange& a, const PhaseChange& b) {
        return (a.gpu < 0 ? INT32_MAX : a.gpu) < (b.gpu < 0 ? INT32_MAX : b.gpu);
    });
    return up;
}

std::vector<GpuStatus> TriageStream::gpus() const {
    std::vector<GpuStatus> v;
    const auto& ids = impl_->job.gpus();
    for (std::size_t k = 0; k < impl_->g.size(); ++k) {
        const Impl::Gpu& x = impl_->g[k];
        v.push_back({ids[k].id, x.present, x.dwell.cur, x.since, x.smoothed_w, x.util, x.limit_w, x.last_t, x.samples});
    }
    std::sort(v.begin(), v.end(), [](const GpuStatus& a, const GpuStatus& b) { return a.gpu < b.gpu; });
    return v;
}

int TriageStream::job_phase() const { return impl_->reported_job; }
double TriageStream::job_phase_since_s() const { return impl_->job.phase_since(); }
double TriageStream::last_time_s() const { return impl_->last_now; }
double TriageStream::clock_offset_s() const { return impl_->offset; }
const std::array<std::size_t, 3>& TriageStream::alert_counts() const { return impl_->alert_counts; }
const PowerBands& TriageStream::bands() const { return impl_->bands; }
double TriageStream::deadlock_after_s() const { return impl_->job.options().deadlock_threshold_s(); }

std::ostream& operator<<(std::ostream& os, const PhaseChange& c) {
    os << (c.gpu < 0 ? std::string("job") : "GPU " + std::to_string(c.gpu)) << ' ';
    if (c.first) os << "starts in " << to_string(c.to);
    else os << to_string(c.from) << " -> " << to_string(c.to);
    return os << " at t = " << detail::fmt_time(c.start_s) << " s (" << detail::fmt_time(c.power_w) << " W)";
}

std::ostream& operator<<(std::ostream& os, const GpuStatus& s) {
    os << "GPU " << s.gpu << ' ' << (s.present ? to_string(s.phase) : "lost")
       << " since t = " << detail::fmt_time(s.phase_since_s) << " s, " << detail::fmt_time(s.power_w) << " W";
    if (!std::isnan(s.utilization_pct)) os << ", " << detail::fmt_time(s.utilization_pct) << " %";
    return os;
}

}  // namespace libscale
