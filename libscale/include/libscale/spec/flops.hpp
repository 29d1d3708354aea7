// FLOPs per token for a dense decoder, with activation checkpointing.
//
// forward  = 2 · (matmul weights, output projection included, embedding excluded)
//          + attention 4 · h · d_h · s_eff per layer (QKᵀ and A·V, each 2·h·d_h·s_eff),
// backward = 2 × forward. Model FLOPs (MFU) = 3 × forward; hardware FLOPs (HFU) add what
// checkpointing recomputes: full = each decoder layer's forward once more (the output
// projection sits outside the checkpointed blocks); selective = torchtitan's op-level
// policy, which keeps every other matmul's output and SDPA's and recomputes the rest
// (the k and o projections and the second MLP matmul).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string_view>

#include "libscale/spec/model_spec.hpp"

namespace libscale {

enum class Checkpointing { none, selective, full };

Checkpointing parse_checkpointing(std::string_view s);  // "none" | "selective" | "full"
const char* to_string(Checkpointing c);

// Mean attended span of a causal full sequence: s/2.
double causal_attention_span(std::int64_t seq_len);

// Packed documents with per-document causal masks: Σℓᵢ² / (2 Σℓᵢ).
// Throws std::invalid_argument on an empty list or a non-positive length.
double packed_attention_span(std::span<const std::int64_t> document_lengths);

struct FlopsPerToken {
    double matmul_forward = 0;     // 2 · matmul weights
    double attention_forward = 0;  // 4 · h · d_h · s_eff · L
    double forward = 0;
    double backward = 0;
    double recompute = 0;
    double model = 0;     // forward + backward: what MFU counts
    double hardware = 0;  // model + recompute: what the GPU executes (HFU)
};

// attention_span_tokens: s_eff, from causal_attention_span or packed_attention_span.
FlopsPerToken flops_per_token(const ParameterCounts& p, const ModelSpec& m, double attention_span_tokens,
                              Checkpointing checkpointing);
FlopsPerToken flops_per_token(const ModelSpec& m, double attention_span_tokens, Checkpointing checkpointing);

std::ostream& operator<<(std::ostream& os, const FlopsPerToken& f);

}  // namespace libscale
