"""The `libscale` command line: the budget-script JSON contract, the human tables, every
command's --json, and one line on stderr with status 2 for each kind of bad input."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import libscale
from conftest import CONTRACT, QWEN3_32B_PARAMETERS, UNCALIBRATED, run_cli

ROW_FIELDS = ["gpus", "step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "hfu", "scaling_efficiency",
              "speedup", "memory_gib", "wall_time_h", "gpu_hours", "cost_usd", "energy_kwh", "compute_s",
              "gemm_s", "attention_s", "memory_bound_s", "host_wait_s",
              "comm_s", "exposed_comm_s", "optimizer_s", "data_s", "checkpoint_s", "grad_accum", "comm_hidden",
              "fits", "fit_status", "needed_gib", "available_gib", "fit_suggestion", "memory"]
MEMORY_FIELDS = ["weights_gib", "grads_gib", "optimizer_gib", "activations_gib", "logits_gib", "buffers_gib",
                 "fragmentation_gib", "reserved_gib", "total_gib", "available_gib", "margin", "status", "fits"]


def table_rows(text: str, first: str = "GPUs") -> list[list[str]]:
    """The cells of the first table whose header starts with `first` (to the blank line)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


# --- the JSON contract ---------------------------------------------------------------


def test_contract_json_has_every_field(contract_json):
    d = contract_json
    assert d["model"]["name"] == "qwen3-32b"
    assert d["model"]["parameters"] == QWEN3_32B_PARAMETERS and isinstance(d["model"]["parameters"], int)
    assert d["hardware"]["name"] == "b300"
    assert d["calibration"]["kind"] == "default" and d["calibration"]["source"]
    cfg = d["config"]
    assert (cfg["gpus"], cfg["gpus_per_node"], cfg["seq_len"], cfg["micro_batch"], cfg["global_batch_tokens"],
            cfg["activation_checkpointing"], cfg["strategy"]) == ([4, 8, 16], 8, 8192, 1, 1_048_576, "full", "fsdp")
    assert [r["gpus"] for r in d["rows"]] == [4, 8, 16]
    for r in d["rows"]:
        for f in ROW_FIELDS:
            assert f in r, f
        for part in MEMORY_FIELDS:
            assert part in r["memory"], part
        # the compute parts add up; the verdict is the memory's
        assert r["compute_s"] == pytest.approx(r["gemm_s"] + r["attention_s"] + r["memory_bound_s"]
                                               + r["host_wait_s"])
        assert (r["fits"], r["fit_status"], r["needed_gib"], r["available_gib"]) == (
            r["memory"]["fits"], r["memory"]["status"], r["memory"]["total_gib"], r["memory"]["available_gib"])
    assert "comm_exposed_from_gpus" in d


def test_contract_json_is_self_consistent(contract_json):
    d = contract_json
    price = d["hardware"]["price_per_gpu_hour_usd"]
    for r in d["rows"]:
        assert r["gpu_hours"] == pytest.approx(r["gpus"] * r["wall_time_h"])
        # whole optimizer steps, each a step time
        steps = math.ceil(1e9 / r["tokens_per_step"])
        assert steps * r["step_time_s"] / 3600 == pytest.approx(r["wall_time_h"])
        assert r["cost_usd"] == pytest.approx(r["gpu_hours"] * price)
        assert r["tokens_per_s"] == pytest.approx(1_048_576 / r["step_time_s"])
        assert r["grad_accum"] == 1_048_576 // (r["gpus"] * 8192)
        assert r["memory_gib"] == r["memory"]["total_gib"]


def test_contract_json_equals_the_python_api(contract_json):
    p = libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16], gpus_per_node=8, seq_len=8192, micro_batch=1,
                         global_batch_tokens=1_048_576, activation_checkpointing="full", tokens=1e9)
    for r, row in zip(contract_json["rows"], p.rows, strict=True):
        assert r["step_time_s"] == row.step.step_time_s      # JSON round-trips doubles exactly
        assert r["gpu_hours"] == row.gpu_hours
    assert contract_json["comm_exposed_from_gpus"] == p.comm_exposed_from_gpus


def test_contract_human_output(contract_json):
    out = run_cli(CONTRACT)
    assert out.returncode == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    header = lines[0]
    assert "qwen3-32b" in header and f"{QWEN3_32B_PARAMETERS:,}" in header and "b300" in header
    assert "fsdp" in header and "1,048,576" in header and UNCALIBRATED in header
    table_head = next(ln for ln in lines if ln.startswith("GPUs"))
    for col in ("nodes", "grad accum", "step s", "tokens/s", "tokens/s/GPU", "MFU %", "scaling eff %",
                "memory GiB", "fits", "wall h", "GPU-h", "cost $", "energy kWh"):
        assert col in table_head, col
    body = table_rows(out.stdout)
    assert [b[0] for b in body] == ["4", "8", "16"]
    for cells, r in zip(body, contract_json["rows"], strict=True):
        assert cells[3] == f"{r['step_time_s']:.3f}"
        assert cells[8] == "yes" and r["fit_status"] == "fits"
        assert cells[10] == f"{r['wall_time_h']:.2f}"
    # the step by part: compute and its GEMM / attention / memory-bound / host-wait parts
    parts_head = lines[lines.index(next(ln for ln in lines if ln.startswith("time per step by part"))) + 1]
    for col in ("compute s", "GEMM s", "attention s", "memory-bound s", "host wait s", "exposed comm s"):
        assert col in parts_head, col
    parts = table_rows("\n".join(lines[lines.index(parts_head):]))
    for cells, r in zip(parts, contract_json["rows"], strict=True):
        assert cells[:6] == [str(r["gpus"])] + [f"{r[k]:,.3f}" for k in ("compute_s", "gemm_s", "attention_s",
                                                                            "memory_bound_s", "host_wait_s")]
    n = contract_json["comm_exposed_from_gpus"]
    if n is None:
        assert "hides under compute at every GPU count" in lines[-1]
    else:
        assert f"{n} GPUs" in lines[-1] and "hiding" in lines[-1]


def test_price_epochs_and_options(contract_json):
    args = [("8,16" if a == "4,8,16" else a) for a in CONTRACT]
    out = run_cli(args + ["--json", "--price-per-gpu-hour", "2", "--epochs", "2", "--reduce-dtype", "fp32",
                          "--no-reshard-after-forward", "--grad-sync", "last_micro_batch"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["config"]["reduce_dtype"] == "fp32" and d["config"]["reshard_after_forward"] is False
    assert d["config"]["grad_sync"] == "last_micro_batch"
    for r in d["rows"]:
        assert r["cost_usd"] == pytest.approx(2 * r["gpu_hours"])
        assert r["wall_time_h"] == pytest.approx(math.ceil(2e9 / r["tokens_per_step"]) * r["step_time_s"] / 3600)
    assert d["rows"][0]["step_time_s"] != contract_json["rows"][1]["step_time_s"]   # 8 GPUs both


def test_model_and_hardware_paths(tmp_path, contract_json):
    model = tmp_path / "qwen.json"
    model.write_text(libscale._core.io.catalog_file("models/qwen3-32b.json"))
    hw = tmp_path / "hw.json"
    hw.write_text(libscale._core.io.catalog_file("hardware/b300.json"))
    args = [str(model) if a == "qwen3-32b" else str(hw) if a == "b300" else a for a in CONTRACT]
    out = run_cli(args + ["--json"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["model"]["parameters"] == QWEN3_32B_PARAMETERS
    assert [r["step_time_s"] for r in d["rows"]] == [r["step_time_s"] for r in contract_json["rows"]]


# --- other commands ------------------------------------------------------------------


def test_models_command():
    out = run_cli(["models"])
    assert out.returncode == 0
    assert "parameters" in out.stdout and "heads/kv" in out.stdout
    assert f"{QWEN3_32B_PARAMETERS:,}" in out.stdout
    d = json.loads(run_cli(["models", "--json"]).stdout)
    names = [m["name"] for m in d["models"]]
    assert names == libscale.models()
    assert d["models"][names.index("qwen3-32b")]["parameters"] == QWEN3_32B_PARAMETERS


def test_hardware_command(b300):
    out = run_cli(["hardware"])
    assert out.returncode == 0
    for name in libscale.hardware_names():
        assert name in out.stdout
    assert "TFLOP/s" in out.stdout and "HBM GiB" in out.stdout
    d = json.loads(run_cli(["hardware", "--json"]).stdout)
    assert [h["name"] for h in d["hardware"]] == libscale.hardware_names()
    one = json.loads(run_cli(["hardware", "b300", "--json"]).stdout)
    assert one["hardware"]["hbm_gib"] == b300.hbm_gib and one["calibration"]["kind"] == "default"
    assert one["hardware"]["peak_fp8_tflops"] == b300.peak_fp8_tflops and one["hardware"]["sm_count"] == b300.sm_count
    assert one["calibration"]["gemm"]["eta_max"] == libscale.default_calibration(b300).gemm.eta_max
    text = run_cli(["hardware", "b300"]).stdout
    assert "default (uncalibrated)" in text
    # every coefficient of the calibration, by its dotted name, with its unit
    for c in libscale._core.calibrate.calibration_coefficients():
        line = next(ln for ln in text.splitlines() if ln.split()[:1] == [c["name"]])
        assert c["unit"] in line and c["help"] in line


def test_sweep_command_is_the_cartesian_product():
    args = ["sweep", "--model", "qwen3-32b", "--hardware", "b300", "--gpus", "8,12,16", "--micro-batch", "1,2",
            "--seq-len", "4096,8192", "--global-batch-tokens", "1048576"]
    out = run_cli(args + ["--json"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    rows = d["rows"]
    assert len(rows) == 12 and d["shape"] == [3, 2, 2, 1]
    combos = [(r["gpus"], r["micro_batch"], r["seq_len"]) for r in rows]
    assert combos == [(g, m, s) for g in (8, 12, 16) for m in (1, 2) for s in (4096, 8192)]
    for r in rows:
        if r["gpus"] == 12:
            assert r["issue"] != 0 and r["step_time_s"] is None and "multiple" in r["issue_text"]
        else:
            e = libscale.estimate_step("qwen3-32b", "b300", gpus=r["gpus"], micro_batch=r["micro_batch"],
                                       seq_len=r["seq_len"], global_batch_tokens=1_048_576)
            assert r["step_time_s"] == e.step_time_s and r["grad_accum"] == e.grad_accum
    human = run_cli(args)
    assert human.returncode == 0 and "tokens/s/GPU" in human.stdout and "memory GiB" in human.stdout


def test_solve_command():
    base = ["solve", "--model", "qwen3-32b", "--hardware", "b300", "--gpus", "4,8,16,32",
            "--global-batch-tokens", "1048576"]
    p = libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16, 32], global_batch_tokens=1_048_576)
    deadline = p.rows[2].wall_time_h * 1.01
    out = run_cli(base + ["--deadline-h", str(deadline), "--json"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["found"] and d["row"]["gpus"] == 16
    human = run_cli(base + ["--deadline-h", str(deadline)])
    assert human.returncode == 0 and "16 GPUs" in human.stdout.splitlines()[-1]
    budget = json.loads(run_cli(base + ["--max-cost-usd", "1e6", "--json"]).stdout)
    assert budget["row"]["gpus"] == 32
    missed = run_cli(base + ["--deadline-h", "0.01"])
    assert missed.returncode == 1 and "no GPU count" in missed.stderr
    assert "takes at least" in missed.stderr.splitlines()[-1] and "no GPU count" not in missed.stdout


def test_version_and_help():
    out = run_cli(["--version"])
    assert out.returncode == 0 and libscale.__version__ in out.stdout
    assert run_cli(["project", "--help"]).returncode == 0


def test_installed_console_script():
    exe = shutil.which("libscale") or str(Path(sys.executable).parent / "libscale")
    if not Path(exe).exists():
        pytest.skip("the libscale console script is not installed (development build)")
    out = subprocess.run([exe, *CONTRACT, "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["model"]["parameters"] == QWEN3_32B_PARAMETERS


# --- bad input: status 2, one line on stderr ---------------------------------------------

PROJECT = ["project", "--model", "qwen3-32b", "--hardware", "b300"]


def bad_json(tmp_path: Path) -> str:
    p = tmp_path / "broken.json"
    p.write_text('{\n  "hidden_size": 5120,\n  "num_hidden_layers": 64,,\n}\n')
    return str(p)


BAD_INPUTS = {
    "unknown model": (["project", "--model", "qwen3-31b", "--hardware", "b300", "--gpus", "8"],
                      ["unknown model 'qwen3-31b'", "qwen3-32b"]),
    "unknown hardware": (["project", "--model", "qwen3-32b", "--hardware", "b301", "--gpus", "8"],
                         ["unknown hardware 'b301'", "b300"]),
    "gpus not integers": (PROJECT + ["--gpus", "4,x"], ["--gpus: '4,x'", "positive integers"]),
    "gpus not positive": (PROJECT + ["--gpus", "4,0"], ["--gpus: '4,0'"]),
    "hsdp partial node": (PROJECT + ["--gpus", "12", "--gpus-per-node", "8", "--strategy", "hsdp"],
                          ["does not fill whole nodes", "multiple of 8"]),
    "global batch not divisible": (PROJECT + ["--gpus", "4,8,16", "--global-batch-tokens", "1000000"],
                                   ["global_batch_tokens = 1000000", "nearest valid"]),
    "seq len too long": (PROJECT + ["--gpus", "8", "--seq-len", "65536"],
                         ["seq_len = 65536", "max_position_embeddings = 40960"]),
    "does not fit": (["project", "--model", "qwen3-32b", "--hardware", "h100", "--gpus", "4", "--require-fit"],
                     ["does not fit on 4 × h100", "GiB per GPU", "80.0 GiB available", "to fit, try"]),
    "solve does not fit": (["solve", "--model", "qwen3-32b", "--hardware", "h100", "--gpus", "4,16",
                            "--deadline-h", "1000", "--require-fit"], ["does not fit on 4 × h100", "to fit, try"]),
    "sweep does not fit": (["sweep", "--model", "qwen3-32b", "--hardware", "h100", "--gpus", "16,4",
                            "--require-fit"], ["does not fit on 4 × h100", "to fit, try"]),
    "fp8 on a100": (["project", "--model", "qwen3-8b", "--hardware", "a100", "--gpus", "8", "--precision", "fp8"],
                    ["precision = 'fp8'", "a100 has no fp8 tensor cores"]),
    "bad optimizer": (PROJECT + ["--gpus", "8", "--optimizer", "lion"], ["optimizer", "lion", "adamw_8bit"]),
    "bad attention kernel": (PROJECT + ["--gpus", "8", "--attention-kernel", "flash4"],
                             ["attention_kernel", "flash4", "flash2"]),
    "checkpoint every too large": (PROJECT + ["--gpus", "8", "--checkpoint-every", "65"],
                                   ["checkpoint_every = 65"]),
    "fp8 all-gather without fp8": (PROJECT + ["--gpus", "8", "--fp8-all-gather"], ["fp8_all_gather"]),
    "bad strategy": (PROJECT + ["--gpus", "8", "--strategy", "zero4"], ["strategy = 'zero4'"]),
    "bad number": (PROJECT + ["--gpus", "8", "--tokens", "lots"], ["--tokens: 'lots'"]),
    "missing option": (["project", "--model", "qwen3-32b", "--gpus", "8"], ["--hardware"]),
    "unknown command": (["frobnicate"], ["invalid choice"]),
    "solve without target": (["solve", "--model", "qwen3-32b", "--hardware", "b300"], ["--deadline-h"]),
    "sweep bad list": (["sweep", "--model", "qwen3-32b", "--hardware", "b300", "--gpus", "8",
                        "--micro-batch", "1,two"], ["--micro-batch: '1,two'"]),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_exits_2_with_one_line(case):
    args, expected = BAD_INPUTS[case]
    out = run_cli(args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("libscale: error: ")
    for text in expected:
        assert text in lines[0], (text, lines[0])
    assert out.stdout == ""


@pytest.mark.parametrize("flag", ["--model", "--hardware"])
def test_malformed_json_file_names_file_and_line(tmp_path, flag):
    args = {"--model": "qwen3-32b", "--hardware": "b300"}
    args[flag] = bad_json(tmp_path)
    out = run_cli(["project", "--model", args["--model"], "--hardware", args["--hardware"], "--gpus", "8"])
    assert out.returncode == 2 and "Traceback" not in out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and f"{args[flag]}:3:" in lines[0] and "malformed JSON" in lines[0]


# --- memory: counts that do not fit are shown, not refused -------------------------------

H100_32B = ["project", "--model", "qwen3-32b", "--hardware", "h100", "--gpus", "4,8,16",
            "--global-batch-tokens", "1048576"]


def test_not_fitting_counts_exit_0_with_the_verdict_and_what_would_fit():
    d = json.loads(run_cli(H100_32B + ["--json"]).stdout)
    status = {r["gpus"]: r["fit_status"] for r in d["rows"]}
    assert status[4] == "does_not_fit" and status[16] == "fits"
    out = run_cli(H100_32B)
    assert out.returncode == 0 and out.stderr == ""
    body = {cells[0]: " ".join(cells) for cells in table_rows(out.stdout)}
    for r in d["rows"]:
        text = {"fits": "yes", "uncertain": f"uncertain ({r['needed_gib']:,.1f} vs {r['available_gib']:,.1f} GiB)",
                "does_not_fit": f"NO ({r['needed_gib']:,.1f} > {r['available_gib']:,.1f} GiB)"}[r["fit_status"]]
        assert text in body[str(r["gpus"])], (text, body[str(r["gpus"])])
        if r["fit_status"] != "fits":
            # one line under the table: needed vs available and the core's suggestion
            note = next(line for line in out.stdout.splitlines() if line.startswith(f"{r['gpus']} GPUs "))
            assert f"{r['needed_gib']:,.1f} GiB per GPU needed" in note and r["fit_suggestion"] in note
            assert r["fit_suggestion"].startswith("to fit, try")
    assert not any(line.startswith("16 GPUs ") for line in out.stdout.splitlines())
    refused = run_cli(H100_32B + ["--require-fit"])
    assert refused.returncode == 2 and refused.stdout == "" and len(refused.stderr.splitlines()) == 1
    assert "does not fit on 4 × h100" in refused.stderr and d["rows"][0]["fit_suggestion"] in refused.stderr
    fine = run_cli(H100_32B[:6] + ["16,32"] + H100_32B[7:] + ["--require-fit", "--json"])
    assert fine.returncode == 0 and all(r["fits"] for r in json.loads(fine.stdout)["rows"])


def test_solve_and_sweep_show_counts_that_do_not_fit():
    base = ["--model", "qwen3-32b", "--hardware", "h100", "--global-batch-tokens", "1048576"]
    d = json.loads(run_cli(["solve", *base, "--gpus", "4,16", "--deadline-h", "1000", "--json"]).stdout)
    assert [(r["gpus"], r["fits"]) for r in d["candidates"]] == [(4, False), (16, True)]
    assert d["found"] and d["row"]["gpus"] == 16
    human = run_cli(["solve", *base, "--gpus", "4,16", "--deadline-h", "1000"])
    assert human.returncode == 0 and "NO (" in human.stdout and "16 GPUs" in human.stdout.splitlines()[-1]
    sweep = run_cli(["sweep", *base, "--gpus", "4,16", "--json"])
    assert sweep.returncode == 0
    assert [(r["gpus"], r["fits"]) for r in json.loads(sweep.stdout)["rows"]] == [(4, False), (16, True)]


# --- every new training option reaches the core ------------------------------------------

B300_8 = ["project", "--model", "qwen3-32b", "--hardware", "b300", "--gpus", "8", "--json"]


@pytest.mark.parametrize("flags, config", [
    (["--precision", "fp8"], {"precision": "fp8"}),
    (["--precision", "fp8", "--fp8-all-gather"], {"precision": "fp8", "fp8_all_gather": True}),
    (["--optimizer", "adamw_8bit"], {"optimizer": "adamw_8bit"}),
    (["--optimizer", "adafactor", "--master-weights", "bf16"], {"optimizer": "adafactor", "master_weights": "bf16"}),
    (["--loss-kernel", "fused"], {"loss_kernel": "fused"}),
    (["--attention-kernel", "flash3"], {"attention_kernel": "flash3"}),
    (["--torch-compile"], {"torch_compile": True}),
    (["--checkpoint-every", "4"], {"checkpoint_every": 4}),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_option_flags_reach_the_core(flags, config):
    out = run_cli(B300_8 + flags)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    for k, v in config.items():
        assert d["config"][k] == v, k
    (row,) = d["rows"]
    s = libscale.estimate_step("qwen3-32b", "b300", gpus=8, **config)
    assert row["step_time_s"] == s.step_time_s and row["memory_gib"] == s.memory_gib
    default = libscale.estimate_step("qwen3-32b", "b300", gpus=8)
    assert (row["step_time_s"], row["memory_gib"]) != (default.step_time_s, default.memory_gib)


def test_header_names_options_off_their_defaults():
    out = run_cli(B300_8[:-1] + ["--precision", "fp8", "--torch-compile", "--optimizer", "sgd"])
    assert out.returncode == 0, out.stderr
    assert "precision fp8, optimizer sgd, torch_compile" in out.stdout.splitlines()[0]
    plain = run_cli(B300_8[:-1]).stdout.splitlines()[0]
    assert "precision" not in plain and "optimizer" not in plain


def test_optimizer_flag_lowers_memory_by_its_bytes_per_parameter(b300):
    # AdamW keeps 4 (fp32 master) + 8 (m, v) bytes per parameter, 8-bit AdamW 4 + 2: six fewer
    # bytes per parameter on each GPU's 1/8 shard, plus the allocator's fragmentation share.
    ref = json.loads(run_cli(B300_8).stdout)["rows"][0]
    low = json.loads(run_cli(B300_8 + ["--optimizer", "adamw_8bit"]).stdout)["rows"][0]
    frag = libscale.default_calibration(b300).fragmentation
    assert ref["memory_gib"] - low["memory_gib"] == pytest.approx(
        6 * QWEN3_32B_PARAMETERS / 8 / 2**30 * (1 + frag), rel=1e-9)
    assert ref["memory"]["optimizer_gib"] - low["memory"]["optimizer_gib"] == pytest.approx(
        6 * QWEN3_32B_PARAMETERS / 8 / 2**30, rel=1e-9)


# --- inputs the core refuses: one line, exit 2 -------------------------------------------


def test_v1_calibration_file_is_refused(tmp_path):
    # A libscale.calibration/1 file: one efficiency for every FLOP, which the per-operation
    # model cannot use.
    v1 = tmp_path / "old-cal.json"
    v1.write_text(json.dumps({"schema": "libscale.calibration/1", "kind": "fitted", "hardware": "b300",
                              "coefficients": {"eta_max": 0.454, "half_saturation_tokens": 0}}))
    out = run_cli(["project", "--model", "qwen3-32b", "--hardware", "b300", "--gpus", "8",
                   "--calibration", str(v1)])
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    (line,) = out.stderr.splitlines()
    assert line.startswith("libscale: error: ") and "old-cal.json" in line
    assert "libscale.calibration/1" in line and "eta_max = 0.454" in line and "libscale fit" in line
    with pytest.raises(libscale.ParseError, match="calibration/1"):
        libscale.read_calibration(v1, "b300")


@pytest.mark.parametrize("config, expected", [
    ({"model_type": "llama", "num_local_experts": 8}, ["mixture-of-experts", "does not read",
                                                        "mixtral, olmoe, qwen2_moe, qwen3_moe"]),
    ({"model_type": "deepseek_v3"}, ["model_type 'deepseek_v3'", "mixture-of-experts"]),
    ({"model_type": "mamba"}, ["model_type 'mamba' is not supported", "llama"]),
], ids=["experts-key", "moe-type", "unknown-type"])
def test_unsupported_model_type_is_refused(tmp_path, config, expected):
    cfg = {"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 4, "num_attention_heads": 8,
           "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 4096, **config}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    out = run_cli(["project", "--model", str(path), "--hardware", "h100", "--gpus", "8"])
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    (line,) = out.stderr.splitlines()
    assert line.startswith("libscale: error: ") and "config.json" in line
    for text in expected:
        assert text in line, (text, line)
    assert "supported model_type" in line or "supported:" in line
    assert set(libscale._core.io.supported_model_types()) >= {"llama", "qwen3", "gpt2"}
