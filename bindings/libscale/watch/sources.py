"""Where the watcher's power samples come from: a recorded trace replayed at N x speed, a
growing nvidia-smi log, dcgm-exporter's /metrics, or NVML. Each is a :class:`PowerSource`;
the loop (loop.py) knows nothing else about them."""

from __future__ import annotations

import os
import socket
import ssl
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .. import _core
from .._core import spec as _spec

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]


@dataclass
class Poll:
    """Samples of one poll on the source's clock (s)."""

    now_s: float
    time_s: FloatArray
    gpu: IntArray
    power_w: FloatArray
    utilization_pct: FloatArray
    power_limit_w: dict[int, float] | None = None
    errors: list[tuple[int, int, str]] = field(default_factory=list)  # (gpu, NVML code, text)


@runtime_checkable
class PowerSource(Protocol):
    """What the Watcher polls. ``clock(wall)`` maps the wall clock to the source's own (None
    while it has none yet); ``poll(wall)`` returns the polls that are new by then; ``live``:
    samples arrive in real time (no data then means lost GPUs); ``ended``: a finite source is
    exhausted. Optional extras the loop looks for: ``last_error`` (a failed read, reported
    once), ``speed`` (a replay's factor), ``gpus()`` (the GPUs the job has)."""

    name: str

    @property
    def live(self) -> bool: ...

    @property
    def ended(self) -> bool: ...

    @property
    def report(self) -> _core.triage.ParseReport | None: ...

    def clock(self, wall: float) -> float | None: ...

    def poll(self, wall: float) -> list[Poll]: ...

    def close(self) -> None: ...


class _TimeGroups:
    """Rows sorted by time and cut at each new timestamp; Poll objects are made on demand,
    so a long trace costs its columns, not an object per timestamp."""

    def __init__(self, cols: dict[str, Any]) -> None:
        t = np.asarray(cols["time_s"], dtype=np.float64)
        order = np.argsort(t, kind="stable")
        self.t = t[order]
        self.g = np.asarray(cols["gpu"], dtype=np.int32)[order]
        self.p = np.asarray(cols["power_w"], dtype=np.float64)[order]
        self.u = np.asarray(cols["utilization_pct"], dtype=np.float64)[order]
        cuts = np.flatnonzero(np.diff(self.t)) + 1
        self.bounds = np.concatenate(([0], cuts, [self.t.size])) if self.t.size else np.zeros(1, np.int64)

    def __len__(self) -> int:
        return len(self.bounds) - 1

    def time(self, k: int) -> float:
        return float(self.t[self.bounds[k]])

    def __getitem__(self, k: int) -> Poll:
        a, b = self.bounds[k], self.bounds[k + 1]
        return Poll(float(self.t[a]), self.t[a:b], self.g[a:b], self.p[a:b], self.u[a:b])


def _group_by_time(cols: dict[str, Any]) -> list[Poll]:
    """One Poll per distinct timestamp, in time order (a log chunk holds many polls)."""
    groups = _TimeGroups(cols)
    return [groups[k] for k in range(len(groups))]


class ReplaySource:
    """A recorded trace played at ``speed`` x real time; every distinct timestamp is one
    poll, so a replay meets the detector exactly as the offline triage does."""

    live = False

    def __init__(self, trace: _core.triage.PowerTrace, *, speed: float = 1.0, name: str = "replay") -> None:
        # the core checks speed (watch option table): one rule for the CLI and for Python
        self.speed: float = _spec.make_options("watch", {"speed": speed}).speed
        if len(trace) == 0:
            raise ValueError(f"{trace.report.summary()}; no samples to replay")  # says why: what was skipped
        self.name = name
        self.report: _core.triage.ParseReport | None = trace.report
        self._polls = _TimeGroups({"time_s": trace.time_s, "gpu": trace.gpu, "power_w": trace.power_w,
                                   "utilization_pct": trace.utilization_pct})
        self._next = 0
        self._t0 = self.first_time_s = self._polls.time(0)
        self._wall0: float | None = None
        self.ended = False

    def clock(self, wall: float) -> float:
        if self._wall0 is None:
            self._wall0 = wall
        return self._t0 + (wall - self._wall0) * self.speed

    def poll(self, wall: float) -> list[Poll]:
        now = self.clock(wall)
        out = []
        while self._next < len(self._polls) and self._polls.time(self._next) <= now:
            out.append(self._polls[self._next])
            self._next += 1
        self.ended = self._next == len(self._polls)
        return out

    def close(self) -> None:
        pass


class FollowCsvSource:
    """A growing nvidia-smi CSV log (``nvidia-smi --query-gpu=... -lms 500 -f FILE``), read
    like ``tail -f``: what the file holds at start is history (only its header and its
    last timestamp are read), new complete lines are polled. The clock is the log's own
    (nvidia-smi writes local time), extrapolated by wall time since the last new line, so
    a log that stops growing makes its GPUs lost, never hung; it is None until the log
    has a timestamp."""

    live = True
    ended = False

    def __init__(self, path: str, *, history_bytes: int = 1 << 20) -> None:
        self.name = f"nvidia-smi log {path}"
        self.path = path
        self._f: IO[bytes] = open(path, "rb")  # noqa: SIM115 (kept open while following)
        self._reader = _core.triage.NvidiaSmiCsvReader(path)
        self._last_t: float | None = None
        self._last_wall = time.time()
        self.first_time_s: float | None = None
        size = os.fstat(self._f.fileno()).st_size
        head = self._f.read(min(size, history_bytes))
        if size > len(head):  # a long log: its header is at the top, its clock at the end
            self._f.seek(size - history_bytes)
            tail = self._f.read()
        else:
            tail = head
        end = size - (len(tail) - (tail.rfind(b"\n") + 1))  # after the last complete line
        # The last header (a header missing columns fails here, before any launch), then the
        # last lines for the clock: read, not pushed, and later lines must come after them.
        headers = [ln for ln in head.splitlines() if b"power.draw" in ln]
        lines = [ln for ln in tail[: tail.rfind(b"\n") + 1].splitlines()[-64:] if b"power.draw" not in ln]
        t = self._reader.feed(b"".join(ln + b"\n" for ln in headers[-1:] + lines))["time_s"]
        if len(t):
            self._last_t = self.first_time_s = float(np.max(t))
        self._f.seek(max(end, 0))

    @property
    def report(self) -> _core.triage.ParseReport:
        return self._reader.report

    def clock(self, wall: float) -> float | None:
        return None if self._last_t is None else self._last_t + (wall - self._last_wall)

    def poll(self, wall: float) -> list[Poll]:
        if os.fstat(self._f.fileno()).st_size < self._f.tell():  # truncated or rotated in place
            self._f.seek(0)
        chunk = self._f.read()
        if not chunk:
            return []
        polls = _group_by_time(self._reader.feed(chunk))
        if polls:
            self._last_t = polls[-1].now_s
            self._last_wall = wall
        return polls

    def close(self) -> None:
        self._f.close()


#: A scrape larger than this is not dcgm-exporter's /metrics (a node of 8 GPUs with every
#: default field is some 100 kB).
MAX_SCRAPE_BYTES = 16 << 20


def http_get(url: str, *, deadline_s: float, max_bytes: int = MAX_SCRAPE_BYTES) -> str:
    """The body of an HTTP GET, read within ``deadline_s`` in all: a socket timeout alone
    bounds each read, and a server that trickles a byte every half second would hold the
    watcher forever. HTTP/1.0 (a body delimited by the connection's end, no chunked
    encoding), ``http`` or ``https``. TimeoutError past the deadline, OSError for the
    network, ValueError for a reply that is not a 200 or is over max_bytes with its headers."""
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("http", "https") or not u.hostname:
        raise ValueError(f"{url}: expected an http:// or https:// URL")
    end = time.monotonic() + deadline_s

    def left() -> float:
        remaining = end - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"no whole reply within {deadline_s:g} s")
        return remaining

    try:
        port = u.port or (443 if u.scheme == "https" else 80)
        raw = socket.create_connection((u.hostname, port), timeout=left())
        # wrap_socket takes the connection over (raw is detached): close what is used.
        try:
            sock = ssl.create_default_context().wrap_socket(raw, server_hostname=u.hostname) \
                if u.scheme == "https" else raw
        except BaseException:
            raw.close()
            raise
        with sock:
            path = (u.path or "/") + (f"?{u.query}" if u.query else "")
            sock.settimeout(left())
            sock.sendall(f"GET {path} HTTP/1.0\r\nHost: {u.netloc}\r\nAccept-Encoding: identity\r\n"
                         "Connection: close\r\n\r\n".encode("latin-1"))
            parts: list[bytes] = []
            size = 0
            while True:
                sock.settimeout(left())
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                size += len(chunk)
                if size > max_bytes:  # headers and body
                    raise ValueError(f"reply larger than {max_bytes:,} bytes")
                parts.append(chunk)
    except TimeoutError:  # a read's own timeout: the same deadline
        raise TimeoutError(f"no whole reply within {deadline_s:g} s") from None
    head, sep, body = b"".join(parts).partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].split()
    if not sep or len(status) < 2 or not status[0].startswith(b"HTTP/"):
        raise ValueError("not an HTTP reply")
    if status[1] != b"200":
        raise ValueError(f"HTTP status {status[1].decode('latin-1', 'replace')}")
    return body.decode("utf-8", "replace")


class DcgmSource:
    """dcgm-exporter on this machine: one GET of its /metrics per poll, stamped with the
    wall clock (a failed scrape is reported and yields no data). Each scrape has
    ``timeout_s`` in all (http_get), so a stalled endpoint cannot stop the watcher from
    polling its job."""

    live = True
    ended = False

    def __init__(self, url: str, *, timeout_s: float = 2.0) -> None:
        self.name = f"dcgm-exporter {url}"
        self.url = url
        self.timeout_s = timeout_s
        self._parser = _core.triage.DcgmScrapeParser(url)
        self.last_error: str | None = None

    @property
    def report(self) -> _core.triage.ParseReport:
        return self._parser.report

    def clock(self, wall: float) -> float:
        return wall

    def poll(self, wall: float) -> list[Poll]:
        try:
            text = http_get(self.url, deadline_s=self.timeout_s)
        except (OSError, ValueError) as e:  # refused, reset, DNS, TLS, TimeoutError, a bad reply
            self.last_error = f"{self.url}: {type(e).__name__}: {e}"
            return []
        self.last_error = None
        cols = self._parser.parse(text, wall)
        if len(cols["time_s"]) == 0:
            return []
        return [Poll(wall, np.asarray(cols["time_s"]), np.asarray(cols["gpu"]), np.asarray(cols["power_w"]),
                     np.asarray(cols["utilization_pct"]))]

    def close(self) -> None:
        pass


class NvmlPollSource:
    """NVML through the driver's libnvidia-ml.so.1 (loaded at run time). ``power`` (watch
    option nvml_power): "average" (nvmlDeviceGetPowerUsage, a 1 s average on Ampere and
    newer) or "instant" (field 186). A GPU whose read fails (e.g. fallen off the bus) gives
    no sample; its error is reported and it turns lost after stale_after_s."""

    live = True
    ended = False

    def __init__(self, gpus: Sequence[int] = (), *, power: str = "average") -> None:
        power = _spec.make_options("watch", {"nvml_power": power}).nvml_power  # the core names the valid ones
        self._nvml = _core.triage.NvmlSource(list(gpus))
        self._key = "power_w" if power == "average" else "power_instant_w"
        if power == "instant":
            first = self._nvml.poll()
            ok = np.asarray(first["error"]) == 0
            if ok.any() and np.isnan(np.asarray(first["power_instant_w"])[ok]).all():
                raise ValueError("--nvml-power instant: this driver or GPU does not report the instantaneous "
                                 "power field (NVML_FI_DEV_POWER_INSTANT, 186); use --nvml-power average")
        self.name = f"NVML ({self._nvml.library_path}, {len(self._nvml.gpus())} GPUs, {power} power)"
        self.report = None

    def gpus(self) -> list[dict[str, Any]]:
        return list(self._nvml.gpus())

    def clock(self, wall: float) -> float:
        return wall

    def poll(self, wall: float) -> list[Poll]:
        s = self._nvml.poll()
        err = np.asarray(s["error"])
        errors = [(int(g), int(c), str(txt))
                  for g, c, txt in zip(s["index"], err, s["error_text"], strict=True) if c != 0]
        limits = {int(g): float(w) for g, w in zip(s["index"], s["power_limit_w"], strict=True) if np.isfinite(w)}
        t = np.asarray(s["time_s"], dtype=np.float64)
        return [Poll(float(t.max()) if t.size else wall, t, np.asarray(s["index"], dtype=np.int32),
                     np.asarray(s[self._key], dtype=np.float64), np.asarray(s["utilization_pct"], dtype=np.float64),
                     limits, errors)]

    def close(self) -> None:
        del self._nvml


def catalog_hardware_of(gpus: Sequence[dict[str, Any]]) -> str | None:
    """The catalog hardware whose name appears in the NVML names of all the GPUs
    ("NVIDIA H200" -> h200; "NVIDIA B300 SXM6 AC" -> b300), else None."""
    names = {str(g.get("name", "")).lower() for g in gpus}
    if not names:
        return None
    best: str | None = None
    for hw in _core.io.hardware_names():
        if all(hw.lower() in n.replace("-", " ").split() for n in names):
            best = hw
    return best


if TYPE_CHECKING:  # mypy proves that each source has the protocol's members and types
    _SOURCES: tuple[type[PowerSource], ...] = (ReplaySource, FollowCsvSource, DcgmSource, NvmlPollSource)
