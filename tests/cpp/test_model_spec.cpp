// Parameter counts, exact to the unit, against public figures (Hugging Face safetensors
// totals, cited in each calibration/data/models file) and hand counts of small configs.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "libscale/io/catalog.hpp"
#include "libscale/io/error.hpp"
#include "libscale/spec/hf_config.hpp"
#include "libscale/spec/model_spec.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

using nlohmann::json;

TEST(ModelSpec, Qwen3_32B_PerLayerBreakdownMatchesPublished) {
    const ParameterCounts p = count_parameters(find_model("qwen3-32b"));
    // d = 5120, h = 64, h_kv = 8, d_h = 128 (q width 8192), f = 25600, V = 151936, L = 64.
    EXPECT_EQ(p.q_proj, 41'943'040);             // 5120 · 8192
    EXPECT_EQ(p.k_proj, 5'242'880);              // 5120 · 1024
    EXPECT_EQ(p.v_proj, 5'242'880);              // 5120 · 1024
    EXPECT_EQ(p.o_proj, 41'943'040);             // 8192 · 5120
    EXPECT_EQ(p.qk_norm, 256);                   // q_norm + k_norm, 128 each
    EXPECT_EQ(p.mlp, 393'216'000);               // 3 · 5120 · 25600
    EXPECT_EQ(p.layer_norms, 10'240);            // 2 · 5120
    EXPECT_EQ(p.per_layer, 487'598'336);         // sum of the above
    EXPECT_EQ(p.per_layer_matmul, 487'587'840);  // 487,598,336 − 256 − 10,240
    EXPECT_EQ(p.layers, 31'206'293'504);         // × 64
    EXPECT_EQ(p.embedding, 777'912'320);         // 151936 · 5120
    EXPECT_EQ(p.lm_head, 777'912'320);           // untied
    EXPECT_EQ(p.final_norm, 5'120);
    EXPECT_EQ(p.total, 32'762'123'264);          // 31,206,293,504 + 2 · 777,912,320 + 5,120
    EXPECT_EQ(p.non_embedding, 31'984'210'944);  // total − embedding
    // FSDP2 root unit: embedding + lm_head + final norm = 1,555,829,760 (DESIGN: "1.56 B").
    EXPECT_EQ(p.root_unit, 1'555'829'760);
    // Matmul weights seen in forward: 64 · 487,587,840 + 777,912,320 (lm_head).
    EXPECT_EQ(p.matmul_forward, 31'983'534'080);
}

TEST(ModelSpec, PublishedTotalsOfWellKnownModels) {
    // Hugging Face safetensors totals (Hub API safetensors.total; calibration/data/models).
    EXPECT_EQ(count_parameters(find_model("qwen3-32b")).total, 32'762'123'264);
    // Qwen3-8B: per layer 2·16,777,216 + 2·4,194,304 + 150,994,944 + 256 + 8,192
    //   = 192,946,432; × 36 = 6,946,071,552; + 2 · 622,329,856 + 4,096 = 8,190,735,360.
    EXPECT_EQ(count_parameters(find_model("qwen3-8b")).total, 8'190'735'360);
    // Llama-3.1-8B: per layer 2·16,777,216 + 2·4,194,304 + 3·4096·14336 + 8,192
    //   = 218,112,000; × 32 = 6,979,584,000; + 2 · 525,336,576 + 4,096 = 8,030,261,248.
    EXPECT_EQ(count_parameters(find_model("llama-3.1-8b")).total, 8'030'261'248);
    // Llama-3.1-70B: per layer 2·67,108,864 + 2·8,388,608 + 704,643,072 + 16,384
    //   = 855,654,400; × 80 = 68,452,352,000; + 2 · 1,050,673,152 + 8,192 = 70,553,706,496.
    EXPECT_EQ(count_parameters(find_model("llama-3.1-70b")).total, 70'553'706'496);
    // Llama-3.1-405B: per layer 2·268,435,456 + 2·16,777,216 + 2,617,245,696 + 32,768
    //   = 3,187,703,808; × 126 = 401,650,679,808; + 2 · 2,101,346,304 + 16,384.
    EXPECT_EQ(count_parameters(find_model("llama-3.1-405b")).total, 405'853'388'800);
}

TEST(ModelSpec, EveryCatalogModelMatchesItsPublishedCount) {
    ASSERT_EQ(model_names().size(), 44u);
    for (const std::string& name : model_names()) {
        SCOPED_TRACE(name);
        const ModelSpec m = find_model(name);
        const ParameterCounts p = count_parameters(m);
        const json file = json::parse(catalog_file("models/" + name + ".json"));
        const auto formula = file.at("_libscale").at("parameters_formula").get<std::int64_t>();
        EXPECT_EQ(p.total, formula);
        const json& exact = file.at("_libscale").at("parameters_published");
        if (exact.is_null()) {
            // KempnerForge's benchmark shapes are no checkpoints; their reports round the
            // count: "13B | 14.84B" (mfu_scaling), "20M" and "77M" (config_validation).
            const std::map<std::string, std::pair<double, double>> rounded = {
                {"kempnerforge-13b", {14.84e9, 0.005e9}},
                {"kempnerforge-debug-20m", {20e6, 0.5e6}},
                {"kempnerforge-wikitext-77m", {77e6, 0.5e6}}};
            ASSERT_TRUE(rounded.count(name)) << "only KempnerForge's synthetic shapes lack an exact published count";
            EXPECT_NEAR(static_cast<double>(p.total), rounded.at(name).first, rounded.at(name).second);
            continue;
        }
        const auto published = exact.get<std::int64_t>();
        if (name == "qwen3-0.6b" || name == "qwen3-1.7b") {
            // Tied embeddings whose checkpoint stores lm_head.weight materialized: the
            // published safetensors total counts V·d twice.
            ASSERT_TRUE(m.tie_word_embeddings);
            EXPECT_EQ(published - p.total, m.vocab_size * m.hidden_size);
        } else {
            EXPECT_EQ(p.total, published);
        }
    }
    // By hand for Qwen3-0.6B: 751,632,384 − 596,049,920 = 155,582,464 = 151936 · 1024.
    EXPECT_EQ(count_parameters(find_model("qwen3-0.6b")).total, 596'049'920);
    // Qwen3-4B is tied too, and its checkpoint does not duplicate lm_head:
    // per layer 10,485,760·2 + 2,621,440·2 + 3·2560·9728 + 256 + 5,120 = 100,930,816;
    // × 36 = 3,633,509,376; + 151936·2560 (388,956,160) + 2,560 = 4,022,468,096.
    EXPECT_EQ(count_parameters(find_model("qwen3-4b")).total, 4'022'468'096);
}

TEST(ModelSpec, Qwen2ConfigHasQkvBiasButNoOutputBias) {
    // Qwen2.5-0.5B's config.json (model_type qwen2, tied). Its published safetensors
    // total is 494,032,768 ("0.49B", non-embedding "0.36B" on the model card).
    const json config = {{"model_type", "qwen2"},      {"hidden_size", 896},
                         {"intermediate_size", 4864},  {"num_hidden_layers", 24},
                         {"num_attention_heads", 14},  {"num_key_value_heads", 2},
                         {"vocab_size", 151936},       {"max_position_embeddings", 32768},
                         {"tie_word_embeddings", true}};
    const ModelSpec m = model_from_hf_config(config, "qwen2.5-0.5b", "inline");
    EXPECT_EQ(m.head_dim, 64);  // 896 / 14, no head_dim key
    EXPECT_TRUE(m.qkv_bias);
    EXPECT_FALSE(m.o_bias);
    EXPECT_EQ(m.qk_norm, QkNorm::none);
    const ParameterCounts p = count_parameters(m);
    EXPECT_EQ(p.q_proj, 896 * 896 + 896);  // 803,712
    EXPECT_EQ(p.k_proj, 896 * 128 + 128);  // 114,816
    EXPECT_EQ(p.v_proj, 896 * 128 + 128);
    EXPECT_EQ(p.o_proj, 896 * 896);  // no bias
    // 803,712 + 2·114,816 + 802,816 + 13,074,432 + 1,792 = 14,912,384
    EXPECT_EQ(p.per_layer, 14'912'384);
    EXPECT_EQ(p.lm_head, 0);
    // 24 · 14,912,384 + 136,134,656 + 896 = 494,032,768
    EXPECT_EQ(p.total, 494'032'768);
}

json small_llama(bool attention_bias, bool mlp_bias, bool tied) {
    // d = 64, f = 128, L = 2, h = 4, h_kv = 2, no head_dim (→ 16), V = 100.
    return {{"model_type", "llama"},       {"hidden_size", 64},
            {"intermediate_size", 128},    {"num_hidden_layers", 2},
            {"num_attention_heads", 4},    {"num_key_value_heads", 2},
            {"vocab_size", 100},           {"max_position_embeddings", 256},
            {"tie_word_embeddings", tied}, {"attention_bias", attention_bias},
            {"mlp_bias", mlp_bias}};
}

TEST(ModelSpec, AttentionAndMlpBiasCountedByHand) {
    const ModelSpec plain = model_from_hf_config(small_llama(false, false, false), "s", "inline");
    EXPECT_EQ(plain.head_dim, 16);
    const ParameterCounts a = count_parameters(plain);
    // q 64·64 = 4,096; k, v 64·32 = 2,048; o 4,096; MLP 3·64·128 = 24,576; norms 128.
    EXPECT_EQ(a.per_layer, 36'992);
    EXPECT_EQ(a.per_layer_matmul, 36'864);
    // 2 · 36,992 + 2 · 6,400 + 64 = 86,848
    EXPECT_EQ(a.total, 86'848);

    const ModelSpec biased = model_from_hf_config(small_llama(true, true, false), "s", "inline");
    EXPECT_TRUE(biased.qkv_bias);
    EXPECT_TRUE(biased.o_bias);  // Llama: attention_bias puts a bias on q, k, v and o
    EXPECT_TRUE(biased.mlp_bias);
    const ParameterCounts b = count_parameters(biased);
    EXPECT_EQ(b.q_proj, 4'096 + 64);
    EXPECT_EQ(b.k_proj, 2'048 + 32);
    EXPECT_EQ(b.v_proj, 2'048 + 32);
    EXPECT_EQ(b.o_proj, 4'096 + 64);
    EXPECT_EQ(b.mlp, 24'576 + 128 + 128 + 64);  // gate, up (f each), down (d)
    // Biases add 64 + 32 + 32 + 64 + 320 = 512 per layer, 1,024 in all.
    EXPECT_EQ(b.per_layer, 37'504);
    EXPECT_EQ(b.total, 87'872);
    EXPECT_EQ(b.per_layer_matmul, 36'864);  // biases are not matmul weights
}

TEST(ModelSpec, TiedEmbeddingsHoldOneMatrixButStillProjectOutputs) {
    const ModelSpec m = model_from_hf_config(small_llama(false, false, true), "s", "inline");
    EXPECT_TRUE(m.tie_word_embeddings);
    const ParameterCounts p = count_parameters(m);
    EXPECT_EQ(p.embedding, 6'400);
    EXPECT_EQ(p.lm_head, 0);
    EXPECT_EQ(p.total, 86'848 - 6'400);               // 80,448
    EXPECT_EQ(p.root_unit, 6'400 + 64);               // held once
    EXPECT_EQ(p.matmul_forward, 2 * 36'864 + 6'400);  // the output projection still runs
}

TEST(ModelSpec, ExplicitHeadDimOverridesHiddenOverHeads) {
    json c = small_llama(false, false, false);
    c["head_dim"] = 32;  // q width 4·32 = 128 ≠ 64
    const ParameterCounts p = count_parameters(model_from_hf_config(c, "s", "inline"));
    EXPECT_EQ(p.q_proj, 64 * 128);
    EXPECT_EQ(p.k_proj, 64 * 64);
    EXPECT_EQ(p.o_proj, 128 * 64);
}

TEST(ModelSpec, KvHeadsDefaultToAttentionHeads) {
    json c = small_llama(false, false, false);
    c.erase("num_key_value_heads");
    const ModelSpec m = model_from_hf_config(c, "s", "inline");
    EXPECT_EQ(m.num_kv_heads, 4);
    EXPECT_EQ(count_parameters(m).k_proj, 64 * 64);
}

TEST(ModelSpec, MixtureOfExpertsConfigIsRejected) {
    for (const char* key : {"num_experts", "num_local_experts", "n_routed_experts"}) {
        SCOPED_TRACE(key);
        json c = small_llama(false, false, false);
        c[key] = 8;
        try {
            (void)model_from_hf_config(c, "moe", "moe/config.json");
            FAIL() << "a MoE config was accepted";
        } catch (const ParseError& e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("moe/config.json"), std::string::npos) << e.what();
        }
    }
}

TEST(ModelSpec, ValidateNamesFieldAndValue) {
    ModelSpec m = test::tiny_model();
    EXPECT_NO_THROW(m.validate());
    m.hidden_size = 0;
    try {
        m.validate();
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("hidden_size = 0"), std::string::npos) << e.what();
    }
    m = test::tiny_model();
    m.num_kv_heads = 3;  // 10 % 3 ≠ 0
    EXPECT_THROW(m.validate(), std::invalid_argument);
    // The same problem in a config.json is a ParseError naming the file.
    json c = small_llama(false, false, false);
    c["num_key_value_heads"] = 3;
    EXPECT_THROW((void)model_from_hf_config(c, "s", "bad/config.json"), ParseError);
}

// --- one catalog model per family, component by component (d: hidden, f: MLP width,
// V: vocabulary, L: layers; counts per layer unless said) ---------------------------

TEST(ModelSpec, Gpt2ByComponent) {
    const ParameterCounts p = count_parameters(find_model("gpt2"));
    // d 768, f 3072, V 50257, 1024 positions, tied; every linear and LayerNorm has a bias.
    EXPECT_EQ(p.q_proj + p.k_proj + p.v_proj, 768 * 2304 + 2304);  // c_attn 1,771,776
    EXPECT_EQ(p.o_proj, 768 * 768 + 768);                          // 590,592
    EXPECT_EQ(p.mlp, 2 * 768 * 3072 + 3072 + 768);                 // 4,722,432
    EXPECT_EQ(p.layer_norms, 2 * 2 * 768);                         // ln_1, ln_2: weight + bias
    EXPECT_EQ(p.per_layer, 7'087'872);
    EXPECT_EQ(p.position_embedding, 1024 * 768);  // wpe 786,432
    EXPECT_EQ(p.embedding, 50257 * 768);          // 38,597,376
    EXPECT_EQ(p.lm_head, 0);
    EXPECT_EQ(p.final_norm, 2 * 768);
    EXPECT_EQ(p.total, 124'439'808);  // 12 · 7,087,872 + 38,597,376 + 786,432 + 1,536
    EXPECT_EQ(p.non_embedding, 124'439'808 - 38'597'376 - 786'432);
    EXPECT_EQ(p.root_unit, 38'597'376 + 786'432 + 1'536);
}

TEST(ModelSpec, Opt125mByComponent) {
    const ParameterCounts p = count_parameters(find_model("opt-125m"));
    EXPECT_EQ(p.per_layer, 7'087'872);            // same block as GPT-2
    EXPECT_EQ(p.position_embedding, 2050 * 768);  // (2048 + 2) · 768 = 1,574,400
    EXPECT_EQ(p.embedding, 50272 * 768);          // 38,608,896
    EXPECT_EQ(p.embed_projections, 0);            // word_embed_proj_dim = hidden_size
    EXPECT_EQ(p.total, 125'239'296);              // 85,054,464 + 38,608,896 + 1,574,400 + 1,536
}

TEST(ModelSpec, Pythia1bByComponent) {
    const ParameterCounts p = count_parameters(find_model("pythia-1b"));
    // d 2048, f 8192, V 50304, 16 layers, untied embed_out.
    EXPECT_EQ(p.q_proj + p.k_proj + p.v_proj, 2048 * 6144 + 6144);  // query_key_value
    EXPECT_EQ(p.mlp, 2 * 2048 * 8192 + 8192 + 2048);
    EXPECT_EQ(p.per_layer, 50'358'272);
    // The model card's non-embedding figure: layers + final LayerNorm.
    EXPECT_EQ(p.layers + p.final_norm, 805'736'448);
    EXPECT_EQ(p.total, 1'011'781'632);  // + 2 · 50304 · 2048
}

TEST(ModelSpec, Phi2ByComponent) {
    const ParameterCounts p = count_parameters(find_model("phi-2"));
    EXPECT_EQ(p.layer_norms, 2 * 2560);  // one LayerNorm, weight + bias
    EXPECT_EQ(p.per_layer, 4 * (2560 * 2560 + 2560) + 2 * 2560 * 10240 + 10240 + 2560 + 5120);
    EXPECT_EQ(p.lm_head, 51200 * 2560 + 51200);  // untied, with a bias
    EXPECT_EQ(p.total, 2'779'683'840);           // 32 · 78,671,360 + 131,072,000 + 131,123,200 + 5,120
}

TEST(ModelSpec, Phi3MiniByComponent) {
    const ParameterCounts p = count_parameters(find_model("phi-3-mini-4k-instruct"));
    EXPECT_EQ(p.per_layer, 4 * 3072 * 3072 + 3 * 3072 * 8192 + 2 * 3072);  // 113,252,352
    EXPECT_EQ(p.total, 3'821'079'552);  // 32 · 113,252,352 + 2 · 32064 · 3072 + 3072
}

TEST(ModelSpec, GemmaByComponent) {
    const ParameterCounts a = count_parameters(find_model("gemma-2b"));
    // h 8 × 256, one KV head of 256: q and o 2048·2048, k and v 2048·256.
    EXPECT_EQ(a.k_proj, 2048 * 256);
    EXPECT_EQ(a.per_layer, 2 * 2048 * 2048 + 2 * 2048 * 256 + 3 * 2048 * 16384 + 2 * 2048);  // 110,104,576
    EXPECT_EQ(a.total, 2'506'172'416);  // 18 · 110,104,576 + 256000 · 2048 + 2048, tied
    const ParameterCounts b = count_parameters(find_model("gemma-2-9b"));
    EXPECT_EQ(b.layer_norms, 4 * 3584);   // four RMSNorms per layer
    EXPECT_EQ(b.per_layer, 198'195'200);  // 3 · 14,680,064 + 3 · 3584 · 14336 + 14,336
    EXPECT_EQ(b.total, 9'241'705'984);    // 42 · 198,195,200 + 917,504,000 + 3,584
}

TEST(ModelSpec, MistralQwenMptOlmoByComponent) {
    EXPECT_EQ(count_parameters(find_model("mistral-7b-v0.1")).per_layer, 218'112'000);
    EXPECT_EQ(count_parameters(find_model("mistral-7b-v0.1")).total, 7'241'732'096);
    const ParameterCounts q = count_parameters(find_model("qwen2.5-7b"));
    EXPECT_EQ(q.k_proj, 3584 * 512 + 512);  // bias on k; none on o
    EXPECT_EQ(q.o_proj, 3584 * 3584);
    EXPECT_EQ(q.total, 7'615'616'512);  // 28 · 233,057,792 + 2 · 152064 · 3584 + 3584
    const ParameterCounts mpt = count_parameters(find_model("mpt-7b"));
    EXPECT_EQ(mpt.per_layer, 12 * 4096 * 4096 + 2 * 4096);  // no biases, LayerNorm weights only
    EXPECT_EQ(mpt.position_embedding, 0);                   // ALiBi
    EXPECT_EQ(mpt.total, 6'649'286'656);                    // 32 · 201,334,784 + 50432 · 4096 + 4096
    const ParameterCounts o1 = count_parameters(find_model("olmo-1b"));
    EXPECT_EQ(o1.layer_norms, 0);  // non-parametric LayerNorm
    EXPECT_EQ(o1.final_norm, 0);
    EXPECT_EQ(o1.total, 1'176'764'416);  // 16 · 67,108,864 + 50304 · 2048
    const ParameterCounts o2 = count_parameters(find_model("olmo-2-1124-7b"));
    EXPECT_EQ(o2.qk_norm, 4096 + 4096);  // q_norm over h·d_h, k_norm over h_kv·d_h
    EXPECT_EQ(o2.per_layer, 202'391'552);
    EXPECT_EQ(o2.total, 7'298'617'344);  // 32 · 202,391,552 + 2 · 100352 · 4096 + 4096
}

TEST(ModelSpec, TinyModelCountedByHand) {
    const ParameterCounts p = count_parameters(test::tiny_model());
    EXPECT_EQ(p.per_layer, 13'002'000);
    EXPECT_EQ(p.root_unit, 100'001'000);
    EXPECT_EQ(p.total, 152'009'000);
    EXPECT_EQ(p.matmul_forward, 102'000'000);  // 4 · 13,000,000 + 50,000,000
}

// The counts are int64 products of the sizes: a spec no model has (built field by field,
// never validated) is refused before they are formed, not counted into an overflow.
TEST(ModelSpec, CountingAnInvalidSpecThrowsInsteadOfOverflowing) {
    ModelSpec m = find_model("qwen3-8b");
    m.hidden_size = std::int64_t{1} << 40;
    m.intermediate_size = std::int64_t{1} << 40;
    try {
        (void)count_parameters(m);
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("over 1e15"), std::string::npos) << e.what();
    }
    m = find_model("qwen3-8b");
    m.num_layers = -36;
    EXPECT_THROW((void)count_parameters(m), std::invalid_argument);
}

// Messages are one line whatever they quote.
TEST(Error, OneLineEscapesControlBytes) {
    EXPECT_EQ(one_line("plain text, UTF-8: \u00d7 \u2265"), "plain text, UTF-8: \u00d7 \u2265");
    EXPECT_EQ(one_line("a\nb\rc\td"), "a\\nb\\rc\\td");
    EXPECT_EQ(one_line(std::string("\x1b[31mred\x7f\0end", 13)), "\\x1b[31mred\\x7f\\x00end");
}

}  // namespace
}  // namespace libscale
