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
    // Per record used: residual, signed LOO error (NaN: none), kind and index in the
    // MeasurementSet. `loo` holds the |LOO| terms of the fit's mean: a stage's values, or
    // (steps) its mean once per record, which is how the mean has always been weighted.
    std::vector<double> residuals, loo_signed, loo;
    std::vector<std::string> kinds;
    std::vector<std::size_t> indices;

    void fitted(const std::string& name, double value, std::string note);
    void unknown(const std::string& name, const std::string& reason);
    void block(std::vector<std::string> names, MatrixXd cov);
    // Residuals of records of one kind; leverage empty: no LOO for them.
    void record(const VectorXd& rel, const VectorXd& leverage, const std::string& kind,
                const std::vector<std::size_t>& index);
};

// Index of `p` in `v`, which holds it.
template <class T>
std::size_t index_in(const std::vector<T>& v, const T* p) {
    return static_cast<std::size_t>(p - v.data());
}

// One link level of collective runs (inter: runs that cross nodes), elements of `all`.
void fit_level(const std::vector<const CollectiveRun*>& runs, const std::vector<CollectiveRun>& all, bool inter,
               const FitOptions& o, State& st);

// One end-to-end step record, resolved.
struct StepCase {
    const ModelSpec* model = nullptr;
    const ParameterCounts* counts = nullptr;
    TrainingConfig config;
    double obs = 0;          // seconds
    double sigma = 0;        // relative error of obs (1 sd)
    int config_id = 0;       // same configuration
    int series_id = 0;       // same configuration but for the GPU count
    std::size_t record = 0;  // index in MeasurementSet::steps
};

struct KernelRecords {
    std::vector<const GemmRun*> gemm;
    std::vector<const AttentionRun*> attention;
    std::vector<const BandwidthRun*> bandwidth;
    const MeasurementSet* data = nullptr;  // holds them
};

// The compute coefficients from kernel and step records (maximum a posteriori), then the
// model-family comparison on the step records.
void fit_compute(const KernelRecords& kernels, const std::vector<StepCase>& steps, const HardwareProfile& hw,
                 const FitOptions& o, State& st, FitResult& out, Progress* progress);

// Signed LOO error (pred − obs)/obs of each point of idx, in idx's order: refits when few,
// the leverage formula otherwise.
template <class Refit, class Full>
std::vector<double> leave_one_out(const std::vector<std::size_t>& idx, Refit refit_predict, Full full) {
    std::vector<double> out;
    out.reserve(idx.size());
    if (idx.size() <= kExactLooMax) {
        for (std::size_t k = 0; k < idx.size(); ++k) {
            std::vector<std::size_t> rest = idx;
            rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
            out.push_back(refit_predict(rest, idx[k]));
        }
    } else {
        const auto [rel, leverage] = full();
        for (Eigen::Index k = 0; k < rel.size(); ++k) out.push_back(rel(k) / std::max(1.0 - leverage(k), 1e-12));
    }
    return out;
}

// Mean |LOO error|, summed in order (the family comparison's scores depend on it).
inline double mean_abs(const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += std::abs(x);
    return sum / static_cast<double>(v.size());
}

}  // namespace libscale::detail
