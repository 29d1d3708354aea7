#include "libscale/spec/model_spec.hpp"

#include <cmath>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

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
    throw std::invalid_argument("activation '" + std::string(s) +
                                "' is not supported; supported: silu, swish, gelu, gelu_new, gelu_pytorch_tanh, "
                                "gelu_fast, gelu_tanh, relu");
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
        throw std::invalid_argument("model '" + name + "': num_attention_heads = " + std::to_string(num_heads) +
                                    " is not a multiple of num_key_value_heads = " + std::to_string(num_kv_heads) +
                                    "; grouped-query attention needs it to be");
    const auto fail = [&](const std::string& field, const std::string& value, const std::string& valid) {
        throw std::invalid_argument("model '" + name + "': " + field + " = " + value + "; " + valid);
    };
    const auto str = [](std::int64_t v) { return std::to_string(v); };
    if (norms_per_layer < 1 || norms_per_layer > 4)
        fail("norms_per_layer", str(norms_per_layer), "it must be 1 to 4 (1: Falcon-7B, 2: most, 4: Gemma 2)");
    if (norm_bias && norm != NormKind::layer)
        fail("norm_bias", "true", "only a LayerNorm (norm = 'layer') has a bias; RMSNorm has none");
    if (norm_bias && !norm_affine) fail("norm_bias", "true", "a non-parametric norm (norm_affine = false) has no bias");
    if (fused_gate_up && mlp != MlpKind::gated)
        fail("fused_gate_up", "true", "only a gated MLP has a gate and an up matrix to fuse");
    if (sliding_window < 0) fail("sliding_window", str(sliding_window), "it must be >= 0 (0: none)");
    if (sliding_window_layers < 0 || sliding_window_layers > num_layers)
        fail("sliding_window_layers", str(sliding_window_layers),
             "it must be 0 to num_hidden_layers = " + str(num_layers));
    if ((sliding_window > 0) != (sliding_window_layers > 0))
        fail("sliding_window_layers", str(sliding_window_layers),
             "it must be > 0 exactly when sliding_window (" + str(sliding_window) + ") is > 0");
    for (const auto& [field, v] :
         {std::pair{"attn_logit_softcap", attn_logit_softcap}, std::pair{"final_logit_softcap", final_logit_softcap}})
        if (!std::isfinite(v) || v < 0) {
            std::ostringstream shown;  // 1e308, not its 309 digits
            shown << v;
            fail(field, shown.str(), "it must be a finite number >= 0 (0: none)");
        }
    if (embed_proj_dim < 0)
        fail("embed_proj_dim", str(embed_proj_dim), "it must be >= 0 (0: embeddings of width hidden_size)");
    if (position_embedding_rows < 0) fail("position_embedding_rows", str(position_embedding_rows), "it must be >= 0");
    if ((positions == Positions::learned) != (position_embedding_rows > 0))
        fail("position_embedding_rows", str(position_embedding_rows),
             std::string("it must be > 0 exactly when positions = 'learned' (positions = '") + to_string(positions) +
                 "')");
    if (num_experts < 0) fail("num_experts", str(num_experts), "it must be >= 0 (0: a dense model)");
    if (num_experts > 0) {
        if (experts_per_token < 1 || experts_per_token > num_experts)
            fail("num_experts_per_tok", str(experts_per_token), "it must be 1 to num_experts = " + str(num_experts));
        if (moe_intermediate_size <= 0)
            fail("moe_intermediate_size", str(moe_intermediate_size), "it must be a positive integer");
        if (moe_layers < 1 || moe_layers > num_layers)
            fail("moe_layers", str(moe_layers), "it must be 1 to num_hidden_layers = " + str(num_layers));
        if (shared_expert_intermediate_size < 0)
            fail("shared_expert_intermediate_size", str(shared_expert_intermediate_size), "it must be >= 0 (0: none)");
        if (mlp != MlpKind::gated) fail("mlp", to_string(mlp), "a mixture-of-experts model's experts are gated MLPs");
    } else if (experts_per_token != 0 || moe_layers != 0 || moe_intermediate_size != 0 ||
               shared_expert_intermediate_size != 0 || shared_expert_gate) {
        fail("num_experts", "0",
             "a dense model has no experts_per_token, moe_layers, moe_intermediate_size or shared experts");
    }
    // count_parameters multiplies the sizes in 64-bit integers: a config with absurd sizes
    // (hidden_size = 2^62) would overflow them (undefined behaviour, found by
    // fuzz/fuzz_hf_config). Every count is a sum of non-negative terms no larger than the
    // total estimated here in double, where nothing overflows; 1e15 parameters is over
    // 2,000 times the largest dense model published (Llama 3.1 405B) and far inside int64.
    constexpr double kMaxParameters = 1e15;
    const auto dbl = [](std::int64_t v) { return static_cast<double>(v); };
    const double dd = dbl(hidden_size), e = dbl(embed_proj_dim > 0 ? embed_proj_dim : hidden_size);
    const double q = dbl(num_heads) * dbl(head_dim), kv = dbl(num_kv_heads) * dbl(head_dim);
    const double experts = dbl(num_experts) * 3 * dd * dbl(moe_intermediate_size) + dd * dbl(num_experts) +
                           3 * dd * dbl(shared_expert_intermediate_size) + dd;
    const double per_layer = 2 * dd * q + 2 * dd * kv + 3 * dd * dbl(intermediate_size) + 8 * (q + kv) +
                             2 * dbl(intermediate_size) + 16 * dd + experts;
    const double total = dbl(num_layers) * per_layer + 2 * dbl(vocab_size) * e + dbl(vocab_size) +
                         dbl(position_embedding_rows) * dd + 2 * e * dd + 2 * dd;
    if (!(total <= kMaxParameters)) {
        std::ostringstream v;
        v << total;
        fail("parameter count", std::string("~").append(v.str()),
             "over 1e15: the sizes (hidden_size, intermediate_size, num_hidden_layers, heads × head_dim, "
             "vocab_size) are not a model's");
    }
}

ParameterCounts count_parameters(const ModelSpec& m) {
    m.validate();
    ParameterCounts p;
    const std::int64_t d = m.hidden_size, f = m.intermediate_size, e = m.embed_width();
    const std::int64_t q_width = m.q_width(), kv_width = m.kv_width();
    // One norm's parameters over `width`: weight, plus bias for a LayerNorm with one;
    // nothing for a non-parametric norm.
    const auto norm = [&](std::int64_t width) { return m.norm_affine ? width * (m.norm_bias ? 2 : 1) : 0; };
    p.embedding = m.vocab_size * e;
    p.position_embedding = m.positions == Positions::learned ? m.position_embedding_rows * d : 0;
    p.embed_projections = m.embed_proj_dim > 0 ? 2 * e * d : 0;  // project_in e→d, project_out d→e, no bias
    p.lm_head = (m.tie_word_embeddings ? 0 : m.vocab_size * e) + (m.lm_head_bias ? m.vocab_size : 0);
    p.final_norm = m.final_norm ? norm(d) : 0;
    p.q_proj = d * q_width + (m.qkv_bias ? q_width : 0);
    p.k_proj = d * kv_width + (m.qkv_bias ? kv_width : 0);
    p.v_proj = d * kv_width + (m.qkv_bias ? kv_width : 0);
    p.o_proj = q_width * d + (m.o_bias ? d : 0);
    p.qk_norm = m.qk_norm == QkNorm::per_head ? 2 * norm(m.head_dim)
                : m.qk_norm == QkNorm::full   ? norm(q_width) + norm(kv_width)
                                              : 0;
    const std::int64_t mlp_mats = m.mlp == MlpKind::gated ? 3 : 2;
    const std::int64_t mlp_bias = m.mlp_bias ? (m.mlp == MlpKind::gated ? 2 * f : f) + d : 0;
    const std::int64_t dense_mlp = mlp_mats * d * f + mlp_bias;
    p.layer_norms = m.norms_per_layer * norm(d);
    const std::int64_t attention = p.q_proj + p.k_proj + p.v_proj + p.o_proj + p.qk_norm + p.layer_norms;
    const std::int64_t attention_matmul = d * q_width + 2 * d * kv_width + q_width * d;
    const std::int64_t L = m.num_layers, moe_layers = m.moe() ? m.moe_layers : 0, dense_layers = L - moe_layers;
    // Mixture-of-experts layers (transformers' *SparseMoeBlock): the router, E gated experts
    // without biases, and the shared expert with its gate.
    std::int64_t moe_mlp = 0, moe_mlp_active = 0;
    if (moe_layers > 0) {
        const std::int64_t fe = m.moe_intermediate_size, fs = m.shared_expert_intermediate_size;
        p.router = d * m.num_experts;
        p.routed_experts = m.num_experts * 3 * d * fe;
        p.shared_experts = 3 * d * fs + (m.shared_expert_gate ? d : 0);
        moe_mlp = p.router + p.routed_experts + p.shared_experts;
        moe_mlp_active = p.router + m.experts_per_token * 3 * d * fe + p.shared_experts;
    }
    const std::int64_t layers_mlp = dense_layers * dense_mlp + moe_layers * moe_mlp;
    const std::int64_t layers_matmul = dense_layers * mlp_mats * d * f + moe_layers * moe_mlp;
    const std::int64_t layers_active_matmul =
        dense_layers * mlp_mats * d * f + moe_layers * moe_mlp_active + L * attention_matmul;
    // Means over the layers (exact for a model whose layers are alike), rounded to nearest.
    const auto mean = [L](std::int64_t sum) { return L > 0 ? (2 * sum + L) / (2 * L) : 0; };
    p.mlp = mean(layers_mlp);
    p.layers = L * attention + layers_mlp;
    p.per_layer = mean(p.layers);
    p.per_layer_matmul = attention_matmul + mean(layers_matmul);
    p.per_layer_active_matmul = mean(layers_active_matmul);
    p.largest_layer = attention + std::max(dense_layers > 0 ? dense_mlp : 0, moe_mlp);
    p.root_unit = p.embedding + p.position_embedding + p.embed_projections + p.final_norm + p.lm_head;
    p.total = p.root_unit + p.layers;
    p.non_embedding = p.total - p.embedding - p.position_embedding;
    // The output projection multiplies every token by V × e even when its table is tied.
    p.matmul_forward = layers_active_matmul + p.embed_projections + m.vocab_size * e;
    p.active = p.total - moe_layers * (m.num_experts - m.experts_per_token) * 3 * d * m.moe_intermediate_size;
    return p;
}

std::ostream& operator<<(std::ostream& os, const ModelSpec& m) {
    const auto b = [](bool v) { return v ? "True" : "False"; };
    return os << "ModelSpec(name='" << m.name << "', model_type='" << m.model_type << "', hidden_size=" << m.hidden_size
              << ", intermediate_size=" << m.intermediate_size << ", num_layers=" << m.num_layers
              << ", num_heads=" << m.num_heads << ", num_kv_heads=" << m.num_kv_heads << ", head_dim=" << m.head_dim
              << ", vocab_size=" << m.vocab_size << ", max_position_embeddings=" << m.max_position_embeddings
              << ", tie_word_embeddings=" << b(m.tie_word_embeddings) << ", mlp='" << to_string(m.mlp)
              << "', activation='" << to_string(m.activation) << "', norm='" << to_string(m.norm)
              << "', norm_bias=" << b(m.norm_bias) << ", norm_affine=" << b(m.norm_affine)
              << ", norms_per_layer=" << m.norms_per_layer << ", final_norm=" << b(m.final_norm) << ", qk_norm='"
              << to_string(m.qk_norm) << "', qkv_bias=" << b(m.qkv_bias) << ", o_bias=" << b(m.o_bias)
              << ", mlp_bias=" << b(m.mlp_bias) << ", lm_head_bias=" << b(m.lm_head_bias) << ", positions='"
              << to_string(m.positions) << "', position_embedding_rows=" << m.position_embedding_rows
              << ", parallel_block=" << b(m.parallel_block) << ", fused_qkv=" << b(m.fused_qkv)
              << ", fused_gate_up=" << b(m.fused_gate_up) << ", sliding_window=" << m.sliding_window
              << ", sliding_window_layers=" << m.sliding_window_layers
              << ", attn_logit_softcap=" << m.attn_logit_softcap << ", final_logit_softcap=" << m.final_logit_softcap
              << ", embed_proj_dim=" << m.embed_proj_dim << ", num_experts=" << m.num_experts
              << ", experts_per_token=" << m.experts_per_token << ", moe_intermediate_size=" << m.moe_intermediate_size
              << ", moe_layers=" << m.moe_layers
              << ", shared_expert_intermediate_size=" << m.shared_expert_intermediate_size
              << ", shared_expert_gate=" << b(m.shared_expert_gate) << ")";
}

std::ostream& operator<<(std::ostream& os, const ParameterCounts& p) {
    return os << "ParameterCounts(total=" << p.total << ", embedding=" << p.embedding
              << ", position_embedding=" << p.position_embedding << ", embed_projections=" << p.embed_projections
              << ", lm_head=" << p.lm_head << ", final_norm=" << p.final_norm << ", per_layer=" << p.per_layer
              << ", layers=" << p.layers << ", non_embedding=" << p.non_embedding << ", active=" << p.active << ")";
}

}  // namespace libscale
