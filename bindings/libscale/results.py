"""Result classes: each holds the compiled result and the plan it came from, and gives the
same figures as a dict of one fixed shape (``to_dict()``, tagged with its JSON schema), a
pandas DataFrame (``to_pandas()``), CSV (``to_csv()``), a Jupyter table (``_repr_html_``)
and, as ``str()``, the table the command line prints.

Fields of the compiled object are read through the result (``step.tokens_per_s``,
``projection.rows``); ``.raw`` is the compiled object itself.
"""

from __future__ import annotations

import abc
import csv
import io
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from . import _format
from ._core import estimate as _estimate
from ._result_fields import ProjectionFields, SolutionFields, StepFields, SweepColumns

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from .fit_advice import FitAdvice
    from .plan import Plan, Scaling

__all__ = ["Result", "Step", "Projection", "Solution", "Sweep", "to_jsonable", "struct_to_dict", "rows_csv"]


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas, which is not installed: "
                          "pip install pandas (or pip install 'libscale[pandas]')") from e
    return pandas


def struct_to_dict(obj: Any) -> dict[str, Any]:
    """A bound struct's fields as plain values, nested structs as dicts (the binding's
    to_dict, defined from its one field list)."""
    return dict(obj.to_dict())


def to_jsonable(obj: Any) -> Any:
    """obj with numpy scalars / arrays turned into Python values, NaN / inf into None and
    results and bound structs into dicts, so that json.dumps writes valid JSON."""
    if isinstance(obj, Result):
        return to_jsonable(obj.to_dict())
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if hasattr(type(obj), "_fields") and type(obj).__module__.startswith("libscale"):
        return to_jsonable(obj.to_dict())
    return obj


def rows_csv(rows: Sequence[Mapping[str, Any]], fields: Sequence[str] = ()) -> str:
    """CSV of flat rows (``fields``, then the union of the rows' keys as the header, so that
    no rows still give one; None as an empty cell)."""
    out = io.StringIO()
    keys: list[str] = list(fields)
    for r in rows:
        keys.extend(k for k in r if k not in keys)
    w = csv.DictWriter(out, fieldnames=keys, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if v is None else _format.csv_safe(v)) for k, v in to_jsonable(dict(r)).items()})
    return out.getvalue()


class Result(abc.ABC):
    """What every result has. Subclasses set SCHEMA and define to_dict, records and text."""

    SCHEMA: ClassVar[str] = ""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    @property
    def raw(self) -> Any:
        """The compiled result (its fields are the result's typed properties too,
        _result_fields.py)."""
        return self._raw

    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The figures with the schema tag and the inputs, in one fixed shape."""

    @abc.abstractmethod
    def records(self) -> list[dict[str, Any]]:
        """The result's table as flat rows (the CSV and DataFrame rows)."""

    @abc.abstractmethod
    def text(self) -> str:
        """The table the command line prints."""

    def to_json(self, **kwargs: Any) -> str:
        """to_dict() as JSON (NaN as null), ``"schema"`` first."""
        return json.dumps(to_jsonable(self.to_dict()), allow_nan=False, **kwargs)

    def to_csv(self) -> str:
        return rows_csv(self.records())

    def to_pandas(self) -> Any:
        return _pandas().DataFrame(self.records())

    def __str__(self) -> str:
        return self.text()


def calibration_dict(file: Any) -> dict[str, Any]:
    """A CalibrationFile's coefficients as a dict, with a default's P10–P90 half-width
    (``uncalibrated_p10_p90_pct``)."""
    d = struct_to_dict(file.calibration)
    spread = _format.uncalibrated_spread_pct(file)
    if spread is not None:
        d["uncalibrated_p10_p90_pct"] = spread
    return d


def _context(plan: Plan, gpus: Sequence[int] | None = None) -> dict[str, Any]:
    """model, hardware, calibration and config: what every estimate reports alongside it."""
    config = struct_to_dict(plan.config)
    if gpus is not None:
        config["gpus"] = list(gpus)
    return {"model": struct_to_dict(plan.model), "hardware": struct_to_dict(plan.hardware),
            "calibration": calibration_dict(plan.calibration), "config": config}


# --- a step ---------------------------------------------------------------------------------


class _OfPlan:
    """What a plan's result reports alongside its figures."""

    plan: Plan

    @property
    def model(self) -> Any:
        return self.plan.model

    @property
    def hardware(self) -> Any:
        return self.plan.hardware

    @property
    def calibration(self) -> Any:
        """The coefficients (the plan's calibration file holds them with their covariance)."""
        return self.plan.calibration.calibration

    @property
    def config(self) -> Any:
        return self.plan.config


class Step(_OfPlan, Result, StepFields):
    """One optimizer step (the compiled StepBreakdown's fields, ``.memory`` included)."""

    SCHEMA = "libscale.step/1"

    def __init__(self, raw: _estimate.StepBreakdown, plan: Plan) -> None:
        super().__init__(raw)
        self.plan = plan

    def fields(self) -> dict[str, Any]:
        """The step's own fields (memory as a nested dict)."""
        return struct_to_dict(self._raw)

    def to_dict(self) -> dict[str, Any]:
        return {"schema": self.SCHEMA, **_context(self.plan), "step": self.fields()}

    def records(self) -> list[dict[str, Any]]:
        return [_flat_row(self.fields())]

    def _rows(self) -> list[dict[str, Any]]:
        d = self.fields()
        rows = [{"what": label, "value": fmt(d[key])} for key, label, fmt in _format.STEP_FIELDS]
        rows.insert(0, {"what": "device mesh", "value": str(self.plan.mesh)})
        rows.append({"what": "memory available GiB", "value": _format.fixed(1)(d["memory"]["available_gib"])})
        rows.append({"what": "fits", "value": _format.fit_text(d["memory"])})
        return rows

    _COLUMNS: ClassVar[list[_format.Column]] = [_format.Column("what", "quantity", _format.text, "<"),
                                                 _format.Column("value", "value", _format.text)]

    def text(self) -> str:
        return _format.text_table(self._COLUMNS, self._rows())

    def _repr_html_(self) -> str:
        return _format.html_table(self._COLUMNS, self._rows(), caption="libscale step estimate")

    def __repr__(self) -> str:
        return repr(self._raw)


# --- a projection ---------------------------------------------------------------------------

#: What a projection row adds to its step: the job figures, then whether it fits.
ROW_FIELDS = (*(f["name"] for f in _estimate.row_fields()), "fit_status", "fit_suggestion")

#: The projected figures that gain <figure>_p10 / <figure>_p90 with quantiles.
QUANTILE_FIGURES = ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "wall_time_h", "gpu_hours",
                    "cost_usd", "energy_kwh")


def row_to_dict(row: _estimate.ProjectionRow) -> dict[str, Any]:
    """The step's fields flattened into the row, then the job figures and the memory verdict."""
    d = struct_to_dict(row.step)
    for k in ROW_FIELDS:
        d[k] = getattr(row, k)
    return d


def _flat_row(d: Mapping[str, Any]) -> dict[str, Any]:
    """A row dict with the memory parts as memory_<part> columns (for tables)."""
    out = {k: v for k, v in d.items() if k != "memory"}
    for k, v in d.get("memory", {}).items():
        out[f"memory_{k}"] = v
    return out


def _with_quantiles(row: dict[str, Any], q: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in row.items():
        out[k] = v
        if k in QUANTILE_FIGURES:
            figure = getattr(q, k)
            out[f"{k}_p10"] = figure.p10
            out[f"{k}_p90"] = figure.p90
    return out


def _table_columns(rows: list[dict[str, Any]]) -> list[str]:
    keys = list(rows[0]) if rows else []
    first = [c.key for c in _format.PROJECTION_COLUMNS if c.key in keys]  # 'fit' is table text only
    return first + [k for k in keys if k not in first]


class Projection(_OfPlan, Result, ProjectionFields):
    """A job projected over GPU counts: ``rows`` (one ProjectionRow per count, ascending),
    ``quantiles`` (one RowQuantiles per row when asked for, else None)."""

    SCHEMA = "libscale.projection/1"

    def __init__(self, raw: _estimate.Projection, plan: Plan, gpus: Sequence[int],
                 quantiles: tuple[list[Any], Any] | None = None) -> None:
        super().__init__(raw)
        self.plan = plan
        self.gpus_requested = list(gpus)
        self.quantiles: list[Any] | None = quantiles[0] if quantiles else None
        self._uncertainty = None
        if quantiles:
            options = quantiles[1]
            self._uncertainty = {"samples": options.samples, "seed": options.seed,
                                 "parameters": list(plan.calibration.parameters)}

    def rows_dicts(self) -> list[dict[str, Any]]:
        rows = [row_to_dict(r) for r in self._raw.rows]
        if self.quantiles:
            by_gpus = {q.gpus: q for q in self.quantiles}
            rows = [_with_quantiles(r, by_gpus[r["gpus"]]) for r in rows]
        return rows

    def to_dict(self) -> dict[str, Any]:
        """schema, model, hardware, calibration, config, scaling, job, price, one dict per GPU
        count in ``rows``, comm_exposed_from_gpus, and (with quantiles) ``uncertainty``:
        the same keys whoever made it."""
        p = self._raw
        d: dict[str, Any] = {"schema": self.SCHEMA, **_context(self.plan, self.gpus_requested),
                             "scaling": p.scaling, "job": struct_to_dict(p.job),
                             "price_per_gpu_hour_usd": p.price_per_gpu_hour_usd, "rows": self.rows_dicts(),
                             "comm_exposed_from_gpus": p.comm_exposed_from_gpus}
        if self._uncertainty is not None:
            d["uncertainty"] = dict(self._uncertainty)
        return d

    def records(self) -> list[dict[str, Any]]:
        return [_flat_row(r) for r in self.rows_dicts()]

    def to_pandas(self) -> Any:
        """One row per GPU count: the table's columns first, then every other field (memory
        parts as memory_<part>)."""
        rows = self.records()
        return _pandas().DataFrame(rows, columns=_table_columns(rows))

    def text(self) -> str:
        d = self.to_dict()
        rows = _format.with_fit(d["rows"])
        parts = [_format.projection_header(d), ""]
        if self.quantiles:
            parts += [_format.text_table(_format.QUANTILE_PROJECTION_COLUMNS,
                                         [_format.quantile_ranges(r) for r in rows]), "",
                      _format.uncertainty_sentence(d)]
        else:
            parts.append(_format.text_table(_format.PROJECTION_COLUMNS, rows))
        parts += ["", "time per step by part (compute = GEMM + attention + memory-bound + host wait):",
                  _format.text_table(_format.STEP_PARTS_COLUMNS, rows)]
        notes = _format.fit_notes(d["rows"])
        if notes:
            parts += ["", "\n".join(notes)]
        parts += ["", _format.comm_sentence(d)]
        return "\n".join(parts)

    def fit_advice(self, gpus: int) -> FitAdvice:
        """Plan.fit_advice() at one of the projection's GPU counts, with that row's
        configuration (strong scaling: its global batch; weak: the per-GPU batch)."""
        counts = [r.step.gpus for r in self._raw.rows]
        given: Any = gpus
        if isinstance(given, bool) or given not in counts:
            raise ValueError(f"gpus = {given!r} is not a GPU count of this projection; its counts: "
                             f"{', '.join(map(str, counts))}")
        configs = _estimate.projection_configs(self.plan.config, counts, self._raw.scaling)
        scenario = self.plan.scenario
        scenario.config = configs[counts.index(given)]
        return type(self.plan)._of(scenario).fit_advice()

    def plot(self, kind: str = "scaling", ax: Axes | None = None, **kw: Any) -> Any:
        """A figure (matplotlib: pip install 'libscale[plot]'): kind "scaling", "breakdown" or
        "costs", drawn by the libscale.plot function of that name with kw. Returns its Axes
        (costs without ax: the array of its panels' Axes)."""
        from . import plot  # matplotlib only when a figure is asked for

        return plot.projection(self, kind, ax=ax, **kw)

    def _repr_html_(self) -> str:
        d = self.to_dict()
        rows = _format.with_fit(d["rows"])
        footer = [_format.comm_sentence(d)] + _format.fit_notes(d["rows"])
        if self.quantiles:  # the same table as text(): each figure with its P10-P90
            return _format.html_table(_format.QUANTILE_PROJECTION_COLUMNS, [_format.quantile_ranges(r) for r in rows],
                                      caption=_format.projection_header(d),
                                      footer=" ".join([_format.uncertainty_sentence(d), *footer]))
        return _format.html_table(_format.PROJECTION_COLUMNS, rows, caption=_format.projection_header(d),
                                  footer=" ".join(footer))

    def __repr__(self) -> str:
        return repr(self._raw)


# --- a solver's answer ----------------------------------------------------------------------


class Solution(_OfPlan, Result, SolutionFields):
    """The GPU count a solver chose (``found``, ``row``) among ``candidates``."""

    SCHEMA = "libscale.solution/1"

    def __init__(self, raw: _estimate.Solution, plan: Plan, gpus: Sequence[int], job: _estimate.Job,
                 scaling: Scaling, target: Mapping[str, Any]) -> None:
        super().__init__(raw)
        self.plan = plan
        self.gpus_requested = list(gpus)
        self.job = job
        self.scaling = scaling
        self.target = dict(target)

    def to_dict(self) -> dict[str, Any]:
        s = self._raw
        job = struct_to_dict(self.job)
        price = job["price_per_gpu_hour_usd"]
        if price is None or (isinstance(price, float) and math.isnan(price)):
            price = self.plan.hardware.price_per_gpu_hour_usd
        return {"schema": self.SCHEMA, "found": s.found, "target": dict(self.target),
                "row": row_to_dict(s.row) if s.found else None,
                "candidates": [row_to_dict(r) for r in s.candidates],
                **_context(self.plan, self.gpus_requested), "scaling": self.scaling, "job": job,
                "price_per_gpu_hour_usd": price}

    def records(self) -> list[dict[str, Any]]:
        chosen = self._raw.row.step.gpus if self._raw.found else None
        return [dict(_flat_row(row_to_dict(r)), chosen=r.step.gpus == chosen) for r in self._raw.candidates]

    def plot(self, kind: str = "costs", ax: Axes | None = None, **kw: Any) -> Any:
        """The candidates as a projection's figure (kind "costs", "scaling" or "breakdown";
        matplotlib: pip install 'libscale[plot]'), the chosen count's tick marked "chosen".
        Returns what Projection.plot returns."""
        counts = [int(r.step.gpus) for r in self._raw.candidates]
        if not counts:
            raise ValueError("the solver had no candidate GPU count to draw (none of the counts given divides "
                             "the global batch)")
        axes = Projection.plot(self.plan.project(counts, job=self.job, scaling=self.scaling), kind, ax=ax, **kw)
        if self._raw.found:
            chosen = f"{int(self._raw.row.step.gpus):,}"
            for a in np.atleast_1d(axes).ravel():
                texts = [t.get_text() for t in a.get_xticklabels()]
                a.set_xticks(a.get_xticks(), [f"{t}\nchosen" if t == chosen else t for t in texts])
                for label in a.get_xticklabels():
                    if label.get_text().endswith("chosen"):
                        label.set_fontweight("bold")
        return axes

    def to_pandas(self) -> Any:
        """One row per candidate GPU count, with a ``chosen`` column."""
        rows = self.records()
        columns = _table_columns(rows)
        columns.insert(1, columns.pop(columns.index("chosen")))
        return _pandas().DataFrame(rows, columns=columns)

    def goal(self) -> str:
        t = self.target
        if "deadline_h" in t:
            return f"the cheapest GPU count that finishes within {t['deadline_h']:g} h"
        caps = []
        if t.get("max_gpu_hours") is not None:
            caps.append(f"{t['max_gpu_hours']:,g} GPU-h")
        if t.get("max_cost_usd") is not None:
            caps.append(f"${t['max_cost_usd']:,.2f}")
        return f"the fastest GPU count within {' and '.join(caps)}"

    def needed(self) -> str:
        """For a deadline no count met: how many GPUs it would take at least, from the
        fastest fitting candidate scaled linearly (strong scaling is at best linear)."""
        deadline = self.target.get("deadline_h")
        fitting = [r for r in self._raw.candidates if r.step.memory.fits]
        if self._raw.found or deadline is None or not fitting:
            return ""
        best = min(fitting, key=lambda r: r.wall_time_h)
        at_least = math.ceil(best.step.gpus * best.wall_time_h / deadline)
        return (f"the fastest that fits, {best.step.gpus} GPUs, needs {best.wall_time_h:,.1f} h: {deadline:g} h "
                f"takes at least {at_least:,} GPUs (its time scaled linearly; scaling is at best linear)")

    def left_out(self) -> str:
        """Why GPU counts asked for are not among the candidates ('' when none is missing):
        in strong scaling a count whose micro-batches do not make up the global batch."""
        counts = {int(r.step.gpus) for r in self._raw.candidates}
        missing = [g for g in self.gpus_requested if g not in counts]
        if not missing:
            return ""
        c = self.plan.config
        per_count = c.micro_batch * c.seq_len
        batch = c.global_batch_tokens or (int(self._raw.candidates[0].step.tokens_per_step)
                                          if self._raw.candidates else 0)
        why = "not valid for this configuration"
        if self.scaling == "strong" and batch and all(batch % (g * per_count) for g in missing):
            why = (f"the global batch of {batch:,} tokens is not a whole number of micro-batches of "
                   f"{c.micro_batch} x {c.seq_len:,} tokens on each of them")
        return f"left out: {', '.join(map(str, missing))} GPUs ({why})"

    def text(self) -> str:
        d = self.to_dict()
        parts = [_format.projection_header(dict(d, rows=d["candidates"])), ""]
        if d["candidates"]:
            parts += [_format.text_table([_format.Column("chosen", "chosen", lambda v: "*" if v else "", "<")]
                                         + _format.PROJECTION_COLUMNS,
                                         [dict(r, chosen=d["found"] and r["gpus"] == d["row"]["gpus"])
                                          for r in _format.with_fit(d["candidates"])]), ""]
        if d["found"]:
            row = d["row"]
            parts.append(f"{self.goal()}: {row['gpus']} GPUs ({row['nodes']} node{'' if row['nodes'] == 1 else 's'}), "
                         f"{row['wall_time_h']:,.2f} h wall, {row['gpu_hours']:,.1f} GPU-h, ${row['cost_usd']:,.2f}, "
                         f"{row['energy_kwh']:,.1f} kWh")
        else:
            fitting = sum(1 for r in d["candidates"] if r["fits"])
            parts.append(f"no GPU count among {','.join(str(g) for g in self.gpus_requested)} meets the target "
                         f"({self.goal()}); {len(d['candidates'])} valid counts were evaluated, {fitting} of them "
                         f"fit in memory")
            if self.needed():
                parts.append(self.needed())
        if self.left_out():
            parts.append(self.left_out())
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        d = self.to_dict()
        caption = (f"chosen: {d['row']['gpus']} GPUs" if d["found"] else "no GPU count meets the target")
        caption += f" ({self.goal()})"
        return _format.html_table(_format.PROJECTION_COLUMNS, _format.with_fit(d["candidates"]), caption=caption,
                                  footer=self.left_out() or None)

    def __repr__(self) -> str:
        return repr(self._raw)


# --- layouts --------------------------------------------------------------------------------


#: The training options a layout search varies (Plan.layouts, ``libscale layouts``), each
#: a field of the layout's configuration.
LAYOUT_OPTIONS = ("strategy", "tensor_parallel", "context_parallel", "context_parallel_method", "expert_parallel",
                  "micro_batch", "activation_checkpointing")


def _layout_record(row: Any) -> dict[str, Any]:
    """One layout as a flat row: its mesh and options, the step's figures and its interval."""
    c, q = row.config, row.tokens_per_s
    out: dict[str, Any] = {"mesh": str(row.mesh), **{k: getattr(c, k) for k in LAYOUT_OPTIONS}}
    step = _flat_row(struct_to_dict(row.step))
    for k in ("grad_accum", "step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "exposed_comm_s",
              "model_parallel_comm_s", "memory_gib", "fits"):
        out[k] = step[k]
    has = q.p90 > 0
    out["tokens_per_s_p10"] = q.p10 if has else None
    out["tokens_per_s_p90"] = q.p90 if has else None
    return out


_LAYOUT_COLUMNS = [
    _format.Column("rank", "#", _format.integer),
    _format.Column("mesh", "mesh", _format.text, "<"),
    _format.Column("micro_batch", "mb", _format.integer),
    _format.Column("activation_checkpointing", "AC", _format.text, "<"),
    _format.Column("grad_accum", "grad accum", _format.integer),
    _format.Column("step_time_s", "step s", _format.fixed(3)),
    _format.Column("tokens_per_s_per_gpu", "tokens/s/GPU", _format.fixed(0)),
    _format.Column("interval", "P10–P90", _format.text),
    _format.Column("mfu", "MFU %", _format.percent(1)),
    _format.Column("model_parallel_comm_s", "TP/CP/EP comm s", _format.fixed(3)),
    _format.Column("memory_gib", "memory GiB", _format.fixed(1)),
]


class Layouts(_OfPlan, Result):
    """The layouts of a plan's GPUs that fit, fastest first (at a fixed GPU count also the
    fewest GPU-hours): FSDP or HSDP, tensor-, context- and expert-parallel degrees, ring or
    Ulysses context parallel, micro-batch and checkpointing, each at the plan's global
    batch (``rows``; ``fastest`` the first)."""

    SCHEMA = "libscale.layouts/1"

    def __init__(self, raw: _estimate.LayoutRanking, plan: Plan) -> None:
        super().__init__(raw)
        self.plan = plan

    @property
    def fastest(self) -> Plan | None:
        """The first layout as a plan (None when none fits)."""
        if not self._raw.rows:
            return None
        c = self._raw.rows[0].config
        return self.plan.with_(**{k: getattr(c, k) for k in LAYOUT_OPTIONS},
                               global_batch_tokens=c.global_batch_tokens)

    def __len__(self) -> int:
        """The number of layouts that fit."""
        return len(self._raw.rows)

    def to_dict(self) -> dict[str, Any]:
        r = self._raw
        return {"schema": self.SCHEMA, **_context(self.plan), "global_batch_tokens": r.global_batch_tokens,
                "tried": r.tried, "invalid": r.invalid, "not_fitting": r.not_fitting, "rows": self.records()}

    def records(self) -> list[dict[str, Any]]:
        return [dict(rank=i + 1, **_layout_record(row)) for i, row in enumerate(self._raw.rows)]

    def _table_rows(self, top: int | None) -> list[dict[str, Any]]:
        rows = self.records()[:top]
        gpus = self.plan.config.gpus
        for row in rows:  # the interval per GPU, as the column beside it
            lo, hi = row["tokens_per_s_p10"], row["tokens_per_s_p90"]
            row["interval"] = "" if lo is None else f"{lo / gpus:,.0f}–{hi / gpus:,.0f}"
        return rows

    def summary(self) -> str:
        r = self._raw
        m, c = self.plan.model, self.plan.config
        head = (f"{m.name} on {c.gpus:,} × {self.plan.hardware.name}, seq len {c.seq_len:,}, global batch "
                f"{r.global_batch_tokens:,} tokens: {r.tried:,} layouts tried, {r.invalid:,} invalid, "
                f"{r.not_fitting:,} do not fit, {len(r.rows):,} fit")
        if not r.rows:
            return head + "; none fits (more GPUs, a shorter sequence or a smaller global batch)"
        best = r.rows[0]
        return (head + f"; fastest: {best.mesh}, micro-batch {best.config.micro_batch}, checkpointing "
                f"{best.config.activation_checkpointing} ({best.step.tokens_per_s_per_gpu:,.0f} tokens/s/GPU)")

    def text(self, top: int | None = 20) -> str:
        """The summary and the first ``top`` layouts (None: all)."""
        parts = [self.summary()]
        if self._raw.rows:
            parts += ["", _format.text_table(_LAYOUT_COLUMNS, self._table_rows(top))]
            if top is not None and len(self._raw.rows) > top:
                parts.append(f"(+{len(self._raw.rows) - top:,} more; records() or --format csv lists all)")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return _format.html_table(_LAYOUT_COLUMNS, self._table_rows(20), caption=self.summary())

    def __repr__(self) -> str:
        return repr(self._raw)


# --- a sweep --------------------------------------------------------------------------------


class Sweep(_OfPlan, Result, SweepColumns):
    """The columns of a vectorized sweep, numpy arrays of the broadcast input shape.

    Inputs: gpus, gpus_per_node, micro_batch, seq_len, global_batch_tokens (0: no
    accumulation). Outputs: the step outputs the core's field table marks for sweeps
    (``libscale._core.estimate.step_fields()``; numbers NaN where the configuration is
    invalid, integers 0), then issue (uint8; 0 valid, see describe_issue)."""

    SCHEMA = "libscale.sweep/1"
    INPUTS = ("gpus", "gpus_per_node", "micro_batch", "seq_len", "global_batch_tokens")
    OUTPUTS = (*(f["name"] for f in _estimate.step_fields() if "sweep" in f["uses"]), "issue")

    def __init__(self, columns: Mapping[str, np.ndarray], plan: Plan, *, axes: Sequence[str] = ()) -> None:
        super().__init__(dict(columns))
        self.plan = plan
        self.axes = list(axes)

    def __getitem__(self, name: str) -> np.ndarray:
        return self._raw[name]  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return int(self._raw["issue"].size)

    @property
    def columns(self) -> list[str]:
        return list(self._raw)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._raw["issue"].shape)

    @property
    def valid(self) -> np.ndarray:
        """True where the configuration is valid (issue == 0)."""
        return self._raw["issue"] == 0  # type: ignore[no-any-return]

    def issue_text(self) -> np.ndarray:
        """describe_issue(code) per element (an object array of the result's shape)."""
        texts = np.array([_estimate.describe_issue(i) for i in range(_estimate.ISSUE_COUNT)], dtype=object)
        return texts[self._raw["issue"]]  # type: ignore[no-any-return]

    def columns_dict(self, *, flat: bool = False) -> dict[str, np.ndarray]:
        """{column: array}; flat=True gives one-dimensional arrays."""
        if flat:
            return {k: np.ravel(v) for k, v in self._raw.items()}
        return dict(self._raw)

    def records(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Rows as dicts (with issue_text), at most `limit` of them."""
        flat = self.columns_dict(flat=True)
        texts = np.ravel(self.issue_text())
        n = len(self) if limit is None else min(limit, len(self))
        return [dict({k: v[i].item() for k, v in flat.items()}, issue_text=texts[i]) for i in range(n)]

    def to_dict(self) -> dict[str, Any]:
        """schema, model, hardware, calibration, config (with the swept axes as lists), the
        axes, the shape and one row per configuration."""
        ctx = _context(self.plan)
        for k in self.axes:
            ctx["config"][k] = np.unique(self._raw[k]).tolist()
        return {"schema": self.SCHEMA, **ctx, "axes": list(self.axes), "shape": list(self.shape),
                "rows": self.records()}

    def to_pandas(self) -> Any:
        """One row per configuration, inputs then outputs, plus issue_text (categorical)."""
        pd = _pandas()
        frame = pd.DataFrame(self.columns_dict(flat=True))
        categories = [_estimate.describe_issue(i) for i in range(_estimate.ISSUE_COUNT)]
        frame["issue_text"] = pd.Categorical.from_codes(frame["issue"].to_numpy().astype(np.int64), categories)
        return frame

    def _summary(self) -> str:
        valid = int(np.count_nonzero(self.valid))
        fits = int(np.count_nonzero(self._raw["fits"]))
        return (f"Sweep(shape={self.shape}, configurations={len(self)}, valid={valid}, fits={fits}, "
                f"model={self.plan.model.name!r}, hardware={self.plan.hardware.name!r})")

    def text(self) -> str:
        plan = self.plan
        cfg = struct_to_dict(plan.config)
        options = _format.options_text(cfg)
        calibration = _format.calibration_label(calibration_dict(plan.calibration))
        header = (f"{plan.model.name} ({plan.model.parameters:,} parameters) on {plan.hardware.name}, "
                  f"{cfg['strategy']}, {cfg['gpus_per_node'] or plan.hardware.gpus_per_node} GPUs/node, activation "
                  f"checkpointing {cfg['activation_checkpointing']}{', ' + options if options else ''}, {len(self)} "
                  f"configurations, calibration {calibration}")
        return header + "\n\n" + _format.text_table(_format.SWEEP_COLUMNS, self._display_rows())

    def _display_rows(self, limit: int | None = None) -> list[dict[str, Any]]:
        """records() for people: an unset global batch (0: one micro-batch per GPU is the step's
        batch) shows that batch's size, not 0."""
        rows = self.records(limit)
        for r in rows:
            if r["global_batch_tokens"] == 0:
                r["global_batch_tokens"] = r["gpus"] * r["micro_batch"] * r["seq_len"]
        return rows

    def __repr__(self) -> str:
        return self._summary()

    def _repr_html_(self, max_rows: int = 20) -> str:
        rows = self._display_rows(max_rows)
        footer = f"showing {len(rows)} of {len(self)} configurations" if len(rows) < len(self) else None
        return _format.html_table(_format.SWEEP_COLUMNS, rows, caption=self._summary(), footer=footer)
