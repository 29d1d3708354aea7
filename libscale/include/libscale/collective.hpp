// Ring collective cost (nccl-tests doc/PERFORMANCE.md): all-gather and reduce-scatter
// move S·(n−1)/n bytes per rank, all-reduce twice that; latency α per ring step.
#pragma once

#include <cstdint>
#include <string_view>

#include "libscale/calibration.hpp"

namespace libscale {

enum class Collective { all_gather, reduce_scatter, all_reduce };
Collective parse_collective(std::string_view s);
const char* to_string(Collective c);

// bytes: the full (unsharded) buffer size S. ranks == 1 costs nothing.
double ring_time_s(Collective op, double bytes, std::int64_t ranks, const LinkLevel& link);

// The link a ring over `ranks` GPUs runs at: NVLink while it stays inside one node,
// one NIC per GPU once it crosses nodes (HGX has a NIC per GPU).
const LinkLevel& ring_link(std::int64_t ranks, std::int64_t gpus_per_node, const Calibration& cal);

}  // namespace libscale
