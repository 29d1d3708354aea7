"""Micro-batches per rank of the packing gate."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from ..gate_result import GateResult
from . import _style as st

__all__ = ["gate_ranks", "MAX_RANK_TICKS"]

#: Up to this many ranks every rank is a tick label.
MAX_RANK_TICKS = 32

_FEWEST, _MOST, _OTHER = st.BAD, st.ORANGE, "#7F9CB8"


@st.literal_text
def gate_ranks(gate_result: GateResult, *, ax: Axes | None = None) -> Axes:
    """Micro-batches per rank (bars), the ranks with the fewest and the most in their own
    colours with horizontal lines at both, the difference annotated between them, and the
    verdict (PASS / FAIL) in the title. When the counts are close, the y axis starts near
    the minimum (its label says where) so that the difference is visible. Returns the Axes."""
    if not isinstance(gate_result, GateResult):
        raise TypeError(f"gate_result: expected a libscale GateResult, got {type(gate_result).__name__}")
    r = gate_result.raw
    ranks = np.asarray(r.rank)
    mb = np.asarray(r.micro_batches, dtype=float)
    lo, hi, diff = int(r.min_micro_batches), int(r.max_micro_batches), int(r.difference)
    ax = st.new_axes(ax, (max(7.0, min(16.0, 3.0 + 0.35 * len(ranks))), 4.8))
    colors = np.where(mb == lo, _FEWEST, np.where(mb == hi, _MOST, _OTHER)) if diff else np.full(len(mb), st.GOOD)
    width = 0.8 if len(ranks) <= 256 else 1.0
    ax.bar(ranks, mb, width=width, color=list(colors), gid="gate:bars")
    span = max(hi - lo, 1)
    # Starting at 0 would flatten a 40-in-540 difference to nothing: zoom when it is small.
    floor = 0.0
    if lo > 0 and 0 < diff < 0.25 * hi:
        unit = 10.0 ** math.floor(math.log10(span))
        floor = max(0.0, math.floor((lo - 1.5 * span) / unit) * unit)
    ax.set_ylim(floor, hi + 0.9 * span if diff else hi * 1.15 + 1)
    ax.axhline(lo, color=_FEWEST if diff else st.GOOD, linestyle="--", linewidth=1.2, gid="gate:min")
    if diff:
        ax.axhline(hi, color=_MOST, linestyle="--", linewidth=1.2, gid="gate:max")
        x_note = float(ranks[-1]) + 0.9 if len(ranks) else 0.0
        ax.annotate("", xy=(x_note, hi), xytext=(x_note, lo),
                    arrowprops=dict(arrowstyle="<->", color="black", linewidth=1.4, shrinkA=0, shrinkB=0))
        ax.annotate(f"difference\n{diff:,} micro-batches", (x_note, (lo + hi) / 2), xytext=(6, 0),
                    textcoords="offset points", ha="left", va="center", fontsize="small", fontweight="bold",
                    gid="gate:difference")
        ax.set_xlim(float(ranks[0]) - 0.7, x_note + 2.5 + 0.1 * len(ranks))
    n = len(ranks)
    if n <= MAX_RANK_TICKS:
        ax.set_xticks(ranks)
    else:
        # Ticks only where there are ranks, not in the margin that holds the annotation.
        first, last = int(ranks[0]), int(ranks[-1])
        ax.set_xticks([t for t in MaxNLocator(nbins=16, integer=True).tick_values(first, last) if first <= t <= last])
    ax.set_xlabel("rank")
    ax.set_ylabel("micro-batches per epoch (count)" + (f"\naxis starts at {floor:,.0f}" if floor > 0 else ""))
    ax.yaxis.set_major_formatter(st.thousands_formatter())
    st.grid(ax)
    fewest = [int(x) for x in ranks[mb == lo]]
    most = [int(x) for x in ranks[mb == hi]]

    def who(rs: list[int]) -> str:
        return ", ".join(map(str, rs[:4])) + (f" (+{len(rs) - 4})" if len(rs) > 4 else "")

    handles: list[Any]
    if diff:
        handles = [Patch(color=_FEWEST, label=f"fewest: {lo:,} (rank{'s' if len(fewest) > 1 else ''} {who(fewest)})"),
                   Patch(color=_MOST, label=f"most: {hi:,} (rank{'s' if len(most) > 1 else ''} {who(most)})"),
                   Patch(color=_OTHER, label="other ranks"),
                   Line2D([], [], linestyle="none",
                          label=f"{r.cost_at_risk_gpu_hours:,.1f} GPU-h at risk (hang until\n"
                                f"the {r.watchdog_s:g} s watchdog)"),
                   Line2D([], [], linestyle="none",
                          label=f"remedy: equalize to {lo:,}, drops\n{r.tokens_dropped_pct:.2f} % of the tokens")]
        if r.trainer_equalizes:
            handles.insert(3, Line2D([], [], linestyle="none", label=f"{r.packer} truncates every rank to {lo:,}"))
    else:
        handles = [Patch(color=st.GOOD, label=f"every rank: {lo:,} micro-batches")]
    st.legend_outside(ax, handles)
    verdict = "PASS" if r.passed else "FAIL"
    headline = (f"all {n} ranks run {lo:,} micro-batches" if not diff else
                f"ranks differ by {diff:,} micro-batch{'es' if diff != 1 else ''} ({lo:,} vs {hi:,})")
    ax.set_title(f"Packing gate {verdict}: {headline}\n{r.packer}, seq_len {r.seq_len:,}, {n} ranks, micro-batch "
                 f"{r.micro_batch}, grad accum {r.grad_accum}", fontsize="medium",
                 color=st.GOOD if r.passed else st.BAD)
    return ax
