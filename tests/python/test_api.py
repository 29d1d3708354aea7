"""The Python API: catalog, parameter and FLOP counts, the step model, argument handling
and error types. Expected values are computed here from the config files and the
formulas in DESIGN.md, not copied from the program's output."""

from __future__ import annotations

import copy
import json
import math
import threading

import numpy as np
import pytest

import libscale
from conftest import QWEN3_32B_PARAMETERS

GiB = 2**30


def hand_parameters(c: dict) -> int:
    """DESIGN.md's formula over a Hugging Face config.json."""
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
    text = libscale._core.catalog_file("models/qwen3-32b.json")
    path = tmp_path / "qwen-copy.json"
    path.write_text(text)
    assert libscale.model(path).parameters == qwen.parameters           # os.PathLike
    snapshot = tmp_path / "Qwen3-32B"
    snapshot.mkdir()
    (snapshot / "config.json").write_text(text)
    assert libscale.model(str(snapshot)).parameters == qwen.parameters  # snapshot directory


def test_hardware_from_json_file(tmp_path, b300):
    path = tmp_path / "my-b300.json"
    path.write_text(libscale._core.catalog_file("hardware/b300.json"))
    hw = libscale.hardware(path)
    assert (hw.peak_bf16_tflops, hw.hbm_gib, hw.gpus_per_node) == (b300.peak_bf16_tflops, b300.hbm_gib,
                                                                    b300.gpus_per_node)


def test_hardware_fields_match_the_catalog_file(b300):
    raw = json.loads(libscale._core.catalog_file("hardware/b300.json"))
    for key in ("peak_bf16_tflops", "hbm_gib", "hbm_tbps", "nvlink_gbps_bidir", "nic_gbps_per_gpu",
                "gpus_per_node", "board_power_w", "idle_power_w", "price_per_gpu_hour_usd"):
        assert getattr(b300, key) == raw[key], key


def test_default_calibration_resolves_fractions_against_the_hardware(b300):
    cal = libscale.default_calibration("b300")
    raw = json.loads(libscale._core.catalog_file("calibrations/default-b300.json"))
    assert cal.kind == "default"
    assert cal.eta_max == raw["compute"]["eta_max"]
    # busbw = fraction × unidirectional NVLink (half the bidirectional GB/s) and × NIC bytes/s
    assert cal.intra_node.busbw_bytes_per_s == pytest.approx(
        raw["comm"]["intra_node"]["busbw_fraction"] * b300.nvlink_gbps_bidir / 2 * 1e9)
    assert cal.inter_node.busbw_bytes_per_s == pytest.approx(
        raw["comm"]["inter_node"]["busbw_fraction"] * b300.nic_gbps_per_gpu / 8 * 1e9)
    assert cal.intra_node.alpha_s == pytest.approx(raw["comm"]["intra_node"]["alpha_us"] * 1e-6)


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
    eta = cal.eta_max * t / (t + cal.half_saturation_tokens)
    peak = b300.peak_bf16_tflops * 1e12

    assert s.grad_accum == A == 16
    assert s.eta == pytest.approx(eta)
    assert s.compute_s == pytest.approx(A * t * flops.hardware / (peak * eta))
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
    assert s.optimizer_s == pytest.approx(counts.total / n * 30 / (b300.hbm_tbps * 1e12 * cal.hbm_efficiency))
    assert s.step_time_s == pytest.approx(s.compute_s + s.exposed_comm_s + s.optimizer_s + s.data_s
                                          + s.checkpoint_s)
    mem = s.memory
    assert mem.weights_gib == pytest.approx(counts.total * 2 / n / GiB)
    assert mem.optimizer_gib == pytest.approx(counts.total * 12 / n / GiB)
    assert mem.available_gib == b300.hbm_gib and mem.fits
    assert mem.total_gib == pytest.approx(sum(getattr(mem, k) for k in (
        "weights_gib", "grads_gib", "optimizer_gib", "activations_gib", "logits_gib", "buffers_gib",
        "reserved_gib")))
    assert s.nodes == 1 and s.memory_gib == mem.total_gib


def test_config_options_reach_the_core(qwen, b300):
    base = dict(gpus=8, seq_len=8192, global_batch_tokens=1_048_576)
    cal = libscale.default_calibration(b300)
    counts = libscale.count_parameters(qwen)
    L, n = qwen.num_layers, 8
    ref = libscale.estimate_step(**base)
    fp32 = libscale.estimate_step(**base, reduce_dtype="fp32")
    extra_rs = L * ring(4 * counts.per_layer, n, cal.intra_node) + ring(4 * counts.root_unit, n, cal.intra_node) \
        - L * ring(2 * counts.per_layer, n, cal.intra_node) - ring(2 * counts.root_unit, n, cal.intra_node)
    assert fp32.comm_s - ref.comm_s == pytest.approx(ref.grad_accum * extra_rs)
    keep = libscale.estimate_step(**base, reshard_after_forward=False)
    assert ref.comm_s - keep.comm_s == pytest.approx(ref.grad_accum * L * ring(2 * counts.per_layer, n,
                                                                             cal.intra_node))
    assert keep.memory.buffers_gib > ref.memory.buffers_gib
    last = libscale.estimate_step(**base, grad_sync="last_micro_batch")
    assert last.comm_s < ref.comm_s
    ddp = libscale.estimate_step("qwen3-8b", "b300", gpus=8, strategy="ddp")
    p8 = libscale.count_parameters("qwen3-8b").total
    assert ddp.memory.weights_gib == pytest.approx(p8 * 2 / GiB)      # replicated
    sel = libscale.estimate_step(**base, activation_checkpointing="selective")
    assert sel.memory.activations_gib > ref.memory.activations_gib


def test_names_paths_and_objects_give_the_same_estimate(tmp_path, qwen, b300):
    path = tmp_path / "q.json"
    path.write_text(libscale._core.catalog_file("models/qwen3-32b.json"))
    a = libscale.estimate_step("qwen3-32b", "b300", gpus=16)
    b = libscale.estimate_step(qwen, b300, gpus=16, calibration=libscale.default_calibration(b300))
    c = libscale.estimate_step(path, "b300", gpus=16)
    assert a.step_time_s == b.step_time_s == c.step_time_s


def test_data_and_checkpoint_accept_dicts_and_structs():
    nfs = {"corpus_in_page_cache": False, "storage_read_gbps_per_node": 1e-4}
    s1 = libscale.estimate_step(gpus=8, data=nfs)
    s2 = libscale.estimate_step(gpus=8, data=libscale.DataPipeline(**nfs))
    assert s1.data_s == s2.data_s > 0
    # the node reads its ranks' tokens (4 B each) at 0.01 GB/s; only the excess over the step shows
    assert s1.data_s == pytest.approx(8 * 8192 * 4 / 1e-4 / 1e9 - (s1.step_time_s - s1.data_s))
    ck = libscale.estimate_step(gpus=8, checkpoint={"every_steps": 10, "write_gbps_per_node": 5})
    p = libscale.count_parameters("qwen3-32b").total
    assert ck.checkpoint_s == pytest.approx(p * 14 / 5e9 / 10)
    with pytest.raises(ValueError, match="unknown field 'bogus'"):
        libscale.estimate_step(data={"bogus": 1})
    with pytest.raises(TypeError, match=r"data.pretokenized = 'yes'; expected a bool"):
        libscale.estimate_step(data={"pretokenized": "yes"})
    with pytest.raises(ValueError, match="storage_read_gbps_per_node"):
        libscale.estimate_step(data={"corpus_in_page_cache": False})


def test_not_fitting_is_flagged_or_raised():
    s = libscale.estimate_step("qwen3-32b", "h100", gpus=4)
    assert not s.memory.fits and s.memory.total_gib > s.memory.available_gib == 80
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
    with pytest.raises(libscale.ParseError, match="cannot open"):
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
])
def test_invalid_configuration_raises_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        libscale.estimate_step(**kwargs)


@pytest.mark.parametrize("kwargs", [
    dict(gpus=2**32, micro_batch=2**32, seq_len=1, global_batch_tokens=5),   # product wraps to 0
    dict(gpus=2**62 + 1, micro_batch=1, seq_len=1),
    dict(gpus=2**70),
])
def test_absurd_sizes_raise_instead_of_crashing(kwargs):
    with pytest.raises(ValueError):
        libscale.estimate_step(**kwargs, require_fit=True)
    with pytest.raises(ValueError):
        libscale.project(**kwargs)
    # The solvers skip configurations that are not valid; a count beyond any cluster
    # is an error, an overflowing batch product just finds nothing.
    if kwargs["gpus"] > 2**30:
        with pytest.raises(ValueError, match="gpus"):
            libscale.solve_deadline(**kwargs, deadline_h=1)
    else:
        assert not libscale.solve_deadline(**kwargs, deadline_h=1).found


def test_sweep_flags_overflowing_products_per_element():
    r = libscale.sweep(gpus=[8, 2**29], micro_batch=[1, 2**32], seq_len=2**10)
    assert libscale._core.issue_name(int(r.issue[1])) == "batch_overflow"
    assert np.isnan(r.step_time_s[1]) and not r.fits[1]
    assert r.issue[0] == 0 and np.isfinite(r.step_time_s[0])
    r = libscale.sweep(gpus=[8, 2**40], micro_batch=1, seq_len=8192)
    assert r.issue[0] == 0 and np.isfinite(r.step_time_s[0])
    assert libscale._core.issue_name(int(r.issue[1])) == "gpus"


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError, match="gpus"):
        libscale.estimate_step(gpus="8")
    with pytest.raises(TypeError, match="gpus"):
        libscale.estimate_step(gpus=True)
    with pytest.raises(TypeError, match="model"):
        libscale.estimate_step(model=32)
    with pytest.raises(TypeError, match="strategy"):
        libscale.estimate_step(strategy=3)


def test_keyword_only_options():
    with pytest.raises(TypeError):
        libscale.estimate_step("qwen3-32b", "b300", 8)  # gpus is keyword-only


# --- bound types ---------------------------------------------------------------------


def test_training_config_strings_and_defaults():
    cfg = libscale.TrainingConfig()
    assert (cfg.strategy, cfg.activation_checkpointing, cfg.reduce_dtype, cfg.grad_sync) == \
        ("fsdp", "full", "bf16", "every_micro_batch")
    cfg.strategy = "zero3"
    assert cfg.strategy == "fsdp"
    cfg.reduce_dtype = "fp32"
    assert cfg.reduce_bytes == 4
    with pytest.raises(ValueError):
        cfg.strategy = "nope"


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
        results[i] = libscale.project(gpus=[8, 16, 32], global_batch_tokens=1_048_576).rows[-1].gpu_hours

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and results[0] > 0
