// What an estimate is of: a model on a hardware profile, with a calibration, trained
// with a configuration. Every estimate (a step, a projection over GPU counts, a sweep,
// the deadline and budget solvers, their uncertainty) takes one; the Python Plan holds one.
#pragma once

#include <string>

#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/estimate/step_model.hpp"

namespace libscale {

struct Scenario {
    ModelSpec model;
    HardwareProfile hardware;
    // The coefficients, with their covariance when fitted (projection_quantiles uses it).
    CalibrationFile calibration;
    TrainingConfig config;

    const Calibration& coefficients() const noexcept { return calibration.calibration; }
    // Throws std::invalid_argument: model, hardware and calibration, the configuration's
    // rules (validate_config) and what it needs of the calibration.
    void validate() const;
};

// A scenario with the hardware's default calibration.
Scenario make_scenario(ModelSpec model, HardwareProfile hardware, TrainingConfig config);

// estimate_step and require_fit (step_model.hpp) of the scenario; fit_suggestion and
// fit_advice of one are in fit_advice.hpp.
StepBreakdown estimate_step(const Scenario& s);
void require_fit(const Scenario& s, const StepBreakdown& step);

}  // namespace libscale
