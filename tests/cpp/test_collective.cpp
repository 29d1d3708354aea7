// Ring collective cost (nccl-tests doc/PERFORMANCE.md), link selection and all-to-all.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "libscale/estimate/collective.hpp"
#include "libscale/io/catalog.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

TEST(Collective, RingTimeByHand) {
    const LinkLevel link{1e-6, 1e11};  // α = 1 µs per step, 100 GB/s busbw
    // n = 4, S = 1 GB: 3 · 1 µs + (3/4) · 1e9 / 1e11 = 3e-6 + 7.5e-3 = 7.503e-3 s.
    EXPECT_REL(ring_time_s(Collective::all_gather, 1e9, 4, link), 7.503e-3);
    EXPECT_REL(ring_time_s(Collective::reduce_scatter, 1e9, 4, link), 7.503e-3);
    // All-reduce = reduce-scatter + all-gather: twice the above.
    EXPECT_REL(ring_time_s(Collective::all_reduce, 1e9, 4, link), 15.006e-3);
    // n = 8: 7 µs + (7/8) · 1e9 / 1e11 = 7e-6 + 8.75e-3.
    EXPECT_REL(ring_time_s(Collective::all_gather, 1e9, 8, link), 8.757e-3);
    // No latency: n = 2, S = 2 GB at 1 TB/s: (1/2) · 2e9 / 1e12 = 1 ms.
    EXPECT_REL(ring_time_s(Collective::reduce_scatter, 2e9, 2, LinkLevel{0.0, 1e12}), 1e-3);
}

TEST(Collective, OneRankOrNoBytesCostsNothing) {
    const LinkLevel link{5e-6, 1e11};
    EXPECT_EQ(ring_time_s(Collective::all_gather, 1e9, 1, link), 0.0);
    EXPECT_EQ(ring_time_s(Collective::all_reduce, 1e9, 1, link), 0.0);
    EXPECT_EQ(ring_time_s(Collective::all_gather, 0.0, 8, link), 0.0);
}

TEST(Collective, BandwidthTermApproachesSOverBAsRanksGrow) {
    // (n−1)/n → 1: 1024 ranks, S = 1e9, B = 1e11, α = 0: 1023/1024 · 10 ms.
    EXPECT_REL(ring_time_s(Collective::all_gather, 1e9, 1024, LinkLevel{0.0, 1e11}), 1023.0 / 1024.0 * 1e-2);
}

TEST(Collective, LinkSelectionByGpusPerNode) {
    const Calibration cal = test::tiny_calibration();
    const auto same = [](const LinkLevel& a, const LinkLevel& b) {
        return a.alpha_s == b.alpha_s && a.busbw_bytes_per_s == b.busbw_bytes_per_s;
    };
    EXPECT_TRUE(same(ring_link(1, 8, cal), cal.intra_node));
    EXPECT_TRUE(same(ring_link(8, 8, cal), cal.intra_node));    // fills one node: NVLink
    EXPECT_TRUE(same(ring_link(72, 72, cal), cal.intra_node));  // an NVL72 domain is one node
    EXPECT_FALSE(same(ring_link(9, 8, cal), cal.intra_node));   // crosses a node boundary
}

TEST(Collective, CrossNodeRingUsesEveryNicOfTheNodeCappedByNvlink) {
    Calibration cal;
    cal.intra_node = {1e-6, 400e9};
    cal.inter_node = {10e-6, 40e9};
    // 16 ranks, 8 per node: 8 rails × 40 = 320 GB/s < 400 (NVLink): 320.
    // Latency: 15 steps = 14 NVLink (k = 2 nodes: n − k) + 1 network (k − 1):
    // (14 · 1 + 1 · 10) / 15 = 1.6 µs per step.
    const LinkLevel two_nodes = ring_link(16, 8, cal);
    EXPECT_REL(two_nodes.busbw_bytes_per_s, 320e9);
    EXPECT_REL(two_nodes.alpha_s, 1.6e-6);
    // 32 ranks over 4 nodes: (28 · 1 + 3 · 10) / 31 µs.
    EXPECT_REL(ring_link(32, 8, cal).alpha_s, 58e-6 / 31.0);
    // Enough NICs: 16 × 40 = 640 > 400, NVLink caps it.
    EXPECT_REL(ring_link(32, 16, cal).busbw_bytes_per_s, 400e9);
    // One GPU per node (HSDP's replica ring): one NIC, every step on the network.
    const LinkLevel replicas = ring_link(4, 1, cal);
    EXPECT_REL(replicas.busbw_bytes_per_s, 40e9);
    EXPECT_REL(replicas.alpha_s, 10e-6);
}

TEST(Collective, DefaultB300LinksAreNvlinkAndConnectX8) {
    // default-b300.json: intra busbw 0.82 of 900 GB/s one way = 738 GB/s, α 3.4 µs;
    // inter 0.94 of 800 Gb/s = 100 GB/s → 94 GB/s per NIC, α 14 µs.
    const Calibration cal = default_calibration(find_hardware("b300"));
    EXPECT_REL(cal.intra_node.busbw_bytes_per_s, 738e9);
    EXPECT_REL(cal.intra_node.alpha_s, 3.4e-6);
    EXPECT_REL(cal.inter_node.busbw_bytes_per_s, 94e9);
    EXPECT_REL(cal.inter_node.alpha_s, 14e-6);
    // Qwen3-32B layer, bf16 (975,196,672 B), on 8 vs 16 B300:
    //   8:  7 · 3.4 µs + 7/8 · 975,196,672 / 738e9 = 23.8 µs + 1156.2 µs ≈ 1.18 ms
    //   16: eight rails give 8 · 94 = 752 GB/s > 738, so NVLink still bounds it;
    //       latency 14 · 3.4 + 1 · 14 = 61.6 µs; 61.6 µs + 15/16 · 975,196,672 / 738e9 ≈ 1.30 ms
    const double bytes = 487'598'336.0 * 2.0;
    EXPECT_NEAR(ring_time_s(Collective::all_gather, bytes, 8, ring_link(8, 8, cal)),
                23.8e-6 + 7.0 / 8.0 * bytes / 738e9, 1e-12);
    EXPECT_NEAR(ring_time_s(Collective::all_gather, bytes, 16, ring_link(16, 8, cal)),
                61.6e-6 + 15.0 / 16.0 * bytes / 738e9, 1e-12);
    EXPECT_NEAR(ring_time_s(Collective::all_gather, bytes, 16, ring_link(16, 8, cal)), 1.30e-3, 0.01e-3);
}

TEST(Collective, ParseAndName) {
    for (Collective c :
         {Collective::all_gather, Collective::reduce_scatter, Collective::all_reduce, Collective::all_to_all})
        EXPECT_EQ(parse_collective(to_string(c)), c);
    EXPECT_STREQ(to_string(Collective::all_to_all), "all_to_all");
    EXPECT_EQ(parse_collective("all_to_all"), Collective::all_to_all);
    EXPECT_THROW((void)parse_collective("broadcast"), std::invalid_argument);
    // The error names the field, the value and every valid name.
    try {
        (void)parse_collective("alltoall");
        ADD_FAILURE() << "accepted 'alltoall'";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  "collective = 'alltoall'; valid: all_gather, reduce_scatter, all_reduce, all_to_all");
    }
}

// All-to-all (nccl-tests alltoall: an ncclSend/ncclRecv pair with every peer): S/n to each
// of the n−1 others. Inside one node it costs what an all-gather of S does.
TEST(Collective, AllToAllInsideOneNodeIsTheAllGatherRing) {
    Calibration cal;
    cal.intra_node = {5e-6, 400e9};
    cal.inter_node = {10e-6, 50e9};
    // 8 ranks, 8 per node, S = 1e9: share 1.25e8; NVLink 7 · 1.25e8 / 400e9 = 2.1875e-3 s,
    // latency 7 · 5 µs = 35 µs: 2.2225e-3 s.
    EXPECT_REL(all_to_all_time_s(1e9, 8, 8, cal), 2.2225e-3);
    EXPECT_REL(ring_time_s(Collective::all_to_all, 1e9, 8, cal.intra_node), 2.2225e-3);
    EXPECT_REL(ring_time_s(Collective::all_to_all, 1e9, 8, cal.intra_node),
               ring_time_s(Collective::all_gather, 1e9, 8, cal.intra_node));
    // A node with more GPUs than the run uses is still one node: k = ranks.
    EXPECT_REL(all_to_all_time_s(1e9, 4, 8, cal), 3 * 5e-6 + 3.0 / 4.0 * 1e9 / 400e9);
    EXPECT_EQ(all_to_all_time_s(1e9, 1, 8, cal), 0.0);
    EXPECT_EQ(all_to_all_time_s(0.0, 16, 8, cal), 0.0);
}

TEST(Collective, AllToAllAcrossNodesByHand) {
    Calibration cal;
    cal.intra_node = {5e-6, 400e9};
    cal.inter_node = {10e-6, 50e9};
    // 16 ranks, 8 per node, S = 1e9: share 1e9 / 16 = 62.5e6.
    //   NVLink:  7 · 62.5e6 / 400e9 = 1.09375e-3 s
    //   network: 8 · 62.5e6 / 50e9  = 10e-3 s (the larger: each GPU's own NIC binds)
    //   latency: 7 · 5 µs + 8 · 10 µs = 115 µs
    // total 10.115e-3 s.
    EXPECT_REL(all_to_all_time_s(1e9, 16, 8, cal), 10.115e-3);
    // Not a ring: the cross-node ring of the same S is bound by the node's 8 NICs together.
    EXPECT_LT(ring_time_s(Collective::all_gather, 1e9, 16, ring_link(16, 8, cal)), 5e-3);
    // NICs faster than NVLink's share: 8 · 62.5e6 / 1e12 = 0.5e-3 s < 1.09375e-3 s, so
    // NVLink binds: 115 µs + 1.09375e-3 s.
    Calibration fast = cal;
    fast.inter_node.busbw_bytes_per_s = 1e12;
    EXPECT_REL(all_to_all_time_s(1e9, 16, 8, fast), 1.20875e-3);
    // One GPU per node: every peer across the network, no NVLink term:
    // 3 · 10 µs + 3 · (1e9 / 4) / 50e9 = 30 µs + 15e-3 s.
    EXPECT_REL(all_to_all_time_s(1e9, 4, 1, cal), 15.03e-3);
}

}  // namespace
}  // namespace libscale
