#include "libscale/calibrate/plausibility.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "libscale/calibrate/fit.hpp"
#include "libscale/estimate/compute_model.hpp"

namespace libscale {

namespace {

bool same(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

[[noreturn]] void impossible(const std::string& record, double rate, double peak, const char* unit,
                             const std::string& peak_name, double margin) {
    std::ostringstream msg;
    msg.precision(4);
    msg << record << " ran at " << rate << ' ' << unit << ", " << rate / peak << " x " << peak_name << " (" << peak
        << ' ' << unit << "; at most " << margin
        << " x is plausible): no GPU beats its peak; check the record's time and its unit (seconds)";
    throw std::invalid_argument(msg.str());
}

}  // namespace

void check_plausible(const MeasurementSet& data, const HardwareProfile& hw) {
    const std::string on = " of " + hw.name;
    for (std::size_t i = 0; i < data.gemm.size(); ++i) {
        const GemmRun& g = data.gemm[i];
        if (!same(g.hardware, hw.name)) continue;
        const double peak = (g.fp8 ? hw.peak_fp8_tflops : hw.peak_bf16_tflops);
        const double rate = 2 * g.m * g.n * g.k / g.seconds / 1e12;
        if (peak > 0 && rate > kPeakMargin * peak)
            impossible("GEMM record " + std::to_string(i), rate, peak, "TFLOP/s",
                       std::string("the ") + (g.fp8 ? "fp8" : "bf16") + " peak" + on, kPeakMargin);
    }
    for (std::size_t i = 0; i < data.attention.size(); ++i) {
        const AttentionRun& a = data.attention[i];
        if (!same(a.hardware, hw.name)) continue;
        const double span = a.causal ? 0.5 * a.seq_len : a.seq_len;
        const double rate =
            attention_flops(a.batch * a.seq_len, a.heads * a.head_dim, span, a.backward) / a.seconds / 1e12;
        if (hw.peak_bf16_tflops > 0 && rate > kPeakMargin * hw.peak_bf16_tflops)
            impossible("attention record " + std::to_string(i), rate, hw.peak_bf16_tflops, "TFLOP/s",
                       "the bf16 peak" + on, kPeakMargin);
    }
    for (std::size_t i = 0; i < data.bandwidth.size(); ++i) {
        const BandwidthRun& b = data.bandwidth[i];
        if (!same(b.hardware, hw.name) || !(hw.hbm_tbps > 0)) continue;
        const double rate = b.bytes / b.seconds / 1e12;
        const bool cached = b.bytes <= kCacheResidentCopyBytes;
        const double margin = cached ? kCacheCopyMargin : kPeakMargin;
        if (rate > margin * hw.hbm_tbps)
            impossible("bandwidth record " + std::to_string(i), rate, hw.hbm_tbps, "TB/s",
                       "the HBM rate" + on + (cached ? " (a copy that fits in L2)" : ""), margin);
    }
    for (std::size_t i = 0; i < data.collectives.size(); ++i) {
        const CollectiveRun& c = data.collectives[i];
        if (!same(c.hardware, hw.name) || c.ranks < 2) continue;
        const bool intra = c.ranks <= c.ranks_per_node;
        const double n = static_cast<double>(c.ranks);
        double link =
            intra ? hw.nvlink_bytes_per_s_unidir() : std::max(hw.nvlink_bytes_per_s_unidir(), hw.nic_bytes_per_s());
        std::string link_name = std::string("one direction of ") + (intra ? "NVLink" : "the fastest link");
        // An all-to-all across nodes sends (n−k)/n of its buffer through each GPU's own NIC
        // (all_to_all_time_s), so its bus bandwidth as defined below can reach (n−1)/(n−k) ×
        // the NIC's; bounded by the larger of that and NVLink (never below the rings' bound).
        if (!intra && c.op == Collective::all_to_all) {
            const double k = static_cast<double>(std::clamp<std::int64_t>(c.ranks_per_node, 1, c.ranks));
            const double nic_share = (n - 1) / (n - k) * hw.nic_bytes_per_s();
            if (nic_share > hw.nvlink_bytes_per_s_unidir()) {
                link = nic_share;
                link_name = "(n-1)/(n-k) = " + std::to_string(c.ranks - 1) + "/" +
                            std::to_string(c.ranks - static_cast<std::int64_t>(k)) +
                            " x one NIC (an all-to-all sends (n-k)/n of its buffer off the node)";
            } else {
                link = hw.nvlink_bytes_per_s_unidir();
                link_name = "one direction of NVLink";
            }
        }
        if (!(link > 0)) continue;
        // Bus bandwidth as nccl-tests defines it (NVIDIA/nccl-tests doc/PERFORMANCE.md at commit
        // 29f4114f027fed903649a3c81babc5d52e8d41ae): (n−1)/n · S / t for
        // all-gather, reduce-scatter and all-to-all (src/alltoall.cu, AlltoAllGetBw), twice
        // that for all-reduce.
        const double passes = c.op == Collective::all_reduce ? 2.0 : 1.0;
        const double bus = passes * (n - 1) / n * c.bytes / c.seconds / 1e9;
        if (bus > kCollectiveMargin * link / 1e9)
            impossible("collective record " + std::to_string(i) + " (" + to_string(c.op) + ")", bus, link / 1e9, "GB/s",
                       link_name + on, kCollectiveMargin);
    }
    for (std::size_t i = 0; i < data.power.size(); ++i) {
        const PowerRecord& p = data.power[i];
        if (!same(p.hardware, hw.name) || !(hw.board_power_w > 0)) continue;
        if (p.watts > kPowerMargin * hw.board_power_w)
            impossible("power record " + std::to_string(i) + " (" + p.phase + ")", p.watts, hw.board_power_w, "W",
                       "the board power limit" + on, kPowerMargin);
    }
}

void check_memory_plausible(std::size_t index, const StepRun& s, const HardwareProfile& hw) {
    if (!(s.memory_gib > kPeakMargin * hw.hbm_gib) || !(hw.hbm_gib > 0)) return;
    std::ostringstream msg;
    msg.precision(4);
    msg << "step record " << index << " (" << s.model << ", " << s.config.gpus
        << " GPUs): memory_gib = " << s.memory_gib << " is " << s.memory_gib / hw.hbm_gib << " x the " << hw.hbm_gib
        << " GiB of " << hw.name << " (at most " << kPeakMargin
        << " x is plausible): a GPU cannot hold more than its memory; check the figure and its unit (GiB per GPU)";
    throw std::invalid_argument(msg.str());
}

void check_step_plausible(std::size_t index, const StepRun& s, double predicted_mfu, double predicted_step_time_s,
                          const HardwareProfile& hw) {
    check_memory_plausible(index, s, hw);
    const double mfu = predicted_mfu * predicted_step_time_s / s.step_time_s;  // MFU is inverse in the time
    const bool fp8 = s.config.precision == Precision::fp8 && hw.peak_fp8_tflops > 0;
    // The step model's MFU is against the bf16 peak; fp8 GEMMs may beat that by their peak ratio.
    const double ceiling = fp8 ? hw.peak_fp8_tflops / hw.peak_bf16_tflops : 1.0;
    if (!(mfu > kPeakMargin * ceiling)) return;
    std::ostringstream msg;
    msg.precision(4);
    msg << "step record " << index << " (" << s.model << ", " << s.config.gpus << " GPUs, step " << s.step_time_s
        << " s) does " << 100 * mfu << " % of " << hw.name << "'s "
        << (fp8 ? "bf16 peak (fp8 GEMMs: at most " + std::to_string(static_cast<int>(100 * ceiling)) + " %)"
                : std::string("bf16 peak (model FLOPs utilization)"))
        << ": no trainer beats the GPU's peak; check the step time, tokens/s and their units";
    throw std::invalid_argument(msg.str());
}

}  // namespace libscale
