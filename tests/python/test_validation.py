"""The validation against published step timings (docs/model.md, "Validation"): the
README's table is what `validate()` computes today, and the shipped series cover what the
protocol promises."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import libscale

ROOT = Path(__file__).resolve().parents[2]
MEASUREMENTS = ROOT / "calibration" / "data" / "measurements"


def test_readme_table_is_recomputed():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- validation -->\n(.*?)\n<!-- /validation -->", readme, flags=re.S)
    assert shown, "README lacks the <!-- validation --> block"
    assert shown.group(1).strip() == libscale.validate().markdown().strip()


def test_no_published_run_is_refused():
    v = libscale.validate()
    assert v.report.not_fitting == 0
    assert all(r["fit_status"] != "does_not_fit" for r in v.rows())


def test_series_cover_sizes_lengths_and_gpus():
    v = libscale.validate()
    rows = v.rows()
    params = {r["model"]: libscale.count_parameters(r["model"]).total for r in rows if "llm-foundry" not in r["model"]}
    assert min(params.values()) <= 1e9 or any(r["model"] == "llm-foundry-mpt-125m" for r in rows)
    assert any(r["model"] in ("llama-3.1-70b", "llama-2-70b", "llm-foundry-mpt-70b") for r in rows)
    assert min(r["seq_len"] for r in rows) <= 1024 and max(r["seq_len"] for r in rows) >= 32768
    assert {"a100", "h100", "h200"} <= {r["hardware"] for r in rows}
    assert {"none", "selective", "full"} <= {r["activation_checkpointing"] for r in rows}
    assert len({r["file"] for r in rows}) >= 8
    # Every category is populated, and the calibration row of each series fits its own figure.
    assert all(s["rows"] > 0 for s in v.summary())
    for r in rows:
        if r["category"] == "x":
            assert abs(r["calibrated_error"]) < 0.03, r


def test_categories_follow_what_differs(tmp_path: Path):
    # A three-row series: the same run at twice the GPUs (a), another model (b), another
    # sequence length (c). Times are the model's own at a framework efficiency of 0.8, so
    # a calibration on row one must predict the others almost exactly.
    base = dict(kind="step", hardware="h100", gpus_per_node=8, micro_batch=1, activation_checkpointing="full",
                strategy="fsdp", series="s")
    records = []
    cal = libscale.default_calibration("h100")
    cal.framework_efficiency = 0.8
    for model, gpus, seq in (("llama-3.1-8b", 8, 4096), ("llama-3.1-8b", 16, 4096), ("qwen3-8b", 8, 4096),
                             ("llama-3.1-8b", 8, 8192)):
        s = libscale.estimate_step(model, "h100", gpus=gpus, gpus_per_node=8, seq_len=seq, micro_batch=1,
                                   activation_checkpointing="full", calibration=cal)
        records.append(dict(base, model=model, gpus=gpus, seq_len=seq, grad_accum=1, step_time_s=s.step_time_s))
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"schema": "libscale.measurements/2", "records": records}))
    v = libscale.validate(path)
    assert [r["category"] for r in v.rows()] == ["x", "a", "b", "c"]
    for r in v.rows():
        assert abs(r["calibrated_error"]) < 0.02, r
        # the default knows nothing of this trainer: its ratio is its own efficiency over 0.8
        default = libscale.default_calibration("h100").framework_efficiency
        assert r["default_ratio"] == pytest.approx(default / 0.8, rel=0.03)


def test_excluded_rows_are_reported_with_their_reason():
    v = libscale.validate(MEASUREMENTS / "fms-fsdp-llama2-a100.json")
    assert len(v.report.excluded) == 4
    assert all("not published" in e for e in v.report.excluded)


def test_cli_validate_json_and_table():
    exe = Path(sys.executable).parent / "libscale"
    out = subprocess.run([str(exe), "validate", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["schema"] == "libscale.validation/1" and d["not_fitting"] == 0
    assert len(d["rows"]) == len(libscale.validate().rows())
    out = subprocess.run([str(exe), "validate"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "(b) other model sizes" in out.stdout


def test_field_report_calibration_is_its_fit():
    # calibrations/derived-b300-qwen3-32b.json is `libscale fit` of the field report's record.
    data = libscale.read_measurements(MEASUREMENTS / "field-report-qwen3-32b-b300.json")
    fit = libscale.fit(data, "b300")
    shipped = libscale.read_calibration("derived-b300-qwen3-32b", "b300")
    for name in ("framework_efficiency", "gemm.eta_max", "hbm_efficiency"):
        assert abs(libscale._core.calibrate.get_parameter(fit.calibration, name) -
                   libscale._core.calibrate.get_parameter(shipped.calibration, name)) < 1e-6, name
    p = libscale.project("qwen3-32b", "b300", gpus=[16], gpus_per_node=8, seq_len=8192, micro_batch=1,
                         global_batch_tokens=1_048_576, activation_checkpointing="full",
                         calibration="derived-b300-qwen3-32b")
    assert abs(p.rows[0].step.tokens_per_s / 53_000 - 1) < 0.01


def test_memory_is_compared_like_with_like():
    """Each published peak against the estimate of its own kind: allocated figures with the
    tensors, reserved ones with the allocator's segments, never with what nvidia-smi sees."""
    v = libscale.validate()
    rows = [r for r in v.rows() if r["published_memory_gib"]]
    assert len(rows) == v.memory()["rows"] > 0
    for r in rows:
        assert r["memory_error"] == pytest.approx(r["memory_estimate_gib"] / r["published_memory_gib"] - 1)
        if r["published_memory_kind"] in ("allocated", "reserved"):
            assert r["memory_estimate_gib"] < r["memory_gib"]  # the runtime's reserve is not in them
    errors = sorted(abs(r["memory_error"]) for r in rows)
    assert v.memory()["max_abs_error_pct"] == pytest.approx(100 * errors[-1])
    assert all(r["memory_error"] is None for r in v.rows() if not r["published_memory_gib"])
