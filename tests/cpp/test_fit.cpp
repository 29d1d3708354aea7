// The fitter against known truth: synthetic measurements generated from a known
// calibration (through the laws the model uses: gemm_time_s, attention_time_s,
// memory_time_s, ring_time_s and the step model) plus seeded lognormal noise.
//
// The compute fit is maximum a posteriori (fit_compute.cpp): every record's log residual
// over its relative error (3% by default) and every free coefficient's log-normal prior
// (default-h100.json "prior": gemm 0.1, k_half 1.0, attention 0.25, half lengths 0.5,
// hbm 0.25, framework efficiency 0.3, kernel overhead 1.0). What the tests expect of it:
// kernel records pin the laws, step records the framework efficiency; a coefficient no
// record informs stays at its prior and is not "identified"; the covariance is the
// posterior's, in natural units.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>

#include "libscale/calibrate/fit.hpp"
#include "libscale/calibrate/plausibility.hpp"
#include "libscale/estimate/collective.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/projection.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/error.hpp"
#include "test_scenario.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

struct Synth {
    HardwareProfile hw = find_hardware("h100");  // 989.4 TFLOP/s, 132 SMs, 3.35 TB/s
    Calibration truth, prior;
    std::mt19937_64 rng{42};
    double sigma = 0.03;  // lognormal relative noise
    Synth() {
        prior = default_calibration(hw);
        truth = prior;
        // Kernel laws away from the default's (gemm 0.846 / k_half 295; attention 0.347 /
        // 408, 0.341 / 608; hbm 0.9), by up to a prior sd or so.
        truth.gemm.eta_max = 0.75;
        truth.gemm.k_half = 500;
        truth.gemm.fp8_eta_max = 0.65;
        truth.attention.forward_eta_max = 0.40;
        truth.attention.forward_half_seq = 600;
        truth.attention.backward_eta_max = 0.30;
        truth.attention.backward_half_seq = 900;
        truth.hbm_efficiency = 0.8;
        truth.kernel_overhead_s = 7e-6;  // a timed copy pays one launch (fit_compute.cpp)
        truth.intra_node = {8e-6, 3.6e11};
        truth.inter_node = {20e-6, 4e10};  // 8 rails: 3.2e11 < intra, so the NICs bind
    }
    double noise() { return sigma > 0 ? std::exp(std::normal_distribution<double>(0, sigma)(rng)) : 1.0; }
    // Micro-runs time kernels alone: no framework efficiency (fit_compute.cpp).
    Calibration kernel_truth() const {
        Calibration k = truth;
        k.framework_efficiency = 1.0;
        return k;
    }

    // Outputs in several waves over 132 SMs, K from 256 to 16384 (k_half shows at short
    // K), bf16; fp8 at two K. Each runs past 25 µs, which the fitter would set aside as
    // launch-bound (kLaunchBoundLaunches).
    void gemm(MeasurementSet& m, int reps = 1) {
        const Calibration k = kernel_truth();
        for (int r = 0; r < reps; ++r) {
            for (double mn : {8192.0, 16384.0})
                for (double kk : {256.0, 1024.0, 4096.0, 16384.0})
                    m.gemm.push_back({"h100", mn, 4096, kk, false, gemm_time_s(hw, k, mn, 4096, kk) * noise()});
            for (double kk : {1024.0, 8192.0})
                m.gemm.push_back({"h100", 8192, 8192, kk, true, gemm_time_s(hw, k, 8192, 8192, kk, true) * noise()});
        }
    }
    // Causal FlashAttention, 32 heads of 128, batch 1, six lengths, both passes.
    void attention(MeasurementSet& m) {
        const Calibration k = kernel_truth();
        for (double s : {512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0})
            for (bool backward : {false, true})
                m.attention.push_back({"h100", 1, s, 32, 128, true, backward,
                                       attention_time_s(hw, k, s, 32 * 128, 128, s / 2, s, backward) * noise()});
    }
    void bandwidth(MeasurementSet& m) {
        const Calibration k = kernel_truth();
        for (double bytes : {1e8, 1e9, 4e9, 1.6e10})
            m.bandwidth.push_back({"h100", bytes, (k.kernel_overhead_s + memory_time_s(hw, k, bytes)) * noise()});
    }
    void collectives(MeasurementSet& m, bool inter) {
        const Collective ops[] = {Collective::all_gather, Collective::reduce_scatter, Collective::all_reduce};
        int k = 0;
        for (std::int64_t ranks : inter ? std::vector<std::int64_t>{16, 32, 64} : std::vector<std::int64_t>{2, 4, 8})
            for (double bytes : {1e5, 1e7, 1e9}) {
                const Collective op = ops[k++ % 3];
                const LinkLevel link = ring_link(ranks, 8, truth);
                m.collectives.push_back(
                    {"h100", op, ranks, inter ? 8 : ranks, bytes, ring_time_s(op, bytes, ranks, link) * noise()});
            }
    }
    StepRun step(const std::string& model, std::int64_t gpus, std::int64_t mb, std::int64_t global,
                 const Calibration& cal, std::int64_t seq = 8192) {
        StepRun s;
        s.model = model;
        s.hardware = "h100";
        s.source = "synthetic";
        s.config.gpus = gpus;
        s.config.seq_len = seq;
        s.config.micro_batch = mb;
        s.config.global_batch_tokens = global;
        const ModelSpec m = find_model(model);
        s.step_time_s = estimate_step_unchecked(m, count_parameters(m), hw, cal, s.config).step_time_s * noise();
        return s;
    }
};

const Coefficient& coef(const FitResult& r, const std::string& name) {
    for (const Coefficient& c : r.coefficients)
        if (c.name == name) return c;
    throw std::out_of_range(name);
}

bool mentions(const std::vector<std::string>& list, const std::string& text) {
    for (const std::string& s : list)
        if (s.find(text) != std::string::npos) return true;
    return false;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

// Symmetric, positive semi-definite (on the correlation matrix: the scales differ by 20
// orders of magnitude), and each coefficient's std_error is the root of its variance.
void expect_posterior_covariance(const FitResult& r) {
    const auto n = static_cast<Eigen::Index>(r.parameters.size());
    ASSERT_EQ(r.covariance.rows(), n);
    ASSERT_EQ(r.covariance.cols(), n);
    Eigen::VectorXd sd = r.covariance.diagonal().cwiseSqrt();
    for (Eigen::Index i = 0; i < n; ++i) {
        SCOPED_TRACE(r.parameters[static_cast<std::size_t>(i)]);
        EXPECT_GT(r.covariance(i, i), 0.0);
        EXPECT_REL(coef(r, r.parameters[static_cast<std::size_t>(i)]).std_error, sd(i));
        for (Eigen::Index k = 0; k < n; ++k) EXPECT_NEAR(r.covariance(i, k), r.covariance(k, i), 1e-12 * sd(i) * sd(k));
    }
    const Eigen::MatrixXd corr = sd.cwiseInverse().asDiagonal() * r.covariance * sd.cwiseInverse().asDiagonal();
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(corr).eigenvalues().minCoeff(), -1e-9);
}

const char* const kCollectiveParams[] = {"intra_node.alpha_s", "intra_node.busbw_bytes_per_s", "inter_node.alpha_s",
                                         "inter_node.busbw_bytes_per_s"};
const char* const kKernelParams[] = {"gemm.eta_max",
                                     "gemm.fp8_eta_max",
                                     "gemm.k_half",
                                     "attention.forward_eta_max",
                                     "attention.forward_half_seq",
                                     "attention.backward_eta_max",
                                     "attention.backward_half_seq",
                                     "hbm_efficiency",
                                     "kernel_overhead_s"};

// Power records set the power coefficients to their phase's median and, with the idle,
// hang, starvation and compute phases, the bands; they are measured, not fitted.
TEST(Fit, PowerRecordsAreMeasuredCoefficientsAndBands) {
    const HardwareProfile hw = find_hardware("h100");
    MeasurementSet m;
    const std::map<std::string, std::vector<double>> watts = {{"idle", {70, 72, 74}},
                                                              {"checkpoint_or_deadlock", {110, 120}},
                                                              {"data_starvation", {300}},
                                                              {"communication", {380, 400, 420}},
                                                              {"compute", {650, 660}}};
    for (const auto& [phase, list] : watts)
        for (const double w : list) m.power.push_back({"h100", phase, w});
    m.power.push_back({"b300", "compute", 1300});  // another GPU's: not used
    FitResult f = fit(m, hw, default_calibration(hw));
    EXPECT_DOUBLE_EQ(f.calibration.power_compute_w, 655);
    EXPECT_DOUBLE_EQ(f.calibration.power_comm_w, 400);
    EXPECT_DOUBLE_EQ(f.calibration.power_idle_w, 72);
    const auto coef = std::find_if(f.coefficients.begin(), f.coefficients.end(),
                                   [](const Coefficient& c) { return c.name == "power.comm_w"; });
    ASSERT_NE(coef, f.coefficients.end());
    EXPECT_TRUE(coef->measured);
    EXPECT_FALSE(coef->fitted);
    EXPECT_EQ(coef->note, "median of 3 power records of the communication phase");
    ASSERT_TRUE(f.power_bands.has_value());
    const BandThresholdsW t = thresholds_w(*f.power_bands);
    EXPECT_DOUBLE_EQ(t.idle_max_w, (72 + 115) / 2.0);
    EXPECT_DOUBLE_EQ(t.communication_max_w, (400 + 655) / 2.0);

    // No starvation phase: coefficients, no bands, and the reason.
    std::erase_if(m.power, [](const PowerRecord& p) { return p.phase == "data_starvation"; });
    f = fit(m, hw, default_calibration(hw));
    EXPECT_FALSE(f.power_bands.has_value());
    EXPECT_NE(f.power_bands_note.find("'data_starvation' was not measured"), std::string::npos) << f.power_bands_note;
    EXPECT_DOUBLE_EQ(f.calibration.power_comm_w, 400);
}

TEST(Fit, ParameterNames) {
    Calibration c = test::tiny_calibration();
    set_parameter(c, "inter_node.alpha_s", 3e-6);
    EXPECT_EQ(c.inter_node.alpha_s, 3e-6);
    EXPECT_EQ(get_parameter(c, "intra_node.busbw_bytes_per_s"), 1e12);
    EXPECT_EQ(get_parameter(c, "gemm.eta_max"), 0.5);
    set_parameter(c, "attention.backward_half_seq", 700);
    EXPECT_EQ(c.attention.backward_half_seq, 700);
    try {
        (void)get_parameter(c, "eta_max");  // schema 1's single efficiency is gone
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("gemm.eta_max"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("step_overhead_s"), std::string::npos) << e.what();
    }
}

TEST(Fit, KernelRunsWithoutNoiseRecoverTheLaws) {
    Synth s;
    s.sigma = 0;
    MeasurementSet m;
    s.gemm(m);
    s.attention(m);
    s.bandwidth(m);
    s.collectives(m, false);
    s.collectives(m, true);
    const FitResult r = fit(m, s.hw, s.prior);
    // Collectives: linear least squares, exact.
    for (const char* name : kCollectiveParams) {
        EXPECT_NEAR(get_parameter(r.calibration, name), get_parameter(s.truth, name),
                    1e-9 * get_parameter(s.truth, name))
            << name;
        EXPECT_TRUE(coef(r, name).fitted) << name;
    }
    // Kernel laws: the MAP sits within a hair of the truth (36 exact records at 3% against
    // priors of 10-100%), well inside the posterior sd, and every one is identified.
    for (const char* name : kKernelParams) {
        SCOPED_TRACE(name);
        const Coefficient& c = coef(r, name);
        const double truth = get_parameter(s.truth, name);
        EXPECT_TRUE(c.fitted);
        EXPECT_TRUE(c.identified) << c.note;
        // The launch rests on four copies only, against a prior of sd 1 at 5 µs: 2%.
        EXPECT_NEAR(c.value, truth, (std::string_view(name) == "kernel_overhead_s" ? 0.02 : 0.01) * truth);
        EXPECT_LT(std::abs(c.value - truth), c.std_error);
        EXPECT_EQ(c.prior_value, get_parameter(s.prior, name));
        EXPECT_TRUE(contains(r.parameters, name));
    }
    // One head_dim: head_dim_half is not free and keeps the prior; no step records: the
    // framework efficiency and host overheads are not fitted.
    for (const char* name :
         {"attention.head_dim_half", "framework_efficiency", "layer_overhead_s", "step_overhead_s", "gemm.tile_m"}) {
        SCOPED_TRACE(name);
        EXPECT_FALSE(coef(r, name).fitted);
        EXPECT_FALSE(coef(r, name).identified);
        EXPECT_EQ(get_parameter(r.calibration, name), get_parameter(s.prior, name));
        // Not fitted, yet with an uncertainty: the framework efficiency keeps the default's
        // spread over the shipped step timings (a harness-only calibration is uncalibrated
        // for the trainer).
        EXPECT_EQ(contains(r.parameters, name), std::string(name) == "framework_efficiency");
    }
    const CalibrationFile d = default_calibration_file(s.hw);
    EXPECT_NEAR(coef(r, "framework_efficiency").std_error,
                s.prior.framework_efficiency * std::sqrt(d.covariance(0, 0)) / d.calibration.framework_efficiency,
                1e-12);
    EXPECT_EQ(r.parameters.back(), "framework_efficiency");
    EXPECT_EQ(r.records_used, m.size());
    // The priors' pull leaves residuals of a few tenths of a percent, far inside the 3%.
    EXPECT_LT(r.rms_relative_error, 5e-3);
    EXPECT_TRUE(r.unidentified.empty()) << r.unidentified.front();
    EXPECT_EQ(r.parameters.size(), 14u);  // 13 fitted and the framework efficiency's spread
    EXPECT_TRUE(r.families.empty());      // no step records to compare families on
    expect_posterior_covariance(r);
}

// Bandwidth records are linear in θ = log(hbm_efficiency): log T = log(bytes / 3.35e12) −
// θ. With N exact records at the truth h and the prior's log-normal (h₀, τ), the posterior
// is normal in θ by hand:
//   precision = N/σ² + 1/τ², mean = (N/σ² · log h + 1/τ² · log h₀) / precision
// and the covariance in natural units is value² / precision (delta method).
TEST(Fit, BandwidthPosteriorIsTheConjugateNormalInLogSpace) {
    Synth s;
    s.sigma = 0;
    // No launch, in the records or the prior (0 has no logarithm, so it is held): the law is
    // then linear in θ.
    s.truth.kernel_overhead_s = s.prior.kernel_overhead_s = 0;
    MeasurementSet m;
    s.bandwidth(m);  // N = 4, h = 0.8; prior h₀ = 0.9, τ = 0.25; σ = 0.03
    const FitResult r = fit(m, s.hw, s.prior);
    ASSERT_EQ(r.parameters, (std::vector<std::string>{"hbm_efficiency", "framework_efficiency"}));
    const double precision = 4 / (0.03 * 0.03) + 1 / (0.25 * 0.25);  // 4460.444…
    const double theta = (4 / (0.03 * 0.03) * std::log(0.8) + 16 * std::log(0.9)) / precision;
    const double value = std::exp(theta);  // 0.80034…: pulled a little toward 0.9
    EXPECT_NEAR(r.calibration.hbm_efficiency, value, 1e-7 * value);
    EXPECT_NEAR(r.covariance(0, 0), value * value / precision, 1e-6 * value * value / precision);
    const Coefficient& c = coef(r, "hbm_efficiency");
    EXPECT_NEAR(c.std_error, value / std::sqrt(precision), 1e-6 * value / std::sqrt(precision));
    EXPECT_TRUE(c.identified);  // posterior log sd 0.015 < 0.7 · 0.25
    EXPECT_EQ(c.prior_log_sd, 0.25);
    // Every record is off by the same shrinkage: pred/obs − 1 = 0.8 / value − 1.
    ASSERT_EQ(r.relative_residuals.size(), 4u);
    for (double x : r.relative_residuals) EXPECT_NEAR(x, 0.8 / value - 1, 1e-7);
    // A tighter prior pulls harder: τ = 0.01 gives precision 4444.4 + 10,000.
    FitOptions o;
    o.prior_log_sd = {{"hbm_efficiency", 0.01}};
    const FitResult t = fit(m, s.hw, s.prior, o);
    const double p2 = 4 / (0.03 * 0.03) + 1e4;
    EXPECT_NEAR(t.calibration.hbm_efficiency, std::exp((4 / (0.03 * 0.03) * std::log(0.8) + 1e4 * std::log(0.9)) / p2),
                1e-7);
    EXPECT_EQ(t.prior_log_sd, o.prior_log_sd);
}

TEST(Fit, NoisyKernelRunsWithinPosteriorSd) {
    Synth s;
    MeasurementSet m;
    s.collectives(m, false);
    s.collectives(m, true);
    s.gemm(m, 3);
    s.attention(m);
    s.attention(m);
    s.bandwidth(m);
    const FitResult r = fit(m, s.hw, s.prior);
    ASSERT_EQ(r.covariance.rows(), 14);
    for (const char* name : kCollectiveParams) {
        const Coefficient& c = coef(r, name);
        EXPECT_GT(c.std_error, 0) << name;
        EXPECT_LT(std::abs(c.value - get_parameter(s.truth, name)), 4 * c.std_error) << name;
    }
    for (const char* name : kKernelParams) {
        const Coefficient& c = coef(r, name);
        EXPECT_GT(c.std_error, 0) << name;
        EXPECT_LT(std::abs(c.value - get_parameter(s.truth, name)), 4 * c.std_error) << name;
        EXPECT_TRUE(c.identified) << name;
    }
    EXPECT_NEAR(r.rms_relative_error, 0.03, 0.015);
    expect_posterior_covariance(r);
}

TEST(Fit, GemmRunsAtOneInnerDimensionLeaveKHalfAtItsPrior) {
    Synth s;
    s.sigma = 0;
    MeasurementSet m;
    for (double mn : {2048.0, 4096.0, 8192.0})
        m.gemm.push_back({"h100", mn, mn, 4096, false, gemm_time_s(s.hw, s.kernel_truth(), mn, mn, 4096)});
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_EQ(r.parameters, (std::vector<std::string>{"gemm.eta_max", "framework_efficiency"}));
    EXPECT_TRUE(coef(r, "gemm.eta_max").identified);
    // k_half is not free: the truth's 500 shows only as a lower eta_max, by as much more K as
    // each shape's tiles pay at 500 than at the prior's 295 (a whole wave's tile once, the
    // stream-K remainder three times): 0.67 to 0.71 of the truth's 0.75 at these shapes, and
    // the fit lands at their geometric mean (before the prior's small pull toward its own).
    EXPECT_FALSE(coef(r, "gemm.k_half").fitted);
    EXPECT_FALSE(coef(r, "gemm.k_half").identified);
    EXPECT_EQ(r.calibration.gemm.k_half, s.prior.gemm.k_half);
    double log_eta = 0;
    for (double mn : {2048.0, 4096.0, 8192.0}) {
        Calibration at_prior_k_half = s.kernel_truth();
        at_prior_k_half.gemm.k_half = s.prior.gemm.k_half;
        log_eta += std::log(s.kernel_truth().gemm.eta_max * gemm_time_s(s.hw, at_prior_k_half, mn, mn, 4096) /
                            gemm_time_s(s.hw, s.kernel_truth(), mn, mn, 4096)) /
                   3;
    }
    EXPECT_GT(std::exp(log_eta), 0.66);
    EXPECT_LT(std::exp(log_eta), 0.72);
    EXPECT_NEAR(r.calibration.gemm.eta_max, std::exp(log_eta), 0.006);
    // Attention at one length: the half lengths stay at their priors.
    MeasurementSet a;
    for (bool backward : {false, true})
        for (int rep = 0; rep < 2; ++rep)
            a.attention.push_back({"h100", 2, 4096, 32, 128, true, backward,
                                   attention_time_s(s.hw, s.kernel_truth(), 8192, 4096, 128, 2048, 4096, backward)});
    const FitResult q = fit(a, s.hw, s.prior);
    EXPECT_EQ(q.parameters, (std::vector<std::string>{"attention.forward_eta_max", "attention.backward_eta_max",
                                                      "framework_efficiency"}));
    EXPECT_EQ(q.calibration.attention.forward_half_seq, s.prior.attention.forward_half_seq);
    EXPECT_EQ(q.calibration.attention.backward_half_seq, s.prior.attention.backward_half_seq);
}

TEST(Fit, HeadDimensionsFitHeadDimHalf) {
    // Attention at two head_dims and several lengths: head_dim_half becomes free. Truth 40
    // against the prior's 20.
    Synth s;
    s.sigma = 0;
    s.truth.attention.head_dim_half = 40;
    MeasurementSet m;
    for (double hd : {64.0, 128.0, 256.0})
        for (double len : {1024.0, 4096.0, 16384.0})
            for (bool backward : {false, true})
                m.attention.push_back(
                    {"h100", 1, len, 4096 / hd, hd, true, backward,
                     attention_time_s(s.hw, s.kernel_truth(), len, 4096, hd, len / 2, len, backward)});
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_TRUE(contains(r.parameters, "attention.head_dim_half"));
    EXPECT_TRUE(coef(r, "attention.head_dim_half").identified);
    EXPECT_NEAR(r.calibration.attention.head_dim_half, 40, 0.02 * 40);
    EXPECT_NEAR(r.calibration.attention.forward_eta_max, 0.40, 0.01 * 0.40);
}

TEST(Fit, OneStepRecordMovesMostlyTheFrameworkEfficiency) {
    // The trainer runs at 0.7 of the default laws; one step record of it. The step's time
    // scales as 1/framework_efficiency for all its compute, so that coefficient (prior sd
    // 0.3) takes up the misfit; the kernel coefficients (prior sd 0.1 to 0.25, and each
    // only part of the step) barely move and are reported as not identified.
    Synth s;
    s.sigma = 0;
    Calibration trainer = s.prior;
    trainer.framework_efficiency = 0.7;
    MeasurementSet m;
    m.steps.push_back(s.step("qwen3-1.7b", 8, 2, 8 * 2 * 8192, trainer));
    const FitResult r = fit(m, s.hw, s.prior);
    const Coefficient& fe = coef(r, "framework_efficiency");
    EXPECT_TRUE(fe.fitted);
    EXPECT_TRUE(fe.identified) << fe.note;
    EXPECT_NEAR(fe.value, 0.7, 0.05);
    EXPECT_LT(std::abs(fe.value - 0.7), 2 * fe.std_error);
    for (const char* name : {"gemm.eta_max", "attention.forward_eta_max", "attention.backward_eta_max",
                             "hbm_efficiency", "kernel_overhead_s"}) {
        SCOPED_TRACE(name);
        const Coefficient& c = coef(r, name);
        EXPECT_TRUE(c.fitted);
        EXPECT_FALSE(c.identified) << c.note;
        EXPECT_TRUE(mentions(r.unidentified, name));
        // Moved by less than half its prior sd, and, in prior sds, by less than a third as
        // much as the framework efficiency.
        const double moved = std::abs(std::log(c.value / c.prior_value)) / c.prior_log_sd;
        EXPECT_LT(moved, 0.5);
        EXPECT_LT(moved, std::abs(std::log(fe.value)) / fe.prior_log_sd / 3);
    }
    // Kernel shape coefficients are free only with kernel records.
    EXPECT_FALSE(coef(r, "gemm.k_half").fitted);
    EXPECT_FALSE(coef(r, "attention.forward_half_seq").fitted);
    EXPECT_TRUE(mentions(r.unidentified, "step_overhead_s: every step record has the same configuration"));
    // The fit reproduces its record to well within its 3%.
    const ModelSpec model = find_model("qwen3-1.7b");
    const StepBreakdown b = estimate_step(model, s.hw, r.calibration, m.steps[0].config);
    EXPECT_NEAR(b.step_time_s, m.steps[0].step_time_s, 0.01 * m.steps[0].step_time_s);
    EXPECT_TRUE(std::isnan(r.loo_relative_error));
    ASSERT_EQ(r.families.size(), 3u);
    EXPECT_FALSE(r.families[0].applicable);
    expect_posterior_covariance(r);

    TrainingConfig base = m.steps[0].config;
    base.global_batch_tokens = 16 * 2 * 8192;
    const Projection p =
        project(test::scenario(model, s.hw, r.calibration, base), {1, 2, 4, 8, 16}, Scaling::strong, Job{});
    for (std::size_t i = 1; i < p.rows.size(); ++i) {
        EXPECT_GE(p.rows[i].step.tokens_per_s, p.rows[i - 1].step.tokens_per_s) << p.rows[i].step.gpus;
        EXPECT_LE(p.rows[i].scaling_efficiency, 1.0 + 1e-12) << p.rows[i].step.gpus;
    }
}

TEST(Fit, StepsOfSeveralConfigurationsRecoverFrameworkEfficiencyAndOverhead) {
    // Strong scaling at two micro-batch sizes (8 configurations) of a trainer at 0.7 of the
    // default laws with 50 ms per step nothing else explains; everything else as the prior.
    // Step records alone cannot tell the framework efficiency from the kernel laws' maxima
    // (each kernel runs at their product): the priors share the misfit out, mostly to the
    // framework efficiency (log sd 0.3 against 0.1-0.25), so each coefficient lands within
    // its posterior sd of the truth rather than on it.
    Synth s;
    s.sigma = 0;
    Calibration trainer = s.prior;
    trainer.framework_efficiency = 0.7;
    trainer.step_overhead_s = 0.05;
    MeasurementSet m;
    for (std::int64_t mb : {1, 2})
        for (std::int64_t gpus : {8, 16, 32, 64}) m.steps.push_back(s.step("llama-3.1-8b", gpus, mb, 1 << 21, trainer));
    const FitResult r = fit(m, s.hw, s.prior);
    const Coefficient& fe = coef(r, "framework_efficiency");
    EXPECT_TRUE(fe.identified);
    EXPECT_NEAR(fe.value, 0.7, 0.05);
    EXPECT_TRUE(contains(r.parameters, "step_overhead_s"));
    for (const std::string& name : r.parameters) {
        const Coefficient& c = coef(r, name);
        EXPECT_GT(c.std_error, 0.0) << name;
        EXPECT_LE(std::abs(c.value - get_parameter(trainer, name)), c.std_error) << name;
    }
    // What the records do pin, their step times: reproduced to a fraction of their 3%.
    EXPECT_LT(r.rms_relative_error, 2e-3);
    ASSERT_EQ(r.relative_residuals.size(), 8u);
    for (double x : r.relative_residuals) EXPECT_LT(std::abs(x), 3e-3);
    // One series per micro-batch size; every family can be compared, and the mechanistic
    // model predicts left-out GPU counts to well within the records' error.
    ASSERT_EQ(r.families.size(), 3u);
    for (const FamilyScore& f : r.families) EXPECT_TRUE(f.applicable) << f.family << ": " << f.note;
    EXPECT_LT(r.families[0].loo_relative_error, 0.01);
    EXPECT_LT(r.loo_relative_error, 0.01);
    expect_posterior_covariance(r);
}

TEST(Fit, StepRecordsWithTheirPeakMemorySetTheMemoryCoefficients) {
    // Four configurations whose allocated peaks are the model's own times 1.00, 1.04, 0.98
    // and 1.01, two of them with a reserved peak 8 % and 12 % above the allocated one.
    Synth s;
    s.sigma = 0;
    MeasurementSet m;
    const double off[] = {1.00, 1.04, 0.98, 1.01};
    const double reserved_share[] = {0.08, 0.12, 0, 0};
    int k = 0;
    for (std::int64_t gpus : {8, 16, 32, 64}) {
        StepRun r = s.step("llama-3.1-8b", gpus, 1, 1 << 21, s.prior);
        const ModelSpec model = find_model("llama-3.1-8b");
        const double allocated =
            estimate_step_unchecked(model, count_parameters(model), s.hw, s.prior, r.config).memory.allocated_gib;
        r.memory_gib = allocated * off[k];
        r.memory_kind = "allocated";
        if (reserved_share[k] > 0) r.memory_reserved_gib = r.memory_gib * (1 + reserved_share[k]);
        m.steps.push_back(r);
        ++k;
    }
    const FitResult r = fit(m, s.hw, s.prior);
    // The allocator's share: the median of 0.08 and 0.12.
    const Coefficient& frag = coef(r, "fragmentation");
    EXPECT_TRUE(frag.measured);
    EXPECT_NEAR(frag.value, 0.10, 1e-12);
    EXPECT_NEAR(r.calibration.fragmentation, 0.10, 1e-12);
    // The margin: the largest error over the records, like with like. Allocated: 1/1.04 − 1
    // = −3.85 %; reserved: 1.1 / (1.04 · 1.12) − 1 = −5.56 % and 1.1 / 1.08 − 1 = +1.85 %.
    const Coefficient& margin = coef(r, "memory_margin");
    EXPECT_TRUE(margin.measured);
    EXPECT_NEAR(margin.value, 1 - 1.1 / (1.04 * 1.12), 1e-9);
    EXPECT_NE(margin.note.find("over 4 step records"), std::string::npos) << margin.note;
    // Never below the records' own relative error (3 % by default): without the reserved
    // peaks and the 4 % record, the errors are 0, 1 / 0.98 − 1 = 2.04 % and −0.99 %.
    for (StepRun& x : m.steps) x.memory_reserved_gib = 0;
    m.steps[1].memory_gib = 0;
    const FitResult tight = fit(m, s.hw, s.prior);
    EXPECT_DOUBLE_EQ(coef(tight, "memory_margin").value, 0.03);
    EXPECT_FALSE(coef(tight, "fragmentation").measured);
    // Fewer than three records with memory: the prior's margin is kept.
    m.steps[2].memory_gib = 0;
    const FitResult few = fit(m, s.hw, s.prior);
    EXPECT_FALSE(coef(few, "memory_margin").measured);
    EXPECT_DOUBLE_EQ(few.calibration.memory_margin, s.prior.memory_margin);
}

TEST(Fit, ReportsItsIterationsToAProgress) {
    // Eight step records (two series of four GPU counts): the fit, its eight leave-one-out
    // refits and the mechanistic family's four, max_iterations each at most.
    Synth s;
    s.sigma = 0;
    Calibration trainer = s.prior;
    trainer.framework_efficiency = 0.7;
    MeasurementSet m;
    for (std::int64_t mb : {1, 2})
        for (std::int64_t gpus : {8, 16, 32, 64}) m.steps.push_back(s.step("llama-3.1-8b", gpus, mb, 1 << 21, trainer));
    FitOptions o;
    o.max_iterations = 40;
    Progress p;
    const FitResult with = fit(m, s.hw, s.prior, o, &p);
    EXPECT_EQ(p.total.load(), (1u + 8u + 4u) * 40u);
    EXPECT_EQ(p.done.load(), p.total.load());
    const FitResult without = fit(m, s.hw, s.prior, o);
    EXPECT_EQ(with.parameters, without.parameters);
    EXPECT_EQ(with.relative_residuals, without.relative_residuals);
    EXPECT_EQ(with.loo_relative_error, without.loo_relative_error);
    for (const std::string& name : with.parameters)
        EXPECT_EQ(get_parameter(with.calibration, name), get_parameter(without.calibration, name)) << name;

    Progress cancelled;
    cancelled.cancel = true;
    EXPECT_THROW(fit(m, s.hw, s.prior, o, &cancelled), Cancelled);
}

// Attention records name their kernel; the fitted law is that kernel's, the prior's FA2 law
// carried to its scale first, and records of two kernels are refused.
TEST(Fit, AttentionRecordsOfOneKernelGiveThatKernelsLaw) {
    Synth s;
    s.sigma = 0;
    MeasurementSet m;
    s.attention(m);
    for (AttentionRun& a : m.attention) a.kernel = AttentionKernel::cudnn;
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_EQ(r.calibration.attention_kernel, AttentionKernel::cudnn);
    // The records were made by the truth's law, so the fit recovers it, now as cuDNN's.
    EXPECT_NEAR(r.calibration.attention.forward_eta_max, s.truth.attention.forward_eta_max,
                0.01 * s.truth.attention.forward_eta_max);
    // The prior it started from: the default FA2 maximum × 1.607.
    EXPECT_NEAR(coef(r, "attention.forward_eta_max").prior_value, s.prior.attention.forward_eta_max * 1.607, 1e-12);
    // The fitted calibration predicts cuDNN at the law and FA2 below it.
    const double cudnn =
        attention_time_s(s.hw, r.calibration, 4096, 4096, 128, 2048, 4096, false, AttentionKernel::cudnn);
    const double fa2 = attention_time_s(s.hw, r.calibration, 4096, 4096, 128, 2048, 4096, false);
    EXPECT_GT(fa2, 1.3 * cudnn);
    m.attention.front().kernel = AttentionKernel::flash2;
    try {
        (void)fit(m, s.hw, s.prior);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("two kernels"), std::string::npos) << e.what();
    }
}

// Copies that stay in L2 and GEMMs of a few launches are set aside, each with a note.
TEST(Fit, CacheResidentCopiesAndLaunchBoundGemmsAreSetAside) {
    Synth s;
    s.sigma = 0;
    MeasurementSet m;
    s.bandwidth(m);
    s.gemm(m);
    const std::size_t fitted = m.size();
    m.bandwidth.push_back({"h100", 8.0 * 1048576, 6.6e-6});  // 1.27 TB/s: L2 and launch
    m.bandwidth.push_back({"h100", kCacheResidentCopyBytes, 1.4e-5});
    m.gemm.push_back({"h100", 512, 1024, 5120, false, 14e-6});  // under 5 launches of 5 µs
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_EQ(r.records_used, fitted);
    ASSERT_EQ(r.notes.size(), 2u);
    EXPECT_NE(r.notes[0].find("2 bandwidth records of at most 64 MiB"), std::string::npos) << r.notes[0];
    EXPECT_NE(r.notes[1].find("1 GEMM record shorter than 25 µs"), std::string::npos) << r.notes[1];
    EXPECT_NEAR(r.calibration.hbm_efficiency, s.truth.hbm_efficiency, 0.01 * s.truth.hbm_efficiency);
}

TEST(Fit, KernelAndStepRecordsTogether) {
    // Kernel micro-runs pin the laws; step records then measure the trainer against them.
    Synth s;
    s.sigma = 0;
    MeasurementSet m;
    s.gemm(m);
    s.attention(m);
    s.bandwidth(m);
    Calibration trainer = s.truth;
    trainer.framework_efficiency = 0.8;
    for (std::int64_t gpus : {8, 16, 32}) m.steps.push_back(s.step("llama-3.1-8b", gpus, 1, 1 << 20, trainer));
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_NEAR(r.calibration.framework_efficiency, 0.8, 0.01 * 0.8);
    for (const char* name :
         {"gemm.eta_max", "attention.forward_eta_max", "attention.backward_eta_max", "hbm_efficiency"})
        EXPECT_NEAR(get_parameter(r.calibration, name), get_parameter(s.truth, name),
                    0.01 * get_parameter(s.truth, name))
            << name;
    EXPECT_TRUE(coef(r, "framework_efficiency").identified);
    EXPECT_EQ(r.records_used, m.size());
}

TEST(Fit, LeaveOneOutPerRecordIsTheRefitWithoutIt) {
    // Noisy collectives (one level), bandwidth micro-runs and five step records, each list
    // led by a record of other hardware that the fit skips. A step's leave-one-out error is
    // the prediction of the fit without it; a collective's, r/(1 − leverage), equals that
    // too, its fit being linear; micro-runs get none.
    Synth s;
    Calibration trainer = s.prior;
    trainer.framework_efficiency = 0.7;
    trainer.step_overhead_s = 0.05;
    MeasurementSet m;
    s.collectives(m, false);
    s.bandwidth(m);
    for (std::int64_t gpus : {8, 16, 32, 64}) m.steps.push_back(s.step("llama-3.1-8b", gpus, 1, 1 << 21, trainer));
    m.steps.push_back(s.step("llama-3.1-8b", 16, 2, 1 << 21, trainer));
    m.collectives.insert(m.collectives.begin(), m.collectives.front());
    m.collectives.front().hardware = "a100";
    m.steps.insert(m.steps.begin(), m.steps.front());
    m.steps.front().hardware = "a100";
    const FitResult r = fit(m, s.hw, s.prior);

    const std::size_t n = r.relative_residuals.size();
    ASSERT_EQ(n, 9u + 4u + 5u);
    ASSERT_EQ(r.loo_relative_errors.size(), n);
    ASSERT_EQ(r.record_kinds.size(), n);
    ASSERT_EQ(r.record_indices.size(), n);
    std::map<std::string, std::vector<std::size_t>> by_kind;
    for (std::size_t i = 0; i < n; ++i) by_kind[r.record_kinds[i]].push_back(r.record_indices[i]);
    EXPECT_EQ(by_kind["collective"], (std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
    EXPECT_EQ(by_kind["bandwidth"], (std::vector<std::size_t>{0, 1, 2, 3}));
    EXPECT_EQ(by_kind["step"], (std::vector<std::size_t>{1, 2, 3, 4, 5}));
    EXPECT_EQ(by_kind.size(), 3u);
    EXPECT_EQ(r.record_kinds.front(), "collective");
    EXPECT_EQ(r.record_kinds.back(), "step");

    double sum = 0;
    std::size_t finite = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double loo = r.loo_relative_errors[i];
        const std::size_t at = r.record_indices[i];
        if (r.record_kinds[i] == "bandwidth") {
            EXPECT_TRUE(std::isnan(loo)) << i;
            continue;
        }
        ASSERT_TRUE(std::isfinite(loo)) << i;
        sum += std::abs(loo);
        ++finite;
        MeasurementSet rest = m;
        double predicted = 0, observed = 0;
        if (r.record_kinds[i] == "step") {
            rest.steps.erase(rest.steps.begin() + static_cast<std::ptrdiff_t>(at));
            const StepRun& left = m.steps[at];
            const ModelSpec model = find_model(left.model);
            predicted = estimate_step_unchecked(model, count_parameters(model), s.hw,
                                                fit(rest, s.hw, s.prior).calibration, left.config)
                            .step_time_s;
            observed = left.step_time_s;
        } else {
            rest.collectives.erase(rest.collectives.begin() + static_cast<std::ptrdiff_t>(at));
            const CollectiveRun& left = m.collectives[at];
            const Calibration cal = fit(rest, s.hw, s.prior).calibration;
            predicted = ring_time_s(left.op, left.bytes, left.ranks, ring_link(left.ranks, left.ranks_per_node, cal));
            observed = left.seconds;
        }
        EXPECT_NEAR(loo, predicted / observed - 1.0, 1e-9) << r.record_kinds[i] << " " << at;
        if (r.record_kinds[i] == "collective") {  // leverage in [0, 1): never below the residual
            EXPECT_GE(std::abs(loo), std::abs(r.relative_residuals[i])) << i;
        }
    }
    EXPECT_EQ(finite, 9u + 5u);
    EXPECT_NEAR(sum / static_cast<double>(finite), r.loo_relative_error, 1e-12);
}

// Over seeded trials the 80% interval (value ± 1.2816 σ) covers the truth in 70–90%.
// Kernel and collective micro-runs: a fixed truth, many records, priors that barely pull.
// Step records: a trainer drawn from the prior the fitter uses (the Bayesian check; a
// truth at the prior's mean would be covered more often than 80%), draws beyond a
// coefficient's valid range redrawn.
TEST(Fit, EightyPercentIntervalsCoverTheTruth) {
    Synth s;
    const char* names[] = {"gemm.eta_max", "gemm.k_half", "intra_node.alpha_s", "intra_node.busbw_bytes_per_s"};
    int covered[4] = {0, 0, 0, 0};
    const int trials = 200;
    for (int t = 0; t < trials; ++t) {
        s.rng.seed(1000 + static_cast<std::uint64_t>(t));
        MeasurementSet m;
        s.gemm(m);
        s.collectives(m, false);
        const FitResult r = fit(m, s.hw, s.prior);
        for (int k = 0; k < 4; ++k) {
            const Coefficient& c = coef(r, names[k]);
            covered[k] += std::abs(c.value - get_parameter(s.truth, names[k])) <= 1.2816 * c.std_error;
        }
    }
    for (int k = 0; k < 4; ++k) {
        EXPECT_GE(covered[k], 0.70 * trials) << names[k];
        EXPECT_LE(covered[k], 0.90 * trials) << names[k];
    }

    const std::map<std::string, double> prior_sd = default_priors(s.hw);
    const char* const drawn[] = {"framework_efficiency", "gemm.eta_max", "attention.forward_eta_max",
                                 "attention.backward_eta_max", "hbm_efficiency"};
    FitOptions o;
    o.fit_overhead = false;  // the trainer has no per-step overhead
    std::normal_distribution<double> z(0, 1);
    s.rng.seed(5);
    int step_trials = 0, fe_covered = 0;
    for (int t = 0; t < 300; ++t) {
        Calibration trainer = s.prior;
        for (const char* name : drawn)
            set_parameter(trainer, name, get_parameter(s.prior, name) * std::exp(prior_sd.at(name) * z(s.rng)));
        try {
            trainer.validate();
        } catch (const std::invalid_argument&) {
            continue;
        }
        MeasurementSet steps;
        for (std::int64_t gpus : {8, 32}) steps.steps.push_back(s.step("qwen3-1.7b", gpus, 1, 1 << 20, trainer));
        const FitResult e = fit(steps, s.hw, s.prior, o);
        const Coefficient& c = coef(e, "framework_efficiency");
        fe_covered += std::abs(c.value - trainer.framework_efficiency) <= 1.2816 * c.std_error;
        ++step_trials;
    }
    ASSERT_GT(step_trials, 150);
    EXPECT_GE(fe_covered, 0.70 * step_trials) << "framework_efficiency";
    EXPECT_LE(fe_covered, 0.90 * step_trials) << "framework_efficiency";
}

TEST(Fit, OneSizeOneRankCountIsUnidentified) {
    Synth s;
    MeasurementSet m;
    for (int i = 0; i < 5; ++i)
        m.collectives.push_back({"H100", Collective::all_gather, 8, 8, 1e8,
                                 ring_time_s(Collective::all_gather, 1e8, 8, s.truth.intra_node) * s.noise()});
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_TRUE(
        mentions(r.unidentified, "intra_node.alpha_s: every intra_node collective run has the same rank count"));
    EXPECT_TRUE(mentions(r.unidentified, "intra_node.busbw_bytes_per_s"));
    EXPECT_EQ(r.calibration.intra_node.alpha_s, s.prior.intra_node.alpha_s);
    EXPECT_EQ(r.calibration.intra_node.busbw_bytes_per_s, s.prior.intra_node.busbw_bytes_per_s);
    EXPECT_FALSE(coef(r, "intra_node.alpha_s").fitted);
    EXPECT_EQ(r.parameters, std::vector<std::string>{"framework_efficiency"});  // the default's spread alone
}

// all_to_all records (nccl-tests alltoall): inside a node the all-gather law, across nodes
// all_to_all_time_s, (k−1)·α_intra + (n−k)·α_inter + max((k−1)·S/n / B_intra, (n−k)·S/n /
// B_inter), which is not a ring: fitted as a ring they would put the network 4-8x too slow.
TEST(Fit, AllToAllRecordsAcrossNodesFitTheNetworkByTheirOwnLaw) {
    Synth s;
    s.sigma = 0;
    MeasurementSet m;
    for (std::int64_t ranks : {2, 4, 8})
        for (double bytes : {1e5, 1e7, 1e9})
            m.collectives.push_back(
                {"h100", Collective::all_to_all, ranks, ranks, bytes, all_to_all_time_s(bytes, ranks, ranks, s.truth)});
    for (std::int64_t ranks : {16, 32, 64})
        for (double bytes : {1e5, 1e7, 1e9})
            m.collectives.push_back(
                {"h100", Collective::all_to_all, ranks, 8, bytes, all_to_all_time_s(bytes, ranks, 8, s.truth)});
    // 16 ranks, 1e9 B: 8 · 62.5e6 / 4e10 = 12.5 ms through each NIC, where the ring of the
    // same S over the 8 NICs together takes 15/16 · 1e9 / 3.2e11 = 2.9 ms.
    EXPECT_GT(all_to_all_time_s(1e9, 16, 8, s.truth),
              4 * ring_time_s(Collective::all_gather, 1e9, 16, ring_link(16, 8, s.truth)));
    const auto exact = [&](const FitResult& r) {
        for (const char* name : kCollectiveParams) {
            EXPECT_NEAR(get_parameter(r.calibration, name), get_parameter(s.truth, name),
                        1e-9 * get_parameter(s.truth, name))
                << name;
            EXPECT_TRUE(coef(r, name).fitted) << name;
        }
        EXPECT_LT(r.rms_relative_error, 1e-9);
    };
    // all_to_all alone identifies both levels...
    const FitResult alone = fit(m, s.hw, s.prior);
    exact(alone);
    EXPECT_EQ(coef(alone, "inter_node.busbw_bytes_per_s").note,
              "fitted to 9 cross-node collective runs (9 all_to_all among them, timed by all_to_all_time_s: a "
              "latency per peer, each GPU's own NIC)");
    EXPECT_EQ(coef(alone, "intra_node.busbw_bytes_per_s").note, "fitted to 9 intra-node collective runs");
    // ...and with the rings beside it, both laws are fitted together.
    s.collectives(m, false);
    s.collectives(m, true);
    const FitResult both = fit(m, s.hw, s.prior);
    exact(both);
    EXPECT_EQ(both.records_used, m.size());
}

// Which link binds a cross-node all-to-all depends on the network's bandwidth alone: here
// NVLink at 1e11 B/s and NICs at 2e11 B/s per GPU, so 16 ranks (8 per node) are bound by
// NVLink (7 / 1e11 > 8 / 2e11 s per share) and 24 and 32 by the NICs (16 / 2e11 > 7 / 1e11).
// The prior's NICs (0.94 × 50 GB/s) would say all of them; the fit settles it at its own.
TEST(Fit, AllToAllBoundByNvlinkInformsTheNetworkLatencyAlone) {
    Synth s;
    s.sigma = 0;
    s.truth.intra_node = {8e-6, 1e11};
    s.truth.inter_node = {20e-6, 2e11};
    MeasurementSet m;
    s.collectives(m, false);
    for (std::int64_t ranks : {16, 24, 32})
        for (double bytes : {1e5, 1e7, 1e9})
            m.collectives.push_back(
                {"h100", Collective::all_to_all, ranks, 8, bytes, all_to_all_time_s(bytes, ranks, 8, s.truth)});
    const FitResult r = fit(m, s.hw, s.prior);
    for (const char* name : kCollectiveParams)
        EXPECT_NEAR(get_parameter(r.calibration, name), get_parameter(s.truth, name),
                    1e-9 * get_parameter(s.truth, name))
            << name;
    EXPECT_EQ(coef(r, "inter_node.alpha_s").note,
              "fitted to 9 cross-node collective runs (9 all_to_all among them, timed by all_to_all_time_s: a "
              "latency per peer, each GPU's own NIC; 3 bound by NVLink, which inform the latency alone)");
    // Only NVLink-bound ones: the network's bandwidth is not shown, and the level says so.
    MeasurementSet nvlink;
    s.collectives(nvlink, false);
    for (double bytes : {1e5, 1e7, 1e9})
        nvlink.collectives.push_back(
            {"h100", Collective::all_to_all, 16, 8, bytes, all_to_all_time_s(bytes, 16, 8, s.truth)});
    s.prior.inter_node.busbw_bytes_per_s = 2e11;  // a prior that knows the NICs are fast
    const FitResult n = fit(nvlink, s.hw, s.prior);
    EXPECT_TRUE(mentions(n.unidentified,
                         "inter_node.busbw_bytes_per_s: every inter_node collective run is an "
                         "all_to_all that NVLink, not the network, binds"))
        << n.unidentified.front();
    EXPECT_EQ(n.calibration.inter_node.busbw_bytes_per_s, 2e11);
}

// Bus bandwidth of an all-to-all is all-gather's, (n−1)/n · S / t (nccl-tests
// src/alltoall.cu, AlltoAllGetBw).
TEST(Fit, ImpossibleAllToAllRecordsAreRefused) {
    Synth s;
    // 8 GPUs of one node, 1e9 B in 1e9 · 7/8 / (100 × 450e9) s: busbw 100 x NVLink's one way.
    MeasurementSet c;
    c.collectives.push_back(
        {"h100", Collective::all_to_all, 8, 8, 1e9, 1e9 * 7.0 / 8.0 / (100 * s.hw.nvlink_bytes_per_s_unidir())});
    try {
        check_plausible(c, s.hw);
        ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("collective record 0 (all_to_all) ran at 4.5e+04 GB/s, 100 x one "
                                             "direction of NVLink of h100 (450 GB/s"),
                  std::string::npos)
            << e.what();
    }
    // Across nodes at the default calibration's law: accepted, though its bus bandwidth,
    // 15/8 × the NIC's, is above the cross-node ring's per-GPU figure.
    c.collectives[0] = {"h100", Collective::all_to_all, 16, 8, 1e9, all_to_all_time_s(1e9, 16, 8, s.prior)};
    EXPECT_NO_THROW(check_plausible(c, s.hw));
    // 100 x faster across nodes: refused as well.
    c.collectives[0].seconds /= 100;
    EXPECT_THROW(check_plausible(c, s.hw), std::invalid_argument);
}

TEST(Fit, AllStepsAtOneConfigurationLeaveOverheadUnidentified) {
    Synth s;
    MeasurementSet m;
    for (int i = 0; i < 4; ++i) m.steps.push_back(s.step("llama-3.1-8b", 8, 1, 1 << 20, s.prior));
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_TRUE(mentions(r.unidentified, "step_overhead_s: every step record has the same configuration"));
    EXPECT_FALSE(contains(r.parameters, "step_overhead_s"));
    EXPECT_TRUE(contains(r.parameters, "framework_efficiency"));
    EXPECT_EQ(r.calibration.step_overhead_s, s.prior.step_overhead_s);
}

TEST(Fit, ZeroPriorValueIsHeldAndSaysWhy) {
    // A coefficient at 0 has no logarithm: it cannot be fitted in log space.
    Synth s;
    s.prior.kernel_overhead_s = 0;
    MeasurementSet m;
    m.steps.push_back(s.step("llama-3.1-8b", 8, 1, 1 << 20, s.prior));
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_TRUE(mentions(r.unidentified, "kernel_overhead_s: its prior value is 0"));
    EXPECT_FALSE(contains(r.parameters, "kernel_overhead_s"));
    EXPECT_EQ(r.calibration.kernel_overhead_s, 0.0);
}

TEST(Fit, SchemaOneGemmChainRecordsAreRefused) {
    // libscale.measurements/1 timed a layer's GEMM chain by token count; the per-operation
    // model needs each GEMM's shape.
    const nlohmann::json v1 = {
        {"schema", "libscale.measurements/1"},
        {"records", {{{"kind", "gemm"}, {"hardware", "h100"}, {"tokens", 4096}, {"flops", 1e13}, {"seconds", 0.02}}}}};
    try {
        (void)measurements_from_json(v1, "old.json");
        FAIL() << "no ParseError";
    } catch (const ParseError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("old.json: record 0"), std::string::npos) << msg;
        EXPECT_NE(msg.find("GEMM-chain"), std::string::npos) << msg;
        EXPECT_NE(msg.find("m, n, k"), std::string::npos) << msg;
    }
}

// USL data with a strong retrograde term: throughput peaks near N = 14, then falls.
TEST(Fit, LeaveOneOutPicksUslForRetrogradeScaling) {
    Synth s;
    s.sigma = 0.01;
    MeasurementSet m;
    const double lambda = 2000, sigma = 0.02, kappa = 0.005;
    for (std::int64_t gpus : {1, 2, 4, 8, 16, 32, 64}) {
        StepRun r = s.step("qwen3-1.7b", gpus, 1, 64 * 8192, s.prior);
        const double n = static_cast<double>(gpus);
        const double x = lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
        r.step_time_s = 64 * 8192 / x * s.noise();
        m.steps.push_back(r);
    }
    const FitResult r = fit(m, s.hw, s.prior);
    ASSERT_EQ(r.families.size(), 3u);
    EXPECT_EQ(r.chosen_family, "usl") << r.family_reason;
    EXPECT_LT(r.families[2].loo_relative_error, 0.05);
    EXPECT_GT(r.families[1].loo_relative_error, 3 * r.families[2].loo_relative_error);  // amdahl
    EXPECT_NE(r.family_reason.find("usl: leave-one-out"), std::string::npos);
}

// Mechanistic data with a sharp step where the ring leaves the node (slow NICs): smooth
// Amdahl and USL curves cannot follow it; the mechanistic model does.
TEST(Fit, LeaveOneOutPrefersMechanisticAtTheNodeBoundary) {
    Synth s;
    s.sigma = 0.01;
    Calibration trainer = s.prior;
    trainer.inter_node.busbw_bytes_per_s = 1e9;
    trainer.framework_efficiency = 0.7;
    MeasurementSet m;
    for (std::int64_t n : {2, 4, 8, 16, 32, 64}) m.steps.push_back(s.step("qwen3-1.7b", n, 1, n * 8192, trainer));
    Calibration prior = s.prior;
    prior.inter_node = trainer.inter_node;  // the network is known; the trainer's efficiency is not
    const FitResult r = fit(m, s.hw, prior);
    ASSERT_TRUE(r.families[0].applicable && r.families[1].applicable && r.families[2].applicable);
    EXPECT_EQ(r.chosen_family, "mechanistic") << r.family_reason;
    EXPECT_LT(r.families[0].loo_relative_error, 0.03);
    EXPECT_GT(r.families[2].loo_relative_error, 3 * r.families[0].loo_relative_error) << r.family_reason;
    EXPECT_GT(r.families[1].loo_relative_error, 3 * r.families[0].loo_relative_error) << r.family_reason;
}

TEST(Fit, TooFewPointsForAFamilySaysHowMany) {
    Synth s;
    MeasurementSet m;
    for (std::int64_t n : {8, 16, 32}) m.steps.push_back(s.step("llama-3.1-8b", n, 1, 1 << 20, s.prior));
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_TRUE(r.families[1].applicable);
    EXPECT_FALSE(r.families[2].applicable);
    EXPECT_NE(r.families[2].note.find("4 distinct GPU counts"), std::string::npos) << r.families[2].note;
}

TEST(Fit, OtherHardwareOnlyIsAnError) {
    Synth s;
    MeasurementSet m;
    m.gemm.push_back({"a100", 1024, 1024, 1024, false, 0.01});
    try {
        fit(m, s.hw, s.prior);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no measurements for hardware 'h100'; found: a100"), std::string::npos)
            << e.what();
    }
}

// Records no GPU can produce are refused, naming the record, the rate and the peak: a unit
// slip fitted would give a framework efficiency of 2 and an MFU above 100 %.
TEST(Fit, PhysicallyImpossibleRecordsAreRefused) {
    Synth s;
    s.sigma = 0;
    const auto refused = [&](const MeasurementSet& m, const std::string& text) {
        try {
            fit(m, s.hw, s.prior);
            ADD_FAILURE() << "accepted; expected: " << text;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
        }
    };
    // A GEMM at 10^12 x the peak (its time in picoseconds read as seconds).
    MeasurementSet m;
    m.gemm.push_back({"h100", 8192, 8192, 8192, false, gemm_time_s(s.hw, s.prior, 8192, 8192, 8192)});
    m.gemm.push_back({"h100", 8192, 8192, 8192, false, gemm_time_s(s.hw, s.prior, 8192, 8192, 8192) * 1e-12});
    refused(m, "GEMM record 1 ran at");
    m.gemm.pop_back();
    EXPECT_NO_THROW(fit(m, s.hw, s.prior));  // the plausible one alone fits
    // Another GPU's record is that GPU's to judge.
    m.gemm.push_back({"b300", 8192, 8192, 8192, false, 1e-12});
    EXPECT_NO_THROW(fit(m, s.hw, s.prior));

    // A copy 2x faster than HBM streams (a large buffer), and one 20x (a small one).
    MeasurementSet bw;
    bw.bandwidth.push_back({"h100", 1e9, 1e9 / (2 * s.hw.hbm_bytes_per_s())});
    refused(bw, "bandwidth record 0 ran at");
    bw.bandwidth[0] = {"h100", 8e6, 8e6 / (3 * s.hw.hbm_bytes_per_s())};  // L2-resident: plausible
    EXPECT_NO_THROW(check_plausible(bw, s.hw));
    bw.bandwidth[0] = {"h100", 8e6, 8e6 / (20 * s.hw.hbm_bytes_per_s())};
    refused(bw, "a copy that fits in L2");

    // 1e300 W.
    MeasurementSet p;
    p.power.push_back({"h100", "compute", 1e300});
    refused(p, "power record 0 (compute) ran at");

    // An all-gather over 8 GPUs 100x faster than NVLink.
    MeasurementSet c;
    c.collectives.push_back(
        {"h100", Collective::all_gather, 8, 8, 1e9, 1e9 / (100 * s.hw.nvlink_bytes_per_s_unidir())});
    refused(c, "collective record 0 (all_gather)");

    // A step 100x the trainer's rate: MFU far above 100 %.
    MeasurementSet st;
    st.steps.push_back(s.step("qwen3-1.7b", 8, 2, 8 * 2 * 8192, s.prior));
    EXPECT_NO_THROW(fit(st, s.hw, s.prior));
    st.steps[0].step_time_s /= 100;
    refused(st, "step record 0 (qwen3-1.7b, 8 GPUs");
}

}  // namespace
}  // namespace libscale
