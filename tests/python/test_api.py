"""The Python API: catalog, parameter and FLOP counts, the step model, argument handling
and error types. Expected values are computed here from the config files and the
formulas in docs/architectures.md and docs/model.md, not copied from the program's output."""

from __future__ import annotations

import copy
import json
import math
import threading

import numpy as np
import pytest

import libscale
from conftest import QWEN3_32B_PARAMETERS
from libscale import _core
from libscale.results import struct_to_dict

GiB = 2**30


def hand_parameters(c: dict) -> int:
    """docs/architectures.md's parameter formula over a Hugging Face config.json."""
    d, f, L = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    h, hkv, V = c["num_attention_heads"], c["num_key_value_heads"], c["vocab_size"]
    dh = c.get("head_dim", d // h)
    per_layer = d * h * dh + 2 * d * hkv * dh + h * dh * d + 2 * dh + 3 * d * f + 2 * d
    lm_head = 0 if c.get("tie_word_embeddings") else V * d
    return V * d + lm_head + d + L * per_layer


# --- catalog -------------------------------------------------------------------------


def test_catalog_lists_models_and_hardware():
    assert "qwen3-32b" in libscale.models()
    assert {"b300", "h100", "h200"} <= set(libscale.hardware_names())
    for name in libscale.models():
        assert libscale.model(name).name == name


def test_model_names_are_case_insensitive(qwen):
    assert libscale.model("Qwen3-32B").parameters == qwen.parameters


def test_qwen3_32b_parameters_match_the_report_and_the_formula(qwen, qwen_config_json):
    assert hand_parameters(qwen_config_json) == QWEN3_32B_PARAMETERS
    counts = libscale.count_parameters("qwen3-32b")
    assert counts.total == QWEN3_32B_PARAMETERS == qwen.parameters
    assert counts.lm_head == counts.embedding == qwen_config_json["vocab_size"] * qwen_config_json["hidden_size"]
    assert counts.layers == counts.per_layer * qwen_config_json["num_hidden_layers"]


def test_model_from_config_json_file_and_directory(tmp_path, qwen):
    text = libscale._core.io.catalog_file("models/qwen3-32b.json")
    path = tmp_path / "qwen-copy.json"
    path.write_text(text)
    assert libscale.model(path).parameters == qwen.parameters           # os.PathLike
    snapshot = tmp_path / "Qwen3-32B"
    snapshot.mkdir()
    (snapshot / "config.json").write_text(text)
    assert libscale.model(str(snapshot)).parameters == qwen.parameters  # snapshot directory


def test_hardware_from_json_file(tmp_path, b300):
    path = tmp_path / "my-b300.json"
    path.write_text(libscale._core.io.catalog_file("hardware/b300.json"))
    hw = libscale.hardware(path)
    assert (hw.peak_bf16_tflops, hw.hbm_gib, hw.gpus_per_node) == (b300.peak_bf16_tflops, b300.hbm_gib,
                                                                    b300.gpus_per_node)


def test_hardware_fields_match_the_catalog_file(b300):
    raw = json.loads(libscale._core.io.catalog_file("hardware/b300.json"))
    for key in ("peak_bf16_tflops", "hbm_gib", "hbm_tbps", "nvlink_gbps_bidir", "nic_gbps_per_gpu",
                "gpus_per_node", "board_power_w", "idle_power_w", "price_per_gpu_hour_usd"):
        assert getattr(b300, key) == raw[key], key


def test_default_calibration_resolves_fractions_against_the_hardware(b300):
    cal = libscale.default_calibration("b300")
    raw = json.loads(libscale._core.io.catalog_file("calibrations/default-b300.json"))
    assert cal.kind == "default"
    # compute coefficients are absolute in the file
    for key, value in raw["compute"]["gemm"].items():
        assert getattr(cal.gemm, key) == value, key
    for key, value in raw["compute"]["attention"].items():
        assert getattr(cal.attention, key) == value, key
    assert cal.framework_efficiency == raw["compute"]["framework_efficiency"]
    assert cal.kernel_overhead_s == raw["compute"]["overhead"]["kernel_s"]
    assert (cal.hbm_efficiency, cal.reserved_gib, cal.fragmentation, cal.memory_margin) == (
        raw["memory"]["hbm_efficiency"], raw["memory"]["reserved_gib"], raw["memory"]["fragmentation"],
        raw["memory"]["margin"])
    # busbw = fraction × unidirectional NVLink (half the bidirectional GB/s) and × NIC bytes/s
    assert cal.intra_node.busbw_bytes_per_s == pytest.approx(
        raw["comm"]["intra_node"]["busbw_fraction"] * b300.nvlink_gbps_bidir / 2 * 1e9)
    assert cal.inter_node.busbw_bytes_per_s == pytest.approx(
        raw["comm"]["inter_node"]["busbw_fraction"] * b300.nic_gbps_per_gpu / 8 * 1e9)
    assert cal.intra_node.alpha_s == pytest.approx(raw["comm"]["intra_node"]["alpha_us"] * 1e-6)
    assert cal.power_compute_w == raw["power"]["compute_fraction"] * b300.board_power_w
    assert libscale._core.calibrate.default_priors(b300) == raw["prior"]


def _attribute(cal: libscale.Calibration, name: str) -> float:
    """A dotted coefficient name read the Python way: cal.gemm.eta_max, cal.power_compute_w."""
    head, _, rest = name.partition(".")
    if head in ("gemm", "attention", "intra_node", "inter_node"):
        return getattr(getattr(cal, head), rest)
    return getattr(cal, name.replace(".", "_"))


def test_calibration_fields_are_the_coefficient_table(b300):
    cal = libscale.default_calibration(b300)
    table = libscale._core.calibrate.calibration_coefficients()
    names = [c["name"] for c in table]
    assert len(names) == len(set(names)) and {"gemm.eta_max", "attention.backward_half_seq",
                                               "framework_efficiency", "power.idle_w"} <= set(names)
    for i, c in enumerate(table):
        assert set(c) == {"name", "unit", "min", "max", "min_exclusive", "help"} and c["help"]
        assert libscale._core.calibrate.get_parameter(cal, c["name"]) == _attribute(cal, c["name"]), c["name"]
        other = copy.copy(cal)
        libscale._core.calibrate.set_parameter(other, c["name"], 1000.0 + i)   # writes through to the attribute
        assert _attribute(other, c["name"]) == 1000.0 + i and _attribute(cal, c["name"]) != 1000.0 + i
    with pytest.raises(ValueError, match=r"unknown calibration coefficient 'eta_max'.*gemm\.eta_max"):
        libscale._core.calibrate.get_parameter(cal, "eta_max")
    bad = copy.copy(cal)
    bad.gemm.eta_max = 1.5                                           # nested structs are live references
    with pytest.raises(ValueError, match=r"gemm.eta_max = 1.5; it must be in \[0.001, 1\]"):
        bad.validate()
    made = libscale.Calibration(hardware="x", gemm=libscale._core.calibrate.GemmLaw(eta_max=0.5, k_half=100),
                                hbm_efficiency=0.8, power_idle_w=50)
    assert (made.gemm.eta_max, made.gemm.k_half, made.gemm.tile_m, made.hbm_efficiency, made.power_idle_w) == \
        (0.5, 100, 128, 0.8, 50)
    with pytest.raises(TypeError, match="unexpected keyword 'eta_max'"):
        libscale.Calibration(eta_max=0.5)
    with pytest.raises(TypeError, match="expected a number"):
        libscale.Calibration(hbm_efficiency="high")
    d = struct_to_dict(cal)
    assert d["gemm"]["eta_max"] == cal.gemm.eta_max and d["power_idle_w"] == cal.power_idle_w
    json.dumps(d)


# --- FLOPs ---------------------------------------------------------------------------


def test_flops_per_token_causal(qwen, qwen_config_json):
    c = qwen_config_json
    L, h, dh, V, d = c["num_hidden_layers"], c["num_attention_heads"], c["head_dim"], c["vocab_size"], \
        c["hidden_size"]
    s = 8192
    counts = libscale.count_parameters(qwen)
    matmul = counts.per_layer_matmul * L + V * d
    forward = 2 * matmul + 4 * h * dh * (s / 2) * L
    f = libscale.flops_per_token("qwen3-32b", seq_len=s, activation_checkpointing="full")
    assert f.forward == pytest.approx(forward)
    assert f.backward == pytest.approx(2 * forward)
    assert f.model == pytest.approx(3 * forward)
    # full checkpointing recomputes the decoder layers' forward (not the output projection)
    assert f.hardware == pytest.approx(3 * forward + forward - 2 * V * d)
    none = libscale.flops_per_token("qwen3-32b", seq_len=s, activation_checkpointing="none")
    assert none.hardware == pytest.approx(none.model) and none.recompute == 0


def test_flops_per_token_packed_documents(qwen, qwen_config_json):
    c = qwen_config_json
    docs = [1000, 3000, 4192]
    span = sum(x * x for x in docs) / (2 * sum(docs))
    packed = libscale.flops_per_token(qwen, seq_len=8192, document_lengths=docs)
    causal = libscale.flops_per_token(qwen, seq_len=8192)
    attn = 4 * c["num_attention_heads"] * c["head_dim"] * c["num_hidden_layers"]
    assert packed.attention_forward == pytest.approx(attn * span)
    assert causal.attention_forward == pytest.approx(attn * 4096)
    assert packed.matmul_forward == causal.matmul_forward
    with pytest.raises(ValueError, match="document_lengths"):
        libscale.flops_per_token(qwen, document_lengths=[100, 0])
    with pytest.raises(ValueError):
        libscale.flops_per_token(qwen, document_lengths=[100.5])


# --- the step model ------------------------------------------------------------------


def ring(bytes_, n, link):
    return link.alpha_s * (n - 1) + (n - 1) / n * bytes_ / link.busbw_bytes_per_s


def test_estimate_step_against_hand_computation(qwen, b300):
    n, t, global_ = 8, 8192, 1_048_576
    s = libscale.estimate_step("qwen3-32b", "b300", gpus=n, seq_len=t, global_batch_tokens=global_)
    cal = libscale.default_calibration(b300)
    counts = libscale.count_parameters(qwen)
    flops = libscale.flops_per_token(qwen, seq_len=t, activation_checkpointing="full")
    A = global_ // (n * t)
    peak = b300.peak_bf16_tflops * 1e12
    micro = libscale._core.estimate.compute_times(qwen, b300, None, libscale.training_config(gpus=n, seq_len=t))

    assert s.grad_accum == A == 16
    # compute: A micro-batches, each timed by the per-operation model, split into its parts
    assert s.compute_s == pytest.approx(A * micro.micro_batch_s)
    assert (s.gemm_s, s.attention_s, s.memory_bound_s, s.host_wait_s) == pytest.approx(
        (A * micro.gemm_s, A * micro.attention_s, A * micro.memory_s, A * micro.host_wait_s))
    assert s.compute_s == pytest.approx(s.gemm_s + s.attention_s + s.memory_bound_s + s.host_wait_s)
    assert min(s.gemm_s, s.attention_s, s.memory_bound_s) > 0 and s.gemm_s > s.attention_s
    assert s.tokens_per_s == pytest.approx(global_ / s.step_time_s)
    assert s.tokens_per_s_per_gpu == pytest.approx(s.tokens_per_s / n)
    assert s.mfu == pytest.approx(s.tokens_per_s_per_gpu * flops.model / peak)
    assert s.hfu == pytest.approx(s.tokens_per_s_per_gpu * flops.hardware / peak)
    # FSDP inside one node: every collective on NVLink; per micro-batch the root and each
    # layer gathered (twice with reshard_after_forward), each reduce-scattered in bf16.
    link = cal.intra_node
    L, layer, root = qwen.num_layers, counts.per_layer, counts.root_unit
    per_mb = (ring(2 * root, n, link) + 2 * L * ring(2 * layer, n, link)
              + L * ring(2 * layer, n, link) + ring(2 * root, n, link))
    assert s.comm_s == pytest.approx(A * per_mb)
    # AdamW with fp32 masters over the local shard: 28 B read and written + the 2 B bf16 copy
    assert s.optimizer_s == pytest.approx(counts.total / n * 30 / (b300.hbm_tbps * 1e12 * cal.hbm_efficiency))
    assert s.step_time_s == pytest.approx(s.compute_s + s.exposed_comm_s + s.optimizer_s + s.data_s
                                          + s.checkpoint_s + cal.step_overhead_s)
    mem = s.memory
    # FSDP2: the sharded fp32 parameters are the masters; AdamW's two fp32 states beside them
    assert mem.weights_gib == pytest.approx(counts.total * 4 / n / GiB)
    assert mem.optimizer_gib == pytest.approx(counts.total * 8 / n / GiB)
    assert mem.phase_gib["optimizer"] == pytest.approx(counts.total * 16 / n / GiB)
    assert mem.allocated_gib == pytest.approx(max(mem.phase_gib.values()))
    assert mem.phase_gib[mem.peak_phase] == mem.allocated_gib
    allocated = sum(getattr(mem, k) for k in ("weights_gib", "grads_gib", "optimizer_gib", "activations_gib",
                                              "logits_gib", "buffers_gib"))
    assert mem.fragmentation_gib == pytest.approx(allocated * cal.fragmentation)
    assert mem.total_gib == pytest.approx(allocated + mem.fragmentation_gib + mem.reserved_gib)
    assert mem.reserved_gib == cal.reserved_gib and mem.margin == cal.memory_margin
    assert mem.available_gib == b300.hbm_gib and mem.total_gib * (1 + mem.margin) <= mem.available_gib
    assert mem.status == "fits" and mem.fits
    assert s.nodes == 1 and s.memory_gib == mem.total_gib


def test_compute_laws_by_hand(b300):
    """gemm_time_s, attention_time_s and memory_time_s against calibration.hpp's laws."""
    cal = libscale.default_calibration(b300)
    g, a, sm = cal.gemm, cal.attention, b300.sm_count
    hbm = b300.hbm_bytes_per_s * cal.hbm_efficiency * cal.framework_efficiency
    m = n = k = 8192
    tiles = math.ceil(m / g.tile_m) * math.ceil(n / g.tile_n)
    # over a wave, and the last wave at least half full: whole waves, data-parallel (no stream-K)
    assert tiles > sm and 2 * (tiles % sm) >= sm
    waves = math.ceil(tiles / sm)
    per_sm = b300.peak_flops / sm
    bf16 = waves * 2 * (k + g.k_half) * g.tile_m * g.tile_n / (per_sm * g.eta_max * cal.framework_efficiency)
    assert bf16 > (2 * (m * k + k * n) + 2 * m * n) / hbm          # compute-bound, not the HBM roofline
    assert libscale._core.estimate.gemm_time_s(b300, None, m, n, k) == pytest.approx(bf16, rel=1e-12)
    # fp8: fp8 peak and eta_max, k_half scaled by the peak ratio, one-byte operands
    ratio = b300.peak_fp8_tflops / b300.peak_bf16_tflops
    fp8 = waves * 2 * (k + g.k_half * ratio) * g.tile_m * g.tile_n / (
        b300.peak_fp8_flops / sm * g.fp8_eta_max * cal.framework_efficiency)
    assert libscale._core.estimate.gemm_time_s(b300, None, m, n, k, fp8=True) == pytest.approx(fp8, rel=1e-12)
    # sm_count 0 (unknown): no waves, 2·m·n·(k + k_half) at eta_max; a vector-shaped GEMM is
    # then bound by moving its operands and result through HBM instead
    flat = copy.copy(b300)
    flat.sm_count = 0
    assert libscale._core.estimate.gemm_time_s(flat, None, m, n, k) == pytest.approx(
        2 * m * n * (k + g.k_half) / (b300.peak_flops * g.eta_max * cal.framework_efficiency), rel=1e-12)
    assert libscale._core.estimate.gemm_time_s(flat, None, 1, 8192, 8192) == pytest.approx(
        (2 * (8192 + 8192 ** 2) + 2 * 8192) / hbm, rel=1e-12)
    # attention: 4·tokens·width·span FLOPs forward, 2.5× backward; head_dim 128 is the reference
    tokens, heads, d_h, seq = 8192, 64, 128, 8192
    span = seq / 2
    kappa = cal.framework_efficiency
    fwd = 4 * tokens * heads * d_h * span / (
        b300.peak_flops * a.forward_eta_max * kappa * seq / (seq + a.forward_half_seq))
    bwd = 2.5 * 4 * tokens * heads * d_h * span / (
        b300.peak_flops * a.backward_eta_max * kappa * seq / (seq + a.backward_half_seq))
    assert libscale._core.estimate.attention_time_s(b300, None, tokens, heads * d_h, d_h, span, seq) == \
        pytest.approx(fwd)
    assert libscale._core.estimate.attention_time_s(b300, None, tokens, heads * d_h, d_h, span, seq, backward=True) == \
        pytest.approx(bwd)
    # g(d_h) = [d/(d + c)] / [128/(128 + c)] slows a 64-wide head
    c = a.head_dim_half
    g64 = (64 / (64 + c)) / (128 / (128 + c))
    assert libscale._core.estimate.attention_time_s(b300, None, tokens, heads * 64, 64, span, seq) == \
        pytest.approx(4 * tokens * heads * 64 * span / (b300.peak_flops * a.forward_eta_max * kappa * g64 * seq
                                                         / (seq + a.forward_half_seq)))
    assert libscale._core.estimate.memory_time_s(b300, None, 1e9) == pytest.approx(1e9 / hbm)
    # the A100 has no fp8 tensor cores: an fp8 GEMM is timed as bf16
    a100 = libscale.hardware("a100")
    assert libscale._core.estimate.gemm_time_s(a100, None, m, n, k, fp8=True) == \
        libscale._core.estimate.gemm_time_s(a100, None, m, n, k)
    with pytest.raises(ValueError, match="kernel"):
        libscale._core.estimate.attention_time_s(b300, None, tokens, heads * d_h, d_h, span, seq, kernel="flash9")
    with pytest.raises(ValueError, match="m = 0"):
        libscale._core.estimate.gemm_time_s(b300, None, 0, n, k)


def test_framework_efficiency_scales_every_device_time(qwen, b300):
    # Every law divides by framework_efficiency; with no host wait, halving it doubles compute.
    cal = libscale.default_calibration(b300)
    slow = copy.copy(cal)
    slow.framework_efficiency = cal.framework_efficiency / 2
    a = libscale.estimate_step(qwen, b300, gpus=8, calibration=cal)
    b = libscale.estimate_step(qwen, b300, gpus=8, calibration=slow)
    assert a.host_wait_s == b.host_wait_s == 0
    for part in ("compute_s", "gemm_s", "attention_s", "memory_bound_s"):
        assert getattr(b, part) == pytest.approx(2 * getattr(a, part)), part


def test_config_options_reach_the_core(qwen, b300):
    base = dict(gpus=8, seq_len=8192, global_batch_tokens=1_048_576)
    cal = libscale.default_calibration(b300)
    counts = libscale.count_parameters(qwen)
    L, n = qwen.num_layers, 8
    ref = libscale.estimate_step("qwen3-32b", "b300", **base)
    fp32 = libscale.estimate_step("qwen3-32b", "b300", **base, reduce_dtype="fp32")
    extra_rs = L * ring(4 * counts.per_layer, n, cal.intra_node) + ring(4 * counts.root_unit, n, cal.intra_node) \
        - L * ring(2 * counts.per_layer, n, cal.intra_node) - ring(2 * counts.root_unit, n, cal.intra_node)
    assert fp32.comm_s - ref.comm_s == pytest.approx(ref.grad_accum * extra_rs)
    keep = libscale.estimate_step("qwen3-32b", "b300", **base, reshard_after_forward=False)
    assert ref.comm_s - keep.comm_s == pytest.approx(ref.grad_accum * L * ring(2 * counts.per_layer, n,
                                                                             cal.intra_node))
    assert keep.memory.buffers_gib > ref.memory.buffers_gib
    last = libscale.estimate_step("qwen3-32b", "b300", **base, grad_sync="last_micro_batch")
    assert last.comm_s < ref.comm_s
    ddp = libscale.estimate_step("qwen3-8b", "b300", gpus=8, strategy="ddp")
    p8 = libscale.count_parameters("qwen3-8b").total
    assert ddp.memory.weights_gib == pytest.approx(p8 * 2 / GiB)      # replicated
    sel = libscale.estimate_step("qwen3-32b", "b300", **base, activation_checkpointing="selective")
    assert sel.memory.activations_gib > ref.memory.activations_gib


def test_memory_options_against_memory_model(qwen, b300, qwen_config_json):
    """optimizer, master_weights, loss_kernel, attention_kernel and checkpoint_every against
    the terms of memory_model.cpp (docs/model.md "Memory"), derived here from config.json."""
    c = qwen_config_json
    d, f, L, V = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"], c["vocab_size"]
    q, kv = c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"]
    n, t = 8, 8192
    cal = libscale.default_calibration(b300)
    P = libscale.count_parameters(qwen).total
    ref = libscale.estimate_step(qwen, b300, gpus=n, seq_len=t)
    # bytes per parameter beyond the bf16 weights and gradients: fp32 master (4) + states
    # (AdamW m and v, 8-bit AdamW one byte each, SGD one buffer; in bf16 with bf16 weights)
    for optimizer, master, per_param, traffic in [("adamw", "fp32", 4 + 8, 30), ("adamw_8bit", "fp32", 4 + 2, 18),
                                                  ("sgd", "fp32", 4 + 4, 22), ("adamw", "bf16", 2 + 2, 14),
                                                  ("sgd", "bf16", 2, 10)]:
        cfg = libscale.training_config(gpus=n, seq_len=t, optimizer=optimizer, master_weights=master)
        assert libscale._core.estimate.optimizer_bytes_per_parameter(qwen, cfg) == per_param
        s = libscale.estimate_step(qwen, b300, gpus=n, seq_len=t, optimizer=optimizer, master_weights=master)
        # FSDP2's sharded parameters are the masters (fp32), or the bf16 weights themselves
        states = per_param - (4 if master == "fp32" else 0)
        w = 4 if master == "fp32" else 2
        assert s.memory.optimizer_gib == pytest.approx(P * states / n / GiB)
        # the optimizer step: parameters, their gradients in the same dtype, the states
        assert s.memory.phase_gib["optimizer"] == pytest.approx(P * (2 * w + states) / n / GiB)
        # the loss, before any gradient exists: parameters and states only differ
        loss_gib = s.memory.phase_gib["loss"] - ref.memory.phase_gib["loss"]
        assert loss_gib == pytest.approx((w + states - 12) * P / n / GiB)
        # the optimizer step reads and writes its states over HBM (step_model.cpp optimizer_traffic_bytes)
        assert s.optimizer_s == pytest.approx(P / n * traffic / (b300.hbm_bytes_per_s * cal.hbm_efficiency))
    # eager loss at its peak (log-softmax's backward): 12 B per logit in fp32; fused: the
    # bf16 logits, their gradient written in place (2 B)
    fused = libscale.estimate_step("qwen3-32b", "b300", gpus=n, seq_len=t, loss_kernel="fused").memory
    assert ref.memory.phase_gib["loss"] - fused.phase_gib["loss"] == pytest.approx(t * V * 10 / GiB)
    # full checkpointing keeps each layer's input (d per token); a layer kept whole saves
    # 2 norm inputs + 2 normed tensors, q, k, v and attention output (2q + 2kv), the q/k-norm
    # inputs (q + kv) and the gated MLP's 4 intermediates; all alive at the loss
    whole = 4 * d + 3 * q + 3 * kv + 4 * f
    every1 = libscale.estimate_step("qwen3-32b", "b300", gpus=n, seq_len=t).memory.phase_gib["loss"]
    for every in (2, 4):
        s = libscale.estimate_step("qwen3-32b", "b300", gpus=n, seq_len=t, checkpoint_every=every)
        kept = L // every
        assert s.memory.phase_gib["loss"] - every1 == pytest.approx(t * (L - kept) * (whole - d) * 2 / GiB), every
    # eager attention also keeps the h × s probabilities per token of the layer it
    # recomputes (2 B), and its backward makes their gradient and the scores' (4 B), which
    # then outgrow the MLP's gradients (6f) as backward's working set
    h = c["num_attention_heads"]
    eager = libscale.estimate_step("qwen3-32b", "b300", gpus=n, seq_len=t, attention_kernel="eager")
    assert eager.memory.phase_gib["backward"] - ref.memory.phase_gib["backward"] == pytest.approx(
        t * (h * t * 2 + (6 * q + 4 * kv + h * t * 4) - 6 * f) / GiB)


def test_compute_options_reach_the_core(qwen, b300):
    n = 8
    counts = libscale.count_parameters(qwen)
    cal = libscale.default_calibration(b300)
    ref = libscale.estimate_step(qwen, b300, gpus=n)
    fp8 = libscale.estimate_step(qwen, b300, gpus=n, precision="fp8")
    assert fp8.gemm_s < ref.gemm_s and fp8.memory_bound_s > ref.memory_bound_s   # faster GEMMs, added casts
    # fp8 all-gather moves each layer's matmul weights in one byte instead of two
    ag = libscale.estimate_step(qwen, b300, gpus=n, precision="fp8", fp8_all_gather=True)
    L, layer, link = qwen.num_layers, counts.per_layer, cal.intra_node
    saved = 2 * L * (ring(2 * layer, n, link) - ring(2 * layer - counts.per_layer_matmul, n, link))
    assert fp8.comm_s - ag.comm_s == pytest.approx(ref.grad_accum * saved)
    compiled = libscale.estimate_step(qwen, b300, gpus=n, torch_compile=True)
    assert compiled.memory_bound_s < ref.memory_bound_s and compiled.gemm_s == ref.gemm_s
    flash3 = libscale.estimate_step(qwen, b300, gpus=n, attention_kernel="flash3")
    assert flash3.attention_s != ref.attention_s and flash3.gemm_s == ref.gemm_s
    cfg = libscale.training_config(precision="fp8", fp8_all_gather=True, optimizer="sgd", master_weights="bf16",
                                   loss_kernel="fused", attention_kernel="cudnn", torch_compile=True,
                                   checkpoint_every=2)
    assert (cfg.precision, cfg.fp8_all_gather, cfg.optimizer, cfg.master_weights, cfg.loss_kernel,
            cfg.attention_kernel, cfg.torch_compile, cfg.checkpoint_every) == \
        ("fp8", True, "sgd", "bf16", "fused", "cudnn", True, 2)
    # a calibration without fp8 GEMM coefficients cannot time fp8 layers
    no_fp8 = copy.copy(cal)
    no_fp8.gemm.fp8_eta_max = 0
    with pytest.raises(ValueError, match="fp8_eta_max"):
        libscale.estimate_step(qwen, b300, gpus=n, precision="fp8", calibration=no_fp8)


def test_names_paths_and_objects_give_the_same_estimate(tmp_path, qwen, b300):
    path = tmp_path / "q.json"
    path.write_text(libscale._core.io.catalog_file("models/qwen3-32b.json"))
    a = libscale.estimate_step("qwen3-32b", "b300", gpus=16)
    b = libscale.estimate_step(qwen, b300, gpus=16, calibration=libscale.default_calibration(b300))
    c = libscale.estimate_step(path, "b300", gpus=16)
    assert a.step_time_s == b.step_time_s == c.step_time_s


def test_data_and_checkpoint_accept_dicts_and_structs():
    nfs = {"corpus_in_page_cache": False, "storage_read_gbps_per_node": 1e-4}
    s1 = libscale.estimate_step("qwen3-32b", "b300", gpus=8, data=nfs)
    s2 = libscale.estimate_step("qwen3-32b", "b300", gpus=8, data=libscale.DataPipeline(**nfs))
    assert s1.data_s == s2.data_s > 0
    # the node reads its ranks' tokens (4 B each) at 0.01 GB/s; only the excess over the step shows
    assert s1.data_s == pytest.approx(8 * 8192 * 4 / 1e-4 / 1e9 - (s1.step_time_s - s1.data_s))
    ck = libscale.estimate_step("qwen3-32b", "b300", gpus=8, checkpoint={"every_steps": 10, "write_gbps_per_node": 5})
    p = libscale.count_parameters("qwen3-32b").total
    assert ck.checkpoint_s == pytest.approx(p * 14 / 5e9 / 10)
    with pytest.raises(ValueError, match="unknown data option 'bogus'"):
        libscale.estimate_step("qwen3-32b", "b300", data={"bogus": 1})
    with pytest.raises(TypeError, match=r"data option pretokenized: expected True or False, got str 'yes'"):
        libscale.estimate_step("qwen3-32b", "b300", data={"pretokenized": "yes"})
    with pytest.raises(ValueError, match="storage_read_gbps_per_node"):
        libscale.estimate_step("qwen3-32b", "b300", data={"corpus_in_page_cache": False})


def test_not_fitting_is_flagged_or_raised():
    s = libscale.estimate_step("qwen3-32b", "h100", gpus=4)
    assert not s.memory.fits and s.memory.total_gib > s.memory.available_gib == 80
    assert s.memory.status == "does_not_fit" and s.memory.total_gib * (1 - s.memory.margin) > 80
    with pytest.raises(libscale.DoesNotFitError) as e:
        libscale.estimate_step("qwen3-32b", "h100", gpus=4, require_fit=True)
    assert e.value.needed_gib == pytest.approx(s.memory.total_gib)
    assert e.value.available_gib == 80
    assert isinstance(e.value, libscale.LibscaleError) and isinstance(e.value, ValueError)
    assert "GiB" in str(e.value) and "to fit" in str(e.value)


# --- errors --------------------------------------------------------------------------


def test_unknown_name_carries_suggestions():
    with pytest.raises(libscale.UnknownNameError) as e:
        libscale.model("qwen3-31b")
    assert e.value.suggestions[0] == "qwen3-32b"
    assert "qwen3-32b" in str(e.value)
    with pytest.raises(libscale.UnknownNameError) as e:
        libscale.hardware("b301")
    assert "b300" in e.value.suggestions


def test_malformed_json_is_a_parse_error_naming_file_and_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "hidden_size": 5120,\n  oops\n}\n')
    with pytest.raises(libscale.ParseError, match=r"bad\.json:3:"):
        libscale.model(bad)
    with pytest.raises(libscale.ParseError, match=r"missing\.json: no such file"):
        libscale.model(tmp_path / "missing.json")


@pytest.mark.parametrize("kwargs, match", [
    ({"gpus": 0}, "gpus = 0"),
    ({"gpus": 12, "strategy": "hsdp", "gpus_per_node": 8}, "whole nodes"),
    ({"gpus": 8, "global_batch_tokens": 1_000_000}, "not a positive multiple"),
    ({"seq_len": 100_000}, "max_position_embeddings"),
    ({"strategy": "zero4"}, "strategy = 'zero4'"),
    ({"activation_checkpointing": "some"}, "activation_checkpointing"),
    ({"reduce_dtype": "fp16"}, "reduce_dtype"),
    ({"grad_sync": "never"}, "grad_sync"),
    ({"micro_batch": 1.5}, "micro_batch"),
    ({"attention_span_tokens": 10_000, "seq_len": 8192}, "attention_span_tokens"),
    ({"precision": "fp16"}, "precision"),
    ({"optimizer": "lion"}, "optimizer"),
    ({"master_weights": "fp16"}, "master_weights"),
    ({"loss_kernel": "chunked"}, "loss_kernel"),
    ({"attention_kernel": "flash4"}, "attention_kernel"),
    ({"checkpoint_every": 0}, "checkpoint_every = 0"),
    ({"checkpoint_every": 65}, "checkpoint_every = 65"),       # Qwen3-32B has 64 layers
    ({"fp8_all_gather": True}, "fp8_all_gather"),               # without precision fp8
    ({"precision": "fp8", "fp8_all_gather": True, "strategy": "ddp"}, "fp8_all_gather"),
    ({"hardware": "a100", "precision": "fp8"}, r"precision = 'fp8', but a100 has no fp8"),
])
def test_invalid_configuration_raises_value_error(kwargs, match):
    config = dict(kwargs)
    hardware = config.pop("hardware", "b300")
    with pytest.raises(ValueError, match=match):
        libscale.estimate_step("qwen3-32b", hardware, **config)


@pytest.mark.parametrize("kwargs", [
    dict(gpus=2**32, micro_batch=2**32, seq_len=1, global_batch_tokens=5),   # product wraps to 0
    dict(gpus=2**62 + 1, micro_batch=1, seq_len=1),
    dict(gpus=2**70),
])
def test_absurd_sizes_raise_instead_of_crashing(kwargs):
    with pytest.raises(ValueError):
        libscale.estimate_step("qwen3-32b", "b300", **kwargs, require_fit=True)
    with pytest.raises(ValueError):
        libscale.project("qwen3-32b", "b300", **kwargs)
    # The solvers skip configurations that are not valid; a count beyond any cluster
    # is an error, an overflowing batch product just finds nothing.
    if kwargs["gpus"] > 2**30:
        with pytest.raises(ValueError, match="gpus"):
            libscale.solve_deadline("qwen3-32b", "b300", **kwargs, deadline_h=1)
    else:
        assert not libscale.solve_deadline("qwen3-32b", "b300", **kwargs, deadline_h=1).found


def test_sweep_flags_overflowing_products_per_element():
    r = libscale.sweep("qwen3-32b", "b300", gpus=[8, 2**29], micro_batch=[1, 2**32], seq_len=2**10)
    assert libscale._core.estimate.issue_name(int(r.issue[1])) == "batch_overflow"
    assert np.isnan(r.step_time_s[1]) and not r.fits[1]
    assert r.issue[0] == 0 and np.isfinite(r.step_time_s[0])
    r = libscale.sweep("qwen3-32b", "b300", gpus=[8, 2**40], micro_batch=1, seq_len=8192)
    assert r.issue[0] == 0 and np.isfinite(r.step_time_s[0])
    assert libscale._core.estimate.issue_name(int(r.issue[1])) == "gpus"


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError, match="gpus"):
        libscale.estimate_step("qwen3-32b", "b300", gpus="8")
    with pytest.raises(TypeError, match="gpus"):
        libscale.estimate_step("qwen3-32b", "b300", gpus=True)
    with pytest.raises(TypeError, match="model"):
        libscale.estimate_step(model=32, hardware="b300")
    with pytest.raises(TypeError, match="strategy"):
        libscale.estimate_step("qwen3-32b", "b300", strategy=3)
    with pytest.raises(TypeError, match="torch_compile"):
        libscale.estimate_step("qwen3-32b", "b300", torch_compile="yes")
    with pytest.raises(TypeError, match="checkpoint_every"):
        libscale.estimate_step("qwen3-32b", "b300", checkpoint_every="2")


def test_keyword_only_options():
    with pytest.raises(TypeError):
        libscale.estimate_step("qwen3-32b", "b300", 8)  # gpus is keyword-only


# --- bound types ---------------------------------------------------------------------


def test_training_config_strings_and_defaults():
    cfg = libscale.TrainingConfig()
    assert (cfg.strategy, cfg.activation_checkpointing, cfg.reduce_dtype, cfg.grad_sync) == \
        ("fsdp", "full", "bf16", "every_micro_batch")
    assert (cfg.precision, cfg.fp8_all_gather, cfg.optimizer, cfg.master_weights, cfg.loss_kernel,
            cfg.attention_kernel, cfg.torch_compile, cfg.checkpoint_every) == \
        ("bf16", False, "adamw", "fp32", "eager", "flash2", False, 1)
    cfg.optimizer = "adamw_8bit"
    assert cfg.optimizer == "adamw_8bit"
    with pytest.raises(ValueError, match="lion"):
        cfg.optimizer = "lion"
    cfg.strategy = "zero3"
    assert cfg.strategy == "fsdp"
    cfg.reduce_dtype = "fp32"
    assert cfg.reduce_bytes == 4
    with pytest.raises(ValueError):
        cfg.strategy = "nope"


OPTION_CLASSES = [("training", libscale.TrainingConfig), ("data", libscale.DataPipeline),
                  ("checkpoint", libscale.CheckpointPolicy), ("job", libscale.Job),
                  ("gate", _core.gate.GateConfig), ("watch", _core.triage.WatchOptions)]


@pytest.mark.parametrize(("group", "cls"), OPTION_CLASSES, ids=[g for g, _ in OPTION_CLASSES])
def test_option_structs_are_bound_from_their_tables(group, cls):
    # One attribute, keyword and dict key per option of the core's table, in its order,
    # with its default; nothing in the binding lists them (bindings/src/option_fields.hpp).
    table = _core.spec.options(group)
    names = [o["name"] for o in table]
    assert list(cls._fields[:len(names)]) == names and cls._options_group == group
    value = cls(seq_len=8) if group == "gate" else cls()
    for o in table:
        if not (group == "gate" and o["name"] == "seq_len"):  # required: no usable default
            assert getattr(value, o["name"]) == o["default"], o["name"]
        assert o["help"] in getattr(cls, o["name"]).__doc__
    assert list(value.to_dict())[:len(names)] == names
    values = _core.spec.option_values(group, value)
    assert {k: values[k] for k in names} == {k: value.to_dict()[k] for k in names}


def test_option_struct_assignment_and_construction_are_checked_by_the_core():
    cfg = libscale.TrainingConfig(seq_len=4096, gpus_per_node=None, data={"pretokenized": False})
    assert (cfg.seq_len, cfg.gpus_per_node, cfg.data.pretokenized) == (4096, None, False)
    with pytest.raises(ValueError, match=r"training option seq_len = -1; valid: an integer in \[1, "):
        cfg.seq_len = -1
    with pytest.raises(ValueError, match="training option gpus_per_node = 0"):
        libscale.TrainingConfig(gpus_per_node=0)  # "not set" is None, not 0
    with pytest.raises(TypeError, match="training option seq_len: expected an integer, got str"):
        cfg.seq_len = "4096"
    with pytest.raises(TypeError, match="expected True or False, got int"):
        cfg.torch_compile = 1
    with pytest.raises(ValueError, match="unknown training option 'seqlen'"):
        libscale.TrainingConfig(seqlen=4096)
    assert cfg.seq_len == 4096  # a rejected assignment leaves the value
    with pytest.raises(AttributeError):
        _core.gate.GateConfig(seq_len=8).seq_len = 9  # read-only: the gate's verdict holds its config


def test_option_struct_repr_rebuilds_the_value():
    # Only what differs from the defaults (scikit-learn's print_changed_only), as keywords.
    cfg = libscale.TrainingConfig(seq_len=4096, strategy="hybrid_shard", data={"pretokenized": False},
                                  checkpoint={"every_steps": 100, "write_gbps_per_node": 5})
    assert repr(cfg) == ("TrainingConfig(seq_len=4096, strategy='hsdp', data=DataPipeline(pretokenized=False), "
                         "checkpoint=CheckpointPolicy(every_steps=100, write_gbps_per_node=5.0))")
    names = {"TrainingConfig": libscale.TrainingConfig, "DataPipeline": libscale.DataPipeline,
             "CheckpointPolicy": libscale.CheckpointPolicy}
    assert eval(repr(cfg), names).to_dict() == cfg.to_dict()
    assert repr(libscale.TrainingConfig()) == "TrainingConfig()"


def test_value_types_copy_independently(qwen):
    other = copy.copy(qwen)
    other.num_layers = 1
    assert qwen.num_layers == 64 and other.parameters < qwen.parameters
    assert copy.deepcopy(libscale.TrainingConfig(gpus=3)).gpus == 3


def test_custom_model_spec_validates():
    spec = libscale.ModelSpec(name="tiny", hidden_size=64, intermediate_size=256, num_layers=2, num_heads=4,
                              num_kv_heads=3, head_dim=16, vocab_size=1000, max_position_embeddings=128)
    with pytest.raises(ValueError, match="num_key_value_heads"):
        libscale.estimate_step(spec, "h100", gpus=1, seq_len=64)
    spec.num_kv_heads = 2
    s = libscale.estimate_step(spec, "h100", gpus=1, seq_len=64)
    assert s.tokens_per_s > 0 and math.isfinite(s.step_time_s)


def test_project_releases_the_gil_and_is_thread_safe():
    results: list = [None] * 4

    def work(i: int) -> None:
        p = libscale.project("qwen3-32b", "b300", gpus=[8, 16, 32], global_batch_tokens=1_048_576)
        results[i] = p.rows[-1].gpu_hours

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and results[0] > 0


def test_model_spec_architecture_fields_are_strings_and_bools():
    gpt2 = libscale.model("gpt2")
    assert (gpt2.model_type, gpt2.mlp, gpt2.norm, gpt2.positions, gpt2.activation) == \
        ("gpt2", "plain", "layer", "learned", "gelu_tanh")
    assert gpt2.position_embedding_rows == 1024 and gpt2.norm_bias and gpt2.fused_qkv
    counts = libscale.count_parameters(gpt2)
    assert counts.position_embedding == 1024 * 768 and counts.embed_projections == 0
    assert counts.total == 124_439_808  # calibration/data/models/gpt2.json: published
    d = struct_to_dict(gpt2)
    assert d["qk_norm"] == "none" and d["positions"] == "learned" and json.dumps(d)
    qwen = libscale.model("qwen3-32b")
    assert qwen.qk_norm == "per_head" and qwen.mlp == "gated"
    spec = copy.copy(qwen)
    spec.qk_norm = "none"  # drops the 2 · 128 q/k-norm weights of each of the 64 layers
    assert qwen.parameters - spec.parameters == 64 * 2 * 128
    spec.activation = "gelu_pytorch_tanh"  # Hugging Face names are accepted
    assert spec.activation == "gelu_tanh"
    with pytest.raises(ValueError, match="qk_norm = 'both'"):
        spec.qk_norm = "both"
    custom = libscale.ModelSpec(name="g2", hidden_size=64, intermediate_size=128, num_layers=2, num_heads=4,
                                num_kv_heads=4, head_dim=16, vocab_size=100, max_position_embeddings=32,
                                norms_per_layer=4, sliding_window=16, sliding_window_layers=1)
    custom.validate()
    custom.sliding_window_layers = 3
    with pytest.raises(ValueError, match="sliding_window_layers = 3"):
        custom.validate()


def test_plan_carries_one_set_of_defaults_and_checks_options_in_the_core():
    import libscale.options as options

    plan = libscale.Plan("qwen3-32b", "b300")
    # The defaults are the core's declarations: a Plan with no options has every default.
    assert plan.options()["seq_len"] == options.option("training", "seq_len").default == 8192
    assert plan.config.seq_len == libscale.training_config().seq_len == 8192
    assert libscale.flops_per_token("qwen3-32b").model == pytest.approx(
        libscale.flops_per_token("qwen3-32b", seq_len=8192).model)
    # with_ changes one option and keeps the rest; the module functions are the Plan's.
    p16 = plan.with_(gpus=16, global_batch_tokens=1_048_576, gpus_per_node=8)
    assert p16.options()["gpus"] == 16 and p16.options()["strategy"] == "fsdp"
    step = p16.step()
    assert step.tokens_per_s == libscale.estimate_step("qwen3-32b", "b300", gpus=16, global_batch_tokens=1_048_576,
                                                       gpus_per_node=8).tokens_per_s
    proj = p16.project([8, 16], job={"tokens": 2e9, "epochs": 2})
    assert [r.step.gpus for r in proj.rows] == [8, 16] and proj.to_dict()["job"]["tokens"] == 2e9
    assert proj.rows[1].step.tokens_per_s == pytest.approx(step.tokens_per_s)
    # Every result reports the same shape, whoever made it.
    assert proj.to_dict().keys() == libscale.project("qwen3-32b", "b300", gpus=[8, 16], global_batch_tokens=1_048_576,
                                                     gpus_per_node=8).to_dict().keys()
    with pytest.raises(ValueError, match=r"training option seq_len = -3; valid: an integer in \[1,"):
        libscale.Plan("qwen3-32b", "b300", seq_len=-3)
    with pytest.raises(ValueError, match="unknown training option 'seqlen'; valid: gpus, gpus_per_node, seq_len"):
        libscale.Plan("qwen3-32b", "b300", seqlen=8192)
    with pytest.raises(ValueError, match="job option tokens = 0; valid: a finite number >= 1"):
        plan.project([8], job={"tokens": 0})
    with pytest.raises(ValueError, match="attention_span_tokens = nan"):
        libscale.Plan("qwen3-32b", "b300", attention_span_tokens=float("nan"))
    with pytest.raises(ValueError, match="beyond the 64-bit integer range"):
        libscale.Plan("qwen3-32b", "b300", gpus=2**70)
    with pytest.raises(TypeError, match="training option torch_compile: expected True or False"):
        libscale.Plan("qwen3-32b", "b300", torch_compile=1)
