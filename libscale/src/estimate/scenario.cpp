#include "libscale/estimate/scenario.hpp"

#include "libscale/io/catalog.hpp"

namespace libscale {

void Scenario::validate() const {
    model.validate();
    hardware.validate();
    coefficients().validate();
    validate_config(model, hardware, config);
    validate_calibration_for(coefficients(), config);
}

Scenario make_scenario(ModelSpec model, HardwareProfile hardware, TrainingConfig config) {
    Scenario s;
    s.calibration.calibration = default_calibration(hardware);
    s.model = std::move(model);
    s.hardware = std::move(hardware);
    s.config = std::move(config);
    return s;
}

StepBreakdown estimate_step(const Scenario& s) {
    return estimate_step(s.model, s.hardware, s.coefficients(), s.config);
}

void require_fit(const Scenario& s, const StepBreakdown& step) {
    require_fit(s.model, s.hardware, s.coefficients(), s.config, step);
}

std::string fit_suggestion(const Scenario& s) { return fit_suggestion(s.model, s.hardware, s.coefficients(), s.config); }

}  // namespace libscale
