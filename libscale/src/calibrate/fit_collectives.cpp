// Least squares helpers, the fit state, and the collectives' linear fit per link level.
#include <algorithm>
#include <set>
#include <utility>

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
//
// all_to_all records (nccl-tests' alltoall) are fitted too. Inside one node their law is
// all-gather's (ring_time_s, passes = 1). Across nodes it is not a ring: all_to_all_time_s
// times (k−1)·α_intra + (n−k)·α_inter + max((k−1)·S/n / B_intra, (n−k)·S/n / B_inter), k
// GPUs per node, every GPU sending to its node's peers over NVLink and to the rest through
// its own NIC at once. With the intra level fitted first, that is linear in (α_inter,
// 1/B_inter) once it is known which term is the larger, which depends on B_inter alone (not
// on S): taken at the prior's B_inter, then at the fit's until it no longer changes. A run
// bound by NVLink informs α_inter alone (its 1/B_inter column is 0).
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
    std::size_t a2a_runs = 0;        // cross-node all_to_all runs
    std::vector<char> nvlink_bound;  // per run: a cross-node all_to_all that NVLink binds
    // The design at `inter_busbw`, the cross-node bandwidth that decides which link binds
    // a cross-node all_to_all.
    const auto design = [&](double inter_busbw) {
        nvlink_bound.assign(runs.size(), 0);
        a2a_runs = 0;
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
            } else if (r.op == Collective::all_to_all) {
                // all_to_all_time_s's k: the GPUs of the run in one node (< ranks here).
                const double k = static_cast<double>(std::clamp<std::int64_t>(r.ranks_per_node, 1, r.ranks));
                const double share = r.bytes / ranks;
                const double nvlink_s = (k - 1.0) * share / st.cal.intra_node.busbw_bytes_per_s;
                ++a2a_runs;
                X(i, 0) = ranks - k;
                y(i) = obs(i) - st.cal.intra_node.alpha_s * (k - 1.0);
                if ((ranks - k) * share / inter_busbw >= nvlink_s) {
                    X(i, 1) = (ranks - k) * share;
                } else {
                    X(i, 1) = 0.0;
                    y(i) -= nvlink_s;
                    nvlink_bound[static_cast<std::size_t>(i)] = 1;
                }
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
    };
    design(st.cal.inter_node.busbw_bytes_per_s);
    Linear f = linear_fit(X, y, obs, o.condition_limit);
    // Which link binds each cross-node all_to_all, at the fitted B_inter: refit until it holds
    // (a few passes; the sides only change where B_inter crosses B_intra·(n−k)/(k−1)).
    for (int pass = 0; pass < 4 && a2a_runs > 0 && f.s.ok && f.s.beta(1) > 0; ++pass) {
        const std::vector<char> before = std::exchange(nvlink_bound, {});  // design() sets it anew
        design(1.0 / f.s.beta(1));
        if (nvlink_bound == before) break;
        f = linear_fit(X, y, obs, o.condition_limit);
    }
    std::string what = std::to_string(n) + (inter ? " cross-node" : " intra-node") + " collective runs";
    if (a2a_runs > 0) {
        const auto bound = static_cast<std::size_t>(std::count(nvlink_bound.begin(), nvlink_bound.end(), 1));
        what += " (" + std::to_string(a2a_runs) +
                " all_to_all among them, timed by all_to_all_time_s: a latency per peer, each GPU's own NIC" +
                (bound > 0 ? "; " + std::to_string(bound) + " bound by NVLink, which inform the latency alone" : "") +
                ")";
    }
    const auto give_up = [&](const std::string& why) {
        st.unknown(alpha, why);
        st.unknown(busbw, why);
        const VectorXd pred = X.col(0) * get_parameter(st.cal, alpha) + X.col(1) / get_parameter(st.cal, busbw);
        st.record((pred - y).cwiseQuotient(obs), {}, "collective", index);
    };
    if (!f.s.ok && inter && a2a_runs > 0 && (X.col(1).array() == 0.0).all()) {
        give_up("every " + lvl +
                " collective run is an all_to_all that NVLink, not the network, binds, so they do not show the "
                "network's bandwidth");
        return;
    }
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
