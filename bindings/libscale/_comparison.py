"""Comparison (the same job on several hardware, side by side), price files, and the
projection of several plans over the same GPU counts. libscale.compare and Plan.compare
build on it; it imports neither (plan imports it, compare imports plan)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Union

from . import _files, _format
from . import catalog as _catalog
from ._core import estimate as _estimate
from ._core import spec as _spec
from .results import Projection, Result, _pandas

if TYPE_CHECKING:
    from .plan import Plan, Scaling

__all__ = ["Comparison", "PricesLike", "compare_plans", "hardware_list", "projections_of", "read_prices"]

PricesLike = Union[None, str, "os.PathLike[str]", Mapping[str, float]]

#: The largest price file read (a price list is a few hundred bytes).
_MAX_PRICES_BYTES = 1 << 20
_PRICES_TAG = "libscale.prices/1"


def _price(where: str, value: Any) -> float:
    """A price per GPU-hour, checked by the core as the job's price option is."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: expected a number of USD per GPU-hour, got {type(value).__name__} {value!r}")
    try:
        _spec.check_option("job", "price_per_gpu_hour_usd", float(value))
    except (ValueError, TypeError) as e:
        raise ValueError(f"{where}: {e}") from None
    return float(value)


def read_prices(source: PricesLike) -> dict[str, float]:
    """Prices per GPU-hour by hardware name, from a ``libscale.prices/1`` file or a mapping
    (``{"b300": 5.1}``). Names are matched case-insensitively; every price is checked (finite,
    not negative)."""
    if source is None:
        return {}
    if isinstance(source, Mapping):
        doc: Any = {"price_per_gpu_hour_usd": dict(source)}
        origin = "prices"
    elif isinstance(source, (str, os.PathLike)):
        origin = os.fsdecode(source)
        doc = _files.read_json(origin, max_bytes=_MAX_PRICES_BYTES, expected=f"a {_PRICES_TAG} JSON file")
        if not isinstance(doc, dict):
            raise ValueError(f"{origin}: expected a JSON object ({_PRICES_TAG}), got a JSON {type(doc).__name__}")
        unknown = sorted(set(doc) - {"schema", "source", "price_per_gpu_hour_usd"})
        if unknown:
            raise ValueError(f"{origin}: unknown field {unknown[0]!r}; valid: schema, source, price_per_gpu_hour_usd")
        if doc.get("schema", _PRICES_TAG) != _PRICES_TAG:
            raise ValueError(f"{origin}: schema {doc['schema']!r}; expected {_PRICES_TAG!r}")
        if "source" in doc and not isinstance(doc["source"], str):
            raise ValueError(f"{origin}: source: expected a string, got {doc['source']!r}")
    else:
        raise TypeError(f"prices: expected a price file path or a mapping of hardware name to USD per GPU-hour, "
                        f"got {type(source).__name__}")
    table = doc.get("price_per_gpu_hour_usd")
    if not isinstance(table, dict) or not table:
        raise ValueError(f"{origin}: price_per_gpu_hour_usd: expected a non-empty object of hardware name: "
                         f"USD per GPU-hour, got {table!r}")
    out: dict[str, float] = {}
    for name, value in table.items():
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{origin}: price_per_gpu_hour_usd: hardware name {name!r} is not a name")
        key = name.strip().lower()
        if key in out:
            raise ValueError(f"{origin}: price_per_gpu_hour_usd: {name!r} is given twice")
        out[key] = _price(f"{origin}: price_per_gpu_hour_usd.{name}", value)
    return out


def hardware_list(hardware: Any) -> list[Any]:
    """One hardware (a name, a path, a profile) or a sequence of them, as a list."""
    if isinstance(hardware, (str, os.PathLike, _spec.HardwareProfile)):
        return [hardware]
    if not isinstance(hardware, Sequence) or isinstance(hardware, bytes):
        raise TypeError(f"hardware: expected a hardware name or a list of them, got {type(hardware).__name__}")
    if not hardware:
        raise ValueError("hardware is empty; give at least one hardware profile (e.g. ['b300', 'h200'])")
    return list(hardware)


def projections_of(result: Any, *, labelled: bool = False) -> dict[str, Projection]:
    """{label: projection} of a Projection (its hardware's name), a Comparison (its
    projections) or, with labelled=True, a dict of labelled projections as given."""
    if isinstance(result, Projection):
        return {str(result.plan.hardware.name): result}
    projections = result if labelled and isinstance(result, Mapping) else getattr(result, "projections", None)
    if isinstance(projections, Mapping) and projections and all(
            isinstance(p, Projection) for p in projections.values()):
        return {str(k): v for k, v in projections.items()}
    what = "a Projection, a Comparison or a dict of label: Projection" if labelled else "a Projection or Comparison"
    raise TypeError(f"expected {what}, got {type(result).__name__}")


def _tie(winner: dict[str, Any], other: dict[str, Any], key: str) -> bool:
    """Whether another hardware's figure is as good as the winner's within what the
    projection can tell: inside the winner's P10-P90 when quantiles were drawn, else within
    1 % (well inside any calibration's error)."""
    if f"{key}_p10" in winner and f"{key}_p10" in other:
        return bool(winner[f"{key}_p10"] <= other[key] <= winner[f"{key}_p90"])
    return bool(abs(other[key] / winner[key] - 1) < 0.01)


def _ties(winner: dict[str, Any], others: list[dict[str, Any]], key: str) -> str:
    tied = [r["hardware"] for r in others if _tie(winner, r, key)]
    if not tied:
        return ""
    within = "inside its P10-P90" if f"{key}_p10" in winner else "within 1 %"
    return f", a tie with {', '.join(tied)} ({within})"


class Comparison(Result):
    """One projection per hardware profile (``projections``, keyed by hardware name in the
    order given), the job and GPU counts the same for all."""

    SCHEMA: ClassVar[str] = "libscale.comparison/1"

    def __init__(self, projections: Mapping[str, Projection], *, prices_source: str | None = None) -> None:
        super().__init__(dict(projections))
        self.projections: dict[str, Projection] = dict(projections)
        self.prices_source = prices_source
        # Methods side by side (compare(methods=...)): each record says its fine-tuning method.
        self._methods = any(name != p.plan.hardware.name for name, p in self.projections.items())

    @property
    def hardware_names(self) -> list[str]:
        return list(self.projections)

    def __getitem__(self, hardware: str) -> Projection:
        return self.projections[hardware]

    def to_dict(self) -> dict[str, Any]:
        """schema, the hardware names, where prices came from, and each hardware's projection
        (a ``libscale.projection/1`` document)."""
        return {"schema": self.SCHEMA, "hardware": self.hardware_names, "prices_source": self.prices_source,
                "projections": [p.to_dict() for p in self.projections.values()]}

    def records(self) -> list[dict[str, Any]]:
        """One flat row per hardware and GPU count: hardware, calibration kind, price, then the
        projection's row."""
        rows = []
        for name, p in self.projections.items():
            price = p.raw.price_per_gpu_hour_usd
            kind = p.plan.calibration.calibration.kind
            method = {"fine_tuning": p.plan.config.fine_tuning} if self._methods else {}
            rows += [{"hardware": name, **method, "calibration": kind, "price_per_gpu_hour_usd": price, **r}
                     for r in p.records()]
        return rows

    def to_pandas(self) -> Any:
        rows = self.records()
        first = ["hardware", *(["fine_tuning"] if self._methods else []), "calibration", "price_per_gpu_hour_usd"]
        table = first + [c.key for c in _format.PROJECTION_COLUMNS if c.key in rows[0]]
        return _pandas().DataFrame(rows, columns=table + [k for k in rows[0] if k not in table])

    _COLUMNS: ClassVar[list[_format.Column]] = [
        _format.Column("hardware", "hardware", _format.text, "<"),
        _format.Column("price_per_gpu_hour_usd", "$/GPU-h", _format.fixed(2)),
        *_format.PROJECTION_COLUMNS]

    def _rows(self) -> list[dict[str, Any]]:
        """Table rows ordered by GPU count, then hardware as given."""
        rows = []
        for name, p in self.projections.items():
            price = p.raw.price_per_gpu_hour_usd
            rows += [dict(r, hardware=name, price_per_gpu_hour_usd=price) for r in _format.with_fit(p.rows_dicts())]
        order = {n: i for i, n in enumerate(self.projections)}
        return sorted(rows, key=lambda r: (r["gpus"], order[r["hardware"]]))

    def header(self) -> str:
        """The job once, then each hardware's calibration and price."""
        first = next(iter(self.projections.values())).to_dict()
        # the job without a price: each hardware's is on its own line
        common = {k: v for k, v in first.items() if k not in ("hardware", "calibration", "price_per_gpu_hour_usd")}
        lines = [_format.projection_header(common)]
        for name, p in self.projections.items():
            d = p.to_dict()
            nodes = "" if d["config"]["gpus_per_node"] else f"{d['hardware']['gpus_per_node']} GPUs/node, "
            lines.append(f"  {name}: {nodes}calibration {_format.calibration_label(d['calibration'])}, "
                         f"${d['price_per_gpu_hour_usd']:,.2f}/GPU-h")
        if self.prices_source:
            lines.append(f"  prices from {self.prices_source}")
        return "\n".join(lines)

    def summary(self) -> list[str]:
        """Per GPU count: the fastest and the cheapest hardware among those that fit."""
        by_gpus: dict[int, list[dict[str, Any]]] = {}
        for r in self._rows():
            by_gpus.setdefault(r["gpus"], []).append(r)
        out = []
        for gpus, rows in by_gpus.items():
            fitting = [r for r in rows if r["fits"]]
            if not fitting:
                out.append(f"{gpus} GPUs: fits on none of {', '.join(r['hardware'] for r in rows)}")
                continue
            fast = max(fitting, key=lambda r: r["tokens_per_s"])
            cheap = min(fitting, key=lambda r: r["cost_usd"])
            line = f"{gpus} GPUs: fastest {fast['hardware']} ({fast['wall_time_h']:,.2f} h)"
            others = [r for r in fitting if r is not fast]
            if others:
                slowest = min(others, key=lambda r: r["tokens_per_s"])
                line += f", {fast['tokens_per_s'] / slowest['tokens_per_s']:.2f}× {slowest['hardware']}"
            # A winner by less than the projections' own uncertainty is a tie, and said so.
            line += _ties(fast, others, "tokens_per_s")
            line += f"; cheapest {cheap['hardware']} (${cheap['cost_usd']:,.2f})"
            line += _ties(cheap, [r for r in fitting if r is not cheap], "cost_usd")
            missing = [r["hardware"] for r in rows if not r["fits"]]
            if missing:
                line += f"; does not fit on {', '.join(missing)}"
            out.append(line)
        kinds = {p.plan.calibration.calibration.kind for p in self.projections.values()}
        if len(kinds) > 1:
            out.append("the calibrations differ in kind (" + ", ".join(
                f"{n} {p.plan.calibration.calibration.kind}" for n, p in self.projections.items())
                + "): a measured or derived calibration and a default one are not equally certain")
        return out

    def _columns(self) -> list[_format.Column]:
        if any(p.quantiles for p in self.projections.values()):
            return self._COLUMNS[:2] + _format.QUANTILE_PROJECTION_COLUMNS
        return self._COLUMNS

    def text(self) -> str:
        rows = [_format.quantile_ranges(r) for r in self._rows()]
        parts = [self.header(), "", _format.text_table(self._columns(), rows), "", *self.summary()]
        if any(p.quantiles for p in self.projections.values()):
            parts.append(_format.uncertainty_sentence(next(iter(self.projections.values())).to_dict()).replace(
                "calibration's covariance", "each calibration's covariance", 1))
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        rows = [_format.quantile_ranges(r) for r in self._rows()]
        return _format.html_table(self._columns(), rows, caption=self.header(),
                                  footer=" ".join(self.summary()))

    def __repr__(self) -> str:
        return f"Comparison(hardware={self.hardware_names!r}, gpus={self._gpus()!r})"

    def _gpus(self) -> list[int]:
        return list(next(iter(self.projections.values())).gpus_requested)

    def plot(self, kind: str = "costs", *, ax: Any = None, **kwargs: Any) -> Any:
        """``libscale.plot.costs`` (kind "costs") or ``libscale.plot.scaling`` ("scaling")."""
        from . import plot

        if kind == "costs":
            return plot.costs(self, ax=ax, **kwargs)
        if kind == "scaling":
            return plot.scaling(self, ax=ax, **kwargs)
        raise ValueError(f"kind = {kind!r}; valid: costs, scaling")


def compare_plans(plans: Sequence[Plan], gpus: int | Sequence[int], *, job: _estimate.Job, prices: PricesLike,
                  scaling: Scaling, quantiles: bool, samples: int, seed: int | None, require_fit: bool,
                  labels: Sequence[str] | None = None) -> Comparison:
    """Each plan projected over the same GPU counts and job; prices by hardware name. labels:
    each plan's name in the comparison (default: its hardware's name)."""
    table = read_prices(prices)
    the_job = job
    hardware = [p.hardware.name for p in plans]
    names = list(labels) if labels is not None else hardware
    seen: set[str] = set()
    for n in names:
        if n.lower() in seen:
            raise ValueError(f"hardware: {n!r} is given twice")
        seen.add(n.lower())
    seen = {h.lower() for h in hardware}
    known = {n.lower() for n in _catalog.hardware_names()} | seen
    unknown = sorted(k for k in table if k not in known)
    if unknown:
        raise ValueError(f"prices: no hardware named {unknown[0]!r}; compared: {', '.join(names)}; "
                         f"catalog: {', '.join(_catalog.hardware_names())}")
    if table and the_job.price_per_gpu_hour_usd is not None:
        raise ValueError("give prices per hardware (prices=) or one price for every hardware "
                         "(price_per_gpu_hour_usd), not both")
    out: dict[str, Projection] = {}
    for plan, name, hw in zip(plans, names, hardware, strict=True):
        job_h = the_job
        if hw.lower() in table:
            job_h = _spec.make_options("job", dict(_spec.option_values("job", the_job),
                                                   price_per_gpu_hour_usd=table[hw.lower()]))
        out[name] = plan.project(gpus, job=job_h, scaling=scaling, quantiles=quantiles, samples=samples,
                                 seed=seed, require_fit=require_fit)
    source = os.fsdecode(prices) if isinstance(prices, (str, os.PathLike)) else ("given" if prices else None)
    return Comparison(out, prices_source=source)
