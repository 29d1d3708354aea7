#include "libscale/spec/fine_tuning.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "libscale/spec/training_config.hpp"

namespace libscale {

namespace {

constexpr std::pair<const char*, FineTuning> kMethods[] = {
    {"full", FineTuning::full}, {"lora", FineTuning::lora}, {"qlora", FineTuning::qlora}, {"dora", FineTuning::dora}};
constexpr std::pair<const char*, BaseWeights> kBases[] = {{"auto", BaseWeights::automatic},
                                                          {"bf16", BaseWeights::bf16},
                                                          {"fp8", BaseWeights::fp8},
                                                          {"nf4", BaseWeights::nf4},
                                                          {"nf4_double_quant", BaseWeights::nf4_double_quant}};

// PEFT / Hugging Face names first (what format_lora_targets prints), then torchtune's
// (torchtune/modules/peft: output_proj, w1 gate, w3 up, w2 down) and the plain MLP's.
constexpr std::pair<const char*, std::uint8_t> kTargets[] = {
    {"q_proj", lora_target::q},       {"k_proj", lora_target::k},
    {"v_proj", lora_target::v},       {"o_proj", lora_target::o},
    {"gate_proj", lora_target::gate}, {"up_proj", lora_target::up},
    {"down_proj", lora_target::down}, {"output_proj", lora_target::o},
    {"w1", lora_target::gate},        {"w3", lora_target::up},
    {"w2", lora_target::down},        {"fc1", lora_target::up},
    {"fc2", lora_target::down},       {"attention", lora_target::attention},
    {"mlp", lora_target::mlp},        {"all-linear", lora_target::all}};

template <class E, std::size_t N>
E parse_named(std::string_view field, std::string_view s, const std::pair<const char*, E> (&names)[N]) {
    for (const auto& [name, value] : names)
        if (s == name) return value;
    std::string valid;
    for (const auto& [name, value] : names) {
        if (!valid.empty()) valid += ", ";
        valid += name;
    }
    throw std::invalid_argument(std::string(field) + " = '" + std::string(s) + "'; valid: " + valid);
}

template <class E, std::size_t N>
const char* name_of(E e, const std::pair<const char*, E> (&names)[N]) {
    for (const auto& [name, value] : names)
        if (value == e) return name;
    return "?";
}

}  // namespace

FineTuning parse_fine_tuning(std::string_view s) { return parse_named("fine_tuning", s, kMethods); }
const char* to_string(FineTuning f) { return name_of(f, kMethods); }
BaseWeights parse_base_weights(std::string_view s) { return parse_named("base_weights", s, kBases); }
const char* to_string(BaseWeights b) { return name_of(b, kBases); }

double base_bytes_per_weight(BaseWeights b) noexcept {
    switch (b) {
        case BaseWeights::automatic:
        case BaseWeights::bf16: return 2.0;
        case BaseWeights::fp8: return 1.0;
        case BaseWeights::nf4: return 0.5 + 4.0 / 64.0;
        case BaseWeights::nf4_double_quant: return 0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0);
    }
    return 2.0;
}

std::uint8_t parse_lora_targets(std::string_view list) {
    std::uint8_t out = 0;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t end = std::min(list.find(',', start), list.size());
        std::string_view name = list.substr(start, end - start);
        while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
        while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
        bool known = false;
        for (const auto& [n, bits] : kTargets)
            if (name == n) {
                out = static_cast<std::uint8_t>(out | bits);
                known = true;
            }
        if (!known)
            throw std::invalid_argument(
                "training option lora_targets = '" + std::string(list) + "': '" + std::string(name) +
                "' is not a module LoRA can target; valid: all-linear, attention, mlp, or a comma list of q_proj, "
                "k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj (torchtune's output_proj, w1, w3, w2 too)");
        start = end + 1;
    }
    return out;
}

std::string format_lora_targets(std::uint8_t targets) {
    if (targets == lora_target::all) return "all-linear";
    std::string out;
    for (const char* name : {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"})
        if ((targets & parse_lora_targets(name)) != 0) {
            // Appended piecewise: "" + std::string(...) trips GCC 12's -Wrestrict at -O3.
            if (!out.empty()) out += ',';
            out += name;
        }
    return out;
}

FineTuningPlan plan_fine_tuning(const ModelSpec& m, const ParameterCounts& p, const TrainingConfig& c) noexcept {
    FineTuningPlan f;
    const double layer = static_cast<double>(p.per_layer), root = static_cast<double>(p.root_unit);
    const double L = static_cast<double>(m.num_layers);
    if (c.fine_tuning == FineTuning::full) {
        f.trained_per_layer = layer;
        f.trained_root = root;
        f.trained = static_cast<double>(p.total);
        return f;
    }
    f.peft = true;
    f.dora = c.fine_tuning == FineTuning::dora;
    f.rank = static_cast<double>(c.lora_rank);
    f.base = c.base_weights != BaseWeights::automatic ? c.base_weights
             : c.fine_tuning == FineTuning::qlora     ? BaseWeights::nf4_double_quant
                                                      : BaseWeights::bf16;
    const double d = static_cast<double>(m.hidden_size), ff = static_cast<double>(m.intermediate_size);
    const double q = static_cast<double>(m.q_width()), kv = static_cast<double>(m.kv_width());
    const std::uint8_t t = c.lora_targets;
    const auto adapt = [&](double in, double out) {
        f.adapted[static_cast<std::size_t>(f.adapted_count++)] = {in, out};
    };
    // A fused projection (phi-3's qkv_proj, gate_up_proj) is one module: adapted as a whole
    // when any of its parts is targeted, as PEFT wraps whole nn.Linear modules.
    double largest = std::max(q * d, kv * d);
    if (m.fused_qkv) {
        if ((t & (lora_target::q | lora_target::k | lora_target::v)) != 0) adapt(d, q + 2 * kv);
        largest = d * (q + 2 * kv);
    } else {
        if ((t & lora_target::q) != 0) adapt(d, q);
        if ((t & lora_target::k) != 0) adapt(d, kv);
        if ((t & lora_target::v) != 0) adapt(d, kv);
    }
    if ((t & lora_target::o) != 0) adapt(q, d);
    if (m.mlp == MlpKind::gated) {
        if (m.fused_gate_up) {
            if ((t & (lora_target::gate | lora_target::up)) != 0) adapt(d, 2 * ff);
            largest = std::max(largest, 2 * d * ff);
        } else {
            if ((t & lora_target::gate) != 0) adapt(d, ff);
            if ((t & lora_target::up) != 0) adapt(d, ff);
        }
    } else if ((t & lora_target::up) != 0) {
        adapt(d, ff);  // the plain MLP's first projection (fc1, up_proj)
    }
    if ((t & lora_target::down) != 0) adapt(ff, d);
    largest = std::max(largest, d * ff);
    for (int i = 0; i < f.adapted_count; ++i) {
        const AdaptedLinear& a = f.adapted[static_cast<std::size_t>(i)];
        // DoRA adds a magnitude per output feature (PEFT lora_magnitude_vector).
        f.adapter_per_layer += f.rank * (a.in + a.out) + (f.dora ? a.out : 0.0);
    }
    f.trained_per_layer = f.adapter_per_layer;
    // Trained embeddings (PEFT modules_to_save, torchtune apply_lora_to_output's full
    // alternative): the token table, learned positions and the untied output head.
    const double embeddings = static_cast<double>(p.embedding + p.position_embedding + p.lm_head);
    f.trained_root = c.train_embeddings ? embeddings : 0.0;
    f.trained = L * f.trained_per_layer + f.trained_root;
    f.frozen_per_layer = layer;
    f.frozen_root = root - f.trained_root;
    f.stored_bytes = base_bytes_per_weight(f.base);
    const double matmul = static_cast<double>(p.per_layer_matmul);
    f.quantized_per_layer = f.base == BaseWeights::bf16 ? 0.0 : matmul;
    f.largest_quantized = f.quantized_per_layer > 0 ? largest : 0.0;
    f.frozen_layer_bytes = f.stored_bytes * matmul + 2.0 * (layer - matmul);
    f.frozen_root_bytes = 2.0 * f.frozen_root;
    const bool four_bit = f.base == BaseWeights::nf4 || f.base == BaseWeights::nf4_double_quant;
    f.fp32_input_casts = c.master_weights == MasterWeights::fp32 && !four_bit;
    return f;
}

}  // namespace libscale
