// Least squares helpers, the fit state, and the collectives' linear fit per link level.
#include <set>

#include "fit_detail.hpp"
#include "libscale/estimate/collective.hpp"

namespace libscale::detail {

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

void State::fitted(const std::string& name, double value, std::string note) {
    set_parameter(cal, name, value);
    Coefficient& c = coef[name];
    c.name = name;
    c.value = value;
    c.std_error = kNaN;
    c.fitted = true;
    c.identified = true;
    c.note = std::move(note);
}

void State::unknown(const std::string& name, const std::string& reason) {
    coef[name].note = "kept from the prior: " + reason;
    unidentified.push_back(name + ": " + reason);
}

void State::block(std::vector<std::string> names, MatrixXd cov) {
    if (cov.size() == 0 || !cov.allFinite()) {
        for (const auto& n : names) coef[n].note += "; no residual degrees of freedom, so no uncertainty";
        return;
    }
    blocks.emplace_back(std::move(names), std::move(cov));
}

void State::record(const VectorXd& rel, const VectorXd& leverage, const std::string& kind,
                   const std::vector<std::size_t>& index) {
    for (Eigen::Index i = 0; i < rel.size(); ++i) {
        residuals.push_back(rel(i));
        kinds.push_back(kind);
        indices.push_back(index[static_cast<std::size_t>(i)]);
        // Exact for a linear least-squares fit: the residual of the refit without point i.
        if (leverage.size() == rel.size() && leverage(i) < 1 - 1e-9) {
            loo_signed.push_back(rel(i) / (1 - leverage(i)));
            loo.push_back(std::abs(loo_signed.back()));
        } else {
            loo_signed.push_back(kNaN);
        }
    }
}

// One level of collectives: y = seconds/passes − known = α·c1 + x·c2, fitted as (α, 1/x).
// A level the data cannot identify keeps the prior's values and says why in `unidentified`.
void fit_level(const std::vector<const CollectiveRun*>& runs, const std::vector<CollectiveRun>& all, bool inter,
               const FitOptions& o, State& st) {
    if (runs.empty()) return;
    std::vector<std::size_t> index;
    index.reserve(runs.size());
    for (const CollectiveRun* r : runs) index.push_back(index_in(all, r));
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
        st.record((pred - y).cwiseQuotient(obs), {}, "collective", index);
    };
    if (!f.s.ok) {
        give_up(shapes.size() == 1
                    ? "every " + lvl +
                          " collective run has the same rank count and size, so latency and "
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
        st.record(f.rel, f.s.leverage, "collective", index);
        return;
    }
    const double a = f.s.beta(0), x = f.s.beta(1);
    st.fitted(alpha, a, "fitted to " + what);
    st.fitted(busbw, 1.0 / x, "fitted to " + what);
    if (inter && st.cal.inter_node.busbw_bytes_per_s * static_cast<double>(runs.front()->ranks_per_node) >=
                     st.cal.intra_node.busbw_bytes_per_s)
        st.coef[busbw].note +=
            "; ranks_per_node × this reaches the intra-node bandwidth, so the step model will "
            "use the intra-node figure";
    MatrixXd J(2, 2);  // (α, B) = (α, 1/x)
    J << 1.0, 0.0, 0.0, -1.0 / (x * x);
    st.block({alpha, busbw}, f.cov.size() ? MatrixXd(J * f.cov * J.transpose()) : MatrixXd());
    st.record(f.rel, f.s.leverage, "collective", index);
}

}  // namespace libscale::detail
