// Fuzz target: a Hugging Face config.json, as the catalog reads a file: parse_json, then
// model_from_hf_config (spec/hf_config.hpp, every family reader in hf_families.cpp).
// Invariant: an accepted config is a valid ModelSpec whose parameter counts are positive
// and whose FLOPs per token are finite and positive (what every projection builds on).
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/spec/flops.hpp"
#include "libscale/spec/hf_config.hpp"
#include "libscale/spec/model_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    using fuzz::check;
    ModelSpec m;
    if (!fuzz::accepted([&] {
            m = model_from_hf_config(parse_json(fuzz::as_text(data, size), "config.json"), "fuzz", "config.json");
        }))
        return 0;
    // Accepted: nothing below may throw.
    m.validate();
    const ParameterCounts p = count_parameters(m);
    check(p.embedding > 0 && p.per_layer > 0 && p.layers >= p.per_layer && p.total > p.layers && p.non_embedding > 0 &&
              p.matmul_forward > 0,
          "parameter counts of an accepted config not positive");
    const FlopsPerToken f = flops_per_token(m, causal_attention_span(m.max_position_embeddings), Checkpointing::none);
    check(std::isfinite(f.hardware) && f.model > 0 && f.hardware >= f.model,
          "FLOPs per token of an accepted config not finite and positive");
    return 0;
}
