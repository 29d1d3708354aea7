#include "libscale/spec/hardware.hpp"

#include <cmath>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace libscale {

namespace {

void require(bool ok, const std::string& hw, const char* field, double v, const char* valid) {
    if (ok) return;
    std::ostringstream msg;
    msg << "hardware '" << hw << "': " << field << " = " << v << "; " << valid;
    throw std::invalid_argument(msg.str());
}

// A name is one line of text: it heads tables and is matched against catalogs; a newline or
// another control character in it (a hand-edited file) would break every table it heads.
void require_plain_text(const std::string& text, const char* field) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            std::ostringstream msg;
            msg << "hardware " << field << " has a control character (byte 0x" << std::hex
                << static_cast<int>(static_cast<unsigned char>(c)) << "); valid: one line of printable text";
            throw std::invalid_argument(msg.str());
        }
}

}  // namespace

void HardwareProfile::validate() const {
    require_plain_text(name, "name");
    require_plain_text(display_name, "display_name");
    const auto pos = [](double v) { return std::isfinite(v) && v > 0; };
    require(pos(peak_bf16_tflops), name, "peak_bf16_tflops", peak_bf16_tflops, "it must be a positive number");
    require(std::isfinite(peak_fp8_tflops) && peak_fp8_tflops >= 0, name, "peak_fp8_tflops", peak_fp8_tflops,
            "it must be a number >= 0 (0: no fp8 tensor cores)");
    require(sm_count >= 0 && sm_count <= 100000, name, "sm_count", static_cast<double>(sm_count),
            "it must be an integer in 0..100000 (0: unknown)");
    require(pos(hbm_gib), name, "hbm_gib", hbm_gib, "it must be a positive number");
    require(pos(hbm_tbps), name, "hbm_tbps", hbm_tbps, "it must be a positive number");
    require(pos(nvlink_gbps_bidir), name, "nvlink_gbps_bidir", nvlink_gbps_bidir, "it must be a positive number");
    require(pos(nic_gbps_per_gpu), name, "nic_gbps_per_gpu", nic_gbps_per_gpu, "it must be a positive number");
    require(gpus_per_node > 0 && gpus_per_node <= kMaxGpusPerNode, name, "gpus_per_node",
            static_cast<double>(gpus_per_node), "it must be an integer in 1..1048576");
    require(pos(board_power_w), name, "board_power_w", board_power_w, "it must be a positive number");
    require(std::isnan(idle_power_w) || (idle_power_w >= 0 && idle_power_w <= board_power_w), name, "idle_power_w",
            idle_power_w, "it must be null or between 0 and board_power_w");
    require(std::isfinite(price_per_gpu_hour_usd) && price_per_gpu_hour_usd >= 0, name, "price_per_gpu_hour_usd",
            price_per_gpu_hour_usd, "it must be a number >= 0");
}

std::ostream& operator<<(std::ostream& os, const HardwareProfile& h) {
    os << "HardwareProfile(name='" << h.name << "', peak_bf16_tflops=" << h.peak_bf16_tflops
       << ", hbm_gib=" << h.hbm_gib << ", hbm_tbps=" << h.hbm_tbps << ", nvlink_gbps_bidir=" << h.nvlink_gbps_bidir
       << ", nic_gbps_per_gpu=" << h.nic_gbps_per_gpu << ", gpus_per_node=" << h.gpus_per_node
       << ", board_power_w=" << h.board_power_w << ", idle_power_w=";
    if (std::isnan(h.idle_power_w)) os << "None";
    else os << h.idle_power_w;
    return os << ", price_per_gpu_hour_usd=" << h.price_per_gpu_hour_usd << ")";
}

}  // namespace libscale
