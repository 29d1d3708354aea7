// ModelSpec, ParameterCounts, FlopsPerToken and the FLOP counting functions.
#include <span>
#include <stdexcept>
#include <vector>

#include <pybind11/numpy.h>

#include "common.hpp"
#include "libscale/flops.hpp"
#include "libscale/model_spec.hpp"

namespace libscale_py {

using namespace libscale;

void register_model(py::module_& m) {
    const ModelSpec d{};
    py::class_<ModelSpec> spec(m, "ModelSpec",
                               "A dense decoder-only transformer (Llama / Qwen2 / Qwen3 / Mistral style).");
    spec.def(py::init([](std::string name, std::int64_t hidden_size, std::int64_t intermediate_size,
                         std::int64_t num_layers, std::int64_t num_heads, std::int64_t num_kv_heads,
                         std::int64_t head_dim, std::int64_t vocab_size, std::int64_t max_position_embeddings,
                         bool tie_word_embeddings, bool qk_norm, bool gated_mlp, bool qkv_bias, bool o_bias,
                         bool mlp_bias, std::string source) {
                 ModelSpec s;
                 s.name = std::move(name);
                 s.hidden_size = hidden_size;
                 s.intermediate_size = intermediate_size;
                 s.num_layers = num_layers;
                 s.num_heads = num_heads;
                 s.num_kv_heads = num_kv_heads;
                 s.head_dim = head_dim;
                 s.vocab_size = vocab_size;
                 s.max_position_embeddings = max_position_embeddings;
                 s.tie_word_embeddings = tie_word_embeddings;
                 s.qk_norm = qk_norm ? QkNorm::per_head : QkNorm::none;
                 s.mlp = gated_mlp ? MlpKind::gated : MlpKind::plain;
                 s.qkv_bias = qkv_bias;
                 s.o_bias = o_bias;
                 s.mlp_bias = mlp_bias;
                 s.source = std::move(source);
                 return s;
             }),
             py::kw_only(), py::arg("name") = d.name, py::arg("hidden_size") = d.hidden_size,
             py::arg("intermediate_size") = d.intermediate_size, py::arg("num_layers") = d.num_layers,
             py::arg("num_heads") = d.num_heads, py::arg("num_kv_heads") = d.num_kv_heads,
             py::arg("head_dim") = d.head_dim, py::arg("vocab_size") = d.vocab_size,
             py::arg("max_position_embeddings") = d.max_position_embeddings,
             py::arg("tie_word_embeddings") = d.tie_word_embeddings, py::arg("qk_norm") = false,
             py::arg("gated_mlp") = true, py::arg("qkv_bias") = d.qkv_bias, py::arg("o_bias") = d.o_bias,
             py::arg("mlp_bias") = d.mlp_bias, py::arg("source") = d.source,
             "Every field by keyword; call validate() (or any estimate) to check it.")
        .def_readwrite("name", &ModelSpec::name)
        .def_readwrite("hidden_size", &ModelSpec::hidden_size)
        .def_readwrite("intermediate_size", &ModelSpec::intermediate_size)
        .def_readwrite("num_layers", &ModelSpec::num_layers)
        .def_readwrite("num_heads", &ModelSpec::num_heads)
        .def_readwrite("num_kv_heads", &ModelSpec::num_kv_heads)
        .def_readwrite("head_dim", &ModelSpec::head_dim)
        .def_readwrite("vocab_size", &ModelSpec::vocab_size)
        .def_readwrite("max_position_embeddings", &ModelSpec::max_position_embeddings)
        .def_readwrite("tie_word_embeddings", &ModelSpec::tie_word_embeddings)
        .def_property(
            "qk_norm", [](const ModelSpec& s) { return s.qk_norm != QkNorm::none; },
            [](ModelSpec& s, bool v) { s.qk_norm = v ? QkNorm::per_head : QkNorm::none; })
        .def_property(
            "gated_mlp", [](const ModelSpec& s) { return s.mlp == MlpKind::gated; },
            [](ModelSpec& s, bool v) { s.mlp = v ? MlpKind::gated : MlpKind::plain; })
        .def_readwrite("qkv_bias", &ModelSpec::qkv_bias)
        .def_readwrite("o_bias", &ModelSpec::o_bias)
        .def_readwrite("mlp_bias", &ModelSpec::mlp_bias)
        .def_readwrite("source", &ModelSpec::source)
        .def("validate", &ModelSpec::validate, "Raise ValueError naming the first invalid field.")
        .def_property_readonly(
            "parameters", [](const ModelSpec& s) { return count_parameters(s).total; },
            "Total parameter count (count_parameters(model).total).");
    def_value_methods(spec);

    py::class_<ParameterCounts> counts(m, "ParameterCounts", "Parameters per component of a ModelSpec.");
    counts.def_readonly("embedding", &ParameterCounts::embedding)
        .def_readonly("lm_head", &ParameterCounts::lm_head, "0 when tied to the embedding")
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
        .def_readonly("root_unit", &ParameterCounts::root_unit, "FSDP2 root unit: embedding, final norm, lm_head")
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
