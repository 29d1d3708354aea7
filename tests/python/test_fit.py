"""libscale.fit / read_measurements and the `libscale fit` command: end to end from the
shipped measurements and from a trainer log, intervals, and bad input (exit 2, one line,
no calibration file written)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import libscale
from conftest import ROOT, run_cli

MEASUREMENTS = ROOT / "calibration" / "data" / "measurements" / "torchtitan-llama3.1-8b-h100.json"
LOGS = ROOT / "tests" / "python" / "data" / "logs"
PROJECT_8B = ["project", "--model", "llama-3.1-8b", "--hardware", "h100", "--gpus", "8,128", "--seq-len", "8192",
              "--micro-batch", "2", "--activation-checkpointing", "selective", "--scaling", "weak"]


def _measured() -> dict[int, float]:
    """gpus -> tokens/s per GPU, read straight from the measurement file."""
    recs = json.loads(MEASUREMENTS.read_text())["records"]
    return {r["gpus"]: r["tokens_per_s_per_gpu"] for r in recs}


def _fail_one_line(out) -> None:
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("libscale: error: "), out.stderr
    assert "Traceback" not in out.stderr


# --- Python API ------------------------------------------------------------------------


def test_read_measurements_merges_files_and_records():
    recs = json.loads(MEASUREMENTS.read_text())["records"]
    m = libscale.read_measurements(MEASUREMENTS, recs[:1])
    assert isinstance(m, libscale.MeasurementSet)
    assert len(m) == 3 and m.step_count == 3 and m.hardware == ["h100"]
    assert m.to_json()["records"][0]["kind"] == "step"


def test_fit_python_result():
    r = libscale.fit(MEASUREMENTS)  # hardware from the records
    assert isinstance(r, libscale.FitResult) and r.calibration.kind == "fitted"
    assert r.calibration.hardware == "h100" and r.records_used == 2
    eta = next(c for c in r.coefficients if c.name == "eta_max")
    assert eta.fitted and eta.std_error > 0 and eta.interval_80[0] < eta.value < eta.interval_80[1]
    assert r.parameters == ["eta_max"] and r.covariance.shape == (1, 1)
    assert r.covariance[0, 0] == pytest.approx(eta.std_error ** 2)
    assert isinstance(r.relative_residuals, np.ndarray) and len(r.relative_residuals) == 2
    d = r.to_dict()
    json.dumps(libscale.to_jsonable(d), allow_nan=False)
    assert d["chosen_family"] == "mechanistic" and d["coefficients"][0]["name"] == "eta_max"
    assert "FitResult(" in repr(r) and "eta_max" in repr(r)
    # usable directly, as a Calibration or as its file
    p = libscale.project("llama-3.1-8b", "h100", gpus=[8, 128], micro_batch=2,
                         activation_checkpointing="selective", scaling="weak", calibration=r.calibration)
    q = libscale.project("llama-3.1-8b", "h100", gpus=[8, 128], micro_batch=2,
                         activation_checkpointing="selective", scaling="weak", calibration=r.calibration_file(),
                         quantiles=True, samples=500)
    for a, b in zip(p.rows, q.rows):
        assert a.step.tokens_per_s == pytest.approx(b.step.tokens_per_s, rel=1e-12)
    assert [x.gpus for x in q.quantiles] == [8, 128]


def test_fit_write_is_readable_and_round_trips(tmp_path):
    r = libscale.fit(MEASUREMENTS, "h100")
    out = tmp_path / "cal.json"
    r.write(out, provenance={"note": "test"})
    j = json.loads(out.read_text())
    assert j["schema"] == "libscale.calibration/1" and j["kind"] == "fitted"
    assert j["provenance"]["note"] == "test" and j["provenance"]["libscale_version"] == libscale.__version__
    assert j["provenance"]["date"]
    cf = libscale.read_calibration(out, "h100")
    assert cf.calibration.eta_max == pytest.approx(r.calibration.eta_max, rel=1e-12)
    assert cf.parameters == ["eta_max"]
    np.testing.assert_allclose(cf.covariance, r.covariance, rtol=1e-12)
    assert [f for f in list(tmp_path.iterdir())] == [out]  # no temporary left behind


def test_fit_wrong_hardware_and_bad_arguments():
    with pytest.raises(ValueError):
        libscale.fit(MEASUREMENTS, "b300")  # no records for b300
    with pytest.raises(TypeError):
        libscale.fit(42)
    with pytest.raises(libscale.ParseError, match="record 0"):
        libscale.read_measurements([{"kind": "step", "model": "llama-3.1-8b", "hardware": "h100", "gpus": 8,
                                     "seq_len": 8192, "micro_batch": 2, "step_time_s": float("nan")}])


# --- CLI: end to end ---------------------------------------------------------------------


def test_cli_fit_then_project_reproduces_the_measured_points(tmp_path):
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(MEASUREMENTS), "-o", str(cal)])
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "eta_max" in text and "80% interval" in text and "kept from default" in text
    assert "leave-one-out" in text and "chosen: mechanistic" in text and str(cal) in text
    assert cal.is_file()
    prov = json.loads(cal.read_text())["provenance"]
    assert prov["hardware"] == "h100" and prov["libscale_version"] == libscale.__version__
    assert any(s.endswith(MEASUREMENTS.name) for s in prov["source"])

    out = run_cli(PROJECT_8B + ["--calibration", str(cal), "--json"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["calibration"]["kind"] == "fitted"
    measured = _measured()
    for row in d["rows"]:
        assert row["tokens_per_s_per_gpu"] == pytest.approx(measured[row["gpus"]], rel=0.03)
        assert "tokens_per_s_p10" not in row  # only with --quantiles

    human = run_cli(PROJECT_8B + ["--calibration", str(cal)])
    assert human.returncode == 0 and f"calibration fitted ({cal}" in human.stdout.splitlines()[0]


def test_cli_fit_json_output(tmp_path):
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(MEASUREMENTS), "-o", str(cal), "--json", "--no-overhead"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["records_used"] == 2 and d["output"] == str(cal) and d["calibration"]["kind"] == "fitted"
    assert {c["name"] for c in d["coefficients"]} >= {"eta_max", "step_overhead_s"}


def test_cli_fit_from_trainer_log_then_project(tmp_path):
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(LOGS / "torchtitan.log"), "--model", "llama-3.1-8b", "--hardware", "h100",
                   "-o", str(cal)])
    assert out.returncode == 0, out.stderr
    # One record per logged step after the two warm-up steps: steps 20..80 of the log.
    assert "7 of 7 records used" in out.stdout
    rates = [5762, 5755, 5790, 5748, 5771, 5702, 5769]
    # Same configuration for all seven, so the fit minimizes sum((T/o_i - 1)^2) over one
    # step time T, o_i = tokens / rate_i: T ∝ sum(r)/sum(r^2), i.e. a rate of sum(r^2)/sum(r).
    expected = sum(r * r for r in rates) / sum(rates)
    out = run_cli(["project", "--model", "llama-3.1-8b", "--hardware", "h100", "--gpus", "8,16",
                   "--seq-len", "8192", "--micro-batch", "1", "--activation-checkpointing", "selective",
                   "--scaling", "weak", "--calibration", str(cal), "--quantiles", "--json"])
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    assert rows[0]["tokens_per_s_per_gpu"] == pytest.approx(expected, rel=1e-6)
    # the step-to-step scatter gives eta_max an interval, carried into the projection
    assert rows[0]["tokens_per_s_p10"] < rows[0]["tokens_per_s"] < rows[0]["tokens_per_s_p90"]
    assert rows[1]["tokens_per_s"] > rows[0]["tokens_per_s"]


def test_cli_fit_log_needs_its_configuration(tmp_path):
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(LOGS / "torchtitan.log"), "--hardware", "h100", "-o", str(cal)])
    _fail_one_line(out)
    assert "model" in out.stderr and not cal.exists()


# --- CLI: bad input: exit 2, one line, no file -------------------------------------------


def _step(**over):
    r = {"kind": "step", "model": "llama-3.1-8b", "hardware": "h100", "gpus": 8, "gpus_per_node": 8,
         "seq_len": 8192, "micro_batch": 2, "activation_checkpointing": "selective",
         "tokens_per_s_per_gpu": 5762}
    r.update(over)
    return r


@pytest.mark.parametrize("content, expect", [
    (json.dumps([_step(tokens_per_s_per_gpu=None, step_time_s=-1.0)]), "step_time_s"),
    ('[{"kind": "step", "model": "llama-3.1-8b", "hardware": "h100", "gpus": 8, "seq_len": 8192, '
     '"micro_batch": 2, "step_time_s": NaN}]', "cal"),
    (json.dumps([_step(tokens_per_s_per_gpu=0)]), "tokens_per_s_per_gpu"),
    (json.dumps({"schema": "libscale.measurements/9", "records": [_step()]}), "schema"),
    (json.dumps([_step(kind="banana")]), "kind"),
])
def test_cli_fit_bad_measurements_write_nothing(tmp_path, content, expect):
    src = tmp_path / "m.json"
    src.write_text(content)
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(src), "-o", str(cal)])
    _fail_one_line(out)
    assert expect in out.stderr or "m.json" in out.stderr
    assert not cal.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


@pytest.mark.parametrize("args", [
    [str(LOGS / "empty.log"), "--model", "llama-3.1-8b", "--hardware", "h100"],
    [str(ROOT / "pyproject.toml"), "--model", "llama-3.1-8b", "--hardware", "h100"],  # a foreign file
    [str(LOGS / "torchtitan.log"), "--model", "llama-3.1-8b", "--hardware", "h100", "--gpus", "16"],
    [str(MEASUREMENTS), "--hardware", "b300"],  # no records for that hardware
    [str(MEASUREMENTS), "--format", "csv"],
    ["does-not-exist.json"],
])
def test_cli_fit_bad_input_exit_2_no_file(tmp_path, args):
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", *args, "-o", str(cal)])
    _fail_one_line(out)
    assert not cal.exists() and list(tmp_path.iterdir()) == []


def test_cli_fit_truncated_log_is_kept_with_a_note_but_binary_junk_fails(tmp_path):
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(LOGS / "torchtitan_truncated.log"), "--model", "llama-3.1-8b",
                   "--hardware", "h100", "-o", str(cal)])
    assert out.returncode == 0, out.stderr
    assert "half-written" in out.stdout and cal.exists()
    cut = tmp_path / "cut.log"
    lines = (LOGS / "torchtitan.log").read_text().splitlines()
    cut.write_text("\n".join(lines[:12]) + "\n")  # cut before any step line
    cal2 = tmp_path / "cal2.json"
    out = run_cli(["fit", str(cut), "--model", "llama-3.1-8b", "--hardware", "h100", "-o", str(cal2)])
    _fail_one_line(out)
    assert not cal2.exists()


def test_cli_fit_mixed_hardware_needs_hardware(tmp_path):
    src = tmp_path / "m.json"
    src.write_text(json.dumps([_step(), _step(hardware="h200")]))
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(src), "-o", str(cal)])
    _fail_one_line(out)
    assert "--hardware" in out.stderr and not cal.exists()
    out = run_cli(["fit", str(src), "-o", str(cal), "--hardware", "h100"])
    assert out.returncode == 0, out.stderr and cal.exists()


def test_cli_fit_unwritable_output_writes_nothing(tmp_path):
    out = run_cli(["fit", str(MEASUREMENTS), "-o", str(tmp_path / "missing-dir" / "cal.json")])
    _fail_one_line(out)
    assert not (tmp_path / "missing-dir").exists()
