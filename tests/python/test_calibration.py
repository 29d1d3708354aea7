"""Calibration files in projections: the shipped derived B300 / Qwen3-32B calibration,
quantile columns (P10 / P90) in Python and on the CLI, and calibration= forms."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import libscale
from conftest import ROOT, UNCALIBRATED, run_cli

DERIVED = "derived-b300-qwen3-32b"
DERIVED_PATH = ROOT / "calibration" / "data" / "calibrations" / f"{DERIVED}.json"
B300_16 = ["project", "--model", "qwen3-32b", "--hardware", "b300", "--gpus", "16", "--gpus-per-node", "8",
           "--seq-len", "8192", "--micro-batch", "1", "--global-batch-tokens", "1048576",
           "--activation-checkpointing", "full", "--calibration", DERIVED]
FIGURES = ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "wall_time_h", "gpu_hours", "cost_usd",
           "energy_kwh")
KW = dict(gpus_per_node=8, seq_len=8192, micro_batch=1, global_batch_tokens=1_048_576,
          activation_checkpointing="full")


def derived_tokens_per_s() -> float:
    """What the derived file predicts at its figure: the field report's ~53,000 tokens/s
    moved by the fit's own residual (pred − obs)/obs of step time. The fit is maximum a
    posteriori, so the one record pulls the priors most of the way, not all of it."""
    quality = json.loads(DERIVED_PATH.read_text())["quality"]
    (residual,) = quality["relative_residuals"]
    return 53_000 / (1 + residual)


DERIVED_PARAMETERS = json.loads(DERIVED_PATH.read_text())["uncertainty"]["parameters"]


@pytest.fixture(scope="module")
def derived_json() -> dict:
    out = run_cli(B300_16 + ["--quantiles", "--json"])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_read_calibration_by_name_and_path(b300):
    a = libscale.read_calibration(DERIVED, "b300")
    b = libscale.read_calibration(DERIVED_PATH, b300)
    assert isinstance(a, libscale.CalibrationFile) and a.kind == "derived" and a.hardware == "b300"
    assert a.calibration.gemm.eta_max == b.calibration.gemm.eta_max
    assert a.calibration.framework_efficiency == b.calibration.framework_efficiency
    assert a.parameters == DERIVED_PARAMETERS and "framework_efficiency" in a.parameters
    k = len(a.parameters)
    assert a.covariance.shape == (k, k) and (np.diag(a.covariance) > 0).all()
    assert np.allclose(a.covariance, a.covariance.T)
    raw = json.loads(DERIVED_PATH.read_text())
    assert a.prior_log_sd == raw["prior"] and raw["schema"] == "libscale.calibration/2"
    for name in a.parameters:
        assert libscale._core.calibrate.get_parameter(a.calibration, name) == pytest.approx(
            _coefficient(raw["coefficients"], name)), name
    assert isinstance(a.quality, dict) and isinstance(a.provenance, dict)
    assert a.quality["chosen_family"] == "mechanistic"
    assert a.to_dict()["kind"] == "derived" and "CalibrationFile(" in repr(a)


def _coefficient(tree: dict, name: str) -> float:
    """A dotted name's value in a v2 file's nested "coefficients" ("gemm.eta_max")."""
    for part in name.split("."):
        tree = tree[part]
    return tree


def test_derived_b300_cli_quantiles(derived_json):
    d = derived_json
    assert d["calibration"]["kind"] == "derived"
    (row,) = d["rows"]
    assert row["gpus"] == 16
    assert row["tokens_per_s"] == pytest.approx(derived_tokens_per_s(), rel=1e-6)
    assert row["tokens_per_s"] == pytest.approx(53_000, rel=0.025)   # within the record's stated error
    for f in FIGURES:
        assert row[f"{f}_p10"] < row[f"{f}_p90"], f
        lo, hi = sorted((row[f"{f}_p10"], row[f"{f}_p90"]))
        assert lo < row[f] < hi, f
    # the p10/p90 keys sit right after their figure
    keys = list(row)
    for f in FIGURES:
        i = keys.index(f)
        assert keys[i + 1: i + 3] == [f"{f}_p10", f"{f}_p90"]
    # consistent across figures: GPU-hours = GPUs × wall hours, tokens/s = GPUs × per GPU
    assert row["gpu_hours_p10"] == pytest.approx(row["gpus"] * row["wall_time_h_p10"], rel=1e-9)
    assert row["gpu_hours_p90"] == pytest.approx(row["gpus"] * row["wall_time_h_p90"], rel=1e-9)
    assert row["tokens_per_s_p10"] == pytest.approx(row["gpus"] * row["tokens_per_s_per_gpu_p10"], rel=1e-9)
    assert row["cost_usd_p90"] == pytest.approx(row["gpu_hours_p90"] * d["price_per_gpu_hour_usd"], rel=1e-9)
    # faster = shorter: the slow end of throughput is the long end of time
    assert row["step_time_s_p90"] * row["tokens_per_s_p10"] == pytest.approx(row["tokens_per_step"], rel=1e-6)
    assert d["uncertainty"]["parameters"] == DERIVED_PARAMETERS and d["uncertainty"]["samples"] == 2000


def test_json_contract_unchanged_without_quantiles(contract_json):
    out = run_cli(B300_16 + ["--json"])
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)["rows"][0]
    assert not any(k.endswith(("_p10", "_p90")) for k in row)
    assert set(row) == set(contract_json["rows"][0])


def test_derived_b300_human_table():
    out = run_cli(B300_16 + ["--quantiles"])
    assert out.returncode == 0, out.stderr
    header = out.stdout.splitlines()[0]
    assert "calibration derived (" in header and DERIVED in header
    assert "tokens/s P10–P90" in out.stdout and "GPU-h P10–P90" in out.stdout
    assert f"{derived_tokens_per_s():,.0f}" in out.stdout and "gemm.eta_max" in out.stdout


def test_python_quantiles_columns_and_determinism():
    p = libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16], calibration=DERIVED, quantiles=True, **KW)
    assert len(p.quantiles) == len(p.rows) and [q.gpus for q in p.quantiles] == [4, 8, 16]
    df = p.to_pandas()
    for f in FIGURES:
        assert f"{f}_p10" in df.columns and f"{f}_p90" in df.columns
        assert np.all(df[f"{f}_p10"] != df[f"{f}_p90"])
    np.testing.assert_allclose(df["gpu_hours_p10"], df["gpus"] * df["wall_time_h_p10"], rtol=1e-9)
    again = libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16], calibration=DERIVED, quantiles=True, **KW)
    assert again.to_dict()["rows"] == p.to_dict()["rows"]
    other = libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16], calibration=DERIVED, quantiles=True,
                             seed=7, samples=500, **KW)
    assert other.to_dict()["uncertainty"]["seed"] == 7
    plain = libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16], calibration=DERIVED, **KW)
    assert "tokens_per_s_p10" not in plain.to_pandas().columns and getattr(plain, "quantiles", None) is None


def test_calibration_forms_agree(b300):
    cf = libscale.read_calibration(DERIVED, b300)
    values = [libscale.estimate_step("qwen3-32b", "b300", gpus=16, calibration=c, **KW).tokens_per_s
              for c in (DERIVED, DERIVED_PATH, cf, cf.calibration)]
    assert values[0] == pytest.approx(derived_tokens_per_s(), rel=1e-6) and len(set(values)) == 1
    s = libscale.sweep("qwen3-32b", "b300", gpus=[16], calibration=DERIVED, seq_len=8192, micro_batch=1,
                       global_batch_tokens=1_048_576, gpus_per_node=8)
    assert float(s.tokens_per_s[0]) == pytest.approx(derived_tokens_per_s(), rel=1e-6)
    sol = libscale.solve_deadline("qwen3-32b", "b300", deadline_h=10, calibration=DERIVED, **KW)
    assert sol.found and sol.calibration.kind == "derived"


def test_default_calibration_carries_the_shipped_spread():
    # An uncalibrated projection's P10-P90 is the spread of the shipped step timings around
    # the default (its framework efficiency's log sd), never a zero-width interval.
    cf = libscale._core.calibrate.default_calibration_file(libscale.hardware("b300"))
    assert list(cf.parameters) == ["framework_efficiency"]
    log_sd = math.sqrt(cf.covariance[0][0]) / cf.calibration.framework_efficiency
    p = libscale.project("qwen3-32b", "b300", gpus=[8], quantiles=True, **KW)
    row = p.to_dict()["rows"][0]
    assert row["tokens_per_s_p10"] < row["tokens_per_s"] < row["tokens_per_s_p90"]
    # Compute-bound: tokens/s scales with the efficiency, so P90/P10 is exp(2 z90 sigma).
    z90 = 1.2815515655446004
    assert row["tokens_per_s_p90"] / row["tokens_per_s_p10"] == pytest.approx(math.exp(2 * z90 * log_sd), rel=0.05)
    assert UNCALIBRATED in p.text()


def test_wrong_hardware_calibration(tmp_path):
    with pytest.raises(libscale.ParseError, match="hardware"):
        libscale.project("qwen3-32b", "h100", gpus=[8], calibration=DERIVED)
    with pytest.raises(ValueError, match="hardware"):
        libscale.project("qwen3-32b", "h100", gpus=[8], calibration=libscale.read_calibration(DERIVED, "b300"))
    with pytest.raises(TypeError):
        libscale.project("qwen3-32b", "b300", gpus=[8], calibration=3)
    for cmd in (["project", "--gpus", "8"], ["solve", "--deadline-h", "10"], ["sweep", "--gpus", "8"]):
        out = run_cli(cmd + ["--model", "qwen3-32b", "--hardware", "h100", "--calibration", DERIVED])
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert "hardware" in out.stderr and "Traceback" not in out.stderr and out.stdout == ""


@pytest.mark.parametrize("content", ["{", json.dumps({"schema": "libscale.calibration/7"}), "[]"])
def test_bad_calibration_file_exit_2(tmp_path, content):
    bad = tmp_path / "cal.json"
    bad.write_text(content)
    out = run_cli(B300_16[:-1] + [str(bad), "--quantiles"])
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "cal.json" in out.stderr


def test_quantile_options_need_quantiles():
    out = run_cli(B300_16 + ["--seed", "3"])
    assert out.returncode == 2 and "--quantiles" in out.stderr
