#include "libscale/triage.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace libscale {

namespace {

void require(bool ok, const char* where, const char* field, double v, const char* valid) {
    if (ok) return;
    std::ostringstream msg;
    msg << where << "." << field << " = " << v << "; " << valid;
    throw std::invalid_argument(msg.str());
}

constexpr std::size_t idx(Phase p) { return static_cast<std::size_t>(p); }

}  // namespace

const char* to_string(Phase p) {
    switch (p) {
        case Phase::compute: return "compute";
        case Phase::communication: return "communication";
        case Phase::data_starvation: return "data_starvation";
        case Phase::checkpoint_or_deadlock: return "checkpoint_or_deadlock";
        case Phase::idle: return "idle";
    }
    return "?";
}

const char* to_string(AlertKind k) {
    switch (k) {
        case AlertKind::deadlock: return "deadlock";
        case AlertKind::data_starvation: return "data_starvation";
        case AlertKind::straggler: return "straggler";
    }
    return "?";
}

void PowerBands::validate() const {
    const char* w = "PowerBands";
    require(std::isfinite(board_power_w) && board_power_w > 0, w, "board_power_w", board_power_w, "it must be a positive number of watts");
    require(idle_max_fraction > 0 && idle_max_fraction < checkpoint_max_fraction, w, "idle_max_fraction", idle_max_fraction,
            "it must be in (0, checkpoint_max_fraction)");
    require(checkpoint_max_fraction < starvation_max_fraction, w, "checkpoint_max_fraction", checkpoint_max_fraction,
            "it must be below starvation_max_fraction");
    require(starvation_max_fraction < communication_max_fraction, w, "starvation_max_fraction", starvation_max_fraction,
            "it must be below communication_max_fraction");
    require(communication_max_fraction < 1, w, "communication_max_fraction", communication_max_fraction,
            "it must be below 1 (the board power limit)");
    require(idle_util_max_pct >= 0 && idle_util_max_pct < 100, w, "idle_util_max_pct", idle_util_max_pct, "it must be in [0, 100)");
}

// Default bands, "default, uncalibrated". Evidence and assumptions:
//  * idle_max = max(1.1 × idle_power_w, 10% of board). Evidence: idle H100s read 69-75 W in
//    public nvidia-smi snapshots (catalog idle_power_w 70.6 W of 700 W, FACTS.md), i.e.
//    about 10% of the limit; a hung job "drops to around ~10%" (LambdaLabsML/
//    distributed-training-guide, 06-diagnosing-errors); NVIDIA/nccl#968 "GPU util is 100%
//    but the power consumption is pretty low (~70W)". The 1.1 margin (covering the
//    69-75 W scatter around 70.6 W) is an ASSUMPTION. Below this edge, utilization
//    separates idle (no kernel) from checkpoint_or_deadlock (kernels spinning on flags);
//    the 50% utilization edge is an ASSUMPTION.
//  * checkpoint_max = 25% of board: ASSUMPTION (a save keeps the GPU near idle with a few
//    copy kernels; a hang spins at ~10%).
//  * starvation_max = 40% of board: ASSUMPTION (short bursts of compute between waits for
//    the input pipeline average out low).
//  * communication_max = 60% of board: ASSUMPTION (collectives keep SMs and HBM busy but
//    not the tensor cores); compute is above it (dense training runs near the limit).
PowerBands default_power_bands(const HardwareProfile& hw) {
    require(std::isfinite(hw.board_power_w) && hw.board_power_w > 0, "HardwareProfile", "board_power_w", hw.board_power_w,
            "it must be a positive number of watts to derive power bands");
    PowerBands b;
    b.board_power_w = hw.board_power_w;
    double idle_w = 0.10 * hw.board_power_w;
    if (std::isfinite(hw.idle_power_w)) idle_w = std::max(idle_w, 1.1 * hw.idle_power_w);
    b.idle_max_fraction = std::min(idle_w / hw.board_power_w, 0.2);
    b.label = "default, uncalibrated: bands for " + hw.name +
              " derived from board_power_w and idle_power_w (see triage.cpp for the reasoning)";
    b.validate();
    return b;
}

BandThresholdsW thresholds_w(const PowerBands& b) {
    b.validate();
    return {b.idle_max_fraction * b.board_power_w, b.checkpoint_max_fraction * b.board_power_w,
            b.starvation_max_fraction * b.board_power_w, b.communication_max_fraction * b.board_power_w,
            b.idle_util_max_pct};
}

void ClassifierOptions::validate() const {
    require(std::isfinite(smoothing_window_s) && smoothing_window_s > 0, "ClassifierOptions", "smoothing_window_s",
            smoothing_window_s, "it must be a positive number of seconds");
    require(std::isfinite(min_dwell_s) && min_dwell_s >= 0, "ClassifierOptions", "min_dwell_s", min_dwell_s,
            "it must be a non-negative number of seconds");
}

void classify_gpu(std::span<const double> time_s, std::span<const double> power_w,
                  std::span<const double> utilization_pct, const BandThresholdsW& bands,
                  const ClassifierOptions& opt, std::span<Phase> out) {
    const std::size_t n = time_s.size();
    if (power_w.size() != n || utilization_pct.size() != n || out.size() != n)
        throw std::invalid_argument("classify_gpu: time_s, power_w, utilization_pct and out must have the same length");
    if (n == 0) return;
    const double* t = time_s.data();
    const double* p = power_w.data();
    const double* u = utilization_pct.data();
    Phase* o = out.data();
    const double window = opt.smoothing_window_s;
    const double dwell = opt.min_dwell_s;
    double sum = 0;
    std::size_t left = 0;
    Phase cur = Phase::idle, cand = Phase::idle;
    bool have_cand = false;
    std::size_t cand_i = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sum += p[i];
        const double lo = t[i] - window;
        while (t[left] <= lo) sum -= p[left++];
        const double mean = sum / static_cast<double>(i - left + 1);
        const Phase r = raw_phase(mean, u[i], bands);
        if (i == 0) cur = r;  // nothing to hold against
        if (r == cur) {
            have_cand = false;
        } else {
            if (!have_cand || r != cand) {
                cand = r;
                cand_i = i;
                have_cand = true;
            }
            if (t[i] - t[cand_i] >= dwell) {
                cur = cand;
                have_cand = false;
                for (std::size_t j = cand_i; j < i; ++j) o[j] = cur;  // date the change back
            }
        }
        o[i] = cur;
    }
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
    require(std::isfinite(interval_s) && interval_s >= 0, w, "interval_s", interval_s, "it must be >= 0 seconds (0: none)");
    require(std::isfinite(duration_s) && duration_s >= 0 && (interval_s == 0 || duration_s <= interval_s), w, "duration_s",
            duration_s, "it must be in [0, interval_s]");
    require(std::isfinite(first_start_s), w, "first_start_s", first_start_s, "it must be finite");
    for (std::size_t i = 0; i < windows.size(); ++i)
        require(std::isfinite(windows[i].first) && std::isfinite(windows[i].second) && windows[i].first < windows[i].second, w,
                "windows[i].end", windows[i].second, "each window must be a finite [start, end) with start < end");
}

double default_deadlock_after_s(double expected_checkpoint_s) {
    return expected_checkpoint_s > 0 ? std::max(2.0 * expected_checkpoint_s, 60.0) : 600.0;
}

double DetectorOptions::deadlock_threshold_s() const {
    return deadlock_after_s > 0 ? deadlock_after_s : default_deadlock_after_s(expected_checkpoint_s);
}

void DetectorOptions::validate() const {
    const char* w = "DetectorOptions";
    require(util_threshold_pct >= 0 && util_threshold_pct <= 100, w, "util_threshold_pct", util_threshold_pct, "it must be in [0, 100]");
    require(std::isfinite(expected_checkpoint_s) && expected_checkpoint_s >= 0, w, "expected_checkpoint_s", expected_checkpoint_s,
            "it must be >= 0 seconds (0: unknown)");
    require(std::isfinite(deadlock_after_s) && deadlock_after_s >= 0, w, "deadlock_after_s", deadlock_after_s,
            "it must be >= 0 seconds (0: default from expected_checkpoint_s)");
    require(std::isfinite(starvation_after_s) && starvation_after_s > 0, w, "starvation_after_s", starvation_after_s, "it must be > 0 seconds");
    require(std::isfinite(straggler_after_s) && straggler_after_s > 0, w, "straggler_after_s", straggler_after_s, "it must be > 0 seconds");
    checkpoints.validate();
}

namespace {

// Timestamps are epoch seconds (about 1.7e9): six significant digits would round them
// to the thousand seconds, so large values are printed fixed-point to 0.1 s.
std::string fmt(double v) {
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

// Fires once per episode when `active` has held for longer than `after_s`.
struct Episode {
    bool active = false, fired = false;
    double since = 0;
    int who = -1;
    bool update(bool on, double t, double after_s, int id = -1) {
        if (!on || (active && id != who)) { active = false; fired = false; }
        if (!on) return false;
        if (!active) { active = true; since = t; who = id; }
        if (!fired && t - since > after_s) { fired = true; return true; }
        return false;
    }
};

}  // namespace

TriageResult triage(const PowerTrace& trace, const PowerBands& bands, const ClassifierOptions& copt,
                    const DetectorOptions& dopt) {
    copt.validate();
    dopt.validate();
    const BandThresholdsW th = thresholds_w(bands);
    const double T = dopt.deadlock_threshold_s();
    if (copt.min_dwell_s >= T)
        throw std::invalid_argument("ClassifierOptions.min_dwell_s = " + fmt(copt.min_dwell_s) +
                                    "; it must be below the deadlock threshold T = " + fmt(T) + " s");
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

    // Per GPU: classify, segments, totals.
    std::vector<double> t, p, u;
    std::vector<Phase> ph;
    for (std::size_t g = 0; g < ids.size(); ++g) {
        const auto& r = rows[g];
        const std::size_t m = r.size();
        t.resize(m); p.resize(m); u.resize(m); ph.resize(m);
        for (std::size_t k = 0; k < m; ++k) {
            t[k] = trace.time_s[r[k]];
            p[k] = trace.power_w[r[k]];
            u[k] = trace.utilization_pct[r[k]];
            if (k > 0 && !(t[k] > t[k - 1]))
                throw std::invalid_argument("PowerTrace: GPU " + std::to_string(ids[g]) + " time_s = " + fmt(t[k]) + " at row " +
                                            std::to_string(r[k]) + " does not increase; times must increase per GPU");
        }
        classify_gpu(t, p, u, th, copt, ph);
        PhaseTotals& tot = res.per_gpu[ids[g]];
        std::size_t s = 0;
        while (s < m) {
            std::size_t e = s;
            double energy = 0;
            while (e + 1 < m && ph[e + 1] == ph[s]) ++e;
            // intervals [t_k, t_{k+1}] belong to the phase of sample k
            const std::size_t last = std::min(e + 1, m - 1);
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
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return trace.time_s[a] < trace.time_s[b]; });
    const std::size_t G = ids.size();
    std::vector<double> last_t(G, -INFINITY);
    for (std::size_t i = 0; i < n; ++i) last_t[dense[trace.gpu[i]]] = std::max(last_t[dense[trace.gpu[i]]], trace.time_s[i]);
    std::vector<int> state(G, -1);  // phase index, −1: no data yet / gone
    std::vector<double> cur_p(G, 0), cur_u(G, 0);
    std::array<int, kPhaseCount> count{};
    Episode dead, starve, strag;
    int job = -1;
    double job_start = 0, seg_power_sum = 0;
    std::size_t seg_points = 0;
    const auto close_job = [&](double end) {
        if (job < 0) return;
        res.job_segments.push_back({-1, job_start, end, static_cast<Phase>(job), seg_power_sum / static_cast<double>(seg_points)});
        res.job.seconds[static_cast<std::size_t>(job)] += end - job_start;
    };
    double t_prev = 0;
    for (std::size_t a = 0; a < n;) {
        const double now = trace.time_s[order[a]];
        for (std::size_t g = 0; g < G; ++g)
            if (state[g] >= 0 && last_t[g] < now) { --count[static_cast<std::size_t>(state[g])]; state[g] = -1; }
        for (; a < n && trace.time_s[order[a]] == now; ++a) {
            const std::size_t i = order[a];
            const std::size_t g = dense[trace.gpu[i]];
            if (state[g] >= 0) --count[static_cast<std::size_t>(state[g])];
            state[g] = static_cast<int>(res.sample_phase[i]);
            ++count[static_cast<std::size_t>(state[g])];
            cur_p[g] = trace.power_w[i];
            cur_u[g] = trace.utilization_pct[i];
        }
        int present = 0;
        for (int c : count) present += c;
        int jp;
        const std::size_t ck = idx(Phase::checkpoint_or_deadlock);
        if (count[ck] == present) {
            jp = static_cast<int>(ck);
        } else {
            jp = -1;
            for (std::size_t q = 0; q < static_cast<std::size_t>(kPhaseCount); ++q)
                if (q != ck && (jp < 0 || count[q] > count[static_cast<std::size_t>(jp)])) jp = static_cast<int>(q);
        }
        double total_p = 0;
        bool all_busy = true;
        std::vector<int> in_phase;
        for (std::size_t g = 0; g < G; ++g)
            if (state[g] >= 0) {
                total_p += cur_p[g];
                all_busy = all_busy && cur_u[g] >= dopt.util_threshold_pct;  // NaN: not busy
            }
        if (jp != job) {
            close_job(now);
            job = jp;
            job_start = now;
            seg_power_sum = 0;
            seg_points = 0;
        }
        seg_power_sum += total_p;
        ++seg_points;
        t_prev = now;

        const auto gpus_in = [&](Phase q) {
            std::vector<int> v;
            for (std::size_t g = 0; g < G; ++g)
                if (state[g] == static_cast<int>(q)) v.push_back(ids[g]);
            return v;
        };
        const bool dl = jp == static_cast<int>(ck) && all_busy && !dopt.checkpoints.covers(now);
        if (dead.update(dl, now, T)) {
            res.alerts.push_back({AlertKind::deadlock, now, gpus_in(Phase::checkpoint_or_deadlock),
                                  "deadlock suspected: all " + std::to_string(present) +
                                      " GPUs in checkpoint_or_deadlock with utilization >= " + fmt(dopt.util_threshold_pct) +
                                      "% at " + fmt(total_p / present) + " W per GPU since t = " + fmt(dead.since) +
                                      " s, longer than T = " + fmt(T) + " s, outside any declared checkpoint window"});
        }
        if (starve.update(jp == static_cast<int>(idx(Phase::data_starvation)), now, dopt.starvation_after_s)) {
            auto v = gpus_in(Phase::data_starvation);
            res.alerts.push_back({AlertKind::data_starvation, now, v,
                                  "data starvation: " + std::to_string(v.size()) + " of " + std::to_string(present) +
                                      " GPUs waiting for input since t = " + fmt(starve.since) + " s, longer than " +
                                      fmt(dopt.starvation_after_s) + " s"});
        }
        const bool sg = present >= 2 && count[idx(Phase::compute)] == 1 && count[idx(Phase::communication)] == present - 1;
        int who = -1;
        if (sg)
            for (std::size_t g = 0; g < G; ++g)
                if (state[g] == static_cast<int>(idx(Phase::compute))) who = ids[g];
        if (strag.update(sg, now, dopt.straggler_after_s, who)) {
            res.alerts.push_back({AlertKind::straggler, now, {who},
                                  "straggler: GPU " + std::to_string(who) + " computing while the other " +
                                      std::to_string(present - 1) + " wait in communication since t = " + fmt(strag.since) +
                                      " s, longer than " + fmt(dopt.straggler_after_s) + " s"});
        }
    }
    close_job(t_prev);
    return res;
}

}  // namespace libscale
