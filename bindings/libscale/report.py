"""One self-contained HTML page of a projection or a comparison, for the people who approve
its budget: the answer in one sentence, the figures, the tables, and every assumption the
numbers rest on (training configuration, job and price, hardware figures with their
sources, calibration with its provenance and uncertainty, model).

    >>> import libscale, libscale.report
    >>> p = libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16, 32], gpus_per_node=8,
    ...                      global_batch_tokens=1_048_576, tokens=1e9, quantiles=True)
    >>> libscale.report.write_report(p, "plan.html")  # doctest: +SKIP

The page needs nothing but a browser: figures are PNG data URIs, the style sheet is inline,
there is no script and no external resource. Figures come from :mod:`libscale.plot`
(matplotlib, an optional dependency: ``pip install 'libscale[plot]'``). Every number is one
the C++ core computed; this module only arranges and formats them.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _core, _format
from . import options as _options
from ._files import check_target, read_json, write_atomic
from .compare import Comparison, projections_of
from .results import Projection, struct_to_dict, to_jsonable

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["html_report", "write_report"]

#: Resolution of the inline figures: sharp on screen and on paper, a few hundred KiB in all.
FIGURE_DPI = 110

#: The cost panels of the report: what a budget is approved in.
COST_METRICS = ("wall_time_h", "gpu_hours", "cost_usd")

#: The headline GPU count is the largest that fits and scales at least this well.
HEADLINE_MIN_EFFICIENCY = 0.9

#: Largest file read for the sources of a hardware or calibration file given by path.
_MAX_SOURCE_BYTES = 16 << 20

_CATALOG_PREFIX = "calibration/data/"

PLOT_HINT = "pip install 'libscale[plot]'"

Result = Projection | Comparison


# --- small formatters -------------------------------------------------------------------


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _tokens_short(v: float) -> str:
    """1e9 -> '1e9', 2.5e10 -> '2.5e10', 300000 -> '300,000'."""
    if v >= 1e6 and math.isfinite(v):
        mantissa, exponent = f"{v:.3e}".split("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    return f"{v:,.0f}"


def _usd(v: float) -> str:
    return f"${v:,.0f}" if abs(v) >= 100 else f"${v:,.2f}"


def _hours(v: float) -> str:
    return f"{v:,.1f} h" if v >= 1 else f"{v:,.2f} h"


def _value(v: Any) -> str:
    """An option or spec value as text: yes / no, thousands separators, 'not set'."""
    if v is None:
        return "not set"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return f"{int(v):,}"
        return f"{v:.6g}"
    return str(v)


def _plural(n: float, word: str) -> str:
    return f"{n:g} {word}" + ("" if n == 1 else "s")


def _projections(result: Result) -> dict[str, Projection]:
    try:
        return projections_of(result)
    except TypeError as e:
        raise TypeError(f"result: {e}") from None


def _has_quantiles(projs: Mapping[str, Projection]) -> bool:
    return any(p.quantiles for p in projs.values())


# --- the answer -------------------------------------------------------------------------


def _headline_row(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The largest count that fits with scaling efficiency >= HEADLINE_MIN_EFFICIENCY (the
    smallest fitting count when none does); None when no count fits."""
    fitting = [r for r in rows if r["fits"]]
    if not fitting:
        return None
    good = [r for r in fitting if r["scaling_efficiency"] >= HEADLINE_MIN_EFFICIENCY]
    return max(good, key=lambda r: r["gpus"]) if good else fitting[0]


def _scaling_clause(rows: Sequence[Mapping[str, Any]]) -> str:
    fitting = [r for r in rows if r["fits"]]
    if len(fitting) < 2:
        return ""
    low = [r for r in fitting if r["scaling_efficiency"] < HEADLINE_MIN_EFFICIENCY]
    if low:
        r = low[0]
        return (f"scaling efficiency falls to {100 * r['scaling_efficiency']:.0f}% at {r['gpus']:,} GPUs "
                f"(relative to {fitting[0]['gpus']:,})")
    worst = min(r["scaling_efficiency"] for r in fitting)
    floor = math.floor(100 * worst)
    where = max(r["gpus"] for r in fitting)
    if floor >= 100:
        return f"scaling stays at 100% to {where:,} GPUs"
    return f"scaling stays above {floor}% to {where:,} GPUs"


def _job_tokens(p: Projection) -> str:
    job = p.raw.job
    text = f"{_tokens_short(job.tokens)} tokens"
    return text if job.epochs == 1 else f"{text} × {_plural(job.epochs, 'epoch')}"


def _projection_answer(p: Projection) -> str:
    rows = p.rows_dicts()
    model, hw = p.plan.model.name, p.plan.hardware.name
    pick = _headline_row(rows)
    if pick is None:
        r = rows[-1]
        counts = ", ".join(f"{x['gpus']:,}" for x in rows)
        surely = r["fit_status"] == "does_not_fit"
        text = (f"{model} {'does' if surely else 'may'} not fit in GPU memory on {hw} at any of "
                f"{counts} GPUs: {r['needed_gib']:,.1f} GiB per GPU needed, "
                f"{r['available_gib']:,.1f} available at {r['gpus']:,} GPUs"
                + ("" if surely else ", within the estimate's margin"))
        return text + (f"; {r['fit_suggestion']}" if r.get("fit_suggestion") else "")
    text = (f"{model} on {pick['gpus']:,} × {hw}: {_hours(pick['wall_time_h'])} wall, "
            f"{pick['gpu_hours']:,.1f} GPU-h, {_usd(pick['cost_usd'])} for {_job_tokens(p)}")
    if "cost_usd_p10" in pick:
        if pick["cost_usd_p10"] == pick["cost_usd_p90"] and pick["wall_time_h_p10"] == pick["wall_time_h_p90"]:
            text += " (no interval: the calibration carries no covariance)"
        else:
            text += (f" (80% interval {_usd(pick['cost_usd_p10'])}–{_usd(pick['cost_usd_p90'])}, "
                     f"{_hours(pick['wall_time_h_p10'])[:-2]}–{_hours(pick['wall_time_h_p90'])})")
    clause = _scaling_clause(rows)
    if clause:
        text += f"; {clause}"
    for status, verb in (("does_not_fit", "not fit in memory"),
                         ("uncertain", "not surely fit in memory (within the estimate's margin)")):
        unfit = [r["gpus"] for r in rows if r["fit_status"] == status]
        if unfit:
            text += f"; {', '.join(f'{g:,}' for g in unfit)} GPUs do{'es' if len(unfit) == 1 else ''} {verb}"
    return text


def _comparison_answer(c: Comparison) -> tuple[str, list[str]]:
    """The lead sentence and Comparison.summary()'s lines (fastest and cheapest per count)."""
    projs = c.projections
    first = next(iter(projs.values()))
    rows = [r for r in c._rows() if r["fits"]]
    lead = f"{first.plan.model.name} on {' vs '.join(projs)} for {_job_tokens(first)}"
    if rows:
        cheap = min(rows, key=lambda r: r["cost_usd"])
        fast = min(rows, key=lambda r: r["wall_time_h"])
        lead += (f": cheapest {cheap['gpus']:,} × {cheap['hardware']} ({_usd(cheap['cost_usd'])}, "
                 f"{_hours(cheap['wall_time_h'])} wall), fastest {fast['gpus']:,} × {fast['hardware']} "
                 f"({_hours(fast['wall_time_h'])}, {_usd(fast['cost_usd'])}); per GPU count:")
    else:
        lead += ": no hardware fits in GPU memory at any count; per GPU count:"
    return lead, c.summary()


def _headline(result: Result) -> str:
    """The one-line answer (the CLI prints it after writing the page)."""
    if isinstance(result, Comparison):
        lead, _ = _comparison_answer(result)
        return lead.removesuffix("; per GPU count:")
    return _projection_answer(next(iter(_projections(result).values())))


def _default_title(result: Result) -> str:
    projs = _projections(result)
    first = next(iter(projs.values()))
    return f"Training plan: {first.plan.model.name} on {' vs '.join(projs)}"


# --- figures ----------------------------------------------------------------------------


def _plot_module() -> Any:
    try:
        from . import plot
    except ImportError as e:
        raise ImportError(f"the report draws its figures with matplotlib, which is not installed: {PLOT_HINT}") \
            from e
    return plot


def _png(fig: Figure) -> str:
    """The figure as a PNG data URI; the figure is closed (a report must not leave figures
    open in pyplot, where Jupyter would show them again)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=FIGURE_DPI, bbox_inches="tight", facecolor="white")
    finally:
        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure_of(axes: Any) -> Figure:
    """The figure an Axes (or the first of an array of them) is drawn on; a subfigure's root."""
    ax = axes.flat[0] if hasattr(axes, "flat") else axes
    fig = ax.figure
    root = getattr(fig, "figure", None)
    return root if root is not None else fig  # type: ignore[no-any-return]


def _figures(result: Result) -> list[tuple[str, str, str]]:
    """(data URI, alt text, caption) of each figure."""
    import matplotlib

    plot = _plot_module()
    projs = _projections(result)
    many = len(projs) > 1
    out = []
    out.append((_png(_figure_of(plot.scaling(result))),
                "Throughput against GPU count" + (" for each hardware" if many else ""),
                "Throughput (tokens/s) by GPU count against ideal linear scaling"
                + (", with the P10–P90 band" if _has_quantiles(projs) else "") + "."))
    # Three panels side by side are shown at about 3/4 of their size: larger type keeps
    # their labels as legible as the other figures'.
    with matplotlib.rc_context({"font.size": 12.5}):
        costs = _png(_figure_of(plot.costs(result, metrics=COST_METRICS)))
    out.append((costs,
                "Wall time, GPU-hours and cost of the job by GPU count",
                "What the job costs at each GPU count: wall time, GPU-hours and dollars"
                + (" (error bars: P10–P90)" if _has_quantiles(projs) else "") + "."))
    for hw, p in projs.items():
        out.append((_png(_figure_of(plot.breakdown(p))),
                    f"Time per optimizer step by part on {hw}",
                    f"Where each optimizer step's time goes{' on ' + hw if many else ''}: compute parts, "
                    "exposed communication, optimizer, input pipeline, checkpoint."))
    return out


# --- tables -----------------------------------------------------------------------------


def _table(columns: Sequence[_format.Column], rows: Iterable[Mapping[str, Any]], kind: str = "num",
           caption: str | None = None) -> str:
    return f"<div class=\"tablewrap {kind}\">{_format.html_table(columns, rows, caption=caption)}</div>"


def _quantile_columns(columns: Sequence[_format.Column]) -> list[_format.Column]:
    # The cost interval too: it is what a budget is approved against.
    out: list[_format.Column] = []
    for c in columns:
        out.append(c)
        if c.key == "cost_usd":
            out.append(_format.Column("cost_usd_range", "cost $ P10–P90", _format.text))
    return out


def _projection_tables(result: Result) -> str:
    projs = _projections(result)
    quantiles = _has_quantiles(projs)
    parts = []
    if isinstance(result, Comparison):
        rows = [_format.quantile_ranges(r) for r in result._rows()]
        columns = list(result._columns())
        parts_columns = [_format.Column("hardware", "hardware", _format.text, "<"), *_format.STEP_PARTS_COLUMNS]
    else:
        p = next(iter(projs.values()))
        rows = [_format.quantile_ranges(r) for r in _format.with_fit(p.rows_dicts())]
        columns = list(_format.QUANTILE_PROJECTION_COLUMNS if quantiles else _format.PROJECTION_COLUMNS)
        parts_columns = list(_format.STEP_PARTS_COLUMNS)
    if quantiles:
        columns = _quantile_columns(columns)
    # One table of every column does not fit a page: throughput and memory, then what the
    # job takes (the columns of `libscale project`, split where the job's figures begin).
    split = next(i for i, c in enumerate(columns) if c.key == "wall_time_h")
    lead = [c for c in columns[:split] if c.key in ("hardware", "price_per_gpu_hour_usd", "gpus")]
    kind = "num lead-text" if isinstance(result, Comparison) else "num"
    parts.append("<section id=\"projection\"><h2>Projection</h2>")
    parts.append("<h3>Time and cost of the job</h3>")
    fit = [c for c in columns if c.key == "fit"]
    parts.append(_table(lead + columns[split:] + fit, rows, kind + " fit-last"))
    parts.append("<h3>Throughput and memory per GPU count</h3>")
    parts.append(_table([c for c in columns[:split] if c.key != "price_per_gpu_hour_usd"], rows,
                        kind + " fit-last"))
    notes = []
    for hw, p in projs.items():
        d = p.to_dict()
        prefix = f"{hw}: " if len(projs) > 1 else ""
        if p.quantiles:
            notes.append(prefix + _format.uncertainty_sentence(d))
        notes.extend(prefix + n for n in _format.fit_notes(d["rows"]))
        sentence = _format.comm_sentence(d)
        if sentence:
            notes.append(prefix + sentence)
    if not quantiles:
        notes.append("No P10–P90 interval was computed (libscale report draws them unless --no-quantiles is "
                     "given; in Python, project with quantiles=True).")
    parts.append(_notes(notes))
    parts.append("</section>")
    parts.append("<section id=\"breakdown\"><h2>Time per step by part</h2>")
    parts.append("<p class=\"note\">Seconds per optimizer step; compute = GEMM + attention + memory-bound + "
                 "host wait.</p>")
    parts.append(_table(parts_columns, rows, kind))
    parts.append("</section>")
    return "".join(parts)


#: Changes shown for a count that does not fit (the rest are in `libscale memory`).
_MAX_FIT_CHANGES = 6


def _memory_section(projs: Mapping[str, Projection]) -> str:
    """Per GPU count: does it fit, and the largest micro-batch and sequence that would; for
    the smallest count that does not fit, the changes that make it fit with their cost."""
    parts = ["<section id=\"memory\"><h2>Memory: what fits</h2>",
             "<p class=\"note\">The peak per GPU (allocated, the largest phase of the step: forward, loss, "
             "backward, the last reduction or the optimizer step; docs/model.md 5), the largest micro-batch (no "
             "accumulation) and the longest sequence that fit with every other option as given; a count that does "
             "not fit lists the changes that make it fit (docs/model.md 5.1; <code>libscale memory</code> shows "
             "them for any configuration).</p>"]
    columns = [_format.Column("gpus", "GPUs", _format.integer), _format.Column("fit", "fits", _format.text, "<"),
               _format.Column("peak_gib", "peak GiB", _format.fixed(1)),
               _format.Column("peak_phase", "in", _format.text, "<"),
               _format.Column("max_micro_batch", "largest micro-batch", _format.integer),
               _format.Column("max_seq_len", "longest sequence tokens", _format.integer)]
    for hw, p in projs.items():
        rows, misfit = [], None
        for r in _format.with_fit(p.rows_dicts()):
            advice = p.fit_advice(r["gpus"])
            rows.append({"gpus": r["gpus"], "fit": r["fit"], "peak_gib": r["memory"]["allocated_gib"],
                         "peak_phase": r["memory"]["peak_phase"], "max_micro_batch": advice.max_micro_batch or None,
                         "max_seq_len": advice.max_seq_len or None})
            if misfit is None and not advice.fits:
                misfit = advice
        if len(projs) > 1:
            parts.append(f"<h3>{_e(hw)}</h3>")
        parts.append(_table(columns, rows, "num"))
        if misfit is not None:
            gpus = misfit.plan.config.gpus
            changes = misfit.changes[:_MAX_FIT_CHANGES]
            if changes:
                parts.append(f"<p>What would make {gpus} GPUs fit (GPU-hours for the same tokens, relative to "
                             f"{gpus} GPUs as given):</p>")
                parts.append(_table(misfit._COLUMNS, changes, "num"))
            else:
                parts.append(f"<p>No change tried makes {gpus} GPUs fit.</p>")
    parts.append("</section>")
    return "".join(parts)


#: Layouts the report lists per hardware.
_MAX_LAYOUTS = 5


def _layouts_section(projs: Mapping[str, Projection]) -> str:
    """At the largest GPU count and its global batch: the fastest layouts that fit (FSDP or
    HSDP, tensor and context parallel, micro-batch, checkpointing), as `libscale layouts`."""
    from .results import _LAYOUT_COLUMNS

    parts = ["<section id=\"layouts\"><h2>Layouts at the largest count</h2>",
             "<p class=\"note\">Every layout of the largest GPU count at the same global batch: FSDP or HSDP, "
             "tensor- and context-parallel degrees, micro-batch and activation checkpointing, the other options as "
             "given; the fastest that fit, which at one GPU count also cost the fewest GPU-hours (docs/model.md 9; "
             "<code>libscale layouts</code> lists them all).</p>"]
    # Intervals only where the projection has them too (a report without quantiles has none).
    intervals = _has_quantiles(projs)
    columns = [c for c in _LAYOUT_COLUMNS if intervals or c.key != "interval"]
    for hw, p in projs.items():
        rows = p.rows_dicts()
        if not rows:
            continue
        last = rows[-1]
        plan = p.plan.with_(gpus=last["gpus"], global_batch_tokens=int(last["tokens_per_step"]))
        layouts = plan.layouts(intervals=_MAX_LAYOUTS if intervals else 0)
        if len(projs) > 1:
            parts.append(f"<h3>{_e(hw)}</h3>")
        parts.append(f"<p>{_e(layouts.summary())}</p>")
        if len(layouts):
            parts.append(_table(columns, layouts._table_rows(_MAX_LAYOUTS), "num"))
    parts.append("</section>")
    return "".join(parts)


def _notes(lines: Iterable[str]) -> str:
    items = "".join(f"<li>{_e(line)}</li>" for line in lines if line)
    return f"<ul class=\"notes\">{items}</ul>" if items else ""


def _kv_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]]) -> str:
    """A table of text cells (every cell escaped); columns: (key, header)."""
    head = "".join(f"<th>{_e(h)}</th>" for _, h in columns)
    body = "".join("<tr>" + "".join(f"<td class=\"c-{_e(k)}\">{_e(r.get(k, ''))}</td>" for k, _ in columns)
                   + "</tr>" for r in rows)
    return (f"<div class=\"tablewrap text\"><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table></div>")


# --- assumptions: training configuration ----------------------------------------------


def _option_rows(p: Projection) -> list[dict[str, Any]]:
    values = p.plan.options()
    counts = ", ".join(f"{g:,}" for g in p.gpus_requested)
    rows = []
    for group, prefix in (("training", ""), ("data", "data."), ("checkpoint", "checkpoint.")):
        given = values if group == "training" else (values.get(group) or {})
        for o in _options.options(group):
            if group == "training" and o.name in ("data", "checkpoint"):
                continue
            v = given.get(o.name)
            text = _value(v)
            if group == "training" and o.name == "gpus":
                text = f"{counts} (one row each)"
            elif v is None and o.name == "gpus_per_node":
                text = f"not set: the hardware's ({p.plan.hardware.gpus_per_node})"
            elif v is None and o.name == "global_batch_tokens" and p.raw.rows:
                text = f"not set: {p.raw.rows[0].step.tokens_per_step:,.0f} tokens per step"
            default = "" if group == "training" and o.name == "gpus" else _value(o.default)
            rows.append({"option": prefix + o.name, "value": text, "unit": o.unit, "default": default,
                         "meaning": o.help})
    return rows


def _configuration(projs: Mapping[str, Projection]) -> str:
    first = next(iter(projs.values()))
    rows = _option_rows(first)
    note = ("Every training option the projection used, as given or defaulted; the same for every hardware."
            if len(projs) > 1 else "Every training option the projection used, as given or defaulted.")
    return ("<h3>Training configuration</h3>"
            f"<p class=\"note\">{_e(note)}</p>"
            + _kv_table(rows, [("option", "option"), ("value", "value"), ("unit", "unit"), ("default", "default"),
                               ("meaning", "meaning")]))


# --- assumptions: the job and its price -----------------------------------------------


def _source_document(source: str) -> dict[str, Any] | None:
    """The JSON document a hardware profile or calibration was read from (the shipped
    catalog, or the file by path), for its sources and notes; None when not readable."""
    try:
        if source.startswith(_CATALOG_PREFIX):
            rel = source[len(_CATALOG_PREFIX):]
            if rel in _core.io.catalog_files():
                doc = json.loads(_core.io.catalog_file(rel))
                return doc if isinstance(doc, dict) else None
        if not source:
            return None
        doc = read_json(source, max_bytes=_MAX_SOURCE_BYTES, expected="a JSON document")
        return doc if isinstance(doc, dict) else None
    except (OSError, ValueError, RecursionError):
        # Sources are for the reader; a file that moved since is no reason to fail the report.
        return None


def _prices_file_source(path: str) -> str | None:
    """The "source" line of a libscale.prices/1 file ("our contract, 2026-11")."""
    doc = _source_document(path)
    text = doc.get("source") if doc else None
    return text if isinstance(text, str) and text.strip() else None


def _price_source(hw: str, p: Projection, result: Result, price_source: str | None) -> str:
    if price_source is not None:
        return price_source
    if p.raw.job.price_per_gpu_hour_usd is not None:
        prices = result.prices_source if isinstance(result, Comparison) else None
        if prices and prices != "given":
            from .compare import read_prices

            try:
                in_file = hw.lower() in read_prices(prices)
            except (OSError, ValueError, TypeError):
                in_file = False
            if in_file:
                note = _prices_file_source(prices)
                return f"price file {prices}" + (f" ({note})" if note else "")
        if prices == "given":
            return "given per hardware (prices=)"
        return "set for this job (price_per_gpu_hour_usd)"
    doc = _source_document(str(p.plan.hardware.source)) or {}
    sources = doc.get("sources") if isinstance(doc.get("sources"), dict) else {}
    why = (sources or {}).get("price_per_gpu_hour_usd")
    return f"the hardware profile's price ({p.plan.hardware.source})" + (f": {why}" if why else "")


def _job(projs: Mapping[str, Projection], result: Result, price_source: str | None) -> str:
    first = next(iter(projs.values()))
    job = first.raw.job
    rows_of = first.raw.rows
    batch = rows_of[0].step.tokens_per_step if rows_of else None
    if first.raw.scaling == "strong":
        scaling = "strong: the global batch stays fixed" + (f" at {batch:,.0f} tokens per step" if batch else "") \
                  + "; gradient accumulation falls as GPUs are added"
    else:
        scaling = "weak: the batch per GPU stays fixed; the global batch grows with the GPU count"
    rows = [{"what": "tokens per epoch", "value": f"{job.tokens:,.0f}"},
            {"what": "epochs", "value": f"{job.epochs:g}"},
            {"what": "tokens in all", "value": f"{job.tokens * job.epochs:,.0f}"},
            {"what": "GPU counts projected", "value": ", ".join(f"{g:,}" for g in first.gpus_requested)},
            {"what": "scaling", "value": first.raw.scaling, "source": scaling}]
    for hw, p in projs.items():
        rows.append({"what": f"price per GPU-hour, {hw}", "value": f"${p.raw.price_per_gpu_hour_usd:,.2f}",
                     "source": _price_source(hw, p, result, price_source)})
    return ("<h3>The job</h3>"
            + _kv_table(rows, [("what", "quantity"), ("value", "value"), ("source", "what it means, where it "
                                                                                   "comes from")]))


# --- assumptions: hardware ------------------------------------------------------------

#: HardwareProfile fields shown: (field, label, unit).
HARDWARE_FIELDS = (
    ("display_name", "part", ""),
    ("peak_bf16_tflops", "peak bf16 dense", "TFLOP/s"),
    ("peak_fp8_tflops", "peak fp8 dense", "TFLOP/s"),
    ("sm_count", "streaming multiprocessors", "SMs"),
    ("hbm_gib", "HBM capacity", "GiB"),
    ("hbm_tbps", "HBM bandwidth", "TB/s"),
    ("nvlink_gbps_bidir", "NVLink bandwidth (both directions)", "GB/s"),
    ("nic_gbps_per_gpu", "network per GPU", "Gb/s"),
    ("gpus_per_node", "GPUs per node", "GPUs"),
    ("board_power_w", "board power", "W"),
    ("idle_power_w", "idle power", "W"),
    ("price_per_gpu_hour_usd", "catalog price per GPU-hour", "USD"),
)


def _hardware(projs: Mapping[str, Projection]) -> str:
    parts = ["<h3>Hardware</h3>"]
    for hw, p in projs.items():
        spec = struct_to_dict(p.plan.hardware)
        doc = _source_document(str(spec.get("source", ""))) or {}
        sources = doc.get("sources") if isinstance(doc.get("sources"), dict) else {}
        notes = doc.get("notes") if isinstance(doc.get("notes"), dict) else {}
        rows = []
        for key, label, unit in HARDWARE_FIELDS:
            where = str((sources or {}).get(key, ""))
            note = (notes or {}).get(key)
            if note:
                where = f"{where} Note: {note}" if where else f"Note: {note}"
            rows.append({"what": label, "value": _value(spec.get(key)), "unit": unit, "source": where})
        parts.append(f"<h4>{_e(hw)}</h4>")
        parts.append(f"<p class=\"note\">Profile: <code>{_e(spec.get('source', ''))}</code></p>")
        parts.append(_kv_table(rows, [("what", "quantity"), ("value", "value"), ("unit", "unit"),
                                      ("source", "source")]))
    return "".join(parts)


# --- assumptions: calibration ---------------------------------------------------------

# Where a default calibration file states the source of each coefficient (its keys follow
# the file's sections, not the coefficient names).
_DEFAULT_SOURCE_KEYS = {
    "attention.forward_eta_max": "compute.attention", "attention.forward_half_seq": "compute.attention",
    "attention.backward_eta_max": "compute.attention", "attention.backward_half_seq": "compute.attention",
    "attention.head_dim_half": "compute.attention.head_dim_half",
    "kernel_overhead_s": "compute.overhead.kernel_s", "layer_overhead_s": "compute.overhead.layer_s",
    "step_overhead_s": "compute.overhead.step_s", "framework_efficiency": "compute.framework_efficiency",
    "intra_node.alpha_s": "comm.intra_node.alpha_us", "intra_node.busbw_bytes_per_s": "comm.intra_node.busbw_fraction",
    "inter_node.alpha_s": "comm.inter_node.alpha_us", "inter_node.busbw_bytes_per_s": "comm.inter_node.busbw_fraction",
    "hbm_efficiency": "memory.hbm_efficiency", "reserved_gib": "memory.reserved_gib",
    "fragmentation": "memory.fragmentation", "memory_margin": "memory.margin",
    "power.compute_w": "power.compute_fraction", "power.comm_w": "power.comm_fraction",
    "power.idle_w": "power.idle_fraction",
}


def _coefficient_source(name: str, sources: Mapping[str, Any]) -> str:
    for key in (name, _DEFAULT_SOURCE_KEYS.get(name, ""), f"compute.{name}"):
        if key and key in sources:
            return str(sources[key])
    return ""


def _sd(v: float) -> str:
    return f"± {v:.3g}"


def _coefficient_rows(p: Projection, doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    cf = p.plan.calibration
    cal = cf.calibration
    quality = cf.quality if isinstance(cf.quality, dict) else {}
    by_name = {c["name"]: c for c in quality.get("coefficients") or [] if isinstance(c, dict)}
    sources = cf.sources if isinstance(cf.sources, dict) and cf.sources else doc.get("sources") or {}
    if not isinstance(sources, dict):
        sources = {}
    names = list(cf.parameters)
    cov = cf.covariance
    rows = []
    for c in _core.calibrate.calibration_coefficients():
        name = c["name"]
        value = _core.calibrate.get_parameter(cal, name)
        q = by_name.get(name)
        sd = ""
        if q is not None and q.get("fitted") and q.get("std_error"):
            sd = _sd(float(q["std_error"]))
        elif name in names and cov.size:
            i = names.index(name)
            sd = _sd(math.sqrt(max(float(cov[i, i]), 0.0)))
        if q is not None:
            status = "fitted" if q.get("fitted") else "prior (not fitted)"
        else:
            status = "as shipped" if cf.kind == "default" else ""
        rows.append({"name": name, "value": f"{value:.4g}", "sd": sd, "unit": c["unit"], "status": status,
                     "source": _coefficient_source(name, sources), "meaning": c["help"]})
    return rows


def _provenance(value: Any) -> str:
    """A calibration file's provenance (nested objects and lists) as nested lists."""
    value = to_jsonable(value)
    if isinstance(value, Mapping):
        items = [f"<li><b>{_e(str(k).replace('_', ' '))}</b>: {_provenance(v)}</li>"
                 for k, v in value.items() if v not in (None, "", [], {})]
        return f"<ul>{''.join(items)}</ul>" if items else ""
    if isinstance(value, list):
        return "<ul>" + "".join(f"<li>{_provenance(v)}</li>" for v in value) + "</ul>"
    return _e(_value(value))


def _calibration(projs: Mapping[str, Projection]) -> str:
    parts = ["<h3>Calibration</h3>"]
    for hw, p in projs.items():
        cf = p.plan.calibration
        doc = _source_document(str(cf.source)) or {}
        kind = _format.calibration_file_kind(cf)
        parts.append(f"<h4>{_e(hw)}: {_e(kind)}</h4>")
        facts = [("kind", kind), ("file", str(cf.source) or "given in memory")]
        if isinstance(doc.get("description"), str):
            facts.append(("description", doc["description"]))
        parts.append("<dl class=\"kv\">" + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts) + "</dl>")
        if cf.provenance:
            parts.append("<p class=\"sub\">Provenance</p><div class=\"prov\">" + _provenance(cf.provenance) + "</div>")
        if p.quantiles:
            method = _format.uncertainty_sentence(p.to_dict())
        elif len(cf.parameters):
            method = ("No interval computed for this report; the file carries a covariance of "
                      f"{', '.join(cf.parameters)} from which P10–P90 can be drawn.")
        else:
            method = "This calibration carries no covariance: no interval can be drawn from it."
        parts.append(f"<p class=\"note\"><b>Interval method.</b> {_e(method)}</p>")
        parts.append(_kv_table(_coefficient_rows(p, doc),
                               [("name", "coefficient"), ("value", "value"), ("sd", "sd"), ("unit", "unit"),
                                ("status", "fit"), ("source", "where the value comes from"),
                                ("meaning", "meaning")]))
    return "".join(parts)


# --- assumptions: the model -----------------------------------------------------------

MODEL_FIELDS = (
    ("name", "name"), ("model_type", "architecture (model_type)"), ("parameters", "parameters"),
    ("num_layers", "decoder layers"), ("hidden_size", "hidden size"), ("intermediate_size", "MLP intermediate size"),
    ("num_heads", "attention heads"), ("num_kv_heads", "key/value heads"), ("head_dim", "head dimension"),
    ("vocab_size", "vocabulary"), ("max_position_embeddings", "maximum positions"),
    ("tie_word_embeddings", "tied input/output embeddings"), ("mlp", "MLP"), ("activation", "activation"),
    ("norm", "normalization"), ("positions", "positions"), ("sliding_window", "sliding window (tokens; 0: none)"),
    ("source", "configuration source"),
)


def _model(projs: Mapping[str, Projection]) -> str:
    spec = struct_to_dict(next(iter(projs.values())).plan.model)
    rows = [{"what": label, "value": _value(spec.get(key))} for key, label in MODEL_FIELDS if key in spec]
    return "<h3>Model</h3>" + _kv_table(rows, [("what", "quantity"), ("value", "value")])


# --- the page ---------------------------------------------------------------------------

_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: #ffffff; color: #1b1f24;
       font: 15px/1.5 "DejaVu Sans", "Segoe UI", "Helvetica Neue", Helvetica, Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 28px 32px 36px; }
h1 { font-size: 27px; line-height: 1.25; margin: 0 0 12px; }
h2 { font-size: 20px; margin: 34px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #cfd5dc; }
h3 { font-size: 17px; margin: 24px 0 6px; }
h4 { font-size: 15px; margin: 18px 0 4px; }
p { margin: 6px 0; }
.answer { font-size: 18px; font-weight: 600; line-height: 1.45; background: #edf4fb; border-left: 6px solid #0072b2;
          padding: 12px 16px; margin: 12px 0; }
.answer ul { margin: 8px 0 0; padding-left: 22px; font-size: 16px; font-weight: 500; }
.lede, .note, .notes { color: #3d444d; font-size: 13.5px; }
.notes { margin: 6px 0; padding-left: 20px; }
.sub { font-weight: 600; margin-top: 10px; }
figure { margin: 18px 0 26px; break-inside: avoid; page-break-inside: avoid; }
figure img { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figcaption { font-size: 13px; color: #3d444d; margin-top: 6px; text-align: center; }
.tablewrap { overflow-x: auto; margin: 8px 0; }
.tablewrap .libscale > p { margin: 0 0 4px; font-size: 13px; color: #3d444d; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 9px; border-bottom: 1px solid #e2e6ea; vertical-align: top; }
th { background: #f1f4f7; font-weight: 600; vertical-align: bottom; border-bottom: 1.5px solid #aab2bc; }
tbody tr:nth-child(even) td { background: #f9fafb; }
.num th { text-align: right; }
.num td { white-space: nowrap; }
.num.lead-text th:first-child { text-align: left; }
.text th { text-align: left; }
.text td { text-align: left; }
.text td.c-what, .text td.c-option, .text td.c-name, .text td.c-sd, .text td.c-default,
.text td.c-unit { white-space: nowrap; }
.num.fit-last th:last-child { text-align: left; }
.text td.c-source, .text td.c-meaning { font-size: 12px; color: #3d444d; min-width: 16em; }
.text td.c-source { overflow-wrap: anywhere; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px; font-size: 13.5px; margin: 6px 0; }
dl.kv dt { font-weight: 600; }
dl.kv dd { margin: 0; }
.prov { font-size: 12.5px; color: #3d444d; overflow-wrap: anywhere; }
.prov ul { margin: 2px 0; padding-left: 20px; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
footer { margin-top: 40px; padding-top: 10px; border-top: 1px solid #cfd5dc; font-size: 12.5px; color: #3d444d; }
footer p { margin: 3px 0; }
@page { size: A4 landscape; margin: 12mm; }
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; page-break-after: avoid; }
  h3, h4 { break-after: avoid; page-break-after: avoid; }
  table { font-size: 7.5pt; }
  th, td { padding: 2px 5px; }
  .text td.c-source, .text td.c-meaning { font-size: 7pt; }
  .tablewrap { overflow: visible; }
  tr { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  .answer, th, tbody tr:nth-child(even) td { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  figure img { max-height: 160mm; width: auto; }
}
"""


def html_report(result: Result, *, title: str | None = None, command: str | None = None,
                price_source: str | None = None) -> str:
    """The report of a Projection or a Comparison as one HTML document (a str).

    title: the page's heading (default "Training plan: MODEL on HARDWARE"). command: the
    command line that made the result, shown in the footer. price_source: where the price
    per GPU-hour came from, when the result cannot tell (e.g. a price file applied to a
    single projection); otherwise the page says whether the job, a price file or the
    hardware profile set it. Raises ImportError naming ``pip install 'libscale[plot]'``
    when matplotlib is not installed."""
    from . import __version__

    if title is not None:
        bad = re.search("[\x00-\x1f\x7f-\x9f]", str(title))
        if bad:  # as hardware and model names: one line of printable text
            raise ValueError(f"title has a control character (byte 0x{ord(bad.group()):02x}); valid: one line of "
                             "printable text")
    projs = _projections(result)
    figures = _figures(result)
    heading = _default_title(result) if title is None or not title.strip() else title
    first = next(iter(projs.values()))
    out = ["<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
           f"<meta name=\"generator\" content=\"libscale {_e(__version__)}\">\n",
           f"<title>{_e(heading)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"]
    out.append(f"<header><h1>{_e(heading)}</h1>")
    if isinstance(result, Comparison):
        lead, lines = _comparison_answer(result)
        out.append(f"<div class=\"answer\"><p>{_e(lead)}</p><ul>"
                   + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul></div>")
        header = result.header().splitlines()[0]
    else:
        out.append(f"<p class=\"answer\">{_e(_projection_answer(first))}</p>")
        header = _format.projection_header(first.to_dict())
        if any(r["fits"] for r in first.rows_dicts()):
            out.append(f"<p class=\"note\">The headline count is the largest that fits in GPU memory with a scaling "
                       f"efficiency of at least {HEADLINE_MIN_EFFICIENCY:.0%}; the tables below show every count."
                       "</p>")
    out.append(f"<p class=\"lede\">{_e(header)}</p></header>\n")
    out.append("<section id=\"figures\"><h2>Figures</h2>")
    for uri, alt, caption in figures:
        out.append(f"<figure><img src=\"{uri}\" alt=\"{_e(alt)}\"><figcaption>{_e(caption)}</figcaption></figure>")
    out.append("</section>\n")
    out.append(_projection_tables(result) + "\n")
    out.append(_memory_section(projs) + "\n")
    out.append(_layouts_section(projs) + "\n")
    out.append("<section id=\"assumptions\"><h2>Assumptions</h2>")
    out.append("<p class=\"note\">What the numbers above rest on. A projection is an estimate of a model: a "
               "calibration to your own runs (<code>libscale fit</code>) is what makes it yours.</p>")
    out.append(_configuration(projs))
    out.append(_job(projs, result, price_source))
    out.append(_hardware(projs))
    out.append(_calibration(projs))
    out.append(_model(projs))
    out.append("</section>\n")
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out.append(f"<footer><p>Made by libscale {_e(__version__)} on {_e(now)}. Every number on this page was "
               "computed by libscale's C++ core.</p>")
    if command:
        out.append(f"<p>Command: <code>{_e(command)}</code></p>")
    out.append("</footer>\n</main>\n</body>\n</html>\n")
    return "".join(out)


# --- writing it -------------------------------------------------------------------------


def write_report(result: Result, path: str | os.PathLike[str], *, title: str | None = None,
                 command: str | None = None, price_source: str | None = None) -> None:
    """:func:`html_report` written to path atomically (see :func:`libscale._files.write_atomic`). The path
    is checked before anything is computed: ValueError for a directory or another file that
    is not regular."""
    check_target(path, "the report")
    write_atomic(path, html_report(result, title=title, command=command, price_source=price_source).encode("utf-8"),
                 what="the report", mode=0o644)
