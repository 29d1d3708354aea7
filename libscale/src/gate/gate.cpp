// The pre-launch packing gate: per-rank step counts, verdict, remedy and cost at risk.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "libscale/gate/gate_options.hpp"
#include "libscale/gate/packing.hpp"

namespace libscale {

StepRounding parse_step_rounding(std::string_view s) {
    if (s == "ceil") return StepRounding::ceil;
    if (s == "floor") return StepRounding::floor;
    throw std::invalid_argument("step_rounding = '" + std::string(s) + "'; valid: ceil, floor");
}

const char* to_string(StepRounding r) { return r == StepRounding::ceil ? "ceil" : "floor"; }

void validate(const GateConfig& c) { validate_options(gate_options(), c); }

GateResult judge(const std::vector<std::vector<std::int64_t>>& rank_bin_tokens, const GateConfig& c) {
    validate(c);
    if (rank_bin_tokens.size() != static_cast<std::size_t>(c.world_size))
        throw std::invalid_argument("rank_bin_tokens: " + std::to_string(rank_bin_tokens.size()) +
                                    " ranks given, world_size = " + std::to_string(c.world_size));
    // Token counts are what the remedy's drop is made of: a negative one would make it
    // negative, a sum past int64 would wrap.
    std::int64_t sum = 0;
    for (std::size_t r = 0; r < rank_bin_tokens.size(); ++r)
        for (std::size_t k = 0; k < rank_bin_tokens[r].size(); ++k) {
            const std::int64_t t = rank_bin_tokens[r][k];
            if (t < 0 || t > std::numeric_limits<std::int64_t>::max() - sum)
                throw std::invalid_argument(
                    "rank_bin_tokens[" + std::to_string(r) + "][" + std::to_string(k) + "] = " + std::to_string(t) +
                    (t < 0 ? ": a packed row holds ≥ 0 tokens" : ": the token total overflows"));
            sum += t;
        }
    GateResult g;
    g.trainer_equalizes = c.packer == Packer::axolotl_multipack && c.runtime_equalize;
    const std::int64_t B = c.micro_batch;
    for (std::size_t r = 0; r < rank_bin_tokens.size(); ++r) {
        RankReport rep;
        rep.rank = static_cast<std::int64_t>(r);
        rep.sequences = static_cast<std::int64_t>(rank_bin_tokens[r].size());
        // Axolotl groups bins by Python slicing (a short last batch is kept).
        const bool floor_batches = c.dataloader_drop_last && c.packer != Packer::axolotl_multipack;
        rep.micro_batches = floor_batches ? rep.sequences / B : (rep.sequences + B - 1) / B;
        rep.optimizer_steps = c.step_rounding == StepRounding::ceil
                                  ? (rep.micro_batches + c.grad_accum - 1) / c.grad_accum
                                  : rep.micro_batches / c.grad_accum;
        const std::int64_t used_rows = floor_batches ? rep.micro_batches * B : rep.sequences;
        for (std::int64_t k = 0; k < used_rows; ++k) rep.tokens += rank_bin_tokens[r][static_cast<std::size_t>(k)];
        rep.sequences = used_rows;
        rep.padding_efficiency = used_rows > 0 ? static_cast<double>(rep.tokens) /
                                                     (static_cast<double>(used_rows) * static_cast<double>(c.seq_len))
                                               : 0.0;
        g.total_tokens += rep.tokens;
        g.ranks.push_back(rep);
    }
    g.min_rank = g.max_rank = 0;
    for (const auto& rep : g.ranks) {
        if (rep.micro_batches < g.ranks[static_cast<std::size_t>(g.min_rank)].micro_batches) g.min_rank = rep.rank;
        if (rep.micro_batches > g.ranks[static_cast<std::size_t>(g.max_rank)].micro_batches) g.max_rank = rep.rank;
    }
    g.min_micro_batches = g.ranks[static_cast<std::size_t>(g.min_rank)].micro_batches;
    g.max_micro_batches = g.ranks[static_cast<std::size_t>(g.max_rank)].micro_batches;
    g.difference = g.max_micro_batches - g.min_micro_batches;
    g.passed = g.difference == 0 || g.trainer_equalizes;

    std::int64_t min_steps = g.ranks.front().optimizer_steps;
    for (const auto& rep : g.ranks) min_steps = std::min(min_steps, rep.optimizer_steps);
    for (std::size_t r = 0; r < g.ranks.size(); ++r) {
        const auto& rep = g.ranks[r];
        g.micro_batches_dropped += rep.micro_batches - g.min_micro_batches;
        g.steps_dropped += rep.optimizer_steps - min_steps;
        const std::int64_t keep_rows = std::min(rep.sequences, g.min_micro_batches * B);
        for (std::int64_t k = keep_rows; k < rep.sequences; ++k)
            g.tokens_dropped += rank_bin_tokens[r][static_cast<std::size_t>(k)];
    }
    g.tokens_dropped_pct =
        g.total_tokens > 0 ? 100.0 * static_cast<double>(g.tokens_dropped) / static_cast<double>(g.total_tokens) : 0.0;
    g.hang_cost_gpu_hours = static_cast<double>(c.world_size) * c.watchdog_s / 3600.0;
    g.cost_at_risk_gpu_hours = g.passed ? 0.0 : g.hang_cost_gpu_hours;
    return g;
}

std::string GateResult::verdict() const {
    char buf[512];
    if (difference == 0 && max_micro_batches == 0) {
        // E.g. DistributedSampler(drop_last=True) with fewer packed sequences than ranks,
        // or DataLoader(drop_last=True) with fewer rows per rank than micro_batch: every
        // rank skips the epoch's loop alike.
        return "PASS: every rank runs 0 micro-batches: no rank hangs, but the epoch trains on nothing";
    }
    if (difference == 0) {
        std::snprintf(buf, sizeof buf, "PASS: every rank runs %lld micro-batches",
                      static_cast<long long>(min_micro_batches));
    } else if (trainer_equalizes) {
        std::snprintf(buf, sizeof buf,
                      "PASS (trainer equalizes): ranks run %lld (rank %lld) to %lld (rank %lld) "
                      "micro-batches; truncating to %lld drops %lld tokens (%.3f%%)",
                      static_cast<long long>(min_micro_batches), static_cast<long long>(min_rank),
                      static_cast<long long>(max_micro_batches), static_cast<long long>(max_rank),
                      static_cast<long long>(min_micro_batches), static_cast<long long>(tokens_dropped),
                      tokens_dropped_pct);
    } else if (min_micro_batches == 0) {
        // Equalizing to the minimum would drop everything: not a remedy worth naming.
        std::snprintf(buf, sizeof buf,
                      "FAIL: rank %lld runs 0 micro-batches, rank %lld runs %lld: the run would hang; pack "
                      "before sharding (equalizing to the minimum, 0, would train on nothing) or use Join; "
                      "%.1f GPU-hours at risk",
                      static_cast<long long>(min_rank), static_cast<long long>(max_rank),
                      static_cast<long long>(max_micro_batches), cost_at_risk_gpu_hours);
    } else {
        std::snprintf(buf, sizeof buf,
                      "FAIL: rank %lld runs %lld micro-batches, rank %lld runs %lld (difference "
                      "%lld): the run would hang at the epoch end; equalize to %lld (drops %lld "
                      "micro-batches, %lld tokens, %.3f%%) or use Join; %.1f GPU-hours at risk",
                      static_cast<long long>(min_rank), static_cast<long long>(min_micro_batches),
                      static_cast<long long>(max_rank), static_cast<long long>(max_micro_batches),
                      static_cast<long long>(difference), static_cast<long long>(min_micro_batches),
                      static_cast<long long>(micro_batches_dropped), static_cast<long long>(tokens_dropped),
                      tokens_dropped_pct, cost_at_risk_gpu_hours);
    }
    return buf;
}

namespace {

// The packer kept nothing of a non-empty dataset: there is no run to judge.
// n: the samples packed (per-rank packing: over every rank's shard).
[[noreturn]] void no_sequences(const GateConfig& c, std::int64_t n, const OverflowCounts& o) {
    const std::int64_t d = o.dropped_samples;
    std::string why;
    if (d > 0)
        why = "the trainer drops " + std::string(d == n ? "all " : "") + std::to_string(d) + " (" +
              (c.packer == Packer::llamafactory ? "longer than seq_len = " + std::to_string(c.seq_len)
                                                : std::string("0 tokens")) +
              ")";
    if (d < n)
        why += (d > 0 ? " and the other " + std::to_string(n - d) : "all " + std::to_string(n)) + " hold 0 tokens";
    throw std::invalid_argument("lengths: " + std::string(to_string(c.packer)) + " packs the " + std::to_string(n) +
                                " samples into no sequence: " + why + "; there is nothing to train on");
}

}  // namespace

RankBins shard_and_pack(std::span<const std::uint32_t> lengths, const GateConfig& c, Progress* progress) {
    validate(c);
    const auto n = static_cast<std::int64_t>(lengths.size());
    if (n == 0) throw std::invalid_argument("lengths: empty dataset (0 samples)");
    RankBins out;
    out.rank_bin_tokens.resize(static_cast<std::size_t>(c.world_size));
    if (c.packer == Packer::axolotl_multipack || c.shard_before_packing) {
        // Axolotl filters samples outside [min_sample_len, sequence_len] before sampling
        // (drop_long_seq, https://github.com/axolotl-ai-cloud/axolotl/blob/
        // 067b021c8b87a9e5e380b9173c704cf7340e30f5/src/axolotl/utils/trainer.py).
        if (c.packer == Packer::axolotl_multipack)
            for (std::size_t i = 0; i < lengths.size(); ++i)
                if (lengths[i] == 0)
                    throw std::invalid_argument(
                        "lengths[" + std::to_string(i) +
                        "] = 0: Axolotl drops samples shorter than min_sample_len (default 2) before its sampler "
                        "sees them (axolotl/utils/trainer.py drop_long_seq): give the lengths after that filter");
        // Fewer samples than ranks: DistributedSampler repeats samples (or, with drop_last,
        // gives every rank none), as it does for any count.
        const DistributedSampler sampler(n, c.world_size, c.shuffle, c.seed, c.epoch, c.sampler_drop_last);
        // Every rank packs its shard: the ranks' packs report into one total.
        progress_start(progress, static_cast<std::uint64_t>(c.world_size * sampler.num_samples()));
        std::vector<std::uint32_t> shard;
        for (std::int64_t r = 0; r < c.world_size; ++r) {
            const auto idx = sampler.indices(r);
            Bins bins;
            if (idx.empty()) {
                // drop_last with fewer samples than ranks: nothing to pack on any rank.
            } else if (c.packer == Packer::axolotl_multipack) {
                bins = pack_axolotl_rank(lengths, idx, c.seq_len, progress);
            } else {
                // The rank's own samples, in sampler order, packed as the trainer packs
                // a whole dataset.
                shard.clear();
                for (const std::int64_t i : idx) shard.push_back(lengths[static_cast<std::size_t>(i)]);
                PackResult p = pack(c.packer, shard, c.seq_len, c.map_batch_size, c.num_proc, progress);
                out.overflow += p.overflow;
                bins = std::move(p.bins);
            }
            out.global_bins += bins.num_bins();
            out.rank_bin_tokens[static_cast<std::size_t>(r)] = std::move(bins.bin_tokens);
        }
        if (out.global_bins == 0 && sampler.num_samples() > 0)
            no_sequences(c, sampler.num_samples() * c.world_size, out.overflow);
        return out;
    }
    PackResult p = pack(c.packer, lengths, c.seq_len, c.map_batch_size, c.num_proc, progress);
    out.overflow = p.overflow;
    out.global_bins = p.bins.num_bins();
    if (out.global_bins == 0) no_sequences(c, n, out.overflow);
    // Fewer packed sequences than ranks: DistributedSampler pads by repeating them (every
    // rank gets one) or, with drop_last, gives every rank none, as it does for any count.
    const DistributedSampler sampler(out.global_bins, c.world_size, c.shuffle, c.seed, c.epoch, c.sampler_drop_last);
    for (std::int64_t r = 0; r < c.world_size; ++r) {
        const auto idx = sampler.indices(r);
        auto& v = out.rank_bin_tokens[static_cast<std::size_t>(r)];
        v.reserve(idx.size());
        for (std::int64_t b : idx) v.push_back(p.bins.bin_tokens[static_cast<std::size_t>(b)]);
    }
    return out;
}

std::vector<std::vector<std::int64_t>> equalize_to_minimum(
    const std::vector<std::vector<std::int64_t>>& rank_bin_tokens, const GateConfig& c) {
    const GateResult g = judge(rank_bin_tokens, c);
    auto out = rank_bin_tokens;
    const auto keep = static_cast<std::size_t>(g.min_micro_batches * c.micro_batch);
    for (auto& v : out)
        if (v.size() > keep) v.resize(keep);
    return out;
}

GateResult run_gate(std::span<const std::uint32_t> lengths, const GateConfig& c, Progress* progress) {
    RankBins rb = shard_and_pack(lengths, c, progress);
    GateResult g = judge(rb.rank_bin_tokens, c);
    g.global_bins = rb.global_bins;
    g.overflow = rb.overflow;
    return g;
}

std::ostream& operator<<(std::ostream& os, const OverflowCounts& o) {
    return os << "OverflowCounts(truncated_samples=" << o.truncated_samples
              << ", truncated_tokens=" << o.truncated_tokens << ", split_samples=" << o.split_samples
              << ", dropped_samples=" << o.dropped_samples << ", dropped_tokens=" << o.dropped_tokens << ')';
}

std::ostream& operator<<(std::ostream& os, const PackResult& p) {
    return os << "PackResult(bins=" << p.bins.num_bins() << ", entries=" << p.bins.samples.size()
              << ", input_tokens=" << p.input_tokens << ", " << p.overflow << ')';
}

std::ostream& operator<<(std::ostream& os, const GateResult& g) {
    return os << "GateResult(passed=" << (g.passed ? "True" : "False") << ", ranks=" << g.ranks.size()
              << ", micro_batches=" << g.min_micro_batches << ".." << g.max_micro_batches
              << ", difference=" << g.difference << ", verdict='" << g.verdict() << "')";
}

}  // namespace libscale
