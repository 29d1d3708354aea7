#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace libscale::harness::cuda {

namespace {
double quantile(const std::vector<double>& sorted, double q) {
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double f = pos - static_cast<double>(lo);
    return sorted[lo] * (1 - f) + sorted[hi] * f;
}
}  // namespace

Timing summarize(std::vector<double> seconds) {
    Timing t;
    if (seconds.empty()) return t;
    std::sort(seconds.begin(), seconds.end());
    t.seconds = quantile(seconds, 0.5);
    if (t.seconds > 0) t.spread = (quantile(seconds, 0.9) - quantile(seconds, 0.1)) / t.seconds;
    return t;
}

}  // namespace libscale::harness::cuda
