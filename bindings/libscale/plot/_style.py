"""What every figure shares: one colour per hardware, per step part, per power phase and per
record kind (the same in every figure), number formats, and where new axes come from."""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb
from matplotlib.ticker import FuncFormatter, NullLocator

from .._core import estimate as _estimate

# Okabe & Ito's colour-blind-safe palette, then tab10's remaining hues for hardware outside
# the catalog. Fixed assignments (not the order of appearance) keep a GPU's colour the same
# in every figure and notebook.
BLUE, ORANGE, SKY, GREEN, VERMILLION, PURPLE, YELLOW, GREY = (
    "#0072B2", "#E69F00", "#56B4E9", "#009E73", "#D55E00", "#CC79A7", "#F0E442", "#999999")
BROWN, OLIVE, DARK = "#8C564B", "#BCBD22", "#333333"

HARDWARE_COLORS = {"h100": BLUE, "h200": ORANGE, "b200": GREEN, "b300": PURPLE, "gb200": VERMILLION,
                   "a100": SKY, "a100-40gb": BROWN}
_FALLBACK = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf")

#: The parts of a step, bottom to top of a stacked bar, with their labels: the core's
#: field table (estimate/step_fields.hpp), its fields used as parts.
STEP_PARTS = tuple((f["name"], f["label"]) for f in _estimate.step_fields() if "part" in f["uses"])
# Communication, data and checkpoint share their colours with the power phases of the same name.
PART_COLORS = {"gemm_s": BLUE, "attention_s": SKY, "memory_bound_s": GREEN, "host_wait_s": YELLOW,
               "exposed_comm_s": VERMILLION, "optimizer_s": BROWN, "data_s": ORANGE, "checkpoint_s": PURPLE,
               "other_s": DARK}

PHASE_COLORS = {"compute": BLUE, "communication": VERMILLION, "data_starvation": ORANGE,
                "checkpoint_or_deadlock": PURPLE, "idle": GREY}
PHASE_LABELS = {"compute": "compute", "communication": "communication", "data_starvation": "data starvation",
                "checkpoint_or_deadlock": "checkpoint or deadlock", "idle": "idle"}

#: Measurement record kinds (fit residuals).
KIND_COLORS = {"step": BLUE, "GEMM": GREEN, "attention": SKY, "bandwidth": OLIVE, "collective": VERMILLION,
               "record": GREY}

#: Alert kinds (triage): deadlocks in the strongest colour.
ALERT_COLORS = {"deadlock": "#B2182B", "data_starvation": ORANGE, "straggler": BROWN}

GOOD, BAD = "#1B7837", "#B2182B"
BAND_ALPHA = 0.25


F = TypeVar("F", bound=Callable[..., Any])


def literal_text(draw: F) -> F:
    """Every text the figure function creates is drawn as written: names come from files
    (a hardware's display name, a model, a GPU a trace names, a price "$2.50 ... $3.10"),
    and matplotlib would read a pair of "$" as math, printing the wrong label or raising a
    ValueError at save time for one that is not valid TeX."""
    @functools.wraps(draw)
    def wrapper(*args: Any, **kw: Any) -> Any:
        with matplotlib.rc_context({"text.parse_math": False}):
            return draw(*args, **kw)
    return wrapper  # type: ignore[return-value]


def hardware_color(name: str) -> str:
    key = name.lower()
    if key in HARDWARE_COLORS:
        return HARDWARE_COLORS[key]
    return _FALLBACK[zlib.crc32(key.encode()) % len(_FALLBACK)]


def darker(color: str, amount: float = 0.45) -> tuple[float, float, float]:
    """color mixed with black: the same hue, distinct from the colour itself."""
    r, g, b = to_rgb(color)
    return (r * (1 - amount), g * (1 - amount), b * (1 - amount))


def new_axes(ax: Axes | None, size: tuple[float, float] = (10.0, 5.2)) -> Axes:
    """ax, or the axes of a new figure (pyplot's, so that Jupyter shows it)."""
    if ax is not None:
        return ax
    _, created = plt.subplots(figsize=size, layout="constrained")
    return created


def sig(v: float, digits: int = 3) -> str:
    """v to `digits` significant digits in positional notation (never '3e+02'):
    0.0000927, 9.88, 300, 1,356."""
    if not math.isfinite(v):
        return "-"
    if v == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(v))))
    return f"{round(v, decimals):,.{decimals}f}"


def compact(v: float, digits: int = 3) -> str:
    """13,281 -> '13.3k', 1,355,988 -> '1.36M': short tick and bar labels."""
    if not math.isfinite(v):
        return "-"
    a = abs(v)
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div:
            return sig(v / div, digits) + suffix
    return sig(v, digits)


def compact_formatter(digits: int = 3) -> FuncFormatter:
    return FuncFormatter(lambda v, _pos: compact(v, digits))


def thousands_formatter() -> FuncFormatter:
    return FuncFormatter(lambda v, _pos: f"{v:,.0f}")


def log2_counts_axis(ax: Axes, counts: Sequence[int], label: str = "GPUs (count, log₂ scale)") -> None:
    """A log2 x axis whose only ticks are the counts themselves."""
    ax.set_xscale("log", base=2)
    ticks = sorted(set(counts))
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{g:,}" for g in ticks])
    ax.xaxis.set_minor_locator(NullLocator())
    if ticks:
        lo, hi = ticks[0], ticks[-1]
        pad = 2 ** 0.3 if hi > lo else 2.0
        ax.set_xlim(lo / pad, hi * pad)
    ax.set_xlabel(label)


def legend_outside(ax: Axes, handles: Sequence[Any] | None = None, **kw: Any) -> Any:
    """A legend to the right of the axes, so that it never covers data."""
    if handles is not None:
        kw["handles"] = list(handles)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False,
                     fontsize="small", **kw)


def grid(ax: Axes, axis: Literal["both", "x", "y"] = "y") -> None:
    ax.grid(True, axis=axis, color="#DDDDDD", linewidth=0.8)
    ax.set_axisbelow(True)
