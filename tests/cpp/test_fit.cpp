// The fitter against known truth: synthetic measurements generated from a known
// calibration (through the same cost formulas the model uses) plus seeded lognormal noise.
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "libscale/catalog.hpp"
#include "libscale/collective.hpp"
#include "libscale/fit.hpp"
#include "libscale/projection.hpp"
#include "libscale/step_model.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

struct Synth {
    HardwareProfile hw = find_hardware("h100");
    Calibration truth, prior;
    std::mt19937_64 rng{42};
    double sigma = 0.03;  // lognormal relative noise
    Synth() {
        prior = default_calibration(hw);
        truth = prior;
        truth.eta_max = 0.55;
        truth.half_saturation_tokens = 1500;
        truth.intra_node = {8e-6, 3.6e11};
        truth.inter_node = {20e-6, 4e10};  // 8 rails: 3.2e11 < intra, so the NICs bind
        truth.step_overhead_s = 0.05;
    }
    double noise() { return sigma > 0 ? std::exp(std::normal_distribution<double>(0, sigma)(rng)) : 1.0; }

    void gemm(MeasurementSet& m, int reps = 2) {
        for (int r = 0; r < reps; ++r)
            for (double t : {256., 1024., 2048., 4096., 8192., 16384.}) {
                const double flops = 2.4e9 * t;
                m.gemm.push_back({"h100", t, flops, flops / (hw.peak_flops() * truth.eta(t)) * noise()});
            }
    }
    void collectives(MeasurementSet& m, bool inter) {
        const Collective ops[] = {Collective::all_gather, Collective::reduce_scatter, Collective::all_reduce};
        int k = 0;
        for (std::int64_t ranks : inter ? std::vector<std::int64_t>{16, 32, 64} : std::vector<std::int64_t>{2, 4, 8})
            for (double bytes : {1e5, 1e7, 1e9}) {
                const Collective op = ops[k++ % 3];
                const LinkLevel link = ring_link(ranks, 8, truth);
                m.collectives.push_back({"h100", op, ranks, inter ? 8 : ranks, bytes,
                                         ring_time_s(op, bytes, ranks, link) * noise()});
            }
    }
    StepRun step(const std::string& model, std::int64_t gpus, std::int64_t mb, std::int64_t global,
                 const Calibration& cal) {
        StepRun s{model, "h100", {}, 0, "synthetic"};
        s.config.gpus = gpus;
        s.config.seq_len = 8192;
        s.config.micro_batch = mb;
        s.config.global_batch_tokens = global;
        const ModelSpec m = find_model(model);
        s.step_time_s = estimate_step_unchecked(m, count_parameters(m), hw, cal, s.config).step_time_s * noise();
        return s;
    }
    // Strong scaling at two micro-batch sizes: 8 configurations.
    void steps(MeasurementSet& m) {
        for (std::int64_t mb : {1, 2})
            for (std::int64_t gpus : {8, 16, 32, 64}) m.steps.push_back(step("llama-3.1-8b", gpus, mb, 1 << 21, truth));
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

const char* const kMicroRunParams[] = {"eta_max", "half_saturation_tokens", "intra_node.alpha_s",
                                       "intra_node.busbw_bytes_per_s", "inter_node.alpha_s",
                                       "inter_node.busbw_bytes_per_s"};

TEST(Fit, ParameterNames) {
    Calibration c = test::tiny_calibration();
    set_parameter(c, "inter_node.alpha_s", 3e-6);
    EXPECT_EQ(c.inter_node.alpha_s, 3e-6);
    EXPECT_EQ(get_parameter(c, "intra_node.busbw_bytes_per_s"), 1e12);
    try {
        get_parameter(c, "eta");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("step_overhead_s"), std::string::npos) << e.what();
    }
}

TEST(Fit, MicroRunsWithoutNoiseRecoverTruth) {
    Synth s;
    s.sigma = 0;
    MeasurementSet m;
    s.gemm(m);
    s.collectives(m, false);
    s.collectives(m, true);
    const FitResult r = fit(m, s.hw, s.prior);
    for (const char* name : kMicroRunParams) {
        EXPECT_NEAR(get_parameter(r.calibration, name), get_parameter(s.truth, name),
                    1e-9 * get_parameter(s.truth, name)) << name;
        EXPECT_TRUE(coef(r, name).fitted) << name;
    }
    EXPECT_EQ(r.records_used, m.size());
    EXPECT_LT(r.rms_relative_error, 1e-12);
    EXPECT_TRUE(r.unidentified.empty()) << r.unidentified.front();
    EXPECT_EQ(r.parameters.size(), 6u);
}

TEST(Fit, NoisyMicroRunsWithinStandardErrors) {
    Synth s;
    MeasurementSet m;
    s.gemm(m, 4);
    s.collectives(m, false);
    s.collectives(m, true);
    const FitResult r = fit(m, s.hw, s.prior);
    ASSERT_EQ(r.covariance.rows(), 6);
    for (const char* name : kMicroRunParams) {
        const Coefficient& c = coef(r, name);
        EXPECT_GT(c.std_error, 0) << name;
        EXPECT_LT(std::abs(c.value - get_parameter(s.truth, name)), 4 * c.std_error) << name;
    }
    EXPECT_NEAR(r.rms_relative_error, 0.03, 0.015);
    EXPECT_GT(r.loo_relative_error, 0.0);
}

TEST(Fit, StepsWithoutNoiseRecoverEfficiencyAndOverhead) {
    Synth s;
    s.sigma = 0;
    MeasurementSet m;
    s.steps(m);
    Calibration prior = s.truth;  // everything but the two step parameters is known
    prior.eta_max = 0.3;
    prior.step_overhead_s = 0;
    const FitResult r = fit(m, s.hw, prior);
    EXPECT_NEAR(r.calibration.eta_max, 0.55, 0.55e-9);
    EXPECT_NEAR(r.calibration.step_overhead_s, 0.05, 0.05e-9);
    EXPECT_EQ(r.parameters, (std::vector<std::string>{"eta_max", "step_overhead_s"}));
    EXPECT_LT(r.rms_relative_error, 1e-10);
    // One series (llama-3.1-8b, 4 GPU counts per micro-batch size): the mechanistic model
    // generated it, so it predicts the left-out points exactly.
    ASSERT_EQ(r.families.size(), 3u);
    EXPECT_EQ(r.chosen_family, "mechanistic") << r.family_reason;
    EXPECT_LT(r.families[0].loo_relative_error, 1e-8);
}

// Over 400 seeded trials the 80% interval (value ± 1.2816 σ) covers the truth in 70–90%.
TEST(Fit, EightyPercentIntervalsCoverTheTruth) {
    Synth s;
    const char* names[] = {"eta_max", "intra_node.alpha_s", "intra_node.busbw_bytes_per_s"};
    int covered[4] = {0, 0, 0, 0};
    const int trials = 400;
    for (int t = 0; t < trials; ++t) {
        s.rng.seed(1000 + static_cast<std::uint64_t>(t));
        MeasurementSet m;
        s.gemm(m);
        s.collectives(m, false);
        const FitResult r = fit(m, s.hw, s.prior);
        for (int k = 0; k < 3; ++k) {
            const Coefficient& c = coef(r, names[k]);
            covered[k] += std::abs(c.value - get_parameter(s.truth, names[k])) <= 1.2816 * c.std_error;
        }
        // End-to-end: η_max and the overhead from 8 noisy step records.
        MeasurementSet steps;
        if (t % 2 == 0) {  // half the trials keep the test fast
            s.steps(steps);
            Calibration prior = s.truth;
            prior.eta_max = 0.4;
            const FitResult e = fit(steps, s.hw, prior);
            covered[3] += std::abs(e.calibration.eta_max - 0.55) <= 1.2816 * coef(e, "eta_max").std_error;
        }
    }
    for (int k = 0; k < 3; ++k) {
        EXPECT_GE(covered[k], 0.70 * trials) << names[k];
        EXPECT_LE(covered[k], 0.90 * trials) << names[k];
    }
    EXPECT_GE(covered[3], 0.70 * trials / 2) << "step eta_max";
    EXPECT_LE(covered[3], 0.90 * trials / 2) << "step eta_max";
}

TEST(Fit, SinglePointReproducesItselfAndProjectsSensibly) {
    Synth s;
    MeasurementSet m;
    m.steps.push_back(s.step("qwen3-1.7b", 8, 2, 8 * 2 * 8192, s.truth));
    const FitResult r = fit(m, s.hw, s.prior);
    const ModelSpec model = find_model("qwen3-1.7b");
    const StepBreakdown b = estimate_step(model, s.hw, r.calibration, m.steps[0].config);
    EXPECT_NEAR(b.step_time_s, m.steps[0].step_time_s, 1e-9 * m.steps[0].step_time_s);
    EXPECT_TRUE(coef(r, "eta_max").fitted);
    EXPECT_TRUE(std::isnan(coef(r, "eta_max").std_error));
    EXPECT_NE(coef(r, "eta_max").note.find("no uncertainty"), std::string::npos);
    EXPECT_TRUE(r.parameters.empty());
    EXPECT_EQ(r.covariance.size(), 0);
    EXPECT_TRUE(std::isnan(r.loo_relative_error));
    EXPECT_FALSE(r.families[0].applicable);

    TrainingConfig base = m.steps[0].config;
    base.global_batch_tokens = 16 * 2 * 8192;
    const Projection p = project(model, s.hw, r.calibration, base, {1, 2, 4, 8, 16}, Scaling::strong, Job{});
    for (std::size_t i = 1; i < p.rows.size(); ++i) {
        EXPECT_GE(p.rows[i].step.tokens_per_s, p.rows[i - 1].step.tokens_per_s) << p.rows[i].step.gpus;
        EXPECT_LE(p.rows[i].scaling_efficiency, 1.0 + 1e-12) << p.rows[i].step.gpus;
    }
}

TEST(Fit, OneSizeOneRankCountIsUnidentified) {
    Synth s;
    MeasurementSet m;
    for (int i = 0; i < 5; ++i)
        m.collectives.push_back({"H100", Collective::all_gather, 8, 8, 1e8,
                                 ring_time_s(Collective::all_gather, 1e8, 8, s.truth.intra_node) * s.noise()});
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_TRUE(mentions(r.unidentified, "intra_node.alpha_s: every intra_node collective run has the same rank count"));
    EXPECT_TRUE(mentions(r.unidentified, "intra_node.busbw_bytes_per_s"));
    EXPECT_EQ(r.calibration.intra_node.alpha_s, s.prior.intra_node.alpha_s);
    EXPECT_EQ(r.calibration.intra_node.busbw_bytes_per_s, s.prior.intra_node.busbw_bytes_per_s);
    EXPECT_FALSE(coef(r, "intra_node.alpha_s").fitted);
    EXPECT_TRUE(r.parameters.empty());
}

TEST(Fit, OneTokenCountFitsEfficiencyOnly) {
    Synth s;
    s.sigma = 0;
    s.prior.half_saturation_tokens = s.truth.half_saturation_tokens;
    MeasurementSet m;
    for (int i = 0; i < 3; ++i)
        m.gemm.push_back({"h100", 4096, 1e13, 1e13 / (s.hw.peak_flops() * s.truth.eta(4096))});
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_NEAR(r.calibration.eta_max, 0.55, 0.55e-12);
    EXPECT_TRUE(mentions(r.unidentified, "half_saturation_tokens: all GEMM runs at one token count"));
    EXPECT_EQ(r.parameters, std::vector<std::string>{"eta_max"});
}

TEST(Fit, AllStepsAtOneConfigurationLeaveOverheadUnidentified) {
    Synth s;
    MeasurementSet m;
    for (int i = 0; i < 4; ++i) m.steps.push_back(s.step("llama-3.1-8b", 8, 1, 1 << 20, s.truth));
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_TRUE(mentions(r.unidentified, "step_overhead_s: every step record has the same configuration"));
    EXPECT_EQ(r.parameters, std::vector<std::string>{"eta_max"});
    EXPECT_EQ(r.calibration.step_overhead_s, s.prior.step_overhead_s);
}

// USL data with a strong retrograde term: throughput peaks near N = 14, then falls.
TEST(Fit, LeaveOneOutPicksUslForRetrogradeScaling) {
    Synth s;
    s.sigma = 0.01;
    MeasurementSet m;
    const double lambda = 2000, sigma = 0.02, kappa = 0.005;
    for (std::int64_t gpus : {1, 2, 4, 8, 16, 32, 64}) {
        StepRun r = s.step("qwen3-1.7b", gpus, 1, 64 * 8192, s.truth);
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
    s.truth.inter_node.busbw_bytes_per_s = 1e9;
    MeasurementSet m;
    for (std::int64_t n : {2, 4, 8, 16, 32, 64}) m.steps.push_back(s.step("qwen3-1.7b", n, 1, n * 8192, s.truth));
    Calibration prior = s.truth;
    prior.eta_max = 0.3;
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
    for (std::int64_t n : {8, 16, 32}) m.steps.push_back(s.step("llama-3.1-8b", n, 1, 1 << 20, s.truth));
    const FitResult r = fit(m, s.hw, s.prior);
    EXPECT_TRUE(r.families[1].applicable);
    EXPECT_FALSE(r.families[2].applicable);
    EXPECT_NE(r.families[2].note.find("4 distinct GPU counts"), std::string::npos) << r.families[2].note;
}

TEST(Fit, OtherHardwareOnlyIsAnError) {
    Synth s;
    MeasurementSet m;
    m.gemm.push_back({"a100", 1024, 1e12, 0.01});
    try {
        fit(m, s.hw, s.prior);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no measurements for hardware 'h100'; found: a100"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace libscale
