// FLOPs per token: forward, backward, recompute under each checkpointing mode, and the
// attended span of causal and packed sequences.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "libscale/io/catalog.hpp"
#include "libscale/spec/flops.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

TEST(Flops, CausalSpanIsHalfTheSequence) {
    EXPECT_DOUBLE_EQ(causal_attention_span(4096), 2048.0);
    EXPECT_DOUBLE_EQ(causal_attention_span(1), 0.5);
}

TEST(Flops, PackedSpanByHand) {
    // Σℓ² / (2 Σℓ): (1000² + 3000²) / (2 · 4000) = (1e6 + 9e6) / 8000 = 1250.
    const std::vector<std::int64_t> docs{1000, 3000};
    EXPECT_DOUBLE_EQ(packed_attention_span(docs), 1250.0);
    // One document filling the sequence is the causal case: 4096² / 8192 = 2048.
    const std::vector<std::int64_t> one{4096};
    EXPECT_DOUBLE_EQ(packed_attention_span(one), causal_attention_span(4096));
    // Four one-token documents: 4 / 8 = 0.5.
    const std::vector<std::int64_t> tiny{1, 1, 1, 1};
    EXPECT_DOUBLE_EQ(packed_attention_span(tiny), 0.5);
    // Packing 8 × 512 instead of one 4096: 8·512² / (2·4096) = 256, an eighth of 2048.
    const std::vector<std::int64_t> eight(8, 512);
    EXPECT_DOUBLE_EQ(packed_attention_span(eight), 256.0);
}

TEST(Flops, PackedSpanRejectsBadInput) {
    const std::vector<std::int64_t> empty;
    EXPECT_THROW((void)packed_attention_span(empty), std::invalid_argument);
    const std::vector<std::int64_t> zero{100, 0};
    try {
        (void)packed_attention_span(zero);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("document_lengths[1] = 0"), std::string::npos) << e.what();
    }
    const std::vector<std::int64_t> negative{-5};
    EXPECT_THROW((void)packed_attention_span(negative), std::invalid_argument);
}

TEST(Flops, TinyModelNoCheckpointing) {
    // Tiny model, s = 1000 causal → s_eff = 500.
    //   matmul forward = 2 · (4 · 13,000,000 + 50,000,000 lm_head) = 204,000,000
    //   attention      = 4 · (h·d_h = 1000) · 500 · 4 layers    =   8,000,000
    const FlopsPerToken f = flops_per_token(test::tiny_model(), 500.0, Checkpointing::none);
    EXPECT_DOUBLE_EQ(f.matmul_forward, 204e6);
    EXPECT_DOUBLE_EQ(f.attention_forward, 8e6);
    EXPECT_DOUBLE_EQ(f.forward, 212e6);
    EXPECT_DOUBLE_EQ(f.backward, 424e6);  // 2 × forward
    EXPECT_DOUBLE_EQ(f.recompute, 0.0);
    EXPECT_DOUBLE_EQ(f.model, 636e6);  // 3 × forward
    EXPECT_DOUBLE_EQ(f.hardware, 636e6);
}

TEST(Flops, FullCheckpointingRecomputesDecoderLayersOnly) {
    // Layers' forward: 2 · 13,000,000 · 4 + 8,000,000 = 112,000,000; the lm_head's
    // 2 · 50,000,000 is outside the checkpointed blocks and is not recomputed.
    const FlopsPerToken f = flops_per_token(test::tiny_model(), 500.0, Checkpointing::full);
    EXPECT_DOUBLE_EQ(f.recompute, 112e6);
    EXPECT_DOUBLE_EQ(f.model, 636e6);  // MFU counts no recompute
    EXPECT_DOUBLE_EQ(f.hardware, 748e6);
}

TEST(Flops, SelectiveCheckpointingRecomputesKOAndSecondMlpMatmul) {
    // torchtitan op-SAC saves every other mm (q, v, w1, w2) and SDPA's output, so k,
    // o and w3 are recomputed: per layer d·kv + q·d + d·f = 1e6 + 1e6 + 3e6 = 5e6
    // weights, 2 FLOPs each, 4 layers: 40,000,000. No attention core recompute.
    const FlopsPerToken f = flops_per_token(test::tiny_model(), 500.0, Checkpointing::selective);
    EXPECT_DOUBLE_EQ(f.recompute, 40e6);
    EXPECT_DOUBLE_EQ(f.hardware, 676e6);
    // A plain (non-gated) MLP recomputes its second matmul, also d·f.
    ModelSpec plain = test::tiny_model();
    plain.mlp = MlpKind::plain;
    EXPECT_DOUBLE_EQ(flops_per_token(plain, 500.0, Checkpointing::selective).recompute, 40e6);
    // GQA: kv width 2·100 = 200 → k is 1000·200 = 2e5: (2e5 + 1e6 + 3e6) · 2 · 4 = 33.6e6.
    ModelSpec gqa = test::tiny_model();
    gqa.num_kv_heads = 2;
    EXPECT_DOUBLE_EQ(flops_per_token(gqa, 500.0, Checkpointing::selective).recompute, 33.6e6);
}

TEST(Flops, TiedEmbeddingStillCountsOutputProjection) {
    ModelSpec m = test::tiny_model();
    m.tie_word_embeddings = true;
    EXPECT_DOUBLE_EQ(flops_per_token(m, 500.0, Checkpointing::none).matmul_forward, 204e6);
}

TEST(Flops, AttentionScalesWithSpanNotWeights) {
    // Packed {1000, 3000}: span 1250 → attention 4 · 1000 · 1250 · 4 = 20,000,000.
    const FlopsPerToken f = flops_per_token(test::tiny_model(), 1250.0, Checkpointing::none);
    EXPECT_DOUBLE_EQ(f.attention_forward, 20e6);
    EXPECT_DOUBLE_EQ(f.forward, 224e6);
}

TEST(Flops, Qwen3_32B_At4096) {
    // matmul 2 · 31,983,534,080 = 63,967,068,160; attention 4 · 8192 · 2048 · 64
    // = 4,294,967,296; forward 68,262,035,456 FLOPs per token.
    const ModelSpec m = find_model("qwen3-32b");
    const FlopsPerToken f = flops_per_token(m, causal_attention_span(4096), Checkpointing::full);
    EXPECT_DOUBLE_EQ(f.matmul_forward, 63'967'068'160.0);
    EXPECT_DOUBLE_EQ(f.attention_forward, 4'294'967'296.0);
    EXPECT_DOUBLE_EQ(f.forward, 68'262'035'456.0);
    EXPECT_DOUBLE_EQ(f.model, 3.0 * 68'262'035'456.0);
    // recompute = forward − lm_head (2 · 777,912,320) = 66,706,210,816
    EXPECT_DOUBLE_EQ(f.recompute, 66'706'210'816.0);
    // The familiar 6·N rule: model FLOPs within 10% of 6 · 32.76e9 at this length.
    EXPECT_NEAR(f.model / (6.0 * 32'762'123'264.0), 1.0, 0.1);
}

TEST(Flops, ParseCheckpointing) {
    EXPECT_EQ(parse_checkpointing("none"), Checkpointing::none);
    EXPECT_EQ(parse_checkpointing("selective"), Checkpointing::selective);
    EXPECT_EQ(parse_checkpointing("full"), Checkpointing::full);
    EXPECT_STREQ(to_string(Checkpointing::selective), "selective");
    try {
        (void)parse_checkpointing("partial");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'partial'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace libscale
