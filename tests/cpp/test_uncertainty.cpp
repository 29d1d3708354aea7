// P10 / P50 / P90 of projections: against analytic normal quantiles where the model is
// monotone in one coefficient, ordering, consistency between figures, no spread without a
// covariance, determinism per seed, bad input, and speed.
#include <cmath>

#include "libscale/catalog.hpp"
#include "libscale/error.hpp"
#include "libscale/uncertainty.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

constexpr double kZ90 = 1.2815515655446004;  // standard normal 90th percentile

struct Scenario {
    ModelSpec m = find_model("qwen3-32b");
    HardwareProfile hw = find_hardware("b300");
    TrainingConfig base;
    std::vector<std::int64_t> counts{4, 8, 16};
    Job job;
    Scenario() {
        base.gpus_per_node = 8;
        base.seq_len = 8192;
        base.micro_batch = 1;
        base.global_batch_tokens = 1'048'576;
        job.tokens = 1e9;
    }
    CalibrationFile file(std::vector<std::string> names, Eigen::MatrixXd cov) const {
        CalibrationFile f;
        f.calibration = default_calibration(hw);
        f.parameters = std::move(names);
        f.covariance = std::move(cov);
        return f;
    }
    Projection point(const Calibration& c) const { return project(m, hw, c, base, counts, Scaling::strong, job); }
    std::vector<RowQuantiles> quantiles(const CalibrationFile& f, UncertaintyOptions o = {}) const {
        return projection_quantiles(m, hw, f, base, counts, Scaling::strong, job, o);
    }
};

std::vector<const Quantiles*> all(const RowQuantiles& q) {
    return {&q.step_time_s, &q.tokens_per_s, &q.tokens_per_s_per_gpu, &q.wall_time_h,
            &q.gpu_hours,   &q.cost_usd,     &q.energy_kwh};
}

std::vector<double> values(const ProjectionRow& r) {
    return {r.step.step_time_s, r.step.tokens_per_s, r.step.tokens_per_s_per_gpu, r.wall_time_h,
            r.gpu_hours,        r.cost_usd,          r.energy_kwh};
}

// η alone, σ known. The point is compute-bound, so tokens/s is monotone (and nearly
// proportional) in η: its quantiles are the model at η ± 1.2816σ, and to first order
// tokens/s · (1 ± 1.2816σ/η).
TEST(Uncertainty, EtaOnlyGivesTheNormalQuantiles) {
    const Scenario s;
    const double sigma = 0.02;
    Eigen::MatrixXd cov(1, 1);
    cov << sigma * sigma;
    const CalibrationFile f = s.file({"eta_max"}, cov);
    const double eta = f.calibration.eta_max;
    UncertaintyOptions o;
    o.samples = 20000;  // quantile sampling error ≈ 0.012σ
    const std::vector<RowQuantiles> q = s.quantiles(f, o);
    const auto at = [&](double e) {
        Calibration c = f.calibration;
        c.eta_max = e;
        return s.point(c);
    };
    const Projection lo = at(eta - kZ90 * sigma), mid = at(eta), hi = at(eta + kZ90 * sigma);
    ASSERT_EQ(q.size(), 3u);
    for (std::size_t r = 0; r < q.size(); ++r) {
        EXPECT_EQ(q[r].gpus, s.counts[r]);
        const double tps = mid.rows[r].step.tokens_per_s;
        EXPECT_NEAR(q[r].tokens_per_s.p10, lo.rows[r].step.tokens_per_s, 2e-3 * tps);
        EXPECT_NEAR(q[r].tokens_per_s.p50, tps, 2e-3 * tps);
        EXPECT_NEAR(q[r].tokens_per_s.p90, hi.rows[r].step.tokens_per_s, 2e-3 * tps);
        EXPECT_NEAR(q[r].tokens_per_s.p10 / tps, 1 - kZ90 * sigma / eta, 3e-3);
        EXPECT_NEAR(q[r].tokens_per_s.p90 / tps, 1 + kZ90 * sigma / eta, 3e-3);
        // Step time falls as η rises: its P90 is the slow tail, η's P10.
        EXPECT_NEAR(q[r].step_time_s.p90, lo.rows[r].step.step_time_s, 2e-3 * mid.rows[r].step.step_time_s);
        EXPECT_NEAR(q[r].step_time_s.p10, hi.rows[r].step.step_time_s, 2e-3 * mid.rows[r].step.step_time_s);
    }
}

TEST(Uncertainty, QuantilesAreOrderedAndConsistent) {
    const Scenario s;
    Eigen::VectorXd sd(5);
    sd << 0.03, 100.0, 5e-6, 0.2 * 9.4e10, 0.05;
    Eigen::MatrixXd corr = Eigen::MatrixXd::Identity(5, 5);
    corr(0, 4) = corr(4, 0) = -0.6;  // efficiency and overhead trade off in a fit
    corr(2, 3) = corr(3, 2) = 0.3;
    const Eigen::MatrixXd cov = sd.asDiagonal() * corr * sd.asDiagonal();
    CalibrationFile f = s.file(
        {"eta_max", "half_saturation_tokens", "inter_node.alpha_s", "inter_node.busbw_bytes_per_s", "step_overhead_s"},
        cov);
    f.calibration.step_overhead_s = 0.1;
    const std::vector<RowQuantiles> q = s.quantiles(f);
    const double price = s.hw.price_per_gpu_hour_usd;
    for (const RowQuantiles& r : q) {
        for (const Quantiles* x : all(r)) {
            EXPECT_LE(x->p10, x->p50);
            EXPECT_LE(x->p50, x->p90);
            EXPECT_LT(x->p10, x->p90);  // every figure has some spread here
        }
        const double g = static_cast<double>(r.gpus);
        EXPECT_REL(r.gpu_hours.p10, g * r.wall_time_h.p10);
        EXPECT_REL(r.gpu_hours.p50, g * r.wall_time_h.p50);
        EXPECT_REL(r.gpu_hours.p90, g * r.wall_time_h.p90);
        EXPECT_REL(r.cost_usd.p90, price * r.gpu_hours.p90);
        EXPECT_REL(r.tokens_per_s.p50, g * r.tokens_per_s_per_gpu.p50);
    }
}

TEST(Uncertainty, NoSpreadGivesThePointProjection) {
    const Scenario s;
    const Projection p = s.point(default_calibration(s.hw));
    const CalibrationFile none = s.file({}, {});
    const CalibrationFile zero = s.file({"eta_max", "inter_node.busbw_bytes_per_s"}, Eigen::MatrixXd::Zero(2, 2));
    for (const CalibrationFile* f : {&none, &zero}) {
        const std::vector<RowQuantiles> q = s.quantiles(*f);
        ASSERT_EQ(q.size(), p.rows.size());
        for (std::size_t r = 0; r < q.size(); ++r) {
            const auto qs = all(q[r]);
            const auto v = values(p.rows[r]);
            for (std::size_t i = 0; i < v.size(); ++i) {
                EXPECT_EQ(qs[i]->p10, v[i]);
                EXPECT_EQ(qs[i]->p50, v[i]);
                EXPECT_EQ(qs[i]->p90, v[i]);
            }
        }
    }
}

TEST(Uncertainty, DeterministicPerSeed) {
    const Scenario s;
    Eigen::MatrixXd cov(2, 2);
    cov << 4e-4, 0, 0, 1e20;
    const CalibrationFile f = s.file({"eta_max", "inter_node.busbw_bytes_per_s"}, cov);
    UncertaintyOptions a, b;
    b.seed = a.seed + 1;
    const auto q1 = s.quantiles(f, a), q2 = s.quantiles(f, a), q3 = s.quantiles(f, b);
    bool any_different = false;
    for (std::size_t r = 0; r < q1.size(); ++r) {
        const auto x = all(q1[r]), y = all(q2[r]), z = all(q3[r]);
        for (std::size_t i = 0; i < x.size(); ++i) {
            EXPECT_EQ(x[i]->p10, y[i]->p10);
            EXPECT_EQ(x[i]->p90, y[i]->p90);
            EXPECT_NEAR(z[i]->p10, x[i]->p10, 0.01 * x[i]->p10);
            EXPECT_NEAR(z[i]->p90, x[i]->p90, 0.01 * x[i]->p90);
            any_different = any_different || z[i]->p10 != x[i]->p10;
        }
    }
    EXPECT_TRUE(any_different);
}

TEST(Uncertainty, BadInput) {
    const Scenario s;
    Eigen::MatrixXd cov(1, 1);
    cov << 1e-4;
    UncertaintyOptions o;
    o.samples = 0;
    EXPECT_THROW((void)s.quantiles(s.file({"eta_max"}, cov), o), std::invalid_argument);
    EXPECT_THROW((void)s.quantiles(s.file({"eta_max", "step_overhead_s"}, cov)), std::invalid_argument);
    cov(0, 0) = std::nan("");
    EXPECT_THROW((void)s.quantiles(s.file({"eta_max"}, cov)), std::invalid_argument);
    // Memory does not depend on the coefficients: a count that does not fit is an error
    // once, as in project().
    cov(0, 0) = 1e-4;
    EXPECT_THROW((void)projection_quantiles(s.m, s.hw, s.file({"eta_max"}, cov), s.base, {1}, Scaling::strong, s.job),
                 DoesNotFitError);
}

// The shipped derived calibration: ±2.5% (1σ) on the report's 53,000 tokens/s at 16 GPUs.
TEST(Uncertainty, DerivedB300Interval) {
    const Scenario s;
    const CalibrationFile f = read_calibration_file("derived-b300-qwen3-32b", s.hw);
    const std::vector<RowQuantiles> q = s.quantiles(f);
    const RowQuantiles& r16 = q.back();
    ASSERT_EQ(r16.gpus, 16);
    EXPECT_NEAR(r16.tokens_per_s.p50, 53000, 0.005 * 53000);
    EXPECT_NEAR(r16.tokens_per_s.p10, 53000 * (1 - kZ90 * 0.025), 0.005 * 53000);
    EXPECT_NEAR(r16.tokens_per_s.p90, 53000 * (1 + kZ90 * 0.025), 0.005 * 53000);
}

}  // namespace
}  // namespace libscale
