// libscale._core.spec: ModelSpec (model_spec.hpp), ParameterCounts, FlopsPerToken and the
// FLOP counting functions (flops.hpp), and ModelSpec from a Hugging Face config.json
// (hf_config.hpp).
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>

#include "../common.hpp"
#include "../fields.hpp"
#include "../json_py.hpp"
#include "libscale/spec/flops.hpp"
#include "libscale/spec/hf_config.hpp"
#include "libscale/spec/model_spec.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

// The enums are str-valued properties in Python ("gated", "per_head", ...), the names
// to_string gives; to_dict() and JSON then carry plain strings.
template <class E>
E parse_enum(const char* field, const std::string& s, std::initializer_list<E> all) {
    std::string valid;
    for (E e : all) {
        if (s == to_string(e)) return e;
        valid += (valid.empty() ? "'" : ", '") + std::string(to_string(e)) + "'";
    }
    throw std::invalid_argument(std::string(field) + " = '" + s + "'; valid: " + valid);
}
MlpKind parse_mlp(const std::string& s) { return parse_enum("mlp", s, {MlpKind::gated, MlpKind::plain}); }
NormKind parse_norm(const std::string& s) { return parse_enum("norm", s, {NormKind::rms, NormKind::layer}); }
QkNorm parse_qk_norm(const std::string& s) {
    return parse_enum("qk_norm", s, {QkNorm::none, QkNorm::per_head, QkNorm::full});
}
Positions parse_positions(const std::string& s) {
    return parse_enum("positions", s, {Positions::rope, Positions::learned, Positions::alibi});
}
Activation parse_act(const std::string& s) { return parse_activation(s); }

}  // namespace

void register_spec_model(py::module_& m) {
    using S = ModelSpec;
    const auto spec_fields = fields(
        field("name", &S::name), field("model_type", &S::model_type, "Hugging Face model_type it was read as"),
        field("hidden_size", &S::hidden_size, "d"), field("intermediate_size", &S::intermediate_size, "f"),
        field("num_layers", &S::num_layers, "L"), field("num_heads", &S::num_heads, "h"),
        field("num_kv_heads", &S::num_kv_heads, "h_kv (1: multi-query)"),
        field("head_dim", &S::head_dim, "d_h (may differ from d/h)"), field("vocab_size", &S::vocab_size, "V"),
        field("max_position_embeddings", &S::max_position_embeddings),
        field("tie_word_embeddings", &S::tie_word_embeddings),
        enum_field("mlp", &S::mlp, parse_mlp, "'gated' (3 matrices) or 'plain' (2)"),
        enum_field("activation", &S::activation, parse_act,
                   "'silu', 'gelu', 'gelu_tanh' or 'relu' (Hugging Face names such as 'gelu_new' accepted)"),
        enum_field("norm", &S::norm, parse_norm, "'rms' or 'layer'"),
        field("norm_bias", &S::norm_bias, "LayerNorm with a bias vector"),
        field("norm_affine", &S::norm_affine, "False: norms without weights (OLMo 1)"),
        field("norms_per_layer", &S::norms_per_layer, "1: Falcon-7B's shared norm; 4: Gemma 2 sandwich"),
        field("final_norm", &S::final_norm, "a norm before the output projection"),
        enum_field("qk_norm", &S::qk_norm, parse_qk_norm, "'none', 'per_head' (Qwen3) or 'full' (OLMo 2)"),
        field("qkv_bias", &S::qkv_bias, "bias on q, k, v"), field("o_bias", &S::o_bias),
        field("mlp_bias", &S::mlp_bias, "bias on every MLP matrix"), field("lm_head_bias", &S::lm_head_bias, "Phi-2"),
        enum_field("positions", &S::positions, parse_positions, "'rope', 'learned' or 'alibi'"),
        field("position_embedding_rows", &S::position_embedding_rows, "learned positions (OPT: max + 2)"),
        field("parallel_block", &S::parallel_block, "attention and MLP read the same normalized input"),
        field("fused_qkv", &S::fused_qkv, "one q|k|v GEMM"),
        field("fused_gate_up", &S::fused_gate_up, "one gate|up GEMM"),
        field("sliding_window", &S::sliding_window, "window in tokens; 0: none"),
        field("sliding_window_layers", &S::sliding_window_layers, "layers with the window"),
        field("attn_logit_softcap", &S::attn_logit_softcap, "0: none"),
        field("final_logit_softcap", &S::final_logit_softcap, "0: none"),
        field("embed_proj_dim", &S::embed_proj_dim, "0: embeddings as wide as hidden_size"),
        field("num_experts", &S::num_experts, "routed experts of a mixture of experts; 0: dense"),
        field("experts_per_token", &S::experts_per_token, "top-k experts each token runs"),
        field("moe_intermediate_size", &S::moe_intermediate_size, "an expert's MLP width"),
        field("moe_layers", &S::moe_layers, "layers with experts (the others: a dense MLP)"),
        field("shared_expert_intermediate_size", &S::shared_expert_intermediate_size,
              "the shared expert's width; 0: none"),
        field("shared_expert_gate", &S::shared_expert_gate, "a d × 1 sigmoid gate on the shared expert (Qwen2-MoE)"),
        field("source", &S::source, "where the config came from"));
    py::class_<ModelSpec> spec(m, "ModelSpec",
                               "A decoder-only transformer, dense or mixture-of-experts (every family of "
                               "docs/architectures.md).");
    def_init(spec, spec_fields,
             "Every field by keyword (enums as strings); call validate() (or any estimate) to check it.");
    def_fields(spec, spec_fields, Access::read_write);
    spec.def("validate", &ModelSpec::validate, "Raise ValueError naming the first invalid field.")
        .def_property_readonly(
            "parameters", [](const ModelSpec& s) { return count_parameters(s).total; },
            "Total parameter count (count_parameters(model).total).");
    def_value_methods(spec);

    using P = ParameterCounts;
    py::class_<ParameterCounts> counts(m, "ParameterCounts", "Parameters per component of a ModelSpec.");
    def_fields(
        counts,
        fields(field("embedding", &P::embedding, "vocab × embedding width"),
               field("position_embedding", &P::position_embedding, "learned position table"),
               field("embed_projections", &P::embed_projections, "OPT project_in + project_out"),
               field("lm_head", &P::lm_head, "0 when tied (a bias still counts)"), field("final_norm", &P::final_norm),
               field("q_proj", &P::q_proj, "per decoder layer"), field("k_proj", &P::k_proj, "per decoder layer"),
               field("v_proj", &P::v_proj, "per decoder layer"), field("o_proj", &P::o_proj, "per decoder layer"),
               field("qk_norm", &P::qk_norm, "per decoder layer"), field("mlp", &P::mlp, "per decoder layer (mean)"),
               field("layer_norms", &P::layer_norms, "per decoder layer"), field("per_layer", &P::per_layer),
               field("per_layer_matmul", &P::per_layer_matmul, "q, k, v, o, MLP weights without biases"),
               field("layers", &P::layers, "all decoder layers (per_layer × num_layers when alike)"),
               field("total", &P::total),
               field("non_embedding", &P::non_embedding, "total − embedding − position_embedding"),
               field("root_unit", &P::root_unit, "FSDP2 root unit: embeddings, projections, final norm, lm_head"),
               field("matmul_forward", &P::matmul_forward, "matmul weights that see every token in forward"),
               field("router", &P::router, "per MoE layer: d × num_experts"),
               field("routed_experts", &P::routed_experts, "per MoE layer: all its experts"),
               field("shared_experts", &P::shared_experts, "per MoE layer: the shared expert and its gate"),
               field("largest_layer", &P::largest_layer, "the largest decoder layer"),
               field("active", &P::active, "parameters one token runs through (total less unrouted experts)"),
               field("per_layer_active_matmul", &P::per_layer_active_matmul,
                     "matmul weights a token runs through per layer (mean)")),
        Access::read_only);
    def_value_methods(counts);

    using F = FlopsPerToken;
    py::class_<FlopsPerToken> flops(m, "FlopsPerToken", "FLOPs per token of one training step.");
    def_fields(flops,
               fields(field("matmul_forward", &F::matmul_forward, "2 · matmul weights"),
                      field("attention_forward", &F::attention_forward, "4 · h · d_h · s_eff · L"),
                      field("forward", &F::forward), field("backward", &F::backward), field("recompute", &F::recompute),
                      field("model", &F::model, "forward + backward: what MFU counts"),
                      field("hardware", &F::hardware, "model + recompute: what HFU counts")),
               Access::read_only);
    def_value_methods(flops);

    m.def("count_parameters", &count_parameters, py::arg("model"), "Exact parameter counts of a ModelSpec.");

    m.def(
        "causal_attention_span",
        [](std::int64_t seq_len) {
            if (seq_len <= 0)
                throw std::invalid_argument("seq_len = " + std::to_string(seq_len) + "; it must be a positive integer");
            return causal_attention_span(seq_len);
        },
        py::arg("seq_len"), "Mean attended span of a causal full sequence (tokens).");

    m.def(
        "packed_attention_span",
        [](py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> lengths) {
            return packed_attention_span(
                std::span<const std::int64_t>(lengths.data(), static_cast<std::size_t>(lengths.size())));
        },
        py::arg("document_lengths"), "Mean attended span of packed documents with per-document causal masks (tokens).");

    m.def(
        "flops_per_token",
        [](const ModelSpec& model, double attention_span_tokens, std::string_view activation_checkpointing) {
            model.validate();
            if (!(attention_span_tokens >= 0) || !std::isfinite(attention_span_tokens))
                throw std::invalid_argument("attention_span_tokens = " + std::to_string(attention_span_tokens) +
                                            "; it must be a finite number >= 0");
            return flops_per_token(model, attention_span_tokens, parse_checkpointing(activation_checkpointing));
        },
        py::arg("model"), py::arg("attention_span_tokens"), py::arg("activation_checkpointing") = "full",
        "FLOPs per token with the given mean attention span (causal_attention_span / packed_attention_span).");

    m.def(
        "model_from_hf_config",
        [](py::handle config, const std::string& name, const std::string& origin) {
            return model_from_hf_config(py_to_json(config, origin), name, origin);
        },
        py::arg("config"), py::arg("name"), py::arg("origin") = "<config>",
        "A ModelSpec from a Hugging Face config.json's contents (a dict). ParseError names the field, "
        "including an unsupported or mixture-of-experts model_type.");
}

}  // namespace libscale_py
