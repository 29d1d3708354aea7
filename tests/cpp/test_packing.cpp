// Packers checked bin for bin against hand-worked examples and against plain O(n²)
// reference implementations written here from the trainers' Python; the gate's verdict,
// remedy and sampler semantics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "libscale/gate/packing.hpp"

namespace libscale {
namespace {

using Lens = std::vector<std::uint32_t>;
using BinList = std::vector<std::vector<std::uint32_t>>;

BinList as_list(const Bins& b) {
    BinList out;
    for (std::int64_t i = 0; i < b.num_bins(); ++i) {
        auto s = b.bin(i);
        out.emplace_back(s.begin(), s.end());
    }
    return out;
}

// ---- references (plain, quadratic, written from the trainers' Python) -------------

struct Frag {
    std::uint32_t len, sample;
};

// drop_empty: TRL's _pack_bfd filters out 0-token samples first (pc.filter(lengths > 0)).
std::vector<Frag> ref_items(const Lens& ls, std::size_t lo, std::size_t hi, std::uint32_t S, bool split,
                            bool drop_empty) {
    std::vector<Frag> v;
    for (std::size_t i = lo; i < hi; ++i) {
        if (drop_empty && ls[i] == 0) continue;
        if (!split) {
            v.push_back({std::min(ls[i], S), static_cast<std::uint32_t>(i)});
        } else {
            for (std::uint32_t left = ls[i]; left > 0;) {
                const std::uint32_t f = std::min(left, S);
                v.push_back({f, static_cast<std::uint32_t>(i)});
                left -= f;
            }
        }
    }
    return v;
}

// TRL BFD: the bin with the least room ≥ len; equal room → the bin that reached that
// room earliest (space_to_bin deque popleft).
BinList ref_bfd(const Lens& ls, std::uint32_t S, bool split, std::size_t batch) {
    BinList out;
    const std::size_t step = batch == 0 ? ls.size() : batch;
    for (std::size_t lo = 0; lo < ls.size(); lo += step) {
        auto items = ref_items(ls, lo, std::min(ls.size(), lo + step), S, split, true);
        std::vector<std::size_t> order(items.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return items[a].len > items[b].len; });
        BinList bins;
        std::vector<std::uint32_t> room;
        std::vector<std::int64_t> since;
        std::int64_t clock = 0;
        for (std::size_t k : order) {
            std::int64_t best = -1;
            for (std::size_t b = 0; b < bins.size(); ++b) {
                if (room[b] < items[k].len) continue;
                if (best < 0 || room[b] < room[static_cast<std::size_t>(best)] ||
                    (room[b] == room[static_cast<std::size_t>(best)] &&
                     since[b] < since[static_cast<std::size_t>(best)]))
                    best = static_cast<std::int64_t>(b);
            }
            if (best < 0) {
                bins.emplace_back();
                room.push_back(S);
                since.push_back(0);
                best = static_cast<std::int64_t>(bins.size()) - 1;
            }
            const auto b = static_cast<std::size_t>(best);
            bins[b].push_back(items[k].sample);
            room[b] -= items[k].len;
            since[b] = ++clock;
        }
        out.insert(out.end(), bins.begin(), bins.end());
    }
    return out;
}

// NeMo first_fit_decreasing (lengths ≤ S; a 0 fits the first bin); equal lengths in
// input order.
BinList ref_ffd(const Lens& ls, std::uint32_t S) {
    auto items = ref_items(ls, 0, ls.size(), S, false, false);
    std::stable_sort(items.begin(), items.end(), [](const Frag& a, const Frag& b) { return a.len > b.len; });
    BinList bins;
    std::vector<std::uint32_t> used;
    for (const auto& it : items) {
        std::size_t b = 0;
        while (b < bins.size() && used[b] + it.len > S) ++b;
        if (b == bins.size()) {
            bins.emplace_back();
            used.push_back(0);
        }
        bins[b].push_back(it.sample);
        used[b] += it.len;
    }
    return bins;
}

// LLaMA-Factory greedy_knapsack + length2indexes[length].pop(), per batch.
BinList ref_llamafactory(const Lens& ls, std::uint32_t S, std::size_t batch) {
    BinList out;
    for (std::size_t lo = 0; lo < ls.size(); lo += batch) {
        const std::size_t hi = std::min(ls.size(), lo + batch);
        std::vector<std::uint32_t> numbers;
        std::vector<std::vector<std::uint32_t>> l2i(S + 1);
        for (std::size_t i = lo; i < hi; ++i) {
            if (ls[i] > S) continue;
            numbers.push_back(ls[i]);
            l2i[ls[i]].push_back(static_cast<std::uint32_t>(i));
        }
        std::sort(numbers.begin(), numbers.end());
        while (!numbers.empty()) {
            std::vector<std::uint32_t> knap;
            std::uint32_t room = S;
            for (;;) {
                auto it = std::upper_bound(numbers.begin(), numbers.end(), room);  // bisect
                if (it == numbers.begin()) break;
                --it;
                room -= *it;
                const std::uint32_t len = *it;
                numbers.erase(it);
                knap.push_back(l2i[len].back());
                l2i[len].pop_back();
            }
            out.push_back(knap);
        }
    }
    return out;
}

// torchtune PackedDataset._pack, split_across_pack=False, tracking token counts only.
BinList ref_torchtune(const Lens& ls, std::uint32_t S) {
    BinList packs;
    std::vector<std::uint32_t> cur_samples;
    std::uint64_t cur_tokens = 0, prev_boundary = 0;
    for (std::size_t i = 0; i < ls.size(); ++i) {
        cur_samples.push_back(static_cast<std::uint32_t>(i));
        cur_tokens += ls[i];
        while (cur_tokens > S) {
            packs.emplace_back(cur_samples.begin(), cur_samples.end() - 1);
            cur_tokens -= prev_boundary;
            cur_samples = {cur_samples.back()};
        }
        prev_boundary = cur_tokens;
    }
    if (cur_tokens > 0) packs.push_back(cur_samples);
    return packs;
}

// Axolotl allocate(lengths, cumsum, rank=0, c, n=1) literally: binary search with
// ffd_check for the longest prefix, then ffd_with_result.
BinList ref_axolotl(const Lens& ls, const std::vector<std::int64_t>& idx, std::uint32_t c) {
    std::vector<std::uint64_t> lengths, cumsum;
    for (auto i : idx) lengths.push_back(ls[static_cast<std::size_t>(i)]);
    std::uint64_t acc = 0;
    for (auto l : lengths) cumsum.push_back(acc += l);
    auto ffd_check = [&](std::size_t start, std::size_t count) {
        std::vector<std::uint64_t> a(lengths.begin() + static_cast<std::ptrdiff_t>(start),
                                     lengths.begin() + static_cast<std::ptrdiff_t>(start + count));
        std::sort(a.rbegin(), a.rend());
        std::uint64_t bin = c;
        for (auto s : a) {
            if (bin < s) return false;
            bin -= s;
        }
        return true;
    };
    BinList out;
    std::uint64_t s = 0;
    std::size_t start = 0;
    for (;;) {
        std::size_t left = 1;
        std::size_t right =
            1 + static_cast<std::size_t>(
                    std::upper_bound(cumsum.begin() + static_cast<std::ptrdiff_t>(start), cumsum.end(), s + c) -
                    (cumsum.begin() + static_cast<std::ptrdiff_t>(start)));
        while (right - left > 1) {
            const std::size_t mid = (left + right) / 2;
            if (ffd_check(start, mid)) left = mid;
            else right = mid;
        }
        const std::size_t take = std::min(left, lengths.size() - start);
        if (take == 0) break;  // ffd_with_result on nothing: 0 bins < n
        std::vector<std::uint32_t> bin;
        for (std::size_t k = start; k < start + take; ++k) bin.push_back(static_cast<std::uint32_t>(idx[k]));
        out.push_back(bin);
        start += take;
        s = cumsum[start - 1];
    }
    return out;
}

// Seeded inputs with the troublesome shapes.
Lens random_lengths(std::mt19937_64& rng, std::size_t n, std::uint32_t S, int shape) {
    Lens v(n);
    for (auto& x : v) {
        switch (shape) {
            case 0: x = 1 + static_cast<std::uint32_t>(rng() % S); break;  // uniform
            case 1:
                x = S - static_cast<std::uint32_t>(rng() % std::max(1U, S / 8));  // near S
                break;
            case 2: x = 1 + static_cast<std::uint32_t>(rng() % 4); break;  // tiny
            case 4:                                                        // with 0-token samples
                x = (rng() % 3 == 0) ? 0 : 1 + static_cast<std::uint32_t>(rng() % S);
                break;
            default:
                x = (rng() % 5 == 0) ? S - static_cast<std::uint32_t>(rng() % 3)  // mixed
                                     : 1 + static_cast<std::uint32_t>(rng() % (S / 3 + 1));
        }
    }
    return v;
}

void check_invariants(const PackResult& r, const Lens& ls, std::uint32_t S, bool may_split) {
    std::vector<std::uint64_t> seen(ls.size(), 0);
    for (std::int64_t b = 0; b < r.bins.num_bins(); ++b) {
        std::int64_t t = 0;
        for (auto e = r.bins.offsets[b]; e < r.bins.offsets[b + 1]; ++e) {
            t += r.bins.entry_tokens[static_cast<std::size_t>(e)];
            seen[r.bins.samples[static_cast<std::size_t>(e)]] += r.bins.entry_tokens[static_cast<std::size_t>(e)];
        }
        EXPECT_LE(t, S) << "bin " << b;
        EXPECT_EQ(t, r.bins.bin_tokens[static_cast<std::size_t>(b)]);
    }
    for (std::size_t i = 0; i < ls.size(); ++i) {
        if (may_split || ls[i] <= S) EXPECT_EQ(seen[i], ls[i]) << "sample " << i;
        else EXPECT_EQ(seen[i], S) << "sample " << i;
    }
}

// ---- hand-worked examples ----------------------------------------------------------

TEST(PackTrlBfd, DocstringExample) {
    // TRL pack_dataset docstring: input_ids of lengths 5, 2, 3, 1 at seq_length 4 →
    // [[1,2,3,4], [8,9,10,11], [6,7]]: sample 0 truncated, then {2, 3}, then {1}.
    const Lens ls{5, 2, 3, 1};
    auto r = pack_trl_bfd(ls, 4);
    EXPECT_EQ(as_list(r.bins), (BinList{{0}, {2, 3}, {1}}));
    EXPECT_EQ(r.overflow.truncated_samples, 1);
    EXPECT_EQ(r.overflow.truncated_tokens, 1);
    // bfd_split: [[1,2,3,4], [8,9,10,5], [6,7,11]].
    auto s = pack_trl_bfd(ls, 4, true);
    EXPECT_EQ(as_list(s.bins), (BinList{{0}, {2, 0}, {1, 3}}));
    EXPECT_EQ(s.bins.entry_tokens, (std::vector<std::uint32_t>{4, 3, 1, 2, 1}));
    EXPECT_EQ(s.overflow.split_samples, 1);
}

TEST(PackTrlBfd, EqualRoomIsFirstInFirstOut) {
    // 6, 6 open two bins with room 4 (queue [bin0, bin1]); the 4s take bin0 then bin1.
    EXPECT_EQ(as_list(pack_trl_bfd(Lens{6, 6, 4, 4}, 10).bins), (BinList{{0, 2}, {1, 3}}));
    // 7, 5, 4, 2, 1 at 10: 7→A(3) 5→B(5) 4→B(1) 2→A(1); the 1 goes to B, which reached
    // room 1 first. (First fit would put it in A.)
    EXPECT_EQ(as_list(pack_trl_bfd(Lens{7, 4, 5, 2, 1}, 10).bins), (BinList{{0, 3}, {2, 1, 4}}));
    EXPECT_EQ(as_list(pack_nemo_ffd(Lens{7, 4, 5, 2, 1}, 10).bins), (BinList{{0, 3, 4}, {2, 1}}));
}

TEST(PackTrlBfd, BinsDoNotSpanMapBatches) {
    // batch 2: {3, 3} and {3, 3} pack separately into 2 + 2 bins... at seq 6, 1 bin each.
    auto r = pack_trl_bfd(Lens{3, 3, 3, 3, 3}, 6, false, 2);
    EXPECT_EQ(as_list(r.bins), (BinList{{0, 1}, {2, 3}, {4}}));
    EXPECT_EQ(map_batch_bounds(10, 4, 1), (std::vector<std::int64_t>{0, 4, 8, 10}));
    // num_proc 3 over 10 rows: contiguous shards of 4, 3, 3; batches restart in each.
    EXPECT_EQ(map_batch_bounds(10, 2, 3), (std::vector<std::int64_t>{0, 2, 4, 6, 7, 9, 10}));
    EXPECT_EQ(map_batch_bounds(10, 0, 1), (std::vector<std::int64_t>{0, 10}));
}

TEST(PackTrlWrapped, CutsEverySeqLenPerBatch) {
    auto r = pack_trl_wrapped(Lens{3, 4, 2}, 4, 0);
    EXPECT_EQ(as_list(r.bins), (BinList{{0, 1}, {1, 2}, {2}}));
    EXPECT_EQ(r.bins.bin_tokens, (std::vector<std::int64_t>{4, 4, 1}));
}

TEST(PackTorchtune, GreedyInOrder) {
    // max 6: [4] + 3 > 6 → pack {0}; {1, 2} = 5; 2 more → 7 > 6 → pack; {3} last.
    EXPECT_EQ(as_list(pack_torchtune(Lens{4, 3, 2, 2}, 6, false).bins), (BinList{{0}, {1, 2}, {3}}));
    EXPECT_THROW(pack_torchtune(Lens{4, 7}, 6, false), std::invalid_argument);
    auto s = pack_torchtune(Lens{4, 3, 2, 9}, 6, true);  // 18 tokens → 6, 6, 6
    EXPECT_EQ(as_list(s.bins), (BinList{{0, 1}, {1, 2, 3}, {3}}));
    EXPECT_EQ(s.bins.bin_tokens, (std::vector<std::int64_t>{6, 6, 6}));
}

TEST(PackLlamaFactory, GreedyKnapsackAndLifoIndexes) {
    // sorted [1,2,3,3,5,7] at 10: {7, 3} {5, 3, 2} {1}; the first 3 popped is sample 2.
    auto r = pack_llamafactory(Lens{3, 5, 3, 2, 7, 1}, 10);
    EXPECT_EQ(as_list(r.bins), (BinList{{4, 2}, {1, 0, 3}, {5}}));
    auto d = pack_llamafactory(Lens{3, 11, 2}, 10);
    EXPECT_EQ(as_list(d.bins), (BinList{{0, 2}}));
    EXPECT_EQ(d.overflow.dropped_samples, 1);
    EXPECT_EQ(d.overflow.dropped_tokens, 11);
}

TEST(PackAxolotl, LongestPrefixThatFits) {
    const Lens ls{4, 3, 2, 5, 1, 6};
    const std::vector<std::int64_t> idx{0, 1, 2, 3, 4, 5};
    EXPECT_EQ(as_list(pack_axolotl_rank(ls, idx, 9)), (BinList{{0, 1, 2}, {3, 4}, {5}}));
}

// What each trainer does with a 0-token sample (the readers pass 0 through).
TEST(PackEmptySamples, EachPackerAsItsTrainer) {
    // TRL _pack_bfd: "Filter out empty sequences" before packing (bfd and bfd_split),
    // counted as dropped; BFD then packs 5 and 3 into one row.
    for (const bool split : {false, true}) {
        auto b = pack_trl_bfd(Lens{3, 0, 5, 0}, 8, split);
        EXPECT_EQ(as_list(b.bins), (BinList{{2, 0}}));
        EXPECT_EQ(b.overflow.dropped_samples, 2);
        EXPECT_EQ(b.overflow.dropped_tokens, 0);
        EXPECT_EQ(pack_trl_bfd(Lens{0, 0}, 8, split).bins.num_bins(), 0);
    }
    // TRL _pack_wrapped: the concatenation has no token of it.
    EXPECT_EQ(as_list(pack_trl_wrapped(Lens{3, 0, 5}, 4, 0).bins), (BinList{{0, 2}, {2}}));
    // NeMo first_fit: sum(bin) + 0 <= pack_size holds for the first bin; none yet: a new one.
    EXPECT_EQ(as_list(pack_nemo_ffd(Lens{0, 5, 4, 0}, 8).bins), (BinList{{1, 0, 3}, {2}}));
    EXPECT_EQ(as_list(pack_nemo_ffd(Lens{0, 0}, 8).bins), (BinList{{0, 1}}));
    // torchtune: it joins the current pack (its seq_lens holds a 0); a last pack with no
    // token is not added.
    auto t = pack_torchtune(Lens{0, 4, 0, 3, 0}, 6, false);
    EXPECT_EQ(as_list(t.bins), (BinList{{0, 1, 2}, {3, 4}}));
    EXPECT_EQ(t.bins.bin_tokens, (std::vector<std::int64_t>{4, 3}));
    EXPECT_EQ(pack_torchtune(Lens{0, 0}, 6, false).bins.num_bins(), 0);
    EXPECT_EQ(pack_torchtune(Lens{0, 0}, 6, true).bins.num_bins(), 0);
    // LLaMA-Factory greedy_knapsack: bisect always finds a 0 once nothing larger fits, so
    // the first knapsack takes them all; length2indexes[0].pop() takes the last first.
    EXPECT_EQ(as_list(pack_llamafactory(Lens{0, 6, 0, 4}, 10).bins), (BinList{{1, 3, 2, 0}}));
    EXPECT_EQ(as_list(pack_llamafactory(Lens{0, 0}, 10).bins), (BinList{{1, 0}}));
    // No packing: the DataLoader still yields the sample, a row of 0 tokens.
    auto n = pack_none(Lens{0, 2}, 8);
    EXPECT_EQ(as_list(n.bins), (BinList{{0}, {1}}));
    EXPECT_EQ(n.bins.bin_tokens, (std::vector<std::int64_t>{0, 2}));
}

// nemo/utils/sequence_packing_utils.py create_hist: counts = [0] * (truncate_seq_len + 1);
// counts[seq_len] += 1 raises IndexError for a longer sample.
TEST(PackNemo, OverLongSampleRaisesAsCreateHist) {
    try {
        pack_nemo_ffd(Lens{3, 9, 2}, 8);
        ADD_FAILURE() << "no throw";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).rfind("lengths[1] = 9 > seq_len = 8: NeMo's create_hist", 0), 0U) << e.what();
        EXPECT_NE(std::string(e.what()).find("IndexError"), std::string::npos);
    }
    EXPECT_EQ(pack_nemo_ffd(Lens{3, 8, 2}, 8).bins.num_bins(), 2);  // seq_len itself fits
}

TEST(PackNone, OneSamplePerRow) {
    auto r = pack_none(Lens{3, 12, 5}, 8);
    EXPECT_EQ(as_list(r.bins), (BinList{{0}, {1}, {2}}));
    EXPECT_EQ(r.bins.bin_tokens, (std::vector<std::int64_t>{3, 8, 5}));
    EXPECT_EQ(r.overflow.truncated_tokens, 4);
}

TEST(PackInput, RejectsBadInput) {
    EXPECT_THROW(pack_trl_bfd(Lens{}, 8), std::invalid_argument);
    EXPECT_THROW(pack_nemo_ffd(Lens{3}, 0), std::invalid_argument);
    EXPECT_THROW(parse_packer("bfdx"), std::invalid_argument);
    EXPECT_EQ(parse_packer("trl_bfd"), Packer::trl_bfd);
}

// ---- random inputs against the references -----------------------------------------

TEST(PackRandom, MatchReferencesBinForBin) {
    std::mt19937_64 rng(20240601);
    for (int trial = 0; trial < 120; ++trial) {
        const std::uint32_t S = 8 + static_cast<std::uint32_t>(rng() % 120);
        const std::size_t n = 1 + rng() % 300;
        const int shape = trial % 5;
        Lens ls = random_lengths(rng, n, S, shape);
        if (trial % 31 == 0) ls.assign(n, 0);
        if (trial % 5 == 0) ls[rng() % n] = S + 1 + static_cast<std::uint32_t>(rng() % (2 * S));
        const std::size_t batch = (trial % 3 == 0) ? 0 : 1 + rng() % 100;
        SCOPED_TRACE("trial " + std::to_string(trial));

        auto bfd = pack_trl_bfd(ls, S, false, static_cast<std::int64_t>(batch));
        EXPECT_EQ(as_list(bfd.bins), ref_bfd(ls, S, false, batch));
        check_invariants(bfd, ls, S, false);
        auto bfds = pack_trl_bfd(ls, S, true, static_cast<std::int64_t>(batch));
        EXPECT_EQ(as_list(bfds.bins), ref_bfd(ls, S, true, batch));
        check_invariants(bfds, ls, S, true);

        const std::size_t lf_batch = batch == 0 ? ls.size() : batch;
        auto lf = pack_llamafactory(ls, S, static_cast<std::int64_t>(lf_batch));
        EXPECT_EQ(as_list(lf.bins), ref_llamafactory(ls, S, lf_batch));

        Lens fit = ls;
        for (auto& x : fit) x = std::min(x, S);
        // NeMo raises on a sample longer than seq_len (create_hist), as torchtune does.
        if (fit != ls) {
            EXPECT_THROW(pack_nemo_ffd(ls, S), std::invalid_argument);
        }
        auto ffd = pack_nemo_ffd(fit, S);
        EXPECT_EQ(as_list(ffd.bins), ref_ffd(fit, S));
        check_invariants(ffd, fit, S, false);
        EXPECT_EQ(as_list(pack_torchtune(fit, S, false).bins), ref_torchtune(fit, S));
        check_invariants(pack_torchtune(ls, S, true), ls, S, true);
        check_invariants(pack_trl_wrapped(ls, S, static_cast<std::int64_t>(batch)), ls, S, true);

        const std::int64_t W = 1 + static_cast<std::int64_t>(rng() % 7);
        if (static_cast<std::int64_t>(n) >= W) {
            for (std::int64_t r = 0; r < W; ++r) {
                auto idx = distributed_sampler_indices(static_cast<std::int64_t>(n), W, r, trial % 2 == 0, 7, 0,
                                                       trial % 3 == 0);
                auto mine = as_list(pack_axolotl_rank(fit, idx, S));
                EXPECT_EQ(mine, ref_axolotl(fit, idx, S));
            }
        }
    }
}

TEST(PackRandom, ThreeThousandSamplesMatchReference) {
    std::mt19937_64 rng(99);
    const std::uint32_t S = 512;
    Lens ls = random_lengths(rng, 3000, S, 3);
    auto got = as_list(pack_trl_bfd(ls, S, false, 0).bins);
    EXPECT_EQ(got, ref_bfd(ls, S, false, 0));
    EXPECT_EQ(as_list(pack_nemo_ffd(ls, S).bins), ref_ffd(ls, S));
}

// ---- sampler and gate -----------------------------------------------------------------

TEST(DistributedSampler, PaddingAndDropLastAsTorch) {
    EXPECT_EQ(distributed_sampler_indices(10, 4, 0), (std::vector<std::int64_t>{0, 4, 8}));
    EXPECT_EQ(distributed_sampler_indices(10, 4, 2), (std::vector<std::int64_t>{2, 6, 0}));
    EXPECT_EQ(distributed_sampler_indices(10, 4, 3), (std::vector<std::int64_t>{3, 7, 1}));
    EXPECT_EQ(distributed_sampler_indices(10, 4, 3, false, 0, 0, true), (std::vector<std::int64_t>{3, 7}));
    // n < W: padding repeats the list (indices * ceil(padding / n)).
    EXPECT_EQ(distributed_sampler_indices(2, 5, 4), (std::vector<std::int64_t>{0}));
    auto a = distributed_sampler_indices(10, 3, 1, true, 5, 0);
    EXPECT_EQ(a.size(), 4U);
    EXPECT_EQ(a, distributed_sampler_indices(10, 3, 1, true, 5, 0));
}

TEST(Gate, GlobalPackerShardsRowsEvenly) {
    GateConfig c;
    c.packer = Packer::trl_bfd;
    c.seq_len = 10;
    c.world_size = 2;
    c.micro_batch = 2;
    c.grad_accum = 2;
    // 5 bins of 10 tokens: ranks get 3 rows each (row 0 repeated), 2 micro-batches.
    auto g = run_gate(Lens{10, 10, 10, 10, 10}, c);
    EXPECT_TRUE(g.passed);
    EXPECT_EQ(g.global_bins, 5);
    EXPECT_EQ(g.ranks[0].sequences, 3);
    EXPECT_EQ(g.ranks[0].micro_batches, 2);
    EXPECT_EQ(g.ranks[0].optimizer_steps, 1);
    EXPECT_DOUBLE_EQ(g.ranks[1].padding_efficiency, 1.0);
    EXPECT_EQ(g.cost_at_risk_gpu_hours, 0.0);
    c.dataloader_drop_last = true;
    EXPECT_EQ(run_gate(Lens{10, 10, 10, 10, 10}, c).ranks[0].micro_batches, 1);
}

// torch/utils/data/distributed.py (DistributedSampler.__init__ and __iter__,
// https://github.com/pytorch/pytorch/blob/01c9f4fcc3ffa856d3d1b038998b8ad90db4ec02/torch/utils/data/distributed.py):
// num_samples = ceil(N / W) without drop_last, the indices padded by repeating them
// ("indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]"), so
// with N < W every rank still gets one; with drop_last num_samples = ceil((N - W) / W),
// 0 when N < W, and every rank's loop runs 0 steps: equal, no hang.
TEST(Gate, FewerPackedSequencesThanRanksAsDistributedSampler) {
    GateConfig c;
    c.packer = Packer::trl_bfd;
    c.seq_len = 16;
    c.world_size = 4;
    const Lens three{16, 16, 16};  // 3 packed sequences
    auto g = run_gate(three, c);
    EXPECT_TRUE(g.passed);
    EXPECT_EQ(g.global_bins, 3);
    for (const auto& r : g.ranks) {
        EXPECT_EQ(r.sequences, 1);
        EXPECT_EQ(r.micro_batches, 1);
        EXPECT_EQ(r.tokens, 16);  // rank 3 gets row 0 again
    }
    EXPECT_EQ(g.verdict(), "PASS: every rank runs 1 micro-batches");

    c.sampler_drop_last = true;
    auto d = run_gate(three, c);
    EXPECT_TRUE(d.passed);
    EXPECT_EQ(d.max_micro_batches, 0);
    EXPECT_EQ(d.total_tokens, 0);
    EXPECT_EQ(d.cost_at_risk_gpu_hours, 0.0);
    EXPECT_EQ(d.verdict(), "PASS: every rank runs 0 micro-batches: no rank hangs, but the epoch trains on nothing");

    // Per-rank packing shards the 3 samples the same way.
    c.shard_before_packing = true;
    auto pd = run_gate(three, c);
    EXPECT_TRUE(pd.passed);
    EXPECT_EQ(pd.max_micro_batches, 0);
    c.sampler_drop_last = false;
    auto p = run_gate(three, c);
    EXPECT_TRUE(p.passed);
    EXPECT_EQ(p.min_micro_batches, 1);
    c.packer = Packer::axolotl_multipack;
    EXPECT_EQ(run_gate(three, c).max_micro_batches, 1);

    // DataLoader(drop_last=True) with fewer rows per rank than micro_batch: 0 everywhere too.
    c.packer = Packer::trl_bfd;
    c.shard_before_packing = false;
    c.micro_batch = 2;
    c.dataloader_drop_last = true;
    EXPECT_EQ(run_gate(three, c).max_micro_batches, 0);
}

TEST(Gate, EmptySamplesFollowEachTrainer) {
    GateConfig c;
    c.packer = Packer::trl_bfd;
    c.seq_len = 10;
    c.world_size = 2;
    c.shard_before_packing = true;
    // Rank 0 packs {5, 5} into one row; rank 1 gets the two 0-token samples, which TRL
    // drops: no row at all, so rank 1 runs 0 micro-batches while rank 0 runs 1.
    auto g = run_gate(Lens{5, 0, 5, 0}, c);
    EXPECT_FALSE(g.passed);
    EXPECT_EQ(g.min_micro_batches, 0);
    EXPECT_EQ(g.overflow.dropped_samples, 2);
    EXPECT_EQ(g.verdict(),
              "FAIL: rank 1 runs 0 micro-batches, rank 0 runs 1: the run would hang; pack before sharding "
              "(equalizing to the minimum, 0, would train on nothing) or use Join; 0.3 GPU-hours at risk");
    // Packed globally, TRL drops them and packs {5, 5}: one row, every rank gets it.
    c.shard_before_packing = false;
    EXPECT_TRUE(run_gate(Lens{5, 0, 5, 0}, c).passed);

    // Nothing left to pack: an error naming why, not a verdict.
    auto message = [&](Packer p, const Lens& ls) {
        c.packer = p;
        try {
            run_gate(ls, c);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(message(Packer::trl_bfd, Lens{0, 0, 0}),
              "lengths: trl_bfd packs the 3 samples into no sequence: the trainer drops all 3 (0 tokens); there is "
              "nothing to train on");
    EXPECT_EQ(message(Packer::llamafactory, Lens{11, 12}),
              "lengths: llamafactory packs the 2 samples into no sequence: the trainer drops all 2 (longer than "
              "seq_len = 10); there is nothing to train on");
    EXPECT_EQ(message(Packer::torchtune, Lens{0, 0}),
              "lengths: torchtune packs the 2 samples into no sequence: all 2 hold 0 tokens; there is nothing to "
              "train on");
    EXPECT_EQ(message(Packer::trl_wrapped, Lens{0}),
              "lengths: trl_wrapped packs the 1 samples into no sequence: all 1 hold 0 tokens; there is nothing to "
              "train on");
    // NeMo and LLaMA-Factory pack 0-token samples, `none` makes each a row.
    c.packer = Packer::nemo_ffd;
    EXPECT_EQ(run_gate(Lens{0, 0}, c).global_bins, 1);
    c.packer = Packer::llamafactory;
    EXPECT_EQ(run_gate(Lens{0, 0}, c).global_bins, 1);
    c.packer = Packer::none;
    EXPECT_EQ(run_gate(Lens{0, 0}, c).global_bins, 2);
    // Axolotl never sees one: its preprocessing drops samples shorter than min_sample_len.
    const std::string ax = message(Packer::axolotl_multipack, Lens{4, 0});
    EXPECT_NE(ax.find("lengths[1] = 0: Axolotl drops samples shorter than min_sample_len"), std::string::npos) << ax;
}

// The remedy's drop is made of the rows' token counts: judge() refuses counts that would
// make it negative (or wrap), rather than report "drops -3 tokens".
TEST(Gate, JudgeRefusesNegativeOrOverflowingTokens) {
    GateConfig c;
    c.seq_len = 10;
    c.world_size = 2;
    try {
        judge({{5, -3}, {4}}, c);
        ADD_FAILURE() << "no throw";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "rank_bin_tokens[0][1] = -3: a packed row holds ≥ 0 tokens");
    }
    EXPECT_THROW(equalize_to_minimum({{5, -3}, {4}}, c), std::invalid_argument);
    EXPECT_THROW(judge({{std::numeric_limits<std::int64_t>::max()}, {1}}, c), std::invalid_argument);
    const GateResult g = judge({{5, 3}, {4}}, c);
    EXPECT_EQ(g.tokens_dropped, 3);
    EXPECT_EQ(g.micro_batches_dropped, 1);
}

TEST(Gate, ImbalancedPerRankPackingFailsAndRemedyPasses) {
    GateConfig c;
    c.packer = Packer::axolotl_multipack;
    c.runtime_equalize = false;
    c.seq_len = 10;
    c.world_size = 2;
    c.micro_batch = 1;
    c.watchdog_s = 1800;
    // Rank 0 gets samples 0, 2, 4, 6 (10 tokens each: 4 rows); rank 1 gets the 1s (1 row).
    const Lens ls{10, 1, 10, 1, 10, 1, 10, 1};
    auto g = run_gate(ls, c);
    EXPECT_FALSE(g.passed);
    EXPECT_EQ(g.min_rank, 1);
    EXPECT_EQ(g.max_rank, 0);
    EXPECT_EQ(g.difference, 3);
    EXPECT_EQ(g.micro_batches_dropped, 3);
    EXPECT_EQ(g.tokens_dropped, 30);
    EXPECT_EQ(g.total_tokens, 44);
    EXPECT_NEAR(g.tokens_dropped_pct, 100.0 * 30 / 44, 1e-12);
    EXPECT_DOUBLE_EQ(g.cost_at_risk_gpu_hours, 2 * 1800.0 / 3600.0);
    EXPECT_NE(g.verdict().find("FAIL: rank 1 runs 1 micro-batches, rank 0 runs 4"), std::string::npos);

    auto rb = shard_and_pack(ls, c);
    auto fixed = judge(equalize_to_minimum(rb.rank_bin_tokens, c), c);
    EXPECT_TRUE(fixed.passed);
    EXPECT_EQ(fixed.ranks[0].micro_batches, 1);
    EXPECT_EQ(fixed.total_tokens, 14);

    c.runtime_equalize = true;  // Axolotl's own truncation: no hang, same drop
    auto a = run_gate(ls, c);
    EXPECT_TRUE(a.passed);
    EXPECT_EQ(a.tokens_dropped, 30);
}

// The field report's case: each rank packs its own shard. Lengths
// {5, 5, 5, 5, 9, 1, 9, 1}, seq_len 10, 2 ranks, unshuffled DistributedSampler:
//   rank 0 gets samples 0, 2, 4, 6 → {5, 5, 9, 9}: BFD bins 9 | 9 | 5+5 = 3 rows
//   rank 1 gets samples 1, 3, 5, 7 → {5, 5, 1, 1}: BFD bins 5+5 | 1+1   = 2 rows
// so rank 1 runs out one micro-batch early: FAIL. Packed globally first, BFD makes
// 9+1 | 9+1 | 5+5 | 5+5 = 4 rows and the sampler deals 2 to each rank: PASS.
TEST(Gate, ShardingBeforePackingCanFailWhereGlobalPackingPasses) {
    const std::vector<std::uint32_t> lengths{5, 5, 5, 5, 9, 1, 9, 1};
    GateConfig c;
    c.packer = Packer::trl_bfd;
    c.seq_len = 10;
    c.world_size = 2;
    const GateResult global = run_gate(lengths, c);
    EXPECT_TRUE(global.passed);
    EXPECT_EQ(global.global_bins, 4);
    EXPECT_EQ(global.ranks[0].micro_batches, 2);
    EXPECT_EQ(global.ranks[1].micro_batches, 2);

    c.shard_before_packing = true;
    const GateResult per_rank = run_gate(lengths, c);
    EXPECT_FALSE(per_rank.passed);
    EXPECT_EQ(per_rank.ranks[0].micro_batches, 3);
    EXPECT_EQ(per_rank.ranks[1].micro_batches, 2);
    EXPECT_EQ(per_rank.difference, 1);
    EXPECT_EQ(per_rank.min_rank, 1);
    EXPECT_EQ(per_rank.max_rank, 0);
    // Equalizing to 2 micro-batches drops rank 0's third row: 5+5 = 10 of 40 tokens, and
    // (grad_accum 1) one optimizer step.
    EXPECT_EQ(per_rank.tokens_dropped, 10);
    EXPECT_EQ(per_rank.steps_dropped, 1);
    EXPECT_EQ(per_rank.total_tokens, 40);
    // 2 GPUs hang until the 10-minute NCCL watchdog: 2 · 600 / 3600 GPU-hours.
    EXPECT_DOUBLE_EQ(per_rank.cost_at_risk_gpu_hours, 2 * 600.0 / 3600.0);
}

}  // namespace
}  // namespace libscale
