// model_from_hf_config: what each family reads from a real config.json, what it
// refuses and how. Catalog models' totals are in test_model_spec.cpp.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "libscale/io/error.hpp"
#include "libscale/spec/hf_config.hpp"
#include "libscale/spec/model_spec.hpp"

namespace libscale {
namespace {

using nlohmann::json;

ModelSpec read(const json& c) { return model_from_hf_config(c, "m", "m/config.json"); }

std::string error_of(const json& c) {
    try {
        (void)read(c);
    } catch (const ParseError& e) {
        return e.what();
    }
    return "(accepted)";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// tiiuae/falcon-7b-instruct's config.json as a public copy quotes it (auto_map and
// architectures left out): multi-query, one shared LayerNorm, RoPE, no biases.
json falcon_7b() {
    return json::parse(R"({"alibi": false, "apply_residual_connection_post_layernorm": false,
        "attention_dropout": 0.0, "bias": false, "bos_token_id": 11, "eos_token_id": 11,
        "hidden_dropout": 0.0, "hidden_size": 4544, "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05, "model_type": "falcon", "multi_query": true,
        "new_decoder_architecture": false, "num_attention_heads": 71, "num_hidden_layers": 32,
        "num_kv_heads": 71, "parallel_attn": true, "torch_dtype": "bfloat16",
        "transformers_version": "4.28.1", "use_cache": true, "vocab_size": 65024})");
}

TEST(HfConfig, FalconMultiQueryOneNorm) {
    const ModelSpec m = read(falcon_7b());
    EXPECT_EQ(m.num_kv_heads, 1);           // multi_query overrides num_kv_heads = 71
    EXPECT_EQ(m.head_dim, 64);              // 4544 / 71
    EXPECT_EQ(m.intermediate_size, 18176);  // ffn_hidden_size absent: 4 · 4544
    EXPECT_EQ(m.norms_per_layer, 1);        // parallel_attn without new_decoder_architecture
    EXPECT_TRUE(m.parallel_block && m.fused_qkv && m.tie_word_embeddings && m.norm_bias);
    EXPECT_EQ(m.positions, Positions::rope);
    EXPECT_EQ(m.activation, Activation::gelu);
    const ParameterCounts p = count_parameters(m);
    EXPECT_EQ(p.q_proj + p.k_proj + p.v_proj, 4544 * (4544 + 2 * 64));               // query_key_value 21,229,568
    EXPECT_EQ(p.per_layer, 21'229'568 + 4544 * 4544 + 2 * 4544 * 18176 + 2 * 4544);  // 207,070,080
    // 32 · 207,070,080 + 65024 · 4544 + 9,088 (no exact published total was found to cite)
    EXPECT_EQ(p.total, 6'921'720'704);
    // new_decoder_architecture (Falcon-40B style): num_kv_heads read, two norms.
    json c = falcon_7b();
    c["new_decoder_architecture"] = true;
    c["num_attention_heads"] = 64;
    c["num_kv_heads"] = 8;
    EXPECT_EQ(read(c).num_kv_heads, 8);
    EXPECT_EQ(read(c).norms_per_layer, 2);
    c["alibi"] = true;
    EXPECT_EQ(read(c).positions, Positions::alibi);
}

// The StarCoder2-7B config.json as mlc-ai/mlc-llm's model_preset.py quotes it.
TEST(HfConfig, Starcoder2LayerNormBiasesAndWindow) {
    const ModelSpec m = read(json::parse(R"({"activation_function": "gelu",
        "architectures": ["Starcoder2ForCausalLM"], "attention_dropout": 0.1, "residual_dropout": 0.1,
        "embedding_dropout": 0.1, "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu_pytorch_tanh",
        "hidden_size": 4608, "initializer_range": 0.018042, "intermediate_size": 18432,
        "layer_norm_epsilon": 1e-05, "max_position_embeddings": 16384, "mlp_type": "default",
        "model_type": "starcoder2", "norm_epsilon": 1e-05, "norm_type": "layer_norm",
        "num_attention_heads": 36, "num_hidden_layers": 32, "num_key_value_heads": 4,
        "rope_theta": 1000000, "sliding_window": 4096, "torch_dtype": "bfloat16",
        "use_bias": true, "use_cache": true, "vocab_size": 49152})"));
    EXPECT_EQ(m.mlp, MlpKind::plain);
    EXPECT_EQ(m.activation, Activation::gelu_tanh);  // hidden_act; activation_function is not read
    EXPECT_TRUE(m.qkv_bias && m.o_bias && m.mlp_bias && m.norm_bias);
    EXPECT_TRUE(m.tie_word_embeddings);  // no tie_word_embeddings key: PretrainedConfig's true
    EXPECT_EQ(m.sliding_window, 4096);
    EXPECT_EQ(m.sliding_window_layers, 32);
    const ParameterCounts p = count_parameters(m);
    // q 4608·4608+4608, k/v 4608·512+512, o 4608·4608+4608, MLP 2·4608·18432+18432+4608,
    // 2 LayerNorms 4·4608 = 217,106,944; × 32 + 49152 · 4608 + 9,216.
    EXPECT_EQ(p.per_layer, 217'106'944);
    EXPECT_EQ(p.total, 7'173'923'840);
}

TEST(HfConfig, OptProjectionsAndPostNorm) {
    // OPT-350m's shape: 512-wide embeddings, post-LayerNorm (no final norm).
    const ModelSpec m = read(json::parse(R"({"model_type": "opt", "hidden_size": 1024,
        "num_hidden_layers": 24, "num_attention_heads": 16, "ffn_dim": 4096,
        "max_position_embeddings": 2048, "vocab_size": 50272, "word_embed_proj_dim": 512,
        "do_layer_norm_before": false, "activation_function": "relu"})"));
    EXPECT_EQ(m.embed_proj_dim, 512);
    EXPECT_FALSE(m.final_norm);
    const ParameterCounts p = count_parameters(m);
    EXPECT_EQ(p.embedding, 50272 * 512);
    EXPECT_EQ(p.embed_projections, 2 * 512 * 1024);  // project_in + project_out, no bias
    EXPECT_EQ(p.lm_head, 0);                         // tied, 512 wide
    EXPECT_EQ(p.final_norm, 0);
    EXPECT_EQ(p.per_layer, 4 * (1024 * 1024 + 1024) + 2 * 1024 * 4096 + 4096 + 1024 + 4 * 1024);  // 12,596,224
    // 24 · 12,596,224 + 25,739,264 + 2050 · 1024 + 1,048,576
    EXPECT_EQ(p.total, 331'196'416);
    EXPECT_EQ(p.matmul_forward, 24 * p.per_layer_matmul + 1'048'576 + 50272 * 512);
}

TEST(HfConfig, MptFollowsMosaicMlKeys) {
    // llm-foundry's default MPT (no_bias false, no ALiBi): biases everywhere and a
    // learned table of max_seq_len rows; mpt-7b geometry with vocabulary 50368.
    json c = json::parse(R"({"model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32,
        "expansion_ratio": 4, "max_seq_len": 2048, "vocab_size": 50368, "no_bias": false,
        "learned_pos_emb": true, "attn_config": {"alibi": false, "attn_type": "multihead_attention"}})");
    const ParameterCounts p = count_parameters(read(c));
    EXPECT_EQ(p.per_layer, 12 * 4096 * 4096 + 13 * 4096);  // 201,379,840: 9d of linear biases, 4d of norms
    EXPECT_EQ(p.position_embedding, 2048 * 4096);
    // 32 · 201,379,840 + 50368 · 4096 + 8,192 + 8,388,608 (llm-foundry's benchmark NumParams)
    EXPECT_EQ(p.total, 6'658'859'008);
    c["attn_config"]["attn_type"] = "grouped_query_attention";
    c["attn_config"]["kv_n_heads"] = 8;
    EXPECT_EQ(read(c).num_kv_heads, 8);
    c["ffn_config"] = {{"ffn_type", "mb_moe"}};
    EXPECT_TRUE(has(error_of(c), "ffn_config.ffn_type")) << error_of(c);
}

TEST(HfConfig, ActivationKeysAreParsed) {
    json c = {{"model_type", "gpt2"},
              {"n_embd", 64},
              {"n_layer", 2},
              {"n_head", 4},
              {"vocab_size", 100},
              {"n_positions", 32},
              {"activation_function", "relu"}};
    EXPECT_EQ(read(c).activation, Activation::relu);
    EXPECT_EQ(read(c).intermediate_size, 256);  // n_inner absent: 4 · n_embd
    c["activation_function"] = "quick_gelu";
    const std::string msg = error_of(c);
    EXPECT_TRUE(has(msg, "'activation_function'") && has(msg, "quick_gelu") && has(msg, "gelu_pytorch_tanh")) << msg;
    // Gemma 2 reads hidden_activation, not hidden_act.
    const json g = {{"model_type", "gemma2"}, {"hidden_size", 64},          {"intermediate_size", 128},
                    {"num_hidden_layers", 2}, {"num_attention_heads", 4},   {"vocab_size", 100},
                    {"hidden_act", "relu"},   {"hidden_activation", "silu"}};
    EXPECT_EQ(read(g).activation, Activation::silu);
}

TEST(HfConfig, SlidingWindowLayers) {
    json q = {{"model_type", "qwen2"},  {"hidden_size", 64},        {"intermediate_size", 128},
              {"num_hidden_layers", 8}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
              {"vocab_size", 100},      {"sliding_window", 32},     {"max_window_layers", 6}};
    EXPECT_EQ(read(q).sliding_window_layers, 0);  // use_sliding_window defaults to false
    q["use_sliding_window"] = true;
    EXPECT_EQ(read(q).sliding_window_layers, 2);  // layers 6 and 7
    EXPECT_EQ(read(q).sliding_window, 32);
    q["layer_types"] = json::array();
    for (int i = 0; i < 8; ++i) q["layer_types"].push_back(i < 3 ? "sliding_attention" : "full_attention");
    EXPECT_EQ(read(q).sliding_window_layers, 3);  // layer_types wins when present
    q["layer_types"].erase(0);
    EXPECT_TRUE(has(error_of(q), "'layer_types'")) << error_of(q);
    // Gemma 2 with 5 layers: even layers 0, 2, 4; null soft-caps mean none.
    const json g = {{"model_type", "gemma2"},           {"hidden_size", 64},        {"intermediate_size", 128},
                    {"num_hidden_layers", 5},           {"num_attention_heads", 4}, {"vocab_size", 100},
                    {"attn_logit_softcapping", nullptr}};
    EXPECT_EQ(read(g).sliding_window_layers, 3);
    EXPECT_DOUBLE_EQ(read(g).attn_logit_softcap, 0.0);
    EXPECT_DOUBLE_EQ(read(g).final_logit_softcap, 30.0);  // transformers' default
}

TEST(HfConfig, UnknownAndMixtureOfExpertsTypesListTheSupportedOnes) {
    const json dense = {{"hidden_size", 64},
                        {"intermediate_size", 128},
                        {"num_hidden_layers", 2},
                        {"num_attention_heads", 4},
                        {"vocab_size", 100}};
    for (const char* type : {"bloom", "deepseek_v3", "gpt_oss"}) {
        SCOPED_TRACE(type);
        json c = dense;
        c["model_type"] = type;
        const std::string msg = error_of(c);
        EXPECT_TRUE(has(msg, "m/config.json") && has(msg, std::string("'") + type + "'")) << msg;
        EXPECT_TRUE(has(msg,
                        "falcon, gemma, gemma2, gpt2, gpt_neox, llama, mistral, mixtral, mpt, olmo, olmo2, olmoe, "
                        "opt, phi, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe, starcoder2"))
            << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos);  // one line
        EXPECT_EQ(has(msg, "mixture-of-experts"), std::string(type) != "bloom") << msg;
    }
    EXPECT_EQ(supported_model_types().size(), 20u);
}

TEST(HfConfig, MissingModelTypeIsReadAsLlamaOnlyWithLlamaKeys) {
    json c = {{"hidden_size", 64},
              {"intermediate_size", 128},
              {"num_hidden_layers", 2},
              {"num_attention_heads", 4},
              {"vocab_size", 100}};
    EXPECT_EQ(read(c).model_type, "llama");
    c.erase("intermediate_size");
    const std::string msg = error_of(c);
    EXPECT_TRUE(has(msg, "no 'model_type'") && has(msg, "'intermediate_size'") && has(msg, "llama")) << msg;
}

TEST(HfConfig, MissingSizeKeyIsNamedPerFamily) {
    const json gpt2 = {{"model_type", "gpt2"}, {"n_layer", 2}, {"n_head", 4}, {"vocab_size", 100}, {"n_positions", 32}};
    EXPECT_TRUE(has(error_of(gpt2), "missing field 'n_embd'")) << error_of(gpt2);
    const json mpt = {{"model_type", "mpt"}, {"n_layers", 2}, {"n_heads", 4}, {"vocab_size", 100}};
    EXPECT_TRUE(has(error_of(mpt), "missing field 'd_model'")) << error_of(mpt);
    const json opt = {{"model_type", "opt"},      {"hidden_size", 64}, {"num_hidden_layers", 2},
                      {"num_attention_heads", 4}, {"vocab_size", 100}, {"max_position_embeddings", 32}};
    EXPECT_TRUE(has(error_of(opt), "missing field 'ffn_dim'")) << error_of(opt);
    json bad = gpt2;
    bad["n_embd"] = "64";
    EXPECT_TRUE(has(error_of(bad), "field 'n_embd' = \"64\"; expected a positive integer")) << error_of(bad);
}

TEST(HfConfig, FamilyDefaultsFromTransformers) {
    const json base = {{"hidden_size", 64},
                       {"intermediate_size", 128},
                       {"num_hidden_layers", 2},
                       {"num_attention_heads", 16},
                       {"vocab_size", 100}};
    json c = base;
    c["model_type"] = "mistral";
    EXPECT_EQ(read(c).num_kv_heads, 8);       // MistralConfig's default, not the head count
    EXPECT_EQ(read(c).sliding_window, 4096);  // and its default window, on every layer
    c["sliding_window"] = nullptr;
    EXPECT_EQ(read(c).sliding_window_layers, 0);
    c = base;
    c["model_type"] = "qwen3";
    c["num_key_value_heads"] = 4;
    EXPECT_EQ(read(c).head_dim, 128);  // Qwen3Config's default head_dim, not 64 / 16
    c["num_key_value_heads"] = nullptr;
    EXPECT_EQ(read(c).num_kv_heads, 16);  // null: all heads
    c = base;
    c["model_type"] = "phi";
    c["qk_layernorm"] = true;
    const ParameterCounts phi = count_parameters(read(c));
    EXPECT_EQ(phi.qk_norm, 2 * 2 * 4);  // LayerNorms (weight + bias) over d_h = 4 on q and k
    EXPECT_EQ(phi.lm_head, 100 * 64 + 100);
}

}  // namespace
}  // namespace libscale
