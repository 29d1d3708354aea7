// Uncertainty in projections: the fitted coefficients' covariance carried through the
// step model by sampling (a fixed seed: the same call gives the same quantiles), giving
// P10 / P50 / P90 of each projected figure.
#pragma once

#include <cstdint>
#include <vector>

#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/estimate/projection.hpp"

namespace libscale {

struct Quantiles {
    double p10 = 0, p50 = 0, p90 = 0;
};

struct RowQuantiles {
    std::int64_t gpus = 0;
    Quantiles step_time_s, tokens_per_s, tokens_per_s_per_gpu, wall_time_h, gpu_hours, cost_usd, energy_kwh;
};

struct UncertaintyOptions {
    int samples = 2000;
    std::uint64_t seed = 0x5ca1e;
};

// One RowQuantiles per GPU count of the projection (same order as project()). With no
// covariance in s.calibration, every quantile equals the point projection.
std::vector<RowQuantiles> projection_quantiles(const Scenario& s, const std::vector<std::int64_t>& gpu_counts,
                                               Scaling scaling, const Job& job, const UncertaintyOptions& options = {});

}  // namespace libscale
