// One reader per Hugging Face model_type: which config.json keys mean what, with the
// defaults of transformers' models/<type>/configuration_<type>.py and the shapes its
// modeling_<type>.py builds (read at transformers v4.51.3 unless noted). A missing key
// takes the transformers default, so a config loads as transformers would build it.
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "hf_config_reader.hpp"

namespace libscale::detail {

namespace {

using nlohmann::json;

// The Llama-style layout most families share (modeling_llama.py): q/k/v/o
// projections, a gated MLP, two RMSNorms per layer, a final norm, RoPE. Attention
// modules take head_dim from the config when present, else hidden_size / heads.
struct Defaults {
    std::int64_t kv_heads = 0;       // num_key_value_heads when missing; 0: num_attention_heads
    std::int64_t head_dim = 0;       // when missing; 0: hidden_size / num_attention_heads
    std::int64_t max_positions = 0;  // max_position_embeddings when missing
    bool tied = false;               // tie_word_embeddings when missing
    const char* act = "";            // hidden_act when missing
};

void decoder(const HfConfig& c, ModelSpec& m, const Defaults& d) {
    m.hidden_size = c.size("hidden_size");
    m.intermediate_size = c.size("intermediate_size");
    m.num_layers = c.size("num_hidden_layers");
    m.num_heads = c.size("num_attention_heads");
    m.vocab_size = c.size("vocab_size");
    // A null num_key_value_heads / head_dim means "derive it" in every config class.
    const std::int64_t kv_default = d.kv_heads ? d.kv_heads : m.num_heads;
    m.num_kv_heads = c.is_null("num_key_value_heads") ? m.num_heads : c.integer("num_key_value_heads", kv_default);
    m.head_dim = c.is_null("head_dim") ? m.hidden_size / m.num_heads
                                       : c.integer("head_dim", d.head_dim ? d.head_dim : m.hidden_size / m.num_heads);
    m.max_position_embeddings = c.integer("max_position_embeddings", d.max_positions);
    m.tie_word_embeddings = c.flag("tie_word_embeddings", d.tied);
    m.activation = c.activation("hidden_act", d.act);
}

// attention_bias: a bias on q, k, v and o (Llama, Qwen3, Gemma, OLMo).
void attention_bias(const HfConfig& c, ModelSpec& m) { m.qkv_bias = m.o_bias = c.flag("attention_bias", false); }

// sliding_window in tokens: null is none, and so is 0; a negative width is a broken file,
// refused rather than read as "none".
std::int64_t window_tokens(const HfConfig& c, std::int64_t missing) {
    const std::int64_t w = c.is_null("sliding_window") ? 0 : c.integer("sliding_window", missing);
    if (w < 0) c.bad_value("sliding_window", c.raw("sliding_window"), "expected a window in tokens >= 0, or null");
    return w;
}

// A window on every layer (Mistral, Phi-3, StarCoder2: sliding_window passed to every
// attention call); null: none.
void window_on_every_layer(const HfConfig& c, ModelSpec& m, std::int64_t missing) {
    m.sliding_window = window_tokens(c, missing);
    m.sliding_window_layers = sliding_layers(c, m.num_layers, m.sliding_window > 0 ? m.num_layers : 0);
    if (m.sliding_window_layers == 0) m.sliding_window = 0;
}

// Qwen2 / Qwen3: layers with index >= max_window_layers use the window, and only
// when use_sliding_window (modeling_qwen2.py Qwen2Attention, modeling_qwen3.py).
void qwen_window(const HfConfig& c, ModelSpec& m) {
    const std::int64_t window = window_tokens(c, 4096);
    const std::int64_t from = c.integer("max_window_layers", 28);
    const bool use = c.flag("use_sliding_window", false) && window > 0;
    // Layer i slides when i >= max_window_layers (configuration_qwen2.py's layer_types), so
    // a negative value means every layer and one past the last none: clamped to [0, L]
    // before the subtraction, which a value near INT64_MIN would overflow (found by
    // probing fuzz/fuzz_hf_config).
    const std::int64_t sliding = m.num_layers - std::clamp<std::int64_t>(from, 0, m.num_layers);
    m.sliding_window_layers = sliding_layers(c, m.num_layers, use ? sliding : 0);
    m.sliding_window = m.sliding_window_layers > 0 ? window : 0;
}

void layer_norm_with_bias(ModelSpec& m) {
    m.norm = NormKind::layer;
    m.norm_bias = true;
}

// --- families ------------------------------------------------------------------------

// models/llama: num_key_value_heads None → heads, head_dim None → d/h.
void llama(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.max_positions = 2048, .tied = false, .act = "silu"});
    attention_bias(c, m);
    m.mlp_bias = c.flag("mlp_bias", false);
}

// models/mistral: num_key_value_heads defaults to 8 and sliding_window to 4096 when
// the keys are missing; no biases (bias=False in MistralAttention / MistralMLP).
void mistral(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.kv_heads = 8, .max_positions = std::int64_t{4096} * 32, .tied = false, .act = "silu"});
    window_on_every_layer(c, m, 4096);
}

// models/qwen2: bias on q, k, v and none on o (hard-coded in Qwen2Attention);
// num_key_value_heads defaults to 32.
void qwen2(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.kv_heads = 32, .max_positions = 32768, .tied = false, .act = "silu"});
    m.qkv_bias = true;
    qwen_window(c, m);
}

// models/qwen3: RMSNorm over head_dim on q and k (q_norm, k_norm); head_dim defaults
// to 128, num_key_value_heads to 32.
void qwen3(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.kv_heads = 32, .head_dim = 128, .max_positions = 32768, .tied = false, .act = "silu"});
    m.qk_norm = QkNorm::per_head;
    attention_bias(c, m);
    qwen_window(c, m);
}

// models/gemma: tied, head_dim 256 by default. The activation is hidden_activation;
// when it is null transformers v4.38-v4.47 GemmaMLP used gelu_pytorch_tanh and
// ignored hidden_act (first Gemma configs say "gelu" there); v4.48+ reads hidden_act.
void gemma(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.kv_heads = 16, .head_dim = 256, .max_positions = 8192, .tied = true, .act = "gelu_pytorch_tanh"});
    m.activation = c.activation("hidden_activation", "gelu_pytorch_tanh");
    attention_bias(c, m);
}

// models/gemma2: four RMSNorms per layer (input, post_attention, pre_feedforward,
// post_feedforward); tanh soft-capping of attention scores (default 50) and final
// logits (default 30), null: none; the window on even layers (Gemma2Attention:
// sliding_window if not layer_idx % 2), i.e. ceil(L / 2) of them.
void gemma2(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.kv_heads = 4, .head_dim = 256, .max_positions = 8192, .tied = true, .act = "gelu_pytorch_tanh"});
    m.activation = c.activation("hidden_activation", "gelu_pytorch_tanh");
    attention_bias(c, m);
    m.norms_per_layer = 4;
    m.attn_logit_softcap = c.is_null("attn_logit_softcapping") ? 0 : c.number("attn_logit_softcapping", 50.0);
    m.final_logit_softcap = c.is_null("final_logit_softcapping") ? 0 : c.number("final_logit_softcapping", 30.0);
    const std::int64_t window = window_tokens(c, 4096);
    m.sliding_window_layers = sliding_layers(c, m.num_layers, window > 0 ? (m.num_layers + 1) / 2 : 0);
    m.sliding_window = m.sliding_window_layers > 0 ? window : 0;
}

// models/phi3: one qkv_proj and one gate_up_proj GEMM, no biases (attention_bias is
// not read by Phi3Attention); rope_scaling (longrope, su) and partial_rotary_factor
// change no shape. sliding_window (None by default) applies to every layer.
void phi3(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.max_positions = 4096, .tied = false, .act = "silu"});
    m.fused_qkv = m.fused_gate_up = true;
    window_on_every_layer(c, m, 0);
}

// models/phi (Phi-1.5, Phi-2): one LayerNorm (with bias) feeding attention and MLP in
// parallel; bias on q, k, v, dense, fc1, fc2 and lm_head; final_layernorm;
// qk_layernorm: LayerNorms over the head dimension on q and k.
void phi(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.max_positions = 2048, .tied = false, .act = "gelu_new"});
    m.mlp = MlpKind::plain;
    layer_norm_with_bias(m);
    m.norms_per_layer = 1;
    m.parallel_block = true;
    m.qkv_bias = m.o_bias = m.mlp_bias = m.lm_head_bias = true;
    if (c.flag("qk_layernorm", false)) m.qk_norm = QkNorm::per_head;
}

// models/gpt_neox (Pythia): query_key_value and dense with bias (attention_bias,
// default true), dense_h_to_4h / dense_4h_to_h with bias, two LayerNorms with bias
// (input, post_attention; with use_parallel_residual both read the block input),
// untied embed_out. rotary_pct only limits RoPE to part of each head.
void gpt_neox(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.max_positions = 2048, .tied = false, .act = "gelu"});
    m.num_kv_heads = m.num_heads;
    m.head_dim = m.hidden_size / m.num_heads;
    m.mlp = MlpKind::plain;
    layer_norm_with_bias(m);
    m.parallel_block = c.flag("use_parallel_residual", true);
    m.fused_qkv = true;
    m.qkv_bias = m.o_bias = c.flag("attention_bias", true);
    m.mlp_bias = true;
}

// models/gpt2: n_embd, n_layer, n_head (attribute_map), an MLP of n_inner (null: 4 ·
// n_embd), Conv1D c_attn / c_proj / c_fc with biases, LayerNorms with bias, a learned
// position table wpe of n_positions rows, tied lm_head.
void gpt2(const HfConfig& c, ModelSpec& m) {
    m.hidden_size = c.size("n_embd");
    m.num_layers = c.size("n_layer");
    m.num_heads = m.num_kv_heads = c.size("n_head");
    m.vocab_size = c.size("vocab_size");
    m.head_dim = m.hidden_size / m.num_heads;
    m.intermediate_size = c.integer("n_inner", 4 * m.hidden_size);
    m.max_position_embeddings = m.position_embedding_rows = c.size("n_positions");
    m.positions = Positions::learned;
    m.tie_word_embeddings = c.flag("tie_word_embeddings", true);
    m.activation = c.activation("activation_function", "gelu_new");
    m.mlp = MlpKind::plain;
    layer_norm_with_bias(m);
    m.fused_qkv = true;
    m.qkv_bias = m.o_bias = m.mlp_bias = true;
    if (c.flag("add_cross_attention", false))
        c.refuse("add_cross_attention", true,
                 "cross-attention layers belong to an encoder-decoder; "
                 "libscale models decoder-only transformers");
}

// models/opt: embed_tokens of width word_embed_proj_dim with project_in / project_out
// (no bias) when it differs from hidden_size (OPT-350m); positions from a table of
// max_position_embeddings + 2 rows (OPTLearnedPositionalEmbedding's offset of 2);
// enable_bias on q, k, v, out_proj, fc1, fc2; LayerNorms with weight and bias unless
// layer_norm_elementwise_affine is false; the final LayerNorm only when
// do_layer_norm_before and not _remove_final_layer_norm; tied lm_head.
void opt(const HfConfig& c, ModelSpec& m) {
    m.hidden_size = c.size("hidden_size");
    m.num_layers = c.size("num_hidden_layers");
    m.num_heads = m.num_kv_heads = c.size("num_attention_heads");
    m.intermediate_size = c.size("ffn_dim");
    m.vocab_size = c.size("vocab_size");
    m.head_dim = m.hidden_size / m.num_heads;
    m.max_position_embeddings = c.size("max_position_embeddings");
    m.positions = Positions::learned;
    m.position_embedding_rows = m.max_position_embeddings + 2;
    const std::int64_t e = c.integer("word_embed_proj_dim", m.hidden_size);
    m.embed_proj_dim = e == m.hidden_size ? 0 : e;
    m.tie_word_embeddings = c.flag("tie_word_embeddings", true);
    m.activation = c.activation("activation_function", "relu");
    m.mlp = MlpKind::plain;
    m.norm = NormKind::layer;
    m.norm_affine = m.norm_bias = c.flag("layer_norm_elementwise_affine", true);
    m.final_norm = c.flag("do_layer_norm_before", true) && !c.flag("_remove_final_layer_norm", false);
    m.qkv_bias = m.o_bias = m.mlp_bias = c.flag("enable_bias", true);
}

// MPT (model_type "mpt"): config.json names MosaicML's own modeling code (auto_map;
// llm-foundry llmfoundry/models/mpt/{configuration,modeling}_mpt.py), which is what
// these keys mean and what the checkpoints were trained with: an MLP of expansion_ratio
// · d_model; biases on every linear and LayerNorm unless no_bias; a learned position
// table of max_seq_len rows when learned_pos_emb and neither ALiBi nor RoPE. For
// mosaicml/mpt-7b (ratio 4, no_bias, ALiBi) transformers' own models/mpt MptModel builds
// the same shapes; it ignores these keys otherwise.
void mpt(const HfConfig& c, ModelSpec& m) {
    m.hidden_size = c.size("d_model");
    m.num_heads = c.size("n_heads");
    m.num_layers = c.size("n_layers");
    m.vocab_size = c.size("vocab_size");
    m.head_dim = m.hidden_size / m.num_heads;
    m.max_position_embeddings = c.integer("max_seq_len", 2048);
    const double ratio = c.number("expansion_ratio", 4.0);
    // Checked before the conversion to an integer, which is undefined behaviour out of
    // int64's range (1e300; found by probing fuzz/fuzz_hf_config). 1e15 is ModelSpec's own
    // bound on a parameter count (model_spec.cpp), so no real MLP width is refused here.
    const double width = ratio * static_cast<double>(m.hidden_size);
    if (!(width >= 1 && width <= 1e15))
        c.bad_value("expansion_ratio", json(ratio),
                    "expected a number > 0 with d_model × expansion_ratio (the MLP width) between 1 and 1e15");
    m.intermediate_size = static_cast<std::int64_t>(width);  // int(d · ratio)
    const HfConfig ffn = c.object("ffn_config");
    if (const std::string t = ffn.text("ffn_type", "mptmlp"); t == "mptglu") m.mlp = MlpKind::gated;
    else if (t == "mptmlp") m.mlp = MlpKind::plain;
    else
        ffn.refuse("ffn_type", t,
                   "only the dense MLPs mptmlp and mptglu are read (others are mixture-of-experts "
                   "or fused kernels of unknown shape)");
    m.intermediate_size = ffn.integer("ffn_hidden_size", m.intermediate_size);
    const HfConfig attn = c.object("attn_config");
    if (const std::string t = attn.text("attn_type", "multihead_attention"); t == "multihead_attention")
        m.num_kv_heads = m.num_heads;
    else if (t == "multiquery_attention") m.num_kv_heads = 1;
    else if (t == "grouped_query_attention") m.num_kv_heads = attn.integer("kv_n_heads", 1);
    else attn.refuse("attn_type", t, "expected multihead_attention, multiquery_attention or grouped_query_attention");
    if (attn.flag("qk_gn", false)) attn.refuse("qk_gn", true, "q/k GroupNorm is not represented");
    if (attn.flag("qk_ln", false)) m.qk_norm = QkNorm::full;  // LayerNorms over d_model and h_kv · d_h
    const bool alibi = attn.flag("alibi", false), rope = attn.flag("rope", false);
    m.positions = alibi ? Positions::alibi : rope ? Positions::rope : Positions::learned;
    if (m.positions == Positions::learned) {
        if (!c.flag("learned_pos_emb", true))
            c.refuse("learned_pos_emb", false, "no ALiBi, no RoPE and no position table: no position signal at all");
        m.position_embedding_rows = m.max_position_embeddings;
    }
    m.tie_word_embeddings = c.flag("tie_word_embeddings", true);
    m.activation = Activation::gelu;  // ffn_act_fn default: GELU(approximate="none")
    const bool bias = !c.flag("no_bias", false);
    m.qkv_bias = m.o_bias = m.mlp_bias = bias;
    const std::string norm = c.text("norm_type", "low_precision_layernorm");
    if (norm.find("rmsnorm") != std::string::npos) {
        m.norm = NormKind::rms;  // llm-foundry RMSNorm: a weight, no bias
    } else if (norm.find("layernorm") != std::string::npos) {
        m.norm = NormKind::layer;
        m.norm_bias = bias;  // no_bias also strips the LayerNorm biases
    } else {
        c.refuse("norm_type", norm, "expected a layernorm or rmsnorm variant of llm-foundry's NORM_CLASS_REGISTRY");
    }
    m.fused_qkv = true;  // Wqkv
}

// models/falcon: kv heads = num_kv_heads with new_decoder_architecture, else 1 with
// multi_query, else all heads; one query_key_value GEMM; bias on every linear when
// bias; ffn_hidden_size (null: 4 · hidden); ALiBi or RoPE; LayerNorms with bias:
// two per layer, or one when parallel_attn with num_ln_in_parallel_attn != 2
// (which defaults to 2 only with new_decoder_architecture).
void falcon(const HfConfig& c, ModelSpec& m) {
    m.hidden_size = c.has("n_embed") ? c.size("n_embed") : c.size("hidden_size");  // legacy alias
    m.num_layers = c.size("num_hidden_layers");
    m.num_heads = c.size("num_attention_heads");
    m.vocab_size = c.size("vocab_size");
    m.head_dim = m.hidden_size / m.num_heads;
    const bool new_arch = c.flag("new_decoder_architecture", false);
    m.num_kv_heads = new_arch ? c.integer("num_kv_heads", m.num_heads) : c.flag("multi_query", true) ? 1 : m.num_heads;
    m.intermediate_size = c.integer("ffn_hidden_size", 4 * m.hidden_size);
    m.max_position_embeddings = c.integer("max_position_embeddings", 2048);
    m.positions = c.flag("alibi", false) ? Positions::alibi : Positions::rope;
    m.tie_word_embeddings = c.flag("tie_word_embeddings", true);
    m.activation = c.activation("activation", "gelu");
    m.mlp = MlpKind::plain;
    layer_norm_with_bias(m);
    m.parallel_block = c.flag("parallel_attn", true);
    const std::int64_t ln = c.integer("num_ln_in_parallel_attn", new_arch ? 2 : 1);
    if (ln != 1 && ln != 2) c.bad_value("num_ln_in_parallel_attn", ln, "expected 1, 2 or null");
    m.norms_per_layer = m.parallel_block && ln != 2 ? 1 : 2;
    m.fused_qkv = true;
    m.qkv_bias = m.o_bias = m.mlp_bias = c.flag("bias", false);
}

// models/starcoder2: LayerNorms with bias, a plain c_fc / c_proj MLP, use_bias on every
// linear (default true), num_key_value_heads 2 by default, sliding_window on every
// layer (None by default), tied lm_head (PretrainedConfig default).
void starcoder2(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.kv_heads = 2, .max_positions = 4096, .tied = true, .act = "gelu_pytorch_tanh"});
    m.mlp = MlpKind::plain;
    layer_norm_with_bias(m);
    m.qkv_bias = m.o_bias = m.mlp_bias = c.flag("use_bias", true);
    window_on_every_layer(c, m, 0);
}

// models/olmo (OLMo 1): OlmoLayerNorm, "LayerNorm but with no learnable weight or
// bias", before attention, MLP and output: 0 norm parameters. clip_qkv adds none.
void olmo(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.max_positions = 2048, .tied = false, .act = "silu"});
    attention_bias(c, m);
    m.norm = NormKind::layer;
    m.norm_affine = false;
}

// models/olmo2: RMSNorm over the whole q (h · d_h) and k (h_kv · d_h) projections;
// two norms per layer, after attention and after the MLP (no input norm).
void olmo2(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.max_positions = 2048, .tied = false, .act = "silu"});
    attention_bias(c, m);
    m.qk_norm = QkNorm::full;
}

// --- mixtures of experts (transformers v5 main @008e5743: configuration_<type>.py and
// modeling_<type>.py, whose *SparseMoeBlock holds a bias-free d × E `gate` and E gated
// experts; token-choice top-k over a softmax) -------------------------------------------

// The expert count and width, and which layers are MoE layers. Qwen2/Qwen3-MoE's
// decoder layer i is sparse when i is not in mlp_only_layers and (i + 1) is a multiple of
// decoder_sparse_step; the others keep a dense MLP of intermediate_size.
void experts(const HfConfig& c, ModelSpec& m, const char* count_key, std::int64_t count, std::int64_t top_k,
             std::int64_t expert_width) {
    m.num_experts = c.integer(count_key, count);
    if (m.num_experts < 1) c.bad_value(count_key, c.raw(count_key), "expected a positive expert count");
    m.experts_per_token = c.integer("num_experts_per_tok", top_k);
    if (m.experts_per_token < 1 || m.experts_per_token > m.num_experts)
        c.bad_value("num_experts_per_tok", json(m.experts_per_token),
                    "expected 1 to " + std::string(count_key) + " = " + std::to_string(m.num_experts));
    m.moe_intermediate_size = expert_width;
    m.moe_layers = m.num_layers;
}

void qwen_moe_layers(const HfConfig& c, ModelSpec& m) {
    const std::int64_t step = c.integer("decoder_sparse_step", 1);
    if (step < 1) c.bad_value("decoder_sparse_step", c.raw("decoder_sparse_step"), "expected a positive integer");
    std::vector<bool> dense(static_cast<std::size_t>(m.num_layers), false);
    if (c.has("mlp_only_layers")) {
        const json& only = c.raw("mlp_only_layers");
        if (!only.is_array()) c.bad_value("mlp_only_layers", only, "expected a list of layer indices");
        for (const json& i : only) {
            if (!i.is_number_integer() || i.get<std::int64_t>() < 0 || i.get<std::int64_t>() >= m.num_layers)
                c.bad_value("mlp_only_layers", i,
                            "each entry must be a layer index 0 to " + std::to_string(m.num_layers - 1));
            dense[static_cast<std::size_t>(i.get<std::int64_t>())] = true;
        }
    }
    m.moe_layers = 0;
    for (std::int64_t i = 0; i < m.num_layers; ++i)
        if (!dense[static_cast<std::size_t>(i)] && (i + 1) % step == 0) ++m.moe_layers;
    if (m.moe_layers == 0) {  // every layer dense: the model is a dense one
        m.num_experts = m.experts_per_token = m.moe_intermediate_size = 0;
        m.shared_expert_intermediate_size = 0;
        m.shared_expert_gate = false;
    }
}

// models/qwen3_moe: Qwen3's attention (per-head q/k RMSNorm; head_dim from the config,
// else d / h), experts of moe_intermediate_size (default 768), 128 experts, top 8.
void qwen3_moe(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.kv_heads = 4, .max_positions = 32768, .tied = false, .act = "silu"});
    m.qk_norm = QkNorm::per_head;
    attention_bias(c, m);
    qwen_window(c, m);
    m.intermediate_size = c.integer("intermediate_size", 6144);
    experts(c, m, "num_experts", 128, 8, c.integer("moe_intermediate_size", 768));
    qwen_moe_layers(c, m);
}

// models/qwen2_moe: Qwen2's attention (q, k, v biased; qkv_bias default true), 60 experts
// of 1408, top 4, and a shared expert of shared_expert_intermediate_size (5632) behind a
// d × 1 sigmoid gate (Qwen2MoeSparseMoeBlock.shared_expert_gate).
void qwen2_moe(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.kv_heads = 16, .max_positions = 32768, .tied = false, .act = "silu"});
    m.qkv_bias = c.flag("qkv_bias", true);
    qwen_window(c, m);
    experts(c, m, "num_experts", 60, 4, c.integer("moe_intermediate_size", 1408));
    m.shared_expert_intermediate_size = c.integer("shared_expert_intermediate_size", 5632);
    if (m.shared_expert_intermediate_size < 0)
        c.bad_value("shared_expert_intermediate_size", c.raw("shared_expert_intermediate_size"),
                    "expected a width >= 0");
    m.shared_expert_gate = m.shared_expert_intermediate_size > 0;
    qwen_moe_layers(c, m);
}

// models/mixtral: Mistral's attention; num_local_experts (8) experts of intermediate_size
// (14336), top 2, on every layer; sliding_window null by default, else on every layer.
void mixtral(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.kv_heads = 8, .max_positions = std::int64_t{4096} * 32, .tied = false, .act = "silu"});
    window_on_every_layer(c, m, 0);
    experts(c, m, "num_local_experts", 8, 2, m.intermediate_size);
}

// models/olmoe: OLMo 2's full-width q/k RMSNorm (q_norm over h·d_h, k_norm over h_kv·d_h,
// OlmoeAttention), 64 experts of intermediate_size (1024 in OLMoE-1B-7B), top 8.
void olmoe(const HfConfig& c, ModelSpec& m) {
    decoder(c, m, {.max_positions = 4096, .tied = false, .act = "silu"});
    attention_bias(c, m);
    m.qk_norm = QkNorm::full;
    experts(c, m, "num_experts", 64, 8, m.intermediate_size);
}

}  // namespace

const Family kFamilies[] = {
    {"falcon", falcon},
    {"gemma", gemma},
    {"gemma2", gemma2},
    {"gpt2", gpt2},
    {"gpt_neox", gpt_neox},
    {"llama", llama},
    {"mistral", mistral},
    {"mixtral", mixtral, true},
    {"mpt", mpt},
    {"olmo", olmo},
    {"olmo2", olmo2},
    {"olmoe", olmoe, true},
    {"opt", opt},
    {"phi", phi},
    {"phi3", phi3},
    {"qwen2", qwen2},
    {"qwen2_moe", qwen2_moe, true},
    {"qwen3", qwen3},
    {"qwen3_moe", qwen3_moe, true},
    {"starcoder2", starcoder2},
};
const std::size_t kFamilyCount = std::size(kFamilies);

}  // namespace libscale::detail
