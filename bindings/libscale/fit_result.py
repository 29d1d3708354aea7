"""Results of calibration: ``Measurements`` (what read_measurements gives) and
``FitResult`` (what fit gives). Each holds the compiled object (``.raw``) and what the
front end knows beside it (the hardware profile, the measurement sources, the notes of
parsing logs); nothing is set on the compiled objects."""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from . import _core, _format
from ._result_fields import FitResultFields, MeasurementsFields
from .results import Result, struct_to_dict, to_jsonable

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["Measurements", "FitResult", "default_provenance"]


class Measurements(MeasurementsFields):
    """A MeasurementSet with the names of the files it was read from (``sources``) and what
    parsing trainer logs assumed or skipped (``notes``). The set's fields and counts
    (``step_count``, ``hardware``, ``len()``...) read through; ``.raw`` is the set."""

    def __init__(self, raw: _core.calibrate.MeasurementSet, sources: Iterable[str] = (),
                 notes: Iterable[str] = ()) -> None:
        self._raw = raw
        self.sources: list[str] = list(sources)
        self.notes: list[str] = list(notes)

    @property
    def raw(self) -> _core.calibrate.MeasurementSet:
        return self._raw

    def __len__(self) -> int:
        return len(self._raw)

    def only_hardware(self) -> str:
        """The one hardware the records name: what a fit without an explicit hardware fits.
        ValueError when they name none or several (the caller says how to choose one)."""
        names = [str(n) for n in self._raw.hardware]
        if len(names) != 1:
            raise ValueError("the measurements name " + (f"several hardware profiles ({', '.join(names)})"
                                                         if names else "no hardware"))
        return names[0]

    def counts_text(self) -> str:
        """'7 step, 3 GEMM': the record kinds present, in a fixed order."""
        s = self._raw
        counts = [(s.step_count, "step"), (s.gemm_count, "GEMM"), (s.attention_count, "attention"),
                  (s.bandwidth_count, "bandwidth"), (s.collective_count, "collective"),
                  (s.microrun_count, "step micro-run"), (s.power_count, "power")]
        return ", ".join(f"{n} {k}" for n, k in counts if n)

    def __repr__(self) -> str:
        return f"Measurements({len(self)} records, sources={self.sources!r})"


def default_provenance(hardware: str, sources: Iterable[str]) -> dict[str, Any]:
    """hardware, date (UTC, to the second), libscale version and the measurement sources."""
    return {"hardware": hardware,
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "libscale_version": _core.__version__, "source": list(sources)}


_COEFFICIENTS_INTRO = ("coefficients (maximum a posteriori, records at ±{sigma:g} relative error unless they state "
                       "theirs; sd: posterior standard deviation; prior: value before the fit and the sd of its log; "
                       "identified: the data narrowed the prior to under 0.7 of its sd):")


class FitResult(Result, FitResultFields):
    """A fitted calibration: the compiled FitResult's fields (``calibration``,
    ``coefficients``, ``covariance``, ``families``...) read through; ``hardware`` is the
    profile fitted on, ``measurements`` what was fitted. ``write(path)`` writes the
    calibration file and records ``output`` and ``provenance``; until then ``output`` is
    "" and ``provenance`` the default one."""

    SCHEMA = "libscale.fit/1"

    def __init__(self, raw: _core.calibrate.FitResult, hardware: _core.spec.HardwareProfile,
                 measurements: Measurements, relative_error: float) -> None:
        super().__init__(raw)
        self.hardware = hardware
        self.measurements = measurements
        self.relative_error = relative_error
        self.output = ""
        self._provenance: dict[str, Any] | None = None

    @property
    def sources(self) -> list[str]:
        return list(self.measurements.sources)

    @property
    def notes(self) -> list[str]:
        return list(self.measurements.notes) + list(self._raw.notes)

    @property
    def provenance(self) -> dict[str, Any]:
        """What write() wrote as the file's provenance (before: the default one)."""
        if self._provenance is None:
            return default_provenance(self.hardware.name, self.sources)
        return dict(self._provenance)

    def _provenance_with(self, provenance: Mapping[str, Any] | None) -> dict[str, Any]:
        prov = default_provenance(self.hardware.name, self.sources)
        if provenance:
            prov.update(to_jsonable(dict(provenance)))
        return prov

    def write(self, path: str | os.PathLike[str], *, provenance: Mapping[str, Any] | None = None) -> None:
        """Write the calibration file (libscale.calibration/2, kind "fitted") atomically: the
        core writes a temporary file and renames it, so a failure never leaves a partial
        file. provenance: fields added to (and overriding) hardware / date / version / source."""
        prov = self._provenance_with(provenance)
        _core.calibrate.write_fit_calibration(os.fsdecode(path), self._raw, prov)
        self.output, self._provenance = os.fsdecode(path), prov

    def calibration_file(self, *, provenance: Mapping[str, Any] | None = None) -> _core.calibrate.CalibrationFile:
        """The fit as a CalibrationFile (what reading the written file gives)."""
        prov = self._provenance_with(provenance)
        return _core.calibrate.calibration_from_json(self._raw.calibration_json(prov), self.hardware, origin="<fit>")

    def to_dict(self) -> dict[str, Any]:
        """The fit-1 schema's fields: every compiled field, sources, output, provenance, notes."""
        r = self._raw
        return {"schema": self.SCHEMA, "hardware": self.hardware.name,
                "calibration": struct_to_dict(r.calibration), "parameters": list(r.parameters),
                "covariance": r.covariance.tolist(), "coefficients": [struct_to_dict(c) for c in r.coefficients],
                "unidentified": list(r.unidentified), "relative_residuals": r.relative_residuals.tolist(),
                "loo_relative_errors": r.loo_relative_errors.tolist(), "record_kinds": list(r.record_kinds),
                "record_indices": r.record_indices.tolist(),
                "rms_relative_error": r.rms_relative_error, "loo_relative_error": r.loo_relative_error,
                "families": [struct_to_dict(f) for f in r.families], "chosen_family": r.chosen_family,
                "family_reason": r.family_reason, "records_used": r.records_used,
                "power_bands": struct_to_dict(r.power_bands) if r.power_bands is not None else None,
                "power_bands_note": r.power_bands_note,
                "prior_log_sd": dict(r.prior_log_sd), "sources": self.sources, "output": self.output,
                "provenance": self.provenance, "notes": self.notes}

    def records(self) -> list[dict[str, Any]]:
        """One row per coefficient (its value, sd, prior and whether the data identified it)."""
        return [struct_to_dict(c) for c in self._raw.coefficients]

    def text(self) -> str:
        """What ``libscale fit`` prints."""
        d, data = self.to_dict(), self.measurements
        lines = [f"fit on {self.hardware.name}: {d['records_used']} of {len(data)} records used "
                 f"({data.counts_text()}) from {', '.join(self.sources)}"]
        lines += [f"  note: {n}" for n in self.notes]
        lines += ["", _COEFFICIENTS_INTRO.format(sigma=self.relative_error),
                  _format.text_table(_format.COEFFICIENT_COLUMNS,
                                     [_format.coefficient_row(c) for c in self._raw.coefficients]), ""]
        if d["unidentified"]:
            lines += ["not identified by the data (they stay at or near their prior):"]
            lines += [f"  - {u}" for u in d["unidentified"]] + [""]
        lines.append(_format.fit_error_sentence(d))
        if d["families"]:
            lines += ["", "model families (leave-one-out relative error):",
                      _format.text_table(_format.FAMILY_COLUMNS, d["families"]),
                      f"chosen: {d['chosen_family']} ({d['family_reason']})"]
        else:  # the families are scaling laws of step records: kernel micro-runs alone have none to compare
            lines += ["", "model families: not compared (no step records: the scaling laws are fitted to end-to-end "
                          f"step timings); the step model is {d['chosen_family']}"]
        if self.output:
            lines += ["", f"wrote {self.output} (libscale.calibration/2, kind {self._raw.calibration.kind}, "
                          f"hardware {self.hardware.name})"]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        d = self.to_dict()
        caption = (f"fit on {self.hardware.name}: {d['records_used']} of {len(self.measurements)} records used; "
                   f"chosen family {d['chosen_family']}")
        return _format.html_table(_format.COEFFICIENT_COLUMNS,
                                  [_format.coefficient_row(c) for c in self._raw.coefficients],
                                  caption=caption, footer=_format.fit_error_sentence(d))

    def plot(self, ax: Axes | None = None) -> Axes:
        """The error per record used, with the rms and leave-one-out errors
        (libscale.plot.residuals; matplotlib: pip install 'libscale[plot]')."""
        from . import plot  # matplotlib only when a figure is asked for

        return plot.residuals(self, ax=ax)

    def __repr__(self) -> str:
        return repr(self._raw)
