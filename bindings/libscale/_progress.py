"""Progress on long work: a bar on a terminal, a bar that updates in place in Jupyter,
nothing otherwise.

    with Progress(total=n_bytes, what="parsing train.log", unit="B") as bar:
        for chunk in chunks:
            ...
            bar.update(len(chunk))

A bar appears only once the work has run for ``delay_s`` (1 s): short calls print nothing.
Where it draws: stderr when stderr is a terminal; a notebook's output area when running
under an IPython kernel; nowhere when neither, when ``quiet`` is set, when
``libscale.set_progress(False)`` was called or when the environment has
``LIBSCALE_PROGRESS=0``. The command line's ``--quiet`` sets it off.

Compiled work (the gate, a sweep, a fit) reports through a shared counter instead of
calls back into Python: :func:`watch_counter` polls a ``libscale._core.Progress`` from a
thread while the compiled call runs with the GIL released.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

__all__ = ["Progress", "set_progress", "progress_enabled", "watch_counter"]

_enabled: bool | None = None  # None: decided by the environment

#: How long work runs before its bar appears (a Progress's default delay_s).
DELAY_S = 1.0


def set_progress(enabled: bool | None) -> bool | None:
    """Turn progress bars on (True), off (False) or back to the default (None: on where
    there is a terminal or a notebook to draw on, unless LIBSCALE_PROGRESS=0). Returns the
    setting it replaces."""
    global _enabled
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"set_progress: expected True, False or None, got {enabled!r}")
    previous, _enabled = _enabled, enabled
    return previous


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = getattr(shell, "get_ipython", lambda: None)()
    except Exception:
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def progress_enabled() -> str | None:
    """Where a bar would draw now: "terminal", "notebook" or None."""
    if _enabled is False or os.environ.get("LIBSCALE_PROGRESS", "") in ("0", "false", "no", "off"):
        return None
    if _in_notebook():
        return "notebook"
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return "terminal"
    except (AttributeError, ValueError):
        pass
    return "terminal" if _enabled else None


def _amount(value: float, unit: str) -> str:
    if unit == "B":
        for scale, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
            if value >= scale:
                return f"{value / scale:.1f} {name}"
        return f"{value:.0f} B"
    text = f"{value:,.0f}"
    return f"{text} {unit}" if unit else text


class Progress:
    """One bar. ``update(n)`` adds work done, ``set(done)`` sets it; ``close()`` (or leaving
    the ``with`` block) ends the bar. Thread-safe: updates may come from any thread."""

    def __init__(self, total: float, what: str, *, unit: str = "", quiet: bool = False,
                 delay_s: float | None = None, interval_s: float = 0.1) -> None:
        self.total = float(total) if total and total > 0 else 0.0
        self.what = what
        self.unit = unit
        self.done = 0.0
        self._where = None if quiet else progress_enabled()
        self._start = time.monotonic()
        self._delay_s = DELAY_S if delay_s is None else delay_s
        self._interval_s = interval_s
        self._last_draw = 0.0
        self._drawn = False
        self._handle: Any = None
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        return self._where is not None

    def update(self, n: float = 1) -> None:
        self.set(self.done + n)

    def set(self, done: float) -> None:
        self.done = float(done)
        if self._where is None:
            return
        now = time.monotonic()
        if now - self._start < self._delay_s or now - self._last_draw < self._interval_s:
            return
        with self._lock:
            self._last_draw = now
            self._draw(now, final=False)

    def text(self, now: float | None = None) -> str:
        """The bar's line: what, percent, a bar, amounts, elapsed and time left."""
        now = time.monotonic() if now is None else now
        elapsed = now - self._start
        if self.total > 0:
            frac = min(max(self.done / self.total, 0.0), 1.0)
            width = 24
            filled = int(frac * width)
            bar = "#" * filled + "-" * (width - filled)
            left = f", {elapsed * (1 - frac) / frac:.0f} s left" if 0 < frac < 1 else ""
            return (f"{self.what}: {frac * 100:3.0f}% [{bar}] {_amount(self.done, self.unit)} of "
                    f"{_amount(self.total, self.unit)}, {elapsed:.1f} s{left}")
        return f"{self.what}: {_amount(self.done, self.unit)}, {elapsed:.1f} s"

    def _draw(self, now: float, *, final: bool) -> None:
        line = self.text(now)
        if self._where == "terminal":
            sys.stderr.write("\r" + line + ("\n" if final else "\x1b[K"))
            sys.stderr.flush()
        else:
            html = _html_bar(self, line)
            try:
                # IPython is there whenever a notebook is; typed as Any (it is not a dependency)
                ipy: Any = importlib.import_module("IPython.display")
                if self._handle is None:
                    self._handle = ipy.display(ipy.HTML(html), display_id=True)
                else:
                    self._handle.update(ipy.HTML(html))
            except Exception:  # a notebook without a display: nothing to draw on
                self._where = None
                return
        self._drawn = True

    def close(self) -> None:
        """End the bar: its last state is drawn once when it was shown at all, or when the
        work outlasted the delay between two draws (a watched call polled at intervals)."""
        if self._where is not None and (self._drawn or time.monotonic() - self._start >= self._delay_s):
            with self._lock:
                self._draw(time.monotonic(), final=True)
        self._where = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None and self.total > 0 and self._drawn:
            self.done = self.total
        self.close()


def _html_bar(bar: Progress, line: str) -> str:
    import html

    frac = min(max(bar.done / bar.total, 0.0), 1.0) if bar.total > 0 else 0.0
    return (f'<div style="font-family: monospace; font-size: 12px"><progress value="{frac:.4f}" max="1" '
            f'style="width: 16em; vertical-align: middle"></progress> {html.escape(line)}</div>')


@contextmanager
def watch_counter(counter: Any, what: str, *, unit: str = "", quiet: bool = False,
                  read: Callable[[Any], tuple[float, float]] | None = None) -> Iterator[Any]:
    """While the block runs (a compiled call with the GIL released), a thread polls
    ``counter`` (a ``libscale._core.Progress``: ``done`` and ``total``) and draws the bar.
    Yields the counter to pass to the call."""
    bar = Progress(0, what, unit=unit, quiet=quiet)
    if not bar.active:
        yield counter
        return
    read = read or (lambda c: (float(c.done), float(c.total)))
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(0.1):
            done, total = read(counter)
            bar.total = total
            bar.set(done)

    thread = threading.Thread(target=poll, name="libscale-progress", daemon=True)
    thread.start()
    try:
        yield counter
    finally:
        stop.set()
        thread.join()
        done, total = read(counter)
        bar.total = total
        bar.done = done
        bar.close()
