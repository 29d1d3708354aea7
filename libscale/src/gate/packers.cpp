// Trainers' packers over token lengths. Each function names the trainer code it
// reproduces in packing.hpp; the comments here explain only the data structures.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "libscale/gate/packing.hpp"

namespace libscale {

namespace {

constexpr std::int64_t kMaxSeqLen = std::int64_t{1} << 26;

void check_seq_len(std::int64_t seq_len) {
    if (seq_len < 1 || seq_len > kMaxSeqLen)
        throw std::invalid_argument("seq_len = " + std::to_string(seq_len) + ": must be in [1, " +
                                    std::to_string(kMaxSeqLen) + "]");
}

// A 0-token sample is each packer's to handle as its trainer does (packing.hpp).
void check_lengths(std::span<const std::uint32_t> lengths) {
    if (lengths.empty()) throw std::invalid_argument("lengths: empty dataset (0 samples)");
    if (lengths.size() > std::numeric_limits<std::uint32_t>::max())
        throw std::invalid_argument("lengths: " + std::to_string(lengths.size()) +
                                    " samples; at most 4294967295 are supported");
}

std::int64_t sum_of(std::span<const std::uint32_t> lengths) {
    std::int64_t s = 0;
    for (auto l : lengths) s += l;
    return s;
}

// What every packer starts with: valid inputs, the input token total, the progress total.
PackResult begin_pack(std::span<const std::uint32_t> lengths, std::int64_t seq_len, Progress* progress) {
    check_seq_len(seq_len);
    check_lengths(lengths);
    progress_start(progress, lengths.size());
    PackResult res;
    res.input_tokens = sum_of(lengths);
    return res;
}

// A set of integers in [0, n) with O(log64 n) insert, erase, next (smallest ≥ i) and
// prev (largest ≤ i): a 64-ary tree of bit words. For seq_len 8192 it is two levels.
class IntSet {
public:
    static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

    explicit IntSet(std::size_t n) {
        std::size_t m = n;
        do {
            m = (m + 63) / 64;
            lv_.emplace_back(m, 0);
        } while (m > 1);
        n_ = n;
    }
    void insert(std::size_t i) {
        for (auto& w : lv_) {
            const std::size_t word = i >> 6;
            const bool was = w[word] != 0;
            w[word] |= std::uint64_t{1} << (i & 63);
            if (was) break;
            i = word;
        }
    }
    void erase(std::size_t i) {
        for (auto& w : lv_) {
            const std::size_t word = i >> 6;
            w[word] &= ~(std::uint64_t{1} << (i & 63));
            if (w[word] != 0) break;
            i = word;
        }
    }
    bool contains(std::size_t i) const { return (lv_[0][i >> 6] >> (i & 63)) & 1U; }
    std::size_t next(std::size_t pos) const {
        std::size_t lvl = 0;
        for (;;) {
            const std::size_t w = pos >> 6;
            if (w >= lv_[lvl].size()) return npos;
            const std::uint64_t bits = lv_[lvl][w] & (~std::uint64_t{0} << (pos & 63));
            if (bits) {
                pos = (w << 6) | static_cast<std::size_t>(std::countr_zero(bits));
                break;
            }
            pos = w + 1;
            if (++lvl == lv_.size()) return npos;
        }
        while (lvl > 0) {
            --lvl;
            pos = (pos << 6) | static_cast<std::size_t>(std::countr_zero(lv_[lvl][pos]));
        }
        return pos;
    }
    std::size_t prev(std::size_t pos) const {
        if (pos >= n_) pos = n_ - 1;
        std::size_t lvl = 0;
        for (;;) {
            const std::size_t w = pos >> 6;
            const unsigned b = static_cast<unsigned>(pos & 63);
            const std::uint64_t mask = b == 63 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (b + 1)) - 1);
            const std::uint64_t bits = lv_[lvl][w] & mask;
            if (bits) {
                pos = (w << 6) | static_cast<std::size_t>(63 - std::countl_zero(bits));
                break;
            }
            if (w == 0) return npos;
            pos = w - 1;
            if (++lvl == lv_.size()) return npos;
        }
        while (lvl > 0) {
            --lvl;
            pos = (pos << 6) | static_cast<std::size_t>(63 - std::countl_zero(lv_[lvl][pos]));
        }
        return pos;
    }

private:
    std::vector<std::vector<std::uint64_t>> lv_;
    std::size_t n_ = 0;
};

// Stable LSD radix sort of (key, id) pairs by key ascending; keys < 2^key_bits.
struct Item {
    std::uint32_t key;
    std::uint32_t id;
};
void radix_sort(std::vector<Item>& items, std::vector<Item>& tmp, unsigned key_bits) {
    tmp.resize(items.size());
    for (unsigned shift = 0; shift < key_bits; shift += 8) {
        std::uint32_t count[257] = {};
        for (const auto& it : items) ++count[((it.key >> shift) & 0xFFU) + 1];
        for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
        for (const auto& it : items) tmp[count[(it.key >> shift) & 0xFFU]++] = it;
        items.swap(tmp);
    }
}

unsigned bits_for(std::int64_t max_value) {
    unsigned b = 0;
    while ((std::int64_t{1} << b) <= max_value) ++b;
    return b;
}

// Builds CSR bins from entries listed in processing order with their bin id; entries of
// a bin keep that order.
struct EntryLog {
    std::vector<std::uint32_t> sample, tokens, bin;
    void add(std::uint32_t s, std::uint32_t t, std::uint32_t b) {
        sample.push_back(s);
        tokens.push_back(t);
        bin.push_back(b);
    }
};
Bins to_csr(const EntryLog& log, std::size_t num_bins) {
    Bins out;
    out.offsets.assign(num_bins + 1, 0);
    out.bin_tokens.assign(num_bins, 0);
    for (std::size_t e = 0; e < log.bin.size(); ++e) {
        ++out.offsets[log.bin[e] + 1];
        out.bin_tokens[log.bin[e]] += log.tokens[e];
    }
    for (std::size_t b = 0; b < num_bins; ++b) out.offsets[b + 1] += out.offsets[b];
    std::vector<std::int64_t> fill(out.offsets.begin(), out.offsets.end() - 1);
    out.samples.resize(log.bin.size());
    out.entry_tokens.resize(log.bin.size());
    for (std::size_t e = 0; e < log.bin.size(); ++e) {
        const auto pos = static_cast<std::size_t>(fill[log.bin[e]]++);
        out.samples[pos] = log.sample[e];
        out.entry_tokens[pos] = log.tokens[e];
    }
    return out;
}

// Bins appended in order (each entry goes to the last bin or a new one).
struct SeqBins {
    Bins b;
    void open() {
        b.offsets.push_back(b.offsets.back());
        b.bin_tokens.push_back(0);
    }
    void add(std::uint32_t sample, std::uint32_t tokens) {
        b.samples.push_back(sample);
        b.entry_tokens.push_back(tokens);
        ++b.offsets.back();
        b.bin_tokens.back() += tokens;
    }
};

// Concatenates samples [begin, end) and cuts a row every S tokens, a sample running on
// into the next row (TRL "wrapped" inside a map batch; torchtune split_across_pack).
void wrap_into(std::span<const std::uint32_t> lengths, std::size_t begin, std::size_t end, std::uint32_t S,
               SeqBins& out, Progress* progress) {
    ProgressLoop loop(progress, end - begin, end - begin);
    std::uint32_t room = 0;  // room left in the current row
    for (std::size_t i = begin; i < end; ++i, loop.step()) {
        for (std::uint32_t left = lengths[i]; left > 0;) {
            if (room == 0) {
                out.open();
                room = S;
            }
            const std::uint32_t take = std::min(left, room);
            out.add(static_cast<std::uint32_t>(i), take);
            left -= take;
            room -= take;
        }
    }
    loop.finish();
}

}  // namespace

Packer parse_packer(std::string_view s) {
    static constexpr Packer all[] = {Packer::trl_bfd,      Packer::trl_bfd_split,     Packer::trl_wrapped,
                                     Packer::nemo_ffd,     Packer::torchtune,         Packer::torchtune_split,
                                     Packer::llamafactory, Packer::axolotl_multipack, Packer::none};
    std::string valid;
    for (Packer p : all) {
        if (s == to_string(p)) return p;
        valid += (valid.empty() ? "" : ", ") + std::string(to_string(p));
    }
    throw std::invalid_argument("packing = '" + std::string(s) + "': must be one of " + valid);
}

const char* to_string(Packer p) {
    switch (p) {
        case Packer::trl_bfd: return "trl_bfd";
        case Packer::trl_bfd_split: return "trl_bfd_split";
        case Packer::trl_wrapped: return "trl_wrapped";
        case Packer::nemo_ffd: return "nemo_ffd";
        case Packer::torchtune: return "torchtune";
        case Packer::torchtune_split: return "torchtune_split";
        case Packer::llamafactory: return "llamafactory";
        case Packer::axolotl_multipack: return "axolotl_multipack";
        case Packer::none: return "none";
    }
    return "?";
}

std::vector<std::int64_t> map_batch_bounds(std::int64_t n, std::int64_t map_batch_size, std::int64_t num_proc) {
    if (n < 0) throw std::invalid_argument("n = " + std::to_string(n) + ": must be ≥ 0");
    if (map_batch_size < 0)
        throw std::invalid_argument("map_batch_size = " + std::to_string(map_batch_size) +
                                    ": must be ≥ 1, or 0 for the whole dataset");
    if (num_proc < 1) throw std::invalid_argument("num_proc = " + std::to_string(num_proc) + ": must be ≥ 1");
    std::vector<std::int64_t> bounds{0};
    const std::int64_t shards = std::min(num_proc, std::max<std::int64_t>(n, 1));
    const std::int64_t div = n / shards, mod = n % shards;
    for (std::int64_t s = 0; s < shards; ++s) {
        const std::int64_t start = s * div + std::min(s, mod);
        const std::int64_t end = start + div + (s < mod ? 1 : 0);
        const std::int64_t step = map_batch_size == 0 ? std::max<std::int64_t>(end - start, 1) : map_batch_size;
        for (std::int64_t b = start + step; b < end; b += step) bounds.push_back(b);
        if (end > bounds.back()) bounds.push_back(end);
    }
    return bounds;
}

PackResult pack_trl_bfd(std::span<const std::uint32_t> lengths, std::int64_t seq_len, bool split,
                        std::int64_t map_batch_size, std::int64_t num_proc, Progress* progress) {
    PackResult res = begin_pack(lengths, seq_len, progress);
    const auto S = static_cast<std::uint32_t>(seq_len);
    const auto bounds = map_batch_bounds(static_cast<std::int64_t>(lengths.size()), map_batch_size, num_proc);

    IntSet spaces(static_cast<std::size_t>(S) + 1);
    constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> head(static_cast<std::size_t>(S) + 1, kNone), tail(head);
    std::vector<std::uint32_t> next_in_queue, remaining;  // per bin
    std::vector<Item> items, tmp;
    std::vector<std::uint32_t> frag_sample;  // split mode: fragment → sample
    EntryLog log;
    log.sample.reserve(lengths.size());
    log.tokens.reserve(lengths.size());
    log.bin.reserve(lengths.size());
    const unsigned key_bits = bits_for(seq_len);

    for (std::size_t c = 0; c + 1 < bounds.size(); ++c) {
        const auto lo = static_cast<std::size_t>(bounds[c]);
        const auto hi = static_cast<std::size_t>(bounds[c + 1]);
        items.clear();
        frag_sample.clear();
        for (std::size_t i = lo; i < hi; ++i) {
            const std::uint32_t L = lengths[i];
            if (L == 0) {  // "Filter out empty sequences" (pc.filter(..., lengths > 0))
                ++res.overflow.dropped_samples;
                continue;
            }
            if (L <= S) {
                items.push_back({S - L, static_cast<std::uint32_t>(items.size())});
                frag_sample.push_back(static_cast<std::uint32_t>(i));
            } else if (!split) {
                ++res.overflow.truncated_samples;
                res.overflow.truncated_tokens += L - S;
                items.push_back({0, static_cast<std::uint32_t>(items.size())});
                frag_sample.push_back(static_cast<std::uint32_t>(i));
            } else {
                ++res.overflow.split_samples;
                for (std::uint32_t left = L; left > 0;) {
                    const std::uint32_t f = std::min(left, S);
                    items.push_back({S - f, static_cast<std::uint32_t>(items.size())});
                    frag_sample.push_back(static_cast<std::uint32_t>(i));
                    left -= f;
                }
            }
        }
        radix_sort(items, tmp, key_bits);  // stable: length descending, ties in id order

        const auto first_bin = static_cast<std::uint32_t>(remaining.size());
        spaces.insert(S);
        // The batch's samples, reported by placed fragment (a whole-dataset batch is long).
        ProgressLoop loop(progress, hi - lo, items.size());
        for (const Item& it : items) {
            loop.step();
            const std::uint32_t len = S - it.key;
            const auto space = static_cast<std::uint32_t>(spaces.next(len));
            std::uint32_t bin = 0;
            if (space < S) {
                bin = head[space];
                head[space] = next_in_queue[bin];
                if (head[space] == kNone) {
                    tail[space] = kNone;
                    spaces.erase(space);
                }
            } else {
                bin = static_cast<std::uint32_t>(remaining.size());
                remaining.push_back(S);
                next_in_queue.push_back(kNone);
            }
            log.add(frag_sample[it.id], len, bin);
            const std::uint32_t left = space - len;
            remaining[bin] = left;
            if (left > 0) {
                next_in_queue[bin] = kNone;
                if (tail[left] == kNone) head[left] = bin;
                else next_in_queue[tail[left]] = bin;
                tail[left] = bin;
                spaces.insert(left);
            }
        }
        // Bins never span map batches: reset the structures this batch touched.
        spaces.erase(S);
        for (std::size_t b = first_bin; b < remaining.size(); ++b) {
            const std::uint32_t r = remaining[b];
            if (r > 0 && r < S && head[r] != kNone) {
                head[r] = tail[r] = kNone;
                spaces.erase(r);
            }
        }
        loop.finish();
    }
    res.bins = to_csr(log, remaining.size());
    return res;
}

PackResult pack_trl_wrapped(std::span<const std::uint32_t> lengths, std::int64_t seq_len, std::int64_t map_batch_size,
                            std::int64_t num_proc, Progress* progress) {
    PackResult res = begin_pack(lengths, seq_len, progress);
    const auto bounds = map_batch_bounds(static_cast<std::int64_t>(lengths.size()), map_batch_size, num_proc);
    SeqBins out;
    const auto S = static_cast<std::uint32_t>(seq_len);
    for (std::size_t c = 0; c + 1 < bounds.size(); ++c)
        wrap_into(lengths, static_cast<std::size_t>(bounds[c]), static_cast<std::size_t>(bounds[c + 1]), S, out,
                  progress);
    res.bins = std::move(out.b);
    return res;
}

PackResult pack_nemo_ffd(std::span<const std::uint32_t> lengths, std::int64_t seq_len, Progress* progress) {
    PackResult res = begin_pack(lengths, seq_len, progress);
    const auto S = static_cast<std::uint32_t>(seq_len);
    std::vector<Item> items(lengths.size()), tmp;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        const std::uint32_t L = lengths[i];
        if (L > S)
            throw std::invalid_argument(
                "lengths[" + std::to_string(i) + "] = " + std::to_string(L) + " > seq_len = " + std::to_string(S) +
                ": NeMo's create_hist has no histogram bin above seq_len and raises IndexError (counts[seq_len] += 1); "
                "NeMo expects samples truncated to max_seq_length when tokenized");
        items[i] = {S - L, static_cast<std::uint32_t>(i)};
    }
    radix_sort(items, tmp, bits_for(seq_len));

    // Max segment tree over bins (leaf = remaining room); leftmost leaf with room ≥ need.
    std::size_t cap = 1024;
    std::vector<std::uint32_t> tree(2 * cap, 0), room;
    EntryLog log;
    log.sample.reserve(items.size());
    log.tokens.reserve(items.size());
    log.bin.reserve(items.size());
    auto set_leaf = [&](std::size_t b, std::uint32_t v) {
        std::size_t i = cap + b;
        tree[i] = v;
        for (i >>= 1; i >= 1; i >>= 1) {
            const std::uint32_t m = std::max(tree[2 * i], tree[2 * i + 1]);
            if (tree[i] == m) break;
            tree[i] = m;
        }
    };
    ProgressLoop loop(progress, items.size(), items.size());
    for (const Item& it : items) {
        loop.step();
        const std::uint32_t len = S - it.key;
        std::size_t bin = 0;
        // A 0-token sample fits the first bin (first_fit: sum(bin) + 0 <= pack_size), or
        // opens one when there is none.
        if (!room.empty() && tree[1] >= len) {
            std::size_t i = 1;
            while (i < cap) i = tree[2 * i] >= len ? 2 * i : 2 * i + 1;
            bin = i - cap;
        } else {
            bin = room.size();
            room.push_back(S);
            if (bin == cap) {  // grow: rebuild with twice the leaves
                cap *= 2;
                tree.assign(2 * cap, 0);
                for (std::size_t b = 0; b < room.size(); ++b) tree[cap + b] = room[b];
                for (std::size_t i = cap - 1; i >= 1; --i) tree[i] = std::max(tree[2 * i], tree[2 * i + 1]);
            }
        }
        room[bin] -= len;
        set_leaf(bin, room[bin]);
        log.add(it.id, len, static_cast<std::uint32_t>(bin));
    }
    loop.finish();
    res.bins = to_csr(log, room.size());
    return res;
}

PackResult pack_torchtune(std::span<const std::uint32_t> lengths, std::int64_t seq_len, bool split_across_pack,
                          Progress* progress) {
    PackResult res = begin_pack(lengths, seq_len, progress);
    const auto S = static_cast<std::uint32_t>(seq_len);
    SeqBins out;
    if (!split_across_pack) {
        ProgressLoop loop(progress, lengths.size(), lengths.size());
        std::uint32_t used = S + 1;  // no pack open yet
        for (std::size_t i = 0; i < lengths.size(); ++i, loop.step()) {
            const std::uint32_t L = lengths[i];
            if (L > S)
                throw std::invalid_argument(
                    "lengths[" + std::to_string(i) + "] = " + std::to_string(L) + " > seq_len = " + std::to_string(S) +
                    ": torchtune PackedDataset raises ValueError unless split_across_pack=True");
            if (used > S || used + L > S) {
                out.open();
                used = 0;
            }
            out.add(static_cast<std::uint32_t>(i), L);
            used += L;
        }
        loop.finish();
        // torchtune adds the last pack only when it holds tokens: a dataset of 0-token
        // samples (the only way a pack stays empty) packs into nothing.
        if (res.input_tokens == 0) out.b = Bins{};
    } else {
        for (const std::uint32_t l : lengths)
            if (l > S) ++res.overflow.split_samples;
        wrap_into(lengths, 0, lengths.size(), S, out, progress);
    }
    res.bins = std::move(out.b);
    return res;
}

PackResult pack_llamafactory(std::span<const std::uint32_t> lengths, std::int64_t seq_len, std::int64_t map_batch_size,
                             std::int64_t num_proc, Progress* progress) {
    PackResult res = begin_pack(lengths, seq_len, progress);
    const auto S = static_cast<std::uint32_t>(seq_len);
    const auto bounds = map_batch_bounds(static_cast<std::int64_t>(lengths.size()), map_batch_size, num_proc);
    SeqBins out;
    IntSet present(static_cast<std::size_t>(S) + 1);
    std::vector<std::uint32_t> count(static_cast<std::size_t>(S) + 1, 0);
    std::vector<std::uint32_t> end(static_cast<std::size_t>(S) + 1, 0);
    std::vector<Item> items, tmp;
    const unsigned key_bits = bits_for(seq_len);
    for (std::size_t c = 0; c + 1 < bounds.size(); ++c) {
        items.clear();
        for (auto i = static_cast<std::size_t>(bounds[c]); i < static_cast<std::size_t>(bounds[c + 1]); ++i) {
            if (lengths[i] > S) {
                ++res.overflow.dropped_samples;
                res.overflow.dropped_tokens += lengths[i];
                continue;
            }
            items.push_back({lengths[i], static_cast<std::uint32_t>(i)});
            if (count[lengths[i]]++ == 0) present.insert(lengths[i]);
        }
        // length2indexes[length]: the batch's samples of that length in order; pop()
        // takes the last. After a stable sort by length, a length's samples are a run.
        radix_sort(items, tmp, key_bits);
        for (std::size_t k = 0; k < items.size(); ++k) end[items[k].key] = static_cast<std::uint32_t>(k + 1);
        std::size_t left = items.size();
        // The batch's samples (the dropped ones too), reported by placed sample.
        ProgressLoop loop(progress, bounds[c + 1] - bounds[c], items.size());
        while (left > 0) {
            out.open();
            std::uint32_t room = S;
            for (;;) {
                const std::size_t l = present.prev(room);
                if (l == IntSet::npos) break;
                const auto len = static_cast<std::uint32_t>(l);
                if (--count[len] == 0) present.erase(len);
                room -= len;
                out.add(items[--end[len]].id, len);
                --left;
                loop.step();
            }
        }
        loop.finish();
    }
    res.bins = std::move(out.b);
    return res;
}

Bins pack_axolotl_rank(std::span<const std::uint32_t> lengths, std::span<const std::int64_t> indices,
                       std::int64_t seq_len, Progress* progress) {
    check_seq_len(seq_len);
    progress_start(progress, indices.size());
    ProgressLoop loop(progress, indices.size(), indices.size());
    SeqBins out;
    std::int64_t used = seq_len + 1;
    for (const std::int64_t idx : indices) {
        loop.step();
        if (idx < 0 || static_cast<std::size_t>(idx) >= lengths.size())
            throw std::invalid_argument("indices: " + std::to_string(idx) + " is outside [0, " +
                                        std::to_string(lengths.size()) + ")");
        const std::uint32_t L = lengths[static_cast<std::size_t>(idx)];
        if (used + L > seq_len) {
            out.open();
            used = 0;
        }
        out.add(static_cast<std::uint32_t>(idx), L);
        used += L;
    }
    loop.finish();
    return std::move(out.b);
}

PackResult pack_none(std::span<const std::uint32_t> lengths, std::int64_t seq_len, Progress* progress) {
    PackResult res = begin_pack(lengths, seq_len, progress);
    const auto S = static_cast<std::uint32_t>(seq_len);
    SeqBins out;
    out.b.offsets.reserve(lengths.size() + 1);
    out.b.bin_tokens.reserve(lengths.size());
    out.b.samples.reserve(lengths.size());
    out.b.entry_tokens.reserve(lengths.size());
    ProgressLoop loop(progress, lengths.size(), lengths.size());
    for (std::size_t i = 0; i < lengths.size(); ++i, loop.step()) {
        std::uint32_t L = lengths[i];
        if (L > S) {
            ++res.overflow.truncated_samples;
            res.overflow.truncated_tokens += L - S;
            L = S;
        }
        out.open();
        out.add(static_cast<std::uint32_t>(i), L);
    }
    loop.finish();
    res.bins = std::move(out.b);
    return res;
}

PackResult pack(Packer p, std::span<const std::uint32_t> lengths, std::int64_t seq_len, std::int64_t map_batch_size,
                std::int64_t num_proc, Progress* progress) {
    switch (p) {
        case Packer::trl_bfd: return pack_trl_bfd(lengths, seq_len, false, map_batch_size, num_proc, progress);
        case Packer::trl_bfd_split: return pack_trl_bfd(lengths, seq_len, true, map_batch_size, num_proc, progress);
        case Packer::trl_wrapped: return pack_trl_wrapped(lengths, seq_len, map_batch_size, num_proc, progress);
        case Packer::nemo_ffd: return pack_nemo_ffd(lengths, seq_len, progress);
        case Packer::torchtune: return pack_torchtune(lengths, seq_len, false, progress);
        case Packer::torchtune_split: return pack_torchtune(lengths, seq_len, true, progress);
        case Packer::llamafactory: return pack_llamafactory(lengths, seq_len, map_batch_size, num_proc, progress);
        case Packer::none: return pack_none(lengths, seq_len, progress);
        case Packer::axolotl_multipack: break;
    }
    throw std::invalid_argument(
        "packing = 'axolotl_multipack' packs per rank after sharding: use run_gate or "
        "pack_axolotl_rank");
}

std::vector<std::int64_t> distributed_sampler_indices(std::int64_t n, std::int64_t world_size, std::int64_t rank,
                                                      bool shuffle, std::uint64_t seed, std::int64_t epoch,
                                                      bool drop_last) {
    if (n < 1) throw std::invalid_argument("n = " + std::to_string(n) + ": dataset is empty");
    if (world_size < 1) throw std::invalid_argument("world_size = " + std::to_string(world_size) + ": must be ≥ 1");
    if (rank < 0 || rank >= world_size)
        throw std::invalid_argument("rank = " + std::to_string(rank) + ": must be in [0, " +
                                    std::to_string(world_size) + ")");
    return DistributedSampler(n, world_size, shuffle, seed, epoch, drop_last).indices(rank);
}

DistributedSampler::DistributedSampler(std::int64_t n, std::int64_t world_size, bool shuffle, std::uint64_t seed,
                                       std::int64_t epoch, bool drop_last)
    : n_(n), world_size_(world_size) {
    if (n < 1) throw std::invalid_argument("n = " + std::to_string(n) + ": dataset is empty");
    if (world_size < 1) throw std::invalid_argument("world_size = " + std::to_string(world_size) + ": must be ≥ 1");
    num_samples_ = (drop_last && n % world_size != 0) ? n / world_size : (n + world_size - 1) / world_size;
    if (shuffle) {
        permutation_.resize(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) permutation_[static_cast<std::size_t>(i)] = i;
        std::mt19937_64 rng(seed + static_cast<std::uint64_t>(epoch));
        for (std::int64_t i = n - 1; i > 0; --i) {
            std::uniform_int_distribution<std::int64_t> d(0, i);
            std::swap(permutation_[static_cast<std::size_t>(i)], permutation_[static_cast<std::size_t>(d(rng))]);
        }
    }
}

std::vector<std::int64_t> DistributedSampler::indices(std::int64_t rank) const {
    if (rank < 0 || rank >= world_size_)
        throw std::invalid_argument("rank = " + std::to_string(rank) + ": must be in [0, " +
                                    std::to_string(world_size_) + ")");
    std::vector<std::int64_t> out(static_cast<std::size_t>(num_samples_));
    std::int64_t pos = rank % n_;  // padding repeats indices from the start
    for (std::int64_t k = 0; k < num_samples_; ++k) {
        out[static_cast<std::size_t>(k)] = permutation_.empty() ? pos : permutation_[static_cast<std::size_t>(pos)];
        pos += world_size_;
        while (pos >= n_) pos -= n_;
    }
    return out;
}

}  // namespace libscale
