#include "libscale/spec/flops.hpp"

#include <cmath>
#include <ostream>
#include <stdexcept>
#include <string>

namespace libscale {

Checkpointing parse_checkpointing(std::string_view s) {
    if (s == "none" || s == "off") return Checkpointing::none;
    if (s == "selective" || s == "op") return Checkpointing::selective;
    if (s == "full") return Checkpointing::full;
    throw std::invalid_argument("activation_checkpointing = '" + std::string(s) + "'; valid: none, selective, full");
}

const char* to_string(Checkpointing c) {
    switch (c) {
        case Checkpointing::none: return "none";
        case Checkpointing::selective: return "selective";
        case Checkpointing::full: return "full";
    }
    return "?";
}

double causal_attention_span(std::int64_t seq_len) { return 0.5 * static_cast<double>(seq_len); }

double packed_attention_span(std::span<const std::int64_t> document_lengths) {
    if (document_lengths.empty()) throw std::invalid_argument("document_lengths is empty; give at least one length");
    double sum = 0, sum_sq = 0;
    for (std::size_t i = 0; i < document_lengths.size(); ++i) {
        const std::int64_t l = document_lengths[i];
        if (l <= 0)
            throw std::invalid_argument("document_lengths[" + std::to_string(i) + "] = " + std::to_string(l) +
                                        "; lengths must be positive");
        sum += static_cast<double>(l);
        sum_sq += static_cast<double>(l) * static_cast<double>(l);
    }
    return sum_sq / (2.0 * sum);
}

FlopsPerToken flops_per_token(const ParameterCounts& p, const ModelSpec& m, double attention_span_tokens,
                              Checkpointing checkpointing) {
    FlopsPerToken f;
    const double L = static_cast<double>(m.num_layers);
    const double q_width = static_cast<double>(m.num_heads * m.head_dim);
    f.matmul_forward = 2.0 * static_cast<double>(p.matmul_forward);
    f.attention_forward = 4.0 * q_width * attention_span_tokens * L;
    f.forward = f.matmul_forward + f.attention_forward;
    f.backward = 2.0 * f.forward;
    // The layers' matmuls a token runs through (a mixture of experts: its k experts, the
    // shared one and the router): what the output projection and OPT's projections are not.
    const double layer_matmul = static_cast<double>(p.matmul_forward - p.embed_projections) -
                                static_cast<double>(m.vocab_size) * static_cast<double>(m.embed_width());
    const double layer_forward = 2.0 * layer_matmul + f.attention_forward;
    switch (checkpointing) {
        case Checkpointing::none: f.recompute = 0; break;
        case Checkpointing::full:
            // Each decoder layer is re-run once in backward; the output projection,
            // outside the checkpointed blocks, is not.
            f.recompute = layer_forward;
            break;
        case Checkpointing::selective: {
            // torchtitan op-level SAC saves the output of every other matmul in a block
            // and SDPA's: in call order q, v, w1, w2 are kept; k, o and the second MLP
            // matmul (w3 gated, w2 plain: d·f either way) are recomputed.
            const double d = static_cast<double>(m.hidden_size);
            const double kv_width = static_cast<double>(m.num_kv_heads * m.head_dim);
            // A mixture-of-experts layer's second expert matmul runs at its k experts' width
            // (and the shared expert's): the mean over the layers.
            const double moe_width =
                static_cast<double>(m.experts_per_token * m.moe_intermediate_size + m.shared_expert_intermediate_size);
            const double moe = static_cast<double>(m.moe() ? m.moe_layers : 0);
            const double ffn = L > 0 ? ((L - moe) * static_cast<double>(m.intermediate_size) + moe * moe_width) / L
                                     : static_cast<double>(m.intermediate_size);
            const double recomputed = d * kv_width + q_width * d + d * ffn;
            f.recompute = 2.0 * recomputed * L;
            break;
        }
    }
    f.model = f.forward + f.backward;
    f.hardware = f.model + f.recompute;
    return f;
}

FlopsPerToken flops_per_token(const ModelSpec& m, double attention_span_tokens, Checkpointing checkpointing) {
    return flops_per_token(count_parameters(m), m, attention_span_tokens, checkpointing);
}

std::ostream& operator<<(std::ostream& os, const FlopsPerToken& f) {
    return os << "FlopsPerToken(forward=" << f.forward << ", backward=" << f.backward << ", recompute=" << f.recompute
              << ", model=" << f.model << ", hardware=" << f.hardware << ")";
}

}  // namespace libscale
