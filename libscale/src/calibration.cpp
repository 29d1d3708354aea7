#include "libscale/calibration.hpp"

#include <cmath>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "libscale/hardware.hpp"

namespace libscale {

namespace {

void require(bool ok, const std::string& hw, const char* field, double v, const char* valid) {
    if (ok) return;
    std::ostringstream msg;
    msg << "calibration for '" << hw << "': " << field << " = " << v << "; " << valid;
    throw std::invalid_argument(msg.str());
}

}  // namespace

void Calibration::validate() const {
    const auto fin = [](double v) { return std::isfinite(v); };
    require(fin(eta_max) && eta_max > 0 && eta_max <= 1, hardware, "compute.eta_max", eta_max,
            "it must be in (0, 1]");
    require(fin(half_saturation_tokens) && half_saturation_tokens >= 0, hardware,
            "compute.half_saturation_tokens", half_saturation_tokens, "it must be >= 0");
    require(fin(intra_node.alpha_s) && intra_node.alpha_s >= 0, hardware, "comm.intra_node.alpha",
            intra_node.alpha_s, "it must be >= 0 seconds");
    require(fin(intra_node.busbw_bytes_per_s) && intra_node.busbw_bytes_per_s > 0, hardware,
            "comm.intra_node.busbw", intra_node.busbw_bytes_per_s, "it must be > 0 bytes/s");
    require(fin(inter_node.alpha_s) && inter_node.alpha_s >= 0, hardware, "comm.inter_node.alpha",
            inter_node.alpha_s, "it must be >= 0 seconds");
    require(fin(inter_node.busbw_bytes_per_s) && inter_node.busbw_bytes_per_s > 0, hardware,
            "comm.inter_node.busbw", inter_node.busbw_bytes_per_s, "it must be > 0 bytes/s");
    require(fin(hbm_efficiency) && hbm_efficiency > 0 && hbm_efficiency <= 1, hardware,
            "memory.hbm_efficiency", hbm_efficiency, "it must be in (0, 1]");
    require(fin(reserved_gib) && reserved_gib >= 0, hardware, "memory.reserved_gib", reserved_gib,
            "it must be >= 0");
    require(fin(power_compute_w) && power_compute_w >= 0, hardware, "power.compute", power_compute_w,
            "it must be >= 0 W");
    require(fin(power_comm_w) && power_comm_w >= 0, hardware, "power.comm", power_comm_w, "it must be >= 0 W");
    require(fin(power_idle_w) && power_idle_w >= 0, hardware, "power.idle", power_idle_w, "it must be >= 0 W");
    require(fin(step_overhead_s) && step_overhead_s >= 0, hardware, "step_overhead_s", step_overhead_s,
            "it must be >= 0 seconds");
}

Calibration resolve_calibration(const CalibrationFractions& f, const HardwareProfile& hw,
                                std::string kind, std::string source) {
    Calibration c;
    c.hardware = hw.name;
    c.kind = std::move(kind);
    c.source = std::move(source);
    c.eta_max = f.eta_max;
    c.half_saturation_tokens = f.half_saturation_tokens;
    c.intra_node = {f.intra_alpha_us * 1e-6, f.intra_busbw_fraction * hw.nvlink_bytes_per_s_unidir()};
    c.inter_node = {f.inter_alpha_us * 1e-6, f.inter_busbw_fraction * hw.nic_bytes_per_s()};
    c.hbm_efficiency = f.hbm_efficiency;
    c.reserved_gib = f.reserved_gib;
    c.power_compute_w = f.power_compute_fraction * hw.board_power_w;
    c.power_comm_w = f.power_comm_fraction * hw.board_power_w;
    c.power_idle_w = std::isnan(hw.idle_power_w) ? f.power_idle_fraction * hw.board_power_w
                                                 : hw.idle_power_w;
    c.validate();
    return c;
}

std::ostream& operator<<(std::ostream& os, const LinkLevel& l) {
    return os << "LinkLevel(alpha_s=" << l.alpha_s << ", busbw_bytes_per_s=" << l.busbw_bytes_per_s << ")";
}

std::ostream& operator<<(std::ostream& os, const Calibration& c) {
    return os << "Calibration(hardware='" << c.hardware << "', kind='" << c.kind
              << "', eta_max=" << c.eta_max << ", half_saturation_tokens=" << c.half_saturation_tokens
              << ", intra_node_busbw_gbps=" << c.intra_node.busbw_bytes_per_s / 1e9
              << ", inter_node_busbw_gbps=" << c.inter_node.busbw_bytes_per_s / 1e9
              << ", hbm_efficiency=" << c.hbm_efficiency << ")";
}

}  // namespace libscale
