"""Figures of projections: the scaling curve, the step time by part and the job's costs, for
one Projection or a Comparison (one Projection per hardware)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from .. import _format
from ..compare import projections_of
from ..results import Projection
from . import _style as st

__all__ = ["scaling", "breakdown", "costs", "SCALING_METRICS", "COST_METRICS"]


class HasProjections(Protocol):
    """A Comparison: one Projection per hardware name, in the order given."""

    @property
    def projections(self) -> Mapping[str, Projection]: ...


#: A Projection, a Comparison, or {label: Projection} (one curve / bar per label).
ProjectionLike = Projection | HasProjections | Mapping[str, Projection]

#: metric -> (what it is, axis label with unit, factor from the row's value to the axis')
SCALING_METRICS: dict[str, tuple[str, str, float]] = {
    "tokens_per_s": ("throughput", "throughput (tokens/s, log scale)", 1.0),
    "tokens_per_s_per_gpu": ("throughput per GPU", "throughput per GPU (tokens/s/GPU)", 1.0),
    "scaling_efficiency": ("scaling efficiency", "scaling efficiency (%)", 100.0),
}

#: metric -> (panel title, axis label with unit, bar label format)
COST_METRICS: dict[str, tuple[str, str, str]] = {
    "gpu_hours": ("GPU-hours", "GPU-hours (GPU·h)", "{:,.1f}"),
    "cost_usd": ("cost", "cost (USD)", "${:,.0f}"),
    "energy_kwh": ("energy", "energy (kWh)", "{:,.1f}"),
    "wall_time_h": ("wall time", "wall time (h)", "{:,.2f}"),
}


def by_hardware(result: ProjectionLike | Mapping[str, Projection]) -> dict[str, Projection]:
    """{label: projection}: the hardware's name for a Projection, a Comparison's projections,
    or a dict of labelled projections as given (e.g. one hardware under two calibrations)."""
    return projections_of(result, labelled=True)


def _model_name(projs: Mapping[str, Projection]) -> str:
    return str(next(iter(projs.values())).plan.model.name)


def _on(projs: Mapping[str, Projection]) -> str:
    return " vs ".join(projs)


def _calibrations(projs: Mapping[str, Projection]) -> str:
    kinds = {hw: _format.calibration_file_kind(p.plan.calibration) for hw, p in projs.items()}
    if len(set(kinds.values())) == 1:
        return f"calibration {next(iter(kinds.values()))}"
    return "calibration " + ", ".join(f"{hw} {k}" for hw, k in kinds.items())


def _scaling_phrase(p: Projection) -> str:
    if p.raw.scaling == "weak":
        return "weak scaling (batch per GPU fixed)"
    rows = p.raw.rows
    batch = f"{rows[0].step.tokens_per_step:,.0f} tokens" if rows else "fixed"
    return f"strong scaling (global batch fixed at {batch})"


def _quantiles(p: Projection, rows: Sequence[Mapping[str, Any]], key: str) -> tuple[np.ndarray, np.ndarray] | None:
    if p.quantiles is None or not rows or f"{key}_p10" not in rows[0]:
        return None
    return (np.array([r[f"{key}_p10"] for r in rows], dtype=float),
            np.array([r[f"{key}_p90"] for r in rows], dtype=float))


# --- scaling ------------------------------------------------------------------------------


@st.literal_text
def scaling(result: ProjectionLike, *, metric: str = "tokens_per_s", ax: Axes | None = None) -> Axes:
    """Throughput (or throughput per GPU, or scaling efficiency) against the GPU count on a
    log2 axis: the projection, the ideal (linear from the smallest count; dashed), the
    P10–P90 band when the projection has quantiles, where communication stops hiding under
    compute (dotted vertical line) and the counts that do not fit in memory (hollow
    markers). One curve per hardware for a Comparison, per label for a dict of projections.
    Returns the Axes."""
    if metric not in SCALING_METRICS:
        raise ValueError(f"metric: {metric!r} is not one of {', '.join(SCALING_METRICS)}")
    projs = by_hardware(result)
    what, ylabel, factor = SCALING_METRICS[metric]
    ax = st.new_axes(ax)
    counts: list[int] = []
    ymax = 0.0
    several = len(projs) > 1
    # With several hardware the legend names each curve once and explains the shared
    # encodings (dashed, shaded, hollow) once, instead of repeating them per hardware.
    curves: list[Any] = []
    ideals: list[Any] = []
    bands: list[tuple[str, Any, bool]] = []
    exposed_lines: list[Any] = []
    hidden: list[str] = []
    any_unfit = False
    for hw, p in projs.items():
        rows = p.rows_dicts()
        if not rows:
            continue
        color = st.hardware_color(hw)
        gpus = np.array([r["gpus"] for r in rows], dtype=float)
        y = np.array([r[metric] for r in rows], dtype=float) * factor
        counts += [int(g) for g in gpus]
        ymax = max(ymax, float(np.nanmax(y)))
        curves += ax.plot(gpus, y, color=color, linewidth=2.2, zorder=4, label=hw if several else "projected",
                          gid=f"scaling:{hw}:projected")
        if not several and len(rows) <= 12:
            # One curve: its values read off the points (several would collide); below and to
            # the right, away from the ideal line, which is above the curve.
            for gx, gy in zip(gpus, y, strict=True):
                ax.annotate(f"{st.sig(gy, 3)} %" if metric == "scaling_efficiency" else st.compact(gy),
                            (gx, gy), xytext=(7, -7), textcoords="offset points", ha="left", va="top",
                            fontsize="x-small", color=st.darker(color), zorder=7, gid=f"scaling:{hw}:value",
                            bbox=dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none", alpha=0.8))
        fits = np.array([bool(r["fits"]) for r in rows])
        ax.plot(gpus[fits], y[fits], linestyle="none", marker="o", markersize=7, color=color, zorder=5,
                gid=f"scaling:{hw}:fits")
        if not fits.all():
            any_unfit = True
            ax.plot(gpus[~fits], y[~fits], linestyle="none", marker="o", markersize=8, markerfacecolor="white",
                    markeredgecolor=color, markeredgewidth=2, zorder=6, gid=f"scaling:{hw}:does_not_fit")
        if metric == "tokens_per_s":
            ideal = y[0] * gpus / gpus[0]
            label = f"ideal: linear from {int(gpus[0]):,} GPUs"
        elif metric == "tokens_per_s_per_gpu":
            ideal = np.full_like(y, y[0])
            label = f"ideal: flat from {int(gpus[0]):,} GPUs"
        else:
            ideal = np.full_like(y, 100.0)
            label = "ideal (100 %)"
        if not (metric == "scaling_efficiency" and ideals):
            # Darker than the curve and drawn over it: near-ideal scaling would hide it otherwise.
            ideal_color = st.DARK if metric == "scaling_efficiency" else st.darker(color)
            ideals += ax.plot(gpus, ideal, color=ideal_color, linestyle="--", linewidth=1.3, zorder=4.5,
                              label=label, gid=f"scaling:{hw}:ideal")
        band = _quantiles(p, rows, metric)
        if band is not None:
            lo, hi = band[0] * factor, band[1] * factor
            ymax = max(ymax, float(np.nanmax(hi)))
            zero = bool(np.allclose(lo, hi, rtol=1e-12, atol=0.0))
            bands.append((hw, ax.fill_between(gpus, lo, hi, color=color, alpha=st.BAND_ALPHA, linewidth=0,
                                              zorder=2, label="P10–P90 (80 % interval)",
                                              gid=f"scaling:{hw}:band"), zero))
        exposed = p.raw.comm_exposed_from_gpus
        if exposed is not None:
            exposed_lines.append(ax.axvline(
                exposed, color=color, linestyle=":", linewidth=1.8, zorder=1,
                label=f"{hw + ': ' if several else ''}communication exposed\nfrom {exposed:,} GPUs on",
                gid=f"scaling:{hw}:comm_exposed"))
        else:
            hidden.append(hw)
    handles: list[Any] = list(curves)
    if several:
        if ideals:
            handles.append(Line2D([], [], color=st.DARK, linestyle="--", linewidth=1.3,
                                  label=ideals[0].get_label() if metric == "scaling_efficiency"
                                  else "dashed: ideal, linear from\neach curve's smallest count"
                                  if metric == "tokens_per_s" else "dashed: ideal, flat from\n"
                                  "each curve's smallest count"))
        if bands:
            handles.append(Patch(color=st.GREY, alpha=0.5, label="shaded: P10–P90 (80 % interval)"))
    else:
        handles += ideals + [b for _, b, _ in bands]
    zero_width = [hw for hw, _, zero in bands if zero]
    if zero_width:
        handles.append(Line2D([], [], linestyle="none", label=(
            f"P10–P90 of {', '.join(zero_width)} has zero width:\n" if several else
            "P10–P90 has zero width:\n") + "the calibration has no covariance"))
    handles += exposed_lines
    if hidden:
        handles.append(Line2D([], [], linestyle="none", label=(f"{', '.join(hidden)}: " if several else "")
                              + "communication hidden under\ncompute at every count"))
    if any_unfit:
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=8, markerfacecolor="white",
                              markeredgecolor=st.DARK, markeredgewidth=2,
                              label="hollow: does not surely fit\nin GPU memory"))
    st.log2_counts_axis(ax, counts)
    if metric == "tokens_per_s":
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(st.compact_formatter())
        ax.yaxis.set_minor_formatter(st.compact_formatter(2))
        ax.tick_params(axis="y", which="minor", labelsize="x-small")
    else:
        ax.set_ylim(0, max(ymax * 1.12, 110.0 if metric == "scaling_efficiency" else 1.0))
        ax.yaxis.set_major_formatter(st.thousands_formatter())
    ax.set_ylabel(ylabel)
    st.grid(ax, "both")
    first = next(iter(projs.values()))
    ax.set_title(f"{_model_name(projs)} on {_on(projs)}: {what} vs GPU count\n{_scaling_phrase(first)}, "
                 f"{_calibrations(projs)}", fontsize="medium")
    st.legend_outside(ax, handles, title="hardware" if several else None, title_fontsize="small")
    return ax


# --- breakdown ----------------------------------------------------------------------------


# Parts whose colour is too light for white text.
_LIGHT_PARTS = {"attention_s", "host_wait_s", "data_s"}


def _seconds(s: float) -> str:
    return f"{s:,.0f} s" if s >= 100 else f"{s:.1f} s" if s >= 10 else f"{st.sig(s)} s"


@st.literal_text
def breakdown(projection: Projection, *, normalized: bool = False, ax: Axes | None = None) -> Axes:
    """Stacked bars per GPU count of the step time by part (GEMM, attention, memory-bound
    kernels, host wait, exposed communication, optimizer, input pipeline, checkpoint; the
    row keys of _format.STEP_PARTS_COLUMNS), in seconds, or in percent of the step with
    normalized=True. Parts that are 0 at every count are named under the legend instead
    of drawn. Returns the Axes."""
    if not isinstance(projection, Projection):
        raise TypeError(f"projection: expected a libscale Projection, got {type(projection).__name__}")
    rows = projection.rows_dicts()
    ax = st.new_axes(ax)
    hw = str(projection.plan.hardware.name)
    x = np.arange(len(rows), dtype=float)
    step = np.array([r["step_time_s"] for r in rows], dtype=float)
    parts = [(key, label, np.array([r[key] for r in rows], dtype=float)) for key, label in st.STEP_PARTS]
    other = step - np.sum([v for _, _, v in parts], axis=0) if rows else np.zeros(0)
    # Whatever the core adds to a step beyond the named parts is drawn, not dropped.
    if rows and np.any(np.abs(other) > 1e-9 * np.maximum(step, 1e-300)):
        parts.append(("other_s", "other (step − named parts)", other))
    scale = 100.0 / np.where(step > 0, step, np.nan) if normalized else np.ones_like(step)
    unit = "%" if normalized else "s"
    bottom = np.zeros_like(step)
    handles: list[Any] = []
    omitted: list[str] = []
    for key, label, seconds in parts:
        if not np.any(seconds != 0):
            omitted.append(label)
            continue
        values = seconds * scale
        span = (f"{st.sig(float(np.min(values)))}–{st.sig(float(np.max(values)))} {unit}" if len(values) > 1
                else f"{st.sig(float(values[0]))} {unit}")
        bars = ax.bar(x, values, bottom=bottom, width=0.65, color=st.PART_COLORS[key], edgecolor="white",
                      linewidth=0.6, label=f"{label} ({span})", gid=f"breakdown:{key}")
        handles.append(bars)
        if normalized:
            for xi, b, v in zip(x, bottom, values, strict=True):
                if v >= 7:
                    ax.text(xi, b + v / 2, f"{v:.0f} %", ha="center", va="center", fontsize="small",
                            color="black" if key in _LIGHT_PARTS else "white")
        bottom = bottom + values
    top = bottom
    for xi, total, s in zip(x, top, step, strict=True):
        ax.annotate(("step " if normalized else "") + _seconds(s), (xi, total), xytext=(0, 3),
                    textcoords="offset points", ha="center", va="bottom", fontsize="small")
    handles.reverse()  # top of the stack first, as drawn
    if omitted:
        handles.append(Line2D([], [], linestyle="none", label="0 at every count, not drawn:\n  " +
                              ", ".join(omitted)))
    ax.set_xticks(x)
    ax.set_xticklabels([f"{r['gpus']:,}\n({r['nodes']} node{'' if r['nodes'] == 1 else 's'})" for r in rows])
    ax.set_xlabel("GPUs (count)")
    if normalized:
        ax.set_ylabel("share of the step time (%)")
        ax.set_ylim(0, 110)
    else:
        ax.set_ylabel("time per optimizer step (s)")
        ax.set_ylim(0, (float(np.max(top)) if len(top) else 1.0) * 1.1)
    st.grid(ax)
    ax.set_title(f"{projection.plan.model.name} on {hw}: time per optimizer step by part\n"
                 f"{_scaling_phrase(projection)}; above each bar: the step time", fontsize="medium")
    st.legend_outside(ax, handles, title="part (range over the counts)", title_fontsize="small")
    return ax


# --- costs --------------------------------------------------------------------------------


def _job_phrase(p: Projection) -> str:
    job = p.raw.job
    epochs = job.epochs
    return (f"job of {_format._count(job.tokens)} tokens × {epochs:g} epoch{'' if epochs == 1 else 's'}")


def _cost_panel(ax: Axes, projs: Mapping[str, Projection], metric: str, *,
                value_labels: bool) -> tuple[Any, list[str]]:
    """Grouped bars of one metric: the container of an error bar drawn (a legend handle) or
    None, and the hardware whose P10–P90 has zero width."""
    title, ylabel, fmt = COST_METRICS[metric]
    gpus = sorted({int(r.step.gpus) for p in projs.values() for r in p.raw.rows})
    where = {g: i for i, g in enumerate(gpus)}
    n = max(len(projs), 1)
    width = 0.8 / n
    errorbar: Any = None
    zero_width: list[str] = []
    top = 0.0
    for j, (hw, p) in enumerate(projs.items()):
        rows = p.rows_dicts()
        if not rows:
            continue
        x = np.array([where[int(r["gpus"])] for r in rows], dtype=float) + (j - (n - 1) / 2) * width
        v = np.array([r[metric] for r in rows], dtype=float)
        color = st.hardware_color(hw)
        ax.bar(x, v, width=width * 0.92, color=color, label=hw, gid=f"costs:{metric}:{hw}")
        heads = v
        band = _quantiles(p, rows, metric)
        if band is not None:
            lo, hi = band
            if np.allclose(lo, hi, rtol=1e-12, atol=0.0):
                zero_width.append(hw)
            errorbar = ax.errorbar(x, v, yerr=[np.maximum(v - lo, 0), np.maximum(hi - v, 0)], fmt="none",
                                   ecolor=st.DARK, elinewidth=1.2, capsize=4, zorder=4, label=f"{hw} P10–P90",
                                   gid=f"costs:{metric}:{hw}:band")
            heads = np.maximum(v, hi)
        if value_labels:
            for xi, h, vi in zip(x, heads, v, strict=True):
                ax.annotate(fmt.format(vi), (xi, h), xytext=(0, 3), textcoords="offset points", ha="center",
                            va="bottom", fontsize="x-small" if n > 1 else "small", rotation=90 if n > 2 else 0)
        top = max(top, float(np.nanmax(heads)))
    ax.set_xticks(np.arange(len(gpus)))
    ax.set_xticklabels([f"{g:,}" for g in gpus])
    ax.set_xlabel("GPUs (count)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, top * (1.3 if n > 2 else 1.15) if top > 0 else 1.0)
    ax.yaxis.set_major_formatter(st.compact_formatter() if top >= 1e4 else st.thousands_formatter()
                                 if top >= 10 else FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_title(title, fontsize="medium")
    st.grid(ax)
    return errorbar, zero_width


@st.literal_text
def costs(result: ProjectionLike, *, metrics: Sequence[str] = ("gpu_hours", "cost_usd", "energy_kwh"),
          ax: Axes | None = None) -> Any:
    """Grouped bars of the job's GPU-hours, cost and energy (any of COST_METRICS) by GPU
    count, one bar per hardware in each group for a Comparison, with P10–P90 error bars
    where the projection has quantiles. With ax=None: a new figure with one panel per
    metric, and the numpy array of their Axes is returned. With ax: a single metric drawn
    on it (ValueError otherwise), and ax is returned."""
    if isinstance(metrics, str):
        metrics = (metrics,)
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics: give at least one of " + ", ".join(COST_METRICS))
    unknown = [m for m in metrics if m not in COST_METRICS]
    if unknown:
        raise ValueError(f"metrics: {', '.join(map(repr, unknown))} not among {', '.join(COST_METRICS)}")
    if ax is not None and len(metrics) != 1:
        raise ValueError(f"metrics: an ax holds one metric (their units differ), got {len(metrics)}; "
                         "pass metrics=('gpu_hours',) or ax=None for one panel per metric")
    projs = by_hardware(result)
    first = next(iter(projs.values()))
    prices = {hw: p.raw.price_per_gpu_hour_usd for hw, p in projs.items()}
    bars = sum(len(p.raw.rows) for p in projs.values())
    value_labels = bars <= 24
    if ax is None:
        fig, grid = plt.subplots(1, len(metrics), figsize=(3.2 + 3.6 * len(metrics), 4.6), layout="constrained",
                                 squeeze=False)
        axes = grid[0]
    else:
        fig, axes = None, np.array([ax], dtype=object)
    band: Any = None
    zero_width: dict[str, None] = {}
    for a, metric in zip(axes, metrics, strict=True):
        drawn, zero = _cost_panel(a, projs, metric, value_labels=value_labels)
        band = drawn or band
        zero_width.update(dict.fromkeys(zero))
    handles: list[Any] = [Patch(color=st.hardware_color(hw)) for hw in projs]
    labels = [f"{hw} (${prices[hw]:,.2f}/GPU-h)" for hw in projs]
    if band is not None:
        handles.append(band)
        labels.append("P10–P90 (80 % interval)")
        if zero_width:
            handles.append(Line2D([], [], linestyle="none"))
            labels.append((f"zero width for {', '.join(zero_width)}:\n" if len(projs) > 1 else "zero width: ")
                          + "no covariance in the calibration")
    st.legend_outside(axes[-1], handles, labels=labels, title="hardware (price)", title_fontsize="small")
    heading = (f"{_model_name(projs)} on {_on(projs)}: {_job_phrase(first)}, by GPU count; "
               f"{_scaling_phrase(first)}")
    if fig is not None:
        fig.suptitle(heading, fontsize="medium")
        return axes
    title, _, _ = COST_METRICS[metrics[0]]
    axes[0].set_title(f"{_model_name(projs)} on {_on(projs)}: {title} of a {_job_phrase(first)}\n"
                      f"{_scaling_phrase(first)}", fontsize="medium")
    return axes[0]
