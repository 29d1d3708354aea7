"""`--format table|json|csv` on every command: parseable output whose figures are the
Python API's; the schema's options all reach the command line; a refused value names its flag."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

import libscale
from conftest import ROOT
from libscale import cli, options

MEAS = ROOT / "calibration" / "data" / "measurements" / "torchtitan-llama3.1-8b-h100.json"
TRACE = ROOT / "examples" / "traces" / "nccl-hang.csv"
SMALL = ["--model", "qwen3-0.6b", "--hardware", "h100"]


def run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    """libscale ARGS in-process: (status, stdout, stderr)."""
    try:
        status = cli.main(args)
    except SystemExit as e:
        status = int(e.code or 0)
    out = capsys.readouterr()
    return status, out.out, out.err


def commands(tmp: Path) -> dict[str, tuple[list[str], str, int]]:
    """name -> (arguments, schema tag, exit status); the files are made in tmp when it exists."""
    lengths = tmp / "lengths.jsonl"
    if tmp.is_dir():
        lengths.write_text("".join(json.dumps({"length": (i * 37) % 500 + 1}) + "\n" for i in range(200)))
    return {
        "project": (["project", *SMALL, "--gpus", "1,8"], "libscale.projection/1", 0),
        "sweep": (["sweep", *SMALL, "--gpus", "4,8", "--micro-batch", "1,2"], "libscale.sweep/1", 0),
        "solve": (["solve", *SMALL, "--gpus", "1,8", "--deadline-h", "1000"], "libscale.solution/1", 0),
        "layouts": (["layouts", *SMALL, "--gpus", "16", "--intervals", "2", "--samples", "50"],
                    "libscale.layouts/1", 0),
        "memory": (["memory", "--model", "qwen3-32b", "--hardware", "h100", "--gpus", "4", "--seq-len", "4096"],
                   "libscale.fit_advice/1", 1),  # does not fit: CSV has a row per change
        "gate": (["gate", "--lengths", str(lengths), "--world-size", "4", "--seq-len", "1024"], "libscale.gate/1", 0),
        "models": (["models"], "libscale.models/1", 0),
        "hardware": (["hardware"], "libscale.hardware_list/1", 0),
        "hardware h100": (["hardware", "h100"], "libscale.hardware_list/1", 0),
        "triage": (["triage", str(TRACE)], "libscale.triage/1", 0),
        "fit": (["fit", str(MEAS), "-o", str(tmp / "fitted.json")], "libscale.fit/1", 0),
        "validate": (["validate", str(MEAS)], "libscale.validation/1", 0),
    }


def test_every_command_is_covered() -> None:
    names = {cli.command_name(c) for c in cli.COMMANDS}
    # watch: below; report writes an HTML page (tests/python/test_report.py); trainer-steps
    # needs torch (its formats: tests/python/test_trainer_steps.py)
    assert names - {"watch", "report", "trainer-steps"} == {n.split()[0] for n in commands(Path("/nonexistent"))}


@pytest.mark.parametrize("name", list(commands(Path("/nonexistent"))))
def test_every_command_in_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    args, tag, expected = commands(tmp_path)[name]
    status, out, err = run(capsys, [*args, "--format", "json"])
    assert status == expected, err
    d = json.loads(out)
    assert d["schema"] == tag
    status, alias, _ = run(capsys, [*args, "--json"])
    assert status == expected and json.loads(alias).keys() == d.keys()
    status, out, err = run(capsys, [*args, "--format", "csv"])
    assert status == expected, err
    rows = list(csv.reader(io.StringIO(out)))
    assert len(rows) >= 2 and all(len(r) == len(rows[0]) for r in rows), out
    status, table, err = run(capsys, [*args, "--format", "table"])
    assert status == expected and table.strip() and not table.lstrip().startswith("{"), err
    status, default, _ = run(capsys, args)
    if name != "fit":  # fit's table names the date-stamped file it wrote: same text, same file
        assert default == table


@pytest.mark.parametrize("command", [cli.command_name(c) for c in cli.COMMANDS])
def test_help_of_every_command(capsys: pytest.CaptureFixture[str], command: str) -> None:
    status, out, _ = run(capsys, [command, "--help"])
    assert status == 0 and f"usage: libscale {command}" in out and ("--format" in out or command == "report")


def _csv_dicts(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_project_outputs_equal_the_python_api(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["project", *SMALL, "--gpus", "1,8", "--seq-len", "4096", "--tokens", "2e9"]
    p = libscale.project("qwen3-0.6b", "h100", gpus=[1, 8], seq_len=4096, tokens=2e9)
    api = p.to_dict()["rows"]
    d = json.loads(run(capsys, [*args, "--format", "json"])[1])
    assert [r["tokens_per_s"] for r in d["rows"]] == pytest.approx([r["tokens_per_s"] for r in api], rel=1e-12)
    rows = _csv_dicts(run(capsys, [*args, "--format", "csv"])[1])
    assert [int(r["gpus"]) for r in rows] == [1, 8]
    assert [float(r["wall_time_h"]) for r in rows] == pytest.approx([r["wall_time_h"] for r in api], rel=1e-12)
    assert run(capsys, args)[1].strip() == p.text().strip()


def test_sweep_csv_is_the_cartesian_product(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _csv_dicts(run(capsys, ["sweep", *SMALL, "--gpus", "4,8", "--micro-batch", "1,2", "--format", "csv"])[1])
    assert [(int(r["gpus"]), int(r["micro_batch"])) for r in rows] == [(4, 1), (4, 2), (8, 1), (8, 2)]
    one = libscale.Plan("qwen3-0.6b", "h100", gpus=8, micro_batch=2).step()
    assert float(rows[3]["tokens_per_s"]) == pytest.approx(one.tokens_per_s, rel=1e-9)


def test_solve_csv_marks_the_chosen_count(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _csv_dicts(run(capsys, ["solve", *SMALL, "--gpus", "1,8", "--deadline-h", "1000", "--format", "csv"])[1])
    s = libscale.solve_deadline("qwen3-0.6b", "h100", deadline_h=1000, gpus=[1, 8])
    assert [int(r["gpus"]) for r in rows if r["chosen"] == "True"] == [s.row.step.gpus]


def test_models_and_hardware_csv_are_the_tables_rows(capsys: pytest.CaptureFixture[str]) -> None:
    models = _csv_dicts(run(capsys, ["models", "--format", "csv"])[1])
    spec = libscale.model("qwen3-0.6b")
    row = next(r for r in models if r["name"] == "qwen3-0.6b")
    assert int(row["num_layers"]) == spec.num_layers and row["heads"] == f"{spec.num_heads}/{spec.num_kv_heads}"
    hw = _csv_dicts(run(capsys, ["hardware", "h100", "--format", "csv"])[1])
    assert len(hw) == 1 and float(hw[0]["hbm_gib"]) == pytest.approx(libscale.hardware("h100").hbm_gib)


def test_triage_and_gate_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    phases = _csv_dicts(run(capsys, ["triage", str(TRACE), "--format", "csv"])[1])
    t = libscale.triage(TRACE)
    assert [r["phase"] for r in phases] == list(t.job_totals)
    assert sum(float(r["seconds"]) for r in phases) == pytest.approx(sum(v["seconds"] for v in t.job_totals.values()))
    args, _, _ = commands(tmp_path)["gate"]
    ranks = _csv_dicts(run(capsys, [*args, "--format", "csv"])[1])
    assert [int(r["rank"]) for r in ranks] == [0, 1, 2, 3]


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_watch_event_formats(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    status, out, err = run(capsys, ["watch", "--speed", "20000", "--deadlock-after-s", "60", "--nvidia-smi-csv",
                                    str(TRACE), "--dry-run", "--format", fmt])
    assert status == 0, err
    if fmt == "json":
        events = [json.loads(line) for line in out.splitlines()]
    elif fmt == "csv":
        events = _csv_dicts(out)
    else:
        events = [{"event": line.split()[4] if line.startswith("t = ") else line.split()[0]}
                  for line in out.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "exit" and "alert" in kinds
    if fmt != "table":
        assert {e["schema"] for e in events} == {"libscale.watch_event/1"}


def _flags(parser: Any) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings}


@pytest.mark.parametrize(("command", "groups"), [
    ("project", {"training": "", "data": "data", "checkpoint": "checkpoint", "job": ""}),
    ("solve", {"training": "", "data": "data", "checkpoint": "checkpoint", "job": ""}),
    ("sweep", {"training": "", "data": "data", "checkpoint": "checkpoint"}),
    ("triage", {"triage": ""}),
    ("watch", {"triage": "", "watch": ""}),
])
def test_every_schema_option_is_a_flag(command: str, groups: dict[str, str]) -> None:
    """A new option in the core's schema reaches the command line with no CLI change."""
    from libscale.cli._docs import command_parser

    flags = _flags(command_parser(command))
    for group, prefix in groups.items():
        declared = options.options(group)
        derived = {o.name: "--" + ("no-" if o.type == "boolean" and o.default else "")
                   + (f"{prefix}_{o.name}" if prefix else o.name).replace("_", "-") for o in declared}
        assert len(derived) == len(declared) and set(derived.values()) <= flags, (group, set(derived.values()) - flags)


@pytest.mark.parametrize(("args", "expected"), [
    (["--seq-len", "-1"], ["--seq-len", "-1"]),
    (["--tokens", "-5"], ["--tokens", "-5"]),
    (["--data-bytes-per-token", "-2"], ["--data-bytes-per-token", "-2"]),
    (["--data", '{"bytes_per_token": -2}'], ["--data", "bytes_per_token", "-2"]),
    (["--checkpoint-write-gbps", "-1"], ["--checkpoint-write-gbps-per-node", "-1"]),
    (["--strategy", "zero4"], ["--strategy", "zero4", "fsdp"]),
])
def test_refused_value_names_its_flag(capsys: pytest.CaptureFixture[str], args: list[str],
                                      expected: list[str]) -> None:
    status, out, err = run(capsys, ["project", *SMALL, "--gpus", "8", *args])
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert all(e in err for e in expected), err


def test_old_spellings_are_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["project", *SMALL, "--gpus", "8", "--format", "json"]
    old = json.loads(run(capsys, [*base, "--price-per-gpu-hour", "2.5", "--checkpoint-write-gbps", "3",
                                  "--checkpoint-every-steps", "100"])[1])
    new = json.loads(run(capsys, [*base, "--price-per-gpu-hour-usd", "2.5", "--checkpoint-write-gbps-per-node", "3",
                                  "--checkpoint-every-steps", "100"])[1])
    assert old["rows"] == new["rows"] and old["rows"][0]["cost_usd"] == pytest.approx(
        old["rows"][0]["gpu_hours"] * 2.5)


def test_log_keyword_error_names_its_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log that lacks seq_len: the parser tags the error with the field; the CLI says the flag."""
    log = ROOT / "tests" / "python" / "data" / "logs" / "hf_trainer_new.log"
    out = tmp_path / "cal.json"
    status, _, err = run(capsys, ["fit", str(log), "--model", "llama-3.1-8b", "--hardware", "h100", "-o", str(out)])
    assert status == 2 and err.startswith("libscale: error: --seq-len: ") and not out.exists()
