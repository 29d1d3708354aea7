"""What would fit, through the Python API and the CLI: every change, applied with Plan.with_
(an independent path through the option parsing), fits and costs what the plan's own step
estimates say; the largest micro-batch and sequence are edges; the command's exit status
says whether the configuration as given fits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import libscale
from libscale import cli

TOO_BIG = dict(gpus=8, micro_batch=4, activation_checkpointing="none")  # Qwen3-32B on 8 x H200: 696 GiB


def test_each_change_fits_and_costs_what_its_own_step_says():
    plan = libscale.Plan("qwen3-32b", "h200", **TOO_BIG)
    advice = plan.fit_advice()
    assert not advice.fits and not plan.step().memory.fits
    assert len(advice.changes) >= 3
    rate = plan.step().tokens_per_s_per_gpu
    for i, change in enumerate(advice.changes):
        step = advice.plan_with(i).step()
        assert step.memory.fits, change
        assert step.memory.total_gib == pytest.approx(change["memory_gib"], rel=1e-12)
        assert change["gpu_hours_ratio"] == pytest.approx(rate / step.tokens_per_s_per_gpu, rel=1e-12)
        assert change["options"] and all(plan.options()[k] != v for k, v in change["options"].items())
    # the same training first (no caveat), then other recipes, then other methods (LoRA,
    # QLoRA), each group cheapest first
    def tier(c):
        return 2 if "fine_tuning" in c["options"] else int(c["caveat"] != "")

    keys = [(tier(c), c["gpu_hours_ratio"]) for c in advice.changes]
    assert keys == sorted(keys)
    # Checkpointing costs the recompute: never free.
    ckpt = [c for c in advice.changes if c["options"].get("activation_checkpointing") == "full"]
    assert ckpt and all(c["gpu_hours_ratio"] > 1 for c in ckpt)
    with pytest.raises(IndexError, match="there are"):
        advice.plan_with(len(advice.changes))


def test_the_largest_micro_batch_and_sequence_are_edges():
    plan = libscale.Plan("qwen3-32b", "h200", gpus=8)
    advice = plan.fit_advice()
    assert advice.fits and advice.changes == []
    mb, seq = advice.max_micro_batch, advice.max_seq_len
    assert mb >= 1 and seq >= plan.config.seq_len
    assert plan.with_(micro_batch=mb).step().memory.fits
    assert not plan.with_(micro_batch=mb + 1).step().memory.fits
    assert plan.with_(seq_len=seq).step().memory.fits
    assert not plan.with_(seq_len=seq + 1).step().memory.fits


def test_results_render_and_serialize():
    advice = libscale.fit_advice("qwen3-32b", "h200", **TOO_BIG)
    text = advice.text()
    assert text.startswith("qwen3-32b on 8 x h200, micro-batch 4 x 8,192 tokens, checkpointing none. Fits: NO (")
    assert advice.changes[0]["change"] in text and "GPU-hours x" in text
    d = json.loads(advice.to_json())
    assert d["schema"] == "libscale.fit_advice/1" and d["changes"] == advice.changes
    assert d["memory"]["status"] == "does_not_fit"
    frame = advice.to_pandas()
    assert list(frame["change"]) == [c["change"] for c in advice.changes]
    empty = libscale.fit_advice("qwen3-0.6b", "h100", gpus=8)
    assert empty.to_csv().splitlines() == ["change,memory_gib,step_time_s,tokens_per_s_per_gpu,gpu_hours_ratio,caveat"]
    assert empty.to_pandas().columns[0] == "change" and "<table>" not in empty._repr_html_()
    assert "<table>" in advice._repr_html_()


def test_the_command_exits_1_when_it_does_not_fit(capsys):
    args = ["memory", "--model", "qwen3-32b", "--hardware", "h100", "--gpus", "4", "--seq-len", "4096"]
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    # 16 B x P / 4 = 122 GiB of states on 80 GiB: more GPUs, or 6 B of states (8-bit + bf16)
    assert "gpus=16" in out and "optimizer='adamw_8bit', master_weights='bf16'" in out
    assert "largest micro-batch that fits at seq_len 4,096: none" in out
    assert cli.main(["memory", "--model", "qwen3-32b", "--hardware", "h200", "--gpus", "8"]) == 0
    assert "longest sequence that fits at micro-batch 1:" in capsys.readouterr().out


def test_require_fit_names_the_changes_with_their_cost():
    with pytest.raises(libscale.DoesNotFitError, match=r"to fit, try gpus=16 \(GPU-hours x0\.\d\d\)"):
        libscale.estimate_step("qwen3-32b", "h100", gpus=4, seq_len=4096, require_fit=True)


def test_the_readme_figures_are_what_it_computes():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    fits = libscale.fit_advice("qwen3-32b", "h200", gpus=8)
    too_big = libscale.fit_advice("qwen3-32b", "h200", **TOO_BIG)
    first = too_big.changes[0]
    assert first["options"] == {"activation_checkpointing": "full", "loss_kernel": "fused"}
    said = " ".join(readme.split())  # the prose is wrapped
    assert (f"full checkpointing with the fused loss, ×{first['gpu_hours_ratio']:.2f})" in said)
    assert f"(3 and {fits.max_seq_len:,} tokens for Qwen3-32B on 8 × H200" in said and fits.max_micro_batch == 3


def test_eager_attention_is_a_change_and_a_huge_micro_batch_is_quick():
    # Eager attention keeps 64 heads x 40,960^2 probabilities per layer: no checkpointing
    # fits without a fused kernel, which the advice offers with the rest.
    advice = libscale.fit_advice("qwen3-32b", "h200", gpus=8, seq_len=40960, attention_kernel="eager",
                                 activation_checkpointing="none")
    assert any(c["options"].get("attention_kernel") == "flash2" for c in advice.changes)
    # The micro-batch's divisors are bisected, not walked (963,761,198,400 has 6,720 of them):
    # the change is the largest divisor that fits, the global batch kept.
    for model, mb in (("qwen3-32b", 963761198400), ("qwen3-0.6b", 720720)):
        odd = libscale.fit_advice(model, "h200", gpus=8, seq_len=1, micro_batch=mb, activation_checkpointing="none")
        (change,) = [c for c in odd.changes if "micro_batch" in c["options"]]
        pick = change["options"]["micro_batch"]
        assert mb % pick == 0 and change["options"]["global_batch_tokens"] == 8 * mb
        assert pick <= odd.max_micro_batch < 2 * pick
        # The next divisor up does not fit with the global batch kept (accumulating, the
        # sharded gradients are alive in forward: less room than max_micro_batch's single
        # micro-batch has).
        bigger = next((d for d in range(pick + 1, odd.max_micro_batch + 1) if mb % d == 0), None)
        if bigger is not None:
            assert not libscale.estimate_step(model, "h200", gpus=8, seq_len=1, micro_batch=bigger,
                                              global_batch_tokens=8 * mb,
                                              activation_checkpointing="none").memory.fits
