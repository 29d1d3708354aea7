// Order statistics of measured samples, one definition for every reader of them: the
// fitter's power medians, the validation summaries, the measured power bands and the
// calibration harness's timings.
#pragma once

#include <vector>

namespace libscale {

// The q-quantile (0 ≤ q ≤ 1) of ascending `sorted`, interpolated linearly between the
// neighbouring samples (numpy's default, "linear"); NaN when empty.
double quantile_sorted(const std::vector<double>& sorted, double q) noexcept;

// The median: the middle sample, or the mean of the two middle ones; NaN when empty.
double median(std::vector<double> samples) noexcept;

}  // namespace libscale
