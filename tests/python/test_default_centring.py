"""Every shipped default is centred on the shipped step timings and carries their spread as
its P10–P90 (docs/calibration.md "Uncalibrated projections"; scripts/centre_defaults.py)."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

import libscale
from libscale import _core
from libscale._format import Z90

ROOT = Path(__file__).resolve().parents[2]
DEFAULTS = sorted((ROOT / "calibration/data/calibrations").glob("default-*.json"))


def centre_script():
    spec = importlib.util.spec_from_file_location("centre_defaults", ROOT / "scripts/centre_defaults.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_default_holds_the_same_centre_and_spread():
    values = {(json.loads(p.read_text())["compute"]["framework_efficiency"],
               json.loads(p.read_text())["spread"]["framework_efficiency"]) for p in DEFAULTS}
    assert len(DEFAULTS) >= 8 and len(values) == 1
    (efficiency, log_sd), = values
    assert 0.5 < efficiency < 1 and 0.05 < log_sd < 0.3


def test_the_files_are_what_the_script_computes_today():
    # A change to the laws or to the shipped series moves the centre: the files must be
    # rewritten (scripts/centre_defaults.py), or this fails.
    efficiency, log_sd, rows = centre_script().centre()
    d = json.loads(DEFAULTS[0].read_text())
    assert rows == len(libscale.validate().rows())
    assert d["compute"]["framework_efficiency"] == pytest.approx(efficiency, abs=1e-3)
    assert d["spread"]["framework_efficiency"] == pytest.approx(log_sd, abs=1e-3)


def test_validation_sees_a_centred_default_with_an_honest_band():
    d = libscale.validate().to_dict()["default_ratio"]
    assert d["median"] == pytest.approx(1.0, abs=0.01)
    # An 80 % interval should hold about 80 % of the rows it was drawn from.
    assert 0.75 <= d["inside_p10_p90"] / d["rows"] <= 0.9, d


def test_the_spread_reaches_projections_and_their_labels():
    hw = libscale.hardware("h100")
    cf = _core.calibrate.default_calibration_file(hw)
    log_sd = json.loads((ROOT / "calibration/data/calibrations/default-h100.json").read_text())["spread"][
        "framework_efficiency"]
    assert list(cf.parameters) == ["framework_efficiency"]
    assert math.sqrt(cf.covariance[0][0]) == pytest.approx(cf.calibration.framework_efficiency * log_sd, rel=1e-12)
    # The same file read by path (the default form) carries the same covariance.
    by_path = libscale.read_calibration(ROOT / "calibration/data/calibrations/default-h100.json", hw)
    assert list(by_path.parameters) == list(cf.parameters)
    assert by_path.covariance[0][0] == pytest.approx(cf.covariance[0][0], rel=1e-12)
    half = 100 * (math.exp(Z90 * log_sd) - 1)
    p = libscale.project("llama-3.1-8b", "h100", gpus=[8], quantiles=True)
    assert f"default (uncalibrated ±{half:.0f} %)" in p.text()
    assert p.to_dict()["calibration"]["uncalibrated_p10_p90_pct"] == pytest.approx(half)
    assert "the spread of the shipped measurements" in p.text()
    # A fitted calibration is not labelled so.
    fitted = libscale.project("qwen3-32b", "b300", gpus=[16], calibration="derived-b300-qwen3-32b")
    assert "uncalibrated" not in fitted.text() and "uncalibrated_p10_p90_pct" not in fitted.to_dict()["calibration"]


@pytest.mark.parametrize("spread, match", [({"framework_efficiency": -0.1}, "spread.framework_efficiency"),
                                           ({"framework_efficiency": "wide"}, "spread.framework_efficiency"),
                                           ({"framwork_efficiency": 0.1}, "spread.framwork_efficiency"),
                                           ([0.1], "spread")])
def test_a_bad_spread_is_refused_naming_the_field(tmp_path, spread, match):
    d = json.loads((ROOT / "calibration/data/calibrations/default-h100.json").read_text())
    d["spread"] = spread
    path = tmp_path / "default-h100.json"
    path.write_text(json.dumps(d))
    with pytest.raises(libscale.ParseError, match=match):
        libscale.read_calibration(path, "h100")


def test_a_harness_only_fit_keeps_the_default_spread_for_the_trainer():
    measured = ROOT / "calibration/data/measured/h200-2026-12-04/harness-measurements.json"
    fit = libscale.fit(measured)
    default = _core.calibrate.default_calibration_file(libscale.hardware("h200"))
    assert "framework_efficiency" in list(fit.parameters)
    kappa = next(c for c in fit.coefficients if c.name == "framework_efficiency")
    assert not kappa.fitted and kappa.value == default.calibration.framework_efficiency
    assert kappa.std_error == pytest.approx(math.sqrt(default.covariance[0][0]), rel=1e-12)
