"""LoRA, QLoRA and DoRA from Python and the CLI: the options reach the core, bad values
name the option, and methods compare side by side."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import libscale


def test_methods_side_by_side():
    c = libscale.compare("qwen3-32b", "h100", gpus=[2, 8], seq_len=4096, tokens=1e8,
                         methods=["full", "lora", "qlora"])
    assert c.hardware_names == ["h100 full", "h100 lora", "h100 qlora"]
    rows = {(r["hardware"], r["gpus"]): r for r in c.records()}
    assert {r["fine_tuning"] for r in rows.values()} == {"full", "lora", "qlora"}
    # A frozen base: no gradients or optimizer states for it, far less memory; NF4 less again.
    assert rows["h100 lora", 2]["memory_gib"] < 0.3 * rows["h100 full", 2]["memory_gib"]
    assert rows["h100 qlora", 2]["memory_gib"] < rows["h100 lora", 2]["memory_gib"]
    assert not rows["h100 full", 2]["fits"] and rows["h100 qlora", 2]["fits"]
    # MFU counts the FLOPs done: a frozen base has no weight gradients.
    assert rows["h100 lora", 8]["mfu"] < rows["h100 full", 8]["mfu"]


def test_methods_refuse_a_second_spelling():
    with pytest.raises(ValueError, match=r"methods= .* or fine_tuning="):
        libscale.compare("qwen3-8b", "h100", gpus=[8], methods=["full", "lora"], fine_tuning="lora")
    with pytest.raises(ValueError, match="distinct"):
        libscale.compare("qwen3-8b", "h100", gpus=[8], methods=["lora", "lora"])
    with pytest.raises(ValueError, match="fine_tuning"):
        libscale.compare("qwen3-8b", "h100", gpus=[8], methods=["full", "lroa"])


@pytest.mark.parametrize(("option", "value", "words"), [
    ("lora_targets", "q_proj,lm_head", ["lora_targets = 'q_proj,lm_head'", "'lm_head'", "all-linear"]),
    ("lora_rank", 0, ["lora_rank", "0"]),
    ("base_weights", "int4", ["base_weights", "nf4_double_quant"]),
    ("fine_tuning", "prefix", ["fine_tuning", "qlora"]),
])
def test_bad_values_name_the_option(option, value, words):
    with pytest.raises(ValueError) as e:
        libscale.Plan("qwen3-8b", "h100", gpus=8, **{option: value})
    for w in words:
        assert w in str(e.value)


def test_rules_across_options():
    with pytest.raises(ValueError, match="fine_tuning = 'full'"):
        libscale.Plan("qwen3-8b", "h100", gpus=8, base_weights="nf4").step()
    with pytest.raises(ValueError, match="4-bit base"):
        libscale.Plan("qwen3-8b", "h100", gpus=8, fine_tuning="qlora", precision="fp8").step()


def test_targets_and_rank_move_the_estimate():
    def memory(**kw):
        return libscale.Plan("llama-3.1-8b", "h100", gpus=1, strategy="ddp", seq_len=2048, **kw).step()

    small = memory(fine_tuning="lora", lora_rank=8, lora_targets="q_proj,v_proj")
    large = memory(fine_tuning="lora", lora_rank=64, lora_targets="all-linear")
    assert small.memory.optimizer_gib < large.memory.optimizer_gib
    # torchtune's names are PEFT's modules.
    same = memory(fine_tuning="lora", lora_rank=64, lora_targets="q_proj,k_proj,v_proj,output_proj,w1,w2,w3")
    assert same.step_time_s == large.step_time_s
    assert same.memory.total_gib == large.memory.total_gib


def test_cli_methods_and_memory_advice():
    out = subprocess.run([sys.executable, "-m", "libscale", "project", "--model", "qwen3-32b", "--hardware", "h100",
                          "--gpus", "8", "--seq-len", "4096", "--methods", "full,qlora"],
                         capture_output=True, text=True, check=True).stdout
    assert "h100 full" in out and "h100 qlora" in out
    advice = subprocess.run([sys.executable, "-m", "libscale", "memory", "--model", "qwen3-32b", "--hardware", "h100",
                             "--gpus", "1", "--strategy", "ddp", "--seq-len", "2048"],
                            capture_output=True, text=True).stdout
    assert "fine_tuning='qlora'" in advice and "another method" in advice


def test_readme_methods_table_is_what_the_command_prints():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    found = re.search(r"\$ libscale (project [^\n]*--methods full,lora,qlora)\n```\n\n```text\n(.*?)\n```", readme,
                      flags=re.S)
    assert found, "README lacks the --methods example and its table"
    out = subprocess.run([sys.executable, "-m", "libscale", *shlex.split(found.group(1))],
                         capture_output=True, text=True, check=True).stdout
    assert found.group(2).strip() in out


def test_report_puts_methods_side_by_side(tmp_path: Path):
    out = tmp_path / "plan.html"
    subprocess.run([sys.executable, "-m", "libscale", "report", "--model", "qwen3-8b", "--hardware", "h100",
                    "--gpus", "1,8", "--seq-len", "4096", "--methods", "full,lora,qlora", "-o", str(out)],
                   capture_output=True, text=True, check=True)
    html = out.read_text(encoding="utf-8")
    assert all(label in html for label in ("h100 full", "h100 lora", "h100 qlora"))


def test_validation_sorts_another_method_into_its_own_category(tmp_path: Path):
    # Two rows of one series, the second trained by LoRA: its own category (d), and the
    # model's own times at a framework efficiency of 0.8 are predicted almost exactly.
    import json

    cal = libscale.default_calibration("h100")
    cal.framework_efficiency = 0.8
    base = dict(kind="step", model="llama-3.1-8b", hardware="h100", gpus=8, gpus_per_node=8, seq_len=4096,
                micro_batch=1, grad_accum=1, activation_checkpointing="full", strategy="fsdp", series="s")
    records = []
    for extra in ({}, {"fine_tuning": "lora", "lora_rank": 16}):
        s = libscale.estimate_step("llama-3.1-8b", "h100", gpus=8, gpus_per_node=8, seq_len=4096, micro_batch=1,
                                   activation_checkpointing="full", calibration=cal, **extra)
        records.append(dict(base, **extra, step_time_s=s.step_time_s))
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"schema": "libscale.measurements/2", "records": records}))
    v = libscale.validate(path)
    assert [r["category"] for r in v.rows()] == ["x", "d"]
    assert abs(v.rows()[1]["calibrated_error"]) < 0.02
    assert v.summary()[3]["rows"] == 1
