"""Progress bars (libscale._progress) over the long compiled calls: the gate, pack, a sweep
and the fit report through a libscale._core.Progress and draw a bar that ends at 100 %
naming the operation; set_progress(False) draws nothing; the bar's line itself; Ctrl-C
stops a long call (KeyboardInterrupt) before its end. Drawing is forced onto a captured
stream with no delay, so nothing here depends on how long a call takes."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

import libscale
from conftest import ROOT
from libscale import _core, _progress

MEASUREMENTS = ROOT / "calibration" / "data" / "measurements" / "torchtitan-llama3.1-8b-h100.json"


@pytest.fixture
def stderr(monkeypatch, capsys):
    """Bars on and drawn at once onto the captured stderr (no terminal); reads what was drawn."""
    monkeypatch.delenv("LIBSCALE_PROGRESS", raising=False)
    monkeypatch.setattr(_progress, "DELAY_S", 0.0)
    monkeypatch.setattr(_progress, "_enabled", None)  # restored to the default after the test
    libscale.set_progress(True)
    return lambda: capsys.readouterr().err


def final_line(text: str) -> str:
    """The bar's last state: the text after the last carriage return, on the closing line."""
    assert text.endswith("\n"), repr(text[-200:])
    return text.rstrip("\n").rsplit("\r", 1)[-1]


def lengths(n: int = 200_000) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.clip(rng.lognormal(6.4, 1.0, n), 1, 60_000).astype(np.uint32)


def test_set_progress_is_exported():
    assert "set_progress" in libscale.__all__ and libscale.set_progress is _progress.set_progress


@pytest.mark.parametrize("packing", ["trl_bfd", "nemo_ffd", "multipack"])
def test_gate_draws_a_bar_that_ends_at_100_percent(stderr, packing):
    values = lengths()
    if packing == "nemo_ffd":  # NeMo refuses a sample longer than seq_len, as upstream does
        values = np.minimum(values, 4096)
    result = libscale.gate(values, world_size=8, seq_len=4096, packing=packing)
    line = final_line(stderr())
    packer = libscale._api._packer(packing)
    assert line.startswith(f"gate ({packer}): 100% [{'#' * 24}]"), line
    # Axolotl packs per rank after sharding: every rank's shard, padded to equal size.
    samples = len(values) if packer != "axolotl_multipack" else 8 * -(-len(values) // 8)
    assert f"{samples:,} samples of {samples:,} samples" in line
    libscale.set_progress(False)
    assert result.passed == libscale.gate(values, world_size=8, seq_len=4096, packing=packing).passed


def test_pack_draws_a_bar_that_ends_at_100_percent(stderr):
    libscale.pack(lengths(50_000), seq_len=4096, packing="bfd")
    line = final_line(stderr())
    assert line.startswith("pack (trl_bfd): 100% ") and "50,000 samples of 50,000 samples" in line, line


def test_sweep_draws_a_bar_that_ends_at_100_percent(stderr):
    gpus = np.tile([8, 16, 32, 64], 10_000)
    libscale.Plan("qwen3-32b", "b300", gpus_per_node=8).sweep(gpus=gpus, micro_batch=[[1], [2]], threads=2)
    line = final_line(stderr())
    assert line.startswith("sweep: 100% ") and "80,000 configurations of 80,000 configurations" in line, line


def test_fit_draws_a_bar_that_ends_at_100_percent(stderr):
    measurements = libscale.read_measurements(MEASUREMENTS)
    libscale.fit(measurements)
    line = final_line(stderr())
    assert line.startswith(f"fit ({len(measurements):,} records): 100% "), line
    assert " iterations of " in line


def test_set_progress_false_draws_nothing(stderr):
    libscale.set_progress(False)
    libscale.gate(lengths(), world_size=8, seq_len=4096)
    libscale.Plan("qwen3-32b", "b300").sweep(gpus=np.arange(1, 20_000))
    assert stderr() == ""


def test_no_terminal_draws_nothing(stderr):
    libscale.set_progress(None)  # the default: a StringIO is no terminal
    libscale.gate(lengths(), world_size=8, seq_len=4096)
    assert stderr() == ""


def test_counter_reports_the_calls_work():
    values = lengths(100_000)
    config = libscale._api._gate_config(world_size=4, seq_len=4096, packing=None, shuffle_seed=None, drop_last=None)
    counter = _core.Progress()
    assert (counter.done, counter.total) == (0, 0)
    _core.gate.gate(values, config, progress=counter)
    assert counter.done == counter.total == len(values)
    assert repr(counter) == f"Progress(done={len(values)}, total={len(values)})"
    with pytest.raises(AttributeError):
        counter.done = 0  # type: ignore[misc]


def test_bar_text():
    bar = _progress.Progress(2_000_000, "gate (trl_bfd)", unit="samples", quiet=True)
    bar.done = 500_000
    assert bar.text(now=bar._start + 2.0) == (
        "gate (trl_bfd):  25% [######------------------] 500,000 samples of 2,000,000 samples, 2.0 s, 6 s left")
    bar.done = 2_000_000
    assert bar.text(now=bar._start + 8.0) == (
        f"gate (trl_bfd): 100% [{'#' * 24}] 2,000,000 samples of 2,000,000 samples, 8.0 s")
    data = _progress.Progress(3 << 30, "reading", unit="B", quiet=True)
    data.done = 1536 << 20
    assert data.text(now=data._start + 1.0).startswith("reading:  50% [############------------] 1.5 GiB of 3.0 GiB")
    data.done = 512
    assert "512 B of 3.0 GiB" in data.text()
    open_ended = _progress.Progress(0, "parsing", unit="lines", quiet=True)
    open_ended.done = 12_345
    assert open_ended.text(now=open_ended._start + 0.5) == "parsing: 12,345 lines, 0.5 s"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to the own process is POSIX")
def test_ctrl_c_interrupts_a_long_call():
    # A fit of about 2,000 records runs for many Levenberg-Marquardt iterations, each
    # checked for cancelling: SIGINT once it is under way stops it before its end.
    records = libscale.read_measurements(MEASUREMENTS).to_json()["records"]
    steps = [r for r in records if r["kind"] == "step"]
    data = libscale.read_measurements([steps[i % len(steps)] for i in range(2100)])
    counter = _core.Progress()
    sent = threading.Event()
    finished = threading.Event()

    def interrupt() -> None:
        while counter.done == 0 and not finished.is_set():
            time.sleep(0.001)
        if not finished.is_set() and counter.done < counter.total:
            sent.set()
            os.kill(os.getpid(), signal.SIGINT)

    # Python's own handler, also where SIGINT was ignored when the tests started (a background job).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    thread = threading.Thread(target=interrupt)
    interrupted = False
    try:
        thread.start()
        _core.calibrate.fit(data.raw, libscale.hardware("h100"), progress=counter)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        finished.set()
        thread.join()
        signal.signal(signal.SIGINT, previous)
    if not sent.is_set():
        pytest.skip("the fit ended before it could be interrupted")
    assert interrupted
    assert counter.done < counter.total
