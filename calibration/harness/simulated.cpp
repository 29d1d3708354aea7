#include "simulated.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <thread>

#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"

namespace libscale::harness {

Calibration simulated_truth(const HardwareProfile& hw) {
    Calibration c = default_calibration(hw);
    c.kind = "simulated";
    c.source = "libscale-calibrate simulated machine: " + hw.name + "'s default calibration moved by fixed factors";
    c.gemm.eta_max *= 0.93;
    c.gemm.fp8_eta_max *= 0.9;
    c.gemm.k_half *= 1.4;
    c.attention.forward_eta_max *= 0.9;
    c.attention.backward_eta_max *= 0.92;
    c.attention.forward_half_seq *= 1.2;
    c.attention.backward_half_seq *= 1.2;
    c.hbm_efficiency = std::min(1.0, c.hbm_efficiency * 0.95);
    c.intra_node.alpha_s *= 1.5;
    c.intra_node.busbw_bytes_per_s *= 0.9;
    c.inter_node.alpha_s *= 1.3;
    c.inter_node.busbw_bytes_per_s *= 0.85;
    c.framework_efficiency = 1;
    // The default files state upper bounds for power (board power while computing and
    // while waiting on communication); the simulated machine draws less while waiting.
    c.power_compute_w = 0.95 * hw.board_power_w;
    c.power_comm_w = 0.55 * hw.board_power_w;
    c.validate();
    return c;
}

namespace {

enum class FaultKind { none, hang, error, oom, lost };

struct Fault {
    FaultKind kind = FaultKind::none;
    std::string phase;
    int rank = -1;  // -1: every rank
};

Fault parse_fault(const std::string& s) {
    Fault f;
    if (s.empty()) return f;
    const auto bad = [&] {
        return std::invalid_argument("fault = '" + s +
                                     "'; valid: KIND@PHASE or KIND@PHASE:RANK with KIND hang, error, oom or lost and "
                                     "PHASE operations, collectives, microrun or power");
    };
    const auto at = s.find('@');
    if (at == std::string::npos) throw bad();
    const std::string kind = s.substr(0, at);
    std::string rest = s.substr(at + 1);
    if (const auto colon = rest.find(':'); colon != std::string::npos) {
        const std::string r = rest.substr(colon + 1);
        if (r.empty() || r.size() > 6 ||
            !std::all_of(r.begin(), r.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
            throw bad();
        f.rank = std::stoi(r);
        rest = rest.substr(0, colon);
    }
    if (kind == "hang") f.kind = FaultKind::hang;
    else if (kind == "error") f.kind = FaultKind::error;
    else if (kind == "oom") f.kind = FaultKind::oom;
    else if (kind == "lost") f.kind = FaultKind::lost;
    else throw bad();
    if (rest != "operations" && rest != "collectives" && rest != "microrun" && rest != "power") throw bad();
    f.phase = rest;
    return f;
}

}  // namespace

void check_fault(const std::string& fault, int world_size, const std::vector<std::string>& phases, const Plan& plan) {
    const Fault f = parse_fault(fault);
    if (f.kind == FaultKind::none) return;
    const std::string never = "fault = '" + fault + "' would never fire: ";
    if (f.rank >= world_size)
        throw std::invalid_argument(never + "rank " + std::to_string(f.rank) + " does not exist (the run has " +
                                    std::to_string(world_size) + " rank" + (world_size == 1 ? "" : "s") + ", 0-" +
                                    std::to_string(world_size - 1) + ")");
    if (std::find(phases.begin(), phases.end(), f.phase) == phases.end()) {
        std::string list;
        for (const std::string& p : phases) list += (list.empty() ? "" : ",") + p;
        throw std::invalid_argument(never + "phase '" + f.phase + "' is not run (--phases " + list + ")");
    }
    const bool empty = f.phase == "operations" ? plan.gemm.empty() && plan.attention.empty() && plan.bandwidth.empty()
                       : f.phase == "collectives" ? plan.collectives.empty()
                       : f.phase == "microrun"    ? plan.microruns.empty()
                                                  : plan.power_phases.empty();
    if (empty) throw std::invalid_argument(never + "the plan has no " + f.phase + " cases (see its notes)");
    if (f.kind == FaultKind::oom && f.phase != "operations" && f.phase != "microrun")
        throw std::invalid_argument(never + "oom fires where a case allocates memory, in operations or microrun; " +
                                    f.phase + " allocates none");
}

namespace {

class Simulated final : public Backend {
public:
    Simulated(const HardwareProfile& hw, const SimulatedOptions& o, int rank)
        : hw_(hw), o_(o), fault_(parse_fault(o.fault)), rank_(rank), rng_(o.seed + static_cast<std::uint64_t>(rank)) {
        if (!(o.noise >= 0 && o.noise < 1))
            throw std::invalid_argument("noise = " + std::to_string(o.noise) + "; valid: [0, 1)");
        if (!(o.microrun_factor > 0)) throw std::invalid_argument("microrun_factor must be > 0");
        o_.truth.framework_efficiency = 1;
        o_.truth.validate();
        memory_bytes_ = (o.memory_gib > 0 ? o.memory_gib : hw.hbm_gib) * 1073741824.0;
    }

    std::string name() const override { return "simulated"; }
    // Its "true" calibration is a default one, whose attention law is FlashAttention-2's.
    AttentionKernel attention_kernel() const override { return AttentionKernel::flash2; }

    nlohmann::json device_info() override {
        return {{"gpu_name", "simulated " + hw_.display_name},
                {"memory_gib", memory_bytes_ / 1073741824.0},
                {"power_limit_w", hw_.board_power_w},
                {"simulated", true},
                {"truth", o_.truth.source}};
    }

    Timing gemm(const GemmCase& c, int, int) override {
        fault_point("operations");
        const double bytes = (c.m * c.k + c.k * c.n + c.m * c.n) * (c.fp8 ? 1.0 : 2.0);
        if (const Timing t = out_of_memory("operations", bytes); !t.skipped.empty()) return t;
        return noisy(gemm_time_s(hw_, o_.truth, c.m, c.n, c.k, c.fp8));
    }

    Timing attention(const AttentionCase& c, int, int) override {
        fault_point("operations");
        const double tokens = c.batch * c.seq_len;
        const double bytes = tokens * (c.heads + 2 * c.kv_heads) * c.head_dim * 2.0 * (c.backward ? 4.0 : 2.0);
        if (const Timing t = out_of_memory("operations", bytes); !t.skipped.empty()) return t;
        const double span = c.causal ? 0.5 * c.seq_len : c.seq_len;
        return noisy(
            attention_time_s(hw_, o_.truth, tokens, c.heads * c.head_dim, c.head_dim, span, c.seq_len, c.backward));
    }

    Timing bandwidth(const BandwidthCase& c, int, int) override {
        fault_point("operations");
        if (const Timing t = out_of_memory("operations", c.bytes); !t.skipped.empty()) return t;
        return noisy(memory_time_s(hw_, o_.truth, c.bytes));
    }

    Timing collective(World& w, const CollectiveCase& c, int, int, double timeout_s) override {
        fault_point("collectives");
        // Ranks synchronize per case, as NCCL's ring does: a rank that hangs stalls the others.
        w.barrier(timeout_s, "collectives");
        if (rank_ >= c.ranks) return {0, 0, "not in the ring", 0};
        return noisy(collective_time_s(c, o_.truth));
    }

    Timing microrun(World& w, const Plan& p, const MicrorunCase& c, int, int, double timeout_s) override {
        fault_point("microrun");
        w.barrier(timeout_s, "microrun");
        if (rank_ >= c.config.gpus) return {0, 0, "not in the ring", 0};
        const StepBreakdown s = estimate_microrun(p.model, hw_, o_.truth, c.config, c.layers);
        if (!s.memory.fits) return {0, 0, "out of memory: the micro-run needs more than the GPU has", 0};
        if (const Timing t = out_of_memory("microrun", s.memory.total_gib * 1073741824.0); !t.skipped.empty()) return t;
        // The ranks of a synchronous step see one step time: the same draw on every rank.
        std::mt19937_64 shared(o_.seed * 7919 + static_cast<std::uint64_t>(c.config.gpus));
        std::normal_distribution<double> z(0.0, o_.noise);
        return {s.step_time_s * o_.microrun_factor * std::exp(z(shared)), 2.56 * o_.noise, "", 0};
    }

    PowerPhaseResult power_phase(World& w, PowerPhaseKind k, double seconds, double timeout_s) override {
        fault_point("power");
        w.barrier(timeout_s, "power");
        // The simulated machine's watts per phase: the truth's compute, communication and
        // idle figures, the host-starved phase between idle and communication, and the spin
        // phase at idle watts and full utilization, as on a real H200 (docs/calibration.md,
        // "Power" under the fit).
        const double idle = o_.truth.power_idle_w, comm = o_.truth.power_comm_w, compute = o_.truth.power_compute_w;
        double watts = idle, util = 0;
        switch (k) {
            case PowerPhaseKind::idle: break;
            case PowerPhaseKind::spin: util = 100; break;
            case PowerPhaseKind::host_starved: watts = idle + 0.5 * (comm - idle), util = 40; break;
            case PowerPhaseKind::nccl: watts = comm, util = 100; break;
            case PowerPhaseKind::gemm: watts = compute, util = 100; break;
        }
        std::normal_distribution<double> z(0.0, 0.01);
        return {watts * std::exp(z(rng_)), util, static_cast<int>(seconds * 10), ""};
    }

private:
    void fault_point(const char* phase) {
        if (fault_.kind == FaultKind::none || fault_.phase != phase || (fault_.rank >= 0 && fault_.rank != rank_))
            return;
        switch (fault_.kind) {
            case FaultKind::hang:
                for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
            case FaultKind::error:
                throw BackendError("NCCL error on rank " + std::to_string(rank_) +
                                   ": unhandled system error (simulated ncclSystemError)");
            case FaultKind::lost:
                throw BackendError("the GPU of rank " + std::to_string(rank_) +
                                   " fell off the bus (simulated cudaErrorDevicesUnavailable)");
            default: break;
        }
    }

    Timing out_of_memory(const char* phase, double bytes) const {
        double limit = memory_bytes_;
        if (fault_.kind == FaultKind::oom && fault_.phase == phase && (fault_.rank < 0 || fault_.rank == rank_))
            limit = 256.0 * 1048576.0;  // the injected fault: a GPU with 256 MiB free
        Timing t;
        if (bytes > limit)
            t.skipped = "out of memory: needs " + std::to_string(static_cast<long long>(bytes / 1048576.0)) + " MiB, " +
                        std::to_string(static_cast<long long>(limit / 1048576.0)) + " MiB free";
        return t;
    }

    Timing noisy(double seconds) {
        std::normal_distribution<double> z(0.0, o_.noise);
        Timing t;
        t.seconds = seconds * std::exp(z(rng_));
        t.spread = 2.56 * o_.noise;  // P90 − P10 of a normal, in sd
        return t;
    }

    HardwareProfile hw_;
    SimulatedOptions o_;
    Fault fault_;
    int rank_ = 0;
    double memory_bytes_ = 0;
    std::mt19937_64 rng_;
};

}  // namespace

std::unique_ptr<Backend> make_simulated_backend(const HardwareProfile& hw, const SimulatedOptions& o, int rank) {
    return std::make_unique<Simulated>(hw, o, rank);
}

}  // namespace libscale::harness
