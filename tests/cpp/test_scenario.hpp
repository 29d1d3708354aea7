// A Scenario from its four parts, for tests that vary one part (the hardware's memory, a
// coefficient) between estimates: every estimate takes a Scenario (estimate/scenario.hpp).
#pragma once

#include <utility>

#include "libscale/estimate/scenario.hpp"

namespace libscale::test {

inline Scenario scenario(ModelSpec m, HardwareProfile hw, CalibrationFile cal, TrainingConfig c) {
    return Scenario{std::move(m), std::move(hw), std::move(cal), std::move(c)};
}

// Coefficients alone: a calibration file with no covariance (point estimates).
inline Scenario scenario(ModelSpec m, HardwareProfile hw, Calibration cal, TrainingConfig c) {
    CalibrationFile file;
    file.calibration = std::move(cal);
    return scenario(std::move(m), std::move(hw), std::move(file), std::move(c));
}

}  // namespace libscale::test
