#include "libscale/training_config.hpp"

#include <ostream>
#include <stdexcept>
#include <string>

namespace libscale {

Strategy parse_strategy(std::string_view s) {
    if (s == "fsdp" || s == "zero3" || s == "full_shard") return Strategy::fsdp;
    if (s == "hsdp" || s == "hybrid_shard") return Strategy::hsdp;
    if (s == "ddp") return Strategy::ddp;
    if (s == "zero1") return Strategy::zero1;
    if (s == "zero2") return Strategy::zero2;
    throw std::invalid_argument("strategy = '" + std::string(s) +
                                "'; valid: fsdp (= zero3), hsdp, ddp, zero1, zero2");
}

const char* to_string(Strategy s) {
    switch (s) {
        case Strategy::fsdp: return "fsdp";
        case Strategy::hsdp: return "hsdp";
        case Strategy::ddp: return "ddp";
        case Strategy::zero1: return "zero1";
        case Strategy::zero2: return "zero2";
    }
    return "?";
}

GradSync parse_grad_sync(std::string_view s) {
    if (s == "every_micro_batch") return GradSync::every_micro_batch;
    if (s == "last_micro_batch") return GradSync::last_micro_batch;
    throw std::invalid_argument("grad_sync = '" + std::string(s) +
                                "'; valid: every_micro_batch, last_micro_batch");
}

const char* to_string(GradSync g) {
    return g == GradSync::every_micro_batch ? "every_micro_batch" : "last_micro_batch";
}

std::ostream& operator<<(std::ostream& os, const DataPipeline& d) {
    return os << "DataPipeline(pretokenized=" << (d.pretokenized ? "True" : "False")
              << ", bytes_per_token=" << d.bytes_per_token
              << ", corpus_in_page_cache=" << (d.corpus_in_page_cache ? "True" : "False")
              << ", storage_read_gbps_per_node=" << d.storage_read_gbps_per_node
              << ", tokenize_tokens_per_s_per_core=" << d.tokenize_tokens_per_s_per_core
              << ", loader_workers_per_rank=" << d.loader_workers_per_rank
              << ", cpu_cores_per_node=" << d.cpu_cores_per_node << ")";
}

std::ostream& operator<<(std::ostream& os, const CheckpointPolicy& c) {
    return os << "CheckpointPolicy(every_steps=" << c.every_steps << ", write_gbps_per_node=" << c.write_gbps_per_node
              << ")";
}

std::ostream& operator<<(std::ostream& os, const TrainingConfig& c) {
    return os << "TrainingConfig(gpus=" << c.gpus << ", gpus_per_node=" << c.gpus_per_node
              << ", seq_len=" << c.seq_len << ", micro_batch=" << c.micro_batch
              << ", global_batch_tokens=" << c.global_batch_tokens
              << ", strategy='" << to_string(c.strategy) << "', activation_checkpointing='"
              << to_string(c.activation_checkpointing) << "', reshard_after_forward="
              << (c.reshard_after_forward ? "True" : "False") << ", reduce_dtype='"
              << (c.reduce_bytes == 2 ? "bf16" : "fp32") << "', grad_sync='" << to_string(c.grad_sync)
              << "')";
}

}  // namespace libscale
