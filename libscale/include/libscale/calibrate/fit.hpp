// The fitter: learns a Calibration from measurements, with the covariance of what it
// fitted, residuals, leave-one-out error, which coefficients the data identified and
// which stayed at their prior, and a comparison of model families for end-to-end scaling.
//
// - Collectives, per link level: seconds/passes = α·steps + ((n−1)/n)·S·(1/B): linear
//   least squares (fit_collectives.cpp).
// - Compute: GEMM, attention and bandwidth micro-runs and end-to-end steps together, by
//   maximum a posteriori: relative (log) residuals of every record with its stated error,
//   plus each free coefficient's log-normal prior from the calibration file's "prior";
//   Levenberg–Marquardt through the per-operation laws and the full step model
//   (fit_compute.cpp). Kernel-shape coefficients (GEMM k_half, attention half lengths and
//   head_dim_half) are free only when records of their kernel are given.
// - Power: the median watts of the power records of the compute, communication and idle
//   phases become power.compute_w, power.comm_w and power.idle_w (measured, not fitted);
//   with the idle, hang, starvation and compute phases, the power bands
//   (power_bands_from_phases, which separates a hang from idle by utilization when they
//   draw the same watts).
// The posterior covariance (natural units, delta method from log space) goes to the
// calibration file and is sampled for P10–P90 projections (uncertainty.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "libscale/calibrate/calibration.hpp"
#include "libscale/calibrate/measurement.hpp"
#include "libscale/io/progress.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/triage/power_bands.hpp"

namespace libscale {

struct Coefficient {
    std::string name;
    double value = 0;
    double std_error = 0;     // posterior sd (sqrt of the covariance diagonal); 0 when fixed
    double prior_value = 0;   // before the fit
    double prior_log_sd = 0;  // 0: fixed, not fitted
    bool fitted = false;      // free in the fit
    bool identified = false;  // the data narrowed its prior (posterior sd < 0.7 × prior sd)
    bool measured = false;    // set from records directly (power), not fitted
    std::string note;         // how it was determined
};

struct FamilyScore {
    std::string family;  // "mechanistic" | "amdahl" | "usl"
    std::size_t parameters = 0;
    double loo_relative_error = 0;  // mean |pred − obs| / obs, leave-one-out
    bool applicable = false;        // enough points, one configuration series
    std::string note;
};

struct FitOptions {
    bool fit_overhead = true;       // fit step_overhead_s when the steps allow it
    int max_iterations = 100;       // Levenberg–Marquardt
    double condition_limit = 1e10;  // above: the collective design is ill-conditioned
    double relative_error = 0.03;   // of each measurement record (1 sd, relative), in [kMinRelativeError, 1]
    // Prior sd of log(value) per coefficient; empty: the hardware's default file's prior.
    std::map<std::string, double> prior_log_sd;
};

// Bandwidth records of at most this many bytes (read plus written) are not fitted to the HBM
// law: the copy stays in L2 (fit.cpp).
inline constexpr double kCacheResidentCopyBytes = 64.0 * 1024 * 1024;
// GEMM records shorter than this many kernel launches (the prior's kernel_overhead_s) are
// launch-bound, and the GEMM law is a throughput law: they are not fitted either.
inline constexpr double kLaunchBoundLaunches = 5.0;

struct FitResult {
    Calibration calibration;                // prior with the fitted values in place
    std::vector<std::string> parameters;    // fitted, in covariance order
    Eigen::MatrixXd covariance;             // of `parameters`, natural units
    std::vector<Coefficient> coefficients;  // every coefficient, fitted or kept
    std::vector<std::string> unidentified;  // "name: reason" for what the data cannot pin down
    std::vector<std::string> notes;         // records set aside, and why
    // (pred − obs)/obs per record used: intra-node collectives, cross-node collectives, GEMM,
    // attention and bandwidth micro-runs, then steps, each in input order.
    std::vector<double> relative_residuals;
    double rms_relative_error = 0;
    // Mean |leave-one-out relative error| over the records of stages with more points than
    // parameters (refits up to 32 points, the leverage formula beyond); NaN when none.
    double loo_relative_error = 0;
    // Per record, as relative_residuals: (pred − obs)/obs of the record when the fit leaves it
    // out. Steps: a refit without it (up to 32 steps), else r/(1 − leverage); collectives:
    // r/(1 − leverage), exact for their linear fit. NaN where none is computed: GEMM,
    // attention and bandwidth micro-runs (always in every refit), a collective level that
    // was not fitted or whose record has leverage 1, a single step record. The mean of the
    // finite ones' absolute values is loo_relative_error (NaN when fewer than 2, or when a
    // step refit failed).
    std::vector<double> loo_relative_errors;
    // Per record, as relative_residuals: its measurement kind ("collective", "gemm",
    // "attention", "bandwidth", "step") and its index in that kind's list of the
    // MeasurementSet, so a front end can name it.
    std::vector<std::string> record_kinds;
    std::vector<std::size_t> record_indices;
    std::vector<FamilyScore> families;  // end-to-end step series only
    std::string chosen_family = "mechanistic";
    std::string family_reason;
    std::size_t records_used = 0;
    std::map<std::string, double> prior_log_sd;  // the prior used (kept for later refits)
    // From the power records of all five phases; absent otherwise, and then the note says why
    // ("" when there were no power records).
    std::optional<PowerBands> power_bands;
    std::string power_bands_note;
};

// Throws std::invalid_argument on unusable input: no records for this hardware, too few
// points for what is requested (says how many are needed), non-finite values.
//
// Progress (io/progress.hpp): counted in Levenberg–Marquardt iterations, max_iterations
// for each solve the fit plans (the fit, then its leave-one-out refits and the family
// comparison's): an upper bound, so a solve that converges early adds its unused
// iterations at once. Each iteration evaluates every record p + 1 or more times (p: the
// free coefficients).
FitResult fit(const MeasurementSet& data, const HardwareProfile& hw, const Calibration& prior,
              const FitOptions& options = {}, Progress* progress = nullptr);

}  // namespace libscale
