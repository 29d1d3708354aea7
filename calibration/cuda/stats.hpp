// Median and spread of a case's repeats, as Timing reports them (backend.hpp).
#pragma once

#include <vector>

#include "harness/backend.hpp"

namespace libscale::harness::cuda {

// seconds = median; spread = (P90 − P10) / median, percentiles by linear interpolation
// between order statistics (numpy's default "linear" method). Empty input: a zero Timing.
Timing summarize(std::vector<double> seconds);

}  // namespace libscale::harness::cuda
