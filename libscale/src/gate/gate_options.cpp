#include "libscale/gate/gate_options.hpp"

#include "spec/option_builders.hpp"

namespace libscale {

const OptionTable<GateConfig>& gate_options() {
    using namespace option_builders;
    using C = GateConfig;
    // Bounds: counts as TrainingConfig's (a 2^40 ceiling keeps products of them in int64).
    constexpr double kMaxCount = 1LL << 40;
    constexpr double kMaxRanks = 1LL << 20;
    static const OptionTable<C> table{
        "gate",
        {
            choice<C>("packer", &C::packer, parse_packer,
                      {"trl_bfd", "trl_bfd_split", "trl_wrapped", "nemo_ffd", "torchtune", "torchtune_split",
                       "llamafactory", "axolotl_multipack", "none"},
                      "the trainer's packer, whose code the gate reproduces (none: one padded sample per row)"),
            // 0 in a default GateConfig: there is no sensible default, so it must be given.
            integer<C>("seq_len", &C::seq_len, "tokens", "packed row length (required)", 1, kMaxCount),
            // The gate keeps counters and a result row per rank: 2^20 ranks (~5x the largest
            // public GPU clusters, ~200k GPUs) keeps that under a second and ~100 MiB; 2^40
            // ranks was std::bad_alloc, 2^24 half a minute.
            integer<C>("world_size", &C::world_size, "ranks", "data-parallel ranks the sampler shards over", 1,
                       kMaxRanks),
            integer<C>("micro_batch", &C::micro_batch, "rows", "DataLoader batch_size: packed rows per micro-batch", 1,
                       kMaxCount),
            integer<C>("grad_accum", &C::grad_accum, "micro-batches", "micro-batches per optimizer step", 1, kMaxCount),
            boolean<C>("shuffle", &C::shuffle, "DistributedSampler(shuffle=...)"),
            integer<C>("seed", &C::seed, "", "DistributedSampler seed (with shuffle)", 0, 9.2e18),
            integer<C>("epoch", &C::epoch, "", "DistributedSampler.set_epoch (the shuffle's epoch)", 0, kMaxCount),
            boolean<C>("sampler_drop_last", &C::sampler_drop_last,
                       "DistributedSampler(drop_last=...): drop the tail instead of padding every rank to equal size"),
            boolean<C>("dataloader_drop_last", &C::dataloader_drop_last,
                       "DataLoader(drop_last=...): floor instead of ceil for micro-batches per rank"),
            choice<C>("step_rounding", &C::step_rounding, parse_step_rounding, {"ceil", "floor"},
                      "optimizer steps per epoch: ceil (the loop also steps on the remainder) or floor (drops it)"),
            integer<C>("map_batch_size", &C::map_batch_size, "samples",
                       "TRL / LLaMA-Factory datasets.map batch (0: the whole dataset in one batch)", 0, kMaxCount),
            integer<C>("num_proc", &C::num_proc, "processes", "datasets.map num_proc (each packs its own shard)", 1,
                       kMaxCount),
            // At most a week: past it the GPU-hours at risk are no figure (1e308 s printed inf).
            positive<C>("watchdog_s", &C::watchdog_s, "s",
                        "hang detection time for the cost at risk (NCCL's default timeout: 600 s)", 7 * 86400),
            boolean<C>("runtime_equalize", &C::runtime_equalize,
                       "axolotl_multipack only: Axolotl truncates every rank to the minimum batch count at run time"),
            boolean<C>("shard_before_packing", &C::shard_before_packing,
                       "each rank packs its own DistributedSampler shard (an on-the-fly per-rank packer)"),
        }};
    return table;
}

}  // namespace libscale
