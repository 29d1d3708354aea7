#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/calibrate/fit.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/statistics.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/json_io.hpp"

namespace libscale::harness {

using nlohmann::json;

namespace {

json gemm_summary(const MeasurementSet& m) {
    std::vector<double> bf16, fp8;
    for (const GemmRun& g : m.gemm) (g.fp8 ? fp8 : bf16).push_back(2 * g.m * g.n * g.k / g.seconds / 1e12);
    json out = json::object();
    for (const auto& [name, v] : {std::pair{"bf16", &bf16}, std::pair{"fp8", &fp8}})
        if (!v->empty())
            out[name] = {{"shapes", v->size()},
                         {"median_tflops", median(*v)},
                         {"max_tflops", *std::max_element(v->begin(), v->end())}};
    return out;
}

json attention_summary(const MeasurementSet& m) {
    json out = json::array();
    for (const AttentionRun& a : m.attention) {
        const double span = a.causal ? 0.5 * a.seq_len : a.seq_len;
        const double flops = attention_flops(a.batch * a.seq_len, a.heads * a.head_dim, span, a.backward);
        out.push_back({{"seq_len", a.seq_len},
                       {"pass", a.backward ? "backward" : "forward"},
                       {"causal", a.causal},
                       {"tflops", flops / a.seconds / 1e12}});
    }
    return out;
}

// Median watts of each harness phase over the GPUs (the fit makes the coefficients and
// bands from the same records).
json power_summary(const Plan& p, const Collected& c) {
    json out = json::object();
    for (const PowerPhaseKind k : p.power_phases) {
        const auto it = c.power.find(to_string(k));
        if (it == c.power.end()) continue;
        std::vector<double> w, u;
        for (const json& r : *it)
            if (w.push_back(r["watts"].get<double>()); r["utilization_pct"].is_number())
                u.push_back(r["utilization_pct"].get<double>());
        out[to_string(k)] = {{"triage_phase", triage_phase(k)},
                             {"median_w", median(w)},
                             {"median_utilization_pct", u.empty() ? json() : json(median(u))},
                             {"gpus", w.size()}};
    }
    return out;
}

}  // namespace

json finish(const Plan& p, Collected& c, const std::filesystem::path& out_dir) {
    json report = {{"schema", kReportSchema}, {"provenance", c.provenance}, {"notes", p.notes}, {"skipped", c.skipped}};
    report["gemm"] = gemm_summary(c.records);
    report["attention"] = attention_summary(c.records);
    report["power"] = power_summary(p, c);
    if (!c.failure.empty()) {
        report["failure"] = c.failure;
        return report;
    }

    const HardwareProfile& hw = p.hardware;
    const Calibration prior = default_calibration(hw);
    Calibration used = prior;
    try {
        // The power records make power.* and the bands in the fit, as `libscale fit` does.
        const FitResult f = fit(c.records, hw, prior);
        const json cal = calibration_to_json(f, c.provenance);
        if (f.power_bands) report["power_bands"] = cal["power_bands"];
        else report["power_bands_not_written"] = f.power_bands_note;
        // What is written must read back: the reader is the judge, before the file exists.
        used = calibration_from_json(cal, hw, "calibration.json").calibration;
        write_file_atomic(out_dir / "calibration.json", cal.dump(2) + "\n");
        report["calibration"] = (out_dir / "calibration.json").string();
        report["fit"] = {
            {"records_used", f.records_used},
            {"rms_relative_error", std::isfinite(f.rms_relative_error) ? json(f.rms_relative_error) : json()},
            {"loo_relative_error", std::isfinite(f.loo_relative_error) ? json(f.loo_relative_error) : json()},
            {"unidentified", f.unidentified}};
        json coefs = json::object();
        for (const Coefficient& k : f.coefficients)
            if (k.fitted) coefs[k.name] = {{"value", k.value}, {"std_error", k.std_error}, {"prior", k.prior_value}};
        report["fit"]["coefficients"] = coefs;
    } catch (const std::exception& e) {
        report["fit_error"] = e.what();
    }

    // The micro-runs against the model with the calibration just fitted (or the prior).
    json micro = json::array();
    for (const StepRun& s : c.records.microruns) {
        json row = {{"gpus", s.config.gpus}, {"layers", s.layers}, {"measured_s", s.step_time_s}};
        try {
            const StepBreakdown b = estimate_microrun(p.model, hw, used, s.config, s.layers);
            row["predicted_s"] = b.step_time_s;
            row["measured_over_predicted"] = s.step_time_s / b.step_time_s;
            row["predicted_exposed_comm_s"] = b.exposed_comm_s;
        } catch (const std::invalid_argument& e) {
            row["prediction_error"] = e.what();
        }
        micro.push_back(row);
    }
    report["microrun"] = micro;
    report["microrun_calibration"] = report.contains("calibration") ? "fitted" : "prior (the fit failed)";
    return report;
}

std::string summary(const json& r) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1);
    const json& prov = r["provenance"];
    s << "libscale-calibrate: " << prov.value("gpu_name", std::string("?")) << " × " << prov.value("gpus", 0) << " ("
      << prov.value("backend", std::string("?")) << " backend), model " << prov.value("model", std::string("?"))
      << "\n";
    for (const auto& [dtype, g] : r["gemm"].items())
        s << "  GEMM " << dtype << ": " << g["shapes"].get<int>() << " shapes, median "
          << g["median_tflops"].get<double>() << " TFLOP/s, best " << g["max_tflops"].get<double>() << " TFLOP/s\n";
    for (const json& a : r["attention"])
        s << "  attention " << a["pass"].get<std::string>() << " seq " << a["seq_len"].get<double>() << ": "
          << a["tflops"].get<double>() << " TFLOP/s\n";
    for (const auto& [phase, pw] : r["power"].items())
        s << "  power " << phase << " (" << pw["triage_phase"].get<std::string>()
          << "): " << pw["median_w"].get<double>() << " W\n";
    if (r.contains("microrun"))
        for (const json& m : r["microrun"]) {
            s << "  step micro-run " << m["layers"].get<int>() << " layers, " << m["gpus"].get<int>()
              << " GPU(s): measured " << 1e3 * m["measured_s"].get<double>() << " ms";
            if (m.contains("predicted_s"))
                s << ", predicted " << 1e3 * m["predicted_s"].get<double>() << " ms (measured/predicted "
                  << std::setprecision(3) << m["measured_over_predicted"].get<double>() << std::setprecision(1) << ")";
            s << "\n";
        }
    if (!r["skipped"].empty()) s << "  skipped: " << r["skipped"].size() << " cases (see report.json)\n";
    for (const json& n : r["notes"]) s << "  note: " << n.get<std::string>() << "\n";
    if (r.contains("failure")) s << "  FAILED: " << r["failure"].get<std::string>() << "\n";
    if (r.contains("fit_error")) s << "  fit failed: " << r["fit_error"].get<std::string>() << "\n";
    if (r.contains("power_bands_not_written")) s << "  " << r["power_bands_not_written"].get<std::string>() << "\n";
    if (r.contains("calibration")) s << "  wrote " << r["calibration"].get<std::string>() << "\n";
    return s.str();
}

}  // namespace libscale::harness
