// Checks every estimate of a Scenario shares, for the estimate/ sources only.
#pragma once

#include "libscale/estimate/scenario.hpp"

namespace libscale::detail {

// Model, hardware, calibration, and that the calibration was made for this hardware:
// everything of Scenario::validate but the configuration, which projections, solvers and
// sweeps vary (GPU count, batch) and check at each point instead.
void validate_inputs(const Scenario& s);

}  // namespace libscale::detail
