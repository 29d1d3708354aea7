// Labelled power traces generated from the documented patterns (steady compute,
// communication, data starvation, a checkpoint, an NCCL hang at idle watts and 100%
// utilization, idle), shared by the offline and the live triage tests.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "libscale/io/catalog.hpp"
#include "libscale/triage/triage.hpp"

namespace triage_patterns {

using namespace libscale;

constexpr double kDt = 0.5;  // nvidia-smi -lms 500

// A documented pattern: power (W, ± noise) and utilization, on H100 (700 W board).
struct Pattern {
    Phase label;
    double power_w, noise_w, util_pct;
};
const Pattern kCompute{Phase::compute, 640, 20, 100};
const Pattern kComm{Phase::communication, 350, 15, 100};
const Pattern kStarve{Phase::data_starvation, 220, 20, 35};
const Pattern kCheckpoint{Phase::checkpoint_or_deadlock, 120, 10, 95};  // worst case: busy
const Pattern kHang{Phase::checkpoint_or_deadlock, 72, 3, 100};         // nccl#968
const Pattern kIdle{Phase::idle, 70, 3, 0};

struct Piece {
    Pattern pattern;
    double seconds;
};

struct Labelled {
    PowerTrace trace;
    std::vector<Phase> label;
    std::vector<double> since_change_s;  // time since the label last changed (on that GPU)
};

// Every GPU follows its own list of pieces over the same clock.
inline Labelled make(const std::vector<std::vector<Piece>>& per_gpu, unsigned seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(-1, 1);
    Labelled out;
    std::vector<std::vector<std::pair<Pattern, double>>> tracks;  // pattern, since
    std::size_t n = 0;
    for (const auto& pieces : per_gpu) {
        std::vector<std::pair<Pattern, double>> tr;
        double change_t = 0;
        Phase prev = pieces.front().pattern.label;
        for (const auto& pc : pieces) {
            const auto k = static_cast<std::size_t>(pc.seconds / kDt + 0.5);
            for (std::size_t i = 0; i < k; ++i) {
                const double t = static_cast<double>(tr.size()) * kDt;
                if (i == 0 && pc.pattern.label != prev) {
                    change_t = t;
                    prev = pc.pattern.label;
                }
                tr.push_back({pc.pattern, t - change_t});
            }
        }
        n = std::max(n, tr.size());
        tracks.push_back(tr);
    }
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t g = 0; g < tracks.size(); ++g) {
            if (i >= tracks[g].size()) continue;
            const auto& [pat, since] = tracks[g][i];
            out.trace.push_back({static_cast<double>(i) * kDt, static_cast<int>(g),
                                 pat.power_w + pat.noise_w * unit(rng), pat.util_pct});
            out.label.push_back(pat.label);
            out.since_change_s.push_back(since);
        }
    return out;
}

inline Labelled make_all(int gpus, const std::vector<Piece>& pieces) {
    return make(std::vector<std::vector<Piece>>(static_cast<std::size_t>(gpus), pieces));
}

inline PowerBands h100() { return default_power_bands(find_hardware("h100")); }

// Every sample at least one smoothing window after a label change is labelled right.
inline void expect_labelled(const Labelled& l, const TriageResult& r, const ClassifierOptions& c = {}) {
    std::size_t checked = 0, right = 0;
    for (std::size_t i = 0; i < l.label.size(); ++i) {
        if (l.since_change_s[i] < c.smoothing_window_s && l.since_change_s[i] != l.trace.time_s[i]) continue;
        ++checked;
        if (r.sample_phase[i] == l.label[i]) ++right;
        else
            ADD_FAILURE() << "row " << i << " t=" << l.trace.time_s[i] << " gpu " << l.trace.gpu[i] << ": "
                          << to_string(r.sample_phase[i]) << ", labelled " << to_string(l.label[i]);
        if (checked - right > 5) return;
    }
    EXPECT_GT(checked, l.label.size() * 9 / 10);
    EXPECT_EQ(right, checked);
}

inline DetectorOptions detector(double expected_ckpt_s = 120) {
    DetectorOptions d;
    d.expected_checkpoint_s = expected_ckpt_s;  // T = 240 s
    return d;
}

}  // namespace triage_patterns
