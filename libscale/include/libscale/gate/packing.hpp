// Sequence packing as trainers do it, and the pre-launch gate built on it: simulate
// each trainer's packer over per-sample token lengths, shard the result the way its
// sampler does, and check that every rank runs the same number of collective-bearing
// micro-batches (each packer below names the trainer code it reproduces).
//
// Lengths are std::span<const std::uint32_t> (lengths_io.hpp reads .npy / raw / JSONL
// into that type without a second copy). Every length must be ≥ 1.
//
// The packers, shard_and_pack and run_gate take an optional Progress (io/progress.hpp)
// counted in input samples (per-rank packing: the samples of every rank's shard).
//
// Bins come back as CSR: bin b holds entries [offsets[b], offsets[b+1]) of `samples`
// (the input index) and `entry_tokens` (that entry's tokens after truncation or
// splitting), in the order the trainer appends them. Memory is linear in the number of
// samples.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "libscale/io/progress.hpp"

namespace libscale {

enum class Packer {
    trl_bfd,            // TRL pack_dataset(strategy="bfd"): best-fit decreasing, truncate
    trl_bfd_split,      // TRL strategy="bfd_split": over-long samples split into fragments
    trl_wrapped,        // TRL strategy="wrapped": concatenate and cut every seq_len tokens
    nemo_ffd,           // NeMo / Megatron SFT first_fit_decreasing
    torchtune,          // torchtune PackedDataset, split_across_pack=False
    torchtune_split,    // torchtune PackedDataset, split_across_pack=True
    llamafactory,       // LLaMA-Factory greedy_knapsack
    axolotl_multipack,  // Axolotl MultipackBatchSampler (per rank, after sharding)
    none,               // no packing: one sample per row, padded to seq_len
};
Packer parse_packer(std::string_view s);  // the names above, e.g. "trl_bfd"
const char* to_string(Packer p);

// CSR bins. num_bins() == offsets.size() - 1.
struct Bins {
    std::vector<std::int64_t> offsets{0};
    std::vector<std::uint32_t> samples;
    std::vector<std::uint32_t> entry_tokens;
    std::vector<std::int64_t> bin_tokens;  // tokens per bin (sum of its entry_tokens)

    std::int64_t num_bins() const { return static_cast<std::int64_t>(offsets.size()) - 1; }
    std::span<const std::uint32_t> bin(std::int64_t b) const {
        return std::span<const std::uint32_t>(samples).subspan(static_cast<std::size_t>(offsets[b]),
                                                               static_cast<std::size_t>(offsets[b + 1] - offsets[b]));
    }
};

// What happened to samples longer than seq_len (or to samples a trainer drops).
struct OverflowCounts {
    std::int64_t truncated_samples = 0;
    std::int64_t truncated_tokens = 0;  // tokens cut off and lost
    std::int64_t split_samples = 0;     // samples cut into ≥ 2 pieces (no tokens lost)
    std::int64_t dropped_samples = 0;   // samples the trainer filters out whole
    std::int64_t dropped_tokens = 0;
    OverflowCounts& operator+=(const OverflowCounts& o) {
        truncated_samples += o.truncated_samples;
        truncated_tokens += o.truncated_tokens;
        split_samples += o.split_samples;
        dropped_samples += o.dropped_samples;
        dropped_tokens += o.dropped_tokens;
        return *this;
    }
};

struct PackResult {
    Bins bins;
    OverflowCounts overflow;
    std::int64_t input_tokens = 0;  // sum of the input lengths
};

// How `datasets.Dataset.map(batched=True)` cuts the dataset: TRL and LLaMA-Factory pack
// inside each map batch (datasets' default batch_size is 1000; LLaMA-Factory passes
// preprocessing_batch_size, default 1000), so bins never span two batches. With
// num_proc > 1 the dataset is first cut into num_proc contiguous shards (datasets'
// Dataset.shard(contiguous=True): the first n % num_proc shards get one extra row) and
// batches start afresh in each shard. map_batch_size == 0 means one batch (the whole
// dataset). Returns the chunk boundaries [b0=0, b1, ..., n].
std::vector<std::int64_t> map_batch_bounds(std::int64_t n, std::int64_t map_batch_size, std::int64_t num_proc);

// TRL trl/data_utils.py _pack_bfd. Per map batch: 0-token samples dropped (counted in
// overflow.dropped_samples: TRL's "Filter out empty sequences", explicit since v1.0.0,
// https://github.com/huggingface/trl/blob/v1.0.0/trl/data_utils.py; v0.27-v0.29 drop them
// as rows with no fragment; up to v0.26 _SegmentTree.search(0) fails its assert), lengths
// truncated to seq_len
// (split: cut into seq_len-sized fragments, the last one shorter), stably sorted by
// length descending (pyarrow sort_indices is stable: ties keep input order), each
// placed into the bin with the smallest remaining space ≥ its length (TRL's
// _SegmentTree.search), several bins with the same space taken first-in-first-out
// (space_to_bin deque popleft); a new bin when none fits. O(n log seq_len).
PackResult pack_trl_bfd(std::span<const std::uint32_t> lengths, std::int64_t seq_len, bool split = false,
                        std::int64_t map_batch_size = 1000, std::int64_t num_proc = 1, Progress* progress = nullptr);

// TRL _pack_wrapped: per map batch, the concatenated tokens cut every seq_len tokens;
// the last row of each batch may be short. Entries are the pieces of samples per row (a
// 0-token sample adds no token and no entry).
PackResult pack_trl_wrapped(std::span<const std::uint32_t> lengths, std::int64_t seq_len,
                            std::int64_t map_batch_size = 1000, std::int64_t num_proc = 1,
                            Progress* progress = nullptr);

// NeMo nemo/utils/sequence_packing_utils.py
// (https://github.com/NVIDIA/NeMo/blob/8cfedd7203462cb251a914e700e5605444277561/nemo/utils/sequence_packing_utils.py):
// create_hist counts the lengths into a
// histogram of seq_len + 1 bins, so a sample longer than seq_len makes it raise IndexError:
// here std::invalid_argument naming the sample, its length and seq_len (NeMo's data
// pipeline truncates samples to max_seq_length when it tokenizes them). first_fit_decreasing
// sorts the lengths descending and puts each into the first bin (in creation order) with
// room; a 0-token sample fits the first bin. Bins come back in creation order. NeMo's fill_packing_strategy maps a
// bin's lengths back to samples through a np.random.permutation per length; here samples of equal length are taken in
// input order, so each bin's lengths and tokens are exact but which of several equal-length samples sits in it is
// libscale's choice. Pass NeMo's seq_len (len(input_ids) - 1).
PackResult pack_nemo_ffd(std::span<const std::uint32_t> lengths, std::int64_t seq_len, Progress* progress = nullptr);

// torchtune PackedDataset (max_packs=None), greedy in dataset order. Without
// split_across_pack a sample that does not fit starts the next pack, and a sample longer
// than seq_len throws std::invalid_argument (torchtune raises ValueError). With it,
// packs are exactly seq_len tokens of the concatenation (the last may be short). A 0-token
// sample joins the current pack (split: adds no entry); torchtune adds the last pack only
// when it holds tokens, so 0-token samples alone pack into nothing.
PackResult pack_torchtune(std::span<const std::uint32_t> lengths, std::int64_t seq_len, bool split_across_pack,
                          Progress* progress = nullptr);

// LLaMA-Factory data/processors: samples longer than cutoff_len are dropped (counted);
// per map batch, greedy_knapsack sorts the lengths ascending and fills one knapsack at a
// time, each taking the largest remaining length that still fits (bisect.bisect) until
// none fits; length2indexes[length].pop() maps a length back to the last remaining
// sample of that length in the batch (a 0-token sample always fits: the batch's first
// knapsack takes them all). capacity: newer releases pass cutoff_len, older
// ones cutoff_len - 1; pass what yours uses as seq_len.
PackResult pack_llamafactory(std::span<const std::uint32_t> lengths, std::int64_t seq_len,
                             std::int64_t map_batch_size = 1000, std::int64_t num_proc = 1,
                             Progress* progress = nullptr);

// Axolotl MultipackBatchSampler.generate_batches on one rank: `indices` are the rank's
// sampler indices in order; allocate(..., rank=0, n=1) with one bin per round reduces to:
// each bin takes the longest run of the remaining indices (in sampler order) whose
// lengths sum to ≤ seq_len (at least one). Lengths are used as given (Axolotl drops
// over-long samples in preprocessing).
// Progress: counted in indices.
Bins pack_axolotl_rank(std::span<const std::uint32_t> lengths, std::span<const std::int64_t> indices,
                       std::int64_t seq_len, Progress* progress = nullptr);

// No packing: one sample per row, truncated to seq_len (counted); a 0-token sample is a
// row of 0 tokens (the DataLoader still yields it).
PackResult pack_none(std::span<const std::uint32_t> lengths, std::int64_t seq_len, Progress* progress = nullptr);

// Dispatch for the global packers (not axolotl_multipack).
PackResult pack(Packer p, std::span<const std::uint32_t> lengths, std::int64_t seq_len,
                std::int64_t map_batch_size = 1000, std::int64_t num_proc = 1, Progress* progress = nullptr);

// torch.utils.data.DistributedSampler: rank `rank`'s indices into a dataset of n items.
// Unshuffled it is exact: drop_last=false pads by repeating indices from the start to a
// multiple of world_size, drop_last=true truncates to one; rank r takes r, r+W, r+2W, ...
// With shuffle the permutation is libscale's own (std::mt19937_64 seeded with
// seed + epoch, Fisher–Yates), NOT torch.randperm's: the COUNT per rank is exact, which
// samples land on which rank is not.
std::vector<std::int64_t> distributed_sampler_indices(std::int64_t n, std::int64_t world_size, std::int64_t rank,
                                                      bool shuffle = false, std::uint64_t seed = 0,
                                                      std::int64_t epoch = 0, bool drop_last = false);

// The same for every rank of one sampler: every rank draws the same permutation, so it is
// drawn once here rather than once per rank (world_size times the work of one shuffle).
class DistributedSampler {
public:
    DistributedSampler(std::int64_t n, std::int64_t world_size, bool shuffle = false, std::uint64_t seed = 0,
                       std::int64_t epoch = 0, bool drop_last = false);
    std::int64_t num_samples() const { return num_samples_; }  // indices per rank
    std::vector<std::int64_t> indices(std::int64_t rank) const;

private:
    std::int64_t n_ = 0, world_size_ = 0, num_samples_ = 0;
    std::vector<std::int64_t> permutation_;  // empty: unshuffled
};

// ---- The gate ---------------------------------------------------------------------

// PyTorch's NCCL watchdog: ProcessGroupNCCL's default timeout is 10 minutes
// (kProcessGroupNCCLDefaultTimeout = 10 * 60 * 1000 ms in
// torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp; init_process_group's docstring: "10
// minutes for NCCL and 30 minutes for other backends"). A hung collective burns every
// GPU until it fires, so the NCCL figure is the default cost-at-risk window.
inline constexpr double kNcclDefaultTimeoutS = 600.0;
inline constexpr double kDefaultPgTimeoutS = 1800.0;

enum class StepRounding { floor, ceil };
StepRounding parse_step_rounding(std::string_view s);  // "floor" or "ceil"
const char* to_string(StepRounding r);

struct GateConfig {
    Packer packer = Packer::trl_bfd;
    std::int64_t seq_len = 0;
    std::int64_t world_size = 1;
    std::int64_t micro_batch = 1;  // DataLoader batch_size: packed rows per micro-batch
    std::int64_t grad_accum = 1;
    // DistributedSampler
    bool shuffle = false;
    std::uint64_t seed = 0;
    std::int64_t epoch = 0;
    bool sampler_drop_last = false;
    // DataLoader(drop_last=...): floor instead of ceil for micro-batches per rank.
    bool dataloader_drop_last = false;
    // optimizer steps per epoch = micro-batches / grad_accum: ceil for a loop that also
    // steps on the remainder at the epoch end, floor for one that drops it.
    StepRounding step_rounding = StepRounding::ceil;
    std::int64_t map_batch_size = 1000;  // TRL / LLaMA-Factory datasets.map batch
    std::int64_t num_proc = 1;
    double watchdog_s = kNcclDefaultTimeoutS;  // hang detection time for the cost at risk
    // axolotl_multipack only: Axolotl truncates every rank to the minimum batch count at
    // run time (MultipackBatchSampler.gather_len_batches). false models a loop without it
    // (Axolotl before PR #461/#494, or a custom loop over the same sampler).
    bool runtime_equalize = true;
    // Shard the samples with DistributedSampler first and let each rank pack its own
    // shard with `packer` (an IterableDataset or per-rank collator that packs on the fly:
    // the field report's case). Rank shards hold different lengths, so their packed
    // counts can differ. false: the trainer's own order (global packers pack the whole
    // dataset, then the sampler shards the packed rows, which equalizes the counts).
    bool shard_before_packing = false;
};
// Against gate_options() (gate/gate_options.hpp): std::invalid_argument naming the option,
// its value and what is valid.
void validate(const GateConfig& c);

struct RankReport {
    std::int64_t rank = 0;
    std::int64_t sequences = 0;      // packed sequences (rows) this rank iterates
    std::int64_t micro_batches = 0;  // collective-bearing steps
    std::int64_t optimizer_steps = 0;
    std::int64_t tokens = 0;
    double padding_efficiency = 0;  // tokens / (sequences × seq_len)
};

struct GateResult {
    std::vector<RankReport> ranks;
    bool passed = false;
    // Min and max micro-batch counts and a rank with each (lowest rank on ties).
    std::int64_t min_rank = 0, max_rank = 0;
    std::int64_t min_micro_batches = 0, max_micro_batches = 0;
    std::int64_t difference = 0;
    // Axolotl truncates every rank to the minimum itself (gather_len_batches); then the
    // raw counts may differ but the run does not hang: passed = true, and the equalization
    // below is what Axolotl drops.
    bool trainer_equalizes = false;
    // Equalize-to-minimum remedy: every rank keeps min_micro_batches.
    std::int64_t micro_batches_dropped = 0;  // summed over ranks
    std::int64_t steps_dropped = 0;          // optimizer steps, summed over ranks, to the fewest steps
    std::int64_t tokens_dropped = 0;
    std::int64_t total_tokens = 0;  // tokens over all ranks before equalizing
    double tokens_dropped_pct = 0;
    std::int64_t global_bins = 0;  // packed sequences before sharding (global packers)
    OverflowCounts overflow;
    // GPU-hours a hang would burn before the watchdog fires: world_size × watchdog_s/3600.
    double hang_cost_gpu_hours = 0;
    double cost_at_risk_gpu_hours = 0;  // hang_cost when the gate fails, else 0
    std::string verdict() const;        // one line
};

// Per-rank packed rows (their token counts, in iteration order) as the trainer would
// feed them: global packers pack, then DistributedSampler shards the rows; axolotl (and
// any packer with shard_before_packing) shards samples first and packs per rank.
struct RankBins {
    std::vector<std::vector<std::int64_t>> rank_bin_tokens;
    std::int64_t global_bins = 0;
    OverflowCounts overflow;
};
RankBins shard_and_pack(std::span<const std::uint32_t> lengths, const GateConfig& config, Progress* progress = nullptr);

// The remedy applied: every rank keeps only its first min(micro-batches) × micro_batch rows.
std::vector<std::vector<std::int64_t>> equalize_to_minimum(
    const std::vector<std::vector<std::int64_t>>& rank_bin_tokens, const GateConfig& config);

// Packs (per the packer's trainer), shards (DistributedSampler over the packed rows for
// global packers; over samples, then per-rank packing, for axolotl_multipack) and judges.
// Fewer packed sequences (or samples) than ranks are sharded as DistributedSampler does:
// every rank gets one (repeated), or with sampler_drop_last none, and every rank runs 0
// micro-batches (PASS: no hang, nothing trained). Throws std::invalid_argument on bad
// config, an empty dataset, a dataset the packer keeps nothing of (all 0-token samples
// for TRL and torchtune, all longer than seq_len for LLaMA-Factory), a 0-token sample for
// axolotl_multipack (Axolotl filters samples shorter than min_sample_len before its
// sampler), and what the packer itself refuses (over-long samples for torchtune, nemo_ffd).
GateResult run_gate(std::span<const std::uint32_t> lengths, const GateConfig& config, Progress* progress = nullptr);

// Judges given per-rank micro-batch bins: rank_bin_tokens[r] lists rank r's packed rows'
// tokens in order (each ≥ 0; std::invalid_argument otherwise). Fills everything but
// global_bins and overflow.
GateResult judge(const std::vector<std::vector<std::int64_t>>& rank_bin_tokens, const GateConfig& config);

// One-line summaries (Python __repr__).
std::ostream& operator<<(std::ostream& os, const OverflowCounts& o);
std::ostream& operator<<(std::ostream& os, const PackResult& p);
std::ostream& operator<<(std::ostream& os, const GateResult& g);

}  // namespace libscale
