// Progress (io/progress.hpp): its helpers, and the packers and the gate reporting into
// one. Every call given a Progress ends with done == total == its work (samples), and
// returns what the same call without one returns; a cancelled Progress stops the call.
// The sweep's and the fitter's reports are tested with them (test_sweep.cpp, test_fit.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "libscale/gate/packing.hpp"
#include "libscale/io/progress.hpp"

namespace libscale {
namespace {

using Lens = std::vector<std::uint32_t>;

// Lognormal lengths around 600 tokens, some past seq_len 4096 (truncated, split or dropped
// depending on the packer), many enough to report several times (ProgressLoop::kEvery).
Lens lognormal_lengths(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> d(6.4, 1.0);
    Lens out(n);
    for (auto& l : out) l = static_cast<std::uint32_t>(std::min(1.0 + d(rng), 60000.0));
    return out;
}

void expect_same(const PackResult& a, const PackResult& b) {
    EXPECT_EQ(a.bins.offsets, b.bins.offsets);
    EXPECT_EQ(a.bins.samples, b.bins.samples);
    EXPECT_EQ(a.bins.entry_tokens, b.bins.entry_tokens);
    EXPECT_EQ(a.bins.bin_tokens, b.bins.bin_tokens);
    EXPECT_EQ(a.input_tokens, b.input_tokens);
    EXPECT_EQ(a.overflow.truncated_tokens, b.overflow.truncated_tokens);
    EXPECT_EQ(a.overflow.split_samples, b.overflow.split_samples);
    EXPECT_EQ(a.overflow.dropped_samples, b.overflow.dropped_samples);
}

TEST(Progress, NullIsANoOp) {
    progress_start(nullptr, 10);
    progress_add(nullptr, 10);
    progress_check(nullptr);
    ProgressLoop loop(nullptr, 100, 100);
    for (int i = 0; i < 100; ++i) loop.step();
    loop.finish();
}

TEST(Progress, StartSetsTheTotalOnceAndAddCounts) {
    Progress p;
    progress_start(&p, 10);
    progress_start(&p, 99);  // the caller's total stands
    EXPECT_EQ(p.total.load(), 10u);
    progress_add(&p, 4);
    progress_add(&p, 6);
    EXPECT_EQ(p.done.load(), 10u);
}

TEST(Progress, LoopAddsExactlyItsWorkMonotonically) {
    // Loops with more, fewer and as many iterations as units of work, around kEvery.
    const std::uint64_t every = ProgressLoop::kEvery;
    for (const auto& [work, steps] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
             {1000, 5 * every + 3}, {5 * every + 3, 1000}, {3 * every, 3 * every}, {7, 0}, {0, 2 * every}}) {
        SCOPED_TRACE(std::to_string(work) + " work over " + std::to_string(steps) + " steps");
        Progress p;
        ProgressLoop loop(&p, work, steps);
        std::uint64_t last = 0;
        for (std::uint64_t i = 0; i < steps; ++i) {
            loop.step();
            const std::uint64_t now = p.done.load();
            EXPECT_GE(now, last);
            EXPECT_LE(now, work);
            last = now;
        }
        if (steps >= every && work > 0) {
            EXPECT_GT(p.done.load(), 0u);  // reported along the way
        }
        loop.finish();
        EXPECT_EQ(p.done.load(), work);
    }
}

TEST(Progress, CancelledThrows) {
    Progress p;
    p.cancel = true;
    EXPECT_THROW(progress_add(&p, 1), Cancelled);
    EXPECT_THROW(progress_start(&p, 1), Cancelled);
    EXPECT_EQ(p.done.load(), 0u);
    try {
        progress_check(&p);
        FAIL() << "no Cancelled";
    } catch (const Error& e) {  // a libscale::Error, so callers catching those see it
        EXPECT_EQ(std::string(e.what()), "cancelled");
    }
}

TEST(PackProgress, EveryPackerCountsItsSamples) {
    const Lens lengths = lognormal_lengths(100'000, 3);
    for (Packer packer : {Packer::trl_bfd, Packer::trl_bfd_split, Packer::trl_wrapped, Packer::torchtune_split,
                          Packer::llamafactory, Packer::none}) {
        // map batches of datasets' default size, and one batch of the whole dataset
        for (std::int64_t batch : {1000, 0}) {
            SCOPED_TRACE(std::string(to_string(packer)) + ", map_batch_size " + std::to_string(batch));
            Progress p;
            const PackResult with = pack(packer, lengths, 4096, batch, 2, &p);
            EXPECT_EQ(p.total.load(), lengths.size());
            EXPECT_EQ(p.done.load(), p.total.load());
            expect_same(with, pack(packer, lengths, 4096, batch, 2));
        }
    }
    // torchtune without splitting and NeMo refuse samples past seq_len: lengths that fit.
    Lens short_lengths = lengths;
    for (auto& l : short_lengths) l = std::min<std::uint32_t>(l, 4096);
    for (Packer packer : {Packer::torchtune, Packer::nemo_ffd}) {
        SCOPED_TRACE(to_string(packer));
        Progress p;
        const PackResult with = pack(packer, short_lengths, 4096, 1000, 1, &p);
        EXPECT_EQ(p.total.load(), short_lengths.size());
        EXPECT_EQ(p.done.load(), p.total.load());
        expect_same(with, pack(packer, short_lengths, 4096));
    }

    std::vector<std::int64_t> indices(50'000);
    for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<std::int64_t>(2 * i);
    Progress q;
    const Bins axolotl = pack_axolotl_rank(lengths, indices, 4096, &q);
    EXPECT_EQ(q.total.load(), indices.size());
    EXPECT_EQ(q.done.load(), q.total.load());
    EXPECT_EQ(axolotl.offsets, pack_axolotl_rank(lengths, indices, 4096).offsets);
}

TEST(GateProgress, GlobalAndPerRankPackingCountTheirSamples) {
    // 100,003 samples over 8 ranks: per-rank packing pads each shard to ceil(n / 8) samples
    // (DistributedSampler), or cuts it to floor(n / 8) with drop_last.
    const Lens all_lengths = lognormal_lengths(100'003, 5);
    Lens capped = all_lengths;  // NeMo refuses samples past seq_len
    for (auto& l : capped) l = std::min<std::uint32_t>(l, 4096);
    const std::uint64_t n = all_lengths.size();
    struct Case {
        Packer packer;
        bool shard_before_packing, shuffle, drop_last;
        std::uint64_t total;
    };
    for (const Case& k : std::vector<Case>{{Packer::trl_bfd, false, false, false, n},
                                           {Packer::nemo_ffd, false, true, false, n},
                                           {Packer::trl_bfd, true, false, false, 8 * ((n + 7) / 8)},
                                           {Packer::llamafactory, true, true, true, 8 * (n / 8)},
                                           {Packer::axolotl_multipack, false, true, false, 8 * ((n + 7) / 8)}}) {
        SCOPED_TRACE(std::string(to_string(k.packer)) + (k.shard_before_packing ? ", sharded first" : "") +
                     (k.shuffle ? ", shuffled" : "") + (k.drop_last ? ", drop_last" : ""));
        const Lens& lengths = k.packer == Packer::nemo_ffd ? capped : all_lengths;
        GateConfig c;
        c.packer = k.packer;
        c.seq_len = 4096;
        c.world_size = 8;
        c.shard_before_packing = k.shard_before_packing;
        c.shuffle = k.shuffle;
        c.seed = 11;
        c.sampler_drop_last = k.drop_last;
        Progress p;
        const GateResult with = run_gate(lengths, c, &p);
        EXPECT_EQ(p.total.load(), k.total);
        EXPECT_EQ(p.done.load(), p.total.load());
        const GateResult without = run_gate(lengths, c);
        EXPECT_EQ(with.verdict(), without.verdict());
        EXPECT_EQ(with.global_bins, without.global_bins);
        EXPECT_EQ(with.total_tokens, without.total_tokens);
        ASSERT_EQ(with.ranks.size(), without.ranks.size());
        for (std::size_t r = 0; r < with.ranks.size(); ++r) {
            EXPECT_EQ(with.ranks[r].micro_batches, without.ranks[r].micro_batches);
            EXPECT_EQ(with.ranks[r].tokens, without.ranks[r].tokens);
        }
        Progress q;
        EXPECT_EQ(shard_and_pack(lengths, c, &q).rank_bin_tokens, shard_and_pack(lengths, c).rank_bin_tokens);
        EXPECT_EQ(q.done.load(), k.total);
    }
}

TEST(GateProgress, SamplerDrawsOnePermutationForEveryRank) {
    // The gate draws the shuffle once for all ranks: the same indices as one draw per rank.
    for (bool drop_last : {false, true}) {
        const DistributedSampler sampler(1001, 6, true, 42, 3, drop_last);
        for (std::int64_t r = 0; r < 6; ++r)
            EXPECT_EQ(sampler.indices(r), distributed_sampler_indices(1001, 6, r, true, 42, 3, drop_last));
        EXPECT_EQ(sampler.num_samples(), drop_last ? 166 : 167);
    }
    EXPECT_THROW(DistributedSampler(10, 2).indices(2), std::invalid_argument);
    EXPECT_THROW(DistributedSampler(0, 2), std::invalid_argument);
}

TEST(GateProgress, CancelledGateThrowsCancelled) {
    const Lens lengths = lognormal_lengths(1000, 7);
    GateConfig c;
    c.seq_len = 4096;
    c.world_size = 2;
    Progress p;
    p.cancel = true;
    EXPECT_THROW(run_gate(lengths, c, &p), Cancelled);
    EXPECT_EQ(p.done.load(), 0u);
    c.packer = Packer::axolotl_multipack;
    EXPECT_THROW(run_gate(lengths, c, &p), Cancelled);
}

}  // namespace
}  // namespace libscale
