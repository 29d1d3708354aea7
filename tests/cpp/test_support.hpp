// Shared fixtures for the C++ tests: a tiny hand-made model, GPU and calibration with
// round numbers, so that every step-model figure can be worked out on paper.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "libscale/calibrate/calibration.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/spec/model_spec.hpp"
#include "libscale/spec/training_config.hpp"

// |actual − expected| ≤ 1e-9 · |expected| (or 1e-15 absolute around zero).
#define EXPECT_REL(actual, expected) \
    EXPECT_NEAR((actual), (expected), std::max(1e-9 * std::abs(static_cast<double>(expected)), 1e-15))

namespace libscale::test {

// The tiny model. d = 1000, f = 3000 (SwiGLU), L = 4, h = h_kv = 10, d_h = 100 (so the
// q and kv widths are 1000), V = 50,000, untied, no biases, no q/k norm.
//   per layer: q, k, v, o 1000·1000 = 1,000,000 each        =  4,000,000
//              MLP 3·1000·3000                               =  9,000,000
//              two RMSNorms 2·1000                           =      2,000
//              per_layer                                      = 13,002,000
//              per_layer_matmul (no norms)                    = 13,000,000
//   embedding 50,000·1000 = 50,000,000; lm_head 50,000,000; final norm 1,000
//   root unit = 100,001,000; layers 4·13,002,000 = 52,008,000
//   total P = 152,009,000
inline ModelSpec tiny_model() {
    ModelSpec m;
    m.name = "tiny";
    m.hidden_size = 1000;
    m.intermediate_size = 3000;
    m.num_layers = 4;
    m.num_heads = 10;
    m.num_kv_heads = 10;
    m.head_dim = 100;
    m.vocab_size = 50000;
    m.max_position_embeddings = 4096;
    m.source = "test";
    return m;
}

// The tiny GPU: 1000 TFLOP/s = 1e15 FLOP/s; 10 TB/s HBM; NVLink 2000 GB/s bidirectional
// (1e12 B/s one way); NIC 800 Gb/s = 1e11 B/s; 8 per node.
inline HardwareProfile tiny_hardware() {
    HardwareProfile h;
    h.name = "tiny-gpu";
    h.display_name = "tiny test GPU";
    h.peak_bf16_tflops = 1000;
    h.hbm_gib = 80;
    h.hbm_tbps = 10;
    h.nvlink_gbps_bidir = 2000;
    h.nic_gbps_per_gpu = 800;
    h.gpus_per_node = 8;
    h.board_power_w = 1000;
    h.idle_power_w = 100;
    h.price_per_gpu_hour_usd = 2.0;
    h.source = "test";
    return h;
}

// Every compute law at a flat half of peak: GEMMs at 0.5 · 1e15 = 5e14 FLOP/s whatever
// their shape (no SM count on the tiny GPU, so no waves; k_half 0), attention forward and
// backward at 5e14 (half lengths 0, head_dim_half 0), memory-bound kernels at 0.5 · 10e12
// = 5e12 B/s, no host overheads. No collective latency; NVLink busbw 1e12 B/s, each NIC
// 1.25e10 B/s, so a ring crossing nodes of 8 GPUs runs on 8 rails at 8 · 1.25e10 = 1e11
// B/s (collective.hpp) and a one-GPU-per-node ring (HSDP replicas) at 1.25e10.
// HBM efficiency 0.5: the optimizer streams at 0.5 · 10e12 = 5e12 B/s.
inline Calibration tiny_calibration() {
    Calibration c;
    c.hardware = "tiny-gpu";
    c.kind = "fitted";
    c.source = "test";
    c.gemm = {0.5, 0.0, 128, 256, 0.0};
    c.attention = {0.5, 0.0, 0.5, 0.0, 0.0};
    c.intra_node = {0.0, 1e12};
    c.inter_node = {0.0, 1.25e10};
    c.hbm_efficiency = 0.5;
    c.reserved_gib = 1.0;
    c.power_compute_w = 1000;
    c.power_comm_w = 500;
    c.power_idle_w = 100;
    return c;
}

// 2 GPUs (one node), t = 1 × 1000 tokens per micro-batch, global batch 4000 → A = 2.
inline TrainingConfig tiny_config() {
    TrainingConfig c;
    c.gpus = 2;
    c.seq_len = 1000;
    c.micro_batch = 1;
    c.global_batch_tokens = 4000;
    c.strategy = Strategy::fsdp;
    c.activation_checkpointing = Checkpointing::full;
    c.reshard_after_forward = true;
    c.reduce_bytes = 2;
    c.grad_sync = GradSync::every_micro_batch;
    return c;
}

// The message of what f throws; "" when it throws nothing.
template <typename F>
std::string error_of(F f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kUs = 1e-6;

// A fresh directory for one test's files, under the build tree.
inline std::filesystem::path temp_dir(std::string_view test_name) {
    std::filesystem::path p = std::filesystem::path(LIBSCALE_TEST_TMPDIR) / std::string(test_name);
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p;
}

inline void write_text(const std::filesystem::path& p, std::string_view text) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
}

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace libscale::test
