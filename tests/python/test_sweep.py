"""The vectorized sweep: element-wise equal to estimate_step, invalid configurations
flagged (never raised), numpy broadcasting, and speed."""

from __future__ import annotations

import numpy as np
import pytest

import libscale


def test_sweep_equals_estimate_step_element_wise():
    gpus = np.array([1, 4, 8, 12, 16, 32])[:, None, None]
    mb = np.array([1, 2, 4])[None, :, None]
    seq = np.array([2048, 8192, 65536])[None, None, :]      # 65536 > max_position_embeddings
    r = libscale.sweep("qwen3-32b", "b300", gpus=gpus, micro_batch=mb, seq_len=seq,
                       global_batch_tokens=1_048_576, gpus_per_node=8)
    assert r.shape == (6, 3, 3) and len(r) == 54
    for idx in np.ndindex(r.shape):
        g, m, s = int(r.gpus[idx]), int(r.micro_batch[idx]), int(r.seq_len[idx])
        kwargs = dict(gpus=g, micro_batch=m, seq_len=s, global_batch_tokens=1_048_576, gpus_per_node=8)
        try:
            e = libscale.estimate_step("qwen3-32b", "b300", **kwargs)
        except ValueError:
            assert r.issue[idx] != 0
            assert np.isnan(r.step_time_s[idx]) and not r.fits[idx] and r.grad_accum[idx] == 0
            continue
        assert r.issue[idx] == 0
        for name in ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "hfu", "compute_s",
                     "comm_s", "exposed_comm_s"):
            assert r[name][idx] == getattr(e, name), name
        assert r.memory_gib[idx] == e.memory.total_gib
        assert r.grad_accum[idx] == e.grad_accum
        assert bool(r.fits[idx]) == e.memory.fits
    assert r.fits.dtype == np.bool_ and r.issue.dtype == np.uint8 and r.grad_accum.dtype == np.int64
    assert (r.issue != 0).any() and (r.valid & ~r.fits).any()   # both kinds of failure present


def test_issue_codes_name_the_problem():
    r = libscale.sweep("qwen3-32b", "b300", gpus=[8, 12, 0, 8], seq_len=[8192, 8192, 8192, 100_000], strategy="hsdp",
                       gpus_per_node=8)
    names = [libscale._core.estimate.issue_name(int(c)) for c in r.issue]
    assert names == ["none", "whole_nodes", "gpus", "seq_len_too_long"]
    assert libscale.describe_issue(0) == "ok"
    assert "max_position_embeddings" in libscale.describe_issue(int(r.issue[3]))
    assert list(r.issue_text()) == [libscale.describe_issue(int(c)) for c in r.issue]
    with pytest.raises(ValueError):
        libscale.describe_issue(libscale._core.estimate.ISSUE_COUNT)


def test_broadcasting_and_input_columns(b300):
    r = libscale.sweep("qwen3-32b", "b300", gpus=np.array([8, 16]), micro_batch=np.array([[1], [2], [4]]))
    assert r.shape == (3, 2)
    assert (r.gpus == [[8, 16]] * 3).all()
    assert (r.micro_batch[:, 0] == [1, 2, 4]).all()
    assert (r.seq_len == 8192).all() and (r.gpus_per_node == b300.gpus_per_node).all()
    assert (r.global_batch_tokens == 0).all()        # 0: no accumulation
    assert (r.grad_accum == 1).all()
    scalar = libscale.sweep("qwen3-32b", "b300", gpus=8)
    one = libscale.estimate_step("qwen3-32b", "b300", gpus=8)
    assert scalar.shape == () and scalar.tokens_per_s == one.tokens_per_s
    with pytest.raises(ValueError, match="broadcast"):
        libscale.sweep("qwen3-32b", "b300", gpus=[8, 16], micro_batch=[1, 2, 3])


def test_integral_floats_accepted_other_inputs_refused():
    a = libscale.sweep("qwen3-32b", "b300", gpus=np.array([8.0, 16.0]))
    b = libscale.sweep("qwen3-32b", "b300", gpus=[8, 16])
    assert np.array_equal(a.step_time_s, b.step_time_s)
    with pytest.raises(ValueError, match="integers"):
        libscale.sweep("qwen3-32b", "b300", gpus=[8.5])
    with pytest.raises(TypeError, match="integers"):
        libscale.sweep("qwen3-32b", "b300", gpus=["8"])
    with pytest.raises(TypeError):
        libscale.sweep("qwen3-32b", "b300", gpus=[True, False])


def test_threads_do_not_change_results():
    gpus = np.repeat(np.array([8, 16, 32, 64]), 50_000)
    one = libscale.sweep("qwen3-32b", "b300", gpus=gpus, threads=1)
    many = libscale.sweep("qwen3-32b", "b300", gpus=gpus, threads=4)
    for k in one.OUTPUTS:
        assert np.array_equal(one[k], many[k], equal_nan=True), k


def test_to_dict_and_to_pandas():
    pd = pytest.importorskip("pandas")
    r = libscale.sweep("qwen3-32b", "b300", gpus=[[8, 12], [16, 32]], global_batch_tokens=1_048_576)
    d = r.columns_dict()
    assert set(d) == set(r.INPUTS) | set(r.OUTPUTS) and d["mfu"].shape == (2, 2)
    assert d["mfu"] is r.mfu                                  # no copy
    full = r.to_dict()  # one fixed shape: schema tag, the plan's context, one row per configuration
    assert full["schema"] == "libscale.sweep/1" and full["shape"] == [2, 2] and len(full["rows"]) == 4
    assert full["config"]["gpus"] == [8, 12, 16, 32]
    flat = r.columns_dict(flat=True)
    assert flat["gpus"].tolist() == [8, 12, 16, 32]
    df = r.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 4
    assert df["gpus"].tolist() == [8, 12, 16, 32]
    assert df["issue_text"].tolist()[1] == libscale.describe_issue(int(r.issue[0, 1]))
    assert df["tokens_per_s"].iloc[0] == r.tokens_per_s[0, 0]
    assert "Sweep(shape=(2, 2), configurations=4, valid=3" in repr(r)
    html = r._repr_html_()
    assert "<table>" in html and "tokens/s" in html


def test_a_million_configurations_in_one_call():
    # Speed is measured by bench/bench_sweep.py; here the million-element call must give
    # the same numbers as single estimates at spot-checked elements.
    n = 1_000_000
    gpus = np.tile(np.array([8, 16, 32, 64, 128, 256, 512, 1024]), n // 8)
    mb = np.tile(np.array([1, 2, 3, 4, 5]), n // 5)
    r = libscale.sweep("qwen3-32b", "b300", gpus=gpus, micro_batch=mb, seq_len=8192)
    assert len(r) == n and r.valid.all()
    for i in (0, 7, 123_457, n - 1):
        s = libscale.estimate_step("qwen3-32b", "b300", gpus=int(gpus[i]), micro_batch=int(mb[i]), seq_len=8192)
        assert r.step_time_s[i] == s.step_time_s and r.memory_gib[i] == s.memory.total_gib


def test_training_options_apply_to_every_element():
    opts = dict(precision="fp8", optimizer="adamw_8bit", loss_kernel="fused", attention_kernel="flash3",
                torch_compile=True, checkpoint_every=2)
    r = libscale.sweep("qwen3-32b", "b300", gpus=[8, 16], global_batch_tokens=1_048_576, **opts)
    assert r.config.optimizer == "adamw_8bit" and r.config.checkpoint_every == 2
    for i, g in enumerate((8, 16)):
        e = libscale.estimate_step("qwen3-32b", "b300", gpus=g, global_batch_tokens=1_048_576, **opts)
        assert r.step_time_s[i] == e.step_time_s and r.memory_gib[i] == e.memory.total_gib


def test_issue_codes_cover_the_new_options():
    # the codes after 'checkpoint', in the rule table's order
    names = [libscale._core.estimate.issue_name(i) for i in range(libscale._core.estimate.ISSUE_COUNT)]
    assert names[names.index("checkpoint") + 1:] == ["base_precision", "fp8_unsupported", "fp8_all_gather",
                                                     "checkpoint_every", "attention_kernel", "fine_tuning",
                                                     "lora_targets"]
    r = libscale.sweep("qwen3-0.6b", "a100", gpus=[8], attention_kernel="flash3")
    assert libscale._core.estimate.issue_name(int(r.issue[0])) == "attention_kernel"
    assert "Hopper" in r.issue_text()[0]
    r = libscale.sweep("qwen3-0.6b", "b300", gpus=[8, 8], checkpoint_every=29)   # Qwen3-0.6B has 28 layers
    assert [libscale._core.estimate.issue_name(int(c)) for c in r.issue] == ["checkpoint_every"] * 2
    assert "between 1 and num_layers" in r.issue_text()[0] and not r.fits.any()
