// A dense decoder-only transformer (Llama / Qwen2 / Qwen3 / Mistral style) and its
// exact parameter count.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace libscale {

struct ModelSpec {
    std::string name;
    std::int64_t hidden_size = 0;            // d
    std::int64_t intermediate_size = 0;      // f
    std::int64_t num_layers = 0;             // L
    std::int64_t num_heads = 0;              // h
    std::int64_t num_kv_heads = 0;           // h_kv
    std::int64_t head_dim = 0;               // d_h (may differ from d/h, as in Qwen3-32B)
    std::int64_t vocab_size = 0;             // V
    std::int64_t max_position_embeddings = 0;
    bool tie_word_embeddings = false;
    bool qk_norm = false;    // Qwen3: RMSNorm over head_dim on q and k
    bool gated_mlp = true;   // SwiGLU (gate, up, down) vs plain (up, down)
    bool qkv_bias = false;   // Qwen2: bias on q, k, v
    bool o_bias = false;
    bool mlp_bias = false;
    std::string source;      // where the config came from

    // Throws std::invalid_argument naming the field, its value and what is valid.
    void validate() const;
};

std::ostream& operator<<(std::ostream& os, const ModelSpec& m);

// Parameters per component. Norm and bias weights are counted (they are in the
// checkpoint) but are not matmul weights, which is what FLOPs are counted from.
struct ParameterCounts {
    std::int64_t embedding = 0;
    std::int64_t lm_head = 0;        // 0 when tied to the embedding
    std::int64_t final_norm = 0;
    // per decoder layer
    std::int64_t q_proj = 0, k_proj = 0, v_proj = 0, o_proj = 0;
    std::int64_t qk_norm = 0;
    std::int64_t mlp = 0;
    std::int64_t layer_norms = 0;
    std::int64_t per_layer = 0;
    std::int64_t per_layer_matmul = 0;  // q, k, v, o, MLP weights without biases
    // totals
    std::int64_t layers = 0;            // per_layer × L
    std::int64_t total = 0;
    std::int64_t non_embedding = 0;     // total − embedding
    // FSDP2 root unit: embedding, final norm, lm_head (held once when tied).
    std::int64_t root_unit = 0;
    // Matmul weights that see every token in forward: all layers plus the output
    // projection (V·d even when tied); the embedding lookup is not a matmul.
    std::int64_t matmul_forward = 0;
};

ParameterCounts count_parameters(const ModelSpec& m);

std::ostream& operator<<(std::ostream& os, const ParameterCounts& p);

}  // namespace libscale
