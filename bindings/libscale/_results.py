"""Result conversions still attached to the bound types of calibration, gating and triage:
to_dict(), to_pandas(), _repr_html_() (the estimates' results are classes: results.py).

pandas is optional and imported only when to_pandas() is called."""

from __future__ import annotations

import math
from typing import Any, Mapping, Optional

import numpy as np

from . import _core, _format
from .results import row_to_dict as _row_to_dict

__all__ = ["to_jsonable"]


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas, which is not installed: "
                          "pip install pandas (or pip install 'libscale[pandas]')") from e
    return pandas


def _fields(cls: type) -> list[str]:
    """The bound type's fields in C++ declaration order (its _fields), then its other
    properties (derived figures such as memory_gib), in definition order."""
    declared = list(getattr(cls, "_fields", ()))
    return declared + [k for k, v in vars(cls).items() if isinstance(v, property) and k not in declared]


def _convert(v: Any) -> Any:
    if hasattr(v, "to_dict") and type(v).__module__.startswith("libscale"):
        return v.to_dict()
    if isinstance(v, (list, tuple)):
        return [_convert(x) for x in v]
    return v


def _struct_to_dict(self: Any) -> dict[str, Any]:
    """Every field as a plain Python value (nested structs as dicts)."""
    return {k: _convert(getattr(self, k)) for k in _fields(type(self))}


def to_jsonable(obj: Any) -> Any:
    """obj with numpy scalars / arrays turned into Python values and NaN / inf into None,
    so that json.dumps writes valid JSON."""
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
    if hasattr(obj, "to_dict") and type(obj).__module__.startswith("libscale"):
        return to_jsonable(obj.to_dict())
    return obj


# --- FitResult / CalibrationFile ----------------------------------------------------


def _fit_to_dict(self: _core.calibrate.FitResult) -> dict[str, Any]:
    """Every field as plain Python values (covariance as nested lists)."""
    return {
        "hardware": self.calibration.hardware,
        "calibration": self.calibration.to_dict(),
        "parameters": list(self.parameters),
        "covariance": self.covariance.tolist(),
        "coefficients": [c.to_dict() for c in self.coefficients],
        "unidentified": list(self.unidentified),
        "relative_residuals": self.relative_residuals.tolist(),
        "rms_relative_error": self.rms_relative_error,
        "loo_relative_error": self.loo_relative_error,
        "families": [f.to_dict() for f in self.families],
        "chosen_family": self.chosen_family,
        "family_reason": self.family_reason,
        "records_used": self.records_used,
        "prior_log_sd": dict(self.prior_log_sd),
        "sources": list(getattr(self, "sources", [])),
    }


def default_provenance(fit: Any) -> dict[str, Any]:
    """hardware, date (UTC), libscale version and the measurement sources of a fit."""
    import datetime

    hw = getattr(fit, "hardware", None)
    return {
        "hardware": hw.name if hw is not None else fit.calibration.hardware,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "libscale_version": _core.__version__,
        "source": list(getattr(fit, "sources", [])),
    }


def _fit_write(self: _core.calibrate.FitResult, path: Any, *, provenance: Optional[Mapping[str, Any]] = None) -> None:
    """Write the calibration file (libscale.calibration/2, kind "fitted") atomically: a
    temporary file renamed into place, so a failure never leaves a partial file.
    provenance: fields added to (and overriding) the default hardware / date / version /
    source."""
    import os

    prov = default_provenance(self)
    if provenance:
        prov.update(to_jsonable(dict(provenance)))
    _core.calibrate.write_fit_calibration(os.fsdecode(path), self, prov)


def _fit_calibration_file(self: _core.calibrate.FitResult, *, provenance: Optional[Mapping[str, Any]] = None) -> Any:
    """The fit as a CalibrationFile (what reading the written file gives)."""
    prov = default_provenance(self)
    if provenance:
        prov.update(to_jsonable(dict(provenance)))
    hw = getattr(self, "hardware", None) or _core.io.find_hardware(self.calibration.hardware)
    return _core.calibrate.calibration_from_json(self.calibration_json(prov), hw, origin="<fit>")


def _calfile_to_dict(self: _core.calibrate.CalibrationFile) -> dict[str, Any]:
    return self.to_json()


# --- attach --------------------------------------------------------------------------

for _cls in (_core.spec.ModelSpec, _core.spec.ParameterCounts, _core.spec.FlopsPerToken, _core.spec.HardwareProfile,
             _core.spec.DataPipeline, _core.spec.CheckpointPolicy, _core.spec.TrainingConfig,
             _core.calibrate.LinkLevel, _core.calibrate.GemmLaw, _core.calibrate.AttentionLaw,
             _core.calibrate.Calibration, _core.calibrate.Coefficient, _core.calibrate.FamilyScore,
             _core.calibrate.FitOptions, _core.estimate.MemoryBreakdown, _core.estimate.StepBreakdown,
             _core.estimate.ComputeTimes, _core.estimate.Job, _core.estimate.Quantiles, _core.estimate.RowQuantiles,
             _core.estimate.UncertaintyOptions):
    _cls.to_dict = _struct_to_dict  # type: ignore[attr-defined]
# A projection row reads as the dict its Projection's to_dict() rows hold (one function: results.py).
_core.estimate.ProjectionRow.to_dict = _row_to_dict  # type: ignore[attr-defined]
_core.calibrate.FitResult.to_dict = _fit_to_dict  # type: ignore[attr-defined]
_core.calibrate.FitResult.write = _fit_write  # type: ignore[attr-defined]
_core.calibrate.FitResult.calibration_file = _fit_calibration_file  # type: ignore[attr-defined]
_core.calibrate.CalibrationFile.to_dict = _calfile_to_dict  # type: ignore[attr-defined]


# --- the packing gate -----------------------------------------------------------------

_GATE_RANK_FIELDS = ("rank", "sequences", "micro_batches", "optimizer_steps", "tokens", "padding_efficiency")
_GATE_SCALARS = ("passed", "verdict", "packer", "seq_len", "world_size", "micro_batch", "grad_accum", "shuffle",
                 "seed", "sampler_drop_last", "watchdog_s", "global_bins", "min_rank", "max_rank",
                 "min_micro_batches", "max_micro_batches", "difference", "trainer_equalizes",
                 "micro_batches_dropped", "steps_dropped", "tokens_dropped", "total_tokens", "tokens_dropped_pct",
                 "hang_cost_gpu_hours", "cost_at_risk_gpu_hours", "gpu_hours_saved")


def _gate_to_dict(self: _core.gate.GateResult) -> dict[str, Any]:
    """Scalars, the overflow counts and the per-rank table as lists (JSON-ready)."""
    d: dict[str, Any] = {k: getattr(self, k) for k in _GATE_SCALARS}
    d["overflow"] = self.overflow.to_dict()
    cols = {k: getattr(self, k).tolist() for k in _GATE_RANK_FIELDS}
    d["ranks"] = [dict(zip(cols, vals)) for vals in zip(*cols.values())]
    return d


def _gate_to_pandas(self: _core.gate.GateResult) -> Any:
    """One row per rank."""
    return _pandas().DataFrame({k: getattr(self, k) for k in _GATE_RANK_FIELDS}).set_index("rank")


def _gate_repr_html(self: _core.gate.GateResult) -> str:
    d = self.to_dict()
    rows = _format.gate_rank_rows(d)
    return _format.html_table(_format.GATE_COLUMNS, rows, caption=_format.gate_header(d),
                              footer=_format.gate_verdict(d))


def _pack_to_dict(self: _core.gate.PackResult) -> dict[str, Any]:
    return {"packer": self.packer, "seq_len": self.seq_len, "num_bins": self.num_bins,
            "input_tokens": self.input_tokens, "overflow": self.overflow.to_dict(),
            "offsets": self.offsets, "samples": self.samples, "entry_tokens": self.entry_tokens,
            "bin_tokens": self.bin_tokens}


def _pack_bins(self: _core.gate.PackResult) -> list[np.ndarray]:
    """The bins as a list of arrays of sample indices (views, no copy)."""
    return np.split(self.samples, self.offsets[1:-1]) if self.num_bins else []


_core.gate.GateResult.to_dict = _gate_to_dict  # type: ignore[attr-defined]
_core.gate.GateResult.to_pandas = _gate_to_pandas  # type: ignore[attr-defined]
_core.gate.GateResult._repr_html_ = _gate_repr_html  # type: ignore[attr-defined]
_core.gate.PackResult.to_dict = _pack_to_dict  # type: ignore[attr-defined]
_core.gate.PackResult.bins = _pack_bins  # type: ignore[attr-defined]


# --- power triage --------------------------------------------------------------------


def _segments_frame(seg: Mapping[str, np.ndarray]) -> Any:
    pd = _pandas()
    cols = dict(seg)
    cols["phase"] = pd.Categorical.from_codes(np.asarray(seg["phase"], dtype=np.int64),
                                              categories=list(_core.triage.PHASE_NAMES))
    cols["duration_s"] = seg["end_s"] - seg["start_s"]
    names = ["gpu", "start_s", "end_s", "duration_s", "phase", "mean_power_w"]
    start = np.asarray(seg["start_s"])
    # nvidia-smi and dcgm times are Unix epoch seconds: add them as UTC timestamps
    if start.size and np.nanmin(start) > 1e8:
        cols["start"] = pd.to_datetime(start, unit="s", utc=True)
        names.insert(1, "start")
    return pd.DataFrame(cols, columns=names)


def _segments_records(seg: Mapping[str, np.ndarray]) -> list[dict[str, Any]]:
    names = _core.triage.PHASE_NAMES
    return [{"gpu": int(g), "start_s": float(a), "end_s": float(b), "phase": names[int(p)],
             "mean_power_w": float(w)}
            for g, a, b, p, w in zip(seg["gpu"], seg["start_s"], seg["end_s"], seg["phase"], seg["mean_power_w"])]


def _alert_to_dict(self: _core.triage.Alert) -> dict[str, Any]:
    return {"kind": self.kind, "time_s": self.time_s, "gpus": list(self.gpus), "message": self.message}


def _report_to_dict(self: _core.triage.ParseReport) -> dict[str, Any]:
    keys = ["source", "lines", "samples", "skipped_lines", "first_skipped_line", "first_skipped_text",
            "first_skipped_reason", "na_values", "duplicate_timestamps", "non_monotonic_timestamps",
            "first_bad_timestamp_line", "scrapes", "synthetic_time", "clean"]
    d = {k: getattr(self, k) for k in keys}
    d["summary"] = self.summary()
    return d


def _triage_timeline_frame(self: _core.triage.TriageResult, *, job: bool = False) -> Any:
    """The phase timeline as a DataFrame: per-GPU segments, or the job's (job=True)."""
    return _segments_frame(self.job_segments if job else self.gpu_segments)


def _triage_to_dict(self: _core.triage.TriageResult) -> dict[str, Any]:
    trace = getattr(self, "trace", None)
    bands = getattr(self, "bands", None)
    d: dict[str, Any] = {
        "phases": list(_core.triage.PHASE_NAMES),
        "job": self.job_totals,
        "gpus": {str(g): t for g, t in self.gpu_totals.items()},
        "alerts": [a.to_dict() for a in self.alerts],
        "job_timeline": _segments_records(self.job_segments),
        "timeline": _segments_records(self.gpu_segments),
    }
    if bands is not None:
        d["bands"] = {k: getattr(bands, k) for k in (
            "board_power_w", "idle_max_fraction", "checkpoint_max_fraction", "starvation_max_fraction",
            "communication_max_fraction", "idle_util_max_pct", "label")}
    if trace is not None:
        d["parse_report"] = trace.report.to_dict()
    return d


_core.triage.Alert.to_dict = _alert_to_dict  # type: ignore[attr-defined]
_core.triage.ParseReport.to_dict = _report_to_dict  # type: ignore[attr-defined]
_core.triage.TriageResult.to_dict = _triage_to_dict  # type: ignore[attr-defined]
_core.triage.TriageResult.timeline_frame = _triage_timeline_frame  # type: ignore[attr-defined]
_core.triage.TriageResult.to_pandas = _triage_timeline_frame  # type: ignore[attr-defined]
