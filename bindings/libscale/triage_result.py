"""The result of power triage: ``TriageResult`` holds the compiled TriageResult with the
trace and the power bands it was classified with (nothing is set on the compiled object)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _core, _format
from ._result_fields import TriageResultFields
from .results import Result, _pandas, struct_to_dict

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["TriageResult"]

#: Epoch seconds above this are Unix times (nvidia-smi, dcgm), shown as UTC timestamps.
_EPOCH_MIN_S = 1e8


def _segments_records(seg: Mapping[str, np.ndarray]) -> list[dict[str, Any]]:
    names = _core.triage.PHASE_NAMES
    return [{"gpu": int(g), "start_s": float(a), "end_s": float(b), "phase": names[int(p)],
             "mean_power_w": float(w)}
            for g, a, b, p, w in zip(seg["gpu"], seg["start_s"], seg["end_s"], seg["phase"], seg["mean_power_w"],
                                     strict=True)]


def _segments_frame(seg: Mapping[str, np.ndarray]) -> Any:
    pd = _pandas()
    cols = dict(seg)
    cols["phase"] = pd.Categorical.from_codes(np.asarray(seg["phase"], dtype=np.int64),
                                              categories=list(_core.triage.PHASE_NAMES))
    cols["duration_s"] = seg["end_s"] - seg["start_s"]
    names = ["gpu", "start_s", "end_s", "duration_s", "phase", "mean_power_w"]
    start = np.asarray(seg["start_s"])
    if start.size and np.nanmin(start) > _EPOCH_MIN_S:
        cols["start"] = pd.to_datetime(start, unit="s", utc=True)
        names.insert(1, "start")
    return pd.DataFrame(cols, columns=names)


_BAND_FIELDS = ("board_power_w", "idle_max_fraction", "checkpoint_max_fraction", "starvation_max_fraction",
                "communication_max_fraction", "idle_util_max_pct", "label")


class TriageResult(Result, TriageResultFields):
    """Phase timelines, alerts, time and energy per phase (the compiled result's fields,
    ``alerts``, ``job_totals``, ``gpu_segments``... read through), with ``trace`` (the
    PowerTrace classified) and ``bands`` (the PowerBands used)."""

    SCHEMA = "libscale.triage/1"

    def __init__(self, raw: _core.triage.TriageResult, trace: _core.triage.PowerTrace,
                 bands: _core.triage.PowerBands) -> None:
        super().__init__(raw)
        self.trace = trace
        self.bands = bands

    @property
    def first_start_s(self) -> float:
        """The trace's first sample time (alerts are also shown relative to it)."""
        return float(np.min(self.trace.time_s)) if len(self.trace) else 0.0

    def timeline_frame(self, *, job: bool = False) -> Any:
        """The phase timeline as a DataFrame: per-GPU segments, or the job's (job=True)."""
        return _segments_frame(self._raw.job_segments if job else self._raw.gpu_segments)

    def to_pandas(self, *, job: bool = False) -> Any:
        """The phase timeline: per-GPU segments, or the job's (job=True); see timeline_frame."""
        return self.timeline_frame(job=job)

    def to_dict(self) -> dict[str, Any]:
        r = self._raw
        report = struct_to_dict(self.trace.report)
        report.update(clean=self.trace.report.clean, summary=self.trace.report.summary())
        return {"schema": self.SCHEMA, "phases": list(_core.triage.PHASE_NAMES), "job": r.job_totals,
                "gpus": {str(g): t for g, t in r.gpu_totals.items()},
                "alerts": [struct_to_dict(a) for a in r.alerts],
                "job_timeline": _segments_records(r.job_segments), "timeline": _segments_records(r.gpu_segments),
                "bands": {k: getattr(self.bands, k) for k in _BAND_FIELDS}, "parse_report": report}

    def records(self) -> list[dict[str, Any]]:
        """The table ``text()`` shows (and the CSV): time (s and % of the job) and energy
        (kWh) per phase, in PHASE_NAMES order. The timeline is to_pandas()."""
        job = self._raw.job_totals
        total_s = sum(v["seconds"] for v in job.values())
        return [{"phase": name, "seconds": v["seconds"],
                 "percent": 100.0 * v["seconds"] / total_s if total_s > 0 else 0.0,
                 "energy_kwh": v["energy_j"] / 3.6e6} for name, v in job.items()]

    def _header(self) -> str:
        total_s = sum(v["seconds"] for v in self._raw.job_totals.values())
        return (f"{self.trace.report.source}: {len(self.trace.gpus)} GPUs, {total_s:.1f} s; "
                f"bands: {self.bands.label}")

    def text(self) -> str:
        """What ``libscale triage`` prints."""
        d = self.to_dict()
        lines = [self._header(), _format.text_table(_format.TRIAGE_COLUMNS, self.records()), ""]
        if d["alerts"]:
            lines.append(f"alerts ({len(d['alerts'])}):")
            lines += ["  " + _format.alert_line(a, self.first_start_s) for a in d["alerts"]]
        else:
            lines.append("alerts: none")
        lines.append(f"parse: {self.trace.report.summary()}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        alerts = [_format.alert_line(struct_to_dict(a), self.first_start_s) for a in self._raw.alerts]
        return _format.html_table(_format.TRIAGE_COLUMNS, self.records(), caption=self._header(),
                                  footer="alerts: " + ("; ".join(alerts) if alerts else "none"))

    def plot(self, ax: Axes | None = None) -> Axes:
        """The power trace with its phases, band edges and alerts
        (libscale.plot.power_timeline; matplotlib: pip install 'libscale[plot]')."""
        from . import plot  # matplotlib only when a figure is asked for

        return plot.power_timeline(self, ax=ax)

    def __repr__(self) -> str:
        return (f"TriageResult(gpus={len(self.trace.gpus)}, alerts={len(self._raw.alerts)}, "
                f"bands={self.bands.label!r})")
