#include "attention_cudnn.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "device.hpp"
#include "kernels.hpp"
#include "stats.hpp"

#ifdef LIBSCALE_HAVE_CUDNN
#include <cudnn.h>
#endif

#if defined(LIBSCALE_HAVE_CUDNN) && defined(LIBSCALE_HAVE_CUDNN_FRONTEND)
// The frontend bundles its own nlohmann/json and, unless told not to, includes it and
// specializes nlohmann::adl_serializer<float> (floats as hex strings) for its graph
// serialization. In this translation unit that would clash with the project's
// nlohmann-json (harness/backend.hpp), and a specialization seen by one translation unit
// and not the others breaks the one-definition rule for every json holding a float.
// CUDNN_FRONTEND_SKIP_JSON_LIB leaves json out of the frontend (cudnn_frontend_utils.h);
// only graph (de)serialization, unused here, needs it.
#define CUDNN_FRONTEND_SKIP_JSON_LIB
#include <cudnn_frontend.h>
#define LIBSCALE_SDPA 1
#endif

namespace libscale::harness::cuda {

std::size_t AttentionShape::q_elems() const { return static_cast<std::size_t>(batch * seq_len * heads * head_dim); }
std::size_t AttentionShape::kv_elems() const { return static_cast<std::size_t>(batch * seq_len * kv_heads * head_dim); }
std::size_t AttentionShape::stats_elems() const { return static_cast<std::size_t>(batch * heads * seq_len); }

std::string AttentionShape::describe() const {
    std::ostringstream s;
    s << "b=" << batch << " s=" << seq_len << " h=" << heads << " kv=" << kv_heads << " d=" << head_dim
      << (causal ? " causal" : " full");
    if (window > 0) s << " window=" << window;
    return s.str();
}

std::string attention_unavailable() {
#if !defined(LIBSCALE_HAVE_CUDNN)
    return "built without cuDNN";
#elif !defined(LIBSCALE_HAVE_CUDNN_FRONTEND)
    return "built without cudnn-frontend headers (pip install nvidia-cudnn-frontend, or set "
           "LIBSCALE_CUDNN_FRONTEND_INCLUDE)";
#else
    return "";
#endif
}

std::string cudnn_version() {
#ifdef LIBSCALE_HAVE_CUDNN
    // cuDNN 9: CUDNN_VERSION = major·10000 + minor·100 + patch (cudnn_version.h).
    const std::size_t v = cudnnGetVersion();
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
#else
    return "";
#endif
}

namespace {

// "" when the shape can be described to cuDNN at all.
[[maybe_unused]] std::string shape_problem(const AttentionShape& s) {
    if (s.batch <= 0 || s.seq_len <= 0 || s.heads <= 0 || s.kv_heads <= 0 || s.head_dim <= 0)
        return "empty attention shape (" + s.describe() + ")";
    if (s.heads % s.kv_heads != 0)
        return "heads (" + std::to_string(s.heads) + ") not a multiple of kv_heads (" + std::to_string(s.kv_heads) +
               ")";
    if (s.window < 0) return "negative sliding window";
    return "";
}

}  // namespace

#ifdef LIBSCALE_SDPA

namespace fe = cudnn_frontend;

namespace {

// Tensor uids of the variant pack (the samples' Q_UID … DV_UID pattern).
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV };

// BSHD: dims are given in the frontend's (batch, heads, seq, dim) order and the strides say
// the memory is [batch][seq][heads][dim] (NVIDIA cuDNN docs, "Scaled Dot Product
// Attention": any layout with a unit-stride head dimension; Transformer Engine's
// "bshd" qkv format).
std::vector<std::int64_t> dims(const AttentionShape& s, std::int64_t heads, std::int64_t last) {
    return {s.batch, heads, s.seq_len, last};
}
std::vector<std::int64_t> bshd_strides(const AttentionShape& s, std::int64_t heads) {
    return {s.seq_len * heads * s.head_dim, s.head_dim, heads * s.head_dim, 1};
}

// Stats: one fp32 per (batch, head, query), [batch][heads][seq], as fp16_bwd.cpp declares it.
std::vector<std::int64_t> stats_strides(const AttentionShape& s) { return {s.heads * s.seq_len, s.seq_len, 1, 1}; }

std::string cudnn_status_text(cudnnStatus_t st) { return cudnnGetErrorString(st); }

// A built graph, or why the shape cannot run.
struct Sdpa {
    std::shared_ptr<fe::graph::Graph> graph;
    std::string unsupported;
    std::size_t workspace = 0;
};

struct Key {
    int device = 0;
    AttentionShape shape;
    bool backward = false;
    auto operator<=>(const Key&) const = default;
};

// Per thread: a cuDNN handle per device (a handle belongs to the device current when it
// was created, and the cuDNN docs advise one per host thread and device), and the graphs
// built with it. Members are destroyed in reverse order: the graphs before the handles.
struct ThreadState {
    struct Handle {
        cudnnHandle_t h = nullptr;
        std::string error;  // cudnnCreate's failure, kept so that it is reported, not retried
        Handle() = default;
        Handle(const Handle&) = delete;
        Handle& operator=(const Handle&) = delete;
        ~Handle() {
            if (h) (void)cudnnDestroy(h);  // a destructor cannot throw
        }
    };
    std::map<int, std::unique_ptr<Handle>> handles;
    std::map<Key, Sdpa> graphs;
};

ThreadState& state() {
    static thread_local ThreadState s;
    return s;
}

int current_device() {
    int dev = 0;
    LS_CUDA(cudaGetDevice(&dev));
    return dev;
}

// The handle for the current device, or nullptr with *why set.
cudnnHandle_t handle_for(int dev, std::string* why) {
    auto& slot = state().handles[dev];
    if (!slot) {
        slot = std::make_unique<ThreadState::Handle>();
        const cudnnStatus_t st = cudnnCreate(&slot->h);
        if (st == CUDNN_STATUS_ALLOC_FAILED) {
            slot.reset();
            throw OutOfMemory(out_of_memory_text(0) + " (cudnnCreate could not allocate)");
        }
        if (st != CUDNN_STATUS_SUCCESS) {
            slot->h = nullptr;
            slot->error = "cudnnCreate failed: " + cudnn_status_text(st);
        }
    }
    if (!slot->h) *why = slot->error;
    return slot->h;
}

// A frontend failure while building: a fault of the device ends the phase (BackendError);
// anything else (validation, no engine for the shape or GPU, plan build) means cuDNN does
// not support the configuration, and the case is skipped with the frontend's message.
std::string build_failure(fe::error_t e, const char* stage, const AttentionShape& s, bool backward) {
    std::string message = e.get_message();
    while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
    const std::string text = std::string("cuDNN SDPA ") + (backward ? "backward" : "forward") + " (" + s.describe() +
                             "): " + stage + " failed: " + message;
    switch (e.get_code()) {
        case fe::error_code_t::CUDA_API_FAILED:
        case fe::error_code_t::INVALID_CUDA_DEVICE:
        case fe::error_code_t::HANDLE_ERROR: throw BackendError(text);
        default: return "unsupported: " + text;
    }
}

Sdpa build(cudnnHandle_t handle, const AttentionShape& s, bool backward) {
    Sdpa out;
    auto g = std::make_shared<fe::graph::Graph>();
    // bf16 I/O, fp32 intermediates (scores, probabilities before their bf16 cast for the
    // P·V product) and fp32 compute, as the frontend's SDPA samples set them.
    g->set_io_data_type(fe::DataType_t::BFLOAT16)
        .set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    const auto tensor = [&](const char* name, Uid uid, std::int64_t heads) {
        return g->tensor(fe::graph::Tensor_attributes()
                             .set_name(name)
                             .set_uid(uid)
                             .set_dim(dims(s, heads, s.head_dim))
                             .set_stride(bshd_strides(s, heads)));
    };
    const auto q = tensor("Q", kQ, s.heads);
    const auto k = tensor("K", kK, s.kv_heads);
    const auto v = tensor("V", kV, s.kv_heads);
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
    // Causal: keep key j ≤ query i, i.e. the band right of the diagonal is empty (right
    // bound 0, top-left alignment: s_q = s_kv here). Window w: keep j > i − w
    // (left bound; the frontend's diagonal_band_mask.h compares col + w > row).
    // graph_properties.h: set_causal_mask is the older spelling of the same two calls.
    if (!backward) {
        auto opt = fe::graph::SDPA_attributes().set_name("sdpa_forward").set_generate_stats(true).set_attn_scale(scale);
        if (s.causal) opt.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT).set_diagonal_band_right_bound(0);
        if (s.window > 0) opt.set_diagonal_band_left_bound(static_cast<int>(s.window));
        auto [o, stats] = g->sdpa(q, k, v, opt);
        o->set_output(true).set_uid(kO).set_dim(dims(s, s.heads, s.head_dim)).set_stride(bshd_strides(s, s.heads));
        stats->set_output(true)
            .set_uid(kStats)
            .set_data_type(fe::DataType_t::FLOAT)
            .set_dim(dims(s, s.heads, 1))
            .set_stride(stats_strides(s));
    } else {
        const auto o = tensor("O", kO, s.heads);
        const auto d_o = tensor("dO", kDO, s.heads);
        const auto stats = g->tensor(fe::graph::Tensor_attributes()
                                         .set_name("Stats")
                                         .set_uid(kStats)
                                         .set_dim(dims(s, s.heads, 1))
                                         .set_stride(stats_strides(s))
                                         .set_data_type(fe::DataType_t::FLOAT));
        auto opt = fe::graph::SDPA_backward_attributes().set_name("sdpa_backward").set_attn_scale(scale);
        if (s.causal) opt.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT).set_diagonal_band_right_bound(0);
        if (s.window > 0) opt.set_diagonal_band_left_bound(static_cast<int>(s.window));
        // cuDNN's default backward, which may accumulate dQ in any order (fastest);
        // set_deterministic_algorithm(true) would time the slower, reproducible one.
        auto [dq, dk, dv] = g->sdpa_backward(q, k, v, o, d_o, stats, opt);
        dq->set_output(true).set_uid(kDQ).set_dim(dims(s, s.heads, s.head_dim)).set_stride(bshd_strides(s, s.heads));
        dk->set_output(true)
            .set_uid(kDK)
            .set_dim(dims(s, s.kv_heads, s.head_dim))
            .set_stride(bshd_strides(s, s.kv_heads));
        dv->set_output(true)
            .set_uid(kDV)
            .set_dim(dims(s, s.kv_heads, s.head_dim))
            .set_stride(bshd_strides(s, s.kv_heads));
    }
    // The frontend's build sequence (its docs/operations/Attention.md and samples/cpp/sdpa):
    // heuristics mode A, the first plan that builds. A configuration cuDNN has no kernel for
    // (head_dim above 256 or not a multiple of 8, a GPU before Ampere) is refused by
    // validate, create_execution_plans or check_support, with the frontend's reason.
    if (fe::error_t e = g->validate(); e.is_bad()) return {nullptr, build_failure(e, "validate", s, backward), 0};
    if (fe::error_t e = g->build_operation_graph(handle); e.is_bad())
        return {nullptr, build_failure(e, "build_operation_graph", s, backward), 0};
    if (fe::error_t e = g->create_execution_plans({fe::HeurMode_t::A}); e.is_bad())
        return {nullptr, build_failure(e, "create_execution_plans", s, backward), 0};
    if (fe::error_t e = g->check_support(handle); e.is_bad())
        return {nullptr, build_failure(e, "check_support", s, backward), 0};
    if (fe::error_t e = g->build_plans(handle); e.is_bad())
        return {nullptr, build_failure(e, "build_plans", s, backward), 0};
    std::int64_t ws = 0;
    if (fe::error_t e = g->get_workspace_size(ws); e.is_bad())
        return {nullptr, build_failure(e, "get_workspace_size", s, backward), 0};
    out.graph = std::move(g);
    out.workspace = static_cast<std::size_t>(std::max<std::int64_t>(ws, 0));
    return out;
}

const Sdpa& prepared(const AttentionShape& s, bool backward) {
    const Key key{current_device(), s, backward};
    auto& graphs = state().graphs;
    if (const auto it = graphs.find(key); it != graphs.end()) return it->second;
    Sdpa made;
    if (const std::string p = shape_problem(s); !p.empty()) {
        made.unsupported = p;
    } else {
        std::string why;
        const cudnnHandle_t h = handle_for(key.device, &why);
        made = h ? build(h, s, backward) : Sdpa{nullptr, why, 0};
    }
    return graphs.emplace(key, std::move(made)).first->second;
}

}  // namespace

std::string prepare_attention(const AttentionShape& s, bool backward, std::size_t* workspace_bytes) {
    const Sdpa& g = prepared(s, backward);
    if (workspace_bytes) *workspace_bytes = g.workspace;
    return g.unsupported;
}

void run_attention(cudaStream_t stream, const AttentionShape& s, bool backward, const AttentionBuffers& b) {
    const int dev = current_device();
    const auto it = state().graphs.find(Key{dev, s, backward});
    if (it == state().graphs.end() || !it->second.graph)
        throw BackendError("internal: attention " + s.describe() + " run before it was prepared, or unsupported");
    std::string why;
    const cudnnHandle_t h = handle_for(dev, &why);
    if (!h) throw BackendError("internal: " + why);
    // cuDNN launches on the handle's stream; the micro-run and the timing each pass theirs.
    if (const cudnnStatus_t st = cudnnSetStream(h, stream); st != CUDNN_STATUS_SUCCESS)
        throw BackendError("cudnnSetStream failed: " + cudnn_status_text(st));
    std::unordered_map<std::int64_t, void*> pack{{kQ, b.q}, {kK, b.k}, {kV, b.v}, {kO, b.o}, {kStats, b.stats}};
    if (backward) pack.insert({{kDO, b.d_o}, {kDQ, b.dq}, {kDK, b.dk}, {kDV, b.dv}});
    if (fe::error_t e = it->second.graph->execute(h, pack, b.workspace); e.is_bad())
        throw BackendError(std::string("cuDNN SDPA ") + (backward ? "backward" : "forward") + " (" + s.describe() +
                           ") failed to launch: " + e.get_message());
}

namespace {

std::vector<double> read_bf16_rows(const void* base, std::size_t first_elem, std::size_t pitch_elems, std::size_t width,
                                   std::size_t rows) {
    std::vector<std::uint16_t> raw(width * rows);
    LS_CUDA(cudaMemcpy2D(raw.data(), width * 2, static_cast<const unsigned char*>(base) + first_elem * 2,
                         pitch_elems * 2, width * 2, rows, cudaMemcpyDeviceToHost));
    std::vector<double> out(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) out[i] = static_cast<double>(bf16_to_float(raw[i]));
    return out;
}

// The forward's result against a double-precision reference on a few query rows, computed
// from the very bf16 inputs the GPU read: scores q·k/sqrt(d) over the row's keys (causal,
// windowed, query head h reading K/V head h / (heads / kv_heads)), softmax, times V.
// Returns the worst over the rows of max |O − reference| / RMS(reference row): bf16 output
// rounding (≤ 2⁻⁸ relative) and the kernels' bf16 cast of the probabilities for the P·V
// tensor-core product (as in FlashAttention, arXiv 2205.14135, and FlashAttention-2,
// arXiv 2307.08691) stay near 1e-2 (an emulation in numpy gave ≤ 0.012 for d = 64…256)
// on rows of uniform random inputs,
// while a wrong layout, mask or head mapping gives errors of order 1. Also compares
// Stats with the reference log-sum-exp of the scaled scores (natural log, the frontend's
// convention: graph_properties.h set_stats_use_log2): an error δ there scales the backward's
// recomputed probabilities by e^δ ≈ 1 + δ, so |δ| is a relative error on the same footing.
double check_forward(const AttentionShape& s, const AttentionBuffers& b) {
    const std::int64_t group = s.heads / s.kv_heads;
    const auto d = static_cast<std::size_t>(s.head_dim);
    // (batch, head, query): the last row of the last head (the longest causal row), a middle
    // one, a short one at a GQA group boundary, and one in the first head.
    const std::int64_t rows[4][3] = {{s.batch - 1, s.heads - 1, s.seq_len - 1},
                                     {s.batch / 2, s.heads / 2, s.seq_len / 2},
                                     {0, std::min(group, s.heads - 1), std::min<std::int64_t>(7, s.seq_len - 1)},
                                     {0, 0, (3 * s.seq_len) / 4}};
    double worst = 0;
    const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
    for (const auto& r : rows) {
        const std::int64_t bi = r[0], hi = r[1], i = r[2], hk = hi / group;
        std::int64_t lo = 0, hi_key = s.causal ? i : s.seq_len - 1;
        if (s.window > 0) lo = std::max<std::int64_t>(0, i - s.window + 1);
        const auto n = static_cast<std::size_t>(hi_key - lo + 1);
        const auto q_at = static_cast<std::size_t>(((bi * s.seq_len + i) * s.heads + hi) * s.head_dim);
        const auto kv_at = static_cast<std::size_t>(((bi * s.seq_len + lo) * s.kv_heads + hk) * s.head_dim);
        const auto kv_pitch = static_cast<std::size_t>(s.kv_heads * s.head_dim);
        const std::vector<double> q = read_bf16_rows(b.q, q_at, d, d, 1);
        const std::vector<double> o = read_bf16_rows(b.o, q_at, d, d, 1);
        const std::vector<double> k = read_bf16_rows(b.k, kv_at, kv_pitch, d, n);
        const std::vector<double> v = read_bf16_rows(b.v, kv_at, kv_pitch, d, n);
        float stat = 0;
        const auto stats_at = static_cast<std::size_t>((bi * s.heads + hi) * s.seq_len + i);
        LS_CUDA(cudaMemcpy(&stat, b.stats + stats_at, sizeof stat, cudaMemcpyDeviceToHost));

        std::vector<double> score(n);
        double m = -INFINITY;
        for (std::size_t j = 0; j < n; ++j) {
            double dot = 0;
            for (std::size_t c = 0; c < d; ++c) dot += q[c] * k[j * d + c];
            score[j] = dot * scale;
            m = std::max(m, score[j]);
        }
        double sum = 0;
        for (double& x : score) sum += (x = std::exp(x - m));
        std::vector<double> ref(d, 0.0);
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t c = 0; c < d; ++c) ref[c] += score[j] * v[j * d + c];
        double sq = 0, err = 0;
        for (std::size_t c = 0; c < d; ++c) {
            ref[c] /= sum;
            sq += ref[c] * ref[c];
            if (!std::isfinite(o[c])) return INFINITY;
            err = std::max(err, std::fabs(o[c] - ref[c]));
        }
        const double rms = std::sqrt(sq / static_cast<double>(d));
        worst = std::max(worst, rms > 0 ? err / rms : err);
        const double lse = m + std::log(sum);
        if (!std::isfinite(stat)) return INFINITY;
        worst = std::max(worst, std::fabs(static_cast<double>(stat) - lse));
    }
    return worst;
}

std::string describe(const AttentionCase& c, const AttentionShape& s) {
    return std::string("attention ") + (c.backward ? "backward " : "forward ") + s.describe();
}

}  // namespace

Timing time_attention(const AttentionCase& c, int warmup, int repeats) {
    const AttentionShape s{std::llround(c.batch),
                           std::llround(c.seq_len),
                           std::llround(c.heads),
                           std::llround(c.kv_heads),
                           std::llround(c.head_dim),
                           c.causal,
                           0};
    if (const std::string p = shape_problem(s); !p.empty()) return {0, 0, p, 0};
    const std::string what = describe(c, s);
    try {
        // The backward needs the forward too: it reads the O and Stats the forward wrote.
        std::size_t ws_f = 0, ws_b = 0;
        if (std::string why = prepare_attention(s, false, &ws_f); !why.empty()) return {0, 0, why, 0};
        if (std::string why = c.backward ? prepare_attention(s, true, &ws_b) : ""; !why.empty()) return {0, 0, why, 0};

        const std::size_t qb = s.q_elems() * 2, kvb = s.kv_elems() * 2, sb = s.stats_elems() * 4;
        // Per copy: Q, K, V, O, Stats; backward adds dO, dQ, dK, dV.
        const std::size_t per = 2 * qb + 2 * kvb + sb + (c.backward ? 2 * qb + 2 * kvb : 0);
        // As the GEMM timing: rotate through copies whose total exceeds 2× L2, so each call
        // reads its inputs from HBM as in training, not from what the last call left in L2.
        const std::size_t copies = std::clamp<std::size_t>((2 * l2_bytes() + per - 1) / per, 1, 8);
        const std::size_t ws = std::max(ws_f, ws_b);
        require_free(static_cast<double>(per * copies + ws));

        Stream stream;
        DeviceBuffer workspace(ws);
        std::vector<DeviceBuffer> mem;
        std::vector<AttentionBuffers> bufs(copies);
        const auto alloc = [&](std::size_t bytes) {
            mem.emplace_back(bytes);
            return mem.back().get();
        };
        for (std::size_t i = 0; i < copies; ++i) {
            AttentionBuffers& b = bufs[i];
            b.q = alloc(qb), b.k = alloc(kvb), b.v = alloc(kvb), b.o = alloc(qb);
            b.stats = static_cast<float*>(alloc(sb));
            b.workspace = workspace.get();
            const std::uint64_t seed = 7000 + 8 * i;
            LS_CUDA(fill_bf16(b.q, s.q_elems(), seed, 1.0f, stream.get()));
            LS_CUDA(fill_bf16(b.k, s.kv_elems(), seed + 1, 1.0f, stream.get()));
            LS_CUDA(fill_bf16(b.v, s.kv_elems(), seed + 2, 1.0f, stream.get()));
            if (c.backward) {
                b.d_o = alloc(qb), b.dq = alloc(qb), b.dk = alloc(kvb), b.dv = alloc(kvb);
                LS_CUDA(fill_bf16(b.d_o, s.q_elems(), seed + 3, 1.0f, stream.get()));
                run_attention(stream.get(), s, false, b);  // O and Stats of these inputs
            }
        }
        const auto run = [&](int r) {
            run_attention(stream.get(), s, c.backward, bufs[static_cast<std::size_t>(r) % copies]);
        };
        Timing t = time_calls(stream.get(), warmup, repeats, run, what);
        // Forward: every copy's O and Stats are those of its own inputs, so copy 0 can be
        // checked whatever the rotation. Rerun it if no repeat or warm-up touched it.
        if (!c.backward && warmup == 0 && repeats == 0) {
            run(0);
            wait_stream(stream.get(), 600, what);
        }
        // No check of the backward: a reference needs the full probability matrix of a
        // row's keys and dO·Vᵀ per key, and its accuracy is that of the same kernels'
        // recomputation from the Stats the forward check covers.
        if (!c.backward) {
            t.check_error = check_forward(s, bufs[0]);
            const double tol = 2e-2;
            if (!(t.check_error <= tol))
                return {0, 0,
                        "result check failed: max error " + std::to_string(t.check_error) + " of the RMS, tolerance " +
                            std::to_string(tol) + " (" + what + ")",
                        t.check_error};
        }
        return t;
    } catch (const OutOfMemory& e) {
        return {0, 0, e.what(), 0};
    } catch (const BackendError& e) {
        throw BackendError(what + ": " + e.what());
    }
}

#else  // built without cuDNN or without the frontend

std::string prepare_attention(const AttentionShape&, bool, std::size_t* workspace_bytes) {
    if (workspace_bytes) *workspace_bytes = 0;
    return attention_unavailable();
}

void run_attention(cudaStream_t, const AttentionShape& s, bool, const AttentionBuffers&) {
    throw BackendError("internal: attention " + s.describe() + " run, but " + attention_unavailable());
}

Timing time_attention(const AttentionCase&, int, int) { return {0, 0, attention_unavailable(), 0}; }

#endif

}  // namespace libscale::harness::cuda
