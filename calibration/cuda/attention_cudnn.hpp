// Fused scaled-dot-product attention (AttentionCase) through cuDNN 9's SDPA graphs, built
// with NVIDIA's header-only cudnn-frontend (graph API: Graph::sdpa / Graph::sdpa_backward;
// NVIDIA cuDNN docs, "Scaled Dot Product Attention"; the frontend's samples/cpp/sdpa/
// fp16_fwd.cpp and fp16_bwd.cpp). The kernels are FlashAttention-style (Dao et al. 2022,
// arXiv 2205.14135; FlashAttention-2, arXiv 2307.08691): bf16 in and out, fp32 softmax and
// accumulation, and the forward saves the fp32 log-sum-exp of each query row ("Stats")
// that the backward recomputes the probabilities from.
//
// The frontend is optional at build time (CMake cache variable
// LIBSCALE_CUDNN_FRONTEND_INCLUDE, found in the project's .venv after
// `pip install nvidia-cudnn-frontend`); without it, or without cuDNN, every attention
// case and the step micro-run are skipped with attention_unavailable()'s reason. The
// frontend's headers are included by attention_cudnn.cpp only.
#pragma once

#include <cuda_runtime_api.h>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/backend.hpp"

namespace libscale::harness::cuda {

// Why attention cannot be measured by this build ("" once it can).
std::string attention_unavailable();
// cudnnGetVersion() as "9.19.0"; "" when built without cuDNN.
std::string cudnn_version();

// Times `repeats` calls (after `warmup`) of the forward or backward kernel of the case:
// median and spread of CUDA-event times. Skips (Timing::skipped) when attention is
// unavailable, when cuDNN has no kernel for the shape on this GPU (the frontend's
// message), when it does not fit ("out of memory: …"), or when the forward's result
// check on a sample of rows fails; throws BackendError (naming the case) on a CUDA fault.
Timing time_attention(const AttentionCase& c, int warmup, int repeats);

// One attention call's shape. Tensors are bf16 in BSHD layout ([batch][seq][heads][dim],
// the layout a fused q|k|v projection produces, so no transpose is needed); K and V have
// kv_heads heads (grouped-query attention: query head h reads K/V head
// h / (heads / kv_heads)). The softmax scale is 1/sqrt(head_dim).
struct AttentionShape {
    std::int64_t batch = 0, seq_len = 0, heads = 0, kv_heads = 0, head_dim = 0;
    bool causal = true;
    // Sliding window: a query attends its last `window` keys, itself included (Mistral's
    // and Gemma 2's local layers); 0: no window.
    std::int64_t window = 0;

    std::size_t q_elems() const;      // Q, O, dO, dQ: batch·seq·heads·head_dim
    std::size_t kv_elems() const;     // K, V, dK, dV: batch·seq·kv_heads·head_dim
    std::size_t stats_elems() const;  // Stats (fp32): batch·heads·seq
    std::string describe() const;     // "b=2 s=4096 h=32 kv=8 d=128 causal"
    auto operator<=>(const AttentionShape&) const = default;
};

// Device buffers of one call, owned by the caller. The forward reads q, k, v and writes o
// and stats; the backward reads q, k, v, o, d_o and stats and writes dq, dk, dv.
struct AttentionBuffers {
    void* q = nullptr;
    void* k = nullptr;
    void* v = nullptr;
    void* o = nullptr;
    float* stats = nullptr;
    void* d_o = nullptr;
    void* dq = nullptr;
    void* dk = nullptr;
    void* dv = nullptr;
    void* workspace = nullptr;  // at least prepare_attention's workspace bytes
};

// Builds the cuDNN graph and execution plan for the shape and pass on the current device,
// once per thread, device and shape (later calls return the cached result). Returns ""
// and sets *workspace_bytes when the call can run; otherwise why not (attention
// unavailable in this build, or cuDNN's reason for not supporting it). Throws BackendError
// on a CUDA fault.
std::string prepare_attention(const AttentionShape& s, bool backward, std::size_t* workspace_bytes);

// Enqueues one forward or backward call on `stream`, without synchronizing: the step
// micro-run's attention. The shape must have been prepared (prepare_attention returned
// "") on this thread and device. Throws BackendError when cuDNN refuses to launch it.
void run_attention(cudaStream_t stream, const AttentionShape& s, bool backward, const AttentionBuffers& b);

}  // namespace libscale::harness::cuda
