#include "libscale/estimate/scenario.hpp"

#include <stdexcept>

#include "estimate/scenario_detail.hpp"
#include "libscale/io/catalog.hpp"

namespace libscale {

namespace detail {

void validate_inputs(const Scenario& s) {
    s.model.validate();
    s.hardware.validate();
    s.coefficients().validate();
    // Coefficients are measured on one GPU type (its kernels, clocks and links); applied to
    // another they give numbers that look plausible and are wrong, so this is an error.
    if (s.coefficients().hardware != s.hardware.name)
        throw std::invalid_argument("calibration: made for hardware '" + s.coefficients().hardware +
                                    "', but the scenario's hardware is '" + s.hardware.name +
                                    "'; a calibration applies only to the hardware it was made on: give one made "
                                    "on '" +
                                    s.hardware.name + "', or none for its default calibration");
}

}  // namespace detail

void Scenario::validate() const {
    detail::validate_inputs(*this);
    validate_config(model, hardware, config);
    validate_calibration_for(coefficients(), config);
}

Scenario make_scenario(ModelSpec model, HardwareProfile hardware, TrainingConfig config) {
    Scenario s;
    s.calibration = default_calibration_file(hardware);
    s.model = std::move(model);
    s.hardware = std::move(hardware);
    s.config = config;
    return s;
}

StepBreakdown estimate_step(const Scenario& s) {
    s.validate();
    return estimate_step_unchecked(s.model, count_parameters(s.model), s.hardware, s.coefficients(), s.config);
}

void require_fit(const Scenario& s, const StepBreakdown& step) {
    require_fit(s.model, s.hardware, s.coefficients(), s.config, step);
}

}  // namespace libscale
