#include "runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/json_io.hpp"
#include "report.hpp"

namespace libscale::harness {

using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Stops the process when a rank goes `timeout_s` without progress: a hang inside a kernel
// or a collective that no deadline of ours can interrupt. `on_timeout` runs first (rank 0
// writes what was measured).
class Watchdog {
public:
    Watchdog(double timeout_s, std::function<void(const std::string&)> on_timeout)
        : timeout_s_(timeout_s), on_timeout_(std::move(on_timeout)), thread_([this] { loop(); }) {}
    ~Watchdog() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;
    // A case starts: the clock restarts. Exchanges have their own deadline, at the same
    // timeout: the watchdog gives them twice as long before it steps in.
    void at(std::string what) {
        std::lock_guard lock(mutex_);
        what_ = std::move(what);
        last_ = Clock::now();
    }

private:
    void loop() {
        std::unique_lock lock(mutex_);
        while (!stop_) {
            cv_.wait_for(lock, std::chrono::milliseconds(200));
            if (!stop_ && seconds_since(last_) > 2 * timeout_s_) {
                const std::string what = what_;
                lock.unlock();
                on_timeout_(what);
                return;
            }
        }
    }
    double timeout_s_;
    std::function<void(const std::string&)> on_timeout_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::string what_ = "start";
    Clock::time_point last_ = Clock::now();
    bool stop_ = false;
    std::thread thread_;
};

// Progress lines on rank 0: phase, percent of the predicted work, time left. The
// prediction (the hardware's default calibration) is rescaled by how fast the work went.
// On a terminal, one line redrawn in place (a bar); in a log (mpirun, sbatch: no terminal,
// and the log is all an operator can watch), a plain line at most every 30 s and at the end
// of each phase. --quiet: nothing.
class Progress {
public:
    Progress(bool on, double total_s)
        : on_(on), tty_(on && isatty(STDERR_FILENO) == 1), total_(std::max(total_s, 1e-9)), start_(Clock::now()) {}
    ~Progress() {
        if (tty_ && drawn_) std::fputc('\n', stderr);
    }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    void advance(const std::string& phase, double work_s, int done, int of) {
        done_ += work_s;
        const double every_s = tty_ ? 0.2 : 30.0;
        if (!on_ || (seconds_since(last_) < every_s && done < of)) return;
        last_ = Clock::now();
        const double elapsed = seconds_since(start_);
        const double frac = std::min(done_ / total_, 1.0);
        const double left = frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
        if (tty_) {
            constexpr int kWidth = 24;
            const int filled = static_cast<int>(std::lround(frac * kWidth));
            const std::string bar = std::string(static_cast<std::size_t>(filled), '#') +
                                    std::string(static_cast<std::size_t>(kWidth - filled), '-');
            std::fprintf(stderr,
                         "\rlibscale-calibrate: %3.0f%% [%s] %-11s %d/%d, %.0f s elapsed, about %.0f s left\x1b[K",
                         100.0 * frac, bar.c_str(), phase.c_str(), done, of, elapsed, left);
            drawn_ = true;
        } else {
            std::fprintf(stderr, "libscale-calibrate: %-11s %4d/%-4d %3.0f%%  %5.0f s elapsed, about %.0f s left\n",
                         phase.c_str(), done, of, 100.0 * frac, elapsed, left);
        }
        std::fflush(stderr);
    }

private:
    bool on_, tty_;
    bool drawn_ = false;
    double total_, done_ = 0;
    Clock::time_point start_, last_{};
};

struct PhaseWork {
    std::vector<double> case_s;  // predicted seconds of each case this phase runs
    double total() const {
        double t = 0;
        for (const double x : case_s) t += x;
        return t;
    }
};

// Predicted seconds per case, from the prior: what the progress line's "left" scales.
PhaseWork predicted_work(const Plan& p, const std::string& phase) {
    const Calibration prior = default_calibration(p.hardware);
    const double n = p.warmup + p.repeats;
    constexpr double kOperationSetupS = 0.1, kCollectiveSetupS = 0.05, kMicrorunSetupS = 0.5;
    PhaseWork w;
    if (phase == "operations") {
        for (const GemmCase& g : p.gemm)
            w.case_s.push_back(kOperationSetupS + n * gemm_time_s(p.hardware, prior, g.m, g.n, g.k, g.fp8));
        for (const AttentionCase& a : p.attention)
            w.case_s.push_back(kOperationSetupS + n * attention_time_s(p.hardware, prior, a.batch * a.seq_len,
                                                                       a.heads * a.head_dim, a.head_dim, a.seq_len / 2,
                                                                       a.seq_len, a.backward));
        for (const BandwidthCase& b : p.bandwidth)
            w.case_s.push_back(kOperationSetupS + n * memory_time_s(p.hardware, prior, b.bytes));
    } else if (phase == "collectives") {
        for (const CollectiveCase& c : p.collectives)
            w.case_s.push_back(kCollectiveSetupS + n * collective_time_s(c, prior));
    } else if (phase == "microrun") {
        for (const MicrorunCase& m : p.microruns) {
            double t = 0.1;
            try {
                t = estimate_microrun(p.model, p.hardware, prior, m.config, m.layers).step_time_s;
            } catch (const std::invalid_argument&) {
            }
            w.case_s.push_back(kMicrorunSetupS + n * t);
        }
    } else if (phase == "power") {
        for (std::size_t i = 0; i < p.power_phases.size(); ++i)
            w.case_s.push_back(p.power_phase_s + 0.5);  // + the barrier
    }
    return w;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
    return buf;
}

json skip(const std::string& phase, const std::string& what, int rank, const std::string& why) {
    return {{"phase", phase}, {"case", what}, {"rank", rank}, {"why", why}};
}

// One rank's results of one phase, as sent to rank 0.
struct Local {
    MeasurementSet records;
    json skipped = json::array();
    json timings = json::array();  // collectives and micro-runs: [index, seconds] of this rank
    json power = json::array();    // [{"phase", "rank", "watts", "utilization_pct", "samples"}]
};

json to_message(const Local& l) {
    return {
        {"records", to_json(l.records)["records"]}, {"skipped", l.skipped}, {"timings", l.timings}, {"power", l.power}};
}

class Runner {
public:
    Runner(World& w, Backend& b, const Plan& p, const RunOptions& o) : w_(w), b_(b), p_(p), o_(o) {}

    int run() {
        double total = 0;
        for (const std::string& ph : o_.phases) total += (work_[ph] = predicted_work(p_, ph)).total();
        Progress progress(o_.progress && w_.rank() == 0, total);
        progress_ = &progress;
        Watchdog dog(o_.timeout_s, [this](const std::string& what) { timed_out(what); });
        dog_ = &dog;
        dog.at("start");
        try {
            gather_provenance();
            for (const std::string& phase : o_.phases) {
                Local mine;
                run_phase(phase, mine);
                dog.at("the exchange after '" + phase + "'");
                exchange(phase, mine);
            }
        } catch (const RankFailure& e) {
            fault(std::string(e.what()));
        } catch (const BackendError& e) {
            // Raised outside a phase's own handling (the provenance's device query).
            fault("rank " + std::to_string(w_.rank()) + ": " + e.what());
        }
        if (w_.rank() != 0) return collected_.failure.empty() ? 0 : kExitFault;
        dog.at("fit");
        const json report = finish(p_, collected_, o_.out_dir);
        write_file_atomic(o_.out_dir / "report.json", report.dump(2) + "\n");
        if (o_.summary) {
            std::cout << summary(report) << std::flush;
        } else {
            if (report.contains("failure"))
                std::cerr << "libscale-calibrate: FAILED: " << report["failure"].get<std::string>() << "\n";
            if (report.contains("fit_error"))
                std::cerr << "libscale-calibrate: fit failed: " << report["fit_error"].get<std::string>() << "\n";
        }
        if (!collected_.failure.empty()) return kExitFault;
        return report.contains("fit_error") ? kExitFitFailed : 0;
    }

private:
    void gather_provenance() {
        json mine = b_.device_info();
        mine["host"] = host_name();
        const std::vector<std::string> all = w_.gather(mine.dump(), o_.timeout_s, "start");
        if (w_.rank() != 0) return;
        json& prov = collected_.provenance;
        prov = json::parse(all[0]);
        json hosts = json::array();
        for (const std::string& s : all) {
            const std::string h = json::parse(s).value("host", "");
            if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
        }
        prov.erase("host");
        prov["hosts"] = hosts;
        prov["hardware"] = p_.hardware.name;
        prov["gpus"] = w_.size();
        prov["gpus_per_node"] = w_.local_size();
        prov["nodes"] = w_.nodes();
        prov["launcher"] = w_.kind();
        prov["backend"] = b_.name();
        prov["model"] = p_.model_name;
        prov["date"] = utc_now();
        prov["command"] = o_.command;
        prov["source"] = "libscale-calibrate (" + b_.name() + " backend) on " + std::to_string(w_.size()) + " GPU(s)";
    }

    void run_phase(const std::string& phase, Local& mine) {
        try {
            if (phase == "operations") operations(mine);
            else if (phase == "collectives") collectives(mine);
            else if (phase == "microrun") microruns(mine);
            else if (phase == "power") power(mine);
        } catch (const BackendError& e) {
            // The other ranks may be waiting on this one inside the phase: rank 0 learns of it
            // at its exchange in progress and stops every rank.
            const std::string what = "rank " + std::to_string(w_.rank()) + ", phase " + phase + ": " + e.what();
            if (w_.rank() == 0) fault(what);
            std::cerr << "libscale-calibrate: " << what << "\n";
            w_.report_failure(what);
            std::this_thread::sleep_for(std::chrono::duration<double>(2 * o_.timeout_s));
            std::_Exit(kExitFault);  // rank 0 did not stop this rank in time
        }
    }

    void operations(Local& mine) {
        const PhaseWork& work = work_["operations"];
        const int n = static_cast<int>(work.case_s.size());
        const int ng = static_cast<int>(p_.gemm.size()), na = static_cast<int>(p_.attention.size());
        const std::string& hw = p_.hardware.name;
        // Cases are dealt round-robin: each rank measures a share on its own GPU.
        for (int i = w_.rank(); i < n; i += w_.size()) {
            if (i < ng) {
                const GemmCase& g = p_.gemm[static_cast<std::size_t>(i)];
                dog_->at("operations: " + describe(g));
                const Timing t = b_.gemm(g, p_.warmup, p_.repeats);
                if (t.skipped.empty()) mine.records.gemm.push_back({hw, g.m, g.n, g.k, g.fp8, t.seconds});
                else mine.skipped.push_back(skip("operations", describe(g), w_.rank(), t.skipped));
            } else if (i < ng + na) {
                const AttentionCase& a = p_.attention[static_cast<std::size_t>(i - ng)];
                dog_->at("operations: " + describe(a));
                const Timing t = b_.attention(a, p_.warmup, p_.repeats);
                if (t.skipped.empty())
                    mine.records.attention.push_back({hw, a.batch, a.seq_len, a.heads, a.head_dim, a.causal, a.backward,
                                                      t.seconds, b_.attention_kernel()});
                else mine.skipped.push_back(skip("operations", describe(a), w_.rank(), t.skipped));
            } else {
                const BandwidthCase& c = p_.bandwidth[static_cast<std::size_t>(i - ng - na)];
                dog_->at("operations: bandwidth " + std::to_string(c.bytes) + " B");
                const Timing t = b_.bandwidth(c, p_.warmup, p_.repeats);
                if (t.skipped.empty()) mine.records.bandwidth.push_back({hw, c.bytes, t.seconds});
                else
                    mine.skipped.push_back(
                        skip("operations", "bandwidth " + std::to_string(c.bytes) + " B", w_.rank(), t.skipped));
            }
            progress_->advance("operations", work.case_s[static_cast<std::size_t>(i)] * w_.size(), i + 1, n);
        }
    }

    void collectives(Local& mine) {
        const PhaseWork& work = work_["collectives"];
        for (std::size_t i = 0; i < p_.collectives.size(); ++i) {
            const CollectiveCase& c = p_.collectives[i];
            dog_->at("collectives: " + describe(c));
            const Timing t = b_.collective(w_, c, p_.warmup, p_.repeats, o_.timeout_s);
            if (t.skipped.empty()) mine.timings.push_back({i, t.seconds});
            else if (t.skipped != "not in the ring")
                mine.skipped.push_back(skip("collectives", describe(c), w_.rank(), t.skipped));
            progress_->advance("collectives", work.case_s[i], static_cast<int>(i + 1),
                               static_cast<int>(p_.collectives.size()));
        }
    }

    void microruns(Local& mine) {
        const PhaseWork& work = work_["microrun"];
        for (std::size_t i = 0; i < p_.microruns.size(); ++i) {
            const MicrorunCase& m = p_.microruns[i];
            dog_->at("microrun: " + describe(m));
            const Timing t = b_.microrun(w_, p_, m, p_.warmup, p_.repeats, o_.timeout_s);
            if (t.skipped.empty()) mine.timings.push_back({i, t.seconds});
            else if (t.skipped != "not in the ring")
                mine.skipped.push_back(skip("microrun", describe(m), w_.rank(), t.skipped));
            progress_->advance("microrun", work.case_s[i], static_cast<int>(i + 1),
                               static_cast<int>(p_.microruns.size()));
        }
    }

    void power(Local& mine) {
        for (std::size_t i = 0; i < p_.power_phases.size(); ++i) {
            const PowerPhaseKind k = p_.power_phases[i];
            dog_->at(std::string("power: ") + to_string(k));
            const PowerPhaseResult r = b_.power_phase(w_, k, p_.power_phase_s, o_.timeout_s);
            if (r.skipped.empty())
                mine.power.push_back({{"phase", to_string(k)},
                                      {"rank", w_.rank()},
                                      {"watts", r.watts},
                                      {"utilization_pct", r.utilization_pct},
                                      {"samples", r.samples}});
            else mine.skipped.push_back(skip("power", to_string(k), w_.rank(), r.skipped));
            progress_->advance("power", work_["power"].case_s[i], static_cast<int>(i + 1),
                               static_cast<int>(p_.power_phases.size()));
        }
    }

    // Gathers the phase to rank 0, which merges and writes the measurements so far; the
    // other ranks wait for that before the next phase.
    void exchange(const std::string& phase, const Local& mine) {
        const std::string what = "the end of '" + phase + "'";
        const std::vector<std::string> all = w_.gather(to_message(mine).dump(), o_.timeout_s, what);
        if (w_.rank() == 0) {
            std::lock_guard lock(mutex_);
            merge_phase(phase, all);
            write_measurements();
        }
        w_.broadcast({}, o_.timeout_s, what);
    }

    void merge_phase(const std::string& phase, const std::vector<std::string>& all) {
        std::map<std::size_t, std::vector<double>> per_case;  // index → seconds of each ring rank
        for (std::size_t r = 0; r < all.size(); ++r) {
            const json m = json::parse(all[r]);
            merge(collected_.records, measurements_from_json(m["records"], "rank " + std::to_string(r)));
            for (const json& s : m["skipped"]) collected_.skipped.push_back(s);
            for (const json& t : m["timings"]) per_case[t[0].get<std::size_t>()].push_back(t[1].get<double>());
            for (const json& pw : m["power"]) collected_.power[pw["phase"].get<std::string>()].push_back(pw);
        }
        const std::string& hw = p_.hardware.name;
        for (const auto& [i, secs] : per_case) {
            if (phase == "collectives") {
                // nccl-tests reports the mean over ranks of each rank's time.
                const CollectiveCase& c = p_.collectives[i];
                double mean = 0;
                for (const double s : secs) mean += s / static_cast<double>(secs.size());
                collected_.records.collectives.push_back({hw, c.op, c.ranks, c.ranks_per_node, c.bytes, mean});
            } else if (phase == "microrun") {
                // A synchronous step ends when its slowest rank does.
                const MicrorunCase& m = p_.microruns[i];
                StepRun s;
                s.model = p_.model_name;
                s.hardware = hw;
                s.config = m.config;
                s.config.global_batch_tokens = m.config.gpus * m.config.micro_batch * m.config.seq_len;
                s.layers = m.layers;
                s.step_time_s = *std::max_element(secs.begin(), secs.end());
                s.source = "libscale-calibrate step micro-run (" + b_.name() + ")";
                collected_.records.microruns.push_back(s);
            }
        }
        if (phase == "power")
            for (const auto& [name, list] : collected_.power.items())
                for (const json& pw : list)
                    collected_.records.power.push_back({hw, triage_phase_of(name), pw["watts"].get<double>(),
                                                        pw["utilization_pct"].is_number()
                                                            ? pw["utilization_pct"].get<double>()
                                                            : std::numeric_limits<double>::quiet_NaN()});
    }

    static std::string triage_phase_of(const std::string& harness_phase) {
        for (const PowerPhaseKind k : {PowerPhaseKind::idle, PowerPhaseKind::gemm, PowerPhaseKind::nccl,
                                       PowerPhaseKind::host_starved, PowerPhaseKind::spin})
            if (harness_phase == to_string(k)) return triage_phase(k);
        return harness_phase;
    }

    void write_measurements() {
        json j = to_json(collected_.records);
        j["provenance"] = collected_.provenance;
        j["skipped"] = collected_.skipped;
        if (!collected_.failure.empty()) j["failure"] = collected_.failure;
        write_file_atomic(o_.out_dir / "measurements.json", j.dump(2) + "\n");
    }

    // A rank failed or hung: rank 0 writes what it has and every rank stops.
    [[noreturn]] void fault(const std::string& what) {
        std::cerr << "libscale-calibrate: " << what << "\n";
        if (w_.rank() == 0) {
            std::lock_guard lock(mutex_);
            collected_.failure += (collected_.failure.empty() ? "" : "; ") + what;
            try {
                write_measurements();
                std::cerr << "libscale-calibrate: the measurements taken so far are in "
                          << (o_.out_dir / "measurements.json").string() << "; no calibration file was written\n";
            } catch (const std::exception& e) {
                std::cerr << "libscale-calibrate: could not write the measurements taken so far: " << e.what() << "\n";
            }
        }
        std::fflush(nullptr);
        w_.abort(kExitFault);
        std::_Exit(kExitFault);  // abort() does not return; GCC does not see [[noreturn]] through the vtable
    }

    [[noreturn]] void timed_out(const std::string& what) {
        std::ostringstream msg;
        msg << "rank " << w_.rank() << " made no progress for " << 2 * o_.timeout_s << " s at " << what;
        fault(msg.str());
    }

    World& w_;
    Backend& b_;
    const Plan& p_;
    const RunOptions& o_;
    Collected collected_;
    std::map<std::string, PhaseWork> work_;  // predicted, per phase (progress lines)
    std::mutex mutex_;
    Progress* progress_ = nullptr;
    Watchdog* dog_ = nullptr;
};

}  // namespace

double predicted_phase_s(const Plan& p, const std::string& phase, int ranks) {
    // Operations are dealt over the ranks; the other phases run on every rank together.
    const double t = predicted_work(p, phase).total();
    return phase == "operations" ? t / std::max(ranks, 1) : t;
}

int run_calibration(World& w, Backend& b, const Plan& p, const RunOptions& o) {
    for (const std::string& ph : o.phases)
        if (std::find(std::begin(kPhaseNames), std::end(kPhaseNames), ph) == std::end(kPhaseNames))
            throw std::invalid_argument("phase '" + ph + "'; valid: operations, collectives, microrun, power");
    if (!(o.timeout_s > 0) || !std::isfinite(o.timeout_s))
        throw std::invalid_argument("timeout_s = " + std::to_string(o.timeout_s) + "; valid: seconds > 0");
    return Runner(w, b, p, o).run();
}

}  // namespace libscale::harness
