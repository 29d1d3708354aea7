// ModelSpec, ParameterCounts, FlopsPerToken and the FLOP counting functions.
#include <initializer_list>
#include <span>
#include <string>
#include <stdexcept>
#include <vector>

#include <pybind11/numpy.h>

#include "common.hpp"
#include "libscale/spec/flops.hpp"
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

template <class E, E ModelSpec::*Field, E (*Parse)(const std::string&)>
void def_enum(py::class_<ModelSpec>& cls, const char* name, const char* doc) {
    cls.def_property(
        name, [](const ModelSpec& s) { return std::string(to_string(s.*Field)); },
        [](ModelSpec& s, const std::string& v) { s.*Field = Parse(v); }, doc);
}

}  // namespace

void register_model(py::module_& m) {
    const ModelSpec d{};
    py::class_<ModelSpec> spec(m, "ModelSpec",
                               "A dense decoder-only transformer (every family of docs/architectures.md).");
    spec.def(py::init([](std::string name, std::string model_type, std::int64_t hidden_size,
                         std::int64_t intermediate_size, std::int64_t num_layers, std::int64_t num_heads,
                         std::int64_t num_kv_heads, std::int64_t head_dim, std::int64_t vocab_size,
                         std::int64_t max_position_embeddings, bool tie_word_embeddings, const std::string& mlp,
                         const std::string& activation, const std::string& norm, bool norm_bias, bool norm_affine,
                         std::int64_t norms_per_layer, bool final_norm, const std::string& qk_norm, bool qkv_bias,
                         bool o_bias, bool mlp_bias, bool lm_head_bias, const std::string& positions,
                         std::int64_t position_embedding_rows, bool parallel_block, bool fused_qkv,
                         bool fused_gate_up, std::int64_t sliding_window, std::int64_t sliding_window_layers,
                         double attn_logit_softcap, double final_logit_softcap, std::int64_t embed_proj_dim,
                         std::string source) {
                 ModelSpec s;
                 s.name = std::move(name);
                 s.model_type = std::move(model_type);
                 s.hidden_size = hidden_size;
                 s.intermediate_size = intermediate_size;
                 s.num_layers = num_layers;
                 s.num_heads = num_heads;
                 s.num_kv_heads = num_kv_heads;
                 s.head_dim = head_dim;
                 s.vocab_size = vocab_size;
                 s.max_position_embeddings = max_position_embeddings;
                 s.tie_word_embeddings = tie_word_embeddings;
                 s.mlp = parse_mlp(mlp);
                 s.activation = parse_activation(activation);
                 s.norm = parse_norm(norm);
                 s.norm_bias = norm_bias;
                 s.norm_affine = norm_affine;
                 s.norms_per_layer = norms_per_layer;
                 s.final_norm = final_norm;
                 s.qk_norm = parse_qk_norm(qk_norm);
                 s.qkv_bias = qkv_bias;
                 s.o_bias = o_bias;
                 s.mlp_bias = mlp_bias;
                 s.lm_head_bias = lm_head_bias;
                 s.positions = parse_positions(positions);
                 s.position_embedding_rows = position_embedding_rows;
                 s.parallel_block = parallel_block;
                 s.fused_qkv = fused_qkv;
                 s.fused_gate_up = fused_gate_up;
                 s.sliding_window = sliding_window;
                 s.sliding_window_layers = sliding_window_layers;
                 s.attn_logit_softcap = attn_logit_softcap;
                 s.final_logit_softcap = final_logit_softcap;
                 s.embed_proj_dim = embed_proj_dim;
                 s.source = std::move(source);
                 return s;
             }),
             py::kw_only(), py::arg("name") = d.name, py::arg("model_type") = d.model_type,
             py::arg("hidden_size") = d.hidden_size, py::arg("intermediate_size") = d.intermediate_size,
             py::arg("num_layers") = d.num_layers, py::arg("num_heads") = d.num_heads,
             py::arg("num_kv_heads") = d.num_kv_heads, py::arg("head_dim") = d.head_dim,
             py::arg("vocab_size") = d.vocab_size, py::arg("max_position_embeddings") = d.max_position_embeddings,
             py::arg("tie_word_embeddings") = d.tie_word_embeddings, py::arg("mlp") = to_string(d.mlp),
             py::arg("activation") = to_string(d.activation), py::arg("norm") = to_string(d.norm),
             py::arg("norm_bias") = d.norm_bias, py::arg("norm_affine") = d.norm_affine,
             py::arg("norms_per_layer") = d.norms_per_layer, py::arg("final_norm") = d.final_norm,
             py::arg("qk_norm") = to_string(d.qk_norm), py::arg("qkv_bias") = d.qkv_bias,
             py::arg("o_bias") = d.o_bias, py::arg("mlp_bias") = d.mlp_bias, py::arg("lm_head_bias") = d.lm_head_bias,
             py::arg("positions") = to_string(d.positions),
             py::arg("position_embedding_rows") = d.position_embedding_rows,
             py::arg("parallel_block") = d.parallel_block, py::arg("fused_qkv") = d.fused_qkv,
             py::arg("fused_gate_up") = d.fused_gate_up, py::arg("sliding_window") = d.sliding_window,
             py::arg("sliding_window_layers") = d.sliding_window_layers,
             py::arg("attn_logit_softcap") = d.attn_logit_softcap,
             py::arg("final_logit_softcap") = d.final_logit_softcap, py::arg("embed_proj_dim") = d.embed_proj_dim,
             py::arg("source") = d.source,
             "Every field by keyword (enums as strings); call validate() (or any estimate) to check it.")
        .def_readwrite("name", &ModelSpec::name)
        .def_readwrite("model_type", &ModelSpec::model_type, "Hugging Face model_type it was read as")
        .def_readwrite("hidden_size", &ModelSpec::hidden_size)
        .def_readwrite("intermediate_size", &ModelSpec::intermediate_size)
        .def_readwrite("num_layers", &ModelSpec::num_layers)
        .def_readwrite("num_heads", &ModelSpec::num_heads)
        .def_readwrite("num_kv_heads", &ModelSpec::num_kv_heads)
        .def_readwrite("head_dim", &ModelSpec::head_dim)
        .def_readwrite("vocab_size", &ModelSpec::vocab_size)
        .def_readwrite("max_position_embeddings", &ModelSpec::max_position_embeddings)
        .def_readwrite("tie_word_embeddings", &ModelSpec::tie_word_embeddings);
    def_enum<MlpKind, &ModelSpec::mlp, parse_mlp>(spec, "mlp", "'gated' (3 matrices) or 'plain' (2)");
    spec.def_property(
        "activation", [](const ModelSpec& s) { return std::string(to_string(s.activation)); },
        [](ModelSpec& s, const std::string& v) { s.activation = parse_activation(v); },
        "'silu', 'gelu', 'gelu_tanh' or 'relu' (Hugging Face names such as 'gelu_new' accepted)");
    def_enum<NormKind, &ModelSpec::norm, parse_norm>(spec, "norm", "'rms' or 'layer'");
    spec.def_readwrite("norm_bias", &ModelSpec::norm_bias)
        .def_readwrite("norm_affine", &ModelSpec::norm_affine, "False: norms without weights (OLMo 1)")
        .def_readwrite("norms_per_layer", &ModelSpec::norms_per_layer)
        .def_readwrite("final_norm", &ModelSpec::final_norm);
    def_enum<QkNorm, &ModelSpec::qk_norm, parse_qk_norm>(spec, "qk_norm",
                                                         "'none', 'per_head' (Qwen3) or 'full' (OLMo 2)");
    spec.def_readwrite("qkv_bias", &ModelSpec::qkv_bias)
        .def_readwrite("o_bias", &ModelSpec::o_bias)
        .def_readwrite("mlp_bias", &ModelSpec::mlp_bias)
        .def_readwrite("lm_head_bias", &ModelSpec::lm_head_bias);
    def_enum<Positions, &ModelSpec::positions, parse_positions>(spec, "positions", "'rope', 'learned' or 'alibi'");
    spec.def_readwrite("position_embedding_rows", &ModelSpec::position_embedding_rows)
        .def_readwrite("parallel_block", &ModelSpec::parallel_block)
        .def_readwrite("fused_qkv", &ModelSpec::fused_qkv)
        .def_readwrite("fused_gate_up", &ModelSpec::fused_gate_up)
        .def_readwrite("sliding_window", &ModelSpec::sliding_window, "window in tokens; 0: none")
        .def_readwrite("sliding_window_layers", &ModelSpec::sliding_window_layers)
        .def_readwrite("attn_logit_softcap", &ModelSpec::attn_logit_softcap, "0: none")
        .def_readwrite("final_logit_softcap", &ModelSpec::final_logit_softcap, "0: none")
        .def_readwrite("embed_proj_dim", &ModelSpec::embed_proj_dim, "0: embeddings as wide as hidden_size")
        .def_readwrite("source", &ModelSpec::source)
        .def("validate", &ModelSpec::validate, "Raise ValueError naming the first invalid field.")
        .def_property_readonly(
            "parameters", [](const ModelSpec& s) { return count_parameters(s).total; },
            "Total parameter count (count_parameters(model).total).");
    def_value_methods(spec);

    py::class_<ParameterCounts> counts(m, "ParameterCounts", "Parameters per component of a ModelSpec.");
    counts.def_readonly("embedding", &ParameterCounts::embedding, "vocab × embedding width")
        .def_readonly("position_embedding", &ParameterCounts::position_embedding, "learned position table")
        .def_readonly("embed_projections", &ParameterCounts::embed_projections, "OPT project_in + project_out")
        .def_readonly("lm_head", &ParameterCounts::lm_head, "0 when tied (a bias still counts)")
        .def_readonly("final_norm", &ParameterCounts::final_norm)
        .def_readonly("q_proj", &ParameterCounts::q_proj, "per decoder layer")
        .def_readonly("k_proj", &ParameterCounts::k_proj, "per decoder layer")
        .def_readonly("v_proj", &ParameterCounts::v_proj, "per decoder layer")
        .def_readonly("o_proj", &ParameterCounts::o_proj, "per decoder layer")
        .def_readonly("qk_norm", &ParameterCounts::qk_norm, "per decoder layer")
        .def_readonly("mlp", &ParameterCounts::mlp, "per decoder layer")
        .def_readonly("layer_norms", &ParameterCounts::layer_norms, "per decoder layer")
        .def_readonly("per_layer", &ParameterCounts::per_layer)
        .def_readonly("per_layer_matmul", &ParameterCounts::per_layer_matmul)
        .def_readonly("layers", &ParameterCounts::layers, "per_layer × num_layers")
        .def_readonly("total", &ParameterCounts::total)
        .def_readonly("non_embedding", &ParameterCounts::non_embedding)
        .def_readonly("root_unit", &ParameterCounts::root_unit,
                      "FSDP2 root unit: embeddings, projections, final norm, lm_head")
        .def_readonly("matmul_forward", &ParameterCounts::matmul_forward);
    def_value_methods(counts);

    py::class_<FlopsPerToken> flops(m, "FlopsPerToken", "FLOPs per token of one training step.");
    flops.def_readonly("matmul_forward", &FlopsPerToken::matmul_forward)
        .def_readonly("attention_forward", &FlopsPerToken::attention_forward)
        .def_readonly("forward", &FlopsPerToken::forward)
        .def_readonly("backward", &FlopsPerToken::backward)
        .def_readonly("recompute", &FlopsPerToken::recompute)
        .def_readonly("model", &FlopsPerToken::model, "forward + backward: what MFU counts")
        .def_readonly("hardware", &FlopsPerToken::hardware, "model + recompute: what HFU counts");
    def_value_methods(flops);

    m.def("count_parameters", &count_parameters, py::arg("model"), "Exact parameter counts of a ModelSpec.");

    m.def("causal_attention_span",
          [](std::int64_t seq_len) {
              if (seq_len <= 0)
                  throw std::invalid_argument("seq_len = " + std::to_string(seq_len) +
                                              "; it must be a positive integer");
              return causal_attention_span(seq_len);
          },
          py::arg("seq_len"), "Mean attended span of a causal full sequence (tokens).");

    m.def("packed_attention_span",
          [](py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> lengths) {
              return packed_attention_span(std::span<const std::int64_t>(lengths.data(),
                                                                          static_cast<std::size_t>(lengths.size())));
          },
          py::arg("document_lengths"),
          "Mean attended span of packed documents with per-document causal masks (tokens).");

    m.def("flops_per_token",
          [](const ModelSpec& model, double attention_span_tokens, std::string_view activation_checkpointing) {
              model.validate();
              if (!(attention_span_tokens >= 0) || !std::isfinite(attention_span_tokens))
                  throw std::invalid_argument("attention_span_tokens = " + std::to_string(attention_span_tokens) +
                                              "; it must be a finite number >= 0");
              return flops_per_token(model, attention_span_tokens, parse_checkpointing(activation_checkpointing));
          },
          py::arg("model"), py::arg("attention_span_tokens"), py::kw_only(),
          py::arg("activation_checkpointing") = "full",
          "FLOPs per token with the given mean attention span (causal_attention_span / packed_attention_span).");
}

}  // namespace libscale_py
