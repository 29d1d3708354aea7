#include "libscale/estimate/collective.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace libscale {

Collective parse_collective(std::string_view s) {
    if (s == "all_gather") return Collective::all_gather;
    if (s == "reduce_scatter") return Collective::reduce_scatter;
    if (s == "all_reduce") return Collective::all_reduce;
    if (s == "all_to_all") return Collective::all_to_all;
    throw std::invalid_argument("collective = '" + std::string(s) +
                                "'; valid: all_gather, reduce_scatter, all_reduce, all_to_all");
}

const char* to_string(Collective c) {
    switch (c) {
        case Collective::all_gather: return "all_gather";
        case Collective::reduce_scatter: return "reduce_scatter";
        case Collective::all_reduce: return "all_reduce";
        case Collective::all_to_all: return "all_to_all";
    }
    return "?";
}

double ring_time_s(Collective op, double bytes, std::int64_t ranks, const LinkLevel& link) {
    if (ranks <= 1 || bytes <= 0) return 0.0;
    const double n = static_cast<double>(ranks);
    const double passes = op == Collective::all_reduce ? 2.0 : 1.0;
    return passes * (link.alpha_s * (n - 1.0) + (n - 1.0) / n * bytes / link.busbw_bytes_per_s);
}

LinkLevel ring_link(std::int64_t ranks, std::int64_t ranks_per_node, const Calibration& cal) {
    if (ranks <= ranks_per_node || ranks <= 1) return cal.intra_node;
    const std::int64_t per_node = std::max<std::int64_t>(ranks_per_node, 1);
    const std::int64_t nodes = (ranks + per_node - 1) / per_node;
    const double busbw = per_node > 1 ? std::min(cal.intra_node.busbw_bytes_per_s,
                                                 static_cast<double>(per_node) * cal.inter_node.busbw_bytes_per_s)
                                      : cal.inter_node.busbw_bytes_per_s;
    const double alpha = (static_cast<double>(ranks - nodes) * cal.intra_node.alpha_s +
                          static_cast<double>(nodes - 1) * cal.inter_node.alpha_s) /
                         static_cast<double>(ranks - 1);
    return {alpha, busbw};
}

double all_to_all_time_s(double bytes, std::int64_t ranks, std::int64_t ranks_per_node, const Calibration& cal) {
    if (ranks <= 1 || bytes <= 0) return 0.0;
    const double n = static_cast<double>(ranks);
    const std::int64_t k = std::clamp<std::int64_t>(ranks_per_node, 1, ranks);
    const double share = bytes / n;
    const double nvlink = static_cast<double>(k - 1) * share / cal.intra_node.busbw_bytes_per_s;
    const double network = ranks > k ? static_cast<double>(ranks - k) * share / cal.inter_node.busbw_bytes_per_s : 0.0;
    const double alpha =
        (static_cast<double>(k - 1) * cal.intra_node.alpha_s + static_cast<double>(ranks - k) * cal.inter_node.alpha_s);
    return alpha + std::max(nvlink, network);
}

}  // namespace libscale
