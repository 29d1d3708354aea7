#include "libscale/estimate/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace libscale {

double quantile_sorted(const std::vector<double>& sorted, double q) noexcept {
    if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
    const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double f = pos - static_cast<double>(lo);
    return sorted[lo] * (1 - f) + sorted[hi] * f;
}

double median(std::vector<double> samples) noexcept {
    std::sort(samples.begin(), samples.end());
    return quantile_sorted(samples, 0.5);
}

}  // namespace libscale
