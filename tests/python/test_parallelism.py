"""Tensor, sequence and context parallel from Python and the CLI: the options reach the
core, the mesh is printed, bad layouts are refused with the rule's one line, measurement
records batch over data-parallel ranks, and validation sorts another layout into its own
category."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import libscale

ROOT = Path(__file__).resolve().parents[2]


def test_readme_layouts_table_is_what_the_example_prints():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"## Tensor and context parallel.*?```python\n(.*?)```\n\n```text\n(.*?)\n```", readme,
                      flags=re.S)
    assert found, "README lacks the layouts example and its output"
    out = subprocess.run([sys.executable, "-c", found.group(1)], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    assert out.strip() == found.group(2).strip()


def test_mesh_and_step_say_the_layout():
    plan = libscale.Plan("llama-3.1-70b", "h100", gpus=256, tensor_parallel=8, micro_batch=16)
    assert str(plan.mesh) == "dp_shard 32 × tp 8"
    assert (plan.mesh.dp_shard, plan.mesh.tp, plan.mesh.cp, plan.mesh.shard_group) == (32, 8, 1, 32)
    step = plan.step()
    assert step.text().splitlines()[2].split() == ["device", "mesh", "dp_shard", "32", "×", "tp", "8"]
    assert (step.data_parallel, step.tensor_parallel, step.context_parallel) == (32, 8, 1)
    assert step.tokens_per_step == 32 * 16 * 8192
    assert 0 < step.model_parallel_comm_s <= step.comm_s
    # HSDP: a node's 8 GPUs are 2 data shards × 2 context × 2 tensor ranks, replicated over nodes
    hsdp = libscale.Plan("llama-3.1-8b", "h100", gpus=32, strategy="hsdp", tensor_parallel=2, context_parallel=2)
    assert str(hsdp.mesh) == "dp_replicate 4 × dp_shard 2 × cp 2 × tp 2"
    assert hsdp.step().data_parallel == 8


def test_tensor_parallel_trades_throughput_for_memory():
    one = libscale.estimate_step("llama-3.1-8b", "h100", gpus=8, seq_len=8192, global_batch_tokens=65536)
    tp = libscale.estimate_step("llama-3.1-8b", "h100", gpus=8, seq_len=8192, global_batch_tokens=65536,
                                tensor_parallel=4)
    assert tp.grad_accum == 4 * one.grad_accum            # 2 data-parallel ranks instead of 8
    assert tp.memory.activations_gib < one.memory.activations_gib
    assert tp.tokens_per_s_per_gpu < one.tokens_per_s_per_gpu
    # MFU counts the whole model's FLOPs per token on either layout
    assert tp.mfu / tp.tokens_per_s_per_gpu == pytest.approx(one.mfu / one.tokens_per_s_per_gpu, rel=1e-12)


def test_ulysses_trades_the_ring_for_all_to_alls():
    ring = libscale.Plan("llama-3.1-8b", "h100", gpus=8, seq_len=131072, context_parallel=8, torch_compile=True)
    ulysses = ring.with_(context_parallel_method="ulysses")
    assert ulysses.options()["context_parallel_method"] == "ulysses" and str(ulysses.mesh) == "cp 8 (ulysses)"
    r, u = ring.step(), ulysses.step()
    # The same GEMMs; attention's kernels over the whole sequence instead of 1/8 of it
    assert u.gemm_s == pytest.approx(r.gemm_s, rel=1e-12)
    assert u.attention_s < r.attention_s
    # four all-to-alls a layer each way, where the ring's gathers hide under attention
    assert u.model_parallel_comm_s > 0 and u.exposed_comm_s >= u.model_parallel_comm_s
    with pytest.raises(ValueError, match="Ulysses under tensor parallel is not modelled"):
        ulysses.with_(tensor_parallel=2, context_parallel=4).step()


@pytest.mark.parametrize(("args", "message"), [
    (["--tensor-parallel", "16"], "tensor_parallel = 16 does not divide the 8 GPUs of a h100 node"),
    (["--tensor-parallel", "3", "--gpus", "12"], "valid: 1, 2, 4, 8"),
    (["--tensor-parallel", "8", "--gpus", "12"], "does not divide gpus = 12"),
    (["--context-parallel", "3", "--gpus", "6"], "is not a multiple of 6"),
    (["--pipeline-parallel", "4"], "pipeline parallelism (its schedules and bubbles) is not modelled"),
    (["--tensor-parallel", "2", "--strategy", "ddp"], "libscale composes them with FSDP or HSDP only"),
    (["--tensor-parallel", "0"], "tensor_parallel"),
    (["--context-parallel", "64", "--gpus", "64", "--context-parallel-method", "ulysses"],
     "context_parallel = 64 with context_parallel_method = 'ulysses' does not divide llama-3.1-8b's num_heads = 32"),
    (["--context-parallel-method", "ulises"], "context_parallel_method"),
])
def test_cli_refuses_a_layout_in_one_line(args: list[str], message: str):
    out = subprocess.run([sys.executable, "-m", "libscale", "project", "--model", "llama-3.1-8b", "--hardware",
                          "h100", *(["--gpus", "16"] if "--gpus" not in args else []), *args],
                         capture_output=True, text=True)
    assert out.returncode == 2, out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("libscale: error: ") and message in lines[0], out.stderr


def test_sweep_flags_layouts_the_rules_refuse():
    names = [libscale._core.estimate.issue_name(i) for i in range(libscale._core.estimate.ISSUE_COUNT)]
    start = names.index("whole_nodes") + 1
    assert names[start:start + 8] == ["pipeline_parallel", "parallel_strategy", "parallel_degrees",
                                      "tensor_parallel_node", "tensor_parallel_model", "expert_parallel",
                                      "mixture_of_experts", "parallel_seq_len"]
    r = libscale.sweep("llama-3.1-8b", "h100", gpus=[8, 12, 16], tensor_parallel=8)
    assert [libscale._core.estimate.issue_name(int(c)) for c in r.issue] == ["none", "parallel_degrees", "none"]
    one = libscale.estimate_step("llama-3.1-8b", "h100", gpus=16, tensor_parallel=8)
    assert r.step_time_s[2] == one.step_time_s and np.isnan(r.step_time_s[1])


def test_measurement_batches_over_data_parallel_ranks(tmp_path: Path):
    rec = dict(kind="step", model="llama-3.1-8b", hardware="h100", gpus=16, gpus_per_node=8, seq_len=8192,
               micro_batch=2, tensor_parallel=8, tokens_per_s_per_gpu=1000.0)
    m = libscale.read_measurements([rec]).to_json()["records"][0]
    assert m["global_batch_tokens"] == 2 * 2 * 8192               # 2 data-parallel ranks × 2 sequences
    assert m["step_time_s"] == pytest.approx(2 * 2 * 8192 / (1000.0 * 16))
    with pytest.raises(ValueError, match="is not a multiple of tensor_parallel × context_parallel = 8"):
        libscale.read_measurements([dict(rec, gpus=12)])


def test_validation_sorts_another_layout_into_its_own_category(tmp_path: Path):
    # Rows of one series at the same calibration, the second and third with context and
    # tensor parallel: category (e), predicted as the model predicts them.
    cal = libscale.default_calibration("h100")
    cal.framework_efficiency = 0.8
    base = dict(kind="step", model="llama-3.1-8b", hardware="h100", gpus=8, gpus_per_node=8, seq_len=16384,
                micro_batch=1, grad_accum=1, activation_checkpointing="full", strategy="fsdp", series="s")
    records = []
    for extra in ({}, {"context_parallel": 2}, {"tensor_parallel": 2}):
        s = libscale.estimate_step("llama-3.1-8b", "h100", gpus=8, gpus_per_node=8, seq_len=16384, micro_batch=1,
                                   activation_checkpointing="full", calibration=cal, **extra)
        records.append(dict(base, **extra, step_time_s=s.step_time_s))
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"schema": "libscale.measurements/2", "records": records}))
    v = libscale.validate(path)
    assert [r["category"] for r in v.rows()] == ["x", "e", "e"]
    assert all(abs(r["calibrated_error"]) < 0.02 for r in v.rows())
    assert v.summary()[4]["rows"] == 2 and v.summary()[4]["category"].startswith("(e)")


def test_layouts_rank_what_fits_and_name_the_fastest():
    r = libscale.layouts("llama-3.1-70b", "h100", gpus=64, seq_len=8192, global_batch_tokens=1_048_576,
                         micro_batch=[1, 2], intervals=3)
    rows = r.records()
    assert len(r) == len(rows) > 0 and r.raw.tried == r.raw.invalid + r.raw.not_fitting + len(rows)
    assert [x["rank"] for x in rows] == list(range(1, len(rows) + 1))
    assert all(a["tokens_per_s"] >= b["tokens_per_s"] for a, b in itertools.pairwise(rows))
    assert all(x["fits"] and x["micro_batch"] in (1, 2) for x in rows)
    assert rows[0]["tokens_per_s_p10"] < rows[0]["tokens_per_s"] < rows[0]["tokens_per_s_p90"]
    assert rows[3]["tokens_per_s_p10"] is None
    best = r.fastest
    assert best is not None and str(best.mesh) == rows[0]["mesh"]
    assert best.step().tokens_per_s == pytest.approx(rows[0]["tokens_per_s"], rel=1e-12)
    text = r.text(top=3)
    assert "layouts tried" in text and "(+" in text and rows[0]["mesh"] in text
    with pytest.raises(TypeError, match="strategies="):
        libscale.layouts("llama-3.1-8b", "h100", gpus=8, strategy="hsdp")
    with pytest.raises(ValueError, match="valid: fsdp, hsdp"):
        libscale.Plan("llama-3.1-8b", "h100", gpus=8).layouts(strategies=["ddp"])


def test_layouts_try_ring_and_ulysses_at_each_context_parallel_degree():
    # Llama 3.1 8B: 32 heads, 8 key/value heads; Ulysses divides them at cp 2, 4, 8.
    both = libscale.layouts("llama-3.1-8b", "h100", gpus=8, seq_len=65536, micro_batch=[1],
                            activation_checkpointing=["full"], tensor_parallel=[1], intervals=0)
    ring = libscale.layouts("llama-3.1-8b", "h100", gpus=8, seq_len=65536, micro_batch=[1],
                            activation_checkpointing=["full"], tensor_parallel=[1], context_parallel_method=["ring"],
                            intervals=0)
    assert both.raw.tried == ring.raw.tried + 3   # cp 2, 4, 8 again by Ulysses; cp 1 once
    methods = {(x["context_parallel"], x["context_parallel_method"]) for x in both.records()}
    assert (4, "ulysses") in methods and (4, "ring") in methods   # cp 2 does not fit 65,536 tokens
    ulysses = next(x for x in both.records() if x["context_parallel_method"] == "ulysses")
    assert "(ulysses)" in ulysses["mesh"]
    with pytest.raises(ValueError, match="context_parallel_method"):
        libscale.layouts("llama-3.1-8b", "h100", gpus=8, context_parallel_method=["zigzag"])
    with pytest.raises(ValueError, match="context_parallel_methods is empty"):
        libscale.layouts("llama-3.1-8b", "h100", gpus=8, context_parallel_method=[])


def test_layouts_cli_table_and_exit_status(capsys: pytest.CaptureFixture[str]):
    from libscale import cli

    status = cli.main(["layouts", "--model", "llama-3.1-8b", "--hardware", "h100", "--gpus", "8", "--seq-len",
                       "131072", "--torch-compile", "--top", "3", "--intervals", "1", "--samples", "50"])
    out = capsys.readouterr().out
    assert status == 0 and "fastest: " in out and len([ln for ln in out.splitlines() if ln[:2].strip().isdigit()]) == 3
    assert cli.main(["layouts", "--model", "llama-3.1-70b", "--hardware", "h100", "--gpus", "1"]) == 1
    assert "none fits" in capsys.readouterr().out


def test_readme_layouts_command_prints_the_table_shown():
    import shlex

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"\$ libscale (layouts [^\n]*)\n```\n\n```text\n(.*?)\n```", readme, flags=re.S)
    assert found, "README lacks the layouts command and its table"
    out = subprocess.run([sys.executable, "-m", "libscale", *shlex.split(found.group(1))], capture_output=True,
                         text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == found.group(2).strip()


def test_report_lists_the_layouts_of_the_largest_count():
    import html

    from libscale import report

    p = libscale.project("llama-3.1-8b", "h100", gpus=[8, 16], seq_len=8192)
    page = report.html_report(p)
    section = html.unescape(page.split('<section id="layouts">')[1].split("</section>")[0])
    best = p.plan.with_(gpus=16, global_batch_tokens=int(p.rows_dicts()[-1]["tokens_per_step"])).layouts(intervals=0)
    assert best.summary() in section
    assert "<table" in section and str(best.raw.rows[0].mesh) in section
