"""Golden files: every result class's text, HTML, CSV and JSON on fixed shipped inputs,
compared with the files committed in tests/python/golden/ (<result>.txt / .html / .csv /
.json).

Text and HTML are compared exactly: they are rounded for people, so a last-bit libm
difference between machines does not reach them. CSV and JSON carry full-precision
floats, so they are compared cell by cell / value by value, numbers to a relative 1e-9
and everything else exactly. The date and libscale version in a fit's provenance are
replaced by placeholders before comparing.

After an intended change of output, regenerate the files and review the diff:

    LIBSCALE_UPDATE_GOLDEN=1 PYTHONPATH=<build>/bindings:bindings python -m pytest tests/python/test_golden.py
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import libscale
from libscale.results import Result

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("LIBSCALE_UPDATE_GOLDEN") == "1"
REL = 1e-9

# Inputs are shipped files named relative to the repository root (the results print
# them), and lengths made by arithmetic (no random generator whose stream could change).
MEASUREMENTS = "calibration/data/measurements/torchtitan-llama3.1-8b-h100.json"
TRACE = "examples/traces/nccl-hang.csv"
LENGTHS = [(i * 7919) % 3000 + 40 for i in range(600)]
JOB = dict(gpus_per_node=8, global_batch_tokens=1_048_576, tokens=1e9)


MAKERS: dict[str, Callable[[], Result]] = {
    "step": lambda: libscale.estimate_step("qwen3-32b", "b300", gpus=8, gpus_per_node=8),
    "projection": lambda: libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16, 32], **JOB),
    "solution": lambda: libscale.solve_deadline("qwen3-32b", "b300", deadline_h=2.0, gpus=[8, 16, 32, 64], **JOB),
    "fit_advice": lambda: libscale.fit_advice("qwen3-32b", "h200", gpus=8, micro_batch=4,
                                              activation_checkpointing="none"),
    "sweep": lambda: libscale.sweep("qwen3-32b", "b300", gpus=[[8], [16]], micro_batch=[1, 2], gpus_per_node=8),
    "fit": lambda: libscale.fit(MEASUREMENTS),
    "triage": lambda: libscale.triage(TRACE),
    # each rank packs its own shard: ranks differ by a micro-batch, so the verdict is FAIL
    "gate": lambda: libscale.gate(LENGTHS, world_size=4, seq_len=4096, micro_batch=2, shard_before_packing=True),
    "pack": lambda: libscale.pack(LENGTHS, seq_len=4096),
    "validation": lambda: libscale.validate(MEASUREMENTS),
}


def _normalized(d: Any) -> Any:
    """The JSON with what changes from run to run (a fit's date and version) replaced."""
    if isinstance(d, dict) and isinstance(d.get("provenance"), dict):
        d["provenance"].update(date="<date>", libscale_version="<version>")
    return d


def _outputs(result: Result) -> dict[str, str]:
    doc = _normalized(json.loads(result.to_json()))
    return {"txt": result.text() + "\n", "html": result._repr_html_() + "\n", "csv": result.to_csv(),
            "json": json.dumps(doc, indent=1, ensure_ascii=False) + "\n"}


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _close(a: Any, b: Any, where: str) -> list[str]:
    """Where a and b differ: numbers beyond REL, anything else not equal."""
    if isinstance(a, bool) or isinstance(b, bool) or not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        if isinstance(a, dict) and isinstance(b, dict):
            if list(a) != list(b):
                return [f"{where}: keys {list(a)} != {list(b)}"]
            return [e for k in a for e in _close(a[k], b[k], f"{where}/{k}")]
        if isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return [f"{where}: {len(a)} items != {len(b)}"]
            return [e for i, (x, y) in enumerate(zip(a, b, strict=True)) for e in _close(x, y, f"{where}[{i}]")]
        return [] if a == b and type(a) is type(b) else [f"{where}: {a!r} != {b!r}"]
    return [] if math.isclose(a, b, rel_tol=REL, abs_tol=1e-300) else [f"{where}: {a!r} != {b!r}"]


def _csv_cells(text: str) -> list[list[Any]]:
    return [[_number(c) if _number(c) is not None else c for c in row] for row in csv.reader(io.StringIO(text))]


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("name", list(MAKERS))
def test_golden(name: str) -> None:
    outputs = _outputs(MAKERS[name]())
    for ext, got in outputs.items():
        path = GOLDEN / f"{name}.{ext}"
        if UPDATE:
            GOLDEN.mkdir(exist_ok=True)
            path.write_text(got, encoding="utf-8")
            continue
        assert path.exists(), f"{path} missing: run with LIBSCALE_UPDATE_GOLDEN=1"
        want = path.read_text(encoding="utf-8")
        if ext in ("txt", "html"):
            assert got == want, f"{path.name} differs (LIBSCALE_UPDATE_GOLDEN=1 regenerates it)"
        elif ext == "csv":
            diffs = _close(_csv_cells(got), _csv_cells(want), path.name)
            assert not diffs, "\n".join(diffs[:20])
        else:
            diffs = _close(json.loads(got), json.loads(want), path.name)
            assert not diffs, "\n".join(diffs[:20])


def test_json_carries_its_schema_tag() -> None:
    """Every golden JSON names its format, the class's SCHEMA (libscale.<name>/1)."""
    for name, make in MAKERS.items():
        r = make()
        assert r.to_dict()["schema"] == type(r).SCHEMA == f"libscale.{name}/1"


def test_comparison_catches_a_changed_number() -> None:
    """The tolerant comparison still fails on a real change (and passes a last-bit one)."""
    assert _close({"a": [1.0, "x"]}, {"a": [1.0 * (1 + 1e-12), "x"]}, "") == []
    assert _close({"a": [1.0]}, {"a": [1.001]}, "") != []
    assert _close({"a": True}, {"a": 1}, "") != []
    assert _close(_csv_cells("a,b\n1.5,x\n"), _csv_cells("a,b\n1.5000001,x\n"), "") != []
