// The fitter's entry point: sorts records by hardware and kind, resolves step records'
// models, then runs the collective and compute stages (fit_detail.hpp).
#include "libscale/calibrate/fit.hpp"
#include "libscale/calibrate/plausibility.hpp"
#include "libscale/estimate/statistics.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>

#include "fit_detail.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/spec/parallelism.hpp"

namespace libscale {

namespace {

bool iequal(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// The power records of `hw`, by phase: medians into the power coefficients, all five
// phases into bands.
void apply_power(const MeasurementSet& data, const HardwareProfile& hw, Calibration& cal, FitResult& out,
                 std::map<std::string, Coefficient>& coef) {
    std::map<std::string, std::vector<double>> by_phase;
    std::map<std::string, std::vector<PhaseReading>> readings;
    for (const PowerRecord& p : data.power)
        if (iequal(p.hardware, hw.name)) {
            by_phase[p.phase].push_back(p.watts);
            readings[p.phase].push_back({p.watts, p.utilization_pct});
        }
    if (by_phase.empty()) return;
    for (const auto& [phase, name] : {std::pair{"compute", "power.compute_w"},
                                      std::pair{"communication", "power.comm_w"}, std::pair{"idle", "power.idle_w"}}) {
        const auto it = by_phase.find(phase);
        if (it == by_phase.end()) continue;
        const double w = median(it->second);
        set_parameter(cal, name, w);
        Coefficient& c = coef[name];
        c.measured = true;
        c.note = "median of " + std::to_string(it->second.size()) + " power records of the " + phase + " phase";
    }
    try {
        out.power_bands =
            power_bands_from_phases(readings, hw.board_power_w,
                                    "calibrated: fitted to " + std::to_string(data.power.size()) + " power records");
    } catch (const std::invalid_argument& e) {
        out.power_bands_note = std::string("no power bands: ") + e.what();
    }
}

// Step records that carry their peak memory set the memory coefficients of this machine:
// the caching allocator's share from the records that give both peaks (median of
// reserved / allocated − 1), then the margin as the largest relative error of the peak
// estimate over the records, like with like (both peaks where given), and never below
// their own relative error: the margin this machine's measurements support.
constexpr std::size_t kMinMemoryRecords = 3;

void apply_memory(const std::vector<detail::StepCase>& steps, const MeasurementSet& data, const HardwareProfile& hw,
                  Calibration& cal, std::map<std::string, Coefficient>& coef) {
    std::vector<double> shares;
    std::vector<const detail::StepCase*> with_memory;
    for (const detail::StepCase& s : steps) {
        const StepRun& r = data.steps[s.record];
        if (!(r.memory_gib > 0)) continue;
        with_memory.push_back(&s);
        if (r.memory_reserved_gib > 0 && (r.memory_kind == "allocated" || r.memory_kind == "active"))
            shares.push_back(r.memory_reserved_gib / r.memory_gib - 1.0);
    }
    if (!shares.empty()) {
        set_parameter(cal, "fragmentation", std::min(median(shares), 1.0));
        Coefficient& c = coef["fragmentation"];
        c.measured = true;
        c.note = "median of max_memory_reserved / max_memory_allocated - 1 over " + std::to_string(shares.size()) +
                 " step record" + (shares.size() == 1 ? "" : "s");
    }
    if (with_memory.size() < kMinMemoryRecords) return;
    double worst = 0, floor = 0;
    for (const detail::StepCase* s : with_memory) {
        const StepRun& r = data.steps[s->record];
        const MemoryBreakdown mem = estimate_step_unchecked(*s->model, *s->counts, hw, cal, s->config).memory;
        worst = std::max(worst, std::abs(memory_of_kind(mem, r.memory_kind) / r.memory_gib - 1.0));
        if (r.memory_reserved_gib > 0 && r.memory_kind != "reserved")
            worst = std::max(worst, std::abs(mem.allocator_reserved_gib / r.memory_reserved_gib - 1.0));
        floor = std::max(floor, s->sigma);
    }
    const double margin = std::min(std::max(worst, floor), 0.9);
    set_parameter(cal, "memory_margin", margin);
    Coefficient& c = coef["memory_margin"];
    c.measured = true;
    c.note = "the largest error of the peak-memory estimate over " + std::to_string(with_memory.size()) +
             " step records (" + detail::fmt(100 * worst) + " %), at least their relative error (" +
             detail::fmt(100 * floor) + " %)";
}

}  // namespace

FitResult fit(const MeasurementSet& data, const HardwareProfile& hw, const Calibration& prior,
              const FitOptions& options, Progress* progress) {
    using namespace detail;
    prior.validate();
    check_plausible(data, hw);
    std::set<std::string> found;
    KernelRecords kernels;
    kernels.data = &data;
    std::vector<const CollectiveRun*> intra, inter;
    const auto mine = [&](const std::string& h) {
        found.insert(h);
        return iequal(h, hw.name);
    };
    // A GEMM of a few microseconds is its launch: on one H200 the 512 × 1024 × 5120 GEMM took
    // 14 µs where its tiles stream in 9, and fitted it would pull the memory roofline (and
    // hbm_efficiency) down instead.
    std::size_t launch_bound = 0;
    const double launch_bound_s = kLaunchBoundLaunches * prior.kernel_overhead_s;
    for (std::size_t i = 0; i < data.gemm.size(); ++i) {
        const GemmRun& g = data.gemm[i];
        if (!mine(g.hardware)) continue;
        if (g.seconds < launch_bound_s) {
            ++launch_bound;
            continue;
        }
        // The law would time an fp8 record at the bf16 rate and move the bf16 coefficients.
        if (g.fp8 && !(hw.peak_fp8_tflops > 0 && prior.gemm.fp8_eta_max > 0))
            throw std::invalid_argument("GEMM record " + std::to_string(i) + " is fp8, but " +
                                        (hw.peak_fp8_tflops > 0
                                             ? "the prior calibration has gemm.fp8_eta_max = 0"
                                             : hw.name + " has no fp8 tensor cores (peak_fp8_tflops = 0)") +
                                        "; fit fp8 records on hardware and a calibration that have fp8");
        kernels.gemm.push_back(&g);
    }
    for (const AttentionRun& a : data.attention)
        if (mine(a.hardware)) kernels.attention.push_back(&a);
    // A copy small enough to stay in L2 (the harness's 8 and 32 MiB cases on a GPU with a
    // 40-60 MB L2: H100 and H200 50 MB, A100 40 MB) is finished by L2 write-back and its
    // launch, not by HBM streaming: it would drag the HBM rate down (on one H200, 1.27 TB/s
    // at 8 MiB against 3.92 TB/s at 2 GiB), so the law is fitted to the larger ones.
    std::size_t cache_resident = 0;
    for (const BandwidthRun& b : data.bandwidth) {
        if (!mine(b.hardware)) continue;
        if (b.bytes <= kCacheResidentCopyBytes) ++cache_resident;
        else kernels.bandwidth.push_back(&b);
    }
    for (const CollectiveRun& c : data.collectives) {
        found.insert(c.hardware);
        if (!iequal(c.hardware, hw.name)) continue;
        (c.ranks <= c.ranks_per_node ? intra : inter).push_back(&c);
    }
    // Models resolved once per name; std::map keeps their addresses stable.
    std::map<std::string, std::unique_ptr<std::pair<ModelSpec, ParameterCounts>>> models;
    std::map<
        std::tuple<const ModelSpec*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::string>,
        int>
        config_ids, series_ids;
    std::vector<StepCase> steps;
    for (std::size_t i = 0; i < data.steps.size(); ++i) {
        const StepRun& s = data.steps[i];
        found.insert(s.hardware);
        bool match = iequal(s.hardware, hw.name);
        if (!match && s.hardware.find(".json") != std::string::npos)
            match = iequal(find_hardware(s.hardware).name, hw.name);
        if (!match) continue;
        auto& entry = models[s.model + "|" + s.model_overrides.dump()];
        if (!entry) {
            ModelSpec m = find_model(s.model, s.model_overrides);
            entry = std::make_unique<std::pair<ModelSpec, ParameterCounts>>(m, count_parameters(m));
        }
        try {
            validate_config(entry->first, hw, s.config);
            validate_calibration_for(hw, prior, s.config);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument("step record " + std::to_string(i) + " (" + s.model + "): " + e.what());
        }
        const StepBreakdown at_prior = estimate_step_unchecked(entry->first, entry->second, hw, prior, s.config);
        check_step_plausible(i, s, at_prior.mfu, at_prior.step_time_s, hw);
        const TrainingConfig& c = s.config;
        // Every option but the batch fields, which the keys hold themselves (GPUs per node resolved).
        std::string options_key;
        for (const auto& o : training_options().options)
            if (!is_batch_option(o.name)) options_key += format_option_value(o.get(c)) + ';';
        const std::int64_t gpn = node_gpus(c, hw);
        const auto id = [](auto& ids, const auto& key) {
            return ids.try_emplace(key, static_cast<int>(ids.size())).first->second;
        };
        steps.push_back({&entry->first, &entry->second, c, s.step_time_s,
                         s.relative_error > 0 ? s.relative_error : options.relative_error,
                         id(config_ids, std::make_tuple(&entry->first, c.gpus, gpn, c.seq_len, c.micro_batch,
                                                        c.global_batch_tokens, options_key)),
                         id(series_ids, std::make_tuple(&entry->first, std::int64_t{0}, gpn, c.seq_len, c.micro_batch,
                                                        std::int64_t{0}, options_key)),
                         i});
    }
    const bool power =
        std::any_of(data.power.begin(), data.power.end(), [&](const PowerRecord& p) { return mine(p.hardware); });
    if (kernels.gemm.empty() && kernels.attention.empty() && kernels.bandwidth.empty() && intra.empty() &&
        inter.empty() && steps.empty() && !power) {
        std::string list;
        for (const auto& h : found) list += (list.empty() ? "" : ", ") + h;
        throw std::invalid_argument(
            "no measurements for hardware '" + hw.name +
            "'; found: " + (list.empty() ? "no GEMM, attention, bandwidth, collective, step or power records" : list));
    }

    FitOptions o = options;
    if (o.prior_log_sd.empty()) o.prior_log_sd = default_priors(hw);
    for (const auto& [name, sd] : o.prior_log_sd) {  // a file's prior is checked on reading (json_io.cpp)
        (void)coefficient_info(name);                // names the valid ones
        if (!(sd > 0) || !std::isfinite(sd))
            throw std::invalid_argument("prior_log_sd[" + name + "] = " + fmt(sd) +
                                        "; it must be a finite number > 0 (a standard deviation of log(value))");
    }
    if (!(o.relative_error >= kMinRelativeError && o.relative_error <= 1))
        throw std::invalid_argument("relative_error = " + fmt(o.relative_error) +
                                    "; it must be a relative error in [0.001, 1] (1 sd, e.g. 0.03)");
    State st;
    st.cal = prior;
    // One calibration holds one attention law, that of the kernel its records timed; the
    // prior's law is carried over to that kernel's scale first (its published ratio).
    if (!kernels.attention.empty()) {
        const AttentionKernel k = kernels.attention.front()->kernel;
        for (const AttentionRun* a : kernels.attention)
            if (a->kernel != k)
                throw std::invalid_argument(std::string("attention records of two kernels, '") + to_string(k) +
                                            "' and '" + to_string(a->kernel) +
                                            "'; a calibration holds one attention law: fit each kernel's records "
                                            "separately");
        st.cal = with_attention_kernel(st.cal, k);
    }
    st.cal.hardware = hw.name;
    st.cal.kind = "fitted";
    for (const CoefficientInfo& info : calibration_coefficients()) {
        Coefficient& c = st.coef[info.name];
        c.name = info.name;
        c.value = c.prior_value = get_parameter(st.cal, info.name);
        c.note = "kept from the prior (no data for it)";
    }

    fit_level(intra, data.collectives, false, o, st);
    fit_level(inter, data.collectives, true, o, st);
    FitResult out;
    out.prior_log_sd = o.prior_log_sd;
    if (cache_resident > 0)
        out.notes.push_back(std::to_string(cache_resident) + " bandwidth record" + (cache_resident == 1 ? "" : "s") +
                            " of at most " + fmt(kCacheResidentCopyBytes / 1048576.0) +
                            " MiB set aside: a copy that small stays in L2, so it does not measure HBM streaming");
    if (launch_bound > 0)
        out.notes.push_back(std::to_string(launch_bound) + " GEMM record" + (launch_bound == 1 ? "" : "s") +
                            " shorter than " + fmt(launch_bound_s * 1e6) + " µs (" + fmt(kLaunchBoundLaunches) +
                            " kernel launches) set aside: launch-bound, not fitted to the GEMM throughput law");
    fit_compute(kernels, steps, hw, o, st, out, progress);

    apply_power(data, hw, st.cal, out, st.coef);
    apply_memory(steps, data, hw, st.cal, st.coef);
    out.calibration = st.cal;
    for (const auto& [names, cov] : st.blocks) out.parameters.insert(out.parameters.end(), names.begin(), names.end());
    const auto p = static_cast<Eigen::Index>(out.parameters.size());
    out.covariance = MatrixXd::Zero(p, p);
    Eigen::Index at = 0;
    for (const auto& [names, cov] : st.blocks) {
        out.covariance.block(at, at, cov.rows(), cov.cols()) = cov;
        for (Eigen::Index k = 0; k < cov.rows(); ++k)
            st.coef[names[static_cast<std::size_t>(k)]].std_error = std::sqrt(std::max(cov(k, k), 0.0));
        at += cov.rows();
    }
    // Kernel records say nothing of the trainer: with no step record the framework
    // efficiency keeps the default's centre, and with it the default's spread over the
    // shipped step timings (docs/calibration.md "Uncalibrated projections"), not a zero
    // variance that would print a zero-width interval.
    const bool kappa_fitted =
        std::find(out.parameters.begin(), out.parameters.end(), "framework_efficiency") != out.parameters.end();
    if (steps.empty() && !kappa_fitted) {
        const std::map<std::string, double> spreads = default_spreads(hw);
        if (const auto it = spreads.find("framework_efficiency"); it != spreads.end()) {
            const double sd = st.cal.framework_efficiency * it->second;
            const Eigen::Index n = out.covariance.rows();
            out.covariance.conservativeResize(n + 1, n + 1);
            out.covariance.row(n).setZero();
            out.covariance.col(n).setZero();
            out.covariance(n, n) = sd * sd;
            out.parameters.emplace_back("framework_efficiency");
            st.coef["framework_efficiency"].std_error = sd;
            st.coef["framework_efficiency"].note = "kept from the prior (no step record), with the default's spread";
        }
    }
    for (const CoefficientInfo& info : calibration_coefficients()) {
        Coefficient c = st.coef[info.name];
        c.value = get_parameter(st.cal, info.name);
        out.coefficients.push_back(c);
    }
    out.unidentified = st.unidentified;
    out.relative_residuals = st.residuals;
    out.loo_relative_errors = st.loo_signed;
    out.record_kinds = st.kinds;
    out.record_indices = st.indices;
    out.records_used = st.residuals.size();
    double ss = 0;
    for (double r : st.residuals) ss += r * r;
    out.rms_relative_error = out.records_used ? std::sqrt(ss / static_cast<double>(out.records_used)) : kNaN;
    out.loo_relative_error =
        st.loo.size() >= 2 ? std::accumulate(st.loo.begin(), st.loo.end(), 0.0) / static_cast<double>(st.loo.size())
                           : kNaN;
    return out;
}

}  // namespace libscale
