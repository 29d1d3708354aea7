// Collective cost (nccl-tests doc/PERFORMANCE.md): all-gather and reduce-scatter move
// S·(n−1)/n bytes per rank, all-reduce twice that; latency α per ring step. All-to-all
// (nccl-tests alltoall: one ncclSend/ncclRecv pair per peer in a group) moves S/n to each
// of the n−1 peers; its bus bandwidth is defined as for all-gather, S·(n−1)/n / t.
#pragma once

#include <cstdint>
#include <string_view>

#include "libscale/calibrate/calibration.hpp"

namespace libscale {

enum class Collective { all_gather, reduce_scatter, all_reduce, all_to_all };
Collective parse_collective(std::string_view s);
const char* to_string(Collective c);

// bytes: the full (unsharded) buffer size S; for all_to_all each rank's send buffer.
// ranks == 1 costs nothing. On one link level all_to_all costs what all_gather does.
double ring_time_s(Collective op, double bytes, std::int64_t ranks, const LinkLevel& link);

// The effective link of a ring over `ranks` GPUs, `ranks_per_node` of them in each node
// it spans. Inside one node: NVLink. Across nodes NCCL runs one channel per NIC, each
// crossing between nodes on its own rail (HGX has a NIC per GPU), so the ring's bus
// bandwidth is the node's NICs together, capped by NVLink: min(intra, ranks_per_node ×
// inter) (nccl-tests#119: 4 × 200G NICs → "96GB/s is the target"; #309: all_reduce 480
// GB/s on one HGX node, 470 on two). Latency: the n−1 ring steps are k−1 network steps
// and n−k NVLink steps over k nodes (NCCL's tuning model), averaged into α.
LinkLevel ring_link(std::int64_t ranks, std::int64_t ranks_per_node, const Calibration& cal);

// All-to-all of `bytes` per rank (S/n to each peer) over `ranks` GPUs, `ranks_per_node` in
// each node. There is no ring: every GPU sends (k−1)·S/n to the peers in its node over
// NVLink and (n−k)·S/n across nodes through its own NIC (one per GPU on HGX), both at
// once, so the slower of the two sets the time; latency α per peer, as nccl-tests'
// alltoall grows with n at small sizes. Inside one node this equals ring_time_s.
double all_to_all_time_s(double bytes, std::int64_t ranks, std::int64_t ranks_per_node, const Calibration& cal);

}  // namespace libscale
