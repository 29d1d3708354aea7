"""Mixture-of-experts models and expert parallel from Python and the CLI: the catalog's
counts, the option reaching the core, the mesh, refusals in one line, the layout search
over expert-parallel degrees, and the README example."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import libscale
from libscale import _core

ROOT = Path(__file__).resolve().parents[2]


def test_readme_moe_example_prints_what_it_shows():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"## Mixture of experts and expert parallel.*?```python\n(.*?)```\n\n```text\n(.*?)\n```",
                      readme, flags=re.S)
    assert found, "README lacks the expert-parallel example and its output"
    out = subprocess.run([sys.executable, "-c", found.group(1)], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    assert out.strip() == found.group(2).strip()


def test_counts_total_and_active():
    m = _core.io.find_model("qwen3-30b-a3b")
    p = _core.spec.count_parameters(m)
    # 48 layers × (attention 18,878,720 + router 262,144 + 128 experts × 4,718,592) + 2 × 151936 × 2048 + 2048
    assert p.total == 48 * (18_878_720 + 262_144 + 128 * 4_718_592) + 2 * 151_936 * 2048 + 2048 == 30_532_122_624
    assert p.active == p.total - 48 * 120 * 4_718_592
    assert (m.num_experts, m.experts_per_token, m.moe_intermediate_size, m.moe_layers) == (128, 8, 768, 48)


def test_expert_parallel_reaches_the_step():
    plan = libscale.Plan("qwen3-30b-a3b", "h100", gpus=16, seq_len=4096, expert_parallel=8,
                         activation_checkpointing="full", loss_kernel="fused")
    assert str(plan.mesh) == "dp_shard 16 (ep 8)"
    assert (plan.mesh.ep, plan.mesh.expert_shard_group) == (8, 2)
    step = plan.step()
    assert step.expert_parallel == 8 and 0 < step.model_parallel_comm_s <= step.comm_s
    assert "(ep 8)" in step.text().splitlines()[2]
    # The busiest rank's extra tokens slow the step and lengthen the all-to-alls (their
    # bytes 1.5 ×; the latency and the token counts' exchange do not grow).
    skew = plan.with_(expert_imbalance=1.5).step()
    assert skew.step_time_s > step.step_time_s
    assert 1.4 * step.model_parallel_comm_s < skew.model_parallel_comm_s < 1.5 * step.model_parallel_comm_s
    # DeepEP sends a token once per destination rank: fewer bytes than its 8 copies.
    deepep = plan.with_(expert_comm_backend="deepep").step()
    assert deepep.model_parallel_comm_s < 0.8 * step.model_parallel_comm_s
    assert deepep.step_time_s < step.step_time_s
    # MFU counts a token's active parameters: the same FLOPs per token with or without EP.
    one = plan.with_(expert_parallel=1).step()
    assert one.mfu / one.tokens_per_s_per_gpu == pytest.approx(step.mfu / step.tokens_per_s_per_gpu, rel=1e-12)


@pytest.mark.parametrize(("args", "message"), [
    (["--model", "llama-3.1-8b", "--expert-parallel", "2"], "expert_parallel = 2: llama-3.1-8b is a dense model"),
    (["--model", "mixtral-8x7b-v0.1", "--expert-parallel", "16"], "valid: 1, 2, 4, 8"),
    (["--model", "mixtral-8x7b-v0.1", "--tensor-parallel", "2"], "tensor parallel of experts"),
    (["--model", "qwen3-30b-a3b", "--fine-tuning", "lora"], "adapters on experts are not modelled"),
    (["--model", "qwen3-30b-a3b", "--expert-imbalance", "0.5"], "expert_imbalance"),
    (["--model", "qwen3-30b-a3b", "--expert-comm-backend", "nccl"], "valid: standard, deepep"),
])
def test_cli_refuses_in_one_line(args: list[str], message: str):
    out = subprocess.run([sys.executable, "-m", "libscale", "project", "--hardware", "h100", "--gpus", "16", *args],
                         capture_output=True, text=True)
    assert out.returncode == 2, out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("libscale: error: ") and message in lines[0], out.stderr


def test_layouts_search_expert_parallel_degrees():
    r = libscale.layouts("qwen3-30b-a3b", "h100", gpus=8, seq_len=4096, global_batch_tokens=2_097_152,
                         micro_batch=[2, 4], activation_checkpointing=["full"], loss_kernel="fused", intervals=0)
    degrees = {row["expert_parallel"] for row in r.records()}
    # Without expert parallel every GPU gathers a layer's 128 experts: not 'fits' at 80 GiB
    # with the 20 % margin; the split layouts do fit.
    assert degrees == {2, 4, 8} and r.raw.not_fitting > 0
    best = r.fastest
    assert best is not None and best.config.expert_parallel == r.records()[0]["expert_parallel"]
    # A dense model searches expert_parallel 1 only.
    dense = libscale.layouts("llama-3.1-8b", "h100", gpus=8, micro_batch=[1], activation_checkpointing=["full"],
                             intervals=0)
    assert {row["expert_parallel"] for row in dense.records()} == {1}


def test_models_command_lists_experts_and_active_parameters():
    out = subprocess.run([sys.executable, "-m", "libscale", "models"], capture_output=True, text=True,
                         check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("qwen1.5-moe-a2.7b "))
    assert "2,689,173,504" in line and "60 × 1,408, top 4 + shared 5,632" in line
