// P10 / P50 / P90 of a projection by Monte Carlo over the calibration's coefficient
// covariance. Sampling rather than the delta method because the step model is not
// linear in its coefficients (time ∝ 1/η, max() of compute and communication per
// unit), so the intervals are asymmetric; 2000 draws × a few GPU counts cost a few ms.
#include "libscale/estimate/uncertainty.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "libscale/calibrate/fit.hpp"
#include "libscale/spec/flops.hpp"

namespace libscale {

namespace {

constexpr int kMaxSamples = 10'000'000;
// Every sample of every row is kept until its quantiles are read: samples × rows values per
// metric, 8 B each. 10^7 draws (the most samples at one GPU count) are 0.56 GB over the
// seven metrics; more rows at that many samples would take tens of GB.
constexpr std::size_t kMaxSampleValues = 10'000'000;
constexpr int kMaxRedraws = 100;
constexpr std::size_t kMetrics = 7;

// The figures in RowQuantiles' order.
std::array<double, kMetrics> metrics_of(const ProjectionRow& r) {
    return {r.step.step_time_s, r.step.tokens_per_s, r.step.tokens_per_s_per_gpu, r.wall_time_h, r.gpu_hours,
            r.cost_usd,         r.energy_kwh};
}

std::array<Quantiles*, kMetrics> fields_of(RowQuantiles& q) {
    return {&q.step_time_s, &q.tokens_per_s, &q.tokens_per_s_per_gpu, &q.wall_time_h, &q.gpu_hours,
            &q.cost_usd,    &q.energy_kwh};
}

RowQuantiles point_quantiles(const ProjectionRow& r) {
    RowQuantiles q;
    q.gpus = r.step.gpus;
    const auto v = metrics_of(r);
    const auto f = fields_of(q);
    for (std::size_t i = 0; i < kMetrics; ++i) *f[i] = {v[i], v[i], v[i]};
    return q;
}

// Linear interpolation between order statistics (numpy's default, Hyndman–Fan type 7).
// Partial selection instead of a sort: O(n) per quantile.
double quantile(std::vector<double>& x, double p) {
    const double h = p * static_cast<double>(x.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(lo), x.end());
    const double a = x[lo];
    if (lo + 1 >= x.size()) return a;
    const double b = *std::min_element(x.begin() + static_cast<std::ptrdiff_t>(lo) + 1, x.end());
    return a + (h - static_cast<double>(lo)) * (b - a);
}

// Log-drawn coefficients (drawn_in_log_space) stay positive; the others are drawn as
// normal, and a draw outside a coefficient's valid range is pulled back into it (a negative
// latency is a zero one, a non-positive bandwidth in a far tail becomes a thousandth of its
// mean rather than an infinite step time).
double clamp_to_valid(const std::string& name, double x, double mean) {
    const CoefficientInfo& info = coefficient_info(name);
    const double lo = info.min_exclusive ? std::max(info.min, 1e-3 * mean) : info.min;
    return std::clamp(x, lo, info.max);
}

// A with A·Aᵀ = C, for a semi-definite C (a fit can leave directions with no spread).
// Factored on the correlation matrix: the parameters' scales differ by twenty orders of
// magnitude, and an eigen-decomposition of the raw matrix would lose the small ones.
Eigen::MatrixXd sampling_factor(const Eigen::MatrixXd& c) {
    const Eigen::Index n = c.rows();
    Eigen::VectorXd sd(n);
    for (Eigen::Index i = 0; i < n; ++i) sd(i) = std::sqrt(std::max(c(i, i), 0.0));
    Eigen::MatrixXd r = Eigen::MatrixXd::Identity(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index k = 0; k < n; ++k)
            if (i != k && sd(i) > 0 && sd(k) > 0) r(i, k) = c(i, k) / (sd(i) * sd(k));
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(r);
    const Eigen::VectorXd root = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
    return sd.asDiagonal() * eig.eigenvectors() * root.asDiagonal();
}

}  // namespace

std::vector<RowQuantiles> projection_quantiles(const Scenario& s, const std::vector<std::int64_t>& gpu_counts,
                                               Scaling scaling, const Job& job, const UncertaintyOptions& options) {
    const CalibrationFile& cal = s.calibration;
    if (options.samples < 1 || options.samples > kMaxSamples)
        throw std::invalid_argument("samples = " + std::to_string(options.samples) + "; it must be in 1.." +
                                    std::to_string(kMaxSamples));
    const auto k = static_cast<Eigen::Index>(cal.parameters.size());
    const bool uncertain = k > 0 && cal.covariance.size() != 0;
    if (uncertain && (cal.covariance.rows() != k || cal.covariance.cols() != k))
        throw std::invalid_argument("calibration covariance is " + std::to_string(cal.covariance.rows()) + " × " +
                                    std::to_string(cal.covariance.cols()) + " for " + std::to_string(k) +
                                    " parameters; it must be square, one row and column per parameter");
    if (uncertain && !cal.covariance.allFinite())
        throw std::invalid_argument("calibration covariance has a non-finite entry");
    // A file's spreads were checked on reading; this is for a calibration built in memory.
    if (const auto bad =
            uncertain ? first_spread_problem(cal.calibration, cal.parameters, cal.covariance) : std::nullopt)
        throw std::invalid_argument("calibration covariance, " + cal.parameters[bad->first] + ": " + bad->second);

    // Validates model, hardware, calibration, job and every configuration once; the loop
    // below then needs no checks. Memory does not depend on the sampled coefficients, so
    // each row's fit status is the point projection's.
    const Projection point = project(s, gpu_counts, scaling, job);
    std::vector<RowQuantiles> out;
    out.reserve(point.rows.size());
    if (!uncertain) {
        for (const ProjectionRow& r : point.rows) out.push_back(point_quantiles(r));
        return out;
    }

    const std::vector<TrainingConfig> configs = projection_configs(s.config, gpu_counts, scaling);
    const ParameterCounts counts = count_parameters(s.model);
    Eigen::VectorXd mean(k), to_log = Eigen::VectorXd::Ones(k);
    std::vector<bool> in_log(static_cast<std::size_t>(k));
    for (Eigen::Index i = 0; i < k; ++i) {
        const std::string& name = cal.parameters[static_cast<std::size_t>(i)];
        mean(i) = get_parameter(cal.calibration, name);
        in_log[static_cast<std::size_t>(i)] = drawn_in_log_space(name) && mean(i) > 0;
        if (in_log[static_cast<std::size_t>(i)]) to_log(i) = 1.0 / mean(i);  // delta method: sd(log x) = sd(x)/x
    }
    const Eigen::MatrixXd factor = sampling_factor(to_log.asDiagonal() * cal.covariance * to_log.asDiagonal());

    const auto n = static_cast<std::size_t>(options.samples);
    const std::size_t rows = configs.size();
    if (n * rows > kMaxSampleValues)
        throw std::invalid_argument("samples = " + std::to_string(n) + " at " + std::to_string(rows) +
                                    " GPU counts is " + std::to_string(n * rows) + " draws; at most " +
                                    std::to_string(kMaxSampleValues) + " in one projection: fewer samples (" +
                                    std::to_string(kMaxSampleValues / rows) + " at these counts) or fewer counts");
    // values[metric][row · n + sample]
    std::array<std::vector<double>, kMetrics> values;
    for (auto& v : values) v.resize(rows * n);

    std::mt19937_64 rng(options.seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    Calibration draw = cal.calibration;
    Eigen::VectorXd z(k);
    for (std::size_t sample = 0; sample < n; ++sample) {
        // A draw with a coefficient outside its valid range is redrawn whole (clamping one
        // coordinate would pile probability at the bound and bias the quantiles); after
        // kMaxRedraws tries the last draw is clamped.
        for (int attempt = 0;; ++attempt) {
            for (Eigen::Index i = 0; i < k; ++i) z(i) = normal(rng);
            const Eigen::VectorXd dz = factor * z;
            bool inside = true;
            for (Eigen::Index i = 0; i < k; ++i) {
                const std::string& name = cal.parameters[static_cast<std::size_t>(i)];
                const double x = in_log[static_cast<std::size_t>(i)] ? mean(i) * std::exp(dz(i)) : mean(i) + dz(i);
                const double valid = clamp_to_valid(name, x, mean(i));
                inside = inside && valid == x;
                set_parameter(draw, name, valid);
            }
            if (inside || attempt + 1 >= kMaxRedraws) break;
        }
        for (std::size_t r = 0; r < rows; ++r) {
            const StepBreakdown step = estimate_step_unchecked(s.model, counts, s.hardware, draw, configs[r]);
            const auto v = metrics_of(projection_row(step, job, point.price_per_gpu_hour_usd));
            for (std::size_t i = 0; i < kMetrics; ++i) values[i][r * n + sample] = v[i];
        }
    }

    for (std::size_t r = 0; r < rows; ++r) {
        RowQuantiles q;
        q.gpus = point.rows[r].step.gpus;
        const auto f = fields_of(q);
        std::vector<double> buf(n);
        for (std::size_t i = 0; i < kMetrics; ++i) {
            std::copy_n(values[i].begin() + static_cast<std::ptrdiff_t>(r * n), n, buf.begin());
            *f[i] = {quantile(buf, 0.10), quantile(buf, 0.50), quantile(buf, 0.90)};
        }
        out.push_back(q);
    }
    return out;
}

}  // namespace libscale
