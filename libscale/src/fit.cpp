#include "libscale/fit.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "libscale/catalog.hpp"
#include "libscale/collective.hpp"
#include "libscale/step_model.hpp"

namespace libscale {

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const char* const kNames[] = {"eta_max",           "half_saturation_tokens",       "intra_node.alpha_s",
                              "intra_node.busbw_bytes_per_s", "inter_node.alpha_s", "inter_node.busbw_bytes_per_s",
                              "step_overhead_s"};
// Leave-one-out by refitting up to this many points; beyond, the leverage formula
// r_i / (1 − h_ii) (exact for linear least squares, first order for Levenberg–Marquardt)
// keeps 1,000-point fits within milliseconds.
constexpr std::size_t kExactLooMax = 32;

double* slot(Calibration& c, const std::string& name) {
    if (name == "eta_max") return &c.eta_max;
    if (name == "half_saturation_tokens") return &c.half_saturation_tokens;
    if (name == "intra_node.alpha_s") return &c.intra_node.alpha_s;
    if (name == "intra_node.busbw_bytes_per_s") return &c.intra_node.busbw_bytes_per_s;
    if (name == "inter_node.alpha_s") return &c.inter_node.alpha_s;
    if (name == "inter_node.busbw_bytes_per_s") return &c.inter_node.busbw_bytes_per_s;
    if (name == "step_overhead_s") return &c.step_overhead_s;
    std::string valid;
    for (const char* n : kNames) valid += (valid.empty() ? "" : ", ") + std::string(n);
    throw std::invalid_argument("unknown calibration parameter '" + name + "'; valid: " + valid);
}

bool iequal(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::string fmt(double v, int digits = 3) {
    std::ostringstream os;
    os.precision(digits);
    os << v;
    return os.str();
}

std::string percent(double v) { return fmt(100.0 * v, 3) + "%"; }

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

Solve solve(const MatrixXd& A, const VectorXd& b, double condition_limit) {
    Solve s;
    const Eigen::Index n = A.rows(), p = A.cols();
    const VectorXd scale = A.colwise().norm().transpose();
    if (n < p || (scale.array() <= 0).any() || !scale.allFinite()) return s;
    const MatrixXd As = A * scale.cwiseInverse().asDiagonal();
    const Eigen::ColPivHouseholderQR<MatrixXd> qr(As);
    const MatrixXd R = qr.matrixR().topLeftCorner(p, p).triangularView<Eigen::Upper>();
    const VectorXd sv = Eigen::JacobiSVD<MatrixXd>(R).singularValues();
    s.cond = sv(p - 1) > 0 ? sv(0) / sv(p - 1) : std::numeric_limits<double>::infinity();
    s.ok = qr.rank() == p && s.cond <= condition_limit;
    if (!s.ok) return s;
    const MatrixXd Rinv = R.triangularView<Eigen::Upper>().solve(MatrixXd::Identity(p, p));
    const MatrixXd PRinv = qr.colsPermutation() * Rinv;
    s.leverage = (As * PRinv).rowwise().squaredNorm();
    s.inverse = scale.cwiseInverse().asDiagonal() * (PRinv * PRinv.transpose()) * scale.cwiseInverse().asDiagonal();
    if (b.size() == n) s.beta = qr.solve(b).cwiseQuotient(scale);
    return s;
}

// Relative weighted linear fit of y ≈ X·β, weights 1/obs² (obs: the measured quantity
// whose relative error the noise model describes).
struct Linear {
    Solve s;
    VectorXd rel;  // (pred − obs)/obs
    MatrixXd cov;  // empty when there are no residual degrees of freedom
};

Linear linear_fit(const MatrixXd& X, const VectorXd& y, const VectorXd& obs, double condition_limit) {
    Linear f;
    const VectorXd w = obs.cwiseInverse();
    f.s = solve(w.asDiagonal() * X, y.cwiseProduct(w), condition_limit);
    if (!f.s.ok) return f;
    f.rel = (X * f.s.beta - y).cwiseProduct(w);
    const Eigen::Index dof = X.rows() - X.cols();
    if (dof > 0) f.cov = f.rel.squaredNorm() / static_cast<double>(dof) * f.s.inverse;
    return f;
}

// Everything a fit accumulates: the calibration, coefficient notes, covariance blocks
// (stages use disjoint data, so the covariance is block-diagonal), residuals, LOO errors.
struct State {
    Calibration cal;
    std::map<std::string, Coefficient> coef;
    std::vector<std::pair<std::vector<std::string>, MatrixXd>> blocks;
    std::vector<std::string> unidentified;
    std::vector<double> residuals, loo;

    void fitted(const std::string& name, double value, std::string note) {
        set_parameter(cal, name, value);
        drop(name);
        coef[name] = {name, value, kNaN, true, std::move(note)};
    }
    void unknown(const std::string& name, const std::string& reason) {
        coef[name].note = "kept from the prior: " + reason;
        unidentified.push_back(name + ": " + reason);
    }
    void block(std::vector<std::string> names, MatrixXd cov) {
        if (cov.size() == 0 || !cov.allFinite()) {
            for (const auto& n : names) coef[n].note += "; no residual degrees of freedom, so no uncertainty";
            return;
        }
        blocks.emplace_back(std::move(names), std::move(cov));
    }
    void drop(const std::string& name) {
        for (auto& [names, cov] : blocks) {
            const auto it = std::find(names.begin(), names.end(), name);
            if (it == names.end()) continue;
            const auto k = static_cast<Eigen::Index>(it - names.begin());
            std::vector<Eigen::Index> keep;
            for (Eigen::Index i = 0; i < cov.rows(); ++i) if (i != k) keep.push_back(i);
            cov = MatrixXd(cov(keep, keep));
            names.erase(it);
        }
    }
    void record(const VectorXd& rel, const VectorXd& leverage) {
        for (Eigen::Index i = 0; i < rel.size(); ++i) {
            residuals.push_back(rel(i));
            if (leverage.size() == rel.size() && leverage(i) < 1 - 1e-9) loo.push_back(std::abs(rel(i) / (1 - leverage(i))));
        }
    }
};

// GEMM chains: y = seconds·peak/flops = 1/η(t) = a + b/t with a = 1/η_max, b = t½/η_max.
void fit_gemm(const std::vector<const GemmRun*>& runs, const HardwareProfile& hw, const FitOptions& o, State& st) {
    if (runs.empty()) return;
    const auto n = static_cast<Eigen::Index>(runs.size());
    VectorXd y(n), inv_t(n);
    std::set<double> distinct;
    for (Eigen::Index i = 0; i < n; ++i) {
        const GemmRun& r = *runs[static_cast<std::size_t>(i)];
        y(i) = r.seconds * hw.peak_flops() / r.flops;
        inv_t(i) = 1.0 / r.tokens;
        distinct.insert(r.tokens);
    }
    const auto check_eta = [&](double eta) {
        if (!(eta <= 1.0))
            throw std::invalid_argument("GEMM runs on '" + hw.name + "' imply eta_max = " + fmt(eta) +
                                        " > 1 of the peak " + fmt(hw.peak_bf16_tflops) +
                                        " TFLOP/s: check the runs' 'flops' and the hardware's peak");
    };
    const std::string from = std::to_string(n) + " GEMM runs";
    std::string reason = "all GEMM runs at one token count";
    if (distinct.size() >= 2) {
        MatrixXd X(n, 2);
        X << VectorXd::Ones(n), inv_t;
        const Linear f = linear_fit(X, y, y, o.condition_limit);
        if (f.s.ok && f.s.beta(1) >= 0) {
            const double a = f.s.beta(0), b = f.s.beta(1);
            check_eta(1.0 / a);
            st.fitted("eta_max", 1.0 / a, "fitted to " + from);
            st.fitted("half_saturation_tokens", b / a, "fitted to " + from);
            if (f.cov.size()) {
                MatrixXd J(2, 2);  // delta method: (η_max, t½) = (1/a, b/a)
                J << -1.0 / (a * a), 0.0, -b / (a * a), 1.0 / a;
                st.block({"eta_max", "half_saturation_tokens"}, J * f.cov * J.transpose());
            } else {
                st.block({"eta_max", "half_saturation_tokens"}, {});
            }
            st.record(f.rel, f.s.leverage);
            return;
        }
        reason = f.s.ok ? "the runs show no rise of efficiency with tokens (fitted t½ < 0)"
                        : "token counts too close together to separate t½ from eta_max (condition number " +
                              fmt(f.s.cond) + ")";
    }
    st.unknown("half_saturation_tokens", reason);
    // η_max alone, t½ from the prior: y = a·(1 + t½/t).
    const MatrixXd X = (VectorXd::Ones(n) + st.cal.half_saturation_tokens * inv_t);
    const Linear f = linear_fit(X, y, y, o.condition_limit);
    const double a = f.s.beta(0);
    check_eta(1.0 / a);
    st.fitted("eta_max", 1.0 / a, "fitted to " + from + " with half_saturation_tokens from the prior");
    st.block({"eta_max"}, f.cov.size() ? MatrixXd(f.cov / std::pow(a, 4)) : MatrixXd());
    st.record(f.rel, f.s.leverage);
}

// One level of collectives: y = seconds/passes − known = α·c1 + x·c2, fitted as (α, 1/x).
// A level the data cannot identify keeps the prior's values and says why in `unidentified`.
void fit_level(const std::vector<const CollectiveRun*>& runs, bool inter, const FitOptions& o, State& st) {
    if (runs.empty()) return;
    const std::string lvl = inter ? "inter_node" : "intra_node";
    const std::string alpha = lvl + ".alpha_s", busbw = lvl + ".busbw_bytes_per_s";
    const auto n = static_cast<Eigen::Index>(runs.size());
    MatrixXd X(n, 2);
    VectorXd y(n), obs(n);
    std::set<std::pair<std::int64_t, double>> shapes;
    for (Eigen::Index i = 0; i < n; ++i) {
        const CollectiveRun& r = *runs[static_cast<std::size_t>(i)];
        const double ranks = static_cast<double>(r.ranks);
        const double passes = r.op == Collective::all_reduce ? 2.0 : 1.0;
        obs(i) = r.seconds / passes;
        shapes.insert({r.ranks, r.bytes});
        if (!inter) {
            X(i, 0) = ranks - 1.0;
            X(i, 1) = (ranks - 1.0) / ranks * r.bytes;
            y(i) = obs(i);
        } else {
            // ring_link: over k nodes the n−1 ring steps are n−k NVLink steps at the intra α
            // and k−1 network steps; its bus bandwidth is min(intra, ranks_per_node × inter),
            // because NCCL runs one channel per NIC (a rail per GPU). Runs that cross nodes
            // are bound by the NICs, so the cross-node bandwidth B_x a run shows is
            // ranks_per_node × inter: fitting 1/inter against the column S·(n−1)/n /
            // ranks_per_node maps B_x to the calibration's per-GPU inter_node.busbw.
            const double rpn = static_cast<double>(std::max<std::int64_t>(r.ranks_per_node, 1));
            const double k = std::ceil(ranks / rpn);
            X(i, 0) = k - 1.0;
            X(i, 1) = (ranks - 1.0) / ranks * r.bytes / rpn;
            y(i) = obs(i) - st.cal.intra_node.alpha_s * (ranks - k);
        }
    }
    const std::string what = std::to_string(n) + (inter ? " cross-node" : " intra-node") + " collective runs";
    Linear f = linear_fit(X, y, obs, o.condition_limit);
    const auto give_up = [&](const std::string& why) {
        st.unknown(alpha, why);
        st.unknown(busbw, why);
        const VectorXd pred = X.col(0) * get_parameter(st.cal, alpha) + X.col(1) / get_parameter(st.cal, busbw);
        st.record((pred - y).cwiseQuotient(obs), {});
    };
    if (!f.s.ok) {
        give_up(shapes.size() == 1
                    ? "every " + lvl + " collective run has the same rank count and size, so latency and "
                      "bandwidth cannot be separated"
                    : "the " + lvl + " runs' latency and bandwidth terms are proportional (condition number " +
                          fmt(f.s.cond) + "), so latency and bandwidth cannot be separated");
        return;
    }
    if (!(f.s.beta(1) > 0)) {
        give_up("the " + lvl + " runs show no time growing with size (fitted 1/bandwidth <= 0)");
        return;
    }
    if (f.s.beta(0) < 0) {
        // Latency below the noise: fix α = 0 (its physical bound) and fit the bandwidth alone.
        f = linear_fit(X.col(1), y, obs, o.condition_limit);
        const double x = f.s.beta(0);
        st.fitted(alpha, 0.0, "fitted to " + what + ": estimate was negative (latency below the noise), set to 0");
        st.fitted(busbw, 1.0 / x, "fitted to " + what + " with " + alpha + " = 0");
        st.block({busbw}, f.cov.size() ? MatrixXd(f.cov / std::pow(x, 4)) : MatrixXd());
        st.record(f.rel, f.s.leverage);
        return;
    }
    const double a = f.s.beta(0), x = f.s.beta(1);
    st.fitted(alpha, a, "fitted to " + what);
    st.fitted(busbw, 1.0 / x, "fitted to " + what);
    if (inter && st.cal.inter_node.busbw_bytes_per_s * static_cast<double>(runs.front()->ranks_per_node) >=
                     st.cal.intra_node.busbw_bytes_per_s)
        st.coef[busbw].note += "; ranks_per_node × this reaches the intra-node bandwidth, so the step model will "
                               "use the intra-node figure";
    MatrixXd J(2, 2);  // (α, B) = (α, 1/x)
    J << 1.0, 0.0, 0.0, -1.0 / (x * x);
    st.block({alpha, busbw}, f.cov.size() ? MatrixXd(J * f.cov * J.transpose()) : MatrixXd());
    st.record(f.rel, f.s.leverage);
}

// ---- End-to-end steps -------------------------------------------------------------

struct StepCase {
    const ModelSpec* model;
    const ParameterCounts* counts;
    TrainingConfig config;
    double obs;
    int config_id;
    int series_id;
};

double predict(const Calibration& cal, const HardwareProfile& hw, const StepCase& c) {
    return estimate_step_unchecked(*c.model, *c.counts, hw, cal, c.config).step_time_s;
}

struct StepFit {
    double eta = 0, overhead = 0;
    bool with_overhead = false;
    bool eta_at_bound = false;
    std::string overhead_reason;   // why the overhead was not fitted, when it was wanted
    MatrixXd cov;                  // (η_max[, overhead]); empty with no residual dof
    VectorXd rel, leverage;
};

class StepFitter {
public:
    StepFitter(const std::vector<StepCase>& cases, const HardwareProfile& hw, const Calibration& base,
               const FitOptions& o)
        : cases_(cases), hw_(hw), base_(base), o_(o) {}

    StepFit fit(const std::vector<std::size_t>& idx) const {
        std::set<int> configs;
        for (std::size_t i : idx) configs.insert(cases_[i].config_id);
        const bool want = o_.fit_overhead && idx.size() >= 3 && configs.size() >= 2;
        if (idx.size() == 1) return single(idx.front());
        StepFit f = lm(idx, want);
        if (want && !f.with_overhead) {
            const std::string why = f.overhead_reason;
            f = lm(idx, false);
            f.overhead_reason = why;
        } else if (o_.fit_overhead && !want) {
            f.overhead_reason = configs.size() < 2
                                    ? "every step record has the same configuration, so a fixed overhead cannot be "
                                      "told apart from eta_max"
                                    : "fitting a per-step overhead needs at least 3 step records (have " +
                                          std::to_string(idx.size()) + ")";
        }
        return f;
    }

    double predict_with(const StepFit& f, std::size_t i) const {
        Calibration c = base_;
        c.eta_max = f.eta;
        if (f.with_overhead) c.step_overhead_s = f.overhead;
        return predict(c, hw_, cases_[i]);
    }

private:
    // Step time falls monotonically as η_max rises: bisect log η_max on (0, 1].
    StepFit single(std::size_t i) const {
        StepFit f;
        f.overhead = base_.step_overhead_s;
        Calibration c = base_;
        const auto at = [&](double eta) { c.eta_max = eta; return predict(c, hw_, cases_[i]); };
        const double obs = cases_[i].obs;
        double lo = 1e-9, hi = 1.0;
        if (o_.fit_overhead)
            f.overhead_reason = "one step record cannot separate a fixed overhead from eta_max";
        if (at(hi) > obs) {
            lo = hi;
            f.eta_at_bound = true;
        }
        while (hi / lo - 1.0 > 1e-15) {
            const double mid = std::sqrt(lo * hi);
            if (mid <= lo || mid >= hi) break;
            (at(mid) > obs ? lo : hi) = mid;
        }
        f.eta = std::abs(at(lo) - obs) <= std::abs(at(hi) - obs) ? lo : hi;
        f.rel = VectorXd::Constant(1, at(f.eta) / obs - 1.0);
        return f;
    }

    void residuals(const std::vector<std::size_t>& idx, const VectorXd& th, VectorXd& r) const {
        Calibration c = base_;
        c.eta_max = th(0);
        if (th.size() > 1) c.step_overhead_s = th(1);
        for (std::size_t k = 0; k < idx.size(); ++k)
            r(static_cast<Eigen::Index>(k)) = predict(c, hw_, cases_[idx[k]]) / cases_[idx[k]].obs - 1.0;
    }

    // Levenberg–Marquardt on relative residuals, numeric forward-difference Jacobian,
    // steps projected onto η_max ∈ (0, 1], overhead ≥ 0.
    StepFit lm(const std::vector<std::size_t>& idx, bool with_overhead) const {
        const auto n = static_cast<Eigen::Index>(idx.size());
        const Eigen::Index p = with_overhead ? 2 : 1;
        double typical = 0;
        for (std::size_t i : idx) typical += cases_[i].obs / static_cast<double>(n);
        VectorXd th(p), r(n), r2(n), trial(p);
        // Start at the η_max that reproduces the median record exactly: LM then needs a few steps.
        std::vector<std::size_t> order = idx;
        std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(order.size() / 2), order.end(),
                         [&](std::size_t a, std::size_t b) { return cases_[a].obs < cases_[b].obs; });
        th(0) = std::clamp(single(order[order.size() / 2]).eta, 1e-6, 1.0);
        if (with_overhead) th(1) = std::max(base_.step_overhead_s, 0.0);
        const auto project = [&](VectorXd& t) {
            t(0) = std::clamp(t(0), 1e-9, 1.0);
            if (p > 1) t(1) = std::max(t(1), 0.0);
        };
        MatrixXd J(n, p);
        const auto jacobian = [&]() {
            for (Eigen::Index j = 0; j < p; ++j) {
                VectorXd t = th;
                const double h = j == 0 ? 1e-7 * th(0) : 1e-7 * std::max(th(1), 1e-3 * typical);
                t(j) += h;
                residuals(idx, t, r2);
                J.col(j) = (r2 - r) / h;
            }
        };
        residuals(idx, th, r);
        double cost = r.squaredNorm(), lambda = 1e-3;
        bool converged = false;
        for (int it = 0; it < o_.max_iterations && cost > 0; ++it) {
            jacobian();
            const MatrixXd A = J.transpose() * J;
            const VectorXd g = J.transpose() * r;
            bool accepted = false;
            for (; lambda < 1e16; lambda *= 10) {
                MatrixXd M = A;
                M.diagonal() += lambda * A.diagonal() + VectorXd::Constant(p, 1e-300);
                trial = th - M.ldlt().solve(g);
                project(trial);
                residuals(idx, trial, r2);
                if (r2.squaredNorm() < cost) { accepted = true; break; }
            }
            if (!accepted) break;
            // Converged when the step or the cost change is at the level of the numeric
            // Jacobian's own error; J then still describes the optimum.
            const double next = r2.squaredNorm();
            converged = ((trial - th).array().abs() <= 1e-10 * (th.array().abs() + 1e-12 * typical)).all() ||
                        cost - next <= 1e-12 * cost;
            th = trial;
            r = r2;
            cost = next;
            lambda = std::max(lambda / 10, 1e-12);
            if (converged) break;
        }
        if (!converged) jacobian();
        StepFit f;
        f.eta = th(0);
        f.overhead = with_overhead ? th(1) : base_.step_overhead_s;
        f.with_overhead = with_overhead;
        f.eta_at_bound = th(0) >= 1.0;
        f.rel = r;
        const Solve s = solve(J, VectorXd(), o_.condition_limit);
        if (!s.ok) {
            if (with_overhead) {
                f.with_overhead = false;
                f.overhead_reason = "the step records cannot separate a fixed overhead from eta_max (condition number " +
                                    fmt(s.cond) + ")";
            }
            return f;
        }
        f.leverage = s.leverage;
        if (n > p) f.cov = cost / static_cast<double>(n - p) * s.inverse;
        return f;
    }

    const std::vector<StepCase>& cases_;
    const HardwareProfile& hw_;
    const Calibration& base_;
    const FitOptions& o_;
};

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

// Amdahl and USL are linear in transformed coefficients, all ≥ 0: fit every subset of the
// optional columns and keep the best feasible one (at most 4 small solves).
struct Empirical {
    VectorXd beta;  // over all columns; 0 where dropped
    VectorXd rel, leverage;
    bool ok = false;
};

Empirical fit_empirical(const MatrixXd& X, const VectorXd& y, double condition_limit, bool first_required) {
    Empirical best;
    double best_ssr = std::numeric_limits<double>::infinity();
    const auto p = static_cast<int>(X.cols());
    for (int mask = 1; mask < (1 << p); ++mask) {
        if (first_required && !(mask & 1)) continue;
        std::vector<Eigen::Index> cols;
        for (int j = 0; j < p; ++j) if (mask & (1 << j)) cols.push_back(j);
        const MatrixXd Xs = X(Eigen::all, cols);
        const Linear f = linear_fit(Xs, y, y, condition_limit);
        if (!f.s.ok || (f.s.beta.array() < 0).any() || (first_required && !(f.s.beta(0) > 0))) continue;
        const double ssr = f.rel.squaredNorm();
        if (ssr >= best_ssr) continue;
        best_ssr = ssr;
        best.ok = true;
        best.beta = VectorXd::Zero(p);
        for (std::size_t k = 0; k < cols.size(); ++k) best.beta(cols[k]) = f.s.beta(static_cast<Eigen::Index>(k));
        best.rel = f.rel;
        best.leverage = f.s.leverage;
    }
    return best;
}

void compare_families(const std::vector<StepCase>& cases, const StepFitter& fitter, const FitOptions& o,
                      FitResult& out) {
    // The series: step records identical but for the GPU count (and the global batch, so that
    // weak-scaling tables count too); the one with the most distinct GPU counts.
    std::map<int, std::vector<std::size_t>> series;
    for (std::size_t i = 0; i < cases.size(); ++i) series[cases[i].series_id].push_back(i);
    std::vector<std::size_t> idx;
    std::size_t best_counts = 0;
    for (const auto& [id, members] : series) {
        std::set<std::int64_t> counts;
        for (std::size_t i : members) counts.insert(cases[i].config.gpus);
        if (counts.size() > best_counts || (counts.size() == best_counts && members.size() > idx.size())) {
            best_counts = counts.size();
            idx = members;
        }
    }
    const auto n = static_cast<Eigen::Index>(idx.size());
    // Throughput X(N) = B/T. Amdahl, strong scaling T(N) = T1·(s + (1−s)·N1/N), is per
    // token 1/X = a + b/N with a, b ≥ 0. USL X(N) = λN/(1 + σ(N−1) + κN(N−1)) is
    // N/X = c0 + c1(N−1) + c2·N(N−1) with c0 > 0, c1, c2 ≥ 0.
    VectorXd per_token(n), N(n);
    for (Eigen::Index k = 0; k < n; ++k) {
        const StepCase& c = cases[idx[static_cast<std::size_t>(k)]];
        per_token(k) = c.obs / static_cast<double>(c.config.global_batch_tokens);
        N(k) = static_cast<double>(c.config.gpus);
    }
    const auto position = [&](std::size_t i) {
        return static_cast<Eigen::Index>(std::find(idx.begin(), idx.end(), i) - idx.begin());
    };
    const auto design = [&](const std::vector<std::size_t>& rows, bool usl) {
        MatrixXd X(static_cast<Eigen::Index>(rows.size()), usl ? 3 : 2);
        VectorXd y(X.rows());
        for (Eigen::Index r = 0; r < X.rows(); ++r) {
            const Eigen::Index k = position(rows[static_cast<std::size_t>(r)]);
            if (usl) X.row(r) << 1.0, N(k) - 1.0, N(k) * (N(k) - 1.0);
            else X.row(r) << 1.0, 1.0 / N(k);
            y(r) = usl ? N(k) * per_token(k) : per_token(k);
        }
        return std::make_pair(X, y);
    };
    const auto empirical_loo = [&](bool usl) {
        return leave_one_out(
            idx,
            [&](const std::vector<std::size_t>& rest, std::size_t i) {
                const auto [X, y] = design(rest, usl);
                const Empirical e = fit_empirical(X, y, o.condition_limit, usl);
                if (!e.ok) return kNaN;
                const auto [xi, yi] = design({i}, usl);
                return (xi.row(0).dot(e.beta) - yi(0)) / yi(0);
            },
            [&]() {
                const auto [X, y] = design(idx, usl);
                const Empirical e = fit_empirical(X, y, o.condition_limit, usl);
                return e.ok ? std::make_pair(e.rel, e.leverage)
                            : std::make_pair(VectorXd::Constant(n, kNaN), VectorXd::Zero(n));
            });
    };
    const std::string need = "a series of step records differing only in GPU count, with at least ";
    const auto score = [&](const char* family, std::size_t params, std::size_t min_counts, auto loo) {
        FamilyScore s{family, params, kNaN, false, ""};
        if (best_counts < min_counts) {
            s.note = "needs " + need + std::to_string(min_counts) + " distinct GPU counts for leave-one-out (have " +
                     std::to_string(best_counts) + ")";
        } else {
            s.loo_relative_error = loo();
            s.applicable = std::isfinite(s.loo_relative_error);
            s.note = s.applicable ? "over " + std::to_string(idx.size()) + " step records at " +
                                        std::to_string(best_counts) + " GPU counts"
                                  : "the fit failed on a leave-one-out subset";
        }
        out.families.push_back(s);
    };
    score("mechanistic", o.fit_overhead ? 2 : 1, 3, [&] {
        return leave_one_out(
            idx,
            [&](const std::vector<std::size_t>& rest, std::size_t i) {
                return fitter.predict_with(fitter.fit(rest), i) / cases[i].obs - 1.0;
            },
            [&]() {
                const StepFit f = fitter.fit(idx);
                return std::make_pair(f.rel, f.leverage.size() ? f.leverage : VectorXd::Zero(n));
            });
    });
    score("amdahl", 2, 3, [&] { return empirical_loo(false); });
    score("usl", 3, 4, [&] { return empirical_loo(true); });

    const FamilyScore* chosen = nullptr;
    for (const FamilyScore& s : out.families)
        if (s.applicable && (!chosen || s.loo_relative_error < chosen->loo_relative_error)) chosen = &s;
    if (!chosen) {
        out.family_reason = "mechanistic by default: no family could be compared (" + out.families.front().note + ")";
        return;
    }
    out.chosen_family = chosen->family;
    out.family_reason = chosen->family + ": leave-one-out " + percent(chosen->loo_relative_error);
    std::string others;
    for (const FamilyScore& s : out.families)
        if (&s != chosen && s.applicable) others += (others.empty() ? " vs " : ", ") + s.family + " " + percent(s.loo_relative_error);
    out.family_reason += others;
}

void fit_steps(const std::vector<StepCase>& cases, const HardwareProfile& hw, const FitOptions& o, State& st,
               FitResult& out) {
    if (cases.empty()) {
        out.family_reason = "no end-to-end step records";
        return;
    }
    const double gemm_eta = st.coef["eta_max"].fitted ? st.cal.eta_max : kNaN;
    const Calibration base = st.cal;
    const StepFitter fitter(cases, hw, base, o);
    std::vector<std::size_t> idx(cases.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    const StepFit f = fitter.fit(idx);

    const std::string what = std::to_string(cases.size()) + " end-to-end step record" + (cases.size() > 1 ? "s" : "");
    std::string note = cases.size() == 1
                           ? "solved exactly from 1 end-to-end step record; one point gives no uncertainty"
                           : "fitted to " + what + " (Levenberg-Marquardt)";
    if (f.eta_at_bound) note += "; at its bound 1: the steps are faster than the model allows, check the records";
    if (std::isfinite(gemm_eta)) note += "; the GEMM chains alone gave " + fmt(gemm_eta, 4);
    st.fitted("eta_max", f.eta, note);
    std::vector<std::string> names{"eta_max"};
    if (f.with_overhead) {
        st.fitted("step_overhead_s", f.overhead, "fitted to " + what);
        names.push_back("step_overhead_s");
    } else if (!f.overhead_reason.empty()) {
        st.unknown("step_overhead_s", f.overhead_reason);
    }
    if (cases.size() > 1) st.block(names, f.cov);
    st.residuals.insert(st.residuals.end(), f.rel.begin(), f.rel.end());
    if (cases.size() >= 2) {
        const double loo = leave_one_out(
            idx,
            [&](const std::vector<std::size_t>& rest, std::size_t i) {
                return fitter.predict_with(fitter.fit(rest), i) / cases[i].obs - 1.0;
            },
            [&]() { return std::make_pair(f.rel, f.leverage.size() ? f.leverage : VectorXd::Zero(f.rel.size())); });
        // Per-record LOO is folded into the overall mean with the step records' weight.
        st.loo.insert(st.loo.end(), cases.size(), loo);
    }
    compare_families(cases, fitter, o, out);
}

}  // namespace

double get_parameter(const Calibration& c, const std::string& name) {
    return *slot(const_cast<Calibration&>(c), name);
}

void set_parameter(Calibration& c, const std::string& name, double value) { *slot(c, name) = value; }

FitResult fit(const MeasurementSet& data, const HardwareProfile& hw, const Calibration& prior,
              const FitOptions& options) {
    prior.validate();
    std::set<std::string> found;
    std::vector<const GemmRun*> gemm;
    std::vector<const CollectiveRun*> intra, inter;
    for (const GemmRun& g : data.gemm) {
        found.insert(g.hardware);
        if (iequal(g.hardware, hw.name)) gemm.push_back(&g);
    }
    for (const CollectiveRun& c : data.collectives) {
        found.insert(c.hardware);
        if (!iequal(c.hardware, hw.name)) continue;
        (c.ranks <= c.ranks_per_node ? intra : inter).push_back(&c);
    }
    // Models resolved once per name; std::map keeps their addresses stable.
    std::map<std::string, std::unique_ptr<std::pair<ModelSpec, ParameterCounts>>> models;
    std::map<std::tuple<const ModelSpec*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int>, int>
        config_ids, series_ids;
    std::vector<StepCase> steps;
    for (std::size_t i = 0; i < data.steps.size(); ++i) {
        const StepRun& s = data.steps[i];
        found.insert(s.hardware);
        bool match = iequal(s.hardware, hw.name);
        if (!match && s.hardware.find(".json") != std::string::npos) match = iequal(find_hardware(s.hardware).name, hw.name);
        if (!match) continue;
        auto& entry = models[s.model];
        if (!entry) {
            ModelSpec m = find_model(s.model);
            entry = std::make_unique<std::pair<ModelSpec, ParameterCounts>>(m, count_parameters(m));
        }
        try {
            validate_config(entry->first, hw, s.config);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument("step record " + std::to_string(i) + " (" + s.model + "): " + e.what());
        }
        const TrainingConfig& c = s.config;
        const int flags = static_cast<int>(c.strategy) | static_cast<int>(c.activation_checkpointing) << 3 |
                          int{c.reshard_after_forward} << 5 | c.reduce_bytes << 6 | static_cast<int>(c.grad_sync) << 9;
        const std::int64_t gpn = c.gpus_per_node > 0 ? c.gpus_per_node : hw.gpus_per_node;
        const auto id = [](auto& ids, const auto& key) {
            return ids.try_emplace(key, static_cast<int>(ids.size())).first->second;
        };
        steps.push_back({&entry->first, &entry->second, c, s.step_time_s,
                         id(config_ids, std::make_tuple(&entry->first, c.gpus, gpn, c.seq_len, c.micro_batch,
                                                        c.global_batch_tokens, flags)),
                         id(series_ids, std::make_tuple(&entry->first, std::int64_t{0}, gpn, c.seq_len,
                                                        c.micro_batch, std::int64_t{0}, flags))});
    }
    if (gemm.empty() && intra.empty() && inter.empty() && steps.empty()) {
        std::string list;
        for (const auto& h : found) list += (list.empty() ? "" : ", ") + h;
        throw std::invalid_argument("no measurements for hardware '" + hw.name + "'; found: " +
                                    (list.empty() ? "no GEMM, collective or step records" : list));
    }

    State st;
    st.cal = prior;
    st.cal.hardware = hw.name;
    st.cal.kind = "fitted";
    for (const char* n : kNames) st.coef[n] = {n, get_parameter(prior, n), 0.0, false, "kept from the prior (no data for it)"};

    fit_gemm(gemm, hw, options, st);
    fit_level(intra, false, options, st);
    fit_level(inter, true, options, st);
    FitResult out;
    fit_steps(steps, hw, options, st, out);

    out.calibration = st.cal;
    for (const auto& [names, cov] : st.blocks) out.parameters.insert(out.parameters.end(), names.begin(), names.end());
    const auto p = static_cast<Eigen::Index>(out.parameters.size());
    out.covariance = MatrixXd::Zero(p, p);
    Eigen::Index at = 0;
    for (const auto& [names, cov] : st.blocks) {
        out.covariance.block(at, at, cov.rows(), cov.cols()) = cov;
        for (Eigen::Index k = 0; k < cov.rows(); ++k) st.coef[names[static_cast<std::size_t>(k)]].std_error = std::sqrt(cov(k, k));
        at += cov.rows();
    }
    for (const char* n : kNames) {
        Coefficient c = st.coef[n];
        c.value = get_parameter(st.cal, n);
        out.coefficients.push_back(c);
    }
    out.unidentified = st.unidentified;
    out.relative_residuals = st.residuals;
    out.records_used = st.residuals.size();
    double ss = 0;
    for (double r : st.residuals) ss += r * r;
    out.rms_relative_error = out.records_used ? std::sqrt(ss / static_cast<double>(out.records_used)) : kNaN;
    out.loo_relative_error = st.loo.size() >= 2 ? std::accumulate(st.loo.begin(), st.loo.end(), 0.0) /
                                                      static_cast<double>(st.loo.size())
                                                : kNaN;
    return out;
}

}  // namespace libscale
