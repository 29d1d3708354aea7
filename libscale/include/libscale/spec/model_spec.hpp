// A decoder-only transformer, dense or mixture-of-experts, and its exact parameter count.
// The fields describe what changes parameters, FLOPs, bytes moved and kernels launched:
// every common dense Hugging Face family maps onto them (Llama, Mistral, Qwen2/Qwen3,
// Gemma/Gemma 2, Phi-3, Phi-2, GPT-NeoX/Pythia, GPT-2, OPT, MPT, Falcon, StarCoder2,
// OLMo/OLMo 2) and the token-choice MoE ones (Mixtral, Qwen2-MoE, Qwen3-MoE, OLMoE); see
// docs/architectures.md and model_from_hf_config in hf_config.hpp.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace libscale {

enum class MlpKind : std::uint8_t {
    gated,  // act(x·W_gate) ⊙ (x·W_up) → W_down (SwiGLU, GeGLU): three d×f matrices
    plain,  // act(x·W_up) → W_down (GPT-2, OPT, MPT, Falcon, NeoX): two d×f matrices
};

enum class Activation : std::uint8_t { silu, gelu, gelu_tanh, relu };

enum class NormKind : std::uint8_t {
    rms,    // RMSNorm: one weight vector
    layer,  // LayerNorm: weight, plus bias when norm_bias
};

enum class QkNorm : std::uint8_t {
    none,
    per_head,  // Qwen3: RMSNorm over head_dim, one weight of d_h for q and one for k
    full,      // OLMo 2: RMSNorm over the whole q (h·d_h) and k (h_kv·d_h) projections
};             // q/k norms are of the model's norm kind (Phi's qk_layernorm: LayerNorm with bias)

enum class Positions : std::uint8_t {
    rope,     // rotary, no parameters
    learned,  // a position-embedding table (GPT-2, OPT): position_embedding_rows × d
    alibi,    // a bias on the attention scores, no parameters (MPT, BLOOM)
};

const char* to_string(MlpKind k);
const char* to_string(Activation a);
const char* to_string(NormKind k);
const char* to_string(QkNorm q);
const char* to_string(Positions p);
// Hugging Face hidden_act / activation_function names: silu, swish, gelu, gelu_new,
// gelu_pytorch_tanh, gelu_fast, relu, ... Throws std::invalid_argument with the list.
Activation parse_activation(std::string_view s);

struct ModelSpec {
    std::string name;
    std::string model_type;              // Hugging Face model_type it was read as
    std::int64_t hidden_size = 0;        // d
    std::int64_t intermediate_size = 0;  // f
    std::int64_t num_layers = 0;         // L
    std::int64_t num_heads = 0;          // h
    std::int64_t num_kv_heads = 0;       // h_kv (1: multi-query)
    std::int64_t head_dim = 0;           // d_h (may differ from d/h, as in Qwen3-32B)
    std::int64_t vocab_size = 0;         // V
    std::int64_t max_position_embeddings = 0;
    bool tie_word_embeddings = false;

    MlpKind mlp = MlpKind::gated;
    Activation activation = Activation::silu;
    NormKind norm = NormKind::rms;
    bool norm_bias = false;  // LayerNorm with a bias vector
    // false: norms without any weight (OLMo 1's non-parametric LayerNorm, OPT with
    // layer_norm_elementwise_affine=false). They still run; they hold 0 parameters.
    bool norm_affine = true;
    std::int64_t norms_per_layer = 2;  // 1: Falcon-7B's shared norm; 4: Gemma 2 sandwich
    bool final_norm = true;            // a norm before the output projection
    QkNorm qk_norm = QkNorm::none;
    bool qkv_bias = false;  // bias on q, k, v (Qwen2; every GPT-2/NeoX projection)
    bool o_bias = false;
    bool mlp_bias = false;      // bias on every MLP matrix
    bool lm_head_bias = false;  // Phi-2
    Positions positions = Positions::rope;
    std::int64_t position_embedding_rows = 0;  // learned positions (OPT: max_position_embeddings + 2)
    // Attention and MLP read the same normalized input and add to one residual (GPT-J,
    // GPT-NeoX use_parallel_residual, Falcon parallel_attn, Phi-2).
    bool parallel_block = false;
    // How the implementation lays out its matmuls (same parameters, fewer and wider GEMMs):
    // one q|k|v GEMM (MPT Wqkv, GPT-2 c_attn, NeoX query_key_value, Falcon, Phi-3
    // qkv_proj); one gate|up GEMM (Phi-3 gate_up_proj).
    bool fused_qkv = false;
    bool fused_gate_up = false;
    // Sliding-window attention: `sliding_window` tokens on `sliding_window_layers` of the
    // L layers (Mistral v0.1: all; Gemma 2: every other one; 0: none).
    std::int64_t sliding_window = 0;
    std::int64_t sliding_window_layers = 0;
    // Gemma 2's tanh soft-capping (0: none): of the attention scores (FlashAttention's
    // softcap argument) and of the final logits (one more elementwise pass over them).
    double attn_logit_softcap = 0;
    double final_logit_softcap = 0;
    // OPT-350m: embeddings of width word_embed_proj_dim ≠ d, with project_in (e→d) and
    // project_out (d→e) matrices; 0 when the embedding width is d.
    std::int64_t embed_proj_dim = 0;
    // Mixture of experts (num_experts = 0: dense). moe_layers of the L layers replace the MLP
    // by a router (a d × E linear, no bias) and num_experts gated MLPs of width
    // moe_intermediate_size, of which experts_per_token run per token (token-choice top-k:
    // Mixtral, Qwen2/3-MoE, OLMoE); the other layers keep the dense MLP of width
    // intermediate_size. Shared experts, which every token runs: one gated MLP of width
    // shared_expert_intermediate_size (0: none), with Qwen2-MoE's d × 1 sigmoid gate when
    // shared_expert_gate.
    std::int64_t num_experts = 0;
    std::int64_t experts_per_token = 0;
    std::int64_t moe_intermediate_size = 0;
    std::int64_t moe_layers = 0;
    std::int64_t shared_expert_intermediate_size = 0;
    bool shared_expert_gate = false;
    std::string source;  // where the config came from

    // Throws std::invalid_argument naming the field, its value and what is valid.
    void validate() const;

    std::int64_t q_width() const { return num_heads * head_dim; }
    std::int64_t kv_width() const { return num_kv_heads * head_dim; }
    std::int64_t embed_width() const { return embed_proj_dim > 0 ? embed_proj_dim : hidden_size; }
    bool moe() const { return num_experts > 0; }
    std::int64_t dense_layers() const { return num_layers - moe_layers; }
};

std::ostream& operator<<(std::ostream& os, const ModelSpec& m);

// Parameters per component. Norm and bias weights are counted (they are in the
// checkpoint) but are not matmul weights, which is what FLOPs are counted from.
struct ParameterCounts {
    std::int64_t embedding = 0;           // V × embed width
    std::int64_t position_embedding = 0;  // learned positions
    std::int64_t embed_projections = 0;   // OPT-350m project_in + project_out
    std::int64_t lm_head = 0;             // V × embed width, 0 when tied; plus its bias (Phi-2) even when tied
    std::int64_t final_norm = 0;          // 0 without a final norm or with non-parametric norms
    // per decoder layer
    std::int64_t q_proj = 0, k_proj = 0, v_proj = 0, o_proj = 0;
    std::int64_t qk_norm = 0;  // per_head: 2·d_h; full: (h + h_kv)·d_h; ×2 with a norm bias
    std::int64_t mlp = 0;
    std::int64_t layer_norms = 0;  // norms_per_layer × d (× 2 with a norm bias)
    std::int64_t per_layer = 0;
    std::int64_t per_layer_matmul = 0;  // q, k, v, o, MLP weights without biases
    // totals
    std::int64_t layers = 0;  // per_layer × L
    std::int64_t total = 0;
    std::int64_t non_embedding = 0;  // total − embedding − position_embedding
    // FSDP2 root unit: everything outside the decoder layers (embeddings, projections,
    // final norm, lm_head; the shared table counted once when tied).
    std::int64_t root_unit = 0;
    // Matmul weights that see every token in forward: all layers, OPT's projections and
    // the output projection (V × embed width even when tied); lookups are not matmuls.
    std::int64_t matmul_forward = 0;
    // Mixture of experts (all 0 for a dense model). Per MoE layer: the router (d × E), the
    // routed experts (E gated MLPs of width moe_intermediate_size) and the shared expert with
    // its gate. The per-layer fields above are then means over the L layers (rounded to the
    // nearest parameter; `layers` and `total` are exact), and `mlp` is the mean MLP part.
    std::int64_t router = 0;
    std::int64_t routed_experts = 0;  // per MoE layer, all E experts
    std::int64_t shared_experts = 0;  // per MoE layer, with the gate
    std::int64_t largest_layer = 0;   // the largest decoder layer (an MoE one when there is one)
    // Parameters one token runs through (Mixtral's "active parameters"): the total less the
    // routed experts it is not sent to, (E − k) of E per MoE layer.
    std::int64_t active = 0;
    // Matmul weights a token runs through per layer (mean over the layers): what FLOPs count.
    // per_layer_matmul counts every stored matmul weight (what is gathered and cast).
    std::int64_t per_layer_active_matmul = 0;
};

// Validates `m` first (ModelSpec::validate, std::invalid_argument): the counts are products
// of the sizes in 64-bit integers, which sizes no model has would overflow.
ParameterCounts count_parameters(const ModelSpec& m);

std::ostream& operator<<(std::ostream& os, const ParameterCounts& p);

}  // namespace libscale
