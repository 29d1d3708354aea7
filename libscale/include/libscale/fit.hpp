// The fitter: learns a Calibration from measurements, with the covariance of what it
// fitted, residuals, leave-one-out error, the coefficients the data could not pin down,
// and a comparison of model families for end-to-end scaling.
//
// - GEMM chains: seconds·peak/flops = 1/η_max + (t½/η_max)·(1/t): linear least squares.
// - Collectives, per level: seconds/passes = α·steps + ((n−1)/n)·S·(1/B): linear.
// - End-to-end steps: η_max (and, with enough points, a fixed per-step overhead)
//   through the full step model: Levenberg–Marquardt; one point fits η_max exactly.
// Coefficients not fitted keep the prior calibration's values (the hardware default).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "libscale/calibration.hpp"
#include "libscale/hardware.hpp"
#include "libscale/measurement.hpp"

namespace libscale {

// Names of the parameters a fit can estimate, in Calibration's units.
// "eta_max", "half_saturation_tokens", "intra_node.alpha_s", "intra_node.busbw_bytes_per_s",
// "inter_node.alpha_s", "inter_node.busbw_bytes_per_s", "step_overhead_s"
double get_parameter(const Calibration& c, const std::string& name);
void set_parameter(Calibration& c, const std::string& name, double value);

struct Coefficient {
    std::string name;
    double value = 0;
    double std_error = 0;        // sqrt of the covariance diagonal; 0 for fixed ones; NaN when
                                 // solved exactly (as many points as parameters: no uncertainty)
    bool fitted = false;         // false: kept from the prior
    std::string note;            // why not fitted / how determined
};

struct FamilyScore {
    std::string family;          // "mechanistic" | "amdahl" | "usl"
    std::size_t parameters = 0;
    double loo_relative_error = 0;   // mean |pred − obs| / obs, leave-one-out
    bool applicable = false;         // enough points, one configuration series
    std::string note;
};

struct FitOptions {
    bool fit_overhead = true;        // fit step_overhead_s when the steps allow it
    int max_iterations = 100;        // Levenberg–Marquardt
    double condition_limit = 1e10;   // above: the design is ill-conditioned
};

struct FitResult {
    Calibration calibration;                 // prior with the fitted values in place
    // Fitted parameters that have an uncertainty estimate, covariance order (block-diagonal:
    // GEMM, each collective level and the steps use disjoint data). Exactly solved ones
    // (a single step record) are fitted in `coefficients` but not listed here.
    std::vector<std::string> parameters;
    Eigen::MatrixXd covariance;              // of `parameters`
    std::vector<Coefficient> coefficients;   // every parameter, fitted or kept
    std::vector<std::string> unidentified;   // "name: reason" for what the data cannot pin down
    std::vector<double> relative_residuals;  // (pred − obs)/obs per record used, in input order
    double rms_relative_error = 0;
    // Mean |leave-one-out relative error| over the records of stages with more points than
    // parameters (refits up to 32 points, the leverage formula beyond); NaN when none.
    double loo_relative_error = 0;
    std::vector<FamilyScore> families;       // end-to-end step series only
    std::string chosen_family = "mechanistic";
    std::string family_reason;
    std::size_t records_used = 0;
};

// Throws std::invalid_argument on unusable input: no records for this hardware, too few
// points for what is requested (says how many are needed), non-finite values.
FitResult fit(const MeasurementSet& data, const HardwareProfile& hw, const Calibration& prior,
              const FitOptions& options = {});

}  // namespace libscale
