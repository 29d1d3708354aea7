"""Offline power triage: nvidia-smi CSV traces written from the documented patterns
(steady compute near board power; an NCCL hang at ~70 W and 100 % utilization; a declared
checkpoint of low power), through the API and `libscale triage`, and bad input."""

from __future__ import annotations

import calendar
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import libscale
from conftest import run_cli

T0 = calendar.timegm((2024, 5, 1, 12, 0, 0))  # 2024/05/01 12:00:00 UTC
HEADER = "timestamp, index, power.draw [W], utilization.gpu [%]"
GPUS = 2
DEFAULT_T = 600.0  # deadlock threshold with no checkpoint duration declared (triage.hpp)


def _stamp(t: float) -> str:
    import time
    s = time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(int(t)))
    return f"{s}.{round((t - int(t)) * 1000):03d}"


def write_trace(path: Path, segments: list[tuple[float, float, float]], *, dt: float = 1.0,
                extra_lines: dict[int, str] | None = None) -> Path:
    """segments: (duration_s, power_w, utilization_pct), one after the other from T0."""
    lines = [HEADER]
    t = 0.0
    for duration, power, util in segments:
        for _ in range(round(duration / dt)):
            for g in range(GPUS):
                lines.append(f"{_stamp(T0 + t)}, {g}, {power + 0.3 * g:.2f} W, {util:.0f} %")
            t += dt
    for at, text in sorted((extra_lines or {}).items()):
        lines.insert(at, text)
    path.write_text("\n".join(lines) + "\n")
    return path


HANG_START = 100.0


@pytest.fixture
def hang(tmp_path: Path) -> Path:
    # compute at 650 W, then every GPU spins at 70 W and 100 % utilization past T
    return write_trace(tmp_path / "hang.csv", [(HANG_START, 650, 100), (DEFAULT_T + 40, 70, 100)])


@pytest.fixture
def steady(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "steady.csv", [(300, 660, 100)])


def test_read_trace_columns_and_report(hang: Path):
    tr = libscale.read_trace(hang)
    n = int(HANG_START + DEFAULT_T + 40) * GPUS
    assert len(tr) == n and tr.gpus == [0, 1]
    assert tr.time_s.dtype == np.float64 and tr.time_s[0] == T0 and tr.time_s[-1] == T0 + n // GPUS - 1
    assert list(tr.gpu[:4]) == [0, 1, 0, 1]
    assert tr.power_w[0] == 650 and tr.utilization_pct[-1] == 100
    assert tr.report.clean and tr.report.samples == n and tr.report.skipped_lines == 0
    assert "PowerTrace" in repr(tr)


def test_steady_compute(steady: Path):
    r = libscale.triage(steady, hardware="h100")
    job = r.job_totals
    assert job["compute"]["seconds"] == pytest.approx(299, abs=1)
    assert sum(v["seconds"] for k, v in job.items() if k != "compute") == 0
    # energy: 2 GPUs × ~660 W × 299 s
    assert job["compute"]["energy_j"] == pytest.approx(660.15 * GPUS * 299, rel=0.01)
    assert r.alerts == []
    df = r.to_pandas()
    assert list(df.columns) == ["gpu", "start", "start_s", "end_s", "duration_s", "phase", "mean_power_w"]
    assert str(df["start"].iloc[0]) == "2024-05-01 12:00:00+00:00"  # epoch seconds as UTC timestamps
    assert set(df["phase"]) == {"compute"} and sorted(df["gpu"]) == [0, 1]
    assert "TriageResult" in repr(r)


def test_hang_fires_within_t_plus_two_samples(hang: Path):
    r = libscale.triage(libscale.read_trace(hang), hardware="h100")
    kinds = [a.kind for a in r.alerts]
    assert kinds.count("deadlock") == 1, r.alerts
    a = next(a for a in r.alerts if a.kind == "deadlock")
    start = T0 + HANG_START
    assert start + DEFAULT_T < a.time_s <= start + DEFAULT_T + 2 * 1.0
    assert a.gpus == [0, 1] and "deadlock" in a.message
    job = r.job_segments
    names = [libscale.PHASE_NAMES[p] for p in job["phase"]]
    assert names == ["compute", "checkpoint_or_deadlock"]
    assert job["start_s"][1] == pytest.approx(start, abs=1.0)
    assert r.job_totals["checkpoint_or_deadlock"]["seconds"] == pytest.approx(DEFAULT_T + 40, abs=2)
    frame = r.timeline_frame(job=True)
    assert list(frame["phase"]) == names and (frame["gpu"] == -1).all()


def test_declared_checkpoint_is_silent(tmp_path: Path):
    # 150 s at 70 W / 100 % utilization: a deadlock with T = 60 s, unless declared a checkpoint
    p = write_trace(tmp_path / "ckpt.csv", [(100, 650, 100), (150, 70, 100), (100, 650, 100)])
    fired = libscale.triage(p, deadlock_after_s=60)
    assert [a.kind for a in fired.alerts] == ["deadlock"]
    assert fired.alerts[0].time_s == pytest.approx(T0 + 100 + 60, abs=2)
    quiet = libscale.triage(p, deadlock_after_s=60, checkpoint_windows=[(T0 + 95, T0 + 260)])
    assert quiet.alerts == []
    periodic = libscale.triage(p, deadlock_after_s=60, checkpoint_first_start_s=T0 + 95,
                               checkpoint_interval_s=1000, checkpoint_duration_s=170)
    assert periodic.alerts == []
    # the CLI's schedule starts at the first sample: saves every 100 s for 90 s leave 10 s
    # gaps, shorter than T
    out = run_cli(["triage", str(p), "--deadlock-after-s", "60", "--checkpoint-interval-s", "100",
                   "--checkpoint-duration-s", "90", "--json"])
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["alerts"] == []
    # a save as long as its interval is one endless save, which would silence every hang
    out = run_cli(["triage", str(p), "--deadlock-after-s", "60", "--checkpoint-interval-s", "90",
                   "--checkpoint-duration-s", "90"])
    assert out.returncode == 2 and "shorter than interval_s" in out.stderr


def test_cli_human_output(hang: Path):
    out = run_cli(["triage", str(hang), "--hardware", "h100"])
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    text = out.stdout
    for phase in libscale.PHASE_NAMES:
        assert phase in text
    assert "energy (kWh)" in text and "deadlock" in text
    assert f"+{HANG_START + DEFAULT_T + 1:.1f} s" in text or f"+{HANG_START + DEFAULT_T + 2:.1f} s" in text
    assert "parse:" in text


def test_cli_json(hang: Path):
    out = run_cli(["triage", str(hang), "--json"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    for key in ("timeline", "job_timeline", "alerts", "job", "gpus", "parse_report", "bands", "phases"):
        assert key in d, key
    assert [s["phase"] for s in d["job_timeline"]] == ["compute", "checkpoint_or_deadlock"]
    assert {s["gpu"] for s in d["timeline"]} == {0, 1}
    al = d["alerts"][0]
    assert al["kind"] == "deadlock" and al["gpus"] == [0, 1]
    assert T0 + HANG_START + DEFAULT_T < al["time_s"] <= T0 + HANG_START + DEFAULT_T + 2
    assert set(d["job"]["compute"]) == {"seconds", "energy_j"}
    assert d["parse_report"]["skipped_lines"] == 0 and d["parse_report"]["samples"] == (HANG_START + 640) * GPUS
    assert d["bands"]["board_power_w"] == 700


def test_bad_lines_are_skipped_and_reported(tmp_path: Path):
    p = write_trace(tmp_path / "bad.csv", [(30, 660, 100)], extra_lines={5: "garbage, line, here"})
    out = run_cli(["triage", str(p)])
    assert out.returncode == 0, out.stderr
    assert "1 skipped" in out.stdout or "skipped 1" in out.stdout or "line 6" in out.stdout, out.stdout
    rep = libscale.read_trace(p).report
    assert rep.skipped_lines == 1 and rep.first_skipped_line == 6 and "garbage" in rep.first_skipped_text


@pytest.mark.parametrize("content", [None, "hello, world\nthis is not a trace\n", HEADER + "\nx, y, z, w\n"],
                         ids=["missing", "foreign", "no-parseable-line"])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, content):
    p = tmp_path / "trace.csv"
    if content is not None:
        p.write_text(content)
    out = run_cli(["triage", str(p)])
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("libscale: error: "), out.stderr
    if content is not None:
        with pytest.raises(libscale.ParseError):
            libscale.read_trace(p)


def test_bad_options(hang: Path):
    out = run_cli(["triage", str(hang), "--checkpoint-interval-s", "100"])
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1
    out = run_cli(["triage", str(hang), "--format", "xml"])
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1
    with pytest.raises(ValueError):
        libscale.read_trace(hang, format="xml")


def _calibration(path: Path, bands: dict | None, hardware: str = "h100") -> Path:
    doc = {"schema": "libscale.calibration/1", "kind": "fitted", "hardware": hardware}
    if bands is not None:
        doc["power_bands"] = bands
    path.write_text(json.dumps(doc))
    return path


def test_calibrated_bands_from_a_calibration_file(tmp_path: Path, steady: Path):
    # measured on the machine: this H100 computes at 660 W, so with these (made-up, test)
    # edges in watts 660 W is communication, not compute
    cal = _calibration(tmp_path / "cal.json", {"basis": "watts", "power_limit_w": 700, "idle_max": 80,
                                               "checkpoint_max": 200, "starvation_max": 400,
                                               "communication_max": 680, "source": "test edges"})
    bands = libscale.power_bands("h100", calibration=cal)
    assert bands.label == f"calibrated: {cal} (test edges)" and not bands.scale_with_power_limit
    assert bands.thresholds_w(350.0)["communication_max_w"] == pytest.approx(680)  # watts stay watts
    default = libscale.power_bands("h100")
    assert default.thresholds_w(350.0)["communication_max_w"] == pytest.approx(0.6 * 350)  # fractions follow the cap
    r = libscale.triage(steady, calibration=cal)
    assert r.job_totals["communication"]["seconds"] > 0.99 * 299 and r.job_totals["compute"]["seconds"] == 0
    out = run_cli(["triage", str(steady), "--calibration", str(cal), "--json"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["bands"]["label"].startswith("calibrated:") and d["job"]["compute"]["seconds"] == 0


@pytest.mark.parametrize("bands,hardware,message", [
    (None, "h100", "no power_bands section"),
    ({"basis": "watts", "power_limit_w": 700, "idle_max": 80, "checkpoint_max": 70, "starvation_max": 400,
      "communication_max": 680}, "h100", "idle_max"),
    ({"basis": "W", "power_limit_w": 700, "idle_max": 80, "checkpoint_max": 200, "starvation_max": 400,
      "communication_max": 680}, "h100", "power_bands.basis"),
    ({"basis": "watts", "power_limit_w": 700, "idle_max": 80, "checkpoint_max": 200, "starvation_max": 400,
      "communication_max": 680}, "b300", "applies only to the hardware"),
])
def test_bad_calibrated_bands_exit_2(tmp_path: Path, steady: Path, bands, hardware, message):
    cal = _calibration(tmp_path / "cal.json", bands, hardware)
    out = run_cli(["triage", str(steady), "--calibration", str(cal)])
    assert out.returncode == 2 and message in out.stderr, out.stderr


def test_triage_takes_the_gpu_the_log_names(tmp_path: Path):
    # nvidia-smi --query-gpu=timestamp,name,index,...: H200's bands, not H100's, unless told.
    lines = ["timestamp, name, index, power.draw [W], utilization.gpu [%]"]
    lines += [f"{_stamp(T0 + t)}, NVIDIA H200, 0, 650 W, 100 %" for t in range(10)]
    log = tmp_path / "h200.csv"
    log.write_text("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, "-m", "libscale", "triage", str(log), "--format", "json"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert "bands for h200" in json.loads(out)["bands"]["label"]
    told = subprocess.run([sys.executable, "-m", "libscale", "triage", str(log), "--hardware", "b300", "--format",
                           "json"], capture_output=True, text=True, timeout=60, check=True).stdout
    assert "bands for b300" in json.loads(told)["bands"]["label"]


def test_alert_times_read_as_utc_for_wall_clock_traces():
    from libscale import _format

    alert = {"time_s": 1778192071.0, "kind": "deadlock", "gpus": [0, 1],
             "message": "deadlock suspected: all 2 GPUs ... since t = 1778191470.0 s, longer than T = 600 s"}
    line = _format.alert_line(alert, 1778191200.0)
    assert line.startswith("2026-05-07 22:14:31 UTC (+871.0 s)  deadlock  GPUs 0,1: ")
    assert "since 2026-05-07 22:04:30 UTC, longer than T = 600 s" in line
    # A trace on its own clock (seconds from its start) keeps seconds.
    relative = dict(alert, time_s=871.0, message="... since t = 270.0 s, longer")
    assert _format.alert_line(relative, 0.0).startswith("t = 871.0 s (+871.0 s)")
    assert "since t = 270.0 s, longer" in _format.alert_line(relative, 0.0)


def test_the_gpu_an_nvidia_smi_log_names_gives_its_bands(tmp_path):
    # An A100 at 380 W and 100 % is computing; H100's bands (700 W) would call it
    # communication. Without hardware=, the log's `name` column picks the A100's.
    log = tmp_path / "a100.csv"
    log.write_text("timestamp, name, index, power.draw [W], utilization.gpu [%]\n" + "".join(
        f"2026/12/04 10:{t // 60:02d}:{t % 60:02d}.000, NVIDIA A100-SXM4-80GB, 0, 380.00 W, 100 %\n"
        for t in range(120)))
    r = libscale.triage(log)
    assert "bands for a100" in r.bands.label
    assert {libscale.PHASE_NAMES[q] for q in r.job_segments["phase"]} == {"compute"}
    h100 = libscale.triage(log, hardware="h100")
    assert {libscale.PHASE_NAMES[q] for q in h100.job_segments["phase"]} != {"compute"}
