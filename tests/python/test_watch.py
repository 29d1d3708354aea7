"""The hang watcher: `libscale watch` launching a real child process (which starts a
grandchild in its process group) over replayed nvidia-smi and dcgm-exporter traces; a
hang must terminate the whole job, a healthy trace must leave the job running, missing
data must never act. Also the Prometheus textfile, the hook, --dry-run, attach by PID, the
checkpoint marker, a live dcgm-exporter URL, a growing nvidia-smi log, and NVML through a
loader test double (there is no GPU here).

The job never outlives the watcher: a watcher killed by SIGKILL takes its job
and its hooks with it; a worker that left the job's session (setsid, double fork) is still
found and killed; a hook that hangs is ended on its timeout; an exception in the loop is an
`error` event, the watch going on where it can and ending the job where it cannot; what the
job's main process leaves running is ended; signals to the watcher are passed on (or stay
ignored under nohup); an interrupted metrics write leaves no temporary file."""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import libscale
from libscale import watch as W
from test_triage import GPUS, T0, _stamp, write_trace

ROOT = Path(__file__).resolve().parents[2]
DT = 0.5  # nvidia-smi -lms 500
HANG_START = 20.0
T = 60.0  # --deadlock-after-s
SPEED = 400.0

# The job: writes its PID and a grandchild's PID (same process group), then sleeps.
CHILD = """
import os, subprocess, sys, time
g = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{os.getpid()} {g.pid}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_for(cond, timeout_s: float = 20.0) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def _pids(path: Path) -> tuple[int, int]:
    assert _wait_for(path.exists), "the child never wrote its PIDs"
    a, b = path.read_text().split()
    return int(a), int(b)


def _events(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _schema_errors(events: list[dict]) -> dict[str, list[str]]:
    """Each event that libscale.watch_event/1 refuses (library events get the CLI's tag)."""
    from test_schemas import errors
    return {f"{i} {e.get('event')}": errs for i, e in enumerate(events)
            if (errs := errors("watch_event-1", {"schema": "libscale.watch_event/1", **e}))}


def _watch(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "libscale", "watch", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


@pytest.fixture
def hang_csv(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "hang.csv", [(HANG_START, 650, 100), (T + 30, 70, 100)], dt=DT)


@pytest.fixture
def healthy_csv(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "healthy.csv", [(HANG_START, 650, 100), (T + 30, 350, 100)], dt=DT)


def test_hang_terminates_the_job_process_group(tmp_path: Path, hang_csv: Path):
    pids = tmp_path / "pids"
    prom = tmp_path / "libscale.prom"
    w = _watch(["--nvidia-smi-csv", str(hang_csv), "--speed", str(SPEED), "--deadlock-after-s", str(T),
                "--grace-s", "5", "--prometheus-textfile", str(prom), "--", sys.executable, "-c", CHILD, str(pids)])
    out, err = w.communicate(timeout=60)
    assert w.returncode == W.EXIT_TERMINATED, err
    ev = _events(out)
    child, grandchild = _pids(pids)
    assert _wait_for(lambda: not _alive(child) and not _alive(grandchild)), "the process group survived"
    alerts = [e for e in ev if e["event"] == "alert"]
    assert [a["kind"] for a in alerts] == ["deadlock"]
    fired = alerts[0]["time_s"] - T0
    # within T plus two samples of the hang's start, on the trace's clock
    assert HANG_START + T < fired <= HANG_START + T + 2 * DT
    sig = [e for e in ev if e["event"] == "signal"]
    assert sig[0]["signal"] == "SIGTERM" and sig[0]["sent"]
    assert sig[0]["result"].startswith("sent to 2 processes of the job (PIDs ")
    assert {str(child), str(grandchild)} <= set(sig[0]["result"].split("PIDs ")[1].rstrip(")").split(", "))
    start = ev[0]
    # the job runs under its keeper, which leads the job's session and process group
    assert start["event"] == "start" and start["pid"] == child and start["launched"]
    assert start["process_group"] == start["keeper_pid"] != child
    assert start["deadlock_after_s"] == T and start["bands"].startswith("default, uncalibrated")
    end = ev[-1]
    assert end["event"] == "exit" and end["terminated_by"] == "deadlock" and end["exit_status"] == 3
    assert end["job_status"] == 128 + signal.SIGTERM
    # the job's phase went compute -> checkpoint_or_deadlock, dated back near the hang's start
    job = [e for e in ev if e["event"] == "phase" and e["job"]]
    assert job[0]["to"] == "compute" and job[-1]["to"] == "checkpoint_or_deadlock"
    assert abs(job[-1]["time_s"] - T0 - HANG_START) <= 1.0 + DT
    text = prom.read_text()
    assert 'libscale_watch_alerts_total{kind="deadlock"} 1' in text
    assert 'libscale_watch_job_phase{phase="checkpoint_or_deadlock"} 1' in text
    assert 'libscale_watch_gpu_phase{gpu="1",phase="checkpoint_or_deadlock"} 1' in text
    watts = {ln.split("}")[0]: float(ln.split()[-1]) for ln in text.splitlines()
             if ln.startswith("libscale_watch_gpu_power_watts")}
    assert len(watts) == GPUS and all(60 < v < 80 for v in watts.values())


def test_healthy_trace_leaves_the_job_running(tmp_path: Path, healthy_csv: Path):
    pids = tmp_path / "pids"
    w = _watch(["--nvidia-smi-csv", str(healthy_csv), "--speed", str(SPEED), "--deadlock-after-s", str(T),
                "--", sys.executable, "-c", CHILD, str(pids)])
    child, grandchild = _pids(pids)
    # the replay lasts (20 + 90) s / 400 = 0.3 s; give it time to end, then look
    time.sleep(1.5)
    assert w.poll() is None, "the watcher exited with the job still running"
    assert _alive(child) and _alive(grandchild)
    # SIGTERM to the watcher is passed on to the job, and the watch ends with it
    w.send_signal(signal.SIGTERM)
    out, err = w.communicate(timeout=30)
    ev = _events(out)
    assert not [e for e in ev if e["event"] == "alert"], ev
    assert [(e["signal"], e["reason"]) for e in ev if e["event"] == "signal"] == [
        ("SIGTERM", "the watcher received SIGTERM: passed on to the job")]
    assert any(e["event"] == "source_ended" for e in ev)
    assert w.returncode == 128 + signal.SIGTERM, err
    assert ev[-1]["event"] == "exit" and ev[-1]["terminated_by"] is None
    assert _wait_for(lambda: not _alive(child))
    os.kill(grandchild, signal.SIGKILL) if _alive(grandchild) else None


def test_missing_data_never_kills(tmp_path: Path):
    # GPU 1 stops reporting when the hang starts: the others look hung, but data is missing.
    lines = ["timestamp, index, power.draw [W], utilization.gpu [%]"]
    t = 0.0
    while t < HANG_START + T + 30:
        for g in range(GPUS):
            if g == 1 and t >= HANG_START:
                continue
            lines.append(f"{_stamp(T0 + t)}, {g}, {650 if t < HANG_START else 70} W, 100 %")
        t += DT
    trace = tmp_path / "gap.csv"
    trace.write_text("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--nvidia-smi-csv", str(trace), "--speed",
                          str(SPEED), "--deadlock-after-s", str(T), "--", sys.executable, "-c",
                          "import time; time.sleep(1.5)"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    ev = _events(out.stdout)
    assert not [e for e in ev if e["event"] in ("alert", "signal")]
    lost = [e for e in ev if e["event"] == "gpu_lost"]
    assert lost and lost[0]["gpu"] == 1
    assert HANG_START + 5 <= lost[0]["time_s"] - T0 <= HANG_START + 5 + 2 * DT  # --stale-after-s 5


def test_dry_run_hook_and_attach_by_pid(tmp_path: Path, hang_csv: Path):
    job = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    hook_out = tmp_path / "hook.txt"
    try:
        w = _watch(["--nvidia-smi-csv", str(hang_csv), "--speed", str(SPEED), "--deadlock-after-s", str(T),
                    "--dry-run", "--hook", f'echo "$LIBSCALE_ALERT_KIND $LIBSCALE_JOB_PID" > {hook_out}.tmp && '
                    f"mv {hook_out}.tmp {hook_out}", "--pid", str(job.pid)])
        assert _wait_for(hook_out.exists), "the hook never ran"
        # attached and dry: the job is untouched and the watch goes on until stopped
        time.sleep(0.3)
        assert w.poll() is None and job.poll() is None
        w.send_signal(signal.SIGTERM)
        out, err = w.communicate(timeout=30)
        assert w.returncode == 128 + signal.SIGTERM, err
        assert job.poll() is None, "a dry run signalled the job (or the watcher passed SIGTERM on)"
        ev = _events(out)
        sig = [x for x in ev if x["event"] == "signal"]
        assert sig and not sig[0]["sent"] and f"would send to process group {job.pid}" in sig[0]["result"]
        assert ev[-2]["event"] == "stopped" and ev[-2]["signal"] == "SIGTERM"
        assert ev[-1]["event"] == "exit" and ev[-1]["exit_status"] == 128 + signal.SIGTERM
        assert hook_out.read_text().split() == ["deadlock", str(job.pid)]
    finally:
        job.kill()
        job.wait()


def test_attach_kills_a_process_by_pidfd(tmp_path: Path, hang_csv: Path):
    # Not a group leader: only the process itself is signalled, never its group (which
    # here is the test runner's).
    job = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--nvidia-smi-csv", str(hang_csv),
                              "--speed", str(SPEED), "--deadlock-after-s", str(T), "--pid", str(job.pid)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == W.EXIT_TERMINATED, out.stderr
        assert job.wait(timeout=10) == -signal.SIGTERM
        sig = next(e for e in _events(out.stdout) if e["event"] == "signal")
        assert f"sent to process {job.pid} (it does not lead its process group)" == sig["result"]
    finally:
        if job.poll() is None:
            job.kill()


def test_dcgm_trace_replay_fires(tmp_path: Path):
    scrapes = []
    t = 0.0
    while t < HANG_START + T + 10:
        p = 650 if t < HANG_START else 70
        body = "\n".join(f'DCGM_FI_DEV_POWER_USAGE{{gpu="{g}",UUID="GPU-{g}"}} {p + g}\n'
                         f'DCGM_FI_DEV_GPU_UTIL{{gpu="{g}",UUID="GPU-{g}"}} 100' for g in range(4))
        scrapes.append(f"# scrape t={t}\n{body}")
        t += 1.0
    trace = tmp_path / "dcgm.prom"
    trace.write_text("\n".join(scrapes) + "\n")
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--dcgm", str(trace), "--speed", str(SPEED),
                          "--deadlock-after-s", str(T), "--", sys.executable, "-c", "import time; time.sleep(60)"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == W.EXIT_TERMINATED, out.stderr
    alerts = [e for e in _events(out.stdout) if e["event"] == "alert"]
    assert len(alerts) == 1 and alerts[0]["gpus"] == [0, 1, 2, 3]
    assert HANG_START + T < alerts[0]["time_s"] <= HANG_START + T + 2.0


class _Metrics(http.server.BaseHTTPRequestHandler):
    power_w = 650.0

    def do_GET(self):  # http.server's name
        body = "".join(f'# TYPE DCGM_FI_DEV_POWER_USAGE gauge\nDCGM_FI_DEV_POWER_USAGE{{gpu="{g}"}} {self.power_w}\n'
                       f'DCGM_FI_DEV_GPU_UTIL{{gpu="{g}"}} 100\n' for g in range(2)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def test_live_dcgm_exporter_url():
    server = http.server.HTTPServer(("127.0.0.1", 0), _Metrics)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/metrics"
    events: list[dict] = []

    def on_event(e: dict) -> None:
        events.append(e)
        if e["event"] == "phase" and e["job"] and e["to"] == "compute":
            _Metrics.power_w = 70.0  # the job hangs once it has been seen computing

    try:
        stream = libscale.triage_stream(hardware="h100", deadlock_after_s=1.0, min_dwell_s=0.2, smoothing_s=0.1)
        job = W.Job(command=[sys.executable, "-c", "import time; time.sleep(60)"])
        rc = W.Watcher(W.DcgmSource(url), stream, job=job, grace_s=5, interval_s=0.05,
                       events=on_event).run()
    finally:
        server.shutdown()
        _Metrics.power_w = 650.0
    assert rc == W.EXIT_TERMINATED
    assert [e["kind"] for e in events if e["event"] == "alert"] == ["deadlock"]
    assert job.exit_status == 128 + signal.SIGTERM


def _trickle_server(stop: threading.Event) -> str:
    """An endpoint that answers one byte every 0.3 s and never finishes: each read is well
    inside a socket timeout, the reply never whole."""
    import socket
    srv = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                continue
            with conn:
                for byte in b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" * 1000:
                    if stop.is_set():
                        break
                    try:
                        conn.sendall(bytes([byte]))
                    except OSError:
                        break
                    time.sleep(0.3)
        srv.close()

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{srv.getsockname()[1]}/metrics"


def test_a_trickling_dcgm_endpoint_cannot_hold_the_watcher():
    stop = threading.Event()
    url = _trickle_server(stop)
    try:
        src = W.DcgmSource(url, timeout_s=1.0)
        t0 = time.monotonic()
        assert src.poll(time.time()) == []
        assert time.monotonic() - t0 < 3.0  # the scrape's deadline, not the endpoint, ends it
        assert "TimeoutError" in src.last_error and "1 s" in src.last_error, src.last_error
        # A launched job that ends is noticed while the endpoint keeps trickling.
        stream = libscale.triage_stream(hardware="h100", deadlock_after_s=60)
        job = W.Job(command=[sys.executable, "-c", "import time; time.sleep(0.5)"])
        result: list[int] = []
        runner = threading.Thread(target=lambda: result.append(
            W.Watcher(W.DcgmSource(url, timeout_s=0.5), stream, job=job, grace_s=2, interval_s=0.05).run()),
            daemon=True)
        runner.start()
        runner.join(30)
        assert not runner.is_alive(), "the watcher did not see its job end"
        assert result == [0] and job.exit_status == 0
    finally:
        stop.set()


def test_http_get_reads_a_whole_reply_and_refuses_a_bad_one():
    server = http.server.HTTPServer(("127.0.0.1", 0), _Metrics)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert 'DCGM_FI_DEV_POWER_USAGE{gpu="1"} 650.0' in W.sources.http_get(base + "/metrics", deadline_s=5)
        with pytest.raises(ValueError, match="larger than 10 bytes"):
            W.sources.http_get(base + "/metrics", deadline_s=5, max_bytes=10)
        with pytest.raises(ValueError, match="expected an http"):
            W.sources.http_get("ftp://127.0.0.1/metrics", deadline_s=5)
    finally:
        server.shutdown()


def test_followed_log_stalling_means_lost_not_hung(tmp_path: Path):
    log = tmp_path / "live.csv"
    log.write_text("timestamp, index, power.draw [W], utilization.gpu [%]\n")
    src = W.FollowCsvSource(str(log))
    stream = libscale.triage_stream(hardware="h100", deadlock_after_s=60, stale_after_s=5)
    with log.open("a") as f:  # a line split across two writes is read once whole
        f.write(f"{_stamp(T0)}, 0, 70 W, 10")
        f.flush()
        assert src.poll(1000.0) == []
        f.write(" %\n")
    polls = src.poll(1001.0)
    assert len(polls) == 1 and polls[0].power_w.tolist() == [70.0] and polls[0].now_s == T0
    stream.push(polls[0].time_s, polls[0].gpu, polls[0].power_w, polls[0].utilization_pct)
    # the log stops growing: its clock runs on with the wall clock, the GPU turns lost
    assert src.clock(1004.0) == T0 + 3.0
    up = stream.advance(src.clock(1008.0))
    assert up["lost"] == [0] and not up["alerts"]
    src.close()


def test_checkpoint_marker_silences_the_detector(tmp_path: Path, hang_csv: Path):
    def run(marker: Path | None) -> list[dict]:
        trace = libscale.read_trace(hang_csv)
        src = W.ReplaySource(trace, speed=SPEED)
        wall0 = time.time()
        src.clock(wall0)  # pin the replay's start
        if marker is not None:
            marker.touch()  # the trainer touches it when the save starts: at the hang's start, on the trace clock
            t = wall0 + HANG_START / SPEED
            os.utime(marker, (t, t))
        events: list[dict] = []
        stream = libscale.triage_stream(hardware="h100", deadlock_after_s=T)
        actions = W.Actions(checkpoint_marker=str(marker) if marker else None, checkpoint_duration_s=T + 60)
        assert W.Watcher(src, stream, actions=actions, kill_on="none", events=events.append).run() == 0
        return events

    declared = run(tmp_path / "ckpt")
    ck = [e for e in declared if e["event"] == "checkpoint_declared"]
    assert len(ck) == 1 and abs(ck[0]["time_s"] - T0 - HANG_START) < 0.5
    assert not [e for e in declared if e["event"] == "alert"]
    assert [e["kind"] for e in run(None) if e["event"] == "alert"] == ["deadlock"]


def test_nvml_absent_is_a_clear_error(tmp_path: Path):
    env = dict(os.environ, LIBSCALE_NVML_LIBRARY=str(tmp_path / "libnvidia-ml.so.1"))
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--", "true"], capture_output=True, text=True,
                         timeout=60, env=env)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "libnvidia-ml.so.1" in out.stderr and "NVIDIA driver" in out.stderr
    with pytest.raises(libscale.NvmlError):
        W.NvmlPollSource()


def test_nvml_gpu_lost_mid_run_is_reported_never_acted_on(fake_nvml: Path, monkeypatch):
    monkeypatch.setenv("LIBSCALE_NVML_LIBRARY", str(fake_nvml))
    monkeypatch.delenv("FAKE_NVML_LOST_GPU", raising=False)
    src = W.NvmlPollSource()
    assert [g["index"] for g in src.gpus()] == [0, 1]
    events: list[dict] = []

    def on_event(e: dict) -> None:
        events.append(e)
        if e["event"] == "phase" and e["job"]:
            monkeypatch.setenv("FAKE_NVML_LOST_GPU", "1")  # GPU 1 falls off the bus after the first poll

    # the fake's 100 W of 700 W at 50 % utilization is a hang at a 40 % threshold: only the
    # lost GPU keeps the watcher from acting (the control below shows it would)
    def stream():
        return libscale.triage_stream(hardware="h100", deadlock_after_s=0.5, min_dwell_s=0.1, smoothing_window_s=0.1,
                                      stale_after_s=0.3, util_threshold_pct=40)
    job = W.Job(command=[sys.executable, "-c", "import time; time.sleep(1.5)"])
    rc = W.Watcher(src, stream(), job=job, interval_s=0.05, dry_run=True, events=on_event).run()
    assert rc == 0
    err = [e for e in events if e["event"] == "source_error"]
    assert err and err[0]["gpu"] == 1 and err[0]["nvml_return"] == 15
    assert [e["gpu"] for e in events if e["event"] == "gpu_lost"] == [1]
    assert not [e for e in events if e["event"] in ("alert", "signal")]
    # the fake's GPU 0 reads 100 W of a 700 W limit at 50 % utilization
    g0 = next(e for e in events if e["event"] == "phase" and e["gpu"] == 0)
    assert g0["power_w"] == pytest.approx(100.0) and g0["to"] == "checkpoint_or_deadlock"


def test_hardware_from_nvml_names():
    assert W.catalog_hardware_of([{"name": "NVIDIA H200"}, {"name": "NVIDIA H200"}]) == "h200"
    assert W.catalog_hardware_of([{"name": "NVIDIA B300 SXM6 AC"}]) == "b300"
    assert W.catalog_hardware_of([{"name": "NVIDIA GB200"}]) == "gb200"
    assert W.catalog_hardware_of([{"name": "NVIDIA H100 80GB HBM3"}, {"name": "NVIDIA H200"}]) is None
    assert W.catalog_hardware_of([{"name": "Tesla V100-SXM2-16GB"}]) is None


def test_stream_api_and_reprs():
    s = libscale.triage_stream(hardware="h100", deadlock_after_s=60)
    up = s.push(np.array([0.0, 0.0]), np.array([0, 1]), np.array([650.0, np.nan]), np.array([100.0, 100.0]))
    assert up["dropped_samples"] == 1
    assert repr(up["changes"][0]) == "<PhaseChange GPU 0 starts in compute at t = 0 s (650 W)>"
    assert s.job_phase == "compute" and s.deadlock_after_s == 60
    assert repr(s) == "<TriageStream 1 GPUs, job compute, T = 60 s>"
    assert s.alert_counts == {"deadlock": 0, "data_starvation": 0, "straggler": 0}
    with pytest.raises(ValueError, match="time_s"):
        s.push(np.zeros((2, 2)), np.array([0]), np.array([1.0]), np.array([1.0]))
    with pytest.raises((TypeError, ValueError), match="unknown triage option 'deadlock_after'"):
        libscale.triage_stream(deadlock_after=5)


@pytest.mark.parametrize("args,message", [
    (["--follow", "--", "true"], "--follow applies to --nvidia-smi-csv"),
    (["--kill-on", "oom", "--", "true"], "--kill-on: watch option kill_on = 'oom': 'oom' is not an alert kind"),
    (["--pid", "1", "--", "true"], "not both"),
    (["--nvidia-smi-csv", "/nonexistent.csv", "--", "true"], "no such file"),
    (["--checkpoint-marker", "m", "--", "true"], "--checkpoint-duration-s"),
    (["--interval-s", "0", "--", "true"],
     "--interval-s: watch option interval_s = 0; valid: a finite number in (0, 60]"),
])
def test_bad_watch_options_exit_2(args, message):
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", *args], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and message in out.stderr, out.stderr


def test_attach_to_missing_pid_is_an_error(hang_csv: Path):
    p = subprocess.Popen(["true"])
    p.wait()
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--nvidia-smi-csv", str(hang_csv),
                          "--pid", str(p.pid)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "no such process" in out.stderr


def test_nvml_control_the_same_readings_fire_when_no_gpu_is_lost(fake_nvml: Path, monkeypatch):
    monkeypatch.setenv("LIBSCALE_NVML_LIBRARY", str(fake_nvml))
    monkeypatch.delenv("FAKE_NVML_LOST_GPU", raising=False)
    events: list[dict] = []
    stream = libscale.triage_stream(hardware="h100", deadlock_after_s=0.5, min_dwell_s=0.1, smoothing_window_s=0.1,
                                    util_threshold_pct=40)
    job = W.Job(command=[sys.executable, "-c", "import time; time.sleep(30)"])
    rc = W.Watcher(W.NvmlPollSource(), stream, job=job, interval_s=0.05, grace_s=5,
                   events=events.append).run()
    assert rc == W.EXIT_TERMINATED
    assert [e["gpus"] for e in events if e["event"] == "alert"] == [[0, 1]]


def test_nvml_gpu_failing_from_the_first_read_blocks_the_kill(fake_nvml: Path, monkeypatch):
    # GPU 1 opens at start, then fails every read: it is part of the job, so data is missing
    monkeypatch.setenv("LIBSCALE_NVML_LIBRARY", str(fake_nvml))
    monkeypatch.delenv("FAKE_NVML_LOST_GPU", raising=False)
    src = W.NvmlPollSource()
    monkeypatch.setenv("FAKE_NVML_LOST_GPU", "1")
    events: list[dict] = []
    stream = libscale.triage_stream(hardware="h100", deadlock_after_s=0.3, min_dwell_s=0.1, smoothing_window_s=0.1,
                                    util_threshold_pct=40)
    job = W.Job(command=[sys.executable, "-c", "import time; time.sleep(1.2)"])
    assert W.Watcher(src, stream, job=job, interval_s=0.05, events=events.append).run() == 0
    assert not [e for e in events if e["event"] in ("alert", "signal")]


WORKER = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a worker stuck in NCCL with a preemption handler
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""


def test_sigkill_reaches_workers_that_outlive_their_leader(tmp_path: Path, hang_csv: Path):
    # the leader (a launcher script) dies on SIGTERM; its worker ignores it: SIGKILL after the grace
    worker_pid = tmp_path / "worker"
    (tmp_path / "worker.py").write_text(WORKER)
    w = _watch(["--nvidia-smi-csv", str(hang_csv), "--speed", str(SPEED), "--deadlock-after-s", str(T),
                "--grace-s", "1", "--", "bash", "-c", f"{sys.executable} {tmp_path / 'worker.py'} {worker_pid} & wait"])
    out, err = w.communicate(timeout=60)
    assert w.returncode == W.EXIT_TERMINATED, err
    worker = int(worker_pid.read_text())
    assert _wait_for(lambda: not _alive(worker)), "the worker survived"
    sig = [(e["signal"], e["sent"]) for e in _events(out) if e["event"] == "signal"]
    assert sig == [("SIGTERM", True), ("SIGKILL", True)]


def test_attached_to_its_own_group_leader_signals_only_that_process(tmp_path: Path, hang_csv: Path):
    # A trainer that starts the watcher on itself: the group holds the watcher too
    events = tmp_path / "events.jsonl"
    script = (f"import subprocess, sys, os, time\n"
              f"subprocess.Popen([sys.executable, '-m', 'libscale', 'watch', '--nvidia-smi-csv', {str(hang_csv)!r}, "
              f"'--speed', '{SPEED}', '--deadlock-after-s', '{T}', '--grace-s', '1', '--events', {str(events)!r}, "
              f"'--pid', str(os.getpid())])\n"
              f"time.sleep(60)\n")
    leader = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        assert leader.wait(timeout=30) == -signal.SIGTERM
        assert _wait_for(lambda: events.exists() and '"event": "exit"' in events.read_text())
        ev = _events(events.read_text())
        assert ev[0]["process_group"] is None
        sig = [e for e in ev if e["event"] == "signal"]
        assert sig[0]["result"] == f"sent to process {leader.pid} (it does not lead its process group)"
        assert ev[-1]["exit_status"] == W.EXIT_TERMINATED
    finally:
        if leader.poll() is None:
            leader.kill()


def test_follow_reads_only_what_is_written_after_start(tmp_path: Path, hang_csv: Path):
    # a node-wide log holding an old hang must not get a new job killed
    log = tmp_path / "node.csv"
    log.write_bytes(hang_csv.read_bytes())
    src = W.FollowCsvSource(str(log))
    last = libscale.read_trace(hang_csv).time_s.max()
    assert src.first_time_s == last
    events: list[dict] = []
    stream = libscale.triage_stream(hardware="h100", deadlock_after_s=T)
    job = W.Job(command=[sys.executable, "-c", "import time; time.sleep(0.8)"])
    with log.open("a") as f:
        f.write(f"{_stamp(last + 1)}, 0, 650 W, 100 %\n")
    assert W.Watcher(src, stream, job=job, interval_s=0.05, events=events.append).run() == 0
    assert not [e for e in events if e["event"] in ("alert", "signal")]
    phases = [e for e in events if e["event"] == "phase" and e["gpu"] == 0]
    assert len(phases) == 1 and phases[0]["to"] == "compute" and phases[0]["time_s"] == last + 1


def test_follow_with_a_bad_header_is_refused_before_launch(tmp_path: Path):
    log = tmp_path / "bad.csv"
    log.write_text("timestamp, power.draw [W]\n")
    marker = tmp_path / "ran"
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--nvidia-smi-csv", str(log), "--follow", "--",
                          "touch", str(marker)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "index" in out.stderr
    assert not marker.exists(), "the job was launched although the watch was refused"


def test_schedule_on_a_trace_starting_at_zero(tmp_path: Path):
    # dcgm scrapes without timestamps start at t = 0: the schedule must start there too
    scrapes = []
    for t in range(200):
        p = 650 if t < 20 else 70  # a 150 s save from t = 20: declared every 200 s
        scrapes.append("\n".join(f'DCGM_FI_DEV_POWER_USAGE{{gpu="{g}"}} {p}\nDCGM_FI_DEV_GPU_UTIL{{gpu="{g}"}} 100'
                                 for g in range(2)))
    trace = tmp_path / "dcgm.prom"
    trace.write_text("\n\n".join(scrapes) + "\n")
    args = ["--dcgm", str(trace), "--speed", str(SPEED), "--deadlock-after-s", "60", "--checkpoint-interval-s", "200",
            "--checkpoint-duration-s", "175", "--", "sleep", "1"]
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert not [e for e in _events(out.stdout) if e["event"] in ("alert", "signal")]


def test_a_closed_events_pipe_does_not_end_the_watch(healthy_csv: Path):
    start = time.monotonic()
    out = subprocess.run(f"{sys.executable} -m libscale watch --nvidia-smi-csv {healthy_csv} --speed {SPEED} -- "
                         f"sleep 1.5 | head -1; echo \"status ${{PIPESTATUS[0]}}\"", shell=True, executable="/bin/bash",
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines()[-1] == "status 0"
    assert time.monotonic() - start >= 1.5  # it watched until the job ended
    assert "Traceback" not in out.stderr


def test_watch_options_come_from_the_core(hang_csv: Path):
    # one rule for the CLI and for Python: the core's watch option table checks every value
    trace = libscale.read_trace(hang_csv)
    stream = libscale.triage_stream(hardware="h100", deadlock_after_s=T)
    src = W.ReplaySource(trace, speed=SPEED)
    w = W.Watcher(src, stream, interval_s=0.25, kill_on="deadlock,straggler", events=lambda e: None)
    assert (w.options.interval_s, w.options.grace_s, w.options.dry_run) == (0.25, 30.0, False)
    assert w.kill_on == frozenset({"deadlock", "straggler"})
    # an options object, with keywords over it
    base = W.watch_options(grace_s=2.0, kill_on="none")
    w = W.Watcher(src, stream, options=base, dry_run=True, events=lambda e: None)
    assert (w.options.grace_s, w.options.dry_run, w.kill_on) == (2.0, True, frozenset())
    assert base.dry_run is False, "the keywords changed the caller's options object"
    with pytest.raises(ValueError, match=r"watch option interval_s = 0; valid: a finite number in \(0, 60\]"):
        W.Watcher(src, stream, interval_s=0)
    with pytest.raises(ValueError, match=r"watch option grace_s = -1"):
        W.Watcher(src, stream, grace_s=-1)
    with pytest.raises(ValueError, match=r"'oom' is not an alert kind"):
        W.Watcher(src, stream, kill_on="deadlock,oom")
    with pytest.raises((TypeError, ValueError), match=r"unknown watch option 'interval'; valid: interval_s"):
        W.Watcher(src, stream, interval=1.0)
    with pytest.raises(ValueError, match=r"watch option speed = 0"):
        W.ReplaySource(trace, speed=0)
    with pytest.raises(ValueError, match=r"watch option nvml_power = 'peak'; valid: average, instant"):
        W.NvmlPollSource(power="peak")
    # the sources satisfy the PowerSource protocol (mypy checks the types; this, the members)
    assert isinstance(src, W.PowerSource) and not isinstance(object(), W.PowerSource)
    # the docstring lists the options from the same table
    assert all(name in (W.Watcher.__doc__ or "") for name in libscale.options.names("watch"))


# --- the job never outlives the watcher ------------------------------------------------

# The job: a worker that leaves the job's session (setsid) and is orphaned by a double fork,
# as a launcher's daemonized helper is; the job writes its PID and the worker's, then sleeps.
DETACHED_WORKER = """
import os, sys, time
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(w, str(os.getpid()).encode())
        time.sleep(600)
    os._exit(0)
os.close(w)
worker = os.read(r, 64).decode()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{os.getpid()} {worker}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
"""
DETACHED = DETACHED_WORKER + "time.sleep(600)\n"

# A hook that starts a child and waits on it; it writes its own PID and the child's.
def _hanging_hook(path: Path) -> str:
    return f'sleep 600 & echo "$$ $!" > {path}.tmp && mv {path}.tmp {path}; wait'


def _session(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except ProcessLookupError:
        return None


def test_a_watcher_killed_by_sigkill_takes_its_job_and_hooks_with_it(tmp_path: Path, hang_csv: Path):
    pids, hook_pids = tmp_path / "pids", tmp_path / "hook"
    # --kill-on none: the alert runs the hook, and the job keeps running
    w = _watch(["--nvidia-smi-csv", str(hang_csv), "--speed", str(SPEED), "--deadlock-after-s", str(T),
                "--kill-on", "none", "--grace-s", "2", "--hook", _hanging_hook(hook_pids),
                "--", sys.executable, "-c", DETACHED, str(pids)])
    try:
        job, worker = _pids(pids)
        hook, hook_child = _pids(hook_pids)
        assert _session(worker) not in (None, _session(job)), "the worker did not leave the job's session"
        assert all(_alive(p) for p in (job, worker, hook, hook_child))
    finally:
        w.kill()  # SIGKILL: the watcher runs no code of its own after this
        w.communicate(timeout=30)
    assert _wait_for(lambda: not any(_alive(p) for p in (job, worker, hook, hook_child)), timeout_s=60), \
        [p for p in (job, worker, hook, hook_child) if _alive(p)]


def test_the_deadlock_kill_reaches_a_worker_that_left_with_setsid(tmp_path: Path, hang_csv: Path):
    pids = tmp_path / "pids"
    w = _watch(["--nvidia-smi-csv", str(hang_csv), "--speed", str(SPEED), "--deadlock-after-s", str(T),
                "--grace-s", "5", "--", sys.executable, "-c", DETACHED, str(pids)])
    out, err = w.communicate(timeout=60)
    assert w.returncode == W.EXIT_TERMINATED, err
    job, worker = _pids(pids)
    assert _wait_for(lambda: not _alive(job) and not _alive(worker)), "the detached worker survived"
    sig = [e for e in _events(out) if e["event"] == "signal"]
    assert sig[0]["signal"] == "SIGTERM" and sig[0]["sent"]
    assert {str(job), str(worker)} <= set(sig[0]["result"].split("PIDs ")[1].rstrip(")").split(", "))


def test_a_hanging_hook_is_ended_on_its_timeout(tmp_path: Path, hang_csv: Path):
    hook_pids = tmp_path / "hook"
    # monitor only: the replay ends at once, and the watch waits for the hook up to its timeout
    w = _watch(["--nvidia-smi-csv", str(hang_csv), "--speed", str(SPEED), "--deadlock-after-s", str(T),
                "--hook-timeout-s", "2", "--hook", _hanging_hook(hook_pids)])
    out, err = w.communicate(timeout=60)
    assert w.returncode == 0, err
    hook, hook_child = _pids(hook_pids)
    assert _wait_for(lambda: not _alive(hook) and not _alive(hook_child)), "the hook outlived its timeout"
    ev = _events(out)
    timeouts = [e for e in ev if e["event"] == "hook_timeout"]
    assert len(timeouts) == 1 and timeouts[0]["pid"] == hook and timeouts[0]["timeout_s"] == 2
    assert timeouts[0]["kind"] == "deadlock" and "longer than 2 s" in timeouts[0]["message"]
    assert ev[-1]["event"] == "exit" and ev.index(timeouts[0]) < len(ev) - 1
    assert _schema_errors(ev) == {}


class _FlakySource:
    """A replay whose poll raises for a while (a sensor bus reset), then recovers."""

    def __init__(self, inner: W.ReplaySource, bad_polls: range) -> None:
        self.inner, self.bad, self.n = inner, bad_polls, 0
        self.name = "flaky " + inner.name
        self.live = False
        self.report = None

    @property
    def ended(self) -> bool:
        return self.inner.ended

    def clock(self, wall: float) -> float:
        return self.inner.clock(wall)

    def poll(self, wall: float) -> list:
        self.n += 1
        if self.n in self.bad:
            raise RuntimeError("sensor bus reset")
        return self.inner.poll(wall)

    def close(self) -> None:
        pass


class _FaultyStream:
    """The real TriageStream, whose push raises once (the classifier failing on a poll)."""

    def __init__(self, inner, fail_on: int) -> None:
        self._inner, self._fail_on, self._pushes = inner, fail_on, 0

    def push(self, *a, **kw):
        self._pushes += 1
        if self._pushes == self._fail_on:
            raise ValueError("classifier exploded")
        return self._inner.push(*a, **kw)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


def test_errors_in_the_loop_are_events_and_the_watch_goes_on(tmp_path: Path, healthy_csv: Path):
    src = _FlakySource(W.ReplaySource(libscale.read_trace(healthy_csv), speed=SPEED), range(2, 6))
    stream = _FaultyStream(libscale.triage_stream(hardware="h100", deadlock_after_s=T), fail_on=3)
    # the metrics file's path is a directory: every write fails
    actions = W.Actions(prometheus_textfile=str(tmp_path))
    job = W.Job(command=[sys.executable, "-c", "import sys, time; time.sleep(1.5); sys.exit(5)"])
    events: list[dict] = []
    rc = W.Watcher(src, stream, job=job, actions=actions, interval_s=0.02, prometheus_interval_s=0.02,
                   events=events.append).run()
    assert rc == 5, events[-3:]  # the job's own status: the watch went on to its end
    errors = [e for e in events if e["event"] == "error"]
    # one event per failing step, however often it failed, none fatal
    assert [(e["step"], e["fatal"]) for e in errors] == [("source", False), ("classifier", False)], errors
    assert "RuntimeError: sensor bus reset" in errors[0]["message"]
    assert "ValueError: classifier exploded" in errors[1]["message"]
    prom = [e for e in events if e["event"] == "prometheus_error"]
    assert len(prom) == 1 and "is a directory" in prom[0]["error"]
    assert any(e["event"] == "phase" for e in events[events.index(errors[-1]):]), "no classification after the error"
    assert events[-1]["event"] == "exit" and events[-1]["job_status"] == 5 and events[-1]["exit_status"] == 5
    assert _schema_errors(events) == {}


def test_a_fatal_error_says_so_and_ends_the_launched_job(healthy_csv: Path):
    job = W.Job(command=[sys.executable, "-c", "import time; time.sleep(600)"], grace_s=1)
    calls = 0
    alive = job.alive

    def failing() -> bool:  # keeping track of the job fails: the watch cannot go on
        nonlocal calls
        calls += 1
        if calls > 3:
            raise ChildProcessError("no child processes (someone else reaped the job)")
        return alive()

    job.alive = failing
    events: list[dict] = []
    src = W.ReplaySource(libscale.read_trace(healthy_csv), speed=SPEED)
    rc = W.Watcher(src, libscale.triage_stream(hardware="h100", deadlock_after_s=T), job=job, interval_s=0.02,
                   grace_s=1, events=events.append).run()
    assert rc == W.EXIT_WATCHER_ERROR == 70
    fatal = [e for e in events if e["event"] == "error" and e["fatal"]]
    assert len(fatal) == 1 and fatal[0]["step"] == "watcher"
    assert "ChildProcessError" in fatal[0]["message"] and "the job is ended" in fatal[0]["message"]
    assert events[-1]["event"] == "exit" and events[-1]["exit_status"] == W.EXIT_WATCHER_ERROR
    assert _wait_for(lambda: not _alive(job.pid)), "the job outlived a watch that could not go on"
    assert _schema_errors(events) == {}


def test_a_killed_keeper_takes_the_job_with_it_and_is_reported(healthy_csv: Path):
    # PR_SET_PDEATHSIG: the job's main process dies with its keeper
    job = W.Job(command=[sys.executable, "-c", "import time; time.sleep(600)"], grace_s=1)
    events: list[dict] = []

    def on_event(e: dict) -> None:
        events.append(e)
        if e["event"] == "start":
            os.kill(e["keeper_pid"], signal.SIGKILL)

    src = W.ReplaySource(libscale.read_trace(healthy_csv), speed=SPEED)
    rc = W.Watcher(src, libscale.triage_stream(hardware="h100", deadlock_after_s=T), job=job, interval_s=0.02,
                   events=on_event).run()
    assert _wait_for(lambda: not _alive(job.pid)), "the job outlived its keeper"
    assert rc == 128 + signal.SIGKILL
    lost = [e for e in events if e["event"] == "error" and e["step"] == "job"]
    assert len(lost) == 1 and "killed by SIGKILL" in lost[0]["message"] and not lost[0]["fatal"]
    assert _schema_errors(events) == {}


LEAVES = DETACHED_WORKER + "sys.exit(7)\n"  # the job exits on its own, leaving its worker


def test_the_jobs_status_is_the_watchers_and_what_it_leaves_is_ended(tmp_path: Path, healthy_csv: Path):
    pids = tmp_path / "pids"
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--nvidia-smi-csv", str(healthy_csv), "--speed",
                          str(SPEED), "--deadlock-after-s", str(T), "--grace-s", "5", "--", sys.executable, "-c",
                          LEAVES, str(pids)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 7, out.stderr
    job, left = _pids(pids)
    assert not _alive(job)
    assert _wait_for(lambda: not _alive(left)), "a process the job left running outlived the watch"
    ev = _events(out.stdout)
    sig = [e for e in ev if e["event"] == "signal"]
    assert sig and sig[0]["signal"] == "SIGTERM" and sig[0]["sent"] and str(left) in sig[0]["result"]
    assert "main process exited" in sig[0]["reason"]
    assert ev[-1]["event"] == "exit" and ev[-1]["job_status"] == 7 and ev[-1]["terminated_by"] is None
    assert _schema_errors(ev) == {}


def test_sighup_stays_ignored_under_nohup_and_sigint_is_passed_on(tmp_path: Path, healthy_csv: Path):
    pids = tmp_path / "pids"
    w = subprocess.Popen(["nohup", sys.executable, "-m", "libscale", "watch", "--nvidia-smi-csv", str(healthy_csv),
                          "--speed", str(SPEED), "--deadlock-after-s", str(T), "--", sys.executable, "-c", CHILD,
                          str(pids)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL)
    try:
        first = w.stdout.readline()  # the watch has begun: its handlers are in place
        assert json.loads(first)["event"] == "start"
        child, grandchild = _pids(pids)
        w.send_signal(signal.SIGHUP)
        w.send_signal(signal.SIGINT)
        out, err = w.communicate(timeout=60)
    finally:
        if w.poll() is None:
            w.kill()
    # SIGINT ends the job (Python re-raises it: killed by SIGINT); SIGHUP left no trace
    assert w.returncode == 128 + signal.SIGINT, err
    ev = _events(out)
    assert [(e["signal"], e["sent"]) for e in ev if e["event"] == "signal"] == [("SIGINT", True)]
    assert _schema_errors(ev) == {}
    assert _wait_for(lambda: not _alive(child) and not _alive(grandchild))


def test_a_command_that_cannot_run_is_refused(hang_csv: Path):
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--nvidia-smi-csv", str(hang_csv), "--",
                          "/nonexistent/trainer"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "No such file or directory: '/nonexistent/trainer'" in out.stderr, out.stderr
    assert "--hook-timeout-s" in subprocess.run([sys.executable, "-m", "libscale", "watch", "--hook-timeout-s", "0",
                                                 "--", "true"], capture_output=True, text=True, timeout=60).stderr


# The metrics file is written by _files.write_atomic; a signal lands while it writes.
INTERRUPTED_WRITE = """
import os, signal, sys, time
from libscale import _files
fsync = os.fsync
def interrupted(fd):
    fsync(fd)
    os.kill(os.getpid(), getattr(signal, sys.argv[2]))
    time.sleep(5)
os.fsync = interrupted
_files.write_atomic(sys.argv[1], b"new" * 100000, what="the metrics file", sync=True)
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_an_interrupted_write_leaves_no_temporary_file(tmp_path: Path, sig: str):
    target = tmp_path / "libscale.prom"
    target.write_text("old")
    out = subprocess.run([sys.executable, "-c", INTERRUPTED_WRITE, str(target), sig], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == -getattr(signal, sig), out.stderr
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["libscale.prom"]


def test_write_atomic_without_o_tmpfile(tmp_path: Path, monkeypatch):
    # a file system without O_TMPFILE: a named temporary file, renamed, none left behind
    from libscale import _files
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    target = tmp_path / "libscale.prom"
    _files.write_atomic(target, b"one", sync=False)
    _files.write_atomic(target, b"two", sync=True)
    assert target.read_bytes() == b"two" and sorted(p.name for p in tmp_path.iterdir()) == ["libscale.prom"]


def _log(path: Path, pieces: list[tuple[float, float, float, float]]) -> Path:
    """pieces: (clock jump before it in s, duration s, watts, utilization %), DT apart."""
    lines = ["timestamp, index, power.draw [W], utilization.gpu [%]"]
    t = 0.0
    for jump, duration, watts, util in pieces:
        t += jump
        for _ in range(round(duration / DT)):
            lines.extend(f"{_stamp(T0 + t)}, {g}, {watts} W, {util} %" for g in range(GPUS))
            t += DT
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_clock_jump_in_the_log_is_a_gap_not_hang_time(tmp_path: Path):
    # The log's local-time stamps jump an hour on (daylight saving) in the middle of
    # a 20 s save at idle watts; the watcher counted the hour as hang time and killed the job.
    trace = _log(tmp_path / "dst.csv", [(0, 10, 650, 100), (0, 10, 70, 100), (3600, 10, 70, 100),
                                        (0, 10, 650, 100)])
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--nvidia-smi-csv", str(trace), "--speed", "40000",
                          "--deadlock-after-s", str(T), "--", sys.executable, "-c", "import time; time.sleep(1.5)"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    ev = _events(out.stdout)
    assert not [e for e in ev if e["event"] in ("alert", "signal")], ev
    gaps = [e for e in ev if e["event"] == "data_gap"]
    assert sorted(e["gpu"] for e in gaps) == list(range(GPUS))
    assert all(e["to_s"] - e["from_s"] == pytest.approx(3600 + DT) for e in gaps)
    assert not _schema_errors(ev)


def test_a_clock_step_back_is_rebased_and_the_hang_after_it_caught(tmp_path: Path):
    # The log's clock goes back an hour: later lines were dropped, the GPUs reported lost and
    # the hang after the step never seen.
    trace = _log(tmp_path / "back.csv", [(0, 10, 650, 100), (-3600, T + 30, 70, 100)])
    pids = tmp_path / "pids"
    w = _watch(["--nvidia-smi-csv", str(trace), "--speed", str(SPEED), "--deadlock-after-s", str(T), "--grace-s",
                "1", "--", sys.executable, "-c", CHILD, str(pids)])
    child, grandchild = _pids(pids)
    out, err = w.communicate(timeout=60)
    ev = _events(out)
    steps = [e for e in ev if e["event"] == "clock_step"]
    assert len(steps) == 1 and steps[0]["step_s"] == pytest.approx(3600 - DT, abs=0.01)  # 9.5 s -> 10 s - 1 h
    assert not [e for e in ev if e["event"] == "gpu_lost"]
    assert [e["kind"] for e in ev if e["event"] == "alert"] == ["deadlock"]
    assert w.returncode == 3, err
    assert not _schema_errors(ev)
    assert _wait_for(lambda: not _alive(child) and not _alive(grandchild))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("job_status, expected", [(0, W.EXIT_EVENTS_LOST), (5, 5)])
def test_events_on_a_full_disk_end_with_a_status_that_says_so(tmp_path: Path, job_status, expected):
    log = write_trace(tmp_path / "ok.csv", [(20, 650, 100)])
    out = subprocess.run([sys.executable, "-m", "libscale", "watch", "--nvidia-smi-csv", str(log), "--speed", "1000",
                          "--events", "/dev/full", "--", sys.executable, "-c",
                          f"import sys, time; time.sleep(0.3); sys.exit({job_status})"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == expected, out.stderr  # the job's failure is never masked
    assert "Traceback" not in out.stderr
    assert "events can no longer be written" in out.stderr
    assert ("exit status 74" in out.stderr) == (job_status == 0), out.stderr
