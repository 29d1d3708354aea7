#include "libscale/model_spec.hpp"

#include <ostream>
#include <stdexcept>
#include <string>

namespace libscale {

namespace {

void require_positive(const char* field, std::int64_t v, const std::string& model) {
    if (v <= 0)
        throw std::invalid_argument("model '" + model + "': " + field + " = " + std::to_string(v) +
                                    "; it must be a positive integer");
}

}  // namespace

const char* to_string(MlpKind k) { return k == MlpKind::gated ? "gated" : "plain"; }
const char* to_string(NormKind k) { return k == NormKind::rms ? "rms" : "layer"; }
const char* to_string(QkNorm q) {
    switch (q) {
        case QkNorm::none: return "none";
        case QkNorm::per_head: return "per_head";
        case QkNorm::full: return "full";
    }
    return "?";
}
const char* to_string(Positions p) {
    switch (p) {
        case Positions::rope: return "rope";
        case Positions::learned: return "learned";
        case Positions::alibi: return "alibi";
    }
    return "?";
}
const char* to_string(Activation a) {
    switch (a) {
        case Activation::silu: return "silu";
        case Activation::gelu: return "gelu";
        case Activation::gelu_tanh: return "gelu_tanh";
        case Activation::relu: return "relu";
    }
    return "?";
}

Activation parse_activation(std::string_view s) {
    if (s == "silu" || s == "swish") return Activation::silu;
    if (s == "gelu") return Activation::gelu;
    if (s == "gelu_new" || s == "gelu_pytorch_tanh" || s == "gelu_fast" || s == "gelu_tanh")
        return Activation::gelu_tanh;
    if (s == "relu") return Activation::relu;
    throw std::invalid_argument("hidden_act = '" + std::string(s) +
                                "'; supported: silu, swish, gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu");
}

void ModelSpec::validate() const {
    require_positive("hidden_size", hidden_size, name);
    require_positive("intermediate_size", intermediate_size, name);
    require_positive("num_hidden_layers", num_layers, name);
    require_positive("num_attention_heads", num_heads, name);
    require_positive("num_key_value_heads", num_kv_heads, name);
    require_positive("head_dim", head_dim, name);
    require_positive("vocab_size", vocab_size, name);
    require_positive("max_position_embeddings", max_position_embeddings, name);
    if (num_heads % num_kv_heads != 0)
        throw std::invalid_argument(
            "model '" + name + "': num_attention_heads = " + std::to_string(num_heads) +
            " is not a multiple of num_key_value_heads = " + std::to_string(num_kv_heads) +
            "; grouped-query attention needs it to be");
}

ParameterCounts count_parameters(const ModelSpec& m) {
    ParameterCounts p;
    const std::int64_t d = m.hidden_size, f = m.intermediate_size;
    const std::int64_t q_width = m.num_heads * m.head_dim;
    const std::int64_t kv_width = m.num_kv_heads * m.head_dim;
    p.embedding = m.vocab_size * d;
    p.lm_head = m.tie_word_embeddings ? 0 : m.vocab_size * d;
    p.final_norm = d;
    p.q_proj = d * q_width + (m.qkv_bias ? q_width : 0);
    p.k_proj = d * kv_width + (m.qkv_bias ? kv_width : 0);
    p.v_proj = d * kv_width + (m.qkv_bias ? kv_width : 0);
    p.o_proj = q_width * d + (m.o_bias ? d : 0);
    p.qk_norm = m.qk_norm == QkNorm::per_head ? 2 * m.head_dim : 0;
    const std::int64_t mlp_mats = m.mlp == MlpKind::gated ? 3 : 2;
    const std::int64_t mlp_bias = m.mlp_bias ? (m.mlp == MlpKind::gated ? 2 * f : f) + d : 0;
    p.mlp = mlp_mats * d * f + mlp_bias;
    p.layer_norms = 2 * d;
    p.per_layer = p.q_proj + p.k_proj + p.v_proj + p.o_proj + p.qk_norm + p.mlp + p.layer_norms;
    p.per_layer_matmul = d * q_width + 2 * d * kv_width + q_width * d + mlp_mats * d * f;
    p.layers = p.per_layer * m.num_layers;
    p.total = p.embedding + p.lm_head + p.final_norm + p.layers;
    p.non_embedding = p.total - p.embedding;
    p.root_unit = p.embedding + p.lm_head + p.final_norm;
    p.matmul_forward = p.per_layer_matmul * m.num_layers + m.vocab_size * d;
    return p;
}

std::ostream& operator<<(std::ostream& os, const ModelSpec& m) {
    return os << "ModelSpec(name='" << m.name << "', hidden_size=" << m.hidden_size
              << ", intermediate_size=" << m.intermediate_size << ", num_layers=" << m.num_layers
              << ", num_heads=" << m.num_heads << ", num_kv_heads=" << m.num_kv_heads
              << ", head_dim=" << m.head_dim << ", vocab_size=" << m.vocab_size
              << ", tie_word_embeddings=" << (m.tie_word_embeddings ? "True" : "False")
              << ", qk_norm='" << to_string(m.qk_norm) << "'" << ")";
}

std::ostream& operator<<(std::ostream& os, const ParameterCounts& p) {
    return os << "ParameterCounts(total=" << p.total << ", embedding=" << p.embedding
              << ", lm_head=" << p.lm_head << ", per_layer=" << p.per_layer
              << ", layers=" << p.layers << ", non_embedding=" << p.non_embedding << ")";
}

}  // namespace libscale
