// What a fine-tuning run trains and how its frozen base is stored: a full fine-tune, or
// low-rank adapters (LoRA, Hu et al., arXiv 2106.09685) on a frozen base in bf16, fp8 or
// 4-bit NormalFloat (QLoRA, Dettmers et al., arXiv 2305.14314), or weight-decomposed
// adapters (DoRA, Liu et al., arXiv 2402.09353). The split into trained and frozen
// parameters is computed once here; memory, compute, communication and the optimizer all
// read it (docs/model.md "Fine-tuning methods").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "libscale/spec/model_spec.hpp"

namespace libscale {

struct TrainingConfig;

enum class FineTuning : std::uint8_t { full, lora, qlora, dora };
FineTuning parse_fine_tuning(std::string_view s);
const char* to_string(FineTuning f);

// How the frozen base's matmul weights are stored. automatic: bf16, or NF4 with double
// quantization for qlora (the QLoRA paper's and torchao's NF4 layout). Norms and
// embeddings stay bf16: bitsandbytes and torchao quantize linear layers only.
enum class BaseWeights : std::uint8_t { automatic, bf16, fp8, nf4, nf4_double_quant };
BaseWeights parse_base_weights(std::string_view s);
const char* to_string(BaseWeights b);

// Bytes per stored weight (docs/model.md "Fine-tuning methods"): bf16 2; fp8 1 (one scale
// per tensor); NF4 packs two weights a byte with an fp32 absmax per 64-weight block (0.5 +
// 4/64); double quantization stores those absmax as uint8 with an fp32 scale per 256 of
// them (0.5 + 1/64 + 4/16384, the paper's 0.127 bits per parameter for the constants).
double base_bytes_per_weight(BaseWeights b) noexcept;

// The decoder layer's linear projections LoRA can target, by their PEFT / Hugging Face
// names. A bit set: LoraTargets::all is PEFT's "all-linear" (the output layer excluded).
namespace lora_target {
inline constexpr std::uint8_t q = 1, k = 2, v = 4, o = 8, gate = 16, up = 32, down = 64;
inline constexpr std::uint8_t attention = q | k | v | o, mlp = gate | up | down, all = attention | mlp;
}  // namespace lora_target

// "all-linear", "attention", "mlp" or a comma list of q_proj, k_proj, v_proj, o_proj,
// gate_proj, up_proj, down_proj (torchtune's output_proj, w1, w3, w2 and fc1/fc2 alike).
// std::invalid_argument naming the option, the value and what is valid.
std::uint8_t parse_lora_targets(std::string_view list);
std::string format_lora_targets(std::uint8_t targets);

// One adapted linear: y = W x + (α/r)·B A x with A: in → r, B: r → out.
struct AdaptedLinear {
    double in = 0, out = 0;
};

// The trained / frozen split of one configuration, in parameters and bytes.
struct FineTuningPlan {
    bool peft = false;  // false: a full fine-tune, every parameter trained
    bool dora = false;
    double rank = 0;
    std::array<AdaptedLinear, 7> adapted{};  // per decoder layer, in call order
    int adapted_count = 0;
    double adapter_per_layer = 0;  // Σ r·(in + out) (+ out for DoRA's magnitudes)
    // Trained parameters: a layer's, the root unit's (embeddings and output head when
    // trained) and the model's.
    double trained_per_layer = 0;
    double trained_root = 0;
    double trained = 0;
    // Frozen parameters and the bytes they are stored in: per layer and in the root unit.
    double frozen_per_layer = 0;
    double frozen_layer_bytes = 0;
    double frozen_root = 0;
    double frozen_root_bytes = 0;
    // Matmul weights stored below bf16, each upcast to bf16 before its GEMM (bytes read
    // per weight: stored_bytes), and the largest one's elements (the transient copy).
    double quantized_per_layer = 0;
    double stored_bytes = 2;
    double largest_quantized = 0;
    BaseWeights base = BaseWeights::bf16;  // resolved: never automatic
    // PEFT's LoRA linear casts its input to the adapters' dtype (tuners_utils.py
    // _cast_input_dtype): with fp32 adapters (master_weights fp32, PEFT's default) an fp32
    // copy that autocast casts back to bf16 for the GEMM. Its 4-bit layer (lora/bnb.py
    // Linear4bit) casts only when autocast is off, and mixed-precision training runs under it.
    bool fp32_input_casts = false;
};

FineTuningPlan plan_fine_tuning(const ModelSpec& m, const ParameterCounts& p, const TrainingConfig& c) noexcept;

}  // namespace libscale
