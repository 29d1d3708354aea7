// Shared by the fitter's stages (fit.cpp, fit_collectives.cpp, fit_compute.cpp): least
// squares with condition checks, the accumulated state, leave-one-out.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "libscale/calibrate/fit.hpp"
#include "libscale/spec/model_spec.hpp"
#include "libscale/spec/training_config.hpp"

namespace libscale::detail {

using Eigen::MatrixXd;
using Eigen::VectorXd;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Leave-one-out by refitting up to this many points; beyond, the leverage formula
// r_i / (1 − h_ii) (exact for linear least squares, first order for the nonlinear fit).
inline constexpr std::size_t kExactLooMax = 32;

inline std::string fmt(double v, int digits = 3) {
    std::ostringstream os;
    os.precision(digits);
    os << v;
    return os.str();
}

inline std::string percent(double v) { return fmt(100.0 * v, 3) + "%"; }

// Least squares on a weighted design A (rows already divided by the observation, so
// residuals are relative). Columns are scaled to unit norm first: the condition number
// then measures whether the data separate the coefficients, not their units.
struct Solve {
    bool ok = false;
    double cond = std::numeric_limits<double>::infinity();
    VectorXd beta;      // when b was given
    MatrixXd inverse;   // (AᵀA)⁻¹
    VectorXd leverage;  // diagonal of A (AᵀA)⁻¹ Aᵀ
};
Solve solve(const MatrixXd& A, const VectorXd& b, double condition_limit);

// Relative weighted linear fit of y ≈ X·β, weights 1/obs².
struct Linear {
    Solve s;
    VectorXd rel;  // (pred − obs)/obs
    MatrixXd cov;  // empty when there are no residual degrees of freedom
};
Linear linear_fit(const MatrixXd& X, const VectorXd& y, const VectorXd& obs, double condition_limit);

// Everything a fit accumulates: the calibration, coefficient notes, covariance blocks
// (stages use disjoint data, so the covariance is block-diagonal), residuals, LOO errors.
struct State {
    Calibration cal;
    std::map<std::string, Coefficient> coef;
    std::vector<std::pair<std::vector<std::string>, MatrixXd>> blocks;
    std::vector<std::string> unidentified;
    std::vector<double> residuals, loo;

    void fitted(const std::string& name, double value, std::string note);
    void unknown(const std::string& name, const std::string& reason);
    void block(std::vector<std::string> names, MatrixXd cov);
    void record(const VectorXd& rel, const VectorXd& leverage);
};

// One link level of collective runs (inter: runs that cross nodes).
void fit_level(const std::vector<const CollectiveRun*>& runs, bool inter, const FitOptions& o, State& st);

// One end-to-end step record, resolved.
struct StepCase {
    const ModelSpec* model = nullptr;
    const ParameterCounts* counts = nullptr;
    TrainingConfig config;
    double obs = 0;     // seconds
    double sigma = 0;   // relative error of obs (1 sd)
    int config_id = 0;  // same configuration
    int series_id = 0;  // same configuration but for the GPU count
};

struct KernelRecords {
    std::vector<const GemmRun*> gemm;
    std::vector<const AttentionRun*> attention;
    std::vector<const BandwidthRun*> bandwidth;
};

// The compute coefficients from kernel and step records (maximum a posteriori), then the
// model-family comparison on the step records.
void fit_compute(const KernelRecords& kernels, const std::vector<StepCase>& steps, const HardwareProfile& hw,
                 const FitOptions& o, State& st, FitResult& out);

// Mean |LOO error| over idx: refits when few, the leverage formula otherwise.
template <class Refit, class Full>
double leave_one_out(const std::vector<std::size_t>& idx, Refit refit_predict, Full full) {
    double sum = 0;
    if (idx.size() <= kExactLooMax) {
        for (std::size_t k = 0; k < idx.size(); ++k) {
            std::vector<std::size_t> rest = idx;
            rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
            sum += std::abs(refit_predict(rest, idx[k]));
        }
    } else {
        const auto [rel, leverage] = full();
        for (Eigen::Index k = 0; k < rel.size(); ++k) sum += std::abs(rel(k) / std::max(1.0 - leverage(k), 1e-12));
    }
    return sum / static_cast<double>(idx.size());
}

}  // namespace libscale::detail
