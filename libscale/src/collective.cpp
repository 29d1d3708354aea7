#include "libscale/collective.hpp"

#include <stdexcept>
#include <string>

namespace libscale {

Collective parse_collective(std::string_view s) {
    if (s == "all_gather") return Collective::all_gather;
    if (s == "reduce_scatter") return Collective::reduce_scatter;
    if (s == "all_reduce") return Collective::all_reduce;
    throw std::invalid_argument("collective = '" + std::string(s) +
                                "'; valid: all_gather, reduce_scatter, all_reduce");
}

const char* to_string(Collective c) {
    switch (c) {
        case Collective::all_gather: return "all_gather";
        case Collective::reduce_scatter: return "reduce_scatter";
        case Collective::all_reduce: return "all_reduce";
    }
    return "?";
}

double ring_time_s(Collective op, double bytes, std::int64_t ranks, const LinkLevel& link) {
    if (ranks <= 1 || bytes <= 0) return 0.0;
    const double n = static_cast<double>(ranks);
    const double passes = op == Collective::all_reduce ? 2.0 : 1.0;
    return passes * (link.alpha_s * (n - 1.0) + (n - 1.0) / n * bytes / link.busbw_bytes_per_s);
}

const LinkLevel& ring_link(std::int64_t ranks, std::int64_t gpus_per_node, const Calibration& cal) {
    return ranks <= gpus_per_node ? cal.intra_node : cal.inter_node;
}

}  // namespace libscale
