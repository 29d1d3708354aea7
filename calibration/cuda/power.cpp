#include "power.hpp"
#include "libscale/estimate/statistics.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels.hpp"

namespace libscale::harness::cuda {

namespace {

using Clock = std::chrono::steady_clock;

// cudaDeviceProp::uuid as NVML prints it: "GPU-" and 8-4-4-4-12 hex digits.
std::string cuda_uuid(int device) {
    cudaDeviceProp p{};
    LS_CUDA(cudaGetDeviceProperties(&p, device));
    std::string s = "GPU-";
    for (int i = 0; i < 16; ++i) {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(p.uuid.bytes[i]));
        s += hex;
        if (i == 3 || i == 5 || i == 7 || i == 9) s += '-';
    }
    return s;
}

bool past(Clock::time_point start, double seconds) {
    return std::chrono::duration<double>(Clock::now() - start).count() >= seconds;
}

// Back-to-back 8192³ bf16 GEMMs: the compute band. A few in flight at a time, so the host
// can stop on time.
void gemm_phase(const Lt& lt, double seconds, std::int64_t size, double busy_fraction) {
    const GemmShape s{size, size, size, false};
    LtGemm g(lt, s);
    if (!g.unsupported().empty()) throw BackendError(g.unsupported());
    require_free(static_cast<double>(s.a_bytes() + s.b_bytes() + s.d_bytes()));
    DeviceBuffer a(s.a_bytes()), b(s.b_bytes()), d(s.d_bytes());
    Stream st;
    fill_operands(s, a.get(), b.get(), 7, st.get());
    const auto start = Clock::now();
    while (!past(start, seconds)) {
        const auto burst = Clock::now();
        for (int i = 0; i < 8; ++i) g.run(a.get(), b.get(), d.get(), st.get());
        wait_stream(st.get(), 600, "the power phase's GEMMs");
        if (busy_fraction < 1) {
            // Host-starved: the GPU idles while the host "prepares" the next burst, as a
            // data loader or a Python-bound step leaves it.
            const double busy = std::chrono::duration<double>(Clock::now() - burst).count();
            std::this_thread::sleep_for(std::chrono::duration<double>(busy * (1 - busy_fraction) / busy_fraction));
        }
    }
}

// Back-to-back 256 MiB all-reduces over every rank: the communication band. Every rank
// must issue the same number of them, so rank 0 sizes the count from a timed round and
// broadcasts it.
void nccl_phase(World& w, Nccl& nccl, double seconds, double timeout_s) {
    const double bytes = 256.0 * 1048576.0;
    void* comm = nccl.ring(w.size());
    // A rank that cannot allocate must not skip alone: its peers would wait inside NCCL
    // until the deadline. The ranks agree first, as the collective cases do (device.hpp).
    DeviceBuffer send, recv;
    std::string skip;
    try {
        require_free(2 * bytes);
        send = DeviceBuffer(static_cast<std::size_t>(bytes)), recv = DeviceBuffer(static_cast<std::size_t>(bytes));
    } catch (const OutOfMemory& e) {
        skip = e.what();
    }
    skip = agree_skip(w, skip, timeout_s, "power");
    if (!skip.empty()) throw OutOfMemory(skip);
    Stream st;
    LS_CUDA(cudaMemsetAsync(send.get(), 0, send.bytes(), st.get()));
    const auto round = [&] {
        for (int i = 0; i < 4; ++i)
            nccl.enqueue(comm, Collective::all_reduce, bytes, false, send.get(), recv.get(), st.get());
        nccl.wait(comm, st.get(), timeout_s, "the power phase's all-reduce");
    };
    // An untimed round first: NCCL connects peers on a communicator's first collectives
    // (NCCL_RUNTIME_CONNECT, default 1 since 2.22; NCCL docs, "Environment Variables"), which
    // can take seconds, and timing it would size `count` far too small, so the phase would
    // end long before the settling time and leave no samples.
    round();
    const auto t0 = Clock::now();
    round();
    const double each = std::chrono::duration<double>(Clock::now() - t0).count() / 4;
    const long long mine = std::max(1LL, std::llround(seconds / std::max(each, 1e-6)));
    const long long count = std::stoll(w.broadcast(std::to_string(mine), timeout_s, "the NCCL power phase's count"));
    for (long long i = 0; i < count; i += 16) {
        for (long long j = i; j < std::min(count, i + 16); ++j)
            nccl.enqueue(comm, Collective::all_reduce, bytes, false, send.get(), recv.get(), st.get());
        nccl.wait(comm, st.get(), timeout_s, "the power phase's all-reduce");
    }
}

// A kernel spinning on a flag, released after `seconds` by a copy on another stream. One
// block: NCCL runs one block per channel, a few of the SMs, and NVML's utilization counts
// the time any kernel runs (nvmlUtilization_t: "percent of time ... one or more kernels
// was executing"), so one spinning block already reads 100 % at near-idle power, the hang
// signature triage looks for; a block per SM would overstate a hang's power.
void spin_phase(double seconds) {
    DeviceBuffer flag(sizeof(int));
    Stream spin, release;
    void* pinned = nullptr;
    LS_CUDA(cudaMallocHost(&pinned, sizeof(int)));
    int* host = static_cast<int*>(pinned);
    const std::unique_ptr<int, void (*)(int*)> guard(host, [](int* p) { (void)cudaFreeHost(p); });
    *host = 1;
    LS_CUDA(cudaMemsetAsync(flag.get(), 0, sizeof(int), spin.get()));
    const auto bound_ns = static_cast<std::uint64_t>((seconds + 60) * 1e9);  // never spins forever
    LS_CUDA(spin_wait(flag.as<int>(), 1, bound_ns, spin.get()));
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    LS_CUDA(cudaMemcpyAsync(flag.get(), host, sizeof(int), cudaMemcpyHostToDevice, release.get()));
    wait_stream(release.get(), 60, "the spin phase's release");
    wait_stream(spin.get(), 60, "the spin kernel");
}

}  // namespace

NvmlGpu::NvmlGpu(int local_rank) {
    try {
        int dev = 0;
        LS_CUDA(cudaGetDevice(&dev));
        const std::string want = cuda_uuid(dev);
        int index = -1;
        {
            NvmlSource all;
            for (const NvmlGpuInfo& g : all.gpus())
                if (g.uuid == want) index = g.index;
            if (index < 0) {
                index = local_rank;
                match_ = "no NVML GPU has CUDA's UUID " + want + "; using NVML index " + std::to_string(local_rank) +
                         " (the local rank)";
            } else {
                match_ = "by UUID";
            }
        }
        source_ = std::make_unique<NvmlSource>(std::vector<int>{index});
        uuid_ = source_->gpus().at(0).uuid;
        power_limit_w_ = source_->gpus().at(0).power_limit_w;
    } catch (const BackendError&) {
        throw;
    } catch (const std::exception& e) {
        error_ = std::string("NVML: ") + e.what();
        source_.reset();
    }
}

PowerPhaseResult run_power_phase(World& w, PowerPhaseKind k, double seconds, double timeout_s, NvmlGpu& nvml,
                                 const Lt& lt, Nccl& nccl) {
    PowerPhaseResult out;
    if (k == PowerPhaseKind::nccl && (w.size() < 2 || !Nccl::built()))
        return {0, 0, 0, w.size() < 2 ? "the NCCL phase needs 2 or more GPUs" : "built without NCCL"};
    // Without NVML on this rank there is nothing to sample, but the NCCL phase still runs:
    // its peers (with NVML) would otherwise wait for this rank's all-reduces until the deadline.
    const bool sampling = nvml.source() != nullptr;
    if (!sampling && k != PowerPhaseKind::nccl) return {0, 0, 0, nvml.error()};
    constexpr double kSettle = 1.5;
    std::mutex mutex;
    std::vector<NvmlSample> samples;
    std::atomic<bool> stop{false};
    const auto start = Clock::now();
    std::thread sampler;
    if (sampling)
        sampler = std::thread([&] {
            while (!stop.load()) {
                std::vector<NvmlSample> s;
                try {
                    s = nvml.source()->poll();
                } catch (const std::exception&) {  // poll() reports failures in the sample; belt and braces
                }
                if (past(start, kSettle) && !s.empty()) {
                    std::lock_guard lock(mutex);
                    samples.push_back(s.front());
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
        });
    const auto join = [&] {
        stop = true;
        if (sampler.joinable()) sampler.join();
    };
    try {
        switch (k) {
            case PowerPhaseKind::idle: std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); break;
            case PowerPhaseKind::gemm: gemm_phase(lt, seconds, 8192, 1.0); break;
            // Small bursts, the GPU busy ~30 % of the time.
            case PowerPhaseKind::host_starved: gemm_phase(lt, seconds, 4096, 0.3); break;
            case PowerPhaseKind::nccl: nccl_phase(w, nccl, seconds, timeout_s); break;
            case PowerPhaseKind::spin: spin_phase(seconds); break;
        }
    } catch (...) {
        join();
        throw;
    }
    join();
    if (!sampling) return {0, 0, 0, nvml.error()};
    std::vector<double> watts, util;
    std::string last_error;
    for (const NvmlSample& s : samples) {
        if (s.error != 0) last_error = s.error_text;
        if (std::isfinite(s.power_w)) watts.push_back(s.power_w);
        if (std::isfinite(s.utilization_pct)) util.push_back(s.utilization_pct);
    }
    if (watts.empty())
        return {0, 0, 0,
                samples.empty() ? "no NVML samples after the " + std::to_string(kSettle) +
                                      " s settling time (phase of " + std::to_string(seconds) + " s)"
                                : "NVML power reads failed: " + last_error};
    out.watts = median(watts);
    out.utilization_pct = util.empty() ? std::numeric_limits<double>::quiet_NaN() : median(util);
    out.samples = static_cast<int>(watts.size());
    return out;
}

}  // namespace libscale::harness::cuda
