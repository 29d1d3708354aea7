// Fused scaled-dot-product attention (AttentionCase) through cuDNN 9.
//
// NOT IMPLEMENTED YET: building the SDPA forward and backward graphs with the cuDNN backend
// API (cudnn_graph.h: the operation graph cudnn-frontend's sdpa / sdpa_backward nodes
// build: two matmuls, scale, causal mask from gen_index and a comparison, softmax with
// fp32 statistics; NVIDIA cuDNN docs, "Fused Flash Attention fprop/bprop") needs a GPU to
// verify, and this build was written on a machine without one. Until then every attention
// case is skipped with the reason below, and so is the step micro-run, which needs it;
// nothing is timed in their place.
#pragma once

#include <string>

#include "harness/backend.hpp"

namespace libscale::harness::cuda {

// Why attention cannot be measured by this build ("" once it can).
std::string attention_unavailable();
// cudnnGetVersion() as "9.19.0"; "" when built without cuDNN.
std::string cudnn_version();
Timing time_attention(const AttentionCase& c, int warmup, int repeats);

}  // namespace libscale::harness::cuda
