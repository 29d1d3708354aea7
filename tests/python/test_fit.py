"""libscale.fit / read_measurements and the `libscale fit` command: end to end from the
shipped measurements and from a trainer log, intervals, and bad input (exit 2, one line,
no calibration file written)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import libscale
from conftest import ROOT, run_cli
from libscale import logs

MEASUREMENTS = ROOT / "calibration" / "data" / "measurements" / "torchtitan-llama3.1-8b-h100.json"
LOGS = ROOT / "tests" / "python" / "data" / "logs"
PROJECT_8B = ["project", "--model", "llama-3.1-8b", "--hardware", "h100", "--gpus", "8,128", "--seq-len", "8192",
              "--micro-batch", "2", "--activation-checkpointing", "selective", "--scaling", "weak"]


def _steps() -> list[dict]:
    """The file's step records as the core reads them (v1 file, defaults filled in)."""
    return [r for r in libscale.read_measurements(MEASUREMENTS).to_json()["records"] if r["kind"] == "step"]


def _fail_one_line(out) -> None:
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("libscale: error: "), out.stderr
    assert "Traceback" not in out.stderr


def _predicted_step_s(record: dict, calibration) -> float:
    options = {k: record[k] for k in ("gpus", "seq_len", "micro_batch", "global_batch_tokens", "strategy",
                                      "activation_checkpointing", "reduce_dtype", "precision", "torch_compile",
                                      "attention_kernel", "optimizer", "grad_sync", "reshard_after_forward",
                                      "tensor_parallel", "sequence_parallel", "context_parallel")}
    model = record["model"]
    if record.get("model_overrides"):   # the 262,144-token row raises max_position_embeddings
        model = libscale._core.io.find_model(model, record["model_overrides"])
    return libscale.estimate_step(model, record["hardware"], gpus_per_node=record["gpus_per_node"] or None,
                                  calibration=calibration, **options).step_time_s


# --- Python API ------------------------------------------------------------------------


def test_read_measurements_merges_files_and_records():
    recs = json.loads(MEASUREMENTS.read_text())["records"]
    m = libscale.read_measurements(MEASUREMENTS, recs[:1])
    # the compiled set is held, with the file it came from (records have no file name)
    assert isinstance(m, libscale.Measurements) and isinstance(m.raw, libscale.MeasurementSet)
    assert m.sources == [str(MEASUREMENTS)] and m.notes == []
    assert len(m) == len(recs) + 1 and m.step_count == len(recs) + 1 and m.hardware == ["h100"]
    assert (m.gemm_count, m.attention_count, m.bandwidth_count, m.collective_count) == (0, 0, 0, 0)
    j = m.to_json()
    assert j["schema"] == "libscale.measurements/2" and j["records"][0]["kind"] == "step"
    # v1 records read with the v2 options' defaults (the set is the file's records, then recs[0] again)
    for raw, read in zip(recs, j["records"][: len(recs)], strict=True):
        assert (read["gpus"], read["precision"], read["torch_compile"]) == (
            raw["gpus"], raw.get("precision", "bf16"), raw.get("torch_compile", False))


def test_fit_per_record_leave_one_out_and_origin():
    """Per record, as relative_residuals: the leave-one-out error (NaN for kernel micro-runs),
    the measurement schema's kind and the index among the records of that kind."""
    r = libscale.fit(MEASUREMENTS)
    n = len(r.relative_residuals)
    assert len(r.loo_relative_errors) == len(r.record_kinds) == len(r.record_indices) == n == r.records_used
    schema = json.loads((ROOT / "bindings" / "libscale" / "schemas" / "measurements-2.json").read_text())
    assert set(r.record_kinds) <= set(schema["$defs"]["record"]["properties"]["kind"]["enum"])
    assert r.record_indices.tolist() == list(range(n))   # every record of the file a step, all used
    finite = np.isfinite(r.loo_relative_errors)
    assert finite.all()
    assert float(np.mean(np.abs(r.loo_relative_errors))) == pytest.approx(r.loo_relative_error, rel=1e-12)
    d = r.to_dict()
    assert d["record_kinds"] == ["step"] * n and d["record_indices"] == list(range(n))

    k = libscale.fit(_kernel_records()[0])
    assert k.record_kinds == ["gemm"] * 3 + ["attention"] * 3 + ["bandwidth"] * 3
    assert k.record_indices.tolist() == [0, 1, 2] * 3
    assert np.isnan(k.loo_relative_errors).all() and k.loo_relative_error is None


def test_fit_python_result():
    r = libscale.fit(MEASUREMENTS)  # hardware from the records
    steps = _steps()
    h100 = libscale.hardware("h100")
    default, priors = libscale.default_calibration(h100), libscale._core.calibrate.default_priors(h100)
    assert isinstance(r, libscale.FitResult) and r.calibration.kind == "fitted"
    assert r.calibration.hardware == "h100" and r.records_used == len(steps)
    assert r.prior_log_sd == priors
    fitted = [c for c in r.coefficients if c.fitted]
    assert r.parameters == [c.name for c in fitted]
    assert {"framework_efficiency", "gemm.eta_max", "step_overhead_s"} <= set(r.parameters)
    assert "gemm.fp8_eta_max" in r.parameters          # the file has fp8 steps
    k = len(fitted)
    assert r.covariance.shape == (k, k)
    np.testing.assert_allclose(np.sqrt(np.diag(r.covariance)), [c.std_error for c in fitted], rtol=1e-9)
    z = 1.2815515655446004
    for c in r.coefficients:
        assert c.prior_value == libscale._core.calibrate.get_parameter(default, c.name), c.name
        assert c.value == libscale._core.calibrate.get_parameter(r.calibration, c.name), c.name
        if c.measured:                                  # set from the records (power, memory), not fitted
            assert not c.fitted and c.std_error == 0 and c.interval_80 is None
        elif not c.fitted:
            assert (c.value, c.std_error, c.prior_log_sd, c.identified) == (c.prior_value, 0, 0, False)
            assert c.interval_80 is None
        elif c.name == "step_overhead_s":               # flat prior, fitted in its own units
            assert c.prior_log_sd == 0 and c.identified
            assert c.interval_80 == pytest.approx((c.value - z * c.std_error, c.value + z * c.std_error))
        else:                                           # log-normal prior: fitted in log(value)
            assert c.prior_log_sd == priors[c.name] and c.std_error > 0
            sd_log = c.std_error / c.value              # the delta method, undone
            assert c.identified == (sd_log < 0.7 * c.prior_log_sd), c.name
            assert c.interval_80 == pytest.approx((c.value * math.exp(-z * sd_log), c.value * math.exp(z * sd_log)))
            assert c.identified or any(u.startswith(c.name + ":") for u in r.unidentified)
    # each residual is the step model's own prediction with the fitted calibration
    assert isinstance(r.relative_residuals, np.ndarray) and len(r.relative_residuals) == len(steps)
    for rec, residual in zip(steps, r.relative_residuals, strict=True):
        assert _predicted_step_s(rec, r.calibration) / rec["step_time_s"] - 1 == pytest.approx(residual, abs=1e-9)
    assert r.rms_relative_error == pytest.approx(float(np.sqrt(np.mean(r.relative_residuals ** 2))))
    d = r.to_dict()
    json.dumps(libscale.to_jsonable(d), allow_nan=False)
    assert d["chosen_family"] in ("mechanistic", "amdahl", "usl") and d["coefficients"][0]["name"] == "gemm.eta_max"
    assert d["prior_log_sd"] == priors and {"prior_value", "prior_log_sd", "identified"} <= set(d["coefficients"][0])
    assert "FitResult(" in repr(r) and "gemm.eta_max" in repr(r)
    # usable directly, as a Calibration or as its file
    p = libscale.project("llama-3.1-8b", "h100", gpus=[8, 128], micro_batch=2,
                         activation_checkpointing="selective", scaling="weak", calibration=r.calibration)
    q = libscale.project("llama-3.1-8b", "h100", gpus=[8, 128], micro_batch=2,
                         activation_checkpointing="selective", scaling="weak", calibration=r.calibration_file(),
                         quantiles=True, samples=500)
    for a, b in zip(p.rows, q.rows, strict=True):
        assert a.step.tokens_per_s == pytest.approx(b.step.tokens_per_s, rel=1e-12)
    assert [x.gpus for x in q.quantiles] == [8, 128]


def test_fit_write_is_readable_and_round_trips(tmp_path):
    r = libscale.fit(MEASUREMENTS, "h100")
    out = tmp_path / "cal.json"
    r.write(out, provenance={"note": "test"})
    j = json.loads(out.read_text())
    assert j["schema"] == "libscale.calibration/2" and j["kind"] == "fitted"
    assert j["provenance"]["note"] == "test" and j["provenance"]["libscale_version"] == libscale.__version__
    assert j["provenance"]["date"]
    cf = libscale.read_calibration(out, "h100")
    for name in r.parameters:
        assert libscale._core.calibrate.get_parameter(cf.calibration, name) == pytest.approx(
            libscale._core.calibrate.get_parameter(r.calibration, name), rel=1e-12)
    assert cf.parameters == r.parameters and cf.prior_log_sd == r.prior_log_sd
    np.testing.assert_allclose(cf.covariance, r.covariance, rtol=1e-12)
    assert list(tmp_path.iterdir()) == [out]  # no temporary left behind


def test_fit_wrong_hardware_and_bad_arguments():
    with pytest.raises(ValueError):
        libscale.fit(MEASUREMENTS, "b300")  # no records for b300
    with pytest.raises(TypeError):
        libscale.fit(42)
    with pytest.raises(TypeError, match="prior_log_sd"):
        libscale.fit(MEASUREMENTS, prior_log_sd=0.1)
    with pytest.raises(ValueError, match="relative_error"):
        libscale.fit(MEASUREMENTS, relative_error=0)
    with pytest.raises(libscale.ParseError, match="record 0"):
        libscale.read_measurements([{"kind": "step", "model": "llama-3.1-8b", "hardware": "h100", "gpus": 8,
                                     "seq_len": 8192, "micro_batch": 2, "step_time_s": float("nan")}])


# --- kernel micro-runs: the fit in closed form -------------------------------------------
#
# A kernel record's predicted time is C_i / v for the one coefficient v its kind frees
# (the laws divide by it; micro-runs run at framework_efficiency 1). With θ = log v, the
# fit minimizes Σ (log(C_i/obs_i) − θ)²/σ² + (θ − θ_prior)²/sd², whose minimum is
#   θ* = (Σ log(C_i/obs_i)/σ² + θ_prior/sd²) / (n/σ² + 1/sd²),  posterior sd (n/σ² + 1/sd²)^-½.

B300 = libscale.hardware("b300")
NOISE = (0.012, -0.02, 0.007)           # run-to-run scatter of the three records of each kind


def _kernel_records() -> tuple[list[dict], dict[str, list[float]]]:
    """GEMM, attention and bandwidth records on b300 at made-up 'true' efficiencies, and
    per freed coefficient the C_i of its records (time at coefficient 1)."""
    cal = libscale.default_calibration(B300)
    g, a = cal.gemm, cal.attention
    sm, per_sm = B300.sm_count, B300.peak_flops / B300.sm_count
    records, scale = [], {"gemm.eta_max": [], "attention.forward_eta_max": [], "hbm_efficiency": []}
    for (m, n, k), e in zip([(8192, 8192, 8192), (16384, 8192, 8192), (8192, 16384, 8192)], NOISE, strict=True):
        tiles = math.ceil(m / g.tile_m) * math.ceil(n / g.tile_n)
        assert tiles > sm and 2 * (tiles % sm) >= sm   # whole waves, the last at least half full: no stream-K
        waves = math.ceil(tiles / sm)
        c = waves * 2 * (k + g.k_half) * g.tile_m * g.tile_n / per_sm
        scale["gemm.eta_max"].append(c)
        records.append({"kind": "gemm", "hardware": "b300", "m": m, "n": n, "k": k, "seconds": c / 0.75 * (1 + e)})
    seq, heads, d_h = 8192, 32, 128                     # one length and head size: only eta_max is free
    for batch, e in zip((1, 2, 4), NOISE, strict=True):
        tokens = batch * seq
        c = 4 * tokens * heads * d_h * (seq / 2) / (B300.peak_flops * seq / (seq + a.forward_half_seq))
        scale["attention.forward_eta_max"].append(c)
        records.append({"kind": "attention", "hardware": "b300", "batch": batch, "seq_len": seq, "heads": heads,
                        "head_dim": d_h, "causal": True, "pass": "forward", "seconds": c / 0.30 * (1 + e)})
    for nbytes, e in zip((1e9, 4e9, 16e9), NOISE, strict=True):
        c = nbytes / B300.hbm_bytes_per_s
        scale["hbm_efficiency"].append(c)
        records.append({"kind": "bandwidth", "hardware": "b300", "bytes": nbytes, "seconds": c / 0.8 * (1 + e)})
    return records, scale


def _no_launch() -> libscale.Calibration:
    """B300's default without a copy's launch (kernel_overhead_s 0, which the fit then holds:
    0 has no logarithm), so that every kernel law is linear in log(value)."""
    cal = libscale.default_calibration(B300)
    cal.kernel_overhead_s = 0.0
    return cal


def _closed_form(records: list[dict], scale: dict[str, list[float]], sigma: float) -> dict[str, tuple[float, float]]:
    """name -> (value, posterior sd of its log)."""
    cal, priors = libscale.default_calibration(B300), libscale._core.calibrate.default_priors(B300)
    kinds = {"gemm.eta_max": "gemm", "attention.forward_eta_max": "attention", "hbm_efficiency": "bandwidth"}
    out = {}
    for name, cs in scale.items():
        obs = [r["seconds"] for r in records if r["kind"] == kinds[name]]
        logs = [math.log(c / o) for c, o in zip(cs, obs, strict=True)]
        theta0, sd = math.log(libscale._core.calibrate.get_parameter(cal, name)), priors[name]
        precision = len(logs) / sigma ** 2 + 1 / sd ** 2
        out[name] = (math.exp((sum(logs) / sigma ** 2 + theta0 / sd ** 2) / precision), precision ** -0.5)
    return out


def test_fit_kernel_records_in_closed_form():
    records, scale = _kernel_records()
    priors = libscale._core.calibrate.default_priors(B300)
    for sigma in (0.03, 0.1):
        r = libscale.fit(records, relative_error=sigma, prior=_no_launch())   # hardware from the records
        expected = _closed_form(records, scale, sigma)
        # No step record: the framework efficiency is not fitted, and keeps the default's spread.
        assert r.parameters == [*expected, "framework_efficiency"] and r.records_used == 9
        by_name = {c.name: c for c in r.coefficients}
        for name, (value, sd_log) in expected.items():
            c = by_name[name]
            assert c.value == pytest.approx(value, rel=1e-6), name
            assert c.std_error == pytest.approx(value * sd_log, rel=1e-4), name
            assert c.identified == (sd_log < 0.7 * priors[name]) and c.prior_log_sd == priors[name]
        # residuals: C_i / (v · obs_i) − 1, in record order (GEMM, attention, bandwidth)
        pred = [cs / expected[n][0] for n, cs_list in scale.items() for cs in cs_list]
        expected_residuals = [p / rec["seconds"] - 1 for p, rec in zip(pred, records, strict=True)]
        np.testing.assert_allclose(r.relative_residuals, expected_residuals, atol=1e-6)
        assert not any(f.applicable for f in r.families)   # no step records: no family comparison
    # more weight on the records pulls the values away from the prior, towards the data
    tight, loose = _closed_form(records, scale, 0.03), _closed_form(records, scale, 0.1)
    assert abs(math.log(tight["hbm_efficiency"][0] / 0.8)) < abs(math.log(loose["hbm_efficiency"][0] / 0.8))


def test_cli_fit_kernel_record_file(tmp_path):
    records, scale = _kernel_records()
    src = tmp_path / "kernels.json"
    src.write_text(json.dumps({"schema": "libscale.measurements/2", "records": records}))
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(src), "-o", str(cal), "--relative-error", "0.1"])
    assert out.returncode == 0, out.stderr
    assert "9 of 9 records used (3 GEMM, 3 attention, 3 bandwidth)" in out.stdout
    expected = _closed_form(records, scale, 0.1)
    lines = out.stdout.splitlines()
    head = next(line for line in lines if line.split()[:1] == ["coefficient"])
    for col in ("value", "sd", "80% interval", "prior", "prior log sd", "identified"):
        assert col in head, col
    default = libscale.default_calibration(B300)
    for name, (value, sd_log) in expected.items():
        row = next(line for line in lines if line.startswith(name + " "))
        cells = row.split()
        # The CLI fits from the default, whose copies also pay a launch (kernel_overhead_s,
        # fitted with them): the bandwidth law is then no longer the closed form's alone.
        rel = 0.05 if name == "hbm_efficiency" else 1e-3
        assert float(cells[1]) == pytest.approx(value, rel=rel) and float(cells[2]) == pytest.approx(
            value * sd_log, rel=max(rel, 0.2 if name == "hbm_efficiency" else rel))
        assert f"{libscale._core.calibrate.get_parameter(default, name):.4g}" in row
        assert ("yes" if sd_log < 0.7 * libscale._core.calibrate.default_priors(B300)[name] else "no (prior)") in row
    kept = next(line for line in lines if line.startswith("gemm.k_half "))
    assert "not fitted" in kept
    written = libscale.read_calibration(cal, "b300")
    for name, (value, _) in expected.items():
        assert libscale._core.calibrate.get_parameter(written.calibration, name) == pytest.approx(
            value, rel=0.05 if name == "hbm_efficiency" else 1e-6)
    # the copies' launch, fitted with them; the framework efficiency with the default's spread
    assert written.parameters == [*expected, "kernel_overhead_s", "framework_efficiency"]
    # the default relative error (0.03) gives the other closed form
    d = json.loads(run_cli(["fit", str(src), "-o", str(cal), "--json"]).stdout)
    values = {c["name"]: c["value"] for c in d["coefficients"]}
    for name, (value, _) in _closed_form(records, scale, 0.03).items():
        assert values[name] == pytest.approx(value, rel=0.05 if name == "hbm_efficiency" else 1e-6)


def test_v1_gemm_chain_records_are_refused(tmp_path):
    src = tmp_path / "v1.json"
    src.write_text(json.dumps({"schema": "libscale.measurements/1", "records": [
        {"kind": "gemm", "hardware": "h100", "tokens": 8192, "flops": 1.2e15, "seconds": 2.0}]}))
    out = run_cli(["fit", str(src), "-o", str(tmp_path / "cal.json")])
    _fail_one_line(out)
    assert "v1.json: record 0" in out.stderr and "GEMM-chain" in out.stderr and "m, n, k" in out.stderr
    assert not (tmp_path / "cal.json").exists()


# --- CLI: end to end ---------------------------------------------------------------------


def test_cli_fit_then_project_reproduces_the_measured_points(tmp_path):
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(MEASUREMENTS), "-o", str(cal)])
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "gemm.eta_max" in text and "80% interval" in text and "not fitted" in text and "identified" in text
    assert "leave-one-out" in text and "chosen: " in text and str(cal) in text
    assert "libscale.calibration/2" in text
    assert cal.is_file()
    prov = json.loads(cal.read_text())["provenance"]
    assert prov["hardware"] == "h100" and prov["libscale_version"] == libscale.__version__
    assert any(s.endswith(MEASUREMENTS.name) for s in prov["source"])
    fit = json.loads(run_cli(["fit", str(MEASUREMENTS), "-o", str(cal), "--json"]).stdout)

    # the first record's configuration, projected with the written calibration, is the
    # measurement moved by the fit's residual for it
    first = _steps()[0]
    out = run_cli(PROJECT_8B + ["--calibration", str(cal), "--json"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["calibration"]["kind"] == "fitted"
    row = d["rows"][0]
    assert row["gpus"] == first["gpus"] == 8
    assert row["step_time_s"] == pytest.approx(first["step_time_s"] * (1 + fit["relative_residuals"][0]), rel=1e-9)
    assert abs(fit["relative_residuals"][0]) < 0.05 and "tokens_per_s_p10" not in row  # only with --quantiles

    human = run_cli(PROJECT_8B + ["--calibration", str(cal)])
    assert human.returncode == 0 and f"calibration fitted ({cal}" in human.stdout.splitlines()[0]


def test_cli_fit_json_output(tmp_path):
    cal = tmp_path / "cal.json"
    out = run_cli(["fit", str(MEASUREMENTS), "-o", str(cal), "--json", "--no-overhead"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["records_used"] == len(_steps()) and d["output"] == str(cal) and d["calibration"]["kind"] == "fitted"
    coefficients = {c["name"]: c for c in d["coefficients"]}
    assert {"gemm.eta_max", "step_overhead_s"} <= set(coefficients)
    assert not coefficients["step_overhead_s"]["fitted"] and coefficients["framework_efficiency"]["fitted"]
    assert "step_overhead_s" not in d["parameters"]


def test_cli_fit_from_trainer_log_then_project(tmp_path):
    cal = tmp_path / "cal.json"
    log = LOGS / "torchtitan.log"
    out = run_cli(["fit", str(log), "--model", "llama-3.1-8b", "--hardware", "h100", "-o", str(cal)])
    assert out.returncode == 0, out.stderr
    # One record per logged step after the two warm-up steps: steps 20..80 of the log.
    assert "7 of 7 records used" in out.stdout
    # All seven share one configuration, so Σ (log T − log o_i)²/σ² = 7·(log T − mean log o)²/σ²
    # + a constant: the fit equals that of one record at the geometric mean step time with
    # relative error σ/√7.
    records = libscale.read_measurements(list(logs.parse_log(log, per_step=True, model="llama-3.1-8b",
                                                             hardware="h100"))).to_json()["records"]
    assert len(records) == 7
    mean = math.exp(sum(math.log(r["step_time_s"]) for r in records) / 7)
    one = libscale.fit([dict(records[0], step_time_s=mean, relative_error=0.03 / math.sqrt(7))], "h100")
    written = libscale.read_calibration(cal, "h100")
    assert written.parameters == one.parameters
    for name in one.parameters:
        assert libscale._core.calibrate.get_parameter(written.calibration, name) == pytest.approx(
            libscale._core.calibrate.get_parameter(one.calibration, name), rel=1e-6), name
    out = run_cli(["project", "--model", "llama-3.1-8b", "--hardware", "h100", "--gpus", "8,16",
                   "--seq-len", "8192", "--micro-batch", "1", "--activation-checkpointing", "selective",
                   "--scaling", "weak", "--calibration", str(cal), "--quantiles", "--json"])
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    assert rows[0]["step_time_s"] == pytest.approx(mean * (1 + one.relative_residuals[0]), rel=1e-6)
    # the step-to-step scatter and the priors give the coefficients an interval, carried into the projection
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
    [str(MEASUREMENTS), "--input-format", "csv"],  # a JSON file read as a CSV log
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


def test_fit_prior_log_sd_option_moves_the_fit():
    # A looser prior on hbm_efficiency lets the three bandwidth records pull it further.
    records, _scale = _kernel_records()
    bandwidth = [r for r in records if r["kind"] == "bandwidth"]
    tight = libscale.fit(bandwidth, "b300", prior=_no_launch())
    loose = libscale.fit(bandwidth, "b300", prior=_no_launch(), prior_log_sd={"hbm_efficiency": 1.0})
    assert loose.prior_log_sd == {"hbm_efficiency": 1.0}
    prior = libscale.default_calibration(B300).hbm_efficiency
    value = {r.name: r for r in tight.coefficients}["hbm_efficiency"].value
    looser = {r.name: r for r in loose.coefficients}["hbm_efficiency"].value
    assert abs(math.log(looser / prior)) > abs(math.log(value / prior))
    with pytest.raises(ValueError, match="unknown calibration coefficient 'hbm'"):
        libscale.fit(bandwidth, "b300", prior_log_sd={"hbm": 1.0})


def test_kernel_records_alone_say_the_families_were_not_compared():
    records, _ = _kernel_records()
    r = libscale.fit(records)
    assert r.to_dict()["families"] == []
    text = r.text()
    assert "model families: not compared (no step records" in text and "chosen: " not in text
    steps = libscale.fit(libscale.read_measurements(MEASUREMENTS))
    assert steps.to_dict()["families"] and f"chosen: {steps.to_dict()['chosen_family']}" in steps.text()
