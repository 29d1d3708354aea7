// The compute coefficients, by maximum a posteriori over kernel and step records.
//
// Residuals: log(predicted / measured) / relative_error for every record, and
// (θ − θ_prior) / prior_sd for every free coefficient, θ = log(value). Minimized by
// Levenberg–Marquardt with a forward-difference Jacobian and θ kept within each
// coefficient's valid range. At the optimum the posterior covariance of θ is (JᵀJ)⁻¹ (J
// includes the prior rows, so it is always invertible); in natural units D·Σ·D with D =
// diag(value). A coefficient is "identified" when the data narrowed its sd below 0.7 of
// the prior's.
#include <numeric>
#include <set>

#include "fit_detail.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/step_model.hpp"

namespace libscale::detail {

namespace {

constexpr double kIdentified = 0.7;

struct Param {
    std::string name;
    bool log_scale = true;  // θ = log(value); else θ = value with a flat prior
    double prior_theta = 0;
    double prior_sd = 0;    // 0: flat (step_overhead_s)
    double lo = 0, hi = 0;  // bounds on θ
};

class Problem {
public:
    Problem(const KernelRecords& k, const std::vector<StepCase>& steps, const HardwareProfile& hw,
            const Calibration& base, std::vector<Param> params, double rel_err)
        : k_(k), steps_(steps), hw_(hw), base_(base), p_(std::move(params)), sigma_(rel_err) {}

    std::size_t kernel_count() const { return k_.gemm.size() + k_.attention.size() + k_.bandwidth.size(); }
    const std::vector<Param>& params() const { return p_; }

    Calibration at(const VectorXd& th) const {
        Calibration c = base_;
        for (std::size_t j = 0; j < p_.size(); ++j) {
            const double x = th(static_cast<Eigen::Index>(j));
            set_parameter(c, p_[j].name, p_[j].log_scale ? std::exp(x) : x);
        }
        return c;
    }

    double predict_step(const Calibration& c, std::size_t i) const {
        const StepCase& s = steps_[i];
        return estimate_step_unchecked(*s.model, *s.counts, hw_, c, s.config).step_time_s;
    }

    // Relative residuals (pred − obs)/obs of the kernel records, then of the steps `idx`.
    VectorXd relative(const Calibration& c, const std::vector<std::size_t>& idx) const {
        VectorXd r(static_cast<Eigen::Index>(kernel_count() + idx.size()));
        Eigen::Index at = 0;
        // Micro-runs time the kernels alone: the framework efficiency does not apply. A timed
        // copy also pays its launch (kernel_overhead_s), which back-to-back kernels in a step
        // hide under the one before (compute_model.cpp: the max of device and host time); it
        // is what a copy of 128 MiB spends beyond streaming. GEMMs and attention run long
        // enough that the law's own error (wave quantization) is larger than a launch.
        Calibration kernel = c;
        kernel.framework_efficiency = 1.0;
        const double launch = c.kernel_overhead_s;
        for (const GemmRun* g : k_.gemm)
            r(at++) = gemm_time_s(hw_, kernel, g->m, g->n, g->k, g->fp8) / g->seconds - 1.0;
        for (const AttentionRun* a : k_.attention) {
            const double span = a->causal ? 0.5 * a->seq_len : a->seq_len;
            const double pred = attention_time_s(hw_, kernel, a->batch * a->seq_len, a->heads * a->head_dim,
                                                 a->head_dim, span, a->seq_len, a->backward, a->kernel);
            r(at++) = pred / a->seconds - 1.0;
        }
        for (const BandwidthRun* b : k_.bandwidth)
            r(at++) = (launch + memory_time_s(hw_, kernel, b->bytes)) / b->seconds - 1.0;
        for (std::size_t i : idx) r(at++) = predict_step(c, i) / steps_[i].obs - 1.0;
        return r;
    }

    // The whole residual vector: records in log form over their error, then priors.
    void residuals(const VectorXd& th, const std::vector<std::size_t>& idx, VectorXd& r) const {
        const VectorXd rel = relative(at(th), idx);
        std::size_t priors = 0;
        for (const Param& p : p_) priors += p.prior_sd > 0;
        r.resize(rel.size() + static_cast<Eigen::Index>(priors));
        const auto kernels = static_cast<Eigen::Index>(kernel_count());
        for (Eigen::Index i = 0; i < rel.size(); ++i) {
            const double sigma = i < kernels ? sigma_ : steps_[idx[static_cast<std::size_t>(i - kernels)]].sigma;
            r(i) = std::log1p(std::max(rel(i), -1.0 + 1e-12)) / sigma;
        }
        Eigen::Index at_row = rel.size();
        for (std::size_t j = 0; j < p_.size(); ++j)
            if (p_[j].prior_sd > 0)
                r(at_row++) = (th(static_cast<Eigen::Index>(j)) - p_[j].prior_theta) / p_[j].prior_sd;
    }

    struct Solution {
        VectorXd theta;
        MatrixXd cov_theta;  // posterior
        VectorXd leverage;   // of the record rows
        VectorXd rel;        // relative residuals of the record rows
    };

    // Progress: one unit per iteration, the unused ones at once when it converges early.
    Solution solve(const std::vector<std::size_t>& idx, int max_iterations, Progress* progress) const {
        const auto p = static_cast<Eigen::Index>(p_.size());
        VectorXd th(p), trial(p), r, r2;
        for (Eigen::Index j = 0; j < p; ++j)
            th(j) = std::clamp(p_[static_cast<std::size_t>(j)].prior_theta, p_[static_cast<std::size_t>(j)].lo,
                               p_[static_cast<std::size_t>(j)].hi);
        const auto project = [&](VectorXd& t) {
            for (Eigen::Index j = 0; j < p; ++j)
                t(j) = std::clamp(t(j), p_[static_cast<std::size_t>(j)].lo, p_[static_cast<std::size_t>(j)].hi);
        };
        residuals(th, idx, r);
        MatrixXd J(r.size(), p);
        const auto jacobian = [&]() {
            for (Eigen::Index j = 0; j < p; ++j) {
                VectorXd t = th;
                const double h =
                    p_[static_cast<std::size_t>(j)].log_scale ? 1e-6 : 1e-6 * std::max(1e-3, std::abs(th(j)));
                t(j) += h;
                residuals(t, idx, r2);
                J.col(j) = (r2 - r) / h;
            }
        };
        double cost = r.squaredNorm(), lambda = 1e-3;
        std::uint64_t finished = 0;
        for (int it = 0; it < max_iterations; ++it) {
            if (it > 0) {
                progress_add(progress, 1);
                ++finished;
            }
            jacobian();
            MatrixXd A = J.transpose() * J;
            VectorXd g = J.transpose() * r;
            // A coefficient at a bound that the descent direction (−g) would push past is held
            // for this step (projected Levenberg–Marquardt with an active set): solved with it
            // free, the others' step would assume a move the projection then undoes, and the
            // iteration would stall short of the optimum at a point that depends on the order
            // the records were summed in (step_overhead_s at 0 did, tests/cpp/test_properties.cpp).
            for (Eigen::Index j = 0; j < p; ++j) {
                const Param& q = p_[static_cast<std::size_t>(j)];
                if ((th(j) <= q.lo && g(j) > 0) || (th(j) >= q.hi && g(j) < 0)) {
                    A.row(j).setZero();
                    A.col(j).setZero();
                    A(j, j) = 1;
                    g(j) = 0;
                }
            }
            bool accepted = false;
            // Levenberg-Marquardt damping: x10 per rejected trial, so a float counter is exact enough.
            // NOLINTNEXTLINE(clang-analyzer-security.FloatLoopCounter,bugprone-float-loop-counter)
            for (; lambda < 1e12; lambda *= 10) {
                MatrixXd M = A;
                M.diagonal() += lambda * A.diagonal() + VectorXd::Constant(p, 1e-12);
                trial = th - M.ldlt().solve(g);
                project(trial);
                residuals(trial, idx, r2);
                if (r2.squaredNorm() < cost) {
                    accepted = true;
                    break;
                }
            }
            if (!accepted) break;
            const double next = r2.squaredNorm();
            const bool small = (trial - th).cwiseAbs().maxCoeff() < 1e-9 || cost - next <= 1e-12 * cost;
            th = trial;
            r = r2;
            cost = next;
            lambda = std::max(lambda / 10, 1e-12);
            if (small) break;
        }
        progress_add(progress, static_cast<std::uint64_t>(std::max(max_iterations, 0)) - finished);
        jacobian();
        Solution s;
        s.theta = th;
        const MatrixXd info = J.transpose() * J;
        s.cov_theta = info.ldlt().solve(MatrixXd::Identity(p, p));
        const Eigen::Index records = static_cast<Eigen::Index>(kernel_count() + idx.size());
        const MatrixXd Jr = J.topRows(records);
        s.leverage = (Jr * s.cov_theta * Jr.transpose()).diagonal();
        s.rel = relative(at(th), idx);
        return s;
    }

private:
    const KernelRecords& k_;
    const std::vector<StepCase>& steps_;
    const HardwareProfile& hw_;
    const Calibration& base_;
    std::vector<Param> p_;
    double sigma_;
};

// The step-record view the family comparison works with: refit on a subset of steps
// (the kernel records always included) and predict a left-out one.
class StepFitter {
public:
    StepFitter(const Problem& pr, std::size_t kernels, int max_iterations, Progress* progress)
        : pr_(pr), kernels_(kernels), iterations_(max_iterations), progress_(progress) {}
    struct Fit {
        VectorXd theta, rel, leverage;  // rel and leverage of the step rows only
    };
    Fit fit(const std::vector<std::size_t>& idx) const {
        const Problem::Solution s = pr_.solve(idx, iterations_, progress_);
        const auto k = static_cast<Eigen::Index>(kernels_), n = static_cast<Eigen::Index>(idx.size());
        return {s.theta, s.rel.segment(k, n), s.leverage.segment(k, n)};
    }
    double predict_with(const Fit& f, std::size_t i) const {
        const Calibration c = pr_.at(f.theta);
        return pr_.predict_step(c, i);
    }
    std::size_t parameter_count() const { return pr_.params().size(); }

private:
    const Problem& pr_;
    std::size_t kernels_;
    int iterations_;
    Progress* progress_;
};

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
        for (int j = 0; j < p; ++j)
            if (mask & (1 << j)) cols.push_back(j);
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

// The series the family comparison scores: step records identical but for the GPU count
// (and the global batch, so that weak-scaling tables count too); the one with the most
// distinct GPU counts, then the most records.
struct Series {
    std::vector<std::size_t> idx;
    std::size_t gpu_counts = 0;
};
Series longest_series(const std::vector<StepCase>& cases) {
    std::map<int, std::vector<std::size_t>> series;
    for (std::size_t i = 0; i < cases.size(); ++i) series[cases[i].series_id].push_back(i);
    Series best;
    for (const auto& [id, members] : series) {
        std::set<std::int64_t> counts;
        for (std::size_t i : members) counts.insert(cases[i].config.gpus);
        if (counts.size() > best.gpu_counts || (counts.size() == best.gpu_counts && members.size() > best.idx.size())) {
            best.gpu_counts = counts.size();
            best.idx = members;
        }
    }
    return best;
}

// The mechanistic family needs this many distinct GPU counts for its leave-one-out.
constexpr std::size_t kMechanisticMinCounts = 3;

void compare_families(const std::vector<StepCase>& cases, const Series& series, const StepFitter& fitter,
                      const FitOptions& o, FitResult& out) {
    const std::vector<std::size_t>& idx = series.idx;
    const std::size_t best_counts = series.gpu_counts;
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
        return mean_abs(leave_one_out(
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
            }));
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
    score("mechanistic", fitter.parameter_count(), kMechanisticMinCounts, [&] {
        return mean_abs(leave_one_out(
            idx,
            [&](const std::vector<std::size_t>& rest, std::size_t i) {
                return fitter.predict_with(fitter.fit(rest), i) / cases[i].obs - 1.0;
            },
            [&]() {
                const StepFitter::Fit f = fitter.fit(idx);
                return std::make_pair(f.rel, f.leverage);
            }));
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
        if (&s != chosen && s.applicable)
            others += (others.empty() ? " vs " : ", ") + s.family + " " + percent(s.loo_relative_error);
    out.family_reason += others;
}

// Which coefficients the records can move, each with its log-normal prior.
std::vector<Param> free_parameters(const KernelRecords& k, const std::vector<StepCase>& steps, const Calibration& cal,
                                   const FitOptions& o, State& st) {
    std::set<std::string> want;
    std::set<double> gemm_k, att_len, att_dims;
    for (const GemmRun* g : k.gemm) {
        want.insert(g->fp8 ? "gemm.fp8_eta_max" : "gemm.eta_max");
        gemm_k.insert(g->k);
    }
    if (gemm_k.size() >= 2) want.insert("gemm.k_half");
    bool forward = false, backward = false;
    for (const AttentionRun* a : k.attention) {
        (a->backward ? backward : forward) = true;
        att_len.insert(a->seq_len);
        att_dims.insert(a->head_dim);
    }
    if (forward) want.insert("attention.forward_eta_max");
    if (backward) want.insert("attention.backward_eta_max");
    if (att_len.size() >= 2) {
        if (forward) want.insert("attention.forward_half_seq");
        if (backward) want.insert("attention.backward_half_seq");
    }
    if (att_dims.size() >= 2) want.insert("attention.head_dim_half");
    if (!k.bandwidth.empty()) want.insert("hbm_efficiency");
    // A copy's launch is told apart from its streaming rate by copies of several lengths.
    std::set<double> copy_sizes;
    for (const BandwidthRun* b : k.bandwidth) copy_sizes.insert(b->bytes);
    if (copy_sizes.size() >= 2) want.insert("kernel_overhead_s");
    if (!steps.empty()) {
        bool any_fp8 = false, any_bf16 = false;
        for (const StepCase& s : steps) (s.config.precision == Precision::fp8 ? any_fp8 : any_bf16) = true;
        if (any_bf16 || any_fp8) want.insert("gemm.eta_max");  // the output projection is bf16 either way
        if (any_fp8) want.insert("gemm.fp8_eta_max");
        for (const char* n : {"framework_efficiency", "attention.forward_eta_max", "attention.backward_eta_max",
                              "hbm_efficiency", "kernel_overhead_s"})
            want.insert(n);
    }
    std::vector<Param> out;
    for (const CoefficientInfo& info : calibration_coefficients()) {
        if (!want.contains(info.name)) continue;
        const double v = get_parameter(cal, info.name);
        const auto prior = o.prior_log_sd.find(info.name);
        if (prior == o.prior_log_sd.end()) {
            st.unknown(info.name, "the calibration gives it no prior, so it is held at its value");
            continue;
        }
        if (!(v > 0)) {
            st.unknown(info.name, "its prior value is 0, which has no logarithm; give it a positive value to fit it");
            continue;
        }
        Param p;
        p.name = info.name;
        p.prior_theta = std::log(v);
        p.prior_sd = prior->second;
        p.lo = std::log(std::max(info.min, 1e-12) + (info.min_exclusive ? 1e-12 : 0.0));
        p.lo = std::max(p.lo, p.prior_theta - 20.0);
        p.hi = std::isfinite(info.max) ? std::log(info.max) : p.prior_theta + 20.0;
        out.push_back(p);
    }
    // A per-step overhead: flat prior, only when several configurations can separate it.
    std::set<int> configs;
    for (const StepCase& s : steps) configs.insert(s.config_id);
    if (o.fit_overhead && steps.size() >= 3 && configs.size() >= 2) {
        double typical = 0;
        for (const StepCase& s : steps) typical = std::max(typical, s.obs);
        out.push_back({"step_overhead_s", false, cal.step_overhead_s, 0.0, 0.0, 10.0 * typical});
    } else if (o.fit_overhead && !steps.empty()) {
        st.unknown("step_overhead_s", configs.size() < 2
                                          ? "every step record has the same configuration, so a fixed overhead "
                                            "cannot be told apart from the efficiencies"
                                          : "fitting a per-step overhead needs at least 3 step records (have " +
                                                std::to_string(steps.size()) + ")");
    }
    return out;
}

}  // namespace

void fit_compute(const KernelRecords& kernels, const std::vector<StepCase>& steps, const HardwareProfile& hw,
                 const FitOptions& o, State& st, FitResult& out, Progress* progress) {
    if (kernels.gemm.empty() && kernels.attention.empty() && kernels.bandwidth.empty() && steps.empty()) {
        out.family_reason = "no end-to-end step records";
        return;
    }
    const Calibration base = st.cal;
    const std::vector<Param> params = free_parameters(kernels, steps, base, o, st);
    if (params.empty()) return;
    const Problem pr(kernels, steps, hw, base, params, o.relative_error);
    std::vector<std::size_t> idx(steps.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    // Progress: max_iterations per solve, for the solves planned here: the fit, the
    // leave-one-out refits (none beyond kExactLooMax points: leverage instead) and the
    // mechanistic family's (its leave-one-out, or one fit of its series beyond).
    const Series series = longest_series(steps);
    std::size_t solves = 1;
    if (steps.size() >= 2 && steps.size() <= kExactLooMax) solves += steps.size();
    if (!steps.empty() && series.gpu_counts >= kMechanisticMinCounts)
        solves += series.idx.size() <= kExactLooMax ? series.idx.size() : 1;
    progress_start(progress, solves * static_cast<std::uint64_t>(std::max(o.max_iterations, 0)));
    const Problem::Solution s = pr.solve(idx, o.max_iterations, progress);
    st.cal = pr.at(s.theta);

    const std::size_t records = pr.kernel_count() + steps.size();
    const std::string what = std::to_string(records) + " record" + (records == 1 ? "" : "s");
    const auto p = static_cast<Eigen::Index>(params.size());
    VectorXd scale(p);
    std::vector<std::string> names;
    for (Eigen::Index j = 0; j < p; ++j) {
        const Param& q = params[static_cast<std::size_t>(j)];
        const double value = q.log_scale ? std::exp(s.theta(j)) : s.theta(j);
        scale(j) = q.log_scale ? value : 1.0;
        const double sd_theta = std::sqrt(std::max(s.cov_theta(j, j), 0.0));
        Coefficient& c = st.coef[q.name];
        c.name = q.name;
        c.value = value;
        c.fitted = true;
        c.std_error = sd_theta * scale(j);
        c.prior_log_sd = q.prior_sd;
        c.identified = q.prior_sd > 0 ? sd_theta < kIdentified * q.prior_sd : true;
        const bool at_bound = s.theta(j) >= q.hi - 1e-9 || s.theta(j) <= q.lo + 1e-9;
        const double shift = q.prior_sd > 0 ? (s.theta(j) - q.prior_theta) / q.prior_sd : 0.0;
        const std::string unconstrained =
            std::abs(shift) <= 1.0 ? "stays near its prior: the " + what + " barely constrain it"
                                   : "moved " + fmt(shift, 2) + " prior sd, but the " + what + " barely narrow it";
        c.note = (c.identified ? "fitted to " + what : unconstrained) +
                 (q.prior_sd > 0 ? " (log sd " + fmt(sd_theta) + " vs prior " + fmt(q.prior_sd) + ")" : "") +
                 (at_bound ? "; at the bound of its valid range" : "");
        if (!c.identified)
            st.unidentified.push_back(q.name + ": the data barely constrain it (posterior log sd " + fmt(sd_theta) +
                                      " of prior " + fmt(q.prior_sd) + "); " +
                                      (std::abs(shift) <= 1.0
                                           ? "it stays near its prior " + fmt(std::exp(q.prior_theta), 4)
                                           : "it moved from " + fmt(std::exp(q.prior_theta), 4) + " to " +
                                                 fmt(value, 4) + ", weakly determined"));
        names.push_back(q.name);
    }
    st.blocks.emplace_back(names, scale.asDiagonal() * s.cov_theta * scale.asDiagonal());
    // Kernel records have no LOO error: every refit keeps them (they pin the kernel
    // coefficients the steps share), and the fit's mean never counted them.
    const MeasurementSet& data = *kernels.data;
    const auto origin = [&](const char* kind, std::size_t index) {
        st.kinds.emplace_back(kind);
        st.indices.push_back(index);
    };
    for (const GemmRun* g : kernels.gemm) origin("gemm", index_in(data.gemm, g));
    for (const AttentionRun* a : kernels.attention) origin("attention", index_in(data.attention, a));
    for (const BandwidthRun* b : kernels.bandwidth) origin("bandwidth", index_in(data.bandwidth, b));
    for (const StepCase& c : steps) origin("step", c.record);
    for (Eigen::Index i = 0; i < s.rel.size(); ++i) {
        st.residuals.push_back(s.rel(i));
        st.loo_signed.push_back(kNaN);
    }

    if (steps.empty()) return;
    const StepFitter fitter(pr, pr.kernel_count(), o.max_iterations, progress);
    if (steps.size() >= 2) {
        const auto k = static_cast<Eigen::Index>(pr.kernel_count()), n = static_cast<Eigen::Index>(steps.size());
        const VectorXd rel = s.rel.segment(k, n), lev = s.leverage.segment(k, n);
        const std::vector<double> loo = leave_one_out(
            idx,
            [&](const std::vector<std::size_t>& rest, std::size_t i) {
                return fitter.predict_with(fitter.fit(rest), i) / steps[i].obs - 1.0;
            },
            [&]() { return std::make_pair(rel, lev); });
        std::copy(loo.begin(), loo.end(), st.loo_signed.end() - static_cast<std::ptrdiff_t>(loo.size()));
        // The stage's mean once per record: the fit's mean weights it as it always has.
        st.loo.insert(st.loo.end(), steps.size(), mean_abs(loo));
    }
    compare_families(steps, series, fitter, o, out);
}

}  // namespace libscale::detail
