// How a run is laid out: GPUs, batch, sharding strategy and its FSDP options, the
// input pipeline and checkpointing. Defaults follow PyTorch FSDP2 and torchtitan.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "libscale/flops.hpp"

namespace libscale {

// fsdp = FSDP full shard = ZeRO-3; hsdp shards inside a node and replicates across.
enum class Strategy { fsdp, hsdp, ddp, zero1, zero2 };
Strategy parse_strategy(std::string_view s);  // also accepts "zero3", "full_shard"
const char* to_string(Strategy s);

enum class GradSync {
    every_micro_batch,  // plain accumulation loop: reduce (-scatter) after each backward
    last_micro_batch,   // no_sync / set_requires_gradient_sync(False) on the others
};
GradSync parse_grad_sync(std::string_view s);
const char* to_string(GradSync g);

// Where a step's tokens come from. Defaults: pretokenized data already in the page
// cache, which costs nothing the model resolves; the DESIGN's NFS / tokenization
// cases are set explicitly.
struct DataPipeline {
    bool pretokenized = true;
    double bytes_per_token = 4;              // stored token ids (uint32) or raw text bytes
    bool corpus_in_page_cache = true;        // reads then cost memory bandwidth only
    double storage_read_gbps_per_node = 0;   // GB/s shared by the node's ranks; needed when not cached
    double tokenize_tokens_per_s_per_core = 0;  // needed when not pretokenized
    std::int64_t loader_workers_per_rank = 2;
    std::int64_t cpu_cores_per_node = 0;     // 0: not limited by cores
};

struct CheckpointPolicy {
    std::int64_t every_steps = 0;            // 0: no checkpoints
    double write_gbps_per_node = 0;          // GB/s each node writes its share at
};

struct TrainingConfig {
    std::int64_t gpus = 8;
    std::int64_t gpus_per_node = 0;          // 0: the hardware's
    std::int64_t seq_len = 4096;
    std::int64_t micro_batch = 1;            // sequences per micro-batch per GPU
    std::int64_t global_batch_tokens = 0;    // 0: gpus × micro_batch × seq_len (no accumulation)
    Strategy strategy = Strategy::fsdp;
    Checkpointing activation_checkpointing = Checkpointing::full;
    bool reshard_after_forward = true;
    // 2: bf16, as FSDP2 reduces in param_dtype when MixedPrecisionPolicy.reduce_dtype is
    // None (also Accelerate's bf16 default); 4: fp32 (torchtitan's default)
    int reduce_bytes = 2;
    GradSync grad_sync = GradSync::every_micro_batch;
    double attention_span_tokens = 0;        // 0: causal full sequence, seq_len / 2
    DataPipeline data;
    CheckpointPolicy checkpoint;
};

std::ostream& operator<<(std::ostream& os, const DataPipeline& d);
std::ostream& operator<<(std::ostream& os, const CheckpointPolicy& c);
std::ostream& operator<<(std::ostream& os, const TrainingConfig& c);

}  // namespace libscale
